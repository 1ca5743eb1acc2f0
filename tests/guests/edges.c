/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: corners of the process model that once hung or misled hermit,
 * one per argument (found in review):
 *   pthread_exit  the main thread leaves with pthread_exit; a worker prints on
 *   thread_exec   a thread that is not the leader execs /bin/echo
 *   fault         a NULL store after a second thread ran (sites in place)
 *   sigchld       a child exits during sleep(2): SIGCHLD is ignored, the
 *                 sleep is not cut short
 *   timeout       three sigtimedwait calls share one timeout struct, which
 *                 the kernel treats as read-only
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int *nowhere;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++) {
		printf("worker %d\n", i);
		fflush(stdout);
		usleep(1000);
	}
	return NULL;
}

static void *execer(void *arg)
{
	(void)arg;
	execl("/bin/echo", "echo", "exec from a thread", (char *)NULL);
	return NULL;
}

static void *spin(void *arg)
{
	(void)arg;
	for (volatile long i = 0; i < 100000; i++)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 2)
		return 2;
	if (strcmp(argv[1], "pthread_exit") == 0) {
		pthread_create(&t, NULL, worker, NULL);
		pthread_exit(NULL);
	}
	if (strcmp(argv[1], "thread_exec") == 0) {
		pthread_create(&t, NULL, execer, NULL);
		for (;;)
			pause();
	}
	if (strcmp(argv[1], "fault") == 0) {
		pthread_create(&t, NULL, spin, NULL);
		pthread_join(t, NULL);
		for (volatile int i = 0; i < 1000; i++) {
			if (i == 999)
				*nowhere = 1;
		}
		return 0;
	}
	if (strcmp(argv[1], "sigchld") == 0) {
		unsigned left;

		if (fork() == 0)
			_exit(0);
		left = sleep(2);
		printf("sleep left %u\n", left);
		return 0;
	}
	if (strcmp(argv[1], "timeout") == 0) {
		struct timespec ts = { 1, 0 }, a, b;
		sigset_t s;

		sigemptyset(&s);
		sigaddset(&s, SIGUSR1);
		sigprocmask(SIG_BLOCK, &s, NULL);
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (int i = 0; i < 3; i++)
			sigtimedwait(&s, NULL, &ts);
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("timeout struct %ld.%09ld, elapsed %.1f s\n", (long)ts.tv_sec, ts.tv_nsec,
		       (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
		return 0;
	}
	return 2;
}
