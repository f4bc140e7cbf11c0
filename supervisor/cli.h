/* cli.h — the toolcage command-line verbs. Each verb is one function in its
 * own cli_*.c file, dispatched from the table in main.c. A verb returns the
 * process exit status; only main() exits. */
#ifndef TC_CLI_H
#define TC_CLI_H

int cmd_exec(int argc, char **argv);      /* cli_exec.c */
int cmd_check(int argc, char **argv);     /* cli_exec.c */
int cmd_schema(int argc, char **argv);    /* cli_schema.c */
int cmd_lint(int argc, char **argv);      /* cli_lint.c */
int cmd_call(int argc, char **argv);      /* cli_call.c */
int cmd_list(int argc, char **argv);      /* cli_call.c */
int cmd_replay(int argc, char **argv);    /* cli_replay.c */
int cmd_serve(int argc, char **argv);     /* cli_serve.c */

#endif
