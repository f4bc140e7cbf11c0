/* fs_show.c — numbered lines of a text as read_file shows them, for the
 * answers that point at part of a file: the regions an edit or a patch
 * changed, the near miss of an edit that found nothing. Bounded: lines are
 * cut to a width, regions to a character budget, and a text is walked
 * forward once per answer. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "utf8.h"

#define REGIONS_LISTED 100 /* entries of "regions" in a result */

/* A forward walk over the lines of a text: pos is where line starts. */
struct cursor {
	const char *t;
	size_t len, pos, line;
};

static void cursor_to_line(struct cursor *c, size_t line)
{
	while (c->line < line && c->pos < c->len) {
		const char *nl = memchr(c->t + c->pos, '\n', c->len - c->pos);
		c->pos = nl ? (size_t)(nl - c->t) + 1 : c->len;
		c->line++;
	}
}

/* Moves to the line holding byte off (off >= the cursor's line start). */
static void cursor_to_offset(struct cursor *c, size_t off)
{
	for (;;) {
		const char *nl = memchr(c->t + c->pos, '\n', c->len - c->pos);
		size_t next = nl ? (size_t)(nl - c->t) + 1 : c->len;
		if (next > off || next >= c->len)
			return;
		c->pos = next;
		c->line++;
	}
}

/* Lines in the text: a final newline does not start another. */
static size_t line_count(const char *text, size_t len)
{
	size_t n = 0;
	for (const char *p = text; (p = memchr(p, '\n', len - (size_t)(p - text))); p++)
		n++;
	return n + (len && text[len - 1] != '\n');
}

size_t fs_line_of(const char *text, size_t len, size_t off)
{
	struct cursor c = { text, len, 0, 1 };
	cursor_to_offset(&c, off);
	return c.line;
}

size_t fs_line_start(const char *text, size_t len, size_t line)
{
	struct cursor c = { text, len, 0, 1 };
	cursor_to_line(&c, line);
	return c.line == line ? c.pos : len;
}

/* Appends the lines from the cursor's line to last (inclusive), or fewer
 * once limit characters are reached (at least one line). */
static size_t show_from(struct buf *r, struct cursor *c, size_t last, size_t width, size_t limit)
{
	size_t chars = 0;
	while (c->line <= last && c->pos < c->len && (!chars || chars < limit)) {
		const char *p = c->t + c->pos;
		const char *nl = memchr(p, '\n', c->len - c->pos);
		size_t n = nl ? (size_t)(nl - p) : c->len - c->pos;
		size_t clean_len;
		char *clean = utf8_sanitize(p, n, true, &clean_len);
		if (!clean) {
			r->failed = true;
			return chars;
		}
		size_t keep = clean_len, shown = utf8_count(clean, clean_len);
		bool cut = shown > width;
		if (cut) {
			keep = 0;
			for (size_t k = 0; k < width; k++) {
				keep++;
				while (keep < clean_len &&
				       ((unsigned char)clean[keep] & 0xC0) == 0x80)
					keep++;
			}
			shown = width + 3;
		}
		size_t before = r->len;
		/* the line is content: its tabs stay (the render stage shows
		 * its other controls) */
		fs_buf_printf(r, "%6zu\t", c->line);
		buf_add(r, clean, keep);
		buf_adds(r, cut ? "...\n" : "\n");
		chars += r->len - before - keep + shown - (cut ? 3 : 0);
		free(clean);
		c->pos = nl ? (size_t)(nl - c->t) + 1 : c->len;
		c->line++;
	}
	return chars;
}

size_t fs_show_lines(struct buf *r, const char *text, size_t len, size_t from, size_t to,
                     size_t width)
{
	struct cursor c = { text, len, 0, 1 };
	cursor_to_line(&c, from ? from : 1);
	return show_from(r, &c, to, width, SIZE_MAX);
}

static int span_cmp(const void *a, const void *b)
{
	const struct fs_span *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start ? 1 : 0;
}

/* The changed spans as merged line ranges: lines[2*i], lines[2*i+1].
 * Returns how many (at most n). */
static size_t span_lines(const char *text, size_t len, struct fs_span *s, size_t n, size_t *lines)
{
	qsort(s, n, sizeof *s, span_cmp);
	struct cursor c = { text, len, 0, 1 };
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		cursor_to_offset(&c, s[i].start);
		size_t first = c.line;
		if (s[i].end > s[i].start) {
			struct cursor e = c;
			cursor_to_offset(&e, s[i].end - 1);
			c = e; /* spans are sorted and do not overlap: the next starts after */
		}
		size_t last = c.line;
		if (k && first <= lines[2 * k - 1] + 1) {
			if (last > lines[2 * k - 1])
				lines[2 * k - 1] = last;
		} else {
			lines[2 * k] = first;
			lines[2 * k + 1] = last;
			k++;
		}
	}
	return k;
}

void fs_show_regions(struct buf *r, json_t *res, const char *text, size_t len,
                     const struct fs_span *spans, size_t n, size_t ctx_lines, size_t chars)
{
	struct fs_span *s = n ? malloc(n * sizeof *s) : NULL;
	size_t *lines = n ? malloc(2 * n * sizeof *lines) : NULL;
	json_t *regions = json_array();
	if (n && (!s || !lines || !regions)) {
		r->failed = true;
		goto out;
	}
	if (n)
		memcpy(s, spans, n * sizeof *s);
	size_t k = n ? span_lines(text, len, s, n, lines) : 0;
	size_t total_lines = line_count(text, len);
	for (size_t i = 0; i < k && i < REGIONS_LISTED; i++)
		json_array_append_new(regions,
		                      json_pack("{s:I, s:I}", "start_line",
		                                (json_int_t)lines[2 * i], "end_line",
		                                (json_int_t)lines[2 * i + 1]));
	json_object_set_new(res, "regions", regions);
	regions = NULL;
	if (k > REGIONS_LISTED)
		json_object_set_new(res, "regions_total", json_integer((json_int_t)k));
	struct cursor c = { text, len, 0, 1 };
	size_t used = 0, shown_upto = 0, i = 0;
	while (i < k) {
		size_t from = lines[2 * i] > ctx_lines ? lines[2 * i] - ctx_lines : 1;
		size_t to = lines[2 * i + 1] + ctx_lines;
		/* Regions whose context touches are shown as one block. */
		size_t j = i + 1;
		while (j < k && lines[2 * j] <= to + ctx_lines + 1) {
			to = lines[2 * j + 1] + ctx_lines;
			j++;
		}
		if (from <= shown_upto)
			from = shown_upto + 1;
		if (to > total_lines)
			to = total_lines;
		/* At most 160 characters a line: a block's cost is known before. */
		if (used && used + (to - from + 1) * 168 > chars)
			break;
		if (used)
			buf_adds(r, "   ...\n");
		cursor_to_line(&c, from);
		used += show_from(r, &c, to, 160, chars > used ? chars - used : 1) + 7;
		if (c.line <= to && c.pos < c.len) {
			/* One block longer than the budget: its start only. */
			fs_buf_printf(r, "[... lines %zu-%zu not shown; read_file shows them]\n",
			              c.line, to);
			i = j;
			break;
		}
		shown_upto = to;
		i = j;
		if (used > chars)
			break;
	}
	if (i < k)
		fs_buf_printf(
		        r,
		        "[%zu more changed region%s not shown; read_file shows them (\"regions\" "
		        "lists their lines)]\n",
		        k - i, k - i == 1 ? "" : "s");
out:
	json_decref(regions);
	free(s);
	free(lines);
}

/* ---- bytes that are not UTF-8 ------------------------------------------ */

void fs_not_utf8_scan(const char *text, size_t len, struct fs_not_utf8 *u)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t line = 1, last = 0;
	*u = (struct fs_not_utf8){ 0 };
	for (size_t i = 0; i < len;) {
		if (p[i] == '\n')
			line++;
		/* What utf8_sanitize replaces: a byte no valid sequence starts
		 * with, and NUL. */
		size_t k = p[i] && p[i] < 0x80 ? 1 : p[i] ? utf8_seq_len(p + i, len - i) : 0;
		if (k) {
			i += k;
			continue;
		}
		u->bytes++;
		i++;
		if (line != last) {
			if (u->lines < FS_NOT_UTF8_LINES)
				u->at[u->lines] = line;
			u->lines++;
			last = line;
		}
	}
}

json_t *fs_not_utf8_json(const struct fs_not_utf8 *u)
{
	json_t *at = json_array();
	for (size_t i = 0; at && i < u->lines && i < FS_NOT_UTF8_LINES; i++)
		json_array_append_new(at, json_integer((json_int_t)u->at[i]));
	return json_pack("{s:I, s:I, s:o*}", "bytes", (json_int_t)u->bytes, "lines",
	                 (json_int_t)u->lines, "at_lines", at);
}

void fs_not_utf8_note(struct buf *b, const char *rel, const struct fs_not_utf8 *u)
{
	fs_buf_printf(b, "%zu byte%s of \"%s\" (line%s ", u->bytes, u->bytes == 1 ? "" : "s", rel,
	              u->lines == 1 ? "" : "s");
	for (size_t i = 0; i < u->lines && i < FS_NOT_UTF8_LINES; i++)
		fs_buf_printf(b, "%s%zu", i ? ", " : "", u->at[i]);
	if (u->lines > FS_NOT_UTF8_LINES)
		fs_buf_printf(b, ", ...: %zu lines in all", u->lines);
	/* The suggested command as JSON, so that any name reads back. */
	char *utf8_name = NULL;
	json_t *argv = asprintf(&utf8_name, "%s.utf8", rel) < 0 ?
	        NULL :
	        json_pack("{s:[s, s, s, s, s, s, s, s]}", "argv", "iconv", "-f", "LATIN1", "-t",
	                  "UTF-8", "-o", utf8_name, rel);
	char *cmd = argv ? json_dumps(argv, JSON_COMPACT) : NULL;
	fs_buf_printf(
	        b,
	        ") %s not valid UTF-8 and %s shown as U+FFFD (\xef\xbf\xbd): the file is likely "
	        "in another encoding, such as Latin-1 or Windows-1252. edit_file and apply_patch "
	        "keep every byte they do not replace, but an old_text (or a patch line) holding "
	        "\xef\xbf\xbd cannot match those bytes, and write_file (or a new_text holding "
	        "\xef\xbf\xbd) would write U+FFFD in their place: the original bytes would be "
	        "lost. To change those lines, convert the file "
	        "to UTF-8 first, e.g. with run_command if you may use it: %s (the encoding is a "
	        "guess; check the result), then move it over the original.",
	        u->bytes == 1 ? "is" : "are", u->bytes == 1 ? "is" : "are",
	        cmd ? cmd : "iconv -f LATIN1 -t UTF-8");
	free(cmd);
	json_decref(argv);
	free(utf8_name);
}

bool fs_not_utf8_hint(json_t *err, const char *text, size_t len, const char *old, size_t olen,
                      const char *rel, const char *lead)
{
	struct fs_not_utf8 u;
	if (!memmem(old, olen, "\xef\xbf\xbd", 3))
		return false;
	fs_not_utf8_scan(text, len, &u);
	if (!u.bytes)
		return false;
	struct buf b = BUF_INIT;
	buf_adds(&b, lead);
	buf_adds(&b, " ");
	fs_not_utf8_note(&b, rel, &u);
	if (!b.failed && b.data)
		fs_error_hint(err, b.data);
	buf_release(&b);
	json_object_set_new(err, "invalid_utf8", fs_not_utf8_json(&u));
	return true;
}
