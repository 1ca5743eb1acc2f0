/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where a replay under gdb is, and how it gets to a position gdb asks for
 * (internal.h). The recorder's hooks (struct rec_debugger) follow the replay
 * and stop it where the seek's mode says.
 *
 * Positions. A stop is named by an anchor and a number of single steps
 * after it. Anchors: the start; "after event F" (the first instruction
 * the next guest task runs once frame F was taken); "the Nth debugger trap
 * at address PC by task I since event F". The replay is deterministic, so
 * a replay from the start, or from a checkpoint before it, reaches each
 * anchor again.
 *
 * Reverse execution replays again, silently (the guest's output
 * is not shown again), to a position computed from the current one:
 *   reverse-continue  the last breakpoint hit before the current position
 *                     is the target (none: the start, "replaylog:begin"):
 *                     known when this replay passed all of them with every
 *                     breakpoint in (hits.c), else found by a first pass
 *                     that notes every hit up to the current position;
 *                     with watchpoints, that pass also notes the last event
 *                     interval in which the watched bytes changed, and a
 *                     second (WFIND) steps through it to the writing
 *                     instruction;
 *   reverse-stepi     n - 1 steps after the anchor when n > 0; at a trap,
 *                     the call that led there when the stack says one did
 *                     (PRED: a breakpoint on it finds its last pass), else
 *                     a first pass single-steps from the pass before at the
 *                     same pc, or from the event before, counting.
 * Each replay starts from the latest checkpoint before its target
 * (checkpoint.c), or from the start when there is none. A search pass
 * from a checkpoint that finds nothing searches the stretch before it.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/user.h>

#include "common/common.h"
#include "dwarf/dwarf.h"
#include "internal.h"
#include "tracer/tracer.h"

/* The position changed (to `cur`). */
static void moved(struct dbg *d)
{
	d->moves++;
}

/* Whether P is a pass of one of gdb's breakpoints (not a seek's own). */
static int gdbs_hit(struct dbg *d, const struct pos *p)
{
	struct bp *b = replay_dbg_bp_at(d, p->pc);

	return b && !b->internal;
}

/* `cur`, just reached, is a pass of a breakpoint: a hit of this replay. */
static void hit_here(struct dbg *d)
{
	if (gdbs_hit(d, &d->cur))
		replay_hits_add(&d->hits, &d->cur, d->moves);
}

static int is_known_bp(void *ctx, uint64_t pc)
{
	struct bp *b = replay_dbg_bp_at(ctx, pc);

	return b && b->known;
}

void replay_dbg_known_since(struct dbg *d, uint64_t frames)
{
	d->known = 1;
	d->known_from = frames;
	for (size_t i = 0; i < d->nbps; i++)
		d->bps[i].known = !d->bps[i].removed;
}

static int is_whole_bp(void *ctx, uint64_t pc)
{
	struct bp *b = replay_dbg_bp_at(ctx, pc);

	return b && b->whole;
}

void replay_dbg_describe(const struct pos *p, char *out, size_t size)
{
	switch (p->anchor) {
	case AT_START:
		snprintf(out, size, "event 0, the start");
		break;
	case AT_EVENT:
		snprintf(out, size, "event %" PRIu64, p->frames);
		break;
	case AT_TRAP:
		snprintf(out, size, "event %" PRIu64 ", hit %" PRIu64 " of %#" PRIx64 " by task %d",
			 p->frames, p->nth, p->pc, p->index);
		break;
	case AT_EXIT:
		snprintf(out, size, "event %" PRIu64 ", the end", p->frames);
		break;
	case AT_TICK:
		snprintf(out, size, "event %" PRIu64 ", task %d at tick %" PRIu64, p->frames,
			 p->index, p->ticks);
		break;
	case AT_EXEC:
		snprintf(out, size, "event %" PRIu64 ", exec %" PRIu64 " by task %d", p->frames,
			 p->execs, p->index);
		break;
	case AT_PRE_EXEC:
		snprintf(out, size,
			 "event %" PRIu64 ", before exec %" PRIu64 " by task %d (call %" PRIu64 ")",
			 p->frames, p->execs + 1, p->index, p->nth);
		break;
	}
	if (p->execs && p->anchor != AT_EXEC && p->anchor != AT_PRE_EXEC && p->anchor != AT_EXIT) {
		size_t n = strlen(out);

		snprintf(out + n, size - n, ", after exec %" PRIu64, p->execs);
	}
	if (p->steps) {
		size_t n = strlen(out);

		snprintf(out + n, size - n, ", %" PRIu64 " step%s after", p->steps,
			 p->steps == 1 ? "" : "s");
	}
}

/*
 * What `monitor when` says: the start and the end as such; anywhere else
 * (event, task, ticks, pc), which names the instruction instance however
 * the replay got there (a hit, a step, a search backwards), since every
 * loop passes a tick (docs/preemption.md). The seek's own anchors are in
 * the debug log.
 */
void replay_dbg_when(struct dbg *d, char *out, size_t size)
{
	const struct rec_dbg_thread *th = NULL;
	struct user_regs_struct r;
	uint64_t pc;

	for (size_t i = 0; d->stop && i < d->stop->nthreads; i++) {
		if (d->stop->threads[i].index == d->cur.index)
			th = &d->stop->threads[i];
	}
	if ((d->cur.anchor == AT_START && !d->cur.steps) ||
	    (d->cur.anchor == AT_EXEC && !d->cur.steps) ||
	    (d->cur.anchor == AT_PRE_EXEC && !d->cur.steps) || d->cur.anchor == AT_EXIT || !th ||
	    tracer_get_regs(th->tid, &r) < 0) {
		replay_dbg_describe(&d->cur, out, size);
		return;
	}
	pc = r.rip;
	tracer_ticks_original_pc(th->tgid, pc, &pc);
	/* (ticks go on through an exec, but a pc names another program's
	 * instruction after it: the exec is named too) */
	if (d->execs)
		snprintf(out, size,
			 "event %" PRIu64 ", after exec %" PRIu64 " (task %d at tick %" PRIu64
			 ", pc %#" PRIx64 ")",
			 d->frames, d->execs, th->index, th->ticks, pc);
	else
		snprintf(out, size,
			 "event %" PRIu64 " (task %d at tick %" PRIu64 ", pc %#" PRIx64 ")",
			 d->frames, th->index, th->ticks, pc);
}

void replay_dbg_seek(struct dbg *d, enum mode mode, const struct pos *target)
{
	if (hm_log_enabled(HM_LOG_DEBUG)) {
		static const char *const names[] = { "go",	   "go to", "search to",
						     "count from", "end",   "find the call from",
						     "step from" };
		char at[160];

		replay_dbg_describe(target, at, sizeof(at));
		hm_debug("debugger: %s %s%s", names[mode], at, target->by_task ? " (by task)" : "");
	}
	d->mode = mode;
	d->target = *target;
	d->anchored = 0;
	d->have_hit = 0;
	d->counted = d->pc_seen = 0;
	replay_dbg_wsteps_reset(d);
	d->count_at = 0;
	d->steps_left = 0;
	d->rerun = 1;
	d->arrive_reason = 0;
	d->have_w = 0;
	d->wsnap_due = mode == SCAN;
	d->wend = d->wbound_hit = 0;
	d->wfound_kind = 0;
	d->wmulti = 0;
	d->wpend_tid = 0;
	d->wstep = d->over = 0; /* a forward watch or step of the replay left */
	d->scan_base = 0;
	d->tick_met = 0;
	replay_dbg_target_bp(d, target->anchor == AT_TRAP ? target->pc : 0);
}

static int same_anchor(const struct pos *a, const struct pos *b)
{
	if (a->anchor == AT_EXIT || b->anchor == AT_EXIT)
		return a->anchor == b->anchor;		  /* one end per replay */
	if (a->anchor == AT_TICK || b->anchor == AT_TICK) /* one such moment per replay */
		return a->anchor == b->anchor && a->index == b->index && a->ticks == b->ticks;
	return a->anchor == b->anchor && a->frames == b->frames && a->execs == b->execs &&
	       (a->anchor != AT_TRAP || (a->index == b->index && a->pc == b->pc &&
					 a->ticks == b->ticks && a->nth == b->nth)) &&
	       (a->anchor != AT_PRE_EXEC || (a->index == b->index && a->nth == b->nth));
}

/*
 * Going back across exec EXEC of the debugged process: to the last stop
 * in the program before it, the entry of its execve, reported to gdb as
 * an exec (T05exec:<that program>), as a forward exec is. gdb follows it
 * as it follows any exec (follow_exec() in gdb/infrun.c): it loads that
 * program, sets its breakpoints again, in that program, and goes on in
 * the direction it was going. 0 where that cannot be (a gdb without exec
 * events, an exec whose call was not seen): history stops at the exec.
 */
static int cross_exec(struct dbg *d, const struct pos *exec)
{
	struct pos pre = { .anchor = AT_PRE_EXEC,
			   .frames = exec->pre_frames,
			   .execs = exec->pre_execs,
			   .index = exec->index,
			   .nth = exec->pre_nth,
			   .by_task = 1 };

	if (exec->anchor != AT_EXEC || !exec->pre_nth || !rsp_session_exec_events(d->rsp))
		return 0;
	hm_debug("debugger: back across exec %" PRIu64 ", into the program before it", exec->execs);
	replay_dbg_seek(d, TO_POS, &pre);
	d->arrive_reason = RSP_REASON_EXEC;
	return 1;
}

/* Whether the replay is at the anchor of the seek's target now. A call's
 * input frames (capture.c) are events with no stop of their own, and no
 * guest instruction runs between them and the call's event: the stop after
 * that is their anchor (`monitor goto` to one, a search that starts
 * there). */
static int reached(const struct dbg *d)
{
	return same_anchor(&d->cur, &d->target) ||
	       (d->target.anchor == AT_EVENT && d->cur.anchor == AT_EVENT &&
		d->cur.frames > d->target.frames);
}

/*
 * reverse-continue: when this replay passed every hit of every breakpoint
 * set now, go straight to the last one before the current position (or to
 * the start); else replay from the start to find it (SCAN). 1 when the
 * hits said where.
 */
int replay_dbg_reverse_by_hits(struct dbg *d)
{
	const struct pos *last;

	if (!d->hits.whole || replay_dbg_watching(d))
		return 0; /* hits.c keeps no writes */
	for (size_t i = 0; i < d->nbps; i++) {
		if (!d->bps[i].removed && !d->bps[i].whole)
			return 0;
	}
	last = replay_hits_last(&d->hits, d->moves, is_whole_bp, d);
	if (last && cross_exec(d, last))
		return 1;
	if (last) {
		struct pos to = *last;

		hm_debug("debugger: the last hit before the current position is known");
		replay_dbg_seek(d, TO_POS, &to);
		/* (an exec of the debugged process: history goes back no further) */
		d->begin = to.anchor == AT_EXEC;
	} else {
		struct pos start = { .anchor = AT_START, .frames = 0 };

		replay_dbg_seek(d, TO_POS, &start);
		d->begin = 1;
	}
	return 1;
}

/*
 * reverse-continue, when the hits are not known since the start: this
 * replay went on from a checkpoint (event known_from) with every
 * breakpoint set now in, so the hits since then are known too. The last
 * one before the current position, when there is one since that event, is
 * where to go; else the search starts with the stretch before the
 * checkpoint, as a search that found nothing after it goes on (a search
 * that found its hit near the end of a stretch, then went to it, needs not
 * look at that stretch again for the next reverse-continue). 1 when it
 * decided.
 */
static int reverse_by_known(struct dbg *d)
{
	const struct pos *last;

	if (!d->known || replay_dbg_watching(d))
		return 0;
	for (size_t i = 0; i < d->nbps; i++) {
		if (!d->bps[i].removed && !d->bps[i].internal && !d->bps[i].known)
			return 0;
	}
	last = replay_hits_last(&d->hits, d->moves, is_known_bp, d);
	if (last && (last->anchor == AT_EXEC || last->frames < d->known_from))
		last = NULL; /* (from an earlier replay: some may be missing after it) */
	if (last) {
		struct pos to = *last;

		hm_debug("debugger: the last hit since event %" PRIu64 " is known", d->known_from);
		replay_dbg_seek(d, TO_POS, &to);
	} else if (d->known_from) {
		struct pos from = { .anchor = AT_EVENT, .frames = d->known_from };

		hm_debug("debugger: no hit since event %" PRIu64 ": the search starts before it",
			 d->known_from);
		replay_dbg_seek(d, SCAN, &from);
	} else {
		return 0;
	}
	return 1;
}

/* The stopped task at the trap `cur` (steps 0) came there by a call (or the
 * jump of a PLT entry a call went to) that targets its pc: the return
 * address on its stack follows a call to pc, or to a jmp through a pointer
 * that holds pc now. Then *BEFORE is that instruction's address: the one
 * the task ran last, if the pointer (at *SLOT; 0 for a direct call) held
 * pc then too (PRED checks: lazy binding sends a first call elsewhere). */
static int came_by_call(struct dbg *d, uint64_t *before, uint64_t *slot)
{
	struct user_regs_struct r;
	struct dw_branch b;
	uint8_t insn[16];
	uint64_t ret, to, ptr;
	pid_t tid = 0;

	for (size_t i = 0; d->stop && i < d->stop->nthreads; i++) {
		if (d->stop->threads[i].index == d->cur.index)
			tid = d->stop->threads[i].tid;
	}
	if (!tid || tracer_get_regs(tid, &r) < 0 || r.rip != d->cur.pc ||
	    tracer_read_mem(tid, r.rsp, &ret, sizeof(ret)) < 0)
		return 0;
	for (unsigned len = 5; len <= 6; len++) {
		*slot = 0;
		if (replay_dbg_read_code(d, tid, ret - len, insn, len) < 0 ||
		    dw_branch(insn, len, ret - len, &b) < 0 || !b.call || b.length != len)
			continue;
		to = b.target;
		if (b.through) {
			if (tracer_read_mem(tid, b.target, &to, sizeof(to)) < 0)
				continue;
			*slot = b.target;
		}
		if (to == r.rip) {
			*before = ret - len;
			return 1;
		}
		/* a PLT entry: [endbr64;] [bnd] jmp *GOT(%rip) */
		if (replay_dbg_read_code(d, tid, to, insn, 4) < 0)
			continue;
		if (memcmp(insn, "\xf3\x0f\x1e\xfa", 4) == 0)
			to += 4;
		if (replay_dbg_read_code(d, tid, to, insn, sizeof(insn)) < 0 ||
		    dw_branch(insn, sizeof(insn), to, &b) < 0 || b.call || !b.through ||
		    tracer_read_mem(tid, b.target, &ptr, sizeof(ptr)) < 0 || ptr != r.rip)
			continue;
		*before = to;
		*slot = b.target;
		return 1;
	}
	return 0;
}

/* reverse-stepi from the trap TRAP (no steps after it): count the steps to
 * it from its task's last tick before it when that came in the trap's
 * interval (no pc is passed twice between two ticks: every loop and every
 * recursion passes a counted site), else from the pass before it at its
 * pc when there is one (a loop's: one turn of it), else from its
 * interval's start. */
static void count_back(struct dbg *d, const struct pos *trap)
{
	struct pos from = { .anchor = trap->frames ? AT_EVENT : AT_START, .frames = trap->frames },
		   t = *trap;

	if (t.execs) /* (the interval's steps start again at its last exec) */
		from = (struct pos){ .anchor = AT_EXEC,
				     .frames = t.frames,
				     .execs = t.execs,
				     .index = d->exec_index,
				     .by_task = 1 };

	if (t.ticks > t.ticks0) {
		from = (struct pos){ .anchor = AT_TICK,
				     .frames = t.frames,
				     .index = t.index,
				     .ticks = t.ticks - 1 };
	} else if (t.nth > 1) {
		from = t;
		from.nth--;
	}
	replay_dbg_seek(d, COUNT, &from);
	d->last_hit = t;
}

/* A reverse request from position CUR: where to go. */
void replay_dbg_plan_reverse(struct dbg *d)
{
	if (d->cur.anchor == AT_EXEC && !d->cur.steps) {
		/* At an exec: into the program before it, else no further. */
		if (cross_exec(d, &d->cur))
			return;
		d->begin = 1;
		replay_dbg_seek(d, TO_POS, &d->cur);
		return;
	}
	if (d->how == RSP_RESUME_REVERSE_CONT) {
		if (replay_dbg_reading(d))
			replay_dbg_search_reads(d, &d->cur, 0); /* reads: by steps */
		else if (!replay_dbg_reverse_by_hits(d) && !reverse_by_known(d))
			replay_dbg_seek(d, SCAN, &d->cur);
		return;
	}
	if (d->cur.steps > 0) {
		struct pos p = d->cur;

		p.steps--;
		replay_dbg_seek(d, TO_POS, &p);
		return;
	}
	if (d->cur.anchor == AT_TRAP) {
		struct pos from = { .anchor = d->cur.frames ? AT_EVENT : AT_START,
				    .frames = d->cur.frames };
		uint64_t before, slot;

		if (d->cur.execs)
			from = (struct pos){ .anchor = AT_EXEC,
					     .frames = d->cur.frames,
					     .execs = d->cur.execs,
					     .index = d->exec_index,
					     .by_task = 1 };

		if (came_by_call(d, &before, &slot)) {
			/* The last pass of that call before the trap, found by
			 * breakpoints on both: no steps. */
			replay_dbg_seek(d, PRED, &from);
			d->last_hit = d->cur;
			d->pred_pc = before;
			d->pred_slot = slot;
			/* (gdb took its own out to step off it) */
			replay_dbg_seek_bp(d, before);
			replay_dbg_seek_bp(d, d->cur.pc);
			return;
		}
		count_back(d, &d->cur);
		return;
	}
	if (d->cur.anchor == AT_PRE_EXEC && d->cur.pc) {
		/* Before an exec: its syscall instruction, about to run. No
		 * pc is passed twice between two ticks; with none since the
		 * event, the calls of the exec since then are its passes
		 * (glibc's execve has a syscall instruction of its own). */
		struct pos at = { .anchor = AT_TRAP,
				  .frames = d->cur.frames,
				  .index = d->cur.index,
				  .pc = d->cur.pc,
				  .nth = d->cur.ticks > d->cur.ticks0 ? 1 : d->cur.nth,
				  .ticks = d->cur.ticks,
				  .ticks0 = d->cur.ticks0,
				  .execs = d->cur.execs };

		count_back(d, &at);
		d->count_at = 1;
		return;
	}
	if (d->cur.anchor == AT_TICK) {
		/* The moment before a tick is the first pass of its site's
		 * first byte since the tick before it (or since the event). */
		struct pos at = d->cur;

		at.nth = 1;
		count_back(d, &at);
		return;
	}
	/* At an event, an exec or the start: nothing before it that we can
	 * name (an exec: nothing gdb could show, as the program before it is
	 * not the one gdb has loaded). */
	d->begin = 1;
	replay_dbg_seek(d, TO_POS, &d->cur);
}

/* Whether P, an anchor just reached, is a breakpoint or watchpoint hit. */
static int is_hit(const struct pos *p)
{
	return p->anchor == AT_TRAP && !p->steps;
}

static void note_hit(struct dbg *d, const struct pos *p)
{
	if (p->anchor == AT_TRAP && !p->steps && !gdbs_hit(d, p))
		return;
	d->last_hit = *p;
	d->have_hit = 1;
	d->hit_move = d->moves;
}

/* A scan reached the current position (ALIVE: stopped there, not past
 * the end): go to the last hit before it, or to the start when there is
 * none; when a watched location changed after that hit, first find the
 * write in its interval (WFIND). */
void replay_dbg_finish_scan(struct dbg *d, int alive)
{
	if (alive)
		replay_dbg_scan_watch(d);
	if (d->have_w && !(d->have_hit && d->hit_move > d->wto_move)) {
		struct pos bound = d->target, from = d->wfrom, hit = d->last_hit;
		int had = d->have_hit;

		replay_dbg_seek(d, WFIND, &from);
		d->wbound = bound;
		d->wprev_hit = hit;
		d->wprev_have = had;
		return;
	}
	if (d->have_hit && cross_exec(d, &d->last_hit))
		return;
	if (d->have_hit) {
		int floor = d->last_hit.anchor == AT_EXEC;

		replay_dbg_seek(d, TO_POS, &d->last_hit);
		d->begin = floor; /* no hit since the last exec: history stops there */
	} else if (d->scan_base) {
		/* Nothing since the checkpoint the scan started from: scan the
		 * stretch before it. */
		struct pos from = { .anchor = AT_EVENT, .frames = d->scan_base };

		replay_dbg_seek(d, SCAN, &from);
	} else {
		struct pos start = { .anchor = AT_START, .frames = 0 };

		replay_dbg_seek(d, TO_POS, &start);
		d->begin = 1;
	}
}

static enum rec_dbg_go stopped(struct dbg *d, const struct rec_dbg_stop *st);
static uint64_t passes(const struct dbg *d, int index, uint64_t pc);

/* A seek whose target is one task's steps after an event, at a stop of
 * another task that runs first: it goes on (past its breakpoint, if it is
 * on one) until the target's task is resumed. */
static enum rec_dbg_go others_first(struct dbg *d, const struct rec_dbg_stop *st)
{
	return replay_dbg_go_on(d, st->tid, 0) == REC_DBG_STEP ? REC_DBG_STEP_ALL : REC_DBG_NEXT;
}

enum rec_dbg_go replay_dbg_stopped(void *ctx, const struct rec_dbg_stop *st)
{
	struct dbg *d = ctx;
	enum rec_dbg_go go;

	/* (a stop that follows the task's step, not its resume after others ran) */
	d->step_trap = d->trapped == st->index + 1;
	d->trapped = 0;
	go = stopped(d, st);

	/* A seek: from a checkpoint, when one comes before its target. */
	if (go == REC_DBG_KILL && d->rerun && !d->quit)
		replay_cp_restore(d, st->run);
	return go;
}

static enum rec_dbg_go stopped(struct dbg *d, const struct rec_dbg_stop *st)
{
	d->stop = st;
	if (!d->tgid)
		d->tgid = st->tgid;
	if (d->ops.pid == 0)
		d->ops.pid = replay_dbg_vtid_of(st);
	/* A new replay's process gets the breakpoints as soon as it can, so
	 * that hits are counted as they were (not while stepping to a target). */
	if (d->mode == LIVE || d->mode == SCAN || d->mode == AT_END || !d->anchored)
		replay_dbg_insert_bps(d);
	if (d->wsnap_due && d->tgid) {
		replay_dbg_watch_snapshot(d);
		d->wsnap_due = 0;
	}
	hm_debug("debugger: stop of task %d in mode %d (anchor %d, event %" PRIu64
		 ", steps %" PRIu64 ")",
		 st->index, d->mode, d->cur.anchor, d->cur.frames, d->cur.steps);
	if (d->cur.anchor == AT_EXIT && d->target.anchor != AT_EXIT &&
	    (((d->mode == TO_POS || d->mode == WFIND) && !d->anchored) || d->mode == COUNT ||
	     d->mode == PRED)) {
		/* A seek that never met its target: not the program's exit
		 * for gdb, but the end of history, where it can go back. */
		hm_warn("replay: a seek did not find its target; stopping at the end");
		d->arrive_reason = 0;
		return replay_dbg_live_stop(d, st);
	}
	if (d->mode != AT_END && replay_dbg_interrupted_now(d)) {
		/* Ctrl-C while it ran (forwards, or searching backwards):
		 * stop wherever it is, as rr does; a breakpoint or watchpoint
		 * stop that came with it answers it as it is. */
		if (d->quit)
			return REC_DBG_KILL;
		hm_debug("debugger: interrupted by gdb");
		d->arrive_reason = 0; /* (a seek's, for its target) */
		d->begin = 0;
		if (d->mode != LIVE || d->wstep || d->reason == RSP_REASON_NONE) {
			d->sigint = 1;
			d->reason = RSP_REASON_NONE;
		}
		d->wstep = 0;
		return replay_dbg_live_stop(d, st);
	}
	if (d->mode == LIVE && d->wstep) {
		/* Watching: an event's syscall may have written them. The end
		 * stops anyway (gdb may go back from there). */
		if (!replay_dbg_watch_changed(d) && d->cur.anchor != AT_EXIT &&
		    d->reason != RSP_REASON_EXEC) {
			replay_dbg_watch_ahead(d, st->tid, NULL);
			return REC_DBG_STEP;
		}
		d->wstep = 0;
	}
	switch (d->mode) {
	case LIVE:
	case AT_END:
		return replay_dbg_live_stop(d, st);
	case TO_POS:
		if (!d->anchored && reached(d)) {
			d->anchored = 1;
			d->steps_left = d->target.steps;
			if (d->steps_left)
				replay_dbg_remove_bps(d); /* steps count instructions, not traps */
		}
		/* After an event, the steps are the target task's, whoever runs
		 * first (past its breakpoints, as a SCAN goes). */
		if (d->anchored && d->target.anchor != AT_TRAP &&
		    (d->target.steps || d->target.by_task) && st->index != d->target.index)
			return others_first(d, st);
		if (d->anchored && d->steps_left == 0)
			return replay_dbg_live_stop(d, st);
		if (d->anchored) {
			replay_dbg_remove_bps(d);
			d->steps_left--;
			return REC_DBG_STEP;
		}
		return replay_dbg_go_on(d, st->tid, 0);
	case SCAN:
		if (!d->anchored && reached(d)) {
			d->anchored = 1;
			d->steps_left = d->target.steps;
			d->counted = 0;
			/* The anchor is before the current position when steps follow. */
			if (d->target.steps && is_hit(&d->cur))
				note_hit(d, &d->cur);
		}
		if (!d->anchored) {
			if (is_hit(&d->cur))
				note_hit(d, &d->cur);
			return replay_dbg_go_on(d, st->tid, 0);
		}
		if (d->target.anchor != AT_TRAP && d->target.steps &&
		    st->index != d->target.index) {
			/* Another task runs first: its hits come before the
			 * target too, and it goes on past each of them. */
			if (is_hit(&d->cur))
				note_hit(d, &d->cur);
			return others_first(d, st);
		}
		if (d->counted && d->steps_left && replay_dbg_bp_at(d, replay_dbg_pc_of(st->tid))) {
			/* A step that reached a breakpoint: a hit, by position. */
			struct pos p = d->target;

			p.steps = d->counted;
			note_hit(d, &p);
		}
		if (d->steps_left) {
			replay_dbg_remove_bps(d);
			d->steps_left--;
			d->counted++;
			return REC_DBG_STEP;
		}
		replay_dbg_finish_scan(d, 1);
		return REC_DBG_KILL;
	case WFIND:
		if (!d->anchored && reached(d)) {
			/* This stop is the first resume of the task that runs
			 * the interval (as TO_POS counts its steps from). */
			d->anchored = 1;
			replay_dbg_remove_bps(d);
			replay_dbg_watch_snapshot(d);
		}
		if (!d->anchored)
			return replay_dbg_go_on(d, st->tid, 0);
		return replay_dbg_wfind_step(d, st);
	case PRED:
		if (!d->anchored && reached(d))
			d->anchored = 1;
		if (d->anchored && d->cur.anchor == AT_TRAP && !d->cur.steps &&
		    d->cur.index == d->last_hit.index) {
			if (d->cur.pc == d->pred_pc) {
				uint64_t to = d->last_hit.pc;

				/* the pass at the trap's pc that follows it; through
				 * a pointer, only while it holds that pc */
				d->pred = d->cur;
				d->pred_next = passes(d, d->cur.index, d->last_hit.pc) + 1;
				d->have_hit =
					!d->pred_slot || (tracer_read_mem(st->tid, d->pred_slot,
									  &to, sizeof(to)) == 0 &&
							  to == d->last_hit.pc);
			} else if (same_anchor(&d->cur, &d->last_hit)) {
				struct pos trap = d->last_hit;

				/* (not when the trap's pc was reached otherwise since
				 * the call: a loop back to a function's entry) */
				if (d->have_hit && d->pred_next == passes(d, trap.index, trap.pc)) {
					hm_debug("debugger: the call before the hit is %#" PRIx64,
						 d->pred_pc);
					replay_dbg_seek(d, TO_POS, &d->pred);
				} else {
					count_back(d, &trap);
				}
				return REC_DBG_KILL;
			}
		}
		return replay_dbg_go_on(d, st->tid, 0);
	case COUNT:
		if (!d->anchored && reached(d)) {
			d->anchored = 1;
			replay_dbg_remove_bps(d);
			/* From the pass before the hit (count_back): the passes
			 * at its pc are counted from this one on; from the tick
			 * before it, from none. */
			if (d->target.anchor == AT_TRAP)
				d->pc_seen = d->target.nth - 1;
		}
		if (!d->anchored)
			return replay_dbg_go_on(d, st->tid, 0);
		if (st->index != d->last_hit.index)
			return REC_DBG_NEXT; /* another task's turn: wait for ours */
		/* (a hit's nth counts the passes with its ticks) */
		if (replay_dbg_pc_of(st->tid) == d->last_hit.pc &&
		    replay_dbg_ticks_of(st) == d->last_hit.ticks &&
		    (d->target.anchor != AT_TICK || d->counted) &&
		    ++d->pc_seen == d->last_hit.nth) {
			struct pos p = d->target;
			char from[160];

			replay_dbg_describe(&p, from, sizeof(from));
			hm_debug("debugger: %" PRIu64 " steps from %s to the hit", d->counted,
				 from);
			if (d->count_at) {
				p.steps = d->counted; /* the pass itself */
				p.index = d->last_hit.index;
			} else if (d->counted == 0) {
				d->begin = p.anchor == AT_START;
				p = d->last_hit; /* nothing before it in its interval */
			} else {
				p.steps = d->counted - 1;
				p.index = d->last_hit.index;
			}
			replay_dbg_seek(d, TO_POS, &p);
			return REC_DBG_KILL;
		}
		d->counted++;
		return REC_DBG_STEP;
	}
	return REC_DBG_CONT;
}

/* The passes of task INDEX at PC counted since the last event. */
static uint64_t passes(const struct dbg *d, int index, uint64_t pc)
{
	for (size_t i = 0; i < d->ncounts; i++) {
		if (d->counts[i].index == index && d->counts[i].pc == pc)
			return d->counts[i].all;
	}
	return 0;
}

static void count_reset(struct dbg *d, uint64_t frames)
{
	d->frames = frames;
	d->ncounts = 0;
	d->execs = 0;
	d->exec_calls = 0;
}

/*
 * Task INDEX, with TICKS ticks, is about to run the instruction at PC,
 * where a breakpoint is (hit, or reached by a step): its number among
 * such passes since the last event with those ticks, the same in every
 * replay. Not since the event: a breakpoint put in after the replay
 * passed its address since the event (the adapter's breakpoint on a
 * return address, put in when it steps over a call) would count from 1
 * there, where a replay with it in from the start counts every pass. No
 * address is passed twice between two ticks (every loop and recursion
 * passes a counted site), so in counted code that number is 1, however
 * late the breakpoint came; only code that is not counted (and
 * --preempt=none) still needs the breakpoint in for every pass.
 */
static uint64_t count_hit(struct dbg *d, int index, uint64_t pc, uint64_t ticks)
{
	size_t i;

	for (i = 0; i < d->ncounts; i++) {
		if (d->counts[i].index != index || d->counts[i].pc != pc)
			continue;
		d->counts[i].all++;
		if (d->counts[i].ticks != ticks) {
			d->counts[i].ticks = ticks;
			d->counts[i].n = 0;
		}
		return ++d->counts[i].n;
	}
	if (d->ncounts == MAX_COUNTS)
		return 0;
	d->counts[d->ncounts].index = index;
	d->counts[d->ncounts].pc = pc;
	d->counts[d->ncounts].n = 1;
	d->counts[d->ncounts].ticks = ticks;
	d->counts[d->ncounts].all = 1;
	return d->counts[d->ncounts++].n;
}

/* Task INDEX made a step: after an event, the steps are that task's from
 * its first resume (as a seek replays them); another task's first step
 * after one that ran out (it exited) starts them again. */
static void by_task(struct dbg *d, int index)
{
	if (d->cur.anchor == AT_TRAP || d->cur.anchor == AT_TICK)
		return;
	if (d->cur.by_task && d->cur.index != index)
		d->cur.steps = 0;
	d->cur.index = index;
	d->cur.by_task = 1;
}

/* A trap the debugger asked for or owns. */
/* The position of task INDEX's trap at PC, whose ticks are TK. */
static struct pos trap_pos(struct dbg *d, int index, uint64_t pc, const struct rec_dbg_ticks *tk)
{
	uint64_t ticks0 = tk->at_event;

	/* (a tick before the exec is no start to count steps to it from) */
	if (d->execs && index == d->exec_index && ticks0 < d->exec_ticks)
		ticks0 = d->exec_ticks;
	return (struct pos){ .anchor = AT_TRAP,
			     .frames = d->frames,
			     .index = index,
			     .pc = pc,
			     .nth = count_hit(d, index, pc, tk->now),
			     .ticks = tk->now,
			     .ticks0 = ticks0,
			     .execs = d->execs };
}

static int trap(struct dbg *d, pid_t tid, pid_t tgid, int index, int stepping,
		const struct rec_dbg_ticks *tk);

int replay_dbg_trap(void *ctx, pid_t tid, pid_t tgid, int index, int stepping,
		    const struct rec_dbg_ticks *tk)
{
	struct dbg *d = ctx;
	int got = trap(d, tid, tgid, index, stepping, tk);

	if (stepping && (got == 1 || got == 3))
		d->trapped = index + 1; /* the stop, if one comes, ends its step */
	return got;
}

static int trap(struct dbg *d, pid_t tid, pid_t tgid, int index, int stepping,
		const struct rec_dbg_ticks *tk)
{
	struct user_regs_struct r;
	struct bp *b;

	if (tgid != d->tgid || tracer_get_regs(tid, &r) < 0)
		return stepping;
	b = replay_dbg_bp_at(d, r.rip - 1);
	if (b && b->inserted && !stepping) {
		r.rip--;
		tracer_set_regs(tid, &r);
		d->reason = RSP_REASON_SWBREAK;
	} else if (stepping && d->wstep) {
		struct bp *at = replay_dbg_bp_at(d, r.rip);

		by_task(d, index);
		d->cur.steps++;
		moved(d);
		if (replay_dbg_watch_changed(d) || replay_dbg_watch_passed(d, tid)) {
			d->wstep = 0;
			return 1;
		}
		if (at) {
			/* A breakpoint reached by a step: its hit. */
			d->wstep = 0;
			d->reason = RSP_REASON_SWBREAK;
			d->cur = trap_pos(d, index, r.rip, tk);
			moved(d);
			hit_here(d);
			return 1;
		}
		if (replay_dbg_interrupted(d)) {
			d->wstep = 0;
			return 1; /* stop here: stopped() answers it */
		}
		replay_dbg_watch_ahead(d, tid, &r);
		return 3;
	} else if (stepping) {
		/* A step gdb asked for, a step of a seek, or one off a breakpoint. */
		int over = d->over;

		d->over = 0;
		if (over && !((d->mode == TO_POS || d->mode == COUNT) && d->anchored))
			replay_dbg_insert_bps(d);
		if (over == 1)
			return 2; /* off the breakpoint: it goes on */
		by_task(d, index);
		d->cur.steps++;
		moved(d);
		if (d->mode == LIVE && d->how == RSP_RESUME_STEP && replay_dbg_watching(d) &&
		    !replay_dbg_watch_changed(d))
			replay_dbg_watch_passed(d, tid); /* (either sets the stop's reason) */
		if (replay_dbg_bp_at(d, r.rip)) {
			/* as a continue would have hit it, and named it */
			struct pos here = d->cur;

			d->cur = trap_pos(d, index, r.rip, tk);
			hit_here(d);
			d->cur = here;
		}
		return 1;
	} else {
		return 0;
	}
	/* A hit: a new anchor. */
	d->cur = trap_pos(d, index, r.rip, tk);
	moved(d);
	if (d->reason == RSP_REASON_SWBREAK)
		hit_here(d);
	return 1;
}

int replay_dbg_at_event(void *ctx, uint64_t frames, int index)
{
	struct dbg *d = ctx;

	(void)index;
	if (d->mode == SCAN && !d->anchored)
		replay_dbg_scan_watch(d); /* the interval that ends here */
	if (d->mode == WFIND && d->anchored && !d->wmulti)
		d->wend = 1; /* stop: the interval is over */
	count_reset(d, frames);
	d->cur = (struct pos){ .anchor = AT_EVENT, .frames = frames };
	moved(d);
	if (d->mode == LIVE && d->wstep)
		return 1; /* watching: whoever runs next goes by steps too */
	if (d->mode != AT_END && replay_dbg_interrupted(d))
		return 1; /* Ctrl-C: stop before the next task goes on */
	/* Stop at the event a seek or a count starts from. */
	if (d->wend || (d->mode == WFIND && d->anchored))
		return 1;
	/* (at or past it: a call's input frames come with no event of their
	 * own, and no instruction runs between them and the call's event) */
	return (d->mode == TO_POS || d->mode == COUNT || d->mode == SCAN || d->mode == WFIND ||
		d->mode == PRED) &&
	       d->target.anchor == AT_EVENT && d->target.frames <= frames && !d->anchored;
}

/* A seek to a tick (AT_TICK) has the recorder stop its task there. */
uint64_t replay_dbg_tick_stop(void *ctx, int index)
{
	const struct dbg *d = ctx;

	if (d->target.anchor != AT_TICK || d->anchored || d->tick_met || d->target.index != index ||
	    d->mode == LIVE || d->mode == AT_END)
		return UINT64_MAX;
	return d->target.ticks;
}

int replay_dbg_at_tick(void *ctx, pid_t tid, int index, const struct rec_dbg_ticks *tk)
{
	struct dbg *d = ctx;

	d->tick_met = 1;
	d->cur = (struct pos){ .anchor = AT_TICK,
			       .frames = d->frames,
			       .index = index,
			       .pc = replay_dbg_pc_of(tid),
			       .ticks = tk->now,
			       .ticks0 = tk->at_event,
			       .execs = d->execs };
	if (d->execs && index == d->exec_index && d->cur.ticks0 < d->exec_ticks)
		d->cur.ticks0 = d->exec_ticks;
	moved(d);
	return 1;
}

int replay_dbg_at_exit(void *ctx, uint64_t frames)
{
	struct dbg *d = ctx;

	d->cur = (struct pos){ .anchor = AT_EXIT, .frames = frames };
	moved(d);
	/* Forwards, the end is a stop: the user may go back from it. */
	switch (d->mode) {
	case LIVE:
		return d->how == RSP_RESUME_CONT;
	case TO_POS:
		return d->target.anchor == AT_EXIT || !d->anchored;
	case SCAN:
		return d->target.anchor == AT_EXIT;
	case WFIND: /* the interval ends with the program, or a lost seek */
	case COUNT: /* a lost seek: its trap comes before the end */
	case PRED:
		return 1;
	default:
		return 0;
	}
}

int replay_dbg_at_start(void *ctx)
{
	struct dbg *d = ctx;

	if (replay_dbg_connect(d) < 0)
		return 1; /* (the stop ends the replay: d->quit) */

	count_reset(d, 0);
	d->cur = (struct pos){ .anchor = AT_START, .frames = 0 };
	moved(d);
	d->tgid = 0;
	d->gen = 0; /* the first program's breakpoints go in */
	d->wstep = d->over = 0;
	d->wpend_tid = 0;
	/* A new process, which gets every breakpoint before it runs. */
	replay_hits_reset(&d->hits);
	replay_dbg_purge_bps(d);
	for (size_t i = 0; i < d->nbps; i++)
		d->bps[i].whole = 1;
	replay_dbg_known_since(d, 0);
	return 1;
}

/*
 * The debugged process exec'd another program (a wrapper's exec of the
 * real one: `sh -c 'exec prog'`, env, a pyenv shim). Its memory is new, so
 * what was in it goes (gdb counts its breakpoints out at an exec and puts
 * its own in again), and its positions count from here: an AT_EXEC anchor,
 * where trap counts and steps start again. A reverse search goes back no
 * further than the last exec (the program before it is not the one gdb
 * has loaded), so the exec is a floor in the hits and in a SCAN. Forwards,
 * a continue stops here for a gdb that takes exec events, and the stop
 * says exec:<path>, so that gdb loads the new program and sets its
 * breakpoints again.
 */
int replay_dbg_at_exec(void *ctx, pid_t tid, pid_t tgid, int index, int stepping,
		       const struct rec_dbg_ticks *tk)
{
	struct dbg *d = ctx;

	(void)tid;
	if (!d->tgid || tgid != d->tgid)
		return stepping; /* another process's: a step of it ends here all the same */
	d->gen++;
	d->execs++;
	d->ncounts = 0;
	d->exec_index = index;
	d->exec_ticks = tk->now;
	d->over = 0; /* the step off a breakpoint ended with the old program */
	d->wpend_tid = 0;
	replay_dbg_exec_bps(d);
	d->cur = (struct pos){ .anchor = AT_EXEC,
			       .frames = d->frames,
			       .execs = d->execs,
			       .index = index,
			       .by_task = 1,
			       .ticks = tk->now };
	if (d->pre_exec.anchor == AT_PRE_EXEC && d->pre_exec.index == index) {
		d->cur.pre_frames = d->pre_exec.frames;
		d->cur.pre_execs = d->pre_exec.execs;
		d->cur.pre_nth = d->pre_exec.nth;
	}
	d->pre_exec.anchor = AT_START; /* used */
	moved(d);
	replay_hits_add(&d->hits, &d->cur, d->moves); /* a floor (hits.c) */
	d->known = 0; /* (going back across it is cross_exec's, by a scan) */
	hm_debug("debugger: task %d exec'd (event %" PRIu64 ", exec %" PRIu64 ")", index, d->frames,
		 d->execs);
	if (d->mode == LIVE || d->mode == SCAN || d->mode == AT_END || !d->anchored)
		replay_dbg_insert_bps(d);
	replay_dbg_watch_snapshot(d); /* (the exec is no write) */
	switch (d->mode) {
	case LIVE:
		/* A continue stops here (one watching, by steps, too), and so
		 * does a step of the call, as gdbserver reports them. */
		if (rsp_session_exec_events(d->rsp) &&
		    (stepping || d->wstep || d->how == RSP_RESUME_CONT)) {
			d->reason = RSP_REASON_EXEC;
			return 1;
		}
		if (stepping || d->wstep)
			return 1; /* a step's stop; watching goes on by steps */
		/* (a gdb without exec events knows nothing of it: a continue
		 * goes on, and its breakpoints are gone with the program) */
		return 0;
	case SCAN:
		if (!d->anchored) {
			/* no hit before it counts */
			d->last_hit = d->cur;
			d->have_hit = 1;
			d->hit_move = d->moves;
		}
		break;
	case WFIND:
		if (d->anchored) {
			/* nothing before it counts either, and steps count from it */
			d->wfrom = d->cur;
			replay_dbg_wsteps_reset(d);
			d->pc_seen = 0;
			d->wfound = d->cur;
			d->wfound_kind = RSP_REASON_SWBREAK; /* (named as a pass) */
			return 1;
		}
		break;
	default:
		break;
	}
	return stepping || (!d->anchored && same_anchor(&d->cur, &d->target));
}

/*
 * Task INDEX of process TGID enters an execve (or execveat), which has not
 * run yet. Positions before an exec are named by this entry (AT_PRE_EXEC:
 * the nth such call of the debugged process since the last event), so
 * that going back across the exec (cross_exec) can stop in the program
 * before it. The replay stops only where a seek's target is such a stop;
 * a continue passes it.
 */
int replay_dbg_before_exec(void *ctx, pid_t tid, pid_t tgid, int index,
			   const struct rec_dbg_ticks *tk)
{
	struct dbg *d = ctx;
	struct user_regs_struct r;
	uint64_t ticks0 = tk->at_event;

	if (!d->tgid || tgid != d->tgid)
		return 0;
	if (d->execs && index == d->exec_index && ticks0 < d->exec_ticks)
		ticks0 = d->exec_ticks;
	d->exec_calls++;
	d->pre_exec = (struct pos){ .anchor = AT_PRE_EXEC,
				    .frames = d->frames,
				    .execs = d->execs,
				    .index = index,
				    .nth = d->exec_calls,
				    .by_task = 1,
				    /* (syscall is 0f 05: the call's own instruction) */
				    .pc = tracer_get_regs(tid, &r) == 0 ? r.rip - 2 : 0,
				    .ticks = tk->now,
				    .ticks0 = ticks0 };
	if (d->anchored ||
	    (d->mode != TO_POS && d->mode != SCAN && d->mode != COUNT && d->mode != WFIND &&
	     d->mode != PRED) ||
	    !same_anchor(&d->pre_exec, &d->target))
		return 0;
	d->cur = d->pre_exec;
	moved(d);
	return 1;
}
