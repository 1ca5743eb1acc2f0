/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two threads racing on a counter in code they generate at run time, as a
 * JIT does (issue "Exact progress without a PMU"): anonymous memory made
 * executable with mprotect, which hermit does not patch, so no tick counts
 * it and only the spin watch preempts it. The code adds 1 to the counter
 * UNROLL times without a branch, then loops (argv[1] times, default
 * 8000). A replay must stop each thread where the spin watch stopped it,
 * so it prints the recorded total.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define UNROLL 16384

static volatile long counter;
static long outer = 8000;
static void (*code)(volatile long *counter, long outer);

static void make_code(void)
{
	static const unsigned char add[] = {
		0x48, 0x8b, 0x07,	/* mov (%rdi),%rax */
		0x48, 0x83, 0xc0, 0x01, /* add $1,%rax */
		0x48, 0x89, 0x07,	/* mov %rax,(%rdi) */
	};
	size_t size = UNROLL * sizeof(add) + 16;
	unsigned char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0), *q;
	int32_t rel;

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	q = p;
	for (int i = 0; i < UNROLL; i++, q += sizeof(add))
		memcpy(q, add, sizeof(add));
	*q++ = 0x48; /* dec %rsi */
	*q++ = 0xff;
	*q++ = 0xce;
	*q++ = 0x0f; /* jnz p */
	*q++ = 0x85;
	rel = (int32_t)(p - (q + 4));
	memcpy(q, &rel, 4);
	q += 4;
	*q = 0xc3; /* ret */
	if (mprotect(p, size, PROT_READ | PROT_EXEC) < 0) {
		perror("mprotect");
		exit(1);
	}
	code = (void (*)(volatile long *, long))(void *)p;
}

static void *work(void *arg)
{
	code(&counter, outer);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc > 1)
		outer = atol(argv[1]);
	make_code();
	for (int i = 0; i < 2; i++) {
		if (pthread_create(&t[i], NULL, work, NULL) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld of %ld\n", counter, 2L * outer * UNROLL);
	return 0;
}
