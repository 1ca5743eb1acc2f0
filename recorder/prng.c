/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The guest's randomness: xoshiro256** (Blackman and Vigna, 2018), seeded
 * from --seed through splitmix64 as its authors recommend. Every random
 * byte the guest sees (getrandom, /dev/urandom, AT_RANDOM) comes from one
 * stream, in event order, so the same seed gives the same bytes.
 */
#include "config.h"

#include <string.h>

#include "recorder.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void rec_prng_init(struct rec_prng *p, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		p->s[i] = splitmix64(&seed);
}

uint64_t rec_prng_next(struct rec_prng *p)
{
	uint64_t *s = p->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

void rec_prng_fill(struct rec_prng *p, void *buf, size_t len)
{
	unsigned char *out = buf;

	while (len) {
		uint64_t v = rec_prng_next(p);
		size_t n = len < sizeof(v) ? len : sizeof(v);

		memcpy(out, &v, n);
		out += n;
		len -= n;
	}
}
