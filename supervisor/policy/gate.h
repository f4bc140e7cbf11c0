/* gate.h — stage 2 of the pipeline, authorize: an ordered list of checks
 * that each say allow, ask or deny for one validated call, session grants,
 * and single-use approval tokens. The matchers the checks use (globs, JSON
 * pointers, URL hosts and the domain allowlist) are in lib/.
 *
 * How a call is decided (gate_authorize):
 *   checks run in order: quarantine, patch (each path a patch argument's
 *   headers name must be inside the workspace; from then on they are
 *   path arguments), protected paths (a tool of risk
 *   write or above naming one in a path argument is denied), config
 *   rules, risk policy, then the embedder's checks in registration order. The first deny ends it (bail:
 *   later checks do not run). Otherwise any ask means approval is required,
 *   with the first asking check's reason; with no ask the call is allowed.
 *   An allow from one check is "no objection", never an override: a rule
 *   that allows does not silence the risk policy's ask (rules only refine;
 *   loosen a level in policy.levels, see docs/config.md).
 *   Last, an ask whose (tool, exact arguments) has a session grant becomes
 *   an allow. A deny is never lifted by a grant.
 *   The risk policy checks the host of a tool's URL argument (url_arg)
 *   against the domain allowlist and policy.levels.network whatever the
 *   tool's level: a manifest's ["network", "destructive"] is destructive
 *   and reaches the network all the same.
 *
 * Rules: deny rules are scanned first, in order; then the allow and ask
 * rules in order; the first match decides the rules check. No match is
 * "no objection". Path arguments (the tool's path_args) are matched as
 * the tool resolves them (gate_paths.c): a deny or ask rule matches any
 * spelling of a path, an allow rule only a path that is plain as written.
 *
 * Globs: see glob_match.h.
 *
 * Not thread-safe (toolcage is single-threaded, docs/architecture.md).
 */
#ifndef TC_GATE_H
#define TC_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "toolcage.h"
#include "glob_match.h"
#include "jsonptr.h"
#include "url.h"

#define GATE_RULES_MAX     1024
#define GATE_RULE_ARGS_MAX 32
#define GATE_DOMAINS_MAX   1024
#define GATE_GRANTS_MAX    1024 /* session grants, and outstanding tokens */
#define GATE_REASON_MAX    512

enum gate_action {
	GATE_ALLOW = 0,
	GATE_ASK,
	GATE_DENY,
};

/* "allow", "ask", "deny" (static), or "?" outside the enum. */
const char *gate_action_name(enum gate_action a);
/* Parses one of those three names. 0, or -1 for anything else. */
int gate_action_parse(const char *name, enum gate_action *out);
/* What an error says after "must be "allow", "ask" or "deny"" for v, a
 * value that is not one: ", got "alow": did you mean "allow"?", or ", got
 * a number"; into out. */
void gate_action_got(const json_t *v, char *out, size_t size);

/* ---- policy as data (config.c fills it) ------------------------------- */

struct gate_arg_match {
	char *pointer; /* JSON pointer into the arguments ("" = all of them) */
	char *glob;
};

/* Matches when tool matches the tool name and every args entry matches
 * the string form of the argument at its pointer (strings as they are,
 * other values as compact JSON with sorted keys); a missing argument does
 * not match. */
struct gate_rule {
	enum gate_action action;
	char *tool; /* glob; "*" when the rule named none */
	char *path; /* glob over every path argument of the tool, or NULL */
	struct gate_arg_match *args;
	size_t nargs;
	char *reason; /* optional text for the model and the approver, or NULL */
	char *origin; /* where it was written, e.g. "toolcage.json: /policy/rules/2" */
};

/* Invariants: levels[] is indexed by enum tc_risk; domains are lowercase
 * hosts or "*.suffix" (IPv6 without brackets), checked by
 * domain_check. */
struct gate_policy {
	bool quarantine;
	enum gate_action levels[4];
	struct gate_rule *rules;
	size_t nrules;
	char **domains;
	size_t ndomains;
};

/* Fills p with the defaults: quarantine off; read-only allow, write allow,
 * network allow (within the allowlist), destructive ask; no rules; no
 * domains (so every network call is denied until some are listed). */
void gate_policy_init(struct gate_policy *p);
/* Frees what p owns and re-initializes it to the defaults. */
void gate_policy_release(struct gate_policy *p);
/* A deep copy of src into dst (dst is overwritten, not released). 0, or -1
 * when out of memory (dst is then a valid default policy). */
int gate_policy_copy(struct gate_policy *dst, const struct gate_policy *src);

/* Parses one rule object {"action", "tool"?, "args"?, "reason"?} into out
 * (zeroed first; release with gate_rule_release). where names the rule in
 * errors and becomes its origin (e.g. "toolcage.json: /policy/rules/2").
 * Unknown keys, wrong types, bad globs and bad pointers are errors whose
 * err->where is where plus the key's pointer. */
int gate_rule_parse(json_t *obj, const char *where, struct gate_rule *out, struct tc_error *err);
void gate_rule_release(struct gate_rule *r);

/* ---- the gate ---------------------------------------------------------- */

/* What the checks see. Everything is borrowed for the call. */
struct gate_call {
	const char *tool;
	enum tc_risk risk;
	json_t *args;                 /* the validated arguments (an object) */
	const char *url_arg;          /* the tool's URL argument pointer, or NULL */
	uint64_t session;             /* whose session grants apply (0: the supervisor's own) */
	const char *const *path_args; /* its path arguments' pointers, NULL-terminated,
	                          * or NULL */
	const char *patch_arg;        /* its unified diff argument's pointer, or NULL: each
	                          * path the diff's headers name is a path argument */
	bool patch_program;           /* a program outside toolcage applies the patch (a
	                          * manifest tool): the diff is read strictly
	                          * (patch_strict_each_path), refused unless every
	                          * line is one the programs read as it does */
	int patch_strip;              /* that program's -p, or PATCH_STRIP_ANY */
	const char *workspace;        /* canonical, for absolute path arguments; or NULL */
	int workspace_fd;             /* to follow symbolic links in it; -1: none known */
	const char *const *protected_paths; /* relative; NULL-terminated or NULL */
	const char *command; /* the call's command for command grants ("git push"), or NULL */
};

struct gate_verdict {
	enum gate_action action;
	char check[32]; /* the check that decided: "quarantine", "patch", "protected", "rules",
	                          * "policy", "session-grant" or an embedder's name;
	                          * an allowed call names the allow rule, the grant
	                          * or "policy" (its level) */
	char reason[GATE_REASON_MAX]; /* for the model (deny), the approver (ask), the
	                               * audit (every verdict) */
	bool audit;                   /* the call changes something (write risk or
	                          * above): the audit log must record it */
	bool granted;                 /* allowed by a session grant */
};

/* An embedder's check. Sets v->reason (gate_verdict_reason) when it asks
 * or denies. Must not change the gate. */
typedef enum gate_action (*gate_check_fn)(void *data, const struct gate_call *call,
                                          struct gate_verdict *v);

/* Writes the reason into v (cut to fit). */
void gate_verdict_reason(struct gate_verdict *v, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

struct gate;

/* A new gate holding a copy of policy. 0, or -1 with err (out of memory). */
int gate_new(const struct gate_policy *policy, struct gate **out, struct tc_error *err);
/* Frees the gate, its checks, grants and tokens: call no disposer of this
 * gate afterwards. NULL is a no-op. */
void gate_free(struct gate *g);

/* The quarantine switch, e.g. flipped at run time by an operator. */
void gate_set_quarantine(struct gate *g, bool on);
bool gate_quarantined(const struct gate *g);

/* Adds fn after the built-in checks and the ones added before. name (copied,
 * cut to 31 bytes) names the check in verdicts. *out removes it; it is
 * valid until called or until gate_free. */
int gate_add_check(struct gate *g, const char *name, gate_check_fn fn, void *data,
                   struct tc_disposer *out, struct tc_error *err);

/* Decides call into *v (see the top of this file). Never fails: when the
 * arguments cannot be serialized for a grant lookup (out of memory) the
 * grant is simply not applied. */
void gate_authorize(struct gate *g, const struct gate_call *call, struct gate_verdict *v);

// The path globs of the deny and ask rules that apply to call's tool,
// copied: what a tool that walks a directory (search_text, find_files,
// list_dir, tree) must leave out, since a deny rule on "secrets/**" holds
// the call's path arguments only and a search of "." would read what it
// names. An ask rule the call's own paths matched (asked, or granted) is
// left off. New, NULL-terminated (free each and the array), or NULL when
// out of memory. (Line comments: a block comment cannot hold that glob.)
char **gate_hidden_paths(const struct gate *g, const struct gate_call *call);

/* Session grants: "approve for the session" stores (session, tool, the
 * exact validated arguments as canonical JSON: sorted keys, compact). A
 * later ask in the same session for the same tool with identical arguments
 * is allowed without asking; another session's grant never applies (each
 * MCP client over HTTP is a session of its own). Exact arguments, not a
 * pattern, so an approver never approves more than what they saw. args is
 * borrowed. 0, or -1 with err (too many grants: at most GATE_GRANTS_MAX per
 * session; out of memory). Granting twice is a no-op. */
int gate_grant_session(struct gate *g, uint64_t session, const char *tool, json_t *args,
                       struct tc_error *err);
/* Wider session grants, which a person chose over the exact arguments:
 * command non-NULL allows the tool's calls with that command (see
 * gate_call.command: "git push" covers every "git push ..."); NULL allows
 * the tool with any arguments. Same bounds and errors as
 * gate_grant_session. A grant never lifts a deny. */
int gate_grant_session_wide(struct gate *g, uint64_t session, const char *tool, const char *command,
                            struct tc_error *err);
/* Drops every grant of session (it ended). */
void gate_forget_session(struct gate *g, uint64_t session);
/* A session's grants, for the audit: a new array of {"tool", "args"} (exact
 * grants), {"tool", "command"} or {"tool", "any_args": true} in grant order
 * (args are copies), or NULL when out of memory. */
json_t *gate_grants(const struct gate *g, uint64_t session);

/* One-shot approvals. gate_grant_once returns a token (never 0, never
 * reused in this gate) bound to tool and the canonical JSON of args
 * (borrowed), or 0 when at most GATE_GRANTS_MAX tokens are already
 * outstanding or memory ran out. gate_consume succeeds (0) only once per
 * token and only for the same tool and identical canonical arguments; any
 * use of a token, successful or not, revokes it, so arguments changed after
 * the approval (the pipeline re-checks just before the fork) cost the
 * approval. -1 otherwise. gate_revoke drops a token unused (a call that
 * ended before running). */
uint64_t gate_grant_once(struct gate *g, const char *tool, json_t *args);
int gate_consume(struct gate *g, uint64_t token, const char *tool, json_t *args);
void gate_revoke(struct gate *g, uint64_t token);

/* The canonical JSON text of v (json_dumps with JSON_SORT_KEYS |
 * JSON_COMPACT | JSON_ENCODE_ANY): malloc'd, or NULL when out of memory. */
char *gate_canonical(json_t *v);

#endif
