/* schema_internal.h — the compiled form of a JSON Schema, shared by the
 * schema_*.c files and nobody else.
 *
 * A compiled schema is a flat array of nodes, one per schema location that
 * can be reached (subschemas, $ref targets, built-in metaschema parts).
 * Nodes name each other by index, so $ref is a resolved index and recursive
 * schemas are ordinary back-edges. After schema_compile returns, nothing in
 * struct schema changes: validation only reads it (re-entrant).
 *
 * Invariants: every uint32_t subschema field is either SN_NONE or < nnodes;
 * every json_t and string a node borrows lives in a document the schema
 * holds a reference to (docs[]); regexes are compiled once, here.
 */
#ifndef TC_SCHEMA_INTERNAL_H
#define TC_SCHEMA_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "embedded.h"
#include "schema.h"
#include "util.h"

/* The metaschemas (the .json files in supervisor/metaschemas/), generated into
 * $(BUILD)/gen/metaschemas.c by mk/embed.sh. */
extern const struct embedded_file embedded_metaschemas[];

#define SN_NONE UINT32_MAX

/* Limits. Schema nesting counts subschema levels; instance nesting counts
 * JSON levels below the root; evaluation depth counts nested subschema
 * evaluations (a $ref chain that consumes no instance is refused at compile
 * time, so this only backs that check up). */
#define SCHEMA_MAX_SCHEMA_DEPTH   128
#define SCHEMA_MAX_INSTANCE_DEPTH 128
#define SCHEMA_MAX_EVAL_DEPTH     1024
#define SCHEMA_DEFAULT_DIAGS      32
/* PCRE2 budgets per match: a catastrophic pattern fails the value instead of
 * hanging the supervisor. */
#define SCHEMA_REGEX_MATCH_LIMIT    200000u
#define SCHEMA_REGEX_DEPTH_LIMIT    5000u
#define SCHEMA_REGEX_HEAP_LIMIT_KIB 8192u
/* ... and for all the matches of one validation pass: thousands of values
 * that each stay just under the match limit (a pattern that backtracks,
 * then matches) would otherwise keep the supervisor busy for minutes. */
#define SCHEMA_REGEX_BUDGET_MS 1000u

/* Instance type bits. INT is the integer subset of numbers (by value). */
enum {
	ST_NULL = 1 << 0,
	ST_BOOL = 1 << 1,
	ST_INT = 1 << 2,
	ST_NUM = 1 << 3,
	ST_STR = 1 << 4,
	ST_ARR = 1 << 5,
	ST_OBJ = 1 << 6,
	ST_ALL = (1 << 7) - 1,
};

enum schema_format {
	SF_NONE = 0,
	SF_DATE_TIME,
	SF_DATE,
	SF_TIME,
	SF_EMAIL,
	SF_URI,
	SF_UUID,
	SF_IPV4,
	SF_IPV6,
};

enum snode_kind { SN_TRUE, SN_FALSE, SN_OBJECT };

/* Which groups of keywords a node has (comp_finish_node), so evaluation
 * skips whole groups with one test. */
enum {
	SP_VALUES = 1u << 0, /* const, enum */
	SP_NUM = 1u << 1,    /* multipleOf, bounds */
	SP_STR = 1u << 2,    /* lengths, pattern, asserted format */
	SP_ARR = 1u << 3,    /* any array keyword */
	SP_OBJ = 1u << 4,    /* any object keyword */
	SP_APPLY = 1u << 5,  /* $ref, allOf, anyOf, oneOf, not, if */
};

struct sre {             /* schema_regex.c: a simple pattern's DFA */
	uint8_t *next;   /* [state * 256 + byte] -> state; 0 starts */
	uint8_t *accept; /* [state]: 1 accepting, 0 not,
	                            * SRE_UNDECIDED (a non-ASCII byte) */
	uint8_t *stay;   /* [state * 256 + byte]: 1 if the byte keeps
	                            * the DFA in that state (next is the state) */
};
#define SRE_UNDECIDED 2

struct sregex {
	pcre2_code *code;
	const char *src;  /* borrowed from the document */
	bool jit;         /* JIT-compiled: matched with pcre2_jit_match */
	struct sre *fast; /* owned; when set, matched without PCRE2 */
};

struct sprop { /* properties; sorted by (name, len) */
	const char *name;
	size_t len;
	uint32_t sub;
	uint32_t next_decl; /* the property declared after it, or SN_NONE */
	uint64_t reqbit;    /* this property's bit in req_mask, or 0 */
	bool leaf;          /* sub is an object schema that neither
	                            * descends nor applies others (see
	                            * schema_plan.c): checked in place */
};

struct skey {          /* a slot of a node's property key table */
	uint32_t hash; /* skey_hash of the name */
	uint32_t prop; /* index into props + 1; 0: empty slot */
};

struct slimit {          /* maximum & co., ready to compare */
	const json_t *v; /* borrowed */
	const char *op;  /* "<=", "<", ">=", ">": what is allowed */
	uint8_t bad;     /* bit (c + 1) set: out of bounds when the
	                            * instance compares c (-1, 0, 1) to v */
	bool is_int;
	json_int_t i;   /* when is_int */
	long double ld; /* the value (exact for int64 and double on x86-64) */
};

struct spattern { /* patternProperties */
	struct sregex re;
	uint32_t sub;
};

struct sname { /* a property name borrowed from the document */
	const char *name;
	size_t len;
};

struct sdep { /* dependentRequired / dependentSchemas / dependencies */
	struct sname when;
	struct sname *req; /* owned array */
	size_t nreq;
	uint32_t sub; /* SN_NONE for a names-only dependency */
};

struct slist {
	uint32_t *v; /* owned */
	size_t n;
};

/* Which optional keywords a node has (numbers and sizes have no sentinel). */
enum {
	SK_MIN_LEN = 1u << 0,
	SK_MAX_LEN = 1u << 1,
	SK_MIN_ITEMS = 1u << 2,
	SK_MAX_ITEMS = 1u << 3,
	SK_MIN_PROPS = 1u << 4,
	SK_MAX_PROPS = 1u << 5,
	SK_MAX_CONTAINS = 1u << 6,
	SK_UNIQUE = 1u << 7,
	SK_TYPE = 1u << 8,
	SK_ITEMS_FALSE_MSG = 1u << 9, /* items beyond the prefix are refused */
};

struct snode {
	char *where; /* schema location "#/properties/x" (owned) */
	enum snode_kind kind;
	bool shared;             /* reachable by 2+ edges: results memoized */
	uint8_t plan;            /* SP_* */
	uint32_t has;            /* SK_* */
	uint16_t types;          /* ST_* allowed: type, else ST_ALL */
	uint8_t settled;         /* bit per json_type: such a value passes
	                            * type, const, enum and the number and
	                            * string keywords unseen (schema_plan.c) */
	json_t *const_v;         /* borrowed */
	json_t *enum_v;          /* borrowed array */
	size_t nenum;            /* its size */
	struct sname *enum_strs; /* owned: enum_v's items when all are strings */
	json_t *multiple_of, *maximum, *ex_maximum, *minimum, *ex_minimum;
	struct slimit lim[4]; /* maximum, exclusiveMaximum, minimum and */
	uint8_t nlim;         /* exclusiveMinimum: those present, in order */
	size_t min_len, max_len;
	struct sregex pattern;     /* code NULL when absent */
	enum schema_format format; /* SF_NONE unless asserted */
	const char *format_name;
	/* arrays */
	struct slist prefix; /* prefixItems, or draft-07 items array */
	uint32_t items;      /* items past the prefix */
	uint32_t contains;
	size_t min_contains, max_contains;
	size_t min_items, max_items;
	/* objects */
	struct sprop *props;
	size_t nprops;
	struct spattern *pats;
	size_t npats;
	uint32_t additional;
	uint32_t property_names;
	size_t min_props, max_props;
	struct sname *required;
	size_t nrequired;
	/* Precomputed by comp_finish_node for the one pass over an object's
	 * keys. Props are found by a perfect hash of a name's signature when
	 * one exists (ptab, one slot per name: one comparison per key), else in
	 * an open-addressed table on a hash of the whole name (ktab, size
	 * kmask + 1, at most half full, so a probe always ends). Required names
	 * are split into bits of props seen during that pass (req_mask) and the
	 * rest, looked up. */
	uint8_t *ptab;  /* owned; prop index + 1 per slot, 0 empty */
	uint32_t pseed; /* odd multiplier; 0: no perfect hash */
	uint8_t pshift;
	struct skey *ktab; /* owned; when props but no ptab */
	uint32_t kmask;
	uint32_t first_decl; /* the first property declared, or SN_NONE */
	uint64_t req_mask;
	struct sname *req_rest; /* owned */
	size_t nreq_rest;
	struct sdep *deps;
	size_t ndeps;
	/* in-place applicators */
	uint32_t ref;
	struct slist all_of, any_of, one_of;
	uint32_t not_, if_, then_, else_;
};

struct schema {
	struct snode *nodes;
	size_t nnodes;
	uint32_t root;
	json_t *doc;   /* the user's document (a reference) */
	json_t **docs; /* every document nodes borrow from (refs) */
	size_t ndocs;
	enum schema_draft draft;
	pcre2_match_context *mctx; /* read-only after compile */
	size_t max_depth;          /* instance nesting limit */
};

/* Options of one compile (schema.h exposes the public subset). */
struct schema_copts {
	enum schema_draft draft;
	bool assert_format;
	bool skip_meta; /* compiling a metaschema itself */
};

/* ---- compile-time state (schema_compile.c, schema_keywords.c) ---------- */

struct cdoc {         /* a document the compiler knows */
	json_t *root; /* borrowed from schema->docs */
	enum schema_draft draft;
	bool meta; /* a built-in metaschema: $dynamicRef allowed */
};

struct centry {         /* an absolute URI (resource or anchor) */
	char *uri;      /* owned; "base" or "base#anchor" */
	json_t *target; /* borrowed */
	int doc;
	char *base; /* owned: the base URI at target */
};

struct cpend {        /* how to compile node i (parallel to nodes) */
	json_t *json; /* borrowed */
	int doc;
	char *base;     /* owned */
	unsigned depth; /* subschema nesting from its document root */
};

struct compiler {
	struct schema *s;
	const struct schema_copts *o;
	struct tc_error *err;
	struct cdoc *docs;
	size_t ndocs, capdocs;
	struct centry *ents;
	size_t nents, capents;
	struct cpend *pend;
	size_t cappend; /* nodes and pend share this capacity */
	struct cmap_ent {
		const json_t *key;
		uint32_t idx;
	} * map;
	size_t mapcap, mapn;
};

/* schema_compile.c */
struct schema *schema_build(json_t *doc, const struct schema_copts *o, struct tc_error *err);
void schema_free_nodes(struct schema *s);
/* The node for subschema j, walking it first if no node exists yet.
 * Returns the index or SN_NONE with c->err set. */
uint32_t comp_node_for(struct compiler *c, json_t *j, int doc, const char *base, const char *where,
                       unsigned depth);
/* Resolves a $ref value at node idx; returns the target node or SN_NONE. */
uint32_t comp_resolve_ref(struct compiler *c, uint32_t idx, const char *ref, const char *kw);
/* The node of the 2020-12 metaschema root ($dynamicRef in metaschemas). */
uint32_t comp_meta_root_2020(struct compiler *c, uint32_t idx);
/* Fails (keeping the first error) with where = node idx's location + /kw
 * [+ /key, or /index when key is NULL and index >= 0]. Returns -1. */
int comp_vfail(struct compiler *c, uint32_t idx, const char *kw, const char *key, long index,
               const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));
int comp_fail(struct compiler *c, uint32_t idx, const char *kw, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* schema_keywords.c */
int comp_keywords(struct compiler *c, uint32_t idx);
/* schema_plan.c: the precomputed forms of node idx (key table, required
 * bits, numeric limits), once its keywords are compiled. 0 or -1 (no
 * memory, c->err set). */
int comp_finish_node(struct compiler *c, uint32_t idx);
void comp_free_plan(struct snode *n);

/* schema_regex.c: a DFA for a pattern in the simple subset, or NULL (not
 * simple, or no memory: PCRE2 serves it). sre_match: 1 match, 0 none,
 * SRE_UNDECIDED: ask PCRE2 (the subject is not ASCII). */
struct sre *sre_compile(const char *src, size_t len);
void sre_free(struct sre *r); /* NULL is a no-op */
/* Calls fn for each subschema position directly inside object schema j
 * (with the keyword and, for maps and arrays, the key or index). */
typedef int (*comp_child_fn)(struct compiler *c, json_t *child, const char *kw, const char *key,
                             size_t keylen, long index, void *ctx);
int comp_each_child(struct compiler *c, json_t *j, enum schema_draft draft, comp_child_fn fn,
                    void *ctx);
/* The in-place subschemas of node n (those applied to the same instance),
 * for the cycle check: returns their count and, if out is not NULL, stores
 * them there (out must hold the count). */
size_t comp_inplace_edges(const struct snode *n, uint32_t *out);
/* Every subschema edge of n (in-place and those to parts of the instance),
 * same contract. */
size_t comp_all_edges(const struct snode *n, uint32_t *out);

/* schema_ref.c: URI references and JSON pointers */
char *uri_resolve(const char *base, const char *ref); /* new string or NULL */
void uri_split_fragment(char *uri, char **fragment);  /* cuts at '#', in place */
int json_pointer_lookup(json_t *root, const char *frag, json_t **out);
enum schema_draft schema_draft_of_uri(const char *uri); /* 0 if unknown */
/* The embedded metaschema file whose $id is uri (no fragment), or NULL. */
const char *meta_file_for_uri(const char *uri);

/* schema_value.c: JSON equality and numbers */
int json_equal_value(const json_t *a, const json_t *b, unsigned depth); /* 1, 0, -1 too deep */
bool real_is_integral(double d);
const char *json_type_word(unsigned t);        /* "string", ... */
int num_cmp(const json_t *a, const json_t *b); /* -1, 0, 1 */
bool num_is_multiple(const json_t *x, const json_t *m);
int json_value_depth_ok(const json_t *v, unsigned limit);
int unique_items_check(const json_t *arr, size_t *dup_a,
                       size_t *dup_b);                         /* 1 unique, 0 dup, -1 error */
int buf_add_value(struct buf *b, const json_t *v, size_t max); /* short JSON text */
int buf_add_name(struct buf *b, const char *s, size_t len);    /* 'name', escaped */

/* schema_format.c */
enum schema_format format_lookup(const char *name);
bool format_check(enum schema_format f, const char *s, size_t len);
const char *format_hint(enum schema_format f);

/* schema_validate.c */
int schema_eval(const struct schema *s, const json_t *instance, struct schema_result *res,
                size_t max_diags);

/* 1 if the eight bytes at p all keep the state whose row is stay: eight
 * loads that do not wait on each other, and one test. */
__attribute__((always_inline)) static inline unsigned sre_stay8(const uint8_t *stay,
                                                                const unsigned char *p)
{
	return stay[p[0]] & stay[p[1]] & stay[p[2]] & stay[p[3]] & stay[p[4]] & stay[p[5]] &
	        stay[p[6]] & stay[p[7]];
}

/* The DFA r on str: 1, 0 or SRE_UNDECIDED. A byte that changes the state
 * is one table step. Runs of bytes that keep it (the "[a-z0-9/._-]*" of a
 * pattern, or a final verdict) go eight at a time while all eight stay.
 * Within eight bytes of the end, the string's last eight bytes are tested
 * at once: if they all keep the state, so do those from p on. Whatever
 * is left goes byte by byte. */
__attribute__((always_inline)) static inline int sre_match(const struct sre *r, const char *str,
                                                           size_t len)
{
	const unsigned char *p = (const unsigned char *)str, *end = p + len;
	unsigned s = 0;
	while (p < end) {
		const uint8_t *stay = r->stay + (size_t)s * 256;
		if (!stay[*p]) {
			s = r->next[(size_t)s * 256 + *p++];
			continue;
		}
		while (end - p >= 8 && sre_stay8(stay, p))
			p += 8;
		if (end - p < 8 && len >= 8 && sre_stay8(stay, end - 8))
			p = end;
		while (p < end && stay[*p])
			p++;
	}
	return r->accept[s];
}

/* One ST_* (INT for integral reals). Inline: the validator asks it of
 * every value. */
static inline unsigned json_value_type(const json_t *v)
{
	static const uint8_t by_type[8] = {
		[JSON_OBJECT] = ST_OBJ,  [JSON_ARRAY] = ST_ARR, [JSON_STRING] = ST_STR,
		[JSON_INTEGER] = ST_INT, [JSON_REAL] = ST_NUM,  [JSON_TRUE] = ST_BOOL,
		[JSON_FALSE] = ST_BOOL,  [JSON_NULL] = ST_NULL,
	};
	json_type t = json_typeof(v);
	if (t == JSON_REAL)
		return real_is_integral(json_real_value(v)) ? ST_INT : ST_NUM;
	return (unsigned)t < 8 ? by_type[t] : ST_NULL;
}

/* Equal bytes, inline: property names and enum strings are short, and a
 * call to memcmp costs more than comparing them. Overlapping word loads
 * cover any length from 4 up without a byte loop. */
__attribute__((always_inline)) static inline bool bytes_equal(const char *a, const char *b,
                                                              size_t len)
{
	uint64_t x, y;
	uint32_t u, v;
	if (len >= 8) {
		for (size_t i = 0; i + 8 < len; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			if (x != y)
				return false;
		}
		memcpy(&x, a + len - 8, 8);
		memcpy(&y, b + len - 8, 8);
		return x == y;
	}
	if (len >= 4) {
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		if (u != v)
			return false;
		memcpy(&u, a + len - 4, 4);
		memcpy(&v, b + len - 4, 4);
		return u == v;
	}
	for (size_t i = 0; i < len; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* The key table's hash: every byte counts (names differing anywhere land
 * apart), with two loads for names up to 16 bytes. */
__attribute__((always_inline)) static inline uint32_t skey_hash(const char *k, size_t len)
{
	uint64_t h = (uint64_t)len * 0x9e3779b97f4a7c15ull, a;
	if (len >= 8) {
		for (size_t i = 0; i + 8 < len; i += 8) {
			memcpy(&a, k + i, 8);
			h = (h ^ a) * 0xbf58476d1ce4e5b9ull;
			h ^= h >> 31;
		}
		memcpy(&a, k + len - 8, 8);
	} else if (len >= 4) {
		uint32_t x, y;
		memcpy(&x, k, 4);
		memcpy(&y, k + len - 4, 4);
		a = (uint64_t)x << 32 | y;
	} else {
		a = len ? (uint64_t)(unsigned char)k[0] | (uint64_t)(unsigned char)k[len / 2] << 8 |
		                (uint64_t)(unsigned char)k[len - 1] << 16 :
		          0;
	}
	h = (h ^ a) * 0x94d049bb133111ebull;
	return (uint32_t)(h ^ h >> 32);
}

/* What the perfect hash sees of a name: its length (low byte) and its
 * first, middle and last bytes. Names that share it get the probed table. */
__attribute__((always_inline)) static inline uint32_t skey_sig(const char *k, size_t len)
{
	if (!len)
		return 0;
	return (uint32_t)(len & 0xff) | (uint32_t)(unsigned char)k[0] << 8 |
	        (uint32_t)(unsigned char)k[len / 2] << 16 |
	        (uint32_t)(unsigned char)k[len - 1] << 24;
}

/* The property of n named key, or NULL. */
__attribute__((always_inline)) static inline const struct sprop *sprop_find(const struct snode *n,
                                                                            const char *key,
                                                                            size_t len)
{
	if (n->pseed) {
		unsigned slot = n->ptab[(skey_sig(key, len) * n->pseed) >> n->pshift];
		const struct sprop *p = &n->props[slot ? slot - 1 : 0];
		return slot && p->len == len && bytes_equal(p->name, key, len) ? p : NULL;
	}
	if (!n->ktab)
		return NULL;
	uint32_t h = skey_hash(key, len);
	for (uint32_t i = h & n->kmask;; i = (i + 1) & n->kmask) {
		const struct skey *e = &n->ktab[i];
		if (!e->prop)
			return NULL;
		const struct sprop *p = &n->props[e->prop - 1];
		if (e->hash == h && p->len == len && bytes_equal(p->name, key, len))
			return p;
	}
}

#endif
