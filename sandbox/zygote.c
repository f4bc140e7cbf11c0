/* zygote.c — the supervisor's side of a jail's clean worker.
 *
 * A builtin forked from the supervisor runs on a copy of its memory: other
 * calls' arguments and results, the environment, the descriptors. What the
 * builtin starts could read that copy through /proc or ptrace. So the
 * children of a jail are forked by a worker instead: this program executed
 * again (/proc/self/exe, argv[1] WORKER_ARG; worker.c takes over before
 * main), with the profile's environment and nothing of ours but the
 * compiled jail, which it gets as bytes and descriptors at its start.
 *
 * The worker never sees a call: for each child we send it the child's
 * descriptors (stdin, stdout, stderr, result, status, job, cgroup files)
 * and nothing else; the child reads its job from the job socket itself.
 * The worker forks the child as ours (CLONE_PARENT) and sends its pidfd
 * on the child's status socket: from there we watch, kill (at the
 * deadline: the child is init of its pid namespace) and reap it as one we
 * forked, and it dies with us directly.
 *
 * Lifetime: made on a jail's first use of it, held by the jail and by each
 * child it was asked for; retired (its control socket closed: it ends)
 * when the jail is freed or its hidden paths changed; killed when it stops
 * answering. It dies with us (PDEATHSIG, checked against the lifeline at
 * its start).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "io.h"

struct zygote {
	int refs;
	pid_t pid;
	int pidfd;
	int ctl;     /* our end of its control socket; -1 once retired */
	bool proven; /* a child of its sent its pidfd */
};

/* The worker's first descriptors (worker.c reads them so). */
enum { Z_CTL = 3, Z_BLOB = 4, Z_LIFELINE = 5, Z_JAIL = 6 };

bool zygote_usable(void)
{
	static int usable = -1;
	if (usable < 0)
		usable = access("/proc/self/exe", X_OK) == 0;
	return usable == 1;
}

struct exec_plan {
	int ctl, blob, lifeline, lifeline_wr;
	const int *jail_fds;
	int n_jail_fds;
	char *const *envp;
};

/* In the new process (sharing our memory until the exec, as a posix_spawn
 * child does): the descriptors in place, a session of its own (a terminal's
 * ^C is not for it), death with us, then the exec. Signals stay blocked
 * across the exec; the worker sets its own mask. */
static int exec_worker(void *arg)
{
	const struct exec_plan *p = arg;
	int src[3 + JAIL_FDS_MAX], n = 0;
	src[n++] = p->ctl;
	src[n++] = p->blob;
	src[n++] = p->lifeline;
	for (int i = 0; i < p->n_jail_fds; i++)
		src[n++] = p->jail_fds[i];
	int tmp[3 + JAIL_FDS_MAX];
	for (int i = 0; i < n; i++)
		if ((tmp[i] = fcntl(src[i], F_DUPFD_CLOEXEC, Z_JAIL + n)) < 0)
			_exit(CHILD_EXIT_NOEXEC);
	for (int i = 0; i < n; i++)
		if (dup2(tmp[i], Z_CTL + i) < 0)
			_exit(CHILD_EXIT_NOEXEC);
	syscall(SYS_close_range, Z_CTL + n, ~0U, 0);
	setsid();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		_exit(CHILD_EXIT_NOEXEC);
	static char *const argv[] = { (char *)"toolcage-worker", (char *)WORKER_ARG, NULL };
	execve("/proc/self/exe", argv, p->envp);
	_exit(CHILD_EXIT_NOTFOUND);
}

enum { EXEC_STACK = 256 << 10 };

static pid_t start_process(struct exec_plan *plan, int *pidfd)
{
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid_t pid;
#ifdef __SANITIZE_ADDRESS__
	/* ASan cannot follow a second task on our memory (spawn.c): a copy,
	 * as fork makes, which also runs where clone3 is refused, given its
	 * pidfd by the clone itself (clone.c). The child allocates nothing
	 * before its exec, so it needs none of fork's handlers. */
	pid = sbx_fork_pidfd(pidfd);
	if (pid == 0)
		exec_worker(plan);
#else
	char *stack = mmap(NULL, EXEC_STACK, PROT_READ | PROT_WRITE,
	                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	pid = clone(exec_worker, stack + EXEC_STACK, CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD,
	            plan, pidfd);
	int e = errno;
	munmap(stack, EXEC_STACK);
	errno = e;
#endif
	int e2 = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = e2;
	return pid;
}

/* The jail as bytes in a sealed memfd, its descriptors in a list. */
static int make_blob(const struct sbx_jail *j, int *blob, int **fds, int *nfds)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = jail_pack(j, &buf, &len, fds, nfds);
	if (rc < 0)
		return rc;
	*blob = memfd_create("toolcage-jail", MFD_CLOEXEC);
	if (*blob < 0 || io_write_all(*blob, buf, len) < 0 || lseek(*blob, 0, SEEK_SET) < 0)
		rc = -errno;
	free(buf);
	return rc;
}

/* The worker is this program again, so it needs the libraries we were
 * loaded with: the loader's search path (an embedding program's or a
 * test's LD_LIBRARY_PATH) goes with it, unless the profile's environment
 * names its own. Nothing else of ours does; the worker's children get the
 * profile's environment alone (worker.c). */
static char **worker_env(char *const *envp)
{
	extern char **environ;
	static const char var[] = "LD_LIBRARY_PATH=";
	const char *ours = NULL;
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, var, sizeof var - 1))
			ours = *e;
	size_t n = 0;
	for (; envp[n]; n++)
		if (!strncmp(envp[n], var, sizeof var - 1))
			ours = NULL;
	char **env = calloc(n + 2, sizeof *env);
	if (env) {
		memcpy(env, envp, n * sizeof *env);
		env[n] = (char *)ours;
	}
	return env;
}

/* Whether the n descriptors a worker starts with can be copied where
 * exec_worker copies them: above Z_JAIL + n, so twice as many numbers as
 * it is given, in those this process leaves free (its whole table is the
 * new process's, and a server's connections, pipes and other jails'
 * descriptors take numbers too). Tried here with copies of fd, as the new
 * process would make them: were one refused there, the worker would end
 * before a word. 0, or -EMFILE with the reason in err. */
static int worker_fds_free(const struct sbx_jail *j, int fd, int n, struct sbx_error *err)
{
	int tmp[3 + JAIL_FDS_MAX], got = 0;
	while (got < n && (tmp[got] = fcntl(fd, F_DUPFD_CLOEXEC, Z_JAIL + n)) >= 0)
		got++;
	bool out = got < n && errno == EMFILE;
	while (got > 0)
		close(tmp[--got]);
	if (!out) /* another failure is the new process's to meet */
		return 0;
	char limit[200];
	nofile_said(limit, sizeof limit);
	sbx_err(err, 0,
	        "profile %s: its sandbox worker needs %d free descriptors numbered from %d "
	        "while it starts (the %d the jail holds for its Landlock rules and hidden "
	        "paths, and three more), and this process's own leave fewer under %s, or "
	        "grant whole directories rather than their entries",
	        j->name, n, Z_JAIL + n, jail_fds_held(j), limit);
	if (err)
		err->errnum = EMFILE;
	return -EMFILE;
}

static int zygote_start(struct sbx_jail *j, struct sbx_error *err)
{
	struct zygote *z = calloc(1, sizeof *z);
	int ctl[2] = { -1, -1 }, blob = -1, *fds = NULL, nfds = 0, lrd = -1, lwr = -1;
	char **env = worker_env(j->envp);
	int rc = z && env ? 0 : -ENOMEM;
	/* Without the parts (out of memory), each child loads the whole. */
	struct sbx_error split_err;
	(void)seccomp_split(j, &split_err);
	if (!rc)
		rc = make_blob(j, &blob, &fds, &nfds);
	if (!rc && nfds > JAIL_FDS_MAX) /* jail_fds_room keeps it there */
		rc = -E2BIG;
	if (!rc && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ctl) < 0)
		rc = -errno;
	if (!rc)
		rc = lifeline_get(&lrd, &lwr);
	bool said = false; /* err says why already */
	if (!rc && (rc = worker_fds_free(j, ctl[1], 3 + nfds, err)) < 0)
		said = true;
	if (!rc) {
		struct exec_plan plan = { .ctl = ctl[1],
			                  .blob = blob,
			                  .lifeline = lrd,
			                  .lifeline_wr = lwr,
			                  .jail_fds = fds,
			                  .n_jail_fds = nfds,
			                  .envp = env };
		z->pidfd = -1;
		z->pid = start_process(&plan, &z->pidfd);
		if (z->pid < 0)
			rc = -errno;
	}
	if (blob >= 0)
		close(blob);
	free(fds);
	free(env);
	if (ctl[1] >= 0)
		close(ctl[1]);
	if (rc) {
		if (ctl[0] >= 0)
			close(ctl[0]);
		free(z);
		if (said)
			return rc;
		return sbx_err(err, -rc,
		               "starting the sandbox worker (a clean image of this "
		               "program)");
	}
	z->ctl = ctl[0];
	z->refs = 1;
	j->zygote = z;
	return 0;
}

struct zygote *zygote_hold(struct zygote *z)
{
	if (z)
		z->refs++;
	return z;
}

/* The last hold: the worker has been retired, so it ends (or has ended) by
 * itself; it is killed to be sure, and reaped. */
void zygote_release(struct zygote *z)
{
	if (!z || --z->refs > 0)
		return;
	if (z->ctl >= 0)
		close(z->ctl);
	io_pidfd_kill(z->pidfd, SIGKILL);
	siginfo_t si;
	(void)io_pidfd_reap(z->pidfd, true, &si, NULL);
	close(z->pidfd);
	free(z);
}

void zygote_retire(struct sbx_jail *j)
{
	struct zygote *z = j->zygote;
	if (!z)
		return;
	j->zygote = NULL;
	if (z->ctl >= 0) {
		close(z->ctl);
		z->ctl = -1;
	}
	zygote_release(z);
}

bool zygote_proven(const struct zygote *z)
{
	return z && z->proven;
}

void zygote_mark_proven(struct zygote *z)
{
	if (z)
		z->proven = true;
}

void zygote_kill(struct zygote *z)
{
	if (!z)
		return;
	io_pidfd_kill(z->pidfd, SIGKILL);
	if (z->ctl >= 0) {
		close(z->ctl);
		z->ctl = -1;
	}
}

int zygote_fork(struct sbx_jail *j, const struct zygote_request *req, const int *fds, int nfds,
                struct zygote **held, struct sbx_error *err)
{
	*held = NULL;
	if (j->zygote && j->zygote->ctl < 0) /* killed: start another */
		zygote_retire(j);
	int rc = j->zygote ? 0 : zygote_start(j, err);
	if (rc < 0)
		return rc;
	if (!j->zygote)
		return sbx_err(err, ECHILD, "starting the sandbox worker");
	rc = io_send_fds(j->zygote->ctl, req, sizeof *req, fds, nfds);
	if (rc < 0) { /* it died: the next call starts another */
		zygote_kill(j->zygote);
		zygote_retire(j);
		return sbx_err(err, -rc, "asking the sandbox worker for a child");
	}
	*held = zygote_hold(j->zygote);
	return 0;
}
