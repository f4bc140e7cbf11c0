/* view.c — the views: how a child sees the dirs that hold hidden paths,
 * made by a jail's worker for its children, or by a child for itself.
 *
 * Landlock only adds access: a dir holding a hidden path (/etc, for
 * /etc/shadow) cannot be granted whole, and landlock.c grants it entry by
 * entry instead, skipping the hidden ones. Each such dir (j->ll_roots) is
 * shown, where the child's mount namespace allows, as a mount of its own,
 * granted whole: one rule where each child would make one per entry (~170
 * here), and a secret never where a rule could reach it. Planned in the
 * parent (what goes where, as lists and paths: ll_view), made where the
 * view is, by system calls alone (a child that shares its parent's memory
 * until its exec makes its own).
 *
 * A replica is a tmpfs holding, for each entry, a bind of it (a clone,
 * with the mounts beneath it as they are); for a hidden one, an empty
 * mode-0000 file or directory; for a directory that holds hidden paths
 * (/etc/ssh), the same made within; a symbolic link, copied. What the
 * host renames in the real directory then never reaches the view: a name
 * it replaces keeps the inode that was bound, a secret has no bind, and an
 * entry made since is not there at all (the supervisor sees the directory
 * change and plans again, as for the masks). But each entry is a mount,
 * copied with every child's mount namespace and torn down with it: the
 * overlay below is one, and the replica serves where it cannot be made.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "pathrel.h"

/* ---- the replica: a root as a tmpfs of binds ------------------------ */

enum { REPLICA_MAX = 4096 }; /* entries per jail: mounts in every child */

/* What an entry of a replicated directory becomes: a bind (or a copied
 * link), a stand-in, or a directory of the replica's own (it holds hidden
 * paths), filled by the entries after it one level deeper. REP_LEAF: a
 * name that could hold hidden paths, no directory when listed: bound as
 * it is unless it has become one since. */
enum rep_what { REP_COPY, REP_HIDE, REP_DIR, REP_LEAF };

struct rep_entry {
	char *name;
	unsigned char what, depth;
	mode_t mode; /* REP_DIR */
};

struct rep_list {
	struct rep_entry *e;
	int n, cap;
};

static void rep_free(struct rep_list *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->e[i].name);
	free(l->e);
	*l = (struct rep_list){ 0 };
}

static int rep_push(struct rep_list *l, const char *name, enum rep_what what, int depth,
                    mode_t mode)
{
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;
		struct rep_entry *e = realloc(l->e, (size_t)cap * sizeof *e);
		if (!e)
			return -ENOMEM;
		l->e = e;
		l->cap = cap;
	}
	struct rep_entry *e = &l->e[l->n];
	if (!(e->name = strdup(name)))
		return -ENOMEM;
	e->what = (unsigned char)what;
	e->depth = (unsigned char)depth;
	e->mode = mode;
	l->n++;
	return 0;
}

/* Lists src, the directory at path (plen bytes in a PATH_MAX buffer), into
 * l, depth first: what each entry becomes in its replica. *n counts the
 * entries. */
static int rep_plan(struct ll_ctx *c, int src, char *path, size_t plen, struct rep_list *l, int *n,
                    int depth)
{
	if (depth > 32)
		return -ELOOP;
	int dfd = openat(src, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		int e = errno;
		if (dfd >= 0)
			close(dfd);
		return -e;
	}
	int rc = 0;
	struct dirent *e;
	errno = 0;
	while (!rc && (e = readdir(d))) {
		const char *name = e->d_name;
		size_t nlen = strlen(name);
		struct stat st;
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (plen + 1 + nlen >= PATH_MAX)
			rc = -ENAMETOOLONG;
		else if (++*n > REPLICA_MAX)
			rc = -E2BIG;
		if (rc)
			break;
		path[plen] = '/';
		memcpy(path + plen + 1, name, nlen + 1);
		int rel = hidden_relation(c, path);
		mode_t type = rel && fstatat(src, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ?
		        st.st_mode & S_IFMT :
		        0;
		if (rel == 1 && type == S_IFLNK) {
			rc = -ELOOP; /* a hidden link: see stand_in */
		} else if (rel == 1) {
			rc = rep_push(l, name, REP_HIDE, depth, 0);
		} else if (rel == 2 && type == S_IFDIR) {
			int s = openat(src, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			rc = s < 0 ? -errno : rep_push(l, name, REP_DIR, depth, st.st_mode);
			if (!rc)
				rc = rep_plan(c, s, path, plen + 1 + nlen, l, n, depth + 1);
			if (s >= 0)
				close(s);
		} else {
			/* gone meanwhile: rep_make leaves it out */
			rc = rep_push(l, name, rel == 2 ? REP_LEAF : REP_COPY, depth, 0);
		}
		path[plen] = '\0';
		errno = 0;
	}
	if (!rc && errno) /* readdir failed: the replica would lack entries */
		rc = -errno;
	closedir(d);
	return rc;
}

/* An empty mode-0000 file, or directory, named name in dst, standing in
 * for an entry of type mode. Not for a link: the name would be hidden,
 * but not what it leads to, which the mask over the name covers (mask.c)
 * where no view of ours does, and under an overlay no mask is seen. */
static int stand_in(int dst, const char *name, mode_t mode)
{
	bool dir = S_ISDIR(mode);
	if (S_ISLNK(mode))
		return -ELOOP;
	int fd = dir ? mkdirat(dst, name, 0) :
	               openat(dst, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	return fd < 0 || (!dir && close(fd) < 0) ? -errno : 0;
}

/* One entry of src as it is: bound, copied, or left out if it vanished. */
static int replicate_entry(int src, int dst, const char *name, const struct stat *st)
{
	if (S_ISLNK(st->st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(src, name, target, sizeof target - 1);
		if (n < 0)
			return errno == ENOENT ? 0 : -errno;
		target[n] = '\0';
		return symlinkat(target, dst, name) < 0 ? -errno : 0;
	}
	bool dir = S_ISDIR(st->st_mode);
	int fd = dir ? mkdirat(dst, name, 0755) :
	               openat(dst, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || (!dir && close(fd) < 0))
		return -errno;
	int tree = (int)syscall(SYS_open_tree, src, name,
	                        OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE |
	                                AT_SYMLINK_NOFOLLOW);
	if (tree < 0) {
		int e = errno;
		unlinkat(dst, name, dir ? AT_REMOVEDIR : 0);
		return e == ENOENT ? 0 : -e;
	}
	int rc = (int)syscall(SYS_move_mount, tree, "", dst, name, MOVE_MOUNT_F_EMPTY_PATH);
	int e = errno;
	close(tree);
	return rc < 0 ? -e : 0;
}

/* Makes in dst, a directory of a replica, what l planned from src, each
 * entry as it is now (a type changed since is seen; one gone is left
 * out). System calls only. */
static int rep_make(const struct rep_list *l, int src, int dst)
{
	enum { DEPTH = 34 };
	int sfd[DEPTH] = { src }, dfd[DEPTH] = { dst }, top = 0, rc = 0;
	int flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	for (int i = 0; i < l->n && !rc; i++) {
		const struct rep_entry *e = &l->e[i];
		for (; top > e->depth; top--) {
			close(sfd[top]);
			close(dfd[top]);
		}
		struct stat st;
		if (e->depth != top || top + 1 >= DEPTH) {
			rc = -EINVAL; /* not depth first: not a list rep_plan made */
		} else if (e->what == REP_DIR) {
			if (mkdirat(dfd[top], e->name, 0700) < 0 ||
			    fchmodat(dfd[top], e->name, e->mode & 0777, 0) < 0)
				rc = -errno;
			int s = rc ? -1 : openat(sfd[top], e->name, flags),
			    t = s < 0 ? -1 : openat(dfd[top], e->name, flags);
			if (!rc && (s < 0 || t < 0)) {
				rc = -errno;
				if (s >= 0)
					close(s);
			} else if (!rc) {
				sfd[++top] = s;
				dfd[top] = t;
			}
		} else if (fstatat(sfd[top], e->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = errno == ENOENT ? 0 : -errno; /* gone since the listing */
		} else if (e->what == REP_LEAF && S_ISDIR(st.st_mode)) {
			rc = -VIEW_MOVED; /* its hidden paths were not planned for */
		} else {
			rc = e->what == REP_HIDE ?
			        stand_in(dfd[top], e->name, st.st_mode) :
			        replicate_entry(sfd[top], dfd[top], e->name, &st);
		}
	}
	for (; top > 0; top--) {
		close(sfd[top]);
		close(dfd[top]);
	}
	return rc;
}

/* Four octal digits of mode, or the decimal digits of v: for mount
 * options, without stdio (the child's side). */
static char *put_mode(char *s, mode_t mode)
{
	for (int shift = 9; shift >= 0; shift -= 3)
		*s++ = (char)('0' + ((mode >> shift) & 7));
	*s = '\0';
	return s;
}

static char *put_dec(char *s, unsigned v)
{
	return s + put_uint(s, v);
}

static int replicate(struct ll_ctx *c, const char *root, int *n, int *stacked)
{
	char path[PATH_MAX];
	size_t plen = strlen(root);
	struct stat st;
	if (plen >= sizeof path)
		return -ENAMETOOLONG;
	int src = open(root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (src < 0 || fstat(src, &st) < 0) {
		int e = errno;
		if (src >= 0)
			close(src);
		return e == ENOENT ? 0 : -e; /* none: no rule names it either */
	}
	struct rep_list l = { 0 };
	memcpy(path, root, plen + 1);
	int rc = rep_plan(c, src, path, plen, &l, n, 0);
	char opts[64];
	snprintf(opts, sizeof opts, "mode=%04o,size=16m,nr_inodes=%d",
	         (unsigned)(st.st_mode & 0777), 2 * REPLICA_MAX);
	int dst = -1;
	if (!rc && mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
		rc = -errno;
	*stacked += !rc;
	if (!rc && (dst = open(root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		rc = -errno;
	if (!rc)
		rc = rep_make(&l, src, dst);
	if (!rc) {
		struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY };
		if (syscall(SYS_mount_setattr, dst, "", AT_EMPTY_PATH, &a, sizeof a) < 0)
			rc = -errno;
	}
	rep_free(&l);
	close(src);
	if (dst >= 0)
		close(dst);
	return rc;
}

/* ---- the overlay view: a root as one mount -------------------------- */

/* Where the hidden paths beneath a root are exact paths, the view mounts
 * a read-only overlay over the root, whose lower layers are a small tmpfs
 * of stand-ins above the real directory. A hidden path that exists has an
 * empty mode-0000 file there, or an empty mode-0000 directory with an
 * empty read-only tmpfs mounted over it in the overlay (directories of two
 * layers merge); one that does not has a whiteout, so it stays absent.
 * Overlay looks each name up in the stand-ins first, whatever the host
 * does to the real directory since: a file renamed over /etc/shadow, or a
 * /etc/sudoers made while the view lives, is not what a child reads.
 * Other names show the host's directory as it is now. A directory whose
 * hidden paths are patterns (/etc/ssh, for ssh_host_*_key) gets a replica
 * of its own (above), in which a key made later is not, mounted over a
 * stand-in directory of its own (ovl_stand_in says why). A mount beneath
 * the root (a container's /etc/hosts) is not seen through an overlay:
 * each is bound again at its place, unless it is or holds a hidden path
 * (then it stays under its stand-in, or is replicated). With no upper
 * layer nothing is ever copied up. Where anything is not as planned (a
 * pattern among the root's own entries, a rule of the profile beneath the
 * root) the rules are made instead (a worker tries a replica first); where
 * the kernel refuses a step (no overlay in a user namespace before Linux
 * 5.11, nor over mounts that namespace may not uncover) the worker makes
 * the replica, and `toolcage exec` starts its child again with the rules
 * (spawn.c). The plan names paths only: a child opens each in its own
 * mount namespace (a mount of another cannot be cloned there). */

enum { OVL_ITEMS_MAX = 64, OVL_MOUNTS_MAX = 256 };

enum ovl_kind { OVL_HIDE, OVL_FROZEN, OVL_BIND };

struct ovl_item {
	enum ovl_kind kind;
	char *path;          /* absolute; beneath the root */
	bool found;          /* OVL_FROZEN: the directory was there, listed in rep */
	struct rep_list rep; /* OVL_FROZEN: its replica */
};

struct ovl_plan {
	const char *root; /* the jail's ll_roots[i] */
	size_t rlen;
	char tmpfs_opts[64]; /* of the stand-ins' tmpfs */
	struct ovl_item item[OVL_ITEMS_MAX];
	int n;
};

/* An overlay per dir of ll_roots, as planned for the child. */
struct ll_view {
	int n;
	struct ovl_plan plan[];
};

/* p beneath a (a strict descendant), or a itself when or_same. */
static bool path_beneath(const char *p, const char *a, bool or_same)
{
	size_t skip;
	return path_below(a, p, strlen(p), &skip) && (or_same || p[skip]);
}

static int ovl_add(struct ovl_plan *p, enum ovl_kind kind, const char *path, size_t len)
{
	for (int i = 0; i < p->n; i++)
		if (p->item[i].kind == kind && strlen(p->item[i].path) == len &&
		    !strncmp(p->item[i].path, path, len))
			return 0;
	if (p->n == OVL_ITEMS_MAX)
		return -E2BIG;
	char *s = strndup(path, len);
	if (!s)
		return -ENOMEM;
	p->item[p->n++] = (struct ovl_item){ .kind = kind, .path = s };
	return 0;
}

static bool ovl_beneath_kind(const struct ovl_plan *p, const char *path, enum ovl_kind kind,
                             bool or_same)
{
	for (int i = 0; i < p->n; i++)
		if (p->item[i].kind == kind && path_beneath(path, p->item[i].path, or_same))
			return true;
	return false;
}

/* Each hidden glob as a stand-in (an exact path beneath the root) or a
 * directory to replicate (the one above its first pattern); -EOPNOTSUPP
 * when a pattern could match among the root's own entries or above. */
static int ovl_plan_hidden(const struct ll_ctx *c, struct ovl_plan *p)
{
	for (size_t i = 0; c->hidden && c->hidden[i]; i++) {
		const char *h = c->hidden[i];
		size_t hl = strlen(h);
		if (!hl || h[hl - 1] == '/' || strstr(h, "//") || strstr(h, "/./") ||
		    strstr(h, "/../") || (hl >= 2 && !strcmp(h + hl - 2, "/.")) ||
		    (hl >= 3 && !strcmp(h + hl - 3, "/..")))
			return -EOPNOTSUPP; /* not one path per name: not planned for */
		if (!path_beneath(h, p->root, false)) {
			/* Beside the root, or a pattern that might reach into it. */
			const char *pat = strpbrk(h, hidden_glob_meta);
			if (!pat)
				continue;
			const char *slash = pat;
			while (slash > h && slash[-1] != '/')
				slash--;
			size_t lit = (size_t)(slash - h); /* "/dir/" above the pattern */
			if (lit <= p->rlen + 1 && !strncmp(h, p->root, lit ? lit - 1 : 0))
				return -EOPNOTSUPP;
			continue;
		}
		const char *rel = h + p->rlen + 1, *pat = strpbrk(rel, hidden_glob_meta);
		if (!pat) {
			int rc = ovl_add(p, OVL_HIDE, h, hl);
			if (rc)
				return rc;
			continue;
		}
		const char *slash = pat;
		while (slash > rel && slash[-1] != '/')
			slash--;
		if (slash == rel)
			return -EOPNOTSUPP; /* /etc/shadow*: among the root's own entries */
		int rc = ovl_add(p, OVL_FROZEN, h, (size_t)(slash - 1 - h));
		if (rc)
			return rc;
	}
	return 0;
}

/* A rule the profile names beneath the root (a read or exec path, the
 * workspace) names a real inode, which the overlay does not show. */
static bool ovl_rules_beneath(const struct ll_ctx *c, const struct ovl_plan *p)
{
	char real[PATH_MAX];
	for (int i = 0; i < c->j->ll_expand_from; i++)
		if (!fd_path(c->j->rule_fds[i], real) || path_beneath(real, p->root, false))
			return true;
	return false;
}

/* The mounts beneath the root, the topmost of each stack of them: bound
 * again (a clone of each, with what is mounted beneath it), left under
 * their stand-in when hidden, replicated when they hold hidden paths.
 * How many mounts there are beneath the root, or -errno. */
static int ovl_plan_mounts(const struct ll_ctx *c, struct ovl_plan *p)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	char *mp[OVL_MOUNTS_MAX], *line = NULL;
	size_t cap = 0;
	int n = 0, rc = 0;
	while (!rc && getline(&line, &cap, f) > 0) {
		char path[PATH_MAX];
		if (sscanf(line, "%*s %*s %*s %*s %4095s", path) != 1)
			continue;
		mountinfo_unescape(path);
		if (!path_beneath(path, p->root, false))
			continue;
		if (n == OVL_MOUNTS_MAX || !(mp[n] = strdup(path)))
			rc = n == OVL_MOUNTS_MAX ? -E2BIG : -ENOMEM;
		else
			n++;
	}
	free(line);
	fclose(f);
	for (int pass = 0; pass < 2 && !rc; pass++)
		for (int i = 0; i < n && !rc; i++) {
			bool top = true;
			for (int k = 0; k < n && top; k++)
				top = !path_beneath(mp[i], mp[k], false);
			int rel = top ? hidden_relation(c, mp[i]) : 1;
			if (rel == 1 || ovl_beneath_kind(p, mp[i], OVL_FROZEN, true))
				continue;
			if (pass == 0 && rel == 2)
				rc = ovl_add(p, OVL_FROZEN, mp[i], strlen(mp[i]));
			else if (pass == 1)
				rc = ovl_add(p, OVL_BIND, mp[i], strlen(mp[i]));
		}
	for (int i = 0; i < n; i++)
		free(mp[i]);
	return rc ? rc : n;
}

/* One way for each path: a hidden path wins over a directory to
 * replicate at or above it (everything beneath it is hidden), and what is
 * beneath a hidden path or a replica is theirs (the replica makes its own
 * stand-ins). */
static void ovl_prune(struct ovl_plan *p)
{
	bool drop[OVL_ITEMS_MAX] = { false };
	for (int i = 0; i < p->n; i++) {
		const struct ovl_item *it = &p->item[i];
		for (int k = 0; k < p->n && !drop[i]; k++) {
			const struct ovl_item *o = &p->item[k];
			if (k == i)
				continue;
			if (o->kind == OVL_HIDE)
				drop[i] = path_beneath(it->path, o->path, it->kind == OVL_FROZEN);
			else if (o->kind == OVL_FROZEN &&
			         !ovl_beneath_kind(p, o->path, OVL_HIDE, true))
				drop[i] = path_beneath(it->path, o->path, false);
		}
	}
	int w = 0;
	for (int i = 0; i < p->n; i++) {
		if (drop[i])
			free(p->item[i].path);
		else
			p->item[w++] = p->item[i];
	}
	p->n = w;
}

/* path (beneath the root) opened from dir, the root's counterpart: no link
 * followed, nothing outside it. */
static int ovl_open(int dir, const struct ovl_plan *p, const char *path, uint64_t resolve)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
		                .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | resolve };
	long fd = syscall(SYS_openat2, dir, path + p->rlen + 1, &how, sizeof how);
	return fd < 0 ? -errno : (int)fd;
}

/* In the stand-ins' tmpfs (l), what stands for item it: its directories
 * as the host's (mode; real is the real root), then an empty mode-0000
 * file or directory where the host has one, a whiteout where it has none
 * (there, or above). *cover: a directory was made, to be covered in the
 * overlay. A directory to replicate is an empty mode-0000 directory too,
 * under its replica, when it was found (found: now, and when planned);
 * when it was not, a whiteout, whatever is there by now: no replica goes
 * over it.
 * Every directory a mount goes on is so a stand-in's (or beneath one). A
 * directory of the host's alone is, to overlay, the host's inode: looked
 * up under another name (the host renamed it, and made another where it
 * was), it moves there with what is mounted on it, and the name it
 * leaves shows the host's new directory, secrets and all. */
static int ovl_stand_in(const struct ovl_plan *p, int real_root, int l, const struct ovl_item *it,
                        bool found, bool *cover)
{
	char buf[PATH_MAX], *save = NULL;
	bool frozen = it->kind == OVL_FROZEN;
	size_t len = strlen(it->path + p->rlen + 1);
	if (len >= sizeof buf)
		return -ENAMETOOLONG;
	memcpy(buf, it->path + p->rlen + 1, len + 1);
	int real = real_root, dst = l, rc = 0; /* the roots: not closed here */
	*cover = false;
	for (char *comp = strtok_r(buf, "/", &save); comp && !rc;) {
		char *next = strtok_r(NULL, "/", &save);
		struct stat st;
		if (!next && frozen) {
			*cover = found;
			int r = found ? mkdirat(dst, comp, 0) : mknodat(dst, comp, S_IFCHR, 0);
			rc = r < 0 ? -errno : 0;
			break;
		}
		if (fstatat(real, comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			/* Absent: a whiteout keeps it so, whatever comes later. */
			rc = errno != ENOENT                                          ? -errno :
			        mknodat(dst, comp, S_IFCHR, 0) < 0 && errno != EEXIST ? -errno :
			                                                                0;
			break;
		}
		bool dir = S_ISDIR(st.st_mode);
		if (!next) {
			rc = stand_in(dst, comp, st.st_mode);
			*cover = dir;
			break;
		}
		if (!dir) /* a link or a file on the way: not what was planned for */
			rc = -ENOTDIR;
		if (rc)
			break;
		if ((mkdirat(dst, comp, 0700) < 0 && errno != EEXIST) ||
		    fchmodat(dst, comp, st.st_mode & 07777, 0) < 0)
			rc = -errno;
		int flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
		int r2 = rc ? -1 : openat(real, comp, flags),
		    d2 = rc ? -1 : openat(dst, comp, flags);
		if (!rc && (r2 < 0 || d2 < 0))
			rc = -errno;
		if (real != real_root)
			close(real);
		if (dst != l)
			close(dst);
		real = r2;
		dst = d2;
		comp = next;
	}
	if (real >= 0 && real != real_root)
		close(real);
	if (dst >= 0 && dst != l)
		close(dst);
	return rc;
}

/* A tmpfs attached at target (an O_PATH fd), its root with mode: the new
 * mount (an fd of its root), or -errno. */
static int tmpfs_at(int target, mode_t mode, unsigned inodes, unsigned attr)
{
	int fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	char m[8], ni[16];
	put_mode(m, mode);
	put_dec(ni, inodes);
	int mfd = -1;
	if (!syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", m, 0) &&
	    !syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "size", "16m", 0) &&
	    !syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "nr_inodes", ni, 0) &&
	    !syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		mfd = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
		                   attr | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	int e = errno;
	close(fs);
	if (mfd >= 0 &&
	    syscall(SYS_move_mount, mfd, "", target, "",
	            MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) {
		e = errno;
		close(mfd);
		mfd = -1;
	}
	return mfd < 0 ? -e : mfd;
}

/* What goes over the overlay at item it (fd: what ovl_apply opened for
 * it): a replica, an empty tmpfs over a directory's stand-in, or a mount
 * bound again. */
static int ovl_over(const struct ovl_plan *p, int top, const struct ovl_item *it, int fd)
{
	if (it->kind == OVL_FROZEN && fd < 0)
		return 0; /* none on the host: its whiteout stands */
	int t = ovl_open(top, p, it->path, RESOLVE_NO_XDEV), rc = t < 0 ? t : 0;
	if (!rc && it->kind == OVL_BIND &&
	    syscall(SYS_move_mount, fd, "", t, "",
	            MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		rc = -errno;
	if (!rc && it->kind == OVL_HIDE) {
		int m = tmpfs_at(t, 0, 2, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOEXEC);
		rc = m < 0 ? m : close(m);
	}
	if (!rc && it->kind == OVL_FROZEN) {
		struct stat st;
		int m = fstat(fd, &st) < 0 ? -errno : tmpfs_at(t, st.st_mode, 2 * REPLICA_MAX, 0);
		rc = m < 0 ? m : rep_make(&it->rep, fd, m);
		struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY };
		if (!rc && syscall(SYS_mount_setattr, m, "", AT_EMPTY_PATH, &a, sizeof a) < 0)
			rc = -errno;
		if (m >= 0)
			close(m);
	}
	if (t >= 0)
		close(t);
	return rc;
}

static void ovl_plan_free(struct ovl_plan *p)
{
	for (int i = 0; i < p->n; i++) {
		free(p->item[i].path);
		rep_free(&p->item[i].rep);
	}
	p->n = 0;
}

/* The overlay over root, planned: what stands in for what, the mounts to
 * bind again, the replicas' lists. -EOPNOTSUPP where it is not for an
 * overlay; *n counts the replicas' entries. */
static int ovl_plan_make(struct ll_ctx *c, const char *root, struct ovl_plan *p, int *n)
{
	*p = (struct ovl_plan){ .root = root, .rlen = strlen(root) };
	struct stat st = { 0 };
	if (p->rlen < 2 || strpbrk(root, hidden_glob_meta) || p->rlen >= PATH_MAX / 2)
		return -EOPNOTSUPP;
	int src = open(root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc = 0;
	if (src < 0 || fstat(src, &st) < 0)
		rc = -errno;
	if (!rc)
		rc = ovl_plan_hidden(c, p);
	if (!rc && ovl_rules_beneath(c, p))
		rc = -EOPNOTSUPP;
	int mounts = 0;
	if (!rc && (mounts = ovl_plan_mounts(c, p)) < 0)
		rc = mounts;
	if (!rc)
		ovl_prune(p);
	/* In a user namespace the child makes, its copies of the host's
	 * mounts are locked to it: no overlay may go over a directory with
	 * one beneath it (EINVAL), be it bound again, hidden or replicated. */
	if (!rc && mounts && c->j->userns)
		rc = -EOPNOTSUPP;
	for (int i = 0; i < p->n && !rc; i++) {
		struct ovl_item *it = &p->item[i];
		int fd = it->kind == OVL_BIND ? -ENOENT : ovl_open(src, p, it->path, 0);
		if (it->kind == OVL_HIDE) {
			/* A hidden link (see stand_in), or a link or a file on
			 * the way to a hidden path, which ovl_stand_in refuses:
			 * the child would only be started again with the rules. */
			if (fd == -ELOOP || fd == -ENOTDIR)
				rc = -EOPNOTSUPP;
			if (fd >= 0)
				close(fd);
		}
		if (it->kind != OVL_FROZEN || rc)
			continue;
		char path[PATH_MAX];
		size_t plen = strlen(it->path);
		it->found = fd >= 0;
		if (fd < 0) {
			rc = fd == -ENOENT ? 0 : fd;
		} else {
			memcpy(path, it->path, plen + 1); /* < PATH_MAX: beneath root */
			rc = rep_plan(c, fd, path, plen, &it->rep, n, 0);
			close(fd);
		}
	}
	snprintf(p->tmpfs_opts, sizeof p->tmpfs_opts, "mode=%04o,size=1m,nr_inodes=%d",
	         (unsigned)(st.st_mode & 07777), 4 * OVL_ITEMS_MAX);
	if (src >= 0)
		close(src);
	return rc;
}

/* The overlay over its root, as planned; *stacked: how many mounts it
 * left at the root (the stand-ins' tmpfs, the overlay), to take off
 * again if it fails. System calls only, on the plan as it is (a child
 * that shares its parent's memory runs it). */
static int ovl_apply(const struct ovl_plan *p, int *stacked)
{
	int rc = 0, l = -1, top = -1, fd[OVL_ITEMS_MAX];
	bool cover[OVL_ITEMS_MAX] = { false };
	for (int i = 0; i < p->n; i++)
		fd[i] = -1;
	int src = open(p->root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (src < 0)
		rc = -errno;
	/* The real directories to replicate, and clones of the mounts to
	 * bind again: taken before the root is covered. */
	for (int i = 0; i < p->n && !rc; i++) {
		const struct ovl_item *it = &p->item[i];
		if (it->kind == OVL_HIDE || (it->kind == OVL_FROZEN && !it->found))
			continue;
		int f = ovl_open(src, p, it->path, 0);
		if (f == -ENOENT && it->kind == OVL_FROZEN)
			continue;
		if (f >= 0 && it->kind == OVL_BIND) {
			fd[i] = (int)syscall(SYS_open_tree, f, "",
			                     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE |
			                             AT_EMPTY_PATH);
			rc = fd[i] < 0 ? -errno : 0;
			close(f);
		} else {
			fd[i] = f;
			rc = f < 0 ? f : 0;
		}
	}
	if (!rc && mount("tmpfs", p->root, "tmpfs", MS_NOSUID | MS_NODEV, p->tmpfs_opts) < 0)
		rc = -errno;
	if (!rc)
		(*stacked)++;
	if (!rc && (l = open(p->root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		rc = -errno;
	for (int i = 0; i < p->n && !rc; i++)
		if (p->item[i].kind != OVL_BIND)
			rc = ovl_stand_in(p, src, l, &p->item[i], fd[i] >= 0, &cover[i]);
	char opts[64], *o = opts;
	memcpy(o, "lowerdir=/proc/self/fd/", 23);
	o = put_dec(o + 23, (unsigned)l);
	memcpy(o, ":/proc/self/fd/", 15);
	put_dec(o + 15, (unsigned)src);
	if (!rc && mount("overlay", p->root, "overlay", MS_RDONLY | MS_NOSUID | MS_NODEV, opts) < 0)
		rc = -errno;
	if (!rc)
		(*stacked)++;
	if (!rc && (top = open(p->root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		rc = -errno;
	for (int i = 0; i < p->n && !rc; i++)
		if (p->item[i].kind != OVL_HIDE || cover[i])
			rc = ovl_over(p, top, &p->item[i], fd[i]);
	for (int i = 0; i < p->n; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	if (l >= 0)
		close(l);
	if (top >= 0)
		close(top);
	if (src >= 0)
		close(src);
	return rc;
}

/* ---- the views: an overlay per root, or a replica ------------------- */

void view_free(struct ll_view *v)
{
	for (int i = 0; v && i < v->n; i++)
		ovl_plan_free(&v->plan[i]);
	free(v);
}

/* An overlay planned for each root, or NULL (none is for an overlay, or
 * no memory: the rules are made instead). */
struct ll_view *view_plan(struct ll_ctx *c)
{
	struct sbx_jail *j = c->j;
	struct ll_view *v = calloc(1, sizeof *v + (size_t)j->n_ll_roots * sizeof v->plan[0]);
	int n = 0, rc = v ? 0 : -ENOMEM;
	for (int i = 0; i < j->n_ll_roots && !rc; i++) {
		rc = ovl_plan_make(c, j->ll_roots[i], &v->plan[i], &n);
		v->n = i + 1;
	}
	if (rc) {
		view_free(v);
		return NULL;
	}
	return v;
}

int landlock_view_apply(const struct sbx_jail *j)
{
	int rc = 0;
	for (int i = 0; j->ll_view && i < j->ll_view->n && !rc; i++) {
		int stacked = 0;
		rc = ovl_apply(&j->ll_view->plan[i], &stacked);
	}
	return rc;
}

int view_replicate(struct ll_ctx *c)
{
	struct sbx_jail *j = c->j;
	int n = 0, rc = 0, i = 0;
	/* Planned here: what the supervisor planned names its namespace. */
	struct ll_view *v = view_plan(c);
	int *stacked = calloc((size_t)j->n_ll_roots, sizeof *stacked);
	for (rc = stacked ? 0 : -ENOMEM; i < j->n_ll_roots && !rc; i++) {
		rc = v ? ovl_apply(&v->plan[i], &stacked[i]) : -EOPNOTSUPP;
		for (; rc && stacked[i] > 0; stacked[i]--)
			umount2(j->ll_roots[i], MNT_DETACH);
		if (rc)
			rc = replicate(c, j->ll_roots[i], &n, &stacked[i]);
	}
	/* None made (a kernel or container that refuses a step, a dir too
	 * big): the children get the rules made entry by entry, as a child
	 * that makes its own view may. */
	while (rc && stacked && i-- > 0)
		for (; stacked[i] > 0; stacked[i]--)
			umount2(j->ll_roots[i], MNT_DETACH);
	free(stacked);
	view_free(v);
	return rc;
}
