/* linger.c — outliving the call.
 *
 * Nothing a tool starts may be alive once `toolcage exec` returns: not a
 * grandchild that left the session, not a stopped process, not a daemon, not
 * a process that ignores SIGTERM. Each attack names every process it makes
 * with MARK (comm, via PR_SET_NAME; MARK is in argv too), prints its verdict
 * line early (the program cannot see the outcome; it is still running when
 * the call ends) and then waits to be killed. The runner calls it with a
 * short deadline and then scans /proc/[pid]/comm and cmdline from outside:
 * any live process carrying MARK is the escape.
 *
 *   linger setsid MARK WAIT   child: setsid, fork; grandchild sleeps.
 *                             WAIT=1: the parent waits for the deadline;
 *                             WAIT=0: the parent exits at once
 *   linger sigstop MARK       a child stops itself; then the parent does
 *   linger daemon MARK        classic double-fork daemon; parent exits
 *   linger orphan MARK        double fork; the grandchild tries to leave the
 *                             process group (setpgid, then setsid), the
 *                             middle one exits, then the parent: an orphan
 *                             where no pid namespace holds the tree
 *   linger ignore_term MARK   parent and child ignore SIGTERM/INT/HUP/QUIT
 *   linger sleeper MARK       just sleeps (the runner kills toolcage itself)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include "verdict.h"

static void sleep_forever(void)
{
	for (;;)
		sleep(60);
}

/* Print the verdict without exiting: the process has more to do. */
static void note(const char *attack, const char *detail)
{
	printf("\nVERDICT blocked %s %s\n", attack, detail);
	fflush(stdout);
}

static void do_setsid(const char *a, int argc, char **argv)
{
	const char *mark = arg_str(a, argc, argv, 2);
	int wait_deadline = (int)arg_long(a, arg_str(a, argc, argv, 3));
	set_marker(mark);
	pid_t c = fork();
	if (c < 0)
		TESTERR(a, "fork: %s", errname(errno));
	if (c == 0) {
		setsid();
		if (fork() == 0) {
			setsid();
			sleep_forever();
		}
		_exit(0);
	}
	waitpid(c, NULL, 0);
	note(a, "grandchild in its own session is sleeping; runner checks from outside");
	if (wait_deadline)
		sleep_forever();
	_exit(0);
}

static void do_sigstop(const char *a, int argc, char **argv)
{
	const char *mark = arg_str(a, argc, argv, 2);
	set_marker(mark);
	pid_t c = fork();
	if (c < 0)
		TESTERR(a, "fork: %s", errname(errno));
	if (c == 0) {
		raise(SIGSTOP);
		sleep_forever();
	}
	int st;
	waitpid(c, &st, WUNTRACED);
	note(a, "child stopped itself, parent stops too; runner checks from outside");
	raise(SIGSTOP); /* ignored if we are pid 1 of a namespace */
	sleep_forever();
}

static void do_daemon(const char *a, int argc, char **argv)
{
	const char *mark = arg_str(a, argc, argv, 2);
	set_marker(mark);
	note(a, "double-forked daemon started; runner checks from outside");
	pid_t c = fork();
	if (c < 0)
		TESTERR(a, "fork: %s", errname(errno));
	if (c == 0) {
		setsid();
		signal(SIGHUP, SIG_IGN);
		if (fork() != 0)
			_exit(0);
		chdir("/");
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		} else {
			close(0);
			close(1);
			close(2);
		}
		sleep_forever();
	}
	waitpid(c, NULL, 0);
	_exit(0);
}

static void do_orphan(const char *a, int argc, char **argv)
{
	const char *mark = arg_str(a, argc, argv, 2);
	set_marker(mark);
	pid_t c = fork();
	if (c < 0)
		TESTERR(a, "fork: %s", errname(errno));
	if (c == 0) {
		if (fork() != 0)
			_exit(0);
		signal(SIGHUP, SIG_IGN);
		if (setpgid(0, 0) < 0)
			setsid();
		sleep_forever();
	}
	waitpid(c, NULL, 0);
	note(a, "orphaned grandchild sleeping; runner checks from outside");
	_exit(0);
}

static void do_ignore_term(const char *a, int argc, char **argv)
{
	const char *mark = arg_str(a, argc, argv, 2);
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE };
	set_marker(mark);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_IGN);
	if (fork() == 0)
		sleep_forever();
	note(a, "parent and child ignore SIGTERM and friends; runner checks from outside");
	sleep_forever();
}

static void do_sleeper(const char *a, int argc, char **argv)
{
	const char *mark = arg_str(a, argc, argv, 2);
	set_marker(mark);
	if (fork() == 0) {
		setsid();
		sleep_forever();
	}
	note(a, "sleeping with a child; runner kills toolcage and checks from outside");
	sleep_forever();
}

int main(int argc, char **argv)
{
	static const struct attack t[] = {
		{ "setsid", do_setsid },           { "sigstop", do_sigstop },
		{ "daemon", do_daemon },           { "orphan", do_orphan },
		{ "ignore_term", do_ignore_term }, { "sleeper", do_sleeper },
	};
	ATTACKS(t);
}
