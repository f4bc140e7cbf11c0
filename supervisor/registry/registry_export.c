/* registry_export.c — the tool list as models and hosts want it: MCP tool
 * objects, OpenAI function tools, or readable text. Every export is a deep
 * copy, so a caller that edits what it got cannot change a registered
 * tool's schema. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "shown.h"
#include "utf8.h"
#include "util.h"

int tc_export_format_parse(const char *name, enum tc_export_format *out)
{
	static const char *const names[] = { "mcp", "openai", "text" };
	for (unsigned i = 0; name && i < 3; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum tc_export_format)i;
			return 0;
		}
	return -1;
}

/* All four hints always spelled out: MCP's defaults for absent hints
 * (destructive true, openWorld true) are the opposite of most tools, so a
 * missing key would tell the host the wrong thing. */
static json_t *annotations(const struct tc_defined *t)
{
	bool ro = t->risk == TC_RISK_READ_ONLY;
	bool idem = ro || t->idempotent;
	return json_pack("{s:b,s:b,s:b,s:b}", "readOnlyHint", ro, "destructiveHint",
	                 t->risk == TC_RISK_DESTRUCTIVE, "idempotentHint", idem, "openWorldHint",
	                 t->risk == TC_RISK_NETWORK);
}

static json_t *export_mcp(const struct tc_defined *t)
{
	json_t *o = json_pack("{s:s,s:s,s:o,s:o}", "name", t->name, "description", t->description,
	                      "inputSchema", json_deep_copy(t->parameters), "annotations",
	                      annotations(t));
	if (!o)
		return NULL;
	if ((t->title && json_object_set_new(o, "title", json_string(t->title))) ||
	    (t->output_schema &&
	     json_object_set_new(o, "outputSchema", json_deep_copy(t->output_schema)))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *export_openai(const struct tc_defined *t)
{
	return json_pack("{s:s,s:{s:s,s:s,s:o}}", "type", "function", "function", "name", t->name,
	                 "description", t->description, "parameters",
	                 json_deep_copy(t->parameters));
}

static const char *type_text(json_t *prop)
{
	json_t *ty = json_object_get(prop, "type");
	if (json_is_string(ty))
		return json_string_value(ty);
	if (json_object_get(prop, "enum"))
		return "enum";
	return "any";
}

/* A description as the text shows it: at most REG_DESC_MAX characters,
 * the bound a tool's own is held to when it is defined; a longer one (a
 * parameter's, in a schema no such rule bounds) is cut between characters
 * and says how many it left out, as hosts cut. New, or NULL (no memory). */
static char *desc_text(const char *d)
{
	size_t len = strlen(d), chars = 0, i = 0;
	while (i < len && chars < REG_DESC_MAX) {
		i++;
		while (i < len && ((unsigned char)d[i] & 0xc0) == 0x80)
			i++;
		chars++;
	}
	if (i == len)
		return strdup(d);
	char *s = NULL;
	return asprintf(&s, "%.*s... [%zu more characters]", (int)i, d,
	                utf8_count(d + i, len - i)) < 0 ?
	        NULL :
	        s;
}

/* Read on a terminal: a manifest's words (its title, its descriptions, a
 * parameter's name) are shown, so that they cannot end a line, move the
 * cursor or turn the text around. */
static int text_one(struct buf *b, const struct tc_defined *t)
{
	char *desc = desc_text(t->description);
	int rc = desc ? shown_bprintf(b, "%s [%s]%s%s\n  %s\n", t->name, tc_risk_name(t->risk),
	                              t->title ? " " : "", t->title ? t->title : "", desc) :
	                -1;
	free(desc);
	json_t *props = json_object_get(t->parameters, "properties");
	json_t *req = json_object_get(t->parameters, "required");
	const char *key;
	json_t *p;
	json_object_foreach(props, key, p)
	{
		bool required = false;
		size_t i;
		json_t *r;
		json_array_foreach(req, i, r) required |=
		        json_is_string(r) && !strcmp(json_string_value(r), key);
		json_t *d = json_object_get(p, "description");
		char *pd = json_is_string(d) ? desc_text(json_string_value(d)) : NULL;
		rc |= json_is_string(d) && !pd ?
		        -1 :
		        shown_bprintf(b, "  - %s (%s%s)%s%s\n", key, type_text(p),
		                      required ? ", required" : "", pd ? ": " : "", pd ? pd : "");
		free(pd);
	}
	return rc;
}

json_t *tc_defined_export(const struct tc_defined *t, enum tc_export_format format)
{
	switch (format) {
	case TC_EXPORT_MCP: return export_mcp(t);
	case TC_EXPORT_OPENAI: return export_openai(t);
	case TC_EXPORT_TEXT: {
		struct buf b = BUF_INIT;
		if (text_one(&b, t)) {
			buf_release(&b);
			return NULL;
		}
		json_t *s = json_stringn(b.data, b.len);
		buf_release(&b);
		return s;
	}
	}
	return NULL;
}

json_t *tc_registry_export(const struct tc_registry *reg, enum tc_export_format format)
{
	size_t n = tc_registry_count(reg);
	if (format == TC_EXPORT_TEXT) {
		struct buf b = BUF_INIT;
		int rc = n ? 0 : buf_adds(&b, "(no tools)\n");
		for (size_t i = 0; i < n && !rc; i++)
			rc = (i ? buf_adds(&b, "\n") : 0) | text_one(&b, tc_registry_at(reg, i));
		json_t *s = rc ? NULL : json_stringn(b.data ? b.data : "", b.len);
		buf_release(&b);
		return s;
	}
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < n; i++)
		if (json_array_append_new(arr, tc_defined_export(tc_registry_at(reg, i), format))) {
			json_decref(arr);
			return NULL;
		}
	return arr;
}
