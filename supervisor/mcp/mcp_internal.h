/* mcp_internal.h — what the MCP server's files share: mcp.c (lifecycle,
 * input, output, dispatch table, logging), mcp_frame.c (line framing and
 * JSON-RPC message checks), mcp_tools.c (tools/list, tools/call,
 * cancellation, progress, list_changed) and mcp_elicit.c (approvals as
 * elicitation/create requests to the client). */
#ifndef TC_MCP_INTERNAL_H
#define TC_MCP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "config.h"
#include "loop.h"
#include "mcp.h"
#include "util.h"

#define MCP_MAX_DEPTH 64              /* nesting levels in one message */
#define MCP_READ_CHUNK (64u << 10)    /* bytes read from the client per turn */
/* Output waiting for a client that does not read: past MCP_OUT_HIGH, we
 * stop reading its requests until it catches up; past MCP_OUT_MAX, the
 * calls already admitted (up to queue_max + max_concurrent) answer with a
 * short error instead of their result, so the backlog stays near it. */
#define MCP_OUT_HIGH (16u << 20)
#define MCP_OUT_MAX (64u << 20)
#define MCP_LOG_TEXT_MAX 4096         /* bytes of a notifications/message text */

/* JSON-RPC 2.0 error codes. */
enum {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL_ERROR = -32603,
};

/* RFC 5424 levels as MCP names them, lowest first. */
enum mcp_level {
	MCP_LOG_DEBUG, MCP_LOG_INFO, MCP_LOG_NOTICE, MCP_LOG_WARNING,
	MCP_LOG_ERROR, MCP_LOG_CRITICAL, MCP_LOG_ALERT, MCP_LOG_EMERGENCY,
};

/* ---- mcp_frame.c: lines in, bounded ----------------------------------- */

/* Splits a byte stream into lines of at most max bytes. Invariant: the
 * buffer never holds more than max + MCP_READ_CHUNK bytes; a longer line is
 * discarded as it streams in (skipping) and reported once, with its size,
 * when its newline (or the end of input) arrives. */
struct mcp_framer {
	char *buf;
	size_t cap;
	size_t start, len;      /* unconsumed bytes: buf[start, start + len) */
	size_t scanned;         /* of those, already searched for '\n' */
	size_t max;
	bool skipping;
	uint64_t skipped;       /* bytes of the line being skipped so far */
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
enum frame_kind framer_next(struct mcp_framer *f, bool at_eof, const char **line,
                            size_t *len, uint64_t *skipped);

/* True when the JSON text p (n bytes) nests arrays/objects at most max deep.
 * A scan before parsing, so a hostile message never reaches the parser's
 * recursion. */
bool mcp_depth_ok(const char *p, size_t n, unsigned max);

/* A JSON-RPC id is valid for MCP: a string or an integer (never null). */
bool rpc_id_ok(const json_t *id);

/* ---- mcp.c: the server ----------------------------------------------- */

struct mcp_call;       /* mcp_tools.c */
struct mcp_elicit;     /* mcp_elicit.c */

enum mcp_state {
	MCP_NEW,           /* only initialize and ping */
	MCP_READY,         /* initialize answered */
	MCP_CLOSING,       /* input ended or a signal: no new calls */
};

struct mcp_server {
	struct tc_supervisor *sup;
	struct loop *loop;
	const struct config *cfg;
	enum mcp_state state;
	int in_fd, out_fd;
	int in_flags, out_flags;       /* to restore: O_NONBLOCK is shared with the parent */
	bool in_watched, in_paused, in_eof;
	struct loop_timer *in_timer;   /* regular-file input: epoll cannot watch it */
	bool out_watched, out_broken;
	struct mcp_framer in;
	struct buf out;                /* written up to out_off */
	size_t out_off;
	char version[16];              /* negotiated protocol revision */
	bool elicit_form;              /* client accepts form-mode elicitation */
	int log_level;                 /* notifications/message at or above */
	size_t page_size;
	struct mcp_call *calls;        /* tools/call requests in flight */
	size_t n_calls;
	struct mcp_elicit *elicits;    /* elicitation/create requests awaiting an answer */
	uint64_t next_elicit;
	struct tc_disposer watch;      /* registry change subscription */
	int exit_status;
};

/* Bytes of answers written for the client and not yet read by it. */
static inline size_t mcp_backlog(const struct mcp_server *m)
{
	return m->out.len - m->out_off;
}

/* Sends msg (takes it) as one line. Output errors mark the server broken
 * (the client is gone) and stop the loop. */
void mcp_send(struct mcp_server *m, json_t *msg);
/* {"jsonrpc":"2.0","id":id,"result":result}; takes result, borrows id. */
void mcp_reply(struct mcp_server *m, json_t *id, json_t *result);
/* An error response; id NULL sends "id": null. data (taken, may be NULL). */
void mcp_error(struct mcp_server *m, json_t *id, int code, json_t *data,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A string's value as a name: one holding a NUL byte (valid JSON, but no
 * method or tool is called that) becomes a name nothing matches. */
const char *mcp_name(const json_t *s);
/* A notification; takes params (may be NULL). */
void mcp_notify(struct mcp_server *m, const char *method, json_t *params);
/* notifications/message when level is at or above the client's level (and
 * the session is initialized); also on stderr when level >= warning. */
void mcp_log(struct mcp_server *m, enum mcp_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Revision comparison: negotiated version >= v ("2025-06-18"). */
bool mcp_version_at_least(const struct mcp_server *m, const char *v);

/* ---- mcp_tools.c ------------------------------------------------------ */

void mcp_tools_list(struct mcp_server *m, json_t *id, json_t *params);
void mcp_tools_call(struct mcp_server *m, json_t *id, json_t *params);
void mcp_cancelled(struct mcp_server *m, json_t *id, json_t *params);
/* Subscribes to registry changes (notifications/tools/list_changed). */
int mcp_tools_watch(struct mcp_server *m, struct tc_error *err);
/* Shutdown: stops progress timers and the registry subscription. */
void mcp_tools_shutdown(struct mcp_server *m);
/* After the supervisor is gone: frees any call record left (none should be:
 * every call got its result while the supervisor was freed). */
void mcp_tools_release(struct mcp_server *m);
/* Whether a client request id is a tools/call still in flight. */
bool mcp_call_in_flight(const struct mcp_server *m, const json_t *id);

/* ---- mcp_elicit.c ----------------------------------------------------- */

/* Routes approvals to the client (when it declared form elicitation). */
void mcp_elicit_enable(struct mcp_server *m);
/* A response (result or error) from the client: 0 when it answered one of
 * our requests, -1 when the id is not ours. */
int mcp_elicit_response(struct mcp_server *m, json_t *msg);
/* The call went away (cancelled, finished): withdraw its request. */
void mcp_elicit_withdraw(struct mcp_server *m, uint64_t call_id);
/* Shutdown: every pending request's call is cancelled, tickets released. */
void mcp_elicit_shutdown(struct mcp_server *m);

#endif
