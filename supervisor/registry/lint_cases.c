/* lint_cases.c — description regression cases ("given this task, the model
 * picks that tool") and the external selector command that lets a real
 * model answer them. The command runs with fork/exec, never a shell, under
 * a timeout, with bounded output. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child_abi.h"
#include "io.h"
#include "lint.h"
#include "manifest.h"
#include "util.h"

#define CASES_FILE_MAX    (4u << 20)
#define CASES_MAX         10000
#define SELECTOR_ARGV_MAX 64
#define SELECTOR_OUT_MAX  (64u << 10)

void lint_cases_free(struct lint_case *cases, size_t n)
{
	for (size_t i = 0; cases && i < n; i++) {
		free(cases[i].task);
		free(cases[i].expect);
		for (size_t j = 0; j < cases[i].n_not_expect; j++)
			free(cases[i].not_expect[j]);
		free(cases[i].not_expect);
	}
	free(cases);
}

static int load_case(json_t *o, size_t i, const char *path, struct lint_case *c,
                     struct tc_error *err)
{
	const char *key;
	if (!json_is_object(o))
		return tc_error_set(err, TC_E_INVALID, path, "%s: case %zu is not an object", path,
		                    i + 1);
	static const char *const keys[] = { "task", "expect", "not_expect", "$comment", NULL };
	if ((key = json_unknown_key(o, keys)))
		return tc_error_set(err, TC_E_INVALID, path,
		                    "%s: case %zu: unknown key '%s' "
		                    "(known: task, expect, not_expect)",
		                    path, i + 1, key);
	json_t *task = json_object_get(o, "task"), *exp = json_object_get(o, "expect");
	json_t *nexp = json_object_get(o, "not_expect");
	if (!json_is_string(task) || (exp && !json_is_string(exp)) ||
	    (nexp && !json_is_array(nexp) && !json_is_string(nexp)) || (!exp && !nexp))
		return tc_error_set(
		        err, TC_E_INVALID, path,
		        "%s: case %zu needs \"task\" (a string) and \"expect\" (a tool name) and/or "
		        "\"not_expect\" (a list of names)",
		        path, i + 1);
	size_t nn = json_is_array(nexp) ? json_array_size(nexp) : nexp ? 1 : 0;
	if (!(c->task = strdup(json_string_value(task))) ||
	    (exp && !(c->expect = strdup(json_string_value(exp)))) ||
	    (nn && !(c->not_expect = calloc(nn, sizeof *c->not_expect))))
		return tc_error_set(err, TC_E_NOMEM, path, "out of memory");
	for (size_t j = 0; j < nn; j++) {
		json_t *e = json_is_array(nexp) ? json_array_get(nexp, j) : nexp;
		if (!json_is_string(e))
			return tc_error_set(err, TC_E_INVALID, path,
			                    "%s: case %zu: not_expect holds a non-string", path,
			                    i + 1);
		if (!(c->not_expect[j] = strdup(json_string_value(e))))
			return tc_error_set(err, TC_E_NOMEM, path, "out of memory");
		c->n_not_expect = j + 1;
	}
	return 0;
}

int lint_cases_load(const char *path, struct lint_case **cases, size_t *n, struct tc_error *err)
{
	*cases = NULL;
	*n = 0;
	json_t *doc = manifest_read_json(path, CASES_FILE_MAX, err);
	if (!doc)
		return -1;
	size_t count = json_array_size(doc);
	int rc = 0;
	if (!json_is_array(doc) || count > CASES_MAX) {
		json_decref(doc);
		return tc_error_set(err, TC_E_INVALID, path,
		                    "%s: cases are a JSON array of at most %d objects", path,
		                    CASES_MAX);
	}
	struct lint_case *v = calloc(count ? count : 1, sizeof *v);
	if (!v)
		rc = tc_error_set(err, TC_E_NOMEM, path, "out of memory");
	for (size_t i = 0; !rc && i < count; i++)
		rc = load_case(json_array_get(doc, i), i, path, &v[i], err);
	json_decref(doc);
	if (rc) {
		lint_cases_free(v, count);
		return -1;
	}
	*cases = v;
	*n = count;
	return 0;
}

/* ---- the external selector --------------------------------------------- */

static int timed_out(const char *cmd, unsigned timeout_ms, struct tc_error *err)
{
	return tc_error_set(err, TC_E_SYSTEM, cmd,
	                    "selector '%s' timed out: no answer within %u ms; give it longer "
	                    "with --selector-timeout MS",
	                    cmd, timeout_ms);
}

/* Feeds in to fd_in and collects fd_out until EOF, the deadline
 * (timeout_ms from the start) or the output cap. Returns 0, or -1 with
 * err. */
static int exchange(int fd_in, int fd_out, const char *in, size_t in_len, struct buf *out,
                    long long deadline, unsigned timeout_ms, const char *cmd, struct tc_error *err)
{
	size_t off = 0;
	while (fd_out >= 0) {
		struct pollfd p[2] = { { fd_out, POLLIN, 0 }, { fd_in, POLLOUT, 0 } };
		long long left = deadline - io_now_ms();
		if (left <= 0)
			return timed_out(cmd, timeout_ms, err);
		int r = poll(p, fd_in >= 0 ? 2 : 1, (int)(left > 1000000 ? 1000000 : left));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return tc_error_set(err, TC_E_SYSTEM, cmd, "poll: %s", strerror(errno));
		if (fd_in >= 0 && p[1].revents) {
			ssize_t w = write(fd_in, in + off, in_len - off);
			if (w > 0)
				off += (size_t)w;
			/* EPIPE: the selector did not want the rest; its answer decides. */
			if ((w < 0 && errno != EAGAIN && errno != EINTR) || off == in_len) {
				close(fd_in);
				fd_in = -1;
			}
		}
		if (p[0].revents) {
			char chunk[4096];
			ssize_t n = read(fd_out, chunk, sizeof chunk);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n <= 0)
				break;
			if (out->len + (size_t)n > SELECTOR_OUT_MAX)
				return tc_error_set(err, TC_E_INVALID, cmd,
				                    "selector '%s' printed more than %u bytes", cmd,
				                    SELECTOR_OUT_MAX);
			if (buf_add(out, chunk, (size_t)n))
				return tc_error_set(err, TC_E_NOMEM, cmd, "out of memory");
		}
	}
	if (fd_in >= 0)
		close(fd_in);
	return 0;
}

static int split_argv(char *cmd, char **argv)
{
	int n = 0;
	for (char *tok = strtok(cmd, " "); tok; tok = strtok(NULL, " ")) {
		if (n == SELECTOR_ARGV_MAX)
			return -1;
		argv[n++] = tok;
	}
	argv[n] = NULL;
	return n;
}

/* Waits for pid until deadline (0: kill it now), then kills it. Returns
 * 0 when it ended by itself, -1 when it had to be killed. */
static int reap(pid_t pid, long long deadline, int *st)
{
	/* A selector that closed stdout but keeps running must not hang lint. */
	while (deadline && io_now_ms() < deadline) {
		pid_t r = waitpid(pid, st, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			return 0;
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, st, 0) < 0 && errno == EINTR)
		;
	return -1;
}

/* Runs the child and collects what it printed; reaps it on every path. */
static int run_selector(char **argv, const char *cmd, const char *payload, unsigned timeout_ms,
                        struct buf *out, struct tc_error *err)
{
	int in[2], outp[2];
	if (pipe2(in, O_CLOEXEC) < 0)
		return tc_error_set(err, TC_E_SYSTEM, cmd, "pipe: %s", strerror(errno));
	if (pipe2(outp, O_CLOEXEC) < 0) {
		close(in[0]), close(in[1]);
		return tc_error_set(err, TC_E_SYSTEM, cmd, "pipe: %s", strerror(errno));
	}
	/* A selector that exits before reading all of stdin must not kill us. */
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigaction(SIGPIPE, &ign, &old);
	pid_t pid = fork();
	if (pid == 0) {
		/* child: only async-signal-safe calls until exec */
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigaction(SIGPIPE, &dfl, NULL);
		if (dup2(in[0], 0) < 0 || dup2(outp[1], 1) < 0)
			_exit(CHILD_EXIT_NOTFOUND);
		execvp(argv[0], argv);
		_exit(CHILD_EXIT_NOTFOUND);
	}
	close(in[0]);
	close(outp[1]);
	int rc = 0;
	if (pid < 0) {
		close(in[1]);
		rc = tc_error_set(err, TC_E_SYSTEM, cmd, "fork: %s", strerror(errno));
	} else {
		fcntl(in[1], F_SETFL, O_NONBLOCK);
		long long deadline = io_now_ms() + timeout_ms;
		rc = exchange(in[1], outp[0], payload, strlen(payload), out, deadline, timeout_ms,
		              cmd, err);
		int st = 0;
		if (reap(pid, rc ? 0 : deadline, &st) && !rc)
			rc = timed_out(cmd, timeout_ms, err);
		if (!rc && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			rc = tc_error_set(err, TC_E_SYSTEM, cmd, "selector '%s' %s %d%s", cmd,
			                  WIFEXITED(st) ? "exited with" : "was killed by signal",
			                  WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
			                  WIFEXITED(st) && WEXITSTATUS(st) == CHILD_EXIT_NOTFOUND ?
			                          " (could not run it?)" :
			                          "");
	}
	close(outp[0]);
	sigaction(SIGPIPE, &old, NULL);
	return rc;
}

int lint_select_cmd(const char *cmd, const char *task, json_t *tools, unsigned timeout_ms,
                    char **choice, struct tc_error *err)
{
	*choice = NULL;
	char *argv[SELECTOR_ARGV_MAX + 1];
	char *copy = strdup(cmd);
	json_t *req = json_pack("{s:s,s:O}", "task", task, "tools", tools);
	char *payload = req ? json_dumps(req, JSON_COMPACT) : NULL;
	struct buf out = BUF_INIT;
	int rc = 0;
	if (!copy || !payload)
		rc = tc_error_set(err, TC_E_NOMEM, cmd, "out of memory");
	else if (split_argv(copy, argv) <= 0)
		rc = tc_error_set(err, TC_E_INVALID, cmd,
		                  "selector command '%s' is empty or has more than %d words", cmd,
		                  SELECTOR_ARGV_MAX);
	else
		rc = run_selector(argv, cmd, payload, timeout_ms, &out, err);
	if (!rc) {
		const char *s = out.data ? out.data : "";
		s += strspn(s, " \t\r\n");
		size_t n = strcspn(s, "\r\n");
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		if (!n)
			rc = tc_error_set(err, TC_E_INVALID, cmd,
			                  "selector '%s' printed no tool name", cmd);
		else if (!(*choice = strndup(s, n)))
			rc = tc_error_set(err, TC_E_NOMEM, cmd, "out of memory");
	}
	buf_release(&out);
	free(payload);
	json_decref(req);
	free(copy);
	return rc;
}

/* ---- running cases ------------------------------------------------------ */

static bool is_forbidden(const struct lint_case *c, const char *choice)
{
	for (size_t i = 0; choice && i < c->n_not_expect; i++)
		if (!strcmp(c->not_expect[i], choice))
			return true;
	return false;
}

static int report_case(const struct lint_selector *sel, const struct lint_case *c, size_t i,
                       const char *choice, struct lint_report *r)
{
	struct buf why = BUF_INIT;
	char subject[32];
	snprintf(subject, sizeof subject, "case %zu", i + 1);
	int rc = 0;
	if (c->expect && (!choice || strcmp(choice, c->expect)))
		rc = buf_printf(&why, "task \"%.200s\": expected %s, the selector chose %s",
		                c->task, c->expect,
		                choice ? choice : "no tool (no tool shares a word with the task)");
	else
		rc = buf_printf(
		        &why,
		        "task \"%.200s\": the selector chose %s, which the case lists in not_expect",
		        c->task, choice);
	/* The words that decided it, for both tools, when we know them. */
	if (sel && choice) {
		rc |= buf_adds(&why, "; ");
		rc |= lint_selector_explain(sel, c->task, choice, &why);
	}
	if (sel && c->expect && (!choice || strcmp(choice, c->expect))) {
		rc |= buf_adds(&why, "; ");
		rc |= lint_selector_explain(sel, c->task, c->expect, &why);
	}
	if (!rc)
		rc = lint_report_add(r, LINT_ERROR, LINT_R_CASE, subject, "%s", why.data);
	buf_release(&why);
	return rc;
}

int lint_run_cases(const struct tc_registry *reg, const struct lint_case *cases, size_t n,
                   const char *selector_cmd, unsigned timeout_ms, struct lint_report *r,
                   size_t *passed, struct tc_error *err)
{
	*passed = 0;
	struct lint_selector *sel = selector_cmd ? NULL : lint_selector_new(reg);
	json_t *tools = selector_cmd ? tc_registry_export(reg, TC_EXPORT_MCP) : NULL;
	int rc = 0;
	if (selector_cmd ? !tools : !sel)
		rc = tc_error_set(err, TC_E_NOMEM, NULL, "out of memory");
	for (size_t i = 0; !rc && i < n; i++) {
		const struct lint_case *c = &cases[i];
		char *ext = NULL;
		const char *choice;
		if (selector_cmd) {
			if ((rc = lint_select_cmd(selector_cmd, c->task, tools, timeout_ms, &ext,
			                          err)))
				break;
			choice = ext;
		} else {
			choice = lint_selector_pick(sel, c->task);
		}
		bool ok = (!c->expect || (choice && !strcmp(choice, c->expect))) &&
		        !is_forbidden(c, choice);
		if (ok)
			(*passed)++;
		else if (report_case(sel, c, i, choice, r))
			rc = tc_error_set(err, TC_E_NOMEM, NULL, "out of memory");
		free(ext);
	}
	json_decref(tools);
	lint_selector_free(sel);
	return rc;
}
