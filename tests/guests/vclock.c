/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The vDSO's clocks through libc (docs/fastpath.md): two threads each read
 * clock_gettime (REALTIME, MONOTONIC, MONOTONIC_COARSE, BOOTTIME, the CPU
 * clocks and one the fast path leaves to the syscall, TAI), gettimeofday
 * and time in a loop of N rounds, checking that no clock goes back; each
 * keeps every 64th round, printed after both ended, then whether every
 * check held. The threads share nothing but the clock, so when each read
 * comes is Hermit's preemptions' (ticks) alone. Exit 1 when a clock went
 * back.
 * With "quiet", no tight loop first and only the last line: nothing the
 * program does or prints depends on the clock's values, so the fast
 * path on and off must give the same events but for the reads
 * (tests/integration/fastpath.sh).
 * Usage: vclock [N [quiet]] (default 2000).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "clockreads.h"

static long rounds = 2000;
static int quiet;
static int back[2];
static char out[2][64 << 10];
static size_t used[2];

static void *reader(void *arg)
{
	static const clockid_t ids[] = {
		CLOCK_REALTIME, CLOCK_MONOTONIC,	  CLOCK_MONOTONIC_COARSE,
		CLOCK_BOOTTIME, CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID,
		CLOCK_TAI
	};
	struct clock_last last = { { 0 }, 0, 0 };
	long id = (long)arg;
	volatile unsigned sink = 0;

	for (long i = 0; i < rounds; i++) {
		long long v[7], tv_us;
		time_t t;

		for (unsigned w = 0; w < 50 + (unsigned)(i % 7) * 10; w++)
			sink += w; /* counted work: time must move */
		if (clock_round(ids, 7, v, &tv_us, &t, &last))
			back[id] = 1;
		if (!quiet && i % 64 == 0 && used[id] < sizeof(out[id]) - 256)
			used[id] += (size_t)snprintf(
				out[id] + used[id], sizeof(out[id]) - used[id],
				"%ld %ld: %lld %lld %lld %lld %lld %lld %lld %lld %lld\n", id, i,
				v[0], v[1], v[2], v[3], v[4], v[5], v[6], tv_us, (long long)t);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[2];
	struct timespec a, b;

	if (argc > 1)
		rounds = atol(argv[1]);
	quiet = argc > 2 && strcmp(argv[2], "quiet") == 0;
	/* a tight loop of reads sees time advance */
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while (!quiet && b.tv_sec == a.tv_sec && b.tv_nsec == a.tv_nsec);
	for (long i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, reader, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	if (!quiet) {
		fputs(out[0], stdout);
		fputs(out[1], stdout);
	}
	printf("monotonic: %s\n", back[0] || back[1] ? "no" : "yes");
	return back[0] || back[1];
}
