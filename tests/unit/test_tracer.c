/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the tick sources' logic (DESIGN.md "Preemption"), which
 * this project's machines cannot exercise through a real PMU: the raw
 * retired-conditional-branch event chosen for a CPU vendor and model, the
 * overflow period armed early by the skid and the rest left to step; and
 * what the "sites" source and the instruction map make of hand-assembled
 * x86-64 bytes (encodings from the Intel SDM vol. 2, checked with
 * `objdump -D -b binary -m i386:x86-64`). Expected values are worked out
 * by hand, never by calling the code under test.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dwarf/dwarf.h"
#include "tracer/tracer.h"

#define VADDR 0x401000ULL

/* ---- tracer_pmu_event: BR_INST_RETIRED.COND / Zen's retired branches ---- */

/* The raw config for VENDOR FAMILY MODEL, which must be supported. */
static uint64_t event_ok(const char *vendor, int family, int model)
{
	uint64_t config = 0xdeadbeef;
	int err = tracer_pmu_event(vendor, family, model, &config);

	if (err != 0)
		fail_msg("tracer_pmu_event(%s, %#x, %#x) returned %d", vendor, family, model, err);
	return config;
}

static void test_pmu_event_intel(void **state)
{
	(void)state;
	/* Skylake-SP (model 0x55) and Kaby/Coffee Lake (0x9e): umask 0x01. */
	assert_int_equal(event_ok("GenuineIntel", 6, 0x55), 0x5101c4);
	assert_int_equal(event_ok("GenuineIntel", 6, 0x9e), 0x5101c4);
	assert_int_equal(event_ok("GenuineIntel", 6, 0x3c), 0x5101c4); /* Haswell */
	/* From Ice Lake on the event is umask 0x11: Ice Lake client (0x7e),
	 * Ice Lake server (0x6a), Alder Lake (0x9a), Sapphire Rapids (0x8f). */
	assert_int_equal(event_ok("GenuineIntel", 6, 0x7e), 0x5111c4);
	assert_int_equal(event_ok("GenuineIntel", 6, 0x6a), 0x5111c4);
	assert_int_equal(event_ok("GenuineIntel", 6, 0x9a), 0x5111c4);
	assert_int_equal(event_ok("GenuineIntel", 6, 0x8f), 0x5111c4);
}

static void test_pmu_event_amd(void **state)
{
	(void)state;
	/* Zen 1/2 (family 0x17), Zen 3/4 (0x19): event 0xd1. */
	assert_int_equal(event_ok("AuthenticAMD", 0x17, 0x01), 0x5100d1);
	assert_int_equal(event_ok("AuthenticAMD", 0x17, 0x31), 0x5100d1);
	assert_int_equal(event_ok("AuthenticAMD", 0x19, 0x21), 0x5100d1);
	/* Hygon Dhyana is a Zen (family 0x18). */
	assert_int_equal(event_ok("HygonGenuine", 0x18, 0x00), 0x5100d1);
}

static void test_pmu_event_unsupported(void **state)
{
	uint64_t config = 0;

	(void)state;
	/* Bulldozer-era AMD (family 0x15) has no exact conditional-branch
	 * count; nor does a vendor Hermit does not know. */
	assert_int_equal(tracer_pmu_event("AuthenticAMD", 0x15, 0x02, &config), -ENOTSUP);
	assert_int_equal(tracer_pmu_event("AuthenticAMD", 0x10, 0x02, &config), -ENOTSUP);
	assert_int_equal(tracer_pmu_event("CentaurHauls", 6, 0x0f, &config), -ENOTSUP);
	assert_int_equal(tracer_pmu_event("", 6, 0x55, &config), -ENOTSUP);
	/* The vendor string is compared whole. */
	assert_int_equal(tracer_pmu_event("GenuineIntelX", 6, 0x55, &config), -ENOTSUP);
}

/* ---- tracer_pmu_period and tracer_pmu_remaining ---- */

static void test_pmu_period(void **state)
{
	(void)state;
	/* The interrupt is armed SKID ticks early ... */
	assert_int_equal(tracer_pmu_period(1000, 100), 900);
	assert_int_equal(tracer_pmu_period(101, 100), 1);
	assert_int_equal(tracer_pmu_period(50, 0), 50);
	assert_int_equal(tracer_pmu_period(1ULL << 40, 250), (1ULL << 40) - 250);
	/* ... but a period of 0 would never overflow: at least 1. */
	assert_int_equal(tracer_pmu_period(100, 100), 1);
	assert_int_equal(tracer_pmu_period(10, 100), 1);
	assert_int_equal(tracer_pmu_period(1, 0), 1);
	assert_int_equal(tracer_pmu_period(0, 0), 1);
	assert_int_equal(tracer_pmu_period(0, 100), 1);
}

static void test_pmu_remaining(void **state)
{
	(void)state;
	/* What is left to single-step to the exact count ... */
	assert_int_equal(tracer_pmu_remaining(1000, 900), 100);
	assert_int_equal(tracer_pmu_remaining(1000, 999), 1);
	assert_int_equal(tracer_pmu_remaining(1000, 1000), 0);
	assert_int_equal(tracer_pmu_remaining(1ULL << 40, (1ULL << 40) - 7), 7);
	/* ... negative when the interrupt landed later than the skid allows. */
	assert_int_equal(tracer_pmu_remaining(1000, 1010), -10);
	assert_int_equal(tracer_pmu_remaining(0, 3), -3);
	/* Arming by the period and counting to it leaves the skid to step. */
	assert_int_equal(tracer_pmu_remaining(5000, tracer_pmu_period(5000, 70)), 70);
}

/* ---- dw_sites_buf: preemption sites ---- */

#define MAX_FOUND 256

struct found {
	struct dw_site sites[MAX_FOUND];
	size_t n;
};

static int collect_site(const struct dw_site *site, void *arg)
{
	struct found *f = arg;

	if (f->n == MAX_FOUND)
		fail_msg("more than %d sites", MAX_FOUND);
	f->sites[f->n++] = *site;
	return 0;
}

/* Sites of BUF at VADDR with SEED, DENSITY and MAX into *F; checks that the
 * count returned is the number of callbacks. */
static void sites_of(const unsigned char *buf, size_t len, uint64_t seed, unsigned density,
		     size_t max, struct found *f)
{
	int n;

	memset(f, 0, sizeof(*f));
	n = dw_sites_buf(buf, len, VADDR, seed, density, max, collect_site, f);
	assert_true(n >= 0);
	assert_int_equal((size_t)n, f->n);
}

/* 0: inc eax; 2: cmp eax, ebx; 4: jne 0 */
static const unsigned char loop[] = { 0xff, 0xc0, 0x39, 0xd8, 0x75, 0xfa };

static void test_sites_backward_branch(void **state)
{
	struct found f;

	(void)state;
	/* Without chaos a loop's only site is its branch back. */
	sites_of(loop, sizeof(loop), 0, 0, 100, &f);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.sites[0].vaddr, VADDR + 4);
	assert_int_equal(f.sites[0].backward, 1);
	/* Whatever the seed: backward branches are not sampled. */
	sites_of(loop, sizeof(loop), 12345, 0, 100, &f);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.sites[0].vaddr, VADDR + 4);
	/* The callback is optional; the count is the same. */
	assert_int_equal(dw_sites_buf(loop, sizeof(loop), VADDR, 0, 0, 100, NULL, NULL), 1);
}

static void test_sites_jump_kinds(void **state)
{
	/* 0: nop; 1: nop; 2: jmp 0 (a branch back, unconditional);
	 * 4: je 7 (forward); 6: nop; 7: jmp 7 (to itself: a loop) */
	static const unsigned char buf[] = { 0x90, 0x90, 0xeb, 0xfc, 0x74, 0x01, 0x90, 0xeb, 0xfe };
	/* 0: jne 3 (forward); 2: ret; 3: jmp 6 (forward); 5: ret */
	static const unsigned char fwd[] = { 0x75, 0x01, 0xc3, 0xeb, 0x01, 0xc3 };
	struct found f;

	(void)state;
	sites_of(buf, sizeof(buf), 0, 0, 100, &f);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.sites[0].vaddr, VADDR + 2);
	assert_int_equal(f.sites[0].backward, 1);
	assert_int_equal(f.sites[1].vaddr, VADDR + 7);
	assert_int_equal(f.sites[1].backward, 1);
	/* A forward jump is not a site. */
	sites_of(fwd, sizeof(fwd), 0, 0, 100, &f);
	assert_int_equal(f.n, 0);
	/* Nor with every instruction eligible: jumps are never sampled. */
	sites_of(fwd, sizeof(fwd), 1, 1, 100, &f);
	assert_int_equal(f.n, 0);
}

/* Every kind of instruction that must never be a site, among some that may. */
static const unsigned char mixed[] = {
	0xff, 0xc0,		      /* 0x00: inc eax		site */
	0x0f, 0x05,		      /* 0x02: syscall */
	0xcc,			      /* 0x04: int3 */
	0xe8, 0x00, 0x00, 0x00, 0x00, /* 0x05: call 0x0a */
	0xc3,			      /* 0x0a: ret */
	0x90,			      /* 0x0b: nop			site */
	0x39, 0xd8,		      /* 0x0c: cmp eax, ebx		site */
	0xcd, 0x80,		      /* 0x0e: int 0x80 */
	0x0f, 0x0b,		      /* 0x10: ud2 */
	0xf4,			      /* 0x12: hlt */
	0xff, 0xe0,		      /* 0x13: jmp rax */
	0xff, 0xd0,		      /* 0x15: call rax */
	0x74, 0x01,		      /* 0x17: je 0x1a (forward) */
	0x90,			      /* 0x19: nop			site */
	0x75, 0xe4,		      /* 0x1a: jne 0 (backward)	site */
};

static void test_sites_density_one(void **state)
{
	static const uint64_t want[] = { 0x00, 0x0b, 0x0c, 0x19, 0x1a };
	struct found f;

	(void)state;
	for (uint64_t seed = 0; seed < 4; seed++) {
		sites_of(mixed, sizeof(mixed), seed, 1, 100, &f);
		assert_int_equal(f.n, sizeof(want) / sizeof(want[0]));
		for (size_t i = 0; i < f.n; i++) {
			assert_int_equal(f.sites[i].vaddr, VADDR + want[i]);
			/* Only the branch back is marked backward. */
			assert_int_equal(f.sites[i].backward, want[i] == 0x1a);
		}
	}
	/* Without chaos only the branch back. */
	sites_of(mixed, sizeof(mixed), 0, 0, 100, &f);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.sites[0].vaddr, VADDR + 0x1a);
}

#define NNOPS 64

/* Bit I set: the nop at VADDR + I is a site. */
static uint64_t nop_set(uint64_t seed, unsigned density)
{
	unsigned char nops[NNOPS];
	struct found f;
	uint64_t set = 0;

	memset(nops, 0x90, sizeof(nops));
	sites_of(nops, sizeof(nops), seed, density, 1000, &f);
	for (size_t i = 0; i < f.n; i++) {
		assert_true(f.sites[i].vaddr >= VADDR && f.sites[i].vaddr < VADDR + NNOPS);
		assert_int_equal(f.sites[i].backward, 0);
		set |= 1ULL << (f.sites[i].vaddr - VADDR);
	}
	assert_int_equal((size_t)__builtin_popcountll(set), f.n);
	return set;
}

static void test_sites_seeds(void **state)
{
	uint64_t a = nop_set(1, 2), b = nop_set(2, 2), c = nop_set(3, 2);
	int na = __builtin_popcountll(a);

	(void)state;
	/* The same seed picks the same sites ... */
	assert_int_equal(nop_set(1, 2), a);
	assert_int_equal(nop_set(2, 2), b);
	/* ... different seeds different ones ... */
	assert_int_not_equal(a, b);
	assert_int_not_equal(a, c);
	assert_int_not_equal(b, c);
	/* ... about one in two (64 draws: 16..48 is four standard deviations). */
	assert_in_range(na, 16, 48);
	assert_in_range(__builtin_popcountll(b), 16, 48);
	/* Density 1 takes all, density 0 none. */
	assert_int_equal(nop_set(1, 1), UINT64_MAX);
	assert_int_equal(nop_set(1, 0), 0);
	/* One in eight is fewer than one in two. */
	assert_in_range(__builtin_popcountll(nop_set(1, 8)), 1, 20);
}

static void test_sites_max(void **state)
{
	unsigned char nops[NNOPS];
	struct found f;

	(void)state;
	memset(nops, 0x90, sizeof(nops));
	sites_of(nops, sizeof(nops), 0, 1, 5, &f);
	assert_int_equal(f.n, 5);
	for (size_t i = 0; i < f.n; i++)
		assert_int_equal(f.sites[i].vaddr, VADDR + i);
	sites_of(nops, sizeof(nops), 0, 1, 1, &f);
	assert_int_equal(f.n, 1);
	sites_of(nops, sizeof(nops), 0, 1, 0, &f);
	assert_int_equal(f.n, 0);
	/* The backward branch counts against MAX like any other. */
	sites_of(mixed, sizeof(mixed), 0, 1, 3, &f);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.sites[2].vaddr, VADDR + 0x0c);
}

static int refuse_site(const struct dw_site *site, void *arg)
{
	int *calls = arg;

	(void)site;
	(*calls)++;
	return -EIO;
}

static void test_sites_callback_error(void **state)
{
	int calls = 0;

	(void)state;
	assert_int_equal(dw_sites_buf(loop, sizeof(loop), VADDR, 0, 0, 100, refuse_site, &calls),
			 -EIO);
	assert_int_equal(calls, 1);
}

/* ---- dw_insn_scan_buf: the nondeterministic instructions ---- */

struct insns {
	struct dw_insn insn[16];
	size_t n;
};

static int collect_insn(const struct dw_insn *insn, void *arg)
{
	struct insns *s = arg;

	if (s->n == 16)
		fail_msg("more than 16 instructions");
	s->insn[s->n++] = *insn;
	return 0;
}

static void test_insn_scan(void **state)
{
	static const unsigned char buf[] = {
		0x90,			/* 0x00: nop */
		0x0f, 0x31,		/* 0x01: rdtsc */
		0x0f, 0x01, 0xf9,	/* 0x03: rdtscp */
		0x48, 0x89, 0xc3,	/* 0x06: mov rbx, rax */
		0x0f, 0xa2,		/* 0x09: cpuid */
		0x0f, 0xc7, 0xf0,	/* 0x0b: rdrand eax */
		0x0f, 0xc7, 0xf8,	/* 0x0e: rdseed eax */
		0xf3, 0x0f, 0xc7, 0xf8, /* 0x11: rdpid rax */
		0xc3,			/* 0x15: ret */
	};
	static const struct {
		uint64_t off;
		unsigned length;
		enum dw_insn_kind kind;
		const char *name;
	} want[] = {
		{ 0x01, 2, DW_INSN_RDTSC, "rdtsc" },   { 0x03, 3, DW_INSN_RDTSCP, "rdtscp" },
		{ 0x09, 2, DW_INSN_CPUID, "cpuid" },   { 0x0b, 3, DW_INSN_RDRAND, "rdrand" },
		{ 0x0e, 3, DW_INSN_RDSEED, "rdseed" }, { 0x11, 4, DW_INSN_RDPID, "rdpid" },
	};
	struct insns s = { 0 };

	(void)state;
	assert_int_equal(dw_insn_scan_buf(buf, sizeof(buf), VADDR, collect_insn, &s), 6);
	assert_int_equal(s.n, 6);
	for (size_t i = 0; i < s.n; i++) {
		assert_int_equal(s.insn[i].vaddr, VADDR + want[i].off);
		assert_int_equal(s.insn[i].length, want[i].length);
		assert_int_equal(s.insn[i].kind, want[i].kind);
		assert_string_equal(dw_insn_kind_name(s.insn[i].kind), want[i].name);
	}
}

static void test_insn_scan_none(void **state)
{
	/* mov eax, 0x90310f90; ret: the 0f 31 inside the immediate is not an
	 * rdtsc. */
	static const unsigned char imm[] = { 0xb8, 0x90, 0x0f, 0x31, 0x90, 0xc3 };
	struct insns s = { 0 };

	(void)state;
	/* The loop has none either. */
	assert_int_equal(dw_insn_scan_buf(loop, sizeof(loop), VADDR, collect_insn, &s), 0);
	assert_int_equal(dw_insn_scan_buf(imm, sizeof(imm), VADDR, collect_insn, &s), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(dw_insn_scan_buf(imm, 0, VADDR, collect_insn, &s), 0);
}

/* ---- dw_insn_accesses: the memory an instruction reads and writes ---- */

/* Decode CODE (padded with nops) at 0x401000 with R, into OUT. */
static int accesses(const unsigned char *code, size_t len, struct user_regs_struct *r,
		    struct dw_access *out)
{
	unsigned char buf[16];

	memset(buf, 0x90, sizeof(buf));
	memcpy(buf, code, len);
	r->rip = 0x401000;
	return dw_insn_accesses(buf, sizeof(buf), r, out, 8);
}

static void expect_access(const struct dw_access *a, uint64_t addr, uint64_t size, int read,
			  int write)
{
	assert_int_equal(a->addr, addr);
	assert_int_equal(a->size, size);
	assert_int_equal(a->read, read);
	assert_int_equal(a->write, write);
}

static void test_insn_accesses(void **state)
{
	/* mov eax, [rip+0x10]: from the next instruction (6 bytes on) */
	static const unsigned char rip_load[] = { 0x8b, 0x05, 0x10, 0, 0, 0 };
	/* add dword [rax+rbx*4+8], 1: read and written */
	static const unsigned char add_mem[] = { 0x83, 0x44, 0x98, 0x08, 0x01 };
	/* mov eax, fs:[0x28]: the thread's block */
	static const unsigned char fs_load[] = { 0x64, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0 };
	static const unsigned char push_rax[] = { 0x50 }, pop_rax[] = { 0x58 };
	static const unsigned char call[] = { 0xe8, 0, 0, 0, 0 };
	/* movsb; rep movsb; lea rax, [rax+rbx*4] */
	static const unsigned char movsb[] = { 0xa4 }, rep_movsb[] = { 0xf3, 0xa4 };
	static const unsigned char lea[] = { 0x48, 0x8d, 0x04, 0x98 };
	/* nopl (%rax); nopw 0(%rax,%rax,1); prefetcht0 (%rax) */
	static const unsigned char nopl[] = { 0x0f, 0x1f, 0x00 },
				   nopw[] = { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
				   prefetch[] = { 0x0f, 0x18, 0x08 };
	/* mov [eax], ecx (32-bit address) */
	static const unsigned char addr32[] = { 0x67, 0x89, 0x08 };
	struct user_regs_struct r;
	struct dw_access a[8];

	(void)state;
	memset(&r, 0, sizeof(r));
	r.rax = 0x1000, r.rbx = 3, r.rsp = 0x7ff0, r.rsi = 0x2000, r.rdi = 0x3000, r.rcx = 5;
	r.fs_base = 0x50000;
	assert_int_equal(accesses(rip_load, sizeof(rip_load), &r, a), 1);
	expect_access(&a[0], 0x401016, 4, 1, 0);
	assert_int_equal(accesses(add_mem, sizeof(add_mem), &r, a), 1);
	expect_access(&a[0], 0x1000 + 3 * 4 + 8, 4, 1, 1);
	assert_int_equal(accesses(fs_load, sizeof(fs_load), &r, a), 1);
	expect_access(&a[0], 0x50028, 4, 1, 0);
	/* a push writes the slot below the stack pointer, a pop reads it */
	assert_int_equal(accesses(push_rax, sizeof(push_rax), &r, a), 1);
	expect_access(&a[0], 0x7fe8, 8, 0, 1);
	assert_int_equal(accesses(call, sizeof(call), &r, a), 1);
	expect_access(&a[0], 0x7fe8, 8, 0, 1);
	assert_int_equal(accesses(pop_rax, sizeof(pop_rax), &r, a), 1);
	expect_access(&a[0], 0x7ff0, 8, 1, 0);
	/* a string move reads one string and writes the other */
	assert_int_equal(accesses(movsb, sizeof(movsb), &r, a), 2);
	expect_access(&a[0], 0x3000, 1, 0, 1);
	expect_access(&a[1], 0x2000, 1, 1, 0);
	assert_int_equal(accesses(rep_movsb, sizeof(rep_movsb), &r, a), 2);
	r.rcx = 0;
	assert_int_equal(accesses(rep_movsb, sizeof(rep_movsb), &r, a), 0);
	/* lea computes an address and touches nothing; nor do nops with a
	 * memory operand (padding) and prefetches */
	assert_int_equal(accesses(lea, sizeof(lea), &r, a), 0);
	assert_int_equal(accesses(nopl, sizeof(nopl), &r, a), 0);
	assert_int_equal(accesses(nopw, sizeof(nopw), &r, a), 0);
	assert_int_equal(accesses(prefetch, sizeof(prefetch), &r, a), 0);
	r.rax = 0xffffffff00001000;
	assert_int_equal(accesses(addr32, sizeof(addr32), &r, a), 1);
	expect_access(&a[0], 0x1000, 4, 0, 1);
	/* no instruction */
	assert_int_equal(dw_insn_accesses(rep_movsb, 1, &r, a, 8), -EINVAL);
}

/* ---- dw_branch: calls and jumps to fixed places ---- */

static void test_branch(void **state)
{
	/* call rel32 +0x100; call [rip+0x20]; bnd jmp [rip+0x2fe2] (a PLT
	 * entry); jmp rel8 -4; call rax; mov eax, 1 */
	static const unsigned char call_rel[] = { 0xe8, 0x00, 0x01, 0, 0 },
				   call_got[] = { 0xff, 0x15, 0x20, 0, 0, 0 },
				   plt_jmp[] = { 0xf2, 0xff, 0x25, 0xe2, 0x2f, 0, 0 },
				   jmp_back[] = { 0xeb, 0xfc }, call_reg[] = { 0xff, 0xd0 },
				   mov[] = { 0xb8, 1, 0, 0, 0 };
	struct dw_branch b;

	(void)state;
	assert_int_equal(dw_branch(call_rel, sizeof(call_rel), 0x401000, &b), 0);
	assert_true(b.call && !b.through);
	assert_int_equal(b.length, 5);
	assert_int_equal(b.target, 0x401105);
	assert_int_equal(dw_branch(call_got, sizeof(call_got), 0x401000, &b), 0);
	assert_true(b.call && b.through);
	assert_int_equal(b.length, 6);
	assert_int_equal(b.target, 0x401026);
	assert_int_equal(dw_branch(plt_jmp, sizeof(plt_jmp), 0x401000, &b), 0);
	assert_true(!b.call && b.through);
	assert_int_equal(b.target, 0x401000 + 7 + 0x2fe2);
	assert_int_equal(dw_branch(jmp_back, sizeof(jmp_back), 0x401000, &b), 0);
	assert_true(!b.call && !b.through);
	assert_int_equal(b.target, 0x400ffe);
	/* through a register: no fixed place */
	assert_int_equal(dw_branch(call_reg, sizeof(call_reg), 0x401000, &b), -EINVAL);
	assert_int_equal(dw_branch(mov, sizeof(mov), 0x401000, &b), -EINVAL);
	assert_int_equal(dw_branch(call_rel, 3, 0x401000, &b), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pmu_event_intel),
		cmocka_unit_test(test_pmu_event_amd),
		cmocka_unit_test(test_pmu_event_unsupported),
		cmocka_unit_test(test_pmu_period),
		cmocka_unit_test(test_pmu_remaining),
		cmocka_unit_test(test_sites_backward_branch),
		cmocka_unit_test(test_sites_jump_kinds),
		cmocka_unit_test(test_sites_density_one),
		cmocka_unit_test(test_sites_seeds),
		cmocka_unit_test(test_sites_max),
		cmocka_unit_test(test_sites_callback_error),
		cmocka_unit_test(test_insn_scan),
		cmocka_unit_test(test_insn_scan_none),
		cmocka_unit_test(test_insn_accesses),
		cmocka_unit_test(test_branch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
