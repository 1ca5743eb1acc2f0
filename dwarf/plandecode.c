/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What each instruction is, for the planner (patch.c): a linear decode of
 * an executable section, the common instructions from insnlen.c's tables
 * (dw_insn_brief), the others with Zydis, into struct plan_state: each
 * instruction with its length and whether it is a site, may move to a
 * trampoline, ends a block or is dead padding, and the entry points and
 * jump tables it names.
 */
#include "config.h"

#include <Zydis/Zydis.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/common.h"
#include "dwarf/planstate.h"

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
void plan_targets_init(struct plan_state *s, uint64_t base, uint64_t size)
{
	s->base = base;
	s->size = size;
	s->targets = xcalloc(size / 8 + 2, 1);
	s->direct = xcalloc(size / 8 + 2, 1);
	s->starts = xcalloc(size / 8 + 2, 1);
	s->syms = xcalloc(size / 8 + 2, 1);
	s->funcs = xcalloc(size / 8 + 2, 1);
	s->called = xcalloc(size / 8 + 2, 1);
	s->fwd = xcalloc(size / 8 + 2, 1);
	/* Room for an instruction in 3 bytes (4 on average in libc, cc1,
	 * node): grown rarely, never copied. */
	s->cap = size / 3 + 1024;
	s->in = xmalloc(s->cap * sizeof(*s->in));
	huge(s->in, s->cap * sizeof(*s->in));
}

void plan_add_target(struct plan_state *s, uint64_t a)
{
	plan_set_bit(s->targets, s, a);
}

void plan_add_symbol(struct plan_state *s, uint64_t a, int func)
{
	plan_add_target(s, a);
	plan_set_bit(s->syms, s, a);
	if (func)
		plan_set_bit(s->funcs, s, a);
}

/*
 * The first symbol inside the LEN bytes of an instruction decoded at A
 * (not at A itself), or 0. Data in a code section (OpenSSL's assembly
 * keeps its constants between its functions) throws a linear decode out
 * of step with the code after it until the decode happens to meet an
 * instruction's start again: an instruction decoded there overlaps two
 * real ones, and a jump written over it would cut into both (a chaos pick
 * in node's padlock_capability, decoded one byte past its first
 * instruction, wrote over that instruction's last two bytes, so it lost
 * %rbx). A function symbol is where real code starts: the decode starts
 * again there.
 */
static uint64_t symbol_inside(const struct plan_state *s, uint64_t a, size_t len)
{
	for (uint64_t x = a + 1; x < a + len; x++) {
		if (plan_holds(s, x) && plan_bit(s->syms, s, x))
			return x;
	}
	return 0;
}

void plan_add_direct(struct plan_state *s, uint64_t from, uint64_t a)
{
	plan_add_target(s, a);
	plan_set_bit(s->direct, s, a);
	if (a > from)
		plan_set_bit(s->fwd, s, a);
}

/* Whether ZI (decoded in any mode: the raw fields are always there) has a
 * memory operand at a displacement from rip (not fs- or gs-relative: no
 * address in the segment). Not a nop's: no access. (mov to or from a
 * control register has the ModRM but no memory and no displacement.) */
static int rip_operand(const ZydisDecodedInstruction *zi)
{
	return (zi->attributes & ZYDIS_ATTRIB_HAS_MODRM) && zi->raw.modrm.mod == 0 &&
	       zi->raw.modrm.rm == 5 && zi->raw.disp.size == 32 &&
	       !(zi->attributes & (ZYDIS_ATTRIB_HAS_SEGMENT_FS | ZYDIS_ATTRIB_HAS_SEGMENT_GS)) &&
	       zi->mnemonic != ZYDIS_MNEMONIC_NOP;
}

/* The instruction being decoded reads, writes or takes the address A. */
static void note_ref(struct plan_state *s, uint64_t a, int lea)
{
	if (a < s->base || a - s->base >= s->size)
		return; /* (most: data sections) */
	if (s->nrefs == s->cap_refs) {
		s->cap_refs = s->cap_refs ? 2 * s->cap_refs : 1024;
		s->refs = xrealloc(s->refs, s->cap_refs * sizeof(*s->refs));
	}
	s->names = 1; /* (push_insn marks the instruction) */
	s->refs[s->nrefs].to = a;
	s->refs[s->nrefs].lea = (uint8_t)lea;
	s->refs[s->nrefs++].from = s->n; /* (the instruction about to be pushed) */
}

/* A direct call at FROM to A. */
static void add_call(struct plan_state *s, uint64_t from, uint64_t a)
{
	plan_add_direct(s, from, a);
	plan_set_bit(s->called, s, a);
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
	s->in[s->n].mark = s->names ? M_NAMES : 0;
	s->names = 0;
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

/* ADDR may be a jump table (planelf.c's add_tables decides). */
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
	if (rip_operand(zi))
		note_ref(s, addr + zi->length + (uint64_t)zi->raw.disp.value,
			 zi->mnemonic == ZYDIS_MNEMONIC_LEA);
	/* What follows a jump, a return or padding is reached some other way:
	 * a jump table's case, a landing pad, a function. */
	if (s->after_end)
		plan_add_target(s, addr);
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
			plan_add_direct(s, addr, target);
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
		plan_add_target(s, addr + zi->length);
		if (has_target) {
			add_call(s, addr, target);
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
		plan_add_target(s, addr);
	s->after_end =
		b->kind == DW_BRIEF_NOP || b->kind == DW_BRIEF_RET || b->kind == DW_BRIEF_JMP;
	s->dead = b->kind == DW_BRIEF_RET || b->kind == DW_BRIEF_JMP;
	switch (b->kind) {
	case DW_BRIEF_JCC:
	case DW_BRIEF_JMP:
		in.target = target;
		plan_add_direct(s, addr, target);
		if (target <= addr)
			in.flags |= I_SITE;
		in.flags |= b->kind == DW_BRIEF_JMP ? I_ENDS | I_RELOC : I_RELOC | I_MOVABLE;
		break;
	case DW_BRIEF_CALL:
		in.target = target;
		in.flags |= I_CALL;
		plan_add_target(s, addr + b->len);
		add_call(s, addr, target);
		if (target <= addr)
			in.flags |= I_SITE | I_RELOC;
		break;
	case DW_BRIEF_RET:
		in.flags |= I_ENDS;
		break;
	case DW_BRIEF_INT3:
		break; /* pinned */
	case DW_BRIEF_RIP:
		note_ref(s, target, 0);
		goto plain;
	case DW_BRIEF_LEA_RIP:
		note_ref(s, target, 1);
		s->recent[s->nrecent % 4].addr = target;
		s->recent[s->nrecent % 4].index = s->n;
		s->nrecent++;
		s->lea_into[b->reg] = target;
		/* fall through */
	default:
	plain:
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
	if (rip_operand(&zi)) {
		b->kind = DW_BRIEF_RIP;
		b->rel = zi.raw.disp.value;
	}
	if (!(zi.attributes & ZYDIS_ATTRIB_IS_RELATIVE) && !full_decode(zi.mnemonic))
		return !pinned(&zi);
	/* Decoded again in full, as plan_decode_section does. */
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
		b->rel = 0;
		return full.mnemonic != ZYDIS_MNEMONIC_LEA;
	case ZYDIS_CATEGORY_RET:
		b->kind = DW_BRIEF_RET;
		b->rel = 0;
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

/*
 * Whether the instruction at P (N bytes) writes every status flag and
 * reads none, so that the flags are dead before it: add, or, and, sub,
 * xor, cmp and test in their common encodings (and, or, xor and test
 * leave AF undefined, which no program can read). From the bytes, the
 * same for either decoder; 0 for anything else (adc, sbb, a lock prefix,
 * an opcode after a prefix that follows REX), which only costs the short
 * count (patchemit.c).
 */
static int writes_flags(const unsigned char *p, size_t n)
{
	size_t k = 0;
	unsigned op;

	while (k < n && k < 4 &&
	       (p[k] == 0x66 || p[k] == 0x26 || p[k] == 0x2e || p[k] == 0x36 || p[k] == 0x3e ||
		p[k] == 0x64 || p[k] == 0x65))
		k++;
	if (k < n && (p[k] & 0xf0) == 0x40)
		k++; /* REX */
	if (k >= n)
		return 0;
	op = p[k];
	if (op < 0x40 && (op & 7) < 6)
		return (op >> 3) != 2 && (op >> 3) != 3; /* not adc, sbb */
	if (op == 0x84 || op == 0x85 || op == 0xa8 || op == 0xa9)
		return 1; /* test */
	if ((op == 0x80 || op == 0x81 || op == 0x83) && k + 1 < n)
		return ((p[k + 1] >> 3) & 7) != 2 && ((p[k + 1] >> 3) & 7) != 3;
	return 0;
}

/* The instruction just pushed, at ADDR from P (N bytes): I_FLAGS. */
static void note_flags(struct plan_state *s, const unsigned char *p, size_t n, uint64_t addr)
{
	if (s->n && ia(s, s->n - 1) == addr && writes_flags(p, n))
		s->in[s->n - 1].flags |= I_FLAGS;
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

/* The instruction just decoded at ADDR, LEN bytes at P, is an endbr64:
 * where an indirect call or jump may land (CET), so code. */
static void note_endbr(struct plan_state *s, const unsigned char *p, size_t len, uint64_t addr)
{
	static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };

	if (len == 4 && memcmp(p, endbr64, 4) == 0 && s->n && ia(s, s->n - 1) == addr)
		s->in[s->n - 1].mark |= M_ENDBR;
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
		uint64_t sym;
		int need;

		/* Nine in ten instructions need no decoder (insnlen.c). */
		if (!dw_patch_zydis_only && dw_insn_brief(p, n, &b)) {
			if ((sym = symbol_inside(s, vaddr + off, b.len))) {
				off = sym - vaddr; /* (bytes that are not code) */
				s->after_end = 1;
				s->dead = 0;
				continue;
			}
			classify_brief(s, &b, vaddr + off);
			note_endbr(s, p, b.len, vaddr + off);
			note_flags(s, p, b.len, vaddr + off);
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
		if ((sym = symbol_inside(s, vaddr + off, zi.length))) {
			off = sym - vaddr;
			s->after_end = 1;
			s->dead = 0;
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
			note_endbr(s, p, zi.length, vaddr + off);
			note_flags(s, p, zi.length, vaddr + off);
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
		note_endbr(s, p, zi.length, vaddr + off);
		note_flags(s, p, zi.length, vaddr + off);
		off += zi.length;
	}
	*offp = off;
}

/* The end of a section (at END) is where the next begins: no range crosses. */
static void section_end(struct plan_state *s, uint64_t end)
{
	plan_add_target(s, end);
	s->dead = 0;
}

int plan_decode_section(struct plan_state *s, const unsigned char *buf, size_t len, uint64_t vaddr)
{
	struct decoders d;
	size_t off = 0;

	if (decoders_init(&d))
		return -EINVAL;
	decode_run(s, &d, buf, 0, len, len, &off, vaddr);
	section_end(s, vaddr + len);
	return 0;
}

/* The same for the LEN bytes at offset FOFF of file FD, read into BUF
 * (DECODE_CHUNK bytes) a chunk at a time. */
int plan_decode_section_fd(struct plan_state *s, int fd, uint64_t foff, size_t len, uint64_t vaddr,
			   unsigned char *buf)
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
