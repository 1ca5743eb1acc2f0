/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest for the DAP tests (tests/dap/): two workers add to a global
 * without a lock (a race, which the recording fixes), three times each,
 * through bump(); the main thread joins them, writes each of six slots
 * once, and prints the total on stdout and a line on stderr. Built
 * without PIE so that the test takes addresses from `nm` as they are.
 */
#include <pthread.h>
#include <stdio.h>

/* As written, whatever CFLAGS say: the test stops on bump's first
 * instruction and on each write to counter. */
#pragma GCC optimize("O0")

int counter;
int slots[6];

void bump(int by)
{
	int before = counter;

	counter = before + by;
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;

	for (int i = 0; i < 3; i++)
		bump(id);
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, worker, (void *)1L);
	pthread_create(&b, NULL, worker, (void *)10L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	for (int i = 0; i < 6; i++)
		slots[i] = counter + i;
	printf("counter %d\n", counter);
	fprintf(stderr, "dapprog done\n");
	return 0;
}
