/* fs_nearmiss.c — where an edit's old_text almost is. A model copies text
 * from a read_file page and gets the indentation, a tab or a line ending
 * wrong, or quotes a line that has since changed; "not found" alone sends
 * it to read the whole file again. This finds the lines that match old_text
 * when whitespace is ignored, or else the most similar ones, and shows
 * them numbered. Work is bounded whatever the sizes: lines are compared
 * through hashes of their first NORM_MAX bytes, and the comparisons and
 * edit-distance cells each have a cap. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "util.h"

#define NORM_MAX       4096              /* bytes of a line looked at */
#define WINDOW_MAX     200               /* lines of old_text matched as a window */
#define COMPARE_MAX    20000000u         /* line comparisons in one search */
#define DIST_LEN_MAX   EDIT_DISTANCE_MAX /* bytes of a line the edit distance looks at */
#define DIST_CELLS_MAX 50000000u         /* edit-distance cells in one search */
#define SHOW_LINES     12                /* lines of a near miss shown */
#define TEXT_LINES_MAX 2000000u          /* lines of the file looked at (8 bytes each) */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* p[0..n) with leading and trailing whitespace dropped and every inner
 * run of it made one space, into buf (NORM_MAX bytes at most). */
static size_t normalize(const char *p, size_t n, char *buf)
{
	size_t o = 0;
	bool gap = false;
	for (size_t i = 0; i < n && o < NORM_MAX; i++) {
		if (is_space(p[i])) {
			gap = o > 0;
			continue;
		}
		if (gap && o < NORM_MAX)
			buf[o++] = ' ';
		gap = false;
		if (o < NORM_MAX)
			buf[o++] = p[i];
	}
	return o;
}

static uint64_t hash(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

/* The lines of a text as offsets (texts are at most FS_READ_MAX bytes);
 * a final newline does not start one. */
struct lines {
	uint32_t *start, *len;
	size_t n;
};

static int split(const char *t, size_t len, size_t max, struct lines *l)
{
	size_t cap = 0;
	for (const char *p = t; (p = memchr(p, '\n', len - (size_t)(p - t))) && cap < max; p++)
		cap++;
	cap = cap + 1 < max ? cap + 1 : max;
	l->start = malloc(cap * sizeof *l->start);
	l->len = malloc(cap * sizeof *l->len);
	l->n = 0;
	if (!l->start || !l->len)
		return -1;
	for (size_t pos = 0; pos < len && l->n < cap;) {
		const char *nl = memchr(t + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - t) - pos : len - pos;
		l->start[l->n] = (uint32_t)pos;
		l->len[l->n++] = (uint32_t)n;
		pos += n + 1;
	}
	return 0;
}

static void lines_free(struct lines *l)
{
	free(l->start);
	free(l->len);
}

struct found {
	size_t line, nlines; /* 1-based first line, count */
	size_t score;        /* old_text lines that match */
	size_t dist;         /* a single similar line: characters that differ */
	bool whitespace, single;
};

/* Whether file line fl matches old line oj (normalized): the first old
 * line may be the end of a file line, the last its start, and a one-line
 * old_text may be anywhere in it. */
static bool line_matches(const char *text, const struct lines *fl, size_t i, const char *old,
                         const struct lines *ol, size_t j, const uint64_t *oh, size_t k, char *a,
                         char *b)
{
	size_t an = normalize(text + fl->start[i], fl->len[i], a);
	if (j > 0 && j + 1 < k)
		return hash(a, an) == oh[j];
	size_t bn = normalize(old + ol->start[j], ol->len[j], b);
	if (!bn)
		return !an;
	if (bn > an)
		return false;
	if (k == 1)
		return memmem(a, an, b, bn) != NULL;
	return j == 0 ? !memcmp(a + an - bn, b, bn) : !memcmp(a, b, bn);
}

/* The window of the text's lines that matches most lines of old_text. */
static void best_window(const char *text, const struct lines *fl, const char *old,
                        const struct lines *ol, struct found *f, char *a, char *b)
{
	size_t k = ol->n < WINDOW_MAX ? ol->n : WINDOW_MAX;
	uint64_t *oh = malloc(k * sizeof *oh);
	if (!oh || fl->n < k) {
		free(oh);
		return;
	}
	for (size_t j = 0; j < k; j++)
		oh[j] = hash(b, normalize(old + ol->start[j], ol->len[j], b));
	size_t work = 0;
	for (size_t i = 0; i + k <= fl->n && work < COMPARE_MAX; i++) {
		size_t score = 0;
		for (size_t j = 0; j < k; j++, work++)
			score += line_matches(text, fl, i + j, old, ol, j, oh, k, a, b);
		if (score > f->score) {
			*f = (struct found){
				.line = i + 1, .nlines = k, .score = score, .whitespace = score == k
			};
			if (f->whitespace)
				break;
		}
	}
	free(oh);
}

/* The text's line closest to old_text's first non-blank line. */
static void best_line(const char *text, const struct lines *fl, const char *old,
                      const struct lines *ol, struct found *f, char *a, char *b)
{
	size_t bn = 0;
	for (size_t j = 0; j < ol->n && !bn; j++)
		bn = normalize(old + ol->start[j], ol->len[j], b);
	if (!bn)
		return;
	bn = bn < DIST_LEN_MAX ? bn : DIST_LEN_MAX;
	size_t cells = 0, best = SIZE_MAX;
	for (size_t i = 0; i < fl->n && cells < DIST_CELLS_MAX; i++) {
		size_t an = normalize(text + fl->start[i], fl->len[i], a);
		an = an < DIST_LEN_MAX ? an : DIST_LEN_MAX;
		/* The distance is at least the difference in length. */
		if ((an > bn ? an - bn : bn - an) >= best || !an)
			continue;
		cells += an * bn;
		size_t d = edit_distance(a, an, b, bn, false);
		if (d < best) {
			best = d;
			*f = (struct found){
				.line = i + 1, .nlines = 1, .dist = d, .single = true
			};
		}
	}
	/* More than a third changed is another line, not a near miss. */
	if (best == SIZE_MAX || best * 3 > bn)
		*f = (struct found){ 0 };
}

bool fs_near_miss(json_t *err, const char *text, size_t len, const char *old, size_t olen,
                  const char *first, const char *advice)
{
	struct lines fl = { 0 }, ol = { 0 };
	struct found f = { 0 };
	char *a = malloc(NORM_MAX), *b = malloc(NORM_MAX);
	bool added = false;
	if (!a || !b || len > FS_READ_MAX || olen > FS_READ_MAX ||
	    split(text, len, TEXT_LINES_MAX, &fl) || split(old, olen, WINDOW_MAX, &ol) || !ol.n)
		goto out;
	best_window(text, &fl, old, &ol, &f, a, b);
	if (!f.whitespace && (ol.n == 1 || f.score * 2 < ol.n))
		best_line(text, &fl, old, &ol, &f, a, b);
	if (!f.line)
		goto out;
	struct buf m = BUF_INIT;
	const char *msg = json_string_value(json_object_get(err, "message"));
	size_t last = f.line + f.nlines - 1;
	fs_buf_printf(&m, "%s ", msg ? msg : "");
	if (f.nlines > 1)
		fs_buf_printf(&m, "Lines %zu-%zu", f.line, last);
	else
		fs_buf_printf(&m, "Line %zu", f.line);
	if (f.whitespace)
		fs_buf_printf(
		        &m,
		        " hold%s the same text with different whitespace (indentation, spaces, "
		        "tabs or line endings):\n",
		        f.nlines > 1 ? "" : "s");
	else if (f.single)
		fs_buf_printf(&m, " is the closest (%zu character%s differ%s from %s):\n", f.dist,
		              f.dist == 1 ? "" : "s", f.dist == 1 ? "s" : "", first);
	else
		fs_buf_printf(&m, " come closest (%zu of %zu lines match, whitespace aside):\n",
		              f.score, f.nlines);
	fs_show_lines(&m, text, len, f.line,
	              last < f.line + SHOW_LINES - 1 ? last : f.line + SHOW_LINES - 1, 200);
	if (f.nlines > SHOW_LINES)
		fs_buf_printf(&m, "   ... (%zu more lines)\n", f.nlines - SHOW_LINES);
	buf_adds(&m, advice);
	char *joined = buf_detach(&m);
	if (joined) {
		json_object_set_new(err, "message", json_string(joined));
		json_object_set_new(err, "near_miss",
		                    json_pack("{s:s, s:I, s:I}", "kind",
		                              f.whitespace ? "whitespace" : "similar", "start_line",
		                              (json_int_t)f.line, "end_line", (json_int_t)last));
		added = true;
	}
	free(joined);
out:
	lines_free(&fl);
	lines_free(&ol);
	free(a);
	free(b);
	return added;
}
