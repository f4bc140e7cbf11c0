/* cli_common.c — the supervisor options shared by call, list, replay and
 * serve, and the help texts' lookup (see cli.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "netpolicy.h"
#include "shown.h"
#include "util.h"

/* path_fail's own codes where no errno says it: above every errno value. */
#define EFTYPE_NOT_REGULAR 100000 /* exists, but a fifo, socket or device */
#define EFTYPE_NOT_DIR     100001 /* exists, but not a directory */

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
	case 'a':
		/* A usage error, said as one: the supervisor would only name the
		 * config's key ("approval: unknown approval channel"). */
		if (strcmp(arg, "deny") && strcmp(arg, "tty") &&
		    (strncmp(arg, "cmd:", 4) || !arg[4])) {
			shown_fprintf(stderr,
			              "toolcage %s: --approve wants deny, tty or cmd:PROGRAM (the "
			              "program's path), not '%s'\n\n",
			              verb, arg);
			cli_usage(stderr, verb);
			return -1;
		}
		c->opt.approve = arg;
		return 1;
	case 'A': c->opt.audit_path = arg; return 1;
	case CLI_OPT_STRICT: c->opt.strict = true; return 1;
	case 't':
		if (c->ndirs >= CLI_SUP_MAX_TOOL_DIRS) {
			shown_fprintf(stderr, "toolcage %s: at most %d --tools\n", verb,
			              CLI_SUP_MAX_TOOL_DIRS);
			return -1;
		}
		c->dirs[c->ndirs++] = arg;
		return 1;
	default: return 0;
	}
}

/* The paths the shared options name, checked before the supervisor is
 * built from them. */
static int sup_paths_check(const struct cli_sup *c, struct tc_error *err)
{
	const struct tc_options *o = &c->opt;
	if (o->workspace &&
	    cli_path_check("--workspace", o->workspace, CLI_PATH_DIR, NULL, err) < 0)
		return -1;
	if (o->config_path &&
	    cli_path_check("--config", o->config_path, CLI_PATH_READ,
	                   "Give the path of a toolcage.json (toolcage.json(5)), or leave "
	                   "--config out for the usual places and the built-in defaults.",
	                   err) < 0)
		return -1;
	for (int i = 0; i < c->ndirs; i++)
		if (cli_path_check("--tools", c->dirs[i], CLI_PATH_DIR,
		                   "Give a directory of tool manifests (toolcage-manifest(5)).",
		                   err) < 0)
			return -1;
	if (o->audit_path && strcmp(o->audit_path, "-") &&
	    cli_path_check("--audit", o->audit_path, CLI_PATH_APPEND, NULL, err) < 0)
		return -1;
	if (o->approve && !strncmp(o->approve, "cmd:", 4) && o->approve[4] &&
	    cli_path_check("--approve cmd:", o->approve + 4, CLI_PATH_EXEC,
	                   "Give the path of the approval program (cmd:/path/to/program).",
	                   err) < 0)
		return -1;
	return 0;
}

/* A tools.NAME setting that names no loaded tool: a typo there would
 * leave the tool on its own deadline with nothing said. Said, not refused:
 * a manifest directory may bring the tool later (serve reloads them). */
static void warn_unknown_tool_settings(struct tc_supervisor *s, const char *verb)
{
	const struct config *cfg = supervisor_config(s);
	const struct tc_registry *reg = tc_supervisor_registry(s);
	size_t n = tc_registry_count(reg);
	const char **names = calloc(n + 1, sizeof *names);
	for (size_t k = 0; names && k < n; k++)
		names[k] = tc_defined_name(tc_registry_at(reg, k));
	for (size_t i = 0; i < cfg->n_tool_settings; i++) {
		const char *want = cfg->tool_names[i];
		bool found = false;
		for (size_t k = 0; k < n && !found; k++)
			found = !strcmp(tc_defined_name(tc_registry_at(reg, k)), want);
		if (found)
			continue;
		const char *near = names ? near_name(want, names) : NULL;
		shown_fprintf(
		        stderr,
		        "toolcage %s: warning: %s: /tools/%s: no tool of that name is loaded, so "
		        "its settings apply to none%s%s%s\n",
		        verb, cfg->origin, want, near ? " (did you mean " : "", near ? near : "",
		        near ? "?)" : "");
	}
	free(names);
}

/* A toolchain that is not on this machine (a configuration shared
 * between machines) grants nothing, and its programs are "not found" in
 * the jails with no word why: said, not refused. */
static void warn_missing_toolchains(struct tc_supervisor *s, const char *verb)
{
	const struct config *cfg = supervisor_config(s);
	for (size_t i = 0; i < cfg->n_toolchains; i++) {
		struct stat st;
		int e = stat(cfg->toolchains[i], &st) < 0 ? errno :
		        S_ISDIR(st.st_mode)               ? 0 :
		                                            ENOTDIR;
		if (e)
			shown_fprintf(
			        stderr,
			        "toolcage %s: warning: %s: /toolchains/%zu: %s: %s, so it "
			        "grants nothing: its programs will not be found in the jails\n",
			        verb, cfg->origin, i, cfg->toolchains[i], strerror(e));
	}
}

struct tc_supervisor *cli_sup_open(struct cli_sup *c, const char *verb)
{
	c->dirs[c->ndirs] = NULL;
	c->opt.tool_dirs = c->dirs;
	struct tc_supervisor *s = NULL;
	struct tc_error err = { 0 };
	if (sup_paths_check(c, &err) < 0 || tc_supervisor_new(&c->opt, &s, &err) < 0) {
		/* A manifest's message carries its file:line:column already
		 * (lint prints the message alone): the file once, not twice. */
		size_t n = strlen(err.where);
		bool said = n && !strncmp(err.msg, err.where, n) && err.msg[n] == ':';
		shown_fprintf(stderr, "toolcage %s: %s%s%s\n", verb, said ? "" : err.where,
		              err.where[0] && !said ? ": " : "", err.msg);
		return NULL;
	}
	char who[32];
	snprintf(who, sizeof who, "toolcage %s", verb);
	supervisor_set_msg_prefix(s, who);
	warn_unknown_tool_settings(s, verb);
	warn_missing_toolchains(s, verb);
	/* A loopback name on the allowlist: NO_PROXY takes a command's request
	 * for it past the egress, with no word from toolcage at run time. */
	char *note = strcmp(verb, "list") ? netpol_loopback_note(supervisor_config(s)->egress,
	                                                         "policy.network.addresses.allow "
	                                                         "[\"127.0.0.1/32\"] or "
	                                                         "addresses.loopback") :
	                                    NULL;
	if (note)
		shown_fprintf(
		        stderr,
		        "toolcage %s: note: %s: /policy: under a profile with egress (network), %s\n",
		        verb, supervisor_config(s)->origin, note);
	free(note);
	note = strcmp(verb, "list") ?
	        netpol_loopback_address_note(supervisor_config(s)->egress, "policy.network.allow") :
	        NULL;
	if (note)
		shown_fprintf(
		        stderr,
		        "toolcage %s: note: %s: /policy/network/addresses: under a profile with "
		        "egress (network), %s\n",
		        verb, supervisor_config(s)->origin, note);
	free(note);
	return s;
}

/* ---- paths named on the command line ----------------------------------- */

/* What is wrong with path, in the system's words, and what to do.
 * Returns -1 with err set. */
static int path_fail(struct tc_error *err, const char *option, const char *path, int e,
                     enum cli_path_use use, const char *fix_missing)
{
	static const char *const wants[] = {
		[CLI_PATH_READ] = "a file it can read",
		[CLI_PATH_DIR] = "a directory",
		[CLI_PATH_APPEND] = "a file it can append to",
		[CLI_PATH_EXEC] = "a program it can run",
	};
	static const char *const verbs[] = {
		[CLI_PATH_READ] = "read",
		[CLI_PATH_DIR] = "enter",
		[CLI_PATH_APPEND] = "write",
		[CLI_PATH_EXEC] = "run",
	};
	unsigned uid = (unsigned)geteuid();
	char where[sizeof err->where];
	size_t on = strlen(option);
	/* "--approve cmd:" and its program make one word */
	snprintf(where, sizeof where, "%s%s%s", option, on && option[on - 1] == ':' ? "" : " ",
	         path);
	switch (e) {
	case ENOENT:
		return tc_error_set(err, TC_E_NOT_FOUND, where, "does not exist (%s). %s",
		                    strerror(e),
		                    fix_missing ? fix_missing :
		                            use == CLI_PATH_DIR ?
		                                  "Create it (mkdir -p) or give an "
		                                  "existing directory." :
		                                  "Give the path of an existing one.");
	case EACCES:
	case EPERM:
		return tc_error_set(
		        err, TC_E_SYSTEM, where,
		        "this user (uid %u) may not %s it (%s). Let uid %u %s it (chown "
		        "or chmod it, or its directories), or run as a user who may.",
		        uid, verbs[use], strerror(e), uid, verbs[use]);
	case EISDIR:
		return tc_error_set(err, TC_E_INVALID, where,
		                    "is a directory; %s wants %s. Give the path of the "
		                    "file itself.",
		                    option, wants[use]);
	case ENOTDIR:
		return tc_error_set(err, TC_E_INVALID, where,
		                    "is not a directory, or a part of the path before its last is "
		                    "not (%s); %s wants %s.",
		                    strerror(e), option, wants[use]);
	case EFTYPE_NOT_DIR:
		return tc_error_set(err, TC_E_INVALID, where,
		                    "is a file, not a directory; %s wants %s. Give the "
		                    "directory's path.",
		                    option, wants[use]);
	case EFTYPE_NOT_REGULAR:
		return tc_error_set(err, TC_E_INVALID, where,
		                    "is not a regular file (a fifo, socket or device); %s "
		                    "wants %s. Give the path of a file.",
		                    option, wants[use]);
	default:
		return tc_error_set(err, TC_E_SYSTEM, where, "cannot be used (%s); %s wants %s.",
		                    strerror(e), option, wants[use]);
	}
}

int cli_path_check(const char *option, const char *path, enum cli_path_use use,
                   const char *fix_missing, struct tc_error *err)
{
	struct stat st;
	if (use == CLI_PATH_APPEND && stat(path, &st) < 0 && errno == ENOENT) {
		/* Not there yet: its directory must take a new file. */
		char dir[PATH_MAX];
		const char *slash = strrchr(path, '/');
		size_t n = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);
		if (n >= sizeof dir)
			return path_fail(err, option, path, ENAMETOOLONG, use, NULL);
		memcpy(dir, slash ? path : ".", n);
		dir[n] = '\0';
		if (stat(dir, &st) < 0 && errno == ENOENT) {
			char where[sizeof err->where];
			snprintf(where, sizeof where, "%s %s", option, path);
			return tc_error_set(err, TC_E_NOT_FOUND, where,
			                    "its directory %s does not exist (%s). Create it "
			                    "(mkdir -p %s), or give a path in an existing one.",
			                    dir, strerror(ENOENT), dir);
		}
		if (stat(dir, &st) < 0)
			return path_fail(err, option, path, errno, use, NULL);
		if (!S_ISDIR(st.st_mode))
			return path_fail(err, option, path, ENOTDIR, use, NULL);
		if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) < 0)
			return path_fail(err, option, dir, errno, use, NULL);
		return 0;
	}
	if (use == CLI_PATH_READ) {
		/* Opened as its reader will (O_NONBLOCK: a fifo does not wait). */
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0)
			return path_fail(err, option, path, errno, use, fix_missing);
		int rc = fstat(fd, &st);
		int e = errno;
		close(fd);
		if (rc < 0)
			return path_fail(err, option, path, e, use, fix_missing);
		if (!S_ISREG(st.st_mode))
			return path_fail(err, option, path,
			                 S_ISDIR(st.st_mode) ? EISDIR : EFTYPE_NOT_REGULAR, use,
			                 NULL);
		return 0;
	}
	if (stat(path, &st) < 0)
		return path_fail(err, option, path, errno, use, fix_missing);
	if (use == CLI_PATH_DIR && !S_ISDIR(st.st_mode))
		return path_fail(err, option, path, EFTYPE_NOT_DIR, use, NULL);
	if (use != CLI_PATH_DIR && S_ISDIR(st.st_mode))
		return path_fail(err, option, path, EISDIR, use, NULL);
	int mode = use == CLI_PATH_DIR ? R_OK | X_OK : use == CLI_PATH_APPEND ? W_OK : X_OK;
	if (faccessat(AT_FDCWD, path, mode, AT_EACCESS) < 0)
		return path_fail(err, option, path, errno, use, NULL);
	return 0;
}

/* ---- standard output ---------------------------------------------------- */

int cli_stdout_done(const char *who, int rc, int fail_rc)
{
	bool earlier = ferror(stdout);
	errno = 0;
	if (fflush(stdout) == 0 && !earlier)
		return rc;
	int e = errno;
	/* An earlier write's errno is gone: a pipe whose reader left says
	 * POLLERR. */
	struct pollfd pf = { .fd = STDOUT_FILENO, .events = POLLOUT };
	if (e == EPIPE || (!e && poll(&pf, 1, 0) == 1 && (pf.revents & POLLERR)))
		return rc;
	shown_fprintf(stderr, "%s: writing standard output: %s; what it printed is not whole\n",
	              who, e ? strerror(e) : "a write failed");
	return fail_rc;
}
