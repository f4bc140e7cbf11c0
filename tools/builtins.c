/* builtins.c — the built-in plugins: what the supervisor loads by default
 * and what `toolcage lint` checks. One line per plugin. */
#include <stddef.h>

#include "toolcage.h"
#include "tools.h"

const struct tc_plugin *const tc_builtin_plugins[] = {
	&tc_fs_plugin,
	&tc_shell_plugin,
	&tc_net_plugin,
	NULL,
};
