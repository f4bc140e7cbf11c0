/* cli_serve.c — `toolcage serve`: the MCP server on stdin/stdout. The
 * options are `toolcage call`'s, plus --page-size; stdout carries protocol
 * messages only, so every log line goes to stderr. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mcp.h"

int cmd_serve(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_SUP_LONGOPTS,
		{ "page-size", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_sup sup = { .opt.watch_tool_dirs = true, .opt.keep_spares = true,
	                       .opt.notice_dropped = true };
	int ch;
	unsigned long page = 0;
	char *end;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+" CLI_SUP_SHORTOPTS "p:h", longopts, NULL)) != -1) {
		int took = cli_sup_option(&sup, ch, optarg, "serve");
		if (took < 0)
			return 2;
		if (took)
			continue;
		switch (ch) {
		case 'p':
			page = strtoul(optarg, &end, 10);
			if (*end || page < 1 || page > MCP_PAGE_SIZE_MAX) {
				fprintf(stderr, "toolcage serve: --page-size must be 1-%d\n",
				        MCP_PAGE_SIZE_MAX);
				return 2;
			}
			break;
		case 'h':
			cli_usage(stdout, "serve");
			return 0;
		default:
			cli_usage(stderr, "serve");
			return 2;
		}
	}
	if (sup.opt.audit_path && !strcmp(sup.opt.audit_path, "-")) {
		fputs("toolcage serve: --audit -: on stdio, standard output carries the MCP "
		      "messages; give the audit a file\n", stderr);
		return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "toolcage serve: unexpected argument '%s'\n\n", argv[optind]);
		cli_usage(stderr, "serve");
		return 2;
	}
	struct tc_supervisor *s = cli_sup_open(&sup, "serve");
	struct mcp_server *m = NULL;
	struct tc_error err = { 0 };
	if (!s)
		return 2;
	if (mcp_server_new(s, &(struct mcp_options){ .in_fd = 0, .out_fd = 1, .page_size = page },
	                   &m, &err) < 0) {
		fprintf(stderr, "toolcage serve: %s%s%s\n", err.where, err.where[0] ? ": " : "",
		        err.msg);
		return 2;   /* mcp_server_new took s, even on failure */
	}
	int rc = mcp_server_run(m);
	mcp_server_free(m);
	return rc;
}
