/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A syscall-heavy guest for bench/run.sh.
 *
 *   syscall-loop [N]              N times getppid() and a 1-byte write()
 *                                 to /dev/null: syscalls hermit's seccomp
 *                                 filter lets through, so they must run at
 *                                 native speed under hermit
 *   syscall-loop --intercepted [N]
 *                                 N times clock_gettime(CLOCK_MONOTONIC)
 *                                 through syscall(2), bypassing the vDSO:
 *                                 each one stops in the supervisor
 *
 * N defaults to 200000. clock_gettime is the intercepted call because it
 * has no side effect and hermit emulates it without the kernel, so the
 * time measured is the stop and nothing else.
 */
#define _GNU_SOURCE /* syscall(2), O_CLOEXEC under -std=c11 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int plain_loop(long n)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	long sum = 0;

	if (fd < 0) {
		perror("syscall-loop: cannot open '/dev/null'");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		sum += getppid();
		if (write(fd, "x", 1) != 1) {
			perror("syscall-loop: cannot write to '/dev/null'");
			return 1;
		}
	}
	close(fd);
	printf("%ld\n", sum);
	return 0;
}

static int intercepted_loop(long n)
{
	struct timespec ts;
	long sum = 0;

	for (long i = 0; i < n; i++) {
		if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts) < 0) {
			perror("syscall-loop: clock_gettime failed");
			return 1;
		}
		sum += ts.tv_nsec & 1;
	}
	printf("%ld\n", sum);
	return 0;
}

int main(int argc, char **argv)
{
	int intercepted = 0;
	long n = 200000;
	int i = 1;

	if (i < argc && strcmp(argv[i], "--intercepted") == 0) {
		intercepted = 1;
		i++;
	}
	if (i < argc)
		n = strtol(argv[i], NULL, 10);
	if (n <= 0) {
		fprintf(stderr, "usage: syscall-loop [--intercepted] [N]\n");
		return 2;
	}
	return intercepted ? intercepted_loop(n) : plain_loop(n);
}
