/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Types, decoded from their DIE on first use and kept in a table keyed by
 * DIE offset: a debugger expands a struct one level at a time and asks
 * for the same types again at every stop. Restrict and atomic qualifiers
 * are looked through (they change no value). Bitfields come as a bit
 * offset from the start of the object, from DW_AT_data_bit_offset
 * (DWARF 4+) or from DWARF 2/3's DW_AT_bit_offset, which counts from the
 * most significant bit of a DW_AT_byte_size storage unit.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "dwarf/internal.h"

static const struct dw_type void_type = { .kind = DW_TYPE_VOID, .name = "void" };

static struct type_slot *slot_of(struct dw_syms *s, Dwarf_Off die)
{
	if (!s->types_cap)
		return NULL;
	for (size_t h = (die * 0x9e3779b97f4a7c15ull) >> 40 & (s->types_cap - 1);;
	     h = (h + 1) & (s->types_cap - 1))
		if (!s->types[h].type || s->types[h].die == die)
			return &s->types[h];
}

static void cache_put(struct dw_syms *s, Dwarf_Off die, struct dw_type *t)
{
	if ((s->ntypes + 1) * 2 > s->types_cap) {
		struct type_slot *old = s->types;
		size_t oldcap = s->types_cap;
		s->types_cap = oldcap ? oldcap * 2 : 256;
		s->types = xcalloc(s->types_cap, sizeof(*s->types));
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].type)
				*slot_of(s, old[i].die) = old[i];
		free(old);
	}
	struct type_slot *sl = slot_of(s, die);
	sl->die = die;
	sl->type = t;
	s->ntypes++;
}

void sym_types_free(struct dw_syms *s)
{
	for (size_t i = 0; i < s->types_cap; i++) {
		struct dw_type *t = s->types[i].type;
		if (!t)
			continue;
		free((void *)t->members);
		free((void *)t->enumerators);
		free((void *)t->dims);
		free(t);
	}
	free(s->types);
}

static enum dw_encoding encoding_of(uint64_t ate)
{
	switch (ate) {
	case DW_ATE_signed:
		return DW_ENC_SIGNED;
	case DW_ATE_unsigned:
	case DW_ATE_address:
		return DW_ENC_UNSIGNED;
	case DW_ATE_float:
		return DW_ENC_FLOAT;
	case DW_ATE_boolean:
		return DW_ENC_BOOL;
	case DW_ATE_signed_char:
		return DW_ENC_SIGNED_CHAR;
	case DW_ATE_unsigned_char:
	case DW_ATE_UTF:
		return DW_ENC_UNSIGNED_CHAR;
	default:
		return DW_ENC_NONE;
	}
}

static int get_type(struct dw_syms *s, uint64_t ref, const struct dw_type **out, int depth);

/* A member's byte offset: a constant, or DWARF 2's DW_OP_plus_uconst block. */
static uint64_t member_offset(Dwarf_Debug dbg, Dwarf_Die die)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Unsigned v = 0, len = 0;
	Dwarf_Ptr block = NULL;
	uint64_t off = 0;

	if (dwarf_attr(die, DW_AT_data_member_location, &a, &err) != DW_DLV_OK) {
		sym_drop_error(dbg, &err);
		return 0;
	}
	if (dwarf_formudata(a, &v, &err) == DW_DLV_OK)
		off = v;
	else {
		sym_drop_error(dbg, &err);
		if (dwarf_formexprloc(a, &len, &block, &err) == DW_DLV_OK && len >= 2 &&
		    ((unsigned char *)block)[0] == DW_OP_plus_uconst) {
			const unsigned char *p = (const unsigned char *)block + 1;
			unsigned shift = 0;
			for (Dwarf_Unsigned i = 1; i < len && shift < 64; i++, p++, shift += 7) {
				off |= (uint64_t)(*p & 0x7f) << shift;
				if (!(*p & 0x80))
					break;
			}
		}
	}
	sym_drop_error(dbg, &err);
	dwarf_dealloc_attribute(a);
	return off;
}

/* Decode the children of a struct, union, enum, array or function type. */
static void read_children(struct dw_syms *s, Dwarf_Die die, struct dw_type *t)
{
	Dwarf_Debug dbg = s->dbg;
	Dwarf_Error err = NULL;
	Dwarf_Die child = NULL;
	struct dw_member *mem = NULL;
	struct dw_enumerator *en = NULL;
	struct dw_dim *dims = NULL;
	size_t nm = 0, ne = 0, nd = 0;

	if (dwarf_child(die, &child, &err) != DW_DLV_OK)
		child = NULL;
	sym_drop_error(dbg, &err);
	while (child) {
		Dwarf_Half tag = 0;
		Dwarf_Die next = NULL;
		Dwarf_Off ref;
		uint64_t v;
		int64_t sv;

		dwarf_tag(child, &tag, &err);
		sym_drop_error(dbg, &err);
		if ((tag == DW_TAG_member && !sym_die_has(child, DW_AT_declaration)) ||
		    (tag == DW_TAG_formal_parameter && t->kind == DW_TYPE_FUNCTION)) {
			struct dw_member m = { 0 };
			m.name = sym_die_name(dbg, child);
			if (sym_die_ref(dbg, child, DW_AT_type, 0, &ref) == DW_DLV_OK)
				m.type = ref;
			m.offset = member_offset(dbg, child);
			if (sym_die_udata(dbg, child, DW_AT_bit_size, 0, &v) == DW_DLV_OK) {
				m.bit_size = (unsigned)v;
				if (sym_die_udata(dbg, child, DW_AT_data_bit_offset, 0, &v) ==
				    DW_DLV_OK)
					m.bit_offset = v;
				else {
					uint64_t unit = 0, bo = 0;
					if (sym_die_udata(dbg, child, DW_AT_byte_size, 0, &unit) !=
					    DW_DLV_OK) {
						const struct dw_type *mt;
						unit = get_type(s, m.type, &mt, 1) == 0 ? mt->size : 4;
					}
					sym_die_udata(dbg, child, DW_AT_bit_offset, 0, &bo);
					m.bit_offset = m.offset * 8 + unit * 8 - bo - m.bit_size;
				}
				m.offset = m.bit_offset / 8;
			}
			mem = xrealloc(mem, (nm + 1) * sizeof(*mem));
			mem[nm++] = m;
		} else if (tag == DW_TAG_unspecified_parameters) {
			t->varargs = 1;
		} else if (tag == DW_TAG_enumerator) {
			struct dw_enumerator e = { sym_die_name(dbg, child), 0 };
			if (t->encoding == DW_ENC_UNSIGNED &&
			    sym_die_udata(dbg, child, DW_AT_const_value, 0, &v) == DW_DLV_OK)
				e.value = (int64_t)v;
			else if (sym_die_sdata(dbg, child, DW_AT_const_value, &sv) == DW_DLV_OK)
				e.value = sv;
			else if (sym_die_udata(dbg, child, DW_AT_const_value, 0, &v) == DW_DLV_OK)
				e.value = (int64_t)v;
			en = xrealloc(en, (ne + 1) * sizeof(*en));
			en[ne++] = e;
		} else if (tag == DW_TAG_subrange_type) {
			struct dw_dim d = { 0 };
			if (sym_die_sdata(dbg, child, DW_AT_lower_bound, &sv) == DW_DLV_OK)
				d.lower = sv;
			if (sym_die_udata(dbg, child, DW_AT_count, 0, &v) == DW_DLV_OK)
				d.count = v;
			else if (sym_die_sdata(dbg, child, DW_AT_upper_bound, &sv) == DW_DLV_OK &&
				 sv >= d.lower)
				d.count = (uint64_t)(sv - d.lower + 1);
			else
				d.unknown = 1; /* int a[], or a VLA's bound in an expression */
			dims = xrealloc(dims, (nd + 1) * sizeof(*dims));
			dims[nd++] = d;
		}
		if (dwarf_siblingof_b(dbg, child, 1, &next, &err) != DW_DLV_OK)
			next = NULL;
		sym_drop_error(dbg, &err);
		dwarf_dealloc_die(child);
		child = next;
	}
	t->members = mem;
	t->nmembers = nm;
	t->enumerators = en;
	t->nenumerators = ne;
	t->dims = dims;
	t->ndims = nd;
}

static int get_type(struct dw_syms *s, uint64_t ref, const struct dw_type **out, int depth)
{
	Dwarf_Debug dbg = s->dbg;
	Dwarf_Error err = NULL;
	Dwarf_Die die = NULL;
	Dwarf_Half tag = 0;
	Dwarf_Off target = 0;
	struct type_slot *sl;
	struct dw_type *t;
	uint64_t v;

	*out = &void_type;
	if (!ref)
		return 0;
	if (!dbg || depth > 32)
		return -ENOENT;
	if ((sl = slot_of(s, ref)) && sl->type) {
		*out = sl->type;
		return 0;
	}
	if (dwarf_offdie_b(dbg, ref, 1, &die, &err) != DW_DLV_OK) {
		sym_drop_error(dbg, &err);
		return -ENOENT;
	}
	dwarf_tag(die, &tag, &err);
	sym_drop_error(dbg, &err);
	if (sym_die_ref(dbg, die, DW_AT_type, 0, &target) != DW_DLV_OK)
		target = 0;
	if (tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type) {
		dwarf_dealloc_die(die);
		return get_type(s, target, out, depth + 1);
	}
	t = xcalloc(1, sizeof(*t));
	t->die = ref;
	t->name = sym_die_name(dbg, die);
	t->target = target;
	if (sym_die_udata(dbg, die, DW_AT_byte_size, 0, &v) == DW_DLV_OK)
		t->size = v;
	switch (tag) {
	case DW_TAG_base_type:
		t->kind = DW_TYPE_BASE;
		if (sym_die_udata(dbg, die, DW_AT_encoding, 0, &v) == DW_DLV_OK)
			t->encoding = encoding_of(v);
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		t->kind = DW_TYPE_POINTER;
		if (!t->size)
			t->size = 8;
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
		t->kind = DW_TYPE_STRUCT;
		read_children(s, die, t);
		break;
	case DW_TAG_union_type:
		t->kind = DW_TYPE_UNION;
		read_children(s, die, t);
		break;
	case DW_TAG_enumeration_type: {
		const struct dw_type *u;
		t->kind = DW_TYPE_ENUM;
		t->encoding = DW_ENC_UNSIGNED; /* C: no negative enumerator */
		if (target && get_type(s, target, &u, depth + 1) == 0 && u->encoding)
			t->encoding = u->encoding;
		if (!target)
			t->encoding = DW_ENC_SIGNED;
		read_children(s, die, t);
		if (!target) {
			t->encoding = DW_ENC_UNSIGNED;
			for (size_t i = 0; i < t->nenumerators; i++)
				if (t->enumerators[i].value < 0)
					t->encoding = DW_ENC_SIGNED;
		}
		break;
	}
	case DW_TAG_array_type: {
		const struct dw_type *el;
		t->kind = DW_TYPE_ARRAY;
		read_children(s, die, t);
		if (!t->size && dw_type_strip(s, target, &el) == 0) {
			uint64_t n = 1;
			for (size_t i = 0; i < t->ndims; i++)
				n *= t->dims[i].unknown ? 0 : t->dims[i].count;
			t->size = n * el->size;
		}
		break;
	}
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type: {
		const struct dw_type *a;
		t->kind = tag == DW_TAG_typedef	   ? DW_TYPE_TYPEDEF
			  : tag == DW_TAG_const_type ? DW_TYPE_CONST
						     : DW_TYPE_VOLATILE;
		if (get_type(s, target, &a, depth + 1) == 0) {
			t->size = a->size;
			t->encoding = a->encoding;
		}
		break;
	}
	case DW_TAG_subroutine_type:
		t->kind = DW_TYPE_FUNCTION;
		t->size = 1; /* sizeof a function in GNU C */
		read_children(s, die, t);
		break;
	case DW_TAG_unspecified_type:
		t->kind = DW_TYPE_VOID;
		break;
	default:
		free(t);
		dwarf_dealloc_die(die);
		return -EINVAL;
	}
	dwarf_dealloc_die(die);
	/* A nested lookup may have decoded and kept this type already. */
	if ((sl = slot_of(s, ref)) && sl->type) {
		free((void *)t->members);
		free((void *)t->enumerators);
		free((void *)t->dims);
		free(t);
		*out = sl->type;
		return 0;
	}
	cache_put(s, ref, t);
	*out = t;
	return 0;
}

int dw_type_get(struct dw_syms *syms, uint64_t type, const struct dw_type **out)
{
	return get_type(syms, type, out, 0);
}

int dw_type_strip(struct dw_syms *syms, uint64_t type, const struct dw_type **out)
{
	for (int i = 0; i < 32; i++) {
		int r = get_type(syms, type, out, 0);
		if (r < 0)
			return r;
		if ((*out)->kind != DW_TYPE_TYPEDEF && (*out)->kind != DW_TYPE_CONST &&
		    (*out)->kind != DW_TYPE_VOLATILE)
			return 0;
		type = (*out)->target;
	}
	return -ELOOP;
}
