/* pipeline.h — the supervisor: every call through validate, authorize,
 * execute, render, ending in exactly one struct tc_result. Owns the event
 * loop, the registry, the profiles' jails, the slots and the queue.
 *
 * A call's states: VALIDATE -> AUTHORIZE -> [APPROVAL] -> QUEUED -> RUNNING
 * -> DONE. A call waiting for approval holds no slot. Every transition to
 * DONE goes through finish(), which renders, emits tool-result, calls the
 * caller back once and frees the call.
 */
#ifndef TC_PIPELINE_H
#define TC_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "loop.h"
#include "toolcage.h"

struct tc_supervisor;
struct config;

/* Options the CLI (and embedders) give; NULL/0 fields take the config's
 * or built-in defaults. Strings are copied. */
struct tc_options {
	const char *workspace;       /* default: the config's, else "." */
	const char *config_path;     /* NULL: ./toolcage.json if present, else defaults */
	const char *const *tool_dirs;/* extra manifest directories (NULL-terminated) */
	const char *approve;         /* "deny", "tty", "cmd:PROGRAM" */
	const char *audit_path;
	bool no_builtins;            /* do not load the built-in plugins */
	bool watch_tool_dirs;        /* reload manifests when their directories
	                              * change (inotify): the registry's watchers
	                              * (MCP list_changed) hear about it */
	bool handle_signals;         /* SIGINT/SIGTERM/SIGHUP end every call in
	                              * flight (cancelled, audited) and stop: see
	                              * tc_supervisor_signal */
};

/* Creates a supervisor: loads the config, the built-in plugins and the
 * manifests. Returns 0 and a new supervisor, or -1 with err. */
int tc_supervisor_new(const struct tc_options *opt, struct tc_supervisor **out,
                      struct tc_error *err);
/* Cancels every call in flight (each gets its result), kills every child,
 * and frees. NULL is a no-op. */
void tc_supervisor_free(struct tc_supervisor *s);

/* Borrowed, valid until tc_supervisor_free. */
struct tc_registry *tc_supervisor_registry(struct tc_supervisor *s);
struct loop *tc_supervisor_loop(struct tc_supervisor *s);
const struct config *tc_supervisor_config(const struct tc_supervisor *s);
/* The event hub every call's events go through (audit.h: subscribe to it
 * with audit_subscribe). Borrowed, valid until tc_supervisor_free. */
struct audit;
struct audit *tc_supervisor_audit(struct tc_supervisor *s);

/* Called once per call with its result (the callee takes it). */
typedef void (*tc_call_fn)(struct tc_result *res, void *data);

/* Decides an approval request asynchronously: call respond(ctx, decision)
 * exactly once, now or later from the loop. decision: TC_APPROVE_*. */
enum tc_approval { TC_APPROVE_DENY = 0, TC_APPROVE_ONCE, TC_APPROVE_SESSION };
struct tc_approval_request {
	const char *tool;
	json_t *args;                /* borrowed: the validated arguments */
	const char *reason;          /* which rule or level asked */
	uint64_t call_id;
};
typedef void (*tc_approval_respond)(void *ctx, enum tc_approval decision, const char *who);
typedef void (*tc_approver_fn)(const struct tc_approval_request *req,
                               tc_approval_respond respond, void *ctx, void *data);
/* Replaces the configured approval channel (replay's scripted approver,
 * MCP elicitation). fn NULL restores the configured channel. */
void tc_supervisor_set_approver(struct tc_supervisor *s, tc_approver_fn fn, void *data);

/* Submits a call: args_json is the arguments as the model sent them (text;
 * parse errors are a result, not an error). fn is called exactly once, maybe
 * before tc_call_submit returns (validation failures, denials). Returns the
 * call id. */
uint64_t tc_call_submit(struct tc_supervisor *s, const char *tool, const char *args_json,
                        tc_call_fn fn, void *data);
/* Cancels a call in flight: its child is killed; its result (status
 * cancelled) is still delivered unless quiet is set. 0, or -1 if unknown. */
int tc_call_cancel(struct tc_supervisor *s, uint64_t call_id, bool quiet);

/* Runs the loop until that call is done and returns its result (new). */
struct tc_result *tc_call(struct tc_supervisor *s, const char *tool, const char *args_json);

/* One turn of the loop (for callers that own stdin etc. on the same loop). */
int tc_supervisor_run_once(struct tc_supervisor *s, int timeout_ms);
/* The signal that stopped the supervisor (handle_signals), or 0. Once set,
 * every call in flight has ended as cancelled and new calls are refused. */
int tc_supervisor_signal(const struct tc_supervisor *s);

/* Calls in flight (validated and not yet finished). */
size_t tc_supervisor_active(const struct tc_supervisor *s);

#endif
