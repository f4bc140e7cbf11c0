/* hog.c — resource exhaustion: processes, memory, file size, open files,
 * CPU, output.
 *
 * Each hog first raises its soft limit to the hard limit (any process may),
 * so only a hard limit counts, then consumes until the kernel says no or a
 * cap the runner chooses (just above what the profile allows). Reaching the
 * cap is the escape: the limit did not hold. Caps keep an unconfined run
 * (run.sh --self-test) from hurting the host.
 *
 *   hog fork_bomb MARK CAP      fork sleeping children until EAGAIN or CAP
 *   hog memory CAP_MB TOUCH     mmap 16 MiB chunks until ENOMEM or CAP; with
 *                               TOUCH=1 write every page (real memory: a
 *                               memory cgroup may kill us first; each
 *                               chunk then prints "touched N MiB"), with
 *                               TOUCH=0 only the first 64 MiB (address space,
 *                               fast: RLIMIT_AS must stop it)
 *   hog fsize DIR MARK CAP_MB   write DIR/tc-escape-big-MARK until EFBIG
 *                               (SIGXFSZ ignored), ENOSPC or CAP (removed)
 *   hog nofile CAP              dup(0) until EMFILE or CAP
 *   hog cpu MARK SECONDS        spin; escaped if still alive after SECONDS of
 *                               CPU (the deadline or RLIMIT_CPU must kill it)
 *   hog flood FD CAP_MB         write CAP_MB MiB of 'A' to FD (1 or 2); the
 *                               runner judges toolcage's memory and limit
 *   hog core_limit              lower RLIMIT_CORE to 0 (setrlimit, then the
 *                               raw prlimit64): escaped if its soft value is
 *                               then anything but 1, the one value at which
 *                               a core_pattern that pipes to a helper
 *                               (systemd-coredump, apport) starts none: at
 *                               0 the kernel still starts it, as root and
 *                               outside the call, and pipes it the core
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "verdict.h"

static void raise_soft(int res)
{
	struct rlimit rl;
	if (getrlimit(res, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(res, &rl);
	}
}

static void fork_bomb(const char *a, int argc, char **argv)
{
	const char *mark = arg_str(a, argc, argv, 2);
	long cap = arg_long(a, arg_str(a, argc, argv, 3));
	static pid_t kids[1 << 16];
	long n = 0;
	int e = 0;

	if (cap > (long)(sizeof kids / sizeof kids[0]))
		cap = sizeof kids / sizeof kids[0];
	set_marker(mark);
	raise_soft(RLIMIT_NPROC);
	while (n < cap) {
		pid_t c = fork();
		if (c < 0) {
			e = errno;
			break;
		}
		if (c == 0) {
			for (;;)
				pause();
		}
		kids[n++] = c;
	}
	for (long i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	if (n >= cap)
		ESCAPED(a, "forked %ld processes without hitting a limit", n);
	BLOCKED(a, "fork: %s after %ld children", errname(e), n);
}

static void memory(const char *a, int argc, char **argv)
{
	long cap = arg_long(a, arg_str(a, argc, argv, 2));
	long touch = arg_long(a, arg_str(a, argc, argv, 3));
	const size_t chunk = 16u << 20;
	long mb = 0;

	raise_soft(RLIMIT_AS);
	raise_soft(RLIMIT_DATA);
	while (mb < cap) {
		void *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		               0);
		if (p == MAP_FAILED)
			BLOCKED(a, "mmap: %s after %ld MiB", errname(errno), mb);
		/* Huge pages where the kernel has them: 512 times fewer page
		 * faults, which an emulator (the kernel matrix) makes slow. */
		if (touch)
			madvise(p, chunk, MADV_HUGEPAGE);
		if (touch || mb < 64)
			memset(p, 1, chunk);
		mb += 16;
		/* How far it got when a memory limit killed it. */
		if (touch) {
			printf("touched %ld MiB\n", mb);
			fflush(stdout);
		}
	}
	ESCAPED(a, "%s %ld MiB without hitting a limit", touch ? "allocated and touched" : "mapped",
	        mb);
}

static void fsize(const char *a, int argc, char **argv)
{
	const char *dir = arg_str(a, argc, argv, 2);
	const char *mark = arg_str(a, argc, argv, 3);
	long cap = arg_long(a, arg_str(a, argc, argv, 4));
	static char buf[1 << 20];
	char path[512];
	long mb = 0;

	signal(SIGXFSZ, SIG_IGN);
	raise_soft(RLIMIT_FSIZE);
	snprintf(path, sizeof path, "%s/tc-escape-big-%s", dir, mark);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		BLOCKED(a, "create %s: %s", path, errname(errno));
	memset(buf, 'F', sizeof buf);
	while (mb < cap) {
		ssize_t n = write(fd, buf, sizeof buf);
		if (n < 0) {
			int e = errno;
			unlink(path);
			BLOCKED(a, "write: %s after %ld MiB", errname(e), mb);
		}
		if (n < (ssize_t)sizeof buf) { /* short write at the limit */
			ssize_t m = write(fd, buf, sizeof buf);
			int e = errno;
			unlink(path);
			if (m < 0)
				BLOCKED(a, "write: %s after %ld MiB", errname(e), mb);
			TESTERR(a, "short write without error at %ld MiB", mb);
		}
		mb++;
	}
	unlink(path);
	ESCAPED(a, "wrote %ld MiB to %s without hitting a limit", mb, dir);
}

static void nofile(const char *a, int argc, char **argv)
{
	long cap = arg_long(a, arg_str(a, argc, argv, 2));
	long n = 0;
	raise_soft(RLIMIT_NOFILE);
	while (n < cap) {
		if (dup(0) < 0)
			BLOCKED(a, "dup: %s after %ld fds", errname(errno), n);
		n++;
	}
	ESCAPED(a, "opened %ld fds without hitting a limit", n);
}

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void cpu(const char *a, int argc, char **argv)
{
	const char *mark = arg_str(a, argc, argv, 2);
	long secs = arg_long(a, arg_str(a, argc, argv, 3));
	volatile unsigned long x = 0;
	set_marker(mark);
	raise_soft(RLIMIT_CPU);
	signal(SIGXCPU, SIG_IGN); /* only the hard limit's SIGKILL may stop us */
	while (cpu_seconds() < (double)secs)
		for (int i = 0; i < 1000000; i++)
			x += (unsigned long)i;
	ESCAPED(a, "burned %ld s of CPU and is still running", secs);
}

static void flood(const char *a, int argc, char **argv)
{
	int fd = (int)arg_long(a, arg_str(a, argc, argv, 2));
	long cap = arg_long(a, arg_str(a, argc, argv, 3));
	static char buf[1 << 20];
	long mb = 0;
	memset(buf, 'A', sizeof buf);
	for (size_t i = 4095; i < sizeof buf; i += 4096)
		buf[i] = '\n';
	signal(SIGPIPE, SIG_IGN);
	while (mb < cap) {
		size_t off = 0;
		while (off < sizeof buf) {
			ssize_t n = write(fd, buf + off, sizeof buf - off);
			if (n < 0) {
				int e = errno;
				dup2(2, 1); /* the verdict still goes somewhere */
				BLOCKED(a, "write: %s after %ld MiB", errname(e), mb);
			}
			off += (size_t)n;
		}
		mb++;
	}
	ESCAPED(a, "wrote %ld MiB to fd %d unhindered", mb, fd);
}

static void core_limit(const char *a, int c, char **v)
{
	struct rlimit zero = { 0, 0 }, now;
	int set = setrlimit(RLIMIT_CORE, &zero);
	int se = errno;
	long pr = syscall(SYS_prlimit64, 0, RLIMIT_CORE, &zero, NULL);
	int pe = errno;
	if (getrlimit(RLIMIT_CORE, &now) < 0)
		TESTERR(a, "getrlimit: %s", errname(errno));
	if (now.rlim_cur != 1)
		ESCAPED(a,
		        "RLIMIT_CORE is %llu/%llu (setrlimit %s, prlimit64 %s): a piped "
		        "core_pattern would start its helper",
		        (unsigned long long)now.rlim_cur, (unsigned long long)now.rlim_max,
		        set ? errname(se) : "ok", pr ? errname(pe) : "ok");
	BLOCKED(a, "RLIMIT_CORE stays 1/%llu (setrlimit %s, prlimit64 %s)",
	        (unsigned long long)now.rlim_max, set ? errname(se) : "ok",
	        pr ? errname(pe) : "ok");
}

int main(int argc, char **argv)
{
	static const struct attack t[] = {
		{ "fork_bomb", fork_bomb },   { "memory", memory }, { "fsize", fsize },
		{ "nofile", nofile },         { "cpu", cpu },       { "flood", flood },
		{ "core_limit", core_limit },
	};
	ATTACKS(t);
}
