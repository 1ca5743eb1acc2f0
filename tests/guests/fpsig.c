/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fast path's clock calls with signals arriving in the middle
 * (docs/fastpath.md, issue 16's test): two threads each call
 * clock_gettime of every id the fast path answers (0 to 7), gettimeofday
 * and time in a loop of N rounds, checking that no clock goes back. An
 * ITIMER_REAL of 1 ms sends SIGALRM to the process, and each thread sends
 * SIGUSR1 to the other every 16 rounds (a stop in the middle of the
 * other's reads); both handlers read the clock too (clock_gettime
 * MONOTONIC and REALTIME, gettimeofday, time) and keep what they read.
 * After both threads end it prints every 32nd round of each, how many
 * signals each thread handled, the first reads of each handler, then
 * whether every check held. Exit 1 when a clock went back.
 * Usage: fpsig [N] (default 1000).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "clockreads.h"

#define FPSIG_KEPT 24 /* handler reads kept per thread */

static long rounds = 1000;
static pthread_t th[2];
static volatile sig_atomic_t ready;
static __thread int self = -1; /* 0 or 1 in the readers */
static int back[2];
static char out[2][64 << 10];
static size_t used[2];
/* what the handlers read, per thread (a handler runs on its thread) */
static long long hseen[2][FPSIG_KEPT][4];
static int hkept[2], nalrm[2], nusr1[2], hback[2];
static long long hlast[2];

static void on_signal(int sig)
{
	int id = self;
	struct timeval tv;
	long long mono, real, us, t;

	if (id < 0)
		return; /* main, waiting in pthread_join */
	if (sig == SIGALRM)
		nalrm[id]++;
	else
		nusr1[id]++;
	mono = ns(CLOCK_MONOTONIC);
	real = ns(CLOCK_REALTIME);
	gettimeofday(&tv, NULL);
	us = (long long)tv.tv_sec * 1000000 + tv.tv_usec;
	t = (long long)time(NULL);
	if (mono < hlast[id] || us < real / 1000 || t < real / 1000000000)
		hback[id] = 1;
	hlast[id] = mono;
	if (hkept[id] < FPSIG_KEPT) {
		long long *k = hseen[id][hkept[id]++];

		k[0] = sig, k[1] = mono, k[2] = us, k[3] = t;
	}
}

static void *reader(void *arg)
{
	static const clockid_t ids[8] = { CLOCK_REALTIME,	    CLOCK_MONOTONIC,
					  CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID,
					  CLOCK_MONOTONIC_RAW,	    CLOCK_REALTIME_COARSE,
					  CLOCK_MONOTONIC_COARSE,   CLOCK_BOOTTIME };
	struct clock_last last = { { 0 }, 0, 0 };
	long id = (long)arg;
	volatile unsigned sink = 0;

	self = (int)id;
	__atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&ready, __ATOMIC_SEQ_CST) < 2)
		; /* both threads exist before either sends a signal */
	for (long i = 0; i < rounds; i++) {
		long long v[8], tv_us;
		time_t t;

		for (unsigned w = 0; w < 40 + (unsigned)(i % 5) * 10; w++)
			sink += w; /* counted work: time must move */
		if (clock_round(ids, 8, v, &tv_us, &t, &last))
			back[id] = 1;
		if (i % 16 == (id ? 8 : 0))
			pthread_kill(th[1 - id], SIGUSR1);
		if (i % 32 == 0 && used[id] < sizeof(out[id]) - 256)
			used[id] += (size_t)snprintf(
				out[id] + used[id], sizeof(out[id]) - used[id],
				"%ld %ld: %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld\n", id,
				i, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], tv_us,
				(long long)t);
	}
	/* a SIGUSR1 may still come from the other: take it in the loop's
	 * stead, until both are done */
	__atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&ready, __ATOMIC_SEQ_CST) < 4)
		sink += ns(CLOCK_MONOTONIC) > 0;
	return NULL;
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } }, off;
	struct sigaction sa;
	sigset_t mask;

	if (argc > 1)
		rounds = atol(argv[1]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigfillset(&sa.sa_mask); /* no handler in another: each checks its reads against the last */
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	for (long i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, reader, (void *)i);
	/* the timer's SIGALRM goes to a reader */
	sigemptyset(&mask);
	sigaddset(&mask, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	memset(&off, 0, sizeof(off));
	setitimer(ITIMER_REAL, &off, NULL);
	for (int id = 0; id < 2; id++) {
		fputs(out[id], stdout);
		printf("%d: SIGALRM %d, SIGUSR1 %d\n", id, nalrm[id], nusr1[id]);
		for (int k = 0; k < hkept[id]; k++)
			printf("%d handler %d: %s %lld %lld %lld\n", id, k,
			       hseen[id][k][0] == SIGALRM ? "ALRM" : "USR1", hseen[id][k][1],
			       hseen[id][k][2], hseen[id][k][3]);
	}
	printf("monotonic: %s\n", back[0] || back[1] || hback[0] || hback[1] ? "no" : "yes");
	return back[0] || back[1] || hback[0] || hback[1];
}
