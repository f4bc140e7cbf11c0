/* probe.c — what isolation this kernel and user can have (toolcage check).
 * Each namespace is tried for real with a short-lived clone3 child: a
 * sysctl can say yes while a security module says no. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

static bool try_clone(unsigned long flags)
{
	struct clone_args ca;
	memset(&ca, 0, sizeof ca);
	ca.flags = flags;
	ca.exit_signal = SIGCHLD;
	long pid = syscall(SYS_clone3, &ca, sizeof ca);
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return false;
	int st;
	while (waitpid((pid_t)pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

void sbx_probe(struct sbx_features *f)
{
	memset(f, 0, sizeof *f);
	f->is_root = geteuid() == 0;
	f->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 &&
	             syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0,
	                     &(unsigned){ SECCOMP_RET_KILL_PROCESS }) == 0;
	f->landlock_abi = landlock_abi();
	static const struct { unsigned ns; unsigned long flag; } map[] = {
		{ SBX_NS_USER, CLONE_NEWUSER }, { SBX_NS_PID, CLONE_NEWPID },
		{ SBX_NS_MOUNT, CLONE_NEWNS }, { SBX_NS_IPC, CLONE_NEWIPC },
		{ SBX_NS_UTS, CLONE_NEWUTS }, { SBX_NS_NET, CLONE_NEWNET },
		{ SBX_NS_CGROUP, CLONE_NEWCGROUP },
	};
	/* Without root the others need a user namespace alongside. */
	unsigned long base = f->is_root ? 0 : CLONE_NEWUSER;
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (try_clone(base | map[i].flag))
			f->namespaces |= map[i].ns;
	if (!f->is_root && !(f->namespaces & SBX_NS_USER))
		f->namespaces = 0;
	f->cgroup_pids = cgroup_usable(false);
	f->pid_max_per_ns = pid_max_per_namespace();
	f->cgroup_memory = cgroup_usable(true);
	f->cgroup_pids_where = cgroup_where(false);
	f->cgroup_memory_where = cgroup_where(true);
}
