/* clone.c — making a confined child's process: clone3 with its namespaces,
 * a pidfd and (v2) its cgroup in one call, or clone() with a stack of its
 * own where memory is shared or clone3 is refused; namespaces the kernel
 * refuses that the profile marks optional are dropped here. Used by
 * spawn.c for our own children and by worker.c for the worker's; the child
 * itself runs child_main (child.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

unsigned ns_req_bits(unsigned clone_flags)
{
	static const struct {
		unsigned clone, req;
	} map[] = {
		{ CLONE_NEWUSER, SBX_REQ_NS_USER },     { CLONE_NEWPID, SBX_REQ_NS_PID },
		{ CLONE_NEWNS, SBX_REQ_NS_MOUNT },      { CLONE_NEWIPC, SBX_REQ_NS_IPC },
		{ CLONE_NEWUTS, SBX_REQ_NS_UTS },       { CLONE_NEWNET, SBX_REQ_NS_NET },
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

static bool clone3_missing;      /* clone3 said ENOSYS (a seccomp policy): clone() */
static bool into_cgroup_missing; /* clone3 has no CLONE_INTO_CGROUP (before 5.7) */

bool sbx_clone3_works(void)
{
	return !clone3_missing;
}

static int pidfd_probe_child(void *arg)
{
	(void)arg;
	_exit(0);
}

/* Every child is watched, killed and reaped by its pidfd: where the
 * kernel gives none, nothing may start. Asked once per process, before
 * the first clone: pidfd_open of ourselves (Linux 5.3) says yes at the
 * cost of two syscalls. Its ENOSYS is not a no: Linux 5.2 has
 * CLONE_PIDFD alone, valgrind (3.19) knows the flag but not pidfd_open,
 * a seccomp policy may refuse the call. Then the flag itself is tried
 * on a child that exits at once: gVisor's runsc makes it and ignores the
 * flag (as Linux before 5.2 did), a filter may refuse it. */
bool clone_gives_pidfd(void)
{
	static int known; /* 0: not asked yet; 1 yes; -1 no */
	if (known)
		return known > 0;
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (fd >= 0) {
		close(fd);
		known = 1;
		return true;
	}
	enum { STACK = 64 << 10 };
	char *stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE,
	                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return false; /* asked again next time */
	int pidfd = -1;
	pid_t pid = clone(pidfd_probe_child, stack + STACK, CLONE_PIDFD | SIGCHLD, NULL, &pidfd);
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	munmap(stack, STACK);
	known = pid > 0 && pidfd >= 0 ? 1 : -1;
	if (pidfd >= 0)
		close(pidfd);
	return known > 0;
}

/* gVisor (runsc) ignores CLONE_PIDFD and has no pidfd_open: without a
 * pidfd nothing would watch, kill or reap a call's process. Said before
 * anything is made (jail.c), and should a clone still come back without
 * one (spawn.c). */
int clone_refuse_no_pidfd(const char *profile, struct sbx_error *err)
{
	sbx_err(err, 0,
	        "profile %s cannot run here: the kernel gives no pidfd, by which toolcage "
	        "watches the tool's process (gVisor's runsc ignores CLONE_PIDFD and has no "
	        "pidfd_open; Linux has them since 5.3); fix: run the container with runc "
	        "(or crun), not gVisor",
	        profile);
	if (err)
		err->errnum = ENOSYS;
	return -ENOSYS;
}

pid_t sbx_fork_pidfd(int *pidfd)
{
	/* fork() and then pidfd_open() would need pidfd_open, which is
	 * missing where CLONE_PIDFD is not (Linux 5.2, valgrind 3.19, a
	 * seccomp policy): the clone hands the pidfd over itself, as every
	 * child of ours is given its own. Raw, so without fork's handlers. */
	*pidfd = -1;
	pid_t pid = (pid_t)syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, NULL, pidfd, NULL, 0);
	if (pid > 0 && *pidfd < 0) {
		/* The flag ignored (gVisor's runsc, Linux before 5.2): nothing
		 * could watch it; clone_gives_pidfd refuses every call there. */
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		errno = ENOSYS;
		return -1;
	}
	return pid;
}

/* The child's stack when made with clone(): reserved, not committed (a
 * few pages are used by child.c; a builtin may use more). */
enum { CLONE_STACK = 8 << 20 };

/* Drops the namespaces the kernel refused that the profile marks optional. */
static void drop_namespaces(struct sbx_jail *j, unsigned drop)
{
	j->clone_ns &= ~drop;
	j->dropped |= ns_req_bits(drop);
	unsigned ns = jail_ns(j);
	j->userns = (ns & CLONE_NEWUSER) != 0;
	j->private_proc = (ns & CLONE_NEWPID) && (ns & CLONE_NEWNS);
	j->private_tmp = (ns & CLONE_NEWNS) != 0;
}

static pid_t clone_once(struct sbx_jail *j, struct child_plan *plan, char *stack, bool shared,
                        unsigned flags, int *pidfd, int cgroup_fd)
{
	pid_t pid;
	/* With CLONE_PARENT the exit signal is our parent's choice (SIGCHLD,
	 * zygote.c): clone3 wants 0 here, clone() ignores it. */
	int exit_signal = flags & CLONE_PARENT ? 0 : SIGCHLD;
	if (shared || clone3_missing) {
		/* Sharing our memory, a handler of ours run in the child would
		 * run on our memory: every signal waits until the child has
		 * reset the handlers (child.c, step 4), as posix_spawn does. */
		sigset_t all, old;
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, &old);
		int cflags = CLONE_PIDFD | exit_signal | (int)j->clone_ns | (int)flags |
		        (shared ? CLONE_VM | CLONE_VFORK : 0);
		pid = clone(shared_vm_entry, stack + CLONE_STACK, cflags, (void *)plan, pidfd);
		int e = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		errno = e;
		return pid;
	}
	struct clone_args ca;
	memset(&ca, 0, sizeof ca);
	ca.flags = CLONE_PIDFD | j->clone_ns | flags;
	ca.pidfd = (uint64_t)(uintptr_t)pidfd;
	ca.exit_signal = (uint64_t)exit_signal;
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
 * parent only. Used by the worker too, with CLONE_PARENT in flags. */
pid_t spawn_clone(struct sbx_jail *j, struct child_plan *plan, bool shared, unsigned flags,
                  int *pidfd, const struct cgroup_join *cj)
{
	char *stack = NULL;
	pid_t pid = -1;
	bool into = cj->clone_fd >= 0 && !into_cgroup_missing;
	for (int attempt = 0, tries = 0; attempt < 2 && tries < 4; tries++) {
		bool via_clone = shared || clone3_missing;
		into = into && !via_clone;
		plan->cgroup_fds[SBX_CGROUP_FDS] = into ? -1 : cj->v2_fd;
		if (via_clone && !stack) {
			stack = mmap(NULL, CLONE_STACK, PROT_READ | PROT_WRITE,
			             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1,
			             0);
			if (stack == MAP_FAILED)
				return -1;
		}
		pid = clone_once(j, plan, stack, shared, flags, pidfd, into ? cj->clone_fd : -1);
		if (pid >= 0)
			break;
		int e = errno;
		if (!via_clone && e == ENOSYS) {
			clone3_missing = true;
			continue;
		}
		/* CLONE_INTO_CGROUP unknown (E2BIG: 5.3-5.6) or refused: the
		 * child joins by itself, and says why if that fails too. */
		if (into &&
		    (e == E2BIG || e == EBUSY || e == EOPNOTSUPP || e == EACCES || e == ENODEV)) {
			into_cgroup_missing |= e == E2BIG;
			into = false;
			continue;
		}
		bool ns_refused = e == EPERM || e == EINVAL || e == ENOSPC || e == EUSERS;
		if (attempt++ || !ns_refused || !(j->clone_ns & j->optional_ns)) {
			errno = e;
			break;
		}
		drop_namespaces(j, j->clone_ns & j->optional_ns);
	}
	if (stack) {
		int e = errno;
		munmap(stack, CLONE_STACK);
		errno = e;
	}
	return pid;
}
