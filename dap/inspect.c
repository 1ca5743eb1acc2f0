/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Looking at a stop: threads (qfThreadInfo, names from qXfer:threads),
 * the Registers scope's variables (from 'g' for the top frame, as the
 * unwinder recovered them for its callers), memory ('m', base64 to the
 * client) and disassembly (disasm.c). The stack, the other scopes and
 * expressions are stack.c's and vars.c's.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dap/internal.h"

int dap_read_regs(struct dap *d, int tid)
{
	size_t n;
	int err;

	if (d->regs_tid == tid)
		return 0;
	err = dap_rsp_request(&d->rsp, "Hg%x", (unsigned)tid);
	if (!err && strcmp((char *)d->rsp.pkt.data, "OK") != 0)
		err = -ESRCH;
	if (!err)
		err = dap_rsp_request(&d->rsp, "g");
	if (err)
		return err;
	n = d->rsp.pkt.len / 2 < DAP_REGS_SIZE ? d->rsp.pkt.len / 2 : DAP_REGS_SIZE;
	if (d->rsp.pkt.data[0] == 'E' || n < 17 * 8)
		return -EIO;
	memset(d->regs, 0, sizeof(d->regs));
	for (size_t i = 0; i < n; i++) {
		char *h = (char *)d->rsp.pkt.data + 2 * i;

		/* ('x': not available, left 0) */
		if (h[0] != 'x' && hm_unhex(h, 1, &d->regs[i]) < 0)
			return -EIO;
	}
	d->regs_tid = tid;
	return 0;
}

/* The 'g' layout (gdbstub/gdbstub.h): offset and size of register REGNO. */
static int reg_at(int regno, size_t *off, size_t *size)
{
	if (regno < 17) {
		*off = (size_t)regno * 8;
		*size = 8;
	} else if (regno < 24) {
		*off = 136 + (size_t)(regno - 17) * 4;
		*size = 4;
	} else if (regno >= 40 && regno <= 42) {
		*off = 276 + (size_t)(regno - 40) * 8;
		*size = 8;
	} else {
		return -EINVAL;
	}
	return 0;
}

uint64_t dap_reg(const struct dap *d, int regno)
{
	size_t off, size;
	uint64_t v = 0;

	if (reg_at(regno, &off, &size) == 0)
		memcpy(&v, d->regs + off, size);
	return v;
}

int dap_read_mem(struct dap *d, uint64_t addr, uint8_t *buf, size_t len)
{
	while (len) {
		size_t n = len < 4000 ? len : 4000;
		int err = dap_rsp_request(&d->rsp, "m%" PRIx64 ",%zx", addr, n);
		size_t got;

		if (err)
			return err;
		got = d->rsp.pkt.len / 2;
		if (d->rsp.pkt.data[0] == 'E' || got == 0)
			return -EFAULT;
		if (got > n)
			got = n;
		if (hm_unhex((char *)d->rsp.pkt.data, got, buf) < 0)
			return -EIO;
		if (got < n)
			return -EFAULT;
		addr += n;
		buf += n;
		len -= n;
	}
	return 0;
}

/* ---- threads ---- */

/* The name of thread TID in the qXfer:threads document XML, or NULL. */
static char *xml_name(const char *xml, int tid)
{
	char want[32];
	const char *p = xml;

	snprintf(want, sizeof(want), "id=\"%x\"", (unsigned)tid);
	while ((p = strstr(p, "<thread ")) != NULL) {
		const char *end = strchr(p, '>'), *id = strstr(p, want), *nm = strstr(p, "name=\"");
		struct hm_buf b;

		if (!end)
			return NULL;
		if (!id || id > end || !nm || nm > end) {
			p = end;
			continue;
		}
		hm_buf_init(&b);
		for (nm += 6; *nm && *nm != '"' && nm < end; nm++) {
			/* (the stub escapes &, <, >, " and ') */
			static const struct {
				const char *ent;
				char c;
			} ents[] = { { "&amp;", '&' },
				     { "&lt;", '<' },
				     { "&gt;", '>' },
				     { "&quot;", '"' },
				     { "&apos;", '\'' } };
			char c = *nm;

			for (size_t e = 0; c == '&' && e < sizeof(ents) / sizeof(ents[0]); e++) {
				size_t l = strlen(ents[e].ent);

				if (!strncmp(nm, ents[e].ent, l)) {
					c = ents[e].c;
					nm += l - 1;
					break;
				}
			}
			hm_buf_add(&b, &c, 1);
		}
		hm_buf_add(&b, "", 1);
		return (char *)b.data;
	}
	return NULL;
}

static int listed(const int *tids, size_t n, int tid)
{
	for (size_t i = 0; i < n; i++) {
		if (tids[i] == tid)
			return 1;
	}
	return 0;
}

static void thread_event(struct dap *d, const char *reason, int tid)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "reason", reason);
	cJSON_AddNumberToObject(b, "threadId", tid);
	dap_event(d, "thread", b);
}

void dap_update_threads(struct dap *d, int events)
{
	int *tids = NULL;
	size_t n = 0;
	struct hm_buf xml;
	const char *q = "qfThreadInfo";

	for (;;) {
		const char *p;

		if (dap_rsp_request(&d->rsp, "%s", q) < 0 || d->rsp.pkt.data[0] != 'm')
			break;
		for (p = (char *)d->rsp.pkt.data + 1; *p && n < 4096;) {
			char *end;
			const char *dot = NULL;
			long t;

			for (const char *c = p; *c && *c != ','; c++) {
				if (*c == '.')
					dot = c;
			}
			t = strtol(dot ? dot + 1 : p, &end, 16);
			tids = xrealloc(tids, (n + 1) * sizeof(*tids));
			if (t > 0)
				tids[n++] = (int)t;
			p = strchr(p, ',');
			if (!p)
				break;
			p++;
		}
		q = "qsThreadInfo";
	}
	hm_buf_init(&xml);
	while (xml.len < (1u << 20)) {
		if (dap_rsp_request(&d->rsp, "qXfer:threads:read::%zx,fff", xml.len) < 0 ||
		    (d->rsp.pkt.data[0] != 'm' && d->rsp.pkt.data[0] != 'l'))
			break;
		hm_buf_add(&xml, d->rsp.pkt.data + 1, d->rsp.pkt.len - 1);
		if (d->rsp.pkt.data[0] == 'l')
			break;
	}
	hm_buf_add(&xml, "", 1);
	for (size_t i = 0; events && i < n; i++) {
		if (!listed(d->tids, d->nthreads, tids[i]))
			thread_event(d, "started", tids[i]);
	}
	for (size_t i = 0; events && i < d->nthreads; i++) {
		if (!listed(tids, n, d->tids[i]))
			thread_event(d, "exited", d->tids[i]);
	}
	for (size_t i = 0; i < d->nthreads; i++)
		free(d->names[i]);
	free(d->names);
	free(d->tids);
	d->tids = tids;
	d->nthreads = n;
	d->names = xcalloc(n + 1, sizeof(*d->names));
	for (size_t i = 0; i < n; i++) {
		char *nm = xml_name((char *)xml.data, tids[i]);
		char def[48];

		snprintf(def, sizeof(def), "thread %d", tids[i]);
		if (nm) {
			char *full = xmalloc(strlen(nm) + 32);

			sprintf(full, "%s (%d)", nm, tids[i]);
			free(nm);
			nm = full;
		}
		d->names[i] = nm ? nm : xstrdup(def);
	}
	hm_buf_free(&xml);
}

void dap_req_threads(struct dap *d, struct dap_req *r)
{
	cJSON *b = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(b, "threads");

	/* (while the replay runs: the list of its last stop) */
	for (size_t i = 0; d->launched && !d->ended && i < d->nthreads; i++) {
		cJSON *t = cJSON_CreateObject();

		cJSON_AddNumberToObject(t, "id", d->tids[i]);
		cJSON_AddStringToObject(t, "name", d->names[i]);
		cJSON_AddItemToArray(arr, t);
	}
	dap_respond(d, r, b);
}

/* ---- frames, scopes, variables ---- */

static const struct {
	const char *name;
	int regno;
} shown[] = {
	{ "rax", 0 },	   { "rbx", 1 },       { "rcx", 2 },	 { "rdx", 3 },	{ "rsi", 4 },
	{ "rdi", 5 },	   { "rbp", 6 },       { "rsp", 7 },	 { "r8", 8 },	{ "r9", 9 },
	{ "r10", 10 },	   { "r11", 11 },      { "r12", 12 },	 { "r13", 13 }, { "r14", 14 },
	{ "r15", 15 },	   { "rip", 16 },      { "eflags", 17 }, { "cs", 18 },	{ "ss", 19 },
	{ "ds", 20 },	   { "es", 21 },       { "fs", 22 },	 { "gs", 23 },	{ "fs_base", 41 },
	{ "gs_base", 42 }, { "orig_rax", 40 },
};

void dap_registers(struct dap *d, struct dap_req *r, const struct dap_frame *f)
{
	/* gdb's numbering (shown[]) to DWARF's (frames.h) */
	static const int dwarf_of[17] = {
		0, 3, 2, 1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
	};
	const struct dap_stack_frame *uf = NULL;
	cJSON *b, *arr;
	int err;

	err = dap_read_regs(d, f->tid);
	if (err) {
		dap_fail(d, r, "variables: cannot read thread %d's registers: %s", f->tid,
			 hm_strerror(err));
		return;
	}
	/* A caller's frame: the registers the unwinder recovered (the
	 * others were not saved: gdb's <not saved>). */
	if (f->level > 0)
		uf = dap_frame_unwound(d, f);
	if (f->level > 0 && !uf) {
		dap_fail(d, r, "variables: frame %d of thread %d is gone", f->level, f->tid);
		return;
	}
	b = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(b, "variables");
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		cJSON *v;
		uint64_t x = dap_reg(d, shown[i].regno);
		char text[96];

		if (uf && shown[i].regno > 16)
			continue; /* (not unwound) */
		v = cJSON_CreateObject();
		if (uf)
			x = uf->regs[dwarf_of[shown[i].regno]];
		if (uf && !(uf->have & (1u << dwarf_of[shown[i].regno]))) {
			snprintf(text, sizeof(text), "<not saved>");
		} else if (shown[i].regno == 17) {
			static const char *flags[] = { "CF", 0,	   "PF", 0,    "AF", 0,
						       "ZF", "SF", "TF", "IF", "DF", "OF" };

			snprintf(text, sizeof(text), "0x%" PRIx64 " [", x);
			for (int bit = 0; bit < 12; bit++) {
				if (flags[bit] && (x >> bit & 1))
					snprintf(text + strlen(text), sizeof(text) - strlen(text),
						 " %s", flags[bit]);
			}
			strcat(text, " ]");
		} else if (shown[i].regno >= 18 && shown[i].regno <= 23) {
			snprintf(text, sizeof(text), "0x%" PRIx64, x);
		} else {
			snprintf(text, sizeof(text), "0x%016" PRIx64, x);
			cJSON_AddStringToObject(v, "memoryReference", text);
		}
		cJSON_AddStringToObject(v, "name", shown[i].name);
		cJSON_AddStringToObject(v, "value", text);
		cJSON_AddNumberToObject(v, "variablesReference", 0);
		cJSON_AddItemToArray(arr, v);
	}
	dap_respond(d, r, b);
}

/* ---- memory ---- */

static char *base64(const uint8_t *p, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = xmalloc(4 * ((n + 2) / 3) + 1), *o = out;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);

		*o++ = tab[v >> 18 & 63];
		*o++ = tab[v >> 12 & 63];
		*o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*o = 0;
	return out;
}

/* The readable bytes from ADDR on, at most LEN, into BUF: how many. */
static size_t read_prefix(struct dap *d, uint64_t addr, uint8_t *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		/* a page at a time: one that cannot be read ends it */
		size_t n = 4096 - ((addr + done) & 4095);

		if (n > len - done)
			n = len - done;
		if (dap_read_mem(d, addr + done, buf + done, n) < 0) {
			/* (the part of the page before a hole) */
			while (n > 1) {
				n /= 2;
				if (dap_read_mem(d, addr + done, buf + done, n) == 0)
					done += n;
				else
					break;
			}
			break;
		}
		done += n;
	}
	return done;
}

#define MAX_READ (1u << 20)

void dap_req_read_memory(struct dap *d, struct dap_req *r)
{
	const char *mref;
	int64_t off = 0, count;
	uint64_t addr;
	uint8_t *buf;
	size_t got;
	char *data, a[32];
	cJSON *b;

	if (dap_arg_str(d, r, "memoryReference", 1, &mref) < 0 ||
	    dap_arg_num(d, r, "offset", 0, &off) < 0 || dap_arg_num(d, r, "count", 1, &count) < 0)
		return;
	if (dap_parse_addr(mref, &addr) < 0) {
		dap_fail(d, r, "readMemory: '%s' is not an address", mref);
		return;
	}
	if (count < 0 || count > MAX_READ) {
		dap_fail(d, r, "readMemory: count must be 0 to %u", MAX_READ);
		return;
	}
	addr += (uint64_t)off;
	buf = xmalloc((size_t)count + 1);
	got = read_prefix(d, addr, buf, (size_t)count);
	data = base64(buf, got);
	snprintf(a, sizeof(a), "0x%" PRIx64, addr);
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "address", a);
	cJSON_AddStringToObject(b, "data", data);
	if (got < (size_t)count)
		cJSON_AddNumberToObject(b, "unreadableBytes", (double)((size_t)count - got));
	free(data);
	free(buf);
	dap_respond(d, r, b);
}

/* ---- disassembly ---- */

struct insn {
	uint64_t addr;
	int len; /* 0: unreadable or undecodable, one byte taken */
	uint8_t bytes[16];
	char text[96];
};

/* The bytes a request decodes, read once (readable prefix only). */
struct code {
	uint64_t lo;
	size_t n;
	uint8_t *buf;
};

static void code_read(struct dap *d, struct code *c, uint64_t lo, size_t len)
{
	c->lo = lo;
	c->buf = xmalloc(len + 1);
	c->n = read_prefix(d, lo, c->buf, len);
}

static void decode_at(struct code *c, uint64_t addr, struct insn *in)
{
	size_t n;

	in->addr = addr;
	in->len = 0;
	if (addr < c->lo || addr >= c->lo + c->n)
		return;
	n = c->lo + c->n - addr < 16 ? (size_t)(c->lo + c->n - addr) : 16;
	memcpy(in->bytes, c->buf + (addr - c->lo), n);
	in->len = dap_disasm_one(in->bytes, n, addr, in->text, sizeof(in->text));
	if (in->len < 0)
		in->len = 0;
}

static cJSON *insn_json(struct dap *d, const struct insn *in, int with_symbol)
{
	cJSON *o = cJSON_CreateObject();
	char a[32], hex[64] = "";
	const char *fn;
	uint64_t start;

	snprintf(a, sizeof(a), "0x%" PRIx64, in->addr);
	cJSON_AddStringToObject(o, "address", a);
	if (!in->len) {
		cJSON_AddStringToObject(o, "instruction", "(bad)");
		cJSON_AddStringToObject(o, "presentationHint", "invalid");
		return o;
	}
	for (int i = 0; i < in->len; i++)
		snprintf(hex + strlen(hex), sizeof(hex) - strlen(hex), "%s%02x", i ? " " : "",
			 in->bytes[i]);
	cJSON_AddStringToObject(o, "instructionBytes", hex);
	cJSON_AddStringToObject(o, "instruction", in->text);
	if (with_symbol && d->src && dap_source_function(d->src, in->addr, &fn, &start) == 0 &&
	    start == in->addr)
		cJSON_AddStringToObject(o, "symbol", fn);
	return o;
}

#define MAX_INSNS 4096

void dap_req_disassemble(struct dap *d, struct dap_req *r)
{
	const char *mref;
	int64_t off = 0, ioff = 0, count;
	int syms = 1;
	uint64_t base, from;
	struct insn *back = NULL, *fwd = NULL;
	size_t nback = 0, need_back, nfwd = 0, need_fwd;
	struct code back_code = { 0 }, fwd_code = { 0 };
	const char *fn;
	cJSON *b, *arr;

	if (dap_arg_str(d, r, "memoryReference", 1, &mref) < 0 ||
	    dap_arg_num(d, r, "offset", 0, &off) < 0 ||
	    dap_arg_num(d, r, "instructionOffset", 0, &ioff) < 0 ||
	    dap_arg_num(d, r, "instructionCount", 1, &count) < 0 ||
	    dap_arg_bool(d, r, "resolveSymbols", &syms) < 0)
		return;
	if (dap_parse_addr(mref, &base) < 0) {
		dap_fail(d, r, "disassemble: '%s' is not an address", mref);
		return;
	}
	if (count < 0 || count > MAX_INSNS || ioff < -MAX_INSNS || ioff > MAX_INSNS) {
		dap_fail(d, r,
			 "disassemble: instructionCount and instructionOffset must be "
			 "within %d",
			 MAX_INSNS);
		return;
	}
	base += (uint64_t)off;
	need_back = ioff < 0 ? (size_t)-ioff : 0;
	need_fwd = (size_t)(ioff > 0 ? ioff : 0) + (size_t)count;
	if (need_back) {
		/* x86 does not decode backwards: from the function's start,
		 * where there is one near, else from far enough back that the
		 * decoding has likely fallen into step */
		uint64_t start;

		from = base - 15 * need_back - 64;
		if (d->src && dap_source_function(d->src, base, &fn, &start) == 0 &&
		    base - start <= 15 * need_back + 4096 && start <= base - need_back)
			from = start;
		if (from > base) /* (below address 0) */
			from = 0;
		code_read(d, &back_code, from, (size_t)(base - from));
		back = xcalloc(need_back, sizeof(*back));
		for (uint64_t a = from; a < base;) {
			struct insn in;

			decode_at(&back_code, a, &in);
			back[nback % need_back] = in;
			nback++;
			a += in.len ? (uint64_t)in.len : 1;
		}
	}
	fwd = xcalloc(need_fwd + 1, sizeof(*fwd));
	code_read(d, &fwd_code, base, 15 * need_fwd);
	for (uint64_t a = base; nfwd < need_fwd;) {
		decode_at(&fwd_code, a, &fwd[nfwd]);
		a += fwd[nfwd].len ? (uint64_t)fwd[nfwd].len : 1;
		nfwd++;
	}
	b = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(b, "instructions");
	for (size_t i = 0; i < need_back && (int64_t)cJSON_GetArraySize(arr) < count; i++) {
		/* the last need_back decoded, oldest first; short of them,
		 * invalid entries at the bytes before */
		size_t pad = nback < need_back ? need_back - nback : 0;
		struct insn in = { 0 };

		if (i < pad)
			in.addr = (nback ? back[0].addr : base) - (pad - i);
		else
			in = back[(nback - need_back + i) % need_back];
		cJSON_AddItemToArray(arr, insn_json(d, &in, syms));
	}
	for (size_t i = ioff > 0 ? (size_t)ioff : 0;
	     i < nfwd && (int64_t)cJSON_GetArraySize(arr) < count; i++)
		cJSON_AddItemToArray(arr, insn_json(d, &fwd[i], syms));
	free(back);
	free(fwd);
	free(back_code.buf);
	free(fwd_code.buf);
	dap_respond(d, r, b);
}
