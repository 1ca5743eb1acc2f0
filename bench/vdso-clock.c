/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clock_gettime(CLOCK_MONOTONIC) through libc, which calls the vDSO, N
 * times (default 1000000), in a loop whose backward branch is a counted
 * site; prints the last value's seconds so the calls are not dropped.
 * bench/run.sh's "vdso-clock": natively, and under hermit with the
 * in-guest clock (docs/fastpath.md) on and off.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct timespec ts = { 0, 0 };
	long long sum = 0;

	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sum += ts.tv_nsec & 1;
	}
	printf("%lld %lld\n", (long long)ts.tv_sec, sum);
	return 0;
}
