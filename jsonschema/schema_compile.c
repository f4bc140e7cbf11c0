/* schema_compile.c — turns schema documents into the node graph of
 * schema_internal.h: walks every subschema position (registering $id
 * resources and anchors with their base URIs), compiles each node's keywords
 * (schema_keywords.c), resolves $ref to node indices, loads the built-in
 * metaschemas on demand, and refuses $ref cycles that never consume the
 * instance. Compile time only; nothing here runs during validation. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonptr.h"
#include "schema_internal.h"

/* Documents without $id get this base, so "#/..." resolves inside them and a
 * relative "other.json" resolves to a URI nobody registered (refused). */
#define ROOT_BASE "tc:/root.json"

int comp_vfail(struct compiler *c, uint32_t idx, const char *kw, const char *key, long index,
               const char *fmt, va_list ap)
{
	if (!c->err || c->err->code != TC_E_OK)
		return -1; /* keep the first error: it is the cause */
	struct buf where = BUF_INIT;
	const char *w = idx < c->s->nnodes ? c->s->nodes[idx].where : "";
	if (buf_adds(&where, w) == 0) {
		if (kw)
			jsonptr_append(&where, kw, strlen(kw));
		if (key)
			jsonptr_append(&where, key, strlen(key));
		else if (index >= 0)
			buf_printf(&where, "/%ld", index);
	}
	tc_error_vset(c->err, TC_E_INVALID, where.data ? where.data : "", fmt, ap);
	buf_release(&where);
	return -1;
}

int comp_fail(struct compiler *c, uint32_t idx, const char *kw, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	comp_vfail(c, idx, kw, NULL, -1, fmt, ap);
	va_end(ap);
	return -1;
}

static int comp_nomem(struct compiler *c)
{
	if (c->err && c->err->code == TC_E_OK)
		tc_error_set(c->err, TC_E_NOMEM, "", "out of memory compiling the schema");
	return -1;
}

/* ---- json_t* -> node index (open addressing on the pointer) ----------- */

static size_t ptr_hash(const json_t *p, size_t cap)
{
	uintptr_t x = (uintptr_t)p;
	x ^= x >> 17;
	x *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(x >> 20) & (cap - 1);
}

static uint32_t map_get(const struct compiler *c, const json_t *key)
{
	if (!c->mapcap)
		return SN_NONE;
	for (size_t i = ptr_hash(key, c->mapcap);; i = (i + 1) & (c->mapcap - 1)) {
		if (!c->map[i].key)
			return SN_NONE;
		if (c->map[i].key == key)
			return c->map[i].idx;
	}
}

static int map_put(struct compiler *c, const json_t *key, uint32_t idx)
{
	if ((c->mapn + 1) * 2 > c->mapcap) {
		size_t ncap = c->mapcap ? c->mapcap * 2 : 64;
		struct cmap_ent *nm = calloc(ncap, sizeof *nm), *old = c->map;
		if (!nm)
			return -1;
		size_t oldcap = c->mapcap;
		c->map = nm;
		c->mapcap = ncap;
		c->mapn = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].key)
				map_put(c, old[i].key, old[i].idx);
		free(old);
	}
	size_t i = ptr_hash(key, c->mapcap);
	while (c->map[i].key)
		i = (i + 1) & (c->mapcap - 1);
	c->map[i].key = key;
	c->map[i].idx = idx;
	c->mapn++;
	return 0;
}

/* ---- URI entries ----------------------------------------------------- */

static struct centry *entry_find(struct compiler *c, const char *uri)
{
	for (size_t i = 0; i < c->nents; i++)
		if (!strcmp(c->ents[i].uri, uri))
			return &c->ents[i];
	return NULL;
}

static int entry_add(struct compiler *c, uint32_t idx, const char *uri, json_t *target, int doc,
                     const char *base, const char *kw)
{
	struct centry *e = entry_find(c, uri);
	if (e) {
		if (e->target == target)
			return 0;
		return comp_fail(c, idx, kw, "'%s' is declared twice in this document", uri);
	}
	if (c->nents == c->capents) {
		size_t ncap = c->capents ? c->capents * 2 : 16;
		void *p = realloc(c->ents, ncap * sizeof *c->ents);
		if (!p)
			return comp_nomem(c);
		c->ents = p;
		c->capents = ncap;
	}
	e = &c->ents[c->nents];
	e->uri = strdup(uri);
	e->base = strdup(base);
	e->target = target;
	e->doc = doc;
	if (!e->uri || !e->base) {
		free(e->uri);
		free(e->base);
		return comp_nomem(c);
	}
	c->nents++;
	return 0;
}

/* ---- nodes ------------------------------------------------------------ */

static uint32_t node_new(struct compiler *c, json_t *j, int doc, const char *base,
                         const char *where, unsigned depth)
{
	struct schema *s = c->s;
	if (s->nnodes >= SN_NONE - 1)
		return comp_nomem(c), SN_NONE;
	if (s->nnodes == c->cappend) {
		size_t ncap = c->cappend ? c->cappend * 2 : 32;
		struct snode *nn = realloc(s->nodes, ncap * sizeof *nn);
		if (nn)
			s->nodes = nn;
		struct cpend *np = nn ? realloc(c->pend, ncap * sizeof *np) : NULL;
		if (!np)
			return comp_nomem(c), SN_NONE;
		c->pend = np;
		c->cappend = ncap;
	}
	uint32_t idx = (uint32_t)s->nnodes;
	struct snode *n = &s->nodes[idx];
	memset(n, 0, sizeof *n);
	n->where = strdup(where);
	c->pend[idx] = (struct cpend){ j, doc, strdup(base), depth };
	s->nnodes++; /* counted now so schema_free_nodes releases it on failure */
	if (!n->where || !c->pend[idx].base || map_put(c, j, idx) < 0)
		return comp_nomem(c), SN_NONE;
	n->items = n->contains = n->additional = n->property_names = SN_NONE;
	n->ref = n->not_ = n->if_ = n->then_ = n->else_ = SN_NONE;
	return idx;
}

struct walk_ctx {
	int doc;
	const char *base;
	const char *where;
	unsigned depth;
	uint32_t parent;
};

static int walk_child(struct compiler *c, json_t *child, const char *kw, const char *key,
                      size_t keylen, long index, void *vctx)
{
	struct walk_ctx *w = vctx;
	struct buf where = BUF_INIT;
	int rc = buf_adds(&where, w->where);
	rc |= jsonptr_append(&where, kw, strlen(kw));
	if (key)
		rc |= jsonptr_append(&where, key, keylen);
	else if (index >= 0)
		rc |= buf_printf(&where, "/%ld", index);
	if (rc) {
		buf_release(&where);
		return comp_nomem(c);
	}
	uint32_t idx = comp_node_for(c, child, w->doc, w->base, where.data, w->depth + 1);
	buf_release(&where);
	return idx == SN_NONE ? -1 : 0;
}

/* Registers $id, $anchor and $dynamicAnchor of object schema j (node idx)
 * and stores the base URI its keywords resolve against. */
static int walk_ids(struct compiler *c, uint32_t idx, json_t *j, int doc, const char *base)
{
	enum schema_draft draft = c->docs[doc].draft;
	json_t *id = json_object_get(j, "$id");
	/* draft-07 ignores every sibling of $ref, $id included */
	bool ref07 = draft == SCHEMA_DRAFT_07 && json_object_get(j, "$ref");
	if (json_is_string(id) && !ref07) {
		char *abs = uri_resolve(base, json_string_value(id)), *frag;
		if (!abs)
			return comp_nomem(c);
		uri_split_fragment(abs, &frag);
		int rc = 0;
		if (frag && *frag && draft != SCHEMA_DRAFT_07)
			rc = comp_fail(
			        c, idx, "$id",
			        "'$id' must not have a fragment in 2020-12; use $anchor for '#%s'",
			        frag);
		if (rc == 0 && json_string_value(id)[0] != '#') {
			rc = entry_add(c, idx, abs, j, doc, abs, "$id");
			if (rc == 0) {
				free(c->pend[idx].base);
				c->pend[idx].base = strdup(abs);
				if (!c->pend[idx].base)
					rc = comp_nomem(c);
			}
		}
		if (rc == 0 && frag && *frag) { /* draft-07 plain-name fragment */
			struct buf a = BUF_INIT;
			rc = buf_printf(&a, "%s#%s", c->pend[idx].base, frag) ?
			        comp_nomem(c) :
			        entry_add(c, idx, a.data, j, doc, c->pend[idx].base, "$id");
			buf_release(&a);
		}
		free(abs);
		if (rc)
			return rc;
	}
	if (draft != SCHEMA_DRAFT_2020_12)
		return 0;
	static const char *const anchors[] = { "$anchor", "$dynamicAnchor" };
	for (size_t i = 0; i < 2; i++) {
		json_t *a = json_object_get(j, anchors[i]);
		if (!json_is_string(a))
			continue;
		struct buf u = BUF_INIT;
		int rc = buf_printf(&u, "%s#%s", c->pend[idx].base, json_string_value(a)) ?
		        comp_nomem(c) :
		        entry_add(c, idx, u.data, j, doc, c->pend[idx].base, anchors[i]);
		buf_release(&u);
		if (rc)
			return rc;
	}
	return 0;
}

uint32_t comp_node_for(struct compiler *c, json_t *j, int doc, const char *base, const char *where,
                       unsigned depth)
{
	uint32_t idx = map_get(c, j);
	if (idx != SN_NONE)
		return idx;
	if (depth > SCHEMA_MAX_SCHEMA_DEPTH) {
		tc_error_set(c->err, TC_E_INVALID, where, "schema nesting is deeper than %d levels",
		             SCHEMA_MAX_SCHEMA_DEPTH);
		return SN_NONE;
	}
	idx = node_new(c, j, doc, base, where, depth);
	if (idx == SN_NONE || !json_is_object(j))
		return idx;
	if (walk_ids(c, idx, j, doc, base) < 0)
		return SN_NONE;
	/* the walk context must not hold pointers into c->pend: it moves */
	char *nbase = strdup(c->pend[idx].base), *nwhere = strdup(where);
	int rc = -1;
	if (nbase && nwhere) {
		struct walk_ctx w = { doc, nbase, nwhere, depth, idx };
		rc = comp_each_child(c, j, c->docs[doc].draft, walk_child, &w);
	} else {
		comp_nomem(c);
	}
	free(nbase);
	free(nwhere);
	return rc < 0 ? SN_NONE : idx;
}

/* ---- documents --------------------------------------------------------- */

static int doc_add(struct compiler *c, json_t *root, enum schema_draft draft, bool meta)
{
	struct schema *s = c->s;
	if (c->ndocs == c->capdocs) {
		size_t ncap = c->capdocs ? c->capdocs * 2 : 4;
		struct cdoc *nd = realloc(c->docs, ncap * sizeof *nd);
		if (nd)
			c->docs = nd;
		json_t **nj = nd ? realloc(s->docs, ncap * sizeof *nj) : NULL;
		if (!nj)
			return comp_nomem(c);
		s->docs = nj;
		c->capdocs = ncap;
	}
	s->docs[s->ndocs++] = json_incref(root);
	c->docs[c->ndocs] = (struct cdoc){ root, draft, meta };
	return (int)c->ndocs++;
}

/* Loads the built-in metaschema called file and walks it. */
static int load_meta(struct compiler *c, const char *file, uint32_t from)
{
	const struct embedded_file *f = embedded_find(embedded_metaschemas, file);
	if (!f)
		return comp_fail(c, from, NULL,
		                 "built-in metaschema '%s' is missing from this build", file);
	json_error_t jerr;
	json_t *root = json_loadb(f->data, f->size, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return comp_fail(c, from, NULL, "built-in metaschema '%s' does not parse: %s", file,
		                 jerr.text);
	json_t *sch = json_object_get(root, "$schema"), *id = json_object_get(root, "$id");
	enum schema_draft d = json_is_string(sch) ? schema_draft_of_uri(json_string_value(sch)) : 0;
	int doc = d && json_is_string(id) ? doc_add(c, root, d, true) : -1;
	json_decref(root); /* the schema holds it now (or nobody does) */
	if (doc < 0)
		return c->err && c->err->code ?
		        -1 :
		        comp_fail(c, from, NULL, "built-in metaschema '%s' is malformed", file);
	char *base = strdup(json_string_value(id)), *frag;
	if (!base)
		return comp_nomem(c);
	uri_split_fragment(base, &frag);
	char where[300];
	snprintf(where, sizeof where, "%s#", base);
	uint32_t idx = comp_node_for(c, root, doc, base, where, 0);
	free(base);
	return idx == SN_NONE ? -1 : 0;
}

static struct centry *entry_lookup(struct compiler *c, const char *uri, uint32_t from)
{
	struct centry *e = entry_find(c, uri);
	if (!e) {
		const char *file = meta_file_for_uri(uri);
		if (file && load_meta(c, file, from) == 0)
			e = entry_find(c, uri);
	}
	return e;
}

uint32_t comp_resolve_ref(struct compiler *c, uint32_t idx, const char *ref, const char *kw)
{
	char *abs = uri_resolve(c->pend[idx].base, ref), *frag;
	if (!abs)
		return comp_nomem(c), SN_NONE;
	uri_split_fragment(abs, &frag);
	uint32_t out = SN_NONE;
	struct centry *e = entry_lookup(c, abs, idx);
	json_t *t = NULL;
	if (!e) {
		if (!c->err || !c->err->code)
			comp_fail(
			        c, idx, kw,
			        "cannot resolve %s '%s': only references inside this "
			        "document and to the built-in draft-07 and 2020-12 metaschemas are "
			        "supported (no remote or file references)",
			        kw, ref);
	} else if (!frag || !*frag) {
		t = e->target;
	} else if (frag[0] == '/') {
		if (json_pointer_lookup(e->target, frag, &t) < 0)
			comp_fail(c, idx, kw, "%s '%s' points at nothing in the document", kw, ref);
	} else {
		struct buf a = BUF_INIT;
		if (buf_printf(&a, "%s#%s", abs, frag) < 0) {
			comp_nomem(c);
		} else {
			struct centry *an = entry_find(c, a.data);
			if (an)
				t = an->target;
			else
				comp_fail(c, idx, kw, "%s '%s': no anchor '%s' in the document", kw,
				          ref, frag);
		}
		buf_release(&a);
	}
	if (t) {
		uint32_t base_node = map_get(c, e->target);
		struct buf where = BUF_INIT;
		if (buf_printf(&where, "%s%s",
		               base_node != SN_NONE ? c->s->nodes[base_node].where : "",
		               frag && frag[0] == '/' ? frag : "") < 0) {
			comp_nomem(c);
		} else {
			unsigned depth = base_node != SN_NONE ? c->pend[base_node].depth + 1 : 1;
			int doc = e->doc;
			char *base = strdup(e->base);
			if (base)
				out = comp_node_for(c, t, doc, base, where.data, depth);
			else
				comp_nomem(c);
			free(base);
		}
		buf_release(&where);
	}
	free(abs);
	return out;
}

uint32_t comp_meta_root_2020(struct compiler *c, uint32_t idx)
{
	return comp_resolve_ref(c, idx, "https://json-schema.org/draft/2020-12/schema",
	                        "$dynamicRef");
}

/* ---- cycles ------------------------------------------------------------- */

/* Depth-first search over in-place edges ($ref, allOf, not, if ...): a cycle
 * there would re-enter the same schema on the same instance forever, so it is
 * refused with its path. Iterative: a long $ref chain must not overflow the
 * C stack. */
static int check_cycles(struct compiler *c)
{
	struct schema *s = c->s;
	size_t n = s->nnodes;
	unsigned char *color = calloc(n, 1);
	struct frame {
		uint32_t node;
		uint32_t *edges;
		size_t nedges, pos;
	} *st = malloc(n * sizeof *st);
	int rc = 0;
	if (!color || !st) {
		rc = comp_nomem(c);
		goto out;
	}
	for (size_t start = 0; start < n && rc == 0; start++) {
		if (color[start])
			continue;
		size_t sp = 0;
		st[sp++] = (struct frame){ (uint32_t)start, NULL, 0, 0 };
		color[start] = 1;
		bool fresh = true;
		while (sp && rc == 0) {
			struct frame *f = &st[sp - 1];
			if (fresh) {
				f->nedges = comp_inplace_edges(&s->nodes[f->node], NULL);
				f->edges = f->nedges ? malloc(f->nedges * sizeof *f->edges) : NULL;
				if (f->nedges && !f->edges) {
					rc = comp_nomem(c);
					break;
				}
				comp_inplace_edges(&s->nodes[f->node], f->edges);
				fresh = false;
			}
			if (f->pos == f->nedges) {
				color[f->node] = 2;
				free(f->edges);
				sp--;
				continue;
			}
			uint32_t to = f->edges[f->pos++];
			if (color[to] == 0) {
				color[to] = 1;
				st[sp++] = (struct frame){ to, NULL, 0, 0 };
				fresh = true;
			} else if (color[to] == 1) {
				struct buf path = BUF_INIT;
				size_t k = sp;
				while (k > 0 && st[k - 1].node != to)
					k--;
				for (size_t i = k - 1; i < sp; i++)
					buf_printf(&path, "%s -> ",
					           s->nodes[st[i].node].where[0] ?
					                   s->nodes[st[i].node].where :
					                   "/");
				buf_adds(&path, s->nodes[to].where[0] ? s->nodes[to].where : "/");
				tc_error_set(
				        c->err, TC_E_INVALID, s->nodes[to].where,
				        "$ref cycle that never consumes the instance (it would loop forever): %s",
				        path.data ? path.data : "");
				buf_release(&path);
				rc = -1;
			}
		}
		while (sp)
			free(st[--sp].edges);
	}
out:
	free(color);
	free(st);
	return rc;
}

/* Marks nodes reachable by two or more edges. Every other node has one
 * parent, so it is evaluated at most as often as that parent; memoizing
 * the shared ones (per instance value) bounds the whole evaluation to one
 * pass per (node, instance value), where a DAG of nested anyOf over shared
 * $defs would otherwise double at every level. */
static int mark_shared(struct compiler *c)
{
	struct schema *s = c->s;
	uint32_t *indeg = calloc(s->nnodes, sizeof *indeg), *tmp = NULL;
	size_t tmpcap = 0;
	int rc = indeg ? 0 : comp_nomem(c);
	for (size_t i = 0; i < s->nnodes && rc == 0; i++) {
		size_t n = comp_all_edges(&s->nodes[i], NULL);
		if (n > tmpcap) {
			uint32_t *t = realloc(tmp, n * sizeof *t);
			if (!t) {
				rc = comp_nomem(c);
				break;
			}
			tmp = t;
			tmpcap = n;
		}
		comp_all_edges(&s->nodes[i], tmp);
		for (size_t k = 0; k < n; k++)
			if (indeg[tmp[k]] < 2)
				indeg[tmp[k]]++;
	}
	for (size_t i = 0; i < s->nnodes && rc == 0; i++)
		s->nodes[i].shared = indeg[i] >= 2 && s->nodes[i].kind == SN_OBJECT;
	free(indeg);
	free(tmp);
	return rc;
}

/* ---- the whole compile ------------------------------------------------- */

void schema_free_nodes(struct schema *s)
{
	for (size_t i = 0; i < s->nnodes; i++) {
		struct snode *n = &s->nodes[i];
		free(n->where);
		pcre2_code_free(n->pattern.code);
		sre_free(n->pattern.fast);
		free(n->prefix.v);
		free(n->props);
		for (size_t k = 0; k < n->npats; k++) {
			pcre2_code_free(n->pats[k].re.code);
			sre_free(n->pats[k].re.fast);
		}
		comp_free_plan(n);
		free(n->pats);
		free(n->required);
		free(n->enum_strs);
		for (size_t k = 0; k < n->ndeps; k++)
			free(n->deps[k].req);
		free(n->deps);
		free(n->all_of.v);
		free(n->any_of.v);
		free(n->one_of.v);
	}
	free(s->nodes);
	s->nodes = NULL;
	s->nnodes = 0;
}

static void compiler_release(struct compiler *c)
{
	for (size_t i = 0; i < c->nents; i++) {
		free(c->ents[i].uri);
		free(c->ents[i].base);
	}
	free(c->ents);
	for (size_t i = 0; i < c->s->nnodes && c->pend; i++)
		free(c->pend[i].base);
	free(c->pend);
	free(c->map);
	free(c->docs);
}

static enum schema_draft pick_draft(json_t *doc, const struct schema_copts *o, struct tc_error *err)
{
	if (o->draft != SCHEMA_DRAFT_AUTO)
		return o->draft;
	json_t *sch = json_is_object(doc) ? json_object_get(doc, "$schema") : NULL;
	if (!sch)
		return SCHEMA_DRAFT_2020_12;
	if (!json_is_string(sch)) {
		tc_error_set(err, TC_E_INVALID, "/$schema", "'$schema' must be a string");
		return 0;
	}
	enum schema_draft d = schema_draft_of_uri(json_string_value(sch));
	if (!d)
		tc_error_set(err, TC_E_INVALID, "/$schema",
		             "unsupported $schema '%.200s': toolcage validates draft-07 "
		             "(http://json-schema.org/draft-07/schema#) and 2020-12 "
		             "(https://json-schema.org/draft/2020-12/schema)",
		             json_string_value(sch));
	return d;
}

struct schema *schema_build(json_t *doc, const struct schema_copts *o, struct tc_error *err)
{
	struct tc_error local;
	if (!err)
		err = &local;
	err->code = TC_E_OK;
	if (!json_is_object(doc) && !json_is_boolean(doc)) {
		tc_error_set(err, TC_E_INVALID, "", "a schema must be a JSON object or a boolean");
		return NULL;
	}
	enum schema_draft draft = pick_draft(doc, o, err);
	if (!draft)
		return NULL;
	struct schema *s = calloc(1, sizeof *s);
	struct compiler c = { .s = s, .o = o, .err = err };
	if (!s) {
		tc_error_set(err, TC_E_NOMEM, "", "out of memory compiling the schema");
		return NULL;
	}
	s->draft = draft;
	s->doc = json_incref(doc);
	s->max_depth = SCHEMA_MAX_INSTANCE_DEPTH;
	int d = doc_add(&c, doc, draft, o->skip_meta);
	if (d < 0 || entry_add(&c, SN_NONE, ROOT_BASE, doc, d, ROOT_BASE, NULL) < 0)
		goto fail;
	s->root = comp_node_for(&c, doc, d, ROOT_BASE, "", 0);
	if (s->root == SN_NONE)
		goto fail;
	/* nodes appended while compiling ($ref targets, metaschemas) are
	 * compiled by this same loop */
	for (size_t i = 0; i < s->nnodes; i++)
		if (comp_keywords(&c, (uint32_t)i) < 0)
			goto fail;
	if (check_cycles(&c) < 0 || mark_shared(&c) < 0)
		goto fail;
	for (size_t i = 0; i < s->nnodes; i++)
		if (comp_finish_node(&c, (uint32_t)i) < 0)
			goto fail;
	s->mctx = pcre2_match_context_create(NULL);
	if (!s->mctx) {
		comp_nomem(&c);
		goto fail;
	}
	pcre2_set_match_limit(s->mctx, SCHEMA_REGEX_MATCH_LIMIT);
	pcre2_set_depth_limit(s->mctx, SCHEMA_REGEX_DEPTH_LIMIT);
	pcre2_set_heap_limit(s->mctx, SCHEMA_REGEX_HEAP_LIMIT_KIB);
	compiler_release(&c);
	return s;
fail:
	if (err->code == TC_E_OK)
		tc_error_set(err, TC_E_NOMEM, "", "out of memory compiling the schema");
	compiler_release(&c);
	schema_free_nodes(s);
	for (size_t i = 0; i < s->ndocs; i++)
		json_decref(s->docs[i]);
	free(s->docs);
	json_decref(s->doc);
	free(s);
	return NULL;
}
