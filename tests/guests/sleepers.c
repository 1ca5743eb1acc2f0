/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: five threads, started in index order, sleep 500, 100, 400, 200 and
 * 300 ms and print "sleeper I woke after D ms" when they wake (D measured on
 * CLOCK_MONOTONIC from before the first thread started). They must wake
 * shortest first: 1 3 4 2 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define NSLEEPERS 5

static const long duration_ms[NSLEEPERS] = { 500, 100, 400, 200, 300 };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long long start_ns;

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *sleeper(void *arg)
{
	int i = (int)(long)arg;
	struct timespec req = { duration_ms[i] / 1000, (duration_ms[i] % 1000) * 1000000L }, rem;

	while (nanosleep(&req, &rem) != 0 && errno == EINTR)
		req = rem;
	pthread_mutex_lock(&lock);
	printf("sleeper %d woke after %lld ms (asked %ld)\n", i, (mono_ns() - start_ns) / 1000000,
	       duration_ms[i]);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t th[NSLEEPERS];

	start_ns = mono_ns();
	for (long i = 0; i < NSLEEPERS; i++)
		if (pthread_create(&th[i], NULL, sleeper, (void *)i) != 0)
			return 1;
	for (int i = 0; i < NSLEEPERS; i++)
		pthread_join(th[i], NULL);
	return 0;
}
