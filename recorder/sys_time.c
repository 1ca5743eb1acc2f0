/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Time syscalls, answered from the virtual clock and never run. A sleep
 * is a wait until a virtual deadline: other tasks run meanwhile, and when
 * none can, virtual time jumps to the earliest deadline (DESIGN.md
 * "Blocking"). Error cases follow the kernel files under kernel/time/.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/timex.h>
#include <time.h>

#include "common/common.h"
#include "internal.h"

static struct timespec to_ts(int64_t ns)
{
	int64_t sec, nsec;
	struct timespec ts;

	hm_ns_split(ns, &sec, &nsec);
	ts.tv_sec = (time_t)sec;
	ts.tv_nsec = (long)nsec;
	return ts;
}

enum rec_action rec_sys_clock_gettime(struct rec *r, struct task *t, struct rec_call *c)
{
	struct timespec ts;
	int64_t ns;

	if (rec_clock_read(&r->clock, (long)(int)c->args[0], &ns) < 0) {
		c->ret = -EINVAL;
		return REC_EMULATED;
	}
	ts = to_ts(ns);
	return rec_reply_mem(t, c, c->args[1], &ts, sizeof(ts), 0);
}

enum rec_action rec_sys_clock_getres(struct rec *r, struct task *t, struct rec_call *c)
{
	struct timespec ts = { 0, 1 };
	int64_t ns;

	if (rec_clock_read(&r->clock, (long)(int)c->args[0], &ns) < 0) {
		c->ret = -EINVAL;
		return REC_EMULATED;
	}
	if (!c->args[1]) {
		c->ret = 0;
		return REC_EMULATED;
	}
	return rec_reply_mem(t, c, c->args[1], &ts, sizeof(ts), 0);
}

enum rec_action rec_sys_gettimeofday(struct rec *r, struct task *t, struct rec_call *c)
{
	struct timespec ts = to_ts(r->clock.epoch_ns + r->clock.now_ns);
	struct timeval tv = { ts.tv_sec, (suseconds_t)(ts.tv_nsec / 1000) };
	struct timezone tz = { 0, 0 };

	c->ret = 0;
	if (c->args[0] && tracer_write_mem(t->tid, c->args[0], &tv, sizeof(tv)) < 0)
		c->ret = -EFAULT;
	if (c->args[1] && tracer_write_mem(t->tid, c->args[1], &tz, sizeof(tz)) < 0)
		c->ret = -EFAULT;
	return REC_EMULATED;
}

enum rec_action rec_sys_time(struct rec *r, struct task *t, struct rec_call *c)
{
	int64_t secs = to_ts(r->clock.epoch_ns + r->clock.now_ns).tv_sec;

	if (c->args[0])
		return rec_reply_mem(t, c, c->args[0], &secs, sizeof(secs), (long)secs);
	c->ret = (long)secs;
	return REC_EMULATED;
}

/* Read a timespec request; -EFAULT or -EINVAL as the kernel would say. */
static int get_request(struct task *t, uint64_t addr, int64_t *ns)
{
	struct timespec ts;

	if (tracer_read_mem(t->tid, addr, &ts, sizeof(ts)) < 0)
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= HM_NS_PER_SEC)
		return -EINVAL;
	*ns = ts.tv_sec > (INT64_MAX / HM_NS_PER_SEC) - 1 ? INT64_MAX / 2
							  : ts.tv_sec * HM_NS_PER_SEC + ts.tv_nsec;
	return 0;
}

/* Sleep until virtual time DEADLINE; where the time left goes on EINTR. */
static enum rec_action sleep_until(struct rec *r, struct task *t, struct rec_call *c,
				   int64_t deadline, uint64_t rem)
{
	if (deadline <= r->clock.now_ns) {
		c->ret = 0;
		return REC_EMULATED;
	}
	t->poll_arg = rem;
	rec_block(r, t, WAIT_SLEEP, deadline);
	return REC_BLOCKED;
}

enum rec_action rec_sys_nanosleep(struct rec *r, struct task *t, struct rec_call *c)
{
	int64_t ns;

	c->ret = get_request(t, c->args[0], &ns);
	if (c->ret)
		return REC_EMULATED;
	return sleep_until(r, t, c, r->clock.now_ns + ns, c->args[1]);
}

enum rec_action rec_sys_clock_nanosleep(struct rec *r, struct task *t, struct rec_call *c)
{
	long clockid = (long)(int)c->args[0];
	int64_t ns, now;

	if (clockid == CLOCK_THREAD_CPUTIME_ID || rec_clock_read(&r->clock, clockid, &now) < 0) {
		c->ret = -EINVAL;
		return REC_EMULATED;
	}
	c->ret = get_request(t, c->args[2], &ns);
	if (c->ret)
		return REC_EMULATED;
	if (c->args[1] & TIMER_ABSTIME)
		return sleep_until(r, t, c, r->clock.now_ns + (ns - now), 0);
	return sleep_until(r, t, c, r->clock.now_ns + ns, c->args[3]);
}

/* TX at ADDR, answered from the virtual clock (rec_clock_timex). */
static enum rec_action timex(struct rec *r, struct task *t, struct rec_call *c, uint64_t addr)
{
	struct timex tx;
	int ret;

	if (tracer_read_mem(t->tid, addr, &tx, sizeof(tx)) < 0) {
		c->ret = -EFAULT;
		return REC_EMULATED;
	}
	ret = rec_clock_timex(&r->clock, &tx);
	if (ret < 0) {
		c->ret = ret;
		return REC_EMULATED;
	}
	return rec_reply_mem(t, c, addr, &tx, sizeof(tx), ret);
}

enum rec_action rec_sys_adjtimex(struct rec *r, struct task *t, struct rec_call *c)
{
	return timex(r, t, c, c->args[0]);
}

/* Only CLOCK_REALTIME can be adjusted (kernel/time/posix-timers.c:
 * do_clock_adjtime); the other clocks say EOPNOTSUPP, unknown ids EINVAL. */
enum rec_action rec_sys_clock_adjtime(struct rec *r, struct task *t, struct rec_call *c)
{
	long clockid = (long)(int)c->args[0];
	int64_t ns;

	if (clockid == CLOCK_REALTIME)
		return timex(r, t, c, c->args[1]);
	c->ret =
		clockid < 0 || rec_clock_read(&r->clock, clockid, &ns) == 0 ? -EOPNOTSUPP : -EINVAL;
	return REC_EMULATED;
}

/* times(2) counts in USER_HZ (100) ticks since boot. */
enum rec_action rec_sys_times(struct rec *r, struct task *t, struct rec_call *c)
{
	const int64_t tick = HM_NS_PER_SEC / 100;
	struct tms tms = { (clock_t)(r->clock.now_ns / tick), 0, 0, 0 };
	long ticks = (long)((REC_BOOT_NS + r->clock.now_ns) / tick);

	if (c->args[0])
		return rec_reply_mem(t, c, c->args[0], &tms, sizeof(tms), ticks);
	c->ret = ticks;
	return REC_EMULATED;
}

/*
 * Resource usage as a fixed picture: a process has used the virtual time
 * as user time (as its CPU-time clocks say) and nothing else, and its
 * peak resident set is REC_MAXRSS_KB; no faults, context switches or
 * block I/O. A child's usage (RUSAGE_CHILDREN, wait4, waitid) has the same
 * peak and no time, as times(2)'s tms_cutime has none.
 */
static void usage(const struct rec *r, int self, struct rusage *ru)
{
	memset(ru, 0, sizeof(*ru));
	ru->ru_maxrss = REC_MAXRSS_KB;
	if (self) {
		ru->ru_utime.tv_sec = (time_t)(r->clock.now_ns / HM_NS_PER_SEC);
		ru->ru_utime.tv_usec = (suseconds_t)(r->clock.now_ns % HM_NS_PER_SEC / 1000);
	}
}

enum rec_action rec_sys_getrusage(struct rec *r, struct task *t, struct rec_call *c)
{
	int who = (int)c->args[0];
	struct rusage ru;

	if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN && who != RUSAGE_THREAD) {
		c->ret = -EINVAL;
		return REC_EMULATED;
	}
	usage(r, who != RUSAGE_CHILDREN, &ru);
	return rec_reply_mem(t, c, c->args[1], &ru, sizeof(ru), 0);
}

/* wait4 and waitid with a struct rusage (only those stop): the child's,
 * once one was waited for (wait4 returns its pid, waitid 0 with a pid in
 * its siginfo; WNOHANG with none ready writes zeros natively). */
void rec_sys_wait_exit(struct rec *r, struct task *t, struct rec_call *c)
{
	struct rusage ru;
	uint64_t addr = c->nr == SYS_wait4 ? c->args[3] : c->args[4];

	if (c->ret < 0 || (c->nr == SYS_wait4 && c->ret == 0))
		return;
	if (c->nr == SYS_waitid) {
		siginfo_t si;

		if (!c->args[2] || tracer_read_mem(t->tid, c->args[2], &si, sizeof(si)) < 0 ||
		    si.si_pid == 0)
			return;
	}
	usage(r, 0, &ru);
	tracer_write_mem(t->tid, addr, &ru, sizeof(ru));
}
