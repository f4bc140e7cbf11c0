/* mcp_http_stream.c — Server-Sent Events streams of the HTTP transport.
 *
 * A stream keeps its events as SSE text in a log. The connection serving it
 * takes bytes from the log through a libmicrohttpd content reader; when
 * the log has nothing new the connection is suspended (no busy polling)
 * and woken by the next event. While suspended, libmicrohttpd would not see
 * the client hang up, so we watch the socket ourselves for EPOLLRDHUP.
 *
 * Resumption (revisions 2025-03-26 to 2025-11-25): each event of a legacy
 * stream carries an id "stream-seq". A client whose connection broke sends
 * GET with Last-Event-ID and gets the events after that one on a new
 * connection. The log keeps what was already taken up to HTTP_REPLAY bytes
 * for that; older events are trimmed.
 *
 * Polling (--sse-poll MS, 2025-11-25's "the server may close the
 * connection" after the priming event): a call's stream still without
 * its answer MS ms after its POST is ended on that connection once the
 * events so far are out; the client waits the retry field's time and
 * resumes with GET and Last-Event-ID, and that connection stays open to
 * the answer. For proxies and load balancers that cut long responses;
 * without the option a call's stream is kept open to its answer.
 *
 * Back-pressure: a client that does not read leaves bytes in its log. Past
 * HTTP_STREAM_SOFT unread bytes (or half of HTTP_OUTPUT_MAX in all) the
 * protocol stops sending progress and log messages there; past
 * HTTP_STREAM_HARD (or HTTP_OUTPUT_MAX in all) a result is replaced by a
 * short error. So a stream holds at most about HTTP_STREAM_HARD plus one
 * result, and all streams together about HTTP_OUTPUT_MAX.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "mcp_http.h"

#define HTTP_REPLAY (64u << 10) /* bytes already taken, kept for a resumption */
#define HTTP_BLOCK  (16u << 10) /* what libmicrohttpd asks for at a time */

/* What one connection serving a stream needs. Outlives the stream when the
 * stream is freed first (then st is NULL and the reader ends the reply). */
struct http_conn {
	struct http_server *h;
	struct http_stream *st;
	struct buf prefix; /* written before the log: priming, keep-alive */
	size_t prefix_off;
	bool finished; /* the reader gave the end of the stream */
	bool poll_end; /* --sse-poll: end once the log is out */
};

static size_t out_total(const struct http_server *h)
{
	size_t n = 0;
	for (const struct http_stream *st = h->streams; st; st = st->next)
		n += st->log.len;
	return n;
}

size_t streams_backlog(const struct http_server *h)
{
	return out_total(h);
}

size_t streams_backlog_unread(const struct http_server *h)
{
	size_t n = 0;
	for (const struct http_stream *st = h->streams; st; st = st->next)
		if (st->conn)
			n += st->log.len - st->taken + (st->ended ? 1 : 0);
	return n;
}

struct http_stream *stream_new(struct http_server *h, struct http_session *hs, const json_t *rel,
                               bool resumable)
{
	struct http_stream *st = calloc(1, sizeof *st);
	if (!st)
		return NULL;
	st->h = h;
	st->hs = hs;
	/* The request's id, shared with its call (counted once in what calls
	 * hold: MCP_CALL_ARGS_MAX), never changed. */
	st->rel = json_incref((json_t *)rel);
	st->no = hs ? ++hs->next_stream : ++h->next_stream;
	st->resumable = resumable;
	st->log_seq0 = 1;
	st->conn_fd = -1;
	st->last_event_ms = io_now_ms();
	st->next = h->streams;
	if (h->streams)
		h->streams->prev = st;
	h->streams = st;
	if (hs)
		hs->n_streams++;
	return st;
}

/* ---- waking and watching the connection ------------------------------ */

static void unwatch(struct http_stream *st)
{
	if (st->watching)
		loop_del_fd(st->h->loop, st->conn_fd);
	st->watching = false;
}

static void resume(struct http_stream *st)
{
	if (!st->suspended)
		return;
	unwatch(st);
	st->suspended = false;
	st->h->api->resume_connection(st->conn);
	http_wake(st->h);
}

static void on_hangup(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)l;
	(void)fd;
	(void)events;
	struct http_stream *st = data;
	/* The client closed its end: let libmicrohttpd end the reply now
	 * (the reader answers with an error), not at the next event. */
	st->peer_gone = true;
	resume(st);
}

/* From the reader only (libmicrohttpd allows suspending there). */
static void suspend(struct http_stream *st)
{
	const union MHD_ConnectionInfo *ci =
	        st->h->api->get_connection_info(st->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	st->h->api->suspend_connection(st->conn);
	st->suspended = true;
	st->conn_fd = ci ? ci->connect_fd : -1;
	if (st->conn_fd >= 0 &&
	    loop_add_fd(st->h->loop, st->conn_fd, EPOLLRDHUP, on_hangup, st) == 0)
		st->watching = true;
}

/* ---- the log ------------------------------------------------------------ */

/* Drops whole events from the front that were taken, keeping HTTP_REPLAY
 * bytes of them for a resumption. */
static void trim(struct http_stream *st)
{
	if (st->taken <= HTTP_REPLAY)
		return;
	size_t cut = 0, dropped = 0;
	const char *p = st->log.data;
	while (cut < st->taken - HTTP_REPLAY) {
		const char *end = memmem(p + cut, st->taken - cut, "\n\n", 2);
		if (!end)
			break;
		cut = (size_t)(end - p) + 2;
		dropped++;
	}
	if (!cut)
		return;
	memmove(st->log.data, st->log.data + cut, st->log.len - cut);
	st->log.len -= cut;
	st->log.data[st->log.len] = '\0';
	st->taken -= cut;
	st->log_seq0 += dropped;
	st->events -= dropped;
}

void stream_event(struct http_stream *st, json_t *msg, bool final)
{
	if (!msg || st->ended) {
		json_decref(msg);
		return;
	}
	size_t mark = st->log.len;
	uint64_t seq = st->seq + 1;
	int rc = 0;
	if (st->resumable)
		rc = buf_printf(&st->log, "id: %" PRIu64 "-%" PRIu64 "\n", st->no, seq);
	/* JSON_COMPACT escapes every control character, json_dump_shown the
	 * line separators and bidi controls: one line of data. */
	rc = rc < 0 ? rc : buf_adds(&st->log, "data: ");
	rc = rc < 0 ? rc : json_dump_shown(msg, JSON_COMPACT, &st->log);
	rc = rc < 0 ? rc : buf_add(&st->log, "\n\n", 2);
	json_decref(msg);
	if (rc < 0) {
		st->log.len = mark;
		if (st->log.data)
			st->log.data[mark] = '\0';
		fprintf(stderr, "toolcage serve: out of memory queueing a message\n");
		return;
	}
	st->seq = seq;
	st->events++;
	st->ended = final;
	st->last_event_ms = io_now_ms();
	if (st->conn)
		resume(st);
}

enum mcp_room stream_room(const struct http_stream *st)
{
	size_t unread = st->log.len - st->taken, all = out_total(st->h);
	if (unread > HTTP_STREAM_HARD || all > HTTP_OUTPUT_MAX)
		return MCP_ROOM_FULL;
	if (unread > HTTP_STREAM_SOFT || all > HTTP_OUTPUT_MAX / 2)
		return MCP_ROOM_TIGHT;
	return MCP_ROOM_OK;
}

char *stream_take_json(struct http_stream *st, size_t *len)
{
	if (st->sse || !st->ended || st->events != 1 || st->log_seq0 != 1 || st->taken)
		return NULL;
	const char *d = strstr(st->log.data, "data: ");
	if (!d)
		return NULL;
	d += 6;
	size_t n = st->log.len - (size_t)(d - st->log.data) - 2; /* the "\n\n" */
	char *out = malloc(n + 1);
	if (!out)
		return NULL;
	memcpy(out, d, n);
	out[n] = '\0';
	*len = n;
	return out;
}

/* ---- the connection's reader -------------------------------------------- */

/* The offset of the event boundary at or before off: an event the client
 * got only part of counts as not sent. */
static size_t event_start(const struct http_stream *st, size_t off)
{
	while (off > 0 &&
	       !(off >= 2 && st->log.data[off - 1] == '\n' && st->log.data[off - 2] == '\n'))
		off--;
	return off;
}

/* st's connection is done with it (hc is being freed, or st is). */
static void conn_gone(struct http_stream *st, bool delivered)
{
	if (!delivered)
		st->taken = event_start(st, st->taken);
	unwatch(st);
	st->suspended = false;
	st->conn = NULL;
	st->hc = NULL;
	st->orphan_since = io_now_ms();
	http_stream_closed(st, delivered);
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	(void)pos;
	struct http_conn *hc = cls;
	struct http_stream *st = hc->st;
	if (!st || st->peer_gone) {
		/* The only way to end a chunked reply unfinished; libmicrohttpd
		 * logs it as an "application error", which it is not. */
		hc->h->reader_ended = true;
		return MHD_CONTENT_READER_END_WITH_ERROR;
	}
	if (hc->prefix_off < hc->prefix.len) {
		size_t n = hc->prefix.len - hc->prefix_off;
		n = n < max ? n : max;
		memcpy(buf, hc->prefix.data + hc->prefix_off, n);
		hc->prefix_off += n;
		if (hc->prefix_off == hc->prefix.len)
			hc->prefix.len = hc->prefix_off = 0;
		return (ssize_t)n;
	}
	if (st->taken < st->log.len) {
		size_t n = st->log.len - st->taken;
		n = n < max ? n : max;
		memcpy(buf, st->log.data + st->taken, n);
		st->taken += n;
		trim(st);
		return (ssize_t)n;
	}
	if (st->ended) {
		hc->finished = true;
		return MHD_CONTENT_READER_END_OF_STREAM;
	}
	/* Not finished: the stream waits for its GET (conn_gone). */
	if (hc->poll_end)
		return MHD_CONTENT_READER_END_OF_STREAM;
	suspend(st);
	return 0;
}

static void reader_free(void *cls)
{
	struct http_conn *hc = cls;
	if (hc->st)
		conn_gone(hc->st, hc->finished);
	buf_release(&hc->prefix);
	free(hc);
}

/* Where replay starts: the byte offset of the event after after_seq. */
static size_t replay_offset(struct http_stream *st, uint64_t after_seq)
{
	if (after_seq + 1 <= st->log_seq0) {
		if (after_seq + 1 < st->log_seq0)
			fprintf(stderr,
			        "toolcage serve: stream %" PRIu64 " resumed after event %" PRIu64
			        ", but events before %" PRIu64 " were no longer kept\n",
			        st->no, after_seq, st->log_seq0);
		return 0;
	}
	size_t off = 0;
	for (uint64_t s = st->log_seq0; s <= after_seq && off < st->log.len; s++) {
		const char *end = memmem(st->log.data + off, st->log.len - off, "\n\n", 2);
		if (!end)
			return st->log.len;
		off = (size_t)(end - st->log.data) + 2;
	}
	return off;
}

static void on_poll(struct loop *l, void *data)
{
	(void)l;
	struct http_stream *st = data;
	st->poll = NULL;
	if (st->hc && !st->ended) {
		st->hc->poll_end = true;
		resume(st);
	}
}

/* Ends st's current connection: its reader answers with an error. */
static void cut_conn(struct http_stream *st)
{
	if (!st->hc)
		return;
	st->hc->st = NULL;
	unwatch(st);
	if (st->suspended) {
		st->suspended = false;
		st->h->api->resume_connection(st->conn);
		http_wake(st->h);
	}
	st->hc = NULL;
	st->conn = NULL;
}

enum MHD_Result stream_attach(struct http_stream *st, struct MHD_Connection *conn,
                              uint64_t after_seq, const char *extra_header, const char *extra_value)
{
	const struct mhd_api *api = st->h->api;
	struct http_conn *hc = calloc(1, sizeof *hc);
	if (!hc)
		return MHD_NO;
	hc->h = st->h;
	bool fresh = after_seq == STREAM_FRESH;
	/* A legacy stream starts with an event that has an id and no data,
	 * so a client can resume even before the first message (and is told
	 * how long to wait before it does). */
	if (st->resumable && fresh && !st->primed &&
	    buf_printf(&hc->prefix, "id: %" PRIu64 "-0\nretry: %d\ndata: \n\n", st->no,
	               HTTP_RETRY_MS) < 0) {
		free(hc);
		return MHD_NO;
	}
	struct MHD_Response *r = api->create_response_from_callback(MHD_SIZE_UNKNOWN, HTTP_BLOCK,
	                                                            reader, hc, reader_free);
	if (!r) {
		buf_release(&hc->prefix);
		free(hc);
		return MHD_NO;
	}
	api->add_response_header(r, "Content-Type", "text/event-stream");
	api->add_response_header(r, "Cache-Control", "no-cache, no-store");
	/* Proxies must not hold events back (nginx buffers otherwise). */
	api->add_response_header(r, "X-Accel-Buffering", "no");
	if (extra_header)
		api->add_response_header(r, extra_header, extra_value);
	cut_conn(st); /* a stream is served by one connection at a time */
	hc->st = st;
	st->hc = hc;
	st->conn = conn;
	st->sse = true;
	st->primed = st->primed || st->resumable;
	st->peer_gone = false;
	st->orphan_since = 0;
	if (!fresh && after_seq != STREAM_CONTINUE)
		st->taken = replay_offset(st, after_seq);
	/* Only a call's own first connection, after its priming event (the
	 * client's resumption point): the GET that resumes it stays open. */
	if (fresh && st->rel && st->hs && st->resumable && st->h->opt.poll_ms && !st->ended &&
	    !st->poll)
		st->poll =
		        loop_add_timer(st->h->loop, io_now_ms() + st->h->opt.poll_ms, on_poll, st);
	enum MHD_Result rc = api->queue_response(conn, MHD_HTTP_OK, r);
	api->destroy_response(r); /* the connection holds it now */
	return rc;
}

void streams_tick(struct http_server *h, int64_t now)
{
	for (struct http_stream *st = h->streams, *next; st; st = next) {
		next = st->next;
		/* Only between events: a comment inside one would break it. */
		if (st->hc && st->taken == st->log.len &&
		    now - st->last_event_ms >= HTTP_KEEPALIVE_MS) {
			/* A comment: keeps proxies from timing the stream out,
			 * and shows us a client that is gone. */
			if (buf_adds(&st->hc->prefix, ": keep-alive\n\n") == 0) {
				st->last_event_ms = now;
				resume(st);
			}
		} else if (!st->conn && st->orphan_since && st->hs &&
		           now - st->orphan_since >= HTTP_ORPHAN_MS) {
			fprintf(stderr,
			        "toolcage serve: stream %" PRIu64 " of a session was not "
			        "resumed in %" PRId64 " s; dropped\n",
			        st->no, HTTP_ORPHAN_MS / 1000);
			stream_free(st);
		}
	}
}

void stream_free(struct http_stream *st)
{
	if (!st)
		return;
	struct http_server *h = st->h;
	cut_conn(st);
	if (st->poll)
		loop_del_timer(h->loop, st->poll);
	if (st->prev)
		st->prev->next = st->next;
	else
		h->streams = st->next;
	if (st->next)
		st->next->prev = st->prev;
	if (st->hs) {
		st->hs->n_streams--;
		if (st->hs->get == st)
			st->hs->get = NULL;
	}
	json_decref(st->rel);
	buf_release(&st->log);
	free(st);
}
