/* test_fs_write.c — the fs tools that change the workspace: write_file and
 * edit_file (atomic, no temp files left, modes kept), make_dir,
 * delete_path (no recursion without asking, never through symlinks, never
 * the root) and move_path (no silent overwrite). Each test gets a fresh
 * temp workspace; test_fs_tools.c has the read side. */
#include "fs_test.h"

#include <dirent.h>

#define T(name) cmocka_unit_test_setup_teardown(name, ws_setup, ws_teardown)

static mode_t mode_of(struct ws *w, const char *rel)
{
	struct stat st;
	assert_int_equal(lstat(ws_path(w, rel), &st), 0);
	return st.st_mode & 07777;
}

/* ---- write_file --------------------------------------------------------- */

static void test_write_file_creates_with_0644_despite_umask(void **state)
{
	struct ws *w = *state;
	mode_t old = umask(077);
	int rc = ws_call(w, "write_file", "{\"path\": \"new.txt\", \"content\": \"hello\\n\"}");
	umask(old);
	assert_ok(w, rc);
	assert_true(out_true(w, "created"));
	assert_string_equal(out_str(w, "action"), "created");
	assert_int_equal(out_int(w, "bytes"), 6);
	char *got = ws_read(w, "new.txt");
	assert_string_equal(got, "hello\n");
	free(got);
	assert_int_equal(mode_of(w, "new.txt"), 0644);
	assert_render_has(w, "Created \"new.txt\": 6 bytes");
	assert_int_equal(temp_files_in(w, "."), 0);
}

static void test_write_file_replaces_and_keeps_mode(void **state)
{
	struct ws *w = *state;
	ws_write(w, "conf", "old content\n");
	assert_int_equal(chmod(ws_path(w, "conf"), 0600), 0);
	int rc = ws_call(w, "write_file", "{\"path\": \"conf\", \"content\": \"new\"}");
	assert_ok(w, rc);
	assert_false(out_true(w, "created"));
	assert_string_equal(out_str(w, "action"), "replaced");
	char *got = ws_read(w, "conf");
	assert_string_equal(got, "new");
	free(got);
	assert_int_equal(mode_of(w, "conf"), 0600);
	assert_render_has(w, "Replaced \"conf\": 3 bytes written (it had 12)");
	assert_int_equal(temp_files_in(w, "."), 0);
	/* one byte is a byte */
	assert_ok(w, ws_call(w, "write_file", "{\"path\": \"one\", \"content\": \"x\"}"));
	assert_render_has(w, "Created \"one\": 1 byte written.");
	assert_ok(w, ws_call(w, "write_file", "{\"path\": \"one\", \"content\": \"y\"}"));
	assert_render_has(w, "Replaced \"one\": 1 byte written (it had 1)");
}

static void test_write_file_missing_dir_needs_create_dirs(void **state)
{
	struct ws *w = *state;
	int rc = ws_call(w, "write_file", "{\"path\": \"a/b/c.txt\", \"content\": \"x\"}");
	assert_error(w, rc, "not_found");
	assert_render_has(w, "create_dirs true");
	assert_false(ws_exists(w, "a"));
	rc = ws_call(w, "write_file",
	             "{\"path\": \"a/b/c.txt\", \"content\": \"x\", \"create_dirs\": true}");
	assert_ok(w, rc);
	char *got = ws_read(w, "a/b/c.txt");
	assert_string_equal(got, "x");
	free(got);
}

static void test_write_file_refuses_symlink_and_directory(void **state)
{
	struct ws *w = *state;
	ws_write(w, "real.txt", "keep");
	assert_int_equal(symlink("real.txt", ws_path(w, "link")), 0);
	int rc = ws_call(w, "write_file", "{\"path\": \"link\", \"content\": \"x\"}");
	assert_error(w, rc, "is_symlink");
	ws_mkdir(w, "d");
	rc = ws_call(w, "write_file", "{\"path\": \"d\", \"content\": \"x\"}");
	assert_error(w, rc, "is_directory");
	char *got = ws_read(w, "real.txt");
	assert_string_equal(got, "keep");
	free(got);
}

static void test_write_file_refuses_escapes(void **state)
{
	struct ws *w = *state;
	assert_int_equal(symlink(w->outside, ws_path(w, "out")), 0);
	int rc = ws_call(w, "write_file", "{\"path\": \"out/pwned.txt\", \"content\": \"x\"}");
	assert_error(w, rc, "outside_workspace");
	rc = ws_call(w, "write_file", "{\"path\": \"../pwned.txt\", \"content\": \"x\"}");
	assert_error(w, rc, "outside_workspace");
	rc = ws_call(w, "write_file", "{\"path\": \"/tmp/pwned.txt\", \"content\": \"x\"}");
	assert_error(w, rc, "absolute_path");
	rc = ws_call(w, "write_file",
	             "{\"path\": \"out/sub/pwned.txt\", \"content\": \"x\", "
	             "\"create_dirs\": true}");
	assert_error(w, rc, "outside_workspace");
	char p[160];
	snprintf(p, sizeof p, "%s/pwned.txt", w->outside);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof p, "%s/sub", w->outside);
	assert_int_equal(access(p, F_OK), -1);
}

static void test_write_file_refuses_root_and_dot_names(void **state)
{
	struct ws *w = *state;
	int rc = ws_call(w, "write_file", "{\"path\": \".\", \"content\": \"x\"}");
	assert_error(w, rc, "workspace_root");
	ws_mkdir(w, "d");
	rc = ws_call(w, "write_file", "{\"path\": \"d/.\", \"content\": \"x\"}");
	assert_error(w, rc, "invalid_path");
}

static void test_write_file_refuses_content_over_cap(void **state)
{
	struct ws *w = *state;
	size_t n = (10u << 20) + 1;
	char *big = malloc(n + 1);
	assert_non_null(big);
	memset(big, 'x', n);
	big[n] = '\0';
	json_t *args = json_pack("{s:s, s:s}", "path", "big.txt", "content", big);
	free(big);
	ws_clear_out(w);
	int rc = fs_tool("write_file")->execute(&w->ctx, args, &w->out);
	json_decref(args);
	assert_error(w, rc, "too_large");
	assert_false(ws_exists(w, "big.txt"));
}

/* ---- edit_file ---------------------------------------------------------- */

static void test_edit_file_replaces_the_one_occurrence(void **state)
{
	struct ws *w = *state;
	ws_write(w, "main.c", "int a;\nint retries = 3;\nint b;\n");
	assert_int_equal(chmod(ws_path(w, "main.c"), 0755), 0);
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"main.c\", \"old_text\": \"retries = 3\", "
	                 "\"new_text\": \"retries = 5\"}");
	assert_ok(w, rc);
	char *got = ws_read(w, "main.c");
	assert_string_equal(got, "int a;\nint retries = 5;\nint b;\n");
	free(got);
	assert_int_equal(out_int(w, "line"), 2);
	assert_int_equal(mode_of(w, "main.c"), 0755);
	assert_int_equal(temp_files_in(w, "."), 0);
	assert_render_has(w, "Edited \"main.c\" at line 2");
}

static void test_edit_file_multiline_and_delete(void **state)
{
	struct ws *w = *state;
	ws_write(w, "t.txt", "keep\ndrop1\ndrop2\nkeep2\n");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"t.txt\", \"old_text\": \"drop1\\ndrop2\\n\", "
	                 "\"new_text\": \"\"}");
	assert_ok(w, rc);
	char *got = ws_read(w, "t.txt");
	assert_string_equal(got, "keep\nkeep2\n");
	free(got);
	assert_int_equal(out_int(w, "lines_added"), 0);
}

static void test_edit_file_zero_occurrences_suggests_read(void **state)
{
	struct ws *w = *state;
	ws_write(w, "f.txt", "alpha\n");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"f.txt\", \"old_text\": \"beta\", \"new_text\": \"x\"}");
	assert_error(w, rc, "no_match");
	assert_render_has(w, "read_file");
	char *got = ws_read(w, "f.txt");
	assert_string_equal(got, "alpha\n");
	free(got);
}

static void test_edit_file_two_occurrences_refused(void **state)
{
	struct ws *w = *state;
	ws_write(w, "f.txt", "x = 1;\nother\nx = 1;\n");
	int rc = ws_call(
	        w, "edit_file",
	        "{\"path\": \"f.txt\", \"old_text\": \"x = 1;\", \"new_text\": \"x = 2;\"}");
	assert_error(w, rc, "ambiguous");
	assert_int_equal(out_int(w, "occurrences"), 2);
	json_t *lines = json_object_get(w->out.canonical, "lines");
	assert_int_equal(json_integer_value(json_array_get(lines, 0)), 1);
	assert_int_equal(json_integer_value(json_array_get(lines, 1)), 3);
	assert_render_has(w, "occurs 2 times");
	assert_render_has(w, "lines 1, 3");
	char *got = ws_read(w, "f.txt");
	assert_string_equal(got, "x = 1;\nother\nx = 1;\n");
	free(got);
	assert_int_equal(temp_files_in(w, "."), 0);
}

static void test_edit_file_counts_overlapping_occurrences(void **state)
{
	struct ws *w = *state;
	ws_write(w, "f.txt", "aaa");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"f.txt\", \"old_text\": \"aa\", \"new_text\": \"b\"}");
	assert_error(w, rc, "ambiguous");
	assert_int_equal(out_int(w, "occurrences"), 2);
}

static void test_edit_file_refuses_no_change(void **state)
{
	struct ws *w = *state;
	ws_write(w, "f.txt", "same\n");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"f.txt\", \"old_text\": \"same\", \"new_text\": \"same\"}");
	assert_error(w, rc, "no_change");
}

static void test_edit_file_missing_and_binary(void **state)
{
	struct ws *w = *state;
	ws_write(w, "notes.txt", "");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"note.txt\", \"old_text\": \"a\", \"new_text\": \"b\"}");
	assert_error(w, rc, "not_found");
	assert_render_has(w, "notes.txt");
	assert_render_has(w, "write_file");
	ws_write_n(w, "b.bin", "a\0b", 3);
	rc = ws_call(w, "edit_file",
	             "{\"path\": \"b.bin\", \"old_text\": \"a\", \"new_text\": \"c\"}");
	assert_error(w, rc, "binary");
}

static void test_edit_file_refuses_symlink_out(void **state)
{
	struct ws *w = *state;
	char target[128];
	snprintf(target, sizeof target, "%s/victim.txt", w->outside);
	FILE *f = fopen(target, "w");
	assert_non_null(f);
	fputs("secret=1\n", f);
	fclose(f);
	assert_int_equal(symlink(target, ws_path(w, "v")), 0);
	int rc = ws_call(
	        w, "edit_file",
	        "{\"path\": \"v\", \"old_text\": \"secret=1\", \"new_text\": \"secret=2\"}");
	assert_error(w, rc, "is_symlink");
	f = fopen(target, "r");
	char buf[32] = "";
	assert_non_null(fgets(buf, sizeof buf, f));
	fclose(f);
	assert_string_equal(buf, "secret=1\n");
}

/* ---- make_dir ----------------------------------------------------------- */

static void test_make_dir_creates_and_refuses_existing(void **state)
{
	struct ws *w = *state;
	int rc = ws_call(w, "make_dir", "{\"path\": \"build\"}");
	assert_ok(w, rc);
	assert_true(out_true(w, "created"));
	struct stat st;
	assert_int_equal(stat(ws_path(w, "build"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	rc = ws_call(w, "make_dir", "{\"path\": \"build\"}");
	assert_error(w, rc, "exists");
	rc = ws_call(w, "make_dir", "{\"path\": \"build\", \"parents\": true}");
	assert_ok(w, rc);
	assert_false(out_true(w, "created"));
}

static void test_make_dir_parents(void **state)
{
	struct ws *w = *state;
	int rc = ws_call(w, "make_dir", "{\"path\": \"x/y/z\"}");
	assert_error(w, rc, "not_found");
	assert_render_has(w, "parents true");
	rc = ws_call(w, "make_dir", "{\"path\": \"x/y/z\", \"parents\": true}");
	assert_ok(w, rc);
	assert_true(ws_exists(w, "x/y/z"));
}

/* ENOTDIR names the entry in the way, not "a component of" the path. */
static void test_a_file_in_the_path_is_named_as_the_reason(void **state)
{
	struct ws *w = *state;
	ws_mkdir(w, "src");
	ws_write(w, "src/m.c", "int x;\n");
	int rc = ws_call(w, "make_dir", "{\"path\": \"src/m.c/x\"}");
	assert_error(w, rc, "not_directory");
	assert_render_has(w,
	                  "\"src/m.c\" is a file, not a directory, so nothing can be put or "
	                  "found under it; use another path (list_dir on \"src\" shows what is "
	                  "there)");
	rc = ws_call(w, "write_file", "{\"path\": \"src/m.c/x/y.txt\", \"content\": \"y\"}");
	assert_error(w, rc, "not_directory");
	assert_render_has(w,
	                  "\"src/m.c/x\" goes through \"src/m.c\", which is a file, not a "
	                  "directory");
	assert_false(ws_exists(w, "src/m.c/x"));
}

static void test_make_dir_refuses_through_symlink_out(void **state)
{
	struct ws *w = *state;
	assert_int_equal(symlink(w->outside, ws_path(w, "out")), 0);
	int rc = ws_call(w, "make_dir", "{\"path\": \"out/evil\"}");
	assert_error(w, rc, "outside_workspace");
	rc = ws_call(w, "make_dir", "{\"path\": \"out/a/b\", \"parents\": true}");
	assert_error(w, rc, "outside_workspace");
	char p[160];
	snprintf(p, sizeof p, "%s/evil", w->outside);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof p, "%s/a", w->outside);
	assert_int_equal(access(p, F_OK), -1);
}

static void test_make_dir_refuses_existing_file(void **state)
{
	struct ws *w = *state;
	ws_write(w, "f", "");
	int rc = ws_call(w, "make_dir", "{\"path\": \"f\", \"parents\": true}");
	assert_error(w, rc, "exists");
	assert_render_has(w, "not a directory");
}

/* ---- delete_path -------------------------------------------------------- */

static void test_delete_path_file_and_symlink_itself(void **state)
{
	struct ws *w = *state;
	ws_write(w, "target.txt", "keep");
	assert_int_equal(symlink("target.txt", ws_path(w, "link")), 0);
	int rc = ws_call(w, "delete_path", "{\"path\": \"link\"}");
	assert_ok(w, rc);
	assert_string_equal(out_str(w, "type"), "symlink");
	assert_false(ws_exists(w, "link"));
	assert_true(ws_exists(w, "target.txt"));
	rc = ws_call(w, "delete_path", "{\"path\": \"target.txt\"}");
	assert_ok(w, rc);
	assert_false(ws_exists(w, "target.txt"));
	assert_render_has(w, "Deleted file \"target.txt\"");
}

static void test_delete_path_refuses_nonempty_dir_without_recursive(void **state)
{
	struct ws *w = *state;
	ws_mkdir(w, "d");
	ws_write(w, "d/one", "");
	ws_write(w, "d/two", "");
	int rc = ws_call(w, "delete_path", "{\"path\": \"d\"}");
	assert_error(w, rc, "not_empty");
	assert_int_equal(out_int(w, "entries"), 2);
	assert_render_has(w, "not empty");
	assert_render_has(w, "recursive true");
	assert_true(ws_exists(w, "d/one"));
	ws_mkdir(w, "empty");
	rc = ws_call(w, "delete_path", "{\"path\": \"empty\"}");
	assert_ok(w, rc);
	assert_false(ws_exists(w, "empty"));
}

static void test_delete_path_recursive_never_follows_symlinks(void **state)
{
	struct ws *w = *state;
	char keep[160];
	snprintf(keep, sizeof keep, "%s/precious.txt", w->outside);
	FILE *f = fopen(keep, "w");
	assert_non_null(f);
	fclose(f);
	ws_mkdir(w, "tree");
	ws_mkdir(w, "tree/sub");
	ws_write(w, "tree/sub/a.txt", "a");
	ws_write(w, "tree/b.txt", "b");
	assert_int_equal(symlink(w->outside, ws_path(w, "tree/sub/out")), 0);
	assert_int_equal(symlink("/", ws_path(w, "tree/root")), 0);
	int rc = ws_call(w, "delete_path", "{\"path\": \"tree\", \"recursive\": true}");
	assert_ok(w, rc);
	assert_false(ws_exists(w, "tree"));
	assert_int_equal(out_int(w, "entries_removed"), 5);
	assert_int_equal(access(keep, F_OK), 0);
	assert_render_has(w, "Deleted directory \"tree\" and 5 entries");
}

static void test_delete_path_refuses_workspace_root(void **state)
{
	struct ws *w = *state;
	ws_mkdir(w, "a");
	ws_write(w, "keep.txt", "");
	static const char *const roots[] = {
		"{\"path\": \".\", \"recursive\": true}",
		"{\"path\": \"./\", \"recursive\": true}",
		"{\"path\": \"a/..\", \"recursive\": true}",
	};
	for (size_t i = 0; i < 3; i++) {
		int rc = ws_call(w, "delete_path", roots[i]);
		assert_int_not_equal(rc, 0);
		assert_render_has(w, "workspace root");
	}
	int rc = ws_call(w, "delete_path", "{\"path\": \"a/.\", \"recursive\": true}");
	assert_error(w, rc, "invalid_path");
	assert_true(ws_exists(w, "keep.txt"));
	assert_true(ws_exists(w, "a"));
}

static void test_delete_path_missing_lists_nearby(void **state)
{
	struct ws *w = *state;
	ws_mkdir(w, "build");
	int rc = ws_call(w, "delete_path", "{\"path\": \"biuld\"}");
	assert_error(w, rc, "not_found");
	assert_string_equal(json_string_value(
	                            json_array_get(json_object_get(w->out.canonical, "nearby"), 0)),
	                    "build/");
}

static void test_delete_path_refuses_escape(void **state)
{
	struct ws *w = *state;
	char keep[160];
	snprintf(keep, sizeof keep, "%s/x", w->outside);
	FILE *f = fopen(keep, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(symlink(w->outside, ws_path(w, "out")), 0);
	int rc = ws_call(w, "delete_path", "{\"path\": \"out/x\"}");
	assert_error(w, rc, "outside_workspace");
	char rel[160];
	snprintf(rel, sizeof rel, "{\"path\": \"../%s/x\"}", strrchr(w->outside, '/') + 1);
	rc = ws_call(w, "delete_path", rel);
	assert_error(w, rc, "outside_workspace");
	assert_int_equal(access(keep, F_OK), 0);
}

/* ---- move_path ---------------------------------------------------------- */

static void test_move_path_renames(void **state)
{
	struct ws *w = *state;
	ws_write(w, "old.md", "text");
	ws_mkdir(w, "archive");
	int rc = ws_call(w, "move_path",
	                 "{\"source\": \"old.md\", \"destination\": \"archive/new.md\"}");
	assert_ok(w, rc);
	assert_false(ws_exists(w, "old.md"));
	char *got = ws_read(w, "archive/new.md");
	assert_string_equal(got, "text");
	free(got);
	assert_false(out_true(w, "replaced"));
}

static void test_move_path_refuses_overwrite_unless_asked(void **state)
{
	struct ws *w = *state;
	ws_write(w, "a", "A");
	ws_write(w, "b", "B");
	int rc = ws_call(w, "move_path", "{\"source\": \"a\", \"destination\": \"b\"}");
	assert_error(w, rc, "exists");
	assert_render_has(w, "overwrite true");
	char *got = ws_read(w, "b");
	assert_string_equal(got, "B");
	free(got);
	assert_true(ws_exists(w, "a"));
	rc = ws_call(w, "move_path",
	             "{\"source\": \"a\", \"destination\": \"b\", \"overwrite\": true}");
	assert_ok(w, rc);
	assert_true(out_true(w, "replaced"));
	got = ws_read(w, "b");
	assert_string_equal(got, "A");
	free(got);
	assert_false(ws_exists(w, "a"));
}

static void test_move_path_missing_source_and_dest_dir(void **state)
{
	struct ws *w = *state;
	ws_write(w, "report.txt", "");
	int rc =
	        ws_call(w, "move_path", "{\"source\": \"reprot.txt\", \"destination\": \"r.txt\"}");
	assert_error(w, rc, "not_found");
	assert_render_has(w, "report.txt");
	rc = ws_call(w, "move_path",
	             "{\"source\": \"report.txt\", \"destination\": \"no/such/r.txt\"}");
	assert_error(w, rc, "not_found");
	assert_render_has(w, "make_dir");
	assert_true(ws_exists(w, "report.txt"));
}

static void test_move_path_refuses_root_and_escape(void **state)
{
	struct ws *w = *state;
	ws_write(w, "f", "");
	int rc = ws_call(w, "move_path", "{\"source\": \".\", \"destination\": \"x\"}");
	assert_error(w, rc, "workspace_root");
	rc = ws_call(w, "move_path", "{\"source\": \"f\", \"destination\": \"../f\"}");
	assert_error(w, rc, "outside_workspace");
	assert_int_equal(symlink(w->outside, ws_path(w, "out")), 0);
	rc = ws_call(w, "move_path", "{\"source\": \"f\", \"destination\": \"out/f\"}");
	assert_error(w, rc, "outside_workspace");
	assert_true(ws_exists(w, "f"));
}

static void test_move_path_refuses_dir_into_itself(void **state)
{
	struct ws *w = *state;
	ws_mkdir(w, "d");
	int rc = ws_call(w, "move_path", "{\"source\": \"d\", \"destination\": \"d/inner\"}");
	assert_error(w, rc, "invalid_move");
	assert_true(ws_exists(w, "d"));
}

static void test_move_path_refuses_replacing_nonempty_dir(void **state)
{
	struct ws *w = *state;
	ws_mkdir(w, "src");
	ws_mkdir(w, "dst");
	ws_mkdir(w, "dst/src");
	ws_write(w, "dst/src/keep", "");
	int rc = ws_call(w, "move_path",
	                 "{\"source\": \"src\", \"destination\": \"dst\", \"overwrite\": true}");
	assert_error(w, rc, "not_empty");
	assert_true(ws_exists(w, "dst/src/keep"));
	assert_true(ws_exists(w, "src"));
}

/* As mv does: an existing directory, or a destination ending in "/",
 * receives the source under its own name. */
static void test_move_path_into_a_directory(void **state)
{
	struct ws *w = *state;
	ws_write(w, "a.txt", "A");
	ws_write(w, "b.txt", "B");
	ws_mkdir(w, "archive");
	int rc = ws_call(w, "move_path", "{\"source\": \"a.txt\", \"destination\": \"archive\"}");
	assert_ok(w, rc);
	assert_string_equal(out_str(w, "destination"), "archive/a.txt");
	assert_render_has(w, "Moved file \"a.txt\" to \"archive/a.txt\".");
	rc = ws_call(w, "move_path", "{\"source\": \"b.txt\", \"destination\": \"archive/\"}");
	assert_ok(w, rc);
	assert_true(ws_exists(w, "archive/b.txt"));
	ws_write(w, "c.txt", "C");
	rc = ws_call(w, "move_path", "{\"source\": \"c.txt\", \"destination\": \"nodir/\"}");
	assert_error(w, rc, "not_found");
	assert_render_has(w, "must be an existing directory");
	rc = ws_call(w, "move_path",
	             "{\"source\": \"c.txt\", \"destination\": \"archive/a.txt/\"}");
	assert_error(w, rc, "not_directory");
	assert_true(ws_exists(w, "c.txt"));
}

/* rename(2) of a file onto itself, or onto a hard link of it, does
 * nothing and succeeds: refused rather than reported as a move. */
static void test_move_path_refuses_onto_itself(void **state)
{
	struct ws *w = *state;
	ws_mkdir(w, "d");
	ws_write(w, "d/f", "x");
	int rc = ws_call(w, "move_path", "{\"source\": \"d/f\", \"destination\": \"d/../d/f\"}");
	assert_error(w, rc, "invalid_move");
	assert_render_has(w, "are the same file");
	assert_int_equal(link(ws_path(w, "d/f"), ws_path(w, "g")), 0);
	rc = ws_call(w, "move_path",
	             "{\"source\": \"g\", \"destination\": \"d/f\", \"overwrite\": true}");
	assert_error(w, rc, "invalid_move");
	assert_true(ws_exists(w, "g"));
}

/* Names from disk may be any bytes; quoting one in the refusal made the
 * message invalid UTF-8, jansson refused it, and the model was told the
 * tool ran out of memory. */
static void test_delete_path_not_empty_with_non_utf8_name(void **state)
{
	struct ws *w = *state;
	ws_mkdir(w, "d");
	ws_write(w, "d/caf\xe9", "x");
	int rc = ws_call(w, "delete_path", "{\"path\": \"d\"}");
	assert_error(w, rc, "not_empty");
	assert_render_has(w, "caf\xef\xbf\xbd");
	assert_int_equal(out_int(w, "entries"), 1);
	assert_true(ws_exists(w, "d/caf\xe9"));
}

static void test_move_path_escape_gets_no_make_dir_hint(void **state)
{
	struct ws *w = *state;
	ws_write(w, "a.txt", "x");
	assert_int_equal(symlink(w->outside, ws_path(w, "out")), 0);
	int rc = ws_call(w, "move_path", "{\"source\": \"a.txt\", \"destination\": \"out/a.txt\"}");
	assert_error(w, rc, "outside_workspace");
	assert_null(strstr(w->out.render, "make_dir"));
}

/* The write profiles' seccomp filter refuses setting setuid/setgid, so
 * keeping them failed every write to such a file ("permission"); a plain
 * write() clears them too. */
static void test_write_file_clears_setuid_and_keeps_permissions(void **state)
{
	struct ws *w = *state;
	ws_write(w, "tool.sh", "old\n");
	assert_int_equal(chmod(ws_path(w, "tool.sh"), 06750), 0);
	int rc = ws_call(w, "write_file", "{\"path\": \"tool.sh\", \"content\": \"new\\n\"}");
	assert_ok(w, rc);
	assert_int_equal(mode_of(w, "tool.sh"), 0750);
	assert_render_has(w, "setuid/setgid bits were cleared");
	rc = ws_call(w, "write_file", "{\"path\": \"tool.sh\", \"content\": \"again\\n\"}");
	assert_ok(w, rc);
	assert_null(strstr(w->out.render, "setuid"));
}

static void test_edit_file_clears_setuid_and_keeps_permissions(void **state)
{
	struct ws *w = *state;
	ws_write(w, "tool.sh", "echo old\n");
	assert_int_equal(chmod(ws_path(w, "tool.sh"), 04755), 0);
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"tool.sh\", \"old_text\": \"old\", \"new_text\": \"new\"}");
	assert_ok(w, rc);
	assert_int_equal(mode_of(w, "tool.sh"), 0755);
	assert_render_has(w, "setuid/setgid bits were cleared");
}

/* Trailing slashes were dropped, so "notes/" created or replaced a file
 * named notes; open(2) refuses a file path that ends in "/". */
static void test_write_file_refuses_trailing_slash(void **state)
{
	struct ws *w = *state;
	int rc = ws_call(w, "write_file", "{\"path\": \"notes/\", \"content\": \"x\"}");
	assert_error(w, rc, "is_directory");
	assert_false(ws_exists(w, "notes"));
	ws_write(w, "a.txt", "old");
	rc = ws_call(w, "edit_file",
	             "{\"path\": \"a.txt/\", \"old_text\": \"old\", \"new_text\": \"new\"}");
	assert_error(w, rc, "is_directory");
	char *got = ws_read(w, "a.txt");
	assert_string_equal(got, "old");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_write_file_creates_with_0644_despite_umask),
		T(test_write_file_replaces_and_keeps_mode),
		T(test_write_file_missing_dir_needs_create_dirs),
		T(test_write_file_refuses_symlink_and_directory),
		T(test_write_file_refuses_escapes),
		T(test_write_file_refuses_root_and_dot_names),
		T(test_write_file_refuses_content_over_cap),
		T(test_edit_file_replaces_the_one_occurrence),
		T(test_edit_file_multiline_and_delete),
		T(test_edit_file_zero_occurrences_suggests_read),
		T(test_edit_file_two_occurrences_refused),
		T(test_edit_file_counts_overlapping_occurrences),
		T(test_edit_file_refuses_no_change),
		T(test_edit_file_missing_and_binary),
		T(test_edit_file_refuses_symlink_out),
		T(test_make_dir_creates_and_refuses_existing),
		T(test_make_dir_parents),
		T(test_a_file_in_the_path_is_named_as_the_reason),
		T(test_make_dir_refuses_through_symlink_out),
		T(test_make_dir_refuses_existing_file),
		T(test_delete_path_file_and_symlink_itself),
		T(test_delete_path_refuses_nonempty_dir_without_recursive),
		T(test_delete_path_recursive_never_follows_symlinks),
		T(test_delete_path_refuses_workspace_root),
		T(test_delete_path_missing_lists_nearby),
		T(test_delete_path_refuses_escape),
		T(test_move_path_renames),
		T(test_move_path_refuses_overwrite_unless_asked),
		T(test_move_path_missing_source_and_dest_dir),
		T(test_move_path_refuses_root_and_escape),
		T(test_move_path_refuses_dir_into_itself),
		T(test_move_path_refuses_replacing_nonempty_dir),
		T(test_move_path_into_a_directory),
		T(test_move_path_refuses_onto_itself),
		T(test_delete_path_not_empty_with_non_utf8_name),
		T(test_move_path_escape_gets_no_make_dir_hint),
		T(test_write_file_clears_setuid_and_keeps_permissions),
		T(test_edit_file_clears_setuid_and_keeps_permissions),
		T(test_write_file_refuses_trailing_slash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
