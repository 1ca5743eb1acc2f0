/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hex digits, as the gdb remote protocol writes bytes: the stub (gdbstub/)
 * and the adapter's client of it (dap/) read them the same way.
 */
#include "config.h"

#include <errno.h>

#include "common.h"

int hm_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int hm_unhex(const char *hex, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hm_hexval((unsigned char)hex[2 * i]);
		int lo = hi < 0 ? -1 : hm_hexval((unsigned char)hex[2 * i + 1]);

		if (lo < 0)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}
