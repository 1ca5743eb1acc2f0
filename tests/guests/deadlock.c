/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: a lock-order deadlock. Thread 1 locks mutex A, thread 2 locks
 * mutex B, each sleeps 100 ms and then asks for the other's mutex; the main
 * thread waits in pthread_join. Nothing can ever run again. Before that it
 * prints (and flushes) the addresses of the two mutexes, which are the
 * futex words their waiters wait on, and each thread's id and what it
 * holds, so that a test can find them in hermit's deadlock report.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;

static void *take(int id, pthread_mutex_t *first, const char *fname, pthread_mutex_t *second,
		  const char *sname)
{
	struct timespec pause_100ms = { 0, 100000000 };

	pthread_mutex_lock(first);
	pthread_mutex_lock(&out);
	printf("thread %d tid %ld locked %s\n", id, (long)syscall(SYS_gettid), fname);
	fflush(stdout);
	pthread_mutex_unlock(&out);
	nanosleep(&pause_100ms, NULL);
	pthread_mutex_lock(second);
	printf("thread %d locked %s too: no deadlock\n", id, sname);
	pthread_mutex_unlock(second);
	pthread_mutex_unlock(first);
	return NULL;
}

static void *one(void *arg)
{
	(void)arg;
	return take(1, &a, "A", &b, "B");
}

static void *two(void *arg)
{
	(void)arg;
	return take(2, &b, "B", &a, "A");
}

int main(void)
{
	pthread_t t1, t2;

	printf("main tid %ld\n", (long)syscall(SYS_gettid));
	printf("mutex A %p\n", (void *)&a);
	printf("mutex B %p\n", (void *)&b);
	fflush(stdout);
	if (pthread_create(&t1, NULL, one, NULL) != 0 || pthread_create(&t2, NULL, two, NULL) != 0)
		return 1;
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	printf("joined: no deadlock\n");
	return 0;
}
