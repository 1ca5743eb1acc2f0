/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RSP client (GDB manual, appendix E): packets $payload#cc out, with
 * '#', '$', '}' and '*' escaped; packets in, checked and decoded ('}'
 * escapes, "X*n" run lengths), acks until QStartNoAckMode and none after.
 * 'O' packets (a monitor command's output) are collected apart. Only
 * 127.0.0.1 is ever connected to, and nothing listens: the replay child
 * serves, hermit-dap calls.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dap/internal.h"

void dap_rsp_init(struct dap_rsp *r)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	hm_buf_init(&r->pkt);
	hm_buf_init(&r->console);
}

void dap_rsp_close(struct dap_rsp *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->in_len = 0;
	hm_buf_free(&r->pkt);
	hm_buf_free(&r->console);
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -EPIPE;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int dap_rsp_send(struct dap_rsp *r, const char *payload, size_t len)
{
	struct hm_buf b;
	uint8_t sum = 0;
	int err;

	if (r->fd < 0)
		return -ENOTCONN;
	hm_buf_init(&b);
	hm_buf_add(&b, "$", 1);
	for (size_t i = 0; i < len; i++) {
		uint8_t c = (uint8_t)payload[i];

		if (c == '#' || c == '$' || c == '}' || c == '*') {
			uint8_t esc[2] = { '}', (uint8_t)(c ^ 0x20) };

			hm_buf_add(&b, esc, 2);
			sum = (uint8_t)(sum + esc[0] + esc[1]);
		} else {
			hm_buf_add(&b, &c, 1);
			sum = (uint8_t)(sum + c);
		}
	}
	hm_buf_addf(&b, "#%02x", sum);
	hm_trace("rsp: -> %.*s", (int)b.len, (const char *)b.data);
	err = write_all(r->fd, b.data, b.len);
	hm_buf_free(&b);
	return err;
}

int dap_rsp_sendf(struct dap_rsp *r, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -E2BIG;
	return dap_rsp_send(r, buf, (size_t)n);
}

int dap_rsp_interrupt(struct dap_rsp *r)
{
	return r->fd < 0 ? -ENOTCONN : write_all(r->fd, "\x03", 1);
}

int dap_rsp_fill(struct dap_rsp *r)
{
	ssize_t n;

	if (r->fd < 0)
		return -EPIPE;
	if (r->in_len == sizeof(r->in))
		return 0; /* (a packet this long is cut by dap_rsp_next) */
	do
		n = recv(r->fd, r->in + r->in_len, sizeof(r->in) - r->in_len, MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n <= 0)
		return -EPIPE;
	r->in_len += (size_t)n;
	return 0;
}

/* Decode the packet in[1..hash) into r->pkt: 0, or -EBADMSG. */
static int decode(struct dap_rsp *r, size_t hash)
{
	hm_buf_reset(&r->pkt);
	for (size_t i = 1; i < hash; i++) {
		uint8_t c = r->in[i];

		if (c == '}') {
			if (++i >= hash)
				return -EBADMSG;
			c = r->in[i] ^ 0x20;
			hm_buf_add(&r->pkt, &c, 1);
		} else if (c == '*') {
			/* "X*n": X repeated n - 29 more times */
			int n;

			if (!r->pkt.len || ++i >= hash || r->in[i] < 32 || r->in[i] > 126)
				return -EBADMSG;
			n = r->in[i] - 29;
			c = r->pkt.data[r->pkt.len - 1];
			for (int k = 0; k < n; k++)
				hm_buf_add(&r->pkt, &c, 1);
		} else {
			hm_buf_add(&r->pkt, &c, 1);
		}
	}
	hm_buf_add(&r->pkt, "", 1);
	r->pkt.len--;
	return 0;
}

int dap_rsp_next(struct dap_rsp *r)
{
	for (;;) {
		size_t start = 0, hash, end;
		uint8_t sum = 0;
		int ok, err, hi, lo;

		/* acks and noise before the packet */
		while (start < r->in_len && r->in[start] != '$')
			start++;
		memmove(r->in, r->in + start, r->in_len - start);
		r->in_len -= start;
		if (!r->in_len)
			return 0;
		for (hash = 1; hash < r->in_len && r->in[hash] != '#'; hash++)
			sum = (uint8_t)(sum + r->in[hash]);
		if (hash + 2 >= r->in_len) { /* (no checksum yet) */
			if (r->in_len == sizeof(r->in)) {
				r->in_len = 0; /* longer than any reply we ask for */
				return -EBADMSG;
			}
			return 0;
		}
		end = hash + 3;
		hi = hm_hexval(r->in[hash + 1]);
		lo = hm_hexval(r->in[hash + 2]);
		ok = hi >= 0 && lo >= 0 && (uint8_t)(hi << 4 | lo) == sum;
		err = ok ? decode(r, hash) : -EBADMSG;
		memmove(r->in, r->in + end, r->in_len - end);
		r->in_len -= end;
		if (!r->no_ack && r->fd >= 0)
			write_all(r->fd, ok ? "+" : "-", 1);
		if (err)
			return err;
		hm_trace("rsp: <- %s", (const char *)r->pkt.data);
		/* O<hex>: output of a monitor command (never "OK") */
		if (r->pkt.len > 1 && r->pkt.data[0] == 'O' && strcmp((char *)r->pkt.data, "OK")) {
			size_t n = (r->pkt.len - 1) / 2;
			uint8_t *txt = hm_buf_grow(&r->console, n);

			if (hm_unhex((const char *)r->pkt.data + 1, n, txt) == 0)
				r->console.len += n;
			continue;
		}
		return 1;
	}
}

int dap_rsp_wait(struct dap_rsp *r)
{
	for (;;) {
		struct pollfd fds[8];
		int n = 1, got = dap_rsp_next(r);

		if (got == 1)
			return 0;
		if (got < 0)
			return got;
		if (r->fd < 0)
			return -EPIPE;
		fds[0] = (struct pollfd){ .fd = r->fd, .events = POLLIN };
		if (r->fill)
			n += r->fill(r->arg, fds + 1, 7);
		if (poll(fds, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n > 1 && r->ready)
			r->ready(r->arg, fds + 1, n - 1);
		if (fds[0].revents && dap_rsp_fill(r) < 0) {
			got = dap_rsp_next(r);
			return got == 1 ? 0 : -EPIPE;
		}
	}
}

int dap_rsp_request(struct dap_rsp *r, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n, err;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -E2BIG;
	err = dap_rsp_send(r, buf, (size_t)n);
	return err ? err : dap_rsp_wait(r);
}

int dap_rsp_connect(struct dap_rsp *r, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, err;

	if (fd < 0)
		return -errno;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	r->fd = fd;
	r->no_ack = 0;
	err = dap_rsp_request(r, "QStartNoAckMode");
	if (err)
		return err;
	if (strcmp((char *)r->pkt.data, "OK") == 0)
		r->no_ack = 1;
	/* swbreak: a stop at a breakpoint says so; no multiprocess: plain
	 * thread ids */
	err = dap_rsp_request(r, "qSupported:swbreak+;hwbreak+");
	return err;
}

/* "name:value;" pairs after T's signal. */
static void stop_pairs(const char *p, struct dap_stop *st)
{
	while (*p) {
		const char *colon = strchr(p, ':'), *semi;
		size_t n;

		if (!colon)
			return;
		semi = strchr(colon, ';');
		n = (size_t)(colon - p);
		if (n == 6 && !memcmp(p, "thread", 6)) {
			const char *t = colon + 1,
				   *dot = memchr(t, '.', semi ? (size_t)(semi - t) : strlen(t));

			st->tid = (int)strtol(dot ? dot + 1 : t, NULL, 16);
		} else if (n == 7 && !memcmp(p, "swbreak", 7)) {
			st->why = DAP_WHY_SWBREAK;
		} else if (n == 7 && !memcmp(p, "hwbreak", 7)) {
			st->why = DAP_WHY_HWBREAK;
		} else if ((n == 5 && !memcmp(p, "watch", 5)) ||
			   (n == 6 && !memcmp(p, "rwatch", 6)) ||
			   (n == 6 && !memcmp(p, "awatch", 6))) {
			st->why = p[0] == 'w'	? DAP_WHY_WATCH
				  : p[0] == 'r' ? DAP_WHY_RWATCH
						: DAP_WHY_AWATCH;
			st->watch_addr = strtoull(colon + 1, NULL, 16);
		} else if (n == 9 && !memcmp(p, "replaylog", 9)) {
			if (!strncmp(colon + 1, "begin", 5))
				st->why = DAP_WHY_BEGIN;
			else if (!strncmp(colon + 1, "end", 3))
				st->why = DAP_WHY_END;
		}
		if (!semi)
			return;
		p = semi + 1;
	}
}

int dap_rsp_parse_stop(const char *pkt, struct dap_stop *st)
{
	memset(st, 0, sizeof(*st));
	if ((pkt[0] != 'T' && pkt[0] != 'S' && pkt[0] != 'W' && pkt[0] != 'X') ||
	    hm_hexval((unsigned char)pkt[1]) < 0 || hm_hexval((unsigned char)pkt[2]) < 0)
		return -EINVAL;
	st->sig = hm_hexval((unsigned char)pkt[1]) << 4 | hm_hexval((unsigned char)pkt[2]);
	switch (pkt[0]) {
	case 'W':
		st->kind = DAP_STOP_EXITED;
		st->status = st->sig;
		st->sig = 0;
		return 0;
	case 'X':
		st->kind = DAP_STOP_KILLED;
		return 0;
	case 'T':
		stop_pairs(pkt + 3, st);
		break;
	}
	st->kind = DAP_STOP_SIGNAL;
	return 0;
}
