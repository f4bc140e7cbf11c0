/* mounttree.c — the filesystem wall where the kernel has no Landlock
 * (before Linux 5.13, or landlock missing from lsm=): a new root that holds
 * the granted paths and nothing else, as bubblewrap builds one.
 *
 * In the child's mount namespace (child.c, step 6), after every mount was
 * made read-only but the writable paths: a small tmpfs gets a recursive
 * clone of each granted path at the same path, then the process moves into
 * it (pivot_root) and the old root is detached. What no grant names (the
 * home directories, other workspaces, the host's /proc, /run, /var) has no
 * path any more; unlike Landlock, not even its existence shows (stat).
 *
 *  - read paths: read-only, nodev, nosuid, and noexec unless the profile
 *    lets the path execute; exec paths the same, executable;
 *  - the workspace and write paths: as the view made them (writable where
 *    the host's mounts are), nodev, nosuid; noexec unless the profile lets
 *    them execute (workspace_exec). noexec also refuses mapping their files
 *    executable, so the dynamic loader cannot run them either (Landlock
 *    leaves that open);
 *  - a path beneath another gets the union of both rights, as a Landlock
 *    rule on a directory covers what lies beneath it;
 *  - /dev holds null, zero, full, random and urandom, bound from the host
 *    (read-only mounts: no chmod; device writes still work), and the links
 *    fd, stdin, stdout, stderr into /proc/self/fd; no tty (a child has no
 *    controlling terminal) and no shm, as Landlock grants neither;
 *  - empty directories for the private /tmp (noexec here: Landlock grants it
 *    no execute right) and a workspace granted nothing, so the child can
 *    enter it;
 *  - /proc: the host's, read-only, covered by the child's fresh one before
 *    the tool runs (see mounttree_plan), which is read-only too (child.c:
 *    Landlock grants it reading only, and uid 0 writes sysctls by file
 *    mode alone); nothing where the child has no pid namespace;
 *  - a granted path that is a symbolic link (/bin on a merged /usr) is the
 *    same link in the tree, and its target is bound;
 *  - the directories on the way to a grant (/var/tmp above a workspace)
 *    are mode 0111: walked through, never listed (Landlock does not let
 *    them be listed either).
 * The tree's own tmpfs is read-only once built. The hidden paths are then
 * covered (mask.c) and the protected paths bound read-only (protect.c) on
 * the same paths as ever, inside the new root.
 *
 * What only Landlock can say, the tree cannot: TCP port rules, scoping of
 * signals and abstract sockets, device ioctl rules. A profile that requires
 * one of them is refused without Landlock (landlock.c); an optional one is
 * reported dropped.
 *
 * The parent lists the entries when the jail is compiled (mounttree_plan);
 * the child only makes system calls on that list (mounttree_enter).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

enum { MT_MAX = SBX_MAX_MOUNT_TREE };

/* The tree's own tmpfs: directories and mount points only. */
static const char tree_opts[] = "mode=0755,size=1m,nr_inodes=4096";

void mounttree_select(struct sbx_jail *j)
{
	j->mount_tree = true;
	/* The tree lives in the mount namespace: it may not be dropped. */
	j->optional_ns &= ~(unsigned)CLONE_NEWNS;
	/* The tree holds the host's /proc where a child covers it with its
	 * own: its pid namespace may not be dropped either. */
	if (j->private_proc)
		j->optional_ns &= ~(unsigned)CLONE_NEWPID;
	if (j->userns)
		j->optional_ns &= ~(unsigned)CLONE_NEWUSER;
}

/* ---- parent: the plan ------------------------------------------------- */

static int push(struct sbx_jail *j, const char *path, const char *target, unsigned flags)
{
	for (int i = 0; i < j->n_mt; i++)
		if (!strcmp(j->mt[i].path, path) && !((j->mt[i].flags | flags) & MT_LINK)) {
			if (j->mt[i].flags & MT_DIR)
				j->mt[i].flags = flags;
			else if (!(flags & MT_DIR))
				j->mt[i].flags |= flags;
			return 0;
		}
	if (j->n_mt >= MT_MAX)
		return -E2BIG;
	if (j->n_mt % 16 == 0) {
		struct mt_entry *m = realloc(j->mt, (size_t)(j->n_mt + 16) * sizeof *m);
		if (!m)
			return -ENOMEM;
		j->mt = m;
	}
	struct mt_entry *e = &j->mt[j->n_mt];
	*e = (struct mt_entry){ .path = strdup(path),
		                .target = target ? strdup(target) : NULL,
		                .flags = flags };
	if (!e->path || (target && !e->target)) {
		free(e->path);
		free(e->target);
		return -ENOMEM;
	}
	j->n_mt++;
	return 0;
}

/* A granted path: bound at its real path; a link (its last component)
 * stays a link beside it. A path that does not exist grants nothing. */
static int grant(struct sbx_jail *j, const char *path, unsigned rights)
{
	struct stat st;
	char real[PATH_MAX];
	if (lstat(path, &st) < 0 || !realpath(path, real))
		return 0;
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof target - 1);
		if (n <= 0)
			return 0;
		target[n] = '\0';
		int rc = push(j, path, target, MT_LINK);
		if (rc)
			return rc;
		if (stat(real, &st) < 0)
			return 0;
	}
	return push(j, real, NULL, rights | (S_ISDIR(st.st_mode) ? 0 : MT_FILE));
}

static bool in_list(const char *const *list, const char *s)
{
	for (size_t i = 0; list && list[i]; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

/* dir itself, or a directory above path */
static bool covers(const char *dir, const char *path)
{
	size_t n = strlen(dir);
	if (!strcmp(dir, "/"))
		return true;
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct mt_entry *)a)->path, ((const struct mt_entry *)b)->path);
}

/* Parents before what lies beneath them; each bind takes the rights of
 * the binds above it (a Landlock rule covers its whole tree), and one
 * that adds nothing to the nearest bind above it is left out: that
 * bind's clone holds it already. */
static void settle(struct sbx_jail *j)
{
	qsort(j->mt, (size_t)j->n_mt, sizeof *j->mt, by_path);
	int out = 0;
	for (int i = 0; i < j->n_mt; i++) {
		struct mt_entry *e = &j->mt[i];
		int above = -1;
		for (int k = 0; k < out; k++)
			if (!(j->mt[k].flags & (MT_DIR | MT_LINK | MT_FILE)) &&
			    strcmp(j->mt[k].path, e->path) && covers(j->mt[k].path, e->path)) {
				if (!(e->flags & (MT_DIR | MT_LINK)))
					e->flags |= j->mt[k].flags & MT_RIGHTS;
				above = k;
			}
		bool redundant = above >= 0 &&
		        ((e->flags & (MT_DIR | MT_LINK)) ||
		         (!(e->flags & MT_DEV) &&
		          (e->flags & MT_RIGHTS) == (j->mt[above].flags & MT_RIGHTS)));
		if (redundant) {
			free(e->path);
			free(e->target);
			continue;
		}
		j->mt[out++] = *e;
	}
	j->n_mt = out;
}

int mounttree_plan(const struct sbx_spec *spec, struct sbx_jail *j, struct sbx_error *err)
{
	static const char *const devs[] = {
		"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	};
	static const char *const fd_links[][2] = {
		{ "/dev/fd", "/proc/self/fd" },
		{ "/dev/stdin", "/proc/self/fd/0" },
		{ "/dev/stdout", "/proc/self/fd/1" },
		{ "/dev/stderr", "/proc/self/fd/2" },
	};
	if (!j->mount_tree)
		return 0;
	const char *const *exec = spec->exec_paths;
	int rc = 0;
	for (size_t i = 0; !rc && spec->read_paths && spec->read_paths[i]; i++)
		rc = grant(j, spec->read_paths[i],
		           MT_READ | (in_list(exec, spec->read_paths[i]) ? MT_EXEC : 0));
	for (size_t i = 0; !rc && exec && exec[i]; i++)
		rc = grant(j, exec[i], MT_READ | MT_EXEC);
	/* Write paths as jail.c kept them: existing, no link on the way. */
	for (char **p = j->rw_paths; !rc && p && *p; p++)
		if (strcmp(*p, j->workspace))
			rc = push(j, *p, NULL,
			          MT_READ | MT_WRITE | (in_list(exec, *p) ? MT_EXEC : 0));
	unsigned ws = (spec->workspace_read ? MT_READ : 0) |
	        (spec->workspace_write ? MT_READ | MT_WRITE : 0) |
	        (spec->workspace_exec ? MT_READ | MT_EXEC : 0);
	if (!rc)
		rc = push(j, j->workspace, NULL, ws ? ws : MT_DIR);
	for (size_t i = 0; !rc && i < sizeof devs / sizeof devs[0]; i++)
		rc = push(j, devs[i], NULL, MT_READ | MT_WRITE | MT_DEV | MT_FILE);
	for (size_t i = 0; !rc && i < sizeof fd_links / sizeof fd_links[0]; i++)
		rc = push(j, fd_links[i][0], fd_links[i][1], MT_LINK);
	if (!rc)
		rc = push(j, j->tmp_dir, NULL, MT_DIR);
	/* The host's /proc, read-only, where each child mounts its fresh one
	 * on top before anything of the tool runs: the kernel lets a user
	 * namespace mount a proc only where one is already there, whole, in
	 * its mount namespace. Without a pid namespace of its own the child
	 * gets no /proc at all. */
	if (!rc)
		rc = push(j, "/proc", NULL, j->private_proc ? MT_READ : MT_DIR);
	if (rc)
		return sbx_err(err, -rc, "profile %s: mount tree: %s", spec->name,
		               rc == -E2BIG ? "more than 128 granted paths" : "out of memory");
	for (int i = 0; i < j->n_mt; i++)
		if (!strcmp(j->mt[i].path, "/"))
			return sbx_err(err, ENOTSUP,
			               "profile %s grants / itself, which a mount "
			               "tree (the filesystem wall without Landlock) cannot hold; "
			               "fix: grant the directories it needs, or add landlock to "
			               "lsm= on the kernel command line",
			               spec->name);
	settle(j);
	return 0;
}

void mounttree_release(struct sbx_jail *j)
{
	for (int i = 0; i < j->n_mt; i++) {
		free(j->mt[i].path);
		free(j->mt[i].target);
	}
	free(j->mt);
	j->mt = NULL;
	j->n_mt = 0;
}

/* ---- child: the tree (async-signal-safe) ------------------------------ */

static int open_beneath(int dfd, const char *name, int flags)
{
	struct open_how how = { .flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		                .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
		                        RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, dfd, name, &how, sizeof how);
	return fd < 0 ? -errno : fd;
}

/* The entry's place in the tree, beneath root (its path relative): every
 * directory on the way made where missing, never through a link (a tool
 * may have planted one in a writable bind since the plan), then the last
 * component as the entry needs it. Returns an O_PATH fd of it (for a bind),
 * 0 (a directory or link made), or -errno. */
static int place(int root, const struct mt_entry *e)
{
	char name[NAME_MAX + 1];
	const char *s = e->path + 1;
	int dfd = root, rc = 0;
	while (!rc) {
		const char *slash = strchr(s, '/');
		size_t n = slash ? (size_t)(slash - s) : strlen(s);
		if (n > NAME_MAX) {
			rc = -ENAMETOOLONG;
			break;
		}
		memcpy(name, s, n);
		name[n] = '\0';
		bool last = !slash;
		int fd;
		if (last && (e->flags & MT_LINK)) {
			rc = symlinkat(e->target, dfd, name) < 0 && errno != EEXIST ? -errno : 0;
			break;
		}
		if (last && (e->flags & MT_FILE)) {
			fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			            0);
			if (fd >= 0)
				close(fd);
			else if (errno != EEXIST)
				rc = -errno;
			if (!rc)
				rc = open_beneath(dfd, name, O_PATH);
			break;
		}
		if (mkdirat(dfd, name, 0111) < 0 && errno != EEXIST) {
			rc = -errno;
			break;
		}
		fd = open_beneath(dfd, name, O_PATH | O_DIRECTORY);
		if (fd < 0) {
			rc = fd;
			break;
		}
		if (dfd != root)
			close(dfd);
		dfd = fd;
		if (last) {
			if (e->flags & MT_DIR) {
				close(fd);
				return 0;
			}
			return fd;
		}
		s = slash + 1;
	}
	if (dfd != root)
		close(dfd);
	return rc;
}

/* A clone of the path as the view has it (the writable paths writable,
 * everything else read-only already), with the entry's restrictions
 * added; -ENOENT when it is gone. */
static int clone_entry(const struct mt_entry *e)
{
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		                .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int at = (int)syscall(SYS_openat2, AT_FDCWD, e->path, &how, sizeof how);
	if (at < 0)
		return -errno;
	int tree = (int)syscall(SYS_open_tree, at, "",
	                        AT_EMPTY_PATH | AT_RECURSIVE | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	int rc = tree < 0 ? -errno : 0;
	close(at);
	if (rc)
		return rc;
	struct mount_attr a = {
		.attr_set = MOUNT_ATTR_NOSUID |
		        (e->flags & MT_DEV ? MOUNT_ATTR_NOEXEC : MOUNT_ATTR_NODEV) |
		        (e->flags & MT_EXEC ? 0 : MOUNT_ATTR_NOEXEC) |
		        (e->flags & MT_WRITE && !(e->flags & MT_DEV) ? 0 : MOUNT_ATTR_RDONLY)
	};
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof a) < 0) {
		rc = -errno;
		close(tree);
		return rc;
	}
	return tree;
}

static int build(const struct sbx_jail *j, int *trees)
{
	/* Every source is cloned before the tree's tmpfs covers j->tmp_dir,
	 * which may hold one. */
	for (int i = 0; i < j->n_mt; i++) {
		if (j->mt[i].flags & (MT_DIR | MT_LINK))
			continue;
		int t = clone_entry(&j->mt[i]);
		if (t == -ENOENT)
			continue; /* gone since the plan: grants nothing */
		if (t < 0)
			return t;
		trees[i] = t;
	}
	if (mount("tmpfs", j->tmp_dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, tree_opts) < 0)
		return -errno;
	int root = open(j->tmp_dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root < 0)
		return -errno;
	int rc = 0;
	for (int i = 0; i < j->n_mt && !rc; i++) {
		const struct mt_entry *e = &j->mt[i];
		if (!(e->flags & (MT_DIR | MT_LINK)) && trees[i] < 0)
			continue;
		int at = place(root, e);
		if (at < 0)
			rc = at;
		else if (at > 0) {
			if (syscall(SYS_move_mount, trees[i], "", at, "",
			            MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
				rc = -errno;
			close(at);
		}
	}
	/* Nothing more is made in the tree itself: the private /tmp and
	 * /proc are mounts of their own on top. */
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	if (!rc && syscall(SYS_mount_setattr, root, "", AT_EMPTY_PATH, &ro, sizeof ro) < 0)
		rc = -errno;
	/* pivot_root(".", "."): the old root ends up on top of the new one,
	 * and is then detached with every mount beneath it. */
	if (!rc &&
	    (fchdir(root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
	     umount2(".", MNT_DETACH) < 0 || chdir("/") < 0))
		rc = -errno;
	close(root);
	return rc;
}

int mounttree_enter(const struct sbx_jail *j)
{
	int trees[MT_MAX];
	for (int i = 0; i < MT_MAX; i++)
		trees[i] = -1;
	/* The modes made here are the tree's, whatever the caller's umask. */
	mode_t mask = umask(0);
	int rc = build(j, trees);
	umask(mask);
	for (int i = 0; i < j->n_mt; i++)
		if (trees[i] >= 0)
			close(trees[i]);
	return rc;
}
