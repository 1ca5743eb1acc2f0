/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stopped replay as dap/frames.h's and dwarf/'s readers see it: memory
 * through 'm', registers through 'g' (gdb's amd64 numbering, which orders
 * rbx before rdx, turned into DWARF's), and the modules refreshed at a
 * stop from qXfer:auxv and the dynamic linker's list.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dap/internal.h"

struct target_arg {
	struct dap *d;
	int tid;
};

static int target_mem(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct target_arg *a = arg;

	return dap_read_mem_cached(a->d, addr, buf, len);
}

static int target_reg(void *arg, int regno, uint64_t *val)
{
	/* DWARF 0..16 (rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip) in gdb's
	 * 'g' order (rax rbx rcx rdx rsi rdi rbp rsp r8-r15 rip). */
	static const int gdb_of[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct target_arg *a = arg;
	int err;

	if (regno < 0 || regno > 16)
		return -EINVAL;
	err = dap_read_regs(a->d, a->tid);
	if (err)
		return err;
	*val = dap_reg(a->d, gdb_of[regno]);
	return 0;
}

void dap_target_of(struct dap *d, int tid, struct dap_target *t)
{
	static struct target_arg arg; /* one adapter, one stopped target */

	arg.d = d;
	arg.tid = tid;
	t->read_mem = target_mem;
	t->read_reg = target_reg;
	t->arg = &arg;
}

int dap_read_auxv(struct dap *d, struct hm_buf *auxv)
{
	while (auxv->len < 65536) {
		int err = dap_rsp_request(&d->rsp, "qXfer:auxv:read::%zx,800", auxv->len);

		if (err)
			return err;
		if (d->rsp.pkt.data[0] != 'm' && d->rsp.pkt.data[0] != 'l')
			return -EIO;
		hm_buf_add(auxv, d->rsp.pkt.data + 1, d->rsp.pkt.len - 1);
		if (d->rsp.pkt.data[0] == 'l')
			return 0;
	}
	return 0;
}

int dap_refresh_modules(struct dap *d, int tid)
{
	struct dap_target t;
	struct hm_buf auxv;
	int err;

	if (!d->src)
		return -ENOENT;
	hm_buf_init(&auxv);
	err = dap_read_auxv(d, &auxv);
	if (!err) {
		dap_target_of(d, tid, &t);
		err = dap_source_refresh(d->src, &t, auxv.data, auxv.len);
	}
	hm_buf_free(&auxv);
	return err;
}
