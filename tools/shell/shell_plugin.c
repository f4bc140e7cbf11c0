/* shell_plugin.c — the shell plugin's table: run_command, described for the
 * model (checked by `toolcage lint --strict`). The code is in run_command.c
 * and sh_spawn.c; docs describe the tool with examples. */
#include "shell.h"
#include "tools.h"

/* Schemas are plain JSON stringized by the preprocessor. */
#define JSON(...) #__VA_ARGS__

/* Where the command runs: a path in the workspace, for policy rules. */
static const char *const cwd_arg[] = { "/cwd", NULL };

/* The schemas are JSON, laid out as JSON. */
/* clang-format off */
static const struct tc_tool shell_tools[] = {
	{
		.name = "run_command",
		.title = "Run a program",
		.description =
			"Run one program in the workspace with the given arguments and return its exit status, "
			"stdout and stderr (long output is cut to its head and tail, with the byte counts). The "
			"arguments go to the program as they are, never through a shell: pipes, redirects, "
			"globs and $VARIABLES are not expanded, so give each argument as its own element. It "
			"runs sandboxed without network, and at its time limit it is killed with everything it "
			"started. Not for reading, searching or writing files: use read_file, search_text or "
			"write_file instead.",
		.parameters = JSON({
			"type": "object",
			"properties": {
				"argv": {"type": "array", "minItems": 1, "maxItems": 4096,
				         "items": {"type": "string", "maxLength": 131071,
				                   "description": "One argument, e.g. \"-la\""},
				         "description": "The program and its arguments, one element each; the program is looked up in PATH unless it contains a slash, e.g. [\"make\", \"-j4\", \"test\"] or [\"./build.sh\", \"--fast\"]"},
				"cwd": {"type": "string", "minLength": 1, "maxLength": 4096, "default": ".",
				        "description": "Directory to run in, relative to the workspace or absolute inside it, e.g. \"src/lib\" (default \".\", the workspace itself); it must stay inside the workspace"},
				"env": {"type": "object", "maxProperties": 64,
				        "additionalProperties": {"type": "string"},
				        "description": "Environment variables to add, e.g. {\"RUST_BACKTRACE\": \"1\"}; those the sandbox sets itself (PATH, HOME, ...) are kept as the sandbox has them, and the answer says so"},
				"stream": {"type": "string", "enum": ["separate", "merged"], "default": "separate",
				           "description": "\"separate\" (default): stdout and stderr apart; \"merged\": one stream in the order written, like 2>&1"},
				"stdin": {"type": "string", "maxLength": 4194304,
				          "description": "Text given to the program on its standard input, e.g. \"y\\n\" (default: empty input)"},
				"timeout_ms": {"type": "integer", "minimum": 1, "maximum": 86400000,
				               "description": "Kill the command after this many milliseconds, e.g. 60000. The default and the most is the tool's time limit: 10 minutes (600000) less a margin, unless the configuration sets tools.run_command.timeout_ms; the answer gives the limit used"}
			},
			"required": ["argv"],
			"additionalProperties": false
		}),
		.risk = TC_RISK_DESTRUCTIVE,
		.path_args = cwd_arg,
		/* Builds and test suites take minutes; the configuration's
		 * tools.run_command.timeout_ms overrides it. */
		.timeout_ms = 600000,
		.execute = sh_run_command_exec,
		.precheck = sh_run_command_check,
		/* "allow git push for the session", not only these exact arguments */
		.command_arg = "/argv",
	},
};
/* clang-format on */

const struct tc_plugin tc_shell_plugin = {
	.name = "shell",
	.risk_cap = TC_RISK_DESTRUCTIVE,
	.tools = shell_tools,
	.ntools = sizeof shell_tools / sizeof shell_tools[0],
};
