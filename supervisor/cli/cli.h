/* cli.h — the toolcage command-line verbs. Each verb is one function in its
 * own cli_*.c file, dispatched from the table in main.c. A verb returns the
 * process exit status; only main() exits. */
#ifndef TC_CLI_H
#define TC_CLI_H

int cmd_exec(int argc, char **argv);   /* cli_exec.c */
int cmd_check(int argc, char **argv);  /* cli_exec.c */
int cmd_schema(int argc, char **argv); /* cli_schema.c */
int cmd_lint(int argc, char **argv);   /* cli_lint.c */
int cmd_call(int argc, char **argv);   /* cli_call.c */
int cmd_list(int argc, char **argv);   /* cli_call.c */
int cmd_replay(int argc, char **argv); /* cli_replay.c */
int cmd_serve(int argc, char **argv);  /* cli_serve.c */

/* ---- the options every verb that builds a supervisor shares ------------
 * (cli_common.c): --workspace, --config, --tools (repeatable), --approve,
 * --audit. A verb puts CLI_SUP_LONGOPTS in its option table and
 * CLI_SUP_SHORTOPTS in its optstring, hands each option to cli_sup_option,
 * then opens the supervisor with cli_sup_open. */
#include <stdio.h>

#include "pipeline.h"

#define CLI_SUP_MAX_TOOL_DIRS 16
#define CLI_SUP_SHORTOPTS     "w:c:t:a:A:"
#define CLI_SUP_LONGOPTS                                                                           \
	{ "workspace", required_argument, NULL, 'w' }, { "config", required_argument, NULL, 'c' }, \
	        { "tools", required_argument, NULL, 't' },                                         \
	        { "approve", required_argument, NULL, 'a' },                                       \
	        { "audit", required_argument, NULL, 'A' },                                         \
	{                                                                                          \
		"strict", no_argument, NULL, CLI_OPT_STRICT                                        \
	}
/* Long-only options (no short letter). */
#define CLI_OPT_STRICT 0x1001

struct cli_sup {
	struct tc_options opt;
	const char *dirs[CLI_SUP_MAX_TOOL_DIRS + 1];
	int ndirs;
};

/* Takes option ch with its argument if it is a shared one. Returns 1 when
 * handled, 0 when not a shared option, -1 on a usage error (printed,
 * naming verb). */
int cli_sup_option(struct cli_sup *c, int ch, const char *arg, const char *verb);

/* Builds the supervisor from the options; prints the error (naming verb)
 * and returns NULL on failure. */
struct tc_supervisor *cli_sup_open(struct cli_sup *c, const char *verb);

/* ---- paths named on the command line ---------------------------------
 * A path an option names is checked before anything is built from it, so
 * that a refusal names the option and the path, says what is wrong in the
 * system's words (errno's text), and what to do. The real open comes later
 * and still fails cleanly when the path changed in between. */
enum cli_path_use {
	CLI_PATH_READ,   /* a regular file this user can read */
	CLI_PATH_DIR,    /* a directory this user can enter and list */
	CLI_PATH_APPEND, /* a file this user can append to, or create */
	CLI_PATH_EXEC,   /* a program this user can run */
};

/* 0 when path (given with option, e.g. "--config") serves use; else -1 with
 * err: where is "OPTION PATH", msg what is wrong and what to do.
 * fix_missing, when not NULL, is what to do when path does not exist
 * (borrowed, copied into err). */
int cli_path_check(const char *option, const char *path, enum cli_path_use use,
                   const char *fix_missing, struct tc_error *err);

/* ---- standard output -------------------------------------------------
 * rc, or fail_rc when what was written to standard output did not all get
 * there (a full disk, an I/O error), said on stderr as "who: writing
 * standard output: WHY". A reader that went away (EPIPE, as `| head`
 * makes) is no failure here. */
int cli_stdout_done(const char *who, int rc, int fail_rc);

/* ---- help texts -----------------------------------------------------
 * Generated from docs/cli.md by mk/gen_help.py ($(BUILD)/gen/help.c), as
 * are the man pages: the help of a verb is written there, not here. */
struct cli_help {
	const char *verb;
	const char *summary;
	const char *text; /* "usage: ..." and the verb's section, '\n'-ended */
};
extern const char cli_help_main[];             /* `toolcage --help` */
extern const struct cli_help cli_help_pages[]; /* ends with a NULL verb */

/* Prints verb's help to f: the whole page on stdout (--help); on any other
 * stream (a usage error) the synopsis only, and where the page is. */
void cli_usage(FILE *f, const char *verb);

#endif
