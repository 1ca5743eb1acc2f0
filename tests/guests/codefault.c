/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: a SIGSEGV handler for faults on code. A code page of its own
 * (target(), alone in its page) is made PROT_NONE, PROT_READ and then
 * PROT_READ without a write to it, and called: the handler makes it
 * executable again and returns, each time. The handler reads the TSC, as
 * a handler that times things does: under hermit rdtsc traps (SIGSEGV,
 * forced while the handler blocks SIGSEGV), and the kernel reset the
 * handler to SIG_DFL, so the next fault killed the guest (139) where
 * natively the handler ran (recorder/sigmask.c). Then a jump into a page
 * that is not executable, which the handler leaves with siglongjmp.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <x86intrin.h>

static uintptr_t page;
static long psz;
static sigjmp_buf out;
static volatile int faults;
static volatile unsigned long long tsc;

int target(int x);

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	faults++;
	tsc += __rdtsc();
	if ((uintptr_t)si->si_addr >= page && (uintptr_t)si->si_addr < page + (uintptr_t)psz) {
		mprotect((void *)page, (size_t)psz, PROT_READ | PROT_EXEC);
		return;
	}
	siglongjmp(out, sig);
}

int main(void)
{
	static const int prots[] = { PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE };
	struct sigaction sa;
	unsigned char *data;
	int sig;

	setvbuf(stdout, NULL, _IONBF, 0);
	psz = sysconf(_SC_PAGESIZE);
	page = (uintptr_t)target & ~(uintptr_t)(psz - 1);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL) < 0) {
		perror("sigaction");
		return 1;
	}
	for (size_t i = 0; i < sizeof(prots) / sizeof(prots[0]); i++) {
		if (mprotect((void *)page, (size_t)psz, prots[i]) < 0) {
			perror("mprotect");
			return 1;
		}
		int r = target(10);

		printf("target(10) = %d after %d fault(s)\n", r, faults);
	}
	data = mmap(NULL, (size_t)psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (data == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	data[0] = 0xc3; /* ret */
	sig = sigsetjmp(out, 1);
	if (!sig) {
		((void (*)(void))data)();
		printf("the data page ran\n");
	} else {
		printf("a jump into data: signal %d after %d fault(s)\n", sig, faults);
	}
	return 0;
}

/* Alone in its page: the page after it holds only after_target. */
__attribute__((noinline, aligned(4096), section(".text.hermit_alone"))) int target(int x)
{
	int s = 0;

	for (int i = 0; i < x; i++)
		s += i * 3;
	return s;
}

__attribute__((noinline, aligned(4096), section(".text.hermit_alone"))) void after_target(void)
{
}
