/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Moving the replay: continue and reverseContinue (vCont;c, bc), steps by
 * instruction forwards and back (vCont;s, bs), `next` over a call (a
 * breakpoint at its return address, stopped at only in the same thread
 * with the stack back where it was), pause (0x03), and the repl's monitor
 * commands (`when`, `goto N`). A resume answers at once; its stop reply
 * comes to the loop, and dap_stopped() turns it into a stopped event, or
 * goes on where the stop is not the client's (a write to a watched word's
 * unwatched neighbour, a recursive call's return).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dap/internal.h"

#define REG_RIP 16
#define REG_RSP 7

int dap_resume(struct dap *d, enum dap_run how, int tid, const char *reason, const char *desc)
{
	int err = 0;

	dap_bp_sync(d);
	dap_bp_snapshot(d);
	dap_forget_stop(d);
	switch (how) {
	case DAP_RUN_CONT:
	case DAP_RUN_OVER:
		err = dap_rsp_send(&d->rsp, "vCont;c", 7);
		break;
	case DAP_RUN_REVERSE:
	case DAP_RUN_BSTEP:
		/* bc and bs run the thread Hc names */
		if (tid > 0) {
			err = dap_rsp_request(&d->rsp, "Hc%x", (unsigned)tid);
			if (!err && strcmp((char *)d->rsp.pkt.data, "OK") != 0)
				err = -ESRCH;
		}
		if (!err)
			err = dap_rsp_send(&d->rsp, how == DAP_RUN_REVERSE ? "bc" : "bs", 2);
		break;
	case DAP_RUN_STEP:
		err = dap_rsp_sendf(&d->rsp, "vCont;s:%x", (unsigned)tid);
		break;
	default:
		err = -EINVAL;
	}
	if (err)
		return err;
	d->run = how;
	d->run_tid = tid;
	d->run_reason = reason;
	d->run_desc = desc;
	return 0;
}

static void resumed(struct dap *d, struct dap_req *r, int err)
{
	cJSON *b;

	if (err) {
		dap_fail(d, r, "%s: %s", r->command, hm_strerror(err));
		return;
	}
	b = cJSON_CreateObject();
	cJSON_AddBoolToObject(b, "allThreadsContinued", 1);
	dap_respond(d, r, b);
}

/* The threadId argument, which must be a thread of the replay: 0, or -1
 * (answered). */
static int thread_arg(struct dap *d, struct dap_req *r, int required, int *tid)
{
	int64_t v = 0;
	int got = dap_arg_num(d, r, "threadId", required, &v);

	if (got < 0)
		return -1;
	*tid = got ? d->tid : (int)v;
	for (size_t i = 0; i < d->nthreads; i++) {
		if (d->tids[i] == *tid)
			return 0;
	}
	/* (all-stop: a continue runs them all, whichever the client named) */
	if (!required) {
		*tid = d->tid;
		return 0;
	}
	dap_fail(d, r, "%s: no thread %" PRId64 " in the replay now", r->command, v);
	return -1;
}

/* Steps go by instruction until dwarf/ gives lines. */
static int by_instruction(struct dap *d, struct dap_req *r)
{
	const char *g = "statement";

	if (dap_arg_str(d, r, "granularity", 0, &g) < 0)
		return 0;
	if (strcmp(g, "instruction") == 0)
		return 1;
	dap_fail(d, r,
		 "%s: stepping by %s needs line tables (DWARF), which hermit-dap does not read "
		 "yet; step by instruction (the Disassembly view)",
		 r->command, g);
	return 0;
}

void dap_req_continue(struct dap *d, struct dap_req *r)
{
	int tid;

	if (thread_arg(d, r, 0, &tid) < 0)
		return;
	resumed(d, r, dap_resume(d, DAP_RUN_CONT, tid, "pause", NULL));
}

void dap_req_reverse_continue(struct dap *d, struct dap_req *r)
{
	int tid;

	if (thread_arg(d, r, 0, &tid) < 0)
		return;
	resumed(d, r, dap_resume(d, DAP_RUN_REVERSE, tid, "pause", NULL));
}

void dap_req_step_in(struct dap *d, struct dap_req *r)
{
	int tid;

	if (thread_arg(d, r, 1, &tid) < 0 || !by_instruction(d, r))
		return;
	dap_respond(d, r, NULL);
	if (dap_resume(d, DAP_RUN_STEP, tid, "step", NULL) < 0)
		dap_lost(d, "the replay stopped answering");
}

void dap_req_step_back(struct dap *d, struct dap_req *r)
{
	int tid;

	if (thread_arg(d, r, 1, &tid) < 0 || !by_instruction(d, r))
		return;
	dap_respond(d, r, NULL);
	if (dap_resume(d, DAP_RUN_BSTEP, tid, "step", NULL) < 0)
		dap_lost(d, "the replay stopped answering");
}

void dap_req_next(struct dap *d, struct dap_req *r)
{
	uint8_t insn[16];
	uint64_t pc;
	int tid, n = 0, err;

	if (thread_arg(d, r, 1, &tid) < 0 || !by_instruction(d, r))
		return;
	err = dap_read_regs(d, tid);
	if (err) {
		dap_fail(d, r, "next: cannot read the registers of thread %d: %s", tid,
			 hm_strerror(err));
		return;
	}
	pc = dap_reg(d, REG_RIP);
	for (size_t len = sizeof(insn); len && !n; len /= 2) {
		if (dap_read_mem(d, pc, insn, len) == 0) {
			n = dap_disasm_is_call(insn, len);
			break;
		}
	}
	dap_respond(d, r, NULL);
	if (!n) {
		err = dap_resume(d, DAP_RUN_STEP, tid, "step", NULL);
	} else {
		/* over the call: to its return address, with the stack as now */
		d->over_addr = pc + (uint64_t)n;
		d->over_sp = dap_reg(d, REG_RSP);
		d->over_temp = 1;
		for (size_t i = 0; i < d->nibps; i++)
			d->over_temp = d->over_temp && d->ibps[i].addr != d->over_addr;
		err = dap_resume(d, DAP_RUN_OVER, tid, "step", NULL);
	}
	if (err < 0)
		dap_lost(d, "the replay stopped answering");
}

void dap_req_step_out(struct dap *d, struct dap_req *r)
{
	dap_fail(d, r,
		 "stepOut: needs the caller's frame (unwinding), which hermit-dap does not have "
		 "yet: set an instruction breakpoint at the return address");
}

void dap_req_pause(struct dap *d, struct dap_req *r)
{
	if (d->run != DAP_RUN_NONE) {
		int err = dap_rsp_interrupt(&d->rsp);

		if (err) {
			dap_fail(d, r, "pause: %s", hm_strerror(err));
			return;
		}
		d->run_reason = "pause";
		d->run_desc = NULL;
	}
	dap_respond(d, r, NULL);
}

/* "monitor CMD" through qRcmd: 0 with its text in d->rsp.console (NUL
 * after it), or -errno (-EINVAL: the stub said E). */
static int monitor(struct dap *d, const char *cmd)
{
	struct hm_buf hex;
	int err;

	hm_buf_init(&hex);
	hm_buf_add(&hex, "qRcmd,", 6);
	for (const unsigned char *p = (const unsigned char *)cmd; *p; p++)
		hm_buf_addf(&hex, "%02x", *p);
	hm_buf_reset(&d->rsp.console);
	err = dap_rsp_send(&d->rsp, (char *)hex.data, hex.len);
	hm_buf_free(&hex);
	if (!err)
		err = dap_rsp_wait(&d->rsp);
	hm_buf_add(&d->rsp.console, "", 1);
	d->rsp.console.len--;
	if (!err && strcmp((char *)d->rsp.pkt.data, "OK") != 0)
		err = d->rsp.pkt.data[0] == 0 ? -ENOSYS : -EINVAL;
	return err;
}

void dap_req_evaluate(struct dap *d, struct dap_req *r)
{
	const char *expr, *context = "repl", *cmd;
	char *text, *end;
	cJSON *b;
	int err, go;

	if (dap_arg_str(d, r, "expression", 1, &expr) < 0 ||
	    dap_arg_str(d, r, "context", 0, &context) < 0)
		return;
	while (*expr == ' ')
		expr++;
	/* In the repl a line that is one of hermit's commands is that
	 * command ('(when)' is the variable); anything else, and every
	 * watch and hover, is a C expression (docs/dap.md). */
	cmd = strncmp(expr, "monitor ", 8) == 0 ? expr + 8 : expr;
	go = strncmp(cmd, "goto", 4) == 0 && (cmd[4] == ' ' || !cmd[4]);
	if (strcmp(context, "repl") != 0 ||
	    !(cmd != expr || go || !strcmp(cmd, "when") || !strcmp(cmd, "checkpoints"))) {
		dap_eval_request(d, r, expr, context);
		return;
	}
	err = monitor(d, cmd);
	text = xstrdup((char *)d->rsp.console.data);
	for (end = text + strlen(text); end > text && end[-1] == '\n';)
		*--end = 0;
	if (err) {
		dap_fail(d, r, "%s", *text ? text : hm_strerror(err));
		free(text);
		return;
	}
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "result", text);
	cJSON_AddNumberToObject(b, "variablesReference", 0);
	free(text);
	dap_respond(d, r, b);
	if (go) {
		/* The seek runs now; '?' is answered when it is there. */
		dap_forget_stop(d);
		if (dap_rsp_send(&d->rsp, "?", 1) < 0) {
			dap_lost(d, "the replay stopped answering");
			return;
		}
		d->run = DAP_RUN_QUERY;
		d->run_reason = "goto";
		d->run_desc = "at the event 'goto' named";
	}
}

/* The stopped event. */
static void report(struct dap *d, const char *reason, const char *desc, const int *ids, size_t n)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "reason", reason);
	if (desc) {
		cJSON_AddStringToObject(b, "description", desc);
		if (!strcmp(reason, "exception"))
			cJSON_AddStringToObject(b, "text", desc);
	}
	cJSON_AddNumberToObject(b, "threadId", d->tid);
	cJSON_AddBoolToObject(b, "allThreadsStopped", 1);
	if (n)
		cJSON_AddItemToObject(b, "hitBreakpointIds", cJSON_CreateIntArray(ids, (int)n));
	dap_event(d, "stopped", b);
}

void dap_stopped(struct dap *d, const struct dap_stop *st)
{
	enum dap_run how = d->run;
	const char *reason = d->run_reason ? d->run_reason : "pause", *desc = d->run_desc;
	struct dap_stop plain;
	char text[256];
	int ids[64];
	size_t n = 0;

	d->run = DAP_RUN_NONE;
	dap_drain_output(d);
	if (st->kind != DAP_STOP_SIGNAL) {
		cJSON *b = cJSON_CreateObject();

		cJSON_AddNumberToObject(b, "exitCode",
					st->kind == DAP_STOP_EXITED ? st->status : 128 + st->sig);
		dap_event(d, "exited", b);
		d->ended = 1;
		dap_rsp_close(&d->rsp);
		dap_rsp_init(&d->rsp);
		dap_event(d, "terminated", NULL);
		return;
	}
	if (st->tid > 0)
		d->tid = st->tid;
	dap_forget_stop(d);
	dap_update_threads(d, 1);
	if (how == DAP_RUN_OVER) {
		int there = st->why == DAP_WHY_SWBREAK && dap_read_regs(d, d->tid) == 0 &&
			    dap_reg(d, REG_RIP) == d->over_addr;

		if (there && (d->tid != d->run_tid || dap_reg(d, REG_RSP) <= d->over_sp - 8)) {
			/* another thread, or a deeper call, passing by */
			if (dap_resume(d, DAP_RUN_OVER, d->run_tid, reason, desc) < 0)
				dap_lost(d, "the replay stopped answering");
			return;
		}
		d->over_temp = 0; /* (dap_bp_sync takes it out) */
		d->over_addr = 0;
		if (there) { /* a step, not a breakpoint */
			plain = (struct dap_stop){ .kind = DAP_STOP_SIGNAL,
						   .sig = 5,
						   .tid = d->tid };
			st = &plain;
		}
	}
	dap_bp_sync(d);
	if (st->why == DAP_WHY_BEGIN) {
		reason = "start of recording";
		desc = "the start of the recording: nothing ran before";
	} else if (st->why == DAP_WHY_END) {
		reason = "end of recording";
		desc = "the end of the recording: nothing runs after";
	} else if ((st->why == DAP_WHY_SWBREAK || st->why == DAP_WHY_HWBREAK) &&
		   how != DAP_RUN_STEP && how != DAP_RUN_BSTEP) {
		/* (a step that ends on a breakpoint is a step) */
		int func = 0, here = 0;

		if (dap_read_regs(d, d->tid) == 0) {
			uint64_t pc = dap_reg(d, REG_RIP);

			for (size_t i = 0; i < d->nibps && n < 64; i++) {
				if (d->ibps[i].addr != pc || !d->ibps[i].verified)
					continue;
				here = 1;
				/* (each counts its hit, whichever stops) */
				if (!dap_bp_should_stop(d, &d->ibps[i].cond))
					continue;
				ids[n++] = d->ibps[i].id;
				func = d->ibps[i].func;
			}
		}
		if (n) {
			reason = func ? "function breakpoint" : "instruction breakpoint";
		} else if (here && how != DAP_RUN_QUERY) {
			/* the client's breakpoints, whose conditions do not
			 * hold: on, the way the run was going */
			if (dap_resume(d, how, d->run_tid, d->run_reason, d->run_desc) < 0)
				dap_lost(d, "the replay stopped answering");
			return;
		}
	} else if (st->why == DAP_WHY_WATCH || st->why == DAP_WHY_RWATCH ||
		   st->why == DAP_WHY_AWATCH) {
		n = dap_bp_watch_hits(d, st, how == DAP_RUN_REVERSE || how == DAP_RUN_BSTEP, ids,
				      64, text, sizeof(text));
		if (n) {
			reason = "data breakpoint";
			desc = text;
		} else if (how == DAP_RUN_CONT || how == DAP_RUN_REVERSE) {
			/* a watched word's other bytes: not the client's */
			if (dap_resume(d, how, d->run_tid, d->run_reason, d->run_desc) < 0)
				dap_lost(d, "the replay stopped answering");
			return;
		}
	} else if (st->sig == 2) {
		reason = "pause";
		desc = NULL;
	} else if (st->sig != 5 && st->sig != 0) {
		snprintf(text, sizeof(text), "signal %d", st->sig);
		reason = "exception";
		desc = text;
	}
	dap_bp_snapshot(d);
	report(d, reason, desc, ids, n);
}
