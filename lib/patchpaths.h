/* patchpaths.h — the paths a unified diff names, read the one way both the
 * apply_patch tool and the policy read them. A patch is an argument whose
 * target paths are inside its text ("--- a/x" and "+++ b/x" headers, a new
 * file's "--- /dev/null"), so the gate's path rules (deny rules, protected
 * paths, the workspace's bounds) must see them before approval, and see
 * exactly the paths the tool will write: a second parser that read them a
 * little differently would be a way around every rule. */
#ifndef TC_PATCHPATHS_H
#define TC_PATCHPATHS_H

#include <stdbool.h>
#include <stddef.h>

/* File sections in one patch: the tool refuses more, and the gate denies
 * more (each path it sees costs a walk of the workspace). */
#define PATCH_FILES_MAX 100

/* Whether the lines a[0..an) and b[0..bn) (no '\n') are a file header:
 * a "--- " line and then a "+++ " line. */
bool patch_is_header(const char *a, size_t an, const char *b, size_t bn);

/* One file header's paths: up to a tab (a timestamp follows), trailing
 * blanks and CR dropped, git's "a/" and "b/" prefixes dropped when both
 * sides have them (or the other is /dev/null). A path is NULL for
 * /dev/null (old: the file is created; new: it is deleted). */
struct patch_header {
	char *old_path, *new_path; /* new, or NULL for /dev/null */
	bool old_null, new_null;
};

/* Reads the header lines a and b (patch_is_header holds). 0, or -1 when
 * out of memory (h is then empty). */
int patch_header_parse(const char *a, size_t an, const char *b, size_t bn, struct patch_header *h);
void patch_header_release(struct patch_header *h);

/* Calls fn(data, path) for each path of each file header in text[0..len),
 * in order, the old one first (a path twice when both sides name it), and
 * stops when fn returns true. Lines are split on '\n' as apply_patch splits
 * them; every "--- " line followed by a "+++ " line is a header, wherever
 * it is (apply_patch ends a hunk at one). Returns the number of headers
 * seen, or -1 when out of memory; at most PATCH_FILES_MAX + 1 headers are
 * read (more is refused by the tool, denied by the gate). */
long patch_each_path(const char *text, size_t len, bool (*fn)(void *data, const char *path),
                     void *data);

#endif
