/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scopes, variables and expressions at a stop. A frame has the scopes
 * Locals and Arguments (dw_vars_at at its pc and inline depth) where its
 * module has DWARF, and Registers. A variables reference names a scope of
 * a frame or a value (struct dap_vref): structs, unions and arrays expand
 * into their members and elements, a pointer to a struct or union into
 * its pointee's members, another pointer into what it points at (gdb's
 * varobj children); a value's children are read only when the client
 * asks for them, and an array's in pages (start, count). References hold
 * until the next resume. Values and types are written as gdb writes them
 * (dap/value.h); each variable has the expression that names it
 * (evaluateName), which is also what dataBreakpointInfo watches.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dap/internal.h"
#include "dap/value_internal.h"

#define MAX_VARS     512
#define MAX_CHILDREN 10000 /* children in one variables response */

static int new_vref(struct dap *d, const struct dap_vref *v)
{
	d->vrefs = xrealloc(d->vrefs, (d->nvrefs + 1) * sizeof(*d->vrefs));
	d->vrefs[d->nvrefs] = *v;
	return (int)++d->nvrefs;
}

static int scope_ref(struct dap *d, enum dap_vref_kind kind, int frame)
{
	struct dap_vref v = { .kind = kind, .frame = frame };

	for (size_t i = 0; i < d->nvrefs; i++) {
		if (d->vrefs[i].kind == kind && d->vrefs[i].frame == frame)
			return (int)i + 1;
	}
	return new_vref(d, &v);
}

static const struct dap_vref *vref_of(struct dap *d, int64_t ref)
{
	return ref >= 1 && (uint64_t)ref <= d->nvrefs ? &d->vrefs[ref - 1] : NULL;
}

/* Whether E needs no parentheses before ".m", "->m", "[i]" or after
 * "*": a name followed by members and indexes. */
static int postfix(const char *e)
{
	if (!(isalpha((unsigned char)*e) || *e == '_' || *e == '$'))
		return 0;
	for (; *e; e++) {
		if (isalnum((unsigned char)*e) || *e == '_' || *e == '.' || *e == '[' ||
		    *e == ']' || *e == '$')
			continue;
		if (e[0] == '-' && e[1] == '>') {
			e++;
			continue;
		}
		return 0;
	}
	return 1;
}

/* What a value expands into. */
struct expansion {
	size_t n;	/* children */
	int indexed;	/* an array's elements */
	int deref;	/* its pointee's members */
	int expandable; /* worth a variables reference */
};

static struct expansion expansion(const struct dap_value *v)
{
	struct expansion x = { 0 };
	struct dap_vtype to;
	const struct dw_type *t;

	if (v->unavailable)
		return x;
	switch (dap_vt_kind(v->syms, &v->vt)) {
	case DAP_VK_STRUCT:
	case DAP_VK_UNION:
	case DAP_VK_ARRAY:
		x.n = dap_value_children(v);
		x.indexed = dap_vt_kind(v->syms, &v->vt) == DAP_VK_ARRAY;
		x.expandable = x.n > 0;
		return x;
	case DAP_VK_POINTER:
		if (dap_vt_pointee(v->syms, &v->vt, &to) < 0)
			return x;
		switch (dap_vt_kind(v->syms, &to)) {
		case DAP_VK_STRUCT:
		case DAP_VK_UNION:
			t = dap_vt_top(v->syms, &to);
			x.n = t ? t->nmembers : 0;
			x.deref = 1;
			x.expandable = x.n > 0;
			return x;
		case DAP_VK_VOID:
		case DAP_VK_FUNCTION:
			return x;
		case DAP_VK_SCALAR:
			/* (a char * is a string: its value says it all) */
			t = dap_vt_top(v->syms, &to);
			if (!to.synth && t &&
			    (t->encoding == DW_ENC_SIGNED_CHAR ||
			     t->encoding == DW_ENC_UNSIGNED_CHAR))
				return x;
			/* fall through */
		default:
			x.n = 1;
			x.expandable = 1;
			return x;
		}
	default:
		return x;
	}
}

/* Child I of value reference P in OUT, its NAME and its expression EXPR
 * (empty when it has none). 0, or -1 with a message in ERR. */
static int child_of(struct dap_frame_env *fe, const struct dap_vref *p, size_t i,
		    struct dap_value *out, char *name, size_t namelen, char *expr, size_t exprlen,
		    char *err, size_t errlen)
{
	const char *e = p->expr ? p->expr : "";
	int simple = postfix(e);
	struct dap_value target;
	enum dap_vkind kind;

	if (p->deref) {
		if (dap_value_deref(&p->v, &fe->env, &target, err, errlen) < 0)
			return -1;
	} else {
		target = p->v;
	}
	if (dap_value_child(&target, &fe->env, i, out, name, namelen, err, errlen) < 0)
		return -1;
	expr[0] = 0;
	if (!*e)
		return 0;
	kind = dap_vt_kind(target.syms, &target.vt);
	if (kind == DAP_VK_POINTER) {
		snprintf(name, namelen, "*%s", e);
		snprintf(expr, exprlen, simple ? "*%s" : "*(%s)", e);
	} else if (kind == DAP_VK_ARRAY) {
		snprintf(expr, exprlen, simple ? "%s%s" : "(%s)%s", e, name);
	} else if (!strcmp(name, "<anonymous>")) {
		/* its members are the parent's (C11 anonymous members) */
		snprintf(expr, exprlen, "%s", e);
	} else {
		snprintf(expr, exprlen, simple ? "%s%s%s" : "(%s)%s%s", e, p->deref ? "->" : ".",
			 name);
	}
	return 0;
}

/* V as a DAP variable (or evaluate's body, RESULT set): value, type,
 * expression, and a reference to expand it by. */
static void describe(struct dap *d, struct dap_frame_env *fe, int frame, cJSON *o,
		     const struct dap_value *v, const char *expr, int result)
{
	char *text = dap_value_format(v, &fe->env), *type = dap_value_type_name(v);
	struct expansion x = expansion(v);
	char mref[32];

	cJSON_AddStringToObject(o, result ? "result" : "value", text);
	cJSON_AddStringToObject(o, "type", type);
	free(text);
	free(type);
	if (expr && *expr && !result)
		cJSON_AddStringToObject(o, "evaluateName", expr);
	if (x.expandable) {
		struct dap_vref ref = { .kind = DAP_VREF_VALUE,
					.frame = frame,
					.v = *v,
					.deref = x.deref,
					.expr = xstrdup(expr ? expr : "") };

		cJSON_AddNumberToObject(o, "variablesReference", new_vref(d, &ref));
		cJSON_AddNumberToObject(o, x.indexed ? "indexedVariables" : "namedVariables",
					(double)x.n);
	} else {
		cJSON_AddNumberToObject(o, "variablesReference", 0);
	}
	if (v->in_memory && !v->unavailable && !v->bit_size) {
		snprintf(mref, sizeof(mref), "0x%" PRIx64, v->addr);
		cJSON_AddStringToObject(o, "memoryReference", mref);
	}
}

static cJSON *variable(struct dap *d, struct dap_frame_env *fe, int frame, const char *name,
		       const struct dap_value *v, const char *expr)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", name);
	describe(d, fe, frame, o, v, expr, 0);
	return o;
}

static cJSON *error_variable(const char *name, const char *err)
{
	cJSON *o = cJSON_CreateObject();
	char text[300];

	snprintf(text, sizeof(text), "<error: %s>", err);
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "value", text);
	cJSON_AddNumberToObject(o, "variablesReference", 0);
	return o;
}

/* The parameters (PARAMS) or locals of FE's frame into VARS (MAX_VARS):
 * the count. */
static size_t frame_vars(struct dap_frame_env *fe, int params, struct dw_var *vars)
{
	int n = fe->dwarf ? dw_vars_at(fe->env.syms, fe->r.pc, fe->env.depth, vars, MAX_VARS) : 0;
	size_t k = 0;

	for (int i = 0; i < n && i < MAX_VARS; i++) {
		if (vars[i].name && !vars[i].is_param == !params)
			vars[k++] = vars[i];
	}
	return k;
}

void dap_req_scopes(struct dap *d, struct dap_req *r)
{
	struct dap_frame_env fe;
	struct dw_var *vars;
	int64_t id;
	cJSON *b, *arr, *s;

	if (dap_arg_num(d, r, "frameId", 1, &id) < 0)
		return;
	if (!dap_frame_of(d, id)) {
		dap_fail(d, r, "scopes: no frame %" PRId64 " at this stop", id);
		return;
	}
	b = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(b, "scopes");
	if (dap_frame_env(d, (int)id, &fe) == 0 && fe.dwarf) {
		static const struct {
			const char *name, *hint;
			enum dap_vref_kind kind;
		} scopes[] = { { "Locals", "locals", DAP_VREF_LOCALS },
			       { "Arguments", "arguments", DAP_VREF_ARGUMENTS } };

		vars = xcalloc(MAX_VARS, sizeof(*vars));
		for (size_t i = 0; i < 2; i++) {
			size_t n = frame_vars(&fe, scopes[i].kind == DAP_VREF_ARGUMENTS, vars);

			s = cJSON_CreateObject();
			cJSON_AddStringToObject(s, "name", scopes[i].name);
			cJSON_AddStringToObject(s, "presentationHint", scopes[i].hint);
			cJSON_AddNumberToObject(s, "variablesReference",
						scope_ref(d, scopes[i].kind, (int)id));
			cJSON_AddNumberToObject(s, "namedVariables", (double)n);
			cJSON_AddBoolToObject(s, "expensive", 0);
			cJSON_AddItemToArray(arr, s);
		}
		free(vars);
	}
	s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "name", "Registers");
	cJSON_AddStringToObject(s, "presentationHint", "registers");
	cJSON_AddNumberToObject(s, "variablesReference", scope_ref(d, DAP_VREF_REGISTERS, (int)id));
	cJSON_AddBoolToObject(s, "expensive", 0);
	cJSON_AddItemToArray(arr, s);
	dap_respond(d, r, b);
}

static void scope_variables(struct dap *d, struct dap_req *r, struct dap_frame_env *fe,
			    const struct dap_vref *ref, cJSON *arr)
{
	struct dw_var *vars = xcalloc(MAX_VARS, sizeof(*vars));
	size_t n = frame_vars(fe, ref->kind == DAP_VREF_ARGUMENTS, vars);
	int frame = ref->frame;

	(void)r;
	for (size_t i = 0; i < n; i++) {
		struct dap_value v;
		char err[256];

		if (dap_value_of_var(&fe->env, &vars[i], &v, err, sizeof(err)) < 0)
			cJSON_AddItemToArray(arr, error_variable(vars[i].name, err));
		else
			cJSON_AddItemToArray(
				arr, variable(d, fe, frame, vars[i].name, &v, vars[i].name));
	}
	free(vars);
}

void dap_req_variables(struct dap *d, struct dap_req *r)
{
	struct dap_frame_env fe;
	const struct dap_vref *ref;
	struct dap_vref parent;
	const char *filter = NULL;
	int64_t id, start = 0, count = 0;
	cJSON *b, *arr;
	int err;

	if (dap_arg_num(d, r, "variablesReference", 1, &id) < 0 ||
	    dap_arg_str(d, r, "filter", 0, &filter) < 0 ||
	    dap_arg_num(d, r, "start", 0, &start) < 0 || dap_arg_num(d, r, "count", 0, &count) < 0)
		return;
	ref = vref_of(d, id);
	if (!ref) {
		dap_fail(d, r, "variables: no variables reference %" PRId64 " at this stop", id);
		return;
	}
	if (start < 0 || count < 0) {
		dap_fail(d, r, "variables: start and count must not be negative");
		return;
	}
	if (ref->kind == DAP_VREF_REGISTERS) {
		const struct dap_frame *f = dap_frame_of(d, ref->frame);

		if (!f) /* (cannot be: scopes made it) */
			dap_fail(d, r, "variables: no frame %d", ref->frame);
		else
			dap_registers(d, r, f);
		return;
	}
	err = dap_frame_env(d, ref->frame, &fe);
	if (err) {
		dap_fail(d, r, "variables: frame %d: %s", ref->frame, hm_strerror(err));
		return;
	}
	b = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(b, "variables");
	if (ref->kind != DAP_VREF_VALUE) {
		if (!filter || strcmp(filter, "indexed") != 0)
			scope_variables(d, r, &fe, ref, arr);
		dap_respond(d, r, b);
		return;
	}
	/* (new references may move d->vrefs: work on a copy) */
	parent = *ref;
	parent.expr = xstrdup(ref->expr ? ref->expr : "");
	{
		struct expansion x = expansion(&parent.v);
		size_t from = 0, to = x.n;

		if (filter && !strcmp(filter, x.indexed ? "named" : "indexed"))
			to = 0;
		if (x.indexed) {
			from = (size_t)start < x.n ? (size_t)start : x.n;
			if (count > 0 && (size_t)count < to - from)
				to = from + (size_t)count;
		}
		if (to - from > MAX_CHILDREN)
			to = from + MAX_CHILDREN;
		for (size_t i = from; i < to; i++) {
			struct dap_value c;
			char name[160], expr[1024], msg[256];

			if (child_of(&fe, &parent, i, &c, name, sizeof(name), expr, sizeof(expr),
				     msg, sizeof(msg)) < 0) {
				snprintf(name, sizeof(name), "[%zu]", i);
				cJSON_AddItemToArray(arr, error_variable(name, msg));
				continue;
			}
			cJSON_AddItemToArray(arr, variable(d, &fe, parent.frame, name, &c, expr));
		}
	}
	free(parent.expr);
	dap_respond(d, r, b);
}

/* ---- evaluate ---- */

void dap_eval_request(struct dap *d, struct dap_req *r, const char *expr, const char *context)
{
	struct dap_frame_env fe;
	struct dap_value v;
	int64_t frame = 0;
	char err[300];
	cJSON *b;
	int rc;

	(void)context; /* watch, hover and repl evaluate alike */
	if (dap_arg_num(d, r, "frameId", 0, &frame) < 0)
		return;
	if (frame && !dap_frame_of(d, frame)) {
		dap_fail(d, r, "no frame %" PRId64 " at this stop", frame);
		return;
	}
	rc = dap_frame_env(d, (int)frame, &fe);
	if (rc) {
		dap_fail(d, r, "%s",
			 rc == -ENODATA ? "no debug information (DWARF) to evaluate expressions in"
					: "cannot read the frame's registers");
		return;
	}
	if (dap_eval_text(expr, &fe.env, &v, err, sizeof(err)) < 0) {
		dap_fail(d, r, "%s", err);
		return;
	}
	b = cJSON_CreateObject();
	describe(d, &fe, (int)frame, b, &v, expr, 1);
	dap_respond(d, r, b);
}

/* ---- data breakpoints on variables ---- */

static int watchable(const struct dap_value *v, const char *name, uint64_t *addr, uint64_t *size,
		     char *why, size_t whylen)
{
	if (v->unavailable) {
		snprintf(why, whylen, "'%.80s' is optimized out here: it is not in memory", name);
		return -1;
	}
	if (!v->in_memory) {
		snprintf(why, whylen,
			 "'%.80s' is not in memory (a register or a computed value): only "
			 "memory can be watched",
			 name);
		return -1;
	}
	if (v->bit_size) {
		snprintf(why, whylen, "'%.80s' is a bitfield: watch the word that holds it", name);
		return -1;
	}
	if (v->size < 1 || v->size > DAP_MAX_WATCH) {
		snprintf(why, whylen, "'%.80s' has %zu bytes: 1 to %d can be watched", name,
			 v->size, DAP_MAX_WATCH);
		return -1;
	}
	*addr = v->addr;
	*size = v->size;
	return 0;
}

int dap_vref_data(struct dap *d, int64_t id, const char *name, uint64_t *addr, uint64_t *size,
		  char *expr, size_t exprlen, struct dap_value *val, char *why, size_t whylen)
{
	const struct dap_vref *ref = vref_of(d, id);
	struct dap_frame_env fe;
	char err[256];

	if (!ref) {
		snprintf(why, whylen, "no variables reference %" PRId64 " at this stop", id);
		return -1;
	}
	if (ref->kind == DAP_VREF_REGISTERS) {
		snprintf(why, whylen, "a register cannot be watched, only memory");
		return -1;
	}
	if (dap_frame_env(d, ref->frame, &fe) < 0) {
		snprintf(why, whylen, "the frame of '%.80s' is gone", name);
		return -1;
	}
	if (ref->kind != DAP_VREF_VALUE) {
		struct dw_var *vars = xcalloc(MAX_VARS, sizeof(*vars));
		size_t n = frame_vars(&fe, ref->kind == DAP_VREF_ARGUMENTS, vars), i;
		int rc = -1;

		for (i = 0; i < n && strcmp(vars[i].name, name) != 0; i++)
			;
		if (i == n)
			snprintf(why, whylen, "no variable '%.80s' in this scope", name);
		else if (dap_value_of_var(&fe.env, &vars[i], val, err, sizeof(err)) < 0)
			snprintf(why, whylen, "%s", err);
		else
			rc = watchable(val, name, addr, size, why, whylen);
		free(vars);
		snprintf(expr, exprlen, "%s", name);
		return rc;
	}
	{
		struct expansion x = expansion(&ref->v);

		for (size_t i = 0; i < x.n && i < MAX_CHILDREN; i++) {
			char cname[160];

			if (child_of(&fe, ref, i, val, cname, sizeof(cname), expr, exprlen, err,
				     sizeof(err)) < 0 ||
			    strcmp(cname, name) != 0)
				continue;
			if (!*expr)
				snprintf(expr, exprlen, "%s", name);
			return watchable(val, name, addr, size, why, whylen);
		}
	}
	snprintf(why, whylen, "no variable '%.80s' there", name);
	return -1;
}

int dap_expr_data(struct dap *d, int frame_id, const char *text, uint64_t *addr, uint64_t *size,
		  struct dap_value *val, char *why, size_t whylen)
{
	struct dap_frame_env fe;
	int rc = dap_frame_env(d, frame_id, &fe);

	if (rc) {
		snprintf(why, whylen, "%s",
			 rc == -ENODATA ? "no debug information (DWARF) to evaluate expressions in"
					: "no such frame at this stop");
		return -1;
	}
	if (dap_eval_text(text, &fe.env, val, why, whylen) < 0)
		return -1;
	return watchable(val, text, addr, size, why, whylen);
}
