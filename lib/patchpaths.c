/* patchpaths.c — the paths of a unified diff's file headers (see
 * patchpaths.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patchpaths.h"

static bool starts(const char *line, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && !memcmp(line, prefix, k);
}

bool patch_is_header(const char *a, size_t an, const char *b, size_t bn)
{
	return starts(a, an, "--- ") && starts(b, bn, "+++ ");
}

/* The path of a "--- " or "+++ " line; NULL for /dev/null (*dev_null) or
 * when out of memory. */
static char *header_path(const char *line, size_t n, bool *dev_null)
{
	line += 4;
	n -= 4;
	const char *tab = memchr(line, '\t', n);
	if (tab)
		n = (size_t)(tab - line);
	while (n && (line[n - 1] == ' ' || line[n - 1] == '\r'))
		n--;
	*dev_null = n == 9 && !memcmp(line, "/dev/null", 9);
	return *dev_null ? NULL : strndup(line, n);
}

static void strip_prefix(char *path, bool strip)
{
	if (path && strip && (starts(path, strlen(path), "a/") || starts(path, strlen(path), "b/")))
		memmove(path, path + 2, strlen(path + 2) + 1);
}

int patch_header_parse(const char *a, size_t an, const char *b, size_t bn, struct patch_header *h)
{
	memset(h, 0, sizeof *h);
	h->old_path = header_path(a, an, &h->old_null);
	h->new_path = header_path(b, bn, &h->new_null);
	if ((!h->old_path && !h->old_null) || (!h->new_path && !h->new_null)) {
		patch_header_release(h);
		return -1;
	}
	/* git's a/ and b/ prefixes, dropped when both sides have them. */
	bool strip = (h->old_null || starts(h->old_path, strlen(h->old_path), "a/")) &&
	        (h->new_null || starts(h->new_path, strlen(h->new_path), "b/"));
	strip_prefix(h->old_path, strip);
	strip_prefix(h->new_path, strip);
	return 0;
}

void patch_header_release(struct patch_header *h)
{
	free(h->old_path);
	free(h->new_path);
	memset(h, 0, sizeof *h);
}

long patch_each_path(const char *text, size_t len, bool (*fn)(void *data, const char *path),
                     void *data)
{
	const char *p = text, *end = text + len;
	const char *prev = NULL;
	size_t prev_n = 0;
	long headers = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (prev && patch_is_header(prev, prev_n, p, n)) {
			struct patch_header h;
			if (patch_header_parse(prev, prev_n, p, n, &h))
				return -1;
			headers++;
			bool stop = (h.old_path && fn(data, h.old_path)) ||
			        (h.new_path && fn(data, h.new_path));
			patch_header_release(&h);
			if (stop || headers > PATCH_FILES_MAX)
				return headers;
			prev = NULL; /* the "+++ " line is taken */
		} else {
			prev = p;
			prev_n = n;
		}
		p = nl ? nl + 1 : end;
	}
	return headers;
}

/* ---- a diff for a patch program ---------------------------------------- */

struct strict {
	const char *p, *end; /* what is left of the text */
	long line;           /* the line just taken, 1-based */
	int strip;
	bool git_new, git_deleted; /* a git section's "new/deleted file mode" */
	bool (*fn)(void *data, const char *path);
	void *data;
	struct patch_refusal *r;
	long files;
	bool stopped;
};

/* The next line (without its '\n') or false at the end. */
static bool take_line(struct strict *s, const char **l, size_t *n)
{
	if (s->p >= s->end)
		return false;
	const char *nl = memchr(s->p, '\n', (size_t)(s->end - s->p));
	*l = s->p;
	*n = nl ? (size_t)(nl - s->p) : (size_t)(s->end - s->p);
	s->p = nl ? nl + 1 : s->end;
	s->line++;
	return true;
}

static bool peek_line(const struct strict *s, const char **l, size_t *n)
{
	struct strict t = *s;
	return take_line(&t, l, n);
}

static long refuse(struct strict *s, const char *why)
{
	s->r->line = s->line;
	snprintf(s->r->why, sizeof s->r->why, "%s", why);
	return -2;
}

/* Whether p[0..n) is a name both programs read as these bytes: relative,
 * components neither empty nor "." nor "..", no byte a program quotes,
 * unquotes, splits on or trims (controls, space, '"', '\\', DEL). */
static bool plain_name(const char *p, size_t n)
{
	if (!n || n > PATCH_NAME_MAX || p[0] == '/')
		return false;
	size_t depth = 0, start = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && p[i] != '/') {
			unsigned char c = (unsigned char)p[i];
			if (c <= ' ' || c == 0x7f || c == '"' || c == '\\')
				return false;
			continue;
		}
		size_t k = i - start;
		if (!k || (k == 1 && p[start] == '.') || (k == 2 && !memcmp(p + start, "..", 2)))
			return false;
		depth++;
		start = i + 1;
	}
	return depth <= PATCH_NAME_DEPTH_MAX;
}

/* Hands fn the name with from..to leading components dropped. */
static bool name_at(struct strict *s, const char *p, size_t n, int from, int to)
{
	char path[PATCH_NAME_MAX + 1];
	int level = 0;
	size_t i = 0;
	for (;;) {
		if (level >= from && level <= to) {
			memcpy(path, p + i, n - i);
			path[n - i] = '\0';
			if (s->fn(s->data, path))
				return s->stopped = true;
		}
		const char *slash = memchr(p + i, '/', n - i);
		if (!slash || level >= to)
			return false;
		i = (size_t)(slash - p) + 1;
		level++;
	}
}

/* A name a program may write: every path it can stand for under the
 * strip level (GNU patch takes "diff --git" names at -p, git takes
 * "rename from" and "copy to" names at -p minus one). */
static bool name_paths(struct strict *s, const char *p, size_t n, bool git_line)
{
	if (s->strip == PATCH_STRIP_ANY)
		return name_at(s, p, n, 0, PATCH_NAME_DEPTH_MAX);
	int from = git_line && s->strip > 0 ? s->strip - 1 : s->strip;
	return name_at(s, p, n, from, s->strip);
}

static bool is_mode(const char *p, size_t n)
{
	return n == 6 && (!memcmp(p, "100644", 6) || !memcmp(p, "100755", 6));
}

static bool starts_n(const char *l, size_t n, const char *prefix, size_t *k)
{
	*k = strlen(prefix);
	return n >= *k && !memcmp(l, prefix, *k);
}

/* Digits, at most 9 of them. */
static size_t number(const char *p, size_t n, unsigned long *v)
{
	size_t i = 0;
	*v = 0;
	while (i < n && i < 10 && p[i] >= '0' && p[i] <= '9')
		*v = *v * 10 + (unsigned long)(p[i++] - '0');
	return i && i < 10 ? i : 0;
}

/* "-START[,COUNT]" or "+START[,COUNT]" at p; the count (1 when absent). */
static size_t range(const char *p, size_t n, char sign, unsigned long *count)
{
	unsigned long start;
	size_t i, k;
	if (!n || p[0] != sign || !(k = number(p + 1, n - 1, &start)))
		return 0;
	i = 1 + k;
	*count = 1;
	if (i < n && p[i] == ',') {
		if (!(k = number(p + i + 1, n - i - 1, count)))
			return 0;
		i += 1 + k;
	}
	return i;
}

/* "@@ -a,b +c,d @@" and any text without control characters. */
static bool hunk_header(const char *l, size_t n, unsigned long *old, unsigned long *new)
{
	size_t i = 3, k;
	if (n < 3 || memcmp(l, "@@ ", 3) || !(k = range(l + i, n - i, '-', old)))
		return false;
	i += k;
	if (i >= n || l[i++] != ' ' || !(k = range(l + i, n - i, '+', new)))
		return false;
	i += k;
	if (n - i < 3 || memcmp(l + i, " @@", 3))
		return false;
	for (i += 3; i < n; i++)
		if ((unsigned char)l[i] < ' ' && l[i] != '\t')
			return false;
	return *old || *new;
}

/* A "--- " or "+++ " line: a name or /dev/null, then the end or a tab and
 * a timestamp (no control character but tabs). */
static long header_name(struct strict *s, const char *l, size_t n, bool git)
{
	const char *p = l + 4;
	size_t m = n - 4, k = 0;
	while (k < m && p[k] != '\t')
		k++;
	for (size_t i = k; i < m; i++)
		if ((unsigned char)p[i] < ' ' && p[i] != '\t')
			return refuse(s, "a control character (a CR?) after a file's name");
	if (k == 9 && !memcmp(p, "/dev/null", 9)) {
		/* git reads /dev/null as a name unless its mode line says
		 * the file is new (old side) or deleted (new side). */
		if (git && !(l[0] == '-' ? s->git_new : s->git_deleted))
			return refuse(s,
			              "/dev/null in a git diff without its \"new file mode\" or "
			              "\"deleted file mode\" line");
		return 0;
	}
	if (!plain_name(p, k))
		return refuse(s,
		              "a file name toolcage does not read as patch programs do: "
		              "absolute, quoted, with a space, a control character, "
		              "a backslash, or an empty, \".\" or \"..\" component");
	return name_paths(s, p, k, false) ? 1 : 0;
}

/* The hunks after a "+++ " line. */
static long hunks(struct strict *s)
{
	const char *l;
	size_t n;
	long count = 0;
	while (peek_line(s, &l, &n) && n >= 3 && !memcmp(l, "@@ ", 3)) {
		unsigned long old, new;
		take_line(s, &l, &n);
		if (!hunk_header(l, n, &old, &new))
			return refuse(
			        s, "a hunk header other than \"@@ -START,COUNT +START,COUNT @@\"");
		count++;
		bool content = false;
		while (old || new) {
			if (!take_line(s, &l, &n))
				return refuse(
				        s,
				        "the patch ends inside a hunk (fewer lines than its header "
				        "counts)");
			char kind = ' '; /* an empty line: an empty context line */
			if (n)
				kind = l[0];
			if (kind == '\\' && content && n >= 12 && l[1] == ' ')
				continue;
			if (kind == ' ' && old && new)
				old--, new --;
			else if (kind == '-' && old)
				old--;
			else if (kind == '+' && new)
				new --;
			else
				return refuse(
				        s,
				        "a hunk line that is not \" \", \"-\" or \"+\" within its "
				        "header's counts");
			content = true;
		}
		if (peek_line(s, &l, &n) && n >= 12 && !memcmp(l, "\\ ", 2))
			take_line(s, &l, &n); /* "\ No newline at end of file" */
	}
	if (!count)
		return refuse(s, "a file header without a hunk after it");
	return 0;
}

/* "--- " and "+++ " lines, and their hunks. */
static long unified(struct strict *s, const char *l, size_t n, bool git)
{
	size_t k;
	if (header_name(s, l, n, git) < 0)
		return -2;
	if (s->stopped)
		return 0;
	if (!take_line(s, &l, &n) || !starts_n(l, n, "+++ ", &k))
		return refuse(s, "a \"--- \" line without a \"+++ \" line after it");
	if (header_name(s, l, n, git) < 0)
		return -2;
	if (s->stopped)
		return 0;
	return hunks(s);
}

/* A git section's extended header lines, then its ---/+++ and hunks. */
static long git_section(struct strict *s, const char *l, size_t n)
{
	const char *a = l + 11, *sp = memchr(a, ' ', n - 11);
	if (!sp || !plain_name(a, (size_t)(sp - a)) ||
	    !plain_name(sp + 1, n - 11 - (size_t)(sp - a) - 1))
		return refuse(s,
		              "a \"diff --git\" line other than \"diff --git a/NAME b/NAME\" with "
		              "plain names");
	s->git_new = s->git_deleted = false;
	if (name_paths(s, a, (size_t)(sp - a), false) ||
	    name_paths(s, sp + 1, n - 11 - (size_t)(sp - a) - 1, false))
		return 0;
	static const char *const named[] = { "rename from ", "rename to ", "copy from ", "copy to ",
		                             NULL };
	static const char *const moded[] = { "old mode ", "new mode ", "new file mode ",
		                             "deleted file mode ", NULL };
	while (peek_line(s, &l, &n)) {
		size_t k;
		const char *const *w;
		if (starts_n(l, n, "--- ", &k)) {
			take_line(s, &l, &n);
			return unified(s, l, n, true);
		}
		for (w = named; *w && !starts_n(l, n, *w, &k); w++)
			;
		if (*w) {
			take_line(s, &l, &n);
			if (!plain_name(l + k, n - k))
				return refuse(
				        s,
				        "a rename or copy of a name toolcage does not read as "
				        "patch programs do");
			if (name_paths(s, l + k, n - k, true))
				return 0;
			continue;
		}
		for (w = moded; *w && !starts_n(l, n, *w, &k); w++)
			;
		if (*w) {
			take_line(s, &l, &n);
			if (!is_mode(l + k, n - k))
				return refuse(s,
				              "a file mode other than 100644 or 100755 (a symbolic "
				              "link or a submodule)");
			s->git_new = s->git_new || !strcmp(*w, "new file mode ");
			s->git_deleted = s->git_deleted || !strcmp(*w, "deleted file mode ");
			continue;
		}
		if (starts_n(l, n, "similarity index ", &k) ||
		    starts_n(l, n, "dissimilarity index ", &k)) {
			unsigned long pct;
			size_t d = number(l + k, n - k, &pct);
			take_line(s, &l, &n);
			if (!d || k + d + 1 != n || l[k + d] != '%' || pct > 100)
				return refuse(s, "a similarity index other than \"N%\"");
			continue;
		}
		if (starts_n(l, n, "index ", &k)) {
			size_t i = k, h1 = 0, h2 = 0;
			while (i < n && isxdigit((unsigned char)l[i]))
				i++, h1++;
			if (n - i >= 2 && !memcmp(l + i, "..", 2))
				for (i += 2; i < n && isxdigit((unsigned char)l[i]); i++)
					h2++;
			take_line(s, &l, &n);
			if (h1 < 4 || h2 < 4 || h1 > 64 || h2 > 64 ||
			    (i < n && (l[i] != ' ' || !is_mode(l + i + 1, n - i - 1))))
				return refuse(
				        s, "an index line other than \"index HASH..HASH [MODE]\"");
			continue;
		}
		return 0; /* the section ends: the caller reads what follows */
	}
	return 0;
}

long patch_strict_each_path(const char *text, size_t len, int strip,
                            bool (*fn)(void *data, const char *path), void *data,
                            struct patch_refusal *r)
{
	memset(r, 0, sizeof *r);
	struct strict s = { text, text + len, 0, strip, false, false, fn, data, r, 0, false };
	if (strip != PATCH_STRIP_ANY && (strip < 0 || strip > PATCH_NAME_DEPTH_MAX))
		return refuse(&s, "a strip level out of range");
	if (memchr(text, '\0', len))
		return refuse(&s, "a NUL byte");
	const char *l;
	size_t n, k;
	while (!s.stopped && take_line(&s, &l, &n)) {
		long rc;
		if (!n)
			continue; /* blank lines between files */
		if (starts_n(l, n, "diff --git ", &k))
			rc = git_section(&s, l, n);
		else if (starts_n(l, n, "--- ", &k))
			rc = unified(&s, l, n, false);
		else
			return refuse(&s,
			              "a line that is neither a file's header (\"diff --git\", "
			              "\"--- \") nor in a hunk: toolcage takes unified diffs "
			              "(git's included), nothing around them");
		if (rc < 0)
			return rc;
		if (++s.files > PATCH_FILES_MAX)
			return s.files;
	}
	if (!s.files && !s.stopped)
		return refuse(&s,
		              "no file header: toolcage takes unified diffs (\"--- a/x\", "
		              "\"+++ b/x\", \"@@ ... @@\"), git's included");
	return s.files;
}
