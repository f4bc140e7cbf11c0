/* spawn.c — starting a confined child and watching it to the end: pipes,
 * clone3 (namespaces and a pidfd in one call, no second fork; a one-shot
 * exec shares our memory until it execs, see share_vm()), bounded
 * capture, the kill of the whole tree, reaping with rusage.
 *
 * A child is watched through one epoll fd holding its pidfd, its pipes and
 * its status pipe, so an outer event loop needs a single registration.
 *
 * Spares: a jail may keep one child set up ahead with no job (every step of
 * child.c but the last), waiting on a socket. sbx_spawn() then only sends
 * it the job and the caller waits for the exec (or the builtin) alone; the
 * next spare is made when the finished child is freed. A builtin whose
 * argument is a pointer (fn_arg) into the parent's memory as it is at the
 * call cannot go to a spare; one given as bytes (fn_data) can.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "io.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* epoll tags: the parent's ends in fd[], and W_SRC for a streamed stdin's
 * source, which is the caller's (not in fd[]: never closed here). */
enum { W_PID, W_STATUS, W_OUT, W_ERR, W_RESULT, W_IN, W_N, W_SRC = W_N };

#define STDIN_CHUNK (64u << 10)   /* a streamed stdin's buffer */

struct sbx_child {
	struct sbx_jail *jail;
	pid_t pid;
	int pidfd;
	int epfd;
	int fd[W_N];                /* parent ends; -1 once closed */
	int job_fd;                 /* a spare's job socket, until the job is sent */
	bool ready;                 /* the spare said it waits for its job */
	int mntns_fd;               /* holds the child's mount namespace (see start) */
	struct cgroup_slot *cg;
	struct cgroup_stats cg_stats;   /* read when the child is done */
	char *stdin_buf;            /* copy of the job's stdin, or the stream's buffer */
	size_t stdin_len, stdin_off;
	int src_fd;                 /* a streamed stdin's source; -1: none, or done */
	bool src_polled;            /* epoll can watch it (a regular file cannot) */
	bool src_watched;           /* it is in epfd now */
	bool src_readable;          /* epoll said so since the last read */
	bool src_blocking;          /* RWF_NOWAIT is not supported there (a terminal) */
	size_t result_limit, result_cap;
	int64_t start_ms;
	int64_t deadline_ms;
	bool reaped;
	bool done;
	bool have_report;
	struct child_report report;
	struct sbx_outcome out;
};

/* The supervisor's lifeline: children poll its read end for a hangup to
 * learn that the supervisor died before their PDEATHSIG was armed. */
int lifeline_get(int *rd, int *wr)
{
	static int fds[2] = { -1, -1 };
	if (fds[0] < 0 && pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	*rd = fds[0];
	*wr = fds[1];
	return 0;
}

static void close_fd(struct sbx_child *c, int w)
{
	if (c->fd[w] >= 0) {
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->fd[w], NULL);
		close(c->fd[w]);
		c->fd[w] = -1;
	}
}

static int watch(struct sbx_child *c, int w, int fd, uint32_t events)
{
	if (w != W_PID)
		c->fd[w] = fd;
	struct epoll_event ev = { .events = events, .data.u32 = (uint32_t)w };
	return epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/* Pipe with the parent's end non-blocking and both ends close-on-exec. */
static int make_pipe(int p[2], bool parent_reads, size_t size)
{
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	int mine = parent_reads ? p[0] : p[1];
	if (fcntl(mine, F_SETFL, O_NONBLOCK) < 0)
		return -errno;
	/* Big pipes cut the wakeups of a flood; the size is a hint. */
	if (size)
		(void)fcntl(p[0], F_SETPIPE_SZ, (int)size);
	return 0;
}

static void close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
}

static unsigned ns_req_bits(unsigned clone_flags)
{
	static const struct { unsigned clone, req; } map[] = {
		{ CLONE_NEWUSER, SBX_REQ_NS_USER }, { CLONE_NEWPID, SBX_REQ_NS_PID },
		{ CLONE_NEWNS, SBX_REQ_NS_MOUNT }, { CLONE_NEWIPC, SBX_REQ_NS_IPC },
		{ CLONE_NEWUTS, SBX_REQ_NS_UTS }, { CLONE_NEWNET, SBX_REQ_NS_NET },
		{ CLONE_NEWCGROUP, SBX_REQ_NS_CGROUP },
	};
	unsigned r = 0;
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (clone_flags & map[i].clone)
			r |= map[i].req;
	return r;
}

static int shared_vm_entry(void *plan)
{
	child_main(plan);
}

/* A one-shot exec (not a builtin: it runs on the parent's memory image; not
 * a spare: it waits for its job, and would hold the parent) shares the
 * parent's memory until its exec, as posix_spawn's child does: CLONE_VM |
 * CLONE_VFORK. Nothing of the supervisor is copied, no copy-on-write fault
 * is taken during the setup and no copy is torn down at the exec: about
 * 0.3 ms of a launch here (docs/performance.md). The parent sleeps until
 * the child execs or exits, so nothing in its memory changes under the
 * child (child.c keeps to that: no malloc, raw set*id calls). Only where no
 * spare is kept: a supervisor running an event loop must not sleep in a
 * child's setup. */
static bool clone3_missing;        /* clone3 said ENOSYS (a seccomp policy): clone() */
static bool into_cgroup_missing;   /* clone3 has no CLONE_INTO_CGROUP (before 5.7) */

bool sbx_clone3_works(void)
{
	return !clone3_missing;
}

static bool share_vm(const struct sbx_jail *j, const struct sbx_job *job)
{
#ifdef __SANITIZE_ADDRESS__
	/* ASan's runtime cannot follow a second task on our memory running
	 * instrumented code on a stack it does not know (its reports would
	 * land in our state): test builds fork. */
	(void)j;
	(void)job;
	return false;
#else
	/* A child in a v2 cgroup is born there with clone3: joining after
	 * clone() would move a thread group, which costs the kernel an RCU
	 * grace period (cgroup.c), more than the copy of our page tables. */
	return job && !job->fn && !j->keep_spare &&
	       (clone3_missing || (cgroup_version(CG_PIDS) != 2 && cgroup_version(CG_MEMORY) != 2) ||
	        (!j->use_cgroup_pids && !j->use_cgroup_memory && !j->use_cgroup_cpu));
#endif
}

/* The child's stack when made with clone(): reserved, not committed (a
 * few pages are used by child.c; a builtin may use more). */
enum { CLONE_STACK = 8 << 20 };

static pid_t clone_once(struct sbx_jail *j, struct child_plan *plan, char *stack, bool shared,
                        int *pidfd, int cgroup_fd)
{
	pid_t pid;
	if (shared || clone3_missing) {
		/* Sharing our memory, a handler of ours run in the child would
		 * run on our memory: every signal waits until the child has
		 * reset the handlers (child.c, step 4), as posix_spawn does. */
		sigset_t all, old;
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, &old);
		int flags = CLONE_PIDFD | SIGCHLD | (int)j->clone_ns |
		            (shared ? CLONE_VM | CLONE_VFORK : 0);
		pid = clone(shared_vm_entry, stack + CLONE_STACK, flags, (void *)plan, pidfd);
		int e = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		errno = e;
		return pid;
	}
	struct clone_args ca;
	memset(&ca, 0, sizeof ca);
	ca.flags = CLONE_PIDFD | j->clone_ns;
	ca.pidfd = (uint64_t)(uintptr_t)pidfd;
	ca.exit_signal = SIGCHLD;
	if (cgroup_fd >= 0) {
		ca.flags |= CLONE_INTO_CGROUP;
		ca.cgroup = (uint64_t)cgroup_fd;
	}
	pid = (pid_t)syscall(SYS_clone3, &ca, cgroup_fd >= 0 ? sizeof ca : CLONE_ARGS_SIZE_VER0);
	if (pid == 0)
		child_main(plan);
	return pid;
}

/* Runs clone3 (or clone, with a stack of its own, when sharing memory or
 * where clone3 is refused with ENOSYS, as some seccomp policies do); a
 * child with a v2 cgroup slot is born in it (CLONE_INTO_CGROUP), or else
 * writes itself into it first thing. On a namespace the kernel refuses,
 * retries without the optional ones (once, and remembers). Returns in the
 * parent only. */
static pid_t do_clone(struct sbx_jail *j, struct child_plan *plan, bool shared, int *pidfd,
                      const struct cgroup_join *cj)
{
	char *stack = NULL;
	pid_t pid = -1;
	bool into = cj->clone_fd >= 0 && !into_cgroup_missing;
	for (int attempt = 0, tries = 0; attempt < 2 && tries < 4; tries++) {
		bool via_clone = shared || clone3_missing;
		into = into && !via_clone;
		plan->cgroup_fds[SBX_CGROUP_FDS] = into ? -1 : cj->v2_fd;
		if (via_clone && !stack) {
			stack = mmap(NULL, CLONE_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE |
			             MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
			if (stack == MAP_FAILED)
				return -1;
		}
		pid = clone_once(j, plan, stack, shared, pidfd, into ? cj->clone_fd : -1);
		if (pid >= 0)
			break;
		int e = errno;
		if (!via_clone && e == ENOSYS) {
			clone3_missing = true;
			continue;
		}
		/* CLONE_INTO_CGROUP unknown (E2BIG: 5.3-5.6) or refused: the
		 * child joins by itself, and says why if that fails too. */
		if (into && (e == E2BIG || e == EBUSY || e == EOPNOTSUPP || e == EACCES ||
		             e == ENODEV)) {
			into_cgroup_missing |= e == E2BIG;
			into = false;
			continue;
		}
		bool ns_refused = e == EPERM || e == EINVAL || e == ENOSPC || e == EUSERS;
		if (attempt++ || !ns_refused || !(j->clone_ns & j->optional_ns)) {
			errno = e;
			break;
		}
		unsigned drop = j->clone_ns & j->optional_ns;
		j->clone_ns &= ~drop;
		j->dropped |= ns_req_bits(drop);
		j->userns = (j->clone_ns & CLONE_NEWUSER) != 0;
		j->private_proc = (j->clone_ns & CLONE_NEWPID) && (j->clone_ns & CLONE_NEWNS);
		j->private_tmp = (j->clone_ns & CLONE_NEWNS) != 0;
	}
	if (stack) {
		int e = errno;
		munmap(stack, CLONE_STACK);
		errno = e;
	}
	return pid;
}

/* Checks the job's cwd: relative, beneath the workspace, a directory. The
 * child changes to it by path (see child.c); this is the early, clear error. */
static int check_cwd(const struct sbx_jail *j, const char *cwd, struct sbx_error *err)
{
	if (!cwd || !*cwd || !strcmp(cwd, "."))
		return 0;
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
	                        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
	long fd = syscall(SYS_openat2, j->workspace_fd, cwd, &how, sizeof how);
	if (fd < 0)
		return sbx_err(err, errno, "cwd '%s' (must be a directory inside the "
		               "workspace)", cwd);
	close((int)fd);
	return 0;
}

static bool wants_stdin(const struct sbx_job *job)
{
	return job->stdin_data || job->stdin_stream;
}

/* The job's stdin bytes copied, or a streamed stdin's empty buffer. */
static int copy_stdin(struct sbx_child *c, const struct sbx_job *job)
{
	size_t cap = job->stdin_stream ? STDIN_CHUNK : job->stdin_len ? job->stdin_len : 1;
	c->stdin_buf = malloc(cap);
	if (!c->stdin_buf)
		return -ENOMEM;
	if (job->stdin_stream) {
		c->src_fd = job->stdin_source;
		return 0;
	}
	memcpy(c->stdin_buf, job->stdin_data, job->stdin_len);
	c->stdin_len = job->stdin_len;
	return 0;
}

static void src_watch(struct sbx_child *c, bool on)
{
	if (!c->src_polled || c->src_watched == on)
		return;
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = W_SRC };
	epoll_ctl(c->epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, c->src_fd, &ev);
	c->src_watched = on;
}

static void in_watch(struct sbx_child *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u32 = W_IN };
	epoll_ctl(c->epfd, EPOLL_CTL_MOD, c->fd[W_IN], &ev);
}

/* Starts watching the stdin pipe, whose write end (ours) is in fd[W_IN]:
 * for a streamed stdin whose source epoll can watch, the source first. */
static int watch_stdin(struct sbx_child *c)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = W_SRC };
	if (c->src_fd >= 0 && epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->src_fd, &ev) == 0)
		c->src_polled = c->src_watched = true;
	else if (c->src_fd >= 0 && errno != EPERM)
		return -errno;
	ev = (struct epoll_event){ .events = c->src_polled ? 0 : EPOLLOUT, .data.u32 = W_IN };
	return epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->fd[W_IN], &ev) < 0 ? -errno : 0;
}

/* Everything made before the fork: capture buffers and pipes. p[i][0] is
 * the read end, p[i][1] the write end; *child_stdin is the read end of the
 * stdin pipe, or -1 for /dev/null. job is NULL for a spare: it always gets
 * a stdin pipe and a result pipe, closed when its job has no use for them. */
static int prepare(struct sbx_child *c, const struct sbx_job *job, int p[4][2],
                   int *child_stdin, struct sbx_error *err)
{
	capture_init(&c->out.out);
	capture_init(&c->out.err);
	if (make_pipe(p[0], true, 1 << 20) || make_pipe(p[1], true, 0) ||
	    make_pipe(p[2], true, 0) || ((!job || job->result_pipe) && make_pipe(p[3], true, 0)))
		return sbx_err(err, errno, "pipes");
	if (job && !wants_stdin(job))
		return 0;
	if (job && copy_stdin(c, job) < 0)
		return sbx_err(err, ENOMEM, "stdin copy");
	int sp[2];
	if (make_pipe(sp, false, 0))
		return sbx_err(err, errno, "stdin pipe");
	c->fd[W_IN] = sp[1];
	*child_stdin = sp[0];
	return 0;
}

/* A spare's stdin pipe stays unwatched until its job says what it is for. */
static int watch_all(struct sbx_child *c, int p[4][2], bool spare)
{
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (c->epfd < 0)
		return -errno;
	int rc = watch(c, W_PID, c->pidfd, EPOLLIN);
	if (!rc) { rc = watch(c, W_STATUS, p[2][0], EPOLLIN); p[2][0] = -1; }
	if (!rc) { rc = watch(c, W_OUT, p[0][0], EPOLLIN); p[0][0] = -1; }
	if (!rc) { rc = watch(c, W_ERR, p[1][0], EPOLLIN); p[1][0] = -1; }
	if (!rc && p[3][0] >= 0) { rc = watch(c, W_RESULT, p[3][0], EPOLLIN); p[3][0] = -1; }
	if (!rc && !spare && c->fd[W_IN] >= 0)
		rc = watch_stdin(c);
	return rc;
}

/* Forks a child for job, or a spare when job is NULL. */
static int start(struct sbx_jail *j, const struct sbx_job *job, struct sbx_child **out,
                 struct sbx_error *err)
{
	*out = NULL;
	struct sbx_child *c = calloc(1, sizeof *c);
	if (!c)
		return sbx_err(err, ENOMEM, "child");
	int p[4][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 } };
	struct cgroup_join cj = { .clone_fd = -1, .v2_fd = -1, .fds = { -1, -1, -1 } };
	int child_stdin = -1, lrd = -1, lwr = -1, js[2] = { -1, -1 };
	for (int w = 0; w < W_N; w++)
		c->fd[w] = -1;
	c->pidfd = c->epfd = c->job_fd = c->mntns_fd = c->src_fd = -1;
	c->jail = j;
	c->result_limit = job && job->result_limit ? job->result_limit : 16u << 20;
	c->out.exit_code = -1;

	int rc = prepare(c, job, p, &child_stdin, err);
	if (!rc && job)
		rc = check_cwd(j, job->cwd, err);
	if (!rc && !job && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, js) < 0)
		rc = sbx_err(err, errno, "job socket");
	if (!rc && (rc = cgroup_acquire(j, &c->cg, &cj)) < 0)
		sbx_err(err, -rc, "cgroup");
	if (!rc && (rc = lifeline_get(&lrd, &lwr)) < 0)
		sbx_err(err, -rc, "lifeline pipe");
	if (rc)
		goto out;
	const char *cwd = job ? job->cwd : NULL;
	struct child_plan plan = {
		.jail = j, .argv = job ? job->argv : NULL, .fn = job ? job->fn : NULL,
		.fn_arg = job ? job->fn_arg : NULL,
		.fn_data = job ? job->fn_data : NULL, .fn_len = job ? job->fn_len : 0,
		.stdin_fd = child_stdin >= 0 ? child_stdin : j->devnull_fd,
		.stdout_fd = p[0][1], .stderr_fd = p[1][1], .result_fd = p[3][1],
		.status_fd = p[2][1],
		.cwd = cwd && *cwd && strcmp(cwd, ".") ? cwd : NULL,
		.lifeline_fd = lrd, .lifeline_wr = lwr,
		.cgroup_fds = { cj.fds[0], cj.fds[1], cj.fds[2], cj.v2_fd },
		.job_fd = js[1],
	};
	c->start_ms = io_now_ms();
	c->deadline_ms = c->start_ms + (job && job->timeout_ms ? job->timeout_ms : j->timeout_ms);
	c->pid = do_clone(j, &plan, share_vm(j, job), &c->pidfd, &cj);
	if (c->pid < 0) {
		rc = sbx_err(err, errno, "clone with namespaces 0x%x (this kernel or user "
		             "cannot create them: see toolcage check)", j->clone_ns);
		goto out;
	}
	c->job_fd = js[0];
	js[0] = -1;
	/* Tearing down a mount namespace (its tmpfs, /proc, masks) is the
	 * bulk of a child's exit here; holding it from outside moves that work
	 * from the exit, which the caller waits for, to sbx_child_free(). */
	if (j->clone_ns & CLONE_NEWNS) {
		char ns[64];
		snprintf(ns, sizeof ns, "/proc/%d/ns/mnt", (int)c->pid);
		c->mntns_fd = open(ns, O_RDONLY | O_CLOEXEC);
	}
	if ((rc = watch_all(c, p, !job)) < 0) {
		sbx_err(err, -rc, "epoll");
		sbx_child_kill(c, SBX_KILLED_CANCELLED);
	}
out:
	/* The child's ends (and, on failure, ours not yet handed to epoll). */
	for (int i = 0; i < 4; i++)
		close_pair(p[i]);
	close_pair(js);
	if (child_stdin >= 0)
		close(child_stdin);
	if (rc) {
		sbx_child_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* Whether the spare is still alive: not dead, no setup failure reported
 * (either makes its pidfd or status pipe readable). */
static bool spare_waiting(struct sbx_child *c)
{
	struct pollfd pf[2] = { { .fd = c->pidfd, .events = POLLIN },
	                        { .fd = c->fd[W_STATUS], .events = POLLIN } };
	return c->job_fd >= 0 && poll(pf, 2, 0) == 0;
}

bool sbx_jail_keeps_spare(const struct sbx_jail *j)
{
	return j->keep_spare;
}

bool sbx_jail_spare_ready(struct sbx_jail *j)
{
	struct sbx_child *c = j->spare;
	if (!c || !spare_waiting(c))
		return false;
	char b;
	if (!c->ready && recv(c->job_fd, &b, 1, MSG_DONTWAIT) == 1)
		c->ready = true;
	return c->ready;
}

/* Sends job to the spare c (see struct job_header). 0, or -errno when the
 * spare cannot take it: *sent false, the caller falls back to a fresh
 * child; *sent true, the spare may have started the job (it is killed),
 * and running it again could do a destructive tool's work twice. */
static int hand_over(struct sbx_child *c, const struct sbx_job *job, bool *sent)
{
	*sent = false;
	const char *cwd = job->cwd && strcmp(job->cwd, ".") ? job->cwd : "";
	struct job_header h = { .magic = JOB_MAGIC, .cwd_len = (uint32_t)strlen(cwd) + 1,
	                        .fn = (uint64_t)(uintptr_t)job->fn };
	h.flags = (wants_stdin(job) ? JOB_STDIN : 0) | (job->result_pipe ? JOB_RESULT : 0);
	uint64_t len = h.cwd_len + (job->fn ? job->fn_len : 0);
	for (char *const *a = job->fn ? NULL : job->argv; a && *a && len <= JOB_MAX_PAYLOAD; a++) {
		len += strlen(*a) + 1;
		h.argc++;
	}
	if (len > JOB_MAX_PAYLOAD)
		return -E2BIG;
	if (!spare_waiting(c))
		return -ESRCH;
	h.payload_len = len;
	char *msg = malloc(sizeof h + len);
	if (!msg)
		return -ENOMEM;
	memcpy(msg, &h, sizeof h);
	char *s = msg + sizeof h;
	memcpy(s, cwd, h.cwd_len);
	s += h.cwd_len;
	if (job->fn && job->fn_len)
		memcpy(s, job->fn_data, job->fn_len);
	for (char *const *a = job->fn ? NULL : job->argv; a && *a; a++) {
		size_t n = strlen(*a) + 1;
		memcpy(s, *a, n);
		s += n;
	}
	int rc = 0;
	for (size_t off = 0; off < sizeof h + len && !rc;) {
		ssize_t n = send(c->job_fd, msg + off, sizeof h + len - off, MSG_NOSIGNAL);
		if (n < 0 && errno != EINTR)
			rc = -errno;
		else if (n > 0)
			off += (size_t)n;
	}
	free(msg);
	if (rc)
		return rc;
	*sent = true;
	close(c->job_fd);
	c->job_fd = -1;
	if (!job->result_pipe)
		close_fd(c, W_RESULT);
	c->result_limit = job->result_limit ? job->result_limit : 16u << 20;
	if (wants_stdin(job)) {
		if (copy_stdin(c, job) < 0 || (rc = watch_stdin(c)) < 0) {
			sbx_child_kill(c, SBX_KILLED_CANCELLED);
			return rc ? rc : -ENOMEM;
		}
	} else {
		close(c->fd[W_IN]);
		c->fd[W_IN] = -1;
	}
	c->start_ms = io_now_ms();
	c->deadline_ms = c->start_ms + (job->timeout_ms ? job->timeout_ms : c->jail->timeout_ms);
	return 0;
}

static void drop_spare(struct sbx_jail *j)
{
	sbx_child_free(j->spare);
	j->spare = NULL;
}

/* A spare failing to start is no error: the next spawn starts cold. */
static void refill(struct sbx_jail *j)
{
	if (j->keep_spare && !j->spare)
		(void)start(j, NULL, &j->spare, NULL);
}

int sbx_spawn(struct sbx_jail *j, const struct sbx_job *job, struct sbx_child **out,
              struct sbx_error *err)
{
	*out = NULL;
	if (!job->fn && (!job->argv || !job->argv[0]))
		return sbx_err(err, EINVAL, "job has neither argv nor a function");
	int rc = j->mask_hidden ? mask_refresh(j, err) : 0;
	if (rc < 0)
		return rc;
	bool stale = rc > 0;         /* the spare's masks are out of date */
	if (j->n_prot_ro && protect_refresh(j))
		stale = true;            /* or its protected paths */
	if (stale)
		drop_spare(j);
	if (j->spare && !job->fn_arg && check_cwd(j, job->cwd, err) == 0) {
		struct sbx_child *c = j->spare;
		j->spare = NULL;
		bool sent;
		if ((rc = hand_over(c, job, &sent)) == 0) {
			*out = c;
			return 0;
		}
		sbx_child_free(c);
		if (sent)
			return sbx_err(err, -rc, "handing the job to the spare");
	}
	return start(j, job, out, err);
}

void sbx_jail_keep_spare(struct sbx_jail *j, bool on)
{
	j->keep_spare = on;
	if (on)
		refill(j);
	else
		drop_spare(j);
}

int sbx_child_fd(const struct sbx_child *c) { return c->epfd; }
pid_t sbx_child_pid(const struct sbx_child *c) { return c->pid; }
void sbx_child_confinement(const struct sbx_child *c, struct sbx_confinement *out)
{
	confine_report(c->jail, c->done ? &c->cg_stats : NULL, out);
}

bool sbx_child_done(const struct sbx_child *c) { return c->done; }
const struct sbx_outcome *sbx_child_outcome(const struct sbx_child *c) { return &c->out; }

int64_t sbx_child_deadline(const struct sbx_child *c)
{
	return c->deadline_ms;
}

/* Reads what a pipe holds now (bounded per call so one flood cannot starve
 * the loop; the fd stays ready). Returns 1 at EOF. */
static int drain(struct sbx_child *c, int w)
{
	char buf[65536];
	for (int round = 0; round < 16; round++) {
		ssize_t n = read(c->fd[w], buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : 1;
		if (n == 0)
			return 1;
		if (w == W_RESULT) {
			size_t want = c->out.result_len + (size_t)n;
			if (want > c->result_limit) {
				c->out.result_overflow = true;
				sbx_child_kill(c, SBX_KILLED_OUTPUT_LIMIT);
				continue;
			}
			if (want + 1 > c->result_cap) {
				size_t cap = c->result_cap ? c->result_cap * 2 : 4096;
				while (cap < want + 1)
					cap *= 2;
				char *r = realloc(c->out.result, cap);
				if (!r)
					return 1;
				c->out.result = r;
				c->result_cap = cap;
			}
			memcpy(c->out.result + c->out.result_len, buf, (size_t)n);
			c->out.result_len = want;
			c->out.result[want] = '\0';
			continue;
		}
		struct sbx_capture *cap = w == W_OUT ? &c->out.out : &c->out.err;
		capture_add(cap, c->jail->keep_bytes, buf, (size_t)n);
		if (cap->total > c->jail->limit_bytes)
			sbx_child_kill(c, SBX_KILLED_OUTPUT_LIMIT);
	}
	return 0;
}

static void read_status(struct sbx_child *c)
{
	struct child_report r;
	ssize_t n = read(c->fd[W_STATUS], &r, sizeof r);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n == (ssize_t)sizeof r && !c->have_report) {
		c->report = r;
		c->have_report = true;
		return;   /* EOF comes on the next read */
	}
	close_fd(c, W_STATUS);
}

/* A seekable source (a file) gets back what the tool did not read: the
 * bytes in our buffer and in the pipe. Its offset is the caller's, so that
 * `{ toolcage exec -- head -n1; cat; } <file` or a `while read` loop goes
 * on where the tool stopped, not up to 128 KiB further. */
static void give_back(struct sbx_child *c)
{
	struct stat st;
	int queued = 0;
	if (c->src_fd < 0 || fstat(c->src_fd, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	if (c->fd[W_IN] < 0 || ioctl(c->fd[W_IN], FIONREAD, &queued) < 0)
		queued = 0;
	off_t back = (off_t)(c->stdin_len - c->stdin_off) + queued;
	if (back > 0)
		lseek(c->src_fd, -back, SEEK_CUR);
	c->stdin_off = c->stdin_len;
}

/* A read of the source that cannot block: epoll said it was readable, but
 * another reader of the same pipe or socket may have taken the bytes since,
 * and a blocking read would hold the deadline. The source's flags are the
 * caller's, so no O_NONBLOCK. */
static ssize_t src_read(struct sbx_child *c)
{
	if (c->src_polled && !c->src_blocking) {
		struct iovec v = { c->stdin_buf, STDIN_CHUNK };
		ssize_t n = preadv2(c->src_fd, &v, 1, -1, RWF_NOWAIT);
		if (n >= 0 || errno != EOPNOTSUPP)
			return n;
		c->src_blocking = true;   /* a terminal: no RWF_NOWAIT, plain reads from now on */
	}
	return read(c->src_fd, c->stdin_buf, STDIN_CHUNK);
}

/* back: the tool can read no more (it closed its stdin): what it left is
 * given back; at the source's end the pipe's bytes are still the tool's. */
static void end_stdin(struct sbx_child *c, bool back)
{
	if (back)
		give_back(c);
	src_watch(c, false);
	c->src_fd = -1;
	close_fd(c, W_IN);
}

/* Passes stdin on as far as the pipe and the source allow. A streamed
 * stdin goes a buffer at a time: the source is watched while the buffer
 * is empty, the pipe while it is not (a source epoll cannot watch is read
 * whenever the pipe has room). The tool gets EOF when the bytes or the
 * source end; if it closes its stdin first, the rest is dropped. */
static void feed_stdin(struct sbx_child *c)
{
	for (;;) {
		if (c->stdin_off < c->stdin_len) {
			ssize_t n = write(c->fd[W_IN], c->stdin_buf + c->stdin_off,
			                  c->stdin_len - c->stdin_off);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN) {
				src_watch(c, false);
				in_watch(c, EPOLLOUT);
				return;
			}
			if (n < 0) {   /* EPIPE: the tool closed its stdin; fine */
				end_stdin(c, true);
				return;
			}
			c->stdin_off += (size_t)n;
			continue;
		}
		if (c->src_fd < 0)
			break;
		if (c->src_polled && !c->src_readable) {
			in_watch(c, 0);
			src_watch(c, true);
			return;
		}
		c->src_readable = false;
		ssize_t n = src_read(c);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;   /* the source's end (or error): the tool's EOF */
		c->stdin_len = (size_t)n;
		c->stdin_off = 0;
	}
	end_stdin(c, false);
}

static bool in_pid_ns(const struct sbx_child *c)
{
	return (c->jail->clone_ns & CLONE_NEWPID) != 0;
}

/* Without a pid namespace the tree may outlive its root: kill the process
 * group (setsid made the child its leader) and everything in its cgroup. */
static void kill_stragglers(struct sbx_child *c)
{
	if (in_pid_ns(c))
		return;
	kill(-c->pid, SIGKILL);
	cgroup_kill(c->cg);
}

static void reap(struct sbx_child *c)
{
	siginfo_t si;
	struct rusage ru;
	memset(&si, 0, sizeof si);
	if (syscall(SYS_waitid, P_PIDFD, c->pidfd, &si, WEXITED | WNOHANG, &ru) < 0 ||
	    si.si_pid == 0)
		return;
	c->reaped = true;
	epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->pidfd, NULL);
	if (si.si_code == CLD_EXITED) {
		c->out.exit_code = si.si_status;
	} else {
		c->out.signal = si.si_status;
	}
	c->out.wall_ms = (uint64_t)(io_now_ms() - c->start_ms);
	c->out.cpu_ms = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	                (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
	c->out.max_rss_kb = (uint64_t)ru.ru_maxrss;
	kill_stragglers(c);
	/* Pipes still held by escaped descendants get a short grace. */
	c->deadline_ms = io_now_ms() + 200;
}

static void finish(struct sbx_child *c)
{
	give_back(c);
	src_watch(c, false);
	for (int w = W_STATUS; w < W_N; w++)
		close_fd(c, w);
	capture_finish(&c->out.out, c->jail->keep_bytes);
	capture_finish(&c->out.err, c->jail->keep_bytes);
	if (c->have_report) {
		c->out.setup_failed = c->report.err ? c->report.err : EIO;
		c->out.setup_step = child_step_name((enum child_step)c->report.step);
	}
	cgroup_stats(c->cg, &c->cg_stats);
	/* SIGKILLed while the memory limit killed: the limit's doing. */
	if (c->out.signal == SIGKILL && c->cg_stats.oom_kills &&
	    (c->out.killed_by == SBX_KILLED_NONE || c->out.killed_by == SBX_KILLED_SIGNAL))
		c->out.killed_by = SBX_KILLED_MEMORY;
	if (c->out.signal && c->out.killed_by == SBX_KILLED_NONE)
		c->out.killed_by = c->out.signal == SIGSYS ? SBX_KILLED_SECCOMP : SBX_KILLED_SIGNAL;
	cgroup_release(c->cg);
	c->cg = NULL;
	c->done = true;
}

int sbx_child_step(struct sbx_child *c)
{
	if (c->done)
		return 1;
	struct epoll_event ev[W_N + 1];
	int n = epoll_wait(c->epfd, ev, W_N + 1, 0);
	for (int i = 0; i < n; i++) {
		int w = (int)ev[i].data.u32;
		switch (w) {
		case W_PID:
			reap(c);
			break;
		case W_STATUS:
			read_status(c);
			break;
		case W_IN:
			if (ev[i].events & EPOLLERR)
				end_stdin(c, true);   /* the tool closed its stdin */
			else
				feed_stdin(c);
			break;
		case W_SRC:
			c->src_readable = true;
			feed_stdin(c);
			break;
		default:
			if (c->fd[w] >= 0 && drain(c, w))
				close_fd(c, w);
		}
	}
	if (c->reaped && c->fd[W_OUT] < 0 && c->fd[W_ERR] < 0 &&
	    c->fd[W_RESULT] < 0 && c->fd[W_STATUS] < 0)
		finish(c);
	return c->done;
}

void sbx_child_kill(struct sbx_child *c, enum sbx_killed why)
{
	if (c->done)
		return;
	if (c->reaped) {            /* only the grace for pipes ran out */
		finish(c);
		return;
	}
	if (c->out.killed_by == SBX_KILLED_NONE)
		c->out.killed_by = why;
	syscall(SYS_pidfd_send_signal, c->pidfd, SIGKILL, NULL, 0);
	kill_stragglers(c);
	/* The exit follows; until then the deadline must not keep firing. */
	c->deadline_ms = io_now_ms() + 5000;
}

int sbx_child_wait(struct sbx_child *c)
{
	while (!sbx_child_step(c)) {
		int64_t left = c->deadline_ms - io_now_ms();
		if (left <= 0) {
			sbx_child_kill(c, SBX_KILLED_TIMEOUT);
			continue;
		}
		struct epoll_event ev;
		if (epoll_wait(c->epfd, &ev, 1, (int)(left > 60000 ? 60000 : left)) < 0 &&
		    errno != EINTR)
			return -errno;
	}
	return 0;
}

/* A finished child's jail gets its next spare here, after the caller has
 * the result: made earlier, its setup would compete for the CPU with the
 * tool still running (or its clone3 delay this child's wakeup). */
void sbx_child_free(struct sbx_child *c)
{
	if (!c)
		return;
	struct sbx_jail *j = c->done ? c->jail : NULL;
	if (c->pid > 0 && !c->reaped) {
		sbx_child_kill(c, SBX_KILLED_CANCELLED);
		siginfo_t si;
		while (syscall(SYS_waitid, P_PIDFD, c->pidfd, &si, WEXITED, NULL) < 0 &&
		       errno == EINTR)
			;
		c->reaped = true;
		kill_stragglers(c);
	}
	for (int w = 0; w < W_N; w++)
		if (c->fd[w] >= 0)
			close(c->fd[w]);
	if (c->job_fd >= 0)
		close(c->job_fd);
	if (c->mntns_fd >= 0)
		close(c->mntns_fd);
	if (c->pidfd >= 0)
		close(c->pidfd);
	if (c->epfd >= 0)
		close(c->epfd);
	cgroup_release(c->cg);
	capture_release(&c->out.out);
	capture_release(&c->out.err);
	free(c->out.result);
	free(c->stdin_buf);
	free(c);
	if (j)
		refill(j);
}
