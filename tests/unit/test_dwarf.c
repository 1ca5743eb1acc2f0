/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of dwarf/patch.c, the counted-site patcher: machine code
 * assembled here is planned, patched and run in this process, with the
 * counter at the Hermit page's address, and must compute what it computed
 * unpatched while counting exactly one tick per execution of a site. A
 * budget that runs out traps at a trampoline's int3; the SIGTRAP handler
 * does what the tracer does (rip back to the site, a new budget) and the
 * code must go on as if nothing had happened.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <Zydis/Zydis.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#include "dwarf/dwarf.h"

#define COUNTER_ADDR 0x70000000ULL
#define CODE_ADDR    0x60000000ULL
#define TRAMP_ADDR   0x5ff00000ULL
#define TRAMP_SIZE   0x80000

static volatile uint64_t *counter;
static struct dw_patch_site sites[64];
static size_t nsites;
static int traps;
static uint64_t refill;

static void on_trap(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	uint64_t rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];

	(void)sig;
	(void)si;
	for (size_t i = 0; i < nsites; i++) {
		if ((sites[i].kind == DW_PATCH_JUMP || sites[i].kind == DW_PATCH_PAD) &&
		    sites[i].trap == rip - 1) {
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)sites[i].addr;
			*counter = refill;
			traps++;
			return;
		}
	}
	abort(); /* not a trampoline's trap */
}

static int setup(void **state)
{
	struct sigaction sa = { 0 };
	void *p = mmap((void *)COUNTER_ADDR, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	(void)state;
	if (p != (void *)COUNTER_ADDR)
		return -1;
	counter = p;
	if (mmap((void *)CODE_ADDR, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != (void *)CODE_ADDR ||
	    mmap((void *)TRAMP_ADDR, TRAMP_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != (void *)TRAMP_ADDR)
		return -1;
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	return 0;
}

typedef long (*fn2)(long, long);

/* Put CODE at CODE_ADDR, patched (PATCH) or not; the plan in *PLAN. */
static fn2 load(const uint8_t *code, size_t len, int patch, struct dw_patch_plan *plan)
{
	uint8_t out[4096];
	int used;

	memset((void *)CODE_ADDR, 0xcc, 4096);
	memcpy((void *)CODE_ADDR, code, len);
	nsites = 0;
	if (!patch)
		return (fn2)(uintptr_t)CODE_ADDR;
	assert_int_equal(dw_patch_plan_buf(code, len, CODE_ADDR, 0, 0, plan), 0);
	assert_true(plan->n <= 64);
	used = dw_patch_emit(plan, 0, code, CODE_ADDR, len, out, (uint8_t *)TRAMP_ADDR, TRAMP_ADDR,
			     TRAMP_SIZE, COUNTER_ADDR, sites, &nsites);
	assert_true(used >= 0);
	memcpy((void *)CODE_ADDR, out, len);
	return (fn2)(uintptr_t)CODE_ADDR;
}

/* Run CODE(a, b) unpatched and patched: the same result, TICKS ticks;
 * then again with a budget of 3 that a trap refills. */
static void check(const uint8_t *code, size_t len, long a, long b, uint64_t ticks,
		  struct dw_patch_plan *plan)
{
	long want = load(code, len, 0, NULL)(a, b), got;

	load(code, len, 1, plan);
	*counter = 1000000;
	traps = 0;
	got = ((fn2)(uintptr_t)CODE_ADDR)(a, b);
	assert_int_equal(got, want);
	assert_int_equal(1000000 - *counter, ticks);
	assert_int_equal(traps, 0);
	/* Out of budget: trap, refill, go on from the site. */
	*counter = 3;
	refill = 1000000;
	got = ((fn2)(uintptr_t)CODE_ADDR)(a, b);
	assert_int_equal(got, want);
	if (ticks > 3) {
		assert_int_equal(traps, 1);
		assert_int_equal(1000000 - *counter, ticks - 3);
	}
}

static size_t count_kind(const struct dw_patch_plan *plan, int kind)
{
	size_t n = 0;

	for (size_t i = 0; i < plan->n; i++)
		n += plan->ranges[i].kind == kind;
	return n;
}

/* Whether SITE's trampoline counts with the short form (movq $0 first). */
static int short_form(const struct dw_patch_site *site)
{
	return memcmp((const void *)(uintptr_t)site->tramp_start, "\x48\xc7\x04\x25", 4) == 0;
}

/* count_down(n): count n down with a backward jne rel8 (takes `sub`
 * along). */
static const uint8_t count_down[] = {
	0x48, 0x89, 0xf8,	/* mov %rdi,%rax */
	0x31, 0xd2,		/* xor %edx,%edx */
	0x48, 0x83, 0xc2, 0x01, /* L: add $1,%rdx */
	0x48, 0x83, 0xe8, 0x01, /* sub $1,%rax */
	0x75, 0xf6,		/* jne L */
	0x48, 0x89, 0xd0,	/* mov %rdx,%rax */
	0xc3,
};

static void test_jcc_rel8(void **state)
{
	struct dw_patch_plan plan;

	(void)state;
	check(count_down, sizeof(count_down), 1000, 0, 1000, &plan);
	assert_int_equal(count_kind(&plan, DW_PATCH_JUMP), 1);
	/* `sub; jne` sets the flags it reads: the short count. */
	assert_int_equal(nsites, 1);
	assert_true(short_form(&sites[0]));
	dw_patch_plan_free(&plan);
}

/* adc_loop(n, b): n additions with carry of b, closed by `dec %rcx; jnz`:
 * the carry lives across the back edge (dec leaves CF), so the count must
 * keep the flags: the long form. */
static const uint8_t adc_loop[] = {
	0x48, 0x89, 0xf9, /* mov %rdi,%rcx */
	0x31, 0xc0,	  /* xor %eax,%eax (CF = 0) */
	0x31, 0xd2,	  /* xor %edx,%edx */
	0x48, 0x11, 0xf0, /* L: adc %rsi,%rax */
	0x48, 0x11, 0xd2, /* adc %rdx,%rdx */
	0x48, 0xff, 0xc9, /* dec %rcx */
	0x75, 0xf5,	  /* jnz L */
	0x48, 0x01, 0xd0, /* add %rdx,%rax */
	0xc3,
};

static void test_flags_live(void **state)
{
	struct dw_patch_plan plan;

	(void)state;
	check(adc_loop, sizeof(adc_loop), 1000, (long)0x9000000000000001ULL, 1000, &plan);
	assert_int_equal(nsites, 1);
	assert_false(short_form(&sites[0]));
	dw_patch_plan_free(&plan);
}

/* The same loop with jne rel32: long enough for a jump on its own, but
 * the range reaches back to the sub, which writes the flags the jne
 * reads: so they are dead at the range's start and the count is short. */
static void test_jcc_rel32(void **state)
{
	static const uint8_t code[] = {
		0x48, 0x89, 0xf8, 0x31, 0xd2, 0x48, 0x83, 0xc2, 0x01, /* L: add $1,%rdx */
		0x48, 0x83, 0xe8, 0x01,				      /* sub $1,%rax */
		0x0f, 0x85, 0xf2, 0xff, 0xff, 0xff,		      /* jne L (rel32) */
		0x48, 0x89, 0xd0, 0xc3,
	};
	struct dw_patch_plan plan;

	(void)state;
	check(code, sizeof(code), 777, 0, 777, &plan);
	assert_int_equal(plan.n, 1);
	assert_int_equal(plan.ranges[0].addr, CODE_ADDR + 9);
	assert_int_equal(plan.ranges[0].len, 10);
	assert_int_equal(nsites, 1);
	assert_true(short_form(&sites[0]));
	dw_patch_plan_free(&plan);
}

/* The loop closed by `bnd jne` (an MPX prefix, as some hand-written
 * assembly has): Zydis's encoder took the rel32 of the relocated branch
 * from a length without the prefix, and it went one byte past L. The
 * prefix is dropped (no CPU acts on it) and each encoding is checked. */
static void test_bnd_jcc(void **state)
{
	static const uint8_t code[] = {
		0x48, 0x89, 0xf8,	/* mov %rdi,%rax */
		0x31, 0xd2,		/* xor %edx,%edx */
		0x0f, 0x1f, 0x00,	/* L: nopl (%rax) (from L+1: #UD) */
		0x48, 0x83, 0xc2, 0x01, /* add $1,%rdx */
		0x48, 0x83, 0xe8, 0x01, /* sub $1,%rax */
		0xf2, 0x75, 0xf2,	/* bnd jne L */
		0x48, 0x89, 0xd0,	/* mov %rdx,%rax */
		0xc3,
	};
	struct dw_patch_plan plan;

	(void)state;
	check(code, sizeof(code), 500, 0, 500, &plan);
	assert_int_equal(count_kind(&plan, DW_PATCH_JUMP), 1);
	assert_int_equal(nsites, 1);
	assert_int_equal(sites[0].kind, DW_PATCH_JUMP); /* not an int3 */
	dw_patch_plan_free(&plan);
}

/* A loop closed by an unconditional jmp rel8, left by a forward je:
 * the jmp counts once per pass, the last pass leaves by the je. */
static void test_jmp(void **state)
{
	static const uint8_t code[] = {
		0x48, 0x89, 0xf8,	/* mov %rdi,%rax */
		0x31, 0xd2,		/* xor %edx,%edx */
		0x48, 0x85, 0xc0,	/* L: test %rax,%rax */
		0x74, 0x0a,		/* je out */
		0x48, 0x83, 0xc2, 0x02, /* add $2,%rdx */
		0x48, 0x83, 0xe8, 0x01, /* sub $1,%rax */
		0xeb, 0xf1,		/* jmp L */
		0x48, 0x89, 0xd0,	/* out: mov %rdx,%rax */
		0xc3,
	};
	struct dw_patch_plan plan;

	(void)state;
	check(code, sizeof(code), 50, 0, 50, &plan);
	dw_patch_plan_free(&plan);
}

/* An indirect call in a loop (call *%rsi, 2 bytes, takes the mov before
 * it along; the return address must be the original one), to a function
 * at the end that adds 3. Ticks: the call and the jne, each pass. */
static void test_indirect_call(void **state)
{
	static const uint8_t code[] = {
		0x53,				       /* push %rbx */
		0x48, 0x89, 0xfb,		       /* mov %rdi,%rbx */
		0x31, 0xc0,			       /* xor %eax,%eax */
		0x48, 0x8d, 0x35, 0x11, 0,    0,    0, /* L: lea add3(%rip),%rsi */
		0xff, 0xd6,			       /* call *%rsi */
		0x48, 0x83, 0xeb, 0x01,		       /* sub $1,%rbx */
		0x75, 0xf1,			       /* jne L */
		0x5b,				       /* pop %rbx */
		0xc3,				       /* ret */
		0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
		0x48, 0x83, 0xc0, 0x03, /* add3: add $3,%rax */
		0xc3,
	};
	struct dw_patch_plan plan;

	(void)state;
	check(code, sizeof(code), 100, 0, 200, &plan);
	assert_int_equal(count_kind(&plan, DW_PATCH_JUMP), 2);
	dw_patch_plan_free(&plan);
}

/* A call that must count (backward) is counted before it: the range is
 * the instructions that run into it, and the call itself is left as it
 * was, so that it returns where the CPU's return predictor expects
 * (a call made in a trampoline would push and jump). The callee sees the
 * original return address either way. Ticks: the call and the jne. */
static void test_call_counted_before(void **state)
{
	static const uint8_t code[] = {
		0xeb, 0x05,			    /* jmp entry */
		0x48, 0x8d, 0x40, 0x03,		    /* add3: lea 3(%rax),%rax */
		0xc3,				    /* ret */
		0x53,				    /* entry: push %rbx */
		0x48, 0x89, 0xfb,		    /* mov %rdi,%rbx */
		0x31, 0xc0,			    /* xor %eax,%eax */
		0x48, 0x89, 0xd9,		    /* L: mov %rbx,%rcx */
		0x48, 0x8d, 0x49, 0x00,		    /* lea 0(%rcx),%rcx */
		0xe8, 0xe9, 0xff, 0xff, 0xff,	    /* call add3 */
		0x48, 0x83, 0xeb, 0x01,		    /* sub $1,%rbx */
		0x75, 0xee,			    /* jne L */
		0x5b,				    /* pop %rbx */
		0xc3,				    /* ret */
	};
	struct dw_patch_plan plan;
	const struct dw_patch_range *before = NULL;

	(void)state;
	check(code, sizeof(code), 100, 0, 200, &plan);
	for (size_t i = 0; i < plan.n; i++)
		if (plan.ranges[i].site == plan.ranges[i].len)
			before = &plan.ranges[i];
	assert_non_null(before);
	assert_int_equal(before->kind, DW_PATCH_JUMP);
	assert_int_equal(before->addr, CODE_ADDR + 0xd);
	assert_int_equal(before->len, 7);
	/* the call is still the call */
	assert_memory_equal((const void *)(uintptr_t)(CODE_ADDR + 0x14), code + 0x14, 5);
	assert_int_equal(count_kind(&plan, DW_PATCH_INT3), 0);
	dw_patch_plan_free(&plan);
}

/* `call f; test %al,%al; jne L`: the jne's return address leaves no room
 * for a jump, and it is reached only from the call's return, which
 * counts: the jne is not counted at all (no int3, no stop). Ticks: the
 * call, each pass. With a direct branch to the return address as well
 * (jmp R), a loop could bypass the call: then the jne counts. */
static void test_after_counted_call(void **state)
{
	static const uint8_t code[] = {
		0xeb, 0x08,			 /* jmp entry */
		0x48, 0x83, 0xeb, 0x01,		 /* f: sub $1,%rbx */
		0x0f, 0x95, 0xc0,		 /* setne %al */
		0xc3,				 /* ret */
		0x53,				 /* entry: push %rbx */
		0x48, 0x89, 0xfb,		 /* mov %rdi,%rbx */
		0x31, 0xc9,			 /* xor %ecx,%ecx */
		0x48, 0x85, 0xdb,		 /* test %rbx,%rbx */
		0x74, 0x0d,			 /* je done */
		0x48, 0x83, 0xc1, 0x01,		 /* L: add $1,%rcx */
		0xe8, 0xe4, 0xff, 0xff, 0xff,	 /* call f */
		0x84, 0xc0,			 /* R: test %al,%al */
		0x75, 0xf3,			 /* jne L */
		0x48, 0x89, 0xc8,		 /* done: mov %rcx,%rax */
		0x5b,				 /* pop %rbx */
		0xc3,				 /* ret */
	};
	uint8_t to_r[sizeof(code)];
	struct dw_patch_plan plan;

	(void)state;
	check(code, sizeof(code), 100, 0, 100, &plan);
	assert_int_equal(plan.nafter, 1);
	assert_int_equal(count_kind(&plan, DW_PATCH_INT3), 0);
	dw_patch_plan_free(&plan);

	memcpy(to_r, code, sizeof(code));
	to_r[0xe] = 0xeb; /* jmp R, over the xor (planned, not run) */
	to_r[0xf] = 0x0e;
	assert_int_equal(dw_patch_plan_buf(to_r, sizeof(to_r), CODE_ADDR, 0, 0, &plan), 0);
	assert_int_equal(plan.nafter, 0);
	assert_int_equal(count_kind(&plan, DW_PATCH_INT3), 1);
	dw_patch_plan_free(&plan);
}

/* `cmp; ja L1; jne L2` where the cmp is a branch target (cc1's hottest
 * int3, 1,688 stops in one `gcc -c`): the ja has no room for a jump of its
 * own (the cmp before it is an entry and too short with it; the jne after
 * it a site), nor at its target (two bytes before a jmp). The jne may
 * follow it in its range (site_after): every pass through the jne went
 * through the range's start, which counts both. Ticks: one per pass
 * through C, |a - b| + 1. */
static void test_site_after(void **state)
{
	static const uint8_t code[] = {
		0x31, 0xc0, /* xor %eax,%eax */
		0x89, 0xf9, /* mov %edi,%ecx */
		0xeb, 0x08, /* jmp C */
		0xff, 0xc0, /* L1: inc %eax */
		0xff, 0xc9, /* dec %ecx */
		0xeb, 0x02, /* jmp C */
		0xff, 0xc1, /* L2: inc %ecx */
		0x39, 0xf1, /* C: cmp %esi,%ecx */
		0x77, 0xf4, /* ja L1 */
		0x75, 0xf8, /* jne L2 */
		0xc3,	    /* ret */
	};
	struct dw_patch_plan plan;

	(void)state;
	check(code, sizeof(code), 100, 0, 101, &plan);
	assert_int_equal(count_kind(&plan, DW_PATCH_INT3), 0);
	assert_int_equal(plan.n, 1);
	assert_int_equal(plan.ranges[0].addr, CODE_ADDR + 0xe);
	assert_int_equal(plan.ranges[0].len, 6);
	assert_int_equal(plan.ranges[0].site, 2);
	dw_patch_plan_free(&plan);
	check(code, sizeof(code), 3, 40, 38, &plan);
	dw_patch_plan_free(&plan);
}

/* `cmp; jb L1; jmp L2`: the jb gets a range with the cmp; the jmp after
 * it has none of its own (the jb before it a site, nothing can follow a
 * jmp, L2 is two instructions before an entry) and joins the jb's range
 * (join_previous): it runs only by falling through the jb, so the count
 * at the range's start stands for it. Ticks: one per pass that does not
 * end the loop, |a - b|. */
static void test_join_previous(void **state)
{
	static const uint8_t code[] = {
		0x31, 0xc0,	    /* xor %eax,%eax */
		0x89, 0xf9,	    /* mov %edi,%ecx */
		0xeb, 0x08,	    /* jmp C */
		0xff, 0xc1,	    /* L1: inc %ecx */
		0xeb, 0x04,	    /* jmp C */
		0xff, 0xc9,	    /* L2: dec %ecx */
		0xff, 0xc0,	    /* inc %eax */
		0x48, 0x39, 0xf1, /* C: cmp %rsi,%rcx */
		0x74, 0x07,	    /* je done */
		0x48, 0x39, 0xf1, /* cmp %rsi,%rcx */
		0x72, 0xee,	    /* jb L1 */
		0xeb, 0xf0,	    /* jmp L2 */
		0xc3,		    /* done: ret */
	};
	struct dw_patch_plan plan;

	(void)state;
	check(code, sizeof(code), 100, 0, 100, &plan);
	assert_int_equal(count_kind(&plan, DW_PATCH_INT3), 0);
	assert_int_equal(plan.n, 1);
	assert_int_equal(plan.ranges[0].addr, CODE_ADDR + 0x13);
	assert_int_equal(plan.ranges[0].len, 7);
	assert_int_equal(plan.ranges[0].site, 3);
	dw_patch_plan_free(&plan);
	check(code, sizeof(code), 3, 40, 37, &plan);
	dw_patch_plan_free(&plan);
}

/* `call f; test %al,%al; jne L`, the call forward (no site), its return
 * address and the instruction after the jne entry points, and no room at
 * L: the call is counted before it (count_the_call), in a range from M,
 * and the jne not at all. Ticks: one per pass through M, a. */
static void test_count_the_call(void **state)
{
	static const uint8_t code[] = {
		0x53,			      /* push %rbx */
		0x48, 0x89, 0xfb,	      /* mov %rdi,%rbx */
		0x31, 0xc9,		      /* xor %ecx,%ecx */
		0x48, 0x85, 0xdb,	      /* test %rbx,%rbx */
		0x74, 0x13,		      /* je E */
		0xeb, 0x03,		      /* jmp M */
		0x48, 0xff, 0xc1,	      /* L: inc %rcx */
		0x31, 0xf6,		      /* M: xor %esi,%esi */
		0x48, 0x89, 0xdf,	      /* mov %rbx,%rdi */
		0xe8, 0x09, 0x00, 0x00, 0x00, /* call f */
		0x84, 0xc0,		      /* test %al,%al */
		0x75, 0xef,		      /* jne L */
		0x48, 0x89, 0xc8,	      /* E: mov %rcx,%rax */
		0x5b,			      /* pop %rbx */
		0xc3,			      /* ret */
		0x48, 0x83, 0xeb, 0x01,	      /* f: sub $1,%rbx */
		0x0f, 0x95, 0xc0,	      /* setne %al */
		0xc3,			      /* ret */
	};
	struct dw_patch_plan plan;

	(void)state;
	check(code, sizeof(code), 100, 0, 100, &plan);
	assert_int_equal(count_kind(&plan, DW_PATCH_INT3), 0);
	assert_int_equal(plan.n, 1);
	assert_int_equal(plan.nafter, 1);
	assert_int_equal(plan.ranges[0].addr, CODE_ADDR + 0x10);
	assert_int_equal(plan.ranges[0].len, 5);
	assert_int_equal(plan.ranges[0].site, 5);
	/* the call is still the call */
	assert_memory_equal((const void *)(uintptr_t)(CODE_ADDR + 0x15), code + 0x15, 5);
	dw_patch_plan_free(&plan);
}

/* An indirect call that a branch goes to, followed by its return
 * address: no neighbour can be taken along either side. It becomes a jmp
 * rel8 to a jump put in the dead padding before it, and its trampoline
 * makes the call with the original return address. 2 and 3 bytes (call
 * *%rsi, call *%r11: one byte of int3 after the jmp rel8). Ticks: the
 * call and the jne (which takes the sub along), each pass. */
static void test_indirect_call_pad(void **state)
{
	static const uint8_t code2[] = {
		0x53,						/* push %rbx */
		0x48, 0x89, 0xfb,				/* mov %rdi,%rbx */
		0x31, 0xc0,					/* xor %eax,%eax */
		0x48, 0x8d, 0x35, 0x12, 0,    0,    0,		/* lea add3(%rip),%rsi */
		0xeb, 0x06,					/* jmp C */
		0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xff, 0xd6, /* C: call *%rsi */
		0x48, 0x83, 0xeb, 0x01,				/* sub $1,%rbx */
		0x75, 0xf8,					/* jne C */
		0x5b,						/* pop %rbx */
		0xc3,						/* ret */
		0x48, 0x83, 0xc0, 0x03,				/* add3: add $3,%rax */
		0xc3,
	};
	static const uint8_t code3[] = {
		0x53,						      /* push %rbx */
		0x48, 0x89, 0xfb,				      /* mov %rdi,%rbx */
		0x31, 0xc0,					      /* xor %eax,%eax */
		0x4c, 0x8d, 0x1d, 0x13, 0,    0,    0,		      /* lea add3(%rip),%r11 */
		0xeb, 0x06,					      /* jmp C */
		0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x41, 0xff, 0xd3, /* C: call *%r11 */
		0x48, 0x83, 0xeb, 0x01,				      /* sub $1,%rbx */
		0x75, 0xf7,					      /* jne C */
		0x5b,						      /* pop %rbx */
		0xc3,						      /* ret */
		0x48, 0x83, 0xc0, 0x03,				      /* add3: add $3,%rax */
		0xc3,
	};
	const uint8_t *codes[] = { code2, code3 };
	const size_t lens[] = { sizeof(code2), sizeof(code3) };

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct dw_patch_plan plan;
		const struct dw_patch_range *pad = NULL;

		check(codes[k], lens[k], 100, 0, 200, &plan);
		for (size_t i = 0; i < plan.n; i++)
			if (plan.ranges[i].kind == DW_PATCH_PAD)
				pad = &plan.ranges[i];
		assert_non_null(pad);
		assert_int_equal(pad->addr, CODE_ADDR + 21);
		assert_int_equal(pad->len, 2 + k);
		assert_int_equal(pad->target, 0);
		assert_int_equal(pad->slot, CODE_ADDR + 15);
		assert_int_equal(count_kind(&plan, DW_PATCH_INT3), 0);
		dw_patch_plan_free(&plan);
	}
}

/* An indirect jmp through memory (a rip-relative slot) in a loop: the
 * slot's address is re-encoded for the trampoline. */
static void test_indirect_jmp_riprel(void **state)
{
	static const uint8_t code[] = {
		0x48,
		0x89,
		0xf8, /* mov %rdi,%rax */
		0x31,
		0xd2, /* xor %edx,%edx */
		0x48,
		0x83,
		0xc2,
		0x05, /* L: add $5,%rdx */
		0x48,
		0x83,
		0xe8,
		0x01, /* sub $1,%rax */
		0x74,
		0x06, /* je out */
		0xff,
		0x25,
		0x08,
		0x00,
		0x00,
		0x00, /* jmp *slot(%rip) */
		0x48,
		0x89,
		0xd0, /* out: mov %rdx,%rax */
		0xc3,
		0x90,
		0x90,
		0x90,
		0x90,
		/* slot: CODE_ADDR + 5 */
		0x05,
		0x00,
		0x00,
		0x60,
		0x00,
		0x00,
		0x00,
		0x00,
	};
	struct dw_patch_plan plan;

	(void)state;
	check(code, sizeof(code), 20, 0, 19, &plan);
	dw_patch_plan_free(&plan);
}

/* A loop whose body reads a rip-relative constant next to the branch:
 * the taken neighbour's displacement is re-encoded. */
static void test_riprel_neighbour(void **state)
{
	static const uint8_t code[] = {
		0x31, 0xc0,						    /* xor %eax,%eax */
		0x31, 0xc9,						    /* xor %ecx,%ecx */
		0x48, 0x01, 0xc8,					    /* L: add %rcx,%rax */
		0x48, 0x83, 0xef, 0x01,					    /* sub $1,%rdi */
		0x48, 0x8b, 0x0d, 0x07, 0x00, 0x00, 0x00,		    /* mov k(%rip),%rcx */
		0x75, 0xf0,						    /* jne L */
		0xc3, 0x90, 0x90, 0x90, 0x90, 0x07, 0,	  0, 0, 0, 0, 0, 0, /* k: 7 */
	};
	struct dw_patch_plan plan;

	(void)state;
	check(code, sizeof(code), 30, 0, 30, &plan);
	assert_int_equal(count_kind(&plan, DW_PATCH_JUMP), 1);
	/* the mov came along, and the sub before it that writes the flags */
	assert_int_equal(plan.ranges[0].addr, CODE_ADDR + 7);
	assert_true(short_form(&sites[0]));
	dw_patch_plan_free(&plan);
}

/* Whether a range of PLAN touches [LO, HI) of the code. */
static int range_in(const struct dw_patch_plan *plan, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < plan->n; i++) {
		if (plan->ranges[i].addr < CODE_ADDR + hi &&
		    plan->ranges[i].addr + plan->ranges[i].len > CODE_ADDR + lo)
			return 1;
	}
	return 0;
}

/* Data in the code, read rip-relative from its second word on (as
 * SHA-256 reads K256 + 128): left alone, though it decodes as backward
 * jumps and a loop, and the loop before it counts. */
static void test_data_read(void **state)
{
	static const uint8_t code[] = {
		0x48, 0x8b, 0x05, 0x21, 0x00, 0x00, 0x00, /* mov 0x28(%rip),%rax */
		0x48, 0x03, 0x05, 0x22, 0x00, 0x00, 0x00, /* add 0x30(%rip),%rax */
		0x48, 0x89, 0xf9,			  /* mov %rdi,%rcx */
		0x48, 0x01, 0xc8,			  /* L: add %rcx,%rax */
		0x48, 0xff, 0xc9,			  /* dec %rcx */
		0x75, 0xf8,				  /* jne L */
		0xc3,					  /* ret */
		0x90, 0x90, 0x90, 0x90, 0x90, 0x90,	  /* (to 0x20) */
		0xeb, 0xfe, 0x75, 0xfc, 0xe2, 0xfa, 0x0f, 0x85, /* 0x20: data */
		0xf0, 0xff, 0xff, 0xff, 0xeb, 0xf0, 0x74, 0xee,
		0x48, 0xff, 0xc9, 0x75, 0xfb, 0xff, 0xe0, 0xc3,
	};
	struct dw_patch_plan plan;

	(void)state;
	check(code, sizeof(code), 30, 0, 30, &plan);
	assert_true(range_in(&plan, 0x11, 0x1a));
	assert_false(range_in(&plan, 0x1a, sizeof(code)));
	dw_patch_plan_free(&plan);
}

/* Data whose address is only taken (lea), with a byte that is no
 * instruction (0x06): left alone. A function whose address is taken and
 * that decodes whole (an IFUNC variant, without endbr64) is code: its
 * loop counts. */
static void test_data_taken(void **state)
{
	static const uint8_t data[] = {
		0x48, 0x8d, 0x05, 0x19, 0x00, 0x00, 0x00, /* lea 0x20(%rip),%rax */
		0x48, 0x8b, 0x00,			  /* mov (%rax),%rax */
		0x48, 0x89, 0xf9,			  /* mov %rdi,%rcx */
		0x48, 0x01, 0xc8,			  /* L: add %rcx,%rax */
		0x48, 0xff, 0xc9,			  /* dec %rcx */
		0x75, 0xf8,				  /* jne L */
		0xc3,					  /* ret */
		0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, /* (to 0x20) */
		0xeb, 0xfe, 0x75, 0xfc, 0x06, 0xe2, 0xfa, 0x0f, /* 0x20: data */
		0x85, 0xf0, 0xff, 0xff, 0xff, 0x74, 0xf0, 0xc3,
	};
	static const uint8_t code[] = {
		0x48, 0x8d, 0x05, 0x19, 0x00, 0x00, 0x00, /* lea F(%rip),%rax */
		0xff, 0xd0,				  /* call *%rax */
		0xc3,					  /* ret */
		0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
		0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, /* (to 0x20) */
		0x48, 0x89, 0xf8,			  /* F: mov %rdi,%rax */
		0x48, 0x01, 0xf0,			  /* L: add %rsi,%rax */
		0x48, 0xff, 0xcf,			  /* dec %rdi */
		0x75, 0xf8,				  /* jne L */
		0xc3,					  /* ret */
	};
	struct dw_patch_plan plan;

	(void)state;
	check(data, sizeof(data), 30, 0, 30, &plan);
	assert_false(range_in(&plan, 0x16, sizeof(data)));
	dw_patch_plan_free(&plan);
	check(code, sizeof(code), 30, 2, 31, &plan);
	assert_true(range_in(&plan, 0x20, sizeof(code)));
	dw_patch_plan_free(&plan);
}

/* sort's merge loop, in small: `call F; test; jne L`, where the call's
 * return address and the `ret` after the jne leave the 2-byte jne no
 * neighbour to take and no padding to jump through. It is counted at its
 * target L instead, by a jump: every turn passes there. */
static void test_count_at_target(void **state)
{
	static const uint8_t code[] = {
		0x48, 0x89, 0xf8,	      /* mov %rdi,%rax */
		0x31, 0xd2,		      /* xor %edx,%edx */
		0xeb, 0x0b,		      /* jmp M */
		0x48, 0x83, 0xc2, 0x01,	      /* L: add $1,%rdx */
		0x48, 0x83, 0xc2, 0x00,	      /* add $0,%rdx */
		0x48, 0xff, 0xc8,	      /* dec %rax */
		0xe8, 0x05, 0x00, 0x00, 0x00, /* M: call F */
		0x85, 0xc0,		      /* test %eax,%eax */
		0x75, 0xec,		      /* jne L */
		0xc3,			      /* ret */
		0x89, 0xc0,		      /* F: mov %eax,%eax */
		0xc3,
	};
	struct dw_patch_plan plan;

	(void)state;
	check(code, sizeof(code), 30, 0, 30, &plan);
	assert_int_equal(plan.n, 1);
	assert_int_equal(plan.ranges[0].kind, DW_PATCH_JUMP);
	assert_int_equal(plan.ranges[0].addr, CODE_ADDR + 7);
	assert_int_equal(plan.nint3, 0);
	assert_int_equal(plan.ntarget, 1);
	dw_patch_plan_free(&plan);
}

/* `loop` cannot be moved: it keeps an int3. */
static void test_loop_insn(void **state)
{
	static const uint8_t code[] = {
		0x48, 0x89, 0xf9, /* mov %rdi,%rcx */
		0x31, 0xc0,	  /* xor %eax,%eax */
		0xff, 0xc0,	  /* L: inc %eax */
		0xe2, 0xfc,	  /* loop L */
		0xc3,
	};
	struct dw_patch_plan plan;

	(void)state;
	assert_int_equal(dw_patch_plan_buf(code, sizeof(code), CODE_ADDR, 0, 0, &plan), 0);
	assert_int_equal(plan.n, 1);
	assert_int_equal(plan.ranges[0].kind, DW_PATCH_INT3);
	assert_int_equal(plan.ranges[0].addr, CODE_ADDR + 7);
	dw_patch_plan_free(&plan);
}

/* A branch target just after a short backward jne: the jne may not take
 * the target's instruction along (nor the add before it, which a forward
 * jump lands on); it takes what is safe or stays an int3, and the code
 * still runs right. */
static void test_target_inside(void **state)
{
	static const uint8_t code[] = {
		0x48, 0x89, 0xf8,	/* mov %rdi,%rax */
		0x31, 0xd2,		/* xor %edx,%edx */
		0x48, 0x85, 0xf6,	/* test %rsi,%rsi */
		0x74, 0x04,		/* je T (forward, into the loop's tail) */
		0x48, 0x83, 0xc2, 0x01, /* L: add $1,%rdx */
		0xff, 0xc8,		/* T: dec %eax */
		0x75, 0xf8,		/* jne L */
		0x48, 0x89, 0xd0,	/* mov %rdx,%rax */
		0xc3,
	};
	struct dw_patch_plan plan;

	(void)state;
	check(code, sizeof(code), 40, 0, 40, &plan);
	for (size_t i = 0; i < plan.n; i++) {
		uint64_t t = CODE_ADDR + 14; /* T */

		assert_false(plan.ranges[i].addr < t &&
			     t < plan.ranges[i].addr + plan.ranges[i].len);
	}
	dw_patch_plan_free(&plan);
	check(code, sizeof(code), 40, 1, 40, &plan);
	dw_patch_plan_free(&plan);
}

/* fib(n): recursion without a loop, by a direct backward call. */
static const uint8_t fib[] = {
	0x48, 0x83, 0xff, 0x02,	      /* fib: cmp $2,%rdi */
	0x7c, 0x20,		      /* jl small */
	0x53,			      /* push %rbx */
	0x55,			      /* push %rbp */
	0x48, 0x89, 0xfb,	      /* mov %rdi,%rbx */
	0x48, 0x8d, 0x7f, 0xff,	      /* lea -1(%rdi),%rdi */
	0xe8, 0xec, 0xff, 0xff, 0xff, /* call fib */
	0x48, 0x89, 0xc5,	      /* mov %rax,%rbp */
	0x48, 0x8d, 0x7b, 0xfe,	      /* lea -2(%rbx),%rdi */
	0xe8, 0xe0, 0xff, 0xff, 0xff, /* call fib */
	0x48, 0x01, 0xe8,	      /* add %rbp,%rax */
	0x5d,			      /* pop %rbp */
	0x5b,			      /* pop %rbx */
	0xc3,			      /* ret */
	0x48, 0x89, 0xf8,	      /* small: mov %rdi,%rax */
	0xc3,
};

static void test_recursion(void **state)
{
	struct dw_patch_plan plan;

	(void)state;
	/* fib(10) makes 177 calls, 176 of them from inside. */
	check(fib, sizeof(fib), 10, 0, 176, &plan);
	assert_int_equal(count_kind(&plan, DW_PATCH_JUMP), 2);
	/* Counted before the calls; no flag is alive across a call (the
	 * psABI), so the counts are short though nothing in the ranges
	 * writes the flags. */
	assert_int_equal(nsites, 2);
	assert_true(short_form(&sites[0]) && short_form(&sites[1]));
	dw_patch_plan_free(&plan);
}

/*
 * A stop at any instruction, as the spin watch, the block watch or a
 * signal from outside makes one at a wall-clock moment: the code runs one
 * step at a time (the trap flag), and once in each pass through a
 * trampoline, at the next offset each time so that every instruction of
 * every count is caught, the handler does what the tracer does at such a
 * stop: dw_patch_settle first, then it reads what is left, counts it and
 * writes another budget (some of them 0 or 1, so that traps come too).
 * Not one tick may be lost or counted twice, whichever instruction the
 * stop caught. (A stop at every step would put the thread back at the
 * site for ever: a count is never done.)
 */
static volatile uint64_t stepped_used, stepped_budget, stepped_stops, stepped_undone;
static volatile int stepped_in, pass_stopped;
static volatile unsigned pass_step, stop_at;
static const uint64_t budgets[] = { 1000000, 1, 0, 7, 2, 0, 3 };

/* The tracer's stop: take the count so far, write the next budget. */
static void stepped_restock(void)
{
	uint64_t left = (int64_t)*counter < 0 ? 0 : *counter;

	stepped_used += stepped_budget - left;
	stepped_budget = budgets[stepped_stops++ % (sizeof(budgets) / sizeof(budgets[0]))];
	*counter = stepped_budget;
}

static void on_step(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	greg_t *g = uc->uc_mcontext.gregs;
	uint64_t rip = (uint64_t)g[REG_RIP];
	int in_code = rip >= CODE_ADDR && rip < CODE_ADDR + 4096;
	int in_tramp = rip >= TRAMP_ADDR && rip < TRAMP_ADDR + TRAMP_SIZE;

	(void)sig;
	if (si->si_code == SI_KERNEL) {
		/* A trap: out of budget (the counter says 0), back to the site. */
		for (size_t i = 0; i < nsites; i++) {
			if (sites[i].trap == rip - 1) {
				g[REG_RIP] = (greg_t)sites[i].addr;
				assert_true(*counter == 0);
				stepped_restock();
				pass_stopped = 0;
				pass_step = 0;
				return;
			}
		}
		abort();
	}
	if (in_code) {
		stepped_in = 1;
		if (!pass_stopped && pass_step)
			stop_at = 0; /* a pass shorter than STOP_AT: from its start */
		pass_stopped = 0;
		pass_step = 0;
		return;
	}
	if (!in_tramp) {
		if (stepped_in)
			g[REG_EFL] &= ~(greg_t)0x100; /* back in the test: stop stepping */
		return;
	}
	if (pass_stopped || pass_step++ != stop_at)
		return;
	pass_stopped = 1;
	stop_at = (stop_at + 1) % 16;
	for (size_t i = 0; i < nsites; i++) {
		struct dw_patch_undo u;

		if (!dw_patch_settle(&sites[i], rip, (uint64_t)g[REG_EFL], &u))
			continue;
		if (u.rcx_from_stack)
			g[REG_RCX] = *(greg_t *)(uintptr_t)g[REG_RSP];
		g[REG_RSP] += (greg_t)u.rsp_add;
		*counter += (uint64_t)u.counter_add;
		g[REG_RIP] = (greg_t)sites[i].addr;
		stepped_undone += u.counter_add != 0;
		break;
	}
	stepped_restock();
}

/* CODE(a, b) patched, one step at a time: its result and ticks; UNDO:
 * some stop must have come in the middle of a count and undone it. */
static void check_stepped(const uint8_t *code, size_t len, long a, long b, uint64_t ticks,
			  int undo)
{
	struct sigaction sa = { 0 }, old;
	struct dw_patch_plan plan;
	long want = load(code, len, 0, NULL)(a, b), got;
	fn2 f = load(code, len, 1, &plan);

	sa.sa_sigaction = on_step;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, &old);
	stepped_used = 0;
	stepped_stops = 0;
	stepped_undone = 0;
	stepped_in = 0;
	pass_stopped = 0;
	pass_step = 0;
	stop_at = 0;
	stepped_budget = 1000000;
	*counter = stepped_budget;
	__asm__ volatile("pushfq; orq $0x100,(%%rsp); popfq" ::: "memory", "cc");
	got = f(a, b);
	__asm__ volatile("pushfq; andq $~0x100,(%%rsp); popfq" ::: "memory", "cc");
	sigaction(SIGTRAP, &old, NULL);
	stepped_restock();
	assert_int_equal(got, want);
	assert_true(stepped_stops > ticks / 2);
	if (undo)
		assert_true(stepped_undone > 0);
	assert_int_equal(stepped_used, ticks);
	dw_patch_plan_free(&plan);
}

static void test_stop_anywhere(void **state)
{
	(void)state;
	check_stepped(count_down, sizeof(count_down), 300, 0, 300, 1);
	check_stepped(adc_loop, sizeof(adc_loop), 300, (long)0x9000000000000001ULL, 300, 1);
	/* (fib's calls are counted before them, the short way: the flags
	 * are dead at a call; its count is undone only by a stop between an
	 * empty budget's subq and its trap, which the steps may not catch) */
	check_stepped(fib, sizeof(fib), 10, 0, 176, 0);
}

static void same_plan(const struct dw_patch_plan *a, const struct dw_patch_plan *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->njump, b->njump);
	assert_int_equal(a->nint3, b->nint3);
	assert_int_equal(a->npad, b->npad);
	assert_int_equal(a->tramp_size, b->tramp_size);
	assert_int_equal(a->exec_vaddr, b->exec_vaddr);
	assert_int_equal(a->exec_offset, b->exec_offset);
	assert_int_equal(a->exec_size, b->exec_size);
	for (size_t i = 0; i < a->n; i++) {
		assert_int_equal(a->ranges[i].addr, b->ranges[i].addr);
		assert_int_equal(a->ranges[i].len, b->ranges[i].len);
		assert_int_equal(a->ranges[i].site, b->ranges[i].site);
		assert_int_equal(a->ranges[i].kind, b->ranges[i].kind);
		assert_int_equal(a->ranges[i].slot, b->ranges[i].slot);
		assert_int_equal(a->ranges[i].target, b->ranges[i].target);
	}
}

/* dw_insn_brief must say what Zydis says wherever it answers. */
static void same_brief(const unsigned char *p, size_t n, size_t *answered)
{
	struct dw_insn_brief b, z;

	if (!dw_insn_brief(p, n, &b))
		return;
	(*answered)++;
	if (!dw_insn_brief_ref(p, n, &z) || b.len != z.len || b.kind != z.kind || b.reg != z.reg ||
	    b.rel != z.rel) {
		char hex[64] = "";

		for (size_t k = 0; k < 15 && k < n; k++)
			snprintf(hex + strlen(hex), sizeof(hex) - strlen(hex), " %02x", p[k]);
		fail_msg(
			"insnlen.c and Zydis differ on%s: len %u/%u kind %u/%u reg %d/%d rel %lld/%lld",
			hex, b.len, z.len, b.kind, z.kind, b.reg, z.reg, (long long)b.rel,
			(long long)z.rel);
	}
}

/* The executable mapping of libc in this process: *START, *END and its
 * file's PATH and OFFSET; 0 when there is none. */
static int libc_code(uintptr_t *start, uintptr_t *end, char *path, size_t len, uint64_t *offset)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], perms[8], file[400];
	unsigned long long off;
	int found = 0;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		file[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %llx %*s %*s %399s", start, end, perms, &off, file) >=
			    4 &&
		    strcmp(perms, "r-xp") == 0 && strstr(file, "/libc.so.6")) {
			snprintf(path, len, "%s", file);
			*offset = off;
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/*
 * The planner reads most instructions from insnlen.c's tables rather than
 * Zydis: at every byte offset of libc's code and on generated encodings
 * (prefixes, maps, ModRM and SIB forms), where the tables answer they say
 * what Zydis does, and libc's plan is byte for byte the one Zydis alone
 * makes (chaos's too).
 */
static void test_insn_brief(void **state)
{
	static const uint8_t prefixes[] = { 0x66, 0xf2, 0xf3, 0x2e, 0x3e, 0x26, 0x36,
					    0x64, 0x65, 0xf0, 0x67, 0x40, 0x41, 0x44,
					    0x48, 0x49, 0x4c, 0x4d, 0x4f, 0x66 };
	struct dw_patch_plan want, got;
	uintptr_t start, end;
	char path[400];
	uint64_t off, x = 0x9e3779b97f4a7c15ULL;
	size_t answered = 0;

	(void)state;
	for (uint32_t k = 0; k < 1000000; k++) {
		unsigned char buf[20];
		size_t i = 0, np;

		for (size_t b = 0; b < sizeof(buf); b++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[b] = (unsigned char)x;
		}
		np = buf[19] % 4;
		for (size_t j = 0; j < np; j++, i++)
			buf[i] = prefixes[buf[i + 10] % sizeof(prefixes)];
		if (buf[18] % 3 == 0) {
			buf[i] = 0x0f;
			if (buf[17] % 4 == 0)
				buf[i + 1] = buf[17] & 4 ? 0x3a : 0x38;
		}
		same_brief(buf, 15, &answered);
		same_brief(buf, 1 + buf[16] % 15, &answered); /* cut short */
	}
	assert_true(answered > 100000);
	if (!libc_code(&start, &end, path, sizeof(path), &off)) {
		print_message("no libc.so.6 mapped: its code not checked\n");
		return;
	}
	answered = 0;
	for (uintptr_t a = start; a < end; a++)
		same_brief((const unsigned char *)a, end - a, &answered);
	assert_true(answered > (end - start) / 8);
	for (unsigned density = 0; density <= 20; density += 20) {
		dw_patch_zydis_only = 1;
		assert_int_equal(dw_patch_plan_file(path, off, 5, density, &want), 0);
		dw_patch_zydis_only = 0;
		assert_int_equal(dw_patch_plan_file(path, off, 5, density, &got), 0);
		assert_true(want.n > 1000);
		same_plan(&want, &got);
		assert_int_equal(want.ntarget, got.ntarget);
		dw_patch_plan_free(&want);
		dw_patch_plan_free(&got);
	}
}

/* Whether instruction B (at PB) means what A (at PA) meant: the same
 * mnemonic, prefixes and operands, its relative and rip-relative operands
 * reaching the same addresses (a branch's width may differ). */
static int same_meaning(const ZydisDecodedInstruction *a, const ZydisDecodedOperand *oa,
			uint64_t pa, const ZydisDecodedInstruction *b,
			const ZydisDecodedOperand *ob, uint64_t pb)
{
	const ZyanU64 prefixes = ZYDIS_ATTRIB_HAS_LOCK | ZYDIS_ATTRIB_HAS_REP |
				 ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE |
				 ZYDIS_ATTRIB_HAS_SEGMENT_FS | ZYDIS_ATTRIB_HAS_SEGMENT_GS |
				 ZYDIS_ATTRIB_HAS_NOTRACK;
	int branch = a->meta.category == ZYDIS_CATEGORY_COND_BR ||
		     a->meta.category == ZYDIS_CATEGORY_UNCOND_BR;

	if (a->mnemonic != b->mnemonic || a->operand_count != b->operand_count ||
	    ((a->attributes ^ b->attributes) & prefixes) ||
	    a->avx.vector_length != b->avx.vector_length ||
	    a->avx.mask.reg != b->avx.mask.reg || a->avx.broadcast.mode != b->avx.broadcast.mode)
		return 0;
	for (unsigned k = 0; k < a->operand_count; k++) {
		const ZydisDecodedOperand *x = &oa[k], *y = &ob[k];
		ZyanU64 ax, ay;

		if (x->type != y->type || (!branch && (x->size != y->size || x->actions != y->actions)))
			return 0;
		if (x->type == ZYDIS_OPERAND_TYPE_REGISTER && !branch && x->reg.value != y->reg.value)
			return 0;
		if ((x->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && x->imm.is_relative) ||
		    (x->type == ZYDIS_OPERAND_TYPE_MEMORY && x->mem.base == ZYDIS_REGISTER_RIP)) {
			if (ZYAN_FAILED(ZydisCalcAbsoluteAddress(a, x, pa, &ax)) ||
			    ZYAN_FAILED(ZydisCalcAbsoluteAddress(b, y, pb, &ay)) || ax != ay)
				return 0;
		} else if (x->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && x->imm.value.u != y->imm.value.u) {
			return 0;
		} else if (x->type == ZYDIS_OPERAND_TYPE_MEMORY &&
			   (x->mem.base != y->mem.base || x->mem.index != y->mem.index ||
			    x->mem.scale != y->mem.scale || x->mem.disp.value != y->mem.disp.value ||
			    x->mem.segment != y->mem.segment)) {
			return 0;
		}
	}
	return 1;
}

/*
 * Every instruction of libc's code taken into a trampoline (chaos's
 * density 1 makes each its own site) means there what it meant in place:
 * the trampolines are decoded and compared, instruction by instruction,
 * with the original. Zydis's encoder once put a `bnd jcc` one byte past
 * its target; an instruction it cannot move right falls back to an int3.
 * (Calls are moved as a push of the original return address and a jmp:
 * a range is compared up to its first call.)
 */
static void test_relocated_libc(void **state)
{
	uintptr_t start, end;
	char path[400];
	uint64_t off;
	struct dw_patch_plan plan;
	struct dw_patch_site *psites;
	uint8_t *patched, *tramp;
	uint64_t tramp_addr;
	size_t n = 0, checked = 0, len;
	ZydisDecoder dec;

	(void)state;
	if (!libc_code(&start, &end, path, sizeof(path), &off)) {
		print_message("no libc.so.6 mapped: its code not checked\n");
		return;
	}
	len = end - start;
	assert_int_equal(dw_patch_plan_buf((const unsigned char *)start, len, start, 1, 1, &plan),
			 0);
	assert_true(plan.n > 10000);
	patched = malloc(len);
	tramp = malloc(plan.tramp_size);
	psites = calloc(plan.n, sizeof(*psites));
	assert_non_null(patched);
	assert_non_null(tramp);
	assert_non_null(psites);
	tramp_addr = (start - plan.tramp_size - (1 << 20)) & ~(uint64_t)4095;
	assert_true(dw_patch_emit(&plan, 0, (const uint8_t *)start, start, len, patched, tramp,
				  tramp_addr, plan.tramp_size, 0x70000000, psites, &n) > 0);
	assert_int_equal(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64),
			 ZYAN_STATUS_SUCCESS);
	for (size_t i = 0; i < n; i++) {
		const struct dw_patch_site *site = &psites[i];
		/* the instructions taken come after the count: 11 bytes of the
		 * short form from its entry, 37 of the long */
		uint64_t pa = site->addr,
			 pb = site->tramp + (site->trap - site->tramp_start == 12 ? 11 : 37);

		if (site->kind != DW_PATCH_JUMP)
			continue;
		for (size_t k = 0; k < site->len;) {
			ZydisDecodedInstruction za, zb;
			ZydisDecodedOperand oa[ZYDIS_MAX_OPERAND_COUNT], ob[ZYDIS_MAX_OPERAND_COUNT];

			assert_true(ZYAN_SUCCESS(ZydisDecoderDecodeFull(
				&dec, (const uint8_t *)pa, end - pa, &za, oa)));
			if (za.meta.category == ZYDIS_CATEGORY_CALL)
				break;
			assert_true(ZYAN_SUCCESS(ZydisDecoderDecodeFull(
				&dec, tramp + (pb - tramp_addr), plan.tramp_size - (pb - tramp_addr),
				&zb, ob)));
			if (!same_meaning(&za, oa, pa, &zb, ob, pb))
				fail_msg("the instruction at %#lx means another thing moved to %#lx",
					 (unsigned long)pa, (unsigned long)pb);
			checked++;
			k += za.length;
			pa += za.length;
			pb += zb.length;
		}
	}
	assert_true(checked > 100000);
	free(psites);
	free(tramp);
	free(patched);
	dw_patch_plan_free(&plan);
}

/* Plan OFF of this test's own file through the cache in DIR: it must
 * equal WANT, and be read from the cache when HIT_WANTED. */
static void plan_again(const char *dir, uint64_t off, const struct dw_patch_plan *want,
		       int hit_wanted)
{
	struct dw_patch_plan got;
	int hit = -1;

	assert_int_equal(dw_patch_plan_cached(dir, "/proc/self/exe", off, 0, 0, &got, &hit), 0);
	assert_int_equal(hit, hit_wanted);
	same_plan(want, &got);
	dw_patch_plan_free(&got);
}

/* The plan cache (plancache.c): made with its parents where none is (a
 * fresh machine has no ~/.cache); a second plan of the same file is read
 * back and equals a fresh one; a damaged or cut plan file is planned again. */
static void test_plan_cache(void **state)
{
	char tmp[] = "/tmp/hermit-plancache.XXXXXX", dir[128], cmd[512];
	struct dw_patch_plan want, got;
	uint64_t off;
	int hit = -1;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	snprintf(dir, sizeof(dir), "%s/home/.cache/hermit", tmp);
	assert_int_equal(dw_patch_plan_file("/proc/self/exe", 0, 0, 0, &want), -ENOEXEC);
	/* This test's own code: the first executable segment. */
	for (off = 0; off < (1u << 24); off += 4096) {
		if (dw_patch_plan_file("/proc/self/exe", off, 0, 0, &want) == 0)
			break;
	}
	assert_true(off < (1u << 24));
	plan_again(dir, off, &want, 0);
	plan_again(dir, off, &want, 1);
	/* Another seed and density: another plan. */
	assert_int_equal(dw_patch_plan_cached(dir, "/proc/self/exe", off, 7, 3, &got, &hit), 0);
	assert_int_equal(hit, 0);
	dw_patch_plan_free(&got);
	/* Every kept plan cut in half: each is made again, and right. */
	snprintf(cmd, sizeof(cmd),
		 "for f in %s/*/*; do truncate -s $(($(stat -c %%s \"$f\") / 2)) \"$f\"; done",
		 dir);
	assert_int_equal(system(cmd), 0);
	plan_again(dir, off, &want, 0);
	/* A flipped byte in the ranges: the digest catches it. */
	snprintf(cmd, sizeof(cmd),
		 "for f in %s/*/*-0-0; do printf '\\377' | dd of=\"$f\" bs=1 seek=200 "
		 "conv=notrunc 2>/dev/null; done",
		 dir);
	assert_int_equal(system(cmd), 0);
	plan_again(dir, off, &want, 0);
	plan_again(dir, off, &want, 1);
	dw_patch_plan_free(&want);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	assert_int_equal(system(cmd), 0);
}

/* Two instructions for the instruction map to find in this test's own
 * file: never run. */
__asm__(".pushsection .text\n"
	"hermit_test_tsc_probe: rdtsc\n"
	"rdtscp\n"
	"ret\n"
	".popsection\n");

struct insns {
	struct dw_insn v[256];
	size_t n;
};

static int keep_insn(const struct dw_insn *insn, void *arg)
{
	struct insns *s = arg;

	if (s->n < 256)
		s->v[s->n++] = *insn;
	return 0;
}

/* Scan PATH through the cache in DIR: it must find what WANT holds, and
 * read it back when HIT_WANTED. */
static void scan_again(const char *dir, const char *path, const struct insns *want, int hit_wanted)
{
	struct insns got = { .n = 0 };
	int hit = -1;

	assert_int_equal(dw_insn_scan_cached(dir, path, keep_insn, &got, &hit), (int)want->n);
	assert_int_equal(hit, hit_wanted);
	assert_int_equal(got.n, want->n);
	for (size_t i = 0; i < want->n; i++) {
		assert_int_equal(got.v[i].vaddr, want->v[i].vaddr);
		assert_int_equal(got.v[i].length, want->v[i].length);
		assert_int_equal(got.v[i].kind, want->v[i].kind);
	}
}

/* A binary that makes its cache folder deletes the folders of all but the
 * two most recently used other binaries, and nothing else. */
static void test_cache_prune(void **state)
{
	char tmp[] = "/tmp/hermit-prune.XXXXXX", path[256], name[512], cmd[512];
	static const char *const others[] = { "0000000000000001", "0000000000000002",
					      "0000000000000003", "0000000000000004" };
	struct stat st;
	int left = 0;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	for (int i = 0; i < 4; i++) {
		struct timespec when[2] = { { 1700000000 + i, 0 }, { 1700000000 + i, 0 } };

		snprintf(path, sizeof(path), "%s/%s", tmp, others[i]);
		assert_int_equal(mkdir(path, 0700), 0);
		snprintf(cmd, sizeof(cmd), "echo x >%s/kept", path);
		assert_int_equal(system(cmd), 0);
		assert_int_equal(utimensat(AT_FDCWD, path, when, 0), 0);
	}
	snprintf(path, sizeof(path), "%s/notes", tmp); /* not a binary's */
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(dw_cache_name(tmp, "/proc/self/exe", "x", name, sizeof(name)), 0);
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", tmp, others[i]);
		left |= (stat(path, &st) == 0) << i;
	}
	assert_int_equal(left, 0xc); /* the two newest */
	snprintf(path, sizeof(path), "%s/notes", tmp);
	assert_int_equal(stat(path, &st), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	assert_int_equal(system(cmd), 0);
}

/* The instruction map kept across runs (insncache.c, cachefile.c): read
 * back when the file's contents are the same (another inode with the same
 * bytes too), decoded again when they differ, when the kept file is cut
 * short or damaged, and without a cache folder at all. */
static void test_insn_cache(void **state)
{
	char tmp[] = "/tmp/hermit-insncache.XXXXXX", dir[128], copy[128], cmd[512];
	struct insns want = { .n = 0 }, other = { .n = 0 };
	struct dw_cache_blob b;
	int hit = -1, kinds = 0;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	snprintf(dir, sizeof(dir), "%s/cache", tmp);
	assert_true(dw_insn_scan("/proc/self/exe", keep_insn, &want) >= 2);
	for (size_t i = 0; i < want.n; i++)
		kinds |= 1 << want.v[i].kind;
	assert_true((kinds & (1 << DW_INSN_RDTSC)) && (kinds & (1 << DW_INSN_RDTSCP)));
	scan_again(NULL, "/proc/self/exe", &want, 0);
	scan_again(dir, "/proc/self/exe", &want, 0);
	scan_again(dir, "/proc/self/exe", &want, 1);
	/* The same bytes elsewhere: the same kept map. */
	snprintf(copy, sizeof(copy), "%s/copy", tmp);
	snprintf(cmd, sizeof(cmd), "cp /proc/%d/exe %s", (int)getpid(), copy);
	assert_int_equal(system(cmd), 0);
	scan_again(dir, copy, &want, 1);
	/* Other bytes (one appended): another key, decoded. */
	snprintf(cmd, sizeof(cmd), "printf x >> %s", copy);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(dw_insn_scan_cached(dir, copy, keep_insn, &other, &hit), (int)want.n);
	assert_int_equal(hit, 0);
	/* Cut short, then a flipped byte: each is decoded again, and right. */
	snprintf(cmd, sizeof(cmd),
		 "for f in %s/*/*-insns; do truncate -s $(($(stat -c %%s \"$f\") / 2)) \"$f\"; "
		 "done",
		 dir);
	assert_int_equal(system(cmd), 0);
	scan_again(dir, "/proc/self/exe", &want, 0);
	snprintf(cmd, sizeof(cmd),
		 "for f in %s/*/*-insns; do printf '\\377' | dd of=\"$f\" bs=1 seek=30 "
		 "conv=notrunc 2>/dev/null; done",
		 dir);
	assert_int_equal(system(cmd), 0);
	scan_again(dir, "/proc/self/exe", &want, 0);
	scan_again(dir, "/proc/self/exe", &want, 1);
	/* A kept file read as another kind: not one. */
	snprintf(cmd, sizeof(cmd), "%s/blob", tmp);
	assert_int_equal(dw_cache_alloc(&b, "HMTEST01", 5), 0);
	memcpy(b.body, "hello", 5);
	assert_int_equal(dw_cache_store(cmd, &b), 0);
	dw_cache_free(&b);
	assert_int_equal(dw_cache_load(cmd, "HMTEST02", &b), -EBADMSG);
	assert_int_equal(dw_cache_load(cmd, "HMTEST01", &b), 0);
	assert_int_equal(b.len, 5);
	assert_memory_equal(b.body, "hello", 5);
	dw_cache_free(&b);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	assert_int_equal(system(cmd), 0);
}

/* Fill O's "made for" fields as the tracer would for a mapping. */
static void out_for(struct dw_patch_out *o, uint64_t tramp_addr)
{
	memset(o, 0, sizeof(*o));
	o->code_addr = 0x401000;
	o->code_len = 100;
	o->tramp_addr = tramp_addr;
	o->tramp_len = 4096;
	o->counter = 0x70000000;
	o->bias = 0;
}

/* Patched code kept across runs (patchcache.c): read back whole for the
 * same addresses; a miss for another trampoline place, and for a file cut
 * short or with a flipped byte. */
static void test_patch_out_cache(void **state)
{
	char tmp[] = "/tmp/hermit-emitcache.XXXXXX", file[128], cmd[512];
	struct dw_patch_out o;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	snprintf(file, sizeof(file), "%s/emit", tmp);
	out_for(&o, 0x300000);
	assert_int_equal(dw_patch_out_alloc(&o, 3), 0);
	for (size_t i = 0; i < o.code_len; i++) {
		o.orig[i] = (uint8_t)i;
		o.patched[i] = (uint8_t)(i ^ 0x5a);
	}
	memset(o.tramp, 0xcc, 40);
	o.tramp_used = 40;
	o.sites[0].addr = 0x401010;
	o.sites[0].kind = DW_PATCH_JUMP;
	o.sites[0].trap = 0x300004;
	o.n = 1;
	o.traps[0] = 0x300004;
	o.traps[1] = 0;
	o.ntraps = 1;
	/* made in memory: nothing to map the trampolines from */
	assert_int_equal(dw_patch_out_tramp_offset(&o), -1);
	assert_int_equal(dw_patch_out_store(file, &o), 0);
	dw_patch_out_free(&o);

	out_for(&o, 0x300000);
	assert_int_equal(dw_patch_out_load(file, &o), 0);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.ntraps, 1);
	assert_int_equal(o.tramp_used, 40);
	assert_int_equal(o.sites[0].addr, 0x401010);
	assert_int_equal(o.traps[0], 0x300004);
	for (size_t i = 0; i < o.code_len; i++) {
		assert_int_equal(o.orig[i], (uint8_t)i);
		assert_int_equal(o.patched[i], (uint8_t)(i ^ 0x5a));
	}
	assert_int_equal(o.tramp[39], 0xcc);
	/* The trampolines start at a page of the file, which holds them
	 * there (the tracer maps them into guests from it). */
	{
		int64_t off = dw_patch_out_tramp_offset(&o);
		uint8_t page[40];
		FILE *f = fopen(file, "rb");

		assert_true(off > 0);
		assert_int_equal(off % 4096, 0);
		assert_non_null(f);
		assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
		assert_int_equal(fread(page, 1, sizeof(page), f), sizeof(page));
		fclose(f);
		assert_memory_equal(page, o.tramp, sizeof(page));
	}
	dw_patch_out_free(&o);
	/* Made for trampolines elsewhere: not these. */
	out_for(&o, 0x200000);
	assert_int_equal(dw_patch_out_load(file, &o), -ESTALE);
	assert_null(o.blob.map);
	/* A flipped byte in the trampolines, then a cut: damaged. */
	snprintf(cmd, sizeof(cmd),
		 "printf '\\377' | dd of=%s bs=1 seek=4100 conv=notrunc 2>/dev/null", file);
	assert_int_equal(system(cmd), 0);
	out_for(&o, 0x300000);
	assert_int_equal(dw_patch_out_load(file, &o), -EBADMSG);
	snprintf(cmd, sizeof(cmd), "truncate -s 300 %s", file);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(dw_patch_out_load(file, &o), -EBADMSG);
	assert_int_equal(dw_patch_out_load("/nonexistent/emit", &o), -ENOENT);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jcc_rel8),
		cmocka_unit_test(test_flags_live),
		cmocka_unit_test(test_jcc_rel32),
		cmocka_unit_test(test_bnd_jcc),
		cmocka_unit_test(test_relocated_libc),
		cmocka_unit_test(test_jmp),
		cmocka_unit_test(test_indirect_call),
		cmocka_unit_test(test_call_counted_before),
		cmocka_unit_test(test_after_counted_call),
		cmocka_unit_test(test_site_after),
		cmocka_unit_test(test_join_previous),
		cmocka_unit_test(test_count_the_call),
		cmocka_unit_test(test_indirect_call_pad),
		cmocka_unit_test(test_indirect_jmp_riprel),
		cmocka_unit_test(test_riprel_neighbour),
		cmocka_unit_test(test_data_read),
		cmocka_unit_test(test_data_taken),
		cmocka_unit_test(test_count_at_target),
		cmocka_unit_test(test_loop_insn),
		cmocka_unit_test(test_target_inside),
		cmocka_unit_test(test_recursion),
		cmocka_unit_test(test_stop_anywhere),
		cmocka_unit_test(test_insn_brief),
		cmocka_unit_test(test_plan_cache),
		cmocka_unit_test(test_insn_cache),
		cmocka_unit_test(test_cache_prune),
		cmocka_unit_test(test_patch_out_cache),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
