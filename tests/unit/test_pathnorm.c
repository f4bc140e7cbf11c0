/* test_pathnorm.c — path arguments as a tool resolves them (lib/pathnorm):
 * lexical normalization as a table, resolution beneath a directory with
 * symbolic links that stay in, lead out, or loop. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
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

/* openat2's RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS without openat2: no link
 * is followed anywhere on the way, nothing above the directory is reached,
 * and what opens is what the path names. */
static void test_pathnorm_open_beneath(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_pathnorm.XXXXXX", cmd[320], buf[16];
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof cmd,
	         "cd %s && mkdir -p a/b && echo hi > a/b/f && ln -s a in && "
	         "ln -s f a/b/lf && ln -s /etc out && ln -s nowhere a/dangling",
	         dir);
	assert_int_equal(system(cmd), 0);
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	int fd = path_open_beneath(dfd, "a/b/f", O_RDONLY, 0);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof buf), 3);
	assert_memory_equal(buf, "hi\n", 3);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	/* ".." that stays beneath is taken back by name */
	assert_true((fd = path_open_beneath(dfd, "a/../a/./b//f", O_RDONLY, 0)) >= 0);
	close(fd);
	assert_true((fd = path_open_beneath(dfd, ".", O_RDONLY | O_DIRECTORY, 0)) >= 0);
	close(fd);
	assert_true((fd = path_open_beneath(dfd, "a/b/", O_PATH, 0)) >= 0);
	close(fd);
	/* out of the directory */
	assert_int_equal(path_open_beneath(dfd, "../x", O_RDONLY, 0), -EXDEV);
	assert_int_equal(path_open_beneath(dfd, "a/../../x", O_RDONLY, 0), -EXDEV);
	assert_int_equal(path_open_beneath(dfd, "/etc/passwd", O_RDONLY, 0), -EXDEV);
	/* a link anywhere, even one that stays inside, even with O_PATH */
	assert_int_equal(path_open_beneath(dfd, "in/b/f", O_RDONLY, 0), -ELOOP);
	assert_int_equal(path_open_beneath(dfd, "out/passwd", O_RDONLY, 0), -ELOOP);
	assert_int_equal(path_open_beneath(dfd, "a/b/lf", O_RDONLY, 0), -ELOOP);
	assert_int_equal(path_open_beneath(dfd, "a/b/lf", O_PATH, 0), -ELOOP);
	assert_int_equal(path_open_beneath(dfd, "in", O_PATH | O_DIRECTORY, 0), -ELOOP);
	assert_int_equal(path_open_beneath(dfd, "a/dangling", O_WRONLY | O_CREAT, 0600), -ELOOP);
	/* what a plain openat says otherwise */
	assert_int_equal(path_open_beneath(dfd, "a/b/f/", O_RDONLY, 0), -ENOTDIR);
	assert_int_equal(path_open_beneath(dfd, "a/b/f/x", O_RDONLY, 0), -ENOTDIR);
	assert_int_equal(path_open_beneath(dfd, "a/nope/f", O_RDONLY, 0), -ENOENT);
	assert_int_equal(path_open_beneath(dfd, "", O_RDONLY, 0), -ENOENT);
	assert_int_equal(path_open_beneath(dfd, "a/new/", O_WRONLY | O_CREAT, 0600), -EISDIR);
	assert_true((fd = path_open_beneath(dfd, "a/b/new", O_WRONLY | O_CREAT | O_EXCL, 0600)) >=
	            0);
	close(fd);
	assert_int_equal(path_open_beneath(dfd, "a/b/new", O_WRONLY | O_CREAT | O_EXCL, 0600),
	                 -EEXIST);
	/* links beneath followed by name first: the lookup of a link target */
	assert_true((fd = path_open_links_beneath(dfd, "in/b/lf", O_RDONLY)) >= 0);
	assert_int_equal(read(fd, buf, sizeof buf), 3);
	close(fd);
	assert_int_equal(path_open_links_beneath(dfd, "out/passwd", O_RDONLY), -EXDEV);
	close(dfd);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pathnorm_lexical_table),
		cmocka_unit_test(test_pathnorm_within),
		cmocka_unit_test(test_pathnorm_resolve_beneath),
		cmocka_unit_test(test_pathnorm_open_beneath),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
