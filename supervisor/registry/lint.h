/* lint.h — description quality checks on registered tools (the checklist in
 * docs/tools-api.md) and the description regression cases with
 * their tool selector (a deterministic lexical stand-in for a model, or an
 * external command that can be a real one).
 */
#ifndef TC_LINT_H
#define TC_LINT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "toolcage.h"
#include "util.h"

enum lint_level {
	LINT_WARNING = 1, /* listed; fails only under --strict */
	LINT_ERROR = 2,   /* fails */
};

/* Rule names, as printed and as tests match them. */
#define LINT_R_REGISTRATION     "registration"     /* error: define/register refused */
#define LINT_R_VERB             "verb"             /* description starts with a verb */
#define LINT_R_THIN             "thin-description" /* too few words to guess the purpose */
#define LINT_R_BOUNDARY         "boundary"         /* near tool, no "when not to use" */
#define LINT_R_PARAM_DESC       "param-description"
#define LINT_R_PARAM_EXAMPLE    "param-example" /* path/url/pattern... without an example */
#define LINT_R_ENUM             "enum"          /* fixed choices in prose, no enum */
#define LINT_R_REQUIRED_DEFAULT "required-default"
#define LINT_R_URL_ARG          "url-arg"          /* network tool without url_arg */
#define LINT_R_OPTION_INJECTION "option-injection" /* manifest placeholder before "--" */
#define LINT_R_CASE             "case"             /* a regression case failed */

struct lint_finding {
	enum lint_level level;
	const char *rule; /* one of LINT_R_* (static) */
	char *subject;    /* tool name, file, or "case N" */
	char *message;
};

/* Findings in the order found. Init with LINT_REPORT_INIT. */
struct lint_report {
	struct lint_finding *items;
	size_t count, cap;
	size_t errors, warnings;
};
#define LINT_REPORT_INIT                                                                           \
	{                                                                                          \
		NULL, 0, 0, 0, 0                                                                   \
	}

/* Appends one finding (copies subject and the formatted text). 0 or -1
 * (out of memory). */
int lint_report_add(struct lint_report *r, enum lint_level level, const char *rule,
                    const char *subject, const char *fmt, ...)
        __attribute__((format(printf, 5, 6)));
void lint_report_release(struct lint_report *r);
/* True when r has a finding of rule about subject (for tests and callers). */
bool lint_report_has(const struct lint_report *r, const char *rule, const char *subject);

/* Runs every checklist rule on t; reg (borrowed) gives the other tools
 * for the boundary rule. 0, or -1 when out of memory. */
int lint_tool(const struct tc_registry *reg, const struct tc_defined *t, struct lint_report *r);
/* lint_tool on every tool of reg, in registration order. */
int lint_registry(const struct tc_registry *reg, struct lint_report *r);

/* HOOK for the built-in tools: registers every built-in plugin into reg so
 * `toolcage lint` checks them with the manifests. Returns the number of
 * tools added (the plugins of tools/builtins.c), or -1 with err. */
int lint_add_builtins(struct tc_registry *reg, struct tc_error *err);

/* ---- the selector and regression cases -------------------------------- */

/* A lexical index of a registry's tools: name (weight 3), title and
 * description (1), parameter names and descriptions (0.5); clauses of a
 * description that say "not"/"instead"/... are left out, since they name
 * what the tool is NOT for. Snapshot: later registry changes are not seen. */
struct lint_selector;
struct lint_selector *lint_selector_new(const struct tc_registry *reg);
void lint_selector_free(struct lint_selector *s);

/* The tool whose words best match task (borrowed from the selector; valid
 * until lint_selector_free), or NULL when no tool shares a word with it.
 * Ties go to the name that sorts first. */
const char *lint_selector_pick(const struct lint_selector *s, const char *task);
/* Appends to why: "NAME scored S on: word (w), word (w)" for tool name
 * (at most 6 words, strongest first). 0 or -1. */
int lint_selector_explain(const struct lint_selector *s, const char *task, const char *name,
                          struct buf *why);

/* Runs an external selector: cmd split on spaces (no shell) and run with
 * fork/exec; gets {"task": task, "tools": tools} on stdin and must print a
 * tool name on stdout (first line, trimmed; at most 64 KiB of output) and
 * exit 0 within timeout_ms. *choice is a new string. 0, or -1 with err. */
int lint_select_cmd(const char *cmd, const char *task, json_t *tools, unsigned timeout_ms,
                    char **choice, struct tc_error *err);

/* One regression case: {"task", "expect"?, "not_expect"?: [names]}. */
struct lint_case {
	char *task;
	char *expect; /* NULL: any tool not in not_expect */
	char **not_expect;
	size_t n_not_expect;
};

/* Loads a cases file (JSON array; unknown keys are errors). *cases is a
 * new array (free with lint_cases_free). 0, or -1 with err. */
int lint_cases_load(const char *path, struct lint_case **cases, size_t *n, struct tc_error *err);
void lint_cases_free(struct lint_case *cases, size_t n);

/* Runs every case against reg's tools with the built-in selector, or with
 * selector_cmd when not NULL; each failing case adds an error finding
 * (rule "case") naming the expected and the chosen tool and the words that
 * decided it. *passed counts the passes. Returns 0, or -1 with err when
 * the external selector could not be run (a tool problem, not a case). */
int lint_run_cases(const struct tc_registry *reg, const struct lint_case *cases, size_t n,
                   const char *selector_cmd, unsigned timeout_ms, struct lint_report *r,
                   size_t *passed, struct tc_error *err);

#endif
