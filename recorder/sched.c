/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The scheduler (DESIGN.md "Serialization", "Blocking").
 *
 * Exactly one guest task runs. When it blocks, waits or ends, the next one
 * is chosen, in this order, which depends only on what the guest did:
 *
 *  1. the run queue: tasks made ready, first in first out;
 *  2. parked tasks and timed polls that something has happened since,
 *     in creation order, to retry their call;
 *  3. waiting tasks with a signal pending: their wait ends with EINTR;
 *  4. the earliest deadline (a sleep, a futex or poll timeout, an alarm):
 *     virtual time jumps to it;
 *  5. parked tasks that wait on the outside world (a terminal, a pipe
 *     from outside, the host network), retried in turn every few ms;
 *  6. nothing: a deadlock. Every thread is reported and the run ends (121).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "internal.h"

struct task *rec_task_find(struct rec *r, pid_t tid)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i]->tid == tid)
			return r->tasks[i];
	}
	return NULL;
}

struct task *rec_task_add(struct rec *r, pid_t tid)
{
	struct task *t = xcalloc(1, sizeof(*t));

	t->tid = tid;
	t->tgid = tid;
	t->vtid = tid;
	t->index = -1;
	t->sig_target = -1;
	t->system = -1; /* unknown until its parent's event */
	t->state = TASK_NEW;
	t->deadline = -1;
	if (r->ntasks == r->cap_tasks) {
		r->cap_tasks = r->cap_tasks ? r->cap_tasks * 2 : 16;
		r->tasks = xrealloc(r->tasks, r->cap_tasks * sizeof(*r->tasks));
	}
	r->tasks[r->ntasks++] = t;
	return t;
}

static void runq_remove(struct rec *r, struct task *t)
{
	for (size_t i = 0; i < r->runq_len; i++) {
		if (r->runq[i] == t) {
			memmove(&r->runq[i], &r->runq[i + 1],
				(r->runq_len - i - 1) * sizeof(*r->runq));
			r->runq_len--;
			return;
		}
	}
}

void rec_task_remove(struct rec *r, struct task *t)
{
	runq_remove(r, t);
	if (t->doomed)
		r->ndoomed--;
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i] == t) {
			memmove(&r->tasks[i], &r->tasks[i + 1],
				(r->ntasks - i - 1) * sizeof(*r->tasks));
			r->ntasks--;
			if (r->rr > i)
				r->rr--;
			break;
		}
	}
	if (r->running == t) {
		r->running = NULL;
		tracer_blockwatch_set(0);
	}
	rec_parked_free(t);
	free(t->poll_sets);
	rec_fifo_drop(t);
	free(t);
}

void rec_task_rename(struct rec *r, struct task *t)
{
	if (r->running == t)
		tracer_blockwatch_set(t->tid);
}

void rec_make_ready(struct rec *r, struct task *t)
{
	t->state = TASK_READY;
	t->wait = WAIT_NONE;
	runq_remove(r, t);
	if (r->runq_len == r->runq_cap) {
		r->runq_cap = r->runq_cap ? r->runq_cap * 2 : 16;
		r->runq = xrealloc(r->runq, r->runq_cap * sizeof(*r->runq));
	}
	r->runq[r->runq_len++] = t;
}

/* The run a debugger drives, if any (one per hermit process). */
static struct rec *debugged;

void rec_debug_attach(struct rec *r)
{
	debugged = r;
}

int rec_debug_stop(struct rec *r, struct task *t)
{
	const struct rec_debugger *d = r->opts->debugger;
	struct rec_dbg_thread *threads = xcalloc(r->ntasks + 1, sizeof(*threads));
	struct rec_dbg_stop st = { r, t->tid, t->tgid, t->index, r->frames, threads, 0 };
	enum rec_dbg_go go;

	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *x = r->tasks[i];

		if (x->system || x->state == TASK_EXITING || !x->stopped_once)
			continue;
		threads[st.nthreads].tid = x->tid;
		threads[st.nthreads].tgid = x->tgid;
		threads[st.nthreads].vtid = x->vtid;
		threads[st.nthreads].index = x->index;
		threads[st.nthreads].ticks = x->tick_count;
		st.nthreads++;
	}
	/* (The debugger holds the block watch while it waits for its user:
	 * setting it here, at every stop of a single-stepping search, woke
	 * the watch thread each time, which cost the steps more than they
	 * cost themselves.) */
	go = d->stopped(d->ctx, &st);
	free(threads);
	r->dbg_step = go == REC_DBG_STEP || go == REC_DBG_STEP_ALL ? t->tid : 0;
	r->dbg_stop_next = go == REC_DBG_NEXT || go == REC_DBG_STEP_ALL;
	if (go == REC_DBG_KILL) {
		rec_end_run(r, HM_EXIT_INTERNAL);
		r->diverged = 1; /* ended on purpose: nothing to compare */
		return -1;
	}
	return 0;
}

int rec_resume(struct task *t, enum resume_mode mode, int sig)
{
	int err;

	/* Unless this resume makes its parked call again (parkargs.c). */
	if (!t->parked_keep)
		rec_parked_restore(t);
	t->parked_keep = 0;
	if (debugged && !t->system && mode == RESUME_CONT && !sig)
		rec_cp_offer(debugged, t);
	else if (debugged && !t->system)
		debugged->ran_since_event = 1;
	/* (The stepping task's own resumes do not count as "another's".) */
	if (debugged && !t->system &&
	    (debugged->dbg_pending == t ||
	     (debugged->dbg_stop_next && debugged->dbg_step != t->tid))) {
		debugged->dbg_pending = NULL;
		debugged->dbg_stop_next = 0;
		if (rec_debug_stop(debugged, t) < 0)
			return 0;
	}
	rec_ticks_resume(t);
	if (debugged && debugged->dbg_step == t->tid && mode == RESUME_CONT)
		err = tracer_step(t->tid, sig);
	else
		err = mode == RESUME_SYSCALL ? tracer_syscall(t->tid, sig)
					     : tracer_cont(t->tid, sig);

	/* ESRCH: it died under us; its exit is on its way to waitpid. */
	return err == -ESRCH ? 0 : err;
}

void rec_run_task(struct rec *r, struct task *t)
{
	runq_remove(r, t);
	t->state = TASK_RUNNING;
	t->wait = WAIT_NONE;
	r->running = t;
	r->slice = 0;
	rec_preempt_chosen(r, t);
	if (!t->stopped_once)
		return; /* resumed at its first stop, which is on its way */
	tracer_blockwatch_set(t->tid);
	rec_resume(t, t->resume, t->resume_sig);
	t->resume_sig = 0;
}

void rec_set_aside(struct rec *r, struct task *t, enum task_state state, enum resume_mode mode)
{
	t->resume = mode;
	rec_parked_restore(t);
	if (state == TASK_READY)
		rec_make_ready(r, t);
	else
		t->state = state;
	if (r->running == t) {
		r->running = NULL;
		tracer_blockwatch_set(0);
	}
}

void rec_block(struct rec *r, struct task *t, enum wait_kind kind, int64_t deadline)
{
	rec_set_aside(r, t, TASK_WAITING, RESUME_CONT);
	t->wait = kind;
	t->deadline = deadline;
	t->wait_seq = ++r->wait_seq;
}

void rec_wake(struct rec *r, struct task *t, long ret)
{
	struct user_regs_struct *regs = &t->call.regs;

	if (t->state != TASK_WAITING)
		return;
	if (t->wait == WAIT_POLL) {
		/* Stopped at the exit of a rewound call: a retry re-executes it;
		 * at the deadline, step past it with the result instead. */
		if (t->deadline >= 0 && r->clock.now_ns >= t->deadline) {
			rec_poll_timed_out(r, t, regs);
			rec_intr_clear(t);
			regs->rip += 2;
			regs->rax = (uint64_t)ret;
			t->poll_retry = 0;
			tracer_set_regs(t->tid, regs);
		} else {
			t->poll_retry = 1;
		}
	} else {
		/* Stopped at the entry of a call that must not run: skip it. */
		regs->orig_rax = (uint64_t)-1;
		regs->rax = (uint64_t)ret;
		tracer_set_regs(t->tid, regs);
	}
	t->deadline = -1;
	rec_make_ready(r, t);
}

void rec_park(struct rec *r, struct task *t)
{
	/* A task that ran may have done anything natively (written a pipe,
	 * sent on a socket). A retried call that blocks again did nothing. */
	if (!t->retrying)
		r->progress++;
	t->retrying = 0;
	t->outside = 0;
	t->parks++;
	t->parked_at = r->progress;
	rec_parked_save(t);
	hm_trace("task %d parked", t->index);
	rec_set_aside(r, t, TASK_PARKED, t->resume);
}

void rec_check_blocked(struct rec *r)
{
	struct task *t = r->running;
	long nr;

	if (!t || !t->stopped_once || !tracer_task_blocked(t->tid, &nr))
		return;
	if (r->opts->mode == REC_MODE_REPLAY && rec_replay_completes(r, t))
		return; /* the recording says its input came: it is on its way */
	/* Again if one was sent: an interrupt can be lost in a stop that
	 * single-steps or injects (tracer/sites.c, tracer/inject.c). */
	hm_trace("task %d blocked in syscall %ld", t->index, nr);
	if (tracer_interrupt(t->tid) == 0)
		t->wants_interrupt = 1;
}

struct rec_timer *rec_timer_get(struct rec *r, pid_t tgid)
{
	for (size_t i = 0; i < r->ntimers; i++) {
		if (r->timers[i].tgid == tgid && r->timers[i].kind == REC_TIMER_ITIMER)
			return &r->timers[i];
	}
	r->timers = xrealloc(r->timers, (r->ntimers + 1) * sizeof(*r->timers));
	memset(&r->timers[r->ntimers], 0, sizeof(r->timers[0]));
	r->timers[r->ntimers].tgid = tgid;
	r->timers[r->ntimers].deadline = -1;
	r->timers[r->ntimers].signo = SIGALRM;
	return &r->timers[r->ntimers++];
}

pid_t rec_vpid_of(const struct rec *r, const struct task *t)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i]->tid == t->tgid)
			return r->tasks[i]->vtid;
	}
	return t->vtid;
}

size_t rec_live_guests(const struct rec *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->ntasks; i++)
		n += r->tasks[i]->system != 1;
	return n;
}

static int process_alive(const struct rec *r, pid_t tgid)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i]->tgid == tgid && r->tasks[i]->system == 0)
			return 1;
	}
	return 0;
}

/* The earliest due event: a task's deadline or a timer's. */
int64_t rec_next_deadline(const struct rec *r)
{
	int64_t best = -1;

	for (size_t i = 0; i < r->ntasks; i++) {
		const struct task *t = r->tasks[i];

		if (t->state == TASK_WAITING && t->deadline >= 0 &&
		    (best < 0 || t->deadline < best))
			best = t->deadline;
	}
	for (size_t i = 0; i < r->ntimers; i++) {
		int64_t d = r->timers[i].deadline;

		if (d >= 0 && (best < 0 || d < best))
			best = d;
	}
	return best;
}

void rec_fire_due(struct rec *r)
{
	int64_t now = r->clock.now_ns;

	for (;;) {
		struct task *first = NULL;

		/* Deadlines in order of time, then of waiting. */
		for (size_t i = 0; i < r->ntasks; i++) {
			struct task *t = r->tasks[i];

			if (t->state != TASK_WAITING || t->deadline < 0 || t->deadline > now)
				continue;
			if (!first || t->deadline < first->deadline ||
			    (t->deadline == first->deadline && t->wait_seq < first->wait_seq))
				first = t;
		}
		if (!first)
			break;
		hm_trace("task %d: wait of kind %d timed out", first->index, first->wait);
		rec_wake(r, first,
			 first->wait == WAIT_FUTEX  ? -ETIMEDOUT
			 : first->wait == WAIT_POLL ? rec_poll_timeout_result(first->call.nr)
						    : 0);
		r->progress++;
	}
	for (size_t i = 0; i < r->ntimers; i++) {
		struct rec_timer *tm = &r->timers[i];

		if (tm->deadline >= 0 && tm->deadline <= now) {
			if (!process_alive(r, tm->tgid)) {
				tm->deadline = -1;
				continue;
			}
			rec_timer_fire(r, tm);
			r->progress++;
		}
	}
}

/* Signals whose default action is to do nothing (signal(7)), and those
 * whose default is to stop: a stopped sleep or wait goes on when
 * continued (restart_syscall), it does not end with EINTR. */
#define DEFAULT_IGNORED                                                                \
	((1ULL << (SIGCHLD - 1)) | (1ULL << (SIGURG - 1)) | (1ULL << (SIGWINCH - 1)) | \
	 (1ULL << (SIGCONT - 1)))
#define DEFAULT_STOP                                                                   \
	((1ULL << (SIGSTOP - 1)) | (1ULL << (SIGTSTP - 1)) | (1ULL << (SIGTTIN - 1)) | \
	 (1ULL << (SIGTTOU - 1)))

/*
 * Whether TID has a signal pending that would end a wait: not blocked, and
 * caught, or with a default action that does something. A traced task
 * queues even ignored signals (sig_ignored() keeps them for the tracer).
 */
/* Of QUEUED, what ST's task would take with BLOCKED (NULL: its own mask). */
static int would_take(const struct tracer_sigmasks *st, uint64_t queued, const uint64_t *blocked)
{
	uint64_t blk = blocked ? *blocked : st->blocked;

	return (queued & ~blk & (st->caught | (~st->ignored & ~DEFAULT_IGNORED & ~DEFAULT_STOP))) !=
	       0;
}

int rec_signal_pending(pid_t tid, const uint64_t *blocked)
{
	struct tracer_sigmasks st;

	return tracer_task_sigmasks(tid, &st) == 0 &&
	       would_take(&st, st.pending | st.shared, blocked);
}

static struct task *next_where(struct rec *r, int (*ok)(const struct rec *, const struct task *))
{
	for (size_t k = 1; k <= r->ntasks; k++) {
		size_t i = (r->rr + k) % r->ntasks;

		if (r->tasks[i]->system == 0 && ok(r, r->tasks[i])) {
			r->rr = i;
			return r->tasks[i];
		}
	}
	return NULL;
}

static int is_retryable(const struct rec *r, const struct task *t)
{
	return t->parked_at < r->progress &&
	       (t->state == TASK_PARKED || (t->state == TASK_WAITING && t->wait == WAIT_POLL));
}

static int is_interrupted(const struct rec *r, const struct task *t)
{
	uint64_t mask;

	(void)r;
	if (t->state != TASK_WAITING)
		return 0;
	/* A timed ppoll, pselect6 or epoll_pwait waits with its own mask. */
	if (t->wait == WAIT_POLL && rec_poll_mask(t, &mask))
		return rec_signal_pending(t->tid, &mask);
	return rec_signal_pending(t->tid, NULL);
}

/* Whether T is where a signal could be delivered once it is resumed. */
static int can_take(const struct task *t)
{
	return !t->system && t->stopped_once &&
	       (t->state == TASK_READY || t->state == TASK_PARKED || t->state == TASK_WAITING);
}

/* Whether T would take a signal of its process's shared queue: one it does
 * not block (a timed poll's own mask counts), and, as wants_signal() asks
 * of a thread that is not running, no signal of its own to take first. */
static int takes_shared_now(const struct task *t)
{
	struct tracer_sigmasks st;
	uint64_t mask;
	int poll_mask = t->state == TASK_WAITING && t->wait == WAIT_POLL && rec_poll_mask(t, &mask);
	const uint64_t *blocked = poll_mask ? &mask : NULL;

	return tracer_task_sigmasks(t->tid, &st) == 0 && would_take(&st, st.shared, blocked) &&
	       !would_take(&st, st.pending, blocked);
}

/* The thread of LEADER's process after index AFTER in thread order
 * (creation order, as the kernel's thread list), cyclically; NULL: none. */
static struct task *next_thread(struct rec *r, const struct task *leader, int after)
{
	struct task *first = NULL, *next = NULL;

	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *t = r->tasks[i];

		if (t->system || t->tgid != leader->tgid || t->index < 0 ||
		    t->state == TASK_EXITING)
			continue;
		if (!first || t->index < first->index)
			first = t;
		if (t->index > after && (!next || t->index < next->index))
			next = t;
	}
	return next ? next : first;
}

/*
 * A process-directed signal (a guest's kill() of its own or another guest
 * process, a timer's SIGALRM, one from outside that hermit held back)
 * waits in the process's shared queue: every thread of it was in a ptrace
 * stop when it came, and the kernel gives such a signal to no stopped
 * thread (wants_signal()). The first thread resumed that does not block it
 * would take it, often a parked one retried first, which ends its call
 * with EINTR. Natively complete_signal() (kernel/signal.c) gives it to the
 * thread-group leader when the leader takes it, else to the first thread,
 * from signal->curr_target on in thread order, that takes it, which
 * becomes curr_target (the main thread blocks the signal: the worker the
 * last one went to gets the next one too, while it takes them). So that
 * thread runs first: the thread to run, or NULL for the usual order.
 * Not covered: the sender itself, running, takes a signal it does not
 * block at its return from kill(), where natively another thread may.
 */
static struct task *signal_taker(struct rec *r)
{
	if (!r->shared_sent)
		return NULL;
	r->shared_sent = 0;
	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *l = r->tasks[i], *t, *start;
		struct tracer_sigmasks st;

		if (l->system || l->tid != l->tgid || !l->stopped_once ||
		    tracer_task_sigmasks(l->tid, &st) < 0 || !st.shared)
			continue;
		if (can_take(l) && takes_shared_now(l)) {
			r->shared_sent = 1; /* the next one's turn after this one */
			return l;
		}
		/* from curr_target on (one that exited: the thread after it) */
		start = next_thread(r, l, (l->sig_target >= 0 ? l->sig_target : l->index) - 1);
		t = start;
		while (t) {
			if (t != l && can_take(t) && takes_shared_now(t)) {
				hm_trace("task %d takes the signal its process's leader blocks",
					 t->index);
				l->sig_target = t->index;
				r->shared_sent = 1;
				return t;
			}
			t = next_thread(r, l, t->index);
			if (t == start)
				break;
		}
	}
	return NULL;
}

static int is_outside(const struct rec *r, const struct task *t)
{
	return t->state == TASK_PARKED && rec_waits_outside(r, t);
}

/*
 * Before calling it a deadlock, give the kernel time to finish what it
 * does asynchronously for the guest (loopback packets are delivered by a
 * softirq that may run in ksoftirqd, after the sender's syscall returned)
 * and retry every parked task, a few times. Returns 1 to retry.
 */
static int settle(struct rec *r)
{
	struct timespec ts = { 0, 20000000 };

	if (r->progress != r->settle_progress) {
		r->settle_progress = r->progress;
		r->settle_rounds = 0;
	}
	if (r->settle_rounds >= 3)
		return 0;
	r->settle_rounds++;
	nanosleep(&ts, NULL);
	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *t = r->tasks[i];

		if (t->state == TASK_PARKED && t->parked_at)
			t->parked_at = r->progress - 1;
	}
	return 1;
}

/*
 * Nothing can run, and virtual time would jump to DUE. When that is the
 * deadline of a poll-family call that watches the outside (a `read -t 5`
 * on a terminal, a select on a socket with a timeout), the outside gets
 * that long in real time first: input that comes in time makes the call
 * ready, as it would natively, instead of its timeout. Which way it went
 * is an event, so a replay (which does not wait) goes the same way.
 * 1 when the call was woken to be made again.
 */
static int outside_first(struct rec *r, int64_t due)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *t = r->tasks[i];
		struct rec_call ev = { .nr = -5 };
		int ready;

		if (t->state != TASK_WAITING || t->wait != WAIT_POLL || t->deadline != due ||
		    due <= r->clock.now_ns)
			continue;
		if (r->opts->mode == REC_MODE_REPLAY) {
			/* The log says; nothing on this host is looked at. */
			const struct rec_event_record *want;
			const unsigned char *p;
			size_t n;

			ready = !r->diverged &&
				r->opts->source->peek(r->opts->source->ctx, &want, &p, &n) > 0 &&
				REC_EV_KIND(want) == REC_EV_READY && REC_EV_TASK(want) == t->index;
		} else {
			/* The outside as a recording sees it (capture.c), so that
			 * what is waited for is also what the log answers. */
			if (!(r->opts->mode == REC_MODE_RECORD
				      ? t->poll_outside != POLL_INSIDE
				      : rec_poll_watches(r, t->tid, t->call.nr, t->call.args,
							 rec_fd_from_outside) > 0))
				continue;
			ready = rec_poll_wait_outside(t, due - r->clock.now_ns);
		}
		if (!ready)
			return 0;
		hm_trace("task %d: the outside is ready before the timeout", t->index);
		rec_digest_event(r, t, &ev, REC_EV_READY);
		rec_wake(r, t, 0);
		r->progress++;
		return 1;
	}
	return 0;
}

/* Run a parked task again, following its call to see whether it ends. */
static void retry(struct rec *r, struct task *t)
{
	if (t->state == TASK_WAITING) {
		rec_wake(r, t, 0); /* a timed poll: re-executed from its seccomp stop */
	} else {
		t->retrying = 1;
		if (!t->pending)
			t->resume = RESUME_SYSCALL;
	}
	/* made again with the arguments it entered with (parkargs.c) */
	if (t->retrying || t->poll_retry) {
		rec_parked_put_back(t);
		t->parked_keep = 1;
	}
	rec_run_task(r, t);
}

/* T's emulated wait ends for a signal that is pending (futex(2),
 * nanosleep(2): EINTR); a poll is retried and meets the signal itself. */
static void interrupt_wait(struct rec *r, struct task *t)
{
	int intr;

	if (t->wait == WAIT_SLEEP && t->poll_arg) {
		int64_t left = t->deadline - r->clock.now_ns, sec, nsec;
		struct timespec rem;

		hm_ns_split(left > 0 ? left : 0, &sec, &nsec);
		rem.tv_sec = (time_t)sec;
		rem.tv_nsec = (long)nsec;
		tracer_write_mem(t->tid, t->poll_arg, &rem, sizeof(rem));
	}
	intr = t->wait == WAIT_FUTEX ? (t->deadline < 0 ? -REC_ERESTARTSYS : -REC_ERESTARTNOHAND)
	       : t->wait == WAIT_TIMERFD ? -REC_ERESTARTSYS
					 : 0;
	rec_wake(r, t, -EINTR);
	/* futex_wait(): -ERESTARTSYS, or with a timeout
	 * -ERESTART_RESTARTBLOCK (EINTR whatever SA_RESTART);
	 * timerfd_read(): -ERESTARTSYS. A sleep is EINTR. */
	if (intr)
		rec_intr_set(t, &t->call.regs, t->call.nr, intr, 0);
}

/* Guest tasks that are not already dying. */
static int any_alive(const struct rec *r)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i]->system != 1 && r->tasks[i]->state != TASK_EXITING)
			return 1;
	}
	return 0;
}

/* A process whose every task is past its exit event: its end (and what
 * the kernel does then, SIGHUP and SIGCONT to a process group it leaves
 * orphaned) is on its way to waitpid. */
static int exit_due(const struct rec *r)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		const struct task *t = r->tasks[i];
		int others = 0;

		if (t->system || t->state != TASK_EXITING)
			continue;
		for (size_t j = 0; j < r->ntasks && !others; j++)
			others = r->tasks[j]->tgid == t->tgid && r->tasks[j]->state != TASK_EXITING;
		if (!others)
			return 1;
	}
	return 0;
}

static int any_new(const struct rec *r)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i]->state == TASK_NEW || r->tasks[i]->system == -1)
			return 1;
	}
	return 0;
}

void rec_schedule(struct rec *r)
{
	struct task *t;
	int64_t due;

	while (!r->ended && r->ntasks) {
		/* Not while a guest's SIGKILL still kills: its victims' ends
		 * come first, before anything else runs (sys_kill.c). */
		if (r->ndoomed)
			return;
		rec_pidns_settle(r);
		rec_fire_due(r);
		rec_job_continue(r);
		/* Signals wait for a syscall entry, a point a replay finds again,
		 * unless nothing is ready to run (docs/record-replay.md). */
		if (!r->runq_len && (r->ndeferred || r->opts->mode == REC_MODE_REPLAY))
			rec_deliver_deferred(r, 1);
		t = signal_taker(r);
		if (t) {
			hm_trace("task %d takes the signal sent to its process", t->index);
			if (t->state == TASK_PARKED) {
				retry(r, t);
				return;
			}
			if (t->state == TASK_WAITING)
				interrupt_wait(r, t);
			t->yielded = 0;
			rec_run_task(r, t);
			return;
		}
		if (r->runq_len && !(r->runq_len == 1 && r->runq[0]->yielded)) {
			t = rec_pick_ready(r);
			t->yielded = 0;
			rec_run_task(r, t);
			return;
		}
		t = next_where(r, is_retryable);
		if (t) {
			hm_trace("retry task %d (now %lld, deadline %lld)", t->index,
				 (long long)r->clock.now_ns, (long long)t->deadline);
			retry(r, t);
			return;
		}
		if (r->runq_len) {
			/* Only a task that yielded, and nobody to retry: back to it. */
			r->runq[0]->yielded = 0;
			rec_run_task(r, r->runq[0]);
			return;
		}
		t = next_where(r, is_interrupted);
		if (t) {
			interrupt_wait(r, t);
			continue;
		}
		if (rec_job_stop_waiters(r))
			continue;
		due = rec_next_deadline(r);
		if (due >= 0) {
			if (outside_first(r, due))
				continue;
			if (due > r->clock.now_ns)
				r->clock.now_ns = due;
			rec_fire_due(r);
			continue;
		}
		t = next_where(r, is_outside);
		if (t) {
			/* Everyone waits on the outside world: poll it gently. */
			struct timespec ts = { 0, 2000000 };

			nanosleep(&ts, NULL);
			t->outside = 1;
			retry(r, t);
			return;
		}
		if (!any_alive(r) || any_new(r) || exit_due(r))
			return; /* exits or a new task's first stop are on their way */
		/* Not while stops are still to be read: a group exit's other
		 * threads, say, report their exits a moment after the leader. */
		if (tracer_event_pending())
			return;
		/* A process stopped from outside waits for its SIGCONT there. */
		if (rec_job_waits_outside(r))
			return;
		if (settle(r)) {
			if (tracer_event_pending())
				return;
			continue;
		}
		rec_report_deadlock(r);
		rec_end_run(r, HM_EXIT_SCHEDULER);
		return;
	}
}

void rec_end_run(struct rec *r, int status)
{
	r->ended = 1;
	if (!r->main_done) {
		r->main_done = 1;
		r->main_status = status;
	} else {
		r->main_status = status;
	}
	for (size_t i = 0; i < r->ntasks; i++) {
		/* Never kill(0): a task whose ids could not be read has tgid 0,
		 * and that would kill hermit's own process group. */
		if (r->tasks[i]->system == 0 && r->tasks[i]->tgid > 0)
			kill(r->tasks[i]->tgid, SIGKILL);
	}
	if (r->running) {
		r->running = NULL;
		tracer_blockwatch_set(0);
	}
}

void rec_dump(struct rec *r)
{
	hm_error("state: %zu tasks, running %d, %zu ready, progress %llu, virtual time %lld ns",
		 r->ntasks, r->running ? r->running->index : -1, r->runq_len,
		 (unsigned long long)r->progress, (long long)r->clock.now_ns);
	for (size_t i = 0; i < r->ntasks; i++) {
		const struct task *t = r->tasks[i];

		hm_error("  task %d tid %d system %d state %d wait %d resume %d retrying %d "
			 "interrupt %d first-stop %d parked-at %llu pending %s",
			 t->index, t->tid, t->system, t->state, t->wait, t->resume, t->retrying,
			 t->wants_interrupt, t->stopped_once, (unsigned long long)t->parked_at,
			 t->pending ? rec_syscall_name(t->pending) : "-");
	}
}
