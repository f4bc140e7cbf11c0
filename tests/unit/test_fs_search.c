/* test_fs_search.c — search_text as an agent uses it: globs over the path
 * relative to the search root (the one matcher: **, {a,b}, names at any
 * depth), the hint when a glob matches no file, context lines, the files
 * and count answers, literal patterns, binary files skipped, and the
 * answer's size cap. Each test gets a fresh temp workspace holding a small
 * project. */
#include "fs_test.h"

#include "utf8.h"

#define T(name) cmocka_unit_test_setup_teardown(name, project_setup, ws_teardown)

static int project_setup(void **state)
{
	if (ws_setup(state))
		return -1;
	struct ws *w = *state;
	ws_mkdir(w, "textstats");
	ws_mkdir(w, "textstats/sub");
	ws_mkdir(w, "web");
	ws_mkdir(w, "tests");
	ws_write(w, "textstats/core.py", "def count(): return 1  # needle\n");
	ws_write(w, "textstats/sub/util.py", "needle = 2\n");
	ws_write(w, "web/app.js", "const needle = 3;\n");
	ws_write(w, "tests/test_core.py", "assert needle\n");
	ws_write(w, "README.md", "needle in the docs\n");
	return 0;
}

/* The paths of the matches, in order, joined by spaces. */
static const char *match_paths(struct ws *w)
{
	static char buf[512];
	size_t i, o = 0;
	json_t *m;
	buf[0] = '\0';
	json_array_foreach(json_object_get(w->out.canonical, "matches"), i, m) o +=
	        (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", o ? " " : "",
	                         json_string_value(json_object_get(m, "path")));
	return buf;
}

static void search(struct ws *w, const char *args)
{
	int rc = ws_call(w, "search_text", args);
	assert_ok(w, rc);
}

static void test_search_glob_forms(void **state)
{
	struct ws *w = *state;
	search(w, "{\"pattern\": \"needle\", \"glob\": \"**/*.py\"}");
	assert_string_equal(match_paths(w),
	                    "tests/test_core.py textstats/core.py textstats/sub/util.py");
	search(w, "{\"pattern\": \"needle\", \"glob\": \"*.py\"}");
	assert_string_equal(match_paths(w),
	                    "tests/test_core.py textstats/core.py textstats/sub/util.py");
	search(w, "{\"pattern\": \"needle\", \"glob\": \"*.{py,js}\"}");
	assert_string_equal(
	        match_paths(w),
	        "tests/test_core.py textstats/core.py textstats/sub/util.py web/app.js");
	search(w, "{\"pattern\": \"needle\", \"glob\": \"textstats/*.py\"}");
	assert_string_equal(match_paths(w), "textstats/core.py");
	search(w, "{\"pattern\": \"needle\", \"glob\": \"{web,tests}/**\"}");
	assert_string_equal(match_paths(w), "tests/test_core.py web/app.js");
}

/* With a path, a glob with '/' is relative to that path. */
static void test_search_glob_relative_to_path(void **state)
{
	struct ws *w = *state;
	search(w, "{\"pattern\": \"needle\", \"path\": \"textstats\", \"glob\": \"sub/*.py\"}");
	assert_string_equal(match_paths(w), "textstats/sub/util.py");
	search(w,
	       "{\"pattern\": \"needle\", \"path\": \"textstats\", \"glob\": \"textstats/*.py\"}");
	assert_string_equal(match_paths(w), "");
}

static void test_search_glob_matching_nothing_says_so(void **state)
{
	struct ws *w = *state;
	search(w, "{\"pattern\": \"needle\", \"glob\": \"*.pyx\"}");
	assert_int_equal(out_int(w, "files_searched"), 0);
	assert_string_equal(out_str(w, "hint"), "no file matches the glob");
	assert_render_has(
	        w,
	        "[no file under \".\" matches the glob \"*.pyx\" (5 files looked at). A glob "
	        "without \"/\" matches file names at any depth");
	/* A glob that matched files without a matching line has no hint. */
	search(w, "{\"pattern\": \"absent\", \"glob\": \"*.py\"}");
	assert_null(json_object_get(w->out.canonical, "hint"));
}

static void test_search_refuses_invalid_glob(void **state)
{
	struct ws *w = *state;
	int rc = ws_call(w, "search_text", "{\"pattern\": \"needle\", \"glob\": \"*.{py\"}");
	assert_error(w, rc, "invalid_glob");
	assert_render_has(w, "not closed");
}

static void test_search_context_lines_as_grep_prints_them(void **state)
{
	struct ws *w = *state;
	ws_write(w, "c.txt", "l1\nl2\nfoo\nl4\nl5\nl6\nl7\nfoo\nfoo\nl10\n");
	search(w, "{\"pattern\": \"foo\", \"path\": \"c.txt\", \"context\": 1}");
	assert_string_equal(
	        w->out.render,
	        "c.txt-2- l2\nc.txt:3: foo\nc.txt-4- l4\n--\nc.txt-7- l7\n"
	        "c.txt:8: foo\nc.txt:9: foo\nc.txt-10- l10\n[3 matches shown, in 1 file searched]\n");
	json_t *m = json_array_get(json_object_get(w->out.canonical, "matches"), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(m, "before"), 0)),
	                    "l7");
	/* The after-context stops at the next match. */
	assert_int_equal(json_array_size(json_object_get(m, "after")), 0);
	search(w, "{\"pattern\": \"foo\", \"path\": \"c.txt\", \"before\": 2, \"after\": 0}");
	assert_render_has(w, "c.txt-1- l1\nc.txt-2- l2\nc.txt:3: foo\n--\nc.txt-6- l6\n");
}

static void test_search_files_and_count_answers(void **state)
{
	struct ws *w = *state;
	ws_write(w, "web/more.js", "needle\nneedle\n");
	search(w, "{\"pattern\": \"needle\", \"output\": \"files\", \"glob\": \"*.js\"}");
	assert_string_equal(w->out.render,
	                    "web/app.js\nweb/more.js\n[2 files with a match shown, of 2 "
	                    "searched]\n");
	json_t *files = json_object_get(w->out.canonical, "files");
	assert_string_equal(json_string_value(json_array_get(files, 1)), "web/more.js");
	search(w, "{\"pattern\": \"needle\", \"output\": \"count\", \"glob\": \"*.js\"}");
	assert_string_equal(w->out.render,
	                    "web/app.js:1\nweb/more.js:2\n[3 matching lines in 2 files, of 2 "
	                    "searched]\n");
	assert_int_equal(out_int(w, "matching_lines"), 3);
	int rc = ws_call(w, "search_text",
	                 "{\"pattern\": \"x\", \"output\": \"files\", \"context\": 2}");
	assert_error(w, rc, "invalid_arguments");
}

static void test_search_literal_takes_text_as_is(void **state)
{
	struct ws *w = *state;
	ws_write(w, "f.c", "call(a, b);\ncallxa, b);\n");
	search(w, "{\"pattern\": \"call(a\", \"literal\": true, \"path\": \"f.c\"}");
	assert_int_equal(out_int(w, "count"), 1);
	search(w, "{\"pattern\": \"call.a\", \"literal\": true, \"path\": \"f.c\"}");
	assert_int_equal(out_int(w, "count"), 0);
	int rc = ws_call(w, "search_text", "{\"pattern\": \"call(a\", \"path\": \"f.c\"}");
	assert_error(w, rc, "invalid_pattern");
	assert_render_has(w, "set literal true");
}

/* A regex that matched nothing and holds characters a regex does not read
 * as themselves: the answer names them and says literal. A plain word, a
 * "." (which matches itself too) or a literal search gets no such line. */
static void test_search_no_match_with_regex_syntax_says_literal(void **state)
{
	struct ws *w = *state;
	ws_write(w, "f.c", "x = a + b;\ny = f(x)*2;\n");
	search(w, "{\"pattern\": \"a + b\", \"path\": \"f.c\"}");
	assert_int_equal(out_int(w, "count"), 0);
	assert_render_has(w,
	                  "no line matches /a + b/ in \"f.c\" (1 file searched)\n"
	                  "[the pattern is a regular expression, in which + does not match "
	                  "itself: to search for the text as it is written, call again with "
	                  "literal true]\n");
	assert_non_null(strstr(out_str(w, "hint"), "literal true"));
	search(w, "{\"pattern\": \"f\\\\(x\\\\)*2\", \"output\": \"count\"}");
	assert_render_has(w, "in which * ( ) \\ do not match themselves");
	search(w, "{\"pattern\": \"a + b\", \"literal\": true, \"path\": \"f.c\"}");
	assert_int_equal(out_int(w, "count"), 1);
	static const char *const quiet[] = {
		"{\"pattern\": \"nothing\"}",
		"{\"pattern\": \"no.thing\"}",
		"{\"pattern\": \"no + thing\", \"literal\": true}",
	};
	for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++) {
		search(w, quiet[i]);
		assert_null(strstr(w->out.render, "literal true"));
		assert_null(json_object_get(w->out.canonical, "hint"));
	}
}

static void test_search_skips_binary_files(void **state)
{
	struct ws *w = *state;
	ws_write_n(w, "blob.bin", "needle\0\1\2", 9);
	search(w, "{\"pattern\": \"needle\", \"output\": \"files\"}");
	assert_null(strstr(w->out.render, "blob.bin"));
	assert_int_equal(json_integer_value(
	                         json_object_get(json_object_get(w->out.canonical, "skipped"),
	                                         "binary")),
	                 1);
	assert_render_has(w, "[skipped: 1 binary file, 0 larger than 10 MiB]");
}

/* The render budget ends the answer between matches, and the canonical
 * holds what the render shows. */
static void test_search_answer_fits_render_budget(void **state)
{
	struct ws *w = *state;
	FILE *f = fopen(ws_path(w, "many.txt"), "w");
	assert_non_null(f);
	for (int i = 0; i < 900; i++)
		fprintf(f, "needle number %d with some padding text to make the line longer\n", i);
	fclose(f);
	w->ctx.max_render = 20000;
	search(w, "{\"pattern\": \"needle\", \"path\": \"many.txt\", \"max_matches\": 1000}");
	assert_true(utf8_count(w->out.render, strlen(w->out.render)) <= 20000);
	json_int_t n = out_int(w, "count");
	assert_true(n > 100 && n < 900);
	assert_true(out_true(w, "truncated"));
	char last[96];
	snprintf(last, sizeof last, "many.txt:%lld: needle number %lld ", (long long)n,
	         (long long)n - 1);
	assert_render_has(w, last);
	assert_render_has(w, "[stopped at the answer's size cap; more matches were left out");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_search_glob_forms),
		T(test_search_glob_relative_to_path),
		T(test_search_glob_matching_nothing_says_so),
		T(test_search_refuses_invalid_glob),
		T(test_search_context_lines_as_grep_prints_them),
		T(test_search_files_and_count_answers),
		T(test_search_literal_takes_text_as_is),
		T(test_search_no_match_with_regex_syntax_says_literal),
		T(test_search_skips_binary_files),
		T(test_search_answer_fits_render_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
