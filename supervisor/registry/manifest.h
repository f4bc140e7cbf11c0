/* manifest.h — tools defined as JSON files that wrap an external command.
 *
 * A manifest:
 *   {"name": "grep_file", "description": "...", "parameters": {...},
 *    "risk": "read-only" | ["read-only", "write"],   (a list: the highest)
 *    "command": ["/usr/bin/grep", "-n", "--", "{{pattern}}", "{{path}}"],
 *    "stdin": "{{text}}", "output": "text" | "json" | "content", "channel": true, "profile": "...",
 *    "timeout_ms": 5000, "title": "...", "idempotent": true, "url_arg": "/url"}
 * Unknown keys are errors. Arguments reach the command only as argv
 * elements (or stdin), never through a shell; see manifest_expand.
 */
#ifndef TC_MANIFEST_H
#define TC_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "registry.h"
#include "schema.h"
#include "toolcage.h"

#define MANIFEST_FILE_MAX        (1u << 20) /* bytes of one manifest file */
#define MANIFEST_DIR_MAX         1024       /* manifests in one directory */
#define MANIFEST_CMD_MAX         256        /* elements of the command template */
#define MANIFEST_ARGC_MAX        4096       /* argv elements after expansion */
#define MANIFEST_ARG_MAX         (128u << 10) /* bytes of one element with its NUL (Linux MAX_ARG_STRLEN) */
#define MANIFEST_ARGV_TOTAL_MAX  (1u << 20) /* bytes of all elements together */
#define MANIFEST_STDIN_MAX       (4u << 20) /* bytes of the expanded stdin */
#define MANIFEST_PLACEHOLDER_MAX 64         /* characters of a placeholder name */

/* Reads a JSON file of at most max bytes (must be a regular file). Returns
 * a new reference or NULL with err (where = path, with line:column for
 * syntax errors). Duplicate keys are refused. */
json_t *manifest_read_json(const char *path, size_t max, struct tc_error *err);

/* Loads and defines one manifest. draft is passed to schema_compile.
 * Returns a new reference or NULL with err (where = path; the message names
 * the file and the key or rule at fault). */
struct tc_defined *manifest_load_file(const char *path, enum schema_draft draft,
                                      struct tc_error *err);

/* The *.json files directly in dir (not hidden, regular files), sorted by
 * byte order so loading is the same on every machine. *paths is a new
 * array of new strings (free with manifest_paths_free); at most
 * MANIFEST_DIR_MAX. */
int manifest_list_dir(const char *dir, char ***paths, size_t *n, struct tc_error *err);
void manifest_paths_free(char **paths, size_t n);

/* Loads path (a manifest file, or a directory: every *.json in it, sorted)
 * and registers the tools as one group, all or nothing. *out (may be NULL)
 * unregisters them; same lifetime rules as tc_registry_add. */
int manifest_register(struct tc_registry *reg, const char *path, enum schema_draft draft,
                      struct tc_disposer *out, struct tc_error *err);

/* ---- templates --------------------------------------------------------- */

/* One step through a template: a literal run, then at most one placeholder.
 * name is NULL at the end of the template. */
struct manifest_piece {
	const char *lit;
	size_t litlen;
	const char *name;
	size_t namelen;
};

/* Reads the next piece of the template at *s and advances *s. Returns 1
 * for a piece, 0 at the end, -1 for a malformed placeholder ("{{" without
 * "}}", or a name that is not [A-Za-z_][A-Za-z0-9_]* of at most
 * MANIFEST_PLACEHOLDER_MAX characters). */
int manifest_tpl_next(const char **s, struct manifest_piece *p);

/* True when elem is exactly one placeholder (e.g. "{{path}}"). */
bool manifest_tpl_is_whole(const char *elem);

/* A command ready to exec. */
struct manifest_call {
	char **argv; /* NULL-terminated; argv[0] is the program path */
	size_t argc;
	char *stdin_data; /* NULL when the tool has no stdin template */
	size_t stdin_len;
};

/* Fills t's command and stdin templates from args (borrowed; the validated
 * arguments object, or NULL for none). A placeholder is replaced by the
 * argument's string form: strings as they are, numbers and booleans as JSON
 * text, objects and arrays as compact JSON. An element that is exactly one
 * placeholder disappears when the argument is missing (or null) and becomes
 * one element per item when it is an array; a placeholder inside a larger
 * element becomes "" when missing. Refuses NUL bytes in argv and anything
 * beyond the MANIFEST_* bounds. On success out is filled (release with
 * manifest_call_release); on failure out is empty and err says which
 * argument and bound. */
int manifest_expand(const struct tc_defined *t, const json_t *args, struct manifest_call *out,
                    struct tc_error *err);
void manifest_call_release(struct manifest_call *c);

#endif
