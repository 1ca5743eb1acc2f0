/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What hermit-dap knows of the program's code: every module the guest has
 * loaded (dap/frames.h: the program, ld.so, the libraries on ld.so's list),
 * read from the recording's copies in files/ (manifest.json), with their
 * ELF symbols and, where they have it, their DWARF (dwarf/: lines,
 * functions, inlined frames, variables). Every address<->source question
 * the adapter asks goes through this interface. Addresses here are
 * run-time; the load bias of each module is applied inside.
 */
#ifndef HERMIT_DAP_SOURCE_H
#define HERMIT_DAP_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "dap/frames.h"
#include "dwarf/dwarf.h"

struct dap_source;

/* A source position. */
struct dap_source_loc {
	const char *path; /* as recorded in the debug info (valid while S lives) */
	int line, column;
};

/*
 * The program PROGRAM (its path as the guest ran it), with the copies of
 * RECORDING_DIR's files/ read in place of the host's files where the
 * manifest names them (NULL: the host's files). 0 and *OUT, or -errno
 * (-ENOEXEC: not a 64-bit ELF).
 */
int dap_source_open(const char *program, const char *recording_dir, struct dap_source **out);
void dap_source_free(struct dap_source *s);
/* The program runs with its entry point at ENTRY (AT_ENTRY): until the
 * next refresh, the program alone, moved there. */
void dap_source_set_entry(struct dap_source *s, uint64_t entry);
/* At a stop: the modules loaded now, from the process's AUXV and the
 * dynamic linker's list read through T. 0 or -errno (the last list kept). */
int dap_source_refresh(struct dap_source *s, const struct dap_target *t, const void *auxv,
		       size_t auxv_len);
/* The modules, as of the last refresh. */
const struct dap_modules *dap_source_modules(const struct dap_source *s);
/*
 * Open the symbols of one more of the recording's ELF files (manifest
 * order: the program, ld.so, the libraries) that are not open yet, as the
 * first question about them would: 1 when there was one, 0 when none is
 * left. The adapter calls it while it has nothing else to do, so that the
 * first stop in a library does not wait for its DWARF (libc6-dbg's
 * compressed .debug_info alone takes libdwarf 55 ms to inflate).
 */
int dap_source_prefetch(struct dap_source *s);

/* The function that holds ADDR (DWARF's, else an ELF symbol): 0 with its
 * *NAME (valid while S lives) and *START, or -ENOENT. */
int dap_source_function(const struct dap_source *s, uint64_t addr, const char **name,
			uint64_t *start);
/* The address of the symbol NAME (a function or a global object; the
 * program's first) and its size: 0, or -ENOENT. */
int dap_source_symbol(const struct dap_source *s, const char *name, uint64_t *addr, uint64_t *size);
/* Where a breakpoint on function NAME goes (after its prologue, by DWARF;
 * else the ELF symbol's address): 0, or -ENOENT. */
int dap_source_function_entry(const struct dap_source *s, const char *name, uint64_t *addr);
/* Whether any module has DWARF line tables. */
int dap_source_has_lines(const struct dap_source *s);
/* The source position of ADDR: 0, or -ENOENT. */
int dap_source_line(const struct dap_source *s, uint64_t addr, struct dap_source_loc *loc);
/* The addresses of the source line holding ADDR, [*LO, *HI): 0 or -ENOENT. */
int dap_source_line_range(const struct dap_source *s, uint64_t addr, uint64_t *lo, uint64_t *hi);
/* Where a breakpoint on PATH:LINE goes, in every module with DWARF: up to
 * MAX addresses in ADDRS, the line it moved to in *LINE_OUT; the count
 * (may exceed MAX), or -ENOENT. */
int dap_source_line_addrs(const struct dap_source *s, const char *path, unsigned line,
			  uint64_t *addrs, size_t max, unsigned *line_out);
/* Source file I (0..) of the modules' line tables, or NULL past the last. */
const char *dap_source_file(const struct dap_source *s, size_t i);
/* The guest's path of NAME, a module's name: the original of a copy in
 * the recording's files/ (the program, as `hermit replay` names it), or
 * NAME itself. */
const char *dap_source_guest_path(const struct dap_source *s, const char *name);
/* The DWARF of the module holding ADDR and that module's bias, or NULL. */
struct dw_syms *dap_source_syms_at(const struct dap_source *s, uint64_t addr, uint64_t *bias);

#endif /* HERMIT_DAP_SOURCE_H */
