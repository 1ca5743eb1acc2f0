/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest for the gdb tests: two workers add to a global under a mutex,
 * three times each, through bump(); the main thread joins them and
 * prints the total (33).
 */
#include <pthread.h>
#include <stdio.h>

/* As written, whatever CFLAGS say: the test steps instructions and prints
 * locals. */
#pragma GCC optimize("O0")

int counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void bump(int by)
{
	int before = counter;

	pthread_mutex_lock(&lock);
	counter = before + by;
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;

	for (int i = 0; i < 3; i++)
		bump(id);
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, worker, (void *)1L);
	pthread_create(&b, NULL, worker, (void *)10L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("counter %d\n", counter);
	return 0;
}
