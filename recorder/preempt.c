/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Preemption and chaos (DESIGN.md "Preemption", "Chaos").
 *
 * A thread that makes no syscalls must still give way. Where there is no
 * PMU (this project's VMs, most CI), ticks are counted in the guest
 * (tracer/ticks.c): every process has a tick budget in its Hermit page,
 * written here when one of its threads is resumed and read back at the
 * thread's next stop, so each thread's tick count is exact and the same
 * on every run and in every replay. A thread whose timeslice of ticks is
 * spent while another can run is set aside at the site where it ran out.
 * Only code that is not counted (JIT code) leaves the spin watch to
 * interrupt a thread at a wall-clock moment, which a replay must then
 * find exactly or report as a divergence (spin.c).
 *
 * --chaos, in the spirit of rr's chaos mode: every task gets a random
 * priority and the highest ready one runs; timeslices are drawn short
 * (1-8 ticks) or long (50-500); a preempted task sometimes draws a new
 * priority, which ends a starvation interval; an intercepted syscall is
 * sometimes a switch; and a seeded sample of instructions (one in two)
 * becomes a site, so preemption falls inside critical sections. All of it
 * comes from --sched-seed, so a seed repeats its interleaving.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "common/common.h"
#include "internal.h"

/* One instruction in CHAOS_DENSITY is a site under chaos, so that a
 * preemption can fall between a load and the store that depends on it. */
#define CHAOS_DENSITY 1
/* Ticks of a timeslice: long enough that a switch (two ptrace stops and
 * the tracer between, 40 to 100 us) is rare next to the work between.
 * A tick is a backward branch or an indirect jump or call, rarer than
 * rr's conditional branches (rr's default: 2,500,000 of those, about 50
 * ms); here it is 1-10 ms of a tight loop, and 100 ms of virtual time
 * (REC_TICK_NS). At 100,000 ticks, two threads that only compute ran
 * about twice as long as one core natively (bench/run.sh cpuloop-2thr). */
#define DEFAULT_TIMESLICE 1000000
/* Ticks a thread runs between stops when no other can run. */
#define ALONE_BUDGET (1ULL << 22)

/* rec_resume has no struct rec: the run whose ticks are counted. */
static struct rec *ticking;

static uint64_t draw(struct rec *r, uint64_t lo, uint64_t hi)
{
	return lo + rec_prng_next(&r->sched_prng) % (hi - lo + 1);
}

int rec_preempt_init(struct rec *r)
{
	const struct rec_options *o = r->opts;
	char why[128];
	int pmu = tracer_pmu_probe(why, sizeof(why));

	ticking = r;
	rec_prng_init(&r->sched_prng, o->sched_seed);
	r->max_slice = o->max_timeslice ? o->max_timeslice : DEFAULT_TIMESLICE;
	if (o->chaos && o->chaos_seeded_timeslice)
		r->max_slice = draw(r, 1, o->max_timeslice ? o->max_timeslice : 1000);
	switch (o->preempt) {
	case REC_PREEMPT_NONE:
		r->ticks_source = REC_PREEMPT_NONE;
		snprintf(r->preempt_why, sizeof(r->preempt_why),
			 "none (--preempt=none): threads switch only at syscalls");
		return 0;
	case REC_PREEMPT_PMU:
		if (pmu < 0) {
			hm_error("cannot use --preempt=pmu: %s", why);
			return pmu;
		}
		hm_error("cannot use --preempt=pmu: the PMU counts (%s) but preemption by it is "
			 "not implemented yet; use --preempt=sites",
			 why);
		return -ENOTSUP;
	case REC_PREEMPT_SITES:
		r->ticks_source = REC_PREEMPT_SITES;
		snprintf(r->preempt_why, sizeof(r->preempt_why), "sites (--preempt=sites)");
		return 0;
	case REC_PREEMPT_AUTO:
	default:
		r->ticks_source = REC_PREEMPT_SITES;
		if (pmu < 0)
			snprintf(r->preempt_why, sizeof(r->preempt_why), "sites (no PMU: %s)", why);
		else
			snprintf(
				r->preempt_why, sizeof(r->preempt_why),
				"sites (a PMU counts, %s, but hermit does not preempt with it yet)",
				why);
		return 0;
	}
}

void rec_preempt_announce(struct rec *r)
{
	if (r->said_preemption)
		return;
	r->said_preemption = 1;
	hm_notice("preemption: %s%s", r->preempt_why, r->opts->chaos ? ", chaos" : "");
}

/* Chaos timeslices of T double every CHAOS_GROWTH preemptions it has
 * had: short programs meet the short ones that find races, and a long
 * computation pays for a few thousand switches, not millions (as the
 * int3 sites' budgets once did). */
#define CHAOS_GROWTH 512

static uint64_t new_slice(struct rec *r, const struct task *t)
{
	unsigned shift = (unsigned)(t->preemptions / CHAOS_GROWTH);

	if (!r->opts->chaos)
		return r->max_slice;
	if (r->opts->chaos_seeded_timeslice)
		return draw(r, 1, r->max_slice);
	if (shift > 20)
		shift = 20;
	return (draw(r, 0, 1) ? draw(r, 1, 8) : draw(r, 50, 500)) << shift;
}

void rec_preempt_new_task(struct rec *r, struct task *t)
{
	t->priority = r->opts->chaos ? (int)draw(r, 0, 3) : 0;
	t->timeslice = new_slice(r, t);
	t->ticks = 0;
}

void rec_preempt_chosen(struct rec *r, struct task *t)
{
	(void)r;
	t->ticks = 0;
}

/* Every guest process counts ticks from its exec on (a fork inherits the
 * page and the patches). */
void rec_preempt_exec(struct rec *r, struct task *t)
{
	int n;

	tracer_ticks_drop(t->tgid);
	if (r->ticks_source != REC_PREEMPT_SITES)
		return;
	n = tracer_ticks_exec(t->tid, t->tgid, r->opts->sched_seed,
			      r->opts->chaos ? CHAOS_DENSITY : 0);
	if (n < 0)
		hm_warn("cannot count the ticks of task %d (%s): it is preempted by the spin "
			"watch only",
			t->index, hm_strerror(n));
	t->counting = 0;
}

void rec_preempt_mapped(struct rec *r, struct task *t, const struct rec_call *c, long ret)
{
	int n;

	if (r->ticks_source != REC_PREEMPT_SITES || ret < 0 || !(c->args[2] & PROT_EXEC))
		return;
	if (c->nr != SYS_mmap || (int)c->args[4] < 0 || (c->args[3] & MAP_ANONYMOUS))
		return; /* anonymous code (a JIT's) is not counted */
	n = tracer_ticks_mapped(t->tid, t->tgid, (uint64_t)ret, c->args[1], (int)c->args[4],
				c->args[5], r->opts->sched_seed,
				r->opts->chaos ? CHAOS_DENSITY : 0);
	if (n < 0)
		hm_debug("task %d: cannot patch the code mapped at %#lx: %s", t->index,
			 (unsigned long)ret, hm_strerror(n));
}

void rec_preempt_fork(struct rec *r, struct task *parent, struct task *child)
{
	(void)r;
	child->counting = 0;
	if (child->tgid != parent->tgid)
		tracer_ticks_fork(parent->tgid, child->tgid);
}

/* Where a debugger's seek wants T to stop by its ticks (UINT64_MAX: nowhere). */
static uint64_t debugger_tick_stop(const struct rec *r, const struct task *t)
{
	const struct rec_debugger *d = r->opts->debugger;

	return d && d->tick_stop ? d->tick_stop(d->ctx, t->index) : UINT64_MAX;
}

/* The ticks T may run before it must stop: what is left of its timeslice
 * while another can run, else a long stretch; never past the next virtual
 * deadline, which ticks bring nearer. */
_Static_assert(REC_TICK_NS == TRACER_HCLOCK_TICK_NS,
	       "the guest's clock counts ticks as the recorder's");

static uint64_t budget(struct rec *r, struct task *t)
{
	uint64_t b = t->timeslice > t->ticks ? t->timeslice - t->ticks : 0;
	int64_t due = rec_next_deadline(r);

	if (!rec_others_can_run(r, t) && b < ALONE_BUDGET)
		b = ALONE_BUDGET;
	if (due >= 0) {
		int64_t left = due - r->clock.now_ns;
		uint64_t n = left > 0 ? (uint64_t)((left + REC_TICK_NS - 1) / REC_TICK_NS) : 0;

		if (n < b)
			b = n;
	}
	return b;
}

int rec_in_trampoline(const struct task *t)
{
	struct user_regs_struct regs;
	uint64_t orig;

	return tracer_get_regs(t->tid, &regs) == 0 &&
	       (tracer_ticks_original_pc(t->tgid, regs.rip, &orig) ||
		tracer_ticks_in_slot(t->tgid, regs.rip));
}

int rec_int3_site(const struct task *t, uint64_t addr)
{
	uint64_t start;
	size_t len;

	return tracer_ticks_site(t->tgid, addr, &start, &len, NULL, 0) == TRACER_SITE_INT3 &&
	       start == addr;
}

void rec_ticks_resume(struct task *t)
{
	struct rec *r = ticking;
	int kept = t->extra_stop;
	uint64_t stop;

	t->extra_stop = 0;
	if (!kept)
		t->extra_ticks = 0;
	if (r && r->opts->mode == REC_MODE_REPLAY && !t->system)
		rec_replay_arm_spin(r, t);
	if (!r || t->system || r->ticks_source != REC_PREEMPT_SITES || t->state == TASK_EXITING ||
	    !tracer_ticks_armed(t->tgid))
		return;
	/* A stop that a run without a debugger does not make (struct task's
	 * extra_stop) leaves where the budget ends as it was: its traps, and
	 * the timeslices they end, fall where they fell in the recording. */
	if (!kept || t->budget_end < t->tick_count)
		t->budget_end = t->tick_count + budget(r, t);
	t->budget = t->budget_end - t->tick_count;
	stop = debugger_tick_stop(r, t);
	if (stop >= t->tick_count && stop - t->tick_count < t->budget)
		t->budget = stop - t->tick_count;
	/* the spin watch's preemption at a tick (spin.c) */
	stop = rec_spin_tick_stop(r, t);
	if (stop >= t->tick_count && stop - t->tick_count < t->budget)
		t->budget = stop - t->tick_count;
	if (r->opts->fastpath) {
		/* the clock the guest reads without stopping (docs/fastpath.md):
		 * rec_clock_read's, as rec_ticks_stop will advance it */
		struct tracer_hclock hc = {
			.counter = t->budget,
			.seq = ++r->hclock_seq,
			.armed = t->budget,
			.real_ns = r->clock.epoch_ns + r->clock.now_ns,
			.mono_ns = REC_BOOT_NS + r->clock.now_ns,
			.cpu_ns = r->clock.now_ns,
		};

		t->counting = tracer_ticks_arm(t->tid, &hc) == 0;
		return;
	}
	/* Nothing ran and nothing wrote the page since the stop read what the
	 * counter holds, and that is the budget (a retried call's entry stop,
	 * a syscall that used no ticks while others wait): the page is right
	 * as it is, and a write is one syscall of the few a stop makes. A
	 * count of 0 may stand for -1 (tracer_ticks_get): it is written. */
	if (t->page_left && t->page_left == t->budget && t->page_epoch == tracer_epoch()) {
		t->counting = 1;
		return;
	}
	t->counting = tracer_ticks_set(t->tid, t->budget) == 0;
}

void rec_ticks_stop(struct rec *r, struct task *t)
{
	uint64_t left, used;

	t->ticks_last = t->counting ? 0 : UINT64_MAX;
	t->page_left = 0;
	if (!t->counting)
		return;
	t->counting = 0;
	if (tracer_ticks_get(t->tid, &left) < 0 || left > t->budget)
		return;
	t->page_left = left;
	t->page_epoch = tracer_epoch();
	used = t->budget - left;
	t->extra_ticks += used;
	t->ticks_last = used;
	t->ticks += used;
	t->tick_count += used;
	rec_clock_advance(&r->clock, (int64_t)used * REC_TICK_NS);
}

void rec_ticks_unstop(struct rec *r, struct task *t)
{
	if (t->counting || t->ticks_last == UINT64_MAX)
		return; /* it was not counting */
	t->ticks -= t->ticks_last;
	t->tick_count -= t->ticks_last;
	r->clock.now_ns -= (int64_t)t->ticks_last * REC_TICK_NS;
	/* (taken back here: the exec must not take them back again) */
	t->extra_ticks -= t->extra_ticks > t->ticks_last ? t->ticks_last : t->extra_ticks;
	t->ticks_last = UINT64_MAX;
	t->page_left = 0;
	/* What it counts from here to the exec is lost at the exec, as under
	 * `hermit run` and in a replay (the exec's stop does not read the new
	 * program's page: run.c). An execve that fails (a shell's search of
	 * its PATH) is no exec: the thread goes on counting down the budget
	 * it was resumed with, and its next stop reads all it counted since
	 * then, as `hermit run` and a replay, which make no stop here, do.
	 * The new program's counter is armed when it is next resumed. */
	t->counting = 1;
}

void rec_ticks_exec(struct rec *r, struct task *t)
{
	/* (what the exec's own stop added, if anything, a run without the
	 * debugger adds too) */
	uint64_t own = t->ticks_last != UINT64_MAX ? t->ticks_last : 0;
	uint64_t lost = t->extra_ticks > own ? t->extra_ticks - own : 0;

	t->extra_ticks = 0;
	t->page_left = 0; /* a new program, a new page */
	t->counting = 0; /* (the thread that exec'd may not be the leader) */
	if (!lost || lost > t->tick_count)
		return;
	/* A run without the extra stops (a debugger's in a replay; in a
	 * recording its stops at mmaps, which a replay does not make; the
	 * spin watch's looks at a wall-clock moment) counted none of these:
	 * all it counted since its last resume was lost at the exec. (A
	 * recording kept what it read at an mmap just before an exec, and its
	 * replay diverged at the new program's first event.) */
	t->ticks -= lost < t->ticks ? lost : t->ticks;
	t->tick_count -= lost;
	r->clock.now_ns -= (int64_t)lost * REC_TICK_NS;
}

static int retryable(const struct rec *r, const struct task *t)
{
	return t->parked_at < r->progress &&
	       (t->state == TASK_PARKED || (t->state == TASK_WAITING && t->wait == WAIT_POLL));
}

int rec_others_can_run(const struct rec *r, const struct task *running)
{
	if (r->runq_len)
		return 1;
	for (size_t i = 0; i < r->ntasks; i++) {
		const struct task *t = r->tasks[i];

		if (t != running && t->system == 0 && retryable(r, t))
			return 1;
	}
	return 0;
}

/* Set T aside for another: a preemption. */
static void preempt(struct rec *r, struct task *t)
{
	t->preemptions++;
	if (r->opts->chaos && draw(r, 0, 15) == 0)
		t->priority = (int)draw(r, 0, 3); /* the end of a starvation interval */
	t->timeslice = new_slice(r, t);
	rec_set_aside(r, t, TASK_READY, RESUME_CONT);
}

int rec_preempt_trap(struct rec *r, struct task *t)
{
	uint64_t site;
	int hit;

	if (r->ticks_source != REC_PREEMPT_SITES)
		return 0;
	hit = tracer_ticks_trap(t->tid, t->tgid, r->opts->debugger != NULL, &site);
	hm_trace("task %d: tick trap %d at %#llx (ticks %llu)", t->index, hit,
		 (unsigned long long)site, (unsigned long long)t->tick_count);
	if (hit <= 0)
		return hit < 0; /* died under us: its exit follows */
	if (hit == TRACER_TICK_FAULT) {
		rec_resume(t, RESUME_CONT, (int)site); /* the guest's own fault */
		return 1;
	}
	rec_trap_mend(t, SIGTRAP); /* the site's int3 unblocked it */
	if (hit == TRACER_TICK_COUNTED) {
		t->ticks++;
		t->tick_count++;
		rec_clock_advance(&r->clock, REC_TICK_NS);
		if (r->dbg_step == t->tid)
			return 2; /* that instruction was the debugger's single step */
		rec_resume(t, RESUME_CONT, 0);
		return 1;
	}
	/* Out of budget: a debugger's seek, its timeslice, or a virtual
	 * deadline came. The seek's stop comes first; when the task goes on,
	 * its budget is what is left of the others (none: it traps here
	 * again, and they are seen to). */
	if (debugger_tick_stop(r, t) == t->tick_count &&
	    r->opts->debugger->at_tick(r->opts->debugger->ctx, t->tid, t->index,
				       &(struct rec_dbg_ticks){ t->tick_count, t->event_ticks })) {
		r->dbg_pending = t;
		t->extra_stop = 1;
		rec_resume(t, RESUME_CONT, 0);
		return 1;
	}
	if (rec_spin_tick(r, t, site))
		return 1;
	rec_fire_due(r);
	/* A timeslice's computation is progress as a syscall is: a task
	 * parked on a call that may be ready now (a read of the outside) is
	 * retried, or a thread that computes without syscalls (its clock read
	 * in the guest) would starve it for ever. In ticks, so alike in
	 * record and replay. */
	if (t->ticks >= t->timeslice)
		r->progress++;
	if (t->ticks >= t->timeslice && rec_others_can_run(r, t)) {
		struct rec_call ev = { .nr = -2, .ret = (long)t->ticks };

		if (!r->runq_len)
			t->yielded = 1; /* the parked ones first */
		ev.args[0] = site;
		rec_digest_event(r, t, &ev, REC_EV_SITE);
		hm_trace("task %d preempted at site %#llx after %llu ticks", t->index,
			 (unsigned long long)site, (unsigned long long)t->tick_count);
		preempt(r, t);
		return 1;
	}
	if (t->ticks >= t->timeslice)
		t->ticks = 0; /* alone: a new timeslice */
	tracer_blockwatch_touch();
	rec_resume(t, RESUME_CONT, 0);
	return 1;
}

int rec_preempt_at_syscall(struct rec *r, struct task *t)
{
	if (!r->opts->chaos || !r->runq_len)
		return 0;
	if (draw(r, 0, 15) != 0)
		return 0;
	t->timeslice = new_slice(r, t);
	if (draw(r, 0, 15) == 0)
		t->priority = (int)draw(r, 0, 3);
	return 1;
}

void rec_check_spin(struct rec *r)
{
	struct task *t = r->running;

	/* A replay preempts where the log says (run.c), not by the clock. */
	if (r->opts->mode == REC_MODE_REPLAY)
		return;
	if (!t || !t->stopped_once || t->wants_interrupt || !rec_others_can_run(r, t))
		return;
	hm_debug("task %d ran 100 ms without a stop: interrupting it", t->index);
	if (tracer_interrupt(t->tid) == 0)
		t->wants_interrupt = 2;
}

struct task *rec_pick_ready(struct rec *r)
{
	struct task *best = NULL;

	if (!r->runq_len)
		return NULL;
	if (!r->opts->chaos)
		return r->runq[0];
	for (size_t i = 0; i < r->runq_len; i++) {
		if (!best || r->runq[i]->priority > best->priority)
			best = r->runq[i];
	}
	return best;
}
