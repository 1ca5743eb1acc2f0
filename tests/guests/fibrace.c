/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Recursion without loops: two threads compute fib(32) by plain recursion
 * and count every call on a shared, unlocked counter. No loop and no
 * syscall in between: only the counted recursive calls can preempt them.
 */
#include <pthread.h>
#include <stdio.h>

static volatile long calls;

static long fib(int k)
{
	long v = calls;

	calls = v + 1;
	return k < 2 ? k : fib(k - 1) + fib(k - 2);
}

static void *work(void *arg)
{
	*(long *)arg = fib(32);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	long r[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, &r[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("fib %ld %ld calls %ld\n", r[0], r[1], calls);
	return 0;
}
