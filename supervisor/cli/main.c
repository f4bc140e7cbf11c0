/* main.c — toolcage's entry point: a table of verbs. */
#include <fcntl.h>
#include <jansson.h>
#include <nss.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <unistd.h>

#include "child_abi.h"
#include "cli.h"
#include "shown.h"
#include "toolcage.h"
#include "util.h"

/* The verbs' help (and the list `toolcage --help` prints) is in docs/cli.md,
 * which the build turns into cli_help_pages and the man pages. */
struct verb {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static const struct verb verbs[] = {
	{ "serve", cmd_serve },   { "call", cmd_call }, { "list", cmd_list },
	{ "replay", cmd_replay }, { "exec", cmd_exec }, { "check", cmd_check },
	{ "schema", cmd_schema }, { "lint", cmd_lint },
};

static void usage(FILE *f)
{
	fputs(cli_help_main, f);
}

/* "unknown verb 'cal': did you mean 'call'?", then a blank line. */
static void unknown_verb(const char *who, const char *v)
{
	const char *names[sizeof verbs / sizeof verbs[0] + 1] = { 0 };
	for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
		names[i] = verbs[i].name;
	const char *near = near_name(v, names);
	shown_fprintf(stderr, "%s: unknown verb '%s'%s%s%s\n\n", who, v,
	              near ? ": did you mean '" : "", near ? near : "", near ? "'?" : "");
}

/* Descriptors 0-2 must exist: otherwise the first pipe we make could land on
 * them and a child's stdout would alias something else. */
static void ensure_std_fds(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			_exit(CHILD_EXIT_SETUP);
}

/* jansson seeds its hash function at the first object it makes, from
 * /dev/urandom (open, read, close): one getrandom() is cheaper at every
 * start. Without it, jansson seeds itself as before. */
static void seed_json(void)
{
	size_t seed;
	if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) == (ssize_t)sizeof seed && seed)
		json_object_seed(seed);
}

/* A static build (the Makefile's STATIC=1) has no dynamic loader: AT_BASE,
 * where the loader was mapped, is 0. There glibc would load an NSS module
 * named in nsswitch.conf (libnss_systemd for an account not in
 * /etc/passwd) with a second copy of libc, and crash in it. Accounts,
 * groups and services come from the files alone in such a build: an
 * account known only to another source is unknown, and runs as its uid
 * and gid with no supplementary groups (docs/deploy.md). */
static void static_nss(void)
{
	if (getauxval(AT_BASE) != 0)
		return;
	static const char *const dbs[] = { "passwd", "group", "services" };
	for (size_t i = 0; i < sizeof dbs / sizeof dbs[0]; i++)
		__nss_configure_lookup(dbs[i], "files");
}

int main(int argc, char **argv)
{
	ensure_std_fds();
	seed_json();
	static_nss();
	if (argc < 2) {
		fputs("toolcage: no verb given\n\n", stderr);
		usage(stderr);
		return 2;
	}
	const char *v = argv[1];
	if (!strcmp(v, "help") && argc > 2) { /* help VERB: the verb's own help */
		if (argc > 3) {
			shown_fprintf(stderr,
			              "toolcage: help: unexpected argument '%s': give one VERB\n\n",
			              argv[3]);
			usage(stderr);
			return 2;
		}
		for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
			if (!strcmp(argv[2], verbs[i].name)) {
				cli_usage(stdout, verbs[i].name);
				return cli_stdout_done("toolcage help", 0, 2);
			}
		}
		unknown_verb("toolcage: help", argv[2]);
		usage(stderr);
		return 2;
	}
	if (!strcmp(v, "--help") || !strcmp(v, "-h") || !strcmp(v, "help")) {
		usage(stdout);
		return cli_stdout_done("toolcage", 0, 2);
	}
	if (!strcmp(v, "--version") || !strcmp(v, "version")) {
		printf("toolcage %s\n", TC_VERSION);
		return cli_stdout_done("toolcage", 0, 2);
	}
	/* getopt's messages start with the verb's argv[0]: "toolcage call:
	 * unrecognized option", not a bare "call:". */
	static char name[64];
	for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
		if (!strcmp(v, verbs[i].name)) {
			snprintf(name, sizeof name, "toolcage %s", verbs[i].name);
			argv[1] = name;
			return cli_stdout_done(name, verbs[i].fn(argc - 1, argv + 1), 2);
		}
	/* `toolcage -w DIR serve`: the options of a verb come after it. */
	if (v[0] == '-')
		shown_fprintf(
		        stderr,
		        "toolcage: unknown option '%s' before the verb: options come after it "
		        "(toolcage VERB [OPTIONS])\n\n",
		        v);
	else
		unknown_verb("toolcage", v);
	usage(stderr);
	return 2;
}
