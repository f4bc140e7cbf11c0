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

#include <stdint.h>

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
#define SCHEMA_MAX_SCHEMA_DEPTH 128
#define SCHEMA_MAX_INSTANCE_DEPTH 128
#define SCHEMA_MAX_EVAL_DEPTH 1024
#define SCHEMA_DEFAULT_DIAGS 32
/* PCRE2 budgets per match: a catastrophic pattern fails the value instead of
 * hanging the supervisor. */
#define SCHEMA_REGEX_MATCH_LIMIT 200000u
#define SCHEMA_REGEX_DEPTH_LIMIT 5000u
#define SCHEMA_REGEX_HEAP_LIMIT_KIB 8192u

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

struct sregex {
	pcre2_code *code;
	const char *src;           /* borrowed from the document */
	bool jit;                  /* JIT-compiled: matched with pcre2_jit_match */
};

struct sprop {                 /* properties; sorted by (name, len) */
	const char *name;
	size_t len;
	uint32_t sub;
};

struct spattern {              /* patternProperties */
	struct sregex re;
	uint32_t sub;
};

struct sname {                 /* a property name borrowed from the document */
	const char *name;
	size_t len;
};

struct sdep {                  /* dependentRequired / dependentSchemas / dependencies */
	struct sname when;
	struct sname *req;         /* owned array */
	size_t nreq;
	uint32_t sub;              /* SN_NONE for a names-only dependency */
};

struct slist {
	uint32_t *v;               /* owned */
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
	SK_ITEMS_FALSE_MSG = 1u << 9,   /* items beyond the prefix are refused */
};

struct snode {
	char *where;               /* schema location "#/properties/x" (owned) */
	enum snode_kind kind;
	bool shared;               /* reachable by 2+ edges: results memoized */
	uint32_t has;              /* SK_* */
	uint16_t types;            /* ST_* when SK_TYPE */
	json_t *const_v;           /* borrowed */
	json_t *enum_v;            /* borrowed array */
	struct sname *enum_strs;   /* owned: enum_v's items when all are strings */
	json_t *multiple_of, *maximum, *ex_maximum, *minimum, *ex_minimum;
	size_t min_len, max_len;
	struct sregex pattern;     /* code NULL when absent */
	enum schema_format format; /* SF_NONE unless asserted */
	const char *format_name;
	/* arrays */
	struct slist prefix;       /* prefixItems, or draft-07 items array */
	uint32_t items;            /* items past the prefix */
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
	json_t *doc;               /* the user's document (a reference) */
	json_t **docs;             /* every document nodes borrow from (refs) */
	size_t ndocs;
	enum schema_draft draft;
	pcre2_match_context *mctx; /* read-only after compile */
	size_t max_depth;          /* instance nesting limit */
};

/* Options of one compile (schema.h exposes the public subset). */
struct schema_copts {
	enum schema_draft draft;
	bool assert_format;
	bool skip_meta;            /* compiling a metaschema itself */
};

/* ---- compile-time state (schema_compile.c, schema_keywords.c) ---------- */

struct cdoc {                  /* a document the compiler knows */
	json_t *root;              /* borrowed from schema->docs */
	enum schema_draft draft;
	bool meta;                 /* a built-in metaschema: $dynamicRef allowed */
};

struct centry {                /* an absolute URI (resource or anchor) */
	char *uri;                 /* owned; "base" or "base#anchor" */
	json_t *target;            /* borrowed */
	int doc;
	char *base;                /* owned: the base URI at target */
};

struct cpend {                 /* how to compile node i (parallel to nodes) */
	json_t *json;              /* borrowed */
	int doc;
	char *base;                /* owned */
	unsigned depth;            /* subschema nesting from its document root */
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
	size_t cappend;            /* nodes and pend share this capacity */
	struct cmap_ent { const json_t *key; uint32_t idx; } *map;
	size_t mapcap, mapn;
};

/* schema_compile.c */
struct schema *schema_build(json_t *doc, const struct schema_copts *o,
                            struct tc_error *err);
void schema_free_nodes(struct schema *s);
/* The node for subschema j, walking it first if no node exists yet.
 * Returns the index or SN_NONE with c->err set. */
uint32_t comp_node_for(struct compiler *c, json_t *j, int doc, const char *base,
                       const char *where, unsigned depth);
/* Resolves a $ref value at node idx; returns the target node or SN_NONE. */
uint32_t comp_resolve_ref(struct compiler *c, uint32_t idx, const char *ref,
                          const char *kw);
/* The node of the 2020-12 metaschema root ($dynamicRef in metaschemas). */
uint32_t comp_meta_root_2020(struct compiler *c, uint32_t idx);
int comp_fail(struct compiler *c, uint32_t idx, const char *kw, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* schema_keywords.c */
int comp_keywords(struct compiler *c, uint32_t idx);
/* Calls fn for each subschema position directly inside object schema j
 * (with the keyword and, for maps and arrays, the key or index). */
typedef int (*comp_child_fn)(struct compiler *c, json_t *child, const char *kw,
                             const char *key, size_t keylen, long index, void *ctx);
int comp_each_child(struct compiler *c, json_t *j, enum schema_draft draft,
                    comp_child_fn fn, void *ctx);
/* The in-place subschemas of node n (those applied to the same instance),
 * for the cycle check: returns their count and, if out is not NULL, stores
 * them there (out must hold the count). */
size_t comp_inplace_edges(const struct snode *n, uint32_t *out);
/* Every subschema edge of n (in-place and those to parts of the instance),
 * same contract. */
size_t comp_all_edges(const struct snode *n, uint32_t *out);

/* schema_ref.c: URI references and JSON pointers */
char *uri_resolve(const char *base, const char *ref);      /* new string or NULL */
void uri_split_fragment(char *uri, char **fragment);       /* cuts at '#', in place */
int json_pointer_lookup(json_t *root, const char *frag, json_t **out);
int json_pointer_append(struct buf *b, const char *key, size_t len);
enum schema_draft schema_draft_of_uri(const char *uri);    /* 0 if unknown */
/* The embedded metaschema file whose $id is uri (no fragment), or NULL. */
const char *meta_file_for_uri(const char *uri);

/* schema_value.c: JSON equality and numbers */
int json_equal_value(const json_t *a, const json_t *b, unsigned depth); /* 1, 0, -1 too deep */
unsigned json_value_type(const json_t *v);                   /* one ST_* (INT for integral reals) */
const char *json_type_word(unsigned t);                      /* "string", ... */
int num_cmp(const json_t *a, const json_t *b);               /* -1, 0, 1 */
bool num_is_multiple(const json_t *x, const json_t *m);
size_t utf8_length(const char *s, size_t len);
int json_value_depth_ok(const json_t *v, unsigned limit);
int unique_items_check(const json_t *arr, size_t *dup_a, size_t *dup_b); /* 1 unique, 0 dup, -1 error */
int buf_add_value(struct buf *b, const json_t *v, size_t max);  /* short JSON text */
int buf_add_name(struct buf *b, const char *s, size_t len);     /* 'name', escaped */

/* schema_format.c */
enum schema_format format_lookup(const char *name);
bool format_check(enum schema_format f, const char *s, size_t len);
const char *format_hint(enum schema_format f);

/* schema_validate.c */
int schema_eval(const struct schema *s, const json_t *instance,
                struct schema_result *res, size_t max_diags);

#endif
