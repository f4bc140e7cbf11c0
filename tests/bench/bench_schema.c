/* bench_schema.c — JSON Schema validation throughput (validations per
 * second) on a typical tool schema: an object with 5 typed properties, a
 * pattern, an enum, required and additionalProperties:false. Instances are
 * parsed once; only validation is timed, as ajv's figure is (see
 * schema_ajv.sh). Reports the median of repeated runs: the machine is
 * shared and noisy.
 *
 *   bench_schema [SCHEMA VALID.jsonl INVALID.jsonl [N [RUNS]]]
 *   defaults: tests/data/schema/bench.{schema.json,valid.jsonl,invalid.jsonl},
 *   N = 200000 validations per run, RUNS = 9
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schema.h"

#define MAX_INST 64

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static size_t load_lines(const char *path, json_t **out)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0, n = 0;
	if (!f) {
		perror(path);
		exit(2);
	}
	while (n < MAX_INST && getline(&line, &cap, f) > 0) {
		json_error_t e;
		json_t *j = json_loads(line, JSON_DECODE_ANY, &e);
		if (j)
			out[n++] = j;
	}
	free(line);
	fclose(f);
	return n;
}

/* mode 0: verdict only; 1: with diagnostics (kept and released) */
static double run_once(const struct schema *s, json_t **inst, size_t ninst, long n, int mode,
                       int want)
{
	double t0 = now_s();
	for (long i = 0; i < n; i++) {
		struct schema_result res;
		int r = schema_validate(s, inst[(size_t)i % ninst], mode ? &res : NULL, 0);
		if (mode)
			schema_result_release(&res);
		if (r != want) {
			fprintf(stderr, "bench_schema: unexpected verdict %d\n", r);
			exit(1);
		}
	}
	return (double)n / (now_s() - t0);
}

static void report(const char *label, const struct schema *s, json_t **inst, size_t ninst, long n,
                   int runs, int mode, int want)
{
	double v[64];
	run_once(s, inst, ninst, n / 10, mode, want); /* warm up */
	for (int r = 0; r < runs; r++)
		v[r] = run_once(s, inst, ninst, n, mode, want);
	qsort(v, (size_t)runs, sizeof v[0], cmp);
	printf("  toolcage %-22s %12.0f validations/s  (median of %d, min %.0f, max %.0f)\n", label,
	       v[runs / 2], runs, v[0], v[runs - 1]);
}

int main(int argc, char **argv)
{
	const char *sp = argc > 3 ? argv[1] : "tests/data/schema/bench.schema.json";
	const char *vp = argc > 3 ? argv[2] : "tests/data/schema/bench.valid.jsonl";
	const char *ip = argc > 3 ? argv[3] : "tests/data/schema/bench.invalid.jsonl";
	long n = argc > 4 ? atol(argv[4]) : 200000;
	int runs = argc > 5 ? atoi(argv[5]) : 9;
	if (n < 10 || runs < 1 || runs > 64) {
		fprintf(stderr, "usage: bench_schema [SCHEMA VALID INVALID [N [RUNS]]]\n");
		return 2;
	}
	json_error_t e;
	json_t *doc = json_load_file(sp, 0, &e);
	if (!doc) {
		fprintf(stderr, "%s: %s\n", sp, e.text);
		return 2;
	}
	struct tc_error err;
	double t0 = now_s();
	struct schema *s = schema_compile(doc, SCHEMA_DRAFT_AUTO, &err);
	double compile_us = (now_s() - t0) * 1e6;
	if (!s) {
		fprintf(stderr, "%s: refused at %s: %s\n", sp, err.where, err.msg);
		return 2;
	}
	json_t *valid[MAX_INST], *invalid[MAX_INST];
	size_t nv = load_lines(vp, valid), ni = load_lines(ip, invalid);
	if (!nv || !ni) {
		fprintf(stderr, "bench_schema: no instances\n");
		return 2;
	}
	printf("  toolcage compile (incl. metaschema check): %.0f us\n", compile_us);
	report("valid", s, valid, nv, n, runs, 0, 1);
	report("invalid (verdict)", s, invalid, ni, n, runs, 0, 0);
	report("invalid (all diags)", s, invalid, ni, n, runs, 1, 0);
	for (size_t i = 0; i < nv; i++)
		json_decref(valid[i]);
	for (size_t i = 0; i < ni; i++)
		json_decref(invalid[i]);
	schema_free(s);
	json_decref(doc);
	return 0;
}
