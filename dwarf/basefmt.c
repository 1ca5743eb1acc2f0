/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Base values as text, the way gdb prints them (so a DAP client shows
 * what a gdb user expects): integers in decimal, characters as their
 * code and the quoted character, floats with the digits that make them
 * round-trip, booleans as true and false, enums by enumerator.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dwarf/dwarf.h"

uint64_t dw_bits_extract(const void *bytes, size_t len, uint64_t bit_offset, unsigned bit_size,
			 int is_signed)
{
	const unsigned char *p = bytes;
	uint64_t v = 0;

	if (bit_size > 64)
		bit_size = 64;
	for (unsigned i = 0; i < bit_size; i++) {
		uint64_t b = bit_offset + i;
		if (b / 8 < len && (p[b / 8] >> (b % 8) & 1))
			v |= 1ull << i;
	}
	if (is_signed && bit_size && bit_size < 64 && (v >> (bit_size - 1) & 1))
		v |= ~0ull << bit_size;
	return v;
}

static int is_signed_enc(enum dw_encoding e)
{
	return e == DW_ENC_SIGNED || e == DW_ENC_SIGNED_CHAR;
}

int dw_base_format(const struct dw_type *t, const void *bytes, size_t len, unsigned bit_size,
		   uint64_t bit_offset, char *buf, size_t bufsz)
{
	uint64_t size = t->size;
	uint64_t v;
	int sgn = is_signed_enc(t->encoding);

	if (t->kind != DW_TYPE_BASE && t->kind != DW_TYPE_ENUM)
		return -EINVAL;
	if (!bit_size) {
		if (size > len || size == 0)
			return -EINVAL;
		if (t->encoding == DW_ENC_FLOAT) {
			if (size == 4) {
				float f;
				memcpy(&f, bytes, 4);
				return snprintf(buf, bufsz, "%.9g", (double)f);
			}
			if (size == 8) {
				double d;
				memcpy(&d, bytes, 8);
				return snprintf(buf, bufsz, "%.17g", d);
			}
			if (size == 16 || size == 10) {
				long double ld = 0;
				memcpy(&ld, bytes, 10);
				return snprintf(buf, bufsz, "%.21Lg", ld);
			}
			return -EINVAL;
		}
		if (size > 8)
			return -EINVAL;
		bit_size = (unsigned)size * 8;
	}
	v = dw_bits_extract(bytes, len, bit_offset, bit_size, sgn);
	switch (t->kind == DW_TYPE_ENUM ? DW_ENC_NONE : t->encoding) {
	case DW_ENC_BOOL:
		return v == 0 ? snprintf(buf, bufsz, "false")
		       : v == 1 ? snprintf(buf, bufsz, "true")
				: snprintf(buf, bufsz, "%llu", (unsigned long long)v);
	case DW_ENC_SIGNED_CHAR:
	case DW_ENC_UNSIGNED_CHAR: {
		unsigned char ch = (unsigned char)v;
		long long n = sgn ? (long long)(int64_t)v : (long long)v;
		if (ch >= 0x20 && ch < 0x7f && ch != '\'' && ch != '\\')
			return snprintf(buf, bufsz, "%lld '%c'", n, ch);
		return snprintf(buf, bufsz, "%lld '\\%03o'", n, ch);
	}
	case DW_ENC_NONE:
		if (t->kind == DW_TYPE_ENUM) {
			for (size_t i = 0; i < t->nenumerators; i++)
				if ((uint64_t)t->enumerators[i].value == v ||
				    (!sgn && bit_size < 64 &&
				     (uint64_t)t->enumerators[i].value ==
					     (v & ((1ull << bit_size) - 1))))
					return snprintf(buf, bufsz, "%s", t->enumerators[i].name);
		}
		/* fall through */
	default:
		if (is_signed_enc(t->encoding))
			return snprintf(buf, bufsz, "%lld", (long long)(int64_t)v);
		return snprintf(buf, bufsz, "%llu", (unsigned long long)v);
	}
}
