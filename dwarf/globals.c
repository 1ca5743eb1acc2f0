/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Names at file scope, for a debugger's expressions: global and
 * file-static variables, typedefs and base types, and struct, union and
 * enum tags. They are the children of each compile unit's DIE (C has no
 * namespaces); a variable defined elsewhere than it is declared is the
 * DIE with the location, whose name may come through DW_AT_specification.
 * The index is built on the first lookup, sorted by name.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "dwarf/internal.h"

static int by_name(const void *a, const void *b)
{
	const struct sym_named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (int)x->kind - (int)y->kind;
}

static void add(struct dw_syms *s, const char *name, Dwarf_Off die, uint8_t kind)
{
	if (s->nnamed == s->named_cap) {
		s->named_cap = s->named_cap ? 2 * s->named_cap : 64;
		s->named = xrealloc(s->named, s->named_cap * sizeof(*s->named));
	}
	s->named[s->nnamed++] = (struct sym_named){ name, die, kind };
}

static int kind_of(Dwarf_Half tag)
{
	switch (tag) {
	case DW_TAG_variable:
		return SYM_NAMED_VAR;
	case DW_TAG_typedef:
	case DW_TAG_base_type:
		return SYM_NAMED_TYPE;
	case DW_TAG_structure_type:
		return SYM_NAMED_STRUCT;
	case DW_TAG_union_type:
		return SYM_NAMED_UNION;
	case DW_TAG_enumeration_type:
		return SYM_NAMED_ENUM;
	default:
		return -1;
	}
}

static void index_unit(struct dw_syms *s, Dwarf_Die cu)
{
	Dwarf_Debug dbg = s->dbg;
	Dwarf_Error err = NULL;
	Dwarf_Die child = NULL;

	if (dwarf_child(cu, &child, &err) != DW_DLV_OK)
		child = NULL;
	sym_drop_error(dbg, &err);
	while (child) {
		Dwarf_Half tag = 0;
		Dwarf_Die next = NULL;
		Dwarf_Off off = 0;
		int kind;

		dwarf_tag(child, &tag, &err);
		sym_drop_error(dbg, &err);
		kind = kind_of(tag);
		/* Declarations name nothing one can read (extern int x;, struct
		 * s;); a variable's definition is the DIE with a location. */
		if (kind >= 0 && !sym_die_has(child, DW_AT_declaration) &&
		    (kind != SYM_NAMED_VAR || sym_die_has(child, DW_AT_location))) {
			const char *name = sym_die_name(dbg, child);

			dwarf_dieoffset(child, &off, &err);
			sym_drop_error(dbg, &err);
			if (name)
				add(s, name, off, (uint8_t)kind);
		}
		if (dwarf_siblingof_b(dbg, child, 1, &next, &err) != DW_DLV_OK)
			next = NULL;
		sym_drop_error(dbg, &err);
		dwarf_dealloc_die(child);
		child = next;
	}
}

static void load(struct dw_syms *s)
{
	Dwarf_Error err = NULL;

	s->named_loaded = 1;
	if (!s->dbg)
		return;
	for (;;) {
		Dwarf_Unsigned hdr_len, abbrev_off, typeoff, next;
		Dwarf_Half version, addr_size, off_size, ext_size, hdr_type;
		Dwarf_Sig8 sig;
		Dwarf_Die cu = NULL;
		Dwarf_Half tag = 0;
		int res = dwarf_next_cu_header_d(s->dbg, 1, &hdr_len, &version, &abbrev_off,
						 &addr_size, &off_size, &ext_size, &sig, &typeoff,
						 &next, &hdr_type, &err);

		if (res != DW_DLV_OK) {
			sym_drop_error(s->dbg, &err);
			break;
		}
		if (dwarf_siblingof_b(s->dbg, NULL, 1, &cu, &err) != DW_DLV_OK) {
			sym_drop_error(s->dbg, &err);
			continue;
		}
		dwarf_tag(cu, &tag, &err);
		sym_drop_error(s->dbg, &err);
		if (tag == DW_TAG_compile_unit)
			index_unit(s, cu);
		dwarf_dealloc_die(cu);
	}
	if (s->nnamed)
		qsort(s->named, s->nnamed, sizeof(*s->named), by_name);
}

/* The first entry named NAME of KIND, or NULL. */
static const struct sym_named *lookup(struct dw_syms *s, const char *name, int kind)
{
	struct sym_named key = { name, 0, (uint8_t)kind };
	const struct sym_named *hit;

	if (!s->named_loaded)
		load(s);
	if (!s->nnamed)
		return NULL;
	hit = bsearch(&key, s->named, s->nnamed, sizeof(*s->named), by_name);
	/* Several units may define one static name: take the first. */
	while (hit && hit > s->named && by_name(hit - 1, &key) == 0)
		hit--;
	return hit;
}

int dw_global_by_name(struct dw_syms *syms, const char *name, struct dw_var *out)
{
	const struct sym_named *n = lookup(syms, name, SYM_NAMED_VAR);
	Dwarf_Error err = NULL;
	Dwarf_Die die = NULL;
	Dwarf_Off type = 0;
	uint64_t line;

	if (!n)
		return -ENOENT;
	if (dwarf_offdie_b(syms->dbg, n->die, 1, &die, &err) != DW_DLV_OK) {
		sym_drop_error(syms->dbg, &err);
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	out->name = n->name;
	out->die = n->die;
	if (sym_die_ref(syms->dbg, die, DW_AT_type, 1, &type) == DW_DLV_OK)
		out->type = type;
	if (sym_die_udata(syms->dbg, die, DW_AT_decl_line, 1, &line) == DW_DLV_OK)
		out->decl_line = (unsigned)line;
	dwarf_dealloc_die(die);
	return 0;
}

int dw_type_by_name(struct dw_syms *syms, const char *name, int tag, uint64_t *type)
{
	int kind = tag == 's'	? SYM_NAMED_STRUCT
		   : tag == 'u' ? SYM_NAMED_UNION
		   : tag == 'e' ? SYM_NAMED_ENUM
				: SYM_NAMED_TYPE;
	const struct sym_named *n = lookup(syms, name, kind);

	if (!n)
		return -ENOENT;
	*type = n->die;
	return 0;
}

void sym_named_free(struct dw_syms *s)
{
	free(s->named);
	s->named = NULL;
	s->nnamed = s->named_cap = 0;
	s->named_loaded = 0;
}
