/* test_config.c — toolcage.json: the defaults, a full example
 * (tests/data/config/full.json), and every kind of error naming the file and
 * the key (tests/data/config/invalid). TC_TESTDATA overrides tests/data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

static const char *data_dir(void)
{
	const char *d = getenv("TC_TESTDATA");
	return d ? d : "tests/data";
}

static struct config *load_data(const char *rel, struct tc_error *err, int want_rc)
{
	char path[512];
	snprintf(path, sizeof path, "%s/config/%s", data_dir(), rel);
	struct config *cfg = (struct config *)1;
	int rc = config_load(path, &cfg, err);
	if (rc != want_rc)
		fail_msg("%s: rc %d (%s: %s)", path, rc, err->where, err->msg);
	return cfg;
}

static struct config *parse(const char *text, struct tc_error *err)
{
	struct config *cfg = (struct config *)1;
	if (config_parse(text, strlen(text), "/etc/toolcage/toolcage.json", &cfg, err) < 0) {
		assert_null(cfg);
		return NULL;
	}
	return cfg;
}

/* The file fails to load with err->where ending in where_suffix and a
 * message containing msg. */
static void expect_error(const char *rel, const char *where_suffix, const char *msg)
{
	struct tc_error err = { 0 };
	struct config *cfg = load_data(rel, &err, -1);
	assert_null(cfg);
	size_t n = strlen(err.where), k = strlen(where_suffix);
	if (n < k || strcmp(err.where + n - k, where_suffix) || !strstr(err.msg, msg) ||
	    !strstr(err.where, rel))
		fail_msg("%s: got \"%s\": \"%s\"; want where ending \"%s\", message with \"%s\"",
		         rel, err.where, err.msg, where_suffix, msg);
}

static bool has_protected(const struct config *cfg, const char *p)
{
	for (size_t i = 0; i < cfg->n_protected; i++)
		if (!strcmp(cfg->protected_paths[i], p))
			return true;
	return false;
}

/* The defaults hold git's, direnv's, editors' and agents' files; add
 * extends, remove frees a default; the list stays NULL-terminated. */
static void test_config_protected_paths(void **state)
{
	(void)state;
	struct tc_error err = { 0 };
	struct config *cfg = config_defaults();
	assert_true(has_protected(cfg, ".git/config"));
	assert_true(has_protected(cfg, ".git/hooks"));
	assert_true(has_protected(cfg, ".envrc"));
	assert_true(has_protected(cfg, ".mcp.json"));
	assert_true(has_protected(cfg, ".vscode"));
	assert_true(has_protected(cfg, "toolcage.json"));
	assert_null(cfg->protected_paths[cfg->n_protected]);
	size_t n = cfg->n_protected;
	config_release(cfg);
	cfg = parse("{\"protected_paths\": {\"add\": [\"deploy/prod.env\", \".envrc\"], "
	            "\"remove\": [\".vscode\", \".idea\"]}}",
	            &err);
	assert_non_null(cfg);
	assert_true(has_protected(cfg, "deploy/prod.env"));
	assert_false(has_protected(cfg, ".vscode"));
	assert_false(has_protected(cfg, ".idea"));
	assert_true(has_protected(cfg, ".git/config"));
	assert_int_equal(cfg->n_protected, n - 1); /* .envrc was there already */
	assert_null(cfg->protected_paths[cfg->n_protected]);
	config_release(cfg);
	/* patterns at any depth: nested repositories and workspace files by
	 * default; "**" "/" then names, only the last with '*' or '?' */
	cfg = config_defaults();
	assert_true(has_protected(cfg, "**/.git/hooks"));
	assert_true(has_protected(cfg, "**/.git/config"));
	assert_true(has_protected(cfg, "**/*.code-workspace"));
	/* a bare repository's HEAD, at the root (held) and at any depth */
	assert_true(has_protected(cfg, "HEAD"));
	assert_true(has_protected(cfg, "**/HEAD"));
	config_release(cfg);
	cfg = parse("{\"protected_paths\": {\"add\": [\"**/secrets/*.env\"], "
	            "\"remove\": [\"**/.envrc\"]}}",
	            &err);
	assert_non_null(cfg);
	assert_true(has_protected(cfg, "**/secrets/*.env"));
	assert_false(has_protected(cfg, "**/.envrc"));
	config_release(cfg);
	const char *bad[] = { "a/*.env", "**/*/x", "**/a/../b", "**/", "**/[ab]", "**/{a,b}" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char text[128];
		snprintf(text, sizeof text, "{\"protected_paths\": {\"add\": [\"%s\"]}}", bad[i]);
		assert_null(parse(text, &err));
		if (!strstr(err.where, "/protected_paths/add/0"))
			fail_msg("%s: got %s: %s", bad[i], err.where, err.msg);
	}
	/* the walk for the patterns: bounds set, or 0 for the defaults */
	cfg = parse("{\"protected_paths\": {\"walk_entries\": 5000, \"walk_depth\": 12}}", &err);
	assert_non_null(cfg);
	assert_int_equal(cfg->protected_walk_entries, 5000);
	assert_int_equal(cfg->protected_walk_depth, 12);
	config_release(cfg);
	cfg = config_defaults();
	assert_int_equal(cfg->protected_walk_entries, 0);
	config_release(cfg);
	assert_null(parse("{\"protected_paths\": {\"walk_depth\": 0}}", &err));
	assert_non_null(strstr(err.where, "/protected_paths/walk_depth"));
}

static void expect_parse_error(const char *text, const char *where, const char *msg)
{
	struct tc_error err = { 0 };
	assert_null(parse(text, &err));
	if (!strstr(err.where, where) || !strstr(err.msg, msg))
		fail_msg("%s: got %s: %s", text, err.where, err.msg);
}

static void test_config_protected_paths_errors(void **state)
{
	(void)state;
	expect_parse_error("{\"protected_paths\": {\"add\": [\"/etc/x\"]}}",
	                   "/protected_paths/add/0", "relative");
	expect_parse_error("{\"protected_paths\": {\"add\": [\"a/../b\"]}}",
	                   "/protected_paths/add/0", "plain names");
	expect_parse_error("{\"protected_paths\": {\"add\": [\"*.env\"]}}",
	                   "/protected_paths/add/0", "not a glob");
	expect_parse_error("{\"protected_paths\": {\"add\": [\"a/b/c/d/e/f/g/h/i\"]}}",
	                   "/protected_paths/add/0", "too deep");
	expect_parse_error("{\"protected_paths\": {\"remove\": [\".gti/config\"]}}",
	                   "/protected_paths/remove/0", "not one of the default");
	expect_parse_error("{\"protected_paths\": {\"ad\": []}}", "/protected_paths/ad",
	                   "unknown key");
	expect_parse_error("{\"protected_paths\": [\".x\"]}", "/protected_paths",
	                   "must be an object");
}

static void test_config_defaults(void **state)
{
	(void)state;
	struct config *cfg = config_defaults();
	assert_non_null(cfg);
	assert_string_equal(cfg->origin, "built-in defaults");
	assert_null(cfg->workspace);
	assert_non_null(cfg->tool_dirs);
	assert_null(cfg->tool_dirs[0]);
	assert_null(cfg->profile_dir);
	assert_int_equal(cfg->max_concurrent, 4);
	assert_int_equal(cfg->queue_timeout_ms, 30000);
	assert_int_equal(cfg->queue_max, 1024);
	assert_int_equal(cfg->timeout_ms, 30000);
	assert_int_equal(cfg->max_render_chars, 20000);
	assert_int_equal(cfg->approval_timeout_ms, 60000);
	assert_int_equal(cfg->max_message_bytes, 4 << 20);
	assert_null(cfg->spill_dir);
	assert_false(cfg->policy.quarantine);
	assert_int_equal(cfg->policy.levels[TC_RISK_READ_ONLY], GATE_ALLOW);
	assert_int_equal(cfg->policy.levels[TC_RISK_WRITE], GATE_ALLOW);
	assert_int_equal(cfg->policy.levels[TC_RISK_NETWORK], GATE_ALLOW);
	assert_int_equal(cfg->policy.levels[TC_RISK_DESTRUCTIVE], GATE_ASK);
	assert_int_equal(cfg->policy.nrules, 0);
	assert_int_equal(cfg->policy.ndomains, 0);
	assert_string_equal(cfg->approval, "deny");
	assert_null(cfg->audit_path);
	assert_false(cfg->audit_required);
	assert_false(cfg->strict);
	assert_false(cfg->fixed_identity);
	config_release(cfg);
}

static void test_config_load_without_file_gives_defaults(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_config.XXXXXX";
	char old[4096];
	assert_non_null(mkdtemp(dir));
	assert_non_null(getcwd(old, sizeof old));
	assert_int_equal(chdir(dir), 0);
	/* no user configuration of the machine running the test */
	setenv("XDG_CONFIG_HOME", dir, 1);
	struct config *cfg;
	struct tc_error err = { 0 };
	int rc = config_load(NULL, &cfg, &err);
	unsetenv("XDG_CONFIG_HOME");
	assert_int_equal(chdir(old), 0);
	rmdir(dir);
	assert_int_equal(rc, 0);
	assert_string_equal(cfg->origin, "built-in defaults");
	assert_null(cfg->file);
	config_release(cfg);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A file where the search looks that cannot be read is refused (what it
 * says is not known), and the message says why toolcage looked there and
 * what to do. */
static void test_config_load_unreadable_default_says_what_to_do(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_config.XXXXXX", old[4096], sub[600], path[700];
	assert_non_null(mkdtemp(dir));
	assert_non_null(getcwd(old, sizeof old));
	snprintf(sub, sizeof sub, "%s/toolcage", dir);
	snprintf(path, sizeof path, "%s/toolcage.json", sub);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(mkdir(path, 0700), 0); /* a directory: no file can be read */
	assert_int_equal(chdir(dir), 0);
	setenv("XDG_CONFIG_HOME", dir, 1);
	struct config *cfg = NULL;
	struct tc_error err = { 0 }, bad = { 0 };
	int rc = config_load(NULL, &cfg, &err);
	/* The directory another user's (setpriv keeps HOME): that is said,
	 * and the variable to set. Only root can give it away. */
	struct tc_error other = { 0 };
	bool given = chown(dir, 65534, 65534) == 0;
	int rc_other = given ? config_load(NULL, &cfg, &other) : -1;
	if (given)
		assert_int_equal(chown(dir, geteuid(), getegid()), 0);
	/* a file that was read and is wrong is not told to be made readable */
	write_text("toolcage.json", "{bad");
	int rc_bad = config_load(NULL, &cfg, &bad);
	unlink("toolcage.json");
	unsetenv("XDG_CONFIG_HOME");
	assert_int_equal(chdir(old), 0);
	rmdir(path);
	rmdir(sub);
	rmdir(dir);
	assert_int_equal(rc, -1);
	assert_null(cfg);
	if (!strstr(err.where, "/toolcage/toolcage.json") ||
	    !strstr(err.msg,
	            "no --config was given, so toolcage looked for its configuration "
	            "here, in $XDG_CONFIG_HOME") ||
	    !strstr(err.msg, "pass --config FILE"))
		fail_msg("%s: %s", err.where, err.msg);
	assert_int_equal(rc_bad, -1);
	if (!strstr(bad.msg, "not valid JSON") || strstr(bad.msg, "readable"))
		fail_msg("%s: %s", bad.where, bad.msg);
	assert_int_equal(rc_other, -1);
	if (given &&
	    (!strstr(other.msg, "uid 65534's, not this user's") ||
	     !strstr(other.msg, "Set XDG_CONFIG_HOME for this user") ||
	     strstr(other.msg, "make it readable")))
		fail_msg("%s: %s", other.where, other.msg);
}

/* Without ./toolcage.json: $XDG_CONFIG_HOME/toolcage/toolcage.json; with
 * it, the project file first. */
static void test_config_load_search_order(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_config.XXXXXX", old[4096], path[600];
	assert_non_null(mkdtemp(dir));
	assert_non_null(getcwd(old, sizeof old));
	snprintf(path, sizeof path, "%s/toolcage", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/toolcage/toolcage.json", dir);
	write_text(path, "{\"limits\": {\"max_concurrent\": 3}}");
	assert_int_equal(chdir(dir), 0);
	setenv("XDG_CONFIG_HOME", dir, 1);
	struct config *user = NULL, *project = NULL;
	struct tc_error err = { 0 };
	int rc1 = config_load(NULL, &user, &err);
	write_text("toolcage.json", "{\"limits\": {\"max_concurrent\": 5}}");
	int rc2 = config_load(NULL, &project, &err);
	char user_path[64];
	/* relative values are ignored; then $HOME/.config */
	setenv("XDG_CONFIG_HOME", "rel", 1);
	const char *home = getenv("HOME");
	char *saved_home = home ? strdup(home) : NULL;
	setenv("HOME", "/h", 1);
	int rc3 = config_user_path(user_path, sizeof user_path);
	unsetenv("HOME");
	int rc4 = config_user_path(user_path + 40, 8);
	if (saved_home)
		setenv("HOME", saved_home, 1);
	free(saved_home);
	unsetenv("XDG_CONFIG_HOME");
	unlink("toolcage.json");
	unlink(path);
	snprintf(path, sizeof path, "%s/toolcage", dir);
	rmdir(path);
	assert_int_equal(chdir(old), 0);
	rmdir(dir);
	assert_int_equal(rc1, 0);
	assert_int_equal(user->max_concurrent, 3);
	assert_non_null(strstr(user->file, "/toolcage/toolcage.json"));
	assert_int_equal(rc2, 0);
	assert_int_equal(project->max_concurrent, 5);
	assert_string_equal(project->file, "./toolcage.json");
	assert_int_equal(rc3, 0);
	assert_string_equal(user_path, "/h/.config/toolcage/toolcage.json");
	assert_int_equal(rc4, -1);
	config_release(user);
	config_release(project);
}

static void test_config_load_finds_toolcage_json_in_cwd(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_config.XXXXXX";
	char old[4096];
	assert_non_null(mkdtemp(dir));
	assert_non_null(getcwd(old, sizeof old));
	assert_int_equal(chdir(dir), 0);
	FILE *f = fopen("toolcage.json", "w");
	fputs("{\"limits\": {\"max_concurrent\": 2}}", f);
	fclose(f);
	struct config *cfg;
	int rc = config_load(NULL, &cfg, NULL);
	unlink("toolcage.json");
	assert_int_equal(chdir(old), 0);
	rmdir(dir);
	assert_int_equal(rc, 0);
	assert_int_equal(cfg->max_concurrent, 2);
	assert_string_equal(cfg->origin, "./toolcage.json");
	config_release(cfg);
}

static void test_config_load_missing_named_file_fails(void **state)
{
	(void)state;
	struct config *cfg;
	struct tc_error err = { 0 };
	assert_int_equal(config_load("/nonexistent/toolcage.json", &cfg, &err), -1);
	assert_null(cfg);
	assert_int_equal(err.code, TC_E_NOT_FOUND);
	assert_string_equal(err.where, "/nonexistent/toolcage.json");
}

static void test_config_full_example(void **state)
{
	(void)state;
	struct tc_error err = { 0 };
	struct config *cfg = load_data("full.json", &err, 0);
	char base[512];
	snprintf(base, sizeof base, "%s/config", data_dir());
	char want[600];
	snprintf(want, sizeof want, "%s/work", base);
	assert_string_equal(cfg->workspace, want); /* relative to the file */
	assert_int_equal(cfg->n_tool_dirs, 2);
	snprintf(want, sizeof want, "%s/tools", base);
	assert_string_equal(cfg->tool_dirs[0], want);
	assert_string_equal(cfg->tool_dirs[1], "/opt/toolcage/tools");
	assert_null(cfg->tool_dirs[2]);
	assert_int_equal(cfg->max_concurrent, 8);
	assert_int_equal(cfg->queue_timeout_ms, 5000);
	assert_int_equal(cfg->queue_max, 64);
	assert_int_equal(cfg->timeout_ms, 10000);
	assert_int_equal(cfg->max_render_chars, 12000);
	assert_int_equal(cfg->approval_timeout_ms, 120000);
	assert_int_equal(cfg->max_message_bytes, 1048576);
	snprintf(want, sizeof want, "%s/spill", base);
	assert_string_equal(cfg->spill_dir, want);
	assert_int_equal(cfg->spill_max_bytes, 10485760);
	assert_int_equal(cfg->policy.levels[TC_RISK_NETWORK], GATE_ASK);
	assert_int_equal(cfg->policy.ndomains, 3);
	assert_string_equal(cfg->policy.domains[2], "docs.python.org"); /* lowercased */
	assert_string_equal(cfg->approval, "cmd:/usr/local/bin/toolcage-approve");
	assert_string_equal(cfg->audit_path, "/var/log/toolcage/audit.jsonl");
	assert_true(cfg->audit_required);
	assert_true(cfg->strict);
	assert_true(cfg->fixed_identity);
	assert_int_equal(cfg->uid, 65534);
	assert_int_equal(cfg->gid, 65534);
	config_release(cfg);
}

static void test_config_rules_become_gate_rules(void **state)
{
	(void)state;
	struct tc_error err = { 0 };
	struct config *cfg = load_data("full.json", &err, 0);
	assert_int_equal(cfg->policy.nrules, 3);
	const struct gate_rule *r = &cfg->policy.rules[0];
	assert_int_equal(r->action, GATE_DENY);
	assert_string_equal(r->tool, "*");
	assert_int_equal(r->nargs, 0);
	assert_string_equal(r->path, "**/.git/**");
	assert_string_equal(r->reason, "the repository's .git directory is off limits");
	assert_non_null(strstr(r->origin, "full.json: /policy/rules/0"));
	assert_int_equal(cfg->policy.rules[1].action, GATE_ASK);
	assert_int_equal(cfg->policy.rules[2].action, GATE_ALLOW);
	/* The parsed policy drives a gate as written. */
	struct gate *g;
	assert_int_equal(gate_new(&cfg->policy, &g, NULL), 0);
	/* any path argument: move_path's source as well */
	json_t *args = json_pack("{s:s, s:s}", "source", "src/.git/config", "destination", "x");
	static const char *const paths[] = { "/source", "/destination", NULL };
	struct gate_call call = { .tool = "move_path",
		                  .risk = TC_RISK_DESTRUCTIVE,
		                  .args = args,
		                  .path_args = paths,
		                  .workspace_fd = -1 };
	struct gate_verdict v;
	gate_authorize(g, &call, &v);
	assert_int_equal(v.action, GATE_DENY);
	assert_non_null(strstr(v.reason, "off limits"));
	json_decref(args);
	gate_free(g);
	config_release(cfg);
}

static void test_config_relative_cmd_approver_is_anchored(void **state)
{
	(void)state;
	struct config *cfg = parse("{\"approval\": \"cmd:bin/approve\"}", NULL);
	assert_non_null(cfg);
	assert_string_equal(cfg->approval, "cmd:/etc/toolcage/bin/approve");
	config_release(cfg);
}

/* "~/" is the home in every path the file names, as in toolchains: a
 * "~/proj" workspace is not a directory named "~" beside the file. */
static void test_config_home_in_every_path(void **state)
{
	(void)state;
	const char *home = getenv("HOME");
	char was[4096];
	snprintf(was, sizeof was, "%s", home ? home : "");
	setenv("HOME", "/home/u", 1);
	struct tc_error err = { 0 };
	struct config *cfg = parse("{\"workspace\": \"~/proj\", \"tool_dirs\": [\"~/tools\"], "
	                           "\"profile_dir\": \"~/profiles\", \"approval\": "
	                           "\"cmd:~/bin/approve\", \"audit\": {\"path\": "
	                           "\"~/audit.jsonl\"}, \"limits\": {\"spill_dir\": \"~/spill\"}}",
	                           &err);
	if (!cfg) {
		fail_msg("%s: %s", err.where, err.msg);
		return;
	}
	assert_string_equal(cfg->workspace, "/home/u/proj");
	assert_string_equal(cfg->tool_dirs[0], "/home/u/tools");
	assert_string_equal(cfg->profile_dir, "/home/u/profiles");
	assert_string_equal(cfg->approval, "cmd:/home/u/bin/approve");
	assert_string_equal(cfg->audit_path, "/home/u/audit.jsonl");
	assert_string_equal(cfg->spill_dir, "/home/u/spill");
	config_release(cfg);
	setenv("HOME", "relative", 1);
	assert_null(parse("{\"workspace\": \"~/proj\"}", &err));
	assert_non_null(strstr(err.msg, "HOME is not an absolute path"));
	if (*was)
		setenv("HOME", was, 1);
	else
		unsetenv("HOME");
}

static void test_config_tty_approval(void **state)
{
	(void)state;
	struct config *cfg = parse("{\"approval\": \"tty\"}", NULL);
	assert_non_null(cfg);
	assert_string_equal(cfg->approval, "tty");
	config_release(cfg);
}

/* Each invalid file is refused with the key's JSON pointer and a message
 * that says what it must be. */
static void test_config_errors_name_the_key(void **state)
{
	(void)state;
	static const struct {
		const char *file, *where_suffix, *msg;
	} cases[] = {
		{ "invalid/unknown_top.json", ": /polcy",
		  "unknown key 'polcy': did you mean 'policy'?" },
		{ "invalid/unknown_limit.json", ": /limits/max_concurent",
		  "unknown key 'max_concurent': did you mean 'max_concurrent'? (known here: "
		  "max_concurrent," },
		{ "invalid/bad_level.json", ": /policy/levels/destructive",
		  "must be \"allow\", \"ask\" or \"deny\", got \"maybe\"" },
		{ "invalid/wrong_type.json", ": /limits/timeout_ms",
		  "must be an integer, got a string" },
		{ "invalid/zero_slots.json", ": /limits/max_concurrent",
		  "must be from 1 to 256 (got 0)" },
		{ "invalid/bad_pointer.json", ": /policy/rules/0/args/path",
		  "must start with '/'" },
		{ "invalid/bad_domain.json", ": /policy/domains/0", "not a host name" },
		{ "invalid/bad_approval.json", ": /approval",
		  "must be \"deny\", \"tty\" or \"cmd:PROGRAM\"" },
		{ "invalid/bad_required.json", ": /audit/required",
		  "must be true or false, got a string" },
		{ "invalid/root_identity.json", ": /identity/uid", "must be from 1 to" },
		{ "invalid/duplicate_key.json", ":1:30", "duplicate object key" },
		{ "invalid/syntax.json", ":3:1", "not valid JSON" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_error(cases[i].file, cases[i].where_suffix, cases[i].msg);
}

static void test_config_error_root_not_object(void **state)
{
	(void)state;
	struct tc_error err = { 0 };
	assert_null(parse("[1]", &err));
	assert_string_equal(err.where, "/etc/toolcage/toolcage.json: /");
	assert_string_equal(err.msg, "must be an object, got an array");
}

/* A value of the wrong type says what it is; a number or a boolean
 * written as text, how to write it; a misspelled action, the one meant. */
static void test_config_error_says_what_was_found(void **state)
{
	(void)state;
	static const struct {
		const char *text, *where, *msg;
	} cases[] = {
		{ "{\"limits\": {\"max_concurrent\": \"8\"}}", "/limits/max_concurrent",
		  "must be an integer, got a string (write the value without quotes)" },
		{ "{\"limits\": {\"timeout_ms\": 1.5}}", "/limits/timeout_ms",
		  "must be an integer, got a number with a fraction or an exponent" },
		{ "{\"sandbox\": {\"strict\": \"true\"}}", "/sandbox/strict",
		  "must be true or false, got a string (write the value without quotes)" },
		{ "{\"limits\": 5}", "/limits", "must be an object, got a number" },
		{ "{\"approval\": 5}", "/approval", "must be a string, got a number" },
		{ "{\"policy\": {\"levels\": {\"write\": \"alow\"}}}", "/policy/levels/write",
		  "must be \"allow\", \"ask\" or \"deny\", got \"alow\": did you mean "
		  "\"allow\"?" },
		/* two letters swapped: one slip */
		{ "{\"policy\": {\"levels\": {\"write\": \"dney\"}}}", "/policy/levels/write",
		  "got \"dney\": did you mean \"deny\"?" },
		{ "{\"limtis\": {}}", "/limtis", "unknown key 'limtis': did you mean 'limits'?" },
		{ "{\"policy\": {\"levels\": {\"write\": true}}}", "/policy/levels/write",
		  "must be \"allow\", \"ask\" or \"deny\", got a boolean" },
		{ "{\"policy\": {\"rules\": [{\"action\": \"denny\"}]}}", "/policy/rules/0/action",
		  "got \"denny\": did you mean \"deny\"?" },
		{ "{\"policy\": {\"rules\": [{\"action\": \"deny\", \"tol\": \"x\"}]}}",
		  "/policy/rules/0/tol", "unknown key 'tol': did you mean 'tool'?" },
		{ "{\"sandbox\": {\"strikt\": true}}", "/sandbox/strikt",
		  "unknown key 'strikt': did you mean 'strict'?" },
		/* a section's key a level too high: where it goes */
		{ "{\"levels\": {\"destructive\": \"allow\"}}", "/levels",
		  "'levels' is not a key here: it belongs in \"policy\" (/policy/levels)" },
		{ "{\"max_concurrent\": 8}", "/max_concurrent",
		  "it belongs in \"limits\" (/limits/max_concurrent)" },
		{ "{\"policy\": {\"destructive\": \"allow\"}}", "/policy/destructive",
		  "it belongs in \"levels\" (/policy/levels/destructive)" },
		/* nothing near: no guess */
		{ "{\"zzzzzzzz\": 1}", "/zzzzzzzz", "unknown key 'zzzzzzzz' (known here:" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tc_error err = { 0 };
		assert_null(parse(cases[i].text, &err));
		const char *w = strstr(err.where, ": ");
		if (!w || strcmp(w + 2, cases[i].where) || !strstr(err.msg, cases[i].msg))
			fail_msg("%s: got \"%s\": \"%s\"; want \"%s\", message with \"%s\"",
			         cases[i].text, err.where, err.msg, cases[i].where, cases[i].msg);
	}
}

static void test_config_error_escapes_odd_key_in_pointer(void **state)
{
	(void)state;
	struct tc_error err = { 0 };
	assert_null(parse("{\"limits\": {\"a/b~c\": 1}}", &err));
	assert_string_equal(err.where, "/etc/toolcage/toolcage.json: /limits/a~1b~0c");
}

static void test_config_error_empty_string_path(void **state)
{
	(void)state;
	struct tc_error err = { 0 };
	assert_null(parse("{\"tool_dirs\": [\"a\", \"\"]}", &err));
	assert_string_equal(err.where, "/etc/toolcage/toolcage.json: /tool_dirs/1");
	assert_non_null(strstr(err.msg, "non-empty string"));
}

static void test_config_error_real_number_for_integer(void **state)
{
	(void)state;
	struct tc_error err = { 0 };
	assert_null(parse("{\"limits\": {\"queue_max\": 1.5}}", &err));
	assert_string_equal(err.where, "/etc/toolcage/toolcage.json: /limits/queue_max");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_defaults),
		cmocka_unit_test(test_config_load_without_file_gives_defaults),
		cmocka_unit_test(test_config_load_finds_toolcage_json_in_cwd),
		cmocka_unit_test(test_config_load_search_order),
		cmocka_unit_test(test_config_load_unreadable_default_says_what_to_do),
		cmocka_unit_test(test_config_protected_paths),
		cmocka_unit_test(test_config_protected_paths_errors),
		cmocka_unit_test(test_config_load_missing_named_file_fails),
		cmocka_unit_test(test_config_full_example),
		cmocka_unit_test(test_config_rules_become_gate_rules),
		cmocka_unit_test(test_config_relative_cmd_approver_is_anchored),
		cmocka_unit_test(test_config_tty_approval),
		cmocka_unit_test(test_config_errors_name_the_key),
		cmocka_unit_test(test_config_error_root_not_object),
		cmocka_unit_test(test_config_error_says_what_was_found),
		cmocka_unit_test(test_config_home_in_every_path),
		cmocka_unit_test(test_config_error_escapes_odd_key_in_pointer),
		cmocka_unit_test(test_config_error_empty_string_path),
		cmocka_unit_test(test_config_error_real_number_for_integer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
