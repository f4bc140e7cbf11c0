/* policy.c — stage 2 of the pipeline: the gate's verdict and, when it asks,
 * an approval. An approval is requested
 * through one channel: the embedder's approver (replay's script, MCP
 * elicitation) when one is set, else the configured one: deny (the default:
 * no approver means no), tty, or cmd:PROGRAM. A once-approval is a gate
 * token bound to the exact validated arguments and consumed just before the
 * fork. Its verdict goes back through the pipeline's policy_verdict_fn:
 * nothing here runs or finishes a call. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "approval.h"
#include "egress.h"
#include "events.h"
#include "gate.h"
#include "jsonptr.h"
#include "pipeline_internal.h"
#include "shown.h"
#include "utf8.h"
#include "util.h"
#include "io.h"

/* ---- the verdict -------------------------------------------------------- */

static void to_buf(void *ctx, const char *p, size_t n)
{
	buf_add(ctx, p, n);
}

/* Ends c through the pipeline's verdict: refused with st, canonical (taken)
 * and a message formatted as the pipeline's own (names quoted with their
 * control characters shown). */
static void refuse(struct call *c, enum tc_status st, json_t *canonical, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void refuse(struct call *c, enum tc_status st, json_t *canonical, const char *fmt, ...)
{
	struct buf text = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	shown_vformat(to_buf, &text, fmt, ap);
	va_end(ap);
	struct policy_verdict v = { .status = st,
		                    .canonical = canonical,
		                    .text = text.failed ? NULL : text.data,
		                    .text_len = text.len };
	c->policy.verdict(c, &v);
	buf_release(&text);
}

/* Lets c run: approved by a person or a grant, or only its precheck. */
static void allow(struct call *c, bool approved, bool precheck)
{
	struct policy_verdict v = { .run = true, .approved = approved, .precheck = precheck };
	c->policy.verdict(c, &v);
}

/* ---- approvals -------------------------------------------------------- */

/* The respond() context: the call is looked up by id, so an answer that
 * comes after the call was cancelled (or the supervisor began shutting
 * down) finds nothing and is dropped. */
struct ticket {
	struct tc_supervisor *s; /* NULL once the supervisor is gone */
	uint64_t id;
	struct ticket *next, *prev; /* the supervisor's outstanding tickets */
};

static void ticket_unlink(struct ticket *t)
{
	if (!t->s)
		return;
	if (t->prev)
		t->prev->next = t->next;
	else
		t->s->tickets = t->next;
	if (t->next)
		t->next->prev = t->prev;
}

/* Frees a ticket whose respond() will never come (NULL: none). */
static void ticket_free(void *ctx)
{
	struct ticket *t = ctx;
	if (!t)
		return;
	ticket_unlink(t);
	free(t);
}

static struct call *find_call(struct tc_supervisor *s, uint64_t id)
{
	for (struct call *c = s->calls; c; c = c->next)
		if (c->id == id && c->policy.asking)
			return c;
	return NULL;
}

/* Whether the denial came from there being no one to ask (no approver
 * configured, no terminal), not from someone's answer. approval.c words
 * those "no approver ..." and "no terminal ...". */
static bool nobody_to_ask(const char *who)
{
	return !strncmp(who, "no approver", 11) || !strncmp(who, "no terminal", 11);
}

/* What in toolcage.json would let c through without a question, into
 * buf: the first check that asked is the one to change. An allow rule is
 * no answer to a level that asks (docs/config.md, "How a call is
 * authorized"), so it is never the advice for one. */
static void config_fix(const struct call *c, char *buf, size_t size)
{
	const char *rn = tc_risk_name(c->tool->risk);
	bool level_asks = c->sup->cfg->policy.levels[c->tool->risk] == GATE_ASK;
	if (!strcmp(c->policy.ask_check, "rules") && level_asks)
		snprintf(buf, size,
		         "or, in toolcage.json, remove or narrow the ask rule named above and "
		         "set policy.levels.%s to \"allow\"",
		         rn);
	else if (!strcmp(c->policy.ask_check, "rules"))
		snprintf(buf, size,
		         "or, in toolcage.json, remove or narrow the ask rule named above");
	else if (!strcmp(c->policy.ask_check, "policy") && level_asks &&
	         c->tool->risk != TC_RISK_NETWORK && !c->tool->url_arg)
		snprintf(buf, size,
		         "or, in toolcage.json, set policy.levels.%s to \"allow\", with ask "
		         "rules for the %s calls that should still be asked about (an allow "
		         "rule alone does not stop the question)",
		         rn, rn);
	else
		snprintf(buf, size, "or change toolcage.json as the reason above says");
}

static void decide(struct call *c, enum tc_approval d, const char *who)
{
	struct tc_supervisor *s = c->sup;
	struct tc_error err = { 0 };
	if (c->policy.timer)
		loop_del_timer(s->loop, c->policy.timer);
	c->policy.timer = NULL;
	c->policy.asking = false;
	ticket_free(approval_cancel(&c->policy.approval)); /* the channel answered: none */
	events_approval_decision(s, c, d, who);
	if (d == TC_APPROVE_DENY && nobody_to_ask(who)) {
		/* Nobody said no: nobody could be asked. Retrying changes nothing;
		 * the user can, and the model should tell them how. */
		char fix[256];
		config_fix(c, fix, sizeof fix);
		/* --approve tty was given already: without a terminal the way
		 * out is one, or another channel. */
		const char *channel = !strncmp(who, "no terminal", 11) ?
		        "run toolcage where it has a terminal to ask on (--approve tty "
		        "asks on /dev/tty), start it with --approve cmd:PROGRAM, use an MCP "
		        "client that supports elicitation (toolcage then asks them)" :
		        "use an MCP client that supports elicitation (toolcage then asks "
		        "them), or start toolcage with --approve tty or --approve cmd:PROGRAM";
		refuse(c, TC_STATUS_DENIED,
		       json_pack("{s:s, s:s, s:s?, s:b}", "error", "denied", "by", who, "reason",
		                 c->policy.ask_reason, "no_approver", true),
		       "Denied: this call "
		       "needs approval (%s), and nobody can approve it here (%s). The call did not "
		       "run. Tell the user; they can change this: %s, %s.",
		       c->policy.ask_reason ? c->policy.ask_reason : "policy", who, channel, fix);
		return;
	}
	if (d == TC_APPROVE_DENY) {
		refuse(c, TC_STATUS_DENIED,
		       json_pack("{s:s, s:s, s:s?}", "error", "denied", "by", who, "reason",
		                 c->policy.ask_reason),
		       "Denied: this call needs "
		       "approval (%s) and the approver said no (%s). The call did not run. "
		       "Do not repeat it unchanged; ask the user or try a safer tool.",
		       c->policy.ask_reason ? c->policy.ask_reason : "policy", who);
		return;
	}
	if (d == TC_APPROVE_COMMAND && !c->policy.command)
		d = TC_APPROVE_SESSION; /* nothing wider to grant: the exact arguments */
	if (d == TC_APPROVE_SESSION || d == TC_APPROVE_COMMAND || d == TC_APPROVE_TOOL) {
		uint64_t session = c->session ? c->session->id : 0;
		int grc = d == TC_APPROVE_SESSION ?
		        gate_grant_session(s->gate, session, c->name, c->args, &err) :
		        gate_grant_session_wide(s->gate, session, c->name,
		                                d == TC_APPROVE_COMMAND ? c->policy.command : NULL,
		                                &err);
		if (grc < 0) {
			refuse(c, TC_STATUS_DENIED, NULL,
			       "The approval could not be recorded "
			       "(%s); the call did not run.",
			       err.msg);
			return;
		}
		if (events_listening(s))
			events_session_grant(s, c, gate_grants(s->gate, session));
	}
	c->policy.approval_token = gate_grant_once(s->gate, c->name, c->args);
	if (!c->policy.approval_token) { /* without a token the pre-fork check would be skipped */
		refuse(c, TC_STATUS_DENIED, NULL,
		       "The approval could not be recorded (too "
		       "many outstanding approvals); the call did not run. Try again later.");
		return;
	}
	allow(c, true, false);
}

static void respond(void *ctx, enum tc_approval d, const char *who)
{
	struct ticket *t = ctx;
	struct call *c = t->s ? find_call(t->s, t->id) : NULL;
	ticket_unlink(t);
	free(t);
	if (c)
		decide(c, d, who ? who : "approver");
}

static void on_approval_timeout(struct loop *l, void *data)
{
	(void)l;
	struct call *c = data;
	c->policy.timer = NULL;
	ticket_free(approval_cancel(&c->policy.approval));
	decide(c, TC_APPROVE_DENY, "timeout (no answer in time)");
}

static void ask(struct call *c, const char *reason)
{
	struct tc_supervisor *s = c->sup;
	c->policy.asking = true;
	free(c->policy.ask_reason);
	c->policy.ask_reason = strdup(reason);
	events_approval_request(s, c, c->args, reason);
	/* An approval is bounded in time: without a timer (or a ticket) no
	 * question is asked and the call is denied. */
	c->policy.timer = loop_add_timer(s->loop, io_now_ms() + s->cfg->approval_timeout_ms,
	                                 on_approval_timeout, c);
	struct ticket *t = c->policy.timer ? malloc(sizeof *t) : NULL;
	if (!t) {
		decide(c, TC_APPROVE_DENY, "out of memory");
		return;
	}
	*t = (struct ticket){ s, c->id, s->tickets, NULL };
	if (s->tickets)
		s->tickets->prev = t;
	s->tickets = t;
	struct tc_approval_request req = { c->name, c->args, reason, c->id, c->policy.command };
	uint64_t id = c->id;
	if (c->session && c->session->approver)
		c->session->approver(&req, respond, t, c->session->approver_data);
	else if (s->approver)
		s->approver(&req, respond, t, s->approver_data);
	else
		approval_request(s, &c->policy.approval, &req, respond, t);
	(void)id; /* c may be gone now: a synchronous answer finished it */
}

/* The gate's view of c. */
static void gate_call_of(struct tc_supervisor *s, struct call *c, struct gate_call *gc)
{
	*gc = (struct gate_call){
		.tool = c->name,
		.risk = c->tool->risk,
		.args = c->args,
		.url_arg = c->tool->url_arg,
		.path_args = (const char *const *)c->tool->path_args,
		.patch_arg = c->tool->patch_arg,
		.patch_program = c->tool->command != NULL,
		.patch_strip = c->tool->patch_strip,
		.workspace = s->workspace,
		.workspace_fd = s->workspace_fd,
		.protected_paths = (const char *const *)s->cfg->protected_paths,
		.session = c->session ? c->session->id : 0,
		.command = c->policy.command,
	};
}

void policy_authorize(struct call *c, policy_verdict_fn verdict)
{
	c->policy.verdict = verdict;
	struct tc_supervisor *s = c->sup;
	/* A command grant ("git push" for the session) is looked up by the
	 * call's command; out of memory, there is none and exact grants stand. */
	free(c->policy.command);
	c->policy.command = approval_command_key(c->tool, c->args);
	struct gate_call gc;
	gate_call_of(s, c, &gc);
	struct gate_verdict v;
	gate_authorize(s->gate, &gc, &v);
	events_policy_decision(s, c, gate_action_name(v.action), v.check, v.reason);
	if (v.action == GATE_DENY) {
		refuse(c, TC_STATUS_DENIED,
		       json_pack("{s:s, s:s, s:s}", "error", "denied", "check", v.check, "reason",
		                 v.reason),
		       "Denied by policy (%s): %s. The "
		       "call did not run.",
		       v.check, v.reason);
		return;
	}
	if (v.action == GATE_ASK)
		snprintf(c->policy.ask_check, sizeof c->policy.ask_check, "%s", v.check);
	if (v.action == GATE_ASK && c->tool->precheck) {
		/* A call bound to fail (a missing file, a program not found) is
		 * not put to a person: the tool's precheck runs first, and only
		 * a call that passes it is asked about (policy_checked). */
		free(c->policy.ask_reason);
		c->policy.ask_reason = strdup(v.reason);
		if (!c->policy.ask_reason) {
			refuse(c, TC_STATUS_FAILED, NULL,
			       "toolcage ran out of memory; the call did "
			       "not run.");
			return;
		}
		allow(c, false, true);
		return;
	}
	if (v.action == GATE_ASK) {
		ask(c, v.reason);
		return;
	}
	allow(c, v.granted, false);
}

void policy_checked(struct call *c)
{
	char *reason = c->policy.ask_reason;
	c->policy.ask_reason = NULL;
	ask(c, reason ? reason : "the policy asks");
	free(reason);
}

/* The port of url's scheme (80, 443), or 0 for another scheme. */
static uint16_t scheme_port(const char *url)
{
	return !strncasecmp(url, "https://", 8) ? 443 : !strncasecmp(url, "http://", 7) ? 80 : 0;
}

int policy_before_fork(struct tc_supervisor *s, struct call *c, struct policy_reach *reach,
                       struct tc_error *err)
{
	/* An approved call may reach the host of its URL argument though the
	 * allowlist lacks it (policy.levels.network "ask"): the tool checks
	 * the host again, and must know; under egress the proxy lets it
	 * through too, for this call and the URL's port only. Redirects
	 * elsewhere stay refused. */
	json_t *url =
	        c->approved && c->tool->url_arg ? jsonptr_get(c->args, c->tool->url_arg) : NULL;
	char why[160];
	reach->host[0] = '\0';
	reach->port = 0;
	/* What the rules name, for a builtin that walks a directory to leave
	 * out (out of memory: the call does not run). */
	struct gate_call gc;
	gate_call_of(s, c, &gc);
	if (!(reach->hidden = gate_hidden_paths(s->gate, &gc)))
		return tc_error_set(err, TC_E_NOMEM, c->name, "out of memory");
	if (json_is_string(url) &&
	    url_host(json_string_value(url), reach->host, &reach->port, why, sizeof why) == 0) {
		if (!reach->port)
			reach->port = scheme_port(json_string_value(url));
	} else
		reach->host[0] = '\0';
	if (!c->policy.approval_token)
		return 0;
	uint64_t t = c->policy.approval_token;
	c->policy.approval_token = 0;
	if (gate_consume(s->gate, t, c->name, c->args) < 0)
		return tc_error_set(err, TC_E_INVALID, c->name,
		                    "the approval does not match "
		                    "these arguments or was already used");
	return 0;
}

/* A call that ends before its fork (busy, cancelled, shut down) must give
 * back its once-approval: the gate holds a bounded number of them. */
void policy_call_ended(struct tc_supervisor *s, struct call *c)
{
	if (c->policy.timer)
		loop_del_timer(s->loop, c->policy.timer);
	c->policy.timer = NULL;
	c->policy.asking = false;
	ticket_free(approval_cancel(&c->policy.approval));
	if (c->policy.approval_token) {
		gate_revoke(s->gate, c->policy.approval_token);
		c->policy.approval_token = 0;
	}
	free(c->policy.ask_reason);
	c->policy.ask_reason = NULL;
	free(c->policy.command);
	c->policy.command = NULL;
}

void policy_session_ended(struct tc_supervisor *s, uint64_t session)
{
	gate_forget_session(s->gate, session);
	if (s->egress)
		egress_session_ended(s->egress, session);
}

/* ---- the egress service's questions ----------------------------------- */

/* One connection waiting for an answer about name:port. */
struct net_ask {
	uint64_t seq;
	char name[URL_HOST_MAX + 1];
	uint16_t port;
	egress_answer_fn answer;
	void *ctx;
	struct net_ask *next;
};

/* The respond() context of a network question: a ticket (so that a
 * cancelled question frees it as it frees any: ticket_free) and which question
 * it answers, so that a late answer to one already withdrawn is dropped. */
struct net_ticket {
	struct ticket t;
	uint64_t seq;
};

static struct call *find_running(struct tc_supervisor *s, uint64_t id)
{
	for (struct call *c = s->calls; c; c = c->next)
		if (c->id == id && c->state == ST_RUNNING)
			return c;
	return NULL;
}

static void net_ask_next(struct call *c);

static void net_respond(void *ctx, enum tc_approval d, const char *who)
{
	struct net_ticket *nt = ctx;
	struct tc_supervisor *s = nt->t.s;
	struct call *c = s ? find_running(s, nt->t.id) : NULL;
	uint64_t seq = nt->seq;
	ticket_unlink(&nt->t);
	free(nt);
	if (!c || !c->policy.net_asks || c->policy.net_asks->seq != seq)
		return; /* withdrawn: the connection went, or the call */
	struct net_ask *head = c->policy.net_asks;
	char name[sizeof head->name];
	uint16_t port = head->port;
	memcpy(name, head->name, sizeof name);
	who = who ? who : "approver";
	/* Logged as the network question's choices name it (once, session). */
	events_approval_decision(s, c,
	                         d == TC_APPROVE_ONCE || d == TC_APPROVE_SESSION ? d :
	                                                                           TC_APPROVE_DENY,
	                         who);
	/* Every connection of the call waiting on the same destination gets
	 * this answer; answering may close a connection, which withdraws
	 * nothing of these (they are unlinked first). */
	struct net_ask *done = NULL, **pp = &c->policy.net_asks;
	while (*pp) {
		struct net_ask *a = *pp;
		if (a->port == port && !strcmp(a->name, name)) {
			*pp = a->next;
			a->next = done;
			done = a;
		} else {
			pp = &a->next;
		}
	}
	while (done) {
		struct net_ask *a = done;
		done = a->next;
		a->answer(a->ctx, d != TC_APPROVE_DENY, d == TC_APPROVE_SESSION, who);
		free(a);
	}
	net_ask_next(c);
}

/* Puts the first waiting question of the call to its approval channel. */
static void net_ask_next(struct call *c)
{
	struct tc_supervisor *s = c->sup;
	struct net_ask *a = c->policy.net_asks;
	if (!a)
		return;
	char reason[URL_HOST_MAX + 160], bracketed[URL_HOST_BRACKETED_MAX];
	snprintf(reason, sizeof reason,
	         "the tool connects to %s:%u, which is not on the "
	         "network allowlist",
	         url_host_bracketed(a->name, bracketed), a->port);
	json_t *args = json_pack("{s:s, s:i}", "connect_host", a->name, "connect_port", a->port);
	struct net_ticket *nt = args ? malloc(sizeof *nt) : NULL;
	if (!nt) {
		json_decref(args);
		c->policy.net_asks = a->next;
		a->answer(a->ctx, false, false, "out of memory");
		free(a);
		net_ask_next(c);
		return;
	}
	*nt = (struct net_ticket){ { s, c->id, s->tickets, NULL }, a->seq };
	if (s->tickets)
		s->tickets->prev = &nt->t;
	s->tickets = &nt->t;
	events_approval_request(s, c, args, reason);
	struct tc_approval_request req = {
		.tool = c->name, .args = args, .reason = reason, .call_id = c->id, .command = NULL
	};
	if (c->session && c->session->approver)
		c->session->approver(&req, net_respond, nt, c->session->approver_data);
	else if (s->approver)
		s->approver(&req, net_respond, nt, s->approver_data);
	else
		approval_request(s, &c->policy.approval, &req, net_respond, nt);
	json_decref(args);
}

void *policy_net_ask(void *data, uint64_t call_id, const char *name, uint16_t port,
                     egress_answer_fn answer, void *ctx)
{
	struct tc_supervisor *s = data;
	struct call *c = find_running(s, call_id);
	struct net_ask *a = c ? calloc(1, sizeof *a) : NULL;
	if (!a) {
		answer(ctx, false, false, c ? "out of memory" : "the call is over");
		return NULL;
	}
	a->seq = ++c->policy.net_ask_seq;
	snprintf(a->name, sizeof a->name, "%s", name);
	a->port = port;
	a->answer = answer;
	a->ctx = ctx;
	struct net_ask **pp = &c->policy.net_asks;
	while (*pp)
		pp = &(*pp)->next;
	*pp = a;
	uint64_t seq = a->seq;
	if (c->policy.net_asks == a)
		net_ask_next(c); /* may answer at once: then a is gone */
	for (a = c->policy.net_asks; a; a = a->next)
		if (a->seq == seq)
			return a;
	return NULL;
}

void policy_net_cancel(void *data, void *handle)
{
	struct tc_supervisor *s = data;
	for (struct call *c = s->calls; c; c = c->next)
		for (struct net_ask **pp = &c->policy.net_asks; *pp; pp = &(*pp)->next) {
			if (*pp != handle)
				continue;
			bool asked = pp == &c->policy.net_asks;
			*pp = (*pp)->next;
			free(handle);
			if (asked) {
				/* The channel's question goes (its ticket with it); an
				 * embedder's answer that still comes finds another
				 * question, or none, and is dropped. */
				ticket_free(approval_cancel(&c->policy.approval));
				net_ask_next(c);
			}
			return;
		}
}

int policy_init(struct tc_supervisor *s, const struct tc_options *opt, struct tc_error *err)
{
	if (gate_new(&s->cfg->policy, &s->gate, err) < 0)
		return -1;
	return approval_init(s, opt->approve ? opt->approve : s->cfg->approval, err);
}

void policy_release(struct tc_supervisor *s)
{
	/* Answers still owed by an embedder's approver find no supervisor
	 * (and free their ticket) instead of touching freed memory. */
	for (struct ticket *t = s->tickets, *n; t; t = n) {
		n = t->next;
		t->s = NULL;
	}
	s->tickets = NULL;
	approval_release(s);
	gate_free(s->gate);
	s->gate = NULL;
}

/* A deny rule naming tool with no path and no argument condition, or
 * NULL. Deny rules are checked before all others, wherever they are in
 * the list, so no allow rule before it lets a call through; one with a
 * path denies only the calls whose paths it matches. */
static const struct gate_rule *deny_rule_for_all(const struct gate_policy *p, const char *tool)
{
	for (size_t i = 0; i < p->nrules; i++) {
		const struct gate_rule *r = &p->rules[i];
		if (r->action == GATE_DENY && !r->path && !r->nargs &&
		    glob_match(r->tool, tool, strlen(tool)))
			return r;
	}
	return NULL;
}

int tc_supervisor_tool_unusable(const struct tc_supervisor *s, const char *tool, char *why,
                                size_t size)
{
	struct tc_defined *t = tc_registry_get(s->reg, tool);
	if (!t)
		return 0;
	const struct gate_policy *p = &s->cfg->policy;
	enum tc_risk risk = t->risk;
	const struct gate_rule *r = deny_rule_for_all(p, tool);
	enum gate_action net = p->levels[TC_RISK_NETWORK];
	int rc = 1;
	/* The gate's checks, in its order (docs/config.md): a deny from any
	 * of them ends the call, and an allow rule overrides none. */
	if (p->quarantine && risk > TC_RISK_READ_ONLY)
		snprintf(why, size,
		         "policy.quarantine is on and %s is a %s tool; turn quarantine off "
		         "to use it",
		         tool, tc_risk_name(risk));
	else if (r)
		snprintf(why, size,
		         "a deny rule (%s) names it with no path or argument condition; remove "
		         "the rule or narrow it",
		         r->origin ? r->origin : "policy.rules");
	else if (p->levels[risk] == GATE_DENY)
		snprintf(why, size,
		         "policy.levels.%s is \"deny\", so every call of %s is denied (an allow "
		         "rule does not lift it); set it to \"allow\" or \"ask\"",
		         tc_risk_name(risk), tool);
	else if (t->url_arg && net == GATE_DENY)
		snprintf(why, size,
		         "%s reaches the network (it has a URL argument) and "
		         "policy.levels.network is \"deny\"; set it to \"allow\" or \"ask\"",
		         tool);
	else if (t->url_arg && !p->ndomains && net != GATE_ASK)
		snprintf(why, size,
		         "policy.domains is empty, so every URL %s is given is denied; add the "
		         "hosts it may reach to policy.domains",
		         tool);
	else
		rc = 0;
	tc_defined_unref(t);
	return rc;
}
