/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dw_branch_run (dwarf/branch.c), against the CPU: each instruction runs
 * once here, from the same registers, one step under the trap flag (the
 * SIGTRAP handler sets the registers, then reads them after it), and once
 * in the emulator. The pc, the stack pointer, %rcx and what a call pushed
 * must be the same. Every condition of jcc under every mix of CF, PF, ZF,
 * SF and OF; loop, loope, loopne and jrcxz; direct and indirect jumps and
 * calls through registers and memory (based, indexed, rip-relative). What
 * it must leave to a single step (other instructions, fs, a 16-bit operand
 * size, memory it cannot read) returns 0 with the registers untouched.
 */
#include "config.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cmocka.h>

#include "dwarf/dwarf.h"

#define AT 0x800 /* the instruction's offset in its page: targets either side */

static uint8_t *page;
static uint64_t stack[64];     /* the stack the instruction runs on */
static uint64_t table[8];      /* what indirect operands read */
static char altstack[1 << 16]; /* the handler's, away from that stack */
static struct user_regs_struct want_in, got_out;
static gregset_t back;
static volatile int phase;
static uint64_t agree_slot; /* where agree also puts a target, 0: nowhere */

/* The registers of REGS as a signal's context holds them, and back. */
#define EACH_GREG(X)                                                                              \
	X(RAX, rax)                                                                               \
	X(RBX, rbx)                                                                               \
	X(RCX, rcx) X(RDX, rdx) X(RSI, rsi) X(RDI, rdi) X(RBP, rbp) X(RSP, rsp) X(R8, r8)         \
		X(R9, r9) X(R10, r10) X(R11, r11) X(R12, r12) X(R13, r13) X(R14, r14) X(R15, r15) \
			X(RIP, rip)

static void on_trap(int sig, siginfo_t *si, void *uc_)
{
	greg_t *g = ((ucontext_t *)uc_)->uc_mcontext.gregs;

	(void)sig;
	(void)si;
	if (phase == 1) {
		/* The int3 in run_cpu: from here, the instruction, one step. */
		memcpy(back, g, sizeof(back));
#define SET(R, f) g[REG_##R] = (greg_t)want_in.f;
		EACH_GREG(SET)
#undef SET
		g[REG_EFL] = (greg_t)((want_in.eflags & 0x8d5) | 0x100 | 0x2);
		phase = 2;
		return;
	}
	/* Its step's trap: what it did, then back to run_cpu. */
#define GET(R, f) got_out.f = (uint64_t)g[REG_##R];
	EACH_GREG(GET)
#undef GET
	memcpy(g, back, sizeof(back));
	g[REG_EFL] &= ~(greg_t)0x100;
	phase = 0;
}

static void run_cpu(void)
{
	phase = 1;
	__asm__ volatile("int3" ::: "memory");
	assert_int_equal(phase, 0);
}

static int within(uint64_t addr, size_t len, const void *p, size_t size)
{
	return addr >= (uint64_t)(uintptr_t)p && addr + len <= (uint64_t)(uintptr_t)p + size;
}

/* The table, the stack and the code: the rest stands for memory it cannot read. */
static int read_self(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (!within(addr, len, table, sizeof(table)) && !within(addr, len, stack, sizeof(stack)) &&
	    !within(addr, len, page, 4096))
		return -1;
	memcpy(buf, (const void *)(uintptr_t)addr, len);
	return 0;
}

/* A state to start from: FLAGS, RCX, and the others made up. */
static struct user_regs_struct start(uint64_t flags, uint64_t rcx)
{
	struct user_regs_struct r;

	memset(&r, 0, sizeof(r));
	r.rax = (uint64_t)(uintptr_t)(page + AT + 0x40);
	r.rbx = (uint64_t)(uintptr_t)table;
	r.rcx = rcx;
	r.rdx = 3;
	r.r14 = (uint64_t)(uintptr_t)(page + AT - 0x300);
	r.rsp = (uint64_t)(uintptr_t)&stack[32];
	r.rip = (uint64_t)(uintptr_t)(page + AT);
	r.eflags = flags | 0x202;
	return r;
}

/* The instruction BYTES..., from registers IN: the CPU and the emulator
 * agree, and the emulator ran it (WANT: 1, or 2 for a call). */
static void agree(const struct user_regs_struct *in, int want, size_t n, const uint8_t *bytes)
{
	struct user_regs_struct emu = *in;
	uint64_t push = 0;
	int k;

	memset(page, 0xcc, 4096);
	memcpy(page + AT, bytes, n);
	if (agree_slot)
		*(uint64_t *)(uintptr_t)agree_slot = (uint64_t)(uintptr_t)(page + AT - 0x44);
	__builtin___clear_cache((char *)page, (char *)page + 4096);
	memset(stack, 0, sizeof(stack));
	want_in = *in;
	run_cpu();
	k = dw_branch_run(page + AT, 15, &emu, read_self, NULL, &push);
	if (k != want || emu.rip != got_out.rip || emu.rsp != got_out.rsp ||
	    emu.rcx != got_out.rcx ||
	    (k == 2 && push != *(const uint64_t *)(uintptr_t)got_out.rsp)) {
		fprintf(stderr,
			"%02x %02x %02x flags %#llx rcx %llu: emulated %d rip +%lld rsp %#llx "
			"rcx %llu; cpu rip +%lld rsp %#llx rcx %llu\n",
			bytes[0], n > 1 ? bytes[1] : 0, n > 2 ? bytes[2] : 0,
			(unsigned long long)in->eflags, (unsigned long long)in->rcx, k,
			(long long)(emu.rip - in->rip), (unsigned long long)emu.rsp,
			(unsigned long long)emu.rcx, (long long)(got_out.rip - in->rip),
			(unsigned long long)got_out.rsp, (unsigned long long)got_out.rcx);
		fail();
	}
}

#define AGREE(in, want, ...)                          \
	do {                                          \
		const uint8_t b_[] = { __VA_ARGS__ }; \
		agree(in, want, sizeof(b_), b_);      \
	} while (0)

/* The five flags jcc reads, in all 32 mixes. */
static uint64_t mix(unsigned i)
{
	static const uint64_t bit[] = { 0x1, 0x4, 0x40, 0x80, 0x800 };
	uint64_t f = 0;

	for (unsigned b = 0; b < 5; b++)
		if (i & (1u << b))
			f |= bit[b];
	return f;
}

static void test_jcc(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 32; i++) {
		struct user_regs_struct in = start(mix(i), 5);

		for (uint8_t cc = 0; cc < 16; cc++) {
			AGREE(&in, 1, 0x70 + cc, 0x10);				/* forward, rel8 */
			AGREE(&in, 1, 0x70 + cc, 0xe0);				/* backward, rel8 */
			AGREE(&in, 1, 0x0f, 0x80 + cc, 0x00, 0x01, 0x00, 0x00); /* rel32 */
			AGREE(&in, 1, 0x0f, 0x80 + cc, 0x00, 0xfe, 0xff, 0xff);
		}
	}
}

static void test_loops(void **state)
{
	(void)state;
	for (uint64_t rcx = 0; rcx < 3; rcx++) {
		for (unsigned zf = 0; zf < 2; zf++) {
			struct user_regs_struct in = start(zf ? 0x40 : 0, rcx);

			AGREE(&in, 1, 0xe2, 0xf0); /* loop */
			AGREE(&in, 1, 0xe1, 0xf0); /* loope */
			AGREE(&in, 1, 0xe0, 0xf0); /* loopne */
			AGREE(&in, 1, 0xe3, 0x20); /* jrcxz */
		}
	}
}

static void test_jumps_and_calls(void **state)
{
	struct user_regs_struct in = start(0, 1);

	(void)state;
	table[0] = (uint64_t)(uintptr_t)(page + AT + 0x80);
	table[1] = (uint64_t)(uintptr_t)(page + AT - 0x80);
	table[2] = (uint64_t)(uintptr_t)(page + AT - 0x44);
	table[5] = (uint64_t)(uintptr_t)(page + AT + 0x123);
	AGREE(&in, 1, 0xeb, 0x7f);		     /* jmp rel8 */
	AGREE(&in, 1, 0xe9, 0x00, 0xf8, 0xff, 0xff); /* jmp rel32 */
	AGREE(&in, 2, 0xe8, 0x34, 0x02, 0x00, 0x00); /* call rel32 */
	AGREE(&in, 1, 0xff, 0xe0);		     /* jmp *%rax */
	AGREE(&in, 1, 0x3e, 0xff, 0xe0);	     /* notrack jmp *%rax */
	AGREE(&in, 2, 0x41, 0xff, 0xd6);	     /* call *%r14 */
	AGREE(&in, 2, 0xff, 0xd0);		     /* call *%rax */
	AGREE(&in, 1, 0xff, 0x23);		     /* jmp *(%rbx) */
	AGREE(&in, 2, 0xff, 0x13);		     /* call *(%rbx) */
	AGREE(&in, 2, 0xff, 0x54, 0xd3, 0x10);	     /* call *0x10(%rbx,%rdx,8) */
	AGREE(&in, 1, 0xff, 0x64, 0x53, 0x0a);	     /* jmp *0xa(%rbx,%rdx,2) */
	/* call *(%rsp): the slot is read before the call pushes */
	AGREE(&in, 2, 0xff, 0x14, 0x24);
}

static void test_rip_relative(void **state)
{
	struct user_regs_struct in = start(0, 1);
	uint8_t code[6] = { 0xff, 0x25 }; /* jmp *disp(%rip) */
	int32_t disp = 0x100 - (int32_t)sizeof(code);

	(void)state;
	memcpy(code + 2, &disp, sizeof(disp));
	memset(page, 0xcc, 4096);
	memcpy(page + AT, code, sizeof(code));
	agree_slot = (uint64_t)(uintptr_t)(page + AT + 0x100);
	agree(&in, 1, sizeof(code), code);
	code[1] = 0x15; /* call *disp(%rip) */
	agree(&in, 2, sizeof(code), code);
	agree_slot = 0;
}

/* What is left to a single step: 0, and the registers as they were. */
static void test_left_to_the_step(void **state)
{
	static const uint8_t other[][8] = {
		{ 2, 0x48, 0x89 },				 /* (short) mov %rax,... */
		{ 1, 0xc3 },					 /* ret */
		{ 3, 0x48, 0x89, 0xc3 },			 /* mov %rax,%rbx */
		{ 4, 0x66, 0xe9, 0x10, 0x00 },			 /* jmp rel16 */
		{ 3, 0x66, 0xff, 0xe0 },			 /* jmp *%ax */
		{ 7, 0x64, 0xff, 0x24, 0x25, 0x10, 0x00, 0x00 }, /* jmp *%fs:0x10 */
		{ 2, 0xff, 0x21 },				 /* jmp *(%rcx): not in the table */
		{ 1, 0xcc },					 /* int3 */
		{ 2, 0x0f, 0x05 },				 /* syscall */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		struct user_regs_struct in = start(0x41, 12345), emu = in;
		uint64_t push = 0;

		memset(page, 0xcc, 4096);
		memcpy(page + AT, other[i] + 1, other[i][0]);
		if (dw_branch_run(page + AT, other[i][0], &emu, read_self, NULL, &push) != 0) {
			fprintf(stderr, "instruction %zu was run\n", i);
			fail();
		}
		assert_memory_equal(&emu, &in, sizeof(in));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jcc),
		cmocka_unit_test(test_loops),
		cmocka_unit_test(test_jumps_and_calls),
		cmocka_unit_test(test_rip_relative),
		cmocka_unit_test(test_left_to_the_step),
	};
	struct sigaction sa;
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };

	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	if (page == MAP_FAILED)
		return 1;
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGTRAP, &sa, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
