/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest for the source-level stepping tests (tests/dap/step.test.js):
 * main calls compute(), which loops calling add() and then sorts through
 * libc's qsort with a comparator; then a recursive depth(); then two
 * threads add to a global without a lock. The test finds lines by the
 * "@name" marks in comments, and globals by `nm` (built without PIE). The
 * line after @call-add is left blank on purpose: a breakpoint there moves
 * to @qsort.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* As written, whatever CFLAGS say: every variable in memory, every line
 * with its own code. */
#pragma GCC optimize("O0")

int total;
int depth_seen;
int racy;
int values[8] = { 5, 3, 8, 1, 9, 2, 7, 4 };

int add(int a, int b)
{
	int sum = a + b; /* @add-first */
	return sum;	 /* @add-return */
}

static int by_value(const void *x, const void *y)
{
	return *(const int *)x - *(const int *)y; /* @cmp */
}

int compute(int n)
{
	int i;

	total = 0;		       /* @compute-first */
	for (i = 0; i < n; i++)	       /* @loop */
		total = add(total, i); /* @call-add */

	qsort(values, 8, sizeof(values[0]), by_value); /* @qsort */
	return total;				       /* @compute-return */
}

int depth(int n)
{
	depth_seen = n; /* @depth-first */
	if (n == 0)
		return 0;
	return depth(n - 1) + 1; /* @depth-call */
} /* @depth-end */

static void *racer(void *arg)
{
	for (int i = 0; i < 1000; i++)
		racy = racy + 1; /* @racer */
	return arg;
}

int main(void)
{
	pthread_t a, b;
	int r;

	r = compute(4); /* @main-compute */
	r += depth(3);	/* @main-depth */
	pthread_create(&a, NULL, racer, NULL); /* @main-create */
	pthread_create(&b, NULL, racer, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("total %d depth %d racy %d r %d\n", total, depth_seen, racy, r); /* @main-print */
	return 0;
}
