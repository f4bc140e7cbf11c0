/* shell.h — internals of the shell plugin (run_command): the bounded
 * capture of a stream, and the spawn-and-wait step that runs one argv
 * inside the already confined child.
 *
 * Everything here runs inside the confined child (the sandbox applied
 * namespaces, Landlock, seccomp and rlimits before the tool was entered).
 * The command is a grandchild of the supervisor: it gets its own process
 * group so that a timeout can kill it and everything it started, and it
 * inherits no descriptor but its three pipes (the tool's result pipe, fd 3,
 * would otherwise let the command forge the tool's answer).
 */
#ifndef TC_SHELL_H
#define TC_SHELL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "toolcage.h"

#define SH_KEEP_HEAD       (128u << 10) /* first bytes kept of each stream */
#define SH_KEEP_TAIL       (128u << 10) /* last bytes kept of each stream */
#define SH_ARGV_MAX        4096         /* argv elements */
#define SH_ARG_MAX         (128u << 10) /* bytes in one element (MAX_ARG_STRLEN) */
#define SH_ARGV_TOTAL      (1u << 20)   /* bytes in all of argv */
#define SH_STDIN_MAX       (4u << 20)   /* bytes of stdin */
#define SH_TIMEOUT_DEFAULT 30000u       /* ms, when the context gives no deadline */
#define SH_DRAIN_MS        500          /* output read after the command exits */
#define SH_ENV_MAX         64           /* variables the model may set */
#define SH_ENV_BYTES       (64u << 10)  /* bytes of them in all */

/* One output stream, bounded: the first SH_KEEP_HEAD bytes, and a ring of
 * the last SH_KEEP_TAIL bytes after those. total counts every byte. Both
 * buffers are allocated by sh_capture_init. Invariant: tail bytes are only
 * kept once head is full, so head + gap + tail is the stream in order. */
struct sh_capture {
	char *head;
	size_t head_len;
	char *tail;
	size_t tail_start, tail_len;
	uint64_t total;
};

int sh_capture_init(struct sh_capture *c); /* 0, or -1 out of memory */
void sh_capture_release(struct sh_capture *c);
void sh_capture_add(struct sh_capture *c, const char *p, size_t n);
/* The kept bytes in order, head then tail, as they came (no note, not
 * sanitized; the left-out bytes sat at offset head_len): malloc'd, or NULL
 * when out of memory. *len gets its length. */
char *sh_capture_raw(const struct sh_capture *c, size_t *len);

/* What to run. argv is NULL-terminated; cwd_fd an O_PATH directory fd (the
 * workspace, or a directory beneath it); stdin_data may be NULL. All
 * borrowed. */
struct sh_command {
	char **argv;
	int cwd_fd;
	const char *stdin_data;
	size_t stdin_len;
	uint32_t timeout_ms;
	char *const *envp; /* the command's environment; NULL: the tool's own */
	bool merged;       /* stderr into the stdout pipe: one stream, in order */
};

/* How it ended. exec_errno != 0: the program could not be started
 * (exit_code is then 127, as a shell reports it). */
struct sh_result {
	int exit_code; /* -1 when killed by a signal */
	int signal;    /* 0 when it exited */
	bool timed_out;
	int exec_errno;
	uint64_t duration_ms;
	struct sh_capture out, err;
};

/* Runs cmd and waits for it, its output captured into r (initialized here;
 * release with sh_result_release even on failure). Returns 0 when the
 * command ran (or failed to exec: see exec_errno), or -errno when the tool
 * itself could not set it up (pipes, fork, memory). */
int sh_run(const struct sh_command *cmd, struct sh_result *r);
void sh_result_release(struct sh_result *r);

/* The plugin's tool (run_command.c). */
int sh_run_command_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
/* Its precheck: the refusals it would give before the command starts (a
 * bad argument, a missing cwd, argv[0] not found or not executable in the
 * jail), nothing run. */
int sh_run_command_check(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);

#endif
