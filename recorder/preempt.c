/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Preemption and chaos (DESIGN.md "Preemption", "Chaos").
 *
 * A thread that makes no syscalls must still give way. Where there is no
 * PMU (this project's VMs, most CI), ticks are hits of breakpoints at
 * preemption sites of the guest's own code (tracer/sites.c): every
 * backward branch, each with a budget of hits, in each process that has
 * more than one thread. After TIMESLICE ticks a
 * thread is set aside if another can run. When the budgets are spent, or
 * a loop has no site, a spin watch interrupts a thread that has run 100 ms
 * without a stop: that point depends on the host's speed, which only a
 * pure spin-wait (whose state does not change) can afford.
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
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "internal.h"

/* Sites and their budgets: a hot loop pays for its first hits only, and a
 * process for its first PROCESS_BUDGET hits (a hit costs two ptrace stops,
 * about 70 us here). Chaos buys more: it is for finding races. */
#define SITE_BUDGET	  20
#define PROCESS_BUDGET	  1000
#define CHAOS_SITE_BUDGET 1000
#define CHAOS_DENSITY	  2
#define MAX_SITES	  50000
#define DEFAULT_TIMESLICE 50

static uint64_t draw(struct rec *r, uint64_t lo, uint64_t hi)
{
	return lo + rec_prng_next(&r->sched_prng) % (hi - lo + 1);
}

int rec_preempt_init(struct rec *r)
{
	const struct rec_options *o = r->opts;
	char why[128];
	int pmu = tracer_pmu_probe(why, sizeof(why));

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

static uint64_t new_slice(struct rec *r)
{
	if (!r->opts->chaos)
		return r->max_slice;
	if (r->opts->chaos_seeded_timeslice)
		return draw(r, 1, r->max_slice);
	return draw(r, 0, 1) ? draw(r, 1, 8) : draw(r, 50, 500);
}

void rec_preempt_new_task(struct rec *r, struct task *t)
{
	t->priority = r->opts->chaos ? (int)draw(r, 0, 3) : 0;
	t->timeslice = new_slice(r);
	t->ticks = 0;
}

void rec_preempt_chosen(struct rec *r, struct task *t)
{
	(void)r;
	t->ticks = 0;
}

static void arm(struct rec *r, struct task *t)
{
	int n = tracer_sites_exec(t->tid, t->tgid, r->opts->sched_seed,
				  r->opts->chaos ? CHAOS_DENSITY : 0,
				  r->opts->chaos ? CHAOS_SITE_BUDGET : SITE_BUDGET,
				  r->opts->chaos ? 0 : PROCESS_BUDGET, MAX_SITES);

	if (n < 0)
		hm_debug("task %d: no preemption sites: %s", t->index, hm_strerror(n));
}

/*
 * Breakpoints cost a stop per hit, and a thread with no sibling has no
 * thread to give way to in its own address space: sites go into a process
 * when it gets its second thread. Processes without threads switch at
 * syscalls and at the spin watch; that serves pipelines, whose processes
 * rarely share memory. A forked child of an armed process starts with a
 * single thread: its copy of the breakpoints is taken out.
 */
void rec_preempt_exec(struct rec *r, struct task *t)
{
	(void)r;
	tracer_sites_drop(t->tgid);
}

void rec_preempt_fork(struct rec *r, struct task *parent, struct task *child)
{
	if (r->ticks_source != REC_PREEMPT_SITES)
		return;
	if (child->tgid != parent->tgid) {
		tracer_sites_fork(parent->tgid, child->tgid, child->tid, 0);
		return;
	}
	/* A new thread: its process needs sites now. The parent is stopped at
	 * its clone event and the child not started: the code can be written. */
	if (!tracer_sites_armed(parent->tgid))
		arm(r, parent);
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
	if (r->opts->chaos && draw(r, 0, 15) == 0)
		t->priority = (int)draw(r, 0, 3); /* the end of a starvation interval */
	t->timeslice = new_slice(r);
	rec_set_aside(r, t, TASK_READY, RESUME_CONT);
}

int rec_preempt_trap(struct rec *r, struct task *t)
{
	uint64_t site;
	int hit;

	if (r->ticks_source != REC_PREEMPT_SITES)
		return 0;
	hit = tracer_sites_hit(t->tid, t->tgid, &site);
	if (hit <= 0)
		return hit < 0; /* died under us: its exit follows */
	if (hit == 2) {
		rec_resume(t, RESUME_CONT, (int)site); /* the guest's own fault */
		return 1;
	}
	t->ticks++;
	if (t->ticks >= t->timeslice && rec_others_can_run(r, t)) {
		struct rec_call ev = { .nr = -2, .ret = (long)t->ticks };

		ev.args[0] = site;
		rec_digest_event(r, t, &ev, 5);
		hm_trace("task %d preempted at site %#llx after %llu ticks", t->index,
			 (unsigned long long)site, (unsigned long long)t->ticks);
		preempt(r, t);
		return 1;
	}
	tracer_blockwatch_touch();
	if (r->dbg_step == t->tid)
		return 2; /* that instruction was the debugger's single step */
	rec_resume(t, RESUME_CONT, 0);
	return 1;
}

int rec_preempt_at_syscall(struct rec *r, struct task *t)
{
	if (!r->opts->chaos || !r->runq_len)
		return 0;
	if (draw(r, 0, 15) != 0)
		return 0;
	t->timeslice = new_slice(r);
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
