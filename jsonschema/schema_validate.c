/* schema_validate.c — evaluates an instance against a compiled schema.
 *
 * Two modes share one evaluator. Quiet (no sink): stop at the first failure,
 * allocate nothing (regex match data lives in an arena on the caller's
 * stack). Diagnostic (a sink): visit everything and record each failure
 * with its instance pointer. schema_eval runs quiet first and re-runs with
 * diagnostics only for an invalid instance, so valid instances never pay for
 * diagnostics.
 *
 * Blow-up: every subschema is evaluated at most once per instance node per
 * branch. anyOf/oneOf branches in diagnostic mode record into their own
 * sinks in that single pass, and the summary is built from those; nothing is
 * re-evaluated to explain a failure, so nesting costs no exponent.
 *
 * This file holds the evaluator's frame: diagnostics, PCRE2 matching, the
 * in-place applicators, memoized shared nodes and the entry. The per-node
 * hot path is in schema_validate_types.c.
 */
#define _GNU_SOURCE /* vasprintf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jsonptr.h"
#include "schema_vctx.h"

/* ---- diagnostics ------------------------------------------------------- */

static char *render_pointer(const struct vctx *x)
{
	struct buf b = BUF_INIT;
	int rc = buf_add(&b, "", 0);
	for (unsigned i = 0; i < x->depth && rc == 0; i++) {
		const struct pseg *p = &x->path[i];
		rc = p->key ? jsonptr_append(&b, p->key, p->len) : buf_printf(&b, "/%zu", p->index);
	}
	if (rc) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

void sv_sink_release(struct dsink *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->v[i].pointer);
		free(k->v[i].message);
	}
	free(k->v);
	k->v = NULL;
	k->n = k->cap = 0;
}

/* Takes pointer and message (freed if not kept). */
static int sink_push(struct vctx *x, struct dsink *k, char *pointer, char *message)
{
	if (!pointer || !message)
		goto nomem;
	if (k->n >= k->max) {
		k->dropped++;
		free(pointer);
		free(message);
		return 0;
	}
	if (k->n == k->cap) {
		size_t ncap = k->cap ? k->cap * 2 : 4;
		if (ncap > k->max)
			ncap = k->max;
		struct schema_diag *v = realloc(k->v, ncap * sizeof *v);
		if (!v)
			goto nomem;
		k->v = v;
		k->cap = ncap;
	}
	k->v[k->n++] = (struct schema_diag){ pointer, message };
	return 0;
nomem:
	free(pointer);
	free(message);
	x->fatal = 1;
	return -1;
}

__attribute__((format(printf, 3, 0))) static void vemit(struct vctx *x, struct dsink *k,
                                                        const char *fmt, va_list ap)
{
	char *msg = NULL;
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	sink_push(x, k, render_pointer(x), msg);
}

__attribute__((format(printf, 2, 3))) void sv_emit(struct vctx *x, const char *fmt, ...)
{
	if (!x->sink)
		return;
	x->sink->other_fails++;
	va_list ap;
	va_start(ap, fmt);
	vemit(x, x->sink, fmt, ap);
	va_end(ap);
}

/* Emits a message built in b (released here). */
void sv_emit_buf(struct vctx *x, struct buf *b)
{
	if (x->sink && b->data)
		sv_emit(x, "%s", b->data);
	else if (x->sink)
		x->fatal = 1;
	buf_release(b);
}

/* A problem that stops validation (depth, memory): reported to the top
 * sink whatever branch is being explored. */
__attribute__((format(printf, 2, 3))) void sv_fatal(struct vctx *x, const char *fmt, ...)
{
	if (x->fatal)
		return;
	x->fatal = 1;
	if (!x->top)
		return;
	va_list ap;
	va_start(ap, fmt);
	vemit(x, x->top, fmt, ap);
	va_end(ap);
	x->fatal = 1;
}

static void add_types(struct buf *b, uint16_t mask)
{
	static const struct {
		uint16_t bit;
		const char *word;
	} order[] = {
		{ ST_STR, "string" },   { ST_NUM, "number" }, { ST_INT, "integer" },
		{ ST_BOOL, "boolean" }, { ST_OBJ, "object" }, { ST_ARR, "array" },
		{ ST_NULL, "null" },
	};
	const char *words[7];
	size_t n = 0;
	for (size_t i = 0; i < 7; i++) {
		if (!(mask & order[i].bit))
			continue;
		if (order[i].bit == ST_INT && (mask & ST_NUM))
			continue; /* "number" already admits integers */
		words[n++] = order[i].word;
	}
	for (size_t i = 0; i < n; i++)
		buf_printf(b, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", words[i]);
}

#define QUOTED_TEXT_MAX 65536 /* a string looked into for the JSON it holds */

#define LIST_HINT_MAX 200 /* bytes of a string shown split into an array */

/* Text where only an array goes ("argv": "make test", "paths": "a.c"):
 * says to give an array, with the text split at its blanks as the
 * example, when it is short and plain (no quote, backslash or control
 * character to escape). */
static void add_list_hint(struct buf *b, uint16_t expected, const char *s, size_t n)
{
	if (expected != ST_ARR)
		return;
	buf_adds(b, ": give a JSON array, one element per item");
	if (n > LIST_HINT_MAX)
		return;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == '"' || s[i] == '\\' || s[i] == 0x7f)
			return;
	buf_adds(b, ", e.g. [");
	bool first = true;
	for (size_t i = 0; i < n;) {
		size_t w = strcspn(s + i, " ");
		if (w > n - i)
			w = n - i;
		if (w) {
			buf_printf(b, "%s\"%.*s\"", first ? "" : ", ", (int)w, s + i);
			first = false;
		}
		i += w + 1;
	}
	buf_adds(b, "]");
}

/* A string where a number, a boolean, an array or an object was expected
 * is most often that value in quotes (a model writes "limit": "10", a
 * client passes "argv": "[\"ls\"]" on as text): says so, and what to
 * write instead. */
static void add_quoted_hint(struct buf *b, uint16_t expected, const json_t *inst)
{
	const char *s = json_string_value(inst);
	size_t n = json_string_length(inst);
	if (!s || !n || n > QUOTED_TEXT_MAX || memchr(s, '\0', n))
		return;
	json_t *v = json_loadb(s, n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
	if (!v) {
		add_list_hint(b, expected, s, n);
		return;
	}
	unsigned t = json_value_type(v);
	/* The text itself only when it is nothing but the literal. */
	if ((t & (ST_INT | ST_NUM | ST_BOOL)) && (expected & t) && n <= 32 &&
	    strspn(s, "+-.0123456789Eeflsrtu") == n)
		buf_printf(b, " \"%s\": write it without the quotes, %s", s, s);
	else if ((t & (ST_ARR | ST_OBJ)) && (expected & t))
		buf_printf(b, " that holds a JSON %s: give the %s itself, not its text in a string",
		           t == ST_ARR ? "array" : "object", t == ST_ARR ? "array" : "object");
	json_decref(v);
}

void sv_emit_type(struct vctx *x, uint16_t expected, const json_t *inst)
{
	if (!x->sink)
		return;
	unsigned got = json_value_type(inst);
	struct buf b = BUF_INIT;
	buf_adds(&b, "expected ");
	add_types(&b, expected);
	buf_printf(&b, ", got %s", got == ST_INT ? "number" : json_type_word(got));
	if (got == ST_STR)
		add_quoted_hint(&b, expected, inst);
	if (x->depth != x->sink->base_depth) {
		sv_emit_buf(x, &b);
		return;
	}
	/* counted apart: anyOf uses it to tell "wrong kind of value" branches
	 * from branches that were meant and failed on details */
	x->sink->type_fails++;
	x->sink->expected |= expected;
	sink_push(x, x->sink, render_pointer(x), b.data ? strdup(b.data) : NULL);
	buf_release(&b);
}

/* ---- instance path ------------------------------------------------------ */

void sv_too_deep(struct vctx *x)
{
	sv_fatal(x, "nesting deeper than %zu levels: not validated", x->s->max_depth);
}

/* ---- regexes ------------------------------------------------------------ */

/* PCRE2 allocates its context and match data through these, from an arena
 * in the validation context, so matching needs no heap (larger requests,
 * like interpreter frames when JIT is unavailable, fall back to malloc). */
static void *arena_malloc(PCRE2_SIZE n, void *data)
{
	struct arena *a = data;
	n = (n + 15) & ~(PCRE2_SIZE)15;
	if (n <= sizeof a->buf - a->used) {
		void *p = a->buf + a->used;
		a->used += n;
		memset(p, 0, n); /* stack bytes: keep them defined for checkers */
		return p;
	}
	return malloc(n);
}

static void arena_free(void *p, void *data)
{
	struct arena *a = data;
	if ((char *)p >= a->buf && (char *)p < a->buf + sizeof a->buf)
		return;
	free(p);
}

static uint64_t coarse_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts); /* vDSO, no syscall */
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The pass's PCRE2 time so far is over SCHEMA_REGEX_BUDGET_MS (tested
 * every 8th match: each one is held to the match limit). Fatal, so that
 * neither 'not' nor 'if' can turn it into a pass. */
static bool regex_over_budget(struct vctx *x)
{
	if (x->regex_calls++ % 8 || coarse_ms() - x->regex_start_ms <= SCHEMA_REGEX_BUDGET_MS)
		return false;
	sv_fatal(x,
	         "the patterns took more than %u ms on this instance: not validated; send "
	         "fewer or shorter values",
	         SCHEMA_REGEX_BUDGET_MS);
	return true;
}

/* 1 match, 0 no match, -1 could not decide (match limit, bad UTF-8, the
 * time budget). */
int sv_regex_match_pcre2(struct vctx *x, const struct sregex *re, const char *str, size_t len)
{
	if (x->md && regex_over_budget(x))
		return -1;
	if (!x->md) {
		x->regex_start_ms = coarse_ms();
		x->regex_calls = 1;
		x->arena.used = 0;
		x->gctx = pcre2_general_context_create(arena_malloc, arena_free, &x->arena);
		x->md = x->gctx ? pcre2_match_data_create(1, x->gctx) : NULL;
		if (!x->md) {
			sv_fatal(x, "out of memory");
			return -1;
		}
	}
	/* compiled with PCRE2_MATCH_INVALID_UTF: no separate UTF-8 pass over the
	 * subject, and a string built without jansson's checks is still safe */
	int rc = re->jit ?
	        pcre2_jit_match(re->code, (PCRE2_SPTR)str, len, 0, 0, x->md, x->s->mctx) :
	        pcre2_match(re->code, (PCRE2_SPTR)str, len, 0, 0, x->md, x->s->mctx);
	if (rc >= 0)
		return 1;
	return rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

/* ---- applicators ---------------------------------------------------------- */

/* Moves k's diagnostics into the current sink. */
static void sink_move(struct vctx *x, struct dsink *k)
{
	for (size_t i = 0; i < k->n; i++) {
		x->sink->other_fails++;
		sink_push(x, x->sink, k->v[i].pointer, k->v[i].message);
	}
	x->sink->dropped += k->dropped;
	free(k->v);
	k->v = NULL;
	k->n = 0;
}

/* No branch matched. Branches that failed only because the value has the
 * wrong type were not what the caller meant; the rest were. One meant
 * branch: its own diagnostics. None: one type message. Several: a summary
 * with the first failure of each. */
static void summarize(struct vctx *x, struct dsink *br, size_t nbr, const json_t *inst, bool one)
{
	size_t meant = 0, last = 0;
	uint16_t expected = 0;
	for (size_t i = 0; i < nbr; i++) {
		if (br[i].type_fails && !br[i].other_fails)
			expected |= br[i].expected;
		else
			meant++, last = i;
	}
	if (meant == 0) {
		sv_emit_type(x, expected, inst);
		return;
	}
	if (meant == 1) {
		sink_move(x, &br[last]);
		return;
	}
	struct buf b = BUF_INIT;
	buf_printf(&b, "must match %s of the %zu alternatives in %s; closest failures:",
	           one ? "exactly one" : "at least one", nbr, one ? "oneOf" : "anyOf");
	size_t shown = 0;
	for (size_t i = 0; i < nbr && shown < 3; i++) {
		if ((br[i].type_fails && !br[i].other_fails) || br[i].n == 0)
			continue;
		/* cut: nested summaries would otherwise grow with the nesting */
		buf_printf(&b, "%s #%zu: %.100s: %.160s%s", shown ? ";" : "", i,
		           br[i].v[0].pointer[0] ? br[i].v[0].pointer : "/", br[i].v[0].message,
		           strlen(br[i].v[0].message) > 160 ? "..." : "");
		shown++;
	}
	if (meant > shown)
		buf_printf(&b, "; (%zu more)", meant - shown);
	sv_emit_buf(x, &b);
}

static int eval_alternatives(struct vctx *x, const struct slist *l, const json_t *inst, bool one)
{
	size_t matches = 0, first = 0;
	if (!x->sink) {
		for (size_t i = 0; i < l->n && !x->fatal; i++) {
			if (!sv_eval(x, l->v[i], inst))
				continue;
			if (!one)
				return 1;
			if (++matches > 1)
				return 0;
		}
		return matches == 1 && !x->fatal;
	}
	struct dsink *br = calloc(l->n, sizeof *br), *saved = x->sink;
	if (!br) {
		sv_fatal(x, "out of memory");
		return 0;
	}
	size_t done = 0;
	int ok = 0;
	for (; done < l->n && !x->fatal; done++) {
		br[done] = (struct dsink){ .max = BRANCH_DIAGS, .base_depth = x->depth };
		x->sink = &br[done];
		int r = sv_eval(x, l->v[done], inst);
		x->sink = saved;
		if (!r)
			continue;
		if (matches++ == 0)
			first = done;
		if (!one || matches > 1) {
			done++;
			break;
		}
	}
	x->sink = saved;
	if (x->fatal) {
		ok = 0;
	} else if (matches == 1 || (!one && matches)) {
		ok = 1;
	} else if (matches > 1) {
		sv_emit(x,
		        "must match exactly one of the %zu alternatives in oneOf, but matches #%zu and #%zu",
		        l->n, first, done - 1);
	} else {
		summarize(x, br, done, inst, one);
	}
	for (size_t i = 0; i < done; i++)
		sv_sink_release(&br[i]);
	free(br);
	return ok;
}

static int eval_not(struct vctx *x, const struct snode *n, const json_t *inst)
{
	struct dsink *saved = x->sink;
	x->sink = NULL;
	int r = sv_eval(x, n->not_, inst);
	x->sink = saved;
	if (!r || x->fatal)
		return !x->fatal;
	sv_emit(x, "must not match the schema at '#%s' ('not')", x->s->nodes[n->not_].where);
	return 0;
}

static int eval_if(struct vctx *x, const struct snode *n, const json_t *inst)
{
	struct dsink *saved = x->sink;
	x->sink = NULL;
	int r = sv_eval(x, n->if_, inst);
	x->sink = saved;
	if (x->fatal)
		return 0;
	uint32_t next = r ? n->then_ : n->else_;
	return next == SN_NONE ? 1 : sv_eval(x, next, inst);
}

/* $ref and the in-place applicators after it: allOf, anyOf, oneOf, not,
 * if/then/else (split so the common node, which has none, skips them all
 * with one test; $ref itself comes first, in eval_node). */
int sv_eval_applicators(struct vctx *x, const struct snode *n, const json_t *inst)
{
	int ok = 1;
	for (size_t i = 0; i < n->all_of.n; i++)
		if (!sv_eval(x, n->all_of.v[i], inst))
			FAIL();
	if (n->any_of.n && !eval_alternatives(x, &n->any_of, inst, false))
		FAIL();
	if (n->one_of.n && !eval_alternatives(x, &n->one_of, inst, true))
		FAIL();
	if (n->not_ != SN_NONE && !eval_not(x, n, inst))
		FAIL();
	if (n->if_ != SN_NONE && !eval_if(x, n, inst))
		FAIL();
	return ok;
}

/* ---- memo of shared nodes -------------------------------------------------- */

static size_t memo_slot(const struct memo *m, uint32_t node, const json_t *inst)
{
	uint64_t h = ((uint64_t)(uintptr_t)inst * 0x9e3779b97f4a7c15ULL) ^
	        (node * 0xff51afd7ed558ccdULL);
	size_t i = (size_t)(h >> 17) & (m->cap - 1);
	while (m->v[i].inst && (m->v[i].inst != inst || m->v[i].node != node))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void memo_first_use(struct memo *m);

static struct memo_ent *memo_find(struct vctx *x, uint32_t node, const json_t *inst)
{
	struct memo *m = &x->memo;
	if (!m->v)
		memo_first_use(m);
	struct memo_ent *e = &m->v[memo_slot(m, node, inst)];
	return e->inst ? e : NULL;
}

/* Records a verdict; without memory it records nothing (only slower). */
static struct memo_ent *memo_put(struct vctx *x, uint32_t node, const json_t *inst, int valid)
{
	struct memo *m = &x->memo;
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap * 2;
		struct memo_ent *nv = calloc(ncap, sizeof *nv), *old = m->v;
		if (!nv)
			return NULL;
		size_t oldcap = m->cap;
		m->v = nv;
		m->cap = ncap;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].inst)
				m->v[memo_slot(m, old[i].node, old[i].inst)] = old[i];
		if (old != m->local)
			free(old);
	}
	struct memo_ent *e = &m->v[memo_slot(m, node, inst)];
	if (!e->inst) {
		*e = (struct memo_ent){ inst, node, (uint8_t)valid, 0, 0 };
		m->n++;
	}
	return e;
}

/* A shared node is evaluated once per instance value; later visits reuse
 * the verdict. In diagnostic mode its failures are explained the first
 * time and referred to afterwards. */
__attribute__((noinline)) static int eval_shared(struct vctx *x, uint32_t ni, const json_t *inst)
{
	const struct snode *n = &x->s->nodes[ni];
	struct memo_ent *e = memo_find(x, ni, inst);
	if (e && (e->valid || !x->sink))
		return e->valid;
	if (e && e->explained) {
		if (e->type_only)
			sv_emit_type(x, e->type_only, inst);
		else
			sv_emit(x, "does not match the schema at '#%s'", n->where);
		return 0;
	}
	size_t types_before = x->sink ? x->sink->type_fails : 0;
	size_t others_before = x->sink ? x->sink->other_fails : 0;
	x->eval_depth++;
	int r = sv_eval_node(x, n, inst);
	x->eval_depth--;
	if (x->fatal)
		return 0;
	e = memo_put(x, ni, inst, r);
	if (e && x->sink) {
		e->explained = 1;
		if (x->sink->other_fails == others_before && x->sink->type_fails > types_before)
			e->type_only = x->sink->expected;
	}
	return r;
}

/* The uncommon cases of sv_eval, out of its way. */
int sv_eval_special(struct vctx *x, uint32_t ni, const json_t *inst)
{
	const struct snode *n = &x->s->nodes[ni];
	if (n->kind == SN_TRUE)
		return 1;
	if (n->kind == SN_FALSE) {
		sv_emit(x, "no value is allowed here (the schema is false)");
		return 0;
	}
	if (x->eval_depth >= SCHEMA_MAX_EVAL_DEPTH) {
		sv_fatal(x, "schema evaluation nested deeper than %d levels: not validated",
		         SCHEMA_MAX_EVAL_DEPTH);
		return 0;
	}
	return eval_shared(x, ni, inst);
}

/* ---- entry ------------------------------------------------------------------ */

static void vctx_init(struct vctx *x, const struct schema *s)
{
	x->s = s;
	x->nodes = s->nodes;
	x->sink = x->top = NULL;
	x->fatal = 0;
	x->depth = x->eval_depth = 0;
	x->gctx = NULL;
	x->md = NULL;
	x->arena.used = 0;
}

/* Lazy: most tool schemas share no node, and clearing the table on every
 * validation would cost them for nothing. */
static void memo_init(struct memo *m)
{
	m->v = NULL;
	m->cap = m->n = 0;
}

static void memo_first_use(struct memo *m)
{
	memset(m->local, 0, sizeof m->local);
	m->v = m->local;
	m->cap = sizeof m->local / sizeof m->local[0];
}

static void memo_release(struct memo *m)
{
	if (m->v && m->v != m->local)
		free(m->v);
	m->v = NULL;
}

static void vctx_release(struct vctx *x)
{
	if (!x->gctx)
		return; /* no PCRE2 match ran: nothing was made */
	pcre2_match_data_free(x->md);
	pcre2_general_context_free(x->gctx);
	x->md = NULL;
	x->gctx = NULL;
}

int schema_eval(const struct schema *s, const json_t *inst, struct schema_result *res,
                size_t max_diags)
{
	struct vctx x;
	if (res)
		memset(res, 0, sizeof *res);
	vctx_init(&x, s);
	memo_init(&x.memo);
	int ok = sv_eval(&x, s->root, inst);
	if (ok || !res || x.fatal) {
		int fatal_quiet = x.fatal;
		vctx_release(&x);
		if (!fatal_quiet || !res) {
			memo_release(&x.memo);
			return fatal_quiet ? -1 : ok;
		}
	}
	/* invalid: once more, this time recording why. The memo carries over:
	 * verdicts do not depend on the mode. */
	vctx_release(&x);
	vctx_init(&x, s);
	struct dsink top = { .max = max_diags ? max_diags : SCHEMA_DEFAULT_DIAGS };
	x.sink = x.top = &top;
	ok = sv_eval(&x, s->root, inst);
	if (!ok && !x.fatal && top.n == 0 && top.dropped == 0)
		sv_fatal(&x, "invalid (no diagnostic was produced: please report this)");
	vctx_release(&x);
	memo_release(&x.memo);
	res->diags = top.v;
	res->count = top.n;
	res->dropped = top.dropped;
	if (x.fatal)
		return -1;
	return ok;
}
