/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Preemptions by the spin watch (preempt.c), recorded and found again. The
 * spin watch interrupts a thread that ran 100 ms without a stop, at a
 * wall-clock moment; the point is named by its registers and a digest of
 * the top of its stack, and a replay finds it with a breakpoint.
 */
#include "config.h"

#include <string.h>

#include "common/common.h"
#include "internal.h"

/* Where the spin watch preempts T: named by the registers and a digest of
 * the top of the stack, which is what a replay can find again. */
static void spin_point(struct task *t, struct rec_call *ev)
{
	struct user_regs_struct regs;
	unsigned char stack[256];

	memset(ev, 0, sizeof(*ev));
	ev->nr = -3;
	if (tracer_get_regs(t->tid, &regs) == 0) {
		ev->args[0] = regs.rip;
		ev->args[1] = regs.rsp;
		ev->args[2] = regs.rax;
		ev->args[3] = regs.rcx;
		{
			/* All general registers (the flags without RF and TF). */
			struct user_regs_struct g = regs;
			const unsigned char *b = (const unsigned char *)&g;
			uint64_t h = 0xcbf29ce484222325ULL;

			g.eflags &= ~(uint64_t)0x10100;
			for (size_t i = 0; i < sizeof(g); i++)
				h = (h ^ b[i]) * 0x100000001b3ULL;
			ev->args[5] = h;
		}
		if (tracer_read_mem(t->tid, regs.rsp, stack, sizeof(stack)) == 0) {
			uint64_t h = 0xcbf29ce484222325ULL;

			for (size_t i = 0; i < sizeof(stack); i++)
				h = (h ^ stack[i]) * 0x100000001b3ULL;
			ev->args[4] = h;
		}
	}
}

/* The spin watch's preemption of T, event EV of KIND, made: T is set aside. */
static void watch_preempt(struct rec *r, struct task *t, const struct rec_call *ev, int kind)
{
	rec_digest_event(r, t, ev, kind);
	if (r->ended)
		return;
	/* Under chaos it may have the top priority: it spins, so it goes last
	 * until its next preemption draws again (a starvation interval ends). */
	if (r->opts->chaos)
		t->priority = -1;
	rec_set_aside(r, t, TASK_READY, RESUME_CONT);
}

/* Preempt T, running, where it is: the point a replay must find. */
static void spin_preempt(struct rec *r, struct task *t)
{
	struct rec_call ev;

	spin_point(t, &ev);
	r->uncounted++;
	hm_debug("task %d preempted by the spin watch at pc %#llx", t->index,
		 (unsigned long long)ev.args[0]);
	watch_preempt(r, t, &ev, REC_EV_SPIN);
}

/* The spin watch lets T, running, go on; it looks again in 100 ms. */
static void run_on(struct task *t)
{
	/* A stop a run elsewhere may not make: where its budget ends stays. */
	t->extra_stop = 1;
	tracer_blockwatch_set(t->tid);
	rec_resume(t, RESUME_CONT, 0);
}

/*
 * In counted code every loop passes a site, so the thread's budget
 * preempts it at a tick, the same on every host: a host too busy to let
 * it get there within the watch's 100 ms (a CPU hog, page faults) is no
 * reason to preempt it at a wall-clock moment. Unless no tick came since
 * the watch last let it run on while it had SPIN_CPU of the CPU: then it
 * spins where nothing counts (V8's builtins, left unpatched in node's
 * .text), and the watch takes it. A thread the host did not run (a hog on
 * its CPU) made no tick either, and is not taken for it. The vDSO counts
 * no ticks, but nothing there runs long (tracer_in_vdso): a busy host
 * that catches a thread in the syscall stub of clock_gettime is no reason
 * either (it made `hermit run` of a program reading the clock differ from
 * run to run under a CPU hog).
 */
#define SPIN_CPU 5 /* clock ticks (USER_HZ): 50 ms */

int rec_spin_declined(struct rec *r, struct task *t)
{
	struct user_regs_struct regs;
	uint64_t cpu = 0;

	if (r->ticks_source != REC_PREEMPT_SITES || tracer_get_regs(t->tid, &regs) < 0 ||
	    (!tracer_ticks_counted(t->tgid, regs.rip) && !tracer_in_vdso(t->tid, regs.rip)))
		return 0;
	if (t->spin_mark == t->tick_count + 1 &&
	    (tracer_task_cputime(t->tid, &cpu) < 0 || cpu >= t->spin_cpu + SPIN_CPU))
		return 0;
	if (t->spin_mark != t->tick_count + 1) {
		t->spin_mark = t->tick_count + 1;
		t->spin_cpu = tracer_task_cputime(t->tid, &cpu) == 0 ? cpu : 0;
	}
	hm_debug("task %d is in counted code (pc %#llx, tick %llu): its budget preempts it",
		 t->index, (unsigned long long)regs.rip, (unsigned long long)t->tick_count);
	run_on(t);
	return 1;
}

/*
 * Code that no tick counts (a JIT's, an interpreter's generated code) is
 * rarely left for long: java's template interpreter calls into libjvm, a
 * JIT-compiled loop ends and returns to counted code, node's workers post
 * a message through libuv. So the watch first gives T a budget of 0 and
 * lets it run on: its next tick preempts it, at a site, and a replay
 * stops it there with its budget (rec_spin_tick_stop), as cheaply as at
 * any tick. Only where no tick comes while it has WATCH_CPU more of the
 * CPU (a pure JIT loop: tests/guests/jitrace.c) is it preempted where it
 * is, at a point a replay must search for with a breakpoint, a stop at
 * every visit of that pc (rec_replay_spin_hit): deep in an interpreter's
 * dispatch loop, millions of them.
 */
#define WATCH_CPU 10 /* clock ticks (USER_HZ): 100 ms */

void rec_spin_uncounted(struct rec *r, struct task *t)
{
	uint64_t cpu = 0;
	int timed = tracer_task_cputime(t->tid, &cpu) == 0;

	if (r->ticks_source == REC_PREEMPT_SITES && tracer_ticks_armed(t->tgid) &&
	    (!t->watch_tick || (timed && cpu < t->watch_cpu + WATCH_CPU))) {
		if (!t->watch_tick) {
			t->watch_tick = 1;
			t->watch_cpu = timed ? cpu : 0;
			hm_debug("task %d is where no tick counts (tick %llu): its next tick "
				 "preempts it",
				 t->index, (unsigned long long)t->tick_count);
		}
		run_on(t);
		return;
	}
	t->watch_tick = 0;
	spin_preempt(r, t);
}

uint64_t rec_spin_tick_stop(struct rec *r, const struct task *t)
{
	const struct rec_event_record *ev;
	const unsigned char *p;
	size_t n;

	if (r->opts->mode != REC_MODE_REPLAY)
		return t->watch_tick ? t->tick_count : UINT64_MAX;
	if (r->diverged || r->opts->source->peek(r->opts->source->ctx, &ev, &p, &n) <= 0 ||
	    REC_EV_KIND(ev) != REC_EV_WATCH || REC_EV_TASK(ev) != t->index ||
	    REC_EV_TICKS(ev) < 0)
		return UINT64_MAX;
	return (uint64_t)REC_EV_TICKS(ev);
}

int rec_spin_tick(struct rec *r, struct task *t, uint64_t site)
{
	struct rec_call ev = { .nr = -6, .ret = (long)t->ticks };

	if (rec_spin_tick_stop(r, t) != t->tick_count)
		return 0;
	t->watch_tick = 0;
	ev.args[0] = site;
	r->watch_ticked++;
	hm_debug("task %d preempted at site %#llx, its first tick since the spin watch asked",
		 t->index, (unsigned long long)site);
	/* (in a replay, a site other than the recorded one is a divergence) */
	watch_preempt(r, t, &ev, REC_EV_WATCH);
	return 1;
}

/*
 * Replay: the spin watch preempted at wall-clock moments, so a replay
 * cannot wait for its own. When the next recorded event is such a
 * preemption of task T, a breakpoint goes at its address before T is
 * resumed (set while it runs, it may come too late: a busy host decides),
 * and the task is preempted at the first hit whose registers and stack
 * match.
 */
void rec_replay_arm_spin(struct rec *r, struct task *t)
{
	const struct rec_event_record *ev;
	const unsigned char *p;
	size_t n;
	uint64_t at;
	pid_t in;

	if (!t || r->diverged || r->opts->source->peek(r->opts->source->ctx, &ev, &p, &n) <= 0 ||
	    REC_EV_KIND(ev) != REC_EV_SPIN || REC_EV_TASK(ev) != t->index)
		return;
	if (tracer_bp_active(&at, &in) && in == t->tgid && at == (uint64_t)ev->fields[3])
		return;
	/* A site's int3 already stops there (while its budget lasts). */
	if (rec_int3_site(t, (uint64_t)ev->fields[3]))
		return;
	if (tracer_bp_set(t->tgid, (uint64_t)ev->fields[3]) < 0)
		hm_debug("cannot set a breakpoint at %#llx for task %d",
			 (unsigned long long)ev->fields[3], t->index);
}

/*
 * The point must be found exactly: the same registers, stack and ticks
 * (the event's own ticks field). Ticks are counted exactly, so a pass
 * with fewer ticks is an earlier visit, and one with more means the
 * replay went past the recorded point: a divergence, never "close enough".
 */
int rec_replay_spin_hit(struct rec *r, struct task *t, int at_site)
{
	const struct rec_event_record *want;
	const unsigned char *p;
	size_t n;
	struct user_regs_struct regs;
	struct rec_call ev;
	int err, exact;

	if (r->opts->source->peek(r->opts->source->ctx, &want, &p, &n) <= 0 ||
	    REC_EV_KIND(want) != REC_EV_SPIN || REC_EV_TASK(want) != t->index ||
	    tracer_get_regs(t->tid, &regs) < 0 || regs.rip - 1 != (uint64_t)want->fields[3])
		return 0;
	/* The state before the int3: what the recorder saw, stopped there. */
	regs.rip--;
	if (tracer_set_regs(t->tid, &regs) < 0)
		return 0;
	spin_point(t, &ev);
	exact = memcmp(&want->fields[3], ev.args, sizeof(ev.args)) == 0 &&
		(int64_t)t->tick_count == REC_EV_TICKS(want);
	if (!exact && (int64_t)t->tick_count > REC_EV_TICKS(want)) {
		struct rec_event_record got = { { REC_EV_SPIN, t->index, ev.nr } };

		memcpy(&got.fields[3], ev.args, sizeof(ev.args));
		got.fields[10] = (int64_t)t->tick_count;
		tracer_bp_clear();
		rec_diverged(r, want, &got,
			     "the replay passed the spin-watch preemption without meeting its "
			     "registers");
		return 1;
	}
	if (exact) {
		tracer_bp_clear();
		/* A site's int3 is hit again, and counted, when it goes on. */
		watch_preempt(r, t, &ev, REC_EV_SPIN);
		return 1;
	}
	if (at_site) {
		/* Not yet: the site takes its hit as it would have. */
		regs.rip++;
		tracer_set_regs(t->tid, &regs);
		return 0;
	}
	err = tracer_bp_step(t->tid);
	if (err >= 0)
		rec_resume(t, RESUME_CONT, err);
	return 1;
}
