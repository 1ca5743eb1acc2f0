/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gdb's watchpoints in a replay (internal.h), by single steps; and for a
 * reverse-continue, the search (WFIND) through the event interval in which
 * a watched location last changed for the instruction that wrote it.
 *
 * The debug registers are not used: some hypervisors ignore them (this
 * VM's does), and where they work, their traps named a stop by the trap
 * count at an address that a seek, stepping one task while others ran
 * free, did not count the same way (a reverse-continue then went to the
 * wrong instance). Steps see every write, on every host.
 *
 * Read and access watchpoints: before each step the instruction about to
 * run is decoded (dwarf/access.c) for the memory it reads and writes.
 * Forwards, the stop comes
 * after the reading instruction, as a debug register's trap would;
 * backwards, before it, as a write's does. A read leaves nothing a scan of
 * events could compare, so a reverse-continue steps through every
 * instruction back from the current position, a stretch of events at a
 * time, each twice as long as the one before, until it finds one.
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>
#include <sys/types.h>

#include "common/common.h"
#include "dwarf/dwarf.h"
#include "internal.h"
#include "tracer/tracer.h"

/*
 * A continue with a watchpoint set goes by single steps and compares the
 * watched bytes after each one (and after each event: a syscall may write
 * them). Slow, but exact.
 */
/* Whether a watchpoint of a type in TYPES (bit 1 << type) is set. */
static int watching_for(const struct dbg *d, unsigned types)
{
	for (int i = 0; i < MAX_WPS; i++) {
		if (d->wps[i].type && (types & (1u << d->wps[i].type)))
			return 1;
	}
	return 0;
}

int replay_dbg_watching(const struct dbg *d)
{
	return watching_for(d, 1u << 2 | 1u << 3 | 1u << 4);
}

void replay_dbg_watch_snapshot(struct dbg *d)
{
	for (int i = 0; i < MAX_WPS; i++) {
		if (d->wps[i].type &&
		    tracer_read_mem(d->tgid, d->wps[i].addr, d->wold[i], (size_t)d->wps[i].len) < 0)
			memset(d->wold[i], 0, sizeof(d->wold[i]));
	}
}

/* Whether a watched value changed since the snapshot; then the stop's
 * reason and address are set and the snapshot is the new value. */
int replay_dbg_watch_changed(struct dbg *d)
{
	for (int i = 0; i < MAX_WPS; i++) {
		uint8_t now[8];

		if (!d->wps[i].type || d->wps[i].type == 3 ||
		    tracer_read_mem(d->tgid, d->wps[i].addr, now, (size_t)d->wps[i].len) < 0 ||
		    memcmp(now, d->wold[i], (size_t)d->wps[i].len) == 0)
			continue;
		memcpy(d->wold[i], now, (size_t)d->wps[i].len);
		d->reason = d->wps[i].type == 2 ? RSP_REASON_WATCH : RSP_REASON_AWATCH;
		d->watch_addr = d->wps[i].addr;
		return 1;
	}
	return 0;
}

int replay_dbg_reading(const struct dbg *d)
{
	return watching_for(d, 1u << 3 | 1u << 4);
}

/* Whether the instruction task TID is about to run (registers R) reads a
 * location a read watchpoint watches, or reads or writes one an access
 * watchpoint does: then *REASON and *ADDR say which. */
static int access_ahead(struct dbg *d, pid_t tid, const struct user_regs_struct *r, int *reason,
			uint64_t *addr)
{
	uint8_t insn[16];
	size_t len = sizeof(insn);
	struct dw_access acc[8];
	int n;

	/* (an instruction may end right at the end of a mapping) */
	if (replay_dbg_read_code(d, tid, r->rip, insn, len) < 0) {
		len = 4096 - (r->rip & 4095);
		if (len >= sizeof(insn) || replay_dbg_read_code(d, tid, r->rip, insn, len) < 0)
			return 0;
	}
	n = dw_insn_accesses(insn, len, r, acc, sizeof(acc) / sizeof(acc[0]));
	for (int a = 0; a < n; a++) {
		for (int i = 0; i < MAX_WPS; i++) {
			int t = d->wps[i].type;

			if ((t == 3 && acc[a].read) || (t == 4 && (acc[a].read || acc[a].write))) {
				if (acc[a].addr < d->wps[i].addr + (uint64_t)d->wps[i].len &&
				    d->wps[i].addr < acc[a].addr + acc[a].size) {
					*reason = t == 3 ? RSP_REASON_RWATCH : RSP_REASON_AWATCH;
					*addr = d->wps[i].addr;
					return 1;
				}
			}
		}
	}
	return 0;
}

void replay_dbg_watch_ahead(struct dbg *d, pid_t tid, const struct user_regs_struct *r)
{
	struct user_regs_struct own;

	d->wpend_tid = 0;
	if (!replay_dbg_reading(d))
		return;
	if (!r) {
		if (tracer_get_regs(tid, &own) < 0)
			return;
		r = &own;
	}
	if (access_ahead(d, tid, r, &d->wpend_reason, &d->wpend_addr))
		d->wpend_tid = tid;
}

int replay_dbg_watch_passed(struct dbg *d, pid_t tid)
{
	if (!d->wpend_tid || d->wpend_tid != tid)
		return 0;
	d->wpend_tid = 0;
	d->reason = d->wpend_reason;
	d->watch_addr = d->wpend_addr;
	return 1;
}

void replay_dbg_search_reads(struct dbg *d, const struct pos *bound, uint64_t chunk)
{
	struct pos b = *bound, from = { .anchor = AT_START, .frames = 0 };

	if (b.frames > chunk) {
		from.anchor = AT_EVENT;
		from.frames = b.frames - chunk;
	}
	hm_debug("debugger: looking for the last read from %s%" PRIu64 " on",
		 from.anchor == AT_START ? "the start, event " : "event ", from.frames);
	replay_dbg_seek(d, WFIND, &from);
	d->wfrom = from;
	d->wbound = b;
	d->wprev_have = 0;
	d->wmulti = chunk + 1;
}

/* SCAN, at an event or at the target: did the watched bytes change in the
 * interval since the last event? Then it is the last one seen so far. */
void replay_dbg_scan_watch(struct dbg *d)
{
	if (!replay_dbg_watching(d) || d->wsnap_due || !replay_dbg_watch_changed(d))
		return;
	d->have_w = 1;
	d->wfrom = (struct pos){ .anchor = d->frames ? AT_EVENT : AT_START, .frames = d->frames };
	if (d->execs) /* (the interval's steps start again at its last exec) */
		d->wfrom = (struct pos){ .anchor = AT_EXEC,
					 .frames = d->frames,
					 .execs = d->execs,
					 .index = d->exec_index,
					 .by_task = 1 };
	d->wto_move = d->moves;
}

/* WFIND is done: go to the last write or breakpoint pass it found, else
 * to what the scan found before the interval. */
static void finish_wfind(struct dbg *d)
{
	struct pos to;
	int kind = d->wfound_kind;
	uint64_t addr = d->wfound_addr;

	if (kind) {
		to = d->wfound;
		hm_debug("debugger: the last %s before the current position is at event %" PRIu64
			 ", %" PRIu64 " steps of task %d after",
			 kind == RSP_REASON_SWBREAK  ? "breakpoint pass"
			 : kind == RSP_REASON_RWATCH ? "read"
						     : "write or access",
			 to.frames, to.steps, to.index);
	} else if (d->wprev_have) {
		to = d->wprev_hit;
	} else if (d->wmulti && d->target.anchor != AT_START) {
		/* Nothing read in this stretch: the one before (the interval
		 * before it, then twice as many each time). */
		struct pos bound = { .anchor = AT_EVENT, .frames = d->target.frames };
		uint64_t chunk = d->wmulti - 1;

		replay_dbg_search_reads(d, &bound, chunk ? 2 * chunk : 1);
		return;
	} else {
		to = (struct pos){ .anchor = AT_START, .frames = 0 };
	}
	replay_dbg_seek(d, TO_POS, &to);
	d->begin = (to.anchor == AT_START && !to.steps && !to.by_task) ||
		   (to.anchor == AT_EXEC && !to.steps); /* (history stops at an exec) */
	if (kind && kind != RSP_REASON_SWBREAK) {
		d->arrive_reason = kind;
		d->arrive_addr = addr;
	}
}

/* WFIND: task INDEX's steps since the interval's start. */
static uint64_t *wsteps(struct dbg *d, int index)
{
	if (index < 0)
		index = 0;
	if ((size_t)index >= d->nwsteps) {
		size_t n = (size_t)index + 16;

		d->wsteps = xrealloc(d->wsteps, n * sizeof(*d->wsteps));
		memset(d->wsteps + d->nwsteps, 0, (n - d->nwsteps) * sizeof(*d->wsteps));
		d->nwsteps = n;
	}
	return &d->wsteps[index];
}

void replay_dbg_wsteps_reset(struct dbg *d)
{
	if (d->nwsteps)
		memset(d->wsteps, 0, d->nwsteps * sizeof(*d->wsteps));
}

/* Whether the WFIND steps reached the scan's target, when that is inside
 * the interval (else its next event or the exit ends the search), at a
 * stop of task st->index that is STEPS of its steps after the interval's
 * start. */
static int wfind_at_bound(struct dbg *d, const struct rec_dbg_stop *st, uint64_t steps)
{
	const struct pos *b = &d->wbound;

	/* Past it (a search for reads counts its events as they come; a
	 * call's input frames have no stop of their own): an end, not a wrong
	 * answer. */
	if (d->wmulti && b->anchor != AT_EXIT && d->frames > b->frames)
		return 1;
	if (b->anchor == AT_TICK) {
		/* its task at the site it stopped on, with the ticks it had;
		 * then that task's steps */
		if (st->index != b->index)
			return 0;
		for (size_t i = 0; !d->wbound_hit && i < st->nthreads; i++) {
			if (st->threads[i].index == b->index && st->threads[i].ticks == b->ticks &&
			    replay_dbg_pc_of(st->tid) == b->pc) {
				d->wbound_hit = 1;
				d->wbound_left = b->steps;
				return !d->wbound_left;
			}
		}
		return d->wbound_hit && --d->wbound_left == 0;
	}
	if (b->anchor != AT_TRAP)
		return b->anchor == d->wfrom.anchor && b->frames == d->wfrom.frames &&
		       b->execs == d->wfrom.execs &&
		       (b->by_task || b->steps ? st->index == b->index && steps == b->steps : 1);
	if (b->frames != d->wfrom.frames || b->execs != d->wfrom.execs || st->index != b->index)
		return 0;
	if (!d->wbound_hit) {
		/* (its nth counts the passes with its ticks: seek.c) */
		if (replay_dbg_pc_of(st->tid) == b->pc && replay_dbg_ticks_of(st) == b->ticks &&
		    ++d->pc_seen == b->nth) {
			d->wbound_hit = 1;
			d->wbound_left = b->steps;
			return !d->wbound_left;
		}
		return 0;
	}
	return --d->wbound_left == 0;
}

/*
 * WFIND, at a stop in the interval: a change of the watched bytes since the
 * last stop means the step just taken wrote them (or the kernel did, in the
 * syscall that step made): the write is one step before, where the writing
 * instruction is about to run. A breakpoint address reached is a pass. The
 * last of them is the target. With read or access watchpoints, so is an
 * instruction about to read or touch a watched location: the read is
 * here. Every task that runs is stepped; a position is the steps of one
 * task from its first resume after the interval's event (by_task). Ends at
 * the scan's target, the next event, or the exit; for reads (wmulti), at
 * the target or the exit, through every event before.
 */
/* WFIND: the last access so far is STEPS of the current task after the
 * interval's start, of KIND at ADDR. */
static void found(struct dbg *d, uint64_t steps, int kind, uint64_t addr)
{
	d->wfound = d->wfrom;
	d->wfound.index = d->wtask;
	d->wfound.steps = steps;
	d->wfound.by_task = 1;
	d->wfound_kind = kind;
	d->wfound_addr = addr;
}

enum rec_dbg_go replay_dbg_wfind_step(struct dbg *d, const struct rec_dbg_stop *st)
{
	struct user_regs_struct r;
	int have_regs = tracer_get_regs(st->tid, &r) == 0, end, reason;
	uint64_t pc = have_regs ? r.rip : 0, addr, *n = wsteps(d, st->index);
	/* A stop of a task before its step trapped: it is resumed after it
	 * waited (in a call, or preempted) while others ran, its step still
	 * under way, and no position of its own (a seek steps it alone and
	 * never stops here). */
	int flying = !d->step_trap && *n > 0;

	/* A change since the last stop: the step just taken wrote it, or
	 * the kernel did in the call a step made (the task's own, taken or
	 * under way); before a task's first step in the interval, nothing
	 * of its own did. */
	d->wtask = st->index;
	if (*n && replay_dbg_watch_changed(d))
		found(d, *n - 1, d->reason, d->watch_addr); /* a write, or an access */
	else if (!*n)
		replay_dbg_watch_snapshot(d);
	if (d->wmulti && d->frames != d->wfrom.frames) {
		/* an event passed: positions count from it now */
		d->wfrom = (struct pos){ .anchor = d->frames ? AT_EVENT : AT_START,
					 .frames = d->frames };
		replay_dbg_wsteps_reset(d);
		flying = 0;
	}
	if (flying)
		return REC_DBG_STEP_ALL; /* the same step goes on */
	end = d->wend || d->cur.anchor == AT_EXIT || wfind_at_bound(d, st, *n);
	if (!end && replay_dbg_bp_at(d, pc) && d->hits.n &&
	    d->hits.v[d->hits.n - 1].move == d->moves) {
		d->wfound = d->hits.v[d->hits.n - 1].at; /* named as a hit */
		d->wfound_kind = RSP_REASON_SWBREAK;
	}
	if (!end && have_regs && replay_dbg_reading(d) &&
	    access_ahead(d, st->tid, &r, &reason, &addr))
		found(d, *n, reason, addr);
	if (end) {
		finish_wfind(d);
		return REC_DBG_KILL;
	}
	++*n;
	return REC_DBG_STEP_ALL;
}
