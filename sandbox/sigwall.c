/* sigwall.c — the signal wall where no pid namespace holds the tool: a
 * small seccomp filter of the child's own, and the supervisor's side of it.
 *
 * Without a pid namespace (the no_namespaces rung: jail.c) every process
 * of the tool's uid can be named by its pid: the supervisor, the owner's
 * shell, the host's services. Landlock's signal scoping (ABI 6, Linux
 * 6.12) keeps kill() to the tool's own processes; older kernels have
 * none. This filter builds that wall where it is missing, and the parts
 * Landlock never covers in either case:
 *  - in the BPF itself, with the call's process group P (the child's own
 *    pid: it leads the group, which the tool cannot leave: setsid and
 *    setpgid are refused): kill(0), kill(P) and kill(-P) pass, kill(-1)
 *    and kill(-other) are refused; so are prlimit64, setpriority,
 *    ioprio_set, the sched_set* calls, migrate_pages and move_pages on a
 *    process other than itself (0) or P (a supervisor niced to 19, held
 *    to one CPU, or left no file descriptors is a denial of service
 *    Landlock does not see), setpriority and ioprio_set on every process
 *    of the user;
 *  - without scoping, also: kill(pid > 0), tkill, tgkill, rt_sigqueueinfo
 *    and rt_tgsigqueueinfo go to the supervisor as a seccomp user
 *    notification (the listener comes back on the status socket), which
 *    checks the target is in the call's process group and sends the
 *    signal itself (sigwall_serve); F_SETOWN to another process (SIGIO
 *    and F_SETSIG signals are sent by the kernel on the owner's behalf),
 *    F_SETOWN_EX, FIOSETOWN and SIOCSPGRP (their target is in memory the
 *    filter cannot read);
 *  - with or without scoping: the CPU-time clock of a process other
 *    than itself or P (clock_gettime, clock_getres, clock_nanosleep,
 *    timer_create: the kernel reads any pid's for anyone) is refused;
 *  - with or without scoping: pidfd_open is refused (ENOSYS: glibc,
 *    Python, Go and systemd fall back to pids), and with it the ways to a
 *    pidfd of a process outside: SO_PEERPIDFD and SO_PASSPIDFD (Linux
 *    6.5). Scoping keeps signals and ptrace from such a pidfd, not the
 *    pidfd itself: a process's liveness, its exit seen by poll().
 * ptrace, process_vm_*, pidfd_getfd, kcmp and process_madvise are refused
 * by the base rules (seccomp.c); /proc/PID is not granted by Landlock, and
 * Landlock (ABI 1 on) refuses ptrace access out of its domain, which
 * covers /proc/PID/mem, environ, fd and the calls that check it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

#if defined(__x86_64__)
#define SIGWALL_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SIGWALL_ARCH AUDIT_ARCH_AARCH64
#else
#error "sigwall.c: add this architecture's AUDIT_ARCH"
#endif

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
#ifndef F_SETOWN_EX
#define F_SETOWN_EX 15
#endif
#ifndef SIOCSPGRP
#define SIOCSPGRP 0x8902
#endif
#ifndef FIOSETOWN
#define FIOSETOWN 0x8901
#endif

/* Offsets in struct seccomp_data of an argument's low 32 bits (little
 * endian): pids, which and flags are ints, and the kernel reads those
 * bits alone. */
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + (size_t)8 * (size_t)(i))

#define RET_ALLOW  SECCOMP_RET_ALLOW
#define RET_EPERM  (SECCOMP_RET_ERRNO | EPERM)
#define RET_ENOSYS (SECCOMP_RET_ERRNO | ENOSYS)
#define RET_NOTIFY SECCOMP_RET_USER_NOTIF

struct prog {
	struct sock_filter *f;
	size_t n, cap;
	bool overflow;
};

static void put(struct prog *p, struct sock_filter ins)
{
	if (p->n < p->cap)
		p->f[p->n++] = ins;
	else
		p->overflow = true;
}

#define LD(off) ((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off)))
#define RET(v)  ((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, (v)))
#define JEQ(k, t, f)                                                                               \
	((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(k), (t), (f)))
#define AND(k) ((struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, (uint32_t)(k)))
#define JSET(k, t, f)                                                                              \
	((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (uint32_t)(k), (t), (f)))

/* One rule: if nr is the call, block (which ends in a return on every
 * path); else on to the next rule. */
static void rule(struct prog *p, int nr, const struct sock_filter *block, size_t n)
{
	put(p, LD(offsetof(struct seccomp_data, nr)));
	put(p, JEQ(nr, 0, (uint8_t)n));
	for (size_t i = 0; i < n; i++)
		put(p, block[i]);
}

/* A pid argument that may name only the caller (0) or the group's leader
 * (P): anything else refused. */
static size_t self_only(struct sock_filter *b, int arg, uint32_t pgid)
{
	size_t n = 0;
	b[n++] = LD(ARG_LO(arg));
	b[n++] = JEQ(0, 1, 0);
	b[n++] = JEQ(pgid, 0, 1);
	b[n++] = RET(RET_ALLOW);
	b[n++] = RET(RET_EPERM);
	return n;
}

/* setpriority(which, who) and ioprio_set(which, who): never a user's
 * every process (which == user: on to self_only's refusal), else who as
 * self_only. */
static size_t which_who(struct sock_filter *b, uint32_t user, uint32_t pgid)
{
	b[0] = LD(ARG_LO(0));
	b[1] = JEQ(user, 4, 0);
	return 2 + self_only(b + 2, 1, pgid);
}

/* kill(pid, sig) and rt_sigqueueinfo(pid, ...): 0, P and -P pass; any
 * other negative (another group, or -1: every process the uid may
 * signal) is refused; a pid > 0 is the supervisor's to judge, or
 * Landlock's scoping's. */
static size_t kill_like(struct sock_filter *b, uint32_t pgid, uint32_t positive)
{
	size_t n = 0;
	b[n++] = LD(ARG_LO(0));
	b[n++] = JEQ(0, 3, 0);
	b[n++] = JEQ(pgid, 2, 0);
	b[n++] = JEQ(-pgid, 1, 0);
	b[n++] = JSET(0x80000000u, 2, 1);
	b[n++] = RET(RET_ALLOW);
	b[n++] = RET(positive);
	b[n++] = RET(RET_EPERM);
	return n;
}

int sigwall_filter(struct sock_filter *f, size_t cap, pid_t pgid, bool notify)
{
	struct prog p = { f, 0, cap, false };
	struct sock_filter b[16];
	uint32_t P = (uint32_t)pgid;
	/* Another ABI (i386, x32) is the main filter's: it kills it. */
	put(&p, LD(offsetof(struct seccomp_data, arch)));
	put(&p, JEQ(SIGWALL_ARCH, 1, 0));
	put(&p, RET(RET_ALLOW));
	rule(&p, SYS_kill, b, kill_like(b, P, notify ? RET_NOTIFY : RET_ALLOW));
	rule(&p, SYS_rt_sigqueueinfo, b, kill_like(b, P, notify ? RET_NOTIFY : RET_ALLOW));
	static const int resource[] = {
		SYS_prlimit64,      SYS_sched_setaffinity, SYS_sched_setscheduler,
		SYS_sched_setparam, SYS_sched_setattr,     SYS_migrate_pages,
		SYS_move_pages,
	};
	for (size_t i = 0; i < sizeof resource / sizeof resource[0]; i++)
		rule(&p, resource[i], b, self_only(b, 0, P));
	rule(&p, SYS_setpriority, b, which_who(b, 2 /* PRIO_USER */, P));
	rule(&p, SYS_ioprio_set, b, which_who(b, 3 /* IOPRIO_WHO_USER */, P));
	/* A pidfd of a process outside: Landlock's scoping keeps signals and
	 * ptrace from it, but not the pidfd itself (its liveness, its exit
	 * seen by poll, what fdinfo tells), so none is handed out at all. */
	b[0] = RET(RET_ENOSYS);
	rule(&p, SYS_pidfd_open, b, 1);
	/* A process's CPU-time clock, named by its pid in the clock id
	 * (clock_getcpuclockid: ~pid << 3, low bits the clock, bit 2 clear),
	 * is the kernel's to read for any pid, with no permission check: an
	 * outside process's CPU time, and a timer on it that signals the tool
	 * as that process runs. Only the caller's (pid 0) and P's pass; the
	 * system's clocks (>= 0), a thread's (bit 2: the kernel keeps it to
	 * the caller's own threads) and a device's (low bits 3) are not
	 * processes. */
	put(&p, LD(offsetof(struct seccomp_data, nr)));
	put(&p, JEQ(SYS_clock_gettime, 3, 0));
	put(&p, JEQ(SYS_clock_getres, 2, 0));
	put(&p, JEQ(SYS_clock_nanosleep, 1, 0));
	put(&p, JEQ(SYS_timer_create, 0, 11));
	put(&p, LD(ARG_LO(0)));
	put(&p, JSET(0x80000000u, 0, 8));
	put(&p, JSET(4, 7, 0));
	put(&p, AND(3));
	put(&p, JEQ(3, 5, 0));
	put(&p, LD(ARG_LO(0)));
	put(&p, AND(~7u));
	put(&p, JEQ(~7u, 2, 0));
	put(&p, JEQ(~P << 3, 1, 0));
	put(&p, RET(RET_EPERM));
	put(&p, RET(RET_ALLOW));
	static const int sockopt[] = { SYS_getsockopt, SYS_setsockopt };
	size_t n = 0;
	b[n++] = LD(ARG_LO(1));
	b[n++] = JEQ(SOL_SOCKET, 0, 4);
	b[n++] = LD(ARG_LO(2));
	b[n++] = JEQ(SO_PEERPIDFD, 1, 0);
	b[n++] = JEQ(SO_PASSPIDFD, 0, 1);
	b[n++] = RET(RET_EPERM);
	b[n++] = RET(RET_ALLOW);
	for (size_t i = 0; i < 2; i++)
		rule(&p, sockopt[i], b, n);
	if (notify) {
		static const int threads[] = { SYS_tkill, SYS_tgkill, SYS_rt_tgsigqueueinfo };
		b[0] = RET(RET_NOTIFY);
		for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++)
			rule(&p, threads[i], b, 1);
		/* fcntl(fd, F_SETOWN, 0 | P | -P) only; F_SETOWN_EX never. */
		n = 0;
		b[n++] = LD(ARG_LO(1));
		b[n++] = JEQ(F_SETOWN_EX, 6, 0);
		b[n++] = JEQ(F_SETOWN, 0, 4);
		b[n++] = LD(ARG_LO(2));
		b[n++] = JEQ(0, 2, 0);
		b[n++] = JEQ(P, 1, 0);
		b[n++] = JEQ(-P, 0, 1);
		b[n++] = RET(RET_ALLOW);
		b[n++] = RET(RET_EPERM);
		rule(&p, SYS_fcntl, b, n);
		n = 0;
		b[n++] = LD(ARG_LO(1));
		b[n++] = JEQ(FIOSETOWN, 1, 0);
		b[n++] = JEQ(SIOCSPGRP, 0, 1);
		b[n++] = RET(RET_EPERM);
		b[n++] = RET(RET_ALLOW);
		rule(&p, SYS_ioctl, b, n);
	}
	put(&p, RET(RET_ALLOW));
	return p.overflow ? -E2BIG : (int)p.n;
}

/* ---- the supervisor's side --------------------------------------------- */

/* Whether this kernel gives a filter a listener the supervisor can serve
 * (Linux 5.0; pidfds 5.3; the ioctls' numbers as of 5.5, when they were
 * fixed), and one more listener can be had here: a process already under
 * a filter with a listener (a container runtime's, a simulator's) cannot
 * add another (EBUSY). Asked once, of a short-lived child. */
bool sigwall_usable(void)
{
	static int usable = -1;
	if (usable >= 0)
		return usable;
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0)
		return (usable = 0);
	close(pidfd);
	pid_t pid = fork();
	if (pid == 0) {
		struct sock_filter f[] = { RET(RET_ALLOW) };
		struct sock_fprog prog = { 1, f };
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(1);
		long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		                  SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
		if (fd < 0)
			_exit(1);
		/* ID_VALID of an id never given answers ENOENT where the
		 * ioctl exists (its number changed in 5.5). */
		uint64_t id = 1;
		_exit(ioctl((int)fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0 && errno == ENOENT ? 0 :
		                                                                                 1);
	}
	int st = 1;
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	usable = pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	return usable;
}

/* /proc/ID/name's first bytes (a NUL-terminated string), or -1. */
static int read_proc(pid_t id, const char *name, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/%s", (int)id, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The process group of the process or thread id, from /proc/ID/stat
 * (field 5, after the command's closing parenthesis), or -1. */
static pid_t pgrp_of(pid_t id)
{
	char buf[512];
	if (read_proc(id, "stat", buf, sizeof buf) < 0)
		return -1;
	/* ") S PPID PGRP ...": the state, the parent, the group */
	char *p = strrchr(buf, ')'), *end;
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	(void)strtol(p + 4, &end, 10);
	if (end == p + 4 || *end != ' ')
		return -1;
	p = end + 1;
	long pgrp = strtol(p, &end, 10);
	return end == p || *end != ' ' || pgrp <= 0 ? -1 : (pid_t)pgrp;
}

/* Whether tid is a thread of tgid. */
static bool thread_of(pid_t tgid, pid_t tid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task/%d", (int)tgid, (int)tid);
	return access(path, F_OK) == 0;
}

/* The thread group (process) of thread id, or -1. */
static pid_t tgid_of(pid_t tid)
{
	char buf[1024];
	if (read_proc(tid, "status", buf, sizeof buf) < 0)
		return -1;
	char *t = strstr(buf, "\nTgid:");
	return t ? (pid_t)strtol(t + 6, NULL, 10) : -1;
}

/* The caller's siginfo (rt_*sigqueueinfo), read from its memory. Its pid
 * names the caller only while the notification is pending: checked after
 * the read, so that a caller killed meanwhile, its pid reused, cannot
 * have another process's memory sent on as a signal's data. */
static int read_info(int fd, const struct seccomp_notif *r, uint64_t addr, siginfo_t *info)
{
	struct iovec local = { info, sizeof *info },
	             remote = { (void *)(uintptr_t)addr, sizeof *info };
	uint64_t id = r->id;
	if (process_vm_readv((pid_t)r->pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof *info)
		return -EFAULT;
	return ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0 ? 0 : -ESRCH;
}

/* kill(pid, sig) or rt_sigqueueinfo: the target is opened as a pidfd
 * first, so the signal can only reach the process that was checked: were
 * it gone and its pid reused between the check and the send, the pidfd
 * names the old one and the send fails (ESRCH). */
static int send_to_process(int fd, const struct seccomp_notif *r, pid_t pgid)
{
	pid_t pid = (pid_t)r->data.args[0];
	int sig = (int)r->data.args[1];
	siginfo_t info, *ip = NULL;
	if (r->data.nr == SYS_rt_sigqueueinfo) {
		int rc = read_info(fd, r, r->data.args[2], &info);
		if (rc < 0)
			return rc;
		ip = &info;
	}
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	/* kill() of a thread's id signals its process; pidfd_open takes a
	 * process's id alone (EINVAL; ENOENT from Linux 6.9 on). */
	pid_t tgid;
	if (pidfd < 0 && (errno == EINVAL || errno == ENOENT) && (tgid = tgid_of(pid)) > 0 &&
	    tgid != pid) {
		pid = tgid;
		pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	}
	if (pidfd < 0) /* gone, or no descriptor left to check it: not sent */
		return -ESRCH;
	int rc = pgrp_of(pid) == pgid ? 0 : -EPERM;
	if (!rc && syscall(SYS_pidfd_send_signal, pidfd, sig, ip, 0) < 0)
		rc = -errno;
	close(pidfd);
	return rc;
}

/* tkill(tid, sig), tgkill(tgid, tid, sig), rt_tgsigqueueinfo(tgid, tid,
 * sig, info) to a thread of another process than the caller's (its own
 * process's go to the kernel: to_itself), or tkill to a thread of its
 * own: the thread's process must be in the group. A tgkill from here
 * would name the process by its pid alone, which may be reused between
 * the check and the send: the process is opened as a pidfd first and the
 * signal sent through it, to the process (any of its threads that does
 * not block it), as kill() would; the send fails (ESRCH) when the pid no
 * longer names the process checked. Only tkill to a thread of the
 * caller's own process keeps its thread: that process lives while the
 * notification is pending (checked just before), so tgkill names it. */
static int send_to_thread(int fd, const struct seccomp_notif *r, pid_t pgid)
{
	bool has_tgid = r->data.nr != SYS_tkill;
	pid_t tgid = has_tgid ? (pid_t)r->data.args[0] : -1;
	pid_t tid = (pid_t)r->data.args[has_tgid ? 1 : 0];
	int sig = (int)r->data.args[has_tgid ? 2 : 1];
	if (tid <= 0 || (has_tgid && tgid <= 0))
		return -EINVAL;
	if (!has_tgid && (tgid = tgid_of(tid)) < 0)
		return -ESRCH;
	siginfo_t info, *ip = NULL;
	if (r->data.nr == SYS_rt_tgsigqueueinfo) {
		int rc = read_info(fd, r, r->data.args[3], &info);
		if (rc < 0)
			return rc;
		ip = &info;
	}
	uint64_t id = r->id;
	if (!has_tgid && tgid == tgid_of((pid_t)r->pid) &&
	    ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0)
		return syscall(SYS_tgkill, tgid, tid, sig) < 0 ? -errno : 0;
	int pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
	if (pidfd < 0)
		return -ESRCH;
	int rc = !thread_of(tgid, tid)                                ? -ESRCH :
	        pgrp_of(tgid) != pgid                                 ? -EPERM :
	        syscall(SYS_pidfd_send_signal, pidfd, sig, ip, 0) < 0 ? -errno :
	                                                                0;
	close(pidfd);
	return rc;
}

/* Whether the call signals its caller: its own thread (tkill, tgkill,
 * rt_tgsigqueueinfo of its thread id), a thread of its own process
 * (tgkill, rt_tgsigqueueinfo with its process's id: pthread_kill, a
 * runtime's preemption signal), or its own process (kill,
 * rt_sigqueueinfo of its process's id: raise() in a child, a thread
 * signalling its process). Such a signal is no decision about another
 * process, and sent from here it would interrupt the caller's own wait
 * for this answer (EINTR, or under SA_RESTART the call made again and the
 * signal twice): the kernel carries it out itself (CONTINUE), and tgkill
 * there checks the thread is its process's. The caller's process is read
 * from /proc, then the notification checked still pending, so that id
 * was the caller's. */
static bool to_itself(int fd, const struct seccomp_notif *r)
{
	pid_t caller = (pid_t)r->pid;
	/* kill's pid, tkill's tid, tgkill's tgid */
	pid_t target = (pid_t)r->data.args[0];
	if (caller <= 0 || target <= 0)
		return false;
	if (r->data.nr == SYS_tkill ? target != caller :
	                              target != caller && tgid_of(caller) != target)
		return false;
	uint64_t id = r->id;
	return ioctl(fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static int decide(int fd, const struct seccomp_notif *r, pid_t pgid)
{
	switch (r->data.nr) {
	case SYS_kill:
	case SYS_rt_sigqueueinfo: return send_to_process(fd, r, pgid);
	case SYS_tkill:
	case SYS_tgkill:
	case SYS_rt_tgsigqueueinfo: return send_to_thread(fd, r, pgid);
	}
	return -EPERM;
}

int sigwall_serve(int fd, pid_t pgid, int budget, int *served)
{
	for (int i = 0; i < budget; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 0) <= 0)
			return 0;
		if (!(p.revents & POLLIN))
			return p.revents & (POLLHUP | POLLERR) ? 1 : 0;
		struct seccomp_notif req;
		memset(&req, 0, sizeof req);
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (errno == ENOENT || errno == EINTR)
				continue; /* the caller is gone (killed meanwhile) */
			return -errno;
		}
		struct seccomp_notif_resp resp = { .id = req.id };
		if (to_itself(fd, &req))
			resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		else
			resp.error = decide(fd, &req, pgid);
		if (served)
			++*served;
		(void)ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp); /* ENOENT: gone */
	}
	return 0;
}
