/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dwarf: what Hermit knows about the guest's files. For now the
 * instruction map: the nondeterministic instructions (rdtsc, rdtscp,
 * rdrand, rdseed, rdpid, cpuid) in an ELF file's executable sections,
 * found by decoding them with Zydis.
 */
#ifndef HERMIT_DWARF_H
#define HERMIT_DWARF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

enum dw_insn_kind {
	DW_INSN_RDTSC,
	DW_INSN_RDTSCP,
	DW_INSN_RDRAND,
	DW_INSN_RDSEED,
	DW_INSN_RDPID,
	DW_INSN_CPUID,
};

struct dw_insn {
	uint64_t vaddr;	 /* link-time virtual address */
	unsigned length; /* bytes */
	enum dw_insn_kind kind;
};

const char *dw_insn_kind_name(enum dw_insn_kind kind);

/*
 * Decode every executable section of the ELF file at PATH (a linear sweep,
 * which is exact for compiler output: x86-64 toolchains put no data in
 * .text) and call CB for each nondeterministic instruction. Returns the
 * number found, or -errno (-ENOEXEC when PATH is not a 64-bit x86 ELF).
 */
int dw_insn_scan(const char *path, int (*cb)(const struct dw_insn *insn, void *arg), void *arg);

/* Decode BUF (LEN bytes at VADDR) the same way; for tests and callers that
 * already hold the bytes. */
int dw_insn_scan_buf(const unsigned char *buf, size_t len, uint64_t vaddr,
		     int (*cb)(const struct dw_insn *insn, void *arg), void *arg);

/*
 * Call FN on each executable section of the ELF file at PATH (only .text
 * when TEXT_ONLY), with its bytes and link-time address; FN returns a
 * count, or -errno to stop. The sum of the counts, or -errno.
 */
int dw_for_code(const char *path, int text_only,
		int (*fn)(const unsigned char *buf, size_t len, uint64_t vaddr, void *arg),
		void *arg);

/*
 * The link-time address of the ELF file's first loadable segment and
 * whether the file is position independent (ET_DYN), to turn link-time
 * addresses into run-time ones. 0 or -errno.
 */
int dw_elf_load_base(const char *path, uint64_t *vaddr, int *pie);

/* ---- access.c: the memory an instruction reads and writes ---- */

struct dw_access {
	uint64_t addr, size; /* bytes */
	int read, write;
};

/*
 * Decode the instruction at the start of BUF (LEN bytes), about to run
 * with registers R (r->rip its address), and put the memory it reads and
 * writes in OUT, at most MAX: explicit operands, and hidden ones (the
 * stack slot of push, call, pop and ret, the strings of movs). Operands
 * with a vector index (gathers), nops and prefetches are left out; bt and
 * friends with a register bit offset are taken at their operand's address.
 * The count, or -EINVAL when BUF starts with no instruction.
 */
int dw_insn_accesses(const unsigned char *buf, size_t len, const struct user_regs_struct *r,
		     struct dw_access *out, size_t max);

struct dw_branch {
	int call;	 /* a call (else a jmp) */
	unsigned length; /* bytes */
	int through;	 /* 1: `target` is where the pointer to the place is */
	uint64_t target; /* where it goes (through == 0) */
};

/*
 * The instruction at the start of BUF (LEN bytes at address PC): when it
 * is a call or jmp to a fixed place, directly or through a pointer at a
 * fixed rip-relative address (a GOT slot), fill OUT and return 0; else
 * -EINVAL.
 */
int dw_branch(const unsigned char *buf, size_t len, uint64_t pc, struct dw_branch *out);

/* ---- sites.c: preemption sites ---- */

struct dw_site {
	uint64_t vaddr; /* link-time address of an instruction start */
	int backward;	/* a branch back: every loop passes one */
};

/*
 * Choose the preemption sites of the ELF file at PATH (DESIGN.md
 * "Preemption", sites): every backward branch, so that each loop can be
 * interrupted, and, when DENSITY > 0, about one other instruction in
 * DENSITY, picked by a hash of SEED and the address (chaos: different seeds
 * interrupt code at different places). Instructions that must not be
 * single-stepped over a breakpoint (syscall, int3, int, ud2, hlt) and
 * instructions that change control flow otherwise are never sites. At most
 * MAX sites; the count, or -errno.
 */
int dw_sites(const char *path, uint64_t seed, unsigned density, size_t max,
	     int (*cb)(const struct dw_site *site, void *arg), void *arg);
/* The same for BUF (LEN bytes at VADDR). */
int dw_sites_buf(const unsigned char *buf, size_t len, uint64_t vaddr, uint64_t seed,
		 unsigned density, size_t max, int (*cb)(const struct dw_site *site, void *arg),
		 void *arg);

/* ---- patch.c: counted sites (DESIGN.md "Progress without a PMU") ---- */

enum dw_patch_kind {
	DW_PATCH_JUMP = 1, /* a jump to a trampoline that counts */
	DW_PATCH_INT3 = 2, /* an int3 the tracer counts */
	DW_PATCH_PAD = 3,  /* a short branch whose taken path goes through a jump
			    * put in dead padding nearby, to a trampoline */
};

/* One place the plan patches, in link-time addresses. */
struct dw_patch_range {
	uint64_t addr; /* first byte replaced */
	uint16_t len;  /* bytes replaced: the instructions taken along (1 for int3) */
	uint16_t site; /* offset of the counted instruction in them */
	uint8_t kind;  /* enum dw_patch_kind */
	uint64_t slot;	 /* DW_PATCH_PAD: where its jump goes, */
	uint64_t target; /* and where the branch went */
};

/* Bytes a trampoline may take at most. */
#define DW_PATCH_TRAMP_MAX 160

struct dw_patch_plan {
	struct dw_patch_range *ranges; /* by address */
	size_t n, cap;
	size_t njump, nint3, npad;
	size_t ntarget; /* of njump: backward branches counted at their target */
	size_t tramp_size;    /* bytes of trampolines it needs, page-rounded */
	uint64_t exec_vaddr;  /* the executable segment: link-time address, */
	uint64_t exec_offset; /* file offset */
	uint64_t exec_size;   /* and bytes */
};

/*
 * The counted sites of the executable segment of the ELF file at PATH
 * that holds file offset OFFSET (a file may have several: a large
 * non-PIE program has one for .plt and one for .text): every direct
 * branch or call backwards, every indirect jump and call, and with
 * DENSITY > 0 about one other instruction in DENSITY, picked by a hash of
 * SEED and the address (chaos). 0 or -errno (-ENOEXEC: no such segment).
 */
int dw_patch_plan_file(const char *path, uint64_t offset, uint64_t seed, unsigned density,
		       struct dw_patch_plan *plan);
/* Whether the plan's segment holds file offset OFFSET (a mapping's). */
int dw_patch_plan_holds(const struct dw_patch_plan *plan, uint64_t offset);
/*
 * dw_patch_plan_file through the plan cache in folder DIR (plancache.c;
 * NULL: no cache), made if missing: a plan made before for the same file
 * contents, segment, seed, density and hermit binary is read back (*HIT
 * set), else the plan is made and kept there.
 */
int dw_patch_plan_cached(const char *dir, const char *path, uint64_t offset, uint64_t seed,
			 unsigned density, struct dw_patch_plan *plan, int *hit);
/* The same for the code in BUF (LEN bytes at VADDR): for tests. */
int dw_patch_plan_buf(const unsigned char *buf, size_t len, uint64_t vaddr, uint64_t seed,
		      unsigned density, struct dw_patch_plan *plan);
void dw_patch_plan_free(struct dw_patch_plan *plan);

/* One patched place, at run time. */
struct dw_patch_site {
	uint64_t addr;	      /* first byte replaced */
	uint64_t tramp;	      /* DW_PATCH_JUMP: where its trampoline counts */
	uint64_t tramp_start; /* its trampoline's bytes: [tramp_start, tramp_end) */
	uint64_t tramp_end;
	uint64_t trap;	      /* the trampoline's int3: budget spent */
	uint64_t slot;	      /* DW_PATCH_PAD: its jump in padding */
	uint16_t len;
	uint8_t kind;
};

/*
 * Apply PLAN, whose addresses are BIAS below the run-time ones, to CODE:
 * CODE_LEN original bytes at run-time CODE_ADDR. PATCHED gets the bytes to
 * put there, TRAMP the trampolines (for run-time TRAMP_ADDR, TRAMP_CAP
 * bytes at most), which count down the 64-bit word at COUNTER (below 2
 * GiB). SITES (room for PLAN->n) gets what was patched, *NSITES how many.
 * Returns the bytes of TRAMP used, or -errno.
 */
int dw_patch_emit(const struct dw_patch_plan *plan, int64_t bias, const uint8_t *code,
		  uint64_t code_addr, size_t code_len, uint8_t *patched, uint8_t *tramp,
		  uint64_t tramp_addr, size_t tramp_cap, uint64_t counter,
		  struct dw_patch_site *sites, size_t *nsites);

#endif /* HERMIT_DWARF_H */
