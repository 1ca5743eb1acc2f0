/* SPDX-License-Identifier: BSD-3-Clause */
/* A growable byte buffer, always NUL-terminated past len (git's strbuf). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

void hm_buf_init(struct hm_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void hm_buf_free(struct hm_buf *b)
{
	free(b->data);
	hm_buf_init(b);
}

void hm_buf_reset(struct hm_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = 0;
}

void *hm_buf_grow(struct hm_buf *b, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;

		while (cap < b->len + n + 1)
			cap *= 2;
		b->data = xrealloc(b->data, cap);
		b->cap = cap;
	}
	return b->data + b->len;
}

void hm_buf_add(struct hm_buf *b, const void *p, size_t n)
{
	memcpy(hm_buf_grow(b, n), p, n);
	b->len += n;
	b->data[b->len] = 0;
}

void hm_buf_addf(struct hm_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	hm_buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}
