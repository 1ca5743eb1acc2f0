/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/gdb.sh's guest: N events (clock_gettime through syscall(2), which
 * hermit stops on), with mark() called before the first and after the
 * last, for a reverse-continue that crosses all of them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

volatile long marks;

__attribute__((noinline)) void mark(long i)
{
	marks += i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	struct timespec ts;

	mark(0);
	for (long i = 0; i < n; i++)
		syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	mark(n);
	printf("%ld\n", marks);
	return 0;
}
