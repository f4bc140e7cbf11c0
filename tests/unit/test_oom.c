/* test_oom.c — "every call ends in exactly one result", when memory runs
 * out too. Each scenario (valid, invalid, parse error, unknown tool,
 * denied, approved, timed out, output too big for its schema) is run once
 * per allocation the supervisor makes for it: the Nth allocation fails,
 * for every N, until a run makes no Nth. Each run must call back exactly
 * once, within a bound, and leave no call behind; a run whose failure was
 * never reached must give the scenario's normal status.
 *
 * The allocator is swapped by the linker (-Wl,--wrap=malloc,... for this
 * binary only, see the Makefile) for every call the library's objects
 * make, and by json_set_alloc_funcs for jansson's. Failures are armed in
 * this process only: a forked child runs its own course. */
#define _GNU_SOURCE
/* The fixture header serves test_pipeline.c too: not every helper is used here. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "pipeline_test.h"

#include <execinfo.h>
#include <stdarg.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
int __real_vasprintf(char **out, const char *fmt, va_list ap);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
int __wrap_vasprintf(char **out, const char *fmt, va_list ap);
int __wrap_asprintf(char **out, const char *fmt, ...);

static long fail_at; /* the allocation number that fails; 0: none */
static long count;   /* allocations since armed */
static bool hit;     /* the failure happened */
static pid_t armed_pid;

/* Whether this allocation is the one that fails. */
static bool fail_now(void)
{
	if (!fail_at || getpid() != armed_pid)
		return false;
	if (++count != fail_at)
		return false;
	hit = true;
	if (getenv("TC_OOM_TRACE")) { /* where the failing allocation is made */
		void *frames[24];
		int n = backtrace(frames, 24);
		backtrace_symbols_fd(frames, n, 2);
	}
	return true;
}

void *__wrap_malloc(size_t n)
{
	return fail_now() ? (errno = ENOMEM, NULL) : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? (errno = ENOMEM, NULL) : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? (errno = ENOMEM, NULL) : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return fail_now() ? (errno = ENOMEM, NULL) : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	return fail_now() ? (errno = ENOMEM, NULL) : __real_strndup(s, n);
}

int __wrap_vasprintf(char **out, const char *fmt, va_list ap)
{
	if (fail_now()) {
		*out = NULL;
		errno = ENOMEM;
		return -1;
	}
	return __real_vasprintf(out, fmt, ap);
}

int __wrap_asprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = __wrap_vasprintf(out, fmt, ap);
	va_end(ap);
	return rc;
}

static void *json_alloc(size_t n)
{
	return __wrap_malloc(n);
}

static void arm(long n)
{
	fail_at = n;
	count = 0;
	hit = false;
	armed_pid = getpid();
}

static void disarm(void)
{
	fail_at = 0;
}

struct scenario {
	const char *name;
	const char *config; /* NULL: {} */
	const char *tool, *args;
	enum tc_status want; /* with no allocation failed */
	bool approve;        /* the approver says yes */
	bool spares;         /* keep_spares: the call goes to a child made ahead */
};

/* Runs sc with the nth allocation failing. Returns whether the failure was
 * reached (false: the walk is complete). */
static bool run_once(struct fx *f, const struct scenario *sc, long n)
{
	struct got *g = &f->got[0];
	tc_result_free(g->r);
	g->r = NULL;
	g->calls = 0;
	arm(n);
	tc_call_submit(f->s, sc->tool, sc->args, on_result, g);
	int64_t end = io_now_ms() + 10000;
	while (!g->calls && io_now_ms() < end)
		tc_supervisor_run_once(f->s, 20);
	/* Anything still pending would show as a second result or a call left. */
	for (int i = 0; i < 5; i++)
		tc_supervisor_run_once(f->s, 0);
	bool reached = hit;
	disarm();
	if (g->calls != 1)
		fail_msg("%s, allocation %ld failing: %d results", sc->name, n, g->calls);
	if (!g->r)
		fail_msg("%s, allocation %ld failing: a NULL result", sc->name, n);
	if (!g->r->render || !g->r->canonical || !g->r->tool)
		fail_msg("%s, allocation %ld failing: a result with a NULL field", sc->name, n);
	if (!reached && g->r->status != sc->want)
		fail_msg("%s: status %s, want %s: %s", sc->name, tc_status_name(g->r->status),
		         tc_status_name(sc->want), g->r->render);
	if (tc_supervisor_active(f->s) != 0)
		fail_msg("%s, allocation %ld failing: %zu calls left in flight", sc->name, n,
		         tc_supervisor_active(f->s));
	return reached;
}

static void walk(void **state, const struct scenario *sc)
{
	struct fx *f = *state;
	f->spares = sc->spares;
	fx_start(f, sc->config);
	if (sc->approve)
		approve_with(f, 1, TC_APPROVE_ONCE);
	/* Refusals never reach the sandbox: they walk under valgrind too. */
	if (sc->want == TC_STATUS_OK || sc->want == TC_STATUS_TIMED_OUT)
		need_sandbox();
	long n = 1;
	while (run_once(f, sc, n))
		n++;
	print_message("%s: %ld allocations walked\n", sc->name, n - 1);
	if (n < 10)
		fail_msg("%s: only %ld allocations: the hook is not in place", sc->name, n - 1);
}

#define SCENARIO(fn, ...)                                                                          \
	static void fn(void **state)                                                               \
	{                                                                                          \
		static const struct scenario sc = { __VA_ARGS__ };                                 \
		walk(state, &sc);                                                                  \
	}

SCENARIO(test_oom_valid_call_ends_once, .name = "valid", .tool = "echo_args",
         .args = "{\"text\": \"hi\", \"n\": 3}", .want = TC_STATUS_OK)
SCENARIO(test_oom_call_to_a_spare_ends_once, .name = "spare", .tool = "echo_args",
         .args = "{\"text\": \"hi\"}", .want = TC_STATUS_OK, .spares = true)
SCENARIO(test_oom_invalid_call_ends_once, .name = "invalid", .tool = "echo_args",
         .args = "{\"n\": \"three\"}", .want = TC_STATUS_INVALID_ARGUMENTS)
SCENARIO(test_oom_parse_error_ends_once, .name = "parse error", .tool = "echo_args",
         .args = "{\"n\": ", .want = TC_STATUS_INVALID_ARGUMENTS)
SCENARIO(test_oom_unknown_tool_ends_once, .name = "unknown tool", .tool = "no_such_tool",
         .args = "{}", .want = TC_STATUS_UNKNOWN_TOOL)
SCENARIO(test_oom_denied_call_ends_once, .name = "denied", .tool = "touch_marker",
         .args = "{\"name\": \"m\"}", .want = TC_STATUS_DENIED)
SCENARIO(test_oom_approved_call_ends_once, .name = "approved", .tool = "touch_marker",
         .args = "{\"name\": \"m\"}", .want = TC_STATUS_OK, .approve = true)
SCENARIO(test_oom_timed_out_call_ends_once, .name = "timed out", .tool = "sleeper",
         .config = "{\"limits\": {\"timeout_ms\": 20}}", .args = "{\"ms\": 10000}",
         .want = TC_STATUS_TIMED_OUT)
SCENARIO(test_oom_big_render_ends_once, .name = "big render", .tool = "big_output",
         .config = "{\"limits\": {\"max_render_chars\": 2000}}", .args = "{\"chars\": 5000}",
         .want = TC_STATUS_OK)

int main(void)
{
	json_set_alloc_funcs(json_alloc, free);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_oom_valid_call_ends_once, fx_setup,
		                                fx_teardown),
		cmocka_unit_test_setup_teardown(test_oom_call_to_a_spare_ends_once, fx_setup,
		                                fx_teardown),
		cmocka_unit_test_setup_teardown(test_oom_invalid_call_ends_once, fx_setup,
		                                fx_teardown),
		cmocka_unit_test_setup_teardown(test_oom_parse_error_ends_once, fx_setup,
		                                fx_teardown),
		cmocka_unit_test_setup_teardown(test_oom_unknown_tool_ends_once, fx_setup,
		                                fx_teardown),
		cmocka_unit_test_setup_teardown(test_oom_denied_call_ends_once, fx_setup,
		                                fx_teardown),
		cmocka_unit_test_setup_teardown(test_oom_approved_call_ends_once, fx_setup,
		                                fx_teardown),
		cmocka_unit_test_setup_teardown(test_oom_timed_out_call_ends_once, fx_setup,
		                                fx_teardown),
		cmocka_unit_test_setup_teardown(test_oom_big_render_ends_once, fx_setup,
		                                fx_teardown),
	};
	return cmocka_run_group_tests(tests, fx_probe, NULL);
}
