/* helper_bpf.h — a small classic-BPF interpreter for seccomp programs, so
 * unit tests can ask a compiled filter "what happens to this syscall?"
 * without loading it into the kernel (the libseccomp simulator idea).
 *
 * It runs only what a seccomp program may contain and what libseccomp
 * emits; anything else is reported as an invalid program rather than
 * guessed at, so a filter that changes shape makes tests fail loudly. */
#ifndef TC_TEST_HELPER_BPF_H
#define TC_TEST_HELPER_BPF_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>

/* Runs prog (len instructions) on d. Returns 0 with the program's return
 * value in *ret, or -1 with a message in err (errlen bytes, always
 * NUL-terminated) when the program is invalid: an unknown opcode, a load
 * outside struct seccomp_data or misaligned, a jump out of range, falling
 * off the end. Checks the whole program the way the kernel's checker does
 * (bpf_check_classic + seccomp_check_filter) before running it. */
int bpf_run(const struct sock_filter *prog, size_t len, const struct seccomp_data *d, uint32_t *ret,
            char *err, size_t errlen);

/* The action part of a seccomp return value, and its data (errno). */
static inline uint32_t bpf_action(uint32_t ret)
{
	return ret & SECCOMP_RET_ACTION_FULL;
}
static inline uint32_t bpf_data(uint32_t ret)
{
	return ret & SECCOMP_RET_DATA;
}

#endif
