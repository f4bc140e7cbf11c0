/* reach.c — what a tool's command can reach of the processes around it:
 * the process that runs the builtin which started it (pid 1 of the jail
 * when run_command runs it), the supervisor, other calls' children.
 * Every process the program can see but itself is tried.
 *
 *   reach environ REVERSED   a /proc/N/environ holding the canary
 *   reach mem REVERSED       a readable /proc/N/mem holding the canary
 *   reach fd_forge           reopen any /proc/N/fd/M of another process for
 *                            writing and write a forged builtin result on it
 *                            ('y' + {"forged":true}), then exit 3: a result
 *                            "ok" with "forged" is a forgery that worked
 *   reach ptrace             PTRACE_ATTACH to another process
 *   reach list               (a control) how many other processes it sees
 *
 * The canary comes reversed and is turned around here, so that no other
 * process holds it because it was passed to this one (run_command's
 * arguments are in the memory of the process that runs it).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <stdbool.h>
#include "verdict.h"

static int others(pid_t *pids, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	while (d && n < max && (e = readdir(d))) {
		pid_t p = (pid_t)atoi(e->d_name);
		if (p > 0 && p != getpid())
			pids[n++] = p;
	}
	if (d)
		closedir(d);
	return n;
}

static char *canary(const char *a, int argc, char **argv)
{
	if (argc < 3 || !argv[2][0])
		TESTERR(a, "usage: reach %s REVERSED_CANARY", a);
	size_t n = strlen(argv[2]);
	char *c = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		c[i] = argv[2][n - 1 - i];
	c[n] = '\0';
	memset(argv[2], 0, n);
	return c;
}

static bool holds(const char *buf, size_t n, const char *c)
{
	return memmem(buf, n, c, strlen(c)) != NULL;
}

static void environ_of_others(const char *a, int argc, char **argv)
{
	char *c = canary(a, argc, argv);
	pid_t p[512];
	int n = others(p, 512), readable = 0;
	for (int i = 0; i < n; i++) {
		char path[64], buf[65536];
		snprintf(path, sizeof path, "/proc/%d/environ", (int)p[i]);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t got = fd < 0 ? -1 : read(fd, buf, sizeof buf);
		if (fd >= 0)
			close(fd);
		if (got < 0)
			continue;
		readable++;
		if (holds(buf, (size_t)got, c))
			ESCAPED(a, "the canary is in /proc/%d/environ", (int)p[i]);
	}
	BLOCKED(a, "%d other processes, %d environ readable, no canary", n, readable);
}

/* Every readable mapping of pid, searched for c. 1 found, 0 not, -1 no access. */
static int mem_holds(pid_t pid, const char *c)
{
	char path[64], line[512];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	FILE *maps = fopen(path, "re");
	snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
	int mem = open(path, O_RDONLY | O_CLOEXEC);
	if (!maps || mem < 0) {
		if (maps)
			fclose(maps);
		if (mem >= 0)
			close(mem);
		return -1;
	}
	int found = 0;
	static char buf[1 << 20];
	while (!found && fgets(line, sizeof line, maps)) {
		unsigned long lo, hi;
		char perm[8];
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3 || perm[0] != 'r')
			continue;
		for (unsigned long at = lo; at < hi && !found;) {
			size_t want = hi - at < sizeof buf ? hi - at : sizeof buf;
			ssize_t got = pread(mem, buf, want, (off_t)at);
			if (got <= 0)
				break;
			found = holds(buf, (size_t)got, c);
			at += (unsigned long)got;
		}
	}
	fclose(maps);
	close(mem);
	return found;
}

static void mem_of_others(const char *a, int argc, char **argv)
{
	char *c = canary(a, argc, argv);
	pid_t p[512];
	int n = others(p, 512), readable = 0;
	for (int i = 0; i < n; i++) {
		int r = mem_holds(p[i], c);
		if (r > 0)
			ESCAPED(a, "the canary is in /proc/%d/mem", (int)p[i]);
		readable += r == 0;
	}
	BLOCKED(a, "%d other processes, %d with memory readable, no canary", n, readable);
}

static void fd_forge(const char *a, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	static const char forged[] = "y{\"forged\":true}";
	pid_t p[512];
	int n = others(p, 512), opened = 0;
	char what[330] = "";
	for (int i = 0; i < n; i++) {
		char dir[64];
		snprintf(dir, sizeof dir, "/proc/%d/fd", (int)p[i]);
		DIR *d = opendir(dir);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char path[330];
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			int fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK);
			if (fd < 0)
				continue;
			opened++;
			snprintf(what, sizeof what, "%s", path);
			(void)!write(fd, forged, sizeof forged - 1);
			close(fd);
		}
		if (d)
			closedir(d);
	}
	/* The verdict goes to stdout; the exit status is what run_command
	 * must report, whatever was written. */
	printf("\nVERDICT %s %s %s\n", opened ? "escaped" : "blocked", a,
	       opened ? what : "no descriptor of another process reopened");
	fflush(stdout);
	_exit(3);
}

static void ptrace_others(const char *a, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pid_t p[512];
	int n = others(p, 512);
	for (int i = 0; i < n; i++)
		if (ptrace(PTRACE_ATTACH, p[i], 0, 0) == 0)
			ESCAPED(a, "attached to pid %d", (int)p[i]);
	BLOCKED(a, "%d other processes, none attached (%s)", n, errname(errno));
}

static void list(const char *a, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pid_t p[512];
	int n = others(p, 512);
	char buf[256] = "";
	size_t len = 0;
	for (int i = 0; i < n && len < sizeof buf - 16; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%d ", (int)p[i]);
	ESCAPED(a, "%d other processes: %s", n, buf);
}

int main(int argc, char **argv)
{
	static const struct attack t[] = {
		{ "environ", environ_of_others },
		{ "mem", mem_of_others },
		{ "fd_forge", fd_forge },
		{ "ptrace", ptrace_others },
		{ "list", list },
	};
	ATTACKS(t);
}
