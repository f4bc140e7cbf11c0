/* protect.c — protected paths: files in a writable tree that the owner's
 * own programs trust later (a repository's .git/config and hooks, an
 * editor's task files, an agent's MCP configuration, .envrc). A tool that
 * could write one would run code outside any jail the next time the owner
 * runs git, opens the editor or enters the directory.
 *
 * Each protected path is relative and applies below every writable root
 * (the workspace, each write path). In the child (mount namespace, before
 * Landlock and seccomp):
 *  - every directory on the way to a protected path (.git for .git/config)
 *    is bound onto itself, writable: a mount point cannot be renamed or
 *    removed, so a tool cannot move .git aside and make a new one;
 *  - every protected path that exists is bound onto itself read-only
 *    (recursively): writing, truncating, chmod, removing, renaming or
 *    hard-linking it fails (EROFS, EBUSY, EXDEV), whatever the tool runs;
 *  - where a file stands in for a directory on the way (.git as a
 *    worktree's "gitdir:" file) that file is made read-only instead.
 * A mount cannot cover a name that does not exist yet, and Landlock has no
 * rule for one name in a directory. So a protected path missing when a
 * call starts is checked when it has ended (every process of it gone):
 * whatever appeared there (or the first new directory on the way) is
 * renamed aside to NAME.toolcage-blocked-N (N random) and the caller is told
 * (sbx_protect_snapshot, sbx_protect_sweep). A symbolic link on the way
 * cannot be bound over: a link made during a call is seen replaced by the
 * sweep; one there before a call that points into a writable root (what
 * it names is as writable as the rest) refuses the call.
 *
 * A pattern ("**" "/" and names, at any depth) is found by a bounded walk
 * of the writable trees before each call (protwalk.c): each match that
 * exists is held as a plain path (read-only; copied where the copy holds
 * them), and after the call the walk again finds the matches that are new
 * or changed, which are moved aside as above. Where a walk met a bound,
 * the call is told where (sbx_protect_incomplete); strict walls refuse the
 * call instead.
 *
 * A spare child bound what existed when it was set up: before each spawn
 * the parent looks again and drops a spare that is out of date
 * (protect_refresh), as mask.c does for hidden paths.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

enum { PROTECT_MAX = 192, PROTECT_DEPTH = 8, PROTECT_NAME_MAX = 255 };
/* The walk's bounds where the profile sets none (docs/config.md). */
enum { PROTECT_WALK_ENTRIES = 200000, PROTECT_WALK_DEPTH = 64 };

struct protect_match_id {
	dev_t dev;
	ino_t ino;
};

/* The identity of one component of a candidate: absent, or (dev, ino,
 * type). */
struct protect_id {
	bool present;
	bool dir;
	bool link;
	dev_t dev;
	ino_t ino;
};

/* ---- parent: the plan ------------------------------------------------- */

/* A relative path of plain names: no leading '/', no "", "." or ".."
 * component, no more than PROTECT_DEPTH components. */
static int check_rel(const char *p)
{
	size_t depth = 0;
	if (!*p || *p == '/' || strlen(p) > PROTECT_NAME_MAX)
		return -1;
	for (const char *c = p; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return -1;
		if (++depth > PROTECT_DEPTH)
			return -1;
		c += n;
		if (*c == '/')
			c++;
		if (!*c && c[-1] == '/')
			return -1;
	}
	return 0;
}

static int push(char ***list, int *n, const char *root, const char *rel, size_t rel_len)
{
	char path[PATH_MAX];
	int len = snprintf(path, sizeof path, "%s/%.*s", root, (int)rel_len, rel);
	if (len < 0 || (size_t)len >= sizeof path)
		return -ENAMETOOLONG;
	for (int i = 0; i < *n; i++)
		if (!strcmp((*list)[i], path))
			return 0;
	char **l = realloc(*list, (size_t)(*n + 2) * sizeof *l);
	if (!l)
		return -ENOMEM;
	*list = l;
	if (!(l[*n] = strdup(path)))
		return -ENOMEM;
	l[++*n] = NULL;
	return 0;
}

/* A pattern: "**" + "/" and names, at any depth (protwalk.c finds its
 * matches). */
static bool is_pattern(const char *p)
{
	return !strncmp(p, "**/", 3);
}

/* The names after "**" "/": plain, at most PROTECT_DEPTH, '*' '?' in the
 * last one only (the configuration says so too). */
static int check_pattern(const char *p)
{
	const char *tail = p + 3, *last = strrchr(tail, '/');
	if (check_rel(tail) < 0)
		return -1;
	for (const char *c = tail; last && c < last; c++)
		if (*c == '*' || *c == '?' || *c == '[' || *c == '\\')
			return -1;
	return 0;
}

int protect_plan(const struct sbx_spec *spec, struct sbx_jail *j, struct sbx_error *err)
{
	size_t n = 0, plain = 0, patterns = 0;
	for (; spec->protected_paths && spec->protected_paths[n]; n++) {
		if (is_pattern(spec->protected_paths[n])) {
			if (check_pattern(spec->protected_paths[n]) < 0)
				return sbx_err(err, EINVAL,
				               "protected pattern \"%s\" must be \"**/\" and "
				               "plain names, at most %d, '*' and '?' in the last "
				               "one only",
				               spec->protected_paths[n], PROTECT_DEPTH);
			patterns++;
			continue;
		}
		plain++;
		if (check_rel(spec->protected_paths[n]) < 0)
			return sbx_err(err, EINVAL,
			               "protected path \"%s\" must be relative, made of "
			               "plain names (no \"\", \".\" or \"..\"), at most %d deep",
			               spec->protected_paths[n], PROTECT_DEPTH);
	}
	if (plain > PROTECT_MAX || patterns > PROTECT_MAX)
		return sbx_err(err, E2BIG, "more than %d protected paths", PROTECT_MAX);
	if ((!plain && !patterns) || !j->rw_paths || !j->rw_paths[0])
		return 0; /* nothing to protect, or nothing writable */
	/* Without a mount namespace, nothing can make them read-only: a copy
	 * put back after each call holds them instead, where the profile
	 * accepts that way (restore.c); else refused rather than let a tool
	 * write them. */
	if (j->no_ns && !(spec->alternatives & SBX_ALT_PROTECT_COPY)) {
		char why[1024];
		explain_no_ns(j, why, sizeof why);
		return sbx_err(err, 0,
		               "profile %s cannot run here: its protected paths need "
		               "a mount namespace, and %s a copy put back after each call: %s",
		               j->name,
		               spec->strict ? "strict walls refuse" : "the profile does not accept",
		               why);
	}
	j->prot_restore = j->no_ns;
	if (!j->no_ns && (!j->private_tmp || (j->optional_ns & CLONE_NEWNS)))
		return sbx_err(err, EPERM,
		               "protected paths need a mount namespace, and profile %s "
		               "%s",
		               j->name, j->private_tmp ? "marks it optional" : "has none");
	for (char **root = j->rw_paths; *root; root++)
		for (size_t i = 0; i < n; i++) {
			const char *rel = spec->protected_paths[i];
			int rc = 0;
			if (is_pattern(rel))
				continue;
			for (const char *s = strchr(rel, '/'); s && !rc; s = strchr(s + 1, '/'))
				rc = push(&j->prot_pins, &j->n_prot_pins, *root, rel,
				          (size_t)(s - rel));
			if (!rc)
				rc = push(&j->prot_ro, &j->n_prot_ro, *root, rel, strlen(rel));
			if (rc)
				return sbx_err(err, -rc, "protected path %s/%s", *root, rel);
		}
	j->n_prot_plain = j->n_prot_ro;
	j->prot_strict = spec->strict;
	j->prot_walk_entries =
	        spec->protect_walk_entries ? spec->protect_walk_entries : PROTECT_WALK_ENTRIES;
	j->prot_walk_depth =
	        spec->protect_walk_depth ? spec->protect_walk_depth : PROTECT_WALK_DEPTH;
	if (j->prot_walk_depth > PROTWALK_DEPTH_MAX)
		j->prot_walk_depth = PROTWALK_DEPTH_MAX;
	if (patterns && !(j->prot_patterns = calloc(patterns + 1, sizeof *j->prot_patterns)))
		return sbx_err(err, ENOMEM, "protected paths");
	for (size_t i = 0, k = 0; patterns && i < n; i++)
		if (is_pattern(spec->protected_paths[i]) &&
		    !(j->prot_patterns[k++] = strdup(spec->protected_paths[i] + 3)))
			return sbx_err(err, ENOMEM, "protected paths");
	j->prot_seen = calloc((size_t)j->n_prot_ro * PROTECT_DEPTH + 1, sizeof *j->prot_seen);
	if (!j->prot_seen)
		return sbx_err(err, ENOMEM, "protected paths");
	protect_refresh(j);
	return 0;
}

void protect_release(struct sbx_jail *j)
{
	for (int i = 0; i < j->n_prot_pins; i++)
		free(j->prot_pins[i]);
	for (int i = 0; i < j->n_prot_ro; i++)
		free(j->prot_ro[i]);
	for (char **p = j->prot_patterns; p && *p; p++)
		free(*p);
	free(j->prot_patterns);
	free(j->prot_match_ids);
	free(j->prot_pins);
	free(j->prot_ro);
	free(j->prot_seen);
	j->prot_patterns = NULL;
	j->prot_match_ids = NULL;
	j->prot_pins = j->prot_ro = NULL;
	j->prot_seen = NULL;
	j->n_prot_pins = j->n_prot_ro = 0;
}

/* The identity of every component of path below its root, into
 * ids[PROTECT_DEPTH], by lstat through each directory: a component after
 * an absent, non-directory or symlink one is absent. */
static void identify(const struct sbx_jail *j, const char *path, struct protect_id *ids)
{
	char buf[PATH_MAX];
	size_t rl = restore_root_len(j, path), k = 0;
	bool stop = false;
	memset(ids, 0, PROTECT_DEPTH * sizeof *ids);
	snprintf(buf, sizeof buf, "%s", path);
	for (size_t i = rl + 1; k < PROTECT_DEPTH; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		char c = buf[i];
		buf[i] = '\0';
		struct stat st;
		if (!stop && lstat(buf, &st) == 0) {
			ids[k] = (struct protect_id){ true, S_ISDIR(st.st_mode),
				                      S_ISLNK(st.st_mode), st.st_dev, st.st_ino };
			stop = !S_ISDIR(st.st_mode);
		} else {
			stop = true;
		}
		buf[i] = c;
		k++;
		if (!c)
			break;
	}
}

static bool same_id(const struct protect_id *a, const struct protect_id *b)
{
	return a->present == b->present &&
	        (!a->present ||
	         (a->dev == b->dev && a->ino == b->ino && a->dir == b->dir && a->link == b->link));
}

int protect_refresh(struct sbx_jail *j)
{
	int changed = j->prot_stale;
	j->prot_stale = false;
	for (int i = 0; i < j->n_prot_ro; i++) {
		struct protect_id now[PROTECT_DEPTH];
		identify(j, j->prot_ro[i], now);
		struct protect_id *seen = j->prot_seen + (size_t)i * PROTECT_DEPTH;
		for (int k = 0; k < PROTECT_DEPTH; k++)
			if (!same_id(&now[k], &seen[k]))
				changed = 1;
		memcpy(seen, now, sizeof now);
	}
	return changed;
}

/* ---- child: the mounts (async-signal-safe) ---------------------------- */

/* Binds path onto itself (read-only when ro), with nothing symbolic on the
 * way. -ENOENT, -ENOTDIR or -ELOOP when it cannot be found so (the caller
 * decides), -errno for a real failure. want_dir: only a directory. */
static int bind_self(const char *path, bool ro, bool want_dir)
{
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		                .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
	if (fd < 0)
		return -errno;
	struct stat st;
	int rc = 0, tree = -1;
	if (fstat(fd, &st) < 0)
		rc = -errno;
	else if (S_ISLNK(st.st_mode))
		rc = -ELOOP;
	else if (want_dir && !S_ISDIR(st.st_mode))
		rc = -ENOTDIR;
	if (!rc &&
	    (tree = (int)syscall(SYS_open_tree, fd, "",
	                         AT_EMPTY_PATH | AT_RECURSIVE | OPEN_TREE_CLONE |
	                                 OPEN_TREE_CLOEXEC)) < 0)
		rc = -errno;
	struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY };
	if (!rc && ro &&
	    syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof a) < 0)
		rc = -errno;
	if (!rc &&
	    syscall(SYS_move_mount, tree, "", fd, "",
	            MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		rc = -errno;
	if (tree >= 0)
		close(tree);
	close(fd);
	return rc;
}

static bool not_there(int rc)
{
	return rc == -ENOENT || rc == -ENOTDIR || rc == -ELOOP;
}

/* A protected path below a non-directory (.git a worktree's "gitdir:"
 * file): that file decides where the real one is, so it is protected. */
static int protect_stand_in(const struct sbx_jail *j, const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);
	if (len >= sizeof buf)
		return 0;
	memcpy(buf, path, len + 1);
	for (size_t i = restore_root_len(j, path) + 1; i < len; i++) {
		if (buf[i] != '/')
			continue;
		buf[i] = '\0';
		struct stat st;
		int rc = 0;
		if (lstat(buf, &st) < 0)
			rc = -errno;
		else if (S_ISREG(st.st_mode))
			rc = bind_self(buf, true, false);
		else if (!S_ISDIR(st.st_mode))
			return 0;
		if (rc < 0 || S_ISREG(st.st_mode))
			return not_there(rc) ? 0 : rc;
		buf[i] = '/';
	}
	return 0;
}

int protect_apply(const struct sbx_jail *j)
{
	for (int i = 0; i < j->n_prot_pins; i++) {
		int rc = bind_self(j->prot_pins[i], false, true);
		if (rc < 0 && !not_there(rc))
			return rc;
	}
	for (int i = 0; i < j->n_prot_ro; i++) {
		int rc = bind_self(j->prot_ro[i], true, false);
		if (rc == -ENOTDIR)
			rc = protect_stand_in(j, j->prot_ro[i]);
		if (rc < 0 && !not_there(rc))
			return rc;
	}
	return 0;
}

/* ---- parent: the patterns' matches ----------------------------------- */

/* The matches found before this call become the held list's tail
 * (prot_ro[n_prot_plain..]; one a plain entry names already is not
 * listed twice). When that list or a match's identity changed, a spare
 * made for the old one is out of date (protect_refresh says so). */
static int hold_matches(struct sbx_jail *j, const struct protwalk *w)
{
	int n = 0;
	bool same = true;
	char **keep = calloc((size_t)w->n + 1, sizeof *keep);
	struct protect_match_id *ids = calloc((size_t)w->n + 1, sizeof *ids);
	if (!keep || !ids) {
		free(keep);
		free(ids);
		return -ENOMEM;
	}
	for (int i = 0; i < w->n; i++) {
		bool plain = false;
		for (int k = 0; k < j->n_prot_plain && !plain; k++)
			plain = !strcmp(j->prot_ro[k], w->m[i].path);
		if (plain)
			continue;
		int at = j->n_prot_plain + n;
		same = same && at < j->n_prot_ro && !strcmp(j->prot_ro[at], w->m[i].path) &&
		        j->prot_match_ids[n].dev == w->m[i].dev &&
		        j->prot_match_ids[n].ino == w->m[i].ino;
		keep[n] = w->m[i].path;
		ids[n++] = (struct protect_match_id){ w->m[i].dev, w->m[i].ino };
	}
	if (same && j->n_prot_plain + n == j->n_prot_ro) {
		free(keep);
		free(ids);
		return 0;
	}
	int total = j->n_prot_plain + n;
	char **ro = calloc((size_t)total + 1, sizeof *ro);
	struct protect_id *seen = calloc((size_t)total * PROTECT_DEPTH + 1, sizeof *seen);
	int rc = ro && seen ? 0 : -ENOMEM;
	for (int i = 0; !rc && i < n; i++)
		if (!(ro[j->n_prot_plain + i] = strdup(keep[i])))
			rc = -ENOMEM;
	if (rc) {
		for (int i = 0; ro && i < n; i++)
			free(ro[j->n_prot_plain + i]);
		free(ro);
		free(seen);
		free(keep);
		free(ids);
		return rc;
	}
	memcpy(ro, j->prot_ro, (size_t)j->n_prot_plain * sizeof *ro);
	memcpy(seen, j->prot_seen, (size_t)j->n_prot_plain * PROTECT_DEPTH * sizeof *seen);
	for (int i = j->n_prot_plain; i < j->n_prot_ro; i++)
		free(j->prot_ro[i]);
	free(j->prot_ro);
	free(j->prot_seen);
	free(j->prot_match_ids);
	free(keep);
	j->prot_ro = ro;
	j->prot_seen = seen;
	j->prot_match_ids = ids;
	j->n_prot_ro = total;
	for (int i = j->n_prot_plain; i < total; i++)
		identify(j, ro[i], seen + (size_t)i * PROTECT_DEPTH);
	j->prot_stale = true;
	return 0;
}

/* ---- parent: after a call --------------------------------------------- */

/* Whether path lies in a writable root (or is one): the tool may make or
 * change what is there. */
static bool in_writable(const struct sbx_jail *j, const char *path)
{
	for (char **r = j->rw_paths; r && *r; r++) {
		char real[PATH_MAX];
		const char *root = realpath(*r, real) ? real : *r;
		size_t n = strlen(root);
		if (!strncmp(path, root, n) && (path[n] == '/' || !path[n]))
			return true;
	}
	return false;
}

/* A symbolic link below its root on the way to a held path (the path
 * itself one too): a mount holds a name, never what a link names, and
 * the mounts are made with no link followed (bind_self), so what the
 * link points to stays as writable as the rest of the tree. Where that
 * lies in a writable root, or cannot be found (the tool could make it),
 * a tool would write the protected file through the link: .git a link to
 * sub/realgit lets it write .git/config and .git/hooks as
 * sub/realgit/config. Says so in why (one line) and returns true; a link
 * that points out of every writable root holds nothing the tool can
 * change (Landlock). */
static bool link_on_the_way(const struct sbx_jail *j, const char *path, char *why, size_t size)
{
	char buf[PATH_MAX];
	size_t rl = restore_root_len(j, path);
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf || !rl)
		return false;
	for (size_t i = rl + 1;; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		char c = buf[i];
		buf[i] = '\0';
		struct stat st;
		if (lstat(buf, &st) < 0 || !(S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)))
			return false; /* absent or a file: the sweep's and stand-in's */
		if (S_ISLNK(st.st_mode)) {
			char real[PATH_MAX];
			bool found = realpath(buf, real) != NULL;
			if (found && !in_writable(j, real))
				return false;
			/* (a path cut short still names the link) */
			return snprintf(
			               why, size,
			               "the protected path %s is reached through the symbolic link %s, "
			               "which points %s%s: tools could write through it what the "
			               "link stands for; replace the link with what it points to",
			               path, buf, found ? "into a writable path, " : "to nothing",
			               found ? real : "") >= 0;
		}
		if (!c)
			return false;
		buf[i] = c;
	}
}

struct sbx_protect_snap {
	struct restore_copy *copy; /* prot_restore: what is put back */
	bool walked;               /* the patterns were looked for */
	struct protwalk before;    /* their matches before the call */
	char *incomplete;          /* where a walk stopped, after the sweep */
	int n;                     /* plain entries */
	struct protect_id ids[];   /* n * PROTECT_DEPTH */
};

int sbx_protect_snapshot(struct sbx_jail *j, bool commands, struct sbx_protect_snap **out,
                         struct sbx_error *err)
{
	*out = NULL;
	if (!j->n_prot_ro && !(commands && j->prot_patterns))
		return 0;
	struct sbx_protect_snap *s =
	        calloc(1, sizeof *s + (size_t)j->n_prot_plain * PROTECT_DEPTH * sizeof s->ids[0]);
	if (!s)
		return sbx_err(err, ENOMEM, "protected paths: out of memory");
	s->n = j->n_prot_plain;
	if (commands && j->prot_patterns) {
		int rc = protwalk_run(j, &s->before);
		if (!rc)
			rc = hold_matches(j, &s->before);
		if (rc < 0) {
			sbx_protect_snap_free(s);
			return sbx_err(err, -rc, "protected paths: out of memory");
		}
		s->walked = true;
		if (s->before.stopped[0] && j->prot_strict) {
			sbx_err(err, EPERM,
			        "profile %s cannot run this call (strict walls): the protected "
			        "patterns were not all looked for in its writable paths: %s",
			        j->name, s->before.stopped);
			sbx_protect_snap_free(s);
			return -EPERM;
		}
	}
	for (int i = 0; i < j->n_prot_ro; i++) {
		char why[1200];
		if (link_on_the_way(j, j->prot_ro[i], why, sizeof why)) {
			sbx_err(err, EPERM, "profile %s cannot run this call: %s", j->name, why);
			sbx_protect_snap_free(s);
			return -EPERM;
		}
	}
	for (int i = 0; i < s->n; i++)
		identify(j, j->prot_ro[i], s->ids + (size_t)i * PROTECT_DEPTH);
	if (j->prot_restore) {
		char why[sizeof err->msg - 64] = "";
		int rc = restore_take(j, (const char *const *)j->prot_ro, j->n_prot_ro, &s->copy,
		                      why, sizeof why);
		if (rc < 0) {
			sbx_protect_snap_free(s);
			return sbx_err(err, -rc, "profile %s cannot run this call: %s", j->name,
			               why);
		}
	}
	*out = s;
	return 0;
}

void sbx_protect_snap_free(struct sbx_protect_snap *s)
{
	if (!s)
		return;
	restore_free(s->copy);
	protwalk_release(&s->before);
	free(s->incomplete);
	free(s);
}

const char *sbx_protect_incomplete(const struct sbx_protect_snap *s)
{
	return s ? s->incomplete : NULL;
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* The patterns' matches now: each that is new (no match had its inode
 * before, or the path held another) or changed (a ctime other than the
 * one the walk before the call saw: no tool can set it back) is moved
 * aside. Not "a ctime at or after the call's start": the coarse clock
 * ctimes keep ticks every 4-10 ms, and the owner's own `git config`
 * just before the call fell in the same tick. Where the copy held the
 * old ones, it has put them back already. */
static void sweep_patterns(const struct sbx_jail *j, struct sbx_protect_snap *s, char *report,
                           size_t size)
{
	struct protwalk after;
	char text[2 * sizeof after.stopped + 64] = "";
	if (protwalk_run(j, &after) < 0)
		snprintf(after.stopped, sizeof after.stopped,
		         "out of memory: the patterns were not looked for after the call");
	for (int i = 0; i < after.n; i++) {
		const struct protwalk_match *m = &after.m[i];
		const struct protwalk_match *was = protwalk_find(&s->before, m->path);
		if (was &&
		    (s->copy ||
		     (was->dev == m->dev && was->ino == m->ino &&
		      same_time(&was->ctime, &m->ctime))))
			continue;
		restore_move_aside(m->path, restore_root_len(j, m->path), report, size);
	}
	if (s->before.stopped[0])
		snprintf(text, sizeof text, "before the call: %s", s->before.stopped);
	if (after.stopped[0])
		snprintf(text + strlen(text), sizeof text - strlen(text), "%safter it: %s",
		         text[0] ? "; " : "", after.stopped);
	protwalk_release(&after);
	if (!text[0])
		return;
	s->incomplete = strdup(text);
	/* Strict walls: a sweep that did not look everywhere fails the call. */
	if (j->prot_strict)
		snprintf(report + strlen(report), size - strlen(report),
		         "%sthe protected patterns were not all looked for (%s)",
		         report[0] ? "; " : "", text);
}

char *sbx_protect_sweep(const struct sbx_jail *j, struct sbx_protect_snap *s)
{
	if (!s)
		return NULL;
	size_t size = 8192;
	char *report = calloc(1, size);
	if (!report)
		return NULL;
	/* Without a mount namespace the call could change what existed: the
	 * copy goes back first (and a directory on the way comes back, so it
	 * is not new below). Then, as with one, what appeared is moved. */
	if (s->copy)
		restore_put_back(j, s->copy, report, size);
	if (j->group_unsure)
		snprintf(report + strlen(report), size - strlen(report),
		         "%sa process of the "
		         "call could not be seen to end: it may write them again",
		         report[0] ? "; " : "");
	for (int i = 0; i < s->n && i < j->n_prot_plain; i++) {
		const struct protect_id *was = s->ids + (size_t)i * PROTECT_DEPTH;
		struct protect_id now[PROTECT_DEPTH];
		identify(j, j->prot_ro[i], now);
		const char *path = j->prot_ro[i];
		size_t rl = restore_root_len(j, path);
		/* The first component that is new (or another file than
		 * before): everything below it is the tool's. */
		size_t end = rl;
		for (int k = 0; k < PROTECT_DEPTH; k++) {
			end = strcspn(path + end + 1, "/") + end + 1;
			if (!now[k].present)
				break;
			/* With the copy, what existed is put back already (a
			 * directory made anew where the original was lost is
			 * not the tool's): only what appeared is moved. */
			if (s->copy ? !was[k].present : !same_id(&was[k], &now[k])) {
				char part[PATH_MAX];
				snprintf(part, sizeof part, "%.*s", (int)end, path);
				restore_move_aside(part, rl, report, size);
				break;
			}
			if (!path[end])
				break;
		}
	}
	if (s->walked)
		sweep_patterns(j, s, report, size);
	if (!report[0]) {
		free(report);
		return NULL;
	}
	return report;
}
