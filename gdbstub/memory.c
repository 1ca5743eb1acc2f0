/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading the target: registers ('g', 'p'), memory ('m') and breakpoints
 * (Z, z), all E.2 "Packets"; writes ('G', 'P', 'M') only where they
 * change nothing. Replies are hex, two digits a byte, so an
 * 'm' may ask for RSP_MAX_PACKET / 2 bytes at most, which is what gdb
 * asks for given PacketSize. A read that faults is tried again a page at
 * a time and answers with the bytes before the fault, as E.2 allows, so
 * "x/s" near the end of a mapping works; none at all is E14.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
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
	rsp_reply_hex(s, s->data, len < RSP_REGS_SIZE ? len : RSP_REGS_SIZE);
	return 0;
}

/* Register N of the current thread into s->data: its size, or -1. */
static long read_reg(struct rsp_session *s, uint64_t n)
{
	int tid = rsp_current_tid(s);
	size_t off, size, len;

	if (rsp_reg_offset((int)n, &off, &size) < 0)
		return -1;
	if (s->ops->read_reg) {
		len = size;
		if (s->ops->read_reg(s->t, tid, (int)n, s->data, &len) < 0 || len != size)
			return -1;
	} else {
		len = RSP_REGS_SIZE;
		if (!s->ops->read_regs || s->ops->read_regs(s->t, tid, s->data, &len) < 0 ||
		    len > RSP_REGS_SIZE || len < off + size)
			return -1;
		if (off)
			memmove(s->data, s->data + off, size);
	}
	return (long)size;
}

/* p<regno>. */
int rsp_handle_read_reg(struct rsp_session *s, const char *args)
{
	uint64_t n;
	long size;

	if (rsp_parse_hex_max(&args, RSP_NUM_REGS, &n) < 0 || *args ||
	    (size = read_reg(s, n)) < 0) {
		rsp_reply_str(s, "E01");
		return 0;
	}
	rsp_reply_hex(s, s->data, (size_t)size);
	return 0;
}

/*
 * Writes. The target is a recording, which writes would make diverge, so
 * they are refused (E01), except those that leave things as they are:
 * gdb writes the pc back unchanged around a reverse step, and rr accepts
 * that too. A write is compared with what is there now. One more is let
 * through without effect: amd64 Linux gdb sets orig_rax to -1 with every
 * pc it writes (`run` writes the entry's), so that the kernel restarts no
 * syscall; a replay's syscalls are hermit's to restart. ORIG is the offset
 * of orig_rax in the bytes compared (SIZE_MAX: not there).
 */
static void reply_same(struct rsp_session *s, const char *hex, size_t n, size_t orig)
{
	static const uint8_t none[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t want[RSP_REGS_SIZE];

	if (n > sizeof(want) || strlen(hex) != 2 * n || hm_unhex(hex, n, want) < 0) {
		rsp_reply_str(s, "E01");
		return;
	}
	if (orig != SIZE_MAX && orig + 8 <= n && memcmp(want + orig, none, 8) == 0)
		memcpy(want + orig, s->data + orig, 8);
	rsp_reply_str(s, memcmp(want, s->data, n) == 0 ? "OK" : "E01");
}

/* P<regno>=<value>. */
int rsp_handle_write_reg(struct rsp_session *s, const char *args)
{
	uint64_t n;
	long size;

	if (rsp_parse_hex_max(&args, RSP_NUM_REGS, &n) < 0 || *args++ != '=' ||
	    (size = read_reg(s, n)) < 0) {
		rsp_reply_str(s, "E01");
		return 0;
	}
	reply_same(s, args, (size_t)size, n == RSP_REG_ORIG_RAX ? 0 : SIZE_MAX);
	return 0;
}

/* G<block>: the whole block, as 'g' reads it. */
int rsp_handle_write_regs(struct rsp_session *s, const char *args)
{
	size_t len = RSP_REGS_SIZE, orig, size;

	if (!s->ops->read_regs || s->ops->read_regs(s->t, rsp_current_tid(s), s->data, &len) < 0 ||
	    len > RSP_REGS_SIZE) {
		rsp_reply_str(s, "E01");
		return 0;
	}
	if (rsp_reg_offset(RSP_REG_ORIG_RAX, &orig, &size) < 0 || size != 8)
		orig = SIZE_MAX;
	reply_same(s, args, len, orig);
	return 0;
}

/* M<addr>,<length>:<bytes>. */
int rsp_handle_write_mem(struct rsp_session *s, const char *args)
{
	uint64_t addr, len;

	if (rsp_parse_hex(&args, &addr) < 0 || *args++ != ',' ||
	    rsp_parse_hex_max(&args, RSP_REGS_SIZE, &len) < 0 || *args++ != ':' ||
	    (len && len - 1 > UINT64_MAX - addr) || !s->ops->read_mem ||
	    s->ops->read_mem(s->t, addr, s->data, (size_t)len) < 0) {
		rsp_reply_str(s, "E01");
		return 0;
	}
	reply_same(s, args, (size_t)len, SIZE_MAX);
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
	rsp_reply_hex(s, s->data, (size_t)got);
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
