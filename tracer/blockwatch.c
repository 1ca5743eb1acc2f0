/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The block watch. Only one guest task runs at a time, so a running task
 * that sleeps in the kernel (a read of an empty pipe, a wait4 for a child
 * that is stopped) waits for a task that cannot run until it is parked.
 * A watcher thread looks at the running task's state in /proc every few
 * hundred microseconds; when it sleeps inside a syscall ('S' in
 * /proc/TID/stat, a syscall number in /proc/TID/syscall) it interrupts the
 * tracer's waitpid with SIGUSR1. The tracer then parks the task with
 * PTRACE_INTERRUPT and runs another; the interrupted syscall restarts when
 * the task is resumed. Uninterruptible sleeps ('D', disk I/O) finish on
 * their own and are left alone.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "tracer.h"

static pthread_t watch_thread, main_thread;
static atomic_int watched_tid;
static atomic_int held; /* tracer_blockwatch_hold: nothing runs */
static atomic_uint watched_gen;
static atomic_int watch_quit;
static int64_t wall_deadline; /* CLOCK_MONOTONIC ns; 0: none */
static atomic_int wall_expired;
static atomic_int spun;
static _Atomic int64_t touched_ns; /* CLOCK_MONOTONIC: the running task's last stop */

/* A task that runs this long without a stop is interrupted (if others wait). */
#define SPIN_US 100000
static int watch_running;

/*
 * The /proc files of the tasks looked at, kept open: a look is a pread of
 * each, not an open, a read and a close (two path walks, and this VM's
 * syscalls are dear) every 60 us. One set per thread that looks (the
 * watcher, the tracer's own check), of a few tasks (a pipe ping-pong
 * looks at two in turn), the oldest replaced. A file of a task that was
 * reaped fails with ESRCH even if its number was given to a new task: then
 * it is opened again.
 */
enum { PF_STAT, PF_SYSCALL, PF_N };
#define PF_TASKS 8

struct procfiles {
	pid_t tid;
	int fd[PF_N];
};

static _Thread_local struct procfiles looked[PF_TASKS];
static _Thread_local unsigned looked_next;

static void procfiles_close(struct procfiles *pf)
{
	for (int i = 0; i < PF_N; i++) {
		if (pf->tid && pf->fd[i] >= 0)
			close(pf->fd[i]);
		pf->fd[i] = -1;
	}
	pf->tid = 0;
}

static void procfiles_close_all(void)
{
	for (int i = 0; i < PF_TASKS; i++)
		procfiles_close(&looked[i]);
}

static struct procfiles *procfiles_of(pid_t tid)
{
	struct procfiles *pf;

	for (int i = 0; i < PF_TASKS; i++) {
		if (looked[i].tid == tid)
			return &looked[i];
	}
	pf = &looked[looked_next++ % PF_TASKS];
	procfiles_close(pf);
	pf->tid = tid;
	return pf;
}

static int pread_small(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

/* Read /proc/TID/<file> into BUF, through the kept descriptor. */
static int read_proc(pid_t tid, int which, char *buf, size_t size)
{
	static const char *const names[PF_N] = { "stat", "syscall" };
	struct procfiles *pf = procfiles_of(tid);

	for (int tries = 0; tries < 2; tries++) {
		char path[64];

		if (pf->fd[which] < 0) {
			snprintf(path, sizeof(path), "/proc/%d/%s", tid, names[which]);
			pf->fd[which] = open(path, O_RDONLY | O_CLOEXEC);
			if (pf->fd[which] < 0)
				return -errno;
		}
		if (pread_small(pf->fd[which], buf, size) == 0)
			return 0;
		close(pf->fd[which]);
		pf->fd[which] = -1;
	}
	return -ESRCH;
}

/* The state letter of /proc/TID/stat ('R', 'S', 't', ...), 0 if unknown. */
static char task_state(pid_t tid)
{
	char buf[512];
	const char *p;

	if (read_proc(tid, PF_STAT, buf, sizeof(buf)) < 0)
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

int tracer_task_blocked(pid_t tid, long *nr)
{
	char buf[512];
	char *end;
	long n;

	if (task_state(tid) != 'S')
		return 0;
	if (read_proc(tid, PF_SYSCALL, buf, sizeof(buf)) < 0)
		return 0;
	n = strtol(buf, &end, 10);
	if (end == buf || n < 0)
		return 0;
	if (nr)
		*nr = n;
	return 1;
}

static atomic_int dump_asked;

static void on_wake(int sig)
{
	if (sig == SIGUSR2)
		atomic_store(&dump_asked, 1);
}

int tracer_dump_asked(void)
{
	return atomic_exchange(&dump_asked, 0);
}

static pthread_mutex_t nap_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nap_cond;
static unsigned nap_switches; /* counts the wakes of a long nap, under nap_lock */
/* The watcher naps longer than QUICK_US: a new task wakes it. In a quick
 * nap it looks soon enough, and a switch costs no futex call (a counted
 * thread is preempted every few hundred microseconds). */
static atomic_int long_nap;
#define QUICK_US 60

/* Sleep US microseconds, or until another task is set to be watched. */
static void nap(long us, unsigned *seen)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += us * 1000;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	pthread_mutex_lock(&nap_lock);
	if (nap_switches == *seen)
		pthread_cond_timedwait(&nap_cond, &nap_lock, &ts);
	*seen = nap_switches;
	pthread_mutex_unlock(&nap_lock);
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *watch(void *arg)
{
	unsigned last_gen = 0, seen = 0;
	long since = 0; /* microseconds the same task has run */
	int said = 0;	/* spins said for its current run without a stop */

	(void)arg;
	/* A nap of 60 us is 60 us, not 110 (the default slack is 50 us): it
	 * is the most of what a switch at a blocking read waits. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	while (!atomic_load(&watch_quit)) {
		int tid = atomic_load(&watched_tid);
		unsigned gen = atomic_load(&watched_gen);
		long period;

		if (gen != last_gen) {
			last_gen = gen;
			since = 0;
			said = 0;
		}
		/* Quick looks first: a pipeline blocks often and briefly. */
		period = since < 2000 ? QUICK_US : since < 10000 ? 250 : 2000;
		/* Said before the watched generation is read again, as
		 * tracer_blockwatch_set bumps it before it reads this: one of
		 * the two sees the other's store. */
		atomic_store(&long_nap, period > QUICK_US);
		if (period > QUICK_US && atomic_load(&watched_gen) != gen)
			continue;
		nap(period, &seen);
		since += period;
		if (wall_deadline && mono_ns() >= wall_deadline) {
			/* Repeat until the tracer has seen it: a signal may land
			 * outside its waitpid. */
			atomic_store(&wall_expired, 1);
			pthread_kill(main_thread, SIGUSR1);
			continue;
		}
		if (!tid || atomic_load(&held) || atomic_load(&watched_gen) != gen)
			continue;
		if (tracer_task_blocked(tid, NULL)) {
			pthread_kill(main_thread, SIGUSR1);
		} else if (mono_ns() - atomic_load(&touched_ns) < SPIN_US * 1000LL) {
			said = 0; /* it stopped (a syscall, a tick) since */
		} else if (since >= SPIN_US && said < 5 && task_state(tid) == 'R') {
			/* Said a few times, in case one lands outside waitpid. Only
			 * for a task that runs: one in a ptrace stop waits for the
			 * tracer (planning a large library takes it a while), and
			 * one asleep for good ('D') is not spinning either. */
			said++;
			atomic_store(&spun, 1);
			pthread_kill(main_thread, SIGUSR1);
		}
	}
	procfiles_close_all();
	return NULL;
}

/* The thread, with the state as it is. */
static int launch(void)
{
	int err;

	atomic_store(&watch_quit, 0);
	err = pthread_create(&watch_thread, NULL, watch, NULL);
	if (err)
		return -err;
	watch_running = 1;
	return 0;
}

int tracer_blockwatch_start(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_wake; /* no SA_RESTART: waitpid returns EINTR */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) < 0 || sigaction(SIGUSR2, &sa, NULL) < 0)
		return -errno;
	main_thread = pthread_self();
	/* A second run in this process (--verify) starts afresh. */
	atomic_store(&wall_expired, 0);
	atomic_store(&spun, 0);
	atomic_store(&dump_asked, 0);
	wall_deadline = 0;
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&nap_cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	return launch();
}

void tracer_blockwatch_stop(void)
{
	if (!watch_running)
		return;
	atomic_store(&watch_quit, 1);
	pthread_join(watch_thread, NULL);
	watch_running = 0;
}

/*
 * Around a fork of hermit (a checkpoint's holder): the thread ends first,
 * so that the child is the fork of a process of one thread. A thread in
 * malloc at the fork (this one, as it starts, frees) leaves the
 * allocator's lock held in the child, for good: glibc's malloc takes its
 * locks around a fork, ASan's (GCC 12's) does not. The holder's own watch
 * thread then waits for that lock as it starts, and its tracer for a
 * guest that sleeps in a call, unseen.
 */
int tracer_blockwatch_pause(void)
{
	int ran = watch_running;

	tracer_blockwatch_stop();
	return ran;
}

int tracer_blockwatch_resume(void)
{
	return launch();
}

void tracer_blockwatch_hold(int on)
{
	if (!on) {
		/* its run starts again now */
		atomic_store(&touched_ns, mono_ns());
		atomic_fetch_add(&watched_gen, 1);
	}
	atomic_store(&held, on);
}

void tracer_blockwatch_set(pid_t tid)
{
	/* A spin seen before is not this task's. */
	atomic_store(&spun, 0);
	atomic_store(&touched_ns, mono_ns());
	atomic_store(&watched_tid, tid);
	atomic_fetch_add(&watched_gen, 1);
	if (tid && atomic_load(&long_nap)) {
		/* A new task runs: look at it soon, not after the current nap. */
		pthread_mutex_lock(&nap_lock);
		nap_switches++;
		pthread_cond_signal(&nap_cond);
		pthread_mutex_unlock(&nap_lock);
	}
}

void tracer_blockwatch_deadline(int64_t ns)
{
	wall_deadline = mono_ns() + ns;
}

int tracer_blockwatch_expired(void)
{
	return atomic_load(&wall_expired);
}

int tracer_blockwatch_spun(void)
{
	return atomic_exchange(&spun, 0);
}

void tracer_blockwatch_touch(void)
{
	atomic_store(&touched_ns, mono_ns());
}
