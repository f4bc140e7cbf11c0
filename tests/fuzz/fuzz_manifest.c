/* fuzz_manifest.c — manifest_load_file on arbitrary bytes. Manifests wrap
 * external commands: the loader checks keys, the risk, the command
 * template's placeholders against the parameters, and compiles the schema.
 * There is no parse-from-memory entry point, so the input is written to one
 * temporary file that is rewritten for each input (the loader's own read
 * path, size cap included, is then exercised too). A manifest that loads
 * is expanded once with no arguments. */
#include <string.h>

#include "fuzz.h"
#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *path;
	if (!path)
		path = fuzz_temp_file("", 0);
	fuzz_rewrite_file(path, data, size);
	struct tc_error err;
	memset(&err, 0, sizeof err);
	struct tc_defined *d = manifest_load_file(path, SCHEMA_DRAFT_AUTO, &err);
	if (!d) {
		fuzz_assert(err.msg[0] != '\0');
		return 0;
	}
	fuzz_assert(tc_defined_name(d) != NULL);
	struct manifest_call call;
	if (manifest_expand(d, NULL, &call, &err) == 0) {
		fuzz_assert(call.argc >= 1 && call.argv[0] && call.argv[0][0] == '/');
		fuzz_assert(call.argv[call.argc] == NULL);
		manifest_call_release(&call);
	}
	tc_defined_unref(d);
	return 0;
}
