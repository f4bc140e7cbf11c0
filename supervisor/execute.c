/* execute.c — see execute.h. A builtin runs its C function inside the
 * confined child and sends its status, canonical and render back on fd 3; a
 * manifest tool execs its expanded argv and its stdout becomes the result. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "execute.h"
#include "channel.h"
#include "child_abi.h"
#include "content.h"
#include "json_pretty.h"
#include "manifest.h"
#include "utf8.h"
#include "util.h"
#include "io.h"

/* A builtin's result on fd 3, written at once:
 *   'y' or 'n'        the tool returned 0 (ok) or not (an expected failure)
 *   canonical         compact JSON; left out when the tool gave none
 *   NUL, render       when the tool gave a render: its bytes as they are
 * JSON text never holds a raw NUL (jansson escapes it), so the first NUL
 * ends the canonical. The render goes raw: the supervisor repairs its UTF-8
 * in the render stage anyway, as it must for untrusted bytes, and wrapping
 * it in JSON cost the child a repaired copy, a string copy and escaping,
 * and the supervisor the unescaping. In the forked child every heap page
 * written is a copy-on-write fault (~3 us here), so allocations are most of
 * what a small call costs there. */
static char *result_message(int rc, const struct tc_output *out, size_t *len)
{
	const size_t flags = JSON_COMPACT | JSON_ENCODE_ANY;
	/* Sized first, then dumped in place: json_dumps grows a buffer by
	 * doubling, then copies it. */
	size_t clen = out->canonical ? json_dumpb(out->canonical, NULL, 0, flags) : 0;
	size_t rlen = out->render ? strlen(out->render) : 0;
	if (out->canonical && !clen)
		return NULL;
	char *m = malloc(1 + clen + 1 + rlen);
	if (!m)
		return NULL;
	m[0] = rc == 0 ? 'y' : 'n';
	if (clen && json_dumpb(out->canonical, m + 1, clen, flags) != clen) {
		free(m);
		return NULL;
	}
	*len = 1 + clen;
	if (out->render) {
		m[*len] = '\0';
		memcpy(m + *len + 1, out->render, rlen);
		*len += 1 + rlen;
	}
	return m;
}

/* A builtin's input, as bytes (struct sbx_data): this header, then the
 * workspace path, the allowed domains (each NUL-terminated), then the
 * arguments as compact JSON. Bytes, not pointers: the builtin runs in a
 * clean image of this program (sbx_fn_ref), where nothing of the
 * supervisor's memory is; the tool's function goes as a reference into
 * that image. Only a tool whose code is not in it (a shared library's)
 * runs on a copy of our memory, and gets its function as a pointer. */
struct builtin_wire {
	uint64_t execute_ref; /* sbx_fn_ref(execute or precheck), or 0: */
	uint64_t execute_ptr; /* the pointer, in a copy of our memory */
	uint64_t max_render;
	uint32_t timeout_ms;
	uint32_t n_domains;
	uint32_t workspace_len; /* with its NUL */
	uint32_t domains_len;
	uint32_t n_hidden;
	uint32_t hidden_len;
	char approved_host[URL_HOST_MAX + 1];
};

/* n NUL-terminated strings at s (before end) as a NULL-terminated array
 * into those bytes (malloc'd, room for extra more), or NULL. */
static const char **wire_strings(const char *s, const char *end, uint32_t n, size_t extra)
{
	const char **v = calloc((size_t)n + 1 + extra, sizeof *v);
	for (uint32_t i = 0; v && i < n; i++) {
		const char *nul = memchr(s, '\0', (size_t)(end - s));
		if (!nul) {
			free(v);
			return NULL;
		}
		v[i] = s;
		s = nul + 1;
	}
	return v;
}

/* Counts a NULL-terminated list into *n and *len (its bytes with NULs). */
static void wire_count(const char *const *v, uint32_t *n, uint32_t *len)
{
	for (; v && *v; v++) {
		++*n;
		*len += (uint32_t)strlen(*v) + 1;
	}
}

/* Copies a NULL-terminated list to s, each with its NUL; returns the end. */
static char *wire_put(char *s, const char *const *v)
{
	for (; v && *v; v++) {
		size_t n = strlen(*v) + 1;
		memcpy(s, *v, n);
		s += n;
	}
	return s;
}

/* The domains out of the input, plus the approved host: a NULL-terminated
 * array into d's bytes (malloc'd), or NULL. */
static const char **wire_domains(struct builtin_wire *b, const char *s, const char *end)
{
	b->approved_host[sizeof b->approved_host - 1] = '\0';
	const char **v = wire_strings(s, end, b->n_domains, 1);
	if (v && b->approved_host[0])
		v[b->n_domains] = b->approved_host;
	return v;
}

/* In the child, after confinement. The cwd is the workspace (the parent's
 * O_PATH fd would point into the parent's mount namespace). */
static int run_builtin(void *p)
{
	const struct sbx_data *d = p;
	struct builtin_wire b;
	if (d->len <= sizeof b)
		return CHILD_EXIT_HARNESS;
	memcpy(&b, d->data, sizeof b); /* the bytes need not be aligned */
	const char *s = (const char *)d->data + sizeof b, *end = (const char *)d->data + d->len;
	if (b.workspace_len == 0 || b.workspace_len > (size_t)(end - s) ||
	    s[b.workspace_len - 1] != '\0' || b.domains_len > (size_t)(end - s) - b.workspace_len ||
	    b.hidden_len > (size_t)(end - s) - b.workspace_len - b.domains_len)
		return CHILD_EXIT_HARNESS;
	const char *workspace = s;
	const char *dom = s + b.workspace_len, *hid = dom + b.domains_len;
	const char *args_text = hid + b.hidden_len;
	tc_execute_fn execute = b.execute_ref ? (tc_execute_fn)sbx_fn_from_ref(b.execute_ref) :
	                                        (tc_execute_fn)(uintptr_t)b.execute_ptr;
	/* A fresh image: jansson would seed its hash from /dev/urandom. */
	size_t seed;
	if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) == (ssize_t)sizeof seed && seed)
		json_object_seed(seed);
	const char **domains = wire_domains(&b, dom, hid);
	const char **hidden = wire_strings(hid, args_text, b.n_hidden, 0);
	json_error_t je;
	json_t *args = json_loadb(args_text, (size_t)(end - args_text), JSON_ALLOW_NUL, &je);
	if (!args || !domains || !hidden || !execute) {
		json_decref(args);
		free(domains);
		free(hidden);
		return CHILD_EXIT_HARNESS;
	}
	int wfd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct tc_tool_ctx ctx = { .workspace_fd = wfd,
		                   .workspace = workspace,
		                   .timeout_ms = b.timeout_ms,
		                   .max_render = b.max_render,
		                   .allowed_domains = domains,
		                   .max_timeout_ms = b.timeout_ms,
		                   .hidden_paths = hidden };
	struct tc_output out = { 0 };
	int rc = execute(&ctx, args, &out);
	size_t len = 0;
	char *msg = result_message(rc, &out, &len);
	/* One write: json_dumpfd wrote token by token, and every write woke
	 * the supervisor (~120 writes for a small read_file). */
	int wrc = msg && io_write_all(CHILD_FD_RESULT, msg, len) >= 0 ? 0 : -1;
	free(msg);
	json_decref(out.canonical);
	json_decref(args);
	free(out.render);
	free(domains);
	free(hidden);
	return wrc == 0 ? 0 : CHILD_EXIT_HARNESS;
}

/* A builtin job's fn_data (see struct builtin_wire); fn is the tool's
 * execute or its precheck. */
static char *builtin_input(tc_execute_fn fn, json_t *args, const struct exec_builtin *ctx,
                           size_t *len)
{
	const size_t flags = JSON_COMPACT | JSON_ENCODE_ANY;
	struct builtin_wire b = { .execute_ref = sbx_fn_ref((const void *)fn),
		                  .max_render = ctx->max_render,
		                  .timeout_ms = ctx->timeout_ms };
	if (!b.execute_ref)
		b.execute_ptr = (uint64_t)(uintptr_t)fn;
	memcpy(b.approved_host, ctx->approved_host, sizeof b.approved_host);
	const char *ws = ctx->workspace ? ctx->workspace : "";
	b.workspace_len = (uint32_t)strlen(ws) + 1;
	wire_count(ctx->domains, &b.n_domains, &b.domains_len);
	wire_count(ctx->hidden, &b.n_hidden, &b.hidden_len);
	size_t alen = json_dumpb(args, NULL, 0, flags);
	size_t total = sizeof b + b.workspace_len + b.domains_len + b.hidden_len + alen;
	char *m = alen ? malloc(total) : NULL;
	if (!m)
		return NULL;
	char *s = m;
	memcpy(s, &b, sizeof b);
	s += sizeof b;
	memcpy(s, ws, b.workspace_len);
	s += b.workspace_len;
	s = wire_put(s, ctx->domains);
	s = wire_put(s, ctx->hidden);
	if (json_dumpb(args, s, alen, flags) != alen) {
		free(m);
		return NULL;
	}
	*len = total;
	return m;
}

int exec_start(const struct tc_defined *tool, json_t *args, struct sbx_jail *jail,
               const struct exec_builtin *ctx, struct sbx_child **out, struct tc_error *err)
{
	struct sbx_error serr = { 0 };
	struct sbx_job job = { .timeout_ms = ctx->timeout_ms };
	struct manifest_call mc = { 0 };
	struct sbx_data on_copy = { 0 };
	char *input = NULL;
	if (tool->execute) {
		/* A check never falls back to the real thing. */
		tc_execute_fn fn = ctx->check_only ? tool->precheck : tool->execute;
		if (!fn)
			return tc_error_set(err, TC_E_SYSTEM, tool->name,
			                    "the tool has no precheck");
		if (!(input = builtin_input(fn, args, ctx, &job.fn_len)))
			return tc_error_set(err, TC_E_NOMEM, tool->name, "out of memory");
		job.fn = run_builtin;
		job.fn_data = input;
		job.end_early = ctx->end_early;
		job.result_pipe = true;
		job.result_limit = CHILD_RESULT_MAX;
		/* A tool outside the program image runs on a copy of ours
		 * (docs/security.md says what that means). */
		if (!sbx_fn_ref((const void *)fn)) {
			on_copy = (struct sbx_data){ input, job.fn_len };
			job.fn_arg = &on_copy;
		}
	} else {
		if (manifest_expand(tool, args, &mc, err) < 0)
			return -1;
		job.argv = mc.argv;
		job.stdin_data = mc.stdin_data;
		job.stdin_len = mc.stdin_len;
		/* The channel (channel.h): its messages on fd 3, read as they
		 * come and bounded there; its answers on stdin, read by the
		 * sandbox only as the tool reads them. */
		if (tool->channel && ctx->channel_fd >= 0) {
			job.result_pipe = true;
			job.result_limit = CHANNEL_BYTES_MAX;
			job.stdin_stream = true;
			job.stdin_source = ctx->channel_fd;
		}
	}
	int rc = sbx_spawn(jail, &job, out, &serr);
	free(input);
	manifest_call_release(&mc);
	if (rc < 0)
		return tc_error_set(err, TC_E_SYSTEM, tool->name, "could not start the tool: %s",
		                    serr.msg);
	return 0;
}

char *exec_capture_text(const struct sbx_capture *c, size_t *len)
{
	struct buf b = BUF_INIT;
	buf_add(&b, c->head ? c->head : "", c->head_len);
	if (c->truncated)
		buf_printf(&b, "\n[... %llu bytes left out by the output cap ...]\n",
		           (unsigned long long)(c->total - c->head_len - c->tail_len));
	buf_add(&b, c->tail ? c->tail : "", c->tail_len);
	*len = b.len;
	return buf_detach(&b);
}

json_t *exec_capture_json(const struct sbx_capture *c, bool keep_nul)
{
	size_t len, clen;
	char *raw = exec_capture_text(c, &len);
	char *clean = utf8_sanitize(raw, len, !keep_nul, &clen);
	json_t *s = json_stringn(clean ? clean : "", clean ? clen : 0);
	free(raw);
	free(clean);
	return s;
}

static void set_text(struct exec_output *out, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
static void set_text(struct exec_output *out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	free(out->text);
	out->text = s;
	out->text_len = s ? strlen(s) : 0;
}

/* True, with out a failed result that says so, when the JSON text p[0..n)
 * nests deeper than JSON_DEPTH_MAX or holds more than JSON_OUTPUT_VALUES_MAX
 * values: the canonical goes on to MCP clients (structuredContent), the
 * audit log and the render, whose parsers may recurse once per level, and
 * input is held to the same bounds; each value is a node of up to ~240
 * bytes in our memory, and another in every parser after ours. One pass
 * over the bytes before jansson builds anything. */
static bool too_big(const char *p, size_t n, struct exec_output *out)
{
	struct json_text_shape sh;
	json_text_shape(p, n, &sh);
	char what[96];
	if (sh.depth > JSON_DEPTH_MAX)
		snprintf(what, sizeof what, "is nested %zu deep; at most %d levels", sh.depth,
		         JSON_DEPTH_MAX);
	else if (sh.values > JSON_OUTPUT_VALUES_MAX)
		snprintf(what, sizeof what, "holds %zu JSON values; at most %u", sh.values,
		         JSON_OUTPUT_VALUES_MAX);
	else
		return false;
	out->status = TC_STATUS_FAILED;
	out->defect = true;
	if (asprintf(&out->defect_msg, "the tool's output %s", what) < 0)
		out->defect_msg = NULL;
	set_text(out,
	         "The tool failed: its output %s are passed on. This is a defect in the "
	         "tool, not in your arguments; try another way.",
	         what);
	return true;
}

/* The builtin's message from fd 3 (see result_message). Untrusted bytes:
 * a message that does not parse is the builtin's defect. */
static void collect_builtin(const struct sbx_outcome *o, struct exec_output *out)
{
	const char *m = o->result;
	size_t n = o->result_len;
	bool framed = m && n && (m[0] == 'y' || m[0] == 'n');
	const char *nul = framed ? memchr(m + 1, '\0', n - 1) : NULL;
	size_t clen = framed ? (size_t)((nul ? nul : m + n) - (m + 1)) : 0;
	if (framed && too_big(m + 1, clen, out))
		return;
	json_error_t je;
	json_t *canonical =
	        clen ? json_loadb(m + 1, clen, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je) : NULL;
	if (!framed || (clen && !canonical)) {
		out->status = TC_STATUS_FAILED;
		out->defect = true;
		out->defect_msg = strdup(o->result_overflow ? "builtin result over the size limit" :
		                                 m          ? "builtin sent a malformed result" :
		                                              "builtin ended without a result");
		set_text(out,
		         "The tool failed internally (%s; exit %d). This is a defect in the "
		         "tool, not in your arguments; try another way.",
		         out->defect_msg, o->exit_code);
		return;
	}
	out->status = m[0] == 'y' ? TC_STATUS_OK : TC_STATUS_FAILED;
	out->canonical = canonical;
	if (nul) {
		out->text_len = n - (size_t)(nul + 1 - m);
		out->text = malloc(out->text_len + 1);
		if (out->text)
			memcpy(out->text, nul + 1, out->text_len + 1); /* with the sandbox's NUL */
		else
			out->text_len = 0;
	} else if (canonical) {
		/* Untrusted bytes made a tree of any shape: laid out in time
		 * and memory linear in it (json_pretty.h), never JSON_INDENT's
		 * depth times size. */
		out->text = json_pretty(canonical, true, &out->text_len);
		if (!out->text)
			out->text_len = 0;
	}
}

static void collect_manifest(const struct tc_defined *tool, const struct sbx_outcome *o,
                             struct exec_output *out)
{
	size_t len;
	char *stdout_raw = exec_capture_text(&o->out, &len);
	out->status = o->exit_code == 0 ? TC_STATUS_OK : TC_STATUS_FAILED;
	if ((tool->output_mode == REG_OUTPUT_JSON || tool->output_mode == REG_OUTPUT_CONTENT) &&
	    o->exit_code == 0 && !o->out.truncated && too_big(stdout_raw, len, out)) {
		free(stdout_raw);
		return;
	}
	if (tool->output_mode == REG_OUTPUT_JSON && o->exit_code == 0) {
		json_error_t je;
		out->canonical =
		        o->out.truncated ? NULL : json_loadb(stdout_raw, len, JSON_DECODE_ANY, &je);
		if (!out->canonical) {
			out->status = TC_STATUS_FAILED;
			set_text(
			        out,
			        "The tool's output was not valid JSON (%s). Its first bytes: %.200s",
			        o->out.truncated ? "cut by the output cap" : je.text, stdout_raw);
		} else {
			out->text = json_pretty(out->canonical, false, &out->text_len);
			if (!out->text)
				out->text_len = 0;
		}
		free(stdout_raw);
		return;
	}
	if (tool->output_mode == REG_OUTPUT_CONTENT && o->exit_code == 0) {
		json_error_t je;
		char why[200] = "out of memory"; /* content_check's reason replaces it */
		out->canonical = o->out.truncated ? NULL : json_loadb(stdout_raw, len, 0, &je);
		if (!out->canonical || content_check(out->canonical, why, sizeof why) ||
		    content_clean(out->canonical)) {
			out->status = TC_STATUS_FAILED;
			set_text(out,
			         "The tool's output was not MCP content (%s). Its first bytes: "
			         "%.200s",
			         o->out.truncated       ? "cut by the output cap" :
			                 out->canonical ? why :
			                                  je.text,
			         stdout_raw);
			json_decref(out->canonical);
			out->canonical = NULL;
		} else {
			out->text = content_render(out->canonical, &out->text_len);
			if (!out->text)
				out->text_len = 0;
		}
		free(stdout_raw);
		return;
	}
	out->canonical = json_pack("{s:i, s:o, s:o}", "exit_code", o->exit_code, "stdout",
	                           exec_capture_json(&o->out, false), "stderr",
	                           exec_capture_json(&o->err, false));
	struct buf b = BUF_INIT;
	buf_add(&b, stdout_raw, len);
	if (o->exit_code != 0) {
		size_t elen;
		char *e = exec_capture_text(&o->err, &elen);
		/* "stderr:" over nothing read as if the text were lost: say
		 * what the tool printed, or that it printed nothing. */
		buf_printf(&b, "%s[exit status %d%s; %s]\n",
		           b.len && b.data[b.len - 1] != '\n' ? "\n" : "", o->exit_code,
		           o->exec_unsaid ? EXEC_UNSAID : "",
		           elen          ? "stderr:" :
		                   b.len ? "nothing on stderr" :
		                           "no output");
		buf_add(&b, e, elen);
		free(e);
	}
	out->text_len = b.len;
	out->text = buf_detach(&b);
	free(stdout_raw);
}

void exec_collect(const struct tc_defined *tool, const struct sbx_jail *jail,
                  const struct sbx_outcome *o, uint32_t timeout_ms, struct exec_output *out)
{
	memset(out, 0, sizeof *out);
	if (o->setup_failed) {
		out->status = TC_STATUS_FAILED;
		bool notfound = o->exit_code == CHILD_EXIT_NOTFOUND;
		out->defect = !notfound && strcmp(o->setup_step, "exec") != 0;
		const char *hint = sbx_explain_step(o->setup_step, o->setup_failed);
		set_text(out, "The tool could not start: %s failed (%s).%s%s%s", o->setup_step,
		         strerror(o->setup_failed),
		         out->defect ? " The sandbox could not be set "
		                       "up; this is not caused by your arguments." :
		                       "",
		         *hint ? " Here: " : "", hint);
		if (out->defect)
			out->defect_msg = strdup(out->text ? out->text : "setup failed");
		return;
	}
	switch (o->killed_by) {
	case SBX_KILLED_TIMEOUT:
		out->status = TC_STATUS_TIMED_OUT;
		set_text(out,
		         "The tool was stopped after %u ms (its time limit) and everything it "
		         "started was killed. Try a smaller request.",
		         timeout_ms);
		return;
	case SBX_KILLED_OUTPUT_LIMIT:
		out->status = TC_STATUS_KILLED;
		set_text(out,
		         "The tool was stopped: it wrote more output than the limit allows. "
		         "Ask for less (a narrower path, a pattern, a limit).");
		return;
	case SBX_KILLED_SECCOMP: {
		/* The kernel tells the parent the signal, not the call: what
		 * the profile kills is what there is to say. */
		const char *kills = jail ? sbx_jail_seccomp_kills(jail) : NULL;
		out->status = TC_STATUS_KILLED;
		set_text(out,
		         "The tool was killed by the sandbox for a system call its profile "
		         "forbids (signal %d)%s%s.",
		         o->signal, kills ? ": " : "", kills ? kills : "");
		return;
	}
	case SBX_KILLED_MEMORY:
		out->status = TC_STATUS_KILLED;
		set_text(out,
		         "The tool was killed: it used more memory than its profile allows "
		         "(the memory limit of its cgroup). Ask for less at once (a smaller "
		         "input, fewer files, a streaming option).");
		return;
	case SBX_KILLED_STOPPED:
		/* Not a timeout: the tool was held, not slow. */
		out->status = TC_STATUS_KILLED;
		set_text(out,
		         "The tool did not run its time: its process was found stopped by "
		         "signal %d (%s) at its time limit (%u ms) (toolcage stops none: "
		         "another process, or the tool itself), and was killed then. Tell "
		         "the user; trying again may work.",
		         o->stop_signal, strsignal(o->stop_signal), timeout_ms);
		return;
	case SBX_KILLED_CANCELLED:
		out->status = TC_STATUS_CANCELLED;
		set_text(out, "The call was cancelled.");
		return;
	case SBX_KILLED_SIGNAL:
		if (tool->execute) { /* a builtin that crashed: a defect */
			out->status = TC_STATUS_FAILED;
			out->defect = true;
			out->defect_msg = strdup(strsignal(o->signal));
			set_text(out,
			         "The tool crashed (%s). This is a defect in the tool, not in "
			         "your arguments.",
			         strsignal(o->signal));
		} else {
			out->status = TC_STATUS_KILLED;
			set_text(out, "The tool was killed by signal %d (%s).", o->signal,
			         strsignal(o->signal));
		}
		return;
	case SBX_KILLED_NONE: break;
	}
	if (tool->execute)
		collect_builtin(o, out);
	else
		collect_manifest(tool, o, out);
	if (!out->canonical)
		out->canonical = json_object();
}

void exec_output_release(struct exec_output *out)
{
	json_decref(out->canonical);
	free(out->text);
	free(out->defect_msg);
	memset(out, 0, sizeof *out);
}
