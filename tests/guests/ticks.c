/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest for the checkpoint test (tests/gdb/checkpoints.py): one thread,
 * N events (clock_gettime through syscall(2), which hermit stops on),
 * tick(i) every 500 of them, done() at the end; prints "ticks N".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* As written: the test reads the argument and the global. */
#pragma GCC optimize("O0")

long last;

__attribute__((noipa)) void tick(long i)
{
	last = i;
}

__attribute__((noipa)) void done(long n)
{
	last = n;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 6000;
	struct timespec ts;

	for (long i = 0; i < n; i++) {
		if (i % 500 == 0)
			tick(i);
		syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	}
	done(n);
	printf("ticks %ld\n", n);
	return 0;
}
