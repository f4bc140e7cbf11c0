/* test_sandbox.c — live tests of the sandbox API (sandbox.h): real
 * children under the shipped read-only profile, run as whatever user runs
 * the tests. Where the sandbox cannot run here (no user namespaces, no
 * Landlock ...) each test skips with the reason; with TC_MUST_WORK=1 (CI)
 * that is a failure instead. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "child_abi.h"
#include "internal.h" /* struct end_report, as a builtin tells its end */
#include "io.h"
#include "profile.h"
#include "sandbox.h"
#include "io.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static struct {
	char ws[64];
	struct profile *prof;
	struct sbx_jail *jail; /* read-only, as shipped */
	char why_not[600];     /* set when the sandbox cannot run here */
} fx;

static void need_sandbox(void)
{
	if (!fx.why_not[0])
		return;
	const char *must = getenv("TC_MUST_WORK");
	if (must && !strcmp(must, "1"))
		fail_msg("sandbox unavailable and TC_MUST_WORK=1: %s", fx.why_not);
	print_message("skip: sandbox unavailable here: %s\n", fx.why_not);
	skip();
}

/* A jail of the read-only profile with some fields changed. */
static struct sbx_jail *jail_with(void (*edit)(struct sbx_spec *))
{
	struct sbx_spec spec = fx.prof->spec;
	edit(&spec);
	struct sbx_error err = { 0 };
	struct sbx_jail *j = NULL;
	if (sbx_jail_new(&spec, fx.ws, &j, &err) < 0)
		fail_msg("jail: %s", err.msg);
	return j;
}

static struct sbx_child *spawn(struct sbx_jail *j, const struct sbx_job *job)
{
	struct sbx_error err = { 0 };
	struct sbx_child *c = NULL;
	if (sbx_spawn(j, job, &c, &err) < 0)
		fail_msg("spawn: %s", err.msg);
	return c;
}

/* Runs argv to the end under jail j; returns the child (caller frees). */
static struct sbx_child *run_argv(struct sbx_jail *j, char *const *argv)
{
	struct sbx_job job = { .argv = argv };
	struct sbx_child *c = spawn(j, &job);
	assert_int_equal(sbx_child_wait(c), 0);
	assert_true(sbx_child_done(c));
	return c;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n - 3; /* ".", ".." and the DIR's own fd */
}

static long rss_kb(void)
{
	long pages, rss = -1;
	FILE *f = fopen("/proc/self/statm", "re");
	if (f && fscanf(f, "%ld %ld", &pages, &rss) != 2)
		rss = -1;
	if (f)
		fclose(f);
	return rss < 0 ? -1 : rss * (sysconf(_SC_PAGESIZE) / 1024);
}

static int setup(void **state)
{
	(void)state;
	signal(SIGPIPE, SIG_IGN); /* sbx_child_step's contract */
	snprintf(fx.ws, sizeof fx.ws, "/tmp/tc-sandbox-XXXXXX");
	if (!mkdtemp(fx.ws))
		return -1;
	chmod(fx.ws, 0755);
	struct tc_error terr = { 0 };
	if (profile_load("read-only", NULL, &fx.prof, &terr) < 0) {
		fprintf(stderr, "read-only profile: %s\n", terr.msg);
		return -1;
	}
	struct sbx_error err = { 0 };
	if (sbx_jail_new(&fx.prof->spec, fx.ws, &fx.jail, &err) < 0) {
		snprintf(fx.why_not, sizeof fx.why_not, "read-only jail: %s", err.msg);
		return 0;
	}
	/* One real child: a namespace refused only at clone time shows here. */
	char *const argv[] = { (char *)"/bin/true", NULL };
	struct sbx_job job = { .argv = argv };
	struct sbx_child *c = NULL;
	if (sbx_spawn(fx.jail, &job, &c, &err) < 0) {
		snprintf(fx.why_not, sizeof fx.why_not, "spawn: %s", err.msg);
	} else if (sbx_child_wait(c) < 0 || sbx_child_outcome(c)->setup_failed) {
		const struct sbx_outcome *o = sbx_child_outcome(c);
		snprintf(fx.why_not, sizeof fx.why_not, "child setup step %s failed: %s",
		         o->setup_step ? o->setup_step : "?", strerror(o->setup_failed));
	}
	sbx_child_free(c);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sbx_jail_free(fx.jail);
	profile_free(fx.prof);
	sbx_cleanup();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx.ws);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---- builtins by reference ---------------------------------------------- */

/* A function of the program image goes to a clean image as a reference
 * that finds it again; one of another object (libc is shared here) has
 * none, and such a builtin runs only on a copy of our memory. */
static void test_fn_ref_names_the_program_image_only(void **state)
{
	(void)state;
	uint64_t ref = sbx_fn_ref((const void *)test_fn_ref_names_the_program_image_only);
	assert_true(ref != 0);
	assert_ptr_equal(sbx_fn_from_ref(ref), (void *)test_fn_ref_names_the_program_image_only);
	uint64_t other = sbx_fn_ref((const void *)run_argv);
	assert_true(other != 0 && other != ref);
	assert_ptr_equal(sbx_fn_from_ref(other), (void *)run_argv);
	assert_int_equal(sbx_fn_ref((const void *)strlen), 0);
	assert_int_equal(sbx_fn_ref(NULL), 0);
}

/* ---- exec jobs ---------------------------------------------------------- */

static void test_true_exits_zero(void **state)
{
	(void)state;
	need_sandbox();
	char *const argv[] = { (char *)"/bin/true", NULL };
	struct sbx_child *c = run_argv(fx.jail, argv);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->setup_failed, 0);
	assert_null(o->setup_step);
	assert_int_equal(o->exit_code, 0);
	assert_int_equal(o->signal, 0);
	assert_int_equal(o->killed_by, SBX_KILLED_NONE);
	assert_int_equal(o->out.total, 0);
	assert_false(o->out.truncated);
	assert_true(o->wall_ms < 5000);
	sbx_child_free(c);
}

static void test_exit_codes_pass_through(void **state)
{
	(void)state;
	need_sandbox();
	const char *codes[] = { "1", "3", "42", "125", "255" };
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		char script[32];
		snprintf(script, sizeof script, "exit %s", codes[i]);
		char *const argv[] = { (char *)"sh", (char *)"-c", script, NULL };
		struct sbx_child *c = run_argv(fx.jail, argv);
		const struct sbx_outcome *o = sbx_child_outcome(c);
		assert_int_equal(o->setup_failed, 0);
		assert_int_equal(o->exit_code, atoi(codes[i]));
		assert_int_equal(o->signal, 0);
		sbx_child_free(c);
	}
}

static void test_stdout_and_stderr_are_captured_apart(void **state)
{
	(void)state;
	need_sandbox();
	char *const argv[] = { (char *)"sh", (char *)"-c", (char *)"printf out; printf err >&2",
		               NULL };
	struct sbx_child *c = run_argv(fx.jail, argv);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->exit_code, 0);
	assert_string_equal(o->out.head, "out");
	assert_string_equal(o->err.head, "err");
	assert_int_equal(o->out.total, 3);
	assert_int_equal(o->err.total, 3);
	sbx_child_free(c);
}

/* More than a pipe buffer of stdin, fed without blocking, comes back. */
static void test_stdin_data_is_delivered(void **state)
{
	(void)state;
	need_sandbox();
	size_t len = 200 * 1024;
	char *in = malloc(len);
	assert_non_null(in);
	for (size_t i = 0; i < len; i++)
		in[i] = (char)('a' + i % 23);
	char *const argv[] = { (char *)"cat", NULL };
	struct sbx_job job = { .argv = argv, .stdin_data = in, .stdin_len = len };
	struct sbx_child *c = spawn(fx.jail, &job);
	free(in); /* copied by sbx_spawn */
	assert_int_equal(sbx_child_wait(c), 0);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->exit_code, 0);
	assert_int_equal(o->out.total, len);
	assert_false(o->out.truncated);
	assert_int_equal(o->out.head_len + o->out.tail_len, len);
	for (size_t i = 0; i < o->out.head_len; i++)
		if (o->out.head[i] != (char)('a' + i % 23))
			fail_msg("stdin byte %zu came back wrong", i);
	sbx_child_free(c);
}

/* A streamed stdin: what the caller's fd gives reaches the tool as it
 * reads; the fd is left open with its flags as they were; a tool that
 * stops reading ends the call even though the source never ends. */
static void test_stdin_stream(void **state)
{
	(void)state;
	need_sandbox();
	int p[2];
	assert_int_equal(pipe(p), 0);
	int flags = fcntl(p[0], F_GETFL);
	assert_int_equal(write(p[1], "streamed\n", 9), 9);
	char *const cat[] = { (char *)"sh", (char *)"-c", (char *)"head -n 1; exec 0<&-; echo end",
		              NULL };
	struct sbx_job job = { .argv = cat, .stdin_stream = true, .stdin_source = p[0] };
	struct sbx_child *c = spawn(fx.jail, &job);
	assert_int_equal(sbx_child_wait(c), 0); /* p[1] still open: no EOF */
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->exit_code, 0);
	assert_string_equal(o->out.head, "streamed\nend\n");
	sbx_child_free(c);
	assert_int_equal(fcntl(p[0], F_GETFL), flags);
	/* More than the buffer and the pipe hold, then EOF. */
	size_t len = 300 * 1024;
	char *in = malloc(len);
	assert_non_null(in);
	for (size_t i = 0; i < len; i++)
		in[i] = (char)('a' + i % 23);
	char *const wc[] = { (char *)"wc", (char *)"-c", NULL };
	struct sbx_job job2 = { .argv = wc, .stdin_stream = true, .stdin_source = p[0] };
	c = spawn(fx.jail, &job2);
	assert_int_equal(fcntl(p[1], F_SETFL, O_NONBLOCK), 0); /* the writer's end only */
	for (size_t off = 0; off < len;) {
		assert_int_equal(sbx_child_step(c), 0);
		ssize_t n = write(p[1], in + off, len - off > 4096 ? 4096 : len - off);
		assert_true(n > 0 || errno == EAGAIN);
		if (n < 0)
			usleep(1000);
		off += n > 0 ? (size_t)n : 0;
	}
	close(p[1]);
	assert_int_equal(sbx_child_wait(c), 0);
	assert_string_equal(sbx_child_outcome(c)->out.head, "307200\n");
	sbx_child_free(c);
	free(in);
	assert_int_equal(fcntl(p[0], F_GETFD), 0); /* still ours, open */
	close(p[0]);
}

static void test_no_stdin_reads_eof(void **state)
{
	(void)state;
	need_sandbox();
	char *const argv[] = { (char *)"sh", (char *)"-c", (char *)"cat; echo done", NULL };
	struct sbx_child *c = run_argv(fx.jail, argv);
	assert_string_equal(sbx_child_outcome(c)->out.head, "done\n");
	sbx_child_free(c);
}

static void edit_flood(struct sbx_spec *s)
{
	s->output_keep_bytes = 4096;
	s->output_limit_bytes = 1ULL << 30;
}

/* 100 MiB of output: all counted, 4 KiB kept, the supervisor's memory does
 * not grow by the flood. */
static void test_output_flood_is_bounded(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(edit_flood);
	char *const argv[] = { (char *)"sh", (char *)"-c",
		               (char *)"head -c 104857600 /dev/zero | tr '\\0' y", NULL };
	long before = rss_kb();
	struct sbx_child *c = run_argv(j, argv);
	long after = rss_kb();
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->exit_code, 0);
	assert_int_equal(o->killed_by, SBX_KILLED_NONE);
	assert_int_equal(o->out.total, 104857600);
	assert_true(o->out.truncated);
	assert_int_equal(o->out.head_len, 2048);
	assert_int_equal(o->out.tail_len, 2048);
	assert_int_equal(o->out.head[0], 'y');
	assert_int_equal(o->out.tail[2047], 'y');
	if (before > 0 && after > 0 && after - before > 16 * 1024)
		fail_msg("supervisor grew by %ld KiB for a 4 KiB capture", after - before);
	sbx_child_free(c);
	sbx_jail_free(j);
}

static void edit_limit(struct sbx_spec *s)
{
	s->output_keep_bytes = 4096;
	s->output_limit_bytes = 1 << 20;
}

/* Past the hard limit the child is killed and says why. */
static void test_output_limit_kills(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(edit_limit);
	char *const argv[] = { (char *)"yes", NULL };
	struct sbx_child *c = run_argv(j, argv);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->killed_by, SBX_KILLED_OUTPUT_LIMIT);
	assert_int_equal(o->signal, SIGKILL);
	assert_int_equal(o->exit_code, -1);
	assert_true(o->out.total > 1 << 20);
	assert_true(o->out.total < (1 << 20) + (8 << 20));
	assert_true(o->out.truncated);
	assert_string_equal(o->out.head + o->out.head_len - 2, "y\n");
	sbx_child_free(c);
	sbx_jail_free(j);
}

/* Drains a streamed child as a caller's loop does (steps, takes, kills at
 * the deadline), after waiting wait_ms without taking anything; returns
 * the stdout bytes taken, all of them 'y' or 0 if not. */
static uint64_t drain_stream(struct sbx_child *c, int wait_ms)
{
	const char *p;
	uint64_t got = 0;
	bool all_y = true;
	for (int64_t end = io_now_ms() + wait_ms; io_now_ms() < end; usleep(10000)) {
		sbx_child_step(c);
		if (io_now_ms() >= sbx_child_deadline(c))
			sbx_child_kill(c, SBX_KILLED_TIMEOUT);
	}
	while (!sbx_child_step(c) || sbx_child_output(c, 1, &p)) {
		size_t n = sbx_child_output(c, 1, &p);
		for (size_t i = 0; i < n; i++)
			all_y &= p[i] == 'y';
		got += n;
		sbx_child_output_take(c, 1, n);
		sbx_child_output_take(c, 2, sbx_child_output(c, 2, &p));
		if (io_now_ms() >= sbx_child_deadline(c))
			sbx_child_kill(c, SBX_KILLED_TIMEOUT);
		struct pollfd pf = { .fd = sbx_child_fd(c), .events = POLLIN };
		poll(&pf, 1, 10);
	}
	return all_y ? got : 0;
}

/* stream_output: the bytes come through a window the caller drains; while
 * it does not, the pipe is not read and the child waits (no cap, no
 * limit, memory bounded); every byte is counted, none "truncated". */
static void test_stream_output_waits_for_the_caller(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(edit_limit); /* a 1 MiB limit: not applied */
	char *const argv[] = { (char *)"sh", (char *)"-c",
		               (char *)"head -c 3000000 /dev/zero | tr '\\0' y; echo done >&2",
		               NULL };
	struct sbx_job job = { .argv = argv, .stream_output = true };
	struct sbx_child *c = spawn(j, &job);
	/* Not taking anything: the child fills the window (128 KiB) and its
	 * pipe, and waits; nothing more is read however long we wait. */
	const char *p;
	for (int64_t end = io_now_ms() + 30000;
	     io_now_ms() < end && sbx_child_output(c, 1, &p) < 128 * 1024; usleep(10000))
		assert_int_equal(sbx_child_step(c), 0);
	assert_int_equal(sbx_child_output(c, 1, &p), 128 * 1024);
	assert_int_equal(drain_stream(c, 300), 3000000);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->exit_code, 0);
	assert_int_equal(o->killed_by, SBX_KILLED_NONE);
	assert_int_equal(o->out.total, 3000000);
	assert_int_equal(o->err.total, 5);
	assert_false(o->out.truncated);
	sbx_child_free(c);
	sbx_jail_free(j);
}

/* A child that has exited while its bytes wait in the pipe and the
 * window: the pipes' grace (200 ms) does not run while the caller has
 * not taken them, so a slow reader loses nothing. */
static void test_stream_output_outlives_the_grace(void **state)
{
	(void)state;
	need_sandbox();
	char *const argv[] = { (char *)"sh", (char *)"-c",
		               (char *)"head -c 600000 /dev/zero | tr '\\0' y", NULL };
	struct sbx_job job = { .argv = argv, .stream_output = true };
	struct sbx_child *c = spawn(fx.jail, &job);
	const char *p;
	for (int64_t end = io_now_ms() + 30000;
	     io_now_ms() < end && sbx_child_output(c, 1, &p) < 128 * 1024; usleep(10000))
		sbx_child_step(c);
	assert_int_equal(drain_stream(c, 1000), 600000); /* it exited long before */
	assert_int_equal(sbx_child_outcome(c)->exit_code, 0);
	sbx_child_free(c);
}

/* The caller's own loop: watch sbx_child_fd, kill at sbx_child_deadline. */
static void test_deadline_and_kill_give_timeout(void **state)
{
	(void)state;
	need_sandbox();
	char *const argv[] = { (char *)"sleep", (char *)"10", NULL };
	struct sbx_job job = { .argv = argv, .timeout_ms = 300 };
	int64_t start = io_now_ms();
	struct sbx_child *c = spawn(fx.jail, &job);
	int64_t dl = sbx_child_deadline(c);
	assert_true(dl >= start + 300 && dl <= io_now_ms() + 300);
	bool killed = false;
	int rounds = 0;
	while (!sbx_child_step(c)) {
		int64_t left = sbx_child_deadline(c) - io_now_ms();
		if (left <= 0) {
			sbx_child_kill(c, SBX_KILLED_TIMEOUT);
			killed = true;
			left = 10;
		}
		struct pollfd p = { .fd = sbx_child_fd(c), .events = POLLIN };
		poll(&p, 1, (int)left);
		assert_true(++rounds < 10000);
	}
	int64_t took = io_now_ms() - start;
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_true(killed);
	assert_int_equal(o->killed_by, SBX_KILLED_TIMEOUT);
	assert_int_equal(o->signal, SIGKILL);
	assert_int_equal(o->exit_code, -1);
	assert_true(o->wall_ms >= 300);
	assert_true(o->wall_ms < 3000);
	assert_true(took < 4000);
	sbx_child_free(c);
}

/* A child stopped from outside (SIGSTOP by another process of the uid)
 * did not run its time: at its deadline the outcome says it was found
 * stopped, and by which signal, never a timeout. */
static void test_child_stopped_at_its_deadline_is_said(void **state)
{
	(void)state;
	need_sandbox();
	char *const argv[] = { (char *)"sleep", (char *)"10", NULL };
	struct sbx_job job = { .argv = argv, .timeout_ms = 400 };
	struct sbx_child *c = spawn(fx.jail, &job);
	for (int64_t end = io_now_ms() + 5000; !sbx_child_pid(c) && io_now_ms() < end; usleep(1000))
		(void)sbx_child_step(c);
	assert_true(sbx_child_pid(c) > 0);
	assert_int_equal(kill(sbx_child_pid(c), SIGSTOP), 0);
	assert_int_equal(sbx_child_wait(c), 0);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->killed_by, SBX_KILLED_STOPPED);
	assert_int_equal(o->stop_signal, SIGSTOP);
	sbx_child_free(c);
}

/* sbx_child_wait enforces the job's timeout itself. */
static void test_wait_enforces_timeout(void **state)
{
	(void)state;
	need_sandbox();
	char *const argv[] = { (char *)"sh", (char *)"-c", (char *)"sleep 10 & sleep 10", NULL };
	struct sbx_job job = { .argv = argv, .timeout_ms = 200 };
	struct sbx_child *c = spawn(fx.jail, &job);
	assert_int_equal(sbx_child_wait(c), 0);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->killed_by, SBX_KILLED_TIMEOUT);
	assert_true(o->wall_ms >= 200 && o->wall_ms < 3000);
	sbx_child_free(c);
}

static void test_missing_command_is_127_exec(void **state)
{
	(void)state;
	need_sandbox();
	const char *cmds[] = { "no-such-command-tc", "/nonexistent/bin/x" };
	for (size_t i = 0; i < 2; i++) {
		char *const argv[] = { (char *)cmds[i], NULL };
		struct sbx_child *c = run_argv(fx.jail, argv);
		const struct sbx_outcome *o = sbx_child_outcome(c);
		assert_int_equal(o->exit_code, CHILD_EXIT_NOTFOUND);
		assert_int_equal(o->setup_failed, ENOENT);
		assert_non_null(o->setup_step);
		assert_string_equal(o->setup_step, "exec");
		sbx_child_free(c);
	}
}

/* A file that is not executable (and a workspace read-only may not exec
 * from anyway): 126, step exec, EACCES. */
static void test_not_executable_is_126_exec(void **state)
{
	(void)state;
	need_sandbox();
	char path[128];
	snprintf(path, sizeof path, "%s/script.sh", fx.ws);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\nexit 0\n", f);
	fclose(f);
	chmod(path, 0644);
	char *const argv[] = { path, NULL };
	struct sbx_child *c = run_argv(fx.jail, argv);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->exit_code, CHILD_EXIT_NOEXEC);
	assert_int_equal(o->setup_failed, EACCES);
	assert_string_equal(o->setup_step, "exec");
	sbx_child_free(c);
	unlink(path);
}

static void test_cwd_beneath_workspace(void **state)
{
	(void)state;
	need_sandbox();
	char sub[128], want[160];
	snprintf(sub, sizeof sub, "%s/sub", fx.ws);
	assert_true(mkdir(sub, 0755) == 0 || errno == EEXIST);
	char *const argv[] = { (char *)"pwd", NULL };
	struct sbx_job job = { .argv = argv, .cwd = "sub" };
	struct sbx_child *c = spawn(fx.jail, &job);
	assert_int_equal(sbx_child_wait(c), 0);
	snprintf(want, sizeof want, "%s\n", sub);
	assert_int_equal(sbx_child_outcome(c)->exit_code, 0);
	assert_string_equal(sbx_child_outcome(c)->out.head, want);
	sbx_child_free(c);
	/* NULL cwd is the workspace itself. */
	c = run_argv(fx.jail, argv);
	snprintf(want, sizeof want, "%s\n", fx.ws);
	assert_string_equal(sbx_child_outcome(c)->out.head, want);
	sbx_child_free(c);
}

static void test_cwd_outside_workspace_is_refused(void **state)
{
	(void)state;
	need_sandbox();
	const char *bad[] = { "../x", "..", "/etc", "sub/../../", "no-such-dir" };
	char *const argv[] = { (char *)"/bin/true", NULL };
	int before = count_fds();
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct sbx_job job = { .argv = argv, .cwd = bad[i] };
		struct sbx_error err = { 0 };
		struct sbx_child *c = (struct sbx_child *)1;
		int rc = sbx_spawn(fx.jail, &job, &c, &err);
		if (rc >= 0)
			fail_msg("cwd '%s' was accepted", bad[i]);
		assert_null(c);
		assert_true(err.errnum > 0);
		char want[64];
		snprintf(want, sizeof want, "cwd '%s'", bad[i]);
		if (!strstr(err.msg, want) || !strstr(err.msg, "inside the workspace"))
			fail_msg("cwd '%s': unclear message \"%s\"", bad[i], err.msg);
	}
	assert_int_equal(count_fds(), before); /* nothing leaked on failure */
}

/* ---- hidden paths ------------------------------------------------------- */

/* A readable dir outside the workspace with secrets in it, owned by whoever
 * runs the tests: only the sandbox stands between the child and them. */
static char secrets_dir[64];
static char hidden_glob[96], hidden_dir[96];

static void with_secrets(struct sbx_spec *s)
{
	static const char *read[16], *hidden[32];
	size_t n = 0;
	for (size_t i = 0; s->read_paths && s->read_paths[i] && n < 14; i++)
		read[n++] = s->read_paths[i];
	read[n++] = secrets_dir;
	read[n] = NULL;
	n = 0;
	for (size_t i = 0; s->hidden_paths && s->hidden_paths[i] && n < 29; i++)
		hidden[n++] = s->hidden_paths[i];
	hidden[n++] = hidden_glob;
	hidden[n++] = hidden_dir;
	hidden[n] = NULL;
	s->read_paths = read;
	s->hidden_paths = hidden;
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[160];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "we");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A fresh secrets_dir; the globs hide key-* and private/ in it. */
static void make_secrets_dir(void)
{
	snprintf(secrets_dir, sizeof secrets_dir, "/var/tmp/tc-secrets-XXXXXX");
	assert_non_null(mkdtemp(secrets_dir));
	chmod(secrets_dir, 0755);
	snprintf(hidden_glob, sizeof hidden_glob, "%s/key-*", secrets_dir);
	snprintf(hidden_dir, sizeof hidden_dir, "%s/private", secrets_dir);
}

static void remove_secrets_dir(void)
{
	char script[128];
	snprintf(script, sizeof script, "rm -rf '%s'", secrets_dir);
	assert_int_equal(system(script), 0);
}

/* A jail that hides a secrets_dir holding one key, key-1. */
static struct sbx_jail *jail_with_a_key(void)
{
	make_secrets_dir();
	write_text(secrets_dir, "key-1", "secret one\n");
	return jail_with(with_secrets);
}

/* Runs "sh -c SCRIPT" under j; returns its exit code, stdout in out. */
static int sh(struct sbx_jail *j, const char *script, char *out, size_t len)
{
	char *const argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)script, NULL };
	struct sbx_child *c = run_argv(j, argv);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	snprintf(out, len, "%s", o->out.head ? o->out.head : "");
	int rc = o->exit_code;
	sbx_child_free(c);
	return rc;
}

/* A fresh workspace, the path of a home inside it (not made), and the
 * $HOME to put back. */
struct home_ws {
	char ws[sizeof "/tmp/tc-homews.XXXXXX"];
	char home[sizeof "/tmp/tc-homews.XXXXXX/h"];
	char *saved_home; /* new; NULL when $HOME was unset */
};

static void home_ws_init(struct home_ws *h)
{
	snprintf(h->ws, sizeof h->ws, "/tmp/tc-homews.XXXXXX");
	assert_non_null(mkdtemp(h->ws));
	snprintf(h->home, sizeof h->home, "%s/h", h->ws);
	const char *was = getenv("HOME");
	h->saved_home = was ? strdup(was) : NULL;
}

/* Makes and frees a jail for h's workspace with $HOME set to home: its
 * return; whether a jail came back in *made. */
static int home_ws_jail(struct home_ws *h, const char *home, bool *made, struct sbx_error *err)
{
	setenv("HOME", home, 1);
	struct sbx_jail *j = NULL;
	int rc = sbx_jail_new(&fx.prof->spec, h->ws, &j, err);
	*made = j != NULL;
	sbx_jail_free(j);
	return rc;
}

/* Puts $HOME back and removes the home and the workspace. */
static void home_ws_release(struct home_ws *h)
{
	if (h->saved_home)
		setenv("HOME", h->saved_home, 1);
	else
		unsetenv("HOME");
	free(h->saved_home);
	h->saved_home = NULL;
	rmdir(h->home);
	rmdir(h->ws);
}

/* The home directories a workspace may not hold are found once per
 * process and kept: a later $HOME must still be seen, in the same process,
 * by the next jail (a server makes one per profile and workspace). */
static void test_home_check_sees_a_new_home(void **state)
{
	(void)state;
	need_sandbox();
	struct home_ws h;
	home_ws_init(&h);
	int made_home = mkdir(h.home, 0700);
	struct sbx_error err = { 0 };
	bool made = false;
	int first = home_ws_jail(&h, "/nonexistent-home", &made, &err);
	/* now the workspace holds a home */
	int rc = home_ws_jail(&h, h.home, &made, &err);
	home_ws_release(&h);
	assert_int_equal(made_home, 0);
	assert_int_equal(first, 0);
	assert_true(rc < 0);
	assert_false(made);
	assert_non_null(strstr(err.msg, "home directory"));
}

/* A home that did not exist when the homes were last looked for (made at
 * its owner's first login, /etc/passwd unchanged) is seen once it does. */
static void test_home_check_sees_a_home_made_later(void **state)
{
	(void)state;
	need_sandbox();
	struct home_ws h;
	home_ws_init(&h);
	struct sbx_error err = { 0 };
	bool made = false;
	int first = home_ws_jail(&h, h.home, &made, &err); /* not there yet */
	int made_home = mkdir(h.home, 0700);
	int rc = home_ws_jail(&h, h.home, &made, &err);
	home_ws_release(&h);
	assert_int_equal(first, 0);
	assert_int_equal(made_home, 0);
	assert_true(rc < 0);
	assert_non_null(strstr(err.msg, "home directory"));
}

/* A fresh secrets_dir holding public.txt, the secret key-1 and the secret
 * private/inner; sub gets private's path. */
static void fill_secrets_dir(char *sub, size_t len)
{
	make_secrets_dir();
	write_text(secrets_dir, "public.txt", "public\n");
	write_text(secrets_dir, "key-1", "secret one\n");
	snprintf(sub, len, "%s/private", secrets_dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	write_text(sub, "inner", "secret inner\n");
}

/* Under j, in secrets_dir: `cat readable` prints public.txt's line, and
 * each of the n scripts in denied fails without printing a secret. */
static void expect_secrets_kept(struct sbx_jail *j, const char *readable, const char *const *denied,
                                size_t n)
{
	char script[1024], out[256];
	snprintf(script, sizeof script, "cat %s/%s", secrets_dir, readable);
	assert_int_equal(sh(j, script, out, sizeof out), 0);
	assert_string_equal(out, "public\n");
	for (size_t i = 0; i < n; i++) {
		snprintf(script, sizeof script, "cd %s && %s", secrets_dir, denied[i]);
		if (sh(j, script, out, sizeof out) == 0 || strstr(out, "secret"))
			fail_msg("'%s' got through: %s", script, out);
	}
}

/* The profile's hidden paths stay unreadable to a child that runs as their
 * owner (uid 0 without capabilities, when root runs the tests), also ones
 * that appear after the jail was made, also through chmod; their
 * neighbours stay readable. */
static void test_hidden_paths_stay_hidden(void **state)
{
	(void)state;
	need_sandbox();
	char sub[128];
	fill_secrets_dir(sub, sizeof sub);
	struct sbx_jail *j = jail_with(with_secrets);

	char script[1024], out[256];
	const char *const denied[] = { "cat key-1", "cat private/inner", "ls private",
		                       "chmod 644 key-1; cat key-1", "cat ./key-1/../key-1" };
	expect_secrets_kept(j, "public.txt", denied, sizeof denied / sizeof denied[0]);
	/* A secret that appears after the jail was made, and after a spare
	 * was set up with the masks of before (it must not be used). */
	sbx_jail_keep_spare(j, true);
	assert_int_equal(sh(j, "true", out, sizeof out), 0);
	write_text(secrets_dir, "key-2", "secret two\n");
	snprintf(script, sizeof script, "cat %s/key-2", secrets_dir);
	if (sh(j, script, out, sizeof out) == 0 || strstr(out, "secret"))
		fail_msg("key-2, made after the jail, was read: %s", out);
	/* The host's files are untouched: the masks were the child's view. */
	snprintf(script, sizeof script, "%s/key-1", secrets_dir);
	struct stat st;
	assert_int_equal(stat(script, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(st.st_size, 11);
	sbx_jail_free(j);
	remove_secrets_dir();
}

/* Without a mount namespace no mask covers a hidden path: Landlock alone
 * keeps it out, its dir granted entry by entry, and a link there is
 * granted as what it leads to. One that leads to a hidden path, by a
 * relative or an absolute target, or to a dir holding one, grants
 * nothing; one to a neighbour grants it. */
static void with_secrets_no_mounts(struct sbx_spec *s)
{
	with_secrets(s);
	s->namespaces &= ~(SBX_NS_MOUNT | SBX_NS_PID);
}

static void test_link_to_a_hidden_path_grants_nothing(void **state)
{
	(void)state;
	need_sandbox();
	char sub[128], target[160], link[160];
	fill_secrets_dir(sub, sizeof sub);
	snprintf(link, sizeof link, "%s/alias", secrets_dir);
	assert_int_equal(symlink("key-1", link), 0);
	snprintf(link, sizeof link, "%s/deep-alias", secrets_dir);
	snprintf(target, sizeof target, "%s/inner", sub);
	assert_int_equal(symlink(target, link), 0);
	snprintf(link, sizeof link, "%s/dir-alias", secrets_dir);
	assert_int_equal(symlink(".", link), 0);
	snprintf(link, sizeof link, "%s/pub-link", secrets_dir);
	assert_int_equal(symlink("public.txt", link), 0);
	struct sbx_jail *j = jail_with(with_secrets_no_mounts);

	const char *const denied[] = { "cat alias", "cat deep-alias", "cat dir-alias/key-1",
		                       "cat key-1" };
	expect_secrets_kept(j, "pub-link", denied, sizeof denied / sizeof denied[0]);
	sbx_jail_free(j);
	remove_secrets_dir();
}

/* A read path that names one file grants that file alone: its rule keeps
 * files' rights (opened as a directory first, it is found not to be one),
 * neither its directory's listing nor its siblings. */
static char one_file_dir[64], one_file[96];

static void with_one_file(struct sbx_spec *s)
{
	static const char *read[16];
	size_t n = 0;
	for (size_t i = 0; s->read_paths && s->read_paths[i] && n < 14; i++)
		read[n++] = s->read_paths[i];
	read[n++] = one_file;
	read[n] = NULL;
	s->read_paths = read;
}

static void test_read_path_of_a_file_grants_that_file_alone(void **state)
{
	(void)state;
	need_sandbox();
	snprintf(one_file_dir, sizeof one_file_dir, "/var/tmp/tc-onefile-XXXXXX");
	assert_non_null(mkdtemp(one_file_dir));
	chmod(one_file_dir, 0755);
	write_text(one_file_dir, "granted.txt", "granted\n");
	write_text(one_file_dir, "sibling.txt", "sibling\n");
	snprintf(one_file, sizeof one_file, "%s/granted.txt", one_file_dir);
	struct sbx_jail *j = jail_with(with_one_file);

	char script[256], out[256];
	snprintf(script, sizeof script, "cat %s", one_file);
	assert_int_equal(sh(j, script, out, sizeof out), 0);
	assert_string_equal(out, "granted\n");
	for (int i = 0; i < 2; i++) {
		if (i)
			snprintf(script, sizeof script, "ls %s", one_file_dir);
		else
			snprintf(script, sizeof script, "cat %s/sibling.txt", one_file_dir);
		if (sh(j, script, out, sizeof out) == 0 || strstr(out, "sibling"))
			fail_msg("'%s' got through: %s", script, out);
	}
	sbx_jail_free(j);
	snprintf(script, sizeof script, "rm -rf '%s'", one_file_dir);
	assert_int_equal(system(script), 0);
}

/* A rescan before a spawn that fails (here: a new match too many) fails
 * that spawn and every next one until it succeeds: never a child, fresh or
 * a spare, with the masks of before or a partial set. */
static void test_hidden_rescan_failure_fails_spawns(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with_a_key();
	sbx_jail_keep_spare(j, true);
	char script[256], out[256];
	assert_int_equal(sh(j, "true", out, sizeof out), 0);
	for (int i = 0; i < 1100; i++) { /* more than the 1024 masks */
		char name[32];
		snprintf(name, sizeof name, "key-x%04d", i);
		write_text(secrets_dir, name, "secret many\n");
	}
	char *const argv[] = { (char *)"/bin/true", NULL };
	struct sbx_job job = { .argv = argv };
	for (int round = 0; round < 2; round++) {
		struct sbx_child *c = NULL;
		struct sbx_error err = { 0 };
		if (sbx_spawn(j, &job, &c, &err) == 0)
			fail_msg("spawn %d ran with an incomplete set of masks", round);
		assert_null(c);
		assert_non_null(strstr(err.msg, "hidden path"));
	}
	snprintf(script, sizeof script, "rm -f %s/key-x*", secrets_dir);
	assert_int_equal(system(script), 0);
	snprintf(script, sizeof script, "cat %s/key-1", secrets_dir);
	if (sh(j, script, out, sizeof out) == 0 || strstr(out, "secret"))
		fail_msg("key-1 was read after the failed rescans: %s", out);
	sbx_jail_free(j);
	remove_secrets_dir();
}

/* opendir of stale_dir fails with ESTALE (a directory on NFS whose handle
 * went stale), counted in stale_opens: the Makefile links this test with
 * --wrap=opendir, so the library's calls come here. */
static const char *stale_dir;
static int stale_opens;
DIR *__real_opendir(const char *name);
DIR *__wrap_opendir(const char *name);
DIR *__wrap_opendir(const char *name)
{
	if (stale_dir && !strcmp(name, stale_dir)) {
		stale_opens++;
		errno = ESTALE;
		return NULL;
	}
	return __real_opendir(name);
}

/* An ESTALE while the hidden globs are matched again fails the spawn at
 * once, said as what it is: not a hidden path that kept moving, matched
 * again and again until the tries are spent. */
static void test_hidden_rescan_stale_handle_is_said(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with_a_key();
	if (j->mask_hidden) {
		write_text(secrets_dir, "key-2", "secret two\n"); /* the dir changed: a rescan */
		char *const argv[] = { (char *)"/bin/true", NULL };
		struct sbx_job job = { .argv = argv };
		struct sbx_child *c = NULL;
		struct sbx_error err = { 0 };
		stale_dir = secrets_dir;
		stale_opens = 0;
		int rc = sbx_spawn(j, &job, &c, &err);
		stale_dir = NULL;
		if (rc == 0)
			fail_msg("a spawn ran though its hidden globs could not be matched");
		assert_null(c);
		assert_int_equal(rc, -ESTALE);
		assert_int_equal(err.errnum, ESTALE);
		assert_null(strstr(err.msg, "kept moving"));
		assert_non_null(strstr(err.msg, "hidden path"));
		assert_non_null(strstr(err.msg, strerror(ESTALE)));
		assert_int_equal(stale_opens, 1);
	}
	bool masks = j->mask_hidden;
	sbx_jail_free(j);
	remove_secrets_dir();
	if (!masks)
		skip(); /* no mount namespace: no masks, no rescan before a spawn */
}

/* A view is checked against the state the hidden globs were matched in
 * (mask_check, where a child or a worker made it): a hidden directory the
 * host moved away and back since, its dir changed, is -ESTALE, even where
 * it is back under its name (the rules or a replica may have been made
 * while it was away). Matched again a clock tick later, the view holds,
 * and the moved directory stays hidden. */
static void test_hidden_moved_while_the_view_is_made_is_stale(void **state)
{
	(void)state;
	need_sandbox();
	char sub[128], away[160], script[256], out[256];
	fill_secrets_dir(sub, sizeof sub);
	snprintf(away, sizeof away, "%s/elsewhere", secrets_dir);
	struct sbx_jail *j = jail_with(with_secrets);
	struct sbx_error err = { 0 };
	if (!j->mask_hidden) {
		sbx_jail_free(j);
		skip(); /* no mount namespace: no masks, no view to check */
	}
	struct timespec tick = { 0, 30 * 1000000L };
	nanosleep(&tick, NULL);
	assert_true(mask_refresh(j, true, &err) >= 0);
	assert_int_equal(mask_check(j), 0);
	assert_int_equal(rename(sub, away), 0);
	assert_int_equal(rename(away, sub), 0);
	assert_int_equal(mask_check(j), -VIEW_MOVED);
	nanosleep(&tick, NULL);
	assert_int_equal(mask_refresh(j, false, &err), 1);
	assert_int_equal(mask_check(j), 0);
	snprintf(script, sizeof script, "cat %s/private/inner %s/elsewhere/inner", secrets_dir,
	         secrets_dir);
	if (sh(j, script, out, sizeof out) == 0 || strstr(out, "secret"))
		fail_msg("the moved hidden directory was read: %s", out);
	sbx_jail_free(j);
	remove_secrets_dir();
}

static int fn_returns_7(void *arg);

static void with_secrets_uts_optional(struct sbx_spec *s)
{
	with_secrets(s);
	s->optional |= SBX_REQ_NS_UTS;
}

static atomic_bool churn_stop;

/* Renames a file of secrets_dir back and forth until churn_stop: the
 * directory changes at every clock tick, so every view made from it is
 * refused (mask_check). */
static void *thread_churns_secrets_dir(void *arg)
{
	(void)arg;
	char a[96], b[96];
	snprintf(a, sizeof a, "%s/public.txt", secrets_dir);
	snprintf(b, sizeof b, "%s/public.moved", secrets_dir);
	while (!atomic_load(&churn_stop)) {
		(void)!rename(a, b);
		(void)!rename(b, a);
		usleep(500);
	}
	return NULL;
}

/* A worker's child that makes its own view (an optional namespace: its
 * worker shares none) and finds the hidden paths moved is made again, as
 * a one-shot child is: while they keep moving, the spawn fails saying so
 * after its tries, never a call started and failed in its setup; once
 * they are still, it runs. */
static void test_worker_child_view_moved_is_made_again(void **state)
{
	(void)state;
	need_sandbox();
	char sub[128];
	fill_secrets_dir(sub, sizeof sub);
	struct sbx_jail *j = jail_with(with_secrets_uts_optional);
	bool own = j->mask_hidden && !worker_shares_view(j);
	struct sbx_job job = { .fn = fn_returns_7 };
	struct sbx_child *c = NULL;
	struct sbx_error err = { 0 };
	if (own) {
		atomic_store(&churn_stop, false);
		pthread_t t;
		assert_int_equal(pthread_create(&t, NULL, thread_churns_secrets_dir, NULL), 0);
		int rc = sbx_spawn(j, &job, &c, &err);
		if (rc == 0) {
			assert_int_equal(sbx_child_wait(c), 0);
			const struct sbx_outcome *o = sbx_child_outcome(c);
			fail_msg(
			        "a child ran its setup with the view moved: setup %s (%d), exit %d",
			        o->setup_step, o->setup_failed, o->exit_code);
		}
		atomic_store(&churn_stop, true);
		pthread_join(t, NULL);
		assert_null(c);
		assert_non_null(strstr(err.msg, "kept moving"));
		struct timespec tick = { 0, 30 * 1000000L };
		nanosleep(&tick, NULL);
		c = spawn(j, &job);
		assert_int_equal(sbx_child_wait(c), 0);
		assert_int_equal(sbx_child_outcome(c)->exit_code, 7);
		sbx_child_free(c);
	}
	sbx_jail_free(j);
	remove_secrets_dir();
	if (!own)
		skip(); /* no masks, or a worker that shares its view */
}

/* A hidden glob that matches more than the masks can hold (1024) fails the
 * jail with a message naming it: never a partial set of masks. */
static void test_hidden_glob_matching_too_much_is_refused(void **state)
{
	(void)state;
	need_sandbox();
	static const char *const hidden[] = { "/usr/*/*", NULL };
	struct sbx_spec spec = fx.prof->spec;
	spec.hidden_paths = hidden;
	struct sbx_error err = { 0 };
	struct sbx_jail *j = NULL;
	assert_true(sbx_jail_new(&spec, fx.ws, &j, &err) < 0);
	assert_null(j);
	assert_non_null(strstr(err.msg, "hidden path /usr/*/*"));
}

/* A directory of n files f0000.. and n directories d0000.. that each hold
 * a file "key"; the paths of the files in files[0..n) (new). */
static char fds_dir[64];
static char **make_fds_dir(int n)
{
	snprintf(fds_dir, sizeof fds_dir, "/var/tmp/tc-fds-XXXXXX");
	assert_non_null(mkdtemp(fds_dir));
	chmod(fds_dir, 0755);
	char **files = calloc((size_t)n + 1, sizeof *files);
	assert_non_null(files);
	for (int i = 0; i < n; i++) {
		char name[16], sub[96];
		snprintf(name, sizeof name, "f%04d", i);
		write_text(fds_dir, name, "x\n");
		assert_true(asprintf(&files[i], "%s/%s", fds_dir, name) > 0);
		snprintf(sub, sizeof sub, "%s/d%04d", fds_dir, i);
		assert_int_equal(mkdir(sub, 0755), 0);
		write_text(sub, "key", "secret\n");
	}
	return files;
}

static void free_fds_dir(char **files)
{
	for (char **f = files; *f; f++)
		free(*f);
	free(files);
	char script[128];
	snprintf(script, sizeof script, "rm -rf '%s'", fds_dir);
	assert_int_equal(system(script), 0);
}

/* The profile's read paths (files, then the fixture's) and a glob that
 * looks in each directory of fds_dir. */
static struct sbx_spec spec_with_fds(char **files, int n, const char **read, const char **hidden,
                                     char *glob, size_t glen)
{
	struct sbx_spec spec = fx.prof->spec;
	int k = 0;
	for (; k < n; k++)
		read[k] = files[k];
	for (size_t i = 0; spec.read_paths && spec.read_paths[i]; i++)
		read[k++] = spec.read_paths[i];
	read[k] = NULL;
	snprintf(glob, glen, "%s/d*/key", fds_dir);
	hidden[0] = glob;
	hidden[1] = NULL;
	spec.read_paths = read;
	spec.hidden_paths = hidden;
	return spec;
}

/* A jail's Landlock rules and the directories its hidden globs look in
 * are one budget of descriptors (1024): 600 of each fail the jail, said
 * so, though neither is past 1024 alone. */
static void test_jail_descriptors_are_one_budget(void **state)
{
	(void)state;
	need_sandbox();
	enum { N = 600 };
	/* The budget is met only where more descriptors than it can be open
	 * (else the open-files limit is what is said, as it should be). */
	struct rlimit was, more;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	if (was.rlim_max != RLIM_INFINITY && was.rlim_max < 2 * JAIL_FDS_MAX) {
		print_message("skip: the hard open-files limit is below %d\n", 2 * JAIL_FDS_MAX);
		skip();
	}
	more = (struct rlimit){ 2 * JAIL_FDS_MAX, was.rlim_max };
	if (was.rlim_cur != RLIM_INFINITY && was.rlim_cur < more.rlim_cur)
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &more), 0);
	char **files = make_fds_dir(N);
	static const char *read[N + 64], *hidden[2];
	char glob[96];
	struct sbx_spec spec = spec_with_fds(files, N, read, hidden, glob, sizeof glob);
	struct sbx_error err = { 0 };
	struct sbx_jail *j = NULL;
	int rc = sbx_jail_new(&spec, fx.ws, &j, &err);
	bool masks = j && j->mask_hidden;
	sbx_jail_free(j);
	free_fds_dir(files);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
	if (rc == 0 && !masks)
		skip(); /* no mount namespace: the glob is no watch */
	if (!strstr(err.msg, "descriptors a jail may hold"))
		fail_msg("jail: %d, %s", rc, err.msg);
	assert_int_equal(rc, -E2BIG);
}

/* A jail whose worker needs more descriptors than the open-files limit
 * gives fails its builtin's spawn saying so (the limit, and what to do),
 * not with a worker that ends at once; under a higher limit it runs. */
static void test_worker_over_the_open_files_limit_is_said(void **state)
{
	(void)state;
	need_sandbox();
	enum { N = 300 };
	struct rlimit was;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	if (was.rlim_max < 4096) {
		print_message("skip: the hard open-files limit is below 4096\n");
		skip();
	}
	char **files = make_fds_dir(N);
	static const char *read[N + 64], *hidden[2];
	char glob[96];
	struct sbx_spec spec = spec_with_fds(files, N, read, hidden, glob, sizeof glob);
	struct sbx_error err = { 0 };
	struct sbx_jail *j = NULL;
	assert_int_equal(sbx_jail_new(&spec, fx.ws, &j, &err), 0);
	struct rlimit low = { 1024, was.rlim_max }, high = { 4096, was.rlim_max };
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	struct sbx_job job = { .fn = fn_returns_7 };
	struct sbx_child *c = NULL;
	int rc = sbx_spawn(j, &job, &c, &err);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &high), 0);
	if (rc == 0)
		fail_msg("a worker started past the open-files limit");
	assert_null(c);
	assert_non_null(strstr(err.msg, "open-files limit here, RLIMIT_NOFILE: soft 1024, hard"));
	c = spawn(j, &job);
	assert_int_equal(sbx_child_wait(c), 0);
	assert_int_equal(sbx_child_outcome(c)->exit_code, 7);
	sbx_child_free(c);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
	sbx_jail_free(j);
	free_fds_dir(files);
}

/* Descriptors run out at a spawn's own steps (its pipes, its cgroup
 * files), past the worker's trial: the error names the limit, its soft
 * and hard values and how to raise it, not a bare "Too many open files". */
static void test_spawn_out_of_descriptors_names_the_limit(void **state)
{
	(void)state;
	need_sandbox();
	struct rlimit was;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	int high = 0;
	for (int fd = 0; fd < 4096; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			high = fd;
	/* Every number up to the limit taken: no new descriptor. */
	static bool mine[4096];
	for (int fd = 0; fd <= high; fd++)
		mine[fd] = fcntl(fd, F_GETFD) < 0 && dup2(2, fd) == fd;
	struct rlimit low = { (rlim_t)high + 1, was.rlim_max };
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	char *const argv[] = { (char *)"true", NULL };
	struct sbx_job job = { .argv = argv };
	struct sbx_child *c = NULL;
	struct sbx_error err = { 0 };
	int rc = sbx_spawn(fx.jail, &job, &c, &err);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
	for (int fd = 0; fd <= high; fd++)
		if (mine[fd] && !close(fd))
			mine[fd] = false;
	if (c)
		sbx_child_free(c);
	assert_int_equal(rc, -EMFILE);
	char want[64];
	snprintf(want, sizeof want, "RLIMIT_NOFILE: soft %d, hard ", high + 1);
	if (!strstr(err.msg, want) || !strstr(err.msg, "ulimit -n") ||
	    !strstr(err.msg, "LimitNOFILE="))
		fail_msg("spawn: %s", err.msg);
}

/* A worker copies its descriptors above the numbers it gives them, in
 * what this process leaves free: a server whose own descriptors (its
 * connections, its pipes) take those numbers leaves it no room though the
 * limit is above what the jail holds twice over. The spawn says so, with
 * the limit, not as a worker that ends at once ("Broken pipe"). */
static void test_worker_crowded_out_by_our_descriptors_is_said(void **state)
{
	(void)state;
	need_sandbox();
	struct rlimit was;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	struct sbx_error err = { 0 };
	struct sbx_jail *j = NULL;
	assert_int_equal(sbx_jail_new(&fx.prof->spec, fx.ws, &j, &err), 0);
	/* The numbers the worker's copies go to (zygote.c: 6 + n and up) are
	 * taken up to our highest descriptor, and the limit leaves n - 2
	 * above it: room for the spawn's own pipes, not for the n copies,
	 * though it passes the count of what the jail holds. */
	enum { FDS = 4096 };
	static bool mine[FDS];
	int n = 3 + jail_fds_held(j), high = 0;
	for (int fd = 0; fd < FDS; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			high = fd;
	int lim = high + 1 + n - 2;
	if (lim < 6 + 2 * n)
		lim = 6 + 2 * n;
	if (lim >= FDS || (rlim_t)lim > was.rlim_max || was.rlim_cur < (rlim_t)lim)
		skip();
	for (int fd = 6 + n; fd <= high; fd++)
		mine[fd] = fcntl(fd, F_GETFD) < 0 && dup2(0, fd) == fd;
	struct rlimit low = { (rlim_t)lim, was.rlim_max };
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	struct sbx_job job = { .fn = fn_returns_7 };
	struct sbx_child *c = NULL;
	int rc = sbx_spawn(j, &job, &c, &err);
	int code = rc == 0 ? sbx_child_wait(c) : -1;
	if (c)
		sbx_child_free(c);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
	for (int fd = 0; fd < FDS; fd++)
		if (mine[fd] && !close(fd))
			mine[fd] = false;
	if (rc == 0 && code == 0)
		fail_msg("a worker started with no numbers free for its copies");
	if (!strstr(err.msg, "open-files limit here"))
		fail_msg("spawn: %d, %s", rc, err.msg);
	c = spawn(j, &job);
	assert_int_equal(sbx_child_wait(c), 0);
	assert_int_equal(sbx_child_outcome(c)->exit_code, 7);
	sbx_child_free(c);
	sbx_jail_free(j);
}

/* ---- writable paths ----------------------------------------------------- */

static void writable_workspace(struct sbx_spec *s)
{
	s->workspace_write = true;
}

/* A mount that is read-only on the host stays so inside a writable
 * workspace (only the workspace's own mount is opened for writing); a
 * writable one beneath it stays writable. Root only: it mounts. */
static void test_host_readonly_mount_in_workspace_stays_readonly(void **state)
{
	(void)state;
	need_sandbox();
	if (geteuid() != 0)
		skip();
	char ro[128], rw[128], cmd[512], out[256];
	snprintf(ro, sizeof ro, "%s/romnt", fx.ws);
	snprintf(rw, sizeof rw, "%s/rwmnt", fx.ws);
	assert_int_equal(mkdir(ro, 0755), 0);
	assert_int_equal(mkdir(rw, 0755), 0);
	write_text(ro, "data", "host\n");
	assert_int_equal(mount(ro, ro, NULL, MS_BIND, NULL), 0);
	assert_int_equal(mount(NULL, ro, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL), 0);
	assert_int_equal(mount("tmpfs", rw, "tmpfs", 0, "size=1m"), 0);
	struct sbx_jail *j = jail_with(writable_workspace);
	int ro_rc = sh(j, "echo tool >> romnt/data", out, sizeof out);
	int rw_rc = sh(j, "echo tool > rwmnt/f && echo tool > top", out, sizeof out);
	sbx_jail_free(j);
	snprintf(cmd, sizeof cmd, "%s/data", ro);
	FILE *f = fopen(cmd, "re");
	assert_non_null(f);
	char line[64] = "";
	assert_non_null(fgets(line, sizeof line, f));
	bool more = fgets(line + strlen(line), (int)(sizeof line - strlen(line)), f) != NULL;
	fclose(f);
	umount2(ro, MNT_DETACH);
	umount2(rw, MNT_DETACH);
	snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s/top'", ro, rw, fx.ws);
	assert_int_equal(system(cmd), 0);
	assert_int_not_equal(ro_rc, 0);
	assert_false(more); /* the host file holds its one line */
	assert_int_equal(rw_rc, 0);
}

/* Write paths: none through a symbolic link (a tool that can rename what
 * holds one could point it at any host file for the next call), not "/".
 * Checked when the jail is made, and again by the child, which catches a
 * link swapped in after that: the spawn fails, the target stays as it was. */
static char write_path[128];
static const char *write_list[2];

static void with_write_path(struct sbx_spec *s)
{
	write_list[0] = write_path;
	write_list[1] = NULL;
	s->write_paths = write_list;
}

static int jail_error(const char *path, char *msg, size_t len)
{
	snprintf(write_path, sizeof write_path, "%s", path);
	struct sbx_spec spec = fx.prof->spec;
	with_write_path(&spec);
	struct sbx_error err = { 0 };
	struct sbx_jail *j = NULL;
	int rc = sbx_jail_new(&spec, fx.ws, &j, &err);
	snprintf(msg, len, "%s", err.msg);
	sbx_jail_free(j);
	return rc;
}

static void test_write_path_through_a_link_is_refused(void **state)
{
	(void)state;
	need_sandbox();
	char dir[64] = "/var/tmp/tc-wlink-XXXXXX", sub[96], link[96], victim[96], msg[600];
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof sub, "%s/real", dir);
	snprintf(link, sizeof link, "%s/link", dir);
	snprintf(victim, sizeof victim, "%s/victim", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(mkdir(victim, 0755), 0);
	assert_int_equal(symlink(sub, link), 0);
	assert_true(jail_error(link, msg, sizeof msg) < 0);
	assert_non_null(strstr(msg, "symbolic link"));
	assert_true(jail_error("/", msg, sizeof msg) < 0);
	assert_non_null(strstr(msg, "whole host"));
	/* Nor one a tool could rename to move a mask or the private tmpfs:
	 * a write path that holds a hidden path, or (root, with the tmpfs
	 * beside /tmp for a workspace there) the tmpfs's parent. */
	static const char *hide[] = { NULL, NULL };
	char hidden[128];
	snprintf(hidden, sizeof hidden, "%s/victim/key", dir);
	hide[0] = hidden;
	snprintf(write_path, sizeof write_path, "%s", dir);
	struct sbx_spec spec = fx.prof->spec;
	with_write_path(&spec);
	spec.hidden_paths = hide;
	struct sbx_error err = { 0 };
	struct sbx_jail *bad = NULL;
	assert_true(sbx_jail_new(&spec, fx.ws, &bad, &err) < 0);
	assert_non_null(strstr(err.msg, "holds a hidden path"));
	if (geteuid() == 0 && !strncmp(fx.ws, "/tmp/", 5)) {
		assert_true(jail_error("/run", msg, sizeof msg) < 0);
		assert_non_null(strstr(msg, "private tmp mount point"));
	}
	/* Swapped after the jail was made: the child refuses it. */
	snprintf(write_path, sizeof write_path, "%s", sub);
	struct sbx_jail *j = jail_with(with_write_path);
	char script[160], out[64];
	snprintf(script, sizeof script, "echo ok > %s/f", sub);
	assert_int_equal(sh(j, script, out, sizeof out), 0);
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && ln -s '%s' '%s'", sub, victim, sub);
	assert_int_equal(system(cmd), 0);
	char *const argv[] = { (char *)"/bin/sh", (char *)"-c", script, NULL };
	struct sbx_child *c = run_argv(j, argv);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	if (o->setup_failed != ELOOP)
		fail_msg("a write path swapped for a link: setup_failed %d, exit %d",
		         o->setup_failed, o->exit_code);
	sbx_child_free(c);
	sbx_jail_free(j);
	snprintf(cmd, sizeof cmd, "%s/f", victim);
	assert_int_not_equal(access(cmd, F_OK), 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A write path of /tmp is the host's /tmp: the private tmpfs goes beside
 * it, on top of every writable mount, and the masks are bound from there,
 * not from names in /tmp anyone could have planted. Root only: it plants
 * in the host's /tmp. */
static void test_write_path_tmp_keeps_tmp_private_and_masks(void **state)
{
	(void)state;
	need_sandbox();
	if (geteuid() != 0)
		skip();
	make_secrets_dir();
	write_text(secrets_dir, "key-1", "secret one\n");
	static const char *tmp_write[] = { "/tmp", NULL };
	assert_int_equal(symlink("/etc/passwd", "/tmp/.toolcage-mask-file"), 0);
	struct sbx_spec spec = fx.prof->spec;
	with_secrets(&spec);
	spec.write_paths = tmp_write;
	struct sbx_error err = { 0 };
	struct sbx_jail *j = NULL;
	char ws[64] = "/var/tmp/tc-ws-XXXXXX"; /* not in /tmp: that moves the tmpfs anyway */
	assert_non_null(mkdtemp(ws));
	if (sbx_jail_new(&spec, ws, &j, &err) < 0)
		fail_msg("jail: %s", err.msg);
	char script[300], out[256];
	snprintf(script, sizeof script, "cat %s/key-1; echo \"$TMPDIR\"", secrets_dir);
	int rc = sh(j, script, out, sizeof out);
	sbx_jail_free(j);
	rmdir(ws);
	unlink("/tmp/.toolcage-mask-file");
	remove_secrets_dir();
	(void)rc;
	if (strstr(out, "secret") || strstr(out, "root:"))
		fail_msg("a hidden path was read with /tmp writable: %s", out);
	if (!strstr(out, "/toolcage/tmp"))
		fail_msg("TMPDIR is not the private tmpfs beside /tmp: %s", out);
}

/* ---- spares ------------------------------------------------------------- */

static void no_edit(struct sbx_spec *s)
{
	(void)s;
}

/* Our live children, from /proc (0 when that file is missing). */
static int children_of(pid_t parent, pid_t *pids, int max)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)parent, (int)parent);
	FILE *f = fopen(path, "re");
	int n = 0, pid;
	while (f && n < max && fscanf(f, "%d", &pid) == 1)
		pids[n++] = pid;
	if (f)
		fclose(f);
	return n;
}

static bool is_worker(pid_t pid)
{
	char path[64], comm[32] = "";
	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	FILE *f = fopen(path, "re");
	if (f && !fgets(comm, sizeof comm, f))
		comm[0] = '\0';
	if (f)
		fclose(f);
	return !strcmp(comm, "tc-worker\n");
}

/* Our children that run tools (spares, running jobs): those the jails'
 * workers fork are ours too (CLONE_PARENT); the workers themselves are
 * not counted. */
static int children(pid_t *pids, int max)
{
	pid_t all[64];
	int na = children_of(getpid(), all, 64), n = 0;
	for (int i = 0; i < na && n < max; i++)
		if (!is_worker(all[i]))
			pids[n++] = all[i];
	return n;
}

/* The first spare of a jail waits for its worker's start (an exec of the
 * program, its view): 10 s, for a sanitizer build on a loaded machine. */
static bool wait_spare_ready(struct sbx_jail *j)
{
	for (int64_t end = io_now_ms() + 10000; io_now_ms() < end; usleep(1000))
		if (sbx_jail_spare_ready(j))
			return true;
	return false;
}

/* A jail keeping a spare runs every kind of exec job as a fresh child
 * would: argv, exit status, stdin or /dev/null, cwd, the fds, 127, the
 * deadline measured from the call, not from when the spare was made. */
static void test_spare_runs_jobs_like_a_fresh_child(void **state)
{
	(void)state;
	need_sandbox();
	sbx_cleanup(); /* cgroup slots: counted from none, back to none */
	int fds_before = count_fds();
	struct sbx_jail *j = jail_with(no_edit);
	sbx_jail_keep_spare(j, true);
	char out[256];
	for (int round = 0; round < 3; round++) {
		assert_int_equal(sh(j, "echo \"$0 $1\"; exit 3", out, sizeof out), 3);
		assert_string_equal(out, "/bin/sh \n");
	}
	char *const cat[] = { (char *)"cat", NULL };
	struct sbx_job job = { .argv = cat, .stdin_data = "fed\n", .stdin_len = 4 };
	struct sbx_child *c = spawn(j, &job);
	assert_int_equal(sbx_child_wait(c), 0);
	assert_string_equal(sbx_child_outcome(c)->out.head, "fed\n");
	sbx_child_free(c);
	struct sbx_job nostdin = { .argv = cat };
	c = spawn(j, &nostdin);
	assert_int_equal(sbx_child_wait(c), 0);
	assert_int_equal(sbx_child_outcome(c)->exit_code, 0);
	assert_int_equal(sbx_child_outcome(c)->out.total, 0);
	sbx_child_free(c);
	char sub[128], want[160];
	snprintf(sub, sizeof sub, "%s/sub", fx.ws);
	assert_true(mkdir(sub, 0755) == 0 || errno == EEXIST);
	char *const pwd[] = { (char *)"pwd", NULL };
	struct sbx_job in_sub = { .argv = pwd, .cwd = "sub" };
	c = spawn(j, &in_sub);
	assert_int_equal(sbx_child_wait(c), 0);
	snprintf(want, sizeof want, "%s\n", sub);
	assert_string_equal(sbx_child_outcome(c)->out.head, want);
	sbx_child_free(c);
	/* The limits hold (RLIMIT_AS is set once the job is in). */
	char cold[64];
	assert_int_equal(sh(fx.jail, "ulimit -v; ulimit -n; ulimit -c", cold, sizeof cold), 0);
	assert_int_equal(sh(j, "ulimit -v; ulimit -n; ulimit -c", out, sizeof out), 0);
	assert_string_equal(out, cold);
	assert_string_equal(out, "4194304\n256\n0\n");
	assert_int_equal(sh(j, "ls /proc/self/fd | tr '\\n' ' '", out, sizeof out), 0);
	assert_string_equal(out, "0 1 2 3 "); /* 3: ls's own listing */
	char *const missing[] = { (char *)"tc-no-such-command", NULL };
	c = run_argv(j, missing);
	assert_int_equal(sbx_child_outcome(c)->exit_code, CHILD_EXIT_NOTFOUND);
	assert_string_equal(sbx_child_outcome(c)->setup_step, "exec");
	sbx_child_free(c);
	usleep(300 * 1000); /* the spare waits; its deadline must not count */
	char *const slow[] = { (char *)"sleep", (char *)"5", NULL };
	struct sbx_job timed = { .argv = slow, .timeout_ms = 400 };
	c = spawn(j, &timed);
	assert_int_equal(sbx_child_wait(c), 0);
	assert_int_equal(sbx_child_outcome(c)->killed_by, SBX_KILLED_TIMEOUT);
	assert_true(sbx_child_outcome(c)->wall_ms >= 400);
	assert_true(sbx_child_outcome(c)->wall_ms < 2000);
	sbx_child_free(c);
	pid_t kids[16];
	assert_true(wait_spare_ready(j));
	assert_int_equal(children(kids, 16), 1); /* the spare */
	sbx_jail_free(j);
	assert_int_equal(children(kids, 16), 0); /* gone with its jail */
	sbx_cleanup(); /* the pool kept a second cgroup slot: spare and job overlap */
	assert_int_equal(count_fds(), fds_before);
}

/* The worker copies its code into each child (worker.c, struct
 * image_code) without a mapping ever writable and executable: its code
 * is still the program's file, read-only, with one anonymous page per
 * segment (where a process may write its own code through /proc/self/mem,
 * as we try on ours), and (where the kernel maps ahead: Linux 5.14) all
 * of it resident once it has forked twice. */
static void test_worker_code_stays_read_only_and_is_mapped_ahead(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(no_edit);
	sbx_jail_keep_spare(j, true);
	char out[64];
	for (int i = 0; i < 3; i++)
		assert_int_equal(sh(j, "true", out, sizeof out), 0);
	assert_true(wait_spare_ready(j));
	pid_t all[64], worker = -1;
	int n = children_of(getpid(), all, 64);
	for (int i = 0; i < n; i++)
		if (is_worker(all[i]))
			worker = all[i];
	assert_true(worker > 0);
	char exe[4096], path[64], line[4352];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	assert_true(len > 0);
	exe[len] = '\0';
	snprintf(path, sizeof path, "/proc/%d/smaps", (int)worker);
	FILE *f = fopen(path, "re");
	if (!f) { /* not dumpable: its smaps are root's */
		sbx_jail_free(j);
		skip();
	}
	bool text = false, in_text = false;
	long size_kb = -1, rss_kb = -1, anon_kb = -1;
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		char perms[8] = "", file[4096] = "";
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4095s", &lo, &hi, perms, file) >= 3 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			assert_false(strchr(perms, 'w') && strchr(perms, 'x'));
			in_text = !strcmp(perms, "r-xp") && !strcmp(file, exe);
			text |= in_text;
			continue;
		}
		if (in_text) {
			sscanf(line, "Size: %ld kB", &size_kb);
			sscanf(line, "Rss: %ld kB", &rss_kb);
			sscanf(line, "Anonymous: %ld kB", &anon_kb);
		}
	}
	fclose(f);
	assert_true(text);
	assert_true(size_kb > 0 && anon_kb >= 0);
	assert_true(anon_kb <= 4 * 8); /* a page a segment, nothing more */
	int mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	char b = *(volatile const char *)test_worker_code_stays_read_only_and_is_mapped_ahead;
	bool own_code_writable = mem >= 0 &&
	        pwrite(mem, &b, 1,
	               (off_t)(uintptr_t)test_worker_code_stays_read_only_and_is_mapped_ahead) == 1;
	if (mem >= 0)
		close(mem);
	if (own_code_writable)
		assert_true(anon_kb > 0);
	/* The kernel maps ahead where it knows MADV_POPULATE_READ. */
	char *probe = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(probe != MAP_FAILED);
	bool ahead = madvise(probe, 4096, MADV_POPULATE_READ) == 0;
	munmap(probe, 4096);
	if (ahead && anon_kb > 0)
		assert_int_equal(rss_kb, size_kb);
	sbx_jail_free(j);
}

/* Cpus_allowed_list of pid's status (0: ours), newline and all. */
static void cpus_of(pid_t pid, char *out, size_t len)
{
	char path[64], line[256];
	snprintf(path, sizeof path, pid ? "/proc/%d/status" : "/proc/self/status", (int)pid);
	FILE *f = fopen(path, "re");
	assert_non_null(f);
	out[0] = '\0';
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "Cpus_allowed_list:", 18))
			snprintf(out, len, "%s", line);
	fclose(f);
	assert_true(out[0]);
}

/* Each of our children (the worker and the spare) has cpus. */
static void children_have_cpus(const char *cpus)
{
	pid_t all[64];
	char got[256];
	int n = children_of(getpid(), all, 64);
	assert_int_equal(n, 2);
	for (int i = 0; i < n; i++) {
		cpus_of(all[i], got, sizeof got);
		assert_string_equal(got, cpus);
	}
}

/* The CPUs a job of j's process has, as cpus_of gives them. */
static void job_cpus(struct sbx_jail *j, char *out, size_t len)
{
	assert_int_equal(sh(j, "grep Cpus_allowed_list /proc/self/status", out, len), 0);
}

/* After a job of j, its next spare (and the worker) have cpus. */
static void next_spare_has_cpus(struct sbx_jail *j, const char *cpus)
{
	char out[64];
	assert_int_equal(sh(j, "true", out, sizeof out), 0);
	assert_true(wait_spare_ready(j));
	children_have_cpus(cpus);
}

static void deny_setting_cpus(struct sbx_spec *s)
{
	static const char *const deny[] = { "sched_setaffinity", NULL };
	s->seccomp_deny = deny;
}

/* A jail that keeps spares has a home CPU (home.c). With the caller
 * staying home, its worker and a waiting spare keep to that one CPU, and
 * so does the caller; a job's process has every CPU we had. Not staying
 * home, the worker's next child is forked on all of them. A profile whose
 * filter would refuse a child its CPUs back gets no home. */
static void test_home_cpu_for_a_round_trip(void **state)
{
	(void)state;
	need_sandbox();
	cpu_set_t set;
	assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
	if (CPU_COUNT(&set) < 2)
		skip();
	char all[256], home[256], out[256];
	cpus_of(0, all, sizeof all);
	struct sbx_jail *j = jail_with(no_edit);
	sbx_jail_keep_spare(j, true);
	sbx_stay_home(true);
	cpus_of(0, home, sizeof home);
	assert_string_not_equal(home, all);
	for (int i = 0; i < 3; i++) {
		job_cpus(j, out, sizeof out);
		assert_string_equal(out, all);
	}
	assert_true(wait_spare_ready(j));
	children_have_cpus(home);
	/* A child of our own clone (a jail without spares) does not inherit
	 * our thread's one CPU. */
	job_cpus(fx.jail, out, sizeof out);
	assert_string_equal(out, all);
	sbx_stay_home(false);
	cpus_of(0, out, sizeof out);
	assert_string_equal(out, all);
	next_spare_has_cpus(j, all);
	sbx_jail_free(j);
	/* Nor does the worker of a jail with no home, started by it. */
	sbx_stay_home(true);
	j = jail_with(deny_setting_cpus);
	sbx_jail_keep_spare(j, true);
	next_spare_has_cpus(j, all);
	sbx_stay_home(false);
	sbx_jail_free(j);
}

/* The job goes to the spare made after the previous call; a spare that
 * died while it waited is passed over for a fresh child. */
static void test_spare_is_used_and_a_dead_one_passed_over(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(no_edit);
	assert_false(sbx_jail_keeps_spare(j));
	assert_false(sbx_jail_spare_ready(j));
	sbx_jail_keep_spare(j, true);
	assert_true(sbx_jail_keeps_spare(j));
	assert_true(wait_spare_ready(j));
	char out[64];
	assert_int_equal(sh(j, "true", out, sizeof out), 0);
	pid_t kids[16];
	assert_true(wait_spare_ready(j));
	assert_int_equal(children(kids, 16), 1);
	pid_t spare = kids[0];
	char *const argv[] = { (char *)"/bin/true", NULL };
	struct sbx_job job = { .argv = argv };
	struct sbx_child *c = spawn(j, &job);
	assert_false(sbx_jail_spare_ready(j)); /* the next comes with the free */
	assert_int_equal(sbx_child_wait(c), 0);
	assert_int_equal(sbx_child_pid(c), spare);
	assert_int_equal(sbx_child_outcome(c)->exit_code, 0);
	sbx_child_free(c);
	assert_true(wait_spare_ready(j));
	assert_int_equal(children(kids, 16), 1);
	assert_int_not_equal(kids[0], spare);
	assert_int_equal(kill(kids[0], SIGKILL), 0);
	usleep(50 * 1000);
	assert_int_equal(sh(j, "echo still", out, sizeof out), 0);
	assert_string_equal(out, "still\n");
	sbx_jail_keep_spare(j, false);
	assert_int_equal(children(kids, 16), 0);
	assert_int_equal(sh(j, "echo cold", out, sizeof out), 0);
	assert_int_equal(children(kids, 16), 0);
	sbx_jail_free(j);
}

/* A worker's child gets its job only once its pidfd is ours: a worker that
 * stops (or dies) between forking a child and sending the pidfd must not
 * leave a child running a job we cannot kill at the deadline nor reap.
 * The spare is killed and the worker stopped. The worker has made a child
 * before, so the next job is held for its child's pidfd, not waited for:
 * sbx_spawn returns at once. The deadline passes with no pidfd; the worker
 * runs again later, forks the child and sends its pidfd, and the child is
 * killed then, its job never sent. The next job runs as usual. */
static void test_no_job_to_a_child_we_do_not_hold(void **state)
{
	(void)state;
	need_sandbox();
	pid_t before[64], all[64], worker = 0, kids[16];
	int nb = children_of(getpid(), before, 64);
	struct sbx_jail *j = jail_with(no_edit);
	sbx_jail_keep_spare(j, true);
	assert_true(wait_spare_ready(j));
	int na = children_of(getpid(), all, 64);
	for (int i = 0; i < na; i++) { /* this jail's worker: the new one */
		bool old = false;
		for (int k = 0; k < nb; k++)
			old |= before[k] == all[i];
		if (!old && is_worker(all[i]))
			worker = all[i];
	}
	assert_true(worker > 0);
	assert_int_equal(children(kids, 16), 1);
	assert_int_equal(kill(worker, SIGSTOP), 0);
	assert_int_equal(kill(kids[0], SIGKILL), 0);
	usleep(50 * 1000);
	char marker[160], script[200];
	snprintf(marker, sizeof marker, "%s/ran-unheld", fx.ws);
	unlink(marker);
	snprintf(script, sizeof script, "touch '%s'", marker);
	char *const argv[] = { (char *)"/bin/sh", (char *)"-c", script, NULL };
	struct sbx_job job = { .argv = argv, .timeout_ms = 300 };
	struct sbx_error err = { 0 };
	struct sbx_child *c = NULL;
	int64_t t0 = io_now_ms();
	assert_int_equal(sbx_spawn(j, &job, &c, &err), 0);
	assert_true(io_now_ms() - t0 < 2000);
	pid_t waker = fork();
	if (waker == 0) {
		usleep(1000 * 1000); /* after the deadline, before the worker's grace */
		_exit(kill(worker, SIGCONT) == 0 ? 0 : 1);
	}
	assert_true(waker > 0);
	assert_int_equal(sbx_child_wait(c), 0);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->killed_by, SBX_KILLED_TIMEOUT);
	int ws = -1;
	assert_int_equal(waitpid(waker, &ws, 0), waker);
	assert_int_equal(ws, 0);
	assert_true(io_now_ms() - t0 < 4000); /* the pidfd came: not the grace */
	sbx_child_free(c);
	usleep(300 * 1000);
	assert_int_equal(access(marker, F_OK), -1);
	char out[64];
	assert_int_equal(sh(j, "echo after", out, sizeof out), 0);
	assert_string_equal(out, "after\n");
	assert_int_equal(access(marker, F_OK), -1);
	sbx_jail_free(j);
}

static void test_job_without_argv_or_fn_is_refused(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_job job = { 0 };
	struct sbx_error err = { 0 };
	struct sbx_child *c = NULL;
	assert_int_equal(sbx_spawn(fx.jail, &job, &c, &err), -EINVAL);
	assert_null(c);
	assert_non_null(strstr(err.msg, "neither argv nor a function"));
}

/* ---- builtin jobs --------------------------------------------------------- */

static int fn_returns_7(void *arg)
{
	(void)arg;
	return 7;
}

static int fn_writes_result(void *arg)
{
	const char *s = arg;
	if (write(3, s, strlen(s)) != (ssize_t)strlen(s))
		return 1;
	if (write(1, "to stdout", 9) != 9)
		return 2;
	return 0;
}

/* Returns 0 when no fd above 2 (or above 3 with a result pipe) is open,
 * else 100 + the first open one (so the failure names it). */
static int fn_only_stdio(void *arg)
{
	int first = arg ? 4 : 3;
	for (int fd = first; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			return 100 + (fd > 150 ? 150 : fd);
	return 0;
}

__attribute__((no_sanitize("address", "undefined"))) static int fn_faults(void *arg)
{
	(void)arg;
	/* A page that was mapped and is not any more: a real fault, which
	 * the kernel delivers even to a pid namespace's init. */
	volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 3;
	munmap((void *)p, 4096);
	return p[0];
}

static int fn_calls_uname(void *arg)
{
	(void)arg;
	struct utsname u;
	return uname(&u) == 0 ? 0 : 4;
}

/* 0 when the builtin sees the profile's environment, not ours. */
static int fn_checks_environment(void *arg)
{
	(void)arg;
	if (getenv("TC_TEST_SUPERVISOR_SECRET"))
		return 1;
	const char *path = getenv("PATH");
	return path && strcmp(path, "/usr/local/bin:/usr/bin:/bin") == 0 ? 0 : 2;
}

/* ---- a builtin that tells its end (sbx_job.end_early) ------------------- */

/* Steps c until done (10 s at most); returns whether it was done before
 * its exit was reaped. */
static bool step_until_done(struct sbx_child *c)
{
	int64_t end = io_now_ms() + 10000;
	while (!sbx_child_step(c)) {
		assert_true(io_now_ms() < end);
		struct pollfd p = { .fd = sbx_child_fd(c), .events = POLLIN };
		poll(&p, 1, 100);
	}
	return !sbx_child_reaped(c);
}

/* Reaps a child done before its exit (5 s at most), as a caller does. */
static void reap_until_reaped(struct sbx_child *c)
{
	int64_t end = io_now_ms() + 5000;
	while (sbx_child_reap_step(c) != 1) {
		assert_true(io_now_ms() < end);
		struct pollfd p = { .fd = sbx_child_fd(c), .events = POLLIN };
		poll(&p, 1, 100);
	}
}

static bool ws_has(const char *name)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", fx.ws, name);
	return access(path, F_OK) == 0;
}

/* Touches 64 MiB (an exit with an address space to tear down), answers on
 * the result pipe and returns 5. */
static int fn_exits_slowly(void *arg)
{
	(void)arg;
	size_t n = 64u << 20;
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 30;
	memset(p, 1, n);
	return write(3, "{\"n\":1}", 7) == 7 ? 5 : 31;
}

/* The job socket: the one socket a builtin holds. */
static int job_socket(void)
{
	for (int fd = 0; fd < 64; fd++) {
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
			return fd;
	}
	return -1;
}

/* Hostile: tells an end of its own making (rc 0) as soon as it starts,
 * closes its outputs and goes on; 300 ms later it writes a file in the
 * workspace, which would be work done after its answer. */
static int fn_tells_end_and_runs_on(void *arg)
{
	(void)arg;
	int sock = job_socket();
	if (sock < 0)
		return 20;
	struct end_report e = { .magic = END_MAGIC };
	close(1);
	close(2);
	close(3);
	if (send(sock, &e, sizeof e, MSG_NOSIGNAL) != (ssize_t)sizeof e)
		return 21;
	struct timespec t = { 0, 300 * 1000000L };
	nanosleep(&t, NULL);
	int fd = open("after-answer", O_WRONLY | O_CREAT, 0644);
	return fd < 0 ? 22 : 0;
}

/* Leaves a process behind, returns 6 (its end told as usual). The process
 * holds 128 MiB, so that its exit, once killed, takes a while (an exit
 * that quick could be over by the time the supervisor looks); it would
 * write a file 300 ms later. */
static int fn_leaves_a_process(void *arg)
{
	(void)arg;
	int p[2];
	if (pipe(p) < 0)
		return 41;
	pid_t pid = fork();
	if (pid < 0)
		return 40;
	if (pid == 0) {
		close(1);
		close(2);
		close(3);
		size_t n = 128u << 20;
		char *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED)
			memset(m, 1, n);
		(void)!write(p[1], "", 1);
		struct timespec t = { 0, 300 * 1000000L };
		nanosleep(&t, NULL);
		int fd = open("left-behind", O_WRONLY | O_CREAT, 0644);
		_exit(fd < 0);
	}
	char b;
	return read(p[0], &b, 1) == 1 ? 6 : 42;
}

/* Sends what is not an end on the job socket (a wrong magic, or more
 * bytes than an end), then returns 0. */
static int fn_tells_garbage(void *arg)
{
	const struct sbx_data *d = arg;
	int sock = job_socket();
	if (sock < 0)
		return 20;
	char junk[3 * sizeof(struct end_report)];
	memset(junk, 'x', sizeof junk);
	size_t n = d->len && ((const char *)d->data)[0] == 'l' ? sizeof junk :
	                                                         sizeof(struct end_report);
	return send(sock, junk, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : 21;
}

/* A builtin's job with a result pipe, which may tell its end. */
static struct sbx_job told_job(sbx_fn fn)
{
	return (struct sbx_job){
		.fn = fn, .fn_data = "x", .fn_len = 1, .result_pipe = true, .end_early = true
	};
}

/* A builtin's outcome comes from the end it tells, before the exit is
 * reaped (an address space of 64 MiB takes a while to go), and is what
 * the exit says otherwise: its status, its result, no kill reported. */
static void test_builtin_end_told_is_done_before_the_exit(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(no_edit);
	int early = 0;
	for (int i = 0; i < 5; i++) {
		struct sbx_job job = told_job(fn_exits_slowly);
		struct sbx_child *c = spawn(j, &job);
		early += step_until_done(c);
		const struct sbx_outcome *o = sbx_child_outcome(c);
		assert_int_equal(o->exit_code, 5);
		assert_int_equal(o->signal, 0);
		assert_int_equal(o->killed_by, SBX_KILLED_NONE);
		assert_int_equal(o->result_len, 7);
		assert_memory_equal(o->result, "{\"n\":1}", 7);
		reap_until_reaped(c);
		sbx_child_free(c);
	}
	assert_true(early >= 1);
	/* Without end_early the same builtin is done when reaped. */
	struct sbx_job job = {
		.fn = fn_exits_slowly, .fn_data = "x", .fn_len = 1, .result_pipe = true
	};
	struct sbx_child *c = spawn(j, &job);
	assert_false(step_until_done(c));
	assert_int_equal(sbx_child_outcome(c)->exit_code, 5);
	sbx_child_free(c);
	sbx_jail_free(j);
}

/* A profile whose filter kills a system call the end is told with (but
 * sendto, which every worker's child needs to take its job): the
 * builtin does not tell it (it would die of SIGSYS after its work, its
 * outcome a seccomp kill); its end is its exit, as for any child. */
static const char *end_call_killed[2];
static void edit_kill_end_call(struct sbx_spec *s)
{
	s->seccomp_kill = end_call_killed;
}

static void test_builtin_end_not_told_where_the_filter_kills_its_calls(void **state)
{
	(void)state;
	need_sandbox();
	static const char *const calls[] = { "close_range", "getrusage" };
	for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
		end_call_killed[0] = calls[i];
		struct sbx_jail *j = jail_with(edit_kill_end_call);
		struct sbx_job job = told_job(fn_exits_slowly);
		struct sbx_child *c = spawn(j, &job);
		step_until_done(c);
		const struct sbx_outcome *o = sbx_child_outcome(c);
		assert_int_equal(o->signal, 0);
		assert_int_equal(o->killed_by, SBX_KILLED_NONE);
		assert_int_equal(o->exit_code, 5);
		assert_int_equal(o->result_len, 7);
		sbx_child_free(c);
		sbx_jail_free(j);
	}
}

/* An end told early by a builtin that goes on: the call is answered, and
 * the builtin is killed then; nothing it would do later happens. */
static void test_builtin_end_told_then_running_on_is_killed(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(writable_workspace);
	struct sbx_job job = {
		.fn = fn_tells_end_and_runs_on, .fn_data = "x", .fn_len = 1, .end_early = true
	};
	struct sbx_child *c = spawn(j, &job);
	assert_true(step_until_done(c)); /* it sleeps until killed: not reaped yet */
	assert_int_equal(sbx_child_outcome(c)->exit_code, 0);
	reap_until_reaped(c);
	usleep(600 * 1000);
	assert_false(ws_has("after-answer"));
	sbx_child_free(c);
	sbx_jail_free(j);
}

/* An end told while another process of the call lives: done only once
 * the exit is reaped, which ends that process too (its pid namespace
 * goes); the outcome is still the end told. */
static void test_builtin_end_told_with_a_process_left_waits(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(writable_workspace);
	struct sbx_job job = {
		.fn = fn_leaves_a_process, .fn_data = "x", .fn_len = 1, .end_early = true
	};
	struct sbx_child *c = spawn(j, &job);
	assert_false(step_until_done(c));
	assert_int_equal(sbx_child_outcome(c)->exit_code, 6);
	assert_int_equal(sbx_child_outcome(c)->killed_by, SBX_KILLED_NONE);
	usleep(600 * 1000);
	assert_false(ws_has("left-behind"));
	sbx_child_free(c);
	sbx_jail_free(j);
}

/* What is not an end is not taken for one: the child is done when its
 * exit is reaped, with the status the exit says. */
static void test_builtin_end_garbage_is_ignored(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(no_edit);
	for (int i = 0; i < 2; i++) {
		struct sbx_job job = { .fn = fn_tells_garbage,
			               .fn_data = i ? "long" : "short",
			               .fn_len = i ? 4 : 5,
			               .end_early = true };
		struct sbx_child *c = spawn(j, &job);
		assert_false(step_until_done(c));
		assert_int_equal(sbx_child_outcome(c)->exit_code, 0);
		sbx_child_free(c);
	}
	sbx_jail_free(j);
}

/* Hostile: writes half its result, tells an end of its own making while
 * its result pipe is still open, then (100 ms later) the rest of its
 * result, and returns 0. Its answer is all it wrote, never the half. */
static int fn_tells_end_before_its_result_ends(void *arg)
{
	(void)arg;
	int sock = job_socket();
	if (sock < 0)
		return 20;
	struct end_report e = { .magic = END_MAGIC, .rc = 9 };
	if (write(3, "{\"half\":", 8) != 8 || send(sock, &e, sizeof e, MSG_NOSIGNAL) != sizeof e)
		return 21;
	struct timespec t = { 0, 100 * 1000000L };
	nanosleep(&t, NULL);
	return write(3, "\"whole\"}", 8) == 8 ? 0 : 22;
}

/* Hostile: tells its end a byte at a time (the supervisor sees partial
 * reads), with values no exit would say (rc -1, usage near 2^64), then
 * tries a second end, and sleeps until killed. */
static int fn_tells_end_dribbled_twice(void *arg)
{
	(void)arg;
	int sock = job_socket();
	if (sock < 0)
		return 20;
	struct end_report e = {
		.magic = END_MAGIC, .rc = -1, .cpu_us = UINT64_MAX, .max_rss_kb = UINT64_MAX - 1
	};
	if (write(3, "{}", 2) != 2)
		return 21;
	close(1);
	close(2);
	close(3);
	for (size_t i = 0; i < sizeof e; i++) {
		if (send(sock, (const char *)&e + i, 1, MSG_NOSIGNAL) != 1)
			return 22;
		struct timespec t = { 0, 2 * 1000000L };
		nanosleep(&t, NULL);
	}
	/* Once a whole end is read the supervisor reads no more: its end of
	 * the socket closes (a second end sent with the tail of the first
	 * would make both not an end). */
	struct pollfd p = { .fd = sock, .events = POLLIN };
	char b;
	if (poll(&p, 1, 5000) != 1 || recv(sock, &b, 1, MSG_DONTWAIT) != 0)
		return 24;
	struct end_report again = { .magic = END_MAGIC, .rc = 3 };
	if (send(sock, &again, sizeof again, MSG_NOSIGNAL) >= 0)
		return 25;
	pause();
	return 23;
}

/* The process a second thread forks: it closes what it holds of the call
 * and appends to "grows" every 0.2 ms until killed. */
static void *thread_forks_a_writer(void *arg)
{
	int *ready = arg;
	pid_t pid = fork();
	if (pid == 0) {
		close(1);
		close(2);
		close(3);
		int fd = open("grows", O_WRONLY | O_CREAT | O_APPEND, 0644);
		(void)!write(fd, "x", 1);
		(void)!write(ready[1], "", 1);
		for (;;) {
			(void)!write(fd, "x", 1);
			struct timespec t = { 0, 200 * 1000L };
			nanosleep(&t, NULL);
		}
	}
	if (pid < 0)
		(void)!write(ready[1], "", 1);
	pause(); /* the writer stays this thread's child, not the first's */
	return NULL;
}

/* Hostile: a second thread forks a process that writes on and keeps it
 * as its own child (the first thread has none); the first returns 8, its
 * end told as usual, over 128 MiB (an exit that takes a while). */
static int fn_thread_keeps_a_writer(void *arg)
{
	(void)arg;
	int ready[2];
	if (pipe(ready) < 0)
		return 40;
	size_t n = 128u << 20;
	char *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m != MAP_FAILED)
		memset(m, 1, n);
	pthread_t t;
	if (pthread_create(&t, NULL, thread_forks_a_writer, ready) != 0)
		return 41;
	char b;
	return read(ready[0], &b, 1) == 1 ? 8 : 42;
}

static off_t ws_size(const char *name)
{
	char path[128];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", fx.ws, name);
	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* An end told while the result is still being written is taken only once
 * the result pipe is closed: the answer is the whole result, and the
 * status is the one told, with the end's kill (done before the reap). */
static void test_builtin_end_told_before_its_result_ends(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(no_edit);
	struct sbx_job job = told_job(fn_tells_end_before_its_result_ends);
	struct sbx_child *c = spawn(j, &job);
	(void)step_until_done(c);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->result_len, 16);
	assert_memory_equal(o->result, "{\"half\":\"whole\"}", 16);
	assert_int_equal(o->killed_by, SBX_KILLED_NONE);
	reap_until_reaped(c);
	sbx_child_free(c);
	sbx_jail_free(j);
}

/* An end that comes a byte at a time is taken whole, and nothing after
 * it is read; its values are the builtin's word, passed on as told (the
 * status as an exit's byte). */
static void test_builtin_end_dribbled_then_told_again(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(no_edit);
	struct sbx_job job = told_job(fn_tells_end_dribbled_twice);
	struct sbx_child *c = spawn(j, &job);
	assert_true(step_until_done(c)); /* it pauses until killed */
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->exit_code, 255);
	assert_int_equal(o->signal, 0);
	assert_int_equal(o->killed_by, SBX_KILLED_NONE);
	assert_true(o->cpu_ms == UINT64_MAX / 1000);
	assert_true(o->max_rss_kb == UINT64_MAX - 1);
	assert_int_equal(o->result_len, 2);
	reap_until_reaped(c);
	assert_int_equal(sbx_child_outcome(c)->exit_code, 255); /* the reap changes it no more */
	sbx_child_free(c);
	sbx_jail_free(j);
}

/* A process that is the child of a second thread (not of the first, whose
 * children /proc lists) is a process left: the child is done only when
 * reaped, and nothing is written after that. */
static void test_builtin_end_told_with_a_threads_child_waits(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(writable_workspace);
	struct sbx_job job = {
		.fn = fn_thread_keeps_a_writer, .fn_data = "x", .fn_len = 1, .end_early = true
	};
	struct sbx_child *c = spawn(j, &job);
	bool early = step_until_done(c);
	off_t at_done = ws_size("grows");
	assert_int_equal(sbx_child_outcome(c)->exit_code, 8);
	if (early)
		reap_until_reaped(c);
	usleep(100 * 1000);
	assert_true(at_done > 0);
	assert_int_equal(ws_size("grows"), at_done); /* nothing written after the answer */
	assert_false(early);
	sbx_child_free(c);
	sbx_jail_free(j);
}

static struct sbx_child *run_fn(struct sbx_jail *j, sbx_fn fn, void *arg, bool result)
{
	struct sbx_job job = { .fn = fn, .fn_arg = arg, .result_pipe = result };
	struct sbx_child *c = spawn(j, &job);
	assert_int_equal(sbx_child_wait(c), 0);
	return c;
}

static void test_builtin_return_is_exit_status(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_child *c = run_fn(fx.jail, fn_returns_7, NULL, false);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->setup_failed, 0);
	assert_int_equal(o->exit_code, 7);
	assert_null(o->result);
	sbx_child_free(c);
}

/* A builtin runs on a copy of the supervisor's memory: its environment
 * (and what it execs with execvp) must still be the profile's. */
static void test_builtin_gets_the_profile_environment(void **state)
{
	(void)state;
	need_sandbox();
	setenv("TC_TEST_SUPERVISOR_SECRET", "hunter2", 1);
	struct sbx_child *c = run_fn(fx.jail, fn_checks_environment, NULL, false);
	assert_int_equal(sbx_child_outcome(c)->exit_code, 0);
	sbx_child_free(c);
	struct sbx_jail *j = jail_with(no_edit);
	sbx_jail_keep_spare(j, true);
	char out[8];
	assert_int_equal(sh(j, "true", out, sizeof out), 0); /* a spare is made */
	struct sbx_job job = { .fn = fn_checks_environment, .fn_data = "x", .fn_len = 1 };
	c = spawn(j, &job);
	assert_int_equal(sbx_child_wait(c), 0);
	assert_int_equal(sbx_child_outcome(c)->exit_code, 0);
	sbx_child_free(c);
	sbx_jail_free(j);
	unsetenv("TC_TEST_SUPERVISOR_SECRET");
}

static void test_builtin_result_pipe(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_child *c = run_fn(fx.jail, fn_writes_result, (void *)"{\"ok\":true}", true);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->exit_code, 0);
	assert_non_null(o->result);
	assert_int_equal(o->result_len, 11);
	assert_string_equal(o->result, "{\"ok\":true}");
	assert_false(o->result_overflow);
	assert_string_equal(o->out.head, "to stdout");
	sbx_child_free(c);
}

/* ---- a jail for C functions alone: a view shared by its calls --------- */

static void fn_only_edit(struct sbx_spec *s)
{
	s->fn_only = true;
}

static void fn_only_pid_optional(struct sbx_spec *s)
{
	s->fn_only = true;
	s->optional |= SBX_REQ_NS_PID;
}

static void *fn_thread(void *arg)
{
	return arg;
}

/* What a call of a shared view tries, one letter each on fd 3, 'y' where
 * it is held: pid 1 of its own pid namespace; /proc shows no process
 * (listed, or the host's pid 1 and our parent's entry by name); /tmp takes
 * no file; fork, vfork, clone3 and exec refused; kill(-1) reaches nobody.
 * First it tries to undo the seal in the mount namespace every call
 * shares (the cover on /proc, /tmp read-only), which the checks after it,
 * and the next call's, would see; then a thread, a program from a memfd,
 * a file no name holds in /tmp and one in /dev/shm. */
static int fn_probes_shared_view(void *arg)
{
	const struct sbx_data *d = arg;
	struct mount_attr rw = { .attr_clr = MOUNT_ATTR_RDONLY };
	bool sealed = umount2("/proc", MNT_DETACH) < 0 && umount2("/tmp", MNT_DETACH) < 0 &&
	        syscall(SYS_mount_setattr, AT_FDCWD, "/tmp", 0, &rw, sizeof rw) < 0 &&
	        mount(NULL, "/tmp", NULL, MS_REMOUNT | MS_BIND, NULL) < 0 &&
	        mount("proc", "/proc", "proc", 0, NULL) < 0;
	char r[13];
	memset(r, 'n', sizeof r);
	r[10] = sealed ? 'y' : 'n';
	pthread_t t;
	int mfd = (int)syscall(SYS_memfd_create, "fn", 0);
	char *const none[] = { NULL };
	r[11] = pthread_create(&t, NULL, fn_thread, NULL) != 0 && mfd >= 0 &&
	                syscall(SYS_execveat, mfd, "", none, none, AT_EMPTY_PATH) < 0 &&
	                errno == EPERM ?
	        'y' :
	        'n';
	int tmpf = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	int shm = open("/dev/shm/tc-shared-view", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	r[12] = tmpf < 0 && shm < 0 ? 'y' : 'n';
	r[0] = getpid() == 1 ? 'y' : 'n';
	int seen = 0;
	DIR *dir = opendir("/proc");
	for (struct dirent *e; dir && (e = readdir(dir));)
		seen += e->d_name[0] != '.';
	if (dir)
		closedir(dir);
	r[1] = seen == 0 ? 'y' : 'n';
	struct stat st;
	char parent[64];
	snprintf(parent, sizeof parent, "/proc/%.*s", (int)d->len, (const char *)d->data);
	r[2] = stat("/proc/1", &st) < 0 && stat(parent, &st) < 0 ? 'y' : 'n';
	int fd = open("/tmp/tc-shared-view-probe", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	r[3] = fd < 0 && mkdir("/tmp/tc-shared-view-dir", 0700) < 0 ? 'y' : 'n';
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	r[4] = p < 0 && errno == EPERM ? 'y' : 'n';
	p = (pid_t)syscall(SYS_vfork);
	if (p == 0)
		_exit(0);
	r[5] = p < 0 && errno == EPERM ? 'y' : 'n';
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
	} ca = { .exit_signal = SIGCHLD };
	p = (pid_t)syscall(SYS_clone3, &ca, sizeof ca);
	if (p == 0)
		_exit(0);
	r[6] = p < 0 && errno == EPERM ? 'y' : 'n';
	char *const argv[] = { (char *)"/bin/true", NULL };
	execve(argv[0], argv, argv + 1);
	r[7] = errno == EPERM ? 'y' : 'n';
	r[8] = kill(-1, SIGKILL) < 0 && errno == ESRCH ? 'y' : 'n';
	r[9] = fd < 0 && access("/tmp", W_OK) < 0 ? 'y' : 'n';
	while (p > 0 && waitpid(-1, NULL, 0) > 0)
		;
	return write(3, r, sizeof r) == (ssize_t)sizeof r ? 0 : 1;
}

/* fork(2) through the i386 ABI, whose numbers the x86_64 rules never see. */
static int fn_forks_through_int80(void *arg)
{
	(void)arg;
#if defined(__x86_64__)
	long rc;
	__asm__ volatile("int $0x80" : "=a"(rc) : "a"(2L) : "memory");
	if (rc == 0)
		_exit(0);
	return rc > 0 ? 1 : 0;
#else
	return 0;
#endif
}

/* Waits for a byte on its stdin: a call that another runs beside. */
static int fn_waits_for_stdin(void *arg)
{
	(void)arg;
	char b;
	return read(0, &b, 1) == 1 ? 0 : 1;
}

static void expect_wall(const struct sbx_confinement *conf, const char *name, const char *by)
{
	for (int i = 0; i < conf->n_walls; i++)
		if (!strcmp(conf->walls[i].name, name)) {
			assert_string_equal(conf->walls[i].by, by);
			assert_false(conf->walls[i].alternative);
			return;
		}
	fail_msg("no wall %s", name);
}

/* A jail whose jobs are C functions alone (fn_only): its calls share the
 * worker's view, with no mount namespace each, and yet none sees a
 * process of another or of the host, or can leave a file for another,
 * start a process or run a program; a call beside it is not reached by
 * its kill(-1); fresh (a pointer argument) the same, and a call after
 * them finds the view as sealed, whatever they tried on its mounts. A
 * fork through the i386 ABI kills the call. An exec job is refused. */
static void test_fn_only_jail_shares_a_sealed_view(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(fn_only_edit);
	struct sbx_confinement conf;
	sbx_jail_confinement(j, &conf);
	expect_wall(&conf, "proc", "empty /proc");
	expect_wall(&conf, "tmp", "read-only, empty");
	/* Where the pid namespace may be dropped, the calls would probe the
	 * host's pids: no shared view, a mount namespace each as before. */
	struct sbx_jail *opt = jail_with(fn_only_pid_optional);
	sbx_jail_confinement(opt, &conf);
	expect_wall(&conf, "proc", "fresh /proc");
	expect_wall(&conf, "tmp", "tmpfs");
	sbx_jail_free(opt);
	sbx_jail_keep_spare(j, true);
	char self[16];
	int n = snprintf(self, sizeof self, "%d", (int)getpid());
	/* A call that waits, its stdin ours to end it. */
	int in[2];
	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	struct sbx_job waits = { .fn = fn_waits_for_stdin,
		                 .fn_data = "x",
		                 .fn_len = 1,
		                 .stdin_stream = true,
		                 .stdin_source = in[0] };
	struct sbx_child *beside = spawn(j, &waits);
	for (int round = 0; round < 3; round++) {
		struct sbx_job job = { .fn = fn_probes_shared_view,
			               .fn_data = self,
			               .fn_len = (size_t)n,
			               .result_pipe = true };
		struct sbx_data arg = { self, (size_t)n };
		if (round == 1) /* fresh: a fork of ours makes its own view */
			job.fn_arg = &arg;
		struct sbx_child *c = spawn(j, &job);
		assert_int_equal(sbx_child_wait(c), 0);
		const struct sbx_outcome *o = sbx_child_outcome(c);
		assert_int_equal(o->setup_failed, 0);
		assert_int_equal(o->exit_code, 0);
		assert_int_equal(o->result_len, 13);
		assert_memory_equal(o->result, "yyyyyyyyyyyyy", 13);
		sbx_child_free(c);
	}
	struct stat st;
	assert_int_equal(stat("/tmp/tc-shared-view-probe", &st), -1);
	assert_int_equal(stat("/dev/shm/tc-shared-view", &st), -1);
	assert_int_equal(write(in[1], "z", 1), 1);
	close(in[1]);
	assert_int_equal(sbx_child_wait(beside), 0);
	close(in[0]);
	assert_int_equal(sbx_child_outcome(beside)->exit_code, 0);
	assert_int_equal(sbx_child_outcome(beside)->signal, 0);
	sbx_child_free(beside);
#if defined(__x86_64__)
	struct sbx_job int80 = { .fn = fn_forks_through_int80, .fn_data = "x", .fn_len = 1 };
	struct sbx_child *forked = spawn(j, &int80);
	assert_int_equal(sbx_child_wait(forked), 0);
	assert_int_equal(sbx_child_outcome(forked)->signal, SIGSYS);
	sbx_child_free(forked);
#endif
	char *const argv[] = { (char *)"/bin/true", NULL };
	struct sbx_job ex = { .argv = argv };
	struct sbx_child *c = NULL;
	struct sbx_error err = { 0 };
	assert_int_equal(sbx_spawn(j, &ex, &c, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "C functions only"));
	sbx_jail_free(j);
}

/* Echoes its fn_data on the result pipe, and which pid it ran as. */
static int fn_echoes_data(void *arg)
{
	const struct sbx_data *d = arg;
	if (write(3, d->data, d->len) != (ssize_t)d->len)
		return 1;
	return fn_only_stdio((void *)1) ? 9 : 0;
}

/* A builtin given its input as bytes runs in the spare, gets its own copy
 * of them, fd 3 and nothing else; one given a pointer never does (the
 * spare's memory predates the pointer's target). */
static void test_builtin_with_data_runs_in_a_spare(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(no_edit);
	sbx_jail_keep_spare(j, true);
	char out[16];
	assert_int_equal(sh(j, "true", out, sizeof out), 0);
	pid_t kids[16];
	assert_true(wait_spare_ready(j));
	assert_int_equal(children(kids, 16), 1);
	static const char data[] = "{\"path\":\"a\0b\"}"; /* a NUL inside too */
	struct sbx_job job = {
		.fn = fn_echoes_data, .fn_data = data, .fn_len = sizeof data, .result_pipe = true
	};
	struct sbx_child *c = spawn(j, &job);
	assert_int_equal(sbx_child_wait(c), 0);
	assert_int_equal(sbx_child_pid(c), kids[0]);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->exit_code, 0);
	assert_int_equal(o->result_len, sizeof data);
	assert_memory_equal(o->result, data, sizeof data);
	sbx_child_free(c);
	/* Cold, with the same interface: the bytes as struct sbx_data. */
	c = spawn(fx.jail, &job);
	assert_int_equal(sbx_child_wait(c), 0);
	assert_int_equal(sbx_child_outcome(c)->result_len, sizeof data);
	sbx_child_free(c);
	/* A pointer argument: a fresh child, not the spare (a fork of ours,
	 * not the worker's). The next spare comes with the free, forked by
	 * the worker as we go on. */
	assert_true(wait_spare_ready(j));
	assert_int_equal(children(kids, 16), 1);
	struct sbx_job ptr = { .fn = fn_writes_result,
		               .fn_arg = (void *)"{}",
		               .result_pipe = true };
	c = spawn(j, &ptr);
	assert_int_not_equal(sbx_child_pid(c), kids[0]);
	assert_int_equal(sbx_child_wait(c), 0);
	assert_string_equal(sbx_child_outcome(c)->result, "{}");
	sbx_child_free(c);
	sbx_jail_free(j);
}

/* A builtin inherits fds 0-2 (and 3 when it asked for the result pipe),
 * nothing else of the supervisor: no exec means O_CLOEXEC does not help,
 * so the child must close them. The parent's fd 3 (and a high one) are
 * made to exist for the test. */
static void test_builtin_inherits_only_stdio(void **state)
{
	(void)state;
	need_sandbox();
	int opened3 = -1;
	if (fcntl(3, F_GETFD) < 0)
		opened3 = open("/dev/null", O_RDONLY); /* lands on 3 */
	int tmp = open("/dev/null", O_RDONLY);         /* not O_CLOEXEC, on purpose */
	int high = fcntl(tmp, F_DUPFD, 200);
	close(tmp);
	assert_true(fcntl(3, F_GETFD) >= 0);
	assert_true(high >= 200);
	struct sbx_child *c = run_fn(fx.jail, fn_only_stdio, NULL, false);
	int without = sbx_child_outcome(c)->exit_code;
	sbx_child_free(c);
	c = run_fn(fx.jail, fn_only_stdio, (void *)1, true);
	int with = sbx_child_outcome(c)->exit_code;
	sbx_child_free(c);
	close(high);
	if (opened3 >= 0)
		close(opened3);
	if (without)
		fail_msg("builtin without a result pipe inherited fd %d", without - 100);
	if (with)
		fail_msg("builtin with a result pipe inherited fd %d", with - 100);
}

static void test_result_over_limit_is_flagged(void **state)
{
	(void)state;
	need_sandbox();
	char big[9000];
	memset(big, 'r', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	struct sbx_job job = {
		.fn = fn_writes_result, .fn_arg = big, .result_pipe = true, .result_limit = 4096
	};
	struct sbx_child *c = spawn(fx.jail, &job);
	assert_int_equal(sbx_child_wait(c), 0);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_true(o->result_overflow);
	assert_true(o->result_len <= 4096);
	sbx_child_free(c);
}

/* Death by a signal shows in signal, not exit_code. The tool is the pid
 * namespace's init, which ignores signals it has no handler for unless the
 * kernel forces them: a real fault is forced. */
static void test_signal_death(void **state)
{
	(void)state;
	need_sandbox();
	char *const argv[] = { (char *)"perl", (char *)"-e",
		               (char *)"unpack(\"p\", pack(\"J\", 8))", NULL };
	if (access("/usr/bin/perl", X_OK) < 0) {
		print_message("skip: no /usr/bin/perl to fault in\n");
		skip();
	}
	struct sbx_child *c = run_argv(fx.jail, argv);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->setup_failed, 0);
	assert_int_equal(o->signal, SIGSEGV);
	assert_int_equal(o->exit_code, -1);
	assert_int_equal(o->killed_by, SBX_KILLED_SIGNAL);
	sbx_child_free(c);
}

static void count_signal(int sig)
{
	(void)sig;
}

/* The tool starts with no signal ignored and nothing blocked, whatever
 * the caller ignores, catches or blocks (what the tool catches is its
 * own: grep catches SIGSEGV): a fresh child (which resets only what is
 * not the default) and a spare (whose worker reset everything once). */
static void test_tool_starts_with_default_signals(void **state)
{
	(void)state;
	need_sandbox();
	static const int ignored[] = { SIGHUP, SIGUSR1, SIGTERM, 40, 64 };
	static const int caught[] = { SIGUSR2, SIGINT, SIGWINCH, 50 };
	struct sigaction ign = { .sa_handler = SIG_IGN }, cgt = { .sa_handler = count_signal };
	struct sigaction old_ign[5], old_cgt[4];
	for (int i = 0; i < 5; i++)
		assert_int_equal(sigaction(ignored[i], &ign, &old_ign[i]), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(sigaction(caught[i], &cgt, &old_cgt[i]), 0);
	sigset_t block, old_mask;
	sigemptyset(&block);
	sigaddset(&block, SIGQUIT);
	sigaddset(&block, SIGALRM);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	/* glibc's own signal 32, which its sigaction refuses: ignored by
	 * whoever started us, it would survive the exec too. */
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		uint64_t mask;
	} k32 = { .handler = SIG_IGN }, old32;
	assert_int_equal(syscall(SYS_rt_sigaction, 32, &k32, &old32, sizeof k32.mask), 0);
	struct sbx_jail *spare = jail_with(no_edit);
	sbx_jail_keep_spare(spare, true);
	char *const argv[] = { (char *)"grep", (char *)"^Sig[BI]", (char *)"/proc/self/status",
		               NULL };
	struct sbx_jail *jails[] = { fx.jail, spare, spare };
	for (int k = 0; k < 3; k++) {
		struct sbx_child *c = run_argv(jails[k], argv);
		const struct sbx_outcome *o = sbx_child_outcome(c);
		assert_int_equal(o->exit_code, 0);
		assert_string_equal(o->out.head,
		                    "SigBlk:\t0000000000000000\n"
		                    "SigIgn:\t0000000000000000\n");
		sbx_child_free(c);
	}
	sbx_jail_free(spare);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	syscall(SYS_rt_sigaction, 32, &old32, NULL, sizeof k32.mask);
	for (int i = 0; i < 5; i++)
		sigaction(ignored[i], &old_ign[i], NULL);
	for (int i = 0; i < 4; i++)
		sigaction(caught[i], &old_cgt[i], NULL);
}

/* The same from a builtin (the function faults in the confined child). */
static void test_builtin_signal_death(void **state)
{
	(void)state;
	need_sandbox();
#ifdef UNDER_ASAN
	/* ASan's sigaction interceptor ignores the child's reset of SIGSEGV
	 * to SIG_DFL (allow_user_segv_handler=0), so in this build a fault
	 * becomes an ASan report and exit(1), not a signal death. The exec
	 * case above covers signal reporting here. */
	print_message("skip: under ASan a builtin's fault is caught by the ASan runtime\n");
	skip();
#endif
	struct sbx_child *c = run_fn(fx.jail, fn_faults, NULL, false);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->setup_failed, 0);
	assert_int_equal(o->signal, SIGSEGV);
	assert_int_equal(o->exit_code, -1);
	assert_int_equal(o->killed_by, SBX_KILLED_SIGNAL);
	sbx_child_free(c);
}

static const char *const kill_uname[] = { "uname", NULL };
static void edit_kill_uname(struct sbx_spec *s)
{
	s->seccomp_kill = kill_uname;
}

/* A syscall on the profile's kill list: SIGSYS, reported as seccomp. */
static void test_seccomp_kill_is_reported(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(edit_kill_uname);
	struct sbx_child *c = run_fn(j, fn_calls_uname, NULL, false);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_int_equal(o->signal, SIGSYS);
	assert_int_equal(o->killed_by, SBX_KILLED_SECCOMP);
	sbx_child_free(c);
	char *const argv[] = { (char *)"uname", NULL };
	c = run_argv(j, argv);
	assert_int_equal(sbx_child_outcome(c)->signal, SIGSYS);
	sbx_child_free(c);
	/* The kernel tells the parent the signal alone: what the profile
	 * kills is said instead, the one call of its list by name. */
	assert_non_null(
	        strstr(sbx_jail_seccomp_kills(j), "the one call its seccomp.kill lists: uname"));
	sbx_jail_free(j);
}

static atomic_bool killer_stop;

/* Kills each worker's child of ours ("tc-call", its name from its first
 * step on) as soon as it shows, until killer_stop. */
static void *thread_kills_calls(void *arg)
{
	(void)arg;
	while (!atomic_load(&killer_stop)) {
		pid_t all[64];
		int n = children_of(getpid(), all, 64);
		for (int i = 0; i < n; i++) {
			char path[64], comm[32] = "";
			snprintf(path, sizeof path, "/proc/%d/comm", (int)all[i]);
			FILE *f = fopen(path, "re");
			if (f && fgets(comm, sizeof comm, f) && !strcmp(comm, "tc-call\n"))
				kill(all[i], SIGKILL);
			if (f)
				fclose(f);
		}
	}
	return NULL;
}

static int fn_sleeps(void *arg)
{
	(void)arg;
	sleep(10);
	return 0;
}

/* A worker's child killed before it takes its job (here at once, by a
 * thread; in a call, by the memory cgroup or a filter) said nothing: the
 * spawn still gives the child, whose outcome is that death, every time,
 * never "No such process" for the job it could not take. */
static void test_worker_child_killed_before_its_job_is_its_outcome(void **state)
{
	(void)state;
	need_sandbox();
	struct sbx_jail *j = jail_with(no_edit);
	atomic_store(&killer_stop, false);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, thread_kills_calls, NULL), 0);
	for (int i = 0; i < 20; i++) {
		struct sbx_job job = { .fn = fn_sleeps, .timeout_ms = 20000 };
		struct sbx_child *c = NULL;
		struct sbx_error err = { 0 };
		if (sbx_spawn(j, &job, &c, &err) < 0)
			fail_msg("round %d: the spawn failed: %s", i, err.msg);
		assert_int_equal(sbx_child_wait(c), 0);
		const struct sbx_outcome *o = sbx_child_outcome(c);
		assert_int_equal(o->setup_failed, 0);
		assert_int_equal(o->signal, SIGKILL);
		sbx_child_free(c);
	}
	atomic_store(&killer_stop, true);
	pthread_join(t, NULL);
	sbx_jail_free(j);
}

/* ---- many children, and cleanup ----------------------------------------- */

static void spawn_and_wait_16(void)
{
	enum { N = 16 };
	struct sbx_child *c[N];
	char arg[N][24];
	for (int i = 0; i < N; i++) {
		snprintf(arg[i], sizeof arg[i], "child-%d", i);
		char *const argv[] = { (char *)"echo", arg[i], NULL };
		struct sbx_job job = { .argv = argv };
		c[i] = spawn(fx.jail, &job);
	}
	for (int i = N - 1; i >= 0; i--) {
		assert_int_equal(sbx_child_wait(c[i]), 0);
		const struct sbx_outcome *o = sbx_child_outcome(c[i]);
		assert_int_equal(o->exit_code, 0);
		char want[32];
		snprintf(want, sizeof want, "%s\n", arg[i]);
		assert_string_equal(o->out.head, want);
	}
	for (int i = 0; i < N; i++)
		sbx_child_free(c[i]);
}

static void test_many_children_at_once_leak_no_fds(void **state)
{
	(void)state;
	need_sandbox();
	sbx_cleanup(); /* start from an empty cgroup pool */
	int before = count_fds();
	spawn_and_wait_16();
	int pooled = count_fds(); /* per-call cgroups are kept for reuse */
	spawn_and_wait_16();
	assert_int_equal(count_fds(), pooled); /* reused, not grown */
	sbx_cleanup();
	assert_int_equal(count_fds(), before);
}

static void test_free_running_child_kills_and_reaps(void **state)
{
	(void)state;
	need_sandbox();
	sbx_cleanup();
	int before = count_fds();
	char *const argv[] = { (char *)"sh", (char *)"-c", (char *)"sleep 30 & sleep 30", NULL };
	struct sbx_job job = { .argv = argv };
	struct sbx_child *c = spawn(fx.jail, &job);
	pid_t pid = sbx_child_pid(c);
	assert_true(pid > 0);
	usleep(100 * 1000);
	assert_false(sbx_child_done(c));
	assert_int_equal(kill(pid, 0), 0);
	int64_t t0 = io_now_ms();
	sbx_child_free(c);
	assert_true(io_now_ms() - t0 < 2000);
	/* Reaped, not a zombie: the pid is gone. */
	errno = 0;
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/%d", (int)pid);
	assert_int_equal(access(proc, F_OK), -1);
	sbx_cleanup();
	assert_int_equal(count_fds(), before); /* pidfd, epoll, pipes closed */
	sbx_child_free(NULL);
}

static void without_pid_ns(struct sbx_spec *s)
{
	s->namespaces &= ~SBX_NS_PID;
}

/* Without a pid namespace a process the tool leaves behind (a double
 * fork's) is made the child of the nearest subreaper, or of pid 1: the
 * supervisor itself where it is a container's init (the image's
 * ENTRYPOINT). Killed with the call's group, it must be reaped with the
 * call, not left that process's zombie for good. This test process
 * stands for that init. */
static void test_orphans_without_pid_ns_are_reaped(void **state)
{
	(void)state;
	need_sandbox();
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	struct sbx_jail *j = jail_with(without_pid_ns);
	char *const argv[] = { (char *)"/bin/sh", (char *)"-c",
		               (char *)"for i in 1 2 3 4 5; do (sleep 30 &); done; exit 0", NULL };
	struct sbx_child *c = run_argv(j, argv);
	pid_t pgid = sbx_child_pid(c);
	assert_int_equal(sbx_child_outcome(c)->exit_code, 0);
	/* no process of the call left, not even a zombie of ours */
	siginfo_t si;
	memset(&si, 0, sizeof si);
	errno = 0;
	int rc = waitid(P_PGID, (id_t)pgid, &si, WEXITED | WNOHANG);
	int e = errno;
	errno = 0;
	int alive = kill(-pgid, 0);
	int alive_errno = errno;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0), 0);
	sbx_child_free(c);
	sbx_jail_free(j);
	assert_int_equal(rc, -1);
	assert_int_equal(e, ECHILD);
	assert_int_equal(alive, -1);
	assert_int_equal(alive_errno, ESRCH);
}

/* ---- egress: a network namespace per child ------------------------------ */

static void with_egress(struct sbx_spec *s)
{
	s->egress = true;
}

/* The inode of the network namespace a socket lives in. */
static ino_t netns_of_socket(int fd)
{
	int ns = ioctl(fd, SIOCGSKNS);
	struct stat st;
	assert_true(ns >= 0);
	assert_int_equal(fstat(ns, &st), 0);
	close(ns);
	return st.st_ino;
}

/* 0 when not ours to see (a worker is not dumpable: only root sees it). */
static ino_t netns_of_pid(pid_t pid)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof path, "/proc/%d/ns/net", (int)pid);
	if (stat(path, &st) < 0) {
		assert_true(errno == EACCES && geteuid() != 0);
		return 0;
	}
	return st.st_ino;
}

/* Runs job to its end in j, takes its listeners and checks them: every
 * one in one namespace, the child's own (it printed its inode: readlink
 * of /proc/self/ns/net), listening on its port. Returns that inode; one
 * listener is kept open in *keep, which keeps the namespace (and so its
 * inode number, which a later namespace could reuse) alive. */
static ino_t egress_child(struct sbx_jail *j, const struct sbx_job *job, int *keep)
{
	struct sbx_child *c = spawn(j, job);
	assert_int_equal(sbx_child_wait(c), 0);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	assert_null(o->setup_step);
	assert_int_equal(o->exit_code, 0);
	unsigned long printed = 0;
	if (job->argv)
		assert_int_equal(sscanf(o->out.head, "net:[%lu]", &printed), 1);
	int fds[SBX_LISTEN_MAX];
	assert_int_equal(sbx_child_take_listeners(c, fds), 1);
	int again[SBX_LISTEN_MAX];
	assert_int_equal(sbx_child_take_listeners(c, again), 0); /* once */
	sbx_child_free(c);
	ino_t ns = netns_of_socket(fds[0]);
	if (job->argv)
		assert_int_equal((unsigned long)ns, printed);
	static const uint16_t port[SBX_LISTEN_MAX] = {
		[SBX_LISTEN_HTTP_PROXY] = SBX_EGRESS_HTTP_PROXY_PORT,
		[SBX_LISTEN_SOCKS] = SBX_EGRESS_SOCKS_PORT,
		[SBX_LISTEN_HTTP] = 80,
		[SBX_LISTEN_TLS] = 443,
		[SBX_LISTEN_DNS_UDP] = 53,
		[SBX_LISTEN_DNS_TCP] = 53,
	};
	for (int k = 0; k < SBX_LISTEN_MAX; k++) {
		struct sockaddr_in6 a;
		socklen_t len = sizeof a;
		assert_int_equal(getsockname(fds[k], (struct sockaddr *)&a, &len), 0);
		assert_int_equal(ntohs(a.sin6_port), port[k]); /* same place in _in and _in6 */
		assert_true(netns_of_socket(fds[k]) == ns);
		if (k)
			close(fds[k]);
	}
	*keep = fds[0];
	return ns;
}

/* Our children that have not exited, workers included. */
static int live_children(void)
{
	pid_t kids[64];
	int n = children_of(getpid(), kids, 64), live = 0;
	for (int i = 0; i < n; i++) {
		char path[64], state = 'Z';
		snprintf(path, sizeof path, "/proc/%d/stat", (int)kids[i]);
		FILE *f = fopen(path, "re");
		if (f && fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
			state = 'Z';
		if (f)
			fclose(f);
		live += state != 'Z';
	}
	return live;
}

static int fn_quiet(void *arg)
{
	(void)arg;
	return 0;
}

/* Every child with egress makes a network namespace of its own, and its
 * listeners come from it: a child we clone (an exec), a worker's spare
 * (an exec and a builtin), a fresh worker's child (a builtin). None is
 * ours, the worker's, or another child's. */
static void test_egress_namespace_and_listeners_per_child(void **state)
{
	(void)state;
	need_sandbox();
	sbx_cleanup();
	int fds_before = count_fds();
	struct sbx_jail *j = jail_with(with_egress);
	char *const argv[] = { (char *)"readlink", (char *)"/proc/self/ns/net", NULL };
	struct sbx_job exec = { .argv = argv };
	static const char data[] = "{}";
	struct sbx_job builtin = { .fn = fn_quiet, .fn_data = data, .fn_len = sizeof data };
	ino_t seen[6];
	int keep[4], n = 0;
	seen[n] = egress_child(j, &exec, &keep[n]); /* our clone */
	n++;
	seen[n] = egress_child(j, &builtin, &keep[n]); /* a fresh worker's child */
	n++;
	sbx_jail_keep_spare(j, true);
	assert_true(wait_spare_ready(j));
	seen[n] = egress_child(j, &exec, &keep[n]); /* the spare, made ahead */
	n++;
	assert_true(wait_spare_ready(j));
	seen[n] = egress_child(j, &builtin, &keep[n]); /* the next spare */
	n++;
	pid_t kids[16], worker = 0;
	int nk = children_of(getpid(), kids, 16);
	for (int i = 0; i < nk; i++)
		if (getsid(kids[i]) == kids[i]) /* a worker leads its session */
			worker = kids[i];
	assert_true(worker > 0);
	seen[n++] = netns_of_pid(worker);
	seen[n++] = netns_of_pid(getpid());
	assert_true(seen[5] != 0);
	assert_true(seen[4] == seen[5] ||
	            (seen[4] == 0 && geteuid() != 0)); /* the worker made none */
	for (int a = 0; a < 5; a++)
		for (int b = a + 1; b < 6; b++)
			if (b != 5 || a != 4)
				assert_true(seen[a] != seen[b]);
	for (int i = 0; i < 4; i++)
		close(keep[i]);
	sbx_jail_free(j);
	sbx_cleanup();
	assert_int_equal(count_fds(), fds_before);
}

/* Nothing stays open: listeners never taken go with the child; a child
 * killed during its setup, a spare dropped, and a worker killed while it
 * held a spare leave no descriptor behind, and the next call still gets
 * its own namespace. */
static void test_egress_leaves_nothing_open(void **state)
{
	(void)state;
	need_sandbox();
	sbx_cleanup();
	int fds_before = count_fds();
	struct sbx_jail *j = jail_with(with_egress);
	char *const sleeper[] = { (char *)"sleep", (char *)"30", NULL };
	struct sbx_job slow = { .argv = sleeper };
	for (int i = 0; i < 3; i++) { /* freed at once: during or after its setup */
		struct sbx_child *c = spawn(j, &slow);
		if (i)
			usleep((useconds_t)i * 20000);
		sbx_child_free(c);
	}
	char *const t[] = { (char *)"/bin/true", NULL };
	struct sbx_job quick = { .argv = t };
	struct sbx_child *c = spawn(j, &quick); /* listeners never taken */
	assert_int_equal(sbx_child_wait(c), 0);
	sbx_child_free(c);
	sbx_jail_keep_spare(j, true);
	assert_true(wait_spare_ready(j));
	pid_t kids[16];
	int nk = children_of(getpid(), kids, 16);
	for (int i = 0; i < nk; i++)
		if (getsid(kids[i]) == kids[i]) /* a worker leads its session */
			assert_int_equal(kill(kids[i], SIGKILL), 0);
	sbx_jail_keep_spare(j, false); /* the spare, made by the dead worker */
	static const char data[] = "{}";
	struct sbx_job builtin = { .fn = fn_quiet, .fn_data = data, .fn_len = sizeof data };
	ino_t ns = 0;
	for (int tries = 0; tries < 3 && !ns; tries++) {
		/* The first call may learn that the worker is gone (an error);
		 * a new worker takes over. */
		struct sbx_error err = { 0 };
		c = NULL;
		if (sbx_spawn(j, &builtin, &c, &err) < 0)
			continue;
		assert_int_equal(sbx_child_wait(c), 0);
		int fds[SBX_LISTEN_MAX];
		if (sbx_child_take_listeners(c, fds) == 1) {
			ns = netns_of_socket(fds[0]);
			for (int k = 0; k < SBX_LISTEN_MAX; k++)
				close(fds[k]);
		}
		sbx_child_free(c);
	}
	assert_true(ns != 0 && ns != netns_of_pid(getpid()));
	sbx_jail_free(j);
	sbx_cleanup();
	assert_int_equal(count_fds(), fds_before);
	for (int i = 0; i < 200 && live_children(); i++) /* a worker on its way out */
		usleep(10000);
	assert_int_equal(live_children(), 0);
}

/* In the child: connects to the HTTP proxy's listener at 127.0.0.1, an
 * address of 127.0.0.0/8 (one our DNS would hand out), any other address
 * and ::1 (where there is IPv6), and answers 0 when each connection's TCP
 * is reno, else 10 + the first that is not, 20 + the first that did not
 * connect. */
static int fn_tcp_is_reno(void *arg)
{
	(void)arg;
	static const char *const to[] = { "127.0.0.1", "127.64.0.9", "192.0.2.1", "::1" };
	for (int i = 0; i < 4; i++) {
		struct sockaddr_in a4 = { .sin_family = AF_INET,
			                  .sin_port = htons(SBX_EGRESS_HTTP_PROXY_PORT) };
		struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
			                   .sin6_port = htons(SBX_EGRESS_HTTP_PROXY_PORT) };
		bool v6 = i == 3;
		int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 && v6)
			break; /* no IPv6 */
		if (v6 ? inet_pton(AF_INET6, to[i], &a6.sin6_addr) != 1 :
		         inet_pton(AF_INET, to[i], &a4.sin_addr) != 1)
			return 30 + i;
		if (fd < 0)
			return 40 + i;
		if ((v6 ? connect(fd, (struct sockaddr *)&a6, sizeof a6) :
		          connect(fd, (struct sockaddr *)&a4, sizeof a4)) < 0)
			return 20 + i;
		char cc[16] = "";
		socklen_t len = sizeof cc;
		if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, &len) < 0 || strcmp(cc, "reno"))
			return 10 + i;
		close(fd);
	}
	return 0;
}

/* Every connection in a child's namespace is to our listeners over
 * loopback, and its TCP is reno there, unpaced (a pacing default such as
 * bbr would add a timer per burst to a tool's every byte through the
 * proxy): the tool's own sockets, to any address, and the ones the
 * supervisor accepts from them; in a child we clone (an exec) and a
 * worker's (a builtin). */
static void test_egress_namespace_paces_nothing(void **state)
{
	(void)state;
	need_sandbox();
	struct profile *net = NULL; /* its filter lets a tool make sockets */
	struct tc_error terr;
	struct sbx_error err = { 0 };
	struct sbx_jail *j = NULL;
	if (profile_load("network", NULL, &net, &terr) < 0)
		fail_msg("network: %s", terr.msg);
	if (sbx_jail_new(&net->spec, fx.ws, &j, &err) < 0)
		fail_msg("jail: %s", err.msg);
	assert_true(net->spec.egress);
	static const char data[] = "{}";
	struct sbx_job builtin = { .fn = fn_tcp_is_reno, .fn_data = data, .fn_len = sizeof data };
	for (int i = 0; i < 2; i++) {
		struct sbx_child *c = spawn(j, &builtin);
		assert_int_equal(sbx_child_wait(c), 0);
		const struct sbx_outcome *o = sbx_child_outcome(c);
		assert_null(o->setup_step);
		assert_int_equal(o->exit_code, 0);
		int fds[SBX_LISTEN_MAX];
		assert_int_equal(sbx_child_take_listeners(c, fds), 1);
		sbx_child_free(c);
		int n = 0, k;
		while ((k = accept4(fds[SBX_LISTEN_HTTP_PROXY], NULL, NULL, SOCK_CLOEXEC)) >= 0) {
			char cc[16] = "";
			socklen_t len = sizeof cc;
			assert_int_equal(getsockopt(k, IPPROTO_TCP, TCP_CONGESTION, cc, &len), 0);
			assert_string_equal(cc, "reno");
			close(k);
			n++;
		}
		assert_true(n >= 3);
		for (k = 0; k < SBX_LISTEN_MAX; k++)
			close(fds[k]);
		sbx_jail_keep_spare(j, i == 0); /* the second from a spare */
		if (i == 0)
			assert_true(wait_spare_ready(j));
	}
	sbx_jail_free(j);
	profile_free(net);
}

/* gVisor's runsc has no /proc/self/setgroups: the maps step fails with
 * ENOENT, and the refusal must say so and name the fix, not leave a bare
 * errno. */
static void test_explain_userns_maps_without_setgroups(void **state)
{
	(void)state;
	const char *w = sbx_explain_step("user namespace maps", ENOENT);
	assert_non_null(strstr(w, "/proc/self/setgroups"));
	assert_non_null(strstr(w, "gVisor"));
	assert_non_null(strstr(w, "fix: run the container with runc"));
	/* Another step's ENOENT says nothing more. */
	assert_string_equal(sbx_explain_step("mount /proc", ENOENT), "");
}

/* gVisor's runsc refuses MS_REC | MS_PRIVATE with EINVAL: the refusal
 * names that mount and the fix, not a seccomp profile or AppArmor. */
static void test_explain_rprivate_einval_names_the_mount(void **state)
{
	(void)state;
	const char *w = sbx_explain_step("make mounts private", EINVAL);
	assert_non_null(strstr(w, "MS_REC | MS_PRIVATE"));
	assert_non_null(strstr(w, "gVisor"));
	assert_non_null(strstr(w, "fix: run the container with runc"));
	assert_null(strstr(w, "seccomp"));
	assert_null(strstr(w, "AppArmor"));
	/* The worker's own namespaces are a step of their own. */
	assert_string_equal(sbx_explain_step("make the sandbox worker's namespaces", EINVAL), "");
}

/* A profile refused at a setup step: one wording, with the prefix every
 * refusal has, the step, the error and why; cut, never overrun. */
static void test_explain_refused_words_a_step_one_way(void **state)
{
	(void)state;
	char buf[1024], small[24];
	sbx_explain_refused("read-only", "mount /proc", EPERM, buf, sizeof buf);
	assert_non_null(strstr(buf,
	                       "profile read-only cannot run here: mount /proc failed: "
	                       "Operation not permitted: a fresh /proc cannot be mounted"));
	assert_non_null(strstr(buf, "; fix: unmask it"));
	sbx_explain_refused("write", "set rlimits", EINVAL, buf, sizeof buf);
	assert_string_equal(buf,
	                    "profile write cannot run here: set rlimits failed: Invalid argument");
	size_t n = sbx_explain_refused("read-only", "mount /proc", EPERM, small, sizeof small);
	assert_true(n >= sizeof small);
	assert_int_equal(strlen(small), sizeof small - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fn_ref_names_the_program_image_only),
		cmocka_unit_test(test_true_exits_zero),
		cmocka_unit_test(test_exit_codes_pass_through),
		cmocka_unit_test(test_stdout_and_stderr_are_captured_apart),
		cmocka_unit_test(test_stdin_data_is_delivered),
		cmocka_unit_test(test_stdin_stream),
		cmocka_unit_test(test_no_stdin_reads_eof),
		cmocka_unit_test(test_output_flood_is_bounded),
		cmocka_unit_test(test_output_limit_kills),
		cmocka_unit_test(test_stream_output_waits_for_the_caller),
		cmocka_unit_test(test_stream_output_outlives_the_grace),
		cmocka_unit_test(test_deadline_and_kill_give_timeout),
		cmocka_unit_test(test_child_stopped_at_its_deadline_is_said),
		cmocka_unit_test(test_wait_enforces_timeout),
		cmocka_unit_test(test_missing_command_is_127_exec),
		cmocka_unit_test(test_not_executable_is_126_exec),
		cmocka_unit_test(test_cwd_beneath_workspace),
		cmocka_unit_test(test_cwd_outside_workspace_is_refused),
		cmocka_unit_test(test_job_without_argv_or_fn_is_refused),
		cmocka_unit_test(test_home_check_sees_a_new_home),
		cmocka_unit_test(test_home_check_sees_a_home_made_later),
		cmocka_unit_test(test_hidden_paths_stay_hidden),
		cmocka_unit_test(test_link_to_a_hidden_path_grants_nothing),
		cmocka_unit_test(test_read_path_of_a_file_grants_that_file_alone),
		cmocka_unit_test(test_hidden_rescan_failure_fails_spawns),
		cmocka_unit_test(test_hidden_rescan_stale_handle_is_said),
		cmocka_unit_test(test_hidden_moved_while_the_view_is_made_is_stale),
		cmocka_unit_test(test_worker_child_view_moved_is_made_again),
		cmocka_unit_test(test_jail_descriptors_are_one_budget),
		cmocka_unit_test(test_worker_over_the_open_files_limit_is_said),
		cmocka_unit_test(test_worker_crowded_out_by_our_descriptors_is_said),
		cmocka_unit_test(test_spawn_out_of_descriptors_names_the_limit),
		cmocka_unit_test(test_hidden_glob_matching_too_much_is_refused),
		cmocka_unit_test(test_host_readonly_mount_in_workspace_stays_readonly),
		cmocka_unit_test(test_write_path_through_a_link_is_refused),
		cmocka_unit_test(test_write_path_tmp_keeps_tmp_private_and_masks),
		cmocka_unit_test(test_spare_runs_jobs_like_a_fresh_child),
		cmocka_unit_test(test_home_cpu_for_a_round_trip),
		cmocka_unit_test(test_spare_is_used_and_a_dead_one_passed_over),
		cmocka_unit_test(test_worker_code_stays_read_only_and_is_mapped_ahead),
		cmocka_unit_test(test_no_job_to_a_child_we_do_not_hold),
		cmocka_unit_test(test_builtin_return_is_exit_status),
		cmocka_unit_test(test_builtin_result_pipe),
		cmocka_unit_test(test_builtin_gets_the_profile_environment),
		cmocka_unit_test(test_builtin_with_data_runs_in_a_spare),
		cmocka_unit_test(test_builtin_end_told_is_done_before_the_exit),
		cmocka_unit_test(test_builtin_end_not_told_where_the_filter_kills_its_calls),
		cmocka_unit_test(test_builtin_end_told_then_running_on_is_killed),
		cmocka_unit_test(test_builtin_end_told_with_a_process_left_waits),
		cmocka_unit_test(test_builtin_end_told_before_its_result_ends),
		cmocka_unit_test(test_builtin_end_dribbled_then_told_again),
		cmocka_unit_test(test_builtin_end_told_with_a_threads_child_waits),
		cmocka_unit_test(test_builtin_end_garbage_is_ignored),
		cmocka_unit_test(test_builtin_inherits_only_stdio),
		cmocka_unit_test(test_result_over_limit_is_flagged),
		cmocka_unit_test(test_signal_death),
		cmocka_unit_test(test_tool_starts_with_default_signals),
		cmocka_unit_test(test_builtin_signal_death),
		cmocka_unit_test(test_seccomp_kill_is_reported),
		cmocka_unit_test(test_worker_child_killed_before_its_job_is_its_outcome),
		cmocka_unit_test(test_many_children_at_once_leak_no_fds),
		cmocka_unit_test(test_free_running_child_kills_and_reaps),
		cmocka_unit_test(test_orphans_without_pid_ns_are_reaped),
		cmocka_unit_test(test_egress_namespace_and_listeners_per_child),
		cmocka_unit_test(test_egress_leaves_nothing_open),
		cmocka_unit_test(test_egress_namespace_paces_nothing),
		cmocka_unit_test(test_fn_only_jail_shares_a_sealed_view),
		cmocka_unit_test(test_explain_userns_maps_without_setgroups),
		cmocka_unit_test(test_explain_rprivate_einval_names_the_mount),
		cmocka_unit_test(test_explain_refused_words_a_step_one_way),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
