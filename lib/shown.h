/* shown.h — printf for text read line by line (a render, a message, a
 * terminal): every %s argument shown with its control characters as their
 * Unicode pictures (newline as U+240A, ESC as U+241B ...), and Unicode's
 * line separators and bidirectional controls (U+2028, U+202E ...) as the
 * text "\uXXXX", so that a name or a path quoted in it stays on its line
 * and in its order. The one escaping for names:
 * the fs tools' renders and errors and the supervisor's messages use it. */
#ifndef TC_SHOWN_H
#define TC_SHOWN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Where the text goes: called with each piece, in order. */
typedef void (*shown_add_fn)(void *ctx, const char *s, size_t n);

/* Formats fmt (printf's conversions: flags, width and precision, '*', the
 * length modifiers hh h l ll z j t L; s d i u x X o c f F g G e E p) with
 * its %s arguments shown. 0, or -1 for a conversion it does not know (a
 * defect of the caller; the text stops there). */
int shown_vformat(shown_add_fn add, void *ctx, const char *fmt, va_list ap)
        __attribute__((format(printf, 3, 0)));
/* s[0..n) shown. */
void shown_add(shown_add_fn add, void *ctx, const char *s, size_t n);
/* s (a C string) shown, and any byte that is not UTF-8 replaced by
 * U+FFFD: new (malloc'd, NUL-terminated), NULL when out of memory. For a
 * name printed on its own (a terminal's line). */
char *shown_dup(const char *s);
/* fmt formatted as shown_vformat does, any byte that is not UTF-8
 * replaced by U+FFFD as shown_dup does, written to f in one fwrite (one
 * write to an unbuffered stderr: no other writer's bytes inside the
 * line). For a line to a terminal or a journal whose %s arguments are
 * names or messages that hold them (a path from the command line, a
 * file's name, a client's words). "out of memory\n" when it is. */
void shown_fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct buf;
/* fmt formatted as shown_vformat does, any byte that is not UTF-8
 * replaced by U+FFFD as shown_fprintf does, appended to b (lib/util.h):
 * for text built first and printed later (the tool list as text, a
 * terminal's prompt). 0, or -1 when out of memory or for a conversion it
 * does not know. */
int shown_bprintf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
