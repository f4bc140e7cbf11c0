/* test_fs_edit.c — edit_file beyond one replacement: replace_all, several
 * edits applied in order and all or nothing, the changed regions shown
 * numbered (and listed in "regions" as lines of the new file), and the
 * near miss of an old_text that is not there. Each test gets a fresh temp
 * workspace. */
#include "fs_test.h"

#define T(name) cmocka_unit_test_setup_teardown(name, ws_setup, ws_teardown)

/* Lines "l1\n" .. "l<n>\n". */
static void write_lines(struct ws *w, const char *rel, int n)
{
	FILE *f = fopen(ws_path(w, rel), "w");
	assert_non_null(f);
	for (int i = 1; i <= n; i++)
		fprintf(f, "l%d\n", i);
	fclose(f);
}

static void assert_file(struct ws *w, const char *rel, const char *want)
{
	char *got = ws_read(w, rel);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void assert_region(struct ws *w, size_t i, json_int_t start, json_int_t end)
{
	json_t *r = json_array_get(json_object_get(w->out.canonical, "regions"), i);
	if (json_integer_value(json_object_get(r, "start_line")) != start ||
	    json_integer_value(json_object_get(r, "end_line")) != end)
		fail_msg("region %zu is not %lld-%lld: %s", i, (long long)start, (long long)end,
		         w->out.render);
}

static void test_edit_shows_changed_lines_with_context(void **state)
{
	struct ws *w = *state;
	write_lines(w, "f.txt", 10);
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"f.txt\", \"old_text\": \"l5\\n\", "
	                 "\"new_text\": \"five\\nFIVE\\n\"}");
	assert_ok(w, rc);
	assert_string_equal(
	        w->out.render,
	        "Edited \"f.txt\" at line 5: replaced 1 line with 2; the file now has 38 bytes.\n"
	        "     3\tl3\n     4\tl4\n     5\tfive\n     6\tFIVE\n     7\tl6\n     8\tl7\n");
	assert_region(w, 0, 5, 6);
}

static void test_edit_replace_all_changes_every_occurrence(void **state)
{
	struct ws *w = *state;
	ws_write(w, "f.py", "x = 1\nprint(x)\n\n\n\n\n\nreturn x\n");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"f.py\", \"old_text\": \"x\", \"new_text\": \"count\", "
	                 "\"replace_all\": true}");
	assert_ok(w, rc);
	assert_file(w, "f.py", "count = 1\nprint(count)\n\n\n\n\n\nreturn count\n");
	assert_int_equal(out_int(w, "replacements"), 3);
	assert_region(w, 0, 1, 2);
	assert_region(w, 1, 8, 8);
	assert_render_has(w, "1 edit, 3 replacements");
	assert_render_has(w, "     2\tprint(count)\n     3\t\n     4\t\n   ...\n     6\t\n");
}

static void test_edit_replace_all_without_occurrence_is_no_match(void **state)
{
	struct ws *w = *state;
	ws_write(w, "f.txt", "alpha\n");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"f.txt\", \"old_text\": \"zeta\", \"new_text\": \"b\", "
	                 "\"replace_all\": true}");
	assert_error(w, rc, "no_match");
}

static void test_edit_ambiguous_points_to_replace_all(void **state)
{
	struct ws *w = *state;
	ws_write(w, "f.txt", "a\na\n");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"f.txt\", \"old_text\": \"a\", \"new_text\": \"b\"}");
	assert_error(w, rc, "ambiguous");
	assert_render_has(w, "replace_all");
}

/* The second edit sees what the first left; regions are lines of the
 * final file (the first edit added two lines before the second's). */
static void test_edits_apply_in_order(void **state)
{
	struct ws *w = *state;
	write_lines(w, "f.txt", 20);
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"f.txt\", \"edits\": ["
	                 "{\"old_text\": \"l5\\n\", \"new_text\": \"a\\nb\\nc\\n\"},"
	                 "{\"old_text\": \"l15\\n\", \"new_text\": \"z\\n\"},"
	                 "{\"old_text\": \"b\\nc\", \"new_text\": \"B\\nC\"}]}");
	assert_ok(w, rc);
	char *got = ws_read(w, "f.txt");
	assert_non_null(strstr(got, "l4\na\nB\nC\nl6\n"));
	assert_non_null(strstr(got, "l14\nz\nl16\n"));
	free(got);
	assert_int_equal(out_int(w, "replacements"), 3);
	assert_region(w, 0, 5, 7);
	assert_region(w, 1, 17, 17);
	json_t *edits = json_object_get(w->out.canonical, "edits");
	assert_int_equal(json_array_size(edits), 3);
	assert_render_has(w, "3 edits, 3 replacements");
	assert_render_has(w, "     5\ta\n     6\tB\n     7\tC\n");
	assert_render_has(w, "    17\tz\n");
}

static void test_edits_all_or_nothing(void **state)
{
	struct ws *w = *state;
	write_lines(w, "f.txt", 3);
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"f.txt\", \"edits\": ["
	                 "{\"old_text\": \"l1\", \"new_text\": \"one\"},"
	                 "{\"old_text\": \"l9\", \"new_text\": \"nine\"}]}");
	assert_error(w, rc, "no_match");
	assert_int_equal(out_int(w, "edit"), 2);
	assert_render_has(w, "edit 2 of 2: old_text was not found");
	assert_render_has(w, "Nothing was written");
	assert_file(w, "f.txt", "l1\nl2\nl3\n");
	assert_int_equal(temp_files_in(w, "."), 0);
}

static void test_edit_refuses_old_text_and_edits_together(void **state)
{
	struct ws *w = *state;
	ws_write(w, "f.txt", "a\n");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"f.txt\", \"old_text\": \"a\", \"new_text\": \"b\", "
	                 "\"edits\": [{\"old_text\": \"a\", \"new_text\": \"c\"}]}");
	assert_error(w, rc, "invalid_arguments");
	rc = ws_call(w, "edit_file",
	             "{\"path\": \"f.txt\", \"edits\": [{\"old_text\": \"a\", "
	             "\"new_text\": \"a\"}]}");
	assert_error(w, rc, "no_change");
	assert_render_has(w, "edit 1 of 1");
	/* Neither: the message names both ways to give the edits. */
	rc = ws_call(w, "edit_file", "{\"path\": \"f.txt\", \"old_text\": \"\"}");
	assert_error(w, rc, "invalid_arguments");
	assert_render_has(w,
	                  "old_text must be a non-empty string. old_text (non-empty) and "
	                  "new_text are required strings (or edits, a list of");
	/* The one that is missing is named first. */
	rc = ws_call(w, "edit_file", "{\"path\": \"f.txt\", \"old_text\": \"a\"}");
	assert_error(w, rc, "invalid_arguments");
	assert_render_starts(w, "new_text is missing (\"\" deletes old_text). ");
	rc = ws_call(w, "edit_file", "{\"path\": \"f.txt\", \"new_text\": \"a\"}");
	assert_render_starts(w, "old_text is missing. ");
	rc = ws_call(w, "edit_file", "{\"path\": \"f.txt\", \"edits\": [{\"old_text\": \"a\"}]}");
	assert_error(w, rc, "invalid_arguments");
	assert_render_has(w, "edit 1 of 1: new_text is missing");
}

/* Copied with the indentation wrong: the lines that hold the text are
 * shown with their numbers, and the file is unchanged. */
static void test_edit_near_miss_in_whitespace(void **state)
{
	struct ws *w = *state;
	ws_write(w, "m.py", "class A:\n    def run(self):\n        return 1\n\nx = A()\n");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"m.py\", \"old_text\": \"def run(self):\\n    return 1\", "
	                 "\"new_text\": \"def run(self):\\n    return 2\"}");
	assert_error(w, rc, "no_match");
	assert_render_has(w, "Lines 2-3 hold the same text with different whitespace");
	assert_render_has(w, "     2\t    def run(self):\n     3\t        return 1\n");
	json_t *nm = json_object_get(w->out.canonical, "near_miss");
	assert_string_equal(json_string_value(json_object_get(nm, "kind")), "whitespace");
	assert_int_equal(json_integer_value(json_object_get(nm, "start_line")), 2);
	assert_int_equal(json_integer_value(json_object_get(nm, "end_line")), 3);
}

/* LF line endings in the file, CRLF in old_text. */
static void test_edit_near_miss_line_endings(void **state)
{
	struct ws *w = *state;
	ws_write(w, "w.txt", "one\ntwo\nthree\n");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"w.txt\", \"old_text\": \"one\\r\\ntwo\", "
	                 "\"new_text\": \"1\\n2\"}");
	assert_error(w, rc, "no_match");
	assert_render_has(w, "Lines 1-2 hold the same text with different whitespace");
}

/* CRLF line endings in the file, LF in old_text and new_text, as a model
 * copies them from read_file: they are taken as CRLF, and said so. */
static void test_edit_crlf_file_takes_lf_as_crlf(void **state)
{
	struct ws *w = *state;
	ws_write(w, "w.txt", "one\r\ntwo\r\nthree\r\n");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"w.txt\", \"old_text\": \"one\\ntwo\", "
	                 "\"new_text\": \"1\\n2\\n2b\"}");
	assert_ok(w, rc);
	assert_file(w, "w.txt", "1\r\n2\r\n2b\r\nthree\r\n");
	assert_string_equal(json_string_value(json_object_get(w->out.canonical, "line_endings")),
	                    "crlf");
	assert_render_has(w, "those of old_text and new_text were taken as CRLF");
	/* One line of old_text, new lines in new_text: CRLF too. */
	rc = ws_call(w, "edit_file",
	             "{\"path\": \"w.txt\", \"old_text\": \"three\", "
	             "\"new_text\": \"three\\nfour\"}");
	assert_ok(w, rc);
	assert_file(w, "w.txt", "1\r\n2\r\n2b\r\nthree\r\nfour\r\n");
}

/* old_text copied from read_file with its number column: said so, with
 * where the text is without it; nothing is written. */
static void test_edit_line_numbers_in_old_text_are_named(void **state)
{
	struct ws *w = *state;
	ws_write(w, "m.c", "int main(void)\n{\n\treturn 0;\n}\n");
	int rc =
	        ws_call(w, "edit_file",
	                "{\"path\": \"m.c\", \"old_text\": \"     2\\t{\\n     3\\t\\treturn 0;\", "
	                "\"new_text\": \"{\\n\\treturn 1;\"}");
	assert_error(w, rc, "no_match");
	assert_render_has(w,
	                  "each of its lines starts with a line number and a tab, as "
	                  "read_file shows them (\"     2\" and a tab)");
	assert_render_has(w, "without them, old_text is at line 2.");
	assert_true(json_is_true(json_object_get(w->out.canonical, "line_numbers")));
	assert_file(w, "m.c", "int main(void)\n{\n\treturn 0;\n}\n");
	/* One line without a number: the usual near miss. */
	rc = ws_call(w, "edit_file",
	             "{\"path\": \"m.c\", \"old_text\": \"     2\\t{\\n\\treturn 9;\", "
	             "\"new_text\": \"x\"}");
	assert_error(w, rc, "no_match");
	assert_null(json_object_get(w->out.canonical, "line_numbers"));
}

/* An LF file is edited as given: no CR is added. */
static void test_edit_lf_file_keeps_lf(void **state)
{
	struct ws *w = *state;
	ws_write(w, "w.txt", "one\ntwo\n");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"w.txt\", \"old_text\": \"one\\ntwo\", "
	                 "\"new_text\": \"1\\n2\"}");
	assert_ok(w, rc);
	assert_file(w, "w.txt", "1\n2\n");
	assert_null(json_object_get(w->out.canonical, "line_endings"));
}

static void test_edit_near_miss_similar_line(void **state)
{
	struct ws *w = *state;
	ws_write(w, "c.c", "int a;\nint retries = 3;\nint b;\n");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"c.c\", \"old_text\": \"int retires = 3;\", "
	                 "\"new_text\": \"int retries = 5;\"}");
	assert_error(w, rc, "no_match");
	assert_render_has(
	        w,
	        "Line 2 is the closest (2 characters differ from old_text's first line):\n"
	        "     2\tint retries = 3;\n");
	json_t *nm = json_object_get(w->out.canonical, "near_miss");
	assert_string_equal(json_string_value(json_object_get(nm, "kind")), "similar");
}

static void test_edit_no_near_miss_keeps_plain_advice(void **state)
{
	struct ws *w = *state;
	ws_write(w, "c.c", "int a;\n");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"c.c\", \"old_text\": \"completely different text\", "
	                 "\"new_text\": \"x\"}");
	assert_error(w, rc, "no_match");
	assert_null(json_object_get(w->out.canonical, "near_miss"));
	assert_render_has(w, "Call read_file on it and copy the exact text");
}

/* Many replacements: the answer stays small and says what it left out. */
static void test_edit_replace_all_many_stays_bounded(void **state)
{
	struct ws *w = *state;
	write_lines(w, "big.txt", 30000);
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"big.txt\", \"old_text\": \"l\", \"new_text\": \"L\", "
	                 "\"replace_all\": true}");
	assert_ok(w, rc);
	assert_int_equal(out_int(w, "replacements"), 30000);
	assert_true(strlen(w->out.render) < 10000);
	char *got = ws_read(w, "big.txt");
	assert_null(strchr(got, 'l'));
	free(got);
}

/* A file in another encoding: an edit elsewhere keeps its bytes that are
 * not UTF-8 byte for byte and says so; an old_text holding the U+FFFD
 * that read_file showed for them is told why it cannot match, and what
 * to do, and nothing is written. */
static void test_edit_not_utf8_keeps_bytes(void **state)
{
	struct ws *w = *state;
	ws_write(w, "l1.txt", "caf\xe9 au lait\nsecond line\nna\xefve \xa9\n");
	int rc = ws_call(w, "edit_file",
	                 "{\"path\": \"l1.txt\", \"old_text\": \"second line\", "
	                 "\"new_text\": \"2nd line\"}");
	assert_ok(w, rc);
	assert_file(w, "l1.txt", "caf\xe9 au lait\n2nd line\nna\xefve \xa9\n");
	assert_render_has(w,
	                  "Its 3 bytes that are not valid UTF-8 (shown as \xef\xbf\xbd) were "
	                  "kept byte for byte.");
	json_t *u = json_object_get(w->out.canonical, "invalid_utf8");
	assert_int_equal(json_integer_value(json_object_get(u, "bytes")), 3);
	/* on the same line as such a byte, around it */
	rc = ws_call(w, "edit_file",
	             "{\"path\": \"l1.txt\", \"old_text\": \"au lait\", \"new_text\": \"noir\"}");
	assert_ok(w, rc);
	assert_file(w, "l1.txt", "caf\xe9 noir\n2nd line\nna\xefve \xa9\n");
	rc = ws_call(w, "edit_file",
	             "{\"path\": \"l1.txt\", \"old_text\": \"caf\\ufffd noir\", "
	             "\"new_text\": \"coffee\"}");
	assert_error(w, rc, "no_match");
	assert_render_has(w,
	                  "old_text holds U+FFFD (\xef\xbf\xbd), which read_file shows in place "
	                  "of bytes that are not valid UTF-8; the file holds those bytes");
	assert_render_has(w, "3 bytes of \"l1.txt\" (lines 1, 3) are not valid UTF-8");
	assert_render_has(w, "iconv");
	assert_null(strstr(w->out.render, "Copy old_text exactly"));
	assert_non_null(json_object_get(w->out.canonical, "invalid_utf8"));
	assert_file(w, "l1.txt", "caf\xe9 noir\n2nd line\nna\xefve \xa9\n");
	/* a U+FFFD in a UTF-8 file is a character like any other */
	ws_write(w, "u.txt", "a \xef\xbf\xbd b\n");
	rc = ws_call(w, "edit_file",
	             "{\"path\": \"u.txt\", \"old_text\": \"\\ufffd\", \"new_text\": \"?\"}");
	assert_ok(w, rc);
	assert_file(w, "u.txt", "a ? b\n");
	assert_null(strstr(w->out.render, "UTF-8"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_edit_shows_changed_lines_with_context),
		T(test_edit_replace_all_changes_every_occurrence),
		T(test_edit_replace_all_without_occurrence_is_no_match),
		T(test_edit_ambiguous_points_to_replace_all),
		T(test_edits_apply_in_order),
		T(test_edits_all_or_nothing),
		T(test_edit_refuses_old_text_and_edits_together),
		T(test_edit_near_miss_in_whitespace),
		T(test_edit_near_miss_line_endings),
		T(test_edit_crlf_file_takes_lf_as_crlf),
		T(test_edit_lf_file_keeps_lf),
		T(test_edit_line_numbers_in_old_text_are_named),
		T(test_edit_near_miss_similar_line),
		T(test_edit_no_near_miss_keeps_plain_advice),
		T(test_edit_replace_all_many_stays_bounded),
		T(test_edit_not_utf8_keeps_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
