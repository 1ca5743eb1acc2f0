/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event loop of a live run (DESIGN.md "Serialization", "Blocking").
 *
 * Exactly one guest task runs; every other one sits in a ptrace stop. The
 * running task goes on until it blocks in the kernel (the block watch
 * notices and it is parked), waits in an emulated call (futex, sleep,
 * timed poll), exits, or has had REC_SLICE intercepted syscalls while
 * another task is ready. sched.c chooses the next one.
 *
 * Launch helpers (setup and init, see tracer/launch.c) are traced only so
 * that their children are; every stop of theirs is resumed at once.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "internal.h"

/* -ERESTARTSYS, -ERESTARTNOINTR, -ERESTARTNOHAND, -ERESTART_RESTARTBLOCK:
 * the call was interrupted and will be restarted (include/linux/errno.h). */
static int is_restart(long ret)
{
	return ret == -REC_ERESTARTSYS || ret == -REC_ERESTARTNOINTR ||
	       ret == -REC_ERESTARTNOHAND || ret == -REC_ERESTART_RESTARTBLOCK;
}

/*
 * Calls that hermit's PTRACE_INTERRUPT of a blocked task (a park) would
 * change: those that answer any interruption with a plain EINTR, never a
 * restart (epoll_wait, sigwaitinfo, semop, io_getevents, socket calls with
 * SO_RCVTIMEO or SO_SNDTIMEO: signal(7)'s second list), and poll with no
 * timeout, which restarts as restart_syscall, whose exit no row follows.
 * Wind either back to run again, whole, when the task is resumed, as the
 * kernel does with ERESTARTNOHAND; a handled signal that comes meanwhile
 * ends it with EINTR as it would have (interrupt.c). 1 when done.
 */
static int rewind_parked(struct task *t, struct user_regs_struct *regs)
{
	long nr = (long)regs->orig_rax, ret = (long)regs->rax;

	if (!t->wants_interrupt || nr < 0)
		return 0;
	if (ret != -EINTR &&
	    !(ret == -REC_ERESTART_RESTARTBLOCK && nr == SYS_poll && (int)regs->rdx < 0))
		return 0;
	regs->rip -= 2;
	regs->rax = regs->orig_rax;
	if (tracer_set_regs(t->tid, regs) < 0)
		return 0;
	rec_intr_set(t, regs, nr, -REC_ERESTARTNOHAND, 1);
	return 1;
}

/* FNV-1a over the fields of an event: the run's digest. */
static void digest(struct rec *r, const void *p, size_t n)
{
	r->digest = hm_fnv1a(r->digest, p, n);
}

void rec_digest_event(struct rec *r, struct task *t, const struct rec_call *c, int kind)
{
	struct rec_event_record ev = { { kind, t->index, c->nr } };

	memcpy(&ev.fields[3], c->args, sizeof(c->args));
	ev.fields[9] = c->ret;
	ev.fields[10] = (int64_t)t->tick_count;
	ev.fields[11] = (int64_t)t->out_digest;
	t->out_digest = 0;
	t->watch_tick = 0; /* an event of its own: the spin watch asks again */
	hm_trace("event %" PRIu64 ": kind %d task %d nr %ld args %#llx %#llx %#llx %#llx ret %ld "
		 "ticks %" PRIu64,
		 r->events, kind, t->index, c->nr, (unsigned long long)c->args[0],
		 (unsigned long long)c->args[1], (unsigned long long)c->args[2],
		 (unsigned long long)c->args[3], c->ret, t->tick_count);
	digest(r, ev.fields, sizeof(ev.fields));
	r->events++;
	if (r->opts->event_fd >= 0 && !r->event_write_failed &&
	    write(r->opts->event_fd, ev.fields, sizeof(ev.fields)) != (ssize_t)sizeof(ev.fields)) {
		hm_error("cannot write the event stream: %s", hm_strerror(errno));
		r->event_write_failed = 1;
	}
	if (r->opts->mode == REC_MODE_RECORD) {
		rec_log_write(r->opts->log, &ev, r->payload.data, r->payload.len);
		hm_buf_reset(&r->payload);
		r->frames++;
	} else if (r->opts->mode == REC_MODE_REPLAY && !r->diverged) {
		const struct rec_event_record *want;
		const unsigned char *p;
		size_t n;
		int got = r->opts->source->peek(r->opts->source->ctx, &want, &p, &n);

		if (got <= 0) {
			rec_diverged(r, NULL, &ev, got < 0 ? "the log is damaged here" : NULL);
			return;
		}
		/* A call the replay answered from the log matches its recorded exit. */
		if (kind == REC_EV_EMULATED && REC_EV_KIND(want) == REC_EV_EXIT)
			ev.fields[0] = REC_EV_EXIT;
		if (memcmp(want->fields, ev.fields, sizeof(ev.fields)) != 0) {
			rec_diverged(r, want, &ev, NULL);
			return;
		}
		r->opts->source->take(r->opts->source->ctx);
		r->frames++;
		r->event_frames = r->frames;
		for (size_t i = 0; i < r->ntasks; i++)
			r->tasks[i]->event_ticks = r->tasks[i]->tick_count;
		r->ran_since_event = 0;
		if (r->opts->debugger &&
		    r->opts->debugger->at_event(r->opts->debugger->ctx, r->frames, t->index))
			r->dbg_stop_next = 1;
	}
}

/* The word P's clone (stopped at its event) asks the kernel to clear when
 * the new thread ends: pthread_join waits on it. 0: none. */
static uint64_t clear_tid_of(pid_t p)
{
	struct user_regs_struct regs;
	uint64_t a[3];

	if (tracer_get_regs(p, &regs) < 0)
		return 0;
	if (regs.orig_rax == SYS_clone)
		return regs.rdi & CLONE_CHILD_CLEARTID ? regs.r10 : 0;
	/* clone3's struct clone_args: flags, pidfd, child_tid */
	if (regs.orig_rax == SYS_clone3 && tracer_read_mem(p, regs.rdi, a, sizeof(a)) == 0)
		return a[0] & CLONE_CHILD_CLEARTID ? a[2] : 0;
	return 0;
}

/* A new task reported by its parent P's fork, vfork or clone event. */
static void on_new_task(struct rec *r, struct task *p, pid_t tid, int vfork)
{
	struct task *c = rec_task_find(r, tid);
	int seen_stop;

	if (!c)
		c = rec_task_add(r, tid);
	seen_stop = c->stopped_once;
	if (p->system == 1) {
		if (tid != 0 && p->tid == r->guest.system[0]) {
			r->guest.system[1] = tid;
			c->system = 1;
		} else if (r->guest.main == 0) {
			r->guest.main = tid;
			c->system = 0;
		} else {
			c->system = 1;
		}
	} else {
		c->system = 0;
	}
	if (c->system == 1) {
		if (seen_stop)
			tracer_cont(tid, 0);
		c->state = TASK_RUNNING;
		return;
	}
	c->index = r->next_index++;
	c->resume = RESUME_CONT;
	tracer_task_ids(tid, &c->tgid, &c->vtid);
	r->last_vpid = c->vtid;
	if (c->tgid == p->tgid)
		c->clear_tid = clear_tid_of(p->tid);
	c->tsc_sigsegv = p->tsc_sigsegv; /* TIF_NOTSC is copied at clone */
	c->trap_blocked = rec_trap_blocked(p->tid); /* so is the blocked mask */
	/* and so are the signal actions, which threads share */
	memcpy(c->trap_act, p->trap_act, sizeof(c->trap_act));
	c->cpus = p->cpus; /* fork and clone copy the affinity mask */
	if (vfork)
		c->vfork_parent = p->tid;
	rec_preempt_new_task(r, c);
	if (p->system == 0)
		rec_preempt_fork(r, p, c);
	if (rec_live_guests(r) > 1)
		rec_preempt_announce(r);
	/* Ready now, at its parent's event, not when its first stop happens
	 * to be reported: that order is the kernel's, not the guest's. */
	rec_make_ready(r, c);
	hm_debug("task %d created by task %d", c->index, p->index);
}

static void on_exec(struct rec *r, struct task *t)
{
	int err;

	if (rec_refuse_exec(r, t) < 0)
		return; /* a 32-bit program: the run ended */
	rec_sigaction_exec(r, t);
	t->unfinished = t->unfinished_saved = 0; /* (no call of the old program runs again) */

	if (hm_log_enabled(HM_LOG_DEBUG)) {
		char link[64], exe[4096];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/%d/exe", t->tid);
		n = readlink(link, exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = 0;
		hm_debug("task %d exec'd '%s' (event %llu)", t->index, exe,
			 (unsigned long long)r->events);
	}

	/* before hermit maps anything of its own into the new program (the
	 * trampolines may be mapped from files of the cache folder) */
	rec_capture_exec(r, t);
	rec_timers_exec(r, t->tgid);
	if (!tracer_tsc_traps() && tracer_patch_tsc(t->tid) < 0)
		hm_warn("cannot patch the rdtsc instructions of task %d", t->index);
	rec_preempt_exec(r, t);
	/* after the Hermit page is mapped: the fast path reads it */
	err = tracer_patch_vdso(t->tid, r->opts->fastpath && r->ticks_source == REC_PREEMPT_SITES &&
						tracer_ticks_armed(t->tgid));
	if (err && !r->vdso_warned) {
		hm_warn("cannot patch the vDSO of task %d (%s): its time calls bypass the virtual "
			"clock",
			t->index, hm_strerror(err));
		r->vdso_warned = 1;
	}
	if (rec_fill_at_random(r, t->tid) < 0)
		hm_warn("cannot set AT_RANDOM of task %d", t->index);
	if (t->vfork_parent) {
		struct task *p = rec_task_find(r, t->vfork_parent);

		if (p && p->state == TASK_VFORK_WAIT)
			rec_make_ready(r, p);
		t->vfork_parent = 0;
	}
}

/* Continue the running task T with MODE, or set it aside for another. */
void rec_go_on(struct rec *r, struct task *t, enum resume_mode mode)
{
	if (t->state != TASK_RUNNING || t->kill_held)
		return; /* it waits, or died, or waits for those it killed to die */
	if (rec_preempt_at_syscall(r, t)) {
		rec_set_aside(r, t, TASK_READY, mode);
		return;
	}
	if (++r->slice >= REC_SLICE) {
		r->slice = 0;
		/* Parked tasks that could be retried count as others too: a
		 * thread that loops on syscalls must not starve them (the spin
		 * watch does not fire for it: it stops). */
		if (t->yielded || rec_others_can_run(r, t)) {
			if (!r->runq_len)
				t->yielded = 1; /* the parked ones first */
			rec_set_aside(r, t, TASK_READY, mode);
			return;
		}
	}
	rec_resume(t, mode, 0);
}

/*
 * Whether the call C (of ROW) stops only because a recording is kept: an
 * mmap that is not of code (a recording stops at each to keep the file
 * mapped; a replay and a run pass there without a stop). Such a stop
 * leaves where the budget ends as it was (struct task's extra_stop), as a
 * debugger's does: else a thread alone with a parked one got a fresh
 * budget at each of them in the recording only, and its timeslices ended
 * elsewhere in the replay (tests/guests/mmapslice.c; gcc -c diverged).
 * (An execve, the other call that stops only in a recording, goes on
 * from its stop with neither a new budget nor a read of its counter:
 * rec_ticks_unstop.)
 */
static int record_only(const struct rec *r, const struct rec_syscall *row,
		       const struct rec_call *c)
{
	return r->opts->mode == REC_MODE_RECORD && row && row->hidden == HIDDEN_RECORD &&
	       c->nr == SYS_mmap && !(c->args[2] & PROT_EXEC);
}

/*
 * The parks of the call T enters with REGS: none for a new call, but the
 * one a signal cut short, made again after its handler (bash's read of a
 * command substitution, parked, then SIGCHLD from the child that wrote
 * it), goes on with its own: the recording keeps its parks from before
 * the signal too, so a replay, parked as often before the signal, does
 * not wait 5 s for input that comes only after it (rec_replay_completes).
 * The handler's calls count apart; the first call after its rt_sigreturn
 * that is not the same one ends the record (an EINTR the kernel gave
 * without an exit stop).
 */
static void carry_parks(struct task *t, const struct user_regs_struct *regs)
{
	long nr = (long)regs->orig_rax;

	if (!t->unfinished) {
		t->parks = 0;
	} else if (nr == SYS_restart_syscall ||
		   (t->unfinished_nr == nr && t->unfinished_args[0] == regs->rdi &&
		    t->unfinished_args[1] == regs->rsi && t->unfinished_args[2] == regs->rdx)) {
		if (t->unfinished_saved)
			t->parks = t->unfinished_parks;
		t->unfinished = t->unfinished_saved = 0;
	} else if (t->unfinished_saved == 2) {
		t->unfinished = t->unfinished_saved = 0;
		t->parks = 0;
	} else {
		if (!t->unfinished_saved)
			t->unfinished_parks = t->parks;
		t->unfinished_saved = nr == SYS_rt_sigreturn ? 2 : 1;
		t->parks = 0;
	}
}

static void on_syscall_entry(struct rec *r, struct task *t)
{
	struct rec_call *c = &t->call;
	const struct rec_syscall *row;
	enum rec_action action;

	if (tracer_get_regs(t->tid, &c->regs) < 0)
		return; /* gone; its exit follows */
	rec_intr_clear(t); /* made again: no signal came in between */
	if (!t->retrying && !t->poll_retry) {
		rec_parked_drop(t); /* a new call, or one made again (carry_parks) */
		carry_parks(t, &c->regs);
	}
	c->nr = (long)c->regs.orig_rax;
	c->args[0] = c->regs.rdi;
	c->args[1] = c->regs.rsi;
	c->args[2] = c->regs.rdx;
	c->args[3] = c->regs.r10;
	c->args[4] = c->regs.r8;
	c->args[5] = c->regs.r9;
	c->ret = 0;
	rec_unclamp_entry(t, c);
	if (c->nr == SYS_exit_group) {
		rec_exit_group(r, t); /* not an event (exits.c) */
		return;
	}
	row = rec_syscall_find(c->nr);
	if (row && rec_kill_passes(row, c)) {
		/* As if it had not stopped: its signal, if it waits in a
		 * process's shared queue, goes where the kernel would send it
		 * (sched.c, signal_taker). */
		r->shared_sent = 1;
		t->parked_keep = 1;
		rec_resume(t, RESUME_CONT, 0);
		return;
	}
	if (row && (r->opts->mode != REC_MODE_RUN || row->hidden != SHOWN) &&
	    rec_call_hidden(row, c)) {
		/* Stops only for the log: as if it had not stopped at all. */
		t->parked_keep = 1;
		if (record_only(r, row, c))
			t->extra_stop = 1;
		rec_hidden_entry(r, t, row);
		return;
	}
	/* A retried call that reaches its seccomp stop again is not news. */
	if (!t->retrying) {
		rec_clock_advance(&r->clock, REC_SYSCALL_NS);
		r->progress++;
		rec_fire_due(r);
		if (r->ndeferred || r->opts->mode == REC_MODE_REPLAY)
			rec_deliver_deferred(r, 0);
	}
	c->now_real_ns = r->clock.epoch_ns + r->clock.now_ns;
	action = !row ? REC_CONT : row->enter ? row->enter(r, t, c) : REC_EXIT_STOP;
	switch (action) {
	case REC_EMULATED:
		if (t->retrying) {
			t->retrying = 0;
			r->progress++;
		}
		hm_trace("task %d: %s(%#lx, %#lx, %#lx) = %ld (emulated)", t->index, row->name,
			 (unsigned long)c->args[0], (unsigned long)c->args[1],
			 (unsigned long)c->args[2], c->ret);
		rec_digest_event(r, t, c, 1);
		c->regs.orig_rax = (uint64_t)-1;
		c->regs.rax = (uint64_t)c->ret;
		tracer_set_regs(t->tid, &c->regs);
		rec_go_on(r, t, RESUME_CONT);
		break;
	case REC_EXIT_STOP:
		t->pending = row;
		t->parked_keep = 1; /* the kernel makes it: with what it entered with */
		rec_resume(t, RESUME_SYSCALL, 0);
		break;
	case REC_CONT:
		rec_digest_event(r, t, c, 0);
		t->parked_keep = 1;
		if (t->retrying)
			rec_resume(t, RESUME_SYSCALL, 0); /* to see whether it finishes */
		else
			rec_go_on(r, t, RESUME_CONT);
		break;
	case REC_BLOCKED:
		hm_trace("task %d: %s waits", t->index, row->name);
		rec_digest_event(r, t, c, 4);
		break;
	}
}

static void on_syscall_exit(struct rec *r, struct task *t)
{
	struct rec_call *c = &t->call;
	const struct rec_syscall *row = t->pending;
	struct user_regs_struct regs;
	long before;
	int retried;

	if (tracer_get_regs(t->tid, &regs) < 0)
		return; /* gone; its exit follows */
	if (record_only(r, row, c))
		t->extra_stop = 1;
	rec_unclamp_exit(t, &regs);
	hm_trace("task %d: syscall %ld returned %ld%s", t->index, (long)regs.orig_rax,
		 (long)regs.rax, t->retrying ? " (retried)" : "");
	if (rewind_parked(t, &regs) || is_restart((long)regs.rax)) {
		/* Interrupted: the call runs again when the task is resumed.
		 * Under PTRACE_SYSCALL, PTRACE_INTERRUPT reports itself as this
		 * very stop (ptrace(2)), so this may be the park. */
		/* The restarted call passes the seccomp filter again, and its
		 * handler decides again: this attempt needs no exit handler. */
		if (!t->unfinished) {
			/* (a call of its handler cut short in turn counts apart:
			 * the first one's record stays) */
			t->unfinished = 1;
			t->unfinished_saved = 0;
			t->unfinished_nr = c->nr;
			memcpy(t->unfinished_args, c->args, sizeof(t->unfinished_args));
		}
		t->pending = NULL;
		t->hidden = 0;
		t->due_since = 0;
		if (t->wants_interrupt && t == r->running) {
			t->wants_interrupt = 0;
			rec_park(r, t);
		} else {
			rec_resume(t, RESUME_CONT, 0);
		}
		return;
	}
	if (t->unfinished && !t->unfinished_saved)
		t->unfinished = 0; /* it ended rather than run again (no other call came) */
	if (t->not_yet) {
		rec_park_rewound(r, t, &regs);
		return;
	}
	if (t->hidden && r->opts->mode == REC_MODE_REPLAY && rec_replay_early(r, t, &regs))
		return;
	t->pending = NULL;
	retried = t->retrying;
	if (t->retrying) {
		rec_retry_result(t, &regs);
		/* A retried call finished: the guest moved on. */
		t->retrying = 0;
		r->progress++;
	}
	if (t->hidden) {
		/* Only a retried call stops here in `run`: go on as it would. */
		rec_hidden_exit(r, t, row);
		rec_parked_ended(t); /* the next resume gives the memory back */
		if (!r->ended && retried)
			rec_go_on(r, t, RESUME_CONT);
		else if (!r->ended)
			rec_resume(t, RESUME_CONT, 0);
		return;
	}
	if (!row) {
		rec_parked_ended(t);
		rec_go_on(r, t, RESUME_CONT);
		return;
	}
	c->ret = before = (long)regs.rax;
	if (row->out == OUT_POLL) {
		/* A replay answers a call that watched the outside (the kernel
		 * skipped it); its handler then goes on as the recording's did. */
		if (r->opts->mode == REC_MODE_REPLAY && t->poll_outside) {
			rec_capture_exit(r, t, row, c);
			/* in place before the handler, which may wind the call back */
			regs.rax = (uint64_t)c->ret;
			before = c->ret;
			tracer_set_regs(t->tid, &regs);
		}
		if (row->exit)
			row->exit(r, t, c);
		if (r->opts->mode == REC_MODE_RECORD)
			rec_capture_exit(r, t, row, c);
	} else if (!(r->opts->mode == REC_MODE_REPLAY && row->out != OUT_NONE &&
		     rec_capture_exit(r, t, row, c))) {
		if (row->exit)
			row->exit(r, t, c);
		if (r->opts->mode == REC_MODE_RECORD && row->out != OUT_NONE)
			rec_capture_exit(r, t, row, c);
	}
	if (r->ended)
		return;
	if (t->state == TASK_RUNNING)
		rec_parked_ended(t); /* not wound back to wait (a timed poll) */
	if (c->ret != before) {
		regs.rax = (uint64_t)c->ret;
		tracer_set_regs(t->tid, &regs);
	}
	hm_trace("task %d: %s(%#lx, %#lx, %#lx) = %ld", t->index, row->name,
		 (unsigned long)c->args[0], (unsigned long)c->args[1], (unsigned long)c->args[2],
		 c->ret);
	rec_digest_event(r, t, c, REC_EV_EXIT);
	if (!r->ended)
		rec_go_on(r, t, RESUME_CONT);
}

static void on_system_stop(struct rec *r, struct task *t, const struct tracer_stop *s)
{
	switch (s->kind) {
	case TRACER_FORK:
	case TRACER_VFORK:
	case TRACER_CLONE:
		on_new_task(r, t, (pid_t)s->msg, 0);
		tracer_cont(t->tid, 0);
		break;
	case TRACER_SIGNAL:
		tracer_cont(t->tid, s->sig);
		break;
	default:
		tracer_cont(t->tid, 0);
		break;
	}
}

/*
 * The exec event of a thread that is not its group's leader comes under the
 * leader's tid, with the thread's former tid as its message: the leader is
 * gone without a word (de_thread), and the thread takes its tid.
 */
static struct task *exec_task(struct rec *r, struct task *t, pid_t former)
{
	struct task *thread;

	if (former == t->tid || !(thread = rec_task_find(r, former)))
		return t;
	hm_debug("task %d exec'd in place of its leader, task %d", thread->index, t->index);
	rec_task_remove(r, t);
	thread->tid = thread->tgid;
	rec_task_rename(r, thread);
	return thread;
}

/* Whether T, interrupted, was inside a syscall that will restart. */
static int in_syscall(struct task *t)
{
	struct user_regs_struct regs;

	return tracer_get_regs(t->tid, &regs) == 0 && (long)regs.orig_rax >= 0 &&
	       is_restart((long)regs.rax);
}

static void on_guest_stop(struct rec *r, struct task *t, const struct tracer_stop *s)
{
	int own;

	/* Any ptrace stop consumes a pending PTRACE_INTERRUPT (ptrace_stop()
	 * clears JOBCTL_TRAP_STOP); only these two report it. */
	if (s->kind != TRACER_EVENT_STOP && s->kind != TRACER_SYSCALL_EXIT &&
	    s->kind != TRACER_SYSCALL_ENTRY)
		t->wants_interrupt = 0;
	switch (s->kind) {
	case TRACER_EVENT_STOP:
		if (!t->stopped_once) {
			/* Its first stop; it may have been chosen to run already. An
			 * interrupt sent before it is merged into this stop. */
			t->stopped_once = 1;
			t->wants_interrupt = 0;
			if (t == r->running) {
				tracer_blockwatch_set(t->tid);
				rec_resume(t, t->resume, t->resume_sig);
				t->resume_sig = 0;
			}
		} else if (t->wants_interrupt) {
			int spin = t->wants_interrupt == 2;

			t->wants_interrupt = 0;
			if (t == r->running && spin && !in_syscall(t)) {
				if (!rec_spin_declined(r, t))
					rec_spin_uncounted(r, t);
			} else if (t == r->running) {
				struct user_regs_struct regs;

				/* The call it blocked in has come back already
				 * (rax holds its result): make it run again. */
				t->wants_interrupt = 1;
				if (tracer_get_regs(t->tid, &regs) == 0)
					rewind_parked(t, &regs);
				t->wants_interrupt = 0;
				rec_park(r, t);
			}
		} else if (t == r->running) {
			/* A second interrupt, sent while the first was on its way. */
			rec_resume(t, t->retrying || t->pending ? RESUME_SYSCALL : RESUME_CONT, 0);
		}
		break;
	case TRACER_GROUP_STOP:
		rec_job_stopped(r, t, s->sig);
		break;
	case TRACER_SECCOMP:
		on_syscall_entry(r, t);
		break;
	case TRACER_SYSCALL_ENTRY:
		if (t->retrying && !t->pending) {
			/* The retried call starts again: follow it to its end. */
			rec_intr_clear(t);
			t->parked_keep = 1;
			rec_resume(t, RESUME_SYSCALL, 0);
			break;
		}
		on_syscall_exit(r, t);
		break;
	case TRACER_SYSCALL_EXIT:
		on_syscall_exit(r, t);
		break;
	case TRACER_SIGNAL:
		if (s->sig == SIGSYS && rec_refuse_abi(r, t))
			break;
		if (t->retrying) {
			/* A signal reached a retried task: that is something happening. */
			t->retrying = 0;
			r->progress++;
		}
		if ((s->sig == SIGSEGV || s->sig == SIGTRAP) && t->tsc_sigsegv &&
		    tracer_tsc_fault(t->tid, s->sig) == 1) {
			/* The guest asked for the fault (PR_SET_TSC): it gets it. */
			if (s->sig == SIGTRAP)
				rec_trap_mend(t, SIGTRAP); /* a patched site's int3 */
			rec_intr_deliver(r, t, SIGSEGV);
			rec_parked_drop(t);
			rec_resume(t, t->pending ? RESUME_SYSCALL : RESUME_CONT, SIGSEGV);
			break;
		}
		if ((s->sig == SIGSEGV || s->sig == SIGTRAP) &&
		    tracer_emulate_tsc(t->tid, s->sig, rec_clock_tsc(&r->clock),
				       (uint32_t)rec_task_cpu(t)) == 1) {
			struct rec_call tsc = { .nr = -1, .ret = (long)rec_clock_tsc(&r->clock) };

			rec_trap_mend(t, s->sig);
			/* Before the guest's exec it is hermit's own code (a
			 * sanitizer's runtime reads the TSC there, a number of
			 * times that varies): not an event of the guest's. */
			if (r->execd) {
				rec_digest_event(r, t, &tsc, 3);
				rec_clock_advance(&r->clock, REC_TSC_NS);
			}
			rec_resume(t, t->pending ? RESUME_SYSCALL : RESUME_CONT, 0);
			break;
		}
		if (s->sig == SIGTRAP && !t->pending && r->opts->mode == REC_MODE_REPLAY) {
			struct user_regs_struct regs;
			uint64_t at;
			pid_t in;

			if (tracer_bp_active(&at, &in) && in == t->tgid &&
			    tracer_get_regs(t->tid, &regs) == 0 && regs.rip - 1 == at) {
				rec_trap_mend(t, SIGTRAP);
				if (rec_replay_spin_hit(r, t, 0))
					break;
				/* Another thread passes there: over it. */
				int sig;

				regs.rip = at;
				tracer_set_regs(t->tid, &regs);
				sig = tracer_bp_step(t->tid);
				rec_trap_mend(t, SIGTRAP); /* the step's trap too */
				t->extra_stop = 1;
				if (sig >= 0)
					rec_resume(t, RESUME_CONT, sig);
				break;
			}
			if (tracer_get_regs(t->tid, &regs) == 0 &&
			    rec_int3_site(t, regs.rip - 1)) {
				rec_trap_mend(t, SIGTRAP);
				if (rec_replay_spin_hit(r, t, 1))
					break;
			}
		}
		if (s->sig == SIGTRAP && !t->pending && rec_preempt_trap(r, t) == 1)
			break; /* 2: a site stepped over for the debugger, whose step it was */
		/* A debugger's step into a trampoline goes on to the original
		 * code: gdb sees the patched place as the instruction it was. */
		if (s->sig == SIGTRAP && r->opts->debugger && r->dbg_step == t->tid &&
		    rec_in_trampoline(t)) {
			t->extra_stop = 1;
			rec_resume(t, RESUME_CONT, 0);
			break;
		}
		/* After the recorder's own int3s: a step onto a site is the site's. */
		if (s->sig == SIGTRAP && r->opts->debugger) {
			int stepping = r->dbg_step == t->tid;

			struct rec_dbg_ticks tk = { t->tick_count, t->event_ticks };

			if (stepping)
				r->dbg_step = 0;
			int got = r->opts->debugger->trap(r->opts->debugger->ctx, t->tid, t->tgid,
							  t->index, stepping, &tk);

			if (got) {
				t->extra_stop = 1;
				if (got == 1)
					r->dbg_pending = t;
				if (got == 3) {
					/* It goes on one step at a time, and so does
					 * another task resumed first (this one exited). */
					r->dbg_step = t->tid;
					r->dbg_stop_next = 1;
				}
				rec_resume(t, t->pending ? RESUME_SYSCALL : RESUME_CONT, 0);
				break;
			}
			if (stepping)
				r->dbg_step = t->tid; /* not the step's trap: it goes on */
		}
		/* (the kernel's SIGHUP to an orphaned, stopped process group) */
		own = rec_job_own_signal(r, t, s->sig);
		if (!own && r->opts->mode == REC_MODE_REPLAY && r->opts->debugger_has_terminal &&
		    rec_from_terminal(t, s->sig)) {
			/* Ctrl-C in the gdb that `hermit replay` started reaches
			 * its whole process group, the guest too: gdb stops the
			 * replay itself (a 0x03 on the connection), and the
			 * replay delivers only the recorded signals. */
			rec_resume(t, t->pending ? RESUME_SYSCALL : RESUME_CONT, 0);
			break;
		}
		if (!own && r->opts->mode == REC_MODE_REPLAY && rec_from_terminal(t, s->sig)) {
			/* Ctrl-C at a replay ends the replay. */
			hm_error("replay interrupted by signal %d at event %llu", s->sig,
				 (unsigned long long)r->frames);
			rec_end_run(r, 128 + s->sig);
			r->diverged = 1; /* nothing more to compare */
			break;
		}
		if (!own && (rec_from_terminal(t, s->sig) || rec_from_outside(r, t, s->sig))) {
			/* Ctrl-C and friends reach every process of the terminal's
			 * foreground group at whatever instruction each is on; so does
			 * a kill from outside. Hold them back and deliver them at the
			 * next scheduling point (a replay delivers the recorded ones). */
			if (r->opts->mode != REC_MODE_REPLAY)
				rec_defer_signal(r, t->tgid, s->sig);
			rec_resume(t, t->pending ? RESUME_SYSCALL : RESUME_CONT, 0);
			break;
		}
		if (rec_pidns_fault(r, t, s->sig))
			break; /* t is gone */
		rec_job_signal(r, t, s->sig);
		if (hm_log_enabled(HM_LOG_DEBUG)) {
			struct user_regs_struct regs;

			if (tracer_get_regs(t->tid, &regs) == 0)
				hm_debug("task %d: signal %d at pc %#llx", t->index, s->sig,
					 (unsigned long long)regs.rip);
		}
		if (rec_intr_deliver(r, t, s->sig))
			rec_fifo_drop(t); /* a restarted open of a FIFO starts afresh */
		rec_parked_drop(t); /* a restart after its handler reads memory again */
		rec_resume(t, t->pending ? RESUME_SYSCALL : RESUME_CONT, s->sig);
		break;
	case TRACER_FORK:
	case TRACER_CLONE:
		on_new_task(r, t, (pid_t)s->msg, 0);
		r->progress++;
		rec_resume(t, RESUME_CONT, 0);
		break;
	case TRACER_VFORK:
		/* The parent is held until the child execs or exits (vfork(2)). */
		on_new_task(r, t, (pid_t)s->msg, 1);
		r->progress++;
		rec_set_aside(r, t, TASK_VFORK_WAIT, RESUME_CONT);
		break;
	case TRACER_EXEC: {
		/* (a step of the call, by the thread that exec'd) */
		int stepping = r->dbg_step && (r->dbg_step == t->tid || r->dbg_step == (pid_t)s->msg);

		t = exec_task(r, t, (pid_t)s->msg);
		if (t->index == 0)
			r->execd = 1;
		rec_ticks_exec(r, t);
		on_exec(r, t);
		if (r->ended) {
			tracer_cont(t->tid, 0); /* killed, it must leave this stop to die */
			break;
		}
		r->progress++;
		if (r->opts->debugger && !r->dbg_started && t->index == 0) {
			/* The program's first instruction: where a debugger starts. */
			r->dbg_started = 1;
			if (r->opts->debugger->at_start(r->opts->debugger->ctx))
				r->dbg_pending = t;
		} else if (r->opts->debugger && r->dbg_started && r->opts->debugger->at_exec) {
			/* Another program: the debugger follows it, and a step
			 * of the call ends here, not at the trap a step from
			 * here would add without running an instruction. */
			struct rec_dbg_ticks tk = { t->tick_count, t->event_ticks };

			if (stepping)
				r->dbg_step = 0;
			if (r->opts->debugger->at_exec(r->opts->debugger->ctx, t->tid, t->tgid,
						       t->index, stepping, &tk))
				r->dbg_pending = t;
		}
		rec_resume(t, RESUME_CONT, 0);
		break;
	}
	case TRACER_EXIT:
		rec_exit_stop(r, t, s);
		break;
	default:
		rec_resume(t, RESUME_CONT, 0);
		break;
	}
}

void rec_handle(struct rec *r, const struct tracer_stop *s)
{
	struct task *t = rec_task_find(r, s->tid);

	if (!t) {
		/* A child of hermit's that is no tracee (a checkpoint's process,
		 * replayer/checkpoint.c: hermit is a subreaper) ended. */
		if (s->kind == TRACER_EXITED || s->kind == TRACER_KILLED)
			return;
		/* A child whose first stop beat its parent's fork event. */
		t = rec_task_add(r, s->tid);
	}
	hm_trace("stop: tid %d %s sig %d", s->tid, tracer_stop_name(s->kind), s->sig);
	if (s->kind == TRACER_EXITED || s->kind == TRACER_KILLED) {
		rec_task_ended(r, t, s);
		return;
	}
	if (t->system == -1) {
		/* Unclassified: only its initial stop can come before the parent's event. */
		t->stopped_once = 1;
		return;
	}
	/* A stop of the running task (a syscall, a tick, a trapped rdtsc)
	 * shows it does not spin: its spin watch starts again. */
	if (t == r->running && s->kind != TRACER_EVENT_STOP)
		tracer_blockwatch_touch();
	if (t->system == 1) {
		on_system_stop(r, t, s);
	} else {
		/* Stopped at a wall-clock moment, maybe inside a site's count:
		 * at the site instead, before the counter is read (a budget
		 * written over a count half done would be lost). */
		if (t->counting && (s->kind == TRACER_EVENT_STOP || s->kind == TRACER_GROUP_STOP ||
				    (s->kind == TRACER_SIGNAL && s->sig != SIGTRAP)))
			tracer_ticks_settle(t->tid, t->tgid);
		/* (what it counted since the execve's stop is lost with the old
		 * program: rec_ticks_unstop) */
		if (s->kind == TRACER_EXEC)
			t->counting = 0;
		rec_ticks_stop(r, t);
		on_guest_stop(r, t, s);
	}
}

static void end_system_tasks(struct rec *r)
{
	struct tracer_stop s;
	int err;

	for (int i = 1; i >= 0; i--) {
		if (r->guest.system[i] > 0)
			kill(r->guest.system[i], SIGKILL);
	}
	/* Reap everything that is left; init's death ends its namespace. */
	while (r->ntasks) {
		struct task *t;

		err = tracer_wait(&s);
		if (err == -EINTR)
			continue;
		if (err)
			break;
		t = rec_task_find(r, s.tid);
		if (s.kind == TRACER_EXITED || s.kind == TRACER_KILLED) {
			if (t)
				rec_task_remove(r, t);
		} else {
			tracer_cont(s.tid, 0);
		}
	}
}

/* Replay: the run ended; the log must end here too, with the same status. */
static void replay_check_end(struct rec *r)
{
	const struct rec_event_record *want;
	const unsigned char *p;
	size_t n;
	int status = r->main_done ? r->main_status : HM_EXIT_INTERNAL;
	struct rec_event_record end = { { REC_EV_END, status, (int64_t)r->events } };
	int got = r->opts->source->peek(r->opts->source->ctx, &want, &p, &n);

	if (got > 0 && REC_EV_KIND(want) == REC_EV_END && want->fields[1] == status)
		return;
	/* The guest could not be started (tracer/launch.c said why, in one
	 * line, and exited 125 before its program ran): no divergence. */
	if (!r->events && status == HM_EXIT_INTERNAL)
		return;
	if (got > 0)
		rec_diverged(r, want, &end, NULL);
	else
		rec_diverged(r, NULL, &end, got < 0 ? "the log is damaged here" : NULL);
	r->main_status = HM_EXIT_DIVERGED;
}

/*
 * The moment that divides file times the run made from those it found
 * (fsvirt.c). File times come from the kernel's coarse clock (or finer,
 * never earlier), so the start is the coarse clock's next tick: whatever
 * was written before it has an earlier time, whatever the run writes has
 * this one or later, however fast or busy the host. Waits a jiffy at most.
 */
static int64_t start_real_ns(void)
{
	struct timespec ts, now;
	const struct timespec nap = { 0, 100000 };

	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	do {
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_REALTIME_COARSE, &now);
	} while (now.tv_sec == ts.tv_sec && now.tv_nsec == ts.tv_nsec);
	return (int64_t)now.tv_sec * HM_NS_PER_SEC + now.tv_nsec;
}

int rec_run(const struct rec_options *opts, struct rec_result *res)
{
	struct tracer_trap *traps = xcalloc(rec_syscall_count(), sizeof(*traps));
	struct tracer_launch launch = { 0 };
	size_t ntraps = 0;
	struct rec r;
	int err;

	memset(&r, 0, sizeof(r));
	r.opts = opts;
	r.digest = HM_FNV1A_INIT;
	rec_clock_init(&r.clock, opts->epoch_ns);
	rec_prng_init(&r.prng, opts->seed);
	r.fs = rec_fsvirt_new(start_real_ns());
	err = rec_preempt_init(&r);
	if (err) {
		rec_fsvirt_free(r.fs);
		free(traps);
		return err;
	}
	for (size_t i = 0; i < rec_syscall_count(); i++) {
		const struct rec_syscall *row = rec_syscall_row(i);

		/* Where a log is kept, every call of a row stops (capture.c). */
		if (row->hidden == HIDDEN_RECORD && opts->mode != REC_MODE_RECORD) {
			/* A debugger can stop before an exec (capture.c), as the
			 * recording stopped there. */
			if ((row->nr == SYS_execve || row->nr == SYS_execveat) && opts->debugger &&
			    opts->debugger->before_exec)
				goto trap;
			if (row->nr != SYS_mmap)
				continue;
			/* Code mapped from a file is patched to count ticks. */
			traps[ntraps].mask_arg = 2;
			traps[ntraps].mask = PROT_EXEC;
		}
		if (row->hidden == HIDDEN_LOG && opts->mode == REC_MODE_RUN)
			continue;
	trap:
		traps[ntraps].nr = row->nr;
		traps[ntraps].fd_min = opts->mode == REC_MODE_RUN ? row->fd_min : 0;
		/* A log keeps every call of a row hidden from `run` too. */
		if (row->hidden == SHOWN || opts->mode == REC_MODE_RUN) {
			traps[ntraps].match_arg = row->match_arg;
			traps[ntraps].match = row->match;
			traps[ntraps].match_also = rec_syscall_match_also(row);
		}
		traps[ntraps].nonzero_arg = row->nonzero_arg;
		ntraps++;
	}
	hm_buf_init(&r.payload);
	launch.argv = opts->argv;
	launch.envp = opts->envp;
	launch.namespaces = opts->namespaces;
	launch.network_host = opts->network_host;
	launch.traps = traps;
	launch.ntraps = ntraps;
	launch.cpus = REC_VIRTUAL_CPUS;
	launch.cwd = opts->cwd;
	launch.binds = opts->binds;
	launch.before = opts->before;
	launch.nbefore = opts->nbefore;
	launch.private_files = opts->mode == REC_MODE_REPLAY;
	launch.fds = opts->fds;
	launch.quiet = opts->quiet;
	err = tracer_launch(&launch, &r.guest);
	free(traps);
	if (err) {
		rec_fsvirt_free(r.fs);
		return err;
	}
	if (r.guest.system[0]) {
		struct task *setup = rec_task_add(&r, r.guest.system[0]);

		setup->system = 1;
		setup->state = TASK_RUNNING;
	} else {
		/* Seized while running: it is the running task from the start. */
		struct task *t = rec_task_add(&r, r.guest.main);

		t->system = 0;
		t->index = r.next_index++;
		t->stopped_once = 1;
		tracer_task_ids(t->tid, &t->tgid, &t->vtid);
		rec_preempt_new_task(&r, t);
		r.running = t;
		t->state = TASK_RUNNING;
	}
	rec_note_outside(&r);
	rec_ptys_init(&r);
	if (!tracer_tsc_traps())
		hm_info("rdtsc does not trap on this host (PR_SET_TSC has no effect): the "
			"rdtsc and rdtscp instructions of each executable are patched instead");
	err = tracer_blockwatch_start();
	if (err) {
		hm_error("cannot start the block watch thread: %s", hm_strerror(err));
		end_system_tasks(&r);
		rec_fsvirt_free(r.fs);
		return err;
	}
	if (r.running)
		tracer_blockwatch_set(r.running->tid);
	rec_debug_attach(opts->debugger ? &r : NULL);
	if (opts->timeout_ns > 0)
		tracer_blockwatch_deadline(opts->timeout_ns);
	for (;;) {
		struct tracer_stop s;

		if (r.ended || (r.main_done && rec_live_guests(&r) == 0))
			break;
		if (opts->virtual_timeout_ns > 0 && r.clock.now_ns > opts->virtual_timeout_ns) {
			hm_error("the guest ran past --virtual-timeout: it was stopped");
			rec_end_run(&r, HM_EXIT_SCHEDULER);
			break;
		}
		if (!r.running) {
			rec_schedule(&r);
			if (r.ended)
				break;
		}
		if (opts->mode == REC_MODE_REPLAY)
			rec_replay_arm_spin(&r, r.running);
		err = tracer_wait(&s);
		if (err == -EINTR) {
			if (tracer_dump_asked())
				rec_dump(&r);
			if (tracer_blockwatch_expired()) {
				hm_error("the guest ran past --timeout: it was killed");
				rec_end_run(&r, HM_EXIT_TIMEOUT);
				break;
			}
			if (tracer_blockwatch_spun())
				rec_check_spin(&r);
			else
				rec_check_blocked(&r);
			continue;
		}
		if (err == -ECHILD)
			break;
		if (err) {
			hm_error("cannot wait for the guest: %s", hm_strerror(err));
			break;
		}
		rec_handle(&r, &s);
	}
	tracer_blockwatch_stop();
	rec_debug_attach(NULL);
	tracer_bp_clear();
	end_system_tasks(&r);
	tracer_tsc_free();
	tracer_ticks_free();
	while (r.ntasks)
		rec_task_remove(&r, r.tasks[0]);
	free(r.tasks);
	free(r.runq);
	free(r.timers);
	free(r.deferred);
	free(r.own);
	rec_forget_outside(&r);
	rec_ptys_free(&r);
	if (opts->mode == REC_MODE_RECORD)
		rec_shared_check(&r);
	rec_shared_free(&r);
	rec_fsvirt_free(r.fs);
	hm_buf_free(&r.payload);
	rec_fileref_free(&r);
	if (opts->mode == REC_MODE_REPLAY && !r.diverged)
		replay_check_end(&r);
	res->exit_status = r.main_done ? r.main_status : HM_EXIT_INTERNAL;
	res->events = r.events;
	res->digest = r.digest;
	res->frames = r.frames;
	res->uncounted = r.uncounted;
	res->deferred = r.watch_ticked;
	res->preempt = r.ticks_source;
	return 0;
}
