/* approval.h — the configured approval channels: "deny" (the default: no
 * approver means no), "tty" (a prompt on /dev/tty, answered while other
 * calls go on), "cmd:PROGRAM" (the request as JSON on the program's stdin;
 * exit 0 approves once, exit 0 after printing "session" approves for the
 * session, anything else or the approval timeout denies). */
#ifndef TC_APPROVAL_H
#define TC_APPROVAL_H

#include "pipeline_internal.h"

/* Parses channel ("deny", "tty", "cmd:/path/to/prog"). 0 or -1 with err. */
int approval_init(struct tc_supervisor *s, const char *channel, struct tc_error *err);
void approval_release(struct tc_supervisor *s);

/* One question being asked of the configured channel. */
struct approval_pending;

/* Asks; respond(ctx, ...) is called exactly once, maybe before this
 * returns, unless approval_cancel comes first. While the channel asks,
 * *slot holds the question; the channel clears it when it answers. */
void approval_request(struct tc_supervisor *s, struct approval_pending **slot,
                      const struct tc_approval_request *req, tc_approval_respond respond,
                      void *ctx);
/* Stops asking *slot (kills the program, drops the prompt) and clears it;
 * respond is not called. Returns the ctx it would have been called with
 * (the asker's to free), or NULL when nothing was being asked. */
void *approval_cancel(struct approval_pending **slot);

/* The command a "for the session, this command" approval would cover: for
 * a tool with a command_arg, argv[0]; for programs whose first argument
 * picks what they do (git, cargo, npm, docker, ...) also that argument
 * ("git push"). NULL (new otherwise) when there is none, when the
 * program runs whatever it is told (a shell, an interpreter, env, sudo,
 * xargs, "uv run"): allowing "sh" would allow everything, or when the
 * call sets variables for it ("env" beside the array: LD_PRELOAD). */
char *approval_command_key(const struct tc_defined *t, json_t *args);

#endif
