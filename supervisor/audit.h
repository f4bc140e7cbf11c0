/* audit.h — events and the audit log.
 *
 * An event is a jansson object made by one of the audit_event_* helpers:
 *   {"event": TYPE, "call": ID, "ts": "2025-01-31T12:00:00.123Z", ...}
 * TYPE is call-start, approval-request, approval-decision, tool-result,
 * error or session-grant (fields below at each helper), or network (one
 * connection of a tool with egress, made by supervisor/net: docs/network.md); "call" is the
 * pipeline's call id (omitted when 0, e.g. an error outside any call) and
 * ties one call's events together; "ts" is when the event was made (RFC 3339,
 * UTC, milliseconds).
 *
 * A struct audit hands each emitted event to its subscribers (C callbacks,
 * in subscription order). The audit sink is one such subscriber: it appends
 * one JSON object per line per event to a file, adding "session" (random
 * per sink, so call ids of different runs appended to one file stay apart)
 * and eliding argument values longer than AUDIT_ELIDE_CHARS characters.
 * A line still longer than AUDIT_LINE_MAX (thousands of arguments, long
 * keys) is written with each field longer than AUDIT_FIELD_MAX bytes of
 * JSON replaced by a string: that JSON, cut, and " [... N bytes of JSON in
 * all]".
 * Lines are ASCII (JSON_ENSURE_ASCII), so no character can act as a line
 * end or a terminal control for a reader. Each line goes out with one
 * write(2) (O_APPEND) under an flock shared by every toolcage appending to
 * the file, before emit returns, so a crash loses nothing already decided;
 * a line whose write fails is taken back (ftruncate) and reported to the
 * emitter (-1 with err), so a pipeline whose config says the audit is
 * required can refuse calls.
 *
 * Not thread-safe (toolcage is single-threaded, docs/architecture.md).
 */
#ifndef TC_AUDIT_H
#define TC_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "toolcage.h"

#define AUDIT_ELIDE_CHARS 256         /* longer argument strings are cut */
#define AUDIT_TEXT_MAX    2048        /* reasons and messages are cut to this */
#define AUDIT_LINE_MAX    (1u << 20)  /* a longer line is made again with: */
#define AUDIT_FIELD_MAX   (64u << 10) /* each field's JSON cut to this many bytes */

/* ---- events -------------------------------------------------------------
 * Each helper returns a new event (one reference), or NULL when out of
 * memory. Strings are copied (cut to AUDIT_TEXT_MAX bytes on a character
 * boundary); json_t arguments are borrowed and deep-copied unless the
 * comment says "takes". NULL strings are left out of the event. */

/* {"event":"call-start", "tool", "risk", "args"} */
json_t *audit_event_call_start(uint64_t call, const char *tool, json_t *args, const char *risk);
/* {"event":"policy-decision", "tool", "decision", "by", "reason"}:
 * the gate's verdict on a call, for every call that reached it: decision
 * "allow", "ask" or "deny"; by: the check that decided ("rules",
 * "policy", "session-grant", "protected" ...); reason: its words. */
json_t *audit_event_policy_decision(uint64_t call, const char *tool, const char *decision,
                                    const char *by, const char *reason);
/* {"event":"approval-request", "tool", "args", "reason"} */
json_t *audit_event_approval_request(uint64_t call, const char *tool, json_t *args,
                                     const char *reason);
/* {"event":"approval-decision", "tool", "decision", "by"}: decision is e.g.
 * "allow_once", "allow_session" or "deny"; by names who decided (the
 * channel: "tty", "cmd:/path", "mcp", "timeout", ...). */
json_t *audit_event_approval_decision(uint64_t call, const char *tool, const char *decision,
                                      const char *by);
/* {"event":"session-grant", "tool", "args", "grants"}: grants is the whole
 * list after this grant (gate_grants); takes grants (may be NULL). No call
 * id: a grant belongs to the session and outlives the call; the
 * approval-decision event just before it ("allow_session") names the call. */
json_t *audit_event_session_grant(const char *tool, json_t *args, json_t *grants);

/* What a call cost, for the tool-result event. */
struct audit_result {
	const char *status; /* "ok", "denied", "timed_out", ... */
	uint64_t duration_ms;
	bool ran;      /* a child ran: the fields below are real */
	int exit_code; /* -1 when killed by a signal */
	int signal;    /* 0 when it exited */
	uint64_t cpu_ms;
	uint64_t max_rss_kb;
	uint64_t bytes;      /* output bytes captured */
	bool truncated;      /* output or render was cut */
	json_t *confinement; /* borrowed, or NULL: what held (confinement.h) */
};
/* {"event":"tool-result", "tool", "status", "duration_ms", "truncated",
 *  and when ran: "exit_code", "signal", "cpu_ms", "max_rss_kb", "bytes",
 *  "confinement"} */
json_t *audit_event_tool_result(uint64_t call, const char *tool, const struct audit_result *r);
/* {"event":"error", "tool", "message"}: a defect (a crashed builtin, a
 * broken invariant), never an expected failure. */
json_t *audit_event_error(uint64_t call, const char *tool, const char *message);
/* {"event":"connection-refused", "peer", "uid"?, "reason"}: a connection
 * to `serve --http` turned away for whose it is (peer: "ADDR:PORT"; uid:
 * its owner as the kernel names it, < 0 when it could not). */
json_t *audit_event_connection_refused(const char *peer, long long uid, const char *reason);
/* {"event":"connections-refused", "suppressed", "by_uid", "others"?,
 *  "window_ms", "final"?}: the refusals of one window not written alone
 * (suppressed: all of them; by_uid: [{"uid"?, "suppressed"}], borrowed;
 * others: those of uids not counted apart, left out when 0; final: the
 * last summary, at shutdown). */
json_t *audit_event_connections_refused(uint64_t suppressed, json_t *by_uid, uint64_t others,
                                        int64_t window_ms, bool final);

/* A copy of v in which every string longer than max characters (at any
 * depth) is cut to max characters followed by " [... N characters in
 * all]". New reference, or NULL when out of memory. */
json_t *audit_elide(json_t *v, size_t max);

/* Writes the current time as RFC 3339 UTC with milliseconds
 * ("2025-01-31T12:00:00.123Z") into out. */
void audit_timestamp(char out[32]);

/* ---- subscribers --------------------------------------------------------- */

/* Called for each event (borrowed: valid for the call only; must not be
 * changed). Returns 0, or -1 with err filled when the event could not be
 * handled (the sink: not written). */
typedef int (*audit_fn)(void *data, json_t *event, struct tc_error *err);

struct audit;

/* A new event hub with no subscribers, or NULL when out of memory. */
struct audit *audit_new(void);
/* audit_new plus an audit sink on path subscribed first (see
 * audit_sink_open). 0, or -1 with err and *out NULL. */
int audit_open(const char *path, struct audit **out, struct tc_error *err);
/* Frees the hub and the sink audit_open made (subscribers' data is not
 * touched): call no disposer of this hub afterwards. NULL is a no-op. */
void audit_close(struct audit *a);

/* Adds fn after the current subscribers. *out (may be NULL) unsubscribes;
 * valid until called or until audit_close. Disposing during an emit is
 * safe: the subscriber gets no further events. */
int audit_subscribe(struct audit *a, audit_fn fn, void *data, struct tc_disposer *out,
                    struct tc_error *err);

/* Whether anyone is subscribed: an emitter may skip building events that
 * nobody would receive. */
bool audit_has_subscribers(const struct audit *a);

/* Hands event (borrowed) to every subscriber in order. Every subscriber is
 * called even when one fails. Returns 0, or -1 with err holding the first
 * failure. */
int audit_emit(struct audit *a, json_t *event, struct tc_error *err);

/* ---- the audit sink ------------------------------------------------------- */

struct audit_sink;

/* Opens (creating it 0600 when missing) path for appending, O_CLOEXEC and
 * O_NOFOLLOW (a symlink planted at the log's path must not redirect it);
 * a fifo or socket at path is refused without blocking.
 * fsync_each: also fsync(2) after every line (slower; survives power loss,
 * not just a crash). 0, or -1 with err (TC_E_SYSTEM naming the path). */
int audit_sink_open(const char *path, bool fsync_each, struct audit_sink **out,
                    struct tc_error *err);
/* Writes one line for event (borrowed). 0, or -1 with err (TC_E_SYSTEM:
 * the write failed, e.g. disk full; a partial line was taken back). */
int audit_sink_write(struct audit_sink *s, json_t *event, struct tc_error *err);
/* An audit_fn whose data is a struct audit_sink *. */
int audit_sink_subscriber(void *data, json_t *event, struct tc_error *err);
/* Closes the file. NULL is a no-op. */
void audit_sink_close(struct audit_sink *s);

#endif
