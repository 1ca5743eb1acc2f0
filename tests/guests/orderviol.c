/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: an order violation. The main thread starts a worker and only then
 * publishes the configuration the worker reads (config = &cfg), assuming
 * the new thread cannot get that far first. Natively it almost never does;
 * a schedule that runs the worker before the main thread's next few
 * instructions makes it see no configuration. The worker records what it
 * saw instead of crashing; main prints "BUG: used before init" or "ok".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

struct config {
	int value;
};

static struct config cfg = { 42 };
static struct config *volatile config;
static volatile int seen = -1;	/* -1: not yet, 0: no config, else its value */

static void *worker(void *arg)
{
	struct config *c = config;

	(void)arg;
	seen = c ? c->value : 0;
	return NULL;
}

int main(void)
{
	pthread_t th;

	if (pthread_create(&th, NULL, worker, NULL)) {
		perror("pthread_create");
		return 1;
	}
	config = &cfg; /* too late if the worker has already looked */
	pthread_join(th, NULL);
	if (seen == 0)
		printf("BUG: used before init\n");
	else if (seen == 42)
		printf("ok\n");
	else
		printf("worker saw %d\n", seen);
	return 0;
}
