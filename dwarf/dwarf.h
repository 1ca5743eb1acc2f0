/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dwarf: what Hermit knows about the guest's files. The instruction map:
 * the nondeterministic instructions (rdtsc, rdtscp, rdrand, rdseed,
 * rdpid, cpuid) in an ELF file's executable sections, found by decoding
 * them with Zydis, and the counted sites and their patches. And the
 * symbols a source-level debugger needs (libdwarf and libelf): line
 * tables, functions and inlined subroutines, variables, their types and
 * locations, and the CFA (docs/symbols.md).
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

/* dw_insn_scan through the cache folder DIR (insncache.c; NULL: none):
 * what a decode of the same file contents found before is read back (*HIT
 * set), else the file is decoded and what it holds is kept there. */
int dw_insn_scan_cached(const char *dir, const char *path,
			int (*cb)(const struct dw_insn *insn, void *arg), void *arg, int *hit);

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

/* ---- cachefile.c: files kept across runs (docs/preemption.md "Planning") ---- */

/* The cache folder (hm_cachedir_path), looked up once; NULL: none. */
const char *dw_cache_dir(void);
/*
 * The name, in *OUT (SIZE bytes), under which what was made from the file
 * at PATH for KIND is kept in cache folder DIR: DIR/<the hermit binary's
 * SHA-256, 16 digits>/<PATH's SHA-256>-KIND. PATH's hash is remembered
 * under its device, inode, size, mtime and ctime. Folders are made where
 * missing. 0 or -errno (-ENOENT: DIR is NULL, no cache).
 */
int dw_cache_name(const char *dir, const char *path, const char *kind, char *out, size_t size);

/* A kept file's body, in a private mapping of MAP_LEN bytes at MAP. */
struct dw_cache_blob {
	void *map;
	size_t map_len;
	void *body; /* LEN bytes, 8-byte aligned */
	size_t len;
	/* Loaded: the file mapped (its digest checked), whose bytes at
	 * offset (p - map) are those at p. 0 when made in memory. */
	uint64_t dev, ino;
};

/* Where a kept file's body starts in it (after the magic and its length). */
#define DW_CACHE_HEAD 16

/* Room for a body of LEN bytes (zeros) to fill, with MAGIC (8 bytes).
 * 0 or -ENOMEM. */
int dw_cache_alloc(struct dw_cache_blob *b, const char magic[8], size_t len);
/* Keep B (from dw_cache_alloc, filled) as FILE, atomically: its first LEN
 * bytes of body (LEN may have been lowered since the allocation, for a
 * body that needed less room). 0 or -errno. */
int dw_cache_store(const char *file, const struct dw_cache_blob *b);
/* Map FILE (read-only) into *B when it holds a whole body with MAGIC and
 * its digest matches. 0 or -errno (-EBADMSG: short, damaged or not one). */
int dw_cache_load(const char *file, const char magic[8], struct dw_cache_blob *b);
/* Unmap B (empty: nothing). */
void dw_cache_free(struct dw_cache_blob *b);

/* ---- patch.c, plandecode.c, planelf.c: counted sites (DESIGN.md "Progress without a PMU") ---- */

enum dw_patch_kind {
	DW_PATCH_JUMP = 1, /* a jump to a trampoline that counts */
	DW_PATCH_INT3 = 2, /* an int3 the tracer counts */
	DW_PATCH_PAD = 3,  /* a short branch whose taken path goes through a jump
			    * put in dead padding nearby, to a trampoline; or a
			    * short indirect call or jump made a jmp rel8 there,
			    * whose trampoline makes the call or jump */
};

/* One place the plan patches, in link-time addresses. */
struct dw_patch_range {
	uint64_t addr; /* first byte replaced */
	uint16_t len;  /* bytes replaced: the instructions taken along (1 for int3) */
	uint16_t site; /* offset of the counted instruction in them */
	uint8_t kind;  /* enum dw_patch_kind */
	uint64_t slot;	 /* DW_PATCH_PAD: where its jump goes, */
	uint64_t target; /* and where the branch went (0: indirect, LEN bytes) */
};

/* The kept plans' and patched outputs' formats (dwarf/plancache.c,
 * dwarf/patchcache.c), bumped whenever what they hold changes. Together
 * they name how ticks are counted: a recording keeps them
 * (metadata.json "counting"), and a replay under another counting would
 * stop threads at other ticks, so it is refused up front. */
#define DW_PLAN_MAGIC "HMPLAN10"
#define DW_EMIT_MAGIC "HMEMIT06"
#define DW_PATCH_COUNTING DW_PLAN_MAGIC "+" DW_EMIT_MAGIC

/* Bytes a trampoline may take at most. */
#define DW_PATCH_TRAMP_MAX 160

struct dw_patch_plan {
	struct dw_patch_range *ranges; /* by address */
	size_t n, cap;
	size_t njump, nint3, npad;
	size_t ntarget; /* of njump: backward branches counted at their target */
	size_t nafter;	/* branches not counted: each pass follows a counted call's return */
	size_t tramp_size;    /* bytes of trampolines it needs, page-rounded */
	uint64_t exec_vaddr;  /* the executable segment: link-time address, */
	uint64_t exec_offset; /* file offset */
	uint64_t exec_size;   /* and bytes */
	struct dw_cache_blob blob; /* a kept plan's file, RANGES in it (read-only) */
};

/*
 * The counted sites of the executable segment of the ELF file at PATH
 * that holds file offset OFFSET (a file may have several: a large
 * non-PIE program has one for .plt and one for .text): every direct
 * branch or call backwards, every indirect jump and call, and with
 * DENSITY > 0 about one other instruction in DENSITY, picked by a hash of
 * SEED and the address (chaos). 0 or -errno (-ENOEXEC: no such segment;
 * -EFBIG: a segment of 4 GiB or more).
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
/* What the planner needs of one instruction, when it is a common one. */
enum dw_brief_kind {
	DW_BRIEF_PLAIN = 1, /* neither of the others, and free to move */
	DW_BRIEF_NOP,	   /* a nop: padding */
	DW_BRIEF_INT3,
	DW_BRIEF_RET,
	DW_BRIEF_JCC, /* a conditional branch, to rel from its end */
	DW_BRIEF_JMP, /* a direct jmp, to rel from its end */
	DW_BRIEF_CALL, /* a direct call, to rel from its end */
	DW_BRIEF_LEA_RIP, /* lea rel(%rip), reg (0-15: rax ... r15) */
	DW_BRIEF_RIP, /* as PLAIN, with a memory operand at rel(%rip), rel from its end */
};

struct dw_insn_brief {
	uint8_t len;
	uint8_t kind; /* enum dw_brief_kind */
	int8_t reg;
	int64_t rel;
};

/*
 * The instruction at P (N bytes readable) as the planner sees it, from
 * tables of the common encodings and without Zydis (insnlen.c): *B and 1,
 * or 0 when the planner must ask Zydis (many common ones too: VEX, lock,
 * indirect branches...). dw_insn_brief_ref is what the planner makes of
 * Zydis's decode of the same bytes (plandecode.c): where the first answers, the
 * two must agree (for tests).
 */
int dw_insn_brief(const unsigned char *p, size_t n, struct dw_insn_brief *b);
int dw_insn_brief_ref(const unsigned char *p, size_t n, struct dw_insn_brief *b);
/* Set (tests, bench/plantime -z): plan every instruction from Zydis's
 * decode, without dw_insn_brief; the plans must be the same. */
extern int dw_patch_zydis_only;

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

/*
 * A thread stopped at PC inside SITE's count (dw_patch_emit's trampoline,
 * between its trap and its last count instruction), put back at the site
 * with the count not taken. A stop there that is not the trap's (an
 * interrupt, a signal from outside, a debugger's Ctrl-C) comes between the
 * count's read of the counter and its write, or between the budget's end
 * and the trap's zero: resumed with another budget, the thread would write
 * a stale count over it, and the ticks of the run would depend on where a
 * wall-clock moment caught it. Undone, the thread runs the site again
 * from the start. Returns 1 and the undoing into *U, or 0 when PC is
 * elsewhere (the instructions taken along, counted already) or where the
 * count is done (the short form's decrement with a count left: EFLAGS, the
 * thread's, has the sign clear). A stop undone in the short form leaves
 * its flags as the decrement set them: they are dead there.
 */
struct dw_patch_undo {
	int rcx_from_stack; /* %rcx = the 8 bytes at %rsp, before the next */
	uint64_t rsp_add;   /* then %rsp += this */
	int counter_add;    /* the counter += this (a count taken, given back) */
};
int dw_patch_settle(const struct dw_patch_site *site, uint64_t pc, uint64_t eflags,
		    struct dw_patch_undo *u);

/*
 * Run the instruction at REGS->rip, whose bytes are CODE (LEN of them, at
 * most 15 read), on REGS as the CPU would, if it is a control transfer an
 * int3 site can be (branch.c): a jump, a conditional jump or loop, or a
 * call, direct or through a register or memory (read with READ, 0 when
 * done). 1: done; 2: a call, done but for its return address, *PUSH,
 * which the caller writes at the new REGS->rsp; 0: anything else (other
 * instructions, fs or gs, a 16-bit operand size, memory READ cannot read),
 * REGS as they were: single-step it.
 */
typedef int (*dw_branch_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);
int dw_branch_run(const uint8_t *code, size_t len, struct user_regs_struct *regs,
		  dw_branch_read_fn read, void *ctx, uint64_t *push);

/*
 * What dw_patch_emit made for one mapping, in one kept body
 * (patchcache.c): set the fields it is made for, then dw_patch_out_alloc
 * and fill it (orig, then emit into patched, tramp and sites, then the trap
 * index), or dw_patch_out_load what was kept for the same fields.
 */
struct dw_patch_out {
	uint64_t code_addr, code_len;	/* made for: the code, run-time */
	uint64_t tramp_addr, tramp_len; /* its trampolines' place */
	uint64_t counter;		/* the budget's word */
	int64_t bias;			/* run-time less link-time */
	uint8_t *orig;			/* code_len bytes: the code as it was */
	uint8_t *patched;		/* and as it is to be */
	uint8_t *tramp;			/* tramp_len bytes, tramp_used of them used */
	size_t tramp_used;
	struct dw_patch_site *sites; /* n of room for cap, by address */
	size_t n, cap;
	uint64_t *traps; /* ntraps pairs (trap address, index into sites), by trap */
	size_t ntraps;
	struct dw_cache_blob blob; /* where all of it lives */
};

/* Room (zeros) for O's sizes and CAP sites. 0 or -ENOMEM. */
int dw_patch_out_alloc(struct dw_patch_out *o, size_t cap);
/* Keep O, filled, as FILE (atomically); O keeps no room for more sites
 * after. 0 or -errno. */
int dw_patch_out_store(const char *file, struct dw_patch_out *o);
/* Map what FILE keeps into O, when it was made for the fields O holds: 0,
 * or -errno (-ESTALE: for other addresses or sizes; -EBADMSG: damaged). The
 * caller still compares the original bytes (O->orig) with the mapping's. */
int dw_patch_out_load(const char *file, struct dw_patch_out *o);
void dw_patch_out_free(struct dw_patch_out *o);
/* The offset of O's trampolines in the file O was loaded from (a multiple
 * of 4096, so that they can be mapped from it), or -1 when O was made in
 * memory. */
int64_t dw_patch_out_tramp_offset(const struct dw_patch_out *o);

/*
 * ---- Symbols (symfile.c, lines.c, scopes.c, types.c, locexpr.c,
 * cfa.c, basefmt.c): DWARF 4 and 5 as gcc 12 and clang 14 emit them ----
 *
 * Every address here is link-time: the caller subtracts the load bias of
 * a PIE or shared object before asking and adds it to what comes back
 * (struct dw_reader's bias does that for DW_OP_addr). Strings returned
 * live as long as the struct dw_syms. A struct dw_syms is not thread-safe:
 * compilation units are read on the first question that needs them
 * (units.c), and types are decoded into a cache on first use.
 */
struct dw_syms;

/*
 * Open the symbols of the ELF file at PATH: its own DWARF, else a separate
 * debug file found through its build id (DEBUG_ROOT/.build-id/xx/yyyy.debug)
 * or its .gnu_debuglink (beside it, in .debug/ beside it, or under
 * DEBUG_ROOT with its directory), DEBUG_ROOT NULL meaning /usr/lib/debug.
 * A file without debug info opens fine with nothing in it (the CFA still
 * comes from its .eh_frame). 0 or -errno (-ENOEXEC: not an ELF file).
 */
int dw_syms_open_dir(const char *path, const char *debug_root, struct dw_syms **out);
/* dw_syms_open_dir with the default /usr/lib/debug. */
int dw_syms_open(const char *path, struct dw_syms **out);
void dw_syms_close(struct dw_syms *syms);
/* The file the DWARF was read from (PATH or its separate debug file), or
 * NULL when there is none. */
const char *dw_syms_debug_file(const struct dw_syms *syms);

/* One row of a line table, with the addresses it covers. */
struct dw_line {
	uint64_t addr;	  /* first address of the row */
	uint64_t end;	  /* first address after it */
	const char *file; /* full path, as compiled (comp_dir joined, "." and ".." folded) */
	unsigned line;	  /* 1-based */
	unsigned column;  /* 0: none */
	int is_stmt;	  /* a recommended breakpoint place */
};

/* The row holding ADDR (rows of no bytes are skipped, the last of several
 * at one address wins, as gdb does). 0 or -ENOENT. */
int dw_line_at(struct dw_syms *syms, uint64_t addr, struct dw_line *out);

/*
 * Where a breakpoint on FILE:LINE goes: the first is_stmt address of LINE
 * in each function or inlined instance that has it, or, when LINE has no
 * code, the same for the next line of the file that has (a breakpoint on
 * a blank line moves; *LINE_OUT says where to). FILE matches a full path,
 * a path suffix at a '/' or a basename. Up to MAX addresses, ascending, in
 * ADDRS; returns how many there are (may exceed MAX), or -ENOENT (no such
 * file, or no code at or after LINE).
 */
int dw_line_addrs(struct dw_syms *syms, const char *file, unsigned line, uint64_t *addrs,
		  size_t max, unsigned *line_out);

/* The source files with line rows (for DAP loadedSources): file I (0..),
 * or NULL past the last. */
const char *dw_source_file(struct dw_syms *syms, size_t i);

/*
 * The addresses of the source line at PC (source-level stepping): [*LO,
 * *HI) is the largest run of consecutive rows around PC with the same
 * file and line, so a step that leaves it has left the line. 0 or -ENOENT.
 */
int dw_line_range(struct dw_syms *syms, uint64_t pc, uint64_t *lo, uint64_t *hi);

/* The first is_stmt row at or after END that is on another line than the
 * one at END - 1 (where a step over a line's range lands when it falls
 * through). 0 or -ENOENT. */
int dw_line_next(struct dw_syms *syms, uint64_t end, struct dw_line *out);

/* A function, inlined instance or lexical block: handles are DIE offsets. */
enum dw_scope_kind {
	DW_SCOPE_FUNCTION = 1,
	DW_SCOPE_INLINED = 2,
	DW_SCOPE_BLOCK = 3,
};

struct dw_func {
	const char *name;      /* DW_AT_name, through abstract origins and specifications */
	const char *linkage;   /* DW_AT_linkage_name, or NULL */
	uint64_t low, high;    /* lowest address and the end of the highest range */
	uint64_t entry;	       /* after the prologue: the second line row's address,
				* or LOW (for function breakpoints) */
	const char *decl_file; /* or NULL */
	unsigned decl_line;
	uint64_t die; /* handle */
};

/* The function (not an inlined instance) holding PC. 0 or -ENOENT. */
int dw_func_at(struct dw_syms *syms, uint64_t pc, struct dw_func *out);

/* The out-of-line functions named NAME (or whose linkage name is NAME): up
 * to MAX in OUT, the count (may exceed MAX; 0: none). */
int dw_func_by_name(struct dw_syms *syms, const char *name, struct dw_func *out,
		    size_t max);

/*
 * One source-level frame at a pc: the real function or an inlined
 * subroutine. Depth 0 is the innermost; FILE:LINE:COLUMN is where the
 * frame is: for depth 0 the line row at the pc, for depth d > 0 the call
 * site of the inlined frame d - 1.
 */
struct dw_frame {
	const char *name;
	int inlined;	  /* 1: an inlined subroutine, 0: the real function (the last) */
	uint64_t low, high; /* its lowest address and end of its highest range */
	const char *file; /* or NULL */
	unsigned line, column;
	uint64_t die; /* handle of the function or inlined subroutine */
};

/* The frames at PC, innermost first, up to MAX; the count (may exceed
 * MAX), 0 when no function holds PC. */
int dw_frames_at(struct dw_syms *syms, uint64_t pc, struct dw_frame *out, size_t max);

/* A parameter or local. */
struct dw_var {
	const char *name;
	int is_param;
	uint64_t type;	     /* type handle for dw_type_get, 0: void or unknown */
	unsigned decl_line;  /* 0: unknown */
	uint64_t die;	     /* the variable's DIE, for dw_var_read */
	uint64_t frame_die;  /* the real function, whose DW_AT_frame_base applies */
	uint64_t func_low;   /* its entry, for DW_OP_entry_value at the entry */
};

/*
 * The parameters and locals visible at PC in frame DEPTH (as dw_frames_at
 * counts): parameters first, then locals from the innermost lexical block
 * out, a name shadowed by an inner one left out. Variables an out-of-line
 * or inlined copy dropped but its abstract origin declares are listed
 * too (they read as optimized out). Up to MAX in OUT; the count (may
 * exceed MAX), or -ENOENT when there is no such frame.
 */
int dw_vars_at(struct dw_syms *syms, uint64_t pc, int depth, struct dw_var *out,
	       size_t max);

/* ---- globals.c: names at file scope ---- */

/* The global or file-static variable NAME (its definition: the first, when
 * several units define a static one so named). Its frame_die and func_low
 * are 0: its location needs no frame. 0 or -ENOENT. */
int dw_global_by_name(struct dw_syms *syms, const char *name, struct dw_var *out);

/* The type named NAME at file scope: with TAG 's', 'u' or 'e' the struct,
 * union or enum so tagged, with TAG 0 a typedef or base type ("int",
 * "unsigned int", "size_t"). Its handle in *TYPE; 0 or -ENOENT. */
int dw_type_by_name(struct dw_syms *syms, const char *name, int tag, uint64_t *type);

/* ---- types.c ---- */

enum dw_type_kind {
	DW_TYPE_VOID = 0, /* handle 0, or a DWARF unspecified type */
	DW_TYPE_BASE,
	DW_TYPE_POINTER, /* also C++ references */
	DW_TYPE_ARRAY,
	DW_TYPE_STRUCT,
	DW_TYPE_UNION,
	DW_TYPE_ENUM,
	DW_TYPE_TYPEDEF,
	DW_TYPE_CONST,
	DW_TYPE_VOLATILE,
	DW_TYPE_FUNCTION, /* a subroutine type: what a function pointer points at */
};

enum dw_encoding {
	DW_ENC_NONE = 0,
	DW_ENC_SIGNED,
	DW_ENC_UNSIGNED,
	DW_ENC_FLOAT,
	DW_ENC_BOOL,
	DW_ENC_SIGNED_CHAR,
	DW_ENC_UNSIGNED_CHAR,
};

/* A struct or union member, or a function type's parameter (name NULL). */
struct dw_member {
	const char *name;    /* NULL: anonymous */
	uint64_t type;	     /* handle */
	uint64_t offset;     /* bytes from the start of the object */
	unsigned bit_size;   /* 0: not a bitfield */
	uint64_t bit_offset; /* bitfields: bits from the start of the object,
			      * least significant bit first (x86-64) */
};

struct dw_enumerator {
	const char *name;
	int64_t value;
};

struct dw_dim {
	int64_t lower;	/* 0 in C */
	uint64_t count; /* elements; 0 with unknown set for int a[] and VLAs */
	int unknown;
};

struct dw_type {
	enum dw_type_kind kind;
	const char *name;  /* NULL: anonymous (pointers, arrays, ...) */
	uint64_t size;	   /* bytes; arrays: all elements */
	enum dw_encoding encoding; /* DW_TYPE_BASE, and DW_TYPE_ENUM's underlying one */
	uint64_t target;   /* pointee, element, aliased, qualified or return type;
			    * 0: void */
	size_t nmembers;   /* struct, union, function parameters */
	const struct dw_member *members;
	size_t nenumerators;
	const struct dw_enumerator *enumerators;
	size_t ndims;	   /* arrays: outermost first */
	const struct dw_dim *dims;
	int varargs;	   /* function types with ... */
	uint64_t die;	   /* its handle */
};

/* The type with handle TYPE, decoded once and kept (struct members come
 * with it, not their types: walk them with further calls). 0, -ENOENT
 * (handle 0 gives DW_TYPE_VOID), or -EINVAL (not a type). */
int dw_type_get(struct dw_syms *syms, uint64_t type, const struct dw_type **out);

/* TYPE with typedefs, const and volatile stripped. */
int dw_type_strip(struct dw_syms *syms, uint64_t type, const struct dw_type **out);

/* ---- locexpr.c and cfa.c: where a variable is, through a caller's reader ---- */

/*
 * How the evaluator reaches a stopped thread (gdb's remote protocol, a
 * ptrace'd task, a core file). DWARF register numbers are x86-64's: 0 rax,
 * 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15, 16 rip,
 * 17-32 xmm0-15 (their low 8 bytes). reg and mem return 0, or -errno for a
 * value the caller cannot have (a caller-saved register in an outer frame).
 */
struct dw_reader {
	int (*reg)(void *arg, int dwarf_regno, uint64_t *val);
	int (*mem)(void *arg, uint64_t addr, void *buf, size_t len); /* run-time addresses */
	uint64_t pc;   /* link-time pc of the frame: in an outer frame the return address - 1 */
	uint64_t cfa;  /* the frame's CFA (run-time); 0: dw_var_read computes it */
	uint64_t bias; /* run-time minus link-time addresses of this file */
	void *arg;
};

enum dw_value_kind {
	DW_VALUE_OPTIMIZED_OUT = 0, /* no location at this pc, or one not recoverable */
	DW_VALUE_MEMORY,	    /* it lives at addr (run-time): read it there */
	DW_VALUE_BYTES,		    /* its bytes are in bytes[] (registers, computed
				     * values, pieces) */
};

#define DW_VALUE_MAX 64 /* bytes a value not in memory can have */

struct dw_value {
	enum dw_value_kind kind;
	uint64_t addr;	/* DW_VALUE_MEMORY */
	int reg;	/* DW_VALUE_BYTES from one register: its DWARF number, else -1 */
	size_t size;	/* DW_VALUE_BYTES: bytes valid in bytes[] */
	int partial;	/* DW_VALUE_BYTES from pieces of which some are optimized out
			 * (zeros in bytes[]) */
	unsigned char bytes[DW_VALUE_MAX];
	const char *why; /* DW_VALUE_OPTIMIZED_OUT: a short reason */
};

/*
 * Where VAR is (or what it is) in the frame R describes: its
 * DW_AT_location (an expression or a location list, DWARF 4 .debug_loc or
 * DWARF 5 .debug_loclists) evaluated at R->pc. SIZE is the variable's
 * type size (dw_type_get), the most bytes a value is given. 0 with OUT set
 * (an unevaluable expression is DW_VALUE_OPTIMIZED_OUT with a reason), or
 * -errno when a read the location needs failed.
 */
int dw_var_read(struct dw_syms *syms, const struct dw_var *var, const struct dw_reader *r,
		uint64_t size, struct dw_value *out);

/* Read SIZE bytes of the value VAL into BUF: from memory through R for
 * DW_VALUE_MEMORY, from its bytes otherwise. 0, -ENODATA (optimized out
 * or too short), or the reader's error. */
int dw_value_fetch(const struct dw_value *val, const struct dw_reader *r, void *buf,
		   size_t size);

/*
 * The CFA (the caller's stack pointer before its call) of the frame at
 * link-time PC from the file's .eh_frame or .debug_frame, with registers
 * read through R (R->pc is ignored). 0, -ENOENT (no FDE covers PC) or
 * -errno.
 */
int dw_cfa_at(struct dw_syms *syms, uint64_t pc, const struct dw_reader *r, uint64_t *cfa);

/* ---- basefmt.c: base values as text ---- */

/*
 * Write the value of base type T (or an enum, named by its enumerator
 * when one matches) in BYTES (at least T->size) as text, as gdb does:
 * -3, 4000, 2.25, true, 81 'Q'. With BIT_SIZE > 0, the value is the
 * bitfield of BIT_SIZE bits at BIT_OFFSET (from the start of BYTES, least
 * significant bit first), sign-extended when T is signed. The length
 * written (snprintf's), or -EINVAL for a type that is not a base type or
 * an enum.
 */
int dw_base_format(const struct dw_type *t, const void *bytes, size_t len, unsigned bit_size,
		   uint64_t bit_offset, char *buf, size_t bufsz);

/* The bits BIT_OFFSET..+BIT_SIZE (<= 64) of BYTES (LEN bytes, least
 * significant bit first), sign-extended when IS_SIGNED. */
uint64_t dw_bits_extract(const void *bytes, size_t len, uint64_t bit_offset, unsigned bit_size,
			 int is_signed);

#endif /* HERMIT_DWARF_H */
