/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Values as the adapter shows them (DAP `variables`, `evaluate`, hovers):
 * a value is where it lives (memory, or bytes that came from registers or
 * were computed) and its type, a DWARF type with the pointer levels and
 * array dimensions that expressions added or took away (&x, (T *)p,
 * grid[1]), or a scalar the evaluator computed. Values are formatted as
 * gdb prints them and expand into children (members, elements, what a
 * pointer points at) for lazy expansion in the client.
 */
#ifndef HERMIT_DAP_VALUE_H
#define HERMIT_DAP_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "dap/expr.h"
#include "dwarf/dwarf.h"

/* A scalar the evaluator made, not a DWARF type's. */
enum dap_synth {
	DAP_SYN_NONE = 0,
	DAP_SYN_LONG,  /* long: integer literals, arithmetic, comparisons */
	DAP_SYN_ULONG, /* unsigned long: registers, unsigned arithmetic */
	DAP_SYN_DOUBLE,
	DAP_SYN_ADDR, /* an address (pc, sp): unsigned long, printed in hex */
};

struct dap_vtype {
	uint64_t type;	      /* DWARF handle; 0: void (or a synthetic scalar) */
	unsigned ptr;	      /* pointer levels over TYPE */
	unsigned dims;	      /* leading array dimensions of TYPE indexed away */
	enum dap_synth synth; /* set: the value is this scalar, TYPE unused */
	/* a cast to a base type with no DWARF name (e.g. "(unsigned char)x"
	 * where the program never used unsigned char): its size and sign */
	unsigned cast_size;
	int cast_signed, cast_float;
	const char *cast_name; /* C's name for it: a string constant */
};

struct dap_value {
	struct dw_syms *syms; /* whose handles the type's are */
	struct dap_vtype vt;
	int in_memory; /* lives at addr (run-time) */
	uint64_t addr;
	size_t size;			   /* bytes of the value */
	unsigned char bytes[DW_VALUE_MAX]; /* not in memory: the value */
	unsigned bit_size;		   /* a bitfield: its bits at bit_offset in bytes/addr */
	uint64_t bit_offset;
	const char *unavailable; /* optimized out (and why); NULL when readable */
};

/* Where values are read: the frame's reader (memory, registers). */
struct dap_eval_env {
	struct dw_syms *syms;	   /* the file of the frame's function */
	const struct dw_reader *r; /* the frame: pc (link-time), cfa, bias, readers */
	int depth;		   /* its inline depth, as dw_frames_at counts */
	/* Names neither the frame nor SYMS's globals have: the globals of
	 * the process's other files (NULL: none). 0 with OUT, 1 when there
	 * is no such global, -1 with a message in ERR. */
	int (*global)(void *arg, const char *name, struct dap_value *out, char *err, size_t errlen);
	void *global_arg;
};

/* Evaluate E in ENV into OUT. 0, or -1 with a one-line message in ERR
 * ("no symbol 'x' in current context", "cannot take the address of a
 * register value", ...). */
int dap_eval(const struct dap_expr *e, const struct dap_eval_env *env, struct dap_value *out,
	     char *err, size_t errlen);

/* Parse and evaluate TEXT. */
int dap_eval_text(const char *text, const struct dap_eval_env *env, struct dap_value *out,
		  char *err, size_t errlen);

/* The value of VAR (a parameter or local from dw_vars_at, or a global
 * from dw_global_by_name) in ENV's frame: what a name evaluates to,
 * without looking it up. 0, or -1 with a message in ERR. */
int dap_value_of_var(const struct dap_eval_env *env, const struct dw_var *var,
		     struct dap_value *out, char *err, size_t errlen);

/* The value as gdb prints it: 42, -1.5, 0x5555... "text", {x = 1, y = 2},
 * {1, 2, 3}, GREEN, <optimized out>. Returns a malloc'ed string. */
char *dap_value_format(const struct dap_value *v, const struct dap_eval_env *env);

/* Its type as C writes it: "int", "struct node *", "int [3][4]". Returns a
 * malloc'ed string. */
char *dap_value_type_name(const struct dap_value *v);

/* How many children V expands into: a struct's or union's members, an
 * array's elements, 1 for a pointer to something other than void or a
 * function (what it points at); 0 for a scalar. */
size_t dap_value_children(const struct dap_value *v);

/* Child I of V (as dap_value_children counts) in OUT, its name in NAME
 * ("x", "[3]", "*p"). 0 or -1 with a message in ERR. */
int dap_value_child(const struct dap_value *v, const struct dap_eval_env *env, size_t i,
		    struct dap_value *out, char *name, size_t namelen, char *err, size_t errlen);

/* Whether V is a scalar that can be read as a number, and its value as
 * unsigned bits (for conditions and data breakpoints: truth is != 0). */
int dap_value_truth(const struct dap_value *v, const struct dap_eval_env *env, int *truth,
		    char *err, size_t errlen);

#endif
