/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FNV-1a, 64 bits (Fowler, Noll and Vo; the parameters are those of
 * draft-eastlake-fnv): the digest of the run's events and of the bytes a
 * guest sends outside. Not a cryptographic hash: it tells a replay from a
 * recording that differs, it does not stand against an adversary.
 */
#include "config.h"

#include "common.h"

uint64_t hm_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= HM_FNV1A_PRIME;
	}
	return h;
}
