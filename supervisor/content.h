/* content.h — a manifest tool's result as MCP content blocks ("output":
 * "content"): text, image, audio and embedded resources, checked before
 * anything is sent on. The tool runs in the sandbox, so every byte of
 * what it printed is untrusted: a block is one of four fixed shapes, its
 * base64 strict, its MIME type a plain type/subtype of the block's kind,
 * its count and sizes bounded (the whole value already fits the output
 * cap it was read under). */
#ifndef TC_CONTENT_H
#define TC_CONTENT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#define CONTENT_BLOCKS_MAX 64
#define CONTENT_MIME_MAX   127
#define CONTENT_URI_MAX    2048

/* 0 when v is {"content": [block, ...]} with 1..CONTENT_BLOCKS_MAX valid
 * blocks and nothing else; -1 with the reason in why (for the model:
 * which block, what is wrong). */
int content_check(const json_t *v, char *why, size_t why_len);

/* The blocks of a checked value as text for a person or a model that sees
 * no MCP content (the CLI, the audit, the render): text as it is, the
 * others as one line each naming kind, type and size (an embedded text
 * resource also with its text). New; NULL when out of memory. */
char *content_render(const json_t *v, size_t *len);

/* Every text in the checked value v (a text block's, an embedded text
 * resource's) through the render's rules (render_clean: control
 * characters as pictures, line separators and bidi controls as "\uXXXX"),
 * in place: the model reads a content tool's text as it reads any other
 * output. 0, or -1 when out of memory. */
int content_clean(json_t *v);

/* The texts of the checked value v (text blocks, embedded text resources,
 * in order) cut, in place, to max_chars code points together (0 =
 * RENDER_DEFAULT_MAX_CHARS), as the render is: the model reads a content
 * tool's blocks as they are, so they are held to the same budget. The
 * block where the budget ends keeps its head and a line saying how many
 * characters are left out; the texts after it are emptied. 0, or -1 when
 * out of memory. */
int content_bound(json_t *v, size_t max_chars);

#endif
