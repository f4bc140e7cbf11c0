/* cli_common.c — the supervisor options shared by call, list, replay and
 * serve, and the help texts' lookup (see cli.h). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_usage(FILE *f, const char *verb)
{
	for (const struct cli_help *h = cli_help_pages; h->verb; h++) {
		if (strcmp(h->verb, verb))
			continue;
		if (f == stdout) {
			fputs(h->text, f);
			return;
		}
		/* A usage error: the synopsis under the message that says what was
		 * wrong, not a page of help that scrolls the message away. */
		const char *end = strstr(h->text, "\n\n");
		fwrite(h->text, 1, end ? (size_t)(end - h->text) + 1 : strlen(h->text), f);
		fprintf(f, "`toolcage %s --help` tells more.\n", verb);
		return;
	}
	fputs(cli_help_main, f);
}

int cli_sup_option(struct cli_sup *c, int ch, const char *arg, const char *verb)
{
	switch (ch) {
	case 'w': c->opt.workspace = arg; return 1;
	case 'c': c->opt.config_path = arg; return 1;
	case 'a': c->opt.approve = arg; return 1;
	case 'A': c->opt.audit_path = arg; return 1;
	case CLI_OPT_STRICT: c->opt.strict = true; return 1;
	case 't':
		if (c->ndirs >= CLI_SUP_MAX_TOOL_DIRS) {
			fprintf(stderr, "toolcage %s: at most %d --tools\n", verb,
			        CLI_SUP_MAX_TOOL_DIRS);
			return -1;
		}
		c->dirs[c->ndirs++] = arg;
		return 1;
	default: return 0;
	}
}

struct tc_supervisor *cli_sup_open(struct cli_sup *c, const char *verb)
{
	c->dirs[c->ndirs] = NULL;
	c->opt.tool_dirs = c->dirs;
	struct tc_supervisor *s = NULL;
	struct tc_error err = { 0 };
	if (tc_supervisor_new(&c->opt, &s, &err) < 0) {
		fprintf(stderr, "toolcage %s: %s%s%s\n", verb, err.where, err.where[0] ? ": " : "",
		        err.msg);
		return NULL;
	}
	return s;
}
