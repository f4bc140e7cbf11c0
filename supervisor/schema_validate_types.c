/* schema_validate_types.c — the keywords that look at one kind of value:
 * numbers (multipleOf, bounds), strings (lengths in code points, pattern,
 * asserted format), arrays (sizes, uniqueItems, prefixItems/items,
 * contains) and objects (sizes, required, dependencies, properties,
 * patternProperties, additionalProperties, propertyNames). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "schema_vctx.h"

/* ---- keywords by instance type ------------------------------------------ */



int sv_eval_number(struct vctx *x, const struct snode *n, const json_t *inst)
{
	int ok = 1;
	struct buf b = BUF_INIT;
	static const struct { size_t off; int bad_when; const char *op; } lim[] = {
		{ offsetof(struct snode, maximum), 1, "<=" },
		{ offsetof(struct snode, ex_maximum), 0, "<" },
		{ offsetof(struct snode, minimum), -1, ">=" },
		{ offsetof(struct snode, ex_minimum), 0, ">" },
	};
	if (n->multiple_of && !num_is_multiple(inst, n->multiple_of)) {
		if (x->sink) {
			buf_adds(&b, "must be a multiple of ");
			buf_add_value(&b, n->multiple_of, 40);
			buf_adds(&b, ", got ");
			buf_add_value(&b, inst, 40);
			sv_emit_buf(x, &b);
		}
		FAIL();
	}
	for (size_t i = 0; i < 4; i++) {
		const json_t *limit = *(json_t *const *)((const char *)n + lim[i].off);
		if (!limit)
			continue;
		int c = num_cmp(inst, limit);
		bool bad = lim[i].bad_when ? c == lim[i].bad_when
		                           : (i == 1 ? c >= 0 : c <= 0);
		if (!bad)
			continue;
		if (x->sink) {
			buf_printf(&b, "must be %s ", lim[i].op);
			buf_add_value(&b, limit, 40);
			buf_adds(&b, ", got ");
			buf_add_value(&b, inst, 40);
			sv_emit_buf(x, &b);
		}
		FAIL();
	}
	return ok;
}

int sv_eval_string(struct vctx *x, const struct snode *n, const json_t *inst)
{
	int ok = 1;
	const char *str = json_string_value(inst);
	size_t len = json_string_length(inst);
	/* a string has between len/4 and len code points: count only when the
	 * byte length cannot decide */
	bool count = ((n->has & SK_MAX_LEN) && len > n->max_len) ||
	             ((n->has & SK_MIN_LEN) && len / 4 < n->min_len);
	if (count) {
		size_t cp = utf8_length(str, len);
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
		int m = sv_regex_match(x, &n->pattern, str, len);
		if (m == 0)
			sv_emit(x, "must match the pattern '%.200s'", n->pattern.src);
		else if (m < 0 && !x->fatal)
			sv_emit(x, "could not be checked against the pattern '%.200s' (regex match limit "
			     "reached); send a shorter or simpler value", n->pattern.src);
		if (m != 1)
			FAIL();
	}
	if (n->format != SF_NONE && !format_check(n->format, str, len)) {
		sv_emit(x, "must be a valid %s (%s)", n->format_name, format_hint(n->format));
		FAIL();
	}
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
			sv_emit(x, "must have at most %zu item%s, got %zu (no items beyond the first %zu "
			     "are allowed)", n->prefix.n, n->prefix.n == 1 ? "" : "s", size, n->prefix.n);
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
	x->sink = NULL;   /* items that do not match are not failures */
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
			sv_emit(x, "must contain at least %zu items matching the 'contains' schema, got %zu",
			     n->min_contains, found);
		return 0;
	}
	if (has_max && found > n->max_contains) {
		sv_emit(x, "must contain at most %zu item%s matching the 'contains' schema, got more",
		     n->max_contains, n->max_contains == 1 ? "" : "s");
		return 0;
	}
	return 1;
}

int sv_eval_array(struct vctx *x, const struct snode *n, const json_t *inst)
{
	int ok = 1;
	size_t size = json_array_size(inst);
	if ((n->has & SK_MIN_ITEMS) && size < n->min_items) {
		sv_emit(x, "must have at least %zu item%s, got %zu", n->min_items, n->min_items == 1 ? "" : "s", size);
		FAIL();
	}
	if ((n->has & SK_MAX_ITEMS) && size > n->max_items) {
		sv_emit(x, "must have at most %zu item%s, got %zu", n->max_items, n->max_items == 1 ? "" : "s", size);
		FAIL();
	}
	if (n->has & SK_UNIQUE) {
		size_t a = 0, b = 0;
		int r = unique_items_check(inst, &a, &b);
		if (r < 0)
			sv_fatal(x, "could not check uniqueItems (out of memory or nesting too deep)");
		else if (r == 0)
			sv_emit(x, "must not contain duplicates (items %zu and %zu are equal)", a, b);
		if (r != 1)
			FAIL();
	}
	if ((n->prefix.n || n->items != SN_NONE) && !eval_items(x, n, inst, size))
		FAIL();
	if (n->contains != SN_NONE && !eval_contains(x, n, inst, size))
		FAIL();
	return ok;
}

/* Linear for the handful of properties a tool has (length first, so most
 * candidates cost one comparison), binary search beyond that. */
static const struct sprop *find_prop(const struct snode *n, const char *key, size_t len)
{
	if (n->nprops <= 12) {
		for (size_t i = 0; i < n->nprops; i++) {
			const struct sprop *p = &n->props[i];
			if (p->len == len && (len == 0 || p->name[0] == key[0]) && !memcmp(p->name, key, len))
				return p;
		}
		return NULL;
	}
	size_t lo = 0, hi = n->nprops;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sprop *p = &n->props[mid];
		size_t m = p->len < len ? p->len : len;
		int r = memcmp(p->name, key, m);
		if (r == 0)
			r = (p->len > len) - (p->len < len);
		if (r == 0)
			return p;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* additionalProperties: false names the stray property and what is allowed,
 * which is what a model needs to fix its call. */
static void emit_unexpected(struct vctx *x, const struct snode *n, const char *key, size_t len)
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
		buf_printf(&b, "%s names matching '%.100s'%s", n->nprops ? " and" : "; allowed:",
		           n->pats[0].re.src, n->npats > 1 ? " and other patterns" : "");
	sv_emit_buf(x, &b);
}

/* propertyNames: the name is validated as a string instance; diagnostics
 * are reported on the object, prefixed with the name. */
static int eval_name(struct vctx *x, const struct snode *n, const char *key, size_t len)
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

static int eval_member(struct vctx *x, const struct snode *n, const char *key, size_t len,
                       const json_t *val)
{
	int ok = 1;
	bool matched = false;
	if (n->property_names != SN_NONE && !eval_name(x, n, key, len))
		FAIL();
	const struct sprop *p = n->nprops ? find_prop(n, key, len) : NULL;
	/* i == 0: the properties entry; then each patternProperties entry */
	for (size_t i = 0; i <= n->npats; i++) {
		uint32_t sub = i == 0 && p ? p->sub : SN_NONE;
		if (i > 0) {
			int m = sv_regex_match(x, &n->pats[i - 1].re, key, len);
			if (m < 0) {
				if (!x->fatal && x->sink) {
					struct buf b = BUF_INIT;
					buf_adds(&b, "property name ");
					buf_add_name(&b, key, len);
					buf_printf(&b, " could not be checked against the pattern '%.100s' "
					           "(regex match limit reached)", n->pats[i - 1].re.src);
					sv_emit_buf(x, &b);
				}
				FAIL();
				continue;
			}
			sub = m ? n->pats[i - 1].sub : SN_NONE;
		}
		if (sub == SN_NONE)
			continue;
		matched = true;
		if (x->s->nodes[sub].kind == SN_FALSE) {
			if (x->sink) {
				struct buf b = BUF_INIT;
				buf_adds(&b, "property ");
				buf_add_name(&b, key, len);
				buf_adds(&b, " is not allowed");
				sv_emit_buf(x, &b);
			}
			FAIL();
			continue;
		}
		if (sv_push_key(x, key, len) < 0)
			return 0;
		int r = sv_eval(x, sub, val);
		x->depth--;
		if (!r)
			FAIL();
	}
	if (matched || n->additional == SN_NONE)
		return ok;
	if (x->s->nodes[n->additional].kind == SN_FALSE) {
		emit_unexpected(x, n, key, len);
		FAIL();
		return ok;
	}
	if (sv_push_key(x, key, len) < 0)
		return 0;
	int r = sv_eval(x, n->additional, val);
	x->depth--;
	if (!r)
		FAIL();
	return ok;
}

int sv_eval_object(struct vctx *x, const struct snode *n, const json_t *inst)
{
	int ok = 1;
	size_t size = json_object_size(inst);
	if ((n->has & SK_MIN_PROPS) && size < n->min_props) {
		sv_emit(x, "must have at least %zu propert%s, got %zu", n->min_props, n->min_props == 1 ? "y" : "ies", size);
		FAIL();
	}
	if ((n->has & SK_MAX_PROPS) && size > n->max_props) {
		sv_emit(x, "must have at most %zu propert%s, got %zu", n->max_props, n->max_props == 1 ? "y" : "ies", size);
		FAIL();
	}
	for (size_t i = 0; i < n->nrequired; i++) {
		if (json_object_getn(inst, n->required[i].name, n->required[i].len))
			continue;
		if (x->sink) {
			struct buf b = BUF_INIT;
			buf_adds(&b, "missing required property ");
			buf_add_name(&b, n->required[i].name, n->required[i].len);
			sv_emit_buf(x, &b);
		}
		FAIL();
	}
	for (size_t i = 0; i < n->ndeps; i++) {
		const struct sdep *d = &n->deps[i];
		if (!json_object_getn(inst, d->when.name, d->when.len))
			continue;
		for (size_t k = 0; k < d->nreq; k++) {
			if (json_object_getn(inst, d->req[k].name, d->req[k].len))
				continue;
			if (x->sink) {
				struct buf b = BUF_INIT;
				buf_adds(&b, "missing property ");
				buf_add_name(&b, d->req[k].name, d->req[k].len);
				buf_adds(&b, " (required when ");
				buf_add_name(&b, d->when.name, d->when.len);
				buf_adds(&b, " is present)");
				sv_emit_buf(x, &b);
			}
			FAIL();
		}
		if (d->sub != SN_NONE && !sv_eval(x, d->sub, inst))
			FAIL();
	}
	if (!n->nprops && !n->npats && n->additional == SN_NONE && n->property_names == SN_NONE)
		return ok;
	for (void *it = json_object_iter((json_t *)inst); it; it = json_object_iter_next((json_t *)inst, it)) {
		if (!eval_member(x, n, json_object_iter_key(it), json_object_iter_key_len(it),
		                 json_object_iter_value(it)))
			FAIL();
	}
	return ok;
}

