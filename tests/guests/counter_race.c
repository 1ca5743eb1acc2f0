/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two threads racing on an unlocked counter without a syscall between
 * (issue "Exact progress without a PMU"): `v = counter; counter = v + 1`,
 * N times each (argv[1], default 30,000,000). The total depends on where
 * the threads were interrupted, so under hermit it is one number per
 * schedule: the same on every run, every replay, every host.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long counter;
static long n = 30000000;

static void *work(void *arg)
{
	for (long i = 0; i < n; i++) {
		long v = counter;

		counter = v + 1;
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc > 1)
		n = atol(argv[1]);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", counter);
	return 0;
}
