/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: unnamed, process-private POSIX semaphores. Two threads play
 * ping-pong ten rounds with two semaphores, each printing its turn, so the
 * lines must alternate "ping K" / "pong K". Then sem_trywait on an empty
 * semaphore must fail with EAGAIN, and a thread waits with sem_timedwait
 * 300 ms ahead on CLOCK_REALTIME while the main thread waits in
 * pthread_join: it must time out. It prints "sem_timedwait timed out" with
 * CLOCK_REALTIME before and after and the difference in nanoseconds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define ROUNDS 10
#define TIMEOUT_NS 300000000LL

static sem_t ping_sem, pong_sem, empty_sem;

static void *pinger(void *arg)
{
	(void)arg;
	for (int k = 0; k < ROUNDS; k++) {
		sem_wait(&ping_sem);
		printf("ping %d\n", k);
		sem_post(&pong_sem);
	}
	return NULL;
}

static void *ponger(void *arg)
{
	(void)arg;
	for (int k = 0; k < ROUNDS; k++) {
		sem_wait(&pong_sem);
		printf("pong %d\n", k);
		sem_post(&ping_sem);
	}
	return NULL;
}

static long long ns_of(const struct timespec *ts)
{
	return (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static void *timed_waiter(void *arg)
{
	struct timespec before, after, deadline;
	long long d;
	int rc, err = 0;

	(void)arg;
	clock_gettime(CLOCK_REALTIME, &before);
	d = ns_of(&before) + TIMEOUT_NS;
	deadline.tv_sec = d / 1000000000LL;
	deadline.tv_nsec = d % 1000000000LL;
	do
		rc = sem_timedwait(&empty_sem, &deadline);
	while (rc != 0 && (err = errno) == EINTR);
	clock_gettime(CLOCK_REALTIME, &after);
	if (rc == 0)
		printf("sem_timedwait returned 0 on an empty semaphore\n");
	else if (err == ETIMEDOUT)
		printf("sem_timedwait timed out\n");
	else
		printf("sem_timedwait failed: %s\n", strerror(err));
	printf("sem_timedwait timeout_ns %lld before %lld.%09ld after %lld.%09ld elapsed_ns %lld\n",
	       TIMEOUT_NS, (long long)before.tv_sec, before.tv_nsec, (long long)after.tv_sec,
	       after.tv_nsec, ns_of(&after) - ns_of(&before));
	return NULL;
}

int main(void)
{
	pthread_t a, b, tw;

	if (sem_init(&ping_sem, 0, 1) != 0 || sem_init(&pong_sem, 0, 0) != 0 ||
	    sem_init(&empty_sem, 0, 0) != 0) {
		perror("sem_init");
		return 1;
	}
	if (pthread_create(&b, NULL, ponger, NULL) != 0 ||
	    pthread_create(&a, NULL, pinger, NULL) != 0)
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);

	if (sem_trywait(&empty_sem) == 0)
		printf("sem_trywait succeeded on an empty semaphore\n");
	else
		printf("sem_trywait %s\n", errno == EAGAIN ? "EAGAIN" : strerror(errno));

	if (pthread_create(&tw, NULL, timed_waiter, NULL) != 0)
		return 1;
	pthread_join(tw, NULL);
	return 0;
}
