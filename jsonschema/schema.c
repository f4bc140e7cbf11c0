/* schema.c — the public face of the JSON Schema validator (schema.h):
 * compile = our own compile (keywords, refusals, $ref graph) followed by a
 * check of the document against its draft's built-in metaschema; validate;
 * diagnostics as text. The work is in schema_compile.c, schema_keywords.c
 * and schema_validate.c. */
#include <stdlib.h>
#include <string.h>

#include "schema_internal.h"

/* A schema document is one JSON level deeper per subschema level or two
 * (properties/x), so the metaschema check allows more instance depth than
 * tool arguments get. */
#define META_INSTANCE_DEPTH (3 * SCHEMA_MAX_SCHEMA_DEPTH)

/* Validates doc against the metaschema of draft. 0 or -1 with err set,
 * naming the first violation's location in the schema. */
static int meta_check(json_t *doc, enum schema_draft draft, struct tc_error *err)
{
	const char *file = draft == SCHEMA_DRAFT_07 ? "draft-07" : "2020-12";
	const struct embedded_file *f = embedded_find(embedded_metaschemas, file);
	if (!f)
		return tc_error_set(err, TC_E_INVALID, "",
		                    "built-in metaschema '%s' is missing from this build", file);
	json_error_t jerr;
	json_t *meta_doc = json_loadb(f->data, f->size, JSON_REJECT_DUPLICATES, &jerr);
	if (!meta_doc)
		return tc_error_set(err, TC_E_INVALID, "",
		                    "built-in metaschema '%s' does not parse: %s", file, jerr.text);
	struct schema_copts co = { SCHEMA_DRAFT_AUTO, false, true };
	struct tc_error merr = { 0 };
	struct schema *meta = schema_build(meta_doc, &co, &merr);
	json_decref(meta_doc);
	if (!meta)
		return tc_error_set(err, TC_E_INVALID, merr.where,
		                    "built-in metaschema '%s' does not compile: %s", file,
		                    merr.msg);
	meta->max_depth = META_INSTANCE_DEPTH;
	struct schema_result res;
	int rc = schema_eval(meta, doc, &res, 4);
	schema_free(meta);
	if (rc == 1)
		return 0;
	char *text = schema_result_text(&res);
	tc_error_set(err, TC_E_INVALID, res.count ? res.diags[0].pointer : "",
	             "not a valid %s schema (checked against its metaschema): %s",
	             draft == SCHEMA_DRAFT_07 ? "draft-07" : "2020-12",
	             text ? text : "out of memory");
	free(text);
	schema_result_release(&res);
	return -1;
}

struct schema *schema_compile_opts(json_t *doc, const struct schema_options *opts,
                                   struct tc_error *err)
{
	struct schema_options def = { SCHEMA_DRAFT_AUTO, false };
	if (!opts)
		opts = &def;
	if (!doc) {
		tc_error_set(err, TC_E_INVALID, "", "no schema document");
		return NULL;
	}
	if (opts->draft != SCHEMA_DRAFT_AUTO && opts->draft != SCHEMA_DRAFT_07 &&
	    opts->draft != SCHEMA_DRAFT_2020_12) {
		tc_error_set(err, TC_E_INVALID, "", "unknown draft %d (use 7 or 2020)",
		             (int)opts->draft);
		return NULL;
	}
	struct schema_copts co = { opts->draft, opts->assert_format, false };
	struct schema *s = schema_build(doc, &co, err);
	if (s && meta_check(doc, s->draft, err) < 0) {
		schema_free(s);
		return NULL;
	}
	return s;
}

struct schema *schema_compile(json_t *doc, enum schema_draft draft, struct tc_error *err)
{
	struct schema_options o = { draft, false };
	return schema_compile_opts(doc, &o, err);
}

void schema_free(struct schema *s)
{
	if (!s)
		return;
	schema_free_nodes(s);
	for (size_t i = 0; i < s->ndocs; i++)
		json_decref(s->docs[i]);
	free(s->docs);
	json_decref(s->doc);
	pcre2_match_context_free(s->mctx);
	free(s);
}

json_t *schema_document(const struct schema *s)
{
	return s->doc;
}

enum schema_draft schema_draft_of(const struct schema *s)
{
	return s->draft;
}

int schema_validate(const struct schema *s, const json_t *instance, struct schema_result *res,
                    size_t max_diags)
{
	if (res)
		memset(res, 0, sizeof *res);
	if (!s || !instance)
		return -1;
	return schema_eval(s, instance, res, max_diags);
}

void schema_result_release(struct schema_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->count; i++) {
		free(res->diags[i].pointer);
		free(res->diags[i].message);
	}
	free(res->diags);
	res->diags = NULL;
	res->count = res->dropped = 0;
}

/* Control characters (from hostile keys) are escaped so the text stays on
 * one line. */
static int add_clean(struct buf *b, const char *s)
{
	int rc = 0;
	for (; *s && rc == 0; s++) {
		unsigned char c = (unsigned char)*s;
		rc = c < 0x20 || c == 0x7f ? buf_printf(b, "\\u%04x", c) : buf_add(b, s, 1);
	}
	return rc;
}

char *schema_result_text(const struct schema_result *res)
{
	struct buf b = BUF_INIT;
	int rc = buf_add(&b, "", 0);
	for (size_t i = 0; res && i < res->count && rc == 0; i++) {
		const struct schema_diag *d = &res->diags[i];
		rc |= buf_adds(&b, i ? "; " : "");
		rc |= add_clean(&b, d->pointer[0] ? d->pointer : "/");
		rc |= buf_adds(&b, ": ");
		rc |= add_clean(&b, d->message);
	}
	if (rc == 0 && res && res->dropped)
		rc = buf_printf(&b, "; (%zu more)", res->dropped);
	if (rc) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}
