/* fuzz_schema_validate.c — schema_validate of an arbitrary instance (the
 * model's arguments) against a fixed set of schemas that between them use
 * every keyword the validator enforces: references and anchors, every
 * combinator, regular expressions (one catastrophic), formats asserted,
 * draft-07 tuples and dependencies, and the built-in metaschemas (so the
 * instance is also checked as a schema). The instance is parsed with the
 * flags the pipeline uses. Verdict invariants: schema_check.h. */
#include "schema_check.h"

struct fixture {
	const char *text;
	bool assert_format;
};

static const struct fixture fixtures[] = {
	{ "{\"type\": \"object\", \"properties\": {"
	  "\"path\": {\"type\": \"string\", \"pattern\": \"^/\"},"
	  "\"mode\": {\"enum\": [\"read\", \"write\"]},"
	  "\"count\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 100},"
	  "\"encoding\": {\"type\": \"string\", \"maxLength\": 16},"
	  "\"follow\": {\"type\": \"boolean\"}},"
	  "\"required\": [\"path\", \"mode\"], \"additionalProperties\": false}",
	  false },
	{ "{\"$defs\": {"
	  "\"node\": {\"type\": \"object\", \"properties\": {"
	  "  \"v\": {\"type\": \"integer\", \"multipleOf\": 3},"
	  "  \"w\": {\"type\": \"number\", \"multipleOf\": 0.1},"
	  "  \"next\": {\"$ref\": \"#/$defs/node\"}}, \"additionalProperties\": false},"
	  "\"s\": {\"$anchor\": \"str\", \"type\": \"string\", \"minLength\": 1, \"maxLength\": 8,"
	  "  \"pattern\": \"^[a-z\\u00e9]+\\\\d*$\"}},"
	  "\"anyOf\": ["
	  " {\"$ref\": \"#/$defs/node\"},"
	  " {\"type\": \"array\", \"prefixItems\": [{\"$ref\": \"#str\"},"
	  "   {\"type\": \"number\", \"exclusiveMinimum\": 0, \"exclusiveMaximum\": 1e6}],"
	  "  \"items\": {\"oneOf\": [{\"type\": \"string\"}, {\"type\": \"integer\"}, {\"type\": [\"null\", \"string\"]}]},"
	  "  \"contains\": {\"const\": 42}, \"minContains\": 1, \"maxContains\": 2,"
	  "  \"uniqueItems\": true, \"maxItems\": 20, \"minItems\": 1},"
	  " {\"type\": \"object\", \"patternProperties\": {\"^x-\": {\"type\": \"boolean\"}, \"[\\u0100-\\uffff]\": false},"
	  "  \"propertyNames\": {\"maxLength\": 10, \"pattern\": \"^[^/]\"},"
	  "  \"dependentRequired\": {\"a\": [\"b\"]}, \"dependentSchemas\": {\"c\": {\"required\": [\"d\"]}},"
	  "  \"minProperties\": 1, \"maxProperties\": 6,"
	  "  \"additionalProperties\": {\"enum\": [1, \"1\", [1], {\"a\": 1}, null, 1.5]}},"
	  " {\"if\": {\"type\": \"string\"}, \"then\": {\"not\": {\"pattern\": \"^(a|a)*b$\"}},"
	  "  \"else\": {\"type\": [\"boolean\", \"null\"]}}]}",
	  false },
	{ "{\"$schema\": \"http://json-schema.org/draft-07/schema#\","
	  "\"definitions\": {\"pos\": {\"$id\": \"#pos\", \"type\": \"integer\", \"minimum\": 0}},"
	  "\"type\": [\"array\", \"object\"],"
	  "\"items\": [{\"type\": \"string\"}, {\"$ref\": \"#pos\"}, {\"allOf\": [{\"type\": \"object\"}, {\"$ref\": \"#\"}]}],"
	  "\"additionalItems\": false,"
	  "\"dependencies\": {\"user\": [\"password\"], \"tls\": {\"properties\": {\"port\": {\"const\": 443}}}},"
	  "\"properties\": {\"list\": {\"$ref\": \"#\"}, \"n\": {\"maximum\": 10, \"minimum\": -10}}}",
	  false },
	{ "{\"anyOf\": [{\"format\": \"date-time\"}, {\"format\": \"date\"}, {\"format\": \"time\"},"
	  "{\"format\": \"email\"}, {\"format\": \"uri\"}, {\"format\": \"uuid\"},"
	  "{\"format\": \"ipv4\"}, {\"format\": \"ipv6\"}],"
	  "\"items\": {\"$ref\": \"#\"}, \"additionalProperties\": {\"$ref\": \"#\"}}",
	  true },
	{ "{\"$ref\": \"http://json-schema.org/draft-07/schema#\"}", false },
	{ "{\"$ref\": \"https://json-schema.org/draft/2020-12/schema\"}", false },
	{ "true", false },
	{ "{\"not\": {}}", false },
};

#define N_FIXTURES (sizeof fixtures / sizeof *fixtures)

static struct schema *compiled[N_FIXTURES];

static void compile_fixtures(void)
{
	for (size_t i = 0; i < N_FIXTURES; i++) {
		json_error_t je;
		json_t *doc = json_loads(fixtures[i].text, JSON_DECODE_ANY, &je);
		if (!doc)
			fuzz_fail("fixture %zu: %s", i, je.text);
		struct schema_options o = { .assert_format = fixtures[i].assert_format };
		struct tc_error err;
		if (!(compiled[i] = schema_compile_opts(doc, &o, &err)))
			fuzz_fail("fixture %zu: %s: %s", i, err.where, err.msg);
		json_decref(doc); /* the schema keeps its own reference */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!compiled[0])
		compile_fixtures();
	json_t *inst = json_loadb((const char *)data, size,
	                          JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, NULL);
	if (!inst)
		return 0;
	for (size_t i = 0; i < N_FIXTURES; i++)
		schema_check(compiled[i], inst, i % 2 ? 0 : 3);
	json_decref(inst);
	return 0;
}
