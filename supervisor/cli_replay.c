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
#include "util.h"

static const char replay_usage[] =
	"usage: toolcage replay [OPTIONS] [--json] FILE.jsonl\n"
	"\nEach line of FILE is one recorded call: {\"name\": ..., \"arguments\": {...}},\n"
	"or the OpenAI tool_calls shape ({\"function\": {\"name\", \"arguments\": \"<JSON\n"
	"text>\"}}, or {\"tool_calls\": [...]} for several), with an optional\n"
	"\"approve\": true|false that answers an approval for that call (without it,\n"
	"the configured channel answers: deny by default). Lines that are empty or\n"
	"start with # are skipped. Prints a table (call, decision, status, ms) and\n"
	"totals, or with --json one JSON object per call and a summary. Exit 0 when\n"
	"every line was replayed (whatever the calls' statuses), 2 on usage, config or\n"
	"file errors.\n"
	"\noptions:\n"
	"  --workspace DIR, --config FILE, --tools DIR, --approve CHANNEL, --audit FILE\n"
	"                      as for toolcage call\n";

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
	printf("%4u  %-16.16s %-9s %-17s %6llu  %s\n", n, name, decision,
	       tc_status_name(r->status), (unsigned long long)r->duration_ms, first);
}

static int replay_file(struct tc_supervisor *s, FILE *f, const char *path, bool as_json)
{
	struct totals t = { 0 };
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0, n = 0;
	ssize_t len;
	if (!as_json)
		printf("call  tool             decision  status                ms  render\n");
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\n' || *p == '#' || !*p)
			continue;
		json_error_t je;
		json_t *j = json_loads(p, 0, &je);
		json_t *calls = json_object_get(j, "tool_calls");
		size_t count = json_is_array(calls) ? json_array_size(calls) : 1;
		if (!json_is_object(j)) {
			fprintf(stderr, "toolcage replay: %s:%u: not a JSON object (%s)\n", path,
			        lineno, j ? "" : je.text);
			json_decref(j);
			free(line);
			return 2;
		}
		for (size_t i = 0; i < count; i++) {
			json_t *call = json_is_array(calls) ? json_array_get(calls, i) : j;
			const char *name;
			char *args = NULL;
			struct script sc = { 0 };
			if (parse_call(call, &name, &args, &sc.approve) < 0) {
				fprintf(stderr, "toolcage replay: %s:%u: no tool name\n", path, lineno);
				json_decref(j);
				free(line);
				return 2;
			}
			if (sc.approve < 0 && json_is_boolean(json_object_get(j, "approve")))
				sc.approve = json_is_true(json_object_get(j, "approve"));
			tc_supervisor_set_approver(s, sc.approve >= 0 ? scripted : NULL, &sc);
			struct tc_result *r = tc_call(s, name, args);
			if (r)
				report(as_json, ++n, name, &sc, r, &t);
			tc_result_free(r);
			free(args);
			if (tc_supervisor_signal(s))
				break;
		}
		json_decref(j);
		if (tc_supervisor_signal(s))
			break;
	}
	free(line);
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
	return 0;
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
			fputs(replay_usage, stdout);
			return 0;
		} else {
			fputs(replay_usage, stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fputs(replay_usage, stderr);
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
