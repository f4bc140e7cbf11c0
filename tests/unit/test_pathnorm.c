/* test_pathnorm.c — path arguments as a tool resolves them (lib/pathnorm):
 * lexical normalization as a table, resolution beneath a directory with
 * symbolic links that stay in, lead out, or loop. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pathnorm.h"

static void test_pathnorm_lexical_table(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		enum path_form form;
		const char *out;
	} rows[] = {
		{ "a/b", PATH_PLAIN, "a/b" },
		{ "./a//b/", PATH_PLAIN, "a/b" },
		{ "a/./b/.", PATH_PLAIN, "a/b" },
		{ ".", PATH_PLAIN, "." },
		{ "./", PATH_PLAIN, "." },
		{ "tmp/../src", PATH_DOTDOT, "src" },
		{ "a/b/../../c", PATH_DOTDOT, "c" },
		{ "a/..", PATH_DOTDOT, "." },
		{ "..", PATH_ESCAPES, NULL },
		{ "a/../../b", PATH_ESCAPES, NULL },
		{ "/etc/passwd", PATH_ABSOLUTE, NULL },
		{ "", PATH_INVALID, NULL },
		{ "...", PATH_PLAIN, "..." },
		{ "a/..b", PATH_PLAIN, "a/..b" },
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		char out[PATHNORM_MAX];
		enum path_form f = path_normalize(rows[i].in, strlen(rows[i].in), out, sizeof out);
		if (f != rows[i].form)
			fail_msg("%s: form %d, want %d", rows[i].in, f, rows[i].form);
		if (rows[i].out && strcmp(out, rows[i].out))
			fail_msg("%s: \"%s\", want \"%s\"", rows[i].in, out, rows[i].out);
	}
	char small[4];
	assert_int_equal(path_normalize("abcdef", 6, small, sizeof small), PATH_INVALID);
	assert_int_equal(path_normalize("a\0b", 3, small, sizeof small), PATH_INVALID);
}

static void test_pathnorm_within(void **state)
{
	(void)state;
	assert_true(path_within(".git/config", ".git"));
	assert_true(path_within(".git", ".git"));
	assert_false(path_within(".gitignore", ".git"));
	assert_true(path_within("anything", "."));
}

static void test_pathnorm_resolve_beneath(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_pathnorm.XXXXXX", cmd[256], out[PATHNORM_MAX];
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof cmd,
	         "cd %s && mkdir -p src/deep tmp && ln -s ../src tmp/in && "
	         "ln -s /etc tmp/abs && ln -s ../.. tmp/up && ln -s loop2 loop1 && "
	         "ln -s loop1 loop2 && ln -s src/deep/.. back",
	         dir);
	assert_int_equal(system(cmd), 0);
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	bool linked;
	assert_int_equal(path_resolve_beneath(fd, "tmp/in/deep", out, sizeof out, &linked), 0);
	assert_string_equal(out, "src/deep");
	assert_true(linked);
	/* ".." after a link is taken on the link's target, as the kernel does */
	assert_int_equal(path_resolve_beneath(fd, "tmp/in/../x", out, sizeof out, &linked), 0);
	assert_string_equal(out, "x");
	assert_int_equal(path_resolve_beneath(fd, "back/deep", out, sizeof out, &linked), 0);
	assert_string_equal(out, "src/deep");
	/* what does not exist is kept as written, made plain */
	assert_int_equal(path_resolve_beneath(fd, "src/new//file", out, sizeof out, &linked), 0);
	assert_string_equal(out, "src/new/file");
	assert_false(linked);
	assert_int_equal(path_resolve_beneath(fd, ".", out, sizeof out, &linked), 0);
	assert_string_equal(out, ".");
	/* out of the directory, or a loop: refused */
	assert_int_equal(path_resolve_beneath(fd, "tmp/abs/passwd", out, sizeof out, &linked), -1);
	assert_int_equal(path_resolve_beneath(fd, "tmp/up/x", out, sizeof out, &linked), -1);
	assert_int_equal(path_resolve_beneath(fd, "../x", out, sizeof out, &linked), -1);
	assert_int_equal(path_resolve_beneath(fd, "loop1/x", out, sizeof out, &linked), -1);
	close(fd);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pathnorm_lexical_table),
		cmocka_unit_test(test_pathnorm_within),
		cmocka_unit_test(test_pathnorm_resolve_beneath),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
