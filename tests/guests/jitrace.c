/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two threads racing on a counter in code they generate at run time, as a
 * JIT does (issue "Exact progress without a PMU"): anonymous memory made
 * executable with mprotect, which hermit does not patch, so no tick counts
 * it and only the spin watch preempts it. The code adds 1 to the counter
 * UNROLL times without a branch, then loops (argv[1] times, default
 * 8000). A replay must stop each thread where the spin watch stopped it,
 * so it prints the recorded total.
 *
 * The spin watch preempts a thread where it finds it only when no tick
 * comes while it has 100 ms more of the CPU; a thread whose loop ends
 * first is preempted at its next tick. So that such a point is made on
 * every host, however fast, the thread that ends its loop first waits in
 * the generated code for the other, in passes of SPIN dependent
 * multiplications (about 50 us), counting them in %r9: its registers
 * differ at every pass, so the replay finds the point among a few
 * thousand visits of its pc. Only a preemption there lets the other
 * thread run and end the wait.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define UNROLL 16384
#define SPIN (3 * 16384)

static volatile long counter;
static volatile int done;
static long outer = 8000;
static void (*code)(volatile long *counter, long outer, volatile int *done);

static unsigned char *put(unsigned char *q, const void *bytes, size_t n)
{
	memcpy(q, bytes, n);
	return q + n;
}

static void make_code(void)
{
	static const unsigned char add[] = {
		0x48, 0x8b, 0x07,	/* mov (%rdi),%rax */
		0x48, 0x83, 0xc0, 0x01, /* add $1,%rax */
		0x48, 0x89, 0x07,	/* mov %rax,(%rdi) */
	};
	static const unsigned char mul[] = { 0x4d, 0x0f, 0xaf, 0xd2 }; /* imul %r10,%r10 */
	size_t size = UNROLL * sizeof(add) + SPIN * sizeof(mul) + 64;
	unsigned char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0), *q, *spin;
	int32_t rel;

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	q = p;
	for (int i = 0; i < UNROLL; i++)
		q = put(q, add, sizeof(add));
	q = put(q, "\x48\xff\xce\x0f\x85", 5); /* dec %rsi; jnz p */
	rel = (int32_t)(p - (q + 4));
	q = put(q, &rel, 4);
	/* lock incl (%rdx); mov $3,%r10d */
	q = put(q, "\xf0\xff\x02\x41\xba\x03\x00\x00\x00", 9);
	spin = q;
	for (int i = 0; i < SPIN; i++)
		q = put(q, mul, sizeof(mul));
	/* inc %r9; cmpl $2,(%rdx); jne spin */
	q = put(q, "\x49\xff\xc1\x83\x3a\x02\x0f\x85", 8);
	rel = (int32_t)(spin - (q + 4));
	q = put(q, &rel, 4);
	*q = 0xc3; /* ret */
	if (mprotect(p, size, PROT_READ | PROT_EXEC) < 0) {
		perror("mprotect");
		exit(1);
	}
	code = (void (*)(volatile long *, long, volatile int *))(void *)p;
}

static void *work(void *arg)
{
	code(&counter, outer, &done);
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
