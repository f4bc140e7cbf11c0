/* mask.c — hidden paths kept out of reach by mounts.
 *
 * A profile's hidden paths (fnmatch(3) globs, /etc/shadow and the like) sit
 * inside trees the child may read, and their owner bits would let a child
 * running as their owner (uid 0 without capabilities) read them. When the
 * child has a mount namespace of its own, each hidden path that exists is
 * covered by an empty, mode-0000, read-only bind mount: the name stays, the
 * content is gone for every uid without CAP_DAC_OVERRIDE, and nothing the
 * tool can do (no capabilities, no mount system calls) uncovers it. The
 * host can: a new file renamed over a hidden path (passwd replacing
 * /etc/shadow) takes the mounts on the old one off in every namespace. So
 * the dirs that hold them are shown as overlays of stand-ins, or Landlock
 * leaves the hidden paths out too, granting those dirs entry by entry
 * (view.c, landlock.c), made again whenever the masks are. No mask is made
 * beneath a child's own overlay, where it would not be seen.
 *
 * The parent expands the globs once per jail and records every directory it
 * had to look into; before each spawn it stats those again and expands
 * anew when one changed, so a secret created after the jail was compiled
 * (a new SSH host key) is masked too. The child side (mask_place,
 * mask_cover, mask_tidy) only makes system calls on what the parent
 * prepared; where the view is made, mask_check tells whether those dirs
 * changed meanwhile.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "pathrel.h"

enum { MASK_MAX = 1024, MASK_DEPTH = 32 };

/* The watch of w->path as it is now. Its fd (a directory's) is kept for
 * mask_check. The clock is read first: a change after it is given a time
 * of that tick or later, so times of an earlier tick always change. Times
 * of this tick may not (recent): a filesystem that keeps times to the
 * clock tick only (before Linux 6.13, or one without fine-grained times)
 * gives two changes of one tick the same. Times further ahead than a tick
 * (a server's clock) say nothing either way. */
static int watch_stat(struct mask_watch *w)
{
	struct timespec now;
	struct stat st;
	clock_gettime(CLOCK_REALTIME_COARSE, &now);
	w->fd = open(w->path, O_PATH | O_CLOEXEC);
	if (w->fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOMEM))
		return -errno; /* ours, not the path's: the scan fails */
	w->present = w->fd >= 0 && fstat(w->fd, &st) == 0;
	if (w->fd >= 0 && (!w->present || !S_ISDIR(st.st_mode))) {
		close(w->fd);
		w->fd = -1;
	}
	w->dev = w->present ? st.st_dev : 0;
	w->ino = w->present ? st.st_ino : 0;
	w->mtime = w->present ? st.st_mtim : (struct timespec){ 0, 0 };
	w->ctime = w->present ? st.st_ctim : (struct timespec){ 0, 0 };
	long long ahead_ns = (long long)(w->ctime.tv_sec - now.tv_sec) * 1000000000LL +
	        (w->ctime.tv_nsec - now.tv_nsec);
	w->recent = w->present && ahead_ns >= 0 && ahead_ns < 100000000LL;
	return 0;
}

static bool same_times(const struct mask_watch *w, const struct stat *st)
{
	return st->st_dev == w->dev && st->st_ino == w->ino &&
	        st->st_mtim.tv_sec == w->mtime.tv_sec && st->st_mtim.tv_nsec == w->mtime.tv_nsec &&
	        st->st_ctim.tv_sec == w->ctime.tv_sec && st->st_ctim.tv_nsec == w->ctime.tv_nsec;
}

/* Changed since, or recent: scanned again once its tick is over. */
static bool watch_changed(const struct mask_watch *w)
{
	struct stat st;
	bool present = stat(w->path, &st) == 0;
	return w->recent || present != w->present || (present && !same_times(w, &st));
}

/* Room for one more of n elements of size in *arr (grown 16 at a time),
 * at most MASK_MAX. */
static int grow(void *arr, int n, size_t size)
{
	if (n >= MASK_MAX)
		return -E2BIG;
	if (n % 16)
		return 0;
	void *p = realloc(*(void **)arr, (size_t)(n + 16) * size);
	if (!p)
		return -ENOMEM;
	*(void **)arr = p;
	return 0;
}

static int add_watch(struct sbx_jail *j, const char *dir)
{
	for (int i = 0; i < j->n_watch; i++)
		if (!strcmp(j->watch[i].path, dir))
			return 0;
	int rc = grow(&j->watch, j->n_watch, sizeof *j->watch);
	if (rc)
		return rc;
	struct mask_watch *w = &j->watch[j->n_watch];
	/* Packed whole for the worker (jail_pack): no byte left unset. */
	memset(w, 0, sizeof *w);
	if (!(w->path = strdup(dir)))
		return -ENOMEM;
	if ((rc = watch_stat(w)) < 0) {
		free(w->path);
		return rc;
	}
	/* Its descriptor counts in the jail's budget (jail_fds_room). */
	if (w->fd >= 0 && jail_fds_held(j) >= JAIL_FDS_MAX) {
		close(w->fd);
		free(w->path);
		return -E2BIG;
	}
	j->n_watch++;
	return 0;
}

static bool beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && path[n] == '/';
}

/* Keeps path unless a masked directory already covers it; drops masks it
 * covers itself (a mount beneath a covered directory could not be made). */
static int add_mask(struct sbx_jail *j, const char *path, bool dir)
{
	for (int i = 0; i < j->n_masks; i++)
		if (!strcmp(j->masks[i].path, path) ||
		    (j->masks[i].dir && beneath(path, j->masks[i].path)))
			return 0;
	for (int i = 0; dir && i < j->n_masks;)
		if (beneath(j->masks[i].path, path)) {
			free(j->masks[i].path);
			j->masks[i] = j->masks[--j->n_masks];
		} else {
			i++;
		}
	int rc = grow(&j->masks, j->n_masks, sizeof *j->masks);
	if (rc)
		return rc;
	if (!(j->masks[j->n_masks].path = strdup(path)))
		return -ENOMEM;
	j->masks[j->n_masks++].dir = dir;
	return 0;
}

static bool has_wildcard(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strchr("*?[\\", s[i]))
			return true;
	return false;
}

/* A path we cannot look at: one the child cannot reach either (gone, a
 * dangling link or a loop, a directory we may not search: the child is no
 * more privileged), or a failure of ours (out of fds or memory) that must
 * fail the scan, not leave a secret unmasked. */
static int unreachable(int e)
{
	return e == ENOENT || e == ENOTDIR || e == EACCES || e == ELOOP || e == ENAMETOOLONG ? 0 :
	                                                                                       -e;
}

/* Matches the rest of a glob, component by component, below prefix (a
 * directory path of plen bytes in a PATH_MAX buffer; "" is the root). */
static int expand(struct sbx_jail *j, char *prefix, size_t plen, const char *rest, int depth)
{
	while (*rest == '/')
		rest++;
	if (!*rest) {
		struct stat st;
		if (stat(plen ? prefix : "/", &st) < 0)
			return unreachable(errno);
		return plen ? add_mask(j, prefix, S_ISDIR(st.st_mode)) : -EINVAL;
	}
	if (depth > MASK_DEPTH)
		return 0;
	int rc = add_watch(j, plen ? prefix : "/");
	if (rc)
		return rc;
	const char *end = strchrnul(rest, '/');
	size_t clen = (size_t)(end - rest);
	if (!has_wildcard(rest, clen)) {
		if (plen + 1 + clen >= PATH_MAX)
			return 0;
		prefix[plen] = '/';
		memcpy(prefix + plen + 1, rest, clen);
		prefix[plen + 1 + clen] = '\0';
		rc = expand(j, prefix, plen + 1 + clen, end, depth + 1);
		prefix[plen] = '\0';
		return rc;
	}
	char comp[NAME_MAX + 1];
	if (clen > NAME_MAX)
		return 0;
	memcpy(comp, rest, clen);
	comp[clen] = '\0';
	DIR *d = opendir(plen ? prefix : "/");
	if (!d)
		return unreachable(errno);
	struct dirent *e;
	errno = 0;
	while (!rc && (e = readdir(d))) {
		size_t nlen = strlen(e->d_name);
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    fnmatch(comp, e->d_name, FNM_PERIOD) || plen + 1 + nlen >= PATH_MAX)
			continue;
		prefix[plen] = '/';
		memcpy(prefix + plen + 1, e->d_name, nlen + 1);
		rc = expand(j, prefix, plen + 1 + nlen, end, depth + 1);
		prefix[plen] = '\0';
		errno = 0;
	}
	if (!rc && errno) /* readdir failed: the listing is incomplete */
		rc = -errno;
	closedir(d);
	return rc;
}

/* A jail's lists, moved out of it and back. */
struct mask_lists {
	struct sbx_mask *masks;
	int n_masks;
	struct mask_watch *watch;
	int n_watch;
};

static struct mask_lists take_lists(struct sbx_jail *j)
{
	struct mask_lists l = { j->masks, j->n_masks, j->watch, j->n_watch };
	j->masks = NULL;
	j->watch = NULL;
	j->n_masks = j->n_watch = 0;
	return l;
}

static void put_lists(struct sbx_jail *j, struct mask_lists l)
{
	j->masks = l.masks;
	j->n_masks = l.n_masks;
	j->watch = l.watch;
	j->n_watch = l.n_watch;
}

static void free_lists(struct mask_lists l)
{
	for (int i = 0; i < l.n_masks; i++)
		free(l.masks[i].path);
	for (int i = 0; i < l.n_watch; i++) {
		free(l.watch[i].path);
		if (l.watch[i].fd >= 0)
			close(l.watch[i].fd);
	}
	free(l.masks);
	free(l.watch);
}

/* Expands every glob into new lists. On failure the old lists stay (their
 * watches still differ from the disk, so the next spawn scans again) and
 * the spawn fails: no child runs with a secret left unmasked. */
static int scan_once(struct sbx_jail *j, struct sbx_error *err)
{
	struct mask_lists old = take_lists(j);
	char prefix[PATH_MAX] = "";
	int rc = 0;
	char **g = j->hidden;
	for (; g && *g && !rc; g++)
		rc = expand(j, prefix, 0, *g, 0);
	if (rc == -E2BIG && j->n_masks < MASK_MAX && j->n_watch < MASK_MAX) {
		/* Within the masks' bounds: the jail's descriptors ran out. */
		char what[PATH_MAX + 16];
		snprintf(what, sizeof what, "hidden path %s", g[-1]);
		rc = jail_fds_room(j, what, err);
		free_lists(take_lists(j));
		put_lists(j, old);
		return rc < 0 ? rc : sbx_err(err, E2BIG, "%s", what);
	}
	if (rc) {
		free_lists(take_lists(j));
		put_lists(j, old);
		if (rc == -E2BIG) {
			sbx_err(err, 0,
			        "hidden path %s: the profile's hidden paths match more than %d "
			        "paths, or lie in more than %d directories, the most one profile "
			        "can hide: hide a directory that holds them instead",
			        g[-1], MASK_MAX, MASK_MAX);
			if (err)
				err->errnum = E2BIG;
			return -E2BIG;
		}
		return sbx_err(err, -rc, "hidden path %s", g[-1]);
	}
	free_lists(old);
	return 0;
}

static bool any_recent(const struct sbx_jail *j)
{
	for (int i = 0; i < j->n_watch; i++)
		if (j->watch[i].recent)
			return true;
	return false;
}

/* A dir changed in the clock tick it was looked at in (recent: its times
 * may not tell the next change) is looked at again once the tick is over,
 * twice at most: a view checked against it would be refused (mask_check),
 * and made again, a launch more. One the host keeps changing stays
 * recent, and such a view is refused. */
static int scan(struct sbx_jail *j, struct sbx_error *err)
{
	int rc = scan_once(j, err);
	for (int n = 0; !rc && n < 2 && any_recent(j); n++) {
		struct timespec tick;
		if (clock_getres(CLOCK_REALTIME_COARSE, &tick) < 0 || tick.tv_sec ||
		    tick.tv_nsec > 10000000)
			tick = (struct timespec){ 0, 10000000 };
		nanosleep(&tick, NULL);
		rc = scan_once(j, err);
	}
	return rc;
}

int mask_plan(const struct sbx_spec *spec, struct sbx_jail *j, struct sbx_error *err)
{
	size_t n = 0;
	for (; spec->hidden_paths && spec->hidden_paths[n]; n++)
		if (spec->hidden_paths[n][0] != '/')
			return sbx_err(err, EINVAL, "hidden path %s is not absolute",
			               spec->hidden_paths[n]);
	if (!n)
		return 0;
	j->hidden = calloc(n + 1, sizeof *j->hidden);
	if (!j->hidden)
		return sbx_err(err, ENOMEM, "hidden paths");
	for (size_t i = 0; i < n; i++)
		if (!(j->hidden[i] = strdup(spec->hidden_paths[i])))
			return sbx_err(err, ENOMEM, "hidden paths");
	snprintf(j->mask_file, sizeof j->mask_file, "%s/.toolcage-mask-file", j->tmp_dir);
	snprintf(j->mask_dir, sizeof j->mask_dir, "%s/.toolcage-mask-dir", j->tmp_dir);
	return scan(j, err);
}

int mask_refresh(struct sbx_jail *j, bool again, struct sbx_error *err)
{
	bool changed = again;
	for (int i = 0; i < j->n_watch && !changed; i++)
		changed = watch_changed(&j->watch[i]);
	if (!changed)
		return 0;
	int rc = scan(j, err);
	return rc < 0 ? rc : 1;
}

void mask_release(struct sbx_jail *j)
{
	free_lists(take_lists(j));
	for (char **g = j->hidden; g && *g; g++)
		free(*g);
	free(j->hidden);
	j->hidden = NULL;
}

/* Whether mask i goes on: not where the child shows an overlay of
 * stand-ins over a dir (view.c), under which nothing beneath is seen
 * (a child whose overlay is refused is started again without one). */
static bool mask_wanted(const struct sbx_jail *j, int i)
{
	const char *p = j->masks[i].path;
	size_t skip;
	for (int k = 0; j->ll_view && k < j->n_ll_roots; k++)
		if (path_below(j->ll_roots[k], p, strlen(p), &skip) && p[skip])
			return false;
	return true;
}

int mask_count(const struct sbx_jail *j)
{
	int n = 0;
	for (int i = 0; i < j->n_masks; i++)
		n += mask_wanted(j, i);
	return n;
}

/* Child side, in three steps around the pass that makes every mount
 * read-only (child.c). The empty placeholders are made in the private tmpfs
 * while it is writable (no call shares one); they are bound over every
 * hidden path once the tmpfs is read-only, so the masks are read-only
 * mounts too (not even the placeholders' owner can chmod them), and after
 * the writable paths are in place, so that no mount covers a mask; then
 * they are unlinked. A path gone since the parent looked is -VIEW_MOVED
 * (mask_check); any other failure fails the call. Async-signal-safe. */
int mask_place(const struct sbx_jail *j)
{
	if (!mask_count(j))
		return 0;
	int fd = open(j->mask_file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0 || close(fd) < 0 || mkdir(j->mask_dir, 0) < 0)
		return -errno;
	return 0;
}

int mask_cover(const struct sbx_jail *j)
{
	for (int i = 0; i < j->n_masks; i++) {
		const char *src = j->masks[i].dir ? j->mask_dir : j->mask_file;
		if (mask_wanted(j, i) && mount(src, j->masks[i].path, NULL, MS_BIND, NULL) < 0)
			return errno == ENOENT ? -VIEW_MOVED : -errno;
	}
	return 0;
}

/* Where a view was made (masks, and the rules or a replica of the dirs
 * that hold hidden paths: landlock.c, view.c), whether it was made from the state
 * the globs were matched in. The rules and a replica grant the entries of
 * those dirs under the names they had then, the masks cover the hidden
 * ones by name: a hidden directory the host moved away under a name no
 * glob hides while they were made would be granted whole under that
 * name, its mask skipped as gone, and read once it is back. Any rename
 * in a dir changes its times, and the scan looked at every dir on the way
 * to a hidden path: a change since (or one whose times may not tell,
 * recent) is -VIEW_MOVED, and the view is made again from a new scan
 * (spawn.c); a dir fstat cannot see (ESTALE: its NFS handle went stale)
 * is that error.
 * fstat on the dirs seen, from any mount namespace. Async-signal-safe. */
int mask_check(const struct sbx_jail *j)
{
	for (int i = 0; i < j->n_watch; i++) {
		const struct mask_watch *w = &j->watch[i];
		struct stat st;
		if (w->fd < 0)
			continue;
		if (!w->recent && fstat(w->fd, &st) < 0)
			return -errno;
		if (w->recent || !same_times(w, &st))
			return -VIEW_MOVED;
	}
	return 0;
}

int mask_tidy(const struct sbx_jail *j)
{
	if (mask_count(j) && (unlink(j->mask_file) < 0 || rmdir(j->mask_dir) < 0))
		return -errno;
	return 0;
}
