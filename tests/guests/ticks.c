/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest for the checkpoint test (tests/gdb/checkpoints.py): one thread,
 * N events (clock_gettime through syscall(2), which hermit stops on),
 * tick(i) every 500 of them, done() at the end; prints "ticks N".
 * Each tick reads a byte of the program's own file into `sum` and notes
 * its offset in `pos`; with a path as second argument, it writes that file half
 * way through.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* As written: the test reads the argument and the global. */
#pragma GCC optimize("O0")

long last;
long sum;
long pos; /* the file's offset, as the kernel says */

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
	int self = open(argv[0], O_RDONLY);
	struct timespec ts;
	unsigned char c;

	for (long i = 0; i < n; i++) {
		if (i % 500 == 0) {
			tick(i);
			if (read(self, &c, 1) == 1)
				sum = sum * 31 + c;
			pos = lseek(self, 0, SEEK_CUR);
		}
		if (argc > 2 && i == n / 2) {
			int out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (out >= 0 && write(out, "half\n", 5) == 5)
				close(out);
		}
		syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	}
	done(n);
	printf("ticks %ld\n", n);
	return 0;
}
