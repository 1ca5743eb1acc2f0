/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Values: their types, their bytes, their text and their children. A
 * value's type is a DWARF type with, in this order, leading array
 * dimensions taken away (grid[1] is a row of int grid[3][4]) and pointer
 * levels added (&grid[1] points at such a row); or a cast's base type
 * that DWARF may not name; or a scalar the evaluator computed.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "dap/value.h"
#include "dap/value_internal.h"

/* Elements and members a summary shows, and string bytes it reads. */
#define SUMMARY_ELEMENTS 100
#define STRING_MAX	 200

void dap_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* The DWARF type under VT's added pointers, typedefs and qualifiers
 * stripped; NULL for a synthetic or cast scalar. */
const struct dw_type *dap_vt_top(struct dw_syms *s, const struct dap_vtype *vt)
{
	const struct dw_type *t;

	if (vt->synth || vt->cast_size || vt->ptr)
		return NULL;
	if (dw_type_strip(s, vt->type, &t) < 0)
		return NULL;
	return t;
}

enum dap_vkind dap_vt_kind(struct dw_syms *s, const struct dap_vtype *vt)
{
	const struct dw_type *t;

	if (vt->ptr)
		return DAP_VK_POINTER;
	if (vt->synth || vt->cast_size)
		return DAP_VK_SCALAR;
	t = dap_vt_top(s, vt);
	if (!t)
		return DAP_VK_VOID;
	switch (t->kind) {
	case DW_TYPE_BASE:
	case DW_TYPE_ENUM:
		return DAP_VK_SCALAR;
	case DW_TYPE_POINTER:
		return DAP_VK_POINTER;
	case DW_TYPE_ARRAY:
		return vt->dims < t->ndims ? DAP_VK_ARRAY : DAP_VK_VOID;
	case DW_TYPE_STRUCT:
		return DAP_VK_STRUCT;
	case DW_TYPE_UNION:
		return DAP_VK_UNION;
	case DW_TYPE_FUNCTION:
		return DAP_VK_FUNCTION;
	default:
		return DAP_VK_VOID;
	}
}

uint64_t dap_vt_size(struct dw_syms *s, const struct dap_vtype *vt)
{
	const struct dw_type *t;

	if (vt->ptr || vt->synth)
		return 8;
	if (vt->cast_size)
		return vt->cast_size;
	t = dap_vt_top(s, vt);
	if (!t)
		return 0;
	if (t->kind == DW_TYPE_ARRAY && vt->dims) {
		struct dap_vtype e = { .type = t->target };
		uint64_t n = dap_vt_size(s, &e);

		for (size_t d = vt->dims; d < t->ndims; d++)
			n *= t->dims[d].count;
		return n;
	}
	return t->size;
}

int dap_vt_pointee(struct dw_syms *s, const struct dap_vtype *vt, struct dap_vtype *out)
{
	const struct dw_type *t;

	if (vt->ptr) {
		*out = *vt;
		out->ptr--;
		return 0;
	}
	t = dap_vt_top(s, vt);
	if (!t)
		return -EINVAL;
	if (t->kind == DW_TYPE_POINTER) {
		memset(out, 0, sizeof(*out));
		out->type = t->target;
		return 0;
	}
	if (t->kind == DW_TYPE_ARRAY)
		return dap_vt_element(s, vt, out);
	return -EINVAL;
}

int dap_vt_element(struct dw_syms *s, const struct dap_vtype *vt, struct dap_vtype *out)
{
	const struct dw_type *t = dap_vt_top(s, vt);

	if (!t || t->kind != DW_TYPE_ARRAY || vt->dims >= t->ndims)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (vt->dims + 1 < t->ndims) {
		out->type = vt->type;
		out->dims = vt->dims + 1;
	} else {
		out->type = t->target;
	}
	return 0;
}

/* Whether VT is a char type (through typedefs and qualifiers): strings. */
static int is_char(struct dw_syms *s, const struct dap_vtype *vt)
{
	const struct dw_type *t = dap_vt_top(s, vt);

	if (vt->cast_size == 1 && !vt->cast_float && !vt->ptr)
		return vt->cast_name && strstr(vt->cast_name, "char");
	return t && t->kind == DW_TYPE_BASE &&
	       (t->encoding == DW_ENC_SIGNED_CHAR || t->encoding == DW_ENC_UNSIGNED_CHAR);
}

int dap_value_read(const struct dap_value *v, const struct dap_eval_env *env, void *buf, size_t len,
		   char *err, size_t errlen)
{
	if (v->unavailable) {
		dap_errf(err, errlen, "value is optimized out");
		return -1;
	}
	if (v->in_memory) {
		if (env->r->mem(env->r->arg, v->addr, buf, len) < 0) {
			dap_errf(err, errlen, "cannot access memory at address 0x%" PRIx64,
				 v->addr);
			return -1;
		}
		return 0;
	}
	if (len > sizeof(v->bytes)) {
		dap_errf(err, errlen, "value is too large");
		return -1;
	}
	memcpy(buf, v->bytes, len);
	return 0;
}

int dap_value_num(const struct dap_value *v, const struct dap_eval_env *env, struct dap_num *n,
		  char *err, size_t errlen)
{
	unsigned char b[16] = { 0 };
	const struct dw_type *t;
	enum dap_vkind k = dap_vt_kind(v->syms, &v->vt);
	size_t size;

	memset(n, 0, sizeof(*n));
	if (k == DAP_VK_ARRAY) {
		/* An array decays to the address of its first element. */
		if (!v->in_memory) {
			dap_errf(err, errlen, "array is not in memory");
			return -1;
		}
		n->kind = DAP_SYN_ULONG;
		n->u = v->addr;
		return 0;
	}
	if (k != DAP_VK_SCALAR && k != DAP_VK_POINTER) {
		dap_errf(err, errlen, "value is not a number");
		return -1;
	}
	size = v->bit_size ? (v->bit_offset + v->bit_size + 7) / 8 : dap_vt_size(v->syms, &v->vt);
	if (size == 0 || size > sizeof(b)) {
		dap_errf(err, errlen, "value of size %zu is not a number", size);
		return -1;
	}
	if (dap_value_read(v, env, b, size, err, errlen) < 0)
		return -1;
	if (v->vt.synth) {
		n->kind = v->vt.synth == DAP_SYN_ADDR ? DAP_SYN_ULONG : v->vt.synth;
		if (n->kind == DAP_SYN_DOUBLE) {
			memcpy(&n->d, b, 8);
		} else {
			memcpy(&n->u, b, 8);
			n->l = (int64_t)n->u;
		}
		return 0;
	}
	if (k == DAP_VK_POINTER) {
		n->kind = DAP_SYN_ULONG;
		memcpy(&n->u, b, 8);
		return 0;
	}
	if (v->vt.cast_size) {
		if (v->vt.cast_float) {
			n->kind = DAP_SYN_DOUBLE;
			if (size == 4) {
				float f;

				memcpy(&f, b, 4);
				n->d = f;
			} else {
				memcpy(&n->d, b, 8);
			}
			return 0;
		}
		n->u = dw_bits_extract(b, size, 0, (unsigned)size * 8, v->vt.cast_signed);
		n->kind = v->vt.cast_signed || size < 8 ? DAP_SYN_LONG : DAP_SYN_ULONG;
		n->l = (int64_t)n->u;
		return 0;
	}
	t = dap_vt_top(v->syms, &v->vt);
	if (t->encoding == DW_ENC_FLOAT) {
		n->kind = DAP_SYN_DOUBLE;
		if (t->size == 4) {
			float f;

			memcpy(&f, b, 4);
			n->d = f;
		} else if (t->size == 8) {
			memcpy(&n->d, b, 8);
		} else {
			long double ld;

			memcpy(&ld, b, sizeof(ld) < size ? sizeof(ld) : size);
			n->d = (double)ld;
		}
		return 0;
	}
	{
		int sgn = t->encoding == DW_ENC_SIGNED || t->encoding == DW_ENC_SIGNED_CHAR;
		unsigned bits = v->bit_size ? v->bit_size : (unsigned)t->size * 8;

		n->u = dw_bits_extract(b, size, v->bit_size ? v->bit_offset : 0, bits, sgn);
		/* C's promotions: anything narrower than 64 bits is a long. */
		n->kind = sgn || bits < 64 ? DAP_SYN_LONG : DAP_SYN_ULONG;
		n->l = (int64_t)n->u;
	}
	return 0;
}

int dap_value_truth(const struct dap_value *v, const struct dap_eval_env *env, int *truth,
		    char *err, size_t errlen)
{
	struct dap_num n;

	if (dap_value_num(v, env, &n, err, errlen) < 0)
		return -1;
	*truth = n.kind == DAP_SYN_DOUBLE ? n.d != 0 : n.u != 0;
	return 0;
}

/* ---- type names ---- */

static void type_name(struct dw_syms *s, uint64_t type, struct hm_buf *pre, struct hm_buf *post,
		      int depth)
{
	const struct dw_type *t;

	if (depth > 16 || dw_type_get(s, type, &t) < 0) {
		hm_buf_addf(pre, "?");
		return;
	}
	switch (t->kind) {
	case DW_TYPE_VOID:
		hm_buf_addf(pre, "void");
		break;
	case DW_TYPE_BASE:
	case DW_TYPE_TYPEDEF:
		hm_buf_addf(pre, "%s", t->name ? t->name : "?");
		break;
	case DW_TYPE_STRUCT:
	case DW_TYPE_UNION:
	case DW_TYPE_ENUM:
		hm_buf_addf(pre, "%s %s",
			    t->kind == DW_TYPE_STRUCT  ? "struct"
			    : t->kind == DW_TYPE_UNION ? "union"
						       : "enum",
			    t->name ? t->name : "{...}");
		break;
	case DW_TYPE_CONST:
	case DW_TYPE_VOLATILE:
		hm_buf_addf(pre, "%s ", t->kind == DW_TYPE_CONST ? "const" : "volatile");
		type_name(s, t->target, pre, post, depth + 1);
		break;
	case DW_TYPE_POINTER: {
		const struct dw_type *to;

		type_name(s, t->target, pre, post, depth + 1);
		if (dw_type_strip(s, t->target, &to) == 0 &&
		    (to->kind == DW_TYPE_FUNCTION || to->kind == DW_TYPE_ARRAY)) {
			/* int (*)(int), int (*)[4]: the '*' goes inside. */
			struct hm_buf tail;

			hm_buf_init(&tail);
			hm_buf_add(&tail, post->data ? post->data : (unsigned char *)"", post->len);
			post->len = 0;
			hm_buf_addf(pre, " (*");
			hm_buf_addf(post, ")");
			hm_buf_add(post, tail.data ? tail.data : (unsigned char *)"", tail.len);
			hm_buf_free(&tail);
		} else {
			hm_buf_addf(pre, " *");
		}
		break;
	}
	case DW_TYPE_ARRAY:
		type_name(s, t->target, pre, post, depth + 1);
		{
			struct hm_buf dims;

			hm_buf_init(&dims);
			for (size_t d = 0; d < t->ndims; d++) {
				if (t->dims[d].unknown)
					hm_buf_addf(&dims, "[]");
				else
					hm_buf_addf(&dims, "[%" PRIu64 "]", t->dims[d].count);
			}
			hm_buf_add(&dims, post->data ? post->data : (unsigned char *)"", post->len);
			post->len = 0;
			hm_buf_add(post, dims.data ? dims.data : (unsigned char *)"", dims.len);
			hm_buf_free(&dims);
		}
		break;
	case DW_TYPE_FUNCTION:
		type_name(s, t->target, pre, post, depth + 1);
		hm_buf_addf(post, "(");
		for (size_t i = 0; i < t->nmembers; i++) {
			struct hm_buf p, q;

			hm_buf_init(&p);
			hm_buf_init(&q);
			type_name(s, t->members[i].type, &p, &q, depth + 1);
			hm_buf_addf(post, "%s%.*s%.*s", i ? ", " : "", (int)p.len,
				    p.data ? (char *)p.data : "", (int)q.len,
				    q.data ? (char *)q.data : "");
			hm_buf_free(&p);
			hm_buf_free(&q);
		}
		hm_buf_addf(post, "%s)", t->varargs ? (t->nmembers ? ", ..." : "...") : "");
		break;
	}
}

char *dap_vtype_name(struct dw_syms *s, const struct dap_vtype *vt)
{
	struct hm_buf pre, post;
	const struct dw_type *t;

	hm_buf_init(&pre);
	hm_buf_init(&post);
	if (vt->synth) {
		hm_buf_addf(&pre, "%s",
			    vt->synth == DAP_SYN_LONG	  ? "long"
			    : vt->synth == DAP_SYN_ULONG  ? "unsigned long"
			    : vt->synth == DAP_SYN_DOUBLE ? "double"
							  : "void *");
	} else if (vt->cast_size) {
		hm_buf_addf(&pre, "%s", vt->cast_name ? vt->cast_name : "?");
	} else if (vt->dims && dw_type_get(s, vt->type, &t) == 0) {
		const struct dw_type *a;

		/* A row: the element type with the dimensions left. */
		if (dw_type_strip(s, vt->type, &a) == 0 && a->kind == DW_TYPE_ARRAY) {
			type_name(s, a->target, &pre, &post, 0);
			for (size_t d = vt->dims; d < a->ndims; d++)
				hm_buf_addf(&post, "[%" PRIu64 "]", a->dims[d].count);
		}
	} else {
		type_name(s, vt->type, &pre, &post, 0);
	}
	if (vt->ptr) {
		if (post.len) {
			/* a pointer to an array or function */
			hm_buf_addf(&pre, " (");
			for (unsigned i = 0; i < vt->ptr; i++)
				hm_buf_addf(&pre, "*");
			hm_buf_addf(&pre, ")");
		} else {
			hm_buf_addf(&pre, " ");
			for (unsigned i = 0; i < vt->ptr; i++)
				hm_buf_addf(&pre, "*");
		}
	}
	/* gdb's spacing: "int [4]", "int (int)", but "int (*)[4]". */
	if (post.len && pre.len && !strchr("* )", pre.data[pre.len - 1]))
		hm_buf_addf(&pre, " ");
	hm_buf_add(&pre, post.data ? post.data : (unsigned char *)"", post.len);
	hm_buf_add(&pre, "", 1);
	hm_buf_free(&post);
	/* "char * *" reads as C writes it: "char **". */
	{
		char *s2 = (char *)pre.data, *w = s2;

		for (char *r = s2; *r; r++) {
			if (r[0] == ' ' && r[1] == '*' && w > s2 && w[-1] == '*')
				continue;
			*w++ = *r;
		}
		*w = 0;
	}
	return (char *)pre.data;
}

char *dap_value_type_name(const struct dap_value *v)
{
	return dap_vtype_name(v->syms, &v->vt);
}

/* ---- text ---- */

static void put_char(struct hm_buf *b, unsigned char c, char quote)
{
	if (c == (unsigned char)quote || c == '\\')
		hm_buf_addf(b, "\\%c", c);
	else if (c == '\n')
		hm_buf_addf(b, "\\n");
	else if (c == '\t')
		hm_buf_addf(b, "\\t");
	else if (c >= 0x20 && c < 0x7f)
		hm_buf_addf(b, "%c", c);
	else
		hm_buf_addf(b, "\\%03o", c);
}

/* The string at ADDR, as gdb prints a char *'s: up to its NUL. */
static void put_string(struct hm_buf *b, const struct dap_eval_env *env, uint64_t addr, size_t max)
{
	size_t n = 0;

	hm_buf_addf(b, "\"");
	while (n < max) {
		unsigned char chunk[32];
		size_t want = 32 - (addr + n) % 32, i;

		if (want > max - n)
			want = max - n;
		if (env->r->mem(env->r->arg, addr + n, chunk, want) < 0) {
			if (n == 0) {
				b->len--;
				hm_buf_addf(
					b, "<error: cannot access memory at address 0x%" PRIx64 ">",
					addr);
				return;
			}
			break;
		}
		for (i = 0; i < want && chunk[i]; i++)
			put_char(b, chunk[i], '"');
		n += i;
		if (i < want) {
			hm_buf_addf(b, "\"");
			return;
		}
	}
	hm_buf_addf(b, "\"...");
}

static void format(struct hm_buf *b, const struct dap_value *v, const struct dap_eval_env *env,
		   int depth);

static void format_children(struct hm_buf *b, const struct dap_value *v,
			    const struct dap_eval_env *env, int depth, int named)
{
	size_t n = dap_value_children(v);

	hm_buf_addf(b, "{");
	for (size_t i = 0; i < n && i < SUMMARY_ELEMENTS; i++) {
		struct dap_value c;
		char name[128], err[160];

		if (i)
			hm_buf_addf(b, ", ");
		if (dap_value_child(v, env, i, &c, name, sizeof(name), err, sizeof(err)) < 0) {
			hm_buf_addf(b, "<error: %s>", err);
			continue;
		}
		if (named)
			hm_buf_addf(b, "%s = ", name);
		format(b, &c, env, depth + 1);
	}
	if (n > SUMMARY_ELEMENTS)
		hm_buf_addf(b, "...");
	hm_buf_addf(b, "}");
}

static void format(struct hm_buf *b, const struct dap_value *v, const struct dap_eval_env *env,
		   int depth)
{
	char err[160], text[128];
	struct dap_num n;
	const struct dw_type *t;
	struct dap_vtype to;

	if (v->unavailable) {
		hm_buf_addf(b, "<optimized out>");
		return;
	}
	switch (dap_vt_kind(v->syms, &v->vt)) {
	case DAP_VK_SCALAR:
		if (v->vt.synth || v->vt.cast_size) {
			if (dap_value_num(v, env, &n, err, sizeof(err)) < 0) {
				hm_buf_addf(b, "<error: %s>", err);
			} else if (n.kind == DAP_SYN_DOUBLE) {
				hm_buf_addf(b, "%.17g", n.d);
			} else if (v->vt.synth == DAP_SYN_ADDR) {
				hm_buf_addf(b, "0x%" PRIx64, n.u);
			} else if (n.kind == DAP_SYN_LONG) {
				hm_buf_addf(b, "%" PRId64, n.l);
				if (is_char(v->syms, &v->vt)) {
					hm_buf_addf(b, " '");
					put_char(b, (unsigned char)n.u, '\'');
					hm_buf_addf(b, "'");
				}
			} else {
				hm_buf_addf(b, "%" PRIu64, n.u);
			}
			return;
		}
		t = dap_vt_top(v->syms, &v->vt);
		{
			unsigned char bytes[16] = { 0 };
			size_t size = v->bit_size ? (v->bit_offset + v->bit_size + 7) / 8 : t->size;

			if (size > sizeof(bytes) ||
			    dap_value_read(v, env, bytes, size, err, sizeof(err)) < 0) {
				hm_buf_addf(b, "<error: %s>",
					    size > sizeof(bytes) ? "value too large" : err);
				return;
			}
			if (dw_base_format(t, bytes, size, v->bit_size, v->bit_offset, text,
					   sizeof(text)) < 0)
				hm_buf_addf(b, "<error: cannot format a value of this type>");
			else
				hm_buf_addf(b, "%s", text);
		}
		return;
	case DAP_VK_POINTER:
		if (dap_value_num(v, env, &n, err, sizeof(err)) < 0) {
			hm_buf_addf(b, "<error: %s>", err);
			return;
		}
		hm_buf_addf(b, "0x%" PRIx64, n.u);
		if (n.u && dap_vt_pointee(v->syms, &v->vt, &to) == 0 && is_char(v->syms, &to)) {
			hm_buf_addf(b, " ");
			put_string(b, env, n.u, STRING_MAX);
		}
		return;
	case DAP_VK_ARRAY:
		if (dap_vt_element(v->syms, &v->vt, &to) == 0 && is_char(v->syms, &to) &&
		    v->in_memory) {
			size_t count = dap_value_children(v);

			put_string(b, env, v->addr, count < STRING_MAX ? count : STRING_MAX);
			return;
		}
		if (depth > 0 && dap_value_children(v) > 0) {
			format_children(b, v, env, depth, 0);
			return;
		}
		format_children(b, v, env, depth, 0);
		return;
	case DAP_VK_STRUCT:
	case DAP_VK_UNION:
		if (depth > 1) {
			hm_buf_addf(b, "{...}");
			return;
		}
		format_children(b, v, env, depth, 1);
		return;
	case DAP_VK_FUNCTION:
		hm_buf_addf(b, "{function}");
		return;
	case DAP_VK_VOID:
		hm_buf_addf(b, "void");
		return;
	}
}

char *dap_value_format(const struct dap_value *v, const struct dap_eval_env *env)
{
	struct hm_buf b;

	hm_buf_init(&b);
	format(&b, v, env, 0);
	hm_buf_add(&b, "", 1);
	return (char *)b.data;
}

/* ---- children ---- */

size_t dap_value_children(const struct dap_value *v)
{
	const struct dw_type *t;
	struct dap_vtype to;

	if (v->unavailable)
		return 0;
	switch (dap_vt_kind(v->syms, &v->vt)) {
	case DAP_VK_STRUCT:
	case DAP_VK_UNION:
		t = dap_vt_top(v->syms, &v->vt);
		return t->nmembers;
	case DAP_VK_ARRAY:
		t = dap_vt_top(v->syms, &v->vt);
		return t->dims[v->vt.dims].unknown ? 0 : t->dims[v->vt.dims].count;
	case DAP_VK_POINTER:
		if (dap_vt_pointee(v->syms, &v->vt, &to) < 0)
			return 0;
		switch (dap_vt_kind(v->syms, &to)) {
		case DAP_VK_VOID:
		case DAP_VK_FUNCTION:
			return 0;
		default:
			return 1;
		}
	default:
		return 0;
	}
}

/* OUT is V's part of type VT at byte OFFSET (and, for a bitfield,
 * BIT_SIZE bits from BIT_OFFSET bits into V). */
int dap_value_part(const struct dap_value *v, const struct dap_vtype *vt, uint64_t offset,
		   unsigned bit_size, uint64_t bit_offset, struct dap_value *out, char *err,
		   size_t errlen)
{
	memset(out, 0, sizeof(*out));
	out->syms = v->syms;
	out->vt = *vt;
	if (bit_size) {
		offset = bit_offset / 8;
		out->bit_size = bit_size;
		out->bit_offset = bit_offset % 8;
		out->size = (out->bit_offset + bit_size + 7) / 8;
	} else {
		out->size = dap_vt_size(v->syms, vt);
	}
	if (v->unavailable) {
		out->unavailable = v->unavailable;
		return 0;
	}
	if (v->in_memory) {
		out->in_memory = 1;
		out->addr = v->addr + offset;
		return 0;
	}
	if (offset + out->size > v->size || out->size > sizeof(out->bytes)) {
		dap_errf(err, errlen, "part of a value not in memory is out of its bounds");
		return -1;
	}
	memcpy(out->bytes, v->bytes + offset, out->size);
	return 0;
}

int dap_value_deref(const struct dap_value *v, const struct dap_eval_env *env,
		    struct dap_value *out, char *err, size_t errlen)
{
	struct dap_vtype to;
	struct dap_num n;

	if (dap_vt_pointee(v->syms, &v->vt, &to) < 0) {
		dap_errf(err, errlen, "attempt to take contents of a non-pointer value");
		return -1;
	}
	if (dap_vt_kind(v->syms, &v->vt) == DAP_VK_ARRAY)
		return dap_value_part(v, &to, 0, 0, 0, out, err, errlen);
	if (dap_value_num(v, env, &n, err, errlen) < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	out->syms = v->syms;
	out->vt = to;
	out->in_memory = 1;
	out->addr = n.u;
	out->size = dap_vt_size(v->syms, &to);
	if (dap_vt_kind(v->syms, &to) == DAP_VK_VOID) {
		dap_errf(err, errlen, "attempt to take contents of a void pointer");
		return -1;
	}
	return 0;
}

int dap_value_child(const struct dap_value *v, const struct dap_eval_env *env, size_t i,
		    struct dap_value *out, char *name, size_t namelen, char *err, size_t errlen)
{
	const struct dw_type *t;
	struct dap_vtype to;

	if (i >= dap_value_children(v)) {
		dap_errf(err, errlen, "no child %zu", i);
		return -1;
	}
	switch (dap_vt_kind(v->syms, &v->vt)) {
	case DAP_VK_STRUCT:
	case DAP_VK_UNION: {
		const struct dw_member *m;

		t = dap_vt_top(v->syms, &v->vt);
		m = &t->members[i];
		snprintf(name, namelen, "%s", m->name ? m->name : "<anonymous>");
		memset(&to, 0, sizeof(to));
		to.type = m->type;
		return dap_value_part(v, &to, m->offset, m->bit_size, m->bit_offset, out, err,
				      errlen);
	}
	case DAP_VK_ARRAY:
		t = dap_vt_top(v->syms, &v->vt);
		dap_vt_element(v->syms, &v->vt, &to);
		snprintf(name, namelen, "[%" PRId64 "]", (int64_t)i + t->dims[v->vt.dims].lower);
		return dap_value_part(v, &to, i * dap_vt_size(v->syms, &to), 0, 0, out, err,
				      errlen);
	case DAP_VK_POINTER:
		snprintf(name, namelen, "*");
		return dap_value_deref(v, env, out, err, errlen);
	default:
		dap_errf(err, errlen, "no children");
		return -1;
	}
}
