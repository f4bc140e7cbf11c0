/* util.c — growable buffer and error helpers (see util.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "io.h"

int buf_grow(struct buf *b, size_t extra)
{
	if (b->failed)
		return -1;
	if (extra >= SIZE_MAX / 2 - b->len) {
		b->failed = true;
		errno = ENOMEM;
		return -1;
	}
	size_t need = b->len + extra + 1;
	if (b->data && need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	char *p = realloc(b->data, cap);
	if (!p) {
		b->failed = true;
		return -1;
	}
	if (!b->data)
		p[0] = '\0';
	b->data = p;
	b->cap = cap;
	return 0;
}

int buf_add(struct buf *b, const void *p, size_t n)
{
	if (buf_grow(b, n) < 0)
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int buf_adds(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int buf_join(struct buf *b, const char *const *items, const char *sep)
{
	int rc = 0;
	for (size_t i = 0; items && items[i] && !rc; i++)
		rc = buf_printf(b, "%s%s", i ? sep : "", items[i]);
	return rc;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_grow(b, (size_t)n) < 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

char *buf_detach(struct buf *b)
{
	char *p = b->failed ? NULL : b->data ? b->data : strdup("");
	if (b->failed)
		free(b->data);
	*b = (struct buf)BUF_INIT;
	return p;
}

void buf_release(struct buf *b)
{
	free(b->data);
	*b = (struct buf)BUF_INIT;
}

int tc_error_vset(struct tc_error *err, int code, const char *where, const char *fmt, va_list ap)
{
	if (!err)
		return -1;
	err->code = code;
	snprintf(err->where, sizeof err->where, "%s", where ? where : "");
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	return -1;
}

int tc_error_set(struct tc_error *err, int code, const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tc_error_vset(err, code, where, fmt, ap);
	va_end(ap);
	return -1;
}

void json_text_shape(const char *p, size_t n, struct json_text_shape *shape)
{
	size_t depth = 0, deepest = 0, values = 0;
	bool in_string = false;
	char prev = ','; /* the last character outside strings and blanks */
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (in_string) {
			if (c == '\\')
				i++; /* the escaped character cannot end the string */
			else if (c == '"')
				in_string = false;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if (c == '"') {
			in_string = true;
			values++;
		} else if (c == '[' || c == '{') {
			values++;
			if (++depth > deepest)
				deepest = depth;
		} else if ((c == ']' || c == '}') && depth) {
			depth--;
		} else if (prev == ',' || prev == ':' || prev == '[') {
			values++; /* a number, true, false or null begins */
		}
		prev = c;
	}
	shape->depth = deepest;
	shape->values = values;
}

size_t json_text_depth(const char *p, size_t n)
{
	struct json_text_shape shape;
	json_text_shape(p, n, &shape);
	return shape.depth;
}

const char *json_unknown_key(json_t *obj, const char *const *allowed)
{
	const char *key;
	json_t *v;
	json_object_foreach(obj, key, v)
	{
		size_t i = 0;
		while (allowed[i] && strcmp(allowed[i], key))
			i++;
		if (!allowed[i])
			return key;
	}
	return NULL;
}

const char *json_kind(const json_t *v)
{
	switch (v ? json_typeof(v) : JSON_NULL) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

long long json_int_clamped(const json_t *v, long long dflt, long long lo, long long hi)
{
	long long n = dflt;
	if (json_is_integer(v)) {
		n = json_integer_value(v);
	} else if (json_is_real(v)) {
		double d = json_real_value(v);
		return d <= (double)lo ? lo : d >= (double)hi ? hi : (long long)d;
	}
	return n < lo ? lo : n > hi ? hi : n;
}

int buf_read_line(FILE *f, struct buf *b, size_t max, bool *too_long)
{
	char chunk[65536];
	size_t n = 0;
	bool any = false;
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
	*too_long = false;
	for (;;) {
		int ch = getc_unlocked(f);
		if (ch != EOF)
			any = true;
		if (ch != EOF && ch != '\n') {
			chunk[n++] = (char)ch;
			if (n < sizeof chunk)
				continue;
		}
		if (!*too_long && b->len + n > max) {
			*too_long = true;
			buf_release(b);
		}
		if (!*too_long && n && buf_add(b, chunk, n) < 0) {
			*too_long = true; /* out of memory: as too long */
			buf_release(b);   /* and the next line may fit again */
		}
		n = 0;
		if (ch == EOF || ch == '\n')
			return any;
	}
}

int read_file_bounded(const char *path, size_t max, struct buf *out, struct tc_error *err)
{
	/* O_NONBLOCK: opening a fifo planted where a file was expected must
	 * not wait for a writer (it is refused below, not a regular file). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return tc_error_set(err, errno == ENOENT ? TC_E_NOT_FOUND : TC_E_SYSTEM, path,
		                    "cannot open: %s", strerror(errno));
	struct stat st;
	int rc = -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		tc_error_set(err, TC_E_INVALID, path, "not a regular file");
		goto out;
	}
	/* Read up to max+1 bytes whatever fstat said: the file may grow. */
	if (buf_grow(out, max + 1) < 0) {
		tc_error_set(err, TC_E_NOMEM, path, "out of memory");
		goto out;
	}
	ssize_t n = io_read_all(fd, out->data + out->len, max + 1);
	if (n < 0) {
		tc_error_set(err, TC_E_SYSTEM, path, "read: %s", strerror((int)-n));
		goto out;
	}
	if ((size_t)n > max) {
		tc_error_set(err, TC_E_INVALID, path, "larger than the limit of %zu bytes", max);
		goto out;
	}
	out->len += (size_t)n;
	out->data[out->len] = '\0';
	rc = 0;
out:
	close(fd);
	return rc;
}

json_t *json_load_strict(const char *text, size_t len, const char *origin, struct tc_error *err)
{
	json_error_t je;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		char where[300];
		snprintf(where, sizeof where, "%s:%d:%d", origin, je.line, je.column);
		tc_error_set(err, TC_E_INVALID, where, "not valid JSON: %s", je.text);
	}
	return doc;
}

size_t edit_distance(const char *a, size_t an, const char *b, size_t bn, bool fold_case)
{
	size_t row[EDIT_DISTANCE_MAX + 1];
	an = an < EDIT_DISTANCE_MAX ? an : EDIT_DISTANCE_MAX;
	bn = bn < EDIT_DISTANCE_MAX ? bn : EDIT_DISTANCE_MAX;
	for (size_t j = 0; j <= bn; j++)
		row[j] = j;
	for (size_t i = 1; i <= an; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= bn; j++) {
			size_t up = row[j];
			unsigned char x = (unsigned char)a[i - 1], y = (unsigned char)b[j - 1];
			if (fold_case) {
				x = (unsigned char)tolower(x);
				y = (unsigned char)tolower(y);
			}
			size_t best = diag + (x != y);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[bn];
}

/* Whether a and b (of length n) differ by two neighbours swapped alone
 * ("dney", "deny"): one slip of the fingers, which Levenshtein counts
 * as two. */
static bool one_swap(const char *a, const char *b, size_t n)
{
	size_t i = 0;
	while (i < n && tolower((unsigned char)a[i]) == tolower((unsigned char)b[i]))
		i++;
	if (i + 1 >= n || tolower((unsigned char)a[i]) != tolower((unsigned char)b[i + 1]) ||
	    tolower((unsigned char)a[i + 1]) != tolower((unsigned char)b[i]))
		return false;
	for (i += 2; i < n; i++)
		if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
			return false;
	return true;
}

const char *near_name(const char *want, const char *const *names)
{
	size_t wn = strlen(want), best_d = SIZE_MAX;
	const char *best = NULL;
	for (size_t i = 0; names[i]; i++) {
		size_t n = strlen(names[i]);
		size_t d = n == wn && one_swap(want, names[i], n) ?
		        1 :
		        edit_distance(want, wn, names[i], n, true);
		if (d < best_d)
			best_d = d, best = names[i];
	}
	return best && best_d <= 3 && best_d * 3 <= wn ? best : NULL;
}
