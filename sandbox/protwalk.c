/* protwalk.c — protected patterns ("**" "/" and names: a nested
 * repository's hooks and config, a .envrc or a bare repository's HEAD at
 * any depth) found in the writable trees. A mount needs a path that
 * exists, so before a call the matches that exist are found and held as
 * the plain protected paths are (protect.c binds them read-only); after
 * it, the same walk finds what is new (an inode no match had before) or
 * changed (a ctime other than before, which no tool can set back), and
 * protect.c moves it aside.
 *
 * The walk is bounded (entries looked at, directories deep, matches kept)
 * and never silent about a bound: where it stopped is kept for the
 * caller. It follows no symbolic link, never descends into a match (a
 * match is held or moved whole), and inside a directory named as the
 * first of a pattern's names (".git" for "**" "/.git/hooks") looks only at
 * the names the patterns spell through it: the rest there (objects,
 * refs, a HEAD, logs) is that program's own data, written by it at every
 * commit. A file or link under such a name (a "gitdir:" file) is a match
 * itself: it says where the repository is. A directory the tool made unreadable (chmod 000, as the same
 * user) gets its owner's read permission back for the look, and its mode
 * after. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* A pattern's names, taken apart once per walk. */
struct pat {
	const char *s;    /* "a/b/last" */
	int m;            /* names */
	const char *last; /* the last name, NUL-terminated */
	size_t last_len;
	bool wild; /* '*' or '?' in it */
};

struct walk {
	const struct sbx_jail *j;
	struct pat pat[PROTWALK_PATTERNS];
	int n_pat;
	struct protwalk *out;
	unsigned entries, max_entries, max_depth;
	char path[PATH_MAX];
	size_t off[PROTWALK_DEPTH_MAX + 1]; /* where each name below the root starts */
	size_t len[PROTWALK_DEPTH_MAX + 1];
	int oom;
};

/* The first place a bound was met (what, then where), kept. */
static void stopped(struct walk *w, const char *what, const char *path)
{
	if (!w->out->stopped[0])
		snprintf(w->out->stopped, sizeof w->out->stopped, "%s %s", what, path);
}

/* The bound on entries met in the directory w->path: said with the bound
 * (its own frame: walk_dir recurses, and keeps no path-sized buffer). */
static void stopped_entries(struct walk *w)
{
	if (!w->out->stopped[0])
		snprintf(w->out->stopped, sizeof w->out->stopped,
		         "the bound on entries (%u) was met in %s", w->max_entries, w->path);
}

/* Whether name k of the path is the name n bytes at c. */
static bool name_is(const struct walk *w, int k, const char *c, size_t n)
{
	return w->len[k] == n && !memcmp(w->path + w->off[k], c, n);
}

/* Whether the path's last name (at depth d, NUL-terminated) is p's last. */
static bool last_is(const struct walk *w, const struct pat *p, int d)
{
	const char *name = w->path + w->off[d];
	return p->wild ? fnmatch(p->last, name, 0) == 0 : name_is(w, d, p->last, p->last_len);
}

/* Whether names from..to of the path are p's first to-from+1 names (the
 * last of them, when it is p's last, as a glob). */
static bool names_are(const struct walk *w, const struct pat *p, int from, int to)
{
	const char *c = p->s;
	for (int k = from; k <= to; k++) {
		size_t n = strcspn(c, "/");
		if (!c[n])
			return k == to && last_is(w, p, k);
		if (!name_is(w, k, c, n))
			return false;
		c += n + 1;
	}
	return true;
}

/* The entry at depth d (names 0..d) matches a pattern: its last names are
 * the pattern's. Its own name is tried first: most entries fail there. */
static bool is_match(const struct walk *w, int d)
{
	for (const struct pat *p = w->pat; p < w->pat + w->n_pat; p++)
		if (d + 1 >= p->m && last_is(w, p, d) &&
		    (p->m == 1 || names_are(w, p, d - p->m + 1, d - 1)))
			return true;
	return false;
}

/* Inside a container (names cont..d): whether they are a beginning of a
 * pattern's names, so the walk looks there. */
static bool on_a_pattern(const struct walk *w, int cont, int d)
{
	for (const struct pat *p = w->pat; p < w->pat + w->n_pat; p++)
		if (p->m > d - cont && names_are(w, p, cont, d))
			return true;
	return false;
}

/* A directory named as the first of several names of a pattern (.git). */
static bool is_container(const struct walk *w, int d)
{
	for (const struct pat *p = w->pat; p < w->pat + w->n_pat; p++)
		if (p->m > 1 && name_is(w, d, p->s, strcspn(p->s, "/")))
			return true;
	return false;
}

static void keep(struct walk *w, int dfd, const char *name)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return; /* gone since readdir */
	if (w->out->n >= PROTWALK_MATCHES) {
		stopped(w, "more than " PROTWALK_MATCHES_TEXT " matches, the next at", w->path);
		return;
	}
	char *path = strdup(w->path);
	if (!path) {
		w->oom = 1;
		return;
	}
	w->out->m[w->out->n++] = (struct protwalk_match){
		.path = path, .dev = st.st_dev, .ino = st.st_ino, .ctime = st.st_ctim
	};
}

/* Opens name in dfd as a directory to read; one the tool made unreadable
 * (its owner's: ours) is given u+rx for the look (*held then the
 * directory, to give its mode back: the look's change, failing that,
 * leaves it no more readable than the tool can make it itself). */
static int open_dir(int dfd, const char *name, int *held, mode_t *mode)
{
	*held = -1;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 || errno != EACCES)
		return fd;
	fd = open_dir_unreadable(dfd, name, S_IRUSR | S_IXUSR, held, mode);
	if (fd < 0)
		errno = -fd;
	return fd < 0 ? -1 : fd;
}

/* Walks the directory open as fd (consumed) whose path is w->path (its
 * last name at depth d - 1); cont: the depth of the container the walk is
 * in, or -1. */
static void walk_dir(struct walk *w, int fd, size_t plen, int d, int cont)
{
	DIR *dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		w->oom = 1;
		return;
	}
	for (struct dirent *e; !w->oom && (e = readdir(dir));) {
		const char *name = e->d_name;
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		size_t n = strlen(name);
		if (++w->entries > w->max_entries) {
			w->path[plen] = '\0';
			stopped_entries(w);
			break;
		}
		if (plen + 1 + n >= sizeof w->path) {
			stopped(w, "a path too long to follow below", w->path);
			continue;
		}
		w->path[plen] = '/';
		memcpy(w->path + plen + 1, name, n + 1);
		w->off[d] = plen + 1;
		w->len[d] = n;
		if (cont >= 0 && !on_a_pattern(w, cont, d))
			continue;
		if (is_match(w, d)) {
			keep(w, dirfd(dir), name);
			continue;
		}
		unsigned char t = e->d_type;
		if (t == DT_UNKNOWN) {
			struct stat st;
			if (fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) == 0)
				t = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
		}
		/* A file or link where a pattern's first name stands (.git as a
		 * "gitdir:" file, or a link): git follows it to a repository it
		 * names, wherever that is, and runs its config and hooks. So it
		 * is held and swept as a match, as protect.c holds a plain
		 * path's stand-in: else a tool could point sub/.git at a layout
		 * it built where the walk does not look (inside .git). */
		if (t != DT_DIR && cont < 0 && is_container(w, d)) {
			keep(w, dirfd(dir), name);
			continue;
		}
		if (t != DT_DIR)
			continue;
		if ((unsigned)d + 1 >= w->max_depth) {
			stopped(w, "a directory deeper than the bound was not entered:", w->path);
			continue;
		}
		mode_t mode = 0;
		int held;
		int sub = open_dir(dirfd(dir), name, &held, &mode);
		if (sub < 0) {
			if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
				stopped(w, "a directory could not be read:", w->path);
			continue;
		}
		int c = cont >= 0 ? cont : is_container(w, d) ? d : -1;
		walk_dir(w, sub, plen + 1 + n, d + 1, c);
		if (held >= 0) {
			(void)fd_chmod(held, mode);
			close(held);
		}
		if (w->entries > w->max_entries)
			break;
	}
	closedir(dir);
}

int protwalk_run(const struct sbx_jail *j, struct protwalk *out)
{
	memset(out, 0, sizeof *out);
	if (!j->prot_patterns || !j->prot_patterns[0])
		return 0;
	out->m = calloc(PROTWALK_MATCHES, sizeof *out->m);
	if (!out->m)
		return -ENOMEM;
	struct walk *w = calloc(1, sizeof *w);
	if (!w) {
		protwalk_release(out);
		return -ENOMEM;
	}
	w->j = j;
	w->out = out;
	for (char **p = j->prot_patterns; *p && w->n_pat < PROTWALK_PATTERNS; p++) {
		struct pat *pt = &w->pat[w->n_pat++];
		const char *slash = strrchr(*p, '/');
		pt->s = *p;
		pt->last = slash ? slash + 1 : *p;
		pt->last_len = strlen(pt->last);
		pt->wild = strpbrk(pt->last, "*?") != NULL;
		pt->m = 1;
		for (const char *c = *p; *c; c++)
			pt->m += *c == '/';
	}
	w->max_entries = j->prot_walk_entries;
	w->max_depth = j->prot_walk_depth;
	for (char **r = j->rw_paths; r && *r && !w->oom && w->entries <= w->max_entries; r++) {
		/* A writable path inside another is walked with it. */
		bool inner = false;
		for (char **o = j->rw_paths; *o && !inner; o++) {
			size_t n = strlen(*o);
			inner = o != r && !strncmp(*r, *o, n) && (*r)[n] == '/';
		}
		if (inner)
			continue;
		size_t plen = strlen(*r);
		if (plen >= sizeof w->path)
			continue;
		memcpy(w->path, *r, plen + 1);
		int fd = open(*r, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			if (errno != ENOENT)
				stopped(w, "a writable path could not be read:", w->path);
			continue;
		}
		walk_dir(w, fd, plen, 0, -1);
	}
	int rc = w->oom ? -ENOMEM : 0;
	free(w);
	if (rc)
		protwalk_release(out);
	return rc;
}

void protwalk_release(struct protwalk *pw)
{
	for (int i = 0; pw->m && i < pw->n; i++)
		free(pw->m[i].path);
	free(pw->m);
	pw->m = NULL;
	pw->n = 0;
}

const struct protwalk_match *protwalk_find(const struct protwalk *pw, const char *path)
{
	for (int i = 0; i < pw->n; i++)
		if (!strcmp(pw->m[i].path, path))
			return &pw->m[i];
	return NULL;
}
