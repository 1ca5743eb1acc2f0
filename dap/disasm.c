/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Instructions as text for the disassemble request: Zydis (as
 * dwarf/insnmap.c decodes) in AT&T syntax, gdb's default on Linux, so
 * what VS Code shows reads as `x/i` does.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <Zydis/Zydis.h>

#include "dap/internal.h"

static int decode(const uint8_t *buf, size_t len, ZydisDecodedInstruction *insn,
		  ZydisDecodedOperand *ops)
{
	ZydisDecoder decoder;

	if (ZYAN_FAILED(
		    ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    ZYAN_FAILED(ZydisDecoderDecodeFull(&decoder, buf, len, insn, ops)))
		return -EINVAL;
	return insn->length;
}

int dap_disasm_one(const uint8_t *buf, size_t len, uint64_t addr, char *text, size_t size)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction insn;
	ZydisFormatter fmt;
	int n = decode(buf, len, &insn, ops);

	if (n < 0)
		return n;
	/* (lower-case hex, addresses unpadded: as gdb and objdump print them) */
	if (ZYAN_FAILED(ZydisFormatterInit(&fmt, ZYDIS_FORMATTER_STYLE_ATT)) ||
	    ZYAN_FAILED(ZydisFormatterSetProperty(&fmt, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, 0)) ||
	    ZYAN_FAILED(ZydisFormatterSetProperty(&fmt, ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE,
						  ZYDIS_PADDING_DISABLED)) ||
	    ZYAN_FAILED(ZydisFormatterFormatInstruction(
		    &fmt, &insn, ops, insn.operand_count_visible, text, size, addr, NULL)))
		snprintf(text, size, "(bad)");
	return n;
}

int dap_disasm_is_call(const uint8_t *buf, size_t len)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction insn;
	int n = decode(buf, len, &insn, ops);

	return n > 0 && insn.mnemonic == ZYDIS_MNEMONIC_CALL ? n : 0;
}
