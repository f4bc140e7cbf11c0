/* fuzz_output.c — every transformation of a tool's output, on any bytes:
 * parsed as a manifest tool's "output": "json" is (any value), laid out
 * for the model (json_pretty, keys sorted or not), rendered (render_text),
 * and validated against a recursive output schema. Beyond "no crash":
 *  - the layout is linear: at most JSON_PRETTY_FACTOR bytes per byte of
 *    the value's compact JSON (JSON_INDENT's grew with depth times size:
 *    64 KiB of nested arrays became ~250 MiB);
 *  - it is the same value: it parses back equal;
 *  - down to JSON_PRETTY_DEPTH it is exactly jansson's JSON_INDENT(2);
 *  - the render is bounded by its budget's characters plus the marker;
 *  - nothing nested deeper than JSON_DEPTH_MAX passes the depth scan
 *    (json_text_depth) that stands before the parser.
 * A slow input shows as a libFuzzer timeout (make fuzz), a large one as
 * its RSS limit. */
#include <string.h>

#include "fuzz.h"
#include "json_pretty.h"
#include "render.h"
#include "schema.h"
#include "util.h"

/* Depth of v (scalars 0), for the comparison with JSON_INDENT; stops
 * counting past limit. */
static int depth_of(const json_t *v, int limit)
{
	if (limit < 0 || (!json_is_array(v) && !json_is_object(v)))
		return 0;
	int d = 0;
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v) && d <= limit; i++) {
			int x = depth_of(json_array_get(v, i), limit - 1);
			d = x > d ? x : d;
		}
	} else {
		const char *k;
		json_t *x;
		json_object_foreach((json_t *)v, k, x)
		{
			int y = depth_of(x, limit - 1);
			d = y > d ? y : d;
			if (d > limit)
				break;
		}
	}
	return d + 1;
}

static struct schema *output_schema(void)
{
	static struct schema *s;
	if (!s) {
		/* every keyword kind an output_schema of a tool uses, recursive */
		const char *text =
		        "{\"$defs\": {\"node\": {\"anyOf\": [{\"type\": \"array\", "
		        "\"items\": {\"$ref\": \"#/$defs/node\"}, \"maxItems\": 100000}, "
		        "{\"type\": \"object\", \"additionalProperties\": {\"$ref\": \"#/$defs/node\"}, "
		        "\"propertyNames\": {\"maxLength\": 64}}, {\"type\": [\"string\", \"number\", "
		        "\"boolean\", \"null\"]}]}}, \"$ref\": \"#/$defs/node\"}";
		json_t *doc = json_loads(text, 0, NULL); /* kept: the schema borrows it */
		struct tc_error e;
		if (!doc || !(s = schema_compile(doc, SCHEMA_DRAFT_AUTO, &e)))
			fuzz_fail("the output schema does not compile");
	}
	return s;
}

static void check_layout(const json_t *v, bool sort)
{
	size_t len = 0;
	char *text = json_pretty(v, sort, &len);
	if (!text)
		return; /* out of memory is allowed to happen */
	fuzz_assert(strlen(text) == len);
	char *compact = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	fuzz_assert(compact != NULL);
	size_t clen = strlen(compact);
	if (len > JSON_PRETTY_FACTOR * clen + 64)
		fuzz_fail("layout not linear: %zu bytes for %zu of compact JSON", len, clen);
	json_error_t je;
	json_t *back = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
	if (!back || !json_equal(back, (json_t *)v))
		fuzz_fail("the layout is not the same value: %s", back ? "differs" : je.text);
	json_decref(back);
	if (depth_of(v, JSON_PRETTY_DEPTH + 1) <= JSON_PRETTY_DEPTH) {
		char *ref =
		        json_dumps(v,
		                   JSON_INDENT(2) | JSON_ENCODE_ANY | (sort ? JSON_SORT_KEYS : 0));
		fuzz_assert(ref != NULL);
		if (strcmp(ref, text))
			fuzz_fail("shallow value laid out unlike JSON_INDENT(2)");
		free(ref);
	}
	struct render_result r;
	struct tc_error err;
	if (render_text(text, len, 2000, NULL, &r, &err) == 0) {
		fuzz_assert(r.len <= 2000 * 4 + 512);
		render_result_release(&r);
	}
	free(compact);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	/* As collect_manifest parses a tool's stdout: nothing nested deeper
	 * than JSON_DEPTH_MAX reaches jansson or anything after it. */
	if (json_text_depth((const char *)data, size) > JSON_DEPTH_MAX)
		return 0;
	json_t *v = json_loadb((const char *)data, size, JSON_DECODE_ANY, &je);
	if (!v)
		return 0;
	if (depth_of(v, JSON_DEPTH_MAX + 1) > JSON_DEPTH_MAX)
		fuzz_fail("a value nested deeper than %d passed the depth scan", JSON_DEPTH_MAX);
	check_layout(v, false);
	check_layout(v, true);
	struct schema_result res = { 0 };
	int ok = schema_validate(output_schema(), v, &res, 8);
	fuzz_assert(ok == 0 || ok == 1 || ok == -1);
	schema_result_release(&res);
	json_decref(v);
	return 0;
}
