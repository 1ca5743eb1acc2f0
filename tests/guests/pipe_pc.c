/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: a producer thread writes 30 numbered lines ("line 00\n" ...) into
 * a pipe, one write(2) each, sleeping briefly after every fifth; a consumer
 * thread reads with a 64-byte buffer until end of file. How many bytes each
 * read returns depends on how the two threads interleaved, so the consumer
 * prints "read N" for each read, then "got line KK" for each whole line it
 * put back together, then "eof after B bytes in R reads".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NLINES 30

static int fds[2];

static void *producer(void *arg)
{
	char line[16];
	int n;

	(void)arg;
	for (int k = 0; k < NLINES; k++) {
		n = snprintf(line, sizeof(line), "line %02d\n", k);
		if (write(fds[1], line, (size_t)n) != n)
			perror("write");
		if (k % 5 == 4)
			usleep(500);
	}
	close(fds[1]);
	return NULL;
}

static void *consumer(void *arg)
{
	static char all[NLINES * 16];
	char buf[64], *p, *nl;
	size_t total = 0;
	ssize_t n;
	int reads = 0;

	(void)arg;
	for (;;) {
		n = read(fds[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("read");
			break;
		}
		if (n == 0)
			break;
		reads++;
		printf("read %zd\n", n);
		if (total + (size_t)n <= sizeof(all) - 1) {
			memcpy(all + total, buf, (size_t)n);
			total += (size_t)n;
		}
	}
	all[total] = '\0';
	for (p = all; (nl = strchr(p, '\n')) != NULL; p = nl + 1)
		printf("got %.*s\n", (int)(nl - p), p);
	if (*p)
		printf("partial line '%s'\n", p);
	printf("eof after %zu bytes in %d reads\n", total, reads);
	return NULL;
}

int main(void)
{
	pthread_t prod, cons;

	if (pipe(fds) != 0) {
		perror("pipe");
		return 1;
	}
	if (pthread_create(&cons, NULL, consumer, NULL) != 0 ||
	    pthread_create(&prod, NULL, producer, NULL) != 0)
		return 1;
	pthread_join(prod, NULL);
	pthread_join(cons, NULL);
	return 0;
}
