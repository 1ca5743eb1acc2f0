/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: three readers and two writers share a value under a
 * pthread_rwlock, four times each, with short sleeps in and between
 * (so readers can overlap). Every acquisition is logged in order as
 * "reader R sees V (readers inside N)" or "writer W sets V", and a writer
 * that finds anyone else inside logs "writer W NOT EXCLUSIVE". Prints the
 * log, then "value 8".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#define NREADERS 3
#define NWRITERS 2
#define ITERS 4

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t loglock = PTHREAD_MUTEX_INITIALIZER;
static char logbuf[(NREADERS + NWRITERS) * ITERS * 2][64];
static int nlog, value, readers_inside, writers_inside;

__attribute__((format(printf, 1, 2))) static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pthread_mutex_lock(&loglock);
	vsnprintf(logbuf[nlog++], sizeof(logbuf[0]), fmt, ap);
	pthread_mutex_unlock(&loglock);
	va_end(ap);
}

static void *reader(void *arg)
{
	int id = (int)(long)arg;

	for (int k = 0; k < ITERS; k++) {
		pthread_rwlock_rdlock(&rw);
		int n = __atomic_add_fetch(&readers_inside, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&writers_inside, __ATOMIC_SEQ_CST))
			note("reader %d NOT EXCLUDED from writer (value %d, %d)", id, value, n);
		note("reader %d sees %d (readers inside %d)", id, value, n);
		usleep(300);
		__atomic_sub_fetch(&readers_inside, 1, __ATOMIC_SEQ_CST);
		pthread_rwlock_unlock(&rw);
		usleep(100 + 150 * id);
	}
	return NULL;
}

static void *writer(void *arg)
{
	int id = (int)(long)arg;

	for (int k = 0; k < ITERS; k++) {
		usleep(250 + 200 * id);
		pthread_rwlock_wrlock(&rw);
		int w = __atomic_add_fetch(&writers_inside, 1, __ATOMIC_SEQ_CST);
		int r = __atomic_load_n(&readers_inside, __ATOMIC_SEQ_CST);
		value++;
		if (w != 1 || r != 0)
			note("writer %d NOT EXCLUSIVE (value %d, readers %d)", id, value, r);
		note("writer %d sets %d", id, value);
		usleep(200);
		__atomic_sub_fetch(&writers_inside, 1, __ATOMIC_SEQ_CST);
		pthread_rwlock_unlock(&rw);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NREADERS + NWRITERS];

	for (long i = 0; i < NREADERS; i++)
		if (pthread_create(&th[i], NULL, reader, (void *)i) != 0)
			return 1;
	for (long i = 0; i < NWRITERS; i++)
		if (pthread_create(&th[NREADERS + i], NULL, writer, (void *)i) != 0)
			return 1;
	for (int i = 0; i < NREADERS + NWRITERS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < nlog; i++)
		printf("%s\n", logbuf[i]);
	printf("value %d\n", value);
	return 0;
}
