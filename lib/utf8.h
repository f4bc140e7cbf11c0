/* utf8.h — UTF-8 checks and repair for text that crosses into JSON or a
 * model's context: tool output is untrusted bytes. */
#ifndef TC_UTF8_H
#define TC_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;

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

/* The one rule for characters that change the layout of text a model or
 * a person reads, though they are no control byte: NEL (U+0085), the line
 * and paragraph separators (U+2028, U+2029), and the bidirectional marks,
 * embeddings, overrides and isolates (U+061C, U+200E, U+200F,
 * U+202A-U+202E, U+2066-U+2069). Such a character could start a line of
 * its own in a render, or show "exe.txt" as "txt.exe" to the person asked
 * to approve it, so everything shown to either (names, messages, a tool's
 * rendered output) writes it as the six characters "\uXXXX": plain text,
 * and the same character again where the text is read as JSON.
 * Returns the length (2 or 3) of the UTF-8 sequence at s[0..left) when it
 * is one of them, else 0. */
size_t utf8_layout_char(const unsigned char *s, size_t left);

/* The rule for names (file names, link targets, paths, anything quoted
 * as one): utf8_layout_char's characters, the C1 controls (U+0080-U+009F,
 * which a terminal may take for an escape), and every character that shows
 * as nothing or can hide the ones around it: Unicode's format characters
 * (Cf: U+00AD, U+0600-U+0605, U+061C, U+06DD, U+070F, U+180E,
 * U+200B-U+200F, U+202A-U+202E, U+2060-U+2064, U+2066-U+206F, U+FEFF,
 * U+FFF9-U+FFFB, the tags U+E0001 and U+E0020-U+E007F ...) and the rest of
 * the default-ignorable code points (U+034F, the Hangul fillers, the
 * variation selectors, U+E0000-U+E0FFF ...). "a\u200Bb" and "ab" would
 * read the same to a person approving a call; a name made of tags
 * carries a message nobody sees. Only names: in a file's contents such a
 * character is text (a soft hyphen, an emoji's joiner) and stays as it is.
 * Returns the length (2-4) of the UTF-8 sequence at s[0..left) when it is
 * one of them, else 0. */
size_t utf8_name_char(const unsigned char *s, size_t left);

#define UTF8_ESCAPE_LEN 6  /* "\uXXXX" */
#define UTF8_ESCAPE_MAX 12 /* "\uXXXX\uXXXX", a character past U+FFFF */
/* Writes the escape of the character s[0..k) (k from utf8_layout_char or
 * utf8_name_char) and a NUL into out: "\uXXXX", or for a character past
 * U+FFFF its UTF-16 surrogate pair "\uD8XX\uDCXX", as JSON writes it, so
 * that JSON text reads back the same character. Returns its length
 * (UTF8_ESCAPE_LEN, or UTF8_ESCAPE_MAX for 4 bytes). */
size_t utf8_escape(const unsigned char *s, size_t k, char out[UTF8_ESCAPE_MAX + 1]);

/* Number of code points in valid UTF-8 text s[0..n). */
size_t utf8_count(const char *s, size_t n);
/* The same for text not yet checked: (size_t)-1 when s[0..n) is not valid
 * UTF-8 (overlong forms and surrogates included: two spellings of one text
 * must not pass different checks). */
size_t utf8_count_valid(const char *s, size_t n);
/* The same for raw bytes, as utf8_sanitize will make them: an invalid
 * byte or a NUL is one U+FFFD. */
size_t utf8_count_raw(const char *p, size_t n);

/* A tool's output as it was kept: raw[0..len) (untrusted bytes) of total,
 * the total - len bytes not kept having sat at gap_at (between a
 * capture's head and tail; len when only the end was not kept). */
struct utf8_kept {
	const char *raw;
	size_t len;
	size_t gap_at;
	uint64_t total;
};

/* Appends t as the answer shows it, to the render and the structured
 * result alike (an MCP client may give the model either, so neither may
 * hold more than the other): utf8_sanitize's text (NULs too), whole when
 * all of it was kept and it fits budget code points; else its first
 * head code points (at most) and its last ones up to budget, with
 * "\n[... N bytes left out ...]\n" between them, N the bytes of total not
 * shown (what is shown plus N is the whole). *head_bytes (may be NULL)
 * gets the bytes of raw shown before the note (len when nothing was left
 * out). Returns whether anything was; out of memory sticks in b. */
bool utf8_add_cut(struct buf *b, const struct utf8_kept *t, size_t budget, size_t head,
                  size_t *head_bytes);

#endif
