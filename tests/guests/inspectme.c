/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest for tests/dap/inspect.test.js (a stop at source level): main ->
 * measure -> sort_sum -> qsort (libc) -> by_value, the comparator, so the
 * stack passes through libc; a struct with a nested struct and an array
 * member, a 2-D array, a pointer to a struct, globals, and a second thread
 * that waits in read() while main measures. The test finds its
 * lines by the "line:" markers.
 */
/* configure's CFLAGS (-O2) come after the target's own: every variable
 * here must live in memory where the test reads and watches it. */
#pragma GCC optimize("O0")
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct point {
	int x, y;
};

struct shape {
	const char *name;
	struct point origin; /* a nested struct */
	int sides[4];	     /* an array member */
	struct shape *next;
};

int grid[3][4] = { { 0, 1, 2, 3 }, { 10, 11, 12, 13 }, { 20, 21, 22, 23 } };
int big[100];
struct shape square = { "square", { 1, 2 }, { 4, 4, 4, 4 }, NULL };
struct shape tri = { "triangle", { 3, 4 }, { 3, 4, 5, 0 }, &square };
struct shape *current = &tri;
long compares;
int total;
static int fds[2], ready[2];

static int by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b; /* line:compare */

	compares++;
	return (x > y) - (x < y);
}

static int sort_sum(struct shape *s, int *vals, int n)
{
	int sum = 0;

	qsort(vals, (size_t)n, sizeof(*vals), by_value); /* line:qsort */
	for (int i = 0; i < n; i++)
		sum += vals[i]; /* line:sum */
	s->sides[3] = sum;
	return sum;
}

static int measure(struct shape *s, int scale)
{
	int vals[6] = { 42, 7, 19, 3, 88, 25 };
	struct point corner = { s->origin.x * scale, s->origin.y * scale };
	int r = sort_sum(s, vals, 6); /* line:measure */

	return r + corner.x + corner.y;
}

static void *worker(void *arg)
{
	char c = 0;

	/* says it runs, then waits here (in libc's read) while main
	 * measures */
	if (write(ready[1], "r", 1) == 1 && read(fds[0], &c, 1) == 1) /* line:wait */
		total += (int)(long)arg + c;
	return NULL;
}

int main(void)
{
	pthread_t t;
	int result;
	char c;

	for (int i = 0; i < 100; i++)
		big[i] = i * i;
	if (pipe(fds) < 0 || pipe(ready) < 0 || pthread_create(&t, NULL, worker, (void *)5L) != 0 ||
	    read(ready[0], &c, 1) != 1)
		return 1;
	result = measure(current, 2); /* line:main */
	if (write(fds[1], "\1", 1) != 1)
		return 1;
	pthread_join(t, NULL);
	total += result;
	printf("total %d compares %ld\n", total, compares);
	return 0;
}
