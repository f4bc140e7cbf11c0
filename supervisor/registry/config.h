/* config.h — toolcage.json: where tools and profiles are, limits, the gate's
 * policy (levels, rules, domains), the approval channel, the audit log and
 * an optional fixed identity for tools. docs/config.md documents every key.
 *
 * Parsing is strict: an unknown key, a wrong type or an impossible value is
 * an error whose err->where is "FILE: /json/pointer" of the key, because a
 * typo in a policy file must not silently weaken the policy. Relative paths
 * in the file are taken relative to the directory that holds the file.
 */
#ifndef TC_CONFIG_H
#define TC_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gate.h"
#include "netpolicy.h"
#include "toolcage.h"

#define CONFIG_FILE_MAX          (1u << 20) /* bytes in toolcage.json */
#define CONFIG_TOOL_DIRS_MAX     32
#define CONFIG_TOOLCHAINS_MAX    32  /* toolchains entries */
#define CONFIG_TOOL_SETTINGS_MAX 256 /* entries of "tools" */
#define CONFIG_PROTECTED_MAX     64  /* protected_paths.add entries */
#define CONFIG_PROTECTED_DEPTH   8   /* names in one protected path */
#define CONFIG_DEFAULT_NAME      "toolcage.json"
#define CONFIG_SYSTEM_PATH       "/etc/toolcage/" CONFIG_DEFAULT_NAME

/* Defaults, as docs/config.md lists them. */
#define CONFIG_DEFAULT_MAX_CONCURRENT      4
#define CONFIG_DEFAULT_QUEUE_TIMEOUT_MS    30000
#define CONFIG_DEFAULT_QUEUE_MAX           1024
#define CONFIG_DEFAULT_TIMEOUT_MS          30000
#define CONFIG_DEFAULT_MAX_RENDER_CHARS    20000
#define CONFIG_DEFAULT_APPROVAL_TIMEOUT_MS 60000
#define CONFIG_DEFAULT_MAX_MESSAGE_BYTES   (4u << 20)
#define CONFIG_DEFAULT_SPILL_MAX_BYTES     (64u << 20)

/* A loaded configuration. Every string and list is owned by it. Invariants
 * after config_load: every limit is within the range docs/config.md gives;
 * approval is "deny", "tty" or "cmd:" followed by a path; policy passed
 * gate_rule_parse and domain_check. */
struct config {
	char *origin;     /* the file it came from, or "built-in defaults" */
	char *file;       /* the file it was read from (config_load), or NULL */
	bool from_cwd;    /* file is the ./toolcage.json of the search */
	char *workspace;  /* NULL: the caller's choice (CLI: the current dir) */
	char **tool_dirs; /* NULL-terminated (never NULL itself) */
	size_t n_tool_dirs;
	char *profile_dir; /* NULL: built-in profiles only */
	/* limits */
	unsigned max_concurrent;
	uint32_t queue_timeout_ms;
	size_t queue_max;
	uint32_t timeout_ms;
	size_t max_render_chars;
	uint32_t approval_timeout_ms;
	size_t max_message_bytes;
	char *spill_dir; /* NULL: cut renders keep no spill */
	uint64_t spill_max_bytes;
	/* policy: levels, rules, domains, quarantine */
	struct gate_policy policy;
	/* the egress policy: policy.domains and policy.network (never NULL) */
	struct netpol *egress;
	/* approval channel */
	char *approval; /* "deny" (default), "tty" or "cmd:/path/to/program" */
	/* audit */
	char *audit_path;    /* NULL: no audit log */
	bool audit_required; /* refuse calls when the log cannot be written */
	/* protected paths: relative, plain names, NULL-terminated (never
	 * NULL itself); the defaults less .remove plus .add */
	char **protected_paths;
	size_t n_protected;
	/* the walk for the patterns among them: entries and depth (0: the
	 * sandbox's defaults) */
	unsigned protected_walk_entries, protected_walk_depth;
	/* toolchains: absolute directories every jail may read and run
	 * programs from, NULL-terminated (never NULL itself) */
	char **toolchains;
	size_t n_toolchains;
	/* per-tool settings ("tools": {"NAME": {"timeout_ms": N}}) */
	char **tool_names;         /* n_tool_settings of them */
	uint32_t *tool_timeout_ms; /* 0: the tool's own, else limits.timeout_ms */
	size_t n_tool_settings;
	/* sandbox.strict: no wall built another way, none dropped */
	bool strict;
	/* identity */
	bool fixed_identity;
	uid_t uid;
	gid_t gid;
};

/* The deadline of a call of tool: the configuration's tools.NAME.timeout_ms,
 * else what the tool declares (declared, 0 for none), else
 * limits.timeout_ms. */
uint32_t config_tool_timeout(const struct config *cfg, const char *tool, uint32_t declared);

/* The default protected paths (docs/config.md), NULL-terminated. */
extern const char *const config_protected_defaults[];

/* Loads the configuration into a new *out.
 * path set:  that file; missing or unreadable is an error (TC_E_NOT_FOUND /
 *            TC_E_SYSTEM).
 * path NULL: the first that exists of ./toolcage.json, the user's file
 *            (config_user_path) and CONFIG_SYSTEM_PATH, else the built-in
 *            defaults.
 * Returns 0, or -1 with err (where = "FILE: /pointer" or "FILE:LINE:COL"
 * for JSON syntax) and *out NULL. path is borrowed. Whether tools could
 * have written the file is the caller's to check (trust.h): it needs the
 * workspace, which the file itself may name. */
int config_load(const char *path, struct config **out, struct tc_error *err);

/* The user's configuration file: $XDG_CONFIG_HOME/toolcage/toolcage.json,
 * or ~/.config/toolcage/toolcage.json, into out[size]. 0, or -1 when
 * neither variable holds an absolute path (or out is too small). */
int config_user_path(char *out, size_t size);

/* Parses JSON text into a new *out. origin names the text in errors; its
 * directory (when it has a '/') anchors relative paths. */
int config_parse(const char *text, size_t len, const char *origin, struct config **out,
                 struct tc_error *err);

/* A new configuration holding the built-in defaults, or NULL when out of
 * memory. */
struct config *config_defaults(void);

/* Frees cfg and everything it owns (cfg comes from config_load,
 * config_parse or config_defaults). NULL is a no-op. */
void config_release(struct config *cfg);

#endif
