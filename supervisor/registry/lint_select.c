/* lint_select.c — the built-in tool selector for description regression
 * cases: a deterministic, lexical stand-in for a model. It scores a task's
 * words against each tool's name, description and parameters with
 * idf-like weights. It is not a model: it only tells you that a description
 * change moved the words a task relies on. An external selector (a real
 * model) can replace it: see lint_cases.c. */
#define _GNU_SOURCE /* strndup */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lint.h"
#include "registry.h"
#include "util.h"

#define W_NAME        3.0
#define W_DESC        1.0
#define W_PARAM       0.5
#define WORD_MAX      48 /* longer runs are not words a task would share */
#define EXPLAIN_WORDS 6

struct term {
	char word[WORD_MAX + 1];  /* the stem */
	char shown[WORD_MAX + 1]; /* the first surface form seen */
	double w;
};

struct termset {
	struct term *v;
	size_t n, cap;
};

struct sel_tool {
	char *name;
	struct termset terms;
};

struct lint_selector {
	struct sel_tool *tools;
	size_t n;
};

static const char *const stopwords[] = {
	"a",   "about", "all",   "an",    "and",   "any",    "are",    "as",    "at",   "be",
	"by",  "can",   "could", "do",    "does",  "for",    "from",   "given", "has",  "have",
	"how", "i",     "if",    "in",    "into",  "is",     "it",     "its",   "me",   "my",
	"of",  "on",    "one",   "or",    "our",   "please", "should", "so",    "some", "that",
	"the", "their", "them",  "then",  "there", "these",  "this",   "those", "to",   "tool",
	"up",  "us",    "use",   "using", "want",  "was",    "we",     "what",  "when", "which",
	"who", "will",  "with",  "would", "you",   "your",   "eg",     "e",     "g",    "ie",
	"etc", "s",     "t",
};

/* Words that turn a description clause into "what this is NOT for". */
static const char *const negations[] = {
	"not",   "never",  "instead", "don",     "doesn", "cannot",
	"avoid", "except", "isn",     "shouldn", "won",   "rather",
};

static bool in_list(const char *w, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(w, list[i]))
			return true;
	return false;
}
#define IN_LIST(w, l) in_list(w, l, sizeof l / sizeof l[0])

static bool ends(const char *w, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n > k && !memcmp(w + n - k, suf, k);
}

/* A few suffix rules, applied the same to tasks and tools, so "searching",
 * "searches" and "search" meet; "write" and "writing" both become "writ". */
static void stem(char *w)
{
	size_t n = strlen(w);
	if (n <= 3)
		return;
	if (ends(w, n, "ies") && n > 4)
		n -= 2, w[n - 1] = 'y';
	else if (ends(w, n, "sses"))
		n -= 2;
	else if (ends(w, n, "ing") && n > 5)
		n -= 3;
	else if (ends(w, n, "ed") && n > 4)
		n -= 2;
	else if ((ends(w, n, "ches") || ends(w, n, "shes") || ends(w, n, "xes") ||
	          ends(w, n, "zes")) &&
	         n > 4)
		n -= 2;
	else if (w[n - 1] == 's' && !ends(w, n, "ss") && !ends(w, n, "us") && !ends(w, n, "is"))
		n -= 1;
	/* "running" -> "runn" -> "run" */
	if (n > 3 && w[n - 1] == w[n - 2] && !strchr("aeiouls", w[n - 1]))
		n--;
	if (n > 3 && w[n - 1] == 'e')
		n--;
	w[n] = '\0';
}

static int termset_add(struct termset *ts, const char *word, const char *shown, double w)
{
	for (size_t i = 0; i < ts->n; i++)
		if (!strcmp(ts->v[i].word, word)) {
			ts->v[i].w += w;
			return 0;
		}
	if (ts->n == ts->cap) {
		size_t cap = ts->cap ? ts->cap * 2 : 32;
		struct term *v = realloc(ts->v, cap * sizeof *v);
		if (!v)
			return -1;
		ts->v = v;
		ts->cap = cap;
	}
	struct term *t = &ts->v[ts->n++];
	snprintf(t->word, sizeof t->word, "%s", word);
	snprintf(t->shown, sizeof t->shown, "%s", shown);
	t->w = w;
	return 0;
}

static const struct term *termset_find(const struct termset *ts, const char *word)
{
	for (size_t i = 0; i < ts->n; i++)
		if (!strcmp(ts->v[i].word, word))
			return &ts->v[i];
	return NULL;
}

#define CLAUSE_ENDS ".;:,!?()\n"

/* Reads the next word of s into raw (lowercase ASCII, or one non-ASCII
 * character: CJK text has no spaces, so each character is a word).
 * Returns the position after it, or NULL at the end. */
static const char *next_word(const char *s, char *raw)
{
	while (*s && !isalnum((unsigned char)*s) && !((unsigned char)*s & 0x80))
		s++;
	if (!*s)
		return NULL;
	size_t n = 0;
	if ((unsigned char)*s & 0x80) {
		do
			raw[n++] = *s++;
		while (n < 4 && ((unsigned char)*s & 0xc0) == 0x80);
	} else {
		while (isalnum((unsigned char)*s)) {
			if (n < WORD_MAX)
				raw[n++] = (char)tolower((unsigned char)*s);
			s++;
		}
	}
	raw[n] = '\0';
	return s;
}

/* CJK and general punctuation carry no meaning for matching. */
static bool is_punct_cp(const char *raw)
{
	const unsigned char *u = (const unsigned char *)raw;
	return (u[0] == 0xe3 && u[1] == 0x80) || (u[0] == 0xef && (u[1] == 0xbc || u[1] == 0xbd)) ||
	        (u[0] == 0xe2 && u[1] == 0x80);
}

static bool clause_negated(const char *clause)
{
	char raw[WORD_MAX + 1];
	for (const char *p = clause; (p = next_word(p, raw));)
		if (IN_LIST(raw, negations))
			return true;
	return false;
}

static int add_clause(struct termset *once, const char *clause, double w)
{
	char raw[WORD_MAX + 1];
	for (const char *p = clause; (p = next_word(p, raw));) {
		if (IN_LIST(raw, stopwords) || is_punct_cp(raw))
			continue;
		char st[WORD_MAX + 1];
		memcpy(st, raw, sizeof st);
		if (!((unsigned char)raw[0] & 0x80))
			stem(st);
		if (!termset_find(once, st) && termset_add(once, st, raw, w))
			return -1;
	}
	return 0;
}

/* A clause that redirects to another tool ("use grep_log to find lines")
 * describes that tool, not this one. */
static bool clause_names_other(const char *clause, const struct tc_registry *reg,
                               const struct tc_defined *self)
{
	for (size_t i = 0; i < tc_registry_count(reg); i++) {
		const struct tc_defined *o = tc_registry_at(reg, i);
		if (o != self && strstr(clause, o->name))
			return true;
	}
	return false;
}

/* Adds the distinct words of text, each once, with weight w. For a tool's
 * own text (self set) a clause holding a negation or naming another tool
 * of reg is left out: "Not for searching; use grep_log instead" must not
 * draw search tasks here. */
static int add_text(struct termset *ts, const char *text, double w, const struct tc_registry *reg,
                    const struct tc_defined *self)
{
	struct termset once = { 0 };
	int rc = 0;
	for (const char *s = text ? text : ""; *s && !rc;) {
		size_t n = strcspn(s, CLAUSE_ENDS);
		char *clause = strndup(s, n);
		if (!clause)
			rc = -1;
		else if (!(self &&
		           (clause_negated(clause) || clause_names_other(clause, reg, self))))
			rc = add_clause(&once, clause, w);
		free(clause);
		s += n;
		s += strspn(s, CLAUSE_ENDS);
	}
	for (size_t i = 0; i < once.n && !rc; i++)
		rc = termset_add(ts, once.v[i].word, once.v[i].shown, once.v[i].w);
	free(once.v);
	return rc;
}

static int index_tool(struct sel_tool *st, const struct tc_registry *reg,
                      const struct tc_defined *t)
{
	struct buf params = BUF_INIT;
	if (!(st->name = strdup(t->name)))
		return -1;
	/* The name is split on '_' by the tokenizer: read_file -> read, file. */
	int rc = add_text(&st->terms, t->name, W_NAME, NULL, NULL) |
	        add_text(&st->terms, t->title, W_DESC, reg, t) |
	        add_text(&st->terms, t->description, W_DESC, reg, t);
	const char *key;
	json_t *p;
	json_object_foreach(json_object_get(t->parameters, "properties"), key, p)
	{
		json_t *d = json_object_get(p, "description");
		rc |= buf_printf(&params, "%s. %s. ", key,
		                 json_is_string(d) ? json_string_value(d) : "");
	}
	rc |= add_text(&st->terms, params.data, W_PARAM, reg, t);
	buf_release(&params);
	return rc ? -1 : 0;
}

void lint_selector_free(struct lint_selector *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->tools[i].name);
		free(s->tools[i].terms.v);
	}
	free(s->tools);
	free(s);
}

struct lint_selector *lint_selector_new(const struct tc_registry *reg)
{
	struct lint_selector *s = calloc(1, sizeof *s);
	size_t n = tc_registry_count(reg);
	if (!s || !(s->tools = calloc(n ? n : 1, sizeof *s->tools))) {
		free(s);
		return NULL;
	}
	for (; s->n < n; s->n++)
		if (index_tool(&s->tools[s->n], reg, tc_registry_at(reg, s->n))) {
			s->n++;
			lint_selector_free(s);
			return NULL;
		}
	return s;
}

/* Natural logarithm for x > 0, to 1e-12: the library links no libm, and a
 * few series terms are plenty for ranking words. */
static double ln(double x)
{
	double k = 0;
	while (x > 1.5)
		x /= 2, k++;
	while (x < 0.75)
		x *= 2, k--;
	double y = (x - 1) / (x + 1), y2 = y * y, term = y, sum = 0;
	for (int i = 1; i < 40; i += 2, term *= y2)
		sum += term / i;
	return 2 * sum + k * 0.69314718055994530942;
}

static double idf(const struct lint_selector *s, const char *word)
{
	size_t df = 0;
	for (size_t i = 0; i < s->n; i++)
		df += termset_find(&s->tools[i].terms, word) != NULL;
	/* rare words decide; a word every tool has barely counts */
	return df ? ln(((double)s->n + 1.0) / ((double)df + 0.5)) : 0.0;
}

static double score(const struct lint_selector *s, const struct sel_tool *t,
                    const struct termset *task)
{
	double sum = 0;
	for (size_t i = 0; i < task->n; i++) {
		const struct term *m = termset_find(&t->terms, task->v[i].word);
		if (m)
			sum += m->w * idf(s, m->word);
	}
	return sum;
}

const char *lint_selector_pick(const struct lint_selector *s, const char *task)
{
	struct termset ts = { 0 };
	if (!s || add_text(&ts, task, 1.0, NULL, NULL)) {
		free(ts.v);
		return NULL;
	}
	const char *best = NULL;
	double best_score = 0;
	for (size_t i = 0; i < s->n; i++) {
		double sc = score(s, &s->tools[i], &ts);
		if (sc > best_score + 1e-9 ||
		    (best && sc >= best_score - 1e-9 && strcmp(s->tools[i].name, best) < 0)) {
			best = s->tools[i].name;
			best_score = sc;
		}
	}
	free(ts.v);
	return best;
}

static int cmp_contrib(const void *a, const void *b)
{
	double x = ((const struct term *)a)->w, y = ((const struct term *)b)->w;
	return x < y  ? 1 :
	        x > y ? -1 :
	                strcmp(((const struct term *)a)->word, ((const struct term *)b)->word);
}

int lint_selector_explain(const struct lint_selector *s, const char *task, const char *name,
                          struct buf *why)
{
	const struct sel_tool *t = NULL;
	for (size_t i = 0; s && i < s->n; i++)
		if (!strcmp(s->tools[i].name, name))
			t = &s->tools[i];
	if (!t)
		return buf_printf(why, "%s is not registered", name);
	struct termset ts = { 0 }, hits = { 0 };
	int rc = add_text(&ts, task, 1.0, NULL, NULL);
	double total = 0;
	for (size_t i = 0; i < ts.n && !rc; i++) {
		const struct term *m = termset_find(&t->terms, ts.v[i].word);
		double c = m ? m->w * idf(s, m->word) : 0;
		if (c > 0) {
			total += c;
			rc = termset_add(&hits, ts.v[i].word, ts.v[i].shown, c);
		}
	}
	if (!rc) {
		if (hits.n)
			qsort(hits.v, hits.n, sizeof *hits.v, cmp_contrib);
		rc = buf_printf(why, "%s scored %.2f", name, total);
		if (!hits.n)
			rc |= buf_adds(why, " (shares no word with the task)");
		for (size_t i = 0; i < hits.n && i < EXPLAIN_WORDS && !rc; i++)
			rc = buf_printf(why, "%s%s (%.2f)", i ? ", " : " on: ", hits.v[i].shown,
			                hits.v[i].w);
	}
	free(ts.v);
	free(hits.v);
	return rc;
}
