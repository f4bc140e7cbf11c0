/* json_pretty.c — see json_pretty.h. Recursion is bounded by
 * JSON_PRETTY_DEPTH here; what lies deeper goes to jansson's compact
 * writer in one piece. */
#include <stdlib.h>
#include <string.h>

#include "json_pretty.h"
#include "utf8.h"
#include "util.h"

struct pretty {
	struct buf b;
	size_t flags; /* jansson's, for compact pieces */
	bool sort;
	bool oom;
};

/* v as compact JSON, appended. */
static void put_compact(struct pretty *p, const json_t *v)
{
	char small[64];
	size_t n = json_dumpb(v, small, sizeof small, p->flags);
	if (n == 0) {
		p->oom = true;
		return;
	}
	if (n <= sizeof small) {
		p->oom |= buf_add(&p->b, small, n) < 0;
		return;
	}
	char *s = json_dumps(v, p->flags);
	p->oom |= !s || buf_add(&p->b, s, strlen(s)) < 0;
	free(s);
}

static void put_indent(struct pretty *p, int depth)
{
	static const char spaces[] = "                                " /* 32 */
	                             "                                ";
	_Static_assert(sizeof spaces > (size_t)2 * JSON_PRETTY_DEPTH,
	               "room for the deepest indent");
	p->oom |= buf_add(&p->b, "\n", 1) < 0 ||
	        buf_add(&p->b, spaces, (size_t)2 * (size_t)depth) < 0;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void put_value(struct pretty *p, const json_t *v, int depth);

static void put_object(struct pretty *p, const json_t *v, int depth)
{
	size_t n = json_object_size(v), i = 0;
	const char **keys = malloc((n ? n : 1) * sizeof *keys);
	if (!keys) {
		p->oom = true;
		return;
	}
	const char *key;
	json_t *val;
	json_object_foreach((json_t *)v, key, val) if (i < n) keys[i++] = key;
	n = i;
	if (p->sort)
		qsort(keys, n, sizeof *keys, cmp_key);
	p->oom |= buf_add(&p->b, "{", 1) < 0;
	for (i = 0; i < n && !p->oom; i++) {
		json_t *k = json_string(keys[i]);
		if (i)
			p->oom |= buf_add(&p->b, ",", 1) < 0;
		put_indent(p, depth + 1);
		if (k)
			put_compact(p, k);
		else
			p->oom = true;
		json_decref(k);
		p->oom |= buf_add(&p->b, ": ", 2) < 0;
		put_value(p, json_object_get(v, keys[i]), depth + 1);
	}
	put_indent(p, depth);
	p->oom |= buf_add(&p->b, "}", 1) < 0;
	free(keys);
}

static void put_array(struct pretty *p, const json_t *v, int depth)
{
	size_t n = json_array_size(v);
	p->oom |= buf_add(&p->b, "[", 1) < 0;
	for (size_t i = 0; i < n && !p->oom; i++) {
		if (i)
			p->oom |= buf_add(&p->b, ",", 1) < 0;
		put_indent(p, depth + 1);
		put_value(p, json_array_get(v, i), depth + 1);
	}
	put_indent(p, depth);
	p->oom |= buf_add(&p->b, "]", 1) < 0;
}

static void put_value(struct pretty *p, const json_t *v, int depth)
{
	bool object = json_is_object(v), array = json_is_array(v);
	/* Empty containers, scalars, and anything below the indented depth:
	 * compact, on this line. */
	if ((!object && !array) || depth >= JSON_PRETTY_DEPTH || (object && !json_object_size(v)) ||
	    (array && !json_array_size(v)))
		put_compact(p, v);
	else if (object)
		put_object(p, v, depth);
	else
		put_array(p, v, depth);
}

char *json_pretty(const json_t *v, bool sort_keys, size_t *len)
{
	struct pretty p = { BUF_INIT,
		            JSON_COMPACT | JSON_ENCODE_ANY | (sort_keys ? JSON_SORT_KEYS : 0),
		            sort_keys, false };
	put_value(&p, v, 0);
	if (p.oom) {
		buf_release(&p.b);
		return NULL;
	}
	if (len)
		*len = p.b.len;
	return buf_detach(&p.b);
}

static int dump_add(const char *p, size_t n, void *data)
{
	return buf_add(data, p, n);
}

int json_dump_shown(const json_t *v, size_t flags, struct buf *out)
{
	size_t mark = out->len;
	struct buf tail = BUF_INIT;
	if (json_dump_callback(v, dump_add, out, flags) < 0 || out->failed)
		goto fail;
	/* JSON's own syntax is ASCII, so a layout character can only be in a
	 * string, where "\uXXXX" is the same character. They are rare: find
	 * the first before copying anything. */
	const unsigned char *u = (const unsigned char *)out->data;
	size_t i = mark;
	while (i < out->len && !(u[i] >= 0xc2 && utf8_layout_char(u + i, out->len - i)))
		i++;
	if (i == out->len)
		return 0;
	if (buf_add(&tail, out->data + i, out->len - i) < 0)
		goto fail;
	out->len = i;
	out->data[i] = '\0';
	const unsigned char *t = (const unsigned char *)tail.data;
	for (size_t j = 0, run = 0; j < tail.len; j += run) {
		size_t k = 0;
		run = 0;
		while (j + run < tail.len &&
		       !(t[j + run] >= 0xc2 &&
		         (k = utf8_layout_char(t + j + run, tail.len - j - run))))
			run++;
		buf_add(out, t + j, run);
		if (k) {
			char e[UTF8_ESCAPE_MAX + 1];
			buf_add(out, e, utf8_escape(t + j + run, k, e));
			run += k;
		}
	}
	buf_release(&tail);
	if (out->failed)
		goto fail;
	return 0;
fail:
	buf_release(&tail);
	out->len = mark;
	if (out->data)
		out->data[mark] = '\0';
	return -1;
}
