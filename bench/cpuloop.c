/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A CPU-bound guest for bench/run.sh: integer arithmetic in a register and
 * no syscalls until the result is printed, so a supervisor that stops only
 * on syscalls should cost it nothing. The iteration count (argv[1],
 * default 600 million) makes it run for about a second natively. The
 * printed sum keeps the compiler from dropping the loop.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 600000000ULL;
	uint64_t x = 0x9e3779b97f4a7c15ULL, acc = 0;

	/* xorshift64: each step depends on the last, so it cannot be folded. */
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		acc += x ^ i;
	}
	printf("%llu\n", (unsigned long long)acc);
	return 0;
}
