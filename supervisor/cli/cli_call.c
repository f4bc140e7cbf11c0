/* cli_call.c — `toolcage call`, `toolcage list` and `toolcage replay`: the
 * whole pipeline from the command line. They share the supervisor options
 * (--workspace, --config, --tools, --approve, --audit). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_pretty.h"
#include "pipeline.h"
#include "registry.h"
#include "shown.h"
#include "util.h"

struct common {
	struct cli_sup sup;
	bool json;
	const char *format;
};

/* Parses the shared options plus call's --json or list's --format (each
 * verb only its own: an option that would do nothing is refused, not
 * ignored); returns 0, 1 (help printed) or -1 (usage). */
static int parse_common(int argc, char **argv, struct common *c, const char *verb)
{
	static const struct option call_opts[] = {
		CLI_SUP_LONGOPTS,
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct option list_opts[] = {
		CLI_SUP_LONGOPTS,
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool is_list = !strcmp(verb, "list");
	const struct option *longopts = is_list ? list_opts : call_opts;
	const char *shortopts = is_list ? CLI_SUP_SHORTOPTS "f:h" : CLI_SUP_SHORTOPTS "jh";
	int ch;
	optind = 1;
	/* Options are taken after TOOL too (call TOOL --json ARGS): a JSON
	 * object never starts with '-', and "-" alone is stdin. */
	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		int took = cli_sup_option(&c->sup, ch, optarg, verb);
		if (took < 0)
			return -1;
		if (took)
			continue;
		switch (ch) {
		case 'j': c->json = true; break;
		case 'f': c->format = optarg; break;
		case 'h': cli_usage(stdout, verb); return 1;
		default: cli_usage(stderr, verb); return -1;
		}
	}
	c->sup.opt.handle_signals = true;
	c->sup.opt.notice_dropped = true;
	return 0;
}

static json_t *result_json(const struct tc_result *r)
{
	json_t *j = json_pack("{s:I, s:s, s:s, s:O, s:s, s:b, s:I, s:O*}", "call_id",
	                      (json_int_t)r->call_id, "tool", r->tool, "status",
	                      tc_status_name(r->status), "canonical", r->canonical, "render",
	                      r->render, "truncated", r->truncated, "duration_ms",
	                      (json_int_t)r->duration_ms, "confinement", r->confinement);
	if (j && r->network) /* what a tool with egress tried (docs/network.md) */
		json_object_set(j, "network", r->network);
	return j;
}

static char *read_stream(FILE *f, size_t max)
{
	struct buf b = BUF_INIT;
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b.len + n > max) {
			buf_release(&b);
			return NULL;
		}
		buf_add(&b, chunk, n);
	}
	return buf_detach(&b);
}

int cmd_call(int argc, char **argv)
{
	struct common c = { 0 };
	int rc = parse_common(argc, argv, &c, "call");
	if (rc)
		return rc > 0 ? 0 : 2;
	if (optind >= argc || argc - optind > 2) {
		if (optind >= argc)
			fputs("toolcage call: no TOOL given: name the tool to call (toolcage list "
			      "shows them), then its arguments as one JSON object, e.g. toolcage "
			      "call read_file '{\"path\": \"README.md\"}'\n\n",
			      stderr);
		else
			shown_fprintf(
			        stderr,
			        "toolcage call: '%s' after the arguments: give TOOL, then one "
			        "ARGS_JSON (options may come before or after them)\n\n",
			        argv[optind + 2]);
		cli_usage(stderr, "call");
		return 2;
	}
	const char *tool = argv[optind];
	char *args = NULL;
	if (optind + 1 < argc && !strcmp(argv[optind + 1], "-")) {
		args = read_stream(stdin, 64 << 20);
		if (!args) {
			shown_fprintf(stderr,
			              "toolcage call: the arguments on stdin are over 64 MiB; "
			              "give a smaller JSON object\n");
			return 2;
		}
	} else {
		args = strdup(optind + 1 < argc ? argv[optind + 1] : "{}");
	}
	struct tc_supervisor *s = cli_sup_open(&c.sup, "call");
	if (!s) {
		free(args);
		return 2;
	}
	struct tc_result *r = tc_call(s, tool, args);
	free(args);
	if (!r) {
		tc_supervisor_free(s);
		return 2;
	}
	if (c.json) {
		/* The canonical is a tool's: any shape, laid out in linear
		 * time and memory (json_pretty.h). */
		json_t *j = result_json(r);
		char *text = j ? json_pretty(j, false, NULL) : NULL;
		fputs(text ? text : "{\"status\": \"failed\", \"error\": \"out of memory\"}",
		      stdout);
		fputc('\n', stdout);
		free(text);
		json_decref(j);
	} else {
		fputs(r->render, stdout);
		if (r->render[0] && r->render[strlen(r->render) - 1] != '\n')
			fputc('\n', stdout);
		if (r->status != TC_STATUS_OK)
			shown_fprintf(stderr, "toolcage call: %s: %s\n", tool,
			              tc_status_name(r->status));
	}
	rc = r->status == TC_STATUS_OK ? 0 : 1;
	if (tc_supervisor_signal(s))
		rc = 128 + tc_supervisor_signal(s);
	tc_result_free(r);
	tc_supervisor_free(s);
	return rc;
}

int cmd_list(int argc, char **argv)
{
	struct common c = { .format = "text" };
	int rc = parse_common(argc, argv, &c, "list");
	if (rc)
		return rc > 0 ? 0 : 2;
	/* The list is always every tool: a name after it was silently ignored. */
	if (optind < argc) {
		shown_fprintf(
		        stderr,
		        "toolcage list: unexpected argument '%s': list takes no tool names, it "
		        "lists every tool (toolcage list | grep -A5 NAME for one)\n\n",
		        argv[optind]);
		cli_usage(stderr, "list");
		return 2;
	}
	enum tc_export_format fmt;
	if (tc_export_format_parse(c.format, &fmt) < 0) {
		shown_fprintf(stderr,
		              "toolcage list: --format wants text, mcp or openai, not '%s'\n\n",
		              c.format);
		cli_usage(stderr, "list");
		return 2;
	}
	struct tc_supervisor *s = cli_sup_open(&c.sup, "list");
	if (!s)
		return 2;
	/* A tool that no call can pass under this configuration is not
	 * offered to a model; the list says which and why. */
	struct tc_registry *reg = tc_supervisor_registry(s);
	json_t *list = json_array();
	struct buf hidden = BUF_INIT;
	size_t shown = 0;
	for (size_t i = 0; list && i < tc_registry_count(reg); i++) {
		const struct tc_defined *t = tc_registry_at(reg, i);
		char why[512];
		if (tc_supervisor_tool_unusable(s, t->name, why, sizeof why)) {
			shown_bprintf(&hidden, "not listed: %s: %s\n", t->name, why);
			continue;
		}
		json_t *one = tc_defined_export(t, fmt);
		if (fmt == TC_EXPORT_TEXT && json_is_string(one))
			printf("%s%s", shown ? "\n" : "", json_string_value(one));
		else if (one)
			json_array_append(list, one);
		json_decref(one);
		shown++;
	}
	if (fmt == TC_EXPORT_TEXT && !shown)
		fputs("(no tools)\n", stdout);
	if (fmt == TC_EXPORT_TEXT && hidden.len)
		printf("\n%s", hidden.data);
	else if (hidden.len)
		fputs(hidden.data, stderr); /* stdout stays the JSON a host reads */
	if (fmt != TC_EXPORT_TEXT)
		json_dumpf(list, stdout, JSON_INDENT(2)), fputc('\n', stdout);
	json_decref(list);
	buf_release(&hidden);
	tc_supervisor_free(s);
	return 0;
}
