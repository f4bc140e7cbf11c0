/* cli_replay.c — `toolcage replay FILE.jsonl`: recorded tool calls fed
 * through the pipeline one after another, as a scripted model would, with
 * an optional scripted approver per line. What evaluation harnesses run.
 * --shard I/N replays one share of the lines (N processes, pods or
 * machines split a corpus) and --merge puts the shares' --json outputs
 * back together as one run's. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pipeline.h"
#include "shown.h"
#include "util.h"

struct script {
	int approve; /* -1: not scripted, 0 deny, 1 allow once */
	bool asked;
	const char *answer;
};

static void scripted(const struct tc_approval_request *req, tc_approval_respond respond, void *ctx,
                     void *data)
{
	(void)req;
	struct script *sc = data;
	sc->asked = true;
	sc->answer = sc->approve ? "approved" : "refused";
	respond(ctx, sc->approve ? TC_APPROVE_ONCE : TC_APPROVE_DENY, "replay script");
}

#define NO_NAME                                                                                    \
	"no tool name: a call is {\"name\": TOOL, \"arguments\": {...}}, or OpenAI's "             \
	"{\"function\": {\"name\": TOOL, \"arguments\": \"...\"}}"
#define BAD_APPROVE                                                                                \
	"\"approve\" is neither true nor false: give true (the call is approved) or false (it "    \
	"is refused), or leave it out for the configured approval channel"

/* A line's "approve" into *approve: -1 when absent, else 0 or 1. -1 when
 * it is there but not a boolean: "yes" or "true" read as absent would put
 * the call to the configured channel (deny by default), and a harness
 * would score a refusal it never asked for. */
static int parse_approve(json_t *line, int *approve)
{
	json_t *ap = json_object_get(line, "approve");
	*approve = json_is_boolean(ap) ? json_is_true(ap) : -1;
	return ap && !json_is_boolean(ap) ? -1 : 0;
}

/* One recorded call: name, arguments as JSON text (new), approve flag.
 * -1 with *why (static) when it is not one. */
static int parse_call(json_t *line, const char **name, char **args, int *approve, const char **why)
{
	json_t *fn = json_object_get(line, "function");
	json_t *src = json_is_object(fn) ? fn : line;
	*name = json_string_value(json_object_get(src, "name"));
	json_t *a = supervisor_call_arguments(src); /* null: absent, as MCP takes it */
	*why = NO_NAME;
	if (!*name)
		return -1;
	*why = BAD_APPROVE;
	if (parse_approve(line, approve) < 0)
		return -1;
	*why = "could not be read (out of memory)";
	if (json_is_string(a)) /* OpenAI: arguments are JSON text */
		*args = strdup(json_string_value(a));
	else
		*args = a ? json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY) : strdup("{}");
	return *args ? 0 : -1;
}

struct totals {
	unsigned calls, ok, failed, denied;
	uint64_t ms;
};

/* --shard INDEX/COUNT: line L (counted from 1, every line) belongs to
 * share (L - 1) % COUNT. Lines of other shares are still parsed, to count
 * their calls: a call keeps the number it has in a whole run, so the
 * shares' rows merge into exactly the whole run's. */
struct shard {
	unsigned index, count; /* count 0: not sharded */
};

static bool shard_mine(const struct shard *sh, unsigned lineno)
{
	return !sh->count || (lineno - 1) % sh->count == sh->index;
}

/* How many of s's first max bytes a column may show without cutting a
 * character: a cut one would leave a lone lead byte on the terminal, or
 * a continuation byte such as 0x9b (CSI to a terminal of another
 * encoding). */
static int whole_chars(const char *s, size_t max)
{
	size_t len = strnlen(s, max);
	if (s[len] != '\0' && s[len] != '\n')
		while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
	return (int)len;
}

static void report(bool as_json, unsigned n, unsigned lineno, const char *name,
                   const struct script *sc, const struct tc_result *r, struct totals *t)
{
	const char *decision = sc->asked      ? sc->answer :
	        r->status == TC_STATUS_DENIED ? "denied" :
	        r->status == TC_STATUS_INVALID_ARGUMENTS || r->status == TC_STATUS_UNKNOWN_TOOL ?
	                                        "-" :
	                                        "allowed";
	t->calls++;
	t->ms += r->duration_ms;
	if (r->status == TC_STATUS_OK)
		t->ok++;
	else if (r->status == TC_STATUS_DENIED)
		t->denied++;
	else
		t->failed++;
	if (as_json) {
		json_t *j = json_pack("{s:i, s:i, s:s, s:s, s:s, s:I, s:b, s:O, s:s}", "call", n,
		                      "line", lineno, "tool", name, "decision", decision, "status",
		                      tc_status_name(r->status), "ms", (json_int_t)r->duration_ms,
		                      "truncated", r->truncated, "canonical", r->canonical,
		                      "render", r->render);
		json_dumpf(j, stdout, JSON_COMPACT);
		fputc('\n', stdout);
		json_decref(j);
		return;
	}
	/* The render's first line (its CR too, of a CRLF), at most 71 bytes. */
	const char *render = r->render ? r->render : "";
	size_t line = strcspn(render, "\n");
	if (line && render[line - 1] == '\r')
		line--;
	/* The name comes from the file as written (an unknown tool's too): it
	 * must not put an escape sequence on the terminal, nor hide a part. */
	char *clean = shown_dup(name);
	const char *shown_name = clean ? clean : "?";
	printf("%4u  %-16.*s %-9s %-17s %6llu  %.*s\n", n, whole_chars(shown_name, 16), shown_name,
	       decision, tc_status_name(r->status), (unsigned long long)r->duration_ms,
	       whole_chars(render, line < 71 ? line : 71), render);
	free(clean);
}

/* A line longer than this is reported, not buffered: memory stays bounded
 * whatever the file holds (16 times the default limits.max_message_bytes). */
#define MAX_LINE (64u << 20)

/* A line (or one of its tool_calls) that is not a call still gets its own
 * row, so that every recorded call has exactly one result; the replay goes
 * on and ends with exit status 2. */
static void report_bad(bool as_json, unsigned n, const char *path, unsigned lineno, const char *why,
                       struct totals *t)
{
	t->calls++;
	t->failed++;
	shown_fprintf(stderr, "toolcage replay: %s:%u: %s\n", path, lineno, why);
	if (as_json) {
		json_t *j =
		        json_pack("{s:i, s:n, s:s, s:s, s:i, s:s}", "call", n, "tool", "decision",
		                  "-", "status", "bad_line", "line", lineno, "error", why);
		json_dumpf(j, stdout, JSON_COMPACT);
		fputc('\n', stdout);
		json_decref(j);
		return;
	}
	shown_fprintf(stdout, "%4u  %-16.16s %-9s %-17s %6u  line %u: %.60s\n", n, "-", "-",
	              "bad_line", 0u, lineno, why);
}

/* How many rows line j gives in a whole run (replay_line's count). */
static unsigned line_rows(json_t *j)
{
	if (!json_is_object(j))
		return 1;
	json_t *calls = json_object_get(j, "tool_calls");
	size_t count = json_is_array(calls) ? json_array_size(calls) : 1;
	return count ? (unsigned)count : 1;
}

/* Replays the calls of one parsed line j. Returns how many were bad. */
static unsigned replay_line(struct tc_supervisor *s, json_t *j, const char *path, unsigned lineno,
                            bool as_json, unsigned *n, struct totals *t)
{
	json_t *calls = json_object_get(j, "tool_calls");
	size_t count = json_is_array(calls) ? json_array_size(calls) : 1;
	unsigned bad = 0;
	if (count == 0) {
		report_bad(as_json, ++*n, path, lineno, "tool_calls is empty", t);
		return 1;
	}
	int line_approve; /* the line's, for each of its tool_calls without one */
	if (parse_approve(j, &line_approve) < 0) {
		for (size_t i = 0; i < count; i++)
			report_bad(as_json, ++*n, path, lineno, BAD_APPROVE, t);
		return (unsigned)count;
	}
	for (size_t i = 0; i < count && !tc_supervisor_signal(s); i++) {
		json_t *call = json_is_array(calls) ? json_array_get(calls, i) : j;
		const char *name;
		char *args = NULL;
		struct script sc = { 0 };
		const char *why = NO_NAME;
		if (!json_is_object(call) ||
		    parse_call(call, &name, &args, &sc.approve, &why) < 0) {
			report_bad(as_json, ++*n, path, lineno, why, t);
			bad++;
			continue;
		}
		if (sc.approve < 0)
			sc.approve = line_approve;
		tc_supervisor_set_approver(s, sc.approve >= 0 ? scripted : NULL, &sc);
		struct tc_result *r = tc_call(s, name, args);
		if (r)
			report(as_json, ++*n, lineno, name, &sc, r, t);
		else
			report_bad(as_json, ++*n, path, lineno, "could not be run (out of memory)",
			           t);
		bad += !r;
		tc_result_free(r);
		free(args);
	}
	return bad;
}

static int replay_file(struct tc_supervisor *s, FILE *f, const char *path, bool as_json,
                       const struct shard *sh)
{
	struct totals t = { 0 };
	struct buf line = BUF_INIT;
	bool too_long;
	unsigned lineno = 0, n = 0, bad = 0;
	if (!as_json)
		printf("call  tool             decision  status                ms  render\n");
	while (!tc_supervisor_signal(s) && buf_read_line(f, &line, MAX_LINE, &too_long)) {
		lineno++;
		bool has_nul = !too_long && line.len && memchr(line.data, '\0', line.len);
		const char *p = line.data ? line.data : "";
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!shard_mine(sh, lineno)) {
			if (too_long || has_nul) {
				n++;
			} else if (*p && *p != '#') {
				json_t *j = json_loads(p, 0, NULL);
				n += line_rows(j);
				json_decref(j);
			}
			continue;
		}
		if (too_long || has_nul) {
			report_bad(as_json, ++n, path, lineno,
			           too_long ? "line longer than 64 MiB" : "line holds a NUL byte",
			           &t);
			bad++;
			continue;
		}
		if (!*p || *p == '#')
			continue;
		json_error_t je;
		json_t *j = json_loads(p, 0, &je);
		if (!json_is_object(j)) {
			char why[200];
			snprintf(why, sizeof why, "not a JSON object%s%s", j ? "" : ": ",
			         j ? "" : je.text);
			report_bad(as_json, ++n, path, lineno, why, &t);
			bad++;
		} else {
			bad += replay_line(s, j, path, lineno, as_json, &n, &t);
		}
		json_decref(j);
	}
	buf_release(&line);
	tc_supervisor_set_approver(s, NULL, NULL);
	if (as_json && sh->count) {
		printf("{\"summary\":{\"calls\":%u,\"ok\":%u,\"denied\":%u,\"failed\":%u,\"ms\":%llu,"
		       "\"shard\":{\"index\":%u,\"count\":%u,\"rows\":%u}}}\n",
		       t.calls, t.ok, t.denied, t.failed, (unsigned long long)t.ms, sh->index,
		       sh->count, n);
	} else if (as_json) {
		printf("{\"summary\":{\"calls\":%u,\"ok\":%u,\"denied\":%u,\"failed\":%u,\"ms\":%llu}}\n",
		       t.calls, t.ok, t.denied, t.failed, (unsigned long long)t.ms);
	} else {
		printf("totals: %u calls, %u ok, %u denied, %u other failures, %llu ms\n", t.calls,
		       t.ok, t.denied, t.failed, (unsigned long long)t.ms);
	}
	if (tc_supervisor_signal(s)) {
		shown_fprintf(stderr, "toolcage replay: stopped by signal %d after %u calls\n",
		              tc_supervisor_signal(s), t.calls);
		return 128 + tc_supervisor_signal(s);
	}
	if (ferror(f)) {
		shown_fprintf(stderr, "toolcage replay: %s: read error: %s\n", path,
		              strerror(errno));
		return 2;
	}
	return bad ? 2 : 0;
}

/* ---- --merge: the shares' --json outputs as one run's -------------------
 * Each input is one share's output, its rows in call order: a k-way merge
 * streams them (memory: one row per input), checks that every call number
 * of the whole run comes exactly once and that every share 0..COUNT-1 is
 * there once, and prints the rows as they were written, then a summary
 * of the sums. Lines a log collector mixed in from the shares' stderr
 * ("toolcage replay: ...") go back to stderr. */
struct merge_in {
	FILE *f;
	const char *path;
	unsigned lineno;
	char *text; /* the current row as written (new), NULL at EOF */
	unsigned call;
	bool bad_line;
	json_t *summary; /* the share's summary object (new) */
};

#define MERGE_MAX_INPUTS 4096

static int merge_fail(const char *path, unsigned lineno, const char *why)
{
	shown_fprintf(stderr, "toolcage replay --merge: %s:%u: %s\n", path, lineno, why);
	return -1;
}

/* Reads in's next row. Returns 0 (a row, or EOF with text NULL) or -1. */
static int merge_next(struct merge_in *in)
{
	static const char diag[] = "toolcage replay: ";
	struct buf line = BUF_INIT;
	bool too_long;
	unsigned last = in->call;
	free(in->text);
	in->text = NULL;
	while (buf_read_line(in->f, &line, MAX_LINE, &too_long)) {
		in->lineno++;
		if (too_long || (line.len && memchr(line.data, '\0', line.len)))
			return buf_release(&line), merge_fail(in->path, in->lineno, "not a row");
		const char *p = line.data ? line.data : "";
		if (!*p)
			continue;
		if (!strncmp(p, diag, sizeof diag - 1)) {
			shown_fprintf(stderr, "%s\n", p);
			continue;
		}
		json_t *j = json_loads(p, 0, NULL);
		json_t *sum = json_object_get(j, "summary");
		json_t *call = json_object_get(j, "call");
		if (json_is_object(sum) && !in->summary) {
			in->summary = json_incref(sum);
			json_decref(j);
			continue;
		}
		if (!json_is_integer(call) || json_integer_value(call) <= (json_int_t)last ||
		    json_integer_value(call) > (json_int_t)UINT32_MAX) {
			json_decref(j);
			buf_release(&line);
			return merge_fail(
			        in->path, in->lineno,
			        sum ? "a second summary" :
			              "not a row of `toolcage replay --json`, in call order");
		}
		in->call = (unsigned)json_integer_value(call);
		in->bad_line =
		        !strcmp(json_string_value(json_object_get(j, "status")) ?: "", "bad_line");
		json_decref(j);
		in->text = buf_detach(&line);
		return 0;
	}
	buf_release(&line);
	if (ferror(in->f))
		return merge_fail(in->path, in->lineno, strerror(errno));
	return 0;
}

static json_int_t sum_field(struct merge_in *in, int n, const char *key)
{
	json_int_t v = 0;
	for (int i = 0; i < n; i++)
		v += json_integer_value(json_object_get(in[i].summary, key));
	return v;
}

/* Every share there once, all of one COUNT, each having seen all rows. */
static int merge_check_shares(struct merge_in *in, int n, unsigned rows)
{
	json_int_t count = -1;
	bool seen[MERGE_MAX_INPUTS] = { 0 };
	for (int i = 0; i < n; i++) {
		json_t *sh = json_object_get(in[i].summary, "shard");
		json_int_t idx = json_integer_value(json_object_get(sh, "index"));
		json_int_t cnt = json_integer_value(json_object_get(sh, "count"));
		if (!json_is_object(sh))
			return merge_fail(in[i].path, in[i].lineno,
			                  "no summary of a --shard run "
			                  "(the share did not finish, or was not sharded)");
		if (count >= 0 && cnt != count)
			return merge_fail(in[i].path, in[i].lineno, "a share of another count");
		count = cnt;
		if (idx < 0 || idx >= cnt || cnt > MERGE_MAX_INPUTS || seen[idx])
			return merge_fail(in[i].path, in[i].lineno, "a share given twice");
		seen[idx] = true;
		if (json_integer_value(json_object_get(sh, "rows")) != rows)
			return merge_fail(in[i].path, in[i].lineno, "a share of another corpus");
	}
	if (count != n) {
		shown_fprintf(stderr, "toolcage replay --merge: %d of %lld shares given\n", n,
		              (long long)count);
		return -1;
	}
	return 0;
}

static int merge_files(int n, char **paths)
{
	struct merge_in *in = calloc((size_t)n, sizeof *in);
	int rc = 2, i;
	unsigned expect = 1;
	bool bad = false;
	if (!in)
		return fputs("toolcage replay --merge: out of memory\n", stderr), 2;
	for (i = 0; i < n; i++) {
		in[i].path = paths[i];
		struct tc_error err = { 0 };
		if (strcmp(paths[i], "-") &&
		    cli_path_check("--merge", paths[i], CLI_PATH_READ,
		                   "Give the --json output of each share "
		                   "(toolcage replay --json --shard I/N FILE > share-I.jsonl).",
		                   &err) < 0) {
			shown_fprintf(stderr, "toolcage replay: %s: %s\n", err.where, err.msg);
			goto out;
		}
		in[i].f = strcmp(paths[i], "-") ? fopen(paths[i], "re") : stdin;
		if (!in[i].f) {
			shown_fprintf(stderr, "toolcage replay --merge: %s: %s\n", paths[i],
			              strerror(errno));
			goto out;
		}
		if (merge_next(&in[i]) < 0)
			goto out;
	}
	for (;;) {
		int best = -1;
		for (i = 0; i < n; i++)
			if (in[i].text && (best < 0 || in[i].call < in[best].call))
				best = i;
		if (best < 0)
			break;
		if (in[best].call != expect) {
			char why[120];
			if (in[best].call < expect)
				snprintf(why, sizeof why, "call %u twice", in[best].call);
			else if (in[best].call == expect + 1)
				snprintf(why, sizeof why, "call %u is missing (a share not given?)",
				         expect);
			else
				snprintf(why, sizeof why,
				         "calls %u to %u are missing (a share not given?)", expect,
				         in[best].call - 1);
			merge_fail(in[best].path, in[best].lineno, why);
			goto out;
		}
		puts(in[best].text);
		bad |= in[best].bad_line;
		expect++;
		if (merge_next(&in[best]) < 0)
			goto out;
	}
	if (merge_check_shares(in, n, expect - 1) < 0)
		goto out;
	printf("{\"summary\":{\"calls\":%lld,\"ok\":%lld,\"denied\":%lld,\"failed\":%lld,"
	       "\"ms\":%lld}}\n",
	       (long long)sum_field(in, n, "calls"), (long long)sum_field(in, n, "ok"),
	       (long long)sum_field(in, n, "denied"), (long long)sum_field(in, n, "failed"),
	       (long long)sum_field(in, n, "ms"));
	rc = bad ? 2 : 0;
out:
	for (i = 0; i < n; i++) {
		if (in[i].f && in[i].f != stdin)
			fclose(in[i].f);
		free(in[i].text);
		json_decref(in[i].summary);
	}
	free(in);
	return rc;
}

static int parse_shard(const char *arg, struct shard *sh)
{
	char *end;
	errno = 0;
	unsigned long i = strtoul(arg, &end, 10);
	if (errno || end == arg || *end != '/' || arg[0] == '-')
		return -1;
	const char *c = end + 1;
	unsigned long n = strtoul(c, &end, 10);
	if (errno || end == c || *end || c[0] == '-' || n < 1 || n > MERGE_MAX_INPUTS || i >= n)
		return -1;
	sh->index = (unsigned)i;
	sh->count = (unsigned)n;
	return 0;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_SUP_LONGOPTS,
		{ "json", no_argument, NULL, 'j' },
		{ "shard", required_argument, NULL, 's' },
		{ "merge", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_sup sup = { .opt.handle_signals = true, .opt.keep_spares = true };
	struct shard sh = { 0, 0 };
	bool as_json = false, merge = false;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, CLI_SUP_SHORTOPTS "jh", longopts, NULL)) != -1) {
		int took = cli_sup_option(&sup, ch, optarg, "replay");
		if (took < 0)
			return 2;
		if (took)
			continue;
		if (ch == 'j') {
			as_json = true;
		} else if (ch == 'm') {
			merge = true;
		} else if (ch == 's') {
			if (parse_shard(optarg, &sh) < 0) {
				shown_fprintf(
				        stderr,
				        "toolcage replay: --shard wants INDEX/COUNT, 0 <= INDEX < "
				        "COUNT <= %d, not '%s'\n\n",
				        MERGE_MAX_INPUTS, optarg);
				cli_usage(stderr, "replay");
				return 2;
			}
		} else if (ch == 'h') {
			cli_usage(stdout, "replay");
			return 0;
		} else {
			cli_usage(stderr, "replay");
			return 2;
		}
	}
	if (merge) {
		if (optind >= argc || argc - optind > MERGE_MAX_INPUTS || sh.count) {
			if (sh.count)
				fputs("toolcage replay: --merge joins the shards' outputs; it takes "
				      "no --shard\n\n",
				      stderr);
			else if (optind >= argc)
				fputs("toolcage replay: --merge needs the SHARE.jsonl files the "
				      "shards wrote (replay --json --shard I/N each)\n\n",
				      stderr);
			else
				shown_fprintf(stderr,
				              "toolcage replay: --merge takes at most %d files\n\n",
				              MERGE_MAX_INPUTS);
			cli_usage(stderr, "replay");
			return 2;
		}
		return merge_files(argc - optind, argv + optind);
	}
	if (optind + 1 != argc) {
		if (optind >= argc)
			fputs("toolcage replay: no FILE given: a JSONL file of recorded calls "
			      "(one {\"name\": ..., \"arguments\": {...}} a line), or - for "
			      "standard input\n\n",
			      stderr);
		else
			shown_fprintf(
			        stderr,
			        "toolcage replay: unexpected argument '%s': replay takes one FILE "
			        "(--merge joins several shares)\n\n",
			        argv[optind + 1]);
		cli_usage(stderr, "replay");
		return 2;
	}
	struct tc_error err = { 0 };
	if (strcmp(argv[optind], "-") &&
	    cli_path_check("FILE", argv[optind], CLI_PATH_READ,
	                   "Give a JSONL file of recorded calls, or - for standard input.",
	                   &err) < 0) {
		shown_fprintf(stderr, "toolcage replay: %s: %s\n", err.where, err.msg);
		return 2;
	}
	FILE *f = strcmp(argv[optind], "-") ? fopen(argv[optind], "re") : stdin;
	if (!f) {
		shown_fprintf(stderr, "toolcage replay: %s: %s\n", argv[optind], strerror(errno));
		return 2;
	}
	struct tc_supervisor *s = cli_sup_open(&sup, "replay");
	if (!s) {
		if (f != stdin)
			fclose(f);
		return 2;
	}
	int rc = replay_file(s, f, argv[optind], as_json, &sh);
	if (f != stdin)
		fclose(f);
	tc_supervisor_free(s);
	return rc;
}
