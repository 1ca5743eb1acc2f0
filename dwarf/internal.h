/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the symbol files of dwarf/ share: struct dw_syms, with its
 * compilation units indexed at open and each read on first need (units.c:
 * line rows and the tree of functions, inlined subroutines and lexical
 * blocks, in our own arrays), and the libdwarf handle kept open for what
 * is read on demand (variables, types, locations, frames).
 */
#ifndef HERMIT_DWARF_INTERNAL_H
#define HERMIT_DWARF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>

#include "dwarf/dwarf.h"

/* One line-table row with the bytes it covers. */
struct sym_row {
	uint64_t lo, hi;
	uint32_t file; /* index in files */
	uint32_t line;
	uint16_t column;
	uint8_t is_stmt;
};

struct sym_range {
	uint64_t lo, hi;
};

/* A function, inlined subroutine or lexical block, in pre-order. */
struct sym_scope {
	uint8_t kind;	 /* enum dw_scope_kind */
	int32_t parent;	 /* index, -1 for functions */
	uint32_t end;	 /* index after its subtree */
	uint64_t lo, hi; /* lowest address, end of the highest range */
	struct sym_range *ranges;
	uint32_t nranges;
	Dwarf_Off die;
	const char *name, *linkage;
	int32_t decl_file; /* index in files, -1: none */
	uint32_t decl_line;
	int32_t call_file; /* inlined: index in files */
	uint32_t call_line, call_column;
};

/* A compilation unit (units.c). */
struct sym_unit {
	Dwarf_Off die;	    /* its DIE */
	uint8_t loaded;	    /* its rows and scopes are in */
	uint8_t files_read; /* its line program's files are in `files` */
	int32_t *files;	    /* file number -> interned index (scopes.c's unit_file) */
	uint32_t nfiles;
};

/* An address range of a unit, with the highest end of those before it. */
struct sym_unit_range {
	uint64_t lo, hi, max_hi;
	Dwarf_Off die; /* the unit's */
};

struct type_slot {
	Dwarf_Off die;
	struct dw_type *type;
};

/* A name at file scope (globals.c). */
enum { SYM_NAMED_VAR, SYM_NAMED_TYPE, SYM_NAMED_STRUCT, SYM_NAMED_UNION, SYM_NAMED_ENUM };
struct sym_named {
	const char *name;
	Dwarf_Off die;
	uint8_t kind;
};

struct dw_syms {
	Dwarf_Debug dbg;       /* the DWARF; NULL when the file has none */
	Dwarf_Debug frame_dbg; /* the file itself, for .eh_frame (may be dbg) */
	int fd, frame_fd;
	char *debug_file;

	char **files; /* interned full paths */
	size_t nfiles, files_cap;
	uint32_t *file_hash; /* open addressing: index + 1, 0 empty */
	size_t file_hash_cap;

	struct sym_unit *units; /* by die */
	size_t nunits, units_cap, nloaded;
	int units_all;			/* every unit is in `units`, not only those with code */
	struct sym_unit_range *uranges; /* by lo */
	size_t nuranges, uranges_cap;
	int files_all; /* every unit's files are in `files` */

	struct sym_row *rows; /* by lo: those of the units loaded */
	size_t nrows, rows_cap;

	struct sym_scope *scopes; /* pre-order */
	size_t nscopes, scopes_cap;

	struct type_slot *types; /* open addressing by die */
	size_t ntypes, types_cap;

	/* .eh_frame and .debug_frame FDEs, read on first dw_cfa_at */
	int fde_loaded;
	Dwarf_Cie *eh_cie, *dbg_cie;
	Dwarf_Fde *eh_fde, *dbg_fde;
	Dwarf_Signed eh_ncie, eh_nfde, dbg_ncie, dbg_nfde;

	/* names at file scope, indexed on first lookup (globals.c) */
	struct sym_named *named; /* by name */
	size_t nnamed, named_cap;
	int named_loaded;
};

/* symfile.c */
uint32_t sym_file_intern(struct dw_syms *s, const char *dir, const char *name);
const char *sym_file_name(const struct dw_syms *s, int32_t idx);
char *sym_path_join(const char *dir, const char *name);

/* units.c */
/* Index the units of s->dbg: 0 or -EINVAL. */
int sym_units_index(struct dw_syms *s);
/* Load the units whose ranges hold link-time PC. */
void sym_units_at(struct dw_syms *s, uint64_t pc);
/* Load every unit. */
void sym_units_all(struct dw_syms *s);
/* Intern every unit's files (without loading its rows and scopes). */
void sym_units_files(struct dw_syms *s);
/* After sym_units_files: load the units that have a file whose MATCH (by
 * interned index) is not 0. */
void sym_units_for_files(struct dw_syms *s, const unsigned char *match);
void sym_units_free(struct dw_syms *s);

/* lines.c */
int sym_lines_load(struct dw_syms *s, Dwarf_Die cu, const char *comp_dir);
void sym_lines_finish(struct dw_syms *s);
/* In the N elements of SIZE bytes at V, sorted by a first field `lo`
 * (uint64_t: struct sym_row, struct sym_unit_range), how many have
 * lo <= KEY. */
size_t sym_count_lo(const void *v, size_t n, size_t size, uint64_t key);
/* dw_line_at among the rows loaded. */
int sym_line_at(const struct dw_syms *s, uint64_t addr, struct dw_line *out);

/* scopes.c */
/* Add unit CU's scopes; FILES maps its file numbers to interned ones. */
int sym_scopes_load(struct dw_syms *s, Dwarf_Die cu, int version, const int32_t *files,
		    size_t nfiles);
/* The address ranges of DIE (BASE: its unit's DW_AT_low_pc, for DWARF 4
 * .debug_ranges), in *OUT (free it), *N of them. 0. */
int sym_die_ranges(struct dw_syms *s, Dwarf_Die die, int version, uint64_t base,
		   struct sym_range **out, uint32_t *n);
/* The DIE that holds attribute AT: DIE itself, or its abstract origin or
 * specification (a few hops at most); dwarf_dealloc_die it when it is
 * not DIE. NULL when none has AT. */
Dwarf_Die sym_die_holding(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at);
/* DW_AT_name through abstract origins, or NULL (a string in the section). */
const char *sym_die_name(Dwarf_Debug dbg, Dwarf_Die die);
/* Attribute AT of DIE (FOLLOW: or of its origin) as a number or a global
 * DIE offset: DW_DLV_OK or not. */
int sym_die_udata(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at, int follow, uint64_t *out);
int sym_die_sdata(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at, int64_t *out);
int sym_die_ref(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at, int follow, Dwarf_Off *out);
int sym_die_has(Dwarf_Die die, Dwarf_Half at);
/* The scopes holding PC, innermost first (indexes), up to MAX; the depth. */
int sym_scope_chain(const struct dw_syms *s, uint64_t pc, int32_t *chain, int max);

/* types.c */
void sym_types_free(struct dw_syms *s);

/* locexpr.c: evaluate the DWARF expression of ops in LOCDESC. */
struct loc_ctx {
	struct dw_syms *s;
	const struct dw_reader *r;
	uint64_t frame_base; /* valid when have_frame_base */
	int have_frame_base;
	Dwarf_Off frame_die;
	uint64_t func_low;
	uint64_t size;
};
/* Evaluate the NOPS operations of DESC, or the raw expression EXPR (LEN
 * bytes). AS_VALUE: the result is a value (a CFA, a frame base), not a
 * location. 0 with OUT set, or -errno. */
int sym_eval_locdesc(struct loc_ctx *c, Dwarf_Locdesc_c desc, Dwarf_Unsigned nops, int as_value,
		     struct dw_value *out);
int sym_eval_block(struct loc_ctx *c, const void *expr, size_t len, int as_value,
		   struct dw_value *out);
void sym_drop_error(Dwarf_Debug dbg, Dwarf_Error *err);

/* globals.c */
void sym_named_free(struct dw_syms *s);

/* cfa.c */
void sym_frames_free(struct dw_syms *s);

#endif /* HERMIT_DWARF_INTERNAL_H */
