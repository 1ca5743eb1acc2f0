/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Functions, inlined subroutines and lexical blocks: read at open into a
 * pre-order array (a scope's subtree is [i + 1, end)), each with its
 * address ranges (low_pc/high_pc, or DW_AT_ranges: DWARF 4 .debug_ranges,
 * DWARF 5 .debug_rnglists). What a concrete DIE lacks (name, declaration,
 * type) comes from its DW_AT_abstract_origin or DW_AT_specification, as
 * gcc and clang split inlined and out-of-line copies from the abstract
 * one. Variables are read from the DIEs when asked (dw_vars_at).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "dwarf/internal.h"

int sym_die_has(Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Bool has = 0;
	Dwarf_Error err = NULL;

	if (dwarf_hasattr(die, at, &has, &err) != DW_DLV_OK) {
		sym_drop_error(NULL, &err);
		return 0;
	}
	return has != 0;
}

static int attr_ref(Dwarf_Die die, Dwarf_Half at, Dwarf_Off *off)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	int res = dwarf_attr(die, at, &a, &err);

	if (res != DW_DLV_OK) {
		sym_drop_error(NULL, &err);
		return res;
	}
	res = dwarf_global_formref(a, off, &err);
	sym_drop_error(NULL, &err);
	dwarf_dealloc_attribute(a);
	return res;
}

Dwarf_Die sym_die_holding(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Die cur = die;

	for (int hop = 0; hop < 4; hop++) {
		Dwarf_Off off;
		Dwarf_Die next = NULL;
		Dwarf_Error err = NULL;

		if (sym_die_has(cur, at))
			return cur;
		if (attr_ref(cur, DW_AT_abstract_origin, &off) != DW_DLV_OK &&
		    attr_ref(cur, DW_AT_specification, &off) != DW_DLV_OK)
			break;
		if (dwarf_offdie_b(dbg, off, 1, &next, &err) != DW_DLV_OK) {
			sym_drop_error(dbg, &err);
			break;
		}
		if (cur != die)
			dwarf_dealloc_die(cur);
		cur = next;
	}
	if (cur != die)
		dwarf_dealloc_die(cur);
	return NULL;
}

const char *sym_die_name(Dwarf_Debug dbg, Dwarf_Die die)
{
	Dwarf_Die h = sym_die_holding(dbg, die, DW_AT_name);
	Dwarf_Error err = NULL;
	char *name = NULL;

	if (!h)
		return NULL;
	if (dwarf_diename(h, &name, &err) != DW_DLV_OK) {
		sym_drop_error(dbg, &err);
		name = NULL;
	}
	if (h != die)
		dwarf_dealloc_die(h);
	return name;
}

int sym_die_udata(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at, int follow, uint64_t *out)
{
	Dwarf_Die h = follow ? sym_die_holding(dbg, die, at) : die;
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Unsigned v;
	int res;

	if (!h)
		return DW_DLV_NO_ENTRY;
	res = dwarf_attr(h, at, &a, &err);
	if (res == DW_DLV_OK) {
		res = dwarf_formudata(a, &v, &err);
		if (res == DW_DLV_OK)
			*out = v;
		else {
			/* this libdwarf reads DW_FORM_implicit_const (gcc's
			 * DWARF 5 decl_file) only as signed */
			Dwarf_Signed sv;
			sym_drop_error(dbg, &err);
			res = dwarf_formsdata(a, &sv, &err);
			if (res == DW_DLV_OK)
				*out = (uint64_t)sv;
		}
		dwarf_dealloc_attribute(a);
	}
	sym_drop_error(dbg, &err);
	if (h != die)
		dwarf_dealloc_die(h);
	return res;
}

int sym_die_sdata(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at, int64_t *out)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Signed v;
	int res = dwarf_attr(die, at, &a, &err);

	if (res == DW_DLV_OK) {
		res = dwarf_formsdata(a, &v, &err);
		if (res == DW_DLV_OK)
			*out = v;
		dwarf_dealloc_attribute(a);
	}
	sym_drop_error(dbg, &err);
	return res;
}

int sym_die_ref(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at, int follow, Dwarf_Off *out)
{
	Dwarf_Die h = follow ? sym_die_holding(dbg, die, at) : die;
	int res;

	if (!h)
		return DW_DLV_NO_ENTRY;
	res = attr_ref(h, at, out);
	if (h != die)
		dwarf_dealloc_die(h);
	return res;
}

/* Per-unit state while reading. */
struct unit {
	struct dw_syms *s;
	int version;
	uint64_t base;	      /* the unit's DW_AT_low_pc, the base of .debug_ranges */
	const int32_t *files; /* decl_file / call_file number -> interned index */
	size_t nfiles;
};

static void add_range(struct sym_range **r, uint32_t *n, uint64_t lo, uint64_t hi)
{
	if (hi <= lo || lo == 0)
		return; /* empty, or code the linker discarded */
	*r = xrealloc(*r, (*n + 1) * sizeof(**r));
	(*r)[(*n)++] = (struct sym_range){ lo, hi };
}

int sym_die_ranges(struct dw_syms *s, Dwarf_Die die, int version, uint64_t base,
		   struct sym_range **out, uint32_t *n)
{
	Dwarf_Debug dbg = s->dbg;
	Dwarf_Error err = NULL;
	Dwarf_Addr lo, hi;
	Dwarf_Half form = 0;
	enum Dwarf_Form_Class cls;
	Dwarf_Attribute a = NULL;

	*out = NULL;
	*n = 0;
	if (dwarf_lowpc(die, &lo, &err) == DW_DLV_OK) {
		if (dwarf_highpc_b(die, &hi, &form, &cls, &err) == DW_DLV_OK) {
			if (cls == DW_FORM_CLASS_CONSTANT)
				hi += lo;
			add_range(out, n, lo, hi);
		} else
			sym_drop_error(dbg, &err);
		return 0;
	}
	sym_drop_error(dbg, &err);
	if (dwarf_attr(die, DW_AT_ranges, &a, &err) != DW_DLV_OK) {
		sym_drop_error(dbg, &err);
		return 0;
	}
	dwarf_whatform(a, &form, &err);
	sym_drop_error(dbg, &err);
	if (version >= 5 || form == DW_FORM_rnglistx) {
		Dwarf_Unsigned val = 0, count = 0, goff = 0;
		Dwarf_Rnglists_Head head = NULL;
		int res = form == DW_FORM_rnglistx ? dwarf_formudata(a, &val, &err)
						   : dwarf_global_formref(a, &val, &err);
		if (res == DW_DLV_OK && dwarf_rnglists_get_rle_head(a, form, val, &head, &count,
								    &goff, &err) == DW_DLV_OK) {
			for (Dwarf_Unsigned i = 0; i < count; i++) {
				unsigned len, code;
				Dwarf_Unsigned raw1, raw2, c1, c2;
				Dwarf_Bool unavail = 0;
				if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &raw1,
								      &raw2, &unavail, &c1, &c2,
								      &err) != DW_DLV_OK) {
					sym_drop_error(dbg, &err);
					break;
				}
				if (unavail || code == DW_RLE_end_of_list ||
				    code == DW_RLE_base_address || code == DW_RLE_base_addressx)
					continue;
				add_range(out, n, c1, c2);
			}
			dwarf_dealloc_rnglists_head(head);
		}
		sym_drop_error(dbg, &err);
	} else {
		Dwarf_Off off = 0, real = 0;
		Dwarf_Ranges *r = NULL;
		Dwarf_Signed count = 0;
		Dwarf_Unsigned bytes = 0;
		int res = dwarf_global_formref(a, &off, &err);
		if (res != DW_DLV_OK) {
			Dwarf_Unsigned v = 0;
			sym_drop_error(dbg, &err);
			res = dwarf_formudata(a, &v, &err);
			off = v;
		}
		if (res == DW_DLV_OK && dwarf_get_ranges_b(dbg, off, die, &real, &r, &count, &bytes,
							   &err) == DW_DLV_OK) {
			for (Dwarf_Signed i = 0; i < count; i++) {
				if (r[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
					base = r[i].dwr_addr2;
				else if (r[i].dwr_type == DW_RANGES_ENTRY)
					add_range(out, n, base + r[i].dwr_addr1,
						  base + r[i].dwr_addr2);
			}
			dwarf_ranges_dealloc(dbg, r, count);
		}
		sym_drop_error(dbg, &err);
	}
	dwarf_dealloc_attribute(a);
	return 0;
}

static int32_t unit_file(const struct unit *u, uint64_t num)
{
	/* DWARF 5 numbers files from 0, earlier versions from 1. */
	uint64_t i = u->version >= 5 ? num : num - 1;
	return num == 0 && u->version < 5 ? -1 : i < u->nfiles ? u->files[i] : -1;
}

static void walk(struct unit *u, Dwarf_Die parent, int32_t parent_scope);

static void add_scope(struct unit *u, Dwarf_Die die, Dwarf_Half tag, int32_t parent)
{
	struct dw_syms *s = u->s;
	struct sym_range *r;
	uint32_t n;
	uint64_t v;
	Dwarf_Error err = NULL;
	Dwarf_Off off = 0;

	sym_die_ranges(s, die, u->version, u->base, &r, &n);
	if (!n) {
		/* a lexical block without code of its own still holds scopes */
		if (tag == DW_TAG_lexical_block)
			walk(u, die, parent);
		return;
	}
	if (s->nscopes == s->scopes_cap) {
		s->scopes_cap = s->scopes_cap ? s->scopes_cap * 2 : 256;
		s->scopes = xrealloc(s->scopes, s->scopes_cap * sizeof(*s->scopes));
	}
	int32_t idx = (int32_t)s->nscopes++;
	struct sym_scope sc = {
		.parent = parent, .ranges = r, .nranges = n, .decl_file = -1, .call_file = -1
	};
	sc.kind = tag == DW_TAG_subprogram	     ? DW_SCOPE_FUNCTION
		  : tag == DW_TAG_inlined_subroutine ? DW_SCOPE_INLINED
						     : DW_SCOPE_BLOCK;
	sc.lo = r[0].lo;
	for (uint32_t i = 0; i < n; i++) {
		if (r[i].lo < sc.lo)
			sc.lo = r[i].lo;
		if (r[i].hi > sc.hi)
			sc.hi = r[i].hi;
	}
	dwarf_dieoffset(die, &off, &err);
	sym_drop_error(s->dbg, &err);
	sc.die = off;
	if (sc.kind != DW_SCOPE_BLOCK) {
		sc.name = sym_die_name(s->dbg, die);
		Dwarf_Die h = sym_die_holding(s->dbg, die, DW_AT_linkage_name);
		if (h) {
			char *ln = NULL;
			if (dwarf_die_text(h, DW_AT_linkage_name, &ln, &err) == DW_DLV_OK)
				sc.linkage = ln;
			sym_drop_error(s->dbg, &err);
			if (h != die)
				dwarf_dealloc_die(h);
		}
		if (sym_die_udata(s->dbg, die, DW_AT_decl_file, 1, &v) == DW_DLV_OK)
			sc.decl_file = unit_file(u, v);
		if (sym_die_udata(s->dbg, die, DW_AT_decl_line, 1, &v) == DW_DLV_OK)
			sc.decl_line = (uint32_t)v;
	}
	if (sc.kind == DW_SCOPE_INLINED) {
		if (sym_die_udata(s->dbg, die, DW_AT_call_file, 0, &v) == DW_DLV_OK)
			sc.call_file = unit_file(u, v);
		if (sym_die_udata(s->dbg, die, DW_AT_call_line, 0, &v) == DW_DLV_OK)
			sc.call_line = (uint32_t)v;
		if (sym_die_udata(s->dbg, die, DW_AT_call_column, 0, &v) == DW_DLV_OK)
			sc.call_column = (uint32_t)v;
	}
	s->scopes[idx] = sc;
	walk(u, die, idx);
	s->scopes[idx].end = (uint32_t)s->nscopes;
}

static void walk(struct unit *u, Dwarf_Die parent, int32_t parent_scope)
{
	Dwarf_Debug dbg = u->s->dbg;
	Dwarf_Error err = NULL;
	Dwarf_Die child = NULL;

	if (dwarf_child(parent, &child, &err) != DW_DLV_OK) {
		sym_drop_error(dbg, &err);
		return;
	}
	while (child) {
		Dwarf_Half tag = 0;
		Dwarf_Die next = NULL;

		if (dwarf_tag(child, &tag, &err) == DW_DLV_OK) {
			if (tag == DW_TAG_subprogram && parent_scope < 0)
				add_scope(u, child, tag, -1);
			else if ((tag == DW_TAG_inlined_subroutine ||
				  tag == DW_TAG_lexical_block) &&
				 parent_scope >= 0)
				add_scope(u, child, tag, parent_scope);
			else if (tag == DW_TAG_namespace && parent_scope < 0)
				walk(u, child, -1);
		}
		sym_drop_error(dbg, &err);
		if (dwarf_siblingof_b(dbg, child, 1, &next, &err) != DW_DLV_OK) {
			sym_drop_error(dbg, &err);
			next = NULL;
		}
		dwarf_dealloc_die(child);
		child = next;
	}
}

int sym_scopes_load(struct dw_syms *s, Dwarf_Die cu, int version, const int32_t *files,
		    size_t nfiles)
{
	struct unit u = { .s = s, .version = version, .files = files, .nfiles = nfiles };
	Dwarf_Error err = NULL;
	Dwarf_Addr base;

	if (dwarf_lowpc(cu, &base, &err) == DW_DLV_OK)
		u.base = base;
	sym_drop_error(s->dbg, &err);
	walk(&u, cu, -1);
	return 0;
}

static int scope_holds(const struct sym_scope *sc, uint64_t pc)
{
	if (pc < sc->lo || pc >= sc->hi)
		return 0;
	for (uint32_t i = 0; i < sc->nranges; i++)
		if (pc >= sc->ranges[i].lo && pc < sc->ranges[i].hi)
			return 1;
	return 0;
}

int sym_scope_chain(const struct dw_syms *s, uint64_t pc, int32_t *chain, int max)
{
	int32_t path[256];
	int depth = 0;
	size_t i = 0, end = s->nscopes;

	while (i < end && depth < 256) {
		if (scope_holds(&s->scopes[i], pc)) {
			path[depth++] = (int32_t)i;
			end = s->scopes[i].end;
			i++;
		} else
			i = s->scopes[i].end;
	}
	for (int d = 0; d < depth && d < max; d++)
		chain[d] = path[depth - 1 - d];
	return depth;
}

static void fill_func(const struct dw_syms *s, const struct sym_scope *sc, struct dw_func *out)
{
	struct dw_line row;

	out->name = sc->name;
	out->linkage = sc->linkage;
	out->low = sc->lo;
	out->high = sc->hi;
	out->decl_file = sym_file_name(s, sc->decl_file);
	out->decl_line = sc->decl_line;
	out->die = sc->die;
	/* After the prologue: where the function's first row ends, as gdb's
	 * skip_prologue_using_sal finds it. */
	out->entry = sc->lo;
	if (sym_line_at(s, sc->lo, &row) == 0 && row.end < sc->hi && scope_holds(sc, row.end))
		out->entry = row.end;
}

int dw_func_at(struct dw_syms *syms, uint64_t pc, struct dw_func *out)
{
	int32_t chain[64];
	int depth;

	sym_units_at(syms, pc);
	depth = sym_scope_chain(syms, pc, chain, 64);
	if (depth <= 0 || depth > 64)
		return -ENOENT;
	fill_func(syms, &syms->scopes[chain[depth - 1]], out);
	return 0;
}

int dw_func_by_name(struct dw_syms *syms, const char *name, struct dw_func *out, size_t max)
{
	int n = 0;

	sym_units_all(syms);
	for (size_t i = 0; i < syms->nscopes; i = syms->scopes[i].end) {
		const struct sym_scope *sc = &syms->scopes[i];
		if ((sc->name && !strcmp(sc->name, name)) ||
		    (sc->linkage && !strcmp(sc->linkage, name))) {
			if ((size_t)n < max)
				fill_func(syms, sc, &out[n]);
			n++;
		}
	}
	return n;
}

int dw_frames_at(struct dw_syms *syms, uint64_t pc, struct dw_frame *out, size_t max)
{
	int32_t chain[256];
	int depth, n = 0;
	const struct sym_scope *inner = NULL;

	sym_units_at(syms, pc);
	depth = sym_scope_chain(syms, pc, chain, 256);
	for (int d = 0; d < depth && d < 256; d++) {
		const struct sym_scope *sc = &syms->scopes[chain[d]];
		if (sc->kind == DW_SCOPE_BLOCK)
			continue;
		if ((size_t)n < max) {
			struct dw_frame *f = &out[n];
			struct dw_line row;
			memset(f, 0, sizeof(*f));
			f->name = sc->name;
			f->inlined = sc->kind == DW_SCOPE_INLINED;
			f->low = sc->lo;
			f->high = sc->hi;
			f->die = sc->die;
			if (!inner) {
				if (sym_line_at(syms, pc, &row) == 0) {
					f->file = row.file;
					f->line = row.line;
					f->column = row.column;
				}
			} else {
				f->file = sym_file_name(syms, inner->call_file);
				f->line = inner->call_line;
				f->column = inner->call_column;
			}
		}
		inner = sc;
		n++;
	}
	return n;
}

/* ---- variables ---- */

struct var_list {
	struct dw_var *v;
	size_t n, cap;
};

static int seen_name(const struct var_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].name && !strcmp(l->v[i].name, name))
			return 1;
	return 0;
}

static void push_var(struct var_list *l, const struct dw_var *v)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = *v;
}

static void var_of_die(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half tag, struct dw_var *v)
{
	Dwarf_Off off = 0;
	Dwarf_Error err = NULL;
	uint64_t line;

	memset(v, 0, sizeof(*v));
	v->name = sym_die_name(dbg, die);
	v->is_param = tag == DW_TAG_formal_parameter;
	if (sym_die_ref(dbg, die, DW_AT_type, 1, &off) == DW_DLV_OK)
		v->type = off;
	if (sym_die_udata(dbg, die, DW_AT_decl_line, 1, &line) == DW_DLV_OK)
		v->decl_line = (unsigned)line;
	dwarf_dieoffset(die, &off, &err);
	sym_drop_error(dbg, &err);
	v->die = off;
}

/* The variables (PARAMS: parameters, else locals) directly under the
 * scope DIE at OFF, and those its abstract origin declares that no
 * concrete one stands for (they are optimized out). */
static void scope_vars(const struct dw_syms *s, Dwarf_Off off, int params, struct var_list *l,
		       const struct var_list *shadow)
{
	Dwarf_Debug dbg = s->dbg;
	Dwarf_Error err = NULL;
	Dwarf_Die die = NULL, child = NULL;
	Dwarf_Off origins[256], origin = 0;
	size_t norigins = 0;

	if (dwarf_offdie_b(dbg, off, 1, &die, &err) != DW_DLV_OK) {
		sym_drop_error(dbg, &err);
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		Dwarf_Die parent = die;
		if (pass == 1) {
			if (sym_die_ref(dbg, die, DW_AT_abstract_origin, 0, &origin) != DW_DLV_OK ||
			    dwarf_offdie_b(dbg, origin, 1, &parent, &err) != DW_DLV_OK)
				break;
		}
		if (dwarf_child(parent, &child, &err) != DW_DLV_OK)
			child = NULL;
		sym_drop_error(dbg, &err);
		while (child) {
			Dwarf_Half tag = 0;
			Dwarf_Die next = NULL;
			Dwarf_Off o, self = 0;
			dwarf_tag(child, &tag, &err);
			sym_drop_error(dbg, &err);
			if ((params ? tag == DW_TAG_formal_parameter : tag == DW_TAG_variable) &&
			    !sym_die_has(child, DW_AT_declaration)) {
				dwarf_dieoffset(child, &self, &err);
				sym_drop_error(dbg, &err);
				int skip = 0;
				if (pass == 0) {
					if (sym_die_ref(dbg, child, DW_AT_abstract_origin, 0, &o) ==
						    DW_DLV_OK &&
					    norigins < 256)
						origins[norigins++] = o;
				} else {
					for (size_t k = 0; k < norigins && !skip; k++)
						skip = origins[k] == self;
				}
				struct dw_var v;
				var_of_die(dbg, child, tag, &v);
				if (!skip && v.name && !seen_name(l, v.name) &&
				    !(shadow && seen_name(shadow, v.name)))
					push_var(l, &v);
			}
			if (dwarf_siblingof_b(dbg, child, 1, &next, &err) != DW_DLV_OK)
				next = NULL;
			sym_drop_error(dbg, &err);
			dwarf_dealloc_die(child);
			child = next;
		}
		if (parent != die)
			dwarf_dealloc_die(parent);
	}
	dwarf_dealloc_die(die);
}

int dw_vars_at(struct dw_syms *syms, uint64_t pc, int depth, struct dw_var *out, size_t max)
{
	int32_t chain[256];
	int n, d, first = 0, frame = -1;
	struct var_list locals = { 0 }, params = { 0 };

	sym_units_at(syms, pc);
	n = sym_scope_chain(syms, pc, chain, 256);
	if (n <= 0 || n > 256 || depth < 0)
		return -ENOENT;
	/* chain[first..frame] are the blocks of frame DEPTH and the frame. */
	for (d = 0; d < n; d++) {
		if (syms->scopes[chain[d]].kind == DW_SCOPE_BLOCK)
			continue;
		if (depth-- == 0) {
			frame = d;
			break;
		}
		first = d + 1;
	}
	if (frame < 0)
		return -ENOENT;
	const struct sym_scope *fn = &syms->scopes[chain[n - 1]];
	for (d = first; d <= frame; d++)
		scope_vars(syms, syms->scopes[chain[d]].die, 0, &locals, NULL);
	scope_vars(syms, syms->scopes[chain[frame]].die, 1, &params, &locals);
	size_t total = params.n + locals.n;
	for (size_t i = 0; i < total && i < max; i++) {
		out[i] = i < params.n ? params.v[i] : locals.v[i - params.n];
		out[i].frame_die = fn->die;
		out[i].func_low = fn->lo;
	}
	free(locals.v);
	free(params.v);
	return (int)total;
}
