/* schema_regex.c — simple patterns matched by a small DFA instead of PCRE2.
 *
 * Tool schemas mostly use patterns like "^/[A-Za-z0-9._/-]*$" or
 * "^[a-z][a-z0-9_]{0,63}$": optional anchors around a sequence of ASCII
 * characters and positive ASCII classes, each with a greedy quantifier.
 * Calling PCRE2 for those costs more in setup (match data, context) than
 * the match itself. Such a pattern is turned at compile time into a DFA over
 * byte classes; matching is then one table step per byte, with no
 * allocation and no limits to hit.
 *
 * Same verdicts as PCRE2 (which still compiles every pattern: it checks the
 * syntax, and serves every pattern this file declines). The accepted subset
 * means the same in PCRE2 and ECMA-262, and matching existence does not
 * depend on greediness, so a DFA is exact. Anything outside it (groups,
 * alternation, '.', negated classes, non-ASCII, backreferences, lazy or
 * possessive quantifiers, escapes other than \d, \w and escaped punctuation)
 * is declined. Every set is ASCII, so the DFA decides ASCII subjects on
 * its own; at the first byte >= 0x80 it gives up (unless it has already
 * matched) and PCRE2 decides, so non-ASCII and invalid UTF-8 subjects get
 * exactly PCRE2's verdict (its invalid-UTF mode has its own rules for empty
 * matches around a bad sequence).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schema_internal.h"

#define SRE_MAX_POS    64  /* NFA positions (a set with its repeats) */
#define SRE_MAX_STATES 128 /* DFA states */

/* ---- parsing into positions -------------------------------------------- */

struct pos {
	uint64_t set[2]; /* the ASCII bytes this position takes */
	bool optional, loop;
};

struct nfa {
	struct pos p[SRE_MAX_POS];
	unsigned n;
	bool anchor_start, anchor_end;
};

static void set_add(uint64_t set[2], unsigned lo, unsigned hi)
{
	for (unsigned c = lo; c <= hi; c++)
		set[c >> 6] |= 1ull << (c & 63);
}

static bool set_has(const uint64_t set[2], unsigned c)
{
	return c < 128 && (set[c >> 6] >> (c & 63)) & 1;
}

static bool is_punct_escape(char c)
{
	return c && strchr("^$\\.*+?()[]{}|/-", c) != NULL;
}

/* \d or \w: the ASCII sets (neither PCRE2 without UCP nor ECMA-262 widen
 * them). 1 added, 0 not one of them. */
static int class_escape(char c, uint64_t set[2])
{
	if (c == 'd') {
		set_add(set, '0', '9');
		return 1;
	}
	if (c == 'w') {
		set_add(set, '0', '9');
		set_add(set, 'A', 'Z');
		set_add(set, 'a', 'z');
		set_add(set, '_', '_');
		return 1;
	}
	return 0;
}

static bool is_plain(char c)
{
	return c >= 0x20 && c <= 0x7e;
}

/* One literal inside a class at *i (plain or escaped punctuation).
 * Returns the byte or -1. */
static int class_literal(const char *s, size_t len, size_t *i)
{
	if (*i >= len)
		return -1;
	char c = s[*i];
	if (c == '\\') {
		if (*i + 1 >= len || !is_punct_escape(s[*i + 1]))
			return -1;
		*i += 2;
		return (unsigned char)s[*i - 1];
	}
	if (!is_plain(c) || c == ']' || c == '[')
		return -1;
	(*i)++;
	return (unsigned char)c;
}

/* A positive class "[...]" starting at s[*i] == '['. 0 or -1 (declined). */
static int parse_class(const char *s, size_t len, size_t *i, uint64_t set[2])
{
	size_t k = *i + 1;
	if (k >= len || s[k] == '^' || s[k] == ']')
		return -1; /* negated (takes non-ASCII) or empty */
	while (k < len && s[k] != ']') {
		if (s[k] == '\\' && k + 1 < len && class_escape(s[k + 1], set)) {
			k += 2;
			if (k < len && s[k] == '-' && k + 1 < len && s[k + 1] != ']')
				return -1; /* "[\d-z]": a range from a set */
			continue;
		}
		int lo = class_literal(s, len, &k);
		if (lo < 0)
			return -1;
		if (k + 1 < len && s[k] == '-' && s[k + 1] != ']') {
			k++;
			if (s[k] == '\\' && k + 1 < len && (s[k + 1] == 'd' || s[k + 1] == 'w'))
				return -1;
			int hi = class_literal(s, len, &k);
			if (hi < lo)
				return -1;
			set_add(set, (unsigned)lo, (unsigned)hi);
			if (k + 1 < len && s[k] == '-' && s[k + 1] != ']')
				return -1; /* "[a-c-e]": read differently by dialects */
			continue;
		}
		set_add(set, (unsigned)lo, (unsigned)lo);
	}
	if (k >= len)
		return -1;
	*i = k + 1;
	return 0;
}

static int parse_count(const char *s, size_t len, size_t *i, unsigned *out)
{
	size_t k = *i;
	unsigned v = 0;
	if (k >= len || s[k] < '0' || s[k] > '9')
		return -1;
	for (; k < len && s[k] >= '0' && s[k] <= '9'; k++) {
		v = v * 10 + (unsigned)(s[k] - '0');
		if (v > SRE_MAX_POS)
			return -1;
	}
	*i = k;
	*out = v;
	return 0;
}

/* A quantifier at s[*i] (or none): min and max (UINT32_MAX = unbounded). */
static int parse_quant(const char *s, size_t len, size_t *i, unsigned *min, unsigned *max)
{
	*min = *max = 1;
	if (*i >= len)
		return 0;
	switch (s[*i]) {
	case '*':
		*min = 0;
		*max = UINT32_MAX;
		(*i)++;
		break;
	case '+':
		*min = 1;
		*max = UINT32_MAX;
		(*i)++;
		break;
	case '?':
		*min = 0;
		*max = 1;
		(*i)++;
		break;
	case '{': {
		size_t k = *i + 1;
		if (parse_count(s, len, &k, min) < 0)
			return -1;
		*max = *min;
		if (k < len && s[k] == ',') {
			k++;
			*max = UINT32_MAX;
			if (k < len && s[k] != '}' && parse_count(s, len, &k, max) < 0)
				return -1;
		}
		if (k >= len || s[k] != '}' || *max < *min)
			return -1;
		*i = k + 1;
		break;
	}
	default: return 0;
	}
	/* lazy (same verdicts, but keep the subset plain) or possessive
	 * (different verdicts) */
	if (*i < len && (s[*i] == '?' || s[*i] == '+'))
		return -1;
	return 0;
}

static int add_positions(struct nfa *a, const uint64_t set[2], unsigned min, unsigned max)
{
	unsigned count = max == UINT32_MAX ? (min ? min : 1) : max;
	if (count == 0)
		return 0; /* "x{0}" matches the empty string */
	if (a->n + count > SRE_MAX_POS)
		return -1;
	for (unsigned k = 0; k < count; k++) {
		struct pos *p = &a->p[a->n++];
		p->set[0] = set[0];
		p->set[1] = set[1];
		p->optional = k >= min;
		p->loop = max == UINT32_MAX && k + 1 == count;
	}
	return 0;
}

static int parse(const char *s, size_t len, struct nfa *a)
{
	size_t i = 0;
	memset(a, 0, sizeof *a);
	if (len && s[0] == '^') {
		a->anchor_start = true;
		i = 1;
	}
	while (i < len) {
		uint64_t set[2] = { 0, 0 };
		char c = s[i];
		if (c == '$') {
			if (i + 1 != len)
				return -1;
			a->anchor_end = true;
			break;
		}
		if (c == '[') {
			if (parse_class(s, len, &i, set) < 0)
				return -1;
		} else if (c == '\\') {
			if (i + 1 >= len)
				return -1;
			if (!class_escape(s[i + 1], set)) {
				if (!is_punct_escape(s[i + 1]))
					return -1;
				set_add(set, (unsigned char)s[i + 1], (unsigned char)s[i + 1]);
			}
			i += 2;
		} else if (is_plain(c) && !strchr("^.*+?()[]{}|", c)) {
			set_add(set, (unsigned char)c, (unsigned char)c);
			i++;
		} else {
			return -1;
		}
		unsigned min, max;
		if (parse_quant(s, len, &i, &min, &max) < 0 || add_positions(a, set, min, max) < 0)
			return -1;
	}
	return 0;
}

/* ---- the DFA ------------------------------------------------------------- */

/* Positions that can consume the next byte once the first `from` ones are
 * behind us: from, and past it while positions are optional. */
static uint64_t first_from(const struct nfa *a, unsigned from)
{
	uint64_t m = 0;
	for (unsigned j = from; j < a->n; j++) {
		m |= 1ull << j;
		if (!a->p[j].optional)
			break;
	}
	return m;
}

static bool tail_optional(const struct nfa *a, unsigned from)
{
	for (unsigned j = from; j < a->n; j++)
		if (!a->p[j].optional)
			return false;
	return true;
}

struct build {
	const struct nfa *a;
	uint64_t follow[SRE_MAX_POS];
	uint64_t first, accept_pos;
	bool empty_ok;
	uint64_t colmask[129]; /* per byte class: positions taking it */
	unsigned ncls;
	/* a DFA state: the positions that consumed the last byte, plus
	 * whether it is the start (nothing consumed) or a sink */
	struct dstate {
		uint64_t set;
		uint8_t kind;
	} st[SRE_MAX_STATES];
	unsigned nst;
};

enum { DS_SET, DS_START, DS_MATCHED, DS_UNDECIDED };

/* Byte class 0 holds the bytes >= 0x80; ASCII classes follow. */
#define CLS_HIGH 0

static bool accepting(const struct build *b, const struct dstate *d)
{
	if (d->kind == DS_MATCHED)
		return true;
	if (d->kind == DS_UNDECIDED)
		return false;
	/* an empty match where a match may start: at the beginning, or
	 * anywhere without '^' */
	if (b->empty_ok && (d->kind == DS_START || !b->a->anchor_start))
		return true;
	return (d->set & b->accept_pos) != 0;
}

static int state_id(struct build *b, struct dstate d)
{
	/* without '$', any accepting state has matched for good */
	if (!b->a->anchor_end && accepting(b, &d))
		d = (struct dstate){ 0, DS_MATCHED };
	for (unsigned k = 0; k < b->nst; k++)
		if (b->st[k].set == d.set && b->st[k].kind == d.kind)
			return (int)k;
	if (b->nst == SRE_MAX_STATES)
		return -1;
	b->st[b->nst] = d;
	return (int)b->nst++;
}

static struct dstate step(const struct build *b, const struct dstate *d, unsigned cls)
{
	if (d->kind == DS_MATCHED || d->kind == DS_UNDECIDED)
		return *d;
	if (cls == CLS_HIGH)
		return (struct dstate){ 0, DS_UNDECIDED };
	uint64_t reach = d->kind == DS_START || !b->a->anchor_start ? b->first : 0;
	for (uint64_t m = d->set; m; m &= m - 1)
		reach |= b->follow[__builtin_ctzll(m)];
	return (struct dstate){ reach & b->colmask[cls], DS_SET };
}

static struct sre *build_dfa(struct build *b, const uint8_t cls[256])
{
	b->nst = 0;
	if (state_id(b, (struct dstate){ 0, DS_START }) < 0)
		return NULL;
	/* states are numbered as found; each row is filled once */
	uint8_t(*rows)[129] = malloc(SRE_MAX_STATES * sizeof *rows);
	if (!rows)
		return NULL;
	for (unsigned k = 0; k < b->nst; k++) {
		for (unsigned e = 0; e < b->ncls; e++) {
			int id = state_id(b, step(b, &b->st[k], e));
			if (id < 0) {
				free(rows);
				return NULL; /* too many states: PCRE2 will do */
			}
			rows[k][e] = (uint8_t)id;
		}
	}
	struct sre *r = calloc(1, sizeof *r);
	uint8_t *next = r ? malloc(b->nst * 256) : NULL;
	uint8_t *acc = next ? malloc(b->nst) : NULL;
	uint8_t *stay = acc ? malloc(b->nst * 256) : NULL;
	if (!stay) {
		free(acc);
		free(next);
		free(r);
		free(rows);
		return NULL;
	}
	/* rows by byte rather than by class: a step is then one load, with
	 * no class lookup waiting before it */
	for (unsigned k = 0; k < b->nst; k++) {
		acc[k] = b->st[k].kind == DS_UNDECIDED ? SRE_UNDECIDED : accepting(b, &b->st[k]);
		for (unsigned c = 0; c < 256; c++) {
			next[k * 256 + c] = rows[k][cls[c]];
			stay[k * 256 + c] = rows[k][cls[c]] == k;
		}
	}
	free(rows);
	r->next = next;
	r->accept = acc;
	r->stay = stay;
	return r;
}

struct sre *sre_compile(const char *src, size_t len)
{
	struct nfa a;
	if (parse(src, len, &a) < 0)
		return NULL;
	struct build *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	b->a = &a;
	for (unsigned i = 0; i < a.n; i++)
		b->follow[i] = (a.p[i].loop ? 1ull << i : 0) | first_from(&a, i + 1);
	b->first = first_from(&a, 0);
	for (unsigned i = 0; i < a.n; i++)
		if (tail_optional(&a, i + 1))
			b->accept_pos |= 1ull << i;
	b->empty_ok = tail_optional(&a, 0);
	/* byte classes: ASCII bytes taken by the same positions behave alike;
	 * CLS_HIGH is every byte >= 0x80 */
	uint8_t cls[256];
	b->ncls = 1;
	b->colmask[CLS_HIGH] = 0;
	memset(cls + 128, CLS_HIGH, 128);
	for (unsigned c = 0; c < 128; c++) {
		uint64_t m = 0;
		for (unsigned i = 0; i < a.n; i++)
			if (set_has(a.p[i].set, c))
				m |= 1ull << i;
		unsigned e = 1;
		while (e < b->ncls && b->colmask[e] != m)
			e++;
		if (e == b->ncls)
			b->colmask[b->ncls++] = m;
		cls[c] = (uint8_t)e;
	}
	struct sre *r = build_dfa(b, cls);
	free(b);
	return r;
}

void sre_free(struct sre *r)
{
	if (!r)
		return;
	free(r->next);
	free(r->accept);
	free(r->stay);
	free(r);
}
