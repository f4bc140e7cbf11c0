/* cli_schema.c — `toolcage schema validate`: compile a JSON Schema once and
 * validate JSON instances against it, one document per line.
 *
 * Exit status: 0 every instance valid, 1 any invalid (or not JSON),
 * 2 the schema was refused or the command line is wrong. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "schema.h"
#include "shown.h"
#include "util.h"

/* A line longer than this is reported as invalid rather than buffered:
 * tool arguments are far smaller, and memory stays bounded. */
#define MAX_LINE (16u << 20)

static int parse_draft(const char *s, enum schema_draft *out)
{
	if (!strcmp(s, "7") || !strcmp(s, "07") || !strcmp(s, "draft-07"))
		*out = SCHEMA_DRAFT_07;
	else if (!strcmp(s, "2020-12") || !strcmp(s, "2020"))
		*out = SCHEMA_DRAFT_2020_12;
	else
		return -1;
	return 0;
}

#define SCHEMA_FILE_MAX (64u << 20) /* bytes of a schema file */

static struct schema *load_schema(const char *path, const struct schema_options *o)
{
	/* Read first, then parse: a file that cannot be read is not "not
	 * valid JSON" at line -1. */
	struct tc_error err = { 0 };
	struct buf b = BUF_INIT;
	if (read_file_bounded(path, SCHEMA_FILE_MAX, &b, &err) < 0) {
		shown_fprintf(stderr,
		              "toolcage schema: %s: %s. Give the path of a JSON Schema file "
		              "(SCHEMA_FILE, before the instances).\n",
		              err.where, err.msg);
		buf_release(&b);
		return NULL;
	}
	json_error_t jerr;
	json_t *doc = json_loadb(b.data, b.len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	buf_release(&b);
	if (!doc) {
		shown_fprintf(stderr, "toolcage schema: %s:%d:%d: schema is not valid JSON: %s\n",
		              path, jerr.line, jerr.column, jerr.text);
		return NULL;
	}
	struct schema *s = schema_compile_opts(doc, o, &err);
	json_decref(doc);
	if (!s)
		shown_fprintf(stderr, "toolcage schema: %s: schema refused at %s: %s\n", path,
		              err.where[0] ? err.where : "/", err.msg);
	return s;
}

/* Validates line lineno; prints the verdict. Returns 1 valid, 0 invalid. */
static int check_line(const struct schema *s, const char *line, size_t len, unsigned long lineno,
                      size_t max_diags)
{
	json_error_t jerr;
	json_t *inst = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	if (!inst) {
		printf("invalid: /: not valid JSON: line %lu, column %d: %s\n", lineno, jerr.column,
		       jerr.text);
		return 0;
	}
	struct schema_result res;
	int rc = schema_validate(s, inst, &res, max_diags);
	json_decref(inst);
	if (rc == 1) {
		puts("valid");
	} else {
		char *text = schema_result_text(&res);
		printf("invalid: %s\n",
		       text && *text ? text : "/: could not be validated (out of memory)");
		free(text);
	}
	schema_result_release(&res);
	return rc == 1;
}

static int run(const struct schema *s, FILE *in, const char *name, size_t max_diags)
{
	struct buf line = BUF_INIT;
	bool too_long;
	int status = 0;
	unsigned long lineno = 0;
	while (buf_read_line(in, &line, MAX_LINE, &too_long)) {
		lineno++;
		if (too_long) {
			printf("invalid: /: line %lu is longer than %u bytes\n", lineno, MAX_LINE);
			status = 1;
			continue;
		}
		size_t n = line.len;
		while (n > 0 && line.data[n - 1] == '\r')
			n--;
		if (n == 0 || strspn(line.data, " \t") >= n)
			continue;
		if (memchr(line.data, '\0', n)) {
			printf("invalid: /: not valid JSON: line %lu holds a NUL byte\n", lineno);
			status = 1;
			continue;
		}
		if (!check_line(s, line.data, n, lineno, max_diags))
			status = 1;
		fflush(stdout);
	}
	if (ferror(in)) {
		shown_fprintf(stderr, "toolcage schema: %s: read error: %s\n", name,
		              strerror(errno));
		status = 2;
	}
	buf_release(&line);
	return status;
}

int cmd_schema(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		if (argc < 2)
			fputs("toolcage schema: no subcommand given: the one there is is "
			      "validate\n\n",
			      stderr);
		cli_usage(argc < 2 ? stderr : stdout, "schema");
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "validate")) {
		shown_fprintf(stderr, "toolcage schema: unknown subcommand '%s'\n\n", argv[1]);
		cli_usage(stderr, "schema");
		return 2;
	}
	static const struct option longopts[] = {
		{ "draft", required_argument, NULL, 'd' },
		{ "assert-format", no_argument, NULL, 'f' },
		{ "max-diags", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct schema_options o = { SCHEMA_DRAFT_AUTO, false };
	size_t max_diags = 0;
	int c;
	optind = 1;
	argc--, argv++; /* getopt sees "validate" as argv[0], named for its messages */
	argv[0] = (char *)"toolcage schema validate";
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'd':
			if (parse_draft(optarg, &o.draft) < 0) {
				shown_fprintf(
				        stderr,
				        "toolcage schema validate: --draft takes 7 or 2020-12, not "
				        "'%s'\n\n",
				        optarg);
				cli_usage(stderr, "schema");
				return 2;
			}
			break;
		case 'f': o.assert_format = true; break;
		case 'm':
			errno = 0;
			max_diags = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || max_diags == 0 || max_diags > 10000) {
				shown_fprintf(
				        stderr,
				        "toolcage schema validate: --max-diags takes 1..10000, not "
				        "'%s'\n\n",
				        optarg);
				cli_usage(stderr, "schema");
				return 2;
			}
			break;
		case 'h': cli_usage(stdout, "schema"); return 0;
		default: cli_usage(stderr, "schema"); return 2;
		}
	}
	if (argc - optind < 1 || argc - optind > 2) {
		if (argc - optind < 1)
			fputs("toolcage schema validate: no SCHEMA_FILE given: the JSON Schema "
			      "file, then the instances (one JSON document a line; standard input "
			      "without a file)\n\n",
			      stderr);
		else
			shown_fprintf(
			        stderr,
			        "toolcage schema validate: unexpected argument '%s': give one "
			        "SCHEMA_FILE and at most one INSTANCE_FILE\n\n",
			        argv[optind + 2]);
		cli_usage(stderr, "schema");
		return 2;
	}
	struct schema *s = load_schema(argv[optind], &o);
	if (!s)
		return 2;
	const char *iname = argc - optind == 2 ? argv[optind + 1] : "-";
	FILE *in = strcmp(iname, "-") ? fopen(iname, "re") : stdin;
	/* A directory opens for reading and fails at the first read: said
	 * here, as a missing file is. A pipe or a device is read. */
	struct stat st;
	const char *why = NULL;
	if (!in)
		why = strerror(errno);
	else if (in != stdin && fstat(fileno(in), &st) == 0 && S_ISDIR(st.st_mode))
		why = "is a directory";
	if (why) {
		shown_fprintf(stderr,
		              "toolcage schema: %s: %s%s. Give the file of instances "
		              "(INSTANCE_FILE, one JSON document a line), or leave it out to read "
		              "standard input.\n",
		              iname, in ? "" : "cannot open: ", why);
		if (in)
			fclose(in);
		schema_free(s);
		return 2;
	}
	int status = run(s, in, iname, max_diags);
	if (in != stdin)
		fclose(in);
	schema_free(s);
	return status;
}
