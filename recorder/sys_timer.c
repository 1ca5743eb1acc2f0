/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timers on the virtual clock: alarm, setitimer and getitimer for
 * ITIMER_REAL, and the POSIX timers of timer_create. A process has one
 * ITIMER_REAL (kernel/time/itimer.c); it survives exec and is not inherited
 * by fork, which keying it by thread group gives. POSIX timers are not
 * inherited either and die with exec (kernel/time/posix-timers.c). The
 * scheduler fires a timer when virtual time reaches it, at a scheduling
 * point, so its signal arrives at the same place on every run.
 * ITIMER_VIRTUAL and ITIMER_PROF count CPU time and are left to the kernel.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "internal.h"

static struct itimerval current(struct rec *r, const struct rec_timer *tm)
{
	struct itimerval v = { { 0, 0 }, { 0, 0 } };
	int64_t sec, nsec;

	if (tm->deadline >= 0) {
		int64_t left = tm->deadline - r->clock.now_ns;

		hm_ns_split(left > 0 ? left : 0, &sec, &nsec);
		v.it_value.tv_sec = (time_t)sec;
		v.it_value.tv_usec = (suseconds_t)(nsec / 1000);
		/* itimer_get_remtime(): due but not fired reads as 1 us */
		if (!sec && !v.it_value.tv_usec)
			v.it_value.tv_usec = 1;
	}
	hm_ns_split(tm->interval, &sec, &nsec);
	v.it_interval.tv_sec = (time_t)sec;
	v.it_interval.tv_usec = (suseconds_t)(nsec / 1000);
	return v;
}

/* Far-off times saturate, like the kernel's KTIME_MAX. */
static int64_t saturate(int64_t sec, int64_t nsec)
{
	if (sec > INT64_MAX / HM_NS_PER_SEC / 2)
		return INT64_MAX / 2;
	return sec * HM_NS_PER_SEC + nsec;
}

static int64_t tv_ns(const struct timeval *tv)
{
	return saturate(tv->tv_sec, (int64_t)tv->tv_usec * 1000);
}

static void arm(struct rec *r, struct rec_timer *tm, int64_t value, int64_t interval)
{
	tm->deadline = value > 0 ? r->clock.now_ns + value : -1;
	tm->interval = value > 0 ? interval : 0;
}

enum rec_action rec_sys_alarm(struct rec *r, struct task *t, struct rec_call *c)
{
	struct rec_timer *tm = rec_timer_get(r, t->tgid);
	struct itimerval old = current(r, tm);
	long secs = old.it_value.tv_sec;

	/* alarm_setitimer(): round to the nearest second, never 0 if armed */
	if ((!secs && old.it_value.tv_usec) || old.it_value.tv_usec >= 500000)
		secs++;
	arm(r, tm, (int64_t)(unsigned)c->args[0] * HM_NS_PER_SEC, 0);
	c->ret = secs;
	return REC_EMULATED;
}

enum rec_action rec_sys_setitimer(struct rec *r, struct task *t, struct rec_call *c)
{
	struct itimerval nv, old;
	struct rec_timer *tm;

	if ((int)c->args[0] != ITIMER_REAL)
		return REC_CONT;
	tm = rec_timer_get(r, t->tgid);
	if (!c->args[1] || tracer_read_mem(t->tid, c->args[1], &nv, sizeof(nv)) < 0) {
		c->ret = -EFAULT;
		return REC_EMULATED;
	}
	if (nv.it_value.tv_usec < 0 || nv.it_value.tv_usec >= 1000000 || nv.it_value.tv_sec < 0 ||
	    nv.it_interval.tv_usec < 0 || nv.it_interval.tv_usec >= 1000000 ||
	    nv.it_interval.tv_sec < 0) {
		c->ret = -EINVAL;
		return REC_EMULATED;
	}
	old = current(r, tm);
	if (c->args[2] && tracer_write_mem(t->tid, c->args[2], &old, sizeof(old)) < 0) {
		c->ret = -EFAULT;
		return REC_EMULATED;
	}
	arm(r, tm, tv_ns(&nv.it_value), tv_ns(&nv.it_interval));
	c->ret = 0;
	return REC_EMULATED;
}

enum rec_action rec_sys_getitimer(struct rec *r, struct task *t, struct rec_call *c)
{
	struct itimerval v;

	if ((int)c->args[0] != ITIMER_REAL)
		return REC_CONT;
	v = current(r, rec_timer_get(r, t->tgid));
	return rec_reply_mem(t, c, c->args[1], &v, sizeof(v), 0);
}

/* ---- POSIX timers ---- */

static struct rec_timer *posix_find(struct rec *r, pid_t tgid, int id)
{
	for (size_t i = 0; i < r->ntimers; i++) {
		if (r->timers[i].kind == REC_TIMER_POSIX && r->timers[i].tgid == tgid &&
		    r->timers[i].id == id)
			return &r->timers[i];
	}
	return NULL;
}

static pid_t host_tid(struct rec *r, pid_t tgid, pid_t vtid)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i]->tgid == tgid && r->tasks[i]->vtid == vtid)
			return r->tasks[i]->tid;
	}
	return 0;
}

enum rec_action rec_sys_timer_create(struct rec *r, struct task *t, struct rec_call *c)
{
	long clockid = (long)(int)c->args[0];
	struct rec_timer tm;
	struct sigevent ev;
	int64_t ns;
	int id = 0;

	if (rec_clock_read(&r->clock, clockid, &ns) < 0) {
		c->ret = -EINVAL;
		return REC_EMULATED;
	}
	memset(&tm, 0, sizeof(tm));
	tm.tgid = t->tgid;
	tm.kind = REC_TIMER_POSIX;
	tm.deadline = -1;
	tm.clockid = clockid;
	if (c->args[1]) {
		if (tracer_read_mem(t->tid, c->args[1], &ev, sizeof(ev)) < 0) {
			c->ret = -EFAULT;
			return REC_EMULATED;
		}
		tm.notify = ev.sigev_notify;
		tm.signo = ev.sigev_signo;
		memcpy(&tm.value, &ev.sigev_value, sizeof(ev.sigev_value));
		if (tm.notify == SIGEV_THREAD_ID) {
			tm.target = host_tid(r, t->tgid, ev._sigev_un._tid);
			if (!tm.target) {
				c->ret = -EINVAL;
				return REC_EMULATED;
			}
		} else if (tm.notify != SIGEV_SIGNAL && tm.notify != SIGEV_NONE) {
			c->ret = -EINVAL;
			return REC_EMULATED;
		}
		if (tm.notify != SIGEV_NONE && (tm.signo <= 0 || tm.signo > 64)) {
			c->ret = -EINVAL;
			return REC_EMULATED;
		}
	} else {
		tm.notify = SIGEV_SIGNAL;
		tm.signo = SIGALRM;
	}
	while (posix_find(r, t->tgid, id))
		id++;
	tm.id = id;
	if (!c->args[1])
		tm.value = (uint64_t)id; /* sigev_value.sival_int = the timer id */
	if (tracer_write_mem(t->tid, c->args[2], &id, sizeof(id)) < 0) {
		c->ret = -EFAULT;
		return REC_EMULATED;
	}
	r->timers = xrealloc(r->timers, (r->ntimers + 1) * sizeof(*r->timers));
	r->timers[r->ntimers++] = tm;
	c->ret = 0;
	return REC_EMULATED;
}

struct itimerspec rec_timer_current(struct rec *r, const struct rec_timer *tm)
{
	struct itimerspec v;
	int64_t sec, nsec;

	memset(&v, 0, sizeof(v));
	if (tm->deadline >= 0) {
		hm_ns_split(tm->deadline > r->clock.now_ns ? tm->deadline - r->clock.now_ns : 1,
			    &sec, &nsec);
		v.it_value.tv_sec = (time_t)sec;
		v.it_value.tv_nsec = (long)nsec;
	}
	hm_ns_split(tm->interval, &sec, &nsec);
	v.it_interval.tv_sec = (time_t)sec;
	v.it_interval.tv_nsec = (long)nsec;
	return v;
}

static int valid_ts(const struct timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < HM_NS_PER_SEC;
}

long rec_timer_settime(struct rec *r, struct task *t, struct rec_timer *tm, int absolute,
		       uint64_t new_addr, uint64_t old_addr)
{
	struct itimerspec nv, old;
	int64_t value, now;

	if (tracer_read_mem(t->tid, new_addr, &nv, sizeof(nv)) < 0)
		return -EFAULT;
	if (!valid_ts(&nv.it_value) || !valid_ts(&nv.it_interval))
		return -EINVAL;
	old = rec_timer_current(r, tm);
	if (old_addr && tracer_write_mem(t->tid, old_addr, &old, sizeof(old)) < 0)
		return -EFAULT;
	value = saturate(nv.it_value.tv_sec, nv.it_value.tv_nsec);
	tm->interval = saturate(nv.it_interval.tv_sec, nv.it_interval.tv_nsec);
	if (value == 0) {
		tm->deadline = -1;
	} else if (absolute) {
		rec_clock_read(&r->clock, tm->clockid, &now);
		tm->deadline = r->clock.now_ns + (value > now ? value - now : 0);
	} else {
		tm->deadline = r->clock.now_ns + value;
	}
	return 0;
}

enum rec_action rec_sys_timer_settime(struct rec *r, struct task *t, struct rec_call *c)
{
	struct rec_timer *tm = posix_find(r, t->tgid, (int)c->args[0]);

	c->ret =
		tm ? rec_timer_settime(r, t, tm, c->args[1] & TIMER_ABSTIME, c->args[2], c->args[3])
		   : -EINVAL;
	return REC_EMULATED;
}

enum rec_action rec_sys_timer_gettime(struct rec *r, struct task *t, struct rec_call *c)
{
	struct rec_timer *tm = posix_find(r, t->tgid, (int)c->args[0]);
	struct itimerspec v;

	if (!tm) {
		c->ret = -EINVAL;
		return REC_EMULATED;
	}
	v = rec_timer_current(r, tm);
	return rec_reply_mem(t, c, c->args[1], &v, sizeof(v), 0);
}

enum rec_action rec_sys_timer_getoverrun(struct rec *r, struct task *t, struct rec_call *c)
{
	/* Overruns collapse into one signal and are not counted. */
	c->ret = posix_find(r, t->tgid, (int)c->args[0]) ? 0 : -EINVAL;
	return REC_EMULATED;
}

static void timer_remove(struct rec *r, struct rec_timer *tm)
{
	size_t i = (size_t)(tm - r->timers);

	memmove(&r->timers[i], &r->timers[i + 1], (r->ntimers - i - 1) * sizeof(*r->timers));
	r->ntimers--;
}

enum rec_action rec_sys_timer_delete(struct rec *r, struct task *t, struct rec_call *c)
{
	struct rec_timer *tm = posix_find(r, t->tgid, (int)c->args[0]);

	if (!tm) {
		c->ret = -EINVAL;
		return REC_EMULATED;
	}
	timer_remove(r, tm);
	c->ret = 0;
	return REC_EMULATED;
}

void rec_timers_exec(struct rec *r, pid_t tgid)
{
	for (size_t i = r->ntimers; i-- > 0;) {
		if (r->timers[i].kind == REC_TIMER_POSIX && r->timers[i].tgid == tgid)
			timer_remove(r, &r->timers[i]);
	}
}

void rec_timer_fire(struct rec *r, struct rec_timer *tm)
{
	int64_t now = r->clock.now_ns;

	if (tm->kind == REC_TIMER_FD) {
		rec_timerfd_fire(r, tm);
		return;
	}
	if (tm->kind == REC_TIMER_ITIMER) {
		hm_trace("SIGALRM to process %d", tm->tgid);
		rec_send_signal(r, tm->tgid, SIGALRM);
	} else if (tm->notify != SIGEV_NONE) {
		siginfo_t info;

		/* What the kernel's timer would queue (posix_timer_event). */
		memset(&info, 0, sizeof(info));
		info.si_signo = tm->signo;
		info.si_code = SI_TIMER;
		info.si_timerid = tm->id;
		info.si_overrun = 0;
		memcpy(&info.si_value, &tm->value, sizeof(tm->value));
		hm_trace("timer %d of process %d: signal %d", tm->id, tm->tgid, tm->signo);
		if (tm->notify == SIGEV_THREAD_ID)
			syscall(SYS_rt_tgsigqueueinfo, tm->tgid, tm->target, tm->signo, &info);
		else if (syscall(SYS_rt_sigqueueinfo, tm->tgid, tm->signo, &info) == 0)
			r->shared_sent = 1;
	}
	tm->deadline = tm->interval ? tm->deadline + tm->interval : -1;
	if (tm->interval && tm->deadline <= now)
		tm->deadline = now + tm->interval; /* overruns collapse into one signal */
}
