/* netproto.c — see netproto.h. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "netproto.h"

static char lower(char c)
{
	return (char)tolower((unsigned char)c);
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	        c == '-' || c == '_';
}

int np_host_norm(const char *s, size_t len, char out[NP_HOST_MAX + 1])
{
	char tmp[64];
	if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
		s++;
		len -= 2;
		if (!memchr(s, ':', len))
			return -1; /* [1.2.3.4] is no IPv6 address */
	}
	if (len == 0)
		return -1;
	if (memchr(s, ':', len)) {
		struct in6_addr a;
		if (len >= sizeof tmp)
			return -1;
		for (size_t i = 0; i < len; i++)
			tmp[i] = lower(s[i]);
		tmp[len] = '\0';
		if (inet_pton(AF_INET6, tmp, &a) != 1)
			return -1;
		memcpy(out, tmp, len + 1);
		return 0;
	}
	if (s[len - 1] == '.')
		len--;
	if (len == 0 || len > NP_HOST_MAX)
		return -1;
	size_t label = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '.') {
			if (label == 0)
				return -1;
			label = 0;
		} else if (!name_char(s[i]) || ++label > 63) {
			return -1;
		}
		out[i] = lower(s[i]);
	}
	if (label == 0)
		return -1;
	out[len] = '\0';
	return 0;
}

/* host[:port] or [v6][:port]; a port, when there, is 1..65535. */
static int parse_authority(const char *s, size_t len, char host[NP_HOST_MAX + 1], uint16_t *port)
{
	size_t hlen = len;
	const char *colon = NULL;
	if (len && s[0] == '[') {
		const char *close = memchr(s, ']', len);
		if (!close)
			return -1;
		hlen = (size_t)(close - s) + 1;
		if (hlen < len) {
			if (s[hlen] != ':')
				return -1;
			colon = s + hlen;
		}
	} else {
		colon = memchr(s, ':', len);
		if (colon && memchr(colon + 1, ':', len - (size_t)(colon + 1 - s)))
			return -1; /* a bare IPv6 address needs brackets here */
		if (colon)
			hlen = (size_t)(colon - s);
	}
	*port = 0;
	if (colon) {
		size_t plen = len - (size_t)(colon + 1 - s);
		unsigned long p = 0;
		if (plen == 0 || plen > 5)
			return -1;
		for (size_t i = 0; i < plen; i++) {
			char c = colon[1 + i];
			if (c < '0' || c > '9')
				return -1;
			p = p * 10 + (unsigned long)(c - '0');
		}
		if (p == 0 || p > 65535)
			return -1;
		*port = (uint16_t)p;
	}
	return np_host_norm(s, hlen, host);
}

/* ---- HTTP ------------------------------------------------------------- */

static bool tchar(char c)
{
	return name_char(c) || (c && strchr("!#$%&'*+.^`|~", c));
}

/* The head's end, checking every byte on the way: lines end in CRLF, no
 * control characters but HT. Returns NP_OK with *end, NP_MORE or NP_BAD. */
static int head_end(const char *buf, size_t len, size_t *end, const char **why)
{
	size_t n = len < NP_HEAD_MAX ? len : NP_HEAD_MAX;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c == '\n') {
			if (i == 0 || buf[i - 1] != '\r')
				return *why = "a line ends in a bare LF", NP_BAD;
			if (i >= 3 && buf[i - 2] == '\n') {
				*end = i + 1;
				return NP_OK;
			}
		} else if (c == '\r') {
			if (i + 1 < n && buf[i + 1] != '\n')
				return *why = "a CR not followed by LF", NP_BAD;
		} else if ((c < 0x20 && c != '\t') || c == 0x7f) {
			return *why = "a control character in the head", NP_BAD;
		}
	}
	if (len >= NP_HEAD_MAX)
		return *why = "the request head is longer than 16 KiB", NP_BAD;
	return NP_MORE;
}

static bool name_is(const char *line, size_t nlen, const char *name)
{
	return strlen(name) == nlen && !strncasecmp(line, name, nlen);
}

/* The request line: METHOD SP TARGET SP HTTP/1.x */
static int request_line(const char *buf, size_t eol, bool proxy, struct np_http *h,
                        const char **why)
{
	const char *sp1 = memchr(buf, ' ', eol);
	if (!sp1 || sp1 == buf || sp1 - buf > 32)
		return *why = "a malformed request line", NP_BAD;
	h->method_len = (size_t)(sp1 - buf);
	for (size_t i = 0; i < h->method_len; i++)
		if (!tchar(buf[i]))
			return *why = "a malformed method", NP_BAD;
	const char *t = sp1 + 1;
	const char *sp2 = memchr(t, ' ', eol - (size_t)(t - buf));
	if (!sp2 || sp2 == t)
		return *why = "a malformed request line", NP_BAD;
	size_t tlen = (size_t)(sp2 - t);
	h->version_off = (size_t)(sp2 + 1 - buf);
	size_t vlen = eol - h->version_off;
	if (vlen != 8 || (memcmp(sp2 + 1, "HTTP/1.1", 8) && memcmp(sp2 + 1, "HTTP/1.0", 8)))
		return *why = "not HTTP/1.0 or HTTP/1.1", NP_BAD;
	h->connect = h->method_len == 7 && !memcmp(buf, "CONNECT", 7);
	if (h->connect) {
		if (!proxy)
			return *why = "CONNECT to a server, not to the proxy", NP_BAD;
		if (parse_authority(t, tlen, h->target.host, &h->target.port) < 0 ||
		    !h->target.port)
			return *why = "CONNECT wants host:port", NP_BAD;
		return NP_OK;
	}
	if (!proxy) {
		if (t[0] != '/' && !(tlen == 1 && t[0] == '*'))
			return *why = "a request to a server must name a path", NP_BAD;
		h->path_off = (size_t)(t - buf);
		h->path_len = tlen;
		return NP_OK;
	}
	if (tlen > 8 && !strncasecmp(t, "https://", 8))
		return *why = "an https URL without CONNECT (use CONNECT)", NP_BAD;
	if (tlen <= 7 || strncasecmp(t, "http://", 7))
		return *why = "the proxy wants CONNECT or an absolute http:// URL", NP_BAD;
	const char *a = t + 7;
	size_t alen = 0;
	while (a + alen < sp2 && a[alen] != '/' && a[alen] != '?' && a[alen] != '#')
		alen++;
	if (memchr(a, '@', alen))
		return *why = "a URL with user information", NP_BAD;
	if (a + alen < sp2 && a[alen] == '#')
		return *why = "a URL with a fragment", NP_BAD;
	if (parse_authority(a, alen, h->target.host, &h->target.port) < 0)
		return *why = "the URL's host is not a name or address", NP_BAD;
	if (!h->target.port)
		h->target.port = 80;
	h->absolute = true;
	h->path_off = (size_t)(a + alen - buf);
	h->path_len = (size_t)(sp2 - (a + alen));
	return NP_OK;
}

static int http_parse(const char *buf, size_t len, bool proxy, bool need_host, struct np_http *h,
                      const char **why)
{
	memset(h, 0, sizeof *h);
	size_t end;
	int rc = head_end(buf, len, &end, why);
	if (rc != NP_OK)
		return rc;
	h->head_len = end;
	const char *eol = memchr(buf, '\r', end);
	if ((rc = request_line(buf, (size_t)(eol - buf), proxy, h, why)) != NP_OK)
		return rc;
	h->headers_off = (size_t)(eol + 2 - buf);
	bool has_length = false;
	for (const char *line = eol + 2; line < buf + end - 2;) {
		const char *le = memchr(line, '\r', (size_t)(buf + end - line));
		if (*line == ' ' || *line == '\t')
			return *why = "a folded header line", NP_BAD;
		const char *colon = memchr(line, ':', (size_t)(le - line));
		if (!colon || colon == line)
			return *why = "a malformed header line", NP_BAD;
		for (const char *p = line; p < colon; p++)
			if (!tchar(*p))
				return *why = "a malformed header name", NP_BAD;
		size_t nlen = (size_t)(colon - line);
		const char *v = colon + 1, *ve = le;
		while (v < ve && (*v == ' ' || *v == '\t'))
			v++;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		if (name_is(line, nlen, "host")) {
			if (h->has_host)
				return *why = "two Host headers", NP_BAD;
			h->has_host = true;
			if (parse_authority(v, (size_t)(ve - v), h->host, &h->host_port) < 0)
				return *why = "the Host header is not a host", NP_BAD;
		} else if (name_is(line, nlen, "content-length")) {
			if (has_length)
				return *why = "two Content-Length headers", NP_BAD;
			has_length = true;
			if (v == ve || ve - v > 18)
				return *why = "a malformed Content-Length", NP_BAD;
			for (; v < ve; v++) {
				if (*v < '0' || *v > '9')
					return *why = "a malformed Content-Length", NP_BAD;
				h->content_length = h->content_length * 10 + (uint64_t)(*v - '0');
			}
		} else if (name_is(line, nlen, "transfer-encoding")) {
			if (h->chunked)
				return *why = "two Transfer-Encoding headers", NP_BAD;
			if (ve - v != 7 || strncasecmp(v, "chunked", 7))
				return *why = "a transfer coding other than chunked", NP_BAD;
			h->chunked = true;
		}
		line = le + 2;
	}
	/* Which one ends the body is where parsers disagree (smuggling). */
	if (has_length && h->chunked)
		return *why = "both Content-Length and Transfer-Encoding", NP_BAD;
	if (!proxy) {
		if (!h->has_host && need_host)
			return *why = "no Host header", NP_BAD;
		memcpy(h->target.host, h->host, sizeof h->host);
		h->target.port = 80;
	}
	return NP_OK;
}

int np_http_parse(const char *buf, size_t len, bool proxy, struct np_http *h, const char **why)
{
	return http_parse(buf, len, proxy, !proxy, h, why);
}

int np_http_parse_tunneled(const char *buf, size_t len, struct np_http *h, const char **why)
{
	return http_parse(buf, len, false, false, h, why);
}

/* What some server takes for white space around a request line's words:
 * Python's http.server splits it with str.split(), which counts these too. */
static bool sniff_space(uint8_t c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f) || c == 0x85 ||
	        c == 0xa0;
}

int np_http_sniff(const uint8_t *buf, size_t len, size_t *skip)
{
	size_t i = 0;
	/* A server skips empty lines before a request line (RFC 9112 2.2), a
	 * lenient one white space too. */
	while (i < len && sniff_space(buf[i]))
		i++;
	*skip = i;
	if (i == len)
		return len >= NP_HEAD_MAX ? NP_OK : NP_MORE;
	if (!tchar((char)buf[i]))
		return NP_BAD;
	const uint8_t *lf = memchr(buf + i, '\n', len - i);
	if (!lf) {
		/* A byte no request line holds: another protocol's, which may
		 * wait for the server now. */
		for (size_t k = i; k < len; k++)
			if ((buf[k] < 0x20 && !sniff_space(buf[k])) || buf[k] == 0x7f)
				return NP_BAD;
		return len >= NP_HEAD_MAX ? NP_OK : NP_MORE;
	}
	/* The line names a version: the parser is strict, a server may not be. */
	return memmem(buf + i, (size_t)(lf - (buf + i)), "HTTP/", 5) ? NP_OK : NP_BAD;
}

struct out {
	char *p;
	size_t len, size;
	bool full;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->full || n > o->size - o->len) {
		o->full = true;
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

ssize_t np_http_rewrite(const char *buf, const struct np_http *h, char *outbuf, size_t size)
{
	struct out o = { outbuf, 0, size, false };
	put(&o, buf, h->method_len);
	puts_(&o, " ");
	if (!h->path_len || buf[h->path_off] != '/')
		puts_(&o, "/");
	put(&o, buf + h->path_off, h->path_len);
	puts_(&o, " ");
	put(&o, buf + h->version_off, 8);
	puts_(&o, "\r\nHost: ");
	bool v6 = strchr(h->target.host, ':') != NULL;
	if (v6)
		puts_(&o, "[");
	puts_(&o, h->target.host);
	if (v6)
		puts_(&o, "]");
	if (h->target.port != 80) {
		char port[8];
		int n = 0;
		char rev[6];
		for (unsigned p = h->target.port; p; p /= 10)
			rev[n++] = (char)('0' + p % 10);
		port[0] = ':';
		for (int i = 0; i < n; i++)
			port[1 + i] = rev[n - 1 - i];
		put(&o, port, (size_t)n + 1);
	}
	puts_(&o, "\r\n");
	for (const char *line = buf + h->headers_off; line < buf + h->head_len - 2;) {
		const char *le = memchr(line, '\r', (size_t)(buf + h->head_len - line));
		size_t nlen = (size_t)((const char *)memchr(line, ':', (size_t)(le - line)) - line);
		bool drop = name_is(line, nlen, "host") || name_is(line, nlen, "connection") ||
		        name_is(line, nlen, "keep-alive") ||
		        (nlen >= 6 && !strncasecmp(line, "proxy-", 6));
		if (!drop)
			put(&o, line, (size_t)(le + 2 - line));
		line = le + 2;
	}
	puts_(&o, "Connection: close\r\n\r\n");
	return o.full ? -1 : (ssize_t)o.len;
}

/* ---- a chunked body ------------------------------------------------------- */

enum {
	CH_SIZE,
	CH_EXT,
	CH_SIZE_LF,
	CH_DATA,
	CH_DATA_CR,
	CH_DATA_LF,
	CH_FIELD_START,
	CH_FIELD,
	CH_FIELD_LF,
	CH_END_LF,
	CH_DONE
};

ssize_t np_chunked_scan(struct np_chunked *c, const uint8_t *buf, size_t len, bool *done)
{
	size_t i = 0;
	*done = c->state == CH_DONE;
	while (i < len && c->state != CH_DONE) {
		uint8_t b = buf[i];
		switch (c->state) {
		case CH_DATA: {
			size_t take = len - i < c->left ? len - i : (size_t)c->left;
			c->left -= take;
			i += take;
			if (!c->left)
				c->state = CH_DATA_CR;
			continue;
		}
		case CH_SIZE:
			if (isxdigit(b)) {
				if (++c->digits > 15)
					return -1; /* 2^60 bytes: no chunk is that long */
				c->left = c->left << 4 |
				        (uint64_t)(isdigit(b) ? b - '0' : (b | 0x20) - 'a' + 10);
			} else if (c->digits && (b == ';' || b == ' ' || b == '\t')) {
				c->state = CH_EXT;
			} else if (c->digits && b == '\r') {
				c->state = CH_SIZE_LF;
			} else {
				return -1; /* no size, or a byte no size line has */
			}
			break;
		case CH_EXT:
		case CH_FIELD:
			if (b == '\r')
				c->state = c->state == CH_EXT ? CH_SIZE_LF : CH_FIELD_LF;
			else if ((b < 0x20 && b != '\t') || b == 0x7f || ++c->line > NP_HEAD_MAX)
				return -1;
			break;
		case CH_SIZE_LF:
			if (b != '\n')
				return -1;
			c->state = c->left ? CH_DATA : CH_FIELD_START;
			c->digits = 0;
			c->line = 0;
			break;
		case CH_DATA_CR:
			if (b != '\r')
				return -1;
			c->state = CH_DATA_LF;
			break;
		case CH_DATA_LF:
			if (b != '\n')
				return -1;
			c->state = CH_SIZE;
			break;
		case CH_FIELD_START:
			if (b == '\r') {
				c->state = CH_END_LF;
			} else if (b < 0x20 || b == 0x7f || ++c->fields > 64) {
				return -1;
			} else {
				c->state = CH_FIELD;
				c->line = 1;
			}
			break;
		case CH_FIELD_LF:
			if (b != '\n')
				return -1;
			c->state = CH_FIELD_START;
			break;
		case CH_END_LF:
			if (b != '\n')
				return -1;
			c->state = CH_DONE;
			break;
		}
		i++;
	}
	*done = c->state == CH_DONE;
	return (ssize_t)i;
}

/* ---- SOCKS5 --------------------------------------------------------------- */

int np_socks_greeting(const uint8_t *buf, size_t len, size_t *used, bool *no_auth, const char **why)
{
	if (len >= 1 && buf[0] != 5)
		return *why = "not SOCKS version 5", NP_BAD;
	if (len < 2)
		return NP_MORE;
	if (buf[1] == 0)
		return *why = "a SOCKS greeting without methods", NP_BAD;
	if (len < 2u + buf[1])
		return NP_MORE;
	*used = 2u + buf[1];
	*no_auth = memchr(buf + 2, 0, buf[1]) != NULL;
	return NP_OK;
}

int np_socks_request(const uint8_t *buf, size_t len, size_t *used, uint8_t *cmd,
                     struct np_target *t, uint8_t *reply, const char **why)
{
	*reply = NP_SOCKS_FAILURE;
	if (len >= 1 && buf[0] != 5)
		return *why = "not SOCKS version 5", NP_BAD;
	if (len >= 3 && buf[2] != 0)
		return *why = "a SOCKS request with a reserved byte set", NP_BAD;
	if (len < 5)
		return NP_MORE;
	*cmd = buf[1];
	size_t need;
	switch (buf[3]) {
	case 1: need = 4 + 4 + 2; break;
	case 4: need = 4 + 16 + 2; break;
	case 3:
		if (buf[4] == 0)
			return *why = "an empty SOCKS host name", NP_BAD;
		need = 5u + buf[4] + 2;
		break;
	default:
		*reply = NP_SOCKS_ATYP_UNSUPPORTED;
		return *why = "an unknown SOCKS address type", NP_BAD;
	}
	if (len < need)
		return NP_MORE;
	*used = need;
	t->port = (uint16_t)(buf[need - 2] << 8 | buf[need - 1]);
	if (t->port == 0)
		return *why = "port 0", NP_BAD;
	if (buf[3] == 1)
		inet_ntop(AF_INET, buf + 4, t->host, sizeof t->host);
	else if (buf[3] == 4)
		inet_ntop(AF_INET6, buf + 4, t->host, sizeof t->host);
	else if (np_host_norm((const char *)buf + 5, buf[4], t->host) < 0)
		return *why = "the SOCKS host is not a name or address", NP_BAD;
	return NP_OK;
}

size_t np_socks_reply(uint8_t rep, uint8_t out[10])
{
	static const uint8_t tmpl[10] = { 5, 0, 0, 1, 0, 0, 0, 0, 0, 0 };
	memcpy(out, tmpl, sizeof tmpl);
	out[1] = rep;
	return sizeof tmpl;
}

/* ---- TLS ---------------------------------------------------------------- */

static unsigned be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* The server_name extension's data. */
static int sni_ext(const uint8_t *p, size_t n, char name[NP_HOST_MAX + 1], const char **why)
{
	if (n < 2 || be16(p) != n - 2)
		return *why = "a malformed server_name extension", NP_BAD;
	for (size_t i = 2; i + 3 <= n;) {
		unsigned type = p[i], len = be16(p + i + 1);
		if (i + 3 + len > n)
			return *why = "a malformed server_name extension", NP_BAD;
		if (type == 0) {
			if (name[0] || np_host_norm((const char *)p + i + 3, len, name) < 0 ||
			    strchr(name, ':') || strspn(name, "0123456789.") == strlen(name))
				return *why = "the server name is not one host name", NP_BAD;
		}
		i += 3 + len;
	}
	return NP_OK;
}

static int client_hello(const uint8_t *p, size_t n, char name[NP_HOST_MAX + 1], const char **why)
{
	size_t i = 2 + 32; /* version, random */
	if (n < i + 1)
		goto bad;
	i += 1 + p[i]; /* session id */
	if (n < i + 2)
		goto bad;
	i += 2 + be16(p + i); /* cipher suites */
	if (n < i + 1)
		goto bad;
	i += 1 + p[i]; /* compression methods */
	if (n == i)
		return NP_OK; /* no extensions */
	if (n < i + 2 || i + 2 + be16(p + i) != n)
		goto bad;
	bool seen = false;
	for (i += 2; i + 4 <= n;) {
		unsigned type = be16(p + i), len = be16(p + i + 2);
		if (i + 4 + len > n)
			goto bad;
		if (type == 0) {
			if (seen)
				return *why = "two server_name extensions", NP_BAD;
			seen = true;
			if (sni_ext(p + i + 4, len, name, why) != NP_OK)
				return NP_BAD;
		}
		i += 4 + len;
	}
	if (i != n)
		goto bad;
	return NP_OK;
bad:
	*why = "a malformed ClientHello";
	return NP_BAD;
}

int np_tls_sni(const uint8_t *buf, size_t len, char name[NP_HOST_MAX + 1], const char **why)
{
	uint8_t hs[NP_HEAD_MAX];
	size_t hlen = 0;
	name[0] = '\0';
	for (size_t off = 0;;) {
		if (len - off >= 1 && buf[off] != 22)
			return *why = off ? "a ClientHello cut by another record type" :
			                    "not a TLS handshake",
			       NP_BAD;
		if (len - off >= 2 && buf[off + 1] != 3)
			return *why = "not a TLS record", NP_BAD;
		if (len - off < 5)
			break;
		size_t rlen = be16(buf + off + 3);
		if (rlen == 0 || rlen > 16384)
			return *why = "a malformed TLS record", NP_BAD;
		if (off + 5 + rlen > NP_HEAD_MAX)
			return *why = "a ClientHello longer than 16 KiB", NP_BAD;
		if (len - off - 5 < rlen)
			break;
		memcpy(hs + hlen, buf + off + 5, rlen);
		hlen += rlen;
		off += 5 + rlen;
		if (hlen >= 4) {
			if (hs[0] != 1)
				return *why = "not a ClientHello", NP_BAD;
			size_t need = 4 + ((size_t)hs[1] << 16 | (size_t)hs[2] << 8 | hs[3]);
			if (hlen >= need)
				return client_hello(hs + 4, need - 4, name, why);
		}
		if (off == len)
			break;
	}
	if (len >= NP_HEAD_MAX)
		return *why = "a ClientHello longer than 16 KiB", NP_BAD;
	return NP_MORE;
}

/* ---- DNS -------------------------------------------------------------------- */

int np_dns_query_parse(const uint8_t *msg, size_t len, struct np_dns_query *q, bool *id_known,
                       const char **why)
{
	memset(q, 0, sizeof *q);
	*id_known = len >= 12;
	if (len < 12)
		return *why = "a DNS message shorter than its header", NP_BAD;
	q->id = (uint16_t)be16(msg);
	q->rd = msg[2] & 1;
	if (msg[2] & 0x80)
		return *why = "a DNS response, not a query", NP_BAD;
	if ((msg[2] >> 3 & 0xf) != 0)
		return *why = "a DNS opcode other than QUERY", NP_BAD;
	if (be16(msg + 4) != 1 || be16(msg + 6) || be16(msg + 8))
		return *why = "a DNS query without exactly one question", NP_BAD;
	size_t i = 12, out = 0;
	bool valid = true;
	for (;;) {
		if (i >= len)
			return *why = "a truncated DNS name", NP_BAD;
		unsigned l = msg[i++];
		if (l == 0)
			break;
		if (l > 63)
			return *why = "a compressed or malformed DNS name", NP_BAD;
		if (i + l > len || i - 12 + l > 255)
			return *why = "a truncated DNS name", NP_BAD;
		if (out)
			q->name[out++] = '.';
		for (unsigned k = 0; k < l; k++) {
			char c = (char)msg[i + k];
			if (!name_char(c))
				valid = false;
			if (out < NP_HOST_MAX)
				q->name[out++] = lower(c);
			else
				valid = false;
		}
		i += l;
	}
	q->name[out] = '\0';
	if (i + 4 > len)
		return *why = "a truncated DNS question", NP_BAD;
	q->qtype = (uint16_t)be16(msg + i);
	q->qclass = (uint16_t)be16(msg + i + 2);
	q->question_end = i + 4;
	char norm[NP_HOST_MAX + 1];
	q->valid_name =
	        valid && out > 0 && np_host_norm(q->name, out, norm) == 0 && !strchr(norm, ':');
	return NP_OK;
}

size_t np_dns_answer(const uint8_t *msg, const struct np_dns_query *q, int rcode,
                     const uint8_t addr4[4], uint32_t ttl, uint8_t *out, size_t size)
{
	size_t qlen = q->question_end - 12;
	size_t need = 12 + qlen + (addr4 ? 16 : 0);
	if (need > size)
		return 0;
	memset(out, 0, 12);
	out[0] = (uint8_t)(q->id >> 8);
	out[1] = (uint8_t)q->id;
	out[2] = 0x80 | 0x04 | (q->rd ? 1 : 0); /* response, authoritative */
	out[3] = 0x80 | (uint8_t)(rcode & 0xf); /* recursion available */
	out[5] = 1;
	out[7] = addr4 ? 1 : 0;
	memcpy(out + 12, msg + 12, qlen);
	if (addr4) {
		uint8_t *a = out + 12 + qlen;
		const uint8_t rr[10] = { 0xc0,
			                 0x0c,
			                 0,
			                 NP_DNS_A,
			                 0,
			                 NP_DNS_CLASS_IN,
			                 (uint8_t)(ttl >> 24),
			                 (uint8_t)(ttl >> 16),
			                 (uint8_t)(ttl >> 8),
			                 (uint8_t)ttl };
		memcpy(a, rr, sizeof rr);
		a[10] = 0;
		a[11] = 4;
		memcpy(a + 12, addr4, 4);
	}
	return need;
}

size_t np_dns_formerr(const uint8_t *msg, size_t len, uint8_t out[12])
{
	memset(out, 0, 12);
	if (len >= 2) {
		out[0] = msg[0];
		out[1] = msg[1];
	}
	out[2] = 0x80;
	out[3] = NP_DNS_FORMERR;
	return 12;
}
