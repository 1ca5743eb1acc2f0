/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Line tables: every compilation unit's rows (dwarf_srclines_b, DWARF 4
 * and 5) become one array of [lo, hi) ranges sorted by address. A row
 * covers the bytes up to the next row of its sequence; rows that cover
 * none (several rows at one address) are dropped, so the last row at an
 * address is the one that counts, as in gdb. Rows of sequences at address
 * 0 are those of code the linker discarded, and are dropped too.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "dwarf/internal.h"

static void add_row(struct dw_syms *s, const struct sym_row *row)
{
	if (s->nrows == s->rows_cap) {
		s->rows_cap = s->rows_cap ? s->rows_cap * 2 : 1024;
		s->rows = xrealloc(s->rows, s->rows_cap * sizeof(*s->rows));
	}
	s->rows[s->nrows++] = *row;
}

/* The interned file of a row's file number, through a per-unit cache. */
static int32_t row_file(struct dw_syms *s, Dwarf_Line line, Dwarf_Unsigned fileno, int32_t **cache,
			size_t *ncache, const char *comp_dir)
{
	Dwarf_Error err = NULL;
	char *name = NULL;

	if (fileno >= *ncache) {
		size_t n = fileno + 16;
		*cache = xrealloc(*cache, n * sizeof(**cache));
		for (size_t i = *ncache; i < n; i++)
			(*cache)[i] = -1;
		*ncache = n;
	}
	if ((*cache)[fileno] >= 0)
		return (*cache)[fileno];
	if (dwarf_linesrc(line, &name, &err) != DW_DLV_OK) {
		sym_drop_error(s->dbg, &err);
		return -1;
	}
	(*cache)[fileno] = (int32_t)sym_file_intern(s, comp_dir, name);
	dwarf_dealloc(s->dbg, name, DW_DLA_STRING);
	return (*cache)[fileno];
}

int sym_lines_load(struct dw_syms *s, Dwarf_Die cu, const char *comp_dir)
{
	Dwarf_Error err = NULL;
	Dwarf_Line_Context ctx = NULL;
	Dwarf_Line *lines = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Unsigned version;
	Dwarf_Small table_count;
	int32_t *cache = NULL;
	size_t ncache = 0;
	struct sym_row prev;
	int have_prev = 0;

	if (dwarf_srclines_b(cu, &version, &table_count, &ctx, &err) != DW_DLV_OK) {
		sym_drop_error(s->dbg, &err);
		return -ENOENT;
	}
	if (dwarf_srclines_from_linecontext(ctx, &lines, &n, &err) != DW_DLV_OK) {
		sym_drop_error(s->dbg, &err);
		dwarf_srclines_dealloc_b(ctx);
		return -ENOENT;
	}
	for (Dwarf_Signed i = 0; i < n; i++) {
		Dwarf_Addr addr = 0;
		Dwarf_Unsigned lineno = 0, col = 0, fileno = 0;
		Dwarf_Bool stmt = 0, end = 0;

		if (dwarf_lineaddr(lines[i], &addr, &err) != DW_DLV_OK ||
		    dwarf_lineno(lines[i], &lineno, &err) != DW_DLV_OK ||
		    dwarf_lineoff_b(lines[i], &col, &err) != DW_DLV_OK ||
		    dwarf_linebeginstatement(lines[i], &stmt, &err) != DW_DLV_OK ||
		    dwarf_lineendsequence(lines[i], &end, &err) != DW_DLV_OK ||
		    dwarf_line_srcfileno(lines[i], &fileno, &err) != DW_DLV_OK) {
			sym_drop_error(s->dbg, &err);
			have_prev = 0;
			continue;
		}
		if (have_prev && addr > prev.lo && prev.lo != 0) {
			prev.hi = addr;
			add_row(s, &prev);
		}
		have_prev = 0;
		if (end)
			continue;
		int32_t file = row_file(s, lines[i], fileno, &cache, &ncache, comp_dir);
		if (file < 0)
			continue;
		prev = (struct sym_row){ .lo = addr,
					 .file = (uint32_t)file,
					 .line = (uint32_t)lineno,
					 .column = (uint16_t)(col > 0xffff ? 0 : col),
					 .is_stmt = stmt ? 1 : 0 };
		have_prev = 1;
	}
	free(cache);
	dwarf_srclines_dealloc_b(ctx);
	return 0;
}

void sym_lines_finish(struct dw_syms *s)
{
	/* Overlaps come only from sequences of discarded code the linker
	 * relocated onto live code: cut them at the next row. */
	for (size_t i = 0; i + 1 < s->nrows; i++)
		if (s->rows[i].hi > s->rows[i + 1].lo)
			s->rows[i].hi = s->rows[i + 1].lo;
}

size_t sym_count_lo(const void *v, size_t n, size_t size, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t at;

		memcpy(&at, (const char *)v + mid * size, sizeof(at));
		if (at <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the row holding ADDR, or -1. */
static ssize_t row_at(const struct dw_syms *s, uint64_t addr)
{
	size_t lo = sym_count_lo(s->rows, s->nrows, sizeof(*s->rows), addr);

	if (lo == 0)
		return -1;
	while (lo > 0 && s->rows[lo - 1].hi == s->rows[lo - 1].lo)
		lo--;
	if (lo == 0 || addr >= s->rows[lo - 1].hi)
		return -1;
	return (ssize_t)lo - 1;
}

static void fill(const struct dw_syms *s, const struct sym_row *row, struct dw_line *out)
{
	out->addr = row->lo;
	out->end = row->hi;
	out->file = s->files[row->file];
	out->line = row->line;
	out->column = row->column;
	out->is_stmt = row->is_stmt;
}

int sym_line_at(const struct dw_syms *s, uint64_t addr, struct dw_line *out)
{
	ssize_t i = row_at(s, addr);

	if (i < 0)
		return -ENOENT;
	fill(s, &s->rows[i], out);
	return 0;
}

int dw_line_at(struct dw_syms *syms, uint64_t addr, struct dw_line *out)
{
	sym_units_at(syms, addr);
	return sym_line_at(syms, addr, out);
}

static int same_line(const struct sym_row *a, const struct sym_row *b)
{
	return a->file == b->file && a->line == b->line;
}

int dw_line_range(struct dw_syms *syms, uint64_t pc, uint64_t *lo, uint64_t *hi)
{
	ssize_t i, a, b;

	sym_units_at(syms, pc);
	i = row_at(syms, pc);
	if (i < 0)
		return -ENOENT;
	for (a = i; a > 0 && syms->rows[a - 1].hi == syms->rows[a].lo &&
		    same_line(&syms->rows[a - 1], &syms->rows[i]);
	     a--)
		;
	for (b = i; (size_t)b + 1 < syms->nrows && syms->rows[b].hi == syms->rows[b + 1].lo &&
		    same_line(&syms->rows[b + 1], &syms->rows[i]);
	     b++)
		;
	*lo = syms->rows[a].lo;
	*hi = syms->rows[b].hi;
	return 0;
}

int dw_line_next(struct dw_syms *syms, uint64_t end, struct dw_line *out)
{
	ssize_t ref, i;

	sym_units_at(syms, end - 1);
	sym_units_at(syms, end);
	ref = row_at(syms, end - 1);
	i = row_at(syms, end);
	if (ref < 0 || i < 0)
		return -ENOENT;
	for (; (size_t)i < syms->nrows; i++) {
		const struct sym_row *row = &syms->rows[i];
		if (row->is_stmt && !same_line(row, &syms->rows[ref])) {
			fill(syms, row, out);
			return 0;
		}
		if ((size_t)i + 1 < syms->nrows && syms->rows[i + 1].lo != row->hi)
			break; /* the end of the code of this sequence */
	}
	return -ENOENT;
}

/* Whether PATH is FILE: the same, FILE a suffix of it at a '/', or the
 * same basename. */
static int file_matches(const char *path, const char *file)
{
	size_t pl = strlen(path), fl = strlen(file);
	const char *base;

	if (!strcmp(path, file))
		return 1;
	if (fl < pl && !strcmp(path + pl - fl, file) &&
	    (file[0] == '/' || path[pl - fl - 1] == '/'))
		return 1;
	base = strrchr(file, '/');
	if (base) /* a path given that is not ours */
		return 0;
	base = strrchr(path, '/');
	return !strcmp(base ? base + 1 : path, file);
}

static int cmp_u64(const void *a_, const void *b_)
{
	uint64_t a = *(const uint64_t *)a_, b = *(const uint64_t *)b_;
	return a < b ? -1 : a > b;
}

/* A byte for each interned file: whether it is FILE (file_matches);
 * NULL when none is. */
static unsigned char *matching(const struct dw_syms *s, const char *file)
{
	unsigned char *match = xcalloc(s->nfiles ? s->nfiles : 1, 1);
	int any = 0;

	for (size_t i = 0; i < s->nfiles; i++)
		any |= match[i] = (unsigned char)file_matches(s->files[i], file);
	if (!any) {
		free(match);
		return NULL;
	}
	return match;
}

int dw_line_addrs(struct dw_syms *syms, const char *file, unsigned line, uint64_t *addrs,
		  size_t max, unsigned *line_out)
{
	unsigned char *match;
	uint32_t best = 0;
	int any = 0;
	size_t n = 0, cap = 16;
	uint64_t *found;
	uint32_t *owner;

	/* the units that name the file, then its rows in them (their rows
	 * may name more files: match again) */
	sym_units_files(syms);
	match = matching(syms, file);
	if (!match)
		return -ENOENT;
	sym_units_for_files(syms, match);
	free(match);
	match = matching(syms, file);
	any = match != NULL;
	for (size_t i = 0; any && i < syms->nrows; i++) {
		const struct sym_row *row = &syms->rows[i];
		if (match[row->file] && row->is_stmt && row->line >= line &&
		    (!best || row->line < best))
			best = row->line;
	}
	if (!best) {
		free(match);
		return -ENOENT;
	}
	found = xmalloc(cap * sizeof(*found));
	owner = xmalloc(cap * sizeof(*owner));
	for (size_t i = 0; i < syms->nrows; i++) {
		const struct sym_row *row = &syms->rows[i];
		if (!match[row->file] || !row->is_stmt || row->line != best)
			continue;
		if (i > 0 && syms->rows[i - 1].hi == row->lo && same_line(&syms->rows[i - 1], row))
			continue; /* inside a run of the line: its start is taken */
		/* One place per function or inlined instance, its lowest, as
		 * gdb's linespec keeps one location per block. */
		int32_t chain[64];
		int depth = sym_scope_chain(syms, row->lo, chain, 64);
		uint32_t who = UINT32_MAX;
		for (int d = 0; d < depth && d < 64; d++) {
			if (syms->scopes[chain[d]].kind != DW_SCOPE_BLOCK) {
				who = (uint32_t)chain[d];
				break;
			}
		}
		size_t k;
		for (k = 0; k < n; k++)
			if (who != UINT32_MAX && owner[k] == who)
				break;
		if (k < n) {
			if (row->lo < found[k])
				found[k] = row->lo;
			continue;
		}
		if (n == cap) {
			cap *= 2;
			found = xrealloc(found, cap * sizeof(*found));
			owner = xrealloc(owner, cap * sizeof(*owner));
		}
		found[n] = row->lo;
		owner[n++] = who;
	}
	qsort(found, n, sizeof(*found), cmp_u64);
	for (size_t i = 0; i < n && i < max; i++)
		addrs[i] = found[i];
	free(found);
	free(owner);
	free(match);
	if (line_out)
		*line_out = best;
	return (int)n;
}
