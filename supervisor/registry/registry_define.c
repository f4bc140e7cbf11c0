/* registry_define.c — the define step: every registration check on a tool,
 * done once at load time so a bad tool never reaches a model, and the
 * reference counting of defined tools. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsonptr.h"
#include "registry.h"
#include "utf8.h"
#include "util.h"

bool reg_name_ok(const char *name)
{
	if (!name || name[0] < 'a' || name[0] > 'z')
		return false;
	size_t i = 1;
	for (; name[i]; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return i <= REG_NAME_MAX;
}

/* True when the description says nothing but the name ("read_file",
 * "Read file."): letters and digits compared, case and separators ignored. */
static bool desc_is_just_name(const char *desc, const char *name)
{
	const char *d = desc, *n = name;
	for (;;) {
		while (*d && !isalnum((unsigned char)*d))
			d++;
		while (*n && !isalnum((unsigned char)*n))
			n++;
		if (!*d || !*n)
			return !*d && !*n;
		if (tolower((unsigned char)*d) != tolower((unsigned char)*n))
			return false;
		d++, n++;
	}
}

static bool profile_name_ok(const char *p)
{
	size_t i = 0;
	for (; p[i]; i++) {
		char c = p[i];
		/* A name, never a path: the profile directory is the config's. */
		if (!isalnum((unsigned char)c) && c != '-' && c != '_')
			return false;
	}
	return i > 0 && i <= REG_PROFILE_MAX;
}

void tc_defined_unref(struct tc_defined *t)
{
	if (!t || --t->refs > 0)
		return;
	free(t->name);
	free(t->title);
	free(t->description);
	free(t->profile);
	free(t->url_arg);
	for (size_t i = 0; t->path_args && t->path_args[i]; i++)
		free(t->path_args[i]);
	free(t->path_args);
	free(t->command_arg);
	free(t->patch_arg);
	json_decref(t->parameters);
	schema_free(t->schema);
	json_decref(t->output_schema);
	schema_free(t->output);
	for (size_t i = 0; i < t->ncommand; i++)
		free(t->command[i]);
	free(t->command);
	free(t->stdin_template);
	free(t->source);
	free(t);
}

struct tc_defined *tc_defined_ref(struct tc_defined *t)
{
	if (t)
		t->refs++;
	return t;
}

const char *tc_defined_name(const struct tc_defined *t)
{
	return t->name;
}

const char *tc_defined_description(const struct tc_defined *t)
{
	return t->description;
}

enum tc_risk tc_defined_risk(const struct tc_defined *t)
{
	return t->risk;
}

static int check_text_fields(const struct tc_tool *t, const char *where, struct tc_error *err)
{
	const char *nm = t->name;
	if (!t->description)
		return tc_error_set(
		        err, TC_E_INVALID, where,
		        "tool '%s': no description; the model needs one to know when to call it",
		        nm);
	size_t dlen = utf8_count_valid(t->description, strlen(t->description));
	if (dlen == (size_t)-1)
		return tc_error_set(err, TC_E_INVALID, where,
		                    "tool '%s': description is not valid UTF-8", nm);
	if (dlen < REG_DESC_MIN)
		return tc_error_set(
		        err, TC_E_INVALID, where,
		        "tool '%s': description has %zu characters, at least %d are needed to tell a model what it does",
		        nm, dlen, REG_DESC_MIN);
	if (dlen > REG_DESC_MAX)
		return tc_error_set(
		        err, TC_E_INVALID, where,
		        "tool '%s': description has %zu characters, at most %d (hosts cut longer ones)",
		        nm, dlen, REG_DESC_MAX);
	if (desc_is_just_name(t->description, nm))
		return tc_error_set(
		        err, TC_E_INVALID, where,
		        "tool '%s': description only repeats the name; say what the tool does and when to use it",
		        nm);
	if (t->title) {
		size_t tlen = utf8_count_valid(t->title, strlen(t->title));
		if (tlen == (size_t)-1 || tlen == 0 || tlen > REG_TITLE_MAX)
			return tc_error_set(
			        err, TC_E_INVALID, where,
			        "tool '%s': title must be 1..%d characters of valid UTF-8", nm,
			        REG_TITLE_MAX);
	}
	if (t->profile && !profile_name_ok(t->profile))
		return tc_error_set(
		        err, TC_E_INVALID, where,
		        "tool '%s': profile '%s' is not a profile name (letters, digits, '-', '_'; at most %d)",
		        nm, t->profile, REG_PROFILE_MAX);
	if ((unsigned)t->risk > TC_RISK_DESTRUCTIVE)
		return tc_error_set(err, TC_E_INVALID, where,
		                    "tool '%s': risk %d is not a risk level", nm, (int)t->risk);
	return 0;
}

/* Parses (or copies) one schema, compiles it and checks its root is an
 * object schema. what is "parameters" or "output_schema". */
static int load_schema(const char *nm, const char *what, const char *text, json_t *given,
                       enum schema_draft draft, const char *where, json_t **doc_out,
                       struct schema **out, struct tc_error *err)
{
	json_t *doc;
	if (given) {
		doc = json_deep_copy(given);
		if (!doc)
			return tc_error_set(err, TC_E_NOMEM, where, "tool '%s': out of memory", nm);
	} else {
		json_error_t je;
		doc = json_loads(text, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
		if (!doc)
			return tc_error_set(err, TC_E_INVALID, where,
			                    "tool '%s': %s is not JSON: line %d column %d: %s", nm,
			                    what, je.line, je.column, je.text);
	}
	json_t *type = json_is_object(doc) ? json_object_get(doc, "type") : NULL;
	if (!json_is_string(type) || strcmp(json_string_value(type), "object")) {
		json_decref(doc);
		/* Models and hosts expect an object of named arguments. */
		return tc_error_set(
		        err, TC_E_INVALID, where,
		        "tool '%s': %s root must be an object schema with \"type\": \"object\"", nm,
		        what);
	}
	struct tc_error serr = { 0 };
	struct schema *s = schema_compile(doc, draft, &serr);
	if (!s) {
		json_decref(doc);
		return tc_error_set(err, serr.code ? serr.code : TC_E_INVALID, where,
		                    "tool '%s': %s refused at %s: %s", nm, what,
		                    serr.where[0] ? serr.where : "/", serr.msg);
	}
	*doc_out = doc;
	*out = s;
	return 0;
}

/* An argument pointer (url_arg, a path_args entry) must point into a
 * property the parameters declare. */
static int check_arg_ptr(const struct tc_defined *d, const char *key, const char *p,
                         const char *example, const char *where, struct tc_error *err)
{
	struct tc_error perr;
	if (p[0] != '/' || !p[1] || jsonptr_check(p, &perr) < 0)
		return tc_error_set(err, TC_E_INVALID, where,
		                    "tool '%s': %s '%s' must be a JSON "
		                    "pointer to an argument, e.g. \"%s\"",
		                    d->name, key, p, example);
	size_t n = strcspn(p + 1, "/");
	json_t *props = json_object_get(d->parameters, "properties");
	if (!json_is_object(props) || !json_object_getn(props, p + 1, n))
		return tc_error_set(err, TC_E_INVALID, where,
		                    "tool '%s': %s '%s' names no property of parameters", d->name,
		                    key, p);
	return 0;
}

static int copy_path_args(struct tc_defined *d, const char *const *src, const char *where,
                          struct tc_error *err)
{
	size_t n = 0;
	while (src && src[n])
		n++;
	if (n > REG_PATH_ARGS_MAX)
		return tc_error_set(err, TC_E_INVALID, where, "tool '%s': more than %d path_args",
		                    d->name, REG_PATH_ARGS_MAX);
	if (!(d->path_args = calloc(n + 1, sizeof *d->path_args)))
		return tc_error_set(err, TC_E_NOMEM, where, "tool '%s': out of memory", d->name);
	for (size_t i = 0; i < n; i++) {
		if (check_arg_ptr(d, "path_args entry", src[i], "/path", where, err) < 0)
			return -1;
		if (!(d->path_args[i] = strdup(src[i])))
			return tc_error_set(err, TC_E_NOMEM, where, "tool '%s': out of memory",
			                    d->name);
	}
	return 0;
}

static int copy_str(char **dst, const char *src)
{
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -1;
}

static int copy_command(struct tc_defined *d, const struct reg_define_opts *o)
{
	d->command = calloc(o->ncommand + 1, sizeof *d->command);
	if (!d->command)
		return -1;
	for (size_t i = 0; i < o->ncommand; i++) {
		if (!(d->command[i] = strdup(o->command[i])))
			return -1;
		d->ncommand = i + 1;
	}
	if (copy_str(&d->stdin_template, o->stdin_template) || copy_str(&d->source, o->source))
		return -1;
	d->output_mode = o->output_mode;
	d->channel = o->channel;
	d->patch_strip = o->patch_strip;
	return 0;
}

static int define_fill(struct tc_defined *d, const struct tc_tool *t,
                       const struct reg_define_opts *o, const char *where, struct tc_error *err)
{
	if (copy_str(&d->name, t->name) || copy_str(&d->title, t->title) ||
	    copy_str(&d->description, t->description) || copy_str(&d->profile, t->profile) ||
	    copy_str(&d->url_arg, t->url_arg) || copy_str(&d->command_arg, t->command_arg) ||
	    copy_str(&d->patch_arg, t->patch_arg))
		return tc_error_set(err, TC_E_NOMEM, where, "tool '%s': out of memory", t->name);
	d->risk = t->risk;
	d->idempotent = t->idempotent;
	d->timeout_ms = t->timeout_ms;
	d->execute = t->execute;
	d->precheck = t->execute ? t->precheck : NULL;
	d->self_contained = t->execute && t->self_contained;
	if (!t->parameters && !o->parameters)
		return tc_error_set(
		        err, TC_E_INVALID, where,
		        "tool '%s': no parameters schema; a tool without arguments uses {\"type\": \"object\"}",
		        t->name);
	if (load_schema(t->name, "parameters", t->parameters, o->parameters, o->draft, where,
	                &d->parameters, &d->schema, err))
		return -1;
	if ((t->output_schema || o->output_schema) &&
	    load_schema(t->name, "output_schema", t->output_schema, o->output_schema, o->draft,
	                where, &d->output_schema, &d->output, err))
		return -1;
	if (d->url_arg && check_arg_ptr(d, "url_arg", d->url_arg, "/url", where, err))
		return -1;
	if (copy_path_args(d, t->path_args, where, err) < 0)
		return -1;
	if (d->command_arg && check_arg_ptr(d, "command_arg", d->command_arg, "/argv", where, err))
		return -1;
	if (d->patch_arg && check_arg_ptr(d, "patch_arg", d->patch_arg, "/patch", where, err))
		return -1;
	if (o->command && copy_command(d, o))
		return tc_error_set(err, TC_E_NOMEM, where, "tool '%s': out of memory", t->name);
	return 0;
}

struct tc_defined *reg_define(const struct tc_tool *t, const struct reg_define_opts *opts,
                              struct tc_error *err)
{
	static const struct reg_define_opts none = { 0 };
	const struct reg_define_opts *o = opts ? opts : &none;
	if (!t) {
		tc_error_set(err, TC_E_INVALID, o->source, "no tool given");
		return NULL;
	}
	const char *where = o->source ? o->source : t->name ? t->name : "";
	if (!t->name) {
		tc_error_set(err, TC_E_INVALID, where, "a tool has no name");
		return NULL;
	}
	if (!reg_name_ok(t->name)) {
		tc_error_set(
		        err, TC_E_INVALID, where,
		        "tool '%.*s': name must match ^[a-z][a-z0-9_]*$ and have at most %d characters (snake_case, e.g. read_file)",
		        100, t->name, REG_NAME_MAX);
		return NULL;
	}
	if (check_text_fields(t, where, err))
		return NULL;
	if (o->command && t->execute) {
		tc_error_set(err, TC_E_INVALID, where,
		             "tool '%s': has both a C execute function and a command", t->name);
		return NULL;
	}
	if (!o->command && !t->execute) {
		tc_error_set(
		        err, TC_E_INVALID, where,
		        "tool '%s': nothing runs it: a builtin needs an execute function, a manifest a command",
		        t->name);
		return NULL;
	}
	if (o->command && o->ncommand == 0) {
		tc_error_set(err, TC_E_INVALID, where, "tool '%s': command is empty", t->name);
		return NULL;
	}
	struct tc_defined *d = calloc(1, sizeof *d);
	if (!d) {
		tc_error_set(err, TC_E_NOMEM, where, "tool '%s': out of memory", t->name);
		return NULL;
	}
	d->refs = 1;
	if (define_fill(d, t, o, where, err)) {
		tc_defined_unref(d);
		return NULL;
	}
	return d;
}

struct tc_defined *tc_tool_define(const struct tc_tool *t, struct tc_error *err)
{
	return reg_define(t, NULL, err);
}
