/* netproto.h — the wire formats the egress proxy reads and writes: an HTTP
 * request head (a proxy's absolute URI or CONNECT, or a server's origin
 * form), the SOCKS5 greeting and request, the server name of a TLS
 * ClientHello, a DNS query and its answer.
 *
 * Pure functions over the caller's buffers: no allocation, no I/O. Every
 * input is untrusted (a tool wrote it) and read only within its length;
 * whatever is ambiguous between parsers is refused rather than guessed at.
 * Parsers return NP_MORE (a prefix of something valid: read more, up to
 * the stated maximum), NP_OK, or NP_BAD with a reason (a static string).
 */
#ifndef TC_NETPROTO_H
#define TC_NETPROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NP_HOST_MAX 253   /* a DNS name, or an address's text */
#define NP_HEAD_MAX 16384 /* an HTTP head or a ClientHello, at most */

enum { NP_BAD = -1, NP_MORE = 0, NP_OK = 1 };

/* A destination: a host name (lowercase, no trailing dot) or an address
 * literal (IPv6 without brackets), and a port. */
struct np_target {
	char host[NP_HOST_MAX + 1];
	uint16_t port;
};

/* Checks and normalizes a host as a client named it: a DNS name of letters,
 * digits, '-', '_' and dots (no empty label, at most 253 bytes; lowercased,
 * one trailing dot dropped) or an IPv4 or IPv6 address (brackets removed).
 * 0, or -1 when it is neither. */
int np_host_norm(const char *s, size_t len, char out[NP_HOST_MAX + 1]);

/* ---- HTTP ------------------------------------------------------------- */

struct np_http {
	size_t head_len;            /* bytes up to and including the blank line */
	bool connect;               /* CONNECT host:port */
	bool absolute;              /* METHOD http://host[:port]/path (a proxy request) */
	struct np_target target;    /* CONNECT's or the URI's; else the Host header's */
	bool has_host;              /* a Host header was there */
	char host[NP_HOST_MAX + 1]; /* its host, normalized */
	uint16_t host_port;         /* its port, or 0 when it names none */
	bool chunked;               /* Transfer-Encoding: chunked */
	uint64_t content_length;    /* Content-Length, or 0 */
	/* where the parts are, for np_http_rewrite */
	size_t method_len;
	size_t path_off, path_len; /* origin form: "/..." of the URI, or "/" */
	size_t version_off;        /* "HTTP/1.x" */
	size_t headers_off;        /* the first header line */
};

/* Parses the head at the start of buf[len]. proxy: the request came to the
 * proxy port (CONNECT or an absolute http:// URI is expected; origin form
 * is refused), else to port 80 (origin form with a Host header). The head
 * must end within NP_HEAD_MAX bytes. Lines end in CRLF; a bare LF, a
 * control character, an obsolete folded line, or two Host headers are
 * refused; so is a body framed two ways or in a way read differently by
 * two parsers (Content-Length with Transfer-Encoding, two of either, a
 * transfer coding other than "chunked", a length not in digits). */
int np_http_parse(const char *buf, size_t len, bool proxy, struct np_http *h, const char **why);

/* The same for a request sent into a tunnel (CONNECT, SOCKS) as a
 * server would read it: origin form, its Host header optional (h->target
 * then has an empty host). */
int np_http_parse_tunneled(const char *buf, size_t len, struct np_http *h, const char **why);

/* Whether a tunnel's first bytes buf[len] may be an HTTP request, as the
 * most lenient server would take them: NP_OK when, after *skip bytes of
 * white space and empty lines, a line that starts with a method's
 * character holds "HTTP/" (or 16 KiB come without a line's end: the
 * parser refuses them), NP_MORE while they may still be one, NP_BAD when
 * they are not (another protocol: no "HTTP/" in the line, or a control
 * byte no request line has). */
int np_http_sniff(const uint8_t *buf, size_t len, size_t *skip);

/* The head to send upstream for a plain-HTTP request (an absolute URI to
 * the proxy, or an origin-form one to port 80): the request line in
 * origin form, Host naming h->target, the headers without Proxy-*, Connection and
 * Keep-Alive, and "Connection: close" (one request per connection: a second one on the same connection
 * could name another host). Returns the length written to out, or -1 when
 * it does not fit in size bytes. */
ssize_t np_http_rewrite(const char *buf, const struct np_http *h, char *out, size_t size);

/* A chunked body (RFC 9112 7.1) as it streams by: zeroed at its start. */
struct np_chunked {
	int state;
	uint64_t left;   /* the current chunk's data still to come */
	unsigned digits; /* of its size, read so far */
	size_t line;     /* bytes of the current extension or trailer line */
	unsigned fields; /* trailer lines */
};

/* Scans the body's next bytes buf[len]: returns how many belong to it
 * (len, or fewer when it ends within them, *done then set), or -1 when
 * they are no chunked body. Lines and trailers are bounded. */
ssize_t np_chunked_scan(struct np_chunked *c, const uint8_t *buf, size_t len, bool *done);

/* ---- SOCKS5 (RFC 1928) ---------------------------------------------------- */

enum {
	NP_SOCKS_OK = 0x00,
	NP_SOCKS_FAILURE = 0x01,
	NP_SOCKS_NOT_ALLOWED = 0x02,
	NP_SOCKS_HOST_UNREACHABLE = 0x04,
	NP_SOCKS_REFUSED = 0x05,
	NP_SOCKS_CMD_UNSUPPORTED = 0x07,
	NP_SOCKS_ATYP_UNSUPPORTED = 0x08,
};

/* The greeting: VER=5, NMETHODS, METHODS. *used its length; *no_auth whether
 * "no authentication" (0x00) is offered. */
int np_socks_greeting(const uint8_t *buf, size_t len, size_t *used, bool *no_auth,
                      const char **why);
/* The request: VER=5, CMD, RSV, ATYP, address, port. *cmd is 1 for
 * CONNECT; t holds the name (ATYP 3) or the address's text (1, 4). A name
 * that np_host_norm refuses is NP_BAD with *reply NP_SOCKS_ATYP_UNSUPPORTED
 * or NP_SOCKS_FAILURE to send back. */
int np_socks_request(const uint8_t *buf, size_t len, size_t *used, uint8_t *cmd,
                     struct np_target *t, uint8_t *reply, const char **why);
/* A reply with code rep and a zero IPv4 bound address: 10 bytes. */
size_t np_socks_reply(uint8_t rep, uint8_t out[10]);

/* ---- TLS ---------------------------------------------------------------- */

/* The server name (SNI host_name) of the TLS ClientHello at the start of
 * buf, which may span several records. NP_OK with name set ("" when the
 * hello names none), NP_MORE, or NP_BAD when it is not a ClientHello. */
int np_tls_sni(const uint8_t *buf, size_t len, char name[NP_HOST_MAX + 1], const char **why);

/* ---- DNS (RFC 1035) ------------------------------------------------------- */

enum { NP_DNS_A = 1, NP_DNS_AAAA = 28, NP_DNS_CLASS_IN = 1 };
enum {
	NP_DNS_NOERROR = 0,
	NP_DNS_FORMERR = 1,
	NP_DNS_SERVFAIL = 2,
	NP_DNS_NXDOMAIN = 3,
	NP_DNS_NOTIMP = 4,
	NP_DNS_REFUSED = 5
};
#define NP_DNS_MSG_MAX 512 /* what we answer with, at most */

struct np_dns_query {
	uint16_t id;
	uint16_t qtype, qclass;
	bool rd;                    /* recursion desired: echoed */
	bool valid_name;            /* name passed np_host_norm */
	char name[NP_HOST_MAX + 1]; /* lowercase, no trailing dot */
	size_t question_end;        /* offset after the question */
};

/* One standard query with one question (no compression in it). NP_OK, or
 * NP_BAD (not a query, several questions, a truncated name): answer
 * FORMERR if the header could be read (*id_known), else nothing. A name of
 * other characters than np_host_norm allows is NP_OK with !valid_name. */
int np_dns_query_parse(const uint8_t *msg, size_t len, struct np_dns_query *q, bool *id_known,
                       const char **why);
/* The response to q (msg is the query it came from): rcode, and with addr4
 * one A record for the question's name with ttl. Returns the length
 * written to out (NP_DNS_MSG_MAX is enough), or 0 when it does not fit. */
size_t np_dns_answer(const uint8_t *msg, const struct np_dns_query *q, int rcode,
                     const uint8_t addr4[4], uint32_t ttl, uint8_t *out, size_t size);
/* A FORMERR response to a message whose header is at msg (id only). */
size_t np_dns_formerr(const uint8_t *msg, size_t len, uint8_t out[12]);

#endif
