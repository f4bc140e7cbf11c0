/* http_fetch.c — the http_fetch tool: GET or HEAD one http(s) URL with
 * libcurl (loaded at run time, net_curl.c), inside the confined child.
 *
 * The host rule, twice. The pipeline's gate checked the URL's host against
 * the domain allowlist before the child existed; here every URL that is
 * about to be fetched (the first, and each redirect) is checked again
 * against ctx->allowed_domains, and then parsed by curl's own URL parser,
 * whose host must be the same as the gate's: what was checked is exactly
 * what curl connects to (no parser differential), and curl never follows a
 * redirect by itself. No proxy is used but toolcage's own: under a profile
 * with egress (network) the only way out of the child is toolcage's HTTP
 * proxy, which decides again under the egress policy; every request, http
 * as https, goes through a CONNECT tunnel, whose failure is the one answer
 * read as the egress's own (Proxy-Status). Request headers cannot name
 * another Host (that would reach another site on a shared address). Where
 * no network namespace can be made, the child cannot make a socket at all:
 * it is given connections to that proxy (handed connections, child_abi.h),
 * and each hop takes the next one, never reused.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include "child_abi.h"
#include "io.h"
#include "url.h"
#include "net.h"
#include "refusal.h"
#include "utf8.h"
#include "util.h"

/* CURLOPT_PROTOCOLS (a bitmask), for libcurl older than 7.85 where
 * CURLOPT_PROTOCOLS_STR does not exist. Spelled as its number: newer
 * headers mark the name deprecated, which -Werror would refuse. */
#define NF_OPT_PROTOCOLS_OLD ((CURLoption)(CURLOPTTYPE_LONG + 181))

/* Headers the model may not set: they would change where or how the
 * request goes (Host: another site behind the same address), or frame
 * the message (curl owns those). */
static const char
        *const
                forbidden_headers
                        [] = {
	                        "host",
	                        "content-length",
	                        "transfer-encoding",
	                        "connection",
	                        "upgrade",
	                        "te",
	                        "trailer",
	                        "keep-alive",
	                        "expect", /* and every Proxy-* (parse_headers) */
                        };

/* Response headers kept in the result. */
static const char *const selected_headers[] = {
	"content-type",
	"content-length",
	"location",
	"last-modified",
	"etag",
	"date",
	"server",
	"cache-control",
	"content-encoding",
	"content-language",
	"content-disposition",
	"retry-after",
	"expires",
	"www-authenticate",
};

/* ---- errors -------------------------------------------------------------- */

/* Scheme, host (as checked) and port (the scheme's default filled in) of a
 * URL; scheme "" when curl could not say. */
struct origin {
	char scheme[8];
	char host[URL_HOST_MAX + 1];
	char port[8];
};

struct fetch {
	const struct tc_tool_ctx *ctx;
	const struct nf_api *api;
	const char *url; /* as given */
	bool head;
	size_t max_bytes;
	struct curl_slist *headers; /* the model's request headers */
	struct origin first;        /* of the first URL: where the model's headers go */
	struct origin here;         /* of the hop being fetched */
	char *current;              /* the URL being fetched (malloc'd) */
	json_t *redirects;          /* [{status, url, location}] */
	uint64_t deadline_ms;
	CURL *easy;
	struct nf_response resp;
	char errbuf[CURL_ERROR_SIZE];
	bool handed;     /* connections are given (CHILD_HANDED_ENV) */
	int handed_next; /* the next one not used yet */
	bool handed_out; /* a hop asked for one more than were given */
};

_Static_assert(NF_MAX_REDIRECTS + 1 <= CHILD_HANDED_MAX,
               "each hop takes a handed connection: give as many as there are hops");

/* An expected failure: canonical {"error", "message", "url", "redirects"?},
 * render the message. Returns 1. */
static int fail(struct fetch *f, struct tc_output *out, const char *code, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static int fail(struct fetch *f, struct tc_output *out, const char *code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = NULL;
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	size_t clen;
	char *clean = msg ? utf8_sanitize(msg, strlen(msg), true, &clen) : NULL;
	free(msg);
	out->canonical =
	        json_pack("{s:s, s:s}", "error", code, "message", clean ? clean : "out of memory");
	if (out->canonical && f->url)
		json_object_set_new(out->canonical, "url", json_string(f->url));
	if (out->canonical && json_array_size(f->redirects))
		json_object_set(out->canonical, "redirects", f->redirects);
	out->render = clean ? clean : strdup("http_fetch failed: out of memory");
	return 1;
}

/* ---- arguments ------------------------------------------------------------ */

static bool header_name_ok(const char *s, size_t n)
{
	if (n == 0 || n > NF_HEADER_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) /* RFC 9110 token characters */
		if (!isalnum((unsigned char)s[i]) && !strchr("!#$%&'*+-.^_`|~", s[i]))
			return false;
	return true;
}

static bool header_value_ok(const char *s, size_t n)
{
	if (n > NF_HEADER_VALUE_MAX)
		return false;
	for (size_t i = 0; i < n; i++) /* CR/LF would smuggle another header */
		if (s[i] == '\r' || s[i] == '\n' || s[i] == '\0')
			return false;
	return true;
}

/* The model's headers as a curl list, each checked: token names, no CR,
 * LF or NUL, bounded sizes and count, none of forbidden_headers. */
static int parse_headers(struct fetch *f, json_t *obj, struct tc_output *out)
{
	if (!obj)
		return 0;
	if (!json_is_object(obj) || json_object_size(obj) > NF_HEADERS_MAX)
		return fail(f, out, "bad_headers",
		            "headers must be an object of at most %d "
		            "name-value strings, e.g. {\"Accept\": \"application/json\"}.",
		            NF_HEADERS_MAX);
	const char *name;
	json_t *v;
	json_object_foreach(obj, name, v)
	{
		const char *val = json_string_value(v);
		if (!header_name_ok(name, strlen(name)) || !val ||
		    !header_value_ok(val, json_string_length(v)))
			return fail(
			        f, out, "bad_headers",
			        "header \"%.128s\" is not usable: names are "
			        "letters, digits and -_.!#$%%&'*+^`|~ (at most %d), values strings of at "
			        "most %d bytes without line breaks.",
			        name, NF_HEADER_NAME_MAX, NF_HEADER_VALUE_MAX);
		bool forbidden = !strncasecmp(name, "proxy-", 6); /* every Proxy-* */
		for (size_t i = 0; i < sizeof forbidden_headers / sizeof forbidden_headers[0]; i++)
			forbidden = forbidden || !strcasecmp(name, forbidden_headers[i]);
		if (forbidden)
			return fail(
			        f, out, "bad_headers",
			        "header \"%s\" cannot be set: http_fetch "
			        "sets it from the URL, or it would change where the request goes.",
			        name);
		/* "Name;" is curl's way to send an empty value ("Name:" removes it). */
		char line[NF_HEADER_NAME_MAX + NF_HEADER_VALUE_MAX + 4];
		snprintf(line, sizeof line, *val ? "%s: %s" : "%s;", name, val);
		struct curl_slist *l = f->api->slist_append(f->headers, line);
		if (!l)
			return fail(f, out, "no_memory", "http_fetch ran out of memory.");
		f->headers = l;
	}
	return 0;
}

/* The deadline for all hops: the call's, minus a margin so the tool can
 * report before the supervisor kills it. */
static uint64_t pick_deadline(const struct tc_tool_ctx *ctx)
{
	uint32_t limit = ctx->timeout_ms;
	if (ctx->max_timeout_ms && (!limit || ctx->max_timeout_ms < limit))
		limit = ctx->max_timeout_ms;
	if (!limit)
		limit = 30000;
	uint32_t margin = limit / 10;
	margin = margin < 100 ? 100 : margin > 2000 ? 2000 : margin;
	return (uint64_t)io_now_ms() + (limit > 2 * margin ? limit - margin : limit / 2);
}

/* ---- the host rule ---------------------------------------------------------- */

static bool host_allowed(const struct tc_tool_ctx *ctx, const char *host)
{
	size_t n = 0;
	while (ctx->allowed_domains && ctx->allowed_domains[n])
		n++;
	return n && domain_allowed(host, (char *const *)ctx->allowed_domains, n);
}

/* The host curl read from u, in url_host's form: lowercase, no
 * brackets, one trailing dot dropped. */
static bool curl_host(const struct nf_api *api, CURLU *u, char out[URL_HOST_MAX + 1])
{
	char *h = NULL;
	if (api->url_get(u, CURLUPART_HOST, &h, 0) != CURLUE_OK || !h)
		return false;
	const char *p = h;
	size_t n = strlen(p);
	if (n >= 2 && p[0] == '[' && p[n - 1] == ']')
		p++, n -= 2;
	if (n > 1 && p[n - 1] == '.')
		n--;
	bool ok = n > 0 && n <= URL_HOST_MAX;
	for (size_t i = 0; ok && i < n; i++)
		out[i] = (char)tolower((unsigned char)p[i]);
	if (ok)
		out[n] = '\0';
	api->free(h);
	return ok;
}

/* The origin of u (checked, with host as check_url read it) into o. */
static void url_origin(const struct nf_api *api, CURLU *u, const char *host, struct origin *o)
{
	char *scheme = NULL, *port = NULL;
	*o = (struct origin){ 0 };
	if (api->url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	    api->url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK &&
	    strlen(scheme) < sizeof o->scheme && strlen(port) < sizeof o->port) {
		snprintf(o->scheme, sizeof o->scheme, "%s", scheme);
		snprintf(o->port, sizeof o->port, "%s", port);
		snprintf(o->host, sizeof o->host, "%s", host);
	}
	api->free(scheme);
	api->free(port);
}

/* Whether the model's headers, sent to the first URL, may go to o too.
 * They may hold credentials: another host, or another port of it (another
 * service), must not get them, nor plain http after https (the rule curl
 * keeps for its own credentials since CVE-2022-27776). http on port 80 to
 * https on 443 of the same host is the same site, only now over TLS. */
static bool headers_may_follow(const struct origin *first, const struct origin *o)
{
	if (!o->scheme[0] || !first->scheme[0] || strcmp(first->host, o->host))
		return false;
	if (!strcmp(first->scheme, o->scheme) && !strcmp(first->port, o->port))
		return true;
	return !strcmp(first->scheme, "http") && !strcmp(first->port, "80") &&
	        !strcmp(o->scheme, "https") && !strcmp(o->port, "443");
}

/* The gate's half of the check: scheme, a host url_host accepts, on
 * the allowlist. via is the URL that redirected here, or NULL. 0, or 1 with
 * out filled. Runs before libcurl is even loaded. */
static int check_host(struct fetch *f, const char *url, const char *via,
                      char host[URL_HOST_MAX + 1], struct tc_output *out)
{
	char why[256];
	bool http = !strncasecmp(url, "http://", 7) || !strncasecmp(url, "https://", 8);
	if (!http && via)
		return fail(f, out, "denied_redirect",
		            "%.200s redirected to \"%.200s\": only http:// "
		            "and https:// URLs can be fetched, so the redirect was not followed.",
		            via, url);
	if (!http)
		return fail(f, out, "bad_scheme",
		            "only http:// and https:// URLs can be fetched, not "
		            "\"%.200s\".",
		            url);
	if (url_host(url, host, NULL, why, sizeof why) < 0)
		return fail(f, out, "bad_url", "the URL \"%.200s\" is not usable: %s.", url, why);
	if (!host_allowed(f->ctx, host) && via)
		return fail(f, out, "denied_redirect",
		            "%.200s redirected to %.200s, whose host %s is "
		            "not on the domain allowlist: the redirect was not followed.",
		            via, url, host);
	if (!host_allowed(f->ctx, host))
		return fail(
		        f, out, "denied_host",
		        "host %s is not on the domain allowlist, so it "
		        "cannot be fetched. Ask the operator to add it to policy.domains, or use "
		        "an allowed host.",
		        host);
	return 0;
}

/* Checks url (check_host, then curl's parser must read the same host and
 * an http(s) scheme; an IPv6 address the same by value, as curl rewrites
 * "0:0::1" to "::1") and returns it parsed by curl, to be fetched exactly
 * as checked; NULL with out filled. */
static CURLU *check_url(struct fetch *f, const char *url, const char *via,
                        char host[URL_HOST_MAX + 1], struct tc_output *out)
{
	if (check_host(f, url, via, host, out))
		return NULL;
	CURLU *u = f->api->url();
	char theirs[URL_HOST_MAX + 1];
	char *scheme = NULL;
	if (!u || f->api->url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    f->api->url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    (strcmp(scheme, "http") && strcmp(scheme, "https")) || !curl_host(f->api, u, theirs) ||
	    (strcmp(theirs, host) && !same_ipv6(theirs, host))) {
		if (scheme)
			f->api->free(scheme);
		if (u)
			f->api->url_cleanup(u);
		return fail(f, out, "bad_url",
		            "the URL \"%.200s\" is read differently by libcurl "
		            "than by the allowlist check, so it is refused; write the host plainly, "
		            "e.g. https://example.com/path.",
		            url),
		       NULL;
	}
	f->api->free(scheme);
	return u;
}

/* ---- one request ---------------------------------------------------------- */

static size_t on_header(char *p, size_t size, size_t nitems, void *data)
{
	struct nf_response *rs = data;
	size_t len = size * nitems, n = len;
	/* Trailing blanks too: "HTTP/1.1 503 " (no reason phrase) and a
	 * header's trailing whitespace (RFC 9110 5.5) are noise. */
	while (n && (p[n - 1] == '\r' || p[n - 1] == '\n' || p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n >= 5 && !strncmp(p, "HTTP/", 5)) { /* a new response (after 1xx too) */
		json_object_clear(rs->headers);
		rs->has_location = false;
		rs->proxy_status[0] = '\0';
		size_t k = n < sizeof rs->status_line - 1 ? n : sizeof rs->status_line - 1;
		char *clean = utf8_sanitize(p, k, true, NULL);
		snprintf(rs->status_line, sizeof rs->status_line, "%s", clean ? clean : "");
		free(clean);
		return len;
	}
	const char *colon = memchr(p, ':', n);
	if (!colon || colon == p || (size_t)(colon - p) > 32)
		return len;
	char name[33];
	size_t nl = (size_t)(colon - p);
	for (size_t i = 0; i < nl; i++)
		name[i] = (char)tolower((unsigned char)p[i]);
	name[nl] = '\0';
	if (!strcmp(name, "proxy-status")) {
		size_t vl = n - nl - 1;
		char *clean = utf8_sanitize(colon + 1, vl, true, NULL);
		snprintf(rs->proxy_status, sizeof rs->proxy_status, "%s", clean ? clean : "");
		free(clean);
	}
	for (size_t i = 0; i < sizeof selected_headers / sizeof selected_headers[0]; i++) {
		if (strcmp(name, selected_headers[i]))
			continue;
		const char *v = colon + 1, *end = p + n;
		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
		size_t vl = (size_t)(end - v) > NF_RESP_VALUE_MAX ? NF_RESP_VALUE_MAX :
		                                                    (size_t)(end - v);
		size_t cl;
		char *clean = utf8_sanitize(v, vl, true, &cl);
		if (clean)
			json_object_set_new(rs->headers, name, json_stringn(clean, cl));
		free(clean);
		if (!strcmp(name, "location"))
			rs->has_location = true;
	}
	return len;
}

static bool is_redirect(long status)
{
	return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

static size_t on_body(char *p, size_t size, size_t nitems, void *data)
{
	struct nf_response *rs = data;
	size_t len = size * nitems;
	long status = 0;
	if (sscanf(rs->status_line, "HTTP/%*s %ld", &status) == 1 && is_redirect(status) &&
	    rs->has_location) {
		/* A redirect's own body is not kept, and not read for ever: an
		 * endless one would hold the call until its deadline. Past the
		 * bound, curl ends with a write error. */
		rs->redirect_body += len;
		return rs->redirect_body > NF_REDIRECT_BODY_MAX ? 0 : len;
	}
	size_t room = rs->max - rs->body_len, take = len > room ? room : len;
	if (rs->body_len + take + 1 > rs->body_cap) {
		size_t cap = rs->body_cap ? rs->body_cap : 65536;
		while (cap < rs->body_len + take + 1)
			cap *= 2;
		if (cap > rs->max + 1)
			cap = rs->max + 1;
		char *b = realloc(rs->body, cap);
		if (!b) {
			rs->oom = true;
			return 0;
		}
		rs->body = b;
		rs->body_cap = cap;
	}
	memcpy(rs->body + rs->body_len, p, take);
	rs->body_len += take;
	rs->body[rs->body_len] = '\0';
	if (take < len) { /* over max_bytes: stop here (curl ends with a write error) */
		rs->truncated = true;
		return 0;
	}
	return len;
}

static void response_reset(struct nf_response *rs, size_t max)
{
	json_decref(rs->headers);
	free(rs->body);
	memset(rs, 0, sizeof *rs);
	rs->headers = json_object();
	rs->max = max;
}

/* toolcage's proxy, when the profile announces it (under egress the child's
 * environment is the profile's: nobody else sets it), else NULL: no proxy
 * from the environment. */
static const char *egress_proxy(void)
{
	static const char ours[] = "http://127.0.0.1:3128";
	const char *p = getenv("http_proxy");
	return p && !strcmp(p, ours) ? ours : NULL;
}

/* ---- handed connections ------------------------------------------------
 * Each is a connected stream socket whose peer is toolcage's HTTP proxy,
 * at CHILD_FD_HANDED and up. curl is given the next one where it would
 * make its socket to the proxy, told it is connected, and closes it after
 * the hop (no reuse: FORBID_REUSE). */

static bool handed_given(void)
{
	const char *v = getenv(CHILD_HANDED_ENV);
	return v && !strcmp(v, "1");
}

static curl_socket_t handed_open(void *clientp, curlsocktype purpose, struct curl_sockaddr *addr)
{
	(void)addr;
	struct fetch *f = clientp;
	if (purpose != CURLSOCKTYPE_IPCXN)
		return CURL_SOCKET_BAD;
	while (f->handed_next < CHILD_HANDED_MAX) {
		int fd = CHILD_FD_HANDED + f->handed_next++;
		int type = 0;
		socklen_t len = sizeof type;
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM)
			return fd;
	}
	f->handed_out = true;
	return CURL_SOCKET_BAD;
}

static int handed_sockopt(void *clientp, curl_socket_t fd, curlsocktype purpose)
{
	(void)clientp;
	(void)fd;
	(void)purpose;
	return CURL_SOCKOPT_ALREADY_CONNECTED;
}

static CURLcode set_handed_options(struct fetch *f)
{
	const struct nf_api *a = f->api;
	CURLcode rc = CURLE_OK;
	rc |= a->easy_setopt(f->easy, CURLOPT_OPENSOCKETFUNCTION, handed_open);
	rc |= a->easy_setopt(f->easy, CURLOPT_OPENSOCKETDATA, f);
	rc |= a->easy_setopt(f->easy, CURLOPT_SOCKOPTFUNCTION, handed_sockopt);
	rc |= a->easy_setopt(f->easy, CURLOPT_FORBID_REUSE, 1L);
	rc |= a->easy_setopt(f->easy, CURLOPT_FRESH_CONNECT, 1L);
	return rc;
}

/* Options that hold on every hop. Returns 0, or the CURLcode that failed. */
static CURLcode set_fixed_options(struct fetch *f)
{
	const struct nf_api *a = f->api;
	CURL *e = f->easy;
	CURLcode rc = CURLE_OK;
	rc |= a->easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	rc |= a->easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L); /* redirects are checked here */
	rc |= a->easy_setopt(e, CURLOPT_PROXY, egress_proxy() ? egress_proxy() : "");
	rc |= a->easy_setopt(e, CURLOPT_NOPROXY, egress_proxy() ? "" : "*");
	/* Plain http too goes through CONNECT: a request relayed through a
	 * proxy is answered by the server, whose answer could carry a forged
	 * Proxy-Status, while a CONNECT's answer only the egress writes. The
	 * egress holds the request in the tunnel to what it holds a relayed
	 * one to (its Host the tunnel's, one request). */
	rc |= a->easy_setopt(e, CURLOPT_HTTPPROXYTUNNEL, egress_proxy() ? 1L : 0L);
	rc |= a->easy_setopt(e, CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
	rc |= a->easy_setopt(e, CURLOPT_USERAGENT, "toolcage-http_fetch/" TC_VERSION);
	rc |= a->easy_setopt(e, CURLOPT_ERRORBUFFER, f->errbuf);
	rc |= a->easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	rc |= a->easy_setopt(e, CURLOPT_HEADERDATA, &f->resp);
	rc |= a->easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	rc |= a->easy_setopt(e, CURLOPT_WRITEDATA, &f->resp);
	if (f->head)
		rc |= a->easy_setopt(e, CURLOPT_NOBODY, 1L);
	if (f->handed && egress_proxy())
		rc |= set_handed_options(f);
	if (rc != CURLE_OK)
		return rc;
	if (a->easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK)
		return a->easy_setopt(e, NF_OPT_PROTOCOLS_OLD,
		                      (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	return CURLE_OK;
}

static int curl_failure(struct fetch *f, struct tc_output *out, CURLcode rc, const char *host)
{
	const char *detail = f->errbuf[0] ? f->errbuf : f->api->easy_strerror(rc);
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
		return fail(f, out, "timed_out",
		            "fetching %s timed out (%s). Try again later or ask "
		            "for less.",
		            f->current, detail);
	case CURLE_COULDNT_RESOLVE_HOST:
		return fail(f, out, "resolve_failed",
		            "could not resolve host %s (%s). Check the "
		            "spelling of the URL.",
		            host, detail);
	case CURLE_COULDNT_CONNECT:
		return fail(f, out, "connect_failed",
		            "could not connect to %s (%s). The server may "
		            "be down, or its port is not one the sandbox allows (80, 443).",
		            host, detail);
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
		return fail(f, out, "tls_failed", "the TLS connection to %s failed (%s).", host,
		            detail);
	default: return fail(f, out, "fetch_failed", "fetching %s failed: %s.", f->current, detail);
	}
}

static int egress_said(struct fetch *f, struct tc_output *out, const char *host);

/* What the user changes in toolcage.json for a destination the egress
 * refused as refusal (docs/network.md), into fix: the model cannot, and a
 * refusal without it sends the user through one rule at a time. "" for a
 * refusal no setting should lift (the deny list). */
static void refusal_fix(const struct origin *o, const char *host, enum refusal_class refusal,
                        char *fix, size_t size)
{
	struct in6_addr a6;
	struct in_addr a4;
	char bracketed[URL_HOST_BRACKETED_MAX];
	fix[0] = '\0';
	if (refusal_unlisted(refusal) && o->port[0])
		snprintf(fix, size,
		         " The user can allow it by adding \"%s:%s\" to policy.network.allow "
		         "in toolcage.json (policy.domains covers ports 80 and 443 only).",
		         url_host_bracketed(host, bracketed), o->port);
	if (!refusal_address(refusal))
		return;
	bool v4 = inet_pton(AF_INET, host, &a4) == 1;
	bool literal = v4 || inet_pton(AF_INET6, host, &a6) == 1;
	snprintf(fix, size,
	         " The user can allow it in toolcage.json with policy.network.addresses: "
	         "\"allow\": [\"%s%s\"]%s, or \"%s\": true for every such address.",
	         literal ? host : "CIDR", literal ? (v4 ? "/32" : "/128") : "",
	         literal ? "" : " (a range holding its address)", refusal_token(refusal));
}

/* A failure toolcage's egress answered for (its Proxy-Status, RFC 9209:
 * "toolcage; error=TYPE; details=\"WHY\""), said as the failure it is: a
 * failed CONNECT is only "CONNECT tunnel failed, response 502" to curl.
 * Called for a failed CONNECT only: no other answer is the egress's own.
 * canonical.status keeps the proxy's status (403 for a refusal). Returns 1
 * with out filled, or 0 when the response is not the egress's. */
static int egress_failure(struct fetch *f, struct tc_output *out, const char *host, long status)
{
	if (!egress_said(f, out, host))
		return 0;
	if (out->canonical)
		json_object_set_new(out->canonical, "status", json_integer(status));
	return 1;
}

static int egress_said(struct fetch *f, struct tc_output *out, const char *host)
{
	struct refusal_status st;
	if (!refusal_status_parse(f->resp.proxy_status, &st))
		return 0;
	if (!strcmp(st.error, "dns_error"))
		return fail(f, out, "resolve_failed",
		            "could not resolve host %s: %s (toolcage's egress found no address "
		            "for it). Check the spelling of the URL.",
		            host, st.details);
	if (!strcmp(st.error, "http_request_denied")) {
		char fix[URL_HOST_MAX + 256];
		refusal_fix(&f->here, host, st.refusal, fix, sizeof fix);
		return fail(f, out, "connect_failed",
		            "toolcage's egress refused the connection to %s: %s.%s", host,
		            st.details, fix);
	}
	return fail(f, out, "connect_failed",
	            "could not connect to %s: %s (toolcage's egress). The server may be down, "
	            "or its port is not one the sandbox allows (80, 443).",
	            host, st.details);
}

/* Fetches the URL u (checked) into f->resp, with the model's headers when
 * with_headers (headers_may_follow). Returns 0, or 1 with out filled. */
static int do_hop(struct fetch *f, CURLU *u, const char *host, bool with_headers,
                  struct tc_output *out)
{
	const struct nf_api *a = f->api;
	uint64_t now = (uint64_t)io_now_ms();
	if (now >= f->deadline_ms)
		return fail(f, out, "timed_out",
		            "no time left to fetch %s (the call's time limit).", f->current);
	long left = (long)(f->deadline_ms - now);
	response_reset(&f->resp, f->max_bytes);
	f->errbuf[0] = '\0';
	CURLcode rc = CURLE_OK;
	rc |= a->easy_setopt(f->easy, CURLOPT_CURLU, u);
	rc |= a->easy_setopt(f->easy, CURLOPT_HTTPHEADER, with_headers ? f->headers : NULL);
	rc |= a->easy_setopt(f->easy, CURLOPT_TIMEOUT_MS, left);
	rc |= a->easy_setopt(f->easy, CURLOPT_CONNECTTIMEOUT_MS, left);
	if (!f->resp.headers || rc != CURLE_OK)
		return fail(f, out, "fetch_failed", "libcurl refused an option (%s).",
		            a->easy_strerror(rc));
	rc = a->easy_perform(f->easy);
	if (f->handed_out)
		return fail(f, out, "no_connection_left",
		            "fetching %s needed another connection, and the %d this call "
		            "was given (one per hop, without a network namespace here) are "
		            "used up.",
		            f->current, CHILD_HANDED_MAX);
	if (f->resp.oom)
		return fail(f, out, "no_memory", "http_fetch ran out of memory reading the body.");
	if (rc == CURLE_WRITE_ERROR && f->resp.truncated)
		rc = CURLE_OK; /* stopped at max_bytes on purpose */
	if (rc == CURLE_WRITE_ERROR && f->resp.redirect_body > NF_REDIRECT_BODY_MAX)
		return fail(f, out, "bad_redirect",
		            "%s answered with a redirect whose body went on "
		            "past %u bytes, so it was not followed.",
		            f->current, NF_REDIRECT_BODY_MAX);
	/* Only a failed CONNECT is the egress's own answer: once a tunnel
	 * stands, every byte is the server's, which may send a Proxy-Status
	 * of its own. */
	long connect_code = 0;
	a->easy_getinfo(f->easy, CURLINFO_HTTP_CONNECTCODE, &connect_code);
	if (rc != CURLE_OK && egress_proxy() && connect_code >= 400 &&
	    egress_failure(f, out, host, connect_code))
		return 1;
	if (rc != CURLE_OK)
		return curl_failure(f, out, rc, host);
	a->easy_getinfo(f->easy, CURLINFO_RESPONSE_CODE, &f->resp.status);
	return 0;
}

/* The redirect target of the last response, resolved by curl against the
 * current URL (malloc'd), or NULL when it is not a redirect. */
static char *redirect_target(struct fetch *f)
{
	char *loc = NULL;
	if (!is_redirect(f->resp.status) || !f->resp.has_location ||
	    f->api->easy_getinfo(f->easy, CURLINFO_REDIRECT_URL, &loc) != CURLE_OK || !loc)
		return NULL;
	return strdup(loc);
}

/* A redirect target is kept in the result and shown to the model: it must
 * be printable ASCII (curl percent-encodes what a server sent raw) and
 * no longer than a URL argument may be. */
static bool redirect_usable(const char *url)
{
	size_t n = strlen(url);
	if (n > NF_URL_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)url[i] <= 0x20 || (unsigned char)url[i] >= 0x7f)
			return false;
	return true;
}

/* Every hop, each one checked. Ends with f->resp the final response. */
static int follow(struct fetch *f, struct tc_output *out)
{
	char *prev = NULL;
	for (int hop = 0;; hop++) {
		char host[URL_HOST_MAX + 1];
		CURLU *u = check_url(f, f->current, prev, host, out);
		free(prev);
		prev = NULL;
		if (!u)
			return 1;
		url_origin(f->api, u, host, &f->here);
		if (hop == 0)
			f->first = f->here;
		int rc = do_hop(f, u, host, headers_may_follow(&f->first, &f->here), out);
		/* curl keeps using the CURLU until the option is replaced. */
		f->api->easy_setopt(f->easy, CURLOPT_CURLU, NULL);
		f->api->url_cleanup(u);
		if (rc)
			return rc;
		char *next = redirect_target(f);
		if (!next)
			return 0;
		if (!redirect_usable(next)) {
			fail(f, out, "bad_redirect",
			     "%s redirected to a URL that cannot be used (over "
			     "%d bytes, or with spaces or raw non-ASCII bytes): %.200s",
			     f->current, NF_URL_MAX, next);
			free(next);
			return 1;
		}
		if (hop == NF_MAX_REDIRECTS) {
			free(next);
			return fail(f, out, "too_many_redirects",
			            "%s redirected more than %d times; "
			            "the last hop went to %s.",
			            f->url, NF_MAX_REDIRECTS, f->current);
		}
		json_array_append_new(f->redirects,
		                      json_pack("{s:i, s:s, s:s}", "status", (int)f->resp.status,
		                                "url", f->current, "location", next));
		prev = f->current;
		f->current = next;
	}
}

/* ---- the result ------------------------------------------------------------ */

/* The body after the headers: a text body as shown (body_shown), or what
 * it is when not shown, and whether max_bytes stopped it. */
static void render_body(struct buf *b, const struct fetch *f, const char *ct,
                        const struct buf *shown)
{
	const struct nf_response *rs = &f->resp;
	if (f->head) {
		buf_adds(b, "(HEAD request: no body)\n");
		return;
	}
	if (!shown) {
		buf_printf(b,
		           "[body not shown as text: %s, %zu bytes%s; http_fetch shows UTF-8 "
		           "text only, and saves no files]\n",
		           ct ? ct : "no content type", rs->body_len,
		           rs->truncated ? " received before max_bytes stopped it" : "");
		return;
	}
	if (shown->len) {
		buf_add(b, shown->data, shown->len);
		if (shown->data[shown->len - 1] != '\n')
			buf_adds(b, "\n");
	}
	if (rs->truncated)
		buf_printf(
		        b,
		        "[the body was cut at max_bytes (%zu bytes); ask with a larger max_bytes "
		        "for more]\n",
		        f->max_bytes);
}

/* A text body as the answer shows it, the render and the canonical alike
 * (utf8_add_cut): its head within budget code points, then the note of
 * the bytes left out. Of a body over NF_CANON_BODY_MAX, only that many
 * bytes are looked at; the rest counts as left out. Returns whether
 * anything was, with *head_bytes the body's bytes shown before the note. */
static bool body_shown(struct buf *shown, const struct nf_response *rs, size_t budget,
                       size_t *head_bytes)
{
	size_t keep = rs->body_len > NF_CANON_BODY_MAX ? NF_CANON_BODY_MAX : rs->body_len;
	struct utf8_kept t = {
		.raw = rs->body, .len = keep, .gap_at = keep, .total = rs->body_len
	};
	return utf8_add_cut(shown, &t, budget, budget, head_bytes);
}

/* The status line leads (the server's words), and an error status is
 * said next in toolcage's own, from the number curl read, whatever the
 * reason phrase claims (HTTP/2 has none): the call is a failure (isError
 * over MCP), though what follows is the server's whole answer, which a
 * model needs to see why. shown (NULL for a body not shown as text) gets
 * the body as the render shows it, for the canonical; *cut says whether
 * bytes were left out of it, *head_bytes how many of the body's come
 * before the note. */
static char *render(const struct fetch *f, const char *ct, struct buf *shown, bool *cut,
                    size_t *head_bytes)
{
	struct buf b = BUF_INIT;
	long status = f->resp.status;
	buf_printf(&b, "%s\n", f->resp.status_line[0] ? f->resp.status_line : "(no status line)");
	if (status >= 400)
		buf_printf(&b,
		           "[%ld is an error status: %s. The fetch itself worked and this call "
		           "counts as failed; the server's headers and body follow, and often say "
		           "why.]\n",
		           status,
		           status < 500 ?
		                   "the server did not accept the request (4xx: check the URL, "
		                   "the method and the headers)" :
		                   "the server failed to answer (5xx: it may work later)");
	buf_printf(&b, "%s %s\n", f->head ? "HEAD" : "GET", f->current);
	size_t i;
	json_t *r;
	json_array_foreach(f->redirects, i, r)
	        buf_printf(&b, "redirected: %lld %s -> %s\n",
	                   (long long)json_integer_value(json_object_get(r, "status")),
	                   json_string_value(json_object_get(r, "url")),
	                   json_string_value(json_object_get(r, "location")));
	const char *name;
	json_t *v;
	json_object_foreach(f->resp.headers, name, v)
	        buf_printf(&b, "%s: %s\n", name, json_string_value(v));
	buf_adds(&b, "\n");
	size_t budget = f->ctx->max_render ? f->ctx->max_render : 20000;
	size_t used = utf8_count(b.data, b.len) + 400; /* the notes after the body */
	if (shown)
		*cut = body_shown(shown, &f->resp, budget > used + 200 ? budget - used : 200,
		                  head_bytes);
	render_body(&b, f, ct, shown);
	/* A larger max_bytes brings no more of a body the budget cut: a range
	 * from where it stops does, from a server that takes ranges. */
	if (shown && *cut) /* shown: a text body, never HEAD's */
		buf_printf(&b,
		           "[to read on from there: the same fetch with the header \"Range\": "
		           "\"bytes=%zu-\" (a server that takes ranges answers 206 with the rest; "
		           "one that does not, 200 with the whole body again)]\n",
		           *head_bytes);
	return buf_detach(&b);
}

static int result(struct fetch *f, struct tc_output *out)
{
	struct nf_response *rs = &f->resp;
	const char *ct = json_string_value(json_object_get(rs->headers, "content-type"));
	bool is_text = !f->head && nf_is_text(ct, rs->body, rs->body_len), cut = false;
	struct buf shown = BUF_INIT;
	size_t head_bytes = 0;
	out->render = render(f, ct, is_text ? &shown : NULL, &cut, &head_bytes);
	/* truncated: bytes of the body are not in the result, because
	 * max_bytes stopped the transfer or the render budget cut the text. */
	out->canonical = json_pack("{s:s, s:s, s:s, s:i, s:O, s:o, s:I, s:b, s:O}", "url", f->url,
	                           "final_url", f->current, "method", f->head ? "HEAD" : "GET",
	                           "status", (int)rs->status, "headers", rs->headers,
	                           "content_type", ct ? json_string(ct) : json_null(), "body_bytes",
	                           (json_int_t)rs->body_len, "truncated", rs->truncated || cut,
	                           "redirects", f->redirects);
	if (out->canonical && is_text && !shown.failed) {
		json_object_set_new(out->canonical, "body",
		                    json_stringn(shown.data ? shown.data : "", shown.len));
		if (cut)
			json_object_set_new(out->canonical, "body_cut_at",
			                    json_integer((json_int_t)head_bytes));
	}
	bool failed = shown.failed;
	buf_release(&shown);
	if (!out->canonical || !out->render || failed) {
		json_decref(out->canonical);
		free(out->render);
		*out = (struct tc_output){ 0 };
		return fail(f, out, "no_memory", "http_fetch ran out of memory.");
	}
	/* 4xx and 5xx: the fetch worked, but the request did not: a tool
	 * execution error as MCP means it ("API failures", for the model to
	 * correct), as curl -f and the reference fetch server take it. The
	 * result is the same whole answer (docs/tools.md). */
	return rs->status >= 400 ? 1 : 0;
}

/* ---- the tool ------------------------------------------------------------ */

static int run(struct fetch *f, json_t *args, struct tc_output *out)
{
	/* JSON Schema's integer takes 100.0 too (jansson: a real), so the
	 * value is read as a number; a real one was ignored (1 MiB for 100). */
	json_t *mb = json_object_get(args, "max_bytes");
	f->max_bytes = NF_MAX_BYTES_DEFAULT;
	if (mb) {
		double v = json_number_value(mb);
		if (!json_is_number(mb) || !(v >= 1 && v <= NF_MAX_BYTES_CAP) ||
		    v != (double)(size_t)v)
			return fail(f, out, "bad_max_bytes",
			            "max_bytes must be a whole number from 1 "
			            "to %u.",
			            NF_MAX_BYTES_CAP);
		f->max_bytes = (size_t)v;
	}
	const char *method = json_string_value(json_object_get(args, "method"));
	if (method && strcmp(method, "GET") && strcmp(method, "HEAD"))
		return fail(f, out, "bad_method",
		            "method must be \"GET\" or \"HEAD\", not \"%.20s\".", method);
	f->head = method && !strcmp(method, "HEAD");
	json_t *ju = json_object_get(args, "url");
	if (!f->url || json_string_length(ju) > NF_URL_MAX ||
	    strlen(f->url) != json_string_length(ju))
		return fail(f, out, "bad_url",
		            "url must be an http:// or https:// URL of at most %d "
		            "bytes, e.g. \"https://example.com/\".",
		            NF_URL_MAX);
	char host[URL_HOST_MAX + 1];
	if (check_host(f, f->url, NULL, host, out)) /* before libcurl is even loaded */
		return 1;
	char why[512];
	f->api = nf_api_load(why, sizeof why);
	if (!f->api)
		return fail(f, out, "libcurl_missing", "%s", why);
	if (parse_headers(f, json_object_get(args, "headers"), out))
		return 1;
	f->current = strdup(f->url);
	f->easy = f->api->easy_init();
	if (!f->current || !f->easy)
		return fail(f, out, "no_memory",
		            "http_fetch could not start libcurl (out of memory).");
	CURLcode rc = set_fixed_options(f);
	if (rc != CURLE_OK)
		return fail(f, out, "fetch_failed", "libcurl refused an option (%s).",
		            f->api->easy_strerror(rc));
	f->deadline_ms = pick_deadline(f->ctx);
	if (follow(f, out))
		return 1;
	return result(f, out);
}

int nf_http_fetch_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	struct fetch f = { .ctx = ctx,
		           .url = json_string_value(json_object_get(args, "url")),
		           .redirects = json_array(),
		           .handed = handed_given() };
	int rc = run(&f, args, out);
	if (f.easy)
		f.api->easy_cleanup(f.easy);
	if (f.headers)
		f.api->slist_free_all(f.headers);
	json_decref(f.resp.headers);
	free(f.resp.body);
	json_decref(f.redirects);
	free(f.current);
	return rc;
}
