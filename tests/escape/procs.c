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
 *   procs stop_victim PID        kill(victim, SIGSTOP): the owner's shell
 *                                stopped
 *   procs tkill_victim PID       tkill(victim, SIGKILL)
 *   procs tgkill_victim PID      tgkill(victim, victim, SIGKILL)
 *   procs sigqueue_victim PID    sigqueue(victim, SIGKILL)
 *   procs setown_victim PID      SIGIO's owner set to the victim, with
 *                                F_SETSIG SIGKILL: the kernel would send it
 *                                (the victim's state judges)
 *   procs proc_pidfd PID         /proc/PID opened O_PATH, then
 *                                pidfd_send_signal(fd, 0)
 *   procs prlimit_victim PID     prlimit on the victim (its own limit put
 *                                back: a change would be the escape)
 *   procs setpriority_victim PID setpriority(PRIO_PROCESS, victim, 19)
 *   procs affinity_victim PID    sched_setaffinity(victim, its own mask)
 *   procs ioprio_victim PID      ioprio_set on the victim (its own class)
 *   procs cpuclock_victim PID    the victim's CPU-time clock read, or a
 *                                timer made on it (the kernel checks no
 *                                permission: its CPU use, as it runs)
 *   procs cpuclock_own           control: the tool's own process and
 *                                thread clocks (clock_getcpuclockid(0),
 *                                pthread_getcpuclockid) still work
 *   procs kill_own_child         controls: signals to the tool's own
 *   procs tgkill_own             processes work (kill, tgkill from a
 *   procs kill_own_thread        child of ours, kill of a thread's id,
 *   procs sigqueue_own_child     sigqueue with its value)
 *   procs clone_parent           clone(CLONE_PARENT): a process of the tool
 *                                made the child of the tool's parent (the
 *                                supervisor, where no pid namespace holds
 *                                the tool), which never reaps it
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
#include <pthread.h>
#include <sys/resource.h>
#include <sched.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
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

static void stop_victim(const char *a, int argc, char **argv)
{
	pid_t pid = arg_pid(a, argc, argv);
	if (kill(pid, SIGSTOP) == 0)
		ESCAPED(a, "kill(%d, SIGSTOP) succeeded", (int)pid);
	BLOCKED(a, "kill(host pid, SIGSTOP): %s", errname(errno));
}

static void tkill_victim(const char *a, int argc, char **argv)
{
	pid_t pid = arg_pid(a, argc, argv);
	if (syscall(SYS_tkill, pid, SIGKILL) == 0)
		ESCAPED(a, "tkill(%d, SIGKILL) succeeded", (int)pid);
	BLOCKED(a, "tkill(host pid): %s", errname(errno));
}

static void tgkill_victim(const char *a, int argc, char **argv)
{
	pid_t pid = arg_pid(a, argc, argv);
	if (syscall(SYS_tgkill, pid, pid, SIGKILL) == 0)
		ESCAPED(a, "tgkill(%d, %d, SIGKILL) succeeded", (int)pid, (int)pid);
	BLOCKED(a, "tgkill(host pid): %s", errname(errno));
}

static void sigqueue_victim(const char *a, int argc, char **argv)
{
	pid_t pid = arg_pid(a, argc, argv);
	if (sigqueue(pid, SIGKILL, (union sigval){ .sival_int = 1 }) == 0)
		ESCAPED(a, "sigqueue(%d, SIGKILL) succeeded", (int)pid);
	BLOCKED(a, "sigqueue(host pid): %s", errname(errno));
}

/* The kernel sends SIGIO (here SIGKILL, by F_SETSIG) to the owner when
 * the pipe becomes readable: whether it may is judged at the send, so
 * only the victim's state tells (the runner's victim check). */
static void setown_victim(const char *a, int argc, char **argv)
{
	pid_t pid = arg_pid(a, argc, argv);
	int p[2];
	if (pipe(p) < 0)
		TESTERR(a, "pipe: %s", errname(errno));
	if (fcntl(p[0], F_SETOWN, pid) < 0)
		BLOCKED(a, "fcntl(F_SETOWN, host pid): %s", errname(errno));
	if (fcntl(p[0], F_SETSIG, SIGKILL) < 0 ||
	    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_ASYNC) < 0)
		TESTERR(a, "F_SETSIG/O_ASYNC: %s", errname(errno));
	(void)!write(p[1], "x", 1);
	usleep(100000);
	BLOCKED(a,
	        "F_SETOWN to the host pid was taken; the signal is the kernel's to "
	        "refuse (the victim's state judges)");
}

/* pidfd_send_signal takes a /proc/PID directory's fd as a pidfd: an O_PATH
 * open is not checked by Landlock, but such an fd is no pidfd. */
static void proc_pidfd(const char *a, int argc, char **argv)
{
	pid_t pid = arg_pid(a, argc, argv);
	char path[64];
	snprintf(path, sizeof path, "/proc/%d", (int)pid);
	int e1 = 0, e2 = 0;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0) == 0)
		ESCAPED(a, "pidfd_send_signal through %s (O_RDONLY) reached the victim", path);
	e1 = errno;
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0) == 0)
		ESCAPED(a, "pidfd_send_signal through %s (O_PATH) reached the victim", path);
	e2 = errno;
	BLOCKED(a, "%s: %s / O_PATH: %s", path, errname(e1), errname(e2));
}

static void prlimit_victim(const char *a, int argc, char **argv)
{
	pid_t pid = arg_pid(a, argc, argv);
	struct rlimit old;
	if (prlimit(pid, RLIMIT_CORE, NULL, &old) < 0)
		BLOCKED(a, "prlimit(host pid) read: %s", errname(errno));
	if (prlimit(pid, RLIMIT_CORE, &old, NULL) == 0)
		ESCAPED(a, "prlimit(%d, RLIMIT_CORE) set (to its own value)", (int)pid);
	BLOCKED(a, "prlimit(host pid) set: %s", errname(errno));
}

static void setpriority_victim(const char *a, int argc, char **argv)
{
	pid_t pid = arg_pid(a, argc, argv);
	if (setpriority(PRIO_PROCESS, (id_t)pid, 19) == 0)
		ESCAPED(a, "setpriority(PRIO_PROCESS, %d, 19) succeeded", (int)pid);
	BLOCKED(a, "setpriority(host pid): %s", errname(errno));
}

static void affinity_victim(const char *a, int argc, char **argv)
{
	pid_t pid = arg_pid(a, argc, argv);
	cpu_set_t set;
	if (sched_getaffinity(pid, sizeof set, &set) < 0)
		BLOCKED(a, "sched_getaffinity(host pid): %s", errname(errno));
	if (sched_setaffinity(pid, sizeof set, &set) == 0)
		ESCAPED(a, "sched_setaffinity(%d) succeeded (its own mask)", (int)pid);
	BLOCKED(a, "sched_setaffinity(host pid): %s", errname(errno));
}

static void ioprio_victim(const char *a, int argc, char **argv)
{
	pid_t pid = arg_pid(a, argc, argv);
	long prio = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, pid);
	if (prio < 0)
		BLOCKED(a, "ioprio_get(host pid): %s", errname(errno));
	if (syscall(SYS_ioprio_set, 1, pid, prio) == 0)
		ESCAPED(a, "ioprio_set(%d) succeeded (its own class)", (int)pid);
	BLOCKED(a, "ioprio_set(host pid): %s", errname(errno));
}

/* Controls: what a tool does to its own processes must keep working. A
 * "blocked" verdict here is a failure (the table's A). */
static void kill_own_child(const char *a, int argc, char **argv)
{
	(void)argc, (void)argv;
	pid_t c = own_child(a);
	if (kill(c, SIGTERM) < 0)
		BLOCKED(a, "kill(own child, SIGTERM): %s", errname(errno));
	int st;
	if (waitpid(c, &st, 0) != c || !WIFSIGNALED(st) || WTERMSIG(st) != SIGTERM)
		BLOCKED(a, "own child not ended by SIGTERM");
	ESCAPED(a, "kill(own child, SIGTERM) worked");
}

static volatile sig_atomic_t got_sig, got_value;

static void on_sig(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	got_sig = sig;
	got_value = si->si_value.sival_int;
}

static void catch_usr1(void)
{
	struct sigaction sa = { .sa_sigaction = on_sig, .sa_flags = SA_SIGINFO };
	sigaction(SIGUSR1, &sa, NULL);
}

/* tgkill to a thread of our own, from a child (not the group's leader). */
static void tgkill_own(const char *a, int argc, char **argv)
{
	(void)argc, (void)argv;
	catch_usr1();
	pid_t c = fork();
	if (c == 0) {
		long rc = syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR1);
		_exit(rc == 0 && got_sig == SIGUSR1 ? 0 : 1);
	}
	int st;
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
		BLOCKED(a, "tgkill to our own thread did not deliver SIGUSR1");
	ESCAPED(a, "tgkill(own, own thread, SIGUSR1) worked");
}

static volatile pid_t thread_tid;

static void *idle_thread(void *arg)
{
	thread_tid = (pid_t)syscall(SYS_gettid);
	for (int i = 0; i < 500 && !got_sig; i++)
		usleep(10000);
	return arg;
}

/* kill() of one of our own threads' ids: the kernel signals the process. */
static void kill_own_thread(const char *a, int argc, char **argv)
{
	(void)argc, (void)argv;
	catch_usr1();
	pthread_t t;
	if (pthread_create(&t, NULL, idle_thread, NULL))
		TESTERR(a, "pthread_create");
	while (!thread_tid)
		usleep(1000);
	if (kill(thread_tid, SIGUSR1) < 0)
		BLOCKED(a, "kill(own thread id, SIGUSR1): %s", errname(errno));
	pthread_join(t, NULL);
	if (got_sig != SIGUSR1)
		BLOCKED(a, "SIGUSR1 to our own thread's id never came");
	ESCAPED(a, "kill(own thread id, SIGUSR1) worked");
}

static void sigqueue_own_child(const char *a, int argc, char **argv)
{
	(void)argc, (void)argv;
	catch_usr1();
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	pid_t c = fork();
	if (c == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		for (int i = 0; i < 500 && !got_sig; i++)
			usleep(10000);
		_exit(got_sig == SIGUSR1 && got_value == 42 ? 0 : 1);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (c < 0 || sigqueue(c, SIGUSR1, (union sigval){ .sival_int = 42 }) < 0)
		BLOCKED(a, "sigqueue(own child): %s", errname(errno));
	int st;
	if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
		BLOCKED(a, "own child did not get SIGUSR1 with its value");
	ESCAPED(a, "sigqueue(own child, SIGUSR1, 42) worked");
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

/* A child made as our parent's: it says who its parent is. */
static void clone_parent(const char *a, int argc, char **argv)
{
	(void)argc, (void)argv;
	int p[2];
	if (pipe(p) < 0)
		TESTERR(a, "pipe: %s", errname(errno));
	long c = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
	if (c < 0)
		BLOCKED(a, "clone(CLONE_PARENT): %s", errname(errno));
	if (c == 0) {
		pid_t pp = getppid();
		_exit(write(p[1], &pp, sizeof pp) == (ssize_t)sizeof pp ? 0 : 1);
	}
	close(p[1]);
	pid_t pp = 0;
	if (read(p[0], &pp, sizeof pp) != (ssize_t)sizeof pp)
		TESTERR(a, "the child said nothing");
	if (pp == getpid())
		BLOCKED(a, "the child is ours (CLONE_PARENT ignored)");
	ESCAPED(a, "pid %ld made as a child of pid %d (our parent: %d), not ours", c, (int)pp,
	        (int)getppid());
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

/* clock_getcpuclockid's id for pid (CPUCLOCK_SCHED): glibc's own
 * computes it so, then checks it with clock_getres. */
static clockid_t process_clock(pid_t pid)
{
	return (clockid_t)(((unsigned)~pid << 3) | 2);
}

static void cpuclock_victim(const char *a, int argc, char **argv)
{
	pid_t pid = arg_pid(a, argc, argv);
	struct timespec ts;
	if (clock_gettime(process_clock(pid), &ts) == 0)
		ESCAPED(a, "the victim's CPU time read: %lld.%09ld s", (long long)ts.tv_sec,
		        ts.tv_nsec);
	int e1 = errno;
	struct sigevent ev = { .sigev_notify = SIGEV_NONE };
	timer_t t;
	if (syscall(SYS_timer_create, process_clock(pid), &ev, &t) == 0)
		ESCAPED(a, "a timer made on the victim's CPU clock");
	BLOCKED(a, "clock_gettime: %s / timer_create: %s", errname(e1), errname(errno));
}

static void cpuclock_own(const char *a, int argc, char **argv)
{
	(void)argc, (void)argv;
	clockid_t own, thread;
	struct timespec ts;
	int rc = clock_getcpuclockid(0, &own);
	if (rc)
		BLOCKED(a, "clock_getcpuclockid(0): %s", errname(rc));
	if (clock_gettime(own, &ts) < 0)
		BLOCKED(a, "clock_gettime(own process clock): %s", errname(errno));
	rc = pthread_getcpuclockid(pthread_self(), &thread);
	if (rc)
		BLOCKED(a, "pthread_getcpuclockid: %s", errname(rc));
	if (clock_gettime(thread, &ts) < 0)
		BLOCKED(a, "clock_gettime(own thread clock): %s", errname(errno));
	ESCAPED(a, "own process and thread CPU clocks read");
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
		{ "stop_victim", stop_victim },
		{ "tkill_victim", tkill_victim },
		{ "tgkill_victim", tgkill_victim },
		{ "sigqueue_victim", sigqueue_victim },
		{ "setown_victim", setown_victim },
		{ "proc_pidfd", proc_pidfd },
		{ "prlimit_victim", prlimit_victim },
		{ "setpriority_victim", setpriority_victim },
		{ "affinity_victim", affinity_victim },
		{ "ioprio_victim", ioprio_victim },
		{ "cpuclock_victim", cpuclock_victim },
		{ "cpuclock_own", cpuclock_own },
		{ "kill_own_child", kill_own_child },
		{ "tgkill_own", tgkill_own },
		{ "kill_own_thread", kill_own_thread },
		{ "sigqueue_own_child", sigqueue_own_child },
		{ "clone_parent", clone_parent },
		{ "sysv_shm", sysv_shm },
		{ "posix_mq", posix_mq },
		{ "shm_make", shm_make },
	};
	ATTACKS(t);
}
