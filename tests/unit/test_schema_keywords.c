/* test_schema_keywords.c — each JSON Schema keyword enforces what the spec
 * says, valid and invalid cases, in draft-07 and 2020-12 (the same text
 * compiled under each draft, or the draft's own spelling where they
 * differ). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "schema_test.h"

#define D7  SCHEMA_DRAFT_07
#define D20 SCHEMA_DRAFT_2020_12

static void test_type_single_names_each_json_type(void **st)
{
	(void)st;
	VALID2("{\"type\":\"string\"}", "\"a\"", "\"\"");
	INVALID2("{\"type\":\"string\"}", "1", "null", "[]", "{}", "true");
	VALID2("{\"type\":\"null\"}", "null");
	INVALID2("{\"type\":\"null\"}", "0", "false");
	VALID2("{\"type\":\"boolean\"}", "true", "false");
	INVALID2("{\"type\":\"boolean\"}", "0", "\"true\"");
	VALID2("{\"type\":\"object\"}", "{}");
	INVALID2("{\"type\":\"object\"}", "[]");
	VALID2("{\"type\":\"array\"}", "[]");
	INVALID2("{\"type\":\"array\"}", "{}");
}

static void test_type_integer_is_decided_by_value(void **st)
{
	(void)st;
	VALID2("{\"type\":\"integer\"}", "1", "1.0", "-0.0", "1e3", "9007199254740993");
	INVALID2("{\"type\":\"integer\"}", "1.5", "\"1\"", "1e-3");
	VALID2("{\"type\":\"number\"}", "1", "1.5", "-2e10");
	INVALID2("{\"type\":\"number\"}", "\"1\"", "null");
}

static void test_type_array_accepts_any_listed_type(void **st)
{
	(void)st;
	VALID2("{\"type\":[\"string\",\"null\"]}", "\"a\"", "null");
	INVALID2("{\"type\":[\"string\",\"null\"]}", "1", "{}");
	VALID2("{\"type\":[\"integer\",\"boolean\"]}", "2", "true");
	INVALID2("{\"type\":[\"integer\",\"boolean\"]}", "2.5");
}

static void test_enum_uses_json_equality(void **st)
{
	(void)st;
	VALID2("{\"enum\":[\"read\",\"write\",1,{\"a\":[1,2]},null]}", "\"read\"", "1.0",
	       "{\"a\":[1.0,2]}", "null");
	INVALID2("{\"enum\":[\"read\",\"write\",1,{\"a\":[1,2]},null]}", "\"Read\"", "2",
	         "{\"a\":[2,1]}", "false", "[1]");
	INVALID2("{\"enum\":[false]}", "0", "null");
	INVALID2("{\"enum\":[0]}", "false");
}

static void test_const_ignores_key_order_and_number_form(void **st)
{
	(void)st;
	VALID2("{\"const\":{\"a\":1,\"b\":[true,null]}}", "{\"b\":[true,null],\"a\":1.0}");
	INVALID2("{\"const\":{\"a\":1,\"b\":[true,null]}}", "{\"a\":1}",
	         "{\"a\":1,\"b\":[null,true]}", "{\"a\":1,\"b\":[true,null],\"c\":0}");
	VALID2("{\"const\":null}", "null");
	INVALID2("{\"const\":null}", "0", "\"\"");
}

static void test_multiple_of_integers_and_decimals(void **st)
{
	(void)st;
	VALID2("{\"multipleOf\":3}", "9", "0", "-6", "\"not a number\"");
	INVALID2("{\"multipleOf\":3}", "10", "9.5");
	VALID2("{\"multipleOf\":0.1}", "0.3", "1.2", "7");
	INVALID2("{\"multipleOf\":0.1}", "0.35");
	INVALID2("{\"multipleOf\":0.123456789}", "1e308");
}

/* The tolerance is 1e-9 of the quotient's integer, not 1e-9 of the quotient:
 * 1000000000.5 is no multiple of 1, nor 3000000001.0 of 2. Large exact
 * multiples still pass despite rounding. */
static void test_multiple_of_large_decimals_is_not_lax(void **st)
{
	(void)st;
	INVALID2("{\"multipleOf\":1}", "1000000000.5");
	INVALID2("{\"multipleOf\":2}", "3000000001.0");
	INVALID2("{\"multipleOf\":0.01}", "10000000.005", "123456789.015");
	VALID2("{\"multipleOf\":0.01}", "10000000.05", "123456789.01", "9999999999999.99");
	VALID2("{\"multipleOf\":0.1}", "123456789.3", "99999999999999.9");
	VALID2("{\"multipleOf\":2}", "3000000002.0");
}

static void test_maximum_and_minimum_are_inclusive(void **st)
{
	(void)st;
	VALID2("{\"minimum\":1,\"maximum\":10}", "1", "10", "5.5", "\"x\"");
	INVALID2("{\"minimum\":1,\"maximum\":10}", "0.999", "10.0001", "-1", "11");
	VALID2("{\"maximum\":9223372036854775807}", "9223372036854775807");
	INVALID2("{\"maximum\":9223372036854775806}", "9223372036854775807");
}

static void test_exclusive_bounds_take_numbers(void **st)
{
	(void)st;
	VALID2("{\"exclusiveMinimum\":1,\"exclusiveMaximum\":3}", "1.5", "2", "2.999");
	INVALID2("{\"exclusiveMinimum\":1,\"exclusiveMaximum\":3}", "1", "3", "3.0", "1.0");
}

static void test_string_lengths_count_code_points(void **st)
{
	(void)st;
	VALID2("{\"minLength\":2,\"maxLength\":3}", "\"ab\"", "\"\\u00e9\\u00e9\"",
	       "\"\\u65e5\\u672c\\u8a9e\"", "\"\\ud83d\\ude00\\ud83d\\ude00\"", "5");
	INVALID2("{\"minLength\":2,\"maxLength\":3}", "\"a\"", "\"\\u00e9\"", "\"abcd\"",
	         "\"\\u65e5\\u672c\\u8a9e\\u8a9e\"");
}

static void test_pattern_is_unanchored_ecma_like(void **st)
{
	(void)st;
	VALID2("{\"pattern\":\"b+\"}", "\"abbbc\"", "1");
	INVALID2("{\"pattern\":\"b+\"}", "\"ac\"");
	VALID2("{\"pattern\":\"^[a-z]+$\"}", "\"abc\"");
	/* '$' is end of input only (ECMA), not before a final newline */
	INVALID2("{\"pattern\":\"^[a-z]+$\"}", "\"abc\\n\"", "\"ab1\"");
	VALID2("{\"pattern\":\"^\\\\u00e9$\"}", "\"\\u00e9\"");
	VALID2("{\"pattern\":\"^.$\"}", "\"\\u65e5\"");
}

static void test_items_schema_applies_to_every_item(void **st)
{
	(void)st;
	VALID2("{\"items\":{\"type\":\"integer\"}}", "[]", "[1,2,3]", "{\"0\":\"x\"}");
	INVALID2("{\"items\":{\"type\":\"integer\"}}", "[1,\"2\"]", "[1.5]");
	VALID2("{\"items\":false}", "[]");
	INVALID2("{\"items\":false}", "[1]");
}

static void test_prefix_items_2020_and_items_array_draft07(void **st)
{
	(void)st;
	const char *d20 =
	        "{\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"integer\"}],\"items\":false}";
	VALID(d20, D20, "[]", "[\"a\"]", "[\"a\",1]");
	INVALID(d20, D20, "[1]", "[\"a\",\"b\"]", "[\"a\",1,null]");
	const char *d7 =
	        "{\"items\":[{\"type\":\"string\"},{\"type\":\"integer\"}],\"additionalItems\":false}";
	VALID(d7, D7, "[]", "[\"a\",1]");
	INVALID(d7, D7, "[1]", "[\"a\",1,null]");
	VALID("{\"items\":[{\"type\":\"string\"}],\"additionalItems\":{\"type\":\"integer\"}}", D7,
	      "[\"a\",1,2]");
	INVALID("{\"items\":[{\"type\":\"string\"}],\"additionalItems\":{\"type\":\"integer\"}}",
	        D7, "[\"a\",1,\"b\"]");
	/* additionalItems does nothing when items is one schema */
	VALID("{\"items\":{\"type\":\"string\"},\"additionalItems\":false}", D7, "[\"a\",\"b\"]");
}

static void test_min_and_max_items(void **st)
{
	(void)st;
	VALID2("{\"minItems\":1,\"maxItems\":2}", "[1]", "[1,2]", "\"ab\"");
	INVALID2("{\"minItems\":1,\"maxItems\":2}", "[]", "[1,2,3]");
}

static void test_unique_items_uses_json_equality(void **st)
{
	(void)st;
	VALID2("{\"uniqueItems\":true}", "[]", "[1,2,\"1\"]", "[{\"a\":1},{\"a\":2}]",
	       "[[1],[1,1]]", "[0,false]", "[null,0]");
	INVALID2("{\"uniqueItems\":true}", "[1,1.0]", "[{\"a\":1,\"b\":2},{\"b\":2,\"a\":1}]",
	         "[[1,2],[1,2]]", "[\"x\",\"y\",\"x\"]");
	VALID2("{\"uniqueItems\":false}", "[1,1]");
}

static void test_unique_items_on_long_arrays(void **st)
{
	(void)st;
	char big[4096] = "[";
	for (int i = 0; i < 300; i++)
		snprintf(big + strlen(big), sizeof big - strlen(big), "%s%d", i ? "," : "", i);
	char dup[4200];
	snprintf(dup, sizeof dup, "%s,150.0]", big);
	strcat(big, "]");
	VALID2("{\"uniqueItems\":true}", big);
	INVALID2("{\"uniqueItems\":true}", dup);
}

/* Past 16 items uniqueItems sorts canonical texts instead of comparing
 * pairs: each pair must get the verdict it gets in a short array. */
static void test_unique_items_long_path_agrees_with_pairwise(void **st)
{
	(void)st;
	static const struct {
		const char *a, *b;
		int equal;
	} pairs[] = {
		{ "1", "1.0", 1 },
		{ "0", "-0.0", 1 },
		{ "1e2", "100", 1 },
		{ "0.1", "0.10", 1 },
		{ "9007199254740993", "9007199254740992", 0 },
		{ "9223372036854775807", "9.3e18", 0 },
		{ "-9223372036854775808", "-9223372036854775808.0", 1 },
		{ "1e300", "1e300", 1 },
		{ "0.1", "0.2", 0 },
		{ "1", "\"1\"", 0 },
		{ "0", "false", 0 },
		{ "null", "false", 0 },
		{ "\"s1:a\"", "\"a\"", 0 },
		{ "\"#1;\"", "1", 0 },
		{ "\"ab\"", "\"a\"", 0 },
		{ "{\"a\":1,\"b\":[1,{\"c\":2}]}", "{\"b\":[1.0,{\"c\":2.0}],\"a\":1}", 1 },
		{ "{\"a\":1,\"b\":2}", "{\"a\":2,\"b\":1}", 0 },
		{ "{\"ab\":1}", "{\"a\":1,\"b\":1}", 0 },
		{ "[\"a\",\"b\"]", "[\"ab\"]", 0 },
		{ "[[1],[2]]", "[[1,2]]", 0 },
		{ "[1,2]", "[2,1]", 0 },
		{ "{}", "[]", 0 },
		{ "\"\"", "[]", 0 },
	};
	struct schema *sc = compile_ok("{\"uniqueItems\":true}", D20);
	for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
		char shortarr[256], longarr[512];
		snprintf(shortarr, sizeof shortarr, "[%s,%s]", pairs[i].a, pairs[i].b);
		snprintf(longarr, sizeof longarr,
		         "[\"f1\",\"f2\",\"f3\",\"f4\",\"f5\",\"f6\",\"f7\",\"f8\","
		         "\"f9\",\"f10\",%s,\"f11\",\"f12\",\"f13\",\"f14\",\"f15\",\"f16\",%s]",
		         pairs[i].a, pairs[i].b);
		int want = !pairs[i].equal;
		if (check_instance(sc, shortarr) != want || check_instance(sc, longarr) != want)
			fail_msg("%s and %s: expected %s", pairs[i].a, pairs[i].b,
			         pairs[i].equal ? "equal" : "different");
	}
	schema_free(sc);
}

static void test_contains_needs_one_match(void **st)
{
	(void)st;
	VALID2("{\"contains\":{\"type\":\"integer\"}}", "[\"a\",1]", "[1]", "{}");
	INVALID2("{\"contains\":{\"type\":\"integer\"}}", "[]", "[\"a\",1.5]");
}

static void test_min_and_max_contains_count_matches(void **st)
{
	(void)st;
	const char *s = "{\"contains\":{\"const\":1},\"minContains\":2,\"maxContains\":3}";
	VALID(s, D20, "[1,1]", "[1,2,1,1]");
	INVALID(s, D20, "[1]", "[1,1,1,1]", "[2,2]");
	VALID("{\"contains\":{\"const\":1},\"minContains\":0}", D20, "[]", "[2]");
	VALID("{\"maxContains\":1}", D20, "[1,1]"); /* ignored without contains */
}

static void test_min_and_max_properties(void **st)
{
	(void)st;
	VALID2("{\"minProperties\":1,\"maxProperties\":2}", "{\"a\":1}", "{\"a\":1,\"b\":2}", "[]");
	INVALID2("{\"minProperties\":1,\"maxProperties\":2}", "{}", "{\"a\":1,\"b\":2,\"c\":3}");
}

static void test_required_lists_present_keys(void **st)
{
	(void)st;
	VALID2("{\"required\":[\"a\",\"b\"]}", "{\"a\":null,\"b\":0}", "[]", "\"a\"");
	INVALID2("{\"required\":[\"a\",\"b\"]}", "{\"a\":1}", "{}");
}

static void test_dependent_required_and_schemas_2020(void **st)
{
	(void)st;
	const char *s =
	        "{\"dependentRequired\":{\"a\":[\"b\"]},"
	        "\"dependentSchemas\":{\"c\":{\"properties\":{\"d\":{\"type\":\"string\"}}}}}";
	VALID(s, D20, "{}", "{\"a\":1,\"b\":2}", "{\"b\":1}", "{\"c\":1,\"d\":\"x\"}", "{\"c\":1}");
	INVALID(s, D20, "{\"a\":1}", "{\"c\":1,\"d\":2}");
}

static void test_dependencies_draft07_both_forms(void **st)
{
	(void)st;
	const char *s = "{\"dependencies\":{\"a\":[\"b\"],\"c\":{\"required\":[\"d\"]}}}";
	VALID(s, D7, "{}", "{\"a\":1,\"b\":1}", "{\"c\":1,\"d\":1}", "{\"b\":1}");
	INVALID(s, D7, "{\"a\":1}", "{\"c\":1}");
}

static void test_properties_apply_to_present_keys(void **st)
{
	(void)st;
	const char *s =
	        "{\"properties\":{\"a\":{\"type\":\"integer\"},\"b/c\":{\"type\":\"string\"}}}";
	VALID2(s, "{}", "{\"a\":1,\"b/c\":\"x\",\"z\":null}", "5");
	INVALID2(s, "{\"a\":\"1\"}", "{\"b/c\":1}");
}

static void test_pattern_properties_match_names(void **st)
{
	(void)st;
	const char *s =
	        "{\"patternProperties\":{\"^x-\":{\"type\":\"string\"},\"id$\":{\"type\":\"integer\"}}}";
	VALID2(s, "{\"x-a\":\"s\",\"userid\":3,\"other\":[]}");
	INVALID2(s, "{\"x-a\":1}", "{\"xid\":\"s\"}", "{\"x-id\":\"s\"}");
}

static void test_additional_properties_cover_the_rest(void **st)
{
	(void)st;
	const char *s = "{\"properties\":{\"a\":{}},\"patternProperties\":{\"^x-\":{}},"
	                "\"additionalProperties\":{\"type\":\"boolean\"}}";
	VALID2(s, "{\"a\":1,\"x-q\":2,\"z\":true}");
	INVALID2(s, "{\"z\":1}");
	VALID2("{\"additionalProperties\":false}", "{}", "[1]");
	INVALID2("{\"additionalProperties\":false}", "{\"a\":1}");
}

static void test_property_names_validate_keys(void **st)
{
	(void)st;
	VALID2("{\"propertyNames\":{\"pattern\":\"^[a-z]+$\",\"maxLength\":3}}", "{\"abc\":1}",
	       "{}");
	INVALID2("{\"propertyNames\":{\"pattern\":\"^[a-z]+$\",\"maxLength\":3}}", "{\"aB\":1}",
	         "{\"abcd\":1}");
	INVALID2("{\"propertyNames\":false}", "{\"a\":1}");
}

static void test_all_of_needs_every_branch(void **st)
{
	(void)st;
	VALID2("{\"allOf\":[{\"type\":\"integer\"},{\"minimum\":2}]}", "2", "30");
	INVALID2("{\"allOf\":[{\"type\":\"integer\"},{\"minimum\":2}]}", "1", "2.5");
}

static void test_any_of_needs_one_branch(void **st)
{
	(void)st;
	VALID2("{\"anyOf\":[{\"type\":\"string\"},{\"minimum\":2}]}", "\"a\"", "3", "null");
	INVALID2("{\"anyOf\":[{\"type\":\"string\"},{\"minimum\":2}]}", "1");
}

static void test_one_of_needs_exactly_one_branch(void **st)
{
	(void)st;
	const char *s = "{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":2}]}";
	VALID2(s, "1", "2.5");
	INVALID2(s, "3", "1.5");
}

static void test_not_inverts(void **st)
{
	(void)st;
	VALID2("{\"not\":{\"type\":\"integer\"}}", "\"a\"", "1.5");
	INVALID2("{\"not\":{\"type\":\"integer\"}}", "1");
	INVALID2("{\"not\":true}", "1");
	VALID2("{\"not\":false}", "1");
}

static void test_if_then_else_branches(void **st)
{
	(void)st;
	const char *s = "{\"if\":{\"properties\":{\"k\":{\"const\":\"file\"}}},"
	                "\"then\":{\"required\":[\"path\"]},\"else\":{\"required\":[\"url\"]}}";
	VALID2(s, "{\"k\":\"file\",\"path\":1}", "{\"k\":\"web\",\"url\":1}");
	/* without k, "if" holds (properties is vacuous), so "then" applies */
	INVALID2(s, "{\"k\":\"file\"}", "{\"k\":\"web\",\"path\":1}", "{\"url\":1}");
	/* then and else without if do nothing */
	VALID2("{\"then\":false,\"else\":false}", "1");
}

static void test_boolean_schemas(void **st)
{
	(void)st;
	VALID2("true", "1", "null", "{}");
	INVALID2("false", "1", "null", "{}");
	VALID2("{}", "[1,{\"a\":null}]");
}

static void test_ref_to_definitions_and_defs(void **st)
{
	(void)st;
	VALID("{\"definitions\":{\"p\":{\"type\":\"string\"}},\"properties\":{\"a\":{\"$ref\":\"#/definitions/p\"}}}",
	      D7, "{\"a\":\"x\"}");
	INVALID("{\"definitions\":{\"p\":{\"type\":\"string\"}},\"properties\":{\"a\":{\"$ref\":\"#/definitions/p\"}}}",
	        D7, "{\"a\":1}");
	VALID("{\"$defs\":{\"p\":{\"type\":\"string\"}},\"properties\":{\"a\":{\"$ref\":\"#/$defs/p\"}}}",
	      D20, "{\"a\":\"x\"}");
	INVALID("{\"$defs\":{\"p\":{\"type\":\"string\"}},\"properties\":{\"a\":{\"$ref\":\"#/$defs/p\"}}}",
	        D20, "{\"a\":1}");
}

static void test_ref_pointer_escapes_tilde_slash_and_percent(void **st)
{
	(void)st;
	const char *s =
	        "{\"$defs\":{\"a~b/c%d\":{\"type\":\"string\"},\"e f\":{\"type\":\"integer\"}},"
	        "\"properties\":{\"x\":{\"$ref\":\"#/$defs/a~0b~1c%25d\"},"
	        "\"y\":{\"$ref\":\"#/$defs/e%20f\"}}}";
	VALID(s, D20, "{\"x\":\"s\",\"y\":1}");
	INVALID(s, D20, "{\"x\":1}", "{\"y\":\"s\"}");
}

static void test_ref_to_array_element_and_root_recursion(void **st)
{
	(void)st;
	const char *tree = "{\"type\":\"object\",\"properties\":{\"kids\":{\"type\":\"array\","
	                   "\"items\":{\"$ref\":\"#\"}},\"n\":{\"type\":\"integer\"}}}";
	VALID2(tree, "{\"n\":1,\"kids\":[{\"n\":2,\"kids\":[]},{}]}");
	INVALID2(tree, "{\"kids\":[{\"kids\":[{\"n\":\"x\"}]}]}");
	VALID2("{\"properties\":{\"b\":{\"type\":\"string\"},\"a\":{\"$ref\":\"#/properties/b\"}}}",
	       "{\"a\":\"s\"}");
	INVALID2(
	        "{\"properties\":{\"b\":{\"type\":\"string\"},\"a\":{\"$ref\":\"#/properties/b\"}}}",
	        "{\"a\":1}");
}

static void test_ref_with_siblings_applies_both_in_2020(void **st)
{
	(void)st;
	const char *s =
	        "{\"$defs\":{\"s\":{\"type\":\"string\"}},\"$ref\":\"#/$defs/s\",\"minLength\":2}";
	VALID(s, D20, "\"ab\"");
	INVALID(s, D20, "\"a\"", "12");
}

static void test_id_resolution_inside_one_document(void **st)
{
	(void)st;
	const char *s =
	        "{\"$id\":\"http://example.com/root.json\",\"$defs\":{"
	        "\"i\":{\"$id\":\"item.json\",\"type\":\"integer\"},"
	        "\"j\":{\"$id\":\"http://other.example/j\",\"$defs\":{\"k\":{\"type\":\"string\"}}}},"
	        "\"properties\":{\"a\":{\"items\":{\"$ref\":\"item.json\"}},"
	        "\"b\":{\"$ref\":\"http://other.example/j#/$defs/k\"}}}";
	VALID(s, D20, "{\"a\":[1,2],\"b\":\"x\"}");
	INVALID(s, D20, "{\"a\":[\"x\"]}", "{\"b\":1}");
	VALID(s, D7, "{\"a\":[1,2],\"b\":\"x\"}");
	INVALID(s, D7, "{\"a\":[\"x\"]}");
}

static void test_anchor_2020_and_plain_name_id_draft07(void **st)
{
	(void)st;
	VALID("{\"$defs\":{\"x\":{\"$anchor\":\"num\",\"type\":\"number\"}},\"$ref\":\"#num\"}",
	      D20, "1");
	INVALID("{\"$defs\":{\"x\":{\"$anchor\":\"num\",\"type\":\"number\"}},\"$ref\":\"#num\"}",
	        D20, "\"1\"");
	VALID("{\"definitions\":{\"x\":{\"$id\":\"#num\",\"type\":\"number\"}},\"allOf\":[{\"$ref\":\"#num\"}]}",
	      D7, "1");
	INVALID("{\"definitions\":{\"x\":{\"$id\":\"#num\",\"type\":\"number\"}},\"allOf\":[{\"$ref\":\"#num\"}]}",
	        D7, "\"1\"");
}

static void test_ref_to_builtin_metaschemas(void **st)
{
	(void)st;
	VALID("{\"$ref\":\"https://json-schema.org/draft/2020-12/schema\"}", D20,
	      "{\"type\":\"string\"}", "true", "{\"properties\":{\"a\":{\"minLength\":1}}}");
	INVALID("{\"$ref\":\"https://json-schema.org/draft/2020-12/schema\"}", D20, "{\"type\":5}",
	        "{\"properties\":{\"a\":{\"minLength\":-1}}}", "3");
	VALID("{\"$ref\":\"http://json-schema.org/draft-07/schema#\"}", D20, "{\"items\":[{}]}");
	INVALID("{\"$ref\":\"http://json-schema.org/draft-07/schema#\"}", D20, "{\"items\":[1]}",
	        "{\"required\":[\"a\",\"a\"]}");
}

static void test_annotations_and_extensions_are_accepted(void **st)
{
	(void)st;
	VALID2("{\"title\":\"t\",\"description\":\"d\",\"default\":1,\"examples\":[1],"
	       "\"$comment\":\"c\",\"readOnly\":true,\"writeOnly\":false,\"deprecated\":true,"
	       "\"contentMediaType\":\"text/plain\",\"contentEncoding\":\"base64\",\"x-foo\":{\"bar\":1}}",
	       "1", "\"x\"");
}

static void test_format_is_an_annotation_by_default(void **st)
{
	(void)st;
	VALID2("{\"format\":\"email\"}", "\"not an email\"");
	VALID2("{\"format\":\"made-up\"}", "\"x\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_type_single_names_each_json_type),
		cmocka_unit_test(test_type_integer_is_decided_by_value),
		cmocka_unit_test(test_type_array_accepts_any_listed_type),
		cmocka_unit_test(test_enum_uses_json_equality),
		cmocka_unit_test(test_const_ignores_key_order_and_number_form),
		cmocka_unit_test(test_multiple_of_integers_and_decimals),
		cmocka_unit_test(test_multiple_of_large_decimals_is_not_lax),
		cmocka_unit_test(test_maximum_and_minimum_are_inclusive),
		cmocka_unit_test(test_exclusive_bounds_take_numbers),
		cmocka_unit_test(test_string_lengths_count_code_points),
		cmocka_unit_test(test_pattern_is_unanchored_ecma_like),
		cmocka_unit_test(test_items_schema_applies_to_every_item),
		cmocka_unit_test(test_prefix_items_2020_and_items_array_draft07),
		cmocka_unit_test(test_min_and_max_items),
		cmocka_unit_test(test_unique_items_uses_json_equality),
		cmocka_unit_test(test_unique_items_on_long_arrays),
		cmocka_unit_test(test_unique_items_long_path_agrees_with_pairwise),
		cmocka_unit_test(test_contains_needs_one_match),
		cmocka_unit_test(test_min_and_max_contains_count_matches),
		cmocka_unit_test(test_min_and_max_properties),
		cmocka_unit_test(test_required_lists_present_keys),
		cmocka_unit_test(test_dependent_required_and_schemas_2020),
		cmocka_unit_test(test_dependencies_draft07_both_forms),
		cmocka_unit_test(test_properties_apply_to_present_keys),
		cmocka_unit_test(test_pattern_properties_match_names),
		cmocka_unit_test(test_additional_properties_cover_the_rest),
		cmocka_unit_test(test_property_names_validate_keys),
		cmocka_unit_test(test_all_of_needs_every_branch),
		cmocka_unit_test(test_any_of_needs_one_branch),
		cmocka_unit_test(test_one_of_needs_exactly_one_branch),
		cmocka_unit_test(test_not_inverts),
		cmocka_unit_test(test_if_then_else_branches),
		cmocka_unit_test(test_boolean_schemas),
		cmocka_unit_test(test_ref_to_definitions_and_defs),
		cmocka_unit_test(test_ref_pointer_escapes_tilde_slash_and_percent),
		cmocka_unit_test(test_ref_to_array_element_and_root_recursion),
		cmocka_unit_test(test_ref_with_siblings_applies_both_in_2020),
		cmocka_unit_test(test_id_resolution_inside_one_document),
		cmocka_unit_test(test_anchor_2020_and_plain_name_id_draft07),
		cmocka_unit_test(test_ref_to_builtin_metaschemas),
		cmocka_unit_test(test_annotations_and_extensions_are_accepted),
		cmocka_unit_test(test_format_is_an_annotation_by_default),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
