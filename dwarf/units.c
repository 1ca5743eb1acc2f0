/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Compilation units, read on first need. dw_syms_open indexes them
 * (sym_units_index): each unit's DIE and the address ranges its DIE gives
 * (DW_AT_low_pc and DW_AT_high_pc, or DW_AT_ranges), which cover the
 * unit's code (DWARF 5, section 3.1.1). A question about an address reads
 * the units whose ranges hold it, their line rows (lines.c) and scope
 * tree (scopes.c), added to what was read before; a question about a
 * source file reads the file tables of the units' line programs first,
 * and then only the units that name a matching file; a function by name
 * reads every unit. A debugger stopped in libc with libc6-dbg reads one
 * of libc's units, not all of them (bench/dap.sh: the first stop took
 * 285 ms when dw_syms_open read everything).
 *
 * Rows stay one array sorted by address: a unit's rows are sorted and
 * merged in, and overlaps are cut again (sym_lines_finish), which gives
 * what cutting them once all are in gives. Scopes are appended, a unit's
 * tree after the others, so their indexes stay valid.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "dwarf/internal.h"

static void add_unit_range(struct dw_syms *s, uint64_t lo, uint64_t hi, Dwarf_Off die)
{
	if (hi <= lo || lo == 0)
		return; /* empty, or code the linker discarded */
	if (s->nuranges == s->uranges_cap) {
		s->uranges_cap = s->uranges_cap ? s->uranges_cap * 2 : 256;
		s->uranges = xrealloc(s->uranges, s->uranges_cap * sizeof(*s->uranges));
	}
	s->uranges[s->nuranges++] = (struct sym_unit_range){ .lo = lo, .hi = hi, .die = die };
}

static int cmp_uranges(const void *a_, const void *b_)
{
	const struct sym_unit_range *a = a_, *b = b_;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static int cmp_units(const void *a_, const void *b_)
{
	const struct sym_unit *a = a_, *b = b_;

	return a->die < b->die ? -1 : a->die > b->die;
}

/* The unit whose DIE is at DIE, or NULL. */
static struct sym_unit *unit_find(struct dw_syms *s, Dwarf_Off die)
{
	struct sym_unit key = { .die = die };

	return s->nunits ? bsearch(&key, s->units, s->nunits, sizeof(key), cmp_units) : NULL;
}

/* Add a unit at DIE unless it is known (the units are sorted again by
 * the caller). */
static void add_unit(struct dw_syms *s, Dwarf_Off die, size_t sorted)
{
	struct sym_unit key = { .die = die };

	if (sorted && bsearch(&key, s->units, sorted, sizeof(key), cmp_units))
		return;
	if (s->nunits == s->units_cap) {
		s->units_cap = s->units_cap ? s->units_cap * 2 : 64;
		s->units = xrealloc(s->units, s->units_cap * sizeof(*s->units));
	}
	s->units[s->nunits++] = key;
}

/* Walk every unit header: the units .debug_aranges did not name (those
 * without code, whose files a question by file may want), or every unit
 * when there are no aranges, with the ranges of its DIE (RANGES). This
 * reads each unit's DIE, which costs libdwarf its abbreviations: about
 * 100 ms for libc6-dbg's 2,063 units. */
static int walk_units(struct dw_syms *s, int ranges)
{
	Dwarf_Error err = NULL;
	size_t sorted = s->nunits;

	for (;;) {
		Dwarf_Unsigned hdr_len, abbrev_off, typeoff, next;
		Dwarf_Half version, addr_size, off_size, ext_size, hdr_type, tag = 0;
		Dwarf_Sig8 sig;
		Dwarf_Die cu = NULL;
		Dwarf_Off off = 0;
		Dwarf_Addr base = 0;
		struct sym_range *r = NULL;
		uint32_t n = 0;
		int res = dwarf_next_cu_header_d(s->dbg, 1, &hdr_len, &version, &abbrev_off,
						 &addr_size, &off_size, &ext_size, &sig, &typeoff,
						 &next, &hdr_type, &err);

		if (res == DW_DLV_NO_ENTRY)
			break;
		if (res != DW_DLV_OK) {
			sym_drop_error(s->dbg, &err);
			return -EINVAL;
		}
		if (dwarf_siblingof_b(s->dbg, NULL, 1, &cu, &err) != DW_DLV_OK) {
			sym_drop_error(s->dbg, &err);
			continue;
		}
		dwarf_tag(cu, &tag, &err);
		sym_drop_error(s->dbg, &err);
		if (tag != DW_TAG_compile_unit || dwarf_dieoffset(cu, &off, &err) != DW_DLV_OK) {
			sym_drop_error(s->dbg, &err);
			dwarf_dealloc_die(cu);
			continue;
		}
		add_unit(s, off, sorted);
		if (ranges) {
			if (dwarf_lowpc(cu, &base, &err) != DW_DLV_OK)
				base = 0;
			sym_drop_error(s->dbg, &err);
			sym_die_ranges(s, cu, version, base, &r, &n);
			for (uint32_t i = 0; i < n; i++)
				add_unit_range(s, r[i].lo, r[i].hi, off);
			free(r);
		}
		dwarf_dealloc_die(cu);
	}
	qsort(s->units, s->nunits, sizeof(*s->units), cmp_units);
	s->units_all = 1;
	return 0;
}

/* The units and their ranges from .debug_aranges, which gcc writes for
 * every unit with code (clang only with -gdwarf-aranges): one section
 * read, no DIE. 0, or -ENOENT when there is none. */
static int aranges(struct dw_syms *s)
{
	Dwarf_Error err = NULL;
	Dwarf_Arange *a = NULL;
	Dwarf_Signed n = 0;

	if (dwarf_get_aranges(s->dbg, &a, &n, &err) != DW_DLV_OK) {
		sym_drop_error(s->dbg, &err);
		return -ENOENT;
	}
	for (Dwarf_Signed i = 0; i < n; i++) {
		Dwarf_Unsigned seg, seg_size, len;
		Dwarf_Addr start;
		Dwarf_Off die;

		if (dwarf_get_arange_info_b(a[i], &seg, &seg_size, &start, &len, &die, &err) ==
		    DW_DLV_OK) {
			add_unit_range(s, start, start + len, die);
			if (!s->nunits || s->units[s->nunits - 1].die != die)
				add_unit(s, die, 0);
		}
		sym_drop_error(s->dbg, &err);
		dwarf_dealloc(s->dbg, a[i], DW_DLA_ARANGE);
	}
	dwarf_dealloc(s->dbg, a, DW_DLA_LIST);
	qsort(s->units, s->nunits, sizeof(*s->units), cmp_units);
	/* (a unit's ranges may come in several sets: one unit each) */
	size_t k = 0;
	for (size_t i = 0; i < s->nunits; i++)
		if (!k || s->units[k - 1].die != s->units[i].die)
			s->units[k++] = s->units[i];
	s->nunits = k;
	return n > 0 ? 0 : -ENOENT;
}

int sym_units_index(struct dw_syms *s)
{
	int err = aranges(s);

	if (err < 0) {
		s->nuranges = 0;
		s->nunits = 0;
		err = walk_units(s, 1);
		if (err < 0)
			return err;
	}
	qsort(s->uranges, s->nuranges, sizeof(*s->uranges), cmp_uranges);
	for (size_t i = 0; i < s->nuranges; i++)
		s->uranges[i].max_hi = i && s->uranges[i - 1].max_hi > s->uranges[i].hi
					       ? s->uranges[i - 1].max_hi
					       : s->uranges[i].hi;
	return 0;
}

/* Every unit known, not only those with code. */
static void units_all(struct dw_syms *s)
{
	if (!s->units_all)
		walk_units(s, 0);
}

static int cmp_rows(const void *a_, const void *b_)
{
	const struct sym_row *a = a_, *b = b_;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Rows [0, OLD) are sorted: sort the rest and merge them in. */
static void merge_rows(struct dw_syms *s, size_t old)
{
	size_t add = s->nrows - old, i = 0, j = old, k = 0;
	struct sym_row *out;

	if (!add)
		return;
	qsort(s->rows + old, add, sizeof(*s->rows), cmp_rows);
	if (old && s->rows[old - 1].lo > s->rows[old].lo) {
		out = xmalloc(s->nrows * sizeof(*out));
		while (i < old || j < s->nrows) {
			if (j == s->nrows || (i < old && s->rows[i].lo <= s->rows[j].lo))
				out[k++] = s->rows[i++];
			else
				out[k++] = s->rows[j++];
		}
		memcpy(s->rows, out, s->nrows * sizeof(*out));
		free(out);
	}
	sym_lines_finish(s);
}

/* The DIE of unit U (dwarf_dealloc_die it), and its DW_AT_comp_dir; NULL
 * when it is not a compile unit's. */
static Dwarf_Die unit_die(struct dw_syms *s, const struct sym_unit *u, char **comp_dir)
{
	Dwarf_Error err = NULL;
	Dwarf_Die cu = NULL;

	Dwarf_Half tag = 0;

	if (dwarf_offdie_b(s->dbg, u->die, 1, &cu, &err) != DW_DLV_OK) {
		sym_drop_error(s->dbg, &err);
		return NULL;
	}
	/* (as the walk of the headers: partial and type units hold no code
	 * of their own) */
	if (dwarf_tag(cu, &tag, &err) != DW_DLV_OK || tag != DW_TAG_compile_unit) {
		sym_drop_error(s->dbg, &err);
		dwarf_dealloc_die(cu);
		return NULL;
	}
	if (dwarf_die_text(cu, DW_AT_comp_dir, comp_dir, &err) != DW_DLV_OK)
		*comp_dir = NULL;
	sym_drop_error(s->dbg, &err);
	return cu;
}

/* The source files of unit U's line program, interned, read once. */
static void unit_files(struct dw_syms *s, struct sym_unit *u, Dwarf_Die cu, const char *comp_dir)
{
	Dwarf_Error err = NULL;
	char **names = NULL;
	Dwarf_Signed n = 0;

	if (u->files_read)
		return;
	u->files_read = 1;
	if (dwarf_srcfiles(cu, &names, &n, &err) != DW_DLV_OK) {
		sym_drop_error(s->dbg, &err);
		return;
	}
	u->files = xmalloc((size_t)(n ? n : 1) * sizeof(*u->files));
	u->nfiles = (uint32_t)n;
	for (Dwarf_Signed i = 0; i < n; i++) {
		u->files[i] = (int32_t)sym_file_intern(s, comp_dir, names[i]);
		dwarf_dealloc(s->dbg, names[i], DW_DLA_STRING);
	}
	dwarf_dealloc(s->dbg, names, DW_DLA_LIST);
}

/* Read unit U's files without its rows and scopes. */
static void read_files(struct dw_syms *s, struct sym_unit *u)
{
	char *comp_dir = NULL;
	Dwarf_Die cu;

	if (u->files_read)
		return;
	cu = unit_die(s, u, &comp_dir);
	if (cu) {
		unit_files(s, u, cu, comp_dir);
		dwarf_dealloc_die(cu);
	}
	u->files_read = 1;
}

/* Read unit U's rows and scopes, once; the rows are merged by the caller. */
static void read_unit(struct dw_syms *s, struct sym_unit *u)
{
	Dwarf_Half version = 0, offset_size = 0;
	char *comp_dir = NULL;
	Dwarf_Die cu;

	if (u->loaded)
		return;
	u->loaded = 1;
	s->nloaded++;
	cu = unit_die(s, u, &comp_dir);
	if (!cu)
		return;
	if (dwarf_get_version_of_die(cu, &version, &offset_size) != DW_DLV_OK)
		version = 4;
	unit_files(s, u, cu, comp_dir);
	sym_lines_load(s, cu, comp_dir);
	sym_scopes_load(s, cu, version, u->files, u->nfiles);
	dwarf_dealloc_die(cu);
}

void sym_units_at(struct dw_syms *s, uint64_t pc)
{
	size_t old = s->nrows, after;

	if (!s->dbg || (s->units_all && s->nloaded == s->nunits))
		return;
	/* the ranges with lo <= pc, from the last back while one may hold pc */
	after = sym_count_lo(s->uranges, s->nuranges, sizeof(*s->uranges), pc);
	for (size_t i = after; i-- > 0 && s->uranges[i].max_hi > pc;) {
		struct sym_unit *u = pc < s->uranges[i].hi ? unit_find(s, s->uranges[i].die) : NULL;

		if (u)
			read_unit(s, u);
	}
	merge_rows(s, old);
}

void sym_units_all(struct dw_syms *s)
{
	size_t old = s->nrows;

	if (!s->dbg)
		return;
	units_all(s);
	for (size_t i = 0; s->nloaded < s->nunits && i < s->nunits; i++)
		read_unit(s, &s->units[i]);
	merge_rows(s, old);
}

void sym_units_files(struct dw_syms *s)
{
	if (!s->dbg || s->files_all)
		return;
	units_all(s);
	for (size_t i = 0; i < s->nunits; i++)
		read_files(s, &s->units[i]);
	s->files_all = 1;
}

void sym_units_for_files(struct dw_syms *s, const unsigned char *match)
{
	size_t old = s->nrows;

	for (size_t i = 0; s->dbg && i < s->nunits; i++) {
		struct sym_unit *u = &s->units[i];

		for (uint32_t k = 0; !u->loaded && k < u->nfiles; k++)
			if (u->files[k] >= 0 && match[u->files[k]])
				read_unit(s, u);
	}
	merge_rows(s, old);
}

void sym_units_free(struct dw_syms *s)
{
	for (size_t i = 0; i < s->nunits; i++)
		free(s->units[i].files);
	free(s->units);
	free(s->uranges);
	s->units = NULL;
	s->uranges = NULL;
	s->nunits = s->nuranges = 0;
}
