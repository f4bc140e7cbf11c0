/* jsonptr.c — see jsonptr.h. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonptr.h"
#include "util.h"

/* ---- JSON pointers (RFC 6901) ----------------------------------------- */

int jsonptr_check(const char *ptr, struct tc_error *err)
{
	size_t n = strlen(ptr);
	if (n > JSONPTR_MAX)
		return tc_error_set(err, TC_E_INVALID, ptr, "JSON pointer is longer than %d bytes",
		                    JSONPTR_MAX);
	if (n && ptr[0] != '/')
		return tc_error_set(err, TC_E_INVALID, ptr,
		                    "JSON pointer must start with '/' (e.g. \"/path\")");
	for (size_t i = 0; i < n; i++)
		if (ptr[i] == '~' && ptr[i + 1] != '0' && ptr[i + 1] != '1')
			return tc_error_set(err, TC_E_INVALID, ptr,
			                    "'~' in a JSON pointer must be ~0 ('~') or ~1 ('/')");
	return 0;
}

/* Array index: decimal, no leading zeros, no sign, at most 9 digits. */
static bool parse_index(const char *s, size_t n, size_t *out)
{
	if (!n || n > 9 || (s[0] == '0' && n > 1))
		return false;
	size_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (size_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

json_t *jsonptr_getn(json_t *root, const char *ptr, size_t len, char *scratch)
{
	if (len && ptr[0] != '/')
		return NULL;
	json_t *cur = root;
	size_t p = 0;
	while (cur && p < len) {
		size_t k = 0;
		for (p++; p < len && ptr[p] != '/'; p++) {
			if (ptr[p] != '~') {
				scratch[k++] = ptr[p];
			} else if (p + 1 < len && (ptr[p + 1] == '0' || ptr[p + 1] == '1')) {
				scratch[k++] = ptr[p + 1] == '0' ? '~' : '/';
				p++;
			} else {
				return NULL;
			}
		}
		size_t idx;
		if (json_is_object(cur))
			cur = json_object_getn(cur, scratch, k);
		else if (json_is_array(cur) && parse_index(scratch, k, &idx))
			cur = json_array_get(cur, idx);
		else
			cur = NULL;
	}
	return cur;
}

json_t *jsonptr_get(json_t *root, const char *ptr)
{
	char scratch[JSONPTR_MAX + 1];
	size_t n = strlen(ptr);
	return n <= JSONPTR_MAX ? jsonptr_getn(root, ptr, n, scratch) : NULL;
}

int jsonptr_append(struct buf *b, const char *key, size_t len)
{
	if (buf_grow(b, len + 8) < 0)
		return -1;
	b->data[b->len++] = '/';
	for (size_t i = 0; i < len; i++) {
		if (key[i] == '~' || key[i] == '/') {
			if (buf_grow(b, len - i + 2) < 0)
				return -1;
			b->data[b->len++] = '~';
			b->data[b->len++] = key[i] == '~' ? '0' : '1';
		} else {
			b->data[b->len++] = key[i];
		}
	}
	b->data[b->len] = '\0';
	return 0;
}
