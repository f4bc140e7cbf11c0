/* test_seccomp_filter.c — table tests of the seccomp filter each profile
 * compiles to: (arch, syscall, args) -> action, run through a classic-BPF
 * interpreter (helper_bpf.c) on the exact bytes a child would load
 * (sbx_jail_filter, the test hook in sandbox/jail.c). One test also loads a
 * filter into a forked child and checks the kernel agrees with the
 * interpreter, so an interpreter bug cannot make the tables pass.
 * The syscall numbers are x86_64's: elsewhere every test skips. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <linux/audit.h>
#include <linux/fscrypt.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper_bpf.h"
#include "internal.h"
#include "profile.h"

#define ALLOW   SECCOMP_RET_ALLOW
#define KILL    SECCOMP_RET_KILL_PROCESS
#define ERR(e)  (SECCOMP_RET_ERRNO | (e))
#define X32_BIT 0x40000000

/* What the tables mean by "errno": refused without killing, with this
 * errno. Socket rules answer EACCES (like a Landlock or LSM refusal),
 * other denials EPERM. */
#define SOCK_DENY ERR(EACCES)
/* MSG_FASTOPEN where inet sockets exist: what a kernel with client TFO
 * turned off answers, so a TFO client falls back to connect(). */
#define FO_DENY ERR(EOPNOTSUPP)

enum { P_READ_ONLY, P_WRITE, P_NETWORK, P_DESTRUCTIVE, P_N };
static const char *const names[P_N] = { "read-only", "write", "network", "destructive" };

struct fixture {
	char ws[64];
	char why_not[600]; /* set when no jail can be compiled here */
	struct profile *prof[P_N];
	struct sbx_jail *jail[P_N];
};
static struct fixture fx;

static struct sbx_jail *jail_of(const char *text, struct profile **pp)
{
	struct tc_error terr = { 0 };
	struct sbx_error err = { 0 };
	struct sbx_jail *j = NULL;
	if (profile_parse(text, strlen(text), "test", pp, &terr) < 0)
		fail_msg("profile: %s: %s", terr.where, terr.msg);
	if (sbx_jail_new(&(*pp)->spec, fx.ws, &j, &err) < 0)
		fail_msg("jail: %s", err.msg);
	return j;
}

static int setup(void **state)
{
	(void)state;
	snprintf(fx.ws, sizeof fx.ws, "/tmp/tc-seccomp-XXXXXX");
	if (!mkdtemp(fx.ws))
		return -1;
	for (int i = 0; i < P_N; i++) {
		struct tc_error terr = { 0 };
		struct sbx_error err = { 0 };
		if (profile_load(names[i], NULL, &fx.prof[i], &terr) < 0) {
			fprintf(stderr, "profile %s: %s\n", names[i], terr.msg);
			return -1;
		}
		/* Under valgrind, for one, seccomp(2) is unknown, libseccomp
		 * cannot probe the kernel and refuses KILL_PROCESS. */
		if (sbx_jail_new(&fx.prof[i]->spec, fx.ws, &fx.jail[i], &err) < 0) {
			snprintf(fx.why_not, sizeof fx.why_not, "jail %s: %s", names[i], err.msg);
			return 0;
		}
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < P_N; i++) {
		sbx_jail_free(fx.jail[i]);
		profile_free(fx.prof[i]);
	}
	sbx_cleanup();
	rmdir(fx.ws);
	return 0;
}

/* Skips (fails with TC_MUST_WORK=1) when the filters cannot be built. */
static void need_filters(void)
{
	if (!fx.why_not[0])
		return;
	const char *must = getenv("TC_MUST_WORK");
	if (must && !strcmp(must, "1"))
		fail_msg("cannot compile filters and TC_MUST_WORK=1: %s", fx.why_not);
	print_message("skip: cannot compile filters here: %s\n", fx.why_not);
	skip();
}

static uint32_t run_prog(const struct sock_filter *prog, unsigned short len,
                         const struct seccomp_data *d)
{
	uint32_t ret = 0;
	char err[160];
	if (bpf_run(prog, len, d, &ret, err, sizeof err) < 0)
		fail_msg("filter does not run: %s", err);
	return ret;
}

/* What the kernel answers for a process with both parts (the worker's
 * first): the lowest action as a signed value, the later filter's on a
 * tie (kernel/seccomp.c, seccomp_run_filters). */
static uint32_t run_parts(struct sbx_jail *j, const struct seccomp_data *d)
{
	unsigned short wl, cl;
	const struct sock_filter *w = sbx_jail_filter_part(j, FILTER_WORKER, &wl);
	const struct sock_filter *c = sbx_jail_filter_part(j, FILTER_CHILD, &cl);
	assert_non_null(w);
	assert_non_null(c);
	uint32_t rw = run_prog(w, wl, d), rc = run_prog(c, cl, d);
	return (int32_t)bpf_action(rw) < (int32_t)bpf_action(rc) ? rw : rc;
}

/* The whole filter's answer; where the filter splits for a worker, its
 * two parts together must give the same answer (every table below
 * checks the split too). */
static uint32_t run(struct sbx_jail *j, uint32_t arch, int nr, const uint64_t a[6])
{
	unsigned short len = 0;
	const struct sock_filter *prog = sbx_jail_filter(j, &len);
	assert_non_null(prog);
	struct seccomp_data d;
	memset(&d, 0, sizeof d);
	d.nr = nr;
	d.arch = arch;
	d.instruction_pointer = 0x401000;
	for (int i = 0; i < 6; i++)
		d.args[i] = a ? a[i] : 0;
	uint32_t ret = run_prog(prog, len, &d);
	if (j->filter_spec) {
		uint32_t parts = run_parts(j, &d);
		if (parts != ret)
			fail_msg("arch 0x%x syscall %d: the parts answer 0x%08x, the whole 0x%08x",
			         arch, nr, parts, ret);
	}
	return ret;
}

struct row {
	const char *what;
	uint32_t arch;
	int nr;
	uint64_t a[6];
	uint32_t want;
};

static const char *action_name(uint32_t r, char *buf, size_t len)
{
	switch (bpf_action(r)) {
	case SECCOMP_RET_ALLOW: return "ALLOW";
	case SECCOMP_RET_KILL_PROCESS: return "KILL_PROCESS";
	case SECCOMP_RET_KILL_THREAD: return "KILL_THREAD";
	case SECCOMP_RET_TRAP: return "TRAP";
	case SECCOMP_RET_ERRNO:
		snprintf(buf, len, "ERRNO(%s)", strerrorname_np((int)bpf_data(r)) ?: "?");
		return buf;
	}
	snprintf(buf, len, "0x%08x", r);
	return buf;
}

static void check_jail(struct sbx_jail *j, const char *name, const struct row *rows, size_t n)
{
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t got = run(j, rows[i].arch, rows[i].nr, rows[i].a);
		if (got != rows[i].want) {
			char b1[64], b2[64];
			print_error("%s: %s: got %s, want %s\n", name, rows[i].what,
			            action_name(got, b1, sizeof b1),
			            action_name(rows[i].want, b2, sizeof b2));
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void check_rows(int p, const struct row *rows, size_t n)
{
	check_jail(fx.jail[p], names[p], rows, n);
}

#ifdef __x86_64__
#define SKIP_UNLESS_X86_64() ((void)0)
#define X86                  AUDIT_ARCH_X86_64

/* Holds in every shipped profile. */
static const struct row every_profile[] = {
	{ "ptrace", X86, __NR_ptrace, { 16, 1 }, ERR(EPERM) },
	{ "process_vm_readv", X86, __NR_process_vm_readv, { 1 }, ERR(EPERM) },
	{ "process_vm_writev", X86, __NR_process_vm_writev, { 1 }, ERR(EPERM) },
	{ "pidfd_getfd", X86, __NR_pidfd_getfd, { 3, 4, 0 }, ERR(EPERM) },
	{ "i386 getpid", AUDIT_ARCH_I386, 20, { 0 }, KILL },
	{ "i386 read (nr 3)", AUDIT_ARCH_I386, 3, { 0 }, KILL },
	{ "i386 socketcall", AUDIT_ARCH_I386, 102, { 1 }, KILL },
	{ "x32 read", X86, __NR_read | X32_BIT, { 0 }, KILL },
	{ "x32 ptrace", X86, 521 | X32_BIT, { 0 }, KILL },
	{ "x32 bit alone", X86, X32_BIT, { 0 }, KILL },
	{ "unknown arch", 0x12345678, __NR_read, { 0 }, KILL },
	{ "clone CLONE_NEWUSER", X86, __NR_clone, { CLONE_NEWUSER | SIGCHLD }, ERR(EPERM) },
	{ "clone CLONE_NEWNS", X86, __NR_clone, { CLONE_NEWNS | SIGCHLD }, ERR(EPERM) },
	{ "clone CLONE_NEWPID", X86, __NR_clone, { CLONE_NEWPID }, ERR(EPERM) },
	{ "clone CLONE_NEWNET", X86, __NR_clone, { CLONE_NEWNET }, ERR(EPERM) },
	{ "clone CLONE_NEWUTS", X86, __NR_clone, { CLONE_NEWUTS }, ERR(EPERM) },
	{ "clone CLONE_NEWIPC", X86, __NR_clone, { CLONE_NEWIPC }, ERR(EPERM) },
	{ "clone CLONE_NEWCGROUP", X86, __NR_clone, { CLONE_NEWCGROUP }, ERR(EPERM) },
	{ "clone fork flags + NEWUSER",
	  X86,
	  __NR_clone,
	  { CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD | CLONE_NEWUSER },
	  ERR(EPERM) },
	{ "clone NEWUSER with high bits",
	  X86,
	  __NR_clone,
	  { 0xffffffff00000000ULL | CLONE_NEWUSER },
	  ERR(EPERM) },
	{ "clone fork flags",
	  X86,
	  __NR_clone,
	  { CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD },
	  ALLOW },
	{ "clone thread flags",
	  X86,
	  __NR_clone,
	  { CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
	    CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID },
	  ALLOW },
	{ "clone vfork flags", X86, __NR_clone, { CLONE_VM | CLONE_VFORK | SIGCHLD }, ALLOW },
	{ "clone CLONE_PARENT", X86, __NR_clone, { CLONE_PARENT | SIGCHLD }, ERR(EPERM) },
	{ "clone CLONE_PARENT with thread flags",
	  X86,
	  __NR_clone,
	  { CLONE_VM | CLONE_SIGHAND | CLONE_THREAD | CLONE_PARENT },
	  ERR(EPERM) },
	{ "clone3", X86, __NR_clone3, { 0x1000, 88 }, ERR(ENOSYS) },
	{ "unshare", X86, __NR_unshare, { CLONE_NEWUSER }, ERR(EPERM) },
	{ "unshare(0)", X86, __NR_unshare, { 0 }, ERR(EPERM) },
	{ "setns", X86, __NR_setns, { 3, 0 }, ERR(EPERM) },
	{ "ioctl TIOCSTI", X86, __NR_ioctl, { 0, TIOCSTI }, ERR(EPERM) },
	{ "ioctl TIOCSTI high bits", X86, __NR_ioctl, { 0, 0xffffffff00005412ULL }, ERR(EPERM) },
	{ "ioctl TIOCSTI other high bits",
	  X86,
	  __NR_ioctl,
	  { 0, 0x0000000100005412ULL },
	  ERR(EPERM) },
	{ "ioctl TIOCLINUX", X86, __NR_ioctl, { 0, TIOCLINUX }, ERR(EPERM) },
	{ "ioctl TIOCLINUX high bits", X86, __NR_ioctl, { 0, 0xdeadbeef0000541cULL }, ERR(EPERM) },
	{ "ioctl TCGETS", X86, __NR_ioctl, { 0, TCGETS }, ALLOW },
	{ "ioctl FS_IOC_ADD_ENCRYPTION_KEY",
	  X86,
	  __NR_ioctl,
	  { 3, FS_IOC_ADD_ENCRYPTION_KEY },
	  ERR(EPERM) },
	{ "ioctl FS_IOC_ADD_ENCRYPTION_KEY high bits",
	  X86,
	  __NR_ioctl,
	  { 3, 0xffffffff00000000ULL | FS_IOC_ADD_ENCRYPTION_KEY },
	  ERR(EPERM) },
	{ "ioctl FS_IOC_REMOVE_ENCRYPTION_KEY",
	  X86,
	  __NR_ioctl,
	  { 3, FS_IOC_REMOVE_ENCRYPTION_KEY },
	  ERR(EPERM) },
	{ "ioctl FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS",
	  X86,
	  __NR_ioctl,
	  { 3, FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS },
	  ERR(EPERM) },
	{ "setrlimit RLIMIT_CORE", X86, __NR_setrlimit, { RLIMIT_CORE, 0x1000 }, ERR(0) },
	{ "setrlimit RLIMIT_CORE high bits",
	  X86,
	  __NR_setrlimit,
	  { 0x100000000ULL | RLIMIT_CORE, 0x1000 },
	  ERR(0) },
	{ "setrlimit RLIMIT_NOFILE", X86, __NR_setrlimit, { RLIMIT_NOFILE, 0x1000 }, ALLOW },
	{ "prlimit64 set RLIMIT_CORE", X86, __NR_prlimit64, { 0, RLIMIT_CORE, 0x1000, 0 }, ERR(0) },
	{ "prlimit64 set RLIMIT_CORE of a child",
	  X86,
	  __NR_prlimit64,
	  { 7, 0xffffffff00000000ULL | RLIMIT_CORE, 0x1000, 0 },
	  ERR(0) },
	{ "prlimit64 set and get RLIMIT_CORE",
	  X86,
	  __NR_prlimit64,
	  { 0, RLIMIT_CORE, 0x1000, 0x2000 },
	  ERR(EPERM) },
	{ "prlimit64 get RLIMIT_CORE", X86, __NR_prlimit64, { 0, RLIMIT_CORE, 0, 0x2000 }, ALLOW },
	{ "prlimit64 set RLIMIT_NOFILE",
	  X86,
	  __NR_prlimit64,
	  { 0, RLIMIT_NOFILE, 0x1000, 0 },
	  ALLOW },
	{ "ioctl FS_IOC_GET_ENCRYPTION_KEY_STATUS",
	  X86,
	  __NR_ioctl,
	  { 3, FS_IOC_GET_ENCRYPTION_KEY_STATUS },
	  ALLOW },
	{ "fcntl F_SETLEASE", X86, __NR_fcntl, { 3, F_SETLEASE, F_RDLCK }, ERR(EPERM) },
	{ "fcntl F_SETLEASE high bits", X86, __NR_fcntl, { 3, 0xffffffff00000400ULL }, ERR(EPERM) },
	{ "fcntl F_NOTIFY", X86, __NR_fcntl, { 3, F_NOTIFY, DN_CREATE }, ERR(EPERM) },
	{ "fcntl F_GETLEASE", X86, __NR_fcntl, { 3, F_GETLEASE }, ALLOW },
	{ "fcntl F_SETLK", X86, __NR_fcntl, { 3, F_SETLK, 0 }, ALLOW },
	{ "fcntl F_SETFD", X86, __NR_fcntl, { 3, F_SETFD, FD_CLOEXEC }, ALLOW },
	{ "ioctl FIONREAD", X86, __NR_ioctl, { 0, FIONREAD }, ALLOW },
	{ "personality(0)", X86, __NR_personality, { 0 }, ALLOW },
	{ "personality(ADDR_NO_RANDOMIZE)", X86, __NR_personality, { 0x0040000 }, ERR(EPERM) },
	{ "personality(READ_IMPLIES_EXEC)",
	  X86,
	  __NR_personality,
	  { READ_IMPLIES_EXEC },
	  ERR(EPERM) },
	{ "personality(PER_LINUX32)", X86, __NR_personality, { PER_LINUX32 }, ERR(EPERM) },
	{ "personality high bits", X86, __NR_personality, { 0x100000000ULL }, ERR(EPERM) },
	{ "socket AF_UNIX", X86, __NR_socket, { AF_UNIX, SOCK_STREAM, 0 }, SOCK_DENY },
	{ "socket AF_UNIX dgram",
	  X86,
	  __NR_socket,
	  { AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0 },
	  SOCK_DENY },
	{ "socket AF_PACKET", X86, __NR_socket, { AF_PACKET, SOCK_RAW, 0 }, SOCK_DENY },
	{ "socket AF_VSOCK", X86, __NR_socket, { AF_VSOCK, SOCK_STREAM, 0 }, SOCK_DENY },
	{ "socket AF_BLUETOOTH", X86, __NR_socket, { AF_BLUETOOTH, SOCK_STREAM, 0 }, SOCK_DENY },
	{ "socket AF_ALG", X86, __NR_socket, { AF_ALG, SOCK_SEQPACKET, 0 }, SOCK_DENY },
	{ "socket domain AF_MAX", X86, __NR_socket, { AF_MAX, SOCK_STREAM, 0 }, SOCK_DENY },
	{ "socket domain 0xffffffff", X86, __NR_socket, { 0xffffffff, SOCK_STREAM, 0 }, SOCK_DENY },
	{ "socket domain high bits + AF_INET",
	  X86,
	  __NR_socket,
	  { 0x100000002ULL, SOCK_STREAM, 0 },
	  SOCK_DENY },
	{ "socket domain high bits + AF_UNIX",
	  X86,
	  __NR_socket,
	  { 0x8000000000000001ULL, SOCK_STREAM, 0 },
	  SOCK_DENY },
	{ "socketpair AF_UNIX", X86, __NR_socketpair, { AF_UNIX, SOCK_STREAM, 0, 0x1000 }, ALLOW },
	{ "socketpair AF_INET",
	  X86,
	  __NR_socketpair,
	  { AF_INET, SOCK_STREAM, 0, 0x1000 },
	  SOCK_DENY },
	{ "socketpair AF_UNIX high bits",
	  X86,
	  __NR_socketpair,
	  { 0x100000001ULL, SOCK_STREAM, 0, 0x1000 },
	  SOCK_DENY },
	/* A datagram pair can sendto() any path-named unix socket of the host
	 * (Landlock has no rule for those): refused without the "unix" family,
	 * whatever the flags. AF_UNIX turns SOCK_RAW into SOCK_DGRAM. Stream
	 * and seqpacket pairs stay bound to their peer. */
	{ "socketpair AF_UNIX dgram",
	  X86,
	  __NR_socketpair,
	  { AF_UNIX, SOCK_DGRAM, 0, 0x1000 },
	  SOCK_DENY },
	{ "socketpair AF_UNIX dgram nonblock cloexec",
	  X86,
	  __NR_socketpair,
	  { AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, 0x1000 },
	  SOCK_DENY },
	{ "socketpair AF_UNIX dgram, type high bits",
	  X86,
	  __NR_socketpair,
	  { AF_UNIX, 0xffffffff00000000ULL | SOCK_DGRAM, 0, 0x1000 },
	  SOCK_DENY },
	{ "socketpair AF_UNIX raw (a dgram socket)",
	  X86,
	  __NR_socketpair,
	  { AF_UNIX, SOCK_RAW, 0, 0x1000 },
	  SOCK_DENY },
	{ "socketpair AF_UNIX raw cloexec",
	  X86,
	  __NR_socketpair,
	  { AF_UNIX, SOCK_RAW | SOCK_CLOEXEC, 0, 0x1000 },
	  SOCK_DENY },
	{ "socketpair AF_UNIX stream nonblock cloexec",
	  X86,
	  __NR_socketpair,
	  { AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, 0x1000 },
	  ALLOW },
	{ "socketpair AF_UNIX seqpacket",
	  X86,
	  __NR_socketpair,
	  { AF_UNIX, SOCK_SEQPACKET, 0, 0x1000 },
	  ALLOW },
	{ "socketpair AF_UNIX seqpacket cloexec",
	  X86,
	  __NR_socketpair,
	  { AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, 0x1000 },
	  ALLOW },
	{ "sendto flags 0", X86, __NR_sendto, { 3, 0x1000, 10, 0, 0, 0 }, ALLOW },
	{ "sendto MSG_NOSIGNAL", X86, __NR_sendto, { 3, 0x1000, 10, MSG_NOSIGNAL, 0, 0 }, ALLOW },
	{ "sendmsg MSG_DONTWAIT", X86, __NR_sendmsg, { 3, 0x1000, MSG_DONTWAIT }, ALLOW },
	{ "sendmmsg flags 0", X86, __NR_sendmmsg, { 3, 0x1000, 2, 0 }, ALLOW },
	{ "mount", X86, __NR_mount, { 0 }, ERR(EPERM) },
	{ "umount2", X86, __NR_umount2, { 0 }, ERR(EPERM) },
	{ "fsopen", X86, __NR_fsopen, { 0 }, ERR(EPERM) },
	{ "move_mount", X86, __NR_move_mount, { 0 }, ERR(EPERM) },
	{ "open_tree", X86, __NR_open_tree, { 0 }, ERR(EPERM) },
	{ "mount_setattr", X86, __NR_mount_setattr, { 0 }, ERR(EPERM) },
	{ "pivot_root", X86, __NR_pivot_root, { 0 }, ERR(EPERM) },
	{ "chroot", X86, __NR_chroot, { 0 }, ERR(EPERM) },
	{ "bpf", X86, __NR_bpf, { 0 }, ERR(EPERM) },
	{ "io_uring_setup", X86, __NR_io_uring_setup, { 8, 0 }, ERR(EPERM) },
	{ "io_uring_enter", X86, __NR_io_uring_enter, { 0 }, ERR(EPERM) },
	{ "io_uring_register", X86, __NR_io_uring_register, { 0 }, ERR(EPERM) },
	/* native AIO contexts: a host-wide limit (fs.aio-max-nr) */
	{ "io_setup", X86, __NR_io_setup, { 16, 0x1000 }, ERR(EPERM) },
	{ "io_submit", X86, __NR_io_submit, { 0 }, ERR(EPERM) },
	{ "io_getevents", X86, __NR_io_getevents, { 0 }, ERR(EPERM) },
	{ "io_pgetevents", X86, __NR_io_pgetevents, { 0 }, ERR(EPERM) },
	{ "io_cancel", X86, __NR_io_cancel, { 0 }, ERR(EPERM) },
	{ "io_destroy", X86, __NR_io_destroy, { 0 }, ERR(EPERM) },
	/* no shipped profile has the unix family: a bound socketpair end
	 * would take an abstract name of the host's (any length) */
	{ "bind, an abstract name", X86, __NR_bind, { 3, 0x1000, 20 }, SOCK_DENY },
	{ "bind, netlink's length", X86, __NR_bind, { 3, 0x1000, 12 }, SOCK_DENY },
	{ "bind, inet's length", X86, __NR_bind, { 3, 0x1000, 16 }, SOCK_DENY },
	{ "perf_event_open", X86, __NR_perf_event_open, { 0 }, ERR(EPERM) },
	{ "userfaultfd", X86, __NR_userfaultfd, { 0 }, ERR(EPERM) },
	{ "keyctl", X86, __NR_keyctl, { 0 }, ERR(EPERM) },
	/* a watch names what others make or open where Landlock grants nothing */
	{ "inotify_init", X86, __NR_inotify_init, { 0 }, ERR(EPERM) },
	{ "inotify_init1", X86, __NR_inotify_init1, { IN_CLOEXEC }, ERR(EPERM) },
	{ "fanotify_init", X86, __NR_fanotify_init, { 0xc00, 0 }, ERR(EPERM) },
	{ "add_key", X86, __NR_add_key, { 0 }, ERR(EPERM) },
	{ "request_key", X86, __NR_request_key, { 0 }, ERR(EPERM) },
	{ "open_by_handle_at", X86, __NR_open_by_handle_at, { 0 }, ERR(EPERM) },
	{ "name_to_handle_at", X86, __NR_name_to_handle_at, { 0 }, ERR(EPERM) },
	{ "kexec_load", X86, __NR_kexec_load, { 0 }, ERR(EPERM) },
	{ "kexec_file_load", X86, __NR_kexec_file_load, { 0 }, ERR(EPERM) },
	{ "init_module", X86, __NR_init_module, { 0 }, ERR(EPERM) },
	{ "finit_module", X86, __NR_finit_module, { 0 }, ERR(EPERM) },
	{ "delete_module", X86, __NR_delete_module, { 0 }, ERR(EPERM) },
	{ "reboot", X86, __NR_reboot, { 0 }, ERR(EPERM) },
	{ "swapon", X86, __NR_swapon, { 0 }, ERR(EPERM) },
	{ "kcmp", X86, __NR_kcmp, { 0 }, ERR(EPERM) },
	{ "statmount (457)", X86, 457, { 0 }, ERR(EPERM) },
	{ "listmount (458)", X86, 458, { 0 }, ERR(EPERM) },
	{ "read", X86, __NR_read, { 0, 0x1000, 10 }, ALLOW },
	{ "write", X86, __NR_write, { 1, 0x1000, 10 }, ALLOW },
	{ "openat", X86, __NR_openat, { (uint64_t)AT_FDCWD, 0x1000, 0 }, ALLOW },
	{ "execve", X86, __NR_execve, { 0x1000, 0x2000, 0x3000 }, ALLOW },
	{ "exit_group", X86, __NR_exit_group, { 0 }, ALLOW },
	{ "mmap", X86, __NR_mmap, { 0, 4096, 3, 0x22, (uint64_t)-1, 0 }, ALLOW },
	{ "kill", X86, __NR_kill, { 1, 15 }, ALLOW },
	{ "setsid", X86, __NR_setsid, { 0 }, ALLOW },
	{ "prctl", X86, __NR_prctl, { PR_SET_NAME, 0x1000 }, ALLOW },
	/* no ipc namespace in the shipped profiles: the host's System V IPC
	 * and message queues are out of reach */
	{ "shmget", X86, __NR_shmget, { 0, 4096, 0 }, ERR(EPERM) },
	{ "shmat", X86, __NR_shmat, { 1, 0, 0 }, ERR(EPERM) },
	{ "shmctl", X86, __NR_shmctl, { 1, 2, 0 }, ERR(EPERM) },
	{ "semget", X86, __NR_semget, { 0, 1, 0 }, ERR(EPERM) },
	{ "semop", X86, __NR_semop, { 1, 0, 0 }, ERR(EPERM) },
	{ "semtimedop", X86, __NR_semtimedop, { 1, 0, 0 }, ERR(EPERM) },
	{ "semctl", X86, __NR_semctl, { 1, 0, 0 }, ERR(EPERM) },
	{ "msgget", X86, __NR_msgget, { 0, 0 }, ERR(EPERM) },
	{ "msgsnd", X86, __NR_msgsnd, { 1, 0, 0 }, ERR(EPERM) },
	{ "msgrcv", X86, __NR_msgrcv, { 1, 0, 0 }, ERR(EPERM) },
	{ "msgctl", X86, __NR_msgctl, { 1, 0, 0 }, ERR(EPERM) },
	{ "mq_open", X86, __NR_mq_open, { 0x1000, 0x40, 0600 }, ERR(EPERM) },
	{ "mq_unlink", X86, __NR_mq_unlink, { 0x1000 }, ERR(EPERM) },
	{ "mq_timedsend", X86, __NR_mq_timedsend, { 3 }, ERR(EPERM) },
	{ "mq_timedreceive", X86, __NR_mq_timedreceive, { 3 }, ERR(EPERM) },
	{ "mq_notify", X86, __NR_mq_notify, { 3 }, ERR(EPERM) },
	{ "mq_getsetattr", X86, __NR_mq_getsetattr, { 3 }, ERR(EPERM) },
	{ "shmdt (detaches only what it attached)", X86, __NR_shmdt, { 0x1000 }, ALLOW },
};

/* Set-id files: refused where the profile writes host paths (write,
 * destructive). read-only and network write none and require their mount
 * namespace (every host mount read-only), so they go without these rules
 * (seccomp.c, host_read_only) and the mode is the kernel's to refuse. */
#define SETID_ROWS(D)                                                                              \
	{ "chmod 04755", X86, __NR_chmod, { 0x1000, 04755 }, D },                                  \
	        { "chmod 02755", X86, __NR_chmod, { 0x1000, 02755 }, D },                          \
	        { "chmod 0755", X86, __NR_chmod, { 0x1000, 0755 }, ALLOW },                        \
	        { "chmod 01777 (sticky)", X86, __NR_chmod, { 0x1000, 01777 }, ALLOW },             \
	        { "fchmod 04700", X86, __NR_fchmod, { 3, 04700 }, D },                             \
	        { "fchmodat 06755",                                                                \
		  X86,                                                                             \
		  __NR_fchmodat,                                                                   \
		  { (uint64_t)AT_FDCWD, 0x1000, 06755 },                                           \
		  D },                                                                             \
	        { "fchmodat 0644",                                                                 \
		  X86,                                                                             \
		  __NR_fchmodat,                                                                   \
		  { (uint64_t)AT_FDCWD, 0x1000, 0644 },                                            \
		  ALLOW },                                                                         \
	        { "fchmodat2 (452) 04755",                                                         \
		  X86,                                                                             \
		  452,                                                                             \
		  { (uint64_t)AT_FDCWD, 0x1000, 04755, 0 },                                        \
		  D },                                                                             \
	        { "openat O_CREAT 04755",                                                          \
		  X86,                                                                             \
		  __NR_openat,                                                                     \
		  { (uint64_t)AT_FDCWD, 0x1000, O_CREAT | O_WRONLY, 04755 },                       \
		  D },                                                                             \
	        { "openat O_CREAT 0644",                                                           \
		  X86,                                                                             \
		  __NR_openat,                                                                     \
		  { (uint64_t)AT_FDCWD, 0x1000, O_CREAT | O_WRONLY, 0644 },                        \
		  ALLOW },                                                                         \
	        { "open O_CREAT 02755", X86, __NR_open, { 0x1000, O_CREAT, 02755 }, D },           \
	        { "creat 04755", X86, __NR_creat, { 0x1000, 04755 }, D },                          \
	        { "mknodat S_ISUID",                                                               \
		  X86,                                                                             \
		  __NR_mknodat,                                                                    \
		  { (uint64_t)AT_FDCWD, 0x1000, S_IFREG | 04755, 0 },                              \
		  D },

static const struct row setid_refused[] = { SETID_ROWS(ERR(EPERM)) };
static const struct row setid_left_to_mounts[] = { SETID_ROWS(ALLOW) };

/* read-only, write and destructive: no sockets but socketpair. */
static const struct row non_network[] = {
	{ "socket AF_INET", X86, __NR_socket, { AF_INET, SOCK_STREAM, 0 }, SOCK_DENY },
	{ "socket AF_INET dgram", X86, __NR_socket, { AF_INET, SOCK_DGRAM, 0 }, SOCK_DENY },
	{ "socket AF_INET6", X86, __NR_socket, { AF_INET6, SOCK_STREAM, 0 }, SOCK_DENY },
	{ "socket AF_NETLINK ROUTE",
	  X86,
	  __NR_socket,
	  { AF_NETLINK, SOCK_RAW, NETLINK_ROUTE },
	  SOCK_DENY },
	{ "socket AF_NETLINK dgram ROUTE",
	  X86,
	  __NR_socket,
	  { AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE },
	  SOCK_DENY },
	/* No inet socket to listen on (a socketpair's cannot): no rule. */
	{ "listen", X86, __NR_listen, { 3, 1 }, ALLOW },
	/* No inet socket for MSG_FASTOPEN to act on: no rule, a shorter filter. */
	{ "sendto MSG_FASTOPEN (no inet socket)",
	  X86,
	  __NR_sendto,
	  { 3, 0x1000, 10, MSG_FASTOPEN, 0x2000, 16 },
	  ALLOW },
	{ "sendmsg MSG_FASTOPEN (no inet socket)",
	  X86,
	  __NR_sendmsg,
	  { 3, 0x1000, MSG_FASTOPEN },
	  ALLOW },
};

static const struct row network_only[] = {
	{ "socket AF_INET stream", X86, __NR_socket, { AF_INET, SOCK_STREAM, 0 }, ALLOW },
	{ "socket AF_INET stream cloexec",
	  X86,
	  __NR_socket,
	  { AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0 },
	  ALLOW },
	{ "socket AF_INET6 stream", X86, __NR_socket, { AF_INET6, SOCK_STREAM, 0 }, ALLOW },
	/* listen() on an unbound socket binds a port past Landlock's rule */
	{ "listen", X86, __NR_listen, { 3, 1 }, SOCK_DENY },
	{ "socket AF_INET stream TCP",
	  X86,
	  __NR_socket,
	  { AF_INET, SOCK_STREAM, IPPROTO_TCP },
	  ALLOW },
	/* UDP: in the profile's network namespace a datagram reaches nothing
	 * but toolcage's DNS responder (docs/network.md), so network says
	 * "udp": true. */
	{ "socket AF_INET dgram", X86, __NR_socket, { AF_INET, SOCK_DGRAM, 0 }, ALLOW },
	{ "socket AF_INET dgram UDP",
	  X86,
	  __NR_socket,
	  { AF_INET, SOCK_DGRAM, IPPROTO_UDP },
	  ALLOW },
	{ "socket AF_INET6 dgram",
	  X86,
	  __NR_socket,
	  { AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0 },
	  ALLOW },
	{ "socket AF_NETLINK ROUTE (family not listed)",
	  X86,
	  __NR_socket,
	  { AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE },
	  SOCK_DENY },
	{ "socket AF_INET ping (dgram ICMP)",
	  X86,
	  __NR_socket,
	  { AF_INET, SOCK_DGRAM, IPPROTO_ICMP },
	  SOCK_DENY },
	{ "socket AF_INET SCTP",
	  X86,
	  __NR_socket,
	  { AF_INET, SOCK_STREAM, IPPROTO_SCTP },
	  SOCK_DENY },
	{ "socket AF_INET MPTCP", X86, __NR_socket, { AF_INET, SOCK_STREAM, 262 }, SOCK_DENY },
	{ "socket AF_INET TCP, protocol high bits",
	  X86,
	  __NR_socket,
	  { AF_INET, SOCK_STREAM, 0x100000006ULL },
	  SOCK_DENY },
	{ "socket AF_INET SOCK_RAW",
	  X86,
	  __NR_socket,
	  { AF_INET, SOCK_RAW, IPPROTO_ICMP },
	  SOCK_DENY },
	{ "socket AF_INET SOCK_RAW|CLOEXEC",
	  X86,
	  __NR_socket,
	  { AF_INET, SOCK_RAW | SOCK_CLOEXEC, 1 },
	  SOCK_DENY },
	{ "socket AF_INET6 SOCK_RAW", X86, __NR_socket, { AF_INET6, SOCK_RAW, 58 }, SOCK_DENY },
	{ "socket AF_INET SOCK_PACKET", X86, __NR_socket, { AF_INET, SOCK_PACKET, 0 }, SOCK_DENY },
	{ "socket AF_INET SOCK_RAW, type high bits",
	  X86,
	  __NR_socket,
	  { AF_INET, 0x100000000ULL | SOCK_RAW, 0 },
	  SOCK_DENY },
	{ "socket AF_PACKET", X86, __NR_socket, { AF_PACKET, SOCK_DGRAM, 0 }, SOCK_DENY },
	/* TCP Fast Open connects without Landlock's connect hook: the port
	 * rules would not hold (https://github.com/landlock-lsm/linux/issues/41). */
	{ "sendto MSG_FASTOPEN",
	  X86,
	  __NR_sendto,
	  { 3, 0x1000, 10, MSG_FASTOPEN, 0x2000, 16 },
	  FO_DENY },
	{ "sendto MSG_FASTOPEN|MSG_NOSIGNAL|MSG_DONTWAIT",
	  X86,
	  __NR_sendto,
	  { 3, 0x1000, 10, MSG_FASTOPEN | MSG_NOSIGNAL | MSG_DONTWAIT, 0x2000, 16 },
	  FO_DENY },
	{ "sendto MSG_FASTOPEN, flags high bits",
	  X86,
	  __NR_sendto,
	  { 3, 0x1000, 10, 0xffffffff00000000ULL | MSG_FASTOPEN, 0x2000, 16 },
	  FO_DENY },
	{ "sendto all flags",
	  X86,
	  __NR_sendto,
	  { 3, 0x1000, 10, 0xffffffff, 0x2000, 16 },
	  FO_DENY },
	{ "sendmsg MSG_FASTOPEN", X86, __NR_sendmsg, { 3, 0x1000, MSG_FASTOPEN }, FO_DENY },
	{ "sendmsg MSG_FASTOPEN|MSG_NOSIGNAL",
	  X86,
	  __NR_sendmsg,
	  { 3, 0x1000, MSG_FASTOPEN | MSG_NOSIGNAL },
	  FO_DENY },
	{ "sendmmsg MSG_FASTOPEN", X86, __NR_sendmmsg, { 3, 0x1000, 1, MSG_FASTOPEN }, FO_DENY },
	{ "sendto flags high bits, no MSG_FASTOPEN",
	  X86,
	  __NR_sendto,
	  { 3, 0x1000, 10, 0xffffffff00000000ULL | MSG_NOSIGNAL, 0, 0 },
	  ALLOW },
	{ "sendto MSG_FASTOPEN in the length, not the flags",
	  X86,
	  __NR_sendto,
	  { 3, 0x1000, MSG_FASTOPEN, 0, 0, 0 },
	  ALLOW },
	{ "sendmsg MSG_FASTOPEN in arg 3 (unused)",
	  X86,
	  __NR_sendmsg,
	  { 3, 0x1000, 0, MSG_FASTOPEN },
	  ALLOW },
};

static void test_every_profile_denies_the_base_list(void **state)
{
	(void)state;
	need_filters();
	for (int p = 0; p < P_N; p++)
		check_rows(p, every_profile, sizeof every_profile / sizeof every_profile[0]);
}

static void test_setid_modes_refused_where_host_paths_are_written(void **state)
{
	(void)state;
	need_filters();
	check_rows(P_WRITE, setid_refused, sizeof setid_refused / sizeof setid_refused[0]);
	check_rows(P_DESTRUCTIVE, setid_refused, sizeof setid_refused / sizeof setid_refused[0]);
	check_rows(P_READ_ONLY, setid_left_to_mounts,
	           sizeof setid_left_to_mounts / sizeof setid_left_to_mounts[0]);
	check_rows(P_NETWORK, setid_left_to_mounts,
	           sizeof setid_left_to_mounts / sizeof setid_left_to_mounts[0]);
}

static void test_non_network_profiles_refuse_inet_sockets(void **state)
{
	(void)state;
	need_filters();
	const int ps[] = { P_READ_ONLY, P_WRITE, P_DESTRUCTIVE };
	for (size_t i = 0; i < 3; i++)
		check_rows(ps[i], non_network, sizeof non_network / sizeof non_network[0]);
}

static void test_network_profile_allows_tcp_and_udp_only(void **state)
{
	(void)state;
	need_filters();
	check_rows(P_NETWORK, network_only, sizeof network_only / sizeof network_only[0]);
}

/* The socket rules refuse ranges of values by aligned blocks (seccomp.c,
 * deny_except): every family and protocol value, each around a block
 * edge and with high bits set, is refused unless it is on the list. */
static void test_socket_values_off_the_lists_are_refused(void **state)
{
	(void)state;
	need_filters();
	int bad = 0;
	for (uint64_t v = 0; v < 600; v++) {
		for (int high = 0; high < 2; high++) {
			uint64_t x = v | (high ? 0xffffffff00000000ULL : 0);
			uint64_t fam[6] = { x, SOCK_STREAM, 0 };
			bool fam_ok = !high && (v == AF_INET || v == AF_INET6);
			uint64_t proto[6] = { AF_INET, SOCK_STREAM, x };
			bool proto_ok = !high && (v == 0 || v == IPPROTO_TCP || v == IPPROTO_UDP);
			if (run(fx.jail[P_NETWORK], X86, __NR_socket, fam) !=
			            (fam_ok ? ALLOW : SOCK_DENY) ||
			    run(fx.jail[P_NETWORK], X86, __NR_socket, proto) !=
			            (proto_ok ? ALLOW : SOCK_DENY) ||
			    run(fx.jail[P_READ_ONLY], X86, __NR_socket, fam) != SOCK_DENY) {
				print_error("socket value 0x%llx: wrong action\n",
				            (unsigned long long)x);
				bad++;
			}
		}
	}
	assert_int_equal(bad, 0);
}

/* An inet socket is a stream or a datagram one: with protocol 0 the type
 * picks the protocol, and SOCK_SEQPACKET's is SCTP, SOCK_DCCP's DCCP
 * (where their modules are loaded), neither held by Landlock's TCP rules.
 * Every type value (the low four bits, flags and high bits beside) is
 * tried in the network profile and in one with the unix family, where a
 * unix seqpacket socket stays allowed. */
static void test_inet_sockets_are_stream_or_datagram(void **state)
{
	(void)state;
	need_filters();
	struct profile *p = NULL;
	struct sbx_jail *ju = jail_of("{\"name\":\"unix-inet\",\"filesystem\":{},\"optional\":"
	                              "[\"landlock_scope\"],\"network\":{\"families\":"
	                              "[\"unix\",\"inet\",\"inet6\"],\"udp\":true,"
	                              "\"tcp_connect\":[443]}}",
	                              &p);
	static const uint64_t extra[] = { 0, SOCK_CLOEXEC | SOCK_NONBLOCK, 0xffffffff00000000ULL };
	int bad = 0;
	for (uint64_t t = 0; t < 16; t++)
		for (size_t x = 0; x < sizeof extra / sizeof extra[0]; x++) {
			uint64_t ty = t | extra[x];
			bool inet_ok = t == SOCK_STREAM || t == SOCK_DGRAM;
			bool unix_ok = t != SOCK_RAW && t != SOCK_PACKET;
			for (int f = 0; f < 2; f++) {
				uint64_t args[6] = { f ? AF_INET6 : AF_INET, ty, 0 };
				if (run(fx.jail[P_NETWORK], X86, __NR_socket, args) !=
				            (inet_ok ? ALLOW : SOCK_DENY) ||
				    run(ju, X86, __NR_socket, args) !=
				            (inet_ok ? ALLOW : SOCK_DENY)) {
					print_error("socket(%s, 0x%llx, 0): wrong action\n",
					            f ? "AF_INET6" : "AF_INET",
					            (unsigned long long)ty);
					bad++;
				}
			}
			uint64_t un[6] = { AF_UNIX, ty, 0 };
			if (run(ju, X86, __NR_socket, un) != (unix_ok ? ALLOW : SOCK_DENY)) {
				print_error("socket(AF_UNIX, 0x%llx, 0): wrong action\n",
				            (unsigned long long)ty);
				bad++;
			}
		}
	sbx_jail_free(ju);
	profile_free(p);
	assert_int_equal(bad, 0);
}

/* Every syscall number of this arch, with zero args, gets one of the three
 * actions the filter may take: no stray TRAP or LOG, and nothing KILLs on
 * x86_64 in a shipped profile (only foreign ABIs die). */
static void test_filter_answers_every_syscall_with_a_known_action(void **state)
{
	(void)state;
	need_filters();
	for (int p = 0; p < P_N; p++)
		for (int nr = 0; nr < 600; nr++) {
			uint32_t r = run(fx.jail[p], X86, nr, NULL);
			uint32_t a = bpf_action(r);
			if (a != SECCOMP_RET_ALLOW && a != SECCOMP_RET_ERRNO)
				fail_msg("%s: syscall %d gives 0x%08x", names[p], nr, r);
		}
}

/* The filters compiled at build time are what the library compiles now:
 * every shipped profile's key is in the table, with the same program. */
static void test_prebuilt_filters_match_a_fresh_compile(void **state)
{
	(void)state;
	need_filters();
	assert_true(n_prebuilt_filters >= 1);
	for (int p = 0; p < P_N; p++) {
		char key[1024];
		assert_int_equal(seccomp_key(&fx.prof[p]->spec, FILTER_WHOLE, key, sizeof key), 0);
		size_t hit = n_prebuilt_filters;
		for (size_t i = 0; i < n_prebuilt_filters; i++)
			if (!strcmp(prebuilt_filters[i].key, key))
				hit = i;
		if (hit == n_prebuilt_filters)
			fail_msg("%s: key %s not prebuilt", names[p], key);
		struct sock_filter *fresh = NULL;
		unsigned short len = 0;
		struct sbx_error err = { 0 };
		assert_int_equal(seccomp_compile(&fx.prof[p]->spec, FILTER_WHOLE, &fresh, &len,
		                                 &err),
		                 0);
		assert_int_equal(len, prebuilt_filters[hit].len);
		assert_memory_equal(fresh, prebuilt_filters[hit].bpf, len * sizeof *fresh);
		unsigned short jlen;
		const struct sock_filter *used = sbx_jail_filter(fx.jail[p], &jlen);
		assert_int_equal(jlen, len);
		assert_memory_equal(used, fresh, len * sizeof *fresh);
		free(fresh);
	}
	/* Anything else is compiled: a key differing in one list entry. */
	struct profile *pr = NULL;
	struct sbx_jail *j = jail_of("{\"name\":\"k\",\"filesystem\":{},\"optional\":"
	                             "[\"landlock_scope\"],\"seccomp\":{\"deny\":[\"uname\"]}}",
	                             &pr);
	uint64_t none[6] = { 0 };
	assert_int_equal(run(j, X86, __NR_uname, none), ERR(EPERM));
	assert_int_equal(run(j, X86, __NR_getpid, none), ALLOW);
	sbx_jail_free(j);
	profile_free(pr);
}

/* System V IPC and message queues: allowed only when the tool surely has
 * an ipc namespace of its own; an optional one (a kernel may refuse it, and
 * then the host's IPC would be reachable) is not enough, and an allow list
 * cannot lift the rule. */
static void test_ipc_only_with_a_required_ipc_namespace(void **state)
{
	(void)state;
	need_filters();
	static const char *const texts[] = {
		"{\"name\":\"ipc\",\"filesystem\":{},\"namespaces\":[\"pid\",\"ipc\"],"
		"\"optional\":[\"landlock_scope\"]}",
		"{\"name\":\"ipc-opt\",\"filesystem\":{},\"namespaces\":[\"pid\",\"ipc\"],"
		"\"optional\":[\"landlock_scope\",\"ipc_ns\"]}",
		"{\"name\":\"no-ipc\",\"filesystem\":{},\"namespaces\":[\"pid\"],"
		"\"optional\":[\"landlock_scope\"]}",
	};
	const uint32_t want[] = { ALLOW, ERR(EPERM), ERR(EPERM) };
	for (size_t i = 0; i < 3; i++) {
		struct profile *p = NULL;
		struct sbx_jail *j = jail_of(texts[i], &p);
		uint64_t shm[6] = { 0, 4096, 0 }, mq[6] = { 0x1000, 0x40, 0600 };
		assert_int_equal(run(j, X86, __NR_shmget, shm), want[i]);
		assert_int_equal(run(j, X86, __NR_mq_open, mq), want[i]);
		sbx_jail_free(j);
		profile_free(p);
	}
	struct profile *p = NULL;
	struct tc_error terr;
	const char *allow = "{\"name\":\"x\",\"filesystem\":{},\"namespaces\":[\"pid\"],"
	                    "\"seccomp\":{\"default\":\"errno\",\"allow\":[\"shmget\"]}}";
	assert_int_equal(profile_parse(allow, strlen(allow), "test", &p, &terr), 0);
	struct sbx_jail *j = NULL;
	struct sbx_error err;
	assert_true(sbx_jail_new(&p->spec, fx.ws, &j, &err) < 0);
	assert_non_null(strstr(err.msg, "ipc namespace"));
	profile_free(p);
}

/* A profile that asks for UDP and netlink: datagram inet sockets open,
 * netlink only for NETLINK_ROUTE, raw sockets still refused. */
static void test_udp_and_netlink_profile(void **state)
{
	(void)state;
	need_filters();
	struct profile *p = NULL;
	struct sbx_jail *j = jail_of("{\"name\":\"dns\",\"filesystem\":{},\"optional\":"
	                             "[\"landlock_scope\"],\"network\":{\"families\":"
	                             "[\"inet\",\"inet6\",\"netlink\"],\"udp\":true,"
	                             "\"tcp_connect\":[53]}}",
	                             &p);
	const struct row rows[] = {
		{ "socket AF_INET dgram", X86, __NR_socket, { AF_INET, SOCK_DGRAM, 0 }, ALLOW },
		{ "socket AF_INET dgram UDP",
		  X86,
		  __NR_socket,
		  { AF_INET, SOCK_DGRAM, IPPROTO_UDP },
		  ALLOW },
		{ "socket AF_INET6 dgram UDP",
		  X86,
		  __NR_socket,
		  { AF_INET6, SOCK_DGRAM, 17 },
		  ALLOW },
		{ "socket AF_INET stream", X86, __NR_socket, { AF_INET, SOCK_STREAM, 0 }, ALLOW },
		{ "socket AF_INET ping",
		  X86,
		  __NR_socket,
		  { AF_INET, SOCK_DGRAM, IPPROTO_ICMP },
		  SOCK_DENY },
		{ "socket AF_INET SOCK_RAW",
		  X86,
		  __NR_socket,
		  { AF_INET, SOCK_RAW, 0 },
		  SOCK_DENY },
		{ "socket AF_NETLINK ROUTE",
		  X86,
		  __NR_socket,
		  { AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_ROUTE },
		  ALLOW },
		{ "socket AF_NETLINK AUDIT",
		  X86,
		  __NR_socket,
		  { AF_NETLINK, SOCK_DGRAM, NETLINK_AUDIT },
		  SOCK_DENY },
		{ "socket AF_NETLINK KOBJECT_UEVENT",
		  X86,
		  __NR_socket,
		  { AF_NETLINK, SOCK_DGRAM, NETLINK_KOBJECT_UEVENT },
		  SOCK_DENY },
		{ "socket AF_NETLINK protocol high bits",
		  X86,
		  __NR_socket,
		  { AF_NETLINK, SOCK_DGRAM, 0x100000000ULL },
		  SOCK_DENY },
		{ "socket AF_NETLINK SOCK_RAW",
		  X86,
		  __NR_socket,
		  { AF_NETLINK, SOCK_RAW, NETLINK_ROUTE },
		  SOCK_DENY },
		{ "socket AF_UNIX", X86, __NR_socket, { AF_UNIX, SOCK_STREAM, 0 }, SOCK_DENY },
		/* glibc binds its NETLINK_ROUTE socket (getaddrinfo) */
		{ "bind, netlink's length", X86, __NR_bind, { 3, 0x1000, 12 }, ALLOW },
		{ "bind, another length", X86, __NR_bind, { 3, 0x1000, 16 }, SOCK_DENY },
		{ "listen", X86, __NR_listen, { 3, 1 }, SOCK_DENY },
	};
	check_jail(j, "dns", rows, sizeof rows / sizeof rows[0]);
	sbx_jail_free(j);
	profile_free(p);
}

/* A profile with the "unix" family may make datagram pairs (it may make
 * any unix socket). A send call in an allow list takes only the calls
 * without MSG_FASTOPEN where inet sockets exist: a rule without arguments
 * would lift the base rule (seccomp.c, add_list). */
static void test_unix_family_and_allowed_send_calls(void **state)
{
	(void)state;
	need_filters();
	struct profile *p = NULL;
	struct sbx_jail *j = jail_of("{\"name\":\"unix\",\"filesystem\":{},\"optional\":"
	                             "[\"landlock_scope\"],\"network\":{\"families\":"
	                             "[\"unix\",\"inet\"],\"tcp_connect\":[443]}}",
	                             &p);
	const struct row unix_rows[] = {
		{ "socketpair AF_UNIX dgram",
		  X86,
		  __NR_socketpair,
		  { AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0x1000 },
		  ALLOW },
		{ "socketpair AF_UNIX raw",
		  X86,
		  __NR_socketpair,
		  { AF_UNIX, SOCK_RAW, 0, 0x1000 },
		  ALLOW },
		{ "socketpair AF_INET dgram",
		  X86,
		  __NR_socketpair,
		  { AF_INET, SOCK_DGRAM, 0, 0x1000 },
		  SOCK_DENY },
		{ "socket AF_UNIX dgram", X86, __NR_socket, { AF_UNIX, SOCK_DGRAM, 0 }, ALLOW },
		{ "sendto MSG_FASTOPEN",
		  X86,
		  __NR_sendto,
		  { 3, 0x1000, 10, MSG_FASTOPEN },
		  FO_DENY },
		/* the unix family may serve on a socket file: bind stays; inet
		 * makes listen go (it cannot tell the two sockets apart) */
		{ "bind", X86, __NR_bind, { 3, 0x1000, 20 }, ALLOW },
		{ "listen", X86, __NR_listen, { 3, 1 }, SOCK_DENY },
	};
	check_jail(j, "unix", unix_rows, sizeof unix_rows / sizeof unix_rows[0]);
	sbx_jail_free(j);
	profile_free(p);

	/* A profile's deny or kill entry covers the whole call, flag or not. */
	j = jail_of("{\"name\":\"lists-net\",\"filesystem\":{},\"optional\":[\"landlock_scope\"],"
	            "\"network\":{\"families\":[\"inet\"],\"tcp_connect\":[443]},"
	            "\"seccomp\":{\"deny\":[\"sendto\"],\"kill\":[\"sendmsg\"]}}",
	            &p);
	const struct row list_rows[] = {
		{ "sendto", X86, __NR_sendto, { 3, 0x1000, 10, 0 }, ERR(EPERM) },
		{ "sendto MSG_FASTOPEN",
		  X86,
		  __NR_sendto,
		  { 3, 0x1000, 10, MSG_FASTOPEN },
		  ERR(EPERM) },
		{ "sendmsg", X86, __NR_sendmsg, { 3, 0x1000, 0 }, KILL },
		{ "sendmsg MSG_FASTOPEN", X86, __NR_sendmsg, { 3, 0x1000, MSG_FASTOPEN }, KILL },
		{ "sendmmsg MSG_FASTOPEN",
		  X86,
		  __NR_sendmmsg,
		  { 3, 0x1000, 1, MSG_FASTOPEN },
		  FO_DENY },
	};
	check_jail(j, "lists-net", list_rows, sizeof list_rows / sizeof list_rows[0]);
	sbx_jail_free(j);
	profile_free(p);

	static const char *const texts[] = {
		"{\"name\":\"strict-net\",\"filesystem\":{},\"optional\":[\"landlock_scope\"],"
		"\"network\":{\"families\":[\"inet6\"],\"tcp_connect\":[443]},"
		"\"seccomp\":{\"default\":\"kill\",\"allow\":[\"read\",\"sendto\",\"sendmsg\","
		"\"sendmmsg\"]}}",
		"{\"name\":\"strict\",\"filesystem\":{},\"optional\":[\"landlock_scope\"],"
		"\"seccomp\":{\"default\":\"errno\",\"allow\":[\"read\",\"sendto\",\"sendmsg\","
		"\"sendmmsg\"]}}",
	};
	const uint32_t fo_want[] = { FO_DENY, ALLOW };
	for (size_t i = 0; i < 2; i++) {
		j = jail_of(texts[i], &p);
		const struct row rows[] = {
			{ "sendto", X86, __NR_sendto, { 3, 0x1000, 10, MSG_NOSIGNAL }, ALLOW },
			{ "sendto MSG_FASTOPEN",
			  X86,
			  __NR_sendto,
			  { 3, 0x1000, 10, MSG_FASTOPEN | MSG_NOSIGNAL },
			  fo_want[i] },
			{ "sendmsg", X86, __NR_sendmsg, { 3, 0x1000, 0 }, ALLOW },
			{ "sendmsg MSG_FASTOPEN",
			  X86,
			  __NR_sendmsg,
			  { 3, 0x1000, MSG_FASTOPEN },
			  fo_want[i] },
			{ "sendmmsg", X86, __NR_sendmmsg, { 3, 0x1000, 1, 0 }, ALLOW },
			{ "sendmmsg MSG_FASTOPEN",
			  X86,
			  __NR_sendmmsg,
			  { 3, 0x1000, 1, MSG_FASTOPEN },
			  fo_want[i] },
			{ "write (not listed)",
			  X86,
			  __NR_write,
			  { 1, 0x1000, 1 },
			  i == 0 ? KILL : ERR(EPERM) },
		};
		check_jail(j, p->spec.name, rows, sizeof rows / sizeof rows[0]);
		sbx_jail_free(j);
		profile_free(p);
	}
}

/* A profile's own lists: kill wins over the base EPERM, deny adds EPERM,
 * an allow can never weaken a base denial. */
static void test_profile_kill_and_deny_lists(void **state)
{
	(void)state;
	need_filters();
	struct profile *p = NULL;
	struct sbx_jail *j = jail_of("{\"name\":\"lists\",\"filesystem\":{},"
	                             "\"seccomp\":{\"kill\":[\"chmod\",\"ptrace\"],"
	                             "\"deny\":[\"uname\"],\"allow\":[\"bpf\"]}}",
	                             &p);
	assert_int_equal(run(j, X86, __NR_chmod, NULL), KILL);
	assert_int_equal(run(j, X86, __NR_ptrace, NULL), KILL);
	assert_int_equal(run(j, X86, __NR_uname, NULL), ERR(EPERM));
	assert_int_equal(run(j, X86, __NR_bpf, NULL), ERR(EPERM));
	assert_int_equal(run(j, X86, __NR_fchmod, NULL), ALLOW);
	assert_int_equal(run(j, X86, __NR_read, NULL), ALLOW);
	sbx_jail_free(j);
	profile_free(p);
}

/* A denied truncate is denied through open and openat too: O_TRUNC with a
 * mode Landlock before ABI 3 takes for reading (O_RDONLY) or for nothing
 * (3) would empty a file the tool may only read. Writing modes stay
 * Landlock's to judge; openat2 is not there at all. */
static void test_denied_truncate_refuses_truncating_opens(void **state)
{
	(void)state;
	need_filters();
	struct profile *p = NULL;
	struct sbx_jail *j = jail_of("{\"name\":\"trunc\",\"filesystem\":{},"
	                             "\"seccomp\":{\"deny\":[\"truncate\"]}}",
	                             &p);
	const uint64_t t = O_TRUNC;
	const struct row rows[] = {
		{ "truncate", X86, __NR_truncate, { 0 }, ERR(EPERM) },
		{ "open O_RDONLY|O_TRUNC", X86, __NR_open, { 0, t | O_RDONLY }, ERR(EPERM) },
		{ "open 3|O_TRUNC", X86, __NR_open, { 0, t | O_ACCMODE }, ERR(EPERM) },
		{ "openat O_RDONLY|O_TRUNC", X86, __NR_openat, { 0, 0, t }, ERR(EPERM) },
		{ "openat 3|O_TRUNC", X86, __NR_openat, { 0, 0, t | O_ACCMODE }, ERR(EPERM) },
		{ "open O_WRONLY|O_TRUNC", X86, __NR_open, { 0, t | O_WRONLY }, ALLOW },
		{ "openat O_RDWR|O_TRUNC", X86, __NR_openat, { 0, 0, t | O_RDWR }, ALLOW },
		{ "openat creat", X86, __NR_openat, { 0, 0, t | O_CREAT | O_WRONLY }, ALLOW },
		{ "openat O_RDONLY", X86, __NR_openat, { 0, 0, O_RDONLY | O_CLOEXEC }, ALLOW },
		{ "ftruncate", X86, __NR_ftruncate, { 0 }, ALLOW },
		/* its flags are out of a filter's sight: "no such call", and
		 * callers fall back to openat */
		{ "openat2", X86, __NR_openat2, { 0 }, ERR(ENOSYS) },
	};
	check_jail(j, "trunc", rows, sizeof rows / sizeof rows[0]);
	sbx_jail_free(j);
	profile_free(p);
}

/* default "kill": only the allow list (and what the base rules answer
 * themselves) runs; a base denial still says EPERM, not KILL. */
static void test_default_kill_profile(void **state)
{
	(void)state;
	need_filters();
	struct profile *p = NULL;
	struct sbx_jail *j = jail_of("{\"name\":\"strict\",\"filesystem\":{},"
	                             "\"seccomp\":{\"default\":\"kill\",\"allow\":[\"read\","
	                             "\"write\",\"exit_group\"]}}",
	                             &p);
	uint64_t fork_flags[6] = { CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD };
	uint64_t newuser[6] = { CLONE_NEWUSER | SIGCHLD };
	uint64_t tiocsti[6] = { 0, TIOCSTI };
	uint64_t setuid_mode[6] = { 0x1000, 04755 };
	assert_int_equal(run(j, X86, __NR_read, NULL), ALLOW);
	assert_int_equal(run(j, X86, __NR_exit_group, NULL), ALLOW);
	assert_int_equal(run(j, X86, __NR_openat, NULL), KILL);
	assert_int_equal(run(j, X86, __NR_ptrace, NULL), ERR(EPERM));
	assert_int_equal(run(j, AUDIT_ARCH_I386, 3, NULL), KILL);
	assert_int_equal(run(j, X86, __NR_clone, fork_flags), KILL);
	assert_int_equal(run(j, X86, __NR_clone, newuser), ERR(EPERM));
	assert_int_equal(run(j, X86, __NR_ioctl, tiocsti), ERR(EPERM));
	assert_int_equal(run(j, X86, __NR_chmod, setuid_mode), ERR(EPERM));
	sbx_jail_free(j);
	profile_free(p);
}

/* An allow-list entry for a syscall the base rules deny or filter by
 * argument would be a rule without arguments, which libseccomp lets beat
 * the argument rules: such a profile is refused, naming the syscall. */
static void test_allow_list_cannot_lift_base_rules(void **state)
{
	(void)state;
	need_filters();
	static const char *const lifted[] = { "ptrace",      "socket",     "clone", "ioctl",
		                              "personality", "socketpair", "chmod", "bind",
		                              "listen",      "io_setup" };
	for (size_t i = 0; i < sizeof lifted / sizeof lifted[0]; i++) {
		char text[256];
		snprintf(text, sizeof text,
		         "{\"name\":\"lift\",\"filesystem\":{},"
		         "\"seccomp\":{\"default\":\"kill\",\"allow\":[\"read\",\"%s\"]}}",
		         lifted[i]);
		struct profile *p = NULL;
		struct tc_error terr = { 0 };
		struct sbx_error err = { 0 };
		struct sbx_jail *j = NULL;
		assert_int_equal(profile_parse(text, strlen(text), "test", &p, &terr), 0);
		int rc = sbx_jail_new(&p->spec, fx.ws, &j, &err);
		sbx_jail_free(j);
		profile_free(p);
		assert_true(rc < 0);
		assert_non_null(strstr(err.msg, lifted[i]));
	}
}

/* A call an allow list names whose base rules refuse some of its
 * arguments keeps those rules: the allow rule takes the other values only
 * (an allow rule without arguments would have lifted them), under a
 * default of errno and of kill alike. */
static void test_allow_list_keeps_argument_rules(void **state)
{
	(void)state;
	need_filters();
	static const char *const defaults[] = { "errno", "kill" };
	for (size_t d = 0; d < 2; d++) {
		char text[256];
		snprintf(text, sizeof text,
		         "{\"name\":\"around\",\"filesystem\":{},\"seccomp\":{\"default\":\"%s\","
		         "\"allow\":[\"read\",\"fcntl\",\"setrlimit\",\"prlimit64\"]}}",
		         defaults[d]);
		struct profile *p = NULL;
		struct sbx_jail *j = jail_of(text, &p);
		static const struct {
			uint64_t cmd;
			bool allowed;
		} fcntls[] = {
			{ F_GETFD, true },
			{ F_SETFL, true },
			{ F_SETLK, true },
			{ F_GETLEASE, true },
			{ F_DUPFD_CLOEXEC, true },
			{ F_ADD_SEALS, true },
			{ F_SETLEASE, false },
			{ F_NOTIFY, false },
			{ 0xffffffff00000000ULL | F_SETLEASE, false },
		};
		for (size_t i = 0; i < sizeof fcntls / sizeof fcntls[0]; i++) {
			uint64_t a[6] = { 3, fcntls[i].cmd, 0 };
			uint32_t got = run(j, X86, __NR_fcntl, a);
			uint32_t want = fcntls[i].allowed ? ALLOW : ERR(EPERM);
			if (got != want)
				fail_msg("default %s: fcntl cmd %#llx: got %#x, want %#x",
				         defaults[d], (unsigned long long)fcntls[i].cmd, got, want);
		}
		/* RLIMIT_CORE: a change does nothing (ERR(0)); a read, or any
		 * other resource, is the list's */
		static const struct {
			int nr;
			uint64_t a[4];
			uint32_t want;
		} limits[] = {
			{ __NR_setrlimit, { RLIMIT_CORE, 0x1000 }, ERR(0) },
			{ __NR_setrlimit, { RLIMIT_NOFILE, 0x1000 }, ALLOW },
			{ __NR_setrlimit, { RLIMIT_STACK, 0x1000 }, ALLOW },
			{ __NR_prlimit64, { 0, RLIMIT_CORE, 0x1000, 0 }, ERR(0) },
			{ __NR_prlimit64, { 0, RLIMIT_CORE, 0x1000, 0x2000 }, ERR(EPERM) },
			{ __NR_prlimit64, { 0, RLIMIT_CORE, 0, 0x2000 }, ALLOW },
			{ __NR_prlimit64, { 0, RLIMIT_NOFILE, 0x1000, 0 }, ALLOW },
			{ __NR_prlimit64, { 0, RLIMIT_STACK, 0, 0x2000 }, ALLOW },
		};
		for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
			uint64_t a[6] = { limits[i].a[0], limits[i].a[1], limits[i].a[2],
				          limits[i].a[3] };
			uint32_t got = run(j, X86, limits[i].nr, a);
			if (got != limits[i].want)
				fail_msg("default %s: call %d resource %llu: got %#x, want %#x",
				         defaults[d], limits[i].nr,
				         (unsigned long long)(limits[i].nr == __NR_setrlimit ?
				                                      limits[i].a[0] :
				                                      limits[i].a[1]),
				         got, limits[i].want);
		}
		assert_int_equal(run(j, X86, __NR_read, NULL), ALLOW);
		sbx_jail_free(j);
		profile_free(p);
	}
}

/* default "errno": unlisted syscalls fail with EPERM. The base rules also
 * answer EPERM, so they repeat the default: that must not stop the jail
 * from compiling. */
static void test_default_errno_profile(void **state)
{
	(void)state;
	need_filters();
	struct profile *p = NULL;
	struct tc_error terr = { 0 };
	struct sbx_error err = { 0 };
	struct sbx_jail *j = NULL;
	const char *text = "{\"name\":\"errno-default\",\"filesystem\":{},"
	                   "\"seccomp\":{\"default\":\"errno\",\"allow\":[\"read\","
	                   "\"write\",\"exit_group\"]}}";
	assert_int_equal(profile_parse(text, strlen(text), "test", &p, &terr), 0);
	int rc = sbx_jail_new(&p->spec, fx.ws, &j, &err);
	if (rc < 0) {
		profile_free(p);
		fail_msg("a default-errno profile does not compile: %s", err.msg);
	}
	assert_int_equal(run(j, X86, __NR_read, NULL), ALLOW);
	assert_int_equal(run(j, X86, __NR_openat, NULL), ERR(EPERM));
	assert_int_equal(run(j, X86, __NR_ptrace, NULL), ERR(EPERM));
	assert_int_equal(run(j, X86, __NR_clone3, NULL), ERR(ENOSYS));
	sbx_jail_free(j);
	profile_free(p);
}

/* A deny entry wins over an allow entry as a kill entry does, whatever
 * the default: under "errno" the deny rule is the default's, and the
 * allow rule must not lift it. So a jail for C functions alone (fn_only),
 * which adds fork, clone and exec to the deny list, refuses them under a
 * profile that lets its commands run programs (an allow list with
 * execve). */
static void test_deny_wins_over_allow_under_default_errno(void **state)
{
	(void)state;
	need_filters();
	struct profile *p = NULL;
	struct sbx_error err = { 0 };
	struct sbx_jail *j = jail_of("{\"name\":\"errno-exec\",\"filesystem\":{},"
	                             "\"seccomp\":{\"default\":\"errno\",\"deny\":[\"uname\"],"
	                             "\"allow\":[\"read\",\"uname\",\"execve\",\"execveat\","
	                             "\"fork\",\"vfork\"]}}",
	                             &p);
	assert_int_equal(run(j, X86, __NR_read, NULL), ALLOW);
	assert_int_equal(run(j, X86, __NR_uname, NULL), ERR(EPERM));
	assert_int_equal(run(j, X86, __NR_execve, NULL), ALLOW);
	sbx_jail_free(j);
	struct sbx_spec spec = p->spec;
	spec.fn_only = true;
	assert_int_equal(sbx_jail_new(&spec, fx.ws, &j, &err), 0);
	static const int refused[] = { __NR_execve, __NR_execveat, __NR_fork,
		                       __NR_vfork,  __NR_clone,    __NR_clone3 };
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) /* clone3: ENOSYS */
		assert_int_equal(bpf_action(run(j, X86, refused[i], NULL)), SECCOMP_RET_ERRNO);
	assert_int_equal(run(j, X86, __NR_read, NULL), ALLOW);
	sbx_jail_free(j);
	profile_free(p);
}

/* The interpreter against the kernel: load the read-only and the network
 * filter in a child and make the calls for real. Each probe is harmless if
 * allowed (a NULL pointer or fd -1). */
struct probe {
	const char *what;
	long nr;
	long a[6];
};

static const struct probe probes[] = {
	{ "getpid", __NR_getpid, { 0 } },
	{ "socket AF_INET", __NR_socket, { AF_INET, SOCK_STREAM, 0 } },
	{ "socket AF_UNIX", __NR_socket, { AF_UNIX, SOCK_STREAM, 0 } },
	{ "socketpair AF_UNIX", __NR_socketpair, { AF_UNIX, SOCK_STREAM, 0, 0 } },
	{ "socketpair AF_UNIX seqpacket", __NR_socketpair, { AF_UNIX, SOCK_SEQPACKET, 0, 0 } },
	{ "socketpair AF_UNIX dgram",
	  __NR_socketpair,
	  { AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, 0 } },
	{ "socketpair AF_UNIX raw", __NR_socketpair, { AF_UNIX, SOCK_RAW, 0, 0 } },
	{ "sendto MSG_FASTOPEN", __NR_sendto, { -1, 0, 0, MSG_FASTOPEN, 0, 0 } },
	{ "sendmsg MSG_FASTOPEN", __NR_sendmsg, { -1, 0, MSG_FASTOPEN } },
	{ "sendmmsg MSG_FASTOPEN", __NR_sendmmsg, { -1, 0, 0, MSG_FASTOPEN } },
	{ "clone3", __NR_clone3, { 0, 0 } },
	{ "personality(0xffffffff)", __NR_personality, { 0xffffffffL } },
	{ "personality(0)", __NR_personality, { 0 } },
	{ "unshare(0)", __NR_unshare, { 0 } },
	{ "ioctl TIOCSTI high bits", __NR_ioctl, { -1, (long)0xffffffff00005412ULL } },
	{ "ioctl TCGETS", __NR_ioctl, { -1, TCGETS } },
	{ "keyctl", __NR_keyctl, { 0 } },
	{ "inotify_init1", __NR_inotify_init1, { IN_CLOEXEC } },
	{ "fcntl F_NOTIFY", __NR_fcntl, { 0, F_NOTIFY, DN_CREATE } },
	{ "fcntl F_SETLEASE high bits", __NR_fcntl, { 0, (long)0xffffffff00000400ULL, F_RDLCK } },
	{ "fcntl F_GETFD", __NR_fcntl, { 0, F_GETFD } },
};

static void agrees_with_kernel(int p)
{
	enum { N = sizeof probes / sizeof probes[0] };
	int pipefd[2];
	assert_int_equal(pipe(pipefd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		unsigned short len;
		const struct sock_filter *f = sbx_jail_filter(fx.jail[p], &len);
		struct sock_fprog prog = { .len = len, .filter = (struct sock_filter *)f };
		int errs[N];
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    syscall(__NR_seccomp, 1 /* SECCOMP_SET_MODE_FILTER */, 0, &prog) < 0)
			_exit(2);
		for (int i = 0; i < N; i++) {
			long r = syscall(probes[i].nr, probes[i].a[0], probes[i].a[1],
			                 probes[i].a[2], probes[i].a[3], probes[i].a[4],
			                 probes[i].a[5]);
			errs[i] = r < 0 ? errno : 0;
		}
		(void)!write(pipefd[1], errs, sizeof errs);
		_exit(0);
	}
	close(pipefd[1]);
	int errs[N], st;
	ssize_t n = read(pipefd[0], errs, sizeof errs);
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(n, (ssize_t)sizeof errs);
	int bad = 0;
	for (int i = 0; i < N; i++) {
		uint64_t a[6];
		for (int k = 0; k < 6; k++)
			a[k] = (uint64_t)probes[i].a[k];
		uint32_t r = run(fx.jail[p], X86, (int)probes[i].nr, a);
		/* An allowed call may still fail in the kernel, but never with
		 * the filter's errno for a refused one... */
		if (bpf_action(r) == SECCOMP_RET_ERRNO && errs[i] != (int)bpf_data(r)) {
			print_error("%s: %s: filter says errno %u, kernel gave %d\n", names[p],
			            probes[i].what, bpf_data(r), errs[i]);
			bad++;
		}
		/* ...and the ones we know succeed unfiltered must succeed. */
		if (bpf_action(r) == SECCOMP_RET_ALLOW &&
		    (probes[i].nr == __NR_getpid || probes[i].nr == __NR_socketpair ||
		     probes[i].nr == __NR_personality) &&
		    errs[i] != 0 && !(probes[i].nr == __NR_socketpair && errs[i] == EFAULT)) {
			print_error("%s: %s: filter allows, kernel gave %d\n", names[p],
			            probes[i].what, errs[i]);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_interpreter_agrees_with_kernel(void **state)
{
	(void)state;
	need_filters();
	agrees_with_kernel(P_READ_ONLY);
	agrees_with_kernel(P_NETWORK);
}

/* The interpreter itself refuses what it does not understand. */
static void test_interpreter_rejects_bad_programs(void **state)
{
	(void)state;
	struct seccomp_data d = { .nr = 0, .arch = X86 };
	uint32_t ret;
	char err[128];
	struct sock_filter oob[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 64),
		                     BPF_STMT(BPF_RET | BPF_K, ALLOW) };
	struct sock_filter far[] = { BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0),
		                     BPF_STMT(BPF_RET | BPF_K, ALLOW) };
	struct sock_filter div[] = { BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 2),
		                     BPF_STMT(BPF_RET | BPF_K, ALLOW) };
	struct sock_filter noret[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0) };
	struct sock_filter ok[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
		                    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, X86, 1, 0),
		                    BPF_STMT(BPF_RET | BPF_K, KILL),
		                    BPF_STMT(BPF_RET | BPF_K, ERR(7)) };
	assert_int_equal(bpf_run(oob, 2, &d, &ret, err, sizeof err), -1);
	assert_int_equal(bpf_run(far, 2, &d, &ret, err, sizeof err), -1);
	assert_int_equal(bpf_run(div, 2, &d, &ret, err, sizeof err), -1);
	assert_int_equal(bpf_run(noret, 1, &d, &ret, err, sizeof err), -1);
	assert_int_equal(bpf_run(ok, 4, &d, &ret, err, sizeof err), 0);
	assert_int_equal(ret, ERR(7));
	d.arch = AUDIT_ARCH_I386;
	assert_int_equal(bpf_run(ok, 4, &d, &ret, err, sizeof err), 0);
	assert_int_equal(ret, KILL);
}

/* Argument values the rules look at, each tried in every argument. */
static const uint64_t probe_values[] = {
	1,
	~UINT64_C(0),
	CLONE_NEWNS,
	CLONE_NEWUSER,
	CLONE_NEWNET,
	CLONE_NEWPID,
	CLONE_PARENT,
	CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD,
	TIOCSTI,
	TIOCLINUX,
	FS_IOC_ADD_ENCRYPTION_KEY,
	FS_IOC_REMOVE_ENCRYPTION_KEY,
	RLIMIT_CORE,
	F_SETLEASE,
	F_NOTIFY,
	MSG_FASTOPEN,
	S_ISUID | 0755,
	S_ISGID | 0755,
	O_TRUNC,
	O_TRUNC | O_ACCMODE,
	O_WRONLY | O_TRUNC,
	AF_INET,
	AF_INET6,
	AF_NETLINK,
	AF_PACKET,
	SOCK_RAW,
	SOCK_DGRAM,
	SOCK_SEQPACKET,
	NETLINK_AUDIT,
	0x8000000000000001ULL,
};

/* Both parts of a split filter answer every call (a whole scan of the
 * syscall numbers, each argument at each value above, and the foreign
 * ABIs) as the whole filter does: run() compares them at each call. */
static void scan_split(struct sbx_jail *j, const char *name)
{
	unsigned short wl = 0, cl = 0, len = 0;
	assert_non_null(sbx_jail_filter_part(j, FILTER_WORKER, &wl));
	assert_non_null(sbx_jail_filter_part(j, FILTER_CHILD, &cl));
	sbx_jail_filter(j, &len);
	print_message("%s: %u instructions whole, %u the worker's, %u a child's\n", name, len, wl,
	              cl);
	for (int nr = 0; nr < 480; nr++) {
		uint64_t a[6] = { 0 };
		run(j, X86, nr, a);
		run(j, X86, nr | X32_BIT, a);
		run(j, AUDIT_ARCH_I386, nr, a);
		for (int k = 0; k < 6; k++)
			for (size_t v = 0; v < sizeof probe_values / sizeof probe_values[0]; v++) {
				memset(a, 0, sizeof a);
				a[k] = probe_values[v];
				run(j, X86, nr, a);
			}
	}
	/* Pairs the socket rules look at together. */
	static const uint64_t fams[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET };
	static const uint64_t types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_SEQPACKET,
		                          SOCK_STREAM | SOCK_CLOEXEC };
	for (size_t f = 0; f < 5; f++)
		for (size_t t = 0; t < 5; t++)
			for (uint64_t proto = 0; proto < 20; proto++) {
				uint64_t a[6] = { fams[f], types[t], proto };
				run(j, X86, __NR_socket, a);
				run(j, X86, __NR_socketpair, a);
			}
}

static void test_split_filter_answers_as_the_whole(void **state)
{
	(void)state;
	need_filters();
	for (int p = 0; p < P_N; p++)
		scan_split(fx.jail[p], names[p]);
	/* Profiles' lists naming calls the worker makes, or that its part
	 * would otherwise hold: their rules go to the child's part. */
	static const char *const texts[] = {
		"{\"name\":\"lists\",\"filesystem\":{},\"optional\":[\"landlock_scope\"],"
		"\"seccomp\":{\"deny\":[\"sendmsg\",\"fcntl\",\"mount\",\"uname\",\"truncate\","
		"\"fchmodat\",\"setxattr\"],\"kill\":[\"ioctl\",\"personality\",\"ptrace\"]}}",
		"{\"name\":\"udp\",\"filesystem\":{},\"optional\":[\"landlock_scope\"],"
		"\"network\":{\"families\":[\"unix\",\"inet\",\"inet6\",\"netlink\"],\"udp\":true}}",
		"{\"name\":\"ipc\",\"filesystem\":{},\"namespaces\":[\"pid\",\"ipc\"],"
		"\"optional\":[\"landlock_scope\"]}",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		struct profile *pr = NULL;
		struct sbx_jail *j = jail_of(texts[i], &pr);
		scan_split(j, pr->spec.name);
		sbx_jail_free(j);
		profile_free(pr);
	}
}

/* A filter that does not allow by default is loaded whole by each child:
 * it has no parts. */
/* What a filter kills, said for a child it killed (the kernel tells the
 * parent SIGSYS, not the call): the kill list by name, the default when
 * it kills, and the foreign ABIs every filter kills. */
static void test_kill_text_says_what_the_filter_kills(void **state)
{
	(void)state;
	static const char *const one[] = { "uname", NULL };
	static const char *const many[] = { "a1", "a2", "a3", "a4",  "a5", "a6",
		                            "a7", "a8", "a9", "a10", NULL };
	const char *foreign = "a call through a foreign ABI (i386's int 0x80, x32)";
	struct sbx_spec spec = { .seccomp_kill = one };
	char *t = seccomp_kill_text(&spec);
	assert_non_null(t);
	assert_non_null(strstr(t, "the one call its seccomp.kill lists: uname; or "));
	assert_non_null(strstr(t, foreign));
	free(t);
	spec.seccomp_kill = many;
	t = seccomp_kill_text(&spec);
	assert_non_null(strstr(t, "one of the calls its seccomp.kill lists: a1, a2, "));
	assert_non_null(strstr(t, "a8 and 2 more; or "));
	assert_null(strstr(t, "a9"));
	free(t);
	spec = (struct sbx_spec){ .seccomp_default = SBX_ACT_KILL };
	t = seccomp_kill_text(&spec);
	assert_non_null(strstr(t, "any call its seccomp.allow does not list"));
	free(t);
	spec = (struct sbx_spec){ 0 };
	t = seccomp_kill_text(&spec);
	assert_string_equal(t, foreign);
	free(t);
}

static void test_default_deny_does_not_split(void **state)
{
	(void)state;
	need_filters();
	struct profile *pr = NULL;
	struct sbx_jail *j = jail_of("{\"name\":\"d\",\"filesystem\":{},\"optional\":"
	                             "[\"landlock_scope\"],\"seccomp\":{\"default\":\"errno\","
	                             "\"allow\":[\"read\",\"write\",\"exit_group\"]}}",
	                             &pr);
	unsigned short len = 1;
	assert_null(sbx_jail_filter_part(j, FILTER_CHILD, &len));
	assert_int_equal(len, 0);
	sbx_jail_free(j);
	profile_free(pr);
}

/* The worker's part refuses none of the calls a worker makes, nor a child
 * before its own filter (seen with strace on served calls of every
 * shipped profile), with the arguments they make them with: else the
 * worker would fail. */
static void test_worker_part_lets_the_worker_work(void **state)
{
	(void)state;
	need_filters();
	static const int used[] = {
		__NR_arch_prctl,
		__NR_bind,
		__NR_brk,
		__NR_capset,
		__NR_chdir,
		__NR_clone,
		__NR_clone3,
		__NR_close,
		__NR_close_range,
		__NR_dup3,
		__NR_exit_group,
		__NR_fchmodat,
		__NR_fcntl,
		__NR_fsconfig,
		__NR_fsmount,
		__NR_fsopen,
		__NR_getdents64,
		__NR_getrandom,
		__NR_ioctl,
		__NR_landlock_add_rule,
		__NR_landlock_create_ruleset,
		__NR_landlock_restrict_self,
		__NR_listen,
		__NR_madvise,
		__NR_mkdir,
		__NR_mkdirat,
		__NR_mknodat,
		__NR_mmap,
		__NR_mount,
		__NR_mount_setattr,
		__NR_move_mount,
		__NR_mprotect,
		__NR_mremap,
		__NR_munmap,
		__NR_newfstatat,
		__NR_open_tree,
		__NR_openat,
		__NR_openat2,
		__NR_pivot_root,
		__NR_poll,
		__NR_prctl,
		__NR_prlimit64,
		__NR_pwrite64,
		__NR_read,
		__NR_readlink,
		__NR_readlinkat,
		__NR_recvfrom,
		__NR_recvmsg,
		__NR_rmdir,
		__NR_rseq,
		__NR_rt_sigaction,
		__NR_rt_sigprocmask,
		__NR_sched_setaffinity,
		__NR_seccomp,
		__NR_sendmsg,
		__NR_sendto,
		__NR_set_robust_list,
		__NR_set_tid_address,
		__NR_setgroups,
		__NR_setns,
		__NR_setpgid,
		__NR_setresgid,
		__NR_setresuid,
		__NR_setsid,
		__NR_socket,
		__NR_symlinkat,
		__NR_umount2,
		__NR_unlink,
		__NR_unshare,
		__NR_write,
	};
	/* socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE), clone3 and clone with
	 * the namespaces and CLONE_PARENT of a child, a dir's mode kept. */
	const uint64_t args[][6] = {
		{ 0 },
		{ AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE },
		{ AF_INET6, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK },
		{ CLONE_PARENT | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWNET },
		{ 3, (uint64_t) "p", S_ISGID | 0775 },
	};
	for (int p = 0; p < P_N; p++) {
		unsigned short wl;
		const struct sock_filter *w = sbx_jail_filter_part(fx.jail[p], FILTER_WORKER, &wl);
		assert_non_null(w);
		for (size_t i = 0; i < sizeof used / sizeof used[0]; i++)
			for (size_t k = 0; k < sizeof args / sizeof args[0]; k++) {
				struct seccomp_data d = { .nr = used[i], .arch = X86 };
				memcpy(d.args, args[k], sizeof d.args);
				uint32_t r = run_prog(w, wl, &d);
				if (r != ALLOW)
					fail_msg(
					        "%s: the worker's part answers 0x%08x to syscall %d",
					        names[p], r, used[i]);
			}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interpreter_rejects_bad_programs),
		cmocka_unit_test(test_every_profile_denies_the_base_list),
		cmocka_unit_test(test_setid_modes_refused_where_host_paths_are_written),
		cmocka_unit_test(test_non_network_profiles_refuse_inet_sockets),
		cmocka_unit_test(test_network_profile_allows_tcp_and_udp_only),
		cmocka_unit_test(test_socket_values_off_the_lists_are_refused),
		cmocka_unit_test(test_inet_sockets_are_stream_or_datagram),
		cmocka_unit_test(test_filter_answers_every_syscall_with_a_known_action),
		cmocka_unit_test(test_udp_and_netlink_profile),
		cmocka_unit_test(test_ipc_only_with_a_required_ipc_namespace),
		cmocka_unit_test(test_unix_family_and_allowed_send_calls),
		cmocka_unit_test(test_prebuilt_filters_match_a_fresh_compile),
		cmocka_unit_test(test_profile_kill_and_deny_lists),
		cmocka_unit_test(test_denied_truncate_refuses_truncating_opens),
		cmocka_unit_test(test_default_kill_profile),
		cmocka_unit_test(test_kill_text_says_what_the_filter_kills),
		cmocka_unit_test(test_allow_list_cannot_lift_base_rules),
		cmocka_unit_test(test_allow_list_keeps_argument_rules),
		cmocka_unit_test(test_default_errno_profile),
		cmocka_unit_test(test_deny_wins_over_allow_under_default_errno),
		cmocka_unit_test(test_interpreter_agrees_with_kernel),
		cmocka_unit_test(test_split_filter_answers_as_the_whole),
		cmocka_unit_test(test_default_deny_does_not_split),
		cmocka_unit_test(test_worker_part_lets_the_worker_work),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

#else
static void test_skipped_not_x86_64(void **state)
{
	(void)state;
	skip();
}

int main(void)
{
	fprintf(stderr, "test_seccomp_filter: the tables use x86_64 syscall numbers\n");
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_skipped_not_x86_64) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
