/* seccomp.c — turns a profile's syscall policy into one classic BPF program
 * with libseccomp, once per jail, in the parent. The child only loads the
 * bytes (child.c). The shipped profiles' filters are compiled at build time
 * by this same code (mk/gen_filters.c): compiling one costs ~0.5 ms, a
 * tenth of a `toolcage exec`; seccomp_build() finds them by a key naming
 * everything a filter depends on, and compiles any other.
 *
 * The base rules below hold in every profile; a profile can only add to
 * them. Each rule says the attack it stops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/fscrypt.h>
#include <linux/fsverity.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* Denied (EPERM) in every profile. */
static const char *const base_deny[] = {
	/* reach into other processes */
	"ptrace",
	"process_vm_readv",
	"process_vm_writev",
	"pidfd_getfd",
	"process_madvise",
	"kcmp",
	/* large kernel attack surface a tool does not need */
	"io_uring_setup",
	"io_uring_enter",
	"io_uring_register",
	"bpf",
	"perf_event_open",
	"userfaultfd",
	"keyctl",
	"add_key",
	"request_key",
	"lookup_dcookie",
	/* file watches: a watch is no open, and Landlock never checks it.
	 * The mount namespace shares what Landlock does not grant (home
	 * directories, the workspace's siblings; without one, the host's /tmp
	 * and the hidden paths too): a watch on a directory there names every
	 * file any process makes or opens in it, one on a file tells each read
	 * and write of it. Watchers (tail -f, a build's watch mode) poll. */
	"inotify_init",
	"inotify_init1",
	"fanotify_init",
	/* native AIO: its contexts count against one host-wide limit
	 * (fs.aio-max-nr), which a tool could use up for the host's databases
	 * and VMs; glibc's POSIX AIO uses threads, not these */
	"io_setup",
	"io_submit",
	"io_cancel",
	"io_destroy",
	"io_getevents",
	"io_pgetevents",
	/* namespaces and mounts: no re-nesting, no view changes */
	"unshare",
	"setns",
	"mount",
	"umount2",
	"fsopen",
	"fsconfig",
	"fsmount",
	"fspick",
	"move_mount",
	"open_tree",
	"mount_setattr",
	"chroot",
	"pivot_root",
	/* file handles bypass path-based rules (the "shocker" escape) */
	"open_by_handle_at",
	"name_to_handle_at",
	/* the machine itself */
	"kexec_load",
	"kexec_file_load",
	"init_module",
	"finit_module",
	"delete_module",
	"reboot",
	"swapon",
	"swapoff",
	"acct",
	"quotactl",
	"quotactl_fd",
	"syslog",
	"vhangup",
	"iopl",
	"ioperm",
	"modify_ldt",
	"settimeofday",
	"clock_settime",
	"clock_adjtime",
	"adjtimex",
	"sethostname",
	"setdomainname",
	"uselib",
	"ustat",
	"sysfs",
	"_sysctl",
	"nfsservctl",
	NULL,
};

/* System V IPC and POSIX message queues reach every process of the host
 * that left an object open to the tool's uid (root's shared memory, when
 * root owns the workspace). An ipc namespace would give the tool its own,
 * but creating one costs ~80 us per call here; without one (the shipped
 * profiles), the calls are refused instead. */
static const char *const sysv_ipc[] = {
	"shmget",    "shmat",        "shmctl",          "semget",    "semop",         "semtimedop",
	"semctl",    "msgget",       "msgsnd",          "msgrcv",    "msgctl",        "mq_open",
	"mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr", NULL,
};

/* Only a namespace no kernel refusal can drop (clone.c drops optional ones
 * when clone3 fails) lets the tool have IPC. */
static bool own_ipc_namespace(const struct sbx_spec *spec)
{
	return (spec->namespaces & SBX_NS_IPC) &&
	        !(spec->optional & (SBX_REQ_NS_IPC | SBX_REQ_NS_USER));
}

/* Setuid and setgid files matter only where they outlive the call: a
 * profile that writes no host path and cannot go without its mount
 * namespace (where every host mount is read-only: child.c) needs no rules
 * against making them; its private /tmp is nosuid and goes with the call.
 * Fewer rules, a shorter filter to compile at each launch. */
static bool host_read_only(const struct sbx_spec *spec)
{
	return !spec->workspace_write && !(spec->write_paths && spec->write_paths[0]) &&
	        (spec->namespaces & SBX_NS_MOUNT) &&
	        !(spec->optional & (SBX_REQ_NS_MOUNT | SBX_REQ_NS_USER));
}

/* Newer than libseccomp 2.5's table: added by x86_64 number. */
static const struct {
	int nr;
	const char *name;
} base_deny_nr[] = {
	{ 457, "statmount" },
	{ 458, "listmount" },
	{ 467, "open_tree_attr" },
	{ 469, "file_setattr" }, /* add_inode_ioctl_rules' attributes, by path */
};

/* Namespace flags clone(2) must not carry: re-nesting would hand the tool
 * capabilities in a fresh user namespace. */
static const unsigned long clone_ns_flags[] = {
	CLONE_NEWNS,  CLONE_NEWUTS, CLONE_NEWIPC,    CLONE_NEWUSER,
	CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP,
};

/* A rule the filter already has in a stronger form (a profile denied the
 * whole syscall) is not an error. */
/* Syscalls the base rules filter by their arguments: an allow-list entry
 * for one would be a rule without arguments, and libseccomp lets that beat
 * the argument rules, lifting the base rules. Refused in allow lists. */
static const char *const base_arg_filtered[] = {
	"clone",  "clone3", "ioctl", "personality", "socket",   "socketpair",
	"bind",   "listen", "chmod", "fchmod",      "fchmodat", "open",
	"openat", "creat",  "mknod", "mknodat",     NULL,
};

static bool listed(const char *const *list, const char *name)
{
	for (size_t i = 0; list && list[i]; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

/* A worker (worker.c) loads one part of a filter once, for all the
 * children it forks, and each child loads the other part: the rules for a
 * system call live in exactly one part, so a child, which runs both, is
 * answered as by the whole filter, and loads the short part only (the
 * kernel compiles every instruction of a filter at each load: the whole
 * filter was the dearest step of a served call's child).
 *
 * The worker's part holds the rules of the calls the worker and a child
 * before its own filter never make: the base lists above but for the
 * calls below that they do make, and the calls whose base rules match
 * only arguments they never pass (an ioctl or fcntl command,
 * MSG_FASTOPEN, another personality, set-id modes, a socketpair), and
 * a change of RLIMIT_CORE, which the worker makes for its children before
 * it loads its part (worker.c: a child's own setting of it is then
 * skipped, the value being the same already).
 * Every other call's rules go to the child's part, and so does any call
 * the profile names in a list. Were a call held by the worker that it
 * makes, the worker would fail; a tool is never freer. */
static const char *const worker_makes[] = {
	"unshare", "setns",      "mount",     "umount2",       "fsopen", "fsconfig",   "fsmount",
	"fspick",  "move_mount", "open_tree", "mount_setattr", "chroot", "pivot_root", NULL,
};
static const char *const worker_args_never[] = {
	"personality", "ioctl", "fcntl", "sendto", "sendmsg",   "sendmmsg",  "socketpair", "chmod",
	"fchmod",      "open",  "creat", "mknod",  "setrlimit", "prlimit64", NULL,
};

struct rules {
	scmp_filter_ctx ctx;
	const struct sbx_spec *spec;
	enum filter_part part; /* only this part's rules are added */
};

/* Whether the worker's part holds nr's rules (by number where libseccomp
 * 2.5 has no name: statmount, listmount and file_setattr). */
static bool worker_holds(const struct sbx_spec *spec, int nr)
{
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
	if (!name)
		return nr == 457 || nr == 458 || nr == 469;
	bool held = ((listed(base_deny, name) || listed(sysv_ipc, name)) &&
	             !listed(worker_makes, name)) ||
	        listed(worker_args_never, name);
	held = held && !listed(spec->seccomp_kill, name) && !listed(spec->seccomp_deny, name) &&
	        !listed(spec->seccomp_allow, name);
	free(name);
	return held;
}

static int add(struct rules *r, uint32_t action, int nr, unsigned n, const struct scmp_arg_cmp *cmp)
{
	if (r->part != FILTER_WHOLE && worker_holds(r->spec, nr) != (r->part == FILTER_WORKER))
		return 0; /* the other part's rule */
	int rc = seccomp_rule_add_array(r->ctx, action, nr, n, cmp);
	/* -EACCES: the action is the filter's default (a "default: errno"
	 * profile), so the rule is already in force. */
	return rc == -EEXIST || rc == -EACCES ? 0 : rc;
}

/* The ioctls that change an inode's metadata from any descriptor, a
 * read-only one too, refused in every profile (by command: the low 32
 * bits, as the kernel compares them). Without a mount namespace no
 * read-only mount stands between a tool and the files its uid owns, and
 * Landlock governs opening, not ioctl on an open file; in a path the tool
 * may write, no mount refuses them either. chattr's inode flags (+F makes
 * an empty directory case-insensitive, where .GIT/config is the
 * .git/config git reads and the protected paths' names do not match),
 * xfs's extended attributes (a project id changed escapes a project quota
 * bounding the workspace), the generation, fs-verity (which freezes a file
 * for good), an encryption policy, and extents deduplicated into a file
 * the tool may only read. file_setattr(2) sets the same attributes by
 * path: refused with the base calls (base_deny_nr). */
static int add_inode_ioctl_rules(struct rules *r)
{
	static const unsigned long cmds[] = {
		FS_IOC_SETFLAGS,
		FS_IOC32_SETFLAGS,
		FS_IOC_FSSETXATTR,
		FS_IOC_SETVERSION,
		FS_IOC32_SETVERSION,
		FS_IOC_ENABLE_VERITY,
		FS_IOC_SET_ENCRYPTION_POLICY,
		FIDEDUPERANGE,
	};
	int rc = 0;
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0] && !rc; i++) {
		struct scmp_arg_cmp c = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, cmds[i]);
		rc = add(r, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1, &c);
	}
	return rc;
}

/* A setuid or setgid file made in the workspace outlives the call: run on
 * the host later, it runs as its owner (root, when root owns the
 * workspace). Refused wherever seccomp can see the mode. openat2() carries
 * its mode in memory seccomp cannot read: docs/security.md says so. */
static int add_setid_rules(struct rules *r)
{
	static const struct {
		const char *name;
		unsigned arg;
	} mode_args[] = {
		{ "chmod", 1 },  { "fchmod", 1 }, { "fchmodat", 2 }, { "open", 2 },
		{ "openat", 3 }, { "creat", 1 },  { "mknod", 1 },    { "mknodat", 2 },
	};
	static const unsigned long bits[] = { S_ISUID, S_ISGID };
	int rc = 0;
	for (size_t i = 0; i < sizeof mode_args / sizeof mode_args[0] && !rc; i++) {
		int nr = seccomp_syscall_resolve_name(mode_args[i].name);
		for (size_t b = 0; b < 2 && !rc; b++) {
			struct scmp_arg_cmp c = { mode_args[i].arg, SCMP_CMP_MASKED_EQ, bits[b],
				                  bits[b] };
			rc = add(r, SCMP_ACT_ERRNO(EPERM), nr, 1, &c);
		}
	}
	for (size_t b = 0; b < 2 && !rc; b++) { /* fchmodat2 (452): newer than libseccomp 2.5 */
		struct scmp_arg_cmp c = { 2, SCMP_CMP_MASKED_EQ, bits[b], bits[b] };
		rc = add(r, SCMP_ACT_ERRNO(EPERM), 452, 1, &c);
	}
	return rc;
}

/* Rules with action for every value of argument arg in [lo, hi), by the
 * fewest aligned blocks, one MASKED_EQ each (a value in the block, its
 * offset bits cleared, is the block's start; one with bits set above the
 * block is in none). A rule per value had made the filter many times as
 * long, and every instruction is compiled again at each launch
 * (docs/performance.md). */
static int add_blocks(struct rules *r, uint32_t action, int nr, unsigned arg, uint64_t lo,
                      uint64_t hi)
{
	int rc = 0;
	while (lo < hi && !rc) {
		uint64_t size = lo ? lo & -lo : UINT64_C(1) << 63;
		while (size > hi - lo)
			size >>= 1;
		struct scmp_arg_cmp c = size == 1 ?
		        (struct scmp_arg_cmp){ arg, SCMP_CMP_EQ, lo, 0 } :
		        (struct scmp_arg_cmp){ arg, SCMP_CMP_MASKED_EQ, ~(size - 1), lo };
		rc = add(r, action, nr, 1, &c);
		lo += size;
	}
	return rc;
}

/* Denies every value of argument arg but the allowed ones (ascending):
 * everything above the last by one GE rule (values with high bits set
 * included: the kernel would truncate them to an int), each gap below by
 * blocks. */
static int deny_except(struct rules *r, uint32_t action, int nr, unsigned arg,
                       const uint64_t *allowed, size_t n)
{
	if (!n)
		return add(r, action, nr, 0, NULL);
	uint64_t lo = 0;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; lo = allowed[i++] + 1)
		rc = add_blocks(r, action, nr, arg, lo, allowed[i]);
	struct scmp_arg_cmp above = { arg, SCMP_CMP_GE, lo, 0 };
	return rc ? rc : add(r, action, nr, 1, &above);
}

/* Allows every value of argument arg below `below` but the refused ones
 * (ascending): the allow rule of a list for a call whose base rules refuse
 * some of its arguments. An allow rule without arguments would beat them
 * (libseccomp drops the rules a shorter one covers), so it takes only the
 * values they leave; any other (past `below`, or with bits set above the
 * low 32 that the kernel drops) gets the filter's default. */
static int allow_except(struct rules *r, int nr, unsigned arg, uint64_t below,
                        const uint64_t *refused, size_t n)
{
	uint64_t lo = 0;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; lo = refused[i++] + 1)
		rc = add_blocks(r, SCMP_ACT_ALLOW, nr, arg, lo, refused[i]);
	return rc ? rc : add_blocks(r, SCMP_ACT_ALLOW, nr, arg, lo, below);
}

/* The calls an allow list may name whose base rules refuse some values of
 * one argument: the allow rule takes the others below `below` (every
 * command or resource the kernel has is below it), and every call whose
 * argument `unless` is 0 (prlimit64 reading a limit alone). */
static const struct {
	const char *name;
	unsigned arg;
	uint64_t below;
	uint64_t refused[2];
	size_t n;
	int unless;
} allow_around[] = {
	{ "fcntl", 1, 2048, { F_SETLEASE, F_NOTIFY }, 2, -1 },
	{ "setrlimit", 0, RLIM_NLIMITS, { RLIMIT_CORE }, 1, -1 },
	{ "prlimit64", 1, RLIM_NLIMITS, { RLIMIT_CORE }, 1, 2 },
};

/* socket(2): only the profile's families; none at all when it has none.
 * Raw and packet sockets are refused whatever the family; netlink only
 * for NETLINK_ROUTE (getaddrinfo's AI_ADDRCONFIG). */
static int add_socket_rules(struct rules *r, unsigned fams, bool udp)
{
	uint32_t deny = SCMP_ACT_ERRNO(EACCES);
	int nr = SCMP_SYS(socket);
	uint64_t allowed[4];
	size_t n = 0;
	if (fams & SBX_AF_UNIX)
		allowed[n++] = AF_UNIX;
	if (fams & SBX_AF_INET)
		allowed[n++] = AF_INET;
	if (fams & SBX_AF_INET6)
		allowed[n++] = AF_INET6;
	if (fams & SBX_AF_NETLINK)
		allowed[n++] = AF_NETLINK;
	int rc = deny_except(r, deny, nr, 0, allowed, n);
	if (rc || !n)
		return rc;
	struct scmp_arg_cmp raw = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW);
	struct scmp_arg_cmp pkt = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_PACKET);
	if (!rc)
		rc = add(r, deny, nr, 1, &raw);
	if (!rc)
		rc = add(r, deny, nr, 1, &pkt);
	/* Protocols: only the default, TCP and UDP. Landlock's port rules
	 * cover TCP only; ICMP "ping" sockets, SCTP and MPTCP would go around
	 * them. */
	static const uint64_t protocols[] = { 0, IPPROTO_TCP, IPPROTO_UDP };
	if (!rc)
		rc = deny_except(r, deny, nr, 2, protocols, 3);
	/* Types: only stream and datagram for inet (raw and packet are
	 * refused above for every family). Protocol 0 means the type's
	 * default protocol, which is no TCP for every type: SOCK_SEQPACKET's
	 * is SCTP and SOCK_DCCP's DCCP wherever their modules are loaded,
	 * both around Landlock's TCP rules as the protocols above are. The
	 * other values are refused in blocks by the low four bits, the type
	 * as the kernel reads it: 0, 4-7, 8-15. */
	static const int inet[] = { AF_INET, AF_INET6 };
	static const struct {
		uint64_t mask, value;
	} off_types[] = { { 0xf, 0 }, { 0xc, 4 }, { 0x8, 8 } };
	for (int i = 0; i < 2 && !rc; i++) {
		if (!(fams & (inet[i] == AF_INET ? SBX_AF_INET : SBX_AF_INET6)))
			continue;
		for (size_t t = 0; t < sizeof off_types / sizeof off_types[0] && !rc; t++) {
			struct scmp_arg_cmp ty[2] = { SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)inet[i]),
				                      SCMP_A1(SCMP_CMP_MASKED_EQ, off_types[t].mask,
				                              off_types[t].value) };
			rc = add(r, deny, nr, 2, ty);
		}
	}
	/* UDP reaches any port (Landlock rules are TCP only): without udp the
	 * network profile resolves names over TCP (RES_OPTIONS=use-vc). */
	for (int i = 0; i < 2 && !rc && !udp; i++) {
		struct scmp_arg_cmp dg[2] = { SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)inet[i]),
			                      SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM) };
		rc = add(r, deny, nr, 2, dg);
	}
	if (!rc && (fams & SBX_AF_NETLINK)) {
		struct scmp_arg_cmp nl[2] = { SCMP_A0(SCMP_CMP_EQ, AF_NETLINK),
			                      SCMP_A2(SCMP_CMP_NE, 0 /* NETLINK_ROUTE */) };
		rc = add(r, deny, nr, 2, nl);
	}
	return rc;
}

/* socketpair(2): AF_UNIX only. A stream pair stays connected to its peer:
 * sendto() or sendmsg() with an address fails (EISCONN), and connect()
 * fails too. A seqpacket pair ignores the address and sends to its peer;
 * connect() fails (EISCONN or EPROTOTYPE). Tried on Linux 6.18 against
 * stream, seqpacket and datagram listeners. A datagram pair is not tied:
 * sendto() or connect() to any path-named unix socket of the host works
 * (/dev/log, an agent's socket), and Landlock has no rule for those. So a
 * datagram pair needs the profile's "unix" family, as socket(AF_UNIX) does.
 * SOCK_RAW counts too: AF_UNIX turns it into SOCK_DGRAM. One compare covers
 * both, type & 0xe == 2 (types 2 and 3): SOCK_NONBLOCK and SOCK_CLOEXEC lie
 * outside the mask, and the kernel reads the type as an int, so high bits
 * do not matter either. */
static int add_socketpair_rules(struct rules *r, unsigned fams, bool none)
{
	uint32_t deny = SCMP_ACT_ERRNO(EACCES);
	/* Handed connections (spec.no_sockets): the tool's only sockets are
	 * the ones it was given; a pair of its own reaches nobody, but
	 * nothing it runs needs one. */
	if (none) {
		int rc = add(r, deny, SCMP_SYS(socketpair), 0, NULL);
		/* And connect(2) has nothing to act on: the sockets it was
		 * given are connected already. It answers EINPROGRESS, which a
		 * client that connects anyway (libcurl before 8, whatever its
		 * CURL_SOCKOPT_ALREADY_CONNECTED says) takes as under way and
		 * then finds done (SO_ERROR 0). */
		return rc ? rc : add(r, SCMP_ACT_ERRNO(EINPROGRESS), SCMP_SYS(connect), 0, NULL);
	}
	struct scmp_arg_cmp sp = SCMP_A0(SCMP_CMP_NE, AF_UNIX);
	struct scmp_arg_cmp dgram = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xe, SOCK_DGRAM);
	int rc = add(r, deny, SCMP_SYS(socketpair), 1, &sp);
	if (!rc && !(fams & SBX_AF_UNIX))
		rc = add(r, deny, SCMP_SYS(socketpair), 1, &dgram);
	return rc;
}

/* bind(2) and listen(2). Where inet sockets can be made, listen() is
 * refused: on a socket not yet bound it binds a free port itself, which
 * Landlock's bind rule never sees, and the tool would take connections
 * from the host and beyond (and could hold every ephemeral port). bind()
 * matters for the one socket every profile has, socketpair's: bound to an
 * abstract name (abstract names are per network namespace, so the host's)
 * it takes that name from a host service, or stands in for it. So without
 * the unix family bind() is refused, except, where netlink is allowed,
 * with the length of a netlink address (glibc binds NETLINK_ROUTE for
 * getaddrinfo; an abstract name of that length remains, docs/security.md);
 * inet binds are Landlock's (refused). With the unix family a tool may
 * serve on a socket file: bind stays, and listen too unless inet is
 * allowed as well (a listen cannot tell the sockets apart). */
static int add_bind_listen_rules(struct rules *r, unsigned fams)
{
	uint32_t deny = SCMP_ACT_ERRNO(EACCES);
	int rc = 0;
	if (fams & (SBX_AF_INET | SBX_AF_INET6))
		rc = add(r, deny, SCMP_SYS(listen), 0, NULL);
	if (rc || (fams & SBX_AF_UNIX))
		return rc;
	struct scmp_arg_cmp not_nl = SCMP_A2(SCMP_CMP_NE, sizeof(struct sockaddr_nl), 0);
	return add(r, deny, SCMP_SYS(bind), fams & SBX_AF_NETLINK ? 1 : 0, &not_nl);
}

/* TCP Fast Open: sendto, sendmsg or sendmmsg with MSG_FASTOPEN connects an
 * unconnected TCP socket without passing Landlock's connect hook
 * (https://github.com/landlock-lsm/linux/issues/41), so the port rules
 * would not hold. The flag is refused wherever the profile can make inet
 * sockets; elsewhere it has no socket to act on, and rules would only
 * lengthen the filter. The answer is EOPNOTSUPP, what a kernel with client
 * TFO turned off gives (net.ipv4.tcp_fastopen): a TFO client falls back to
 * connect(), which Landlock checks. TCP_FASTOPEN_CONNECT needs no rule: it
 * delays the SYN to the first write, but connect() still passes the hook
 * (EACCES). */
static const struct {
	int nr;
	unsigned flags_arg;
} fastopen_calls[] = {
	{ SCMP_SYS(sendto), 3 },
	{ SCMP_SYS(sendmsg), 2 },
	{ SCMP_SYS(sendmmsg), 3 },
};

/* The flags argument of nr when the filter refuses MSG_FASTOPEN in it, or
 * -1. Depends on socket_families alone, which seccomp_key() names. */
static int fastopen_arg(const struct sbx_spec *spec, int nr)
{
	for (size_t i = 0; i < sizeof fastopen_calls / sizeof fastopen_calls[0]; i++)
		if (fastopen_calls[i].nr == nr &&
		    (spec->socket_families & (SBX_AF_INET | SBX_AF_INET6)))
			return (int)fastopen_calls[i].flags_arg;
	return -1;
}

static int add_fastopen_rules(struct rules *r, const struct sbx_spec *spec)
{
	int rc = 0;
	for (size_t i = 0; i < sizeof fastopen_calls / sizeof fastopen_calls[0] && !rc; i++) {
		int arg = fastopen_arg(spec, fastopen_calls[i].nr);
		struct scmp_arg_cmp c = { (unsigned)arg, SCMP_CMP_MASKED_EQ, MSG_FASTOPEN,
			                  MSG_FASTOPEN };
		if (arg >= 0)
			rc = add(r, SCMP_ACT_ERRNO(EOPNOTSUPP), fastopen_calls[i].nr, 1, &c);
	}
	return rc;
}

/* RLIMIT_CORE stays at the 1 the child set (jail.c: plan_rlimits): at 0,
 * a core_pattern that pipes to a helper dumps anyway, starting it as root
 * outside the call with the tool's memory on its stdin. A tool cannot
 * raise the limit past 1; lowering it is refused here, as a success that
 * changes nothing: what a program lowering it asks for, no core dump, is
 * had, and those that take a failure as fatal (gpg, ssh-agent) still
 * run. Where prlimit64 would also read the old limit back, which a
 * skipped call would leave unwritten, EPERM. The resource is an unsigned
 * int: the low 32 bits, as the kernel reads it. */
static int add_core_limit_rules(struct rules *r)
{
	struct scmp_arg_cmp set = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffUL, RLIMIT_CORE);
	struct scmp_arg_cmp pr[3] = { SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, RLIMIT_CORE),
		                      SCMP_A2(SCMP_CMP_NE, 0), SCMP_A3(SCMP_CMP_EQ, 0) };
	int rc = add(r, SCMP_ACT_ERRNO(0), SCMP_SYS(setrlimit), 1, &set);
	if (!rc)
		rc = add(r, SCMP_ACT_ERRNO(0), SCMP_SYS(prlimit64), 3, pr);
	pr[2] = SCMP_A3(SCMP_CMP_NE, 0);
	return rc ? rc : add(r, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prlimit64), 3, pr);
}

static int add_base_rules(struct rules *r, const struct sbx_spec *spec)
{
	uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
	int rc = 0;
	for (size_t i = 0; base_deny[i] && rc == 0; i++) {
		int nr = seccomp_syscall_resolve_name(base_deny[i]);
		if (nr != __NR_SCMP_ERROR)
			rc = add(r, eperm, nr, 0, NULL);
	}
	for (size_t i = 0; i < sizeof base_deny_nr / sizeof base_deny_nr[0] && !rc; i++)
		rc = add(r, eperm, base_deny_nr[i].nr, 0, NULL);
	for (size_t i = 0; sysv_ipc[i] && !own_ipc_namespace(spec) && !rc; i++)
		rc = add(r, eperm, seccomp_syscall_resolve_name(sysv_ipc[i]), 0, NULL);
	for (size_t i = 0; i < sizeof clone_ns_flags / sizeof clone_ns_flags[0] && !rc; i++) {
		struct scmp_arg_cmp c =
		        SCMP_A0(SCMP_CMP_MASKED_EQ, clone_ns_flags[i], clone_ns_flags[i]);
		rc = add(r, eperm, SCMP_SYS(clone), 1, &c);
	}
	/* CLONE_PARENT makes the new process a child of the caller's parent:
	 * without a pid namespace (or from a command below a builtin) that
	 * is the supervisor, whose SIGCHLD it raises and which never reaps a
	 * child it did not start: every such process stays a zombie of a
	 * long-lived server, holding a pid (32768 on many hosts) and a place
	 * in the uid's RLIMIT_NPROC after the call. No tool needs it. */
	struct scmp_arg_cmp parent = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_PARENT, CLONE_PARENT);
	if (!rc)
		rc = add(r, eperm, SCMP_SYS(clone), 1, &parent);
	/* clone3 passes its flags in memory seccomp cannot read: ENOSYS makes
	 * glibc fall back to clone(2), whose flags the rules above do see. */
	if (!rc)
		rc = add(r, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0, NULL);
	/* ioctl commands, compared on the low 32 bits as the kernel compares
	 * them (CVE-2019-10063 style bypass). Terminal injection. Then
	 * fscrypt's keys, on any descriptor of a filesystem with encryption
	 * (a read-only one will do: no write access is checked). Adding a key
	 * is the keyring subsystem by another door (keyctl and add_key are
	 * refused above): it stays on the filesystem after the call, counted
	 * against the uid's key quota on the whole host (200 keys for a user,
	 * which one call filled: the uid's programs then get EDQUOT from
	 * add_key until the filesystem is unmounted). Removing one takes the
	 * caller's uid's claim to it: a tool running as its owner locks the
	 * owner's encrypted directories (an fscrypt home the workspace is in),
	 * whose files then answer ENOKEY on the host until unlocked again. */
	static const unsigned long ioctl_cmds[] = {
		TIOCSTI,
		TIOCLINUX,
		FS_IOC_ADD_ENCRYPTION_KEY,
		FS_IOC_REMOVE_ENCRYPTION_KEY,
		FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS,
	};
	for (size_t i = 0; i < sizeof ioctl_cmds / sizeof ioctl_cmds[0] && !rc; i++) {
		struct scmp_arg_cmp c = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, ioctl_cmds[i]);
		rc = add(r, eperm, SCMP_SYS(ioctl), 1, &c);
	}
	/* fcntl, by command (the low 32 bits, as the kernel compares them).
	 * F_SETLEASE: a read lease needs only a read-only descriptor of a
	 * file the tool's uid owns (root's files under /etc when root owns the
	 * workspace; the workspace's, which the agent edits from the host),
	 * read-only mounts or not, and every host process that opens the file
	 * for writing or truncates it then waits for the tool, up to
	 * lease-break-time (45 s) each time. F_NOTIFY (dnotify) is a file
	 * watch as inotify is (above): no open, which Landlock never checks. */
	static const unsigned long fcntl_cmds[] = { F_SETLEASE, F_NOTIFY };
	for (size_t i = 0; i < 2 && !rc; i++) {
		struct scmp_arg_cmp c = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, fcntl_cmds[i]);
		rc = add(r, eperm, SCMP_SYS(fcntl), 1, &c);
	}
	/* personality: only PER_LINUX. Other personas re-enable old ABIs,
	 * READ_IMPLIES_EXEC or ADDR_NO_RANDOMIZE. */
	struct scmp_arg_cmp pers = SCMP_A0(SCMP_CMP_NE, 0);
	if (!rc)
		rc = add(r, eperm, SCMP_SYS(personality), 1, &pers);
	if (!rc)
		rc = add_socket_rules(r, spec->no_sockets ? 0 : spec->socket_families,
		                      spec->allow_udp);
	if (!rc)
		rc = add_socketpair_rules(r, spec->socket_families, spec->no_sockets);
	if (!rc)
		rc = add_fastopen_rules(r, spec);
	if (!rc)
		rc = add_bind_listen_rules(r, spec->socket_families);
	if (!rc && !host_read_only(spec))
		rc = add_setid_rules(r);
	if (!rc)
		rc = add_inode_ioctl_rules(r);
	if (!rc)
		rc = add_core_limit_rules(r);
	return rc;
}

static uint32_t action_of(enum sbx_action a)
{
	switch (a) {
	case SBX_ACT_ALLOW: return SCMP_ACT_ALLOW;
	case SBX_ACT_ERRNO: return SCMP_ACT_ERRNO(EPERM);
	case SBX_ACT_KILL: return SCMP_ACT_KILL_PROCESS;
	}
	return SCMP_ACT_KILL_PROCESS;
}

/* Newer than libseccomp 2.5's table, doing what an older call does: denied
 * (or killed) along with it, by x86_64 number (the same on every
 * architecture from 424 on). */
static const struct {
	const char *name;
	int nr;
} same_as_newer[] = {
	{ "fchmodat", 452 },    /* fchmodat2 */
	{ "setxattr", 463 },    /* setxattrat */
	{ "removexattr", 466 }, /* removexattrat */
	{ "setxattr", 469 },    /* file_setattr */
};

/* truncate(2) denied (a profile's seccomp.deny) is denied by path in
 * every form seccomp can see: open(2) and openat(2) with O_TRUNC cut the
 * file whatever the access mode, but Landlock before ABI 3 checks the
 * mode alone: O_RDONLY (read access) or 3 (none) with O_TRUNC would empty
 * a file the tool may only read. With O_WRONLY or O_RDWR Landlock checks
 * write access, as for ftruncate(2). openat2() carries its flags in memory
 * seccomp cannot read: it answers ENOSYS, as on a kernel before it (5.6),
 * and callers fall back to openat (the fs tools resolve paths one
 * component at a time then: path_open_beneath). */
static int add_truncating_opens(struct rules *r, uint32_t action)
{
	static const struct {
		const char *name;
		unsigned arg;
	} opens[] = { { "open", 1 }, { "openat", 2 } };
	static const unsigned long modes[] = { O_RDONLY, O_ACCMODE };
	int rc = 0;
	for (size_t i = 0; i < sizeof opens / sizeof opens[0] && !rc; i++) {
		int nr = seccomp_syscall_resolve_name(opens[i].name);
		for (size_t m = 0; m < 2 && !rc && nr != __NR_SCMP_ERROR; m++) {
			struct scmp_arg_cmp c = { opens[i].arg, SCMP_CMP_MASKED_EQ,
				                  O_TRUNC | O_ACCMODE, O_TRUNC | modes[m] };
			rc = add(r, action, nr, 1, &c);
		}
	}
	if (!rc)
		rc = add(r, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0, NULL);
	return rc;
}

/* The allow rule of a list's entry, around the base rules that look at
 * the call's arguments: allow_around's, and MSG_FASTOPEN (an allowed send
 * call keeps the base rule: the allow rule takes only the calls without
 * the flag). */
static int add_allowed(struct rules *r, const struct sbx_spec *spec, int nr, const char *name)
{
	for (size_t i = 0; i < sizeof allow_around / sizeof allow_around[0]; i++) {
		if (strcmp(allow_around[i].name, name))
			continue;
		struct scmp_arg_cmp zero = { (unsigned)allow_around[i].unless, SCMP_CMP_EQ, 0, 0 };
		int rc = allow_around[i].unless >= 0 ? add(r, SCMP_ACT_ALLOW, nr, 1, &zero) : 0;
		return rc ? rc :
		            allow_except(r, nr, allow_around[i].arg, allow_around[i].below,
		                         allow_around[i].refused, allow_around[i].n);
	}
	int arg = fastopen_arg(spec, nr);
	struct scmp_arg_cmp no_fo = { (unsigned)arg, SCMP_CMP_MASKED_EQ, MSG_FASTOPEN, 0 };
	return arg >= 0 ? add(r, SCMP_ACT_ALLOW, nr, 1, &no_fo) :
	                  add(r, SCMP_ACT_ALLOW, nr, 0, NULL);
}

static int add_list(struct rules *r, const struct sbx_spec *spec, uint32_t def,
                    const char *const *names, uint32_t action, struct sbx_error *err)
{
	for (size_t i = 0; names && names[i]; i++) {
		int nr = seccomp_syscall_resolve_name(names[i]);
		if (nr == __NR_SCMP_ERROR)
			return sbx_err(err, EINVAL, "seccomp: unknown syscall '%s'", names[i]);
		if (action == def)
			continue; /* libseccomp refuses rules that repeat the default */
		/* A call the lists deny or kill is not allowed: under a default
		 * of errno a deny entry is the default (skipped above), which an
		 * allow rule would lift, as it cannot a kill entry or a deny under
		 * kill (the first rule stays). The jail adds to the deny list
		 * what its jobs must not do whatever the profile allows (jail.c:
		 * fn_only's fork, clone and exec). */
		if (action == SCMP_ACT_ALLOW &&
		    (listed(spec->seccomp_deny, names[i]) || listed(spec->seccomp_kill, names[i])))
			continue;
		if (action == SCMP_ACT_ALLOW &&
		    (listed(base_deny, names[i]) || listed(base_arg_filtered, names[i])))
			return sbx_err(err, EINVAL,
			               "seccomp: '%s' cannot be in an allow list: "
			               "the base rules %s it in every profile",
			               names[i],
			               listed(base_deny, names[i]) ? "deny" :
			                                             "filter the arguments of");
		if (action == SCMP_ACT_ALLOW && listed(sysv_ipc, names[i]) &&
		    !own_ipc_namespace(spec))
			return sbx_err(err, EINVAL,
			               "seccomp: '%s' can only be allowed with a "
			               "required ipc namespace (namespaces: [\"ipc\"])",
			               names[i]);
		int rc = action == SCMP_ACT_ALLOW ? add_allowed(r, spec, nr, names[i]) :
		                                    add(r, action, nr, 0, NULL);
		for (size_t k = 0; !rc && action != SCMP_ACT_ALLOW &&
		     k < sizeof same_as_newer / sizeof same_as_newer[0];
		     k++)
			if (!strcmp(same_as_newer[k].name, names[i]))
				rc = add(r, action, same_as_newer[k].nr, 0, NULL);
		if (!rc && action != SCMP_ACT_ALLOW && !strcmp(names[i], "truncate"))
			rc = add_truncating_opens(r, action);
		if (rc < 0)
			return sbx_err(err, -rc, "seccomp: rule for '%s'", names[i]);
	}
	return 0;
}

/* The filter as bytes: libseccomp 2.5 exports only to an fd. */
static int export_bpf(scmp_filter_ctx ctx, struct sock_filter **bpf, unsigned short *len,
                      struct sbx_error *err)
{
	int fd = memfd_create("seccomp-bpf", MFD_CLOEXEC);
	if (fd < 0)
		return sbx_err(err, errno, "seccomp: memfd_create");
	int rc = seccomp_export_bpf(ctx, fd);
	off_t size = rc == 0 ? lseek(fd, 0, SEEK_END) : -1;
	if (rc < 0 || size <= 0 || size % sizeof(struct sock_filter) ||
	    size / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		close(fd);
		return sbx_err(err, rc < 0 ? -rc : EINVAL, "seccomp: export filter");
	}
	*bpf = malloc((size_t)size);
	ssize_t n = *bpf ? pread(fd, *bpf, (size_t)size, 0) : -1;
	close(fd);
	if (n != size) {
		free(*bpf);
		*bpf = NULL;
		return sbx_err(err, ENOMEM, "seccomp: read exported filter");
	}
	*len = (unsigned short)(size / sizeof(struct sock_filter));
	return 0;
}

bool seccomp_can_split(const struct sbx_spec *spec)
{
	return spec->seccomp_default == SBX_ACT_ALLOW;
}

int seccomp_compile(const struct sbx_spec *spec, enum filter_part part, struct sock_filter **bpf,
                    unsigned short *len, struct sbx_error *err)
{
	uint32_t def = action_of(spec->seccomp_default);
	/* Only a default that allows splits: a call neither part has a
	 * rule for is then answered alike by both and by the whole. */
	if (part != FILTER_WHOLE && !seccomp_can_split(spec))
		return sbx_err(err, EINVAL,
		               "seccomp: a filter that does not allow by default "
		               "cannot be split");
	scmp_filter_ctx ctx = seccomp_init(def);
	if (!ctx)
		return sbx_err(err, ENOMEM, "seccomp: init");
	struct rules r = { ctx, spec, part };
	int rc = 0;
	/* Foreign ABIs (i386 via int 0x80, x32) bypass every rule written for
	 * x86_64 numbers: kill them. libseccomp checks the arch and, for an
	 * x86_64-only filter, the x32 bit. */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) < 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) < 0 ||
	    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2) < 0) {
		rc = sbx_err(err, EINVAL, "seccomp: attributes");
		goto out;
	}
	/* Explicit kills and denials first: a base "deny" must not be weakened
	 * by a profile "allow", so allow-list entries that the base rules touch
	 * are refused (add_list). */
	if ((rc = add_list(&r, spec, def, spec->seccomp_kill, SCMP_ACT_KILL_PROCESS, err)) < 0 ||
	    (rc = add_list(&r, spec, def, spec->seccomp_deny, SCMP_ACT_ERRNO(EPERM), err)) < 0)
		goto out;
	int brc = add_base_rules(&r, spec);
	if (brc < 0) {
		rc = sbx_err(err, -brc, "seccomp: base rules");
		goto out;
	}
	if (def != SCMP_ACT_ALLOW &&
	    (rc = add_list(&r, spec, def, spec->seccomp_allow, SCMP_ACT_ALLOW, err)) < 0)
		goto out;
	rc = export_bpf(ctx, bpf, len, err);
out:
	seccomp_release(ctx);
	return rc;
}

static int key_list(char *buf, size_t len, size_t *at, char tag, const char *const *names)
{
	int n = snprintf(buf + *at, len - *at, "|%c", tag);
	for (size_t i = 0; names && names[i] && n >= 0 && (size_t)n < len - *at; i++) {
		*at += (size_t)n;
		n = snprintf(buf + *at, len - *at, "%zu:%s,", strlen(names[i]), names[i]);
	}
	if (n < 0 || (size_t)n >= len - *at)
		return -E2BIG;
	*at += (size_t)n;
	return 0;
}

int seccomp_key(const struct sbx_spec *spec, enum filter_part part, char *buf, size_t len)
{
	static const char *const parts[] = {
		[FILTER_WHOLE] = "", [FILTER_WORKER] = "|pw", [FILTER_CHILD] = "|pc"
	};
	int n = snprintf(buf, len, "v2|d%d|f%u%s|u%d|i%d|r%d%s", (int)spec->seccomp_default,
	                 spec->socket_families, spec->no_sockets ? "n" : "", spec->allow_udp,
	                 own_ipc_namespace(spec), host_read_only(spec), parts[part]);
	if (n < 0 || (size_t)n >= len)
		return -E2BIG;
	size_t at = (size_t)n;
	int rc = key_list(buf, len, &at, 'k', spec->seccomp_kill);
	if (!rc)
		rc = key_list(buf, len, &at, 'x', spec->seccomp_deny);
	if (!rc)
		rc = key_list(buf, len, &at, 'a', spec->seccomp_allow);
	return rc;
}

int seccomp_build(const struct sbx_spec *spec, enum filter_part part, struct sock_filter **bpf,
                  unsigned short *len, struct sbx_error *err)
{
	char key[1024];
	if (seccomp_key(spec, part, key, sizeof key) == 0)
		for (size_t i = 0; i < n_prebuilt_filters; i++)
			if (!strcmp(prebuilt_filters[i].key, key)) {
				size_t bytes = prebuilt_filters[i].len * sizeof **bpf;
				if (!(*bpf = malloc(bytes)))
					return sbx_err(err, ENOMEM, "seccomp filter");
				memcpy(*bpf, prebuilt_filters[i].bpf, bytes);
				*len = prebuilt_filters[i].len;
				return 0;
			}
	return seccomp_compile(spec, part, bpf, len, err);
}

bool sbx_syscall_known(const char *name)
{
	return seccomp_syscall_resolve_name(name) != __NR_SCMP_ERROR;
}

int seccomp_split(struct sbx_jail *j, struct sbx_error *err)
{
	if (!j->filter_spec || j->part_bpf[1])
		return 0;
	static const enum filter_part parts[2] = { FILTER_WORKER, FILTER_CHILD };
	for (int i = 0; i < 2; i++)
		if (seccomp_build(j->filter_spec, parts[i], &j->part_bpf[i], &j->part_len[i], err) <
		    0) {
			free(j->part_bpf[0]);
			j->part_bpf[0] = NULL;
			j->part_len[0] = 0;
			return -1;
		}
	return 0;
}

/* A list and its strings in one block (NULL stays NULL). */
static const char *const *copy_list(const char *const *list, bool *bad)
{
	if (!list)
		return NULL;
	size_t n = 0, bytes = 0;
	for (; list[n]; n++)
		bytes += strlen(list[n]) + 1;
	char **copy = malloc((n + 1) * sizeof *copy + bytes);
	if (!copy) {
		*bad = true;
		return NULL;
	}
	char *at = (char *)(copy + n + 1);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(list[i]) + 1;
		copy[i] = memcpy(at, list[i], len);
		at += len;
	}
	copy[n] = NULL;
	return (const char *const *)copy;
}

/* At most this many of a kill list's names are said; a longer list is
 * the profile's to read. */
#define KILL_NAMES_SAID 8

/* snprintf at out + *at, *at moved on (held at the end when it is cut). */
static void say_more(char *out, size_t size, size_t *at, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void say_more(char *out, size_t size, size_t *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(out + *at, size - *at, fmt, ap);
	va_end(ap);
	*at = n < 0 ? *at : *at + (size_t)n < size ? *at + (size_t)n : size - 1;
}

char *seccomp_kill_text(const struct sbx_spec *spec)
{
	char t[1024] = "";
	size_t at = 0, n = 0;
	while (spec->seccomp_kill && spec->seccomp_kill[n])
		n++;
	bool by_default = spec->seccomp_default == SBX_ACT_KILL;
	if (by_default)
		say_more(t, sizeof t, &at,
		         "any call its seccomp.allow does not list (seccomp.default is kill)%s",
		         n ? ", or " : "");
	if (n)
		say_more(t, sizeof t, &at, "%s its seccomp.kill lists: ",
		         n == 1 ? "the one call" : "one of the calls");
	for (size_t i = 0; i < n && i < KILL_NAMES_SAID; i++)
		say_more(t, sizeof t, &at, "%s%s", i ? ", " : "", spec->seccomp_kill[i]);
	if (n > KILL_NAMES_SAID)
		say_more(t, sizeof t, &at, " and %zu more", n - KILL_NAMES_SAID);
	/* BADARCH: every filter kills these, whatever the profile says. */
	say_more(t, sizeof t, &at, "%sa call through a foreign ABI (i386's int 0x80, x32)",
	         n || by_default ? "; or " : "");
	return strdup(t);
}

struct sbx_spec *seccomp_spec_copy(const struct sbx_spec *spec)
{
	static const char *const some_path[] = { "", NULL };
	struct sbx_spec *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	/* The fields this file reads, and nothing else. */
	bool bad = false;
	c->seccomp_default = spec->seccomp_default;
	c->seccomp_kill = copy_list(spec->seccomp_kill, &bad);
	c->seccomp_deny = copy_list(spec->seccomp_deny, &bad);
	c->seccomp_allow = copy_list(spec->seccomp_allow, &bad);
	c->socket_families = spec->socket_families;
	c->no_sockets = spec->no_sockets;
	c->allow_udp = spec->allow_udp;
	c->namespaces = spec->namespaces;
	c->optional = spec->optional;
	c->workspace_write = spec->workspace_write;
	c->write_paths = spec->write_paths && spec->write_paths[0] ? some_path : NULL;
	if (bad) {
		seccomp_spec_free(c);
		return NULL;
	}
	return c;
}

void seccomp_spec_free(struct sbx_spec *spec)
{
	if (!spec)
		return;
	free((void *)spec->seccomp_kill);
	free((void *)spec->seccomp_deny);
	free((void *)spec->seccomp_allow);
	free(spec);
}
