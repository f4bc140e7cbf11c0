/* schema_plan.c — what the validator's hot path reads instead of asking
 * jansson: per node, a key table of its properties (one probe per instance
 * key instead of a scan), required names as bits collected during the one
 * pass over an object's keys (no lookup per required name), and numeric
 * limits as numbers (no jansson call per bound).
 *
 * Built once per node after all keywords are compiled (properties and
 * required may come in either order); read-only afterwards. */
#include <stdlib.h>
#include <string.h>

#include "schema_internal.h"

static int plan_nomem(struct compiler *c)
{
	if (c->err && c->err->code == TC_E_OK)
		tc_error_set(c->err, TC_E_NOMEM, "", "out of memory compiling the schema");
	return -1;
}

#define PERFECT_MAX_PROPS 64 /* ptab holds indexes in a byte */
#define PERFECT_SEEDS     512

/* Looks for a multiplier that sends the signatures of all props to
 * distinct slots of a table of 2^bits, trying a fixed sequence of odd
 * multipliers (deterministic: the same schema always gets the same table)
 * for a few table sizes. 0 found (n->ptab set), 1 none, -1 no memory. */
static int find_perfect(struct snode *n)
{
	if (n->nprops > PERFECT_MAX_PROPS)
		return 1;
	unsigned bits = 1;
	while ((1u << bits) < 2 * n->nprops)
		bits++;
	uint8_t *tab = calloc((size_t)1 << (bits + 2), 1);
	if (!tab)
		return -1;
	uint32_t seed = 0x9e3779b9u;
	for (unsigned b = bits; b <= bits + 2; b++) {
		size_t size = (size_t)1 << b;
		for (unsigned t = 0; t < PERFECT_SEEDS; t++) {
			seed = seed * 1664525u + 1013904223u;
			uint32_t m = seed | 1u;
			memset(tab, 0, size);
			size_t k = 0;
			for (; k < n->nprops; k++) {
				uint32_t slot = (skey_sig(n->props[k].name, n->props[k].len) * m) >>
				        (32 - b);
				if (tab[slot])
					break;
				tab[slot] = (uint8_t)(k + 1);
			}
			if (k == n->nprops) {
				n->ptab = tab;
				n->pseed = m;
				n->pshift = (uint8_t)(32 - b);
				return 0;
			}
		}
	}
	free(tab);
	return 1;
}

/* A perfect table when there is one; else a table at most half full: a
 * probe for a missing name always reaches an empty slot. */
static int build_key_table(struct compiler *c, struct snode *n)
{
	if (!n->nprops)
		return 0;
	int r = find_perfect(n);
	if (r < 0)
		return plan_nomem(c);
	if (r == 0)
		return 0;
	size_t size = 4;
	while (size < 2 * n->nprops)
		size *= 2;
	if (size > UINT32_MAX / 2)
		return plan_nomem(c);
	n->ktab = calloc(size, sizeof *n->ktab);
	if (!n->ktab)
		return plan_nomem(c);
	n->kmask = (uint32_t)(size - 1);
	for (size_t k = 0; k < n->nprops; k++) {
		uint32_t h = skey_hash(n->props[k].name, n->props[k].len);
		uint32_t i = h & n->kmask;
		while (n->ktab[i].prop)
			i = (i + 1) & n->kmask;
		n->ktab[i] = (struct skey){ h, (uint32_t)(k + 1) };
	}
	return 0;
}

/* The first 64 distinct required names that are also properties become
 * bits; the rest (not a property, a repeat beyond that, or past 64) are
 * looked up by name. A repeated name maps to the same bit. */
static int split_required(struct compiler *c, struct snode *n)
{
	if (!n->nrequired)
		return 0;
	n->req_rest = calloc(n->nrequired, sizeof *n->req_rest);
	if (!n->req_rest)
		return plan_nomem(c);
	unsigned bits = 0;
	for (size_t k = 0; k < n->nrequired; k++) {
		const struct sname *r = &n->required[k];
		struct sprop *p = (struct sprop *)sprop_find(n, r->name, r->len);
		if (p && !p->reqbit && bits < 64)
			p->reqbit = 1ull << bits++;
		if (p && p->reqbit) {
			n->req_mask |= p->reqbit;
			continue;
		}
		n->req_rest[n->nreq_rest++] = *r;
	}
	return 0;
}

static void add_limit(struct snode *n, const json_t *v, const char *op, uint8_t bad)
{
	if (!v)
		return;
	struct slimit *l = &n->lim[n->nlim++];
	*l = (struct slimit){ v, op, bad, json_is_integer(v), 0, 0 };
	if (l->is_int)
		l->i = json_integer_value(v);
	l->ld = l->is_int ? (long double)l->i : (long double)json_real_value(v);
}

static uint8_t plan_of(const struct snode *n)
{
	uint8_t p = 0;
	if (n->const_v || n->enum_v)
		p |= SP_VALUES;
	if (n->multiple_of || n->maximum || n->ex_maximum || n->minimum || n->ex_minimum)
		p |= SP_NUM;
	if ((n->has & (SK_MIN_LEN | SK_MAX_LEN)) || n->pattern.code || n->format != SF_NONE)
		p |= SP_STR;
	if ((n->has & (SK_MIN_ITEMS | SK_MAX_ITEMS | SK_UNIQUE)) || n->prefix.n ||
	    n->items != SN_NONE || n->contains != SN_NONE)
		p |= SP_ARR;
	if ((n->has & (SK_MIN_PROPS | SK_MAX_PROPS)) || n->nrequired || n->ndeps || n->nprops ||
	    n->npats || n->additional != SN_NONE || n->property_names != SN_NONE)
		p |= SP_OBJ;
	if (n->ref != SN_NONE || n->all_of.n || n->any_of.n || n->one_of.n || n->not_ != SN_NONE ||
	    n->if_ != SN_NONE)
		p |= SP_APPLY;
	return p;
}

/* Chains props in the order the schema declares them (props itself is
 * sorted by name): instances usually list their members in that order, so
 * the validator tries the successor of the last property it met before
 * hashing. */
static void chain_declared(struct compiler *c, uint32_t idx, struct snode *n)
{
	n->first_decl = SN_NONE;
	for (size_t k = 0; k < n->nprops; k++)
		n->props[k].next_decl = SN_NONE;
	json_t *decl = n->nprops ? json_object_get(c->pend[idx].json, "properties") : NULL;
	struct sprop *prev = NULL;
	for (void *it = json_object_iter(decl); it; it = json_object_iter_next(decl, it)) {
		const struct sprop *p =
		        sprop_find(n, json_object_iter_key(it), json_object_iter_key_len(it));
		if (!p)
			continue; /* not compiled as a property (cannot happen) */
		uint32_t k = (uint32_t)(p - n->props);
		if (prev)
			prev->next_decl = k;
		else
			n->first_decl = k;
		prev = &n->props[k];
	}
}

/* The jansson types whose values pass n's type, const, enum and number
 * and string keywords whatever they hold: the type admits every ST_* such
 * a value can be (a real may be integral or not) and no keyword looks
 * further. The validator's first test on a value (eval_scalar). */
static uint8_t settled_types(const struct snode *n)
{
	static const struct {
		json_type jt;
		uint16_t st;
		uint8_t group;
	} kinds[] = {
		{ JSON_OBJECT, ST_OBJ, 0 },
		{ JSON_ARRAY, ST_ARR, 0 },
		{ JSON_STRING, ST_STR, SP_STR },
		{ JSON_INTEGER, ST_INT, SP_NUM },
		{ JSON_REAL, ST_INT | ST_NUM, SP_NUM },
		{ JSON_TRUE, ST_BOOL, 0 },
		{ JSON_FALSE, ST_BOOL, 0 },
		{ JSON_NULL, ST_NULL, 0 },
	};
	uint8_t bits = 0;
	if (n->plan & SP_VALUES)
		return 0;
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
		if ((n->types & kinds[k].st) == kinds[k].st && !(n->plan & kinds[k].group))
			bits |= (uint8_t)(1u << kinds[k].jt);
	return bits;
}

/* A leaf evaluates without calling back into the evaluator: no $ref or
 * applicator, no keyword that looks inside an array or object, not
 * memoized. Its verdict on a value needs neither the instance path nor
 * the evaluation depth, so a quiet pass checks it without entering it. */
static void mark_leaves(const struct compiler *c, struct snode *n)
{
	for (size_t k = 0; k < n->nprops; k++) {
		const struct snode *sub = &c->s->nodes[n->props[k].sub];
		n->props[k].leaf = sub->kind == SN_OBJECT && !sub->shared &&
		        !(plan_of(sub) & (SP_APPLY | SP_ARR | SP_OBJ));
	}
}

int comp_finish_node(struct compiler *c, uint32_t idx)
{
	struct snode *n = &c->s->nodes[idx];
	if (n->kind != SN_OBJECT)
		return 0;
	n->plan = plan_of(n);
	if (!(n->has & SK_TYPE))
		n->types = ST_ALL; /* one test for type, with or without the keyword */
	n->settled = settled_types(n);
	n->nenum = n->enum_v ? json_array_size(n->enum_v) : 0;
	/* bad comparisons, as bits (c + 1): above; at or above; below; at or
	 * below */
	add_limit(n, n->maximum, "<=", 1u << 2);
	add_limit(n, n->ex_maximum, "<", 1u << 2 | 1u << 1);
	add_limit(n, n->minimum, ">=", 1u << 0);
	add_limit(n, n->ex_minimum, ">", 1u << 0 | 1u << 1);
	if (build_key_table(c, n) < 0 || split_required(c, n) < 0)
		return -1;
	chain_declared(c, idx, n);
	mark_leaves(c, n);
	return 0;
}

void comp_free_plan(struct snode *n)
{
	free(n->ktab);
	free(n->ptab);
	free(n->req_rest);
	n->ktab = NULL;
	n->ptab = NULL;
	n->req_rest = NULL;
}
