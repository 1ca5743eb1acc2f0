/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A CPU-bound guest for bench/run.sh: integer arithmetic in a register and
 * no syscalls until the result is printed, so a supervisor that stops only
 * on syscalls should cost it nothing. The iteration count (argv[1],
 * default 600 million) makes it run for about a second natively. The
 * printed sum keeps the compiler from dropping the loop. With a second
 * argument T, T threads split the work (a multithreaded process is the one
 * hermit puts preemption sites in).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t work(uint64_t n)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL, acc = 0;

	/* xorshift64: each step depends on the last, so it cannot be folded. */
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		acc += x ^ i;
	}
	return acc;
}

static uint64_t share;

static void *thread(void *arg)
{
	*(uint64_t *)arg = work(share);
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 600000000ULL;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	uint64_t acc = 0, part[64];
	pthread_t th[64];

	if (threads <= 1) {
		acc = work(n);
	} else {
		if (threads > 64)
			threads = 64;
		share = n / (uint64_t)threads;
		for (int i = 0; i < threads; i++)
			pthread_create(&th[i], NULL, thread, &part[i]);
		for (int i = 0; i < threads; i++) {
			pthread_join(th[i], NULL);
			acc += part[i];
		}
	}
	printf("%llu\n", (unsigned long long)acc);
	return 0;
}
