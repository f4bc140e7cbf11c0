/* trust.c — nothing the supervisor trusts may be writable by a tool (see
 * trust.h).
 *
 * A path is resolved the way the kernel will resolve it when the
 * supervisor opens it: component by component, each symlink read and
 * followed, ".." taken on the resolved directory. Every directory an entry
 * is looked up in is recorded, and the final path: a tool that can write
 * any of them can replace what the supervisor reads (the file itself, or a
 * symlink or directory on the way to it). Then none of them may be, or lie
 * beneath, a directory tools may write: by its path, or by its place in
 * its filesystem, since a bind mount shows a directory at a second path
 * (a container's volume at /workspaces and at the host's path) that no
 * spelling of the first reveals. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "pathrel.h"
#include "profile.h"
#include "trust.h"
#include "util.h"

enum { TRUST_HOPS_MAX = 40, TRUST_ENTRIES_MAX = 4096 };

struct trusted {
	char *what;  /* "the configuration" */
	char *path;  /* as given */
	char **dirs; /* canonical: the directories looked up in, the final path last */
	size_t ndirs;
};

struct writable {
	char *dir;  /* canonical */
	char *what; /* "the workspace" */
};

struct mount {
	dev_t dev;
	char *root, *point; /* the filesystem's directory mounted, and where */
};

struct trust {
	struct writable *w;
	size_t nw;
	struct trusted *t;
	size_t nt;
	struct mount *mounts; /* /proc/self/mountinfo, read when first needed */
	size_t nmounts;
	bool mounts_read;
};

struct trust *trust_new(void)
{
	return calloc(1, sizeof(struct trust));
}

static void trusted_release(struct trusted *x)
{
	for (size_t i = 0; i < x->ndirs; i++)
		free(x->dirs[i]);
	free(x->dirs);
	free(x->what);
	free(x->path);
}

void trust_free(struct trust *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nw; i++) {
		free(t->w[i].dir);
		free(t->w[i].what);
	}
	for (size_t i = 0; i < t->nt; i++)
		trusted_release(&t->t[i]);
	for (size_t i = 0; i < t->nmounts; i++) {
		free(t->mounts[i].root);
		free(t->mounts[i].point);
	}
	free(t->mounts);
	free(t->w);
	free(t->t);
	free(t);
}

/* Whether path is dir or lies beneath it (both canonical). */
static bool beneath(const char *path, const char *dir)
{
	size_t skip;
	return path_below(dir, path, strlen(path), &skip);
}

/* Where a canonical path lies in its filesystem: the device of the mount
 * it is on (the longest mount point above it, the last listed of equal
 * ones, which is on top) and its path from that filesystem's root. */
struct fsloc {
	dev_t dev;
	char path[PATH_MAX];
};

/* A mountinfo field with its octal escapes (\040) decoded, in place. */
static char *mount_field(char *s)
{
	char *o = s;
	for (char *i = s; *i; i++) {
		if (i[0] == '\\' && i[1] >= '0' && i[1] <= '3' && i[2] >= '0' && i[2] <= '7' &&
		    i[3] >= '0' && i[3] <= '7') {
			*o++ = (char)((i[1] - '0') * 64 + (i[2] - '0') * 8 + (i[3] - '0'));
			i += 3;
		} else {
			*o++ = *i;
		}
	}
	*o = '\0';
	return s;
}

static bool beneath(const char *path, const char *dir);

/* /proc/self/mountinfo, read once per trust (NULL entries: unreadable). */
static void mounts_load(struct trust *t)
{
	if (t->mounts_read)
		return;
	t->mounts_read = true;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0 && t->nmounts < TRUST_ENTRIES_MAX) {
		char *save = NULL, *fld[5];
		int n = 0;
		for (char *s = strtok_r(line, " ", &save); s && n < 5;
		     s = strtok_r(NULL, " ", &save))
			fld[n++] = s;
		if (n < 5)
			continue;
		char *colon, *end; /* MAJOR:MINOR, both decimal */
		errno = 0;
		unsigned long maj = strtoul(fld[2], &colon, 10);
		if (colon == fld[2] || *colon != ':')
			continue;
		unsigned long min = strtoul(colon + 1, &end, 10);
		if (end == colon + 1 || *end || errno || maj > UINT_MAX || min > UINT_MAX)
			continue;
		struct mount *m = realloc(t->mounts, (t->nmounts + 1) * sizeof *m);
		if (!m)
			break;
		t->mounts = m;
		m[t->nmounts] = (struct mount){ makedev(maj, min), strdup(mount_field(fld[3])),
			                        strdup(mount_field(fld[4])) };
		if (!m[t->nmounts].root || !m[t->nmounts].point) {
			free(m[t->nmounts].root);
			free(m[t->nmounts].point);
			break;
		}
		t->nmounts++;
	}
	free(line);
	fclose(f);
}

/* 0 with *out, or -1 when no mount is known above path. */
static int fs_locate(const struct trust *t, const char *path, struct fsloc *out)
{
	size_t best = 0;
	bool found = false;
	for (size_t i = 0; i < t->nmounts; i++) {
		const struct mount *m = &t->mounts[i];
		size_t ml = strlen(m->point);
		if (!beneath(path, m->point) || ml < best)
			continue;
		const char *rest = path + (ml == 1 ? 0 : ml);
		bool root = !strcmp(m->root, "/");
		if (snprintf(out->path, sizeof out->path, "%s%s", root ? "" : m->root,
		             *rest ? rest : (root ? "/" : "")) >= (int)sizeof out->path)
			continue;
		out->dev = m->dev;
		best = ml;
		found = true;
	}
	return found ? 0 : -1;
}

/* Whether canonical path lies beneath the canonical directory dir in the
 * same filesystem, through any mount of it. */
static bool beneath_mounted(struct trust *t, const char *path, const char *dir)
{
	mounts_load(t);
	struct fsloc *a = malloc(sizeof *a), *b = malloc(sizeof *b);
	bool yes = a && b && !fs_locate(t, path, a) && !fs_locate(t, dir, b) && a->dev == b->dev &&
	        beneath(a->path, b->path);
	free(a);
	free(b);
	return yes;
}

static int add_dir(struct trusted *x, const char *dir)
{
	if (x->ndirs && !strcmp(x->dirs[x->ndirs - 1], dir))
		return 0;
	if (x->ndirs >= TRUST_ENTRIES_MAX)
		return -E2BIG;
	char **d = realloc(x->dirs, (x->ndirs + 1) * sizeof *d);
	if (!d)
		return -ENOMEM;
	x->dirs = d;
	if (!(d[x->ndirs] = strdup(dir)))
		return -ENOMEM;
	x->ndirs++;
	return 0;
}

/* cur (canonical, not "/") to its parent. */
static void up(char *cur)
{
	char *slash = strrchr(cur, '/');
	if (slash == cur)
		cur[1] = '\0';
	else if (slash)
		*slash = '\0';
}

/* Resolves path as the kernel would, recording into x every directory an
 * entry is looked up in and then the final path (or the first missing
 * one). 0, or -errno. */
static int resolve(const char *path, struct trusted *x)
{
	char cur[PATH_MAX], next[PATH_MAX], target[PATH_MAX];
	struct buf rest = BUF_INIT;
	int rc = 0, hops = 0;
	size_t pos = 0;
	if (path[0] == '/')
		strcpy(cur, "/");
	else if (!realpath(".", cur))
		return -errno;
	if (buf_adds(&rest, path) < 0)
		return -ENOMEM;
	for (;;) {
		const char *r = rest.data + pos;
		while (*r == '/')
			r++;
		if (!*r)
			break;
		size_t clen = strcspn(r, "/");
		pos = (size_t)(r - rest.data) + clen;
		if (clen == 1 && r[0] == '.')
			continue;
		if (clen == 2 && r[0] == '.' && r[1] == '.') {
			up(cur);
			continue;
		}
		if ((rc = add_dir(x, cur)) < 0)
			goto out;
		size_t cl = strlen(cur);
		if (cl + 1 + clen >= sizeof next) {
			rc = -ENAMETOOLONG;
			goto out;
		}
		memcpy(next, cur, cl);
		size_t o = cl;
		if (cl > 1)
			next[o++] = '/';
		memcpy(next + o, r, clen);
		next[o + clen] = '\0';
		struct stat st;
		if (lstat(next, &st) < 0) {
			rc = errno == ENOENT ? 0 : -errno;
			if (!rc) /* made later, in cur: recorded above */
				rc = add_dir(x, next);
			goto out;
		}
		if (!S_ISLNK(st.st_mode)) {
			memcpy(cur, next, strlen(next) + 1);
			continue;
		}
		ssize_t n = readlink(next, target, sizeof target - 1);
		if (n < 0 || ++hops > TRUST_HOPS_MAX) {
			rc = n < 0 ? -errno : -ELOOP;
			goto out;
		}
		struct buf nr = BUF_INIT;
		if (buf_add(&nr, target, (size_t)n) < 0 || buf_adds(&nr, "/") < 0 ||
		    buf_adds(&nr, rest.data + pos) < 0) {
			buf_release(&nr);
			rc = -ENOMEM;
			goto out;
		}
		buf_release(&rest);
		rest = nr;
		pos = 0;
		if (target[0] == '/')
			strcpy(cur, "/");
	}
	rc = add_dir(x, cur);
out:
	buf_release(&rest);
	return rc;
}

static const char generic_hint[] =
        "Keep what toolcage trusts (its configuration, profiles, "
        "tool manifests, the approver program, the audit log) outside the workspace and every "
        "profile's write paths.";

/* The refusal of x because entry i lies beneath writable w. */
static int refuse(const struct trusted *x, size_t i, const struct writable *w, const char *hint,
                  struct tc_error *err)
{
	const char *e = x->dirs[i];
	bool same = !strcmp(e, w->dir);
	hint = hint ? hint : generic_hint;
	return tc_error_set(err, TC_E_INVALID, x->path,
	                    "%s is refused: %s %s, %s%s%s%s, which "
	                    "tools can write, so a tool could %s. %s",
	                    x->what,
	                    i + 1 == x->ndirs         ? "it is" :
	                            i + 2 == x->ndirs ? "it is in" :
	                                                "it is reached through",
	                    e, same ? "" : "inside ", w->what, same ? "" : " ", same ? "" : w->dir,
	                    i + 1 == x->ndirs ? "have written it" : "replace it", hint);
}

int trust_add_writable(struct trust *t, const char *dir, const char *what, struct tc_error *err)
{
	char *canon = realpath(dir, NULL);
	if (!canon) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0; /* grants nothing */
		return tc_error_set(err, TC_E_SYSTEM, dir, "%s %s: %s", what, dir, strerror(errno));
	}
	struct writable w = { canon, strdup(what) };
	if (!w.what) {
		free(canon);
		return tc_error_set(err, TC_E_NOMEM, dir, "out of memory");
	}
	for (size_t i = 0; i < t->nt; i++)
		for (size_t k = 0; k < t->t[i].ndirs; k++)
			if (beneath(t->t[i].dirs[k], canon) ||
			    beneath_mounted(t, t->t[i].dirs[k], canon)) {
				refuse(&t->t[i], k, &w, NULL, err);
				free(w.dir);
				free(w.what);
				return -1;
			}
	struct writable *nw = realloc(t->w, (t->nw + 1) * sizeof *nw);
	if (!nw) {
		free(w.dir);
		free(w.what);
		return tc_error_set(err, TC_E_NOMEM, dir, "out of memory");
	}
	t->w = nw;
	t->w[t->nw++] = w;
	return 0;
}

int trust_add_trusted(struct trust *t, const char *path, const char *what, const char *hint,
                      struct tc_error *err)
{
	struct trusted x = { strdup(what), strdup(path), NULL, 0 };
	if (!x.what || !x.path) {
		trusted_release(&x);
		return tc_error_set(err, TC_E_NOMEM, path, "out of memory");
	}
	int rc = resolve(path, &x);
	if (rc < 0) {
		trusted_release(&x);
		return tc_error_set(err, rc == -ENOMEM ? TC_E_NOMEM : TC_E_SYSTEM, path,
		                    "%s %s cannot be checked: %s", what, path, strerror(-rc));
	}
	for (size_t k = 0; k < x.ndirs; k++)
		for (size_t i = 0; i < t->nw; i++)
			if (beneath(x.dirs[k], t->w[i].dir) ||
			    beneath_mounted(t, x.dirs[k], t->w[i].dir)) {
				refuse(&x, k, &t->w[i], hint, err);
				trusted_release(&x);
				return -1;
			}
	/* What every local user may write: the file, or a directory on the
	 * way where anyone may replace an entry (not sticky: in /tmp only an
	 * entry's owner may), which any account, or another sandbox's tool
	 * running as nobody, could have written as well as a tool here. */
	for (size_t k = 0; k < x.ndirs; k++) {
		struct stat ds;
		struct statvfs vs;
		if (stat(x.dirs[k], &ds) < 0 || !(ds.st_mode & S_IWOTH) ||
		    (S_ISDIR(ds.st_mode) && (ds.st_mode & S_ISVTX)) ||
		    !(S_ISDIR(ds.st_mode) || S_ISREG(ds.st_mode)))
			continue; /* a device (an audit log on /dev/full) is no file to plant */
		/* Nobody writes a read-only mount, whatever its modes say (a
		 * Kubernetes configMap volume's directory is mode 0777). */
		if (statvfs(x.dirs[k], &vs) == 0 && (vs.f_flag & ST_RDONLY))
			continue;
		bool file = S_ISREG(ds.st_mode);
		rc = tc_error_set(err, TC_E_INVALID, path,
		                  "%s is refused: %s %s is writable by every user (mode %04o), so "
		                  "anyone could %s. Make it writable by its owner alone "
		                  "(chmod o-w %s).",
		                  what, file ? "the file" : "the directory", x.dirs[k],
		                  (unsigned)(ds.st_mode & 07777),
		                  file ? "have written it" : "replace what is in it", x.dirs[k]);
		trusted_release(&x);
		return rc;
	}
	/* A second name of the file could be anywhere, the workspace too,
	 * where a tool would change it through that name. */
	struct stat st;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1) {
		trusted_release(&x);
		return tc_error_set(err, TC_E_INVALID, path,
		                    "%s is refused: it has %ju hard links, "
		                    "and a tool could change it through one in a place it can "
		                    "write. Keep a file of its own there (cp, not ln).",
		                    what, (uintmax_t)st.st_nlink);
	}
	struct trusted *nt = realloc(t->t, (t->nt + 1) * sizeof *nt);
	if (!nt) {
		trusted_release(&x);
		return tc_error_set(err, TC_E_NOMEM, path, "out of memory");
	}
	t->t = nt;
	t->t[t->nt++] = x;
	return 0;
}

int trust_add_profile(struct trust *t, const struct profile *p, struct tc_error *err)
{
	if (p->file && trust_add_trusted(t, p->file, "the profile", NULL, err) < 0)
		return -1;
	char what[160];
	snprintf(what, sizeof what, "a write path of the profile %s",
	         p->spec.name ? p->spec.name : "?");
	for (const char *const *w = p->spec.write_paths; w && *w; w++)
		if (trust_add_writable(t, *w, what, err) < 0)
			return -1;
	return 0;
}
