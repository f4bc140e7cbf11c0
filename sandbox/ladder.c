/* ladder.c — which way each wall can be built here, asked of the kernel
 * once per process (the answers do not change while it runs).
 *
 * A profile's walls are built with the best mechanism the environment has
 * (docs/where-it-runs.md). Two answers need a try rather than a look:
 *  - root without CAP_SYS_ADMIN (a container's root, podman's and Docker's
 *    default) cannot make mount or pid namespaces itself, but may make a
 *    user namespace, in which it holds every capability: the jail's worker
 *    then becomes the tools' user first and makes one, as a user's does;
 *  - a fresh /proc can be refused where /proc is partly covered (a
 *    container's masked /proc: the kernel will not mount a proc that would
 *    reveal what the covers hide); the child then covers /proc with an
 *    empty read-only tmpfs: the tool sees no process at all.
 * The probes are children made as calls make theirs; they run nothing but
 * these system calls and exit. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

bool ladder_have_sys_admin(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &hdr, d) < 0)
		return false;
	return (d[CAP_SYS_ADMIN / 32].effective & (1u << (CAP_SYS_ADMIN % 32))) != 0;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* Why the probe's namespaces were refused: clone's errno, else EPERM (a
 * map or mount refused inside). */
static int ns_errno = EPERM;

int ladder_ns_errno(void)
{
	return ns_errno;
}

/* Exit codes of the probe child. */
enum { PROBE_OK = 0, PROBE_NS = 1, PROBE_PROC = 2 };

/* A child of its own user (when userns), pid and mount namespaces that
 * mounts proc where calls mount theirs. The maps name the child's own ids
 * only, which needs no privilege. */
static int probe_proc(bool userns)
{
	char uid_map[32], gid_map[32];
	snprintf(uid_map, sizeof uid_map, "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
	snprintf(gid_map, sizeof gid_map, "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
	unsigned long flags = CLONE_NEWPID | CLONE_NEWNS | (userns ? CLONE_NEWUSER : 0);
	long pid = syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);
	if (pid < 0) {
		ns_errno = errno;
		return PROBE_NS;
	}
	if (pid == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (userns && (write_str("/proc/self/setgroups", "deny") < 0 ||
		               write_str("/proc/self/uid_map", uid_map) < 0 ||
		               write_str("/proc/self/gid_map", gid_map) < 0))
			_exit(PROBE_NS);
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(PROBE_NS);
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			_exit(PROBE_PROC);
		_exit(PROBE_OK);
	}
	int st;
	while (waitpid((pid_t)pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : PROBE_NS;
}

/* 1: a fresh /proc can be mounted; 0: the kernel refuses proc there while
 * the namespaces themselves are made; -1: the namespaces are refused (the
 * spawn will say so in its own words). Cached per (userns). */
int ladder_proc_mountable(bool userns)
{
	static int cached[2] = { -2, -2 };
	int *c = &cached[userns];
	if (*c == -2) {
		int r = probe_proc(userns);
		*c = r == PROBE_OK ? 1 : r == PROBE_PROC ? 0 : -1;
	}
	return *c;
}
