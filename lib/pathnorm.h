/* pathnorm.h — a path argument as the tool will resolve it, for the policy
 * that matches it: its spelling made plain (".", "//", a trailing '/'),
 * ".." taken back, and the symbolic links in the workspace followed. A
 * rule written on "tmp" and below must see "tmp/../src" as "src", and a
 * rule on ".git" must see "link/config" when link points at .git. */
#ifndef TC_PATHNORM_H
#define TC_PATHNORM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PATHNORM_MAX 4096 /* bytes of a path, the NUL included */

enum path_form {
	PATH_PLAIN = 0, /* normalized without taking anything back */
	PATH_DOTDOT,    /* a ".." took a component back: what the kernel finds
	                     * only if that component is no symbolic link */
	PATH_ESCAPES,   /* ".." climbs above the start */
	PATH_ABSOLUTE,  /* starts with '/' */
	PATH_INVALID,   /* empty, a NUL byte inside, or too long */
};

/* Normalizes the relative path in[0..len) lexically into out[size]: "."
 * components and repeated or trailing '/' dropped, each ".." taking the
 * component before it back; "." for the start itself. Returns the form
 * (out is set for PATH_PLAIN and PATH_DOTDOT only). */
enum path_form path_normalize(const char *in, size_t len, char *out, size_t size);

/* Resolves the relative path rel (as path_normalize gives it, or with ".."
 * left in) below the directory dirfd the way openat2(RESOLVE_BENEATH)
 * would: component by component, each symbolic link read and followed.
 * out[size] gets the real relative path of what exists, then the rest as
 * written ("." for the directory itself). *linked is set when a link was
 * followed. 0, or -1 when the path leads out of the directory (an absolute
 * link, ".." above it), loops, or cannot be looked at (errno set). */
int path_resolve_beneath(int dirfd, const char *rel, char *out, size_t size, bool *linked);

/* openat(dirfd, rel, flags, mode) as openat2 with RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS would open it, for where
 * openat2 is missing (Linux < 5.6, valgrind, or a seccomp filter that
 * answers ENOSYS to it): rel normalized lexically (".." above dirfd,
 * or an absolute path: -EXDEV), then walked one component at a time
 * with O_NOFOLLOW, each directory opened from the one before, so no
 * symbolic link (magic ones included) is ever followed, wherever it is
 * or appears meanwhile: -ELOOP. A trailing '/' asks for a directory.
 * Returns the fd (O_CLOEXEC) or -errno. */
int path_open_beneath(int dirfd, const char *rel, int flags, mode_t mode);

/* The same as RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS alone would open it:
 * links beneath dirfd followed (path_resolve_beneath), then what they
 * lead to opened by path_open_beneath, so a link swapped in between is
 * refused, never followed out. Returns the fd or -errno. */
int path_open_links_beneath(int dirfd, const char *rel, int flags);

/* Whether path equals dir or lies beneath it (both normalized, relative;
 * "." is every path's ancestor). */
bool path_within(const char *path, const char *dir);

#endif
