/* test_protwalk.c — the walk that finds the protected patterns' matches
 * (sandbox/protwalk.c), in a directory a tool made unreadable: looked in
 * with its owner's permission given back, its mode restored after, and
 * never a symbolic link's target changed in its place. Run without
 * capabilities (root's CAP_DAC_OVERRIDE would read any directory). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

static char ws[] = "/tmp/tc-protwalk.XXXXXX";
static char root[sizeof ws + 8], secret[sizeof ws + 16];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(ws))
		return -1;
	chmod(ws, 0755);
	snprintf(root, sizeof root, "%s/w", ws);
	snprintf(secret, sizeof secret, "%s/secret", ws);
	return mkdir(root, 0755);
}

static int teardown(void **state)
{
	(void)state;
	char cmd[2 * sizeof ws + 32];
	snprintf(cmd, sizeof cmd, "chmod -R u+rwx %s; rm -rf %s", ws, ws);
	return system(cmd) == 0 ? 0 : -1;
}

/* Every capability gone (as a tool's user would be): directories are
 * then read by their mode alone. */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof d);
	return (int)syscall(SYS_capset, &h, d);
}

/* A jail with only what the walk reads: the pattern ".envrc" at any
 * depth in the writable path root. */
static void walk(struct protwalk *out)
{
	static char envrc[] = ".envrc";
	char *patterns[] = { envrc, NULL };
	char *rw[] = { root, NULL };
	struct sbx_jail j;
	memset(&j, 0, sizeof j);
	j.prot_patterns = patterns;
	j.rw_paths = rw;
	j.prot_walk_entries = 1000;
	j.prot_walk_depth = 16;
	if (protwalk_run(&j, out) < 0)
		_exit(99);
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static int run_child(int (*fn)(void))
{
	pid_t c = fork();
	if (c == 0)
		_exit(drop_caps() < 0 ? 98 : fn());
	int st = 0;
	assert_int_equal(waitpid(c, &st, 0), c);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* root/u (mode 0300: its owner may not list it) holds a .envrc. */
static int unreadable_looked_in(void)
{
	char u[sizeof root + 8], envrc[sizeof root + 16];
	snprintf(u, sizeof u, "%s/u", root);
	snprintf(envrc, sizeof envrc, "%s/.envrc", u);
	if (mkdir(u, 0700) < 0 || close(open(envrc, O_CREAT | O_WRONLY, 0600)) < 0 ||
	    chmod(u, 0300) < 0)
		return 90;
	/* A capability that still reads it would make the test mean nothing. */
	DIR *dir = opendir(u);
	if (dir || errno != EACCES) {
		if (dir)
			closedir(dir);
		return 91;
	}
	struct protwalk w;
	walk(&w);
	int rc = w.n != 1 ? 1 : strcmp(w.m[0].path, envrc) ? 2 : mode_of(u) != 0300 ? 3 : 0;
	protwalk_release(&w);
	return rc;
}

static void test_unreadable_directory_is_looked_in_and_given_back(void **state)
{
	(void)state;
	assert_int_equal(run_child(unreadable_looked_in), 0);
}

/* While the walk runs, root/d (mode 0300) and root/l (a symbolic link to
 * a file outside, mode 0600) change places, as a tool of another call
 * could make them: the file's mode must never change. */
static volatile int stop;

static void *swapper(void *arg)
{
	(void)arg;
	int dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	while (!stop)
		(void)syscall(SYS_renameat2, dfd, "d", dfd, "l", 2 /* RENAME_EXCHANGE */);
	close(dfd);
	return NULL;
}

static int swapped_link(void)
{
	char d[sizeof root + 8], l[sizeof root + 8];
	snprintf(d, sizeof d, "%s/d", root);
	snprintf(l, sizeof l, "%s/l", root);
	if (close(open(secret, O_CREAT | O_WRONLY, 0600)) < 0 || chmod(secret, 0600) < 0 ||
	    mkdir(d, 0300) < 0 || symlink(secret, l) < 0)
		return 90;
	pthread_t t;
	if (pthread_create(&t, NULL, swapper, NULL) != 0)
		return 91;
	/* 4000 walks, or 3 s of them: under valgrind, which runs one thread
	 * at a time, a walk costs a hundred times more. */
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = 0;
	for (int i = 0; i < 4000 && !rc; i++) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (i >= 20 && now.tv_sec - t0.tv_sec >= 3)
			break;
		struct protwalk w;
		walk(&w);
		protwalk_release(&w);
		if (mode_of(secret) != 0600)
			rc = 1;
	}
	stop = 1;
	pthread_join(t, NULL);
	return rc;
}

static void test_a_link_swapped_in_is_never_chmodded(void **state)
{
	(void)state;
	assert_int_equal(run_child(swapped_link), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unreadable_directory_is_looked_in_and_given_back),
		cmocka_unit_test(test_a_link_swapped_in_is_never_chmodded),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
