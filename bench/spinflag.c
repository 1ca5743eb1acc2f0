/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One thread spins on a flag that the other sets after a long loop, with
 * no syscalls in either: under a supervisor that switches threads only at
 * syscalls this never ends, so it measures preemption (bench/run.sh).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static volatile int flag;
static volatile uint64_t sink;

static void *setter(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < 200000000ULL; i++)
		sink += i;
	flag = 1;
	return NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	while (!flag)
		;
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&b, NULL, spinner, NULL);
	pthread_create(&a, NULL, setter, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("done %llu\n", (unsigned long long)sink);
	return 0;
}
