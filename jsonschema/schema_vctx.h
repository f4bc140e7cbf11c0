/* schema_vctx.h — the validation context shared by schema_validate.c
 * (diagnostics, applicators, entry) and schema_validate_types.c (keywords
 * of numbers, strings, arrays and objects). Private to those two files. */
#ifndef TC_SCHEMA_VCTX_H
#define TC_SCHEMA_VCTX_H

#include "schema_internal.h"

/* The jansson accessors validation calls for every member and value (four
 * per member to walk an object), redeclared (with jansson.h's own types)
 * to be called through the GOT instead of a PLT stub, as -fno-plt would:
 * one jump less per call, which is measurable when a valid instance costs
 * about twenty such calls (docs/schema.md, Benchmark). GCC only: clang
 * has no such attribute and keeps the stubs. */
#if defined(__has_attribute)
#if __has_attribute(noplt)
#define SV_NOPLT(f) __typeof__(f) f __attribute__((noplt))
SV_NOPLT(json_object_iter);
SV_NOPLT(json_object_iter_next);
SV_NOPLT(json_object_iter_key);
SV_NOPLT(json_object_iter_key_len);
SV_NOPLT(json_object_iter_value);
SV_NOPLT(json_string_value);
SV_NOPLT(json_string_length);
SV_NOPLT(json_integer_value);
SV_NOPLT(json_real_value);
#endif
#endif

#define MAX_PATH     512 /* >= any schema's max_depth */
#define BRANCH_DIAGS 8   /* diagnostics kept per anyOf/oneOf branch */

struct pseg {
	const char *key;
	size_t len;
	size_t index;
};

struct dsink {
	struct schema_diag *v;
	size_t n, cap, max, dropped;
	unsigned base_depth; /* instance depth where the sink started */
	size_t type_fails;   /* type mismatches at base_depth */
	size_t other_fails;
	uint16_t expected; /* types those mismatches asked for */
};

struct arena { /* PCRE2 allocations of one validation */
	_Alignas(16) char buf[768];
	size_t used;
};

/* Verdicts of shared nodes per instance value (see mark_shared). */
struct memo_ent {
	const json_t *inst; /* NULL: empty slot */
	uint32_t node;
	uint8_t valid;      /* 1 valid, 0 invalid */
	uint8_t explained;  /* its diagnostics were produced once */
	uint16_t type_only; /* if it failed on type alone: the types wanted */
};

struct memo {
	struct memo_ent *v; /* local[] or malloc'd */
	size_t cap, n;
	struct memo_ent local[16];
};

struct vctx {
	const struct schema *s;
	const struct snode *nodes; /* s->nodes */
	struct memo memo;
	struct dsink *sink; /* NULL: quiet */
	struct dsink *top;  /* where fatal problems are reported */
	int fatal;
	unsigned depth, eval_depth;
	pcre2_general_context *gctx;
	pcre2_match_data *md;
	uint64_t regex_start_ms; /* first PCRE2 match of this pass */
	unsigned regex_calls;
	struct arena arena;
	struct pseg path[MAX_PATH];
};

/* In a keyword function with an int ok: record the failure, and stop at
 * once when only the verdict is wanted (quiet) or validation is aborted. */
#define FAIL()                                                                                     \
	do {                                                                                       \
		ok = 0;                                                                            \
		if (!x->sink || x->fatal)                                                          \
			return 0;                                                                  \
	} while (0)

/* schema_validate.c */
int sv_eval_special(struct vctx *x, uint32_t ni, const json_t *inst); /* sv_eval's rare cases */
int sv_eval_applicators(struct vctx *x, const struct snode *n, const json_t *inst);
void sv_emit_type(struct vctx *x, uint16_t expected, const json_t *inst);
void sv_emit(struct vctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sv_emit_buf(struct vctx *x, struct buf *b); /* releases b */
void sv_fatal(struct vctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sv_sink_release(struct dsink *k);
void sv_too_deep(struct vctx *x); /* reports the nesting limit (fatal) */

/* Enter a member or an item of the instance: 0, or -1 when too deep.
 * Inline: every value validated passes here. */
static inline int sv_push_key(struct vctx *x, const char *key, size_t len)
{
	if (x->depth >= x->s->max_depth || x->depth >= MAX_PATH) {
		sv_too_deep(x);
		return -1;
	}
	x->path[x->depth++] = (struct pseg){ key, len, 0 };
	return 0;
}

static inline int sv_push_index(struct vctx *x, size_t index)
{
	if (x->depth >= x->s->max_depth || x->depth >= MAX_PATH) {
		sv_too_deep(x);
		return -1;
	}
	x->path[x->depth++] = (struct pseg){ NULL, 0, index };
	return 0;
}

int sv_regex_match_pcre2(struct vctx *x, const struct sregex *re, const char *str, size_t len);

/* 1 match, 0 no match, -1 could not decide (match limit, bad UTF-8). */
static inline int sv_regex_match(struct vctx *x, const struct sregex *re, const char *str,
                                 size_t len)
{
	if (re->fast) {
		int m = sre_match(re->fast, str, len);
		if (m != SRE_UNDECIDED)
			return m;
	}
	return sv_regex_match_pcre2(x, re, str, len);
}

/* schema_validate_types.c: 1 valid, 0 not */
int sv_eval(struct vctx *x, uint32_t ni, const json_t *inst);
int sv_eval_node(struct vctx *x, const struct snode *n, const json_t *inst); /* no memo, no depth */

#endif
