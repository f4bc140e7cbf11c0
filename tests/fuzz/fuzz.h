/* fuzz.h — what every fuzz target and the plain corpus driver share.
 *
 * Each tests/fuzz/fuzz_<name>.c defines LLVMFuzzerTestOneInput. Built with
 * `clang -fsanitize=fuzzer,...` (make fuzz) libFuzzer supplies main();
 * built with the project's normal compiler and flags (make test), driver.c
 * supplies a main() that replays every file of a corpus directory, so the
 * corpora, crash regressions included, run on every test pass.
 *
 * A target must not keep state between inputs beyond fixtures it builds
 * once (schemas, manifests): libFuzzer runs millions of inputs in one
 * process and a leak or a stale pointer would surface as a false finding.
 * A broken invariant is reported with fuzz_fail(), which aborts, so both
 * libFuzzer and the driver see a crash and keep the input.
 */
#ifndef TC_FUZZ_H
#define TC_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with a message: an invariant the code under test promises broke. */
#define fuzz_fail(...)                                                                             \
	do {                                                                                       \
		fprintf(stderr, "fuzz invariant failed at %s:%d: ", __FILE__, __LINE__);           \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fputc('\n', stderr);                                                               \
		abort();                                                                           \
	} while (0)

#define fuzz_assert(cond)                                                                          \
	do {                                                                                       \
		if (!(cond))                                                                       \
			fuzz_fail("%s", #cond);                                                    \
	} while (0)

/* Writes data to a new private temporary file (removed at exit) and
 * returns its path (borrowed, valid until exit), or aborts: for loaders that
 * only take a path. */
const char *fuzz_temp_file(const void *data, size_t len);
/* Replaces the content of the file at path (made by fuzz_temp_file). */
void fuzz_rewrite_file(const char *path, const void *data, size_t len);

#endif
