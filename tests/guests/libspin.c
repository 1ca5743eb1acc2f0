/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two threads race on a counter in a loop that lives in a shared library
 * (argv[1], loaded with dlopen): the library's code is patched when it is
 * mapped, so the race comes out the same on every run.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static volatile long counter;
static void (*spin_add)(volatile long *, long);

static void *work(void *arg)
{
	spin_add(&counter, 3000000);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	void *lib = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;

	if (!lib || !(*(void **)&spin_add = dlsym(lib, "spin_add"))) {
		fprintf(stderr, "libspin: %s\n", dlerror());
		return 1;
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", counter);
	return 0;
}
