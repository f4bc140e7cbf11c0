/* procs.c — reaching other processes from inside the sandbox.
 *
 * The runner starts a victim outside (a sleep whose argv carries a marker) and
 * passes its host pid; each attack tries one way to touch it. A few attacks
 * use a child of our own instead: they check that the seccomp rules the profiles
 * promise (ptrace, process_vm_*, pidfd_getfd denied) are there even where
 * the kernel would allow the call, since those calls are what turn a leaked
 * pid or fd into a foothold.
 *
 *   procs ptrace_attach PID      ptrace(PTRACE_ATTACH, victim)
 *   procs ptrace_seize PID       ptrace(PTRACE_SEIZE, victim)
 *   procs ptrace_child           PTRACE_ATTACH to our own child (filter check)
 *   procs vm_readv PID           process_vm_readv from the victim
 *   procs vm_readv_child         process_vm_readv from our own child
 *   procs pidfd_open PID         pidfd_open(victim)
 *   procs pidfd_getfd_child      pidfd_getfd on our own child's fd 0
 *   procs proc_mem PID           open+read /proc/PID/mem
 *   procs proc_environ PID       open+read /proc/PID/environ
 *   procs proc_scan MARKER       any /proc/N/cmdline holding the victim marker
 *   procs kill_victim PID        kill(victim, SIGKILL)
 *   procs kill_all               kill(-1, SIGKILL), after a kill(-1, 0) probe
 *   procs sysv_shm SHMID         attach and read a System V shared memory
 *                                segment the runner made on the host (mode
 *                                0666: only the sandbox stands in the way)
 *   procs posix_mq NAME          create a POSIX message queue: on the host's
 *                                mqueue it would be a channel to every
 *                                process there
 *   procs shm_make               (runner setup, outside) make the segment
 *                                for sysv_shm and print its id
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <mqueue.h>
#include <sys/ptrace.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include "verdict.h"

static pid_t arg_pid(const char *a, int argc, char **argv)
{
	pid_t pid = (pid_t)arg_long(a, arg_str(a, argc, argv, 2));
	if (pid <= 1)
		TESTERR(a, "refusing victim pid %d", (int)pid);
	return pid;
}

/* A child of our own that just waits; killed by the caller. */
static pid_t own_child(const char *a)
{
	pid_t c = fork();
	if (c < 0)
		TESTERR(a, "fork: %s", errname(errno));
	if (c == 0) {
		for (;;)
			pause();
	}
	return c;
}

static void reap(pid_t c)
{
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
}

static void ptrace_attach(const char *a, int argc, char **argv)
{
	pid_t pid = arg_pid(a, argc, argv);
	long rc = ptrace(PTRACE_ATTACH, pid, 0, 0);
	if (rc == 0) {
		ptrace(PTRACE_DETACH, pid, 0, 0);
		ESCAPED(a, "PTRACE_ATTACH to host pid %d succeeded", (int)pid);
	}
	BLOCKED(a, "PTRACE_ATTACH: %s", errname(errno));
}

static void ptrace_seize(const char *a, int argc, char **argv)
{
	pid_t pid = arg_pid(a, argc, argv);
	long rc = ptrace(PTRACE_SEIZE, pid, 0, 0);
	if (rc == 0) {
		ptrace(PTRACE_DETACH, pid, 0, 0);
		ESCAPED(a, "PTRACE_SEIZE of host pid %d succeeded", (int)pid);
	}
	BLOCKED(a, "PTRACE_SEIZE: %s", errname(errno));
}

static void ptrace_child(const char *a, int argc, char **argv)
{
	pid_t c = own_child(a);
	long rc = ptrace(PTRACE_ATTACH, c, 0, 0);
	int e = errno;
	reap(c);
	if (rc == 0)
		ESCAPED(a, "ptrace allowed (attached to own child): seccomp does not deny ptrace");
	BLOCKED(a, "PTRACE_ATTACH own child: %s", errname(e));
}

static void vm_readv_pid(const char *a, pid_t pid)
{
	char buf[64];
	struct iovec local = { buf, sizeof buf };
	/* Any mapped address will do; the stack top region is always there,
	 * but an unmapped address still distinguishes EFAULT (reached the
	 * target) from EPERM/ESRCH (refused). */
	struct iovec remote = { (void *)0x400000, sizeof buf };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n >= 0 || errno == EFAULT)
		ESCAPED(a, "process_vm_readv reached pid %d (%s)", (int)pid,
		        n >= 0 ? "read bytes" : "EFAULT: target memory reachable");
	BLOCKED(a, "process_vm_readv: %s", errname(errno));
}

static void vm_readv(const char *a, int argc, char **argv)
{
	vm_readv_pid(a, arg_pid(a, argc, argv));
}

static void vm_readv_child(const char *a, int argc, char **argv)
{
	pid_t c = own_child(a);
	char buf[64], src[64] = "x";
	struct iovec local = { buf, sizeof buf }, remote = { src, sizeof src };
	ssize_t n = process_vm_readv(c, &local, 1, &remote, 1, 0);
	int e = errno;
	reap(c);
	if (n >= 0)
		ESCAPED(a, "process_vm_readv allowed on own child: seccomp does not deny it");
	BLOCKED(a, "process_vm_readv own child: %s", errname(e));
}

static void pidfd_open_victim(const char *a, int argc, char **argv)
{
	pid_t pid = arg_pid(a, argc, argv);
	long fd = syscall(SYS_pidfd_open, pid, 0);
	if (fd >= 0) {
		long got = syscall(SYS_pidfd_getfd, fd, 0, 0);
		if (got >= 0)
			ESCAPED(a, "pidfd_open(%d) and pidfd_getfd stole its fd 0", (int)pid);
		ESCAPED(a, "pidfd_open(%d) succeeded (pidfd_getfd: %s)", (int)pid, errname(errno));
	}
	BLOCKED(a, "pidfd_open(host pid): %s", errname(errno));
}

static void pidfd_getfd_child(const char *a, int argc, char **argv)
{
	pid_t c = own_child(a);
	long pfd = syscall(SYS_pidfd_open, c, 0);
	if (pfd < 0) {
		int e = errno;
		reap(c);
		BLOCKED(a, "pidfd_open own child: %s", errname(e));
	}
	long got = syscall(SYS_pidfd_getfd, pfd, 0, 0);
	int e = errno;
	reap(c);
	if (got >= 0)
		ESCAPED(a, "pidfd_getfd allowed (took own child's fd 0): seccomp does not deny it");
	BLOCKED(a, "pidfd_getfd own child: %s", errname(e));
}

static void read_proc_file(const char *a, pid_t pid, const char *file)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		BLOCKED(a, "open %s: %s", path, errname(errno));
	if (strcmp(file, "mem") == 0) {
		/* Read at a mapped address: find one in /proc/PID/maps. */
		char mpath[64], line[256];
		unsigned long lo = 0;
		snprintf(mpath, sizeof mpath, "/proc/%d/maps", (int)pid);
		FILE *m = fopen(mpath, "re");
		if (m && fgets(line, sizeof line, m))
			sscanf(line, "%lx-", &lo);
		if (m)
			fclose(m);
		ssize_t n = pread(fd, buf, sizeof buf, (off_t)lo);
		if (n > 0)
			ESCAPED(a, "read %zd bytes of %s at 0x%lx", n, path, lo);
		ESCAPED(a, "opened %s (pread: %s)", path, n < 0 ? errname(errno) : "0 bytes");
	}
	ssize_t n = read(fd, buf, sizeof buf);
	if (n > 0)
		ESCAPED(a, "read %zd bytes of %s", n, path);
	if (n < 0)
		BLOCKED(a, "opened %s but read: %s", path, errname(errno));
	BLOCKED(a, "opened %s but it was empty", path);
}

static void proc_mem(const char *a, int argc, char **argv)
{
	read_proc_file(a, arg_pid(a, argc, argv), "mem");
}

static void proc_environ(const char *a, int argc, char **argv)
{
	read_proc_file(a, arg_pid(a, argc, argv), "environ");
}

static void proc_scan(const char *a, int argc, char **argv)
{
	const char *marker = arg_str(a, argc, argv, 2);
	DIR *d = opendir("/proc");
	struct dirent *e;
	int seen = 0;

	if (!d)
		BLOCKED(a, "opendir /proc: %s", errname(errno));
	while ((e = readdir(d))) {
		char path[300], buf[4096];
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		seen++;
		snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] == 0)
				buf[i] = ' ';
		buf[n] = 0;
		if (strstr(buf, marker) && strstr(buf, "procs") == NULL)
			ESCAPED(a, "host process visible: /proc/%s is the victim", e->d_name);
	}
	closedir(d);
	BLOCKED(a, "victim not visible; %d pids in /proc", seen);
}

static void kill_victim(const char *a, int argc, char **argv)
{
	pid_t pid = arg_pid(a, argc, argv);
	if (kill(pid, SIGKILL) == 0)
		ESCAPED(a, "kill(%d, SIGKILL) succeeded", (int)pid);
	BLOCKED(a, "kill(host pid, SIGKILL): %s", errname(errno));
}

/* kill(-1, SIGKILL) from an unconfined root would take the whole machine
 * down, the test runner included. So probe first with signal 0, which checks
 * reachability without sending anything: if anything is reachable, that is
 * the escape and no real signal is sent. Only when nothing is reachable does
 * the real SIGKILL go out, where it can hurt nobody. */
static void kill_all(const char *a, int argc, char **argv)
{
	if (kill(-1, 0) == 0)
		ESCAPED(a, "kill(-1, 0) reaches other processes (SIGKILL not sent)");
	int e = errno;
	if (kill(-1, SIGKILL) == 0)
		ESCAPED(a, "kill(-1, SIGKILL) succeeded");
	BLOCKED(a, "kill(-1): %s / %s", errname(e), errname(errno));
}

static void sysv_shm(const char *a, int argc, char **argv)
{
	int id = (int)arg_long(a, arg_str(a, argc, argv, 2));
	const char *p = shmat(id, NULL, SHM_RDONLY);
	if (p == (void *)-1)
		BLOCKED(a, "shmat(%d): %s", id, errname(errno));
	if (!strncmp(p, "tc-escape", 9))
		ESCAPED(a, "attached the host's segment %d and read its marker", id);
	BLOCKED(a, "attached segment %d, but not the host's (no marker)", id);
}

static void shm_make(const char *a, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0666);
	char *p = id < 0 ? (void *)-1 : shmat(id, NULL, 0);
	if (p == (void *)-1)
		TESTERR(a, "shmget/shmat: %s", errname(errno));
	strcpy(p, "tc-escape shared memory canary");
	printf("%d\n", id);
	exit(0);
}

static void posix_mq(const char *a, int argc, char **argv)
{
	const char *name = arg_str(a, argc, argv, 2);
	mqd_t q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, NULL);
	if (q == (mqd_t)-1)
		BLOCKED(a, "mq_open(%s): %s", name, errname(errno));
	mq_close(q);
	mq_unlink(name);
	ESCAPED(a, "created message queue %s", name);
}

int main(int argc, char **argv)
{
	static const struct attack t[] = {
		{ "ptrace_attach", ptrace_attach },
		{ "ptrace_seize", ptrace_seize },
		{ "ptrace_child", ptrace_child },
		{ "vm_readv", vm_readv },
		{ "vm_readv_child", vm_readv_child },
		{ "pidfd_open", pidfd_open_victim },
		{ "pidfd_getfd_child", pidfd_getfd_child },
		{ "proc_mem", proc_mem },
		{ "proc_environ", proc_environ },
		{ "proc_scan", proc_scan },
		{ "kill_victim", kill_victim },
		{ "kill_all", kill_all },
		{ "sysv_shm", sysv_shm },
		{ "posix_mq", posix_mq },
		{ "shm_make", shm_make },
	};
	ATTACKS(t);
}
