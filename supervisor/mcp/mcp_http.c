/* mcp_http.c — `toolcage serve --http ADDR:PORT`: the Streamable HTTP
 * transport. One endpoint, /mcp: POST carries one client message and is
 * answered with JSON (an answer ready at once) or an SSE stream (anything
 * that takes time: a tool call, its progress, its approval question); GET
 * opens a session's stream for messages that belong to no request
 * (list_changed); DELETE ends a session. /health, /health/live and
 * /health/ready are for process supervisors.
 *
 * Sessions: initialize (revisions up to 2025-11-25) makes one, named by
 * Mcp-Session-Id (128 random bits), each with its own approvals and grants
 * (a tc_session) and sharing the supervisor's slots and limits. A request
 * carrying 2026-07-28 _meta needs none: it is served statelessly, its
 * stream is its lifetime, and closing that stream cancels it.
 *
 * Safe by default (docs/mcp.md, "Over HTTP"): loopback unless told
 * otherwise; a bearer token required for anything else and compared in
 * constant time; Host and Origin checked against DNS rebinding; every
 * buffer bounded (mcp_http.h, "limits").
 *
 * The daemon runs in libmicrohttpd's external-polling epoll mode: its epoll
 * descriptor is one more fd of our loop, and MHD_run is called from the
 * loop only (never from inside one of its callbacks: http_wake defers).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcp_http.h"
#include "pipeline.h"
#include "shown.h"

/* The end of respond()'s header list (a typed null for the variadic call). */
#define END ((const char *)NULL)

/* One HTTP request, from its headers to its completion. */
struct http_req {
	bool started;  /* the headers were checked */
	bool answered; /* a response is queued */
	struct buf body;
	size_t reserved; /* counted in h->bodies */
	bool too_big;
};

/* ---- small helpers ------------------------------------------------------- */

static const char *header(struct http_server *h, struct MHD_Connection *c, const char *name)
{
	return h->api->lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* Queues a response with body (copied); extra headers name/value pairs,
 * NULL-terminated. */
static enum MHD_Result respond(struct http_server *h, struct MHD_Connection *c, unsigned status,
                               const char *type, const char *body, size_t len, ...)
{
	struct MHD_Response *r =
	        h->api->create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	if (type)
		h->api->add_response_header(r, "Content-Type", type);
	h->api->add_response_header(r, "Cache-Control", "no-store");
	va_list ap;
	va_start(ap, len);
	for (const char *k; (k = va_arg(ap, const char *));) {
		const char *v = va_arg(ap, const char *);
		if (v)
			h->api->add_response_header(r, k, v);
	}
	va_end(ap);
	enum MHD_Result rc = h->api->queue_response(c, status, r);
	h->api->destroy_response(r);
	return rc;
}

/* A message's body as every transport writes it (json_dump_shown);
 * NULL for no message or out of memory. */
static char *wire_text(const json_t *msg)
{
	struct buf b = BUF_INIT;
	if (!msg || json_dump_shown(msg, JSON_COMPACT, &b) < 0) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* An HTTP error with a JSON-RPC error body (id, when known). */
static enum MHD_Result respond_error(struct http_server *h, struct MHD_Connection *c,
                                     unsigned status, const json_t *id, int code, const char *text,
                                     const char *hdr, const char *val)
{
	json_t *m = mcp_error_msg(id, code, NULL, "%s", text);
	char *s = wire_text(m);
	json_decref(m);
	enum MHD_Result rc = respond(h, c, status, "application/json", s ? s : "",
	                             s ? strlen(s) : 0, hdr, val, END);
	free(s);
	return rc;
}

static enum MHD_Result respond_msg(struct http_server *h, struct MHD_Connection *c, unsigned status,
                                   json_t *msg, const char *sid)
{
	char *s = wire_text(msg);
	json_decref(msg);
	enum MHD_Result rc = respond(h, c, status, "application/json", s ? s : "",
	                             s ? strlen(s) : 0, "Mcp-Session-Id", sid, END);
	free(s);
	return rc;
}

/* Equal without telling by how long it took where they differ: a token
 * compared byte by byte with an early exit leaks its prefix by timing. */
static bool same_secret(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t n = alen > blen ? alen : blen;
	unsigned char diff = (unsigned char)(alen != blen);
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)((i < alen ? a[i] : 0) ^ (i < blen ? b[i] : 0));
	return diff == 0;
}

/* Whether the Accept header lets us answer with type ("application/json",
 * "text/event-stream"). A missing header accepts anything. */
static bool accepts(const char *accept, const char *type)
{
	if (!accept)
		return true;
	const char *slash = strchr(type, '/');
	for (const char *p = accept; *p;) {
		while (*p == ' ' || *p == ',')
			p++;
		size_t n = strcspn(p, ",;");
		while (n && p[n - 1] == ' ')
			n--;
		if ((n == strlen(type) && !strncasecmp(p, type, n)) ||
		    (n == 3 && !strncmp(p, "*/*", 3)) ||
		    (n == (size_t)(slash - type) + 2 && !strncasecmp(p, type, n - 1) &&
		     p[n - 1] == '*'))
			return true;
		p += strcspn(p, ",");
	}
	return false;
}

/* ---- who may talk to us ------------------------------------------------- */

static bool loopback_host(const char *host, size_t n)
{
	return (n == 9 && !strncasecmp(host, "localhost", 9)) ||
	        (n == 9 && !strncmp(host, "127.0.0.1", 9)) ||
	        (n == 5 && !strncmp(host, "[::1]", 5));
}

/* The host part of "host[:port]" or "[v6][:port]": its length. */
static size_t host_len(const char *hp)
{
	if (hp[0] == '[') {
		const char *e = strchr(hp, ']');
		return e ? (size_t)(e - hp) + 1 : strlen(hp);
	}
	return strcspn(hp, ":");
}

/* Whether "host[:port]" names this machine: a loopback host, then nothing
 * or a colon and digits ("localhost:80@evil.example", "[::1]evil.example"
 * name another host to whatever reads them further). */
static bool loopback_authority(const char *hp)
{
	size_t n = host_len(hp);
	if (!loopback_host(hp, n))
		return false;
	const char *p = hp + n;
	if (*p == '\0')
		return true;
	if (*p++ != ':')
		return false;
	size_t digits = strspn(p, "0123456789");
	return digits <= 5 && p[digits] == '\0';
}

static bool origin_allowed(const struct http_server *h, const char *origin)
{
	for (char **o = h->opt.origins; o && *o; o++)
		if (!strcmp(*o, origin))
			return true;
	if (!h->opt.loopback)
		return false;
	/* A page served from this machine (http://localhost:3000, say). */
	const char *rest = !strncmp(origin, "http://", 7) ? origin + 7 :
	        !strncmp(origin, "https://", 8)           ? origin + 8 :
	                                                    NULL;
	return rest && loopback_authority(rest);
}

/* Without a token, the connection's owner as the kernel names it must be
 * the server's user or root (mcp_http_peer.c): loopback is every local
 * user's. A refusal is audited (in full, or counted: http_peer_refused).
 * 0, or MHD_HTTP_FORBIDDEN with *why. */
static unsigned peer_check(struct http_server *h, struct MHD_Connection *c, const char **why)
{
	const union MHD_ConnectionInfo *ci =
	        h->api->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	uid_t uid = (uid_t)-1;
	int rc = ci ? http_peer_uid(h->peer_diag, ci->connect_fd, &uid) : -EBADF;
	if (!rc && (uid == geteuid() || uid == 0))
		return 0;
	static char text[320];
	if (rc)
		snprintf(text, sizeof text,
		         "Forbidden: this server (serve --http on loopback without --token-file) "
		         "admits only its own user's connections, and whose this one is could not "
		         "be found (%s).",
		         strerror(-rc));
	else
		snprintf(text, sizeof text,
		         "Forbidden: this server (serve --http on loopback without --token-file) "
		         "admits only its own user's connections (uid %u); this one is uid %u's. "
		         "Its owner can give --token-file to let others in.",
		         (unsigned)geteuid(), (unsigned)uid);
	*why = text;
	http_peer_refused(h, ci ? ci->connect_fd : -1, rc ? -1 : (long long)uid, text);
	return MHD_HTTP_FORBIDDEN;
}

/* Host, Origin and Authorization (or, without a token, the connection's
 * owner), before anything is read. 0 when the request may go on, else the
 * HTTP status and *why. */
static unsigned gatekeep(struct http_server *h, struct MHD_Connection *c, const char **why)
{
	/* DNS rebinding: a page on evil.example whose name now resolves to
	 * 127.0.0.1 reaches a loopback server with "Host: evil.example". */
	const char *host = header(h, c, "Host");
	if (h->opt.loopback && (!host || !loopback_authority(host))) {
		*why = "Forbidden: the Host header must name this machine (localhost, 127.0.0.1 "
		       "or [::1]); a browser page on another name cannot reach this server.";
		return MHD_HTTP_FORBIDDEN;
	}
	const char *origin = header(h, c, "Origin");
	if (origin && !origin_allowed(h, origin)) {
		*why = "Forbidden: requests from this Origin are not allowed (serve --allow-origin "
		       "adds one).";
		return MHD_HTTP_FORBIDDEN;
	}
	if (!h->opt.token) {
		unsigned st = peer_check(h, c, why);
		if (st)
			return st;
	} else {
		const char *auth = header(h, c, "Authorization");
		const char *tok = auth && !strncasecmp(auth, "Bearer ", 7) ? auth + 7 : "";
		if (!same_secret(tok, strlen(tok), h->opt.token, h->opt.token_len)) {
			/* Which of the two: a client that sends a token is told that
			 * it is not the one, not to send one (which it did). */
			*why = !auth  ? "Unauthorized: no Authorization header; send "
			                "Authorization: Bearer <token> (the first line of the "
			                "file serve --token-file names)." :
			        !*tok ? "Unauthorized: the Authorization header is not \"Bearer "
			                "<token>\"; send Authorization: Bearer <token> (the first "
			                "line of the file serve --token-file names)." :
			                "Unauthorized: the bearer token sent is not this server's; "
			                "send the first line of the file serve --token-file names, "
			                "whole (no newline, no quotes).";
			return MHD_HTTP_UNAUTHORIZED;
		}
	}
	return 0;
}

/* ---- sessions --------------------------------------------------------------- */

static struct http_session *session_find(struct http_server *h, const char *id)
{
	if (!id || strlen(id) != 32)
		return NULL;
	struct http_session *found = NULL;
	for (struct http_session *hs = h->sessions; hs; hs = hs->next)
		if (same_secret(hs->id, 32, id, 32))
			found = hs;
	return found;
}

/* The open (unanswered) stream of hs answering request rel, or NULL. */
static struct http_stream *stream_for(struct http_session *hs, const json_t *rel)
{
	for (struct http_stream *st = hs->h->streams; st; st = st->next)
		if (st->hs == hs && st->rel && !st->ended && json_equal(st->rel, (json_t *)rel))
			return st;
	return NULL;
}

/* Messages that belong to no request, waiting for the session's GET
 * stream: bounded; a second list_changed is the first one. */
static void pend(struct http_session *hs, json_t *msg)
{
	const char *method = json_string_value(json_object_get(msg, "method"));
	bool lc = method && !strcmp(method, "notifications/tools/list_changed");
	char *text = (!lc || !hs->list_changed) ? wire_text(msg) : NULL;
	json_decref(msg);
	if (!text)
		return;
	if (hs->pending.len + strlen(text) + 1 > HTTP_PENDING_MAX) {
		fprintf(stderr,
		        "toolcage serve: dropped a message for session %.8s: no GET "
		        "stream takes them and %u bytes already wait\n",
		        hs->id, HTTP_PENDING_MAX);
	} else if (buf_adds(&hs->pending, text) == 0 && buf_add(&hs->pending, "\n", 1) == 0) {
		hs->list_changed |= lc;
	}
	free(text);
}

static void session_send(void *data, json_t *msg, const json_t *rel, enum mcp_kind kind)
{
	struct http_session *hs = data;
	struct http_stream *st = rel ? stream_for(hs, rel) : NULL;
	if (st) {
		stream_event(st, msg, kind == MCP_MSG_RESPONSE);
	} else if (kind == MCP_MSG_RESPONSE) {
		/* Its stream was closed and not resumed in time. */
		fprintf(stderr,
		        "toolcage serve: an answer for session %.8s had no stream left to "
		        "go on; dropped\n",
		        hs->id);
		json_decref(msg);
	} else if (hs->get) {
		stream_event(hs->get, msg, false);
	} else {
		pend(hs, msg);
	}
}

static enum mcp_room session_room(void *data, const json_t *rel)
{
	struct http_session *hs = data;
	struct http_stream *st = rel ? stream_for(hs, rel) : hs->get;
	return st ? stream_room(st) : MCP_ROOM_OK;
}

static const struct mcp_sink session_sink = { session_send, session_room, NULL };

static struct http_session *session_new(struct http_server *h)
{
	unsigned char raw[16];
	struct http_session *hs = calloc(1, sizeof *hs);
	if (!hs || getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
		free(hs);
		return NULL;
	}
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(hs->id + 2 * i, 3, "%02x", raw[i]);
	hs->h = h;
	hs->last_active_ms = io_now_ms();
	if (!(hs->ms = mcp_session_new(h->srv, &session_sink, hs))) {
		free(hs);
		return NULL;
	}
	hs->next = h->sessions;
	if (h->sessions)
		h->sessions->prev = hs;
	h->sessions = hs;
	h->n_sessions++;
	return hs;
}

void http_session_free(struct http_session *hs)
{
	struct http_server *h = hs->h;
	mcp_session_free(hs->ms);
	for (struct http_stream *st = h->streams, *next; st; st = next) {
		next = st->next;
		if (st->hs == hs)
			stream_free(st);
	}
	if (hs->prev)
		hs->prev->next = hs->next;
	else
		h->sessions = hs->next;
	if (hs->next)
		hs->next->prev = hs->prev;
	h->n_sessions--;
	buf_release(&hs->pending);
	free(hs);
}

/* ---- stateless requests --------------------------------------------------- */

static void lone_send(void *data, json_t *msg, const json_t *rel, enum mcp_kind kind)
{
	struct http_stream *st = data;
	stream_event(st, msg,
	             kind == MCP_MSG_RESPONSE && rel && st->rel &&
	                     json_equal((json_t *)rel, st->rel));
}

static enum mcp_room lone_room(void *data, const json_t *rel)
{
	(void)rel;
	return stream_room(data);
}

static void lone_ended(void *data, struct mcp_session *s)
{
	(void)s;
	struct http_stream *st = data;
	st->ms = NULL; /* answered: the stream ends after it */
}

static const struct mcp_sink lone_sink = { lone_send, lone_room, lone_ended };

void http_stream_closed(struct http_stream *st, bool delivered)
{
	if (st->ms) {
		/* A stateless request whose stream closed before its answer:
		 * that is its cancellation (2026-07-28). */
		struct mcp_session *s = st->ms;
		st->ms = NULL;
		mcp_session_free(s);
		stream_free(st);
	} else if (!st->hs || (delivered && (st->rel || st->ended))) {
		stream_free(st);
	}
	/* Otherwise a legacy stream lost its connection: it waits for a GET
	 * with Last-Event-ID (streams_tick drops it if none comes). */
}

/* Mcp-Name may carry its value as =?base64?...?= (2026-07-28). */
static char *header_value(const char *v, size_t *len)
{
	size_t n = strlen(v);
	if (n < 11 || strncmp(v, "=?base64?", 9) || strcmp(v + n - 2, "?="))
		return (*len = n, strdup(v));
	static const char tbl[] =
	        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = v + 9;
	size_t m = n - 11;
	char *out = malloc(m / 4 * 3 + 4);
	if (!out || m % 4)
		return free(out), NULL;
	size_t o = 0;
	for (size_t i = 0; i < m; i += 4) {
		unsigned acc = 0;
		int pad = 0;
		for (size_t k = 0; k < 4; k++) {
			const char *q = p[i + k] == '=' ? NULL : strchr(tbl, p[i + k]);
			if (p[i + k] == '=' && i + 4 == m && k >= 2)
				pad++;
			else if (!q || !p[i + k] || pad)
				return free(out), NULL;
			acc = acc << 6 | (q ? (unsigned)(q - tbl) : 0);
		}
		out[o++] = (char)(acc >> 16);
		if (pad < 2)
			out[o++] = (char)(acc >> 8);
		if (pad < 1)
			out[o++] = (char)acc;
	}
	out[o] = '\0';
	*len = o;
	return out;
}

/* The standard headers of a 2026-07-28 request must say what its body
 * says (a router may act on them): 0, or -1 with *why. */
static int headers_match(struct http_server *h, struct MHD_Connection *c, json_t *msg,
                         const char **why)
{
	const char *pv = header(h, c, "MCP-Protocol-Version");
	const char *method = header(h, c, "Mcp-Method");
	const char *name = header(h, c, "Mcp-Name");
	json_t *params = json_object_get(msg, "params");
	const char *body_v =
	        json_string_value(json_object_get(json_object_get(params, "_meta"),
	                                          "io.modelcontextprotocol/protocolVersion"));
	const char *body_m = json_string_value(json_object_get(msg, "method"));
	if (!pv || !body_v || strcmp(pv, body_v)) {
		*why = "Header mismatch: MCP-Protocol-Version must be sent and equal "
		       "_meta.io.modelcontextprotocol/protocolVersion.";
		return -1;
	}
	if (!method || !body_m || strcmp(method, body_m)) {
		*why = "Header mismatch: Mcp-Method must be sent and equal the request's method.";
		return -1;
	}
	json_t *bn = json_object_get(params, "name");
	if (body_m && !strcmp(body_m, "tools/call")) {
		size_t n = 0;
		char *v = name ? header_value(name, &n) : NULL;
		bool same = v && json_is_string(bn) && n == json_string_length(bn) &&
		        !memcmp(v, json_string_value(bn), n);
		free(v);
		if (!same) {
			*why = "Header mismatch: Mcp-Name must be sent and equal params.name "
			       "(=?base64?...?= for a value that is not plain ASCII).";
			return -1;
		}
	}
	return 0;
}

static enum MHD_Result post_stateless(struct http_server *h, struct MHD_Connection *c, json_t *msg,
                                      enum mcp_kind kind)
{
	json_t *id = json_object_get(msg, "id");
	const char *why;
	if (kind != MCP_MSG_REQUEST)
		/* The revision defines no client notification over HTTP (closing
		 * the stream is the cancellation): accepted, and nothing to do. */
		return respond(h, c, MHD_HTTP_ACCEPTED, NULL, "", 0, END);
	json_t *error;
	int status;
	if (mcp_modern_check(msg, &error, &status) < 0)
		return respond_msg(h, c, (unsigned)status, error, NULL);
	if (headers_match(h, c, msg, &why) < 0)
		return respond_error(h, c, MHD_HTTP_BAD_REQUEST, id, RPC_HEADER_MISMATCH, why, NULL,
		                     NULL);
	if (h->draining)
		return respond_error(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, id, RPC_INTERNAL_ERROR,
		                     "The server is shutting down; try another instance.",
		                     "Retry-After", "5");
	struct http_stream *st = stream_new(h, NULL, id, false);
	if (!st)
		return respond_error(h, c, MHD_HTTP_INTERNAL_SERVER_ERROR, id, RPC_INTERNAL_ERROR,
		                     "Internal error: out of memory.", NULL, NULL);
	st->ms = mcp_modern_start(h->srv, &lone_sink, st, NULL, msg);
	size_t n;
	char *json = stream_take_json(st, &n);
	if (!json)
		return stream_attach(st, c, STREAM_FRESH, NULL, NULL);
	stream_free(st);
	/* Errors the revision gives an HTTP status of their own. */
	json_t *ans = json_loadb(json, n, 0, NULL);
	json_int_t code =
	        json_integer_value(json_object_get(json_object_get(ans, "error"), "code"));
	json_decref(ans);
	unsigned hs = code == RPC_METHOD_NOT_FOUND ? MHD_HTTP_NOT_FOUND :
	        code == RPC_HEADER_MISMATCH || code == RPC_MISSING_CAPABILITY ||
	                code == RPC_UNSUPPORTED_VERSION ?
	                                             MHD_HTTP_BAD_REQUEST :
	                                             MHD_HTTP_OK;
	enum MHD_Result rc = respond(h, c, hs, "application/json", json, n, END);
	free(json);
	return rc;
}

/* ---- the endpoint ------------------------------------------------------------ */

static bool legacy_version(const char *v)
{
	for (size_t i = 0; mcp_versions[i]; i++)
		if (!strcmp(v, mcp_versions[i]))
			return true;
	return false;
}

static enum MHD_Result post_session(struct http_server *h, struct MHD_Connection *c, json_t *msg,
                                    enum mcp_kind kind)
{
	json_t *id = json_object_get(msg, "id");
	const char *method = json_string_value(json_object_get(msg, "method"));
	const char *sid = header(h, c, "Mcp-Session-Id");
	const char *pv = header(h, c, "MCP-Protocol-Version");
	struct http_session *hs = NULL;
	bool init = kind == MCP_MSG_REQUEST && method && !strcmp(method, "initialize");
	if (init) {
		if (sid)
			return respond_error(h, c, MHD_HTTP_BAD_REQUEST, id, RPC_INVALID_REQUEST,
			                     "Bad Request: initialize starts a session; send it "
			                     "without Mcp-Session-Id.",
			                     NULL, NULL);
		if (h->draining)
			return respond_error(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, id,
			                     RPC_INTERNAL_ERROR,
			                     "The server is shutting down: no new sessions.",
			                     "Retry-After", "5");
		if (h->n_sessions >= h->opt.max_sessions)
			return respond_error(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, id,
			                     RPC_INTERNAL_ERROR,
			                     "Too many sessions: end one (DELETE) or try later.",
			                     "Retry-After", "30");
		if (!(hs = session_new(h)))
			return respond_error(h, c, MHD_HTTP_INTERNAL_SERVER_ERROR, id,
			                     RPC_INTERNAL_ERROR, "Internal error: out of memory.",
			                     NULL, NULL);
	} else {
		if (!sid)
			return respond_error(h, c, MHD_HTTP_BAD_REQUEST, id, RPC_INVALID_REQUEST,
			                     "Bad Request: Mcp-Session-Id is required (initialize "
			                     "first, or send 2026-07-28 _meta).",
			                     NULL, NULL);
		if (!(hs = session_find(h, sid)))
			return respond_error(h, c, MHD_HTTP_NOT_FOUND, id, RPC_INVALID_REQUEST,
			                     "Not Found: no such session (it ended or expired); "
			                     "initialize a new one.",
			                     NULL, NULL);
		if (pv && !legacy_version(pv))
			return respond_error(h, c, MHD_HTTP_BAD_REQUEST, id, RPC_INVALID_REQUEST,
			                     "Bad Request: unsupported MCP-Protocol-Version.", NULL,
			                     NULL);
	}
	hs->last_active_ms = io_now_ms();
	if (kind != MCP_MSG_REQUEST) {
		/* Answers to our questions and notifications (a cancel) help
		 * calls in flight finish: taken even while draining. */
		mcp_session_message(hs->ms, msg, kind);
		return respond(h, c, MHD_HTTP_ACCEPTED, NULL, "", 0, END);
	}
	if (h->draining)
		return respond_error(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, id, RPC_INTERNAL_ERROR,
		                     "The server is shutting down: no new requests.", "Retry-After",
		                     "5");
	if (hs->n_streams >= HTTP_STREAMS_PER_SESSION)
		return respond_error(h, c, MHD_HTTP_TOO_MANY_REQUESTS, id, RPC_INTERNAL_ERROR,
		                     "Too many requests in flight in this session; wait for some "
		                     "to finish.",
		                     "Retry-After", "1");
	/* Event ids (resumption) came with 2025-03-26, the priming event
	 * with 2025-11-25: older clients read an event without data as an
	 * empty message. (initialize is answered in JSON.) */
	struct http_stream *st = stream_new(h, hs, id, mcp_version_at_least(hs->ms, "2025-03-26"));
	if (!st)
		return respond_error(h, c, MHD_HTTP_INTERNAL_SERVER_ERROR, id, RPC_INTERNAL_ERROR,
		                     "Internal error: out of memory.", NULL, NULL);
	st->primed = !mcp_version_at_least(hs->ms, "2025-11-25");
	mcp_session_message(hs->ms, msg, kind);
	if (init && hs->ms->state != MCP_READY) {
		/* initialize failed: no session came of it */
		size_t n;
		char *json = stream_take_json(st, &n);
		http_session_free(hs);
		enum MHD_Result rc = respond(h, c, MHD_HTTP_BAD_REQUEST, "application/json",
		                             json ? json : "", json ? n : 0, END);
		free(json);
		return rc;
	}
	size_t n;
	char *json = stream_take_json(st, &n);
	if (!json)
		return stream_attach(st, c, STREAM_FRESH, "Mcp-Session-Id", hs->id);
	stream_free(st);
	enum MHD_Result rc = respond(h, c, MHD_HTTP_OK, "application/json", json, n,
	                             "Mcp-Session-Id", hs->id, END);
	free(json);
	return rc;
}

static enum MHD_Result post_mcp(struct http_server *h, struct MHD_Connection *c,
                                struct http_req *rq)
{
	if (rq->too_big) {
		char text[256];
		snprintf(text, sizeof text,
		         "Payload Too Large: a message may be at most %zu bytes "
		         "(limits.max_message_bytes in toolcage.json). Send less in one call "
		         "(split the work), or raise the limit.",
		         h->srv->cfg->max_message_bytes);
		return respond_error(h, c, MHD_HTTP_CONTENT_TOO_LARGE, NULL, RPC_INVALID_REQUEST,
		                     text, NULL, NULL);
	}
	enum mcp_kind kind;
	json_t *error;
	json_t *msg = mcp_parse(h->srv->cfg, rq->body.data ? rq->body.data : "", rq->body.len,
	                        &kind, &error);
	if (error) {
		json_decref(msg);
		return respond_msg(h, c, MHD_HTTP_BAD_REQUEST, error, NULL);
	}
	if (kind == MCP_MSG_INVALID) {
		json_decref(msg);
		return respond(h, c, MHD_HTTP_BAD_REQUEST, NULL, "", 0, END);
	}
	const char *pv = header(h, c, "MCP-Protocol-Version");
	bool stateless = kind != MCP_MSG_RESPONSE &&
	        (mcp_modern_request(msg) || (pv && !strcmp(pv, MCP_VERSION_MODERN)));
	enum MHD_Result rc =
	        stateless ? post_stateless(h, c, msg, kind) : post_session(h, c, msg, kind);
	json_decref(msg);
	return rc;
}

/* "STREAM-SEQ", two decimal numbers: 0, or -1. */
static int event_id_parse(const char *s, uint64_t *no, uint64_t *seq)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*no = strtoull(s, &end, 10);
	if (errno || *end != '-' || end[1] < '0' || end[1] > '9')
		return -1;
	*seq = strtoull(end + 1, &end, 10);
	return errno || *end ? -1 : 0;
}

static enum MHD_Result get_mcp(struct http_server *h, struct MHD_Connection *c)
{
	const char *pv = header(h, c, "MCP-Protocol-Version");
	if (pv && !strcmp(pv, MCP_VERSION_MODERN))
		return respond(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, "", 0, "Allow", "POST",
		               END);
	if (!accepts(header(h, c, "Accept"), "text/event-stream"))
		return respond_error(h, c, MHD_HTTP_NOT_ACCEPTABLE, NULL, RPC_INVALID_REQUEST,
		                     "Not Acceptable: GET opens an event stream: accept "
		                     "text/event-stream.",
		                     NULL, NULL);
	const char *sid = header(h, c, "Mcp-Session-Id");
	struct http_session *hs = session_find(h, sid);
	if (!sid || !hs)
		return respond_error(h, c, sid ? MHD_HTTP_NOT_FOUND : MHD_HTTP_BAD_REQUEST, NULL,
		                     RPC_INVALID_REQUEST,
		                     sid ? "Not Found: no such session." :
		                           "Bad Request: Mcp-Session-Id is required.",
		                     NULL, NULL);
	hs->last_active_ms = io_now_ms();
	/* Resumption: Last-Event-ID "stream-seq" names a stream of this session. */
	const char *last = header(h, c, "Last-Event-ID");
	uint64_t no, seq;
	if (last && event_id_parse(last, &no, &seq) == 0) {
		for (struct http_stream *st = h->streams; st; st = st->next)
			if (st->hs == hs && st->no == no)
				return stream_attach(st, c, seq, "Mcp-Session-Id", hs->id);
	}
	if (hs->get && hs->get->conn)
		return respond_error(h, c, MHD_HTTP_CONFLICT, NULL, RPC_INVALID_REQUEST,
		                     "Conflict: this session's GET stream is open already.", NULL,
		                     NULL);
	if (!hs->get) {
		if (hs->n_streams >= HTTP_STREAMS_PER_SESSION)
			return respond_error(h, c, MHD_HTTP_TOO_MANY_REQUESTS, NULL,
			                     RPC_INVALID_REQUEST,
			                     "Too many streams open in this session.", NULL, NULL);
		if (!(hs->get = stream_new(h, hs, NULL, true)))
			return respond_error(h, c, MHD_HTTP_INTERNAL_SERVER_ERROR, NULL,
			                     RPC_INTERNAL_ERROR, "Internal error: out of memory.",
			                     NULL, NULL);
		hs->get->primed = !mcp_version_at_least(hs->ms, "2025-11-25");
		/* What waited for it, in order. */
		for (char *p = hs->pending.data, *e; p && (e = strchr(p, '\n')); p = e + 1)
			stream_event(hs->get, json_loadb(p, (size_t)(e - p), 0, NULL), false);
		buf_release(&hs->pending);
		hs->list_changed = false;
		return stream_attach(hs->get, c, STREAM_FRESH, "Mcp-Session-Id", hs->id);
	}
	/* The GET stream lost its connection: go on from what was not taken. */
	return stream_attach(hs->get, c, STREAM_CONTINUE, "Mcp-Session-Id", hs->id);
}

static enum MHD_Result delete_mcp(struct http_server *h, struct MHD_Connection *c)
{
	const char *sid = header(h, c, "Mcp-Session-Id");
	struct http_session *hs = session_find(h, sid);
	if (!hs)
		return respond_error(h, c, sid ? MHD_HTTP_NOT_FOUND : MHD_HTTP_BAD_REQUEST, NULL,
		                     RPC_INVALID_REQUEST,
		                     sid ? "Not Found: no such session." :
		                           "Bad Request: Mcp-Session-Id is required.",
		                     NULL, NULL);
	fprintf(stderr, "toolcage serve: session %.8s ended by its client\n", hs->id);
	http_session_free(hs);
	return respond(h, c, MHD_HTTP_OK, NULL, "", 0, END);
}

/* ---- /health ------------------------------------------------------------------ */

static enum MHD_Result health(struct http_server *h, struct MHD_Connection *c, const char *url)
{
	bool live_only = !strcmp(url, "/health/live");
	char why[512] = "";
	bool ready = !h->draining && supervisor_ready(h->srv->sup, SIZE_MAX, why, sizeof why) == 0;
	if (h->draining)
		snprintf(why, sizeof why, "shutting down");
	json_t *body =
	        json_pack("{s:s, s:b, s:b}", "status", live_only || ready ? "ok" : "unavailable",
	                  "live", 1, "ready", ready);
	if (body && !ready && !live_only)
		json_object_set_new(body, "reason", json_string(why));
	unsigned status = live_only || ready ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE;
	return respond_msg(h, c, status, body, NULL);
}

/* ---- libmicrohttpd's callbacks ------------------------------------------------ */

enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                           const char *version, const char *data, size_t *size, void **con_cls)
{
	(void)version;
	struct http_server *h = cls;
	struct http_req *rq = *con_cls;
	if (!rq) {
		http_socket_request(h, c); /* its headers are in */
		if (!(rq = calloc(1, sizeof *rq)))
			return MHD_NO;
		*con_cls = rq;
	}
	if (rq->answered) {
		*size = 0; /* a refused body is read and dropped */
		return MHD_YES;
	}
	bool is_mcp = !strcmp(url, "/mcp");
	if (!rq->started) {
		rq->started = true;
		if (!strncmp(url, "/health", 7) &&
		    (!url[7] || !strcmp(url + 7, "/live") || !strcmp(url + 7, "/ready"))) {
			rq->answered = true;
			if (strcmp(method, "GET") && strcmp(method, "HEAD"))
				return respond(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, "", 0,
				               "Allow", "GET", END);
			return health(h, c, url);
		}
		if (!is_mcp) {
			static const char not_mcp[] = "Not Found: the MCP endpoint is /mcp\n";
			rq->answered = true;
			return respond(h, c, MHD_HTTP_NOT_FOUND, "text/plain", not_mcp,
			               sizeof not_mcp - 1, END);
		}
		const char *why;
		unsigned status = gatekeep(h, c, &why);
		if (status) {
			rq->answered = true;
			return respond_error(h, c, status, NULL, RPC_INVALID_REQUEST, why,
			                     status == MHD_HTTP_UNAUTHORIZED ? "WWW-Authenticate" :
			                                                       NULL,
			                     "Bearer");
		}
		if (!strcmp(method, "GET")) {
			rq->answered = true;
			return get_mcp(h, c);
		}
		if (!strcmp(method, "DELETE")) {
			rq->answered = true;
			return delete_mcp(h, c);
		}
		if (strcmp(method, "POST")) {
			rq->answered = true;
			return respond(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL, "", 0, "Allow",
			               "GET, POST, DELETE", END);
		}
		const char *type = header(h, c, "Content-Type");
		const char *accept = header(h, c, "Accept");
		if (!type || strncasecmp(type, "application/json", 16)) {
			rq->answered = true;
			return respond_error(h, c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, NULL,
			                     RPC_INVALID_REQUEST,
			                     "Unsupported Media Type: send "
			                     "Content-Type: application/json.",
			                     NULL, NULL);
		}
		if (!accepts(accept, "application/json") || !accepts(accept, "text/event-stream")) {
			rq->answered = true;
			return respond_error(h, c, MHD_HTTP_NOT_ACCEPTABLE, NULL,
			                     RPC_INVALID_REQUEST,
			                     "Not Acceptable: accept both application/json and "
			                     "text/event-stream.",
			                     NULL, NULL);
		}
		/* Bounded before a byte of the body is held. A body a little
		 * too large is read and dropped, then answered: a client that
		 * sends it whole before it reads (fetch, http.client) would
		 * get a reset from a close with its body unread, not the 413.
		 * One declared far larger is answered at once. */
		const char *cl = header(h, c, "Content-Length");
		unsigned long long declared = cl ? strtoull(cl, NULL, 10) : 0;
		size_t max = h->srv->cfg->max_message_bytes;
		if (declared > max) {
			rq->too_big = true;
			if (declared - max <= HTTP_DROP_MAX)
				return MHD_YES;
			rq->answered = true;
			return post_mcp(h, c, rq);
		}
		if (h->bodies + declared > HTTP_BODIES_MAX) {
			rq->answered = true;
			return respond_error(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
			                     RPC_INTERNAL_ERROR,
			                     "Busy: too many requests are being "
			                     "uploaded; try again.",
			                     "Retry-After", "1");
		}
		rq->reserved = declared;
		h->bodies += declared;
		return MHD_YES;
	}
	if (*size) {
		size_t n = *size;
		*size = 0;
		if (rq->too_big || rq->body.len + n > h->srv->cfg->max_message_bytes) {
			rq->too_big = true;
			buf_release(&rq->body);
			h->bodies -= rq->reserved; /* dropped: nothing held */
			rq->reserved = 0;
			return MHD_YES;
		}
		if (rq->body.len + n > rq->reserved) { /* no (or a short) Content-Length */
			if (h->bodies + n > HTTP_BODIES_MAX) {
				rq->too_big = true;
				buf_release(&rq->body);
				return MHD_YES;
			}
			h->bodies += rq->body.len + n - rq->reserved;
			rq->reserved = rq->body.len + n;
		}
		if (buf_add(&rq->body, data, n) < 0)
			return MHD_NO;
		return MHD_YES;
	}
	rq->answered = true;
	enum MHD_Result rc = post_mcp(h, c, rq);
	/* Parsed: the body is done with, though its answer's stream may last
	 * as long as its call. Held to the end, the bodies of calls in flight
	 * would fill HTTP_BODIES_MAX, and every other POST get 503. */
	h->bodies -= rq->reserved;
	rq->reserved = 0;
	buf_release(&rq->body);
	return rc;
}

void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                  enum MHD_RequestTerminationCode toe)
{
	struct http_server *h = cls;
	http_socket_completed(h, c, toe == MHD_REQUEST_TERMINATED_COMPLETED_OK);
	struct http_req *rq = *con_cls;
	if (!rq)
		return;
	h->bodies -= rq->reserved;
	buf_release(&rq->body);
	free(rq);
	*con_cls = NULL;
}

void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct http_server *h = cls;
	char text[512];
	vsnprintf(text, sizeof text, fmt, ap);
	size_t n = strlen(text);
	while (n && text[n - 1] == '\n')
		text[--n] = '\0';
	/* A stream whose client went away (or that another connection took
	 * over) is ended by its reader: not an error to tell the operator at
	 * every client that closes its GET stream. */
	static const char app_error[] = "Closing connection (application error";
	if (h->reader_ended && !strncmp(text, app_error, sizeof app_error - 1)) {
		h->reader_ended = false;
		return;
	}
	/* libmicrohttpd's words quote the request's URL: shown, and cut at
	 * sizeof text. */
	shown_fprintf(stderr, "toolcage serve: http: %s\n", text);
}
