/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: read every clock a program can read, sleep 1.5 s and read the
 * wall clock again. Lines are "name seconds.fraction" so a test can pick
 * them out with awk; "slept" is the realtime difference across the sleep in
 * nanoseconds.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long long ns_of(const struct timespec *ts)
{
	return (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static void show(const char *name, clockid_t id, struct timespec *out)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0) {
		perror(name);
		exit(1);
	}
	printf("%s %lld.%09ld\n", name, (long long)ts.tv_sec, ts.tv_nsec);
	if (out)
		*out = ts;
}

int main(void)
{
	struct timespec before, after, req = { 1, 500000000 };
	struct timeval tv;
	time_t now;

	show("realtime", CLOCK_REALTIME, &before);
	show("monotonic", CLOCK_MONOTONIC, NULL);
	show("boottime", CLOCK_BOOTTIME, NULL);
	show("process_cputime", CLOCK_PROCESS_CPUTIME_ID, NULL);
	if (gettimeofday(&tv, NULL) != 0) {
		perror("gettimeofday");
		return 1;
	}
	printf("gettimeofday %lld.%06ld\n", (long long)tv.tv_sec, (long)tv.tv_usec);
	now = time(NULL);
	printf("time %lld\n", (long long)now);
	if (nanosleep(&req, NULL) != 0) {
		perror("nanosleep");
		return 1;
	}
	show("realtime_after_sleep", CLOCK_REALTIME, &after);
	printf("slept %lld\n", ns_of(&after) - ns_of(&before));
	return 0;
}
