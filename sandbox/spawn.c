/* spawn.c — starting a confined child: pipes, a status socket, and either
 * our own clone3 (namespaces and a pidfd in one call, no second fork; a
 * one-shot exec shares our memory until it execs, see share_vm()) or a
 * request to the jail's clean worker (zygote.c), which forks the child from
 * an image that holds nothing of ours. The clone itself is clone.c's,
 * watching the child to its end watch.c's, handing a job to a waiting
 * child spare.c's; keeping a jail's spare filled is here.
 *
 * Which way a job goes:
 *   a builtin given as bytes (fn_data)   the worker: a clean image, always
 *   anything, where the jail keeps spares the worker (a spare, or fresh)
 *   an exec job, no spares kept          our clone3, sharing our memory
 *                                        until the exec (a one-shot launch)
 *   a builtin given a pointer (fn_arg)   a fork of ours, made non-dumpable:
 *                                        it must see our memory
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
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "io.h"

/* Pipe with the parent's end non-blocking and both ends close-on-exec. */
int make_pipe(int p[2], bool parent_reads, size_t size)
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

void close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0) {
			close(p[i]);
			p[i] = -1;
		}
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
	        (!sbx_clone3_works() ||
	         (cgroup_version(CG_PIDS) != 2 && cgroup_version(CG_MEMORY) != 2) ||
	         (!j->use_cgroup_pids && !j->use_cgroup_memory && !j->use_cgroup_cpu));
#endif
}

/* Checks the job's cwd: relative, beneath the workspace, a directory. The
 * child changes to it by path (see child.c); this is the early, clear error. */
int check_cwd(const struct sbx_jail *j, const char *cwd, struct sbx_error *err)
{
	if (!cwd || !*cwd || !strcmp(cwd, "."))
		return 0;
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		                .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
	long fd = syscall(SYS_openat2, j->workspace_fd, cwd, &how, sizeof how);
	if (fd < 0)
		return sbx_err(err, errno,
		               "cwd '%s' (must be a directory inside the "
		               "workspace)",
		               cwd);
	close((int)fd);
	return 0;
}

/* The status socket: the child reports a failed step on it, a worker its
 * start and end; EOF once every writer is gone. Our end non-blocking. */
static int make_status(int s[2])
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s) < 0)
		return -errno;
	return fcntl(s[0], F_SETFL, O_NONBLOCK) < 0 ? -errno : 0;
}

/* Everything made before the fork: capture buffers, pipes, the status
 * socket. p[i][0] is the read end, p[i][1] the write end (p[2] is the
 * status socket: [0] ours); *child_stdin is the read end of the stdin
 * pipe, or -1 for /dev/null. later: the child reads its job from the job
 * socket (a worker's): it always gets a result pipe, closed when its job
 * has no use for it, and a stdin pipe unless its job is known here and
 * needs none (a spare's job is not: job NULL), whose stdin hand_over
 * copies. */
static int prepare(struct sbx_child *c, const struct sbx_job *job, bool later, int p[4][2],
                   int *child_stdin, struct sbx_error *err)
{
	capture_init(&c->out.out);
	capture_init(&c->out.err);
	if (make_pipe(p[0], true, 1 << 20) || make_pipe(p[1], true, 0) || make_status(p[2]) ||
	    ((!job || later || job->result_pipe) && make_pipe(p[3], true, 0)))
		return sbx_err(err, errno, "pipes");
	if (job && !wants_stdin(job))
		return 0;
	if (job && !later && copy_stdin(c, job) < 0)
		return sbx_err(err, ENOMEM, "stdin copy");
	int sp[2];
	if (make_pipe(sp, false, 0))
		return sbx_err(err, errno, "stdin pipe");
	c->fd[W_IN] = sp[1];
	/* A spare's job is not known yet: copy_stdin drops it if need be. -1:
	 * nothing given back after the source's end. */
	if (!job || later || stdin_gives_back(job))
		c->fd[W_PEEK] = fcntl(sp[0], F_DUPFD_CLOEXEC, 3);
	*child_stdin = sp[0];
	return 0;
}

/* Our ends into the child's epoll set. A worker's child's pidfd joins when
 * the worker sends it, and its stdin pipe waits until its job says what
 * it is for. */
static int watch_all(struct sbx_child *c, int p[4][2], bool await_job)
{
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (c->epfd < 0)
		return -errno;
	int rc = c->zygote ? 0 : child_watch(c, W_PID, c->pidfd, EPOLLIN);
	if (!rc) {
		rc = child_watch(c, W_STATUS, p[2][0], EPOLLIN);
		p[2][0] = -1;
	}
	if (!rc) {
		rc = child_watch(c, W_OUT, p[0][0], EPOLLIN);
		p[0][0] = -1;
	}
	if (!rc) {
		rc = child_watch(c, W_ERR, p[1][0], EPOLLIN);
		p[1][0] = -1;
	}
	if (!rc && p[3][0] >= 0) {
		rc = child_watch(c, W_RESULT, p[3][0], EPOLLIN);
		p[3][0] = -1;
	}
	if (!rc && !await_job && c->fd[W_IN] >= 0)
		rc = child_watch_stdin(c);
	return rc;
}

/* Why the jail's worker made no child, in words: the step of its setup
 * the kernel refused (its namespaces, mounts, /proc), the likely cause
 * and the fix; or, without its report, that none came. Returns rc, or
 * -VIEW_MOVED for a view to make again. */
static int worker_refused(const struct sbx_child *c, int rc, struct sbx_error *err)
{
	const struct child_report *r = &c->report;
	if (!c->have_report || r->kind != REPORT_STEP || r->err <= 0) {
		sbx_err(err, -rc,
		        "the sandbox worker did not start the tool's process "
		        "within 10 s");
		return rc;
	}
	const char *step = child_step_name((enum child_step)r->step);
	/* The namespaces, not a mount made in them: a refused mount is the
	 * kernel's answer to that mount, never to a namespace. */
	bool ns = (r->step == STEP_USERNS || r->step == STEP_NAMESPACES || r->step == STEP_CLONE) &&
	        (r->err == EPERM || r->err == ENOSPC || r->err == EUSERS || r->err == EINVAL);
	char why[sizeof err->msg];
	if (ns) {
		sbx_explain_ns((unsigned)c->jail->clone_ns, r->err, why, sizeof why);
		sbx_err(err, 0, "profile %s cannot run here: %s", c->jail->name, why);
	} else {
		sbx_explain_refused(c->jail->name, step, r->err, why, sizeof why);
		sbx_err(err, 0, "%s", why);
	}
	if (err)
		err->errnum = r->err;
	/* Its view made while the hidden paths moved (mask_check): made
	 * again by another worker (sbx_spawn). */
	return r->step == STEP_MOUNT_MASK && r->err == VIEW_MOVED ? -VIEW_MOVED : rc;
}

/* A builtin's handed connections (jail.handed): CHILD_HANDED_MAX stream
 * pairs, ours kept in c->handed (non-blocking: the egress service's), the
 * child's in mine until the fork. Both ends are close-on-exec: the child
 * places its own at CHILD_FD_HANDED (child.c). */
static int make_handed(struct sbx_child *c, int mine[CHILD_HANDED_MAX], struct sbx_error *err)
{
	for (int i = 0; i < CHILD_HANDED_MAX; i++) {
		int sp[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0)
			return sbx_err(err, errno, "handed connections");
		int fl = fcntl(sp[0], F_GETFL);
		if (fl < 0 || fcntl(sp[0], F_SETFL, fl | O_NONBLOCK) < 0) {
			int e = errno;
			close(sp[0]);
			close(sp[1]);
			return sbx_err(err, e, "handed connections");
		}
		c->handed[i] = sp[0];
		mine[i] = sp[1];
	}
	return 0;
}

static void close_handed(int fds[CHILD_HANDED_MAX])
{
	for (int i = 0; i < CHILD_HANDED_MAX; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

/* What the child said on the view pipe (rd): 'r', the kernel refused its
 * overlays (landlock_view_apply); 's', the hidden paths moved while it
 * made its view (mask_check). One byte, then its end. Then it is reaped
 * and what it reported on the status socket (its refusal) read away, for
 * a child started again to report alone. 0, no byte: it made its view,
 * or failed before (its report tells), or has exec'd. */
static char view_told(struct sbx_child *c, int rd, int status)
{
	char b;
	ssize_t n;
	while ((n = read(rd, &b, 1)) < 0 && errno == EINTR)
		;
	if (n != 1)
		return 0;
	siginfo_t si;
	while (waitid((idtype_t)P_PIDFD, (id_t)c->pidfd, &si, WEXITED) < 0 && errno == EINTR)
		;
	char r[256];
	while (recv(status, r, sizeof r, MSG_DONTWAIT) > 0)
		;
	close(c->pidfd);
	c->pidfd = -1;
	c->pid = -1;
	return b;
}

/* Whether a child of ours checks the view it makes (mask_check). */
static bool view_checked(const struct sbx_jail *j)
{
	return j->mask_hidden && j->n_watch > 0;
}

/* Our clone3 of the child (plan), told on the view pipe vp (taken; -1:
 * none): what it told there (view_told). */
static char clone_told(struct sbx_child *c, struct child_plan *plan, bool vm, int vp[2], int status,
                       const struct cgroup_join *cj)
{
	plan->view_wr = vp[1];
	c->pid = spawn_clone(c->jail, plan, vm, 0, &c->pidfd, cj);
	if (vp[1] >= 0)
		close(vp[1]);
	char told = 0;
	if (c->pid >= 0 && c->pidfd >= 0 && vp[0] >= 0)
		told = view_told(c, vp[0], status);
	if (vp[0] >= 0)
		close(vp[0]);
	return told;
}

/* Our own clone3 of job. */
static int fork_here(struct sbx_child *c, const struct sbx_job *job, int p[4][2], int child_stdin,
                     const int *handed, const struct cgroup_join *cj, struct sbx_error *err)
{
	struct sbx_jail *j = c->jail;
	int lrd = -1, lwr = -1, rc = lifeline_get(&lrd, &lwr);
	if (rc < 0)
		return sbx_err(err, -rc, "lifeline pipe");
	const char *cwd = job->cwd;
	struct child_plan plan = {
		.jail = j,
		.argv = job->argv,
		.fn = job->fn,
		.fn_arg = job->fn_arg,
		.fn_data = job->fn_data,
		.fn_len = job->fn_len,
		.stdin_fd = child_stdin,
		.stdout_fd = p[0][1],
		.stderr_fd = p[1][1],
		.result_fd = p[3][1],
		.status_fd = p[2][1],
		.cwd = cwd && *cwd && strcmp(cwd, ".") ? cwd : NULL,
		.lifeline_fd = lrd,
		.lifeline_wr = lwr,
		.cgroup_fds = { cj->fds[0], cj->fds[1], cj->fds[2], cj->v2_fd },
		.job_fd = -1,
		.view_wr = -1,
		.handed_fds = handed,
	};
	/* The overlays spare a one-shot launch the rules' making; a jail
	 * that starts children one after another makes the rules once, which
	 * its children then take for less than an overlay each. The pipe
	 * tells a refused overlay, or a view made while the hidden paths
	 * moved (none: that child fails, not started again). */
	int vp[2] = { -1, -1 };
	if (((j->ll_view && !j->view_made_here) || view_checked(j)) && pipe2(vp, O_CLOEXEC) < 0)
		vp[0] = vp[1] = -1;
	if (j->ll_view && (j->view_made_here || vp[0] < 0) && (rc = landlock_expand(j, err)) < 0) {
		close_pair(vp);
		return rc;
	}
	bool made_before = j->view_made_here;
	j->view_made_here |= j->ll_view != NULL;
	char told = clone_told(c, &plan, share_vm(j, job), vp, p[2][0], cj);
	if (told == 'r') {
		/* It ended at once: where the kernel refuses the overlays
		 * (view.c), the rules made entry by entry. */
		if ((rc = landlock_expand(j, err)) < 0)
			return rc;
		if (!view_checked(j) || pipe2(vp, O_CLOEXEC) < 0)
			vp[0] = vp[1] = -1;
		told = clone_told(c, &plan, share_vm(j, job), vp, p[2][0], cj);
	}
	if (told == 's') {
		/* None made: the next child, planned anew, makes its own. */
		j->view_made_here = made_before;
		sbx_err(err, 0, "profile %s: a hidden path moved while the view was made", j->name);
		return -VIEW_MOVED;
	}
	if (c->pid < 0) {
		int e = errno;
		if (!j->clone_ns)
			return sbx_err(err, e, "starting the child (clone)");
		char why[sizeof err->msg];
		sbx_explain_ns((unsigned)j->clone_ns, e, why, sizeof why);
		sbx_err(err, 0, "profile %s cannot run here: %s", j->name, why);
		if (err)
			err->errnum = e;
		return -e;
	}
	/* A kernel that ignores CLONE_PIDFD (gVisor's runsc) is refused by
	 * sbx_jail_new before any clone; should one still come without its
	 * pidfd, nothing would watch it. */
	if (c->pidfd < 0) {
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
		c->pid = -1;
		return clone_refuse_no_pidfd(j->name, err);
	}
	c->clone_ns = j->clone_ns;
	/* Tearing down a mount namespace (its tmpfs, /proc, masks) is the
	 * bulk of a child's exit here; holding it from outside moves that work
	 * from the exit, which the caller waits for, to sbx_child_free(). */
	if (j->clone_ns & CLONE_NEWNS) {
		char ns[64];
		snprintf(ns, sizeof ns, "/proc/%d/ns/mnt", (int)c->pid);
		c->mntns_fd = open(ns, O_RDONLY | O_CLOEXEC);
	}
	return 0;
}

/* Asks the jail's worker for a child that will read its job from the job
 * socket (our end in c->job_fd), and joins the call's cgroups as ours
 * would (the worker is given the slot's descriptors with the child's). */
static int fork_in_worker(struct sbx_child *c, int p[4][2], int child_stdin, const int *handed,
                          const struct cgroup_join *cj, struct sbx_error *err)
{
	int js[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, js) < 0)
		return sbx_err(err, errno, "job socket");
	int fds[ZYGOTE_MAX_FDS] = { child_stdin >= 0 ? child_stdin : c->jail->devnull_fd,
		                    p[0][1],
		                    p[1][1],
		                    p[3][1],
		                    p[2][1],
		                    js[1] };
	struct zygote_request req = { .magic = ZYGOTE_MAGIC };
	int n = ZYGOTE_FIXED_FDS;
	for (int i = 0; i < SBX_CGROUP_FDS; i++)
		if (cj->fds[i] >= 0) {
			fds[n++] = cj->fds[i];
			req.n_cgroup_fds++;
		}
	if (cj->clone_fd >= 0) {
		fds[n++] = cj->clone_fd;
		req.cgroup_v2 |= ZYGOTE_CG_CLONE;
	}
	if (cj->v2_fd >= 0) {
		fds[n++] = cj->v2_fd;
		req.cgroup_v2 |= ZYGOTE_CG_PROCS;
	}
	for (int i = 0; handed && i < CHILD_HANDED_MAX; i++)
		fds[n++] = handed[i];
	req.handed = handed != NULL;
	req.home = home_wanted();
	int rc = zygote_fork(c->jail, &req, fds, n, &c->zygote, err);
	close(js[1]);
	if (rc < 0) {
		close(js[0]);
		return rc;
	}
	c->job_fd = js[0];
	return 0;
}

/* A worker's child, its pidfd ours, that died before its job came and
 * told nothing (a kill: a signal from outside, the memory cgroup): its
 * death is the outcome, as when it dies just after taking its job, never
 * the "No such process" of a job it could not take. Its job never ran:
 * what the job would have fed it is closed. 0. */
static int died_unheard(struct sbx_child *c, const struct sbx_job *job)
{
	if (!job->result_pipe)
		child_close_fd(c, W_RESULT);
	child_close_fd(c, W_IN);
	child_close_fd(c, W_PEEK);
	return 0;
}

/* Starts a child for job, or one that waits for its job (job NULL, or
 * via_zygote: the worker's children all read their job themselves). */
int spawn_start(struct sbx_jail *j, const struct sbx_job *job, bool via_zygote,
                struct sbx_child **out, struct sbx_error *err)
{
	*out = NULL;
	struct sbx_child *c = calloc(1, sizeof *c);
	if (!c)
		return sbx_err(err, ENOMEM, "child");
	int p[4][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 } };
	struct cgroup_join cj = { .clone_fd = -1, .v2_fd = -1, .fds = { -1, -1, -1 } };
	int child_stdin = -1;
	for (int w = 0; w < W_N; w++)
		c->fd[w] = -1;
	for (int k = 0; k < SBX_LISTEN_MAX; k++)
		c->listeners[k] = -1;
	int handed[CHILD_HANDED_MAX];
	for (int k = 0; k < CHILD_HANDED_MAX; k++)
		c->handed[k] = handed[k] = -1;
	c->pidfd = c->epfd = c->job_fd = c->mntns_fd = c->src_fd = c->back_fd = -1;
	c->grace_left_ms = -1;
	c->jail = j;
	c->result_limit = job && job->result_limit ? job->result_limit : CHILD_RESULT_MAX;
	c->execs = job && !job->fn;
	if (job)
		child_set_output(c, job);
	c->out.exit_code = -1;
	int rc = prepare(c, job, via_zygote, p, &child_stdin, err);
	if (!rc && job)
		rc = check_cwd(j, job->cwd, err);
	/* (a spare has no job yet: a jail of handed connections keeps none) */
	bool hands = j->handed && job && job->fn;
	if (!rc && hands)
		rc = make_handed(c, handed, err);
	if (!rc && (rc = cgroup_acquire(j, &c->cg, &cj)) < 0)
		sbx_err(err, -rc, "cgroup");
	c->start_ms = io_now_ms();
	c->deadline_ms = c->start_ms + (job && job->timeout_ms ? job->timeout_ms : j->timeout_ms);
	child_mark_t0(c);
	if (!rc)
		rc = via_zygote ?
		        fork_in_worker(c, p, child_stdin, hands ? handed : NULL, &cj, err) :
		        fork_here(c, job, p, child_stdin, hands ? handed : NULL, &cj, err);
	close_handed(handed); /* the child's ends: it has them, or never will */
	if (!rc && (rc = watch_all(c, p, via_zygote)) < 0) {
		sbx_err(err, -rc, "epoll");
		sbx_child_kill(c, SBX_KILLED_CANCELLED);
	}
	/* The child's ends (and, on failure, ours not yet handed to epoll). */
	for (int i = 0; i < 4; i++)
		close_pair(p[i]);
	if (child_stdin >= 0)
		close(child_stdin);
	if (!rc && via_zygote && job) {
		bool sent;
		/* A child that failed a setup step exits with its report: the
		 * refusal is that report (what was refused, why, the fix),
		 * whether or not its pidfd came first. */
		if ((rc = hand_over(c, job, &sent)) < 0)
			child_read_status(c);
		if (rc < 0 && (c->pidfd < 0 || c->have_report))
			rc = worker_refused(c, rc, err);
		else if (rc == -ESRCH && !sent)
			rc = died_unheard(c, job);
		else if (rc < 0)
			sbx_err(err, -rc, "handing the job to the sandbox worker's child");
	}
	if (rc) {
		sbx_child_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* Whether job can, or must, go to the jail's worker. */
static bool goes_to_worker(const struct sbx_jail *j, const struct sbx_job *job)
{
	if (job->fn)
		return !job->fn_arg;
	/* Root without CAP_SYS_ADMIN: only the worker makes the namespaces,
	 * as the tools' user (child_enter_view). */
	return (j->keep_spare || j->root_userns) && zygote_usable();
}

/* The masks and the rules as the disk is now (again: whatever the
 * watches say), then a spare or a new child for job. */
static int spawn_fresh(struct sbx_jail *j, const struct sbx_job *job, bool again,
                       struct sbx_child **out, struct sbx_error *err)
{
	int rc = j->mask_hidden ? mask_refresh(j, again, err) : 0;
	if (rc < 0)
		return rc;
	/* The masks of the spare and the worker, and the Landlock rules of
	 * the dirs that hold hidden paths (made again with them, or again
	 * after a refresh that failed). */
	bool stale = rc > 0 || j->ll_stale;
	if (j->n_prot_ro && protect_refresh(j))
		stale = true; /* or their protected paths */
	if (stale) {
		spare_drop(j);
		zygote_retire(j);
	}
	if ((rc > 0 || j->ll_stale) && (rc = landlock_refresh(j, err)) < 0)
		return rc;
	if (j->spare && !job->fn_arg && check_cwd(j, job->cwd, err) == 0) {
		struct sbx_child *c = spare_swap(j, NULL);
		bool sent;
		if ((rc = hand_over(c, job, &sent)) == 0) {
			child_mark_t0(c);
			*out = c;
			return 0;
		}
		sbx_child_free(c);
		if (sent)
			return sbx_err(err, -rc, "handing the job to the spare");
	}
	return spawn_start(j, job, goes_to_worker(j, job), out, err);
}

/* A view made while the hidden paths moved is made again, from a new
 * scan of them, this many times at most (the call fails then). */
enum { VIEW_TRIES = 5 };
/* Spares made again in a row, with no call between, after each ended
 * while it waited (sbx_jail_spare_step). */
enum { SPARE_IDLE_REMAKES = 3 };

int sbx_spawn(struct sbx_jail *j, const struct sbx_job *job, struct sbx_child **out,
              struct sbx_error *err)
{
	*out = NULL;
	if (!job->fn && (!job->argv || !job->argv[0]))
		return sbx_err(err, EINVAL, "job has neither argv nor a function");
	if (j->fn_only && !job->fn)
		return sbx_err(err, EINVAL,
		               "profile %s's jail runs C functions only (fn_only): "
		               "it cannot run %s",
		               j->name, job->argv[0]);
	/* Handed connections are for our own code (http_fetch), which knows
	 * to use them: a command expects sockets of its own, and is refused
	 * as it is where the profile cannot run at all (the built-in tools'
	 * way is said by check and the confinement report). */
	if (j->handed && !job->fn) {
		char why[sizeof err->msg];
		explain_no_ns(j, why, sizeof why);
		sbx_err(err, 0, "profile %s cannot run here: %s", j->name, why);
		if (err)
			err->errnum = j->ns_err;
		return -(j->ns_err ? j->ns_err : EPERM);
	}
	if (job->fn && !job->fn_arg && !sbx_fn_ref((const void *)job->fn))
		return sbx_err(err, EINVAL,
		               "builtin outside the program image: it cannot "
		               "run in a clean image (give it fn_arg to run it on a copy of "
		               "this process instead)");
	if (j->root_userns && (job->fn_arg || !zygote_usable()))
		return sbx_err(err, EPERM,
		               "profile %s: as root without CAP_SYS_ADMIN only the "
		               "sandbox worker can make the namespaces, and this job cannot run "
		               "in it (%s)",
		               j->name,
		               job->fn_arg ? "a builtin given fn_arg" :
		                             "/proc/self/exe cannot be executed");
	for (int n = 1;; n++) {
		int rc = spawn_fresh(j, job, n > 1, out, err);
		if (rc != -VIEW_MOVED || !j->mask_hidden)
			return rc;
		if (n == VIEW_TRIES) {
			sbx_err(err, 0,
			        "profile %s: a hidden path kept moving: a directory that holds "
			        "one changed each time the call's view was made (%d times), and "
			        "a view made meanwhile could grant it; fix: try again once "
			        "nothing renames there",
			        j->name, VIEW_TRIES);
			if (err)
				err->errnum = ESTALE;
			return -ESTALE;
		}
		/* A clock tick, for times that may not have told a change
		 * (mask.c: recent). */
		struct timespec tick = { 0, n * 1000000L };
		nanosleep(&tick, NULL);
	}
}

/* A spare failing to start is no error: the next spawn starts cold. */
void spare_refill(struct sbx_jail *j)
{
	/* A jail of handed connections keeps no spare: a child's connections
	 * are made with its job (spawn_start). */
	if (j->keep_spare && !j->spare && !j->handed && zygote_usable()) {
		struct sbx_child *c;
		(void)spawn_start(j, NULL, true, &c, NULL);
		spare_swap(j, c);
	}
}

/* A spare that ended while it waited (SIGKILL from another process of
 * the uid, the OOM killer) is reaped now rather than at the jail's next
 * call, a zombie until then; one found stopped when something else woke
 * the loop goes too (a stop alone wakes nothing: see sandbox.h). One
 * that had been set up is made again, as after a call; one that failed
 * its setup would fail the same way again: the next call starts fresh and
 * says why. */
void sbx_jail_spare_step(struct sbx_jail *j)
{
	bool set_up;
	if (!spare_gone(j, &set_up))
		return;
	spare_drop(j);
	/* Made again at once, but not without end: spares that keep ending
	 * while they wait (a process of the uid that kills each, a memory
	 * limit too tight for one) would be made at the loop's pace. After
	 * SPARE_IDLE_REMAKES the next call makes its own, and the spare
	 * after it. */
	if (set_up && ++j->spare_idle_deaths <= SPARE_IDLE_REMAKES)
		spare_refill(j);
}

void sbx_jail_keep_spare(struct sbx_jail *j, bool on)
{
	j->keep_spare = on;
	if (on && j->spare_epfd < 0) /* -1: a spare is looked at when a call comes */
		j->spare_epfd = epoll_create1(EPOLL_CLOEXEC);
	if (on) {
		home_choose(j); /* for its worker, started by the refill (home.c) */
		spare_refill(j);
	} else
		spare_drop(j);
}

/* A call's end: the next spare, and spares may again be made at once
 * after ending while they waited (sbx_jail_spare_step). */
static void refill_after_call(struct sbx_jail *j)
{
	j->spare_idle_deaths = 0;
	spare_refill(j);
}

void sbx_child_taken(struct sbx_child *c)
{
	if (c && c->done)
		refill_after_call(c->jail);
}

/* A finished child's jail gets its next spare here, after the caller has
 * the result: made earlier, its setup would compete for the CPU with the
 * tool still running (or its clone3 delay this child's wakeup). */
void sbx_child_free(struct sbx_child *c)
{
	struct sbx_jail *j = c && c->done ? c->jail : NULL;
	child_free(c);
	if (j)
		refill_after_call(j);
}
