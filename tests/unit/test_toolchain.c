/* test_toolchain.c — the user's toolchains in the jails: the config's
 * "toolchains" and "tools" keys, and toolchain_apply adding the granted
 * directories to a profile's read and exec paths and building PATH from
 * the user's own entries that the jail can run from. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "toolchain.h"

static struct config *parse(const char *text, struct tc_error *err)
{
	struct config *cfg = NULL;
	if (config_parse(text, strlen(text), "test.json", &cfg, err) < 0)
		return NULL;
	return cfg;
}

static void test_config_reads_toolchains_and_tool_timeouts(void **state)
{
	(void)state;
	struct tc_error err = { 0 };
	setenv("HOME", "/home/u", 1);
	struct config *cfg = parse("{\"toolchains\": [\"~/.pyenv\", \"/opt/venv\"], "
	                           "\"tools\": {\"run_command\": {\"timeout_ms\": 900000}}}",
	                           &err);
	if (!cfg)
		fail_msg("%s: %s", err.where, err.msg);
	assert_int_equal(cfg->n_toolchains, 2);
	assert_string_equal(cfg->toolchains[0], "/home/u/.pyenv");
	assert_string_equal(cfg->toolchains[1], "/opt/venv");
	assert_null(cfg->toolchains[2]);
	assert_int_equal(config_tool_timeout(cfg, "run_command", 600000), 900000);
	assert_int_equal(config_tool_timeout(cfg, "read_file", 0), cfg->timeout_ms);
	assert_int_equal(config_tool_timeout(cfg, "other", 5000), 5000);
	config_release(cfg);
}

static void test_config_refuses_bad_toolchains_and_tools(void **state)
{
	(void)state;
	struct tc_error err = { 0 };
	assert_null(parse("{\"toolchains\": [\"/\"]}", &err));
	assert_non_null(strstr(err.msg, "whole filesystem"));
	assert_null(parse("{\"toolchains\": \"/opt\"}", &err));
	assert_null(parse("{\"tools\": {\"run_command\": {\"timeout\": 5}}}", &err));
	assert_non_null(strstr(err.where, "/tools/run_command"));
	assert_null(parse("{\"tools\": {\"run_command\": {\"timeout_ms\": 0}}}", &err));
}

static const char *env_get(const struct sbx_spec *spec, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; spec->env_set && spec->env_set[i]; i++)
		if (!strncmp(spec->env_set[i], name, n) && spec->env_set[i][n] == '=')
			return spec->env_set[i] + n + 1;
	return NULL;
}

static bool has(const char *const *list, const char *s)
{
	for (size_t i = 0; list && list[i]; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

/* The user's PATH order is kept; entries the jail cannot run from, and
 * relative ones, are dropped; the profile's other variables stay. */
static void test_toolchain_path_from_granted_user_entries(void **state)
{
	(void)state;
	static const char *const read[] = { "/usr", "/etc", NULL };
	static const char *const exec[] = { "/usr", "/bin", NULL };
	static const char *const env[] = { "PATH=/usr/bin:/bin", "LANG=C.UTF-8", NULL };
	char *dirs[] = { (char *)"/home/u/.pyenv", (char *)"/home/u/.cargo", NULL };
	struct sbx_spec spec = { .read_paths = read, .exec_paths = exec, .env_set = env };
	struct toolchain_spec ts;
	struct tc_error err = { 0 };
	const char *user = "/home/u/.pyenv/shims:/home/u/bin:.:/usr/local/bin:/home/u/.cargo/bin:"
	                   "/usr/bin:/home/u/.pyenv/shims:/bin:/home/u/.cargoX/bin";
	assert_int_equal(toolchain_apply(&spec, dirs, user, &ts, &err), 0);
	assert_string_equal(env_get(&spec, "PATH"),
	                    "/home/u/.pyenv/shims:/usr/local/bin:/home/u/.cargo/bin:/usr/bin:/bin");
	assert_string_equal(env_get(&spec, "LANG"), "C.UTF-8");
	assert_true(has(spec.read_paths, "/home/u/.pyenv") && has(spec.read_paths, "/etc"));
	assert_true(has(spec.exec_paths, "/home/u/.cargo") && has(spec.exec_paths, "/bin"));
	toolchain_release(&ts);
}

/* No toolchains: the profile is left as it is. */
static void test_toolchain_none_changes_nothing(void **state)
{
	(void)state;
	static const char *const env[] = { "PATH=/usr/bin", NULL };
	char *dirs[] = { NULL };
	struct sbx_spec spec = { .env_set = env };
	struct toolchain_spec ts;
	assert_int_equal(toolchain_apply(&spec, dirs, "/home/u/bin", &ts, NULL), 0);
	assert_ptr_equal(spec.env_set, env);
	toolchain_release(&ts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_reads_toolchains_and_tool_timeouts),
		cmocka_unit_test(test_config_refuses_bad_toolchains_and_tools),
		cmocka_unit_test(test_toolchain_path_from_granted_user_entries),
		cmocka_unit_test(test_toolchain_none_changes_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
