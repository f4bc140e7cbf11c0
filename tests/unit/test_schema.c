/* test_schema.c — the validator's contract beyond single keywords:
 * dialect choice, compile refusals (each names keyword and location),
 * metaschema checks, diagnostics text and pointers, caps, limits ($ref
 * cycles, nesting depth, regex budgets, oneOf/anyOf nesting), asserted
 * formats, and the API's ownership rules. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <time.h>
#include <cmocka.h>

#include "schema_test.h"

#define D7   SCHEMA_DRAFT_07
#define D20  SCHEMA_DRAFT_2020_12
#define AUTO SCHEMA_DRAFT_AUTO

static const char *tool_schema = "{\"type\":\"object\",\"properties\":{"
                                 "\"path\":{\"type\":\"string\",\"pattern\":\"^/\"},"
                                 "\"mode\":{\"enum\":[\"read\",\"write\"]},"
                                 "\"count\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10},"
                                 "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
                                 "\"force\":{\"type\":\"boolean\"}},"
                                 "\"required\":[\"path\",\"mode\"],\"additionalProperties\":false}";

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The CPU time this process has used: what a check of the validator's
 * cost measures, so that a loaded machine (time spent waiting for a CPU)
 * does not fail it. The regex budget is wall time and is timed so. */
static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- dialects ---------------------------------------------------------- */

static void test_draft_defaults_to_2020_12(void **st)
{
	(void)st;
	struct schema *s = compile_ok("{\"type\":\"string\"}", AUTO);
	assert_int_equal(schema_draft_of(s), D20);
	schema_free(s);
}

static void test_draft_from_schema_keyword(void **st)
{
	(void)st;
	struct schema *s =
	        compile_ok("{\"$schema\":\"http://json-schema.org/draft-07/schema#\"}", AUTO);
	assert_int_equal(schema_draft_of(s), D7);
	schema_free(s);
	s = compile_ok("{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\"}", AUTO);
	assert_int_equal(schema_draft_of(s), D20);
	schema_free(s);
}

static void test_draft_override_beats_schema_keyword(void **st)
{
	(void)st;
	const char *t =
	        "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"items\":[{}]}";
	struct schema *s = compile_ok(t, D7); /* tuple items: draft-07 only */
	assert_int_equal(schema_draft_of(s), D7);
	schema_free(s);
	compile_fails(t, AUTO, "/items", "prefixItems");
}

static void test_unknown_schema_uri_is_refused(void **st)
{
	(void)st;
	compile_fails("{\"$schema\":\"http://json-schema.org/draft-04/schema#\"}", AUTO, "/$schema",
	              "unsupported $schema", "draft-04");
}

static void test_document_is_kept_by_reference(void **st)
{
	(void)st;
	json_t *doc = parse_json("{\"type\":\"string\"}");
	struct tc_error err;
	struct schema *s = schema_compile(doc, AUTO, &err);
	assert_non_null(s);
	assert_ptr_equal(schema_document(s), doc);
	json_decref(doc); /* the schema's own reference keeps it alive */
	assert_true(json_is_object(schema_document(s)));
	json_t *inst = json_string("x");
	assert_int_equal(schema_validate(s, inst, NULL, 0), 1);
	json_decref(inst);
	schema_free(s);
	schema_free(NULL);
}

/* ---- refusals ------------------------------------------------------------ */

static void test_unevaluated_properties_refused_with_location(void **st)
{
	(void)st;
	compile_fails("{\"properties\":{\"a\":{\"unevaluatedProperties\":false}}}", AUTO,
	              "/properties/a/unevaluatedProperties", "unevaluatedProperties",
	              "not supported");
	compile_fails("{\"unevaluatedItems\":false}", D7, "/unevaluatedItems", "unevaluatedItems");
}

static void test_dynamic_and_recursive_refs_refused_in_user_schemas(void **st)
{
	(void)st;
	compile_fails("{\"$dynamicRef\":\"#meta\"}", AUTO, "/$dynamicRef", "$dynamicRef");
	compile_fails("{\"$recursiveRef\":\"#\"}", AUTO, "/$recursiveRef", "$recursiveRef");
}

static void test_remote_ref_refused(void **st)
{
	(void)st;
	compile_fails("{\"properties\":{\"a\":{\"$ref\":\"https://example.com/s.json\"}}}", AUTO,
	              "/properties/a/$ref", "cannot resolve", "https://example.com/s.json");
	compile_fails("{\"$ref\":\"other.json#/x\"}", AUTO, "/$ref", "other.json");
}

static void test_dangling_pointer_and_anchor_refused(void **st)
{
	(void)st;
	compile_fails("{\"$ref\":\"#/$defs/nope\"}", AUTO, "/$ref", "points at nothing");
	compile_fails("{\"$ref\":\"#nope\"}", AUTO, "/$ref", "no anchor");
}

static void test_other_drafts_keywords_refused(void **st)
{
	(void)st;
	compile_fails("{\"prefixItems\":[{}]}", D7, "/prefixItems", "not a draft-07 keyword");
	compile_fails("{\"dependentRequired\":{}}", D7, "/dependentRequired", "dependencies");
	compile_fails("{\"minContains\":1}", D7, "/minContains", "2020-12");
	compile_fails("{\"additionalItems\":false}", D20, "/additionalItems", "prefixItems");
	compile_fails("{\"items\":[{}]}", D20, "/items", "prefixItems");
}

static void test_draft04_boolean_exclusive_maximum_refused(void **st)
{
	(void)st;
	compile_fails("{\"maximum\":5,\"exclusiveMaximum\":true}", D7, "/exclusiveMaximum",
	              "draft-04");
	compile_fails("{\"exclusiveMinimum\":false}", D20, "/exclusiveMinimum", "draft-04");
}

static void test_keyword_case_typo_refused(void **st)
{
	(void)st;
	compile_fails("{\"properties\":{\"a\":{\"maxlength\":3}}}", AUTO, "/properties/a/maxlength",
	              "did you mean 'maxLength'");
}

static void test_draft07_assertions_beside_ref_refused(void **st)
{
	(void)st;
	compile_fails(
	        "{\"definitions\":{\"a\":{}},\"$ref\":\"#/definitions/a\",\"type\":\"string\"}", D7,
	        "/type", "beside '$ref'");
	/* annotations and definitions beside $ref are fine */
	struct schema *s = compile_ok("{\"definitions\":{\"a\":{\"type\":\"string\"}},"
	                              "\"$ref\":\"#/definitions/a\",\"description\":\"d\"}",
	                              D7);
	assert_int_equal(check_instance(s, "1"), 0);
	schema_free(s);
}

static void test_bad_keyword_values_refused_with_location(void **st)
{
	(void)st;
	compile_fails("{\"type\":\"strng\"}", AUTO, "/type", "unknown type 'strng'");
	compile_fails("{\"minLength\":-1}", AUTO, "/minLength", "non-negative integer");
	compile_fails("{\"multipleOf\":0}", AUTO, "/multipleOf", "greater than 0");
	compile_fails("{\"properties\":{\"a\":{\"pattern\":\"(\"}}}", AUTO, "/properties/a/pattern",
	              "invalid regular expression");
	compile_fails("{\"patternProperties\":{\"[\":{}}}", AUTO, "/patternProperties/[",
	              "invalid regular expression");
	compile_fails("{\"allOf\":[]}", AUTO, "/allOf", "non-empty");
	compile_fails("{\"not\":5}", AUTO, "/not", "must hold a schema");
	compile_fails("5", AUTO, "", "object or a boolean");
}

static void test_metaschema_violations_refused(void **st)
{
	(void)st;
	compile_fails("{\"title\":5}", D20, "/title", "not a valid 2020-12 schema",
	              "/title: expected string");
	compile_fails("{\"required\":[\"a\",\"a\"]}", D7, "/required",
	              "not a valid draft-07 schema");
	compile_fails("{\"enum\":[]}", D7, "/enum", "draft-07");
	compile_fails("{\"properties\":{\"a\":{\"examples\":{}}}}", D20, "/properties/a/examples",
	              "expected array");
}

/* ---- diagnostics ---------------------------------------------------------- */

static void test_diag_missing_required_at_root(void **st)
{
	(void)st;
	expect_text(tool_schema, "{\"mode\":\"read\"}", "/: missing required property 'path'");
}

static void test_diag_type_mismatch_with_pointer(void **st)
{
	(void)st;
	expect_text(tool_schema, "{\"path\":5,\"mode\":\"read\"}",
	            "/path: expected string, got number");
	expect_text(tool_schema, "{\"path\":\"/a\",\"mode\":\"read\",\"count\":1.5}",
	            "/count: expected integer, got number");
}

static void test_diag_enum_lists_choices(void **st)
{
	(void)st;
	expect_text(tool_schema, "{\"path\":\"/a\",\"mode\":\"delete\"}",
	            "/mode: must be one of read, write");
}

/* in the instance's key order, after the object's own checks */
static void test_diag_reports_all_failures(void **st)
{
	(void)st;
	expect_text(tool_schema, "{\"path\":\"a\",\"count\":0,\"tags\":[1,\"x\",2],\"extra\":true}",
	            "/: missing required property 'mode'; /path: must match the pattern '^/'; "
	            "/count: must be >= 1, got 0; /tags/0: expected string, got number; "
	            "/tags/2: expected string, got number; "
	            "/: unexpected property 'extra'; allowed: count, force, mode, path, tags");
}

static void test_diag_pointer_escapes_slash_and_tilde(void **st)
{
	(void)st;
	expect_text("{\"additionalProperties\":{\"type\":\"integer\"}}", "{\"a/b~c\":\"x\"}",
	            "/a~1b~0c: expected integer, got string");
}

/* A value in quotes: the message says what to write instead. */
static void test_diag_quoted_value_says_without_quotes(void **st)
{
	(void)st;
	const char *schema = "{\"properties\":{\"n\":{\"type\":\"integer\"},"
	                     "\"b\":{\"type\":\"boolean\"},\"a\":{\"type\":\"array\"},"
	                     "\"o\":{\"type\":\"object\"},\"s\":{\"type\":\"integer\"}}}";
	expect_text(schema, "{\"n\":\"10\",\"b\":\"true\"}",
	            "/n: expected integer, got string \"10\": write it without the quotes, 10; "
	            "/b: expected boolean, got string \"true\": write it without the quotes, "
	            "true");
	expect_text(schema, "{\"a\":\"[\\\"ls\\\"]\",\"o\":\"{}\"}",
	            "/a: expected array, got string that holds a JSON array: give the array "
	            "itself, not its text in a string; /o: expected object, got string that "
	            "holds a JSON object: give the object itself, not its text in a string");
	/* Text where only an array goes: give an array, split at blanks. */
	expect_text(schema, "{\"a\":\"make  test -j2\"}",
	            "/a: expected array, got string: give a JSON array, one element per "
	            "item, e.g. [\"make\", \"test\", \"-j2\"]");
	expect_text(schema, "{\"a\":\"say \\\"hi\\\"\"}",
	            "/a: expected array, got string: give a JSON array, one element per item");
	/* Not the literal alone, or not of the expected type: the plain message. */
	expect_text(schema, "{\"n\":\" 10\",\"b\":\"10\",\"s\":\"1.5\"}",
	            "/n: expected integer, got string; /b: expected boolean, got string; "
	            "/s: expected integer, got string");
}

static void test_diag_cap_counts_dropped(void **st)
{
	(void)st;
	int rc;
	char *text = diag_text("{\"items\":{\"type\":\"string\"}}", "[1,2,3,4,5]", 2, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(
	        text, "/0: expected string, got number; /1: expected string, got number; (3 more)");
	free(text);
}

static void test_diag_any_of_type_mismatch_is_one_message(void **st)
{
	(void)st;
	expect_text(
	        "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"},{\"type\":\"null\"}]}",
	        "true", "/: expected string, integer or null, got boolean");
}

static void test_diag_any_of_reports_the_branch_of_the_right_type(void **st)
{
	(void)st;
	expect_text(
	        "{\"properties\":{\"p\":{\"anyOf\":[{\"type\":\"string\",\"minLength\":3},{\"type\":\"null\"}]}}}",
	        "{\"p\":\"ab\"}", "/p: must be at least 3 characters long, got 2");
}

static void test_diag_one_of_summarizes_branches(void **st)
{
	(void)st;
	expect_text("{\"oneOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\"]}]}", "{}",
	            "/: must match exactly one of the 2 alternatives in oneOf; closest failures: "
	            "#0: /: missing required property 'a'; #1: /: missing required property 'b'");
	expect_text(
	        "{\"oneOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\"]}]}", "{\"a\":1,\"b\":2}",
	        "/: must match exactly one of the 2 alternatives in oneOf, but matches #0 and #1");
}

static void test_diag_numbers_and_sizes(void **st)
{
	(void)st;
	expect_text("{\"exclusiveMaximum\":3}", "3", "/: must be < 3, got 3");
	expect_text("{\"multipleOf\":0.5}", "1.3", "/: must be a multiple of 0.5, got 1.3");
	expect_text("{\"minItems\":2}", "[1]", "/: must have at least 2 items, got 1");
	expect_text("{\"maxProperties\":1}", "{\"a\":1,\"b\":2}",
	            "/: must have at most 1 property, got 2");
	expect_text("{\"uniqueItems\":true}", "[1,2,1.0]",
	            "/: must not contain duplicates (items 0 and 2 are equal)");
	expect_text("{\"const\":\"on\"}", "\"off\"", "/: must be exactly \"on\"");
}

static void test_diag_dependencies_and_names(void **st)
{
	(void)st;
	expect_text("{\"dependentRequired\":{\"user\":[\"password\"]}}", "{\"user\":\"u\"}",
	            "/: missing property 'password' (required when 'user' is present)");
	expect_text("{\"propertyNames\":{\"maxLength\":2}}", "{\"abc\":1}",
	            "/: property name 'abc': must be at most 2 characters long, got 3");
	expect_text("{\"properties\":{\"rm\":false}}", "{\"rm\":1}",
	            "/: property 'rm' is not allowed");
}

static void test_diag_hostile_key_stays_on_one_line(void **st)
{
	(void)st;
	int rc;
	char *text = diag_text("{\"additionalProperties\":false}", "{\"a\\nb\":1}", 0, &rc);
	assert_int_equal(rc, 0);
	assert_null(strchr(text, '\n'));
	assert_non_null(strstr(text, "'a\\u000ab'"));
	free(text);
}

static void test_result_text_of_empty_result_is_empty(void **st)
{
	(void)st;
	struct schema_result res = { 0 };
	char *text = schema_result_text(&res);
	assert_string_equal(text, "");
	free(text);
	schema_result_release(&res);
}

/* ---- limits ---------------------------------------------------------------- */

static void test_ref_cycle_at_root_refused(void **st)
{
	(void)st;
	compile_fails("{\"$ref\":\"#\"}", AUTO, "", "cycle");
}

static void test_ref_cycle_through_defs_and_allof_refused(void **st)
{
	(void)st;
	compile_fails(
	        "{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":{\"allOf\":[{\"$ref\":\"#/$defs/a\"}]}},"
	        "\"$ref\":\"#/$defs/a\"}",
	        AUTO, NULL, "cycle", "/$defs/a", "/$defs/b");
}

static void test_recursion_through_properties_is_allowed(void **st)
{
	(void)st;
	struct schema *s =
	        compile_ok("{\"properties\":{\"next\":{\"$ref\":\"#\"}},\"type\":\"object\"}",
	                   AUTO);
	assert_int_equal(check_instance(s, "{\"next\":{\"next\":{}}}"), 1);
	assert_int_equal(check_instance(s, "{\"next\":{\"next\":1}}"), 0);
	schema_free(s);
}

static void test_instance_deeper_than_limit_is_an_error(void **st)
{
	(void)st;
	char deep[400], ok[300];
	memset(deep, '[', 200);
	memset(deep + 200, ']', 200);
	deep[400 - 1] = ']';
	json_t *inst = json_loadb(deep, 400, JSON_DECODE_ANY, NULL);
	assert_non_null(inst);
	struct schema *s = compile_ok("{\"items\":{\"$ref\":\"#\"}}", AUTO);
	struct schema_result res;
	assert_int_equal(schema_validate(s, inst, &res, 0), -1);
	assert_int_equal(schema_validate(s, inst, NULL, 0), -1);
	assert_int_equal(res.count, 1);
	assert_non_null(strstr(res.diags[0].message, "nesting deeper than 128 levels"));
	schema_result_release(&res);
	json_decref(inst);
	memset(ok, '[', 100);
	memset(ok + 100, ']', 100);
	ok[200] = '\0';
	assert_int_equal(check_instance(s, ok), 1);
	schema_free(s);
}

static void test_schema_deeper_than_limit_is_refused(void **st)
{
	(void)st;
	struct buf b = BUF_INIT;
	for (int i = 0; i < 140; i++)
		buf_adds(&b, "{\"not\":");
	buf_adds(&b, "true");
	for (int i = 0; i < 140; i++)
		buf_adds(&b, "}");
	compile_fails(b.data, AUTO, NULL, "deeper than 128 levels");
	buf_release(&b);
}

static void test_catastrophic_regex_fails_fast(void **st)
{
	(void)st;
	struct schema *s = compile_ok("{\"pattern\":\"^(a|a)*$\"}", AUTO);
	char inst[6000] = "\"";
	memset(inst + 1, 'a', 5000);
	strcpy(inst + 5001, "!\"");
	double t0 = cpu_s();
	json_t *j = parse_json(inst);
	struct schema_result res;
	assert_int_equal(schema_validate(s, j, &res, 0), -1);
	assert_true(cpu_s() - t0 < 2.0);
	assert_int_equal(res.count, 1);
	assert_non_null(strstr(res.diags[0].message, "regex match limit"));
	schema_result_release(&res);
	json_decref(j);
	schema_free(s);
}

/* Each value backtracks about 2^16 steps (under the match limit) and then
 * matches: 30000 of them kept a validation busy for about 9 s. The pass's
 * PCRE2 time is bounded as a whole. */
static void test_regex_time_is_bounded_per_validation(void **st)
{
	(void)st;
	struct schema *s = compile_ok("{\"items\":{\"pattern\":\"^(?:(a|a)*b|a*!)\"}}", AUTO);
	json_t *arr = json_array();
	for (int i = 0; i < 30000; i++)
		json_array_append_new(arr, json_string("aaaaaaaaaaaaaaaa!"));
	double t0 = now_s();
	struct schema_result res;
	assert_int_equal(schema_validate(s, arr, &res, 0), -1);
	double took = now_s() - t0;
	if (took > 5.0)
		fail_msg("validation took %.1f s", took);
	assert_int_equal(res.count, 1);
	assert_non_null(strstr(res.diags[0].message, "the patterns took more than"));
	schema_result_release(&res);
	json_decref(arr);
	schema_free(s);
}

/* The pattern matches "aaa...a!" through its second branch, but only after
 * the first has backtracked past the match limit: an undecided match must
 * not count as "no match", or 'not' and 'if' let the value through. */
static void test_undecided_regex_is_not_a_non_match(void **st)
{
	(void)st;
	static const char *const schemas[] = {
		"{\"not\":{\"pattern\":\"^(?:(a|a)*b|a*!)\"}}",
		"{\"if\":{\"pattern\":\"^(?:(a|a)*b|a*!)\"},\"then\":false}",
		"{\"propertyNames\":{\"not\":{\"pattern\":\"^(?:(a|a)*b|a*!)\"}}}",
		"{\"not\":{\"patternProperties\":{\"^(?:(a|a)*b|a*!)\":true},"
		"\"additionalProperties\":false}}",
	};
	const char *str = "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\"";
	char obj[128];
	snprintf(obj, sizeof obj, "{%s:1}", str);
	for (size_t i = 0; i < sizeof schemas / sizeof *schemas; i++) {
		struct schema *s = compile_ok(schemas[i], AUTO);
		json_t *j = parse_json(i < 2 ? str : obj);
		struct schema_result res;
		if (schema_validate(s, j, &res, 0) != -1 || schema_validate(s, j, NULL, 0) != -1)
			fail_msg("undecided pattern let the value pass: %s", schemas[i]);
		assert_int_equal(res.count, 1);
		assert_non_null(strstr(res.diags[0].message, "regex match limit"));
		schema_result_release(&res);
		json_decref(j);
		assert_int_equal(check_instance(s, i < 2 ? "\"aaa!\"" : "{\"aaa!\":1}"), 0);
		schema_free(s);
	}
}

/* The hash uniqueItems used to sort by (value_hash before this test was
 * written): FNV-1a and a public, invertible mixer. Items [i, d_i] with d_i
 * solved from i all shared one hash, and comparing within equal-hash runs
 * made the check quadratic (40000 items: about 10 s). */
static uint64_t old_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

static uint64_t old_unmix(uint64_t h)
{
	uint64_t inv = 0xff51afd7ed558ccdULL; /* Newton: inverse mod 2^64 */
	for (int i = 0; i < 6; i++)
		inv *= 2 - 0xff51afd7ed558ccdULL * inv;
	h ^= h >> 33;
	h *= inv;
	return h ^ (h >> 33);
}

static uint64_t old_num_hash(double d)
{
	uint64_t bits;
	memcpy(&bits, &d, sizeof bits);
	return old_mix(bits ^ 0x1111);
}

/* CPU seconds to check n such items (and that they are unique). */
static double time_colliding_items(size_t n)
{
	json_t *arr = json_array();
	for (int i = 1; json_array_size(arr) < n; i++) {
		uint64_t h1 = old_mix(0x2222 * 31 + old_num_hash((double)i));
		uint64_t bits = old_unmix(0x123456789abcdef0ULL - h1 * 31) ^ 0x1111;
		double d;
		memcpy(&d, &bits, sizeof d);
		if (!isfinite(d) || d == 0)
			continue;
		json_array_append_new(arr, json_pack("[i f]", i, d));
	}
	struct schema *s = compile_ok("{\"uniqueItems\":true}", AUTO);
	double t0 = cpu_s();
	assert_int_equal(schema_validate(s, arr, NULL, 0), 1);
	double took = cpu_s() - t0;
	json_array_append_new(arr, json_deep_copy(json_array_get(arr, n / 2)));
	assert_int_equal(schema_validate(s, arr, NULL, 0), 0);
	schema_free(s);
	json_decref(arr);
	return took;
}

/* 4 times the items: about 16 times the time when quadratic (6000 then
 * 24000 items: 0.3 s, then 4 s), under 8 times for n log n. Only a check
 * that is slow too fails, so that noise on a fast one (or valgrind's
 * slowness on a linear one) does not. */
static void test_unique_items_is_not_quadratic_on_colliding_items(void **st)
{
	(void)st;
	double small = time_colliding_items(6000), big = time_colliding_items(24000);
	if (big > 1.0 && big > 8 * small)
		fail_msg("uniqueItems: 6000 items %.2f s, 24000 items %.2f s", small, big);
}

static void test_nested_one_of_over_shared_defs_is_linear(void **st)
{
	(void)st;
	/* l_i = oneOf [allOf [l_{i-1}, min 0], allOf [l_{i-1}, max -100]]: naive
	 * evaluation doubles at each of 60 levels */
	struct buf b = BUF_INIT;
	buf_adds(&b, "{\"$defs\":{\"l0\":{\"type\":\"integer\"}");
	for (int i = 1; i <= 60; i++)
		buf_printf(
		        &b,
		        ",\"l%d\":{\"oneOf\":[{\"allOf\":[{\"$ref\":\"#/$defs/l%d\"},{\"minimum\":0}]},"
		        "{\"allOf\":[{\"$ref\":\"#/$defs/l%d\"},{\"maximum\":-100}]}]}",
		        i, i - 1, i - 1);
	buf_adds(&b, "},\"$ref\":\"#/$defs/l60\"}");
	struct schema *s = compile_ok(b.data, AUTO);
	double t0 = cpu_s();
	assert_int_equal(check_instance(s, "5"), 1);
	assert_int_equal(check_instance(s, "-5"), 0);
	assert_int_equal(check_instance(s, "\"x\""), 0);
	assert_true(cpu_s() - t0 < 1.0);
	schema_free(s);
	buf_release(&b);
}

/* ---- numbers ----------------------------------------------------------------- */

static void test_numeric_equality_across_int_and_real(void **st)
{
	(void)st;
	VALID("{\"const\":1}", AUTO, "1.0", "1");
	INVALID("{\"const\":1}", AUTO, "1.0000001", "true");
	VALID("{\"enum\":[[0.5,2]]}", AUTO, "[0.5,2.0]");
	VALID("{\"const\":-0.0}", AUTO, "0");
	/* exact for large integers: 2^53 + 1 is not 2^53 */
	INVALID("{\"const\":9007199254740993}", AUTO, "9007199254740992");
}

/* ---- formats --------------------------------------------------------------------- */

static void test_formats_asserted_on_request(void **st)
{
	(void)st;
	static const struct {
		const char *fmt, *good, *bad;
	} cases[] = {
		{ "date-time", "\"2024-02-29T13:45:00.5+01:00\"", "\"2023-02-29T13:45:00Z\"" },
		{ "date", "\"2024-12-31\"", "\"2024-13-01\"" },
		{ "time", "\"23:59:60Z\"", "\"12:00:60Z\"" },
		{ "email", "\"a.b+c@example.com\"", "\"a..b@example.com\"" },
		{ "uri", "\"https://example.com/a?b=c#d\"", "\"/relative/path\"" },
		{ "uuid", "\"123e4567-e89b-12d3-a456-426614174000\"",
		  "\"123e4567e89b12d3a456426614174000\"" },
		{ "ipv4", "\"192.0.2.1\"", "\"192.0.2.01\"" },
		{ "ipv6", "\"2001:db8::1\"", "\"2001:db8:::1\"" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[128];
		struct tc_error err;
		snprintf(text, sizeof text, "{\"format\":\"%s\"}", cases[i].fmt);
		struct schema *s = compile_opts(text, AUTO, true, &err);
		assert_non_null(s);
		if (check_instance(s, cases[i].good) != 1)
			fail_msg("%s should accept %s", cases[i].fmt, cases[i].good);
		if (check_instance(s, cases[i].bad) != 0)
			fail_msg("%s should reject %s", cases[i].fmt, cases[i].bad);
		assert_int_equal(check_instance(s, "5"), 1); /* formats apply to strings only */
		schema_free(s);
	}
}

/* RFC 3986's grammar, not a set of characters: '[' and ']' only around an
 * IP literal that is one, '#' once, a port of digits. */
static void test_format_uri_follows_rfc3986_grammar(void **st)
{
	(void)st;
	static const char *const good[] = {
		"\"http://[::1]:8080/a?b=c&d#e?/\"",
		"\"urn:isbn:1\"",
		"\"mailto:a@b.c\"",
		"\"http://u:p@x:80/p?q#f\"",
		"\"http://[v1.x]/\"",
		"\"file:///etc/passwd\"",
		"\"http://x/%41\"",
		"\"tag:a@b,2020:x\"",
	};
	static const char *const bad[] = {
		"\"http://[::1\"",    "\"http://[1::2::3]/\"", "\"http://x/#a#b\"",
		"\"http://x:ab/\"",   "\"http://x/a[b]\"",     "\"http://x]y/\"",
		"\"http://[::1]x/\"", "\"http://x/%4\"",       "\"a:%\"",
		"\"http://x/ ?\"",
	};
	struct tc_error err;
	struct schema *s = compile_opts("{\"format\":\"uri\"}", AUTO, true, &err);
	assert_non_null(s);
	for (size_t i = 0; i < sizeof good / sizeof *good; i++)
		if (check_instance(s, good[i]) != 1)
			fail_msg("uri should accept %s", good[i]);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (check_instance(s, bad[i]) != 0)
			fail_msg("uri should reject %s", bad[i]);
	schema_free(s);
}

static void test_unknown_format_refused_when_asserting(void **st)
{
	(void)st;
	compile_fails_v("{\"format\":\"hostname\"}", AUTO, true, "/format",
	                (const char *const[]){ "cannot be asserted", NULL });
}

static void test_validation_is_reentrant_across_schemas(void **st)
{
	(void)st;
	/* two compiled schemas with regexes used alternately: no shared state */
	struct schema *a = compile_ok("{\"pattern\":\"^a\"}", AUTO);
	struct schema *b = compile_ok("{\"pattern\":\"^b\"}", AUTO);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(check_instance(a, "\"abc\""), 1);
		assert_int_equal(check_instance(b, "\"abc\""), 0);
	}
	schema_free(a);
	schema_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_draft_defaults_to_2020_12),
		cmocka_unit_test(test_draft_from_schema_keyword),
		cmocka_unit_test(test_draft_override_beats_schema_keyword),
		cmocka_unit_test(test_unknown_schema_uri_is_refused),
		cmocka_unit_test(test_document_is_kept_by_reference),
		cmocka_unit_test(test_unevaluated_properties_refused_with_location),
		cmocka_unit_test(test_dynamic_and_recursive_refs_refused_in_user_schemas),
		cmocka_unit_test(test_remote_ref_refused),
		cmocka_unit_test(test_dangling_pointer_and_anchor_refused),
		cmocka_unit_test(test_other_drafts_keywords_refused),
		cmocka_unit_test(test_draft04_boolean_exclusive_maximum_refused),
		cmocka_unit_test(test_keyword_case_typo_refused),
		cmocka_unit_test(test_draft07_assertions_beside_ref_refused),
		cmocka_unit_test(test_bad_keyword_values_refused_with_location),
		cmocka_unit_test(test_metaschema_violations_refused),
		cmocka_unit_test(test_diag_missing_required_at_root),
		cmocka_unit_test(test_diag_type_mismatch_with_pointer),
		cmocka_unit_test(test_diag_enum_lists_choices),
		cmocka_unit_test(test_diag_reports_all_failures),
		cmocka_unit_test(test_diag_pointer_escapes_slash_and_tilde),
		cmocka_unit_test(test_diag_quoted_value_says_without_quotes),
		cmocka_unit_test(test_diag_cap_counts_dropped),
		cmocka_unit_test(test_diag_any_of_type_mismatch_is_one_message),
		cmocka_unit_test(test_diag_any_of_reports_the_branch_of_the_right_type),
		cmocka_unit_test(test_diag_one_of_summarizes_branches),
		cmocka_unit_test(test_diag_numbers_and_sizes),
		cmocka_unit_test(test_diag_dependencies_and_names),
		cmocka_unit_test(test_diag_hostile_key_stays_on_one_line),
		cmocka_unit_test(test_result_text_of_empty_result_is_empty),
		cmocka_unit_test(test_ref_cycle_at_root_refused),
		cmocka_unit_test(test_ref_cycle_through_defs_and_allof_refused),
		cmocka_unit_test(test_recursion_through_properties_is_allowed),
		cmocka_unit_test(test_instance_deeper_than_limit_is_an_error),
		cmocka_unit_test(test_schema_deeper_than_limit_is_refused),
		cmocka_unit_test(test_catastrophic_regex_fails_fast),
		cmocka_unit_test(test_undecided_regex_is_not_a_non_match),
		cmocka_unit_test(test_regex_time_is_bounded_per_validation),
		cmocka_unit_test(test_unique_items_is_not_quadratic_on_colliding_items),
		cmocka_unit_test(test_nested_one_of_over_shared_defs_is_linear),
		cmocka_unit_test(test_numeric_equality_across_int_and_real),
		cmocka_unit_test(test_formats_asserted_on_request),
		cmocka_unit_test(test_format_uri_follows_rfc3986_grammar),
		cmocka_unit_test(test_unknown_format_refused_when_asserting),
		cmocka_unit_test(test_validation_is_reentrant_across_schemas),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
