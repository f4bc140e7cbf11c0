/* test_approval.c — session grants wider than the exact arguments: the
 * command key an approver may allow (argv[0], git's subcommand, none for
 * shells and interpreters) and the gate applying command and whole-tool
 * grants in their session only, never over a deny. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "approval.h"
#include "gate.h"
#include "registry.h"

static tc_execute_fn no_exec; /* never run: the tools here are only defined */

static int noop(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	(void)ctx, (void)args, (void)out;
	return 0;
}

static struct tc_defined *define(const char *command_arg)
{
	struct tc_tool t = {
		.name = "runner",
		.description = "Runs one program with its arguments, for tests.",
		.parameters =
		        "{\"type\": \"object\", \"properties\": {\"argv\": {\"type\": \"array\", "
		        "\"items\": {\"type\": \"string\"}}}}",
		.risk = TC_RISK_DESTRUCTIVE,
		.execute = noop,
		.command_arg = command_arg,
	};
	struct tc_error err = { 0 };
	struct tc_defined *d = tc_tool_define(&t, &err);
	if (!d)
		fail_msg("%s", err.msg);
	return d;
}

static char *key_of(struct tc_defined *d, const char *args_json)
{
	json_t *args = json_loads(args_json, 0, NULL);
	assert_non_null(args);
	char *k = approval_command_key(d, args);
	json_decref(args);
	return k;
}

#define ASSERT_KEY(d, args, want)                                                                  \
	do {                                                                                       \
		char *k_ = key_of((d), (args));                                                    \
		const char *w_ = (want);                                                           \
		if ((!k_ != !w_) || (k_ && strcmp(k_, w_)))                                        \
			fail_msg("key of %s: got %s, want %s", (args), k_ ? k_ : "(none)",         \
			         w_ ? w_ : "(none)");                                              \
		free(k_);                                                                          \
	} while (0)

static void test_command_key_program_and_subcommand(void **state)
{
	(void)state;
	(void)no_exec;
	struct tc_defined *d = define("/argv");
	ASSERT_KEY(d, "{\"argv\": [\"make\", \"-j4\", \"test\"]}", "make");
	ASSERT_KEY(d, "{\"argv\": [\"pytest\"]}", "pytest");
	ASSERT_KEY(d, "{\"argv\": [\"git\", \"push\", \"origin\"]}", "git push");
	ASSERT_KEY(d, "{\"argv\": [\"/usr/bin/git\", \"status\"]}", "/usr/bin/git status");
	ASSERT_KEY(d, "{\"argv\": [\"git\", \"-C\", \"dir\", \"push\"]}", NULL); /* exact only */
	ASSERT_KEY(d, "{\"argv\": [\"git\"]}", NULL);
	/* Programs that run whatever they are told: no key at all. */
	ASSERT_KEY(d, "{\"argv\": [\"sh\", \"-c\", \"rm -rf /\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"/bin/bash\", \"x.sh\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"python3.12\", \"-m\", \"pytest\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"env\", \"FOO=1\", \"make\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"sudo\", \"make\"]}", NULL);
	/* Wrappers whose purpose is to start what their arguments name: a
	 * grant of "stdbuf" for "stdbuf -oL make" ran "stdbuf -oL sh -c ..."
	 * unasked. Other shells and runners of a package or file alike. */
	ASSERT_KEY(d, "{\"argv\": [\"stdbuf\", \"-oL\", \"make\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"/usr/bin/flock\", \"l\", \"make\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"taskset\", \"1\", \"make\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"watch\", \"make\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"ash\", \"-c\", \"make\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"pypy3\", \"x.py\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"npx\", \"jest\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"mawk\", \"{print}\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"setarch\", \"x86_64\", \"make\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"fakeroot\", \"make\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"ccache\", \"cc\", \"-c\", \"x.c\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"perf\", \"stat\", \"make\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"/lib64/ld-linux-x86-64.so.2\", \"/bin/true\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"ld.so\", \"/bin/true\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"tmux\", \"new\", \"-d\", \"make\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"screen\", \"-dm\", \"make\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"proxychains4\", \"make\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"pdb3\", \"x.py\"]}", NULL);
	/* Subcommands that run what follows them: "uv run pytest" granted
	 * would let "uv run sh -c ..." through. */
	ASSERT_KEY(d, "{\"argv\": [\"uv\", \"run\", \"pytest\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"poetry\", \"run\", \"pytest\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"npm\", \"exec\", \"jest\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"/usr/bin/bundle\", \"exec\", \"rspec\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"go\", \"run\", \".\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"docker\", \"run\", \"img\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"git\", \"submodule\", \"foreach\", \"x\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"pipenv\", \"run\", \"pytest\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"docker\", \"compose\", \"run\", \"web\"]}", NULL);
	/* A toolchain first ("cargo +nightly run") is no subcommand. */
	ASSERT_KEY(d, "{\"argv\": [\"cargo\", \"+nightly\", \"run\"]}", NULL);
	/* Variables set for the command: "git status" with GIT_CONFIG_*
	 * (core.fsmonitor) or LD_PRELOAD runs anything, so no key. */
	ASSERT_KEY(d, "{\"argv\": [\"git\", \"status\"], \"env\": {\"GIT_CONFIG_COUNT\": \"1\"}}",
	           NULL);
	ASSERT_KEY(d, "{\"argv\": [\"pytest\"], \"env\": {\"LD_PRELOAD\": \"./x.so\"}}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"git\", \"status\"], \"env\": {}}", "git status");
	/* Input: sqlite3 runs ".shell ..." read from it. */
	ASSERT_KEY(d, "{\"argv\": [\"sqlite3\", \"db\"], \"stdin\": \".shell id\"}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"sqlite3\", \"db\"], \"stdin\": \"\"}", "sqlite3");
	/* Version managers' runners. */
	ASSERT_KEY(d, "{\"argv\": [\"nix\", \"run\", \"nixpkgs#hello\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"nix\", \"shell\", \"-c\", \"sh\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"mise\", \"exec\", \"--\", \"sh\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"asdf\", \"exec\", \"sh\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"direnv\", \"exec\", \".\", \"sh\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"nix-shell\", \"--run\", \"sh\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": [\"nix\", \"build\"]}", "nix build");
	/* Their other subcommands keep their key. */
	ASSERT_KEY(d, "{\"argv\": [\"uv\", \"sync\"]}", "uv sync");
	ASSERT_KEY(d, "{\"argv\": [\"npm\", \"test\"]}", "npm test");
	ASSERT_KEY(d, "{\"argv\": [\"pipenv\", \"install\"]}", "pipenv install");
	ASSERT_KEY(d, "{\"argv\": [\"ls -la\"]}", NULL);
	ASSERT_KEY(d, "{\"argv\": []}", NULL);
	tc_defined_unref(d);
	d = define(NULL);
	ASSERT_KEY(d, "{\"argv\": [\"make\"]}", NULL); /* the tool declares no command */
	tc_defined_unref(d);
}

static enum gate_action authorize(struct gate *g, uint64_t session, const char *command,
                                  const char *args_json)
{
	json_t *args = json_loads(args_json, 0, NULL);
	struct gate_call c = { .tool = "runner",
		               .risk = TC_RISK_DESTRUCTIVE,
		               .args = args,
		               .session = session,
		               .workspace_fd = -1,
		               .command = command };
	struct gate_verdict v;
	gate_authorize(g, &c, &v);
	json_decref(args);
	return v.action;
}

static struct gate *new_gate(const char *rules_json)
{
	struct gate_policy p;
	struct tc_error err = { 0 };
	gate_policy_init(&p);
	if (rules_json) {
		json_t *rule = json_loads(rules_json, 0, NULL);
		p.rules = calloc(1, sizeof *p.rules);
		assert_non_null(p.rules);
		assert_int_equal(gate_rule_parse(rule, "test", &p.rules[0], &err), 0);
		p.nrules = 1;
		json_decref(rule);
	}
	struct gate *g;
	assert_int_equal(gate_new(&p, &g, &err), 0);
	gate_policy_release(&p);
	return g;
}

static void test_gate_command_grant_covers_that_command_only(void **state)
{
	(void)state;
	struct gate *g = new_gate(NULL);
	struct tc_error err = { 0 };
	assert_int_equal(authorize(g, 1, "git push", "{\"argv\": [\"git\", \"push\"]}"), GATE_ASK);
	assert_int_equal(gate_grant_session_wide(g, 1, "runner", "git push", &err), 0);
	assert_int_equal(authorize(g, 1, "git push", "{\"argv\": [\"git\", \"push\", \"-f\"]}"),
	                 GATE_ALLOW);
	assert_int_equal(authorize(g, 1, "git status", "{\"argv\": [\"git\", \"status\"]}"),
	                 GATE_ASK);
	assert_int_equal(authorize(g, 1, NULL, "{\"argv\": [\"sh\", \"-c\", \"git push\"]}"),
	                 GATE_ASK);
	assert_int_equal(authorize(g, 2, "git push", "{\"argv\": [\"git\", \"push\"]}"), GATE_ASK);
	json_t *grants = gate_grants(g, 1);
	assert_string_equal(json_string_value(
	                            json_object_get(json_array_get(grants, 0), "command")),
	                    "git push");
	json_decref(grants);
	gate_free(g);
}

static void test_gate_tool_grant_covers_any_arguments_not_a_deny(void **state)
{
	(void)state;
	struct gate *g = new_gate("{\"action\": \"deny\", \"tool\": \"runner\", "
	                          "\"args\": {\"/argv/0\": \"rm\"}}");
	struct tc_error err = { 0 };
	assert_int_equal(gate_grant_session_wide(g, 1, "runner", NULL, &err), 0);
	assert_int_equal(authorize(g, 1, "make", "{\"argv\": [\"make\"]}"), GATE_ALLOW);
	assert_int_equal(authorize(g, 1, NULL, "{\"argv\": [\"sh\", \"-c\", \"x\"]}"), GATE_ALLOW);
	assert_int_equal(authorize(g, 1, "rm", "{\"argv\": [\"rm\", \"-rf\", \"x\"]}"), GATE_DENY);
	gate_forget_session(g, 1);
	assert_int_equal(authorize(g, 1, "make", "{\"argv\": [\"make\"]}"), GATE_ASK);
	gate_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_key_program_and_subcommand),
		cmocka_unit_test(test_gate_command_grant_covers_that_command_only),
		cmocka_unit_test(test_gate_tool_grant_covers_any_arguments_not_a_deny),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
