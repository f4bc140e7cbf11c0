/* test_fs_read.c — read_file and read_many_files pages: a page fits the
 * render budget whole (the render stage must never cut it in the middle
 * of a line), is cut only between lines, names exactly the lines it shows
 * and goes on exactly where it stopped; the canonical holds the same
 * page. Each test gets a fresh temp workspace. */
#include "fs_test.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "utf8.h"

#define T(name) cmocka_unit_test_setup_teardown(name, ws_setup, ws_teardown)

/* A file of n lines "value_<i> = <pad>" (i from 1), lines of ~40 bytes. */
static void write_numbered(struct ws *w, const char *rel, int n)
{
	FILE *f = fopen(ws_path(w, rel), "w");
	assert_non_null(f);
	for (int i = 1; i <= n; i++)
		fprintf(f, "value_%d = x_%d_abcdefghijklmnopqrstuvwxyz\n", i, i);
	fclose(f);
}

static size_t render_chars(struct ws *w)
{
	return utf8_count(w->out.render, strlen(w->out.render));
}

/* Every rendered line from the first up to the footer is a whole line of
 * the file, numbered in order from first; returns how many there are and
 * checks the canonical's lines are the same text. */
static size_t check_page(struct ws *w, size_t first)
{
	json_t *lines = json_object_get(w->out.canonical, "lines");
	const char *r = w->out.render;
	size_t k = 0;
	while (*r && *r != '[') {
		char want[160];
		snprintf(want, sizeof want, "%6zu\tvalue_%zu = x_%zu_abcdefghijklmnopqrstuvwxyz\n",
		         first + k, first + k, first + k);
		if (strncmp(r, want, strlen(want)))
			fail_msg("line %zu is not whole: %.60s", first + k, r);
		const char *text = json_string_value(json_array_get(lines, k));
		if (!text || strncmp(text, want + 7, strlen(want) - 8) ||
		    strlen(text) != strlen(want) - 8)
			fail_msg("canonical line %zu differs: %s", k, text ? text : "(none)");
		r += strlen(want);
		k++;
	}
	assert_int_equal(json_array_size(lines), k);
	return k;
}

/* A 3000-line file at the default render budget of 20000 characters: the
 * page shows fewer than the 2000 lines asked for, each whole, and the
 * footer and next_offset say exactly which; the next page starts there,
 * and paging on reads the whole file, each line once. */
static void test_read_file_page_fits_render_budget(void **state)
{
	struct ws *w = *state;
	write_numbered(w, "big.py", 3000);
	w->ctx.max_render = 20000;
	size_t next = 1, pages = 0;
	while (next) {
		char args[96];
		snprintf(args, sizeof args, "{\"path\": \"big.py\", \"offset\": %zu}", next);
		int rc = ws_call(w, "read_file", args);
		assert_ok(w, rc);
		assert_true(render_chars(w) <= 20000);
		size_t k = check_page(w, next);
		assert_true(k > 300 || next + k - 1 == 3000);
		assert_int_equal(out_int(w, "offset"), next);
		assert_int_equal(out_int(w, "total_lines"), 3000);
		char footer[200];
		if (next + k - 1 < 3000) {
			assert_true(out_true(w, "truncated"));
			assert_int_equal(out_int(w, "next_offset"), next + k);
			snprintf(footer, sizeof footer,
			         "[lines %zu-%zu of 3000 shown (the answer's size cap); "
			         "call read_file with offset %zu to read on]\n",
			         next, next + k - 1, next + k);
			next += k;
		} else {
			assert_false(out_true(w, "truncated"));
			assert_null(json_object_get(w->out.canonical, "next_offset"));
			snprintf(footer, sizeof footer, "[lines %zu-3000 of 3000 shown]\n", next);
			next = 0;
		}
		const char *f = strchr(w->out.render, '[');
		assert_non_null(f);
		assert_string_equal(f, footer);
		pages++;
	}
	assert_true(pages >= 5); /* ~47 characters a line: ~420 lines a page */
}

/* limit still binds when it is the smaller: the footer does not mention
 * the size cap then. */
static void test_read_file_limit_under_budget_is_exact(void **state)
{
	struct ws *w = *state;
	write_numbered(w, "big.py", 3000);
	w->ctx.max_render = 20000;
	int rc = ws_call(w, "read_file", "{\"path\": \"big.py\", \"offset\": 2990, \"limit\": 5}");
	assert_ok(w, rc);
	assert_int_equal(check_page(w, 2990), 5);
	assert_int_equal(out_int(w, "next_offset"), 2995);
	assert_string_equal(
	        strchr(w->out.render, '['),
	        "[lines 2990-2994 of 3000 shown; call read_file with offset 2995 to read on]\n");
}

/* JSON Schema's integer takes 2990.0 (jansson: a real): the page is the
 * one asked for, not the first; 1e20 is past any end, not line 1. */
static void test_read_file_whole_reals_are_integers(void **state)
{
	struct ws *w = *state;
	write_numbered(w, "big.py", 3000);
	w->ctx.max_render = 20000;
	int rc = ws_call(w, "read_file",
	                 "{\"path\": \"big.py\", \"offset\": 2990.0, \"limit\": 5.0}");
	assert_ok(w, rc);
	assert_int_equal(check_page(w, 2990), 5);
	assert_int_equal(out_int(w, "next_offset"), 2995);
	rc = ws_call(w, "read_file", "{\"path\": \"big.py\", \"offset\": 1e20}");
	assert_int_not_equal(rc, 0);
	assert_string_equal(json_string_value(json_object_get(w->out.canonical, "error")),
	                    "offset_past_end");
}

/* One line longer than the whole budget: the page is that line,
 * shortened, with a marker saying how much of it is shown, and the render
 * still fits; the next page starts at the next line. */
static void test_read_file_overlong_line_fits_with_marker(void **state)
{
	struct ws *w = *state;
	static char data[1600];
	memset(data, 'y', 1500);
	strcpy(data + 1500, "\nsecond\n");
	ws_write(w, "one.txt", data);
	w->ctx.max_render = 700;
	int rc = ws_call(w, "read_file", "{\"path\": \"one.txt\"}");
	assert_ok(w, rc);
	assert_true(render_chars(w) <= 700);
	json_t *lines = json_object_get(w->out.canonical, "lines");
	assert_int_equal(json_array_size(lines), 1);
	size_t shown = json_string_length(json_array_get(lines, 0));
	assert_true(shown > 100 && shown < 1500);
	char marker[96];
	snprintf(marker, sizeof marker, " [line cut: %zu of its 1500 characters shown]\n", shown);
	assert_render_has(w, marker);
	assert_int_equal(out_int(w, "next_offset"), 2);
	assert_int_equal(out_int(w, "long_lines_cut"), 1);
}

/* A page with a cut line says how to read on in the first one: an awk
 * command for run_command, which prints the characters after those shown
 * (the test runs it); the render still fits. read_many_files, whose files
 * have less room, and a page too small for the hint only mark the cut. */
/* awk PROG FILE's output in out (at most size - 1 bytes); its length. */
static size_t run_awk(const char *prog, const char *file, char *out, size_t size)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(fds[1], 1);
		execlp("awk", "awk", prog, file, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	size_t n = 0;
	for (ssize_t k; n < size - 1 && (k = read(fds[0], out + n, size - 1 - n)) > 0;)
		n += (size_t)k;
	close(fds[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return n;
}

static void test_read_file_cut_line_says_how_to_read_on(void **state)
{
	struct ws *w = *state;
	static char data[5100];
	memcpy(data, "one\ntwo\n", 8);
	for (size_t i = 0; i < 5000; i++)
		data[8 + i] = (char)('a' + i % 26);
	memcpy(data + 5008, "\nlast\n", 7);
	ws_write(w, "min.js", data);
	int rc = ws_call(w, "read_file", "{\"path\": \"min.js\"}");
	assert_ok(w, rc);
	assert_true(render_chars(w) <= 20000);
	assert_render_has(w,
	                  "[1 line cut, each marked where it was cut; read_file shows at most "
	                  "2000 bytes of a line. To read on in line 3, use run_command if "
	                  "you may: {\"argv\":[\"awk\",\"NR==3{print "
	                  "substr($0,2001,8000)}\",\"min.js\"]}]\n");
	char got[4096] = "";
	size_t n =
	        run_awk("NR==3{print substr($0,2001,8000)}", ws_path(w, "min.js"), got, sizeof got);
	assert_int_equal(n, 3001); /* the 3000 characters after the 2000 shown, "\n" */
	assert_memory_equal(got, data + 8 + 2000, 3000);
	rc = ws_call(w, "read_many_files", "{\"paths\": [\"min.js\"]}");
	assert_ok(w, rc);
	assert_render_has(w, "[1 line cut, each marked where it was cut]\n");
	w->ctx.max_render = 700;
	rc = ws_call(w, "read_file", "{\"path\": \"min.js\", \"offset\": 3}");
	assert_ok(w, rc);
	assert_true(render_chars(w) <= 700);
	assert_render_has(w, "[1 line cut, each marked where it was cut]\n");
}

/* Characters, not bytes: a line of 3-byte characters costs one each, so
 * the page holds as many of them as of ASCII lines. */
static void test_read_file_counts_characters_not_bytes(void **state)
{
	struct ws *w = *state;
	FILE *f = fopen(ws_path(w, "u.txt"), "w");
	assert_non_null(f);
	for (int i = 0; i < 400; i++)
		fputs("\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
		      "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\n",
		      f); /* ten euro signs */
	fclose(f);
	w->ctx.max_render = 2000;
	int rc = ws_call(w, "read_file", "{\"path\": \"u.txt\"}");
	assert_ok(w, rc);
	assert_true(render_chars(w) <= 2000);
	/* 18 characters a line ("%6d\t", ten signs, "\n"), 1760 for lines. */
	assert_int_equal(json_array_size(json_object_get(w->out.canonical, "lines")), 1760 / 18);
}

/* read_many_files shares one budget: the render fits it, a file that
 * does not fit any more is not read and says so (not an error of the
 * file), and the page of the file cut short says where to go on. */
static void test_read_many_files_fit_render_budget(void **state)
{
	struct ws *w = *state;
	write_numbered(w, "a.py", 300);
	write_numbered(w, "b.py", 3000);
	write_numbered(w, "c.py", 10);
	w->ctx.max_render = 20000;
	int rc = ws_call(w, "read_many_files", "{\"paths\": [\"a.py\", \"b.py\", \"c.py\"]}");
	assert_ok(w, rc);
	assert_true(render_chars(w) <= 20000);
	json_t *files = json_object_get(w->out.canonical, "files");
	json_t *a = json_array_get(files, 0), *b = json_array_get(files, 1),
	       *c = json_array_get(files, 2);
	assert_int_equal(json_array_size(json_object_get(a, "lines")), 300);
	assert_true(json_is_true(json_object_get(b, "truncated")));
	json_int_t kb = (json_int_t)json_array_size(json_object_get(b, "lines"));
	assert_int_equal(json_integer_value(json_object_get(b, "next_offset")), kb + 1);
	char footer[160];
	snprintf(footer, sizeof footer,
	         "[lines 1-%lld of 3000 shown (the answer's size cap); call "
	         "read_file with offset %lld to read on]\n",
	         (long long)kb, (long long)kb + 1);
	assert_render_has(w, footer);
	assert_string_equal(json_string_value(json_object_get(c, "error")), "not_read");
	assert_int_equal(out_int(w, "read"), 2);
	assert_int_equal(out_int(w, "failed"), 0);
	assert_int_equal(out_int(w, "not_read"), 1);
	assert_render_has(w,
	                  "[the last 1 of 3 files were not read: the answer reached its size cap; "
	                  "call read_file on each]\n");
}

/* A png, jpeg, gif or webp comes back as an image (base64 under "image",
 * which the MCP server sends as image content); other binary files stay
 * refused, and read_many_files reads text only. */
static void test_read_file_returns_images(void **state)
{
	struct ws *w = *state;
	static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
	ws_write_n(w, "logo.png", png, sizeof png - 1);
	int rc = ws_call(w, "read_file", "{\"path\": \"logo.png\"}");
	assert_ok(w, rc);
	json_t *img = json_object_get(w->out.canonical, "image");
	assert_string_equal(json_string_value(json_object_get(img, "mime_type")), "image/png");
	assert_int_equal(json_integer_value(json_object_get(img, "bytes")), 16);
	assert_string_equal(json_string_value(json_object_get(img, "data_base64")),
	                    "iVBORw0KGgoAAAANSUhEUg==");
	assert_render_has(w, "[image: \"logo.png\", image/png, 16 bytes;");
	ws_write_n(w, "p.gif", "GIF89a\1\0", 8);
	rc = ws_call(w, "read_file", "{\"path\": \"p.gif\"}");
	assert_ok(w, rc);
	ws_write_n(w, "blob.bin", "\0\1\2", 3);
	rc = ws_call(w, "read_file", "{\"path\": \"blob.bin\"}");
	assert_error(w, rc, "binary");
	assert_render_has(w, "only reads text and images (png, jpeg, gif, webp)");
	rc = ws_call(w, "read_many_files", "{\"paths\": [\"logo.png\"]}");
	json_t *f = json_array_get(json_object_get(w->out.canonical, "files"), 0);
	assert_string_equal(json_string_value(json_object_get(f, "error")), "binary");
}

static void test_read_file_image_over_cap(void **state)
{
	struct ws *w = *state;
	static char big[(3u << 20) + 1];
	memcpy(big, "\xff\xd8\xff", 3);
	ws_write_n(w, "huge.jpg", big, sizeof big);
	int rc = ws_call(w, "read_file", "{\"path\": \"huge.jpg\"}");
	assert_error(w, rc, "too_large");
	assert_render_has(
	        w,
	        "is an image (image/jpeg) of 3145729 bytes; read_file returns images up to "
	        "3145728 bytes");
}

/* A kernel without openat2 (a seccomp filter answers ENOSYS to it, in a
 * child, as toolcage's own does where it cannot read its flags): the
 * paths are resolved one component at a time, with the same answers:
 * files read, a link on the way refused and named, ".." above refused. */
static void test_read_many_files_without_openat2(void **state)
{
	struct ws *w = *state;
	write_numbered(w, "a.py", 3);
	write_numbered(w, "b.py", 3);
	assert_int_equal(mkdir(ws_path(w, "sub"), 0755), 0);
	assert_int_equal(symlink(".", ws_path(w, "in")), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sock_filter prog[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog fp = { sizeof prog / sizeof prog[0], prog };
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp))
			_exit(77);
		ws_clear_out(w);
		json_t *args = json_pack("{s:[s,s,s,s]}", "paths", "a.py", "sub/../b.py", "in/a.py",
		                         "../a.py");
		int rc = fs_tool("read_many_files")->execute(&w->ctx, args, &w->out);
		json_decref(args);
		json_t *files = json_object_get(w->out.canonical, "files");
		static const char *const want[] = { NULL, NULL, "symlink", "outside_workspace" };
		const char *r = w->out.render ? w->out.render : "";
		int ok = rc == 0 && json_array_size(files) == 4 && strstr(r, "value_3 = x_3");
		for (size_t k = 0; ok && k < 4; k++) {
			json_t *e = json_object_get(json_array_get(files, k), "error");
			ok = want[k] ? e && !strcmp(json_string_value(e), want[k]) : !e;
		}
		if (!ok)
			fprintf(stderr, "rc %d, render:\n%s\n", rc, r);
		_exit(ok ? 0 : 1);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77) {
		const char *must = getenv("TC_MUST_WORK");
		if (must && !strcmp(must, "1"))
			fail_msg("cannot install a seccomp filter here");
		print_message("skipped: a seccomp filter cannot be installed here\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* A file in another encoding (Latin-1 "café", "naïve ©"): the bytes that
 * are not UTF-8 are shown as U+FFFD, and a note before the lines says how
 * many, where, and what writing the text back would do; the canonical
 * counts them. A UTF-8 file has no note. */
static void test_read_file_not_utf8_says_so(void **state)
{
	struct ws *w = *state;
	ws_write(w, "l1.txt", "caf\xe9\nsecond\nna\xefve \xa9\n");
	int rc = ws_call(w, "read_file", "{\"path\": \"l1.txt\"}");
	assert_ok(w, rc);
	assert_render_starts(w,
	                     "[not UTF-8: 3 bytes of \"l1.txt\" (lines 1, 3) are not valid "
	                     "UTF-8 and are shown as U+FFFD (\xef\xbf\xbd)");
	assert_render_has(w, "would write U+FFFD in their place: the original bytes would be lost");
	assert_render_has(w,
	                  "\"argv\":[\"iconv\",\"-f\",\"LATIN1\",\"-t\",\"UTF-8\",\"-o\","
	                  "\"l1.txt.utf8\",\"l1.txt\"]");
	assert_render_has(w, "]\n     1\tcaf\xef\xbf\xbd\n     2\tsecond\n");
	json_t *u = json_object_get(w->out.canonical, "invalid_utf8");
	assert_int_equal(json_integer_value(json_object_get(u, "bytes")), 3);
	assert_int_equal(json_integer_value(json_object_get(u, "lines")), 2);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(u, "at_lines"), 1)), 3);
	/* read_many_files says it for the file that needs it */
	ws_write(w, "ok.txt", "caf\xc3\xa9 \xef\xbf\xbd\n");
	rc = ws_call(w, "read_many_files", "{\"paths\": [\"ok.txt\", \"l1.txt\"]}");
	assert_ok(w, rc);
	const char *second = strstr(w->out.render, "==> l1.txt <==\n[not UTF-8: 3 bytes");
	assert_non_null(second);
	assert_true(strstr(w->out.render, "[not UTF-8") == second + strlen("==> l1.txt <==\n"));
	rc = ws_call(w, "read_file", "{\"path\": \"ok.txt\"}");
	assert_ok(w, rc);
	assert_null(strstr(w->out.render, "not UTF-8"));
	assert_null(json_object_get(w->out.canonical, "invalid_utf8"));
}

/* The note takes its room from the page: a page of a file that is not
 * UTF-8 still fits the render budget whole, and paging reads every line. */
static void test_read_file_not_utf8_page_fits_budget(void **state)
{
	struct ws *w = *state;
	FILE *f = fopen(ws_path(w, "big.txt"), "w");
	assert_non_null(f);
	for (int i = 1; i <= 400; i++)
		fprintf(f, "value_%d = caf\xe9_abcdefghijklmnopqrstuvwxyz\n", i);
	fclose(f);
	w->ctx.max_render = 4000;
	size_t next = 1, seen = 0;
	while (next) {
		char args[96];
		snprintf(args, sizeof args, "{\"path\": \"big.txt\", \"offset\": %zu}", next);
		assert_ok(w, ws_call(w, "read_file", args));
		assert_true(render_chars(w) <= 4000);
		assert_render_has(w, "[not UTF-8: 400 bytes of \"big.txt\" (lines 1, 2, 3");
		assert_render_has(w, ", ...: 400 lines in all)");
		seen += json_array_size(json_object_get(w->out.canonical, "lines"));
		json_t *n = json_object_get(w->out.canonical, "next_offset");
		next = n ? (size_t)json_integer_value(n) : 0;
	}
	assert_int_equal(seen, 400);
	/* a budget too small for the whole note gets its gist */
	w->ctx.max_render = 300;
	assert_ok(w, ws_call(w, "read_file", "{\"path\": \"big.txt\"}"));
	assert_true(render_chars(w) <= 300);
	assert_render_starts(w,
	                     "[not UTF-8: 400 bytes shown as U+FFFD (\xef\xbf\xbd); writing "
	                     "this text back would replace them]\n     1\tvalue_1 = caf");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_read_file_page_fits_render_budget),
		T(test_read_file_limit_under_budget_is_exact),
		T(test_read_file_whole_reals_are_integers),
		T(test_read_file_overlong_line_fits_with_marker),
		T(test_read_file_cut_line_says_how_to_read_on),
		T(test_read_file_counts_characters_not_bytes),
		T(test_read_many_files_fit_render_budget),
		T(test_read_many_files_without_openat2),
		T(test_read_file_returns_images),
		T(test_read_file_image_over_cap),
		T(test_read_file_not_utf8_says_so),
		T(test_read_file_not_utf8_page_fits_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
