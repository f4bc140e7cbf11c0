/* tools.h — the built-in plugins, one line each. lint_add_builtins (and the
 * CLI, the MCP server, embedders) load them with tc_plugin_load. */
#ifndef TC_TOOLS_H
#define TC_TOOLS_H

#include "toolcage.h"

extern const struct tc_plugin tc_fs_plugin;    /* tools/fs: files in the workspace */
extern const struct tc_plugin tc_shell_plugin; /* tools/shell: run_command */
extern const struct tc_plugin tc_net_plugin;   /* tools/net: http_fetch */

/* Every plugin above, NULL-terminated (tools/builtins.c): what the
 * supervisor loads by default and what `toolcage lint` checks. */
extern const struct tc_plugin *const tc_builtin_plugins[];

#endif
