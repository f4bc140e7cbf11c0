/* driver.c — a plain main() for the fuzz targets: feeds every file of each
 * argument (a corpus directory, or a single file) to LLVMFuzzerTestOneInput,
 * in byte order of the names so every run is the same. `make test` builds
 * each target with it (normal compiler and flags, no libFuzzer) and
 * tests/integration/fuzz_corpus.sh runs them over tests/fuzz/corpus/, so
 * seed inputs and crash regressions are replayed on every test pass.
 *
 * Exit: 0 when every input ran, 77 when there was nothing to run, 1 when an
 * input could not be read. A crash is the target's own abort. */
#define _GNU_SOURCE /* asprintf */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

#define DRIVER_INPUT_MAX (16u << 20) /* bytes of one corpus file */

static int run_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > DRIVER_INPUT_MAX) {
		fprintf(stderr,
		        "driver: %s: cannot read (or not a regular file of at most %u bytes)\n",
		        path, DRIVER_INPUT_MAX);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	size_t len = (size_t)st.st_size;
	/* An exact-size heap copy, so ASan sees a read one past the input. */
	uint8_t *data = malloc(len ? len : 1);
	if (!data) {
		close(fd);
		return -1;
	}
	size_t got = 0;
	while (got < len) {
		ssize_t r = read(fd, data + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	(void)LLVMFuzzerTestOneInput(data, got);
	free(data);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular, non-hidden file in dir; returns how many, or -1. */
static long run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "driver: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **nn = realloc(names, cap * sizeof *names);
			if (!nn)
				abort();
			names = nn;
		}
		if (!(names[n++] = strdup(e->d_name)))
			abort();
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_names);
	long ran = 0;
	for (size_t i = 0; i < n; i++) {
		char *path = NULL;
		if (asprintf(&path, "%s/%s", dir, names[i]) < 0)
			abort();
		if (run_file(path) < 0)
			ran = -1;
		else if (ran >= 0)
			ran++;
		free(path);
		free(names[i]);
	}
	free(names);
	return ran;
}

int main(int argc, char **argv)
{
	long total = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		long ran;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			ran = run_dir(argv[i]);
		else
			ran = run_file(argv[i]) < 0 ? -1 : 1;
		if (ran < 0)
			return 1;
		total += ran;
	}
	printf("%s: %ld inputs ran\n", argv[0], total);
	return total ? 0 : 77;
}
