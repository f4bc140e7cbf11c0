/* schema_keywords.c — the keyword table (what each draft knows, what we
 * enforce, what we refuse) and the compilation of one schema object's
 * keywords into its node: value checks with a located error, regexes
 * compiled once, subschemas and $ref resolved to node indices.
 *
 * Refusal rule: a keyword that would assert something we do not enforce
 * (unevaluated*, $dynamicRef, $recursiveRef, a keyword of the other draft,
 * a case-typo of a keyword) fails the compile, naming keyword and location,
 * rather than being silently ignored. Unknown extension properties are
 * ignored, as the spec says. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jsonptr.h"
#include "schema_internal.h"

enum kw_id {
	K_ANNOT,
	K_SCHEMA,
	K_ID,
	K_REF,
	K_DYNREF,
	K_DEFS,
	K_TYPE,
	K_ENUM,
	K_CONST,
	K_MULTIPLEOF,
	K_MAXIMUM,
	K_EXMAX,
	K_MINIMUM,
	K_EXMIN,
	K_MAXLEN,
	K_MINLEN,
	K_PATTERN,
	K_FORMAT,
	K_ITEMS,
	K_PREFIXITEMS,
	K_ADDITEMS,
	K_CONTAINS,
	K_MINCONTAINS,
	K_MAXCONTAINS,
	K_MAXITEMS,
	K_MINITEMS,
	K_UNIQUE,
	K_PROPS,
	K_PATPROPS,
	K_ADDPROPS,
	K_PROPNAMES,
	K_REQUIRED,
	K_MAXPROPS,
	K_MINPROPS,
	K_DEPREQ,
	K_DEPSCH,
	K_DEPS,
	K_ALLOF,
	K_ANYOF,
	K_ONEOF,
	K_NOT,
	K_IF,
	K_THEN,
	K_ELSE,
	K_REFUSED,
};

enum { D07 = 1, D20 = 2, DALL = 3 };
enum { C_ANNOT, C_ASSERT, C_REFUSE };
/* how comp_each_child finds subschemas under a keyword */
enum { CH_NONE, CH_ONE, CH_MAP, CH_LIST, CH_ITEMS, CH_DEPS };

struct kw {
	const char *name;
	enum kw_id id;
	unsigned char drafts, cls, children;
	const char *hint; /* why refused, or what to use in the other draft */
};

static const struct kw kws[] = {
	{ "$schema", K_SCHEMA, DALL, C_ANNOT, CH_NONE, NULL },
	{ "$id", K_ID, DALL, C_ANNOT, CH_NONE, NULL },
	{ "$anchor", K_ANNOT, DALL, C_ANNOT, CH_NONE, NULL },
	{ "$dynamicAnchor", K_ANNOT, DALL, C_ANNOT, CH_NONE, NULL },
	{ "$recursiveAnchor", K_ANNOT, DALL, C_ANNOT, CH_NONE, NULL },
	{ "$vocabulary", K_ANNOT, DALL, C_ANNOT, CH_NONE, NULL },
	{ "$comment", K_ANNOT, DALL, C_ANNOT, CH_NONE, NULL },
	{ "$defs", K_DEFS, DALL, C_ANNOT, CH_MAP, NULL },
	{ "definitions", K_DEFS, DALL, C_ANNOT, CH_MAP, NULL },
	{ "title", K_ANNOT, DALL, C_ANNOT, CH_NONE, NULL },
	{ "description", K_ANNOT, DALL, C_ANNOT, CH_NONE, NULL },
	{ "default", K_ANNOT, DALL, C_ANNOT, CH_NONE, NULL },
	{ "examples", K_ANNOT, DALL, C_ANNOT, CH_NONE, NULL },
	{ "readOnly", K_ANNOT, DALL, C_ANNOT, CH_NONE, NULL },
	{ "writeOnly", K_ANNOT, DALL, C_ANNOT, CH_NONE, NULL },
	{ "deprecated", K_ANNOT, DALL, C_ANNOT, CH_NONE, NULL },
	{ "contentMediaType", K_ANNOT, DALL, C_ANNOT, CH_NONE, NULL },
	{ "contentEncoding", K_ANNOT, DALL, C_ANNOT, CH_NONE, NULL },
	{ "contentSchema", K_ANNOT, DALL, C_ANNOT, CH_NONE, NULL },
	{ "$ref", K_REF, DALL, C_ASSERT, CH_NONE, NULL },
	{ "$dynamicRef", K_DYNREF, DALL, C_REFUSE, CH_NONE,
	  "dynamic scopes are not implemented; use $ref" },
	{ "$recursiveRef", K_REFUSED, DALL, C_REFUSE, CH_NONE, "a 2019-09 keyword; use $ref" },
	{ "unevaluatedProperties", K_REFUSED, DALL, C_REFUSE, CH_NONE,
	  "not implemented; list the properties and use additionalProperties" },
	{ "unevaluatedItems", K_REFUSED, DALL, C_REFUSE, CH_NONE,
	  "not implemented; use items with prefixItems" },
	{ "type", K_TYPE, DALL, C_ASSERT, CH_NONE, NULL },
	{ "enum", K_ENUM, DALL, C_ASSERT, CH_NONE, NULL },
	{ "const", K_CONST, DALL, C_ASSERT, CH_NONE, NULL },
	{ "multipleOf", K_MULTIPLEOF, DALL, C_ASSERT, CH_NONE, NULL },
	{ "maximum", K_MAXIMUM, DALL, C_ASSERT, CH_NONE, NULL },
	{ "exclusiveMaximum", K_EXMAX, DALL, C_ASSERT, CH_NONE, NULL },
	{ "minimum", K_MINIMUM, DALL, C_ASSERT, CH_NONE, NULL },
	{ "exclusiveMinimum", K_EXMIN, DALL, C_ASSERT, CH_NONE, NULL },
	{ "maxLength", K_MAXLEN, DALL, C_ASSERT, CH_NONE, NULL },
	{ "minLength", K_MINLEN, DALL, C_ASSERT, CH_NONE, NULL },
	{ "pattern", K_PATTERN, DALL, C_ASSERT, CH_NONE, NULL },
	{ "format", K_FORMAT, DALL, C_ASSERT, CH_NONE, NULL },
	{ "items", K_ITEMS, DALL, C_ASSERT, CH_ITEMS, NULL },
	{ "prefixItems", K_PREFIXITEMS, D20, C_ASSERT, CH_LIST,
	  "in draft-07 write items as an array, or declare 2020-12 in $schema" },
	{ "additionalItems", K_ADDITEMS, D07, C_ASSERT, CH_ONE,
	  "in 2020-12 use prefixItems for the tuple and items for the rest" },
	{ "contains", K_CONTAINS, DALL, C_ASSERT, CH_ONE, NULL },
	{ "minContains", K_MINCONTAINS, D20, C_ASSERT, CH_NONE,
	  "it is a 2020-12 keyword; declare 2020-12 in $schema" },
	{ "maxContains", K_MAXCONTAINS, D20, C_ASSERT, CH_NONE,
	  "it is a 2020-12 keyword; declare 2020-12 in $schema" },
	{ "maxItems", K_MAXITEMS, DALL, C_ASSERT, CH_NONE, NULL },
	{ "minItems", K_MINITEMS, DALL, C_ASSERT, CH_NONE, NULL },
	{ "uniqueItems", K_UNIQUE, DALL, C_ASSERT, CH_NONE, NULL },
	{ "properties", K_PROPS, DALL, C_ASSERT, CH_MAP, NULL },
	{ "patternProperties", K_PATPROPS, DALL, C_ASSERT, CH_MAP, NULL },
	{ "additionalProperties", K_ADDPROPS, DALL, C_ASSERT, CH_ONE, NULL },
	{ "propertyNames", K_PROPNAMES, DALL, C_ASSERT, CH_ONE, NULL },
	{ "required", K_REQUIRED, DALL, C_ASSERT, CH_NONE, NULL },
	{ "maxProperties", K_MAXPROPS, DALL, C_ASSERT, CH_NONE, NULL },
	{ "minProperties", K_MINPROPS, DALL, C_ASSERT, CH_NONE, NULL },
	{ "dependentRequired", K_DEPREQ, D20, C_ASSERT, CH_NONE,
	  "in draft-07 use dependencies, or declare 2020-12 in $schema" },
	{ "dependentSchemas", K_DEPSCH, D20, C_ASSERT, CH_MAP,
	  "in draft-07 use dependencies, or declare 2020-12 in $schema" },
	/* 2020-12 dropped it but its metaschema still describes it; we keep
	 * enforcing it there rather than silently ignoring it */
	{ "dependencies", K_DEPS, DALL, C_ASSERT, CH_DEPS, NULL },
	{ "allOf", K_ALLOF, DALL, C_ASSERT, CH_LIST, NULL },
	{ "anyOf", K_ANYOF, DALL, C_ASSERT, CH_LIST, NULL },
	{ "oneOf", K_ONEOF, DALL, C_ASSERT, CH_LIST, NULL },
	{ "not", K_NOT, DALL, C_ASSERT, CH_ONE, NULL },
	{ "if", K_IF, DALL, C_ASSERT, CH_ONE, NULL },
	{ "then", K_THEN, DALL, C_ASSERT, CH_ONE, NULL },
	{ "else", K_ELSE, DALL, C_ASSERT, CH_ONE, NULL },
};

static const struct kw *kw_find(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof kws / sizeof kws[0]; i++)
		if (strlen(kws[i].name) == len && !memcmp(kws[i].name, name, len))
			return &kws[i];
	return NULL;
}

static const struct kw *kw_near_miss(const char *name)
{
	for (size_t i = 0; i < sizeof kws / sizeof kws[0]; i++)
		if (!strcasecmp(kws[i].name, name))
			return &kws[i];
	return NULL;
}

static bool is_schema_value(const json_t *v)
{
	return json_is_object(v) || json_is_boolean(v);
}

int comp_each_child(struct compiler *c, json_t *j, enum schema_draft draft, comp_child_fn fn,
                    void *ctx)
{
	(void)draft;
	for (void *it = json_object_iter(j); it; it = json_object_iter_next(j, it)) {
		const char *key = json_object_iter_key(it);
		const struct kw *kw = kw_find(key, json_object_iter_key_len(it));
		json_t *v = json_object_iter_value(it);
		if (!kw)
			continue;
		int ch = kw->children, rc = 0;
		if (ch == CH_ITEMS)
			ch = json_is_array(v) ? CH_LIST : CH_ONE;
		if (ch == CH_ONE && is_schema_value(v)) {
			rc = fn(c, v, key, NULL, 0, -1, ctx);
		} else if (ch == CH_LIST && json_is_array(v)) {
			for (size_t i = 0; i < json_array_size(v) && rc == 0; i++)
				if (is_schema_value(json_array_get(v, i)))
					rc = fn(c, json_array_get(v, i), key, NULL, 0, (long)i,
					        ctx);
		} else if ((ch == CH_MAP || ch == CH_DEPS) && json_is_object(v)) {
			for (void *k = json_object_iter(v); k && rc == 0;
			     k = json_object_iter_next(v, k)) {
				json_t *x = json_object_iter_value(k);
				if (is_schema_value(x))
					rc = fn(c, x, key, json_object_iter_key(k),
					        json_object_iter_key_len(k), -1, ctx);
			}
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* Fails with where = node's location + /kw [+ /key or /index]. */
__attribute__((format(printf, 6, 7))) static int kfail(struct compiler *c, uint32_t idx,
                                                       const char *kw, const char *key, long index,
                                                       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	comp_vfail(c, idx, kw, key, index, fmt, ap);
	va_end(ap);
	return -1;
}

#define NODE (c->s->nodes[idx]) /* re-read after anything that may add nodes */

/* The node of subschema v found under kw (and key or index). */
static uint32_t sub(struct compiler *c, uint32_t idx, const char *kw, json_t *v, const char *key,
                    size_t keylen, long index)
{
	if (!is_schema_value(v)) {
		kfail(c, idx, kw, key, index, "'%s' must hold a schema (an object or a boolean)",
		      kw);
		return SN_NONE;
	}
	struct buf where = BUF_INIT;
	int rc = buf_adds(&where, NODE.where);
	rc |= jsonptr_append(&where, kw, strlen(kw));
	if (key)
		rc |= jsonptr_append(&where, key, keylen);
	else if (index >= 0)
		rc |= buf_printf(&where, "/%ld", index);
	uint32_t out = SN_NONE;
	if (rc == 0) {
		struct cpend p = c->pend[idx];
		out = comp_node_for(c, v, p.doc, p.base, where.data, p.depth + 1);
	} else {
		kfail(c, idx, NULL, NULL, -1, "out of memory");
	}
	buf_release(&where);
	return out;
}

static int sub_list(struct compiler *c, uint32_t idx, const char *kw, json_t *v, struct slist *out)
{
	if (!json_is_array(v) || json_array_size(v) == 0)
		return kfail(c, idx, kw, NULL, -1, "'%s' must be a non-empty array of schemas", kw);
	size_t n = json_array_size(v);
	uint32_t *list = malloc(n * sizeof *list);
	if (!list)
		return kfail(c, idx, kw, NULL, -1, "out of memory");
	for (size_t i = 0; i < n; i++) {
		list[i] = sub(c, idx, kw, json_array_get(v, i), NULL, 0, (long)i);
		if (list[i] == SN_NONE) {
			free(list);
			return -1;
		}
	}
	out->v = list;
	out->n = n;
	return 0;
}

static int count_value(struct compiler *c, uint32_t idx, const char *kw, json_t *v, size_t *out)
{
	double d = json_is_real(v) ? json_real_value(v) : 0;
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		*out = (size_t)json_integer_value(v);
	else if (json_is_real(v) && d >= 0 && d == (double)(long long)d)
		*out = d >= 1e18 ? SIZE_MAX : (size_t)d;
	else
		return kfail(c, idx, kw, NULL, -1, "'%s' must be a non-negative integer", kw);
	return 0;
}

static int kw_type(struct compiler *c, uint32_t idx, json_t *v)
{
	static const struct {
		const char *name;
		uint16_t bits;
	} names[] = {
		{ "null", ST_NULL },           { "boolean", ST_BOOL }, { "integer", ST_INT },
		{ "number", ST_INT | ST_NUM }, { "string", ST_STR },   { "array", ST_ARR },
		{ "object", ST_OBJ },
	};
	size_t n = json_is_array(v) ? json_array_size(v) : 1;
	uint16_t mask = 0;
	if (!json_is_string(v) && (!json_is_array(v) || n == 0))
		return kfail(c, idx, "type", NULL, -1,
		             "'type' must be a type name or a non-empty array of them");
	for (size_t i = 0; i < n; i++) {
		json_t *t = json_is_array(v) ? json_array_get(v, i) : v;
		size_t k = 0;
		for (; json_is_string(t) && k < sizeof names / sizeof names[0]; k++)
			if (!strcmp(json_string_value(t), names[k].name))
				break;
		if (!json_is_string(t) || k == sizeof names / sizeof names[0])
			return kfail(
			        c, idx, "type", NULL, json_is_array(v) ? (long)i : -1,
			        "unknown type %s%s%s: use null, boolean, integer, number, string, array or object",
			        json_is_string(t) ? "'" : "",
			        json_is_string(t) ? json_string_value(t) : "(not a string)",
			        json_is_string(t) ? "'" : "");
		mask |= names[k].bits;
	}
	NODE.types = mask;
	NODE.has |= SK_TYPE;
	return 0;
}

static int regex_compile(struct compiler *c, uint32_t idx, const char *kw, const char *key,
                         const char *src, size_t len, struct sregex *out)
{
	int ec;
	PCRE2_SIZE off;
	/* ECMA-262 flavour: '$' only at the very end, \uXXXX escapes, and
	 * "[]" / "[^]" as empty and any-character classes */
	pcre2_code *code =
	        pcre2_compile((PCRE2_SPTR)src, len,
	                      PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY |
	                              PCRE2_ALT_BSUX | PCRE2_ALLOW_EMPTY_CLASS,
	                      &ec, &off, NULL);
	if (!code) {
		PCRE2_UCHAR m[160];
		pcre2_get_error_message(ec, m, sizeof m);
		return kfail(c, idx, kw, key, -1,
		             "invalid regular expression '%.200s' at offset %zu: %s", src,
		             (size_t)off, (char *)m);
	}
	/* optional: the interpreter serves when JIT is unavailable */
	out->jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
	out->code = code;
	out->src = src;
	/* optional too: a simple pattern skips PCRE2 when validating */
	out->fast = sre_compile(src, len);
	return 0;
}

static int prop_cmp(const void *a, const void *b)
{
	const struct sprop *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->name, y->name, n);
	return r ? r : (x->len > y->len) - (x->len < y->len);
}

static int kw_properties(struct compiler *c, uint32_t idx, json_t *v)
{
	if (!json_is_object(v))
		return kfail(c, idx, "properties", NULL, -1,
		             "'properties' must be an object of schemas");
	size_t n = json_object_size(v), i = 0;
	struct sprop *p = calloc(n ? n : 1, sizeof *p);
	if (!p)
		return kfail(c, idx, NULL, NULL, -1, "out of memory");
	NODE.props = p; /* owned by the node from here, even on failure */
	for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it), i++) {
		p[i].name = json_object_iter_key(it);
		p[i].len = json_object_iter_key_len(it);
		p[i].sub = sub(c, idx, "properties", json_object_iter_value(it), p[i].name,
		               p[i].len, -1);
		if (p[i].sub == SN_NONE)
			return -1;
		NODE.nprops = i + 1;
	}
	qsort(p, n, sizeof *p, prop_cmp);
	return 0;
}

static int kw_pattern_props(struct compiler *c, uint32_t idx, json_t *v)
{
	if (!json_is_object(v))
		return kfail(c, idx, "patternProperties", NULL, -1,
		             "'patternProperties' must be an object of schemas");
	size_t n = json_object_size(v);
	struct spattern *p = calloc(n ? n : 1, sizeof *p);
	if (!p)
		return kfail(c, idx, NULL, NULL, -1, "out of memory");
	NODE.pats = p;
	for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
		const char *key = json_object_iter_key(it);
		size_t klen = json_object_iter_key_len(it);
		struct spattern one = { { NULL, NULL, false, NULL }, SN_NONE };
		if (regex_compile(c, idx, "patternProperties", key, key, klen, &one.re) < 0)
			return -1;
		p = c->s->nodes[idx].pats;
		p[NODE.npats++] = one; /* stored before anything else can fail */
		uint32_t s =
		        sub(c, idx, "patternProperties", json_object_iter_value(it), key, klen, -1);
		if (s == SN_NONE)
			return -1;
		NODE.pats[NODE.npats - 1].sub = s;
	}
	return 0;
}

static int names_value(struct compiler *c, uint32_t idx, const char *kw, const char *key, json_t *v,
                       struct sname **out, size_t *nout)
{
	if (!json_is_array(v))
		return kfail(c, idx, kw, key, -1, "'%s' must be an array of property names", kw);
	size_t n = json_array_size(v);
	struct sname *names = calloc(n ? n : 1, sizeof *names);
	if (!names)
		return kfail(c, idx, NULL, NULL, -1, "out of memory");
	for (size_t i = 0; i < n; i++) {
		json_t *s = json_array_get(v, i);
		if (!json_is_string(s)) {
			free(names);
			return kfail(c, idx, kw, key, -1,
			             "'%s' must be an array of property names (strings)", kw);
		}
		names[i].name = json_string_value(s);
		names[i].len = json_string_length(s);
	}
	*out = names;
	*nout = n;
	return 0;
}

/* dependentRequired (names), dependentSchemas (schemas) and draft-07
 * dependencies (either, per property). */
static int kw_deps(struct compiler *c, uint32_t idx, const char *kw, int id, json_t *v)
{
	if (!json_is_object(v))
		return kfail(c, idx, kw, NULL, -1, "'%s' must be an object", kw);
	size_t n = json_object_size(v);
	struct sdep *d = realloc(NODE.deps, (NODE.ndeps + n + 1) * sizeof *d);
	if (!d)
		return kfail(c, idx, NULL, NULL, -1, "out of memory");
	NODE.deps = d;
	for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it)) {
		const char *key = json_object_iter_key(it);
		json_t *x = json_object_iter_value(it);
		struct sdep one = { { key, json_object_iter_key_len(it) }, NULL, 0, SN_NONE };
		bool names = id == K_DEPREQ || (id == K_DEPS && json_is_array(x));
		if (names && names_value(c, idx, kw, key, x, &one.req, &one.nreq) < 0)
			return -1;
		if (!names && (one.sub = sub(c, idx, kw, x, key, one.when.len, -1)) == SN_NONE)
			return -1;
		NODE.deps[NODE.ndeps++] = one;
	}
	return 0;
}

static int kw_number(struct compiler *c, uint32_t idx, const char *kw, json_t *v, json_t **out)
{
	if (json_is_boolean(v) &&
	    (!strcmp(kw, "exclusiveMaximum") || !strcmp(kw, "exclusiveMinimum")))
		return kfail(c, idx, kw, NULL, -1,
		             "'%s' is a boolean (the draft-04 form, not supported): "
		             "write the limit itself, e.g. \"%s\": 10, and drop '%s'",
		             kw, kw, !strcmp(kw, "exclusiveMaximum") ? "maximum" : "minimum");
	if (!json_is_number(v))
		return kfail(c, idx, kw, NULL, -1, "'%s' must be a number", kw);
	if (!strcmp(kw, "multipleOf") && json_number_value(v) <= 0)
		return kfail(c, idx, kw, NULL, -1, "'multipleOf' must be greater than 0");
	*out = v;
	return 0;
}

/* An enum of strings only (the common case: fixed choices) is matched by
 * length and bytes, without general JSON equality. */
static int enum_strings(struct compiler *c, uint32_t idx, json_t *v)
{
	size_t n = json_array_size(v);
	for (size_t i = 0; i < n; i++)
		if (!json_is_string(json_array_get(v, i)))
			return 0;
	struct sname *names = calloc(n ? n : 1, sizeof *names);
	if (!names)
		return kfail(c, idx, NULL, NULL, -1, "out of memory");
	for (size_t i = 0; i < n; i++) {
		names[i].name = json_string_value(json_array_get(v, i));
		names[i].len = json_string_length(json_array_get(v, i));
	}
	NODE.enum_strs = names;
	return 0;
}

/* ---- one keyword ------------------------------------------------------ */

struct tmp { /* keywords that combine with others */
	json_t *items, *additional_items, *prefix_items, *min_contains;
};

/* Keywords that hold a count (non-negative integer) or one subschema,
 * by where they land in the node. */
static const struct {
	enum kw_id id;
	size_t off;
	uint32_t bit;
} counts[] = {
	{ K_MAXLEN, offsetof(struct snode, max_len), SK_MAX_LEN },
	{ K_MINLEN, offsetof(struct snode, min_len), SK_MIN_LEN },
	{ K_MAXITEMS, offsetof(struct snode, max_items), SK_MAX_ITEMS },
	{ K_MINITEMS, offsetof(struct snode, min_items), SK_MIN_ITEMS },
	{ K_MAXPROPS, offsetof(struct snode, max_props), SK_MAX_PROPS },
	{ K_MINPROPS, offsetof(struct snode, min_props), SK_MIN_PROPS },
	{ K_MAXCONTAINS, offsetof(struct snode, max_contains), SK_MAX_CONTAINS },
	{ K_MINCONTAINS, offsetof(struct snode, min_contains), 0 },
};

static const struct {
	enum kw_id id;
	size_t off;
} singles[] = {
	{ K_CONTAINS, offsetof(struct snode, contains) },
	{ K_ADDPROPS, offsetof(struct snode, additional) },
	{ K_PROPNAMES, offsetof(struct snode, property_names) },
	{ K_NOT, offsetof(struct snode, not_) },
	{ K_IF, offsetof(struct snode, if_) },
	{ K_THEN, offsetof(struct snode, then_) },
	{ K_ELSE, offsetof(struct snode, else_) },
};

/* Stores a count or a subschema keyword at its offset in the node. */
static int kw_slot(struct compiler *c, uint32_t idx, const char *k, json_t *v, size_t count,
                   uint32_t bit, size_t single)
{
	if (count) {
		size_t val = 0;
		if (count_value(c, idx, k, v, &val) < 0)
			return -1;
		memcpy((char *)&NODE + count, &val, sizeof val);
		NODE.has |= bit;
		return 0;
	}
	uint32_t s = sub(c, idx, k, v, NULL, 0, -1);
	if (s == SN_NONE)
		return -1;
	memcpy((char *)&NODE + single, &s, sizeof s); /* NODE re-read: sub() may move it */
	return 0;
}

static int kw_one(struct compiler *c, uint32_t idx, const struct kw *kw, json_t *v, struct tmp *t)
{
	const char *k = kw->name;
	/* offsets, not pointers: sub() may move the node array */
	size_t count = 0, single = 0;
	uint32_t bit = 0;
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
		if (counts[i].id == kw->id)
			count = counts[i].off, bit = counts[i].bit;
	for (size_t i = 0; i < sizeof singles / sizeof singles[0]; i++)
		if (singles[i].id == kw->id)
			single = singles[i].off;
	if (kw->id == K_MINCONTAINS)
		t->min_contains = v;
	if (count || single)
		return kw_slot(c, idx, k, v, count, bit, single);
	switch (kw->id) {
	case K_SCHEMA:
		return json_is_string(v) ? 0 :
		                           kfail(c, idx, k, NULL, -1, "'$schema' must be a string");
	case K_REF:
		if (!json_is_string(v))
			return kfail(c, idx, k, NULL, -1, "'$ref' must be a string");
		single = comp_resolve_ref(c, idx, json_string_value(v), "$ref");
		if (single == SN_NONE)
			return -1;
		NODE.ref = (uint32_t)single; /* assigned after the call: it may move NODE */
		return 0;
	case K_DYNREF:
		/* only inside the built-in metaschemas, where every "#meta" names
		 * the 2020-12 metaschema root in the dynamic scope we use */
		single = comp_meta_root_2020(c, idx);
		if (single == SN_NONE)
			return -1;
		NODE.ref = (uint32_t)single;
		return 0;
	case K_TYPE: return kw_type(c, idx, v);
	case K_ENUM:
		if (!json_is_array(v))
			return kfail(c, idx, k, NULL, -1, "'enum' must be an array");
		NODE.enum_v = v;
		return enum_strings(c, idx, v);
	case K_CONST: NODE.const_v = v; return 0;
	case K_MULTIPLEOF: return kw_number(c, idx, k, v, &NODE.multiple_of);
	case K_MAXIMUM: return kw_number(c, idx, k, v, &NODE.maximum);
	case K_EXMAX: return kw_number(c, idx, k, v, &NODE.ex_maximum);
	case K_MINIMUM: return kw_number(c, idx, k, v, &NODE.minimum);
	case K_EXMIN: return kw_number(c, idx, k, v, &NODE.ex_minimum);
	case K_PATTERN:
		if (!json_is_string(v))
			return kfail(c, idx, k, NULL, -1, "'pattern' must be a string");
		return regex_compile(c, idx, k, NULL, json_string_value(v), json_string_length(v),
		                     &NODE.pattern);
	case K_FORMAT:
		if (!json_is_string(v))
			return kfail(c, idx, k, NULL, -1, "'format' must be a string");
		NODE.format_name = json_string_value(v);
		if (!c->o->assert_format)
			return 0; /* an annotation, as both drafts specify by default */
		if ((NODE.format = format_lookup(json_string_value(v))) == SF_NONE)
			return kfail(
			        c, idx, k, NULL, -1,
			        "format '%.100s' cannot be asserted (asserted formats: "
			        "date-time, date, time, email, uri, uuid, ipv4, ipv6); compile without "
			        "format assertion to keep it an annotation",
			        json_string_value(v));
		return 0;
	case K_UNIQUE:
		if (!json_is_boolean(v))
			return kfail(c, idx, k, NULL, -1, "'uniqueItems' must be true or false");
		if (json_is_true(v))
			NODE.has |= SK_UNIQUE;
		return 0;
	case K_ITEMS: t->items = v; return 0;
	case K_ADDITEMS: t->additional_items = v; return 0;
	case K_PREFIXITEMS: t->prefix_items = v; return 0;
	case K_PROPS: return kw_properties(c, idx, v);
	case K_PATPROPS: return kw_pattern_props(c, idx, v);
	case K_REQUIRED: {
		struct sname *names;
		size_t n;
		if (names_value(c, idx, k, NULL, v, &names, &n) < 0)
			return -1;
		NODE.required = names;
		NODE.nrequired = n;
		return 0;
	}
	case K_DEPREQ:
	case K_DEPSCH:
	case K_DEPS: return kw_deps(c, idx, k, kw->id, v);
	case K_ALLOF: {
		struct slist l;
		if (sub_list(c, idx, k, v, &l) < 0)
			return -1;
		NODE.all_of = l;
		return 0;
	}
	case K_ANYOF: {
		struct slist l;
		if (sub_list(c, idx, k, v, &l) < 0)
			return -1;
		NODE.any_of = l;
		return 0;
	}
	case K_ONEOF: {
		struct slist l;
		if (sub_list(c, idx, k, v, &l) < 0)
			return -1;
		NODE.one_of = l;
		return 0;
	}
	default: return 0; /* annotations, $id, $defs */
	}
	return 0;
}

/* Draft-07 ignores every keyword beside $ref. We refuse assertions there
 * instead: the author clearly meant them, and ignoring them would validate
 * less than the schema says. */
static int ref07_siblings(struct compiler *c, uint32_t idx, json_t *j)
{
	for (void *it = json_object_iter(j); it; it = json_object_iter_next(j, it)) {
		const struct kw *kw =
		        kw_find(json_object_iter_key(it), json_object_iter_key_len(it));
		if (kw && kw->cls != C_ANNOT && kw->id != K_REF)
			return kfail(
			        c, idx, kw->name, NULL, -1,
			        "draft-07 ignores '%s' beside '$ref', so it would "
			        "not be enforced: put both in an allOf, or declare 2020-12 in $schema",
			        kw->name);
	}
	json_t *ref = json_object_get(j, "$ref");
	return kw_one(c, idx, kw_find("$ref", 4), ref, &(struct tmp){ 0 });
}

/* items / prefixItems / additionalItems and contains / minContains
 * combine into prefix, items and contains bounds. */
static int finish_arrays(struct compiler *c, uint32_t idx, enum schema_draft draft, struct tmp *t)
{
	json_t *rest = NULL;
	if (draft == SCHEMA_DRAFT_07 && json_is_array(t->items)) {
		struct slist l;
		if (json_array_size(t->items) == 0)
			l = (struct slist){ NULL, 0 };
		else if (sub_list(c, idx, "items", t->items, &l) < 0)
			return -1;
		NODE.prefix = l;
		rest = t->additional_items;
	} else if (t->items) {
		if (json_is_array(t->items))
			return kfail(
			        c, idx, "items", NULL, -1,
			        "in 2020-12 'items' takes one schema; "
			        "use 'prefixItems' for a tuple (or declare draft-07 in $schema)");
		rest = t->items;
	}
	if (t->prefix_items) {
		struct slist l;
		if (sub_list(c, idx, "prefixItems", t->prefix_items, &l) < 0)
			return -1;
		NODE.prefix = l;
	}
	if (rest) {
		const char *k = rest == t->items ? "items" : "additionalItems";
		uint32_t s = sub(c, idx, k, rest, NULL, 0, -1);
		if (s == SN_NONE)
			return -1;
		NODE.items = s;
	}
	if (!t->min_contains)
		NODE.min_contains = 1;
	if (NODE.contains == SN_NONE)
		NODE.has &= ~(uint32_t)SK_MAX_CONTAINS;
	return 0;
}

int comp_keywords(struct compiler *c, uint32_t idx)
{
	json_t *j = c->pend[idx].json;
	const struct cdoc *doc = &c->docs[c->pend[idx].doc];
	enum schema_draft draft = doc->draft;
	bool meta = doc->meta;
	if (json_is_boolean(j)) {
		NODE.kind = json_is_true(j) ? SN_TRUE : SN_FALSE;
		return 0;
	}
	if (!json_is_object(j))
		return kfail(c, idx, NULL, NULL, -1, "a schema must be an object or a boolean");
	NODE.kind = SN_OBJECT;
	if (draft == SCHEMA_DRAFT_07 && json_object_get(j, "$ref"))
		return ref07_siblings(c, idx, j);
	struct tmp t = { 0 };
	unsigned dbit = draft == SCHEMA_DRAFT_07 ? D07 : D20;
	for (void *it = json_object_iter(j); it; it = json_object_iter_next(j, it)) {
		const char *key = json_object_iter_key(it);
		const struct kw *kw = kw_find(key, json_object_iter_key_len(it));
		if (!kw) {
			const struct kw *near = strncmp(key, "x-", 2) ? kw_near_miss(key) : NULL;
			if (near)
				return kfail(c, idx, key, NULL, -1,
				             "unknown keyword '%s': did you mean '%s'? "
				             "(keywords are case-sensitive)",
				             key, near->name);
			continue; /* an extension or annotation of the author's */
		}
		if (kw->cls == C_REFUSE && !(meta && kw->id == K_DYNREF))
			return kfail(
			        c, idx, kw->name, NULL, -1,
			        "keyword '%s' is not supported (%s); "
			        "the schema is refused rather than validated less strictly than it says",
			        kw->name, kw->hint);
		if (!(kw->drafts & dbit)) {
			if (kw->cls == C_ANNOT)
				continue;
			return kfail(c, idx, kw->name, NULL, -1, "'%s' is not a %s keyword: %s",
			             kw->name, draft == SCHEMA_DRAFT_07 ? "draft-07" : "2020-12",
			             kw->hint);
		}
		if (kw_one(c, idx, kw, json_object_iter_value(it), &t) < 0)
			return -1;
	}
	if (finish_arrays(c, idx, draft, &t) < 0)
		return -1;
	if (NODE.if_ == SN_NONE) /* then/else without if are ignored (spec) */
		NODE.then_ = NODE.else_ = SN_NONE;
	return 0;
}

static size_t edges(const struct snode *n, uint32_t *out, bool all)
{
	size_t k = 0;
#define EDGE(x)                                                                                    \
	do {                                                                                       \
		if ((x) != SN_NONE) {                                                              \
			if (out)                                                                   \
				out[k] = (x);                                                      \
			k++;                                                                       \
		}                                                                                  \
	} while (0)
	EDGE(n->ref);
	EDGE(n->not_);
	EDGE(n->if_);
	EDGE(n->then_);
	EDGE(n->else_);
	for (size_t i = 0; i < n->all_of.n; i++)
		EDGE(n->all_of.v[i]);
	for (size_t i = 0; i < n->any_of.n; i++)
		EDGE(n->any_of.v[i]);
	for (size_t i = 0; i < n->one_of.n; i++)
		EDGE(n->one_of.v[i]);
	for (size_t i = 0; i < n->ndeps; i++)
		EDGE(n->deps[i].sub);
	if (!all)
		return k;
	for (size_t i = 0; i < n->prefix.n; i++)
		EDGE(n->prefix.v[i]);
	EDGE(n->items);
	EDGE(n->contains);
	for (size_t i = 0; i < n->nprops; i++)
		EDGE(n->props[i].sub);
	for (size_t i = 0; i < n->npats; i++)
		EDGE(n->pats[i].sub);
	EDGE(n->additional);
	EDGE(n->property_names);
#undef EDGE
	return k;
}

size_t comp_inplace_edges(const struct snode *n, uint32_t *out)
{
	return edges(n, out, false);
}

size_t comp_all_edges(const struct snode *n, uint32_t *out)
{
	return edges(n, out, true);
}
