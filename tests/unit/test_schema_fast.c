/* test_schema_fast.c — the validator's precomputed fast paths give the same
 * verdicts as the general ones: simple patterns matched by a DFA instead of
 * PCRE2 (checked against PCRE2 itself, on runs of every length around the
 * DFA's eight-byte steps), property lookup through a perfect or a probed
 * key table, required properties ticked off during the pass over an
 * object's keys (beyond 64 of them, not properties, unicode and look-alike
 * keys), leaf properties checked in place (up to the depth limit), string
 * lengths settled by byte length unless code points must be counted, enum
 * of strings compared by length and bytes, and numeric bounds compared
 * without jansson. Every instance goes through check_instance or
 * check_value: verdict-only and diagnostic runs must agree, since only the
 * verdict-only run takes the key pass and checks leaves in place. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "schema_test.h"
#include "schema_internal.h"

#define AUTO SCHEMA_DRAFT_AUTO

static const struct snode *root_node(const struct schema *s)
{
	return &s->nodes[s->root];
}

/* ---- simple patterns against PCRE2 --------------------------------------- */

/* PCRE2 as the validator compiles and runs patterns (schema_keywords.c):
 * JIT-compiled when JIT is available, since PCRE2's JIT and interpreter
 * can differ on an empty match next to invalid UTF-8 ("$" on "/\xff"). */
static int pcre2_verdict(const char *pattern, const char *subj, size_t len)
{
	int ec;
	PCRE2_SIZE off;
	pcre2_code *code =
	        pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
	                      PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY |
	                              PCRE2_ALT_BSUX | PCRE2_ALLOW_EMPTY_CLASS,
	                      &ec, &off, NULL);
	if (!code)
		fail_msg("PCRE2 refuses test pattern %s", pattern);
	(void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE); /* pcre2_match uses it */
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	int rc = pcre2_match(code, (PCRE2_SPTR)subj, len, 0, 0, md, NULL);
	pcre2_match_data_free(md);
	pcre2_code_free(code);
	return rc >= 0;
}

static const char *const simple_patterns[] = {
	"^/[A-Za-z0-9._/-]*$",
	"^[a-z][a-z0-9_]*$",
	"^[a-z][a-z0-9_]{0,7}$",
	"abc",
	"b+c?$",
	"^\\d{3}-\\d{4}$",
	"^\\w+$",
	"x*",
	"",
	"^$",
	"^",
	"$",
	"[-a]",
	"[a-]",
	"[\\]\\-]+",
	"^a{2,3}$",
	"a{0}b",
	"^[ -~]*$",
	"colou?r",
	"^\\.\\*\\+$",
	"[$^]",
	"^a+b+$",
	"a{2,}$",
	"^[A-Z]{2}[0-9]{2,4}",
	"^\\/tmp\\/",
	"[\\d_]x",
	"^[a-f0-9]{8}-[a-f0-9]{4}$",
};

static const char *const declined_patterns[] = {
	"^(?:x)$", "a|b",      ".",       "^.*$",    "[^a]",     "\\s",    "a*?",
	"a++",     "\xc3\xa9", "[a-c-e]", "a{,3}",   "a{65}",    "\\bfoo", "[[:alpha:]]",
	"(a)\\1",  "[]",       "[\\d-z]", "\\u0041", "a{3,2}x{",
};

/* Subjects, with their lengths: some hold NUL, one is not UTF-8. */
static const struct {
	const char *s;
	size_t len;
} subjects[] = {
	{ "", 0 },
	{ "a", 1 },
	{ "abc", 3 },
	{ "/var/log/syslog", 15 },
	{ "/var log", 8 },
	{ "relative/path", 13 },
	{ "\xc3\xa9", 2 },
	{ "/\xc3\xa9", 3 },
	{ "a\nb", 3 },
	{ "ab\0c", 4 },
	{ "123-4567", 8 },
	{ "12-4567", 7 },
	{ "aa", 2 },
	{ "aaa", 3 },
	{ "aaaa", 4 },
	{ "color", 5 },
	{ "colour", 6 },
	{ "b", 1 },
	{ "bc", 2 },
	{ "xbc", 3 },
	{ "aabb", 4 },
	{ "ab\n", 3 },
	{ "/\xff", 2 },
	{ "-", 1 },
	{ "]-]", 3 },
	{ "$", 1 },
	{ "^", 1 },
	{ ".*+", 3 },
	{ "AB123", 5 },
	{ "AB1", 3 },
	{ "/tmp/x", 6 },
	{ "7x", 2 },
	{ "_x", 2 },
	{ "deadbeef-0a1b", 13 },
	{ "deadbeef-0A1B", 13 },
	{ "x_1", 3 },
	{ "abcdefgh", 8 },
	{ "abcdefghi", 9 },
	{ "a1_b2", 5 },
	{ "Abc", 3 },
	{ "\x7f", 1 },
};

static void check_pattern(const char *pattern, bool simple)
{
	json_t *doc = json_pack("{s:s, s:s}", "type", "string", "pattern", pattern);
	struct tc_error err;
	struct schema *s = schema_compile(doc, AUTO, &err);
	json_decref(doc);
	if (!s)
		fail_msg("pattern %s refused: %s", pattern, err.msg);
	if ((root_node(s)->pattern.fast != NULL) != simple)
		fail_msg("pattern %s: expected %s", pattern, simple ? "the DFA" : "PCRE2");
	for (size_t i = 0; i < sizeof subjects / sizeof subjects[0]; i++) {
		/* nocheck: the invalid UTF-8 subject must reach the matcher */
		json_t *inst = json_stringn_nocheck(subjects[i].s, subjects[i].len);
		int got = schema_validate(s, inst, NULL, 0);
		int want = pcre2_verdict(pattern, subjects[i].s, subjects[i].len);
		json_decref(inst);
		if (got != want)
			fail_msg("pattern %s on subject #%zu: validator says %d, PCRE2 says %d",
			         pattern, i, got, want);
	}
	schema_free(s);
}

static void test_simple_patterns_use_the_dfa_and_match_like_pcre2(void **st)
{
	(void)st;
	for (size_t i = 0; i < sizeof simple_patterns / sizeof simple_patterns[0]; i++)
		check_pattern(simple_patterns[i], true);
}

static void test_other_patterns_stay_with_pcre2(void **st)
{
	(void)st;
	for (size_t i = 0; i < sizeof declined_patterns / sizeof declined_patterns[0]; i++) {
		json_t *doc = json_pack("{s:s}", "pattern", declined_patterns[i]);
		struct tc_error err;
		struct schema *s = schema_compile(doc, AUTO, &err);
		json_decref(doc);
		if (!s)
			continue; /* PCRE2 refuses it: nothing to match */
		schema_free(s);
		check_pattern(declined_patterns[i], false);
	}
}

static void test_pattern_properties_with_simple_patterns(void **st)
{
	(void)st;
	const char *schema = "{\"patternProperties\":{\"^x_[a-z]+$\":{\"type\":\"integer\"},"
	                     "\"_id$\":{\"type\":\"string\"}},\"additionalProperties\":false}";
	struct schema *s = compile_ok(schema, AUTO);
	assert_non_null(root_node(s)->pats[0].re.fast);
	assert_non_null(root_node(s)->pats[1].re.fast);
	assert_int_equal(check_instance(s, "{\"x_ab\":1,\"user_id\":\"u\"}"), 1);
	assert_int_equal(check_instance(s, "{\"x_ab\":\"no\"}"), 0);
	assert_int_equal(check_instance(s, "{\"x_AB\":1}"), 0);
	assert_int_equal(check_instance(s, "{\"x_\u00e9\":1}"), 0);
	assert_int_equal(check_instance(s, "{\"x_id\":1}"), 0); /* both match: string fails */
	schema_free(s);
}

/* The DFA steps through runs of bytes that keep its state eight at a time,
 * and settles a run's last bytes with the string's last eight: a bad byte
 * at every position of subjects of every length up to 40 (long runs of
 * good bytes around it) must get PCRE2's verdict. */
static void test_dfa_runs_of_every_length_match_like_pcre2(void **st)
{
	(void)st;
	static const struct {
		const char *pattern, *fill;
		char first, last;
	} cases[] = {
		{ "^/[a-z0-9._/-]*$", "ab.c/9", '/', 'z' }, { "^[a-z]*$", "abcd", 'a', 'z' },
		{ "[a-z]*x$", "abcd", 'a', 'x' },           { "^a[b-d]*e$", "bcd", 'a', 'e' },
		{ "^[a-z]{2,}[0-9]*$", "bc", 'a', '9' },    { "b*", "b", 'b', 'b' },
	};
	static const char bad[] = { 'A', ' ', '/', 'x', '\x80', '\0' };
	char subj[48];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *doc = json_pack("{s:s}", "pattern", cases[i].pattern);
		struct tc_error err;
		struct schema *s = schema_compile(doc, AUTO, &err);
		json_decref(doc);
		if (!s || !root_node(s)->pattern.fast)
			fail_msg("pattern %s: not compiled to a DFA", cases[i].pattern);
		size_t nfill = strlen(cases[i].fill);
		for (size_t len = 0; len <= 40; len++) {
			for (size_t k = 0; k <= len; k++) { /* k == len: no bad byte */
				for (size_t b = 0; b < sizeof bad; b++) {
					for (size_t j = 0; j < len; j++)
						subj[j] = cases[i].fill[j % nfill];
					if (len)
						subj[0] = cases[i].first;
					if (len > 1)
						subj[len - 1] = cases[i].last;
					if (k < len)
						subj[k] = bad[b];
					json_t *inst = json_stringn_nocheck(subj, len);
					int got = schema_validate(s, inst, NULL, 0);
					json_decref(inst);
					int want = pcre2_verdict(cases[i].pattern, subj, len);
					if (got != want)
						fail_msg(
						        "pattern %s, %zu bytes, byte %zu = 0x%02x: validator %d, PCRE2 %d",
						        cases[i].pattern, len, k,
						        (unsigned char)bad[b], got, want);
					if (k == len)
						break;
				}
			}
		}
		schema_free(s);
	}
}

/* ---- property key tables ---------------------------------------------------- */

/* {"properties": {p0..p(n-1): integer}, "required": [...], ...} */
static char *numbered_schema(size_t n, size_t nreq, bool closed)
{
	struct buf b = BUF_INIT;
	buf_adds(&b, "{\"properties\":{");
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s\"p%zu\":{\"type\":\"integer\"}", i ? "," : "", i);
	buf_adds(&b, "},\"required\":[");
	for (size_t i = 0; i < nreq; i++)
		buf_printf(&b, "%s\"p%zu\"", i ? "," : "", i);
	buf_printf(&b, "]%s}", closed ? ",\"additionalProperties\":false" : "");
	return buf_detach(&b);
}

/* An instance with p0..p(n-1) = 1, except skip (absent) and bad (a string). */
static char *numbered_instance(size_t n, long skip, long bad, const char *extra)
{
	struct buf b = BUF_INIT;
	buf_adds(&b, "{");
	for (size_t i = 0; i < n; i++) {
		if ((long)i == skip)
			continue;
		buf_printf(&b, "%s\"p%zu\":%s", b.len > 1 ? "," : "", i,
		           (long)i == bad ? "\"x\"" : "1");
	}
	if (extra)
		buf_printf(&b, "%s%s", b.len > 1 ? "," : "", extra);
	buf_adds(&b, "}");
	return buf_detach(&b);
}

static int check_numbered(const struct schema *s, size_t n, long skip, long bad, const char *extra)
{
	char *inst = numbered_instance(n, skip, bad, extra);
	int r = check_instance(s, inst);
	free(inst);
	return r;
}

static void test_many_properties_use_the_probed_key_table(void **st)
{
	(void)st;
	char *schema = numbered_schema(200, 3, true);
	struct schema *s = compile_ok(schema, AUTO);
	free(schema);
	assert_int_equal(root_node(s)->pseed, 0);
	assert_non_null(root_node(s)->ktab);
	assert_int_equal(check_numbered(s, 200, -1, -1, NULL), 1);
	assert_int_equal(check_numbered(s, 200, 150, -1, NULL), 1); /* not required */
	assert_int_equal(check_numbered(s, 200, 2, -1, NULL), 0);   /* required */
	assert_int_equal(check_numbered(s, 200, -1, 199, NULL), 0); /* last one typed */
	assert_int_equal(check_numbered(s, 200, -1, 77, NULL), 0);
	assert_int_equal(check_numbered(s, 200, -1, -1, "\"p200\":1"), 0);
	assert_int_equal(check_numbered(s, 200, -1, -1, "\"p\":1"), 0);
	assert_int_equal(check_numbered(s, 3, -1, -1, NULL), 1);
	schema_free(s);
}

static void test_small_property_set_uses_a_perfect_table(void **st)
{
	(void)st;
	struct schema *s =
	        compile_ok("{\"properties\":{\"path\":{\"type\":\"string\"},"
	                   "\"mode\":{\"enum\":[\"r\",\"w\"]},\"limit\":{\"type\":\"integer\"},"
	                   "\"follow_links\":{\"type\":\"boolean\"},\"\":{\"type\":\"null\"}},"
	                   "\"additionalProperties\":false}",
	                   AUTO);
	assert_int_not_equal(root_node(s)->pseed, 0);
	assert_int_equal(check_instance(s,
	                                "{\"path\":\"/x\",\"mode\":\"r\",\"limit\":3,"
	                                "\"follow_links\":true,\"\":null}"),
	                 1);
	assert_int_equal(check_instance(s, "{\"\":0}"), 0);
	assert_int_equal(check_instance(s, "{\"pat\":\"/x\"}"), 0);
	assert_int_equal(check_instance(s, "{\"paths\":\"/x\"}"), 0);
	assert_int_equal(check_instance(s, "{\"ptah\":\"/x\"}"), 0); /* same signature as path */
	assert_int_equal(check_instance(s, "{\"follow_linkz\":true}"), 0);
	assert_int_equal(check_instance(s, "{\"limit\":\"3\"}"), 0);
	schema_free(s);
}

static void test_names_with_one_signature_fall_back_to_the_probed_table(void **st)
{
	(void)st;
	/* same length, first, middle and last byte: no perfect hash on those */
	struct schema *s = compile_ok("{\"properties\":{\"aZ1Wd\":{\"type\":\"integer\"},"
	                              "\"aQ1Rd\":{\"type\":\"string\"}},\"required\":[\"aQ1Rd\"],"
	                              "\"additionalProperties\":false}",
	                              AUTO);
	assert_int_equal(root_node(s)->pseed, 0);
	assert_non_null(root_node(s)->ktab);
	assert_int_equal(check_instance(s, "{\"aZ1Wd\":1,\"aQ1Rd\":\"s\"}"), 1);
	assert_int_equal(check_instance(s, "{\"aZ1Wd\":\"s\",\"aQ1Rd\":\"s\"}"), 0);
	assert_int_equal(check_instance(s, "{\"aZ1Wd\":1}"), 0);
	assert_int_equal(check_instance(s, "{\"aX1Yd\":1,\"aQ1Rd\":\"s\"}"), 0);
	schema_free(s);
}

static void test_members_in_any_order_find_their_properties(void **st)
{
	(void)st;
	/* the validator first tries the property declared after the last one
	 * found; members out of that order, repeated guesses and non-members
	 * must still land on the right property */
	const char *schema =
	        "{\"properties\":{\"b\":{\"type\":\"string\"},\"a\":{\"type\":\"integer\"},"
	        "\"bb\":{\"type\":\"boolean\"},\"c\":{\"type\":\"null\"}},"
	        "\"required\":[\"a\",\"c\"],\"additionalProperties\":{\"type\":\"array\"}}";
	VALID(schema, AUTO, "{\"b\":\"s\",\"a\":1,\"bb\":true,\"c\":null}",
	      "{\"c\":null,\"bb\":false,\"a\":2,\"b\":\"\"}", "{\"a\":1,\"c\":null}",
	      "{\"x\":[],\"c\":null,\"y\":[1],\"a\":3}", "{\"c\":null,\"a\":0,\"b\":\"z\"}");
	INVALID(schema, AUTO, "{\"b\":\"s\",\"a\":\"1\",\"bb\":true,\"c\":null}",
	        "{\"c\":null,\"bb\":1,\"a\":2}", "{\"a\":1,\"B\":\"s\",\"c\":null}",
	        "{\"b\":\"s\",\"c\":null}", "{\"a\":1,\"c\":0}", "{\"a\":1,\"c\":null,\"ab\":1}");
}

/* ---- required during the key pass ------------------------------------------- */

/* check_instance for an instance built in code (keys with NUL cannot be
 * parsed) */
static int check_value(const struct schema *s, json_t *inst)
{
	int quick = schema_validate(s, inst, NULL, 0);
	struct schema_result res;
	int full = schema_validate(s, inst, &res, 0);
	if (quick != full)
		fail_msg("verdict differs with diagnostics: %d vs %d", quick, full);
	if ((full == 1) != (res.count == 0))
		fail_msg("verdict %d with %zu diagnostics", full, res.count);
	schema_result_release(&res);
	json_decref(inst);
	return full;
}

/* {"a":1, ...}: the NULL-terminated keys (with their lengths) set to 1 */
static json_t *object_of(const char *const *keys, const size_t *lens)
{
	json_t *o = json_object();
	for (size_t i = 0; keys[i]; i++)
		json_object_setn_new_nocheck(o, keys[i], lens[i], json_integer(1));
	return o;
}
#define OBJ(...)                                                                                   \
	object_of((const char *const[]){ __VA_ARGS__, NULL }, (const size_t[]){ LENS(__VA_ARGS__) })
/* lengths by sizeof: every key is a string literal (which may hold NUL) */
#define LENS(...)              LENS_(__VA_ARGS__, "", "", "", "")
#define LENS_(a, b, c, d, ...) sizeof(a) - 1, sizeof(b) - 1, sizeof(c) - 1, sizeof(d) - 1

static void test_required_look_alike_keys_are_distinct(void **st)
{
	(void)st;
	/* properties a, "a\0b", A; required a and "a\0b" (built in code:
	 * jansson does not parse NUL in keys) */
	json_t *props = json_object();
	json_object_setn_new_nocheck(props, "a", 1, json_object());
	json_object_setn_new_nocheck(props, "a\0b", 3, json_object());
	json_object_setn_new_nocheck(props, "A", 1, json_object());
	json_t *doc = json_pack("{s:o, s:[s, s#]}", "properties", props, "required", "a", "a\0b",
	                        (size_t)3);
	struct tc_error err;
	struct schema *s = schema_compile(doc, AUTO, &err);
	json_decref(doc);
	if (!s)
		fail_msg("refused: %s", err.msg);
	assert_int_equal(root_node(s)->req_mask, 3);
	assert_int_equal(check_value(s, OBJ("a", "a\0b")), 1);
	assert_int_equal(check_value(s, OBJ("A", "a", "a\0b", "b")), 1);
	assert_int_equal(check_value(s, OBJ("a\0", "a\0b")), 0);
	assert_int_equal(check_value(s, OBJ("A", "a\0b")), 0);
	assert_int_equal(check_value(s, OBJ("a ", "a\0b")), 0);
	assert_int_equal(check_value(s, OBJ("a", "a\0")), 0);
	assert_int_equal(check_value(s, OBJ("a", "ab")), 0);
	assert_int_equal(check_value(s, OBJ("a", "a\0b\0")), 0);
	assert_int_equal(check_value(s, json_object()), 0);
	schema_free(s);
}

static void test_required_unicode_keys_compare_by_bytes(void **st)
{
	(void)st;
	/* precomposed e-acute and e + combining acute are different names */
	const char *schema =
	        "{\"properties\":{\"\\u043a\\u043b\\u044e\\u0447\":{\"type\":\"string\"},"
	        "\"\\u00e9\":{\"type\":\"boolean\"},\"e\\u0301\":{\"type\":\"null\"},"
	        "\"\\ud83d\\ude00\":{}},"
	        "\"required\":[\"\\u043a\\u043b\\u044e\\u0447\",\"\\u00e9\",\"\\ud83d\\ude00\"]}";
	VALID(schema, AUTO,
	      "{\"\\u043a\\u043b\\u044e\\u0447\":\"v\",\"\\u00e9\":true,\"\\ud83d\\ude00\":0}",
	      "{\"\\ud83d\\ude00\":0,\"e\\u0301\":null,\"\\u00e9\":false,\"\\u043a\\u043b\\u044e\\u0447\":\"\"}");
	INVALID(schema, AUTO,
	        "{\"\\u043a\\u043b\\u044e\\u0447\":\"v\",\"e\\u0301\":null,\"\\ud83d\\ude00\":0}",
	        "{\"\\u043a\\u043b\\u044e\\u0447\":\"v\",\"\\u00e9\":true}",
	        "{\"\\u043a\\u043b\\u044e\\u0447\":1,\"\\u00e9\":true,\"\\ud83d\\ude00\":0}");
}

static void test_required_names_that_are_not_properties_are_looked_up(void **st)
{
	(void)st;
	const char *schema =
	        "{\"properties\":{\"a\":{\"type\":\"integer\"}},\"required\":[\"zzz\",\"a\"]}";
	VALID(schema, AUTO, "{\"a\":1,\"zzz\":null}", "{\"zzz\":0,\"a\":2,\"b\":3}");
	INVALID(schema, AUTO, "{\"a\":1}", "{\"zzz\":1}", "{\"zzz\":1,\"a\":\"x\"}");
	/* no properties at all: nothing is ticked off, everything looked up */
	VALID("{\"required\":[\"a\",\"b\"]}", AUTO, "{\"b\":1,\"a\":2}");
	INVALID("{\"required\":[\"a\",\"b\"]}", AUTO, "{\"a\":1}", "{\"c\":1}");
}

static void test_required_beyond_64_properties(void **st)
{
	(void)st;
	char *schema = numbered_schema(70, 70, false);
	struct schema *s = compile_ok(schema, AUTO);
	free(schema);
	assert_int_equal(root_node(s)->nreq_rest, 6); /* 64 as bits, 6 looked up */
	assert_int_equal(check_numbered(s, 70, -1, -1, NULL), 1);
	assert_int_equal(check_numbered(s, 70, 0, -1, NULL), 0);
	assert_int_equal(check_numbered(s, 70, 63, -1, NULL), 0);
	assert_int_equal(check_numbered(s, 70, 64, -1, NULL), 0);
	assert_int_equal(check_numbered(s, 70, 69, -1, NULL), 0);
	schema_free(s);
}

static void test_required_in_branches_and_nested_objects(void **st)
{
	(void)st;
	/* quiet evaluation of branches (anyOf, not, if) uses the key pass even
	 * while the outer run collects diagnostics */
	const char *schema =
	        "{\"anyOf\":[{\"properties\":{\"a\":{}},\"required\":[\"a\"]},"
	        "{\"properties\":{\"b\":{}},\"required\":[\"b\"]}],"
	        "\"not\":{\"properties\":{\"c\":{}},\"required\":[\"c\"]},"
	        "\"properties\":{\"o\":{\"properties\":{\"k\":{}},\"required\":[\"k\"]}}}";
	VALID(schema, AUTO, "{\"a\":1}", "{\"b\":1,\"o\":{\"k\":0}}");
	INVALID(schema, AUTO, "{}", "{\"a\":1,\"c\":1}", "{\"a\":1,\"o\":{}}",
	        "{\"a\":1,\"o\":{\"K\":1}}");
}

/* ---- leaf properties, checked in place --------------------------------------- */

/* The property of the root named name. */
static const struct sprop *root_prop(const struct schema *s, const char *name)
{
	const struct sprop *p = sprop_find(root_node(s), name, strlen(name));
	if (!p)
		fail_msg("no property %s", name);
	return p;
}

static void test_leaf_properties_are_checked_in_place_with_the_same_verdicts(void **st)
{
	(void)st;
	const char *schema =
	        "{\"type\":\"object\",\"properties\":{"
	        "\"path\":{\"type\":\"string\",\"pattern\":\"^/[a-z./]*$\",\"maxLength\":12},"
	        "\"mode\":{\"enum\":[\"read\",\"writ\",\"appe\"]},"
	        "\"n\":{\"type\":\"integer\",\"minimum\":1,\"exclusiveMaximum\":100},"
	        "\"r\":{\"type\":\"number\",\"multipleOf\":0.5},\"b\":{\"type\":\"boolean\"},"
	        "\"c\":{\"const\":{\"k\":[1,2]}},\"t\":true,\"f\":false,"
	        "\"o\":{\"properties\":{\"x\":{\"type\":\"integer\"}},\"required\":[\"x\"]},"
	        "\"a\":{\"items\":{\"type\":\"string\"}},\"ref\":{\"$ref\":\"#/properties/n\"},"
	        "\"alt\":{\"anyOf\":[{\"type\":\"string\"},{\"minimum\":0}]}},"
	        "\"required\":[\"path\"],\"additionalProperties\":{\"$ref\":\"#/properties/b\"}}";
	struct schema *s = compile_ok(schema, AUTO);
	/* leaves: their keywords look at the value alone */
	static const char *const leaves[] = { "path", "mode", "r", "c" };
	for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++)
		if (!root_prop(s, leaves[i])->leaf)
			fail_msg("%s should be a leaf", leaves[i]);
	/* not leaves: boolean schemas, descent, applicators, and nodes reached
	 * twice ("n" through $ref, "b" through additionalProperties) */
	static const char *const others[] = { "t", "f", "o", "a", "ref", "alt", "n", "b" };
	for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
		if (root_prop(s, others[i])->leaf)
			fail_msg("%s should not be a leaf", others[i]);
	schema_free(s);
	VALID(schema, AUTO, "{\"path\":\"/a\"}",
	      "{\"path\":\"/a/b.c\",\"mode\":\"writ\",\"n\":99,\"r\":2.5,\"b\":false,"
	      "\"c\":{\"k\":[1,2.0]},\"t\":[],\"o\":{\"x\":1},\"a\":[\"s\"],\"ref\":1,\"alt\":\"s\"}",
	      "{\"ref\":5,\"alt\":0,\"path\":\"/\",\"zz\":true}");
	INVALID(schema, AUTO, "{}", "{\"path\":\"/a/b/c/d/e/f/g\"}", "{\"path\":\"a\"}",
	        "{\"path\":\"/a\",\"mode\":\"write\"}", "{\"path\":\"/a\",\"mode\":\"wri\"}",
	        "{\"path\":\"/a\",\"n\":100}", "{\"path\":\"/a\",\"n\":1.5}",
	        "{\"path\":\"/a\",\"r\":0.25}", "{\"path\":\"/a\",\"c\":{\"k\":[2,1]}}",
	        "{\"path\":\"/a\",\"f\":0}", "{\"path\":\"/a\",\"o\":{}}",
	        "{\"path\":\"/a\",\"a\":[1]}", "{\"path\":\"/a\",\"ref\":0}",
	        "{\"path\":\"/a\",\"alt\":-1}", "{\"path\":\"/a\",\"zz\":1}",
	        "{\"path\":\"/a\",\"b\":1}", "{\"path\":1}");
	/* with diagnostics a leaf is entered as before: its pointer is named */
	expect_text(schema, "{\"path\":\"/a\",\"n\":0,\"mode\":\"x\",\"zz\":1}",
	            "/n: must be >= 1, got 0; /mode: must be one of read, writ, appe; "
	            "/zz: expected boolean, got number");
}

/* {"n": ... {"n": {"v": 1}}} with the leaf v in an object nested depth
 * levels down */
static json_t *nested_leaf(unsigned depth)
{
	json_t *inst = json_pack("{s:i}", "v", 1);
	for (unsigned i = 0; i < depth; i++)
		inst = json_pack("{s:o}", "n", inst);
	return inst;
}

static void test_leaf_beyond_the_depth_limit_is_refused_like_any_member(void **st)
{
	(void)st;
	/* a leaf is not entered, so the loop tests the depth limit entering it
	 * would: v at depth 128 is the last one validated, at 129 refused */
	struct schema *s = compile_ok("{\"properties\":{\"n\":{\"$ref\":\"#\"},"
	                              "\"v\":{\"type\":\"integer\",\"maximum\":3}},"
	                              "\"additionalProperties\":false}",
	                              AUTO);
	assert_true(root_prop(s, "v")->leaf);
	assert_int_equal(check_value(s, nested_leaf(SCHEMA_MAX_INSTANCE_DEPTH - 1)), 1);
	assert_int_equal(check_value(s, nested_leaf(SCHEMA_MAX_INSTANCE_DEPTH)), -1);
	json_t *inst = nested_leaf(SCHEMA_MAX_INSTANCE_DEPTH);
	struct schema_result res;
	assert_int_equal(schema_validate(s, inst, &res, 0), -1);
	assert_int_equal(res.count, 1);
	assert_non_null(strstr(res.diags[0].message, "nesting deeper than 128 levels"));
	schema_result_release(&res);
	json_decref(inst);
	schema_free(s);
}

/* ---- strings: byte length first ------------------------------------------------- */

static void test_lengths_near_the_bounds_count_code_points_when_bytes_cannot_tell(void **st)
{
	(void)st;
	/* e-acute is 2 bytes, the grinning face 4: a string of n bytes has
	 * between n / 4 and n code points, so only strings in between are
	 * counted; the verdict must be the count's either way */
	const char *mx = "{\"maxLength\":3}";
	VALID(mx, AUTO, "\"abc\"", "\"\\u00e9\\u00e9\\u00e9\"",
	      "\"\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\"", "\"a\\u00e9\\ud83d\\ude00\"",
	      "\"\"", "5");
	INVALID(mx, AUTO, "\"abcd\"", "\"\\u00e9\\u00e9\\u00e9\\u00e9\"",
	        "\"\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00a\"");
	const char *mn = "{\"minLength\":3}";
	VALID(mn, AUTO, "\"abc\"", "\"\\u00e9\\u00e9\\u00e9\"",
	      "\"\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\"", "\"abcdefghijkl\"", "null");
	INVALID(mn, AUTO, "\"ab\"", "\"\\u00e9\\u00e9\"", "\"\\ud83d\\ude00\\ud83d\\ude00\"",
	        "\"\"");
	expect_text(mx, "\"\\u00e9\\u00e9\\u00e9\\u00e9\"",
	            "/: must be at most 3 characters long, got 4");
	expect_text(mn, "\"\\ud83d\\ude00\\ud83d\\ude00\"",
	            "/: must be at least 3 characters long, got 2");
	/* lengths, then the pattern (DFA, or PCRE2 for a non-ASCII subject) */
	const char *both = "{\"minLength\":2,\"maxLength\":4,\"pattern\":\"^[a-z]+$\"}";
	VALID(both, AUTO, "\"ab\"", "\"abcd\"");
	INVALID(both, AUTO, "\"abcde\"", "\"ab1\"", "\"\\u00e9\\u00e9\"", "\"a\"");
	expect_text(both, "\"abcd1\"",
	            "/: must be at most 4 characters long, got 5; "
	            "/: must match the pattern '^[a-z]+$'");
	expect_text(both, "\"\\u00e9\"",
	            "/: must be at least 2 characters long, got 1; "
	            "/: must match the pattern '^[a-z]+$'");
}

static void test_asserted_format_is_checked_after_a_matching_pattern(void **st)
{
	(void)st;
	struct tc_error err;
	struct schema *s = compile_opts("{\"properties\":{\"id\":{\"type\":\"string\","
	                                "\"pattern\":\"^[0-9a-f-]+$\",\"format\":\"uuid\"}}}",
	                                AUTO, true, &err);
	assert_non_null(s);
	assert_true(root_prop(s, "id")->leaf);
	assert_int_equal(check_instance(s, "{\"id\":\"1b4e28ba-2fa1-11d2-883f-0016d3cca427\"}"), 1);
	assert_int_equal(check_instance(s, "{\"id\":\"1b4e28ba\"}"), 0);
	assert_int_equal(check_instance(s, "{\"id\":\"1B4E28BA-2FA1-11D2-883F-0016D3CCA427\"}"), 0);
	schema_free(s);
}

/* ---- const and enum ------------------------------------------------------------- */

static void test_enum_strings_of_one_length_compare_every_byte(void **st)
{
	(void)st;
	/* lengths 0, 1, 4 (one word), 7 (two overlapping words), 10 (a
	 * word loop): equal lengths leave the bytes to decide */
	const char *schema =
	        "{\"enum\":[\"abcd\",\"abce\",\"bbcd\",\"\",\"x\",\"abcdefg\",\"abcdefh\","
	        "\"abcdefghij\",\"abcdefghik\"]}";
	VALID(schema, AUTO, "\"abcd\"", "\"abce\"", "\"bbcd\"", "\"\"", "\"x\"", "\"abcdefg\"",
	      "\"abcdefh\"", "\"abcdefghij\"", "\"abcdefghik\"");
	INVALID(schema, AUTO, "\"abcf\"", "\"abc\"", "\"abcde\"", "\"Abcd\"", "\"abcdefi\"",
	        "\"bbcdefg\"", "\"abcdefghil\"", "\"bbcdefghij\"", "\"X\"", "1", "null", "[\"x\"]");
	/* NUL inside: lengths and bytes, not C strings (built in code: the
	 * parser refuses \u0000 without JSON_ALLOW_NUL) */
	json_t *doc = json_pack("{s:[s#, s#, s]}", "enum", "\0", (size_t)1, "x\0y", (size_t)3, "x");
	struct tc_error err;
	struct schema *s = schema_compile(doc, AUTO, &err);
	json_decref(doc);
	assert_non_null(s);
	assert_int_equal(check_value(s, json_stringn("\0", 1)), 1);
	assert_int_equal(check_value(s, json_stringn("x\0y", 3)), 1);
	assert_int_equal(check_value(s, json_stringn("x", 1)), 1);
	assert_int_equal(check_value(s, json_stringn("x\0", 2)), 0);
	assert_int_equal(check_value(s, json_stringn("x\0z", 3)), 0);
	assert_int_equal(check_value(s, json_stringn("", 0)), 0);
	schema_free(s);
	/* not only strings: JSON equality, 1 == 1.0 */
	const char *mixed = "{\"enum\":[1,\"1\",null,[1],{\"a\":1}]}";
	VALID(mixed, AUTO, "1", "1.0", "\"1\"", "null", "[1.0]", "{\"a\":1}");
	INVALID(mixed, AUTO, "2", "\"2\"", "true", "[]", "{\"a\":2}", "\"\"");
}

static void test_values_settled_by_their_type_alone(void **st)
{
	(void)st;
	/* a value whose jansson type the node settles is not looked at: only
	 * types all of whose values pass (an integral real is an integer,
	 * others are not; enum and const look at every value) */
	static const struct {
		const char *schema;
		unsigned settled;
	} cases[] = {
		{ "{\"type\":\"number\"}", 1u << JSON_INTEGER | 1u << JSON_REAL },
		{ "{\"type\":\"integer\"}", 1u << JSON_INTEGER },
		{ "{\"type\":\"integer\",\"minimum\":0}", 0 },
		{ "{\"type\":[\"string\",\"null\"],\"maxLength\":3}", 1u << JSON_NULL },
		{ "{\"type\":\"boolean\",\"enum\":[true]}", 0 },
		{ "{\"minimum\":1}", 0xffu & ~(1u << JSON_INTEGER | 1u << JSON_REAL) },
		{ "{\"type\":\"object\",\"required\":[\"a\"]}", 1u << JSON_OBJECT },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct schema *s = compile_ok(cases[i].schema, AUTO);
		if (root_node(s)->settled != cases[i].settled)
			fail_msg("%s: settled 0x%x, expected 0x%x", cases[i].schema,
			         root_node(s)->settled, cases[i].settled);
		schema_free(s);
	}
	VALID("{\"type\":\"integer\"}", AUTO, "1", "1.0", "-0.0", "1e3");
	INVALID("{\"type\":\"integer\"}", AUTO, "1.5", "\"1\"", "true", "null");
	VALID("{\"properties\":{\"a\":{\"type\":[\"string\",\"null\"],\"maxLength\":3}}}", AUTO,
	      "{\"a\":null}", "{\"a\":\"abc\"}");
	INVALID("{\"properties\":{\"a\":{\"type\":[\"string\",\"null\"],\"maxLength\":3}}}", AUTO,
	        "{\"a\":\"abcd\"}", "{\"a\":0}", "{\"a\":false}");
}

static void test_no_type_keyword_admits_every_type(void **st)
{
	(void)st;
	/* without "type", the keywords of other kinds of values do not apply */
	const char *schema =
	        "{\"properties\":{\"v\":{\"minimum\":3,\"maxLength\":2,\"minItems\":1}}}";
	VALID(schema, AUTO, "{\"v\":3}", "{\"v\":\"ab\"}", "{\"v\":[0]}", "{\"v\":null}",
	      "{\"v\":true}", "{\"v\":{}}", "{}");
	INVALID(schema, AUTO, "{\"v\":2}", "{\"v\":2.5}", "{\"v\":\"abc\"}", "{\"v\":[]}");
}

/* ---- numeric bounds -------------------------------------------------------------- */

static void test_bounds_compare_integers_and_reals_exactly(void **st)
{
	(void)st;
	VALID("{\"minimum\":1,\"exclusiveMaximum\":2.5}", AUTO, "1", "1.0", "2", "2.4999");
	INVALID("{\"minimum\":1,\"exclusiveMaximum\":2.5}", AUTO, "0.999", "2.5", "3", "-1");
	VALID("{\"maximum\":9007199254740993}", AUTO, "9007199254740993", "9007199254740992.0",
	      "-5");
	INVALID("{\"maximum\":9007199254740993}", AUTO, "9007199254740994", "1e300");
	VALID("{\"exclusiveMinimum\":0}", AUTO, "1e-300", "1");
	INVALID("{\"exclusiveMinimum\":0}", AUTO, "0", "0.0", "-0.0", "-1e-300");
	VALID("{\"minimum\":-9223372036854775808,\"maximum\":9223372036854775807}", AUTO,
	      "-9223372036854775808", "9223372036854775807", "0.5");
	INVALID("{\"exclusiveMinimum\":-9223372036854775808}", AUTO, "-9223372036854775808");
	VALID("{\"exclusiveMaximum\":1.5,\"exclusiveMinimum\":1}", AUTO, "1.25");
	INVALID("{\"exclusiveMaximum\":1.5,\"exclusiveMinimum\":1}", AUTO, "1", "1.5");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simple_patterns_use_the_dfa_and_match_like_pcre2),
		cmocka_unit_test(test_other_patterns_stay_with_pcre2),
		cmocka_unit_test(test_pattern_properties_with_simple_patterns),
		cmocka_unit_test(test_dfa_runs_of_every_length_match_like_pcre2),
		cmocka_unit_test(test_many_properties_use_the_probed_key_table),
		cmocka_unit_test(test_small_property_set_uses_a_perfect_table),
		cmocka_unit_test(test_names_with_one_signature_fall_back_to_the_probed_table),
		cmocka_unit_test(test_members_in_any_order_find_their_properties),
		cmocka_unit_test(test_required_look_alike_keys_are_distinct),
		cmocka_unit_test(test_required_unicode_keys_compare_by_bytes),
		cmocka_unit_test(test_required_names_that_are_not_properties_are_looked_up),
		cmocka_unit_test(test_required_beyond_64_properties),
		cmocka_unit_test(test_required_in_branches_and_nested_objects),
		cmocka_unit_test(test_leaf_properties_are_checked_in_place_with_the_same_verdicts),
		cmocka_unit_test(test_leaf_beyond_the_depth_limit_is_refused_like_any_member),
		cmocka_unit_test(
		        test_lengths_near_the_bounds_count_code_points_when_bytes_cannot_tell),
		cmocka_unit_test(test_asserted_format_is_checked_after_a_matching_pattern),
		cmocka_unit_test(test_enum_strings_of_one_length_compare_every_byte),
		cmocka_unit_test(test_values_settled_by_their_type_alone),
		cmocka_unit_test(test_no_type_keyword_admits_every_type),
		cmocka_unit_test(test_bounds_compare_integers_and_reals_exactly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
