/* url.c — see url.h. Bounded stack memory only. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "url.h"
#include "util.h"

/* ---- URL hosts and the domain allowlist -------------------------------- */

/* Checks and copies a host name (not an IP literal) into host, lowercase,
 * one trailing dot dropped. */
static int copy_name(const char *h, size_t n, char *host, char *why, size_t wsz)
{
	if (n && h[n - 1] == '.')
		n--; /* "example.com." is example.com, and must match like it */
	if (n == 0) {
		snprintf(why, wsz, "the URL has no host");
		return -1;
	}
	if (n > URL_HOST_MAX) {
		snprintf(why, wsz, "the host is longer than %d characters", URL_HOST_MAX);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)h[i];
		if (c >= 0x80) {
			snprintf(why, wsz,
			         "the host is not ASCII; write it in its punycode "
			         "(xn--) form");
			return -1;
		}
		/* '%': a fetcher may decode "%65vil.net" after we compared it. */
		if (!isalnum(c) && c != '-' && c != '.' && c != '_') {
			snprintf(why, wsz,
			         "the host has a character not allowed in a host "
			         "name (0x%02x)",
			         c);
			return -1;
		}
		host[i] = (char)tolower(c);
	}
	host[n] = '\0';
	return 0;
}

static int parse_port(const char *s, size_t n, uint16_t *port, char *why, size_t wsz)
{
	unsigned long v = 0;
	if (n == 0 || n > 5)
		goto bad;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			goto bad;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v >= 1 && v <= 65535) {
		*port = (uint16_t)v;
		return 0;
	}
bad:
	snprintf(why, wsz, "the URL's port is not a number from 1 to 65535");
	return -1;
}

/* Splits the authority a[0..n) (userinfo already removed) into host and
 * port (0 when it names none) and checks both. */
static int parse_hostport(const char *a, size_t n, char *host, uint16_t *port, char *why,
                          size_t wsz)
{
	if (n && a[0] == '[') {
		const char *close = memchr(a, ']', n);
		if (!close) {
			snprintf(why, wsz, "the URL's IPv6 address has no closing ']'");
			return -1;
		}
		size_t hn = (size_t)(close - a) - 1;
		if (hn == 0 || hn > 45 || strspn(a + 1, "0123456789abcdefABCDEF:.") < hn) {
			snprintf(why, wsz, "the URL's IPv6 address is not valid");
			return -1;
		}
		for (size_t i = 0; i < hn; i++)
			host[i] = (char)tolower((unsigned char)a[1 + i]);
		host[hn] = '\0';
		unsigned char bin[16];
		if (inet_pton(AF_INET6, host, bin) != 1) { /* "[1.2.3.4]", "[:::]" */
			snprintf(why, wsz, "the URL's IPv6 address is not valid");
			return -1;
		}
		size_t rest = n - hn - 2;
		if (rest == 0)
			return 0;
		if (close[1] != ':') {
			snprintf(why, wsz, "the URL has text after its IPv6 address");
			return -1;
		}
		return parse_port(close + 2, rest - 1, port, why, wsz);
	}
	const char *colon = memchr(a, ':', n);
	size_t hn = colon ? (size_t)(colon - a) : n;
	if (copy_name(a, hn, host, why, wsz) < 0)
		return -1;
	return colon ? parse_port(colon + 1, n - hn - 1, port, why, wsz) : 0;
}

int url_host(const char *url, char host[URL_HOST_MAX + 1], uint16_t *port, char *why, size_t wsz)
{
	uint16_t given = 0;
	host[0] = '\0';
	if (port)
		*port = 0;
	for (const char *c = url; *c; c++) {
		/* Parsers disagree on what whitespace and controls mean (WHATWG
		 * strips some, curl rejects some): refuse them all. */
		if ((unsigned char)*c <= 0x20 || *c == 0x7f) {
			snprintf(why, wsz, "the URL contains a space or control character");
			return -1;
		}
	}
	size_t i = 0;
	if (!isalpha((unsigned char)url[0])) {
		snprintf(why, wsz, "the URL has no scheme (write e.g. https://host/path)");
		return -1;
	}
	while (isalnum((unsigned char)url[i]) || url[i] == '+' || url[i] == '-' || url[i] == '.')
		i++;
	if (strncmp(url + i, "://", 3) != 0) {
		snprintf(why, wsz, "the URL has no scheme:// part (write e.g. https://host/path)");
		return -1;
	}
	const char *a = url + i + 3;
	size_t n = strcspn(a, "/?#");
	/* Browsers read '\' as '/', so "http://evil.net\@good.com" goes to
	 * evil.net while a naive parser sees good.com: refuse the ambiguity. */
	if (memchr(a, '\\', n)) {
		snprintf(why, wsz, "the URL has a '\\' in its host part");
		return -1;
	}
	/* Glob characters: curl expands "{x@good/,y@evil/}" and "[a-z]" into
	 * several URLs before it parses any, so the host we read would not be
	 * the only one it reaches. Brackets stay allowed around an IPv6
	 * address, where every parser reads them alike. */
	const char *v6_close = n && a[0] == '[' ? memchr(a, ']', n) : NULL;
	for (const char *c = url; *c; c++)
		if (*c == '{' || *c == '}' ||
		    ((*c == '[' || *c == ']') && !(v6_close && (c == a || c == v6_close)))) {
			snprintf(why, wsz,
			         "the URL has '%c', which URL globbing (curl's) expands "
			         "into other URLs; percent-encode it (%%%02X)",
			         *c, (unsigned char)*c);
			return -1;
		}
	/* No userinfo: "http://good.com:x@evil.net" is evil.net to one parser
	 * and good.com to another (and curl's globbing can make two of one). */
	if (memchr(a, '@', n)) {
		snprintf(why, wsz,
		         "the URL has a user name or password before its host "
		         "(user@host); give credentials another way");
		return -1;
	}
	if (parse_hostport(a, n, host, &given, why, wsz) < 0)
		return -1;
	if (port)
		*port = given;
	return 0;
}

const char *url_host_bracketed(const char *host, char out[URL_HOST_BRACKETED_MAX])
{
	bool v6 = strchr(host, ':') != NULL;
	snprintf(out, URL_HOST_BRACKETED_MAX, "%s%s%s", v6 ? "[" : "", host, v6 ? "]" : "");
	return out;
}

bool same_ipv6(const char *a, const char *b)
{
	unsigned char x[16], y[16];
	return strchr(a, ':') && strchr(b, ':') && inet_pton(AF_INET6, a, x) == 1 &&
	        inet_pton(AF_INET6, b, y) == 1 && memcmp(x, y, sizeof x) == 0;
}

/* Whether a URL parser reads host as an address: IPv6, or a last label
 * that is a number (curl takes "127.0.0.1", "2130706433" and "0x7f.1"
 * alike as IPv4). No DNS name has a numeric top-level label. */
static bool is_address(const char *host)
{
	const char *last = strrchr(host, '.');
	last = last ? last + 1 : host;
	return strchr(host, ':') || (last[0] >= '0' && last[0] <= '9');
}

bool domain_allowed(const char *host, char *const *domains, size_t n)
{
	size_t hl = strlen(host);
	bool v6 = strchr(host, ':') != NULL, address = is_address(host);
	for (size_t i = 0; i < n; i++) {
		const char *d = domains[i];
		/* An IPv6 address has many spellings ("::1", "0:0::1"): compared
		 * by value, as curl (which rewrites it to one) will connect. */
		if (v6 && same_ipv6(host, d))
			return true;
		if (d[0] == '*' && d[1] == '.') {
			size_t sl = strlen(d + 1); /* ".example.com" */
			/* Strictly longer than the suffix: the bare domain does not
			 * match, and "evil-example.com" lacks the dot. Never an
			 * address: "*.0.1" is no list of hosts. */
			if (!address && hl > sl && strcmp(host + hl - sl, d + 1) == 0)
				return true;
		} else if (strcmp(host, d) == 0) {
			return true;
		}
	}
	return false;
}

int domain_check(char *entry, struct tc_error *err)
{
	bool wild = entry[0] == '*';
	if (wild && (entry[1] != '.' || !entry[2]))
		return tc_error_set(
		        err, TC_E_INVALID, entry,
		        "a wildcard domain must be \"*.suffix\" (e.g. \"*.example.com\")");
	char *name = wild ? entry + 2 : entry;
	size_t n = strlen(name);
	if (!wild && n >= 2 && name[0] == '[' && name[n - 1] == ']') {
		memmove(name, name + 1, n - 2);
		name[n - 2] = '\0';
		n -= 2;
	}
	if (!wild && memchr(name, ':', n)) {
		unsigned char bin[16];
		if (n > 45 || strspn(name, "0123456789abcdefABCDEF:.") != n ||
		    inet_pton(AF_INET6, name, bin) != 1)
			return tc_error_set(
			        err, TC_E_INVALID, entry,
			        "not a host name or IPv6 address (write no scheme, port or path)");
		for (char *c = name; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		return 0;
	}
	char why[160] = "";
	char host[URL_HOST_MAX + 1];
	if (copy_name(name, n, host, why, sizeof why) < 0)
		return tc_error_set(err, TC_E_INVALID, entry,
		                    "not a host name (write no scheme, port or path): %s", why);
	if (host[0] == '.' || strstr(host, ".."))
		return tc_error_set(err, TC_E_INVALID, entry, "the host name has an empty label");
	strcpy(name, host); /* never longer: copy_name only drops a trailing dot */
	return 0;
}

uint16_t sockaddr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)(const void *)sa)->sin_port);
	return 0;
}

void sockaddr_text(const struct sockaddr *sa, uint16_t port, char out[SOCKADDR_TEXT_MAX])
{
	char addr[INET6_ADDRSTRLEN];
	bool v6 = sa->sa_family == AF_INET6;
	const void *a = v6 ?
	        (const void *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr :
	        (const void *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	if ((!v6 && sa->sa_family != AF_INET) || !inet_ntop(sa->sa_family, a, addr, sizeof addr)) {
		snprintf(out, SOCKADDR_TEXT_MAX, "?");
		return;
	}
	snprintf(out, SOCKADDR_TEXT_MAX, "%s%s%s:%u", v6 ? "[" : "", addr, v6 ? "]" : "",
	         (unsigned)port);
}
