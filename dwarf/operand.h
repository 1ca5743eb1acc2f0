/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What access.c and branch.c share: a Zydis decode's registers and memory
 * operands read on a thread's registers.
 */
#ifndef HERMIT_DWARF_OPERAND_H
#define HERMIT_DWARF_OPERAND_H

#include <stdint.h>
#include <sys/user.h>
#include <Zydis/Zydis.h>

/* The value of 64-bit general register REG, or of a part of one (rip: the
 * next instruction's address NEXT, as rip-relative operands count from
 * it; none: 0). 0, or -1 when REG is not a general register. */
int dw_reg_value(ZydisRegister reg, const struct user_regs_struct *r, uint64_t next, uint64_t *out);
/* The address memory operand OP of ZI names (fs and gs bases added; a
 * hidden push's slot below the stack pointer), or -1 when it names none
 * we can compute (vector indexes). */
int dw_mem_address(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *op,
		   const struct user_regs_struct *r, uint64_t *out);

#endif
