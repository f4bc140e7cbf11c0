/* trust.h — nothing the supervisor trusts may be writable by a tool.
 *
 * The supervisor acts on files it reads (its configuration, sandbox
 * profiles, tool manifests), runs an approver program unconfined and
 * appends to an audit log. A tool that could write any of them would
 * rewrite its own jail or policy for the next call: a toolcage.json in the
 * workspace saying "destructive": "allow", a profile granting "/", an
 * approver script replaced by one that says yes. So every such path is
 * checked against the directories tools may write (the workspace and every
 * write path of a profile in use): neither the path itself nor any
 * directory it is looked up through (symlinks followed one by one) may be
 * one of them or lie beneath one, since a tool could swap an entry there.
 *
 * Nor may every local user write it (the file, or a directory on the way
 * that is not sticky): any account could plant there what a tool would.
 *
 * The check is symmetric: a writable directory added later (a profile
 * loaded on its first use) is refused when a path already trusted lies
 * beneath it or is looked up through it.
 *
 * Not thread-safe (toolcage is single-threaded).
 */
#ifndef TC_TRUST_H
#define TC_TRUST_H

#include <stdbool.h>
#include <stddef.h>

#include "toolcage.h"

struct trust;
struct profile;

/* A new, empty trust set, or NULL when out of memory. */
struct trust *trust_new(void);
/* Frees t. NULL is a no-op. */
void trust_free(struct trust *t);

/* Records dir (a directory tools may write; what says why, e.g. "the
 * workspace", copied) as writable. A dir that does not exist grants
 * nothing and is skipped. 0, or -1 with err when a trusted path lies
 * beneath it (err says which and what to do), or when it cannot be
 * resolved. */
int trust_add_writable(struct trust *t, const char *dir, const char *what, struct tc_error *err);

/* Records path (a file or directory the supervisor trusts; what names it,
 * e.g. "the configuration", copied) as trusted after checking that no
 * tool can write it. A path that does not exist yet (an audit log) is
 * checked up to its last existing directory. Relative paths are taken
 * from the current directory. 0, or -1 with err saying why it is refused
 * and what to do (hint, or NULL for the general advice). */
int trust_add_trusted(struct trust *t, const char *path, const char *what, const char *hint,
                      struct tc_error *err);

/* trust_add_trusted for the file a profile was read from (none for a
 * built-in one), then trust_add_writable for each of its write paths. */
int trust_add_profile(struct trust *t, const struct profile *p, struct tc_error *err);

#endif
