/* json_pretty.h — JSON laid out for a person or a model to read, in time
 * and memory linear in the value whatever its shape.
 *
 * json_dumps with JSON_INDENT(n) indents every line by n times its depth,
 * so its output grows with size times depth: 64 KiB of nested arrays from
 * a tool became ~250 MiB of spaces (and seconds of the one event loop).
 * Here lines are indented as JSON_INDENT(2) does, but only down to
 * JSON_PRETTY_DEPTH levels; a container deeper than that is written
 * compact on the line of its parent. Up to that depth the text is exactly
 * json_dumps(v, JSON_INDENT(2) | JSON_ENCODE_ANY [| JSON_SORT_KEYS]). */
#ifndef TC_JSON_PRETTY_H
#define TC_JSON_PRETTY_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#define JSON_PRETTY_DEPTH 16

/* Bytes of text json_pretty may write per byte of the value's compact
 * JSON (indentation, newlines, ": "), and a constant: its bound. */
#define JSON_PRETTY_FACTOR (2 * JSON_PRETTY_DEPTH + 3)

/* The text of v (any value), malloc'd and NUL-terminated, its length in
 * *len when len is not NULL; NULL when out of memory. sort_keys: object
 * keys in byte order (as JSON_SORT_KEYS). */
char *json_pretty(const json_t *v, bool sort_keys, size_t *len);

struct buf;
/* The text of v as json_dump_callback(v, flags) writes it, appended to out,
 * with every character utf8_layout_char names (line and paragraph
 * separators, bidi controls) written as "\uXXXX": the same JSON value to a
 * parser, and no line break or reordering to whoever reads the bytes (a
 * model reading the wire, a log, a terminal). 0, or -1 when out of memory
 * (out is then as it was). */
int json_dump_shown(const json_t *v, size_t flags, struct buf *out);

#endif
