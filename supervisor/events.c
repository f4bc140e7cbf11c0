/* events.c — the events every call emits (call-start, tool-result, error,
 * the egress service's connections) into the supervisor's event hub
 * (audit.h), which the audit log and an embedder's listener subscribe to.
 * Stage 2's approval events go through events_emit too. */
#include <stdio.h>
#include <stdlib.h>

#include "audit.h"
#include "events.h"
#include "shown.h"
#include "utf8.h"
#include "util.h"

/* Takes ev. A failed write is reported on stderr; returns -1 so that a
 * config with audit.required can refuse to run unaudited. */
int events_emit(struct tc_supervisor *s, json_t *ev)
{
	struct tc_error err = { 0 };
	int rc = 0;
	if (!ev || audit_emit(s->audit, ev, &err) < 0) {
		shown_fprintf(stderr, "%s: audit: %s\n", s->msg_prefix,
		              ev ? err.msg : "out of memory");
		rc = -1;
	}
	json_decref(ev);
	return rc;
}

/* Events nobody subscribed to (no audit log, no embedder listening) are
 * not built: a plain call's two events cost ~15 us (a timestamp, a deep
 * copy of the arguments, a dozen allocations) only to be thrown away. */
bool events_listening(const struct tc_supervisor *s)
{
	return audit_has_subscribers(s->audit);
}

int events_call_start(struct tc_supervisor *s, struct call *c, json_t *args, const char *raw,
                      size_t raw_len)
{
	if (!events_listening(s))
		return 0;
	json_t *logged;
	if (args)
		logged = json_incref(args);
	else if (raw_len > s->cfg->max_message_bytes)
		logged = json_sprintf("(%zu bytes: over the message limit)", raw_len);
	else { /* not JSON: logged as the text it was, repaired (the audit elides it) */
		size_t n;
		char *clean = utf8_sanitize(raw ? raw : "", raw_len, true, &n);
		logged = clean ? json_stringn(clean, n) : json_null();
		free(clean);
	}
	int rc = events_emit(s,
	                     audit_event_call_start(c->id, c->name, logged,
	                                            c->tool ? tc_risk_name(c->tool->risk) : NULL));
	json_decref(logged);
	return s->cfg->audit_required ? rc : 0;
}

void events_call_result(struct tc_supervisor *s, struct call *c, const struct tc_result *r,
                        const struct call_usage *u)
{
	if (!events_listening(s))
		return;
	struct audit_result ar = {
		.status = tc_status_name(r->status),
		.duration_ms = r->duration_ms,
		.ran = u->ran,
		.exit_code = u->exit_code,
		.signal = u->signal,
		.cpu_ms = u->cpu_ms,
		.max_rss_kb = u->max_rss_kb,
		.bytes = u->bytes,
		.truncated = r->truncated,
		.confinement = r->confinement,
	};
	events_emit(s, audit_event_tool_result(c->id, c->name, &ar));
}

void events_call_error(struct tc_supervisor *s, struct call *c, const char *what)
{
	if (!events_listening(s))
		return;
	events_emit(s, audit_event_error(c ? c->id : 0, c ? c->name : NULL, what));
}

void events_network(struct tc_supervisor *s, json_t *event)
{
	if (events_listening(s))
		events_emit(s, json_incref(event));
}

int events_init(struct tc_supervisor *s, const struct tc_options *opt, struct tc_error *err)
{
	/* Always an event hub, so embedders can subscribe; a sink when a path
	 * is configured. */
	const char *audit_path = opt->audit_path ? opt->audit_path : s->cfg->audit_path;
	if (audit_path ? audit_open(audit_path, &s->audit, err) < 0 : !(s->audit = audit_new()))
		return audit_path ? -1 : tc_error_set(err, TC_E_NOMEM, "audit", "out of memory");
	return 0;
}

void events_release(struct tc_supervisor *s)
{
	audit_close(s->audit);
	s->audit = NULL;
}

void events_approval_request(struct tc_supervisor *s, struct call *c, json_t *args,
                             const char *reason)
{
	if (events_listening(s))
		events_emit(s, audit_event_approval_request(c->id, c->name, args, reason));
}

void events_approval_decision(struct tc_supervisor *s, struct call *c, enum tc_approval d,
                              const char *who)
{
	if (!events_listening(s))
		return;
	events_emit(s,
	            audit_event_approval_decision(c->id, c->name,
	                                          d == TC_APPROVE_ONCE ? "allow_once" :
	                                                  d == TC_APPROVE_SESSION ?
	                                                                 "allow_session" :
	                                                  d == TC_APPROVE_COMMAND ?
	                                                                 "allow_command" :
	                                                  d == TC_APPROVE_TOOL ? "allow_tool" :
	                                                                         "deny",
	                                          who));
}

void events_policy_decision(struct tc_supervisor *s, struct call *c, const char *decision,
                            const char *by, const char *reason)
{
	if (events_listening(s))
		events_emit(s, audit_event_policy_decision(c->id, c->name, decision, by, reason));
}

void events_session_grant(struct tc_supervisor *s, struct call *c, json_t *grants)
{
	if (events_listening(s))
		events_emit(s, audit_event_session_grant(c->name, c->args, grants));
	else
		json_decref(grants);
}
