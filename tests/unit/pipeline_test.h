/* pipeline_test.h — fixtures for test_pipeline.c: the test builtins (they
 * run in the confined child, like any builtin), a fresh temp workspace and
 * config per test, a supervisor built on them with only the test tools,
 * result and event collectors, and a scriptable approver. Included by
 * test_pipeline.c only; everything is static. */
#ifndef TC_PIPELINE_TEST_H
#define TC_PIPELINE_TEST_H

#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include "sandbox.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "audit.h"
#include "embedded.h"
#include "loop.h"
#include "pipeline.h"
#include "toolcage.h"
#include "io.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1

#endif
#endif

/* ---- the test builtins (run in the confined child) ---------------------- */

static int64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Code point i of big_output's text: a, é, €, 😀 in turn (1 to 4 bytes), so
 * any cut that splits a character shows. */
static const char *big_unit(size_t i)
{
	static const char *const units[] = { "a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80" };
	return units[i % 4];
}

/* Code points [from, to) of big_output's text (malloc'd). */
static char *big_text(size_t from, size_t to)
{
	char *s = malloc((to - from) * 4 + 1), *p = s;
	if (!s)
		return NULL;
	for (size_t i = from; i < to; i++) {
		size_t n = strlen(big_unit(i));
		memcpy(p, big_unit(i), n);
		p += n;
	}
	*p = '\0';
	return s;
}

static int tool_echo(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	(void)ctx;
	out->canonical = json_deep_copy(args);
	return 0;
}

/* The side effect that proves a call ran: one line appended per run. */
static int tool_touch(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	const char *name = json_string_value(json_object_get(args, "name"));
	int fd = openat(ctx->workspace_fd, name,
	                O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 || write(fd, "ran\n", 4) != 4) {
		out->render = strdup(strerror(errno));
		return 1;
	}
	close(fd);
	out->canonical = json_pack("{s:s}", "touched", name);
	return 0;
}

static int tool_sleep(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	(void)ctx;
	int64_t ms = json_integer_value(json_object_get(args, "ms"));
	int64_t start = mono_us();
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	out->canonical = json_pack("{s:I, s:I}", "start_us", (json_int_t)start, "end_us",
	                           (json_int_t)mono_us());
	return 0;
}

/* A real fault: a raised SIGSEGV would be ignored by a pid namespace's init,
 * a fault is forced by the kernel. */
static int tool_crash(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	(void)ctx;
	(void)args;
	(void)out;
	volatile int *volatile p = NULL;
	*p = 1;
	return 0;
}

/* Touches mb MiB: its exit, with that address space to tear down, takes
 * a while after its answer. */
static int tool_hog(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	(void)ctx;
	size_t n = (size_t)json_integer_value(json_object_get(args, "mb")) << 20;
	char *p = n ? mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) :
	              NULL;
	if (p == MAP_FAILED)
		return 1;
	if (p)
		memset(p, 1, n);
	out->canonical = json_pack("{s:I}", "mb", (json_int_t)(n >> 20));
	return 0;
}

static int tool_big(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	(void)ctx;
	size_t n = (size_t)json_integer_value(json_object_get(args, "chars"));
	out->render = big_text(0, n);
	out->canonical = json_pack("{s:I}", "chars", (json_int_t)n);
	return 0;
}

static int tool_write(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	const char *path = json_string_value(json_object_get(args, "path"));
	int fd = openat(ctx->workspace_fd, path,
	                O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 || write(fd, "written\n", 8) != 8) {
		out->render = strdup(strerror(errno));
		return 1;
	}
	close(fd);
	out->canonical = json_pack("{s:s}", "wrote", path);
	return 0;
}

static const struct tc_tool test_tools[] = {
	{ .name = "echo_args",
	  .description = "Returns its arguments as the canonical result.",
	  .parameters = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"},"
	                "\"n\":{\"type\":\"integer\"}}}",
	  .risk = TC_RISK_READ_ONLY,
	  .execute = tool_echo },
	{ .name = "touch_marker",
	  .description = "Appends a line to a marker file in the "
	                 "workspace: the side effect that proves it ran.",
	  .parameters = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
	                "\"mode\":{\"type\":\"integer\"}},\"required\":[\"name\"]}",
	  .risk = TC_RISK_DESTRUCTIVE,
	  .execute = tool_touch },
	{ .name = "sleeper",
	  .description = "Sleeps for ms milliseconds and reports when it "
	                 "started and ended (monotonic microseconds).",
	  .parameters = "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\","
	                "\"minimum\":0,\"maximum\":60000}},\"required\":[\"ms\"]}",
	  .risk = TC_RISK_READ_ONLY,
	  .execute = tool_sleep },
	{ .name = "crasher",
	  .description = "Writes through a null pointer: a defect on purpose.",
	  .parameters = "{\"type\":\"object\"}",
	  .risk = TC_RISK_READ_ONLY,
	  .execute = tool_crash },
	{ .name = "big_output",
	  .description = "Renders chars code points of mixed 1 to 4 "
	                 "byte UTF-8 characters.",
	  .parameters = "{\"type\":\"object\",\"properties\":{\"chars\":{\"type\":\"integer\","
	                "\"minimum\":0,\"maximum\":1000000}},\"required\":[\"chars\"]}",
	  .risk = TC_RISK_READ_ONLY,
	  .execute = tool_big },
	{ .name = "hog",
	  .description = "Touches mb MiB of memory, and answers.",
	  .parameters = "{\"type\":\"object\",\"properties\":{\"mb\":{\"type\":\"integer\","
	                "\"minimum\":0,\"maximum\":512}},\"required\":[\"mb\"]}",
	  .risk = TC_RISK_READ_ONLY,
	  .execute = tool_hog },
	{ .name = "writer",
	  .description = "Writes a small file at path in the workspace.",
	  .parameters = "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},"
	                "\"required\":[\"path\"]}",
	  .risk = TC_RISK_WRITE,
	  .execute = tool_write },
};

static const struct tc_plugin test_plugin = {
	"pipeline_test",
	TC_RISK_DESTRUCTIVE,
	test_tools,
	sizeof test_tools / sizeof test_tools[0],
};

/* ---- fixture -------------------------------------------------------------- */

/* One call's result, kept in the fixture (not on a test's stack: teardown
 * cancels calls still in flight, and their callbacks land here). */
struct got {
	struct tc_result *r;
	int calls;
	int64_t at_ms;
};

enum { MAX_GOT = 8, MAX_ANSWERS = 8 };

struct fx {
	char dir[64]; /* temp root: config, workspace, spill */
	char ws[96];
	struct tc_supervisor *s;
	struct got got[MAX_GOT];
	json_t *events; /* copies of every event, in order */
	/* the approver */
	int asked;
	enum tc_approval answers[MAX_ANSWERS]; /* answer k for the k-th ask; then the last */
	int nanswers;
	char reason[256];
	int defer_ms; /* > 0: answer later from a loop timer */
	tc_approval_respond respond;
	void *respond_ctx;
	int64_t answered_at;
	bool spares; /* tc_options.keep_spares */
};

static char why_not[600]; /* set when the sandbox cannot run here */

static void need_sandbox(void)
{
	if (!why_not[0])
		return;
	const char *must = getenv("TC_MUST_WORK");
	if (must && !strcmp(must, "1"))
		fail_msg("sandbox unavailable and TC_MUST_WORK=1: %s", why_not);
	print_message("skip: the sandbox cannot run builtins here: %s\n", why_not);
	skip();
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	snprintf(f->dir, sizeof f->dir, "/tmp/tc-pipe-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->ws, sizeof f->ws, "%s/ws", f->dir);
	if (mkdir(f->ws, 0755) < 0)
		return -1;
	f->events = json_array();
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	/* A deferred answer must be given before the supervisor goes: its
	 * ticket is freed only by respond(). */
	while (f->s && f->respond)
		tc_supervisor_run_once(f->s, 50);
	tc_supervisor_free(f->s);
	sbx_stay_home(false); /* the next test starts on every CPU */
	for (int i = 0; i < MAX_GOT; i++)
		tc_result_free(f->got[i].r);
	json_decref(f->events);
	nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

#ifdef UNDER_ASAN
/* ASan reserves terabytes of shadow memory up front, which RLIMIT_AS counts:
 * under the shipped profiles' address_space_mb every later mmap in the
 * confined child fails ("ERROR: Failed to mmap") and a builtin that needs
 * fresh pages dies without a result. So this build runs the shipped
 * profiles with that one limit removed (profile_dir in the config); the
 * normal build runs them as shipped. */
static int asan_profiles(struct fx *f, json_t *cfg)
{
	char dir[128], path[192];
	snprintf(dir, sizeof dir, "%s/profiles", f->dir);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -1;
	for (const struct embedded_file *e = embedded_profiles; e->name; e++) {
		json_t *prof = json_loads(e->data, 0, NULL);
		json_object_del(json_object_get(prof, "limits"), "address_space_mb");
		snprintf(path, sizeof path, "%s/%s.json", dir, e->name);
		int rc = prof ? json_dump_file(prof, path, 0) : -1;
		json_decref(prof);
		if (rc < 0)
			return -1;
	}
	return json_object_set_new(cfg, "profile_dir", json_string(dir));
}

#endif

static int on_event(void *data, json_t *event, struct tc_error *err)
{
	(void)err;
	struct fx *f = data;
	json_array_append_new(f->events, json_deep_copy(event));
	return 0;
}

/* Builds the supervisor on config_json (written to the temp dir), with
 * only the test tools, and subscribes to its events. 0, or -1 with err. */
static int fx_try_start(struct fx *f, const char *config_json, struct tc_error *err)
{
	char path[128];
	snprintf(path, sizeof path, "%s/toolcage.json", f->dir);
	json_t *cfg = json_loads(config_json ? config_json : "{}", 0, NULL);
	int rc = cfg ? 0 : -1;
#ifdef UNDER_ASAN
	if (rc == 0)
		rc = asan_profiles(f, cfg);

#endif
	if (rc == 0)
		rc = json_dump_file(cfg, path, 0);
	json_decref(cfg);
	if (rc < 0) {
		snprintf(err->msg, sizeof err->msg, "cannot write the test config %s", path);
		return -1;
	}
	struct tc_options opt = { .workspace = f->ws,
		                  .config_path = path,
		                  .no_builtins = true,
		                  .keep_spares = f->spares };
	if (tc_supervisor_new(&opt, &f->s, err) < 0 ||
	    tc_plugin_load(tc_supervisor_registry(f->s), &test_plugin, NULL, err) < 0 ||
	    audit_subscribe(supervisor_audit(f->s), on_event, f, NULL, err) < 0)
		return -1;
	return 0;
}

static void fx_start(struct fx *f, const char *config_json)
{
	struct tc_error err = { 0 };
	if (fx_try_start(f, config_json, &err) < 0)
		fail_msg("supervisor: %s: %s", err.where, err.msg);
}

static void on_result(struct tc_result *r, void *data)
{
	struct got *g = data;
	g->calls++;
	tc_result_free(g->r);
	g->r = r;
	g->at_ms = io_now_ms();
}

static uint64_t submit(struct fx *f, int slot, const char *tool, const char *args)
{
	return tc_call_submit(f->s, tool, args, on_result, &f->got[slot]);
}

/* Runs the loop until got[slot] has a result or bound_ms pass. */
static void wait_for(struct fx *f, int slot, int bound_ms)
{
	int64_t end = io_now_ms() + bound_ms;
	while (!f->got[slot].r && io_now_ms() < end)
		tc_supervisor_run_once(f->s, 20);
	if (!f->got[slot].r)
		fail_msg("call %d gave no result within %d ms", slot, bound_ms);
}

/* One call through the whole pipeline: its result (borrowed from got[7]). */
static struct tc_result *call(struct fx *f, const char *tool, const char *args)
{
	tc_result_free(f->got[7].r);
	f->got[7].r = NULL;
	submit(f, 7, tool, args);
	wait_for(f, 7, 10000);
	return f->got[7].r;
}

static void assert_status(const struct tc_result *r, enum tc_status want)
{
	if (r->status != want)
		fail_msg("status %s, want %s; render: %s", tc_status_name(r->status),
		         tc_status_name(want), r->render);
}

static const char *cstr(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	return s ? s : "";
}

/* Lines in the workspace file rel (how often touch_marker ran), 0 when absent. */
static int marker_runs(struct fx *f, const char *rel)
{
	char path[192];
	snprintf(path, sizeof path, "%s/%s", f->ws, rel);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return 0;
	int n = 0, ch;
	while ((ch = fgetc(fp)) != EOF)
		n += ch == '\n';
	fclose(fp);
	return n;
}

static bool ws_exists(struct fx *f, const char *rel)
{
	char path[192];
	snprintf(path, sizeof path, "%s/%s", f->ws, rel);
	return access(path, F_OK) == 0;
}

/* ---- the approver --------------------------------------------------------- */

static void on_deferred(struct loop *l, void *data)
{
	(void)l;
	struct fx *f = data;
	tc_approval_respond respond = f->respond;
	f->respond = NULL;
	f->answered_at = io_now_ms();
	respond(f->respond_ctx, f->answers[0], "test timer");
}

static void approver(const struct tc_approval_request *req, tc_approval_respond respond, void *ctx,
                     void *data)
{
	struct fx *f = data;
	enum tc_approval a = f->answers[f->asked < f->nanswers ? f->asked :
	                                        f->nanswers    ? f->nanswers - 1 :
	                                                         0];
	f->asked++;
	snprintf(f->reason, sizeof f->reason, "%s", req->reason ? req->reason : "");
	if (f->defer_ms > 0) {
		f->respond = respond;
		f->respond_ctx = ctx;
		loop_add_timer(supervisor_loop(f->s), io_now_ms() + f->defer_ms, on_deferred, f);
		return;
	}
	respond(ctx, a, "test approver");
}

/* Sets the approver to answer answers[0], answers[1], ... (the last one repeats). */
static void approve_with(struct fx *f, int n, ...)
{
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n && i < MAX_ANSWERS; i++)
		f->answers[i] = (enum tc_approval)va_arg(ap, int);
	va_end(ap);
	f->nanswers = n;
	tc_supervisor_set_approver(f->s, approver, f);
}

/* The types of the events of call id, in order, joined by spaces. */
static void event_types(struct fx *f, uint64_t id, char *out, size_t size)
{
	size_t o = 0, i;
	json_t *ev;
	out[0] = '\0';
	json_array_foreach(f->events, i, ev)
	{
		if ((uint64_t)json_integer_value(json_object_get(ev, "call")) != id)
			continue;
		o += (size_t)snprintf(out + o, size - o, "%s%s", o ? " " : "", cstr(ev, "event"));
		if (o >= size)
			return;
	}
}

/* Whether a builtin runs here at all: one echo_args call in a throwaway
 * workspace. The reason goes to why_not. */
static int fx_probe(void **state)
{
	(void)state;
	struct fx *f = NULL;
	if (fx_setup((void **)&f) < 0)
		return -1;
	struct tc_error err = { 0 };
	if (fx_try_start(f, NULL, &err) < 0) {
		snprintf(why_not, sizeof why_not, "supervisor: %.500s", err.msg);
	} else {
		struct tc_result *r = tc_call(f->s, "echo_args", "{}");
		if (!r || r->status != TC_STATUS_OK)
			snprintf(why_not, sizeof why_not, "a builtin did not run: %.500s",
			         r ? r->render : "no result");
		tc_result_free(r);
	}
	void *st = f;
	return fx_teardown(&st);
}

#endif
