/* fds.c — inherited file descriptors.
 *
 * Only fds 0-2 may cross into the child: anything else (the supervisor's
 * sockets, an audit log, a descriptor the caller of toolcage left open) is a
 * door out of every other wall. The runner opens fd 7 on a file before it
 * calls toolcage, so an fd leak has something to leak.
 *
 *   fds scan     /proc/self/fd, then fcntl(F_GETFD) on 3..4096
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
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

int main(int argc, char **argv)
{
	static const struct attack t[] = { { "scan", scan } };
	ATTACKS(t);
}
