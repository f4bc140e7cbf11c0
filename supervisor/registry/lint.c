/* lint.c — the description checklist (docs/tools-api.md, "Lint") as rules over
 * defined tools. Every rule here is a heuristic and a warning: registration
 * errors are caught earlier, by the define step. Each message says what to
 * write instead, since the reader is fixing a description. */
#define _GNU_SOURCE /* strcasestr, vasprintf */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lint.h"
#include "tools.h"
#include "manifest.h"
#include "registry.h"
#include "util.h"

#define WALK_DEPTH_MAX 8 /* nested parameter objects looked into */

int lint_report_add(struct lint_report *r, enum lint_level level, const char *rule,
                    const char *subject, const char *fmt, ...)
{
	if (r->count == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct lint_finding *v = realloc(r->items, cap * sizeof *v);
		if (!v)
			return -1;
		r->items = v;
		r->cap = cap;
	}
	va_list ap;
	va_start(ap, fmt);
	char *msg = NULL;
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	char *subj = strdup(subject ? subject : "");
	if (n < 0 || !subj) {
		free(subj);
		if (n >= 0)
			free(msg);
		return -1;
	}
	r->items[r->count++] = (struct lint_finding){ level, rule, subj, msg };
	if (level == LINT_ERROR)
		r->errors++;
	else
		r->warnings++;
	return 0;
}

void lint_report_release(struct lint_report *r)
{
	for (size_t i = 0; i < r->count; i++) {
		free(r->items[i].subject);
		free(r->items[i].message);
	}
	free(r->items);
	*r = (struct lint_report)LINT_REPORT_INIT;
}

bool lint_report_has(const struct lint_report *r, const char *rule, const char *subject)
{
	for (size_t i = 0; i < r->count; i++)
		if (!strcmp(r->items[i].rule, rule) &&
		    (!subject || !strcmp(r->items[i].subject, subject)))
			return true;
	return false;
}

int lint_add_builtins(struct tc_registry *reg, struct tc_error *err)
{
	/* Each built-in plugin, as the supervisor loads it: lint sees exactly
	 * the names, descriptions and schemas a model would. The plugin stays
	 * until tc_registry_free (no disposer needed). */
	size_t before = tc_registry_count(reg);
	for (size_t i = 0; tc_builtin_plugins[i]; i++)
		if (tc_plugin_load(reg, tc_builtin_plugins[i], NULL, err) < 0)
			return -1;
	return (int)(tc_registry_count(reg) - before);
}

/* ---- text helpers ------------------------------------------------------ */

/* Imperative verbs a description may start with ("Read ...", also "Reads"). */
static const char *const verbs[] = {
	"add",       "analyze",   "append",  "apply",    "archive",  "ask",       "build",
	"calculate", "call",      "cancel",  "change",   "check",    "clone",     "close",
	"commit",    "compare",   "compile", "compress", "compute",  "convert",   "copy",
	"count",     "create",    "decode",  "delete",   "deploy",   "describe",  "detect",
	"diff",      "download",  "drop",    "edit",     "encode",   "evaluate",  "execute",
	"explain",   "export",    "extract", "fetch",    "fill",     "filter",    "find",
	"format",    "generate",  "get",     "grep",     "import",   "insert",    "inspect",
	"install",   "kill",      "launch",  "list",     "load",     "locate",    "lookup",
	"look",      "make",      "merge",   "modify",   "move",     "open",      "parse",
	"patch",     "ping",      "post",    "print",    "publish",  "pull",      "push",
	"query",     "read",      "record",  "remove",   "rename",   "render",    "replace",
	"report",    "request",   "reset",   "resolve",  "restart",  "restore",   "retrieve",
	"return",    "run",       "save",    "scan",     "schedule", "search",    "send",
	"set",       "show",      "sort",    "start",    "stat",     "stop",      "store",
	"submit",    "summarize", "sync",    "tail",     "test",     "transform", "translate",
	"truncate",  "update",    "upload",  "validate", "verify",   "view",      "wait",
	"watch",     "write",
};

static bool is_verb(const char *w, size_t n)
{
	for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
		size_t vl = strlen(verbs[i]);
		if (strncasecmp(w, verbs[i], vl))
			continue;
		/* the verb itself, or its third person: "Reads", "Searches" */
		if (n == vl || (n == vl + 1 && tolower((unsigned char)w[vl]) == 's') ||
		    (n == vl + 2 && !strncasecmp(w + vl, "es", 2)))
			return true;
	}
	return false;
}

static size_t count_words(const char *s)
{
	size_t n = 0;
	for (const char *p = s; *p;) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (*p)
			n++;
		while (*p && !isspace((unsigned char)*p))
			p++;
	}
	return n;
}

static bool contains_ci(const char *hay, const char *needle)
{
	return hay && strcasestr(hay, needle) != NULL;
}

static bool contains_any(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (contains_ci(s, *words))
			return true;
	return false;
}

/* ---- rules on the whole tool ------------------------------------------- */

static int rule_verb(const struct tc_defined *t, struct lint_report *r)
{
	const char *d = t->description;
	while (*d && !isalpha((unsigned char)*d))
		d++;
	size_t n = 0;
	while (isalpha((unsigned char)d[n]))
		n++;
	if (n && is_verb(d, n))
		return 0;
	return lint_report_add(
	        r, LINT_WARNING, LINT_R_VERB, t->name,
	        "description starts with \"%.*s\"; start with a verb that says what the tool does "
	        "(e.g. \"Read ...\", \"Search ...\", \"Delete ...\")",
	        (int)(n ? n : 10), n ? d : t->description);
}

static int rule_thin(const struct tc_defined *t, struct lint_report *r)
{
	size_t words = count_words(t->description);
	if (words >= 6)
		return 0;
	return lint_report_add(
	        r, LINT_WARNING, LINT_R_THIN, t->name,
	        "description has %zu words; from name and description alone a model must be able to tell "
	        "what the tool does, what it returns and when to use it",
	        words);
}

/* Shared name words of at least 3 letters ("read_file", "write_file":
 * "file"). Returns the first, or false. */
static bool names_share_word(const char *a, const char *b, char *word, size_t wsz)
{
	for (const char *p = a; *p;) {
		size_t n = strcspn(p, "_");
		for (const char *q = b; n >= 3 && *q;) {
			size_t m = strcspn(q, "_");
			if (m == n && !strncmp(p, q, n)) {
				snprintf(word, wsz, "%.*s", (int)n, p);
				return true;
			}
			q += m + (q[m] == '_');
		}
		p += n + (p[n] == '_');
	}
	return false;
}

/* Does the description draw a boundary? It names another registered tool,
 * or says what it is not for or what to use instead. */
static bool has_boundary(const struct tc_registry *reg, const struct tc_defined *t)
{
	static const char *const cues[] = {
		"not for",     "instead", "don't use",      "do not use", "only for",
		"rather than", "prefer ", "not to be used", "never use",  NULL,
	};
	if (contains_any(t->description, cues))
		return true;
	for (size_t i = 0; i < tc_registry_count(reg); i++) {
		const struct tc_defined *o = tc_registry_at(reg, i);
		if (o != t && strstr(t->description, o->name))
			return true;
	}
	return false;
}

static int rule_boundary(const struct tc_registry *reg, const struct lint_selector *sel,
                         const struct tc_defined *t, struct lint_report *r)
{
	if (!reg || has_boundary(reg, t))
		return 0;
	for (size_t i = 0; i < tc_registry_count(reg); i++) {
		const struct tc_defined *o = tc_registry_at(reg, i);
		if (o == t)
			continue;
		char word[REG_NAME_MAX + 1];
		char why[REG_NAME_MAX + 64];
		const char *pick;
		if (names_share_word(t->name, o->name, word, sizeof word))
			snprintf(why, sizeof why, "both names have '%s'", word);
		else if (sel && (pick = lint_selector_pick(sel, t->description)) &&
		         !strcmp(pick, o->name))
			snprintf(why, sizeof why, "its own description reads as a task for '%s'",
			         o->name);
		else
			continue;
		return lint_report_add(
		        r, LINT_WARNING, LINT_R_BOUNDARY, t->name,
		        "tool '%s' is near '%s' (%s); say when not to use it or what to use instead "
		        "(e.g. \"Not for ...; use %s to ...\")",
		        t->name, o->name, why, o->name);
	}
	return 0;
}

static int rule_url_arg(const struct tc_defined *t, struct lint_report *r)
{
	if (t->risk != TC_RISK_NETWORK || t->url_arg)
		return 0;
	return lint_report_add(
	        r, LINT_WARNING, LINT_R_URL_ARG, t->name,
	        "network tool without url_arg: the policy cannot check the host it reaches, so the "
	        "domain allowlist will deny its calls; set url_arg to the URL argument, e.g. \"/url\"");
}

/* A value starting with '-' in a whole-element placeholder reaches the
 * program as an option ("--output=/etc/x"): argument injection without a
 * shell. "--" ends option parsing for getopt-style programs. */
static int rule_option_injection(const struct tc_defined *t, struct lint_report *r)
{
	json_t *props = json_object_get(t->parameters, "properties");
	for (size_t i = 1; i < t->ncommand; i++) {
		const char *e = t->command[i];
		if (!strcmp(e, "--"))
			return 0;
		if (!manifest_tpl_is_whole(e))
			continue;
		json_t *p = json_object_getn(props, e + 2, strlen(e) - 4);
		const char *ty = json_string_value(json_object_get(p, "type"));
		if (json_object_get(p, "enum") || json_object_get(p, "const") ||
		    (ty &&
		     (!strcmp(ty, "boolean") || !strcmp(ty, "integer") || !strcmp(ty, "number"))))
			continue;
		if (lint_report_add(
		            r, LINT_WARNING, LINT_R_OPTION_INJECTION, t->name,
		            "command[%zu] %s comes before any \"--\": a value starting with '-' would be read as "
		            "an option; put \"--\" before positional arguments or join it to its option "
		            "(\"--option=%s\")",
		            i, e, e))
			return -1;
	}
	return 0;
}

/* ---- rules on each parameter ------------------------------------------- */

static const char *str_prop(json_t *p, const char *key)
{
	return json_string_value(json_object_get(p, key));
}

static bool is_string_typed(json_t *p)
{
	json_t *ty = json_object_get(p, "type");
	if (!ty)
		return true; /* untyped: anything, strings included */
	if (json_is_string(ty))
		return !strcmp(json_string_value(ty), "string");
	size_t i;
	json_t *v;
	json_array_foreach(ty, i, v) if (json_is_string(v) &&
	                                 !strcmp(json_string_value(v), "string")) return true;
	return false;
}

static bool wants_example(const char *name, const char *desc)
{
	static const char *const hints[] = {
		"path",  "file", "dir",  "folder", "url",   "uri",  "link",   "pattern",
		"regex", "glob", "date", "time",   "email", "host", "domain", NULL,
	};
	return contains_any(name, hints) || contains_any(desc, hints);
}

static bool has_example(json_t *p, const char *desc)
{
	static const char *const marks[] = {
		"e.g", "for example", "example", "such as", "like ", "\"", "'", "`", "/", NULL,
	};
	return json_object_get(p, "examples") || json_object_get(p, "enum") ||
	        json_object_get(p, "const") || json_object_get(p, "format") ||
	        contains_any(desc, marks);
}

/* "one of a, b", "either a or b", "a|b": fixed choices written as prose. */
static bool lists_choices(const char *desc)
{
	static const char *const cues[] = { "one of", "either ", NULL };
	if (!desc)
		return false;
	if (contains_any(desc, cues))
		return true;
	for (const char *bar = strchr(desc, '|'); bar; bar = strchr(bar + 1, '|'))
		if (bar > desc && isalnum((unsigned char)bar[-1]) && isalnum((unsigned char)bar[1]))
			return true;
	return false;
}

static bool in_required(json_t *schema, const char *key)
{
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(schema, "required"), i,
	                   v) if (json_is_string(v) &&
	                          !strcmp(json_string_value(v), key)) return true;
	return false;
}

struct walk {
	const struct tc_defined *t;
	struct lint_report *r;
};

static int check_property(struct walk *w, json_t *schema, const char *key, json_t *p,
                          const char *ptr)
{
	const char *nm = w->t->name;
	const char *desc = str_prop(p, "description");
	if (!desc || !desc[0])
		return lint_report_add(
		        w->r, LINT_WARNING, LINT_R_PARAM_DESC, nm,
		        "parameter %s has no description; write it as the stem of a fill-in question "
		        "(what goes here, in what format)",
		        ptr);
	if (is_string_typed(p) && wants_example(key, desc) && !has_example(p, desc) &&
	    lint_report_add(
	            w->r, LINT_WARNING, LINT_R_PARAM_EXAMPLE, nm,
	            "parameter %s looks like a path, URL, pattern or date but its description shows no "
	            "format example; add one (e.g. \"src/main.c\")",
	            ptr))
		return -1;
	/* A regex parameter's example ("ERROR|WARN") is not a list of choices. */
	static const char *const regexy[] = { "regex", "pattern", "regular expression", NULL };
	if (is_string_typed(p) && !json_object_get(p, "enum") && !json_object_get(p, "const") &&
	    !contains_any(key, regexy) && !contains_any(desc, regexy) && lists_choices(desc) &&
	    lint_report_add(
	            w->r, LINT_WARNING, LINT_R_ENUM, nm,
	            "parameter %s lists fixed choices in its description but has no enum; declare them as "
	            "\"enum\" so the model cannot invent others",
	            ptr))
		return -1;
	if (json_object_get(p, "default") && in_required(schema, key) &&
	    lint_report_add(
	            w->r, LINT_WARNING, LINT_R_REQUIRED_DEFAULT, nm,
	            "parameter %s is required but has a default; drop it from \"required\" so the model "
	            "may leave it out",
	            ptr))
		return -1;
	return 0;
}

static int walk_object(struct walk *w, json_t *schema, const char *ptr, int depth)
{
	if (!json_is_object(schema) || depth > WALK_DEPTH_MAX)
		return 0;
	const char *key;
	json_t *p;
	json_object_foreach(json_object_get(schema, "properties"), key, p)
	{
		if (!json_is_object(p))
			continue;
		char sub[512];
		snprintf(sub, sizeof sub, "%s/%s", ptr, key);
		if (check_property(w, schema, key, p, sub) || walk_object(w, p, sub, depth + 1) ||
		    walk_object(w, json_object_get(p, "items"), sub, depth + 1))
			return -1;
	}
	return 0;
}

static int lint_tool_with(const struct tc_registry *reg, const struct lint_selector *sel,
                          const struct tc_defined *t, struct lint_report *r)
{
	struct walk w = { t, r };
	if (rule_verb(t, r) || rule_thin(t, r) || rule_boundary(reg, sel, t, r) ||
	    rule_url_arg(t, r) || rule_option_injection(t, r) ||
	    walk_object(&w, t->parameters, "", 0))
		return -1;
	return 0;
}

int lint_tool(const struct tc_registry *reg, const struct tc_defined *t, struct lint_report *r)
{
	struct lint_selector *sel = reg ? lint_selector_new(reg) : NULL;
	int rc = lint_tool_with(reg, sel, t, r);
	lint_selector_free(sel);
	return rc;
}

int lint_registry(const struct tc_registry *reg, struct lint_report *r)
{
	struct lint_selector *sel = lint_selector_new(reg);
	int rc = 0;
	for (size_t i = 0; !rc && i < tc_registry_count(reg); i++)
		rc = lint_tool_with(reg, sel, tc_registry_at(reg, i), r);
	lint_selector_free(sel);
	return rc;
}
