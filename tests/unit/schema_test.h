/* schema_test.h — helpers shared by the schema unit tests (static inline:
 * each test binary uses a different subset). Include after cmocka.h. */
#ifndef TC_SCHEMA_TEST_H
#define TC_SCHEMA_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"
#include "util.h"

static inline json_t *parse_json(const char *text)
{
	json_error_t jerr;
	json_t *j = json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
	if (!j)
		fail_msg("test JSON does not parse: %s: %s", jerr.text, text);
	return j;
}

static inline struct schema *compile_opts(const char *text, enum schema_draft d, bool formats,
                                          struct tc_error *err)
{
	json_t *doc = parse_json(text);
	struct schema_options o = { d, formats };
	memset(err, 0, sizeof *err);
	struct schema *s = schema_compile_opts(doc, &o, err);
	json_decref(doc); /* the schema keeps its own reference */
	return s;
}

static inline struct schema *compile_ok(const char *text, enum schema_draft d)
{
	struct tc_error err;
	struct schema *s = compile_opts(text, d, false, &err);
	if (!s)
		fail_msg("schema refused at '%s': %s\n  schema: %s", err.where, err.msg, text);
	return s;
}

/* Asserts the compile fails, the location is where and the message holds
 * each of the NULL-terminated fragments. */
static inline void compile_fails_v(const char *text, enum schema_draft d, bool formats,
                                   const char *where, const char *const *frags)
{
	struct tc_error err;
	struct schema *s = compile_opts(text, d, formats, &err);
	if (s) {
		schema_free(s);
		fail_msg("schema compiled but should be refused: %s", text);
	}
	assert_int_equal(err.code, TC_E_INVALID);
	if (where && strcmp(err.where, where))
		fail_msg("refused at '%s', expected '%s' (%s)", err.where, where, err.msg);
	for (; *frags; frags++)
		if (!strstr(err.msg, *frags))
			fail_msg("message lacks '%s': %s", *frags, err.msg);
}
#define compile_fails(text, d, where, ...)                                                         \
	compile_fails_v(text, d, false, where, (const char *const[]){ __VA_ARGS__, NULL })

/* Validates inst both ways (verdict only, and with diagnostics), asserts
 * the two agree, and returns 1 valid / 0 invalid. */
static inline int check_instance(const struct schema *s, const char *inst_text)
{
	json_t *inst = parse_json(inst_text);
	int quick = schema_validate(s, inst, NULL, 0);
	struct schema_result res;
	int full = schema_validate(s, inst, &res, 0);
	json_decref(inst);
	if (quick != full)
		fail_msg("verdict differs with diagnostics: %d vs %d for %s", quick, full,
		         inst_text);
	if (full == 1 && res.count)
		fail_msg("valid but has %zu diagnostics", res.count);
	if (full == 0 && res.count == 0)
		fail_msg("invalid without a diagnostic: %s", inst_text);
	schema_result_release(&res);
	return full;
}

/* Asserts each instance of a NULL-terminated list has the verdict. */
static inline void expect_v(const char *schema, enum schema_draft d, int valid,
                            const char *const *insts)
{
	struct schema *s = compile_ok(schema, d);
	for (; *insts; insts++) {
		int r = check_instance(s, *insts);
		if (r != valid)
			fail_msg("%s: expected %s, got %s (draft %d)\n  schema: %s", *insts,
			         valid ? "valid" : "invalid",
			         r == 1         ? "valid" :
			                 r == 0 ? "invalid" :
			                          "error",
			         (int)d, schema);
	}
	schema_free(s);
}
#define VALID(schema, d, ...)   expect_v(schema, d, 1, (const char *const[]){ __VA_ARGS__, NULL })
#define INVALID(schema, d, ...) expect_v(schema, d, 0, (const char *const[]){ __VA_ARGS__, NULL })
/* Both drafts: the override makes the same text a draft-07 and a 2020-12 schema. */
#define VALID2(schema, ...)                                                                        \
	do {                                                                                       \
		VALID(schema, SCHEMA_DRAFT_07, __VA_ARGS__);                                       \
		VALID(schema, SCHEMA_DRAFT_2020_12, __VA_ARGS__);                                  \
	} while (0)
#define INVALID2(schema, ...)                                                                      \
	do {                                                                                       \
		INVALID(schema, SCHEMA_DRAFT_07, __VA_ARGS__);                                     \
		INVALID(schema, SCHEMA_DRAFT_2020_12, __VA_ARGS__);                                \
	} while (0)

/* The diagnostics of inst as schema_result_text gives them (caller frees). */
static inline char *diag_text(const char *schema, const char *inst_text, size_t max_diags, int *rc)
{
	struct schema *s = compile_ok(schema, SCHEMA_DRAFT_AUTO);
	json_t *inst = parse_json(inst_text);
	struct schema_result res;
	*rc = schema_validate(s, inst, &res, max_diags);
	char *text = schema_result_text(&res);
	schema_result_release(&res);
	json_decref(inst);
	schema_free(s);
	return text;
}

static inline void expect_text(const char *schema, const char *inst, const char *want)
{
	int rc;
	char *text = diag_text(schema, inst, 0, &rc);
	if (strcmp(text, want))
		fail_msg("diagnostics differ\n  got:  %s\n  want: %s", text, want);
	free(text);
}

#endif
