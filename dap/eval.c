/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Evaluating a parsed C expression (dap/expr.h) in a stopped frame: names
 * are the frame's parameters and locals (dw_vars_at, innermost first),
 * then the file's globals; casts name DWARF types or C's own; arithmetic
 * follows C's usual conversions on long, unsigned long and double, with
 * pointer arithmetic scaled by the pointee's size. Nothing is written to
 * the target: assignment is not in the grammar.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "dap/value.h"
#include "dap/value_internal.h"

#define MAX_VARS 512

static int eval(const struct dap_expr *e, const struct dap_eval_env *env, struct dap_value *out,
		char *err, size_t errlen);

static void scalar(struct dap_value *out, struct dw_syms *s, enum dap_synth kind, const void *v)
{
	memset(out, 0, sizeof(*out));
	out->syms = s;
	out->vt.synth = kind;
	out->size = 8;
	memcpy(out->bytes, v, 8);
}

static void from_num(struct dap_value *out, struct dw_syms *s, const struct dap_num *n)
{
	scalar(out, s, n->kind,
	       n->kind == DAP_SYN_DOUBLE ? (const void *)&n->d : (const void *)&n->u);
}

static int from_var(const struct dap_eval_env *env, const struct dw_var *var, struct dap_value *out,
		    char *err, size_t errlen)
{
	struct dw_value val;
	const struct dw_type *t;
	uint64_t size = 0;

	memset(out, 0, sizeof(*out));
	out->syms = env->syms;
	out->vt.type = var->type;
	if (dw_type_get(env->syms, var->type, &t) == 0)
		size = dap_vt_size(env->syms, &out->vt);
	(void)t;
	out->size = size;
	if (dw_var_read(env->syms, var, env->r, size, &val) < 0) {
		dap_errf(err, errlen, "cannot read '%s'", var->name);
		return -1;
	}
	switch (val.kind) {
	case DW_VALUE_OPTIMIZED_OUT:
		out->unavailable = val.why ? val.why : "optimized out";
		break;
	case DW_VALUE_MEMORY:
		out->in_memory = 1;
		out->addr = val.addr;
		break;
	case DW_VALUE_BYTES:
		memcpy(out->bytes, val.bytes,
		       val.size < sizeof(out->bytes) ? val.size : sizeof(out->bytes));
		if (val.partial)
			out->unavailable = NULL; /* what is there reads; the rest is zeros */
		break;
	}
	return 0;
}

int dap_value_of_var(const struct dap_eval_env *env, const struct dw_var *var,
		     struct dap_value *out, char *err, size_t errlen)
{
	return from_var(env, var, out, err, errlen);
}

static int name(const struct dap_expr *e, const struct dap_eval_env *env, struct dap_value *out,
		char *err, size_t errlen)
{
	struct dw_var *vars = xcalloc(MAX_VARS, sizeof(*vars)), g;
	int n = dw_vars_at(env->syms, env->r->pc, env->depth, vars, MAX_VARS), rc;

	for (int i = 0; i < n && i < MAX_VARS; i++)
		if (vars[i].name && strcmp(vars[i].name, e->name) == 0) {
			rc = from_var(env, &vars[i], out, err, errlen);
			free(vars);
			return rc;
		}
	free(vars);
	if (dw_global_by_name(env->syms, e->name, &g) == 0)
		return from_var(env, &g, out, err, errlen);
	if (env->global) {
		rc = env->global(env->global_arg, e->name, out, err, errlen);
		if (rc <= 0)
			return rc;
	}
	dap_errf(err, errlen, "no symbol '%s' in current context", e->name);
	return -1;
}

static int reg(const struct dap_expr *e, const struct dap_eval_env *env, struct dap_value *out,
	       char *err, size_t errlen)
{
	static const struct {
		const char *name;
		int regno;
		int addr;
	} regs[] = {
		{ "rax", 0, 0 },  { "rdx", 1, 0 },  { "rcx", 2, 0 },  { "rbx", 3, 0 },
		{ "rsi", 4, 0 },  { "rdi", 5, 0 },  { "rbp", 6, 1 },  { "rsp", 7, 1 },
		{ "r8", 8, 0 },	  { "r9", 9, 0 },   { "r10", 10, 0 }, { "r11", 11, 0 },
		{ "r12", 12, 0 }, { "r13", 13, 0 }, { "r14", 14, 0 }, { "r15", 15, 0 },
		{ "rip", 16, 1 }, { "pc", 16, 1 },  { "sp", 7, 1 },   { "fp", 6, 1 },
	};

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		uint64_t v;

		if (strcmp(regs[i].name, e->name) != 0)
			continue;
		if (env->r->reg(env->r->arg, regs[i].regno, &v) < 0) {
			dap_errf(err, errlen, "register $%s is not available in this frame",
				 e->name);
			return -1;
		}
		scalar(out, env->syms, regs[i].addr ? DAP_SYN_ADDR : DAP_SYN_LONG, &v);
		return 0;
	}
	dap_errf(err, errlen, "no register '$%s'", e->name);
	return -1;
}

/* Member NAME of struct or union V, looking into anonymous members. */
static int member(const struct dap_value *v, const struct dap_eval_env *env, const char *name,
		  struct dap_value *out, char *err, size_t errlen, int depth)
{
	enum dap_vkind k = dap_vt_kind(v->syms, &v->vt);
	size_t n;

	if (k != DAP_VK_STRUCT && k != DAP_VK_UNION) {
		if (depth == 0)
			dap_errf(
				err, errlen,
				k == DAP_VK_POINTER
					? "request for member '%s' in a pointer (use '->')"
					: "request for member '%s' in something not a structure or union",
				name);
		return -1;
	}
	n = dap_value_children(v);
	for (size_t i = 0; i < n; i++) {
		const struct dw_type *t = dap_vt_top(v->syms, &v->vt);
		const struct dw_member *m = &t->members[i];
		char cname[8];

		if (m->name && strcmp(m->name, name) == 0)
			return dap_value_child(v, env, i, out, cname, sizeof(cname), err, errlen);
		if (!m->name && depth < 8) {
			struct dap_value inner;

			if (dap_value_child(v, env, i, &inner, cname, sizeof(cname), err, errlen) ==
				    0 &&
			    member(&inner, env, name, out, err, errlen, depth + 1) == 0)
				return 0;
		}
	}
	if (depth == 0) {
		char *tn = dap_value_type_name(v);

		dap_errf(err, errlen, "there is no member named '%s' in '%s'", name, tn);
		free(tn);
	}
	return -1;
}

/* What V is as a pointer's address, and the size of what it points at
 * (1 for void, as gdb does). */
static int pointer(const struct dap_value *v, const struct dap_eval_env *env, uint64_t *addr,
		   uint64_t *elem, struct dap_vtype *to, char *err, size_t errlen)
{
	enum dap_vkind k = dap_vt_kind(v->syms, &v->vt);
	struct dap_num n;

	if (k != DAP_VK_POINTER && k != DAP_VK_ARRAY)
		return -1;
	if (dap_vt_pointee(v->syms, &v->vt, to) < 0 || dap_value_num(v, env, &n, err, errlen) < 0)
		return -1;
	*addr = n.u;
	*elem = dap_vt_size(v->syms, to);
	if (*elem == 0)
		*elem = 1;
	return 0;
}

static int index_value(const struct dap_value *a, const struct dap_value *b,
		       const struct dap_eval_env *env, struct dap_value *out, char *err,
		       size_t errlen)
{
	struct dap_num i;
	struct dap_vtype to;
	uint64_t base, elem;
	enum dap_vkind k = dap_vt_kind(a->syms, &a->vt);

	if (dap_value_num(b, env, &i, err, errlen) < 0)
		return -1;
	if (i.kind == DAP_SYN_DOUBLE) {
		dap_errf(err, errlen, "array subscript is not an integer");
		return -1;
	}
	if (k == DAP_VK_ARRAY && !a->in_memory) {
		/* An array in registers or computed bytes: index its bytes. */
		dap_vt_element(a->syms, &a->vt, &to);
		elem = dap_vt_size(a->syms, &to);
		if (i.l < 0 || (uint64_t)i.l * elem + elem > a->size) {
			dap_errf(err, errlen, "array index %" PRId64 " out of bounds", i.l);
			return -1;
		}
		return dap_value_part(a, &to, (uint64_t)i.l * elem, 0, 0, out, err, errlen);
	}
	if (pointer(a, env, &base, &elem, &to, err, errlen) < 0) {
		char *tn = dap_value_type_name(a);

		if (!err || !*err)
			dap_errf(err, errlen, "cannot subscript something of type '%s'", tn);
		else
			dap_errf(err, errlen, "cannot subscript something of type '%s'", tn);
		free(tn);
		return -1;
	}
	if (dap_vt_kind(a->syms, &to) == DAP_VK_VOID) {
		dap_errf(err, errlen, "cannot subscript a void pointer");
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->syms = a->syms;
	out->vt = to;
	out->in_memory = 1;
	out->addr = base + (uint64_t)i.l * elem;
	out->size = dap_vt_size(a->syms, &to);
	return 0;
}

/* C's own base types in a cast, by their words. */
static int base_cast(const char *words, struct dap_vtype *vt)
{
	static const struct {
		const char *words;
		unsigned size;
		int sgn, flt;
		const char *name;
	} bases[] = {
		{ "char", 1, 1, 0, "char" },
		{ "signed char", 1, 1, 0, "signed char" },
		{ "unsigned char", 1, 0, 0, "unsigned char" },
		{ "short", 2, 1, 0, "short" },
		{ "short int", 2, 1, 0, "short" },
		{ "signed short", 2, 1, 0, "short" },
		{ "unsigned short", 2, 0, 0, "unsigned short" },
		{ "unsigned short int", 2, 0, 0, "unsigned short" },
		{ "int", 4, 1, 0, "int" },
		{ "signed", 4, 1, 0, "int" },
		{ "signed int", 4, 1, 0, "int" },
		{ "unsigned", 4, 0, 0, "unsigned int" },
		{ "unsigned int", 4, 0, 0, "unsigned int" },
		{ "long", 8, 1, 0, "long" },
		{ "long int", 8, 1, 0, "long" },
		{ "signed long", 8, 1, 0, "long" },
		{ "unsigned long", 8, 0, 0, "unsigned long" },
		{ "unsigned long int", 8, 0, 0, "unsigned long" },
		{ "long long", 8, 1, 0, "long long" },
		{ "long long int", 8, 1, 0, "long long" },
		{ "unsigned long long", 8, 0, 0, "unsigned long long" },
		{ "unsigned long long int", 8, 0, 0, "unsigned long long" },
		{ "_Bool", 1, 0, 0, "_Bool" },
		{ "float", 4, 1, 1, "float" },
		{ "double", 8, 1, 1, "double" },
	};
	char buf[128];
	size_t n = 0;

	/* const and volatile change nothing a read sees. */
	for (const char *w = words; *w;) {
		size_t len = strcspn(w, " ");

		if (!((len == 5 && !strncmp(w, "const", 5)) ||
		      (len == 8 && !strncmp(w, "volatile", 8)))) {
			if (n + len + 2 > sizeof(buf))
				return -1;
			if (n)
				buf[n++] = ' ';
			memcpy(buf + n, w, len);
			n += len;
		}
		w += len;
		while (*w == ' ')
			w++;
	}
	buf[n] = 0;
	memset(vt, 0, sizeof(*vt));
	if (strcmp(buf, "void") == 0)
		return 0;
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		if (strcmp(buf, bases[i].words) == 0) {
			vt->cast_size = bases[i].size;
			vt->cast_signed = bases[i].sgn;
			vt->cast_float = bases[i].flt;
			vt->cast_name = bases[i].name;
			return 0;
		}
	return -1;
}

static int cast_type(const struct dap_type_name *tn, const struct dap_eval_env *env,
		     struct dap_vtype *vt, char *err, size_t errlen)
{
	const char *b = tn->base;
	uint64_t type;
	int tag = 0;

	memset(vt, 0, sizeof(*vt));
	if (!strncmp(b, "struct ", 7) || !strncmp(b, "union ", 6) || !strncmp(b, "enum ", 5)) {
		tag = b[0];
		b = strchr(b, ' ') + 1;
		if (dw_type_by_name(env->syms, b, tag, &type) < 0) {
			dap_errf(err, errlen, "no %s named '%s'",
				 tag == 's'   ? "struct"
				 : tag == 'u' ? "union"
					      : "enum",
				 b);
			return -1;
		}
		vt->type = type;
	} else if (base_cast(b, vt) < 0) {
		if (dw_type_by_name(env->syms, b, 0, &type) < 0) {
			dap_errf(err, errlen, "no type named '%s'", b);
			return -1;
		}
		vt->type = type;
	}
	vt->ptr = tn->pointers;
	return 0;
}

static int cast(const struct dap_expr *e, const struct dap_eval_env *env, struct dap_value *out,
		char *err, size_t errlen)
{
	struct dap_value a;
	struct dap_vtype vt;
	struct dap_num n;
	enum dap_vkind k;
	uint64_t size;

	if (cast_type(&e->type, env, &vt, err, errlen) < 0 || eval(e->a, env, &a, err, errlen) < 0)
		return -1;
	k = dap_vt_kind(env->syms, &vt);
	if (k == DAP_VK_STRUCT || k == DAP_VK_UNION || k == DAP_VK_ARRAY) {
		/* gdb allows a same-size reinterpretation of what is in memory. */
		if (!a.in_memory) {
			dap_errf(err, errlen, "invalid cast");
			return -1;
		}
		*out = a;
		out->vt = vt;
		out->size = dap_vt_size(env->syms, &vt);
		return 0;
	}
	if (k == DAP_VK_VOID) {
		dap_errf(err, errlen, "cannot cast to void");
		return -1;
	}
	if (dap_value_num(&a, env, &n, err, errlen) < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	out->syms = env->syms;
	out->vt = vt;
	size = dap_vt_size(env->syms, &vt);
	out->size = size;
	if (size == 0 || size > 8) {
		dap_errf(err, errlen, "invalid cast");
		return -1;
	}
	{
		const struct dw_type *t = dap_vt_top(env->syms, &vt);
		int flt = vt.cast_float ||
			  (t && t->kind == DW_TYPE_BASE && t->encoding == DW_ENC_FLOAT);

		if (k == DAP_VK_POINTER && n.kind == DAP_SYN_DOUBLE) {
			dap_errf(err, errlen, "invalid cast of a floating value to a pointer");
			return -1;
		}
		if (flt) {
			double d = n.kind == DAP_SYN_DOUBLE ? n.d
				   : n.kind == DAP_SYN_LONG ? (double)n.l
							    : (double)n.u;

			if (size == 4) {
				float f = (float)d;

				memcpy(out->bytes, &f, 4);
			} else {
				memcpy(out->bytes, &d, 8);
			}
		} else {
			uint64_t u = n.kind == DAP_SYN_DOUBLE ? (uint64_t)(int64_t)n.d : n.u;

			if (vt.cast_name && !strcmp(vt.cast_name, "_Bool"))
				u = u != 0;
			memcpy(out->bytes, &u, size); /* little-endian: the low bytes */
		}
	}
	return 0;
}

static int unary(const struct dap_expr *e, const struct dap_eval_env *env, struct dap_value *out,
		 char *err, size_t errlen)
{
	struct dap_value a;
	struct dap_num n;

	if (eval(e->a, env, &a, err, errlen) < 0)
		return -1;
	switch (e->op) {
	case '*':
		return dap_value_deref(&a, env, out, err, errlen);
	case '&':
		if (!a.in_memory || a.bit_size) {
			dap_errf(err, errlen,
				 a.bit_size ? "cannot take the address of a bitfield"
				 : a.unavailable
					 ? "cannot take the address of an optimized-out value"
					 : "cannot take the address of a value not in memory");
			return -1;
		}
		memset(out, 0, sizeof(*out));
		out->syms = a.syms;
		out->vt = a.vt;
		out->vt.ptr++;
		out->size = 8;
		memcpy(out->bytes, &a.addr, 8);
		return 0;
	default:
		break;
	}
	if (dap_value_num(&a, env, &n, err, errlen) < 0)
		return -1;
	switch (e->op) {
	case '+':
		break;
	case '-':
		if (n.kind == DAP_SYN_DOUBLE)
			n.d = -n.d;
		else
			n.u = 0 - n.u;
		break;
	case '~':
		if (n.kind == DAP_SYN_DOUBLE) {
			dap_errf(err, errlen, "invalid operand of '~'");
			return -1;
		}
		n.u = ~n.u;
		break;
	case '!':
		n.u = n.kind == DAP_SYN_DOUBLE ? n.d == 0 : n.u == 0;
		n.kind = DAP_SYN_LONG;
		break;
	}
	n.l = (int64_t)n.u;
	from_num(out, env->syms, &n);
	return 0;
}

static int compare(int op, int c)
{
	switch (op) {
	case '<':
		return c < 0;
	case '>':
		return c > 0;
	case DAP_OP_LE:
		return c <= 0;
	case DAP_OP_GE:
		return c >= 0;
	case DAP_OP_EQ:
		return c == 0;
	default:
		return c != 0; /* DAP_OP_NE */
	}
}

static int is_comparison(int op)
{
	return op == '<' || op == '>' || op == DAP_OP_LE || op == DAP_OP_GE || op == DAP_OP_EQ ||
	       op == DAP_OP_NE;
}

static int binary(const struct dap_expr *e, const struct dap_eval_env *env, struct dap_value *out,
		  char *err, size_t errlen)
{
	struct dap_value a, b;
	struct dap_num x, y, r;
	struct dap_vtype to;
	uint64_t pa, pb, ea, eb;
	int a_ptr, b_ptr;

	memset(&r, 0, sizeof(r));
	if (eval(e->a, env, &a, err, errlen) < 0)
		return -1;
	if (e->op == DAP_OP_AND || e->op == DAP_OP_OR) {
		int t;

		if (dap_value_truth(&a, env, &t, err, errlen) < 0)
			return -1;
		if (t == (e->op == DAP_OP_OR)) {
			r.kind = DAP_SYN_LONG;
			r.u = (uint64_t)t;
		} else {
			if (eval(e->b, env, &b, err, errlen) < 0 ||
			    dap_value_truth(&b, env, &t, err, errlen) < 0)
				return -1;
			r.kind = DAP_SYN_LONG;
			r.u = (uint64_t)t;
		}
		r.l = (int64_t)r.u;
		from_num(out, env->syms, &r);
		return 0;
	}
	if (eval(e->b, env, &b, err, errlen) < 0)
		return -1;
	/* Pointer arithmetic: p + i, i + p, p - i, p - q, comparisons. */
	a_ptr = pointer(&a, env, &pa, &ea, &to, NULL, 0) == 0;
	b_ptr = pointer(&b, env, &pb, &eb, &to, NULL, 0) == 0;
	if (a_ptr || b_ptr) {
		if (a_ptr && b_ptr && (e->op == '-' || is_comparison(e->op))) {
			r.kind = DAP_SYN_LONG;
			r.u = e->op == '-' ? (uint64_t)((int64_t)(pa - pb) / (int64_t)ea)
					   : (uint64_t)compare(e->op, pa < pb ? -1 : pa > pb);
		} else if ((e->op == '+' || e->op == '-') && a_ptr != b_ptr) {
			const struct dap_value *p = a_ptr ? &a : &b, *i = a_ptr ? &b : &a;
			uint64_t base = a_ptr ? pa : pb, elem = a_ptr ? ea : eb;
			struct dap_num k;

			if ((e->op == '-' && b_ptr) || dap_value_num(i, env, &k, err, errlen) < 0 ||
			    k.kind == DAP_SYN_DOUBLE) {
				dap_errf(err, errlen, "invalid operands to '%c'", e->op);
				return -1;
			}
			base += (e->op == '+' ? k.u : 0 - k.u) * elem;
			memset(out, 0, sizeof(*out));
			out->syms = p->syms;
			out->vt = p->vt;
			if (dap_vt_kind(p->syms, &p->vt) == DAP_VK_ARRAY) {
				/* a decayed array: a pointer to its element */
				dap_vt_element(p->syms, &p->vt, &out->vt);
				out->vt.ptr++;
			}
			out->size = 8;
			memcpy(out->bytes, &base, 8);
			return 0;
		} else if (is_comparison(e->op)) {
			/* a pointer against an integer (p == 0) */
			if (dap_value_num(&a, env, &x, err, errlen) < 0 ||
			    dap_value_num(&b, env, &y, err, errlen) < 0)
				return -1;
			r.kind = DAP_SYN_LONG;
			r.u = (uint64_t)compare(e->op, x.u < y.u ? -1 : x.u > y.u);
		} else {
			dap_errf(err, errlen, "invalid operands to a binary operator on pointers");
			return -1;
		}
		r.l = (int64_t)r.u;
		from_num(out, env->syms, &r);
		return 0;
	}
	if (dap_value_num(&a, env, &x, err, errlen) < 0 ||
	    dap_value_num(&b, env, &y, err, errlen) < 0)
		return -1;
	/* The usual arithmetic conversions, on our three kinds. */
	if (x.kind == DAP_SYN_DOUBLE || y.kind == DAP_SYN_DOUBLE) {
		double p = x.kind == DAP_SYN_DOUBLE ? x.d
			   : x.kind == DAP_SYN_LONG ? (double)x.l
						    : (double)x.u;
		double q = y.kind == DAP_SYN_DOUBLE ? y.d
			   : y.kind == DAP_SYN_LONG ? (double)y.l
						    : (double)y.u;

		r.kind = DAP_SYN_DOUBLE;
		switch (e->op) {
		case '+':
			r.d = p + q;
			break;
		case '-':
			r.d = p - q;
			break;
		case '*':
			r.d = p * q;
			break;
		case '/':
			r.d = p / q;
			break;
		default:
			if (is_comparison(e->op)) {
				r.kind = DAP_SYN_LONG;
				r.u = (uint64_t)compare(e->op, p < q ? -1 : p > q);
				break;
			}
			dap_errf(err, errlen, "invalid operands of floating type");
			return -1;
		}
	} else {
		int uns = x.kind == DAP_SYN_ULONG || y.kind == DAP_SYN_ULONG;

		r.kind = uns ? DAP_SYN_ULONG : DAP_SYN_LONG;
		if ((e->op == '/' || e->op == '%') && y.u == 0) {
			dap_errf(err, errlen, "division by zero");
			return -1;
		}
		switch (e->op) {
		case '+':
			r.u = x.u + y.u;
			break;
		case '-':
			r.u = x.u - y.u;
			break;
		case '*':
			r.u = x.u * y.u;
			break;
		case '/':
			if (uns)
				r.u = x.u / y.u;
			else if (x.l == INT64_MIN && y.l == -1)
				r.u = x.u;
			else
				r.u = (uint64_t)(x.l / y.l);
			break;
		case '%':
			if (uns)
				r.u = x.u % y.u;
			else if (y.l == -1)
				r.u = 0;
			else
				r.u = (uint64_t)(x.l % y.l);
			break;
		case DAP_OP_SHL:
			r.u = y.u >= 64 ? 0 : x.u << y.u;
			break;
		case DAP_OP_SHR:
			r.u = y.u >= 64 ? (uns || x.l >= 0 ? 0 : UINT64_MAX)
			      : uns	? x.u >> y.u
					: (uint64_t)(x.l >> y.u);
			break;
		case '&':
			r.u = x.u & y.u;
			break;
		case '|':
			r.u = x.u | y.u;
			break;
		case '^':
			r.u = x.u ^ y.u;
			break;
		default:
			r.kind = DAP_SYN_LONG;
			r.u = (uint64_t)compare(e->op, uns ? (x.u < y.u ? -1 : x.u > y.u)
							   : (x.l < y.l ? -1 : x.l > y.l));
			break;
		}
	}
	r.l = (int64_t)r.u;
	from_num(out, env->syms, &r);
	return 0;
}

static int eval(const struct dap_expr *e, const struct dap_eval_env *env, struct dap_value *out,
		char *err, size_t errlen)
{
	struct dap_value a, b;

	switch (e->kind) {
	case DAP_EXPR_NAME:
		return name(e, env, out, err, errlen);
	case DAP_EXPR_REG:
		return reg(e, env, out, err, errlen);
	case DAP_EXPR_INT:
		scalar(out, env->syms, e->is_unsigned ? DAP_SYN_ULONG : DAP_SYN_LONG, &e->ival);
		return 0;
	case DAP_EXPR_FLOAT:
		scalar(out, env->syms, DAP_SYN_DOUBLE, &e->fval);
		return 0;
	case DAP_EXPR_MEMBER:
		if (eval(e->a, env, &a, err, errlen) < 0)
			return -1;
		if (err)
			*err = 0;
		return member(&a, env, e->name, out, err, errlen, 0);
	case DAP_EXPR_ARROW:
		if (eval(e->a, env, &a, err, errlen) < 0)
			return -1;
		if (dap_vt_kind(a.syms, &a.vt) != DAP_VK_POINTER) {
			dap_errf(err, errlen, "the left side of '->%s' is not a pointer", e->name);
			return -1;
		}
		if (dap_value_deref(&a, env, &b, err, errlen) < 0)
			return -1;
		return member(&b, env, e->name, out, err, errlen, 0);
	case DAP_EXPR_INDEX:
		if (eval(e->a, env, &a, err, errlen) < 0 || eval(e->b, env, &b, err, errlen) < 0)
			return -1;
		if (err)
			*err = 0;
		return index_value(&a, &b, env, out, err, errlen);
	case DAP_EXPR_UNARY:
		return unary(e, env, out, err, errlen);
	case DAP_EXPR_CAST:
		return cast(e, env, out, err, errlen);
	case DAP_EXPR_BINARY:
		return binary(e, env, out, err, errlen);
	}
	dap_errf(err, errlen, "cannot evaluate this expression");
	return -1;
}

int dap_eval(const struct dap_expr *e, const struct dap_eval_env *env, struct dap_value *out,
	     char *err, size_t errlen)
{
	unsigned char probe[8];

	if (eval(e, env, out, err, errlen) < 0)
		return -1;
	/* Subexpressions are lazy (&p->x reads nothing); the result must be
	 * there to read, as gdb's print fetches it. */
	if (out->in_memory && !out->unavailable) {
		size_t n = out->size < sizeof(probe) ? out->size : sizeof(probe);

		if (n && env->r->mem(env->r->arg, out->addr, probe, n) < 0) {
			dap_errf(err, errlen, "cannot access memory at address 0x%" PRIx64,
				 out->addr);
			return -1;
		}
	}
	return 0;
}

static int is_type(void *arg, const char *name, int tag)
{
	const struct dap_eval_env *env = arg;
	uint64_t type;

	return dw_type_by_name(env->syms, name, tag, &type) == 0;
}

int dap_eval_text(const char *text, const struct dap_eval_env *env, struct dap_value *out,
		  char *err, size_t errlen)
{
	struct dap_expr *e = dap_expr_parse(text, is_type, (void *)env, err, errlen);
	int rc;

	if (!e)
		return -1;
	rc = dap_eval(e, env, out, err, errlen);
	dap_expr_free(e);
	return rc;
}
