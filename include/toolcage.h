/* toolcage.h — the public embedding API of libtoolcage.
 *
 * Define tools (a plain struct literal each), register them or whole plugins
 * in a registry, and run calls through the four-stage pipeline (validate,
 * authorize, execute in a confined child, render).
 *
 * Embedding: create a supervisor (tc_supervisor_new), add tools or plugins
 * to its registry, then tc_call (blocking) or tc_call_submit + your own
 * turns of tc_supervisor_run_once. Link with -ltoolcage -lseccomp
 * -ljansson -lpcre2-8.
 *
 * Ownership: functions named _new return a new object the caller frees with
 * the matching _free; "borrowed" results stay valid until the named event;
 * "takes" means the callee owns the argument afterwards, even on failure.
 * JSON values are jansson's json_t; the jansson rule that json_*_new steals
 * applies only to jansson's own calls.
 */
#ifndef TOOLCAGE_H
#define TOOLCAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#define TC_VERSION "0.1.0"

/* Everything declared below is the library's API: exported (the rest of
 * libtoolcage is built hidden and kept out of an embedder's namespace). */
#pragma GCC visibility push(default)

/* ---- errors ------------------------------------------------------------ */

/* A caller-owned error: where (file:line, JSON pointer, or tool name) and
 * what. Functions returning int return 0 on success and -1 on failure with
 * *err filled (err may be NULL). */
struct tc_error {
	int code; /* TC_E_* */
	char where[256];
	char msg[768];
};

enum {
	TC_E_OK = 0,
	TC_E_INVALID,   /* bad input: tool definition, schema, config */
	TC_E_DUPLICATE, /* a name already registered */
	TC_E_NOT_FOUND,
	TC_E_SYSTEM, /* an OS call failed (msg names it) */
	TC_E_NOMEM,
};

/* ---- tools ------------------------------------------------------------- */

/* Risk levels, lowest first. A tool that declares none is read-only. */
enum tc_risk {
	TC_RISK_READ_ONLY = 0,
	TC_RISK_WRITE,
	TC_RISK_NETWORK,
	TC_RISK_DESTRUCTIVE,
};

/* What a builtin sees when it runs, inside the confined child. */
struct tc_tool_ctx {
	int workspace_fd;      /* O_PATH|O_DIRECTORY fd of the workspace */
	const char *workspace; /* its absolute path, for messages */
	uint32_t timeout_ms;   /* the deadline this call runs under */
	size_t max_render;     /* render budget in code points (hint) */
	/* The network domain allowlist the gate checked the call against
	 * (exact hosts or "*.suffix"), for tools that must hold every further
	 * connection (a redirect) to it. NULL-terminated; never NULL. */
	const char *const *allowed_domains;
	uint32_t max_timeout_ms; /* the cap a tool's own timeout argument must obey */
	/* Path globs (relative to the workspace, glob_match's syntax) that
	 * the policy's deny and ask rules name: a tool that walks a directory
	 * leaves out every entry one matches, as the gate refuses them as
	 * path arguments. NULL-terminated; never NULL. */
	const char *const *hidden_paths;
};

/* A builtin's answer. canonical: the structured truth (machine-readable,
 * testable, storable); render: the text for the model. */
struct tc_output {
	json_t *canonical; /* set by the tool: a new reference, or NULL */
	char *render;      /* set by the tool: malloc'd, or NULL = canonical pretty-printed */
};

/* Runs in the confined child. args are the validated arguments (borrowed).
 * Returns 0 for success, or nonzero for an expected failure whose render
 * says what went wrong and what to do next (e.g. "no such file: x; the
 * directory has: a, b").
 *
 * The child is a clean image of this program, not a copy of the caller:
 * the library runs it again as a worker before main (nothing to call), and
 * the function runs there with the program's static data as at start-up,
 * never what main or other calls set up since; everything else comes from
 * args and ctx. A function outside the program image (in a shared library
 * loaded apart from libtoolcage) runs in a non-dumpable fork of the caller
 * instead (docs/security.md, "What a tool can reach"). */
typedef int (*tc_execute_fn)(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);

/* A tool, as a plain struct literal. Strings are borrowed by tc_tool_define
 * (copied into the defined tool). */
struct tc_tool {
	const char *name;          /* snake_case, ^[a-z][a-z0-9_]*$, <= 64 chars */
	const char *title;         /* optional, human-readable */
	const char *description;   /* for the model: 10..2048 chars */
	const char *parameters;    /* JSON Schema text; root is an object schema */
	const char *output_schema; /* optional JSON Schema text for canonical */
	enum tc_risk risk;
	bool idempotent;              /* exported as idempotentHint */
	const char *profile;          /* sandbox profile; NULL = named after risk */
	uint32_t timeout_ms;          /* 0 = the config's */
	const char *url_arg;          /* network tools: JSON pointer of the URL argument */
	const char *const *path_args; /* JSON pointers of the arguments that are paths
	                             * relative to the workspace (a string, or an array
	                             * of strings), NULL-terminated; NULL: none. Policy
	                             * rules match them as the tool resolves them */
	tc_execute_fn execute;        /* builtins; NULL for manifests */
	/* Optional, builtins: execute (and precheck) start no process, run no
	 * program and use no /tmp or /proc. Their calls then share one mount
	 * namespace, their worker's, where /proc is empty and /tmp read-only,
	 * instead of making one each (a third of a call's CPU); each still
	 * has its own pid namespace, Landlock domain and seccomp filter, which
	 * refuses fork, clone and exec (EPERM). */
	bool self_contained;
	/* Optional, builtins: when a call needs an approval, this runs first,
	 * confined like execute and with the same arguments, and must change
	 * nothing. Nonzero (with out filled, as execute fills it) means the
	 * call would fail anyway (a missing file, a program not found): that
	 * is its result, and nobody is asked to approve it. 0: ask. */
	tc_execute_fn precheck;
	/* Optional: JSON pointer to an argv-like array argument ("/argv" for
	 * run_command). An approver can then allow that command (argv[0], and
	 * for tools such as git its subcommand) for the session, not only the
	 * exact arguments; not for a call that sets an "env" object beside the
	 * array (variables make any program run anything). */
	const char *command_arg;
	/* Optional: JSON pointer to a string argument holding a unified diff
	 * ("/patch" for apply_patch). Every path its file headers name is a
	 * path argument for the policy (rules, protected paths), read by the
	 * parser the tool uses, so a patch cannot carry a path the rules did
	 * not see. */
	const char *patch_arg;
};

/* A named group of tools loaded and disposed together. A tool riskier than
 * risk_cap is refused at load. */
struct tc_plugin {
	const char *name;
	enum tc_risk risk_cap;
	const struct tc_tool *tools;
	size_t ntools;
};

/* Undoes one registration (a tool or a whole plugin). Calling it twice, or
 * on a zeroed disposer, is a no-op. */
struct tc_disposer {
	void (*fn)(void *data);
	void *data;
};
void tc_dispose(struct tc_disposer *d);

/* Returns a static string ("read-only", "write", "network", "destructive"),
 * or "?" for a value outside the enum. */
const char *tc_risk_name(enum tc_risk risk);
/* Parses one of those four names into *out. 0, or -1 for anything else. */
int tc_risk_parse(const char *name, enum tc_risk *out);

/* ---- defined tools and the registry ------------------------------------
 *
 * A defined tool is a tc_tool that passed every registration check: its
 * strings copied, its parameters parsed and compiled once. It is
 * reference-counted: the registry holds one reference per registration and
 * a call in flight holds its own (from tc_registry_get), so unregistering a
 * tool never pulls it from under a running call. Not thread-safe: toolcage
 * is single-threaded by design (see docs/architecture.md).
 *
 * The registry keeps tools in registration order; lookups are by exact name.
 */
struct tc_defined;
struct tc_registry;

/* Checks t against the registration rules and compiles its schemas once:
 * name ^[a-z][a-z0-9_]*$ and <= 64 chars; description 10..2048 characters
 * and more than the name; parameters valid JSON Schema (metaschema, only
 * enforced keywords) whose root is {"type":"object",...}; output_schema the
 * same when given; risk in range; execute set. Copies everything it keeps
 * from t (t may be freed afterwards). Returns a new reference (one), or NULL
 * with err naming the tool and the problem (err->where = the tool name). */
struct tc_defined *tc_tool_define(const struct tc_tool *t, struct tc_error *err);

/* Adds one reference to t and returns it (NULL stays NULL). */
struct tc_defined *tc_defined_ref(struct tc_defined *t);
/* Drops one reference; the last one frees the tool. NULL is a no-op. */
void tc_defined_unref(struct tc_defined *t);

/* Borrowed; valid while the caller holds a reference to t. */
const char *tc_defined_name(const struct tc_defined *t);
const char *tc_defined_description(const struct tc_defined *t);
enum tc_risk tc_defined_risk(const struct tc_defined *t);

/* Returns a new, empty registry (NULL only when out of memory). */
struct tc_registry *tc_registry_new(void);
/* Drops the registry's references to its tools and frees every disposer
 * handle it gave out: call no disposer of this registry afterwards.
 * NULL is a no-op. */
void tc_registry_free(struct tc_registry *reg);

/* Registers t. Takes t (one reference) even on failure. A name already
 * registered fails with TC_E_DUPLICATE: never a silent replace. On success
 * *out (may be NULL: then the tool stays until tc_registry_free) undoes
 * this registration; it is valid until called or until tc_registry_free. */
int tc_registry_add(struct tc_registry *reg, struct tc_defined *t, struct tc_disposer *out,
                    struct tc_error *err);

/* Defines and registers every tool of p, all or nothing: one tool that
 * fails a check, is riskier than p->risk_cap, or clashes with a registered
 * name (or another tool of p) refuses the whole plugin and registers none.
 * p is borrowed for the call only. One disposer removes all its tools. */
int tc_plugin_load(struct tc_registry *reg, const struct tc_plugin *p, struct tc_disposer *out,
                   struct tc_error *err);

/* Returns a new reference to the tool called name, or NULL. */
struct tc_defined *tc_registry_get(const struct tc_registry *reg, const char *name);
/* Number of tools, and the i-th in registration order (borrowed: valid
 * until the registry next changes). */
size_t tc_registry_count(const struct tc_registry *reg);
const struct tc_defined *tc_registry_at(const struct tc_registry *reg, size_t i);

/* Goes up by one on every add and every removal (0 for a new registry), so
 * a server can tell whether the tool list changed since it last looked. */
uint64_t tc_registry_generation(const struct tc_registry *reg);

/* Calls fn(data, reg) after each change (an add or a disposal; a plugin is
 * one change). fn must not change the registry. *out unsubscribes; it is
 * valid until called or until tc_registry_free. */
typedef void (*tc_registry_watch_fn)(void *data, struct tc_registry *reg);
int tc_registry_watch(struct tc_registry *reg, tc_registry_watch_fn fn, void *data,
                      struct tc_disposer *out, struct tc_error *err);

/* Export formats of the tool list. */
enum tc_export_format {
	TC_EXPORT_MCP =
	        0, /* [{name, title?, description, inputSchema, outputSchema?, annotations}] */
	TC_EXPORT_OPENAI, /* [{"type":"function","function":{name, description, parameters}}] */
	TC_EXPORT_TEXT,   /* a JSON string holding a readable list */
};
/* Parses "mcp", "openai" or "text". 0, or -1 for anything else. */
int tc_export_format_parse(const char *name, enum tc_export_format *out);

/* One tool in format (TC_EXPORT_TEXT gives a JSON string). Returns a new
 * reference (a deep copy: changing it changes nothing here), or NULL when
 * out of memory. MCP annotations always carry all four hints, from risk:
 * read-only {readOnly, idempotent}; write {idempotent as declared};
 * network {openWorld, idempotent as declared}; destructive {destructive,
 * idempotent as declared}; every other hint false. */
json_t *tc_defined_export(const struct tc_defined *t, enum tc_export_format format);
/* The whole list in registration order: an array for mcp and openai, one
 * JSON string for text. New reference, or NULL when out of memory. */
json_t *tc_registry_export(const struct tc_registry *reg, enum tc_export_format format);

/* ---- calls: the four-stage pipeline ------------------------------------ */

/* How a call ended. Every call ends in exactly one of these. */
enum tc_status {
	TC_STATUS_OK = 0,
	TC_STATUS_INVALID_ARGUMENTS, /* not JSON, not an object, or schema errors */
	TC_STATUS_DENIED,            /* a gate check or the approver said no */
	TC_STATUS_BUSY,              /* no slot within queue_timeout_ms, or queue full */
	TC_STATUS_TIMED_OUT,         /* killed at its deadline */
	TC_STATUS_KILLED,            /* killed by a signal, seccomp or the output limit */
	TC_STATUS_FAILED,            /* the tool ran and reported failure, or crashed */
	TC_STATUS_UNKNOWN_TOOL,
	TC_STATUS_CANCELLED, /* cancelled by the caller (MCP) or shutdown */
};

/* "ok", "invalid_arguments", "denied", "busy", "timed_out", "killed",
 * "failed", "unknown_tool", "cancelled" (static). */
const char *tc_status_name(enum tc_status s);

/* The one result of a call. canonical: structured truth; render: the text
 * for the model (bounded, valid UTF-8). */
struct tc_result {
	enum tc_status status;
	char *tool; /* as called */
	uint64_t call_id;
	json_t *canonical; /* owned; never NULL */
	char *render;      /* owned; never NULL */
	bool truncated;    /* render was cut */
	uint64_t duration_ms;
	json_t *confinement; /* owned; NULL when no child ran: the limits and
	                          * walls the tool ran under, how each was built,
	                          * and those dropped (docs/profiles.md) */
	json_t *network;     /* owned; NULL unless the tool's profile sends its
	                          * traffic through toolcage: what it tried, as
	                          * [{"name", "port", "decision", "reason", ...}]
	                          * (docs/network.md) */
};
void tc_result_free(struct tc_result *r);

/* ---- the supervisor: calls through the pipeline --------------------------
 * One supervisor owns an event loop (single-threaded), the registry, the
 * profiles' jails, the slots and the queue. Every call ends in exactly one
 * struct tc_result, delivered once. */

struct tc_supervisor;

/* Options the CLI (and embedders) give; NULL/0 fields take the config's
 * or built-in defaults. Strings are copied. */
struct tc_options {
	const char *workspace;        /* default: the config's, else "." */
	const char *config_path;      /* NULL: ./toolcage.json, the user's, the
	                              * system's (docs/config.md), else defaults */
	const char *const *tool_dirs; /* extra manifest directories (NULL-terminated) */
	const char *approve;          /* "deny", "tty", "cmd:PROGRAM" */
	const char *audit_path;
	bool no_builtins;     /* do not load the built-in plugins */
	bool watch_tool_dirs; /* reload manifests when their directories
	                              * change (inotify): the registry's watchers
	                              * (MCP list_changed) hear about it */
	bool handle_signals;  /* SIGINT/SIGTERM/SIGHUP end every call in
	                              * flight (cancelled, audited) and stop: see
	                              * tc_supervisor_signal */
	bool notice_dropped;  /* say on stderr, once per profile, which of
	                              * its limits it runs without here (an
	                              * optional one this host cannot give) */
	bool keep_spares;     /* keep one child per profile in use set up
	                              * ahead, so that the next call waits for its
	                              * tool only: for a supervisor that serves
	                              * many calls (one idle process per profile;
	                              * docs/performance.md). The spare is made
	                              * by the loop: between tc_call()s, run
	                              * tc_supervisor_run_once, or the next call
	                              * waits for its spare's setup */
	bool strict;          /* strict walls: every wall of a profile
	                              * built its own way, nothing dropped, as
	                              * the config's "sandbox": {"strict": true}
	                              * (docs/where-it-runs.md) */
};

/* Creates a supervisor: loads the config, the built-in plugins and the
 * manifests. Returns 0 and a new supervisor, or -1 with err. Refuses
 * (TC_E_INVALID) a configuration, profile directory, tool directory or
 * manifest, approver program or audit log that tools could write: one in
 * the workspace or a profile's write paths, or reached through one. */
int tc_supervisor_new(const struct tc_options *opt, struct tc_supervisor **out,
                      struct tc_error *err);
/* Cancels every call in flight (each gets its result), kills every child,
 * and frees. NULL is a no-op. */
void tc_supervisor_free(struct tc_supervisor *s);

/* Borrowed, valid until tc_supervisor_free. */
struct tc_registry *tc_supervisor_registry(struct tc_supervisor *s);
/* The workspace's absolute real path, as the tools see it (borrowed, valid
 * until tc_supervisor_free). */
const char *tc_supervisor_workspace(const struct tc_supervisor *s);
/* Whether no call of tool can succeed under the configuration: its risk
 * level is "deny" (whatever allow rules say), quarantine is on and the
 * tool is not read-only, a deny rule names it with no path or argument
 * condition, or it has a URL argument and network tools are denied or the
 * domain allowlist is empty (with no "ask" to approve a host). 1 with
 * why (a sentence saying what to change) filled, or 0. Such a tool is left
 * out of MCP tools/list and `toolcage list`, which say why. */
int tc_supervisor_tool_unusable(const struct tc_supervisor *s, const char *tool, char *why,
                                size_t size);

/* Called once per call with its result (the callee takes it). */
typedef void (*tc_call_fn)(struct tc_result *res, void *data);

/* Decides an approval request asynchronously: call respond(ctx, decision)
 * exactly once, now or later from the loop. decision: TC_APPROVE_*. */
/* SESSION allows the same tool with the same arguments for the session;
 * COMMAND the same command (tc_approval_request.command) of the tool, any
 * other arguments; TOOL the tool with any arguments. */
enum tc_approval {
	TC_APPROVE_DENY = 0,
	TC_APPROVE_ONCE,
	TC_APPROVE_SESSION,
	TC_APPROVE_COMMAND,
	TC_APPROVE_TOOL
};
struct tc_approval_request {
	const char *tool;
	json_t *args;       /* borrowed: the validated arguments */
	const char *reason; /* which rule or level asked */
	uint64_t call_id;
	/* The command a COMMAND answer would allow ("git push", "pytest"), or
	 * NULL when the tool has none or this call's cannot be told apart (a
	 * shell or an interpreter runs anything: only exact arguments or the
	 * whole tool then). */
	const char *command;
};
typedef void (*tc_approval_respond)(void *ctx, enum tc_approval decision, const char *who);
typedef void (*tc_approver_fn)(const struct tc_approval_request *req, tc_approval_respond respond,
                               void *ctx, void *data);
/* Replaces the configured approval channel (replay's scripted approver,
 * MCP elicitation). fn NULL restores the configured channel. */
void tc_supervisor_set_approver(struct tc_supervisor *s, tc_approver_fn fn, void *data);

/* ---- sessions ------------------------------------------------------------
 * A session is one caller of a shared supervisor (an MCP client over HTTP,
 * say): its own approval channel and its own session grants ("allow for
 * the session" approves the same tool with the same arguments for that
 * session only), while the calls of every session share the supervisor's
 * slots, queue and limits. tc_call_submit runs a call in the supervisor's
 * own session. */
struct tc_session;
/* A new session of s, or NULL when out of memory. */
struct tc_session *tc_session_new(struct tc_supervisor *s);
/* Like tc_supervisor_set_approver, for this session's calls only. fn NULL
 * gives them the supervisor's approver (set, or the configured channel). */
void tc_session_set_approver(struct tc_session *ss, tc_approver_fn fn, void *data);
/* tc_call_submit, in session ss. */
uint64_t tc_session_call_submit(struct tc_session *ss, const char *tool, const char *args_json,
                                tc_call_fn fn, void *data);
/* Ends every call of ss still in flight (each gets its result, status
 * cancelled, now), drops its grants and frees it. Call it before
 * tc_supervisor_free. NULL is a no-op. */
void tc_session_free(struct tc_session *ss);

/* Submits a call: args_json is the arguments as the model sent them (text;
 * parse errors are a result, not an error). fn is called exactly once, maybe
 * before tc_call_submit returns (validation failures, denials), also when
 * memory runs out: a call whose memory ran out later ends failed with a
 * render that says so; one that could not be set up at all gets a shared
 * result (status failed, canonical JSON null) that tc_result_free leaves
 * alone, and the call id is 0. Returns the call id. */
uint64_t tc_call_submit(struct tc_supervisor *s, const char *tool, const char *args_json,
                        tc_call_fn fn, void *data);
/* Records a call its caller refused before the pipeline, on a limit of its
 * own (an MCP connection's cap on calls in flight): the call gets an id, a
 * call-start and a tool-result event (so the audit log has every decided
 * call) and fn gets its result, status st with text as its render, before
 * this returns. Returns the call id. */
uint64_t tc_call_refuse(struct tc_supervisor *s, const char *tool, const char *args_json,
                        enum tc_status st, const char *text, tc_call_fn fn, void *data);
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

#pragma GCC visibility pop

#endif
