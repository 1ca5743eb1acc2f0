/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: thread A spins on a volatile flag, making no syscalls, until
 * thread B sets it; B first runs a long computation (about 0.3 s natively),
 * again without syscalls. Under serialized threads that switch only at
 * syscalls this never ends: A must be preempted for B to run, and B for A
 * to see the flag (DESIGN.md "Preemption"). Prints "done" and B's result,
 * which does not depend on the interleaving.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

/* About 0.3 s of dependent multiply-adds on a 3 GHz core. */
#define ROUNDS 200000000ULL

static volatile int flag;
static volatile uint64_t spins;
static uint64_t result;

static void *spinner(void *arg)
{
	uint64_t n = 0;

	(void)arg;
	while (!flag)
		n++;
	spins = n;
	return NULL;
}

static void *computer(void *arg)
{
	uint64_t x = 1;

	(void)arg;
	/* An LCG (Knuth's MMIX constants): each step needs the last. */
	for (uint64_t i = 0; i < ROUNDS; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL + (x >> 29);
	result = x;
	flag = 1;
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	if (pthread_create(&a, NULL, spinner, NULL) || pthread_create(&b, NULL, computer, NULL)) {
		perror("pthread_create");
		return 1;
	}
	pthread_join(b, NULL);
	pthread_join(a, NULL);
	printf("done %016" PRIx64 "\n", result);
	return 0;
}
