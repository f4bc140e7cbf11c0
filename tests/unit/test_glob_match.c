/* test_glob_match.c — the one glob matcher's alternatives ({a,b}) and the
 * path rule the tools share (glob_match_path: a pattern without '/' is a
 * file name at any depth, one with '/' a path from the search root). The
 * base syntax (*, **, ?, classes) is covered with the gate's rules in
 * test_gate.c. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "glob_match.h"

struct glob_case {
	const char *pat, *text;
	bool want;
};

static void run_cases(const struct glob_case *c, size_t n, bool path)
{
	for (size_t i = 0; i < n; i++) {
		bool got = path ? glob_match_path(c[i].pat, c[i].text, strlen(c[i].text)) :
		                  glob_match(c[i].pat, c[i].text, strlen(c[i].text));
		if (got != c[i].want)
			fail_msg("%s \"%s\" vs \"%s\": got %d, want %d",
			         path ? "path glob" : "glob", c[i].pat, c[i].text, got, c[i].want);
	}
}

static void test_glob_braces_pick_one_alternative(void **state)
{
	(void)state;
	static const struct glob_case cases[] = {
		{ "*.{py,js}", "a.py", true },
		{ "*.{py,js}", "a.js", true },
		{ "*.{py,js}", "a.ts", false },
		{ "*.{py,js}", "a.pyjs", false },
		{ "*.{py,js}", "a.", false },
		{ "{src,test}/**", "src/a/b.c", true },
		{ "{src,test}/**", "test", true },
		{ "{src,test}/**", "docs/x", false },
		{ "{,.}x", "x", true },
		{ "{,.}x", ".x", true },
		{ "{,.}x", "..x", false },
		{ "a{b,c{d,e}}f", "acef", true },
		{ "a{b,c{d,e}}f", "abf", true },
		{ "a{b,c{d,e}}f", "acf", false },
		{ "{a*,*b}", "xb", true },
		{ "{a*,*b}", "ax", true },
		{ "{a*,*b}", "xx", false },
		{ "{**/,}*.c", "x.c", true },
		{ "{**/,}*.c", "a/b/x.c", true },
		{ "**/{a,b}/*.c", "b/x.c", true },
		{ "**/{a,b}/*.c", "q/a/x.c", true },
		{ "**/{a,b}/*.c", "q/c/x.c", false },
		{ "x,y}", "x,y}", true }, /* outside a group: plain */
		{ "\\{a,b}", "{a,b}", true },
		{ "\\{a,b}", "a", false },
		{ "[{,]", ",", true }, /* inside a class: plain */
		{ "{a,}", "", true },
		{ "{a,}", "a", true },
	};
	run_cases(cases, sizeof cases / sizeof cases[0], false);
}

static void test_glob_check_refuses_unclosed_and_deep_braces(void **state)
{
	(void)state;
	struct tc_error err = { 0 };
	assert_int_equal(glob_check("*.{py,js", &err), -1);
	assert_non_null(strstr(err.msg, "'{'"));
	assert_false(glob_match("*.{py,js", "a.py", 4));
	assert_int_equal(glob_check("{{{{{{{{a}}}}}}}}", &err), 0);
	assert_int_equal(glob_check("{{{{{{{{{a}}}}}}}}}", &err), -1);
	assert_int_equal(glob_check("\\{", &err), 0);
}

/* Many alternatives on hostile text still take linear time (the text is
 * long enough that a backtracking matcher would not finish). */
static void test_glob_braces_stay_linear(void **state)
{
	(void)state;
	static char text[8193];
	memset(text, 'a', 8192);
	assert_false(glob_match("{*a,*a*}{*a,*a*}{*a,*a*}{*a,*a*}{*a,*a*}{*a,*a*}b", text, 8192));
	char pat[GLOB_MAX + 1];
	size_t o = 0;
	pat[o++] = '{';
	while (o + 3 < GLOB_MAX) { /* "{,,,,...}": the most tokens a pattern makes */
		pat[o++] = ',';
	}
	pat[o++] = '}';
	pat[o] = '\0';
	struct tc_error err = { 0 };
	assert_int_equal(glob_check(pat, &err), 0);
	assert_true(glob_match(pat, "", 0));
	assert_false(glob_match(pat, "a", 1));
}

static void test_glob_path_name_or_whole_path(void **state)
{
	(void)state;
	static const struct glob_case cases[] = {
		{ "*.py", "a.py", true },
		{ "*.py", "pkg/sub/a.py", true }, /* no '/': the name, at any depth */
		{ "*.{py,js}", "web/app.js", true },
		{ "test_*", "tests/test_x.py", true },
		{ "test_*", "test_dir/x.py", false }, /* the name is x.py */
		{ "textstats/*.py", "textstats/core.py", true },
		{ "textstats/*.py", "textstats/sub/core.py", false },
		{ "textstats/*.py", "other/textstats/core.py", false }, /* anchored at the root */
		{ "**/*.py", "a.py", true },
		{ "**/*.py", "x/y/a.py", true },
		{ "./src/*.c", "src/a.c", true },
		{ "/src/*.c", "src/a.c", true },
		{ "src/**", "src/a/b", true },
		{ "a\\/b", "a/b", true }, /* an escaped '/' still makes it a path */
	};
	run_cases(cases, sizeof cases / sizeof cases[0], true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glob_braces_pick_one_alternative),
		cmocka_unit_test(test_glob_check_refuses_unclosed_and_deep_braces),
		cmocka_unit_test(test_glob_braces_stay_linear),
		cmocka_unit_test(test_glob_path_name_or_whole_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
