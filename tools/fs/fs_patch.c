/* fs_patch.c — apply_patch: a unified diff (what `diff -u` and `git diff`
 * print, and what models write) applied to the workspace, all or nothing.
 * Every file section is parsed, every file read and every hunk placed in
 * memory first; only when all of them apply is anything written (each
 * file atomically, as edit_file writes). A hunk is placed where its header
 * says, or the nearest place its context and removed lines match, exactly
 * or else with whitespace differences ignored (a model's diff often gets
 * indentation or a trailing blank wrong); the context kept is the file's
 * own. A hunk that matches nowhere is an error naming it, with the near
 * miss of its lines. New files are created (with their directories);
 * deletions, renames and binary patches are refused: delete_path and
 * move_path do those. The header counts are read leniently: models often
 * get them wrong. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "patchpaths.h"
#include "utf8.h"

#define PATCH_HUNKS_MAX 1000 /* hunks in one patch */
#define SHOW_CONTEXT    2
#define SHOW_CHARS_MAX  8000

/* One line of a hunk, borrowed from the patch text. */
struct pline {
	const char *p;
	size_t n;
	char kind; /* ' ', '-' or '+' */
};

struct hunk {
	size_t old_start, old_count, new_start, new_count;
	struct pline *lines;
	size_t n;
	bool old_no_eol, new_no_eol;
	const char *header; /* the "@@ ... @@" line, for messages */
	size_t header_len;
};

struct fpatch {
	char *path; /* as the diff names it, prefixes stripped */
	bool create;
	struct hunk *hunks;
	size_t nh;
	/* filled when applied */
	struct fs_path fp;
	struct fs_text_file f;
	char *out;
	size_t out_len;
	struct fs_span *spans;
	size_t nspans;
	size_t removed, added;
	bool loose; /* a hunk matched only with whitespace ignored */
};

struct patch {
	struct fpatch *files;
	size_t nf, total_hunks;
};

/* ---- parsing ------------------------------------------------------------- */

/* The patch's lines, one at a time: *line and *n (without '\n'). */
struct reader {
	const char *p, *end;
};

static bool next_line(struct reader *r, const char **line, size_t *n)
{
	if (r->p >= r->end)
		return false;
	const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
	*line = r->p;
	*n = nl ? (size_t)(nl - r->p) : (size_t)(r->end - r->p);
	r->p = nl ? nl + 1 : r->end;
	return true;
}

static bool peek_line(const struct reader *r, const char **line, size_t *n)
{
	struct reader copy = *r;
	return next_line(&copy, line, n);
}

static bool starts(const char *line, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && !memcmp(line, prefix, k);
}

/* "--- a/x" at r followed by "+++ b/x": a file header, not a hunk line. */
static bool at_file_header(const struct reader *r)
{
	struct reader copy = *r;
	const char *l;
	size_t n;
	const char *l2;
	size_t n2;
	return next_line(&copy, &l, &n) && next_line(&copy, &l2, &n2) &&
	        patch_is_header(l, n, l2, n2);
}

static bool parse_range(const char **p, size_t *start, size_t *count)
{
	char *end;
	unsigned long long v = strtoull(*p, &end, 10);
	if (end == *p)
		return false;
	*start = (size_t)v;
	*count = 1;
	if (*end == ',') {
		const char *c = end + 1;
		v = strtoull(c, &end, 10);
		if (end == c)
			return false;
		*count = (size_t)v;
	}
	*p = end;
	return true;
}

static bool parse_hunk_header(const char *line, size_t n, struct hunk *h)
{
	char buf[128];
	if (n >= sizeof buf || !starts(line, n, "@@ -"))
		return false;
	memcpy(buf, line, n);
	buf[n] = '\0';
	const char *p = buf + 4;
	if (!parse_range(&p, &h->old_start, &h->old_count) || strncmp(p, " +", 2))
		return false;
	p += 2;
	if (!parse_range(&p, &h->new_start, &h->new_count) || strncmp(p, " @@", 3))
		return false;
	h->header = line;
	h->header_len = (size_t)(strstr(buf + 3, "@@") - buf) + 2;
	return true;
}

/* The body of one hunk. The counts are followed while the lines fit
 * them, and a hunk also ends early at what cannot be part of it, or goes
 * on past them while lines still look like its lines. */
static int parse_hunk_body(struct reader *r, struct hunk *h, json_t **err)
{
	size_t old_left = h->old_count, new_left = h->new_count, cap = 16;
	h->lines = malloc(cap * sizeof *h->lines);
	if (!h->lines)
		return *err = NULL, -1;
	h->n = 0;
	const char *l;
	size_t n;
	while (peek_line(r, &l, &n)) {
		bool counted = old_left || new_left;
		if (starts(l, n, "@@") || starts(l, n, "diff ") || at_file_header(r))
			break;
		if (n && l[0] == '\\') { /* "\ No newline at end of file" */
			next_line(r, &l, &n);
			if (h->n && h->lines[h->n - 1].kind != '+')
				h->old_no_eol = true;
			if (h->n && h->lines[h->n - 1].kind != '-')
				h->new_no_eol = true;
			continue;
		}
		char kind = ' ';
		if (n)
			kind = l[0];
		if (kind != ' ' && kind != '-' && kind != '+')
			break;
		/* Past the counts, an empty line ends the hunk (a blank between
		 * sections), but lines that are plainly the hunk's go on. */
		if (!counted && !n)
			break;
		next_line(r, &l, &n);
		if (h->n == cap) {
			struct pline *grown = realloc(h->lines, 2 * cap * sizeof *grown);
			if (!grown)
				return *err = NULL, -1;
			h->lines = grown;
			cap *= 2;
		}
		/* An empty line in a hunk is an empty context line whose space an
		 * editor or a model dropped. */
		size_t len = n ? n - 1 : 0;
		if (len && l[n - 1] == '\r' && (kind == ' ' || kind == '-'))
			len--; /* the file's CR is matched loosely anyway */
		h->lines[h->n++] = (struct pline){ n ? l + 1 : l, len, kind };
		if (kind != '+' && old_left)
			old_left--;
		if (kind != '-' && new_left)
			new_left--;
	}
	if (!h->n) {
		*err = fs_error("invalid_patch",
		                "the hunk \"%.*s\" has no lines; each hunk lists its context "
		                "(\" \"), removed (\"-\") and added (\"+\") lines",
		                (int)h->header_len, h->header);
		return -1;
	}
	return 0;
}

/* One file section from its "--- " line. */
static int parse_file(struct reader *r, struct patch *pt, json_t **err)
{
	const char *l, *ol, *nl;
	size_t n, on, nn;
	/* Called at a file header: both lines are there, each at least 4 long. */
	if (!next_line(r, &ol, &on) || !next_line(r, &nl, &nn) || on < 4 || nn < 4) {
		*err = fs_error("invalid_patch",
		                "a file's section starts with a \"--- \" line and a \"+++ \" line");
		return -1;
	}
	/* The paths as the policy read them (patchpaths.h): the same parser. */
	struct patch_header hd;
	if (patch_header_parse(ol, on, nl, nn, &hd))
		return *err = NULL, -1; /* out of memory */
	char *oldp = hd.old_path, *newp = hd.new_path;
	bool old_null = hd.old_null, new_null = hd.new_null;
	int rc = -1;
	if (new_null) {
		*err = fs_error("unsupported_patch",
		                "the patch deletes \"%s\"; apply_patch only creates and "
		                "changes files: use delete_path for that file",
		                oldp ? oldp : "?");
	} else if (!old_null && oldp && newp && strcmp(oldp, newp)) {
		*err = fs_error("unsupported_patch",
		                "the patch renames \"%s\" to \"%s\"; use move_path for the "
		                "rename, then a patch that changes \"%s\"",
		                oldp, newp, newp);
	} else if (pt->nf == PATCH_FILES_MAX) {
		*err = fs_error("invalid_patch", "the patch changes more than %d files; split it",
		                PATCH_FILES_MAX);
	} else {
		struct fpatch *f = &pt->files[pt->nf++];
		*f = (struct fpatch){ .path = newp, .create = old_null };
		f->f.dirfd = -1;
		newp = NULL;
		rc = 0;
		size_t cap = 0;
		while (!rc && peek_line(r, &l, &n) && starts(l, n, "@@")) {
			struct hunk h = { 0 };
			next_line(r, &l, &n);
			if (!parse_hunk_header(l, n, &h)) {
				*err = fs_error(
				        "invalid_patch",
				        "\"%.*s\" is not a hunk header; it reads \"@@ -10,7 +10,8 "
				        "@@\" (old start and count, new start and count)",
				        (int)(n < 80 ? n : 80), l);
				rc = -1;
			} else if (++pt->total_hunks > PATCH_HUNKS_MAX) {
				*err = fs_error("invalid_patch",
				                "the patch has more than %d hunks; split it",
				                PATCH_HUNKS_MAX);
				rc = -1;
			} else if (f->nh == cap) {
				cap = cap ? 2 * cap : 8;
				struct hunk *grown = realloc(f->hunks, cap * sizeof *grown);
				if (!grown)
					return *err = NULL, free(oldp), -1;
				f->hunks = grown;
			}
			if (!rc) {
				f->hunks[f->nh] = h;
				rc = parse_hunk_body(r, &f->hunks[f->nh], err);
				f->nh++;
			}
		}
		if (!rc && !f->nh) {
			*err = fs_error("invalid_patch",
			                "the section for \"%s\" has no hunk (\"@@ -a,b +c,d @@\" "
			                "and its lines)",
			                f->path);
			rc = -1;
		}
	}
	free(oldp);
	free(newp);
	return rc;
}

#define ENVELOPE_MSG                                                                                 \
	"the patch is in the \"*** Begin Patch\" / \"*** Update File:\" format, which "              \
	"apply_patch does not read: it reads a unified diff, as diff -u and git diff print it. "     \
	"Send the same change as one: for each file \"--- a/PATH\" and \"+++ b/PATH\", then "        \
	"before each hunk a line \"@@ -N +N @@\" (N the hunk's first line, as near as you know "     \
	"it: a hunk is placed where its lines match), and its \" \", \"-\" and \"+\" lines as they " \
	"are. For \"*** Add File\" use write_file, for \"*** Delete File\" delete_path; for one "    \
	"exact replacement edit_file is simpler."

static int parse_patch(const char *text, size_t len, struct patch *pt, json_t **err)
{
	struct reader r = { text, text + len };
	const char *l;
	size_t n;
	pt->files = calloc(PATCH_FILES_MAX, sizeof *pt->files);
	if (!pt->files)
		return *err = NULL, -1;
	while (peek_line(&r, &l, &n)) {
		if (starts(l, n, "Binary files ") || starts(l, n, "GIT binary patch")) {
			*err = fs_error("unsupported_patch",
			                "the patch holds a binary change; apply_patch changes "
			                "text files only");
			return -1;
		}
		if (starts(l, n, "rename from ") || starts(l, n, "copy from ")) {
			*err = fs_error("unsupported_patch",
			                "the patch renames or copies a file; use move_path (or "
			                "read_file and write_file), then a patch of the changes");
			return -1;
		}
		if (starts(l, n, "*** Begin Patch") || starts(l, n, "*** Update File: ") ||
		    starts(l, n, "*** Add File: ") || starts(l, n, "*** Delete File: ")) {
			/* The envelope some models are trained to write for a
			 * tool of this name: say what to send instead. */
			*err = fs_error("unsupported_patch", "%s", ENVELOPE_MSG);
			return -1;
		}
		if (at_file_header(&r)) {
			if (parse_file(&r, pt, err))
				return -1;
			continue;
		}
		if (starts(l, n, "@@")) {
			*err = fs_error("invalid_patch",
			                "a hunk comes before any file header; each file's hunks "
			                "follow \"--- a/path\" and \"+++ b/path\" lines");
			return -1;
		}
		next_line(&r, &l, &n); /* "diff --git", "index ...", prose: not ours */
	}
	if (!pt->nf) {
		*err = fs_error(
		        "invalid_patch",
		        "no file section found: a unified diff has \"--- a/path\", "
		        "\"+++ b/path\", then hunks \"@@ -1,3 +1,4 @@\" with \" \", \"-\" and \"+\" lines");
		return -1;
	}
	for (size_t i = 0; i < pt->nf; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(pt->files[i].path, pt->files[j].path)) {
				*err = fs_error(
				        "invalid_patch",
				        "the patch has two sections for \"%s\"; give its hunks "
				        "in one section",
				        pt->files[i].path);
				return -1;
			}
	return 0;
}

static void patch_release(struct patch *pt)
{
	for (size_t i = 0; i < pt->nf; i++) {
		struct fpatch *f = &pt->files[i];
		for (size_t j = 0; j < f->nh; j++)
			free(f->hunks[j].lines);
		free(f->hunks);
		free(f->path);
		free(f->out);
		free(f->spans);
		fs_text_file_release(&f->f);
		fs_path_release(&f->fp);
	}
	free(pt->files);
}

/* ---- placing hunks ------------------------------------------------------- */

/* The lines of a text: start offsets and lengths (without '\n'). */
struct tlines {
	size_t *start, *len;
	size_t n;
	bool last_eol; /* the text ends with '\n' (or is empty) */
};

static int split_text(const char *t, size_t len, struct tlines *tl)
{
	size_t cap = 1;
	for (const char *p = t; (p = memchr(p, '\n', len - (size_t)(p - t))); p++)
		cap++;
	tl->start = malloc(cap * sizeof *tl->start);
	tl->len = malloc(cap * sizeof *tl->len);
	tl->n = 0;
	tl->last_eol = !len || t[len - 1] == '\n';
	if (!tl->start || !tl->len)
		return -1;
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(t + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - t) - pos : len - pos;
		tl->start[tl->n] = pos;
		tl->len[tl->n++] = n;
		pos += n + 1;
	}
	return 0;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Line equality at a level: 0 exact (a CR at the end aside), 1 trailing
 * blanks ignored, 2 every run of blanks equal to one and ends ignored. */
static bool line_eq(const char *a, size_t an, const char *b, size_t bn, int level)
{
	if (an && a[an - 1] == '\r')
		an--;
	if (level >= 1) {
		while (an && blank(a[an - 1]))
			an--;
		while (bn && blank(b[bn - 1]))
			bn--;
	}
	if (level < 2)
		return an == bn && !memcmp(a, b, an);
	size_t i = 0, j = 0;
	while (i < an && blank(a[i]))
		i++;
	while (j < bn && blank(b[j]))
		j++;
	while (i < an && j < bn) {
		if (blank(a[i]) && blank(b[j])) {
			while (i < an && blank(a[i]))
				i++;
			while (j < bn && blank(b[j]))
				j++;
			continue;
		}
		if (a[i++] != b[j++])
			return false;
	}
	return i == an && j == bn;
}

/* Whether the hunk's old lines match the text's lines from at. */
static bool matches_at(const char *t, const struct tlines *tl, const struct hunk *h, size_t at,
                       int level)
{
	size_t k = at;
	for (size_t i = 0; i < h->n; i++) {
		if (h->lines[i].kind == '+')
			continue;
		if (k >= tl->n ||
		    !line_eq(t + tl->start[k], tl->len[k], h->lines[i].p, h->lines[i].n, level))
			return false;
		k++;
	}
	return true;
}

static size_t old_lines(const struct hunk *h)
{
	size_t k = 0;
	for (size_t i = 0; i < h->n; i++)
		k += h->lines[i].kind != '+';
	return k;
}

/* Where the hunk applies, from the line its header names (moved by what
 * earlier hunks added or removed) outwards, not before from. SIZE_MAX when
 * nowhere; *level gets how loosely it matched. */
static size_t place(const char *t, const struct tlines *tl, const struct hunk *h, size_t from,
                    long delta, int *level)
{
	size_t k = old_lines(h);
	if (tl->n < k)
		return SIZE_MAX;
	size_t last = tl->n - k; /* the last start that fits */
	long want = (long)(h->old_count ? h->old_start - 1 : h->old_start) + delta;
	size_t at = want < (long)from ? from : (size_t)want > last ? last : (size_t)want;
	if (!k) /* an insertion: where it says */
		return at;
	for (*level = 0; *level <= 2; (*level)++)
		for (size_t d = 0; at + d <= last || at >= from + d; d++) {
			if (at + d <= last && matches_at(t, tl, h, at + d, *level))
				return at + d;
			if (d && at >= from + d && matches_at(t, tl, h, at - d, *level))
				return at - d;
			if (at + d > last && at < from + d)
				break;
		}
	return SIZE_MAX;
}

/* The old lines of a hunk as one text, for the near miss. */
static char *old_text(const struct hunk *h, size_t *len)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < h->n; i++)
		if (h->lines[i].kind != '+') {
			buf_add(&b, h->lines[i].p, h->lines[i].n);
			buf_adds(&b, "\n");
		}
	*len = b.len;
	return buf_detach(&b);
}

static json_t *hunk_error(const struct fpatch *f, size_t hi, const char *t, size_t len)
{
	const struct hunk *h = &f->hunks[hi];
	json_t *err =
	        fs_error("hunk_failed",
	                 "hunk %zu of %zu for \"%s\" (%.*s) does not apply: its %zu "
	                 "context and removed line%s are not in the file, even with whitespace "
	                 "ignored. Nothing was written: the patch applies all or nothing.",
	                 hi + 1, f->nh, f->fp.rel, (int)h->header_len, h->header, old_lines(h),
	                 old_lines(h) == 1 ? "" : "s");
	size_t olen;
	char *old = err ? old_text(h, &olen) : NULL;
	if (old && olen &&
	    !fs_not_utf8_hint(err, t, len, old, olen, f->fp.rel,
	                      "The hunk's lines hold U+FFFD (\xef\xbf\xbd), which read_file "
	                      "shows in place of bytes that are not valid UTF-8; the file holds "
	                      "those bytes, not U+FFFD. Give context and removed lines without "
	                      "\xef\xbf\xbd, or use edit_file on the text around it.") &&
	    !fs_near_miss(err, t, len, old, olen, "the hunk's first context or removed line",
	                  "Make the hunk's context and removed lines match the "
	                  "file (read_file shows them) and call again."))
		fs_error_hint(
		        err,
		        "Call read_file on the file to see its lines, copy the hunk's context "
		        "and removed lines from them exactly, and call again.");
	free(old);
	if (err) {
		json_object_set_new(err, "file", json_string(f->fp.rel));
		json_object_set_new(err, "hunk", json_integer((json_int_t)hi + 1));
	}
	return err;
}

/* Builds f->out from the file's text (empty for a new file) and the hunks.
 * 0, or -1 with *err. */
static int apply_file(struct fpatch *f, const char *t, size_t len, json_t **err)
{
	struct tlines tl = { 0 };
	struct buf out = BUF_INIT;
	size_t nspans = 0, from = 0;
	long delta = 0;
	int rc = -1;
	size_t max_spans = 1;
	*err = NULL;
	for (size_t i = 0; i < f->nh; i++)
		max_spans += f->hunks[i].n;
	f->spans = malloc(max_spans * sizeof *f->spans);
	if (!f->spans || split_text(t, len, &tl))
		goto out;
	/* CRLF files keep CRLF on the added lines. */
	bool crlf = tl.n && tl.len[0] && t[tl.start[0] + tl.len[0] - 1] == '\r';
	bool eol = tl.last_eol, touched_end = false;
	for (size_t i = 0; i < f->nh; i++) {
		const struct hunk *h = &f->hunks[i];
		int level = 0;
		size_t at = place(t, &tl, h, from, delta, &level);
		if (at == SIZE_MAX) {
			*err = hunk_error(f, i, t, len);
			goto out;
		}
		f->loose = f->loose || level > 0;
		/* The text up to the hunk, as it was. */
		size_t copy_to = at < tl.n ? tl.start[at] : len;
		size_t copy_from = from < tl.n ? tl.start[from] : len;
		buf_add(&out, t + copy_from, copy_to - copy_from);
		if (copy_to == len && len && t[len - 1] != '\n' && at > 0)
			buf_adds(&out, "\n"); /* appending after a last line without one */
		size_t k = at;
		bool in_run = false; /* a run of changed lines: one span */
		for (size_t j = 0; j < h->n; j++) {
			const struct pline *pl = &h->lines[j];
			if (pl->kind == ' ') {   /* the file's own line, whitespace and all */
				if (k >= tl.n) { /* place() matched it: never past the end */
					*err = hunk_error(f, i, t, len);
					goto out;
				}
				buf_add(&out, t + tl.start[k], tl.len[k]);
				buf_adds(&out, "\n");
				k++;
				in_run = false;
				continue;
			}
			if (!in_run)
				f->spans[nspans++] = (struct fs_span){ out.len, out.len };
			in_run = true;
			if (pl->kind == '-') {
				k++;
				f->removed++;
			} else {
				buf_add(&out, pl->p, pl->n);
				buf_adds(&out,
				         crlf && !(pl->n && pl->p[pl->n - 1] == '\r') ? "\r\n" :
				                                                        "\n");
				f->added++;
			}
			f->spans[nspans - 1].end = out.len;
		}
		delta = (long)at - (long)(h->old_count ? h->old_start - 1 : h->old_start);
		from = k;
		if (k == tl.n) {
			touched_end = true;
			/* The end's newline: as the hunk says when it says, else as it was. */
			if (h->new_no_eol)
				eol = false;
			else if (h->old_no_eol)
				eol = true;
		}
	}
	size_t rest = from < tl.n ? tl.start[from] : len;
	buf_add(&out, t + rest, len - rest);
	if (touched_end && !eol && out.len && out.data[out.len - 1] == '\n') {
		out.len -= out.len > 1 && crlf && out.data[out.len - 2] == '\r' ? 2 : 1;
		out.data[out.len] = '\0';
	}
	if (out.failed)
		goto out;
	f->nspans = nspans;
	f->out_len = out.len;
	f->out = buf_detach(&out);
	rc = f->out ? 0 : -1;
out:
	buf_release(&out);
	free(tl.start);
	free(tl.len);
	return rc;
}

/* ---- the tool ------------------------------------------------------------ */

/* Resolves, checks and reads every file of the patch, and applies its
 * hunks in memory. Nothing is written. */
static int prepare(const struct tc_tool_ctx *ctx, struct patch *pt, json_t **err)
{
	for (size_t i = 0; i < pt->nf; i++) {
		struct fpatch *f = &pt->files[i];
		if (fs_path_parse(ctx, f->path, strlen(f->path), &f->fp, err))
			return -1;
		if (!f->fp.last || !strcmp(f->fp.last, ".") || !strcmp(f->fp.last, "..")) {
			*err = fs_error("invalid_patch", "\"%s\" does not name a file", f->path);
			return -1;
		}
		if (f->create) {
			struct stat st;
			int dirfd = fs_open_beneath(ctx, f->fp.dir, O_PATH | O_DIRECTORY, 0);
			bool exists =
			        dirfd >= 0 && !fstatat(dirfd, f->fp.last, &st, AT_SYMLINK_NOFOLLOW);
			if (dirfd >= 0)
				close(dirfd);
			if (exists) {
				*err = fs_error(
				        "exists",
				        "the patch creates \"%s\" (\"--- /dev/null\"), which already "
				        "exists; write a patch that changes it, or delete it first",
				        f->fp.rel);
				return -1;
			}
			if (apply_file(f, "", 0, err))
				return -1;
		} else {
			if (fs_text_file_open(ctx, &f->fp, "apply_patch", &f->f, err))
				return -1;
			if (apply_file(f, f->f.data, f->f.len, err))
				return -1;
		}
		if (f->out_len > FS_READ_MAX) {
			*err = fs_error("too_large",
			                "\"%s\" would be %zu bytes after the patch, more than %u",
			                f->fp.rel, f->out_len, FS_READ_MAX);
			return -1;
		}
	}
	return 0;
}

static int write_one(const struct tc_tool_ctx *ctx, struct fpatch *f, bool *cleared, json_t **err)
{
	if (!f->create)
		return fs_text_file_replace(&f->f, &f->fp, f->out, f->out_len, cleared, err);
	if (fs_mkdirs(ctx, f->fp.dir, err))
		return -1;
	int dirfd = fs_open_parent(ctx, &f->fp, err);
	if (dirfd < 0)
		return -1;
	int wrc = fs_atomic_write(dirfd, f->fp.last, f->out, f->out_len, 0644);
	close(dirfd);
	if (wrc) {
		*err = fs_error("io", "cannot write \"%s\": %s", f->fp.rel, strerror(-wrc));
		return -1;
	}
	return 0;
}

static json_t *file_result(const struct tc_tool_ctx *ctx, struct fpatch *f, bool cleared,
                           size_t share, struct buf *r)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I}", "path", f->fp.rel, "action",
	                      f->create ? "created" : "modified", "hunks", (json_int_t)f->nh,
	                      "lines_removed", (json_int_t)f->removed, "lines_added",
	                      (json_int_t)f->added);
	if (!o)
		return NULL;
	if (f->create)
		fs_buf_printf(r, "Created \"%s\": %zu line%s.\n", f->fp.rel, f->added,
		              f->added == 1 ? "" : "s");
	else
		fs_buf_printf(
		        r, "Patched \"%s\": %zu hunk%s, %zu line%s removed, %zu added%s.%s\n",
		        f->fp.rel, f->nh, f->nh == 1 ? "" : "s", f->removed,
		        f->removed == 1 ? "" : "s", f->added,
		        f->loose ?
		                " (a hunk was placed with whitespace differences ignored; the file's "
		                "own context lines were kept)" :
		                "",
		        cleared ? FS_CLEARED_NOTE : "");
	if (f->loose)
		json_object_set_new(o, "whitespace_ignored", json_true());
	(void)ctx;
	fs_show_regions(r, o, f->out, f->out_len, f->spans, f->nspans, SHOW_CONTEXT, share);
	return o;
}

int fs_apply_patch_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	json_t *text = json_object_get(args, "patch");
	struct patch pt = { 0 };
	json_t *err = NULL, *files = json_array();
	struct buf r = BUF_INIT;
	int rc;
	if (!json_is_string(text) || !json_string_length(text)) {
		rc = fs_fail(out,
		             fs_error("invalid_patch", "patch must be the text of a unified diff"));
		goto out;
	}
	if (!files || parse_patch(json_string_value(text), json_string_length(text), &pt, &err) ||
	    prepare(ctx, &pt, &err)) {
		rc = fs_fail(out, err);
		goto out;
	}
	size_t max = ctx->max_render ? ctx->max_render : FS_RENDER_DEFAULT;
	size_t chars = max / 2 < SHOW_CHARS_MAX ? max / 2 : SHOW_CHARS_MAX;
	for (size_t i = 0; i < pt.nf; i++) {
		bool cleared = false;
		if (write_one(ctx, &pt.files[i], &cleared, &err) && !i) {
			rc = fs_fail(out, err);
			goto out;
		}
		if (err) {
			/* Each file is written atomically, but not all of them at once:
			 * say exactly which were. */
			struct buf m = BUF_INIT;
			fs_buf_printf(
			        &m, "%s The patch was applied to %zu of %zu files before this one:",
			        err ? json_string_value(json_object_get(err, "message")) :
			              "out of memory.",
			        i, pt.nf);
			for (size_t j = 0; j < i; j++)
				fs_buf_printf(&m, " \"%s\"", pt.files[j].fp.rel);
			char *msg = buf_detach(&m);
			json_t *e = fs_error("partial", "%s", msg ? msg : "out of memory");
			free(msg);
			json_decref(err);
			rc = fs_fail(out, e);
			goto out;
		}
		json_t *o = file_result(ctx, &pt.files[i], cleared, chars / pt.nf, &r);
		if (!o || json_array_append_new(files, o)) {
			rc = fs_fail(out, NULL);
			goto out;
		}
	}
	if (pt.nf > 1)
		fs_buf_printf(&r, "[%zu files changed]\n", pt.nf);
	rc = fs_done(out,
	             json_pack("{s:O, s:I}", "files", files, "files_changed", (json_int_t)pt.nf),
	             &r);
out:
	json_decref(files);
	buf_release(&r);
	patch_release(&pt);
	return rc;
}
