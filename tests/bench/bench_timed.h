/* bench_timed.h — for the benchmarks that drive a supervisor: one call,
 * timed from its submission until its result is delivered (the callback:
 * where an MCP server answers; freeing the child and making the next spare
 * come after). Header-only: each benchmark is one program. */
#ifndef TC_BENCH_TIMED_H
#define TC_BENCH_TIMED_H

#include <time.h>

#include "toolcage.h"

struct timed_call {
	struct tc_result *r;
	struct timespec at;
};

static void timed_call_done(struct tc_result *r, void *data)
{
	struct timed_call *t = data;
	clock_gettime(CLOCK_MONOTONIC, &t->at);
	t->r = r;
}

/* Runs tool(args) on s to its result; *us is how long that took. Returns
 * the result (the caller frees it), or NULL when the loop failed. */
static struct tc_result *timed_call(struct tc_supervisor *s, const char *tool, const char *args,
                                    double *us)
{
	struct timed_call t = { 0 };
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tc_call_submit(s, tool, args, timed_call_done, &t);
	while (!t.r && tc_supervisor_run_once(s, -1) >= 0)
		;
	*us = (double)(t.at.tv_sec - t0.tv_sec) * 1e6 + (double)(t.at.tv_nsec - t0.tv_nsec) / 1e3;
	return t.r;
}

#endif
