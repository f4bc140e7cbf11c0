/* test_manifest.c — manifest loading (strict keys, placeholders, risk
 * lists, directories) and argv/stdin templating. Fixtures live in
 * tests/data/tools/{valid,invalid}; TC_TESTDATA overrides tests/data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "manifest.h"
#include "patchpaths.h"
#include "registry.h"

static const char *data_dir(void)
{
	const char *d = getenv("TC_TESTDATA");
	return d ? d : "tests/data";
}

static char *fixture(const char *rel)
{
	static char path[1024];
	snprintf(path, sizeof path, "%s/tools/%s", data_dir(), rel);
	return path;
}

static struct tc_defined *load_ok(const char *rel)
{
	struct tc_error err = { 0 };
	struct tc_defined *d = manifest_load_file(fixture(rel), SCHEMA_DRAFT_AUTO, &err);
	if (!d)
		fail_msg("%s: %s", rel, err.msg);
	return d;
}

static void expect_load_error(const char *rel, const char *want)
{
	struct tc_error err = { 0 };
	assert_null(manifest_load_file(fixture(rel), SCHEMA_DRAFT_AUTO, &err));
	if (!strstr(err.msg, want))
		fail_msg("%s: message \"%s\" lacks \"%s\"", rel, err.msg, want);
}

static void test_manifest_loads_good_file(void **state)
{
	(void)state;
	struct tc_defined *d = load_ok("valid/grep_file.json");
	assert_string_equal(d->name, "grep_file");
	assert_string_equal(d->title, "Search a file");
	assert_int_equal(d->risk, TC_RISK_READ_ONLY);
	assert_int_equal(d->timeout_ms, 5000);
	assert_true(d->idempotent);
	assert_null(d->execute);
	assert_int_equal(d->ncommand, 6);
	assert_string_equal(d->command[0], "/usr/bin/grep");
	assert_string_equal(d->command[4], "{{pattern}}");
	assert_null(d->command[6]);
	assert_null(d->stdin_template);
	assert_int_equal(d->output_mode, REG_OUTPUT_TEXT);
	assert_non_null(strstr(d->source, "grep_file.json"));
	tc_defined_unref(d);
}

static void test_manifest_risk_list_means_highest(void **state)
{
	(void)state;
	struct tc_defined *d = load_ok("valid/fetch_page.json");
	assert_int_equal(d->risk, TC_RISK_NETWORK); /* [read-only, network, write] */
	assert_string_equal(d->url_arg, "/url");
	tc_defined_unref(d);
}

/* Each invalid manifest is refused, the file named, with a message that
 * says what is wrong. */
static void test_manifest_refuses_what_is_wrong(void **state)
{
	(void)state;
	static const struct {
		const char *file, *msg;
	} cases[] = {
		{ "invalid/unknown_key.json", "unknown key 'shell'" },
		{ "invalid/unknown_key.json", "invalid/unknown_key.json" },
		{ "invalid/typo_key.json",
		  "unknown key 'timeout_msec': did you mean 'timeout_ms'? (known:" },
		{ "invalid/wrong_type.json", "'timeout_ms' must be an integer, got a string" },
		{ "invalid/bad_placeholder.json",
		  "command[3]: placeholder {{file}} has no matching property" },
		{ "invalid/malformed_placeholder.json", "malformed placeholder" },
		{ "invalid/relative_command.json", "command[0] must be a fixed absolute path" },
		{ "invalid/program_placeholder.json", "command[0] must be a fixed absolute path" },
		{ "invalid/bad_risk.json", "'risk' has 'dangerous'" },
		{ "invalid/bad_name.json", "tool 'GrepFile': name must match" },
		{ "invalid/no_command.json", "'command' is missing" },
		{ "invalid/not_json.json", "not_json.json:4:" },
		{ "invalid/duplicate_key.json", "duplicate object key" },
		{ "invalid/unenforced_keyword.json", "unevaluatedProperties" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_load_error(cases[i].file, cases[i].msg);
}

/* Loads a manifest made of one risk and one profile from a temporary
 * file. 0 loaded, -1 refused (err filled). */
static int load_risk_profile(const char *risk, const char *profile, struct tc_error *err)
{
	char path[] = "/tmp/tc-test-manifest-XXXXXX.json";
	int fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f,
	        "{\"name\":\"risky\",\"description\":\"Fetches a page for the tests.\","
	        "\"parameters\":{\"type\":\"object\"},\"risk\":\"%s\",\"profile\":\"%s\","
	        "\"command\":[\"/bin/true\"]}",
	        risk, profile);
	fclose(f);
	memset(err, 0, sizeof *err);
	struct tc_defined *d = manifest_load_file(path, SCHEMA_DRAFT_AUTO, err);
	unlink(path);
	tc_defined_unref(d);
	return d ? 0 : -1;
}

/* Loads a manifest with the given "path_args" JSON. */
static struct tc_defined *load_path_args(const char *path_args, struct tc_error *err)
{
	char path[] = "/tmp/tc-test-manifest-XXXXXX.json";
	int fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f,
	        "{\"name\":\"grep_in\",\"description\":\"Searches a file for the tests.\","
	        "\"parameters\":{\"type\":\"object\",\"properties\":{\"file\":{\"type\":\"string\"},"
	        "\"dirs\":{\"type\":\"array\"}}},\"path_args\":%s,"
	        "\"command\":[\"/bin/grep\",\"x\",\"{{file}}\"]}",
	        path_args);
	fclose(f);
	memset(err, 0, sizeof *err);
	struct tc_defined *d = manifest_load_file(path, SCHEMA_DRAFT_AUTO, err);
	unlink(path);
	return d;
}

/* A manifest declares which arguments are paths; each must be a pointer
 * to a declared property. */
static void test_manifest_path_args(void **state)
{
	(void)state;
	struct tc_error err;
	struct tc_defined *d = load_path_args("[\"/file\", \"/dirs\"]", &err);
	assert_non_null(d);
	assert_string_equal(d->path_args[0], "/file");
	assert_string_equal(d->path_args[1], "/dirs");
	assert_null(d->path_args[2]);
	tc_defined_unref(d);
	assert_null(load_path_args("[\"/nope\"]", &err));
	assert_non_null(strstr(err.msg, "names no property"));
	assert_null(load_path_args("[\"file\"]", &err));
	assert_non_null(strstr(err.msg, "must be a JSON pointer"));
	assert_null(load_path_args("[3]", &err));
	assert_null(load_path_args("\"/file\"", &err));
}

/* A manifest may declare its diff argument and its program's -p: the
 * gate then reads the diff strictly (patchpaths.h). */
static void test_manifest_patch_arg(void **state)
{
	(void)state;
	struct tc_error err;
	struct tc_defined *d =
	        load_path_args("[], \"patch_arg\": \"/file\", \"patch_strip\": 1", &err);
	assert_non_null(d);
	assert_string_equal(d->patch_arg, "/file");
	assert_int_equal(d->patch_strip, 1);
	tc_defined_unref(d);
	d = load_path_args("[], \"patch_arg\": \"/file\"", &err);
	assert_non_null(d);
	assert_int_equal(d->patch_strip, PATCH_STRIP_ANY);
	tc_defined_unref(d);
	assert_null(load_path_args("[], \"patch_strip\": 1", &err));
	assert_non_null(strstr(err.msg, "'patch_strip' is the -p"));
	assert_null(load_path_args("[], \"patch_arg\": \"/file\", \"patch_strip\": -1", &err));
	assert_null(load_path_args("[], \"patch_arg\": \"/nope\"", &err));
	assert_non_null(strstr(err.msg, "names no property"));
}

/* The shipped profiles are named after risks: a manifest may not take a
 * profile above its risk ("read-only" with the network profile ran with
 * the network while quarantine and the domain allowlist passed it). */
static void test_manifest_refuses_profile_above_its_risk(void **state)
{
	(void)state;
	struct tc_error err;
	assert_int_equal(load_risk_profile("read-only", "network", &err), -1);
	assert_non_null(strstr(err.msg, "'profile' \"network\" is the sandbox of risk network"));
	assert_int_equal(load_risk_profile("write", "destructive", &err), -1);
	assert_int_equal(load_risk_profile("read-only", "write", &err), -1);
	assert_int_equal(load_risk_profile("network", "network", &err), 0);
	assert_int_equal(load_risk_profile("destructive", "read-only", &err), 0);
	assert_int_equal(load_risk_profile("read-only", "my-profile", &err), 0);
}

/* Loads a manifest with the given "output" and extra keys (",..." or ""). */
static struct tc_defined *load_output(const char *output, const char *extra, struct tc_error *err)
{
	char path[] = "/tmp/tc-test-manifest-XXXXXX.json";
	int fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f,
	        "{\"name\":\"blocks\",\"description\":\"Prints content for the tests.\","
	        "\"parameters\":{\"type\":\"object\"},\"output\":\"%s\"%s,"
	        "\"command\":[\"/bin/true\"]}",
	        output, extra);
	fclose(f);
	memset(err, 0, sizeof *err);
	struct tc_defined *d = manifest_load_file(path, SCHEMA_DRAFT_AUTO, err);
	unlink(path);
	return d;
}

/* "output": "content" returns MCP content blocks, which no output schema
 * describes: the two together are refused. */
static void test_manifest_output_content(void **state)
{
	(void)state;
	struct tc_error err;
	struct tc_defined *d = load_output("content", "", &err);
	assert_non_null(d);
	assert_int_equal(d->output_mode, REG_OUTPUT_CONTENT);
	tc_defined_unref(d);
	assert_null(load_output("content", ",\"output_schema\":{\"type\":\"object\"}", &err));
	assert_non_null(strstr(err.msg, "returns content blocks"));
	assert_null(load_output("blocks", "", &err));
	assert_non_null(strstr(err.msg, "\"text\", \"json\" or \"content\""));
	/* A channel's answers come on stdin: no stdin template beside it. */
	d = load_output("text", ",\"channel\":true", &err);
	assert_non_null(d);
	assert_true(d->channel);
	tc_defined_unref(d);
	assert_null(load_output("text", ",\"channel\":true,\"stdin\":\"x\"", &err));
	assert_non_null(strstr(err.msg, "drop 'stdin'"));
}

static void test_manifest_missing_file_is_not_found(void **state)
{
	(void)state;
	struct tc_error err = { 0 };
	assert_null(manifest_load_file(fixture("valid/nope.json"), SCHEMA_DRAFT_AUTO, &err));
	assert_int_equal(err.code, TC_E_NOT_FOUND);
}

static void test_manifest_dir_lists_json_sorted(void **state)
{
	(void)state;
	char **paths;
	size_t n;
	assert_int_equal(manifest_list_dir(fixture("valid"), &paths, &n, NULL), 0);
	assert_int_equal(n, 3);
	assert_non_null(strstr(paths[0], "/fetch_page.json"));
	assert_non_null(strstr(paths[1], "/grep_file.json"));
	assert_non_null(strstr(paths[2], "/word_count.json"));
	manifest_paths_free(paths, n);
}

static void test_manifest_register_dir_loads_all_and_disposes_all(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	struct tc_disposer d;
	struct tc_error err = { 0 };
	assert_int_equal(manifest_register(reg, fixture("valid"), SCHEMA_DRAFT_AUTO, &d, &err), 0);
	assert_int_equal(tc_registry_count(reg), 3);
	assert_string_equal(tc_defined_name(tc_registry_at(reg, 0)), "fetch_page");
	tc_dispose(&d);
	assert_int_equal(tc_registry_count(reg), 0);
	tc_registry_free(reg);
}

static void test_manifest_register_invalid_dir_registers_nothing(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	struct tc_error err = { 0 };
	assert_int_equal(manifest_register(reg, fixture("invalid"), SCHEMA_DRAFT_AUTO, NULL, &err),
	                 -1);
	assert_int_equal(tc_registry_count(reg), 0);
	assert_true(err.msg[0] != '\0');
	tc_registry_free(reg);
}

/* ---- templating ----------------------------------------------------------- */

/* A manifest tool defined in place: command elements and stdin template. */
static struct tc_defined *tool_with(const char *const *cmd, size_t n, const char *stdin_tpl)
{
	json_t *params =
	        json_loads("{\"type\":\"object\",\"properties\":{"
	                   "\"pattern\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},"
	                   "\"paths\":{\"type\":\"array\"},\"count\":{\"type\":\"number\"},"
	                   "\"flag\":{\"type\":\"boolean\"},\"opts\":{\"type\":\"object\"},"
	                   "\"text\":{\"type\":\"string\"}}}",
	                   0, NULL);
	struct tc_tool t = { .name = "tpl_tool",
		             .description = "Run a templated command for tests." };
	struct reg_define_opts o = {
		.parameters = params, .command = cmd, .ncommand = n, .stdin_template = stdin_tpl
	};
	struct tc_error err = { 0 };
	struct tc_defined *d = reg_define(&t, &o, &err);
	json_decref(params);
	if (!d)
		fail_msg("%s", err.msg);
	return d;
}

/* Expands cmd with args (JSON text) and compares argv with want
 * (NULL-terminated). */
static void expect_argv(const char *const *cmd, size_t n, const char *args_text,
                        const char *const *want)
{
	struct tc_defined *d = tool_with(cmd, n, NULL);
	json_t *args = json_loads(args_text, 0, NULL);
	assert_non_null(args);
	struct manifest_call c;
	struct tc_error err = { 0 };
	if (manifest_expand(d, args, &c, &err))
		fail_msg("%s", err.msg);
	size_t i = 0;
	for (; want[i]; i++) {
		assert_true(i < c.argc);
		assert_string_equal(c.argv[i], want[i]);
	}
	assert_int_equal(c.argc, i);
	assert_null(c.argv[c.argc]);
	assert_null(c.stdin_data);
	manifest_call_release(&c);
	json_decref(args);
	tc_defined_unref(d);
}

static void test_template_fills_whole_element(void **state)
{
	(void)state;
	const char *cmd[] = { "/usr/bin/grep", "-n", "--", "{{pattern}}", "{{path}}" };
	const char *want[] = { "/usr/bin/grep", "-n", "--", "a b; rm -rf /", "x/$(id).txt", NULL };
	/* shell syntax is just bytes: there is no shell */
	expect_argv(cmd, 5, "{\"pattern\":\"a b; rm -rf /\",\"path\":\"x/$(id).txt\"}", want);
}

static void test_template_fills_part_of_element(void **state)
{
	(void)state;
	const char *cmd[] = { "/bin/x", "--file={{path}}", "{{pattern}}:{{path}}!" };
	const char *want[] = { "/bin/x", "--file=a.txt", "p:a.txt!", NULL };
	expect_argv(cmd, 3, "{\"pattern\":\"p\",\"path\":\"a.txt\"}", want);
}

static void test_template_expands_array_into_elements(void **state)
{
	(void)state;
	const char *cmd[] = { "/bin/ls", "--", "{{paths}}", "end" };
	const char *want[] = { "/bin/ls", "--", "a", "b c", "3", "end", NULL };
	expect_argv(cmd, 4, "{\"paths\":[\"a\",\"b c\",3]}", want);
}

/* A number with no fraction is an integer to JSON Schema: 20.0 is given
 * as 20, which the program parses; a fraction stays JSON text. */
static void test_template_whole_real_is_an_integer(void **state)
{
	(void)state;
	const char *cmd[] = { "/usr/bin/head", "-n", "{{count}}", "--max={{limit}}" };
	const char *want[] = { "/usr/bin/head", "-n", "20", "--max=1.5", NULL };
	expect_argv(cmd, 4, "{\"count\":20.0,\"limit\":1.5}", want);
}

static void test_template_empty_array_gives_no_element(void **state)
{
	(void)state;
	const char *cmd[] = { "/bin/ls", "{{paths}}" };
	const char *want[] = { "/bin/ls", NULL };
	expect_argv(cmd, 2, "{\"paths\":[]}", want);
}

static void test_template_array_inside_element_is_json(void **state)
{
	(void)state;
	const char *cmd[] = { "/bin/x", "--list={{paths}}" };
	const char *want[] = { "/bin/x", "--list=[\"a\",1]", NULL };
	expect_argv(cmd, 2, "{\"paths\":[\"a\",1]}", want);
}

static void test_template_missing_optional_drops_whole_element(void **state)
{
	(void)state;
	const char *cmd[] = { "/usr/bin/grep", "{{pattern}}", "{{path}}", "{{count}}" };
	const char *want[] = { "/usr/bin/grep", "x", NULL };
	expect_argv(cmd, 4, "{\"pattern\":\"x\",\"count\":null}", want);
}

static void test_template_missing_optional_inside_element_is_empty(void **state)
{
	(void)state;
	const char *cmd[] = { "/usr/bin/grep", "--max-count={{count}}", "[{{path}}]" };
	const char *want[] = { "/usr/bin/grep", "--max-count=", "[]", NULL };
	expect_argv(cmd, 3, "{}", want);
}

static void test_template_numbers_bools_objects_as_json_text(void **state)
{
	(void)state;
	const char *cmd[] = { "/bin/x", "{{count}}", "-n{{count}}", "{{flag}}", "{{opts}}" };
	const char *want[] = { "/bin/x", "42", "-n42", "false", "{\"a\":1}", NULL };
	expect_argv(cmd, 5, "{\"count\":42,\"flag\":false,\"opts\":{\"a\":1}}", want);
	const char *want2[] = { "/bin/x", "1.5", "-n1.5", "true", "{}", NULL };
	expect_argv(cmd, 5, "{\"count\":1.5,\"flag\":true,\"opts\":{}}", want2);
}

static void test_template_works_without_arguments(void **state)
{
	(void)state;
	const char *cmd[] = { "/bin/true", "{{path}}" };
	struct tc_defined *d = tool_with(cmd, 2, NULL);
	struct manifest_call c;
	assert_int_equal(manifest_expand(d, NULL, &c, NULL), 0);
	assert_int_equal(c.argc, 1);
	assert_string_equal(c.argv[0], "/bin/true");
	manifest_call_release(&c);
	tc_defined_unref(d);
}

static void test_template_fills_stdin(void **state)
{
	(void)state;
	const char *cmd[] = { "/usr/bin/wc" };
	struct tc_defined *d = tool_with(cmd, 1, "text: {{text}}\n{{count}}");
	json_t *args = json_pack("{s:s#,s:i}", "text", "a\0b", (int)3, "count", 7);
	struct manifest_call c;
	assert_int_equal(manifest_expand(d, args, &c, NULL), 0);
	assert_int_equal(c.argc, 1);
	/* stdin is bytes: a NUL in it is passed on */
	assert_int_equal(c.stdin_len, 11);
	assert_memory_equal(c.stdin_data, "text: a\0b\n7", 11);
	manifest_call_release(&c);
	json_decref(args);
	tc_defined_unref(d);
}

static void test_template_refuses_nul_in_argv(void **state)
{
	(void)state;
	const char *cmd[] = { "/bin/cat", "--", "{{path}}" };
	struct tc_defined *d = tool_with(cmd, 3, NULL);
	json_t *args = json_pack("{s:s#}", "path", "ok\0/etc/shadow", (int)14);
	struct manifest_call c;
	struct tc_error err = { 0 };
	assert_int_equal(manifest_expand(d, args, &c, &err), -1);
	assert_non_null(strstr(err.msg, "NUL byte"));
	assert_null(c.argv);
	json_decref(args);
	tc_defined_unref(d);
}

/* MAX_ARG_STRLEN (128 KiB) counts the element's NUL: 128 KiB - 1 bytes is
 * the most execve takes; exactly 128 KiB failed there with E2BIG. */
static void test_template_refuses_oversized_element(void **state)
{
	(void)state;
	const char *cmd[] = { "/bin/cat", "{{path}}" };
	struct tc_defined *d = tool_with(cmd, 2, NULL);
	for (size_t n = MANIFEST_ARG_MAX - 1; n <= MANIFEST_ARG_MAX + 1; n++) {
		char *big = malloc(n + 1);
		assert_non_null(big);
		memset(big, 'a', n);
		big[n] = '\0';
		json_t *args = json_pack("{s:s}", "path", big);
		struct manifest_call c;
		struct tc_error err = { 0 };
		if (n == MANIFEST_ARG_MAX - 1) {
			assert_int_equal(manifest_expand(d, args, &c, &err), 0);
			assert_int_equal(strlen(c.argv[1]), n);
			manifest_call_release(&c);
		} else {
			assert_int_equal(manifest_expand(d, args, &c, &err), -1);
			assert_non_null(strstr(err.msg, "the limit is 131071"));
		}
		json_decref(args);
		free(big);
	}
	tc_defined_unref(d);
}

static void test_template_refuses_too_many_elements(void **state)
{
	(void)state;
	const char *cmd[] = { "/bin/ls", "{{paths}}" };
	struct tc_defined *d = tool_with(cmd, 2, NULL);
	json_t *arr = json_array();
	for (int i = 0; i < MANIFEST_ARGC_MAX + 1; i++)
		json_array_append_new(arr, json_string("x"));
	json_t *args = json_pack("{s:o}", "paths", arr);
	struct manifest_call c;
	struct tc_error err = { 0 };
	assert_int_equal(manifest_expand(d, args, &c, &err), -1);
	assert_non_null(strstr(err.msg, "longer than"));
	json_decref(args);
	tc_defined_unref(d);
}

static void test_tpl_scanner_pieces(void **state)
{
	(void)state;
	const char *s = "a{{b}}c";
	struct manifest_piece p;
	assert_int_equal(manifest_tpl_next(&s, &p), 1);
	assert_int_equal(p.litlen, 1);
	assert_int_equal(p.namelen, 1);
	assert_memory_equal(p.name, "b", 1);
	assert_int_equal(manifest_tpl_next(&s, &p), 1);
	assert_int_equal(p.litlen, 1);
	assert_null(p.name);
	assert_int_equal(manifest_tpl_next(&s, &p), 0);
	assert_true(manifest_tpl_is_whole("{{path}}"));
	assert_false(manifest_tpl_is_whole("x{{path}}"));
	assert_false(manifest_tpl_is_whole("{{a}}{{b}}"));
	s = "{{unclosed";
	assert_int_equal(manifest_tpl_next(&s, &p), -1);
	s = "{{1abc}}";
	assert_int_equal(manifest_tpl_next(&s, &p), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manifest_loads_good_file),
		cmocka_unit_test(test_manifest_risk_list_means_highest),
		cmocka_unit_test(test_manifest_refuses_what_is_wrong),
		cmocka_unit_test(test_manifest_refuses_profile_above_its_risk),
		cmocka_unit_test(test_manifest_output_content),
		cmocka_unit_test(test_manifest_missing_file_is_not_found),
		cmocka_unit_test(test_manifest_dir_lists_json_sorted),
		cmocka_unit_test(test_manifest_register_dir_loads_all_and_disposes_all),
		cmocka_unit_test(test_manifest_path_args),
		cmocka_unit_test(test_manifest_patch_arg),
		cmocka_unit_test(test_manifest_register_invalid_dir_registers_nothing),
		cmocka_unit_test(test_template_fills_whole_element),
		cmocka_unit_test(test_template_fills_part_of_element),
		cmocka_unit_test(test_template_expands_array_into_elements),
		cmocka_unit_test(test_template_whole_real_is_an_integer),
		cmocka_unit_test(test_template_empty_array_gives_no_element),
		cmocka_unit_test(test_template_array_inside_element_is_json),
		cmocka_unit_test(test_template_missing_optional_drops_whole_element),
		cmocka_unit_test(test_template_missing_optional_inside_element_is_empty),
		cmocka_unit_test(test_template_numbers_bools_objects_as_json_text),
		cmocka_unit_test(test_template_works_without_arguments),
		cmocka_unit_test(test_template_fills_stdin),
		cmocka_unit_test(test_template_refuses_nul_in_argv),
		cmocka_unit_test(test_template_refuses_oversized_element),
		cmocka_unit_test(test_template_refuses_too_many_elements),
		cmocka_unit_test(test_tpl_scanner_pieces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
