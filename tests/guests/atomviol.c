/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: an atomicity violation. Thread A checks a shared pointer and then
 * uses it, a few instructions later, as if nothing could change it in
 * between (check-then-act without a lock); thread B clears the pointer once,
 * after a short computation of its own. A preemption of A between its check
 * and its use that lets B run to its store breaks A's assumption. A reads
 * the pointer again at the use and compares, so the violation is detected
 * rather than a crash. Prints "BUG: atomicity" or "ok", then how many
 * checks A made and its sum.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#define A_ROUNDS 1000
#define B_WORK 300

struct obj {
	int x;
};

static struct obj the_obj = { 7 };
static struct obj *volatile shared = &the_obj;
static volatile int bug;
static volatile int rounds;
static volatile long sum;

static void *checker(void *arg)
{
	long s = 0;
	int i;

	(void)arg;
	for (i = 0; i < A_ROUNDS; i++) {
		struct obj *p = shared, *q;

		if (!p)
			break; /* cleared between rounds: fine */
		s += p->x;	/* the work between check and use */
		s ^= s >> 3;
		q = shared;	/* the use: still the object checked? */
		if (q != p) {
			bug = 1;
			break;
		}
		s += q->x;
	}
	rounds = i;
	sum = s;
	return NULL;
}

static void *clearer(void *arg)
{
	volatile unsigned w = 1;

	(void)arg;
	for (int i = 0; i < B_WORK; i++)
		w = w * 3 + 1;
	shared = NULL;
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	if (pthread_create(&a, NULL, checker, NULL) || pthread_create(&b, NULL, clearer, NULL)) {
		perror("pthread_create");
		return 1;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("%s\n", bug ? "BUG: atomicity" : "ok");
	printf("checks %d sum %ld\n", rounds, sum);
	return 0;
}
