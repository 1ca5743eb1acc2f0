/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How guest tasks end: a thread's exit stop (PTRACE_EVENT_EXIT), its end
 * as waitpid reports it, and the end of a whole process, whose threads
 * end in hermit's order (docs/threads.md "A process's end").
 */
#include "config.h"

#include <signal.h>
#include <sys/wait.h>

#include "common/common.h"
#include "internal.h"

static void set_main_status(struct rec *r, int status)
{
	if (!r->main_done) {
		r->main_done = 1;
		r->main_status = status;
	}
}

void rec_task_ended(struct rec *r, struct task *t, const struct tracer_stop *s)
{
	int status = s->kind == TRACER_EXITED ? s->status : 128 + s->sig;
	pid_t tgid;
	int guest;

	if (t->system == 1) {
		/* Its pid may be another's soon: no kill or seize may reach it. */
		for (int i = 0; i < 2; i++) {
			if (r->guest.system[i] == t->tid)
				r->guest.system[i] = 0;
		}
		/* A launch helper only ends early when the launch failed. */
		if (!r->main_done && r->guest.main == 0)
			set_main_status(r, s->kind == TRACER_EXITED && s->status
						   ? s->status
						   : HM_EXIT_INTERNAL);
	} else {
		hm_debug("task %d %s %d", t->index,
			 s->kind == TRACER_EXITED ? "exited" : "killed by",
			 s->kind == TRACER_EXITED ? s->status : s->sig);
		if (t->tid == r->guest.main)
			set_main_status(r, status);
		if (t->vfork_parent) {
			struct task *p = rec_task_find(r, t->vfork_parent);

			if (p && p->state == TASK_VFORK_WAIT)
				rec_make_ready(r, p);
		}
		r->progress++;
	}
	tgid = t->tgid;
	guest = t->system == 0;
	if (guest && t->tid == t->tgid)
		tracer_ticks_drop(tgid);
	rec_task_remove(r, t);
	/* The kernel cleared its tid word and released its robust futexes. */
	if (guest)
		rec_futex_recheck(r, tgid);
	if (guest)
		rec_kill_reaped(r);
}

/* Whether a thread of T's process, other than T, is not ending yet. */
static int has_siblings(const struct rec *r, const struct task *t)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i] != t && r->tasks[i]->tgid == t->tgid &&
		    r->tasks[i]->state != TASK_EXITING)
			return 1;
	}
	return 0;
}

/* Whether another guest task of T's process is still known. */
static int has_others(const struct rec *r, const struct task *t)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i] != t && r->tasks[i]->system == 0 && r->tasks[i]->tgid == t->tgid)
			return 1;
	}
	return 0;
}

/*
 * Every thread of process TGID dies now (exit_group, a fatal signal): each
 * one's exit is seen and reaped here, before anything else runs, the
 * threads in task order and the leader last (the kernel reports its end
 * only when the others are gone). The kernel reports them in the order its
 * CPUs get to them. Taken as they came, a leader reported before its
 * threads was set aside while other processes ran, and the progress its
 * threads' ends counted, the futex waiters they woke and the SIGCHLD its
 * parent got when it was reaped fell at wall-clock moments of another
 * process's run: `xz -T2 | md5sum` recorded under --chaos replayed with
 * md5sum preempted where the recording had it run on, or the other way.
 */
static void end_group(struct rec *r, pid_t tgid)
{
	struct tracer_stop s;

	if (r->ending_group)
		return; /* (its own stops, handled below) */
	r->ending_group = tgid;
	hm_trace("process %d ends: its threads' ends in task order", (int)tgid);
	for (;;) {
		struct task *next = NULL;

		for (size_t i = 0; i < r->ntasks; i++) {
			struct task *x = r->tasks[i];

			if (x->system == 0 && x->tgid == tgid &&
			    (!next || (next->tid == tgid && x->tid != tgid)))
				next = x;
		}
		if (!next)
			break;
		if (tracer_wait_own(next->tid, &s) < 0) {
			/* gone without a word we can still collect */
			s = (struct tracer_stop){ .tid = next->tid,
						  .kind = TRACER_KILLED,
						  .sig = SIGKILL };
		}
		rec_handle(r, &s);
	}
	r->ending_group = 0;
}

void rec_exit_group(struct rec *r, struct task *t)
{
	t->parked_keep = 1;
	rec_resume(t, RESUME_CONT, 0);
	if (has_others(r, t))
		end_group(r, t->tgid);
}

void rec_exit_stop(struct rec *r, struct task *t, const struct tracer_stop *s)
{
	int dying;

	/* The debugged program's end: a stop, while it still is. */
	if (r->opts->debugger && t->index == 0 && !r->ended &&
	    r->opts->debugger->at_exit(r->opts->debugger->ctx, r->frames) &&
	    rec_debug_stop(r, t) < 0) {
		tracer_cont(t->tid, 0); /* killed, it must leave this stop to die */
		return;
	}
	/* It dies now. Its exit is reported to waitpid in a moment, and the
	 * run waits for that (the zombie it leaves is what a waiting parent
	 * sees), except for a thread-group leader with threads left: it is
	 * reported only when the last of them is gone (a main thread that
	 * called pthread_exit), so the others run meanwhile. Killed by a
	 * signal (the message is its wait status), the whole process dies
	 * with it: its ends are taken in hermit's order, as exit_group's. */
	dying = r->ending_group == t->tgid || (WIFSIGNALED((int)s->msg) && has_others(r, t));
	if (!dying && t->tid == t->tgid && has_siblings(r, t)) {
		rec_set_aside(r, t, TASK_EXITING, RESUME_CONT);
		r->progress++;
	} else {
		t->state = TASK_EXITING;
		if (t == r->running)
			tracer_blockwatch_set(0);
	}
	tracer_cont(t->tid, 0);
	if (dying)
		end_group(r, t->tgid);
}
