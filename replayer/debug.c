/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay under gdb (DESIGN.md "Debugging faces", "Replay"). The replay
 * runs in the recorder's loop; when it stops for the debugger (the first
 * instruction, a breakpoint or watchpoint, a finished step, an event a
 * seek asked for), rec_debugger.stopped() serves gdb's packets through
 * gdbstub/ until gdb resumes. Resuming returns to the loop; the stop reply
 * goes out at the next stop (rsp_session_stopped).
 *
 * The session's state is struct dbg (internal.h). This file talks to gdb:
 * the session loop, the stop replies and the target ops gdbstub/ calls.
 * Where a replay is and how it gets to a position gdb asks for are in
 * seek.c, the breakpoints in breakpoints.c, the watchpoints in watch.c.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/user.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "internal.h"
#include "tracer/tracer.h"

/* ---- memory and registers ---- */

static pid_t host_tid(struct dbg *d, int vtid)
{
	for (size_t i = 0; d->stop && i < d->stop->nthreads; i++) {
		if (d->stop->threads[i].vtid == vtid)
			return d->stop->threads[i].tid;
	}
	return 0;
}

int replay_dbg_vtid_of(const struct rec_dbg_stop *st)
{
	for (size_t i = 0; i < st->nthreads; i++) {
		if (st->threads[i].tid == st->tid)
			return st->threads[i].vtid;
	}
	return 0;
}

uint64_t replay_dbg_ticks_of(const struct rec_dbg_stop *st)
{
	for (size_t i = 0; i < st->nthreads; i++) {
		if (st->threads[i].tid == st->tid)
			return st->threads[i].ticks;
	}
	return 0;
}

uint64_t replay_dbg_pc_of(pid_t tid)
{
	struct user_regs_struct r;

	return tracer_get_regs(tid, &r) == 0 ? r.rip : 0;
}

/* The full x87 tag word (two bits a register: 0 valid, 1 zero, 2 special,
 * 3 empty) from fxsave's abridged one (a bit a register: not empty) and
 * the registers' contents (Intel SDM vol. 1, 10.5.1.1). */
static uint16_t full_tag(const struct user_fpregs_struct *fp)
{
	unsigned top = (fp->swd >> 11) & 7;
	uint16_t tag = 0;

	for (unsigned p = 0; p < 8; p++) {
		/* physical register p is st((p - top) mod 8) */
		const uint8_t *st = (const uint8_t *)fp->st_space + 16 * ((p - top) & 7);
		unsigned exp = (st[8] | (unsigned)st[9] << 8) & 0x7fff, t;
		int zero = 1;

		for (int i = 0; i < 8; i++)
			zero = zero && !st[i];
		if (!(fp->ftw & (1u << p)))
			t = 3;
		else if (exp == 0x7fff)
			t = 2;
		else if (exp == 0)
			t = zero ? 1 : 2;
		else
			t = (st[7] & 0x80) ? 0 : 2;
		tag |= (uint16_t)(t << (2 * p));
	}
	return tag;
}

/*
 * The x87, SSE and AVX registers of task H into V (those of 8 bytes or
 * fewer) and BUF (st0-7, xmm0-15, ymm0h-15h), as gdb's amd64 layout has
 * them, from its xsave area (ptrace's standard layout): fxsave's 512 bytes
 * first, XSTATE_BV at 512, the AVX component at 576 (zeros while XSTATE_BV
 * says it is in its initial state, or the host has no AVX).
 */
static int read_fp(pid_t h, uint64_t *v, uint8_t *buf)
{
	static uint8_t xs[4096];
	const struct user_fpregs_struct *fp = (const struct user_fpregs_struct *)xs;
	size_t len, off, size;
	uint64_t bv;
	uint32_t w;

	if (tracer_get_xstate(h, xs, sizeof(xs), &len) < 0 || len < sizeof(*fp))
		return -1;
	for (int i = 0; i < 8; i++) {
		if (rsp_reg_offset(RSP_REG_ST0 + i, &off, &size) == 0 && size == 10)
			memcpy(buf + off, (const uint8_t *)fp->st_space + 16 * i, 10);
	}
	for (int i = 0; i < 16; i++) {
		if (rsp_reg_offset(RSP_REG_XMM0 + i, &off, &size) == 0 && size == 16)
			memcpy(buf + off, (const uint8_t *)fp->xmm_space + 16 * i, 16);
	}
	v[RSP_REG_FCTRL] = fp->cwd;
	v[RSP_REG_FSTAT] = fp->swd;
	v[RSP_REG_FTAG] = full_tag(fp);
	v[RSP_REG_FOP] = fp->fop & 0x7ff;
	/* the 64-bit fxsave: the instruction pointer at 8, the operand's at
	 * 16, each as offset and segment (its high half) */
	for (int i = 0; i < 4; i++) {
		static const int reg[] = { RSP_REG_FIOFF, RSP_REG_FISEG, RSP_REG_FOOFF,
					   RSP_REG_FOSEG };

		memcpy(&w, xs + 8 + 4 * i, 4);
		v[reg[i]] = w;
	}
	v[RSP_REG_MXCSR] = fp->mxcsr;
	if (len < 576 + 256)
		return 0;
	memcpy(&bv, xs + 512, sizeof(bv));
	for (int i = 0; (bv & 4) && i < 16; i++) {
		if (rsp_reg_offset(RSP_REG_YMM0H + i, &off, &size) == 0 && size == 16)
			memcpy(buf + off, xs + 576 + 16 * i, 16);
	}
	return 0;
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
	/* In a trampoline (a signal came in there): gdb sees the site. */
	tracer_ticks_original_pc(d->tgid, r.rip, &v[RSP_REG_RIP]);
	v[RSP_REG_EFLAGS] = r.eflags, v[RSP_REG_CS] = r.cs, v[RSP_REG_SS] = r.ss;
	v[RSP_REG_DS] = r.ds, v[RSP_REG_ES] = r.es, v[RSP_REG_FS] = r.fs, v[RSP_REG_GS] = r.gs;
	v[RSP_REG_ORIG_RAX] = r.orig_rax, v[RSP_REG_FS_BASE] = r.fs_base;
	v[RSP_REG_GS_BASE] = r.gs_base;
	memset(buf, 0, RSP_REGS_SIZE);
	if (read_fp(h, v, buf) < 0) {
		/* as after finit */
		v[RSP_REG_FCTRL] = 0x37f;
		v[RSP_REG_FTAG] = 0xffff;
	}
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

	/* gdb sees its program, not our int3s. */
	if (!d->tgid || replay_dbg_read_code(d, d->tgid, addr, buf, len) < 0)
		return -EFAULT;
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
	return tracer_task_comm(host_tid(t, tid), buf, size) < 0 ? -ESRCH : 0;
}

static int op_set_breakpoint(void *t, int type, uint64_t addr, int kind, int insert)
{
	struct dbg *d = t;
	struct bp *b;

	if (type >= 2) {
		int free_slot = -1;

		for (int i = 0; i < MAX_WPS; i++) {
			if (d->wps[i].type == type && d->wps[i].addr == addr) {
				if (!insert)
					d->wps[i].type = 0;
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
		d->wps[free_slot].gen = d->gen;
		return 0;
	}
	b = replay_dbg_bp_find(d, addr);
	/* gdb's breakpoints are for the program it has loaded: where the
	 * replay is in another (gdb without exec events, after an exec;
	 * `monitor goto` or `run` back before one), an int3 at its address
	 * would land in the middle of this program's instructions. */
	if (insert && d->gen != d->gdb_gen)
		return -EFAULT;
	if (insert) {
		if (b && b->internal) {
			b->internal = 0; /* gdb's now, its hits not all known */
			b->whole = 0;
			b->known = 0;
		} else if (b && b->removed) {
			/* Put back with only single steps since it was taken out
			 * (gdb steps off a breakpoint that way): none missed. */
			b->whole = b->whole && b->removed_at == d->conts;
			b->known = b->known && b->removed_at == d->conts;
			b->removed = 0;
		} else if (!b) {
			if (d->nbps == MAX_BPS)
				return -ENOSPC;
			b = &d->bps[d->nbps++];
			memset(b, 0, sizeof(*b));
			b->addr = addr;
			b->gen = d->gen;
			/* Set before anything ran: none of its hits can be missing. */
			b->whole = d->cur.anchor == AT_START && d->cur.steps == 0;
		}
		replay_dbg_insert_bps(d);
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

/*
 * vFile: the files the recording kept, from their copies, read-only
 * (gdb reads the program and its libraries; nothing else of the host is
 * the stub's to show). A path names a kept file as the guest opened it or
 * through the host's symbolic links (gdb asks for /lib/... where the
 * recording kept /usr/lib/...); so are a few of the debugged process's
 * /proc files (below). Only descriptors opened here are read or closed.
 */
static int file_slot(struct dbg *d, int fd)
{
	for (int i = 0; i < (int)(sizeof(d->files) / sizeof(d->files[0])); i++) {
		if (d->files[i] == fd + 1)
			return i;
	}
	return -1;
}

static const char *kept_copy(const struct replay_recording *rc, const char *path)
{
	char *real = realpath(path, NULL);
	const char *copy = NULL;

	for (size_t i = 0; rc->binds && rc->binds[i] && rc->binds[i + 1] && !copy; i += 2) {
		if (strcmp(rc->binds[i + 1], path) == 0 ||
		    (real && strcmp(rc->binds[i + 1], real) == 0))
			copy = rc->binds[i];
	}
	free(real);
	return copy;
}

/* gdb reads the debugged process's own /proc files by the ids the guest
 * sees (linux-tdep.c: maps for the vDSO's range, and `info proc`): those
 * of its threads, as PATH names them, to the host's in HOST. */
static int guest_proc_path(struct dbg *d, const char *path, char *host, size_t size)
{
	static const char *const ok[] = { "maps", "smaps", "cmdline", "stat", "status", "auxv" };
	int pid, tid, n = 0;
	pid_t hp, ht;
	const char *name;

	if (sscanf(path, "/proc/%d/task/%d/%n", &pid, &tid, &n) == 2 && n > 0) {
		name = path + n;
	} else if (sscanf(path, "/proc/%d/%n", &pid, &n) == 1 && n > 0) {
		name = path + n;
		tid = pid;
	} else {
		return -1;
	}
	hp = host_tid(d, pid);
	ht = host_tid(d, tid);
	if (!hp || hp != d->tgid || !ht)
		return -1;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (strcmp(name, ok[i]) == 0) {
			snprintf(host, size, "/proc/%d/task/%d/%s", (int)hp, (int)ht, name);
			return 0;
		}
	}
	return -1;
}

static int op_file_open(void *t, const char *path, int flags, int mode)
{
	struct dbg *d = t;
	const char *copy = kept_copy(d->rc, path);
	char proc[64];
	int slot = file_slot(d, -1), fd; /* (-1: a free slot) */

	(void)mode;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND | O_EXCL)))
		return -EROFS;
	if (!copy && guest_proc_path(d, path, proc, sizeof(proc)) == 0)
		copy = proc;
	if (!copy)
		return -EACCES;
	if (slot < 0)
		return -EMFILE;
	fd = open(copy, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d->files[slot] = fd + 1;
	return fd;
}

static int op_file_pread(void *t, int fd, uint8_t *buf, size_t len, uint64_t off)
{
	ssize_t n;

	if (file_slot(t, fd) < 0)
		return -EBADF;
	n = pread(fd, buf, len, (off_t)off);
	return n < 0 ? -errno : (int)n;
}

static int op_file_close(void *t, int fd)
{
	struct dbg *d = t;
	int slot = file_slot(d, fd);

	if (slot < 0)
		return -EBADF;
	d->files[slot] = 0;
	return close(fd) < 0 ? -errno : 0;
}

static int op_monitor(void *t, const char *cmd, char *out, size_t size)
{
	struct dbg *d = t;
	char where[160];
	unsigned long long n;

	if (strcmp(cmd, "when") == 0) {
		replay_dbg_when(d, where, sizeof(where));
		snprintf(out, size, "%s (%" PRIu64 " events replayed)\n", where, d->frames);
		return 0;
	}
	if (strcmp(cmd, "checkpoints") == 0) {
		replay_cp_describe(d, out, size);
		return 0;
	}
	if (strncmp(cmd, "goto", 4) == 0 && (cmd[4] == ' ' || !cmd[4])) {
		const char *arg = cmd + 4 + strspn(cmd + 4, " ");
		unsigned long long last = d->rc->last_event;
		struct pos p = { .anchor = AT_EVENT };
		char *end;

		errno = 0;
		n = strtoull(arg, &end, 10);
		if (!isdigit((unsigned char)arg[0]) || end[strspn(end, " ")] || errno) {
			snprintf(out, size,
				 "hermit: cannot go to event '%s': not an event (0 to %llu)\n", arg,
				 last);
			return -EINVAL;
		}
		if (n > last) {
			snprintf(out, size,
				 "hermit: cannot go to event %llu: the recording ends at %llu\n", n,
				 last);
			return -EINVAL;
		}
		/* (the end is a stop of its own, before the exit's event) */
		p.anchor = n == last && d->rc->last_is_end ? AT_EXIT : n ? AT_EVENT : AT_START;
		p.frames = n;
		replay_dbg_seek(d, TO_POS, &p);
		d->requested = 1;
		d->how = RSP_RESUME_CONT; /* no reply owed: the stop is reported by the next '?' */
		snprintf(out, size,
			 "going to event %llu (a gdb that hermit replay did not start sees it "
			 "after 'maintenance flush register-cache')\n",
			 n);
		return 0;
	}
	snprintf(out, size,
		 "hermit monitor commands:\n  when         where the replay is\n"
		 "  goto N       go to event N, 0 to %llu (forwards or backwards)\n"
		 "  checkpoints  the events reverse execution starts from\n",
		 (unsigned long long)d->rc->last_event);
	return 0;
}

static void op_interrupt(void *t)
{
	struct dbg *d = t;

	d->interrupt = 1;
}

static int op_restart(void *t, struct rsp_stop *stop)
{
	struct dbg *d = t;
	struct pos start = { .anchor = AT_START, .frames = 0 };

	(void)stop;
	/* (gdb reads exec-file at `run` and loads the first program again,
	 * unless `set exec-file-mismatch off`) */
	d->gdb_gen = 0;
	replay_dbg_seek(d, TO_POS, &start);
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

	/* Nothing runs while gdb has the floor: no block watch. */
	tracer_blockwatch_hold(1);
	d->requested = 0;
	while (!d->requested && !d->quit) {
		ssize_t n = recv(d->fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || rsp_session_input(d->rsp, buf, (size_t)n) != 0)
			d->quit = 1;
	}
	tracer_blockwatch_hold(0);
}

/* While the replay runs (a continue, a seek), without waiting: 1 when it
 * should stop now, because gdb sent Ctrl-C (a 0x03 next on the connection,
 * taken; one that came with the resume's packet set d->interrupt already),
 * or because gdb is gone (d->quit). Packets stay where they are: gdb goes
 * on talking after a `monitor goto`, whose seek answers them when done. */
int replay_dbg_interrupted_now(struct dbg *d)
{
	uint8_t c;
	ssize_t n;

	if (d->interrupt || d->quit)
		return 1;
	if (d->fd < 0)
		return 0; /* (not connected yet: nothing to hear) */
	n = recv(d->fd, &c, 1, MSG_DONTWAIT | MSG_PEEK);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
		d->quit = 1;
	else if (n == 1 && c == 0x03 && recv(d->fd, &c, 1, MSG_DONTWAIT) == 1)
		d->interrupt = 1;
	return d->interrupt || d->quit;
}

/* The same at most once a millisecond (PEEK_NS): it is asked at every
 * event and every step, and a recv there was one syscall more per event,
 * next to the seven of replaying it (docs/gdb.md "Speed of going back").
 * The clock is the vDSO's: hermit itself runs untraced. */
#define PEEK_NS 1000000

int replay_dbg_interrupted(struct dbg *d)
{
	struct timespec ts;
	uint64_t now;

	if (d->interrupt || d->quit)
		return 1;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0) {
		now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		if (d->peeked_ns && now - d->peeked_ns < PEEK_NS)
			return 0;
		d->peeked_ns = now;
	}
	return replay_dbg_interrupted_now(d);
}

static void reply_stop(struct dbg *d, int vtid)
{
	/* (SIGINT, 2 in gdb's numbering too, when Ctrl-C stopped it) */
	struct rsp_stop st = { .kind = RSP_STOP_SIGNAL, .sig = d->sigint ? 2 : 5, .tid = vtid };

	if (d->begin)
		st.kind = RSP_STOP_REPLAY_BEGIN;
	else if (d->cur.anchor == AT_EXIT && !d->cur.steps)
		st.kind = RSP_STOP_REPLAY_END;
	if (st.kind != RSP_STOP_SIGNAL)
		st.sig = 5; /* an end of history, Ctrl-C or not */
	st.reason = d->reason;
	/* A breakpoint passed on the way (a seek's silent part) is no reason
	 * for a stop that is not at a hit: a step's stop has none. */
	if (st.reason == RSP_REASON_SWBREAK &&
	    !(d->cur.anchor == AT_TRAP && !d->cur.steps && replay_dbg_bp_at(d, d->cur.pc)))
		st.reason = RSP_REASON_NONE;
	st.watch_addr = d->watch_addr;
	if (st.reason == RSP_REASON_EXEC && d->owe_reply && rsp_session_exec_events(d->rsp)) {
		d->gdb_gen = d->gen; /* gdb loads the new program (or, back, the old) */
		if (d->cur.anchor == AT_PRE_EXEC)
			replay_dbg_back_exec_bps(d);
	}
	if (d->owe_reply)
		rsp_session_stopped(d->rsp, &st);
	else
		rsp_session_note_stop(d->rsp, &st); /* `monitor goto`'s: for '?' */
	d->owe_reply = 0;
	d->begin = 0;
	d->sigint = 0;
}

/* The stop is the current position now: talk to gdb, decide how to go on. */
enum rec_dbg_go replay_dbg_live_stop(struct dbg *d, const struct rec_dbg_stop *st)
{
	pid_t tid = st->tid;

	d->mode = LIVE;
	d->interrupt = 0; /* any stop answers a Ctrl-C */
	replay_dbg_target_bp(d, 0);
	replay_dbg_insert_bps(d);
	if (d->arrive_reason) {
		/* a reverse-continue that found a write stops before it */
		d->reason = d->arrive_reason;
		d->watch_addr = d->arrive_addr;
		d->arrive_reason = 0;
		replay_dbg_watch_snapshot(d);
	}
	reply_stop(d, replay_dbg_vtid_of(st));
	d->reason = RSP_REASON_NONE;
	serve(d);
	if (d->quit)
		return REC_DBG_KILL;
	if (d->rerun)
		return REC_DBG_KILL;
	switch (d->how) {
	case RSP_RESUME_REVERSE_CONT:
	case RSP_RESUME_REVERSE_STEP:
		replay_dbg_plan_reverse(d);
		return REC_DBG_KILL;
	case RSP_RESUME_STEP:
		/* A step over an access to a watched location reports it, as
		 * a debug register's trap would. */
		if (replay_dbg_watching(d)) {
			replay_dbg_watch_snapshot(d);
			replay_dbg_watch_ahead(d, tid, NULL);
		}
		return replay_dbg_go_on(d, tid, 1);
	case RSP_RESUME_CONT:
		break;
	}
	/* What gdb took out and did not put back for a continue is gone. */
	replay_dbg_purge_bps(d);
	d->conts++;
	if (replay_dbg_watching(d)) {
		replay_dbg_watch_snapshot(d);
		replay_dbg_remove_bps(d); /* steps check them by address */
		d->wstep = 1;
		replay_dbg_watch_ahead(d, tid, NULL);
		return REC_DBG_STEP;
	}
	return replay_dbg_go_on(d, tid, 0);
}

/* ---- the session: replays until gdb leaves ---- */

/* The first connection on LISTEN_FD from this process's user: another
 * user's is closed unserved (its gdb sees the connection end), with a
 * line, and the wait goes on. The descriptor, or -1 after a message (none
 * when the socket was shut). */
static int accept_owner(int listen_fd)
{
	for (;;) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC), err;
		uid_t uid;

		if (fd < 0 && errno == EINTR)
			continue;
		if (fd < 0 && errno == EINVAL)
			return -1; /* shut: the gdb `hermit replay` started ended */
		if (fd < 0) {
			hm_error("cannot accept gdb's connection: %s", hm_strerror(errno));
			return -1;
		}
		err = replay_peer_uid(fd, &uid);
		if (err == 0 && uid == getuid())
			return fd;
		if (err)
			hm_error("cannot serve a connection: its owner is not known (%s)",
				 hm_strerror(err));
		else
			hm_error("cannot serve a connection from uid %u: the replay is uid %u's",
				 (unsigned)uid, (unsigned)getuid());
		close(fd);
	}
}

/* Once: tell `hermit replay` that the replay is ready (it prints the
 * command or starts gdb then), and accept gdb. 0, or -1 (d->quit set)
 * when no gdb came (`hermit replay` shuts the listening socket when the
 * gdb it started ended first). */
int replay_dbg_connect(struct dbg *d)
{
	struct replay_news news = { REPLAY_NEWS_READY, 0 };

	if (d->fd >= 0)
		return 0;
	if (d->news_fd >= 0)
		hm_write_all(d->news_fd, &news, sizeof(news));
	d->fd = accept_owner(d->listen_fd);
	if (d->fd < 0) {
		d->quit = 1;
		return -1;
	}
	news = (struct replay_news){ REPLAY_NEWS_SERVER, (int)getpid() }; /* it serves */
	if (d->news_fd >= 0)
		hm_write_all(d->news_fd, &news, sizeof(news));
	return 0;
}

int replay_debug(struct replay_recording *rc, int listen_fd, struct rec_source *source,
		 int (*reopen)(void *ctx), void *reopen_ctx, int life_fd, int news_fd)
{
	struct dbg d;
	struct rec_debugger hooks = { &d,
				      replay_dbg_stopped,
				      replay_dbg_trap,
				      replay_dbg_at_event,
				      replay_dbg_at_start,
				      replay_dbg_at_exit,
				      replay_dbg_checkpoint,
				      replay_dbg_no_checkpoints,
				      replay_dbg_tick_stop,
				      replay_dbg_at_tick,
				      replay_dbg_at_exec,
				      replay_dbg_before_exec };
	int runs = 0, status = 0;

	memset(&d, 0, sizeof(d));
	d.rc = rc;
	replay_cp_init(&d, life_fd, news_fd);
	d.fd = -1; /* accepted at the program's first instruction */
	d.listen_fd = listen_fd;
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
		.interrupt = op_interrupt,
		/* (no kill: at k or vKill the guest stays where it is, and
		 * the stub ends the session or, in extended mode, gdb may run
		 * again or leave; the next replay or the end ends it) */
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
		replay_cp_drop_all(&d); /* their copies ended with the run */
		if (err)
			break;
		if (d.quit || d.rerun)
			continue;
		if (d.mode == SCAN) {
			/* The target was the end: the last hit of the whole replay. */
			replay_dbg_finish_scan(&d, 0);
			continue;
		}
		/* The recording is played out: gdb hears how it ended. */
		status = res.exit_status;
		if (replay_dbg_connect(&d) < 0) /* (it ended before it began) */
			break;
		{
			struct rsp_stop st = { .kind = RSP_STOP_EXITED, .status = status & 0xff };

			if (d.owe_reply)
				rsp_session_stopped(d.rsp, &st);
			d.owe_reply = 0;
		}
		d.mode = AT_END;
		replay_dbg_target_bp(&d, 0);
		while (!d.quit && !d.rerun) {
			serve(&d);
			if (d.quit || d.rerun)
				break;
			if (d.how == RSP_RESUME_REVERSE_CONT || d.how == RSP_RESUME_REVERSE_STEP) {
				/* Back from after the end: to its last stop. */
				struct pos end = { .anchor = AT_EXIT, .frames = d.frames };

				replay_dbg_purge_bps(&d);
				if (d.how == RSP_RESUME_REVERSE_STEP)
					replay_dbg_seek(&d, TO_POS, &end);
				else if (replay_dbg_reading(&d))
					replay_dbg_search_reads(&d, &end, 0);
				else if (!replay_dbg_reverse_by_hits(&d))
					replay_dbg_seek(&d, SCAN, &end);
			} else {
				struct rsp_stop st = { .kind = RSP_STOP_EXITED,
						       .status = status & 0xff };

				rsp_session_stopped(d.rsp, &st);
				d.owe_reply = 0;
			}
		}
	}
	rsp_session_free(d.rsp);
	replay_hits_free(&d.hits);
	if (d.fd < 0)
		return HM_EXIT_INTERNAL; /* no gdb came */
	close(d.fd);
	return status;
}
