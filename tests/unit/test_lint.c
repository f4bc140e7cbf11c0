/* test_lint.c — each checklist rule firing and not firing, the lexical
 * selector's picks and explanations, regression cases, and the external
 * selector command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lint.h"
#include "manifest.h"
#include "registry.h"

static int noop_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	(void)ctx, (void)args, (void)out;
	return 0;
}

#define PATH_OK                                                                                    \
	"{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","                      \
	"\"description\":\"File path relative to the workspace, e.g. \\\"a/b.txt\\\"\"}}}"
#define GOOD_DESC "Read a text file from the workspace and return its contents."

static void add(struct tc_registry *reg, const char *name, const char *desc, const char *params,
                enum tc_risk risk)
{
	struct tc_tool t = { .name = name,
		             .description = desc,
		             .parameters = params,
		             .risk = risk,
		             .execute = noop_exec };
	struct tc_error err = { 0 };
	struct tc_defined *d = tc_tool_define(&t, &err);
	if (!d)
		fail_msg("%s", err.msg);
	assert_int_equal(tc_registry_add(reg, d, NULL, &err), 0);
}

/* Lints every tool of a registry holding one tool. */
static struct lint_report lint_one(const char *name, const char *desc, const char *params,
                                   enum tc_risk risk)
{
	struct tc_registry *reg = tc_registry_new();
	add(reg, name, desc, params, risk);
	struct lint_report r = LINT_REPORT_INIT;
	assert_int_equal(lint_registry(reg, &r), 0);
	tc_registry_free(reg);
	return r;
}

static void expect_rule(const char *rule, bool fires, const char *desc, const char *params,
                        enum tc_risk risk)
{
	struct lint_report r = lint_one("some_tool", desc, params, risk);
	if (lint_report_has(&r, rule, "some_tool") != fires)
		fail_msg("rule %s %s for \"%s\" %s", rule, fires ? "did not fire" : "fired", desc,
		         params);
	lint_report_release(&r);
}

static void test_lint_clean_tool_has_no_findings(void **state)
{
	(void)state;
	struct lint_report r = lint_one("read_file", GOOD_DESC, PATH_OK, TC_RISK_READ_ONLY);
	assert_int_equal(r.count, 0);
	lint_report_release(&r);
}

static void test_lint_verb_rule(void **state)
{
	(void)state;
	expect_rule(LINT_R_VERB, true, "This tool reads a text file and returns it.", PATH_OK, 0);
	expect_rule(LINT_R_VERB, true, "A reader for text files in the workspace.", PATH_OK, 0);
	expect_rule(LINT_R_VERB, false, GOOD_DESC, PATH_OK, 0);
	expect_rule(LINT_R_VERB, false, "Searches the log files for a pattern and returns lines.",
	            PATH_OK, 0);
}

static void test_lint_thin_description_rule(void **state)
{
	(void)state;
	expect_rule(LINT_R_THIN, true, "Read a text file.", PATH_OK, 0);
	expect_rule(LINT_R_THIN, false, GOOD_DESC, PATH_OK, 0);
}

static void test_lint_param_description_rule(void **state)
{
	(void)state;
	expect_rule(LINT_R_PARAM_DESC, true, GOOD_DESC,
	            "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}", 0);
	/* nested objects are looked into */
	expect_rule(
	        LINT_R_PARAM_DESC, true, GOOD_DESC,
	        "{\"type\":\"object\",\"properties\":{\"opt\":{\"type\":\"object\",\"description\":\"Options\","
	        "\"properties\":{\"depth\":{\"type\":\"integer\"}}}}}",
	        0);
	expect_rule(LINT_R_PARAM_DESC, false, GOOD_DESC, PATH_OK, 0);
}

static void test_lint_param_description_names_pointer(void **state)
{
	(void)state;
	struct lint_report r =
	        lint_one("some_tool", GOOD_DESC,
	                 "{\"type\":\"object\",\"properties\":{\"opt\":{\"type\":\"object\","
	                 "\"description\":\"Options\",\"properties\":{\"depth\":{}}}}}",
	                 0);
	assert_int_equal(r.count, 1);
	assert_non_null(strstr(r.items[0].message, "/opt/depth"));
	lint_report_release(&r);
}

static void test_lint_param_example_rule(void **state)
{
	(void)state;
	expect_rule(
	        LINT_R_PARAM_EXAMPLE, true, GOOD_DESC,
	        "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"description\":\"The file to read\"}}}",
	        0);
	expect_rule(
	        LINT_R_PARAM_EXAMPLE, true, GOOD_DESC,
	        "{\"type\":\"object\",\"properties\":{\"since\":{\"type\":\"string\",\"description\":\"Start date of the range\"}}}",
	        0);
	expect_rule(LINT_R_PARAM_EXAMPLE, false, GOOD_DESC, PATH_OK, 0);
	expect_rule(
	        LINT_R_PARAM_EXAMPLE, false, GOOD_DESC,
	        "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"description\":\"The file to read\","
	        "\"examples\":[\"a.txt\"]}}}",
	        0);
	/* not a format-bearing parameter */
	expect_rule(
	        LINT_R_PARAM_EXAMPLE, false, GOOD_DESC,
	        "{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\",\"description\":\"How many lines\"}}}",
	        0);
}

static void test_lint_enum_rule(void **state)
{
	(void)state;
	expect_rule(
	        LINT_R_ENUM, true, GOOD_DESC,
	        "{\"type\":\"object\",\"properties\":{\"mode\":{\"type\":\"string\",\"description\":\"Open mode, one of read, write\"}}}",
	        0);
	expect_rule(
	        LINT_R_ENUM, true, GOOD_DESC,
	        "{\"type\":\"object\",\"properties\":{\"mode\":{\"type\":\"string\",\"description\":\"Open mode: read|write\"}}}",
	        0);
	expect_rule(
	        LINT_R_ENUM, false, GOOD_DESC,
	        "{\"type\":\"object\",\"properties\":{\"mode\":{\"type\":\"string\",\"enum\":[\"read\",\"write\"],"
	        "\"description\":\"Open mode, one of read, write\"}}}",
	        0);
	/* a regex example with '|' is not a choice list */
	expect_rule(
	        LINT_R_ENUM, false, GOOD_DESC,
	        "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\"string\",\"description\":\"Regex, e.g. ERROR|WARN\"}}}",
	        0);
}

static void test_lint_required_default_rule(void **state)
{
	(void)state;
	expect_rule(
	        LINT_R_REQUIRED_DEFAULT, true, GOOD_DESC,
	        "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"default\":10,\"description\":\"Lines to show\"}},"
	        "\"required\":[\"n\"]}",
	        0);
	expect_rule(
	        LINT_R_REQUIRED_DEFAULT, false, GOOD_DESC,
	        "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"default\":10,\"description\":\"Lines to show\"}}}",
	        0);
}

static void test_lint_url_arg_rule(void **state)
{
	(void)state;
	const char *params =
	        "{\"type\":\"object\",\"properties\":{\"url\":{\"type\":\"string\","
	        "\"description\":\"Page to fetch, e.g. \\\"https://example.org/\\\"\"}}}";
	expect_rule(LINT_R_URL_ARG, true, "Fetch a web page and return its body as text.", params,
	            TC_RISK_NETWORK);
	expect_rule(LINT_R_URL_ARG, false, "Fetch a web page and return its body as text.", params,
	            TC_RISK_READ_ONLY);
	struct tc_registry *reg = tc_registry_new();
	struct tc_tool t = { .name = "fetch_page",
		             .description = "Fetch a web page and return its body as text.",
		             .parameters = params,
		             .risk = TC_RISK_NETWORK,
		             .url_arg = "/url",
		             .execute = noop_exec };
	assert_int_equal(tc_registry_add(reg, tc_tool_define(&t, NULL), NULL, NULL), 0);
	struct lint_report r = LINT_REPORT_INIT;
	assert_int_equal(lint_registry(reg, &r), 0);
	assert_false(lint_report_has(&r, LINT_R_URL_ARG, NULL));
	lint_report_release(&r);
	tc_registry_free(reg);
}

static void test_lint_boundary_rule_fires_for_near_tool(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	add(reg, "read_file", GOOD_DESC, PATH_OK, 0);
	add(reg, "write_file", "Write text to a file in the workspace, replacing what it held.",
	    PATH_OK, TC_RISK_WRITE);
	struct lint_report r = LINT_REPORT_INIT;
	assert_int_equal(lint_registry(reg, &r), 0);
	assert_true(lint_report_has(&r, LINT_R_BOUNDARY, "read_file"));
	assert_true(lint_report_has(&r, LINT_R_BOUNDARY, "write_file"));
	assert_non_null(strstr(r.items[0].message, "both names have 'file'"));
	lint_report_release(&r);
	tc_registry_free(reg);
}

static void test_lint_boundary_rule_quiet_when_description_says_instead(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	add(reg, "read_file", GOOD_DESC " Not for changing files.", PATH_OK, 0);
	add(reg, "write_file", "Write text to a file; to look at one use read_file.", PATH_OK,
	    TC_RISK_WRITE);
	struct lint_report r = LINT_REPORT_INIT;
	assert_int_equal(lint_registry(reg, &r), 0);
	assert_false(lint_report_has(&r, LINT_R_BOUNDARY, NULL));
	lint_report_release(&r);
	tc_registry_free(reg);
}

static void test_lint_boundary_rule_quiet_without_near_tool(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	add(reg, "read_file", GOOD_DESC, PATH_OK, 0);
	add(reg, "current_time", "Return the current date and time of the host in UTC.",
	    "{\"type\":\"object\"}", 0);
	struct lint_report r = LINT_REPORT_INIT;
	assert_int_equal(lint_registry(reg, &r), 0);
	assert_false(lint_report_has(&r, LINT_R_BOUNDARY, NULL));
	lint_report_release(&r);
	tc_registry_free(reg);
}

static struct tc_defined *manifest_tool(const char *const *cmd, size_t n, const char *params_text)
{
	json_t *params = json_loads(params_text, 0, NULL);
	struct tc_tool t = { .name = "grep_log",
		             .description = "Search a log for lines matching a pattern." };
	struct reg_define_opts o = { .parameters = params, .command = cmd, .ncommand = n };
	struct tc_defined *d = reg_define(&t, &o, NULL);
	json_decref(params);
	assert_non_null(d);
	return d;
}

static void test_lint_option_injection_rule(void **state)
{
	(void)state;
	const char *params =
	        "{\"type\":\"object\",\"properties\":{"
	        "\"pattern\":{\"type\":\"string\",\"description\":\"Regex, e.g. \\\"err\\\"\"},"
	        "\"mode\":{\"enum\":[\"a\",\"b\"],\"description\":\"Mode\"}}}";
	const char *before[] = { "/usr/bin/grep", "{{pattern}}" };
	const char *after[] = { "/usr/bin/grep", "--", "{{pattern}}" };
	const char *joined[] = { "/usr/bin/grep", "--regexp={{pattern}}", "{{mode}}" };
	struct {
		const char *const *cmd;
		size_t n;
		bool fires;
	} cases[] = {
		{ before, 2, true },
		{ after, 3, false },
		{ joined, 3, false },
	};
	for (size_t i = 0; i < 3; i++) {
		struct tc_defined *d = manifest_tool(cases[i].cmd, cases[i].n, params);
		struct lint_report r = LINT_REPORT_INIT;
		assert_int_equal(lint_tool(NULL, d, &r), 0);
		assert_int_equal(lint_report_has(&r, LINT_R_OPTION_INJECTION, "grep_log"),
		                 cases[i].fires);
		lint_report_release(&r);
		tc_defined_unref(d);
	}
}

static void test_lint_fixture_tools_are_clean(void **state)
{
	(void)state;
	const char *dd = getenv("TC_TESTDATA");
	char path[512];
	snprintf(path, sizeof path, "%s/lint/tools", dd ? dd : "tests/data");
	struct tc_registry *reg = tc_registry_new();
	struct tc_error err = { 0 };
	if (manifest_register(reg, path, SCHEMA_DRAFT_AUTO, NULL, &err))
		fail_msg("%s", err.msg);
	struct lint_report r = LINT_REPORT_INIT;
	assert_int_equal(lint_registry(reg, &r), 0);
	for (size_t i = 0; i < r.count; i++)
		print_message("%s: %s: %s\n", r.items[i].subject, r.items[i].rule,
		              r.items[i].message);
	assert_int_equal(r.count, 0);
	lint_report_release(&r);
	tc_registry_free(reg);
}

/* ---- the selector ----------------------------------------------------------- */

static struct tc_registry *three_tools(void)
{
	struct tc_registry *reg = tc_registry_new();
	add(reg, "read_file", GOOD_DESC " Not for searching; use grep_log to find lines.", PATH_OK,
	    0);
	add(reg, "grep_log", "Search a log file for lines matching a regular expression.", PATH_OK,
	    0);
	add(reg, "list_dir", "List the entries of a directory, one name per line.", PATH_OK, 0);
	return reg;
}

static void test_selector_picks_by_words(void **state)
{
	(void)state;
	struct tc_registry *reg = three_tools();
	struct lint_selector *s = lint_selector_new(reg);
	assert_string_equal(lint_selector_pick(s, "read the file notes.txt"), "read_file");
	assert_string_equal(lint_selector_pick(s, "search the server logs for timeouts"),
	                    "grep_log");
	assert_string_equal(lint_selector_pick(s, "what entries does the src directory have"),
	                    "list_dir");
	lint_selector_free(s);
	tc_registry_free(reg);
}

static void test_selector_stems_word_forms(void **state)
{
	(void)state;
	struct tc_registry *reg = three_tools();
	struct lint_selector *s = lint_selector_new(reg);
	assert_string_equal(lint_selector_pick(s, "Searching"), "grep_log");
	assert_string_equal(lint_selector_pick(s, "listing directories"), "list_dir");
	lint_selector_free(s);
	tc_registry_free(reg);
}

static void test_selector_ignores_negated_clauses(void **state)
{
	(void)state;
	struct tc_registry *reg = three_tools();
	struct lint_selector *s = lint_selector_new(reg);
	/* read_file says "Not for searching; use grep_log to find lines":
	 * those words must not draw the task to it */
	struct buf why = BUF_INIT;
	assert_int_equal(lint_selector_explain(s, "find lines by searching", "read_file", &why), 0);
	assert_string_equal(why.data, "read_file scored 0.00 (shares no word with the task)");
	buf_release(&why);
	lint_selector_free(s);
	tc_registry_free(reg);
}

static void test_selector_returns_null_without_shared_words(void **state)
{
	(void)state;
	struct tc_registry *reg = three_tools();
	struct lint_selector *s = lint_selector_new(reg);
	assert_null(lint_selector_pick(s, "bake a cake"));
	assert_null(lint_selector_pick(s, ""));
	lint_selector_free(s);
	tc_registry_free(reg);
}

static void test_selector_breaks_ties_by_name(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	add(reg, "zeta_tool", "Return the weather forecast for a city.", "{\"type\":\"object\"}",
	    0);
	add(reg, "alpha_tool", "Return the weather forecast for a city.", "{\"type\":\"object\"}",
	    0);
	struct lint_selector *s = lint_selector_new(reg);
	assert_string_equal(lint_selector_pick(s, "weather in Paris"), "alpha_tool");
	lint_selector_free(s);
	tc_registry_free(reg);
}

static void test_selector_explains_deciding_words(void **state)
{
	(void)state;
	struct tc_registry *reg = three_tools();
	struct lint_selector *s = lint_selector_new(reg);
	struct buf why = BUF_INIT;
	assert_int_equal(lint_selector_explain(s, "search the logs", "grep_log", &why), 0);
	assert_non_null(strstr(why.data, "grep_log scored "));
	assert_non_null(strstr(why.data, " on: "));
	assert_non_null(strstr(why.data, "search ("));
	assert_non_null(strstr(why.data, "logs ("));
	buf_release(&why);
	lint_selector_free(s);
	tc_registry_free(reg);
}

static void test_cases_mismatch_names_both_tools_and_words(void **state)
{
	(void)state;
	struct tc_registry *reg = three_tools();
	char *ne[] = { (char *)"grep_log" };
	struct lint_case cases[] = {
		{ .task = (char *)"read the file notes.txt", .expect = (char *)"read_file" },
		{ .task = (char *)"search the logs for errors", .expect = (char *)"read_file" },
		{ .task = (char *)"search the logs for errors",
		  .not_expect = ne,
		  .n_not_expect = 1 },
	};
	struct lint_report r = LINT_REPORT_INIT;
	size_t passed;
	assert_int_equal(lint_run_cases(reg, cases, 3, NULL, 1000, &r, &passed, NULL), 0);
	assert_int_equal(passed, 1);
	assert_int_equal(r.errors, 2);
	assert_string_equal(r.items[0].subject, "case 2");
	const char *m = r.items[0].message;
	assert_non_null(strstr(m, "expected read_file, the selector chose grep_log"));
	assert_non_null(strstr(m, "grep_log scored"));
	assert_non_null(strstr(m, "read_file scored"));
	assert_non_null(strstr(m, "search ("));
	assert_non_null(strstr(r.items[1].message, "grep_log, which the case lists in not_expect"));
	lint_report_release(&r);
	tc_registry_free(reg);
}

static void test_fixture_cases_all_pass(void **state)
{
	(void)state;
	const char *dd = getenv("TC_TESTDATA");
	char path[512], cpath[512];
	snprintf(path, sizeof path, "%s/lint/tools", dd ? dd : "tests/data");
	snprintf(cpath, sizeof cpath, "%s/lint/cases.json", dd ? dd : "tests/data");
	struct tc_registry *reg = tc_registry_new();
	assert_int_equal(manifest_register(reg, path, SCHEMA_DRAFT_AUTO, NULL, NULL), 0);
	struct lint_case *cases;
	size_t n, passed;
	struct tc_error err = { 0 };
	if (lint_cases_load(cpath, &cases, &n, &err))
		fail_msg("%s", err.msg);
	assert_true(n >= 4);
	struct lint_report r = LINT_REPORT_INIT;
	assert_int_equal(lint_run_cases(reg, cases, n, NULL, 1000, &r, &passed, NULL), 0);
	for (size_t i = 0; i < r.count; i++)
		print_message("%s: %s\n", r.items[i].subject, r.items[i].message);
	assert_int_equal(passed, n);
	lint_report_release(&r);
	lint_cases_free(cases, n);
	tc_registry_free(reg);
}

static char *write_temp(const char *text)
{
	static char path[] = "/tmp/tc_lint_cases_XXXXXX";
	strcpy(path, "/tmp/tc_lint_cases_XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_cases_load_refuses_unknown_key(void **state)
{
	(void)state;
	char *p = write_temp("[{\"task\":\"x\",\"expect\":\"a\",\"expected\":\"b\"}]");
	struct lint_case *cases;
	size_t n;
	struct tc_error err = { 0 };
	assert_int_equal(lint_cases_load(p, &cases, &n, &err), -1);
	assert_non_null(strstr(err.msg, "unknown key 'expected'"));
	unlink(p);
}

static void test_cases_load_needs_an_expectation(void **state)
{
	(void)state;
	char *p = write_temp("[{\"task\":\"x\"}]");
	struct lint_case *cases;
	size_t n;
	struct tc_error err = { 0 };
	assert_int_equal(lint_cases_load(p, &cases, &n, &err), -1);
	assert_non_null(strstr(err.msg, "case 1 needs"));
	unlink(p);
}

static void test_cases_load_accepts_not_expect_string(void **state)
{
	(void)state;
	char *p = write_temp("[{\"task\":\"x\",\"not_expect\":\"a\"}]");
	struct lint_case *cases;
	size_t n;
	assert_int_equal(lint_cases_load(p, &cases, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_null(cases[0].expect);
	assert_int_equal(cases[0].n_not_expect, 1);
	assert_string_equal(cases[0].not_expect[0], "a");
	lint_cases_free(cases, n);
	unlink(p);
}

/* ---- the external selector ----------------------------------------------------- */

static void test_selector_cmd_reads_first_line(void **state)
{
	(void)state;
	json_t *tools = json_array();
	char *choice;
	assert_int_equal(lint_select_cmd("/bin/echo  read_file   extra", "t", tools, 5000, &choice,
	                                 NULL),
	                 0);
	/* split on runs of spaces: echo got two arguments */
	assert_string_equal(choice, "read_file extra");
	free(choice);
	json_decref(tools);
}

static void test_selector_cmd_gets_task_and_tools_on_stdin(void **state)
{
	(void)state;
	json_t *tools = json_pack("[{s:s}]", "name", "read_file");
	char *choice;
	assert_int_equal(lint_select_cmd("/bin/cat", "find x", tools, 5000, &choice, NULL), 0);
	json_t *got = json_loads(choice, 0, NULL);
	assert_non_null(got);
	assert_string_equal(json_string_value(json_object_get(got, "task")), "find x");
	assert_true(json_equal(json_object_get(got, "tools"), tools));
	json_decref(got);
	free(choice);
	json_decref(tools);
}

static void test_selector_cmd_failure_is_an_error(void **state)
{
	(void)state;
	json_t *tools = json_array();
	char *choice;
	struct tc_error err = { 0 };
	assert_int_equal(lint_select_cmd("/bin/false", "t", tools, 5000, &choice, &err), -1);
	assert_non_null(strstr(err.msg, "exited with 1"));
	assert_null(choice);
	/* exec fails in the child: 127 (any nonzero under valgrind, whose
	 * leak check of the forked child changes its exit code) */
	assert_int_equal(lint_select_cmd("/nonexistent/selector", "t", tools, 5000, &choice, &err),
	                 -1);
	assert_non_null(strstr(err.msg, "exited with"));
	assert_int_equal(lint_select_cmd("/bin/true", "t", tools, 5000, &choice, &err), -1);
	assert_non_null(strstr(err.msg, "printed no tool name"));
	json_decref(tools);
}

static void test_selector_cmd_times_out(void **state)
{
	(void)state;
	json_t *tools = json_array();
	char *choice;
	struct tc_error err = { 0 };
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(lint_select_cmd("/bin/sleep 10", "t", tools, 200, &choice, &err), -1);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_non_null(strstr(err.msg, "timed out"));
	assert_true(b.tv_sec - a.tv_sec < 5);
	json_decref(tools);
}

static void test_cases_with_selector_cmd(void **state)
{
	(void)state;
	struct tc_registry *reg = three_tools();
	struct lint_case cases[] = {
		{ .task = (char *)"anything", .expect = (char *)"list_dir" },
		{ .task = (char *)"anything", .expect = (char *)"read_file" },
	};
	struct lint_report r = LINT_REPORT_INIT;
	size_t passed;
	assert_int_equal(lint_run_cases(reg, cases, 2, "/bin/echo list_dir", 5000, &r, &passed,
	                                NULL),
	                 0);
	assert_int_equal(passed, 1);
	assert_int_equal(r.errors, 1);
	assert_non_null(
	        strstr(r.items[0].message, "expected read_file, the selector chose list_dir"));
	lint_report_release(&r);
	tc_registry_free(reg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lint_clean_tool_has_no_findings),
		cmocka_unit_test(test_lint_verb_rule),
		cmocka_unit_test(test_lint_thin_description_rule),
		cmocka_unit_test(test_lint_param_description_rule),
		cmocka_unit_test(test_lint_param_description_names_pointer),
		cmocka_unit_test(test_lint_param_example_rule),
		cmocka_unit_test(test_lint_enum_rule),
		cmocka_unit_test(test_lint_required_default_rule),
		cmocka_unit_test(test_lint_url_arg_rule),
		cmocka_unit_test(test_lint_boundary_rule_fires_for_near_tool),
		cmocka_unit_test(test_lint_boundary_rule_quiet_when_description_says_instead),
		cmocka_unit_test(test_lint_boundary_rule_quiet_without_near_tool),
		cmocka_unit_test(test_lint_option_injection_rule),
		cmocka_unit_test(test_lint_fixture_tools_are_clean),
		cmocka_unit_test(test_selector_picks_by_words),
		cmocka_unit_test(test_selector_stems_word_forms),
		cmocka_unit_test(test_selector_ignores_negated_clauses),
		cmocka_unit_test(test_selector_returns_null_without_shared_words),
		cmocka_unit_test(test_selector_breaks_ties_by_name),
		cmocka_unit_test(test_selector_explains_deciding_words),
		cmocka_unit_test(test_cases_mismatch_names_both_tools_and_words),
		cmocka_unit_test(test_fixture_cases_all_pass),
		cmocka_unit_test(test_cases_load_refuses_unknown_key),
		cmocka_unit_test(test_cases_load_needs_an_expectation),
		cmocka_unit_test(test_cases_load_accepts_not_expect_string),
		cmocka_unit_test(test_selector_cmd_reads_first_line),
		cmocka_unit_test(test_selector_cmd_gets_task_and_tools_on_stdin),
		cmocka_unit_test(test_selector_cmd_failure_is_an_error),
		cmocka_unit_test(test_selector_cmd_times_out),
		cmocka_unit_test(test_cases_with_selector_cmd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
