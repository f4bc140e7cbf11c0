/* mcp_internal.h — what the MCP server's files share.
 *
 * The protocol is written once and spoken over two transports:
 *   mcp.c          the server and its sessions: the method table, the
 *                  lifecycle (initialize, ping, logging), messages out
 *   mcp_tools.c    tools/list, tools/call, cancellation, progress,
 *                  list_changed
 *   mcp_elicit.c   approvals as elicitation/create requests to the client
 *   mcp_modern.c   revision 2026-07-28: per-request _meta, server/discover,
 *                  input_required results, subscriptions/listen
 *   mcp_frame.c    message checks (nesting, ids); stdio line framing
 *   mcp_stdio.c    the stdio transport: one connection, one session
 *   mcp_http*.c    the Streamable HTTP transport (mcp_http.h)
 * A transport hands the protocol whole messages and gives each session a
 * sink for what it sends back (struct mcp_sink); the protocol never knows
 * which transport it speaks over.
 */
#ifndef TC_MCP_INTERNAL_H
#define TC_MCP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "config.h"
#include "loop.h"
#include "mcp.h"
#include "io.h"
#include "json_pretty.h"
#include "util.h"

#define MCP_READ_CHUNK (64u << 10) /* bytes read from the client per turn */
/* Output waiting for a stdio client that does not read: past MCP_OUT_HIGH,
 * we stop reading its requests until it catches up; past MCP_OUT_MAX, the
 * calls already admitted (up to queue_max + max_concurrent) answer with a
 * short error instead of their result, so the backlog stays near it. */
#define MCP_OUT_HIGH     (16u << 20)
#define MCP_OUT_MAX      (64u << 20)
#define MCP_LOG_TEXT_MAX 4096 /* bytes of a notifications/message text */
/* The arguments (and ids) the tools/call requests in flight hold, every
 * session together (queued, waiting for an approval or running): each may be
 * limits.max_message_bytes, and queue_max + max_concurrent of them per
 * session would otherwise be gigabytes. Past it a call is busy, unless
 * none is in flight (one call of any admitted size always runs). */
#define MCP_CALL_ARGS_MAX  (64u << 20)
#define MCP_VERSION_MODERN "2026-07-28"

/* JSON-RPC 2.0 error codes, and the ones MCP 2026-07-28 defines. */
enum {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL_ERROR = -32603,
	RPC_HEADER_MISMATCH = -32020,
	RPC_MISSING_CAPABILITY = -32021,
	RPC_UNSUPPORTED_VERSION = -32022,
};

/* RFC 5424 levels as MCP names them, lowest first. */
enum mcp_level {
	MCP_LOG_DEBUG,
	MCP_LOG_INFO,
	MCP_LOG_NOTICE,
	MCP_LOG_WARNING,
	MCP_LOG_ERROR,
	MCP_LOG_CRITICAL,
	MCP_LOG_ALERT,
	MCP_LOG_EMERGENCY,
	MCP_LOG_OFF, /* no notifications/message at all */
};

/* ---- mcp_frame.c -------------------------------------------------------- */

/* Splits a byte stream into lines of at most max bytes. Invariant: the
 * buffer never holds more than max + MCP_READ_CHUNK bytes; a longer line is
 * discarded as it streams in (skipping) and reported once, with its size,
 * when its newline (or the end of input) arrives. */
struct mcp_framer {
	char *buf;
	size_t cap;
	size_t start, len; /* unconsumed bytes: buf[start, start + len) */
	size_t scanned;    /* of those, already searched for '\n' */
	size_t max;
	bool skipping;
	uint64_t skipped; /* bytes of the line being skipped so far */
	/* The top level of the line being skipped, read as it streams by: a
	 * client waits for the answer to its request's id, and a stdio client
	 * that never gets one waits out its whole timeout. Only a request's id
	 * (the object also has "method") is kept: a client's response carries
	 * our id, which the client could take for one of its own. */
	struct frame_scan {
		uint32_t depth;
		bool done, in_str, esc, want_key, reading_key, capturing;
		bool has_method, has_id, id_bad;
		uint8_t key;      /* candidates still matching the key being read */
		uint8_t value_of; /* the key whose value comes next */
		uint32_t key_pos;
		size_t id_len;
		char id[64]; /* the id's JSON text: a string or an integer */
	} scan;
};

enum frame_kind { FRAME_NONE, FRAME_LINE, FRAME_OVERSIZED };

void framer_init(struct mcp_framer *f, size_t max);
void framer_release(struct mcp_framer *f);
/* Room for at most MCP_READ_CHUNK more bytes: 0 and *p, *n; -1 when out of
 * memory. Call framer_commit with what was read into it. */
int framer_space(struct mcp_framer *f, char **p, size_t *n);
void framer_commit(struct mcp_framer *f, size_t n);
/* The next event. FRAME_LINE: *line and *len (borrowed until the next framer
 * call; no '\n', a trailing '\r' removed). FRAME_OVERSIZED: *skipped is
 * the line's size. at_eof: the input ended, so a last line without '\n'
 * counts. */
enum frame_kind framer_next(struct mcp_framer *f, bool at_eof, const char **line, size_t *len,
                            uint64_t *skipped);
/* After FRAME_OVERSIZED: the JSON text of the skipped request's id and its
 * length (borrowed until the next framer call), or NULL when the line was
 * not a request whose id could be read (then the answer's id is null). */
const char *framer_skipped_id(const struct mcp_framer *f, size_t *len);

/* A JSON-RPC id is valid for MCP: a string or an integer (never null). */
bool rpc_id_ok(const json_t *id);
/* The id whose JSON text is text[0..n) (NULL: none), when rpc_id_ok: new,
 * else NULL. */
json_t *rpc_id_parse(const char *text, size_t n);
/* The id of the request p[0..n), read by the scan framer_skipped_id uses,
 * for a message the parser refused (a number too large, a key twice, too
 * deep, cut short): the client waits for that id. New, or NULL when no
 * request with one id shows at the top level. */
json_t *rpc_id_of_text(const char *p, size_t n);

/* ---- messages ------------------------------------------------------------ */

enum mcp_kind {
	MCP_MSG_REQUEST,      /* method and a valid id */
	MCP_MSG_NOTIFICATION, /* method, no id */
	MCP_MSG_RESPONSE,     /* result or error, and an id */
	MCP_MSG_INVALID,      /* *error says why */
};

/* Parses one message of n bytes (bounded by the caller: at most
 * cfg->max_message_bytes). Returns a new object and its kind, or NULL: then
 * *error is the error response to send (new; its id is null) and *kind
 * MCP_MSG_INVALID. A message whose shape is wrong but whose id could be read
 * is returned with MCP_MSG_INVALID and an error carrying that id. A message
 * nested deeper than JSON_DEPTH_MAX, or holding more values than one per
 * MCP_BYTES_PER_VALUE of the limit (MCP_VALUES_MIN at least, so that a
 * small limit still takes an initialize), is refused before it is
 * parsed. */
#define MCP_BYTES_PER_VALUE 32
#define MCP_VALUES_MIN      4096
json_t *mcp_parse(const struct config *cfg, const char *p, size_t n, enum mcp_kind *kind,
                  json_t **error);

/* An error response {"jsonrpc","id","error"}: new. id borrowed, NULL gives
 * "id": null; data taken (may be NULL). */
json_t *mcp_error_msg(const json_t *id, int code, json_t *data, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* ---- output: where a session's messages go ------------------------------ */

/* How far behind the client is, on the stream a message would join. */
enum mcp_room {
	MCP_ROOM_OK,    /* send anything */
	MCP_ROOM_TIGHT, /* skip what it can do without: progress, logs */
	MCP_ROOM_FULL,  /* far behind: a result becomes a short error */
};

struct mcp_session;

/* A transport's side of one session. rel is the client request a message
 * belongs to (borrowed; NULL for none: list_changed, say); HTTP sends it on
 * that request's stream. */
struct mcp_sink {
	/* Queues msg (takes it). kind: what msg is (a response ends rel's
	 * stream). Never fails: a transport that cannot deliver drops it. */
	void (*send)(void *data, json_t *msg, const json_t *rel, enum mcp_kind kind);
	enum mcp_room (*room)(void *data, const json_t *rel);
	/* A stateless session over this sink is done and about to be freed
	 * (NULL: nothing to do). */
	void (*ended)(void *data, struct mcp_session *s);
};

/* ---- mcp.c: the server and its sessions --------------------------------- */

struct mcp_call;     /* mcp_tools.c */
struct mcp_elicit;   /* mcp_elicit.c */
struct mcp_question; /* mcp_channel.c */
struct mcp_modern;   /* mcp_modern.c */

enum mcp_state {
	MCP_NEW,     /* only initialize and ping */
	MCP_READY,   /* initialize answered (or a stateless request) */
	MCP_CLOSING, /* ending: no new calls */
};

struct mcp_pending; /* mcp_modern.c */

struct mcp_server {
	struct tc_supervisor *sup;
	struct loop *loop;
	const struct config *cfg;
	size_t page_size;
	struct mcp_session *sessions; /* every session, stateless ones too */
	size_t n_sessions;
	struct tc_disposer watch;    /* registry change subscription */
	uint64_t next_state;         /* requestState handles (mcp_modern.c) */
	struct mcp_pending *pending; /* input asked of stateless clients */
	size_t n_pending;
	size_t call_args; /* what the calls in flight hold (MCP_CALL_ARGS_MAX) */
	bool closing;
	int exit_status;
	/* The transport (struct mcp_stdio, struct http_server), told about
	 * signals and freed with the server. */
	void *transport;
	void (*transport_signal)(void *transport, int signo);
	void (*transport_free)(void *transport);
};

/* One client's protocol state. A legacy session begins with initialize and
 * lives as long as its transport keeps it (the stdio connection, an HTTP
 * Mcp-Session-Id). A stateless one (revision 2026-07-28) carries one
 * request and ends with it; parent is the session whose transport it came
 * over (stdio), or NULL. */
struct mcp_session {
	struct mcp_server *srv;
	struct tc_session *tcs; /* its approvals and grants */
	const struct mcp_sink *sink;
	void *sink_data;
	enum mcp_state state;
	bool stateless;
	struct mcp_session *parent;
	char version[16];       /* negotiated protocol revision */
	bool elicit_form;       /* client accepts form-mode elicitation */
	int log_level;          /* notifications/message at or above */
	json_t *client;         /* clientInfo, for stderr (may be NULL) */
	struct mcp_call *calls; /* tools/call requests in flight */
	size_t n_calls;
	struct mcp_elicit *elicits; /* elicitation/create requests awaiting an answer */
	uint64_t next_elicit;
	struct mcp_question *questions; /* tools' questions awaiting an answer */
	uint64_t next_question;
	struct mcp_modern *modern; /* stateless: the request's own state */
	bool answered;             /* stateless: its response went out */
	bool busy;                 /* stateless: being dispatched (not freed) */
	struct mcp_session *next, *prev;
};

/* A session over sink (borrowed; must outlive it) with data. NULL when out
 * of memory. */
struct mcp_session *mcp_session_new(struct mcp_server *srv, const struct mcp_sink *sink,
                                    void *data);
/* Ends s: withdraws its questions, cancels its calls quietly, frees it.
 * Nothing more goes to its sink. NULL is a no-op. */
void mcp_session_free(struct mcp_session *s);
/* Handles one message (borrowed) of kind, from mcp_parse. */
void mcp_session_message(struct mcp_session *s, json_t *msg, enum mcp_kind kind);
/* Handles one message's text: bounds, parses, answers errors, dispatches. */
void mcp_session_text(struct mcp_session *s, const char *p, size_t n);
/* Whether s may end now: no calls in flight (stateless sessions end when
 * their request is answered). */
bool mcp_session_idle(const struct mcp_session *s);

/* Sends msg (takes it) to the client. */
void mcp_send(struct mcp_session *s, json_t *msg, const json_t *rel, enum mcp_kind kind);
/* {"jsonrpc":"2.0","id":id,"result":result}; takes result, borrows id. A
 * stateless session adds resultType and serverInfo. */
void mcp_reply(struct mcp_session *s, json_t *id, json_t *result);
/* An error response; id NULL sends "id": null. data (taken, may be NULL). */
void mcp_error(struct mcp_session *s, json_t *id, int code, json_t *data, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));
/* A notification; takes params (may be NULL). rel: the request it is about. */
void mcp_notify(struct mcp_session *s, const char *method, json_t *params, const json_t *rel);
/* notifications/message when level is at or above the client's level (and
 * the session is initialized); also on stderr when level >= warning. rel:
 * the request it is about (a call's id), or NULL. */
void mcp_log(struct mcp_session *s, const json_t *rel, enum mcp_level level, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* How far behind the client is on rel's stream. */
enum mcp_room mcp_room(const struct mcp_session *s, const json_t *rel);
/* A string's value as a name: one holding a NUL byte (valid JSON, but no
 * method or tool is called that) becomes a name nothing matches. */
const char *mcp_name(const json_t *s);
/* Revision comparison: negotiated version >= v ("2025-06-18"). */
bool mcp_version_at_least(const struct mcp_session *s, const char *v);
/* Index of level name, or -1. */
int mcp_level_parse(const char *name);
/* The server's name and version, {"name","version","title"?} (new). */
json_t *mcp_server_info(const struct mcp_session *s);
/* The supported revisions, newest first (NULL-terminated, static). */
extern const char *const mcp_versions[];
/* The server's instructions, ending with where the workspace is: new, or
 * NULL when out of memory. */
char *mcp_instructions(const struct mcp_server *srv);

/* Sends list_changed to every session that wants it. */
void mcp_server_list_changed(struct mcp_server *srv);

/* ---- the transports ------------------------------------------------------ */

/* mcp_stdio.c: serves opt->in_fd/out_fd as one connection. */
int mcp_stdio_start(struct mcp_server *srv, const struct mcp_options *opt, struct tc_error *err);
/* mcp_http.c: listens on opt->http. */
int mcp_http_start(struct mcp_server *srv, const struct mcp_options *opt, struct tc_error *err);

/* ---- mcp_tools.c --------------------------------------------------------- */

void mcp_tools_list(struct mcp_session *s, json_t *id, json_t *params);
void mcp_tools_call(struct mcp_session *s, json_t *id, json_t *params);
void mcp_cancelled(struct mcp_session *s, json_t *id, json_t *params);
/* Subscribes to registry changes (list_changed). */
int mcp_tools_watch(struct mcp_server *srv, struct tc_error *err);
/* Shutdown: stops s's progress timers. */
void mcp_tools_shutdown(struct mcp_session *s);
/* Frees s's call records (their results will never come: quiet). */
void mcp_tools_release(struct mcp_session *s);
/* Whether a client request id is a tools/call of s still in flight. */
bool mcp_call_in_flight(const struct mcp_session *s, const json_t *id);
/* The call with pipeline id call_id, or NULL. */
struct mcp_call *mcp_call_by_id(const struct mcp_session *s, uint64_t call_id);
/* Its request id (borrowed) and its params (borrowed: the request's). */
const json_t *mcp_call_rel(const struct mcp_call *mc);

/* ---- mcp_channel.c -------------------------------------------------------- */

/* Routes the messages of s's tools (channel.h) to the client. */
/* Sends elicitation/create (a form) with id (stolen), message and schema
 * (borrowed) on rel's stream: approvals and a tool's questions alike. */
void mcp_elicit_send(struct mcp_session *s, json_t *id, const char *message, const json_t *schema,
                     const json_t *rel);
void mcp_channel_enable(struct mcp_session *s);
/* A response to one of the tools' questions: 0, or -1 when the id is not
 * one of them. */
int mcp_channel_response(struct mcp_session *s, json_t *msg);
/* The call ended: its question, if any, is withdrawn. */
void mcp_channel_withdraw(struct mcp_session *s, uint64_t call_id);
/* Frees what is left (the session ends). */
void mcp_channel_release(struct mcp_session *s);

/* ---- mcp_elicit.c --------------------------------------------------------- */

/* Routes s's approvals to the client (it declared form elicitation). */
void mcp_elicit_enable(struct mcp_session *s);
/* A response (result or error) from the client: 0 when it answered one of
 * our requests, -1 when the id is not ours. */
int mcp_elicit_response(struct mcp_session *s, json_t *msg);
/* The call went away (cancelled, finished): withdraw its request. */
void mcp_elicit_withdraw(struct mcp_session *s, uint64_t call_id);
/* Shutdown: every pending request's call is cancelled, tickets released. */
void mcp_elicit_shutdown(struct mcp_session *s);
/* Whether call_id's approval is being asked of the client. */
bool mcp_elicit_pending(const struct mcp_session *s, uint64_t call_id);
/* The approval question's text and form for req, shared with stateless
 * input requests: 0, or -1 (too long to show: deny without asking; out of
 * memory). *message (malloc'd) and *schema (new). */
int mcp_approval_question(const struct mcp_session *s, const struct tc_approval_request *req,
                          char **message, json_t **schema, const char **why_not);
/* Maps an elicitation answer (an ElicitResult) to a decision; who names it. */
enum tc_approval mcp_approval_decide(json_t *result, char *who, size_t n);

/* ---- mcp_modern.c ------------------------------------------------------- */

/* Whether msg is a stateless (2026-07-28) request: its params._meta names
 * a protocol version. */
bool mcp_modern_request(json_t *msg);
/* Checks a stateless request's _meta: 0, or -1 with *error (new) and *http
 * the status an HTTP answer should have (400). */
int mcp_modern_check(json_t *msg, json_t **error, int *http);
/* A stateless session for one request of kind (msg borrowed), over sink;
 * parent: the session it came through (stdio), or NULL. Dispatches the
 * request. Returns the session (it frees itself when answered), or NULL
 * when it was answered at once and is gone already. */
struct mcp_session *mcp_modern_start(struct mcp_server *srv, const struct mcp_sink *sink,
                                     void *data, struct mcp_session *parent, json_t *msg);
/* The stateless request's session ended on its own (answered): frees it. */
void mcp_modern_done(struct mcp_session *s);
/* A stateless tools/call: whether the answer is an input_required result
 * (set by the approver), and that result (new). */
json_t *mcp_modern_take_input(struct mcp_session *s, const struct mcp_call *mc);
/* Before a stateless tools/call is submitted: its params (borrowed for the
 * call: inputResponses, requestState). */
void mcp_modern_call_params(struct mcp_session *s, json_t *params);
/* server/discover and subscriptions/listen. */
void mcp_discover(struct mcp_session *s, json_t *id, json_t *params);
void mcp_listen(struct mcp_session *s, json_t *id, json_t *params);
/* Adds ttlMs and cacheScope to a list result. */
void mcp_modern_cacheable(json_t *result);
/* Ends s's subscription if rid is its subscriptions/listen request: 0, or -1. */
int mcp_modern_cancel_listen(struct mcp_session *s, const json_t *rid);
void mcp_modern_release(struct mcp_session *s);
void mcp_modern_list_changed(struct mcp_session *s);
/* Server teardown: the pending table. */
void mcp_modern_server_release(struct mcp_server *srv);

#endif
