/* io.c — see io.h. */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "io.h"

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
			return got ? (ssize_t)got : -errno;
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
