/* support.c — temp-file fixtures for the fuzz targets (loaders that only
 * take a path). Files live in $TMPDIR (default /tmp) and are removed at
 * exit, so a long fuzzing run leaves nothing behind. */
#define _GNU_SOURCE /* asprintf, mkstemps */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#define FUZZ_MAX_TEMPS 16

static char *temps[FUZZ_MAX_TEMPS];
static size_t n_temps;

static void remove_temps(void)
{
	for (size_t i = 0; i < n_temps; i++) {
		(void)unlink(temps[i]);
		free(temps[i]);
	}
	n_temps = 0;
}

static void write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			fuzz_fail("write: %s", strerror(errno));
		p += w;
		len -= (size_t)w;
	}
}

const char *fuzz_temp_file(const void *data, size_t len)
{
	if (n_temps == FUZZ_MAX_TEMPS)
		fuzz_fail("more than %d temp files", FUZZ_MAX_TEMPS);
	const char *dir = getenv("TMPDIR");
	char *path = NULL;
	if (asprintf(&path, "%s/tc-fuzz-XXXXXX.json", dir && *dir ? dir : "/tmp") < 0)
		fuzz_fail("out of memory");
	int fd = mkstemps(path, 5);
	if (fd < 0)
		fuzz_fail("mkstemps %s: %s", path, strerror(errno));
	if (!n_temps)
		atexit(remove_temps);
	temps[n_temps++] = path;
	write_all(fd, data, len);
	close(fd);
	return path;
}

void fuzz_rewrite_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		fuzz_fail("open %s: %s", path, strerror(errno));
	write_all(fd, data, len);
	close(fd);
}
