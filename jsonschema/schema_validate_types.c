/* schema_validate_types.c — one schema node on one value: sv_eval (the
 * entry every subschema evaluation goes through), type, const and enum,
 * and the keywords that look at one kind of value: numbers (multipleOf,
 * bounds), strings (lengths in code points, pattern, asserted format),
 * arrays (sizes, uniqueItems, prefixItems/items, contains) and objects
 * (sizes, required, dependencies, properties, patternProperties,
 * additionalProperties, propertyNames).
 *
 * This is the hot path of validation, kept in one file so the compiler can
 * inline it: it reads the forms schema_plan.c precomputed (keyword groups,
 * key tables, required bits, numeric bounds, leaf properties) rather than
 * asking jansson, and diagnostics are built in cold functions of their
 * own, so the path a valid value takes has no buffer and makes no
 * allocation. Calls are what a valid instance costs most (each member
 * takes four jansson calls to walk), so that path is inlined into one
 * function: the quiet pass over an object's members checks leaf properties
 * in place, a string is fetched once for enum and the string keywords,
 * and what that path cannot settle (counting code points, PCRE2, formats,
 * any failure) is done out of line. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "schema_vctx.h"
#include "utf8.h"

/* ---- keywords by instance type ------------------------------------------ */

/* "must be WHAT LIMIT, got VALUE" (cold: kept out of eval_number) */
__attribute__((noinline, cold)) static void emit_number(struct vctx *x, const char *what,
                                                        const char *op, const json_t *limit,
                                                        const json_t *inst)
{
	if (!x->sink)
		return;
	struct buf b = BUF_INIT;
	buf_printf(&b, "must be %s ", what ? what : op);
	buf_add_value(&b, limit, 40);
	buf_adds(&b, ", got ");
	buf_add_value(&b, inst, 40);
	sv_emit_buf(x, &b);
}

/* Integers against integer bounds compare exactly, without converting;
 * anything else compares in long double (as num_cmp). */
__attribute__((always_inline)) static inline int eval_number(struct vctx *x, const struct snode *n,
                                                             const json_t *inst)
{
	int ok = 1;
	bool inst_int = json_is_integer(inst);
	json_int_t iv = inst_int ? json_integer_value(inst) : 0;
	if (n->multiple_of && !num_is_multiple(inst, n->multiple_of)) {
		emit_number(x, "a multiple of", NULL, n->multiple_of, inst);
		FAIL();
	}
	for (size_t i = 0; i < n->nlim; i++) {
		const struct slimit *l = &n->lim[i];
		int c;
		if (inst_int && l->is_int) {
			c = (iv > l->i) - (iv < l->i);
		} else {
			long double v =
			        inst_int ? (long double)iv : (long double)json_real_value(inst);
			c = (v > l->ld) - (v < l->ld);
		}
		if (!(l->bad >> (c + 1) & 1))
			continue;
		emit_number(x, NULL, l->op, l->v, inst);
		FAIL();
	}
	return ok;
}

/* The string keywords the hot path could not settle: lengths in code
 * points, the pattern (m: the DFA's verdict, or SRE_UNDECIDED to ask
 * PCRE2), the asserted format, in the order of their diagnostics. */
__attribute__((noinline)) static int eval_string_slow(struct vctx *x, const struct snode *n,
                                                      const char *str, size_t len, bool count,
                                                      int m)
{
	int ok = 1;
	if (count) {
		size_t cp = utf8_count(str, len);
		if ((n->has & SK_MIN_LEN) && cp < n->min_len) {
			sv_emit(x, "must be at least %zu character%s long, got %zu", n->min_len,
			        n->min_len == 1 ? "" : "s", cp);
			FAIL();
		}
		if ((n->has & SK_MAX_LEN) && cp > n->max_len) {
			sv_emit(x, "must be at most %zu character%s long, got %zu", n->max_len,
			        n->max_len == 1 ? "" : "s", cp);
			FAIL();
		}
	}
	if (n->pattern.code) {
		if (m == SRE_UNDECIDED)
			m = sv_regex_match_pcre2(x, &n->pattern, str, len);
		if (m == 0)
			sv_emit(x, "must match the pattern '%.200s'", n->pattern.src);
		else if (m < 0) /* fatal: under 'not' or 'if', a plain failure would pass */
			sv_fatal(x,
			         "could not be checked against the pattern '%.200s' (regex match "
			         "limit reached); send a shorter or simpler value",
			         n->pattern.src);
		if (m != 1)
			FAIL();
	}
	if (n->format != SF_NONE && !format_check(n->format, str, len)) {
		sv_emit(x, "must be a valid %s (%s)", n->format_name, format_hint(n->format));
		FAIL();
	}
	return ok;
}

/* str, len: the instance's bytes (eval_scalar fetched them once for this
 * and enum). Inline, the usual string: its byte length settles
 * minLength and maxLength (a string has between len / 4 and len code
 * points: counting is needed only in between) and the pattern's DFA
 * matches; anything else is eval_string_slow's. */
__attribute__((always_inline)) static inline int eval_string(struct vctx *x, const struct snode *n,
                                                             const char *str, size_t len)
{
	bool count = ((n->has & SK_MAX_LEN) && len > n->max_len) ||
	        ((n->has & SK_MIN_LEN) && len / 4 < n->min_len);
	int m = 1;
	if (n->pattern.code)
		m = n->pattern.fast ? sre_match(n->pattern.fast, str, len) : SRE_UNDECIDED;
	if (!count && m == 1 && n->format == SF_NONE)
		return 1;
	return eval_string_slow(x, n, str, len, count, m);
}

/* ---- const, enum, and the keywords of a scalar --------------------------- */

/* "must be one of A, B, C" */
__attribute__((noinline, cold)) static void emit_enum(struct vctx *x, const struct snode *n)
{
	if (!x->sink)
		return;
	size_t cnt = n->nenum, i;
	struct buf b = BUF_INIT;
	buf_adds(&b, "must be one of ");
	for (i = 0; i < cnt && i < 16; i++) {
		json_t *v = json_array_get(n->enum_v, i);
		buf_adds(&b, i ? ", " : "");
		if (json_is_string(v))
			buf_add(&b, json_string_value(v),
			        json_string_length(v) > 60 ? 60 : json_string_length(v));
		else
			buf_add_value(&b, v, 60);
	}
	if (cnt > 16)
		buf_printf(&b, " (%zu more)", cnt - 16);
	sv_emit_buf(x, &b);
}

/* const: 1 equal, 0 not (explained, or sv_fatal when too deep). */
__attribute__((noinline)) static int eval_const(struct vctx *x, const struct snode *n,
                                                const json_t *inst)
{
	int r = json_equal_value(n->const_v, inst, 0);
	if (r < 0)
		sv_fatal(x, "could not compare with 'const' (nesting too deep)");
	if (r == 0 && x->sink) {
		struct buf b = BUF_INIT;
		buf_adds(&b, "must be exactly ");
		buf_add_value(&b, n->const_v, 80);
		sv_emit_buf(x, &b);
	}
	return r == 1;
}

/* An enum with an item other than a string: JSON equality with each.
 * 1 found, 0 not, -1 too deep to compare. */
__attribute__((noinline)) static int enum_find_value(const struct snode *n, const json_t *inst)
{
	int r = 0;
	for (size_t i = 0; i < n->nenum && r == 0; i++)
		r = json_equal_value(json_array_get(n->enum_v, i), inst, 0);
	return r;
}

/* An enum of strings only (the usual fixed choices): str is one of them,
 * compared by length first. */
__attribute__((always_inline)) static inline bool enum_has_string(const struct snode *n,
                                                                  const char *str, size_t len)
{
	for (size_t i = 0; i < n->nenum; i++)
		if (n->enum_strs[i].len == len && bytes_equal(n->enum_strs[i].name, str, len))
			return true;
	return false;
}

/* const and enum. str, len: inst's bytes when it is a string, else NULL. */
__attribute__((always_inline)) static inline int eval_values(struct vctx *x, const struct snode *n,
                                                             const json_t *inst, const char *str,
                                                             size_t len)
{
	int ok = 1;
	if (n->const_v && !eval_const(x, n, inst))
		FAIL();
	if (n->enum_v) {
		int r = n->enum_strs ? str && enum_has_string(n, str, len) :
		                       enum_find_value(n, inst);
		if (r < 0)
			sv_fatal(x, "could not compare with 'enum' (nesting too deep)");
		if (r == 0)
			emit_enum(x, n);
		if (r != 1)
			FAIL();
	}
	return ok;
}

/* The keywords of n that look at the value itself: type, const and enum,
 * and those of numbers and strings. Nothing here calls back into the
 * evaluator, so a leaf is exactly this. */
__attribute__((always_inline)) static inline int eval_scalar(struct vctx *x, const struct snode *n,
                                                             const json_t *inst)
{
	json_type jt = json_typeof(inst);
	if ((unsigned)jt < 8 && (n->settled >> jt & 1))
		return 1; /* the right type, and nothing else to ask of it */
	unsigned t = json_value_type(inst);
	int ok = 1;
	bool type_failed = false;
	/* "number" sets both ST_NUM and ST_INT; no type keyword, ST_ALL */
	if (!(n->types & t)) {
		sv_emit_type(x, n->types, inst);
		type_failed = true;
		FAIL();
	}
	/* a string's bytes, fetched once for enum and the string keywords */
	const char *str = NULL;
	size_t len = 0;
	if (t == ST_STR && (n->plan & (SP_VALUES | SP_STR))) {
		str = json_string_value(inst);
		len = json_string_length(inst);
	}
	/* after a type failure, enum and const would only repeat it */
	if (!type_failed && (n->plan & SP_VALUES) && !eval_values(x, n, inst, str, len))
		FAIL();
	if ((n->plan & SP_NUM) && (t & (ST_INT | ST_NUM)) && !eval_number(x, n, inst))
		FAIL();
	if ((n->plan & SP_STR) && str && !eval_string(x, n, str, len))
		FAIL();
	return ok;
}

static int eval_items(struct vctx *x, const struct snode *n, const json_t *inst, size_t size)
{
	int ok = 1;
	for (size_t i = 0; i < size; i++) {
		uint32_t sub = i < n->prefix.n ? n->prefix.v[i] : n->items;
		if (sub == SN_NONE)
			break;
		if (x->s->nodes[sub].kind == SN_FALSE && i >= n->prefix.n) {
			sv_emit(x,
			        "must have at most %zu item%s, got %zu (no items beyond the first %zu "
			        "are allowed)",
			        n->prefix.n, n->prefix.n == 1 ? "" : "s", size, n->prefix.n);
			FAIL();
			break;
		}
		if (sv_push_index(x, i) < 0)
			return 0;
		int r = sv_eval(x, sub, json_array_get(inst, i));
		x->depth--;
		if (!r)
			FAIL();
	}
	return ok;
}

static int eval_contains(struct vctx *x, const struct snode *n, const json_t *inst, size_t size)
{
	size_t found = 0;
	bool has_max = n->has & SK_MAX_CONTAINS;
	struct dsink *saved = x->sink;
	x->sink = NULL; /* items that do not match are not failures */
	for (size_t i = 0; i < size && !x->fatal; i++) {
		if (sv_push_index(x, i) < 0)
			break;
		found += (size_t)sv_eval(x, n->contains, json_array_get(inst, i));
		x->depth--;
		if (found >= n->min_contains && !has_max)
			break;
		if (has_max && found > n->max_contains)
			break;
	}
	x->sink = saved;
	if (x->fatal)
		return 0;
	if (found < n->min_contains) {
		if (n->min_contains == 1)
			sv_emit(x, "must contain at least one item matching the 'contains' schema");
		else
			sv_emit(x,
			        "must contain at least %zu items matching the 'contains' schema, got %zu",
			        n->min_contains, found);
		return 0;
	}
	if (has_max && found > n->max_contains) {
		sv_emit(x,
		        "must contain at most %zu item%s matching the 'contains' schema, got more",
		        n->max_contains, n->max_contains == 1 ? "" : "s");
		return 0;
	}
	return 1;
}

static int eval_array(struct vctx *x, const struct snode *n, const json_t *inst)
{
	int ok = 1;
	size_t size = json_array_size(inst);
	if ((n->has & SK_MIN_ITEMS) && size < n->min_items) {
		sv_emit(x, "must have at least %zu item%s, got %zu", n->min_items,
		        n->min_items == 1 ? "" : "s", size);
		FAIL();
	}
	if ((n->has & SK_MAX_ITEMS) && size > n->max_items) {
		sv_emit(x, "must have at most %zu item%s, got %zu", n->max_items,
		        n->max_items == 1 ? "" : "s", size);
		FAIL();
	}
	if (n->has & SK_UNIQUE) {
		size_t a = 0, b = 0;
		int r = unique_items_check(inst, &a, &b);
		if (r < 0)
			sv_fatal(x,
			         "could not check uniqueItems (out of memory or nesting too deep)");
		else if (r == 0)
			sv_emit(x, "must not contain duplicates (items %zu and %zu are equal)", a,
			        b);
		if (r != 1)
			FAIL();
	}
	if ((n->prefix.n || n->items != SN_NONE) && !eval_items(x, n, inst, size))
		FAIL();
	if (n->contains != SN_NONE && !eval_contains(x, n, inst, size))
		FAIL();
	return ok;
}

/* additionalProperties: false names the stray property and what is allowed,
 * which is what a model needs to fix its call. */
__attribute__((noinline, cold)) static void emit_unexpected(struct vctx *x, const struct snode *n,
                                                            const char *key, size_t len)
{
	if (!x->sink)
		return;
	struct buf b = BUF_INIT;
	buf_adds(&b, "unexpected property ");
	buf_add_name(&b, key, len);
	if (n->nprops) {
		buf_adds(&b, "; allowed: ");
		for (size_t i = 0; i < n->nprops && i < 12; i++) {
			buf_adds(&b, i ? ", " : "");
			buf_add(&b, n->props[i].name, n->props[i].len > 64 ? 64 : n->props[i].len);
		}
		if (n->nprops > 12)
			buf_printf(&b, " (%zu more)", n->nprops - 12);
	}
	if (n->npats)
		buf_printf(&b, "%s names matching '%.100s'%s",
		           n->nprops ? " and" : "; allowed:", n->pats[0].re.src,
		           n->npats > 1 ? " and other patterns" : "");
	sv_emit_buf(x, &b);
}

/* propertyNames: the name is validated as a string instance; diagnostics
 * are reported on the object, prefixed with the name. */
__attribute__((noinline)) static int eval_name(struct vctx *x, const struct snode *n,
                                               const char *key, size_t len)
{
	json_t *name = json_stringn_nocheck(key, len);
	if (!name) {
		sv_fatal(x, "out of memory");
		return 0;
	}
	struct dsink *saved = x->sink;
	struct dsink tmp = { .max = BRANCH_DIAGS, .base_depth = x->depth };
	x->sink = saved ? &tmp : NULL;
	int r = sv_eval(x, n->property_names, name);
	x->sink = saved;
	json_decref(name);
	for (size_t i = 0; saved && i < tmp.n; i++) {
		struct buf b = BUF_INIT;
		buf_adds(&b, "property name ");
		buf_add_name(&b, key, len);
		buf_printf(&b, ": %s", tmp.v[i].message);
		sv_emit_buf(x, &b);
	}
	sv_sink_release(&tmp);
	return r;
}

/* A false properties or patternProperties entry: the property is not
 * allowed. */
__attribute__((noinline, cold)) static void emit_not_allowed(struct vctx *x, const char *key,
                                                             size_t len)
{
	if (!x->sink)
		return;
	struct buf b = BUF_INIT;
	buf_adds(&b, "property ");
	buf_add_name(&b, key, len);
	buf_adds(&b, " is not allowed");
	sv_emit_buf(x, &b);
}

/* The member's value against sub (a properties or patternProperties
 * entry), entered as a subschema: the path records the key. */
__attribute__((always_inline)) static inline int eval_entry(struct vctx *x, uint32_t sub,
                                                            const char *key, size_t len,
                                                            const json_t *val)
{
	if (x->nodes[sub].kind == SN_FALSE) {
		emit_not_allowed(x, key, len);
		return 0;
	}
	if (sv_push_key(x, key, len) < 0)
		return 0;
	int r = sv_eval(x, sub, val);
	x->depth--;
	return r;
}

/* Fatal, not a plain failure: under 'not' (or as an 'if') a failure would
 * let the value pass when the pattern may well match it. */
__attribute__((noinline, cold)) static void fatal_name_undecided(struct vctx *x,
                                                                 const struct sregex *re,
                                                                 const char *key, size_t len)
{
	if (x->fatal)
		return;
	if (!x->top) {
		x->fatal = 1;
		return;
	}
	struct buf b = BUF_INIT;
	buf_adds(&b, "property name ");
	buf_add_name(&b, key, len);
	buf_printf(&b,
	           " could not be checked against the pattern '%.100s' "
	           "(regex match limit reached)",
	           re->src);
	sv_fatal(x, "%s", b.data ? b.data : "property name could not be checked (out of memory)");
	buf_release(&b);
}

/* The property named key: first the declared successor of the last one
 * found (*guess, which instances listing members in schema order hit),
 * then the key table. */
__attribute__((always_inline)) static inline const struct sprop *find_member(const struct snode *n,
                                                                             const char *key,
                                                                             size_t len,
                                                                             uint32_t *guess)
{
	const struct sprop *p = NULL;
	if (*guess != SN_NONE) {
		const struct sprop *g = &n->props[*guess];
		if (g->len == len && bytes_equal(g->name, key, len))
			p = g;
	}
	if (!p)
		p = sprop_find(n, key, len);
	if (p)
		*guess = p->next_decl;
	return p;
}

/* A member no properties or patternProperties entry took. */
static int eval_additional(struct vctx *x, const struct snode *n, const char *key, size_t len,
                           const json_t *val)
{
	if (n->additional == SN_NONE)
		return 1;
	if (x->nodes[n->additional].kind == SN_FALSE) {
		emit_unexpected(x, n, key, len);
		return 0;
	}
	if (sv_push_key(x, key, len) < 0)
		return 0;
	int r = sv_eval(x, n->additional, val);
	x->depth--;
	return r;
}

/* One member of the object: propertyNames, then the properties entry,
 * each matching patternProperties entry, else additionalProperties. Adds
 * the property's required bit to *seen. */
static int eval_member(struct vctx *x, const struct snode *n, const char *key, size_t len,
                       const json_t *val, uint64_t *seen, uint32_t *guess)
{
	int ok = 1;
	bool matched = false;
	if (n->property_names != SN_NONE && !eval_name(x, n, key, len))
		FAIL();
	const struct sprop *p = find_member(n, key, len, guess);
	if (p) {
		*seen |= p->reqbit;
		matched = true;
		if (!eval_entry(x, p->sub, key, len, val))
			FAIL();
	}
	for (size_t i = 0; i < n->npats; i++) {
		int m = sv_regex_match(x, &n->pats[i].re, key, len);
		if (m < 0) {
			fatal_name_undecided(x, &n->pats[i].re, key, len);
			return 0;
		}
		if (!m)
			continue;
		matched = true;
		if (!eval_entry(x, n->pats[i].sub, key, len, val))
			FAIL();
	}
	if (!matched && !eval_additional(x, n, key, len, val))
		FAIL();
	return ok;
}

/* Every member, with diagnostics or with patternProperties or
 * propertyNames. */
__attribute__((noinline)) static int eval_members(struct vctx *x, const struct snode *n,
                                                  json_t *obj)
{
	int ok = 1;
	uint64_t seen = 0;
	uint32_t guess = n->first_decl;
	for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
		if (!eval_member(x, n, json_object_iter_key(it), json_object_iter_key_len(it),
		                 json_object_iter_value(it), &seen, &guess))
			FAIL();
	}
	/* quiet: the required properties not met in the pass (diagnostic
	 * mode looked them up in eval_object) */
	if (!x->sink && (seen & n->req_mask) != n->req_mask)
		return 0;
	return ok;
}

/* The quiet pass over the members of an object whose schema has neither
 * patternProperties nor propertyNames (the usual tool schema): each
 * member is a property or goes to additionalProperties. A leaf property is
 * checked in place: entering it would only record the path, which only
 * diagnostics use, and test the two depth limits, which the loop does not
 * change and which are tested once here instead. Same verdict as the
 * general loop; fatal problems stop it at once. */
__attribute__((always_inline)) static inline int eval_members_quiet(struct vctx *x,
                                                                    const struct snode *n,
                                                                    json_t *obj)
{
	bool in_place = x->depth < x->s->max_depth && x->depth < MAX_PATH &&
	        x->eval_depth < SCHEMA_MAX_EVAL_DEPTH;
	uint64_t seen = 0;
	uint32_t guess = n->first_decl;
	for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
		const char *key = json_object_iter_key(it);
		size_t len = json_object_iter_key_len(it);
		const json_t *val = json_object_iter_value(it);
		const struct sprop *p = find_member(n, key, len, &guess);
		int r;
		if (!p)
			r = eval_additional(x, n, key, len, val);
		else if (p->leaf && in_place)
			r = eval_scalar(x, &x->nodes[p->sub], val);
		else
			r = eval_entry(x, p->sub, key, len, val);
		if (!r || x->fatal)
			return 0;
		if (p)
			seen |= p->reqbit;
	}
	return (seen & n->req_mask) == n->req_mask;
}

__attribute__((noinline, cold)) static void emit_missing(struct vctx *x, const struct sname *name)
{
	if (!x->sink)
		return;
	struct buf b = BUF_INIT;
	buf_adds(&b, "missing required property ");
	buf_add_name(&b, name->name, name->len);
	sv_emit_buf(x, &b);
}

__attribute__((noinline, cold)) static void emit_dependency(struct vctx *x, const struct sdep *d,
                                                            const struct sname *name)
{
	if (!x->sink)
		return;
	struct buf b = BUF_INIT;
	buf_adds(&b, "missing property ");
	buf_add_name(&b, name->name, name->len);
	buf_adds(&b, " (required when ");
	buf_add_name(&b, d->when.name, d->when.len);
	buf_adds(&b, " is present)");
	sv_emit_buf(x, &b);
}

__attribute__((always_inline)) static inline int eval_object(struct vctx *x, const struct snode *n,
                                                             const json_t *inst)
{
	int ok = 1;
	size_t size = n->has & (SK_MIN_PROPS | SK_MAX_PROPS) ? json_object_size(inst) : 0;
	if ((n->has & SK_MIN_PROPS) && size < n->min_props) {
		sv_emit(x, "must have at least %zu propert%s, got %zu", n->min_props,
		        n->min_props == 1 ? "y" : "ies", size);
		FAIL();
	}
	if ((n->has & SK_MAX_PROPS) && size > n->max_props) {
		sv_emit(x, "must have at most %zu propert%s, got %zu", n->max_props,
		        n->max_props == 1 ? "y" : "ies", size);
		FAIL();
	}
	/* Quiet, required properties are ticked off during the pass over the
	 * keys below and only the others are looked up; with diagnostics each
	 * name is looked up, so the messages come first and in the schema's
	 * order. */
	const struct sname *req = x->sink ? n->required : n->req_rest;
	size_t nreq = x->sink ? n->nrequired : n->nreq_rest;
	for (size_t i = 0; i < nreq; i++) {
		if (json_object_getn(inst, req[i].name, req[i].len))
			continue;
		emit_missing(x, &req[i]);
		FAIL();
	}
	for (size_t i = 0; i < n->ndeps; i++) {
		const struct sdep *d = &n->deps[i];
		if (!json_object_getn(inst, d->when.name, d->when.len))
			continue;
		for (size_t k = 0; k < d->nreq; k++) {
			if (json_object_getn(inst, d->req[k].name, d->req[k].len))
				continue;
			emit_dependency(x, d, &d->req[k]);
			FAIL();
		}
		if (d->sub != SN_NONE && !sv_eval(x, d->sub, inst))
			FAIL();
	}
	if (!n->nprops && !n->npats && n->additional == SN_NONE && n->property_names == SN_NONE)
		return ok;
	if (!x->sink && !n->npats && n->property_names == SN_NONE)
		return eval_members_quiet(x, n, (json_t *)inst);
	if (!eval_members(x, n, (json_t *)inst))
		FAIL();
	return ok;
}

/* ---- one node on one value ------------------------------------------------ */

/* The keywords of object schema n on inst (sv_eval has dealt with boolean
 * schemas, depth and memoized nodes). Inlined into sv_eval: this is the
 * path every value takes. The order is that of the diagnostics: $ref,
 * the value's own keywords, its items or members, the applicators. */
__attribute__((always_inline)) static inline int eval_node(struct vctx *x, const struct snode *n,
                                                           const json_t *inst)
{
	int ok = 1;
	json_type jt = json_typeof(inst);
	if ((n->plan & SP_APPLY) && n->ref != SN_NONE && !sv_eval(x, n->ref, inst))
		FAIL();
	if (!eval_scalar(x, n, inst))
		FAIL();
	if ((n->plan & SP_ARR) && jt == JSON_ARRAY && !eval_array(x, n, inst))
		FAIL();
	if ((n->plan & SP_OBJ) && jt == JSON_OBJECT && !eval_object(x, n, inst))
		FAIL();
	if ((n->plan & SP_APPLY) && !sv_eval_applicators(x, n, inst))
		FAIL();
	return ok;
}

int sv_eval_node(struct vctx *x, const struct snode *n, const json_t *inst)
{
	return eval_node(x, n, inst);
}

int sv_eval(struct vctx *x, uint32_t ni, const json_t *inst)
{
	const struct snode *n = &x->nodes[ni];
	if (__builtin_expect(n->kind != SN_OBJECT || n->shared ||
	                             x->eval_depth >= SCHEMA_MAX_EVAL_DEPTH,
	                     0))
		return sv_eval_special(x, ni, inst);
	x->eval_depth++;
	int r = eval_node(x, n, inst);
	x->eval_depth--;
	return r && !x->fatal;
}
