/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A thread that waits in epoll_pwait with no timeout while the main
 * thread computes, then writes to the pipe it waits on: the wait must end
 * with the pipe ready (1), never with EINTR. Under hermit the waiting
 * thread is parked while the other runs; a spin watch that took the
 * sleeping thread for a spinning one (a stale "spun" seen while hermit
 * planned libc) interrupted the wait and the guest saw -1 EINTR.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

static int ep, p[2];

static void *waiter(void *arg)
{
	struct epoll_event ev[4];
	int n = epoll_pwait(ep, ev, 4, -1, NULL);
	char c = '?';

	if (n < 0)
		printf("epoll_pwait: %s\n", strerror(errno));
	else if (read(p[0], &c, 1) != 1)
		printf("read failed\n");
	printf("woke %d %c\n", n, c);
	return arg;
}

int main(void)
{
	struct epoll_event e = { .events = EPOLLIN };
	volatile long s = 0;
	pthread_t t;

	if (pipe(p) < 0 || (ep = epoll_create1(0)) < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &e) < 0) {
		perror("setup");
		return 1;
	}
	if (pthread_create(&t, NULL, waiter, NULL) != 0)
		return 1;
	for (long i = 0; i < 100000000; i++)
		s += i;
	if (write(p[1], "x", 1) != 1)
		return 1;
	pthread_join(t, NULL);
	printf("done\n");
	return 0;
}
