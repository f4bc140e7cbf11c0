/* fuzz_config.c — config_parse on arbitrary bytes. The configuration holds
 * the gate's policy, so its parser is strict; here every input must end in
 * a configuration that keeps config.h's invariants, or an error, and never
 * touch the file system (the origin names a directory that does not
 * exist, to anchor relative paths without resolving them). */
#include <string.h>

#include "config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config *cfg = NULL;
	struct tc_error err;
	memset(&err, 0, sizeof err);
	int rc = config_parse((const char *)data, size, "/nonexistent/fuzz/toolcage.json", &cfg,
	                      &err);
	if (rc == 0) {
		fuzz_assert(cfg != NULL);
		/* config.h: limits in range, approval one of three forms. */
		fuzz_assert(cfg->max_concurrent > 0);
		fuzz_assert(cfg->tool_dirs != NULL);
		fuzz_assert(cfg->tool_dirs[cfg->n_tool_dirs] == NULL);
		fuzz_assert(cfg->protected_paths != NULL);
		fuzz_assert(cfg->protected_paths[cfg->n_protected] == NULL);
		for (size_t i = 0; i < cfg->n_protected; i++)
			fuzz_assert(cfg->protected_paths[i][0] &&
			            cfg->protected_paths[i][0] != '/');
		fuzz_assert(cfg->approval != NULL);
		fuzz_assert(!strcmp(cfg->approval, "deny") || !strcmp(cfg->approval, "tty") ||
		            (!strncmp(cfg->approval, "cmd:", 4) && cfg->approval[4] == '/'));
	} else {
		fuzz_assert(cfg == NULL);
		fuzz_assert(err.msg[0] != '\0');
	}
	config_release(cfg);
	return 0;
}
