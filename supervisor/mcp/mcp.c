/* mcp.c — the MCP server's core, the same whatever the transport: the
 * sessions, one table of methods that says which state each one needs, the
 * lifecycle (initialize, ping, logging/setLevel), messages out through the
 * session's sink, signals and teardown. Tools and approvals live in
 * mcp_tools.c and mcp_elicit.c, the stateless revision in mcp_modern.c,
 * the transports in mcp_stdio.c and mcp_http*.c.
 *
 * Trust: every message is hostile until checked. A message is bounded
 * before it is parsed (size by the transport, nesting by a scan), one bad
 * message gets one error response and never ends the session, and a method
 * runs only once the session reached the state its table row asks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp_internal.h"
#include "shown.h"
#include "utf8.h"

/* Newest legacy one first: the first is what we answer a client we cannot
 * match. The stateless revision is chosen per request (mcp_modern.c). */
const char *const mcp_versions[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL };

static const char *const level_names[] = {
	"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
};

/* Until the client sets a level, only what needs attention goes out. */
#define MCP_LOG_DEFAULT MCP_LOG_WARNING

static const char instructions_text[] =
        "toolcage runs each tool in a confined sandbox. Every call is checked "
        "against the tool's input schema and the policy before anything runs. A "
        "tool-level failure (invalid arguments, denied, timeout, busy, failed) comes "
        "back as a result with isError true and text that says what to do next: fix "
        "the arguments and call again, or choose another tool. Risky calls may need "
        "the user's approval; a denied call did not run, so do not repeat it "
        "unchanged.";

/* The instructions, with where the workspace is: models that only write
 * absolute paths need to know which ones work. New, or NULL. */
char *mcp_instructions(const struct mcp_server *srv)
{
	const char *ws = tc_supervisor_workspace(srv->sup);
	char *s;
	if (!ws)
		return strdup(instructions_text);
	if (asprintf(&s,
	             "%s The workspace is %s: every path given to a tool (and run_command's "
	             "cwd) is relative to it (\"src/main.c\", \".\" for the workspace itself) or "
	             "absolute inside it (\"%s/src/main.c\"); both work, and paths outside it are "
	             "refused.",
	             instructions_text, ws, strcmp(ws, "/") ? ws : "") < 0)
		return NULL;
	return s;
}

bool mcp_version_at_least(const struct mcp_session *s, const char *v)
{
	return strcmp(s->version, v) >= 0; /* revisions are ISO dates */
}

int mcp_level_parse(const char *name)
{
	for (int i = 0; name && i < (int)(sizeof level_names / sizeof level_names[0]); i++)
		if (!strcmp(name, level_names[i]))
			return i;
	return -1;
}

const char *mcp_name(const json_t *s)
{
	const char *v = json_string_value(s);
	return v && strlen(v) == json_string_length(s) ? v : "(a name holding a NUL byte)";
}

json_t *mcp_server_info(const struct mcp_session *s)
{
	json_t *info = json_pack("{s:s, s:s}", "name", "toolcage", "version", TC_VERSION);
	if (info && mcp_version_at_least(s, "2025-06-18"))
		json_object_set_new(info, "title", json_string("toolcage"));
	return info;
}

/* ---- output ----------------------------------------------------------- */

void mcp_send(struct mcp_session *s, json_t *msg, const json_t *rel, enum mcp_kind kind)
{
	if (!msg) {
		fprintf(stderr, "toolcage serve: out of memory building a message\n");
		return;
	}
	if (!s->sink) { /* muted: the session is ending */
		json_decref(msg);
		return;
	}
	if (kind == MCP_MSG_RESPONSE && s->stateless)
		s->answered = true;
	s->sink->send(s->sink_data, msg, rel, kind);
}

enum mcp_room mcp_room(const struct mcp_session *s, const json_t *rel)
{
	return s->sink ? s->sink->room(s->sink_data, rel) : MCP_ROOM_OK;
}

void mcp_reply(struct mcp_session *s, json_t *id, json_t *result)
{
	if (!result)
		result = json_object();
	/* 2026-07-28: every result says what it is and who answered. */
	if (result && s->stateless) {
		if (!json_object_get(result, "resultType"))
			json_object_set_new(result, "resultType", json_string("complete"));
		json_t *meta = json_object_get(result, "_meta");
		if (!meta) {
			meta = json_object();
			json_object_set_new(result, "_meta", meta);
		}
		json_object_set_new(meta, "io.modelcontextprotocol/serverInfo", mcp_server_info(s));
	}
	mcp_send(s, json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result), id,
	         MCP_MSG_RESPONSE);
}

static json_t *error_msg_v(const json_t *id, int code, json_t *data, const char *fmt, va_list ap)
{
	char text[1024];
	vsnprintf(text, sizeof text, fmt, ap);
	/* The text may quote client input cut at a byte boundary. */
	char *clean = utf8_sanitize(text, strlen(text), true, NULL);
	json_t *err = json_pack("{s:i, s:s}", "code", code, "message", clean ? clean : "error");
	free(clean);
	if (err && data)
		json_object_set_new(err, "data", data);
	else
		json_decref(data);
	return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error",
	                 err);
}

json_t *mcp_error_msg(const json_t *id, int code, json_t *data, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	json_t *m = error_msg_v(id, code, data, fmt, ap);
	va_end(ap);
	return m;
}

void mcp_error(struct mcp_session *s, json_t *id, int code, json_t *data, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	json_t *m = error_msg_v(id, code, data, fmt, ap);
	va_end(ap);
	mcp_send(s, m, id, MCP_MSG_RESPONSE);
}

void mcp_notify(struct mcp_session *s, const char *method, json_t *params, const json_t *rel)
{
	json_t *msg = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
	if (msg && params)
		json_object_set_new(msg, "params", params);
	else
		json_decref(params);
	mcp_send(s, msg, rel, MCP_MSG_NOTIFICATION);
}

void mcp_log(struct mcp_session *s, const json_t *rel, enum mcp_level level, const char *fmt, ...)
{
	char text[MCP_LOG_TEXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	/* The text quotes a tool's output, a tool's name, a client's words:
	 * shown, so that it stays one line on the operator's terminal. */
	if (level >= MCP_LOG_WARNING)
		shown_fprintf(stderr, "toolcage serve: %s: %s\n", level_names[level], text);
	if (s->state == MCP_NEW || (int)level < s->log_level)
		return;
	/* A client far behind gets no more of these. */
	if (mcp_room(s, rel) != MCP_ROOM_OK)
		return;
	char *clean = utf8_sanitize(text, strlen(text), true, NULL);
	mcp_notify(s, "notifications/message",
	           json_pack("{s:s, s:s, s:s}", "level", level_names[level], "logger", "toolcage",
	                     "data", clean ? clean : "?"),
	           rel);
	free(clean);
}

/* ---- lifecycle methods ------------------------------------------------ */

static const char *pick_version(const char *asked)
{
	for (size_t i = 0; mcp_versions[i]; i++)
		if (!strcmp(asked, mcp_versions[i]))
			return mcp_versions[i];
	return mcp_versions[0];
}

/* Form elicitation: declared as {} (before 2025-11-25 that meant form) or
 * with a "form" member; the method exists from 2025-06-18 on. */
static bool wants_form(const struct mcp_session *s, json_t *caps)
{
	json_t *el = json_object_get(caps, "elicitation");
	if (!json_is_object(el) || !mcp_version_at_least(s, "2025-06-18"))
		return false;
	return json_object_size(el) == 0 || json_object_get(el, "form") != NULL;
}

static void h_initialize(struct mcp_session *s, json_t *id, json_t *params)
{
	if (s->state != MCP_NEW) {
		mcp_error(s, id, RPC_INVALID_REQUEST, NULL,
		          "This session is already initialized; "
		          "initialize is accepted once.");
		return;
	}
	json_t *pv = json_object_get(params, "protocolVersion");
	json_t *caps = json_object_get(params, "capabilities");
	if (!json_is_string(pv) || (caps && !json_is_object(caps))) {
		mcp_error(s, id, RPC_INVALID_PARAMS, NULL,
		          "initialize needs params.protocolVersion "
		          "(a string such as \"%s\") and params.capabilities (an object).",
		          mcp_versions[0]);
		return;
	}
	snprintf(s->version, sizeof s->version, "%s", pick_version(json_string_value(pv)));
	bool form = wants_form(s, caps);
	json_t *ci = json_object_get(params, "clientInfo");
	const char *cname = json_string_value(json_object_get(ci, "name"));
	const char *cver = json_string_value(json_object_get(ci, "version"));
	/* Words the client chose, shown: they cannot drive the terminal or
	 * the journal that reads the line. */
	shown_fprintf(stderr, "toolcage serve: client %.64s %.32s asked for %.32s, speaking %s%s\n",
	              cname ? cname : "(unnamed)", cver ? cver : "", json_string_value(pv),
	              s->version, form ? "; approvals go to the client (elicitation)" : "");
	s->state = MCP_READY;
	char *text = mcp_instructions(s->srv);
	mcp_reply(s, id,
	          json_pack("{s:s, s:{s:{s:b}, s:{}}, s:o, s:s}", "protocolVersion", s->version,
	                    "capabilities", "tools", "listChanged", 1, "logging", "serverInfo",
	                    mcp_server_info(s), "instructions", text ? text : instructions_text));
	free(text);
	s->elicit_form = form;
	if (form)
		mcp_elicit_enable(s);
}

static void h_initialized(struct mcp_session *s, json_t *id, json_t *params)
{
	(void)s;
	(void)id;
	(void)params;
}

static void h_ping(struct mcp_session *s, json_t *id, json_t *params)
{
	(void)params;
	mcp_reply(s, id, json_object());
}

static void h_set_level(struct mcp_session *s, json_t *id, json_t *params)
{
	int lv = mcp_level_parse(json_string_value(json_object_get(params, "level")));
	if (lv < 0) {
		mcp_error(
		        s, id, RPC_INVALID_PARAMS, NULL,
		        "logging/setLevel needs params.level, "
		        "one of debug, info, notice, warning, error, critical, alert, emergency.");
		return;
	}
	s->log_level = lv;
	mcp_reply(s, id, json_object());
}

/* ---- dispatch --------------------------------------------------------- */

enum {
	M_REQUEST = 1 << 0,      /* needs an id: it is answered */
	M_NOTIFICATION = 1 << 1, /* must have no id: never answered */
	M_BEFORE_INIT = 1 << 2,  /* allowed before initialize was answered */
	M_LEGACY = 1 << 3,       /* in a session begun with initialize */
	M_STATELESS = 1 << 4,    /* in a 2026-07-28 request */
};

typedef void (*mcp_handler)(struct mcp_session *s, json_t *id, json_t *params);

/* The one table of what a client may ask, in the manner of OpenSSH's
 * monitor: a method runs only in the state its flags allow. */
static const struct mcp_method {
	const char *name;
	mcp_handler fn;
	unsigned flags;
} methods[] = {
	{ "initialize", h_initialize, M_REQUEST | M_BEFORE_INIT | M_LEGACY },
	{ "ping", h_ping, M_REQUEST | M_BEFORE_INIT | M_LEGACY },
	{ "notifications/initialized", h_initialized, M_NOTIFICATION | M_LEGACY },
	/* Before initialize too: a stdio client may cancel a stateless request. */
	{ "notifications/cancelled", mcp_cancelled,
	  M_NOTIFICATION | M_BEFORE_INIT | M_LEGACY | M_STATELESS },
	{ "logging/setLevel", h_set_level, M_REQUEST | M_LEGACY },
	{ "tools/list", mcp_tools_list, M_REQUEST | M_LEGACY | M_STATELESS },
	{ "tools/call", mcp_tools_call, M_REQUEST | M_LEGACY | M_STATELESS },
	{ "server/discover", mcp_discover, M_REQUEST | M_STATELESS },
	{ "subscriptions/listen", mcp_listen, M_REQUEST | M_STATELESS },
};

static void dispatch(struct mcp_session *s, const char *name, json_t *id, json_t *params)
{
	unsigned era = s->stateless ? M_STATELESS : M_LEGACY;
	const struct mcp_method *mt = NULL;
	for (size_t i = 0; i < sizeof methods / sizeof methods[0] && !mt; i++)
		if (!strcmp(name, methods[i].name) && (methods[i].flags & era))
			mt = &methods[i];
	if (!mt) {
		/* Unknown notifications are ignored, as JSON-RPC asks. */
		if (id)
			mcp_error(s, id, RPC_METHOD_NOT_FOUND, NULL,
			          "Method not found: '%.128s'. This "
			          "server offers %s",
			          name,
			          s->stateless ? "server/discover, tools/list, "
			                         "tools/call and subscriptions/listen." :
			                         "initialize, ping, "
			                         "tools/list, tools/call and logging/setLevel.");
		return;
	}
	if ((mt->flags & M_REQUEST) && !id) {
		fprintf(stderr,
		        "toolcage serve: dropped '%s' sent as a notification (no id): "
		        "it could not be answered\n",
		        name);
		return;
	}
	if ((mt->flags & M_NOTIFICATION) && id) {
		mcp_error(s, id, RPC_INVALID_REQUEST, NULL,
		          "'%s' is a notification: send it "
		          "without an id.",
		          name);
		return;
	}
	if (s->state == MCP_NEW && !(mt->flags & M_BEFORE_INIT)) {
		if (id)
			mcp_error(s, id, RPC_INVALID_REQUEST, NULL,
			          "The session is not initialized: "
			          "send initialize first (only ping may come before it).");
		return;
	}
	if (id && mcp_call_in_flight(s, id)) {
		mcp_error(s, id, RPC_INVALID_REQUEST, NULL,
		          "This request id is already in use by "
		          "a tools/call in flight; use a new id for every request.");
		return;
	}
	mt->fn(s, id, params);
}

json_t *mcp_parse(const struct config *cfg, const char *p, size_t n, enum mcp_kind *kind,
                  json_t **error)
{
	*kind = MCP_MSG_INVALID;
	*error = NULL;
	/* A message refused whole is still answered with its request's id
	 * where the top level shows one: its client waits for that id. */
	struct json_text_shape shape;
	json_text_shape(p, n, &shape);
	size_t values_max = cfg->max_message_bytes / MCP_BYTES_PER_VALUE;
	if (values_max < MCP_VALUES_MIN)
		values_max = MCP_VALUES_MIN;
	if (shape.depth > JSON_DEPTH_MAX || shape.values > values_max) {
		json_t *id = rpc_id_of_text(p, n);
		if (shape.depth > JSON_DEPTH_MAX)
			*error = mcp_error_msg(id, RPC_INVALID_REQUEST, NULL,
			                       "Invalid request: the message nests deeper than %d "
			                       "levels; it was not processed.",
			                       JSON_DEPTH_MAX);
		else
			/* Parsed, each would cost a node: 80 times the text for
			 * "{}," again and again. */
			*error = mcp_error_msg(id, RPC_INVALID_REQUEST, NULL,
			                       "Invalid request: the message holds more than %zu "
			                       "JSON values (one per %d bytes of "
			                       "limits.max_message_bytes); it was not processed. "
			                       "Send fewer in one call.",
			                       values_max, MCP_BYTES_PER_VALUE);
		json_decref(id);
		return NULL;
	}
	json_error_t je;
	/* "\u0000" is valid JSON: the request is answered like any other, and
	 * a name holding one is a name nobody has (mcp_name). */
	json_t *msg =
	        json_loadb(p, n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
	if (!msg) {
		enum json_error_code code = json_error_code(&je);
		json_t *id = rpc_id_of_text(p, n);
		*error = mcp_error_msg(
		        id, RPC_PARSE_ERROR, NULL, "Parse error at byte %d: %s. %s", je.position,
		        je.text,
		        code == json_error_numeric_overflow ?
		                "Give a smaller number (an integer must fit in 64 bits)." :
		                code == json_error_duplicate_key ?
		                "Give each key once in an object." :
		                "Send one JSON-RPC message at a time.");
		json_decref(id);
		return NULL;
	}
	if (!json_is_object(msg)) {
		*error = json_is_array(msg) ?
		        mcp_error_msg(NULL, RPC_INVALID_REQUEST, NULL,
		                      "Invalid request: batches "
		                      "(JSON arrays) are not supported (removed from MCP in "
		                      "2025-06-18); send each message on its own.") :
		        mcp_error_msg(NULL, RPC_INVALID_REQUEST, NULL,
		                      "Invalid request: a message "
		                      "must be a JSON object.");
		json_decref(msg);
		return NULL;
	}
	json_t *id = json_object_get(msg, "id");
	json_t *method = json_object_get(msg, "method");
	json_t *reply_id = rpc_id_ok(id) ? id : NULL;
	const char *ver = json_string_value(json_object_get(msg, "jsonrpc"));
	if (!ver || strcmp(ver, "2.0")) {
		*error = mcp_error_msg(reply_id, RPC_INVALID_REQUEST, NULL,
		                       "Invalid request: "
		                       "\"jsonrpc\" must be \"2.0\".");
	} else if (id && !reply_id) {
		*error = mcp_error_msg(NULL, RPC_INVALID_REQUEST, NULL,
		                       "Invalid request: \"id\" "
		                       "must be a string or an integer (not null, a number with a "
		                       "fraction, or %s).",
		                       json_is_object(id)        ? "an object" :
		                               json_is_array(id) ? "an array" :
		                                                   "a boolean");
	} else if (!method) {
		bool response = json_object_get(msg, "result") || json_object_get(msg, "error");
		if (reply_id && response) {
			*kind = MCP_MSG_RESPONSE;
			return msg;
		}
		*error = mcp_error_msg(reply_id, RPC_INVALID_REQUEST, NULL,
		                       "Invalid request: a "
		                       "message needs \"method\" (a request or notification) or "
		                       "\"result\"/\"error\" with an id (a response).");
	} else if (!json_is_string(method)) {
		*error = mcp_error_msg(reply_id, RPC_INVALID_REQUEST, NULL,
		                       "Invalid request: "
		                       "\"method\" must be a string.");
	} else {
		json_t *params = json_object_get(msg, "params");
		if (params && !json_is_object(params)) {
			/* A notification with bad params is dropped unanswered. */
			if (reply_id)
				*error = mcp_error_msg(
				        reply_id, RPC_INVALID_PARAMS, NULL,
				        "Invalid "
				        "params for '%.128s': \"params\" must be an object.",
				        json_string_value(method));
		} else {
			*kind = reply_id ? MCP_MSG_REQUEST : MCP_MSG_NOTIFICATION;
			return msg;
		}
	}
	return msg; /* MCP_MSG_INVALID: *error (if any) carries what could be read */
}

void mcp_session_message(struct mcp_session *s, json_t *msg, enum mcp_kind kind)
{
	json_t *id = json_object_get(msg, "id");
	if (kind == MCP_MSG_RESPONSE) {
		if (mcp_elicit_response(s, msg) < 0 && mcp_channel_response(s, msg) < 0)
			fprintf(stderr,
			        "toolcage serve: ignored a response to an id we never sent\n");
		return;
	}
	if (kind != MCP_MSG_REQUEST && kind != MCP_MSG_NOTIFICATION)
		return;
	json_t *params = json_object_get(msg, "params");
	dispatch(s, mcp_name(json_object_get(msg, "method")), kind == MCP_MSG_REQUEST ? id : NULL,
	         params);
}

void mcp_session_text(struct mcp_session *s, const char *p, size_t n)
{
	enum mcp_kind kind;
	json_t *error;
	json_t *msg = mcp_parse(s->srv->cfg, p, n, &kind, &error);
	if (error)
		mcp_send(s, error, NULL, MCP_MSG_RESPONSE);
	else if (msg && kind == MCP_MSG_REQUEST && mcp_modern_request(msg))
		/* 2026-07-28: the request carries its own version, served
		 * statelessly in a session of its own, whatever this one is. */
		mcp_modern_start(s->srv, s->sink, s->sink_data, s, msg);
	else if (msg)
		mcp_session_message(s, msg, kind);
	json_decref(msg);
}

/* ---- sessions ------------------------------------------------------------ */

struct mcp_session *mcp_session_new(struct mcp_server *srv, const struct mcp_sink *sink, void *data)
{
	struct mcp_session *s = calloc(1, sizeof *s);
	if (!s || !(s->tcs = tc_session_new(srv->sup))) {
		free(s);
		return NULL;
	}
	s->srv = srv;
	s->sink = sink;
	s->sink_data = data;
	s->log_level = MCP_LOG_DEFAULT;
	mcp_channel_enable(s);
	snprintf(s->version, sizeof s->version, "%s", mcp_versions[0]);
	s->next = srv->sessions;
	if (srv->sessions)
		srv->sessions->prev = s;
	srv->sessions = s;
	srv->n_sessions++;
	return s;
}

bool mcp_session_idle(const struct mcp_session *s)
{
	return s->n_calls == 0;
}

static struct mcp_session *child_of(const struct mcp_server *srv, const struct mcp_session *s)
{
	for (struct mcp_session *c = srv->sessions; c; c = c->next)
		if (c->parent == s)
			return c;
	return NULL;
}

void mcp_session_free(struct mcp_session *s)
{
	if (!s)
		return;
	struct mcp_server *srv = s->srv;
	s->state = MCP_CLOSING;
	s->sink = NULL; /* nothing more goes out */
	/* Stateless sessions that came through this one (stdio) go first. */
	for (struct mcp_session *c; (c = child_of(srv, s));)
		mcp_session_free(c);
	mcp_elicit_shutdown(s);
	mcp_tools_shutdown(s);
	mcp_modern_release(s);
	/* Its calls end now (cancelled, their results unsent: muted above). */
	tc_session_free(s->tcs);
	mcp_tools_release(s);
	mcp_channel_release(s);
	if (s->prev)
		s->prev->next = s->next;
	else
		srv->sessions = s->next;
	if (s->next)
		s->next->prev = s->prev;
	srv->n_sessions--;
	json_decref(s->client);
	free(s);
}

void mcp_server_list_changed(struct mcp_server *srv)
{
	for (struct mcp_session *s = srv->sessions; s; s = s->next) {
		if (s->stateless)
			mcp_modern_list_changed(s);
		else if (s->state == MCP_READY)
			mcp_notify(s, "notifications/tools/list_changed", NULL, NULL);
	}
}

/* ---- the server: signals, run, teardown ----------------------------------- */

static void on_signal(struct loop *l, int signo, void *data)
{
	struct mcp_server *srv = data;
	fprintf(stderr, "toolcage serve: %s: shutting down\n", strsignal(signo));
	if (!srv->exit_status)
		srv->exit_status = 128 + signo;
	if (srv->transport_signal)
		srv->transport_signal(srv->transport, signo);
	else
		loop_stop(l);
}

int mcp_server_new(struct tc_supervisor *s, const struct mcp_options *opt, struct mcp_server **out,
                   struct tc_error *err)
{
	*out = NULL;
	struct mcp_server *srv = calloc(1, sizeof *srv);
	if (!srv) {
		tc_supervisor_free(s);
		return tc_error_set(err, TC_E_NOMEM, "mcp", "out of memory");
	}
	srv->sup = s;
	srv->loop = supervisor_loop(s);
	srv->cfg = supervisor_config(s);
	srv->page_size = opt->page_size ? opt->page_size : MCP_PAGE_SIZE_DEFAULT;
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	int rc = loop_add_signals(srv->loop, sigs, 3, on_signal, srv);
	if (rc < 0) {
		tc_error_set(err, TC_E_SYSTEM, "mcp", "signals: %s", strerror(-rc));
		goto fail;
	}
	if (mcp_tools_watch(srv, err) < 0)
		goto fail;
	if ((opt->http ? mcp_http_start(srv, opt, err) : mcp_stdio_start(srv, opt, err)) < 0)
		goto fail;
	*out = srv;
	return 0;
fail:
	mcp_server_free(srv);
	return -1;
}

int mcp_server_run(struct mcp_server *srv)
{
	while (!loop_stopped(srv->loop)) {
		int rc = loop_run_once(srv->loop, -1);
		if (rc < 0) {
			fprintf(stderr, "toolcage serve: event loop: %s\n", strerror(-rc));
			if (!srv->exit_status)
				srv->exit_status = 1;
			break;
		}
	}
	return srv->exit_status;
}

void mcp_server_free(struct mcp_server *srv)
{
	if (!srv)
		return;
	srv->closing = true;
	for (struct mcp_session *s = srv->sessions; s; s = s->next) {
		s->state = MCP_CLOSING;
		mcp_elicit_shutdown(s);
		mcp_tools_shutdown(s);
	}
	/* Every call still in flight ends now, and its "cancelled" answer
	 * goes out while the transport still works. */
	for (struct mcp_session *s = srv->sessions; s; s = s->next) {
		tc_session_free(s->tcs);
		s->tcs = NULL;
	}
	tc_dispose(&srv->watch);
	/* The transport writes what is still owed, within a bound, and frees
	 * its sessions. */
	if (srv->transport_free)
		srv->transport_free(srv->transport);
	srv->transport = NULL;
	while (srv->sessions)
		mcp_session_free(srv->sessions);
	mcp_modern_server_release(srv);
	tc_supervisor_free(srv->sup);
	free(srv);
}
