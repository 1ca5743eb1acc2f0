/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counted sites, emitted (DESIGN.md "Progress without a PMU"): the patched
 * copy of an executable segment and the trampolines its plan (patch.c)
 * asks for. Instructions taken along into a trampoline are re-encoded for
 * its place with Zydis's encoder (rip-relative operands and branches keep
 * their targets; a call pushes the original return address).
 *
 * A trampoline, at run time address T:
 *
 *	trap:	pop %rcx; lea 128(%rsp),%rsp; int3
 *	T:	lea -128(%rsp),%rsp	(over the red zone)
 *		push %rcx
 *		mov COUNTER,%rcx
 *		jrcxz trap		(no budget left: the tracer decides)
 *		lea -1(%rcx),%rcx
 *		mov %rcx,COUNTER
 *		pop %rcx
 *		lea 128(%rsp),%rsp
 *		<the instructions taken, re-encoded for T's place>
 *		jmp <the first byte after them>
 *
 * lea, push, pop, mov and jrcxz leave the flags alone, and nothing is
 * written below the stack pointer, so a signal handler that runs in the
 * middle clobbers nothing. At the int3 the registers are as they were at
 * the range's first instruction: the tracer puts rip back there, so a
 * thread is always seen at an original address between ticks.
 *
 * Where the flags are dead at the range's start (flags_dead: its
 * instructions, and those after it, write every status flag before any
 * reads one, as in a loop closed by `cmp; jne` or `sub $1,%rax; jne`, or
 * reach a call first), the count is two instructions:
 *
 *	trap:	movq $0,COUNTER; int3
 *	T:	subq $1,COUNTER		(one read-modify-write)
 *		js trap			(there was no budget left)
 *		<the instructions taken> ; jmp <after them>
 *
 * The trap leaves the counter at 0, as the long form does, and the
 * registers as at the range's first instruction but for the flags, which
 * the range sets again before it reads them. In a tight loop the short
 * form costs a few percent where the long one costs 15 to 60 (bench/run.sh
 * cpuloop).
 */
#include "config.h"

#include <Zydis/Zydis.h>
#include <errno.h>
#include <string.h>

#include "dwarf.h"

struct emitter {
	uint8_t *buf;
	size_t len, cap;
	uint64_t base; /* run-time address of buf[0] */
	int failed;
};

static void put(struct emitter *e, const void *p, size_t n)
{
	if (e->len + n > e->cap) {
		e->failed = 1;
		return;
	}
	memcpy(e->buf + e->len, p, n);
	e->len += n;
}

static void put32(struct emitter *e, uint32_t v)
{
	put(e, &v, 4);
}

static uint64_t here(const struct emitter *e)
{
	return e->base + e->len;
}

static int fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static void put_jmp(struct emitter *e, uint64_t to)
{
	int64_t rel = (int64_t)(to - (here(e) + 5));

	if (!fits32(rel)) {
		e->failed = 1;
		return;
	}
	put(e, "\xe9", 1);
	put32(e, (uint32_t)rel);
}

/* Whether OUT (N bytes), decoded at AT, reaches what REQ asked for: every
 * relative immediate and rip-relative operand at the absolute address
 * REQ holds. Zydis 4.0's encoder counts a branch's BND prefix out of the
 * length its rel32 is taken from (a `bnd jcc` went one byte past its
 * target): what it gets wrong is not put. */
static int reaches(const ZydisEncoderRequest *req, const uint8_t *out, size_t n, uint64_t at)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	if (ZYAN_FAILED(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    ZYAN_FAILED(ZydisDecoderDecodeFull(&dec, out, n, &zi, ops)) || zi.length != n ||
	    zi.operand_count_visible != req->operand_count)
		return 0;
	for (unsigned k = 0; k < zi.operand_count_visible; k++) {
		ZyanU64 abs;

		if (ops[k].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[k].imm.is_relative) {
			if (ZYAN_FAILED(ZydisCalcAbsoluteAddress(&zi, &ops[k], at, &abs)) ||
			    abs != req->operands[k].imm.u)
				return 0;
		} else if (ops[k].type == ZYDIS_OPERAND_TYPE_MEMORY &&
			   ops[k].mem.base == ZYDIS_REGISTER_RIP) {
			if (ZYAN_FAILED(ZydisCalcAbsoluteAddress(&zi, &ops[k], at, &abs)) ||
			    abs != (ZyanU64)req->operands[k].mem.displacement)
				return 0;
		}
	}
	return 1;
}

/* Encode REQ, whose relative operands hold absolute addresses, here. */
static void put_request(struct emitter *e, ZydisEncoderRequest *req)
{
	uint8_t out[ZYDIS_MAX_INSTRUCTION_LENGTH];
	ZyanUSize n = sizeof(out);
	ZydisEncoderRequest want;

	/* (BND: an MPX hint, which no CPU has acted on since 2019) */
	req->prefixes &= ~(ZyanU64)ZYDIS_ATTRIB_HAS_BND;
	want = *req; /* (the encoder makes REQ's addresses relative) */
	if (ZYAN_FAILED(ZydisEncoderEncodeInstructionAbsolute(req, out, &n, here(e))) ||
	    !reaches(&want, out, n, here(e))) {
		e->failed = 1;
		return;
	}
	put(e, out, n);
}

/* Turn the decoded instruction's relative parts into absolute addresses,
 * as ZydisEncoderEncodeInstructionAbsolute wants them. RSP_ADJ is added to
 * rsp-based displacements (the call sequence moved rsp). */
static int to_request(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops,
		      uint64_t addr, int64_t rsp_adj, ZydisEncoderRequest *req)
{
	if (ZYAN_FAILED(ZydisEncoderDecodedInstructionToEncoderRequest(
		    zi, ops, zi->operand_count_visible, req)))
		return -EINVAL;
	for (unsigned k = 0; k < zi->operand_count_visible; k++) {
		ZyanU64 abs;

		if (ops[k].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[k].imm.is_relative) {
			if (ZYAN_FAILED(ZydisCalcAbsoluteAddress(zi, &ops[k], addr, &abs)))
				return -EINVAL;
			req->operands[k].imm.u = abs;
			req->branch_width = ZYDIS_BRANCH_WIDTH_32;
			req->branch_type = ZYDIS_BRANCH_TYPE_NEAR;
		} else if (ops[k].type == ZYDIS_OPERAND_TYPE_MEMORY &&
			   ops[k].mem.base == ZYDIS_REGISTER_RIP) {
			if (ZYAN_FAILED(ZydisCalcAbsoluteAddress(zi, &ops[k], addr, &abs)))
				return -EINVAL;
			req->operands[k].mem.displacement = (ZyanI64)abs;
		} else if (ops[k].type == ZYDIS_OPERAND_TYPE_MEMORY &&
			   ops[k].mem.base == ZYDIS_REGISTER_RSP) {
			req->operands[k].mem.displacement += rsp_adj;
		}
	}
	return 0;
}

/* Whether an operand of ZI is eip-relative (an address-size override on a
 * rip-relative one: the address wraps at 4 GiB), which no re-encoding
 * here reaches and no copy here reaches either: such an instruction is
 * not moved. */
static int eip_relative(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops)
{
	for (unsigned k = 0; k < zi->operand_count_visible; k++) {
		if (ops[k].type == ZYDIS_OPERAND_TYPE_MEMORY && ops[k].mem.base == ZYDIS_REGISTER_EIP)
			return 1;
	}
	return 0;
}

/* ORIG (LEN bytes) was the instruction at ADDR: put its equivalent here. */
static void relocate(struct emitter *e, ZydisDecoder *dec, const uint8_t *orig, size_t len,
		     uint64_t addr)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisEncoderRequest req;

	if (ZYAN_FAILED(ZydisDecoderDecodeFull(dec, orig, len, &zi, ops)) || eip_relative(&zi, ops)) {
		e->failed = 1;
		return;
	}
	if (zi.meta.category == ZYDIS_CATEGORY_CALL) {
		/* The return address must be the original one: push it by hand
		 * (no flags touched), then jump. */
		uint64_t ret = addr + zi.length;

		put(e, "\x48\x8d\x64\x24\xf8", 5); /* lea -8(%rsp),%rsp */
		put(e, "\xc7\x04\x24", 3);	   /* movl $lo,(%rsp) */
		put32(e, (uint32_t)ret);
		put(e, "\xc7\x44\x24\x04", 4); /* movl $hi,4(%rsp) */
		put32(e, (uint32_t)(ret >> 32));
		if (to_request(&zi, ops, addr, 8, &req)) {
			e->failed = 1;
			return;
		}
		req.mnemonic = ZYDIS_MNEMONIC_JMP;
		put_request(e, &req);
		return;
	}
	if (!(zi.attributes & ZYDIS_ATTRIB_IS_RELATIVE)) {
		put(e, orig, zi.length);
		return;
	}
	if (to_request(&zi, ops, addr, 0, &req)) {
		e->failed = 1;
		return;
	}
	put_request(e, &req);
}

static void put_counter_op(struct emitter *e, const char *op, uint64_t counter)
{
	put(e, op, 4); /* 48 8b 0c 25 / 48 89 0c 25: mov abs32 <-> %rcx */
	put32(e, (uint32_t)counter);
}

#define STATUS_FLAGS                                                                 \
	(ZYDIS_CPUFLAG_CF | ZYDIS_CPUFLAG_PF | ZYDIS_CPUFLAG_AF | ZYDIS_CPUFLAG_ZF | \
	 ZYDIS_CPUFLAG_SF | ZYDIS_CPUFLAG_OF)

/* Instructions scanned at most for the flags' fate (flags_dead). */
#define FLAGS_SCAN 32

/*
 * Whether the status flags are dead at CODE[OFF]: on the way that runs
 * from there (straight on, as the original code runs, within the LEN
 * bytes of CODE), every status flag is written before any is read. Only
 * instructions that always write all six count as writers (a shift by
 * %cl writes none when %cl is 0; inc and dec leave CF). A call ends the
 * way with the flags dead: the x86-64 psABI preserves none of them across
 * a call and gives a function none on entry, so no caller and no callee
 * reads flags set before a call (ret likewise). Any other branch, an
 * instruction that does not decode or the end of the scan: alive.
 */
static int flags_dead(ZydisDecoder *dec, const uint8_t *code, size_t len, size_t off)
{
	for (int n = 0; n < FLAGS_SCAN && off < len; n++) {
		ZydisDecodedInstruction zi;

		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(dec, NULL, code + off, len - off,
							      &zi)) ||
		    !zi.cpu_flags || (zi.cpu_flags->tested & STATUS_FLAGS))
			return 0;
		switch (zi.meta.category) {
		case ZYDIS_CATEGORY_CALL:
		case ZYDIS_CATEGORY_RET:
			return 1;
		case ZYDIS_CATEGORY_COND_BR:
		case ZYDIS_CATEGORY_UNCOND_BR:
		case ZYDIS_CATEGORY_SYSCALL:
		case ZYDIS_CATEGORY_INTERRUPT:
		case ZYDIS_CATEGORY_SYSTEM:
			return 0;
		default:
			break;
		}
		switch (zi.mnemonic) {
		case ZYDIS_MNEMONIC_CMP:
		case ZYDIS_MNEMONIC_TEST:
		case ZYDIS_MNEMONIC_ADD:
		case ZYDIS_MNEMONIC_SUB:
		case ZYDIS_MNEMONIC_AND:
		case ZYDIS_MNEMONIC_OR:
		case ZYDIS_MNEMONIC_XOR:
			return 1;
		default:
			break;
		}
		off += zi.length;
	}
	return 0;
}

/* The long form's trap and count (see the top of this file). */
static void put_long_count(struct emitter *e, uint64_t counter, size_t mark)
{
	/* trap: pop %rcx; lea 128(%rsp),%rsp; int3 */
	put(e, "\x59\x48\x8d\xa4\x24\x80\x00\x00\x00\xcc", 10);
	put(e, "\x48\x8d\x64\x24\x80", 5); /* lea -128(%rsp),%rsp */
	put(e, "\x51", 1);		   /* push %rcx */
	put_counter_op(e, "\x48\x8b\x0c\x25", counter);
	put(e, "\xe3", 1); /* jrcxz trap */
	put(e, (uint8_t[]){ (uint8_t)(int8_t)(mark - (e->len + 1)) }, 1);
	put(e, "\x48\x8d\x49\xff", 4); /* lea -1(%rcx),%rcx */
	put_counter_op(e, "\x48\x89\x0c\x25", counter);
	put(e, "\x59", 1);			       /* pop %rcx */
	put(e, "\x48\x8d\xa4\x24\x80\x00\x00\x00", 8); /* lea 128(%rsp),%rsp */
}

/* The short form's trap and count (see the top of this file). */
static void put_short_count(struct emitter *e, uint64_t counter, size_t mark)
{
	put(e, "\x48\xc7\x04\x25", 4); /* movq $0,COUNTER */
	put32(e, (uint32_t)counter);
	put32(e, 0);
	put(e, "\xcc", 1);	       /* int3 */
	put(e, "\x48\x83\x2c\x25", 4); /* subq $1,COUNTER */
	put32(e, (uint32_t)counter);
	put(e, "\x01\x78", 2); /* js trap */
	put(e, (uint8_t[]){ (uint8_t)(int8_t)(mark - (e->len + 1)) }, 1);
}

/* Offsets in the long form from its first byte (put_long_count). */
enum {
	LONG_POP = 0,	/* trap: pop %rcx */
	LONG_LEA_UP = 1, /* trap: lea 128(%rsp),%rsp */
	LONG_TRAP = 9,
	LONG_ENTRY = 10,
	LONG_PUSH = 15,
	LONG_LOAD = 16,
	LONG_JRCXZ = 24,
	LONG_DEC = 26,
	LONG_STORE = 30,
	LONG_POP2 = 38, /* the count is written */
	LONG_LEA2 = 39,
};
/* And in the short form (put_short_count). */
enum {
	SHORT_ZERO = 0, /* trap: movq $0,COUNTER */
	SHORT_TRAP = 12,
	SHORT_ENTRY = 13,
	SHORT_JS = 22, /* the count is written (-1: there was none) */
};

int dw_patch_settle(const struct dw_patch_site *site, uint64_t pc, uint64_t eflags,
		    struct dw_patch_undo *u)
{
	uint64_t off;

	if ((site->kind != DW_PATCH_JUMP && site->kind != DW_PATCH_PAD) || !site->trap ||
	    pc < site->tramp_start || pc >= site->tramp_end)
		return 0;
	memset(u, 0, sizeof(*u));
	off = pc - site->tramp_start;
	if (site->trap - site->tramp_start == SHORT_TRAP) {
		switch (off) {
		case SHORT_JS:
			/* With a count left (the sign clear), the count is done
			 * and the thread may go on with a new budget; only one
			 * that ran out would overwrite it with its 0. */
			if (!(eflags & 0x80))
				return 0;
			/* fall through */
		case SHORT_ZERO: /* -1 there, 0 after */
			u->counter_add = 1;
			break;
		case SHORT_TRAP:
		case SHORT_ENTRY:
			break;
		default:
			return 0;
		}
		return 1;
	}
	if (site->trap - site->tramp_start != LONG_TRAP)
		return 0;
	switch (off) {
	case LONG_POP2:
		u->counter_add = 1;
		/* fall through */
	case LONG_POP:
	case LONG_LOAD:
	case LONG_JRCXZ:
	case LONG_DEC:
	case LONG_STORE:
		u->rcx_from_stack = 1;
		u->rsp_add = 8 + 128;
		break;
	case LONG_LEA2:
		u->counter_add = 1;
		/* fall through */
	case LONG_LEA_UP:
	case LONG_PUSH:
		u->rsp_add = 128;
		break;
	case LONG_TRAP:
	case LONG_ENTRY:
		break;
	default:
		return 0;
	}
	return 1;
}

int dw_patch_emit(const struct dw_patch_plan *plan, int64_t bias, const uint8_t *code,
		  uint64_t code_addr, size_t code_len, uint8_t *patched, uint8_t *tramp,
		  uint64_t tramp_addr, size_t tramp_cap, uint64_t counter,
		  struct dw_patch_site *sites, size_t *nsites)
{
	struct emitter e = { tramp, 0, tramp_cap, tramp_addr, 0 };
	ZydisDecoder dec;
	size_t n = 0;

	if (counter >= 0x80000000ULL ||
	    ZYAN_FAILED(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
		return -EINVAL;
	memcpy(patched, code, code_len);
	for (size_t i = 0; i < plan->n; i++) {
		const struct dw_patch_range *r = &plan->ranges[i];
		uint64_t at = r->addr + (uint64_t)bias;
		size_t off = at - code_addr, mark = e.len;
		uint64_t trap, entry;
		struct dw_patch_site *site = &sites[n];

		if (at < code_addr || at + r->len > code_addr + code_len)
			continue;
		site->addr = at;
		site->len = r->len;
		site->kind = r->kind;
		site->trap = 0;
		site->tramp = 0;
		site->slot = 0;
		if (r->kind == DW_PATCH_INT3) {
			patched[off] = 0xcc;
			n++;
			continue;
		}
		/* (a padded branch is taken again from the site after a trap:
		 * it reads the flags there, so they are never dead for it) */
		if (r->kind == DW_PATCH_JUMP && flags_dead(&dec, code, code_len, off)) {
			put_short_count(&e, counter, mark);
			trap = tramp_addr + mark + 12;
		} else {
			put_long_count(&e, counter, mark);
			trap = tramp_addr + mark + 9;
		}
		entry = trap + 1;
		if (r->kind == DW_PATCH_PAD) {
			/* Only the taken path counts: the branch goes to the
			 * slot, the slot to here, and here to where it went.
			 * An indirect call or jump becomes a jmp rel8 to the
			 * slot, and is made here (a call pushes the original
			 * return address, past its last byte). */
			uint64_t slot = r->slot + (uint64_t)bias;
			int64_t rel8 = (int64_t)(slot - (at + 2));
			int32_t rel;

			if (r->target)
				put_jmp(&e, r->target + (uint64_t)bias);
			else
				relocate(&e, &dec, code + off, r->len, at);
			if (e.failed || slot < code_addr || slot + 5 > code_addr + code_len ||
			    rel8 < -128 || rel8 > 127 || !fits32((int64_t)(entry - (slot + 5)))) {
				e.failed = 0;
				e.len = mark;
				site->kind = DW_PATCH_INT3;
				site->len = 1;
				patched[off] = 0xcc;
				n++;
				continue;
			}
			if (!r->target) {
				patched[off] = 0xeb;
				memset(patched + off + 2, 0xcc, r->len - 2u);
			}
			patched[off + 1] = (uint8_t)(int8_t)rel8;
			patched[slot - code_addr] = 0xe9;
			rel = (int32_t)(int64_t)(entry - (slot + 5));
			memcpy(patched + (slot - code_addr) + 1, &rel, 4);
			site->slot = slot;
			site->trap = trap;
			site->tramp = entry;
			site->tramp_end = here(&e);
			site->tramp_start = tramp_addr + mark;
			n++;
			continue;
		}
		for (size_t k = 0; k < r->len && !e.failed;) {
			ZydisDecodedInstruction zi;

			if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&dec, NULL, code + off + k,
								      r->len - k, &zi))) {
				e.failed = 1;
				break;
			}
			relocate(&e, &dec, code + off + k, zi.length, at + k);
			k += zi.length;
		}
		put_jmp(&e, at + r->len);
		if (e.failed || e.len - mark > DW_PATCH_TRAMP_MAX ||
		    !fits32((int64_t)(entry - (at + 5)))) {
			/* This one cannot be moved here: an int3 counts it, at
			 * the range's first byte, as the trampoline would have:
			 * nothing enters after it, and a branch counted at its
			 * target may rely on this range (a forward jcc before
			 * the site may leave it before the site), as may a call
			 * counted before it (the call lies past the range). */
			e.failed = 0;
			e.len = mark;
			site->kind = DW_PATCH_INT3;
			site->len = 1;
			site->addr = at;
			patched[off] = 0xcc;
			n++;
			continue;
		}
		patched[off] = 0xe9;
		{
			int32_t rel = (int32_t)(int64_t)(entry - (at + 5));

			memcpy(patched + off + 1, &rel, 4);
		}
		memset(patched + off + 5, 0xcc, r->len - 5);
		site->trap = trap;
		site->tramp = entry;
		site->tramp_end = here(&e);
		site->tramp_start = tramp_addr + mark;
		n++;
	}
	*nsites = n;
	return (int)e.len;
}
