/* helper_bpf.c — see helper_bpf.h. Semantics follow the kernel's classic
 * BPF as seccomp restricts it (net/core/filter.c, kernel/seccomp.c): A and
 * X are 32-bit, loads read 32-bit words of struct seccomp_data in host
 * order, jumps go forward only, scratch memory M[0..15] starts at 0. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "helper_bpf.h"

__attribute__((format(printf, 3, 4))) static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The opcodes accepted: everything seccomp_check_filter lets through that
 * libseccomp could emit. */
static int known(uint16_t code)
{
	switch (code) {
	case BPF_LD | BPF_W | BPF_ABS:
	case BPF_LD | BPF_W | BPF_LEN:
	case BPF_LDX | BPF_W | BPF_LEN:
	case BPF_LD | BPF_IMM:
	case BPF_LDX | BPF_IMM:
	case BPF_LD | BPF_MEM:
	case BPF_LDX | BPF_MEM:
	case BPF_ST:
	case BPF_STX:
	case BPF_MISC | BPF_TAX:
	case BPF_MISC | BPF_TXA:
	case BPF_ALU | BPF_AND | BPF_K:
	case BPF_ALU | BPF_AND | BPF_X:
	case BPF_ALU | BPF_OR | BPF_K:
	case BPF_ALU | BPF_OR | BPF_X:
	case BPF_ALU | BPF_ADD | BPF_K:
	case BPF_ALU | BPF_SUB | BPF_K:
	case BPF_ALU | BPF_RSH | BPF_K:
	case BPF_ALU | BPF_LSH | BPF_K:
	case BPF_ALU | BPF_NEG:
	case BPF_JMP | BPF_JA:
	case BPF_JMP | BPF_JEQ | BPF_K:
	case BPF_JMP | BPF_JEQ | BPF_X:
	case BPF_JMP | BPF_JGT | BPF_K:
	case BPF_JMP | BPF_JGT | BPF_X:
	case BPF_JMP | BPF_JGE | BPF_K:
	case BPF_JMP | BPF_JGE | BPF_X:
	case BPF_JMP | BPF_JSET | BPF_K:
	case BPF_JMP | BPF_JSET | BPF_X:
	case BPF_RET | BPF_K:
	case BPF_RET | BPF_A: return 1;
	}
	return 0;
}

static int check(const struct sock_filter *prog, size_t len, char *err, size_t errlen)
{
	if (len == 0 || len > BPF_MAXINSNS)
		return bad(err, errlen, "program length %zu", len);
	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &prog[pc];
		if (!known(f->code))
			return bad(err, errlen, "insn %zu: opcode 0x%04x not supported", pc,
			           f->code);
		if (f->code == (BPF_LD | BPF_W | BPF_ABS) &&
		    (f->k >= sizeof(struct seccomp_data) || (f->k & 3)))
			return bad(err, errlen, "insn %zu: load at offset %u", pc, f->k);
		if ((f->code == (BPF_LD | BPF_MEM) || f->code == (BPF_LDX | BPF_MEM) ||
		     f->code == BPF_ST || f->code == BPF_STX) &&
		    f->k >= BPF_MEMWORDS)
			return bad(err, errlen, "insn %zu: scratch slot %u", pc, f->k);
		if (BPF_CLASS(f->code) == BPF_JMP) {
			size_t far = f->code == (BPF_JMP | BPF_JA) ?
			        f->k :
			        (f->jt > f->jf ? f->jt : f->jf);
			if (far >= len - pc - 1)
				return bad(err, errlen, "insn %zu: jump past the end", pc);
		}
	}
	if (BPF_CLASS(prog[len - 1].code) != BPF_RET)
		return bad(err, errlen, "program does not end in a return");
	return 0;
}

static uint32_t load_word(const struct seccomp_data *d, uint32_t off)
{
	uint32_t w;
	memcpy(&w, (const char *)d + off, sizeof w);
	return w;
}

int bpf_run(const struct sock_filter *prog, size_t len, const struct seccomp_data *d, uint32_t *ret,
            char *err, size_t errlen)
{
	if (check(prog, len, err, errlen) < 0)
		return -1;
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS] = { 0 };
	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &prog[pc];
		uint32_t k = f->k;
		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS: A = load_word(d, k); break;
		case BPF_LD | BPF_W | BPF_LEN: A = sizeof *d; break;
		case BPF_LDX | BPF_W | BPF_LEN: X = sizeof *d; break;
		case BPF_LD | BPF_IMM: A = k; break;
		case BPF_LDX | BPF_IMM: X = k; break;
		case BPF_LD | BPF_MEM: A = M[k]; break;
		case BPF_LDX | BPF_MEM: X = M[k]; break;
		case BPF_ST: M[k] = A; break;
		case BPF_STX: M[k] = X; break;
		case BPF_MISC | BPF_TAX: X = A; break;
		case BPF_MISC | BPF_TXA: A = X; break;
		case BPF_ALU | BPF_AND | BPF_K: A &= k; break;
		case BPF_ALU | BPF_AND | BPF_X: A &= X; break;
		case BPF_ALU | BPF_OR | BPF_K: A |= k; break;
		case BPF_ALU | BPF_OR | BPF_X: A |= X; break;
		case BPF_ALU | BPF_ADD | BPF_K: A += k; break;
		case BPF_ALU | BPF_SUB | BPF_K: A -= k; break;
		case BPF_ALU | BPF_RSH | BPF_K: A = k < 32 ? A >> k : 0; break;
		case BPF_ALU | BPF_LSH | BPF_K: A = k < 32 ? A << k : 0; break;
		case BPF_ALU | BPF_NEG: A = -A; break;
		case BPF_JMP | BPF_JA: pc += k; break;
		case BPF_JMP | BPF_JEQ | BPF_K: pc += A == k ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JEQ | BPF_X: pc += A == X ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JGT | BPF_K: pc += A > k ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JGT | BPF_X: pc += A > X ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JGE | BPF_K: pc += A >= k ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JGE | BPF_X: pc += A >= X ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JSET | BPF_K: pc += (A & k) ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JSET | BPF_X: pc += (A & X) ? f->jt : f->jf; break;
		case BPF_RET | BPF_K: *ret = k; return 0;
		case BPF_RET | BPF_A: *ret = A; return 0;
		default: return bad(err, errlen, "insn %zu: opcode 0x%04x", pc, f->code);
		}
	}
	return bad(err, errlen, "fell off the end");
}
