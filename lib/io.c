/* io.c — see io.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

int io_pidfd_kill(int pidfd, int sig)
{
	return syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) < 0 ? -errno : 0;
}

int io_pidfd_reap(int pidfd, bool block, siginfo_t *si, struct rusage *ru)
{
	memset(si, 0, sizeof *si);
	int flags = WEXITED | (block ? 0 : WNOHANG);
	long rc;
	while ((rc = syscall(SYS_waitid, P_PIDFD, pidfd, si, flags, ru)) < 0 && errno == EINTR)
		;
	if (rc < 0)
		return -errno;
	return si->si_pid != 0;
}

int64_t io_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

ssize_t io_read_all(int fd, void *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno; /* not a short count: that means EOF */
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

ssize_t io_write_all(int fd, const void *buf, size_t len)
{
	size_t put = 0;
	while (put < len) {
		ssize_t n = write(fd, (const char *)buf + put, len - put);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		put += (size_t)n;
	}
	return (ssize_t)put;
}

int io_path_find(const char *path, const char *prog, char *full, size_t n)
{
	struct stat st;
	bool denied = false;
	for (const char *p = path; *p;) {
		size_t len = strcspn(p, ":");
		if (!len || p[0] != '/')
			return -1;
		if (snprintf(full, n, "%.*s/%s", (int)len, p, prog) < (int)n && !stat(full, &st) &&
		    S_ISREG(st.st_mode)) {
			if (!access(full, X_OK))
				return 0;
			denied = true;
		}
		p += len + (p[len] == ':');
	}
	return denied ? EACCES : ENOENT;
}

int io_exec_missing(int dirfd, const char *path, char *interp, size_t n)
{
	char head[256];
	struct stat st;
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	ssize_t got =
	        fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, sizeof head - 1) : -1;
	close(fd);
	if (got < 0)
		return -1;
	head[got] = '\0';
	if (got < 2 || head[0] != '#' || head[1] != '!')
		return 0;
	const char *p = head + 2 + strspn(head + 2, " \t");
	size_t len = strcspn(p, " \t\n");
	len = len < n ? len : n - 1;
	memcpy(interp, p, len);
	interp[len] = '\0';
	return 1;
}
