/* fuzz_expand.c — manifest_expand: the model's arguments substituted into
 * a fixed set of command templates (whole placeholders that vanish or
 * become one element per array item, placeholders inside larger elements,
 * a stdin template). Arguments reach a command only as argv elements:
 * the program path must never change, argv must stay NULL-terminated and
 * within the MANIFEST_* bounds, and an expansion either succeeds or fails
 * with a message, for any JSON value (validated or not: expand must not
 * rely on the schema for memory safety). */
#include <string.h>

#include "fuzz.h"
#include "manifest.h"

static const char *const manifests[] = {
	/* tests/data/tools/valid/grep_file.json, trimmed */
	"{\"name\": \"grep_file\", \"description\": \"Search one text file for lines matching a"
	" regular expression and return them with line numbers. Not for listing directories.\","
	"\"parameters\": {\"type\": \"object\", \"properties\": {"
	"\"pattern\": {\"type\": \"string\", \"description\": \"Regular expression to look for.\"},"
	"\"path\": {\"type\": \"string\", \"description\": \"File path relative to the workspace.\"},"
	"\"max_count\": {\"type\": \"integer\", \"description\": \"Stop after this many lines.\"}},"
	"\"required\": [\"pattern\", \"path\"]},"
	"\"command\": [\"/usr/bin/grep\", \"-n\", \"--max-count={{max_count}}\", \"--\","
	" \"{{pattern}}\", \"{{path}}\"]}",
	/* every template form at once */
	"{\"name\": \"template_forms\", \"description\": \"Exercise every placeholder form of the"
	" command template in one tool, for the fuzzer; not a tool anyone should call.\","
	"\"parameters\": {\"type\": \"object\", \"properties\": {"
	"\"files\": {\"type\": \"array\", \"description\": \"Files, one argv element each.\"},"
	"\"flag\": {\"description\": \"Any value, inside a larger element.\"},"
	"\"n\": {\"type\": \"number\", \"description\": \"A number.\"},"
	"\"text\": {\"type\": \"string\", \"description\": \"Text for stdin.\"},"
	"\"obj\": {\"type\": \"object\", \"description\": \"An object as compact JSON.\"}}},"
	"\"command\": [\"/bin/echo\", \"{{flag}}\", \"--n={{n}}{{n}}\", \"x{{obj}}y{{flag}}z\","
	" \"--\", \"{{files}}\", \"{{obj}}\", \"{{n}}\"],"
	"\"stdin\": \"head {{text}} mid {{files}} {{obj}} tail {{text}}\"}",
	/* stdin only */
	"{\"name\": \"word_count\", \"description\": \"Count the words, lines and bytes of a piece"
	" of text given inline and return the three numbers.\","
	"\"parameters\": {\"type\": \"object\", \"properties\": {"
	"\"text\": {\"type\": \"string\", \"description\": \"The text to count.\"}},"
	"\"required\": [\"text\"]},"
	"\"command\": [\"/usr/bin/wc\"], \"stdin\": \"{{text}}\"}",
};

#define N_MANIFESTS (sizeof manifests / sizeof *manifests)

static struct tc_defined *tools[N_MANIFESTS];
static const char *programs[N_MANIFESTS] = { "/usr/bin/grep", "/bin/echo", "/usr/bin/wc" };

static void load_tools(void)
{
	for (size_t i = 0; i < N_MANIFESTS; i++) {
		const char *path = fuzz_temp_file(manifests[i], strlen(manifests[i]));
		struct tc_error err;
		if (!(tools[i] = manifest_load_file(path, SCHEMA_DRAFT_AUTO, &err)))
			fuzz_fail("fixture %zu: %s", i, err.msg);
	}
}

static void check(size_t i, const json_t *args)
{
	struct manifest_call call;
	struct tc_error err;
	memset(&err, 0, sizeof err);
	if (manifest_expand(tools[i], args, &call, &err) < 0) {
		fuzz_assert(err.msg[0] != '\0');
		fuzz_assert(call.argv == NULL && call.stdin_data == NULL);
		return;
	}
	fuzz_assert(call.argc >= 1 && call.argc <= MANIFEST_ARGC_MAX);
	fuzz_assert(!strcmp(call.argv[0], programs[i]));
	fuzz_assert(call.argv[call.argc] == NULL);
	size_t total = 0;
	for (size_t k = 0; k < call.argc; k++) {
		size_t len = strlen(call.argv[k]);
		fuzz_assert(len <= MANIFEST_ARG_MAX);
		total += len;
	}
	fuzz_assert(total <= MANIFEST_ARGV_TOTAL_MAX);
	fuzz_assert(call.stdin_len <= MANIFEST_STDIN_MAX);
	fuzz_assert((call.stdin_data != NULL) == (i != 0));
	manifest_call_release(&call);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!tools[0])
		load_tools();
	/* The pipeline's parse flags (pipeline.c): duplicates refused. */
	json_t *args = json_loadb((const char *)data, size,
	                          JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, NULL);
	if (!args)
		return 0;
	for (size_t i = 0; i < N_MANIFESTS; i++)
		check(i, args);
	json_decref(args);
	return 0;
}
