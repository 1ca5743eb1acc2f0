/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DAP's base protocol ("Base Protocol" in the DAP specification): a header
 * of "Name: value" lines ended by CRLF, a blank line, then Content-Length
 * bytes of UTF-8 JSON. Headers other than Content-Length are ignored (the
 * specification names none other). The framer keeps what came in a buffer
 * and never takes more than DAP_MAX_HEADER of header or DAP_MAX_BODY of
 * body: a peer that sends more, or garbage, loses those bytes, and the
 * framer starts again at the next "Content-Length:" it holds.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/common.h"
#include "dap/dap.h"

static const char CL[] = "Content-Length:";
#define CL_LEN (sizeof(CL) - 1)

void dap_framer_init(struct dap_framer *f)
{
	memset(f, 0, sizeof(*f));
}

void dap_framer_free(struct dap_framer *f)
{
	free(f->buf);
	free(f->body);
	memset(f, 0, sizeof(*f));
}

/* Drop what the last message or error took. */
static void consume(struct dap_framer *f)
{
	if (!f->taken)
		return;
	memmove(f->buf, f->buf + f->taken, f->len - f->taken);
	f->len -= f->taken;
	f->taken = 0;
}

void dap_framer_push(struct dap_framer *f, const void *bytes, size_t len)
{
	consume(f);
	if (f->len + len > f->cap) {
		f->cap = f->len + len < 4096 ? 4096 : 2 * (f->len + len);
		f->buf = xrealloc(f->buf, f->cap);
	}
	memcpy(f->buf + f->len, bytes, len);
	f->len += len;
}

/* Where the next "Content-Length:" (any case) starts at or after FROM, or
 * a tail that may be the start of one still coming; else the end. */
static size_t find_cl(const struct dap_framer *f, size_t from)
{
	for (size_t i = from; i < f->len; i++) {
		size_t m = f->len - i < CL_LEN ? f->len - i : CL_LEN;

		if (strncasecmp((const char *)f->buf + i, CL, m) == 0)
			return i;
	}
	return f->len;
}

/* Drop the bytes before the next Content-Length after the first, and say why. */
static int drop(struct dap_framer *f, const char *why)
{
	size_t next = find_cl(f, 1);

	snprintf(f->err, sizeof(f->err), "%s (%zu bytes dropped)", why, next);
	f->taken = next;
	return -EBADMSG;
}

/* The end of the header block (just after its blank line), or 0. */
static size_t header_end(const struct dap_framer *f)
{
	size_t lim = f->len < DAP_MAX_HEADER ? f->len : DAP_MAX_HEADER;

	for (size_t i = 0; i + 4 <= lim; i++) {
		if (!memcmp(f->buf + i, "\r\n\r\n", 4))
			return i + 4;
	}
	return 0;
}

/* A header's value after "Content-Length:" at P (the line ends in '\r'):
 * 0 and *N, or -1. */
static int parse_length(const char *p, const char *lim, unsigned long long *n)
{
	unsigned long long v = 0;
	int digits = 0;

	while (p < lim && (*p == ' ' || *p == '\t'))
		p++;
	for (; p < lim && isdigit((unsigned char)*p); p++, digits++) {
		if (v > DAP_MAX_BODY)
			return -1;
		v = v * 10 + (unsigned)(*p - '0');
	}
	while (p < lim && (*p == ' ' || *p == '\t'))
		p++;
	if (!digits || p >= lim || *p != '\r')
		return -1;
	*n = v;
	return 0;
}

int dap_framer_next(struct dap_framer *f, const char **body, size_t *len)
{
	unsigned long long clen = 0;
	size_t hend;
	int have = 0;

	consume(f);
	if (!f->len)
		return 0;
	/* A header starts with a name (RFC 7230's token characters): JSON
	 * or other text without one is no message. */
	if (!isalnum(f->buf[0]) && f->buf[0] != '-')
		return drop(f, "text outside a message (no Content-Length header)");
	hend = header_end(f);
	if (!hend)
		return f->len >= DAP_MAX_HEADER ? drop(f, "a header longer than 1024 bytes") : 0;
	for (size_t i = 0; i + 2 < hend;) {
		const char *line = (const char *)f->buf + i;
		const char *nl = memchr(line, '\n', hend - i);
		size_t ll = (size_t)(nl - line) + 1;

		if (ll > CL_LEN && strncasecmp(line, CL, CL_LEN) == 0) {
			if (parse_length(line + CL_LEN, nl, &clen) < 0)
				return drop(f, "a Content-Length that is not a number");
			have = 1;
		}
		i += ll;
	}
	if (!have)
		return drop(f, "a header without Content-Length");
	if (clen > DAP_MAX_BODY)
		return drop(f, "a Content-Length over 4 MiB");
	if (f->len - hend < clen)
		return 0;
	if (clen + 1 > f->body_cap) {
		f->body_cap = (size_t)clen + 1;
		f->body = xrealloc(f->body, f->body_cap);
	}
	memcpy(f->body, f->buf + hend, (size_t)clen);
	f->body[clen] = 0;
	f->body_start = hend;
	f->taken = hend + (size_t)clen;
	*body = f->body;
	*len = (size_t)clen;
	return 1;
}

void dap_framer_unread(struct dap_framer *f, size_t offset)
{
	if (f->taken && f->body_start + offset < f->taken)
		f->taken = f->body_start + offset;
}
