/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the planner's files share (patch.c: the choice of ranges and the
 * plan; plandecode.c: what each instruction is; planelf.c: the ELF file,
 * its symbols and jump tables): the state of one plan while it is made,
 * and the few functions one file calls in another. Private to dwarf/.
 */
#ifndef HERMIT_DWARF_PLANSTATE_H
#define HERMIT_DWARF_PLANSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "dwarf/dwarf.h"

/* What the plan knows of one decoded instruction. */
enum {
	I_SITE = 1,    /* counts a tick */
	I_MOVABLE = 2, /* may run relocated in a trampoline as a neighbour */
	I_ENDS = 4,    /* control does not fall through (jmp, ret) */
	I_CALL = 8,    /* a call: its return address is an entry point */
	I_RELOC = 16,  /* as a site, it can be re-encoded elsewhere */
	I_CHAOS = 32,  /* a site only because chaos picked it */
	I_PAD = 64,    /* dead padding (struct pad) */
	I_FLAGS = 128, /* writes every status flag and reads none */
};

struct decoded {
	uint64_t addr;
	uint64_t target; /* a direct branch's */
	uint8_t len;
	uint8_t flags;
};

/* As it is kept, a few for every byte of code (a page of memory costs more
 * than planning its instructions): the address, as an offset in the
 * segment, and a site's target in the list of sites. */
struct insn {
	uint32_t off;
	uint8_t len;
	uint8_t flags;
	uint8_t mark; /* M_*: the decode's M_ENDBR, plan_finish's others */
};

enum {
	M_COVERED = 1, /* in a range */
	M_JUMP = 2,    /* a jump's range starts here */
	M_ENDBR = 4,   /* an endbr64 (the decode's) */
	M_DATA = 8,    /* data in the code, taken for an instruction */
	M_NAMES = 16,  /* names an address in the segment (a struct ref's from) */
};

/* An instruction (in in) reads or takes the address TO, rip-relative. */
struct ref {
	uint64_t to;
	size_t from;
	uint8_t lea; /* the address is only taken, not read or written */
	uint8_t use, next; /* (patch.c's leave_data_alone: this round's, the next's) */
};

struct site {
	size_t i;	 /* in in */
	uint64_t target; /* a direct branch's */
};

/* Dead padding: bytes after a jump or return that nothing reaches (nops,
 * int3s, bytes that do not decode) up to the next instruction. A short
 * branch that no jump can take may point into it instead, at a 5-byte
 * jump to its trampoline. */
struct pad {
	uint64_t start, end;
};

struct plan_state {
	struct insn *in;
	size_t n, cap;
	uint8_t *targets;   /* a bit per byte of the segment: an entry point there */
	uint8_t *direct;    /* the same: a direct branch or call goes there */
	uint8_t *starts;    /* the same: an instruction starts there */
	uint8_t *syms;	    /* the same: a symbol starts there (known before the decode) */
	uint8_t *funcs;	    /* the same: a function symbol, or a code section, starts there */
	uint8_t *called;    /* the same: a direct call goes there */
	uint8_t *fwd;	    /* the same: a direct branch or call from below goes there */
	struct ref *refs;   /* addresses in the segment that instructions read or take,
			     * in the order of the instructions */
	size_t nrefs, cap_refs;
	int names;	    /* the instruction being decoded names one */
	struct pad *objects; /* data symbols (STT_OBJECT) in the segment */
	size_t nobjects, cap_objects;
	struct site *sites; /* those decoded as sites, in order */
	size_t nsites, cap_sites;
	int unordered;	     /* in is not in address order (starts is not used) */
	uint64_t base, size; /* the segment */
	uint64_t seed;
	unsigned density;
	int after_end;	  /* the previous instruction does not fall through, or pads */
	int dead;	  /* in dead padding (struct pad) */
	struct pad *pads; /* by address */
	size_t npads, cap_pads;
	uint64_t *tables; /* rip-relative addresses taken (lea): jump tables? */
	size_t ntables, cap_tables;
	struct {
		uint64_t addr;
		size_t index; /* of the lea */
	} recent[4];	      /* the last rip-relative leas */
	size_t nrecent;
	/* The last rip-relative lea into each general register (in address
	 * order, not control flow): a table's base is often taken once,
	 * before the loop whose switch indexes it (sqlite3_complete). */
	uint64_t lea_into[16];
	struct {
		uint64_t addr;
		size_t index; /* of the movslq */
	} indexed[4];	      /* the last movslq (%base,%index,4) from such a base */
	size_t nindexed;
	struct {
		uint64_t addr; /* jmp *disp(,%reg,8): a table of absolute addresses */
	} * abs_tables;
	size_t nabs, cap_abs;
};

/* BITMAP's bit for address A of the segment (one of plan_state's). */
static inline int plan_bit(const uint8_t *bitmap, const struct plan_state *s, uint64_t a)
{
	return (bitmap[(a - s->base) / 8] >> ((a - s->base) % 8)) & 1;
}

/* Whether A is in S's segment, its end included (a section's end is an
 * entry point: the bitmaps have a bit for it). */
static inline int plan_holds(const struct plan_state *s, uint64_t a)
{
	return a >= s->base && a - s->base <= s->size;
}

/* Sets BITMAP's bit for A, when S's segment holds A. */
static inline void plan_set_bit(uint8_t *bitmap, const struct plan_state *s, uint64_t a)
{
	if (plan_holds(s, a))
		bitmap[(a - s->base) / 8] |= (uint8_t)(1u << ((a - s->base) % 8));
}

/* The address of instruction K. */
static inline uint64_t ia(const struct plan_state *s, size_t k)
{
	return s->base + s->in[k].off;
}

/* Bytes of code read at a time: a section is not read whole (libc's .text
 * would be 370 pages of new memory, a page fault each). */
#define DECODE_CHUNK 65536

/* plandecode.c */

/* Prepares S for the segment [BASE, BASE + SIZE), whose entry points are
 * kept (no range ever crosses out of it): its bitmaps and its instructions'
 * array, freed by plan_finish. */
void plan_targets_init(struct plan_state *s, uint64_t base, uint64_t size);
/* A known entry point at A (a branch target, a return address, a symbol);
 * one outside the segment is dropped. */
void plan_add_target(struct plan_state *s, uint64_t a);
/* A symbol at A, known before the decode: an entry point, and where the
 * decode starts again if an instruction it decoded would run over A. FUNC:
 * a function's (or a code section's start), so code, where data found in
 * the code (patch.c) ends. */
void plan_add_symbol(struct plan_state *s, uint64_t a, int func);
/* The same for the target A of a direct branch or call at FROM, also
 * kept apart (and apart again when it is forward: A > FROM). */
void plan_add_direct(struct plan_state *s, uint64_t from, uint64_t a);
/* Decodes the LEN bytes of BUF, a section at VADDR within S's segment,
 * into S: 0, or -EINVAL when Zydis cannot start. */
int plan_decode_section(struct plan_state *s, const unsigned char *buf, size_t len, uint64_t vaddr);
/* The same for the LEN bytes at offset FOFF of file FD, read a chunk at a
 * time into BUF (DECODE_CHUNK bytes): 0, or -errno (-EIO when the file
 * ends early). */
int plan_decode_section_fd(struct plan_state *s, int fd, uint64_t foff, size_t len, uint64_t vaddr,
			   unsigned char *buf);

/* patch.c */

/* Free what a decode of S made, when it fails before plan_finish. */
void plan_state_free(struct plan_state *s);
/* The index of the first instruction at or after ADDR, s->n when none is
 * (S's instructions in address order). */
size_t plan_insn_from(const struct plan_state *s, uint64_t addr);
/* The index of the instruction at ADDR, or s->n when none starts there. */
size_t plan_insn_at(const struct plan_state *s, uint64_t addr);
/* Makes PLAN's ranges from S's sites once every entry point is known, and
 * frees what S holds. */
void plan_finish(struct plan_state *s, struct dw_patch_plan *plan);

#endif
