/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay under gdb (DESIGN.md "Debugging faces", "Replay"). The replay
 * runs in the recorder's loop; when it stops for the debugger (the first
 * instruction, a breakpoint or watchpoint, a finished step, an event a
 * seek asked for), rec_debugger.stopped() serves gdb's packets through
 * gdbstub/ until gdb resumes. Resuming returns to the loop; the stop reply
 * goes out at the next stop (rsp_session_stopped).
 *
 * Positions. A stop is named by an anchor and a number of single steps
 * after it. Anchors: the start; "after event F" (the first instruction
 * the next guest task runs once frame F was taken); "the Nth debugger trap
 * at address PC by task I since event F". Within one event interval only
 * one task runs, and the replay is deterministic, so a replay from the
 * start reaches each anchor again.
 *
 * Reverse execution replays from the start, silently (the guest's output
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
 *   reverse-stepi     n - 1 steps after the anchor when n > 0; at an anchor,
 *                     a first pass single-steps from the event before it to
 *                     count the instructions in between.
 * No checkpoints yet: each reverse step replays from the start.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/user.h>
#include <unistd.h>

#include "common/common.h"
#include "gdbstub/gdbstub.h"
#include "position.h"
#include "replayer.h"
#include "tracer/tracer.h"

enum mode {
	LIVE,	/* stop where gdb asks */
	TO_POS, /* replay silently to `target`, then stop */
	SCAN,	/* replay silently to `target`, noting every hit before it */
	COUNT,	/* step silently from `target`'s event to `count_to`, counting */
	AT_END, /* the replay ended: serve gdb until it goes back or leaves */
	WFIND,	/* step silently through `target`'s event interval, finding the
		 * last write of a watched location (or breakpoint pass) in it */
};

#define MAX_BPS	   256
#define MAX_COUNTS 256

struct bp {
	uint64_t addr;
	uint8_t orig;
	int inserted;
	int whole;	     /* set since the replay's start: its hits are all in `hits` */
	int removed;	     /* gdb took it out (it may put it back) */
	uint64_t removed_at; /* the number of continues when it was taken out */
};

struct dbg {
	int fd; /* gdb's connection */
	struct rsp_session *rsp;
	struct rsp_target_ops ops;
	const struct replay_recording *rc;
	const struct rec_dbg_stop *stop; /* while stopped */
	pid_t tgid;			 /* the debugged process (task 0's) */

	int requested; /* gdb resumed: how */
	enum rsp_resume how;
	int owe_reply; /* a stop reply is due at the next stop */
	int quit;      /* gdb left, or killed the target */
	int rerun;     /* end this replay and replay again (mode, target) */

	struct bp bps[MAX_BPS];
	size_t nbps;
	struct {
		uint64_t addr;
		int len, type; /* type 2 write, 3 read, 4 access */
	} wps[4];
	int reason; /* of the stop: RSP_REASON_* */
	uint64_t watch_addr;

	struct pos cur;	  /* where the replay is stopped */
	uint64_t moves;	  /* changes of `cur` so far: the order of positions */
	uint64_t conts;	  /* continues gdb asked for so far */
	struct hits hits; /* breakpoint hits of this replay (hits.c) */
	uint64_t frames;  /* frames taken so far in this replay */
	struct {
		int index;
		uint64_t pc, n;
	} counts[MAX_COUNTS]; /* traps per (task, pc) since the last event */
	size_t ncounts;

	enum mode mode;
	struct pos target;
	uint64_t steps_left; /* TO_POS: steps after reaching the anchor */
	int anchored;	     /* TO_POS, SCAN: the target's anchor was passed */
	struct pos last_hit; /* SCAN: the last hit before the target */
	int have_hit;
	uint64_t counted;   /* COUNT: steps so far */
	uint64_t pc_seen;   /* COUNT: passes at the target's pc */
	int begin;	    /* the stop is at the start, reached backwards */
	int over;	    /* stepping off a breakpoint: 1 to go on after, 2 to stop */
	int wstep;	    /* continuing by single steps to watch memory */
	uint8_t wold[4][8]; /* the watched bytes as last seen */
	/* reverse-continue with watchpoints: a SCAN notes the last event
	 * interval in which watched bytes changed, a WFIND steps through it */
	int wsnap_due;	      /* SCAN: snapshot the watched bytes at the first stop */
	int have_w;	      /* SCAN: they changed before the target */
	struct pos wfrom;     /* SCAN: the start of the interval of the last change */
	uint64_t wto_move;    /* SCAN: the move that ended that interval */
	uint64_t hit_move;    /* SCAN: the move of last_hit */
	struct pos wbound;    /* WFIND: where to stop looking (the scan's target) */
	struct pos wprev_hit; /* WFIND: the scan's last hit, if any */
	int wprev_have;
	int wend;	      /* WFIND: the interval's next event came */
	int wnext;	      /* WFIND: at the interval's start, its task not resumed yet */
	int wtask;	      /* WFIND: the task whose steps `counted` counts */
	int wbound_hit;	      /* WFIND: the bound's anchor was passed */
	uint64_t wbound_left; /* WFIND: steps from there to the bound */
	struct pos wfound;    /* WFIND: the last write or pass found so far */
	int wfound_kind;      /* WFIND: RSP_REASON_WATCH, _SWBREAK, or 0 */
	uint64_t wfound_addr;
	int arrive_reason; /* TO_POS: the stop reason at the target (0: by position) */
	uint64_t arrive_addr;
};

static int watching(const struct dbg *d);

/* ---- memory and registers ---- */

static pid_t host_tid(struct dbg *d, int vtid)
{
	for (size_t i = 0; d->stop && i < d->stop->nthreads; i++) {
		if (d->stop->threads[i].vtid == vtid)
			return d->stop->threads[i].tid;
	}
	return 0;
}

/* Put every breakpoint that is not in yet into the debugged process
 * (libraries come later than the program). */
static void insert_bps(struct dbg *d)
{
	static const uint8_t int3 = 0xcc;

	for (size_t i = 0; d->tgid && i < d->nbps; i++) {
		if (!d->bps[i].inserted && !d->bps[i].removed &&
		    tracer_poke_byte(d->tgid, d->bps[i].addr, &int3, &d->bps[i].orig) == 0)
			d->bps[i].inserted = 1;
	}
}

/* Take every breakpoint out, to go by single steps: passes that are not
 * stepped may go uncounted, so the hits of this replay are no longer whole. */
static void remove_bps(struct dbg *d)
{
	d->hits.whole = 0;
	for (size_t i = 0; i < d->nbps; i++) {
		if (d->bps[i].inserted)
			tracer_poke_byte(d->tgid, d->bps[i].addr, &d->bps[i].orig, NULL);
		d->bps[i].inserted = 0;
	}
}

static struct bp *bp_find(struct dbg *d, uint64_t addr)
{
	for (size_t i = 0; i < d->nbps; i++) {
		if (d->bps[i].addr == addr)
			return &d->bps[i];
	}
	return NULL;
}

static struct bp *bp_at(struct dbg *d, uint64_t addr)
{
	struct bp *b = bp_find(d, addr);

	return b && !b->removed ? b : NULL;
}

/* gdb resumes: what it took out and did not put back is gone. */
static void purge_bps(struct dbg *d)
{
	for (size_t i = 0; i < d->nbps;) {
		if (d->bps[i].removed)
			d->bps[i] = d->bps[--d->nbps];
		else
			i++;
	}
}

/* The position changed (to `cur`). */
static void moved(struct dbg *d)
{
	d->moves++;
}

/* `cur`, just reached, is a pass of a breakpoint: a hit of this replay. */
static void hit_here(struct dbg *d)
{
	hits_add(&d->hits, &d->cur, d->moves);
}

static int is_whole_bp(void *ctx, uint64_t pc)
{
	struct bp *b = bp_at(ctx, pc);

	return b && b->whole;
}

#define DR_OFFSET(i) (offsetof(struct user, u_debugreg) + (i) * sizeof(long))

/* The watchpoints into every thread's debug registers (DR0-3, DR7). */
static void set_watchpoints(struct dbg *d)
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

static int op_read_regs(void *t, int tid, uint8_t *buf, size_t *len)
{
	struct dbg *d = t;
	struct user_regs_struct r;
	pid_t h = host_tid(d, tid);
	uint64_t v[RSP_NUM_REGS];
	size_t off, size;

	if (!h || tracer_get_regs(h, &r) < 0)
		return -ESRCH;
	memset(v, 0, sizeof(v));
	v[RSP_REG_RAX] = r.rax, v[RSP_REG_RBX] = r.rbx, v[RSP_REG_RCX] = r.rcx;
	v[RSP_REG_RDX] = r.rdx, v[RSP_REG_RSI] = r.rsi, v[RSP_REG_RDI] = r.rdi;
	v[RSP_REG_RBP] = r.rbp, v[RSP_REG_RSP] = r.rsp;
	v[RSP_REG_R8] = r.r8, v[RSP_REG_R8 + 1] = r.r9, v[RSP_REG_R8 + 2] = r.r10;
	v[RSP_REG_R8 + 3] = r.r11, v[RSP_REG_R8 + 4] = r.r12, v[RSP_REG_R8 + 5] = r.r13;
	v[RSP_REG_R8 + 6] = r.r14, v[RSP_REG_R15] = r.r15, v[RSP_REG_RIP] = r.rip;
	v[RSP_REG_EFLAGS] = r.eflags, v[RSP_REG_CS] = r.cs, v[RSP_REG_SS] = r.ss;
	v[RSP_REG_DS] = r.ds, v[RSP_REG_ES] = r.es, v[RSP_REG_FS] = r.fs, v[RSP_REG_GS] = r.gs;
	v[RSP_REG_FCTRL] = 0x37f, v[RSP_REG_FTAG] = 0xffff;
	v[RSP_REG_ORIG_RAX] = r.orig_rax, v[RSP_REG_FS_BASE] = r.fs_base;
	v[RSP_REG_GS_BASE] = r.gs_base;
	memset(buf, 0, RSP_REGS_SIZE);
	for (int i = 0; i < RSP_NUM_REGS; i++) {
		if (rsp_reg_offset(i, &off, &size) == 0 && size <= 8)
			memcpy(buf + off, &v[i], size);
	}
	*len = RSP_REGS_SIZE;
	return 0;
}

static int op_read_mem(void *t, uint64_t addr, uint8_t *buf, size_t len)
{
	struct dbg *d = t;

	if (!d->tgid || tracer_read_mem(d->tgid, addr, buf, len) < 0)
		return -EFAULT;
	/* gdb sees its program, not our int3s. */
	for (size_t i = 0; i < d->nbps; i++) {
		if (d->bps[i].inserted && d->bps[i].addr >= addr && d->bps[i].addr < addr + len)
			buf[d->bps[i].addr - addr] = d->bps[i].orig;
	}
	return 0;
}

static int op_threads(void *t, int *tids, int max, int *n)
{
	struct dbg *d = t;

	*n = 0;
	for (size_t i = 0; d->stop && i < d->stop->nthreads && *n < max; i++) {
		if (d->stop->threads[i].tgid == d->tgid)
			tids[(*n)++] = d->stop->threads[i].vtid;
	}
	return 0;
}

static int op_thread_name(void *t, int tid, char *buf, size_t size)
{
	struct dbg *d = t;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", host_tid(d, tid));
	f = fopen(path, "re");
	if (!f || !fgets(buf, (int)size, f)) {
		if (f)
			fclose(f);
		return -ESRCH;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int op_set_breakpoint(void *t, int type, uint64_t addr, int kind, int insert)
{
	struct dbg *d = t;
	struct bp *b;

	if (type == 3)
		return -EOPNOTSUPP; /* a read leaves no trace to compare */
	if (type >= 2) {
		int free_slot = -1;

		for (int i = 0; i < 4; i++) {
			if (d->wps[i].type == type && d->wps[i].addr == addr) {
				if (!insert)
					d->wps[i].type = 0;
				set_watchpoints(d);
				return 0;
			}
			if (!d->wps[i].type && free_slot < 0)
				free_slot = i;
		}
		if (!insert)
			return 0;
		if (free_slot < 0 || (kind != 1 && kind != 2 && kind != 4 && kind != 8) ||
		    addr % (uint64_t)kind)
			return -ENOSPC;
		d->wps[free_slot].addr = addr;
		d->wps[free_slot].len = kind;
		d->wps[free_slot].type = type;
		set_watchpoints(d);
		return 0;
	}
	b = bp_find(d, addr);
	if (insert) {
		if (b && b->removed) {
			/* Put back with only single steps since it was taken out
			 * (gdb steps off a breakpoint that way): none missed. */
			b->whole = b->whole && b->removed_at == d->conts;
			b->removed = 0;
		} else if (!b) {
			if (d->nbps == MAX_BPS)
				return -ENOSPC;
			b = &d->bps[d->nbps++];
			memset(b, 0, sizeof(*b));
			b->addr = addr;
			/* Set before anything ran: none of its hits can be missing. */
			b->whole = d->cur.anchor == AT_START && d->cur.steps == 0;
		}
		insert_bps(d);
		return 0;
	}
	if (b && !b->removed) {
		if (b->inserted)
			tracer_poke_byte(d->tgid, b->addr, &b->orig, NULL);
		b->inserted = 0;
		b->removed = 1;
		b->removed_at = d->conts;
	}
	return 0;
}

static int op_resume(void *t, enum rsp_resume how, int tid, struct rsp_stop *stop)
{
	struct dbg *d = t;

	(void)tid;
	(void)stop;
	d->requested = 1;
	d->how = how;
	d->owe_reply = 1;
	return -EINPROGRESS;
}

static int op_xfer(void *t, const char *object, const char *annex, uint64_t off, uint8_t *buf,
		   size_t len, size_t *got)
{
	struct dbg *d = t;
	char path[64];
	int fd;
	ssize_t n;

	(void)annex;
	*got = 0;
	if (strcmp(object, "exec-file") == 0) {
		char exe[4096];

		snprintf(path, sizeof(path), "/proc/%d/exe", d->tgid);
		n = readlink(path, exe, sizeof(exe));
		if (n < 0)
			return -errno;
		if (off < (uint64_t)n) {
			*got = (size_t)n - off < len ? (size_t)n - off : len;
			memcpy(buf, exe + off, *got);
		}
		return 0;
	}
	if (strcmp(object, "auxv") != 0)
		return -EOPNOTSUPP;
	snprintf(path, sizeof(path), "/proc/%d/auxv", d->tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, buf, len, (off_t)off);
	close(fd);
	if (n < 0)
		return -errno;
	*got = (size_t)n;
	return 0;
}

/* vFile: a path the recording kept is served from its copy. */
static int op_file_open(void *t, const char *path, int flags, int mode)
{
	struct dbg *d = t;

	(void)flags;
	(void)mode;
	for (size_t i = 0; d->rc->binds && d->rc->binds[i] && d->rc->binds[i + 1]; i += 2) {
		if (strcmp(d->rc->binds[i + 1], path) == 0)
			path = d->rc->binds[i];
	}
	{
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		return fd < 0 ? -errno : fd;
	}
}

static int op_file_pread(void *t, int fd, uint8_t *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	(void)t;
	return n < 0 ? -errno : (int)n;
}

static int op_file_close(void *t, int fd)
{
	(void)t;
	return close(fd) < 0 ? -errno : 0;
}

static void describe(const struct pos *p, char *out, size_t size)
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
	}
	if (p->steps) {
		size_t n = strlen(out);

		snprintf(out + n, size - n, ", %" PRIu64 " step%s after", p->steps,
			 p->steps == 1 ? "" : "s");
	}
}

static void seek(struct dbg *d, enum mode mode, const struct pos *target)
{
	d->mode = mode;
	d->target = *target;
	d->anchored = 0;
	d->have_hit = 0;
	d->counted = d->pc_seen = 0;
	d->steps_left = 0;
	d->rerun = 1;
	d->arrive_reason = 0;
	d->have_w = 0;
	d->wsnap_due = mode == SCAN;
	d->wend = d->wbound_hit = 0;
	d->wfound_kind = 0;
}

static int op_monitor(void *t, const char *cmd, char *out, size_t size)
{
	struct dbg *d = t;
	char where[160];
	unsigned long long n;

	if (strcmp(cmd, "when") == 0) {
		describe(&d->cur, where, sizeof(where));
		snprintf(out, size, "%s (%" PRIu64 " events replayed)\n", where, d->frames);
		return 0;
	}
	if (sscanf(cmd, "goto %llu", &n) == 1) {
		struct pos p = { n ? AT_EVENT : AT_START, n, 0, 0, 0, 0, 0 };

		seek(d, TO_POS, &p);
		d->requested = 1;
		d->how = RSP_RESUME_CONT; /* no reply owed: the stop is reported by the next '?' */
		snprintf(out, size, "going to event %llu\n", n);
		return 0;
	}
	snprintf(out, size,
		 "hermit monitor commands:\n  when      where the replay is\n"
		 "  goto N    go to event N (forwards or backwards)\n");
	return 0;
}

static void op_kill(void *t)
{
	struct dbg *d = t;

	d->quit = 1;
}

static int op_restart(void *t, struct rsp_stop *stop)
{
	struct dbg *d = t;
	struct pos start = { AT_START, 0, 0, 0, 0, 0, 0 };

	(void)stop;
	seek(d, TO_POS, &start);
	d->requested = 1;
	d->how = RSP_RESUME_CONT;
	d->owe_reply = 1;
	return -EINPROGRESS;
}

/* ---- serving gdb ---- */

static int send_bytes(void *io, const char *bytes, size_t len)
{
	struct dbg *d = io;
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(d->fd, bytes + done, len - done, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EPIPE;
		done += (size_t)n;
	}
	return 0;
}

/* Read gdb's packets until it resumes or leaves. */
static void serve(struct dbg *d)
{
	uint8_t buf[4096];

	d->requested = 0;
	while (!d->requested && !d->quit) {
		ssize_t n = recv(d->fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || rsp_session_input(d->rsp, buf, (size_t)n) != 0)
			d->quit = 1;
	}
}

static void reply_stop(struct dbg *d, int vtid)
{
	struct rsp_stop st = { .kind = RSP_STOP_SIGNAL, .sig = 5, .tid = vtid };

	if (d->begin)
		st.kind = RSP_STOP_REPLAY_BEGIN;
	else if (d->cur.anchor == AT_EXIT && !d->cur.steps)
		st.kind = RSP_STOP_REPLAY_END;
	st.reason = d->reason;
	/* A breakpoint passed on the way (a seek's silent part) is no reason
	 * for a stop that is not at a hit: a step's stop has none. */
	if (st.reason == RSP_REASON_SWBREAK && !(d->cur.anchor == AT_TRAP && !d->cur.steps))
		st.reason = RSP_REASON_NONE;
	st.watch_addr = d->watch_addr;
	if (d->owe_reply)
		rsp_session_stopped(d->rsp, &st);
	d->owe_reply = 0;
	d->begin = 0;
}

static int same_anchor(const struct pos *a, const struct pos *b)
{
	if (a->anchor == AT_EXIT || b->anchor == AT_EXIT)
		return a->anchor == b->anchor; /* one end per replay */
	return a->anchor == b->anchor && a->frames == b->frames &&
	       (a->anchor != AT_TRAP ||
		(a->index == b->index && a->pc == b->pc && a->nth == b->nth));
}

static int vtid_of(const struct rec_dbg_stop *st)
{
	for (size_t i = 0; i < st->nthreads; i++) {
		if (st->threads[i].tid == st->tid)
			return st->threads[i].vtid;
	}
	return 0;
}

static uint64_t pc_of(pid_t tid)
{
	struct user_regs_struct r;

	return tracer_get_regs(tid, &r) == 0 ? r.rip : 0;
}

/*
 * reverse-continue: when this replay passed every hit of every breakpoint
 * set now, go straight to the last one before the current position (or to
 * the start); else replay from the start to find it (SCAN). 1 when the
 * hits said where.
 */
static int reverse_by_hits(struct dbg *d)
{
	const struct pos *last;

	if (!d->hits.whole || watching(d))
		return 0; /* hits.c keeps no writes */
	for (size_t i = 0; i < d->nbps; i++) {
		if (!d->bps[i].removed && !d->bps[i].whole)
			return 0;
	}
	last = hits_last(&d->hits, d->moves, is_whole_bp, d);
	if (last) {
		struct pos to = *last;

		hm_debug("debugger: the last hit before the current position is known");
		seek(d, TO_POS, &to);
	} else {
		struct pos start = { AT_START, 0, 0, 0, 0, 0, 0 };

		seek(d, TO_POS, &start);
		d->begin = 1;
	}
	return 1;
}

/* A reverse request from position CUR: where to go. */
static void plan_reverse(struct dbg *d)
{
	if (d->how == RSP_RESUME_REVERSE_CONT) {
		if (!reverse_by_hits(d))
			seek(d, SCAN, &d->cur);
		return;
	}
	if (d->cur.steps > 0) {
		struct pos p = d->cur;

		p.steps--;
		seek(d, TO_POS, &p);
		return;
	}
	if (d->cur.anchor == AT_TRAP) {
		/* Count the instructions from the interval's start to here. */
		struct pos from = {
			d->cur.frames ? AT_EVENT : AT_START, d->cur.frames, 0, 0, 0, 0, 0
		};

		seek(d, COUNT, &from);
		d->last_hit = d->cur;
		return;
	}
	/* At an event or the start: nothing before it that we can name. */
	d->begin = 1;
	seek(d, TO_POS, &d->cur);
}

/*
 * Software watchpoints. Where the host gives ptrace's debug registers no
 * effect (this VM's hypervisor ignores DR7), a continue with a watchpoint
 * set goes by single steps and compares the watched bytes after each one
 * (and after each event: a syscall may write them). Slow, but exact.
 */
static int watching(const struct dbg *d)
{
	for (int i = 0; i < 4; i++) {
		if (d->wps[i].type)
			return 1;
	}
	return 0;
}

static void watch_snapshot(struct dbg *d)
{
	for (int i = 0; i < 4; i++) {
		if (d->wps[i].type &&
		    tracer_read_mem(d->tgid, d->wps[i].addr, d->wold[i], (size_t)d->wps[i].len) < 0)
			memset(d->wold[i], 0, sizeof(d->wold[i]));
	}
}

/* Whether a watched value changed since the snapshot; then the stop's
 * reason and address are set and the snapshot is the new value. */
static int watch_changed(struct dbg *d)
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

/* Go on from TID's stop (STEP: one instruction). A breakpoint under it
 * comes out for that instruction; dbg_trap puts it back. */
static enum rec_dbg_go go_on(struct dbg *d, pid_t tid, int step)
{
	struct bp *b = bp_at(d, pc_of(tid));

	if (b && b->inserted) {
		tracer_poke_byte(d->tgid, b->addr, &b->orig, NULL);
		b->inserted = 0;
		d->over = step ? 2 : 1;
		return REC_DBG_STEP;
	}
	return step ? REC_DBG_STEP : REC_DBG_CONT;
}

/* Whether P, an anchor just reached, is a breakpoint or watchpoint hit. */
static int is_hit(const struct pos *p)
{
	return p->anchor == AT_TRAP && !p->steps;
}

static void note_hit(struct dbg *d, const struct pos *p)
{
	d->last_hit = *p;
	d->have_hit = 1;
	d->hit_move = d->moves;
}

/* SCAN, at an event or at the target: did the watched bytes change in the
 * interval since the last event? Then it is the last one seen so far. */
static void scan_watch(struct dbg *d)
{
	if (!watching(d) || d->wsnap_due || !watch_changed(d))
		return;
	d->have_w = 1;
	d->wfrom = (struct pos){ d->frames ? AT_EVENT : AT_START, d->frames, 0, 0, 0, 0, 0 };
	d->wto_move = d->moves;
}

/* A scan reached the current position (ALIVE: stopped there, not past
 * the end): go to the last hit before it, or to the start when there is
 * none; when a watched location changed after that hit, first find the
 * write in its interval (WFIND). */
static void finish_scan(struct dbg *d, int alive)
{
	if (alive)
		scan_watch(d);
	if (d->have_w && !(d->have_hit && d->hit_move > d->wto_move)) {
		struct pos bound = d->target, from = d->wfrom, hit = d->last_hit;
		int had = d->have_hit;

		seek(d, WFIND, &from);
		d->wbound = bound;
		d->wprev_hit = hit;
		d->wprev_have = had;
		return;
	}
	if (d->have_hit) {
		seek(d, TO_POS, &d->last_hit);
	} else {
		struct pos start = { AT_START, 0, 0, 0, 0, 0, 0 };

		seek(d, TO_POS, &start);
		d->begin = 1;
	}
}

/* The stop is the current position now: talk to gdb, decide how to go on. */
static enum rec_dbg_go live_stop(struct dbg *d, const struct rec_dbg_stop *st)
{
	pid_t tid = st->tid;

	d->mode = LIVE;
	insert_bps(d);
	set_watchpoints(d);
	if (d->arrive_reason) {
		/* a reverse-continue that found a write stops before it */
		d->reason = d->arrive_reason;
		d->watch_addr = d->arrive_addr;
		d->arrive_reason = 0;
		watch_snapshot(d);
	}
	reply_stop(d, vtid_of(st));
	d->reason = RSP_REASON_NONE;
	serve(d);
	if (d->quit)
		return REC_DBG_KILL;
	if (d->rerun)
		return REC_DBG_KILL;
	switch (d->how) {
	case RSP_RESUME_REVERSE_CONT:
	case RSP_RESUME_REVERSE_STEP:
		plan_reverse(d);
		return REC_DBG_KILL;
	case RSP_RESUME_STEP:
		return go_on(d, tid, 1);
	case RSP_RESUME_CONT:
		break;
	}
	/* What gdb took out and did not put back for a continue is gone. */
	purge_bps(d);
	d->conts++;
	if (watching(d)) {
		watch_snapshot(d);
		remove_bps(d); /* steps check them by address */
		d->wstep = 1;
		return REC_DBG_STEP;
	}
	return go_on(d, tid, 0);
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
	seek(d, TO_POS, &to);
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
	if (!d->wbound_hit && st->index == b->index && pc_of(st->tid) == b->pc &&
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
static enum rec_dbg_go wfind_step(struct dbg *d, const struct rec_dbg_stop *st)
{
	uint64_t pc = pc_of(st->tid);

	if (d->counted && watch_changed(d)) {
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
	if (!d->wend && d->cur.anchor != AT_EXIT && bp_at(d, pc) && d->hits.n &&
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

static enum rec_dbg_go dbg_stopped(void *ctx, const struct rec_dbg_stop *st)
{
	struct dbg *d = ctx;

	d->stop = st;
	if (!d->tgid)
		d->tgid = st->tgid;
	if (d->ops.pid == 0)
		d->ops.pid = vtid_of(st);
	/* A new replay's process gets the breakpoints as soon as it can, so
	 * that hits are counted as they were (not while stepping to a target). */
	if (d->mode == LIVE || d->mode == SCAN || d->mode == AT_END || !d->anchored) {
		insert_bps(d);
		set_watchpoints(d);
	}
	if (d->wsnap_due && d->tgid) {
		watch_snapshot(d);
		d->wsnap_due = 0;
	}
	hm_debug("debugger: stop of task %d in mode %d (anchor %d, event %" PRIu64
		 ", steps %" PRIu64 ")",
		 st->index, d->mode, d->cur.anchor, d->cur.frames, d->cur.steps);
	if (d->mode == LIVE && d->wstep) {
		/* Watching: an event's syscall may have written them. */
		if (!watch_changed(d))
			return REC_DBG_STEP;
		d->wstep = 0;
	}
	switch (d->mode) {
	case LIVE:
	case AT_END:
		return live_stop(d, st);
	case TO_POS:
		if (!d->anchored && same_anchor(&d->cur, &d->target)) {
			d->anchored = 1;
			d->steps_left = d->target.steps;
			if (d->steps_left)
				remove_bps(d); /* steps count instructions, not traps */
		}
		/* After an event, the steps are the target task's, whoever runs first. */
		if (d->anchored && d->target.anchor != AT_TRAP &&
		    (d->target.steps || d->target.by_task) && st->index != d->target.index)
			return REC_DBG_NEXT;
		if (d->anchored && d->steps_left == 0)
			return live_stop(d, st);
		if (d->anchored) {
			remove_bps(d);
			d->steps_left--;
			return REC_DBG_STEP;
		}
		return go_on(d, st->tid, 0);
	case SCAN:
		if (!d->anchored && same_anchor(&d->cur, &d->target)) {
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
			return go_on(d, st->tid, 0);
		}
		if (d->target.anchor != AT_TRAP && d->target.steps && st->index != d->target.index)
			return REC_DBG_NEXT;
		if (d->counted && d->steps_left && bp_at(d, pc_of(st->tid))) {
			/* A step that reached a breakpoint: a hit, by position. */
			struct pos p = d->target;

			p.steps = d->counted;
			note_hit(d, &p);
		}
		if (d->steps_left) {
			remove_bps(d);
			d->steps_left--;
			d->counted++;
			return REC_DBG_STEP;
		}
		finish_scan(d, 1);
		return REC_DBG_KILL;
	case WFIND:
		if (!d->anchored && same_anchor(&d->cur, &d->target)) {
			/* The interval is the next task's to run (as for TO_POS). */
			d->anchored = 1;
			d->wnext = 1;
			remove_bps(d);
			return REC_DBG_NEXT;
		}
		if (!d->anchored)
			return go_on(d, st->tid, 0);
		if (d->wnext) {
			d->wnext = 0;
			watch_snapshot(d);
		}
		return wfind_step(d, st);
	case COUNT:
		if (!d->anchored && same_anchor(&d->cur, &d->target)) {
			d->anchored = 1;
			remove_bps(d);
		}
		if (!d->anchored)
			return go_on(d, st->tid, 0);
		if (st->index != d->last_hit.index)
			return REC_DBG_NEXT; /* another task's turn: wait for ours */
		if (pc_of(st->tid) == d->last_hit.pc && ++d->pc_seen == d->last_hit.nth) {
			struct pos p = d->target;

			hm_debug("debugger: %" PRIu64 " steps from event %" PRIu64 " to the hit",
				 d->counted, p.frames);
			if (d->counted == 0) {
				d->begin = p.anchor == AT_START;
				p = d->last_hit; /* nothing before it in its interval */
			} else {
				p.steps = d->counted - 1;
				p.index = d->last_hit.index;
			}
			seek(d, TO_POS, &p);
			return REC_DBG_KILL;
		}
		d->counted++;
		return REC_DBG_STEP;
	}
	return REC_DBG_CONT;
}

static void count_reset(struct dbg *d, uint64_t frames)
{
	d->frames = frames;
	d->ncounts = 0;
}

/* Task INDEX is about to run the instruction at PC, where a breakpoint is
 * (hit, or reached by a step): its number among such passes since the
 * last event, the same in every replay. */
static uint64_t count_hit(struct dbg *d, int index, uint64_t pc)
{
	size_t i;

	for (i = 0; i < d->ncounts; i++) {
		if (d->counts[i].index == index && d->counts[i].pc == pc)
			return ++d->counts[i].n;
	}
	if (d->ncounts == MAX_COUNTS)
		return 0;
	d->counts[d->ncounts].index = index;
	d->counts[d->ncounts].pc = pc;
	d->counts[d->ncounts].n = 1;
	return d->counts[d->ncounts++].n;
}

/* A trap the debugger asked for or owns. */
static int dbg_trap(void *ctx, pid_t tid, pid_t tgid, int index, int stepping)
{
	struct dbg *d = ctx;
	struct user_regs_struct r;
	unsigned long dr6;
	struct bp *b;

	if (tgid != d->tgid || tracer_get_regs(tid, &r) < 0)
		return stepping;
	dr6 = (unsigned long)ptrace(PTRACE_PEEKUSER, tid, (void *)DR_OFFSET(6), NULL);
	b = bp_at(d, r.rip - 1);
	if (b && b->inserted && !stepping) {
		r.rip--;
		tracer_set_regs(tid, &r);
		d->reason = RSP_REASON_SWBREAK;
	} else if (dr6 & 0xf) {
		int i = __builtin_ctzl(dr6 & 0xf);

		ptrace(PTRACE_POKEUSER, tid, (void *)DR_OFFSET(6), (void *)0);
		if (!d->wps[i].type)
			return 0;
		d->reason = d->wps[i].type == 2	  ? RSP_REASON_WATCH
			    : d->wps[i].type == 3 ? RSP_REASON_RWATCH
						  : RSP_REASON_AWATCH;
		d->watch_addr = d->wps[i].addr;
	} else if (stepping && d->wstep) {
		struct bp *at = bp_at(d, r.rip);

		if (d->cur.anchor != AT_TRAP)
			d->cur.index = index;
		d->cur.steps++;
		moved(d);
		if (watch_changed(d)) {
			d->wstep = 0;
			return 1;
		}
		if (at) {
			/* A breakpoint reached by a step: its hit. */
			d->wstep = 0;
			d->reason = RSP_REASON_SWBREAK;
			d->cur = (struct pos){
				AT_TRAP, d->frames, index, r.rip, count_hit(d, index, r.rip), 0, 0
			};
			moved(d);
			hit_here(d);
			return 1;
		}
		return 3;
	} else if (stepping) {
		/* A step gdb asked for, a step of a seek, or one off a breakpoint. */
		int over = d->over;

		d->over = 0;
		if (over && !((d->mode == TO_POS || d->mode == COUNT) && d->anchored))
			insert_bps(d);
		if (over == 1)
			return 2; /* off the breakpoint: it goes on */
		if (d->cur.anchor != AT_TRAP)
			d->cur.index = index; /* the steps are this task's */
		d->cur.steps++;
		moved(d);
		if (bp_at(d, r.rip)) {
			/* as a continue would have hit it, and named it */
			struct pos here = d->cur;

			d->cur = (struct pos){
				AT_TRAP, d->frames, index, r.rip, count_hit(d, index, r.rip), 0, 0
			};
			hit_here(d);
			d->cur = here;
		}
		return 1;
	} else {
		return 0;
	}
	/* A hit: a new anchor. */
	d->cur = (struct pos){ AT_TRAP, d->frames, index, r.rip, count_hit(d, index, r.rip), 0, 0 };
	moved(d);
	if (d->reason == RSP_REASON_SWBREAK)
		hit_here(d);
	return 1;
}

static int dbg_at_event(void *ctx, uint64_t frames, int index)
{
	struct dbg *d = ctx;

	(void)index;
	if (d->mode == SCAN && !d->anchored)
		scan_watch(d); /* the interval that ends here */
	if (d->mode == WFIND && d->anchored)
		d->wend = 1; /* stop: the interval is over */
	count_reset(d, frames);
	d->cur = (struct pos){ AT_EVENT, frames, 0, 0, 0, 0, 0 };
	moved(d);
	if (d->mode == LIVE && d->wstep)
		return 1; /* watching: whoever runs next goes by steps too */
	/* Stop at the event a seek or a count starts from. */
	if (d->wend)
		return 1;
	return (d->mode == TO_POS || d->mode == COUNT || d->mode == SCAN || d->mode == WFIND) &&
	       d->target.anchor == AT_EVENT && d->target.frames == frames;
}

static int dbg_at_exit(void *ctx, uint64_t frames)
{
	struct dbg *d = ctx;

	d->cur = (struct pos){ AT_EXIT, frames, 0, 0, 0, 0, 0 };
	moved(d);
	/* Forwards, the end is a stop: the user may go back from it. */
	switch (d->mode) {
	case LIVE:
		return d->how == RSP_RESUME_CONT;
	case TO_POS:
	case SCAN:
		return d->target.anchor == AT_EXIT;
	case WFIND:
		return d->anchored; /* the interval ends with the program */
	default:
		return 0;
	}
}

static int dbg_at_start(void *ctx)
{
	struct dbg *d = ctx;

	count_reset(d, 0);
	d->cur = (struct pos){ AT_START, 0, 0, 0, 0, 0, 0 };
	moved(d);
	d->tgid = 0;
	/* A new process, which gets every breakpoint before it runs. */
	hits_reset(&d->hits);
	purge_bps(d);
	for (size_t i = 0; i < d->nbps; i++)
		d->bps[i].whole = 1;
	return 1;
}

/* ---- the session: replays until gdb leaves ---- */

int replay_debug(struct replay_recording *rc, int listen_fd, struct rec_source *source,
		 int (*reopen)(void *ctx), void *reopen_ctx)
{
	struct dbg d;
	struct rec_debugger hooks = { &d,	    dbg_stopped,  dbg_trap,
				      dbg_at_event, dbg_at_start, dbg_at_exit };
	int runs = 0, status = 0;

	memset(&d, 0, sizeof(d));
	d.rc = rc;
	d.fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (d.fd < 0) {
		hm_error("cannot accept gdb's connection: %s", hm_strerror(errno));
		return HM_EXIT_INTERNAL;
	}
	d.ops = (struct rsp_target_ops){
		.read_regs = op_read_regs,
		.read_mem = op_read_mem,
		.threads = op_threads,
		.thread_name = op_thread_name,
		.set_breakpoint = op_set_breakpoint,
		.resume = op_resume,
		.xfer = op_xfer,
		.file_open = op_file_open,
		.file_pread = op_file_pread,
		.file_close = op_file_close,
		.monitor = op_monitor,
		.kill = op_kill,
		.restart = op_restart,
	};
	d.rsp = rsp_session_new(&d.ops, &d, send_bytes, &d);
	while (!d.quit) {
		struct rec_result res;
		int err;

		if (runs++ && reopen(reopen_ctx) < 0)
			break;
		for (size_t i = 0; i < d.nbps; i++)
			d.bps[i].inserted = 0; /* a new process */
		d.rerun = 0;
		d.stop = NULL;
		rc->opts.debugger = &hooks;
		rc->opts.source = source;
		rc->opts.quiet = runs > 1; /* the output was shown once */
		err = rec_run(&rc->opts, &res);
		d.stop = NULL;
		if (err)
			break;
		if (d.quit || d.rerun)
			continue;
		if (d.mode == SCAN) {
			/* The target was the end: the last hit of the whole replay. */
			finish_scan(&d, 0);
			continue;
		}
		/* The recording is played out: gdb hears how it ended. */
		status = res.exit_status;
		{
			struct rsp_stop st = { .kind = RSP_STOP_EXITED, .status = status & 0xff };

			if (d.owe_reply)
				rsp_session_stopped(d.rsp, &st);
			d.owe_reply = 0;
		}
		d.mode = AT_END;
		while (!d.quit && !d.rerun) {
			serve(&d);
			if (d.quit || d.rerun)
				break;
			if (d.how == RSP_RESUME_REVERSE_CONT || d.how == RSP_RESUME_REVERSE_STEP) {
				/* Back from after the end: to its last stop. */
				struct pos end = { AT_EXIT, 0, 0, 0, 0, 0, 0 };

				purge_bps(&d);
				if (d.how == RSP_RESUME_REVERSE_STEP)
					seek(&d, TO_POS, &end);
				else if (!reverse_by_hits(&d))
					seek(&d, SCAN, &end);
			} else {
				struct rsp_stop st = { .kind = RSP_STOP_EXITED,
						       .status = status & 0xff };

				rsp_session_stopped(d.rsp, &st);
				d.owe_reply = 0;
			}
		}
	}
	rsp_session_free(d.rsp);
	hits_free(&d.hits);
	close(d.fd);
	return status;
}
