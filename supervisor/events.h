/* events.h — what a call tells the event hub (audit.h), in one place: the
 * pipeline emits a call's start, result and errors, stage 2 its approval
 * events, the egress service its connections. */
#ifndef TC_EVENTS_H
#define TC_EVENTS_H

#include "pipeline_internal.h"

/* The event hub, and the audit log when opt or the config names one. 0, or
 * -1 with err. events_release closes them (no-op when never made). */
int events_init(struct tc_supervisor *s, const struct tc_options *opt, struct tc_error *err);
void events_release(struct tc_supervisor *s);

/* Whether anyone subscribed (the audit log, an embedder): events nobody
 * reads are not built. */
bool events_listening(const struct tc_supervisor *s);
/* Takes ev. A failed write is reported on stderr; -1 then, so that a
 * config with audit.required can refuse to run unaudited. */
int events_emit(struct tc_supervisor *s, json_t *ev);

/* args: the parsed arguments (borrowed), or NULL with raw the text sent.
 * -1 only when the write failed and the config requires the audit. */
int events_call_start(struct tc_supervisor *s, struct call *c, json_t *args, const char *raw,
                      size_t raw_len);
void events_call_result(struct tc_supervisor *s, struct call *c, const struct tc_result *r,
                        const struct call_usage *u);
void events_call_error(struct tc_supervisor *s, struct call *c, const char *what);
/* A connection's event from the egress service (borrowed). */
void events_network(struct tc_supervisor *s, json_t *event);
/* Stage 2's: an approval asked (args: what is asked about, borrowed), its
 * answer, and the session's grants after one was added (grants: taken, as
 * audit_event_session_grant takes them). */
void events_approval_request(struct tc_supervisor *s, struct call *c, json_t *args,
                             const char *reason);
void events_approval_decision(struct tc_supervisor *s, struct call *c, enum tc_approval d,
                              const char *who);
/* The gate's verdict on c (allow, ask or deny), who decided and why. */
void events_policy_decision(struct tc_supervisor *s, struct call *c, const char *decision,
                            const char *by, const char *reason);
void events_session_grant(struct tc_supervisor *s, struct call *c, json_t *grants);

#endif
