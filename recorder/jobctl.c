/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Job control: a guest process stopped by SIGSTOP (or SIGTSTP, SIGTTIN,
 * SIGTTOU with their default action) and continued by SIGCONT
 * (docs/threads.md "Job control").
 *
 * The kernel keeps the bookkeeping: a stop signal that hermit delivers
 * starts a group stop (do_signal_stop(), kernel/signal.c), and each thread
 * of the process that takes part reports it to hermit as PTRACE_EVENT_STOP
 * with the stop signal (a traced thread traps instead of sleeping). When
 * the last thread has taken part, the kernel marks the process stopped and
 * tells its parent (wait4's WUNTRACED, SIGCHLD with CLD_STOPPED). SIGCONT
 * marks it continued at once (prepare_signal(): wait4's WCONTINUED sees it)
 * and leaves the signal pending for the process.
 *
 * What hermit adds is that a stopped thread does not run: it stays in its
 * ptrace stop, TASK_STOPPED, and the scheduler passes it over. So that the
 * stop completes, the process's other threads take part as soon as they
 * can: a thread hermit holds in an emulated wait (a futex, a sleep, a
 * timerfd read, a timed poll) is wound back onto its syscall instruction,
 * as the kernel's restart would leave it, and made ready; a parked one is
 * retried; either meets the pending stop before it runs an instruction.
 * The stopped threads go on when SIGCONT is pending for their process,
 * which hermit looks at each time it chooses a thread to run: a guest's
 * kill(SIGCONT) has set it by then, at a point the schedule decides.
 *
 * A stop from outside the guest (another host process's SIGSTOP) waits
 * for a SIGCONT from there, at no point of ours: its threads wait in
 * PTRACE_LISTEN, which makes them report the SIGCONT, and the scheduler
 * waits for that rather than calling the guest deadlocked.
 */
#include "config.h"

#include <signal.h>

#include "common/common.h"
#include "internal.h"

#define BIT(sig)     (1ULL << ((sig)-1))
#define STOP_SIGNALS (BIT(SIGSTOP) | BIT(SIGTSTP) | BIT(SIGTTIN) | BIT(SIGTTOU))

/* Wind T, held at the entry of the call it waits in, back onto its syscall
 * instruction, the call skipped: resumed, it meets the pending stop, and
 * once continued it makes the call again (a restart with no handler,
 * arch_do_signal_or_restart()). A timed poll waits wound back already. */
static void restart_wait(struct rec *r, struct task *t)
{
	/* What the kernel's wait would have returned, should a handler's
	 * signal come before the call is made again (interrupt.c):
	 * futex_wait(), a timerfd read, a sleep (EINTR with a handler). */
	int code = t->wait == WAIT_FUTEX
			   ? (t->deadline < 0 ? -REC_ERESTARTSYS : -REC_ERESTARTNOHAND)
		   : t->wait == WAIT_TIMERFD ? -REC_ERESTARTSYS
					     : -REC_ERESTARTNOHAND;

	if (t->wait == WAIT_POLL) {
		rec_wake(r, t, 0);
		return;
	}
	t->call.regs.orig_rax = (uint64_t)-1;
	t->call.regs.rax = (uint64_t)t->call.nr;
	t->call.regs.rip -= 2;
	tracer_set_regs(t->tid, &t->call.regs);
	t->deadline = -1;
	rec_intr_set(t, &t->call.regs, t->call.nr, code, 1);
	rec_make_ready(r, t);
}

void rec_job_stopped(struct rec *r, struct task *t, int sig)
{
	int outside = 0;

	hm_trace("task %d: stopped by signal %d", t->index, sig);
	t->wants_interrupt = 0; /* an interrupt of a stopped thread reports this */
	rec_set_aside(r, t, TASK_STOPPED, t->pending || t->retrying ? RESUME_SYSCALL : RESUME_CONT);
	r->progress++; /* a parked wait4 may see the stop now */
	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *x = r->tasks[i];

		if (x->system || x->tgid != t->tgid)
			continue;
		outside |= x->job_outside;
		if (x != t && x->state == TASK_WAITING)
			restart_wait(r, x);
	}
	if (outside) {
		/* Its SIGCONT comes from outside, at no point of ours: the
		 * kernel tells us (the thread reports PTRACE_EVENT_STOP). */
		t->job_outside = 1;
		tracer_listen(t->tid);
	}
}

void rec_job_signal(struct rec *r, struct task *t, int sig)
{
	struct tracer_sigmasks st;
	siginfo_t si;

	if (!(BIT(sig) & STOP_SIGNALS) || !r->opts->namespaces || tracer_siginfo(t->tid, &si) < 0 ||
	    si.si_pid != 0 || si.si_code > 0 || tracer_task_sigmasks(t->tid, &st) < 0 ||
	    (st.caught & BIT(sig)))
		return; /* a guest's, a handler's, or no stop */
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i]->tgid == t->tgid)
			r->tasks[i]->job_outside = 1;
	}
}

int rec_job_waits_outside(const struct rec *r)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i]->state == TASK_STOPPED && r->tasks[i]->job_outside)
			return 1;
	}
	return 0;
}

/* Whether a stop signal is pending for waiting T that would stop it: not
 * blocked, neither caught nor ignored. */
static int stop_pending(pid_t tid)
{
	struct tracer_sigmasks st;
	uint64_t stop;

	if (tracer_task_sigmasks(tid, &st) < 0)
		return 0;
	stop = (st.pending | st.shared) & STOP_SIGNALS & ~st.caught & ~st.ignored;
	return (stop & ~st.blocked) != 0 || (stop & BIT(SIGSTOP)) != 0;
}

/* Whether SIGCONT is pending for T's process or T: it was continued
 * since it stopped (a stop signal takes a pending SIGCONT away). *HUP:
 * whether SIGHUP is pending for the process too. */
static int continued(pid_t tid, int *hup)
{
	struct tracer_sigmasks st;

	if (tracer_task_sigmasks(tid, &st) < 0 || !((st.pending | st.shared) & BIT(SIGCONT)))
		return 0;
	*hup = (st.shared & BIT(SIGHUP)) != 0;
	return 1;
}

int rec_job_continue(struct rec *r)
{
	int changed = 0, hup = 0;

	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *t = r->tasks[i];

		if (t->system || t->state != TASK_STOPPED || !continued(t->tid, &hup))
			continue;
		/* Every stopped thread of its process goes on. A SIGHUP that
		 * came with the SIGCONT is the kernel's for an orphaned process
		 * group (kill_orphaned_pgrp(), kernel/exit.c), sent again at
		 * the same point of a replay: the guest's, not a terminal's. */
		for (size_t j = 0; j < r->ntasks; j++) {
			struct task *x = r->tasks[j];

			if (x->tgid != t->tgid || x->system)
				continue;
			x->orphan_hup = hup;
			x->job_outside = 0;
			if (x->state != TASK_STOPPED)
				continue;
			hm_trace("task %d: continued", x->index);
			rec_make_ready(r, x);
		}
		r->progress++;
		changed = 1;
	}
	return changed;
}

int rec_job_stop_waiters(struct rec *r)
{
	int changed = 0;

	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *t = r->tasks[i];

		if (t->system || t->state != TASK_WAITING || !stop_pending(t->tid))
			continue;
		/* A stop meets a thread that waits: it takes part. */
		hm_trace("task %d: a stop signal ends its wait", t->index);
		restart_wait(r, t);
		changed = 1;
	}
	return changed;
}

int rec_job_own_signal(struct rec *r, struct task *t, int sig)
{
	if (sig != SIGHUP || !t->orphan_hup)
		return 0;
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i]->tgid == t->tgid)
			r->tasks[i]->orphan_hup = 0;
	}
	return 1;
}
