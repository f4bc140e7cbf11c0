/* restore.c — protected paths where no mount namespace can hold them
 * read-only (every namespace refused: Docker's default seccomp profile,
 * user namespaces forbidden). Landlock cannot carve a read-only hole in a
 * writable tree, so they are held another way: a copy of each, taken
 * before the call, compared once every process of the call is gone, and
 * put back where the call changed it (docs/security.md says what this
 * leaves open: what the call wrote is there while it runs).
 *
 *  - The copy: each protected path that exists, whole (a directory with
 *    everything beneath: contents, links' targets, modes, owners, times),
 *    within RESTORE_BYTES and RESTORE_ENTRIES; one beyond them, or holding
 *    what cannot be copied (a socket, a device), refuses the call: nothing
 *    is held weaker than it says. Each directory on the way (.git) is held
 *    open, so that one renamed away and replaced (by a symbolic link, or
 *    another directory) is found again and put back.
 *  - One call at a time per writable root (an exclusive lock on it): a
 *    copy taken while another call can write would hold that call's
 *    writes as the original.
 *  - Putting back never follows a link (every path is opened beneath the
 *    root, with no symbolic link on the way) and, where there is room,
 *    never leaves the name empty: the copy is written beside under a
 *    random name, then swapped in (RENAME_EXCHANGE), and what the call
 *    made stays under that name (NAME.toolcage-blocked-N) for the owner
 *    to look at. Each change is reported, with its new name.
 *  - A call that filled the disk (or the quota) leaves no room for that:
 *    what it wrote must still go. The original is saved outside the
 *    workspace first, the call's version removed, the copy written again;
 *    failing that the name stays empty and the result says where the
 *    original is (put_back_in_room).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "io.h"

enum {
	RESTORE_BYTES = 8 << 20, /* the contents of one jail's protected files */
	RESTORE_ENTRIES = 8192,  /* files, directories and links beneath them */
	RESTORE_DEPTH = 16,      /* directories below a protected path */
	RESTORE_COMPONENTS = 8,  /* as protect.c's PROTECT_DEPTH */
	RESTORE_MADE = 16,       /* directories made anew in one put back */
};

/* One file, directory or symbolic link of the copy. */
struct node {
	char *name;
	struct stat st;
	char *data; /* a file's content, a link's target */
	size_t len;
	struct node *kids; /* a directory's entries, sorted by name */
	size_t n_kids;
};

/* One protected path: the components that existed (held open), and the
 * copy of the path itself when it existed. */
struct held {
	char *path;                 /* absolute, as the jail listed it */
	int n;                      /* components that existed */
	int fd[RESTORE_COMPONENTS]; /* O_PATH */
	struct stat st[RESTORE_COMPONENTS];
	bool copied; /* copy holds the last of them */
	struct node copy;
};

struct restore_copy {
	int n_locks;
	int locks[SBX_MAX_RW_PATHS];
	size_t bytes, entries;
	int n;
	struct held h[];
};

/* rel beneath dfd (or, from AT_FDCWD, an absolute path), no symbolic
 * link on the way: an O_PATH fd or -errno. */
static int open_beneath(int dfd, const char *rel, int flags)
{
	struct open_how how = { .flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		                .resolve = (dfd == AT_FDCWD ? 0 : RESOLVE_BENEATH) |
		                        RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, dfd, rel, &how, sizeof how);
	return fd < 0 ? -errno : fd;
}

/* ---- shared with protect.c ------------------------------------------- */

/* The root a candidate lies under (the longest writable root that is a
 * prefix of it): the sweep must not look above it. */
size_t restore_root_len(const struct sbx_jail *j, const char *path)
{
	size_t best = 0;
	for (char **r = j->rw_paths; r && *r; r++) {
		size_t n = strlen(*r);
		if (n > best && !strncmp(path, *r, n) && path[n] == '/')
			best = n;
	}
	return best;
}

/* Renames dir/name aside (same directory, a name nothing trusts) without
 * following anything: dir is opened component by component below the
 * root; where the rename fails (no room for the new name), removes it.
 * Appends "path (moved to new name)", "path (removed: ...)" or "path
 * (could not be moved aside: why)" to the report. */
void restore_move_aside(const char *path, size_t rl, char *report, size_t size)
{
	char dir[PATH_MAX], aside[NAME_MAX + 1];
	const char *slash = strrchr(path, '/');
	size_t used = strlen(report);
	const char *name = slash + 1;
	int rc = 0;
	snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		                .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	char root[PATH_MAX];
	snprintf(root, sizeof root, "%.*s", (int)rl, path);
	int rfd = (int)syscall(SYS_openat2, AT_FDCWD, root, &how, sizeof how);
	how.resolve |= RESOLVE_BENEATH;
	int dfd = rfd < 0         ? -1 :
	        strlen(dir) == rl ? dup(rfd) :
	                            (int)syscall(SYS_openat2, rfd, dir + rl + 1, &how, sizeof how);
	if (dfd < 0)
		rc = -errno;
	/* The new name is random, not one the tool could foresee: names made
	 * ahead (from the clock) for every try would leave the file where it
	 * is, with only a line in the report. */
	/* A tool may have taken our write permission on the directory (chmod
	 * 555 as the same user): we own it as the tool did, so it gets u+wx
	 * back for the rename and its mode after. */
	struct stat st;
	bool chmodded = false;
	for (unsigned k = 0; !rc && k < 100; k++) {
		unsigned long long r;
		if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
			rc = -EIO;
			break;
		}
		snprintf(aside, sizeof aside, "%.200s.toolcage-blocked-%016llx", name, r);
		if (syscall(SYS_renameat2, dfd, name, dfd, aside, RENAME_NOREPLACE) == 0)
			break;
		rc = errno == EEXIST ? 0 : -errno;
		if ((rc == -EACCES || rc == -EPERM) && !chmodded && fstat(dfd, &st) == 0 &&
		    st.st_uid == geteuid() && fd_chmod(dfd, st.st_mode | S_IWUSR | S_IXUSR) == 0) {
			chmodded = true;
			rc = 0;
		}
		if (k == 99)
			rc = -EEXIST;
	}
	/* The rename needs room for a longer name in the directory (a new
	 * block of it): a tool that filled the file system, or the quota of
	 * the uid it shares with us, leaves none, and what it made would stay
	 * where the owner's programs trust it (a sub/.git pointing git at a
	 * repository of its own, run by the next git status). Removing it
	 * needs no room: it goes instead. */
	int removed = -1;
	if (rc && rc != -ENOENT && dfd >= 0)
		removed = ladder_remove_tree(dfd, name);
	if (chmodded)
		(void)fd_chmod(dfd, st.st_mode);
	if (rc && removed >= 0)
		snprintf(report + used, size - used, "%s%s (%s: could not be moved aside: %s)",
		         used ? "; " : "", path + rl + 1, removed ? "being removed" : "removed",
		         strerror(-rc));
	else if (rc)
		snprintf(report + used, size - used, "%s%s (could not be moved aside: %s)",
		         used ? "; " : "", path + rl + 1, strerror(-rc));
	else
		snprintf(report + used, size - used, "%s%s (moved to %s)", used ? "; " : "",
		         path + rl + 1, aside);
	if (dfd >= 0)
		close(dfd);
	if (rfd >= 0)
		close(rfd);
}

/* ---- taking the copy ---------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct node *)a)->name, ((const struct node *)b)->name);
}

static void node_release(struct node *nd)
{
	for (size_t i = 0; i < nd->n_kids; i++)
		node_release(&nd->kids[i]);
	free(nd->kids);
	free(nd->data);
	free(nd->name);
	memset(nd, 0, sizeof *nd);
}

static int read_whole(int fd, char *buf, size_t size, size_t *got)
{
	size_t n = 0;
	while (n <= size) {
		char extra;
		ssize_t r = n < size ? read(fd, buf + n, size - n) : read(fd, &extra, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*got = n;
	return n > size ? -E2BIG : 0;
}

static int take_node(struct restore_copy *c, int dfd, const char *name, struct node *nd, int depth);

static int take_dir(struct restore_copy *c, int fd, struct node *nd, int depth)
{
	if (depth >= RESTORE_DEPTH)
		return -E2BIG;
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		int e = -errno;
		if (dfd >= 0)
			close(dfd);
		return e;
	}
	int rc = 0;
	size_t cap = 0;
	for (struct dirent *e; !rc && (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (nd->n_kids == cap) {
			cap = cap ? cap * 2 : 8;
			struct node *k = realloc(nd->kids, cap * sizeof *k);
			if (!k) {
				rc = -ENOMEM;
				break;
			}
			nd->kids = k;
		}
		struct node *k = &nd->kids[nd->n_kids];
		memset(k, 0, sizeof *k);
		nd->n_kids++;
		rc = take_node(c, dirfd(d), e->d_name, k, depth + 1);
	}
	closedir(d);
	if (!rc)
		qsort(nd->kids, nd->n_kids, sizeof *nd->kids, by_name);
	return rc;
}

static int take_node(struct restore_copy *c, int dfd, const char *name, struct node *nd, int depth)
{
	if (++c->entries > RESTORE_ENTRIES)
		return -E2BIG;
	if (!(nd->name = strdup(name)))
		return -ENOMEM;
	int fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), rc = 0;
	if (fd < 0 || fstat(fd, &nd->st) < 0) {
		rc = -errno;
	} else if (S_ISDIR(nd->st.st_mode)) {
		rc = take_dir(c, fd, nd, depth);
	} else if (S_ISLNK(nd->st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(fd, "", target, sizeof target);
		if (n < 0 || (size_t)n >= sizeof target)
			rc = n < 0 ? -errno : -ENAMETOOLONG;
		else if (!(nd->data = strndup(target, (size_t)n)))
			rc = -ENOMEM;
		nd->len = (size_t)(n > 0 ? n : 0);
	} else if (S_ISREG(nd->st.st_mode)) {
		size_t room = RESTORE_BYTES - c->bytes;
		int rfd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (rfd < 0)
			rc = -errno;
		else if ((size_t)nd->st.st_size > room)
			rc = -E2BIG;
		else if (!(nd->data = malloc((size_t)nd->st.st_size + 1)))
			rc = -ENOMEM;
		else
			rc = read_whole(rfd, nd->data, (size_t)nd->st.st_size, &nd->len);
		c->bytes += nd->len;
		if (rfd >= 0)
			close(rfd);
	} else {
		rc = -EOPNOTSUPP; /* a socket, fifo or device: not copied */
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* The components of rel below rootfd that exist, held open, and the copy
 * of the last one (or of a file standing in for a directory on the way:
 * .git as a worktree's "gitdir:" file decides where the rest is). */
static int take_path(struct restore_copy *c, int rootfd, const char *rel, struct held *h)
{
	char part[PATH_MAX];
	size_t len = strlen(rel);
	if (len >= sizeof part)
		return -ENAMETOOLONG;
	for (size_t i = 0; i <= len && h->n < RESTORE_COMPONENTS; i++) {
		if (rel[i] != '/' && rel[i] != '\0')
			continue;
		memcpy(part, rel, i);
		part[i] = '\0';
		int fd = open_beneath(rootfd, part, O_PATH);
		if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP)
			return 0;
		if (fd < 0)
			return fd;
		h->fd[h->n] = fd;
		if (fstat(fd, &h->st[h->n]) < 0)
			return -errno;
		mode_t m = h->st[h->n++].st_mode;
		if (rel[i] == '\0' || S_ISREG(m)) {
			const char *slash = strrchr(part, '/');
			int pfd = slash ?
			        (*(char *)slash = '\0', open_beneath(rootfd, part, O_PATH)) :
			        dup(rootfd);
			if (pfd < 0)
				return pfd;
			int rc = take_node(c, pfd, slash ? slash + 1 : part, &h->copy, 0);
			close(pfd);
			h->copied = rc == 0;
			/* The path itself is compared by name, never through
			 * this: held, it would keep what the call wrote in it
			 * on the disk after the name is removed (no room freed
			 * where there is none to write the copy). */
			close(h->fd[h->n - 1]);
			h->fd[h->n - 1] = -1;
			return rc;
		}
		if (!S_ISDIR(m))
			return 0; /* a link on the way: the protected path is not there */
	}
	return 0;
}

void restore_free(struct restore_copy *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++) {
		for (int k = 0; k < c->h[i].n; k++)
			if (c->h[i].fd[k] >= 0)
				close(c->h[i].fd[k]);
		free(c->h[i].path);
		node_release(&c->h[i].copy);
	}
	for (int i = 0; i < c->n_locks; i++)
		close(c->locks[i]);
	free(c);
}

int restore_take(const struct sbx_jail *j, const char *const *paths, int n_paths,
                 struct restore_copy **out, char *why, size_t size)
{
	*out = NULL;
	struct restore_copy *c = calloc(1, sizeof *c + (size_t)n_paths * sizeof c->h[0]);
	if (!c)
		return -ENOMEM;
	int rc = 0;
	for (char **r = j->rw_paths; !rc && r && *r && c->n_locks < SBX_MAX_RW_PATHS; r++) {
		int fd = open(*r, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			rc = -errno;
			snprintf(why, size, "writable path %s: %s", *r, strerror(errno));
			break;
		}
		c->locks[c->n_locks++] = fd;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
			snprintf(why, size,
			         "another call that writes %s is running, and without "
			         "a mount namespace toolcage holds its protected paths by a copy "
			         "taken while no call can write them: try again when it is over",
			         *r);
		}
	}
	for (int i = 0; !rc && i < n_paths; i++, c->n++) {
		const char *path = paths[i];
		if (!(c->h[i].path = strdup(path))) {
			rc = -ENOMEM;
			break;
		}
		size_t rl = restore_root_len(j, path);
		char root[PATH_MAX];
		snprintf(root, sizeof root, "%.*s", (int)rl, path);
		int rootfd = open_beneath(AT_FDCWD, root, O_PATH | O_DIRECTORY);
		rc = rootfd < 0 ? rootfd : take_path(c, rootfd, path + rl + 1, &c->h[i]);
		if (rootfd >= 0)
			close(rootfd);
		if (rc == -E2BIG)
			snprintf(
			        why, size,
			        "protected path %s is larger than toolcage copies aside "
			        "where no mount namespace holds it read-only (%d MiB, %d entries, %d "
			        "directories deep, for all of them together)",
			        path, RESTORE_BYTES >> 20, RESTORE_ENTRIES, RESTORE_DEPTH);
		else if (rc == -EOPNOTSUPP)
			snprintf(why, size,
			         "protected path %s holds a socket, fifo or device, which "
			         "toolcage cannot copy aside to put back",
			         path);
		else if (rc < 0)
			snprintf(why, size, "protected path %s cannot be copied aside: %s", path,
			         strerror(-rc));
	}
	if (rc) {
		if (rc != -ENOMEM)
			rc = rc == -EBUSY ? -EBUSY : -EPERM;
		restore_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* ---- comparing and putting back ---------------------------------------- */

static bool same_node(int dfd, const char *name, const struct node *nd, int depth);

static bool same_dir(int fd, const struct node *nd, int depth)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return false;
	}
	size_t seen = 0;
	bool same = true;
	for (struct dirent *e; same && (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		struct node key = { .name = e->d_name };
		const struct node *k = bsearch(&key, nd->kids, nd->n_kids, sizeof key, by_name);
		same = k && ++seen <= nd->n_kids && same_node(dirfd(d), e->d_name, k, depth + 1);
	}
	closedir(d);
	return same && seen == nd->n_kids;
}

/* Whether name in dfd is still what nd copied: type, mode, owner,
 * content (a file), target (a link), entries (a directory); a file with
 * more links than it had (one made by the call would write it later) is
 * not. Reads no more than the copy holds, plus a byte. */
static bool same_node(int dfd, const char *name, const struct node *nd, int depth)
{
	struct stat st;
	int fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || depth > RESTORE_DEPTH) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	bool same = st.st_mode == nd->st.st_mode && st.st_uid == nd->st.st_uid &&
	        st.st_gid == nd->st.st_gid;
	if (same && S_ISREG(st.st_mode)) {
		same = (size_t)st.st_size == nd->len && st.st_nlink <= nd->st.st_nlink;
		int rfd = same ? openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) :
		                 -1;
		char *buf = same ? malloc(nd->len + 1) : NULL;
		size_t got = 0;
		same = rfd >= 0 && buf && read_whole(rfd, buf, nd->len, &got) == 0 &&
		        got == nd->len && !memcmp(buf, nd->data, got);
		free(buf);
		if (rfd >= 0)
			close(rfd);
	} else if (same && S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(fd, "", target, sizeof target);
		same = n >= 0 && (size_t)n == nd->len && !memcmp(target, nd->data, nd->len);
	} else if (same && S_ISDIR(st.st_mode)) {
		same = same_dir(fd, nd, depth);
	}
	close(fd);
	return same;
}

/* Writes nd as name in dfd (new), its mode, owner and times last. */
static int put_node(int dfd, const char *name, const struct node *nd)
{
	int fd = -1, rc = 0;
	if (S_ISLNK(nd->st.st_mode)) {
		if (symlinkat(nd->data, dfd, name) < 0)
			return -errno;
		if (geteuid() == 0 &&
		    fchownat(dfd, name, nd->st.st_uid, nd->st.st_gid, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		return 0;
	}
	if (S_ISDIR(nd->st.st_mode)) {
		if (mkdirat(dfd, name, 0700) < 0)
			return -errno;
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		for (size_t i = 0; fd >= 0 && !rc && i < nd->n_kids; i++)
			rc = put_node(fd, nd->kids[i].name, &nd->kids[i]);
	} else {
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		ssize_t w = fd >= 0 ? io_write_all(fd, nd->data, nd->len) : 0;
		if (w < 0)
			rc = (int)w; /* ENOSPC, EDQUOT: said as they are */
	}
	if (fd < 0)
		return -errno;
	struct timespec t[2] = { nd->st.st_atim, nd->st.st_mtim };
	if (!rc && geteuid() == 0 && fchown(fd, nd->st.st_uid, nd->st.st_gid) < 0)
		rc = -errno;
	if (!rc && (fchmod(fd, nd->st.st_mode & 07777) < 0 || futimens(fd, t) < 0))
		rc = -errno;
	close(fd);
	return rc;
}

/* Removes what put_node began (ours, just made: nothing of the tool's). */
static void unput(int dfd, const char *name, int depth)
{
	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT || depth > RESTORE_DEPTH + 1)
		return;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unput(dirfd(d), e->d_name, depth + 1);
	closedir(d);
	(void)unlinkat(dfd, name, AT_REMOVEDIR);
}

static void say(char *report, size_t size, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void say(char *report, size_t size, const char *fmt, ...)
{
	size_t used = strlen(report);
	if (used && used + 2 < size) {
		memcpy(report + used, "; ", 3);
		used += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(report + used, size - used, fmt, ap);
	va_end(ap);
}

/* A random name beside name: one the tool could not have made ready. */
static int aside_name(const char *name, char *out, size_t size)
{
	unsigned long long r;
	if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
		return -EIO;
	snprintf(out, size, "%.200s.toolcage-blocked-%016llx", name, r);
	return 0;
}

/* Where originals go that cannot be put back in the workspace (its file
 * system or quota full): a directory of toolcage's own beside the calls'
 * directories (/run/toolcage for root: another file system than any
 * workspace it may write; Landlock never grants it to a tool, and no jail
 * may write what holds it), made on first need and named in the result. */
struct saves {
	const struct sbx_jail *j;
	char dir[PATH_MAX];
	int fd;  /* O_PATH, -1 until made */
	int err; /* why it could not be made */
};

/* nd saved as rel below the saves' directory (the directories on the way
 * made): 0 with where filled, or -errno. */
static int save_original(struct saves *sv, const char *rel, const struct node *nd, char *where,
                         size_t size)
{
	if (sv->fd < 0 && !sv->err) {
		char base[sizeof sv->dir - 40];
		struct sbx_error e;
		unsigned long long r;
		int rc = ladder_base_dir(sv->j, "saved originals", 0711, base, sizeof base, &e);
		if (!rc && getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
			rc = -EIO;
		if (!rc)
			snprintf(sv->dir, sizeof sv->dir, "%s/put-back-%016llx", base, r);
		if (!rc && mkdir(sv->dir, 0700) < 0)
			rc = -errno;
		if (!rc && (sv->fd = open_beneath(AT_FDCWD, sv->dir, O_PATH | O_DIRECTORY)) < 0)
			rc = sv->fd;
		sv->err = rc;
	}
	if (sv->fd < 0)
		return sv->err;
	char part[PATH_MAX];
	int dfd = dup(sv->fd), rc = dfd < 0 ? -errno : 0;
	const char *p = rel;
	for (const char *slash; !rc && (slash = strchr(p, '/')); p = slash + 1) {
		snprintf(part, sizeof part, "%.*s", (int)(slash - p), p);
		if (mkdirat(dfd, part, 0700) < 0 && errno != EEXIST)
			rc = -errno;
		int next = rc ? -1 : open_beneath(dfd, part, O_PATH | O_DIRECTORY);
		close(dfd);
		dfd = next;
		if (!rc && dfd < 0)
			rc = dfd;
	}
	if (!rc && (rc = put_node(dfd, p, nd)) < 0)
		unput(dfd, p, 0);
	if (dfd >= 0)
		close(dfd);
	snprintf(where, size, "%s/%s", sv->dir, rel);
	return rc;
}

/* The saved copy of rel, its original back in place after all, and the
 * directories made for it where now empty (toolcage's own: no tool's). */
static void drop_saved(const struct saves *sv, const char *rel)
{
	char part[PATH_MAX];
	snprintf(part, sizeof part, "%s", rel);
	unput(sv->fd, part, 0);
	for (char *slash; (slash = strrchr(part, '/'));) {
		*slash = '\0';
		if (unlinkat(sv->fd, part, AT_REMOVEDIR) < 0)
			break;
	}
}

/* What ladder_remove_tree's answer means for the call's version. */
static const char *removal_said(int removed, const char *gone)
{
	if (removed > 0)
		return "is being removed by a process of its own";
	return removed < 0 ? "could NOT be removed" : gone;
}

/* nd written as name in pfd, straight, or -errno (nothing of it left).
 * What a removal just freed may be held by the journal until its
 * transaction commits (ext4 reuses no block freed in a transaction still
 * open): on ENOSPC or EDQUOT the directory is synced, which commits it,
 * and the write tried once more. */
static int put_node_now(int pfd, const char *name, const struct node *nd)
{
	for (int tries = 0;; tries++) {
		int rc = put_node(pfd, name, nd);
		if (rc < 0)
			unput(pfd, name, 0);
		if (!rc || tries || (rc != -ENOSPC && rc != -EDQUOT))
			return rc;
		int d = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		bool synced = d >= 0 && fsync(d) == 0;
		if (d >= 0)
			close(d);
		if (!synced)
			return rc;
	}
}

/* The copy could not be written beside what the call left (no room: its
 * file system or the quota of the uid full), or not swapped in. The
 * original goes first where it cannot be lost (the saves), then the
 * call's version off the name (unlinking needs no room and frees what it
 * held), then the copy once more, straight under the name (or, written
 * beside already, renamed there). Where that fails too, the name stays
 * empty: nothing of the call's is left for the owner's programs to run
 * (a hook, a core.fsmonitor), and the result says where the original is.
 * err: why the first way failed; aside: the copy written beside, or "". */
static void put_back_in_room(int pfd, const char *rel, const char *name, const char *aside,
                             const struct node *nd, int err, struct saves *sv, char *report,
                             size_t size)
{
	char where[PATH_MAX + 64];
	int saved = save_original(sv, rel, nd, where, sizeof where);
	int removed = ladder_remove_tree(pfd, name), rc = removed ? -ENOTEMPTY : 0;
	if (!rc && aside[0]) {
		if (syscall(SYS_renameat2, pfd, aside, pfd, name, RENAME_NOREPLACE) < 0)
			rc = -errno;
	} else if (!rc) {
		rc = put_node_now(pfd, name, nd);
	}
	if (rc && aside[0])
		unput(pfd, aside, 0);
	if (!rc) {
		if (!saved)
			drop_saved(sv, rel);
		say(report, size,
		    "%s (changed by the call: put back; the call's removed, not kept aside: "
		    "%s)",
		    rel, strerror(-err));
		return;
	}
	const char *left = removal_said(removed, "removed, the name left empty");
	if (!saved)
		say(report, size,
		    "%s (changed by the call, could NOT be put back: %s; the call's %s; "
		    "the original saved in %s)",
		    rel, strerror(-(rc == -ENOTEMPTY ? err : rc)), left, where);
	else
		say(report, size,
		    "%s (changed by the call, could NOT be put back: %s; the call's %s; "
		    "the original could NOT be saved: %s)",
		    rel, strerror(-(rc == -ENOTEMPTY ? err : rc)), left, strerror(-saved));
}

/* The copy back in place of rel (below rootfd), what stood there kept
 * under a new name: written beside it and swapped in, the name never
 * empty; where there is no room for that, put_back_in_room. */
static void put_back(int rootfd, const char *rel, const struct node *nd, struct saves *sv,
                     char *report, size_t size)
{
	char parent[PATH_MAX], aside[NAME_MAX + 1] = "";
	const char *slash = strrchr(rel, '/'), *name = slash ? slash + 1 : rel;
	snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - rel) : 1, slash ? rel : ".");
	int pfd = open_beneath(rootfd, parent, O_PATH | O_DIRECTORY), rc;
	if (pfd < 0) { /* its directory lost (and none could be made): saved */
		char where[PATH_MAX + 64];
		int saved = save_original(sv, rel, nd, where, sizeof where);
		say(report, size, "%s (changed by the call, could NOT be put back: %s; %s%s)", rel,
		    strerror(-pfd),
		    saved ? "the original could NOT be saved: " : "the original saved in ",
		    saved ? strerror(-saved) : where);
		return;
	}
	if (!(rc = aside_name(name, aside, sizeof aside)) && (rc = put_node(pfd, aside, nd)) < 0)
		unput(pfd, aside, 0);
	if (rc) {
		aside[0] = '\0';
	} else if (syscall(SYS_renameat2, pfd, aside, pfd, name, RENAME_EXCHANGE) == 0) {
		say(report, size, "%s (changed by the call: put back; the call's is %s)", rel,
		    aside);
	} else if (errno == ENOENT &&
	           syscall(SYS_renameat2, pfd, aside, pfd, name, RENAME_NOREPLACE) == 0) {
		say(report, size, "%s (removed by the call: put back)", rel);
	} else {
		rc = -errno;
	}
	if (rc)
		put_back_in_room(pfd, rel, name, aside, nd, rc, sv, report, size);
	close(pfd);
}

/* Where the held directory is now, when beneath root: what /proc says
 * (a name that can lie: checked again before use), else "". */
static void held_path(int held, const char *root, char *where, size_t size)
{
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", held);
	ssize_t n = readlink(self, where, size - 1);
	size_t rl = strlen(root);
	if (n > 0 && (size_t)n < size - 1 && (size_t)n > rl + 1 && !strncmp(where, root, rl) &&
	    where[rl] == '/')
		where[n] = '\0';
	else
		where[0] = '\0';
}

/* What stands at name, not the one held, out of the way: renamed aside
 * (fate says its new name), or, where there is no room for that (a full
 * file system, or a parent the call filled with names), removed as a
 * created protected path is (restore_move_aside), unless the one held is
 * inside it and would go with it (where: its path). */
static void call_dir_aside(int pfd, const char *name, const char *root, const char *rel,
                           const char *where, char *fate, size_t size)
{
	char aside[NAME_MAX + 1], mine[2 * PATH_MAX + 2];
	int rc = aside_name(name, aside, sizeof aside);
	if (!rc && syscall(SYS_renameat2, pfd, name, pfd, aside, RENAME_NOREPLACE) == 0) {
		snprintf(fate, size, "; the call's is %s", aside);
		return;
	}
	rc = rc ? rc : -errno;
	fate[0] = '\0';
	snprintf(mine, sizeof mine, "%s/%s/", root, rel);
	if (rc == -ENOENT || !strncmp(where, mine, strlen(mine)))
		return;
	snprintf(fate, size, "; the call's %s (no room to move it aside: %s)",
	         removal_said(ladder_remove_tree(pfd, name), "removed"), strerror(-rc));
}

/* A directory on the way (.git) that is not the one held: what stands
 * there goes aside (call_dir_aside), and the one held comes back from
 * wherever the call moved it beneath the root (found through the
 * descriptor held open); failing that, a new empty directory takes its
 * place, which the copies below then fill. */
static void put_back_dir(int rootfd, const char *root, const char *rel, int held,
                         const struct stat *was, struct stat *made, char *report, size_t size)
{
	char parent[PATH_MAX], where[PATH_MAX + 32], fate[NAME_MAX + 160];
	const char *slash = strrchr(rel, '/'), *name = slash ? slash + 1 : rel;
	snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - rel) : 1, slash ? rel : ".");
	int pfd = open_beneath(rootfd, parent, O_PATH | O_DIRECTORY);
	if (pfd < 0) {
		say(report, size, "%s (replaced by the call, could NOT be put back: %s)", rel,
		    strerror(-pfd));
		return;
	}
	held_path(held, root, where, sizeof where);
	call_dir_aside(pfd, name, root, rel, where, fate, sizeof fate);
	/* Where the one held is now (it may have moved with the call's,
	 * aside), opened again beneath the root to see it is the same
	 * directory. */
	held_path(held, root, where, sizeof where);
	size_t rl = strlen(root);
	struct stat st;
	int rc = -ENOENT;
	if (where[0]) {
		char *wslash = strrchr(where, '/');
		*wslash = '\0';
		int ofd = wslash == where + rl ?
		        dup(rootfd) :
		        open_beneath(rootfd, where + rl + 1, O_PATH | O_DIRECTORY);
		int cfd = ofd < 0 ? -1 : openat(ofd, wslash + 1, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (cfd >= 0 && fstat(cfd, &st) == 0 && st.st_dev == was->st_dev &&
		    st.st_ino == was->st_ino)
			rc = syscall(SYS_renameat2, ofd, wslash + 1, pfd, name, RENAME_NOREPLACE) ==
			                0 ?
			        0 :
			        -errno;
		*wslash = '/';
		if (cfd >= 0)
			close(cfd);
		if (ofd >= 0)
			close(ofd);
	}
	if (rc == 0)
		say(report, size, "%s (replaced by the call: the original put back%s)", rel, fate);
	else if (mkdirat(pfd, name, was->st_mode & 07777) == 0) {
		if (geteuid() == 0 &&
		    fchownat(pfd, name, was->st_uid, was->st_gid, AT_SYMLINK_NOFOLLOW) < 0)
			say(report, size, "%s (its owner could not be set: %s)", rel,
			    strerror(errno));
		if (made && fstatat(pfd, name, made, AT_SYMLINK_NOFOLLOW) < 0)
			memset(made, 0, sizeof *made);
		say(report, size,
		    "%s (replaced by the call, the original not found beneath the "
		    "workspace: a new directory made for the protected paths in it%s)",
		    rel, fate);
	} else
		say(report, size, "%s (replaced by the call, could NOT be put back: %s%s%s%s)", rel,
		    strerror(errno), fate, where[0] ? "; the original is at " : "",
		    where[0] ? where + rl + 1 : "");
	close(pfd);
}

static bool same_id(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	        (a->st_mode & S_IFMT) == (b->st_mode & S_IFMT);
}

void restore_put_back(const struct sbx_jail *j, const struct restore_copy *c, char *report,
                      size_t size)
{
	struct stat made[RESTORE_MADE + 1];
	int n_made = 0;
	struct saves sv = { .j = j, .fd = -1 };
	for (int i = 0; i < c->n; i++) {
		const struct held *h = &c->h[i];
		const char *path = h->path;
		if (!path)
			continue;
		size_t rl = restore_root_len(j, path);
		char root[PATH_MAX], part[PATH_MAX];
		snprintf(root, sizeof root, "%.*s", (int)rl, path);
		const char *rel = path + rl + 1;
		int rootfd = open_beneath(AT_FDCWD, root, O_PATH | O_DIRECTORY);
		if (rootfd < 0) {
			say(report, size, "%s (could NOT be checked: %s)", path, strerror(-rootfd));
			continue;
		}
		/* The directories on the way, then the path itself. A new
		 * directory made for a lost one (.git) is on the way of the
		 * other paths too: not the tool's. */
		int k = 0;
		for (size_t e = 0; k < h->n; e++) {
			if (rel[e] != '/' && rel[e] != '\0')
				continue;
			snprintf(part, sizeof part, "%.*s", (int)e, rel);
			bool last = rel[e] == '\0' || (k == h->n - 1 && h->copied);
			if (last) {
				if (!same_node(rootfd, part, &h->copy, 0))
					put_back(rootfd, part, &h->copy, &sv, report, size);
				break;
			}
			int fd = open_beneath(rootfd, part, O_PATH);
			struct stat st;
			bool same = fd >= 0 && fstat(fd, &st) == 0 && same_id(&st, &h->st[k]);
			for (int m = 0; !same && fd >= 0 && m < n_made; m++)
				same = same_id(&st, &made[m]);
			if (fd >= 0)
				close(fd);
			if (!same && S_ISDIR(h->st[k].st_mode)) {
				memset(&made[n_made], 0, sizeof made[n_made]);
				put_back_dir(rootfd, root, part, h->fd[k], &h->st[k],
				             n_made < RESTORE_MADE ? &made[n_made] : NULL, report,
				             size);
				if (n_made < RESTORE_MADE && made[n_made].st_ino)
					n_made++;
			} else if (!same && fd >= 0) { /* a link on the way, replaced */
				char abs[2 * PATH_MAX + 2];
				snprintf(abs, sizeof abs, "%s/%s", root, part);
				restore_move_aside(abs, rl, report, size);
				break;
			}
			k++;
			if (!rel[e])
				break;
		}
		close(rootfd);
	}
	if (sv.fd >= 0) {
		close(sv.fd);
		(void)rmdir(sv.dir); /* where nothing was left in it */
	}
}

/* ---- the call's processes gone ------------------------------------------ */

/* Whether a process of group pgid is alive (a zombie writes nothing):
 * kill(2) answers for the whole group, zombies included, so /proc is
 * asked only while it says some are left. */
static bool group_alive(pid_t pgid)
{
	if (kill(-pgid, 0) < 0 && errno == ESRCH)
		return false;
	DIR *d = opendir("/proc");
	if (!d)
		return true;
	bool alive = false;
	for (struct dirent *e; !alive && (e = readdir(d));) {
		char path[64], buf[512];
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%.20s/stat", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* "pid (comm) state ppid pgrp": comm may hold anything, so
		 * from its last ')'. */
		const char *p = strrchr(buf, ')');
		if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
			continue;
		char state = p[2], *end;
		(void)strtol(p + 4, &end, 10); /* ppid */
		long pgrp = *end == ' ' ? strtol(end + 1, NULL, 10) : 0;
		if (pgrp == pgid && state != 'Z' && state != 'X')
			alive = true;
	}
	closedir(d);
	return alive;
}

bool restore_group_gone(pid_t pgid, int bound_ms)
{
	for (int waited = 0; waited <= bound_ms; waited++) {
		if (!group_alive(pgid))
			return true;
		(void)kill(-pgid, SIGKILL);
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	return false;
}
