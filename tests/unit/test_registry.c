/* test_registry.c — the define checks, registration, disposers, plugins and
 * their risk caps, references that outlive unregistering, and exports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "toolcage.h"
#include "util.h"

static int noop_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	(void)ctx, (void)args, (void)out;
	return 0;
}

#define PARAMS                                                                                     \
	"{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","                      \
	"\"description\":\"File path, e.g. \\\"a/b.txt\\\"\"}},\"required\":[\"path\"]}"

static struct tc_tool good_tool(const char *name)
{
	return (struct tc_tool){
		.name = name,
		.description = "Read a text file from the workspace and return its contents.",
		.parameters = PARAMS,
		.execute = noop_exec,
	};
}

/* Defines t and expects a refusal whose message contains want. */
static void expect_refused(const struct tc_tool *t, const char *want)
{
	struct tc_error err = { 0 };
	struct tc_defined *d = tc_tool_define(t, &err);
	assert_null(d);
	assert_int_equal(err.code, TC_E_INVALID);
	if (!strstr(err.msg, want))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
}

static void test_define_accepts_good_tool(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_file");
	struct tc_error err = { 0 };
	struct tc_defined *d = tc_tool_define(&t, &err);
	assert_non_null(d);
	assert_string_equal(tc_defined_name(d), "read_file");
	assert_int_equal(tc_defined_risk(d), TC_RISK_READ_ONLY);
	assert_true(json_is_object(d->parameters));
	assert_non_null(d->schema);
	tc_defined_unref(d);
}

static void test_define_copies_strings(void **state)
{
	(void)state;
	char name[] = "read_file";
	struct tc_tool t = good_tool(name);
	struct tc_defined *d = tc_tool_define(&t, NULL);
	assert_non_null(d);
	name[0] = 'x';
	assert_string_equal(tc_defined_name(d), "read_file");
	tc_defined_unref(d);
}

static void test_define_refuses_uppercase_name(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("ReadFile");
	expect_refused(&t, "name must match");
}

static void test_define_refuses_name_starting_with_digit(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("1read");
	expect_refused(&t, "name must match");
}

static void test_define_refuses_name_with_dash(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read-file");
	expect_refused(&t, "name must match");
}

static void test_define_name_length_limit_is_64(void **state)
{
	(void)state;
	char name[66];
	memset(name, 'a', 64);
	name[64] = '\0';
	struct tc_tool t = good_tool(name);
	struct tc_defined *d = tc_tool_define(&t, NULL);
	assert_non_null(d);
	tc_defined_unref(d);
	name[64] = 'a', name[65] = '\0';
	expect_refused(&t, "at most 64");
}

static void test_define_refuses_missing_name(void **state)
{
	(void)state;
	struct tc_tool t = good_tool(NULL);
	expect_refused(&t, "no name");
}

static void test_define_refuses_short_description(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_file");
	t.description = "Reads it.";
	expect_refused(&t, "at least 10");
}

static void test_define_counts_description_in_characters(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_file");
	/* 10 characters, 20 bytes: passes the minimum */
	t.description = "\xd1\x87\xd0\xb8\xd1\x82\xd0\xb0\xd0\xb9 \xd1\x84\xd0\xb0\xd0\xb9\xd0\xbb";
	struct tc_defined *d = tc_tool_define(&t, NULL);
	assert_non_null(d);
	tc_defined_unref(d);
}

static void test_define_refuses_long_description(void **state)
{
	(void)state;
	char *desc = malloc(2050);
	memset(desc, 'x', 2049);
	desc[2049] = '\0';
	memcpy(desc, "Read ", 5);
	struct tc_tool t = good_tool("read_file");
	t.description = desc;
	expect_refused(&t, "at most 2048");
	desc[2048] = '\0';
	struct tc_defined *d = tc_tool_define(&t, NULL);
	assert_non_null(d);
	tc_defined_unref(d);
	free(desc);
}

static void test_define_refuses_description_that_is_just_the_name(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_text_file");
	t.description = "Read text file.";
	expect_refused(&t, "only repeats the name");
}

static void test_define_refuses_invalid_utf8_description(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_file");
	t.description = "Read a file \xc0\xaf overlong slash";
	expect_refused(&t, "not valid UTF-8");
}

static void test_define_refuses_missing_parameters(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_file");
	t.parameters = NULL;
	expect_refused(&t, "no parameters schema");
}

static void test_define_refuses_parameters_that_are_not_json(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_file");
	t.parameters = "{\"type\": \"object\",";
	expect_refused(&t, "parameters is not JSON");
}

static void test_define_refuses_non_object_root(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_file");
	t.parameters = "{\"type\": \"string\"}";
	expect_refused(&t, "root must be an object schema");
	t.parameters = "true";
	expect_refused(&t, "root must be an object schema");
}

static void test_define_refuses_schema_against_metaschema(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_file");
	t.parameters = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"strnig\"}}}";
	expect_refused(&t, "parameters refused at");
}

static void test_define_refuses_unenforced_keyword(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_file");
	t.parameters = "{\"type\":\"object\",\"unevaluatedProperties\":false}";
	struct tc_error err = { 0 };
	assert_null(tc_tool_define(&t, &err));
	assert_non_null(strstr(err.msg, "unevaluatedProperties"));
}

static void test_define_refuses_bad_output_schema(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_file");
	t.output_schema = "{\"type\":\"array\"}";
	expect_refused(&t, "output_schema root must be an object schema");
}

static void test_define_refuses_missing_execute(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_file");
	t.execute = NULL;
	expect_refused(&t, "nothing runs it");
}

static void test_define_refuses_risk_out_of_range(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_file");
	t.risk = (enum tc_risk)7;
	expect_refused(&t, "not a risk level");
}

static void test_define_refuses_profile_path(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_file");
	t.profile = "../../etc/evil";
	expect_refused(&t, "not a profile name");
}

static void test_define_refuses_url_arg_without_property(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("fetch_url");
	t.risk = TC_RISK_NETWORK;
	t.url_arg = "/url";
	expect_refused(&t, "names no property");
	t.url_arg = "/path";
	struct tc_defined *d = tc_tool_define(&t, NULL);
	assert_non_null(d);
	tc_defined_unref(d);
}

static void test_define_error_names_tool(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_file");
	t.description = "short";
	struct tc_error err = { 0 };
	assert_null(tc_tool_define(&t, &err));
	assert_string_equal(err.where, "read_file");
	assert_non_null(strstr(err.msg, "tool 'read_file'"));
}

/* ---- registry ------------------------------------------------------------ */

static struct tc_defined *def(const char *name, enum tc_risk risk)
{
	struct tc_tool t = good_tool(name);
	t.risk = risk;
	struct tc_defined *d = tc_tool_define(&t, NULL);
	assert_non_null(d);
	return d;
}

static void test_registry_refuses_duplicate_name(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	struct tc_defined *first = def("read_file", TC_RISK_READ_ONLY);
	assert_int_equal(tc_registry_add(reg, tc_defined_ref(first), NULL, NULL), 0);
	struct tc_error err = { 0 };
	struct tc_disposer d = { 0 };
	assert_int_equal(tc_registry_add(reg, def("read_file", TC_RISK_WRITE), &d, &err), -1);
	assert_int_equal(err.code, TC_E_DUPLICATE);
	assert_non_null(strstr(err.msg, "already registered"));
	assert_null(d.fn);
	/* no silent replace: the first stays */
	assert_int_equal(tc_registry_count(reg), 1);
	assert_ptr_equal(tc_registry_at(reg, 0), first);
	tc_defined_unref(first);
	tc_registry_free(reg);
}

static void test_registry_add_takes_tool_even_on_failure(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	assert_int_equal(tc_registry_add(reg, def("read_file", 0), NULL, NULL), 0);
	struct tc_defined *dup = def("read_file", 0);
	tc_defined_ref(dup);
	assert_int_equal(dup->refs, 2);
	assert_int_equal(tc_registry_add(reg, dup, NULL, NULL), -1);
	assert_int_equal(dup->refs, 1); /* the registry dropped the one it took */
	tc_defined_unref(dup);
	tc_registry_free(reg);
}

static void test_registry_keeps_registration_order(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	const char *names[] = { "write_file", "append_log", "read_file" };
	for (int i = 0; i < 3; i++)
		assert_int_equal(tc_registry_add(reg, def(names[i], 0), NULL, NULL), 0);
	for (int i = 0; i < 3; i++)
		assert_string_equal(tc_defined_name(tc_registry_at(reg, i)), names[i]);
	assert_null(tc_registry_at(reg, 3));
	tc_registry_free(reg);
}

static void test_disposer_unregisters_tool(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	struct tc_disposer d1, d2;
	assert_int_equal(tc_registry_add(reg, def("read_file", 0), &d1, NULL), 0);
	assert_int_equal(tc_registry_add(reg, def("list_dir", 0), &d2, NULL), 0);
	tc_dispose(&d1);
	assert_int_equal(tc_registry_count(reg), 1);
	assert_null(tc_registry_get(reg, "read_file"));
	assert_string_equal(tc_defined_name(tc_registry_at(reg, 0)), "list_dir");
	json_t *list = tc_registry_export(reg, TC_EXPORT_MCP);
	assert_int_equal(json_array_size(list), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "name")),
	                    "list_dir");
	json_decref(list);
	/* the name is free again */
	assert_int_equal(tc_registry_add(reg, def("read_file", 0), NULL, NULL), 0);
	tc_dispose(&d2);
	tc_registry_free(reg);
}

static void test_dispose_twice_is_noop(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	struct tc_disposer d;
	assert_int_equal(tc_registry_add(reg, def("read_file", 0), &d, NULL), 0);
	assert_int_equal(tc_registry_add(reg, def("list_dir", 0), NULL, NULL), 0);
	tc_dispose(&d);
	uint64_t gen = tc_registry_generation(reg);
	tc_dispose(&d);
	assert_int_equal(tc_registry_count(reg), 1);
	assert_int_equal(tc_registry_generation(reg), gen);
	tc_registry_free(reg);
}

static void test_dispose_zeroed_or_null_is_noop(void **state)
{
	(void)state;
	struct tc_disposer d = { 0 };
	tc_dispose(&d);
	tc_dispose(NULL);
	tc_registry_free(NULL);
	tc_defined_unref(NULL);
	assert_null(d.fn);
}

static void test_reference_outlives_unregister(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	struct tc_disposer d;
	assert_int_equal(tc_registry_add(reg, def("read_file", 0), &d, NULL), 0);
	struct tc_defined *inflight = tc_registry_get(reg, "read_file");
	assert_non_null(inflight);
	tc_dispose(&d);
	tc_registry_free(reg);
	/* the call in flight still sees a whole tool */
	assert_string_equal(tc_defined_name(inflight), "read_file");
	assert_non_null(inflight->schema);
	assert_int_equal(inflight->refs, 1);
	tc_defined_unref(inflight);
}

static void test_registry_get_unknown_is_null(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	assert_null(tc_registry_get(reg, "nope"));
	assert_null(tc_registry_get(reg, NULL));
	tc_registry_free(reg);
}

static const struct tc_tool fs_tools[] = {
	{ .name = "read_file",
	  .description = "Read a text file and return its contents.",
	  .parameters = PARAMS,
	  .execute = noop_exec },
	{ .name = "write_file",
	  .description = "Write text to a file, replacing its contents.",
	  .parameters = PARAMS,
	  .risk = TC_RISK_WRITE,
	  .execute = noop_exec },
	{ .name = "delete_path",
	  .description = "Delete a file or an empty directory.",
	  .parameters = PARAMS,
	  .risk = TC_RISK_DESTRUCTIVE,
	  .execute = noop_exec },
};

static void test_plugin_dispose_removes_all(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	assert_int_equal(tc_registry_add(reg, def("other_tool", 0), NULL, NULL), 0);
	struct tc_plugin p = { "fs", TC_RISK_DESTRUCTIVE, fs_tools, 3 };
	struct tc_disposer d;
	assert_int_equal(tc_plugin_load(reg, &p, &d, NULL), 0);
	assert_int_equal(tc_registry_count(reg), 4);
	tc_dispose(&d);
	assert_int_equal(tc_registry_count(reg), 1);
	assert_string_equal(tc_defined_name(tc_registry_at(reg, 0)), "other_tool");
	tc_dispose(&d);
	assert_int_equal(tc_registry_count(reg), 1);
	tc_registry_free(reg);
}

static void test_plugin_refuses_tool_above_risk_cap(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	struct tc_plugin p = { "fs", TC_RISK_WRITE, fs_tools, 3 };
	struct tc_error err = { 0 };
	struct tc_disposer d;
	assert_int_equal(tc_plugin_load(reg, &p, &d, &err), -1);
	assert_non_null(strstr(err.msg, "delete_path"));
	assert_non_null(strstr(err.msg, "destructive, above the plugin's risk cap write"));
	/* all or nothing: the two tools under the cap were not registered */
	assert_int_equal(tc_registry_count(reg), 0);
	assert_null(d.fn);
	tc_registry_free(reg);
}

static void test_plugin_accepts_tools_at_cap(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	struct tc_plugin p = { "fs", TC_RISK_WRITE, fs_tools, 2 };
	assert_int_equal(tc_plugin_load(reg, &p, NULL, NULL), 0);
	assert_int_equal(tc_registry_count(reg), 2);
	tc_registry_free(reg);
}

static void test_plugin_refuses_all_when_one_tool_is_bad(void **state)
{
	(void)state;
	struct tc_tool tools[2] = { fs_tools[0], fs_tools[1] };
	tools[1].description = "Write.";
	struct tc_registry *reg = tc_registry_new();
	struct tc_plugin p = { "fs", TC_RISK_DESTRUCTIVE, tools, 2 };
	struct tc_error err = { 0 };
	assert_int_equal(tc_plugin_load(reg, &p, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "plugin 'fs' refused: tool 'write_file'"));
	assert_int_equal(tc_registry_count(reg), 0);
	tc_registry_free(reg);
}

static void test_plugin_refuses_name_clash_with_registered(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	assert_int_equal(tc_registry_add(reg, def("write_file", 0), NULL, NULL), 0);
	struct tc_plugin p = { "fs", TC_RISK_DESTRUCTIVE, fs_tools, 3 };
	struct tc_error err = { 0 };
	assert_int_equal(tc_plugin_load(reg, &p, NULL, &err), -1);
	assert_int_equal(err.code, TC_E_DUPLICATE);
	assert_int_equal(tc_registry_count(reg), 1);
	tc_registry_free(reg);
}

static void test_plugin_refuses_same_name_twice(void **state)
{
	(void)state;
	struct tc_tool tools[2] = { fs_tools[0], fs_tools[0] };
	struct tc_registry *reg = tc_registry_new();
	struct tc_plugin p = { "fs", TC_RISK_DESTRUCTIVE, tools, 2 };
	struct tc_error err = { 0 };
	assert_int_equal(tc_plugin_load(reg, &p, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "defined twice"));
	assert_int_equal(tc_registry_count(reg), 0);
	tc_registry_free(reg);
}

static void test_generation_counts_changes(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	assert_int_equal(tc_registry_generation(reg), 0);
	struct tc_disposer d;
	assert_int_equal(tc_registry_add(reg, def("read_file", 0), &d, NULL), 0);
	assert_int_equal(tc_registry_generation(reg), 1);
	assert_int_equal(tc_registry_add(reg, def("read_file", 0), NULL, NULL), -1);
	assert_int_equal(tc_registry_generation(reg), 1); /* a refusal changes nothing */
	tc_dispose(&d);
	assert_int_equal(tc_registry_generation(reg), 2);
	tc_registry_free(reg);
}

static void count_calls(void *data, struct tc_registry *reg)
{
	(void)reg;
	(*(int *)data)++;
}

static void test_watch_sees_changes_until_disposed(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	int calls = 0;
	struct tc_disposer w, d;
	assert_int_equal(tc_registry_watch(reg, count_calls, &calls, &w, NULL), 0);
	struct tc_plugin p = { "fs", TC_RISK_DESTRUCTIVE, fs_tools, 3 };
	assert_int_equal(tc_plugin_load(reg, &p, &d, NULL), 0);
	assert_int_equal(calls, 1); /* a plugin is one change */
	tc_dispose(&d);
	assert_int_equal(calls, 2);
	tc_dispose(&w);
	assert_int_equal(tc_registry_add(reg, def("read_file", 0), NULL, NULL), 0);
	assert_int_equal(calls, 2);
	tc_registry_free(reg);
}

/* ---- exports ------------------------------------------------------------- */

static void assert_json(json_t *got, const char *want_text)
{
	json_t *want = json_loads(want_text, 0, NULL);
	assert_non_null(want);
	if (!json_equal(got, want)) {
		char *g = json_dumps(got, JSON_SORT_KEYS);
		fail_msg("got %s", g);
	}
	json_decref(want);
}

static void test_export_mcp_shape(void **state)
{
	(void)state;
	struct tc_tool t = good_tool("read_file");
	t.title = "Read file";
	t.output_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}";
	struct tc_defined *d = tc_tool_define(&t, NULL);
	assert_non_null(d);
	json_t *o = tc_defined_export(d, TC_EXPORT_MCP);
	assert_json(
	        o,
	        "{\"name\":\"read_file\",\"title\":\"Read file\","
	        "\"description\":\"Read a text file from the workspace and return its contents.\","
	        "\"inputSchema\":" PARAMS ","
	        "\"outputSchema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}},"
	        "\"annotations\":{\"readOnlyHint\":true,\"destructiveHint\":false,"
	        "\"idempotentHint\":true,\"openWorldHint\":false}}");
	json_decref(o);
	tc_defined_unref(d);
}

static void test_export_mcp_omits_absent_title_and_output(void **state)
{
	(void)state;
	struct tc_defined *d = def("read_file", 0);
	json_t *o = tc_defined_export(d, TC_EXPORT_MCP);
	assert_null(json_object_get(o, "title"));
	assert_null(json_object_get(o, "outputSchema"));
	assert_int_equal(json_object_size(o), 4);
	json_decref(o);
	tc_defined_unref(d);
}

static void check_annotations(enum tc_risk risk, bool idem, const char *want)
{
	struct tc_tool t = good_tool("some_tool");
	t.risk = risk;
	t.idempotent = idem;
	struct tc_defined *d = tc_tool_define(&t, NULL);
	assert_non_null(d);
	json_t *o = tc_defined_export(d, TC_EXPORT_MCP);
	assert_json(json_object_get(o, "annotations"), want);
	json_decref(o);
	tc_defined_unref(d);
}

static void test_export_mcp_annotations_for_each_risk(void **state)
{
	(void)state;
	check_annotations(
	        TC_RISK_READ_ONLY, false,
	        "{\"readOnlyHint\":true,\"destructiveHint\":false,\"idempotentHint\":true,\"openWorldHint\":false}");
	check_annotations(
	        TC_RISK_WRITE, false,
	        "{\"readOnlyHint\":false,\"destructiveHint\":false,\"idempotentHint\":false,\"openWorldHint\":false}");
	check_annotations(
	        TC_RISK_WRITE, true,
	        "{\"readOnlyHint\":false,\"destructiveHint\":false,\"idempotentHint\":true,\"openWorldHint\":false}");
	check_annotations(
	        TC_RISK_NETWORK, false,
	        "{\"readOnlyHint\":false,\"destructiveHint\":false,\"idempotentHint\":false,\"openWorldHint\":true}");
	check_annotations(
	        TC_RISK_DESTRUCTIVE, true,
	        "{\"readOnlyHint\":false,\"destructiveHint\":true,\"idempotentHint\":true,\"openWorldHint\":false}");
	check_annotations(
	        TC_RISK_DESTRUCTIVE, false,
	        "{\"readOnlyHint\":false,\"destructiveHint\":true,\"idempotentHint\":false,\"openWorldHint\":false}");
}

static void test_export_openai_shape(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	assert_int_equal(tc_registry_add(reg, def("read_file", 0), NULL, NULL), 0);
	json_t *a = tc_registry_export(reg, TC_EXPORT_OPENAI);
	assert_json(
	        a,
	        "[{\"type\":\"function\",\"function\":{\"name\":\"read_file\","
	        "\"description\":\"Read a text file from the workspace and return its contents.\","
	        "\"parameters\":" PARAMS "}}]");
	json_decref(a);
	tc_registry_free(reg);
}

static void test_export_is_a_deep_copy(void **state)
{
	(void)state;
	struct tc_defined *d = def("read_file", 0);
	json_t *o = tc_defined_export(d, TC_EXPORT_MCP);
	json_object_set_new(json_object_get(o, "inputSchema"), "type", json_string("array"));
	assert_string_equal(json_string_value(json_object_get(d->parameters, "type")), "object");
	json_decref(o);
	tc_defined_unref(d);
}

static void test_export_text_lists_tools_and_parameters(void **state)
{
	(void)state;
	struct tc_registry *reg = tc_registry_new();
	json_t *s = tc_registry_export(reg, TC_EXPORT_TEXT);
	assert_string_equal(json_string_value(s), "(no tools)\n");
	json_decref(s);
	assert_int_equal(tc_registry_add(reg, def("read_file", TC_RISK_WRITE), NULL, NULL), 0);
	s = tc_registry_export(reg, TC_EXPORT_TEXT);
	assert_string_equal(json_string_value(s),
	                    "read_file [write]\n"
	                    "  Read a text file from the workspace and return its contents.\n"
	                    "  - path (string, required): File path, e.g. \"a/b.txt\"\n");
	json_decref(s);
	tc_registry_free(reg);
}

/* A parameter's description, which no rule bounds, is cut in the text
 * as a tool's is bounded (REG_DESC_MAX characters), between characters,
 * saying how many it left out. */
static void test_export_text_bounds_parameter_descriptions(void **state)
{
	(void)state;
	enum { LONG = 5000 };
	struct buf params = BUF_INIT;
	buf_adds(&params,
	         "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":"
	         "\"string\",\"description\":\"");
	for (int i = 0; i < LONG; i++)
		buf_adds(&params, "\u00e9");
	buf_adds(&params, "\"}}}");
	struct tc_tool t = good_tool("read_file");
	t.parameters = params.data;
	struct tc_error err = { 0 };
	struct tc_defined *d = tc_tool_define(&t, &err);
	if (!d)
		fail_msg("define: %s", err.msg);
	json_t *s = tc_defined_export(d, TC_EXPORT_TEXT);
	const char *text = json_string_value(s);
	assert_non_null(text);
	const char *line = strstr(text, "  - path (string): ");
	assert_non_null(line);
	line += strlen("  - path (string): ");
	char tail[64];
	snprintf(tail, sizeof tail, "... [%d more characters]\n", LONG - 2048);
	assert_int_equal(strlen(line), (size_t)2048 * 2 + strlen(tail));
	assert_string_equal(line + (size_t)2048 * 2, tail);
	json_decref(s);
	tc_defined_unref(d);
	buf_release(&params);
}

static void test_export_format_and_risk_names_parse(void **state)
{
	(void)state;
	enum tc_export_format f;
	assert_int_equal(tc_export_format_parse("openai", &f), 0);
	assert_int_equal(f, TC_EXPORT_OPENAI);
	assert_int_equal(tc_export_format_parse("yaml", &f), -1);
	enum tc_risk r;
	for (int i = 0; i <= TC_RISK_DESTRUCTIVE; i++) {
		assert_int_equal(tc_risk_parse(tc_risk_name((enum tc_risk)i), &r), 0);
		assert_int_equal(r, i);
	}
	assert_int_equal(tc_risk_parse("dangerous", &r), -1);
	assert_int_equal(tc_risk_parse(NULL, &r), -1);
	assert_string_equal(tc_risk_name((enum tc_risk)9), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_define_accepts_good_tool),
		cmocka_unit_test(test_define_copies_strings),
		cmocka_unit_test(test_define_refuses_uppercase_name),
		cmocka_unit_test(test_define_refuses_name_starting_with_digit),
		cmocka_unit_test(test_define_refuses_name_with_dash),
		cmocka_unit_test(test_define_name_length_limit_is_64),
		cmocka_unit_test(test_define_refuses_missing_name),
		cmocka_unit_test(test_define_refuses_short_description),
		cmocka_unit_test(test_define_counts_description_in_characters),
		cmocka_unit_test(test_define_refuses_long_description),
		cmocka_unit_test(test_define_refuses_description_that_is_just_the_name),
		cmocka_unit_test(test_define_refuses_invalid_utf8_description),
		cmocka_unit_test(test_define_refuses_missing_parameters),
		cmocka_unit_test(test_define_refuses_parameters_that_are_not_json),
		cmocka_unit_test(test_define_refuses_non_object_root),
		cmocka_unit_test(test_define_refuses_schema_against_metaschema),
		cmocka_unit_test(test_define_refuses_unenforced_keyword),
		cmocka_unit_test(test_define_refuses_bad_output_schema),
		cmocka_unit_test(test_define_refuses_missing_execute),
		cmocka_unit_test(test_define_refuses_risk_out_of_range),
		cmocka_unit_test(test_define_refuses_profile_path),
		cmocka_unit_test(test_define_refuses_url_arg_without_property),
		cmocka_unit_test(test_define_error_names_tool),
		cmocka_unit_test(test_registry_refuses_duplicate_name),
		cmocka_unit_test(test_registry_add_takes_tool_even_on_failure),
		cmocka_unit_test(test_registry_keeps_registration_order),
		cmocka_unit_test(test_disposer_unregisters_tool),
		cmocka_unit_test(test_dispose_twice_is_noop),
		cmocka_unit_test(test_dispose_zeroed_or_null_is_noop),
		cmocka_unit_test(test_reference_outlives_unregister),
		cmocka_unit_test(test_registry_get_unknown_is_null),
		cmocka_unit_test(test_plugin_dispose_removes_all),
		cmocka_unit_test(test_plugin_refuses_tool_above_risk_cap),
		cmocka_unit_test(test_plugin_accepts_tools_at_cap),
		cmocka_unit_test(test_plugin_refuses_all_when_one_tool_is_bad),
		cmocka_unit_test(test_plugin_refuses_name_clash_with_registered),
		cmocka_unit_test(test_plugin_refuses_same_name_twice),
		cmocka_unit_test(test_generation_counts_changes),
		cmocka_unit_test(test_watch_sees_changes_until_disposed),
		cmocka_unit_test(test_export_mcp_shape),
		cmocka_unit_test(test_export_mcp_omits_absent_title_and_output),
		cmocka_unit_test(test_export_mcp_annotations_for_each_risk),
		cmocka_unit_test(test_export_openai_shape),
		cmocka_unit_test(test_export_is_a_deep_copy),
		cmocka_unit_test(test_export_text_lists_tools_and_parameters),
		cmocka_unit_test(test_export_text_bounds_parameter_descriptions),
		cmocka_unit_test(test_export_format_and_risk_names_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
