/* egress_conn.c — one TCP connection from a tool, from its first byte to
 * its close:
 *
 *   head     read what names the destination (bounded: NP_HEAD_MAX): an
 *            HTTP proxy request, a SOCKS5 greeting and request, an HTTP
 *            request's Host, a TLS ClientHello's server name; nothing is
 *            sent upstream yet
 *   decide   the name and port against the policy (deny first), the
 *            call's connection cap; an unlisted name may be asked about
 *   resolve  the name, by our resolver (a refused name is never looked up)
 *   connect  to the first address the policy allows, from the supervisor's
 *            own namespace (unpaced where it stays on this host: below)
 *   relay    both ways through two pipes (splice: the bytes never enter
 *            our memory; a full pipe stops reading its writer), within
 *            the call's byte caps; where the kernel gives no big pipes,
 *            through two bounded buffers of ours (recv and send)
 *
 * A refusal is answered in the client's protocol (403, a SOCKS code, a
 * closed TLS connection) and recorded with its reason. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "egress_internal.h"
#include "io.h"
#include "loop.h"
#include "url.h"

enum conn_state { CS_HEAD, CS_ASK, CS_RESOLVE, CS_CONNECT, CS_RELAY, CS_DRAIN };
enum { DRAIN_TIMEOUT_MS = 5000, ATTEMPT_MS = 3000 };

/* One direction's buffer: a pipe the bytes are spliced through, or, where
 * the kernel gives no pipe of EGRESS_PIPE_GOOD (a user past
 * fs.pipe-user-pages-soft gets 8 KiB ones, and none past the hard limit),
 * a buffer of ours of EGRESS_COPY_BYTES they are copied through. Either
 * holds at most the connection's cap, counted in fill. */
struct chan {
	int p[2];     /* the pipe, or -1 */
	uint8_t *buf; /* or the buffer: its bytes at off, fill of them */
	size_t off;
	size_t fill;
	size_t cap; /* what it holds */
	bool grown; /* chan_grow tried */
};

struct egress_conn {
	struct egress_call *call;
	enum sbx_listener kind;
	enum egress_via via;
	enum conn_state state;
	int cfd, ufd;
	struct chan cu, uc;    /* client to upstream, upstream to client */
	bool c_eof, u_eof;     /* a read side ended */
	bool cu_done, uc_done; /* its end was passed on (shutdown) */
	uint32_t c_ev, u_ev;   /* what is watched now */
	uint8_t *head;         /* CS_HEAD: what the client sent so far */
	size_t head_len;
	size_t socks_used;            /* the greeting's bytes, once answered */
	char mapped[NP_HOST_MAX + 1]; /* the name our DNS gave the address, or "" */
	struct np_target t;
	char *to_upstream;      /* sent first once connected: the head, */
	size_t to_upstream_len; /* rewritten for an absolute-URI request */
	const char *success;    /* and this to the client ("200", SOCKS) */
	size_t success_len;
	struct sockaddr_storage addrs[RESOLVE_ADDRS_MAX];
	size_t n_addrs, next_addr;
	int last_errno;
	struct resolve_query *rq;
	void *ask; /* the approver's handle */
	bool asking, answered, answer_allow;
	const char *allow_why;
	const char *end_why;  /* a cap ended it: recorded as refused */
	uint16_t listen_port; /* the port it came to */
	/* Plain HTTP (an absolute-URI proxy request, port 80): one request per
	 * connection, its body passed as its head frames it (body_left bytes,
	 * or a chunked body to its last chunk); what the client sends after it
	 * is read and dropped, for a second request on a kept-alive
	 * connection could name another host the same server serves. */
	bool one_request, req_done, chunked;
	/* A tunnel (CONNECT, SOCKS): its first bytes are held in head until
	 * they are known not to be a TLS ClientHello naming another host. */
	bool hello_check;
	uint64_t body_left;
	struct np_chunked ch;
	struct loop_timer *timer;
	uint64_t out, in;
	bool recorded;
	struct egress_conn *next, *prev;
};

static const uint8_t socks_ok_reply[10] = { 5, 0, 0, 1, 0, 0, 0, 0, 0, 0 };
static const char connect_ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

static void on_client(struct loop *l, int fd, uint32_t events, void *data);
static void on_upstream(struct loop *l, int fd, uint32_t events, void *data);
static void pump(struct egress_conn *k);

static struct loop *loop_of(struct egress_conn *k)
{
	return k->call->e->loop;
}

static void set_timer(struct egress_conn *k, int64_t ms, loop_timer_fn fn)
{
	if (k->timer)
		loop_del_timer(loop_of(k), k->timer);
	k->timer = ms ? loop_add_timer(loop_of(k), io_now_ms() + ms, fn, k) : NULL;
}

static void watch(struct egress_conn *k, uint32_t c_ev, uint32_t u_ev)
{
	if (c_ev != k->c_ev && loop_mod_fd(loop_of(k), k->cfd, c_ev) == 0)
		k->c_ev = c_ev;
	if (k->ufd >= 0 && u_ev != k->u_ev && loop_mod_fd(loop_of(k), k->ufd, u_ev) == 0)
		k->u_ev = u_ev;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- a direction's buffer ----------------------------------------------------- */

static void chan_close(struct chan *ch)
{
	close_fd(&ch->p[0]);
	close_fd(&ch->p[1]);
	free(ch->buf);
	ch->buf = NULL;
	ch->off = ch->fill = 0;
}

/* Where the buffer's next bytes go, its bytes moved to its start when the
 * room after them is less than want. */
static uint8_t *chan_tail(struct chan *ch, size_t want)
{
	if (ch->off && ch->cap - ch->off - ch->fill < want) {
		memmove(ch->buf, ch->buf + ch->off, ch->fill);
		ch->off = 0;
	}
	return ch->buf + ch->off + ch->fill;
}

/* At most len bytes of data in (what there is room for): how many went,
 * -1 and errno. */
static ssize_t chan_write(struct chan *ch, const void *data, size_t len)
{
	if (len > ch->cap - ch->fill)
		len = ch->cap - ch->fill;
	if (!len)
		return 0;
	ssize_t n;
	if (ch->buf) {
		memcpy(chan_tail(ch, len), data, len);
		n = (ssize_t)len;
	} else if ((n = write(ch->p[1], data, len)) < 0) {
		return -1;
	}
	ch->fill += (size_t)n;
	return n;
}

/* All of data in, or nothing. */
static bool chan_put(struct chan *ch, const void *data, size_t len)
{
	if (len > ch->cap - ch->fill)
		return false;
	return chan_write(ch, data, len) == (ssize_t)len;
}

/* At most want bytes from the socket src in, as splice answers: > 0
 * moved, 0 its end, -1 and errno. */
static ssize_t chan_in(struct chan *ch, int src, size_t want)
{
	if (want > ch->cap - ch->fill)
		want = ch->cap - ch->fill;
	ssize_t n = ch->buf ?
	        recv(src, chan_tail(ch, want), want, MSG_DONTWAIT) :
	        splice(src, NULL, ch->p[1], NULL, want, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
	if (n > 0)
		ch->fill += (size_t)n;
	return n;
}

/* What it holds out to the socket dst, as much as goes: bytes moved, -1
 * and errno. */
static ssize_t chan_out(struct chan *ch, int dst)
{
	ssize_t n = ch->buf ?
	        send(dst, ch->buf + ch->off, ch->fill, MSG_DONTWAIT | MSG_NOSIGNAL) :
	        splice(ch->p[0], NULL, dst, NULL, ch->fill, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
	if (n > 0) {
		ch->fill -= (size_t)n;
		ch->off = ch->fill ? ch->off + (size_t)n : 0;
	}
	return n;
}

/* Both directions: pipes where the kernel gives at least EGRESS_PIPE_GOOD
 * (its default is 64 KiB), else buffers (a pipe of 8 KiB would relay at a
 * crawl, a splice per page). false when neither could be had. */
static bool chan_open(struct chan *a, struct chan *b)
{
	if (pipe2(a->p, O_NONBLOCK | O_CLOEXEC) == 0 && pipe2(b->p, O_NONBLOCK | O_CLOEXEC) == 0) {
		int x = fcntl(a->p[1], F_GETPIPE_SZ), y = fcntl(b->p[1], F_GETPIPE_SZ);
		if (x >= (int)EGRESS_PIPE_GOOD && y >= (int)EGRESS_PIPE_GOOD) {
			a->cap = (size_t)x;
			b->cap = (size_t)y;
			return true;
		}
	}
	chan_close(a);
	chan_close(b);
	a->buf = malloc(EGRESS_COPY_BYTES);
	b->buf = malloc(EGRESS_COPY_BYTES);
	a->cap = b->cap = EGRESS_COPY_BYTES;
	if (a->buf && b->buf)
		return true;
	chan_close(a);
	chan_close(b);
	return false;
}

/* A pipe that a read filled is carrying a stream: it grows to
 * EGRESS_PIPE_BYTES (where the user's pipe budget allows), so that each
 * splice takes what the socket holds, in fewer calls and wakeups. A
 * connection that never fills its pipe keeps the default's pages. */
static void chan_grow(struct chan *ch)
{
	if (ch->buf || ch->grown || ch->fill < ch->cap)
		return;
	ch->grown = true;
	int n = fcntl(ch->p[1], F_SETPIPE_SZ, EGRESS_PIPE_BYTES);
	if (n > 0 && (size_t)n > ch->cap)
		ch->cap = (size_t)n;
}

static void conn_close(struct egress_conn *k)
{
	struct egress_call *c = k->call;
	struct egress *e = c->e;
	if (k->rq)
		resolve_cancel(k->rq);
	if (k->ask && e->hooks.cancel)
		e->hooks.cancel(e->hooks.data, k->ask);
	if (k->timer)
		loop_del_timer(e->loop, k->timer);
	if (!k->recorded && k->state == CS_RELAY)
		egress_record(c, k->t.host, k->t.port, k->via, k->end_why ? 1 : 0,
		              k->end_why ? k->end_why : k->allow_why,
		              (struct sockaddr *)&k->addrs[k->next_addr], k->out, k->in);
	else if (!k->recorded && k->state != CS_HEAD && k->state != CS_DRAIN)
		egress_record(c, k->t.host, k->t.port, k->via, 2,
		              k->end_why ? k->end_why : "the call ended first", NULL, 0, 0);
	else if (!k->recorded && k->state == CS_HEAD)
		egress_record(c, "(no request)", k->listen_port, k->via, 2,
		              k->end_why ? k->end_why : "the connection ended before its request",
		              NULL, 0, 0);
	loop_del_fd(e->loop, k->cfd);
	if (k->ufd >= 0)
		loop_del_fd(e->loop, k->ufd);
	close_fd(&k->cfd);
	close_fd(&k->ufd);
	chan_close(&k->cu);
	chan_close(&k->uc);
	if (k->prev)
		k->prev->next = k->next;
	else
		c->conns = k->next;
	if (k->next)
		k->next->prev = k->prev;
	free(k->head);
	free(k->to_upstream);
	free(k);
	egress_conn_closed(c);
}

void egress_conn_close_all(struct egress_call *c)
{
	while (c->conns)
		conn_close(c->conns);
}

static void on_drain_timeout(struct loop *l, void *data)
{
	(void)l;
	struct egress_conn *k = data;
	k->timer = NULL;
	conn_close(k);
}

/* Answers the client with text (or nothing) and closes once it is out. */
static void drain_and_close(struct egress_conn *k, const void *text, size_t len)
{
	if (k->ufd >= 0) {
		loop_del_fd(loop_of(k), k->ufd);
		close_fd(&k->ufd);
	}
	k->state = CS_DRAIN;
	if (len)
		(void)chan_put(&k->uc, text, len);
	if (!k->uc.fill) {
		conn_close(k);
		return;
	}
	set_timer(k, DRAIN_TIMEOUT_MS, on_drain_timeout);
	watch(k, EPOLLOUT, 0);
	pump(k);
}

/* The client's protocol's way of saying no: why, and the policy's class
 * of the refusal (REFUSAL_NONE: another reason) where an HTTP answer can
 * carry it (Proxy-Status). */
static void reply_refusal(struct egress_conn *k, int status, enum refusal_class refusal,
                          const char *why)
{
	char text[1280]; /* status line, 4 headers, body: under 1200 */
	int n = 0;
	if (k->kind == SBX_LISTEN_HTTP_PROXY || k->kind == SBX_LISTEN_HTTP) {
		/* 404 is the resolver's "no such name". A proxy answers that
		 * 502, as a failure of its own and not the origin's "not
		 * found"; Proxy-Status (RFC 9209) says which failure and why,
		 * where a client reads it even when it drops a failed
		 * CONNECT's body (curl does, and http_fetch reads it there). */
		int code = status == 404 ? 502 : status;
		const char *title = code == 403 ? "Forbidden" :
		        code == 400             ? "Bad Request" :
		        code == 504             ? "Gateway Timeout" :
		                                  "Bad Gateway";
		const char *error = status == 403 ? "http_request_denied" :
		        status == 400             ? "http_request_error" :
		        status == 404             ? "dns_error" :
		        status == 504             ? "connection_timeout" :
		                                    "destination_unavailable";
		char body[512], details[256], param[64] = "";
		int blen = snprintf(body, sizeof body, "toolcage: %s %s:%u: %s\n",
		                    status == 403 ? "refused" : "could not reach",
		                    k->t.host[0] ? k->t.host : "(unknown host)", k->t.port, why);
		if (blen < 0 || blen >= (int)sizeof body)
			blen = (int)sizeof body - 1;
		size_t d = 0; /* why as an sf-string: printable ASCII, \ and " escaped */
		for (const char *c = why; *c && d + 3 < sizeof details; c++)
			if (*c >= 0x20 && *c < 0x7f) {
				if (*c == '"' || *c == '\\')
					details[d++] = '\\';
				details[d++] = *c;
			}
		details[d] = '\0';
		/* The class as a token a client reads (http_fetch, through
		 * refusal_status_parse), before details, which may be cut. */
		if (refusal != REFUSAL_NONE)
			snprintf(param, sizeof param, "; " REFUSAL_PARAM "=%s",
			         refusal_token(refusal));
		n = snprintf(text, sizeof text,
		             "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
		             "Proxy-Status: toolcage; error=%s%s; details=\"%s\"\r\n"
		             "Content-Length: %d\r\nConnection: close\r\n\r\n%.*s",
		             code, title, error, param, details, blen, blen, body);
		if (n < 0 || n >= (int)sizeof text)
			n = 0;
	} else if (k->kind == SBX_LISTEN_SOCKS) {
		uint8_t rep = status == 403 ? NP_SOCKS_NOT_ALLOWED :
		        status == 400       ? NP_SOCKS_FAILURE :
		        status == 404       ? NP_SOCKS_HOST_UNREACHABLE :
		                              NP_SOCKS_REFUSED;
		n = (int)np_socks_reply(rep, (uint8_t *)text);
	}
	drain_and_close(k, text, (size_t)n);
}

static const char *host_or_none(const struct egress_conn *k)
{
	return k->t.host[0] ? k->t.host : "(no host name)";
}

/* Refused (decision 1) or failed on the way (2), for why (static text). */
static void refuse(struct egress_conn *k, int decision, int status, const char *why,
                   const struct sockaddr *addr)
{
	if (k->rq)
		resolve_cancel(k->rq);
	k->rq = NULL;
	egress_record(k->call, host_or_none(k), k->t.port, k->via, decision, why, addr, 0, 0);
	k->recorded = true;
	reply_refusal(k, status, REFUSAL_NONE, why);
}

/* Refused by a rule of the policy: refusal says which. */
static void refuse_as(struct egress_conn *k, enum refusal_class refusal,
                      const struct sockaddr *addr)
{
	if (k->rq)
		resolve_cancel(k->rq);
	k->rq = NULL;
	egress_record_refusal(k->call, host_or_none(k), k->t.port, k->via, refusal, addr);
	k->recorded = true;
	reply_refusal(k, 403, refusal, refusal_reason(refusal));
}

/* ---- relay ------------------------------------------------------------------ */

static uint64_t left(uint64_t cap, uint64_t used)
{
	return used >= cap ? 0 : cap - used;
}

/* How many of the client's next n bytes (at p) belong to its one request,
 * req_done set when it ends within them; -1 when its chunked body is
 * malformed. */
static ssize_t request_part(struct egress_conn *k, const uint8_t *p, size_t n)
{
	if (k->req_done)
		return 0;
	if (k->chunked) {
		bool done;
		ssize_t used = np_chunked_scan(&k->ch, p, n, &done);
		k->req_done = used >= 0 && done;
		return used;
	}
	size_t take = n < k->body_left ? n : (size_t)k->body_left;
	k->body_left -= take;
	k->req_done = !k->body_left;
	return (ssize_t)take;
}

/* The client's bytes of its one request into the pipe, at most want:
 * spliced for a counted body, copied through a scan of a chunked one.
 * What splice returns: > 0 bytes moved, 0 the client's end, -1 and errno. */
static ssize_t feed_request(struct egress_conn *k, int src, struct chan *dst, size_t want)
{
	if (!k->chunked) {
		if (want > k->body_left)
			want = (size_t)k->body_left;
		ssize_t n = chan_in(dst, src, want);
		if (n > 0)
			request_part(k, NULL, (size_t)n);
		return n;
	}
	uint8_t buf[4096];
	if (want > sizeof buf)
		want = sizeof buf;
	ssize_t n = recv(src, buf, want, MSG_PEEK | MSG_DONTWAIT);
	if (n <= 0)
		return n;
	struct np_chunked ahead = k->ch;
	bool done;
	ssize_t used = np_chunked_scan(&ahead, buf, (size_t)n, &done);
	if (used < 0) {
		k->end_why = "a malformed chunked request body";
		errno = EPROTO;
		return -1;
	}
	ssize_t w = used ? chan_write(dst, buf, (size_t)used) : 0;
	if (w < 0)
		return -1;
	/* What went into the pipe is taken from the socket and the scan. */
	request_part(k, buf, (size_t)w);
	if (w && recv(src, buf, (size_t)w, MSG_DONTWAIT) != w)
		return -1;
	if (!w) {
		errno = EAGAIN;
		return -1;
	}
	return w;
}

static int plain_request(struct egress_conn *k, struct np_http *h, const char **why);

/* An address our DNS gave (a client that resolved the name itself, then
 * named the address: socks5 without h, a URL or a Host header holding
 * it) stands for its name: host becomes the name. */
static void name_given_address(const struct egress_call *c, char host[NP_HOST_MAX + 1])
{
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	const char *named = inet_pton(AF_INET, host, &a4.sin_addr) == 1 ?
	        egress_name_of(c, (struct sockaddr *)&a4) :
	        NULL;
	if (named)
		snprintf(host, NP_HOST_MAX + 1, "%s", named);
}

enum { TUNNEL_MORE, TUNNEL_RAW, TUNNEL_REQUEST, TUNNEL_REFUSED };

/* A tunnel's first bytes that are an HTTP/1 request (a SOCKS client's
 * http:// URL, or a CONNECT to port 80): a server that serves several
 * sites routes it by its Host header as it routes a request to port 80, so
 * it is held to what a plain request is held to. Its Host, when it names
 * one, must be the tunnel's host, and it is the tunnel's one request: sent
 * as a plain request is (Host the tunnel's, Connection: close), what the
 * client sends after it dropped, since a second request could name
 * another host. TUNNEL_REQUEST: to_upstream holds it. */
static int tunnel_request(struct egress_conn *k, bool eof)
{
	size_t skip;
	int rc = np_http_sniff(k->head, k->head_len, &skip);
	if (rc == NP_MORE && !eof)
		return TUNNEL_MORE;
	if (rc != NP_OK)
		return TUNNEL_RAW;
	/* The empty lines before it are a server's to skip, and ours. */
	memmove(k->head, k->head + skip, k->head_len - skip);
	k->head_len -= skip;
	struct np_http h;
	const char *why;
	rc = np_http_parse_tunneled((const char *)k->head, k->head_len, &h, &why);
	if (rc == NP_MORE && !eof)
		return TUNNEL_MORE;
	if (rc != NP_OK) {
		k->end_why = "a malformed HTTP request in the tunnel";
		return TUNNEL_REFUSED;
	}
	name_given_address(k->call, h.host);
	if (h.has_host && strcmp(h.host, k->t.host)) {
		k->end_why = "the HTTP request in the tunnel names another host";
		return TUNNEL_REFUSED;
	}
	if (plain_request(k, &h, &why) != NP_OK) {
		k->end_why = "a malformed HTTP request in the tunnel";
		return TUNNEL_REFUSED;
	}
	return TUNNEL_REQUEST;
}

/* A tunnel's first bytes from the client, into head: when they are a TLS
 * ClientHello, its server name must be the tunnel's host (or none), else
 * a server that routes by the name (a CDN) would take the tunnel to a
 * site the policy never saw; when they are an HTTP request, its Host
 * likewise (tunnel_request). Then they go into the pipe and the rest is
 * relayed as it comes. 1 progress, 0 none, -1 the end. */
static int feed_hello(struct egress_conn *k, int src, bool *eof)
{
	struct egress_call *c = k->call;
	int progress = 0;
	if (k->head_len < NP_HEAD_MAX) {
		ssize_t n =
		        recv(src, k->head + k->head_len, NP_HEAD_MAX - k->head_len, MSG_DONTWAIT);
		if (n > 0) {
			k->head_len += (size_t)n;
			progress = 1;
		} else if (n == 0) {
			*eof = true;
			progress = 1;
		} else if (errno != EAGAIN && errno != EINTR) {
			return -1;
		}
	}
	if (!k->head_len && !*eof)
		return progress;
	if (k->head_len && k->head[0] == 22) { /* a TLS handshake record */
		char sni[NP_HOST_MAX + 1];
		const char *why;
		int rc = np_tls_sni(k->head, k->head_len, sni, &why);
		if (rc == NP_MORE && !*eof)
			return progress;
		if (rc != NP_OK) {
			k->end_why = "a TLS hello in the tunnel that could not be read";
			return -1;
		}
		if (sni[0] && strcmp(sni, k->t.host)) {
			k->end_why = "the TLS server name in the tunnel names another host";
			return -1;
		}
	}
	const uint8_t *first = k->head;
	size_t len = k->head_len;
	if (k->head_len && k->head[0] != 22) {
		switch (tunnel_request(k, *eof)) {
		case TUNNEL_MORE: return progress;
		case TUNNEL_REFUSED: return -1;
		case TUNNEL_REQUEST:
			first = (const uint8_t *)k->to_upstream;
			len = k->to_upstream_len;
			break;
		default: break;
		}
	}
	if (len > left(c->e->policy->max_bytes_out, c->bytes_out)) {
		k->end_why = "the call's cap on bytes sent is reached";
		return -1;
	}
	if (!chan_put(&k->cu, first, len))
		return -1;
	k->out += len;
	c->bytes_out += len;
	free(k->to_upstream);
	k->to_upstream = NULL;
	k->to_upstream_len = 0;
	k->hello_check = false;
	free(k->head);
	k->head = NULL;
	k->head_len = 0;
	return 1;
}

/* Moves what can move without blocking, one direction: src -> ch -> dst.
 * Returns 1 on progress, 0 on none, -1 when the connection must end. */
static int move(struct egress_conn *k, int src, int dst, struct chan *ch, bool *eof, bool *done,
                uint64_t *count, uint64_t *call_count, uint64_t cap, const char *cap_why)
{
	int progress = 0;
	bool framed = k->one_request && ch == &k->cu;
	if (!*eof && src >= 0 && ch == &k->cu && k->hello_check) {
		progress = feed_hello(k, src, eof);
		if (progress < 0)
			return -1;
		goto out;
	}
	if (!*eof && src >= 0 && framed && k->req_done) {
		/* Its one request is out: what follows is read and dropped. */
		char sink[4096];
		ssize_t n = recv(src, sink, sizeof sink, MSG_DONTWAIT);
		if (n > 0) {
			progress = 1;
		} else if (n == 0) {
			*eof = true;
			progress = 1;
		} else if (errno != EAGAIN && errno != EINTR) {
			return -1;
		}
		goto out;
	}
	if (!*eof && src >= 0 && ch->fill < ch->cap) {
		uint64_t room = left(cap, *call_count);
		size_t want = ch->cap - ch->fill;
		if (room == 0) {
			/* At the cap: an end is still an end, more is the cap. */
			char b;
			ssize_t more = recv(src, &b, 1, MSG_PEEK | MSG_DONTWAIT);
			if (more > 0) {
				k->end_why = cap_why;
				return -1;
			}
			if (more < 0 && errno != EAGAIN && errno != EINTR)
				return -1;
			if (more == 0) {
				*eof = true;
				progress = 1;
			}
			goto out;
		}
		if (want > room)
			want = (size_t)room;
		ssize_t n = framed ? feed_request(k, src, ch, want) : chan_in(ch, src, want);
		if (n > 0) {
			chan_grow(ch);
			*count += (uint64_t)n;
			*call_count += (uint64_t)n;
			progress = 1;
		} else if (n == 0) {
			*eof = true;
			progress = 1;
		} else if (errno != EAGAIN && errno != EINTR) {
			return -1;
		}
	}
out:
	if (ch->fill && dst >= 0) {
		ssize_t n = chan_out(ch, dst);
		if (n > 0) {
			progress = 1;
		} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
			return -1;
		}
	}
	if (*eof && !ch->fill && !*done && dst >= 0) {
		shutdown(dst, SHUT_WR);
		*done = true;
		progress = 1;
	}
	return progress;
}

static void pump(struct egress_conn *k)
{
	const struct netpol *p = k->call->e->policy;
	struct egress_call *c = k->call;
	if (k->state == CS_DRAIN) {
		uint64_t none = 0, unused = 0;
		bool eof = true, done = true;
		if (k->uc.fill &&
		    move(k, -1, k->cfd, &k->uc, &eof, &done, &none, &unused, UINT64_MAX, NULL) <
		            0) {
			conn_close(k);
			return;
		}
		if (k->uc.fill)
			return;
		/* The answer is out: end our side, and read what the client
		 * still sends (a request body) until it closes or the drain's
		 * timer ends it; closing on unread bytes would reset the
		 * connection and could take the answer with it. */
		if (!k->uc_done) {
			shutdown(k->cfd, SHUT_WR);
			k->uc_done = true;
			watch(k, EPOLLIN, 0);
		}
		char sink[4096];
		for (int i = 0; i < 16; i++) {
			ssize_t n = recv(k->cfd, sink, sizeof sink, MSG_DONTWAIT);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				return;
			if (n <= 0) {
				conn_close(k);
				return;
			}
		}
		return;
	}
	for (int round = 0; round < 16; round++) {
		int a = move(k, k->cfd, k->ufd, &k->cu, &k->c_eof, &k->cu_done, &k->out,
		             &c->bytes_out, p->max_bytes_out,
		             "the call's cap on bytes sent is reached");
		int b = a < 0 ? -1 :
		                move(k, k->ufd, k->cfd, &k->uc, &k->u_eof, &k->uc_done, &k->in,
		                     &c->bytes_in, p->max_bytes_in,
		                     "the call's cap on bytes received is reached");
		if (a < 0 || b < 0 || (k->cu_done && k->uc_done)) {
			conn_close(k);
			return;
		}
		if (!a && !b)
			break;
	}
	watch(k, (!k->c_eof && k->cu.fill < k->cu.cap ? EPOLLIN : 0) | (k->uc.fill ? EPOLLOUT : 0),
	      (!k->u_eof && k->uc.fill < k->uc.cap ? EPOLLIN : 0) | (k->cu.fill ? EPOLLOUT : 0));
}

static void connected(struct egress_conn *k)
{
	set_timer(k, 0, NULL);
	int one = 1;
	setsockopt(k->ufd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct egress_call *c = k->call;
	if (k->hello_check) {
		/* Held until feed_hello has read the hello. */
		if (k->to_upstream_len)
			memmove(k->head, k->to_upstream, k->to_upstream_len);
		k->head_len = k->to_upstream_len;
		k->to_upstream_len = 0;
	}
	/* What the client sent before we connected counts against its cap. */
	if (k->to_upstream_len > left(c->e->policy->max_bytes_out, c->bytes_out)) {
		k->state = CS_RELAY;
		k->end_why = "the call's cap on bytes sent is reached";
		conn_close(k);
		return;
	}
	if (!chan_put(&k->uc, k->success, k->success_len) ||
	    !chan_put(&k->cu, k->to_upstream, k->to_upstream_len)) {
		refuse(k, 2, 502, "out of buffer space", NULL);
		return;
	}
	k->out += k->to_upstream_len;
	c->bytes_out += k->to_upstream_len;
	free(k->to_upstream);
	k->to_upstream = NULL;
	if (!k->hello_check) {
		free(k->head);
		k->head = NULL;
	}
	k->state = CS_RELAY;
	if (loop_add_fd(loop_of(k), k->ufd, 0, on_upstream, k) < 0) {
		conn_close(k);
		return;
	}
	k->u_ev = 0;
	pump(k);
}

/* ---- connect ------------------------------------------------------------------ */

static const char *connect_why(int err)
{
	switch (err) {
	case ECONNREFUSED: return "the server refused the connection";
	case ETIMEDOUT: return "the connection timed out";
	case ENETUNREACH:
	case EHOSTUNREACH: return "no route to the server";
	default: return "the connection failed";
	}
}

static void connect_next(struct egress_conn *k);

/* A connection that stays on this host (to a loopback address or one of
 * the host's own, which the kernel routes over the loopback device, a
 * policy having allowed it) takes the congestion control reno, as every
 * connection in a tool's namespace does (sandbox/netns.c): a loopback has
 * no link to pace for, and a host whose default paces (bbr, without an
 * fq qdisc) would time each of the proxy's sends with a timer of the
 * socket's own, which halved what the proxy carried on a paravirtualized
 * guest (docs/performance.md). A connection that leaves the host keeps
 * the host's choice. reno is the one choice every socket may make; where
 * it is refused all the same, the connection is as it was, paced. */
static void unpace_if_local(struct egress_conn *k, const struct sockaddr *a)
{
	static const char reno[] = "reno";
	if (netpol_on_this_host(egress_own(k->call->e), a))
		(void)setsockopt(k->ufd, IPPROTO_TCP, TCP_CONGESTION, reno, sizeof reno - 1);
}

static void on_attempt_timeout(struct loop *l, void *data)
{
	(void)l;
	struct egress_conn *k = data;
	k->timer = NULL;
	k->last_errno = ETIMEDOUT;
	loop_del_fd(loop_of(k), k->ufd);
	close_fd(&k->ufd);
	k->next_addr++;
	connect_next(k);
}

static void connect_next(struct egress_conn *k)
{
	for (; k->next_addr < k->n_addrs; k->next_addr++) {
		struct sockaddr_storage *a = &k->addrs[k->next_addr];
		socklen_t len = a->ss_family == AF_INET ? sizeof(struct sockaddr_in) :
		                                          sizeof(struct sockaddr_in6);
		k->ufd = socket(a->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (k->ufd < 0) {
			k->last_errno = errno;
			continue;
		}
		unpace_if_local(k, (const struct sockaddr *)a);
		if (connect(k->ufd, (struct sockaddr *)a, len) == 0) {
			connected(k);
			return;
		}
		if (errno == EINPROGRESS &&
		    loop_add_fd(loop_of(k), k->ufd, EPOLLOUT, on_upstream, k) == 0) {
			k->u_ev = EPOLLOUT;
			k->state = CS_CONNECT;
			/* Another address is tried after a few seconds; the last one
			 * gets the rest of the policy's connect timeout. */
			set_timer(k,
			          k->next_addr + 1 < k->n_addrs ?
			                  ATTEMPT_MS :
			                  k->call->e->policy->connect_timeout_ms,
			          on_attempt_timeout);
			return;
		}
		k->last_errno = errno;
		close_fd(&k->ufd);
	}
	k->next_addr = 0;
	refuse(k, 2, k->last_errno == ETIMEDOUT ? 504 : 502, connect_why(k->last_errno),
	       (struct sockaddr *)&k->addrs[0]);
}

static void on_upstream(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)l;
	(void)fd;
	struct egress_conn *k = data;
	if (k->state == CS_CONNECT) {
		int err = 0;
		socklen_t len = sizeof err;
		if (getsockopt(k->ufd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			err = errno;
		if (!err) {
			k->u_ev = 0;
			loop_del_fd(loop_of(k), k->ufd);
			connected(k);
			return;
		}
		k->last_errno = err;
		loop_del_fd(loop_of(k), k->ufd);
		close_fd(&k->ufd);
		k->next_addr++;
		connect_next(k);
		return;
	}
	(void)events;
	pump(k);
}

/* ---- resolve ---------------------------------------------------------------- */

static void on_connect_timeout(struct loop *l, void *data)
{
	(void)l;
	struct egress_conn *k = data;
	k->timer = NULL;
	refuse(k, 2, 504, "the name did not resolve in time", NULL);
}

static void on_resolved(void *ctx, int status, const struct sockaddr_storage *addrs, size_t n,
                        const char *why)
{
	struct egress_conn *k = ctx;
	k->rq = NULL;
	if (status < 0) {
		refuse(k, 2, 404, why, NULL);
		return;
	}
	const struct netpol_own *own = egress_own(k->call->e);
	enum refusal_class first_why = REFUSAL_NONE;
	const struct sockaddr_storage *first = NULL;
	k->n_addrs = 0;
	for (size_t i = 0; i < n; i++) {
		enum refusal_class w;
		if (netpol_check_address(k->call->e->policy, own,
		                         (const struct sockaddr *)&addrs[i], &w) == 0) {
			k->addrs[k->n_addrs] = addrs[i];
			struct sockaddr_storage *a = &k->addrs[k->n_addrs++];
			if (a->ss_family == AF_INET)
				((struct sockaddr_in *)a)->sin_port = htons(k->t.port);
			else
				((struct sockaddr_in6 *)a)->sin6_port = htons(k->t.port);
		} else if (!first) {
			first = &addrs[i];
			first_why = w;
		}
	}
	if (!k->n_addrs) {
		refuse_as(k, first_why, (const struct sockaddr *)first);
		return;
	}
	k->next_addr = 0;
	connect_next(k);
}

static void resolve(struct egress_conn *k)
{
	struct sockaddr_storage lit;
	memset(&lit, 0, sizeof lit);
	struct sockaddr_in *a4 = (struct sockaddr_in *)&lit;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&lit;
	set_timer(k, k->call->e->policy->connect_timeout_ms, on_connect_timeout);
	k->state = CS_RESOLVE;
	if (inet_pton(AF_INET, k->t.host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		on_resolved(k, 0, &lit, 1, NULL);
	} else if (inet_pton(AF_INET6, k->t.host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		on_resolved(k, 0, &lit, 1, NULL);
	} else if (!(k->rq = resolve_lookup(k->call->e->resolver, k->t.host, on_resolved, k))) {
		refuse(k, 2, 502, "out of memory", NULL);
	}
}

/* ---- decide ------------------------------------------------------------------ */

static void on_ask_timeout(struct loop *l, void *data)
{
	(void)l;
	struct egress_conn *k = data;
	k->timer = NULL;
	struct egress *e = k->call->e;
	if (k->ask && e->hooks.cancel)
		e->hooks.cancel(e->hooks.data, k->ask);
	k->ask = NULL;
	refuse_as(k, REFUSAL_APPROVER_SILENT, NULL);
}

static void on_answer(void *ctx, bool allow, bool session, const char *who)
{
	(void)who;
	struct egress_conn *k = ctx;
	k->ask = NULL;
	k->answered = true;
	k->answer_allow = allow;
	if (allow && session)
		egress_grant(k->call->e, k->call->session, k->t.host, k->t.port);
	if (k->asking)
		return; /* answered before the approver returned: decide() goes on */
	set_timer(k, 0, NULL);
	if (!allow) {
		refuse_as(k, REFUSAL_APPROVER_NO, NULL);
		return;
	}
	k->allow_why = session ? "approved for the session" : "approved once";
	resolve(k);
}

static void decide(struct egress_conn *k)
{
	struct egress_call *c = k->call;
	struct egress *e = c->e;
	if (c->n_total >= e->policy->max_connections) {
		refuse_as(k, REFUSAL_MAX_CONNECTIONS, NULL);
		return;
	}
	c->n_total++;
	name_given_address(c, k->t.host);
	enum refusal_class why;
	enum netpol_verdict v = netpol_check_name(e->policy, k->t.host, k->t.port, &why);
	const char *allow_why = "on the allowlist";
	if (egress_call_allowed(c, k->t.host, k->t.port)) {
		v = NETPOL_ALLOW;
		allow_why = "approved for this call";
	} else if (v == NETPOL_ASK && egress_granted(e, c->session, k->t.host, k->t.port)) {
		v = NETPOL_ALLOW;
		allow_why = "allowed for the session";
	}
	if (v == NETPOL_DENY || (v == NETPOL_ASK && !e->hooks.ask)) {
		refuse_as(k, why, NULL);
		return;
	}

	if (v == NETPOL_ALLOW) {
		k->allow_why = allow_why;
		resolve(k);
		return;
	}
	k->state = CS_ASK;
	set_timer(k, e->policy->ask_timeout_ms, on_ask_timeout);
	k->asking = true;
	void *h = e->hooks.ask(e->hooks.data, c->id, k->t.host, k->t.port, on_answer, k);
	k->asking = false;
	if (!k->answered && h) {
		k->ask = h;
		return;
	}
	set_timer(k, 0, NULL);
	if (!k->answer_allow) {
		refuse_as(k, REFUSAL_APPROVER_NO, NULL);
		return;
	}
	k->allow_why = "approved";
	resolve(k);
}

/* ---- head ----------------------------------------------------------------------- */

static bool take_bytes(struct egress_conn *k, const void *p, size_t n)
{
	free(k->to_upstream);
	k->to_upstream = n ? malloc(n) : NULL;
	if (n && !k->to_upstream)
		return false;
	if (n)
		memcpy(k->to_upstream, p, n);
	k->to_upstream_len = n;
	return true;
}

/* The name of a transparent connection: the one our DNS gave its address,
 * which the Host header or the TLS server name must not contradict; else
 * theirs. A Host that is an address our DNS gave stands for its name (a
 * client that names the address it connected to says the same host). */
static int transparent_name(struct egress_conn *k, const char *said_in)
{
	char said[NP_HOST_MAX + 1];
	snprintf(said, sizeof said, "%s", said_in);
	name_given_address(k->call, said);
	if (k->mapped[0] && said[0] && strcmp(k->mapped, said)) {
		snprintf(k->t.host, sizeof k->t.host, "%s", said);
		refuse(k, 1, 403, "the request names another host than the one it looked up", NULL);
		return -1;
	}
	snprintf(k->t.host, sizeof k->t.host, "%s", k->mapped[0] ? k->mapped : said);
	if (!k->t.host[0]) {
		refuse(k, 1, 403,
		       "no host name (no Host header or TLS server name, and an "
		       "address our DNS did not give)",
		       NULL);
		return -1;
	}
	return 0;
}

/* A plain-HTTP request (h, parsed from the head): what goes upstream is
 * its head rewritten (origin form, Host the name decided on, Connection:
 * close) and what came after the head of its body; the rest is dropped. */
static int plain_request(struct egress_conn *k, struct np_http *h, const char **why)
{
	const uint8_t *extra = k->head + h->head_len;
	/* Sent upstream as the name: the address is ours, no server's. */
	name_given_address(k->call, k->t.host);
	k->one_request = true;
	k->chunked = h->chunked;
	k->body_left = h->content_length;
	ssize_t body = request_part(k, extra, k->head_len - h->head_len);
	if (body < 0)
		return *why = "a malformed chunked request body", NP_BAD;
	h->target = k->t;
	/* The head grows by a Host and a Connection line at most; with the
	 * body that came along, within the head's bound. */
	size_t size = NP_HEAD_MAX + 512;
	char *buf = malloc(size);
	ssize_t n = buf ? np_http_rewrite((char *)k->head, h, buf, size - (size_t)body) : -1;
	if (n < 0) {
		*why = buf ? "the request head is too long" : "out of memory";
		free(buf);
		return NP_BAD;
	}
	memcpy(buf + n, extra, (size_t)body);
	free(k->to_upstream);
	k->to_upstream = buf;
	k->to_upstream_len = (size_t)n + (size_t)body;
	return NP_OK;
}

/* NP_OK: the destination is known and the bytes to send are set. */
static int parse_head(struct egress_conn *k, const char **why, int *status)
{
	int rc;
	*status = 400;
	switch (k->kind) {
	case SBX_LISTEN_HTTP_PROXY: {
		struct np_http h;
		if ((rc = np_http_parse((char *)k->head, k->head_len, true, &h, why)) != NP_OK)
			return rc;
		k->t = h.target;
		const uint8_t *extra = k->head + h.head_len;
		size_t nextra = k->head_len - h.head_len;
		if (h.connect) {
			k->success = connect_ok;
			k->hello_check = true;
			k->success_len = sizeof connect_ok - 1;
			return take_bytes(k, extra, nextra) ? NP_OK :
			                                      (*why = "out of memory", NP_BAD);
		}
		return plain_request(k, &h, why);
	}
	case SBX_LISTEN_SOCKS: {
		size_t used;
		if (!k->socks_used) {
			bool no_auth;
			if ((rc = np_socks_greeting(k->head, k->head_len, &used, &no_auth, why)) !=
			    NP_OK)
				return rc;
			const uint8_t reply[2] = { 5, no_auth ? 0 : 0xff };
			if (send(k->cfd, reply, 2, MSG_DONTWAIT | MSG_NOSIGNAL) != 2 || !no_auth) {
				*status = 0;
				return *why = "a SOCKS client that wants authentication", NP_BAD;
			}
			k->socks_used = used;
		}
		uint8_t cmd, reply;
		rc = np_socks_request(k->head + k->socks_used, k->head_len - k->socks_used, &used,
		                      &cmd, &k->t, &reply, why);
		if (rc != NP_OK)
			return rc;
		if (cmd != 1) {
			*why = "a SOCKS command other than CONNECT";
			return NP_BAD;
		}
		k->success = (const char *)socks_ok_reply;
		k->hello_check = true;
		k->success_len = sizeof socks_ok_reply;
		size_t off = k->socks_used + used;
		return take_bytes(k, k->head + off, k->head_len - off) ?
		        NP_OK :
		        (*why = "out of memory", NP_BAD);
	}
	case SBX_LISTEN_HTTP: {
		struct np_http h;
		if ((rc = np_http_parse((char *)k->head, k->head_len, false, &h, why)) != NP_OK)
			return rc;
		*status = -1;
		k->t.port = 80;
		if (transparent_name(k, h.host) < 0)
			return NP_BAD;
		*status = 400;
		return plain_request(k, &h, why);
	}
	default: {
		char sni[NP_HOST_MAX + 1];
		if ((rc = np_tls_sni(k->head, k->head_len, sni, why)) != NP_OK)
			return rc;
		*status = -1;
		k->t.port = 443;
		if (transparent_name(k, sni) < 0)
			return NP_BAD;
		return take_bytes(k, k->head, k->head_len) ? NP_OK :
		                                             (*why = "out of memory", NP_BAD);
	}
	}
}

static void on_head_timeout(struct loop *l, void *data)
{
	(void)l;
	struct egress_conn *k = data;
	k->timer = NULL;
	k->end_why = "no request within the head's deadline";
	conn_close(k);
}

static void read_head(struct egress_conn *k)
{
	ssize_t n = recv(k->cfd, k->head + k->head_len, NP_HEAD_MAX - k->head_len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(k);
		return;
	}
	k->head_len += (size_t)n;
	const char *why = NULL;
	int status;
	int rc = parse_head(k, &why, &status);
	if (rc == NP_MORE)
		return;
	if (rc == NP_BAD) {
		if (status < 0)
			return; /* refused and recorded already */
		if (status == 0) {
			k->end_why = why;
			conn_close(k);
			return;
		}
		egress_record(k->call, "(malformed request)", 0, k->via, 1, why, NULL, 0, 0);
		k->recorded = true;
		reply_refusal(k, status, REFUSAL_NONE, why);
		return;
	}
	watch(k, 0, 0); /* nothing more is read until it is decided */
	decide(k);
}

static void on_client(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)l;
	(void)fd;
	struct egress_conn *k = data;
	switch (k->state) {
	case CS_HEAD: read_head(k); return;
	case CS_ASK:
	case CS_RESOLVE:
	case CS_CONNECT:
		/* Not watched for input now: only a hangup or error comes. */
		if (events & (EPOLLHUP | EPOLLERR))
			conn_close(k);
		return;
	case CS_RELAY:
	case CS_DRAIN: pump(k); return;
	}
}

void egress_conn_start(struct egress_call *c, enum sbx_listener kind, int fd)
{
	static const enum egress_via vias[] = {
		[SBX_LISTEN_HTTP_PROXY] = VIA_HTTP_PROXY,
		[SBX_LISTEN_SOCKS] = VIA_SOCKS,
		[SBX_LISTEN_HTTP] = VIA_HTTP,
		[SBX_LISTEN_TLS] = VIA_TLS,
	};
	struct egress_conn *k = calloc(1, sizeof *k);
	if (k)
		k->head = malloc(NP_HEAD_MAX);
	if (!k || !k->head) {
		if (k)
			free(k);
		close(fd);
		egress_conn_closed(c);
		return;
	}
	k->call = c;
	k->kind = kind;
	k->via = vias[kind];
	k->cfd = fd;
	k->ufd = -1;
	k->cu.p[0] = k->cu.p[1] = k->uc.p[0] = k->uc.p[1] = -1;
	k->next = c->conns;
	if (c->conns)
		c->conns->prev = k;
	c->conns = k;
	struct sockaddr_storage local = { 0 };
	socklen_t len = sizeof local;
	if (getsockname(fd, (struct sockaddr *)&local, &len) == 0) {
		k->listen_port = sockaddr_port((struct sockaddr *)&local);
		const char *name = kind == SBX_LISTEN_HTTP || kind == SBX_LISTEN_TLS ?
		        egress_name_of(c, (struct sockaddr *)&local) :
		        NULL;
		if (name)
			snprintf(k->mapped, sizeof k->mapped, "%s", name);
	}
	if (!k->listen_port && kind == SBX_LISTEN_HTTP_PROXY) /* a handed connection */
		k->listen_port = SBX_EGRESS_HTTP_PROXY_PORT;
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (!chan_open(&k->cu, &k->uc)) {
		k->end_why = "out of memory";
		conn_close(k);
		return;
	}
	if (loop_add_fd(c->e->loop, fd, EPOLLIN, on_client, k) < 0) {
		k->end_why = "the event loop could not watch it";
		conn_close(k);
		return;
	}
	k->c_ev = EPOLLIN;
	set_timer(k, c->e->policy->head_timeout_ms, on_head_timeout);
}
