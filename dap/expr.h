/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * C expressions as a debugger's user types them (DAP `evaluate`, watch
 * and hover, breakpoint conditions): parsed into a tree that the adapter
 * evaluates against the program's variables and types. The grammar is C's
 * expression grammar without assignment, comma, ?:, increments, sizeof of
 * an expression and function calls: names, integer, character and
 * floating literals, registers as gdb writes them ($rax, $pc), ( ), member
 * access (. and ->), indexing, unary * & - + ! ~, casts to a named type
 * ("(struct node *)p", "(unsigned long)x", "(myint_t)y"), and the binary
 * operators with C's precedence.
 */
#ifndef HERMIT_DAP_EXPR_H
#define HERMIT_DAP_EXPR_H

#include <stddef.h>
#include <stdint.h>

enum dap_expr_kind {
	DAP_EXPR_NAME,	 /* name */
	DAP_EXPR_REG,	 /* name: a register, without its '$' */
	DAP_EXPR_INT,	 /* ival (uval for unsigned literals) */
	DAP_EXPR_FLOAT,	 /* fval */
	DAP_EXPR_MEMBER, /* a.name */
	DAP_EXPR_ARROW,	 /* a->name */
	DAP_EXPR_INDEX,	 /* a[b] */
	DAP_EXPR_UNARY,	 /* op a: '*', '&', '-', '+', '!', '~' */
	DAP_EXPR_CAST,	 /* (type) a */
	DAP_EXPR_BINARY, /* a op b */
};

/* Binary operators that are two characters, as ops. */
enum {
	DAP_OP_SHL = 256, /* << */
	DAP_OP_SHR,	  /* >> */
	DAP_OP_LE,	  /* <= */
	DAP_OP_GE,	  /* >= */
	DAP_OP_EQ,	  /* == */
	DAP_OP_NE,	  /* != */
	DAP_OP_AND,	  /* && */
	DAP_OP_OR,	  /* || */
};

/* A type as a cast names it: "struct node" with 1 pointer level. */
struct dap_type_name {
	char *base;	   /* "int", "unsigned long", "struct node", "myint_t" */
	unsigned pointers; /* how many '*' follow it */
};

struct dap_expr {
	enum dap_expr_kind kind;
	int op;			   /* the operator of UNARY and BINARY */
	char *name;		   /* NAME, REG, MEMBER, ARROW */
	int is_unsigned;	   /* INT: a u suffix, or too large for long */
	int is_char;		   /* INT: a character literal */
	int64_t ival;		   /* INT */
	double fval;		   /* FLOAT */
	struct dap_type_name type; /* CAST */
	struct dap_expr *a, *b;	   /* operands */
};

/* Whether NAME is a type's name (a typedef, or a struct, union or enum
 * tag when TAG is set); the parser needs it to tell "(t)x" from "(v)". */
typedef int (*dap_is_type_fn)(void *arg, const char *name, int tag);

/*
 * Parse TEXT. Returns the tree (free with dap_expr_free), or NULL with a
 * one-line message in ERR (ERRLEN bytes) naming what was expected where.
 * IS_TYPE may be NULL: then only C's own type names and struct/union/enum
 * tags are types.
 */
struct dap_expr *dap_expr_parse(const char *text, dap_is_type_fn is_type, void *arg, char *err,
				size_t errlen);
void dap_expr_free(struct dap_expr *e);

/* The tree written back as C, fully parenthesised: for tests and error
 * messages. Returns a malloc'ed string. */
char *dap_expr_format(const struct dap_expr *e);

#endif
