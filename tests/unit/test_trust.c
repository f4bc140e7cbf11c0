/* test_trust.c — what the supervisor trusts must not be writable by a
 * tool (trust.h): paths resolved as the kernel would (symlinks one by one,
 * "..", missing tails), every directory on the way checked, the check
 * symmetric in the order things are added. Each test builds its own tree
 * under /tmp. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile.h"
#include "trust.h"

struct fx {
	char root[64]; /* /tmp/test_trust.XXXXXX: ws/ (writable), etc/ (not) */
	char ws[128], etc[128];
	struct trust *t;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	snprintf(f->root, sizeof f->root, "/tmp/test_trust.XXXXXX");
	if (!f || !mkdtemp(f->root))
		return -1;
	snprintf(f->ws, sizeof f->ws, "%s/ws", f->root);
	snprintf(f->etc, sizeof f->etc, "%s/etc", f->root);
	if (mkdir(f->ws, 0700) < 0 || mkdir(f->etc, 0700) < 0 || !(f->t = trust_new()))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];
	trust_free(f->t);
	snprintf(cmd, sizeof cmd, "rm -rf %s", f->root);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static void touch(const char *dir, const char *name)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *fp = fopen(p, "w");
	assert_non_null(fp);
	fclose(fp);
}

static void link_to(const char *target, const char *dir, const char *name)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	assert_int_equal(symlink(target, p), 0);
}

/* trust_add_trusted of DIR/NAME: its return code, err filled */
static int trusted(struct fx *f, const char *dir, const char *name, struct tc_error *err)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return trust_add_trusted(f->t, p, "the thing", NULL, err);
}

static void test_trust_file_in_writable_dir_refused(void **state)
{
	struct fx *f = *state;
	struct tc_error err = { 0 };
	touch(f->ws, "toolcage.json");
	assert_int_equal(trust_add_writable(f->t, f->ws, "the workspace", &err), 0);
	assert_int_equal(trusted(f, f->ws, "toolcage.json", &err), -1);
	assert_int_equal(err.code, TC_E_INVALID);
	assert_non_null(strstr(err.msg, "the thing is refused"));
	assert_non_null(strstr(err.msg, "the workspace"));
	assert_non_null(strstr(err.msg, "which tools can write"));
}

static void test_trust_file_outside_accepted(void **state)
{
	struct fx *f = *state;
	struct tc_error err = { 0 };
	touch(f->etc, "toolcage.json");
	assert_int_equal(trust_add_writable(f->t, f->ws, "the workspace", &err), 0);
	assert_int_equal(trusted(f, f->etc, "toolcage.json", &err), 0);
}

/* The writable directory itself, and deep below it, are refused too. */
static void test_trust_writable_dir_itself_and_deep_paths_refused(void **state)
{
	struct fx *f = *state;
	struct tc_error err = { 0 };
	char deep[256];
	snprintf(deep, sizeof deep, "%s/a", f->ws);
	assert_int_equal(mkdir(deep, 0700), 0);
	assert_int_equal(trust_add_writable(f->t, f->ws, "the workspace", &err), 0);
	assert_int_equal(trust_add_trusted(f->t, f->ws, "the dir", NULL, &err), -1);
	assert_int_equal(trusted(f, deep, "b/c/missing.json", &err), -1);
}

/* "/ws2" is not beneath "/ws": a prefix of the name is not a parent. */
static void test_trust_sibling_with_common_prefix_accepted(void **state)
{
	struct fx *f = *state;
	struct tc_error err = { 0 };
	char sib[256];
	snprintf(sib, sizeof sib, "%s2", f->ws);
	assert_int_equal(mkdir(sib, 0700), 0);
	touch(sib, "x.json");
	assert_int_equal(trust_add_writable(f->t, f->ws, "the workspace", &err), 0);
	assert_int_equal(trusted(f, sib, "x.json", &err), 0);
}

/* A symlink outside pointing into the workspace: the target is what is
 * read, and a tool can write it. */
static void test_trust_symlink_into_writable_refused(void **state)
{
	struct fx *f = *state;
	struct tc_error err = { 0 };
	char target[PATH_MAX];
	touch(f->ws, "real.json");
	snprintf(target, sizeof target, "%s/real.json", f->ws);
	link_to(target, f->etc, "link.json");
	assert_int_equal(trust_add_writable(f->t, f->ws, "the workspace", &err), 0);
	assert_int_equal(trusted(f, f->etc, "link.json", &err), -1);
}

/* A symlink in the workspace pointing outside: the file is safe, the link
 * is not (a tool can point it elsewhere). */
static void test_trust_symlink_living_in_writable_refused(void **state)
{
	struct fx *f = *state;
	struct tc_error err = { 0 };
	touch(f->etc, "c.json");
	link_to(f->etc, f->ws, "dirlink");
	assert_int_equal(trust_add_writable(f->t, f->ws, "the workspace", &err), 0);
	assert_int_equal(trusted(f, f->ws, "dirlink/c.json", &err), -1);
	assert_non_null(strstr(err.msg, "reached through"));
}

/* Relative symlinks and ".." resolve on the real directory, as the
 * kernel does: etc/up -> ../ws, so etc/up/x is in the workspace. */
static void test_trust_relative_symlink_and_dotdot(void **state)
{
	struct fx *f = *state;
	struct tc_error err = { 0 };
	touch(f->ws, "x");
	touch(f->etc, "y");
	link_to("../ws", f->etc, "up");
	assert_int_equal(trust_add_writable(f->t, f->ws, "the workspace", &err), 0);
	assert_int_equal(trusted(f, f->etc, "up/x", &err), -1);
	/* ws/../etc/y: the lookup of ".." happens in the workspace, but
	 * ".." cannot be replaced by a tool: the result is etc/y */
	assert_int_equal(trusted(f, f->ws, "../etc/y", &err), 0);
}

/* Added in the other order: the writable directory refuses to be added
 * over something already trusted. */
static void test_trust_symmetric_writable_added_later(void **state)
{
	struct fx *f = *state;
	struct tc_error err = { 0 };
	touch(f->etc, "toolcage.json");
	assert_int_equal(trusted(f, f->etc, "toolcage.json", &err), 0);
	assert_int_equal(trust_add_writable(f->t, f->ws, "the workspace", &err), 0);
	assert_int_equal(trust_add_writable(f->t, f->etc, "a write path", &err), -1);
	assert_non_null(strstr(err.msg, "a write path"));
	/* "/" as a write path reaches everything */
	assert_int_equal(trust_add_writable(f->t, "/", "a write path", &err), -1);
}

/* A write path that does not exist grants nothing. */
static void test_trust_missing_writable_is_ignored(void **state)
{
	struct fx *f = *state;
	struct tc_error err = { 0 };
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/nope", f->etc);
	assert_int_equal(trust_add_writable(f->t, p, "a write path", &err), 0);
	touch(f->etc, "c.json");
	assert_int_equal(trusted(f, f->etc, "c.json", &err), 0);
}

static void test_trust_symlink_loop_is_an_error(void **state)
{
	struct fx *f = *state;
	struct tc_error err = { 0 };
	link_to("b", f->etc, "a");
	link_to("a", f->etc, "b");
	assert_int_equal(trusted(f, f->etc, "a", &err), -1);
	assert_non_null(strstr(err.msg, "cannot be checked"));
}

/* A profile's own file, and its write paths, go through the same checks. */
static void test_trust_profile_file_and_write_paths(void **state)
{
	struct fx *f = *state;
	struct tc_error err = { 0 };
	char file[PATH_MAX];
	const char *writes[] = { f->etc, NULL };
	struct profile p = { .spec = { .name = "wide", .write_paths = writes } };
	snprintf(file, sizeof file, "%s/wide.json", f->ws);
	touch(f->ws, "wide.json");
	assert_int_equal(trust_add_writable(f->t, f->ws, "the workspace", &err), 0);
	p.file = file;
	assert_int_equal(trust_add_profile(f->t, &p, &err), -1);
	assert_non_null(strstr(err.msg, "the profile"));
	touch(f->etc, "toolcage.json");
	assert_int_equal(trusted(f, f->etc, "toolcage.json", &err), 0);
	p.file = NULL; /* built in */
	assert_int_equal(trust_add_profile(f->t, &p, &err), -1);
	assert_non_null(strstr(err.msg, "a write path of the profile wide"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_trust_file_in_writable_dir_refused),
		T(test_trust_file_outside_accepted),
		T(test_trust_writable_dir_itself_and_deep_paths_refused),
		T(test_trust_sibling_with_common_prefix_accepted),
		T(test_trust_symlink_into_writable_refused),
		T(test_trust_symlink_living_in_writable_refused),
		T(test_trust_relative_symlink_and_dotdot),
		T(test_trust_symmetric_writable_added_later),
		T(test_trust_missing_writable_is_ignored),
		T(test_trust_symlink_loop_is_an_error),
		T(test_trust_profile_file_and_write_paths),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
