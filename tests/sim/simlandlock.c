/* simlandlock.c — preloaded by simkernel (--landlock-abi N) into the
 * program it runs: answers Landlock's version query with N, so that the
 * program uses that ABI's rules alone, which the real kernel enforces.
 *
 * simkernel answers the same query through a seccomp listener elsewhere
 * (--landlock N); a process can sit under one listener only, so where
 * the program needs a listener of its own (toolcage's signal wall without
 * Landlock's scoping: sandbox/sigwall.c), the answer comes from here. It
 * covers what calls syscall(2), as toolcage does for Landlock; the
 * environment (SIMKERNEL_LANDLOCK_ABI) does not reach toolcage's tools. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	va_list ap;
	va_start(ap, nr);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_landlock_create_ruleset && !a[0] && !a[1] && a[2] == 1 /* VERSION */) {
		const char *v = getenv("SIMKERNEL_LANDLOCK_ABI");
		if (v && *v)
			return strtol(v, NULL, 10);
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
