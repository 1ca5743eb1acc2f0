/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two threads that spend nearly all their time in code they generate at
 * run time (anonymous memory made executable, which no tick counts), as
 * an interpreter's or a JIT's threads do, but return to counted code
 * between calls. The spin watch finds them in the generated code and
 * preempts each at its next tick (docs/preemption.md), where a replay
 * stops it by its ticks; at a point in the generated loop a replay would
 * search for it with a stop at every one of up to LOOP visits.
 *
 * Each call of the generated code runs a loop of LOOP turns (a few
 * milliseconds); each thread calls it argv[1] times (default 100) and
 * notes its name in a shared log after each call, so that what it prints
 * (a digest of that log, and the log's length) depends on where the
 * threads were preempted.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define LOOP 10000000

static volatile long counter;
static long calls = 100;
static void (*code)(volatile long *counter, long turns);
static volatile unsigned char *order;
static volatile long norder;

static void make_code(void)
{
	static const unsigned char loop[] = {
		0x48, 0x8b, 0x07,	/* 0: mov (%rdi),%rax */
		0x48, 0x83, 0xc0, 0x01, /* 3: add $1,%rax */
		0x48, 0x89, 0x07,	/* 7: mov %rax,(%rdi) */
		0x48, 0xff, 0xce,	/* 10: dec %rsi */
		0x75, 0xf1,		/* 13: jnz 0 */
		0xc3,			/* 15: ret */
	};
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	memcpy(p, loop, sizeof(loop));
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC) < 0) {
		perror("mprotect");
		exit(1);
	}
	code = (void (*)(volatile long *, long))(void *)p;
}

static void *work(void *arg)
{
	unsigned char name = (unsigned char)(uintptr_t)arg;

	for (long i = 0; i < calls; i++) {
		code(&counter, LOOP);
		order[norder++] = name; /* racy on purpose, as the counter */
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	uint64_t h = 0xcbf29ce484222325ULL;

	if (argc > 1)
		calls = atol(argv[1]);
	order = calloc((size_t)(2 * calls + 1), 1);
	if (!order) {
		perror("calloc");
		return 1;
	}
	make_code();
	for (int i = 0; i < 2; i++) {
		if (pthread_create(&t[i], NULL, work, (void *)(uintptr_t)('a' + i)) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (long i = 0; i < norder; i++)
		h = (h ^ order[i]) * 0x100000001b3ULL;
	printf("%ld of %ld, %ld calls noted, order %016llx\n", counter, 2L * calls * LOOP, norder,
	       (unsigned long long)h);
	return 0;
}
