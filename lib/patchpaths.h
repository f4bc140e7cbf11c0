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

/* ---- a diff for a program outside toolcage ------------------------------
 * A manifest tool that runs GNU patch or git apply on a diff argument: the
 * program, not this parser, decides what it writes, so the gate takes only
 * text that both read the same way as this parser, and refuses the rest.
 * Taken: unified diffs, git's included: "diff --git a/NAME b/NAME" and its
 * extended header lines (old/new mode, new/deleted file mode of 100644 or
 * 100755, similarity and dissimilarity index, rename and copy from/to,
 * index), "--- NAME" and "+++ NAME" lines (a tab and a timestamp may
 * follow; /dev/null), hunks whose lines match their header's counts
 * ("\ No newline at end of file" after a line), and blank lines between
 * files. Refused: any other line (text around the diff, "Index:",
 * "Prereq:", context, normal and ed diffs, binary patches, combined
 * diffs), names that are absolute, quoted or hold a space, a control
 * character (a CR), a backslash, or an empty, "." or ".." component,
 * symbolic link and submodule modes, a hunk whose lines do not match its
 * counts (a header hidden inside a hunk), a NUL byte. */

#define PATCH_STRIP_ANY      (-1) /* the program's -p is not known */
#define PATCH_NAME_MAX       1024 /* bytes of a name in a patch */
#define PATCH_NAME_DEPTH_MAX 32   /* components of a name in a patch */

struct patch_refusal {
	long line; /* the line refused, 1-based */
	char why[200];
};

/* Calls fn(data, path) for every path a program that strips strip leading
 * components (-p; PATCH_STRIP_ANY: any number, the name without a -p
 * too) may write for the text's names, in order: the name with strip
 * components dropped (a name with fewer writes nothing), and for a
 * "rename" or "copy" line one fewer too (git strips those one less);
 * under PATCH_STRIP_ANY the name and every suffix of it after a '/'. Stops
 * when fn returns true. Returns the number of files read (at most
 * PATCH_FILES_MAX + 1), or -2 with r filled when the text is refused. */
long patch_strict_each_path(const char *text, size_t len, int strip,
                            bool (*fn)(void *data, const char *path), void *data,
                            struct patch_refusal *r);

#endif
