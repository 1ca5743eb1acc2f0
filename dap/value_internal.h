/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What dap/value.c gives dap/eval.c: the shape of a value's type, its
 * number, its parts.
 */
#ifndef HERMIT_DAP_VALUE_INTERNAL_H
#define HERMIT_DAP_VALUE_INTERNAL_H

#include "dap/value.h"

enum dap_vkind {
	DAP_VK_VOID,
	DAP_VK_SCALAR, /* base, enum, cast or computed */
	DAP_VK_POINTER,
	DAP_VK_ARRAY,
	DAP_VK_STRUCT,
	DAP_VK_UNION,
	DAP_VK_FUNCTION,
};

/* A scalar's value after C's promotions: kind LONG, ULONG or DOUBLE. */
struct dap_num {
	enum dap_synth kind;
	int64_t l;
	uint64_t u; /* the same bits as l */
	double d;
};

void dap_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const struct dw_type *dap_vt_top(struct dw_syms *s, const struct dap_vtype *vt);
enum dap_vkind dap_vt_kind(struct dw_syms *s, const struct dap_vtype *vt);
uint64_t dap_vt_size(struct dw_syms *s, const struct dap_vtype *vt);
int dap_vt_pointee(struct dw_syms *s, const struct dap_vtype *vt, struct dap_vtype *out);
int dap_vt_element(struct dw_syms *s, const struct dap_vtype *vt, struct dap_vtype *out);
char *dap_vtype_name(struct dw_syms *s, const struct dap_vtype *vt);
int dap_value_read(const struct dap_value *v, const struct dap_eval_env *env, void *buf, size_t len,
		   char *err, size_t errlen);
int dap_value_num(const struct dap_value *v, const struct dap_eval_env *env, struct dap_num *n,
		  char *err, size_t errlen);
int dap_value_part(const struct dap_value *v, const struct dap_vtype *vt, uint64_t offset,
		   unsigned bit_size, uint64_t bit_offset, struct dap_value *out, char *err,
		   size_t errlen);
int dap_value_deref(const struct dap_value *v, const struct dap_eval_env *env,
		    struct dap_value *out, char *err, size_t errlen);

#endif
