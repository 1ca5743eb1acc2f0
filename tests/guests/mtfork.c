/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: fork from a multithreaded process. The main thread starts two
 * threads, which meet at a barrier; then thread 1 forks while thread 2
 * logs a step every 700 us until thread 1 is done (into memory, so that no
 * half-filled stdio buffer is copied into the child). The child has
 * one thread (/proc/self/status says so), prints its pid and exits with
 * status 7; thread 1 waits for it. A SIGCHLD handler counts the child's
 * end. The main thread joins both threads and prints every status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXLOG 64

static volatile sig_atomic_t sigchld;
static pthread_barrier_t met;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char logbuf[MAXLOG][64];
static int nlog, forker_done;

static void note(const char *what, int k)
{
	pthread_mutex_lock(&lock);
	if (nlog < MAXLOG)
		snprintf(logbuf[nlog++], sizeof(logbuf[0]), "%s %d", what, k);
	pthread_mutex_unlock(&lock);
}

static int thread_count(void)
{
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");
	int n = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

static void on_chld(int sig)
{
	(void)sig;
	sigchld++;
}

static void *forker(void *arg)
{
	pid_t pid, got;
	int status;

	(void)arg;
	pthread_barrier_wait(&met);
	note("thread 1 forks; threads in the parent:", thread_count());
	pid = fork();
	if (pid < 0) {
		perror("fork");
		pthread_mutex_lock(&lock);
		forker_done = 1;
		pthread_mutex_unlock(&lock);
		return (void *)1L;
	}
	if (pid == 0) {
		printf("child: pid %d, parent %d, threads %d\n", (int)getpid(), (int)getppid(),
		       thread_count());
		fflush(stdout);
		_exit(7);
	}
	do
		got = waitpid(pid, &status, 0);
	while (got < 0 && errno == EINTR);
	pthread_mutex_lock(&lock);
	forker_done = 1;
	pthread_mutex_unlock(&lock);
	if (got != pid) {
		perror("waitpid");
		return (void *)2L;
	}
	note("thread 1 waited for child pid", (int)pid);
	if (WIFEXITED(status))
		note("thread 1: the child exited", WEXITSTATUS(status));
	else
		note("thread 1: the child ended with wait status", status);
	return (void *)0L;
}

static void *stepper(void *arg)
{
	int done = 0;

	(void)arg;
	pthread_barrier_wait(&met);
	for (int k = 0; !done; k++) {
		note("thread 2 step", k);
		usleep(700);
		pthread_mutex_lock(&lock);
		done = forker_done;
		pthread_mutex_unlock(&lock);
	}
	return (void *)0L;
}

int main(void)
{
	struct sigaction sa;
	pthread_t t1, t2;
	void *r1, *r2;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);

	pthread_barrier_init(&met, NULL, 2);
	/* Nothing buffered when the child is made. */
	printf("main: pid %d\n", (int)getpid());
	fflush(stdout);
	if (pthread_create(&t2, NULL, stepper, NULL) != 0 ||
	    pthread_create(&t1, NULL, forker, NULL) != 0)
		return 1;
	pthread_join(t1, &r1);
	pthread_join(t2, &r2);
	for (int i = 0; i < nlog; i++)
		printf("%s\n", logbuf[i]);
	printf("main: joined thread 1 (returned %ld) and thread 2 (returned %ld)\n", (long)r1,
	       (long)r2);
	printf("main: SIGCHLD caught %d time(s)\n", (int)sigchld);
	printf("main: threads now %d\n", thread_count());
	return 0;
}
