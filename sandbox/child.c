/* child.c — the code that runs in the child between clone3() and exec (or
 * the builtin). Post-fork only: no malloc, no stdio, no locks; only
 * async-signal-safe system calls on data the parent prepared (struct
 * child_plan, struct sbx_jail). A one-shot exec runs here on the parent's
 * memory (CLONE_VM, clone.c), the parent asleep until the exec: nothing
 * here may change what the parent relies on, and uid/gid changes are raw
 * system calls (libc's wrappers would signal the parent's threads to
 * change theirs too). A child of a jail's worker (worker.c) runs here on a
 * copy of the worker's memory, which holds the jail and nothing else. A
 * failing step writes {step, errno} to the close-on-exec status socket and
 * exits; EOF on it without a report means exec (or the builtin) started.
 * In the worker, child_enter_view (at the end) runs steps 5, 6 and 11 once
 * for all its children (and step 12 too for root without CAP_SYS_ADMIN,
 * which needs a user namespace: jail.c).
 *
 * The order, and why:
 *  1. join the per-call cgroups   first, before the tool can fork out of them
 *  2. new session                 no controlling terminal to inject into; a
 *                                 worker's child only needs a process group
 *                                 of its own: the worker has a session of
 *                                 its own, without a terminal (a session is
 *                                 a scheduler autogroup: ~0.05 ms idle, and
 *                                 milliseconds on a loaded machine)
 *  3. die with the parent         PDEATHSIG, then check the lifeline pipe in
 *                                 case the parent died before the prctl
 *  4. signals                     default handlers, nothing blocked (a
 *                                 child sharing our memory starts with
 *                                 every signal blocked: clone.c)
 *  5. user namespace maps         before mounts: they need its capabilities
 *     network namespace (egress)  loopback, local routes, the listeners sent
 *                                 on the status socket (netns.c): needs the
 *                                 namespace's capabilities, before any of
 *                                 the tool's code; in every child, never
 *                                 the worker: each call's own namespace
 *  6. mounts                      make / private (nothing propagates back),
 *                                 all read-only but the writable paths,
 *                                 without Landlock a new root of the
 *                                 granted paths alone (mounttree.c),
 *                                 protected paths in them read-only
 *                                 (protect.c), tmpfs /tmp, the overlays of
 *                                 the dirs that hold hidden paths when the
 *                                 child makes its own (view.c), then
 *                                 hidden paths covered (mask.c): a mask
 *                                 over a link into one goes on the overlay,
 *                                 fresh /proc for the pid namespace
 *  7. Landlock ruleset            from the jail's prepared rules plus the new
 *                                 mounts (rules must name their inodes)
 *  8. fds                         0-2 (+3 result) in place, status fd next,
 *                                 the lifeline kept until step 12,
 *                                 everything else closed (rule fds too)
 *  9. rlimits                     before dropping privileges (raising is gone after)
 * 10. working directory           an fd opened beneath the workspace
 * 11. bounding set, securebits    need CAP_SETPCAP, so before the uid change
 * 12. uid/gid/groups              the workspace owner or the profile's id;
 *                                 the change clears PDEATHSIG: armed again
 * 13. not dumpable                a builtin (or a child that may run one)
 *                                 holds its result channel and its input:
 *                                 what it starts may not read them through
 *                                 /proc/1/{mem,environ,fd} or ptrace (an
 *                                 exec makes the tool dumpable again); after
 *                                 the uid change, which resets the flag
 * 14. capabilities                effective, permitted, inheritable, ambient: none
 * 15. no_new_privs                setuid binaries and file caps gain nothing;
 *                                 also what lets an unprivileged process
 *                                 enter Landlock
 * 16. Landlock                    paths, TCP ports, scopes
 * 17. seccomp                     last: everything above needs syscalls it denies
 * 18. exec or the builtin
 *
 * A child of the jail's worker (a spare, or fresh: zygote.c) is set up the
 * same way with no job, then waits before step 18 for its job on the job
 * socket: the argv (or a builtin and its
 * data), the cwd beneath the workspace, whether stdin is a pipe and fd 3
 * the result pipe; with every wall already up, it sets RLIMIT_AS (deferred
 * so that the job can be mapped), fixes fds 0 and 3, changes directory and
 * execs (or calls the builtin). A profile's filter that would refuse the
 * calls of that wait (an allow list without them) is loaded after them,
 * before the exec (jail.c: filter_with_job).
 */
#define _GNU_SOURCE
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <setjmp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/securebits.h>

#include "internal.h"
#include "io.h"

/* The anchor sbx_fn_ref() measures code addresses from: any function of
 * the program image, the same in the worker (the image executed again). */
static void fn_anchor(void) {}

struct same_object {
	uintptr_t fn, anchor;
	bool same;
};

/* dl_iterate_phdr's callback: stops at the object whose loaded segments
 * hold the anchor, saying whether they hold fn too. dladdr() would say
 * the same of a dynamic program, but knows nothing in a static one. */
static int find_anchor(struct dl_phdr_info *o, size_t size, void *data)
{
	(void)size;
	struct same_object *s = data;
	bool fn = false, anchor = false;
	for (int i = 0; i < o->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &o->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t lo = o->dlpi_addr + ph->p_vaddr;
		fn |= s->fn >= lo && s->fn - lo < ph->p_memsz;
		anchor |= s->anchor >= lo && s->anchor - lo < ph->p_memsz;
	}
	s->same = anchor && fn;
	return anchor;
}

uint64_t sbx_fn_ref(const void *fn)
{
	static const void *last_fn;
	static uint64_t last_ref;
	if (!fn)
		return 0;
	if (fn == last_fn)
		return last_ref;
	struct same_object s = { (uintptr_t)fn, (uintptr_t)fn_anchor, false };
	dl_iterate_phdr(find_anchor, &s);
	if (!s.same)
		return 0;
	last_fn = fn;
	last_ref = (uint64_t)((uintptr_t)fn - (uintptr_t)fn_anchor) + 1;
	return last_ref;
}

void *sbx_fn_from_ref(uint64_t ref)
{
	return ref ? (void *)((uintptr_t)fn_anchor + (uintptr_t)(ref - 1)) : NULL;
}

/* Where the sandbox's own channels went (after the CHILD_FD_* slots). */

static int status_fd = -1;
static int job_fd = -1;
static int lifeline_fd = -1;
/* A child that reads its job later (a spare) with a stdin pipe: /dev/null
 * opened with the others, before the walls, for a job without stdin. */
static int null_fd = -1;
static int view_wr = -1; /* child_plan's view_wr */

/* How a report goes (SAY_*): by send until the profile's filter is
 * loaded, then by a call it lets through (load_filter). */
static int say_by = SAY_SEND;

/* One report of n bytes on fd, whole (SOCK_SEQPACKET), never a SIGPIPE
 * but where only write(2) is left (then the supervisor is gone). */
static void say(int fd, const void *m, size_t n)
{
	if (say_by == SAY_SEND)
		(void)!send(fd, m, n, MSG_NOSIGNAL);
	else if (say_by == SAY_WRITE)
		(void)!write(fd, m, n);
}

/* Set while the worker prepares its view (child_enter_view): a failing
 * step returns there instead of ending the process. */
static jmp_buf *view_jump;
static struct child_report view_failure;

_Noreturn static void fail(enum child_step step, int err)
{
	struct child_report r = { .kind = REPORT_STEP, .step = step, .err = err };
	if (view_jump) {
		view_failure = r;
		longjmp(*view_jump, 1);
	}
	if (status_fd >= 0)
		say(status_fd, &r, sizeof r);
	_exit(step == STEP_EXEC_NOT_FOUND ? CHILD_EXIT_NOTFOUND :
	              step == STEP_EXEC   ? CHILD_EXIT_NOEXEC :
	                                    CHILD_EXIT_SETUP);
}

#define CHECK(step, expr)                                                                          \
	do {                                                                                       \
		if ((expr) < 0)                                                                    \
			fail((step), errno);                                                       \
	} while (0)

static int write_file(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = strlen(data);
	ssize_t n = write(fd, data, len);
	int e = errno;
	close(fd);
	if (n != (ssize_t)len) {
		errno = n < 0 ? e : EIO;
		return -1;
	}
	return 0;
}

/* Step 3: the parent may have died between clone3 and the prctl; then no
 * PDEATHSIG will ever come. The lifeline's write end lives only in the
 * supervisor (we closed our copy), so a hangup on its read end means the
 * supervisor is gone. A change of uid or gid clears PDEATHSIG (prctl(2)):
 * after the identity change (step 12) it is armed and checked again. */
static void die_with_parent(int lifeline)
{
	CHECK(STEP_PDEATHSIG, prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0));
	if (lifeline >= 0) {
		struct pollfd pfd = { .fd = lifeline, .events = POLLIN };
		if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLERR)))
			_exit(CHILD_EXIT_SETUP);
	}
}

/* Step 8. A source whose number is a possible target (below S_N) is first
 * duplicated above them all, so that no dup3() can clobber a source still
 * to be placed; the others (a worker's child gets most of its descriptors
 * above S_N) are placed from where they are, ~6 system calls fewer. Then
 * the sources go to 0,1,2,(3), the status pipe after them, and the Landlock
 * ruleset after that. Everything from there up is closed, the originals
 * and the copies with it. */
static void arrange_fds(const struct child_plan *p, int *ruleset_fd)
{
	/* A stdin the job does not feed is /dev/null opened here, on our own
	 * read-only mount of it: the supervisor's, opened on the host's
	 * mount, would let a tool running as root (the owner of /dev/null)
	 * fchmod, fchown or futimens the host's /dev/null past every mount of
	 * ours, and Landlock does not govern those (a mode of 0600 locks out
	 * every other user). Where no mount namespace is made, seccomp
	 * refuses those calls instead (jail.c). */
	int dev_null = -1;
	if (p->stdin_fd < 0 || p->job_fd >= 0)
		CHECK(STEP_FDS, dev_null = open("/dev/null", O_RDWR | O_CLOEXEC));
	/* The sources in the order they are placed: the first four at their
	 * CHILD_FD_* numbers, the handed connections (when given) at
	 * CHILD_FD_HANDED and up, the rest from the next free one up. */
	enum {
		S_RESULT = CHILD_FD_RESULT,
		S_HANDED,
		S_STATUS = S_HANDED + CHILD_HANDED_MAX,
		S_JOB,
		S_RULESET,
		S_LIFELINE,
		S_NULL,
		S_N
	};
	_Static_assert((int)S_HANDED == (int)CHILD_FD_HANDED,
	               "handed connections follow the result");
	int src[S_N] = { p->stdin_fd >= 0 ? p->stdin_fd : dev_null, p->stdout_fd, p->stderr_fd,
		         p->result_fd };
	for (int i = 0; i < CHILD_HANDED_MAX; i++)
		src[S_HANDED + i] = p->handed_fds ? p->handed_fds[i] : -1;
	src[S_STATUS] = p->status_fd;
	src[S_JOB] = p->job_fd;
	src[S_RULESET] = *ruleset_fd;
	src[S_LIFELINE] = p->lifeline_fd;
	/* Opened here, not when the job comes: after the walls the open could
	 * be refused (a profile denying openat) or give a descriptor Landlock
	 * governs (ioctl), unlike a fresh child's. */
	src[S_NULL] = p->stdin_fd >= 0 ? dev_null : -1;
	int tmp[S_N];
	for (int i = 0; i < S_N; i++) {
		tmp[i] = src[i];
		if (src[i] >= 0 && src[i] < S_N)
			CHECK(STEP_FDS, tmp[i] = fcntl(src[i], F_DUPFD_CLOEXEC, S_N));
	}
	int next = 0;
	for (int i = 0; i < S_N; i++) {
		if (tmp[i] < 0) { /* no result pipe (keep its slot free), no Landlock */
			if (i == S_RESULT)
				next = CHILD_FD_FIRST_FREE;
			continue;
		}
		int target = i < S_RESULT ? i : next;
		CHECK(STEP_FDS, dup3(tmp[i], target, i <= S_RESULT ? 0 : O_CLOEXEC));
		next = target + 1;
		if (i == S_STATUS)
			status_fd = target;
		if (i == S_JOB)
			job_fd = target;
		if (i == S_RULESET)
			*ruleset_fd = target;
		if (i == S_LIFELINE)
			lifeline_fd = target;
		if (i == S_NULL)
			null_fd = target;
	}
	CHECK(STEP_FDS, syscall(SYS_close_range, next, ~0U, 0));
	if (p->result_fd < 0) /* its slot was kept free, not closed: whatever it held goes */
		close(CHILD_FD_RESULT);
}

/* What the child reads of its own /proc/self/status, once: the signals
 * whose disposition is not SIG_DFL (SigIgn | SigCgt, bit sig-1) and its
 * effective and bounding capability sets. Our own status is exact: no
 * other process shares our dispositions (no CLONE_SIGHAND: clone.c), only
 * this code could change them, and nothing between the read (step 4) and
 * the bounding set (step 11) changes our credentials. */
struct own_status {
	uint64_t signals, cap_eff, cap_bnd;
};

static struct own_status own_st;
static bool own_valid;

/* The 16 hex digits after key, ending the line. */
static int status_hex(const char *buf, const char *key, uint64_t *out)
{
	const char *s = strstr(buf, key);
	if (!s)
		return -1;
	s += strlen(key);
	int digits = 0;
	uint64_t v = 0;
	for (; digits < 16; digits++, s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' :
		        *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 :
		                                 -1;
		if (d < 0)
			break;
		v = v << 4 | (uint64_t)d;
	}
	if (digits != 16 || *s != '\n')
		return -1;
	*out = v;
	return 0;
}

/* One open, read and close instead of ~62 sigactions (~8 us against
 * ~80 us here) and a capget; sets own_valid, or leaves it false where the
 * file cannot be read (no /proc, a masked one). */
static void read_own_status(void)
{
	char buf[4096];
	own_valid = false;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	uint64_t ign, cgt;
	if (status_hex(buf, "\nSigIgn:\t", &ign) < 0 || status_hex(buf, "\nSigCgt:\t", &cgt) < 0 ||
	    status_hex(buf, "\nCapEff:\t", &own_st.cap_eff) < 0 ||
	    status_hex(buf, "\nCapBnd:\t", &own_st.cap_bnd) < 0)
		return;
	own_st.signals = ign | cgt;
	own_valid = true;
}

/* sig back to SIG_DFL. glibc refuses its own signals (32 and 33, its
 * thread cancellation and set*id broadcast), but an ignored one survives
 * the exec all the same (one inherited from whoever started us): the
 * kernel is asked directly (x86_64's struct; elsewhere left as it is). */
static void reset_one(int sig, const struct sigaction *sa)
{
	if (sigaction(sig, sa, NULL) == 0 || errno != EINVAL)
		return;
#ifdef __x86_64__
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		uint64_t mask;
	} k = { .handler = SIG_DFL };
	(void)syscall(SYS_rt_sigaction, sig, &k, NULL, sizeof k.mask);
#endif
}

/* Step 4: every disposition back to SIG_DFL and an empty mask. Only the
 * signals ignored or caught are reset (read_own_status: usually
 * SIGPIPE alone); the dispositions are the parent's, copied at the clone,
 * and a child sharing our memory is born with every signal blocked
 * (clone.c), so no handler of the parent can run here before its reset.
 * The dispositions are so already in a worker's child (worker.c resets
 * them once); its mask is not: where clone3 is refused (Docker's default
 * seccomp profile) the worker forks with every signal blocked (clone.c),
 * and the child is born so. Left blocked, the tool could not be signalled
 * by its own processes (SIGTERM, SIGINT, SIGCHLD, SIGALRM all pending for
 * good). */
static void reset_signals(bool already)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	uint64_t set = ~(uint64_t)0;
	if (!already) {
		read_own_status();
		if (own_valid)
			set = own_st.signals;
	}
	for (int sig = 1; sig < NSIG && sig <= 64 && !already; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && ((set >> (sig - 1)) & 1))
			reset_one(sig, &sa);
	sigset_t none;
	sigemptyset(&none);
	CHECK(STEP_SIGNALS, sigprocmask(SIG_SETMASK, &none, NULL));
}

void child_reset_signals(void)
{
	reset_signals(false);
	own_valid = false; /* the worker's credentials change before its drop */
}

/* Step 5: an unprivileged clone3(CLONE_NEWUSER) child may map exactly its
 * own uid/gid, after denying setgroups (user_namespaces(7)). */
static void map_user_ns(const struct sbx_jail *j)
{
	if (!j->userns || j->view_ready)
		return;
	/* A child of the worker is born non-dumpable (the worker is), and a
	 * non-dumpable process's /proc files are root's: its own maps would
	 * be refused to an unprivileged user. Step 13 undoes this. */
	CHECK(STEP_USERNS, prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
	CHECK(STEP_USERNS, write_file("/proc/self/setgroups", "deny"));
	CHECK(STEP_USERNS, write_file("/proc/self/uid_map", j->uid_map));
	CHECK(STEP_USERNS, write_file("/proc/self/gid_map", j->gid_map));
}

static int mount_attr_at(int dfd, const char *path, unsigned flags, uint64_t set, uint64_t clr)
{
	struct mount_attr a = { .attr_set = set, .attr_clr = clr };
	return (int)syscall(SYS_mount_setattr, dfd, path, flags, &a, sizeof a);
}

static int set_mount_attr(const char *path, unsigned flags, uint64_t set, uint64_t clr)
{
	return mount_attr_at(AT_FDCWD, path, flags, set, clr);
}

/* A writable path, opened with no symbolic link on the way (jail.c checked
 * that too; a tool may have swapped one in since), and its clone with the
 * mounts beneath it as they are on the host, nosuid, not yet attached. */
static void clone_writable(const char *path, int *at, int *tree)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS };
	CHECK(STEP_MOUNT_READONLY,
	      *at = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how));
	CHECK(STEP_MOUNT_READONLY,
	      *tree = (int)syscall(SYS_open_tree, *at, "",
	                           AT_EMPTY_PATH | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	                                   AT_RECURSIVE));
	CHECK(STEP_MOUNT_READONLY,
	      mount_attr_at(*tree, "", AT_EMPTY_PATH | AT_RECURSIVE, MOUNT_ATTR_NOSUID, 0));
}

/* Landlock grants the private /tmp no execute right; a mount tree has no
 * Landlock, so its /tmp is noexec instead. */
static unsigned long tmp_flags(const struct sbx_jail *j)
{
	return MS_NOSUID | MS_NODEV | (j->mount_tree ? MS_NOEXEC : 0);
}

/* A view made from hidden paths moved meanwhile (-VIEW_MOVED: mask.c) is told
 * on view_wr too, for our parent to plan it again and start us anew. */
static void mask_step(int (*step)(const struct sbx_jail *), const struct sbx_jail *j)
{
	int rc = j->mask_hidden ? step(j) : 0;
	if (rc == -VIEW_MOVED && view_wr >= 0)
		(void)!write(view_wr, "s", 1);
	if (rc < 0)
		fail(STEP_MOUNT_MASK, -rc);
}

/* Every mount read-only and nosuid but the writable paths: Landlock cannot
 * stop chmod, utimes or xattr changes, a read-only mount does (on the
 * host's files, as their owner, even as root without capabilities). Each
 * writable path is cloned first, with the mounts beneath it as they are on
 * the host (what is read-only there stays so), and attached again after
 * the read-only pass, on the very inode it was cloned from. The private
 * tmpfs comes after, on top of everything (no clone can cover it); the
 * masks over hidden paths are bound from it while it is read-only, so they
 * are read-only mounts too, over the writable paths as well (mask.c).
 * A child that makes its own view makes the overlays of the dirs that hold
 * hidden paths (view.c) before the masks: a mask over a hidden link
 * elsewhere that leads into one goes on what the overlay shows, not
 * beneath it, where it would not be seen. */
static void set_up_view(const struct sbx_jail *j)
{
	/* Without this a mount below could propagate back to the host. */
	CHECK(STEP_MOUNT_PRIVATE, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	int at[SBX_MAX_RW_PATHS], tree[SBX_MAX_RW_PATHS], n = 0;
	for (char **p = j->rw_paths; p && *p; p++, n++)
		clone_writable(*p, &at[n], &tree[n]);
	CHECK(STEP_MOUNT_READONLY,
	      set_mount_attr("/", AT_RECURSIVE, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0));
	for (int i = 0; i < n; i++) {
		CHECK(STEP_MOUNT_READONLY,
		      syscall(SYS_move_mount, tree[i], "", at[i], "",
		              MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH));
		close(tree[i]);
		close(at[i]);
	}
	/* mounttree.c: without Landlock, a new root of the granted paths
	 * alone, bound from the view just made (same paths, same rights). */
	if (j->mount_tree) {
		int mrc = mounttree_enter(j);
		if (mrc < 0)
			fail(STEP_MOUNT_TREE, -mrc);
	}
	/* On the writable paths just attached, before anything covers them
	 * (protect.c). */
	int prc = protect_apply(j);
	if (prc < 0)
		fail(STEP_MOUNT_PROTECT, -prc);
	if (j->private_tmp)
		CHECK(STEP_MOUNT_TMP,
		      mount("tmpfs", j->tmp_dir, "tmpfs", tmp_flags(j), j->tmpfs_opts));
	if (j->ll_view) {
		/* A refusal is told on view_wr, for our parent to start us
		 * again with their rules instead (spawn.c). */
		int vrc = landlock_view_apply(j);
		if (vrc < 0 && view_wr >= 0)
			(void)!write(view_wr, "r", 1);
		if (vrc < 0)
			fail(STEP_MOUNT_MASK, -vrc);
	}
	bool masks = j->mask_hidden && mask_count(j);
	mask_step(mask_place, j);
	if (masks)
		CHECK(STEP_MOUNT_MASK, set_mount_attr(j->tmp_dir, 0, MOUNT_ATTR_RDONLY, 0));
	mask_step(mask_cover, j);
	if (masks)
		CHECK(STEP_MOUNT_MASK, set_mount_attr(j->tmp_dir, 0, 0, MOUNT_ATTR_RDONLY));
	mask_step(mask_tidy, j);
	mask_step(mask_check, j);
}

/* A view shared by calls whose jobs are C functions (jail.c,
 * plan_share_view): an empty read-only tmpfs over /proc, where no process
 * is seen, and the tmpfs on /tmp (the masks' stand-ins) read-only, where
 * no call leaves a file for another. */
static void seal_shared_view(const struct sbx_jail *j)
{
	CHECK(STEP_MOUNT_PROC,
	      mount("tmpfs", "/proc", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
	            "size=4k,nr_inodes=2,mode=0555"));
	CHECK(STEP_MOUNT_TMP, set_mount_attr(j->tmp_dir, 0, MOUNT_ATTR_RDONLY, 0));
}

/* The mounts of step 6: the view (above), made here or once by the worker
 * this child was forked from (then only the call's own tmpfs goes on top
 * of the worker's, or nothing in a shared view), then /proc of the
 * child's pid namespace. */
static void set_up_mounts(const struct sbx_jail *j)
{
	if (!j->private_proc && !j->private_tmp)
		return;
	if (j->share_view) { /* a worker's child has it, sealed (child_enter_view) */
		if (!j->view_ready) {
			set_up_view(j);
			seal_shared_view(j);
		}
		return;
	}
	if (!j->view_ready)
		set_up_view(j);
	else if (j->private_tmp)
		CHECK(STEP_MOUNT_TMP,
		      mount("tmpfs", j->tmp_dir, "tmpfs", tmp_flags(j), j->tmpfs_opts));
	/* Where proc cannot be mounted (a container's masked /proc: ladder.c),
	 * the host's /proc must not show through: an empty read-only tmpfs
	 * covers it, and the tool sees no process at all. */
	if (j->private_proc && j->proc_empty)
		CHECK(STEP_MOUNT_PROC,
		      mount("tmpfs", "/proc", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
		            "size=4k,nr_inodes=2,mode=0555"));
	else if (j->private_proc)
		CHECK(STEP_MOUNT_PROC,
		      mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL));
	/* Only with our own /proc of our own pid namespace on a kernel that
	 * keeps pid_max per namespace (jail.c checks): before 6.14 this file
	 * is the host's. */
	if (j->private_proc && j->pid_max[0])
		CHECK(STEP_PID_MAX, write_file("/proc/sys/kernel/pid_max", j->pid_max));
	/* Landlock grants the fresh /proc reading only; in a mount tree it is
	 * a read-only mount instead (uid 0 writes sysctls by file mode). */
	if (j->private_proc && j->mount_tree)
		CHECK(STEP_MOUNT_PROC, set_mount_attr("/proc", 0, MOUNT_ATTR_RDONLY, 0));
}

/* The environment the tool gets: the jail's, or (a per-call temporary
 * directory) a copy of its pointers with TMPDIR, TMP and TEMP naming the
 * call's directory. Static: no allocation after the fork. */
static char *const *child_envp;
/* The jail's (at most SBX_ENV_MAX + 3: jail.c refuses more), then
 * TMPDIR, TMP, TEMP and the end: room for all, nothing cut. */
static char *call_env[SBX_ENV_MAX + 3 + 4];
static char call_env_vars[3][sizeof((struct sbx_jail *)0)->call_tmp_base + 32];

static bool is_tmp_var(const char *e)
{
	return !strncmp(e, "TMPDIR=", 7) || !strncmp(e, "TMP=", 4) || !strncmp(e, "TEMP=", 5);
}

/* Step 6 without a mount namespace (ladder.c): the call's own directory,
 * BASE/<supervisor's pid>-<ours> (the host's pids: no pid namespace; our
 * parent is the supervisor, CLONE_PARENT from a worker), made ours (the
 * tools' user), opened for its Landlock rule; the environment names it.
 * Returns its O_PATH fd. */
static int make_call_tmp(const struct sbx_jail *j)
{
	char name[24];
	size_t k = put_uint(name, (unsigned)getppid());
	name[k++] = '-';
	put_uint(name + k, (unsigned)getpid());
	int base, dir;
	CHECK(STEP_MOUNT_TMP,
	      base = open(j->call_tmp_base, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
	CHECK(STEP_MOUNT_TMP, mkdirat(base, name, 0700));
	if (j->set_ids)
		CHECK(STEP_MOUNT_TMP, fchownat(base, name, j->uid, j->gid, AT_SYMLINK_NOFOLLOW));
	CHECK(STEP_MOUNT_TMP,
	      dir = openat(base, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
	close(base);
	static const char *const names[3] = { "TMPDIR=", "TMP=", "TEMP=" };
	size_t n = 0;
	for (char *const *e = j->envp; *e && n < sizeof call_env / sizeof call_env[0] - 4; e++)
		if (!is_tmp_var(*e))
			call_env[n++] = *e;
	for (int i = 0; i < 3; i++) {
		char *s = call_env_vars[i];
		size_t v = strlen(names[i]), b = strlen(j->call_tmp_base);
		memcpy(s, names[i], v);
		memcpy(s + v, j->call_tmp_base, b);
		s[v + b] = '/';
		memcpy(s + v + b + 1, name, strlen(name) + 1);
		call_env[n++] = s;
	}
	call_env[n] = NULL;
	child_envp = call_env;
	return dir;
}

/* A worker's child sends its mount namespace to the supervisor, which
 * holds it until it frees the child: its teardown (the tmpfs, /proc, the
 * masks: ~0.1 ms) then happens after the caller has its result, not in
 * this process's exit, which the worker reaps before it reports the end.
 * (For a child of ours the supervisor opens it itself: spawn.c.) Best
 * effort: without it the teardown is only slower. */
static void hand_out_mount_ns(void)
{
	int fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	struct child_report r = { .kind = REPORT_MNTNS };
	if (fd >= 0) {
		(void)io_send_fds(status_fd, &r, sizeof r, &fd, 1);
		close(fd);
	}
}

/* cwd (relative) beneath the current directory, the workspace. */
static void enter_beneath(const char *cwd, enum child_step step)
{
	if (!cwd || !*cwd)
		return;
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		                .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
	int fd;
	CHECK(step, fd = (int)syscall(SYS_openat2, AT_FDCWD, cwd, &how, sizeof how));
	CHECK(step, fchdir(fd));
	close(fd);
}

/* By path, in our own mount namespace: an fd opened by the parent would
 * point into the parent's mounts and make getcwd() unreachable. The cwd was
 * checked by the parent; RESOLVE_BENEATH checks it again here. */
static void change_dir(const struct sbx_jail *j, const char *cwd)
{
	CHECK(STEP_CWD, chdir(j->workspace));
	enter_beneath(cwd, STEP_CWD);
}

/* Step 11. One PR_CAPBSET_DROP per capability still in the set (each a
 * new cred: ~2.5 us here), the set read from our status at step 4 (or
 * now, in the worker): under a container's or a unit's bounding set most
 * are gone already. Where the status cannot be read, every capability up
 * to the kernel's last, which refuses the first number past it (EINVAL).
 * The result is the same: an empty set. */
static void drop_bounding_set(const struct sbx_jail *j)
{
	if (j->view_ready) /* the worker dropped it: inherited */
		return;
	if (!own_valid)
		read_own_status();
	/* Without CAP_SETPCAP (an unprivileged supervisor without a user
	 * namespace) the set cannot shrink; no_new_privs still means nothing
	 * in it can ever be gained. */
	uint64_t eff = own_st.cap_eff, bnd = own_st.cap_bnd;
	if (!own_valid) {
		struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2];
		if (syscall(SYS_capget, &hdr, d) < 0)
			return;
		eff = d[0].effective | (uint64_t)d[1].effective << 32;
		bnd = ~(uint64_t)0;
	}
	if (!(eff & (1u << CAP_SETPCAP)))
		return;
	for (int c = 0; c < 64; c++) {
		if (!((bnd >> c) & 1))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0) {
			if (errno == EINVAL && !own_valid) /* past the kernel's last */
				break;
			fail(STEP_BOUNDING, errno);
		}
	}
	own_valid = false; /* what was read is no longer our set */
	/* Root keeps no special powers across exec or uid changes, and the
	 * tool cannot undo that. */
	CHECK(STEP_BOUNDING,
	      prctl(PR_SET_SECUREBITS,
	            SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
	                    SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
	                    SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
	            0, 0, 0));
}

static void change_identity(const struct sbx_jail *j)
{
	if (!j->set_ids)
		return;
	CHECK(STEP_IDENTITY, syscall(SYS_setgroups, (size_t)j->n_groups, j->groups));
	CHECK(STEP_IDENTITY, syscall(SYS_setresgid, j->gid, j->gid, j->gid));
	CHECK(STEP_IDENTITY, syscall(SYS_setresuid, j->uid, j->uid, j->uid));
}

static void drop_caps(void)
{
	/* Raw capset with a zeroed set: libcap's cap_set_proc needs a cap_t,
	 * which would be malloc'd here (after fork, in a single-threaded
	 * parent, that is safe but we keep this path allocation-free). */
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof data);
	/* One prctl; libcap's cap_reset_ambient() tests every capability first. */
	CHECK(STEP_CAPS, prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0));
	CHECK(STEP_CAPS, syscall(SYS_capset, &hdr, data));
}

/* Without a pid namespace, the signal wall's filter first (it knows the
 * group: ours, we lead it), its listener to the supervisor before any of
 * the tool's code runs (sigwall.c). */
static void load_sigwall(const struct sbx_jail *j)
{
	if (j->sigwall) {
		struct sock_filter f[192];
		int n = sigwall_filter(f, sizeof f / sizeof f[0], getpid(), j->sig_notify);
		if (n < 0)
			fail(STEP_SECCOMP, -n);
		struct sock_fprog sp = { .len = (unsigned short)n, .filter = f };
		/* Once the supervisor has the notification, only a kill
		 * interrupts the wait for its answer (Linux 5.19): a signal
		 * from a process of the call would make the call again. */
		unsigned long fl = j->sig_notify ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;
		long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		                  fl | (fl ? SIGWALL_WAIT_KILLABLE : 0), &sp);
		if (fd < 0 && errno == EINVAL && fl)
			fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, fl, &sp);
		CHECK(STEP_SECCOMP, fd);
		if (j->sig_notify) {
			struct child_report r = { .kind = REPORT_SIGNALS, .pid = getpid() };
			int lfd = (int)fd, rc = io_send_fds(status_fd, &r, sizeof r, &lfd, 1);
			close(lfd);
			if (rc < 0)
				fail(STEP_SECCOMP, -rc);
		}
	}
}

/* The profile's filter. A worker's child: the worker holds the rest
 * (worker.c). */
static void load_filter(const struct sbx_jail *j)
{
	struct sock_fprog prog = { .len = j->part_held ? j->part_len[1] : j->bpf_len,
		                   .filter = j->part_held ? j->part_bpf[1] : j->bpf };
	CHECK(STEP_SECCOMP, syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog));
	say_by = j->say_by;
}

/* RLIMIT_AS waits for the job in a spare (the job's mapping comes first;
 * lowering a limit needs no privilege). ASan's shadow memory is terabytes
 * of address space: an instrumented builtin cannot live under RLIMIT_AS.
 * Test builds only; exec'd tools are not instrumented and keep the limit. */
static void limit_address_space(const struct sbx_jail *j, bool builtin)
{
#ifdef __SANITIZE_ADDRESS__
	if (builtin)
		return;
#else
	(void)builtin;
#endif
	for (int i = 0; i < j->n_rlimits; i++)
		if (j->rlimits[i].resource == RLIMIT_AS)
			CHECK(STEP_RLIMITS, setrlimit(RLIMIT_AS, &j->rlimits[i].lim));
}

/* A spare's job as received: an argv, or a builtin and its data. */
struct job_in {
	char *const *argv;
	sbx_fn fn;
	struct sbx_data data;
};

/* A spare's wait for its job (see struct job_header). Every wall is up
 * (the profile's filter too, unless it would refuse these calls:
 * filter_with_job): only reads, an anonymous mapping for the job, a chdir beneath the
 * workspace, /dev/null for a stdin the job does not feed and fd 3 closed
 * when the job has no result pipe. */
static struct job_in await_job(const struct sbx_jail *j)
{
	struct job_header h;
	struct job_in in = { 0 };
	/* Ready: sbx_jail_spare_ready(). A fresh child's job may be sent, and
	 * the parent's end closed, before this: no SIGPIPE (which a child
	 * that is not pid 1 of its own namespace would die of). */
	(void)!send(job_fd, "R", 1, MSG_NOSIGNAL);
	if (io_read_all(job_fd, &h, sizeof h) != (ssize_t)sizeof h)
		_exit(CHILD_EXIT_SETUP); /* the parent dropped the spare: nobody to tell */
	if (h.magic != JOB_MAGIC || (!h.argc && !h.fn) || h.payload_len > JOB_MAX_PAYLOAD ||
	    h.argc > h.payload_len || !h.cwd_len || h.cwd_len > h.payload_len)
		fail(STEP_JOB, EPROTO);
	size_t vec = ((size_t)h.argc + 1) * sizeof(char *);
	char **argv = mmap(NULL, vec + h.payload_len, PROT_READ | PROT_WRITE,
	                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (argv == MAP_FAILED)
		fail(STEP_JOB, errno);
	char *data = (char *)argv + vec, *end = data + h.payload_len;
	if (io_read_all(job_fd, data, h.payload_len) != (ssize_t)h.payload_len)
		fail(STEP_JOB, EPROTO);
	if (!(h.fn && (h.flags & JOB_END))) { /* else kept for tell_end (close-on-exec) */
		close(job_fd);
		job_fd = -1;
	}
	const char *cwd = data;
	if (cwd[h.cwd_len - 1] != '\0')
		fail(STEP_JOB, EPROTO);
	char *s = data + h.cwd_len;
	for (uint32_t i = 0; i < h.argc; i++) {
		char *nul = s < end ? memchr(s, '\0', (size_t)(end - s)) : NULL;
		if (!nul)
			fail(STEP_JOB, EPROTO);
		argv[i] = s;
		s = nul + 1;
	}
	argv[h.argc] = NULL;
	/* Without a stdin pipe, fd 0 is /dev/null already (arrange_fds). */
	if (!(h.flags & JOB_STDIN) && null_fd >= 0)
		CHECK(STEP_JOB, dup2(null_fd, 0));
	if (null_fd >= 0)
		close(null_fd);
	null_fd = -1;
	if (!(h.flags & JOB_RESULT))
		close(CHILD_FD_RESULT);
	limit_address_space(j, h.fn != 0);
	enter_beneath(cwd, STEP_CWD);
	in.argv = argv;
	in.fn = h.fn ? (sbx_fn)sbx_fn_from_ref(h.fn) : NULL;
	in.data = (struct sbx_data){ .data = s, .len = (size_t)(end - s) };
	return in;
}

extern char **environ;

/* User and system time of ru, in microseconds. */
static uint64_t cpu_us(const struct rusage *ru)
{
	return (uint64_t)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000u +
	        (uint64_t)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec);
}

/* The builtin returned rc: its outputs end now rather than at the exit,
 * and what the exit would say goes on the job socket, so that the
 * supervisor can answer while the exit (the address space, the
 * namespaces) is torn down. Once told, the supervisor kills the process
 * (watch.c, take_end): nothing of the call runs past its answer. */
static void tell_end(int rc)
{
	struct end_report e = { .magic = END_MAGIC, .rc = rc & 0xff };
	struct rusage self, kids;
	if (getrusage(RUSAGE_SELF, &self) == 0 && getrusage(RUSAGE_CHILDREN, &kids) == 0) {
		e.cpu_us = cpu_us(&self) + cpu_us(&kids);
		e.max_rss_kb = (uint64_t)(self.ru_maxrss > kids.ru_maxrss ? self.ru_maxrss :
		                                                            kids.ru_maxrss);
	}
	/* The three in one system call: each close wakes the supervisor,
	 * which, on the CPU we share while calls come one at a time (home.c),
	 * runs before we go on. */
	if (syscall(SYS_close_range, CHILD_FD_STDOUT, CHILD_FD_RESULT, 0) < 0)
		for (int fd = CHILD_FD_STDOUT; fd <= CHILD_FD_RESULT; fd++)
			close(fd);
	(void)!send(job_fd, &e, sizeof e, MSG_NOSIGNAL);
}

/* A builtin runs on a copy of our memory, environment included: what it
 * reads (getenv) or starts (run_command's execvp) must see the profile's
 * environment, as an exec'd tool does, not the supervisor's. */
_Noreturn static void run_fn(const struct sbx_jail *j, sbx_fn fn, void *arg)
{
	(void)j;
	environ = (char **)child_envp;
	close(status_fd);
	status_fd = -1;
	/* What the builtin starts (run_command's command) must not inherit
	 * the result channel: it would write the builtin's answer. */
	(void)fcntl(CHILD_FD_RESULT, F_SETFD, FD_CLOEXEC);
	int rc = fn(arg);
	fflush(NULL); /* a builtin's stdio output is part of its answer */
	if (job_fd >= 0)
		tell_end(rc);
	_exit(rc & 0xff);
}

/* execvpe without malloc: try each PATH entry, remember EACCES. */
_Noreturn static void run_exec(const struct sbx_jail *j, char *const *argv)
{
	if (!argv || !argv[0]) /* sbx_spawn checked; a spare's job too */
		fail(STEP_EXEC, EINVAL);
	const char *cmd = argv[0];
	char *const *envp = child_envp;
	if (strchr(cmd, '/')) {
		execve(cmd, argv, envp);
		fail(errno == ENOENT || errno == ENOTDIR ? STEP_EXEC_NOT_FOUND : STEP_EXEC, errno);
	}
	char path[4096];
	size_t clen = strlen(cmd);
	int seen_eacces = 0;
	for (const char *s = j->path; s && *s;) {
		const char *e = strchrnul(s, ':');
		size_t dlen = (size_t)(e - s);
		if (dlen == 0) {
			dlen = 1;
			s = ".";
		}
		if (dlen + 1 + clen < sizeof path) {
			memcpy(path, s, dlen);
			path[dlen] = '/';
			memcpy(path + dlen + 1, cmd, clen + 1);
			execve(path, argv, envp);
			if (errno == EACCES)
				seen_eacces = 1;
			else if (errno != ENOENT && errno != ENOTDIR)
				fail(STEP_EXEC, errno);
		}
		s = *e ? e + 1 : e;
	}
	if (seen_eacces)
		fail(STEP_EXEC, EACCES);
	fail(STEP_EXEC_NOT_FOUND, ENOENT);
}

/* With the jail's timeline on (benchmarks: jail.c), when each numbered
 * step below ended, sent on the status socket before the job runs. */
static uint64_t timeline_ns[SBX_TIMELINE_MAX];
#define MARK(n)                                                                                    \
	do {                                                                                       \
		if (j->timeline)                                                                   \
			timeline_mark(n);                                                          \
	} while (0)

static void timeline_mark(int step)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	timeline_ns[step] = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void timeline_send(const struct sbx_jail *j)
{
	if (!j->timeline || status_fd < 0)
		return;
	struct timeline_report r = { .kind = REPORT_TIMELINE };
	memcpy(r.ns, timeline_ns, sizeof r.ns);
	say(status_fd, &r, sizeof r);
}

_Noreturn void child_main(const struct child_plan *p)
{
	const struct sbx_jail *j = p->jail;
	int ruleset_fd = -1;

	status_fd = p->status_fd;
	view_wr = p->view_wr;
	job_fd = lifeline_fd =
	        -1; /* statics may hold what an earlier child sharing our memory left */
	say_by = SAY_SEND;
	own_valid = false;
	MARK(0);
	home_any();         /* not the CPU our parent's thread may keep to (home.c) */
	if (p->job_fd >= 0) /* a worker's child: not named as the worker */
		(void)prctl(PR_SET_NAME, (unsigned long)"tc-call", 0, 0, 0);
	for (int i = 0; i <= SBX_CGROUP_FDS; i++) /* 1 */
		if (p->cgroup_fds[i] >= 0)
			CHECK(STEP_CGROUP, write(p->cgroup_fds[i], "0", 1));
	MARK(1);
	if (p->job_fd >= 0) /* 2 */
		CHECK(STEP_SESSION, setpgid(0, 0));
	else
		CHECK(STEP_SESSION, setsid());
	MARK(2);
	if (p->lifeline_wr >= 0) /* 3 */
		close(p->lifeline_wr);
	die_with_parent(p->lifeline_fd);
	MARK(3);
	reset_signals(p->signals_default); /* 4 */
	MARK(4);
	map_user_ns(j); /* 5 */
	if (j->child_ns)
		CHECK(STEP_NAMESPACES, unshare((int)j->child_ns));
	if (j->egress) {
		int rc = netns_child_setup(p->status_fd);
		if (rc < 0)
			fail(STEP_NETNS, -rc);
	}
	MARK(5);
	set_up_mounts(j); /* 6 */
	if (p->view_wr >= 0)
		close(p->view_wr);
	if (p->job_fd >= 0 && j->private_tmp && !j->share_view)
		hand_out_mount_ns();
	child_envp = j->envp;
	int call_tmp_fd = j->call_tmp ? make_call_tmp(j) : -1;
	MARK(6);
	if (j->landlock) /* 7 */
		CHECK(STEP_LANDLOCK_RULES, ruleset_fd = landlock_child_ruleset(j, call_tmp_fd));
	if (call_tmp_fd >= 0)
		close(call_tmp_fd);
	MARK(7);
	arrange_fds(p, &ruleset_fd); /* 8 */
	MARK(8);
	for (int i = 0; i < j->n_rlimits; i++) /* 9 */
		if (j->rlimits[i].resource != RLIMIT_AS || (!p->fn && job_fd < 0))
			CHECK(STEP_RLIMITS, setrlimit(j->rlimits[i].resource, &j->rlimits[i].lim));
	if (p->fn)
		limit_address_space(j, true);
	MARK(9);
	change_dir(j, p->cwd); /* 10 */
	MARK(10);
	drop_bounding_set(j); /* 11 */
	MARK(11);
	change_identity(j); /* 12 */
	if (j->set_ids)     /* the uid change cleared PDEATHSIG */
		die_with_parent(lifeline_fd);
	if (lifeline_fd >= 0)
		close(lifeline_fd);
	MARK(12);
	if (p->fn || job_fd >= 0) /* 13 */
		CHECK(STEP_DUMPABLE, prctl(PR_SET_DUMPABLE, 0, 0, 0, 0));
	MARK(13);
	drop_caps(); /* 14 */
	MARK(14);
	CHECK(STEP_NO_NEW_PRIVS, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)); /* 15 */
	MARK(15);
	if (ruleset_fd >= 0) { /* 16 */
		CHECK(STEP_LANDLOCK, syscall(SYS_landlock_restrict_self, ruleset_fd, 0));
		close(ruleset_fd);
	}
	MARK(16);
	load_sigwall(j); /* 17 */
	/* Before the job comes unless the filter would refuse the calls
	 * that take it (jail.c: filter_with_job). */
	bool with_job = job_fd >= 0 && j->filter_with_job;
	if (!with_job)
		load_filter(j);
	MARK(17);
	if (job_fd >= 0) { /* 18 */
		struct job_in in = await_job(j);
		home_leave(j);
		if (with_job)
			load_filter(j);
		MARK(18);
		timeline_send(j);
		if (in.fn)
			run_fn(j, in.fn, &in.data);
		run_exec(j, in.argv);
	}
	timeline_send(j);
	if (p->fn) {
		struct sbx_data d = { p->fn_data, p->fn_len };
		run_fn(j, p->fn, p->fn_arg ? p->fn_arg : &d);
	}
	run_exec(j, p->argv);
}

/* The worker's side of steps 5, 6 and 11, done once for all its children
 * (worker.c): a user namespace of its own with its maps (when the jail
 * has one), mount and uts namespaces, the view of step 6 (private,
 * read-only but the writable paths, a tmpfs with the masks over the hidden
 * paths), and the bounding set dropped. Its children then clone only the
 * namespaces that must be theirs (pid and mount: their own /proc and
 * /tmp; net, ipc and cgroup when asked) and mount their tmpfs and /proc.
 * Returns 0, or -1 with *failed the step that failed: the worker is then
 * in no state to fork, and reports that step for each child asked of it. */
int child_enter_view(struct sbx_jail *j, struct child_report *failed)
{
	jmp_buf here;
	if (setjmp(here)) {
		view_jump = NULL;
		*failed = view_failure;
		return -1;
	}
	view_jump = &here;
	unsigned own = j->clone_ns & (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWUTS);
	/* Root without CAP_SYS_ADMIN (jail.c): become the tools' user while
	 * still root of the host's user namespace (the groups need it), then
	 * make the user namespace as that user's own supervisor would. The
	 * children then change no ids. The change clears PDEATHSIG: the
	 * worker arms it again (worker.c). */
	if (j->root_userns && j->set_ids) {
		change_identity(j);
		j->set_ids = false;
	}
	if (j->userns) {
		CHECK(STEP_USERNS, unshare(CLONE_NEWUSER));
		map_user_ns(j);
		/* The worker is not dumpable, as before the maps. */
		CHECK(STEP_USERNS, prctl(PR_SET_DUMPABLE, 0, 0, 0, 0));
	}
	CHECK(STEP_NAMESPACES, unshare(own & ~CLONE_NEWUSER));
	set_up_view(j);
	/* The dirs that hold hidden paths, an overlay of stand-ins (or a
	 * replica) made once for all the children instead of granted to each
	 * entry by entry (view.c). */
	int rrc = j->mount_tree ? 0 : landlock_replicate(j);
	if (rrc < 0)
		fail(STEP_MOUNT_MASK, -rrc);
	mask_step(mask_check, j); /* the replica, or the rules, made from them */
	if (j->share_view)
		seal_shared_view(j);
	own_valid = false; /* read the set of the credentials we have now */
	drop_bounding_set(j);
	view_jump = NULL;
	/* Each child still gets a mount namespace of its own (a copy of this
	 * view) for its /tmp and /proc, which it makes itself (child_ns);
	 * in a shared view none. */
	unsigned per_child = j->share_view ? 0 : CLONE_NEWNS;
	j->view_ns = own & ~per_child;
	j->child_ns = j->clone_ns & per_child;
	j->clone_ns &= ~(j->view_ns | j->child_ns);
	j->view_ready = true;
	return 0;
}
