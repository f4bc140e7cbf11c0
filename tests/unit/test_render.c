/* test_render.c — the render stage: the code-point budget and its edges,
 * multibyte characters at both cut points, UTF-8 and control repair, the marker, and the
 * per-session spill directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>

#include "render.h"
#include "utf8.h"
#include "util.h"

/* n copies of the character ch (a UTF-8 string of one code point). */
static char *repeat(const char *ch, size_t n)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < n; i++)
		assert_int_equal(buf_adds(&b, ch), 0);
	return buf_detach(&b);
}

static bool valid_utf8(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq_len((const unsigned char *)s + i, n - i);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

static void render_ok(const char *p, size_t n, size_t max, struct render_spill *spill,
                      struct render_result *r)
{
	struct tc_error err = { 0 };
	assert_int_equal(render_text(p, n, max, spill, r, &err), 0);
	assert_non_null(r->text);
	assert_int_equal(strlen(r->text), r->len);
	assert_true(valid_utf8(r->text, r->len));
}

static void test_render_keeps_text_at_exact_limit(void **state)
{
	(void)state;
	char *s = repeat("a", 100);
	struct render_result r;
	render_ok(s, 100, 100, NULL, &r);
	assert_false(r.truncated);
	assert_string_equal(r.text, s);
	assert_int_equal(r.chars_total, 100);
	assert_int_equal(r.chars_omitted, 0);
	render_result_release(&r);
	free(s);
}

static void test_render_cuts_one_past_limit(void **state)
{
	(void)state;
	char *s = repeat("a", 101);
	s[0] = 'H';
	s[100] = 'T';
	struct render_result r;
	render_ok(s, 101, 100, NULL, &r);
	assert_true(r.truncated);
	/* 60 head + 20 tail kept, 21 left out. */
	assert_int_equal(r.chars_omitted, 21);
	assert_int_equal(strncmp(r.text, s, 60), 0);
	assert_true(r.text[60] == '\n');
	assert_non_null(strstr(r.text, "[... 21 characters left out;"));
	assert_string_equal(r.text + r.len - 20, s + 81);
	render_result_release(&r);
	free(s);
}

/* The cut keeps whole characters of each width at both boundaries. */
static void check_multibyte_cut(const char *ch, size_t width)
{
	char *s = repeat(ch, 1000);
	struct render_result r;
	render_ok(s, 1000 * width, 10, NULL, &r);
	assert_true(r.truncated);
	assert_true(valid_utf8(r.text, r.len));
	assert_int_equal(memcmp(r.text, s, 6 * width), 0);
	assert_true(r.text[6 * width] == '\n');
	assert_int_equal(memcmp(r.text + r.len - 2 * width, s, 2 * width), 0);
	assert_true(r.text[r.len - 2 * width - 1] == '\n');
	assert_int_equal(r.chars_omitted, 992);
	render_result_release(&r);
	free(s);
}

static void test_render_cuts_between_two_byte_characters(void **state)
{
	(void)state;
	check_multibyte_cut("\xc3\xa9", 2); /* é */
}

static void test_render_cuts_between_three_byte_characters(void **state)
{
	(void)state;
	check_multibyte_cut("\xe2\x82\xac", 3); /* € */
}

static void test_render_cuts_between_four_byte_characters(void **state)
{
	(void)state;
	check_multibyte_cut("\xf0\x9f\x98\x80", 4); /* 😀 */
}

static void test_render_counts_code_points_not_bytes(void **state)
{
	(void)state;
	/* 100 four-byte characters = 400 bytes, within a 100-character budget. */
	char *s = repeat("\xf0\x9f\x98\x80", 100);
	struct render_result r;
	render_ok(s, 400, 100, NULL, &r);
	assert_false(r.truncated);
	assert_int_equal(r.len, 400);
	render_result_release(&r);
	free(s);
}

static void test_render_handles_empty_output(void **state)
{
	(void)state;
	struct render_result r;
	render_ok(NULL, 0, 100, NULL, &r);
	assert_string_equal(r.text, "");
	assert_int_equal(r.len, 0);
	assert_false(r.truncated);
	assert_false(r.replaced);
	render_result_release(&r);
}

static void test_render_replaces_invalid_utf8(void **state)
{
	(void)state;
	const char in[] = "ok \xff\xfe end \xc3"; /* stray bytes, truncated sequence */
	struct render_result r;
	render_ok(in, sizeof in - 1, 100, NULL, &r);
	assert_true(r.replaced);
	assert_string_equal(r.text, "ok \xef\xbf\xbd\xef\xbf\xbd end \xef\xbf\xbd");
	assert_int_equal(r.chars_total, 11);
	render_result_release(&r);
}

static void test_render_replaces_nul_bytes(void **state)
{
	(void)state;
	const char in[] = { 'a', 0, 'b' };
	struct render_result r;
	render_ok(in, 3, 100, NULL, &r);
	assert_true(r.replaced);
	assert_int_equal(r.len, 5);
	assert_string_equal(r.text,
	                    "a\xef\xbf\xbd"
	                    "b");
	render_result_release(&r);
}

/* The render reaches a human's terminal (toolcage call) and a model:
 * escape sequences (OSC 52 sets the clipboard, CSI 2K erases a line), a
 * lone CR (hides what came before it), BEL, DEL and the 8-bit CSI become
 * visible characters; tab, newline and CRLF stay; counts do not change. */
static void test_render_shows_control_characters(void **state)
{
	(void)state;
	const char in[] = "a\x1b]52;c;eA==\x07"
	                  "b\x1b[2Kc\rd\r\ne\tf\x7fg\xc2\x9bh\r";
	struct render_result r;
	render_ok(in, sizeof in - 1, 100, NULL, &r);
	assert_string_equal(r.text,
	                    "a\u241b]52;c;eA==\u2407"
	                    "b\u241b[2Kc\u240dd\r\ne\tf\u2421g"
	                    "\xef\xbf\xbdh\u240d");
	assert_int_equal(r.chars_total, 31);
	for (const char *p = r.text; *p; p++)
		assert_true((unsigned char)*p >= 0x20 || *p == '\t' || *p == '\n' ||
		            (*p == '\r' && p[1] == '\n'));
	render_result_release(&r);
}

/* Unicode's line and paragraph separators and bidirectional controls in
 * a tool's output would start a line the model takes for the supervisor's
 * or turn text around for the person approving: they become the text
 * "\uXXXX", the rule names follow, also where the output is JSON. */
static void test_render_escapes_line_separators_and_bidi(void **state)
{
	(void)state;
	const char in[] = "a\u2028[toolcage] b\u2029c\u202ed\u202a\u202b\u202c\u202d"
	                  "e\u2066\u2067\u2068\u2069f\u200e\u200f\u061cg\u2027h";
	struct render_result r;
	render_ok(in, sizeof in - 1, 1000, NULL, &r);
	assert_true(r.replaced);
	assert_string_equal(r.text,
	                    "a\\u2028[toolcage] b\\u2029c\\u202Ed\\u202A\\u202B\\u202C"
	                    "\\u202De\\u2066\\u2067\\u2068\\u2069f\\u200E\\u200F\\u061Cg\u2027h");
	assert_int_equal(r.chars_total, utf8_count(r.text, r.len));
	render_result_release(&r);
	/* Inside JSON text the escape is the same character again. */
	const char json[] = "{\"name\": \"x\u202etxt.exe\"}";
	render_ok(json, sizeof json - 1, 1000, NULL, &r);
	json_error_t jerr;
	json_t *v = json_loads(r.text, 0, &jerr);
	assert_non_null(v);
	assert_string_equal(json_string_value(json_object_get(v, "name")), "x\u202etxt.exe");
	json_decref(v);
	render_result_release(&r);
	/* NEL, a C1 control, is replaced as the others are. */
	render_ok("a\xc2\x85"
	          "b",
	          4, 100, NULL, &r);
	assert_string_equal(r.text,
	                    "a\xef\xbf\xbd"
	                    "b");
	render_result_release(&r);
}

static void test_render_rejects_overlong_encoding(void **state)
{
	(void)state;
	const char in[] = "\xc0\xaf"; /* overlong '/' */
	struct render_result r;
	render_ok(in, 2, 100, NULL, &r);
	assert_true(r.replaced);
	assert_null(strchr(r.text, '/'));
	render_result_release(&r);
}

static void test_render_budget_of_one_keeps_only_marker(void **state)
{
	(void)state;
	struct render_result r;
	render_ok("abc", 3, 1, NULL, &r);
	assert_true(r.truncated);
	assert_int_equal(r.chars_omitted, 3);
	assert_string_equal(r.text,
	                    "\n[... 3 characters left out; call again with a narrower "
	                    "request (offset/limit, a pattern) to see them ...]\n");
	render_result_release(&r);
}

static void test_render_budget_of_five_keeps_three_and_one(void **state)
{
	(void)state;
	struct render_result r;
	render_ok("abcdefghij", 10, 5, NULL, &r);
	assert_int_equal(r.chars_omitted, 6);
	assert_int_equal(strncmp(r.text, "abc\n[... 6 characters", 21), 0);
	assert_int_equal(r.text[r.len - 1], 'j');
	assert_int_equal(r.text[r.len - 2], '\n');
	render_result_release(&r);
}

static void test_render_zero_budget_means_default(void **state)
{
	(void)state;
	char *s = repeat("x", RENDER_DEFAULT_MAX_CHARS + 1);
	struct render_result r;
	render_ok(s, RENDER_DEFAULT_MAX_CHARS + 1, 0, NULL, &r);
	assert_true(r.truncated);
	assert_int_equal(r.chars_omitted, RENDER_DEFAULT_MAX_CHARS / 5 + 1);
	render_result_release(&r);
	free(s);
}

static void test_render_marker_counts_sanitized_characters(void **state)
{
	(void)state;
	/* 20 invalid bytes are 20 replacement characters. */
	char in[20];
	memset(in, 0xff, sizeof in);
	struct render_result r;
	render_ok(in, sizeof in, 10, NULL, &r);
	assert_int_equal(r.chars_total, 20);
	assert_non_null(strstr(r.text, "[... 12 characters left out;"));
	render_result_release(&r);
}

/* ---- the spill directory ---------------------------------------------- */

struct tmp {
	char parent[64];
};

static int tmp_setup(void **state)
{
	struct tmp *t = calloc(1, sizeof *t);
	snprintf(t->parent, sizeof t->parent, "/tmp/test_render.XXXXXX");
	if (!mkdtemp(t->parent))
		return -1;
	*state = t;
	return 0;
}

static int tmp_teardown(void **state)
{
	struct tmp *t = *state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->parent);
	int rc = system(cmd);
	free(t);
	return rc == 0 ? 0 : -1;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	struct buf b = BUF_INIT;
	char chunk[4096];
	size_t k;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		assert_int_equal(buf_add(&b, chunk, k), 0);
	fclose(f);
	*n = b.len;
	return buf_detach(&b);
}

static void test_spill_directory_is_private(void **state)
{
	struct tmp *t = *state;
	struct render_spill *s;
	struct tc_error err = { 0 };
	assert_int_equal(render_spill_new(t->parent, 0, &s, &err), 0);
	struct stat st;
	assert_int_equal(stat(render_spill_dir(s), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(strncmp(render_spill_dir(s), t->parent, strlen(t->parent)), 0);
	render_spill_free(s);
}

/* Entries of directory path that are not "." or "..". */
static int entries(const char *path)
{
	DIR *d = opendir(path);
	assert_non_null(d);
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* A spill directory a tool replaced by a link, or one others may write
 * to, is refused: nothing is made where the link points. */
static void test_spill_directory_link_or_shared_is_refused(void **state)
{
	struct tmp *t = *state;
	char target[300], link[300], before[300];
	snprintf(target, sizeof target, "%s/elsewhere", t->parent);
	snprintf(link, sizeof link, "%s/spill", t->parent);
	assert_int_equal(mkdir(target, 0700), 0);
	assert_int_equal(symlink(target, link), 0);
	struct render_spill *s = NULL;
	struct tc_error err = { 0 };
	assert_int_equal(render_spill_new(link, 0, &s, &err), -1);
	assert_null(s);
	assert_non_null(strstr(err.msg, "symbolic link"));
	assert_int_equal(entries(target), 0); /* no session directory made through the link */
	snprintf(before, sizeof before, "%s/shared", t->parent);
	assert_int_equal(mkdir(before, 0700), 0);
	assert_int_equal(chmod(before, 0777), 0);
	assert_int_equal(render_spill_new(before, 0, &s, &err), -1);
	assert_non_null(strstr(err.msg, "writable by no one else"));
	assert_int_equal(chmod(before, 0755), 0);
	assert_int_equal(render_spill_new(before, 0, &s, &err), 0);
	render_spill_free(s);
}

/* A link anywhere on the spill directory's path is not followed: one put
 * in the middle from the start, and a directory on the way swapped for a
 * link to another tree that has the same names. Nothing is made where the
 * links point. */
static void test_spill_path_link_in_the_middle_is_refused(void **state)
{
	struct tmp *t = *state;
	char real[128], mid[128], spill[128], other[128], cmd[1024];
	snprintf(real, sizeof real, "%s/real", t->parent);
	snprintf(mid, sizeof mid, "%s/mid", t->parent);
	snprintf(spill, sizeof spill, "%s/mid/a/spill", t->parent);
	snprintf(other, sizeof other, "%s/real/a", t->parent);
	assert_int_equal(mkdir(real, 0700), 0);
	assert_int_equal(mkdir(other, 0700), 0);
	assert_int_equal(symlink(real, mid), 0);
	struct render_spill *s = NULL;
	struct tc_error err = { 0 };
	assert_int_equal(render_spill_new(spill, 0, &s, &err), -1);
	assert_null(s);
	assert_non_null(strstr(err.msg, "symbolic link is not followed"));
	assert_non_null(strstr(err.msg, "/mid"));
	assert_int_equal(entries(other), 0); /* no spill directory made through it */

	/* A real path first, accepted; then its middle directory swapped for
	 * a link to a look-alike tree. */
	assert_int_equal(unlink(mid), 0);
	snprintf(cmd, sizeof cmd, "%s/mid/a", t->parent);
	assert_int_equal(mkdir(mid, 0700), 0);
	assert_int_equal(mkdir(cmd, 0700), 0);
	assert_int_equal(render_spill_new(spill, 0, &s, &err), 0);
	render_spill_free(s);
	s = NULL;
	snprintf(cmd, sizeof cmd, "mv '%s' '%s.moved' && ln -s '%s' '%s'", mid, mid, real, mid);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(render_spill_new(spill, 0, &s, &err), -1);
	assert_null(s);
	assert_non_null(strstr(err.msg, "symbolic link is not followed"));
	assert_int_equal(entries(other), 0);
}

/* A session made before a directory on the way is swapped for a link
 * keeps writing and removing where it was made, never through the link. */
static void test_spill_session_outlives_a_swap(void **state)
{
	struct tmp *t = *state;
	char mid[128], spill[128], decoy[128], cmd[1024];
	snprintf(mid, sizeof mid, "%s/mid", t->parent);
	snprintf(spill, sizeof spill, "%s/mid/spill", t->parent);
	snprintf(decoy, sizeof decoy, "%s/decoy", t->parent);
	assert_int_equal(mkdir(mid, 0700), 0);
	assert_int_equal(mkdir(decoy, 0700), 0);
	struct render_spill *s = NULL;
	assert_int_equal(render_spill_new(spill, 0, &s, NULL), 0);
	/* the same names in the decoy tree */
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/spill/%s' && mv '%s' '%s.moved' && ln -s '%s' '%s'",
	         decoy, strrchr(render_spill_dir(s), '/') + 1, mid, mid, decoy, mid);
	assert_int_equal(system(cmd), 0);
	char big[3000];
	memset(big, 'x', sizeof big);
	struct render_result r;
	render_ok(big, sizeof big, 100, s, &r);
	assert_non_null(r.spill_path);
	render_result_release(&r);
	char sess[300];
	snprintf(sess, sizeof sess, "%s/spill/%s", decoy, strrchr(render_spill_dir(s), '/') + 1);
	assert_int_equal(entries(sess), 0); /* the file went where the session was made */
	render_spill_free(s);
	assert_int_equal(access(sess, F_OK), 0); /* the decoy is not removed */
	snprintf(sess, sizeof sess, "%s.moved/spill", mid);
	assert_int_equal(entries(sess), 0); /* the real session directory is */
}

/* A directory on the way that others may write to (not sticky), or that
 * belongs to another user, is refused; a sticky one (as /tmp) is not. */
static void test_spill_path_shared_or_foreign_is_refused(void **state)
{
	struct tmp *t = *state;
	char mid[128], spill[128];
	snprintf(mid, sizeof mid, "%s/mid", t->parent);
	snprintf(spill, sizeof spill, "%s/mid/spill", t->parent);
	assert_int_equal(mkdir(mid, 0700), 0);
	assert_int_equal(chmod(mid, 0777), 0);
	struct render_spill *s = NULL;
	struct tc_error err = { 0 };
	assert_int_equal(render_spill_new(spill, 0, &s, &err), -1);
	assert_non_null(strstr(err.msg, "others may write to (mode 777, not sticky)"));
	assert_int_equal(chmod(mid, 01777), 0);
	assert_int_equal(render_spill_new(spill, 0, &s, &err), 0);
	render_spill_free(s);
	if (geteuid() != 0) {
		print_message("[ SKIP     ] the foreign owner case needs root (chown)\n");
		return;
	}
	assert_int_equal(chmod(mid, 0755), 0);
	assert_int_equal(chown(mid, 65534, 65534), 0);
	assert_int_equal(render_spill_new(spill, 0, &s, &err), -1);
	assert_non_null(strstr(err.msg, "belongs to another user (uid 65534)"));
}

static void test_spill_file_holds_whole_output(void **state)
{
	struct tmp *t = *state;
	struct render_spill *s;
	assert_int_equal(render_spill_new(t->parent, 0, &s, NULL), 0);
	char in[] = "line one \xff\nline two\nline three\n";
	struct render_result r;
	render_ok(in, sizeof in - 1, 10, s, &r);
	assert_true(r.truncated);
	assert_non_null(r.spill_path);
	assert_null(r.spill_refused);
	size_t n;
	char *kept = slurp(r.spill_path, &n);
	/* The whole output, as sanitized text. */
	assert_string_equal(kept, "line one \xef\xbf\xbd\nline two\nline three\n");
	struct stat st;
	assert_int_equal(stat(r.spill_path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(render_spill_used(s), n);
	char want[512];
	snprintf(want, sizeof want,
	         "the whole output (%zu characters) is in %s: read it with "
	         "read_file using offset and limit ...]",
	         r.chars_total, r.spill_path);
	assert_non_null(strstr(r.text, want));
	free(kept);
	render_result_release(&r);
	render_spill_free(s);
}

static void test_spill_not_written_when_render_fits(void **state)
{
	struct tmp *t = *state;
	struct render_spill *s;
	assert_int_equal(render_spill_new(t->parent, 0, &s, NULL), 0);
	struct render_result r;
	render_ok("short", 5, 100, s, &r);
	assert_null(r.spill_path);
	assert_int_equal(render_spill_used(s), 0);
	render_result_release(&r);
	render_spill_free(s);
}

static void test_spill_over_cap_is_skipped_and_said(void **state)
{
	struct tmp *t = *state;
	struct render_spill *s;
	assert_int_equal(render_spill_new(t->parent, 50, &s, NULL), 0);
	char *big = repeat("z", 40);
	struct render_result r1, r2;
	render_ok(big, 40, 10, s, &r1);
	assert_non_null(r1.spill_path);
	render_ok(big, 40, 10, s, &r2); /* 80 bytes would pass the cap of 50 */
	assert_null(r2.spill_path);
	assert_non_null(r2.spill_refused);
	assert_non_null(strstr(r2.text, "call again with a narrower request"));
	assert_non_null(strstr(r2.text,
	                       "(the whole output was not kept: the session's spill "
	                       "directory is full (40 of 50 bytes used))"));
	assert_int_equal(render_spill_used(s), 40);
	render_result_release(&r1);
	render_result_release(&r2);
	render_spill_free(s);
	free(big);
}

static void test_spill_free_removes_files_and_directory(void **state)
{
	struct tmp *t = *state;
	struct render_spill *s;
	assert_int_equal(render_spill_new(t->parent, 0, &s, NULL), 0);
	char dir[256];
	snprintf(dir, sizeof dir, "%s", render_spill_dir(s));
	struct render_result r;
	render_ok("0123456789abcdef", 16, 5, s, &r);
	char path[256];
	snprintf(path, sizeof path, "%s", r.spill_path);
	render_result_release(&r);
	assert_int_equal(access(path, F_OK), 0);
	render_spill_free(s);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(access(t->parent, F_OK), 0);
}

static void test_spill_sessions_get_separate_directories(void **state)
{
	struct tmp *t = *state;
	struct render_spill *a, *b;
	assert_int_equal(render_spill_new(t->parent, 0, &a, NULL), 0);
	assert_int_equal(render_spill_new(t->parent, 0, &b, NULL), 0);
	assert_string_not_equal(render_spill_dir(a), render_spill_dir(b));
	render_spill_free(a);
	render_spill_free(b);
}

static void test_spill_new_fails_for_unusable_parent(void **state)
{
	(void)state;
	struct render_spill *s = (struct render_spill *)1;
	struct tc_error err = { 0 };
	assert_int_equal(render_spill_new("/proc/no/such/dir", 0, &s, &err), -1);
	assert_null(s);
	assert_int_equal(err.code, TC_E_SYSTEM);
	assert_non_null(strstr(err.msg, "cannot open /proc/no on the way"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_keeps_text_at_exact_limit),
		cmocka_unit_test(test_render_cuts_one_past_limit),
		cmocka_unit_test(test_render_cuts_between_two_byte_characters),
		cmocka_unit_test(test_render_cuts_between_three_byte_characters),
		cmocka_unit_test(test_render_cuts_between_four_byte_characters),
		cmocka_unit_test(test_render_counts_code_points_not_bytes),
		cmocka_unit_test(test_render_handles_empty_output),
		cmocka_unit_test(test_render_replaces_invalid_utf8),
		cmocka_unit_test(test_render_replaces_nul_bytes),
		cmocka_unit_test(test_render_escapes_line_separators_and_bidi),
		cmocka_unit_test(test_render_rejects_overlong_encoding),
		cmocka_unit_test(test_render_shows_control_characters),
		cmocka_unit_test(test_render_budget_of_one_keeps_only_marker),
		cmocka_unit_test(test_render_budget_of_five_keeps_three_and_one),
		cmocka_unit_test(test_render_zero_budget_means_default),
		cmocka_unit_test(test_render_marker_counts_sanitized_characters),
		cmocka_unit_test_setup_teardown(test_spill_directory_is_private, tmp_setup,
		                                tmp_teardown),
		cmocka_unit_test_setup_teardown(test_spill_directory_link_or_shared_is_refused,
		                                tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_spill_path_link_in_the_middle_is_refused,
		                                tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_spill_session_outlives_a_swap, tmp_setup,
		                                tmp_teardown),
		cmocka_unit_test_setup_teardown(test_spill_path_shared_or_foreign_is_refused,
		                                tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_spill_file_holds_whole_output, tmp_setup,
		                                tmp_teardown),
		cmocka_unit_test_setup_teardown(test_spill_not_written_when_render_fits, tmp_setup,
		                                tmp_teardown),
		cmocka_unit_test_setup_teardown(test_spill_over_cap_is_skipped_and_said, tmp_setup,
		                                tmp_teardown),
		cmocka_unit_test_setup_teardown(test_spill_free_removes_files_and_directory,
		                                tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_spill_sessions_get_separate_directories,
		                                tmp_setup, tmp_teardown),
		cmocka_unit_test(test_spill_new_fails_for_unusable_parent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
