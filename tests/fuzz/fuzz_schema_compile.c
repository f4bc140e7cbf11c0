/* fuzz_schema_compile.c — schema_compile_opts on an arbitrary document.
 * Schemas come from tool authors (manifests) and plugins; the compiler
 * must refuse what it cannot enforce and never crash, loop or leak on the
 * rest. A schema that compiles is then run against a few fixed instances
 * and against itself, with the verdict invariants of schema_check.h.
 *
 * Input: one byte of options, then the JSON document.
 *   byte & 3: 0 or 3 = $schema decides, 1 = draft-07, 2 = 2020-12
 *   byte & 4: assert format
 */
#include "schema_check.h"

static const char *const instances[] = {
	"null",    "true",
	"0",       "-1.5",
	"1e300",   "\"\"",
	"\"abc\"", "\"2024-01-01T00:00:00Z\"",
	"[]",      "[1, \"a\", null, [1], {\"a\": 1}]",
	"{}",      "{\"a\": 1, \"b\": \"x\", \"c\": [true], \"d\": {\"e\": null}}",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static const enum schema_draft drafts[4] = {
		SCHEMA_DRAFT_AUTO,
		SCHEMA_DRAFT_07,
		SCHEMA_DRAFT_2020_12,
		SCHEMA_DRAFT_AUTO,
	};
	struct schema_options opts = {
		.draft = drafts[data[0] & 3],
		.assert_format = (data[0] & 4) != 0,
	};
	json_t *doc = json_loadb((const char *)data + 1, size - 1,
	                         JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, NULL);
	if (!doc)
		return 0;
	struct tc_error err;
	memset(&err, 0, sizeof err);
	struct schema *s = schema_compile_opts(doc, &opts, &err);
	if (!s) {
		fuzz_assert(err.msg[0] != '\0');
		json_decref(doc);
		return 0;
	}
	fuzz_assert(schema_document(s) == doc);
	for (size_t i = 0; i < sizeof instances / sizeof *instances; i++) {
		json_t *inst = json_loads(instances[i], JSON_DECODE_ANY, NULL);
		fuzz_assert(inst != NULL);
		schema_check(s, inst, 4);
		json_decref(inst);
	}
	schema_check(s, doc, 0);
	schema_free(s);
	json_decref(doc);
	return 0;
}
