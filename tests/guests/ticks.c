/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest for the checkpoint test (tests/gdb/checkpoints.py): N events
 * (clock_gettime through syscall(2), which hermit stops on), tick(i) every
 * 500 of them, done() at the end; prints "ticks N". Each tick reads a
 * byte of the program's own file into `sum` and notes its offset in `pos`.
 *
 *   ticks [N [FILE|- [threads]]]
 *
 * FILE: written half way through. "threads": the loop runs in a thread of
 * its own while the main thread waits to join it and two more wait on a
 * condition variable, so that the process has four threads throughout.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* As written: the test reads the argument and the globals. */
#pragma GCC optimize("O0")

long last;
long sum;
long pos; /* the file's offset, as the kernel says */

static long n = 6000;
static const char *self_path, *out_path;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int over;

__attribute__((noipa)) void tick(long i)
{
	last = i;
}

__attribute__((noipa)) void done(long n)
{
	last = n;
}

static void *loop(void *arg)
{
	int self = open(self_path, O_RDONLY);
	struct timespec ts;
	unsigned char c;

	(void)arg;
	for (long i = 0; i < n; i++) {
		if (i % 500 == 0) {
			tick(i);
			if (read(self, &c, 1) == 1)
				sum = sum * 31 + c;
			pos = lseek(self, 0, SEEK_CUR);
		}
		if (out_path && i == n / 2) {
			int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (out >= 0 && write(out, "half\n", 5) == 5)
				close(out);
		}
		syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	}
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!over)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atol(argv[1]);
	self_path = argv[0];
	if (argc > 2 && strcmp(argv[2], "-") != 0)
		out_path = argv[2];
	if (argc > 3 && strcmp(argv[3], "threads") == 0) {
		pthread_t w[2], l;

		for (int k = 0; k < 2; k++)
			pthread_create(&w[k], NULL, waiter, NULL);
		pthread_create(&l, NULL, loop, NULL);
		pthread_join(l, NULL);
		pthread_mutex_lock(&lock);
		over = 1;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
		for (int k = 0; k < 2; k++)
			pthread_join(w[k], NULL);
	} else {
		loop(NULL);
	}
	done(n);
	printf("ticks %ld\n", n);
	return 0;
}
