/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A site's control transfer run on a copy of the registers (dwarf.h,
 * dw_branch_run), so that the tracer counts an int3 site's tick with one
 * stop: without it, it puts the original byte back, single-steps the
 * instruction (a second stop) and writes the int3 again. Sites are jumps,
 * conditional jumps, loops and calls, direct or through a register or
 * memory; anything else (a chaos site may be any instruction) is left to
 * the single step, and so is what the CPU would fault on.
 */
#include "config.h"

#include <Zydis/Zydis.h>

#include "dwarf.h"
#include "operand.h"

#define CF 0x001ULL
#define PF 0x004ULL
#define ZF 0x040ULL
#define SF 0x080ULL
#define OF 0x800ULL

/* Whether conditional jump M is taken with flags F and count register
 * RCX (LOOP's already decremented); -1: not a conditional jump. */
static int taken(ZydisMnemonic m, uint64_t f, uint64_t rcx)
{
	int cf = !!(f & CF), pf = !!(f & PF), zf = !!(f & ZF), sf = !!(f & SF), of = !!(f & OF);
	/* JO, JB, JZ, JBE, JS, JP, JL, JLE; each JNcc is its opposite */
	static const ZydisMnemonic yes[] = { ZYDIS_MNEMONIC_JO, ZYDIS_MNEMONIC_JB,
					     ZYDIS_MNEMONIC_JZ, ZYDIS_MNEMONIC_JBE,
					     ZYDIS_MNEMONIC_JS, ZYDIS_MNEMONIC_JP,
					     ZYDIS_MNEMONIC_JL, ZYDIS_MNEMONIC_JLE };
	static const ZydisMnemonic no[] = { ZYDIS_MNEMONIC_JNO, ZYDIS_MNEMONIC_JNB,
					    ZYDIS_MNEMONIC_JNZ, ZYDIS_MNEMONIC_JNBE,
					    ZYDIS_MNEMONIC_JNS, ZYDIS_MNEMONIC_JNP,
					    ZYDIS_MNEMONIC_JNL, ZYDIS_MNEMONIC_JNLE };
	const int cond[] = { of, cf, zf, cf || zf, sf, pf, sf != of, zf || sf != of };

	for (size_t i = 0; i < sizeof(cond) / sizeof(cond[0]); i++) {
		if (m == yes[i])
			return cond[i];
		if (m == no[i])
			return !cond[i];
	}
	if (m == ZYDIS_MNEMONIC_JRCXZ)
		return rcx == 0;
	if (m == ZYDIS_MNEMONIC_LOOP)
		return rcx != 0;
	if (m == ZYDIS_MNEMONIC_LOOPE)
		return rcx != 0 && zf;
	if (m == ZYDIS_MNEMONIC_LOOPNE)
		return rcx != 0 && !zf;
	return -1;
}

/* The target of an indirect jump or call: a register, or 8 bytes of
 * memory (no fs or gs, 64-bit addressing) read with READ. 0 when not. */
static int indirect_target(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *op,
			   const struct user_regs_struct *regs, dw_branch_read_fn read, void *ctx,
			   uint64_t *target)
{
	uint64_t at;

	if (op->type == ZYDIS_OPERAND_TYPE_REGISTER)
		return op->reg.value != ZYDIS_REGISTER_NONE &&
		       dw_reg_value(op->reg.value, regs, regs->rip + zi->length, target) == 0;
	if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || zi->address_width != 64 || op->size != 64 ||
	    (op->mem.segment != ZYDIS_REGISTER_DS && op->mem.segment != ZYDIS_REGISTER_SS &&
	     op->mem.segment != ZYDIS_REGISTER_NONE) ||
	    dw_mem_address(zi, op, regs, &at) < 0)
		return 0;
	return read(ctx, at, target, sizeof(*target)) == 0;
}

/* Where jmp or call ZI goes: its immediate, a register or memory. */
static int branch_target(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops,
			 const struct user_regs_struct *regs, dw_branch_read_fn read, void *ctx,
			 uint64_t *target)
{
	if (ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
		return ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(zi, &ops[0], regs->rip, target));
	return indirect_target(zi, &ops[0], regs, read, ctx, target);
}

int dw_branch_run(const uint8_t *code, size_t len, struct user_regs_struct *regs,
		  dw_branch_read_fn read, void *ctx, uint64_t *push)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint64_t next, target, rcx = regs->rcx;
	int t;

	if (ZYAN_FAILED(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    ZYAN_FAILED(ZydisDecoderDecodeFull(&dec, code, len, &zi, ops)))
		return 0;
	/* A 16-bit operand size truncates the target where the CPU honours
	 * 0x66 on a branch (AMD's do, Intel's ignore it): left to the CPU. */
	if (zi.operand_width != 64 || (zi.attributes & ZYDIS_ATTRIB_HAS_OPERANDSIZE))
		return 0;
	next = regs->rip + zi.length;
	switch (zi.meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		if (zi.mnemonic == ZYDIS_MNEMONIC_LOOP || zi.mnemonic == ZYDIS_MNEMONIC_LOOPE ||
		    zi.mnemonic == ZYDIS_MNEMONIC_LOOPNE) {
			if (zi.address_width != 64)
				return 0;
			rcx--;
		} else if (zi.mnemonic == ZYDIS_MNEMONIC_JRCXZ) {
			/* (JECXZ, with 0x67, is JRCXZ to Zydis only in name) */
			if (zi.address_width != 64)
				return 0;
		}
		t = taken(zi.mnemonic, regs->eflags, rcx);
		if (t < 0 || ops[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
		    ZYAN_FAILED(ZydisCalcAbsoluteAddress(&zi, &ops[0], regs->rip, &target)))
			return 0;
		regs->rcx = rcx;
		regs->rip = t ? target : next;
		return 1;
	case ZYDIS_CATEGORY_UNCOND_BR:
		if (zi.mnemonic != ZYDIS_MNEMONIC_JMP ||
		    !branch_target(&zi, ops, regs, read, ctx, &target))
			return 0;
		regs->rip = target;
		return 1;
	case ZYDIS_CATEGORY_CALL:
		if (zi.mnemonic != ZYDIS_MNEMONIC_CALL ||
		    !branch_target(&zi, ops, regs, read, ctx, &target))
			return 0;
		/* (the target is read with the stack pointer as it was) */
		regs->rsp -= 8;
		*push = next;
		regs->rip = target;
		return 2;
	default:
		return 0;
	}
}
