/* simkernel.c — runs a program as if on another kernel or in another
 * environment, so that toolcage's fallbacks can be tested on this machine.
 *
 * A seccomp filter installed before the exec makes the kernel answer as the
 * simulated one would; where an answer needs more than a register (the
 * Landlock ABI version, the flags of clone3, the filesystem type of a
 * mount) a user-notification listener held by this process gives it. The
 * filter is inherited by every descendant and stacks under toolcage's own
 * (the strictest action of all filters wins, so a tool never gets an answer
 * toolcage's filter refuses).
 *
 *   simkernel [options] -- PROGRAM [ARG...]
 *     --landlock none         no Landlock (ENOSYS, a kernel before 5.13 or
 *                             one booted without landlock in lsm=)
 *     --landlock N            Landlock ABI N (1-6): the version query says
 *                             N, rights and flags of later ABIs are refused
 *                             as that kernel refuses them (EINVAL, E2BIG)
 *     --landlock-abi N        the same, the version answered by simlandlock.so
 *                             (preloaded, beside this program) rather than
 *                             a listener: a process can sit under one
 *                             listener only, and toolcage's signal wall on
 *                             kernels before Landlock ABI 6 needs its own
 *     --userns eperm|enospc   no user namespaces: clone, clone3 and unshare
 *                             with CLONE_NEWUSER fail (EPERM: a sysctl or a
 *                             seccomp profile; ENOSPC: user.max_user_namespaces=0)
 *     --userns nocaps         a user namespace can be made, but it brings no
 *                             capabilities (Ubuntu 23.10+ with AppArmor's
 *                             restriction): further namespaces along with it,
 *                             unshare, mounts, sethostname fail with EPERM
 *     --clone3 enosys         no clone3 (older kernels, container profiles
 *                             that refuse it so that libc falls back to clone)
 *     --proc masked           a fresh proc filesystem cannot be mounted (a
 *                             container that covers parts of /proc)
 *     --caps container        as root: keep only the capabilities a
 *                             container runtime grants by default (no
 *                             CAP_SYS_ADMIN, no CAP_SYS_PTRACE ...)
 *     --mount eperm           mount, mount_setattr, open_tree, move_mount,
 *                             fsopen, pivot_root and umount fail with EPERM
 *                             (a container seccomp profile without
 *                             CAP_SYS_ADMIN)
 *     --pidfd none            no pidfds: pidfd_open fails with ENOSYS, clone
 *                             with CLONE_PIDFD with EINVAL, clone3 with
 *                             ENOSYS (gVisor's runsc, which ignores the flag,
 *                             and Linux before 5.2); and, as runsc does,
 *                             SECCOMP_GET_ACTION_AVAIL fails with EINVAL
 *     --pidfd open-enosys     pidfd_open fails with ENOSYS, CLONE_PIDFD works
 *                             (Linux 5.2, valgrind, a seccomp profile)
 *     --mount-rprivate einval mount(MS_REC | MS_PRIVATE) fails with EINVAL
 *                             (gVisor's runsc, Linux in a chroot)
 *     --sock-diag none        no NETLINK_SOCK_DIAG socket (a kernel or a
 *                             seccomp profile without it): the kernel cannot
 *                             say whose a TCP connection is
 *     --container-default     what a Docker or Kubernetes (RuntimeDefault)
 *                             container gives: --caps container (as root),
 *                             namespaces refused (EPERM), --clone3 enosys,
 *                             --mount eperm, --proc masked
 *
 * Exits with the program's status (128+N for a signal), or 125 when the
 * simulation cannot be set up (it says why). Needs libseccomp 2.5 (user
 * notifications); Linux 5.9 (SECCOMP_USER_NOTIF_FLAG_CONTINUE).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <sys/mount.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#define NS_FLAGS                                                                                   \
	(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |             \
	 CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME)

enum userns_mode { USERNS_REAL, USERNS_EPERM, USERNS_ENOSPC, USERNS_NOCAPS };

struct sim {
	int landlock;          /* -1 real, 0 none, 1-6 that ABI */
	bool landlock_preload; /* the version answered by simlandlock.so */
	enum userns_mode userns;
	bool all_ns_eperm; /* every namespace flag refused (container) */
	bool clone3_enosys;
	bool proc_masked;
	bool container_caps;
	bool mount_eperm;
	bool no_sock_diag;
	bool no_pidfd;
	bool pidfd_open_enosys;
	bool mount_rprivate_einval;
};

static void usage(void)
{
	fputs("usage: simkernel [--landlock none|1-6] [--landlock-abi 1-6]\n"
	      "                 [--userns eperm|enospc|nocaps]\n"
	      "                 [--clone3 enosys] [--proc masked] [--caps container]\n"
	      "                 [--mount eperm] [--sock-diag none] [--container-default]\n"
	      "                 [--pidfd none|open-enosys] [--mount-rprivate einval]\n"
	      "                 -- PROGRAM [ARG...]\n",
	      stderr);
	exit(125);
}

_Noreturn static void die(const char *what, int err)
{
	fprintf(stderr, "simkernel: %s: %s\n", what, strerror(err));
	exit(125);
}

/* Landlock: what each ABI knows (the kernel's uapi header, landlock.rst). */
static uint64_t ll_fs_mask(int abi)
{
	uint64_t m = (1ULL << 13) - 1; /* ABI 1: execute .. make_sym */
	if (abi >= 2)
		m |= 1ULL << 13; /* refer */
	if (abi >= 3)
		m |= 1ULL << 14; /* truncate */
	if (abi >= 5)
		m |= 1ULL << 15; /* ioctl_dev */
	return m;
}

static size_t ll_attr_size(int abi)
{
	return abi >= 6 ? 24 : abi >= 4 ? 16 : 8;
}

#define LL_VERSION       1u
#define LL_ERRATA        2u /* ABI 7 */
#define LL_RULE_NET_PORT 2

static int rule(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned n,
                const struct scmp_arg_cmp *cmp)
{
	int nr = seccomp_syscall_resolve_name(name);
	if (nr == __NR_SCMP_ERROR)
		return 0; /* not on this architecture */
	int rc = seccomp_rule_add_array(ctx, action, nr, n, cmp);
	if (rc < 0) {
		fprintf(stderr, "simkernel: rule for %s: %s\n", name, strerror(-rc));
		exit(125);
	}
	return 0;
}

static void add_landlock(scmp_filter_ctx ctx, const struct sim *s)
{
	if (s->landlock < 0)
		return;
	if (s->landlock == 0) {
		rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "landlock_create_ruleset", 0, NULL);
		rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "landlock_add_rule", 0, NULL);
		rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "landlock_restrict_self", 0, NULL);
		return;
	}
	if (!s->landlock_preload)
		rule(ctx, SCMP_ACT_NOTIFY, "landlock_create_ruleset", 0, NULL);
	if (s->landlock < 4) { /* no network rules before ABI 4 */
		struct scmp_arg_cmp net = SCMP_A1(SCMP_CMP_EQ, LL_RULE_NET_PORT);
		rule(ctx, SCMP_ACT_ERRNO(EINVAL), "landlock_add_rule", 1, &net);
	}
	/* landlock_restrict_self() takes flags from ABI 7 on. */
	struct scmp_arg_cmp flags = SCMP_A1(SCMP_CMP_NE, 0);
	rule(ctx, SCMP_ACT_ERRNO(EINVAL), "landlock_restrict_self", 1, &flags);
}

/* clone(2) and unshare(2) carry their flags in a register; clone3's are in
 * memory, which only the listener can read. */
static void add_namespaces(scmp_filter_ctx ctx, const struct sim *s)
{
	uint64_t refused = 0;
	int err = EPERM;
	if (s->all_ns_eperm)
		refused = NS_FLAGS;
	else if (s->userns == USERNS_EPERM || s->userns == USERNS_ENOSPC)
		refused = CLONE_NEWUSER;
	if (s->userns == USERNS_ENOSPC && !s->all_ns_eperm)
		err = ENOSPC;
	for (int bit = 0; bit < 64; bit++) {
		uint64_t f = 1ULL << bit;
		if (!(refused & f))
			continue;
		struct scmp_arg_cmp c = SCMP_A0(SCMP_CMP_MASKED_EQ, f, f);
		rule(ctx, SCMP_ACT_ERRNO(err), "clone", 1, &c);
		rule(ctx, SCMP_ACT_ERRNO(err), "unshare", 1, &c);
	}
	if (s->userns == USERNS_NOCAPS && !s->all_ns_eperm) {
		/* The user namespace alone is made; anything that needs a
		 * capability in it is refused. A clone with it and others
		 * too is judged by the listener (flags in one register here,
		 * but libseccomp compares against one mask per rule). */
		rule(ctx, SCMP_ACT_NOTIFY, "clone", 0, NULL);
		rule(ctx, SCMP_ACT_ERRNO(EPERM), "unshare", 0, NULL);
		rule(ctx, SCMP_ACT_ERRNO(EPERM), "sethostname", 0, NULL);
		rule(ctx, SCMP_ACT_ERRNO(EPERM), "setdomainname", 0, NULL);
	}
	if (s->no_pidfd) {
		struct scmp_arg_cmp c = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_PIDFD, CLONE_PIDFD);
		rule(ctx, SCMP_ACT_ERRNO(EINVAL), "clone", 1, &c);
	}
	if (s->no_pidfd || s->pidfd_open_enosys)
		rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "pidfd_open", 0, NULL);
	if (s->no_pidfd) { /* runsc runs filters but will not say which actions */
		struct scmp_arg_cmp c = SCMP_A0(SCMP_CMP_EQ, SECCOMP_GET_ACTION_AVAIL);
		rule(ctx, SCMP_ACT_ERRNO(EINVAL), "seccomp", 1, &c);
	}
	if (s->clone3_enosys || s->no_pidfd)
		rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL);
	else if (refused || s->userns == USERNS_NOCAPS)
		rule(ctx, SCMP_ACT_NOTIFY, "clone3", 0, NULL);
}

static void add_mounts(scmp_filter_ctx ctx, const struct sim *s)
{
	static const char *const calls[] = {
		"mount",  "umount2", "mount_setattr", "open_tree", "move_mount",
		"fsopen", "fsmount", "fsconfig",      "fspick",    "pivot_root",
	};
	bool nocaps = s->userns == USERNS_NOCAPS;
	if (s->mount_eperm || nocaps) {
		for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
			rule(ctx, SCMP_ACT_ERRNO(EPERM), calls[i], 0, NULL);
		return;
	}
	if (s->mount_rprivate_einval) {
		/* The flags alone, as toolcage asks (no type, no source). */
		struct scmp_arg_cmp c = SCMP_A3(SCMP_CMP_EQ, MS_REC | MS_PRIVATE);
		rule(ctx, SCMP_ACT_ERRNO(EINVAL), "mount", 1, &c);
	}
	if (s->proc_masked) {
		rule(ctx, SCMP_ACT_NOTIFY, "mount", 0, NULL);
		/* The new mount API would reach proc too: fsopen("proc"). */
		rule(ctx, SCMP_ACT_NOTIFY, "fsopen", 0, NULL);
	}
}

/* The capabilities Docker, podman and containerd grant a container's root
 * by default (their documentation). */
static void drop_to_container_caps(void)
{
	static const int keep[] = {
		CAP_CHOWN,   CAP_DAC_OVERRIDE, CAP_FSETID,           CAP_FOWNER,
		CAP_MKNOD,   CAP_NET_RAW,      CAP_SETGID,           CAP_SETUID,
		CAP_SETFCAP, CAP_SETPCAP,      CAP_NET_BIND_SERVICE, CAP_SYS_CHROOT,
		CAP_KILL,    CAP_AUDIT_WRITE,
	};
	if (geteuid() != 0)
		die("--caps container needs root", EPERM);
	uint64_t set = 0;
	for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
		set |= 1ULL << keep[i];
	for (int c = 0; c < 64; c++)
		if (!(set & (1ULL << c)) && prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1 &&
		    prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
			die("drop from the bounding set", errno);
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &hdr, d) < 0)
		die("capget", errno);
	for (int i = 0; i < 2; i++) {
		uint32_t part = (uint32_t)(set >> (32 * i));
		d[i].effective &= part;
		d[i].permitted &= part;
		d[i].inheritable &= part;
	}
	if (syscall(SYS_capset, &hdr, d) < 0)
		die("capset", errno);
}

/* ---- the listener ------------------------------------------------------ */

static int read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	return n == (ssize_t)len ? 0 : -1;
}

/* What to answer: *err (0: *val is the result) or continue with the real
 * system call. */
struct answer {
	bool cont;
	int err;
	int64_t val;
};

static struct answer landlock_create(const struct sim *s, const struct seccomp_notif *n)
{
	uint64_t attr = n->data.args[0], size = n->data.args[1], flags = n->data.args[2];
	if (flags & LL_VERSION) {
		if (attr || size || flags != LL_VERSION)
			return (struct answer){ .err = EINVAL };
		return (struct answer){ .val = s->landlock };
	}
	if (flags) /* LL_ERRATA and later flags are ABI 7 */
		return (struct answer){ .err = EINVAL };
	unsigned char buf[64] = { 0 };
	if (size < 8)
		return (struct answer){ .err = EINVAL };
	size_t take = size < sizeof buf ? (size_t)size : sizeof buf;
	if (read_mem((pid_t)n->pid, attr, buf, take) < 0)
		return (struct answer){ .cont = true }; /* cannot look: the kernel judges */
	size_t known = ll_attr_size(s->landlock);
	for (size_t i = known; i < take; i++)
		if (buf[i])
			return (struct answer){ .err = E2BIG };
	uint64_t fs, net = 0, scoped = 0;
	memcpy(&fs, buf, 8);
	if (known >= 16)
		memcpy(&net, buf + 8, 8);
	if (known >= 24)
		memcpy(&scoped, buf + 16, 8);
	if ((fs & ~ll_fs_mask(s->landlock)) || (net & ~3ULL) || (scoped & ~3ULL))
		return (struct answer){ .err = EINVAL };
	if (!fs && !net && !scoped)
		return (struct answer){ .err = ENOMSG };
	return (struct answer){ .cont = true };
}

static struct answer clone_flags(const struct sim *s, uint64_t flags)
{
	if (s->userns == USERNS_EPERM && (flags & CLONE_NEWUSER))
		return (struct answer){ .err = EPERM };
	if (s->userns == USERNS_ENOSPC && (flags & CLONE_NEWUSER))
		return (struct answer){ .err = ENOSPC };
	if (s->userns == USERNS_NOCAPS && (flags & CLONE_NEWUSER) &&
	    (flags & NS_FLAGS & ~(uint64_t)CLONE_NEWUSER))
		return (struct answer){ .err = EPERM };
	return (struct answer){ .cont = true };
}

/* Whether pid is in a user namespace other than ours: one made under the
 * restriction, where no capability holds. */
static bool in_child_userns(pid_t pid)
{
	char path[64], mine[64] = "", theirs[64] = "";
	snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
	if (readlink("/proc/self/ns/user", mine, sizeof mine - 1) < 0 ||
	    readlink(path, theirs, sizeof theirs - 1) < 0)
		return false;
	return strcmp(mine, theirs) != 0;
}

static struct answer clone_of(const struct sim *s, pid_t pid, uint64_t flags)
{
	if (s->userns == USERNS_NOCAPS && (flags & NS_FLAGS) && in_child_userns(pid))
		return (struct answer){ .err = EPERM };
	return clone_flags(s, flags);
}

static struct answer clone3(const struct sim *s, const struct seccomp_notif *n)
{
	uint64_t flags;
	if (n->data.args[1] < 8)
		return (struct answer){ .err = EINVAL };
	/* Unreadable: refuse as a kernel without clone3 would; libc then
	 * falls back to clone, whose flags the filter sees. */
	if (read_mem((pid_t)n->pid, n->data.args[0], &flags, sizeof flags) < 0)
		return (struct answer){ .err = ENOSYS };
	return clone_of(s, (pid_t)n->pid, flags);
}

/* mount(source, target, "proc", ...) or fsopen("proc", ...). */
static struct answer mount_proc(const struct seccomp_notif *n, int fstype_arg)
{
	char fstype[8] = { 0 };
	uint64_t p = n->data.args[fstype_arg];
	if (!p)
		return (struct answer){ .cont = true };
	/* Byte by byte up to 5: a short string may end near a page edge. */
	for (size_t i = 0; i < 5; i++) {
		if (read_mem((pid_t)n->pid, p + i, fstype + i, 1) < 0)
			return (struct answer){ .cont = true };
		if (!fstype[i])
			break;
	}
	if (!strcmp(fstype, "proc"))
		return (struct answer){ .err = EPERM };
	return (struct answer){ .cont = true };
}

static void serve(int fd, const struct sim *s, const int nr[5])
{
	struct seccomp_notif *req = NULL;
	struct seccomp_notif_resp *resp = NULL;
	if (seccomp_notify_alloc(&req, &resp) < 0)
		die("seccomp_notify_alloc", ENOMEM);
	if (seccomp_notify_receive(fd, req) < 0) {
		seccomp_notify_free(req, resp);
		return; /* the caller died meanwhile (ENOENT) */
	}
	struct answer a = { .cont = true };
	if (req->data.nr == nr[0])
		a = landlock_create(s, req);
	else if (req->data.nr == nr[1])
		a = clone3(s, req);
	else if (req->data.nr == nr[2])
		a = clone_of(s, (pid_t)req->pid, req->data.args[0]);
	else if (req->data.nr == nr[3])
		a = mount_proc(req, 2);
	else if (req->data.nr == nr[4])
		a = mount_proc(req, 0);
	resp->id = req->id;
	resp->flags = a.cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0;
	resp->error = a.cont ? 0 : -a.err;
	resp->val = a.cont || a.err ? 0 : a.val;
	if (seccomp_notify_id_valid(fd, req->id) == 0)
		(void)seccomp_notify_respond(fd, resp);
	seccomp_notify_free(req, resp);
}

static int parse(int argc, char **argv, struct sim *s)
{
	*s = (struct sim){ .landlock = -1 };
	int i = 1;
	for (; i < argc && strcmp(argv[i], "--"); i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
		if (!strcmp(o, "--landlock")) {
			char *end;
			long n = strtol(v, &end, 10);
			if (!strcmp(v, "none"))
				s->landlock = 0;
			else if (*end || n < 1 || n > 6)
				usage();
			else
				s->landlock = (int)n;
			i++;
		} else if (!strcmp(o, "--landlock-abi")) {
			char *end;
			long n = strtol(v, &end, 10);
			if (*end || n < 1 || n > 6)
				usage();
			s->landlock = (int)n;
			s->landlock_preload = true;
			i++;
		} else if (!strcmp(o, "--userns")) {
			if (!strcmp(v, "eperm"))
				s->userns = USERNS_EPERM;
			else if (!strcmp(v, "enospc"))
				s->userns = USERNS_ENOSPC;
			else if (!strcmp(v, "nocaps"))
				s->userns = USERNS_NOCAPS;
			else
				usage();
			i++;
		} else if (!strcmp(o, "--clone3") && !strcmp(v, "enosys")) {
			s->clone3_enosys = true;
			i++;
		} else if (!strcmp(o, "--proc") && !strcmp(v, "masked")) {
			s->proc_masked = true;
			i++;
		} else if (!strcmp(o, "--caps") && !strcmp(v, "container")) {
			s->container_caps = true;
			i++;
		} else if (!strcmp(o, "--mount") && !strcmp(v, "eperm")) {
			s->mount_eperm = true;
			i++;
		} else if (!strcmp(o, "--pidfd") && !strcmp(v, "none")) {
			s->no_pidfd = true;
			i++;
		} else if (!strcmp(o, "--pidfd") && !strcmp(v, "open-enosys")) {
			s->pidfd_open_enosys = true;
			i++;
		} else if (!strcmp(o, "--mount-rprivate") && !strcmp(v, "einval")) {
			s->mount_rprivate_einval = true;
			i++;
		} else if (!strcmp(o, "--sock-diag") && !strcmp(v, "none")) {
			s->no_sock_diag = true;
			i++;
		} else if (!strcmp(o, "--container-default")) {
			s->container_caps = geteuid() == 0;
			s->all_ns_eperm = s->clone3_enosys = s->mount_eperm = s->proc_masked = true;
		} else {
			usage();
		}
	}
	if (i + 1 >= argc)
		usage();
	return i + 1;
}

/* The listener's fd, from the child that loaded the filter (or -1). */
static void send_fd(int sock, int fd)
{
	char byte = fd >= 0 ? 'F' : 'N';
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (fd >= 0) {
		m.msg_control = u.buf;
		m.msg_controllen = sizeof u.buf;
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof fd);
	}
	if (sendmsg(sock, &m, 0) != 1)
		die("send the listener", errno);
}

static int recv_fd(int sock)
{
	char byte = 0;
	struct iovec iov = { &byte, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m = { .msg_iov = &iov,
		            .msg_iovlen = 1,
		            .msg_control = u.buf,
		            .msg_controllen = sizeof u.buf };
	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return -2; /* the child failed before (it said why) */
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	int fd = -1;
	if (byte == 'F' && c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof fd);
	return fd;
}

/* --landlock-abi: simlandlock.so, beside this program, answers the
 * version query in the program itself (no listener: the program may need
 * one of its own). Not in an ASan build's way: it would refuse a library
 * loaded before its runtime. */
static void preload_landlock(int abi)
{
	char self[4096], lib[4200], env[8400], n[8];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len <= 0)
		die("readlink /proc/self/exe", errno);
	self[len] = '\0';
	char *slash = strrchr(self, '/');
	*slash = '\0';
	snprintf(lib, sizeof lib, "%s/simlandlock.so", self);
	if (access(lib, R_OK) < 0)
		die(lib, errno);
	const char *old = getenv("LD_PRELOAD");
	snprintf(env, sizeof env, "%s%s%s", lib, old ? ":" : "", old ? old : "");
	snprintf(n, sizeof n, "%d", abi);
	const char *asan = getenv("ASAN_OPTIONS");
	char asan_env[2048];
	snprintf(asan_env, sizeof asan_env, "%s%sverify_asan_link_order=0", asan ? asan : "",
	         asan && *asan ? ":" : "");
	if (setenv("LD_PRELOAD", env, 1) < 0 || setenv("SIMKERNEL_LANDLOCK_ABI", n, 1) < 0 ||
	    setenv("ASAN_OPTIONS", asan_env, 1) < 0)
		die("setenv", errno);
}

/* In the child: the capabilities, the filter, then the program. */
_Noreturn static void child(const struct sim *s, int sock, char **argv)
{
	if (s->container_caps)
		drop_to_container_caps();
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		die("seccomp_init", ENOMEM);
	/* no_new_privs only where the filter needs it: root keeps setuid
	 * programs working as on the simulated system. */
	bool admin = prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN, 0, 0, 0) == 1 && geteuid() == 0 &&
	        !s->container_caps;
	seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, admin ? 0 : 1);
	add_landlock(ctx, s);
	add_namespaces(ctx, s);
	add_mounts(ctx, s);
	if (s->no_sock_diag) {
		struct scmp_arg_cmp c[] = { SCMP_A0(SCMP_CMP_EQ, AF_NETLINK),
			                    SCMP_A2(SCMP_CMP_EQ, NETLINK_SOCK_DIAG) };
		rule(ctx, SCMP_ACT_ERRNO(EPROTONOSUPPORT), "socket", 2, c);
	}
	int rc = seccomp_load(ctx);
	if (rc < 0)
		die("seccomp_load", -rc);
	send_fd(sock, seccomp_notify_fd(ctx)); /* -1 when no rule notifies */
	close(sock);
	if (s->landlock_preload)
		preload_landlock(s->landlock);
	execvp(argv[0], argv);
	fprintf(stderr, "simkernel: exec %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static volatile pid_t program;
static pid_t launcher;

/* The signals a launcher is sent are meant for its program (a test that
 * runs `simkernel ... -- toolcage serve &` and kills $!). */
static void pass_on(int sig)
{
	if (program > 0)
		kill(program, sig);
}

int main(int argc, char **argv)
{
	struct sim s;
	int first = parse(argc, argv, &s);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair", errno);
	launcher = getpid();
	pid_t pid = fork();
	if (pid < 0)
		die("fork", errno);
	if (pid == 0) {
		/* A launcher killed outright takes its program with it. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != launcher)
			_exit(125);
		close(sv[0]);
		child(&s, sv[1], argv + first);
	}
	close(sv[1]);
	int fd = recv_fd(sv[0]);
	close(sv[0]);
	const int nr[5] = {
		seccomp_syscall_resolve_name("landlock_create_ruleset"),
		seccomp_syscall_resolve_name("clone3"),
		seccomp_syscall_resolve_name("clone"),
		seccomp_syscall_resolve_name("mount"),
		seccomp_syscall_resolve_name("fsopen"),
	};
	signal(SIGINT, SIG_IGN); /* the program decides; we follow it */
	program = pid;
	struct sigaction sa = { .sa_handler = pass_on };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		die("pidfd_open", errno);
	for (;;) {
		struct pollfd p[2] = { { .fd = pidfd, .events = POLLIN },
			               { .fd = fd, .events = POLLIN } };
		if (poll(p, fd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll", errno);
		}
		if (p[1].revents & POLLIN)
			serve(fd, &s, nr);
		if (p[0].revents & POLLIN)
			break;
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
