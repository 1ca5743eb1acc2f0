/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One round of clock reads for the fast path's guests (vclock.c, fpsig.c):
 * clock_gettime of each id, gettimeofday and time, each checked against
 * the round before. Header-only: each guest is one file.
 */
#ifndef HERMIT_TESTS_CLOCKREADS_H
#define HERMIT_TESTS_CLOCKREADS_H

#include <sys/time.h>
#include <time.h>

#define CLOCKREADS_MAX 8

/* What the last round read. */
struct clock_last {
	long long ns[CLOCKREADS_MAX];
	long long tv_us;
	time_t t;
};

static long long ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return -1;
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Read the N clocks IDS into V, gettimeofday's microseconds into *TV_US
 * and time into *T, and remember them in LAST: 1 when one went back from
 * what LAST held (or time(&t) and its result differ), else 0. */
static int clock_round(const clockid_t *ids, int n, long long *v, long long *tv_us, time_t *t,
		       struct clock_last *last)
{
	struct timeval tv;
	time_t t2;
	int went_back = 0;

	for (int k = 0; k < n; k++) {
		v[k] = ns(ids[k]);
		if (v[k] < last->ns[k])
			went_back = 1;
		last->ns[k] = v[k];
	}
	gettimeofday(&tv, NULL);
	*tv_us = (long long)tv.tv_sec * 1000000 + tv.tv_usec;
	*t = time(&t2);
	if (*tv_us < last->tv_us || *t < last->t || *t != t2)
		went_back = 1;
	last->tv_us = *tv_us;
	last->t = *t;
	return went_back;
}

#endif
