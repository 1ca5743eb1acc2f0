/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hex numbers and hex-encoded bytes as the protocol writes them (E.1):
 * numbers are hex with no sign and no fixed width, byte strings two digits
 * a byte. Every parse is bounded: a number of more than 64 bits is an
 * error, not a wrap-around, so "m1,ffffffffffffffffff" cannot ask for a
 * small length by overflowing.
 */
#include "config.h"

#include <errno.h>

#include "gdbstub/internal.h"

const char rsp_hexdigits[] = "0123456789abcdef";

int rsp_parse_hex(const char **p, uint64_t *v)
{
	const char *q = *p;
	uint64_t x = 0;
	int d;

	if (hm_hexval((unsigned char)*q) < 0)
		return -EINVAL;
	while ((d = hm_hexval((unsigned char)*q)) >= 0) {
		if (x > UINT64_MAX >> 4)
			return -EINVAL;
		x = x << 4 | (uint64_t)d;
		q++;
	}
	*v = x;
	*p = q;
	return 0;
}

int rsp_parse_hex_max(const char **p, uint64_t max, uint64_t *v)
{
	const char *q = *p;
	uint64_t x;

	if (rsp_parse_hex(&q, &x) < 0 || x > max)
		return -EINVAL;
	*v = x;
	*p = q;
	return 0;
}
