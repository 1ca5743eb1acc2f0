/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Signals from outside the guest: the terminal's (Ctrl-C) and those other
 * processes send. They arrive at whatever instruction a task is on, so
 * they are held back to a point a replay finds again (a syscall entry, or
 * a moment when no task is ready), recorded there as events, and a replay
 * delivers them at the same point (docs/record-replay.md).
 */
#include "config.h"

#include <signal.h>
#include <stdlib.h>

#include "common/common.h"
#include "internal.h"

/* Whether signal SIG pending for T was sent by the terminal (n_tty's
 * isig() sends with SEND_SIG_PRIV: si_code SI_KERNEL). */
int rec_from_terminal(struct task *t, int sig)
{
	siginfo_t si;

	if (sig != SIGINT && sig != SIGQUIT && sig != SIGTSTP && sig != SIGHUP && sig != SIGWINCH)
		return 0;
	return tracer_siginfo(t->tid, &si) == 0 && si.si_code == SI_KERNEL;
}

void rec_send_signal(struct rec *r, pid_t tgid, int sig)
{
	size_t i;

	for (i = 0; i < r->nown; i++) {
		if (r->own[i].tgid == tgid && r->own[i].sig == sig)
			break;
	}
	if (i == r->nown) {
		r->own = xrealloc(r->own, (r->nown + 1) * sizeof(*r->own));
		r->own[i].tgid = tgid;
		r->own[i].sig = sig;
		r->own[i].n = 0;
		r->nown++;
	}
	r->own[i].n++;
	r->shared_sent = 1;
	kill(tgid, sig);
}

/*
 * Whether signal SIG pending for T was sent from outside the guest by a
 * process (kill, sigqueue, tkill from outside the pid namespace carry
 * si_pid 0) other than hermit itself: it arrives at whatever instruction
 * T is on, so it is held back like the terminal's and delivered at a
 * point a replay finds again.
 */
int rec_from_outside(struct rec *r, struct task *t, int sig)
{
	siginfo_t si;

	if (!r->opts->namespaces || sig == SIGSTOP || sig == SIGKILL ||
	    tracer_siginfo(t->tid, &si) < 0 || si.si_pid != 0 ||
	    (si.si_code != SI_USER && si.si_code != SI_QUEUE && si.si_code != SI_TKILL))
		return 0;
	for (size_t i = 0; i < r->nown; i++) {
		if (r->own[i].tgid == t->tgid && r->own[i].sig == sig && r->own[i].n > 0) {
			r->own[i].n--; /* hermit's own: a timer, a held-back signal */
			return 0;
		}
	}
	return 1;
}

void rec_defer_signal(struct rec *r, pid_t tgid, int sig)
{
	for (size_t i = 0; i < r->ndeferred; i++) {
		if (r->deferred[i].tgid == tgid && r->deferred[i].sig == sig)
			return;
	}
	r->deferred = xrealloc(r->deferred, (r->ndeferred + 1) * sizeof(*r->deferred));
	r->deferred[r->ndeferred].tgid = tgid;
	r->deferred[r->ndeferred].sig = sig;
	r->ndeferred++;
}

/* The thread-group leader of process TGID (or any of its tasks). */
static struct task *leader_of(struct rec *r, pid_t tgid)
{
	struct task *any = NULL;

	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i]->tgid != tgid || r->tasks[i]->system)
			continue;
		if (r->tasks[i]->tid == tgid)
			return r->tasks[i];
		any = any ? any : r->tasks[i];
	}
	return any;
}

/* A signal from outside delivered to process T: an event, so a replay
 * delivers it at the same point. */
static void signal_event(struct rec *r, struct task *t, int sig, int idle)
{
	struct rec_call ev = { .nr = -4 };

	ev.args[0] = (uint64_t)sig;
	ev.args[1] = (uint64_t)idle;
	rec_digest_event(r, t, &ev, REC_EV_SIGNAL);
}

/* Replay: deliver the signals the recording delivered here (IDLE: with no
 * task ready to run, else at a syscall entry). */
static void replay_signals(struct rec *r, int idle)
{
	const struct rec_event_record *ev;
	const unsigned char *p;
	size_t n;

	while (!r->diverged && r->opts->source->peek(r->opts->source->ctx, &ev, &p, &n) > 0 &&
	       REC_EV_KIND(ev) == REC_EV_SIGNAL && ev->fields[4] == idle) {
		struct task *t = NULL;
		int sig = (int)ev->fields[3];

		for (size_t i = 0; i < r->ntasks && !t; i++) {
			if (!r->tasks[i]->system && r->tasks[i]->index == REC_EV_TASK(ev))
				t = r->tasks[i];
		}
		if (!t)
			return; /* not here yet: the next event will not match */
		hm_debug("signal %d delivered to process %d, as recorded", sig, t->tgid);
		signal_event(r, t, sig, idle);
		if (t->tgid > 0)
			rec_send_signal(r, t->tgid, sig);
		r->progress++;
	}
}

void rec_deliver_deferred(struct rec *r, int idle)
{
	if (r->opts->mode == REC_MODE_REPLAY) {
		replay_signals(r, idle);
		return;
	}
	for (size_t i = 0; i < r->ndeferred; i++) {
		struct task *t = leader_of(r, r->deferred[i].tgid);
		int sig = r->deferred[i].sig;
		struct tracer_sigmasks st;

		/* The terminal's Ctrl-Z stopped hermit too, which paused the
		 * whole run; the shell's SIGCONT has reached the guest by now,
		 * and a stop sent after it would leave it stopped for good.
		 * So a stop signal from outside that the guest does not catch
		 * is dropped (docs/threads.md "Job control"). */
		if ((sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) && t &&
		    tracer_task_sigmasks(t->tid, &st) == 0 && !(st.caught >> (sig - 1) & 1)) {
			hm_debug("signal %d from outside to process %d dropped: it would stop it",
				 sig, r->deferred[i].tgid);
			continue;
		}
		hm_debug("signal %d from the terminal delivered to process %d", r->deferred[i].sig,
			 r->deferred[i].tgid);
		if (t)
			signal_event(r, t, r->deferred[i].sig, idle);
		rec_send_signal(r, r->deferred[i].tgid, r->deferred[i].sig);
		r->progress++;
	}
	r->ndeferred = 0;
}
