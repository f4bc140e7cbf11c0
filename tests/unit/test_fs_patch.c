/* test_fs_patch.c — apply_patch: unified diffs as diff -u, git diff and
 * models write them (wrong counts, a dropped space on an empty context
 * line, indentation off), several files all or nothing, new files, CRLF
 * files, the end-of-file newline, and the refusals (deletes, renames,
 * binary, a hunk that matches nowhere). Each test gets a fresh temp
 * workspace. */
#include "fs_test.h"

#define T(name) cmocka_unit_test_setup_teardown(name, ws_setup, ws_teardown)

/* Calls apply_patch with the diff text. */
static int patch(struct ws *w, const char *diff)
{
	return ws_call_args(w, "apply_patch", json_pack("{s:s}", "patch", diff));
}

static void assert_file(struct ws *w, const char *rel, const char *want)
{
	char *got = ws_read(w, rel);
	if (!got || strcmp(got, want))
		fail_msg("%s is\n%s\nwanted\n%s", rel, got ? got : "(missing)", want);
	free(got);
}

static void test_patch_git_diff_two_files(void **state)
{
	struct ws *w = *state;
	ws_mkdir(w, "src");
	ws_write(w, "src/a.c", "int a;\nint b;\nint c;\nint d;\n");
	ws_write(w, "README.md", "# Demo\n\nold text\n");
	int rc = patch(
	        w,
	        "diff --git a/src/a.c b/src/a.c\nindex 1..2 100644\n"
	        "--- a/src/a.c\n+++ b/src/a.c\n@@ -1,4 +1,5 @@\n int a;\n-int b;\n+long b;\n+long b2;\n int c;\n int d;\n"
	        "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n"
	        "@@ -2,2 +2,2 @@\n \n-old text\n+new text\n");
	assert_ok(w, rc);
	assert_file(w, "src/a.c", "int a;\nlong b;\nlong b2;\nint c;\nint d;\n");
	assert_file(w, "README.md", "# Demo\n\nnew text\n");
	assert_int_equal(out_int(w, "files_changed"), 2);
	json_t *f0 = json_array_get(json_object_get(w->out.canonical, "files"), 0);
	assert_int_equal(json_integer_value(json_object_get(f0, "lines_added")), 2);
	assert_render_has(w,
	                  "Patched \"src/a.c\": 1 hunk, 1 line removed, 2 added.\n     1\tint a;\n"
	                  "     2\tlong b;\n     3\tlong b2;\n     4\tint c;\n     5\tint d;\n");
	assert_render_has(w, "[2 files changed]");
}

/* Counts that do not add up, an empty context line without its space, and
 * a header whose line is off: placed by content, nearest first. */
static void test_patch_lenient_as_models_write(void **state)
{
	struct ws *w = *state;
	ws_write(w, "f.py", "import os\n\ndef run():\n    return 1\n\ndef stop():\n    return 2\n");
	int rc = patch(
	        w,
	        "--- f.py\n+++ f.py\n@@ -40,9 +40,9 @@\n def stop():\n-    return 2\n+    return 3\n");
	assert_ok(w, rc);
	assert_file(w, "f.py",
	            "import os\n\ndef run():\n    return 1\n\ndef stop():\n    return 3\n");
	rc = patch(
	        w,
	        "--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n import os\n\n-def run():\n+def start():\n");
	assert_ok(w, rc);
	assert_file(w, "f.py",
	            "import os\n\ndef start():\n    return 1\n\ndef stop():\n    return 3\n");
}

/* Indentation off in the diff: placed with whitespace ignored, the file's
 * own context lines kept, and the answer says so. */
static void test_patch_whitespace_differences(void **state)
{
	struct ws *w = *state;
	ws_write(w, "m.py", "class A:\n    def run(self):\n        return 1\n");
	int rc = patch(
	        w,
	        "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n class A:\n def run(self):\n-    return 1\n+        return 2\n");
	assert_ok(w, rc);
	assert_file(w, "m.py", "class A:\n    def run(self):\n        return 2\n");
	assert_render_has(w, "whitespace differences ignored");
}

static void test_patch_all_or_nothing(void **state)
{
	struct ws *w = *state;
	ws_write(w, "a.txt", "one\ntwo\n");
	ws_write(w, "b.txt", "three\nfour\n");
	int rc = patch(w,
	               "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n"
	               "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-five\n+FIVE\n four\n");
	assert_error(w, rc, "hunk_failed");
	assert_render_has(w, "hunk 1 of 1 for \"b.txt\" (@@ -1,2 +1,2 @@) does not apply");
	assert_render_has(w, "Nothing was written");
	assert_render_has(w, "Lines 1-2 come closest (1 of 2 lines match");
	assert_string_equal(out_str(w, "file"), "b.txt");
	assert_int_equal(out_int(w, "hunk"), 1);
	assert_file(w, "a.txt", "one\ntwo\n");
	assert_file(w, "b.txt", "three\nfour\n");
	assert_int_equal(temp_files_in(w, "."), 0);
}

static void test_patch_creates_files_and_dirs(void **state)
{
	struct ws *w = *state;
	int rc = patch(w, "--- /dev/null\n+++ b/pkg/sub/new.py\n@@ -0,0 +1,2 @@\n+x = 1\n+y = 2\n");
	assert_ok(w, rc);
	assert_file(w, "pkg/sub/new.py", "x = 1\ny = 2\n");
	assert_render_has(w, "Created \"pkg/sub/new.py\": 2 lines.");
	rc = patch(w, "--- /dev/null\n+++ b/pkg/sub/new.py\n@@ -0,0 +1 @@\n+z\n");
	assert_error(w, rc, "exists");
}

static void test_patch_keeps_crlf_and_missing_final_newline(void **state)
{
	struct ws *w = *state;
	ws_write(w, "w.txt", "a\r\nb\r\nc\r\n");
	int rc = patch(w, "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
	assert_ok(w, rc);
	assert_file(w, "w.txt", "a\r\nB\r\nc\r\n");
	ws_write(w, "n.txt", "x\ny");
	rc = patch(
	        w,
	        "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+z\n");
	assert_ok(w, rc);
	assert_file(w, "n.txt", "x\nz\n");
	rc = patch(
	        w,
	        "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n x\n-z\n+q\n\\ No newline at end of file\n");
	assert_ok(w, rc);
	assert_file(w, "n.txt", "x\nq");
}

static void test_patch_refusals(void **state)
{
	struct ws *w = *state;
	ws_write(w, "a.txt", "one\n");
	int rc = patch(w, "--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n");
	assert_error(w, rc, "unsupported_patch");
	assert_render_has(w, "delete_path");
	rc = patch(w, "--- a/a.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-one\n+two\n");
	assert_error(w, rc, "unsupported_patch");
	assert_render_has(w, "move_path");
	rc = patch(w, "diff --git a/x.png b/x.png\nBinary files a/x.png and b/x.png differ\n");
	assert_error(w, rc, "unsupported_patch");
	rc = patch(w, "just some text\n");
	assert_error(w, rc, "invalid_patch");
	rc = patch(
	        w,
	        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-two\n+three\n");
	assert_error(w, rc, "invalid_patch");
	rc = patch(w, "--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-root\n+x\n");
	assert_error(w, rc, "outside_workspace");
	rc = patch(w, "--- a/missing.txt\n+++ b/missing.txt\n@@ -1 +1 @@\n-one\n+two\n");
	assert_error(w, rc, "not_found");
	assert_file(w, "a.txt", "one\n");
}

/* Hunks apply in order, each below the one before; an added line that
 * looks like a header inside a hunk ("--- x" as removed "-- x") stays
 * the hunk's, since the counts say so. */
static void test_patch_hunks_in_order_and_dashes(void **state)
{
	struct ws *w = *state;
	ws_write(w, "q.sql", "-- a comment\nselect 1;\nx\nx\nx\nx\nx\nx\nselect 1;\n");
	int rc = patch(
	        w,
	        "--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,2 @@\n--- a comment\n+-- the comment\n select 1;\n"
	        "@@ -9,1 +9,1 @@\n-select 1;\n+select 2;\n");
	assert_ok(w, rc);
	assert_file(w, "q.sql", "-- the comment\nselect 1;\nx\nx\nx\nx\nx\nx\nselect 2;\n");
}

/* A hunk copied from read_file's page of a file that is not UTF-8 holds
 * U+FFFD where the file has other bytes: told why it cannot match. */
/* A hunk that fails says what to do whether or not lines come close, and
 * a near miss on one line names the hunk's line, not edit_file's old_text. */
static void test_patch_failed_hunk_says_what_to_do(void **state)
{
	struct ws *w = *state;
	ws_write(w, "c.h", "int add(int a, int b);\nint mul(int a, int b);\n");
	int rc = patch(w, "--- a/c.h\n+++ b/c.h\n@@ -1 +1 @@\n-int ad(int a, int b);\n+int x;\n");
	assert_error(w, rc, "hunk_failed");
	assert_render_has(w,
	                  "Line 1 is the closest (1 character differs from the hunk's first "
	                  "context or removed line):\n");
	assert_null(strstr(w->out.render, "old_text"));
	rc = patch(w, "--- a/c.h\n+++ b/c.h\n@@ -1 +1 @@\n-nothing like it at all\n+int x;\n");
	assert_error(w, rc, "hunk_failed");
	assert_render_has(w,
	                  "Nothing was written: the patch applies all or nothing. Call "
	                  "read_file on the file to see its lines, copy the hunk's context "
	                  "and removed lines from them exactly, and call again.");
	assert_null(json_object_get(w->out.canonical, "near_miss"));
}

static void test_patch_not_utf8_hunk_is_explained(void **state)
{
	struct ws *w = *state;
	ws_write(w, "l1.txt", "caf\xe9\nsecond\n");
	int rc = patch(w,
	               "--- a/l1.txt\n+++ b/l1.txt\n@@ -1,2 +1,2 @@\n-caf\xef\xbf\xbd\n+coffee\n"
	               " second\n");
	assert_error(w, rc, "hunk_failed");
	assert_render_has(w, "The hunk's lines hold U+FFFD (\xef\xbf\xbd), which read_file shows");
	assert_render_has(w, "1 byte of \"l1.txt\" (line 1) is not valid UTF-8");
	assert_file(w, "l1.txt", "caf\xe9\nsecond\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_patch_git_diff_two_files),
		T(test_patch_lenient_as_models_write),
		T(test_patch_whitespace_differences),
		T(test_patch_all_or_nothing),
		T(test_patch_creates_files_and_dirs),
		T(test_patch_keeps_crlf_and_missing_final_newline),
		T(test_patch_refusals),
		T(test_patch_hunks_in_order_and_dashes),
		T(test_patch_failed_hunk_says_what_to_do),
		T(test_patch_not_utf8_hunk_is_explained),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
