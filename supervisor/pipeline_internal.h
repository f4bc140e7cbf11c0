/* pipeline_internal.h — what pipeline.c (stages, slots, queue), supervisor.c
 * (construction, jails), policy.c (stage 2, approvals) and events.c share. */
#ifndef TC_PIPELINE_INTERNAL_H
#define TC_PIPELINE_INTERNAL_H

#include <stdarg.h>

#include "channel.h"
#include "config.h"
#include "egress.h"
#include "url.h"
#include "execute.h"
#include "loop.h"
#include "pipeline.h"
#include "registry.h"
#include "sandbox.h"
#include "toolchain.h"

struct render_spill;
struct audit;
struct gate;
struct approval_state;
struct approval_pending;
struct ticket;
struct net_ask;
struct call;
struct policy_verdict;
typedef void (*policy_verdict_fn)(struct call *c, const struct policy_verdict *v);

/* Stage 2's part of a call: policy.c writes it, the pipeline never does
 * (it is zero when the call is made, and released by policy_call_ended). */
struct call_policy {
	policy_verdict_fn verdict;         /* where stage 2 answers (the pipeline's) */
	bool asking;                       /* an approval is asked: respond() finds it */
	struct loop_timer *timer;          /* the approval's timeout */
	struct approval_pending *approval; /* the channel's question (approval.c) */
	char *ask_reason;                  /* why an approval was asked, or NULL */
	char ask_check[32];                /* the gate check that asked ("rules",
	                                    * "policy" ...), or "" */
	char *command;                     /* what a command grant would cover, or NULL */
	uint64_t approval_token;           /* a once-approval bound to args (gate) */
	struct net_ask *net_asks;          /* unlisted names put to the approver: the
	                                    * first is being asked */
	uint64_t net_ask_seq;
};

enum call_state {
	ST_VALIDATE,
	ST_AUTHORIZE, /* stage 2 decides, maybe asking a person: holds no slot */
	ST_AUTHORIZED,
	ST_QUEUED,  /* waiting for a slot */
	ST_RUNNING, /* holds a slot; child alive */
	ST_DONE,
};

/* What the child used, for the tool-result event. */
struct call_usage {
	bool ran;
	int exit_code;
	int signal;
	uint64_t cpu_ms;
	uint64_t max_rss_kb;
	uint64_t bytes;
	json_t *confinement; /* owned: what held (confinement.h) */
};

/* A caller's session (toolcage.h): its approval channel and, through its
 * id, its grants in the gate. Invariant: linked in sup->sessions until
 * tc_session_free, which first ends every call that points to it. */
struct tc_session {
	struct tc_supervisor *sup;
	uint64_t id;             /* never 0: 0 is the supervisor's own */
	tc_approver_fn approver; /* NULL: the supervisor's */
	void *approver_data;
	channel_fn channel; /* its tools' messages (channel.h), or NULL */
	void *channel_data;
	struct tc_session *next, *prev;
};

struct call {
	struct tc_supervisor *sup;
	struct tc_session *session; /* NULL: the supervisor's own */
	uint64_t id;
	enum call_state state;
	char *name;
	struct tc_result *result; /* made at submit: finishing needs no memory */
	struct tc_defined *tool;  /* a reference: unregistering cannot pull it */
	json_t *args;             /* validated arguments */
	tc_call_fn fn;
	void *data;
	bool quiet; /* cancelled: deliver no result */
	int64_t start_ms;
	uint32_t timeout_ms;
	struct loop_timer *timer; /* queue timeout or deadline */
	struct sbx_child *child;
	struct sbx_jail *jail;                /* the child's (borrowed from the supervisor) */
	struct sbx_protect_snap *protect;     /* protected paths before it ran */
	struct egress_call *egress;           /* its network (a profile with egress), or NULL */
	char approved_host[URL_HOST_MAX + 1]; /* an approved URL's host, or "" */
	uint16_t approved_port;               /* and its port */
	struct call_usage usage;
	struct call_policy policy; /* stage 2's: written by policy.c only */
	bool approved;             /* by an approver or a session grant */
	bool checking;             /* its child runs the tool's precheck, before asking */
	struct call_channel *chan; /* its tool's channel, or NULL */
	struct call *next, *prev;  /* every call in flight */
	struct call *qnext;        /* the slot queue */
};

struct jail_entry {
	char *name;
	struct profile *profile;
	struct toolchain_spec toolchains; /* what the profile's spec points at for them */
	struct sbx_jail *jail;
	bool fn_only; /* for self_contained builtins (jails.c) */
	bool noticed; /* its confinement notice given (jails.c) */
	struct jail_entry *next;
};

struct tc_supervisor {
	struct config *cfg;
	char *workspace;
	int workspace_fd; /* O_PATH of it: the gate follows links in it */
	struct loop *loop;
	struct tc_registry *reg;
	struct tc_disposer plugins[8];
	size_t n_plugins;
	struct tc_disposer manifests[32];
	char *manifest_paths[32]; /* what manifests[i] was loaded from */
	size_t n_manifests;
	int inotify_fd; /* watch_tool_dirs, else -1 */
	struct loop_timer *reload_timer;
	struct jail_entry *jails;
	struct trust *trust; /* what tools may write, what we trust (trust.h) */
	struct render_spill *spill;
	struct gate *gate;
	struct audit *audit;
	tc_approver_fn approver;
	void *approver_data;
	struct approval_state *approval_state; /* approval.c */
	struct ticket *tickets;                /* approvals asked and not yet answered (policy.c) */
	char **domains;                        /* the policy's allowlist, NULL-terminated */
	struct egress *egress;                 /* made by the first call with egress */
	struct call *calls;
	size_t n_calls;
	struct call *queue_head, *queue_tail;
	size_t queue_len;
	unsigned slots_used;   /* running calls' and parked children's */
	struct parked *parked; /* children of answered calls, exiting (pipeline.c) */
	unsigned n_parked;     /* of slots_used, the parked children's */
	uint64_t next_id;
	struct tc_session *sessions; /* tc_session_new's, not yet freed */
	uint64_t next_session;
	bool keep_spares;    /* tc_options.keep_spares */
	bool notice_dropped; /* tc_options.notice_dropped */
	char msg_prefix[32]; /* what its lines on stderr start with: "toolcage",
	                      * or the CLI's "toolcage VERB" */
	bool strict;         /* tc_options.strict */
	bool shutting_down;
	int stop_signal; /* handle_signals: what stopped us */
};

/* pipeline.c */
void call_finish(struct call *c, enum tc_status st, json_t *canonical, const char *text,
                 size_t len);
void call_finishf(struct call *c, enum tc_status st, json_t *canonical, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
void call_execute(struct call *c);
/* Cancels every call in flight (supervisor.c, at a stop signal or at
 * shutdown): each ends with its result and its tool-result event, so the
 * audit records the abort; no new call starts after. */
void pipeline_cancel_all(struct tc_supervisor *s, const char *why);

/* jails.c: the egress service, made when a first call needs it; on
 * failure fds (that call's listeners) are closed. 0, or -1 with err. */
int supervisor_egress(struct tc_supervisor *s, int fds[SBX_LISTEN_MAX], struct tc_error *err);

/* jails.c: the jail for a tool's profile (compiled once, cached). */
struct sbx_jail *supervisor_jail(struct tc_supervisor *s, const struct tc_defined *t,
                                 struct tc_error *err);
/* jails.c: a child of t's jail was set up: the jail's confinement notice,
 * the first time (tc_options.notice_dropped). */
void supervisor_jail_ran(struct tc_supervisor *s, const struct tc_defined *t);

/* Stage 2's answer for a call, given back through the pipeline's
 * policy_verdict_fn (at most once per policy_authorize or policy_checked,
 * maybe before they return): run it, or end it. Nothing in policy.c runs
 * or finishes a call itself. */
struct policy_verdict {
	bool run;              /* else refused: */
	bool approved;         /* run: a person or a grant approved it */
	bool precheck;         /* run: only its precheck, then policy_checked */
	enum tc_status status; /* refused: */
	json_t *canonical;     /* taken; NULL for none */
	const char *text;      /* borrowed for the call; NULL when memory ran out */
	size_t text_len;
};

/* policy.c: stage 2. The verdict comes through verdict (kept for an
 * approval's answer). */
void policy_authorize(struct call *c, policy_verdict_fn verdict);
/* What an approved call may reach though the allowlist lacks it: the host
 * of its URL argument (policy.levels.network "ask"), and that URL's port;
 * "" and 0 for none. */
struct policy_reach {
	char host[URL_HOST_MAX + 1];
	uint16_t port;
	/* The path globs of the rules a builtin's walk leaves out (new,
	 * NULL-terminated: gate_hidden_paths), or NULL. */
	char **hidden;
};
/* Just before the fork: uses the call's once-approval (bound to these
 * exact arguments) and says what it may reach. 0, or -1 with err. */
int policy_before_fork(struct tc_supervisor *s, struct call *c, struct policy_reach *reach,
                       struct tc_error *err);
/* The call's precheck passed: now ask the approval the gate wanted (it
 * may finish c at once). */
void policy_checked(struct call *c);
/* A session ended: its grants go. */
void policy_session_ended(struct tc_supervisor *s, uint64_t session);
/* c ends (at any stage): its approval question, timer and once-approval
 * go, and everything of c->policy is released. */
void policy_call_ended(struct tc_supervisor *s, struct call *c);
/* The egress service's questions about unlisted names (struct
 * egress_hooks: data is the supervisor). One at a time per call, through
 * the call's approval channel; an answer goes to every waiting connection
 * of that call to the same name and port. */
void *policy_net_ask(void *s, uint64_t call_id, const char *name, uint16_t port,
                     egress_answer_fn answer, void *ctx);
void policy_net_cancel(void *s, void *handle);
int policy_init(struct tc_supervisor *s, const struct tc_options *opt, struct tc_error *err);
void policy_release(struct tc_supervisor *s);

#endif
