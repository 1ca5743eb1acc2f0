/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What hermit-dap knows of the program's code: addresses to functions and
 * (later) to source lines, and names to addresses. Every address<->source
 * question the adapter asks goes through this interface, so that DWARF
 * (dwarf/: line tables, inlined frames, variables) plugs in behind it
 * without the request handlers changing. Today's implementation
 * (source.c) reads only the ELF symbol tables of the program, with
 * libelf: function names, and global objects with their sizes.
 */
#ifndef HERMIT_DAP_SOURCE_H
#define HERMIT_DAP_SOURCE_H

#include <stddef.h>
#include <stdint.h>

struct dap_source;

/* A source position (the DWARF round fills it). */
struct dap_source_loc {
	const char *path; /* as recorded in the debug info */
	int line, column;
};

/* The program at PATH: 0 and *OUT, or -errno (-ENOEXEC: not a 64-bit ELF). */
int dap_source_open(const char *path, struct dap_source **out);
void dap_source_free(struct dap_source *s);
/* The program runs with its entry point at ENTRY (AT_ENTRY of its auxv):
 * a position-independent one is moved there. */
void dap_source_set_entry(struct dap_source *s, uint64_t entry);
/* The function that holds ADDR (run-time): 0 with its *NAME (valid while S
 * lives) and *START, or -ENOENT. */
int dap_source_function(const struct dap_source *s, uint64_t addr, const char **name,
			uint64_t *start);
/* The run-time address of the symbol NAME (a function or a global object)
 * and its size: 0, or -ENOENT. */
int dap_source_symbol(const struct dap_source *s, const char *name, uint64_t *addr, uint64_t *size);
/* Whether line questions can be answered (DWARF line tables): not yet. */
int dap_source_has_lines(const struct dap_source *s);
/* The source position of ADDR: 0, or -ENOSYS until dwarf/ has line tables. */
int dap_source_line(const struct dap_source *s, uint64_t addr, struct dap_source_loc *loc);

#endif /* HERMIT_DAP_SOURCE_H */
