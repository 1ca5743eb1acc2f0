/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packets on the wire (GDB manual E.1 "Overview"): $payload#cc, where cc
 * is the sum of the payload's bytes as sent, modulo 256, in two hex
 * digits. In the payload '}' escapes the next byte (XOR 0x20) and "X*n"
 * repeats X n - 29 more times. A byte state machine in the manner of
 * QEMU's gdb_read_byte(): it keeps only the decoded payload, never more
 * than RSP_MAX_PACKET of it, so no byte sequence can take it out of
 * bounds; a packet too long is read to its end and dropped.
 */
#include "config.h"

#include <string.h>

#include "gdbstub/gdbstub.h"
#include "gdbstub/internal.h"

void rsp_framer_init(struct rsp_framer *f)
{
	f->state = RSP_RS_IDLE;
	f->sum = 0;
	f->want = 0;
	f->malformed = 0;
	f->overflow = 0;
	f->len = 0;
	f->buf[0] = 0;
}

static void start_packet(struct rsp_framer *f)
{
	f->state = RSP_RS_GETLINE;
	f->sum = 0;
	f->malformed = 0;
	f->overflow = 0;
	f->len = 0;
}

/* Append N copies of C, or mark the packet too long. */
static void put(struct rsp_framer *f, uint8_t c, size_t n)
{
	if (f->overflow)
		return;
	if (n > RSP_MAX_PACKET - f->len) {
		f->overflow = 1;
		return;
	}
	memset(f->buf + f->len, c, n);
	f->len += n;
}

/* The packet's last byte has come: what it amounts to. */
static enum rsp_event end_packet(struct rsp_framer *f, uint8_t c)
{
	int hi = hm_hexval(f->want), lo = hm_hexval(c);

	f->state = RSP_RS_IDLE;
	if (hi < 0 || lo < 0 || (uint8_t)(hi << 4 | lo) != f->sum)
		return RSP_BAD_CHECKSUM;
	if (f->malformed)
		return RSP_MALFORMED;
	if (f->overflow)
		return RSP_OVERFLOW;
	f->buf[f->len] = 0;
	return RSP_PACKET;
}

enum rsp_event rsp_framer_byte(struct rsp_framer *f, uint8_t c)
{
	/*
	 * An unescaped '$' only ever starts a packet: inside one it means
	 * the rest of the one before was lost. Starting over, rather than
	 * answering '-' for the lost one too, keeps gdb from sending its
	 * packet twice.
	 */
	if (c == '$' && f->state != RSP_RS_CHKSUM1 && f->state != RSP_RS_CHKSUM2) {
		start_packet(f);
		return RSP_NONE;
	}
	switch (f->state) {
	case RSP_RS_IDLE:
		if (c == '+')
			return RSP_ACK;
		if (c == '-')
			return RSP_NACK;
		if (c == 0x03)
			return RSP_INTERRUPT;
		return RSP_NONE;
	case RSP_RS_GETLINE:
		if (c == '#') {
			f->state = RSP_RS_CHKSUM1;
			return RSP_NONE;
		}
		f->sum += c;
		if (c == '}')
			f->state = RSP_RS_GETLINE_ESC;
		else if (c == '*')
			f->state = RSP_RS_GETLINE_RLE;
		else
			put(f, c, 1);
		return RSP_NONE;
	case RSP_RS_GETLINE_ESC:
		if (c == '#') { /* an escape with nothing to escape */
			f->malformed = 1;
			f->state = RSP_RS_CHKSUM1;
			return RSP_NONE;
		}
		f->sum += c;
		put(f, c ^ 0x20, 1);
		f->state = RSP_RS_GETLINE;
		return RSP_NONE;
	case RSP_RS_GETLINE_RLE:
		/* E.1: the count is a printable character, not '#' or '$'. */
		if (c == '#') {
			f->malformed = 1;
			f->state = RSP_RS_CHKSUM1;
			return RSP_NONE;
		}
		f->sum += c;
		if (c < 32 || c > 126 || f->len == 0)
			f->malformed = 1;
		else
			put(f, f->buf[f->len - 1], (size_t)(c - 29));
		f->state = RSP_RS_GETLINE;
		return RSP_NONE;
	case RSP_RS_CHKSUM1:
		f->want = c;
		f->state = RSP_RS_CHKSUM2;
		return RSP_NONE;
	case RSP_RS_CHKSUM2:
		return end_packet(f, c);
	}
	f->state = RSP_RS_IDLE;
	return RSP_NONE;
}

size_t rsp_encode(const char *payload, size_t len, char *out, size_t size)
{
	uint8_t sum = 0;
	size_t n = 0;

	/* Room for '#' and the checksum stays free throughout. */
	if (size < 4)
		return 0;
	out[n++] = '$';
	for (size_t i = 0; i < len; i++) {
		uint8_t c = (uint8_t)payload[i];

		if (c == '#' || c == '$' || c == '}' || c == '*') {
			if (size - n < 2 + 3)
				return 0;
			out[n++] = '}';
			c ^= 0x20;
			sum += '}';
		} else if (size - n < 1 + 3) {
			return 0;
		}
		out[n++] = (char)c;
		sum += c;
	}
	out[n++] = '#';
	out[n++] = rsp_hexdigits[sum >> 4];
	out[n++] = rsp_hexdigits[sum & 15];
	return n;
}
