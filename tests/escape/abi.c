/* abi.c — foreign syscall ABIs.
 *
 * A seccomp filter is written for one architecture's syscall numbers. An
 * x86_64 process can still enter the kernel through the i386 ABI (int 0x80,
 * different numbers, and socketcall multiplexing every socket operation into
 * one syscall a filter cannot see into) or the x32 ABI (x86_64 numbers with
 * bit 30 set). A filter that does not check the architecture is bypassed
 * this way; the sandbox must kill the process on any foreign ABI.
 *
 *   abi i386_getpid       int 0x80, eax=20 (getpid)
 *   abi i386_socketcall   int 0x80, eax=102 (socketcall SYS_SOCKET AF_INET)
 *   abi x32_getpid        syscall(0x40000000 | 39)
 *   abi x32_ptrace        syscall(0x40000000 | 521): x32's own ptrace, one
 *                         of the numbers (512-547) x32 alone has
 *   abi x32_io_uring      syscall(0x40000000 | 425): io_uring_setup, a call
 *                         the filter denies by its x86_64 number
 *   abi nr_high_bits      syscall((1 << 32) | ptrace): the kernel and
 *                         seccomp both read the low 32 bits of the number;
 *                         the filter must see ptrace (refused, EPERM)
 *
 * Expected: killed by seccomp (the program prints nothing), but for
 * nr_high_bits, which is the x86_64 ABI and gets ptrace's refusal. A
 * verdict line means the call returned: a pid, a socket or a trace is an
 * escape; ENOSYS from the kernel (no IA32/x32 support built in) is
 * blocked, with the detail noting that the filter did not kill. A kernel with IA32 emulation built in but
 * switched off (ia32_emulation=0, or IA32_EMULATION_DEFAULT_DISABLED) has
 * no int 0x80 entry at all: the instruction faults with SIGSEGV before any
 * filter runs. That is blocked too, and the detail says the filter's
 * architecture check was not exercised here.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include "verdict.h"

#ifdef __x86_64__
static sigjmp_buf no_entry;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(no_entry, 1);
}

/* A seccomp kill is SIGSYS and cannot be caught; only the kernel's own
 * refusal of the entry (a general protection fault, SIGSEGV) lands here. */
static long int80(const char *a, long nr, long a1, long a2, long a3)
{
	struct sigaction sa = { .sa_handler = on_segv };
	long ret;

	if (sigsetjmp(no_entry, 1))
		BLOCKED(a,
		        "int 0x80 raised SIGSEGV: this kernel has no i386 syscall entry "
		        "(ia32 emulation off), so the filter's architecture check was not "
		        "exercised");
	sigaction(SIGSEGV, &sa, NULL);
	__asm__ volatile("int $0x80"
	                 : "=a"(ret)
	                 : "a"(nr), "b"(a1), "c"(a2), "d"(a3)
	                 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

static void i386_getpid(const char *a, int argc, char **argv)
{
	long r = int80(a, 20, 0, 0, 0);
	if (r > 0)
		ESCAPED(a, "i386 getpid via int 0x80 returned %ld (not killed)", r);
	BLOCKED(a, "int 0x80 getpid returned %s (refused, but the filter did not kill)",
	        errname((int)-r));
}

static void i386_socketcall(const char *a, int argc, char **argv)
{
	/* socketcall takes a 32-bit pointer to its arguments: put them below
	 * 4 GiB. */
	unsigned *args = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (args == MAP_FAILED)
		TESTERR(a, "mmap MAP_32BIT: %s", errname(errno));
	args[0] = AF_INET;
	args[1] = SOCK_STREAM;
	args[2] = 0;
	long r = int80(a, 102, 1 /* SYS_SOCKET */, (long)(unsigned long)args, 0);
	if (r >= 0)
		ESCAPED(a, "i386 socketcall(SYS_SOCKET, AF_INET) gave fd %ld", r);
	if (r == -ENOSYS || r == -EPERM)
		BLOCKED(a, "int 0x80 socketcall: %s (refused, but the filter did not kill)",
		        errname((int)-r));
	ESCAPED(a, "i386 socketcall reached the kernel: %s (not killed)", errname((int)-r));
}

static void x32_getpid(const char *a, int argc, char **argv)
{
	long r = syscall(0x40000000L | 39);
	if (r > 0)
		ESCAPED(a, "x32 getpid returned %ld (not killed)", r);
	BLOCKED(a, "x32 getpid: %s (refused, but the filter did not kill)", errname(errno));
}

static void x32_ptrace(const char *a, int argc, char **argv)
{
	long r = syscall(0x40000000L | 521, 0 /* PTRACE_TRACEME */, 0, 0, 0);
	if (r == 0)
		ESCAPED(a, "x32 ptrace(PTRACE_TRACEME) succeeded (not killed)");
	BLOCKED(a, "x32 ptrace: %s (refused, but the filter did not kill)", errname(errno));
}

static void x32_io_uring(const char *a, int argc, char **argv)
{
	unsigned char params[120] = { 0 };
	long r = syscall(0x40000000L | 425, 1, params);
	if (r >= 0)
		ESCAPED(a, "x32 io_uring_setup gave fd %ld (not killed)", r);
	BLOCKED(a, "x32 io_uring_setup: %s (refused, but the filter did not kill)", errname(errno));
}

static void nr_high_bits(const char *a, int argc, char **argv)
{
	long r = syscall((1L << 32) | SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0);
	if (r == 0)
		ESCAPED(a, "syscall(1<<32 | ptrace) PTRACE_TRACEME succeeded");
	BLOCKED(a, "syscall(1<<32 | ptrace): %s", errname(errno));
}
#else
static void unsupported(const char *a, int argc, char **argv)
{
	TESTERR(a, "foreign-ABI attacks are written for x86_64 only");
}
#define i386_getpid     unsupported
#define i386_socketcall unsupported
#define x32_getpid      unsupported
#define x32_ptrace      unsupported
#define x32_io_uring    unsupported
#define nr_high_bits    unsupported
#endif

int main(int argc, char **argv)
{
	static const struct attack t[] = {
		{ "i386_getpid", i386_getpid },   { "i386_socketcall", i386_socketcall },
		{ "x32_getpid", x32_getpid },     { "x32_ptrace", x32_ptrace },
		{ "x32_io_uring", x32_io_uring }, { "nr_high_bits", nr_high_bits },
	};
	ATTACKS(t);
}
