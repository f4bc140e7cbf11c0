/* cli_replay.c — `toolcage replay FILE.jsonl`: recorded tool calls fed
 * through the pipeline one after another, as a scripted model would, with
 * an optional scripted approver per line. What evaluation harnesses run. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pipeline.h"
#include "render.h"
#include "util.h"

struct script {
	int approve;             /* -1: not scripted, 0 deny, 1 allow once */
	bool asked;
	const char *answer;
};

static void scripted(const struct tc_approval_request *req, tc_approval_respond respond,
                     void *ctx, void *data)
{
	(void)req;
	struct script *sc = data;
	sc->asked = true;
	sc->answer = sc->approve ? "approved" : "refused";
	respond(ctx, sc->approve ? TC_APPROVE_ONCE : TC_APPROVE_DENY, "replay script");
}

/* One recorded call: name, arguments as JSON text (new), approve flag. */
static int parse_call(json_t *line, const char **name, char **args, int *approve)
{
	json_t *fn = json_object_get(line, "function");
	json_t *src = json_is_object(fn) ? fn : line;
	*name = json_string_value(json_object_get(src, "name"));
	json_t *a = json_object_get(src, "arguments");
	json_t *ap = json_object_get(line, "approve");
	*approve = json_is_boolean(ap) ? json_is_true(ap) : -1;
	if (!*name)
		return -1;
	if (json_is_string(a))     /* OpenAI: arguments are JSON text */
		*args = strdup(json_string_value(a));
	else
		*args = a ? json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY) : strdup("{}");
	return *args ? 0 : -1;
}

struct totals {
	unsigned calls, ok, failed, denied;
	uint64_t ms;
};

static void report(bool as_json, unsigned n, const char *name, const struct script *sc,
                   const struct tc_result *r, struct totals *t)
{
	const char *decision = sc->asked ? sc->answer :
	                       r->status == TC_STATUS_DENIED ? "denied" :
	                       r->status == TC_STATUS_INVALID_ARGUMENTS ||
	                       r->status == TC_STATUS_UNKNOWN_TOOL ? "-" : "allowed";
	t->calls++;
	t->ms += r->duration_ms;
	if (r->status == TC_STATUS_OK)
		t->ok++;
	else if (r->status == TC_STATUS_DENIED)
		t->denied++;
	else
		t->failed++;
	if (as_json) {
		json_t *j = json_pack("{s:i, s:s, s:s, s:s, s:I, s:b, s:O, s:s}", "call", n,
		                      "tool", name, "decision", decision, "status",
		                      tc_status_name(r->status), "ms", (json_int_t)r->duration_ms,
		                      "truncated", r->truncated, "canonical", r->canonical,
		                      "render", r->render);
		json_dumpf(j, stdout, JSON_COMPACT);
		fputc('\n', stdout);
		json_decref(j);
		return;
	}
	char first[72];
	snprintf(first, sizeof first, "%s", r->render);
	first[strcspn(first, "\n")] = '\0';
	/* The name comes from the file as written (an unknown tool's too): it
	 * must not put an escape sequence on the terminal. */
	size_t len;
	char *clean = render_clean(name, strlen(name), &len);
	printf("%4u  %-16.16s %-9s %-17s %6llu  %s\n", n, clean ? clean : "?", decision,
	       tc_status_name(r->status), (unsigned long long)r->duration_ms, first);
	free(clean);
}

/* A line longer than this is reported, not buffered: memory stays bounded
 * whatever the file holds (16 times the default limits.max_message_bytes). */
#define MAX_LINE (64u << 20)

/* A line (or one of its tool_calls) that is not a call still gets its own
 * row, so that every recorded call has exactly one result; the replay goes
 * on and ends with exit status 2. */
static void report_bad(bool as_json, unsigned n, const char *path, unsigned lineno,
                       const char *why, struct totals *t)
{
	t->calls++;
	t->failed++;
	fprintf(stderr, "toolcage replay: %s:%u: %s\n", path, lineno, why);
	if (as_json) {
		json_t *j = json_pack("{s:i, s:n, s:s, s:s, s:i, s:s}", "call", n, "tool",
		                      "decision", "-", "status", "bad_line", "line", lineno,
		                      "error", why);
		json_dumpf(j, stdout, JSON_COMPACT);
		fputc('\n', stdout);
		json_decref(j);
		return;
	}
	printf("%4u  %-16.16s %-9s %-17s %6u  line %u: %.60s\n", n, "-", "-", "bad_line", 0u,
	       lineno, why);
}

/* Replays the calls of one parsed line j. Returns how many were bad. */
static unsigned replay_line(struct tc_supervisor *s, json_t *j, const char *path,
                            unsigned lineno, bool as_json, unsigned *n, struct totals *t)
{
	json_t *calls = json_object_get(j, "tool_calls");
	size_t count = json_is_array(calls) ? json_array_size(calls) : 1;
	unsigned bad = 0;
	if (count == 0) {
		report_bad(as_json, ++*n, path, lineno, "tool_calls is empty", t);
		return 1;
	}
	for (size_t i = 0; i < count && !tc_supervisor_signal(s); i++) {
		json_t *call = json_is_array(calls) ? json_array_get(calls, i) : j;
		const char *name;
		char *args = NULL;
		struct script sc = { 0 };
		if (!json_is_object(call) || parse_call(call, &name, &args, &sc.approve) < 0) {
			report_bad(as_json, ++*n, path, lineno, "no tool name", t);
			bad++;
			continue;
		}
		if (sc.approve < 0 && json_is_boolean(json_object_get(j, "approve")))
			sc.approve = json_is_true(json_object_get(j, "approve"));
		tc_supervisor_set_approver(s, sc.approve >= 0 ? scripted : NULL, &sc);
		struct tc_result *r = tc_call(s, name, args);
		if (r)
			report(as_json, ++*n, name, &sc, r, t);
		else
			report_bad(as_json, ++*n, path, lineno, "could not be run (out of memory)", t);
		bad += !r;
		tc_result_free(r);
		free(args);
	}
	return bad;
}

static int replay_file(struct tc_supervisor *s, FILE *f, const char *path, bool as_json)
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
		if (too_long || has_nul) {
			report_bad(as_json, ++n, path, lineno, too_long ? "line longer than 64 MiB" :
			           "line holds a NUL byte", &t);
			bad++;
			continue;
		}
		if (!*p || *p == '#')
			continue;
		json_error_t je;
		json_t *j = json_loads(p, 0, &je);
		if (!json_is_object(j)) {
			char why[200];
			snprintf(why, sizeof why, "not a JSON object%s%s", j ? "" : ": ", j ? "" : je.text);
			report_bad(as_json, ++n, path, lineno, why, &t);
			bad++;
		} else {
			bad += replay_line(s, j, path, lineno, as_json, &n, &t);
		}
		json_decref(j);
	}
	buf_release(&line);
	tc_supervisor_set_approver(s, NULL, NULL);
	if (as_json) {
		printf("{\"summary\":{\"calls\":%u,\"ok\":%u,\"denied\":%u,\"failed\":%u,\"ms\":%llu}}\n",
		       t.calls, t.ok, t.denied, t.failed, (unsigned long long)t.ms);
	} else {
		printf("totals: %u calls, %u ok, %u denied, %u other failures, %llu ms\n", t.calls,
		       t.ok, t.denied, t.failed, (unsigned long long)t.ms);
	}
	if (tc_supervisor_signal(s)) {
		fprintf(stderr, "toolcage replay: stopped by signal %d after %u calls\n",
		        tc_supervisor_signal(s), t.calls);
		return 128 + tc_supervisor_signal(s);
	}
	if (ferror(f)) {
		fprintf(stderr, "toolcage replay: %s: read error: %s\n", path, strerror(errno));
		return 2;
	}
	return bad ? 2 : 0;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_SUP_LONGOPTS,
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_sup sup = { .opt.handle_signals = true, .opt.keep_spares = true };
	bool as_json = false;
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
		} else if (ch == 'h') {
			cli_usage(stdout, "replay");
			return 0;
		} else {
			cli_usage(stderr, "replay");
			return 2;
		}
	}
	if (optind + 1 != argc) {
		cli_usage(stderr, "replay");
		return 2;
	}
	FILE *f = strcmp(argv[optind], "-") ? fopen(argv[optind], "re") : stdin;
	if (!f) {
		fprintf(stderr, "toolcage replay: %s: %s\n", argv[optind], strerror(errno));
		return 2;
	}
	struct tc_supervisor *s = cli_sup_open(&sup, "replay");
	if (!s) {
		if (f != stdin)
			fclose(f);
		return 2;
	}
	int rc = replay_file(s, f, argv[optind], as_json);
	if (f != stdin)
		fclose(f);
	tc_supervisor_free(s);
	return rc;
}
