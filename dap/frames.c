/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unwinding a stopped guest thread the way perf unwinds a sample: with
 * libunwind's remote API, whose accessors read the thread's registers and
 * stack through struct dap_target (RSP, in the adapter) and the unwind
 * tables from the local ELF files (dap/modules.c). The code and tables of
 * a module are read from its file, never from the target: they are the
 * same bytes, and a read over RSP costs a round trip.
 *
 * The table of each module is its .eh_frame_hdr binary-search table,
 * handed to libunwind as a UNW_INFO_FORMAT_REMOTE_TABLE. libunwind exports
 * the search (dwarf_search_unwind_table) without declaring it; perf's
 * util/unwind-libunwind-local.c declares it the same way.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNW_REMOTE_ONLY
#include <libunwind.h>

#include "common/common.h"
#include "dap/frames.h"

extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

#define NREGS  17
#define LINE   64
#define NLINES 32

/* DW_EH_PE_* (LSB "Exception Frame Header"): what .eh_frame_hdr says. */
enum {
	EH_PE_UDATA4 = 0x03,
	EH_PE_SDATA4 = 0x0b,
	EH_PE_UDATA8 = 0x04,
	EH_PE_SDATA8 = 0x0c,
	EH_PE_DATAREL = 0x30,
};

/* One unwind's view of the target: the thread's registers and the stack
 * lines read so far, read once each. */
struct unwind {
	const struct dap_modules *ms;
	const struct dap_target *t;
	uint64_t regs[NREGS];
	uint32_t have_regs;
	struct {
		uint64_t addr; /* line-aligned; valid when ok */
		int ok;
		uint8_t bytes[LINE];
	} lines[NLINES];
};

static int target_reg(struct unwind *u, int regno, uint64_t *val)
{
	if (regno < 0 || regno >= NREGS)
		return -EINVAL;
	if (!(u->have_regs & (1u << regno))) {
		int rc = u->t->read_reg(u->t->arg, regno, &u->regs[regno]);

		if (rc < 0)
			return rc;
		u->have_regs |= 1u << regno;
	}
	*val = u->regs[regno];
	return 0;
}

static int target_word(struct unwind *u, uint64_t addr, uint64_t *val)
{
	uint64_t base = addr & ~(uint64_t)(LINE - 1);
	unsigned slot = (unsigned)(base / LINE) % NLINES;

	if (addr - base > LINE - sizeof(*val))
		return u->t->read_mem(u->t->arg, addr, val, sizeof(*val));
	if (!u->lines[slot].ok || u->lines[slot].addr != base) {
		int rc = u->t->read_mem(u->t->arg, base, u->lines[slot].bytes, LINE);

		if (rc < 0) {
			/* The line may cross into an unmapped page. */
			u->lines[slot].ok = 0;
			return u->t->read_mem(u->t->arg, addr, val, sizeof(*val));
		}
		u->lines[slot].addr = base;
		u->lines[slot].ok = 1;
	}
	memcpy(val, u->lines[slot].bytes + (addr - base), sizeof(*val));
	return 0;
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need,
			  void *arg)
{
	struct unwind *u = arg;
	const struct dap_module *m = dap_module_at(u->ms, ip);
	unw_dyn_info_t di;
	uint8_t hdr[4];
	uint64_t at;
	uint32_t count;
	size_t ptr_size;

	if (!m || dap_module_eh_frame_hdr(m, &at) < 0 || dap_module_read(m, at, hdr, 4) < 0)
		return -UNW_ENOINFO;
	/* version, eh_frame_ptr_enc, fde_count_enc, table_enc */
	if (hdr[0] != 1 || hdr[2] != EH_PE_UDATA4 || hdr[3] != (EH_PE_DATAREL | EH_PE_SDATA4))
		return -UNW_ENOINFO;
	switch (hdr[1] & 0x0f) {
	case EH_PE_UDATA4:
	case EH_PE_SDATA4:
		ptr_size = 4;
		break;
	case EH_PE_UDATA8:
	case EH_PE_SDATA8:
		ptr_size = 8;
		break;
	default:
		return -UNW_ENOINFO;
	}
	if (dap_module_read(m, at + 4 + ptr_size, &count, 4) < 0 || count == 0)
		return -UNW_ENOINFO;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = m->lo;
	di.end_ip = m->hi;
	di.u.rti.segbase = at;
	di.u.rti.table_data = at + 4 + ptr_size + 4;
	/* Entries are two 4-byte values; the length is in words. */
	di.u.rti.table_len = (uint64_t)count * 8 / sizeof(unw_word_t);
	return UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need, arg);
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* dwarf_search_unwind_table's info comes from libunwind's own pool,
	 * which it frees itself. */
	(void)as;
	(void)pi;
	(void)arg;
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	(void)as;
	(void)addr;
	(void)arg;
	return -UNW_ENOINFO; /* no JIT registers code with libunwind here */
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write, void *arg)
{
	struct unwind *u = arg;
	const struct dap_module *m;
	uint64_t v;

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	m = dap_module_at(u->ms, addr);
	if (m && dap_module_read(m, addr, &v, sizeof(v)) == 0) {
		*val = v;
		return 0;
	}
	if (target_word(u, addr, &v) < 0)
		return -UNW_EINVAL;
	*val = v;
	return 0;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write, void *arg)
{
	uint64_t v;

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	/* UNW_X86_64_RAX .. UNW_X86_64_RIP are the DWARF numbers 0 to 16. */
	if (reg < UNW_X86_64_RAX || reg > UNW_X86_64_RIP || target_reg(arg, reg, &v) < 0)
		return -UNW_EBADREG;
	*val = v;
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			void *arg)
{
	(void)as;
	(void)reg;
	(void)val;
	(void)write;
	(void)arg;
	return -UNW_EBADREG;
}

static int resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as;
	(void)c;
	(void)arg;
	return -UNW_EINVAL; /* a replay is never resumed from here */
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			 unw_word_t *offp, void *arg)
{
	struct unwind *u = arg;
	const struct dap_module *m = dap_module_at(u->ms, addr);
	uint64_t off;
	const char *name = m ? dap_module_symbol(m, addr, &off) : NULL;

	(void)as;
	if (!name || len == 0)
		return -UNW_ENOINFO;
	snprintf(buf, len, "%s", name);
	*offp = off;
	return strlen(name) < len ? 0 : -UNW_ENOMEM;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

/*
 * A caller's registers as libunwind recovers them: those the CFI saved
 * come from where it saved them, and the others keep the callee's values,
 * which is what DWARF's default "same value" rule says and what gdb
 * shows. gcc -O2 relies on it: its location lists keep a value in a
 * caller-saved register across a call it knows leaves that register alone.
 */
static void frame_regs(struct dap_stack_frame *f, unw_cursor_t *c)
{
	f->have = 0;
	for (int r = 0; r < NREGS; r++) {
		unw_word_t v;

		if (unw_get_reg(c, r, &v) == 0) {
			f->regs[r] = v;
			f->have |= 1u << r;
		}
	}
}

int dap_unwind(const struct dap_modules *ms, const struct dap_target *t, struct dap_stack_frame *out,
	       size_t max)
{
	struct unwind *u = xcalloc(1, sizeof(*u)); /* 2 KiB of lines */
	unw_addr_space_t as;
	unw_cursor_t c;
	size_t n = 0;

	if (max == 0)
		return -EINVAL;
	u->ms = ms;
	u->t = t;
	memset(out, 0, sizeof(*out));
	for (int r = 0; r < NREGS; r++)
		if (target_reg(u, r, &out[0].regs[r]) == 0)
			out[0].have |= 1u << r;
	if (!(out[0].have & (1u << 16))) {
		free(u);
		return -EIO;
	}
	out[0].pc = out[0].lookup = out[0].regs[16];
	as = unw_create_addr_space(&accessors, 0);
	if (!as) {
		free(u);
		return 1;
	}
	unw_set_caching_policy(as, UNW_CACHE_NONE);
	if (unw_init_remote(&c, as, u) < 0) {
		unw_destroy_addr_space(as);
		free(u);
		return 1;
	}
	/*
	 * libunwind says a cursor is at a signal frame (unw_is_signal_frame)
	 * once its step went through the signal trampoline, __restore_rt,
	 * whose CFI glibc marks with the 'S' augmentation: that is, at the
	 * frame the signal interrupted, whose pc is exact and whose registers
	 * all come back from the signal frame.
	 */
	for (;;) {
		struct dap_stack_frame *f = &out[n];
		unw_word_t ip, sp, next_sp;
		int interrupted;

		n++;
		if (n == max || unw_get_reg(&c, UNW_REG_SP, &sp) < 0 || unw_step(&c) <= 0 ||
		    unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0 ||
		    unw_get_reg(&c, UNW_REG_SP, &next_sp) < 0)
			break;
		interrupted = unw_is_signal_frame(&c) > 0;
		/* A stack that does not grow back up is a broken one, but the
		 * interrupted code may run on another stack than its handler. */
		if (next_sp <= sp && !interrupted)
			break;
		f->cfa = next_sp; /* the caller's stack pointer */
		if (interrupted) {
			f->sigreturn = 1;
			f->lookup = f->pc;
		}
		f = &out[n];
		memset(f, 0, sizeof(*f));
		f->pc = ip;
		f->signal = interrupted;
		f->lookup = interrupted ? ip : ip - 1;
		frame_regs(f, &c);
	}
	unw_destroy_addr_space(as);
	free(u);
	return (int)n;
}
