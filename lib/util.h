/* util.h — small helpers every supervisor/ module uses: a growable byte
 * buffer and error filling. */
#ifndef TC_UTIL_H
#define TC_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "toolcage.h"

/* A growable buffer, always NUL-terminated once anything was added.
 * Invariant: len < cap when data != NULL. Init with BUF_INIT.
 * A failed allocation sticks (failed): every later add fails too and
 * buf_detach returns NULL, so a caller may append freely and check once. */
struct buf {
	char *data;
	size_t len;
	size_t cap;
	bool failed;
};
#define BUF_INIT                                                                                   \
	{                                                                                          \
		NULL, 0, 0, false                                                                  \
	}

int buf_grow(struct buf *b, size_t extra); /* 0 or -1 (ENOMEM) */
int buf_add(struct buf *b, const void *p, size_t n);
int buf_adds(struct buf *b, const char *s);
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The NULL-terminated list items, sep between each two. */
int buf_join(struct buf *b, const char *const *items, const char *sep);
/* Returns the data (new: malloc'd, NUL-terminated, "" if empty) and resets
 * b; NULL when an add failed (b is released either way) or out of memory. */
char *buf_detach(struct buf *b);
void buf_release(struct buf *b);

/* Reads one line of f into b (NUL-terminated, its newline dropped).
 * Returns 1 for a line, 0 at end of input. A line over max bytes is read
 * to its end but not kept (*too_long; also when memory runs out). Byte by
 * byte rather than fgets, so that a NUL byte inside cannot hide the rest of
 * the line and its newline: the caller finds it with memchr over b->len. */
int buf_read_line(FILE *f, struct buf *b, size_t max, bool *too_long);

/* Reads the regular file path, at most max bytes (a longer file is an
 * error, not cut), into out (NUL-terminated). 0, or -1 with err: code
 * TC_E_NOT_FOUND when the file does not exist, TC_E_INVALID when it is not
 * a regular file or too large, TC_E_SYSTEM otherwise. where = path. */
int read_file_bounded(const char *path, size_t max, struct buf *out, struct tc_error *err);

/* Parses text strictly (duplicate keys refused). Returns a new value, or
 * NULL with err where = "origin:line:column". */
json_t *json_load_strict(const char *text, size_t len, const char *origin, struct tc_error *err);

/* The one bound on how deeply JSON the supervisor reads or passes on may
 * nest arrays and objects: a client's message (MCP), and a tool's output
 * (a builtin's or a manifest tool's canonical, MCP content, a channel
 * message) before it reaches an MCP client, the audit log or a render.
 * jansson alone takes 2048 levels, and a client's own parser may recurse
 * once per level. */
#define JSON_DEPTH_MAX 64

/* The deepest nesting of arrays and objects in JSON text p[0..n) (0 for a
 * scalar), brackets inside strings not counted; text that is not JSON gets
 * a number too (its parser refuses it). One pass, no memory: run it before
 * a parser that would recurse. */
size_t json_text_depth(const char *p, size_t n);

/* What a parser would make of JSON text p[0..n), by the same pass as
 * json_text_depth: its depth, and how many values (keys included) it holds,
 * each of which a parser allocates (jansson: 30 to 250 bytes, an empty
 * object the most), so that a short text of many small values ("{},"
 * again and again: 1.4 million in 4 MiB) can be refused before it is
 * parsed into 80 times its size. */
struct json_text_shape {
	size_t depth;
	size_t values;
};
void json_text_shape(const char *p, size_t n, struct json_text_shape *shape);

/* The most JSON values (keys included) a tool's output may hold to be
 * parsed: as many as a client's message may at the default
 * limits.max_message_bytes, so that one output costs at most ~30 MiB
 * parsed (an empty object, the dearest value, takes ~240 bytes) where 1
 * MiB of "{}," would take 80. */
#define JSON_OUTPUT_VALUES_MAX (1u << 17)

/* The first key of obj that is not in allowed (NULL-terminated), borrowed
 * from obj; NULL when every key is allowed. Strict parsers use it so that a
 * typo cannot silently fall back to a default. */
const char *json_unknown_key(json_t *obj, const char *const *allowed);

/* What v is, for a message that says what was found instead: "a string",
 * "a number", "an object", "an array", "a boolean" or "null". */
const char *json_kind(const json_t *v);

/* The name of names (NULL-terminated) nearest to want when it is a likely
 * typo of it (at most 3 edits, and no more than a third of want; letters'
 * case aside, two neighbours swapped one edit), else NULL: "did you mean"
 * in the strict parsers' errors. */
const char *near_name(const char *want, const char *const *names);

/* The integer v holds, clamped to lo..hi; dflt when v is not a number.
 * JSON Schema's "integer" takes 2.0 and 1e20 (jansson: reals), so a value
 * a schema let through as an integer is read whatever jansson made of it:
 * a real is clamped, then cut to its whole part. */
long long json_int_clamped(const json_t *v, long long dflt, long long lo, long long hi);

/* The Levenshtein distance of a and b, each cut to EDIT_DISTANCE_MAX
 * bytes; fold_case counts a letter in the other case as the same (ASCII).
 * Time a product of the lengths, no memory but the stack. */
#define EDIT_DISTANCE_MAX 256
size_t edit_distance(const char *a, size_t an, const char *b, size_t bn, bool fold_case);

/* Fills err (if not NULL) and returns -1. */
int tc_error_set(struct tc_error *err, int code, const char *where, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* The same with the message's arguments in ap (which it uses up). */
int tc_error_vset(struct tc_error *err, int code, const char *where, const char *fmt, va_list ap)
        __attribute__((format(printf, 4, 0)));

#endif
