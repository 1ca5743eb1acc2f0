/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gdb's breakpoints in the replayed guest (internal.h): int3 bytes in its
 * memory, put in as soon as its process can take them, all taken out to
 * go by single steps, and one for the instruction under a stop.
 */
#include "config.h"

#include "internal.h"
#include "common/common.h"
#include "tracer/tracer.h"

/* Put every breakpoint that is not in yet into the debugged process
 * (libraries come later than the program). */
void replay_dbg_insert_bps(struct dbg *d)
{
	static const uint8_t int3 = 0xcc;

	for (size_t i = 0; d->tgid && i < d->nbps; i++) {
		uint64_t start;
		size_t len;

		if (d->bps[i].inserted || d->bps[i].removed || d->bps[i].gen != d->gen)
			continue; /* (another program's: not in this one's memory) */
		if (tracer_ticks_site(d->tgid, d->bps[i].addr, &start, &len, NULL, 0) ==
			    TRACER_SITE_JUMP &&
		    start != d->bps[i].addr) {
			/* Inside the jump to a counted site's trampoline: an int3
			 * there would break the jump (docs/gdb.md). */
			if (!d->bps[i].refused)
				hm_warn("cannot put a breakpoint at %#llx: hermit's counted site at "
					"%#llx covers it",
					(unsigned long long)d->bps[i].addr, (unsigned long long)start);
			d->bps[i].refused = 1;
			continue;
		}
		if (tracer_poke_byte(d->tgid, d->bps[i].addr, &int3, &d->bps[i].orig) == 0)
			d->bps[i].inserted = 1;
	}
}

/* Take every breakpoint out, to go by single steps: passes that are not
 * stepped may go uncounted, so the hits of this replay are no longer whole. */
void replay_dbg_remove_bps(struct dbg *d)
{
	d->hits.whole = 0;
	d->known = 0;
	for (size_t i = 0; i < d->nbps; i++) {
		if (d->bps[i].inserted)
			tracer_poke_byte(d->tgid, d->bps[i].addr, &d->bps[i].orig, NULL);
		d->bps[i].inserted = 0;
	}
}

int replay_dbg_read_code(struct dbg *d, pid_t tid, uint64_t addr, uint8_t *buf, size_t len)
{
	int err = tracer_read_mem(tid, addr, buf, len);

	if (err)
		return err;
	for (size_t i = 0; i < d->nbps; i++) {
		if (d->bps[i].inserted && d->bps[i].addr >= addr && d->bps[i].addr - addr < len)
			buf[d->bps[i].addr - addr] = d->bps[i].orig;
	}
	tracer_ticks_hide(d->tgid, addr, buf, len);
	return 0;
}

struct bp *replay_dbg_bp_find(struct dbg *d, uint64_t addr)
{
	struct bp *internal = NULL;

	for (size_t i = 0; i < d->nbps; i++) {
		if (d->bps[i].addr != addr || d->bps[i].gen != d->gen)
			continue;
		if (!d->bps[i].internal)
			return &d->bps[i];
		internal = &d->bps[i];
	}
	return internal;
}

struct bp *replay_dbg_bp_at(struct dbg *d, uint64_t addr)
{
	/* (A seek's own may be there beside one gdb took out.) */
	for (size_t i = 0; i < d->nbps; i++) {
		if (d->bps[i].addr == addr && !d->bps[i].removed && d->bps[i].gen == d->gen)
			return &d->bps[i];
	}
	return NULL;
}

void replay_dbg_target_bp(struct dbg *d, uint64_t pc)
{
	for (size_t i = 0; i < d->nbps; i++) {
		if (!d->bps[i].internal)
			continue;
		if (d->bps[i].inserted)
			tracer_poke_byte(d->tgid, d->bps[i].addr, &d->bps[i].orig, NULL);
		d->bps[i--] = d->bps[--d->nbps];
	}
	replay_dbg_seek_bp(d, pc);
}

void replay_dbg_seek_bp(struct dbg *d, uint64_t pc)
{
	if (!pc || replay_dbg_bp_at(d, pc) || d->nbps == MAX_BPS)
		return;
	d->bps[d->nbps] = (struct bp){ .addr = pc, .internal = 1, .gen = d->gen };
	d->nbps++;
}

/* The debugged process exec'd (d->gen is its new program's): nothing of
 * ours is in its memory, and gdb counts its own breakpoints and
 * watchpoints of the program before out (breakpoint_init_inferior() with
 * inf_execd in gdb/breakpoint.c): it puts in again those it keeps. */
void replay_dbg_exec_bps(struct dbg *d)
{
	for (size_t i = 0; i < d->nbps;) {
		d->bps[i].inserted = 0;
		if (!d->bps[i].internal && d->bps[i].gen != d->gen)
			d->bps[i] = d->bps[--d->nbps];
		else
			i++;
	}
	for (int i = 0; i < MAX_WPS; i++) {
		if (d->wps[i].gen != d->gen)
			d->wps[i].type = 0;
	}
}

/* The replay went back across an exec, into the program before it, and
 * gdb is told so as of an exec: it counts the breakpoints and watchpoints
 * of the program it had out, as at any exec, and sets its own again. */
void replay_dbg_back_exec_bps(struct dbg *d)
{
	for (size_t i = 0; i < d->nbps;) {
		if (!d->bps[i].internal && d->bps[i].gen != d->gen && !d->bps[i].inserted)
			d->bps[i] = d->bps[--d->nbps];
		else
			i++;
	}
	for (int i = 0; i < MAX_WPS; i++) {
		if (d->wps[i].gen != d->gen)
			d->wps[i].type = 0;
	}
}

/* gdb resumes: what it took out and did not put back is gone. */
void replay_dbg_purge_bps(struct dbg *d)
{
	for (size_t i = 0; i < d->nbps;) {
		if (d->bps[i].removed)
			d->bps[i] = d->bps[--d->nbps];
		else
			i++;
	}
}

/* Go on from TID's stop (STEP: one instruction). A breakpoint under it
 * comes out for that instruction; replay_dbg_trap puts it back. */
enum rec_dbg_go replay_dbg_go_on(struct dbg *d, pid_t tid, int step)
{
	struct bp *b = replay_dbg_bp_at(d, replay_dbg_pc_of(tid));

	if (b && b->inserted) {
		tracer_poke_byte(d->tgid, b->addr, &b->orig, NULL);
		b->inserted = 0;
		d->over = step ? 2 : 1;
		return REC_DBG_STEP;
	}
	return step ? REC_DBG_STEP : REC_DBG_CONT;
}
