/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: four threads append "thread N step K" to a shared log under a
 * mutex, five steps each, sleeping 1000 + 300 * N microseconds after each
 * step. The log, printed at the end, is the order in which the threads
 * took the mutex: on real time it changes from run to run; under hermit it
 * must repeat.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NTHREADS 4
#define STEPS 5

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char logbuf[NTHREADS * STEPS][32];
static int nlog;

static void *worker(void *arg)
{
	int id = (int)(long)arg;

	for (int k = 0; k < STEPS; k++) {
		pthread_mutex_lock(&lock);
		snprintf(logbuf[nlog++], sizeof(logbuf[0]), "thread %d step %d", id, k);
		pthread_mutex_unlock(&lock);
		usleep((useconds_t)(1000 + 300 * id));
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS];

	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i) != 0)
			return 1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < nlog; i++)
		printf("%s\n", logbuf[i]);
	return 0;
}
