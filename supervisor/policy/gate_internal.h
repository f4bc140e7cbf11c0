/* gate_internal.h — what gate.c and gate_paths.c share: path arguments as
 * the rules and the protected-path check see them. */
#ifndef TC_GATE_INTERNAL_H
#define TC_GATE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "gate.h"
#include "patchpaths.h"
#include "pathnorm.h"

/* One path argument, seen three ways (see gate_paths.c). */
struct path_view {
	const char *raw; /* as written (borrowed) */
	size_t raw_len;
	char norm[PATHNORM_MAX]; /* lexically plain, relative to the workspace */
	bool has_norm;           /* false: absolute outside it, escaping, empty */
	char real[PATHNORM_MAX]; /* symbolic links in the workspace followed */
	bool has_real;
	bool exact;      /* plain as written, no link: allow rules may match */
	bool from_patch; /* named by the patch argument's headers */
};

void path_view_of(const struct gate_call *call, const char *raw, size_t len, struct path_view *pv);
/* Whether glob matches the path: for an allow rule only an exact path, by
 * its plain form; otherwise any of its three forms. */
bool path_view_match(const struct path_view *pv, const char *glob, bool allow);
/* Whether the argument pointer ptr is a path argument of the call's tool
 * (one of its path_args, or an element below one). */
bool gate_is_path_arg(const struct gate_call *call, const char *ptr);
/* Calls fn for each path argument of the call (a string, or each string
 * of an array; first the paths of its patch argument) until fn returns
 * true. Returns how many it saw, or -1 when
 * out of memory (-2: a program's patch the gate refuses). */
long gate_each_path(const struct gate_call *call,
                    bool (*fn)(void *data, const struct path_view *pv), void *data);
/* Calls fn for each path the call's patch argument names (the old and the
 * new path of each file header; for a program's patch, every path the
 * program may write for them) until fn returns true (*stopped). Returns
 * how many it saw, -1 when out of memory, or -2 when a program's patch is
 * refused (*refused says where and why; refused may be NULL); *headers
 * gets the number of file headers read (at most PATCH_FILES_MAX + 1). 0
 * without a patch. */
long gate_patch_paths(const struct gate_call *call,
                      bool (*fn)(void *data, const struct path_view *pv), void *data, long *headers,
                      bool *stopped, struct patch_refusal *refused);
/* s[0..len) for a message: at most size-1 bytes, control characters shown
 * as their pictures (a name must not start a line of its own). */
void gate_quote(char *out, size_t size, const char *s, size_t len);

#endif
