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

/* The supervisor API itself is public: see toolcage.h. This header adds
 * only what the layers above (mcp/, cli/) need beside it. */

struct config;
struct audit;

/* Borrowed, valid until tc_supervisor_free. */
struct loop *supervisor_loop(struct tc_supervisor *s);
const struct config *supervisor_config(const struct tc_supervisor *s);
/* Whether the sandbox can run every profile the first `tools` registered
 * tools use (SIZE_MAX: all; each compiled once and kept, so asking again
 * is cheap): 0, or -1 with why naming the first that cannot ("profile P
 * (tool T): ..."). For readiness probes (serve --http's /health), and at
 * serve's start for a workspace no profile takes (/, a home). */
int supervisor_ready(struct tc_supervisor *s, size_t tools, char *why, size_t n);
/* What the supervisor's own lines on stderr (a profile's dropped limits,
 * a failed audit write, a manifest that no longer loads) start with:
 * "toolcage" unless set; the CLI sets "toolcage VERB", as every line of
 * a verb starts (docs/cli.md). Copies who (cut at 31 bytes). */
void supervisor_set_msg_prefix(struct tc_supervisor *s, const char *who);
/* The event hub every call's events go through (audit.h: subscribe to it
 * with audit_subscribe). */
struct audit *supervisor_audit(struct tc_supervisor *s);

/* tc_session_call_submit and tc_call_refuse for arguments parsed already
 * (an MCP request's): no text is printed and parsed again. args is
 * borrowed: the call keeps a reference of its own and changes nothing in
 * it, so the caller must not change it either; NULL is {}. */
uint64_t supervisor_call_submit_json(struct tc_session *ss, const char *tool, json_t *args,
                                     tc_call_fn fn, void *data);
uint64_t supervisor_call_refuse_json(struct tc_supervisor *s, const char *tool, json_t *args,
                                     enum tc_status st, const char *text, tc_call_fn fn,
                                     void *data);
/* The "arguments" member of a call given as JSON (an MCP tools/call's
 * params, a replayed line): borrowed from holder, NULL when absent or
 * null. null is not in MCP's schema, but clients send it for a tool that
 * takes nothing, and a harness records what they sent: both mean no
 * arguments, wherever the call comes from. Any other value is returned
 * as it is, for the caller to refuse when it is not an object. */
json_t *supervisor_call_arguments(json_t *holder);
/* What arguments that are not a JSON object are, for a message "... must
 * be a JSON object, not %s": their JSON type ("an array", "a string"), and
 * for a string whose text is a JSON object (a client that encoded the
 * arguments twice), that and what to do. Static text. */
const char *supervisor_args_kind(const json_t *v);

#endif
