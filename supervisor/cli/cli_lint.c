/* cli_lint.c — `toolcage lint`: registration checks and the description
 * checklist over every tool (built-in and the manifests named), plus the
 * description regression cases. Exit 0 clean, 1 lint failures (errors, or
 * warnings under --strict, or failed cases), 2 usage or load errors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "lint.h"
#include "manifest.h"
#include "registry.h"
#include "shown.h"
#include "util.h"

#define DEFAULT_SELECTOR_TIMEOUT_MS 30000u

struct lint_opts {
	bool strict;
	bool no_builtins; /* only the manifests named */
	enum schema_draft draft;
	const char *cases;
	const char *selector_cmd;
	unsigned selector_timeout_ms;
	char **paths;
	int npaths;
};

static int parse_option(const char *a, const char *val, struct lint_opts *o)
{
	if (!strcmp(a, "--draft")) {
		if (!strcmp(val, "7"))
			o->draft = SCHEMA_DRAFT_07;
		else if (!strcmp(val, "2020-12"))
			o->draft = SCHEMA_DRAFT_2020_12;
		else {
			shown_fprintf(stderr, "toolcage lint: --draft is 7 or 2020-12, not '%s'\n",
			              val);
			return -1;
		}
	} else if (!strcmp(a, "--cases")) {
		o->cases = val;
	} else if (!strcmp(a, "--selector-cmd")) {
		o->selector_cmd = val;
	} else if (!strcmp(a, "--selector-timeout")) {
		char *end;
		unsigned long ms = strtoul(val, &end, 10);
		if (*end || !ms || ms > 3600000) {
			shown_fprintf(
			        stderr,
			        "toolcage lint: --selector-timeout is 1..3600000 ms, not '%s'\n",
			        val);
			return -1;
		}
		o->selector_timeout_ms = (unsigned)ms;
	} else {
		shown_fprintf(stderr, "toolcage lint: unknown option '%s'\n", a);
		return -1;
	}
	return 0;
}

/* Options and paths may come in any order; "--" ends the options. paths
 * points into argv, in a slot array the caller frees. */
static int parse_args(int argc, char **argv, struct lint_opts *o)
{
	if (!(o->paths = calloc((size_t)argc + 1, sizeof *o->paths))) {
		shown_fprintf(stderr, "toolcage lint: out of memory\n");
		return -1;
	}
	bool opts_done = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (opts_done || a[0] != '-' || !a[1]) {
			o->paths[o->npaths++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			opts_done = true;
			continue;
		} else if (!strcmp(a, "--strict")) {
			o->strict = true;
			continue;
		} else if (!strcmp(a, "--no-builtins")) {
			o->no_builtins = true;
			continue;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			cli_usage(stdout, "lint");
			return 1;
		}
		static const char *const with_value[] = { "--draft", "--cases", "--selector-cmd",
			                                  "--selector-timeout" };
		bool known = false;
		for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
			known |= !strcmp(a, with_value[k]);
		if (!known) {
			shown_fprintf(stderr, "toolcage lint: unknown option '%s'\n", a);
			return -1;
		}
		const char *val = i + 1 < argc ? argv[++i] : NULL;
		if (!val) {
			shown_fprintf(stderr, "toolcage lint: %s needs a value\n", a);
			return -1;
		}
		if (parse_option(a, val, o))
			return -1;
	}
	/* Nothing to check would pass: a script whose list of manifests came
	 * out empty must not take that for a clean lint. */
	if (o->no_builtins && o->npaths == 0) {
		shown_fprintf(stderr,
		              "toolcage lint: --no-builtins and no manifest named: nothing "
		              "to check. Name the manifest files or directories to lint, "
		              "or leave --no-builtins out to lint the built-in tools.\n");
		return -1;
	}
	return 0;
}

/* A manifest that fails to load is a lint error about that file (its
 * author has something to fix), not a reason to stop checking the rest. */
static void load_one(struct tc_registry *reg, const char *file, enum schema_draft draft,
                     struct lint_report *r)
{
	struct tc_error e = { 0 };
	struct tc_defined *d = manifest_load_file(file, draft, &e);
	if (!d || tc_registry_add(reg, d, NULL, &e)) {
		/* The subject names the file already; don't say it twice. */
		size_t n = strlen(file);
		const char *msg = e.msg;
		if (!strncmp(msg, file, n) && (msg[n] == ':'))
			msg += n + (msg[n + 1] == ' ' ? 2 : 1);
		lint_report_add(r, LINT_ERROR, LINT_R_REGISTRATION, file, "%s", msg);
	}
}

/* Returns 0, or -1 when a path cannot be read at all (a usage error). */
static int load_paths(struct tc_registry *reg, const struct lint_opts *o, struct lint_report *r)
{
	for (int i = 0; i < o->npaths; i++) {
		const char *p = o->paths[i];
		struct stat st;
		if (stat(p, &st) < 0) {
			shown_fprintf(stderr,
			              "toolcage lint: %s: cannot be read (%s). Give tool manifest "
			              "files (NAME.json) or directories of them; with none, lint "
			              "checks the built-in tools.\n",
			              p, strerror(errno));
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			load_one(reg, p, o->draft, r);
			continue;
		}
		char **files;
		size_t n;
		struct tc_error e = { 0 };
		if (manifest_list_dir(p, &files, &n, &e)) {
			shown_fprintf(stderr, "toolcage lint: %s\n", e.msg);
			return -1;
		}
		/* A directory named to be checked with nothing to check in it
		 * is the wrong one (the C sources, a parent): passing it clean
		 * would let a lint step in CI pass on nothing. */
		if (n == 0) {
			manifest_paths_free(files, n);
			shown_fprintf(
			        stderr,
			        "toolcage lint: %s: no tool manifests (*.json) in it. Give the "
			        "directory that holds them, or the manifest files; with none, lint "
			        "checks the built-in tools.\n",
			        p);
			return -1;
		}
		for (size_t j = 0; j < n; j++)
			load_one(reg, files[j], o->draft, r);
		manifest_paths_free(files, n);
	}
	return 0;
}

static void print_report(const struct lint_report *r)
{
	for (size_t i = 0; i < r->count; i++) {
		const struct lint_finding *f = &r->items[i];
		/* The subject is a file's name as found on disk: shown, so that
		 * it cannot forge a finding's line or drive the terminal. */
		shown_fprintf(stdout, "%s: %s: %s: %s\n", f->subject,
		              f->level == LINT_ERROR ? "error" : "warning", f->rule, f->message);
	}
}

static int run_cases(const struct tc_registry *reg, const struct lint_opts *o,
                     struct lint_report *r, size_t *ncases, size_t *passed)
{
	struct lint_case *cases;
	struct tc_error e = { 0 };
	if (lint_cases_load(o->cases, &cases, ncases, &e)) {
		shown_fprintf(stderr, "toolcage lint: %s\n", e.msg);
		return -1;
	}
	int rc = lint_run_cases(reg, cases, *ncases, o->selector_cmd, o->selector_timeout_ms, r,
	                        passed, &e);
	if (rc)
		shown_fprintf(stderr, "toolcage lint: %s\n", e.msg);
	lint_cases_free(cases, *ncases);
	return rc;
}

int cmd_lint(int argc, char **argv)
{
	struct lint_opts o = { .selector_timeout_ms = DEFAULT_SELECTOR_TIMEOUT_MS };
	int prc = parse_args(argc, argv, &o);
	if (prc) {
		free(o.paths);
		if (prc < 0)
			cli_usage(stderr, "lint");
		return prc > 0 ? 0 : 2;
	}
	struct tc_registry *reg = tc_registry_new();
	struct lint_report r = LINT_REPORT_INIT;
	struct tc_error e = { 0 };
	int status = 2;
	size_t ncases = 0, passed = 0;
	/* Looked at before the tools are loaded and linted, as every verb's
	 * file options are: the refusal names the option and what to do. */
	if (o.cases &&
	    cli_path_check("--cases", o.cases, CLI_PATH_READ,
	                   "Give a JSON file of description cases, [{\"task\": ..., "
	                   "\"expect\": TOOL}] (docs/tools-api.md).",
	                   &e) < 0) {
		shown_fprintf(stderr, "toolcage lint: %s: %s\n", e.where, e.msg);
		goto out;
	}
	if (!reg) {
		shown_fprintf(stderr, "toolcage lint: out of memory\n");
		goto out;
	}
	if (!o.no_builtins && lint_add_builtins(reg, &e) < 0) {
		shown_fprintf(stderr, "toolcage lint: built-in tools: %s\n", e.msg);
		goto out;
	}
	if (load_paths(reg, &o, &r))
		goto out;
	size_t ntools = tc_registry_count(reg);
	if (lint_registry(reg, &r) || (o.cases && run_cases(reg, &o, &r, &ncases, &passed)))
		goto out;
	print_report(&r);
	printf("lint: %zu tool%s: %zu error%s, %zu warning%s", ntools, ntools == 1 ? "" : "s",
	       r.errors, r.errors == 1 ? "" : "s", r.warnings, r.warnings == 1 ? "" : "s");
	if (o.cases)
		printf("; cases: %zu passed, %zu failed", passed, ncases - passed);
	printf("\n");
	status = r.errors || (o.strict && r.warnings) ? 1 : 0;
out:
	lint_report_release(&r);
	tc_registry_free(reg);
	free(o.paths);
	return status;
}
