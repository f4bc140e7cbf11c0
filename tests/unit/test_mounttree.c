/* test_mounttree.c — the plan of the mount tree (sandbox/mounttree.c): which
 * binds, links and directories a new root gets for a profile, with which
 * rights. (That the tree holds in a child is the escape suite's part, under
 * tests/sim's no-landlock kernel.) */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static char dir[64];

static char *at(const char *rel)
{
	static char bufs[8][256];
	static int n;
	char *b = bufs[n++ % 8];
	snprintf(b, sizeof bufs[0], "%s/%s", dir, rel);
	return b;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/tc-mt-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	FILE *f;
	if (mkdir(at("a"), 0755) || mkdir(at("a/b"), 0755) || mkdir(at("ws"), 0755) ||
	    symlink("a", at("link")) || !(f = fopen(at("file"), "w")))
		return -1;
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(at("link"));
	unlink(at("file"));
	rmdir(at("a/b"));
	rmdir(at("a"));
	rmdir(at("ws"));
	return rmdir(dir);
}

/* A jail as jail.c leaves it before mounttree_plan, for workspace ws. */
static struct sbx_jail *jail_for(char **rw)
{
	struct sbx_jail *j = calloc(1, sizeof *j);
	assert_non_null(j);
	j->mount_tree = true;
	j->private_proc = true;
	j->workspace = strdup(at("ws"));
	j->rw_paths = rw;
	strcpy(j->tmp_dir, "/tmp");
	return j;
}

static const struct mt_entry *find(const struct sbx_jail *j, const char *path)
{
	for (int i = 0; i < j->n_mt; i++)
		if (!strcmp(j->mt[i].path, path))
			return &j->mt[i];
	return NULL;
}

static void done(struct sbx_jail *j)
{
	mounttree_release(j);
	free(j->workspace);
	free(j);
}

static void nested_exec_path_gets_both_rights(void **state)
{
	(void)state;
	const char *const reads[] = { at("a"), NULL };
	const char *const execs[] = { at("a/b"), NULL };
	struct sbx_spec spec = {
		.name = "t", .read_paths = reads, .exec_paths = execs, .workspace_read = true
	};
	struct sbx_jail *j = jail_for(NULL);
	struct sbx_error err = { 0 };
	assert_int_equal(mounttree_plan(&spec, j, &err), 0);
	const struct mt_entry *a = find(j, at("a")), *b = find(j, at("a/b"));
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->flags & MT_RIGHTS, MT_READ);
	assert_int_equal(b->flags & MT_RIGHTS, MT_READ | MT_EXEC);
	/* parents before what lies beneath them */
	assert_true(a < b);
	done(j);
}

static void path_beneath_a_wider_grant_is_left_to_it(void **state)
{
	(void)state;
	const char *const reads[] = { at("a/b"), NULL };
	const char *const execs[] = { at("a"), NULL };
	struct sbx_spec spec = { .name = "t", .read_paths = reads, .exec_paths = execs };
	struct sbx_jail *j = jail_for(NULL);
	struct sbx_error err = { 0 };
	assert_int_equal(mounttree_plan(&spec, j, &err), 0);
	assert_non_null(find(j, at("a")));
	assert_null(find(j, at("a/b")));
	done(j);
}

static void link_stays_a_link_and_its_target_is_bound(void **state)
{
	(void)state;
	const char *const reads[] = { at("link"), at("file"), at("missing"), NULL };
	struct sbx_spec spec = { .name = "t", .read_paths = reads };
	struct sbx_jail *j = jail_for(NULL);
	struct sbx_error err = { 0 };
	assert_int_equal(mounttree_plan(&spec, j, &err), 0);
	const struct mt_entry *l = find(j, at("link")), *a = find(j, at("a"));
	assert_non_null(l);
	assert_true(l->flags & MT_LINK);
	assert_string_equal(l->target, "a");
	assert_non_null(a);
	assert_int_equal(a->flags & (MT_RIGHTS | MT_LINK), MT_READ);
	assert_true(find(j, at("file"))->flags & MT_FILE);
	assert_null(find(j, at("missing")));
	/* a workspace granted nothing is an empty directory to enter */
	assert_true(find(j, at("ws"))->flags & MT_DIR);
	/* devices, and the host's /proc under the child's fresh one */
	assert_true(find(j, "/dev/null")->flags & MT_DEV);
	assert_int_equal(find(j, "/proc")->flags, MT_READ);
	done(j);
}

static void workspace_and_write_paths_are_writable(void **state)
{
	(void)state;
	char *rw[] = { at("ws"), at("a/b"), NULL };
	const char *const reads[] = { at("a"), NULL };
	struct sbx_spec spec = {
		.name = "t", .read_paths = reads, .workspace_read = true, .workspace_write = true
	};
	struct sbx_jail *j = jail_for(rw);
	j->private_proc = false;
	struct sbx_error err = { 0 };
	assert_int_equal(mounttree_plan(&spec, j, &err), 0);
	assert_int_equal(find(j, at("ws"))->flags & MT_RIGHTS, MT_READ | MT_WRITE);
	assert_int_equal(find(j, at("a/b"))->flags & MT_RIGHTS, MT_READ | MT_WRITE);
	assert_int_equal(find(j, at("a"))->flags & MT_RIGHTS, MT_READ);
	/* no pid namespace: no /proc of the host, only a mount point */
	assert_int_equal(find(j, "/proc")->flags, MT_DIR);
	done(j);
}

static void granting_root_is_refused(void **state)
{
	(void)state;
	const char *const reads[] = { "/", NULL };
	struct sbx_spec spec = { .name = "t", .read_paths = reads };
	struct sbx_jail *j = jail_for(NULL);
	struct sbx_error err = { 0 };
	assert_int_equal(mounttree_plan(&spec, j, &err), -ENOTSUP);
	assert_non_null(strstr(err.msg, "grants / itself"));
	done(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nested_exec_path_gets_both_rights),
		cmocka_unit_test(path_beneath_a_wider_grant_is_left_to_it),
		cmocka_unit_test(link_stays_a_link_and_its_target_is_bound),
		cmocka_unit_test(workspace_and_write_paths_are_writable),
		cmocka_unit_test(granting_root_is_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
