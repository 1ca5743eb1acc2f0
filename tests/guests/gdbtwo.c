/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest for the gdb tests: two workers add to a global under a mutex,
 * three times each, through bump(); the main thread joins them and
 * prints the total (33). Before, it calls count_down, whose first
 * instruction is also the head of its loop.
 */
#include <pthread.h>
#include <stdio.h>

/* As written, whatever CFLAGS say: the test steps instructions and prints
 * locals. */
#pragma GCC optimize("O0")

/* Three passes at its first instruction: one from the call, two from the
 * jump back (a reverse-stepi must tell them apart). */
__asm__(".text\n"
	".globl count_down\n"
	".type count_down, @function\n"
	"count_down:\n"
	"\tdec %ecx\n"
	"\tjnz count_down\n"
	"\tret\n"
	".size count_down, .-count_down\n");

int counter;
/* Whether the CPU has AVX: then main puts 4.0 in ymm1's upper half too. */
int have_avx;
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

	have_avx = __builtin_cpu_supports("avx");
	if (have_avx)
		__asm__ volatile("vmovq %0, %%xmm2\n\tvinsertf128 $1, %%xmm2, %%ymm1, %%ymm1"
				 :
				 : "r"(0x4010000000000000ull)
				 : "xmm1", "xmm2");
	/* (below the red zone, with ecx = 3, 2.5 in xmm1 and 1 on the x87
	 * stack, which the test reads at count_down) */
	__asm__ volatile("sub $128, %%rsp\n\tmovq %0, %%xmm1\n\tfld1\n\tmov $3, %%ecx\n\t"
			 "call count_down\n\tfstp %%st(0)\n\tadd $128, %%rsp"
			 :
			 : "r"(0x4004000000000000ull)
			 : "rcx", "xmm1", "cc", "memory");
	pthread_create(&a, NULL, worker, (void *)1L);
	pthread_create(&b, NULL, worker, (void *)10L);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("counter %d\n", counter);
	return 0;
}
