/* mcp.c — the MCP server's core: the client's byte stream in (framed by
 * mcp_frame.c), one table of methods that says which state each one needs,
 * the lifecycle (initialize, ping, logging/setLevel), messages out, signals
 * and teardown. Tools and approvals live in mcp_tools.c and mcp_elicit.c.
 *
 * Trust: everything read from in_fd is hostile until checked. A message is
 * bounded before it is parsed (size by the framer, nesting by a scan), one
 * bad message gets one error response and never ends the session, and a
 * method runs only once the session reached the state its table row asks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "mcp_internal.h"
#include "utf8.h"
#include "io.h"

/* Newest first; the first one is what we answer a client we cannot match. */
static const char *const versions[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05" };

static const char *const level_names[] = {
	"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
};

/* Until the client sets a level, only what needs attention goes out. */
#define MCP_LOG_DEFAULT MCP_LOG_WARNING
/* How long teardown waits for a client that stopped reading. */
#define MCP_FINAL_FLUSH_MS 5000

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
static char *instructions(const struct mcp_server *m)
{
	const char *ws = tc_supervisor_workspace(m->sup);
	char *s;
	if (!ws)
		return strdup(instructions_text);
	if (asprintf(&s, "%s The workspace is %s: every path given to a tool (and run_command's "
	             "cwd) is relative to it (\"src/main.c\", \".\" for the workspace itself) or "
	             "absolute inside it (\"%s/src/main.c\"); both work, and paths outside it are "
	             "refused.", instructions_text, ws, strcmp(ws, "/") ? ws : "") < 0)
		return NULL;
	return s;
}

bool mcp_version_at_least(const struct mcp_server *m, const char *v)
{
	return strcmp(m->version, v) >= 0;   /* revisions are ISO dates */
}

/* ---- output ----------------------------------------------------------- */

static void watch_update(struct mcp_server *m);

static void mark_broken(struct mcp_server *m)
{
	if (!m->out_broken)
		fprintf(stderr, "toolcage serve: the client stopped reading (%s); shutting down\n",
		        strerror(errno));
	m->out_broken = true;
	m->out.len = m->out_off = 0;
	if (m->state != MCP_CLOSING)
		m->state = MCP_CLOSING;
	if (m->loop)
		loop_stop(m->loop);
}

/* Without a loop (teardown), waits for the fd with poll, up to a deadline,
 * so a client that never reads cannot hold the exit forever. */
static int wait_writable(struct mcp_server *m, int64_t deadline_ms)
{
	int64_t left = deadline_ms - io_now_ms();
	if (left <= 0)
		return -1;
	struct pollfd p = { .fd = m->out_fd, .events = POLLOUT };
	return poll(&p, 1, (int)left) > 0 ? 0 : -1;
}

static void out_flush(struct mcp_server *m)
{
	int64_t deadline = io_now_ms() + MCP_FINAL_FLUSH_MS;
	while (m->out_off < m->out.len) {
		ssize_t w = write(m->out_fd, m->out.data + m->out_off, mcp_backlog(m));
		if (w > 0) {
			m->out_off += (size_t)w;
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else if (w < 0 && errno == EAGAIN) {
			if (m->loop)
				break;                    /* EPOLLOUT tells us when */
			if (wait_writable(m, deadline) < 0) {
				errno = ETIMEDOUT;
				mark_broken(m);
				return;
			}
		} else {
			mark_broken(m);
			return;
		}
	}
	if (m->out_off == m->out.len) {
		m->out.len = m->out_off = 0;
	} else if (m->out_off > m->out.len / 2) {
		/* Keep the backlog at the front so it cannot creep upwards. */
		memmove(m->out.data, m->out.data + m->out_off, mcp_backlog(m));
		m->out.len -= m->out_off;
		m->out_off = 0;
	}
	if (m->loop)
		watch_update(m);
}

static int dump_to_buf(const char *p, size_t n, void *data)
{
	return buf_add(data, p, n);
}

void mcp_send(struct mcp_server *m, json_t *msg)
{
	if (!msg) {
		fprintf(stderr, "toolcage serve: out of memory building a message\n");
		return;
	}
	if (!m->out_broken) {
		size_t mark = m->out.len;
		/* JSON_COMPACT escapes every control character inside strings,
		 * so the only newline on the wire is the frame's own. */
		if (json_dump_callback(msg, dump_to_buf, &m->out, JSON_COMPACT) < 0 ||
		    buf_add(&m->out, "\n", 1) < 0) {
			m->out.len = mark;
			if (m->out.data)
				m->out.data[mark] = '\0';
			fprintf(stderr, "toolcage serve: out of memory writing a message\n");
		} else {
			out_flush(m);
		}
	}
	json_decref(msg);
}

void mcp_reply(struct mcp_server *m, json_t *id, json_t *result)
{
	mcp_send(m, json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result",
	                      result ? result : json_object()));
}

void mcp_error(struct mcp_server *m, json_t *id, int code, json_t *data, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	/* The text may quote client input cut at a byte boundary. */
	char *clean = utf8_sanitize(text, strlen(text), true, NULL);
	json_t *err = json_pack("{s:i, s:s}", "code", code, "message", clean ? clean : "error");
	free(clean);
	if (err && data)
		json_object_set_new(err, "data", data);
	else
		json_decref(data);
	mcp_send(m, json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(),
	                      "error", err));
}

void mcp_notify(struct mcp_server *m, const char *method, json_t *params)
{
	json_t *msg = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
	if (msg && params)
		json_object_set_new(msg, "params", params);
	else
		json_decref(params);
	mcp_send(m, msg);
}

void mcp_log(struct mcp_server *m, enum mcp_level level, const char *fmt, ...)
{
	char text[MCP_LOG_TEXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (level >= MCP_LOG_WARNING)
		fprintf(stderr, "toolcage serve: %s: %s\n", level_names[level], text);
	if (m->state == MCP_NEW || (int)level < m->log_level)
		return;
	char *clean = utf8_sanitize(text, strlen(text), true, NULL);
	mcp_notify(m, "notifications/message", json_pack("{s:s, s:s, s:s}", "level",
	           level_names[level], "logger", "toolcage", "data", clean ? clean : "?"));
	free(clean);
}

/* ---- lifecycle methods ------------------------------------------------ */

static const char *pick_version(const char *asked)
{
	for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
		if (!strcmp(asked, versions[i]))
			return versions[i];
	return versions[0];
}

/* Form elicitation: declared as {} (before 2025-11-25 that meant form) or
 * with a "form" member; the method exists from 2025-06-18 on. */
static bool wants_form(const struct mcp_server *m, json_t *caps)
{
	json_t *el = json_object_get(caps, "elicitation");
	if (!json_is_object(el) || !mcp_version_at_least(m, "2025-06-18"))
		return false;
	return json_object_size(el) == 0 || json_object_get(el, "form") != NULL;
}

static void h_initialize(struct mcp_server *m, json_t *id, json_t *params)
{
	if (m->state != MCP_NEW) {
		mcp_error(m, id, RPC_INVALID_REQUEST, NULL, "This session is already initialized; "
		          "initialize is accepted once.");
		return;
	}
	json_t *pv = json_object_get(params, "protocolVersion");
	json_t *caps = json_object_get(params, "capabilities");
	if (!json_is_string(pv) || (caps && !json_is_object(caps))) {
		mcp_error(m, id, RPC_INVALID_PARAMS, NULL, "initialize needs params.protocolVersion "
		          "(a string such as \"%s\") and params.capabilities (an object).", versions[0]);
		return;
	}
	snprintf(m->version, sizeof m->version, "%s", pick_version(json_string_value(pv)));
	bool form = wants_form(m, caps);
	json_t *ci = json_object_get(params, "clientInfo");
	const char *cname = json_string_value(json_object_get(ci, "name"));
	const char *cver = json_string_value(json_object_get(ci, "version"));
	fprintf(stderr, "toolcage serve: client %.64s %.32s asked for %.32s, speaking %s%s\n",
	        cname ? cname : "(unnamed)", cver ? cver : "", json_string_value(pv), m->version,
	        form ? "; approvals go to the client (elicitation)" : "");
	json_t *info = json_pack("{s:s, s:s}", "name", "toolcage", "version", TC_VERSION);
	if (info && mcp_version_at_least(m, "2025-06-18"))
		json_object_set_new(info, "title", json_string("toolcage"));
	m->state = MCP_READY;
	char *text = instructions(m);
	mcp_reply(m, id, json_pack("{s:s, s:{s:{s:b}, s:{}}, s:o, s:s}", "protocolVersion",
	          m->version, "capabilities", "tools", "listChanged", 1, "logging",
	          "serverInfo", info, "instructions", text ? text : instructions_text));
	free(text);
	if (form)
		mcp_elicit_enable(m);
}

static void h_initialized(struct mcp_server *m, json_t *id, json_t *params)
{
	(void)m;
	(void)id;
	(void)params;
}

static void h_ping(struct mcp_server *m, json_t *id, json_t *params)
{
	(void)params;
	mcp_reply(m, id, json_object());
}

static void h_set_level(struct mcp_server *m, json_t *id, json_t *params)
{
	const char *want = json_string_value(json_object_get(params, "level"));
	for (int i = 0; want && i < (int)(sizeof level_names / sizeof level_names[0]); i++)
		if (!strcmp(want, level_names[i])) {
			m->log_level = i;
			mcp_reply(m, id, json_object());
			return;
		}
	mcp_error(m, id, RPC_INVALID_PARAMS, NULL, "logging/setLevel needs params.level, one of "
	          "debug, info, notice, warning, error, critical, alert, emergency.");
}

/* ---- dispatch --------------------------------------------------------- */

enum {
	M_REQUEST = 1 << 0,         /* needs an id: it is answered */
	M_NOTIFICATION = 1 << 1,    /* must have no id: never answered */
	M_BEFORE_INIT = 1 << 2,     /* allowed before initialize was answered */
};

const char *mcp_name(const json_t *s)
{
	const char *v = json_string_value(s);
	return v && strlen(v) == json_string_length(s) ? v : "(a name holding a NUL byte)";
}

typedef void (*mcp_handler)(struct mcp_server *m, json_t *id, json_t *params);

/* The one table of what a client may ask, in the manner of OpenSSH's
 * monitor: a method runs only in the state its flags allow. */
static const struct mcp_method {
	const char *name;
	mcp_handler fn;
	unsigned flags;
} methods[] = {
	{ "initialize",                h_initialize,   M_REQUEST | M_BEFORE_INIT },
	{ "ping",                      h_ping,         M_REQUEST | M_BEFORE_INIT },
	{ "notifications/initialized", h_initialized,  M_NOTIFICATION },
	{ "notifications/cancelled",   mcp_cancelled,  M_NOTIFICATION },
	{ "logging/setLevel",          h_set_level,    M_REQUEST },
	{ "tools/list",                mcp_tools_list, M_REQUEST },
	{ "tools/call",                mcp_tools_call, M_REQUEST },
};

static void dispatch(struct mcp_server *m, const char *name, json_t *id, json_t *params)
{
	const struct mcp_method *mt = NULL;
	for (size_t i = 0; i < sizeof methods / sizeof methods[0] && !mt; i++)
		if (!strcmp(name, methods[i].name))
			mt = &methods[i];
	if (!mt) {
		/* Unknown notifications are ignored, as JSON-RPC asks. */
		if (id)
			mcp_error(m, id, RPC_METHOD_NOT_FOUND, NULL, "Method not found: '%.128s'. This "
			          "server offers initialize, ping, tools/list, tools/call and "
			          "logging/setLevel.", name);
		return;
	}
	if ((mt->flags & M_REQUEST) && !id) {
		fprintf(stderr, "toolcage serve: dropped '%s' sent as a notification (no id): "
		        "it could not be answered\n", name);
		return;
	}
	if ((mt->flags & M_NOTIFICATION) && id) {
		mcp_error(m, id, RPC_INVALID_REQUEST, NULL, "'%s' is a notification: send it "
		          "without an id.", name);
		return;
	}
	if (m->state == MCP_NEW && !(mt->flags & M_BEFORE_INIT)) {
		if (id)
			mcp_error(m, id, RPC_INVALID_REQUEST, NULL, "The session is not initialized: "
			          "send initialize first (only ping may come before it).");
		return;
	}
	if (id && mcp_call_in_flight(m, id)) {
		mcp_error(m, id, RPC_INVALID_REQUEST, NULL, "This request id is already in use by "
		          "a tools/call in flight; use a new id for every request.");
		return;
	}
	mt->fn(m, id, params);
}

static void handle_message(struct mcp_server *m, json_t *msg)
{
	json_t *id = json_object_get(msg, "id");
	json_t *method = json_object_get(msg, "method");
	json_t *reply_id = rpc_id_ok(id) ? id : NULL;
	const char *ver = json_string_value(json_object_get(msg, "jsonrpc"));
	if (!ver || strcmp(ver, "2.0")) {
		mcp_error(m, reply_id, RPC_INVALID_REQUEST, NULL, "Invalid request: \"jsonrpc\" must "
		          "be \"2.0\".");
		return;
	}
	if (id && !reply_id) {
		mcp_error(m, NULL, RPC_INVALID_REQUEST, NULL, "Invalid request: \"id\" must be a "
		          "string or an integer (not null, a number with a fraction, or %s).",
		          json_is_object(id) ? "an object" : json_is_array(id) ? "an array" :
		          "a boolean");
		return;
	}
	if (!method) {
		bool response = json_object_get(msg, "result") || json_object_get(msg, "error");
		if (reply_id && response) {
			if (mcp_elicit_response(m, msg) < 0)
				fprintf(stderr, "toolcage serve: ignored a response to an id we never "
				        "sent\n");
			return;
		}
		mcp_error(m, reply_id, RPC_INVALID_REQUEST, NULL, "Invalid request: a message needs "
		          "\"method\" (a request or notification) or \"result\"/\"error\" with an "
		          "id (a response).");
		return;
	}
	if (!json_is_string(method)) {
		mcp_error(m, reply_id, RPC_INVALID_REQUEST, NULL, "Invalid request: \"method\" must "
		          "be a string.");
		return;
	}
	json_t *params = json_object_get(msg, "params");
	if (params && !json_is_object(params)) {
		if (reply_id)
			mcp_error(m, reply_id, RPC_INVALID_PARAMS, NULL, "Invalid params for '%.128s': "
			          "\"params\" must be an object.", json_string_value(method));
		return;
	}
	dispatch(m, mcp_name(method), reply_id, params);
}

static void handle_line(struct mcp_server *m, const char *line, size_t len)
{
	if (!mcp_depth_ok(line, len, MCP_MAX_DEPTH)) {
		mcp_error(m, NULL, RPC_INVALID_REQUEST, NULL, "Invalid request: the message nests "
		          "deeper than %d levels; it was not processed.", MCP_MAX_DEPTH);
		return;
	}
	json_error_t je;
	/* "\u0000" is valid JSON: the request is answered like any other, and
	 * a name holding one is a name nobody has (mcp_name). */
	json_t *msg = json_loadb(line, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES |
	                         JSON_ALLOW_NUL, &je);
	if (!msg) {
		mcp_error(m, NULL, RPC_PARSE_ERROR, NULL, "Parse error at byte %d: %s. Send one "
		          "JSON-RPC message per line.", je.position, je.text);
		return;
	}
	if (json_is_array(msg))
		mcp_error(m, NULL, RPC_INVALID_REQUEST, NULL, "Invalid request: batches (JSON "
		          "arrays) are not supported (removed from MCP in 2025-06-18); send each "
		          "message on its own line.");
	else if (!json_is_object(msg))
		mcp_error(m, NULL, RPC_INVALID_REQUEST, NULL, "Invalid request: a message must be "
		          "a JSON object.");
	else
		handle_message(m, msg);
	json_decref(msg);
}

/* ---- input ------------------------------------------------------------ */

static void begin_closing(struct mcp_server *m)
{
	m->state = MCP_CLOSING;
	loop_stop(m->loop);
}

/* Handles every complete line buffered, unless the client is not reading
 * our output (then later, from out_flush) or we are closing. */
static void in_drain(struct mcp_server *m)
{
	const char *line;
	size_t len;
	uint64_t skipped;
	enum frame_kind k;
	while (!m->in_paused && !(m->state == MCP_CLOSING && !m->in_eof) &&
	       (k = framer_next(&m->in, m->in_eof, &line, &len, &skipped)) != FRAME_NONE) {
		if (k == FRAME_OVERSIZED)
			mcp_error(m, NULL, RPC_INVALID_REQUEST, NULL, "Invalid request: a message of "
			          "%llu bytes is over the limit of %zu bytes (max_message_bytes); it was "
			          "skipped.", (unsigned long long)skipped, m->in.max);
		else
			handle_line(m, line, len);
	}
}

static void in_read(struct mcp_server *m)
{
	char *p;
	size_t n;
	if (m->in_eof || m->state == MCP_CLOSING)
		return;
	if (framer_space(&m->in, &p, &n) < 0) {
		fprintf(stderr, "toolcage serve: out of memory reading input\n");
		m->in_eof = true;
	} else {
		ssize_t r = read(m->in_fd, p, n);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (r < 0)
			fprintf(stderr, "toolcage serve: reading input: %s\n", strerror(errno));
		if (r <= 0)
			m->in_eof = true;
		else
			framer_commit(&m->in, (size_t)r);
	}
	in_drain(m);
	if (m->in_eof)
		begin_closing(m);
	else if (m->loop)
		watch_update(m);
}

static void on_io(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)l;
	struct mcp_server *m = data;
	if (fd == m->out_fd && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) &&
	    m->out_off < m->out.len)
		out_flush(m);
	if (fd == m->in_fd && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		in_read(m);
}

static void on_in_timer(struct loop *l, void *data)
{
	(void)l;
	struct mcp_server *m = data;
	m->in_timer = NULL;
	in_read(m);
}

/* Sets the fd's registration to events (0: none). 0, or -errno. */
static int fd_watch(struct mcp_server *m, int fd, uint32_t events, bool *watched)
{
	if (!events) {
		if (*watched)
			loop_del_fd(m->loop, fd);
		*watched = false;
		return 0;
	}
	int rc = *watched ? loop_mod_fd(m->loop, fd, events) :
	         loop_add_fd(m->loop, fd, events, on_io, m);
	if (rc == 0)
		*watched = true;
	return rc;
}

static void watch_update(struct mcp_server *m)
{
	size_t backlog = mcp_backlog(m);
	bool was_paused = m->in_paused;
	m->in_paused = backlog > MCP_OUT_HIGH;
	bool want_in = !m->in_eof && !m->in_paused && m->state != MCP_CLOSING;
	uint32_t out_ev = backlog && !m->out_broken ? EPOLLOUT : 0;
	uint32_t in_ev = want_in && !m->in_timer ? EPOLLIN : 0;
	int rc;
	if (m->in_fd == m->out_fd) {
		rc = fd_watch(m, m->in_fd, in_ev | out_ev, &m->in_watched);
	} else {
		rc = fd_watch(m, m->in_fd, in_ev, &m->in_watched);
		if (rc == -EPERM && in_ev) {
			/* A regular file: always readable, and epoll refuses it. */
			m->in_timer = loop_add_timer(m->loop, io_now_ms(), on_in_timer, m);
			rc = 0;
		}
		if (fd_watch(m, m->out_fd, out_ev, &m->out_watched) == -EPERM) {
			/* A regular file never says EAGAIN: write it blocking. */
			fcntl(m->out_fd, F_SETFL, m->out_flags & ~O_NONBLOCK);
		}
	}
	if (rc < 0 && want_in) {
		fprintf(stderr, "toolcage serve: cannot watch the input: %s\n", strerror(-rc));
		m->in_eof = true;
		begin_closing(m);
	}
	if (was_paused && !m->in_paused && want_in)
		in_drain(m);   /* lines read before the pause */
}

/* ---- signals, run, teardown ------------------------------------------ */

static void on_signal(struct loop *l, int signo, void *data)
{
	struct mcp_server *m = data;
	fprintf(stderr, "toolcage serve: %s: shutting down\n", strsignal(signo));
	if (!m->exit_status)
		m->exit_status = 128 + signo;
	m->state = MCP_CLOSING;
	loop_stop(l);
}

int mcp_server_new(struct tc_supervisor *s, const struct mcp_options *opt,
                   struct mcp_server **out, struct tc_error *err)
{
	*out = NULL;
	struct mcp_server *m = calloc(1, sizeof *m);
	if (!m) {
		tc_supervisor_free(s);
		return tc_error_set(err, TC_E_NOMEM, "mcp", "out of memory");
	}
	m->sup = s;
	m->loop = supervisor_loop(s);
	m->cfg = supervisor_config(s);
	m->in_fd = opt->in_fd;
	m->out_fd = opt->out_fd;
	m->log_level = MCP_LOG_DEFAULT;
	m->page_size = opt->page_size ? opt->page_size : MCP_PAGE_SIZE_DEFAULT;
	framer_init(&m->in, m->cfg->max_message_bytes);
	m->in_flags = fcntl(m->in_fd, F_GETFL);
	m->out_flags = fcntl(m->out_fd, F_GETFL);
	if (m->in_flags < 0 || m->out_flags < 0) {
		tc_error_set(err, TC_E_SYSTEM, "mcp", "the input or output is not open: %s",
		             strerror(errno));
		goto fail;
	}
	/* Non-blocking both ways: a client that stops reading must not stall
	 * the loop that enforces every child's deadline. */
	fcntl(m->in_fd, F_SETFL, m->in_flags | O_NONBLOCK);
	fcntl(m->out_fd, F_SETFL, m->out_flags | O_NONBLOCK);
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	int rc = loop_add_signals(m->loop, sigs, 3, on_signal, m);
	if (rc < 0) {
		tc_error_set(err, TC_E_SYSTEM, "mcp", "signals: %s", strerror(-rc));
		goto fail;
	}
	if (mcp_tools_watch(m, err) < 0)
		goto fail;
	watch_update(m);
	*out = m;
	return 0;
fail:
	mcp_server_free(m);
	return -1;
}

int mcp_server_run(struct mcp_server *m)
{
	while (!loop_stopped(m->loop)) {
		int rc = loop_run_once(m->loop, -1);
		if (rc < 0) {
			fprintf(stderr, "toolcage serve: event loop: %s\n", strerror(-rc));
			if (!m->exit_status)
				m->exit_status = 1;
			break;
		}
	}
	return m->exit_status;
}

void mcp_server_free(struct mcp_server *m)
{
	if (!m)
		return;
	m->state = MCP_CLOSING;
	if (m->in_timer)
		loop_del_timer(m->loop, m->in_timer);
	m->in_timer = NULL;
	bool none = false;
	fd_watch(m, m->in_fd, 0, &m->in_watched);
	fd_watch(m, m->out_fd, 0, m->in_fd == m->out_fd ? &none : &m->out_watched);
	mcp_elicit_shutdown(m);
	mcp_tools_shutdown(m);
	tc_supervisor_set_approver(m->sup, NULL, NULL);
	/* From here on there is no loop: the cancelled calls' responses are
	 * written blocking (bounded by MCP_FINAL_FLUSH_MS). */
	m->loop = NULL;
	tc_supervisor_free(m->sup);
	mcp_tools_release(m);
	if (!m->out_broken)
		out_flush(m);
	if (m->in_flags >= 0)
		fcntl(m->in_fd, F_SETFL, m->in_flags);
	if (m->out_flags >= 0)
		fcntl(m->out_fd, F_SETFL, m->out_flags);
	framer_release(&m->in);
	buf_release(&m->out);
	free(m);
}
