/* cli_serve.c — `toolcage serve`: the MCP server on stdin/stdout, or over
 * Streamable HTTP with --http. The options are `toolcage call`'s, plus
 * --page-size and the HTTP ones; on stdio, stdout carries protocol messages
 * only, so every log line goes to stderr. */
#include <getopt.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mcp.h"
#include "pipeline.h"
#include "shown.h"

#define SERVE_ORIGINS_MAX 16

static int number(const char *arg, const char *what, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);
	if (!*arg || *end || v < 1 || v > max) {
		shown_fprintf(stderr, "toolcage serve: %s wants 1..%lu, got '%s'\n\n", what, max,
		              arg);
		cli_usage(stderr, "serve");
		return -1;
	}
	*out = v;
	return 0;
}

/* Whether o is an origin as a browser sends it in Origin (RFC 6454's
 * serialization: a lowercase scheme and host, a port, nothing after), or
 * "null". The match is exact, so anything else (a trailing /, a path,
 * capitals, no scheme) would never admit a request, without a word. */
static bool origin_form(const char *o)
{
	if (!strcmp(o, "null"))
		return true;
	const char *sep = strstr(o, "://");
	if (!sep || sep == o || !sep[3] || !(*o >= 'a' && *o <= 'z'))
		return false;
	for (const char *c = o; c < sep; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || strchr("+.-", *c)))
			return false;
	for (const char *c = sep + 3; *c; c++)
		if ((*c >= 'A' && *c <= 'Z') || *c <= ' ' || *c == 0x7f || strchr("/?#@\\", *c))
			return false;
	return true;
}

int cmd_serve(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_SUP_LONGOPTS,
		{ "page-size", required_argument, NULL, 'p' },
		{ "http", required_argument, NULL, 'H' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "allow-origin", required_argument, NULL, 'O' },
		{ "max-sessions", required_argument, NULL, 'S' },
		{ "idle-timeout", required_argument, NULL, 'I' },
		{ "drain", required_argument, NULL, 'D' },
		{ "sse-poll", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_sup sup = { .opt.watch_tool_dirs = true,
		               .opt.keep_spares = true,
		               .opt.notice_dropped = true };
	struct mcp_options mo = { .in_fd = 0, .out_fd = 1 };
	const char *origins[SERVE_ORIGINS_MAX + 1] = { NULL };
	size_t norigins = 0;
	unsigned long v;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+" CLI_SUP_SHORTOPTS "p:h", longopts, NULL)) != -1) {
		int took = cli_sup_option(&sup, ch, optarg, "serve");
		if (took < 0)
			return 2;
		if (took)
			continue;
		switch (ch) {
		case 'p':
			if (number(optarg, "--page-size", MCP_PAGE_SIZE_MAX, &v) < 0)
				return 2;
			mo.page_size = v;
			break;
		case 'H': mo.http = optarg; break;
		case 'T': mo.token_file = optarg; break;
		case 'O':
			if (norigins == SERVE_ORIGINS_MAX) {
				shown_fprintf(stderr,
				              "toolcage serve: at most %d --allow-origin\n\n",
				              SERVE_ORIGINS_MAX);
				cli_usage(stderr, "serve");
				return 2;
			}
			if (!origin_form(optarg)) {
				shown_fprintf(
				        stderr,
				        "toolcage serve: --allow-origin '%s' is not an origin as a "
				        "browser sends it, so it would admit nothing: give "
				        "SCHEME://HOST[:PORT], lowercase, with no path and no "
				        "trailing /, e.g. https://app.example or "
				        "http://localhost:3000\n\n",
				        optarg);
				cli_usage(stderr, "serve");
				return 2;
			}
			origins[norigins++] = optarg;
			break;
		case 'S':
			if (number(optarg, "--max-sessions", MCP_SESSIONS_MAX, &v) < 0)
				return 2;
			mo.max_sessions = v;
			break;
		case 'I':
			if (number(optarg, "--idle-timeout", 604800, &v) < 0)
				return 2;
			mo.idle_s = (unsigned)v;
			break;
		case 'D':
			if (number(optarg, "--drain", 3600, &v) < 0)
				return 2;
			mo.drain_s = (unsigned)v;
			break;
		case 'P':
			if (number(optarg, "--sse-poll", 600000, &v) < 0)
				return 2;
			mo.sse_poll_ms = (unsigned)v;
			break;
		case 'h': cli_usage(stdout, "serve"); return 0;
		default: cli_usage(stderr, "serve"); return 2;
		}
	}
	/* Over HTTP standard output is free: a container's log pipe may take
	 * the audit. On stdio it carries the protocol. */
	if (!mo.http && sup.opt.audit_path && !strcmp(sup.opt.audit_path, "-")) {
		fputs("toolcage serve: --audit -: on stdio, standard output carries the MCP "
		      "messages; give the audit a file (or serve --http)\n",
		      stderr);
		return 2;
	}
	if (optind < argc) {
		shown_fprintf(stderr, "toolcage serve: unexpected argument '%s'\n\n", argv[optind]);
		cli_usage(stderr, "serve");
		return 2;
	}
	if (!mo.http &&
	    (mo.token_file || norigins || mo.max_sessions || mo.idle_s || mo.drain_s ||
	     mo.sse_poll_ms)) {
		shown_fprintf(stderr,
		              "toolcage serve: --token-file, --allow-origin, --max-sessions, "
		              "--idle-timeout, --drain and --sse-poll go with --http\n\n");
		cli_usage(stderr, "serve");
		return 2;
	}
	mo.origins = origins;
	struct tc_error err = { 0 };
	if (mo.token_file) {
		/* The usual slip: the file was never made. Say how to make one. */
		char fix[PATH_MAX * 2 + 160];
		snprintf(fix, sizeof fix,
		         "Create it: head -c 32 /dev/urandom | base64 > %s; chmod 600 %s "
		         "(clients send its line as Authorization: Bearer ...).",
		         mo.token_file, mo.token_file);
		if (cli_path_check("--token-file", mo.token_file, CLI_PATH_READ, fix, &err) < 0) {
			shown_fprintf(stderr, "toolcage serve: %s: %s\n", err.where, err.msg);
			return 2;
		}
	}
	struct tc_supervisor *s = cli_sup_open(&sup, "serve");
	struct mcp_server *m = NULL;
	if (!s)
		return 2;
	if (mcp_server_new(s, &mo, &m, &err) < 0) {
		shown_fprintf(stderr, "toolcage serve: %s%s%s\n", err.where,
		              err.where[0] ? ": " : "", err.msg);
		/* A bad --http value is a usage error, said as every verb says
		 * one: then the synopsis (a failure to listen is not). */
		if (err.code == TC_E_INVALID && !strcmp(err.where, "--http")) {
			fputc('\n', stderr);
			cli_usage(stderr, "serve");
		}
		return 2; /* mcp_server_new took s, even on failure */
	}
	/* A workspace no profile takes (/, a home directory) or a profile
	 * this kernel refuses fails every call, and the model alone would be
	 * told: say it at start, in the host's MCP log. The first tool's
	 * profile is built now (the others as their calls come). */
	char why[1024];
	if (supervisor_ready(s, 1, why, sizeof why) < 0)
		/* A refused workspace's reason says to give --workspace DIR. */
		shown_fprintf(stderr, "toolcage serve: warning: calls will fail: %s%s\n", why,
		              strstr(why, "workspace cannot be") ?
		                      "" :
		                      ". toolcage check --workspace DIR says what this machine "
		                      "can enforce there, and what it lacks.");
	int rc = mcp_server_run(m);
	mcp_server_free(m);
	return rc;
}
