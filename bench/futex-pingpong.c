/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A thread-switching guest for bench/run.sh:
 *
 *   futex-pingpong [N]             two threads hand a token back and forth
 *                                  N times through a pair of ints and raw
 *                                  FUTEX_WAIT_PRIVATE/FUTEX_WAKE_PRIVATE
 *   futex-pingpong --condvar [N]   the same through a pthread mutex and
 *                                  two condition variables
 *
 * N defaults to 20000. Each round trip is two hand-offs, and a hand-off is
 * a wake and (unless the waiter is already awake) a wait: under hermit,
 * which runs one guest thread at a time and emulates private futexes in
 * the tracer, every hand-off is a switch from one thread to the other. The
 * count of round trips is printed at the end.
 */
#define _GNU_SOURCE /* syscall(2) under -std=c11 */

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long n = 20000;

/* Raw futexes: ping[0] counts the tokens sent, ping[1] those sent back. */
static atomic_int ping[2];

/* The condition variable version: the same counts under one mutex. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond[2] = { PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER };
static int count[2];

static void futex_wait(atomic_int *word, int val)
{
	/* EAGAIN: the word changed already; EINTR: look again. */
	if (syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0) < 0 &&
	    errno != EAGAIN && errno != EINTR) {
		perror("futex-pingpong: FUTEX_WAIT_PRIVATE failed");
		exit(1);
	}
}

static void futex_wake(atomic_int *word)
{
	if (syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) < 0) {
		perror("futex-pingpong: FUTEX_WAKE_PRIVATE failed");
		exit(1);
	}
}

/* Set *out to i and wake its waiter, then wait until *in is i. */
static void futex_pass(atomic_int *out, atomic_int *in, int i)
{
	int seen;

	atomic_store(out, i);
	futex_wake(out);
	while ((seen = atomic_load(in)) != i)
		futex_wait(in, seen);
}

static void cond_pass(int side, int i)
{
	pthread_mutex_lock(&lock);
	count[side] = i;
	pthread_cond_signal(&cond[side]);
	while (count[!side] != i)
		pthread_cond_wait(&cond[!side], &lock);
	pthread_mutex_unlock(&lock);
}

static void futex_wait_for(atomic_int *in, int i)
{
	int seen;

	while ((seen = atomic_load(in)) != i)
		futex_wait(in, seen);
}

static void cond_wait_for(int side, int i)
{
	pthread_mutex_lock(&lock);
	while (count[side] != i)
		pthread_cond_wait(&cond[side], &lock);
	pthread_mutex_unlock(&lock);
}

/* The second thread: wait for token i, send it back. */
static void *futex_echo(void *arg)
{
	(void)arg;
	for (int i = 1; i <= n; i++) {
		futex_wait_for(&ping[0], i);
		atomic_store(&ping[1], i);
		futex_wake(&ping[1]);
	}
	return NULL;
}

static void *cond_echo(void *arg)
{
	(void)arg;
	for (int i = 1; i <= n; i++) {
		cond_wait_for(0, i);
		pthread_mutex_lock(&lock);
		count[1] = i;
		pthread_cond_signal(&cond[1]);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int condvar = 0;
	pthread_t echo;
	int i = 1, err;

	if (i < argc && strcmp(argv[i], "--condvar") == 0) {
		condvar = 1;
		i++;
	}
	if (i < argc)
		n = strtol(argv[i], NULL, 10);
	if (n <= 0 || n > 1000000000) {
		fprintf(stderr, "usage: futex-pingpong [--condvar] [N]\n");
		return 2;
	}
	err = pthread_create(&echo, NULL, condvar ? cond_echo : futex_echo, NULL);
	if (err) {
		fprintf(stderr, "futex-pingpong: cannot start a thread: %s\n", strerror(err));
		return 1;
	}
	for (int k = 1; k <= n; k++) {
		if (condvar)
			cond_pass(0, k);
		else
			futex_pass(&ping[0], &ping[1], k);
	}
	pthread_join(echo, NULL);
	printf("%d\n", condvar ? count[1] : atomic_load(&ping[1]));
	return 0;
}
