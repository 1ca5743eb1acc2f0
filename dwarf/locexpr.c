/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Location expressions and lists (DWARF 5 section 2.5 and 2.6): libdwarf
 * decodes them (dwarf_get_loclist_c reads an expression, a DWARF 4
 * .debug_loc list or a DWARF 5 .debug_loclists list alike; the entry
 * covering the pc is picked by its cooked addresses), this file runs the
 * stack machine. Registers and memory come from the caller's struct
 * dw_reader. Whatever cannot be had says "optimized out" with a reason:
 * no location, a pc no entry covers, DW_OP_entry_value away from the
 * function's entry, a register the reader does not have in this frame,
 * typed-stack and implicit-pointer operations, thread-local storage.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/internal.h"

#define STACK_MAX 64

static void optimized_out(struct dw_value *out, const char *why)
{
	memset(out, 0, sizeof(*out));
	out->kind = DW_VALUE_OPTIMIZED_OUT;
	out->reg = -1;
	out->why = why;
}

/* One piece's location while an expression runs. */
struct piece_loc {
	int kind; /* 0 none, 1 memory (addr), 2 register, 3 value, 4 implicit bytes */
	uint64_t addr;
	int reg;
	uint64_t value;
	const unsigned char *bytes;
	size_t len;
};

static int frame_base(struct loc_ctx *c, uint64_t *fb);

static int read_reg(struct loc_ctx *c, int reg, uint64_t *v)
{
	return c->r->reg ? c->r->reg(c->r->arg, reg, v) : -ENODATA;
}

/* Append SIZE bytes (at bit BITOFF of the piece) of location L to OUT. */
static int add_piece(struct loc_ctx *c, const struct piece_loc *l, uint64_t bits, uint64_t bitoff,
		     size_t *at_bits, struct dw_value *out)
{
	unsigned char buf[DW_VALUE_MAX] = { 0 };
	size_t nbytes = (size_t)((bits + bitoff + 7) / 8);
	int r = 0;

	if (*at_bits + bits > DW_VALUE_MAX * 8 || nbytes > sizeof(buf))
		return -E2BIG;
	switch (l->kind) {
	case 0:
		out->partial = 1;
		break;
	case 1:
		r = c->r->mem ? c->r->mem(c->r->arg, l->addr, buf, nbytes) : -EFAULT;
		break;
	case 2: {
		uint64_t v;
		if (read_reg(c, l->reg, &v) < 0)
			out->partial = 1;
		else
			memcpy(buf, &v, nbytes < 8 ? nbytes : 8);
		break;
	}
	case 3:
		memcpy(buf, &l->value, nbytes < 8 ? nbytes : 8);
		break;
	case 4:
		memcpy(buf, l->bytes, nbytes < l->len ? nbytes : l->len);
		break;
	}
	if (r < 0)
		return r;
	for (uint64_t i = 0; i < bits; i++) {
		uint64_t from = bitoff + i, to = *at_bits + i;
		if (buf[from / 8] >> (from % 8) & 1)
			out->bytes[to / 8] |= (unsigned char)(1u << (to % 8));
	}
	*at_bits += bits;
	return 0;
}

struct op {
	Dwarf_Small atom;
	Dwarf_Unsigned op1, op2, op3, off;
};

static int run(struct loc_ctx *c, const struct op *ops, size_t nops, int as_value,
	       struct dw_value *out)
{
	uint64_t st[STACK_MAX];
	int sp = 0; /* entries */
	struct piece_loc loc = { 0 };
	int have_loc = 0, pieces = 0;
	size_t at_bits = 0;
	const struct dw_reader *r = c->r;

	optimized_out(out, "empty location");
	memset(out->bytes, 0, sizeof(out->bytes));
#define NEED(n)                                                    \
	do {                                                       \
		if (sp < (n)) {                                    \
			optimized_out(out, "malformed expression"); \
			return 0;                                  \
		}                                                  \
	} while (0)
#define PUSH(v)                                                    \
	do {                                                       \
		uint64_t pushed_ = (v);                            \
		if (sp >= STACK_MAX) {                             \
			optimized_out(out, "malformed expression"); \
			return 0;                                  \
		}                                                  \
		st[sp++] = pushed_;                                \
	} while (0)
	for (size_t i = 0; i < nops; i++) {
		const struct op *o = &ops[i];
		uint64_t a, b, v;
		int64_t sa, sb;
		Dwarf_Small at = o->atom;

		if (have_loc && at != DW_OP_piece && at != DW_OP_bit_piece) {
			optimized_out(out, "malformed expression");
			return 0;
		}
		if (at >= DW_OP_lit0 && at <= DW_OP_lit31) {
			PUSH((uint64_t)(at - DW_OP_lit0));
			continue;
		}
		if (at >= DW_OP_reg0 && at <= DW_OP_reg31) {
			loc = (struct piece_loc){ .kind = 2, .reg = at - DW_OP_reg0 };
			have_loc = 1;
			continue;
		}
		if (at >= DW_OP_breg0 && at <= DW_OP_breg31) {
			if (read_reg(c, at - DW_OP_breg0, &v) < 0) {
				optimized_out(out, "register not available in this frame");
				return 0;
			}
			PUSH(v + o->op1);
			continue;
		}
		switch (at) {
		case DW_OP_addr:
		case DW_OP_addrx:
		case DW_OP_GNU_addr_index:
			PUSH(o->op1 + r->bias);
			break;
		case DW_OP_const1u:
		case DW_OP_const2u:
		case DW_OP_const4u:
		case DW_OP_const8u:
		case DW_OP_constu:
		case DW_OP_constx:
		case DW_OP_GNU_const_index:
			PUSH(o->op1);
			break;
		case DW_OP_const1s:
			PUSH((uint64_t)(int64_t)(int8_t)o->op1);
			break;
		case DW_OP_const2s:
			PUSH((uint64_t)(int64_t)(int16_t)o->op1);
			break;
		case DW_OP_const4s:
			PUSH((uint64_t)(int64_t)(int32_t)o->op1);
			break;
		case DW_OP_const8s:
		case DW_OP_consts:
			PUSH(o->op1);
			break;
		case DW_OP_regx:
			loc = (struct piece_loc){ .kind = 2, .reg = (int)o->op1 };
			have_loc = 1;
			break;
		case DW_OP_bregx:
			if (read_reg(c, (int)o->op1, &v) < 0) {
				optimized_out(out, "register not available in this frame");
				return 0;
			}
			PUSH(v + o->op2);
			break;
		case DW_OP_fbreg:
			if (frame_base(c, &v) < 0) {
				optimized_out(out, "no frame base");
				return 0;
			}
			PUSH(v + o->op1);
			break;
		case DW_OP_call_frame_cfa:
			v = r->cfa;
			if (!v && (!c->s || dw_cfa_at(c->s, r->pc, r, &v) < 0)) {
				optimized_out(out, "no CFA at this pc");
				return 0;
			}
			PUSH(v);
			break;
		case DW_OP_dup:
			NEED(1);
			PUSH(st[sp - 1]);
			break;
		case DW_OP_drop:
			NEED(1);
			sp--;
			break;
		case DW_OP_over:
			NEED(2);
			PUSH(st[sp - 2]);
			break;
		case DW_OP_pick:
			NEED((int)o->op1 + 1);
			PUSH(st[sp - 1 - (int)o->op1]);
			break;
		case DW_OP_swap:
			NEED(2);
			a = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = a;
			break;
		case DW_OP_rot:
			NEED(3);
			a = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = st[sp - 3];
			st[sp - 3] = a;
			break;
		case DW_OP_deref:
		case DW_OP_deref_size: {
			size_t n = at == DW_OP_deref ? 8 : (size_t)o->op1;
			int e;
			NEED(1);
			v = 0;
			if (n > 8 || !r->mem)
				return -EINVAL;
			if ((e = r->mem(r->arg, st[sp - 1], &v, n)) < 0)
				return e;
			st[sp - 1] = v;
			break;
		}
		case DW_OP_abs:
			NEED(1);
			sa = (int64_t)st[sp - 1];
			st[sp - 1] = (uint64_t)(sa < 0 ? -sa : sa);
			break;
		case DW_OP_neg:
			NEED(1);
			st[sp - 1] = -st[sp - 1];
			break;
		case DW_OP_not:
			NEED(1);
			st[sp - 1] = ~st[sp - 1];
			break;
		case DW_OP_plus_uconst:
			NEED(1);
			st[sp - 1] += o->op1;
			break;
		case DW_OP_and:
		case DW_OP_div:
		case DW_OP_minus:
		case DW_OP_mod:
		case DW_OP_mul:
		case DW_OP_or:
		case DW_OP_plus:
		case DW_OP_shl:
		case DW_OP_shr:
		case DW_OP_shra:
		case DW_OP_xor:
		case DW_OP_eq:
		case DW_OP_ge:
		case DW_OP_gt:
		case DW_OP_le:
		case DW_OP_lt:
		case DW_OP_ne:
			NEED(2);
			b = st[--sp];
			a = st[sp - 1];
			sa = (int64_t)a;
			sb = (int64_t)b;
			switch (at) {
			case DW_OP_and: v = a & b; break;
			case DW_OP_div:
				if (!b) {
					optimized_out(out, "division by zero");
					return 0;
				}
				v = (uint64_t)(sa / sb);
				break;
			case DW_OP_minus: v = a - b; break;
			case DW_OP_mod:
				if (!b) {
					optimized_out(out, "division by zero");
					return 0;
				}
				v = a % b;
				break;
			case DW_OP_mul: v = a * b; break;
			case DW_OP_or: v = a | b; break;
			case DW_OP_plus: v = a + b; break;
			case DW_OP_shl: v = b >= 64 ? 0 : a << b; break;
			case DW_OP_shr: v = b >= 64 ? 0 : a >> b; break;
			case DW_OP_shra: v = (uint64_t)(sa >> (b >= 64 ? 63 : b)); break;
			case DW_OP_xor: v = a ^ b; break;
			case DW_OP_eq: v = sa == sb; break;
			case DW_OP_ge: v = sa >= sb; break;
			case DW_OP_gt: v = sa > sb; break;
			case DW_OP_le: v = sa <= sb; break;
			case DW_OP_lt: v = sa < sb; break;
			default: v = sa != sb; break;
			}
			st[sp - 1] = v;
			break;
		case DW_OP_skip:
		case DW_OP_bra: {
			if (at == DW_OP_bra) {
				NEED(1);
				if (!st[--sp])
					break;
			}
			/* the target is a byte offset from the end of this op (3 bytes) */
			uint64_t target = o->off + 3 + (uint64_t)(int64_t)(int16_t)o->op1;
			size_t k;
			for (k = 0; k < nops && ops[k].off != target; k++)
				;
			if (k == nops && target != (nops ? ops[nops - 1].off + 1 : 0)) {
				optimized_out(out, "malformed expression");
				return 0;
			}
			i = k - 1; /* the loop's i++ lands on k */
			break;
		}
		case DW_OP_nop:
			break;
		case DW_OP_stack_value:
			NEED(1);
			loc = (struct piece_loc){ .kind = 3, .value = st[sp - 1] };
			have_loc = 1;
			break;
		case DW_OP_implicit_value:
			loc = (struct piece_loc){ .kind = 4,
						  .bytes = (const unsigned char *)(uintptr_t)o->op2,
						  .len = (size_t)o->op1 };
			have_loc = 1;
			break;
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value: {
			/* Only the simplest, a register's value at the entry,
			 * and only at the entry, where it is still the same. */
			const unsigned char *blk = (const unsigned char *)(uintptr_t)o->op2;
			if (r->pc == c->func_low && o->op1 == 1 && blk[0] >= DW_OP_reg0 &&
			    blk[0] <= DW_OP_reg31 && read_reg(c, blk[0] - DW_OP_reg0, &v) == 0) {
				PUSH(v);
				break;
			}
			optimized_out(out, "entry value not recoverable");
			return 0;
		}
		case DW_OP_piece:
		case DW_OP_bit_piece: {
			uint64_t bits = at == DW_OP_piece ? o->op1 * 8 : o->op1;
			uint64_t bitoff = at == DW_OP_piece ? 0 : o->op2;
			if (!have_loc && sp > 0) {
				loc = (struct piece_loc){ .kind = 1, .addr = st[sp - 1] };
				sp = 0;
			} else if (!have_loc)
				loc = (struct piece_loc){ 0 };
			int e = add_piece(c, &loc, bits, bitoff, &at_bits, out);
			if (e == -E2BIG) {
				optimized_out(out, "value too large");
				return 0;
			}
			if (e < 0)
				return e;
			pieces = 1;
			have_loc = 0;
			sp = 0;
			break;
		}
		case DW_OP_GNU_push_tls_address:
		case DW_OP_form_tls_address:
			optimized_out(out, "thread-local storage");
			return 0;
		case DW_OP_implicit_pointer:
		case DW_OP_GNU_implicit_pointer:
			optimized_out(out, "implicit pointer");
			return 0;
		case DW_OP_GNU_parameter_ref:
			optimized_out(out, "parameter reference");
			return 0;
		default:
			optimized_out(out, "unsupported DWARF operation");
			return 0;
		}
	}
#undef NEED
#undef PUSH
	if (pieces) {
		out->kind = DW_VALUE_BYTES;
		out->size = at_bits / 8;
		out->reg = -1;
		out->why = NULL;
		if (out->partial && !out->size)
			optimized_out(out, "optimized out");
		return 0;
	}
	if (!have_loc) {
		if (!sp)
			return 0; /* empty: optimized out */
		loc = (struct piece_loc){ .kind = 1, .addr = st[sp - 1] };
	}
	out->why = NULL;
	out->reg = -1;
	size_t size = c->size && c->size < DW_VALUE_MAX ? (size_t)c->size : 8;
	switch (loc.kind) {
	case 1:
		if (as_value) {
			out->kind = DW_VALUE_BYTES;
			memcpy(out->bytes, &loc.addr, 8);
			out->size = 8;
		} else {
			out->kind = DW_VALUE_MEMORY;
			out->addr = loc.addr;
		}
		break;
	case 2: {
		uint64_t v;
		if (read_reg(c, loc.reg, &v) < 0) {
			optimized_out(out, "register not available in this frame");
			return 0;
		}
		out->kind = DW_VALUE_BYTES;
		out->reg = loc.reg;
		memcpy(out->bytes, &v, 8);
		out->size = size < 8 ? size : 8;
		break;
	}
	case 3:
		out->kind = DW_VALUE_BYTES;
		memcpy(out->bytes, &loc.value, 8);
		out->size = size < 8 ? size : 8;
		break;
	case 4:
		out->kind = DW_VALUE_BYTES;
		out->size = loc.len < DW_VALUE_MAX ? loc.len : DW_VALUE_MAX;
		memcpy(out->bytes, loc.bytes, out->size);
		break;
	}
	return 0;
}

int sym_eval_locdesc(struct loc_ctx *c, Dwarf_Locdesc_c desc, Dwarf_Unsigned nops,
		     int as_value, struct dw_value *out)
{
	struct op ops[256];
	Dwarf_Error err = NULL;

	if (nops > 256) {
		optimized_out(out, "expression too long");
		return 0;
	}
	for (Dwarf_Unsigned i = 0; i < nops; i++) {
		Dwarf_Unsigned raw1, raw2, raw3;
		if (dwarf_get_location_op_value_d(desc, i, &ops[i].atom, &ops[i].op1, &ops[i].op2,
						  &ops[i].op3, &raw1, &raw2, &raw3, &ops[i].off,
						  &err) != DW_DLV_OK) {
			sym_drop_error(NULL, &err);
			optimized_out(out, "malformed expression");
			return 0;
		}
	}
	return run(c, ops, (size_t)nops, as_value, out);
}

int sym_eval_block(struct loc_ctx *c, const void *expr, size_t len, int as_value,
		   struct dw_value *out)
{
	Dwarf_Loc_Head_c head = NULL;
	Dwarf_Unsigned count = 0;
	Dwarf_Error err = NULL;
	Dwarf_Debug dbg = c->s->dbg ? c->s->dbg : c->s->frame_dbg;
	int res;

	if (!dbg ||
	    dwarf_loclist_from_expr_c(dbg, (Dwarf_Ptr)expr, len, 8, 4, 4, &head, &count, &err) !=
		    DW_DLV_OK ||
	    count != 1) {
		sym_drop_error(dbg, &err);
		if (head)
			dwarf_loc_head_c_dealloc(head);
		optimized_out(out, "malformed expression");
		return 0;
	}
	Dwarf_Small lle, src;
	Dwarf_Unsigned rlo, rhi, nops, eoff, doff;
	Dwarf_Bool unavail;
	Dwarf_Addr lo, hi;
	Dwarf_Locdesc_c desc;
	res = dwarf_get_locdesc_entry_d(head, 0, &lle, &rlo, &rhi, &unavail, &lo, &hi, &nops,
					&desc, &src, &eoff, &doff, &err);
	if (res == DW_DLV_OK)
		res = sym_eval_locdesc(c, desc, nops, as_value, out);
	else {
		sym_drop_error(dbg, &err);
		optimized_out(out, "malformed expression");
		res = 0;
	}
	dwarf_loc_head_c_dealloc(head);
	return res;
}

/* Evaluate attribute AT (a location or location list) of the DIE at OFF
 * at the reader's pc. */
static int eval_attr(struct loc_ctx *c, Dwarf_Off off, Dwarf_Half at, int as_value,
		     struct dw_value *out)
{
	Dwarf_Debug dbg = c->s->dbg;
	Dwarf_Error err = NULL;
	Dwarf_Die die = NULL;
	Dwarf_Attribute a = NULL;
	Dwarf_Loc_Head_c head = NULL;
	Dwarf_Unsigned count = 0;
	int res = 0, found = 0;

	optimized_out(out, "no location");
	if (!dbg || dwarf_offdie_b(dbg, off, 1, &die, &err) != DW_DLV_OK) {
		sym_drop_error(dbg, &err);
		return -ENOENT;
	}
	if (dwarf_attr(die, at, &a, &err) != DW_DLV_OK) {
		sym_drop_error(dbg, &err);
		/* A constant the compiler kept instead of a location. */
		uint64_t v;
		Dwarf_Unsigned len = 0;
		Dwarf_Block *blk = NULL;
		if (at == DW_AT_location && dwarf_attr(die, DW_AT_const_value, &a, &err) == DW_DLV_OK) {
			Dwarf_Signed sv;
			if (dwarf_formsdata(a, &sv, &err) == DW_DLV_OK ||
			    (sym_drop_error(dbg, &err), dwarf_formudata(a, (Dwarf_Unsigned *)&sv,
									&err)) == DW_DLV_OK) {
				v = (uint64_t)sv;
				memset(out, 0, sizeof(*out));
				out->kind = DW_VALUE_BYTES;
				out->reg = -1;
				memcpy(out->bytes, &v, 8);
				out->size = c->size && c->size < 8 ? (size_t)c->size : 8;
			} else if (sym_drop_error(dbg, &err),
				   dwarf_formblock(a, &blk, &err) == DW_DLV_OK) {
				memset(out, 0, sizeof(*out));
				out->kind = DW_VALUE_BYTES;
				out->reg = -1;
				len = blk->bl_len < DW_VALUE_MAX ? blk->bl_len : DW_VALUE_MAX;
				memcpy(out->bytes, blk->bl_data, (size_t)len);
				out->size = (size_t)len;
				dwarf_dealloc(dbg, blk, DW_DLA_BLOCK);
			}
			sym_drop_error(dbg, &err);
			dwarf_dealloc_attribute(a);
		}
		sym_drop_error(dbg, &err);
		dwarf_dealloc_die(die);
		return 0;
	}
	if (dwarf_get_loclist_c(a, &head, &count, &err) != DW_DLV_OK) {
		sym_drop_error(dbg, &err);
		optimized_out(out, "unreadable location");
		goto done;
	}
	for (Dwarf_Unsigned i = 0; i < count; i++) {
		Dwarf_Small lle, src;
		Dwarf_Unsigned rlo, rhi, nops, eoff, doff;
		Dwarf_Bool unavail = 0;
		Dwarf_Addr lo, hi;
		Dwarf_Locdesc_c desc;
		if (dwarf_get_locdesc_entry_d(head, i, &lle, &rlo, &rhi, &unavail, &lo, &hi, &nops,
					      &desc, &src, &eoff, &doff, &err) != DW_DLV_OK) {
			sym_drop_error(dbg, &err);
			break;
		}
		if (src != 0 && (unavail || !(c->r->pc >= lo && c->r->pc < hi)))
			continue;
		if (src != 0 && (lle == DW_LLE_end_of_list || lle == DW_LLE_base_address ||
				 lle == DW_LLE_base_addressx))
			continue;
		found = 1;
		res = sym_eval_locdesc(c, desc, nops, as_value, out);
		break;
	}
	if (!found)
		optimized_out(out, count ? "not available at this pc" : "empty location");
	dwarf_loc_head_c_dealloc(head);
done:
	dwarf_dealloc_attribute(a);
	dwarf_dealloc_die(die);
	return res;
}

static int frame_base(struct loc_ctx *c, uint64_t *fb)
{
	struct dw_value v;
	int r;

	if (c->have_frame_base) {
		*fb = c->frame_base;
		return 0;
	}
	r = eval_attr(c, c->frame_die, DW_AT_frame_base, 1, &v);
	if (r < 0)
		return r;
	if (v.kind == DW_VALUE_MEMORY)
		c->frame_base = v.addr;
	else if (v.kind == DW_VALUE_BYTES && v.size >= 8)
		memcpy(&c->frame_base, v.bytes, 8);
	else
		return -ENODATA;
	c->have_frame_base = 1;
	*fb = c->frame_base;
	return 0;
}

int dw_var_read(struct dw_syms *syms, const struct dw_var *var, const struct dw_reader *r,
		uint64_t size, struct dw_value *out)
{
	struct loc_ctx c = { .s = syms,
			     .r = r,
			     .frame_die = var->frame_die,
			     .func_low = var->func_low,
			     .size = size };

	return eval_attr(&c, var->die, DW_AT_location, 0, out);
}

int dw_value_fetch(const struct dw_value *val, const struct dw_reader *r, void *buf,
		   size_t size)
{
	switch (val->kind) {
	case DW_VALUE_MEMORY:
		return r->mem ? r->mem(r->arg, val->addr, buf, size) : -EFAULT;
	case DW_VALUE_BYTES:
		if (size > val->size && size > 8)
			return -ENODATA;
		memset(buf, 0, size);
		memcpy(buf, val->bytes, size < val->size ? size : val->size);
		return 0;
	default:
		return -ENODATA;
	}
}
