/* pathrel.h — an absolute path inside a directory, as the path below it:
 * how the tools take a model's absolute path inside the workspace. Pure
 * string work: the kernel (openat2 beneath the workspace) still decides
 * what the path reaches. */
#ifndef TC_PATHREL_H
#define TC_PATHREL_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the absolute path p[0..len) is root (an absolute, normalised
 * path, such as the supervisor's realpath of the workspace; trailing
 * slashes ignored) or below it; *skip gets the bytes of p to drop for the
 * path relative to root (its leading slashes too: "" is root itself). A
 * sibling whose name starts with root's ("/ws-old" for "/ws") is not
 * below it. */
bool path_below(const char *root, const char *p, size_t len, size_t *skip);

#endif
