/* render.h — stage 4 of the pipeline: turn a tool's output bytes into the
 * text a model reads, and the per-session spill directory that keeps whole
 * outputs when the render had to be cut.
 *
 * The render of a tool's output is:
 *   1. its bytes with every invalid UTF-8 byte, every NUL and every C1
 *      control (U+0080..U+009F) replaced by U+FFFD, and every other control
 *      character but tab, newline and the CR of a CRLF shown as its Unicode
 *      picture (ESC as U+241B, a lone CR as U+240D, DEL as U+2421): tool
 *      output is untrusted bytes; a model's context and JSON need text, and
 *      `toolcage call` prints the render on a human's terminal, where an
 *      escape sequence could set the clipboard or the title, or a CR hide
 *      what came before it. Unicode's line separators and bidirectional
 *      controls (U+2028, U+202E ...) become the text "\uXXXX", the same rule
 *      as for names (utf8_layout_char): output must not start a line the
 *      model takes for the supervisor's, nor reorder what a person reads,
 *      and inside JSON text the escape reads back as the same character.
 *      The counts below are of this text;
 *   2. cut when longer than max_chars code points: the first 60% of the
 *      budget and the last 20% are kept (rounded down), and a marker between
 *      them says how many characters were left out and how to see them. The
 *      marker is not counted against the budget, so a cut render holds
 *      max_chars * 4 / 5 characters of output plus the marker (for budgets
 *      smaller than the marker the render is longer than the budget: the
 *      marker is never cut). Counting and cutting are in code points, so no
 *      character is ever split.
 *
 * Markers (N = characters left out):
 *   no spill:  [... N characters left out; call again with a narrower
 *              request (offset/limit, a pattern) to see them ...]
 *   spilled:   [... N characters left out; the whole output (T characters)
 *              is in PATH: read it with read_file using offset and limit ...]
 *   spill refused (directory full or a write failed): the no-spill marker
 *              with " (the whole output was not kept: WHY)" before " ...]".
 * The marker sits on a line of its own.
 *
 * Not thread-safe (toolcage is single-threaded, docs/architecture.md).
 */
#ifndef TC_RENDER_H
#define TC_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "toolcage.h"

#define RENDER_DEFAULT_MAX_CHARS       20000
#define RENDER_DEFAULT_SPILL_MAX_BYTES (64u << 20) /* 64 MiB per session */
#define RENDER_SPILL_MAX_FILES         4096        /* per session */

/* A per-session spill directory. Invariants: dir exists (mode 0700) and was
 * created by render_spill_new, so nothing in it belongs to anyone else;
 * used <= max_bytes; files[0..nfiles) are the names written in dir. */
struct render_spill;

/* Creates a fresh directory for this session inside parent (mode 0700,
 * named session-XXXXXX by mkdtemp; parent is created 0700 when missing, one
 * level only) whose spill files together may hold at most max_bytes
 * (0 = RENDER_DEFAULT_SPILL_MAX_BYTES). parent is copied. Returns 0 and a
 * new spill in *out, or -1 with err (TC_E_SYSTEM naming the path). */
int render_spill_new(const char *parent, uint64_t max_bytes, struct render_spill **out,
                     struct tc_error *err);

/* Removes every file this spill wrote, then its directory (a file someone
 * else put there keeps the directory, and is left alone). NULL is a no-op. */
void render_spill_free(struct render_spill *s);

/* Borrowed: the session directory's path, valid until render_spill_free. */
const char *render_spill_dir(const struct render_spill *s);
/* Bytes written to this session's spill files so far. */
uint64_t render_spill_used(const struct render_spill *s);

/* A rendered output. Every pointer is owned by the result; release it with
 * render_result_release. */
struct render_result {
	char *text;           /* malloc'd, valid UTF-8, NUL-terminated, no NUL inside */
	size_t len;           /* bytes in text */
	size_t chars_total;   /* code points of the whole (sanitized) output */
	size_t chars_omitted; /* code points left out; 0 when not cut */
	bool truncated;       /* the render was cut */
	bool replaced;        /* anything was replaced (step 1 above) */
	char *spill_path;     /* malloc'd path of the file with the whole
	                         * output, or NULL (not cut, no spill, refused) */
	char *spill_refused;  /* malloc'd reason the whole output was not
	                         * kept although a spill was given, or NULL */
};

/* Step 1 above: a malloc'd, NUL-terminated copy of p[0..n) with invalid
 * bytes, NULs and control characters replaced; *len gets its length.
 * Returns NULL only when out of memory. */
char *render_clean(const char *p, size_t n, size_t *len);

/* Renders p[0..n) (untrusted bytes, borrowed; p may be NULL when n is 0)
 * into *out under a budget of max_chars code points (0 =
 * RENDER_DEFAULT_MAX_CHARS). When the render is cut and spill is not NULL,
 * the whole sanitized output is written to a new file in the spill
 * directory (0600) unless that would pass the spill's byte cap; a refused
 * spill is not an error (the marker and spill_refused say why). Returns 0,
 * or -1 with err only when out of memory (*out is then zeroed). */
int render_text(const char *p, size_t n, size_t max_chars, struct render_spill *spill,
                struct render_result *out, struct tc_error *err);

/* Frees what r owns and zeroes it. NULL is a no-op. */
void render_result_release(struct render_result *r);

#endif
