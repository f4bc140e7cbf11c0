/* config.c — strict loading of toolcage.json (see config.h and
 * docs/config.md). Every key is known, every value checked; errors name the
 * file and the JSON pointer of the key. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "netpolicy.h"
#include "sandbox.h"
#include "util.h"

struct cctx {
	const char *origin;
	char *basedir; /* anchors relative paths; NULL = as written */
	struct tc_error *err;
	struct config *cfg;
};

__attribute__((format(printf, 3, 4))) static int fail(struct cctx *c, const char *ptr,
                                                      const char *fmt, ...)
{
	char where[sizeof c->err->where];
	snprintf(where, sizeof where, "%s: %s", c->origin, *ptr ? ptr : "/");
	va_list ap;
	va_start(ap, fmt);
	tc_error_vset(c->err, TC_E_INVALID, where, fmt, ap);
	va_end(ap);
	return -1;
}

static int oom(struct cctx *c)
{
	return tc_error_set(c->err, TC_E_NOMEM, c->origin, "out of memory");
}

/* ptr + "/" + key, the key escaped for a JSON pointer. */
static void child_ptr(char *out, size_t size, const char *ptr, const char *key)
{
	size_t o = (size_t)snprintf(out, size, "%s/", ptr);
	for (const char *k = key; *k && o + 3 < size; k++) {
		if (*k == '~' || *k == '/') {
			out[o++] = '~';
			out[o++] = *k == '~' ? '0' : '1';
		} else {
			out[o++] = *k;
		}
	}
	out[o < size ? o : size - 1] = '\0';
}

/* "got a string" and, for a number or a boolean written as text, the
 * fix: the type error a hand-written file most often has. */
static int fail_type(struct cctx *c, json_t *v, const char *ptr, const char *want)
{
	const char *s = json_is_string(v) ? json_string_value(v) : NULL;
	char *end = NULL;
	bool number = s && *s && (strtod(s, &end), end && !*end);
	bool boolean = s && (!strcmp(s, "true") || !strcmp(s, "false"));
	return fail(c, ptr, "must be %s, got %s%s", want,
	            json_is_real(v) ? "a number with a fraction or an exponent" : json_kind(v),
	            number || boolean ? " (write the value without quotes)" : "");
}

/* The keys of the sections below the top and below "policy", for a key
 * written a level too high: {"levels": ...} at the top is policy's, and
 * {"destructive": "allow"} in policy is policy.levels'. */
static const char *const limits_keys[] = { "max_concurrent",    "queue_timeout_ms",
	                                   "queue_max",         "timeout_ms",
	                                   "max_render_chars",  "approval_timeout_ms",
	                                   "max_message_bytes", "spill_dir",
	                                   "spill_max_bytes",   NULL };
static const char *const policy_keys[] = { "quarantine", "levels",  "rules",
	                                   "domains",    "network", NULL };
static const char *const levels_keys[] = { "read-only", "write", "network", "destructive", NULL };
static const char *const sandbox_keys[] = { "strict", NULL };
static const char *const identity_keys[] = { "uid", "gid", NULL };

struct section {
	const char *name; /* as the key that holds it */
	const char *const *keys;
};
static const struct section below_root[] = {
	{ "limits", limits_keys },
	{ "policy", policy_keys },
	{ "sandbox", sandbox_keys },
	{ "identity", identity_keys },
	{ NULL, NULL },
};
static const struct section below_policy[] = { { "levels", levels_keys }, { NULL, NULL } };

/* Refuses any key of obj not in allowed: a typo must not silently fall back
 * to a default (a misspelled "quarantine" would leave it off). One that is
 * a key of a section below (below: NULL for none) is said to go there. */
static int check_keys_below(struct cctx *c, json_t *obj, const char *ptr,
                            const char *const *allowed, const struct section *below)
{
	if (!json_is_object(obj))
		return fail_type(c, obj, ptr, "an object");
	const char *key = json_unknown_key(obj, allowed);
	if (!key)
		return 0;
	char p[256];
	child_ptr(p, sizeof p, ptr, key);
	for (size_t i = 0; below && below[i].name; i++)
		for (size_t k = 0; below[i].keys[k]; k++)
			if (!strcmp(key, below[i].keys[k]))
				return fail(
				        c, p,
				        "'%s' is not a key here: it belongs in \"%s\" (%s/%s/%s): "
				        "{\"%s\": {\"%s\": ...}}",
				        key, below[i].name, ptr, below[i].name, key, below[i].name,
				        key);
	struct buf known = BUF_INIT;
	buf_join(&known, allowed, ", ");
	const char *near = near_name(key, allowed);
	int rc = fail(c, p, "unknown key '%s'%s%s%s (known here: %s)", key,
	              near ? ": did you mean '" : "", near ? near : "", near ? "'?" : "",
	              known.data ? known.data : "");
	buf_release(&known);
	return rc;
}

static int check_keys(struct cctx *c, json_t *obj, const char *ptr, const char *const *allowed)
{
	return check_keys_below(c, obj, ptr, allowed, NULL);
}

/* A non-empty string without NUL bytes, or NULL (after fail) when v is not. */
static const char *string_at(struct cctx *c, json_t *v, const char *ptr)
{
	if (!json_is_string(v)) {
		fail_type(c, v, ptr, "a string");
		return NULL;
	}
	const char *s = json_string_value(v);
	if (!*s || strlen(s) != json_string_length(v)) {
		fail(c, ptr, "must be a non-empty string without NUL characters");
		return NULL;
	}
	return s;
}

/* Appends path s to b as it is meant: "~/" is the user's home, as a
 * shell reads it; a relative path is anchored at the config file's
 * directory, so the file means the same thing whatever the current
 * directory is. 0, or -1 after fail. */
static int anchor_path(struct cctx *c, const char *ptr, const char *s, struct buf *b)
{
	const char *home = getenv("HOME");
	int rc;
	if (!strncmp(s, "~/", 2)) {
		if (!home || home[0] != '/')
			return fail(c, ptr, "starts with ~/ but HOME is not an absolute path");
		rc = buf_printf(b, "%s/%s", home, s + 2);
	} else {
		rc = s[0] == '/' || !c->basedir ? buf_adds(b, s) :
		                                  buf_printf(b, "%s/%s", c->basedir, s);
	}
	return rc < 0 ? oom(c) : 0;
}

static int path_at(struct cctx *c, json_t *v, const char *ptr, char **out)
{
	const char *s = string_at(c, v, ptr);
	if (!s)
		return -1;
	if (strlen(s) > 4095)
		return fail(c, ptr, "is longer than 4095 bytes");
	struct buf b = BUF_INIT;
	if (anchor_path(c, ptr, s, &b) < 0) {
		buf_release(&b);
		return -1;
	}
	free(*out);
	*out = buf_detach(&b);
	return 0;
}

static int uint_at(struct cctx *c, json_t *v, const char *ptr, uint64_t min, uint64_t max,
                   uint64_t *out)
{
	if (!json_is_integer(v))
		return fail_type(c, v, ptr, "an integer");
	json_int_t n = json_integer_value(v);
	if (n < 0 || (uint64_t)n < min || (uint64_t)n > max)
		return fail(c, ptr, "must be from %llu to %llu (got %lld)", (unsigned long long)min,
		            (unsigned long long)max, (long long)n);
	*out = (uint64_t)n;
	return 0;
}

static int bool_at(struct cctx *c, json_t *v, const char *ptr, bool *out)
{
	if (!json_is_boolean(v))
		return fail_type(c, v, ptr, "true or false");
	*out = json_is_true(v);
	return 0;
}

/* ---- sections ----------------------------------------------------------- */

struct limit {
	const char *key;
	uint64_t min, max;
};

static const struct limit limit_table[] = {
	{ "max_concurrent", 1, 256 },
	{ "queue_timeout_ms", 1, 86400000 },
	{ "queue_max", 0, 1000000 },
	{ "timeout_ms", 1, 86400000 },
	{ "max_render_chars", 100, 10000000 },
	{ "approval_timeout_ms", 1, 86400000 },
	{ "max_message_bytes", 1024, 1u << 30 },
	{ "spill_max_bytes", 1, (uint64_t)1 << 40 },
	{ NULL, 0, 0 },
};

static void set_limit(struct config *cfg, int i, uint64_t v)
{
	switch (i) {
	case 0: cfg->max_concurrent = (unsigned)v; break;
	case 1: cfg->queue_timeout_ms = (uint32_t)v; break;
	case 2: cfg->queue_max = (size_t)v; break;
	case 3: cfg->timeout_ms = (uint32_t)v; break;
	case 4: cfg->max_render_chars = (size_t)v; break;
	case 5: cfg->approval_timeout_ms = (uint32_t)v; break;
	case 6: cfg->max_message_bytes = (size_t)v; break;
	case 7: cfg->spill_max_bytes = v; break;
	}
}

static int parse_limits(struct cctx *c, json_t *o)
{
	if (check_keys(c, o, "/limits", limits_keys) < 0)
		return -1;
	for (int i = 0; limit_table[i].key; i++) {
		json_t *v = json_object_get(o, limit_table[i].key);
		char p[64];
		uint64_t n;
		snprintf(p, sizeof p, "/limits/%s", limit_table[i].key);
		if (!v)
			continue;
		if (uint_at(c, v, p, limit_table[i].min, limit_table[i].max, &n) < 0)
			return -1;
		set_limit(c->cfg, i, n);
	}
	json_t *spill = json_object_get(o, "spill_dir");
	return spill ? path_at(c, spill, "/limits/spill_dir", &c->cfg->spill_dir) : 0;
}

static int parse_levels(struct cctx *c, json_t *o)
{
	if (check_keys(c, o, "/policy/levels", levels_keys) < 0)
		return -1;
	const char *key;
	json_t *v;
	json_object_foreach(o, key, v)
	{
		enum tc_risk r;
		char p[64];
		snprintf(p, sizeof p, "/policy/levels/%s", key);
		tc_risk_parse(key, &r);
		if (!json_is_string(v) ||
		    gate_action_parse(json_string_value(v), &c->cfg->policy.levels[r]) < 0) {
			char got[128];
			gate_action_got(v, got, sizeof got);
			return fail(c, p, "must be \"allow\", \"ask\" or \"deny\"%s", got);
		}
	}
	return 0;
}

static int parse_rules(struct cctx *c, json_t *arr)
{
	struct gate_policy *p = &c->cfg->policy;
	if (!json_is_array(arr))
		return fail(c, "/policy/rules", "must be an array of rules");
	size_t n = json_array_size(arr);
	if (n > GATE_RULES_MAX)
		return fail(c, "/policy/rules", "has more than %d rules", GATE_RULES_MAX);
	if (n && !(p->rules = calloc(n, sizeof *p->rules)))
		return oom(c);
	for (size_t i = 0; i < n; i++) {
		char where[sizeof c->err->where];
		snprintf(where, sizeof where, "%s: /policy/rules/%zu", c->origin, i);
		if (gate_rule_parse(json_array_get(arr, i), where, &p->rules[i], c->err) < 0)
			return -1;
		p->nrules++;
	}
	return 0;
}

static int parse_domains(struct cctx *c, json_t *arr)
{
	struct gate_policy *p = &c->cfg->policy;
	if (!json_is_array(arr))
		return fail(c, "/policy/domains", "must be an array of host names");
	size_t n = json_array_size(arr);
	if (n > GATE_DOMAINS_MAX)
		return fail(c, "/policy/domains", "has more than %d entries", GATE_DOMAINS_MAX);
	if (n && !(p->domains = calloc(n, sizeof *p->domains)))
		return oom(c);
	for (size_t i = 0; i < n; i++) {
		char ptr[64];
		struct tc_error e;
		snprintf(ptr, sizeof ptr, "/policy/domains/%zu", i);
		const char *s = string_at(c, json_array_get(arr, i), ptr);
		if (!s)
			return -1;
		if (!(p->domains[i] = strdup(s)))
			return oom(c);
		p->ndomains++;
		if (domain_check(p->domains[i], &e) < 0)
			return fail(c, ptr, "'%s': %s", s, e.msg);
	}
	return 0;
}

/* The egress policy (netpolicy.h): policy.domains allowed on ports 80
 * and 443, then policy.network; an unlisted name is asked about when
 * policy.levels.network is "ask". */
static int parse_egress(struct cctx *c, json_t *network)
{
	char where[300];
	snprintf(where, sizeof where, "%s: /policy/network", c->origin);
	struct gate_policy *p = &c->cfg->policy;
	struct netpol *np = NULL;
	if (netpol_parse(network, p->domains, p->ndomains, p->levels[TC_RISK_NETWORK] == GATE_ASK,
	                 where, &np, c->err) < 0)
		return -1;
	netpol_free(c->cfg->egress);
	c->cfg->egress = np;
	return 0;
}

static int parse_policy(struct cctx *c, json_t *o)
{
	if (check_keys_below(c, o, "/policy", policy_keys, below_policy) < 0)
		return -1;
	json_t *v;
	if ((v = json_object_get(o, "quarantine")) &&
	    bool_at(c, v, "/policy/quarantine", &c->cfg->policy.quarantine) < 0)
		return -1;
	if ((v = json_object_get(o, "levels")) && parse_levels(c, v) < 0)
		return -1;
	if ((v = json_object_get(o, "rules")) && parse_rules(c, v) < 0)
		return -1;
	if ((v = json_object_get(o, "domains")) && parse_domains(c, v) < 0)
		return -1;
	return parse_egress(c, json_object_get(o, "network"));
}

static int parse_approval(struct cctx *c, json_t *v)
{
	const char *s = string_at(c, v, "/approval");
	if (!s)
		return -1;
	char *val = NULL;
	if (!strcmp(s, "deny") || !strcmp(s, "tty")) {
		val = strdup(s);
	} else if (!strncmp(s, "cmd:", 4) && s[4]) {
		/* The approver program is trusted configuration: run by path,
		 * never looked up in $PATH, never through a shell. */
		struct buf b = BUF_INIT;
		int rc = buf_adds(&b, "cmd:") < 0 ? oom(c) : anchor_path(c, "/approval", s + 4, &b);
		if (rc < 0) {
			buf_release(&b);
			return -1;
		}
		val = buf_detach(&b);
	} else {
		return fail(c, "/approval",
		            "must be \"deny\", \"tty\" or \"cmd:PROGRAM\" (got \"%s\")", s);
	}
	if (!val)
		return oom(c);
	free(c->cfg->approval);
	c->cfg->approval = val;
	return 0;
}

static int parse_audit(struct cctx *c, json_t *o)
{
	static const char *const keys[] = { "path", "required", NULL };
	if (check_keys(c, o, "/audit", keys) < 0)
		return -1;
	json_t *v;
	if ((v = json_object_get(o, "path")) &&
	    path_at(c, v, "/audit/path", &c->cfg->audit_path) < 0)
		return -1;
	if ((v = json_object_get(o, "required")) &&
	    bool_at(c, v, "/audit/required", &c->cfg->audit_required) < 0)
		return -1;
	return 0;
}

/* "sandbox": {"strict": true}: every wall as the profile states it, none
 * built another way or dropped (docs/where-it-runs.md). */
static int parse_sandbox(struct cctx *c, json_t *o)
{
	if (check_keys(c, o, "/sandbox", sandbox_keys) < 0)
		return -1;
	json_t *v = json_object_get(o, "strict");
	return v ? bool_at(c, v, "/sandbox/strict", &c->cfg->strict) : 0;
}

static int parse_identity(struct cctx *c, json_t *o)
{
	if (check_keys(c, o, "/identity", identity_keys) < 0)
		return -1;
	json_t *u = json_object_get(o, "uid"), *g = json_object_get(o, "gid");
	if (!u || !g)
		return fail(c, "/identity", "needs both uid and gid");
	uint64_t uid, gid;
	/* 0 is root: tools never run as root, and (uid_t)-1 means "unchanged"
	 * to setresuid. */
	if (uint_at(c, u, "/identity/uid", 1, 0xfffffffe, &uid) < 0 ||
	    uint_at(c, g, "/identity/gid", 1, 0xfffffffe, &gid) < 0)
		return -1;
	c->cfg->fixed_identity = true;
	c->cfg->uid = (uid_t)uid;
	c->cfg->gid = (gid_t)gid;
	return 0;
}

static int parse_tool_dirs(struct cctx *c, json_t *arr)
{
	struct config *cfg = c->cfg;
	if (!json_is_array(arr))
		return fail(c, "/tool_dirs", "must be an array of directory paths");
	size_t n = json_array_size(arr);
	if (n > CONFIG_TOOL_DIRS_MAX)
		return fail(c, "/tool_dirs", "has more than %d entries", CONFIG_TOOL_DIRS_MAX);
	char **dirs = calloc(n + 1, sizeof *dirs);
	if (!dirs)
		return oom(c);
	free(cfg->tool_dirs);
	cfg->tool_dirs = dirs;
	for (size_t i = 0; i < n; i++) {
		char ptr[32];
		snprintf(ptr, sizeof ptr, "/tool_dirs/%zu", i);
		if (path_at(c, json_array_get(arr, i), ptr, &dirs[i]) < 0)
			return -1;
		cfg->n_tool_dirs++;
	}
	return 0;
}

/* "toolchains": directories of the user's compilers and interpreters
 * (pyenv, nvm, cargo, a venv) that every jail may read and run programs
 * from. */
static int parse_toolchains(struct cctx *c, json_t *arr)
{
	struct config *cfg = c->cfg;
	if (!json_is_array(arr))
		return fail(c, "/toolchains", "must be an array of directory paths");
	size_t n = json_array_size(arr);
	if (n > CONFIG_TOOLCHAINS_MAX)
		return fail(c, "/toolchains", "has more than %d entries", CONFIG_TOOLCHAINS_MAX);
	char **dirs = calloc(n + 1, sizeof *dirs);
	if (!dirs)
		return oom(c);
	free(cfg->toolchains);
	cfg->toolchains = dirs;
	for (size_t i = 0; i < n; i++) {
		char ptr[32];
		snprintf(ptr, sizeof ptr, "/toolchains/%zu", i);
		if (path_at(c, json_array_get(arr, i), ptr, &dirs[i]) < 0)
			return -1;
		if (!strcmp(dirs[i], "/"))
			return fail(
			        c, ptr,
			        "grants the whole filesystem; name the toolchain's own directory");
		cfg->n_toolchains++;
	}
	return 0;
}

/* "tools": {"NAME": {"timeout_ms": N}}: settings of one tool. */
static int parse_tool_settings(struct cctx *c, json_t *o)
{
	struct config *cfg = c->cfg;
	if (!json_is_object(o))
		return fail(c, "/tools",
		            "must be an object of tool names, e.g. {\"run_command\": "
		            "{\"timeout_ms\": 600000}}");
	size_t n = json_object_size(o);
	if (n > CONFIG_TOOL_SETTINGS_MAX)
		return fail(c, "/tools", "has more than %d entries", CONFIG_TOOL_SETTINGS_MAX);
	cfg->tool_names = calloc(n + 1, sizeof *cfg->tool_names);
	cfg->tool_timeout_ms = calloc(n + 1, sizeof *cfg->tool_timeout_ms);
	if (!cfg->tool_names || !cfg->tool_timeout_ms)
		return oom(c);
	static const char *const keys[] = { "timeout_ms", NULL };
	const char *name;
	json_t *v;
	json_object_foreach(o, name, v)
	{
		char ptr[160];
		uint64_t ms = 0;
		snprintf(ptr, sizeof ptr, "/tools/%.100s", name);
		if (!json_is_object(v))
			return fail(c, ptr, "must be an object, e.g. {\"timeout_ms\": 600000}");
		if (check_keys(c, v, ptr, keys) < 0)
			return -1;
		json_t *t = json_object_get(v, "timeout_ms");
		snprintf(ptr, sizeof ptr, "/tools/%.100s/timeout_ms", name);
		if (t && uint_at(c, t, ptr, 1, 86400000, &ms) < 0)
			return -1;
		if (!(cfg->tool_names[cfg->n_tool_settings] = strdup(name)))
			return oom(c);
		cfg->tool_timeout_ms[cfg->n_tool_settings++] = (uint32_t)ms;
	}
	return 0;
}

uint32_t config_tool_timeout(const struct config *cfg, const char *tool, uint32_t declared)
{
	for (size_t i = 0; i < cfg->n_tool_settings; i++)
		if (!strcmp(cfg->tool_names[i], tool) && cfg->tool_timeout_ms[i])
			return cfg->tool_timeout_ms[i];
	return declared ? declared : cfg->timeout_ms;
}

/* Files in a writable tree that the owner's own programs trust later:
 * git (config, hooks, submodules' and worktrees' repositories), direnv,
 * editors' task and settings files, agents' configurations (MCP servers,
 * hooks), toolcage's own project file. docs/config.md lists them. */
const char *const config_protected_defaults[] = {
	CONFIG_DEFAULT_NAME,
	".git/config",
	".git/config.worktree",
	".git/commondir",
	".git/hooks",
	".git/modules",
	".git/worktrees",
	".envrc",
	".mcp.json",
	".claude",
	".codex",
	".cursor",
	".gemini",
	".windsurf",
	".vscode",
	".idea",
	".zed",
	".devcontainer",
	".devcontainer.json",
	".exrc",
	".nvim.lua",
	".nvimrc",
	".vimrc",
	".mise.toml",
	".mise.local.toml",
	"mise.toml",
	"mise.local.toml",
	".mise",
	".config/mise.toml",
	".config/mise.local.toml",
	".config/mise",
	"mise/config.toml",
	"mise/config.local.toml",
	/* Agents whose project files start commands: MCP servers, plugins,
	 * hooks, lint and test commands run after each edit. */
	"opencode.json",
	"opencode.jsonc",
	".opencode",
	"crush.json",
	".crush.json",
	".aider.conf.yml",
	".continue",
	".qwen",
	".kiro",
	".roo",
	".amazonq",
	/* More agents' project files that start commands: GitHub Copilot's
	 * hooks, Cline's hooks, Kilo Code's configuration (MCP servers),
	 * Antigravity's, Junie's and Pi's MCP servers, CodeBuddy's, iFlow's,
	 * Tabnine's and Amp's settings (hooks, MCP servers). */
	".github/hooks",
	".clinerules/hooks",
	"kilo.json",
	"kilo.jsonc",
	".kilo",
	".kilocode",
	".agent/mcp_config.json",
	".junie/mcp",
	".pi/mcp.json",
	".codebuddy",
	".iflow",
	".tabnine/agent",
	".amp/settings.json",
	/* git takes a directory holding HEAD, objects/ and refs/ for a (bare)
	 * repository and obeys its "config" (core.fsmonitor runs on git
	 * status): without a HEAD there is none. */
	"HEAD",
	/* Hooks that live in the worktree: core.hooksPath set to a directory
	 * of it (husky's .husky, the .githooks convention), and the hook
	 * managers whose worktree file says what the installed hook runs. */
	".husky",
	".githooks",
	".pre-commit-config.yaml",
	/* lefthook takes its main configuration from any of these names and
	 * merges a "-local" one beside it (the installed hook runs what they
	 * say, even with no main file), and runs the scripts of .lefthook/
	 * and .lefthook-local/. */
	"lefthook.yml",
	".lefthook.yml",
	"lefthook.yaml",
	".lefthook.yaml",
	"lefthook.toml",
	".lefthook.toml",
	"lefthook.json",
	".lefthook.json",
	"lefthook.jsonc",
	".lefthook.jsonc",
	".config/lefthook.yml",
	".config/lefthook.yaml",
	".config/lefthook.toml",
	".config/lefthook.json",
	".config/lefthook.jsonc",
	"lefthook-local.yml",
	".lefthook-local.yml",
	"lefthook-local.yaml",
	".lefthook-local.yaml",
	"lefthook-local.toml",
	".lefthook-local.toml",
	"lefthook-local.json",
	".lefthook-local.json",
	"lefthook-local.jsonc",
	".lefthook-local.jsonc",
	".config/lefthook-local.yml",
	".config/lefthook-local.yaml",
	".config/lefthook-local.toml",
	".config/lefthook-local.json",
	".config/lefthook-local.jsonc",
	".lefthook",
	".lefthook-local",
	/* Mercurial: the repository's hgrc names hooks run on any command
	 * (pre-status on hg status) and extensions it loads; with share-safe
	 * a shared repository's settings come from hgrc-not-shared and from
	 * the repository sharedpath names. jj (before its configuration left
	 * the repository): aliases, the pager and fix tools it runs. */
	".hg/hgrc",
	".hg/hgrc-not-shared",
	".hg/sharedpath",
	".jj/repo/config.toml",
	/* At any depth: a nested repository's config and hooks (vendor/x/.git),
	 * a bare repository's HEAD in any directory one runs git in, direnv's
	 * file in any directory one enters, editors' workspace files. */
	"**/.git/config",
	"**/.git/config.worktree",
	"**/.git/commondir",
	"**/.git/hooks",
	"**/.git/modules",
	"**/.git/worktrees",
	"**/HEAD",
	"**/.envrc",
	"**/*.code-workspace",
	NULL,
};

/* A protected path: relative, plain names ("a/b"), at most
 * CONFIG_PROTECTED_DEPTH deep; or a pattern: "**" + "/" and such names, at
 * any depth, whose last name may hold '*' and '?' ("**" + "/.git/hooks",
 * "**" + "/" + "*.code-workspace"). */
static const char *protected_problem(const char *s)
{
	size_t depth = 0;
	if (s[0] == '/')
		return "must be relative to the workspace (no leading '/')";
	if (strlen(s) > 255)
		return "is longer than 255 bytes";
	bool pattern = !strncmp(s, "**/", 3);
	if (pattern && !*(s += 3))
		return "names nothing after \"**/\"";
	const char *last = strrchr(s, '/');
	last = last ? last + 1 : s;
	if (strpbrk(s, "[\\{}") || (strpbrk(s, "*?") && (!pattern || strpbrk(s, "*?") < last)))
		return "is a name, not a glob: no '*', '?', '[', '{' or '\\' (a pattern at any depth "
		       "starts with \"**/\", and only its last name may hold '*' or '?')";
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return "must be made of plain names (no empty, '.' or '..' part, no trailing '/')";
		if (++depth > CONFIG_PROTECTED_DEPTH)
			return "is too deep";
		p += n;
		if (*p == '/' && !*++p)
			return "must be made of plain names (no empty, '.' or '..' part, no trailing '/')";
	}
	return NULL;
}

static bool in_list(char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

/* {"add": [...], "remove": [...]}: the defaults, less what remove names
 * (each must be one of them: a typo must not leave one protected that the
 * operator meant to free, or the reverse), plus add. */
static int parse_protected(struct cctx *c, json_t *o)
{
	static const char *const keys[] = { "add", "remove", "walk_entries", "walk_depth", NULL };
	struct config *cfg = c->cfg;
	if (check_keys(c, o, "/protected_paths", keys) < 0)
		return -1;
	json_t *we = json_object_get(o, "walk_entries"), *wd = json_object_get(o, "walk_depth");
	uint64_t n;
	if (we && uint_at(c, we, "/protected_paths/walk_entries", 100, 10000000, &n) < 0)
		return -1;
	cfg->protected_walk_entries = we ? (unsigned)n : 0;
	if (wd && uint_at(c, wd, "/protected_paths/walk_depth", 1, 256, &n) < 0)
		return -1;
	cfg->protected_walk_depth = wd ? (unsigned)n : 0;
	json_t *add = json_object_get(o, "add"), *rm = json_object_get(o, "remove");
	for (int k = 0; k < 2; k++) {
		json_t *arr = k ? add : rm;
		if (arr && !json_is_array(arr))
			return fail(c, k ? "/protected_paths/add" : "/protected_paths/remove",
			            "must be an array of paths relative to the workspace");
	}
	size_t nrm = json_array_size(rm), nadd = json_array_size(add);
	if (nadd > CONFIG_PROTECTED_MAX)
		return fail(c, "/protected_paths/add", "has more than %d entries",
		            CONFIG_PROTECTED_MAX);
	for (size_t i = 0; i < nrm; i++) {
		char ptr[64];
		snprintf(ptr, sizeof ptr, "/protected_paths/remove/%zu", i);
		const char *s = string_at(c, json_array_get(rm, i), ptr);
		if (!s)
			return -1;
		if (!in_list((char *const *)config_protected_defaults,
		             sizeof config_protected_defaults / sizeof *config_protected_defaults -
		                     1,
		             s))
			return fail(c, ptr,
			            "'%s' is not one of the default protected paths (%s, ...)", s,
			            config_protected_defaults[0]);
		for (size_t k = 0; k < cfg->n_protected; k++)
			if (!strcmp(cfg->protected_paths[k], s)) {
				free(cfg->protected_paths[k]);
				memmove(cfg->protected_paths + k, cfg->protected_paths + k + 1,
				        (cfg->n_protected - k) * sizeof *cfg->protected_paths);
				cfg->n_protected--;
				break;
			}
	}
	char **l = realloc(cfg->protected_paths, (cfg->n_protected + nadd + 1) * sizeof *l);
	if (!l)
		return oom(c);
	cfg->protected_paths = l;
	for (size_t i = 0; i < nadd; i++) {
		char ptr[64];
		snprintf(ptr, sizeof ptr, "/protected_paths/add/%zu", i);
		const char *s = string_at(c, json_array_get(add, i), ptr);
		const char *why = s ? protected_problem(s) : NULL;
		if (!s)
			return -1;
		if (why)
			return fail(c, ptr, "'%s' %s", s, why);
		if (in_list(l, cfg->n_protected, s))
			continue;
		if (!(l[cfg->n_protected] = strdup(s)))
			return oom(c);
		l[++cfg->n_protected] = NULL;
	}
	return 0;
}

static int parse_root(struct cctx *c, json_t *doc)
{
	static const char *const keys[] = { "workspace",  "tool_dirs", "profile_dir",
		                            "limits",     "policy",    "approval",
		                            "audit",      "identity",  "protected_paths",
		                            "toolchains", "tools",     "sandbox",
		                            NULL };
	if (check_keys_below(c, doc, "", keys, below_root) < 0)
		return -1;
	json_t *v;
	if ((v = json_object_get(doc, "workspace")) &&
	    path_at(c, v, "/workspace", &c->cfg->workspace) < 0)
		return -1;
	if ((v = json_object_get(doc, "tool_dirs")) && parse_tool_dirs(c, v) < 0)
		return -1;
	if ((v = json_object_get(doc, "profile_dir")) &&
	    path_at(c, v, "/profile_dir", &c->cfg->profile_dir) < 0)
		return -1;
	if ((v = json_object_get(doc, "limits")) && parse_limits(c, v) < 0)
		return -1;
	if ((v = json_object_get(doc, "policy")) && parse_policy(c, v) < 0)
		return -1;
	if ((v = json_object_get(doc, "approval")) && parse_approval(c, v) < 0)
		return -1;
	if ((v = json_object_get(doc, "audit")) && parse_audit(c, v) < 0)
		return -1;
	if ((v = json_object_get(doc, "identity")) && parse_identity(c, v) < 0)
		return -1;
	if ((v = json_object_get(doc, "protected_paths")) && parse_protected(c, v) < 0)
		return -1;
	if ((v = json_object_get(doc, "toolchains")) && parse_toolchains(c, v) < 0)
		return -1;
	if ((v = json_object_get(doc, "tools")) && parse_tool_settings(c, v) < 0)
		return -1;
	if ((v = json_object_get(doc, "sandbox")) && parse_sandbox(c, v) < 0)
		return -1;
	return 0;
}

/* ---- entry points ------------------------------------------------------- */

struct config *config_defaults(void)
{
	struct config *cfg = calloc(1, sizeof *cfg);
	if (!cfg)
		return NULL;
	cfg->max_concurrent = CONFIG_DEFAULT_MAX_CONCURRENT;
	cfg->queue_timeout_ms = CONFIG_DEFAULT_QUEUE_TIMEOUT_MS;
	cfg->queue_max = CONFIG_DEFAULT_QUEUE_MAX;
	cfg->timeout_ms = CONFIG_DEFAULT_TIMEOUT_MS;
	cfg->max_render_chars = CONFIG_DEFAULT_MAX_RENDER_CHARS;
	cfg->approval_timeout_ms = CONFIG_DEFAULT_APPROVAL_TIMEOUT_MS;
	cfg->max_message_bytes = CONFIG_DEFAULT_MAX_MESSAGE_BYTES;
	cfg->spill_max_bytes = CONFIG_DEFAULT_SPILL_MAX_BYTES;
	gate_policy_init(&cfg->policy);
	cfg->egress = netpol_new();
	cfg->origin = strdup("built-in defaults");
	cfg->approval = strdup("deny");
	cfg->tool_dirs = calloc(1, sizeof *cfg->tool_dirs);
	cfg->toolchains = calloc(1, sizeof *cfg->toolchains);
	size_t n = sizeof config_protected_defaults / sizeof *config_protected_defaults;
	cfg->protected_paths = calloc(n, sizeof *cfg->protected_paths);
	for (size_t i = 0; cfg->protected_paths && i + 1 < n; i++)
		if ((cfg->protected_paths[i] = strdup(config_protected_defaults[i])))
			cfg->n_protected++;
	if (!cfg->origin || !cfg->approval || !cfg->tool_dirs || !cfg->toolchains ||
	    cfg->n_protected != n - 1 || !cfg->egress) {
		config_release(cfg);
		return NULL;
	}
	return cfg;
}

void config_release(struct config *cfg)
{
	if (!cfg)
		return;
	free(cfg->origin);
	free(cfg->file);
	free(cfg->workspace);
	for (size_t i = 0; cfg->tool_dirs && cfg->tool_dirs[i]; i++)
		free(cfg->tool_dirs[i]);
	free(cfg->tool_dirs);
	free(cfg->profile_dir);
	free(cfg->spill_dir);
	gate_policy_release(&cfg->policy);
	netpol_free(cfg->egress);
	free(cfg->approval);
	free(cfg->audit_path);
	for (size_t i = 0; i < cfg->n_protected; i++)
		free(cfg->protected_paths[i]);
	free(cfg->protected_paths);
	for (size_t i = 0; cfg->toolchains && cfg->toolchains[i]; i++)
		free(cfg->toolchains[i]);
	free(cfg->toolchains);
	for (size_t i = 0; i < cfg->n_tool_settings; i++)
		free(cfg->tool_names[i]);
	free(cfg->tool_names);
	free(cfg->tool_timeout_ms);
	free(cfg);
}

int config_parse(const char *text, size_t len, const char *origin, struct config **out,
                 struct tc_error *err)
{
	*out = NULL;
	/* Duplicate keys are refused: which of two "quarantine" keys wins is
	 * not something an operator should have to know. */
	json_t *doc = json_load_strict(text, len, origin, err);
	if (!doc)
		return -1;
	struct cctx c = { .origin = origin, .err = err, .cfg = config_defaults() };
	const char *slash = strrchr(origin, '/');
	if (slash)
		c.basedir =
		        slash == origin ? strdup("/") : strndup(origin, (size_t)(slash - origin));
	int rc = -1;
	if (!c.cfg || (slash && !c.basedir)) {
		oom(&c);
		goto out;
	}
	free(c.cfg->origin);
	if (!(c.cfg->origin = strdup(origin))) {
		oom(&c);
		goto out;
	}
	if (parse_root(&c, doc) < 0)
		goto out;
	/* An unlisted name's question waits as long as a call's would. */
	c.cfg->egress->ask_timeout_ms = c.cfg->approval_timeout_ms;
	*out = c.cfg;
	c.cfg = NULL;
	rc = 0;
out:
	config_release(c.cfg);
	free(c.basedir);
	json_decref(doc);
	return rc;
}

/* The user's configuration: $XDG_CONFIG_HOME/toolcage/toolcage.json, or
 * ~/.config/toolcage/toolcage.json (relative values of either variable are
 * ignored, as the XDG base directory specification says). */
int config_user_path(char *out, size_t size)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int n;
	if (xdg && xdg[0] == '/')
		n = snprintf(out, size, "%s/toolcage/" CONFIG_DEFAULT_NAME, xdg);
	else if (home && home[0] == '/')
		n = snprintf(out, size, "%s/.config/toolcage/" CONFIG_DEFAULT_NAME, home);
	else
		return -1;
	return n > 0 && (size_t)n < size ? 0 : -1;
}

/* When the directory the user's configuration is looked for in belongs
 * to another user (setpriv, or su without -, keep HOME), says so and the
 * fix into out; else leaves it empty. */
static void home_not_ours(char *out, size_t size)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	bool by_xdg = xdg && xdg[0] == '/';
	const char *dir = by_xdg ? xdg : home;
	struct stat st;
	if (!dir || dir[0] != '/' || stat(dir, &st) < 0 || st.st_uid == geteuid())
		return;
	snprintf(out, size,
	         "%s is %.160s, uid %u's, not this user's (uid %u): running as another user "
	         "with it left at yours? Set %s for this user, or pass --config FILE",
	         by_xdg ? "XDG_CONFIG_HOME" : "HOME", dir, (unsigned)st.st_uid, (unsigned)geteuid(),
	         by_xdg ? "XDG_CONFIG_HOME" : "HOME (or XDG_CONFIG_HOME)");
}

/* Reads and parses file; *unread (may be NULL) tells whether it failed
 * before the file's text was had. */
static int load_one(const char *file, struct config **out, bool *unread, struct tc_error *err)
{
	struct buf b = BUF_INIT;
	int rc = read_file_bounded(file, CONFIG_FILE_MAX, &b, err);
	if (unread)
		*unread = rc != 0;
	if (rc == 0)
		rc = config_parse(b.data, b.len, file, out, err);
	if (rc == 0 && !((*out)->file = strdup(file))) {
		config_release(*out);
		*out = NULL;
		rc = tc_error_set(err, TC_E_NOMEM, file, "out of memory");
	}
	buf_release(&b);
	return rc;
}

int config_load(const char *path, struct config **out, struct tc_error *err)
{
	*out = NULL;
	if (path)
		return load_one(path, out, NULL, err);
	char user[4096];
	const char *candidates[] = {
		"./" CONFIG_DEFAULT_NAME,
		config_user_path(user, sizeof user) == 0 ? user : NULL,
		CONFIG_SYSTEM_PATH,
	};
	for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
		struct tc_error e = { 0 };
		if (!candidates[i])
			continue;
		struct config *c = NULL;
		bool unread = false;
		if (load_one(candidates[i], &c, &unread, &e) == 0 && c) {
			c->from_cwd = i == 0;
			*out = c;
			return 0;
		}
		if (e.code != TC_E_NOT_FOUND) {
			/* Not knowing what a file there says, refuse; and say that
			 * no --config was given, so this is where toolcage looked. */
			char whose[512] = "";
			if (i == 1)
				home_not_ours(whose, sizeof whose);
			if (err && unread)
				tc_error_set(
				        err, e.code, e.where,
				        "%s (no --config was given, so toolcage looked for its "
				        "configuration here%s; %s)",
				        e.msg,
				        i == 1 ? ", in $XDG_CONFIG_HOME, else ~/.config" : "",
				        *whose ? whose : "make it readable, or pass --config FILE");
			else if (err)
				*err = e;
			return -1;
		}
	}
	if (!(*out = config_defaults()))
		return tc_error_set(err, TC_E_NOMEM, "config", "out of memory");
	return 0;
}
