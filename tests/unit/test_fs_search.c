/* test_fs_search.c — search_text as an agent uses it: globs over the path
 * relative to the search root (the one matcher: **, {a,b}, names at any
 * depth), and the hint when a glob matches no file. Each test gets a
 * fresh temp workspace holding a small project. */
#include "fs_test.h"

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
	json_array_foreach(json_object_get(w->out.canonical, "matches"), i, m)
		o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", o ? " " : "",
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
	assert_string_equal(match_paths(w), "tests/test_core.py textstats/core.py textstats/sub/util.py");
	search(w, "{\"pattern\": \"needle\", \"glob\": \"*.py\"}");
	assert_string_equal(match_paths(w), "tests/test_core.py textstats/core.py textstats/sub/util.py");
	search(w, "{\"pattern\": \"needle\", \"glob\": \"*.{py,js}\"}");
	assert_string_equal(match_paths(w),
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
	search(w, "{\"pattern\": \"needle\", \"path\": \"textstats\", \"glob\": \"textstats/*.py\"}");
	assert_string_equal(match_paths(w), "");
}

static void test_search_glob_matching_nothing_says_so(void **state)
{
	struct ws *w = *state;
	search(w, "{\"pattern\": \"needle\", \"glob\": \"*.pyx\"}");
	assert_int_equal(out_int(w, "files_searched"), 0);
	assert_string_equal(out_str(w, "hint"), "no file matches the glob");
	assert_render_has(w, "[no file under \".\" matches the glob \"*.pyx\" (5 files looked at). A glob "
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_search_glob_forms),
		T(test_search_glob_relative_to_path),
		T(test_search_glob_matching_nothing_says_so),
		T(test_search_refuses_invalid_glob),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
