/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a recording keeps besides the events, and how a replay puts it back
 * (DESIGN.md "Recordings", "Replay").
 *
 * Everything `hermit run` makes deterministic (time, randomness, identity,
 * the schedule) a replay recomputes from the recorded options. What comes
 * from outside cannot be recomputed:
 *
 *   - output buffers of calls that stop anyway (stat, getdents): their
 *     event carries the bytes as the guest saw them;
 *   - reads (read, pread64, readv, preadv, preadv2, recvfrom, recvmsg,
 *     recvmmsg), which `run` lets through without a stop: when a log is
 *     kept they stop too, but *hidden*: they advance no clock, count no
 *     progress and are no scheduling point, so a recording schedules
 *     exactly as `run` does with the same seeds. Their results go into
 *     REC_EV_INPUT frames;
 *   - the results of poll, select and epoll calls that watch descriptors
 *     from outside (sys_poll.c);
 *   - writes and sends to the outside, which a replay runs again: hidden
 *     too, their REC_EV_OUTPUT frames carry the result and a digest of the
 *     bytes (sent.c), which the replay's must match;
 *   - the files the program maps (executables, libraries, mapped data):
 *     copied into files/ at exec and at each mmap of a file.
 *
 * A replay lets reads of the guest's own pipes and sockets, and of
 * regular files, run (so offsets and pipe contents stay as they were) and
 * then writes the recorded bytes and result over what they returned; reads
 * from outside (hermit's own stdin, terminals, devices, the host network)
 * are not run at all and get the recorded bytes. Calls on the file system
 * (fsstate.c) and transfers (xfer.c) are answered likewise.
 *
 * This file decides when a call is answered from the log and what it is
 * compared with; what an answer writes into the guest is the replayer's
 * (struct rec_replay_ops, replayer/substitute.c). The decisions stay here
 * because they act on the scheduler's tasks and stops (parking a read the
 * recording parked, skipping a call, resuming to its exit), which are the
 * recorder's own state.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

int rec_call_hidden(const struct rec_syscall *row, const struct rec_call *c)
{
	if (row->hidden != SHOWN)
		return 1;
	return row->fd_min > 0 && (int64_t)c->args[0] < row->fd_min;
}

/* ---- output buffers ---- */

#define MAX_IOV 1024

/* Append the first LEFT bytes of the CNT iovecs at IOV_ADDR to OUT. */
static void read_iov(struct task *t, uint64_t iov_addr, size_t cnt, size_t left, struct hm_buf *out)
{
	struct iovec iov[64];

	for (size_t i = 0; i < cnt && i < MAX_IOV && left; i += 64) {
		size_t k = cnt - i < 64 ? cnt - i : 64;

		if (tracer_read_mem(t->tid, iov_addr + i * sizeof(struct iovec), iov,
				    k * sizeof(struct iovec)) < 0)
			return;
		for (size_t j = 0; j < k && left; j++) {
			size_t m = iov[j].iov_len < left ? iov[j].iov_len : left;
			void *p = hm_buf_grow(out, m);

			if (tracer_read_mem(t->tid, (uint64_t)iov[j].iov_base, p, m) < 0)
				memset(p, 0, m);
			out->len += m;
			left -= m;
		}
	}
}

/* Bounds of what a recvmsg record keeps of the address and control data. */
#define MSG_NAME_MAX	128
#define MSG_CONTROL_MAX 4096

static void read_guest(struct task *t, uint64_t addr, size_t n, struct hm_buf *out)
{
	void *p = hm_buf_grow(out, n);

	if (!n)
		return;
	if (!addr || tracer_read_mem(t->tid, addr, p, n) < 0)
		memset(p, 0, n);
	out->len += n;
}

/*
 * recvmsg: the msghdr as the kernel left it (lengths and flags; its
 * pointers are the guest's), then the address, the control data and the
 * RET bytes of data, in that order. The lengths kept are bounded, and the
 * copy of the msghdr says them.
 */
static void read_msg(struct task *t, uint64_t addr, size_t ret, struct hm_buf *out)
{
	struct msghdr mh;

	if (tracer_read_mem(t->tid, addr, &mh, sizeof(mh)) < 0)
		return;
	if (!mh.msg_name || mh.msg_namelen > MSG_NAME_MAX)
		mh.msg_namelen = mh.msg_name ? MSG_NAME_MAX : 0;
	if (!mh.msg_control || mh.msg_controllen > MSG_CONTROL_MAX)
		mh.msg_controllen = mh.msg_control ? MSG_CONTROL_MAX : 0;
	hm_buf_add(out, &mh, sizeof(mh));
	read_guest(t, (uint64_t)mh.msg_name, mh.msg_namelen, out);
	read_guest(t, (uint64_t)mh.msg_control, mh.msg_controllen, out);
	read_iov(t, (uint64_t)mh.msg_iov, mh.msg_iovlen, ret, out);
}

/* Messages of a recvmmsg a record keeps at most. */
#define MMSG_MAX 1024

/* recvmmsg: for each of the RET messages, its msg_len and the number of
 * data bytes kept (4 bytes each; with MSG_TRUNC msg_len may be more than
 * its buffers held), then its msghdr as read_msg keeps it. */
static void read_mmsg(struct task *t, uint64_t addr, long ret, struct hm_buf *out)
{
	for (long i = 0; i < ret && i < MMSG_MAX; i++) {
		uint64_t at = addr + (uint64_t)i * sizeof(struct mmsghdr);
		struct mmsghdr m;
		struct msghdr h;
		uint32_t kept;
		size_t head, start;

		if (tracer_read_mem(t->tid, at, &m, sizeof(m)) < 0)
			return;
		hm_buf_add(out, &m.msg_len, sizeof(m.msg_len));
		head = out->len;
		hm_buf_add(out, &m.msg_len, sizeof(kept)); /* patched below */
		start = out->len;
		read_msg(t, at, m.msg_len, out);
		if (out->len - start < sizeof(h)) {
			out->len = head - sizeof(m.msg_len); /* its msghdr could not be read */
			return;
		}
		memcpy(&h, out->data + start, sizeof(h));
		kept = (uint32_t)(out->len - start - sizeof(h) - h.msg_namelen - h.msg_controllen);
		memcpy(out->data + head, &kept, sizeof(kept));
	}
}

/* Copy the output of C (result RET) out of the guest into OUT. */
static void read_output(struct task *t, const struct rec_syscall *row, const struct rec_call *c,
			long ret, struct hm_buf *out)
{
	uint64_t addr = c->args[row->out_arg];
	size_t n = 0;

	if (ret < 0)
		return;
	switch (row->out) {
	case OUT_NONE:
	case OUT_VAL:
		return;
	case OUT_RET:
		n = (size_t)ret;
		break;
	case OUT_SIZE:
		n = row->out_size;
		break;
	case OUT_IOCTL: {
		long k = rec_ioctl_out(c->args[1]);

		n = k > 0 ? (size_t)k : 0; /* unknown: nothing kept (answer()) */
		break;
	}
	case OUT_IOV:
		read_iov(t, addr, c->args[row->out_arg + 1], (size_t)ret, out);
		return;
	case OUT_MSG:
		read_msg(t, addr, (size_t)ret, out);
		return;
	case OUT_MMSG:
		read_mmsg(t, addr, ret, out);
		return;
	case OUT_XFER:
		rec_xfer_bytes(t, ret, out);
		return;
	case OUT_POLL: {
		uint64_t at[3];
		size_t len[3];
		int k = t->poll_outside ? rec_poll_regions(c, ret, at, len) : 0;

		for (int i = 0; i < k; i++)
			read_guest(t, at[i], len[i], out);
		return;
	}
	}
	if (n > REC_LOG_MAX_PAYLOAD)
		n = REC_LOG_MAX_PAYLOAD;
	if (n) {
		void *p = hm_buf_grow(out, n);

		if (tracer_read_mem(t->tid, addr, p, n) < 0)
			memset(p, 0, n);
		out->len += n;
	}
}

/* Replay: write recorded output P (N bytes) where C of ROW leaves it
 * (replayer/substitute.c puts it there). */
static int write_output(struct rec *r, struct task *t, const struct rec_syscall *row,
			const struct rec_call *c, const unsigned char *p, size_t n)
{
	struct rec_out_place w = { row->out, c->args[row->out_arg], 0, 0, { 0 }, { 0 } };
	const struct rec_replay_ops *ops = r->opts->replay;

	if (!n)
		return 0;
	if (!ops || !ops->put_output)
		return -ENOSYS;
	if (row->out == OUT_IOV)
		w.count = c->args[row->out_arg + 1];
	if (row->out == OUT_POLL)
		w.nregions = rec_poll_regions(c, c->ret, w.at, w.len);
	return ops->put_output(ops->ctx, t->tid, &w, p, n);
}

static void make_record(const struct task *t, const struct rec_call *c, int kind,
			struct rec_event_record *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->fields[0] = kind;
	ev->fields[1] = t->index;
	ev->fields[2] = c->nr;
	memcpy(&ev->fields[3], c->args, sizeof(c->args));
	ev->fields[9] = c->ret;
	ev->fields[10] = (int64_t)t->tick_count;
	/* an output's digest; an input's parks before it came */
	ev->fields[11] = kind == REC_EV_INPUT ? t->parks : (int64_t)t->out_digest;
}

/* Same event, results apart; completed calls match whether the kernel ran
 * them (REC_EV_EXIT) or hermit answered them (REC_EV_EMULATED). */
static int same_call(const struct rec_event_record *a, const struct rec_event_record *b)
{
	int64_t ka = a->fields[0], kb = b->fields[0];

	if (ka == REC_EV_EMULATED)
		ka = REC_EV_EXIT;
	if (kb == REC_EV_EMULATED)
		kb = REC_EV_EXIT;
	return ka == kb && memcmp(&a->fields[1], &b->fields[1], 8 * sizeof(int64_t)) == 0 &&
	       REC_EV_TICKS(a) == REC_EV_TICKS(b);
}

/*
 * Replay: the recorded event for call C of T, which must be the next one
 * in the log and match KIND, T, the syscall and its arguments. 1 with *EV,
 * *P, *N set; 0 after reporting a divergence (or the end of the log).
 */
static int recorded(struct rec *r, struct task *t, const struct rec_call *c, int kind,
		    const struct rec_event_record **ev, const unsigned char **p, size_t *n)
{
	struct rec_event_record want;
	int got;

	if (r->diverged)
		return 0;
	make_record(t, c, kind, &want);
	got = r->opts->source->peek(r->opts->source->ctx, ev, p, n);
	if (got <= 0) {
		rec_diverged(r, NULL, &want, got < 0 ? "the log is damaged here" : NULL);
		return 0;
	}
	if (!same_call(*ev, &want)) {
		rec_diverged(r, *ev, &want, NULL);
		return 0;
	}
	return 1;
}

int rec_capture_exit(struct rec *r, struct task *t, const struct rec_syscall *row,
		     struct rec_call *c)
{
	const struct rec_event_record *ev;
	const unsigned char *p;
	size_t n;

	if (r->opts->mode == REC_MODE_RECORD) {
		hm_buf_reset(&r->payload);
		read_output(t, row, c, c->ret, &r->payload);
		return 0;
	}
	if (!recorded(r, t, c, REC_EV_EXIT, &ev, &p, &n))
		return 1;
	c->ret = (long)REC_EV_RET(ev);
	if (write_output(r, t, row, c, p, n) < 0)
		hm_debug("task %d: cannot put the recorded output of %s back", t->index, row->name);
	return 1;
}

/* ---- hidden calls: reads ---- */

int rec_fd_from_outside(const struct rec *r, pid_t tid, int fd)
{
	char target[256];

	if (tracer_fd_target(tid, fd, target, sizeof(target)) < 0)
		return 0; /* not open: let the kernel say EBADF */
	if (rec_hermits_own(r, target))
		return 1;
	if (strncmp(target, "/dev/", 5) == 0)
		return !rec_guest_pty(r, tid, fd, target);
	/* inotify's events tell what any process did to the files it watches */
	if (strcmp(target, "anon_inode:inotify") == 0)
		return 1;
	if (strncmp(target, "socket:", 7) == 0)
		return r->opts->network_host;
	return 0;
}

int rec_fd_network(const struct rec *r, pid_t tid, int fd)
{
	char target[256];

	return r->opts->network_host && tracer_fd_target(tid, fd, target, sizeof(target)) == 0 &&
	       strncmp(target, "socket:", 7) == 0 && !rec_hermits_own(r, target);
}

/* Write a hidden call's INPUT frame (record): its bytes, or for a read of
 * a regular file whose bytes a copy in files/ holds, a reference to them
 * (fileref.c). */
static void log_input(struct rec *r, struct task *t, const struct rec_call *c)
{
	struct rec_event_record ev;
	struct rec_file_ref ref;

	make_record(t, c, REC_EV_INPUT, &ev);
	if (rec_fileref_find(r, t, c, &r->payload, &ref))
		rec_log_write_ref(r->opts->log, &ev, &ref);
	else
		rec_log_write(r->opts->log, &ev, r->payload.data, r->payload.len);
	r->frames++;
	hm_buf_reset(&r->payload);
}

/*
 * A write to the outside ended (C with its result): record its output
 * frame, or compare it with the log's. The bytes went out in the replay
 * too (they are its stdout); a digest or a result that differs is a
 * divergence at this frame.
 */
static void log_output(struct rec *r, struct task *t, const struct rec_syscall *row,
		       const struct rec_call *c)
{
	const struct rec_event_record *want;
	const unsigned char *p;
	struct rec_event_record ev;
	size_t n;
	int same;

	t->out_digest = rec_sent_digest(r, t, row, c);
	make_record(t, c, REC_EV_OUTPUT, &ev);
	if (r->opts->mode == REC_MODE_RECORD) {
		t->out_digest = 0;
		rec_log_write(r->opts->log, &ev, NULL, 0);
		r->frames++;
		return;
	}
	same = recorded(r, t, c, REC_EV_OUTPUT, &want, &p, &n);
	t->out_digest = 0;
	if (!same)
		return;
	if (REC_EV_RET(want) != REC_EV_RET(&ev) || REC_EV_OUT(want) != REC_EV_OUT(&ev)) {
		rec_diverged(r, want, &ev, NULL);
		return;
	}
	r->opts->source->take(r->opts->source->ctx);
	r->frames++;
}

/*
 * Replay, a read that runs: ask the kernel for no more than the recording
 * got. A stream socket or pipe may hold more now than it did then (the
 * sender's data arrives as the kernel pleases), and what this read takes
 * beyond the recorded count the next read would miss. The count is the
 * third argument of read, pread64 and recvfrom alike.
 */
static void clamp_read(struct rec *r, struct task *t, struct rec_call *c)
{
	const struct rec_event_record *ev;
	const unsigned char *p;
	size_t n;
	struct rec_event_record want;

	make_record(t, c, REC_EV_INPUT, &want);
	if (r->opts->source->peek(r->opts->source->ctx, &ev, &p, &n) <= 0 ||
	    memcmp(ev->fields, want.fields, 9 * sizeof(int64_t)) != 0 || REC_EV_RET(ev) <= 0 ||
	    (uint64_t)REC_EV_RET(ev) >= c->args[2])
		return; /* never a count of 0: that returns at once, where the
			 * recorded end of file waited for the last writer */
	t->clamped = 1;
	t->clamped_count = c->args[2];
	c->regs.rdx = (uint64_t)REC_EV_RET(ev);
	tracer_set_regs(t->tid, &c->regs);
}

void rec_unclamp_entry(struct task *t, struct rec_call *c)
{
	if (!t->clamped)
		return;
	/* Made again (retried, restarted): with the count it first asked for. */
	c->regs.rdx = t->clamped_count;
	c->args[2] = t->clamped_count;
	tracer_set_regs(t->tid, &c->regs);
	t->clamped = 0;
}

void rec_unclamp_exit(struct task *t, struct user_regs_struct *regs)
{
	if (!t->clamped)
		return;
	/* A syscall leaves rdx as it found it: the guest gets its count back,
	 * and a call the kernel restarts asks for it again. */
	regs->rdx = t->clamped_count;
	tracer_set_regs(t->tid, regs);
	t->clamped = 0;
}

/* How long a replay waits for input the recording says came (wall clock). */
#define DUE_WAIT_NS (5LL * HM_NS_PER_SEC)

int rec_replay_completes(struct rec *r, struct task *t)
{
	const struct rec_event_record *ev;
	const unsigned char *p;
	size_t n;
	struct rec_event_record want;
	struct timespec ts;
	int64_t now;

	if (!t->hidden || !t->pending)
		return 0;
	make_record(t, &t->call, t->sends_out ? REC_EV_OUTPUT : REC_EV_INPUT, &want);
	if (r->opts->source->peek(r->opts->source->ctx, &ev, &p, &n) <= 0 ||
	    memcmp(ev->fields, want.fields, 9 * sizeof(int64_t)) != 0)
		return 0;
	/* Parked in the recording more often than here: park it too (the
	 * writer may be another task, whose writes leave nothing in the log).
	 * Whether or not another task looks runnable now: a writer parked on
	 * a full pipe may become retryable only through this park (a first
	 * park is progress; a retried one leaves it to the scheduler's
	 * settling rounds), as in the recording; waiting instead held a
	 * `seq | sort` replay 5 s at each of sort's spills.
	 * As often: its input was there then and is on its way now (a
	 * loopback socket's bytes arrive when the kernel's softirq pleases). */
	if (REC_EV_KIND(ev) == REC_EV_INPUT && REC_EV_PARKS(ev) > t->parks)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (int64_t)ts.tv_sec * HM_NS_PER_SEC + ts.tv_nsec;
	if (!t->due_since) {
		t->due_since = now;
		hm_debug("replay: task %d waits for the input its %s got in the recording",
			 t->index, t->pending->name);
	}
	return now - t->due_since < DUE_WAIT_NS;
}

int rec_replay_not_next(struct rec *r, struct task *t)
{
	const struct rec_event_record *ev;
	const unsigned char *p;
	size_t n;

	/* Anything but this call's own result (another task's event, a signal
	 * to this one) came first in the recording. */
	return !t->outside && r->opts->source->peek(r->opts->source->ctx, &ev, &p, &n) > 0 &&
	       (REC_EV_TASK(ev) != t->index || REC_EV_NR(ev) != t->call.nr ||
		(REC_EV_KIND(ev) != REC_EV_INPUT && REC_EV_KIND(ev) != REC_EV_EXIT &&
		 REC_EV_KIND(ev) != REC_EV_OUTPUT));
}

void rec_park_rewound(struct rec *r, struct task *t, struct user_regs_struct *regs)
{
	hm_trace("task %d: %s had not returned yet in the recording", t->index,
		 t->pending ? t->pending->name : "its call");
	regs->rip -= 2;
	regs->rax = (uint64_t)t->call.nr;
	tracer_set_regs(t->tid, regs);
	/* A handled signal that comes while it waits ends it as the kernel
	 * would have ended the blocked read: EINTR, unless SA_RESTART (the
	 * recording logs no frame for it: the guest saw what the kernel gave). */
	rec_intr_set(t, regs, t->call.nr, -REC_ERESTARTSYS, 1);
	t->pending = NULL;
	t->hidden = 0;
	t->not_yet = 0;
	rec_park(r, t);
}

/*
 * A read of the guest's own pipe or socket that parked in the recording
 * (its bytes were still on their way: loopback bytes arrive when the
 * kernel's softirq pleases) can find them there at once in a replay and
 * return before the events the recording has first. The kernel has given
 * its bytes away, and the log has them: the call is wound back and parked
 * as the recording did, and when the log says it returns, the log answers
 * it without running it again (rec_hidden_entry).
 */
int rec_replay_early(struct rec *r, struct task *t, struct user_regs_struct *regs)
{
	const struct rec_syscall *row = t->pending;
	char target[64];

	if (!row || row->sent != SENT_NONE || row->out == OUT_NONE || row->out == OUT_XFER ||
	    rec_fs_answered(t->call.nr) || rec_fs_runs(t->call.nr) || (long)regs->rax < 0 ||
	    tracer_fd_target(t->tid, (int)t->call.args[0], target, sizeof(target)) < 0 ||
	    (strncmp(target, "pipe:", 5) != 0 && strncmp(target, "socket:", 7) != 0 &&
	     !rec_guest_pty(r, t->tid, (int)t->call.args[0], target)) ||
	    !rec_replay_not_next(r, t))
		return 0;
	hm_trace("task %d: its %s returned before the recording's did", t->index, row->name);
	t->early = 1;
	rec_park_rewound(r, t, regs);
	return 1;
}

/* Replay: the call of T (ROW) waited in the recording while others ran:
 * skipped now, it is parked at its exit as the recording did. */
static void not_yet(struct task *t, const struct rec_syscall *row)
{
	t->call.regs.orig_rax = (uint64_t)-1;
	tracer_set_regs(t->tid, &t->call.regs);
	t->pending = row;
	t->hidden = 1;
	t->not_yet = 1;
	rec_resume(t, RESUME_SYSCALL, 0);
}

/*
 * Replay: call C of T (ROW), at its entry, is not run: the recorded bytes
 * and result are the answer (for a send, the result, and the bytes must
 * be the ones the recording sent). RETRIED: it was parked before and
 * finishes now, as in the recording.
 */
static void answer(struct rec *r, struct task *t, const struct rec_syscall *row, int retried)
{
	struct rec_call *c = &t->call;
	int sent = row->sent != SENT_NONE;
	const struct rec_event_record *ev;
	const unsigned char *p;
	size_t n;

	c->regs.orig_rax = (uint64_t)-1;
	if (retried) {
		t->retrying = 0;
		r->progress++;
	}
	c->ret = 0;
	if (!recorded(r, t, c, sent ? REC_EV_OUTPUT : REC_EV_INPUT, &ev, &p, &n))
		return;
	c->ret = (long)REC_EV_RET(ev);
	if (c->nr == SYS_ioctl && c->ret >= 0 && rec_ioctl_out(c->args[1]) < 0) {
		/* The buffer would keep what the guest had put there. */
		char why[256];

		snprintf(why, sizeof(why),
			 "ioctl request 0x%x on descriptor %d (outside the guest) writes what its "
			 "number does not size, which the recording could not keep",
			 (unsigned)c->args[1], (int)c->args[0]);
		rec_diverged(r, NULL, ev, why);
		return;
	}
	if (sent) {
		/* Not sent again: what the guest hands over must be what the
		 * recording's sent (the digest its output frame keeps). */
		struct rec_event_record got;

		t->out_digest = rec_sent_digest(r, t, row, c);
		make_record(t, c, REC_EV_OUTPUT, &got);
		t->out_digest = 0;
		if (REC_EV_OUT(&got) != REC_EV_OUT(ev)) {
			rec_diverged(r, ev, &got, NULL);
			return;
		}
	} else {
		write_output(r, t, row, c, p, n);
	}
	r->opts->source->take(r->opts->source->ctx);
	r->frames++;
	c->regs.rax = (uint64_t)c->ret;
	tracer_set_regs(t->tid, &c->regs);
	if (retried)
		rec_go_on(r, t, RESUME_CONT); /* as a retried call's exit does */
	else
		rec_resume(t, RESUME_CONT, 0);
}

/*
 * TIOCGPTN: the number of a pty the guest made (pty.c), which the host
 * gives out, and which ptsname() makes the path of its slave. The replay's
 * pty may have another number; the guest must open that one, so the
 * replay's answer stands. A guest that shows the number shows another one
 * in such a replay, and diverges there (docs/record-replay.md).
 */
static int pty_number(const struct rec_call *c)
{
	return c->nr == SYS_ioctl && (unsigned)c->args[1] == TIOCGPTN;
}

/*
 * FIONBIO and FIOASYNC set a status flag of the open file, which the guest
 * can read back with fcntl(F_GETFL), a call no mode stops: so a replay
 * makes them on a descriptor from outside too, as the recording did,
 * rather than answer them from the log and leave the flag as it was.
 * (node sets its stdout pipe non-blocking with FIONBIO and, at its exit,
 * compares the flags with those it started with: a replay whose pipe
 * kept its flags took the other way, and diverged at the next call.)
 */
static int sets_status_flag(const struct rec_call *c)
{
	return c->nr == SYS_ioctl &&
	       ((unsigned)c->args[1] == FIONBIO || (unsigned)c->args[1] == FIOASYNC);
}

void rec_hidden_entry(struct rec *r, struct task *t, const struct rec_syscall *row)
{
	struct rec_call *c = &t->call;

	if (row->sent != SENT_NONE) {
		t->sends_out = rec_fd_to_outside(r, t->tid, (int)c->args[0]);
		if (!t->sends_out && !t->retrying) {
			/* To the guest itself: nothing to keep, no exit to see. */
			rec_resume(t, RESUME_CONT, 0);
			return;
		}
		if (r->opts->mode == REC_MODE_REPLAY && t->sends_out) {
			/* Others' events come first in the log: it waited in the
			 * recording (a full buffer, a slow reader), and waits
			 * here until the log says it returned. */
			if (rec_replay_not_next(r, t)) {
				not_yet(t, row);
				return;
			}
			/* The host's network (--network=host): not sent again.
			 * Its reader, the guest's own or a host's, is not there
			 * to drain it in a replay, whose reads of it the log
			 * answers; a send that filled its buffer would wait for
			 * ever. */
			if (rec_fd_network(r, t->tid, (int)c->args[0])) {
				t->sends_out = 0; /* no exit to see */
				answer(r, t, row, t->retrying);
				return;
			}
		}
	}
	if (rec_fs_answered(c->nr) || rec_fs_runs(c->nr)) {
		/* The file system (fsstate.c): a look is answered from the log;
		 * a change runs in the replay's view, its result the log's. */
		rec_fs_entry(r, t, c);
		if (c->nr == SYS_execve || c->nr == SYS_execveat) {
			const struct rec_debugger *dbg = r->opts->debugger;
			struct rec_dbg_ticks tk = { t->tick_count, t->event_ticks };

			/* Noted; ptrace's exec event does the rest. `hermit run`
			 * makes no stop here: none happened, as far as ticks,
			 * time and the guest's counter go. */
			rec_ticks_unstop(r, t);
			t->parked_keep = 0;
			/* A debugger going back across the exec stops here, in
			 * the program before it (replayer/seek.c). */
			if (dbg && r->dbg_started && dbg->before_exec &&
			    dbg->before_exec(dbg->ctx, t->tid, t->tgid, t->index, &tk) &&
			    rec_debug_stop(r, t) < 0)
				return; /* the run ends here */
			tracer_cont(t->tid, 0);
			return;
		}
		/* Without namespaces there is no private view: a change would
		 * be made to the host's files. */
		if (r->opts->mode == REC_MODE_REPLAY &&
		    (rec_fs_answered(c->nr) || (!r->opts->namespaces && c->nr != SYS_chdir))) {
			answer(r, t, row, 0);
			return;
		}
		/* A checkpoint made before would see the change (checkpoint.c). */
		if (r->opts->debugger && c->nr != SYS_chdir)
			rec_cp_files_written(r);
		t->pending = row;
		t->hidden = 1;
		rec_resume(t, RESUME_SYSCALL, 0);
		return;
	}
	if (row->out == OUT_XFER) {
		if (r->opts->mode == REC_MODE_RECORD) {
			rec_xfer_entry(t, c);
		} else if (rec_xfer_emulates(r, t, c)) {
			/* skipped: its exit puts the recorded bytes in place */
			c->regs.orig_rax = (uint64_t)-1;
			tracer_set_regs(t->tid, &c->regs);
			t->xfer_emulated = 1;
			if (r->opts->debugger)
				rec_cp_files_written(r); /* it may write a file */
		}
		t->pending = row;
		t->hidden = 1;
		rec_resume(t, RESUME_SYSCALL, 0);
		return;
	}
	if (r->opts->mode == REC_MODE_REPLAY && row->out != OUT_NONE &&
	    (t->early ||
	     (rec_fd_from_outside(r, t->tid, (int)c->args[0]) && !sets_status_flag(c)))) {
		if (rec_replay_not_next(r, t)) {
			not_yet(t, row);
			return;
		}
		t->early = 0;
		answer(r, t, row, t->retrying);
		return;
	}
	if (r->opts->mode == REC_MODE_REPLAY && row->out == OUT_RET)
		clamp_read(r, t, c);
	t->pending = row;
	t->hidden = 1;
	rec_resume(t, RESUME_SYSCALL, 0);
}

void rec_hidden_exit(struct rec *r, struct task *t, const struct rec_syscall *row)
{
	struct rec_call *c = &t->call;
	struct user_regs_struct regs;
	const struct rec_event_record *ev;
	const unsigned char *p;
	size_t n;

	t->hidden = 0;
	t->due_since = 0;
	if (tracer_get_regs(t->tid, &regs) < 0)
		return;
	if (row->sent != SENT_NONE) {
		c->ret = (long)regs.rax;
		if (t->sends_out)
			log_output(r, t, row, c);
		t->sends_out = 0;
		return;
	}
	/* It mends what the kernel told of the host, before a log keeps it
	 * (a replay then writes the recorded output over it). */
	if (row->exit) {
		c->ret = (long)regs.rax;
		row->exit(r, t, c);
	}
	if (row->out == OUT_NONE) {
		if (c->nr != SYS_mmap)
			return;
		rec_preempt_mapped(r, t, c, (long)regs.rax);
		/* mmap of a file: keep a copy of it. */
		if (r->opts->mode == REC_MODE_RECORD && (int)c->args[4] >= 0 &&
		    (long)regs.rax >= 0 && (long)regs.rax > -4096L) {
			char path[4096];

			if (tracer_fd_target(t->tid, (int)c->args[4], path, sizeof(path)) == 0) {
				rec_files_add(r->opts->files, path);
				if (c->args[3] & MAP_SHARED)
					rec_shared_note(r, path);
			}
		}
		return;
	}
	if (r->opts->mode == REC_MODE_RUN)
		return; /* a HIDDEN_ALWAYS row: its exit handler was all */
	c->ret = (long)regs.rax;
	if (r->opts->mode == REC_MODE_RECORD) {
		hm_buf_reset(&r->payload);
		read_output(t, row, c, c->ret, &r->payload);
		log_input(r, t, c);
		rec_fs_exit(r, t, c);
		if (c->nr == SYS_ioctl && c->ret >= 0 && rec_ioctl_out(c->args[1]) < 0 &&
		    !r->ioctl_warned && rec_fd_from_outside(r, t->tid, (int)c->args[0])) {
			hm_warn("ioctl request 0x%x on descriptor %d (outside the guest) writes "
				"what its number does not size: a replay of this recording "
				"stops there",
				(unsigned)c->args[1], (int)c->args[0]);
			r->ioctl_warned = 1;
		}
	} else if (recorded(r, t, c, REC_EV_INPUT, &ev, &p, &n)) {
		if (row->out != OUT_XFER && !pty_number(c))
			write_output(r, t, row, c, p, n);
		else if (t->xfer_emulated && r->opts->replay && r->opts->replay->transfer)
			r->opts->replay->transfer(r->opts->replay->ctx, t->tid, c->nr, c->args,
						  (long)REC_EV_RET(ev), p, n);
		t->xfer_emulated = 0;
		if ((long)REC_EV_RET(ev) != c->ret && rec_fs_runs(c->nr)) {
			hm_debug("task %d: %s returned %ld in the replay's view, %ld in the "
				 "recording: the recording's result stands",
				 t->index, row->name, c->ret, (long)REC_EV_RET(ev));
			if (r->opts->replay && r->opts->replay->fs_result)
				r->opts->replay->fs_result(r->opts->replay->ctx, t->tid, c->nr,
							   c->args, c->ret, (long)REC_EV_RET(ev));
		}
		if ((long)REC_EV_RET(ev) != c->ret) {
			regs.rax = (uint64_t)REC_EV_RET(ev);
			tracer_set_regs(t->tid, &regs);
		}
		r->opts->source->take(r->opts->source->ctx);
		r->frames++;
	}
}

void rec_diverged(struct rec *r, const struct rec_event_record *want,
		  const struct rec_event_record *got, const char *why)
{
	char a[256], b[256];

	if (r->diverged)
		return;
	r->diverged = 1;
	if (r->running && hm_log_enabled(HM_LOG_DEBUG)) {
		/* Where its memory was: a layout that differs shows here. */
		char path[64], line[512];
		FILE *maps;

		snprintf(path, sizeof(path), "/proc/%d/maps", r->running->tid);
		maps = fopen(path, "re");
		while (maps && fgets(line, sizeof(line), maps)) {
			line[strcspn(line, "\n")] = 0;
			hm_debug("task %d: %s", r->running->index, line);
		}
		if (maps)
			fclose(maps);
	}
	rec_event_describe(got, b, sizeof(b));
	if (want) {
		/* The same call with the same result, other bytes sent out. */
		int output = REC_EV_OUT(want) != REC_EV_OUT(got) &&
			     memcmp(want->fields, got->fields, 11 * sizeof(int64_t)) == 0;

		rec_event_describe(want, a, sizeof(a));
		hm_error(
			"replay diverged at event %llu: %sthe recording has %s, the replay made %s",
			(unsigned long long)r->frames, output ? "the output differs: " : "", a, b);
	} else if (why) {
		hm_error("replay stopped at event %llu: %s (the replay made %s)",
			 (unsigned long long)r->frames, why, b);
	} else {
		/* A recording cut short (its recorder was killed): not a divergence,
		 * but the replay cannot go on (docs/record-replay.md). */
		hm_error("replay stopped at event %llu: the recording ends there (it is "
			 "incomplete); the replay went on to %s",
			 (unsigned long long)r->frames, b);
		rec_end_run(r, HM_EXIT_INTERNAL);
		return;
	}
	rec_end_run(r, HM_EXIT_DIVERGED);
}
