/* sh_spawn.c — runs one argv for run_command inside the confined child:
 * pipes, fork, exec (no shell), stdin fed and output captured through one
 * poll loop, and the timeout that kills the command's process group.
 * Also the bounded head+tail capture of a stream. See shell.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child_abi.h"
#include "io.h"
#include "shell.h"
#include "util.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same number on every architecture */
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* ---- bounded capture ---------------------------------------------------- */

int sh_capture_init(struct sh_capture *c)
{
	memset(c, 0, sizeof *c);
	c->head = malloc(SH_KEEP_HEAD);
	c->tail = malloc(SH_KEEP_TAIL);
	if (!c->head || !c->tail) {
		sh_capture_release(c);
		return -1;
	}
	return 0;
}

void sh_capture_release(struct sh_capture *c)
{
	free(c->head);
	free(c->tail);
	memset(c, 0, sizeof *c);
}

void sh_capture_add(struct sh_capture *c, const char *p, size_t n)
{
	c->total += n;
	if (!c->head)
		return;
	size_t h = SH_KEEP_HEAD - c->head_len;
	if (h > n)
		h = n;
	memcpy(c->head + c->head_len, p, h);
	c->head_len += h;
	p += h;
	n -= h;
	if (n >= SH_KEEP_TAIL) { /* the ring is overwritten whole */
		memcpy(c->tail, p + n - SH_KEEP_TAIL, SH_KEEP_TAIL);
		c->tail_start = 0;
		c->tail_len = SH_KEEP_TAIL;
		return;
	}
	while (n) {
		size_t end = (c->tail_start + c->tail_len) % SH_KEEP_TAIL;
		size_t k = SH_KEEP_TAIL - end;
		if (k > n)
			k = n;
		memcpy(c->tail + end, p, k);
		if (c->tail_len + k > SH_KEEP_TAIL) { /* the oldest bytes were overwritten */
			c->tail_start =
			        (c->tail_start + c->tail_len + k - SH_KEEP_TAIL) % SH_KEEP_TAIL;
			c->tail_len = SH_KEEP_TAIL;
		} else {
			c->tail_len += k;
		}
		p += k;
		n -= k;
	}
}

/* Appends the kept bytes to b, head then tail. Returns 0 or -1 (out of
 * memory). */
static int capture_join(const struct sh_capture *c, struct buf *b)
{
	int rc = buf_add(b, c->head ? c->head : "", c->head_len);
	size_t first = c->tail_len;
	if (c->tail_start + first > SH_KEEP_TAIL)
		first = SH_KEEP_TAIL - c->tail_start;
	if (c->tail_len) {
		rc |= buf_add(b, c->tail + c->tail_start, first);
		rc |= buf_add(b, c->tail, c->tail_len - first);
	}
	return rc ? -1 : 0;
}

char *sh_capture_raw(const struct sh_capture *c, size_t *len)
{
	struct buf b = BUF_INIT;
	if (capture_join(c, &b) < 0 || buf_grow(&b, 1) < 0) {
		buf_release(&b);
		return NULL;
	}
	*len = b.len;
	return buf_detach(&b);
}

/* ---- the command's process ---------------------------------------------- */

/* Moves fd onto target without CLOEXEC. dup2 onto itself would keep the
 * flag, so that case clears it instead. */
static int move_fd(int fd, int target)
{
	if (fd == target)
		return fcntl(fd, F_SETFD, 0);
	return dup2(fd, target) < 0 ? -1 : 0;
}

/* Marks every fd from 3 (CHILD_FD_RESULT) up close-on-exec. close_range's flag needs Linux
 * 5.11; before that, walk up to the open-files limit (the profiles keep it
 * small). */
static void cloexec_from_3(void)
{
	if (syscall(SYS_close_range, (unsigned)CHILD_FD_RESULT, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	struct rlimit rl;
	int max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur :
	                                                                      65536;
	for (int fd = CHILD_FD_RESULT; fd < max; fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
}

struct child_fds {
	int in_r, out_w, err_w, report_w;
	const struct sigaction *pipe_action; /* SIGPIPE as it was before the tool */
};

/* In the forked command process: only async-signal-safe calls. Reports the
 * errno of a failed step on report_w (close-on-exec: EOF means exec worked). */
static __attribute__((noreturn)) void child_exec(const struct sh_command *cmd,
                                                 const struct child_fds *f)
{
	/* Own process group first, so a timeout can kill whatever it starts. */
	setpgid(0, 0);
	sigaction(SIGPIPE, f->pipe_action, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	int e = 0;
	/* Merged: both streams into the one pipe, so their order is the order
	 * the command wrote them in. */
	if (fchdir(cmd->cwd_fd) < 0 || move_fd(f->in_r, 0) < 0 || move_fd(f->out_w, 1) < 0 ||
	    (cmd->merged ? dup2(1, 2) < 0 : move_fd(f->err_w, 2) < 0))
		e = errno;
	if (!e) {
		/* The tool's result pipe (fd 3) and every other descriptor of the
		 * tool must not reach the command. */
		cloexec_from_3();
		/* PATH for the lookup is the tool's (the sandbox's), whatever envp
		 * holds: the model's variables never choose the program. */
		if (cmd->envp)
			execvpe(cmd->argv[0], cmd->argv, cmd->envp);
		else
			execvp(cmd->argv[0], cmd->argv);
		e = errno;
	}
	ssize_t w = write(f->report_w, &e, sizeof e);
	(void)w;
	_exit(CHILD_EXIT_NOTFOUND);
}

struct loop {
	int out_r, err_r, in_w, pidfd;
	size_t in_off;
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Reads what fd has now into c; closes it at EOF or error. */
static void drain(int *fd, struct sh_capture *c)
{
	char buf[65536];
	for (;;) {
		ssize_t n = read(*fd, buf, sizeof buf);
		if (n > 0) {
			sh_capture_add(c, buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		close_fd(fd);
		return;
	}
}

static void feed(struct loop *l, const struct sh_command *cmd)
{
	while (l->in_off < cmd->stdin_len) {
		size_t k = cmd->stdin_len - l->in_off;
		ssize_t n = write(l->in_w, cmd->stdin_data + l->in_off, k > 65536 ? 65536 : k);
		if (n > 0) {
			l->in_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		break; /* EPIPE: the command closed its stdin; the rest is dropped */
	}
	close_fd(&l->in_w);
}

/* Whether the command has exited, without reaping it: a zombie keeps its
 * pid (and so its process group id) from being reused while we kill it. */
static bool exited(pid_t pid)
{
	siginfo_t si = { 0 };
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* The poll loop: until the command exits and its output ends, or the
 * deadline. Once it exits, whatever it left running in its group is
 * killed, and the pipes are read for at most SH_DRAIN_MS more (a process
 * that left the group with setsid could hold them open). */
static void wait_loop(pid_t pid, const struct sh_command *cmd, struct loop *l, struct sh_result *r,
                      uint64_t start)
{
	uint64_t deadline = start + cmd->timeout_ms, drain_until = 0;
	bool done = false;
	for (;;) {
		if (!done && exited(pid)) {
			done = true;
			kill(-pid, SIGKILL);
			close_fd(&l->in_w);
			drain_until = (uint64_t)io_now_ms() + SH_DRAIN_MS;
		}
		if (done && l->out_r < 0 && l->err_r < 0)
			return;
		uint64_t now = (uint64_t)io_now_ms(),
		         until = done && drain_until < deadline ? drain_until : deadline;
		if (now >= until) {
			if (!done) {
				r->timed_out = true;
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
			}
			return;
		}
		struct pollfd p[4] = {
			{ .fd = l->out_r, .events = POLLIN },
			{ .fd = l->err_r, .events = POLLIN },
			{ .fd = l->in_w, .events = POLLOUT },
			{ .fd = done ? -1 : l->pidfd, .events = POLLIN },
		};
		/* Without a pidfd (Linux < 5.3) the exit is noticed by ticking. */
		uint64_t wait = until - now;
		if (!done && l->pidfd < 0 && wait > 20)
			wait = 20;
		if (poll(p, 4, (int)(wait > INT_MAX ? INT_MAX : wait)) < 0 && errno != EINTR)
			return;
		if (p[0].revents)
			drain(&l->out_r, &r->out);
		if (p[1].revents)
			drain(&l->err_r, &r->err);
		if (p[2].revents)
			feed(l, cmd);
	}
}

static void reap(pid_t pid, struct sh_result *r)
{
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status)) {
		r->exit_code = -1;
		r->signal = WTERMSIG(status);
	} else {
		r->exit_code = WEXITSTATUS(status);
	}
}

/* The child's exec report: 0 when exec worked (EOF), else its errno. */
static int read_report(int fd)
{
	int e = 0;
	ssize_t n;
	while ((n = read(fd, &e, sizeof e)) < 0 && errno == EINTR)
		;
	return n == (ssize_t)sizeof e ? (e ? e : EIO) : 0;
}

static int make_pipes(int p[4][2])
{
	for (int i = 0; i < 4; i++)
		if (pipe2(p[i], O_CLOEXEC) < 0)
			return -errno;
	/* Our ends never block the loop. */
	for (int i = 0; i < 3; i++) {
		int ours = i == 0 ? p[i][1] : p[i][0];
		if (fcntl(ours, F_SETFL, O_NONBLOCK) < 0)
			return -errno;
	}
	return 0;
}

static int spawn(const struct sh_command *cmd, int p[4][2], struct sh_result *r, struct loop *l)
{
	/* A command that closes its stdin early must not kill the tool with
	 * SIGPIPE; the command itself gets the disposition back. */
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigaction(SIGPIPE, &ign, &old);
	struct child_fds f = { p[0][0], p[1][1], p[2][1], p[3][1], &old };
	uint64_t start = (uint64_t)io_now_ms();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		sigaction(SIGPIPE, &old, NULL);
		return -e;
	}
	if (pid == 0)
		child_exec(cmd, &f);
	setpgid(pid, pid); /* also here: no window where a kill misses the group */
	for (int i = 0; i < 4; i++)
		close_fd(i == 0 ? &p[i][0] : &p[i][1]);
	r->exec_errno = read_report(p[3][0]);
	*l = (struct loop){ .out_r = p[1][0],
		            .err_r = p[2][0],
		            .in_w = p[0][1],
		            .pidfd = (int)syscall(SYS_pidfd_open, pid, 0) };
	p[1][0] = p[2][0] = p[0][1] = -1;
	if (cmd->merged)
		close_fd(&l->err_r); /* nothing writes it: its write end was not passed on */
	if (!cmd->stdin_len || r->exec_errno)
		close_fd(&l->in_w);
	wait_loop(pid, cmd, l, r, start);
	reap(pid, r);
	r->duration_ms = (uint64_t)io_now_ms() - start;
	/* Whatever the pipes still hold after a kill. */
	if (l->out_r >= 0)
		drain(&l->out_r, &r->out);
	if (l->err_r >= 0)
		drain(&l->err_r, &r->err);
	if (r->exec_errno)
		r->exit_code = CHILD_EXIT_NOTFOUND;
	sigaction(SIGPIPE, &old, NULL);
	return 0;
}

int sh_run(const struct sh_command *cmd, struct sh_result *r)
{
	memset(r, 0, sizeof *r);
	if (sh_capture_init(&r->out) < 0 || sh_capture_init(&r->err) < 0)
		return -ENOMEM;
	int p[4][2];
	memset(p, -1, sizeof p);
	struct loop l = { -1, -1, -1, -1, 0 };
	int rc = make_pipes(p);
	if (rc == 0)
		rc = spawn(cmd, p, r, &l);
	for (int i = 0; i < 4; i++) {
		close_fd(&p[i][0]);
		close_fd(&p[i][1]);
	}
	close_fd(&l.out_r);
	close_fd(&l.err_r);
	close_fd(&l.in_w);
	close_fd(&l.pidfd);
	return rc;
}

void sh_result_release(struct sh_result *r)
{
	sh_capture_release(&r->out);
	sh_capture_release(&r->err);
}
