/* probe.c — what isolation this kernel and user can have (toolcage check).
 * Each namespace is tried for real with a short-lived child made as calls
 * make theirs (clone3, or clone() where clone3 is refused): a
 * sysctl can say yes while a security module says no. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

static int probe_child(void *arg)
{
	(void)arg;
	_exit(0);
}

/* A child with flags, made as clone.c makes them: clone3, or clone() where
 * clone3 answers ENOSYS (a seccomp policy may refuse it). *clone3 says
 * which worked. */
static bool try_clone(unsigned long flags, bool *clone3)
{
	struct clone_args ca;
	memset(&ca, 0, sizeof ca);
	ca.flags = flags;
	ca.exit_signal = SIGCHLD;
	long pid = syscall(SYS_clone3, &ca, sizeof ca);
	*clone3 = !(pid < 0 && errno == ENOSYS);
	if (pid == 0)
		_exit(0);
	if (!*clone3) {
		enum { STACK = 64 << 10 };
		char *stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE,
		                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (stack == MAP_FAILED)
			return false;
		pid = clone(probe_child, stack + STACK, (int)flags | SIGCHLD, NULL);
		int e = errno;
		munmap(stack, STACK);
		errno = e;
	}
	if (pid < 0)
		return false;
	int st;
	while (waitpid((pid_t)pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Whether a call's filter would hold here: a filter loads after
 * no_new_privs, its ERRNO answers and its KILL_PROCESS kills, the actions
 * every compiled profile uses. Linux says so when asked
 * (SECCOMP_GET_ACTION_AVAIL, 4.14). gVisor implements filters but answers
 * that with EINVAL: only then is it tried, in a child, whose kill would
 * otherwise be a crash of toolcage to a crash reporter (apport, systemd-
 * coredump) at every check. The program is written out here rather than
 * by libseccomp, which asks the kernel that same question first. */
static bool seccomp_filters_hold(void)
{
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		return false;
	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0,
	            &(unsigned){ SECCOMP_RET_KILL_PROCESS }) == 0)
		return true;
	if (errno != EINVAL && errno != ENOSYS)
		return false;
	pid_t pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		struct sock_filter code[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EHWPOISON),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpgid, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { .len = sizeof code / sizeof code[0], .filter = code };
		/* 1: a piped core_pattern ignores 0 (jail.c: plan_rlimits) */
		setrlimit(RLIMIT_CORE, &(struct rlimit){ 1, 1 });
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
			_exit(1);
		if (syscall(SYS_getppid) != -1 || errno != EHWPOISON)
			_exit(2);
		syscall(SYS_getpgid, 0);
		_exit(3); /* not killed */
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS;
}

void sbx_probe(struct sbx_features *f)
{
	memset(f, 0, sizeof *f);
	f->is_root = geteuid() == 0;
	f->seccomp = seccomp_filters_hold();
	f->landlock_abi = landlock_abi();
	static const struct {
		unsigned ns;
		unsigned long flag;
	} map[] = {
		{ SBX_NS_USER, CLONE_NEWUSER },     { SBX_NS_PID, CLONE_NEWPID },
		{ SBX_NS_MOUNT, CLONE_NEWNS },      { SBX_NS_IPC, CLONE_NEWIPC },
		{ SBX_NS_UTS, CLONE_NEWUTS },       { SBX_NS_NET, CLONE_NEWNET },
		{ SBX_NS_CGROUP, CLONE_NEWCGROUP },
	};
	/* Without root the others need a user namespace alongside. */
	unsigned long base = f->is_root ? 0 : CLONE_NEWUSER;
	f->clone3 = true;
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
		bool c3;
		if (try_clone(base | map[i].flag, &c3))
			f->namespaces |= map[i].ns;
		f->clone3 &= c3;
	}
	if (!f->is_root && !(f->namespaces & SBX_NS_USER))
		f->namespaces = 0;
	f->pid_max_per_ns = pid_max_per_namespace();
	f->cgroup_pids = cgroup_usable(CG_PIDS);
	f->cgroup_memory = cgroup_usable(CG_MEMORY);
	f->cgroup_cpu = cgroup_usable(CG_CPU);
	f->cgroup_pids_version = cgroup_version(CG_PIDS);
	f->cgroup_memory_version = cgroup_version(CG_MEMORY);
	f->cgroup_cpu_version = cgroup_version(CG_CPU);
	f->cgroup_pids_where = f->cgroup_pids ? cgroup_where(CG_PIDS) : cgroup_why(CG_PIDS);
	f->cgroup_memory_where = f->cgroup_memory ? cgroup_where(CG_MEMORY) : cgroup_why(CG_MEMORY);
	f->cgroup_cpu_where = f->cgroup_cpu ? cgroup_where(CG_CPU) : cgroup_why(CG_CPU);
	f->cgroup_fix = cgroup_fix();
}
