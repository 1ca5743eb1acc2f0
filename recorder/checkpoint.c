/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The recorder's side of a replay's checkpoints (DESIGN.md "Replay"; the
 * policy, where and how many, is the debugger's: replayer/checkpoint.c).
 *
 * A checkpoint is a moment right after an event, before the guest runs
 * again, when the guest is one process whose threads all wait where a new
 * thread can be put (tracer/checkpoint.c): tracer/checkpoint.c copies
 * that process, and the debugger keeps the copy in a fork of hermit, whose
 * memory holds this run's state at the same moment. To go back there, the
 * process that traces the guest leaves the run (rec_abandon: its guest
 * killed, hermit's helpers let go), and the fork revives the copy, its
 * threads made again, each with the pid it had in the guest's namespace,
 * gives the run's records of the old tasks the new ones' host ids, and
 * goes on from rec_resume, where the copy was made.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "internal.h"
#include "tracer/tracer.h"

struct rec_cp {
	struct rec *r;
	struct task *t;	     /* about to be resumed */
	struct task *leader; /* the process's first thread, which forks */
	struct task *others[TRACER_COPY_THREADS];
	size_t nothers;
	struct tracer_copy copy;
};

/* Whether the guest is one process whose tasks all wait where a copy can
 * take them (T, the running one, about to go on): fills CP's leader and
 * others. */
static int copyable(struct rec *r, struct task *t, struct rec_cp *cp)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *x = r->tasks[i];

		if (x->system == 1)
			continue;
		if (x->tgid != t->tgid || !x->stopped_once || x->wants_interrupt || x->resume_sig ||
		    x->not_yet || x->early || x->outside || x->vfork_parent || x->retrying ||
		    (x != t && x->state != TASK_READY && x->state != TASK_WAITING &&
		     x->state != TASK_PARKED))
			return 0;
		if (x->tid == x->tgid)
			cp->leader = x;
		else if (cp->nothers == TRACER_COPY_THREADS)
			return 0;
		else
			cp->others[cp->nothers++] = x;
	}
	return cp->leader != NULL;
}

void rec_cp_offer(struct rec *r, struct task *t)
{
	const struct rec_debugger *d = r->opts->debugger;
	struct rec_cp cp;
	uint64_t addr;
	pid_t tgid;
	int first = !r->ran_since_event;

	memset(&cp, 0, sizeof(cp));
	cp.r = r;
	cp.t = t;
	r->ran_since_event = 1;
	/* (Without a pid namespace of its own, the guest's pids are the
	 * host's: a copy could not have the original's.) */
	if (!d->checkpoint || !first || r->frames != r->event_frames || r->frames == 0 ||
	    r->guest.system[1] <= 0 || r->files_written || r->running != t ||
	    !copyable(r, t, &cp) || r->dbg_pending || r->dbg_step || r->ndeferred || r->nown ||
	    tracer_bp_active(&addr, &tgid))
		return;
	int took = d->checkpoint(d->ctx, r->frames, &cp);

	/* (A fork that keeps the copy has its own copy of this, and of the
	 * copy's pidfd.) */
	if (cp.copy.pid > 0)
		close(cp.copy.pidfd);
	tracer_copy_free(&cp.copy);
	switch (took) {
	case 1:
		break;
	case 2:
		rec_end_run(r, HM_EXIT_INTERNAL);
		r->diverged = 1; /* ended on purpose: nothing to compare */
		return;
	default:
		return;
	}
	/* A revived copy: the replay is here again, and its debugger may
	 * want to stop at this event (it did not ask the first time). */
	r->dbg_stop_next = d->at_event(d->ctx, r->frames, t->index);
}

/* A pipe or socket from outside is the same in the copy, but the replay
 * answers its reads from the log: nothing the guest sees depends on it. */
static int outside_ok(void *ctx, int fd)
{
	struct rec_cp *cp = ctx;

	return rec_fd_from_outside(cp->r, cp->t->tid, fd);
}

/*
 * Files: a replay's guest sees the recorded files in a private view, whose
 * writes stay there. A copy made before a write would, once revived, see
 * the file as written later (and write it again): checkpoints end at the
 * first open of a file to write. (Descriptors the copy shares with the
 * original have their offsets put back when it is revived.)
 */
void rec_cp_files_written(struct rec *r)
{
	const struct rec_debugger *d = r->opts->debugger;

	if (r->files_written)
		return;
	r->files_written = 1;
	hm_debug("no checkpoints from event %llu on: the guest writes a file",
		 (unsigned long long)r->frames);
	if (d->no_checkpoints)
		d->no_checkpoints(d->ctx);
}

int rec_cp_copy(struct rec_cp *cp)
{
	struct tracer_thread *others = xcalloc(cp->nothers + 1, sizeof(*others));
	char why[128];
	int err = tracer_copy_check(cp->leader->tid, cp->nothers + 1, outside_ok, cp, why,
				    sizeof(why));
	int pty = err ? -1 : rec_guest_pty_held(cp->r, cp->leader->tid);

	/* A pty the guest made is a file to the check above, but its state
	 * (the bytes in it, its modes, its session) is the kernel's, shared
	 * with the copy, and goes on changing after it: as with a pipe. */
	if (pty >= 0) {
		snprintf(why, sizeof(why), "descriptor %d is a pseudo-terminal the guest made", pty);
		err = -EAGAIN;
	}
	if (err) {
		hm_debug("no checkpoint at event %llu: %s", (unsigned long long)cp->r->frames, why);
		free(others);
		return err;
	}
	for (size_t i = 0; i < cp->nothers; i++) {
		others[i].tid = cp->others[i]->tid;
		others[i].vtid = cp->others[i]->vtid;
		others[i].clear_tid = cp->others[i]->clear_tid;
	}
	err = tracer_copy_make(cp->leader->tid, others, cp->nothers, &cp->copy);
	free(others);
	if (err)
		hm_debug("no checkpoint at event %llu: cannot copy the process: %s",
			 (unsigned long long)cp->r->frames, hm_strerror(err));
	return err;
}

size_t rec_cp_threads(const struct rec_cp *cp)
{
	return cp->nothers + 1;
}

void rec_cp_drop(struct rec_cp *cp)
{
	tracer_copy_kill(&cp->copy);
}

/* The run's records of task X (FROM) are now of host id TO. */
static void rename_task(struct rec *r, struct task *x, pid_t tgid, pid_t to)
{
	pid_t from = x->tid;

	for (size_t i = 0; i < r->ntimers; i++) {
		if (r->timers[i].target == from)
			r->timers[i].target = to;
		if (x->tid == x->tgid && r->timers[i].tgid == from)
			r->timers[i].tgid = tgid;
	}
	if (r->guest.main == from)
		r->guest.main = to;
	x->tid = to;
	x->tgid = tgid;
}

int rec_cp_revive(struct rec_cp *cp, pid_t *pid)
{
	struct rec *r = cp->r;
	struct task *lead = cp->leader;
	pid_t old = lead->tid, now, tids[TRACER_COPY_THREADS];
	int err;

	/* (init, untraced, reaps the old process, whose pids are wanted) */
	err = tracer_copy_revive(&cp->copy, lead->vtid, r->last_vpid, &now, tids);
	/* Hermit's helpers again (so that the namespace ends with us). */
	for (int i = 0; i < 2; i++) {
		if (r->guest.system[i] > 0 && tracer_seize(r->guest.system[i]) < 0)
			r->guest.system[i] = 0;
	}
	for (size_t i = 0; i < r->ntasks;) {
		struct task *x = r->tasks[i];

		if (x->system == 1 && x->tid != r->guest.system[0] && x->tid != r->guest.system[1])
			rec_task_remove(r, x); /* gone */
		else
			i++;
	}
	if (err) {
		hm_error("cannot go back to the checkpoint at event %llu: %s",
			 (unsigned long long)r->frames, hm_strerror(err));
		return err;
	}
	for (size_t i = 0; i < cp->nothers; i++)
		rename_task(r, cp->others[i], now, tids[i]);
	rename_task(r, lead, now, now);
	tracer_ticks_rename(old, now);
	err = tracer_blockwatch_start();
	if (err) {
		hm_error("cannot start the block watch thread: %s", hm_strerror(err));
		return err;
	}
	tracer_blockwatch_set(cp->t->tid);
	*pid = now;
	hm_debug("back at the checkpoint of event %llu: process %d is %d now, with %zu threads",
		 (unsigned long long)r->frames, old, now, cp->nothers + 1);
	return 0;
}

void rec_abandon(struct rec *r)
{
	struct tracer_stop s;
	size_t guests;

	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i]->system != 1) {
			kill(r->tasks[i]->tid, SIGKILL);
			/* One stopped at its exit goes on only when resumed. */
			tracer_cont(r->tasks[i]->tid, 0);
		}
	}
	do {
		guests = 0;
		for (size_t i = 0; i < r->ntasks; i++)
			guests += r->tasks[i]->system != 1;
		if (!guests)
			break;
		if (tracer_wait(&s) < 0)
			break;
		hm_trace("leaving the run: tid %d %s", s.tid, tracer_stop_name(s.kind));
		if (s.kind == TRACER_EXITED || s.kind == TRACER_KILLED) {
			struct task *t = rec_task_find(r, s.tid);

			if (t)
				rec_task_remove(r, t);
		} else {
			tracer_cont(s.tid, s.kind == TRACER_SIGNAL ? s.sig : 0);
		}
	} while (guests);
	for (int i = 0; i < 2; i++) {
		if (r->guest.system[i] > 0)
			tracer_detach(r->guest.system[i]);
	}
	hm_trace("left the run");
}
