/* jsonptr.h — JSON pointers (RFC 6901) into a jansson value. */
#ifndef TC_JSONPTR_H
#define TC_JSONPTR_H

#include <jansson.h>

#include "toolcage.h"

#define JSONPTR_MAX 256 /* bytes in one pointer */

/* 0 when ptr is an RFC 6901 JSON pointer ("" or "/..." with ~ only as ~0
 * or ~1, at most JSONPTR_MAX bytes), else -1 with err. */
int jsonptr_check(const char *ptr, struct tc_error *err);
/* The value at ptr in root (borrowed, valid while root is unchanged), or
 * NULL when absent or when ptr fails jsonptr_check. Array steps are decimal
 * indexes without leading zeros. No allocation. */
json_t *jsonptr_get(json_t *root, const char *ptr);
/* The same for ptr[0..len) of any length and any bytes (a NUL names a key
 * holding one), with scratch: len + 1 bytes of the caller's for one token
 * at a time. NULL also for a malformed pointer (no leading '/', a '~' not
 * followed by 0 or 1). */
json_t *jsonptr_getn(json_t *root, const char *ptr, size_t len, char *scratch);
/* Appends one step, "/" and key[0..len) with '~' and '/' escaped, to b.
 * 0, or -1 when out of memory. */
struct buf;
int jsonptr_append(struct buf *b, const char *key, size_t len);

#endif
