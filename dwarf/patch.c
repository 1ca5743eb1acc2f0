/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counted sites (DESIGN.md "Progress without a PMU"): which instructions
 * count a tick, and the code that counts them.
 *
 * The plan comes from a linear decode of every executable section: the
 * common instructions from insnlen.c's tables, the others with Zydis.
 * A site is an instruction through which every loop and every recursion
 * must pass: a direct branch or call to an address at or below its own
 * (any cycle of control flow, laid out in address order, goes down
 * somewhere; returns only unwind what calls did), and every indirect jump
 * or call; chaos adds a seeded sample of other instructions. Each site
 * becomes a 5-byte jump to a trampoline, taking neighbouring instructions
 * along when it is shorter, so long as no known entry point (a direct
 * branch target, a return address, a function symbol) falls inside what
 * is taken, in the manner of E9Patch (Duck et al., PLDI 2020) without its
 * instruction punning. A site no jump can take keeps an int3 that the
 * tracer counts the same way. The trampolines, the code that counts, are
 * emitted by patchemit.c.
 */
#include "config.h"

#include <Zydis/Zydis.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "dwarf.h"

/* What the plan knows of one decoded instruction. */
enum {
	I_SITE = 1,    /* counts a tick */
	I_MOVABLE = 2, /* may run relocated in a trampoline as a neighbour */
	I_ENDS = 4,    /* control does not fall through (jmp, ret) */
	I_CALL = 8,    /* a call: its return address is an entry point */
	I_RELOC = 16,  /* as a site, it can be re-encoded elsewhere */
	I_CHAOS = 32,  /* a site only because chaos picked it */
	I_PAD = 64,    /* dead padding (struct pad) */
};

struct decoded {
	uint64_t addr;
	uint64_t target; /* a direct branch's */
	uint8_t len;
	uint8_t flags;
};

/* As it is kept, a few for every byte of code (a page of memory costs more
 * than planning its instructions): the address, as an offset in the
 * segment, and a site's target in the list of sites. */
struct insn {
	uint32_t off;
	uint8_t len;
	uint8_t flags;
	uint8_t mark; /* plan_finish's: M_* */
};

enum {
	M_COVERED = 1, /* in a range */
	M_JUMP = 2,    /* a jump's range starts here */
};

struct site {
	size_t i;	 /* in in */
	uint64_t target; /* a direct branch's */
};

/* Dead padding: bytes after a jump or return that nothing reaches (nops,
 * int3s, bytes that do not decode) up to the next instruction. A short
 * branch that no jump can take may point into it instead, at a 5-byte
 * jump to its trampoline. */
struct pad {
	uint64_t start, end;
};

struct plan_state {
	struct insn *in;
	size_t n, cap;
	uint8_t *targets;   /* a bit per byte of the segment: an entry point there */
	uint8_t *starts;    /* the same: an instruction starts there */
	struct site *sites; /* those decoded as sites, in order */
	size_t nsites, cap_sites;
	int unordered;	     /* in is not in address order (starts is not used) */
	uint64_t base, size; /* the segment */
	uint64_t seed;
	unsigned density;
	int after_end;	  /* the previous instruction does not fall through, or pads */
	int dead;	  /* in dead padding (struct pad) */
	struct pad *pads; /* by address */
	size_t npads, cap_pads;
	uint64_t *tables; /* rip-relative addresses taken (lea): jump tables? */
	size_t ntables, cap_tables;
	struct {
		uint64_t addr;
		size_t index; /* of the lea */
	} recent[4];	      /* the last rip-relative leas */
	size_t nrecent;
	/* The last rip-relative lea into each general register (in address
	 * order, not control flow): a table's base is often taken once,
	 * before the loop whose switch indexes it (sqlite3_complete). */
	uint64_t lea_into[16];
	struct {
		uint64_t addr;
		size_t index; /* of the movslq */
	} indexed[4];	      /* the last movslq (%base,%index,4) from such a base */
	size_t nindexed;
	struct {
		uint64_t addr; /* jmp *disp(,%reg,8): a table of absolute addresses */
	} * abs_tables;
	size_t nabs, cap_abs;
};

/* Huge pages where the system gives them on request (THP "madvise"): a
 * page fault costs more than planning the instructions on its page. */
static void huge(void *p, size_t len)
{
	uintptr_t lo = ((uintptr_t)p + 0x1fffff) & ~(uintptr_t)0x1fffff;
	uintptr_t hi = ((uintptr_t)p + len) & ~(uintptr_t)0x1fffff;

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

/* The segment [BASE, BASE + SIZE) whose entry points are kept (no range
 * ever crosses out of it). */
static void targets_init(struct plan_state *s, uint64_t base, uint64_t size)
{
	s->base = base;
	s->size = size;
	s->targets = xcalloc(size / 8 + 2, 1);
	s->starts = xcalloc(size / 8 + 2, 1);
	/* Room for an instruction in 3 bytes (4 on average in libc, cc1,
	 * node): grown rarely, never copied. */
	s->cap = size / 3 + 1024;
	s->in = xmalloc(s->cap * sizeof(*s->in));
	huge(s->in, s->cap * sizeof(*s->in));
}

static void add_target(struct plan_state *s, uint64_t a)
{
	if (a >= s->base && a - s->base <= s->size)
		s->targets[(a - s->base) / 8] |= (uint8_t)(1u << ((a - s->base) % 8));
}

/* splitmix64 of the seed and address: whether chaos picks this one. */
static int picked(uint64_t seed, uint64_t addr, unsigned density)
{
	uint64_t z = seed ^ (addr * 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return density && z % density == 0;
}

/* Instructions that must stay where they are: the tracer finds syscalls
 * by rip - 2, traps by their address, and relative forms Zydis cannot
 * widen (loop, jrcxz, xbegin) have nowhere to go. */
static int pinned(const ZydisDecodedInstruction *zi)
{
	switch (zi->mnemonic) {
	case ZYDIS_MNEMONIC_SYSCALL:
	case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO:
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_RDTSC:
	case ZYDIS_MNEMONIC_RDTSCP:
	case ZYDIS_MNEMONIC_XBEGIN:
	case ZYDIS_MNEMONIC_XEND:
	case ZYDIS_MNEMONIC_XABORT:
	case ZYDIS_MNEMONIC_LOOP:
	case ZYDIS_MNEMONIC_LOOPE:
	case ZYDIS_MNEMONIC_LOOPNE:
	case ZYDIS_MNEMONIC_JRCXZ:
	case ZYDIS_MNEMONIC_JECXZ:
	case ZYDIS_MNEMONIC_JCXZ:
		return 1;
	default:
		return 0;
	}
}

/* Whether operand OP of ZI reads or writes through rsp, or is rsp. */
static int uses_rsp_reg(const ZydisDecodedOperand *op)
{
	return op->type == ZYDIS_OPERAND_TYPE_REGISTER && op->reg.value == ZYDIS_REGISTER_RSP;
}

/* The address of instruction K. */
static inline uint64_t ia(const struct plan_state *s, size_t k)
{
	return s->base + s->in[k].off;
}

static void push_insn(struct plan_state *s, const struct decoded *in)
{
	uint64_t a = in->addr;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 65536;
		s->in = xrealloc(s->in, s->cap * sizeof(*s->in));
	}
	if (s->n && a <= ia(s, s->n - 1))
		s->unordered = 1;
	if (in->flags & I_SITE) {
		if (s->nsites == s->cap_sites) {
			s->cap_sites = s->cap_sites ? 2 * s->cap_sites : 4096;
			s->sites = xrealloc(s->sites, s->cap_sites * sizeof(*s->sites));
		}
		s->sites[s->nsites].i = s->n;
		s->sites[s->nsites++].target = in->target;
	}
	if (a >= s->base && a - s->base <= s->size)
		s->starts[(a - s->base) / 8] |= (uint8_t)(1u << ((a - s->base) % 8));
	else
		s->unordered = 1;
	/* (dw_patch_plan_* take no segment of 4 GiB or more) */
	s->in[s->n].off = (uint32_t)(a - s->base);
	s->in[s->n].len = in->len;
	s->in[s->n].mark = 0;
	s->in[s->n++].flags = in->flags;
}

static void pad_extend(struct plan_state *s, uint64_t addr, size_t len)
{
	if (s->npads && s->pads[s->npads - 1].end == addr) {
		s->pads[s->npads - 1].end += len;
		return;
	}
	if (s->npads == s->cap_pads) {
		s->cap_pads = s->cap_pads ? 2 * s->cap_pads : 1024;
		s->pads = xrealloc(s->pads, s->cap_pads * sizeof(*s->pads));
	}
	s->pads[s->npads].start = addr;
	s->pads[s->npads].end = addr + len;
	s->npads++;
}

/* REG's 64-bit general register as 0-15 (rax ... r15), or -1. */
static int gpr(ZydisRegister reg)
{
	ZydisRegister r = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, reg);

	return r >= ZYDIS_REGISTER_RAX && r <= ZYDIS_REGISTER_R15 ? (int)(r - ZYDIS_REGISTER_RAX)
								  : -1;
}

/* ADDR may be a jump table (add_tables decides). */
static void add_table(struct plan_state *s, uint64_t addr)
{
	if (s->ntables == s->cap_tables) {
		s->cap_tables = s->cap_tables ? 2 * s->cap_tables : 1024;
		s->tables = xrealloc(s->tables, s->cap_tables * sizeof(*s->tables));
	}
	s->tables[s->ntables++] = addr;
}

/* A movslq (%base,%idx,4) from a base a rip-relative lea took: the table
 * a jmp through a register may follow. (Planned as any other instruction.) */
static void note_indexed(struct plan_state *s, const ZydisDecodedOperand *ops, unsigned nvis)
{
	for (unsigned k = 0; k < nvis; k++) {
		int b = ops[k].type == ZYDIS_OPERAND_TYPE_MEMORY && ops[k].mem.scale == 4
				? gpr(ops[k].mem.base)
				: -1;

		if (b >= 0 && s->lea_into[b]) {
			s->indexed[s->nindexed % 4].addr = s->lea_into[b];
			s->indexed[s->nindexed % 4].index = s->n;
			s->nindexed++;
		}
	}
}

static void classify(struct plan_state *s, const ZydisDecodedInstruction *zi,
		     const ZydisDecodedOperand *ops, uint64_t addr)
{
	struct decoded in = { .addr = addr, .len = zi->length };
	int rel = (zi->attributes & ZYDIS_ATTRIB_IS_RELATIVE) != 0;
	ZyanU64 target = 0;
	unsigned nvis = ops ? zi->operand_count_visible : 0; /* no operands: not needed */
	int has_imm = nvis > 0 && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE;
	int has_target = rel && nvis > 0 && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
			 ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(zi, &ops[0], addr, &target));

	int padding = zi->meta.category == ZYDIS_CATEGORY_NOP ||
		      zi->meta.category == ZYDIS_CATEGORY_WIDENOP ||
		      zi->mnemonic == ZYDIS_MNEMONIC_INT3;

	if (s->dead && padding) {
		pad_extend(s, addr, zi->length);
		in.flags = I_PAD;
		push_insn(s, &in);
		return;
	}
	s->dead = 0;
	/* What follows a jump, a return or padding is reached some other way:
	 * a jump table's case, a landing pad, a function. */
	if (s->after_end)
		add_target(s, addr);
	s->after_end = zi->meta.category == ZYDIS_CATEGORY_NOP ||
		       zi->meta.category == ZYDIS_CATEGORY_WIDENOP ||
		       zi->meta.category == ZYDIS_CATEGORY_RET ||
		       zi->meta.category == ZYDIS_CATEGORY_UNCOND_BR;
	s->dead = zi->meta.category == ZYDIS_CATEGORY_RET ||
		  zi->meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
		  zi->mnemonic == ZYDIS_MNEMONIC_UD2;
	if (has_target)
		in.target = target;
	for (unsigned k = 0; k < nvis; k++) {
		ZyanU64 abs;

		if (zi->mnemonic == ZYDIS_MNEMONIC_LEA &&
		    ops[k].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    ops[k].mem.base == ZYDIS_REGISTER_RIP &&
		    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(zi, &ops[k], addr, &abs))) {
			int r = ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER ? gpr(ops[0].reg.value)
									   : -1;

			/* A table only if a jmp through a register follows. */
			s->recent[s->nrecent % 4].addr = abs;
			s->recent[s->nrecent % 4].index = s->n;
			s->nrecent++;
			if (r >= 0)
				s->lea_into[r] = abs;
		}
		if (zi->meta.category == ZYDIS_CATEGORY_UNCOND_BR &&
		    ops[k].type == ZYDIS_OPERAND_TYPE_REGISTER) {
			for (size_t j = 0; j < 4 && j < s->nrecent; j++) {
				if (s->recent[j].index + 8 >= s->n)
					add_table(s, s->recent[j].addr);
			}
			for (size_t j = 0; j < 4 && j < s->nindexed; j++) {
				if (s->indexed[j].index + 8 >= s->n)
					add_table(s, s->indexed[j].addr);
			}
		}
		if (zi->meta.category == ZYDIS_CATEGORY_UNCOND_BR &&
		    ops[k].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    ops[k].mem.base == ZYDIS_REGISTER_NONE &&
		    ops[k].mem.index != ZYDIS_REGISTER_NONE && ops[k].mem.scale == 8) {
			if (s->nabs == s->cap_abs) {
				s->cap_abs = s->cap_abs ? 2 * s->cap_abs : 64;
				s->abs_tables = xrealloc(s->abs_tables,
							 s->cap_abs * sizeof(*s->abs_tables));
			}
			s->abs_tables[s->nabs++].addr = (uint64_t)ops[k].mem.disp.value;
		}
	}
	switch (zi->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
		if (zi->meta.category == ZYDIS_CATEGORY_UNCOND_BR)
			in.flags |= I_ENDS;
		if (has_target) {
			add_target(s, target);
			if (target <= addr)
				in.flags |= I_SITE;
			if (!pinned(zi)) {
				in.flags |= I_RELOC;
				if (!(in.flags & I_ENDS))
					in.flags |= I_MOVABLE;
			}
		} else if (!has_imm) {
			/* jmp through a register or memory (a rip-relative GOT
			 * slot too): indirect */
			in.flags |= I_SITE;
			if (!(nvis > 0 && uses_rsp_reg(&ops[0])))
				in.flags |= I_RELOC;
		}
		break;
	case ZYDIS_CATEGORY_CALL:
		in.flags |= I_CALL;
		add_target(s, addr + zi->length);
		if (has_target) {
			add_target(s, target);
			if (target <= addr)
				in.flags |= I_SITE | I_RELOC;
		} else if (!has_imm) {
			in.flags |= I_SITE;
			if (!(nvis > 0 && uses_rsp_reg(&ops[0])))
				in.flags |= I_RELOC;
		}
		break;
	case ZYDIS_CATEGORY_RET:
		in.flags |= I_ENDS;
		break;
	default:
		/* (rip-relative memory operands are re-encoded; relative
		 * immediates outside branches are xbegin's and loop's: pinned) */
		if (pinned(zi))
			break;
		in.flags |= I_MOVABLE;
		if (picked(s->seed, addr, s->density))
			in.flags |= I_SITE | I_CHAOS | I_RELOC;
		break;
	}
	if (zi->mnemonic == ZYDIS_MNEMONIC_SYSCALL || pinned(zi))
		in.flags &= (uint8_t) ~(I_MOVABLE | I_RELOC);
	push_insn(s, &in);
}

/* Instructions that are not relative but whose kind the plan needs:
 * jumps and calls through registers or memory, returns, padding. */
static int full_decode(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_JMP:
	case ZYDIS_MNEMONIC_CALL:
	case ZYDIS_MNEMONIC_RET:
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_NOP:
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_LEA:
	case ZYDIS_MNEMONIC_UD2:
		return 1;
	default:
		return 0;
	}
}

int dw_patch_zydis_only;

/* What classify makes of the same instruction, from B (dw_insn_brief). */
static void classify_brief(struct plan_state *s, const struct dw_insn_brief *b, uint64_t addr)
{
	struct decoded in = { .addr = addr, .len = b->len };
	uint64_t target = addr + b->len + (uint64_t)b->rel;

	if (s->dead && (b->kind == DW_BRIEF_NOP || b->kind == DW_BRIEF_INT3)) {
		pad_extend(s, addr, b->len);
		in.flags = I_PAD;
		push_insn(s, &in);
		return;
	}
	if (s->after_end)
		add_target(s, addr);
	s->after_end =
		b->kind == DW_BRIEF_NOP || b->kind == DW_BRIEF_RET || b->kind == DW_BRIEF_JMP;
	s->dead = b->kind == DW_BRIEF_RET || b->kind == DW_BRIEF_JMP;
	switch (b->kind) {
	case DW_BRIEF_JCC:
	case DW_BRIEF_JMP:
		in.target = target;
		add_target(s, target);
		if (target <= addr)
			in.flags |= I_SITE;
		in.flags |= b->kind == DW_BRIEF_JMP ? I_ENDS | I_RELOC : I_RELOC | I_MOVABLE;
		break;
	case DW_BRIEF_CALL:
		in.target = target;
		in.flags |= I_CALL;
		add_target(s, addr + b->len);
		add_target(s, target);
		if (target <= addr)
			in.flags |= I_SITE | I_RELOC;
		break;
	case DW_BRIEF_RET:
		in.flags |= I_ENDS;
		break;
	case DW_BRIEF_INT3:
		break; /* pinned */
	case DW_BRIEF_LEA_RIP:
		s->recent[s->nrecent % 4].addr = target;
		s->recent[s->nrecent % 4].index = s->n;
		s->nrecent++;
		s->lea_into[b->reg] = target;
		/* fall through */
	default:
		in.flags |= I_MOVABLE;
		if (picked(s->seed, addr, s->density))
			in.flags |= I_SITE | I_CHAOS | I_RELOC;
		break;
	}
	push_insn(s, &in);
}

int dw_insn_brief_ref(const unsigned char *p, size_t n, struct dw_insn_brief *b)
{
	ZydisDecoder decoder, fast;
	ZydisDecoderContext ctx;
	ZydisDecodedInstruction zi, full;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZyanU64 abs;
	int need;

	memset(b, 0, sizeof(*b));
	if (ZYAN_FAILED(
		    ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    ZYAN_FAILED(
		    ZydisDecoderInit(&fast, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    ZYAN_FAILED(ZydisDecoderEnableMode(&fast, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE)) ||
	    ZYAN_FAILED(ZydisDecoderDecodeInstruction(&fast, NULL, p, n, &zi)) ||
	    zi.mnemonic == ZYDIS_MNEMONIC_MOVSXD)
		return 0;
	b->len = zi.length;
	b->kind = DW_BRIEF_PLAIN;
	if (!(zi.attributes & ZYDIS_ATTRIB_IS_RELATIVE) && !full_decode(zi.mnemonic))
		return !pinned(&zi);
	/* Decoded again in full, as decode_section does. */
	if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&decoder, &ctx, p, n, &full)) ||
	    full.length != zi.length || full.mnemonic != zi.mnemonic)
		return 0;
	need = full.meta.category == ZYDIS_CATEGORY_COND_BR ||
	       full.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
	       full.meta.category == ZYDIS_CATEGORY_CALL || full.mnemonic == ZYDIS_MNEMONIC_LEA;
	if (need && ZYAN_FAILED(ZydisDecoderDecodeOperands(&decoder, &ctx, &full, ops,
							   full.operand_count_visible)))
		return 0;
	if (full.mnemonic == ZYDIS_MNEMONIC_INT3) {
		b->kind = DW_BRIEF_INT3;
		return !need && full.meta.category != ZYDIS_CATEGORY_NOP &&
		       full.meta.category != ZYDIS_CATEGORY_WIDENOP &&
		       full.meta.category != ZYDIS_CATEGORY_RET;
	}
	if (pinned(&full) || full.mnemonic == ZYDIS_MNEMONIC_UD2)
		return 0;
	switch (full.meta.category) {
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_WIDENOP:
		b->kind = DW_BRIEF_NOP;
		return full.mnemonic != ZYDIS_MNEMONIC_LEA;
	case ZYDIS_CATEGORY_RET:
		b->kind = DW_BRIEF_RET;
		return 1;
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
		if (full.operand_count_visible != 1 ||
		    ops[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE || !ops[0].imm.is_relative ||
		    ZYAN_FAILED(ZydisCalcAbsoluteAddress(&full, &ops[0], 0x400000, &abs)) ||
		    abs != 0x400000 + full.length + (uint64_t)ops[0].imm.value.s)
			return 0;
		b->kind = full.meta.category == ZYDIS_CATEGORY_COND_BR ? DW_BRIEF_JCC
			  : full.meta.category == ZYDIS_CATEGORY_CALL  ? DW_BRIEF_CALL
								       : DW_BRIEF_JMP;
		b->rel = ops[0].imm.value.s;
		return 1;
	default:
		if (full.mnemonic != ZYDIS_MNEMONIC_LEA)
			return 1;
		if (full.operand_count_visible != 2 || ops[0].type != ZYDIS_OPERAND_TYPE_REGISTER ||
		    ops[1].type != ZYDIS_OPERAND_TYPE_MEMORY)
			return 0;
		if (ops[1].mem.base != ZYDIS_REGISTER_RIP)
			return 1;
		if (gpr(ops[0].reg.value) < 0 ||
		    ZYAN_FAILED(ZydisCalcAbsoluteAddress(&full, &ops[1], 0x400000, &abs)) ||
		    abs != 0x400000 + full.length + (uint64_t)ops[1].mem.disp.value)
			return 0;
		b->kind = DW_BRIEF_LEA_RIP;
		b->reg = (int8_t)gpr(ops[0].reg.value);
		b->rel = ops[1].mem.disp.value;
		return 1;
	}
}

/* Zydis's decoders: in full, and minimal (length and mnemonic). */
struct decoders {
	ZydisDecoder full, fast;
};

static int decoders_init(struct decoders *d)
{
	if (ZYAN_FAILED(
		    ZydisDecoderInit(&d->full, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    ZYAN_FAILED(
		    ZydisDecoderInit(&d->fast, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    ZYAN_FAILED(ZydisDecoderEnableMode(&d->fast, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE)))
		return -EINVAL;
	return 0;
}

/*
 * The instructions of a section (at VADDR) from its offset *OFFP while it
 * is below STOP, from BUF, which holds the section's bytes [BASE, END):
 * END is the section's end or at least 15 bytes past STOP, so no decode
 * sees fewer bytes than it would with the whole section.
 */
static void decode_run(struct plan_state *s, const struct decoders *d, const unsigned char *buf,
		       size_t base, size_t end, size_t stop, size_t *offp, uint64_t vaddr)
{
	ZydisDecoderContext ctx;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	size_t off = *offp;

	while (off < stop) {
		const unsigned char *p = buf + (off - base);
		size_t n = end - off;
		struct dw_insn_brief b;
		int need;

		/* Nine in ten instructions need no decoder (insnlen.c). */
		if (!dw_patch_zydis_only && dw_insn_brief(p, n, &b)) {
			classify_brief(s, &b, vaddr + off);
			off += b.len;
			continue;
		}

		/* Most instructions only need their length and mnemonic: the
		 * minimal mode gives them at a fraction of the cost. */
		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&d->fast, NULL, p, n, &zi))) {
			/* Not code (padding): an entry may follow it. */
			if (s->dead)
				pad_extend(s, vaddr + off, 1);
			off++;
			s->after_end = 1;
			continue;
		}
		if (zi.mnemonic == ZYDIS_MNEMONIC_MOVSXD) {
			ZydisDecodedInstruction full; /* (zi stays as the fast decode made it) */

			if (ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d->full, p, n, &full, ops)))
				note_indexed(s, ops, full.operand_count_visible);
		}
		if (!(zi.attributes & ZYDIS_ATTRIB_IS_RELATIVE) && !full_decode(zi.mnemonic)) {
			zi.meta.category = ZYDIS_CATEGORY_INVALID;
			classify(s, &zi, NULL, vaddr + off);
			off += zi.length;
			continue;
		}
		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&d->full, &ctx, p, n, &zi))) {
			off++;
			s->after_end = 1;
			continue;
		}
		/* Operands only where the plan looks at them. */
		need = zi.meta.category == ZYDIS_CATEGORY_COND_BR ||
		       zi.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
		       zi.meta.category == ZYDIS_CATEGORY_CALL || zi.mnemonic == ZYDIS_MNEMONIC_LEA;
		if (need && ZYAN_FAILED(ZydisDecoderDecodeOperands(&d->full, &ctx, &zi, ops,
								   zi.operand_count_visible)))
			need = 0;
		classify(s, &zi, need ? ops : NULL, vaddr + off);
		off += zi.length;
	}
	*offp = off;
}

/* The end of a section (at END) is where the next begins: no range crosses. */
static void section_end(struct plan_state *s, uint64_t end)
{
	add_target(s, end);
	s->dead = 0;
}

static int decode_section(struct plan_state *s, const unsigned char *buf, size_t len,
			  uint64_t vaddr)
{
	struct decoders d;
	size_t off = 0;

	if (decoders_init(&d))
		return -EINVAL;
	decode_run(s, &d, buf, 0, len, len, &off, vaddr);
	section_end(s, vaddr + len);
	return 0;
}

/* Bytes of code read at a time: a section is not read whole (libc's .text
 * would be 370 pages of new memory, a page fault each). */
#define DECODE_CHUNK 65536

/* The same for the LEN bytes at offset FOFF of file FD, read into BUF
 * (DECODE_CHUNK bytes) a chunk at a time. */
static int decode_section_fd(struct plan_state *s, int fd, uint64_t foff, size_t len,
			     uint64_t vaddr, unsigned char *buf)
{
	struct decoders d;
	size_t off = 0;

	if (decoders_init(&d))
		return -EINVAL;
	while (off < len) {
		size_t base = off, end = len - off > DECODE_CHUNK ? off + DECODE_CHUNK : len;

		for (size_t got = 0; got < end - base;) {
			ssize_t r =
				pread(fd, buf + got, end - base - got, (off_t)(foff + base + got));

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return r < 0 ? -errno : -EIO;
			got += (size_t)r;
		}
		decode_run(s, &d, buf, base, end, end == len ? len : end - 15, &off, vaddr);
	}
	section_end(s, vaddr + len);
	return 0;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether a known entry point lies in (lo, hi). */
static int entry_inside(const struct plan_state *s, uint64_t lo, uint64_t hi)
{
	for (uint64_t a = lo + 1; a < hi; a++) {
		if (a < s->base || a - s->base > s->size)
			return 1; /* out of the segment: never taken */
		if (s->targets[(a - s->base) / 8] & (1u << ((a - s->base) % 8)))
			return 1;
	}
	return 0;
}

static int contiguous(const struct plan_state *s, size_t from, size_t to)
{
	for (size_t k = from; k < to; k++) {
		if (ia(s, k) + s->in[k].len != ia(s, k + 1))
			return 0;
	}
	return 1;
}

/* The range for site I: instructions [*first, *last], none of them
 * COVERED by another range; 0 for none. */
static int choose_range(const struct plan_state *s, size_t i, size_t *first, size_t *last)
{
	const struct insn *in = s->in;

	if (!(in[i].flags & I_RELOC))
		return 0;
	/* Instructions before the site first: what follows a branch is often
	 * where the next site needs its own (a call's argument set-up). */
	for (size_t after = 0; after <= 4 && i + after < s->n; after++) {
		size_t l = i + after;

		if (after) {
			/* Followers run by falling through from the site. */
			if ((in[i].flags & (I_ENDS | I_CALL)) || !(in[l].flags & I_MOVABLE) ||
			    (in[l].mark & M_COVERED) ||
			    ((in[l].flags & I_SITE) && !(in[l].flags & I_CHAOS)) ||
			    !contiguous(s, l - 1, l))
				break;
		}
		for (size_t before = 0; before <= 4 && before <= i; before++) {
			size_t f = i - before;
			uint64_t end = ia(s, l) + in[l].len;

			/* A chaos pick in a range is taken along, uncounted; a
			 * site that must count is not. */
			if (before && (!(in[f].flags & I_MOVABLE) || (in[f].mark & M_COVERED) ||
				       ((in[f].flags & I_SITE) && !(in[f].flags & I_CHAOS)) ||
				       !contiguous(s, f, f + 1)))
				break;
			if (entry_inside(s, ia(s, f), end))
				break; /* further back cannot help: the entry stays inside */
			if (end - ia(s, f) >= 5) {
				*first = f;
				*last = l;
				return 1;
			}
		}
	}
	return 0;
}

static void add_range(struct dw_patch_plan *plan, const struct dw_patch_range *r)
{
	if (plan->n == plan->cap) {
		plan->cap = plan->cap ? 2 * plan->cap : 1024;
		plan->ranges = xrealloc(plan->ranges, plan->cap * sizeof(*plan->ranges));
	}
	plan->ranges[plan->n++] = *r;
}

static int by_range(const void *a, const void *b)
{
	uint64_t x = ((const struct dw_patch_range *)a)->addr;
	uint64_t y = ((const struct dw_patch_range *)b)->addr;

	return x < y ? -1 : x > y;
}

static void free_ranges(struct dw_patch_plan *p)
{
	free(p->ranges);
	p->ranges = NULL;
	p->n = p->cap = 0;
}

/* A slot of 5 bytes of dead padding within a rel8 of the 2-byte branch
 * I, taken from its pad: *SLOT, and 1; 0 when there is none. */
static int pad_slot(struct plan_state *s, size_t i, uint64_t target, uint64_t *slot)
{
	const struct insn *in = &s->in[i];
	uint64_t from = ia(s, i) + 2, lo = from - 128, hi = from + 127;
	size_t a = 0, b = s->npads;

	if (in->len != 2 || !(in->flags & I_RELOC) || !target)
		return 0;
	while (a < b) { /* the first pad that ends past LO */
		size_t m = (a + b) / 2;

		if (s->pads[m].end <= lo + 5)
			a = m + 1;
		else
			b = m;
	}
	for (; a < s->npads && s->pads[a].start <= hi; a++) {
		struct pad *p = &s->pads[a];
		uint64_t at = p->start < lo ? lo : p->start;

		if (at + 5 > p->end || at > hi || entry_inside(s, at - 1, at + 5))
			continue;
		if (at == p->start)
			p->start += 5;
		else
			p->end = at; /* what is left after the slot is lost; fine */
		*slot = at;
		return 1;
	}
	return 0;
}

/* A jmp that no range can take may take the dead padding after it along
 * (nothing runs there): instructions [I, *LAST], and 1. */
static int take_padding(struct plan_state *s, size_t i, size_t *last)
{
	const struct insn *in = s->in;
	uint64_t end = ia(s, i) + in[i].len;
	size_t a = 0, b = s->npads, l = i;

	if (!(in[i].flags & I_ENDS) || (in[i].flags & I_CALL) || !(in[i].flags & I_RELOC))
		return 0;
	while (a < b) { /* the pad that starts at END */
		size_t m = (a + b) / 2;

		if (s->pads[m].start < end)
			a = m + 1;
		else
			b = m;
	}
	if (a == s->npads || s->pads[a].start != end)
		return 0;
	while (end - ia(s, i) < 5) {
		if (l + 1 >= s->n || !(in[l + 1].flags & I_PAD) || ia(s, l + 1) != end ||
		    ia(s, l + 1) + in[l + 1].len > s->pads[a].end)
			return 0;
		l++;
		end += in[l].len;
	}
	s->pads[a].start = end;
	*last = l;
	return 1;
}

/* The index of the instruction at ADDR, or s->n (they are in address
 * order). */
static size_t insn_at(const struct plan_state *s, uint64_t addr)
{
	size_t a = 0, b = s->n;

	while (a < b) {
		size_t m = (a + b) / 2;

		if (ia(s, m) < addr)
			a = m + 1;
		else
			b = m;
	}
	return a < s->n && ia(s, a) == addr ? a : s->n;
}

/*
 * A backward branch I that no jump can take (sort's `call; test; jns` loop,
 * its neighbours a return address and a branch target) may be counted at
 * its target instead, where a loop's every turn passes too: a range that
 * starts there. *F, *L and 1 when one can be had (*F == *L == s->n when a
 * range already starts there); 0 when not.
 */
static int at_target(struct plan_state *s, size_t i, uint64_t target,
		     const struct dw_patch_plan *plan, const struct dw_patch_plan *back, size_t *f,
		     size_t *l)
{
	size_t j;
	uint8_t flags;
	int ok;

	if (!target || target > ia(s, i) || (s->in[i].flags & I_CALL) ||
	    (j = insn_at(s, target)) == s->n || (s->in[j].flags & I_PAD))
		return 0;
	if ((s->in[j].mark & M_COVERED) && !s->unordered) {
		/* (in address order, no two instructions share an address) */
		if (!(s->in[j].mark & M_JUMP))
			return 0;
		*f = *l = s->n;
		return 1;
	}
	if (s->in[j].mark & M_COVERED) {
		for (size_t k = 0; k < plan->n + back->n; k++) {
			const struct dw_patch_range *r =
				k < plan->n ? &plan->ranges[k] : &back->ranges[k - plan->n];

			if (r->addr == ia(s, j) && r->kind == DW_PATCH_JUMP) {
				*f = *l = s->n;
				return 1;
			}
		}
		return 0;
	}
	if (!(s->in[j].flags & (I_MOVABLE | I_RELOC)))
		return 0;
	flags = s->in[j].flags;
	s->in[j].flags |= I_RELOC;
	/* (no instruction before it: the target would be inside) */
	ok = choose_range(s, j, f, l) && *f == j;
	s->in[j].flags = flags;
	return ok;
}

/* Instructions [F, L] are in a range. */
static void cover(struct plan_state *s, size_t f, size_t l)
{
	for (size_t k = f; k <= l; k++)
		s->in[k].mark |= M_COVERED;
}

/* Whether RANGES[A, B) are in address order. */
static int in_order(const struct dw_patch_range *ranges, size_t a, size_t b)
{
	for (size_t k = a + 1; k < b; k++) {
		if (ranges[k].addr <= ranges[k - 1].addr)
			return 0;
	}
	return 1;
}

/*
 * PLAN's ranges by address, with BACK's (freed) among them. Each pass
 * makes its ranges in address order (a site's range starts past the one
 * before it), so the two passes' and BACK's, sorted, are merged; any
 * other order is sorted whole. (No two ranges start at one address, so
 * every way of sorting gives the same order.)
 */
static void sort_ranges(struct dw_patch_plan *plan, size_t n0, struct dw_patch_plan *back)
{
	struct dw_patch_range *v;
	size_t a = 0, b = 0, c = n0, k = 0;

	if (back->n)
		qsort(back->ranges, back->n, sizeof(*back->ranges), by_range);
	if (!back->n && in_order(plan->ranges, 0, plan->n))
		return;
	if (!in_order(plan->ranges, 0, n0) || !in_order(plan->ranges, n0, plan->n)) {
		for (size_t i = 0; i < back->n; i++)
			add_range(plan, &back->ranges[i]);
		qsort(plan->ranges, plan->n, sizeof(*plan->ranges), by_range);
		free_ranges(back);
		return;
	}
	if (n0 == plan->n && plan->n + back->n <= plan->cap) {
		/* One pass's: BACK merged in place, from the end. */
		size_t i = plan->n, j = back->n;

		k = plan->n + back->n;
		while (j > 0) {
			if (i > 0 && plan->ranges[i - 1].addr > back->ranges[j - 1].addr)
				plan->ranges[--k] = plan->ranges[--i];
			else
				plan->ranges[--k] = back->ranges[--j];
		}
		plan->n += back->n;
		free_ranges(back);
		return;
	}
	v = xmalloc((plan->n + back->n) * sizeof(*v));
	while (a < back->n || b < n0 || c < plan->n) {
		const struct dw_patch_range *x = a < back->n ? &back->ranges[a] : NULL;
		const struct dw_patch_range *y = b < n0 ? &plan->ranges[b] : NULL;
		const struct dw_patch_range *z = c < plan->n ? &plan->ranges[c] : NULL;
		const struct dw_patch_range *m = x;

		if (y && (!m || y->addr < m->addr))
			m = y;
		if (z && (!m || z->addr < m->addr))
			m = z;
		v[k++] = *m;
		if (m == x)
			a++;
		else if (m == y)
			b++;
		else
			c++;
	}
	free(plan->ranges);
	plan->ranges = v;
	plan->n = plan->cap = k;
	free_ranges(back);
}

/* Sites that must count first (a hot loop's branch must not lose its
 * neighbours to a chaos pick and fall back to an int3), then chaos picks
 * in what is left. */
static void plan_finish(struct plan_state *s, struct dw_patch_plan *plan)
{
	struct dw_patch_plan back = { 0 }; /* the ranges at_target makes */
	size_t n0 = 0;			   /* of plan->ranges, those of the first pass */

	/* (a range at most for each site, in plan or back) */
	plan->cap = s->nsites ? s->nsites : 1;
	plan->ranges = xmalloc(plan->cap * sizeof(*plan->ranges));

	free(s->tables);
	free(s->abs_tables);
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			n0 = plan->n;
		/* (a site is never made after the decode, only unmade) */
		for (size_t k = 0; k < s->nsites; k++) {
			size_t i = s->sites[k].i;
			uint64_t target = s->sites[k].target;
			struct dw_patch_range r = { 0 };
			size_t f, l;
			int chaos = (s->in[i].flags & I_CHAOS) != 0;

			if (!(s->in[i].flags & I_SITE) || (s->in[i].mark & M_COVERED) ||
			    chaos != pass)
				continue;
			if (choose_range(s, i, &f, &l)) {
				r.addr = ia(s, f);
				r.len = (uint16_t)(ia(s, l) + s->in[l].len - r.addr);
				r.kind = DW_PATCH_JUMP;
				r.site = (uint16_t)(ia(s, i) - r.addr);
				cover(s, f, l);
				s->in[f].mark |= M_JUMP;
				plan->njump++;
			} else if (chaos) {
				continue; /* a chaos pick costs a stop as an int3: leave it */
			} else if (take_padding(s, i, &l)) {
				r.addr = ia(s, i);
				r.len = (uint16_t)(ia(s, l) + s->in[l].len - r.addr);
				r.kind = DW_PATCH_JUMP;
				cover(s, i, l);
				s->in[i].mark |= M_JUMP;
				plan->njump++;
			} else if (pad_slot(s, i, target, &r.slot)) {
				r.addr = ia(s, i);
				r.len = 2;
				r.kind = DW_PATCH_PAD;
				r.target = target;
				s->in[i].mark |= M_COVERED;
				plan->npad++;
			} else if (at_target(s, i, target, plan, &back, &f, &l)) {
				s->in[i].mark |= M_COVERED;
				if (f == s->n)
					continue; /* counted there already */
				r.addr = ia(s, f);
				r.len = (uint16_t)(ia(s, l) + s->in[l].len - r.addr);
				r.kind = DW_PATCH_JUMP;
				cover(s, f, l);
				s->in[f].mark |= M_JUMP;
				plan->njump++;
				plan->ntarget++;
				add_range(&back, &r); /* (before those around it: sorted apart) */
				continue;
			} else {
				r.addr = ia(s, i);
				r.len = 1;
				r.kind = DW_PATCH_INT3;
				s->in[i].mark |= M_COVERED;
				plan->nint3++;
			}
			add_range(plan, &r);
		}
	}
	sort_ranges(plan, n0, &back);
	plan->tramp_size = ((plan->njump + plan->npad) * DW_PATCH_TRAMP_MAX + 4095) & ~(size_t)4095;
	free(s->pads);
	free(s->in);
	free(s->targets);
	free(s->starts);
	free(s->sites);
}

int dw_patch_plan_buf(const unsigned char *buf, size_t len, uint64_t vaddr, uint64_t seed,
		      unsigned density, struct dw_patch_plan *plan)
{
	struct plan_state s = { .seed = seed, .density = density };
	int err;

	memset(plan, 0, sizeof(*plan));
	if (len > UINT32_MAX)
		return -EFBIG; /* (struct insn) */
	plan->exec_vaddr = vaddr;
	plan->exec_size = len;
	targets_init(&s, vaddr, len);
	err = decode_section(&s, buf, len, vaddr);
	add_target(&s, vaddr);
	if (err) {
		free(s.in);
		free(s.pads);
		free(s.targets);
		free(s.starts);
		free(s.sites);
		return err;
	}
	plan_finish(&s, plan);
	return 0;
}

/* Function symbols of ELF: entry points the decode cannot see. */
/*
 * Code the program copies elsewhere and runs there, which must keep its
 * original bytes: V8's embedded builtins (node and every V8 embedder),
 * which V8 copies next to its JIT code for short calls. A jump to a
 * trampoline, copied, lands nowhere. Like JIT code, they are not counted.
 */
static int copied_code(const char *name)
{
	return name && strncmp(name, "Builtins_", 9) == 0;
}

/* No site in [LO, HI), and nothing there taken along by one. */
static void leave_alone(struct plan_state *s, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = s->n;

	while (a < b) {
		size_t m = (a + b) / 2;

		if (ia(s, m) < lo)
			a = m + 1;
		else
			b = m;
	}
	for (; a < s->n && ia(s, a) < hi; a++)
		s->in[a].flags &= ~(unsigned)(I_SITE | I_MOVABLE | I_CHAOS);
}

static void add_symbols(struct plan_state *s, Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym sym;

			if (gelf_getsym(data, (int)k, &sym) && sym.st_value &&
			    (GELF_ST_TYPE(sym.st_info) == STT_FUNC ||
			     GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC ||
			     GELF_ST_TYPE(sym.st_info) == STT_NOTYPE)) {
				add_target(s, sym.st_value);
				/* (its name only where it overlaps the segment) */
				if (sym.st_size && sym.st_value <= s->base + s->size &&
				    sym.st_value + sym.st_size > s->base &&
				    copied_code(elf_strptr(elf, sh.sh_link, sym.st_name)))
					leave_alone(s, sym.st_value, sym.st_value + sym.st_size);
			}
		}
	}
}

/* ELF's SHT_PROGBITS sections, in the order of its section headers, each
 * read on first need. */
struct progbits {
	Elf_Scn *scn;
	uint64_t addr, size;
	const unsigned char *buf; /* once read */
	int bad;		  /* read, and not whole */
};

static struct progbits *progbits_list(Elf *elf, size_t *n)
{
	struct progbits *v = NULL;
	size_t cap = 0;
	Elf_Scn *scn = NULL;

	*n = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 32;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[(*n)++] = (struct progbits){ .scn = scn, .addr = sh.sh_addr, .size = sh.sh_size };
	}
	return v;
}

/* The bytes of ELF's data (its sections V, N of them) at link-time address
 * ADDR: LEN bytes, or NULL. */
static const unsigned char *data_at(struct progbits *v, size_t n, uint64_t addr, size_t len)
{
	for (size_t k = 0; k < n; k++) {
		struct progbits *p = &v[k];

		if (addr < p->addr || addr + len > p->addr + p->size)
			continue;
		if (!p->buf && !p->bad) {
			Elf_Data *data = elf_getdata(p->scn, NULL);

			if (!data || !data->d_buf || data->d_size != p->size)
				p->bad = 1;
			else
				p->buf = data->d_buf;
		}
		return p->bad ? NULL : p->buf + (addr - p->addr);
	}
	return NULL;
}

/*
 * Jump tables: gcc and clang's position-independent switch tables are
 * 32-bit offsets from the table's own address, which a rip-relative lea
 * takes a few instructions before a jmp through a register (lea, movslq,
 * add, jmp *%reg); non-PIC ones are absolute 64-bit entries indexed by a jmp. Every
 * entry that lands in the code is an entry point (a case may be reached
 * by falling through as well, so nothing else marks it).
 */
/* Whether ADDR is the start of a decoded instruction. */
static int insn_start(const struct plan_state *s, uint64_t addr)
{
	if (s->unordered || addr < s->base || addr - s->base > s->size)
		return insn_at(s, addr) < s->n;
	return (s->starts[(addr - s->base) / 8] >> ((addr - s->base) % 8)) & 1;
}

/* An entry of a table is good while it lands on an instruction of the
 * code; a table ends at the first that does not, or where the next one
 * begins (tables sit one after the other in .rodata). */
static void add_tables(struct plan_state *s, Elf *elf, const struct dw_patch_plan *plan)
{
	uint64_t lo = plan->exec_vaddr, hi = plan->exec_vaddr + plan->exec_size;
	size_t n = 0, nsec;
	struct progbits *sec = progbits_list(elf, &nsec);

	if (s->ntables) /* (qsort of NULL, none: undefined) */
		qsort(s->tables, s->ntables, sizeof(*s->tables), by_u64);
	/* Each once: a table found twice (two leas, or a lea and a movslq)
	 * would end where its own copy begins, with no entries. */
	for (size_t i = 0; i < s->ntables; i++) {
		if (!n || s->tables[n - 1] != s->tables[i])
			s->tables[n++] = s->tables[i];
	}
	s->ntables = n;
	for (size_t i = 0; i < s->ntables; i++) {
		uint64_t t = s->tables[i], end = i + 1 < s->ntables ? s->tables[i + 1] : UINT64_MAX;

		if (t >= lo && t < hi)
			continue; /* code (a function's address) */
		for (size_t k = 0; k < 65536 && t + 4 * k + 4 <= end; k++) {
			const unsigned char *p = data_at(sec, nsec, t + 4 * k, 4);
			uint64_t to;
			int32_t e;

			if (!p)
				break;
			memcpy(&e, p, 4);
			to = t + (uint64_t)(int64_t)e;
			if (to < lo || to >= hi || !insn_start(s, to))
				break;
			add_target(s, to);
		}
	}
	for (size_t i = 0; i < s->nabs; i++) {
		for (size_t k = 0; k < 65536; k++) {
			const unsigned char *p =
				data_at(sec, nsec, s->abs_tables[i].addr + 8 * k, 8);
			uint64_t e;

			if (!p)
				break;
			memcpy(&e, p, 8);
			if (e < lo || e >= hi || !insn_start(s, e))
				break;
			add_target(s, e);
		}
	}
	free(sec);
}

int dw_patch_plan_holds(const struct dw_patch_plan *plan, uint64_t offset)
{
	return (plan->exec_offset & ~(uint64_t)4095) <= offset &&
	       offset < plan->exec_offset + plan->exec_size;
}

int dw_patch_plan_file(const char *path, uint64_t offset, uint64_t seed, unsigned density,
		       struct dw_patch_plan *plan)
{
	struct plan_state s = { .seed = seed, .density = density };
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	Elf *elf;
	size_t nph;
	int fd, err = 0;
	struct stat st;
	unsigned char *chunk = NULL;

	memset(plan, 0, sizeof(*plan));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = fstat(fd, &st) == 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_machine != EM_X86_64 || elf_getphdrnum(elf, &nph) != 0) {
		err = -ENOEXEC;
		goto out;
	}
	/* File offset to link-time address, from the executable segment that
	 * holds OFFSET. */
	for (size_t k = 0; k < nph; k++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)k, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			plan->exec_vaddr = ph.p_vaddr;
			plan->exec_offset = ph.p_offset;
			plan->exec_size = ph.p_filesz;
			if (dw_patch_plan_holds(plan, offset))
				break;
			plan->exec_size = 0;
		}
	}
	if (!plan->exec_size) {
		err = -ENOEXEC;
		goto out;
	}
	if (plan->exec_size > UINT32_MAX) {
		err = -EFBIG; /* (struct insn) */
		goto out;
	}
	targets_init(&s, plan->exec_vaddr, plan->exec_size);
	chunk = xmalloc(DECODE_CHUNK);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_addr < plan->exec_vaddr ||
		    sh.sh_addr + sh.sh_size > plan->exec_vaddr + plan->exec_size)
			continue;
		/* (what elf_getdata would not read: none, or past the end) */
		if (!sh.sh_size || sh.sh_offset > (uint64_t)st.st_size ||
		    sh.sh_size > (uint64_t)st.st_size - sh.sh_offset)
			continue;
		add_target(&s, sh.sh_addr);
		err = decode_section_fd(&s, fd, sh.sh_offset, sh.sh_size, sh.sh_addr, chunk);
		if (err)
			break;
	}
	add_symbols(&s, elf);
	add_tables(&s, elf, plan);
	if (err) {
		free(s.in);
		free(s.pads);
		free(s.targets);
		free(s.starts);
		free(s.sites);
		goto out;
	}
	plan_finish(&s, plan);
out:
	free(chunk);
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

void dw_patch_plan_free(struct dw_patch_plan *plan)
{
	if (plan->blob.map)
		dw_cache_free(&plan->blob);
	else
		free(plan->ranges);
	memset(plan, 0, sizeof(*plan));
}
