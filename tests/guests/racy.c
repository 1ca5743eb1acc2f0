/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: a data race. Two threads each add 1 to a shared counter 2000
 * times with an unlocked load and store (tmp = counter; counter = tmp + 1)
 * and no syscalls in the loop. A thread preempted between its load and its
 * store writes back a stale value and the other's updates are lost. Prints
 * "counter N": 4000 when no update was lost.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 2
#define STEPS 2000

static volatile int counter;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < STEPS; i++) {
		int tmp = counter;

		counter = tmp + 1;
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS];

	for (int i = 0; i < NTHREADS; i++) {
		if (pthread_create(&th[i], NULL, worker, NULL)) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	printf("counter %d\n", counter);
	return 0;
}
