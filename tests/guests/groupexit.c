/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * groupexit MODE: a parent watches its multithreaded child end. The child
 * starts 16 threads that wait on a condition variable for ever, computes,
 * then ends the whole process: `main` returns from main (exit_group from
 * the leader), `thread` calls exit() in another thread, `abort` calls
 * abort() there (a fatal signal). The parent polls waitpid(WNOHANG) with
 * computation between and prints how many polls it made before the
 * child's end was there to see, and how the child ended.
 *
 * Under hermit that count must be the same every run: the child's threads
 * end when hermit's schedule says, not when the kernel's CPUs get to them
 * (recorder/exits.c end_group).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static volatile unsigned long sink;
static const char *mode;

static void work(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i;
}

static void *sleeper(void *arg)
{
	pthread_mutex_lock(&lock);
	for (;;)
		pthread_cond_wait(&never, &lock);
	return arg;
}

static void *ender(void *arg)
{
	work(200000);
	if (strcmp(mode, "abort") == 0)
		abort();
	exit(3);
	return arg;
}

static void child(void)
{
	pthread_t t;

	for (int i = 0; i < 16; i++)
		if (pthread_create(&t, NULL, sleeper, NULL) != 0)
			_exit(100);
	if (strcmp(mode, "main") == 0) {
		work(300000);
		exit(3);
	}
	if (pthread_create(&t, NULL, ender, NULL) != 0)
		_exit(100);
	pthread_join(t, NULL);
	_exit(101);
}

int main(int argc, char **argv)
{
	int status = 0;
	long polls = 0;
	pid_t pid;

	mode = argc > 1 ? argv[1] : "main";
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		child();
	while (waitpid(pid, &status, WNOHANG) == 0) {
		polls++;
		work(2000);
	}
	if (WIFSIGNALED(status))
		printf("%s: %ld polls, killed by signal %d\n", mode, polls, WTERMSIG(status));
	else
		printf("%s: %ld polls, exit status %d\n", mode, polls, WEXITSTATUS(status));
	return 0;
}
