/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A stop's stacks at source level. Each thread's frames are unwound once
 * per stop (dap/frames.h, after the modules are refreshed, also once per
 * stop), and each real frame is expanded into its inlined frames
 * (dw_frames_at at its lookup pc), named by DWARF where its module has it
 * and by the module's ELF symbol where not (libc without debug info: no
 * source, presented as "subtle"). A frame id names (thread, unwound
 * frame, inline depth) and holds until the next resume, as DAP lets it;
 * dap_frame_env() makes one the evaluation environment of dap/value.h.
 * Target memory read at a stop is kept in lines until the next resume:
 * a replay cannot change while it is stopped, and each read over RSP is a
 * round trip.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dap/internal.h"

#define MAX_UNWIND 256 /* real frames */
#define MAX_INLINE 16  /* inlined frames in one */

void dap_forget_stop(struct dap *d)
{
	free(d->frames);
	d->frames = NULL;
	d->nframes = 0;
	d->regs_tid = 0;
	for (size_t i = 0; i < d->nstacks; i++)
		free(d->stacks[i].v);
	free(d->stacks);
	d->stacks = NULL;
	d->nstacks = 0;
	for (size_t i = 0; i < d->nvrefs; i++)
		free(d->vrefs[i].expr);
	free(d->vrefs);
	d->vrefs = NULL;
	d->nvrefs = 0;
	d->modules_fresh = 0;
	for (size_t i = 0; i < DAP_MEMLINES; i++)
		d->memcache[i].ok = 0;
}

int dap_read_mem_cached(struct dap *d, uint64_t addr, void *buf, size_t len)
{
	uint8_t *out = buf;

	while (len) {
		uint64_t base = addr & ~(uint64_t)(DAP_MEMLINE - 1);
		size_t slot = (size_t)(base / DAP_MEMLINE) % DAP_MEMLINES, n;

		if (!d->memcache[slot].ok || d->memcache[slot].addr != base) {
			/* (a line never crosses a page: one that fails is
			 * unreadable, or partly so; read just what was asked) */
			if (dap_read_mem(d, base, d->memcache[slot].bytes, DAP_MEMLINE) < 0) {
				d->memcache[slot].ok = 0;
				return dap_read_mem(d, addr, out, len);
			}
			d->memcache[slot].addr = base;
			d->memcache[slot].ok = 1;
		}
		n = DAP_MEMLINE - (size_t)(addr - base);
		if (n > len)
			n = len;
		memcpy(out, d->memcache[slot].bytes + (addr - base), n);
		out += n;
		addr += n;
		len -= n;
	}
	return 0;
}

static void refresh(struct dap *d, int tid)
{
	if (d->modules_fresh || !d->src)
		return;
	d->modules_fresh = 1;
	/* (a failure keeps the last list: still the best there is) */
	(void)dap_refresh_modules(d, tid);
}

/* Frame 0 of TID from its registers alone. 0 or -errno. */
static int top_frame(struct dap *d, int tid, struct dap_stack_frame *f)
{
	struct dap_target t;

	memset(f, 0, sizeof(*f));
	dap_target_of(d, tid, &t);
	for (int i = 0; i < 17; i++) {
		int err = t.read_reg(t.arg, i, &f->regs[i]);

		if (err)
			return err;
	}
	f->have = (1u << 17) - 1;
	f->pc = f->lookup = f->regs[16];
	return 0;
}

/* The frames of TID, unwound once at this stop (at least frame 0, when
 * its registers can be read), or NULL. */
static const struct dap_unwound *unwound(struct dap *d, int tid)
{
	struct dap_stack_frame *v;
	struct dap_target t;
	int n = -ENOENT;

	for (size_t i = 0; i < d->nstacks; i++) {
		if (d->stacks[i].tid == tid)
			return &d->stacks[i];
	}
	refresh(d, tid);
	v = xcalloc(MAX_UNWIND, sizeof(*v));
	if (d->src) {
		dap_target_of(d, tid, &t);
		n = dap_unwind(dap_source_modules(d->src), &t, v, MAX_UNWIND);
	}
	if (n < 1)
		n = top_frame(d, tid, &v[0]) == 0 ? 1 : 0;
	/* A caller that repeats its callee, or is in no module, is the
	 * unwinder reading what is no frame (a thread not started yet, a
	 * stack gdb would call corrupt): the stack ends there. */
	for (int i = 1; i < n; i++) {
		if ((v[i].pc == v[i - 1].pc && v[i].cfa == v[i - 1].cfa) ||
		    (d->src && !dap_module_at(dap_source_modules(d->src), v[i].lookup))) {
			n = i;
			break;
		}
	}
	if (n == 0) {
		free(v);
		return NULL;
	}
	d->stacks = xrealloc(d->stacks, (d->nstacks + 1) * sizeof(*d->stacks));
	d->stacks[d->nstacks] = (struct dap_unwound){ tid, v, (size_t)n };
	return &d->stacks[d->nstacks++];
}

/* The id of (TID, LEVEL, DEPTH), made now if new. */
static int frame_id(struct dap *d, int tid, int level, int depth)
{
	for (size_t i = 0; i < d->nframes; i++) {
		const struct dap_frame *f = &d->frames[i];

		if (f->tid == tid && f->level == level && f->depth == depth)
			return (int)i + 1;
	}
	d->frames = xrealloc(d->frames, (d->nframes + 1) * sizeof(*d->frames));
	d->frames[d->nframes++] = (struct dap_frame){ tid, level, depth };
	return (int)d->nframes;
}

const struct dap_frame *dap_frame_of(struct dap *d, int64_t frame_id)
{
	return frame_id >= 1 && (uint64_t)frame_id <= d->nframes ? &d->frames[frame_id - 1] : NULL;
}

const struct dap_stack_frame *dap_frame_unwound(struct dap *d, const struct dap_frame *f)
{
	const struct dap_unwound *u = unwound(d, f->tid);

	return u && (size_t)f->level < u->n ? &u->v[f->level] : NULL;
}

/* ---- environments ---- */

static int env_reg(void *arg, int regno, uint64_t *val)
{
	const struct dap_frame_env *fe = arg;

	if (regno < 0 || regno > 16 || !(fe->uf.have & (1u << regno)))
		return -EIO;
	*val = fe->uf.regs[regno];
	return 0;
}

static int env_mem(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct dap_frame_env *fe = arg;

	return dap_read_mem_cached(fe->d, addr, buf, len);
}

/* Another module's global NAME, the program's first (dap_eval_env's
 * global). */
static int env_global(void *arg, const char *name, struct dap_value *out, char *err, size_t errlen)
{
	struct dap_frame_env *fe = arg;
	const struct dap_modules *ms = dap_source_modules(fe->d->src);

	for (size_t i = 0; i < ms->n; i++) {
		uint64_t bias = 0;
		struct dw_syms *syms = dap_source_syms_at(fe->d->src, ms->v[i].lo, &bias);
		struct dap_eval_env env;
		struct dw_reader r;
		struct dw_var g;

		if (!syms || syms == fe->env.syms || dw_global_by_name(syms, name, &g) < 0)
			continue;
		/* (its address is that module's: its bias; no frame) */
		r = fe->r;
		r.pc = 0;
		r.cfa = 0;
		r.bias = bias;
		env = fe->env;
		env.syms = syms;
		env.r = &r;
		env.global = NULL;
		return dap_value_of_var(&env, &g, out, err, errlen);
	}
	return 1;
}

int dap_frame_env(struct dap *d, int frame_id, struct dap_frame_env *fe)
{
	const struct dap_stack_frame *uf;
	const struct dap_frame *f = NULL;
	struct dw_syms *syms = NULL;
	uint64_t bias = 0;

	memset(fe, 0, sizeof(*fe));
	if (!d->src)
		return -ENODATA;
	if (frame_id == 0) {
		refresh(d, d->tid);
		if (top_frame(d, d->tid, &fe->uf) < 0)
			return -ESRCH;
	} else {
		f = dap_frame_of(d, frame_id);
		uf = f ? dap_frame_unwound(d, f) : NULL;
		if (!uf)
			return -ENOENT;
		fe->uf = *uf;
	}
	fe->d = d;
	fe->r.reg = env_reg;
	fe->r.mem = env_mem;
	fe->r.arg = fe;
	syms = dap_source_syms_at(d->src, fe->uf.lookup, &bias);
	if (syms) {
		fe->dwarf = 1;
		fe->r.pc = fe->uf.lookup - bias;
		fe->r.cfa = fe->uf.cfa;
		fe->r.bias = bias;
	} else {
		/* a frame without DWARF (libc's): the program's globals */
		const struct dap_modules *ms = dap_source_modules(d->src);

		if (!ms->n || !(syms = dap_source_syms_at(d->src, ms->v[0].lo, &bias)))
			return -ENODATA;
		fe->r.bias = bias;
	}
	fe->env.syms = syms;
	fe->env.r = &fe->r;
	fe->env.depth = f ? f->depth : 0;
	fe->env.global = env_global;
	fe->env.global_arg = fe;
	return 0;
}

/* ---- stackTrace ---- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The DAP frames of unwound frame F (level LEVEL of TID) into ARR. */
static void add_frames(struct dap *d, int tid, int level, const struct dap_stack_frame *f,
		       cJSON *arr)
{
	struct dw_frame df[MAX_INLINE];
	const struct dap_module *m = dap_module_at(dap_source_modules(d->src), f->lookup);
	uint64_t bias = 0, off;
	struct dw_syms *syms = dap_source_syms_at(d->src, f->lookup, &bias);
	int n = syms ? dw_frames_at(syms, f->lookup - bias, df, MAX_INLINE) : 0;
	char ref[32], name[300];

	snprintf(ref, sizeof(ref), "0x%" PRIx64, f->pc);
	if (n > MAX_INLINE)
		n = MAX_INLINE;
	for (int k = 0; k < n; k++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "id", frame_id(d, tid, level, k));
		cJSON_AddStringToObject(o, "name", df[k].name ? df[k].name : "??");
		if (df[k].file && df[k].line) {
			cJSON *src = cJSON_AddObjectToObject(o, "source");

			cJSON_AddStringToObject(src, "name", base_name(df[k].file));
			cJSON_AddStringToObject(src, "path", df[k].file);
			cJSON_AddNumberToObject(o, "line", df[k].line);
			cJSON_AddNumberToObject(o, "column", df[k].column ? df[k].column : 1);
		} else {
			cJSON_AddNumberToObject(o, "line", 0);
			cJSON_AddNumberToObject(o, "column", 0);
			cJSON_AddStringToObject(o, "presentationHint", "subtle");
		}
		cJSON_AddStringToObject(o, "instructionPointerReference", ref);
		if (m)
			cJSON_AddStringToObject(o, "moduleId",
						dap_source_guest_path(d->src, m->name));
		cJSON_AddItemToArray(arr, o);
	}
	if (n > 0)
		return;
	/* no DWARF here: the ELF symbol, no source */
	{
		cJSON *o = cJSON_CreateObject();
		const char *sym = m ? dap_module_symbol(m, f->lookup, &off) : NULL;

		if (f->sigreturn)
			snprintf(name, sizeof(name), "<signal handler called>");
		else if (sym)
			snprintf(name, sizeof(name), "%s", sym);
		else if (m)
			snprintf(name, sizeof(name), "?? in %s",
				 base_name(dap_source_guest_path(d->src, m->name)));
		else
			snprintf(name, sizeof(name), "0x%016" PRIx64, f->pc);
		cJSON_AddNumberToObject(o, "id", frame_id(d, tid, level, 0));
		cJSON_AddStringToObject(o, "name", name);
		cJSON_AddNumberToObject(o, "line", 0);
		cJSON_AddNumberToObject(o, "column", 0);
		cJSON_AddStringToObject(o, "instructionPointerReference", ref);
		if (m)
			cJSON_AddStringToObject(o, "moduleId",
						dap_source_guest_path(d->src, m->name));
		cJSON_AddStringToObject(o, "presentationHint", f->sigreturn ? "label" : "subtle");
		cJSON_AddItemToArray(arr, o);
	}
}

/* Frame 0 by its pc alone (no symbols at all): "function+0xoff". */
static cJSON *bare_frame(struct dap *d, int tid, uint64_t pc)
{
	cJSON *o = cJSON_CreateObject();
	char name[256], ref[32];

	snprintf(name, sizeof(name), "0x%016" PRIx64, pc);
	snprintf(ref, sizeof(ref), "0x%" PRIx64, pc);
	cJSON_AddNumberToObject(o, "id", frame_id(d, tid, 0, 0));
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddNumberToObject(o, "line", 0);
	cJSON_AddNumberToObject(o, "column", 0);
	cJSON_AddStringToObject(o, "instructionPointerReference", ref);
	return o;
}

static int listed(const int *tids, size_t n, int tid)
{
	for (size_t i = 0; i < n; i++) {
		if (tids[i] == tid)
			return 1;
	}
	return 0;
}

void dap_req_stack_trace(struct dap *d, struct dap_req *r)
{
	int64_t tid, start = 0, levels = 0;
	const struct dap_unwound *u;
	cJSON *b, *all, *arr;
	int total;

	if (dap_arg_num(d, r, "threadId", 1, &tid) < 0 ||
	    dap_arg_num(d, r, "startFrame", 0, &start) < 0 ||
	    dap_arg_num(d, r, "levels", 0, &levels) < 0)
		return;
	if (tid <= 0 || tid > 0x7fffffff || !listed(d->tids, d->nthreads, (int)tid)) {
		dap_fail(d, r, "stackTrace: no thread %" PRId64 " in the replay now", tid);
		return;
	}
	if (start < 0 || levels < 0) {
		dap_fail(d, r, "stackTrace: startFrame and levels must not be negative");
		return;
	}
	u = unwound(d, (int)tid);
	if (!u) {
		dap_fail(d, r, "stackTrace: cannot read thread %" PRId64 "'s registers", tid);
		return;
	}
	all = cJSON_CreateArray();
	for (size_t i = 0; i < u->n; i++) {
		if (d->src)
			add_frames(d, (int)tid, (int)i, &u->v[i], all);
		else if (i == 0)
			cJSON_AddItemToArray(all, bare_frame(d, (int)tid, u->v[0].pc));
	}
	total = cJSON_GetArraySize(all);
	b = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(b, "stackFrames");
	for (int64_t i = start; i < total && (levels == 0 || i < start + levels); i++)
		cJSON_AddItemToArray(arr, cJSON_Duplicate(cJSON_GetArrayItem(all, (int)i), 1));
	cJSON_Delete(all);
	cJSON_AddNumberToObject(b, "totalFrames", total);
	dap_respond(d, r, b);
}

/* ---- loadedSources, modules ---- */

void dap_req_loaded_sources(struct dap *d, struct dap_req *r)
{
	cJSON *b = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(b, "sources");
	const char *f;

	if (d->src && d->launched && !d->ended && d->run == DAP_RUN_NONE)
		refresh(d, d->tid);
	for (size_t i = 0; d->src && (f = dap_source_file(d->src, i)) != NULL; i++) {
		cJSON *s = cJSON_CreateObject();

		cJSON_AddStringToObject(s, "name", base_name(f));
		cJSON_AddStringToObject(s, "path", f);
		cJSON_AddItemToArray(arr, s);
	}
	dap_respond(d, r, b);
}

void dap_req_modules(struct dap *d, struct dap_req *r)
{
	int64_t start = 0, count = 0;
	const struct dap_modules *ms;
	cJSON *b, *arr;

	if (dap_arg_num(d, r, "startModule", 0, &start) < 0 ||
	    dap_arg_num(d, r, "moduleCount", 0, &count) < 0)
		return;
	if (d->src && d->launched && !d->ended && d->run == DAP_RUN_NONE)
		refresh(d, d->tid);
	b = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(b, "modules");
	ms = d->src ? dap_source_modules(d->src) : NULL;
	for (size_t i = start > 0 ? (size_t)start : 0;
	     ms && i < ms->n && (count <= 0 || (int64_t)i < start + count); i++) {
		const struct dap_module *m = &ms->v[i];
		struct dw_syms *syms = dap_source_syms_at(d->src, m->lo, NULL);
		const char *path = dap_source_guest_path(d->src, m->name);
		cJSON *o = cJSON_CreateObject();
		char range[64];

		snprintf(range, sizeof(range), "0x%" PRIx64 "-0x%" PRIx64, m->lo, m->hi);
		cJSON_AddStringToObject(o, "id", path);
		cJSON_AddStringToObject(o, "name", base_name(path));
		cJSON_AddStringToObject(o, "path", path);
		cJSON_AddStringToObject(o, "addressRange", range);
		cJSON_AddStringToObject(o, "symbolStatus",
					syms	 ? "Symbols loaded (DWARF)."
					: m->elf ? "ELF symbols only (no debug info)."
						 : "No symbols (no copy of the file).");
		if (syms && dw_syms_debug_file(syms))
			cJSON_AddStringToObject(o, "symbolFilePath", dw_syms_debug_file(syms));
		cJSON_AddItemToArray(arr, o);
	}
	cJSON_AddNumberToObject(b, "totalModules", ms ? (double)ms->n : 0);
	dap_respond(d, r, b);
}
