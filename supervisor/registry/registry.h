/* registry.h — inside view of defined tools, for supervisor/ modules (the
 * pipeline, manifests, lint, MCP). The public API is in toolcage.h.
 *
 * Invariants of a struct tc_defined once tc_tool_define or reg_define
 * returned it: every field below is immutable until the last reference
 * goes; name and description are valid UTF-8 and passed the registration
 * checks; parameters is an object schema that compiled into schema;
 * exactly one of execute and command is set.
 */
#ifndef TC_REGISTRY_H
#define TC_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "schema.h"
#include "toolcage.h"

#define REG_NAME_MAX      64
#define REG_DESC_MIN      10   /* characters (code points) */
#define REG_DESC_MAX      2048 /* hosts cut longer ones */
#define REG_TITLE_MAX     256
#define REG_PROFILE_MAX   64
#define REG_PATH_ARGS_MAX 16

/* How a manifest tool's stdout becomes its result (docs/tools-api.md). */
enum reg_output {
	REG_OUTPUT_TEXT = 0, /* render = stdout; canonical = {exit_code, stdout, stderr} */
	REG_OUTPUT_JSON,     /* stdout must be JSON and becomes canonical */
	REG_OUTPUT_CONTENT,  /* stdout must be {"content": [MCP content blocks]} */
};

struct tc_defined {
	unsigned refs;
	char *name;
	char *title; /* NULL when not given */
	char *description;
	char *profile;         /* NULL = the profile named after risk */
	char *url_arg;         /* JSON pointer into the arguments, or NULL */
	char **path_args;      /* JSON pointers of path arguments, NULL-terminated
	                            * (never NULL itself) */
	json_t *parameters;    /* the input schema document (ours) */
	struct schema *schema; /* parameters compiled */
	json_t *output_schema; /* NULL when not given */
	struct schema *output; /* output_schema compiled, or NULL */
	enum tc_risk risk;
	bool idempotent;
	uint32_t timeout_ms;    /* 0 = the config's */
	tc_execute_fn execute;  /* builtins; NULL for manifest tools */
	tc_execute_fn precheck; /* builtins: run before an approval is asked, or NULL */
	bool self_contained;    /* builtins: see struct tc_tool */
	char *command_arg;      /* JSON pointer to an argv array argument, or NULL */
	char *patch_arg;        /* JSON pointer to a unified diff argument, or NULL */
	int patch_strip;        /* manifest tools: the -p of the program that applies
	                         * it, or PATCH_STRIP_ANY (patchpaths.h) */
	/* manifest tools only */
	char **command; /* argv template, NULL-terminated; NULL for builtins */
	size_t ncommand;
	char *stdin_template; /* NULL: the child's stdin is /dev/null */
	enum reg_output output_mode;
	bool channel; /* a manifest's channel (channel.h) */
	char *source; /* the manifest file, for messages; NULL for builtins */
};

/* What a manifest adds to a plain tc_tool. Everything is borrowed for the
 * call. parameters, when set, is used instead of the tool's parameters text
 * (a manifest has it as JSON already). */
struct reg_define_opts {
	enum schema_draft draft; /* SCHEMA_DRAFT_AUTO: from $schema */
	json_t *parameters;
	json_t *output_schema;
	const char *const *command; /* ncommand elements; NULL for builtins */
	size_t ncommand;
	const char *stdin_template;
	enum reg_output output_mode;
	bool channel;       /* fd 3 to the client, answers on stdin */
	const char *source; /* for err->where; NULL = the tool's name */
	int patch_strip;    /* with the tool's patch_arg: the program's -p, or
	                     * PATCH_STRIP_ANY */
};

/* tc_tool_define with the manifest parts and a draft. opts may be NULL (a
 * builtin, draft from $schema). Returns a new reference or NULL with err. */
struct tc_defined *reg_define(const struct tc_tool *t, const struct reg_define_opts *opts,
                              struct tc_error *err);

/* Registers n tools as one group with one disposer, all or nothing (same
 * rules as tc_plugin_load). Takes every tools[i] (the array itself stays
 * the caller's) even on failure. group names the group in messages. */
int reg_add_group(struct tc_registry *reg, struct tc_defined **tools, size_t n, const char *group,
                  struct tc_disposer *out, struct tc_error *err);

/* Checks a tool name against ^[a-z][a-z0-9_]*$ and the length cap. */
bool reg_name_ok(const char *name);

#endif
