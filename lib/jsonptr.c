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

/* Array index: decimal, no leading zeros, no sign. */
static bool parse_index(const char *s, size_t *out)
{
	if (!*s || (s[0] == '0' && s[1]) || strlen(s) > 9)
		return false;
	size_t v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (size_t)(*s - '0');
	}
	*out = v;
	return true;
}

json_t *jsonptr_get(json_t *root, const char *ptr)
{
	if (jsonptr_check(ptr, NULL) < 0)
		return NULL;
	json_t *cur = root;
	const char *p = ptr;
	while (cur && *p == '/') {
		char key[JSONPTR_MAX + 1];
		size_t k = 0;
		for (p++; *p && *p != '/'; p++) {
			if (*p == '~') {
				key[k++] = p[1] == '0' ? '~' : '/';
				p++;
			} else {
				key[k++] = *p;
			}
		}
		key[k] = '\0';
		size_t idx;
		if (json_is_object(cur))
			cur = json_object_get(cur, key);
		else if (json_is_array(cur) && parse_index(key, &idx))
			cur = json_array_get(cur, idx);
		else
			cur = NULL;
	}
	return cur;
}

