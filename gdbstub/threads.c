/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Threads: ids on the wire (E.1 "thread-id": p<pid>.<tid> once gdb said
 * multiprocess+, else the bare tid, hex), the threads gdb selects with Hg
 * (registers, memory) and Hc (legacy c and s), T (alive?), qC (current)
 * and the list in qfThreadInfo/qsThreadInfo chunks (E.5). The list is
 * taken once at qfThreadInfo and read out from there, so the chunks agree
 * with each other; the other packets look threads up in a list of their
 * own.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>

#include "gdbstub/internal.h"

/* A number in a thread-id: hex, or -1. */
static int parse_id(const char **p, int *v)
{
	uint64_t x;

	if ((*p)[0] == '-' && (*p)[1] == '1') {
		*p += 2;
		*v = -1;
		return 0;
	}
	if (rsp_parse_hex_max(p, INT_MAX, &x) < 0)
		return -EINVAL;
	*v = (int)x;
	return 0;
}

int rsp_parse_thread(const char **p, int *pid, int *tid)
{
	const char *q = *p;

	*pid = 0;
	if (*q == 'p') {
		q++;
		if (parse_id(&q, pid) < 0)
			return -EINVAL;
		*tid = -1;
		if (*q == '.') {
			q++;
			if (parse_id(&q, tid) < 0)
				return -EINVAL;
		}
	} else if (parse_id(&q, tid) < 0) {
		return -EINVAL;
	}
	*p = q;
	return 0;
}

void rsp_out_thread(struct rsp_session *s, int tid)
{
	if (s->multiprocess)
		rsp_out_fmt(s, "p%x.%x", (unsigned)s->ops->pid, (unsigned)tid);
	else
		rsp_out_fmt(s, "%x", (unsigned)tid);
}

int rsp_list_threads(struct rsp_session *s, int *tids, int *n)
{
	int r;

	*n = 0;
	if (!s->ops->threads) { /* one thread, the process */
		if (s->ops->pid > 0)
			tids[(*n)++] = s->ops->pid;
		return 0;
	}
	r = s->ops->threads(s->t, tids, RSP_MAX_THREADS, n);
	if (r < 0) {
		*n = 0;
		return r;
	}
	*n = *n < 0 ? 0 : *n > RSP_MAX_THREADS ? RSP_MAX_THREADS : *n;
	return 0;
}

int rsp_thread_alive(struct rsp_session *s, int tid)
{
	int n;

	if (tid <= 0 || rsp_list_threads(s, s->probe, &n) < 0)
		return 0;
	for (int i = 0; i < n; i++)
		if (s->probe[i] == tid)
			return 1;
	return 0;
}

int rsp_current_tid(struct rsp_session *s)
{
	int n;

	if (s->gen_tid > 0)
		return s->gen_tid;
	if (s->have_last && s->last.tid > 0)
		return s->last.tid;
	if (rsp_list_threads(s, s->probe, &n) < 0 || n == 0)
		return 0;
	return s->probe[0];
}

/* A thread-id of ours that fills ARGS: 0, or -EINVAL (malformed) or
 * -ESRCH (another process, or a thread that is not alive). */
static int parse_our_thread(struct rsp_session *s, const char *args, int *tid)
{
	int pid;

	if (rsp_parse_thread(&args, &pid, tid) < 0 || *args)
		return -EINVAL;
	if (pid > 0 && pid != s->ops->pid)
		return -ESRCH;
	if (*tid > 0 && !rsp_thread_alive(s, *tid))
		return -ESRCH;
	return 0;
}

/* Hg<thread-id>, Hc<thread-id>. */
int rsp_handle_set_thread(struct rsp_session *s, const char *args)
{
	int tid;

	if ((args[0] != 'g' && args[0] != 'c') || parse_our_thread(s, args + 1, &tid) < 0) {
		rsp_reply_str(s, "E01");
		return 0;
	}
	if (args[0] == 'g')
		s->gen_tid = tid;
	else
		s->cont_tid = tid;
	rsp_reply_str(s, "OK");
	return 0;
}

/* T<thread-id>: OK when it is alive. */
int rsp_handle_thread_alive(struct rsp_session *s, const char *args)
{
	int tid;

	if (parse_our_thread(s, args, &tid) < 0 || tid <= 0)
		rsp_reply_str(s, "E01");
	else
		rsp_reply_str(s, "OK");
	return 0;
}

/* qC: QC<thread-id>. */
int rsp_handle_current_thread(struct rsp_session *s, const char *args)
{
	int tid = rsp_current_tid(s);

	(void)args;
	if (tid <= 0) {
		rsp_reply_str(s, "E01");
		return 0;
	}
	rsp_out_reset(s);
	rsp_out_str(s, "QC");
	rsp_out_thread(s, tid);
	rsp_out_send(s);
	return 0;
}

/* m<id>,<id>... as many as fit, or l at the end. */
static void send_thread_chunk(struct rsp_session *s)
{
	rsp_out_reset(s);
	if (s->next_tid >= s->ntids) {
		rsp_out_str(s, "l");
		rsp_out_send(s);
		return;
	}
	rsp_out_str(s, "m");
	for (int first = 1; s->next_tid < s->ntids && rsp_out_room(s) > 64; first = 0) {
		if (!first)
			rsp_out_str(s, ",");
		rsp_out_thread(s, s->tids[s->next_tid++]);
	}
	rsp_out_send(s);
}

/* qfThreadInfo: the list from the start. */
int rsp_handle_thread_first(struct rsp_session *s, const char *args)
{
	(void)args;
	s->next_tid = 0;
	if (rsp_list_threads(s, s->tids, &s->ntids) < 0) {
		rsp_reply_str(s, "E01");
		return 0;
	}
	send_thread_chunk(s);
	return 0;
}

/* qsThreadInfo: on from where the last chunk ended. */
int rsp_handle_thread_next(struct rsp_session *s, const char *args)
{
	(void)args;
	send_thread_chunk(s);
	return 0;
}
