/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for gdbstub/: the framer fed byte sequences (good packets,
 * bad checksums, escapes, run lengths, Ctrl-C, overflow, garbage) and
 * whole conversations with a session over a fake target whose registers,
 * memory, threads and files are canned, asserting the exact bytes the stub
 * sends back. Expected replies are framed here by a small framer of the
 * test's own (frame()), checked against hand-computed checksums, never by
 * rsp_encode(); register offsets are the layout gdbstub.h documents,
 * written out by hand.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/common.h"
#include "gdbstub/gdbstub.h"

/* ---- the test's own framing ---- */

/* Append PAYLOAD framed as E.1 says: escapes for # $ } *, checksum of the
 * bytes as sent. */
static void add_frame(struct hm_buf *b, const void *payload, size_t len)
{
	const unsigned char *p = payload;
	unsigned sum = 0;
	char tail[4];

	hm_buf_add(b, "$", 1);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = p[i];

		if (c == '#' || c == '$' || c == '}' || c == '*') {
			unsigned char esc[2] = { '}', (unsigned char)(c ^ 0x20) };

			hm_buf_add(b, esc, 2);
			sum += esc[0] + esc[1];
		} else {
			hm_buf_add(b, &c, 1);
			sum += c;
		}
	}
	snprintf(tail, sizeof(tail), "#%02x", sum & 0xff);
	hm_buf_add(b, tail, 3);
}

static void add_hex(struct hm_buf *b, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hm_buf_addf(b, "%02x", p[i]);
}

/* Show bytes readably in a failure message. */
static const char *show(const void *p, size_t n)
{
	static char out[4096];
	const unsigned char *c = p;
	size_t o = 0;

	for (size_t i = 0; i < n && o + 8 < sizeof(out); i++) {
		if (c[i] >= 32 && c[i] < 127 && c[i] != '\\')
			out[o++] = (char)c[i];
		else
			o += (size_t)snprintf(out + o, sizeof(out) - o, "\\x%02x", c[i]);
	}
	out[o] = 0;
	return out;
}

/* ---- the framer ---- */

/* Feed N bytes; every byte but the last must give RSP_NONE. */
static enum rsp_event feed(struct rsp_framer *f, const void *bytes, size_t n)
{
	const uint8_t *b = bytes;
	enum rsp_event ev = RSP_NONE;

	for (size_t i = 0; i < n; i++) {
		ev = rsp_framer_byte(f, b[i]);
		if (i + 1 < n && ev != RSP_NONE)
			fail_msg("event %d at byte %zu of '%s'", ev, i, show(bytes, n));
	}
	return ev;
}

static enum rsp_event feed_str(struct rsp_framer *f, const char *s)
{
	return feed(f, s, strlen(s));
}

static struct rsp_framer *framer_new(void)
{
	struct rsp_framer *f = xmalloc(sizeof(*f));

	rsp_framer_init(f);
	return f;
}

static void test_framer_good(void **state)
{
	struct rsp_framer *f = framer_new();

	(void)state;
	/* 'm'+'1'+'0'+'0'+'0'+','+'4' = 0x6d+0x31+0x30*3+0x2c+0x34 = 0x18e */
	assert_int_equal(feed_str(f, "$m1000,4#8e"), RSP_PACKET);
	assert_int_equal(f->len, 7);
	assert_string_equal((char *)f->buf, "m1000,4");
	/* Upper-case checksum digits; the empty packet. */
	assert_int_equal(feed_str(f, "$OK#9A"), RSP_PACKET);
	assert_string_equal((char *)f->buf, "OK");
	assert_int_equal(feed_str(f, "$#00"), RSP_PACKET);
	assert_int_equal(f->len, 0);
	free(f);
}

static void test_framer_bad_checksum(void **state)
{
	struct rsp_framer *f = framer_new();

	(void)state;
	assert_int_equal(feed_str(f, "$OK#9b"), RSP_BAD_CHECKSUM);
	assert_int_equal(feed_str(f, "$OK#zz"), RSP_BAD_CHECKSUM);
	assert_int_equal(feed_str(f, "$OK#9"), RSP_NONE);
	assert_int_equal(rsp_framer_byte(f, 'g'), RSP_BAD_CHECKSUM);
	/* and the next packet is fine */
	assert_int_equal(feed_str(f, "$OK#9a"), RSP_PACKET);
	free(f);
}

static void test_framer_escapes(void **state)
{
	struct rsp_framer *f = framer_new();
	/* X } 0x03 } 0x04 } ] } 0x0a: sum = 0x58 + 4*0x7d + 0x03 + 0x04 + 0x5d + 0x0a = 0x2ba */
	const char pkt[] = "$X}\x03}\x04}]}\x0a#ba";

	(void)state;
	assert_int_equal(feed(f, pkt, sizeof(pkt) - 1), RSP_PACKET);
	assert_int_equal(f->len, 5);
	assert_memory_equal(f->buf, "X#$}*", 5);
	/* A NUL and 0x03 are data inside a packet. */
	assert_int_equal(feed(f, "$a\x03\x00#64", 7), RSP_PACKET);
	assert_int_equal(f->len, 3);
	assert_memory_equal(f->buf, "a\x03\x00", 3);
	/* An escape with nothing after it. */
	assert_int_equal(feed_str(f, "$a}#de"), RSP_MALFORMED);
	free(f);
}

static void test_framer_rle(void **state)
{
	struct rsp_framer *f = framer_new();
	char want[128];

	(void)state;
	/* E.1's example: "0* " is "0000". 0x30 + 0x2a + 0x20 = 0x7a */
	assert_int_equal(feed_str(f, "$0* #7a"), RSP_PACKET);
	assert_string_equal((char *)f->buf, "0000");
	/* '"' is 34: five more; then a plain byte. 0x61+0x2a+0x22+0x62 = 0x10f */
	assert_int_equal(feed_str(f, "$a*\"b#0f"), RSP_PACKET);
	assert_string_equal((char *)f->buf, "aaaaaab");
	/* '~' is 126: 97 more. 0x78 + 0x2a + 0x7e = 0x120 */
	assert_int_equal(feed_str(f, "$x*~#20"), RSP_PACKET);
	memset(want, 'x', 98);
	want[98] = 0;
	assert_string_equal((char *)f->buf, want);
	/* A run of an escaped byte. 0x7d+0x5d+0x2a+0x20 = 0x124 */
	assert_int_equal(feed_str(f, "$}]* #24"), RSP_PACKET);
	assert_string_equal((char *)f->buf, "}}}}");
	free(f);
}

static void test_framer_rle_malformed(void **state)
{
	struct rsp_framer *f = framer_new();

	(void)state;
	/* '*' first: nothing to repeat. 0x2a + 0x20 = 0x4a */
	assert_int_equal(feed_str(f, "$* #4a"), RSP_MALFORMED);
	/* Counts below 32 and above 126. 0x61+0x2a+0x1f = 0xaa; 0x61+0x2a+0x7f = 0x10a */
	assert_int_equal(feed(f, "$a*\x1f#aa", 7), RSP_MALFORMED);
	assert_int_equal(feed(f, "$a*\x7f#0a", 7), RSP_MALFORMED);
	/* '#' as the count ends the packet: malformed. */
	assert_int_equal(feed_str(f, "$a*#8b"), RSP_MALFORMED);
	/* A bad checksum outranks it. */
	assert_int_equal(feed_str(f, "$* #00"), RSP_BAD_CHECKSUM);
	/* '$' as the count starts a new packet. */
	assert_int_equal(feed_str(f, "$a*$OK#9a"), RSP_PACKET);
	assert_string_equal((char *)f->buf, "OK");
	free(f);
}

static void test_framer_outside(void **state)
{
	struct rsp_framer *f = framer_new();

	(void)state;
	assert_int_equal(rsp_framer_byte(f, '+'), RSP_ACK);
	assert_int_equal(rsp_framer_byte(f, '-'), RSP_NACK);
	assert_int_equal(rsp_framer_byte(f, 0x03), RSP_INTERRUPT);
	assert_int_equal(rsp_framer_byte(f, 'x'), RSP_NONE);
	assert_int_equal(rsp_framer_byte(f, '#'), RSP_NONE);
	assert_int_equal(rsp_framer_byte(f, 0), RSP_NONE);
	assert_int_equal(rsp_framer_byte(f, 0xff), RSP_NONE);
	/* A '$' inside a packet starts it over: the cut one is dropped. */
	assert_int_equal(feed_str(f, "garbage$m10$OK#9a"), RSP_PACKET);
	assert_string_equal((char *)f->buf, "OK");
	/* '+' and '-' inside a packet are data. 0x2b + 0x2d = 0x58 */
	assert_int_equal(feed_str(f, "$+-#58"), RSP_PACKET);
	assert_string_equal((char *)f->buf, "+-");
	free(f);
}

/* A packet of N 'a' with checksum, as bytes in B. */
static void long_packet(struct hm_buf *b, size_t n, const char *extra)
{
	unsigned sum = 0;

	hm_buf_reset(b);
	hm_buf_add(b, "$", 1);
	for (size_t i = 0; i < n; i++)
		hm_buf_add(b, "a", 1);
	sum = (unsigned)(n * 'a');
	for (const char *e = extra; *e; e++)
		sum += (unsigned char)*e;
	hm_buf_addf(b, "%s#%02x", extra, sum & 0xff);
}

static void test_framer_overflow(void **state)
{
	struct rsp_framer *f = framer_new();
	struct hm_buf b;

	(void)state;
	hm_buf_init(&b);
	long_packet(&b, RSP_MAX_PACKET, "");
	assert_int_equal(feed(f, b.data, b.len), RSP_PACKET);
	assert_int_equal(f->len, RSP_MAX_PACKET);
	assert_int_equal(f->buf[RSP_MAX_PACKET], 0);
	long_packet(&b, RSP_MAX_PACKET + 1, "");
	assert_int_equal(feed(f, b.data, b.len), RSP_OVERFLOW);
	assert_true(f->len <= RSP_MAX_PACKET);
	/* Run lengths count after expansion: "* " is 3 more. */
	long_packet(&b, RSP_MAX_PACKET - 2, "* ");
	assert_int_equal(feed(f, b.data, b.len), RSP_OVERFLOW);
	long_packet(&b, RSP_MAX_PACKET - 3, "* ");
	assert_int_equal(feed(f, b.data, b.len), RSP_PACKET);
	assert_int_equal(f->len, RSP_MAX_PACKET);
	/* Far too long, then a good one. */
	long_packet(&b, 5 * RSP_MAX_PACKET, "");
	assert_int_equal(feed(f, b.data, b.len), RSP_OVERFLOW);
	assert_int_equal(feed_str(f, "$OK#9a"), RSP_PACKET);
	hm_buf_free(&b);
	free(f);
}

/* Bytes from a fixed-seed generator, weighted to the framing characters:
 * the framer never leaves its buffer and every packet it hands out fits. */
static void test_framer_garbage(void **state)
{
	static const uint8_t special[] = { '$', '#', '}', '*', '+', '-', 3, 0, ' ', '~' };
	struct rsp_framer *f = framer_new();
	uint32_t x = 12345;
	int packets = 0, bad = 0;

	(void)state;
	for (int i = 0; i < 2000000; i++) {
		enum rsp_event ev;
		uint8_t c;

		x = x * 1103515245 + 12345;
		c = (uint8_t)(x >> 16);
		if ((x >> 8) % 3 == 0)
			c = special[(x >> 24) % sizeof(special)];
		ev = rsp_framer_byte(f, c);
		assert_true(f->len <= RSP_MAX_PACKET);
		if (ev == RSP_PACKET) {
			packets++;
			assert_int_equal(f->buf[f->len], 0);
		} else if (ev == RSP_BAD_CHECKSUM) {
			bad++;
		}
	}
	assert_true(bad > 0);
	(void)packets;
	free(f);
}

static void test_encode(void **state)
{
	char out[64];
	struct rsp_framer *f = framer_new();

	(void)state;
	assert_int_equal(rsp_encode("OK", 2, out, sizeof(out)), 6);
	assert_memory_equal(out, "$OK#9a", 6);
	assert_int_equal(rsp_encode("", 0, out, sizeof(out)), 4);
	assert_memory_equal(out, "$#00", 4);
	/* a#b$c}d*: escaped; sum 0x61+0x7d+0x03+0x62+0x7d+0x04+0x63+0x7d+0x5d+0x64+0x7d+0x0a
	 * = 0x3ec */
	assert_int_equal(rsp_encode("a#b$c}d*", 8, out, sizeof(out)), 16);
	assert_memory_equal(out,
			    "$a}\x03"
			    "b}\x04"
			    "c}]d}\x0a#ec",
			    16);
	/* It comes back whole through the framer, binary too. */
	assert_int_equal(feed(f, out, 16), RSP_PACKET);
	assert_memory_equal(f->buf, "a#b$c}d*", 8);
	assert_int_equal(rsp_encode("a\0\xff", 3, out, sizeof(out)), 7);
	assert_int_equal(feed(f, out, 7), RSP_PACKET);
	assert_int_equal(f->len, 3);
	assert_memory_equal(f->buf, "a\0\xff", 3);
	/* Exactly enough room, one byte short, far too little. */
	assert_int_equal(rsp_encode("OK", 2, out, 6), 6);
	assert_int_equal(rsp_encode("OK", 2, out, 5), 0);
	assert_int_equal(rsp_encode("#", 1, out, 6), 6);
	assert_int_equal(rsp_encode("#", 1, out, 5), 0);
	assert_int_equal(rsp_encode("", 0, out, 3), 0);
	assert_int_equal(rsp_encode("", 0, out, 0), 0);
	free(f);
}

static void test_reg_offsets(void **state)
{
	/* The layout gdbstub.h documents, by hand. */
	static const struct {
		int regno;
		size_t off, size;
	} want[] = {
		{ RSP_REG_RAX, 0, 8 },		 { RSP_REG_RSP, 56, 8 },
		{ RSP_REG_R15, 120, 8 },	 { RSP_REG_RIP, 128, 8 },
		{ RSP_REG_EFLAGS, 136, 4 },	 { RSP_REG_CS, 140, 4 },
		{ RSP_REG_GS, 160, 4 },		 { RSP_REG_ST0, 164, 10 },
		{ RSP_REG_ST0 + 7, 234, 10 },	 { RSP_REG_FCTRL, 244, 4 },
		{ RSP_REG_FOP, 272, 4 },	 { RSP_REG_ORIG_RAX, 276, 8 },
		{ RSP_REG_FS_BASE, 284, 8 },	 { RSP_REG_GS_BASE, 292, 8 },
		{ RSP_REG_XMM0, 300, 16 },	 { RSP_REG_XMM0 + 15, 540, 16 },
		{ RSP_REG_MXCSR, 556, 4 },	 { RSP_REG_YMM0H, 560, 16 },
		{ RSP_REG_YMM0H + 15, 800, 16 },
	};
	size_t off, size;

	(void)state;
	assert_int_equal(RSP_REG_RIP, 16);
	assert_int_equal(RSP_REG_ST0, 24);
	assert_int_equal(RSP_REG_ORIG_RAX, 40);
	assert_int_equal(RSP_REG_XMM0, 43);
	assert_int_equal(RSP_NUM_REGS, 76);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(rsp_reg_offset(want[i].regno, &off, &size), 0);
		assert_int_equal(off, want[i].off);
		assert_int_equal(size, want[i].size);
	}
	assert_int_equal(800 + 16, RSP_REGS_SIZE);
	assert_int_equal(rsp_reg_offset(RSP_NUM_REGS, &off, &size), -EINVAL);
	assert_int_equal(rsp_reg_offset(-1, &off, &size), -EINVAL);
}

/* ---- the fake target ---- */

#define PID	  100 /* 0x64 */
#define MEM_BASE  0x2f00
#define MEM_SIZE  0x100 /* readable up to the page at 0x3000 */
#define EIO_ADDR  0x7000
#define FILE_TEXT "hello world$#}*\n"

struct fake {
	uint8_t regs[RSP_REGS_SIZE];
	int regs_tid; /* the thread of the last register read */
	int reg_reads;
	int tids[4096];
	int ntids;
	int bp_type, bp_kind, bp_insert, bp_calls;
	uint64_t bp_addr;
	struct rsp_stop next_stop;
	int resume_err;
	enum rsp_resume how;
	int resume_tid, resumes;
	char open_path[RSP_MAX_PACKET];
	int open_flags, open_mode;
	int kills, interrupts, restarts;
	int restart_err; /* restart's answer, when not 0 (-EINPROGRESS) */
	int send_err;
	struct hm_buf sent;
};

static int fake_read_regs(void *t, int tid, uint8_t *buf, size_t *len)
{
	struct fake *fk = t;

	fk->regs_tid = tid;
	fk->reg_reads++;
	memcpy(buf, fk->regs, RSP_REGS_SIZE);
	*len = RSP_REGS_SIZE;
	return 0;
}

static int fake_read_reg(void *t, int tid, int regno, uint8_t *buf, size_t *len)
{
	struct fake *fk = t;
	size_t off, size;

	fk->regs_tid = tid;
	if (rsp_reg_offset(regno, &off, &size) < 0)
		return -EINVAL;
	memcpy(buf, fk->regs + off, size);
	*len = size;
	return 0;
}

static int fake_read_mem(void *t, uint64_t addr, uint8_t *buf, size_t len)
{
	(void)t;
	if (addr == EIO_ADDR)
		return -EIO;
	if (addr < MEM_BASE || addr > MEM_BASE + MEM_SIZE || len > MEM_BASE + MEM_SIZE - addr)
		return -EFAULT;
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(addr + i);
	return 0;
}

static int fake_threads(void *t, int *tids, int max, int *n)
{
	struct fake *fk = t;

	*n = fk->ntids < max ? fk->ntids : max;
	memcpy(tids, fk->tids, (size_t)*n * sizeof(int));
	return 0;
}

static int fake_thread_name(void *t, int tid, char *buf, size_t size)
{
	(void)t;
	if (tid == PID)
		snprintf(buf, size, "main");
	else if (tid == PID + 2)
		snprintf(buf, size, "a&b<\"c\">\x01");
	else
		snprintf(buf, size, "worker");
	return 0;
}

static int fake_set_breakpoint(void *t, int type, uint64_t addr, int kind, int insert)
{
	struct fake *fk = t;

	fk->bp_calls++;
	if (type == 4)
		return -EOPNOTSUPP;
	if (addr == 0xdead)
		return -EINVAL;
	fk->bp_type = type;
	fk->bp_addr = addr;
	fk->bp_kind = kind;
	fk->bp_insert = insert;
	return 0;
}

static int fake_resume(void *t, enum rsp_resume how, int tid, struct rsp_stop *stop)
{
	struct fake *fk = t;

	fk->how = how;
	fk->resume_tid = tid;
	fk->resumes++;
	if (fk->resume_err)
		return fk->resume_err;
	*stop = fk->next_stop;
	return 0;
}

static const uint8_t auxv[] = { 0x21, 0, 0, 0, 0, 0, 0, 0, '#', '$', '}', '*', 0x7f, 0, 0, 0 };

static int fake_xfer(void *t, const char *object, const char *annex, uint64_t off, uint8_t *buf,
		     size_t len, size_t *got)
{
	const uint8_t *obj;
	size_t size;

	(void)t;
	if (!strcmp(object, "auxv") && !annex[0]) {
		obj = auxv;
		size = sizeof(auxv);
	} else if (!strcmp(object, "exec-file") && (!annex[0] || !strcmp(annex, "64"))) {
		obj = (const uint8_t *)"/bin/true";
		size = 9;
	} else {
		return -EINVAL;
	}
	*got = 0;
	if (off < size) {
		*got = size - off < len ? size - (size_t)off : len;
		memcpy(buf, obj + off, *got);
	}
	return 0;
}

static int fake_file_open(void *t, const char *path, int flags, int mode)
{
	struct fake *fk = t;

	snprintf(fk->open_path, sizeof(fk->open_path), "%s", path);
	fk->open_flags = flags;
	fk->open_mode = mode;
	if (flags != O_RDONLY)
		return -EROFS;
	if (!strcmp(path, "/etc/hello"))
		return 3;
	if (strlen(path) > 255)
		return -ENAMETOOLONG;
	return -ENOENT;
}

static int fake_file_pread(void *t, int fd, uint8_t *buf, size_t len, uint64_t off)
{
	size_t size = strlen(FILE_TEXT), n = 0;

	(void)t;
	if (fd != 3)
		return -EBADF;
	if (off < size)
		n = size - off < len ? size - (size_t)off : len;
	memcpy(buf, FILE_TEXT + off, n);
	return (int)n;
}

static int fake_file_close(void *t, int fd)
{
	(void)t;
	return fd == 3 ? 0 : -EBADF;
}

static int fake_monitor(void *t, const char *cmd, char *out, size_t size)
{
	(void)t;
	if (!strcmp(cmd, "when")) {
		snprintf(out, size, "event 42\n");
		return 0;
	}
	if (!strcmp(cmd, "quiet"))
		return 0;
	snprintf(out, size, "unknown command '%s'\n", cmd);
	return -EINVAL;
}

static void fake_interrupt(void *t)
{
	((struct fake *)t)->interrupts++;
}

static void fake_kill(void *t)
{
	((struct fake *)t)->kills++;
}

static int fake_restart(void *t, struct rsp_stop *stop)
{
	struct fake *fk = t;

	fk->restarts++;
	if (fk->restart_err)
		return fk->restart_err;
	*stop = (struct rsp_stop){ .kind = RSP_STOP_SIGNAL, .sig = 5, .tid = PID };
	return 0;
}

static const struct rsp_target_ops fake_ops = {
	.read_regs = fake_read_regs,
	.read_reg = fake_read_reg,
	.read_mem = fake_read_mem,
	.threads = fake_threads,
	.thread_name = fake_thread_name,
	.set_breakpoint = fake_set_breakpoint,
	.resume = fake_resume,
	.xfer = fake_xfer,
	.file_open = fake_file_open,
	.file_pread = fake_file_pread,
	.file_close = fake_file_close,
	.monitor = fake_monitor,
	.interrupt = fake_interrupt,
	.kill = fake_kill,
	.restart = fake_restart,
	.pid = PID,
};

static int fake_send(void *io, const char *bytes, size_t len)
{
	struct fake *fk = io;

	if (fk->send_err)
		return fk->send_err;
	hm_buf_add(&fk->sent, bytes, len);
	return 0;
}

struct ctx {
	struct fake fk;
	struct rsp_session *s;
	int no_ack; /* the test's view: expect no '+' */
};

static struct ctx *ctx_new(const struct rsp_target_ops *ops)
{
	struct ctx *c = xcalloc(1, sizeof(*c));

	for (int i = 0; i < RSP_REGS_SIZE; i++)
		c->fk.regs[i] = (uint8_t)i;
	c->fk.ntids = 3;
	c->fk.tids[0] = PID;
	c->fk.tids[1] = PID + 1;
	c->fk.tids[2] = PID + 2;
	c->fk.next_stop = (struct rsp_stop){ .kind = RSP_STOP_SIGNAL, .sig = 5, .tid = PID };
	hm_buf_init(&c->fk.sent);
	c->s = rsp_session_new(ops, &c->fk, fake_send, &c->fk);
	return c;
}

static int setup(void **state)
{
	*state = ctx_new(&fake_ops);
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	rsp_session_free(c->s);
	hm_buf_free(&c->fk.sent);
	free(c);
	return 0;
}

/* Feed raw BYTES; the session must return RET and have sent exactly WANT. */
static void raw(struct ctx *c, const void *bytes, size_t n, int ret, const void *want,
		size_t wantlen)
{
	int r;

	hm_buf_reset(&c->fk.sent);
	r = rsp_session_input(c->s, bytes, n);
	if (c->fk.sent.len != wantlen || (wantlen && memcmp(c->fk.sent.data, want, wantlen) != 0)) {
		char got[4096];

		snprintf(got, sizeof(got), "%s", show(c->fk.sent.data, c->fk.sent.len));
		fail_msg("after '%s'\n  sent '%s'\n  want '%s'", show(bytes, n), got,
			 show(want, wantlen));
	}
	assert_int_equal(r, ret);
}

/* Send packet PKT (LEN bytes); expect the ack and REPLY (RLEN bytes). */
static void talk_bin(struct ctx *c, const void *pkt, size_t len, const void *reply, size_t rlen)
{
	struct hm_buf in, want;

	hm_buf_init(&in);
	hm_buf_init(&want);
	add_frame(&in, pkt, len);
	if (!c->no_ack)
		hm_buf_add(&want, "+", 1);
	add_frame(&want, reply, rlen);
	raw(c, in.data, in.len, 0, want.data, want.len);
	hm_buf_free(&in);
	hm_buf_free(&want);
}

static void talk(struct ctx *c, const char *pkt, const char *reply)
{
	talk_bin(c, pkt, strlen(pkt), reply, strlen(reply));
}

/* Send PKT; expect only the ack and return value RET. */
static void talk_none(struct ctx *c, const char *pkt, int ret)
{
	struct hm_buf in;

	hm_buf_init(&in);
	add_frame(&in, pkt, strlen(pkt));
	raw(c, in.data, in.len, ret, c->no_ack ? "" : "+", c->no_ack ? 0 : 1);
	hm_buf_free(&in);
}

/* The reply to PKT, unframed, into B (the packet must get exactly one). */
static void ask(struct ctx *c, const char *pkt, struct hm_buf *b)
{
	struct hm_buf in;
	struct rsp_framer *f = framer_new();
	int packets = 0;

	hm_buf_init(&in);
	add_frame(&in, pkt, strlen(pkt));
	hm_buf_reset(&c->fk.sent);
	assert_int_equal(rsp_session_input(c->s, in.data, in.len), 0);
	hm_buf_reset(b);
	for (size_t i = 0; i < c->fk.sent.len; i++) {
		if (rsp_framer_byte(f, c->fk.sent.data[i]) == RSP_PACKET) {
			hm_buf_add(b, f->buf, f->len);
			packets++;
		}
	}
	assert_int_equal(packets, 1);
	hm_buf_free(&in);
	free(f);
}

#define SUPPORTED                                                                        \
	"PacketSize=4000;QStartNoAckMode+;qXfer:features:read+;qXfer:threads:read+;"     \
	"multiprocess+;swbreak+;hwbreak+;vContSupported+;ReverseContinue+;ReverseStep+;" \
	"qXfer:auxv:read+;qXfer:exec-file:read+"

/* What gdb 12+ sends first. */
static void handshake(struct ctx *c)
{
	talk(c,
	     "qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;"
	     "vfork-events+;exec-events+;vContSupported+;QThreadEvents+;no-resumed+;"
	     "memory-tagging+;xmlRegisters=i386",
	     SUPPORTED ";exec-events+");
}

/* ---- conversations ---- */

static void test_supported(void **state)
{
	struct ctx *c = *state;

	handshake(c);
	talk(c, "qSupported", SUPPORTED);
	/* Not "qSupportedX". */
	talk(c, "qSupportedX", "");
	/* Hand-framed, to check the test's framer: */
	raw(c, "$vMustReplyEmpty#3a", 19, 0, "+$#00", 5);
	raw(c, "$qAttached#8f", 13, 0, "+$1#31", 6);
}

static void test_no_ack(void **state)
{
	struct ctx *c = *state;

	handshake(c);
	/* The switch itself is acked, its OK is the last packet acked. */
	raw(c, "$QStartNoAckMode#b0", 19, 0, "+$OK#9a", 7);
	c->no_ack = 1;
	raw(c, "+", 1, 0, "", 0);
	talk(c, "qAttached", "1");
	/* No '-' for a bad checksum and no resending on '-'. */
	raw(c, "$qAttached#00", 13, 0, "", 0);
	raw(c, "-", 1, 0, "", 0);
	raw(c, "$qAttached#8f", 13, 0, "$1#31", 5);
}

/* A checkpoint taking the session over (replayer/checkpoint.c): what gdb
 * said (no acks, multiprocess ids, the selected thread) goes with the
 * state; the session's own calls and buffers stay. */
static void test_state_moves(void **state)
{
	struct ctx *c = *state, *d = ctx_new(&fake_ops);
	void *saved = xmalloc(rsp_session_state_size());
	struct hm_buf xml;

	handshake(c);
	raw(c, "$QStartNoAckMode#b0", 19, 0, "+$OK#9a", 7);
	c->no_ack = 1;
	talk(c, "Hgp64.65", "OK");
	rsp_session_save(c->s, saved);
	rsp_session_load(d->s, saved);
	d->no_ack = 1;
	/* No ack from the new session, the reply goes out through d's send,
	 * and thread ids are still p<pid>.<tid>. */
	hm_buf_reset(&c->fk.sent);
	talk(d, "qC", "QCp64.65");
	assert_int_equal(c->fk.sent.len, 0);
	/* The target description is d's own, whole. */
	hm_buf_init(&xml);
	ask(d, "qXfer:features:read:target.xml:0,10", &xml);
	assert_true(xml.len == 0x11 && xml.data[0] == 'm');
	hm_buf_free(&xml);
	free(saved);
	rsp_session_free(d->s);
	hm_buf_free(&d->fk.sent);
	free(d);
}

static void test_acks(void **state)
{
	struct ctx *c = *state;
	struct hm_buf big;

	/* '-' asks for the last reply again. */
	raw(c, "$qAttached#8f", 13, 0, "+$1#31", 6);
	raw(c, "-", 1, 0, "$1#31", 5);
	raw(c, "+", 1, 0, "", 0);
	/* Bad checksum and bad run length: '-'. */
	raw(c, "$qAttached#8e", 13, 0, "-", 1);
	raw(c, "$* #4a", 6, 0, "-", 1);
	/* Too long: acked, E01. */
	hm_buf_init(&big);
	long_packet(&big, RSP_MAX_PACKET + 10, "");
	raw(c, big.data, big.len, 0, "+$E01#a6", 8);
	hm_buf_free(&big);
	/* Two packets in one read, and one split over many. */
	raw(c, "$qAttached#8f$qAttached#8f", 26, 0, "+$1#31+$1#31", 12);
	raw(c, "$qAtt", 5, 0, "", 0);
	raw(c, "ached#8", 7, 0, "", 0);
	raw(c, "f", 1, 0, "+$1#31", 6);
	/* Garbage between packets is ignored. */
	raw(c, "xyz\n\r\0", 6, 0, "", 0);
}

static void test_interrupt(void **state)
{
	struct ctx *c = *state;

	raw(c, "\x03", 1, 0, "", 0);
	assert_int_equal(c->fk.interrupts, 1);
	/* Inside a packet 0x03 is a byte of it: no interrupt, and the packet
	 * (with a NUL-free but odd byte) is unknown. */
	talk_bin(c, "q\x03", 2, "", 0);
	assert_int_equal(c->fk.interrupts, 1);
}

static void test_unknown(void **state)
{
	struct ctx *c = *state;

	talk(c, "vMustReplyEmpty", "");
	talk(c, "qFooBar", "");
	talk(c, "qCRC:1000,4", ""); /* not qC */
	talk(c, "qOffsets", "");
	talk(c, "qTStatus", "");
	talk(c, "qSymbol::", "");
	talk(c, "QNonStop:1", "");
	talk(c, "vFile:fstat:3", "");
	talk(c, "x", "");
	talk(c, "", "");
	/* A NUL inside a text packet: E01, not a shorter packet. */
	talk_bin(c, "m2f00\0,4", 8, "E01", 3);
}

static void test_query_stop(void **state)
{
	struct ctx *c = *state;

	/* Before multiprocess+: bare thread ids. */
	talk(c, "?", "T05thread:64;");
	handshake(c);
	talk(c, "?", "T05thread:p64.64;");
	talk(c, "qC", "QCp64.64");
	talk(c, "qAttached:64", "1");
}

static void test_threads(void **state)
{
	struct ctx *c = *state;
	struct hm_buf regs;

	hm_buf_init(&regs);
	handshake(c);
	talk(c, "qfThreadInfo", "mp64.64,p64.65,p64.66");
	talk(c, "qsThreadInfo", "l");
	talk(c, "qsThreadInfo", "l");
	talk(c, "Tp64.65", "OK");
	talk(c, "T65", "OK");
	talk(c, "Tp64.99", "E01");
	talk(c, "Tp65.65", "E01"); /* another process */
	talk(c, "T", "E01");
	talk(c, "Tzz", "E01");
	talk(c, "Hgp64.65", "OK");
	talk(c, "qC", "QCp64.65");
	ask(c, "g", &regs);
	assert_int_equal(regs.len, 2 * RSP_REGS_SIZE);
	assert_int_equal(c->fk.regs_tid, PID + 1);
	talk(c, "Hgp64.99", "E01");
	talk(c, "Hg0", "OK");
	talk(c, "qC", "QCp64.64");
	talk(c, "Hc-1", "OK");
	talk(c, "Hcp64.-1", "OK");
	talk(c, "Hx0", "E01");
	talk(c, "H", "E01");
	talk(c, "Hg", "E01");
	talk(c, "Hg-2", "E01");
	talk(c, "Hgp64.65x", "E01");
	talk(c, "Hg80000000", "E01"); /* past INT_MAX */
	hm_buf_free(&regs);
}

static void test_threads_xml(void **state)
{
	struct ctx *c = *state;
	const char *xml = "l<?xml version=\"1.0\"?>\n<threads>\n"
			  "<thread id=\"p64.64\" name=\"main\"/>\n"
			  "<thread id=\"p64.65\" name=\"worker\"/>\n"
			  "<thread id=\"p64.66\" name=\"a&amp;b&lt;&quot;c&quot;&gt;?\"/>\n"
			  "</threads>\n";
	char want[512];

	handshake(c);
	talk(c, "qXfer:threads:read::0,fff", xml);
	/* In windows: the document made at offset 0 is read on. */
	snprintf(want, sizeof(want), "m%.16s", xml + 1);
	talk(c, "qXfer:threads:read::0,10", want);
	c->fk.ntids = 1;
	snprintf(want, sizeof(want), "m%.16s", xml + 17);
	talk(c, "qXfer:threads:read::10,10", want);
	talk(c, "qXfer:threads:read::1000,10", "l");
	talk(c, "qXfer:threads:read:x:0,10", "E00");
	talk(c, "qXfer:threads:read::0", "E00");
	talk(c, "qXfer:threads:read:", "E00");
}

/* Many threads: qfThreadInfo/qsThreadInfo chunks, each within a packet,
 * together the whole list in order. */
static void test_threads_many(void **state)
{
	struct ctx *c = *state;
	struct hm_buf reply, all, want;
	int chunks = 0;

	hm_buf_init(&reply);
	hm_buf_init(&all);
	hm_buf_init(&want);
	handshake(c);
	c->fk.ntids = 3000;
	for (int i = 0; i < c->fk.ntids; i++) {
		c->fk.tids[i] = 1000 + i;
		hm_buf_addf(&want, "%sp64.%x", i ? "," : "", 1000 + i);
	}
	ask(c, "qfThreadInfo", &reply);
	while (reply.len && reply.data[0] == 'm') {
		assert_true(reply.len <= RSP_MAX_PACKET);
		hm_buf_addf(&all, "%s%s", chunks++ ? "," : "", (char *)reply.data + 1);
		ask(c, "qsThreadInfo", &reply);
	}
	assert_string_equal((char *)reply.data, "l");
	assert_true(chunks > 1);
	assert_string_equal((char *)all.data, (char *)want.data);
	hm_buf_free(&reply);
	hm_buf_free(&all);
	hm_buf_free(&want);
}

static void test_registers(void **state)
{
	struct ctx *c = *state;
	struct hm_buf want;

	hm_buf_init(&want);
	handshake(c);
	add_hex(&want, c->fk.regs, RSP_REGS_SIZE);
	talk(c, "g", (char *)want.data);
	assert_int_equal(want.len, 2 * RSP_REGS_SIZE);
	assert_int_equal(c->fk.regs_tid, PID);
	talk(c, "p0", "0001020304050607");
	talk(c, "p10", "8081828384858687");		    /* rip at 128 */
	talk(c, "p11", "88898a8b");			    /* eflags at 136 */
	talk(c, "p18", "a4a5a6a7a8a9aaabacad");		    /* st0 at 164, 10 bytes */
	talk(c, "p28", "1415161718191a1b");		    /* orig_rax at 276 */
	talk(c, "p2a", "2425262728292a2b");		    /* gs_base at 292 */
	talk(c, "p2b", "2c2d2e2f303132333435363738393a3b"); /* xmm0 at 300 */
	talk(c, "p3b", "2c2d2e2f");			    /* mxcsr at 556 */
	talk(c, "p4b", "202122232425262728292a2b2c2d2e2f"); /* ymm15h at 800 */
	talk(c, "p4c", "E01");
	talk(c, "p", "E01");
	talk(c, "pzz", "E01");
	talk(c, "p0,", "E01");
	talk(c, "pffffffffffffffffff", "E01");
	hm_buf_free(&want);
}

/* Without read_reg the stub cuts 'p' out of the 'g' block. */
static void test_registers_cut(void **state)
{
	struct rsp_target_ops ops = fake_ops;
	struct ctx *c;

	(void)state;
	ops.read_reg = NULL;
	c = ctx_new(&ops);
	talk(c, "p11", "88898a8b");
	talk(c, "p2a", "2425262728292a2b");
	assert_int_equal(c->fk.reg_reads, 2);
	*state = c;
	teardown(state);
}

static void test_writes_refused(void **state)
{
	struct ctx *c = *state;

	talk(c, "G0011", "E01");
	talk(c, "P10=0000000000000000", "E01");
	talk(c, "M2f00,1:ff", "E01");
	/* The same values again change nothing: accepted (gdb writes the pc
	 * back as it was around a reverse step). */
	talk(c, "P10=8081828384858687", "OK");
	talk(c, "P11=88898a8b", "OK");
	talk(c, "P11=88898a8c", "E01");
	talk(c, "P11=88898a", "E01"); /* short */
	talk(c, "P2b=00", "E01");
	talk(c, "P10", "E01");
	/* orig_rax = -1 (gdb's amd64 Linux pc write, at `run`): accepted, with
	 * no effect; any other value is a write */
	talk(c, "P28=ffffffffffffffff", "OK");
	talk(c, "p28", "1415161718191a1b");
	talk(c, "P28=fffffffffffffffe", "E01");
	talk(c, "M2f00,4:00010203", "OK");
	talk(c, "M2f00,1:01", "E01");
	talk(c, "M3000,1:00", "E01"); /* not mapped */
	{
		struct hm_buf same;

		hm_buf_init(&same);
		hm_buf_add(&same, "G", 1);
		add_hex(&same, c->fk.regs, RSP_REGS_SIZE);
		hm_buf_add(&same, "", 1);
		talk(c, (char *)same.data, "OK");
		memset(same.data + 1 + 2 * 276, 'f', 16); /* orig_rax -1 */
		talk(c, (char *)same.data, "OK");
		same.data[1] ^= 1; /* another rax */
		talk(c, (char *)same.data, "E01");
		hm_buf_free(&same);
	}
	/* X is not supported: gdb falls back to M */
	talk_bin(c, "X2f00,2:\0\xff", 10, "", 0);
	talk(c, "X2f00,0:", "");
}

static void test_memory(void **state)
{
	struct ctx *c = *state;
	struct hm_buf want;

	talk(c, "m2f00,4", "00010203");
	talk(c, "m2F10,2", "1011");
	/* Up to the fault at the page end: the bytes before it. */
	talk(c, "m2ff8,10", "f8f9fafbfcfdfeff");
	talk(c, "m3000,4", "E14");
	talk(c, "m0,1", "E14");
	talk(c, "m7000,4", "E01");
	talk(c, "m2f00,0", "");
	/* The most one reply holds, of which the first page's 0x100 bytes can
	 * be read; and one byte more than a reply holds. */
	hm_buf_init(&want);
	for (int i = 0; i < 0x100; i++)
		hm_buf_addf(&want, "%02x", i);
	talk(c, "m2f00,2000", (char *)want.data);
	talk(c, "m2f00,2001", "E01");
	hm_buf_free(&want);
	/* Malformed. */
	talk(c, "m", "E01");
	talk(c, "mzz,4", "E01");
	talk(c, "m2f00", "E01");
	talk(c, "m2f00,", "E01");
	talk(c, "m,4", "E01");
	talk(c, "m2f00,4x", "E01");
	talk(c, "m2f00;4", "E01");
	talk(c, "m1,ffffffffffffffff", "E01");
	talk(c, "m1,10000000000000000", "E01");
	talk(c, "m10000000000000000,1", "E01");
	talk(c, "mffffffffffffffff,2", "E01");
	talk(c, "m-1,4", "E01");
}

static void test_breakpoints(void **state)
{
	struct ctx *c = *state;

	talk(c, "Z0,401000,1", "OK");
	assert_int_equal(c->fk.bp_type, 0);
	assert_int_equal(c->fk.bp_addr, 0x401000);
	assert_int_equal(c->fk.bp_kind, 1);
	assert_int_equal(c->fk.bp_insert, 1);
	talk(c, "z0,401000,1", "OK");
	assert_int_equal(c->fk.bp_insert, 0);
	talk(c, "Z2,601040,8", "OK");
	assert_int_equal(c->fk.bp_type, 2);
	assert_int_equal(c->fk.bp_kind, 8);
	talk(c, "Z1,401000,1;X3,220100", "OK"); /* conditions ignored */
	talk(c, "Z0,dead,1", "E01");
	talk(c, "Z4,601040,8", ""); /* the target has no access watchpoints */
	talk(c, "Z5,1,1", "");
	assert_int_equal(c->fk.bp_calls, 6);
	talk(c, "Z0", "E01");
	talk(c, "Z0,zz,1", "E01");
	talk(c, "Z0,1000", "E01");
	talk(c, "Z0,1000,", "E01");
	talk(c, "Z0,1000,1x", "E01");
	talk(c, "Z", "E01");
	talk(c, "z", "E01");
	talk(c, "Zffffffffffffffffff,1,1", "E01");
	assert_int_equal(c->fk.bp_calls, 6);
}

static void test_vcont(void **state)
{
	struct ctx *c = *state;

	handshake(c);
	talk(c, "vCont?", "vCont;c;C;s;S");
	c->fk.next_stop = (struct rsp_stop){
		.kind = RSP_STOP_SIGNAL, .sig = 5, .tid = PID + 1, .reason = RSP_REASON_SWBREAK
	};
	talk(c, "vCont;c", "T05thread:p64.65;swbreak:;");
	assert_int_equal(c->fk.how, RSP_RESUME_CONT);
	assert_int_equal(c->fk.resume_tid, PID); /* the current thread then */
	/* The stop made its thread current, and '?' repeats the stop. */
	talk(c, "qC", "QCp64.65");
	talk(c, "?", "T05thread:p64.65;swbreak:;");
	/* The action that names a thread wins over the default. */
	c->fk.next_stop.reason = RSP_REASON_NONE;
	talk(c, "vCont;s:p64.66;c", "T05thread:p64.65;");
	assert_int_equal(c->fk.how, RSP_RESUME_STEP);
	assert_int_equal(c->fk.resume_tid, PID + 2);
	talk(c, "vCont;C0b:p64.64", "T05thread:p64.65;");
	assert_int_equal(c->fk.how, RSP_RESUME_CONT);
	assert_int_equal(c->fk.resume_tid, PID);
	talk(c, "vCont;S05", "T05thread:p64.65;");
	assert_int_equal(c->fk.how, RSP_RESUME_STEP);
	assert_int_equal(c->fk.resume_tid, PID + 1);
	/* Another process's action is not ours. */
	talk(c, "vCont;s:p99.99;c", "T05thread:p64.65;");
	assert_int_equal(c->fk.how, RSP_RESUME_CONT);
	assert_int_equal(c->fk.resumes, 5);
	/* Malformed. */
	talk(c, "vCont", "E01");
	talk(c, "vCont;", "E01");
	talk(c, "vCont;x", "E01");
	talk(c, "vCont;t", "E01");
	talk(c, "vCont;r1000,2000", "E01");
	talk(c, "vCont;c:zz", "E01");
	talk(c, "vCont;C", "E01");
	talk(c, "vCont;C100", "E01");
	talk(c, "vCont;c;", "E01");
	talk(c, "vCont;cx", "E01");
	talk(c, "vCont;s:p99.99", "E01"); /* nothing for us to do */
	talk(c, "vContx", "");
	assert_int_equal(c->fk.resumes, 5);
	/* The target failing: E01. */
	c->fk.resume_err = -EIO;
	talk(c, "vCont;c", "E01");
}

static void test_legacy_resume(void **state)
{
	struct ctx *c = *state;

	handshake(c);
	talk(c, "c", "T05thread:p64.64;");
	assert_int_equal(c->fk.how, RSP_RESUME_CONT);
	talk(c, "Hcp64.65", "OK");
	talk(c, "s", "T05thread:p64.64;");
	assert_int_equal(c->fk.how, RSP_RESUME_STEP);
	assert_int_equal(c->fk.resume_tid, PID + 1);
	talk(c, "C0b", "T05thread:p64.64;");
	talk(c, "S05", "T05thread:p64.64;");
	assert_int_equal(c->fk.resumes, 4);
	talk(c, "c401000", "E01");
	talk(c, "C05;401000", "E01");
	talk(c, "C", "E01");
	talk(c, "Szz", "E01");
	assert_int_equal(c->fk.resumes, 4);
}

static void test_reverse(void **state)
{
	struct ctx *c = *state;

	handshake(c);
	c->fk.next_stop = (struct rsp_stop){ .kind = RSP_STOP_REPLAY_BEGIN, .tid = PID };
	talk(c, "bc", "T05thread:p64.64;replaylog:begin;");
	assert_int_equal(c->fk.how, RSP_RESUME_REVERSE_CONT);
	c->fk.next_stop = (struct rsp_stop){ .kind = RSP_STOP_SIGNAL, .sig = 5, .tid = PID };
	talk(c, "bs", "T05thread:p64.64;");
	assert_int_equal(c->fk.how, RSP_RESUME_REVERSE_STEP);
	c->fk.next_stop = (struct rsp_stop){ .kind = RSP_STOP_REPLAY_END };
	talk(c, "c", "T05replaylog:end;");
	talk(c, "bcx", "");
	talk(c, "b", "");
	c->fk.resume_err = -EOPNOTSUPP;
	talk(c, "bc", "E01");
}

static void test_stop_replies(void **state)
{
	struct ctx *c = *state;
	struct rsp_stop st;

	/* Without the features gdb names: bare ids, no swbreak. */
	c->fk.next_stop = (struct rsp_stop){
		.kind = RSP_STOP_SIGNAL, .sig = 5, .tid = PID, .reason = RSP_REASON_SWBREAK
	};
	talk(c, "c", "T05thread:64;");
	c->fk.next_stop.reason = RSP_REASON_HWBREAK;
	talk(c, "c", "T05thread:64;");
	/* (nor an exec, to a gdb that did not say exec-events+) */
	c->fk.next_stop.reason = RSP_REASON_EXEC;
	talk(c, "c", "T05thread:64;");
	c->fk.next_stop = (struct rsp_stop){ .kind = RSP_STOP_EXITED, .status = 3 };
	talk(c, "c", "W03");
	handshake(c);
	talk(c, "?", "W03;process:64");
	c->fk.next_stop = (struct rsp_stop){ .kind = RSP_STOP_KILLED, .sig = 9 };
	talk(c, "c", "X09;process:64");
	c->fk.next_stop = (struct rsp_stop){
		.kind = RSP_STOP_SIGNAL, .sig = 5, .tid = PID + 2, .reason = RSP_REASON_HWBREAK
	};
	talk(c, "c", "T05thread:p64.66;hwbreak:;");
	c->fk.next_stop.reason = RSP_REASON_WATCH;
	c->fk.next_stop.watch_addr = 0x601040;
	talk(c, "c", "T05thread:p64.66;watch:601040;");
	c->fk.next_stop.reason = RSP_REASON_RWATCH;
	talk(c, "c", "T05thread:p64.66;rwatch:601040;");
	c->fk.next_stop.reason = RSP_REASON_AWATCH;
	talk(c, "c", "T05thread:p64.66;awatch:601040;");
	/* An exec: its program's path (exec-file's) in hex, once; '?' then
	 * says the stop without it. */
	c->fk.next_stop.reason = RSP_REASON_EXEC;
	talk(c, "c", "T05exec:2f62696e2f74727565;thread:p64.66;");
	talk(c, "?", "T05thread:p64.66;");
	c->fk.next_stop = (struct rsp_stop){ .kind = RSP_STOP_SIGNAL, .sig = 11, .tid = PID };
	talk(c, "c", "T0bthread:p64.64;");
	/* A stop of the target's own: its reply, kept for '?'. */
	st = (struct rsp_stop){ .kind = RSP_STOP_SIGNAL, .sig = 2, .tid = PID + 1 };
	hm_buf_reset(&c->fk.sent);
	rsp_session_stopped(c->s, &st);
	assert_int_equal(c->fk.sent.len, 21);
	assert_memory_equal(c->fk.sent.data, "$T02thread:p64.65;#", 19);
	talk(c, "?", "T02thread:p64.65;");
	/* One gdb did not ask for (a monitor command moved the target): kept
	 * for '?', nothing sent. */
	st = (struct rsp_stop){ .kind = RSP_STOP_SIGNAL, .sig = 5, .tid = PID + 2 };
	hm_buf_reset(&c->fk.sent);
	rsp_session_note_stop(c->s, &st);
	assert_int_equal(c->fk.sent.len, 0);
	talk(c, "?", "T05thread:p64.66;");
}

/* target.xml read in windows: whole, well formed, and its registers in
 * the order and sizes of the 'g' layout. */
static void test_target_xml(void **state)
{
	static const char *const names[] = {
		"rax",	    "rbx",     "rcx",	  "rdx",    "rsi",   "rdi",   "rbp",	"rsp",
		"r8",	    "r9",      "r10",	  "r11",    "r12",   "r13",   "r14",	"r15",
		"rip",	    "eflags",  "cs",	  "ss",	    "ds",    "es",    "fs",	"gs",
		"st0",	    "st1",     "st2",	  "st3",    "st4",   "st5",   "st6",	"st7",
		"fctrl",    "fstat",   "ftag",	  "fiseg",  "fioff", "foseg", "fooff",	"fop",
		"orig_rax", "fs_base", "gs_base", "xmm0",   "xmm1",  "xmm2",  "xmm3",	"xmm4",
		"xmm5",	    "xmm6",    "xmm7",	  "xmm8",   "xmm9",  "xmm10", "xmm11",	"xmm12",
		"xmm13",    "xmm14",   "xmm15",	  "mxcsr",  "ymm0h", "ymm1h", "ymm2h",	"ymm3h",
		"ymm4h",    "ymm5h",   "ymm6h",	  "ymm7h",  "ymm8h", "ymm9h", "ymm10h", "ymm11h",
		"ymm12h",   "ymm13h",  "ymm14h",  "ymm15h",
	};
	struct ctx *c = *state;
	struct hm_buf reply, xml;
	const char *p;
	size_t off = 0, bytes = 0;
	int n = 0;
	char pkt[64];

	hm_buf_init(&reply);
	hm_buf_init(&xml);
	for (;;) {
		snprintf(pkt, sizeof(pkt), "qXfer:features:read:target.xml:%zx,100", off);
		ask(c, pkt, &reply);
		assert_true(reply.data[0] == 'm' || reply.data[0] == 'l');
		assert_true(reply.len <= 0x101);
		hm_buf_add(&xml, reply.data + 1, reply.len - 1);
		off += reply.len - 1;
		if (reply.data[0] == 'l')
			break;
		assert_int_equal(reply.len, 0x101);
	}
	p = (const char *)xml.data;
	assert_non_null(strstr(p, "<architecture>i386:x86-64</architecture>"));
	assert_non_null(strstr(p, "<osabi>GNU/Linux</osabi>"));
	assert_non_null(strstr(p, "<feature name=\"org.gnu.gdb.i386.core\">"));
	assert_non_null(strstr(p, "<feature name=\"org.gnu.gdb.i386.linux\">"));
	assert_non_null(strstr(p, "<feature name=\"org.gnu.gdb.i386.segments\">"));
	assert_non_null(strstr(p, "<feature name=\"org.gnu.gdb.i386.sse\">"));
	assert_non_null(strstr(p, "<union id=\"vec128\">"));
	assert_non_null(strstr(p, "<feature name=\"org.gnu.gdb.i386.avx\">"));
	assert_non_null(strstr(p, "<flags id=\"i386_mxcsr\" size=\"4\">"));
	assert_non_null(strstr(p, "<flags id=\"i386_eflags\" size=\"4\">"));
	assert_int_equal(strncmp(p + strlen(p) - 10, "</target>\n", 10), 0);
	while ((p = strstr(p, "<reg name=\""))) {
		char name[32];
		int bits, regnum;

		assert_true(sscanf(p,
				   "<reg name=\"%31[^\"]\" bitsize=\"%d\" type=\"%*[^\"]\" "
				   "regnum=\"%d\"",
				   name, &bits, &regnum) == 3);
		assert_true(n < (int)(sizeof(names) / sizeof(names[0])));
		assert_string_equal(name, names[n]);
		assert_int_equal(regnum, n);
		bytes += (size_t)bits / 8;
		n++;
		p++;
	}
	assert_int_equal(n, 76);
	assert_int_equal(bytes, RSP_REGS_SIZE);
	/* Past the end, other annexes, malformed. */
	snprintf(pkt, sizeof(pkt), "qXfer:features:read:target.xml:%zx,100", xml.len);
	talk(c, pkt, "l");
	talk(c, "qXfer:features:read:target.xml:ffffffffffffffff,100", "l");
	talk(c, "qXfer:features:read:target.xml:0,0", "m");
	talk(c, "qXfer:features:read:64bit-core.xml:0,100", "E00");
	talk(c, "qXfer:features:read:target.xml:zz,100", "E00");
	talk(c, "qXfer:features:read:target.xml:0", "E00");
	talk(c, "qXfer:features:read:target.xml", "E00");
	talk(c, "qXfer:features:read:", "E00");
	talk(c, "qXfer:features:read:target.xml:0,100,", "E00");
	talk(c, "qXfer:features:write:target.xml:0:", "");
	hm_buf_free(&reply);
	hm_buf_free(&xml);
}

static void test_auxv_exec_file(void **state)
{
	struct ctx *c = *state;
	uint8_t want[32];

	want[0] = 'm';
	memcpy(want + 1, auxv, 8);
	talk_bin(c, "qXfer:auxv:read::0,8", 20, want, 9);
	/* The bytes that need escapes go through. */
	want[0] = 'l';
	memcpy(want + 1, auxv + 8, 8);
	talk_bin(c, "qXfer:auxv:read::8,100", 22, want, 9);
	talk(c, "qXfer:auxv:read::10,100", "l");
	talk(c, "qXfer:auxv:read::0,", "E00");
	talk(c, "qXfer:auxv:read:1:0,10", "E01");
	talk(c, "qXfer:exec-file:read:64:0,fff", "l/bin/true");
	talk(c, "qXfer:exec-file:read::0,4", "m/bin");
	talk(c, "qXfer:exec-file:read::4,5", "m/true");
	talk(c, "qXfer:exec-file:read::9,5", "l");
	talk(c,
	     "qXfer:exec-file:read:0123456789012345678901234567890123456789012345678901234567"
	     "89012345678901234567890123456789:0,1",
	     "E00");
}

static void test_vfile(void **state)
{
	struct ctx *c = *state;
	char want[64];

	talk(c, "vFile:setfs:0", "F0");
	talk(c, "vFile:setfs:64", "F0");
	talk(c, "vFile:setfs:", "F-1,16");
	/* "/etc/hello" in hex */
	talk(c, "vFile:open:2f6574632f68656c6c6f,0,0", "F3");
	assert_string_equal(c->fk.open_path, "/etc/hello");
	assert_int_equal(c->fk.open_flags, O_RDONLY);
	talk(c, "vFile:open:2f6e6f6e65,0,1a4", "F-1,2"); /* /none: ENOENT */
	assert_int_equal(c->fk.open_mode, 0644);
	talk(c, "vFile:open:2f6e6f6e65,0,81ed", "F-1,2"); /* S_IFREG | 0755 */
	assert_int_equal(c->fk.open_mode, 0755);
	/* File-I/O flags WRONLY|CREAT|TRUNC become the host's; EROFS is 30. */
	talk(c, "vFile:open:2f6574632f68656c6c6f,601,1a4", "F-1,1e");
	assert_int_equal(c->fk.open_flags, O_WRONLY | O_CREAT | O_TRUNC);
	talk(c, "vFile:open:2f6574632f68656c6c6f,80a,0", "F-1,1e");
	assert_int_equal(c->fk.open_flags, O_RDWR | O_APPEND | O_EXCL);
	/* pread: data as binary, escaped by the framing. */
	talk(c, "vFile:pread:3,5,6", "F5;world");
	snprintf(want, sizeof(want), "F%zx;%s", strlen(FILE_TEXT) - 6, FILE_TEXT + 6);
	talk(c, "vFile:pread:3,1000,6", want);
	talk(c, "vFile:pread:3,10,100", "F0;");
	talk(c, "vFile:pread:4,10,0", "F-1,9");
	talk(c, "vFile:close:3", "F0");
	talk(c, "vFile:close:4", "F-1,9");
	/* Malformed: EINVAL (22) as a Host I/O reply. */
	talk(c, "vFile:pread:zz", "F-1,16");
	talk(c, "vFile:pread:3,5", "F-1,16");
	talk(c, "vFile:pread:3,5,", "F-1,16");
	talk(c, "vFile:pread:3,5,6,", "F-1,16");
	talk(c, "vFile:pread:80000000,5,6", "F-1,16");
	talk(c, "vFile:close:", "F-1,16");
	talk(c, "vFile:close:-1", "F-1,16");
	talk(c, "vFile:open:2f6,0,0", "F-1,16");  /* odd hex */
	talk(c, "vFile:open:2f7z,0,0", "F-1,16"); /* not hex */
	talk(c, "vFile:open:2f00,0,0", "F-1,16"); /* a NUL in the path */
	talk(c, "vFile:open:,0,0", "F-1,16");
	talk(c, "vFile:open:2f,3,0", "F-1,16");	       /* no such access mode */
	talk(c, "vFile:open:2f,0,80000000", "F-1,16"); /* mode past INT_MAX */
	talk(c, "vFile:open:2f,0", "F-1,16");
	talk(c, "vFile:open:2f", "F-1,16");
	talk(c, "vFile:open:", "F-1,16");
}

static void test_vfile_long_path(void **state)
{
	struct ctx *c = *state;
	struct hm_buf pkt;

	hm_buf_init(&pkt);
	hm_buf_addf(&pkt, "vFile:open:");
	for (int i = 0; i < 300; i++)
		hm_buf_addf(&pkt, "61");
	hm_buf_addf(&pkt, ",0,0");
	talk(c, (char *)pkt.data, "F-1,5b"); /* ENAMETOOLONG is 91 in File-I/O */
	hm_buf_reset(&pkt);
	hm_buf_addf(&pkt, "vFile:open:");
	for (int i = 0; i < 4096; i++)
		hm_buf_addf(&pkt, "61");
	hm_buf_addf(&pkt, ",0,0");
	talk(c, (char *)pkt.data, "F-1,16");
	hm_buf_free(&pkt);
}

static void test_monitor(void **state)
{
	struct ctx *c = *state;
	struct hm_buf in, want;

	hm_buf_init(&in);
	hm_buf_init(&want);
	/* "when": console output as O<hex>, then OK; the packets hand-framed:
	 * 'O' + hex of "event 42\n" sums to 0x557, "OK" to 0x9a. */
	add_frame(&in, "qRcmd,7768656e", 14);
	raw(c, in.data, in.len, 0, "+$O6576656e742034320a#57$OK#9a", 30);
	/* No output: OK alone. "quiet" */
	talk(c, "qRcmd,7175696574", "OK");
	/* An error: its text, then E01. "bad" */
	hm_buf_reset(&in);
	add_frame(&in, "qRcmd,626164", 12);
	hm_buf_add(&want, "+", 1);
	add_frame(&want,
		  "O756e6b6e6f776e20636f6d6d616e64202762616427"
		  "0a",
		  45);
	add_frame(&want, "E01", 3);
	raw(c, in.data, in.len, 0, want.data, want.len);
	talk(c, "qRcmd,7", "E01");
	talk(c, "qRcmd,zz", "E01");
	talk(c, "qRcmd,6100", "E01");
	talk(c, "qRcmd", "");
	hm_buf_free(&in);
	hm_buf_free(&want);
}

static void test_detach(void **state)
{
	struct ctx *c = *state;

	raw(c, "$D#44", 5, 1, "+$OK#9a", 7);
	/* Ended: nothing more is read. */
	raw(c, "$qAttached#8f", 13, 1, "", 0);
}

static void test_detach_pid(void **state)
{
	struct ctx *c = *state;

	handshake(c);
	talk(c, "Dx", ""); /* not D */
	raw(c, "$D;64#e9", 8, 1, "+$OK#9a", 7);
}

static void test_kill(void **state)
{
	struct ctx *c = *state;

	talk_none(c, "k", 1);
	assert_int_equal(c->fk.kills, 1);
}

static void test_vkill(void **state)
{
	struct ctx *c = *state;
	struct hm_buf in, want;

	hm_buf_init(&in);
	hm_buf_init(&want);
	add_frame(&in, "vKill;64", 8);
	add_frame(&in, "qAttached", 9);
	hm_buf_add(&want, "+", 1);
	add_frame(&want, "OK", 2);
	raw(c, in.data, in.len, 1, want.data, want.len);
	assert_int_equal(c->fk.kills, 1);
	hm_buf_free(&in);
	hm_buf_free(&want);
}

/* Extended mode: k and vKill keep the session; vRun starts over. */
static void test_extended(void **state)
{
	struct ctx *c = *state;

	handshake(c);
	talk(c, "!", "OK");
	talk(c, "vKill;64", "OK");
	talk_none(c, "k", 0);
	assert_int_equal(c->fk.kills, 2);
	talk(c, "?", "X09;process:64");
	talk(c, "vRun;2f62696e2f74727565", "T05thread:p64.64;");
	assert_int_equal(c->fk.restarts, 1);
	talk(c, "vRun", "T05thread:p64.64;");
	talk(c, "vRunx", "");
	/* A target that gets to the start in its own loop: no reply yet, the
	 * stop's when it is there. */
	c->fk.restart_err = -EINPROGRESS;
	talk_none(c, "vRun", 0);
	assert_int_equal(c->fk.restarts, 3);
	{
		struct rsp_stop st = { .kind = RSP_STOP_SIGNAL, .sig = 5, .tid = PID };

		hm_buf_reset(&c->fk.sent);
		rsp_session_stopped(c->s, &st);
		assert_memory_equal(c->fk.sent.data, "$T05thread:p64.64;#", 19);
	}
	c->fk.restart_err = -EIO;
	talk(c, "vRun", "E01");
	raw(c, "$D#44", 5, 1, "+$OK#9a", 7);
}

static void test_send_error(void **state)
{
	struct ctx *c = *state;

	c->fk.send_err = -EPIPE;
	assert_int_equal(rsp_session_input(c->s, (const uint8_t *)"$qAttached#8f", 13), -EPIPE);
	assert_int_equal(rsp_session_input(c->s, (const uint8_t *)"$qAttached#8f", 13), -EPIPE);
}

/* A target with nothing but a pid: every packet has an answer. */
static void test_bare_target(void **state)
{
	static const struct rsp_target_ops bare = { .pid = PID };
	struct ctx *c = ctx_new(&bare);

	talk(c, "qSupported:multiprocess+",
	     "PacketSize=4000;QStartNoAckMode+;qXfer:features:read+;qXfer:threads:read+;"
	     "multiprocess+;swbreak+;hwbreak+;vContSupported+;ReverseContinue+;ReverseStep+");
	talk(c, "?", "T05thread:p64.64;");
	talk(c, "qfThreadInfo", "mp64.64");
	talk(c, "Tp64.64", "OK");
	talk(c, "g", "E01");
	talk(c, "p0", "E01");
	talk(c, "m2f00,4", "E01");
	talk(c, "Z0,1000,1", "");
	talk(c, "c", "E01");
	talk(c, "bs", "E01");
	talk(c, "vRun", "E01");
	talk(c, "qXfer:auxv:read::0,10", "");
	talk(c, "qXfer:threads:read::0,fff",
	     "l<?xml version=\"1.0\"?>\n<threads>\n<thread id=\"p64.64\"/>\n</threads>\n");
	talk(c, "vFile:open:2f,0,0", "");
	talk(c, "vFile:setfs:0", "");
	talk(c, "qRcmd,6869", "");
	raw(c, "\x03", 1, 0, "", 0);
	talk_none(c, "k", 1);
	*state = c;
	teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_framer_good),
		cmocka_unit_test(test_framer_bad_checksum),
		cmocka_unit_test(test_framer_escapes),
		cmocka_unit_test(test_framer_rle),
		cmocka_unit_test(test_framer_rle_malformed),
		cmocka_unit_test(test_framer_outside),
		cmocka_unit_test(test_framer_overflow),
		cmocka_unit_test(test_framer_garbage),
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_reg_offsets),
		cmocka_unit_test_setup_teardown(test_supported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_ack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_acks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_moves, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_query_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_xml, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registers, setup, teardown),
		cmocka_unit_test(test_registers_cut),
		cmocka_unit_test_setup_teardown(test_writes_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_breakpoints, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vcont, setup, teardown),
		cmocka_unit_test_setup_teardown(test_legacy_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reverse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_replies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_target_xml, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auxv_exec_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vfile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vfile_long_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_monitor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detach, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detach_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vkill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extended, setup, teardown),
		cmocka_unit_test_setup_teardown(test_send_error, setup, teardown),
		cmocka_unit_test(test_bare_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
