/* fs_edit.c — edit_file: exact replacements in one text file. One edit
 * (old_text, new_text) or several (edits), applied in order to the text as
 * the previous ones left it, all or nothing: the file is written once,
 * atomically, only when every edit found its text. The answer shows the
 * changed regions with their line numbers; an edit whose text is not there
 * gets the closest near miss (fs_nearmiss.c). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"

#define EDITS_MAX        100   /* edits in one call */
#define EDIT_LINES_SHOWN 10    /* line numbers listed for an ambiguous edit */
#define SPANS_MAX        10000 /* changed spans tracked exactly; later ones join the last */
#define SHOW_CONTEXT     2     /* unchanged lines shown around a changed region */
#define SHOW_CHARS_MAX   8000  /* characters of changed regions in an answer */
#define CRLF_NOTE                                                                                  \
	" The file's line breaks are CRLF: those of old_text and new_text were taken as CRLF."

struct edit {
	const char *old, *new;
	size_t olen, nlen;
	bool all;
	char *crlf_old, *crlf_new; /* new: old and new with CRLF line breaks, or NULL */
};

/* The text being edited, and where it changed so far (sorted, disjoint). */
struct work {
	char *text;
	size_t len;
	struct fs_span *spans;
	size_t nspans;
	size_t replacements, removed, added;
	bool crlf;       /* the file's first line ends in CRLF */
	bool crlf_taken; /* an edit's line breaks were taken as CRLF */
};

/* Lines of s: "a\nb" and "a\nb\n" are two, "" none. */
static size_t count_lines(const char *s, size_t n)
{
	size_t lines = n && s[n - 1] != '\n';
	for (const char *q = s; (q = memchr(q, '\n', n - (size_t)(q - s))); q++)
		lines++;
	return lines;
}

/* LFs in s that no CR precedes. */
static size_t bare_lfs(const char *s, size_t n)
{
	size_t bare = 0;
	for (size_t i = 0; i < n; i++)
		bare += s[i] == '\n' && (!i || s[i - 1] != '\r');
	return bare;
}

/* s with each LF that no CR precedes written as CRLF: new, or NULL when s
 * has no such LF (or out of memory: the edit then goes as given). */
static char *crlf_of(const char *s, size_t n, size_t *out_len)
{
	size_t bare = bare_lfs(s, n);
	char *o = bare ? malloc(n + bare + 1) : NULL;
	if (!o)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n' && (!i || s[i - 1] != '\r'))
			o[k++] = '\r';
		o[k++] = s[i];
	}
	o[k] = '\0';
	*out_len = k;
	return o;
}

/* ---- arguments ----------------------------------------------------------- */

static int edit_from(json_t *o, struct edit *e, const char *where, json_t **err)
{
	json_t *oldv = json_object_get(o, "old_text"), *newv = json_object_get(o, "new_text");
	json_t *all = json_object_get(o, "replace_all");
	if (!json_is_string(oldv) || !json_string_length(oldv) || !json_is_string(newv) ||
	    (all && !json_is_boolean(all))) {
		/* Which one is wrong first, then the rule; the call's own
		 * has edits as the other way to give them. */
		const char *what = !oldv ? "old_text is missing. " :
		        !json_is_string(oldv) || !json_string_length(oldv) ?
		                           "old_text must be a non-empty string. " :
		        !newv                 ? "new_text is missing (\"\" deletes old_text). " :
		        !json_is_string(newv) ? "new_text must be a string. " :
		                                "replace_all must be true or false. ";
		*err = fs_error("invalid_arguments",
		                "%s%sold_text (non-empty) and new_text are required "
		                "strings%s, replace_all a boolean; copy old_text from "
		                "read_file's output",
		                where, what,
		                *where ? "" :
		                         " (or edits, a list of {\"old_text\": ..., \"new_text\": "
		                         "...} for several)");
		return -1;
	}
	if (json_equal(oldv, newv)) {
		*err = fs_error("no_change",
		                "%sold_text and new_text are the same; nothing to edit", where);
		return -1;
	}
	*e = (struct edit){ .old = json_string_value(oldv),
		            .new = json_string_value(newv),
		            .olen = json_string_length(oldv),
		            .nlen = json_string_length(newv),
		            .all = json_is_true(all) };
	return 0;
}

/* The edits of the call: args' own old_text/new_text, or its "edits". */
static int parse_edits(json_t *args, struct edit **out, size_t *n, json_t **err)
{
	json_t *list = json_object_get(args, "edits");
	*out = NULL;
	*n = 0;
	if (!list) {
		*out = calloc(1, sizeof **out);
		if (!*out)
			return *err = NULL, -1;
		*n = 1;
		return edit_from(args, *out, "", err);
	}
	if (json_object_get(args, "old_text") || json_object_get(args, "new_text") ||
	    json_object_get(args, "replace_all")) {
		*err = fs_error("invalid_arguments",
		                "give either old_text and new_text (one edit) or edits "
		                "(several), not both");
		return -1;
	}
	if (!json_is_array(list) || !json_array_size(list) || json_array_size(list) > EDITS_MAX) {
		*err = fs_error("invalid_arguments",
		                "edits must list 1 to %d edits, each {\"old_text\": ..., "
		                "\"new_text\": ...}",
		                EDITS_MAX);
		return -1;
	}
	*n = json_array_size(list);
	*out = calloc(*n, sizeof **out);
	if (!*out)
		return *err = NULL, -1;
	for (size_t i = 0; i < *n; i++) {
		char where[64];
		snprintf(where, sizeof where, "edit %zu of %zu: ", i + 1, *n);
		if (edit_from(json_array_get(list, i), &(*out)[i], where, err))
			return -1;
	}
	return 0;
}

/* ---- finding ------------------------------------------------------------- */

/* Counts occurrences of old in text (overlapping ones too: "aa" in "aaa"
 * is ambiguous) and the line of each of the first few. *first is the
 * first occurrence. */
static size_t find_all(const char *text, size_t len, const char *old, size_t olen,
                       const char **first, json_t *lines)
{
	size_t count = 0, line = 1;
	const char *counted = text; /* newlines before this are in line */
	*first = NULL;
	for (const char *q = memmem(text, len, old, olen); q;
	     q = memmem(q + 1, len - (size_t)(q + 1 - text), old, olen)) {
		if (!count++)
			*first = q;
		if (count <= EDIT_LINES_SHOWN) {
			for (; counted < q; counted++)
				line += *counted == '\n';
			json_array_append_new(lines, json_integer((json_int_t)line));
		}
		if (q + 1 >= text + len)
			break;
	}
	return count;
}

/* Length of read_file's number column at the start of s ("     3\t":
 * blanks, digits, a tab), or 0. */
static size_t number_prefix(const char *s, size_t n)
{
	size_t i = 0, digits = 0;
	while (i < n && s[i] == ' ')
		i++;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	return digits && i < n && s[i] == '\t' ? i + 1 : 0;
}

/* old with read_file's number column taken off every line: new, or NULL
 * when a line does not start with one (or out of memory). */
static char *without_numbers(const char *old, size_t olen, size_t *out_len)
{
	char *o = malloc(olen + 1);
	size_t k = 0;
	for (size_t i = 0; o && i < olen;) {
		const char *nl = memchr(old + i, '\n', olen - i);
		size_t end = nl ? (size_t)(nl - old) + 1 : olen;
		size_t skip = number_prefix(old + i, end - i);
		if (!skip) {
			free(o);
			return NULL;
		}
		memcpy(o + k, old + i + skip, end - i - skip);
		k += end - i - skip;
		i = end;
	}
	if (o) {
		o[k] = '\0';
		*out_len = k;
	}
	return o;
}

/* An old_text copied from read_file with its line numbers ("     3\t"
 * before each line), as models do: says so, and where the text is
 * without them. NULL when old_text is not that. */
static json_t *numbered_error(const struct work *w, const struct edit *e, const char *where,
                              const char *rel)
{
	size_t len, crlf_len, at = SIZE_MAX;
	char *plain = without_numbers(e->old, e->olen, &len);
	if (!plain)
		return NULL;
	const char *q = len ? memmem(w->text, w->len, plain, len) : NULL;
	char *crlf = !q && w->crlf ? crlf_of(plain, len, &crlf_len) : NULL;
	if (crlf)
		q = memmem(w->text, w->len, crlf, crlf_len);
	if (q)
		at = fs_line_of(w->text, w->len, (size_t)(q - w->text));
	free(plain);
	free(crlf);
	char found[96] = "";
	if (at != SIZE_MAX)
		snprintf(found, sizeof found, "; without them, old_text is at line %zu", at);
	json_t *err = fs_error(
	        "no_match",
	        "%sold_text was not found in \"%s\": each of its lines starts with a line "
	        "number and a tab, as read_file shows them (\"%.*s\" and a tab), and those are "
	        "not in the file%s. Leave the numbers and the tab after them out of old_text and "
	        "new_text, and call again.",
	        where, rel, (int)(number_prefix(e->old, e->olen) - 1), e->old, found);
	if (err)
		json_object_set_new(err, "line_numbers", json_true());
	return err;
}

static json_t *match_error(const struct work *w, const struct edit *e, const char *rel,
                           size_t count, json_t *lines, size_t idx, size_t n)
{
	char where[64] = "";
	if (n > 1)
		snprintf(where, sizeof where, "edit %zu of %zu: ", idx + 1, n);
	json_t *numbered = count ? NULL : numbered_error(w, e, where, rel);
	if (numbered)
		return numbered;
	if (!count) {
		json_t *err = fs_error("no_match", "%sold_text was not found in \"%s\"%s.", where,
		                       rel, idx ? " (as the edits before it left it)" : "");
		if (err &&
		    !fs_not_utf8_hint(err, w->text, w->len, e->old, e->olen, rel,
		                      "old_text holds U+FFFD (\xef\xbf\xbd), which read_file "
		                      "shows in place of bytes that are not valid UTF-8; the "
		                      "file holds those bytes, not U+FFFD. Leave the "
		                      "\xef\xbf\xbd out of old_text and replace only the "
		                      "text around it.") &&
		    !fs_near_miss(
		            err, w->text, w->len, e->old, e->olen, "old_text's first line",
		            "Copy old_text exactly from the file (read_file shows these lines) "
		            "and call again."))
			fs_error_hint(err,
			              "Call read_file on it and copy the exact text to replace, "
			              "whitespace, indentation and line breaks included.");
		return err;
	}
	struct buf b = BUF_INIT;
	size_t i;
	json_t *v;
	json_array_foreach(lines, i, v)
	        fs_buf_printf(&b, "%s%lld", i ? ", " : "", (long long)json_integer_value(v));
	char *at = buf_detach(&b);
	json_t *err =
	        fs_error("ambiguous",
	                 "%sold_text occurs %zu times in \"%s\" (at line%s %s%s); add "
	                 "surrounding lines to old_text so that it matches exactly once, or set "
	                 "replace_all to change every occurrence",
	                 where, count, rel, count == 1 ? "" : "s", at ? at : "?",
	                 count > EDIT_LINES_SHOWN ? ", ..." : "");
	free(at);
	json_object_set_new(err, "occurrences", json_integer((json_int_t)count));
	json_object_set(err, "lines", lines);
	return err;
}

/* ---- applying ------------------------------------------------------------ */

/* Adds a changed span of the new text; spans come in order. Touching or
 * overlapping spans merge; past SPANS_MAX the last one grows. */
static void span_push(struct fs_span *v, size_t *n, size_t start, size_t end)
{
	if (*n && (start <= v[*n - 1].end || *n == SPANS_MAX)) {
		if (end > v[*n - 1].end)
			v[*n - 1].end = end;
		return;
	}
	v[(*n)++] = (struct fs_span){ start, end };
}

/* Replaces the occurrences of e in w->text (the first only, unless e->all)
 * in one pass, carrying the spans of earlier edits over to the new text
 * (a span the replacement overlaps joins it). 0, or -1 out of memory or
 * over the size cap (*err). */
static int replace(struct work *w, const struct edit *e, const char *first, json_t **err)
{
	size_t count = 0;
	for (const char *q = first; q; q = e->all ?
	             memmem(q + e->olen, w->len - (size_t)(q + e->olen - w->text), e->old,
	                    e->olen) :
	             NULL) {
		count++;
		if (q + e->olen >= w->text + w->len)
			break;
	}
	size_t total = w->len - count * e->olen + count * e->nlen;
	if (count && total > FS_READ_MAX) {
		*err = fs_error("too_large",
		                "the edited file would be %zu bytes, more than %u; edit less at "
		                "once",
		                total, FS_READ_MAX);
		return -1;
	}
	char *out = malloc(total + 1);
	struct fs_span *spans = malloc(SPANS_MAX * sizeof *spans);
	if (!out || !spans) {
		free(out);
		free(spans);
		*err = NULL;
		return -1;
	}
	size_t pos = 0, o = 0, si = 0, ns = 0;
	const struct fs_span *old = w->spans;
	for (const char *q = first; q && count; count--) {
		size_t at = (size_t)(q - w->text);
		while (si < w->nspans && old[si].end <= at) {
			span_push(spans, &ns, old[si].start + o - pos, old[si].end + o - pos);
			si++;
		}
		memcpy(out + o, w->text + pos, at - pos);
		o += at - pos;
		size_t rs = o, re = o + e->nlen;
		memcpy(out + o, e->new, e->nlen);
		o += e->nlen;
		/* Earlier spans the replaced text overlaps join its span: the
		 * offsets before it keep their distance to rs, those after it to
		 * the end of the new text. */
		for (; si < w->nspans && old[si].start < at + e->olen; si++) {
			if (old[si].start < at && o - e->nlen - (at - old[si].start) < rs)
				rs = o - e->nlen - (at - old[si].start);
			if (old[si].end > at + e->olen && old[si].end - (at + e->olen) + o > re)
				re = old[si].end - (at + e->olen) + o;
		}
		span_push(spans, &ns, rs, re);
		pos = at + e->olen;
		w->replacements++;
		w->removed += count_lines(e->old, e->olen);
		w->added += count_lines(e->new, e->nlen);
		q = e->all && pos < w->len ? memmem(w->text + pos, w->len - pos, e->old, e->olen) :
		                             NULL;
	}
	for (; si < w->nspans; si++)
		span_push(spans, &ns, old[si].start + o - pos, old[si].end + o - pos);
	memcpy(out + o, w->text + pos, w->len - pos);
	o += w->len - pos;
	out[o] = '\0';
	free(w->text);
	free(w->spans);
	w->text = out;
	w->len = o;
	w->spans = spans;
	w->nspans = ns;
	return 0;
}

/* Finds e in w: as given, or else, in a file with CRLF line breaks, with
 * its LFs taken as CRLF (a model reads the lines read_file shows and writes
 * "a\nb", rarely the CR). An edit that applies to a CRLF file writes CRLF
 * line breaks, as apply_patch does. Returns the count, the first in *first. */
static size_t find_edit(struct work *w, struct edit *e, const char **first, json_t *lines)
{
	size_t count = find_all(w->text, w->len, e->old, e->olen, first, lines);
	size_t len;
	if (!count && w->crlf && (e->crlf_old = crlf_of(e->old, e->olen, &len))) {
		json_array_clear(lines);
		count = find_all(w->text, w->len, e->crlf_old, len, first, lines);
		if (count) {
			e->old = e->crlf_old;
			e->olen = len;
			w->crlf_taken = true;
		}
	}
	/* Where old_text matched LF line breaks as given (a file of mixed
	 * endings), new_text keeps its own. */
	if (count && w->crlf && !bare_lfs(e->old, e->olen) &&
	    (e->crlf_new = crlf_of(e->new, e->nlen, &len))) {
		e->new = e->crlf_new;
		e->nlen = len;
		w->crlf_taken = true;
	}
	return count;
}

/* Applies every edit to w in order; the first that cannot apply is the
 * error (nothing is written then). */
static int apply_all(struct work *w, struct edit *edits, size_t n, const char *rel,
                     json_t *per_edit, json_t **err)
{
	for (size_t i = 0; i < n; i++) {
		const char *first;
		json_t *lines = json_array();
		if (!lines)
			return *err = NULL, -1;
		size_t count = find_edit(w, &edits[i], &first, lines);
		if (!count || (count > 1 && !edits[i].all)) {
			*err = match_error(w, &edits[i], rel, count, lines, i, n);
			if (*err && n > 1) {
				json_object_set_new(*err, "edit", json_integer((json_int_t)i + 1));
				fs_error_hint(
				        *err,
				        "Nothing was written: the edits apply all or nothing.");
			}
			json_decref(lines);
			return -1;
		}
		size_t line = fs_line_of(w->text, w->len, (size_t)(first - w->text));
		size_t before = w->replacements;
		json_decref(lines);
		if (replace(w, &edits[i], first, err))
			return -1;
		json_array_append_new(per_edit,
		                      json_pack("{s:I, s:I}", "line", (json_int_t)line,
		                                "replacements",
		                                (json_int_t)(w->replacements - before)));
	}
	return 0;
}

/* ---- the tool ------------------------------------------------------------ */

static size_t show_chars(const struct tc_tool_ctx *ctx)
{
	size_t max = ctx->max_render ? ctx->max_render : FS_RENDER_DEFAULT;
	return max / 2 < SHOW_CHARS_MAX ? max / 2 : SHOW_CHARS_MAX;
}

static int report(const struct tc_tool_ctx *ctx, const struct fs_path *p, struct work *w,
                  json_t *per_edit, size_t n, bool cleared, struct tc_output *out)
{
	size_t line = json_integer_value(json_object_get(json_array_get(per_edit, 0), "line"));
	if (w->nspans)
		line = fs_line_of(w->text, w->len, w->spans[0].start);
	json_t *res = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "path", p->rel, "line",
	                        (json_int_t)line, "lines_removed", (json_int_t)w->removed,
	                        "lines_added", (json_int_t)w->added, "bytes", (json_int_t)w->len,
	                        "replacements", (json_int_t)w->replacements);
	if (!res)
		return fs_fail(out, NULL);
	if (n > 1)
		json_object_set(res, "edits", per_edit);
	if (w->crlf_taken)
		json_object_set_new(res, "line_endings", json_string("crlf"));
	/* A file in another encoding: its bytes that are not UTF-8 were not
	 * touched (old_text, valid UTF-8, cannot match them), and the model
	 * sees them as U+FFFD in the lines below; it is told they are intact. */
	struct fs_not_utf8 u;
	char kept[160] = "";
	fs_not_utf8_scan(w->text, w->len, &u);
	if (u.bytes) {
		snprintf(kept, sizeof kept,
		         " Its %zu byte%s that %s not valid UTF-8 (shown as \xef\xbf\xbd) %s kept "
		         "byte for byte.",
		         u.bytes, u.bytes == 1 ? "" : "s", u.bytes == 1 ? "is" : "are",
		         u.bytes == 1 ? "was" : "were");
		json_object_set_new(res, "invalid_utf8", fs_not_utf8_json(&u));
	}
	struct buf r = BUF_INIT;
	if (n == 1 && w->replacements == 1)
		fs_buf_printf(
		        &r,
		        "Edited \"%s\" at line %zu: replaced %zu line%s with %zu; the file now has "
		        "%zu bytes.%s%s%s\n",
		        p->rel, line, w->removed, w->removed == 1 ? "" : "s", w->added, w->len,
		        w->crlf_taken ? CRLF_NOTE : "", kept, cleared ? FS_CLEARED_NOTE : "");
	else
		fs_buf_printf(
		        &r,
		        "Edited \"%s\": %zu edit%s, %zu replacement%s, %zu line%s replaced with %zu; "
		        "the file now has %zu bytes.%s%s%s\n",
		        p->rel, n, n == 1 ? "" : "s", w->replacements,
		        w->replacements == 1 ? "" : "s", w->removed, w->removed == 1 ? "" : "s",
		        w->added, w->len, w->crlf_taken ? CRLF_NOTE : "", kept,
		        cleared ? FS_CLEARED_NOTE : "");
	fs_show_regions(&r, res, w->text, w->len, w->spans, w->nspans, SHOW_CONTEXT,
	                show_chars(ctx));
	return fs_done(out, res, &r);
}

int fs_edit_file_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	struct fs_path p = { 0 };
	struct fs_text_file f = { .dirfd = -1 };
	struct work w = { 0 };
	struct edit *edits = NULL;
	size_t n = 0;
	json_t *err = NULL, *per_edit = json_array();
	bool cleared = false;
	int rc;
	if (!per_edit || parse_edits(args, &edits, &n, &err) ||
	    fs_file_path_arg(ctx, args, "path", &p, &err) ||
	    fs_text_file_open(ctx, &p, "edit_file", &f, &err)) {
		rc = fs_fail(out, err);
		goto out;
	}
	w.text = f.data; /* the work owns the text from here */
	w.len = f.len;
	f.data = NULL;
	/* CRLF as apply_patch reads it: the first line's ending. */
	const char *nl = memchr(w.text, '\n', w.len);
	w.crlf = nl && nl > w.text && nl[-1] == '\r';
	if (apply_all(&w, edits, n, p.rel, per_edit, &err) ||
	    fs_text_file_replace(&f, &p, w.text, w.len, &cleared, &err))
		rc = fs_fail(out, err);
	else
		rc = report(ctx, &p, &w, per_edit, n, cleared, out);
out:
	json_decref(per_edit);
	for (size_t i = 0; edits && i < n; i++) {
		free(edits[i].crlf_old);
		free(edits[i].crlf_new);
	}
	free(edits);
	free(w.text);
	free(w.spans);
	fs_text_file_release(&f);
	fs_path_release(&p);
	return rc;
}
