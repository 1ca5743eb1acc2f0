/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * poll, ppoll, select, pselect6, epoll_wait, epoll_pwait, epoll_pwait2 and
 * rt_sigtimedwait with a finite timeout. The kernel would measure the timeout on the real
 * clock; instead the call runs with a zero timeout. If something is ready
 * it returns as it is. If not, the call is wound back (rip on its syscall
 * instruction again) and the task waits: it is retried once something has
 * happened, and returns 0 when virtual time reaches the deadline. Calls
 * with no timeout or a zero one need no help: they block or not in the
 * kernel and the block watch parks them.
 *
 * When a log is kept, a call that watches the outside (hermit's own stdin,
 * a terminal, the host network: capture.c) stops at its exit too, and its
 * results (revents, fd_sets, epoll events) go in the log. A replay does
 * not run such a call: the kernel skips it and the log answers, at the
 * same point of the schedule. One with no timeout may have waited in the
 * recording while other threads ran: until the log's next event is its
 * own, the replay parks it as the recording did.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "internal.h"

/* poll sets larger than this keep no revents in a log. */
#define LOG_POLLFDS_MAX 4096

/* Timeouts past this many seconds (about a century) are the same as this. */
#define HUGE_SEC (100LL * 365 * 86400)

/* Where a call keeps its timeout. */
struct timeout_arg {
	int index;     /* argument number */
	int kind;      /* 0: int milliseconds, 1: struct timespec *, 2: struct timeval * */
	int read_only; /* the kernel never writes the time left back */
};

static int timeout_arg(long nr, struct timeout_arg *a)
{
	switch (nr) {
	case SYS_poll:
		*a = (struct timeout_arg){ 2, 0, 0 };
		return 0;
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
		*a = (struct timeout_arg){ 3, 0, 0 };
		return 0;
	case SYS_ppoll:
		*a = (struct timeout_arg){ 2, 1, 0 };
		return 0;
	case SYS_pselect6:
		*a = (struct timeout_arg){ 4, 1, 0 };
		return 0;
	case SYS_epoll_pwait2:
		*a = (struct timeout_arg){ 3, 1, 1 };
		return 0;
	case SYS_select:
		*a = (struct timeout_arg){ 4, 2, 0 };
		return 0;
	case SYS_rt_sigtimedwait:
		*a = (struct timeout_arg){ 2, 1, 1 };
		return 0;
	default:
		return -ENOSYS;
	}
}

static uint64_t *reg_of(struct user_regs_struct *regs, int index)
{
	switch (index) {
	case 0:
		return (uint64_t *)&regs->rdi;
	case 1:
		return (uint64_t *)&regs->rsi;
	case 2:
		return (uint64_t *)&regs->rdx;
	case 3:
		return (uint64_t *)&regs->r10;
	case 4:
		return (uint64_t *)&regs->r8;
	default:
		return (uint64_t *)&regs->r9;
	}
}

/* The timeout in ns (-1: none), or -errno. */
static int read_timeout(struct task *t, const struct timeout_arg *a, uint64_t arg, int64_t *ns)
{
	if (a->kind == 0) {
		int ms = (int)arg;

		*ns = ms < 0 ? -1 : (int64_t)ms * 1000000;
		return 0;
	}
	if (!arg) {
		*ns = -1;
		return 0;
	}
	if (a->kind == 1) {
		struct timespec ts;

		if (tracer_read_mem(t->tid, arg, &ts, sizeof(ts)) < 0)
			return -EFAULT;
		if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= HM_NS_PER_SEC)
			return -EINVAL;
		*ns = ts.tv_sec > HUGE_SEC ? HUGE_SEC * HM_NS_PER_SEC
					   : ts.tv_sec * HM_NS_PER_SEC + ts.tv_nsec;
	} else {
		struct timeval tv;

		if (tracer_read_mem(t->tid, arg, &tv, sizeof(tv)) < 0)
			return -EFAULT;
		/* kern_select() folds whole seconds out of tv_usec */
		if (tv.tv_sec < 0 || tv.tv_usec < 0)
			return -EINVAL;
		*ns = tv.tv_sec > HUGE_SEC || tv.tv_usec / 1000000 > HUGE_SEC
			      ? HUGE_SEC * HM_NS_PER_SEC
			      : (tv.tv_sec + tv.tv_usec / 1000000) * HM_NS_PER_SEC +
					(int64_t)(tv.tv_usec % 1000000) * 1000;
	}
	return 0;
}

/* Store NS as the call's timeout (the time left, for the pointer kinds). */
static int write_timeout(struct task *t, const struct timeout_arg *a, uint64_t arg, int64_t ns)
{
	int64_t sec, nsec;

	hm_ns_split(ns, &sec, &nsec);
	if (a->kind == 1) {
		struct timespec ts = { (time_t)sec, (long)nsec };

		return tracer_write_mem(t->tid, arg, &ts, sizeof(ts));
	}
	if (a->kind == 2) {
		struct timeval tv = { (time_t)sec, (suseconds_t)(nsec / 1000) };

		return tracer_write_mem(t->tid, arg, &tv, sizeof(tv));
	}
	return 0;
}

/* select's fd_sets: bytes per set of call C (0: not a select). */
static size_t set_bytes(const struct rec_call *c)
{
	int nfds = (int)c->args[0];

	if ((c->nr != SYS_select && c->nr != SYS_pselect6) || nfds <= 0 ||
	    nfds > REC_SELECT_FDS_MAX)
		return 0;
	return (size_t)(nfds + 63) / 64 * 8;
}

static void save_sets(struct task *t, const struct rec_call *c)
{
	size_t n = set_bytes(c);

	if (3 * n > t->poll_sets_cap) {
		t->poll_sets = xrealloc(t->poll_sets, 3 * n);
		t->poll_sets_cap = 3 * n;
	}
	for (int k = 0; k < 3 && n; k++) {
		if (c->args[k + 1] &&
		    tracer_read_mem(t->tid, c->args[k + 1], t->poll_sets + k * n, n) < 0)
			memset(t->poll_sets + k * n, 0, n);
	}
}

/* Put the saved sets back (CLEAR: zeros, as a select that timed out). */
static void put_sets(struct task *t, const struct rec_call *c, int clear)
{
	static const unsigned char zeros[REC_SELECT_FDS_MAX / 8];
	size_t n = set_bytes(c);

	if (!clear && 3 * n > t->poll_sets_cap)
		return; /* none saved */
	for (int k = 0; k < 3 && n; k++) {
		if (c->args[k + 1])
			tracer_write_mem(t->tid, c->args[k + 1],
					 clear ? zeros : t->poll_sets + k * n, n);
	}
}

int rec_poll_mask(const struct task *t, uint64_t *mask)
{
	const uint64_t *a = t->call.args;
	uint64_t at = 0, size = 0, m[2];

	switch (t->call.nr) {
	case SYS_ppoll:
		at = a[3];
		size = a[4];
		break;
	case SYS_pselect6: /* a pointer to { const sigset_t *ss; size_t ss_len; } */
		if (a[5] && tracer_read_mem(t->tid, a[5], m, sizeof(m)) == 0) {
			at = m[0];
			size = m[1];
		}
		break;
	case SYS_epoll_pwait:
	case SYS_epoll_pwait2:
		at = a[4];
		size = a[5];
		break;
	default:
		return 0;
	}
	/* The kernel's set_user_sigmask(): none, or EINVAL for another size. */
	if (!at || size != sizeof(*mask) || tracer_read_mem(t->tid, at, mask, sizeof(*mask)) < 0)
		return 0;
	*mask &= ~((1ULL << (SIGKILL - 1)) | (1ULL << (SIGSTOP - 1)));
	return 1;
}

/* The timeout a retry of T's timed call is made with: none (0), unless
 * it is an epoll_pwait whose own mask lets a pending signal through. Then
 * the smallest that is not zero: ep_poll() looks at signals only when it
 * may sleep, and returns EINTR before it does (fs/eventpoll.c), where
 * poll and select look with a zero timeout too. */
static int64_t retry_timeout(struct task *t, const struct rec_call *c, const struct timeout_arg *a)
{
	uint64_t mask;

	if ((c->nr != SYS_epoll_pwait && c->nr != SYS_epoll_pwait2) || !rec_poll_mask(t, &mask) ||
	    !rec_signal_pending(t->tid, &mask))
		return 0;
	return a->kind == 0 ? 1000000 : 1;
}

long rec_poll_timeout_result(long nr)
{
	return nr == SYS_rt_sigtimedwait ? -EAGAIN : 0;
}

/* Give the caller its timeout back: the register as it was; the struct as
 * it was for calls that treat it as read-only, else the time left. */
static void finish(struct rec *r, struct task *t, const struct timeout_arg *a,
		   struct user_regs_struct *regs)
{
	if (a->kind == 0)
		*reg_of(regs, a->index) = t->poll_arg;
	else if (a->read_only)
		tracer_write_mem(t->tid, t->poll_arg, t->poll_orig,
				 a->kind == 1 ? sizeof(struct timespec) : sizeof(struct timeval));
	else
		write_timeout(t, a, t->poll_arg,
			      t->poll_deadline > r->clock.now_ns
				      ? t->poll_deadline - r->clock.now_ns
				      : 0);
}

void rec_poll_interrupted(struct rec *r, struct task *t, struct user_regs_struct *regs)
{
	struct timeout_arg a;

	/* core_sys_select() leaves the sets as given on EINTR: they are. */
	if (timeout_arg(t->call.nr, &a) == 0)
		finish(r, t, &a, regs);
	t->poll_retry = 0;
}

void rec_poll_timed_out(struct rec *r, struct task *t, struct user_regs_struct *regs)
{
	struct timeout_arg a;

	if (timeout_arg(t->call.nr, &a) == 0)
		finish(r, t, &a, regs);
	put_sets(t, &t->call, 1); /* nothing ready: select clears them */
}

int rec_poll_regions(const struct rec_call *c, long ret, uint64_t addr[3], size_t len[3])
{
	int nfds = (int)c->args[0], k = 0;

	if (ret < 0)
		return 0;
	switch (c->nr) {
	case SYS_poll:
	case SYS_ppoll:
		if (!c->args[0] || c->args[1] > LOG_POLLFDS_MAX)
			return 0;
		addr[0] = c->args[0];
		len[0] = c->args[1] * sizeof(struct pollfd);
		return 1;
	case SYS_select:
	case SYS_pselect6:
		if (nfds <= 0 || nfds > REC_SELECT_FDS_MAX)
			return 0;
		for (int i = 1; i <= 3; i++) {
			if (c->args[i]) {
				addr[k] = c->args[i];
				len[k++] = (size_t)(nfds + 63) / 64 * 8;
			}
		}
		return k;
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
	case SYS_epoll_pwait2:
		if (ret == 0 || (uint64_t)ret > (uint64_t)(int)c->args[2])
			return 0;
		addr[0] = c->args[1];
		len[0] = (size_t)ret * sizeof(struct epoll_event);
		return 1;
	default:
		return 0;
	}
}

/* A call that watches the outside, when a log is kept: see its exit (and
 * in a replay, let the kernel skip it: the log answers). */
static enum rec_action outside_stop(struct rec *r, struct task *t, struct rec_call *c)
{
	if (r->opts->mode == REC_MODE_REPLAY) {
		c->regs.orig_rax = (uint64_t)-1;
		tracer_set_regs(t->tid, &c->regs);
		/* With no timeout it may have waited while others ran: then it
		 * is parked at its exit, as a read from outside is (capture.c). */
		t->not_yet = t->poll_outside == POLL_BLOCKS && rec_replay_not_next(r, t);
	}
	return REC_EXIT_STOP;
}

enum rec_action rec_sys_poll(struct rec *r, struct task *t, struct rec_call *c)
{
	struct timeout_arg a;
	int64_t ns;

	if (timeout_arg(c->nr, &a) < 0)
		return REC_CONT;
	t->poll_outside =
		r->opts->mode != REC_MODE_RUN &&
				rec_poll_watches(r, t->tid, c->nr, c->args, rec_fd_from_outside) > 0
			? POLL_OUTSIDE
			: POLL_INSIDE;
	if (!t->poll_retry) {
		t->poll_timed = 0;
		if (read_timeout(t, &a, c->args[a.index], &ns) < 0) {
			t->poll_outside = POLL_INSIDE; /* the kernel says what is wrong */
			return REC_CONT;
		}
		if (ns <= 0) {
			/* blocking for ever, or not at all */
			if (t->poll_outside == POLL_INSIDE)
				return REC_CONT;
			if (ns < 0)
				t->poll_outside = POLL_BLOCKS;
			return outside_stop(r, t, c);
		}
		t->poll_timed = 1;
		save_sets(t, c);
		t->poll_arg = c->args[a.index];
		t->poll_deadline = r->clock.now_ns + ns;
		if (a.kind != 0 &&
		    tracer_read_mem(t->tid, t->poll_arg, t->poll_orig, sizeof(t->poll_orig)) < 0)
			return REC_CONT;
	}
	t->poll_retry = 0;
	ns = retry_timeout(t, c, &a);
	if (a.kind == 0) {
		*reg_of(&c->regs, a.index) = (uint64_t)(ns / 1000000);
		tracer_set_regs(t->tid, &c->regs);
	} else if (write_timeout(t, &a, t->poll_arg, ns) < 0) {
		return REC_CONT;
	}
	return t->poll_outside ? outside_stop(r, t, c) : REC_EXIT_STOP;
}

struct dups {
	pid_t tgid;
	struct pollfd *out;
	int n, max;
};

static int add_dup(void *ctx, int fd, short events)
{
	struct dups *d = ctx;

	if ((d->out[d->n].fd = rec_dup_guest_fd(d->tgid, fd)) >= 0)
		d->out[d->n++].events = events;
	return d->n == d->max;
}

/* The descriptors call C of T watches, duplicated into hermit, as a pollfd
 * set of at most MAX (epoll: the instance itself): how many. */
static int dup_watched(struct task *t, const struct rec_call *c, struct pollfd *out, int max)
{
	struct dups d = { t->tgid, out, 0, max };

	if (c->nr == SYS_epoll_wait || c->nr == SYS_epoll_pwait || c->nr == SYS_epoll_pwait2) {
		add_dup(&d, (int)c->args[0], POLLIN);
		return d.n;
	}
	rec_poll_each(t->tid, c->nr, c->args, add_dup, &d);
	return d.n;
}

int rec_poll_wait_outside(struct task *t, int64_t ns)
{
	struct pollfd fds[64];
	int n = dup_watched(t, &t->call, fds, 64), ready = 0;
	struct timespec now;
	int64_t end;

	clock_gettime(CLOCK_MONOTONIC, &now);
	end = (int64_t)now.tv_sec * HM_NS_PER_SEC + now.tv_nsec + ns;
	tracer_blockwatch_set(0); /* nothing runs: no spin to watch for */
	while (n > 0) {
		int64_t left, ms;
		int got;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = end - ((int64_t)now.tv_sec * HM_NS_PER_SEC + now.tv_nsec);
		if (left <= 0)
			break;
		ms = (left + 999999) / 1000000;
		got = poll(fds, (nfds_t)n, ms > INT_MAX ? INT_MAX : (int)ms);
		if (got > 0) {
			ready = 1;
			break;
		}
		/* hermit's own signals: go on waiting, unless --timeout is up */
		if (got == 0 || errno != EINTR || tracer_blockwatch_expired())
			break;
	}
	for (int i = 0; i < n; i++)
		close(fds[i].fd);
	return ready;
}

void rec_sys_poll_exit(struct rec *r, struct task *t, struct rec_call *c)
{
	struct user_regs_struct regs;
	struct timeout_arg a;
	int64_t deadline = t->poll_deadline;

	if (!t->poll_timed || timeout_arg(c->nr, &a) < 0 || tracer_get_regs(t->tid, &regs) < 0)
		return; /* untimed: as it returned */
	/* Nothing yet: 0 ready descriptors, or no signal (EAGAIN) for sigtimedwait. */
	if (c->ret != rec_poll_timeout_result(c->nr) || r->clock.now_ns >= deadline) {
		finish(r, t, &a, &regs);
		regs.rax = (uint64_t)c->ret;
		if (a.kind == 0)
			tracer_set_regs(t->tid, &regs);
		return;
	}
	/* Nothing ready yet: wind the call back and wait, with select's sets
	 * as they were given (the kernel cleared them). */
	put_sets(t, c, 0);
	regs.rip -= 2;
	regs.rax = (uint64_t)c->nr;
	tracer_set_regs(t->tid, &regs);
	t->call.regs = regs;
	/* A handled signal ends the wait with EINTR (do_sys_poll(),
	 * core_sys_select(), ep_poll(), do_sigtimedwait()): signal(7). */
	rec_intr_set(t, &regs, c->nr, -REC_ERESTARTNOHAND, 1);
	t->intr_poll = 1;
	rec_parked_save(t); /* retried with the array or sets it entered with */
	rec_block(r, t, WAIT_POLL, deadline);
	t->parked_at = r->progress;
}

enum rec_action rec_sys_sched_yield(struct rec *r, struct task *t, struct rec_call *c)
{
	(void)c;
	/* Let everyone else who can run go first (sched_yield(2)). */
	t->yielded = 1;
	r->slice = REC_SLICE;
	return REC_CONT;
}
