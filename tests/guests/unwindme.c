/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest for tests/unit/test_frames.c: stops with SIGTRAP three functions
 * deep under qsort's comparator (so the stack passes through libc, built
 * without frame pointers), and again inside a signal handler (so it passes
 * through the signal trampoline). Built with -O2 -fomit-frame-pointer; the
 * functions are noinline so each keeps its own frame.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static volatile int sink;

__attribute__((noinline)) static void leaf(int v)
{
	sink += v;
	raise(SIGTRAP);
	sink += v;
}

__attribute__((noinline)) static void middle(int v)
{
	leaf(v + 1);
	sink++;
}

static int stopped;

__attribute__((noinline)) static int cmp_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (!stopped) {
		stopped = 1;
		middle(x);
	}
	return (x > y) - (x < y);
}

__attribute__((noinline)) static void on_usr1(int sig)
{
	middle(sig);
	sink++; /* not a tail call: the handler keeps its frame */
}

__attribute__((noinline)) static void interrupted(void)
{
	raise(SIGUSR1);
	sink++;
}

int main(int argc, char **argv)
{
	int v[] = { 5, 3, 9, 1, 7 };
	struct sigaction sa;

	(void)argv;
	qsort(v, 5, sizeof(v[0]), cmp_ints);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	if (argc > 0)
		interrupted();
	return v[0] == 1 ? 0 : 1;
}
