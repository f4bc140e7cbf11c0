/* glob_match.h — the one glob matcher: policy rules over paths and names, and
 * every tool that takes a glob. Linear time, no allocation. */
// Globs (glob_match), matched against the whole text, case-sensitive:
//   ?        one character (code point) other than '/'
//   *        any run of characters other than '/' (also empty)
//   **       any run of characters, '/' included (also empty)
//   **/      at the start or after '/': zero or more whole leading segments,
//            so "**/.git/**" matches ".git/config" and "a/b/.git/x"
//   /**      at the end: the path itself or anything below it, so
//            "**/.git/**" matches ".git" and "a/.git" too (a deny rule on a
//            directory also covers the directory; an allow rule's path
//            glob is held to below the directory by the gate)
//   [abc] [a-z] [!a-z] [^a-z]  one character (not '/') in (or not in) the class
//   {a,b}    one of the alternatives, each a glob of its own ("*.{c,h}",
//            "{src,test}/**", "{,.}x" matches "x" and ".x"); groups nest up
//            to 8 deep; ',' and '}' outside a group are plain characters and
//            a '{' that is not closed is refused (write \{ for the character)
//   \c       the character c itself
//   No special case for dot files: "*" matches ".env". Globs match strings,
//   not files: "./.git/x", "a//.git/x" and "a/../.git/x" all match
//   "**/.git/**", but symlinks are the sandbox's business, not the gate's.
// (Line comments here: a block comment cannot hold the glob "**/".)
#ifndef TC_GLOB_MATCH_H
#define TC_GLOB_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "toolcage.h"

#define GLOB_MAX 256 /* bytes in one glob */

/* 0 when pattern is a usable glob (<= GLOB_MAX bytes, valid UTF-8,
 * classes closed, no trailing '\'), else -1 with a message in err. */
int glob_check(const char *pattern, struct tc_error *err);
/* Whether pattern matches all of text[0..len). A pattern that fails
 * glob_check matches nothing. Time O(len * pattern length), no
 * allocation (so it cannot fail open when memory runs out). */
bool glob_match(const char *pattern, const char *text, size_t len);
// A tool's file glob against path[0..len), a path relative to the root of
// a search ("src/a.c", no leading "./"): a pattern without '/' matches the
// last component, the file's name, at any depth ("*.py", as ripgrep's
// --glob and .gitignore read it); one with '/' matches the whole relative
// path ("src/*.py", "**/test_*.py"), a leading "/" or "./" anchoring it at
// the root. Same bounds as glob_match.
bool glob_match_path(const char *pattern, const char *path, size_t len);

#endif
