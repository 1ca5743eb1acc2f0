/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading the target: registers ('g', 'p'), memory ('m') and breakpoints
 * (Z, z), all E.2 "Packets". Replies are hex, two digits a byte, so an
 * 'm' may ask for RSP_MAX_PACKET / 2 bytes at most, which is what gdb
 * asks for given PacketSize. A read that faults is tried again a page at
 * a time and answers with the bytes before the fault, as E.2 allows, so
 * "x/s" near the end of a mapping works; none at all is E14.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "gdbstub/internal.h"

#define PAGE 4096

/* g: the whole register block of the current thread. */
int rsp_handle_read_regs(struct rsp_session *s, const char *args)
{
	size_t len = RSP_REGS_SIZE;

	(void)args;
	if (!s->ops->read_regs || s->ops->read_regs(s->t, rsp_current_tid(s), s->data, &len) < 0) {
		rsp_reply_str(s, "E01");
		return 0;
	}
	rsp_out_reset(s);
	rsp_out_hex(s, s->data, len < RSP_REGS_SIZE ? len : RSP_REGS_SIZE);
	rsp_out_send(s);
	return 0;
}

/* p<regno>. */
int rsp_handle_read_reg(struct rsp_session *s, const char *args)
{
	int tid = rsp_current_tid(s);
	size_t off, size, len;
	uint64_t n;

	if (rsp_parse_hex_max(&args, RSP_NUM_REGS, &n) < 0 || *args ||
	    rsp_reg_offset((int)n, &off, &size) < 0)
		goto fail;
	if (s->ops->read_reg) {
		len = size;
		if (s->ops->read_reg(s->t, tid, (int)n, s->data, &len) < 0 || len != size)
			goto fail;
	} else {
		len = RSP_REGS_SIZE;
		if (!s->ops->read_regs || s->ops->read_regs(s->t, tid, s->data, &len) < 0 ||
		    len > RSP_REGS_SIZE || len < off + size)
			goto fail;
		if (off)
			memmove(s->data, s->data + off, size);
	}
	rsp_out_reset(s);
	rsp_out_hex(s, s->data, size);
	rsp_out_send(s);
	return 0;
fail:
	rsp_reply_str(s, "E01");
	return 0;
}

/* As much of LEN bytes at ADDR as can be read before a fault: the count,
 * or -errno when not even the first byte can be. */
static long read_some(struct rsp_session *s, uint64_t addr, size_t len)
{
	size_t got = 0;
	int r = s->ops->read_mem(s->t, addr, s->data, len);

	if (r == 0)
		return (long)len;
	if (r != -EFAULT)
		return r;
	while (got < len) {
		size_t chunk = PAGE - (size_t)((addr + got) % PAGE);

		if (chunk > len - got)
			chunk = len - got;
		if (s->ops->read_mem(s->t, addr + got, s->data + got, chunk) < 0)
			break;
		got += chunk;
	}
	return got ? (long)got : -EFAULT;
}

/* m<addr>,<length>. */
int rsp_handle_read_mem(struct rsp_session *s, const char *args)
{
	uint64_t addr, len;
	long got;

	if (rsp_parse_hex(&args, &addr) < 0 || *args++ != ',' ||
	    rsp_parse_hex_max(&args, RSP_MAX_PACKET / 2, &len) < 0 || *args ||
	    (len && len - 1 > UINT64_MAX - addr) || !s->ops->read_mem) {
		rsp_reply_str(s, "E01");
		return 0;
	}
	got = len ? read_some(s, addr, (size_t)len) : 0;
	if (got < 0) {
		rsp_reply_str(s, got == -EFAULT ? "E14" : "E01");
		return 0;
	}
	rsp_out_reset(s);
	rsp_out_hex(s, s->data, (size_t)got);
	rsp_out_send(s);
	return 0;
}

/* Z<type>,<addr>,<kind>[;cond...][;cmds...] and z: the conditions and
 * commands, which gdb only sends to a stub that announced them, are
 * ignored. */
static int breakpoint(struct rsp_session *s, const char *args, int insert)
{
	uint64_t type, addr, kind;
	int r;

	if (rsp_parse_hex_max(&args, INT_MAX, &type) < 0 || *args++ != ',' ||
	    rsp_parse_hex(&args, &addr) < 0 || *args++ != ',' ||
	    rsp_parse_hex_max(&args, INT_MAX, &kind) < 0 || (*args && *args != ';')) {
		rsp_reply_str(s, "E01");
		return 0;
	}
	if (type > 4 || !s->ops->set_breakpoint) {
		rsp_reply_str(s, "");
		return 0;
	}
	r = s->ops->set_breakpoint(s->t, (int)type, addr, (int)kind, insert);
	if (r == -EOPNOTSUPP || r == -ENOSYS)
		rsp_reply_str(s, "");
	else
		rsp_reply_str(s, r < 0 ? "E01" : "OK");
	return 0;
}

int rsp_handle_insert_bp(struct rsp_session *s, const char *args)
{
	return breakpoint(s, args, 1);
}

int rsp_handle_remove_bp(struct rsp_session *s, const char *args)
{
	return breakpoint(s, args, 0);
}
