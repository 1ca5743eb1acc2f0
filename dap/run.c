/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Moving the replay: the requests that resume it (continue,
 * reverseContinue, next, stepIn, stepOut, stepBack, reverseStepOut,
 * goto) each set up a step plan (step.c) and start it; pause (0x03);
 * gotoTargets; the repl's monitor commands (`when`, `goto N`). A resume
 * answers at once; its stop reply comes to the loop, and dap_stopped()
 * gives it to the plan, which goes on (another leg) or ends, and then
 * it becomes a stopped event.
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
	d->at_end = 0;
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

/* The granularity argument: 0 by line (statement, line, the default),
 * 1 by instruction, -1 (answered) for another. */
static int by_instruction(struct dap *d, struct dap_req *r)
{
	const char *g = "statement";

	if (dap_arg_str(d, r, "granularity", 0, &g) < 0)
		return -1;
	if (strcmp(g, "instruction") == 0)
		return 1;
	if (strcmp(g, "statement") == 0 || strcmp(g, "line") == 0)
		return 0;
	dap_fail(d, r, "%s: no granularity '%s' (statement, line or instruction)", r->command, g);
	return -1;
}

static const char END_DESC[] = "the end of the recording: nothing runs after";

static void report(struct dap *d, const char *reason, const char *desc, const int *ids, size_t n);

/* Start d->plan, set up as KIND for thread TID, and answer R. */
static void start(struct dap *d, struct dap_req *r, enum dap_plan_kind kind, int tid,
		  const char *reason)
{
	char why[256];
	int err;

	if (d->at_end && kind != DAP_PLAN_CONT && kind != DAP_PLAN_RCONT && kind != DAP_PLAN_BACK &&
	    kind != DAP_PLAN_BSTEPI && kind != DAP_PLAN_BACK_OUT &&
	    !(kind == DAP_PLAN_GOTO && d->plan.reverse)) {
		/* Nothing was recorded after this: a step forwards stops
		 * where it is, as gdb's do at replaylog:end (the stub would
		 * let the program exit; continue does that). */
		dap_respond(d, r, NULL);
		report(d, "end of recording", END_DESC, NULL, 0);
		return;
	}
	d->plan.kind = kind;
	d->plan.tid = tid;
	d->plan.reason = reason;
	d->plan.desc = NULL;
	err = dap_plan_start(d, why, sizeof(why));
	if (err) {
		dap_fail(d, r, "%s: %s", r->command, why);
		return;
	}
	if (kind == DAP_PLAN_CONT || kind == DAP_PLAN_RCONT)
		resumed(d, r, 0);
	else
		dap_respond(d, r, NULL);
}

void dap_req_continue(struct dap *d, struct dap_req *r)
{
	int tid;

	if (thread_arg(d, r, 0, &tid) < 0)
		return;
	start(d, r, DAP_PLAN_CONT, tid, "pause");
}

void dap_req_reverse_continue(struct dap *d, struct dap_req *r)
{
	int tid;

	if (thread_arg(d, r, 0, &tid) < 0)
		return;
	start(d, r, DAP_PLAN_RCONT, tid, "pause");
}

/* A step request: KIND by line, INSN by instruction (none: refused). */
static void step(struct dap *d, struct dap_req *r, enum dap_plan_kind kind, enum dap_plan_kind insn)
{
	int tid, g;

	/* (reverseStepOut is a custom request: its thread is the stopped
	 * one unless it names another) */
	if (thread_arg(d, r, kind != DAP_PLAN_BACK_OUT, &tid) < 0 || (g = by_instruction(d, r)) < 0)
		return;
	start(d, r, g && insn != DAP_PLAN_NONE ? insn : kind, tid, "step");
}

void dap_req_next(struct dap *d, struct dap_req *r)
{
	step(d, r, DAP_PLAN_NEXT, DAP_PLAN_NEXTI);
}

void dap_req_step_in(struct dap *d, struct dap_req *r)
{
	step(d, r, DAP_PLAN_IN, DAP_PLAN_STEPI);
}

void dap_req_step_back(struct dap *d, struct dap_req *r)
{
	step(d, r, DAP_PLAN_BACK, DAP_PLAN_BSTEPI);
}

/* (by frames whatever the granularity) */
void dap_req_step_out(struct dap *d, struct dap_req *r)
{
	step(d, r, DAP_PLAN_OUT, DAP_PLAN_NONE);
}

void dap_req_reverse_step_out(struct dap *d, struct dap_req *r)
{
	step(d, r, DAP_PLAN_BACK_OUT, DAP_PLAN_NONE);
}

/* ---- gotoTargets, goto ---- */

void dap_req_goto_targets(struct dap *d, struct dap_req *r)
{
	const cJSON *src = r->args ? cJSON_GetObjectItemCaseSensitive(r->args, "source") : NULL;
	const cJSON *path = src ? cJSON_GetObjectItemCaseSensitive(src, "path") : NULL;
	uint64_t addrs[DAP_LBP_ADDRS];
	unsigned moved = 0;
	int64_t line;
	cJSON *b, *arr;
	int n;

	if (dap_arg_num(d, r, "line", 1, &line) < 0)
		return;
	if (!cJSON_IsObject(src) || !cJSON_IsString(path)) {
		dap_fail(d, r, "gotoTargets: the argument 'source' needs a 'path' string");
		return;
	}
	if (line < 1 || line > 1000000000 || !d->src ||
	    (n = dap_source_line_addrs(d->src, path->valuestring, (unsigned)line, addrs,
				       DAP_LBP_ADDRS, &moved)) <= 0) {
		dap_fail(d, r, "gotoTargets: no code at or after line %" PRId64 " of '%s'", line,
			 path->valuestring);
		return;
	}
	b = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(b, "targets");
	for (int reverse = 0; reverse < 2; reverse++) {
		struct dap_goto_target *g = &d->gotos[d->ngotos++ % 8];
		cJSON *t = cJSON_CreateObject();
		char label[96], ref[32];

		g->id = d->next_id++;
		g->reverse = reverse;
		g->naddrs = (size_t)n < DAP_LBP_ADDRS ? (size_t)n : DAP_LBP_ADDRS;
		memcpy(g->addrs, addrs, g->naddrs * sizeof(addrs[0]));
		snprintf(label, sizeof(label), "%s execution of line %u",
			 reverse ? "previous" : "next", moved);
		snprintf(ref, sizeof(ref), "0x%" PRIx64, addrs[0]);
		cJSON_AddNumberToObject(t, "id", g->id);
		cJSON_AddStringToObject(t, "label", label);
		cJSON_AddNumberToObject(t, "line", moved);
		cJSON_AddStringToObject(t, "instructionPointerReference", ref);
		cJSON_AddItemToArray(arr, t);
	}
	dap_respond(d, r, b);
}

void dap_req_goto(struct dap *d, struct dap_req *r)
{
	int64_t id;
	int tid;

	if (thread_arg(d, r, 1, &tid) < 0 || dap_arg_num(d, r, "targetId", 1, &id) < 0)
		return;
	for (size_t i = 0; i < 8 && i < d->ngotos; i++) {
		struct dap_goto_target *g = &d->gotos[i];

		if (g->id != id)
			continue;
		memcpy(d->plan.temps, g->addrs, g->naddrs * sizeof(g->addrs[0]));
		d->plan.ntemps = g->naddrs;
		d->plan.reverse = g->reverse;
		start(d, r, DAP_PLAN_GOTO, tid, "goto");
		return;
	}
	dap_fail(d, r, "goto: no target %" PRId64 " (ask gotoTargets again)", id);
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
		d->plan.paused = 1;
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
	char text[256];
	int ids[64];
	size_t n = 0;

	d->run = DAP_RUN_NONE;
	dap_drain_output(d);
	if (st->kind != DAP_STOP_SIGNAL) {
		cJSON *b = cJSON_CreateObject();

		d->plan.kind = DAP_PLAN_NONE;
		d->plan.ntemps = 0;
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
	if (how != DAP_RUN_QUERY) {
		/* a resume that no plan started (configurationDone's) */
		if (d->plan.kind == DAP_PLAN_NONE) {
			d->plan = (struct dap_plan){
				.kind = how == DAP_RUN_REVERSE ? DAP_PLAN_RCONT
					: how == DAP_RUN_STEP  ? DAP_PLAN_STEPI
					: how == DAP_RUN_BSTEP ? DAP_PLAN_BSTEPI
							       : DAP_PLAN_CONT,
				.tid = d->run_tid,
				.leg = how,
				.reason = reason,
				.desc = desc,
			};
		}
		if (dap_plan_stopped(d, st, &reason, &desc, text, sizeof(text), ids, &n))
			return; /* on to the plan's next leg */
	} else if (st->why == DAP_WHY_BEGIN || st->why == DAP_WHY_END) {
		reason = st->why == DAP_WHY_BEGIN ? "start of recording" : "end of recording";
	}
	if (d->ended)
		return;
	d->at_end = st->why == DAP_WHY_END;
	dap_update_threads(d, 1);
	/* lines of libraries loaded since, and after a restart or goto */
	if (d->nlbps && dap_refresh_modules(d, d->tid) == 0)
		dap_bp_resolve_lines(d, 1);
	dap_bp_sync(d);
	dap_bp_snapshot(d);
	report(d, reason, desc, ids, n);
}
