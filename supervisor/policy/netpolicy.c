/* netpolicy.c — see netpolicy.h. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netpolicy.h"
#include "url.h"
#include "util.h"

struct netpol *netpol_new(void)
{
	struct netpol *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->max_connections = NETPOL_DEFAULT_MAX_CONNECTIONS;
	p->max_concurrent = NETPOL_DEFAULT_MAX_CONCURRENT;
	p->max_bytes_out = NETPOL_DEFAULT_MAX_BYTES;
	p->max_bytes_in = NETPOL_DEFAULT_MAX_BYTES;
	p->connect_timeout_ms = NETPOL_DEFAULT_CONNECT_TIMEOUT_MS;
	p->ask_timeout_ms = NETPOL_DEFAULT_ASK_TIMEOUT_MS;
	p->head_timeout_ms = NETPOL_DEFAULT_HEAD_TIMEOUT_MS;
	return p;
}

void netpol_free(struct netpol *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_allow; i++)
		free(p->allow[i].host);
	for (size_t i = 0; i < p->n_deny; i++)
		free(p->deny[i].host);
	free(p->allow);
	free(p->deny);
	free(p->addr_allow);
	free(p->addr_deny);
	free(p);
}

/* Splits "host", "host:port", "host:*", "[v6]:port" or a bare IPv6
 * address (no port then: its colons are its own). */
static int split_entry(const char *entry, char *host, size_t size, uint16_t *port, bool *any)
{
	const char *colon = strrchr(entry, ':');
	size_t hlen = strlen(entry);
	*port = 0;
	*any = false;
	if (entry[0] == '[') {
		const char *close = strchr(entry, ']');
		if (!close)
			return -1;
		colon = close[1] == ':' ? close + 1 : NULL;
		if (!colon && close[1])
			return -1;
		hlen = (size_t)(close + 1 - entry);
	} else if (colon && strchr(entry, ':') != colon) {
		colon = NULL; /* a bare IPv6 address */
	} else if (colon) {
		hlen = (size_t)(colon - entry);
	}
	if (colon) {
		const char *p = colon + 1;
		if (!strcmp(p, "*")) {
			*any = true;
		} else {
			char *end;
			errno = 0;
			long v = strtol(p, &end, 10);
			if (!*p || *end || errno || v < 1 || v > 65535 || *p == '+' || *p == '-')
				return -1;
			*port = (uint16_t)v;
		}
	}
	if (hlen == 0 || hlen >= size)
		return -1;
	memcpy(host, entry, hlen);
	host[hlen] = '\0';
	return 0;
}

int netpol_add_name(struct netpol *p, bool deny, const char *entry, struct tc_error *err)
{
	char host[300];
	struct netpol_name n = { 0 };
	if (split_entry(entry, host, sizeof host, &n.port, &n.any_port) < 0)
		return tc_error_set(err, TC_E_INVALID, entry, "not host, host:port or host:*");
	if (domain_check(host, err) < 0)
		return -1;
	size_t *count = deny ? &p->n_deny : &p->n_allow;
	struct netpol_name **list = deny ? &p->deny : &p->allow;
	if (*count >= NETPOL_RULES_MAX)
		return tc_error_set(err, TC_E_INVALID, entry, "more than %d entries",
		                    NETPOL_RULES_MAX);
	struct netpol_name *grown = realloc(*list, (*count + 1) * sizeof **list);
	if (!grown)
		return tc_error_set(err, TC_E_NOMEM, entry, "out of memory");
	*list = grown;
	if (!(n.host = strdup(host)))
		return tc_error_set(err, TC_E_NOMEM, entry, "out of memory");
	grown[(*count)++] = n;
	return 0;
}

static void map4(const uint8_t v4[4], uint8_t out[16])
{
	memset(out, 0, 10);
	out[10] = out[11] = 0xff;
	memcpy(out + 12, v4, 4);
}

static void clear_host_bits(uint8_t a[16], unsigned bits)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned keep = bits > i * 8 ? bits - i * 8 : 0;
		if (keep < 8)
			a[i] &= (uint8_t)(0xff00u >> keep);
	}
}

int netpol_add_range(struct netpol *p, bool deny, const char *cidr, struct tc_error *err)
{
	char addr[64];
	const char *slash = strchr(cidr, '/');
	size_t alen = slash ? (size_t)(slash - cidr) : strlen(cidr);
	struct netpol_range r = { 0 };
	unsigned max;
	uint8_t v4[4];
	if (alen == 0 || alen >= sizeof addr)
		goto bad;
	memcpy(addr, cidr, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET, addr, v4) == 1) {
		map4(v4, r.addr);
		max = 32;
	} else if (inet_pton(AF_INET6, addr, r.addr) == 1) {
		max = 128;
	} else {
		goto bad;
	}
	unsigned bits = max;
	if (slash) {
		char *end;
		errno = 0;
		long v = strtol(slash + 1, &end, 10);
		if (!slash[1] || *end || errno || v < 0 || v > (long)max || slash[1] == '+' ||
		    slash[1] == '-')
			goto bad;
		bits = (unsigned)v;
	}
	r.bits = bits + (max == 32 ? 96 : 0);
	clear_host_bits(r.addr, r.bits);
	size_t *count = deny ? &p->n_addr_deny : &p->n_addr_allow;
	struct netpol_range **list = deny ? &p->addr_deny : &p->addr_allow;
	if (*count >= NETPOL_RULES_MAX)
		return tc_error_set(err, TC_E_INVALID, cidr, "more than %d ranges",
		                    NETPOL_RULES_MAX);
	struct netpol_range *grown = realloc(*list, (*count + 1) * sizeof **list);
	if (!grown)
		return tc_error_set(err, TC_E_NOMEM, cidr, "out of memory");
	*list = grown;
	grown[(*count)++] = r;
	return 0;
bad:
	return tc_error_set(err, TC_E_INVALID, cidr, "not an address or ADDRESS/BITS range");
}

/* ---- parsing ---------------------------------------------------------- */

static int where_fail(struct tc_error *err, const char *where, const char *key, const char *msg)
{
	char w[sizeof err->where];
	snprintf(w, sizeof w, "%s/%s", where, key);
	return tc_error_set(err, TC_E_INVALID, w, "%s", msg);
}

static int parse_list(struct netpol *p, json_t *arr, bool names, bool deny, const char *where,
                      const char *key, struct tc_error *err)
{
	if (!json_is_array(arr))
		return where_fail(err, where, key,
		                  names ? "must be an array of \"host[:port]\"" :
		                          "must be an array of address ranges");
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
	{
		struct tc_error e = { 0 };
		char k[64];
		snprintf(k, sizeof k, "%s/%zu", key, i);
		if (!json_is_string(v))
			return where_fail(err, where, k, "must be a string");
		const char *s = json_string_value(v);
		if ((names ? netpol_add_name(p, deny, s, &e) : netpol_add_range(p, deny, s, &e)) <
		    0)
			return where_fail(err, where, k, e.msg);
	}
	return 0;
}

static int parse_number(json_t *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)lo ||
	    (uint64_t)json_integer_value(v) > hi)
		return -1;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int parse_addresses(struct netpol *p, json_t *o, const char *where, struct tc_error *err)
{
	static const struct {
		const char *key;
		unsigned bit;
	} classes[] = {
		{ "loopback", NETPOL_LOOPBACK },
		{ "link_local", NETPOL_LINK_LOCAL },
		{ "private", NETPOL_PRIVATE },
		{ "host", NETPOL_HOST },
	};
	if (!json_is_object(o))
		return where_fail(err, where, "addresses", "must be an object");
	const char *key;
	json_t *v;
	json_object_foreach(o, key, v)
	{
		char k[96];
		snprintf(k, sizeof k, "addresses/%s", key);
		if (!strcmp(key, "allow") || !strcmp(key, "deny")) {
			if (parse_list(p, v, false, key[0] == 'd', where, k, err) < 0)
				return -1;
			continue;
		}
		size_t i = 0;
		while (i < sizeof classes / sizeof classes[0] && strcmp(classes[i].key, key))
			i++;
		if (i == sizeof classes / sizeof classes[0])
			return where_fail(err, where, k,
			                  "unknown key (loopback, link_local, private, "
			                  "host, allow, deny)");
		if (!json_is_boolean(v))
			return where_fail(err, where, k, "must be true or false");
		if (json_is_true(v))
			p->allow_classes |= classes[i].bit;
	}
	return 0;
}

static int parse_object(struct netpol *p, json_t *o, const char *where, struct tc_error *err)
{
	if (!json_is_object(o))
		return where_fail(err, where, "", "must be an object");
	const char *key;
	json_t *v;
	json_object_foreach(o, key, v)
	{
		uint64_t n;
		if (!strcmp(key, "allow") || !strcmp(key, "deny")) {
			if (parse_list(p, v, true, key[0] == 'd', where, key, err) < 0)
				return -1;
		} else if (!strcmp(key, "unlisted")) {
			if (!json_is_string(v) ||
			    (strcmp(json_string_value(v), "deny") &&
			     strcmp(json_string_value(v), "ask")))
				return where_fail(err, where, key, "must be \"deny\" or \"ask\"");
			p->ask_unlisted = !strcmp(json_string_value(v), "ask");
		} else if (!strcmp(key, "addresses")) {
			if (parse_addresses(p, v, where, err) < 0)
				return -1;
		} else if (!strcmp(key, "max_connections")) {
			if (parse_number(v, 1, 1000000, &n) < 0)
				return where_fail(err, where, key,
				                  "must be an integer in 1..1000000");
			p->max_connections = (uint32_t)n;
		} else if (!strcmp(key, "max_concurrent")) {
			if (parse_number(v, 1, 1024, &n) < 0)
				return where_fail(err, where, key, "must be an integer in 1..1024");
			p->max_concurrent = (uint32_t)n;
		} else if (!strcmp(key, "max_bytes_out") || !strcmp(key, "max_bytes_in")) {
			if (parse_number(v, 1, 1ull << 50, &n) < 0)
				return where_fail(err, where, key, "must be an integer in 1..2^50");
			*(key[10] == 'o' ? &p->max_bytes_out : &p->max_bytes_in) = n;
		} else if (!strcmp(key, "connect_timeout_ms")) {
			if (parse_number(v, 100, 600000, &n) < 0)
				return where_fail(err, where, key,
				                  "must be an integer in 100..600000");
			p->connect_timeout_ms = (uint32_t)n;
		} else {
			return where_fail(
			        err, where, key,
			        "unknown key (allow, deny, unlisted, "
			        "addresses, max_connections, max_concurrent, max_bytes_out, "
			        "max_bytes_in, connect_timeout_ms)");
		}
	}
	return 0;
}

int netpol_parse(json_t *network, char *const *domains, size_t ndomains, bool ask_default,
                 const char *where, struct netpol **out, struct tc_error *err)
{
	*out = NULL;
	struct netpol *p = netpol_new();
	if (!p)
		return tc_error_set(err, TC_E_NOMEM, where, "out of memory");
	p->ask_unlisted = ask_default;
	for (size_t i = 0; i < ndomains; i++)
		if (netpol_add_name(p, false, domains[i], err) < 0)
			goto fail;
	if (network && parse_object(p, network, where, err) < 0)
		goto fail;
	*out = p;
	return 0;
fail:
	netpol_free(p);
	return -1;
}

/* ---- names ------------------------------------------------------------- */

static bool name_match(const struct netpol_name *n, const char *host)
{
	char *h = n->host;
	return domain_allowed(host, &h, 1);
}

enum netpol_verdict netpol_check_name(const struct netpol *p, const char *host, uint16_t port,
                                      enum refusal_class *why)
{
	for (size_t i = 0; i < p->n_deny; i++) {
		const struct netpol_name *n = &p->deny[i];
		if (name_match(n, host) && (n->any_port || !n->port || n->port == port)) {
			*why = REFUSAL_DENY_LIST;
			return NETPOL_DENY;
		}
	}
	bool other_port = false;
	for (size_t i = 0; i < p->n_allow; i++) {
		const struct netpol_name *n = &p->allow[i];
		if (!name_match(n, host))
			continue;
		if (n->any_port || n->port == port || (!n->port && (port == 80 || port == 443))) {
			*why = REFUSAL_NONE;
			return NETPOL_ALLOW;
		}
		other_port = true;
	}
	*why = other_port ? REFUSAL_PORT : REFUSAL_UNLISTED;
	return p->ask_unlisted ? NETPOL_ASK : NETPOL_DENY;
}

bool netpol_name_listed(const struct netpol *p, const char *host)
{
	for (size_t i = 0; i < p->n_allow; i++)
		if (name_match(&p->allow[i], host))
			return true;
	return false;
}

/* ---- loopback names ---------------------------------------------------- */

/* Whether NO_PROXY sends a client past the proxy for host: curl, Python
 * and Go match an entry as the name or any name under it. */
static bool no_proxy_holds(const char *host)
{
	size_t n = strlen(host);
	return !strcmp(host, "127.0.0.1") || !strcmp(host, "::1") || !strcmp(host, "localhost") ||
	        (n > 10 && !strcmp(host + n - 10, ".localhost"));
}

/* The address a connection to host goes to when host is loopback (the
 * address itself, or 127.0.0.1 for a localhost name, RFC 6761), else
 * false. */
static bool loopback_address(const char *host, struct sockaddr_storage *ss)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	memset(ss, 0, sizeof *ss);
	a4->sin_family = AF_INET;
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1)
		return (ntohl(a4->sin_addr.s_addr) >> 24) == 127;
	if (no_proxy_holds(host))
		return inet_pton(AF_INET, "127.0.0.1", &a4->sin_addr) == 1;
	a6->sin6_family = AF_INET6;
	return inet_pton(AF_INET6, host, &a6->sin6_addr) == 1 &&
	        IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr);
}

char *netpol_loopback_note(const struct netpol *p, const char *allow_how)
{
	struct buf names = BUF_INIT;
	bool bypass = false, refused = false;
	/* The host's own addresses are not needed: a loopback address is in
	 * the loopback class only. */
	for (size_t i = 0; i < p->n_allow; i++) {
		const struct netpol_name *n = &p->allow[i];
		struct sockaddr_storage ss;
		enum refusal_class why;
		char bracketed[URL_HOST_BRACKETED_MAX];
		if (!loopback_address(n->host, &ss))
			continue;
		buf_printf(&names, "%s%s", names.len ? ", " : "",
		           n->port || n->any_port ? url_host_bracketed(n->host, bracketed) :
		                                    n->host);
		if (n->any_port)
			buf_adds(&names, ":*");
		else if (n->port)
			buf_printf(&names, ":%u", n->port);
		bypass = bypass || no_proxy_holds(n->host);
		refused =
		        refused || netpol_check_address(p, NULL, (struct sockaddr *)&ss, &why) < 0;
	}
	if (!names.len)
		return NULL;
	buf_adds(&names, " names loopback. ");
	if (bypass)
		buf_adds(&names,
		         "NO_PROXY (" NETPOL_NO_PROXY ") sends a client that honours it (curl, "
		         "wget, Python, npm, git) straight to the sandbox's own loopback, where "
		         "only servers the tool starts itself listen: toolcage never sees that "
		         "request, and no server of this host is reached that way. ");
	buf_adds(&names, "Through toolcage's proxy (http_fetch, or curl --noproxy '') ");
	if (refused)
		buf_printf(&names,
		           "loopback addresses are refused by default: this host's loopback is "
		           "reached only with %s.",
		           allow_how);
	else
		buf_adds(&names, "this host's loopback is reached: the address rules allow it.");
	return buf_detach(&names);
}

/* Whether the address rules let the proxy reach this host's loopback,
 * over IPv4 or IPv6. */
static bool loopback_allowed(const struct netpol *p)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET,
		                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	enum refusal_class why;
	return netpol_check_address(p, NULL, (struct sockaddr *)&a4, &why) == 0 ||
	        netpol_check_address(p, NULL, (struct sockaddr *)&a6, &why) == 0;
}

char *netpol_loopback_address_note(const struct netpol *p, const char *names_how)
{
	for (size_t i = 0; i < p->n_allow; i++) {
		struct sockaddr_storage ss;
		if (loopback_address(p->allow[i].host, &ss))
			return NULL; /* netpol_loopback_note's */
	}
	if (!loopback_allowed(p))
		return NULL;
	struct buf b = BUF_INIT;
	buf_printf(&b,
	           "this host's loopback is reached through toolcage's proxy (http_fetch, "
	           "or curl --noproxy '') at the destinations the allowlist names too (%s "
	           "127.0.0.1:PORT). NO_PROXY (" NETPOL_NO_PROXY ") sends a client that "
	           "honours it (curl, wget, Python, npm, git) to localhost, 127.0.0.1 or ::1 "
	           "straight to the sandbox's own loopback instead, where only servers the "
	           "tool starts itself listen: toolcage never sees that request.",
	           names_how);
	return buf_detach(&b);
}

/* ---- addresses -------------------------------------------------------- */

static bool is_mapped(const uint8_t a[16])
{
	static const uint8_t pre[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return !memcmp(a, pre, 12);
}

/* The IPv4 address an IPv6 one carries (compatible ::a.b.c.d, NAT64
 * 64:ff9b::a.b.c.d), as a mapped form; false when none (mapped ones are
 * IPv4 already). */
static bool embedded4(const uint8_t a[16], uint8_t out[16])
{
	static const uint8_t zero[12], nat64[12] = { 0, 0x64, 0xff, 0x9b };
	if (!memcmp(a, nat64, 12) ||
	    (!memcmp(a, zero, 12) && (a[12] | a[13] | a[14] | (a[15] > 1 ? 1 : 0)))) {
		map4(a + 12, out);
		return true;
	}
	return false;
}

static bool in_range(const uint8_t a[16], const struct netpol_range *r)
{
	uint8_t m[16];
	memcpy(m, a, 16);
	clear_host_bits(m, r->bits);
	return !memcmp(m, r->addr, 16);
}

static bool any_range(const uint8_t a[16], const struct netpol_range *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (in_range(a, &r[i]))
			return true;
	return false;
}

/* The classes of one 16-byte address. */
static unsigned classes_of(const uint8_t a[16], const struct netpol_own *own)
{
	unsigned c = 0;
	if (is_mapped(a)) {
		const uint8_t *v = a + 12;
		if (v[0] == 127 || v[0] == 0)
			c |= NETPOL_LOOPBACK;
		else if (v[0] == 169 && v[1] == 254)
			c |= NETPOL_LINK_LOCAL;
		else if (v[0] == 10 || (v[0] == 172 && (v[1] & 0xf0) == 16) ||
		         (v[0] == 192 && v[1] == 168) || (v[0] == 100 && (v[1] & 0xc0) == 64))
			c |= NETPOL_PRIVATE;
		else if (v[0] >= 224)
			c |= NETPOL_NOT_UNICAST;
	} else {
		static const uint8_t zero[15];
		if (!memcmp(a, zero, 15) && a[15] <= 1)
			c |= NETPOL_LOOPBACK;
		else if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
			c |= NETPOL_LINK_LOCAL;
		else if ((a[0] & 0xfe) == 0xfc || (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0))
			c |= NETPOL_PRIVATE;
		else if (a[0] == 0xff)
			c |= NETPOL_NOT_UNICAST;
	}
	/* The host's own addresses include its loopback's (lo): those are
	 * loopback, which a policy allows as such. */
	for (size_t i = 0; own && !(c & NETPOL_LOOPBACK) && i < own->n; i++)
		if (!memcmp(own->addr[i], a, 16))
			c |= NETPOL_HOST;
	return c;
}

static int to16(const struct sockaddr *sa, uint8_t out[16])
{
	if (sa->sa_family == AF_INET) {
		map4((const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr, out);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 0;
	}
	return -1;
}

int netpol_check_address(const struct netpol *p, const struct netpol_own *own,
                         const struct sockaddr *sa, enum refusal_class *why)
{
	uint8_t a[2][16];
	*why = REFUSAL_NONE;
	if (to16(sa, a[0]) < 0) {
		*why = REFUSAL_NOT_IP;
		return -1;
	}
	int n = embedded4(a[0], a[1]) ? 2 : 1;
	for (int i = 0; i < n; i++)
		if (any_range(a[i], p->addr_deny, p->n_addr_deny)) {
			*why = REFUSAL_DENIED_RANGE;
			return -1;
		}
	for (int i = 0; i < n; i++)
		if (any_range(a[i], p->addr_allow, p->n_addr_allow))
			return 0;
	unsigned c = 0;
	for (int i = 0; i < n; i++)
		c |= classes_of(a[i], own);
	c &= ~(p->allow_classes & ~(unsigned)NETPOL_NOT_UNICAST);
	*why = c & NETPOL_LOOPBACK     ? REFUSAL_LOOPBACK :
	        c & NETPOL_LINK_LOCAL  ? REFUSAL_LINK_LOCAL :
	        c & NETPOL_PRIVATE     ? REFUSAL_PRIVATE :
	        c & NETPOL_HOST        ? REFUSAL_HOST :
	        c & NETPOL_NOT_UNICAST ? REFUSAL_NOT_UNICAST :
	                                 REFUSAL_NONE;
	return c ? -1 : 0;
}

bool netpol_on_this_host(const struct netpol_own *own, const struct sockaddr *sa)
{
	uint8_t a[16];
	return to16(sa, a) == 0 && (classes_of(a, own) & (NETPOL_LOOPBACK | NETPOL_HOST));
}

int netpol_own_load(struct netpol_own *own)
{
	struct ifaddrs *ifa, *i;
	own->addr = NULL;
	own->n = 0;
	if (getifaddrs(&ifa) < 0)
		return -errno;
	size_t n = 0;
	for (i = ifa; i; i = i->ifa_next)
		n += i->ifa_addr &&
		        (i->ifa_addr->sa_family == AF_INET || i->ifa_addr->sa_family == AF_INET6);
	if (n && !(own->addr = calloc(n, sizeof *own->addr))) {
		freeifaddrs(ifa);
		return -ENOMEM;
	}
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && to16(i->ifa_addr, own->addr[own->n]) == 0)
			own->n++;
	freeifaddrs(ifa);
	return 0;
}

void netpol_own_release(struct netpol_own *own)
{
	free(own->addr);
	own->addr = NULL;
	own->n = 0;
}
