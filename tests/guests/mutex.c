/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: four threads each add 1 to a shared counter 10,000 times under one
 * pthread mutex. At steps 0, 2500, 5000, 7500 and 9999 a thread also
 * appends "thread N step K count C" to a shared log, so the log's order
 * and counts show how the threads interleaved. The main thread holds the
 * mutex while it starts the threads, so they all begin by contending. Prints the log, then
 * "count 40000" (anything else means the mutex did not exclude).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 4
#define STEPS 10000
#define NMARKS 5

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static char logbuf[NTHREADS * NMARKS][64];
static int nlog;

static int is_mark(int k)
{
	return k == 0 || k == 2500 || k == 5000 || k == 7500 || k == STEPS - 1;
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;

	for (int k = 0; k < STEPS; k++) {
		pthread_mutex_lock(&lock);
		counter++;
		if (is_mark(k))
			snprintf(logbuf[nlog++], sizeof(logbuf[0]), "thread %d step %d count %ld", id,
				 k, counter);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS];
	int err;

	/* Hold the lock while the threads start so that they all contend. */
	pthread_mutex_lock(&lock);
	for (long i = 0; i < NTHREADS; i++) {
		err = pthread_create(&th[i], NULL, worker, (void *)i);
		if (err) {
			fprintf(stderr, "pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < nlog; i++)
		printf("%s\n", logbuf[i]);
	printf("count %ld\n", counter);
	return 0;
}
