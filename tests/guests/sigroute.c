/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A signal sent to the process (kill(getpid(), sig)) while its main
 * thread blocks it goes to a thread that does not block it, as the
 * kernel's complete_signal() (kernel/signal.c) chooses: the main thread
 * when it takes the signal, else, from the thread the last such signal
 * went to (signal->curr_target), the first in thread order that does.
 * The main thread blocks SIGUSR1 and sends it N times; N workers, which
 * do not block it, wait in a call:
 *
 *   pause N  each worker waits in pause(); the first signal goes to
 *            worker 0, whose handler runs and whose pause() returns
 *            EINTR; that worker then blocks SIGUSR1, so the next goes to
 *            worker 1, and so on
 *   read N   the same, the workers waiting in read() of a pipe nobody
 *            writes (no SA_RESTART: EINTR)
 *   ... stay the workers never block SIGUSR1: each signal goes to the
 *            thread the last one went to, worker 0, as long as it takes
 *            it (wants_signal()), wherever the others wait
 *   ... mixed worker 0 blocks SIGUSR1 after its signal, the others do
 *            not: the first signal goes to worker 0, all later ones to
 *            worker 1
 *   ... order as stay, but first the main thread wakes the next to last
 *            worker with SIGUSR2 (pthread_kill) and waits for it on a
 *            semaphore: which thread ran last does not change where the
 *            process's signals go (worker 0)
 *
 * Before each signal the main thread waits until every worker that is
 * still to get one sleeps in its call (its state in /proc is S, or t under
 * a tracer), so the output depends on no timing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS 16

static int report[2], idle[2];
static int nworkers, use_read, stay, mixed, order;
static sem_t poked;
static volatile sig_atomic_t got2;
static pid_t tids[MAX_WORKERS];
static __thread int got;

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

static void on_usr2(int sig)
{
	(void)sig;
	got2 = 1;
}

static void *worker(void *arg)
{
	int i = (int)(long)arg;
	sigset_t set;
	char msg[128];
	int calls = 0, eintr = 0;

	tids[i] = (pid_t)syscall(SYS_gettid);
	if (write(report[1], "r", 1) != 1)
		exit(1);
again:
	calls = eintr = 0;
	while (!got) {
		char c;
		long r = use_read ? (long)read(idle[0], &c, 1) : (long)pause();

		if (got2) {
			/* woken by the main thread: not the signal waited for */
			got2 = 0;
			sem_post(&poked);
			continue;
		}
		calls++;
		if (r < 0 && errno == EINTR)
			eintr++;
	}
	/* done: the next signal is another thread's */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (!stay || (mixed && i == 0))
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	snprintf(msg, sizeof(msg),
		 "worker %d: handler ran %d time(s), %s returned EINTR %d of %d\n", i, got,
		 use_read ? "read" : "pause", eintr, calls);
	got = 0;
	if (write(report[1], msg, strlen(msg)) != (ssize_t)strlen(msg))
		exit(1);
	if (stay && !(mixed && i == 0))
		goto again;
	return NULL;
}

/* Whether thread TID sleeps (S), or is stopped by a tracer (t). */
static int asleep(pid_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	int st = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && p[1] == ' ')
		st = p[2] == 'S' || p[2] == 't';
	fclose(f);
	return st;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_WORKERS];
	struct sigaction sa;
	sigset_t set;
	char buf[256];

	if (argc < 3 || argc > 4 || (strcmp(argv[1], "pause") && strcmp(argv[1], "read"))) {
		fprintf(stderr, "usage: sigroute pause|read N [stay|mixed|order]\n");
		return 2;
	}
	use_read = strcmp(argv[1], "read") == 0;
	nworkers = atoi(argv[2]);
	mixed = argc == 4 && strcmp(argv[3], "mixed") == 0;
	order = argc == 4 && strcmp(argv[3], "order") == 0;
	stay = mixed || order || (argc == 4 && strcmp(argv[3], "stay") == 0);
	if (nworkers < 1 || nworkers > MAX_WORKERS || pipe(report) || pipe(idle))
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1; /* no SA_RESTART: the wait ends with EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	sem_init(&poked, 0, 0);
	for (int i = 0; i < nworkers; i++)
		pthread_create(&th[i], NULL, worker, (void *)(long)i);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (int i = 0; i < nworkers; i++) {
		if (read(report[0], buf, 1) != 1)
			return 1;
	}
	if (order && nworkers > 1) {
		struct timespec ms = { 0, 1000000 };

		while (!asleep(tids[nworkers - 2]))
			nanosleep(&ms, NULL);
		pthread_kill(th[nworkers - 2], SIGUSR2);
		while (sem_wait(&poked) < 0 && errno == EINTR)
			;
		printf("main: worker %d was woken and waits again\n", nworkers - 2);
	}
	for (int i = 0; i < nworkers; i++) {
		struct timespec ms = { 0, 1000000 };
		ssize_t n;

		for (int j = stay ? !!mixed * (i > 0) : i; j < nworkers; j++) {
			while (!asleep(tids[j]))
				nanosleep(&ms, NULL);
		}
		printf("main: kill(getpid(), SIGUSR1) #%d\n", i + 1);
		fflush(stdout);
		kill(getpid(), SIGUSR1);
		n = read(report[0], buf, sizeof(buf) - 1);
		if (n <= 0)
			return 1;
		buf[n] = 0;
		fputs(buf, stdout);
		fflush(stdout);
	}
	printf("main: the handler never ran on main: %s\n", got ? "no" : "yes");
	fflush(stdout);
	if (stay)
		exit(0); /* the workers wait for ever */
	for (int i = 0; i < nworkers; i++)
		pthread_join(th[i], NULL);
	return 0;
}
