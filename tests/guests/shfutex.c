/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: shared futexes (no FUTEX_PRIVATE_FLAG) with 21 waiters.
 *
 *   shfutex fork     waiters are forked processes; each maps the memfd
 *                    that holds the words again, at its own address
 *   shfutex threads  waiters are threads, the words in private memory
 *   shfutex alias    waiters are threads waiting through one mapping of
 *                    a memfd, the waker uses a second mapping of it
 *
 * Each mode runs three rounds. "all": FUTEX_WAKE of every waiter returns
 * 21. "order": three FUTEX_WAKE of one each return 1 and wake the first
 * three waiters in the order they began to wait (the kernel's queue is
 * first in, first out for waiters of one priority), then the rest: 18.
 * "requeue": FUTEX_CMP_REQUEUE (wake 1, move 5) returns 6, with a stale
 * value -1 EAGAIN, FUTEX_REQUEUE (wake 0, move 4) returns 4, a wake of one
 * on the second word wakes waiter 1 (the first moved), then the second
 * word has 8 waiters left and the first 11.
 *
 * The waker lets every waiter reach its wait by sleeping: under hermit a
 * sleep runs everything else that can run first, so the counts are exact.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAITERS 21

struct shared {
	uint32_t word[2];   /* the futex words */
	atomic_int waiting; /* waiters about to wait */
	atomic_int woken;   /* waiters woken */
	int order[WAITERS]; /* waiter numbers, in the order they were woken */
};

enum mode { FORK, THREADS, ALIAS };

static enum mode mode;
static int memfd = -1;
static struct shared *sh;    /* the waker's view */
static struct shared *sh_th; /* the threads' view (ALIAS: another mapping) */
static struct shared private_sh;
static pthread_t threads[WAITERS];
static pid_t pids[WAITERS];

static long futex(uint32_t *w, int op, uint32_t val, long val2, uint32_t *w2, uint32_t val3)
{
	long ret = syscall(SYS_futex, w, op, val, val2, w2, val3);

	return ret < 0 ? -errno : ret;
}

static struct shared *map_memfd(void)
{
	void *p = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static void settle(void)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/* Wait until *V reaches N: at most 200 sleeps, 10 s of virtual time. */
static void wait_count(atomic_int *v, int n, const char *what)
{
	for (int i = 0; atomic_load(v) < n; i++) {
		if (i == 200) {
			printf("gave up waiting for %d %s (%d)\n", n, what, atomic_load(v));
			exit(1);
		}
		settle();
	}
}

/* Waiter N: wait once on word W of S, then say it was woken. */
static void wait_once(struct shared *s, int w, int n)
{
	long ret;

	atomic_fetch_add(&s->waiting, 1);
	ret = futex(&s->word[w], FUTEX_WAIT, 0, 0, NULL, 0);
	if (ret != 0)
		printf("waiter %d: futex wait returned %ld\n", n, ret);
	s->order[atomic_fetch_add(&s->woken, 1)] = n;
}

struct job {
	int w, n;
} jobs[WAITERS];

static void *thread_main(void *arg)
{
	struct job *j = arg;

	wait_once(sh_th, j->w, j->n);
	return NULL;
}

/* Start waiter N on word W and let it begin to wait. */
static void start(int w, int n)
{
	int before = atomic_load(&sh->waiting);

	jobs[n].w = w;
	jobs[n].n = n;
	if (mode == FORK) {
		pids[n] = fork();
		if (pids[n] < 0) {
			perror("fork");
			exit(1);
		}
		if (pids[n] == 0) {
			wait_once(map_memfd(), w, n);
			fflush(stdout);
			_exit(0);
		}
	} else if (pthread_create(&threads[n], NULL, thread_main, &jobs[n]) != 0) {
		fprintf(stderr, "pthread_create failed\n");
		exit(1);
	}
	wait_count(&sh->waiting, before + 1, "waiting");
	settle();
}

/* Wait until COUNT waiters were woken, then reap them all. */
static void finish(int count)
{
	wait_count(&sh->woken, count, "woken");
	for (int n = 0; n < WAITERS; n++) {
		int status;

		if (mode == FORK) {
			if (waitpid(pids[n], &status, 0) != pids[n] || status != 0)
				printf("waiter %d: status %#x\n", n, status);
		} else {
			pthread_join(threads[n], NULL);
		}
	}
}

static void reset(void)
{
	memset(sh->word, 0, sizeof(sh->word));
	atomic_store(&sh->waiting, 0);
	atomic_store(&sh->woken, 0);
	memset(sh->order, 0xff, sizeof(sh->order));
}

static void round_all(void)
{
	reset();
	for (int n = 0; n < WAITERS; n++)
		start(0, n);
	printf("all: wake %ld\n", futex(&sh->word[0], FUTEX_WAKE, INT_MAX, 0, NULL, 0));
	finish(WAITERS);
	printf("all: woken %d\n", atomic_load(&sh->woken));
}

static void round_order(void)
{
	reset();
	for (int n = 0; n < WAITERS; n++)
		start(0, n);
	for (int i = 0; i < 3; i++) {
		printf("order: wake one %ld\n", futex(&sh->word[0], FUTEX_WAKE, 1, 0, NULL, 0));
		wait_count(&sh->woken, i + 1, "woken");
		printf("order: woken %d\n", sh->order[i]);
	}
	printf("order: wake rest %ld\n", futex(&sh->word[0], FUTEX_WAKE, INT_MAX, 0, NULL, 0));
	finish(WAITERS);
}

static void round_requeue(void)
{
	uint32_t *w0 = &sh->word[0], *w1 = &sh->word[1];

	reset();
	for (int n = 0; n < WAITERS; n++)
		start(0, n);
	printf("requeue: cmp_requeue stale %ld\n", futex(w0, FUTEX_CMP_REQUEUE, 1, 5, w1, 1));
	printf("requeue: cmp_requeue %ld\n", futex(w0, FUTEX_CMP_REQUEUE, 1, 5, w1, 0));
	printf("requeue: requeue %ld\n", futex(w0, FUTEX_REQUEUE, 0, 4, w1, 0));
	wait_count(&sh->woken, 1, "woken");
	printf("requeue: woken %d\n", sh->order[0]);
	printf("requeue: wake one moved %ld\n", futex(w1, FUTEX_WAKE, 1, 0, NULL, 0));
	wait_count(&sh->woken, 2, "woken");
	printf("requeue: woken %d\n", sh->order[1]);
	printf("requeue: wake moved %ld\n", futex(w1, FUTEX_WAKE, INT_MAX, 0, NULL, 0));
	printf("requeue: wake rest %ld\n", futex(w0, FUTEX_WAKE, INT_MAX, 0, NULL, 0));
	finish(WAITERS);
	printf("requeue: woken %d\n", atomic_load(&sh->woken));
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: shfutex fork|threads|alias\n");
		return 2;
	}
	if (strcmp(argv[1], "fork") == 0)
		mode = FORK;
	else if (strcmp(argv[1], "threads") == 0)
		mode = THREADS;
	else if (strcmp(argv[1], "alias") == 0)
		mode = ALIAS;
	else
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mode == THREADS) {
		sh = sh_th = &private_sh;
	} else {
		memfd = memfd_create("shfutex", 0);
		if (memfd < 0 || ftruncate(memfd, sizeof(struct shared)) < 0) {
			perror("memfd");
			return 1;
		}
		sh = map_memfd();
		sh_th = mode == ALIAS ? map_memfd() : sh;
	}
	round_all();
	round_order();
	round_requeue();
	return 0;
}
