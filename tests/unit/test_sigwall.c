/* test_sigwall.c — the signal wall without a pid namespace (sandbox/sigwall.c):
 * its filter's answers as tables, run through the classic-BPF interpreter
 * (helper_bpf.c), and its listener served for real: a child under the
 * filter signals a process of its own group (sent by the supervisor's side)
 * and one outside (refused), and the victim outside is untouched. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helper_bpf.h"
#include "internal.h"

#if defined(__x86_64__)

#define ALLOW  SECCOMP_RET_ALLOW
#define NOTIFY SECCOMP_RET_USER_NOTIF
#define ERR(e) (SECCOMP_RET_ERRNO | (e))
#define P      4242

static uint32_t run(bool notify, int nr, int64_t a0, int64_t a1, int64_t a2)
{
	struct sock_filter f[192];
	int n = sigwall_filter(f, sizeof f / sizeof f[0], P, notify);
	assert_true(n > 0);
	struct seccomp_data d;
	memset(&d, 0, sizeof d);
	d.nr = nr;
	d.arch = AUDIT_ARCH_X86_64;
	d.args[0] = (uint64_t)a0;
	d.args[1] = (uint64_t)a1;
	d.args[2] = (uint64_t)a2;
	uint32_t ret = 0;
	char err[160];
	if (bpf_run(f, (size_t)n, &d, &ret, err, sizeof err) < 0)
		fail_msg("filter does not run: %s", err);
	return ret;
}

static void test_kill_stays_in_the_group(void **state)
{
	(void)state;
	for (int notify = 0; notify < 2; notify++) {
		assert_int_equal(run(notify, SYS_kill, 0, SIGTERM, 0), ALLOW);
		assert_int_equal(run(notify, SYS_kill, P, SIGTERM, 0), ALLOW);
		assert_int_equal(run(notify, SYS_kill, -P, SIGTERM, 0), ALLOW);
		assert_int_equal(run(notify, SYS_kill, -1, SIGKILL, 0), ERR(EPERM));
		assert_int_equal(run(notify, SYS_kill, -(P + 1), SIGKILL, 0), ERR(EPERM));
		/* the kernel reads the pid's low 32 bits alone */
		assert_int_equal(run(notify, SYS_kill, (int64_t)0x100000000LL | 0xffffffffLL, 9, 0),
		                 ERR(EPERM));
		assert_int_equal(run(notify, SYS_kill, 1, SIGKILL, 0), notify ? NOTIFY : ALLOW);
		assert_int_equal(run(notify, SYS_rt_sigqueueinfo, -1, SIGKILL, 0), ERR(EPERM));
	}
	assert_int_equal(run(true, SYS_tgkill, 1, 1, SIGKILL), NOTIFY);
	assert_int_equal(run(true, SYS_tkill, 1, SIGKILL, 0), NOTIFY);
	assert_int_equal(run(true, SYS_rt_tgsigqueueinfo, 1, 1, SIGKILL), NOTIFY);
	assert_int_equal(run(false, SYS_tgkill, 1, 1, SIGKILL), ALLOW);
}

static void test_other_processes_resources_refused(void **state)
{
	(void)state;
	static const int nrs[] = { SYS_prlimit64,          SYS_sched_setaffinity,
		                   SYS_sched_setscheduler, SYS_sched_setparam,
		                   SYS_sched_setattr,      SYS_migrate_pages,
		                   SYS_move_pages };
	for (int notify = 0; notify < 2; notify++) {
		for (size_t i = 0; i < sizeof nrs / sizeof nrs[0]; i++) {
			assert_int_equal(run(notify, nrs[i], 0, 0, 0), ALLOW);
			assert_int_equal(run(notify, nrs[i], P, 0, 0), ALLOW);
			assert_int_equal(run(notify, nrs[i], 1, 0, 0), ERR(EPERM));
		}
		assert_int_equal(run(notify, SYS_setpriority, PRIO_PROCESS, 0, 19), ALLOW);
		assert_int_equal(run(notify, SYS_setpriority, PRIO_PGRP, P, 19), ALLOW);
		assert_int_equal(run(notify, SYS_setpriority, PRIO_PROCESS, 1, 19), ERR(EPERM));
		assert_int_equal(run(notify, SYS_setpriority, PRIO_USER, 0, 19), ERR(EPERM));
		assert_int_equal(run(notify, SYS_ioprio_set, 3 /* user */, 0, 0), ERR(EPERM));
		assert_int_equal(run(notify, SYS_ioprio_set, 1, 1, 0), ERR(EPERM));
		assert_int_equal(run(notify, SYS_ioprio_set, 1, 0, 0), ALLOW);
	}
}

static void test_pidfds_and_sigio_owners_without_scoping(void **state)
{
	(void)state;
	/* No pidfd with or without Landlock's scoping: it would tell an
	 * outside process's liveness and exit. */
	for (int notify = 0; notify < 2; notify++) {
		assert_int_equal(run(notify, SYS_pidfd_open, 1, 0, 0), ERR(ENOSYS));
		assert_int_equal(run(notify, SYS_getsockopt, 3, SOL_SOCKET, 77 /* SO_PEERPIDFD */),
		                 ERR(EPERM));
		assert_int_equal(run(notify, SYS_setsockopt, 3, SOL_SOCKET, 76 /* SO_PASSPIDFD */),
		                 ERR(EPERM));
		assert_int_equal(run(notify, SYS_getsockopt, 3, SOL_SOCKET, SO_PEERCRED), ALLOW);
	}
	assert_int_equal(run(false, SYS_fcntl, 3, F_SETOWN, 1), ALLOW);
	assert_int_equal(run(true, SYS_fcntl, 3, F_SETOWN, 1), ERR(EPERM));
	assert_int_equal(run(true, SYS_fcntl, 3, F_SETOWN, -P), ALLOW);
	assert_int_equal(run(true, SYS_fcntl, 3, F_SETOWN, 0), ALLOW);
	assert_int_equal(run(true, SYS_fcntl, 3, F_SETOWN_EX, 0), ERR(EPERM));
	assert_int_equal(run(true, SYS_fcntl, 3, F_GETFL, 0), ALLOW);
	assert_int_equal(run(true, SYS_ioctl, 3, 0x8901 /* FIOSETOWN */, 0), ERR(EPERM));
	assert_int_equal(run(true, SYS_ioctl, 3, 0x8902 /* SIOCSPGRP */, 0), ERR(EPERM));
	assert_int_equal(run(true, SYS_getpid, 0, 0, 0), ALLOW);
}

/* clock_getcpuclockid's id of pid's process clock c (0 prof, 1 virt,
 * 2 sched), and pthread_getcpuclockid's of thread tid. */
#define PROCESS_CLOCK(pid, c) ((int64_t)(int32_t)(((uint32_t) ~(pid) << 3) | (c)))
#define THREAD_CLOCK(tid)     ((int64_t)(int32_t)(((uint32_t) ~(tid) << 3) | 4 | 2))

static void test_cpu_clocks_of_other_processes_refused(void **state)
{
	(void)state;
	static const int nrs[] = { SYS_clock_gettime, SYS_clock_getres, SYS_clock_nanosleep,
		                   SYS_timer_create };
	for (int notify = 0; notify < 2; notify++)
		for (size_t i = 0; i < sizeof nrs / sizeof nrs[0]; i++) {
			int nr = nrs[i];
			assert_int_equal(run(notify, nr, CLOCK_MONOTONIC, 0, 0), ALLOW);
			assert_int_equal(run(notify, nr, CLOCK_PROCESS_CPUTIME_ID, 0, 0), ALLOW);
			for (int c = 0; c < 3; c++) {
				assert_int_equal(run(notify, nr, PROCESS_CLOCK(0, c), 0, 0), ALLOW);
				assert_int_equal(run(notify, nr, PROCESS_CLOCK(P, c), 0, 0), ALLOW);
				assert_int_equal(run(notify, nr, PROCESS_CLOCK(1, c), 0, 0),
				                 ERR(EPERM));
				assert_int_equal(run(notify, nr, PROCESS_CLOCK(P + 1, c), 0, 0),
				                 ERR(EPERM));
			}
			/* the kernel reads the id's low 32 bits alone */
			assert_int_equal(run(notify, nr, PROCESS_CLOCK(1, 2) & 0xffffffffLL, 0, 0),
			                 ERR(EPERM));
			/* a thread's clock: the kernel keeps it to the caller's threads */
			assert_int_equal(run(notify, nr, THREAD_CLOCK(1), 0, 0), ALLOW);
			/* a dynamic clock's fd (PTP devices): no process */
			assert_int_equal(run(notify, nr, PROCESS_CLOCK(5, 3), 0, 0), ALLOW);
		}
	/* for real: under the filter, the caller's own clock answers and pid
	 * 1's is refused */
	struct sock_filter f[192];
	int n = sigwall_filter(f, 192, getpid(), false);
	assert_true(n > 0);
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		struct sock_fprog prog = { (unsigned short)n, f };
		struct timespec ts;
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
			_exit(90);
		if (clock_gettime((clockid_t)PROCESS_CLOCK(0, 2), &ts) < 0)
			_exit(91);
		_exit(clock_gettime((clockid_t)PROCESS_CLOCK(1, 2), &ts) < 0 && errno == EPERM ?
		              0 :
		              92);
	}
	int st = 0;
	assert_int_equal(waitpid(c, &st, 0), c);
	assert_true(WIFEXITED(st));
	/* No filter can be loaded here (valgrind does not know seccomp(2)):
	 * the tables above are what is left to check. */
	if (WEXITSTATUS(st) == 90)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* Serves the listener lfd of child c (leading its group) until c has
 * exited, then closes it: c's wait status. The status is c's own even
 * when the listener hangs up first (every process under it gone). */
static int serve_until_exit(int lfd, pid_t c, int *served)
{
	int st = 0;
	pid_t done = 0;
	for (int i = 0; i < 5000 && done != c; i++) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		(void)poll(&p, 1, 10);
		if (sigwall_serve(lfd, c, 64, served) != 0)
			break;
		done = waitpid(c, &st, WNOHANG);
	}
	close(lfd);
	if (done != c)
		assert_int_equal(waitpid(c, &st, 0), c);
	return st;
}

/* In a forked child: leads its own group, loads the filter with a
 * listener and hands the listener over sock. 0, or 90/91: the step that
 * failed. */
static int load_filter_send_listener(int sock)
{
	if (setpgid(0, 0) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return 90;
	struct sock_filter f[192];
	int n = sigwall_filter(f, 192, getpid(), true);
	struct sock_fprog prog = { (unsigned short)n, f };
	long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
	                  &prog);
	int lfd = (int)fd;
	if (fd < 0 || io_send_fds(sock, "L", 1, &lfd, 1) < 0)
		return 91;
	close(lfd);
	return 0;
}

/* Forks a child that loads the filter (load_filter_send_listener), then
 * exits with body(arg); serves its listener until it has exited. Returns
 * the child's wait status; the notifications served in *served. */
static int run_under_filter(int (*body)(pid_t arg), pid_t arg, int *served)
{
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	pid_t c = fork();
	if (c == 0) {
		close(sv[0]);
		int rc = load_filter_send_listener(sv[1]);
		_exit(rc ? rc : body(arg));
	}
	assert_true(c > 0);
	close(sv[1]);
	char b;
	int lfd = -1, nfd = 0;
	assert_int_equal(io_recv_fds(sv[0], &b, 1, &lfd, 1, &nfd, 0), 1);
	assert_int_equal(nfd, 1);
	close(sv[0]);
	*served = 0;
	return serve_until_exit(lfd, c, served);
}

/* Under the filter: kill of a child of its own (must end it), kill,
 * tgkill and SIGSTOP of a process outside its group (refused), pidfd_open
 * (ENOSYS). Exit code: the first check that failed, 0 when all held. */
static int signal_outside(pid_t outside)
{
	pid_t own = fork();
	if (own == 0) {
		pause();
		_exit(0);
	}
	int st;
	if (kill(own, SIGTERM) != 0 || waitpid(own, &st, 0) != own || !WIFSIGNALED(st))
		return 1;
	if (kill(outside, SIGKILL) == 0 || errno != EPERM)
		return 2;
	if (kill(outside, SIGSTOP) == 0 || errno != EPERM)
		return 3;
	if (syscall(SYS_tgkill, outside, outside, SIGKILL) == 0 || errno != EPERM)
		return 4;
	if (kill(-1, 0) == 0 || errno != EPERM)
		return 5;
	if (syscall(SYS_pidfd_open, outside, 0) >= 0 || errno != ENOSYS)
		return 6;
	if (kill(999999999, 0) == 0)
		return 7;
	return 0;
}

static void test_listener_sends_in_the_group_alone(void **state)
{
	(void)state;
	if (!sigwall_usable())
		skip();
	pid_t victim = fork();
	if (victim == 0) {
		pause();
		_exit(0);
	}
	int served = 0;
	int st = run_under_filter(signal_outside, victim, &served);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_true(served >= 5);
	/* The victim outside is neither gone nor stopped. */
	assert_int_equal(waitpid(victim, &st, WNOHANG | WUNTRACED), 0);
	kill(victim, SIGKILL);
	waitpid(victim, &st, 0);
}

/* A sibling thread's signal from a process under the filter (child of
 * the test, leading its group): SIGUSR1 by tgkill(own process, sibling),
 * as pthread_kill sends it. The sibling must take it, sent by the kernel
 * on the caller's behalf (si_pid the caller's), not by the supervisor
 * (the test's pid), which a reused pid could misdirect. */
static volatile sig_atomic_t got_tid, got_pid;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	got_pid = si->si_pid;
	got_tid = (sig_atomic_t)syscall(SYS_gettid);
}

/* Waits for the signal, 10 s at most by the clock: a signal that never
 * comes fails the test (got_tid stays 0), it does not hang it. */
static void *sibling(void *arg)
{
	*(volatile pid_t *)arg = (pid_t)syscall(SYS_gettid);
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		usleep(1000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!got_tid && now.tv_sec - t0.tv_sec < 10);
	return NULL;
}

/* Runs under the filter (run_under_filter); sigaction is not a call the
 * filter watches, so the handler goes in here. */
static int tgkill_sibling(pid_t unused)
{
	(void)unused;
	struct sigaction sa = { .sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO };
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (sigaction(SIGUSR1, &sa, NULL) < 0)
		return 92;
	volatile pid_t tid = 0;
	pthread_t t;
	if (pthread_create(&t, NULL, sibling, (void *)&tid) != 0)
		return 93;
	/* This thread never takes it: only the sibling can. */
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	while (!tid)
		usleep(1000);
	if (syscall(SYS_tgkill, getpid(), tid, SIGUSR1) != 0)
		return 1;
	pthread_join(t, NULL);
	if (got_tid != tid)
		return 2;
	if (got_pid != getpid())
		return 3;
	return 0;
}

static void test_tgkill_in_own_process_is_the_kernels(void **state)
{
	(void)state;
	if (!sigwall_usable())
		skip();
	int served = 0;
	int st = run_under_filter(tgkill_sibling, 0, &served);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(served, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kill_stays_in_the_group),
		cmocka_unit_test(test_other_processes_resources_refused),
		cmocka_unit_test(test_pidfds_and_sigio_owners_without_scoping),
		cmocka_unit_test(test_cpu_clocks_of_other_processes_refused),
		cmocka_unit_test(test_listener_sends_in_the_group_alone),
		cmocka_unit_test(test_tgkill_in_own_process_is_the_kernels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else
static void test_skipped_not_x86_64(void **state)
{
	(void)state;
	skip();
}

int main(void)
{
	fprintf(stderr, "test_sigwall: the tables use x86_64 syscall numbers\n");
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_skipped_not_x86_64) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
