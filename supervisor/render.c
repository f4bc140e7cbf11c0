/* render.c — the render stage: UTF-8 and control repair, the head/tail cut in code
 * points with its marker, and the per-session spill directory (see
 * render.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
	int dirfd;
	uint64_t max_bytes;
	uint64_t used;
	unsigned next; /* sequence number of the next file */
	char **files;  /* names (not paths) this spill wrote */
	size_t nfiles;
};

int render_spill_new(const char *parent, uint64_t max_bytes, struct render_spill **out,
                     struct tc_error *err)
{
	*out = NULL;
	if (!parent || !*parent)
		return tc_error_set(err, TC_E_INVALID, "spill_dir", "the spill directory is empty");
	/* 0700: spilled output may hold anything a tool read; other users of
	 * the machine must not see it. */
	if (mkdir(parent, 0700) < 0 && errno != EEXIST)
		return tc_error_set(err, TC_E_SYSTEM, parent,
		                    "cannot create the spill directory: %s", strerror(errno));
	/* The spill directory may sit where a tool writes (the workspace): a
	 * link put in its place, or a directory others can write to, would
	 * have the supervisor make its files wherever they chose. */
	int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (pfd < 0) {
		int e = errno;
		return tc_error_set(err, TC_E_SYSTEM, parent,
		                    e == ELOOP || e == ENOTDIR ?
		                            "the spill directory is not a directory (a symbolic "
		                            "link is not followed): %s" :
		                            "cannot open the spill directory: %s",
		                    strerror(e));
	}
	struct stat st;
	if (fstat(pfd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(pfd);
		return tc_error_set(err, TC_E_INVALID, parent,
		                    "the spill directory must be owned by toolcage's user and "
		                    "writable by no one else (chmod go-w)");
	}
	struct render_spill *s = calloc(1, sizeof *s);
	struct buf path = BUF_INIT;
	if (!s || buf_printf(&path, "%s/session-XXXXXX", parent) < 0) {
		close(pfd);
		free(s);
		buf_release(&path);
		return tc_error_set(err, TC_E_NOMEM, parent, "out of memory");
	}
	s->dirfd = -1;
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
		close(pfd);
		buf_release(&path);
		free(s);
		return tc_error_set(err, TC_E_SYSTEM, parent,
		                    "cannot create a session directory: %s", strerror(e));
	}
	s->dir = buf_detach(&path);
	s->dirfd = openat(pfd, name - 8, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	close(pfd);
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
	if (s->dir)
		rmdir(s->dir); /* fails, and keeps it, if someone else added a file */
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
			utf8_escape(u + i, k, out + o);
			o += UTF8_ESCAPE_LEN;
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
