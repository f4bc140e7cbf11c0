/* tty.c — terminal injection.
 *
 * TIOCSTI pushes bytes into a terminal's input queue: a tool holding the
 * user's terminal could type commands into the shell that started the agent.
 * TIOCLINUX can do the same through the console selection (paste). The
 * sandbox must deny both in seccomp, comparing the low 32 bits of the
 * command, since the kernel truncates the 64-bit argument to an unsigned int:
 * 0xffffffff00005412 is TIOCSTI to the kernel but a different number to a
 * filter that compares all 64 bits.
 *
 *   tty tiocsti          ioctl(tty, TIOCSTI, "x")
 *   tty tiocsti_hibits   the same with 0xffffffff00005412
 *   tty tioclinux        ioctl(tty, TIOCLINUX, {TIOCL_PASTESEL})
 *
 * Two steps. First a real terminal if one is reachable (fds 0-2, /dev/tty,
 * or a new pty from /dev/ptmx, where an injection harms nobody): success is
 * an escape. Then a pipe, to test the filter alone: on a non-terminal the
 * kernel answers ENOTTY, so EPERM can only come from seccomp, and ENOTTY
 * means the filter let the command through. That is reported as escaped
 * (the filter has the hole; only a missing terminal or the kernel's
 * dev.tty.legacy_tiocsti=0 saved us), with the detail saying so.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <termios.h>
#include "verdict.h"

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* Find a terminal: returns an fd and a label. */
static int find_tty(const char **label)
{
	for (int fd = 0; fd <= 2; fd++)
		if (isatty(fd)) {
			*label = "inherited terminal";
			return fd;
		}
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0) {
		*label = "/dev/tty";
		return fd;
	}
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0) {
		char *name = ptsname(m);
		int s = name ? open(name, O_RDWR | O_NOCTTY | O_CLOEXEC) : -1;
		if (s >= 0) {
			*label = "own pty";
			return s;
		}
	}
	*label = "fd 0 (no terminal reachable)";
	return 0;
}

static void try_ioctl(const char *a, unsigned long cmd, void *arg)
{
	const char *label;
	int fd = find_tty(&label), p[2];
	/* Raw syscall: the full 64-bit cmd reaches the filter untouched. */
	long rc = syscall(SYS_ioctl, fd, cmd, arg);
	int tty_errno = errno;
	if (rc == 0)
		ESCAPED(a, "ioctl 0x%lx on %s succeeded", cmd, label);
	/* Now the filter alone: on a pipe the kernel can only say ENOTTY. */
	if (pipe2(p, O_CLOEXEC) < 0)
		TESTERR(a, "pipe2: %s", errname(errno));
	rc = syscall(SYS_ioctl, p[0], cmd, arg);
	int e = errno;
	if (rc == 0)
		ESCAPED(a, "ioctl 0x%lx on a pipe succeeded?", cmd);
	if (e == EPERM)
		BLOCKED(a, "filter: EPERM; on %s: %s", label, errname(tty_errno));
	if (e == ENOTTY || e == EINVAL)
		ESCAPED(a, "filter passed ioctl 0x%lx (pipe: %s; on %s: %s)", cmd, errname(e),
		        label, errname(tty_errno));
	BLOCKED(a, "pipe: %s; on %s: %s", errname(e), label, errname(tty_errno));
}

static void tiocsti(const char *a, int argc, char **argv)
{
	char c = '#';
	try_ioctl(a, TIOCSTI, &c);
}

static void tiocsti_hibits(const char *a, int argc, char **argv)
{
	char c = '#';
	try_ioctl(a, 0xffffffff00000000ul | TIOCSTI, &c);
}

static void tioclinux(const char *a, int argc, char **argv)
{
	char sub = 3; /* TIOCL_PASTESEL */
	try_ioctl(a, TIOCLINUX, &sub);
}

int main(int argc, char **argv)
{
	static const struct attack t[] = {
		{ "tiocsti", tiocsti },
		{ "tiocsti_hibits", tiocsti_hibits },
		{ "tioclinux", tioclinux },
	};
	ATTACKS(t);
}
