/* jsonptr.h — JSON pointers (RFC 6901) into a jansson value. */
#ifndef TC_JSONPTR_H
#define TC_JSONPTR_H

#include <jansson.h>

#include "toolcage.h"

#define JSONPTR_MAX 256     /* bytes in one pointer */

/* 0 when ptr is an RFC 6901 JSON pointer ("" or "/..." with ~ only as ~0
 * or ~1, at most JSONPTR_MAX bytes), else -1 with err. */
int jsonptr_check(const char *ptr, struct tc_error *err);
/* The value at ptr in root (borrowed, valid while root is unchanged), or
 * NULL when absent. Array steps are decimal indexes without leading zeros. */
json_t *jsonptr_get(json_t *root, const char *ptr);

#endif
