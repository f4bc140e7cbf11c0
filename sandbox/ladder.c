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
 * these system calls and exit. Where the kernel's rules give the answer
 * without a try (root with CAP_SYS_ADMIN in the initial user namespace),
 * none is made: a one-shot launch would pay for one each time. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

bool ladder_have_cap(int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	if (cap < 0 || cap >= 64 || syscall(SYS_capget, &hdr, d) < 0)
		return false;
	return (d[cap / 32].effective & (1u << (cap % 32))) != 0;
}

bool ladder_have_sys_admin(void)
{
	return ladder_have_cap(CAP_SYS_ADMIN);
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

/* What refused the probe's namespaces, per userns: the step (STEP_NONE:
 * the clone itself) and its errno. */
static struct ns_refusal {
	int step, err;
} refusal[2] = { { STEP_NONE, EPERM }, { STEP_NONE, EPERM } };

void ladder_ns_refusal(bool userns, int *step, int *err)
{
	*step = refusal[userns].step;
	*err = refusal[userns].err;
}

/* Exit codes of the probe child. */
enum { PROBE_OK = 0, PROBE_NS = 1, PROBE_PROC = 2 };

/* A child of its own user (when userns), pid and mount namespaces that
 * mounts proc where calls mount theirs. The maps name the child's own ids
 * only, which needs no privilege. Where the namespaces are made but a
 * step in them is refused (gVisor's runsc: no /proc/self/setgroups, no
 * recursive MS_PRIVATE), the child writes that step and its errno to a
 * page shared with us: they, not the namespaces, are what the kernel
 * refused, and messages name them (explain.c). */
static int probe_proc(bool userns)
{
	struct ns_refusal *r = &refusal[userns];
	char uid_map[32], gid_map[32];
	snprintf(uid_map, sizeof uid_map, "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
	snprintf(gid_map, sizeof gid_map, "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
	/* Without the page the answer stands, its cause less precise. */
	struct ns_refusal own;
	struct ns_refusal *seen =
	        mmap(NULL, sizeof *seen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED)
		seen = &own;
	*seen = (struct ns_refusal){ STEP_NONE, EPERM };
	unsigned long flags = CLONE_NEWPID | CLONE_NEWNS | (userns ? CLONE_NEWUSER : 0);
	long pid = syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);
	if (pid < 0) {
		*r = (struct ns_refusal){ STEP_NONE, errno };
		if (seen != &own)
			munmap(seen, sizeof *seen);
		return PROBE_NS;
	}
	if (pid == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (userns &&
		    (write_str("/proc/self/setgroups", "deny") < 0 ||
		     write_str("/proc/self/uid_map", uid_map) < 0 ||
		     write_str("/proc/self/gid_map", gid_map) < 0)) {
			*seen = (struct ns_refusal){ STEP_USERNS, errno };
			_exit(PROBE_NS);
		}
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
			*seen = (struct ns_refusal){ STEP_MOUNT_PRIVATE, errno };
			_exit(PROBE_NS);
		}
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			_exit(PROBE_PROC);
		_exit(PROBE_OK);
	}
	int st = 0;
	pid_t w;
	while ((w = waitpid((pid_t)pid, &st, 0)) < 0 && errno == EINTR)
		;
	/* An embedder ignoring SIGCHLD reaps it first (ECHILD): no answer. */
	int rc = w == (pid_t)pid && WIFEXITED(st) ? WEXITSTATUS(st) : PROBE_NS;
	if (rc == PROBE_NS)
		*r = *seen;
	if (seen != &own)
		munmap(seen, sizeof *seen);
	return rc;
}

/* The inode of /proc/self/ns/user in the initial user namespace (the
 * kernel's PROC_USER_INIT_INO, the same since Linux 3.8). */
#define USER_NS_INIT_INO 0xEFFFFFFDu

/* Whether the answer is known without a probe: root holding CAP_SYS_ADMIN
 * in the initial user namespace, under no seccomp filter, making no user
 * namespace. The kernel grants pid and mount namespaces for that
 * capability, and weighs whether a fresh /proc would show what a mask
 * covers only in a mount namespace owned by another user namespace. What
 * could refuse anyway (a security module's rule on mount, a
 * user.max_*_namespaces of 0) refuses the launch itself at that step, in
 * the kernel's words: never a weaker wall. A probe costs a launch a
 * child of its own with both namespaces, their teardown and a wait: about
 * a third of a whole launch. */
static bool granted_by_capability(const struct sbx_jail *j)
{
	struct stat st;
	return !j->userns && j->self_uid == 0 && j->self_sys_admin &&
	        prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0 && stat("/proc/self/ns/user", &st) == 0 &&
	        st.st_ino == USER_NS_INIT_INO;
}

/* 1: a fresh /proc can be mounted; 0: the kernel refuses proc there while
 * the namespaces themselves are made; -1: the namespaces are refused (the
 * spawn will say so in its own words). Cached per (userns); asked of the
 * kernel only where not known (above). */
int ladder_proc_mountable(const struct sbx_jail *j)
{
	static int cached[2] = { -2, -2 };
	int *c = &cached[j->userns];
	if (*c == -2 && granted_by_capability(j))
		*c = 1;
	if (*c == -2) {
		int r = probe_proc(j->userns);
		*c = r == PROBE_OK ? 1 : r == PROBE_PROC ? 0 : -1;
	}
	return *c;
}

/* ---- a per-call temporary directory (no mount namespace) ---------------
 * Without a mount namespace there is no private tmpfs: each call gets a
 * directory of its own instead, DIR/<supervisor pid>-<its pid> (unique
 * while both live: no pid namespace here, and the child's parent is the
 * supervisor, CLONE_PARENT for a worker's), made by the child before
 * Landlock (which grants it that directory alone: not its parent, not
 * another call's), named to it by TMPDIR, TMP and TEMP, and removed by the
 * supervisor once the call is over. DIR (call_tmp_base) is /run/toolcage
 * (root), $XDG_RUNTIME_DIR/toolcage or /var/tmp/toolcage-<uid>, ours and
 * closed to others (mode 0711: the tools' user may pass through to its
 * own). */

/* Removes name in dfd and everything beneath, never following a link:
 * each directory is opened O_NOFOLLOW and, where the tool left it closed
 * to us, opened up through its own descriptor (a name could be a link
 * by then: a process of the call may still be dying). At most *budget
 * entries; depth bounded. 0 when it is gone, -1 when some is left. */
static int remove_tree_at(int dfd, const char *name, int depth, long *budget)
{
	if (*budget <= 0 || depth > 64)
		return -1;
	--*budget;
	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES) {
		int p = openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (p >= 0 && fd_chmod(p, 0700) == 0)
			fd = openat(p, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (p >= 0)
			close(p);
	}
	if (fd < 0)
		return -1;
	(void)fchmod(fd, 0700); /* entries can only be removed from a writable dir */
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	int rc = 0;
	for (struct dirent *e; rc == 0 && (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rc = remove_tree_at(dirfd(d), e->d_name, depth + 1, budget);
	closedir(d);
	return rc == 0 && unlinkat(dfd, name, AT_REMOVEDIR) == 0 ? 0 : -1;
}

/* A call's directory is renamed out of the way at once (its name may be
 * the next call's), then removed here up to CALL_TMP_BUDGET entries; a
 * larger tree is left to a process of its own, so that the event loop
 * never walks what a tool filled. */
enum { CALL_TMP_BUDGET = 4096 };

static void remove_off_loop(int base, const char *name)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (fork() == 0) { /* not ours to reap: init's */
			long budget = 1L << 30;
			(void)remove_tree_at(base, name, 0, &budget);
		}
		_exit(0);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

int ladder_remove_tree(int dfd, const char *name)
{
	long budget = CALL_TMP_BUDGET;
	if (remove_tree_at(dfd, name, 0, &budget) == 0)
		return 0;
	if (budget > 0)
		return -1;
	remove_off_loop(dfd, name);
	return 1;
}

void ladder_call_tmp_remove(const struct sbx_jail *j, pid_t pid)
{
	if (!j->call_tmp_base[0] || pid <= 0)
		return;
	int d = open(j->call_tmp_base, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d < 0)
		return;
	char name[32], gone[48];
	snprintf(name, sizeof name, "%d-%d", (int)getpid(), (int)pid);
	snprintf(gone, sizeof gone, ".gone-%s", name);
	const char *what = renameat(d, name, d, gone) == 0 ? gone : name;
	long budget = CALL_TMP_BUDGET;
	if (remove_tree_at(d, what, 0, &budget) < 0 && budget <= 0 && what == gone)
		remove_off_loop(d, gone);
	close(d);
}

/* The supervisor's own directory for what the jail keeps outside the
 * tools' reach (a private tmp's mount point, the per-call directories):
 * /run/toolcage for root, else $XDG_RUNTIME_DIR/toolcage, else
 * /var/tmp/toolcage-UID; made with mode and ours, closed to others'
 * writes. Tools may not write what holds it: a tool that could rename it
 * would send the next call's directory anywhere. 0 or -errno with *err. */
int ladder_base_dir(const struct sbx_jail *j, const char *what, mode_t mode, char *out, size_t size,
                    struct sbx_error *err)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	char bases[3][160];
	int n = 0;
	if (j->self_uid == 0)
		snprintf(bases[n++], sizeof bases[0], "/run/toolcage");
	else if (rt && rt[0] == '/' && strlen(rt) < 120)
		snprintf(bases[n++], sizeof bases[0], "%s/toolcage", rt);
	snprintf(bases[n++], sizeof bases[0], "/var/tmp/toolcage-%u", (unsigned)j->self_uid);
	for (int i = 0; i < n; i++) {
		struct stat st;
		if (mkdir(bases[i], mode) < 0 && errno != EEXIST)
			continue;
		if (lstat(bases[i], &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != j->self_uid ||
		    (st.st_mode & 022))
			continue;
		for (char **p = j->rw_paths; p && *p; p++) {
			size_t len = strlen(*p);
			if (!strncmp(bases[i], *p, len) && (bases[i][len] == '/' || !bases[i][len]))
				return sbx_err(err, EPERM, "write path %s holds toolcage's %s %s",
				               *p, what, bases[i]);
		}
		snprintf(out, size, "%s", bases[i]);
		return 0;
	}
	return sbx_err(err, EACCES,
	               "no directory for toolcage's %s: %s is not ours or cannot be made", what,
	               bases[n - 1]);
}

/* The per-call directories' base (see above): mode 0711, so that the
 * tools' user may pass through to its own. */
int ladder_call_tmp_plan(struct sbx_jail *j, struct sbx_error *err)
{
	int rc = ladder_base_dir(j, "per-call temporary directories", 0711, j->call_tmp_base,
	                         sizeof j->call_tmp_base, err);
	if (rc == 0)
		(void)chmod(j->call_tmp_base, 0711);
	return rc;
}
