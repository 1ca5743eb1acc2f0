/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: a pthread barrier for four threads, six rounds. In each round a
 * thread sleeps a little (a different time per thread and round), notes
 * its arrival and waits at the barrier; the one thread that gets
 * PTHREAD_BARRIER_SERIAL_THREAD notes itself as the round's serial thread.
 * Prints one line per round, "round R arrivals A B C D serial S", then
 * "rounds 6".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NTHREADS 4
#define ROUNDS 6

static pthread_barrier_t barrier;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int arrivals[ROUNDS][NTHREADS], narrived[ROUNDS];
static int serial[ROUNDS], nserial[ROUNDS];

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	int rc;

	for (int r = 0; r < ROUNDS; r++) {
		usleep(200 * ((id + r) % NTHREADS));
		pthread_mutex_lock(&lock);
		arrivals[r][narrived[r]++] = id;
		pthread_mutex_unlock(&lock);
		rc = pthread_barrier_wait(&barrier);
		if (rc == PTHREAD_BARRIER_SERIAL_THREAD) {
			pthread_mutex_lock(&lock);
			serial[r] = id;
			nserial[r]++;
			pthread_mutex_unlock(&lock);
		} else if (rc != 0) {
			fprintf(stderr, "pthread_barrier_wait: %d\n", rc);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS];

	if (pthread_barrier_init(&barrier, NULL, NTHREADS) != 0)
		return 1;
	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i) != 0)
			return 1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	for (int r = 0; r < ROUNDS; r++) {
		printf("round %d arrivals", r);
		for (int i = 0; i < narrived[r]; i++)
			printf(" %d", arrivals[r][i]);
		if (nserial[r] == 1)
			printf(" serial %d\n", serial[r]);
		else
			printf(" serial threads %d\n", nserial[r]);
	}
	printf("rounds %d\n", ROUNDS);
	pthread_barrier_destroy(&barrier);
	return 0;
}
