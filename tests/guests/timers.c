/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: timers and signals. In turn:
 *   alarm(1) and pause() with a SIGALRM handler;
 *   setitimer(ITIMER_REAL) every 100 ms, counted by its SIGALRM handler
 *   until five ticks, pause() between them;
 *   nanosleep of 200 ms;
 *   pthread_kill(SIGUSR1) from the main thread to a worker waiting in
 *   sigsuspend, then tgkill(SIGUSR2) from the worker back to the main
 *   thread, each handler noting which thread ran it;
 *   timer_create(CLOCK_MONOTONIC, SIGEV_SIGNAL with SIGRTMIN) once, 300 ms;
 *   timerfd_create(CLOCK_MONOTONIC) every 100 ms: after a 350 ms sleep a
 *   read returns 3 expirations, and the next read waits for the fourth.
 * Each event is one line ending in "mono S.N elapsed_us U": CLOCK_MONOTONIC
 * then, and microseconds since that part began (the call that armed the
 * timer or started the sleep), so a test can see virtual time advance by
 * what each timer asked for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t alarms, usr1_tid, usr2_tid, rt_fired, rt_code, rt_value;
static pid_t main_tid;
static long long part_start;

static pid_t tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void part(void)
{
	part_start = mono_ns();
}

/* One event line: what happened, then the time now. */
__attribute__((format(printf, 1, 2))) static void event(const char *fmt, ...)
{
	long long now = mono_ns();
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" mono %lld.%09lld elapsed_us %lld\n", now / 1000000000LL, now % 1000000000LL,
	       (now - part_start) / 1000);
}

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void on_usr(int sig)
{
	if (sig == SIGUSR1)
		usr1_tid = tid();
	else
		usr2_tid = tid();
}

static void on_rt(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	rt_code = si->si_code;
	rt_value = si->si_value.sival_int;
	rt_fired++;
}

static void handle(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void sleep_ms(long ms)
{
	struct timespec req = { ms / 1000, (ms % 1000) * 1000000L }, rem;

	while (nanosleep(&req, &rem) != 0 && errno == EINTR)
		req = rem;
}

static void *worker(void *arg)
{
	sigset_t wait_mask;

	(void)arg;
	/* SIGUSR1 and SIGUSR2 are blocked (inherited): unblock SIGUSR1 only here. */
	pthread_sigmask(SIG_SETMASK, NULL, &wait_mask);
	sigdelset(&wait_mask, SIGUSR1);
	while (!usr1_tid)
		sigsuspend(&wait_mask);
	event("pthread_kill SIGUSR1 handled by %s", usr1_tid == tid() ? "worker" : "another thread");
	syscall(SYS_tgkill, getpid(), main_tid, SIGUSR2);
	return NULL;
}

int main(void)
{
	struct itimerval it;
	struct itimerspec its;
	struct sigevent sev;
	struct sigaction sa;
	sigset_t block, wait_mask;
	pthread_t th;
	timer_t timer;
	uint64_t expirations;
	int fd, seen;

	main_tid = tid();
	part();
	event("start");

	/* ---- alarm + pause ---- */
	handle(SIGALRM, on_alarm);
	part();
	alarm(1);
	pause();
	event("alarm %s", alarms == 1 ? "SIGALRM seen" : "pause returned without SIGALRM");

	/* ---- setitimer, five ticks ---- */
	alarms = 0;
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = 100000;
	it.it_value.tv_usec = 100000;
	part();
	if (setitimer(ITIMER_REAL, &it, NULL) != 0)
		perror("setitimer");
	for (seen = 0; seen < 5;) {
		pause();
		if (alarms != seen) {
			seen = alarms;
			event("itimer tick %d", seen);
		}
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	printf("itimer ticks %d\n", seen);

	/* ---- nanosleep ---- */
	part();
	sleep_ms(200);
	event("nanosleep 200 ms");

	/* ---- pthread_kill and tgkill between threads ---- */
	handle(SIGUSR1, on_usr);
	handle(SIGUSR2, on_usr);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &block, &wait_mask);
	part();
	if (pthread_create(&th, NULL, worker, NULL) != 0)
		return 1;
	pthread_kill(th, SIGUSR1);
	sigaddset(&wait_mask, SIGUSR1);
	sigdelset(&wait_mask, SIGUSR2);
	while (!usr2_tid)
		sigsuspend(&wait_mask);
	event("tgkill SIGUSR2 handled by %s", usr2_tid == main_tid ? "main" : "another thread");
	pthread_join(th, NULL);

	/* ---- timer_create, one shot ---- */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_rt;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGRTMIN);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGRTMIN;
	sev.sigev_value.sival_int = 42;
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) != 0) {
		perror("timer_create");
		return 1;
	}
	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = 300000000;
	part();
	timer_settime(timer, 0, &its, NULL);
	while (!rt_fired)
		sigsuspend(&wait_mask);
	event("timer_create SIGRTMIN fired %d si_code %s value %d", (int)rt_fired,
	      rt_code == SI_TIMER ? "SI_TIMER" : "other", (int)rt_value);
	timer_delete(timer);

	/* ---- timerfd ---- */
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (fd < 0) {
		perror("timerfd_create");
		return 1;
	}
	memset(&its, 0, sizeof(its));
	its.it_interval.tv_nsec = 100000000;
	its.it_value.tv_nsec = 100000000;
	part();
	timerfd_settime(fd, 0, &its, NULL);
	sleep_ms(350);
	if (read(fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		perror("read timerfd");
	event("timerfd expirations %llu", (unsigned long long)expirations);
	if (read(fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		perror("read timerfd");
	event("timerfd expirations %llu", (unsigned long long)expirations);
	close(fd);
	return 0;
}
