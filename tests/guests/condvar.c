/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: condition variables. Two producers put 10 items each ("P:K") into
 * a bounded queue of 4 slots and two consumers take them out, waiting on
 * "not full" and "not empty" with pthread_cond_wait and waking each other
 * with pthread_cond_signal; the last producer to finish wakes every
 * consumer with pthread_cond_broadcast so they can leave. Every put and get
 * is logged in the order it happened and printed at the end, then
 * "consumed 20".
 *
 * Then a thread waits with pthread_cond_timedwait on a condition nobody
 * signals, 250 ms ahead on CLOCK_REALTIME (the default clock of a
 * condition variable), while the main thread waits in pthread_join: it must
 * time out. It prints "timedwait timed out" with CLOCK_REALTIME before and
 * after and the difference in nanoseconds; on virtual time that difference
 * is the timeout plus what the few syscalls in between cost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NPROD 2
#define NCONS 2
#define PER_PRODUCER 10
#define QCAP 4
#define TIMEOUT_NS 250000000LL

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static int queue[QCAP];
static int qhead, qlen, producers_done, consumed;
static char logbuf[2 * NPROD * PER_PRODUCER][64];
static int nlog;

static void *producer(void *arg)
{
	int id = (int)(long)arg;

	for (int k = 0; k < PER_PRODUCER; k++) {
		pthread_mutex_lock(&lock);
		while (qlen == QCAP)
			pthread_cond_wait(&not_full, &lock);
		queue[(qhead + qlen++) % QCAP] = id * 100 + k;
		snprintf(logbuf[nlog++], sizeof(logbuf[0]), "producer %d put %d:%d (queue %d)", id,
			 id, k, qlen);
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	if (++producers_done == NPROD)
		pthread_cond_broadcast(&not_empty);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *consumer(void *arg)
{
	int id = (int)(long)arg;
	int item;

	for (;;) {
		pthread_mutex_lock(&lock);
		while (qlen == 0 && producers_done < NPROD)
			pthread_cond_wait(&not_empty, &lock);
		if (qlen == 0) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		item = queue[qhead];
		qhead = (qhead + 1) % QCAP;
		qlen--;
		consumed++;
		snprintf(logbuf[nlog++], sizeof(logbuf[0]), "consumer %d got %d:%d (queue %d)", id,
			 item / 100, item % 100, qlen);
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&lock);
	}
}

static long long ns_of(const struct timespec *ts)
{
	return (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static void *timed_waiter(void *arg)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
	struct timespec before, after, deadline;
	long long d;
	int rc;

	(void)arg;
	pthread_mutex_lock(&m);
	clock_gettime(CLOCK_REALTIME, &before);
	d = ns_of(&before) + TIMEOUT_NS;
	deadline.tv_sec = d / 1000000000LL;
	deadline.tv_nsec = d % 1000000000LL;
	do /* 0 is a spurious wake-up: nobody signals */
		rc = pthread_cond_timedwait(&never, &m, &deadline);
	while (rc == 0);
	clock_gettime(CLOCK_REALTIME, &after);
	pthread_mutex_unlock(&m);
	if (rc == ETIMEDOUT)
		printf("timedwait timed out\n");
	else
		printf("timedwait failed: %s\n", strerror(rc));
	printf("timedwait timeout_ns %lld before %lld.%09ld after %lld.%09ld elapsed_ns %lld\n",
	       TIMEOUT_NS, (long long)before.tv_sec, before.tv_nsec, (long long)after.tv_sec,
	       after.tv_nsec, ns_of(&after) - ns_of(&before));
	return NULL;
}

int main(void)
{
	pthread_t prod[NPROD], cons[NCONS], tw;

	for (long i = 0; i < NCONS; i++)
		if (pthread_create(&cons[i], NULL, consumer, (void *)i) != 0)
			return 1;
	for (long i = 0; i < NPROD; i++)
		if (pthread_create(&prod[i], NULL, producer, (void *)i) != 0)
			return 1;
	for (int i = 0; i < NPROD; i++)
		pthread_join(prod[i], NULL);
	for (int i = 0; i < NCONS; i++)
		pthread_join(cons[i], NULL);
	for (int i = 0; i < nlog; i++)
		printf("%s\n", logbuf[i]);
	printf("consumed %d\n", consumed);

	if (pthread_create(&tw, NULL, timed_waiter, NULL) != 0)
		return 1;
	pthread_join(tw, NULL);
	return 0;
}
