/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Step plans: every way the adapter moves the replay (continue, steps by
 * instruction or by line forwards and backwards, stepOut, reverseStepOut,
 * goto) is a plan in d->plan, run as legs that the stub can do (a single
 * step, vCont;s or bs; a continue, vCont;c or bc, with temporary
 * breakpoints, each with a stack-pointer rule that tells the frame we
 * want from a deeper or another thread's pass). dap_stopped() (run.c)
 * hands each stop reply here: a stop the client must see (a breakpoint
 * of theirs, a data breakpoint, the start or end of the recording, a
 * signal, a pause) ends the plan; otherwise decide() looks at where the
 * leg ended and either ends the plan or picks the next leg. gdb's infrun
 * is the model (step ranges, step-resume breakpoints, stepping back over
 * calls); docs/dap.md says what each step does.
 *
 * Lines by source.h: a line's range is the run of rows with its line
 * around the pc (dap_source_line_range), a new line starts at an is_stmt
 * row's first address. Frames by the unwinder (frames.h): a frame is
 * known by its CFA, the stack pointer in its caller before the call, so
 * a pc is in a frame deeper than that one while sp < CFA - 8 and back in
 * the caller once sp >= CFA.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dap/internal.h"

#define REG_RIP 16
#define REG_RSP 7

enum phase {
	PH_RUN,	      /* a plan of one leg, or of one temporary breakpoint */
	PH_LINE,      /* stepping through the line [lo, hi) */
	PH_OVER,      /* forwards over a call: to its return address */
	PH_INTO,      /* stepIn: the call was stepped into */
	PH_ENTRY,     /* stepIn: to the callee's first line, after its prologue */
	PH_BACK_CALL, /* backwards over a call: to the callee's first instruction */
	PH_UNCALL,    /* from there, back to the call */
};

enum sp_rule {
	SP_ANY,
	SP_EQ, /* sp == want_sp */
	SP_GT, /* sp > want_sp */
};

static int regs_of(struct dap *d, int tid, uint64_t *pc, uint64_t *sp)
{
	int err = dap_read_regs(d, tid);

	if (err)
		return err;
	*pc = dap_reg(d, REG_RIP);
	*sp = dap_reg(d, REG_RSP);
	return 0;
}

/* The instruction at PC: whether it is a call (its length into *CALL)
 * or a return. */
static void insn_at(struct dap *d, uint64_t pc, size_t *call, int *ret)
{
	uint8_t b[16];

	*call = 0;
	*ret = 0;
	for (size_t len = sizeof(b); len; len /= 2) {
		if (dap_read_mem(d, pc, b, len) == 0) {
			*call = (size_t)dap_disasm_is_call(b, len);
			*ret = b[0] == 0xc3 || b[0] == 0xc2 ||
			       (len > 1 && b[0] == 0xf3 && b[1] == 0xc3);
			return;
		}
	}
}

/* The CFA of thread TID's innermost frame, and the return address in its
 * caller (0 for none). 0 or -errno. */
static int frame_of(struct dap *d, int tid, uint64_t *cfa, uint64_t *ret)
{
	struct dap_stack_frame f[2];
	struct dap_target t;
	int n;

	if (!d->src)
		return -ENOENT;
	dap_target_of(d, tid, &t);
	n = dap_unwind(dap_source_modules(d->src), &t, f, 2);
	if (n < 1 || !f[0].cfa)
		return n < 0 ? n : -ENOENT;
	*cfa = f[0].cfa;
	*ret = n > 1 && !f[1].sigreturn ? f[1].pc : 0;
	return 0;
}

/* The line holding PC becomes the plan's: 0, or -ENOENT (no lines). */
static int set_line(struct dap *d, struct dap_plan *p, uint64_t pc)
{
	struct dap_source_loc loc;

	if (!d->src || dap_source_line(d->src, pc, &loc) < 0 ||
	    dap_source_line_range(d->src, pc, &p->lo, &p->hi) < 0)
		return -ENOENT;
	p->file = loc.path;
	p->line = (unsigned)loc.line;
	return 0;
}

/* Whether PC starts a line other than the plan's (an is_stmt row's first
 * address): 1, 0, or -ENOENT when PC has no line. */
static int new_line_at(struct dap *d, const struct dap_plan *p, uint64_t pc)
{
	uint64_t bias = 0;
	struct dw_syms *syms = d->src ? dap_source_syms_at(d->src, pc, &bias) : NULL;
	struct dw_line l;

	if (!syms || dw_line_at(syms, pc - bias, &l) < 0 || !l.line)
		return -ENOENT;
	return l.addr + bias == pc && l.is_stmt &&
	       (l.line != p->line || !p->file || strcmp(l.file, p->file) != 0);
}

/* The first instruction of the function holding PC, or 0. */
static uint64_t func_start(struct dap *d, uint64_t pc)
{
	const char *name;
	uint64_t start;

	if (!d->src || dap_source_function(d->src, pc, &name, &start) < 0)
		return 0;
	return start;
}

/* Where stepIn stops in the function with lines whose first instruction
 * is PC (after its prologue), or 0 when it has no lines. */
static uint64_t func_entry(struct dap *d, uint64_t pc)
{
	uint64_t bias = 0;
	struct dw_syms *syms = d->src ? dap_source_syms_at(d->src, pc, &bias) : NULL;
	struct dap_source_loc loc;
	struct dw_func f;

	if (!syms || dap_source_line(d->src, pc, &loc) < 0 || dw_func_at(syms, pc - bias, &f) < 0)
		return 0;
	return f.entry + bias;
}

static void temp(struct dap_plan *p, uint64_t addr, int rule, uint64_t sp)
{
	p->ntemps = 1;
	p->temps[0] = addr;
	p->sp_rule = rule;
	p->want_sp = sp;
}

/* The next leg is HOW from PC, SP. */
static int leg(struct dap_plan *p, enum dap_run how, uint64_t pc, uint64_t sp)
{
	if (how == DAP_RUN_STEP || how == DAP_RUN_BSTEP)
		p->ntemps = 0;
	p->leg = how;
	p->pc = pc;
	p->sp = sp;
	return 1;
}

/* next and stepIn from PC, SP (FIRST: where the plan starts). 1: a leg
 * is set; 0: done. */
static int forward(struct dap *d, struct dap_plan *p, uint64_t pc, uint64_t sp, int first)
{
	size_t call;
	int ret, at;

	if (!first) {
		switch (p->phase) {
		case PH_ENTRY:
			return 0;
		case PH_INTO: {
			uint64_t entry = func_entry(d, pc);

			if (entry) {
				if (entry == pc)
					return 0;
				temp(p, entry, SP_ANY, 0);
				p->phase = PH_ENTRY;
				return leg(p, DAP_RUN_CONT, pc, sp);
			}
			/* no lines (libc, a PLT stub): over it, to the return */
			temp(p, p->ret_addr, SP_GT, p->call_sp - 8);
			p->phase = PH_OVER;
			return leg(p, DAP_RUN_CONT, pc, sp);
		}
		case PH_OVER:
			p->ntemps = 0;
			p->phase = PH_LINE;
			break;
		default:
			break;
		}
		if (p->cfa ? sp >= p->cfa : p->was_ret) {
			/* returned into the caller, mid-line: on to the start
			 * of a line there, as gdb's step does */
			uint64_t ra;

			if (set_line(d, p, pc) < 0)
				return 0;
			if (frame_of(d, p->tid, &p->cfa, &ra) < 0)
				p->cfa = 0;
			if (new_line_at(d, p, pc) == 1)
				return 0;
		} else if (pc < p->lo || pc >= p->hi) {
			at = new_line_at(d, p, pc);
			if (at != 0)
				return 0; /* a new line, or code without lines */
			/* the middle of a line, or another range of this one */
			set_line(d, p, pc);
		}
	}
	insn_at(d, pc, &call, &ret);
	p->was_ret = ret;
	if (call && p->kind == DAP_PLAN_IN) {
		p->phase = PH_INTO;
		p->ret_addr = pc + call;
		p->call_sp = sp;
		return leg(p, DAP_RUN_STEP, pc, sp);
	}
	if (call) {
		/* back at the return address with the stack as now: a deeper
		 * recursion's return passes by with sp lower */
		temp(p, pc + call, SP_GT, sp - 8);
		p->phase = PH_OVER;
		return leg(p, DAP_RUN_CONT, pc, sp);
	}
	p->phase = PH_LINE;
	return leg(p, DAP_RUN_STEP, pc, sp);
}

/* stepBack and reverseStepOut. */
static int backward(struct dap *d, struct dap_plan *p, uint64_t pc, uint64_t sp, int first)
{
	uint64_t ra, word;

	if (first) {
		if (p->kind == DAP_PLAN_BACK) {
			p->phase = PH_LINE;
			return leg(p, DAP_RUN_BSTEP, pc, sp);
		}
		/* reverseStepOut: to this frame's entry, then to the call */
		p->call_sp = p->cfa - 8;
		if (pc == p->func) {
			p->phase = PH_UNCALL;
			return leg(p, DAP_RUN_BSTEP, pc, sp);
		}
		temp(p, p->func, SP_EQ, p->cfa - 8);
		p->phase = PH_BACK_CALL;
		return leg(p, DAP_RUN_REVERSE, pc, sp);
	}
	switch (p->phase) {
	case PH_BACK_CALL:
		/* at the callee's first instruction, in the instance called */
		p->phase = PH_UNCALL;
		return leg(p, DAP_RUN_BSTEP, pc, sp);
	case PH_UNCALL:
		/* (a PLT stub's jump lies between the call and the callee) */
		if (sp <= p->call_sp)
			return leg(p, DAP_RUN_BSTEP, pc, sp);
		if (p->kind == DAP_PLAN_BACK_OUT)
			return 0; /* at the call, as reverse-finish stops */
		p->phase = PH_LINE;
		break;
	default:
		/* Stepped back from a call's return address onto the callee's
		 * return: over the call, by the callee's first instruction
		 * with this very stack (its instance; recursion passes by). */
		if (sp < p->sp && dap_read_mem(d, sp, (uint8_t *)&word, 8) == 0 && word == p->pc) {
			uint64_t entry = func_start(d, pc);

			p->call_sp = sp;
			if (entry && entry != pc) {
				temp(p, entry, SP_EQ, sp);
				p->phase = PH_BACK_CALL;
				return leg(p, DAP_RUN_REVERSE, pc, sp);
			}
			/* a function without a symbol: back through it */
			p->phase = PH_UNCALL;
			return leg(p, DAP_RUN_BSTEP, pc, sp);
		}
		break;
	}
	if (p->cfa && sp >= p->cfa) {
		/* back out of the function's first instruction into its
		 * caller, mid-line: on to that line's start */
		if (set_line(d, p, pc) < 0)
			return 0;
		p->func = func_start(d, pc);
		if (frame_of(d, p->tid, &p->cfa, &ra) < 0)
			p->cfa = 0;
	} else if (pc < p->lo || pc >= p->hi) {
		if (set_line(d, p, pc) < 0)
			return 0; /* code without lines */
	}
	/* At the start of the line: done, unless that is the function's
	 * first instruction, from which gdb goes on to the call. */
	if (pc == p->lo && pc != p->func)
		return 0;
	return leg(p, DAP_RUN_BSTEP, pc, sp);
}

/* What comes after the leg that ended at the thread's PC, SP: 1 with the
 * next leg set, 0 when the plan is done. */
static int decide(struct dap *d, uint64_t pc, uint64_t sp, int first)
{
	struct dap_plan *p = &d->plan;
	size_t call;
	int ret;

	switch (p->kind) {
	case DAP_PLAN_CONT:
	case DAP_PLAN_OUT:
		return first ? leg(p, DAP_RUN_CONT, pc, sp) : 0;
	case DAP_PLAN_RCONT:
		return first ? leg(p, DAP_RUN_REVERSE, pc, sp) : 0;
	case DAP_PLAN_GOTO:
		return first ? leg(p, p->reverse ? DAP_RUN_REVERSE : DAP_RUN_CONT, pc, sp) : 0;
	case DAP_PLAN_STEPI:
		return first ? leg(p, DAP_RUN_STEP, pc, sp) : 0;
	case DAP_PLAN_BSTEPI:
		return first ? leg(p, DAP_RUN_BSTEP, pc, sp) : 0;
	case DAP_PLAN_NEXTI:
		if (!first)
			return 0;
		insn_at(d, pc, &call, &ret);
		if (!call)
			return leg(p, DAP_RUN_STEP, pc, sp);
		temp(p, pc + call, SP_GT, sp - 8);
		return leg(p, DAP_RUN_CONT, pc, sp);
	case DAP_PLAN_NEXT:
	case DAP_PLAN_IN:
		return forward(d, p, pc, sp, first);
	case DAP_PLAN_BACK:
	case DAP_PLAN_BACK_OUT:
		return backward(d, p, pc, sp, first);
	default:
		return 0;
	}
}

/* Run the plan's leg. */
static int go(struct dap *d)
{
	struct dap_plan *p = &d->plan;

	p->legs++;
	hm_trace("dap: plan %d leg %d from 0x%" PRIx64 " (%zu temporary breakpoints)", p->kind,
		 p->leg, p->pc, p->ntemps);
	return dap_resume(d, p->leg, p->tid, p->reason, p->desc);
}

static void drop(struct dap *d)
{
	d->plan.kind = DAP_PLAN_NONE;
	d->plan.ntemps = 0;
}

int dap_plan_start(struct dap *d, char *why, size_t size)
{
	struct dap_plan *p = &d->plan;
	uint64_t pc, sp, ra = 0;
	int err = regs_of(d, p->tid, &pc, &sp);

	if (err) {
		snprintf(why, size, "cannot read the registers of thread %d: %s", p->tid,
			 hm_strerror(err));
		drop(d);
		return err;
	}
	if (!p->reason)
		p->reason = "step";
	p->phase = PH_RUN;
	p->legs = 0;
	p->paused = 0;
	if (p->kind != DAP_PLAN_GOTO)
		p->ntemps = 0;
	/* the libraries loaded now, for lines and frames */
	if (d->src && p->kind >= DAP_PLAN_NEXT && p->kind != DAP_PLAN_GOTO)
		dap_refresh_modules(d, p->tid);
	switch (p->kind) {
	case DAP_PLAN_NEXT:
	case DAP_PLAN_IN:
	case DAP_PLAN_BACK:
		if (set_line(d, p, pc) < 0) {
			/* No lines here. Forwards, as gdb: on until the
			 * function returns (then to a line start in the
			 * caller); backwards, or with no caller, by
			 * instruction. */
			if (p->kind != DAP_PLAN_BACK && frame_of(d, p->tid, &p->cfa, &ra) == 0 &&
			    ra) {
				p->lo = p->hi = 0;
				p->file = NULL;
				temp(p, ra, SP_GT, p->cfa - 8);
				p->phase = PH_OVER;
				p->leg = DAP_RUN_CONT;
				p->pc = pc;
				p->sp = sp;
				goto run;
			}
			p->kind = p->kind == DAP_PLAN_NEXT ? DAP_PLAN_NEXTI
				  : p->kind == DAP_PLAN_IN ? DAP_PLAN_STEPI
							   : DAP_PLAN_BSTEPI;
			break;
		}
		p->func = func_start(d, pc);
		if (frame_of(d, p->tid, &p->cfa, &ra) < 0)
			p->cfa = 0;
		break;
	case DAP_PLAN_OUT:
		if (frame_of(d, p->tid, &p->cfa, &ra) < 0 || !ra) {
			snprintf(why, size, "the stack has no caller's frame here to step out to");
			drop(d);
			return -ENOENT;
		}
		temp(p, ra, SP_GT, p->cfa - 8);
		break;
	case DAP_PLAN_BACK_OUT:
		p->func = func_start(d, pc);
		if (!p->func || frame_of(d, p->tid, &p->cfa, &ra) < 0) {
			snprintf(why, size, "no function or frame known here to step back out of");
			drop(d);
			return -ENOENT;
		}
		break;
	default:
		break;
	}
	decide(d, pc, sp, 1);
run:
	err = go(d);
	if (err) {
		snprintf(why, size, "%s", hm_strerror(err));
		drop(d);
	}
	return err;
}

/* Whether a continue leg that stopped at PC, SP in thread TID is at one
 * of the plan's temporary breakpoints, in the frame it wants. */
static int at_temp(const struct dap_plan *p, int tid, uint64_t pc, uint64_t sp)
{
	int there = 0;

	for (size_t i = 0; i < p->ntemps; i++)
		there = there || p->temps[i] == pc;
	if (!there)
		return 0;
	if (p->kind == DAP_PLAN_GOTO)
		return 1; /* (any thread's pass) */
	if (tid != p->tid)
		return 0;
	return p->sp_rule == SP_ANY || (p->sp_rule == SP_EQ && sp == p->want_sp) ||
	       (p->sp_rule == SP_GT && sp > p->want_sp);
}

int dap_plan_stopped(struct dap *d, const struct dap_stop *st, const char **reason,
		     const char **desc, char *text, size_t size, int *ids, size_t *n)
{
	struct dap_plan *p = &d->plan;
	int cont = p->leg == DAP_RUN_CONT || p->leg == DAP_RUN_REVERSE;
	int reverse = p->leg == DAP_RUN_REVERSE || p->leg == DAP_RUN_BSTEP;
	int tid = st->tid > 0 ? st->tid : p->tid, neighbour = 0, err;
	uint64_t pc = 0, sp = 0;
	const char *kind;

	*n = 0;
	*reason = p->reason;
	*desc = p->desc;
	if (st->why == DAP_WHY_BEGIN) {
		*reason = "start of recording";
		*desc = "the start of the recording: nothing ran before";
		goto done;
	}
	if (st->why == DAP_WHY_END) {
		*reason = "end of recording";
		*desc = "the end of the recording: nothing runs after";
		goto done;
	}
	if (p->paused || st->sig == 2) {
		*reason = "pause";
		*desc = NULL;
		goto done;
	}
	if (st->sig != 5 && st->sig != 0) {
		snprintf(text, size, "signal %d", st->sig);
		*reason = "exception";
		*desc = text;
		goto done;
	}
	if (st->why == DAP_WHY_WATCH || st->why == DAP_WHY_RWATCH || st->why == DAP_WHY_AWATCH) {
		*n = dap_bp_watch_hits(d, st, reverse, ids, 64, text, size);
		if (*n) {
			*reason = "data breakpoint";
			*desc = text;
			goto done;
		}
		neighbour = 1; /* none of the client's takes it (a condition said no) */
	}
	err = regs_of(d, tid, &pc, &sp);
	if (err) {
		snprintf(text, size, "cannot read the registers of thread %d: %s", tid,
			 hm_strerror(err));
		*reason = "exception";
		*desc = text;
		goto done;
	}
	if (cont && p->kind == DAP_PLAN_GOTO && at_temp(p, tid, pc, sp))
		goto done; /* (the line's own breakpoint there is the goto's) */
	/* (a step by instruction that lands on a breakpoint is a step, as
	 * before; a step by line that does, stops there for it) */
	if (!neighbour && (cont ? st->why == DAP_WHY_SWBREAK || st->why == DAP_WHY_HWBREAK
				: p->kind >= DAP_PLAN_NEXT && dap_bp_user_at(d, pc))) {
		*n = dap_bp_hits_at(d, pc, tid, ids, 64, &kind);
		if (*n) {
			*reason = kind;
			*desc = NULL;
			goto done;
		}
	}
	if (cont && !at_temp(p, tid, pc, sp)) {
		/* another thread's pass, a deeper frame's, a watch or a
		 * condition that said no: on */
		if (p->ntemps || neighbour || dap_bp_user_at(d, pc)) {
			err = go(d);
			if (err)
				goto lost;
			return 1;
		}
		goto done;
	}
	if (tid != p->tid)
		goto done; /* (a step reported in another thread) */
	if (decide(d, pc, sp, 0)) {
		err = go(d);
		if (err)
			goto lost;
		return 1;
	}
done:
	hm_debug("dap: plan %d ended after %lu legs: %s", p->kind, p->legs, *reason);
	drop(d);
	return 0;
lost:
	drop(d);
	dap_lost(d, "the replay stopped answering");
	return 1;
}
