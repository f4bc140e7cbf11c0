/* ns.c — namespace re-nesting.
 *
 * A new user namespace hands its creator a full set of capabilities inside
 * it, which opens kernel code (mount, netfilter, bpf ...) that an
 * unprivileged process should never reach; new mount, pid or net namespaces
 * need capabilities the child no longer has, unless it creates a user
 * namespace first. The sandbox denies unshare/setns and clone with namespace
 * flags in seccomp, and makes clone3 fail with ENOSYS (its flags live in
 * memory, where a filter cannot look; glibc then falls back to clone).
 *
 *   ns unshare_user | unshare_mnt | unshare_pid | unshare_net | unshare_ipc
 *   ns clone_newuser | clone_newns | clone_newpid     raw clone(2) with flags
 *   ns clone_newuser_hibits  CLONE_NEWUSER with bits above the low 32 set
 *                        (the kernel reads only the low 32; a filter
 *                        comparing all 64 with EQ would let it through)
 *   ns clone3_newuser    clone3 with CLONE_NEWUSER
 *   ns clone3_plain      clone3 with no flags (must be ENOSYS, not a fork)
 *   ns setns_user | setns_mnt    setns to our own namespace files
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/sched.h>
#include "verdict.h"

static void try_unshare(const char *a, int flags, const char *what)
{
	if (unshare(flags) == 0)
		ESCAPED(a, "unshare(%s) succeeded", what);
	BLOCKED(a, "unshare(%s): %s", what, errname(errno));
}

static void unshare_user(const char *a, int c, char **v)
{
	try_unshare(a, CLONE_NEWUSER, "CLONE_NEWUSER");
}
static void unshare_mnt(const char *a, int c, char **v)
{
	try_unshare(a, CLONE_NEWNS, "CLONE_NEWNS");
}
static void unshare_pid(const char *a, int c, char **v)
{
	try_unshare(a, CLONE_NEWPID, "CLONE_NEWPID");
}
static void unshare_net(const char *a, int c, char **v)
{
	try_unshare(a, CLONE_NEWNET, "CLONE_NEWNET");
}
static void unshare_ipc(const char *a, int c, char **v)
{
	try_unshare(a, CLONE_NEWIPC, "CLONE_NEWIPC");
}

/* Raw clone(2) behaves like fork when given no stack. */
static void try_clone(const char *a, unsigned long flags, const char *what)
{
	long pid = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0)
		_exit(0);
	if (pid > 0) {
		waitpid((pid_t)pid, NULL, 0);
		ESCAPED(a, "clone(%s) created pid %ld", what, pid);
	}
	BLOCKED(a, "clone(%s): %s", what, errname(errno));
}

static void clone_newuser(const char *a, int c, char **v)
{
	try_clone(a, CLONE_NEWUSER, "CLONE_NEWUSER");
}
static void clone_newns(const char *a, int c, char **v)
{
	try_clone(a, CLONE_NEWNS, "CLONE_NEWNS");
}
static void clone_newpid(const char *a, int c, char **v)
{
	try_clone(a, CLONE_NEWPID, "CLONE_NEWPID");
}

static void clone_newuser_hibits(const char *a, int c, char **v)
{
	try_clone(a, 0xffffff0000000000UL | CLONE_NEWUSER, "high bits|CLONE_NEWUSER");
}

static void try_clone3(const char *a, uint64_t flags, const char *what)
{
	struct clone_args ca;
	memset(&ca, 0, sizeof ca);
	ca.flags = flags;
	ca.exit_signal = SIGCHLD;
	long pid = syscall(SYS_clone3, &ca, sizeof ca);
	if (pid == 0)
		_exit(0);
	if (pid > 0) {
		waitpid((pid_t)pid, NULL, 0);
		ESCAPED(a, "clone3(%s) created pid %ld", what, pid);
	}
	BLOCKED(a, "clone3(%s): %s", what, errname(errno));
}

static void clone3_newuser(const char *a, int c, char **v)
{
	try_clone3(a, CLONE_NEWUSER, "CLONE_NEWUSER");
}
static void clone3_plain(const char *a, int c, char **v)
{
	try_clone3(a, 0, "no flags");
}

static void try_setns(const char *a, const char *file, int nstype)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		BLOCKED(a, "open %s: %s", file, errname(errno));
	if (setns(fd, nstype) == 0)
		ESCAPED(a, "setns(%s) succeeded", file);
	/* Joining the user namespace we are already in is EINVAL from the
	 * kernel: that answer means the filter let setns through. */
	if (errno == EINVAL)
		ESCAPED(a, "filter passed setns(%s) (kernel: EINVAL)", file);
	BLOCKED(a, "setns(%s): %s", file, errname(errno));
}

static void setns_user(const char *a, int c, char **v)
{
	try_setns(a, "/proc/self/ns/user", CLONE_NEWUSER);
}
static void setns_mnt(const char *a, int c, char **v)
{
	try_setns(a, "/proc/self/ns/mnt", CLONE_NEWNS);
}

int main(int argc, char **argv)
{
	static const struct attack t[] = {
		{ "unshare_user", unshare_user },
		{ "unshare_mnt", unshare_mnt },
		{ "unshare_pid", unshare_pid },
		{ "unshare_net", unshare_net },
		{ "unshare_ipc", unshare_ipc },
		{ "clone_newuser", clone_newuser },
		{ "clone_newns", clone_newns },
		{ "clone_newpid", clone_newpid },
		{ "clone3_newuser", clone3_newuser },
		{ "clone3_plain", clone3_plain },
		{ "setns_user", setns_user },
		{ "setns_mnt", setns_mnt },
		{ "clone_newuser_hibits", clone_newuser_hibits },
	};
	ATTACKS(t);
}
