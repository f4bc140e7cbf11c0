/* mcp_http_socket.c — each connection of the HTTP transport from its
 * opening to its close: whose it is (mcp_http_peer.c, on loopback without
 * a token) and the deadline for its request headers.
 *
 * libmicrohttpd closes a connection only when nothing moved on it for
 * HTTP_CONNECTION_TIMEOUT_S, and has no deadline for a request's headers:
 * a client that sends half a request line and then a byte every few
 * seconds (slowloris) would hold its slot for as long as it likes, and
 * HTTP_CONNECTIONS_PER_IP such connections from one address (or
 * HTTP_CONNECTIONS_MAX from two) keep every other client out, the one with
 * the token too. So a request's headers must all be in within
 * HTTP_HEADERS_DEADLINE_S: a connection is noted as it opens, leaves the
 * watch when the request handler is first called for its request (the
 * headers are in; authentication decides from there), and housekeeping
 * shuts down (SHUT_RDWR) the ones still waiting at their deadline;
 * libmicrohttpd then reads the end and closes them itself, so no
 * descriptor is closed behind its back.
 *
 * Kept-alive connections: once a response went out whole, a connection
 * waiting for its next request is idle, not slow, and only the idle
 * timeout applies to it (a client's pool keeps such connections, and
 * ending them at the header deadline would cost it a reconnect, or a
 * failed request when it sends one as we end it). But a request begun on
 * it must have its headers in within the deadline too, or one quick
 * request would buy a connection an endless trickle: the kernel counts
 * the bytes a TCP connection received (TCP_INFO's tcpi_bytes_received,
 * Linux 4.1), so each tick compares an idle connection's count with the
 * one noted when its last response completed, and the first byte of a
 * next request starts its deadline (within a tick of its arrival). Where
 * the count is not available, the deadline starts as the response
 * completes. A connection whose request is being served (a body being
 * read, an SSE stream waiting for events, a call running) is past its
 * headers: the deadline never ends it.
 *
 * Cost: one small allocation per open connection (at most
 * HTTP_CONNECTIONS_MAX, in libmicrohttpd's socket_context), O(1) as a
 * connection opens, is served and closes; each tick walks the connections
 * past their deadline (the list is in deadline order) and one getsockopt
 * per kept-alive idle connection. Ended connections reach stderr: the
 * first of a window alone, the rest counted in one line per
 * HTTP_REFUSAL_SUMMARY_MS, so a client that opens thousands costs the log
 * two lines per window.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "mcp_http.h"
#include "url.h"

enum socket_phase {
	SOCKET_HEADERS, /* its request's headers are still to come: in awaiting */
	SOCKET_REQUEST, /* past its headers, being served */
	SOCKET_IDLE,    /* kept alive between requests: in idle */
	SOCKET_ENDED,   /* shut down for its late headers: closing */
};

/* One connection's state, its socket_context. */
struct http_socket {
	int fd;       /* libmicrohttpd's, never closed here */
	bool foreign; /* counted in h->foreign_conns */
	enum socket_phase phase;
	int64_t deadline_ms; /* SOCKET_HEADERS: when its headers must be in */
	uint64_t received;   /* SOCKET_IDLE: its bytes received when it became idle */
	struct http_socket *next, *prev;
};

/* The bytes the kernel received on the TCP connection fd so far. */
static int bytes_received(int fd, uint64_t *n)
{
	struct tcp_info ti;
	socklen_t len = sizeof ti;
	memset(&ti, 0, sizeof ti);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return -errno;
	if (len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof ti.tcpi_bytes_received)
		return -ENOSYS; /* before Linux 4.1 */
	*n = ti.tcpi_bytes_received;
	return 0;
}

static void unlink_socket(struct http_sockets *ss, struct http_socket *s)
{
	struct http_socket **head;
	if (s->phase == SOCKET_HEADERS)
		head = &ss->awaiting;
	else if (s->phase == SOCKET_IDLE)
		head = &ss->idle;
	else
		return;
	if (s->prev)
		s->prev->next = s->next;
	else
		*head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	else if (s->phase == SOCKET_HEADERS)
		ss->awaiting_tail = s->prev;
	s->next = s->prev = NULL;
}

/* s (in no list) waits for its request's headers from now: at the tail,
 * where every deadline before it is earlier or equal. */
static void await_headers(struct http_sockets *ss, struct http_socket *s, int64_t now)
{
	s->phase = SOCKET_HEADERS;
	s->deadline_ms = now + (int64_t)HTTP_HEADERS_DEADLINE_S * 1000;
	s->next = NULL;
	s->prev = ss->awaiting_tail;
	if (ss->awaiting_tail)
		ss->awaiting_tail->next = s;
	else
		ss->awaiting = s;
	ss->awaiting_tail = s;
}

static void go_idle(struct http_sockets *ss, struct http_socket *s, uint64_t received)
{
	s->phase = SOCKET_IDLE;
	s->received = received;
	s->prev = NULL;
	s->next = ss->idle;
	if (ss->idle)
		ss->idle->prev = s;
	ss->idle = s;
}

static struct http_socket *socket_of(struct http_server *h, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
	        h->api->get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

void http_on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                        enum MHD_ConnectionNotificationCode toe)
{
	struct http_server *h = cls;
	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		struct http_socket *s = *socket_context;
		if (s) {
			unlink_socket(&h->sockets, s);
			if (s->foreign)
				http_peer_closed(h);
			free(s);
		}
		*socket_context = NULL;
		return;
	}
	if (toe != MHD_CONNECTION_NOTIFY_STARTED)
		return;
	const union MHD_ConnectionInfo *ci =
	        h->api->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci)
		return;
	struct http_socket *s = calloc(1, sizeof *s);
	if (!s) {
		/* Without its state its headers would have no deadline. */
		shutdown(ci->connect_fd, SHUT_RDWR);
		return;
	}
	s->fd = ci->connect_fd;
	int peer = http_peer_opened(h, s->fd);
	if (peer < 0) { /* ended: nothing more to watch */
		free(s);
		return;
	}
	s->foreign = peer > 0;
	await_headers(&h->sockets, s, io_now_ms());
	*socket_context = s;
}

void http_socket_request(struct http_server *h, struct MHD_Connection *c)
{
	struct http_socket *s = socket_of(h, c);
	if (!s || s->phase == SOCKET_ENDED)
		return;
	unlink_socket(&h->sockets, s);
	s->phase = SOCKET_REQUEST;
}

void http_socket_completed(struct http_server *h, struct MHD_Connection *c, bool ok)
{
	struct http_socket *s = socket_of(h, c);
	/* Not ok: the connection closes (its close comes next). */
	if (!s || s->phase != SOCKET_REQUEST || !ok)
		return;
	uint64_t n = 0;
	if (bytes_received(s->fd, &n) == 0)
		go_idle(&h->sockets, s, n);
	else
		await_headers(&h->sockets, s, io_now_ms());
}

/* s was ended for its late headers: the first of a window to stderr
 * alone, the rest counted for the window's summary. */
static void report(struct http_sockets *ss, const struct http_socket *s, int64_t now)
{
	ss->ended_total++;
	if (ss->ended++)
		return;
	ss->window_start_ms = now;
	char peer[SOCKADDR_TEXT_MAX] = "?";
	struct sockaddr_storage sa = { 0 };
	socklen_t sl = sizeof sa;
	if (getpeername(s->fd, (struct sockaddr *)&sa, &sl) == 0)
		sockaddr_text((struct sockaddr *)&sa, sockaddr_port((struct sockaddr *)&sa), peer);
	fprintf(stderr,
	        "toolcage serve: connection from %s ended: its request headers were not all in "
	        "within %d s (further ones are counted, one line per %d s)\n",
	        peer, HTTP_HEADERS_DEADLINE_S, HTTP_REFUSAL_SUMMARY_MS / 1000);
}

void http_sockets_tick(struct http_server *h, int64_t now, bool final)
{
	struct http_sockets *ss = &h->sockets;
	bool ended = false;
	for (struct http_socket *s = ss->awaiting, *next; s && s->deadline_ms <= now; s = next) {
		next = s->next;
		unlink_socket(ss, s);
		s->phase = SOCKET_ENDED;
		shutdown(s->fd, SHUT_RDWR);
		report(ss, s, now);
		ended = true;
	}
	for (struct http_socket *s = ss->idle, *next; s; s = next) {
		next = s->next;
		uint64_t n = 0;
		if (bytes_received(s->fd, &n) == 0 && n == s->received)
			continue;
		unlink_socket(ss, s); /* its next request began */
		await_headers(ss, s, now);
	}
	if (ended)
		http_wake(h); /* libmicrohttpd reads their ends */
	if (ss->ended && (final || now - ss->window_start_ms >= HTTP_REFUSAL_SUMMARY_MS)) {
		if (ss->ended > 1)
			fprintf(stderr,
			        "toolcage serve: %" PRIu64 " more connections ended in %" PRId64
			        " s: their request headers were not all in within %d s\n",
			        ss->ended - 1, (now - ss->window_start_ms + 999) / 1000,
			        HTTP_HEADERS_DEADLINE_S);
		ss->ended = 0;
	}
	if (final && ss->ended_total)
		fprintf(stderr,
		        "toolcage serve: %" PRIu64 " connections in all were ended for request "
		        "headers not in within %d s\n",
		        ss->ended_total, HTTP_HEADERS_DEADLINE_S);
}
