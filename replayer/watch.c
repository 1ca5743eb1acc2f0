/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gdb's watchpoints in a replay (internal.h): in the debug registers, and by
 * single steps where those have no effect; and for a reverse-continue, the
 * search (WFIND) through the event interval in which a watched location
 * last changed for the instruction that wrote it.
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>

#include "common/common.h"
#include "internal.h"
#include "tracer/tracer.h"

/* The watchpoints into every thread's debug registers (DR0-3, DR7). */
void replay_dbg_set_watchpoints(struct dbg *d)
{
	unsigned long dr7 = 0;

	for (int i = 0; i < 4; i++) {
		static const unsigned long rw[] = { 0, 0, 1, 3, 3 },
					   len[] = { 0, 0, 1, 0, 3, 0, 0, 0, 2 };

		if (!d->wps[i].type)
			continue;
		dr7 |= 1ul << (2 * i);
		dr7 |= rw[d->wps[i].type] << (16 + 4 * i);
		dr7 |= len[d->wps[i].len <= 8 ? d->wps[i].len : 8] << (18 + 4 * i);
	}
	for (size_t t = 0; d->stop && t < d->stop->nthreads; t++) {
		pid_t tid = d->stop->threads[t].tid;

		if (d->stop->threads[t].tgid != d->tgid)
			continue;
		for (int i = 0; i < 4; i++)
			ptrace(PTRACE_POKEUSER, tid, (void *)DR_OFFSET(i), (void *)d->wps[i].addr);
		ptrace(PTRACE_POKEUSER, tid, (void *)DR_OFFSET(7), (void *)dr7);
	}
}

/*
 * Software watchpoints. Where the host gives ptrace's debug registers no
 * effect (this VM's hypervisor ignores DR7), a continue with a watchpoint
 * set goes by single steps and compares the watched bytes after each one
 * (and after each event: a syscall may write them). Slow, but exact.
 */
int replay_dbg_watching(const struct dbg *d)
{
	for (int i = 0; i < 4; i++) {
		if (d->wps[i].type)
			return 1;
	}
	return 0;
}

void replay_dbg_watch_snapshot(struct dbg *d)
{
	for (int i = 0; i < 4; i++) {
		if (d->wps[i].type &&
		    tracer_read_mem(d->tgid, d->wps[i].addr, d->wold[i], (size_t)d->wps[i].len) < 0)
			memset(d->wold[i], 0, sizeof(d->wold[i]));
	}
}

/* Whether a watched value changed since the snapshot; then the stop's
 * reason and address are set and the snapshot is the new value. */
int replay_dbg_watch_changed(struct dbg *d)
{
	for (int i = 0; i < 4; i++) {
		uint8_t now[8];

		if (!d->wps[i].type ||
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

/* SCAN, at an event or at the target: did the watched bytes change in the
 * interval since the last event? Then it is the last one seen so far. */
void replay_dbg_scan_watch(struct dbg *d)
{
	if (!replay_dbg_watching(d) || d->wsnap_due || !replay_dbg_watch_changed(d))
		return;
	d->have_w = 1;
	d->wfrom = (struct pos){ d->frames ? AT_EVENT : AT_START, d->frames, 0, 0, 0, 0, 0 };
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
			 kind == RSP_REASON_WATCH ? "write" : "breakpoint pass", to.frames,
			 to.steps, to.index);
	} else if (d->wprev_have) {
		to = d->wprev_hit;
	} else {
		to = (struct pos){ AT_START, 0, 0, 0, 0, 0, 0 };
	}
	replay_dbg_seek(d, TO_POS, &to);
	d->begin = to.anchor == AT_START && !to.steps;
	if (kind == RSP_REASON_WATCH) {
		d->arrive_reason = kind;
		d->arrive_addr = addr;
	}
}

/* Whether the WFIND steps reached the scan's target, when that is inside
 * the interval (else its next event or the exit ends the search). */
static int wfind_at_bound(struct dbg *d, const struct rec_dbg_stop *st)
{
	const struct pos *b = &d->wbound;

	if (b->anchor != AT_TRAP)
		return b->anchor == d->wfrom.anchor && b->frames == d->wfrom.frames &&
		       (!b->steps || (d->wtask == b->index && d->counted == b->steps));
	if (b->frames != d->wfrom.frames)
		return 0;
	if (!d->wbound_hit && st->index == b->index && replay_dbg_pc_of(st->tid) == b->pc &&
	    ++d->pc_seen == b->nth) {
		d->wbound_hit = 1;
		d->wbound_left = b->steps;
	}
	return d->wbound_hit && d->wbound_left-- == 0;
}

/*
 * WFIND, at a stop in the interval: a change of the watched bytes since the
 * last stop means the step just taken wrote them (or the kernel did, in the
 * syscall that step made): the write is one step before, where the writing
 * instruction is about to run. A breakpoint address reached is a pass. The
 * last of them is the target. Every task that runs is stepped; a position
 * is the steps of one task from its first resume after the interval's
 * event (by_task). Ends at the scan's target, the next event, or the exit.
 */
enum rec_dbg_go replay_dbg_wfind_step(struct dbg *d, const struct rec_dbg_stop *st)
{
	uint64_t pc = replay_dbg_pc_of(st->tid);

	if (d->counted && replay_dbg_watch_changed(d)) {
		d->wfound = d->wfrom;
		d->wfound.index = d->wtask;
		d->wfound.steps = d->counted - 1;
		d->wfound.by_task = 1;
		d->wfound_kind = RSP_REASON_WATCH;
		d->wfound_addr = d->watch_addr;
	}
	if (!d->counted || st->index != d->wtask) {
		/* the first stop of this task in the interval */
		d->wtask = st->index;
		d->counted = 0;
	}
	if (!d->wend && d->cur.anchor != AT_EXIT && replay_dbg_bp_at(d, pc) && d->hits.n &&
	    d->hits.v[d->hits.n - 1].move == d->moves) {
		d->wfound = d->hits.v[d->hits.n - 1].at; /* named as a hit */
		d->wfound_kind = RSP_REASON_SWBREAK;
	}
	if (d->wend || d->cur.anchor == AT_EXIT || wfind_at_bound(d, st)) {
		finish_wfind(d);
		return REC_DBG_KILL;
	}
	d->counted++;
	return REC_DBG_STEP_ALL;
}
