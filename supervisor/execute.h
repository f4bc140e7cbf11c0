/* execute.h — stage 3 of the pipeline: one validated, authorized call turned
 * into a confined child (a builtin's C function, or a manifest's command),
 * and the child's outcome turned back into a status, a canonical value and
 * the raw text to render. Knows tools and the sandbox API; nothing about
 * queues, approvals or the audit. */
#ifndef TC_EXECUTE_H
#define TC_EXECUTE_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "gate.h"
#include "registry.h"
#include "sandbox.h"
#include "toolcage.h"

/* Said after an exit status of 126 or 127 that told nothing, where the
 * profile's filter lets no failed exec say why (sbx_outcome.exec_unsaid):
 * the program may never have started. */
#define EXEC_UNSAID                                                                                \
	": what a failed exec exits with: the program may not have started, and the "              \
	"profile's seccomp filter refuses both calls that would have said why (write, "            \
	"sendto)"

/* What a builtin's child needs besides its arguments. exec_start copies
 * it into the job's bytes (the child is a clean image of the program, not
 * a copy of ours): the strings by value, the tool's function as a
 * reference into the program image (sbx_fn_ref). Borrowed for the call. */
struct exec_builtin {
	const struct tc_defined *tool;
	const char *workspace;
	uint32_t timeout_ms;
	size_t max_render;
	const char *const *domains; /* the gate's allowlist (borrowed) */
	/* The path globs a builtin's walk leaves out (the rules', borrowed,
	 * NULL-terminated), or NULL. */
	const char *const *hidden;
	/* A host off that list which an approver allowed for this call (the
	 * host of its URL argument), "" for none: the tool's own check of the
	 * host lets it through too. By value, as it is made per call. */
	char approved_host[URL_HOST_MAX + 1];
	/* Run the tool's precheck, not execute: the call waits for an
	 * approval, and would fail anyway if this says so. */
	bool check_only;
	/* A manifest tool with a channel: the read end of its answers'
	 * pipe, its stdin (borrowed); -1 otherwise. */
	int channel_fd;
	/* A builtin's outcome may come before its exit is reaped
	 * (sbx_job.end_early): nothing of the call waits for every process
	 * of it to be gone. */
	bool end_early;
};

/* Starts tool with args under jail (ctx->tool is ignored: tool is used).
 * Returns 0 and the child in *out, or -1 with err (the call then failed
 * before anything ran: argv templating, a spawn failure). */
int exec_start(const struct tc_defined *tool, json_t *args, struct sbx_jail *jail,
               const struct exec_builtin *ctx, struct sbx_child **out, struct tc_error *err);

/* What the child produced. text is the bytes to render (untrusted, not yet
 * sanitized; malloc'd). defect is set when the failure is a bug (a builtin
 * crashed or sent a malformed result) rather than an expected failure. */
struct exec_output {
	enum tc_status status;
	json_t *canonical;
	char *text;
	size_t text_len;
	bool defect;
	char *defect_msg;
};

/* Reads the outcome of a finished child of jail. Never fails: every
 * outcome maps to a status with text that says what happened. */
void exec_collect(const struct tc_defined *tool, const struct sbx_jail *jail,
                  const struct sbx_outcome *o, uint32_t timeout_ms, struct exec_output *out);
void exec_output_release(struct exec_output *out);

/* A capture as one text: head, a note of the bytes left out when cut, tail.
 * Untrusted bytes; malloc'd, *len set. */
char *exec_capture_text(const struct sbx_capture *c, size_t *len);
/* The same as a JSON string, invalid UTF-8 replaced; NUL bytes replaced
 * too unless keep_nul (JSON can carry them; a model's text should not). */
json_t *exec_capture_json(const struct sbx_capture *c, bool keep_nul);

#endif
