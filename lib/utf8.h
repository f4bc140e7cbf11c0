/* utf8.h — UTF-8 checks and repair for text that crosses into JSON or a
 * model's context: tool output is untrusted bytes. */
#ifndef TC_UTF8_H
#define TC_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at p (1-4), or 0 when p[0..n) does not
 * start with one (overlongs, surrogates and > U+10FFFF are invalid). */
size_t utf8_seq_len(const unsigned char *p, size_t n);

/* A malloc'd, NUL-terminated copy of p[0..n) in which every invalid byte
 * becomes U+FFFD and, when drop_nul, every NUL byte too. *out_len (may be
 * NULL) gets its length. Returns NULL only when out of memory. */
char *utf8_sanitize(const char *p, size_t n, bool drop_nul, size_t *out_len);

/* The picture of control character c (U+2400 + c; U+2421 for DEL) in UTF-8
 * into out: how text shown to a model or a terminal renders an escape, a
 * lone CR or a newline that must not start a line. */
void utf8_control_picture(unsigned char c, char out[3]);

/* Number of code points in valid UTF-8 text s[0..n). */
size_t utf8_count(const char *s, size_t n);
/* The same for text not yet checked: (size_t)-1 when s[0..n) is not valid
 * UTF-8 (overlong forms and surrogates included: two spellings of one text
 * must not pass different checks). */
size_t utf8_count_valid(const char *s, size_t n);

#endif
