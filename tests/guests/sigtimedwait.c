/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: sigtimedwait with a 2 s timeout and no signal must time out after
 * 2 s of (virtual) time with EAGAIN, not hang and not count as a deadlock;
 * with the signal already pending it returns it at once.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
	struct timespec a, b, to = { 2, 0 };
	sigset_t s;
	int r, e;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigprocmask(SIG_BLOCK, &s, NULL);
	clock_gettime(CLOCK_MONOTONIC, &a);
	r = sigtimedwait(&s, NULL, &to);
	e = errno;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("timed out: %s, elapsed %.2f s\n", r == -1 && e == EAGAIN ? "yes" : "no",
	       (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	raise(SIGUSR1);
	r = sigtimedwait(&s, NULL, &to);
	printf("pending signal: %s\n", r == SIGUSR1 ? "SIGUSR1" : "other");
	return 0;
}
