/* schema_value.c — JSON values as JSON Schema sees them: types by value
 * (1.0 is an integer), numeric comparison across jansson's integer and real,
 * equality where 1 == 1.0 and key order is irrelevant, uniqueness, and short
 * renderings of values and names for diagnostics. */
#define _GNU_SOURCE /* qsort_r */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "schema_internal.h"

/* Above this nesting, equality gives up (-1) instead of recursing further:
 * instances from code (not the parser) have no depth limit of their own. */
#define EQ_MAX_DEPTH 512

/* No libm calls here: the library links without -lm. Doubles of magnitude
 * 2^53 and above are all integers. */
bool real_is_integral(double d)
{
	if (!isfinite(d))
		return false;
	if (fabs(d) >= 9007199254740992.0)
		return true;
	return d == (double)(long long)d;
}

const char *json_type_word(unsigned t)
{
	switch (t) {
	case ST_NULL: return "null";
	case ST_BOOL: return "boolean";
	case ST_INT: return "integer";
	case ST_NUM: return "number";
	case ST_STR: return "string";
	case ST_ARR: return "array";
	case ST_OBJ: return "object";
	}
	return "value";
}

/* Compares two JSON numbers exactly when both are integers; otherwise in
 * long double, which holds every int64 and every double exactly on x86-64
 * (elsewhere it is at worst the double comparison). */
int num_cmp(const json_t *a, const json_t *b)
{
	if (json_is_integer(a) && json_is_integer(b)) {
		json_int_t x = json_integer_value(a), y = json_integer_value(b);
		return x < y ? -1 : x > y;
	}
	long double x = json_is_integer(a) ? (long double)json_integer_value(a) :
	                                     (long double)json_real_value(a);
	long double y = json_is_integer(b) ? (long double)json_integer_value(b) :
	                                     (long double)json_real_value(b);
	return x < y ? -1 : x > y;
}

/* multipleOf: exact for integers; for reals the quotient must be within
 * 1e-9 of an integer, so 0.3 is a multiple of 0.1 (binary floating point
 * makes the exact test say no), or within 4 units in the last place when
 * the quotient is so large that 1e-9 is below its rounding error. (A
 * tolerance of 1e-9 times the quotient made 1000000000.5 a multiple of 1.)
 * An infinite quotient is "not a multiple", never a crash. */
bool num_is_multiple(const json_t *x, const json_t *m)
{
	if (json_is_integer(x) && json_is_integer(m)) {
		json_int_t a = json_integer_value(x), d = json_integer_value(m);
		if (d == 0)
			return false;
		if (d == -1)
			return true; /* avoids INT64_MIN % -1 */
		return a % d == 0;
	}
	double a = json_number_value(x), d = json_number_value(m);
	if (d == 0)
		return false;
	double q = a / d;
	if (!isfinite(q))
		return false;
	if (fabs(q) >= 4503599627370496.0) /* 2^52: q is an integer */
		return true;
	double r = (double)(long long)(q + (q >= 0 ? 0.5 : -0.5));
	double ulps = 4 * DBL_EPSILON * fabs(q);
	return fabs(q - r) <= (ulps > 1e-9 ? ulps : 1e-9);
}

int json_equal_value(const json_t *a, const json_t *b, unsigned depth)
{
	if (depth > EQ_MAX_DEPTH)
		return -1;
	if (json_is_number(a) && json_is_number(b))
		return num_cmp(a, b) == 0;
	if (json_typeof(a) != json_typeof(b))
		return 0;
	switch (json_typeof(a)) {
	case JSON_STRING:
		return json_string_length(a) == json_string_length(b) &&
		        !memcmp(json_string_value(a), json_string_value(b), json_string_length(a));
	case JSON_ARRAY: {
		size_t n = json_array_size(a);
		if (n != json_array_size(b))
			return 0;
		for (size_t i = 0; i < n; i++) {
			int r = json_equal_value(json_array_get(a, i), json_array_get(b, i),
			                         depth + 1);
			if (r != 1)
				return r;
		}
		return 1;
	}
	case JSON_OBJECT: {
		if (json_object_size(a) != json_object_size(b))
			return 0;
		const char *k;
		size_t klen;
		json_t *va;
		json_object_keylen_foreach((json_t *)a, k, klen, va)
		{
			json_t *vb = json_object_getn(b, k, klen);
			if (!vb)
				return 0;
			int r = json_equal_value(va, vb, depth + 1);
			if (r != 1)
				return r;
		}
		return 1;
	}
	default: return 1; /* null, true, false: same type is equal */
	}
}

int json_value_depth_ok(const json_t *v, unsigned limit)
{
	if (limit == 0)
		return 0;
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++)
			if (!json_value_depth_ok(json_array_get(v, i), limit - 1))
				return 0;
	} else if (json_is_object(v)) {
		const char *k;
		json_t *x;
		json_object_foreach((json_t *)v, k,
		                    x) if (!json_value_depth_ok(x, limit - 1)) return 0;
	}
	return 1;
}

/* Canonical texts for uniqueItems: two values get the same text exactly
 * when json_equal_value calls them equal (1 and 1.0 alike, object keys in
 * byte order). Each piece is self-delimiting: numbers end with ';', strings
 * and keys carry their length, arrays and objects their size.
 *
 * Why not a hash: the previous one (FNV-1a and an invertible mixer, the
 * same for everyone) let an instance be built whose items all share one
 * hash, and comparing within equal-hash runs made uniqueItems quadratic
 * (1 MiB of such pairs: 7 s). Sorting texts costs n log n comparisons
 * whatever the items are. */
static int canon_number(struct buf *b, const json_t *v)
{
	if (json_is_integer(v))
		return buf_printf(b, "#%" JSON_INTEGER_FORMAT ";", json_integer_value(v));
	double d = json_real_value(v);
	/* an integral real equal to some integer gets that integer's text */
	if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && d == (double)(long long)d)
		return buf_printf(b, "#%lld;", (long long)d);
	char t[40];
	for (int prec = 15; prec <= 17; prec++) { /* shortest text that reads back */
		snprintf(t, sizeof t, "%.*g", prec, d);
		if (strtod(t, NULL) == d)
			break;
	}
	return buf_printf(b, "#%s;", t); /* holds '.' or 'e': no integer's text */
}

struct keyref {
	const char *k;
	size_t len;
	const json_t *v;
};

static int keyref_cmp(const void *a, const void *b)
{
	const struct keyref *x = a, *y = b;
	int c = memcmp(x->k, y->k, x->len < y->len ? x->len : y->len);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int canon(struct buf *b, const json_t *v, unsigned depth)
{
	if (depth > EQ_MAX_DEPTH)
		return -1;
	switch (json_typeof(v)) {
	case JSON_INTEGER:
	case JSON_REAL: return canon_number(b, v);
	case JSON_STRING:
		if (buf_printf(b, "s%zu:", json_string_length(v)) < 0)
			return -1;
		return buf_add(b, json_string_value(v), json_string_length(v));
	case JSON_ARRAY:
		if (buf_printf(b, "[%zu:", json_array_size(v)) < 0)
			return -1;
		for (size_t i = 0; i < json_array_size(v); i++)
			if (canon(b, json_array_get(v, i), depth + 1) < 0)
				return -1;
		return 0;
	case JSON_OBJECT: {
		size_t n = json_object_size(v), i = 0;
		struct keyref *keys = malloc((n ? n : 1) * sizeof *keys);
		const char *k;
		size_t klen;
		json_t *x;
		int rc = keys && buf_printf(b, "{%zu:", n) == 0 ? 0 : -1;
		if (rc == 0) {
			json_object_keylen_foreach((json_t *)v, k, klen, x) keys[i++] =
			        (struct keyref){ k, klen, x };
			qsort(keys, n, sizeof *keys, keyref_cmp);
		}
		for (i = 0; rc == 0 && i < n; i++)
			if (buf_printf(b, "%zu:", keys[i].len) < 0 ||
			    buf_add(b, keys[i].k, keys[i].len) < 0 ||
			    canon(b, keys[i].v, depth + 1) < 0)
				rc = -1;
		free(keys);
		return rc;
	}
	case JSON_TRUE: return buf_adds(b, "t");
	case JSON_FALSE: return buf_adds(b, "f");
	default: return buf_adds(b, "n");
	}
}

struct canon_item {
	size_t off, len, i;
};

/* qsort_r's comparator (validation may run on several threads at once:
 * no static for the texts) */
static int canon_item_cmp(const void *a, const void *b, void *texts)
{
	const struct canon_item *x = a, *y = b;
	const char *t = texts;
	int c = memcmp(t + x->off, t + y->off, x->len < y->len ? x->len : y->len);
	if (!c)
		c = (x->len > y->len) - (x->len < y->len);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* uniqueItems: pairwise for short arrays (no allocation), else sort the
 * items' canonical texts, so that equal items are neighbours: n log n
 * comparisons whatever the items are. Reports the first duplicate pair
 * found. */
int unique_items_check(const json_t *arr, size_t *dup_a, size_t *dup_b)
{
	size_t n = json_array_size(arr);
	if (n <= 16) {
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++) {
				int r = json_equal_value(json_array_get(arr, i),
				                         json_array_get(arr, j), 0);
				if (r < 0)
					return -1;
				if (r) {
					*dup_a = i;
					*dup_b = j;
					return 0;
				}
			}
		return 1;
	}
	struct canon_item *items = malloc(n * sizeof *items);
	struct buf text = BUF_INIT;
	int verdict = items ? 1 : -1;
	for (size_t i = 0; verdict == 1 && i < n; i++) {
		items[i] = (struct canon_item){ text.len, 0, i };
		if (canon(&text, json_array_get(arr, i), 1) < 0)
			verdict = -1;
		else
			items[i].len = text.len - items[i].off;
	}
	if (verdict == 1) {
		qsort_r(items, n, sizeof *items, canon_item_cmp,
		        text.data ? text.data : (char *)"");
		for (size_t i = 0; i + 1 < n; i++) {
			const struct canon_item *x = &items[i], *y = &items[i + 1];
			if (x->len == y->len &&
			    !memcmp(text.data + x->off, text.data + y->off, x->len)) {
				*dup_a = x->i;
				*dup_b = y->i;
				verdict = 0;
				break;
			}
		}
	}
	free(items);
	buf_release(&text);
	return verdict;
}

/* Appends s as 'name' with control characters and quotes escaped and a cut
 * at 64 bytes (on a UTF-8 boundary), so a hostile key cannot break the
 * one-line output or flood it. */
int buf_add_name(struct buf *b, const char *s, size_t len)
{
	size_t max = 64, i = 0;
	int rc = buf_adds(b, "'");
	for (; i < len && i < max && rc == 0; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			rc = buf_printf(b, "\\u%04x", c);
		else if (c == '\'' || c == '\\')
			rc = buf_printf(b, "\\%c", c);
		else
			rc = buf_add(b, &s[i], 1);
	}
	if (rc == 0 && i < len) {
		while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
			rc = buf_add(b, &s[i++], 1);
		if (i < len)
			rc = buf_adds(b, "...");
	}
	return rc ? rc : buf_adds(b, "'");
}

/* Appends v as compact JSON, cut to about max bytes. */
int buf_add_value(struct buf *b, const json_t *v, size_t max)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
	if (!s)
		return -1;
	size_t n = strlen(s);
	int rc;
	if (n > max) {
		while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
			max--;
		rc = buf_add(b, s, max);
		if (rc == 0)
			rc = buf_adds(b, "...");
	} else {
		rc = buf_add(b, s, n);
	}
	free(s);
	return rc;
}
