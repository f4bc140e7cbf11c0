/* test_audit.c — event constructors, subscribers and their disposers, and
 * the JSONL sink: one valid JSON object per line, call ids, elision at the
 * 256-character edge, ordering, write failures reported, ASCII-only lines,
 * oversized events cut rather than dropped, fifos refused, and the lock
 * shared with other writers of the same log. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "io.h"
#include "util.h"

struct tmp {
	char dir[64];
	char path[128];
};

static int tmp_setup(void **state)
{
	struct tmp *t = calloc(1, sizeof *t);
	snprintf(t->dir, sizeof t->dir, "/tmp/test_audit.XXXXXX");
	if (!mkdtemp(t->dir))
		return -1;
	snprintf(t->path, sizeof t->path, "%s/audit.jsonl", t->dir);
	*state = t;
	return 0;
}

static int tmp_teardown(void **state)
{
	struct tmp *t = *state;
	unlink(t->path);
	rmdir(t->dir);
	free(t);
	return 0;
}

/* The file's lines, each parsed (fails the test on a line that is not a
 * JSON object). Returns a new array. */
static json_t *read_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	json_t *arr = json_array();
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0) {
		assert_int_equal(line[n - 1], '\n');
		json_error_t je;
		json_t *o = json_loadb(line, (size_t)n - 1, 0, &je);
		if (!json_is_object(o))
			fail_msg("line is not a JSON object: %s (%s)", line, je.text);
		json_array_append_new(arr, o);
	}
	free(line);
	fclose(f);
	return arr;
}

static json_t *J(const char *text)
{
	json_t *v = json_loads(text, 0, NULL);
	assert_non_null(v);
	return v;
}

static const char *str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_string(v))
		fail_msg("no string \"%s\"", key);
	return json_string_value(v);
}

/* ---- events ----------------------------------------------------------- */

static void test_event_call_start_has_type_call_time_and_args(void **state)
{
	(void)state;
	json_t *args = J("{\"path\":\"a.txt\"}");
	json_t *e = audit_event_call_start(7, "read_file", args, "read-only");
	assert_string_equal(str(e, "event"), "call-start");
	assert_int_equal(json_integer_value(json_object_get(e, "call")), 7);
	assert_string_equal(str(e, "tool"), "read_file");
	assert_string_equal(str(e, "risk"), "read-only");
	assert_true(json_equal(json_object_get(e, "args"), args));
	/* A copy: changing the caller's arguments changes nothing recorded. */
	json_object_set_new(args, "path", json_string("b.txt"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(e, "args"), "path")),
	                    "a.txt");
	json_decref(args);
	json_decref(e);
}

static void test_timestamp_is_rfc3339_utc_with_ms(void **state)
{
	(void)state;
	char ts[32];
	audit_timestamp(ts);
	assert_int_equal(strlen(ts), 24);
	int y, mo, d, h, mi, s, ms;
	char z;
	assert_int_equal(sscanf(ts, "%4d-%2d-%2dT%2d:%2d:%2d.%3d%c", &y, &mo, &d, &h, &mi, &s, &ms,
	                        &z),
	                 8);
	assert_int_equal(z, 'Z');
	assert_true(y >= 2024 && mo >= 1 && mo <= 12 && ms >= 0 && ms <= 999);
}

static void test_event_tool_result_carries_usage_when_ran(void **state)
{
	(void)state;
	struct audit_result r = { .status = "killed",
		                  .duration_ms = 30001,
		                  .ran = true,
		                  .exit_code = -1,
		                  .signal = 9,
		                  .cpu_ms = 12,
		                  .max_rss_kb = 2048,
		                  .bytes = 99,
		                  .truncated = true };
	json_t *e = audit_event_tool_result(3, "spin", &r);
	json_t *want =
	        J("{\"event\":\"tool-result\",\"call\":3,\"tool\":\"spin\",\"status\":\"killed\","
	          "\"duration_ms\":30001,\"truncated\":true,\"exit_code\":-1,\"signal\":9,"
	          "\"cpu_ms\":12,\"max_rss_kb\":2048,\"bytes\":99}");
	json_object_del(e, "ts");
	assert_true(json_equal(e, want));
	json_decref(e);
	r.ran = false;
	e = audit_event_tool_result(3, "spin", &r);
	assert_null(json_object_get(e, "exit_code"));
	json_decref(e);
	json_decref(want);
}

static void test_event_error_without_call_omits_call(void **state)
{
	(void)state;
	json_t *e = audit_event_error(0, NULL, "invariant broken");
	assert_null(json_object_get(e, "call"));
	assert_null(json_object_get(e, "tool"));
	assert_string_equal(str(e, "message"), "invariant broken");
	json_decref(e);
}

static void test_event_connections_refused_counts_by_uid(void **state)
{
	(void)state;
	json_t *by_uid =
	        json_pack("[{s:i, s:i}, {s:i}]", "uid", 65534, "suppressed", 41, "suppressed", 2);
	json_t *e = audit_event_connections_refused(50, by_uid, 7, 10003, false);
	assert_string_equal(str(e, "event"), "connections-refused");
	assert_int_equal(json_integer_value(json_object_get(e, "suppressed")), 50);
	assert_ptr_equal(json_object_get(e, "by_uid"), by_uid); /* borrowed: a reference taken */
	assert_int_equal(json_integer_value(json_object_get(e, "others")), 7);
	assert_int_equal(json_integer_value(json_object_get(e, "window_ms")), 10003);
	assert_null(json_object_get(e, "final"));
	assert_null(json_object_get(e, "tool"));
	json_decref(e);
	/* no others: left out; at shutdown: final */
	e = audit_event_connections_refused(43, by_uid, 0, 5, true);
	assert_null(json_object_get(e, "others"));
	assert_true(json_is_true(json_object_get(e, "final")));
	json_decref(e);
	json_decref(by_uid);
}

static void test_event_text_is_sanitized_and_bounded(void **state)
{
	(void)state;
	char *big = malloc(AUDIT_TEXT_MAX + 100);
	memset(big, 'x', AUDIT_TEXT_MAX + 99);
	big[AUDIT_TEXT_MAX + 99] = '\0';
	big[0] = (char)0xff;
	json_t *e = audit_event_approval_request(1, "rm", NULL, big);
	const char *reason = str(e, "reason");
	assert_int_equal(strlen(reason), AUDIT_TEXT_MAX);
	assert_memory_equal(reason, "\xef\xbf\xbd", 3);
	json_decref(e);
	free(big);
}

static void test_event_approval_decision_names_decider(void **state)
{
	(void)state;
	json_t *e = audit_event_approval_decision(5, "rm", "deny", "cmd:/usr/bin/approve");
	assert_string_equal(str(e, "event"), "approval-decision");
	assert_string_equal(str(e, "decision"), "deny");
	assert_string_equal(str(e, "by"), "cmd:/usr/bin/approve");
	json_decref(e);
}

static void test_event_session_grant_takes_grant_list(void **state)
{
	(void)state;
	json_t *args = J("{\"p\":1}");
	json_t *grants = J("[{\"tool\":\"rm\",\"args\":{\"p\":1}}]");
	json_t *e = audit_event_session_grant("rm", args, grants); /* takes grants */
	assert_string_equal(str(e, "event"), "session-grant");
	assert_ptr_equal(json_object_get(e, "grants"), grants);
	json_decref(e);
	json_decref(args);
}

/* ---- elision ------------------------------------------------------------ */

static json_t *string_of(size_t n, const char *ch)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < n; i++)
		buf_adds(&b, ch);
	json_t *s = json_stringn(b.data ? b.data : "", b.len);
	buf_release(&b);
	return s;
}

static void test_elide_keeps_256_and_cuts_257(void **state)
{
	(void)state;
	json_t *s256 = string_of(256, "\xc3\xa9");
	json_t *s257 = string_of(257, "\xc3\xa9");
	json_t *a = audit_elide(s256, 256);
	json_t *b = audit_elide(s257, 256);
	assert_true(json_equal(a, s256));
	const char *cut = json_string_value(b);
	assert_memory_equal(cut, json_string_value(s256), 512);
	assert_string_equal(cut + 512, " [... 257 characters in all]");
	json_decref(a);
	json_decref(b);
	json_decref(s256);
	json_decref(s257);
}

static void test_elide_reaches_nested_values(void **state)
{
	(void)state;
	json_t *doc = json_pack("{s:{s:[i,o]}, s:b}", "a", "b", 1, string_of(300, "x"), "c", 1);
	json_t *e = audit_elide(doc, 256);
	const char *s =
	        json_string_value(json_array_get(json_object_get(json_object_get(e, "a"), "b"), 1));
	assert_non_null(strstr(s, " [... 300 characters in all]"));
	assert_int_equal(strlen(s), 256 + strlen(" [... 300 characters in all]"));
	assert_true(json_is_true(json_object_get(e, "c")));
	/* The original is untouched. */
	assert_int_equal(json_string_length(
	                         json_array_get(json_object_get(json_object_get(doc, "a"), "b"),
	                                        1)),
	                 300);
	json_decref(e);
	json_decref(doc);
}

/* ---- subscribers ---------------------------------------------------------- */

struct recorder {
	char log[256];
	int fail;
	struct tc_disposer *self; /* dispose this from inside the callback */
};

static int record(void *data, json_t *event, struct tc_error *err)
{
	struct recorder *r = data;
	size_t n = strlen(r->log);
	snprintf(r->log + n, sizeof r->log - n, "%s;",
	         json_string_value(json_object_get(event, "event")));
	if (r->self)
		tc_dispose(r->self);
	if (r->fail)
		return tc_error_set(err, TC_E_SYSTEM, "rec", "recorder failed");
	return 0;
}

static void test_emit_calls_subscribers_in_order(void **state)
{
	(void)state;
	struct audit *a = audit_new();
	struct recorder r1 = { .log = "" }, r2 = { .log = "" };
	assert_int_equal(audit_subscribe(a, record, &r1, NULL, NULL), 0);
	assert_int_equal(audit_subscribe(a, record, &r2, NULL, NULL), 0);
	json_t *e1 = audit_event_error(1, NULL, "x");
	json_t *e2 = audit_event_call_start(2, "t", NULL, NULL);
	assert_int_equal(audit_emit(a, e1, NULL), 0);
	assert_int_equal(audit_emit(a, e2, NULL), 0);
	assert_string_equal(r1.log, "error;call-start;");
	assert_string_equal(r2.log, "error;call-start;");
	json_decref(e1);
	json_decref(e2);
	audit_close(a);
}

static void test_disposer_unsubscribes(void **state)
{
	(void)state;
	struct audit *a = audit_new();
	struct recorder r = { .log = "" };
	struct tc_disposer d;
	assert_int_equal(audit_subscribe(a, record, &r, &d, NULL), 0);
	json_t *e = audit_event_error(1, NULL, "x");
	assert_int_equal(audit_emit(a, e, NULL), 0);
	tc_dispose(&d);
	tc_dispose(&d);
	assert_int_equal(audit_emit(a, e, NULL), 0);
	assert_string_equal(r.log, "error;");
	json_decref(e);
	audit_close(a);
}

static void test_has_subscribers_follows_subscribe_and_dispose(void **state)
{
	(void)state;
	struct audit *a = audit_new();
	struct recorder r = { .log = "" };
	struct tc_disposer d;
	assert_false(audit_has_subscribers(a));
	assert_int_equal(audit_subscribe(a, record, &r, &d, NULL), 0);
	assert_true(audit_has_subscribers(a));
	tc_dispose(&d);
	assert_false(audit_has_subscribers(a));
	audit_close(a);
}

static void test_dispose_during_emit_is_safe(void **state)
{
	(void)state;
	struct audit *a = audit_new();
	struct recorder r1 = { .log = "" }, r2 = { .log = "" };
	struct tc_disposer d1;
	assert_int_equal(audit_subscribe(a, record, &r1, &d1, NULL), 0);
	assert_int_equal(audit_subscribe(a, record, &r2, NULL, NULL), 0);
	r1.self = &d1;
	json_t *e = audit_event_error(1, NULL, "x");
	assert_int_equal(audit_emit(a, e, NULL), 0);
	assert_int_equal(audit_emit(a, e, NULL), 0);
	assert_string_equal(r1.log, "error;");
	assert_string_equal(r2.log, "error;error;");
	json_decref(e);
	audit_close(a);
}

static void test_emit_reports_failure_but_calls_everyone(void **state)
{
	(void)state;
	struct audit *a = audit_new();
	struct recorder r1 = { .log = "", .fail = 1 }, r2 = { .log = "" };
	assert_int_equal(audit_subscribe(a, record, &r1, NULL, NULL), 0);
	assert_int_equal(audit_subscribe(a, record, &r2, NULL, NULL), 0);
	json_t *e = audit_event_error(1, NULL, "x");
	struct tc_error err = { 0 };
	assert_int_equal(audit_emit(a, e, &err), -1);
	assert_string_equal(err.msg, "recorder failed");
	assert_string_equal(r2.log, "error;");
	json_decref(e);
	audit_close(a);
}

/* ---- the sink ------------------------------------------------------------- */

static void test_sink_writes_one_json_object_per_line(void **state)
{
	struct tmp *t = *state;
	struct audit *a;
	assert_int_equal(audit_open(t->path, &a, NULL), 0);
	json_t *args = json_pack("{s:s}", "text", "two\nlines and a \"quote\"");
	json_t *evs[] = {
		audit_event_call_start(1, "write_file", args, "write"),
		audit_event_approval_request(1, "write_file", args, "needs approval"),
		audit_event_approval_decision(1, "write_file", "allow_once", "tty"),
		audit_event_call_start(2, "read_file", NULL, "read-only"),
		audit_event_tool_result(1, "write_file", &(struct audit_result){ .status = "ok" }),
		audit_event_tool_result(2, "read_file", &(struct audit_result){ .status = "ok" }),
	};
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(audit_emit(a, evs[i], NULL), 0);
		json_decref(evs[i]);
	}
	audit_close(a);
	json_t *lines = read_lines(t->path);
	assert_int_equal(json_array_size(lines), 6);
	static const char *const types[] = { "call-start", "approval-request", "approval-decision",
		                             "call-start", "tool-result",      "tool-result" };
	static const int calls[] = { 1, 1, 1, 2, 1, 2 };
	const char *session = str(json_array_get(lines, 0), "session");
	for (size_t i = 0; i < 6; i++) {
		json_t *l = json_array_get(lines, i);
		assert_string_equal(str(l, "event"), types[i]);
		assert_int_equal(json_integer_value(json_object_get(l, "call")), calls[i]);
		assert_string_equal(str(l, "session"), session);
		assert_int_equal(strlen(str(l, "ts")), 24);
	}
	assert_string_equal(json_string_value(json_object_get(
	                            json_object_get(json_array_get(lines, 0), "args"), "text")),
	                    "two\nlines and a \"quote\"");
	json_decref(lines);
	json_decref(args);
}

static void test_sink_elides_long_arguments(void **state)
{
	struct tmp *t = *state;
	struct audit_sink *s;
	assert_int_equal(audit_sink_open(t->path, true, &s, NULL), 0);
	json_t *args = json_pack("{s:o, s:o, s:{s:o}}", "ok", string_of(256, "a"), "long",
	                         string_of(257, "b"), "nested", "deep", string_of(1000, "c"));
	json_t *e = audit_event_call_start(9, "t", args, NULL);
	assert_int_equal(audit_sink_write(s, e, NULL), 0);
	audit_sink_close(s);
	json_t *lines = read_lines(t->path);
	json_t *got = json_object_get(json_array_get(lines, 0), "args");
	assert_int_equal(json_string_length(json_object_get(got, "ok")), 256);
	assert_non_null(strstr(str(got, "long"), "[... 257 characters in all]"));
	assert_non_null(strstr(str(json_object_get(got, "nested"), "deep"),
	                       "[... 1000 characters in all]"));
	/* The event the pipeline holds is not changed by the sink. */
	assert_int_equal(json_string_length(json_object_get(json_object_get(e, "args"), "long")),
	                 257);
	json_decref(lines);
	json_decref(e);
	json_decref(args);
}

static void test_sink_appends_to_existing_log(void **state)
{
	struct tmp *t = *state;
	for (int round = 0; round < 2; round++) {
		struct audit *a;
		assert_int_equal(audit_open(t->path, &a, NULL), 0);
		json_t *e = audit_event_error((uint64_t)round + 1, NULL, "x");
		assert_int_equal(audit_emit(a, e, NULL), 0);
		json_decref(e);
		audit_close(a);
	}
	json_t *lines = read_lines(t->path);
	assert_int_equal(json_array_size(lines), 2);
	/* Two runs, two sessions: call 1 of one is not call 1 of the other. */
	assert_string_not_equal(str(json_array_get(lines, 0), "session"),
	                        str(json_array_get(lines, 1), "session"));
	json_decref(lines);
}

static void test_sink_creates_log_0600(void **state)
{
	struct tmp *t = *state;
	struct audit_sink *s;
	mode_t old = umask(0);
	assert_int_equal(audit_sink_open(t->path, false, &s, NULL), 0);
	umask(old);
	struct stat st;
	assert_int_equal(stat(t->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	audit_sink_close(s);
}

static void test_sink_open_unwritable_path_fails(void **state)
{
	(void)state;
	struct audit *a = (struct audit *)1;
	struct tc_error err = { 0 };
	assert_int_equal(audit_open("/nonexistent-dir/audit.jsonl", &a, &err), -1);
	assert_null(a);
	assert_int_equal(err.code, TC_E_SYSTEM);
	assert_string_equal(err.where, "/nonexistent-dir/audit.jsonl");
	assert_non_null(strstr(err.msg, "cannot open the audit log"));
}

static void test_sink_refuses_symlink(void **state)
{
	struct tmp *t = *state;
	char target[160];
	snprintf(target, sizeof target, "%s/target", t->dir);
	assert_int_equal(symlink(target, t->path), 0);
	struct audit_sink *s;
	assert_int_equal(audit_sink_open(t->path, false, &s, NULL), -1);
	assert_int_equal(access(target, F_OK), -1);
}

static void test_sink_write_failure_is_reported(void **state)
{
	(void)state;
	if (access("/dev/full", W_OK) != 0)
		skip();
	struct audit *a;
	assert_int_equal(audit_open("/dev/full", &a, NULL), 0);
	json_t *e = audit_event_error(1, NULL, "x");
	struct tc_error err = { 0 };
	assert_int_equal(audit_emit(a, e, &err), -1);
	assert_int_equal(err.code, TC_E_SYSTEM);
	assert_non_null(strstr(err.msg, "writing the audit log failed"));
	json_decref(e);
	audit_close(a);
}

/* Line ends other than \n (U+2028, U+2029, NEL), C1 controls and bidi
 * overrides in an argument: the line is plain ASCII, so no reader splits
 * the record and no terminal acts on it; the value reads back the same. */
static void test_sink_lines_are_ascii(void **state)
{
	struct tmp *t = *state;
	struct audit_sink *s;
	assert_int_equal(audit_sink_open(t->path, false, &s, NULL), 0);
	const char *v = "a\xe2\x80\xa8{}\xe2\x80\xa9"
	                "b\xc2\x85"
	                "c\xc2\x9b"
	                "d\xe2\x80\xae"
	                "e\xc3\xa9";
	json_t *args = json_pack("{s:s}", "path", v);
	json_t *e = audit_event_call_start(3, "read_file", args, "read-only");
	assert_int_equal(audit_sink_write(s, e, NULL), 0);
	audit_sink_close(s);
	FILE *f = fopen(t->path, "r");
	assert_non_null(f);
	int c, lines = 0;
	while ((c = fgetc(f)) != EOF) {
		assert_true(c >= 0x20 && c < 0x7f ? true : c == '\n');
		lines += c == '\n';
	}
	fclose(f);
	assert_int_equal(lines, 1);
	json_t *got = read_lines(t->path);
	assert_string_equal(str(json_object_get(json_array_get(got, 0), "args"), "path"), v);
	json_decref(got);
	json_decref(e);
	json_decref(args);
}

/* Another process appending to the same log holds its lock while it writes
 * and takes back a partial line: our line waits for it (so that take-back
 * cannot cut it off), but not forever (anyone who can open the log could
 * hold the lock). */
static void test_sink_write_waits_for_another_writers_lock(void **state)
{
	struct tmp *t = *state;
	struct audit_sink *s;
	assert_int_equal(audit_sink_open(t->path, false, &s, NULL), 0);
	int other = open(t->path, O_RDONLY | O_CLOEXEC);
	assert_true(other >= 0);
	assert_int_equal(flock(other, LOCK_EX), 0);
	json_t *e = audit_event_error(1, NULL, "x");
	uint64_t start = (uint64_t)io_now_ms();
	assert_int_equal(audit_sink_write(s, e, NULL), 0);
	uint64_t waited = (uint64_t)io_now_ms() - start;
	assert_true(waited >= 50);  /* it tried to take the lock */
	assert_true(waited < 2000); /* and went on without it */
	assert_int_equal(flock(other, LOCK_UN), 0);
	start = (uint64_t)io_now_ms();
	assert_int_equal(audit_sink_write(s, e, NULL), 0);
	assert_true((uint64_t)io_now_ms() - start < 50);
	/* The lock is released after each line. */
	assert_int_equal(flock(other, LOCK_EX | LOCK_NB), 0);
	close(other);
	json_decref(e);
	audit_sink_close(s);
	json_t *lines = read_lines(t->path);
	assert_int_equal(json_array_size(lines), 2);
	json_decref(lines);
}

/* A fifo planted at the log's path: with a reader the log would go to
 * it, without one the open blocked forever. Refused either way, at once. */
static void test_sink_refuses_fifo(void **state)
{
	struct tmp *t = *state;
	assert_int_equal(mkfifo(t->path, 0600), 0);
	int reader = open(t->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(reader >= 0);
	struct audit_sink *s = NULL;
	struct tc_error err = { 0 };
	assert_int_equal(audit_sink_open(t->path, false, &s, &err), -1);
	assert_null(s);
	assert_non_null(strstr(err.msg, "fifo"));
	close(reader);
	alarm(10); /* the old open blocked here */
	assert_int_equal(audit_sink_open(t->path, false, &s, &err), -1);
	alarm(0);
	assert_non_null(strstr(err.msg, "fifo"));
}

/* Arguments that stay over the line limit after elision (thousands of
 * strings, a long key): the event is still written, whole lines only, its
 * large field cut and saying how large it was. */
static void test_sink_cuts_oversized_event_instead_of_dropping(void **state)
{
	struct tmp *t = *state;
	struct audit_sink *s;
	assert_int_equal(audit_sink_open(t->path, false, &s, NULL), 0);
	json_t *argv = json_array();
	for (int i = 0; i < 5000; i++)
		json_array_append_new(argv, string_of(300, "x"));
	json_t *args = json_pack("{s:o}", "argv", argv);
	struct buf key = BUF_INIT;
	for (int i = 0; i < 2 << 20; i++)
		buf_adds(&key, "k");
	json_t *keyed = json_object();
	json_object_set_new(keyed, key.data, json_true());
	buf_release(&key);
	json_t *evs[] = {
		audit_event_call_start(7, "run_command", args, "destructive"),
		audit_event_approval_request(7, "run_command", keyed, "ask"),
	};
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(audit_sink_write(s, evs[i], NULL), 0);
		json_decref(evs[i]);
	}
	audit_sink_close(s);
	json_t *lines = read_lines(t->path);
	assert_int_equal(json_array_size(lines), 2);
	for (size_t i = 0; i < 2; i++) {
		json_t *l = json_array_get(lines, i);
		assert_int_equal(json_integer_value(json_object_get(l, "call")), 7);
		assert_string_equal(str(l, "tool"), "run_command");
		const char *a = str(l, "args");
		assert_true(strlen(a) < AUDIT_FIELD_MAX + 64);
		assert_non_null(strstr(a, "bytes of JSON in all]"));
	}
	assert_int_equal(strncmp(str(json_array_get(lines, 0), "args"), "{\"argv\":[\"xxx", 13), 0);
	assert_string_equal(str(json_array_get(lines, 1), "reason"), "ask");
	struct stat st;
	assert_int_equal(stat(t->path, &st), 0);
	assert_true(st.st_size < 2 * AUDIT_LINE_MAX);
	json_decref(lines);
	json_decref(args);
	json_decref(keyed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_call_start_has_type_call_time_and_args),
		cmocka_unit_test(test_timestamp_is_rfc3339_utc_with_ms),
		cmocka_unit_test(test_event_tool_result_carries_usage_when_ran),
		cmocka_unit_test(test_event_error_without_call_omits_call),
		cmocka_unit_test(test_event_connections_refused_counts_by_uid),
		cmocka_unit_test(test_event_text_is_sanitized_and_bounded),
		cmocka_unit_test(test_event_approval_decision_names_decider),
		cmocka_unit_test(test_event_session_grant_takes_grant_list),
		cmocka_unit_test(test_elide_keeps_256_and_cuts_257),
		cmocka_unit_test(test_elide_reaches_nested_values),
		cmocka_unit_test(test_emit_calls_subscribers_in_order),
		cmocka_unit_test(test_disposer_unsubscribes),
		cmocka_unit_test(test_has_subscribers_follows_subscribe_and_dispose),
		cmocka_unit_test(test_dispose_during_emit_is_safe),
		cmocka_unit_test(test_emit_reports_failure_but_calls_everyone),
		cmocka_unit_test_setup_teardown(test_sink_writes_one_json_object_per_line,
		                                tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_sink_elides_long_arguments, tmp_setup,
		                                tmp_teardown),
		cmocka_unit_test_setup_teardown(test_sink_appends_to_existing_log, tmp_setup,
		                                tmp_teardown),
		cmocka_unit_test_setup_teardown(test_sink_creates_log_0600, tmp_setup,
		                                tmp_teardown),
		cmocka_unit_test(test_sink_open_unwritable_path_fails),
		cmocka_unit_test_setup_teardown(test_sink_refuses_symlink, tmp_setup, tmp_teardown),
		cmocka_unit_test(test_sink_write_failure_is_reported),
		cmocka_unit_test_setup_teardown(test_sink_lines_are_ascii, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_sink_refuses_fifo, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_sink_write_waits_for_another_writers_lock,
		                                tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_sink_cuts_oversized_event_instead_of_dropping,
		                                tmp_setup, tmp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
