/* manifest.c — loading tool manifests (JSON files wrapping an external
 * command): strict keys, placeholder checks at load time, directories in
 * a stable order. Templating at call time is in manifest_expand.c. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "manifest.h"
#include "patchpaths.h"
#include "util.h"

#define MAX_TIMEOUT_MS 86400000u /* a day: anything larger is a unit mistake */

json_t *manifest_read_json(const char *path, size_t max, struct tc_error *err)
{
	struct buf b = BUF_INIT;
	json_t *doc = NULL;
	if (read_file_bounded(path, max, &b, err) == 0)
		doc = json_load_strict(b.data, b.len, path, err);
	buf_release(&b);
	/* Manifest messages carry their location (lint prints only msg). */
	if (!doc && err) {
		struct buf m = BUF_INIT;
		buf_printf(&m, "%s: %s", err->where, err->msg);
		snprintf(err->msg, sizeof err->msg, "%s", m.data ? m.data : "");
		buf_release(&m);
		snprintf(err->where, sizeof err->where, "%s", path);
	}
	return doc;
}

/* The keys a manifest may have, with the JSON type each must be. */
static const struct {
	const char *key;
	int type; /* json_type, or -1 for "string or array" (risk) */
} known_keys[] = {
	{ "name", JSON_STRING },          { "description", JSON_STRING },
	{ "parameters", JSON_OBJECT },    { "risk", -1 },
	{ "command", JSON_ARRAY },        { "stdin", JSON_STRING },
	{ "output", JSON_STRING },        { "profile", JSON_STRING },
	{ "timeout_ms", JSON_INTEGER },   { "title", JSON_STRING },
	{ "idempotent", JSON_TRUE },      { "url_arg", JSON_STRING },
	{ "output_schema", JSON_OBJECT }, { "path_args", JSON_ARRAY },
	{ "$comment", JSON_STRING },      { "channel", JSON_TRUE },
	{ "patch_arg", JSON_STRING },     { "patch_strip", JSON_INTEGER },
};
#define NKNOWN (sizeof known_keys / sizeof known_keys[0])

static const char *type_word(int type)
{
	switch (type) {
	case JSON_STRING: return "a string";
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_INTEGER: return "an integer";
	case JSON_TRUE: return "true or false";
	default: return "a string or an array of strings";
	}
}

static bool type_ok(json_t *v, int type)
{
	switch (type) {
	case JSON_TRUE: return json_is_boolean(v);
	case -1: return json_is_string(v) || json_is_array(v);
	default: return json_typeof(v) == (json_type)type;
	}
}

static int check_keys(json_t *doc, const char *path, struct tc_error *err)
{
	const char *key;
	json_t *v;
	json_object_foreach(doc, key, v)
	{
		size_t i = 0;
		while (i < NKNOWN && strcmp(known_keys[i].key, key))
			i++;
		if (i == NKNOWN) {
			const char *names[NKNOWN + 1];
			for (size_t k = 0; k < NKNOWN; k++)
				names[k] = known_keys[k].key;
			names[NKNOWN] = NULL;
			const char *near = near_name(key, names);
			return tc_error_set(
			        err, TC_E_INVALID, path,
			        "%s: unknown key '%s'%s%s%s (known: name, description, parameters, risk, "
			        "command, stdin, output, profile, timeout_ms, title, idempotent, url_arg, "
			        "path_args, output_schema, channel, patch_arg, patch_strip)",
			        path, key, near ? ": did you mean '" : "", near ? near : "",
			        near ? "'?" : "");
		}
		if (!type_ok(v, known_keys[i].type))
			return tc_error_set(err, TC_E_INVALID, path, "%s: '%s' must be %s, got %s",
			                    path, key, type_word(known_keys[i].type), json_kind(v));
	}
	return 0;
}

static int parse_risk(json_t *v, const char *path, enum tc_risk *out, struct tc_error *err)
{
	*out = TC_RISK_READ_ONLY;
	if (!v)
		return 0;
	if (json_is_array(v) && json_array_size(v) == 0)
		return tc_error_set(err, TC_E_INVALID, path, "%s: 'risk' is an empty list", path);
	size_t n = json_is_array(v) ? json_array_size(v) : 1;
	for (size_t i = 0; i < n; i++) {
		json_t *r = json_is_array(v) ? json_array_get(v, i) : v;
		enum tc_risk level;
		if (!json_is_string(r) || tc_risk_parse(json_string_value(r), &level))
			return tc_error_set(
			        err, TC_E_INVALID, path,
			        "%s: 'risk' has %s%s%s; levels are read-only, write, network, destructive",
			        path, json_is_string(r) ? "'" : "a non-string",
			        json_is_string(r) ? json_string_value(r) : "",
			        json_is_string(r) ? "'" : "");
		if (level > *out) /* a list means the highest */
			*out = level;
	}
	return 0;
}

/* Every placeholder in tpl must name a property of parameters: a typo
 * would otherwise silently drop an argument from the command. */
static int check_template(const char *tpl, const char *what, json_t *props, const char *path,
                          struct tc_error *err)
{
	const char *s = tpl;
	struct manifest_piece p;
	int r;
	while ((r = manifest_tpl_next(&s, &p)) > 0) {
		if (!p.name)
			continue;
		if (!json_object_getn(props, p.name, p.namelen))
			return tc_error_set(
			        err, TC_E_INVALID, path,
			        "%s: %s: placeholder {{%.*s}} has no matching property in parameters.properties",
			        path, what, (int)p.namelen, p.name);
	}
	if (r < 0)
		return tc_error_set(
		        err, TC_E_INVALID, path,
		        "%s: %s: malformed placeholder in \"%.200s\" (write {{name}}, name of letters, digits, '_')",
		        path, what, tpl);
	return 0;
}

static int check_command(json_t *cmd, json_t *props, const char *path, const char **argv,
                         struct tc_error *err)
{
	size_t n = json_array_size(cmd);
	if (n == 0 || n > MANIFEST_CMD_MAX)
		return tc_error_set(err, TC_E_INVALID, path,
		                    "%s: 'command' must have 1..%d elements", path,
		                    MANIFEST_CMD_MAX);
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(cmd, i);
		if (!json_is_string(e) || json_string_length(e) != strlen(json_string_value(e)))
			return tc_error_set(err, TC_E_INVALID, path,
			                    "%s: command[%zu] must be a string without NUL bytes",
			                    path, i);
		argv[i] = json_string_value(e);
		char what[32];
		snprintf(what, sizeof what, "command[%zu]", i);
		if (check_template(argv[i], what, props, path, err))
			return -1;
	}
	/* The program is the manifest author's choice, never the model's, and
	 * is found without PATH so the sandbox's environment cannot swap it. */
	if (argv[0][0] != '/' || strstr(argv[0], "{{"))
		return tc_error_set(
		        err, TC_E_INVALID, path,
		        "%s: command[0] must be a fixed absolute path (e.g. \"/usr/bin/grep\"), without placeholders",
		        path);
	return 0;
}

static int parse_output(json_t *v, const char *path, enum reg_output *out, struct tc_error *err)
{
	*out = REG_OUTPUT_TEXT;
	if (!v || !strcmp(json_string_value(v), "text"))
		return 0;
	if (!strcmp(json_string_value(v), "json")) {
		*out = REG_OUTPUT_JSON;
		return 0;
	}
	if (!strcmp(json_string_value(v), "content")) {
		*out = REG_OUTPUT_CONTENT;
		return 0;
	}
	return tc_error_set(err, TC_E_INVALID, path,
	                    "%s: 'output' must be \"text\", \"json\" or "
	                    "\"content\", not \"%.100s\"",
	                    path, json_string_value(v));
}

/* A shipped profile is named after the risk it confines: "profile":
 * "network" on a tool that says "read-only" would give it the network while
 * the gate, quarantine and the MCP hints treat it as read-only (no domain
 * allowlist, readOnlyHint true). Such a manifest is refused; a higher risk
 * with a narrower profile is fine. */
static int check_profile_risk(const char *profile, enum tc_risk risk, const char *path,
                              struct tc_error *err)
{
	enum tc_risk level;
	if (!profile || tc_risk_parse(profile, &level) || level <= risk)
		return 0;
	return tc_error_set(
	        err, TC_E_INVALID, path,
	        "%s: 'profile' \"%s\" is the sandbox of risk %s, above the tool's 'risk' (%s); "
	        "declare \"risk\": \"%s\" so that the policy treats the tool as what it can do",
	        path, profile, profile, tc_risk_name(risk), profile);
}

static const char *str_of(json_t *doc, const char *key)
{
	return json_string_value(json_object_get(doc, key));
}

static struct tc_defined *define_doc(json_t *doc, const char *path, enum schema_draft draft,
                                     struct tc_error *err)
{
	const char *argv[MANIFEST_CMD_MAX];
	struct tc_tool t = {
		.name = str_of(doc, "name"),
		.title = str_of(doc, "title"),
		.description = str_of(doc, "description"),
		.profile = str_of(doc, "profile"),
		.url_arg = str_of(doc, "url_arg"),
		.patch_arg = str_of(doc, "patch_arg"),
		.idempotent = json_is_true(json_object_get(doc, "idempotent")),
	};
	struct reg_define_opts o = {
		.draft = draft,
		.parameters = json_object_get(doc, "parameters"),
		.output_schema = json_object_get(doc, "output_schema"),
		.command = argv,
		.stdin_template = str_of(doc, "stdin"),
		.source = path,
		.patch_strip = PATCH_STRIP_ANY,
	};
	if (!t.name) {
		tc_error_set(err, TC_E_INVALID, path, "%s: 'name' is missing", path);
		return NULL;
	}
	/* The program's -p: the gate checks the paths it writes at that
	 * level, and at every level when it is not said. */
	json_t *strip = json_object_get(doc, "patch_strip");
	if (strip &&
	    (!t.patch_arg || json_integer_value(strip) < 0 ||
	     json_integer_value(strip) > PATCH_NAME_DEPTH_MAX)) {
		tc_error_set(err, TC_E_INVALID, path,
		             "%s: 'patch_strip' is the -p (0..%d) of the program that applies "
		             "'patch_arg', and needs it",
		             path, PATCH_NAME_DEPTH_MAX);
		return NULL;
	}
	if (strip)
		o.patch_strip = (int)json_integer_value(strip);
	json_t *pa = json_object_get(doc, "path_args");
	const char *path_args[REG_PATH_ARGS_MAX + 2] = { NULL };
	for (size_t i = 0; i < json_array_size(pa); i++) {
		if (i > REG_PATH_ARGS_MAX || !json_is_string(json_array_get(pa, i))) {
			tc_error_set(err, TC_E_INVALID, path,
			             "%s: 'path_args' must list at most %d "
			             "JSON pointers, e.g. [\"/file\"]",
			             path, REG_PATH_ARGS_MAX);
			return NULL;
		}
		path_args[i] = json_string_value(json_array_get(pa, i));
	}
	t.path_args = path_args;
	json_t *cmd = json_object_get(doc, "command");
	if (!cmd) {
		tc_error_set(err, TC_E_INVALID, path,
		             "%s: 'command' is missing; a manifest tool runs a command", path);
		return NULL;
	}
	json_t *timeout = json_object_get(doc, "timeout_ms");
	if (timeout &&
	    (json_integer_value(timeout) < 0 ||
	     json_integer_value(timeout) > (json_int_t)MAX_TIMEOUT_MS)) {
		tc_error_set(err, TC_E_INVALID, path, "%s: 'timeout_ms' must be 0..%u", path,
		             MAX_TIMEOUT_MS);
		return NULL;
	}
	t.timeout_ms = (uint32_t)json_integer_value(timeout);
	json_t *props = o.parameters ? json_object_get(o.parameters, "properties") : NULL;
	if (parse_risk(json_object_get(doc, "risk"), path, &t.risk, err) ||
	    check_profile_risk(t.profile, t.risk, path, err) ||
	    parse_output(json_object_get(doc, "output"), path, &o.output_mode, err) ||
	    check_command(cmd, props, path, argv, err) ||
	    (o.stdin_template && check_template(o.stdin_template, "stdin", props, path, err)))
		return NULL;
	/* Content blocks are not a value an output schema could describe
	 * (MCP's structuredContent): a tool says one or the other. */
	if (o.output_mode == REG_OUTPUT_CONTENT && o.output_schema) {
		tc_error_set(err, TC_E_INVALID, path,
		             "%s: 'output_schema' describes a JSON value; "
		             "a tool with \"output\": \"content\" returns content blocks: drop one",
		             path);
		return NULL;
	}
	/* A channel's answers come on stdin: there is no other input there. */
	o.channel = json_is_true(json_object_get(doc, "channel"));
	if (o.channel && o.stdin_template) {
		tc_error_set(err, TC_E_INVALID, path,
		             "%s: a tool with \"channel\": true reads "
		             "the answers to its questions on stdin; drop 'stdin' (pass the input "
		             "as arguments)",
		             path);
		return NULL;
	}
	o.ncommand = json_array_size(cmd);
	return reg_define(&t, &o, err);
}

struct tc_defined *manifest_load_file(const char *path, enum schema_draft draft,
                                      struct tc_error *err)
{
	json_t *doc = manifest_read_json(path, MANIFEST_FILE_MAX, err);
	if (!doc)
		return NULL;
	struct tc_defined *d = NULL;
	if (!json_is_object(doc))
		tc_error_set(err, TC_E_INVALID, path, "%s: a manifest is a JSON object", path);
	else if (!check_keys(doc, path, err))
		d = define_doc(doc, path, draft, err);
	json_decref(doc);
	return d;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_manifest_name(const char *n)
{
	size_t len = strlen(n);
	return n[0] != '.' && len > 5 && !strcmp(n + len - 5, ".json");
}

void manifest_paths_free(char **paths, size_t n)
{
	for (size_t i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

int manifest_list_dir(const char *dir, char ***paths, size_t *n, struct tc_error *err)
{
	*paths = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return tc_error_set(err, errno == ENOENT ? TC_E_NOT_FOUND : TC_E_SYSTEM, dir,
		                    "%s: cannot open directory: %s", dir, strerror(errno));
	char **v = calloc(MANIFEST_DIR_MAX, sizeof *v);
	size_t count = 0;
	int rc = v ? 0 : tc_error_set(err, TC_E_NOMEM, dir, "out of memory");
	struct dirent *e;
	while (!rc && (e = readdir(d))) {
		if (!is_manifest_name(e->d_name))
			continue;
		if (count == MANIFEST_DIR_MAX) {
			rc = tc_error_set(err, TC_E_INVALID, dir, "%s: more than %d manifests", dir,
			                  MANIFEST_DIR_MAX);
			break;
		}
		struct stat st;
		struct buf b = BUF_INIT;
		if (buf_printf(&b, "%s/%s", dir, e->d_name)) {
			rc = tc_error_set(err, TC_E_NOMEM, dir, "out of memory");
			break;
		}
		if (stat(b.data, &st) == 0 && S_ISREG(st.st_mode))
			v[count++] = buf_detach(&b);
		else
			buf_release(&b);
	}
	closedir(d);
	if (rc) {
		manifest_paths_free(v, count);
		return -1;
	}
	qsort(v, count, sizeof *v, cmp_str);
	*paths = v;
	*n = count;
	return 0;
}

int manifest_register(struct tc_registry *reg, const char *path, enum schema_draft draft,
                      struct tc_disposer *out, struct tc_error *err)
{
	struct stat st;
	if (out)
		*out = (struct tc_disposer){ 0 };
	if (stat(path, &st) < 0)
		return tc_error_set(err, errno == ENOENT ? TC_E_NOT_FOUND : TC_E_SYSTEM, path,
		                    "%s: %s", path, strerror(errno));
	char **paths = NULL;
	size_t n = 1;
	const char *one[1] = { path };
	if (S_ISDIR(st.st_mode) && manifest_list_dir(path, &paths, &n, err))
		return -1;
	struct tc_defined **defs = calloc(n ? n : 1, sizeof *defs);
	int rc = defs ? 0 : tc_error_set(err, TC_E_NOMEM, path, "out of memory");
	size_t got = 0;
	for (; !rc && got < n; got++)
		if (!(defs[got] = manifest_load_file(paths ? paths[got] : one[got], draft, err)))
			rc = -1;
	if (!rc) {
		rc = reg_add_group(reg, defs, n, path, out, err);
		got = 0; /* taken */
	}
	for (size_t i = 0; i < got; i++)
		tc_defined_unref(defs[i]);
	free(defs);
	manifest_paths_free(paths, paths ? n : 0);
	return rc;
}
