/* gate.c — the authorize stage: the ordered checks (quarantine, rules, risk
 * policy, the embedder's), the bail rule, session grants and single-use
 * approval tokens (see gate.h). */
#define _GNU_SOURCE /* asprintf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "gate_internal.h"
#include "glob_match.h"
#include "patchpaths.h"
#include "util.h"

struct gate_check {
	char name[32];
	gate_check_fn fn;
	void *data;
	struct gate *gate;
	struct gate_check *next;
};

/* A grant or a token: a tool name and the canonical JSON of arguments. */
struct grant {
	uint64_t token;   /* 0 for session grants */
	uint64_t session; /* the session a grant belongs to (0 for tokens) */
	char *tool;
	char *canon;
};

struct gate {
	struct gate_policy policy;
	struct gate_check *checks; /* the embedder's, in registration order */
	struct grant *grants;      /* every session's grants, in grant order */
	size_t ngrants;
	struct grant *tokens; /* outstanding one-shot approvals */
	size_t ntokens;
	uint64_t last_token;
};

void gate_verdict_reason(struct gate_verdict *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->reason, sizeof v->reason, fmt, ap);
	va_end(ap);
}

char *gate_canonical(json_t *v)
{
	return json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
}

/* ---- the built-in checks ------------------------------------------------ */

static enum gate_action check_quarantine(void *data, const struct gate_call *call,
                                         struct gate_verdict *v)
{
	const struct gate *g = data;
	if (!g->policy.quarantine || call->risk == TC_RISK_READ_ONLY)
		return GATE_ALLOW;
	gate_verdict_reason(v,
	                    "quarantine is on: only read-only tools may run, and %s is a "
	                    "%s tool",
	                    call->tool, tc_risk_name(call->risk));
	return GATE_DENY;
}

/* A patch argument: every path its file headers name must be a path inside
 * the workspace, and there may be no more files than apply_patch takes;
 * the other checks then see each of them as a path argument. Refused here,
 * before anyone is asked: a patch that names "../x" or "/etc/x" never runs
 * (the tool would refuse it too). */
struct patch_bad {
	char arg[160];
};

static bool patch_path_outside(void *data, const struct path_view *pv)
{
	struct patch_bad *b = data;
	if (pv->has_norm)
		return false;
	gate_quote(b->arg, sizeof b->arg, pv->raw, pv->raw_len);
	return true;
}

static enum gate_action check_patch(void *data, const struct gate_call *call,
                                    struct gate_verdict *v)
{
	(void)data;
	if (!call->patch_arg)
		return GATE_ALLOW;
	struct patch_bad b = { "" };
	long headers;
	bool stopped;
	struct patch_refusal r;
	long n = gate_patch_paths(call, patch_path_outside, &b, &headers, &stopped, &r);
	if (n == -2) {
		gate_verdict_reason(
		        v,
		        "%s's patch is refused at its line %ld: %s. %s runs a patch "
		        "program, so toolcage takes only a unified diff it reads as GNU "
		        "patch and git apply do (tools-api.md, patch_arg)",
		        call->tool, r.line, r.why, call->tool);
		return GATE_DENY;
	}
	if (n < 0) {
		gate_verdict_reason(v, "out of memory while reading the paths of %s's patch",
		                    call->tool);
		return GATE_DENY;
	}
	if (headers > PATCH_FILES_MAX) {
		gate_verdict_reason(v, "the patch changes more than %d files; split it",
		                    PATCH_FILES_MAX);
		return GATE_DENY;
	}
	if (!stopped)
		return GATE_ALLOW;
	gate_verdict_reason(v,
	                    "the patch names \"%s\", which is no path inside the workspace "
	                    "(absolute outside it, \"..\" above it, or empty): %s writes only "
	                    "inside the workspace",
	                    b.arg, call->tool);
	return GATE_DENY;
}

/* Protected paths: files in the workspace its owner's programs trust later
 * (config.md). A tool that writes may not name one (nor a path below one):
 * the sandbox holds them read-only anyway, this says so before anything
 * runs, and covers one that does not exist yet. */
struct protected_hit {
	const struct gate_call *call;
	const char *path; /* the protected path named */
	char arg[160];    /* the argument, quoted */
	bool from_patch;  /* named by the patch argument */
};

/* Whether path is the protected entry p or below it. An entry "**" "/NAME..."
 * (a nested repository's .git/hooks, any *.code-workspace) matches at any
 * depth: as the glob p followed by "/" "**", one linear match. */
static bool protected_within(const char *path, const char *p)
{
	if (strncmp(p, "**/", 3))
		return path_within(path, p);
	char g[GLOB_MAX + 1];
	int n = snprintf(g, sizeof g, "%s/**", p);
	if (n > 0 && (size_t)n < sizeof g && glob_match(g, path, strlen(path)))
		return true;
	/* The names on the way to a match, exactly: writing a ".git" file
	 * ("gitdir: elsewhere") or moving a directory onto "x/.git" puts
	 * hooks in place without naming them. The jail pins these for plain
	 * entries; for a pattern only the gate can. */
	for (const char *s = strchr(p + 3, '/'); s && (size_t)(s - p) <= GLOB_MAX;
	     s = strchr(s + 1, '/')) {
		memcpy(g, p, (size_t)(s - p));
		g[s - p] = '\0';
		if (glob_match(g, path, strlen(path)))
			return true;
	}
	return false;
}

static bool hits_protected(void *data, const struct path_view *pv)
{
	struct protected_hit *h = data;
	for (const char *const *p = h->call->protected_paths; p && *p; p++)
		if ((pv->has_norm && protected_within(pv->norm, *p)) ||
		    (pv->has_real && protected_within(pv->real, *p))) {
			h->path = *p;
			h->from_patch = pv->from_patch;
			gate_quote(h->arg, sizeof h->arg, pv->raw, pv->raw_len);
			return true;
		}
	return false;
}

static enum gate_action check_protected(void *data, const struct gate_call *call,
                                        struct gate_verdict *v)
{
	(void)data;
	if (call->risk < TC_RISK_WRITE || !call->protected_paths ||
	    (!call->path_args && !call->patch_arg))
		return GATE_ALLOW;
	struct protected_hit h = { .call = call };
	long n = gate_each_path(call, hits_protected, &h);
	if (n < 0) {
		gate_verdict_reason(v, "out of memory while checking %s's paths", call->tool);
		return GATE_DENY;
	}
	if (!h.path)
		return GATE_ALLOW;
	const char *how = !strncmp(h.path, "**/", 3) ? "matches, is below or leads to the" :
	        strcmp(h.arg, h.path)                ? "is or is below the" :
	                                               "is the";
	gate_verdict_reason(v,
	                    "%s\"%s\"%s %s protected path %s: a file the workspace owner's "
	                    "own programs trust (git, an editor, direnv, an agent), so no tool "
	                    "may change it (protected_paths in the configuration)",
	                    h.from_patch ? "the patch changes " : "", h.arg,
	                    h.from_patch ? ", which" : "", how, h.path);
	return GATE_DENY;
}

/* A rule's "path": for a deny or ask rule, any path argument matching in
 * any of its forms; for an allow rule, at least one, and every one exact
 * and matching (a move of src into tmp is not "in tmp"). */
struct path_rule {
	const char *glob;
	bool allow;
	bool matched; /* deny/ask: one matched; allow: one failed */
};

static bool path_rule_step(void *data, const struct path_view *pv)
{
	struct path_rule *pr = data;
	bool m = path_view_match(pv, pr->glob, pr->allow);
	pr->matched = pr->allow ? !m : m;
	return pr->matched;
}

static bool path_rule_matches(const struct gate_rule *r, const struct gate_call *call)
{
	struct path_rule pr = { r->path, r->action == GATE_ALLOW, false };
	long n = gate_each_path(call, path_rule_step, &pr);
	if (n < 0) /* out of memory: only a restriction may hold */
		return !pr.allow;
	return pr.allow ? n > 0 && !pr.matched : pr.matched;
}

/* One args entry at a path argument: its string seen as a path. */
static bool path_arg_matches(const struct gate_rule *r, const struct gate_call *call,
                             const char *glob, json_t *v)
{
	struct path_view *pv = malloc(sizeof *pv);
	if (!pv)
		return r->action != GATE_ALLOW;
	path_view_of(call, json_string_value(v), json_string_length(v), pv);
	bool ok = path_view_match(pv, glob, r->action == GATE_ALLOW);
	free(pv);
	return ok;
}

/* Whether every argument pattern of r matches the call's arguments. */
static bool args_match(const struct gate_rule *r, const struct gate_call *call)
{
	json_t *args = call->args;
	for (size_t i = 0; i < r->nargs; i++) {
		json_t *v = jsonptr_get(args, r->args[i].pointer);
		if (!v)
			return false; /* a missing argument does not match */
		bool ok;
		if (json_is_string(v) && gate_is_path_arg(call, r->args[i].pointer)) {
			ok = path_arg_matches(r, call, r->args[i].glob, v);
		} else if (json_is_string(v)) {
			ok = glob_match(r->args[i].glob, json_string_value(v),
			                json_string_length(v));
		} else {
			char *s = gate_canonical(v);
			/* Out of memory: a deny rule must still hold, so only deny
			 * rules match what could not be serialized. */
			ok = s ? glob_match(r->args[i].glob, s, strlen(s)) : r->action == GATE_DENY;
			free(s);
		}
		if (!ok)
			return false;
	}
	return true;
}

static bool rule_matches(const struct gate_rule *r, const struct gate_call *call)
{
	return glob_match(r->tool, call->tool, strlen(call->tool)) &&
	        (!r->path || path_rule_matches(r, call)) && args_match(r, call);
}

char **gate_hidden_paths(const struct gate *g, const struct gate_call *call)
{
	const struct gate_policy *p = &g->policy;
	char **v = calloc(p->nrules + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; v && i < p->nrules; i++) {
		const struct gate_rule *r = &p->rules[i];
		if (r->action == GATE_ALLOW || !r->path ||
		    !glob_match(r->tool, call->tool, strlen(call->tool)))
			continue;
		/* An ask rule the call's own paths met was put to a person
		 * (or granted): what they allowed is not hidden from it. */
		if (r->action == GATE_ASK && path_rule_matches(r, call) && args_match(r, call))
			continue;
		if (!(v[n++] = strdup(r->path))) {
			for (size_t k = 0; k + 1 < n; k++)
				free(v[k]);
			free(v);
			v = NULL;
		}
	}
	return v;
}

static enum gate_action rule_verdict(const struct gate_rule *r, struct gate_verdict *v)
{
	const char *verb = r->action == GATE_DENY ? "denied" :
	        r->action == GATE_ASK             ? "needs approval" :
	                                            "allowed";
	if (r->reason)
		gate_verdict_reason(v, "%s by the rule at %s: %s", verb, r->origin, r->reason);
	else
		gate_verdict_reason(v, "%s by the rule at %s", verb, r->origin);
	return r->action;
}

static enum gate_action check_rules(void *data, const struct gate_call *call,
                                    struct gate_verdict *v)
{
	const struct gate_policy *p = &((const struct gate *)data)->policy;
	/* Deny rules first: an allow written above a deny must not open a
	 * hole the deny was meant to close. */
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].action == GATE_DENY && rule_matches(&p->rules[i], call))
			return rule_verdict(&p->rules[i], v);
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].action != GATE_DENY && rule_matches(&p->rules[i], call))
			return rule_verdict(&p->rules[i], v);
	return GATE_ALLOW;
}

/* The network level: the target host must be on the allowlist. */
static enum gate_action check_network(const struct gate_policy *p, enum gate_action level,
                                      const struct gate_call *call, struct gate_verdict *v)
{
	if (!call->url_arg) {
		gate_verdict_reason(v,
		                    "%s is a network tool that declares no URL argument, so "
		                    "its target cannot be checked against the domain allowlist",
		                    call->tool);
		return GATE_DENY;
	}
	json_t *url = jsonptr_get(call->args, call->url_arg);
	char host[URL_HOST_MAX + 1], why[160];
	uint16_t port;
	if (!json_is_string(url)) {
		gate_verdict_reason(v, "the URL argument %s is missing or not a string",
		                    call->url_arg);
		return GATE_DENY;
	}
	if (url_host(json_string_value(url), host, &port, why, sizeof why) < 0) {
		gate_verdict_reason(v, "the URL in %s cannot be used: %s", call->url_arg, why);
		return GATE_DENY;
	}
	if (domain_allowed(host, p->domains, p->ndomains))
		return GATE_ALLOW;
	/* The fix is the user's, in a file no tool may write: say which, all
	 * of it, port included (the egress allows policy.domains on 80 and
	 * 443 only: docs/network.md). */
	char port_fix[URL_HOST_MAX + 96] = "", bracketed[URL_HOST_BRACKETED_MAX];
	if (port && port != 80 && port != 443)
		snprintf(port_fix, sizeof port_fix,
		         ", and \"%s:%u\" to policy.network.allow for its port %u",
		         url_host_bracketed(host, bracketed), port, port);
	if (p->ndomains == 0)
		gate_verdict_reason(v,
		                    "host %s is not allowed: the domain allowlist "
		                    "(policy.domains) is empty; the user can allow it by adding "
		                    "\"%s\" to policy.domains%s in toolcage.json",
		                    host, host, port_fix);
	else
		gate_verdict_reason(v,
		                    "host %s is not on the domain allowlist (policy.domains); "
		                    "the user can allow it by adding \"%s\" to policy.domains%s in "
		                    "toolcage.json",
		                    host, host, port_fix);
	/* ask: a person may allow a host the list lacks; allow: the list is
	 * the whole answer. */
	return level == GATE_ASK ? GATE_ASK : GATE_DENY;
}

static enum gate_action check_policy(void *data, const struct gate_call *call,
                                     struct gate_verdict *v)
{
	const struct gate_policy *p = &((const struct gate *)data)->policy;
	if ((unsigned)call->risk > TC_RISK_DESTRUCTIVE) {
		gate_verdict_reason(v, "%s has an unknown risk level", call->tool);
		return GATE_DENY;
	}
	enum gate_action level = p->levels[call->risk];
	const char *rn = tc_risk_name(call->risk);
	if (level == GATE_DENY) {
		gate_verdict_reason(v, "%s tools are not allowed (policy.levels.%s is deny)", rn,
		                    rn);
		return GATE_DENY;
	}
	if (call->risk == TC_RISK_NETWORK)
		return check_network(p, level, call, v);
	/* A tool that names its URL argument reaches that host whatever its
	 * level: a manifest's ["network", "destructive"] is destructive, and
	 * must not leave the allowlist (and policy.levels.network) behind. */
	enum gate_action net = p->levels[TC_RISK_NETWORK];
	if (call->url_arg && net == GATE_DENY) {
		gate_verdict_reason(v,
		                    "%s reaches the network (it has a URL argument), and network "
		                    "tools are not allowed (policy.levels.network is deny)",
		                    call->tool);
		return GATE_DENY;
	}
	if (call->url_arg && (net = check_network(p, net, call, v)) != GATE_ALLOW)
		return net;
	if (level == GATE_ASK)
		gate_verdict_reason(v, "%s is a %s tool (policy.levels.%s is ask)", call->tool, rn,
		                    rn);
	return level;
}

static const struct {
	const char *name;
	gate_check_fn fn;
} builtin_checks[] = {
	{ "quarantine", check_quarantine }, { "patch", check_patch },
	{ "protected", check_protected },   { "rules", check_rules },
	{ "policy", check_policy },
};

/* ---- the gate ----------------------------------------------------------- */

int gate_new(const struct gate_policy *policy, struct gate **out, struct tc_error *err)
{
	*out = NULL;
	struct gate *g = calloc(1, sizeof *g);
	if (!g || gate_policy_copy(&g->policy, policy) < 0) {
		free(g);
		return tc_error_set(err, TC_E_NOMEM, "gate", "out of memory");
	}
	*out = g;
	return 0;
}

static void grants_free(struct grant *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].tool);
		free(a[i].canon);
	}
	free(a);
}

void gate_free(struct gate *g)
{
	if (!g)
		return;
	gate_policy_release(&g->policy);
	while (g->checks) {
		struct gate_check *c = g->checks;
		g->checks = c->next;
		free(c);
	}
	grants_free(g->grants, g->ngrants);
	grants_free(g->tokens, g->ntokens);
	free(g);
}

void gate_set_quarantine(struct gate *g, bool on)
{
	g->policy.quarantine = on;
}

bool gate_quarantined(const struct gate *g)
{
	return g->policy.quarantine;
}

static void remove_check(void *data)
{
	struct gate_check *c = data;
	struct gate_check **pp = &c->gate->checks;
	while (*pp && *pp != c)
		pp = &(*pp)->next;
	if (*pp)
		*pp = c->next;
	free(c);
}

int gate_add_check(struct gate *g, const char *name, gate_check_fn fn, void *data,
                   struct tc_disposer *out, struct tc_error *err)
{
	if (!fn)
		return tc_error_set(err, TC_E_INVALID, name, "a gate check needs a function");
	struct gate_check *c = calloc(1, sizeof *c);
	if (!c)
		return tc_error_set(err, TC_E_NOMEM, name, "out of memory");
	snprintf(c->name, sizeof c->name, "%s", name ? name : "check");
	c->fn = fn;
	c->data = data;
	c->gate = g;
	struct gate_check **pp = &g->checks;
	while (*pp)
		pp = &(*pp)->next;
	*pp = c;
	if (out)
		*out = (struct tc_disposer){ remove_check, c };
	return 0;
}

/* Runs one check; returns true when it ended the call (a deny). */
static bool run_check(const char *name, gate_check_fn fn, void *data, const struct gate_call *call,
                      struct gate_verdict *v, struct gate_verdict *first_ask)
{
	struct gate_verdict cv = { 0 };
	enum gate_action a = fn(data, call, &cv);
	if ((unsigned)a > GATE_DENY) {
		/* A check that answers nonsense is a defect: fail closed. */
		a = GATE_DENY;
		gate_verdict_reason(&cv, "the gate check %s gave an invalid answer", name);
	}
	if (a == GATE_ALLOW) {
		/* An allow that names itself (an allow rule) is who allowed the
		 * call, unless a later check objects. */
		if (cv.reason[0] && !v->check[0]) {
			snprintf(v->check, sizeof v->check, "%s", name);
			memcpy(v->reason, cv.reason, sizeof v->reason);
		}
		return false;
	}
	if (!cv.reason[0])
		gate_verdict_reason(&cv, "the gate check %s said %s", name, gate_action_name(a));
	snprintf(cv.check, sizeof cv.check, "%s", name);
	if (a == GATE_DENY) {
		v->action = GATE_DENY;
		memcpy(v->check, cv.check, sizeof v->check);
		memcpy(v->reason, cv.reason, sizeof v->reason);
		return true;
	}
	if (first_ask->action != GATE_ASK) {
		*first_ask = cv;
		first_ask->action = GATE_ASK;
	}
	return false;
}

/* A grant's canon is the exact arguments' canonical JSON (it starts with
 * '{'), or a wider grant: GRANT_ANY for any arguments, GRANT_CMD followed
 * by a command. Neither can be the canonical JSON of an object. */
#define GRANT_ANY "*"
#define GRANT_CMD "cmd:"

static bool grant_covers(const struct grant *gr, const char *canon, const char *command)
{
	if (!strcmp(gr->canon, GRANT_ANY))
		return true;
	if (!strncmp(gr->canon, GRANT_CMD, strlen(GRANT_CMD)))
		return command && !strcmp(gr->canon + strlen(GRANT_CMD), command);
	return canon && !strcmp(gr->canon, canon);
}

static bool find_grant(const struct grant *a, size_t n, uint64_t session, const char *tool,
                       const char *canon, const char *command)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].session == session && strcmp(a[i].tool, tool) == 0 &&
		    grant_covers(&a[i], canon, command))
			return true;
	return false;
}

static size_t session_grants(const struct gate *g, uint64_t session)
{
	size_t n = 0;
	for (size_t i = 0; i < g->ngrants; i++)
		n += g->grants[i].session == session;
	return n;
}

/* The files a patch changes, for whoever is told of a deny or asked: the
 * person approving sees the paths, not only a diff to read. */
struct patch_note {
	char text[GATE_REASON_MAX / 2];
	size_t len;
	bool full;
	char last[160]; /* the path before: a file's old and new are one */
};

static bool patch_note_add(void *data, const struct path_view *pv)
{
	struct patch_note *nt = data;
	char q[160];
	gate_quote(q, sizeof q, pv->raw, pv->raw_len);
	if (!strcmp(q, nt->last))
		return false;
	memcpy(nt->last, q, sizeof q);
	int w = snprintf(nt->text + nt->len, sizeof nt->text - nt->len, "%s\"%s\"",
	                 nt->len ? ", " : "", q);
	if (w < 0 || (size_t)w >= sizeof nt->text - nt->len) {
		nt->text[nt->len] = '\0';
		nt->full = true;
		return true;
	}
	nt->len += (size_t)w;
	return false;
}

static void note_patch_files(const struct gate_call *call, struct gate_verdict *v)
{
	struct patch_note nt = { "", 0, false, "" };
	long headers;
	bool stopped;
	if (!call->patch_arg || v->action == GATE_ALLOW ||
	    gate_patch_paths(call, patch_note_add, &nt, &headers, &stopped, NULL) <= 0)
		return;
	size_t rl = strlen(v->reason);
	/* Whole or not at all: a cut could split a character. */
	if (rl + nt.len + 32 < sizeof v->reason)
		snprintf(v->reason + rl, sizeof v->reason - rl, " (the patch changes %s%s)",
		         nt.text, nt.full ? ", ..." : "");
}

static void decide(struct gate *g, const struct gate_call *call, struct gate_verdict *v);

void gate_authorize(struct gate *g, const struct gate_call *call, struct gate_verdict *v)
{
	decide(g, call, v);
	note_patch_files(call, v);
}

static void decide(struct gate *g, const struct gate_call *call, struct gate_verdict *v)
{
	memset(v, 0, sizeof *v);
	v->audit = call->risk >= TC_RISK_WRITE;
	struct gate_verdict ask = { 0 };
	for (size_t i = 0; i < sizeof builtin_checks / sizeof builtin_checks[0]; i++)
		if (run_check(builtin_checks[i].name, builtin_checks[i].fn, g, call, v, &ask))
			return;
	for (struct gate_check *c = g->checks; c; c = c->next)
		if (run_check(c->name, c->fn, c->data, call, v, &ask))
			return;
	if (ask.action != GATE_ASK) { /* allowed: nothing objected */
		if (!v->check[0]) {
			const char *rn = tc_risk_name(call->risk);
			snprintf(v->check, sizeof v->check, "policy");
			gate_verdict_reason(v, "%s is a %s tool (policy.levels.%s is allow)",
			                    call->tool, rn, rn);
		}
		return;
	}
	char *canon = g->ngrants ? gate_canonical(call->args) : NULL;
	if (canon &&
	    find_grant(g->grants, g->ngrants, call->session, call->tool, canon, call->command)) {
		v->granted = true;
		snprintf(v->check, sizeof v->check, "session-grant");
		snprintf(v->reason, sizeof v->reason, "approved for the session earlier (%.400s)",
		         ask.reason);
	} else {
		v->action = GATE_ASK;
		memcpy(v->check, ask.check, sizeof v->check);
		memcpy(v->reason, ask.reason, sizeof v->reason);
	}
	free(canon);
}

/* ---- grants and tokens -------------------------------------------------- */

/* Appends to a[n]; cap bounds n (the tokens), or 0 for no cap here (the
 * grants are counted per session by the caller). */
static int grant_push(struct grant **a, size_t *n, size_t cap, uint64_t token, uint64_t session,
                      const char *tool, json_t *args, const char *wide)
{
	if (cap && *n >= cap)
		return -1;
	struct grant *na = realloc(*a, (*n + 1) * sizeof **a);
	if (!na)
		return -1;
	*a = na;
	struct grant gr = { token, session, strdup(tool),
		            wide ? strdup(wide) : gate_canonical(args) };
	if (!gr.tool || !gr.canon) {
		free(gr.tool);
		free(gr.canon);
		return -1;
	}
	na[(*n)++] = gr;
	return 0;
}

int gate_grant_session(struct gate *g, uint64_t session, const char *tool, json_t *args,
                       struct tc_error *err)
{
	char *canon = gate_canonical(args);
	if (!canon)
		return tc_error_set(err, TC_E_NOMEM, tool, "out of memory");
	bool have = false;
	for (size_t i = 0; i < g->ngrants && !have; i++)
		have = g->grants[i].session == session && !strcmp(g->grants[i].tool, tool) &&
		        !strcmp(g->grants[i].canon, canon);
	free(canon);
	if (have)
		return 0;
	if (session_grants(g, session) >= GATE_GRANTS_MAX)
		return tc_error_set(err, TC_E_INVALID, tool, "the session already has %d grants",
		                    GATE_GRANTS_MAX);
	if (grant_push(&g->grants, &g->ngrants, 0, 0, session, tool, args, NULL) < 0)
		return tc_error_set(err, TC_E_NOMEM, tool, "out of memory");
	return 0;
}

int gate_grant_session_wide(struct gate *g, uint64_t session, const char *tool, const char *command,
                            struct tc_error *err)
{
	char *wide;
	if (asprintf(&wide, "%s%s", command ? GRANT_CMD : GRANT_ANY, command ? command : "") < 0)
		return tc_error_set(err, TC_E_NOMEM, tool, "out of memory");
	bool have = false;
	for (size_t i = 0; i < g->ngrants && !have; i++)
		have = g->grants[i].session == session && !strcmp(g->grants[i].tool, tool) &&
		        !strcmp(g->grants[i].canon, wide);
	int rc = 0;
	if (!have && session_grants(g, session) >= GATE_GRANTS_MAX)
		rc = tc_error_set(err, TC_E_INVALID, tool, "the session already has %d grants",
		                  GATE_GRANTS_MAX);
	else if (!have && grant_push(&g->grants, &g->ngrants, 0, 0, session, tool, NULL, wide) < 0)
		rc = tc_error_set(err, TC_E_NOMEM, tool, "out of memory");
	free(wide);
	return rc;
}

void gate_forget_session(struct gate *g, uint64_t session)
{
	size_t kept = 0;
	for (size_t i = 0; i < g->ngrants; i++) {
		if (g->grants[i].session == session) {
			free(g->grants[i].tool);
			free(g->grants[i].canon);
		} else {
			g->grants[kept++] = g->grants[i]; /* grant order kept */
		}
	}
	g->ngrants = kept;
}

json_t *gate_grants(const struct gate *g, uint64_t session)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < g->ngrants; i++) {
		if (g->grants[i].session != session)
			continue;
		const char *canon = g->grants[i].canon;
		json_t *args = canon[0] == '{' ? json_loads(canon, JSON_DECODE_ANY, NULL) : NULL;
		json_t *o = args ?
		        json_pack("{s:s, s:o}", "tool", g->grants[i].tool, "args", args) :
		        !strcmp(canon, GRANT_ANY) ?
		        json_pack("{s:s, s:b}", "tool", g->grants[i].tool, "any_args", 1) :
		        json_pack("{s:s, s:s}", "tool", g->grants[i].tool, "command",
		                  canon + strlen(GRANT_CMD));
		if (!o || json_array_append_new(arr, o) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

uint64_t gate_grant_once(struct gate *g, const char *tool, json_t *args)
{
	uint64_t token = g->last_token + 1;
	if (grant_push(&g->tokens, &g->ntokens, GATE_GRANTS_MAX, token, 0, tool, args, NULL) < 0)
		return 0;
	g->last_token = token;
	return token;
}

/* Removes the token at i; returns its grant (caller frees the strings). */
static struct grant take_token(struct gate *g, size_t i)
{
	struct grant gr = g->tokens[i];
	g->tokens[i] = g->tokens[--g->ntokens];
	return gr;
}

int gate_consume(struct gate *g, uint64_t token, const char *tool, json_t *args)
{
	size_t i = 0;
	while (i < g->ntokens && g->tokens[i].token != token)
		i++;
	if (token == 0 || i == g->ntokens)
		return -1; /* unknown, or already used */
	struct grant gr = take_token(g, i);
	char *canon = gate_canonical(args);
	bool same = canon && strcmp(gr.tool, tool) == 0 && strcmp(gr.canon, canon) == 0;
	free(canon);
	free(gr.tool);
	free(gr.canon);
	return same ? 0 : -1;
}

void gate_revoke(struct gate *g, uint64_t token)
{
	for (size_t i = 0; i < g->ntokens; i++)
		if (g->tokens[i].token == token) {
			struct grant gr = take_token(g, i);
			free(gr.tool);
			free(gr.canon);
			return;
		}
}
