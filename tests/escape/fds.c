/* fds.c — inherited file descriptors.
 *
 * Only fds 0-2 may cross into the child: anything else (the supervisor's
 * sockets, an audit log, a descriptor the caller of toolcage left open) is a
 * door out of every other wall. The runner opens fd 7 on a file before it
 * calls toolcage, so an fd leak has something to leak.
 *
 *   fds scan     /proc/self/fd, then fcntl(F_GETFD) on 3..4096
 *   fds std_meta fchmod of what fds 0-2 are, to the mode each has: a
 *                descriptor opened outside the call's mount namespace
 *                (the host's /dev/null, which the tool's uid owns when it
 *                is root) reaches the host's inode past every read-only
 *                mount; Landlock does not govern chmod. Pipes and sockets
 *                (an inode of no file system a path names) are skipped;
 *                the runner also compares /dev/null's ctime from outside
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "verdict.h"

static void scan(const char *a, int argc, char **argv)
{
	char found[300] = "";
	size_t used = 0;
	int n = 0;

	/* fcntl first: it opens nothing, so every open fd here is inherited. */
	for (int fd = 3; fd <= 4096; fd++) {
		if (fcntl(fd, F_GETFD) < 0)
			continue;
		char link[64], target[128] = "?";
		snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
		ssize_t len = readlink(link, target, sizeof target - 1);
		target[len > 0 ? len : 1] = 0;
		if (used < sizeof found - 1)
			used += snprintf(found + used, sizeof found - used, " %d->%s", fd, target);
		n++;
	}
	if (n)
		ESCAPED(a, "%d inherited fd(s):%s", n, found);

	/* Then the directory, skipping the fd opendir itself uses. */
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		BLOCKED(a, "no fd open beyond 0-2 (fcntl scan; /proc/self/fd: %s)", errname(errno));
	int self = dirfd(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		int fd = atoi(e->d_name);
		if (fd > 2 && fd != self)
			n++;
	}
	closedir(d);
	if (n)
		ESCAPED(a, "%d fd(s) beyond 0-2 listed in /proc/self/fd", n);
	BLOCKED(a, "only fds 0-2 open");
}

static void std_meta(const char *a, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	char tried[200] = "";
	size_t used = 0;
	for (int fd = 0; fd <= 2; fd++) {
		struct stat st;
		if (fstat(fd, &st) < 0 || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
			continue;
		if (fchmod(fd, st.st_mode & 07777) == 0)
			ESCAPED(a, "fchmod of fd %d (mode %o, device %u:%u, inode %lu) worked", fd,
			        (unsigned)st.st_mode & 07777, major(st.st_rdev), minor(st.st_rdev),
			        (unsigned long)st.st_ino);
		if (used < sizeof tried - 1)
			used += snprintf(tried + used, sizeof tried - used, " fd %d: %s;", fd,
			                 errname(errno));
	}
	if (!used)
		BLOCKED(a, "fds 0-2 are pipes or sockets");
	BLOCKED(a, "fchmod refused:%s", tried);
}

int main(int argc, char **argv)
{
	static const struct attack t[] = { { "scan", scan }, { "std_meta", std_meta } };
	ATTACKS(t);
}
