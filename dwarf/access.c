/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memory one instruction is about to read and write (dwarf.h), from
 * Zydis's operands: the explicit ones and the hidden ones (the stack of
 * push, call, pop and ret; the strings of movs and friends). Zydis names a
 * push's slot by the stack pointer before the instruction; the write goes
 * one slot below it.
 */
#include "config.h"

#include <Zydis/Zydis.h>
#include <errno.h>
#include <stddef.h>

#include "dwarf.h"
#include "operand.h"

/* (operand.h) */
int dw_reg_value(ZydisRegister reg, const struct user_regs_struct *r, uint64_t next, uint64_t *out)
{
	static const struct {
		ZydisRegister reg;
		size_t off;
	} map[] = {
		{ ZYDIS_REGISTER_RAX, offsetof(struct user_regs_struct, rax) },
		{ ZYDIS_REGISTER_RBX, offsetof(struct user_regs_struct, rbx) },
		{ ZYDIS_REGISTER_RCX, offsetof(struct user_regs_struct, rcx) },
		{ ZYDIS_REGISTER_RDX, offsetof(struct user_regs_struct, rdx) },
		{ ZYDIS_REGISTER_RSI, offsetof(struct user_regs_struct, rsi) },
		{ ZYDIS_REGISTER_RDI, offsetof(struct user_regs_struct, rdi) },
		{ ZYDIS_REGISTER_RBP, offsetof(struct user_regs_struct, rbp) },
		{ ZYDIS_REGISTER_RSP, offsetof(struct user_regs_struct, rsp) },
		{ ZYDIS_REGISTER_R8, offsetof(struct user_regs_struct, r8) },
		{ ZYDIS_REGISTER_R9, offsetof(struct user_regs_struct, r9) },
		{ ZYDIS_REGISTER_R10, offsetof(struct user_regs_struct, r10) },
		{ ZYDIS_REGISTER_R11, offsetof(struct user_regs_struct, r11) },
		{ ZYDIS_REGISTER_R12, offsetof(struct user_regs_struct, r12) },
		{ ZYDIS_REGISTER_R13, offsetof(struct user_regs_struct, r13) },
		{ ZYDIS_REGISTER_R14, offsetof(struct user_regs_struct, r14) },
		{ ZYDIS_REGISTER_R15, offsetof(struct user_regs_struct, r15) },
	};

	if (reg == ZYDIS_REGISTER_NONE) {
		*out = 0;
		return 0;
	}
	if (reg == ZYDIS_REGISTER_RIP || reg == ZYDIS_REGISTER_EIP) {
		*out = next;
		return 0;
	}
	reg = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, reg);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (map[i].reg == reg) {
			*out = *(const unsigned long long *)((const char *)r + map[i].off);
			return 0;
		}
	}
	return -1;
}

/* (operand.h) */
int dw_mem_address(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *op,
		   const struct user_regs_struct *r, uint64_t *out)
{
	uint64_t next = r->rip + zi->length, base, index, a;

	if (op->mem.type != ZYDIS_MEMOP_TYPE_MEM ||
	    dw_reg_value(op->mem.base, r, next, &base) < 0 ||
	    dw_reg_value(op->mem.index, r, next, &index) < 0)
		return -1;
	a = base + index * (op->mem.scale ? op->mem.scale : 1) +
	    (op->mem.disp.has_displacement ? (uint64_t)op->mem.disp.value : 0);
	if (zi->address_width == 32)
		a &= 0xffffffffu;
	if (op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN &&
	    ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, op->mem.base) ==
		    ZYDIS_REGISTER_RSP &&
	    (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
		a -= op->size / 8; /* push, call, enter: the slot below */
	if (op->mem.segment == ZYDIS_REGISTER_FS)
		a += r->fs_base;
	else if (op->mem.segment == ZYDIS_REGISTER_GS)
		a += r->gs_base;
	*out = a;
	return 0;
}

int dw_insn_accesses(const unsigned char *buf, size_t len, const struct user_regs_struct *r,
		     struct dw_access *out, size_t max)
{
	ZydisDecoder decoder;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	size_t n = 0;

	if (ZYAN_FAILED(
		    ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    ZYAN_FAILED(ZydisDecoderDecodeFull(&decoder, buf, len, &zi, ops)))
		return -EINVAL;
	/* No data is read: nops with a memory operand (alignment padding),
	 * prefetches (hints). */
	if (zi.meta.category == ZYDIS_CATEGORY_NOP || zi.meta.category == ZYDIS_CATEGORY_WIDENOP ||
	    zi.meta.category == ZYDIS_CATEGORY_PREFETCH)
		return 0;
	/* A repeated string instruction with nothing left to repeat. */
	if ((zi.attributes &
	     (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE)) &&
	    (zi.address_width == 32 ? (uint32_t)r->rcx : r->rcx) == 0)
		return 0;
	for (unsigned i = 0; i < zi.operand_count && n < max; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		uint64_t a;

		if (op->type != ZYDIS_OPERAND_TYPE_MEMORY ||
		    !(op->actions &
		      (ZYDIS_OPERAND_ACTION_MASK_READ | ZYDIS_OPERAND_ACTION_MASK_WRITE)) ||
		    dw_mem_address(&zi, op, r, &a) < 0)
			continue;
		out[n].addr = a;
		out[n].size = op->size >= 8 ? op->size / 8 : 1;
		out[n].read = !!(op->actions & ZYDIS_OPERAND_ACTION_MASK_READ);
		out[n].write = !!(op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE);
		n++;
	}
	return (int)n;
}

int dw_branch(const unsigned char *buf, size_t len, uint64_t pc, struct dw_branch *out)
{
	ZydisDecoder decoder;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	const ZydisDecodedOperand *op = &ops[0];

	if (ZYAN_FAILED(
		    ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    ZYAN_FAILED(ZydisDecoderDecodeFull(&decoder, buf, len, &zi, ops)) ||
	    (zi.mnemonic != ZYDIS_MNEMONIC_CALL && zi.mnemonic != ZYDIS_MNEMONIC_JMP) ||
	    zi.operand_count_visible < 1)
		return -EINVAL;
	out->call = zi.mnemonic == ZYDIS_MNEMONIC_CALL;
	out->length = zi.length;
	if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && op->imm.is_relative) {
		out->through = 0;
		out->target = pc + zi.length + (uint64_t)op->imm.value.s;
		return 0;
	}
	/* call/jmp [rip+disp]: a pointer at a fixed place (the GOT) */
	if (op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.type == ZYDIS_MEMOP_TYPE_MEM &&
	    op->mem.base == ZYDIS_REGISTER_RIP && op->mem.index == ZYDIS_REGISTER_NONE &&
	    op->size == 64) {
		out->through = 1;
		out->target = pc + zi.length + (uint64_t)op->mem.disp.value;
		return 0;
	}
	return -EINVAL;
}
