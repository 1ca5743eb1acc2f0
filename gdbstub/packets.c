/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A session with one gdb: bytes in through the framer, acks (E.11
 * "Packet Acknowledgment") until QStartNoAckMode, and each whole packet
 * to the first row of a table whose name it starts with, as QEMU's
 * gdb_handle_packet() does. Rows are ordered so that a longer name comes
 * before a shorter one it starts with; a row may want the name alone
 * (EXACT) or followed by nothing or by ':', ';' or ',' (ARGS), so "qC"
 * does not take "qCRC:". A packet no row takes gets the empty reply, which
 * tells gdb it is not supported (E.2 "Standard Replies"). Replies are built
 * in s->out, never more than RSP_MAX_PACKET, framed into s->wire and kept
 * there to be sent again on a '-'.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/internal.h"

/* ---- replies ---- */

static void send_raw(struct rsp_session *s, const char *bytes, size_t len)
{
	int r;

	if (s->err)
		return;
	r = s->send(s->io, bytes, len);
	if (r < 0)
		s->err = r;
}

static void send_packet(struct rsp_session *s, const char *payload, size_t len)
{
	s->wire_len = rsp_encode(payload, len, s->wire, sizeof(s->wire));
	send_raw(s, s->wire, s->wire_len);
}

void rsp_out_reset(struct rsp_session *s)
{
	s->out_len = 0;
	s->out_full = 0;
}

size_t rsp_out_room(const struct rsp_session *s)
{
	return s->out_full ? 0 : sizeof(s->out) - s->out_len;
}

void rsp_out_add(struct rsp_session *s, const void *p, size_t n)
{
	if (n > rsp_out_room(s)) {
		s->out_full = 1;
		return;
	}
	memcpy(s->out + s->out_len, p, n);
	s->out_len += n;
}

void rsp_out_str(struct rsp_session *s, const char *str)
{
	rsp_out_add(s, str, strlen(str));
}

void rsp_out_fmt(struct rsp_session *s, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		s->out_full = 1;
	else
		rsp_out_add(s, tmp, (size_t)n);
}

void rsp_out_hex(struct rsp_session *s, const uint8_t *p, size_t n)
{
	if (n > rsp_out_room(s) / 2) {
		s->out_full = 1;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		s->out[s->out_len++] = rsp_hexdigits[p[i] >> 4];
		s->out[s->out_len++] = rsp_hexdigits[p[i] & 15];
	}
}

void rsp_out_send(struct rsp_session *s)
{
	if (s->out_full) /* a handler that did not bound its reply */
		send_packet(s, "E01", 3);
	else
		send_packet(s, s->out, s->out_len);
	rsp_out_reset(s);
}

void rsp_reply_str(struct rsp_session *s, const char *str)
{
	rsp_out_reset(s);
	rsp_out_str(s, str);
	rsp_out_send(s);
}

void rsp_reply_hex(struct rsp_session *s, const uint8_t *p, size_t n)
{
	rsp_out_reset(s);
	rsp_out_hex(s, p, n);
	rsp_out_send(s);
}

/* ---- general packets ---- */

/* qSupported[:gdbfeature;...] (E.5): what gdb can take decides thread ids
 * and stop reasons; what the stub can do goes back. */
static int handle_supported(struct rsp_session *s, const char *args)
{
	s->multiprocess = s->swbreak = s->hwbreak = s->exec_events = 0;
	while (*args == ':' || *args == ';') {
		const char *name = ++args;
		size_t n = strcspn(name, ";");

		if (n == 13 && !memcmp(name, "multiprocess+", n))
			s->multiprocess = 1;
		else if (n == 8 && !memcmp(name, "swbreak+", n))
			s->swbreak = 1;
		else if (n == 8 && !memcmp(name, "hwbreak+", n))
			s->hwbreak = 1;
		else if (n == 12 && !memcmp(name, "exec-events+", n))
			s->exec_events = 1;
		args = name + n;
	}
	rsp_out_reset(s);
	rsp_out_fmt(s, "PacketSize=%x", RSP_MAX_PACKET);
	rsp_out_str(s, ";QStartNoAckMode+;qXfer:features:read+;qXfer:threads:read+;"
		       "multiprocess+;swbreak+;hwbreak+;vContSupported+;"
		       "ReverseContinue+;ReverseStep+");
	if (s->ops->xfer)
		rsp_out_str(s, ";qXfer:auxv:read+;qXfer:exec-file:read+");
	/* (as gdbserver: only to a gdb that offered it, which then expects
	 * exec stops; the new program's path comes from exec-file) */
	if (s->ops->xfer && s->exec_events)
		rsp_out_str(s, ";exec-events+");
	else
		s->exec_events = 0;
	rsp_out_send(s);
	return 0;
}

/* QStartNoAckMode: this packet was acked and its OK will be, then no more. */
static int handle_no_ack(struct rsp_session *s, const char *args)
{
	(void)args;
	rsp_reply_str(s, "OK");
	s->no_ack = 1;
	return 0;
}

static int handle_empty(struct rsp_session *s, const char *args)
{
	(void)args;
	rsp_reply_str(s, "");
	return 0;
}

/* '!': extended mode, where gdb may kill and vRun again. */
static int handle_extended(struct rsp_session *s, const char *args)
{
	(void)args;
	s->extended = 1;
	rsp_reply_str(s, "OK");
	return 0;
}

/* qAttached[:pid]: 1, gdb detaches rather than kills when it quits. */
static int handle_attached(struct rsp_session *s, const char *args)
{
	(void)args;
	rsp_reply_str(s, "1");
	return 0;
}

/* D[;pid]: gdb lets go; the session ends. */
static int handle_detach(struct rsp_session *s, const char *args)
{
	(void)args;
	rsp_reply_str(s, "OK");
	return 1;
}

static int kill_target(struct rsp_session *s)
{
	struct rsp_stop st = { .kind = RSP_STOP_KILLED, .sig = 9 };

	if (s->ops->kill)
		s->ops->kill(s->t);
	s->last = st;
	s->have_last = 1;
	return !s->extended;
}

/* k: no reply (E.2 'k'). */
static int handle_kill(struct rsp_session *s, const char *args)
{
	(void)args;
	return kill_target(s);
}

/* vKill;pid: OK. */
static int handle_vkill(struct rsp_session *s, const char *args)
{
	(void)args;
	rsp_reply_str(s, "OK");
	return kill_target(s);
}

/* ---- the table ---- */

#define EXACT 1 /* the name alone */
#define ARGS  2 /* the name alone or followed by ':', ';' or ',' */

struct rsp_cmd {
	const char *cmd;
	int (*handler)(struct rsp_session *s, const char *args);
	int flags;
};

/* qOffsets, qTStatus, qSymbol and the rest unlisted get the empty reply:
 * gdb then takes the ELF file's addresses and no trace run. So does X
 * (binary memory writes): gdb's probe of it then makes it write with M,
 * which accepts a write of what is already there (memory.c). */
static const struct rsp_cmd cmds[] = {
	{ .cmd = "qSupported", .handler = handle_supported, .flags = ARGS },
	{ .cmd = "QStartNoAckMode", .handler = handle_no_ack, .flags = EXACT },
	{ .cmd = "vMustReplyEmpty", .handler = handle_empty, .flags = EXACT },
	{ .cmd = "?", .handler = rsp_handle_query_stop, .flags = EXACT },
	{ .cmd = "!", .handler = handle_extended, .flags = EXACT },
	{ .cmd = "H", .handler = rsp_handle_set_thread },
	{ .cmd = "T", .handler = rsp_handle_thread_alive },
	{ .cmd = "qfThreadInfo", .handler = rsp_handle_thread_first, .flags = EXACT },
	{ .cmd = "qsThreadInfo", .handler = rsp_handle_thread_next, .flags = EXACT },
	{ .cmd = "qC", .handler = rsp_handle_current_thread, .flags = EXACT },
	{ .cmd = "qAttached", .handler = handle_attached, .flags = ARGS },
	{ .cmd = "qXfer:features:read:", .handler = rsp_handle_xfer_features },
	{ .cmd = "qXfer:threads:read:", .handler = rsp_handle_xfer_threads },
	{ .cmd = "qXfer:auxv:read:", .handler = rsp_handle_xfer_auxv },
	{ .cmd = "qXfer:exec-file:read:", .handler = rsp_handle_xfer_exec_file },
	{ .cmd = "qRcmd,", .handler = rsp_handle_monitor },
	{ .cmd = "g", .handler = rsp_handle_read_regs, .flags = EXACT },
	{ .cmd = "p", .handler = rsp_handle_read_reg },
	{ .cmd = "m", .handler = rsp_handle_read_mem },
	{ .cmd = "G", .handler = rsp_handle_write_regs },
	{ .cmd = "P", .handler = rsp_handle_write_reg },
	{ .cmd = "M", .handler = rsp_handle_write_mem },
	{ .cmd = "Z", .handler = rsp_handle_insert_bp },
	{ .cmd = "z", .handler = rsp_handle_remove_bp },
	{ .cmd = "vCont?", .handler = rsp_handle_vcont_query, .flags = EXACT },
	{ .cmd = "vCont", .handler = rsp_handle_vcont, .flags = ARGS },
	{ .cmd = "c", .handler = rsp_handle_cont },
	{ .cmd = "C", .handler = rsp_handle_cont_sig },
	{ .cmd = "s", .handler = rsp_handle_step },
	{ .cmd = "S", .handler = rsp_handle_step_sig },
	{ .cmd = "bc", .handler = rsp_handle_reverse_cont, .flags = EXACT },
	{ .cmd = "bs", .handler = rsp_handle_reverse_step, .flags = EXACT },
	{ .cmd = "vFile:setfs:", .handler = rsp_handle_file_setfs },
	{ .cmd = "vFile:open:", .handler = rsp_handle_file_open },
	{ .cmd = "vFile:pread:", .handler = rsp_handle_file_pread },
	{ .cmd = "vFile:close:", .handler = rsp_handle_file_close },
	{ .cmd = "D", .handler = handle_detach, .flags = ARGS },
	{ .cmd = "k", .handler = handle_kill, .flags = EXACT },
	{ .cmd = "vKill", .handler = handle_vkill, .flags = ARGS },
	{ .cmd = "vRun", .handler = rsp_handle_run, .flags = ARGS },
};

static int matches(const struct rsp_cmd *c, const char *pkt, size_t len)
{
	size_t n = strlen(c->cmd);

	if (len < n || memcmp(pkt, c->cmd, n) != 0)
		return 0;
	if (len == n || !(c->flags & (EXACT | ARGS)))
		return 1;
	if (c->flags & EXACT)
		return 0;
	return pkt[n] == ':' || pkt[n] == ';' || pkt[n] == ',';
}

static void dispatch(struct rsp_session *s)
{
	const char *pkt = (const char *)s->f.buf;
	size_t len = s->f.len;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const struct rsp_cmd *c = &cmds[i];

		if (!matches(c, pkt, len))
			continue;
		if (memchr(pkt, 0, len)) { /* no packet of the table carries binary */
			rsp_reply_str(s, "E01");
			return;
		}
		if (c->handler(s, pkt + strlen(c->cmd)))
			s->ended = 1;
		return;
	}
	rsp_reply_str(s, "");
}

/* ---- the session ---- */

struct rsp_session *rsp_session_new(const struct rsp_target_ops *ops, void *target,
				    int (*send)(void *io, const char *bytes, size_t len), void *io)
{
	struct rsp_session *s = xcalloc(1, sizeof(*s));

	rsp_framer_init(&s->f);
	s->ops = ops;
	s->t = target;
	s->send = send;
	s->io = io;
	hm_buf_init(&s->tdesc);
	hm_buf_init(&s->threads);
	rsp_tdesc_xml(&s->tdesc);
	return s;
}

void rsp_session_free(struct rsp_session *s)
{
	if (!s)
		return;
	hm_buf_free(&s->tdesc);
	hm_buf_free(&s->threads);
	free(s);
}

size_t rsp_session_state_size(void)
{
	return sizeof(struct rsp_session);
}

void rsp_session_save(const struct rsp_session *s, void *buf)
{
	memcpy(buf, s, sizeof(*s));
}

void rsp_session_load(struct rsp_session *s, const void *buf)
{
	struct rsp_session keep = *s;

	memcpy(s, buf, sizeof(*s));
	s->ops = keep.ops;
	s->t = keep.t;
	s->send = keep.send;
	s->io = keep.io;
	s->tdesc = keep.tdesc;
	s->threads = keep.threads;
	hm_buf_reset(&s->threads); /* made again at offset 0 */
}

int rsp_session_input(struct rsp_session *s, const uint8_t *bytes, size_t len)
{
	for (size_t i = 0; i < len && !s->ended && !s->err; i++) {
		switch (rsp_framer_byte(&s->f, bytes[i])) {
		case RSP_PACKET:
			if (!s->no_ack)
				send_raw(s, "+", 1);
			dispatch(s);
			break;
		case RSP_BAD_CHECKSUM:
		case RSP_MALFORMED:
			/* Without acks there is no asking again: a client that
			 * sends bad checksums then gets no reply. */
			if (!s->no_ack)
				send_raw(s, "-", 1);
			break;
		case RSP_OVERFLOW:
			if (!s->no_ack)
				send_raw(s, "+", 1);
			rsp_reply_str(s, "E01");
			break;
		case RSP_NACK:
			if (!s->no_ack && s->wire_len)
				send_raw(s, s->wire, s->wire_len);
			break;
		case RSP_INTERRUPT:
			if (s->ops->interrupt)
				s->ops->interrupt(s->t);
			break;
		case RSP_NONE:
		case RSP_ACK:
			break;
		}
	}
	if (s->err)
		return s->err;
	return s->ended;
}
