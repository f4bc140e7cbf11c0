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

static const char serve_usage[] =
	"usage: toolcage serve [OPTIONS]\n"
	"\nServes the tools over the Model Context Protocol (MCP) on stdin/stdout:\n"
	"JSON-RPC 2.0, one message per line; logs go to stderr only. Protocol\n"
	"revision 2025-11-25, and 2025-06-18, 2025-03-26, 2024-11-05 when the client\n"
	"asks for them. Every tools/call goes through the whole pipeline (validate,\n"
	"authorize, execute in the sandbox, render). When the client declares the\n"
	"elicitation capability, approvals are asked through it (allow once, allow\n"
	"for this session, deny); otherwise --approve applies (default deny).\n"
	"Ends when stdin closes (exit 0) or on SIGTERM/SIGINT/SIGHUP (exit 128+signal);\n"
	"calls still running are cancelled and their children killed.\n"
	"\noptions:\n"
	"  --workspace DIR     the tools' workspace (default: config's, else the\n"
	"                      current directory)\n"
	"  --config FILE       toolcage.json (default: ./toolcage.json if present)\n"
	"  --tools DIR         load manifest tools from DIR (repeatable)\n"
	"  --approve CHANNEL   deny (default), tty, or cmd:PROGRAM: used when the\n"
	"                      client cannot answer elicitations\n"
	"  --audit FILE        append one JSON line per event to FILE\n"
	"  --page-size N       tools per tools/list page (1-1000, default 100)\n"
	"\nSee docs/mcp.md for client configuration snippets.\n";

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
			fputs(serve_usage, stdout);
			return 0;
		default:
			fputs(serve_usage, stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "toolcage serve: unexpected argument '%s'\n\n%s", argv[optind],
		        serve_usage);
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
