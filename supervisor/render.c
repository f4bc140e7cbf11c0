/* render.c — the render stage: UTF-8 and control repair, the head/tail cut in code
 * points with its marker, and the per-session spill directory (see
 * render.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render.h"
#include "sandbox.h"
#include "utf8.h"
#include "util.h"
#include "io.h"

struct render_spill {
	char *dir;
	int parentfd; /* the spill directory, as opened by spill_open */
	int dirfd;    /* the session's directory in it */
	char *name;   /* the session directory's name in parentfd */
	uint64_t max_bytes;
	uint64_t used;
	unsigned next; /* sequence number of the next file */
	char **files;  /* names (not paths) this spill wrote */
	size_t nfiles;
};

/* Whether the directory at fd (its path so far in at[0..n)), on the way
 * to the spill directory, could be changed by someone else: then a link
 * or another directory could be put in place of what comes after it.
 * Owned by toolcage's user or root, and writable by no one else unless
 * sticky (as /tmp is: there others cannot rename or remove what is
 * ours). 0, or -1 with err. */
static int spill_check_way(int fd, const char *at, size_t n, bool last, struct tc_error *err)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return tc_error_set(err, TC_E_SYSTEM, at, "cannot stat %.*s: %s", (int)n, at,
		                    strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return tc_error_set(err, TC_E_SYSTEM, at,
		                    "%.*s on the way to the spill directory is not a directory (a "
		                    "symbolic link is not followed)",
		                    (int)n, at);
	if (last) {
		/* The spill directory itself: toolcage's own, and no one else's
		 * to write in, sticky or not. */
		if (st.st_uid != geteuid() || (st.st_mode & 022))
			return tc_error_set(
			        err, TC_E_INVALID, at,
			        "the spill directory must be owned by toolcage's user and "
			        "writable by no one else (chmod go-w)");
		return 0;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0)
		return tc_error_set(
		        err, TC_E_INVALID, at,
		        "the spill directory's path goes through %.*s, which belongs to "
		        "another user (uid %u), who could put a link in its place: "
		        "choose a spill directory below toolcage's user's or root's "
		        "directories only",
		        (int)n, at, (unsigned)st.st_uid);
	if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
		return tc_error_set(
		        err, TC_E_INVALID, at,
		        "the spill directory's path goes through %.*s, which others may "
		        "write to (mode %03o, not sticky), so they could put a link in "
		        "its place: chmod go-w it, or choose another spill directory",
		        (int)n, at, (unsigned)(st.st_mode & 07777));
	return 0;
}

/* Opens the spill directory path (O_PATH) from "/" one component at a
 * time, none followed if it is a symbolic link (O_NOFOLLOW on each, where
 * openat with O_NOFOLLOW alone refuses the last component only), each
 * checked by spill_check_way, and the last one made 0700 when it is
 * missing. A tool that can write somewhere on the way (the workspace)
 * could otherwise swap a directory for a link between the check and the
 * use and have the supervisor write its spill files where it chose. A
 * relative path is taken from the working directory's real path. The fd,
 * or -1 with err. */
static int spill_open(const char *path, struct tc_error *err)
{
	struct buf abs = BUF_INIT;
	if (path[0] != '/') {
		char *cwd = getcwd(NULL, 0);
		if (!cwd)
			return tc_error_set(err, TC_E_SYSTEM, path,
			                    "cannot find the working directory: %s",
			                    strerror(errno));
		buf_printf(&abs, "%s/%s", cwd, path);
		free(cwd);
	} else {
		buf_adds(&abs, path);
	}
	if (abs.failed)
		return tc_error_set(err, TC_E_NOMEM, path, "out of memory");
	char *p = abs.data;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int rc = fd < 0 ?
	        tc_error_set(err, TC_E_SYSTEM, "/", "cannot open /: %s", strerror(errno)) :
	        spill_check_way(fd, "/", 1, false, err);
	size_t i = 0;
	while (rc == 0) {
		while (p[i] == '/')
			i++;
		if (!p[i])
			break;
		size_t start = i;
		while (p[i] && p[i] != '/')
			i++;
		char save = p[i];
		p[i] = '\0';
		const char *comp = p + start;
		size_t more = i;
		while (save == '/' && p[more + 1] == '/')
			more++;
		bool last = save == '\0' || p[more + 1] == '\0';
		if (!strcmp(comp, "..")) {
			rc = tc_error_set(err, TC_E_INVALID, path,
			                  "the spill directory's path must not go up with '..'");
		} else if (strcmp(comp, ".") || last) {
			int nfd = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			/* 0700: spilled output may hold anything a tool read; other
			 * users of the machine must not see it. One level only. */
			bool refused = false; /* mkdirat failed */
			if (nfd < 0 && errno == ENOENT && last) {
				refused = mkdirat(fd, comp, 0700) < 0 && errno != EEXIST;
				if (!refused)
					nfd = openat(fd, comp,
					             O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			}
			if (nfd < 0) {
				int e = errno;
				rc = tc_error_set(
				        err, TC_E_SYSTEM, path,
				        e == ELOOP || e == ENOTDIR ?
				                "%s on the way to the spill directory is not a directory "
				                "(a symbolic link is not followed): %s" :
				                refused ?
				                "cannot create the spill directory %s: %s" :
				                "cannot open %s on the way to the spill directory: %s",
				        p, strerror(e));
			} else {
				close(fd);
				fd = nfd;
				rc = spill_check_way(fd, p, i, last, err);
			}
		}
		p[i] = save;
	}
	buf_release(&abs);
	if (rc < 0 && fd >= 0)
		close(fd);
	return rc < 0 ? -1 : fd;
}

int render_spill_new(const char *parent, uint64_t max_bytes, struct render_spill **out,
                     struct tc_error *err)
{
	*out = NULL;
	if (!parent || !*parent)
		return tc_error_set(err, TC_E_INVALID, "spill_dir", "the spill directory is empty");
	/* The spill directory may sit where a tool writes (the workspace): a
	 * link put in its place or anywhere on its way, or a directory others
	 * can write to, would have the supervisor make its files wherever they
	 * chose. */
	int pfd = spill_open(parent, err);
	if (pfd < 0)
		return -1;
	struct render_spill *s = calloc(1, sizeof *s);
	struct buf path = BUF_INIT;
	if (!s || buf_printf(&path, "%s/session-XXXXXX", parent) < 0 ||
	    !(s->name = strdup(path.data + path.len - 14))) {
		close(pfd);
		if (s)
			free(s->name);
		free(s);
		buf_release(&path);
		return tc_error_set(err, TC_E_NOMEM, parent, "out of memory");
	}
	s->dirfd = -1;
	s->parentfd = pfd;
	/* A new directory (0700) that did not exist before, made through the
	 * checked fd: every file in it is ours and another session's spill is
	 * never hit. */
	char *name = path.data + path.len - 6;
	int rc = -1;
	for (int tries = 0; rc < 0 && tries < 100; tries++) {
		static const char az[] =
		        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
		unsigned char r[6];
		if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
			break;
		for (int i = 0; i < 6; i++)
			name[i] = az[r[i] % (sizeof az - 1)];
		rc = mkdirat(pfd, name - 8, 0700);
		if (rc < 0 && errno != EEXIST)
			break;
	}
	if (rc < 0) {
		int e = errno;
		buf_release(&path);
		free(s->name);
		s->name = NULL;
		render_spill_free(s);
		return tc_error_set(err, TC_E_SYSTEM, parent,
		                    "cannot create a session directory: %s", strerror(e));
	}
	memcpy(s->name, name - 8, 14);
	s->dir = buf_detach(&path);
	s->dirfd = openat(pfd, s->name, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (s->dirfd < 0) {
		int e = errno;
		render_spill_free(s);
		return tc_error_set(err, TC_E_SYSTEM, parent,
		                    "cannot open the session directory: %s", strerror(e));
	}
	s->max_bytes = max_bytes ? max_bytes : RENDER_DEFAULT_SPILL_MAX_BYTES;
	*out = s;
	return 0;
}

void render_spill_free(struct render_spill *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++) {
		if (s->dirfd >= 0)
			unlinkat(s->dirfd, s->files[i], 0);
		free(s->files[i]);
	}
	free(s->files);
	if (s->dirfd >= 0)
		close(s->dirfd);
	/* Through the directory opened at the start, never the path again:
	 * fails, and keeps it, if someone else added a file. */
	if (s->name)
		unlinkat(s->parentfd, s->name, AT_REMOVEDIR);
	close(s->parentfd);
	free(s->name);
	free(s->dir);
	free(s);
}

const char *render_spill_dir(const struct render_spill *s)
{
	return s->dir;
}

uint64_t render_spill_used(const struct render_spill *s)
{
	return s->used;
}

/* Writes text to a new file of s. Returns 0 with *path_out (malloc'd), or
 * -1 with *why (malloc'd) saying why nothing was kept; -2 when out of
 * memory. A partial file is removed. */
static int spill_write(struct render_spill *s, const char *text, size_t len, char **path_out,
                       char **why)
{
	struct buf b = BUF_INIT;
	*path_out = *why = NULL;
	if (len > s->max_bytes - s->used) {
		if (buf_printf(&b,
		               "the session's spill directory is full (%" PRIu64 " of %" PRIu64
		               " bytes used)",
		               s->used, s->max_bytes) < 0)
			return -2;
		*why = buf_detach(&b);
		return -1;
	}
	if (s->nfiles >= RENDER_SPILL_MAX_FILES) {
		if (buf_printf(&b, "the session already kept %d outputs", RENDER_SPILL_MAX_FILES) <
		    0)
			return -2;
		*why = buf_detach(&b);
		return -1;
	}
	char name[32];
	snprintf(name, sizeof name, "output-%04u.txt", s->next++);
	char **files = realloc(s->files, (s->nfiles + 1) * sizeof *files);
	if (!files)
		return -2;
	s->files = files;
	if (!(files[s->nfiles] = strdup(name)))
		return -2;
	int fd = openat(s->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	ssize_t w = fd < 0 ? -errno : io_write_all(fd, text, len);
	if (fd >= 0 && close(fd) < 0 && w >= 0)
		w = -errno;
	if (w < 0) {
		if (fd >= 0)
			unlinkat(s->dirfd, name, 0);
		free(files[s->nfiles]);
		if (buf_printf(&b, "writing %s/%s failed: %s", s->dir, name, strerror((int)-w)) < 0)
			return -2;
		*why = buf_detach(&b);
		return -1;
	}
	s->nfiles++;
	s->used += len;
	if (buf_printf(&b, "%s/%s", s->dir, name) < 0)
		return -2;
	*path_out = buf_detach(&b);
	return 0;
}

/* Byte offset just past the first k code points of valid UTF-8 s[0..n). */
static size_t head_bytes(const char *s, size_t n, size_t k)
{
	size_t i = 0;
	while (i < n && k > 0) {
		i++;
		while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		k--;
	}
	return i;
}

/* Byte offset where the last k code points of valid UTF-8 s[0..n) start. */
static size_t tail_start(const char *s, size_t n, size_t k)
{
	size_t i = n;
	while (i > 0 && k > 0) {
		i--;
		while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
			i--;
		k--;
	}
	return i;
}

char *render_clean(const char *p, size_t n, size_t *len)
{
	const unsigned char *u = (const unsigned char *)p;
	/* Worst case: every byte becomes a 3-byte character (an escaped
	 * character takes 6 bytes for its 2 or 3). */
	char *out = n < SIZE_MAX / 3 ? malloc(n * 3 + 1) : NULL;
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq_len(u + i, n - i);
		unsigned c = u[i];
		bool line_end =
		        c == '\t' || c == '\n' || (c == '\r' && i + 1 < n && u[i + 1] == '\n');
		if (k == 0 || c == 0 || (k == 2 && c == 0xc2 && u[i + 1] < 0xa0)) {
			/* invalid, NUL, or a C1 control (U+0080..U+009F, 8-bit CSI) */
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i += k ? k : 1;
		} else if (c >= 0xc2 && utf8_layout_char(u + i, n - i)) {
			/* a line separator or a bidirectional control: "\u2028" */
			o += utf8_escape(u + i, k, out + o);
			i += k;
		} else if ((c < 0x20 && !line_end) || c == 0x7f) {
			utf8_control_picture((unsigned char)c, out + o); /* ESC shows as ␛ */
			o += 3;
			i++;
		} else {
			memcpy(out + o, p + i, k);
			o += k;
			i += k;
		}
	}
	out[o] = '\0';
	*len = o;
	return out;
}

static int add_marker(struct buf *b, const struct render_result *r)
{
	if (buf_printf(b, "\n[... %zu characters left out; ", r->chars_omitted) < 0)
		return -1;
	if (r->spill_path)
		return buf_printf(b,
		                  "the whole output (%zu characters) is in %s: read it with "
		                  "read_file using offset and limit ...]\n",
		                  r->chars_total, r->spill_path);
	if (buf_adds(b,
	             "call again with a narrower request (offset/limit, a pattern) "
	             "to see them") < 0)
		return -1;
	if (r->spill_refused &&
	    buf_printf(b, " (the whole output was not kept: %s)", r->spill_refused) < 0)
		return -1;
	return buf_adds(b, " ...]\n");
}

/* Cuts clean (valid UTF-8, clen bytes) into out->text. */
static int cut(const char *clean, size_t clen, size_t max_chars, struct render_spill *spill,
               struct render_result *out)
{
	/* 60% and 20% without overflow for any size_t budget. */
	size_t keep_head = max_chars / 5 * 3 + max_chars % 5 * 3 / 5;
	size_t keep_tail = max_chars / 5;
	size_t hb = head_bytes(clean, clen, keep_head);
	size_t tb = tail_start(clean, clen, keep_tail);
	out->truncated = true;
	out->chars_omitted = out->chars_total - keep_head - keep_tail;
	if (spill && spill_write(spill, clean, clen, &out->spill_path, &out->spill_refused) == -2)
		return -1;
	struct buf b = BUF_INIT;
	if (buf_add(&b, clean, hb) < 0 || add_marker(&b, out) < 0 ||
	    buf_add(&b, clean + tb, clen - tb) < 0) {
		buf_release(&b);
		return -1;
	}
	out->len = b.len;
	out->text = buf_detach(&b);
	return 0;
}

int render_text(const char *p, size_t n, size_t max_chars, struct render_spill *spill,
                struct render_result *out, struct tc_error *err)
{
	memset(out, 0, sizeof *out);
	if (max_chars == 0)
		max_chars = RENDER_DEFAULT_MAX_CHARS;
	size_t clen;
	char *clean = render_clean(n ? p : "", n, &clen);
	if (!clean)
		return tc_error_set(err, TC_E_NOMEM, "render", "out of memory");
	out->replaced = clen != n; /* every replacement is longer than what it replaces */
	out->chars_total = utf8_count(clean, clen);
	if (out->chars_total <= max_chars) {
		out->text = clean;
		out->len = clen;
		return 0;
	}
	int rc = cut(clean, clen, max_chars, spill, out);
	free(clean);
	if (rc < 0) {
		render_result_release(out);
		return tc_error_set(err, TC_E_NOMEM, "render", "out of memory");
	}
	return 0;
}

void render_result_release(struct render_result *r)
{
	if (!r)
		return;
	free(r->text);
	free(r->spill_path);
	free(r->spill_refused);
	memset(r, 0, sizeof *r);
}
