/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running the target and saying why it stopped (E.3 "Stop Reply
 * Packets"). All-stop only: every resume packet becomes one call of
 * ops->resume for one thread with one action, which blocks until the
 * target stops, and its stop is the reply. vCont's per-thread actions
 * (E.2 "vCont") come down to the leftmost action that names a thread, or
 * else the default action for the current thread: what gdb sends in
 * all-stop mode ("vCont;s:p1.2;c", "vCont;c:p1.2", "vCont;c"). A signal
 * gdb passes (C, S, vCont;C) is dropped: the replay delivers the signals
 * the recording has.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>

#include "gdbstub/internal.h"

#define SIGTRAP_GDB 5 /* GDB_SIGNAL_TRAP, include/gdb/signals.def */

/* exec:<hex of the program's absolute path>; (E.4 "Stop Reply Packets",
 * the exec reason), the path as qXfer:exec-file has it now; 0, or -1 when
 * the target cannot say (then the stop goes out without it). */
static int out_exec(struct rsp_session *s)
{
	size_t got = 0;

	if (!s->exec_events || !s->ops->xfer ||
	    s->ops->xfer(s->t, "exec-file", "", 0, s->data, sizeof(s->data), &got) < 0 || !got ||
	    got == sizeof(s->data) || s->data[0] != '/')
		return -1;
	rsp_out_str(s, "exec:");
	rsp_out_hex(s, s->data, got);
	rsp_out_str(s, ";");
	return 0;
}

static void out_stop(struct rsp_session *s, const struct rsp_stop *st)
{
	switch (st->kind) {
	case RSP_STOP_EXITED:
		rsp_out_fmt(s, "W%02x", (unsigned)st->status & 0xff);
		if (s->multiprocess)
			rsp_out_fmt(s, ";process:%x", (unsigned)s->ops->pid);
		return;
	case RSP_STOP_KILLED:
		rsp_out_fmt(s, "X%02x", (unsigned)st->sig & 0xff);
		if (s->multiprocess)
			rsp_out_fmt(s, ";process:%x", (unsigned)s->ops->pid);
		return;
	case RSP_STOP_REPLAY_BEGIN:
	case RSP_STOP_REPLAY_END:
		rsp_out_fmt(s, "T%02x", st->sig > 0 ? (unsigned)st->sig & 0xff : SIGTRAP_GDB);
		break;
	default:
		rsp_out_fmt(s, "T%02x", (unsigned)st->sig & 0xff);
		/* (gdbserver puts exec first, then the thread) */
		if (st->reason == RSP_REASON_EXEC)
			out_exec(s);
		break;
	}
	if (st->tid > 0) {
		rsp_out_str(s, "thread:");
		rsp_out_thread(s, st->tid);
		rsp_out_str(s, ";");
	}
	/* swbreak and hwbreak only to a gdb that asked for them (E.3). */
	if (st->kind == RSP_STOP_REPLAY_BEGIN)
		rsp_out_str(s, "replaylog:begin;");
	else if (st->kind == RSP_STOP_REPLAY_END)
		rsp_out_str(s, "replaylog:end;");
	else if (st->reason == RSP_REASON_SWBREAK && s->swbreak)
		rsp_out_str(s, "swbreak:;");
	else if (st->reason == RSP_REASON_HWBREAK && s->hwbreak)
		rsp_out_str(s, "hwbreak:;");
	else if (st->reason == RSP_REASON_WATCH)
		rsp_out_fmt(s, "watch:%" PRIx64 ";", st->watch_addr);
	else if (st->reason == RSP_REASON_RWATCH)
		rsp_out_fmt(s, "rwatch:%" PRIx64 ";", st->watch_addr);
	else if (st->reason == RSP_REASON_AWATCH)
		rsp_out_fmt(s, "awatch:%" PRIx64 ";", st->watch_addr);
}

void rsp_session_stopped(struct rsp_session *s, const struct rsp_stop *stop)
{
	s->last = *stop;
	s->have_last = 1;
	/* gdbserver too makes the thread that stopped the one registers are
	 * read from: gdb reads them before it says Hg. */
	if (stop->tid > 0)
		s->gen_tid = stop->tid;
	rsp_out_reset(s);
	out_stop(s, stop);
	rsp_out_send(s);
}

int rsp_session_exec_events(const struct rsp_session *s)
{
	return s->exec_events;
}

void rsp_session_note_stop(struct rsp_session *s, const struct rsp_stop *stop)
{
	/* gdb's Hg thread stays: gdb reads the registers of the thread it
	 * has selected, or is told that it has none here. */
	s->last = *stop;
	s->have_last = 1;
}

/* '?': the last stop; before any, SIGTRAP in the first thread. */
int rsp_handle_query_stop(struct rsp_session *s, const char *args)
{
	(void)args;
	if (!s->have_last) {
		struct rsp_stop st = { .kind = RSP_STOP_SIGNAL, .sig = SIGTRAP_GDB };

		st.tid = rsp_current_tid(s);
		rsp_session_stopped(s, &st);
		return 0;
	}
	/* An exec is told once, as the resume's reply: asked again (gdb
	 * connecting anew reads exec-file itself), it is a plain stop. */
	if (s->last.reason == RSP_REASON_EXEC)
		s->last.reason = RSP_REASON_NONE;
	rsp_session_stopped(s, &s->last);
	return 0;
}

static void resume(struct rsp_session *s, enum rsp_resume how, int tid)
{
	struct rsp_stop st = { .kind = RSP_STOP_SIGNAL, .sig = SIGTRAP_GDB };

	int err = s->ops->resume ? s->ops->resume(s->t, how, tid, &st) : -EOPNOTSUPP;

	/* A target that runs in the caller's loop (the replayer) answers
	 * later, through rsp_session_stopped(). */
	if (err == -EINPROGRESS)
		return;
	if (err < 0) {
		rsp_reply_str(s, "E01");
		return;
	}
	rsp_session_stopped(s, &st);
}

/* The thread a resume without a thread of its own is for: Hc's, else the
 * current one. */
static int resume_tid(struct rsp_session *s)
{
	return s->cont_tid > 0 ? s->cont_tid : rsp_current_tid(s);
}

int rsp_handle_vcont_query(struct rsp_session *s, const char *args)
{
	(void)args;
	rsp_reply_str(s, "vCont;c;C;s;S");
	return 0;
}

/* vCont[;action[:thread-id]]... */
int rsp_handle_vcont(struct rsp_session *s, const char *args)
{
	int how = -1, tid = 0, dflt = -1;
	const char *p = args;

	if (*p != ';')
		goto malformed;
	while (*p == ';') {
		int a = *++p, pid = 0, t = -1, h;
		uint64_t sig;

		if (!a)
			goto malformed;
		p++;
		if (a == 'c' || a == 's') {
			h = a == 'c' ? RSP_RESUME_CONT : RSP_RESUME_STEP;
		} else if (a == 'C' || a == 'S') {
			if (rsp_parse_hex_max(&p, 255, &sig) < 0)
				goto malformed;
			h = a == 'C' ? RSP_RESUME_CONT : RSP_RESUME_STEP;
		} else {
			goto malformed;
		}
		if (*p == ':') {
			p++;
			if (rsp_parse_thread(&p, &pid, &t) < 0)
				goto malformed;
		}
		if (pid > 0 && pid != s->ops->pid)
			continue; /* another process's: not ours to run */
		if (t > 0 && how < 0) {
			how = h;
			tid = t;
		} else if (t <= 0 && dflt < 0) {
			dflt = h;
		}
	}
	if (*p)
		goto malformed;
	if (how < 0) {
		if (dflt < 0)
			goto malformed;
		how = dflt;
		tid = resume_tid(s);
	}
	resume(s, (enum rsp_resume)how, tid);
	return 0;
malformed:
	rsp_reply_str(s, "E01");
	return 0;
}

/*
 * c, s; C<sig>, S<sig>. An address to resume at ("c<addr>", "C<sig>;<addr>")
 * would change the replay's rip: refused.
 */
static int legacy(struct rsp_session *s, const char *args, enum rsp_resume how, int with_sig)
{
	uint64_t sig;

	if (with_sig && rsp_parse_hex_max(&args, 255, &sig) < 0)
		args = "?";
	if (*args) {
		rsp_reply_str(s, "E01");
		return 0;
	}
	resume(s, how, resume_tid(s));
	return 0;
}

int rsp_handle_cont(struct rsp_session *s, const char *args)
{
	return legacy(s, args, RSP_RESUME_CONT, 0);
}

int rsp_handle_cont_sig(struct rsp_session *s, const char *args)
{
	return legacy(s, args, RSP_RESUME_CONT, 1);
}

int rsp_handle_step(struct rsp_session *s, const char *args)
{
	return legacy(s, args, RSP_RESUME_STEP, 0);
}

int rsp_handle_step_sig(struct rsp_session *s, const char *args)
{
	return legacy(s, args, RSP_RESUME_STEP, 1);
}

/* bc, bs: backwards (E.2), announced by ReverseContinue+ and ReverseStep+. */
int rsp_handle_reverse_cont(struct rsp_session *s, const char *args)
{
	(void)args;
	resume(s, RSP_RESUME_REVERSE_CONT, resume_tid(s));
	return 0;
}

int rsp_handle_reverse_step(struct rsp_session *s, const char *args)
{
	(void)args;
	resume(s, RSP_RESUME_REVERSE_STEP, resume_tid(s));
	return 0;
}

/* vRun;filename[;argument]...: the recorded program from its start again,
 * whatever gdb names (a replay runs what was recorded). */
int rsp_handle_run(struct rsp_session *s, const char *args)
{
	struct rsp_stop st = { .kind = RSP_STOP_SIGNAL, .sig = SIGTRAP_GDB };

	int err = s->ops->restart ? s->ops->restart(s->t, &st) : -EOPNOTSUPP;

	(void)args;
	if (err < 0 && err != -EINPROGRESS) {
		rsp_reply_str(s, "E01");
		return 0;
	}
	s->gen_tid = s->cont_tid = 0;
	/* (a target that gets there in its caller's loop answers later, as a
	 * resume does) */
	if (err == 0)
		rsp_session_stopped(s, &st);
	return 0;
}
