/* glob_match.c — see glob_match.h. Everything here works on bounded stack memory: a
 * matcher that needed malloc could fail open on a deny rule when memory
 * runs out. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glob_match.h"
#include "utf8.h"
#include "util.h"

/* ---- globs --------------------------------------------------------------
 * A glob compiles to tokens run as an NFA over the text's code points: a
 * set of live token positions advanced one character at a time, so time is
 * O(text * tokens) whatever the pattern (no exponential backtracking on
 * hostile paths like "a/a/a/.../b" against "**" patterns). */

enum tok_type { T_LIT, T_ANY1, T_CLASS, T_STAR, T_GLOBSTAR, T_EPS, T_JMP };

struct tok {
	unsigned char type;
	unsigned short skip; /* nonzero: epsilon to this token + skip (see glob_compile) */
	unsigned short cls;  /* T_CLASS: offset of the class body in the pattern */
	uint32_t cp;         /* T_LIT: the character */
};

/* A pattern byte makes at most two tokens (a ',' a jump and the next
 * alternative's fork; "**" before '/' an extra fork). */
#define TOKS_MAX        (2 * GLOB_MAX + 2)
#define STATE_WORDS     ((TOKS_MAX + 1 + 63) / 64)
#define BRACE_DEPTH_MAX 8

/* Decodes one code point of s[0..n) (n > 0). Invalid bytes decode to
 * values above U+10FFFF, which no pattern character equals. */
static uint32_t decode(const unsigned char *s, size_t n, size_t *len)
{
	size_t k = utf8_seq_len(s, n);
	if (k == 0) {
		*len = 1;
		return 0x110000u + s[0];
	}
	*len = k;
	if (k == 1)
		return s[0];
	uint32_t cp = s[0] & (0x7f >> k);
	for (size_t i = 1; i < k; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

/* Offset just past the ']' closing the class whose body starts at i, or 0
 * when it is not closed. */
static size_t class_end(const char *p, size_t n, size_t i)
{
	if (i < n && (p[i] == '!' || p[i] == '^'))
		i++;
	if (i < n && p[i] == ']')
		i++; /* a leading ']' is literal */
	while (i < n && p[i] != ']') {
		if (p[i] == '\\')
			i++;
		i++;
	}
	return i < n ? i + 1 : 0;
}

/* Whether cp is in the class whose body starts at p[i]. */
static bool class_has(const char *p, size_t n, size_t i, uint32_t cp)
{
	const unsigned char *u = (const unsigned char *)p;
	bool neg = false, in = false, first = true;
	if (p[i] == '!' || p[i] == '^') {
		neg = true;
		i++;
	}
	while (i < n && (p[i] != ']' || first)) {
		size_t k;
		first = false;
		if (p[i] == '\\')
			i++;
		uint32_t lo = decode(u + i, n - i, &k), hi = lo;
		i += k;
		if (i + 1 < n && p[i] == '-' && p[i + 1] != ']') {
			i++;
			if (p[i] == '\\')
				i++;
			hi = decode(u + i, n - i, &k);
			i += k;
		}
		if (cp >= lo && cp <= hi)
			in = true;
	}
	return in != neg;
}

/* The open '{' groups while compiling: where the current alternative's
 * fork is (its skip goes to the next alternative), the jumps that end the
 * alternatives so far (patched to the group's end at '}'), and whether
 * the group starts a path segment. */
struct braces {
	int depth;
	int fork[BRACE_DEPTH_MAX];
	int first_jmp[BRACE_DEPTH_MAX];
	bool seg[BRACE_DEPTH_MAX];
	int jmp[GLOB_MAX];
	int njmp;
};

/* Whether pattern byte i starts a path segment: at the start, after '/',
 * or first in an alternative of a group that does. */
static bool seg_start(const char *p, size_t i, const struct braces *b)
{
	if (i == 0 || p[i - 1] == '/')
		return true;
	return b->depth && (p[i - 1] == '{' || p[i - 1] == ',') && b->seg[b->depth - 1] &&
	        (i < 2 || p[i - 2] != '\\');
}

/* One brace character at p[i] inside or starting a group. Returns 1 when
 * it was one (tokens added), 0 when it is a plain character here, -1 with
 * why. */
static int brace_tok(const char *p, size_t i, struct tok *t, int *m, struct braces *b,
                     const char **why)
{
	if (p[i] == '{') {
		if (b->depth == BRACE_DEPTH_MAX) {
			*why = "nests '{' groups deeper than 8";
			return -1;
		}
		b->seg[b->depth] = seg_start(p, i, b);
		b->fork[b->depth] = *m;
		b->first_jmp[b->depth++] = b->njmp;
		t[(*m)++] = (struct tok){ .type = T_EPS };
		return 1;
	}
	if (!b->depth || (p[i] != ',' && p[i] != '}'))
		return 0;
	int d = b->depth - 1;
	if (p[i] == ',') {
		b->jmp[b->njmp++] = *m;
		t[(*m)++] = (struct tok){ .type = T_JMP };
		t[b->fork[d]].skip = (unsigned short)(*m - b->fork[d]);
		b->fork[d] = *m;
		t[(*m)++] = (struct tok){ .type = T_EPS };
		return 1;
	}
	for (int j = b->first_jmp[d]; j < b->njmp; j++)
		t[b->jmp[j]].skip = (unsigned short)(*m - b->jmp[j]);
	b->njmp = b->first_jmp[d];
	b->depth--;
	return 1;
}

/* Compiles p into t[] (TOKS_MAX). Returns the token count, or -1 (with
 * why) when the pattern is not usable.
 * "**" followed by '/' at the start of a segment becomes EPS GLOBSTAR '/'
 * where EPS may jump past all three, so "**" + "/x" matches "x". The jump
 * sits on a token of its own because it is only open before the globstar
 * consumed anything: from inside the loop, "a/x.git" must not reach ".git".
 * A '/' followed by a final "**" may skip both (skip on the '/'), so "d/" +
 * "**" matches "d" itself.
 * "{a,b}" becomes EPS(fork) a JMP EPS(fork) b: each fork may go on into its
 * alternative or skip to the next fork, each JMP skips to the group's end.
 * Every epsilon edge points forward, which the one-pass closure needs. */
static int glob_compile(const char *p, struct tok *t, const char **why)
{
	size_t n = strlen(p);
	struct braces b;
	int m = 0;
	b.depth = b.njmp = 0;
	if (n > GLOB_MAX) {
		*why = "is longer than 256 bytes";
		return -1;
	}
	for (size_t i = 0; i < n;) {
		struct tok k = { 0 };
		size_t len = 1;
		int br = brace_tok(p, i, t, &m, &b, why);
		if (br < 0)
			return -1;
		if (br) {
			i++;
			continue;
		}
		if (p[i] == '*') {
			size_t j = i;
			while (j < n && p[j] == '*')
				j++;
			k.type = j - i > 1 ? T_GLOBSTAR : T_STAR;
			if (k.type == T_GLOBSTAR && seg_start(p, i, &b) && j < n && p[j] == '/')
				t[m++] = (struct tok){ .type = T_EPS, .skip = 3 };
			if (k.type == T_GLOBSTAR && j == n && m > 0 && t[m - 1].type == T_LIT &&
			    t[m - 1].cp == '/' && i > 1 && p[i - 1] == '/' && p[i - 2] != '\\')
				t[m - 1].skip = 2;
			len = j - i;
		} else if (p[i] == '?') {
			k.type = T_ANY1;
		} else if (p[i] == '[') {
			size_t e = class_end(p, n, i + 1);
			if (!e) {
				*why = "has a '[' class that is not closed";
				return -1;
			}
			k.type = T_CLASS;
			k.cls = (unsigned short)(i + 1);
			len = e - i;
		} else {
			size_t at = i;
			if (p[i] == '\\') {
				if (++at == n) {
					*why = "ends in a lone '\\'";
					return -1;
				}
			}
			if (!utf8_seq_len((const unsigned char *)p + at, n - at)) {
				*why = "is not valid UTF-8";
				return -1;
			}
			k.type = T_LIT;
			k.cp = decode((const unsigned char *)p + at, n - at, &len);
			len += at - i;
		}
		t[m++] = k;
		i += len;
	}
	if (b.depth) {
		*why = "has a '{' group that is not closed (write \\{ for the character)";
		return -1;
	}
	return m;
}

static inline void set_bit(uint64_t *s, int i)
{
	s[i / 64] |= 1ull << (i % 64);
}
static inline bool has_bit(const uint64_t *s, int i)
{
	return s[i / 64] >> (i % 64) & 1;
}

/* Adds every state reachable without consuming a character. All epsilon
 * edges point forward, so one ascending pass reaches the closure. */
static void closure(const struct tok *t, int m, uint64_t *s)
{
	for (int i = 0; i < m; i++) {
		if (!has_bit(s, i))
			continue;
		if (t[i].type == T_STAR || t[i].type == T_GLOBSTAR || t[i].type == T_EPS)
			set_bit(s, i + 1); /* a jump (T_JMP) goes only where its skip says */
		if (t[i].skip)
			set_bit(s, i + t[i].skip);
	}
}

static bool tok_accepts(const struct tok *k, const char *p, size_t n, uint32_t c)
{
	switch (k->type) {
	case T_LIT: return c == k->cp;
	case T_ANY1: return c != '/';
	case T_CLASS: return c != '/' && class_has(p, n, k->cls, c);
	default: return false;
	}
}

bool glob_match(const char *pattern, const char *text, size_t len)
{
	struct tok t[TOKS_MAX];
	const char *why;
	int m = glob_compile(pattern, t, &why);
	if (m < 0)
		return false;
	size_t pn = strlen(pattern);
	uint64_t cur[STATE_WORDS] = { 0 }, next[STATE_WORDS];
	set_bit(cur, 0);
	closure(t, m, cur);
	const unsigned char *u = (const unsigned char *)text;
	for (size_t i = 0; i < len;) {
		size_t k;
		uint32_t c = decode(u + i, len - i, &k);
		i += k;
		memset(next, 0, sizeof next);
		bool live = false;
		for (int s = 0; s < m; s++) {
			if (!has_bit(cur, s))
				continue;
			if (t[s].type == T_GLOBSTAR || (t[s].type == T_STAR && c != '/')) {
				set_bit(next, s);
				live = true;
			} else if (tok_accepts(&t[s], pattern, pn, c)) {
				set_bit(next, s + 1);
				live = true;
			}
		}
		if (!live)
			return false;
		closure(t, m, next);
		memcpy(cur, next, sizeof cur);
	}
	return has_bit(cur, m);
}

bool glob_match_path(const char *pattern, const char *path, size_t len)
{
	if (!strchr(pattern, '/')) {
		const char *base = memrchr(path, '/', len);
		size_t skip = base ? (size_t)(base - path) + 1 : 0;
		return glob_match(pattern, path + skip, len - skip);
	}
	if (!strncmp(pattern, "./", 2))
		pattern += 2;
	else if (pattern[0] == '/')
		pattern++;
	return glob_match(pattern, path, len);
}

int glob_check(const char *pattern, struct tc_error *err)
{
	struct tok t[TOKS_MAX];
	const char *why = NULL;
	if (glob_compile(pattern, t, &why) < 0)
		return tc_error_set(err, TC_E_INVALID, pattern, "glob %s", why);
	return 0;
}
