/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A blocking open(2) of a FIFO (fifo(7)): for reading it waits until a
 * writer has opened the FIFO, for writing until a reader has (fs/pipe.c,
 * fifo_open() and wait_for_partner()). Both ends must be in the kernel at
 * once, and only one guest task runs: a task parked in such an open has
 * left it (the park's interruption makes fifo_open() undo its count), so
 * the other side, opening next, waits in turn, and the two never meet.
 *
 * So the open is made with O_NONBLOCK, and hermit waits for the partner:
 *
 *  - For writing, the non-blocking open fails with ENXIO while there is
 *    no reader. Then the call is wound back and parked, and retried after
 *    something has happened, as a blocked call is.
 *  - For reading, the non-blocking open always succeeds, and it counts as
 *    a reader, so a writer's open succeeds now. The call returns when a
 *    writer is there or has been since it started: the pipe then reads
 *    EAGAIN rather than end of file (tee(2) with SPLICE_F_NONBLOCK looks
 *    without taking bytes), has bytes, or polls POLLHUP (pipe_poll():
 *    no writers, and the writers' count moved since this file opened).
 *    Until then, hermit keeps a duplicate of the first descriptor, which
 *    keeps the reader there, closes the guest's, winds the call back and
 *    parks it; each retry looks at that first file.
 *
 * Once open, the descriptor loses the O_NONBLOCK the guest did not ask
 * for. A handled signal ends the wait as it ends fifo_open()'s: with
 * -ERESTARTSYS (interrupt.c), and what hermit kept is let go, as a
 * restarted open starts afresh. Limit: bytes left in a FIFO by a writer
 * that came and went before this reader opened count as a writer.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/common.h"
#include "internal.h"

/* Where call C keeps its flags: open (path, flags), openat (dirfd, path, flags). */
static uint64_t *flags_reg(struct user_regs_struct *regs, long nr)
{
	return nr == SYS_openat ? (uint64_t *)&regs->rdx : (uint64_t *)&regs->rsi;
}

/* Whether PATH, as task T's call C names it, is a FIFO. */
static int names_fifo(struct task *t, const struct rec_call *c, const char *path)
{
	char full[PATH_MAX + 64];
	struct stat st;
	int dirfd = c->nr == SYS_openat ? (int)c->args[0] : AT_FDCWD;

	if (path[0] == '/')
		snprintf(full, sizeof(full), "/proc/%d/root%s", t->tid, path);
	else if (dirfd == AT_FDCWD)
		snprintf(full, sizeof(full), "/proc/%d/cwd/%s", t->tid, path);
	else
		snprintf(full, sizeof(full), "/proc/%d/fd/%d/%s", t->tid, dirfd, path);
	return stat(full, &st) == 0 && S_ISFIFO(st.st_mode);
}

int rec_fifo_open_entry(struct task *t, struct rec_call *c, const char *path)
{
	uint64_t *reg = flags_reg(&c->regs, c->nr);
	int flags = (int)*reg;

	t->fifo_mode = 0;
	if (c->nr == SYS_creat || (flags & O_NONBLOCK) || (flags & O_PATH) ||
	    ((flags & O_ACCMODE) != O_RDONLY && (flags & O_ACCMODE) != O_WRONLY) ||
	    !names_fifo(t, c, path)) {
		rec_fifo_drop(t);
		return 0;
	}
	t->fifo_mode = (flags & O_ACCMODE) == O_RDONLY ? 'r' : 'w';
	t->fifo_flags = flags;
	*reg = (uint64_t)(flags | O_NONBLOCK);
	tracer_set_regs(t->tid, &c->regs);
	return 1;
}

void rec_fifo_drop(struct task *t)
{
	if (t->fifo_held > 0)
		close(t->fifo_held - 1);
	t->fifo_held = 0;
	t->fifo_waits = 0;
}

/* Whether a writer is on the FIFO that hermit's descriptor FD reads, or has
 * been since that file was opened. */
static int writer_seen(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	int pp[2];
	ssize_t n;

	if (poll(&p, 1, 0) == 1 && (p.revents & POLLHUP))
		return 1;
	if (pipe2(pp, O_CLOEXEC | O_NONBLOCK) < 0)
		return 1;
	n = tee(fd, pp[1], 1, SPLICE_F_NONBLOCK);
	close(pp[0]);
	close(pp[1]);
	/* 0: end of file, no writer; EAGAIN: empty, a writer; or bytes */
	return n != 0;
}

static long inject(struct task *t, long nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
	uint64_t args[6] = { a0, a1, a2 };
	long ret;

	return tracer_inject(t->tid, nr, args, &ret) < 0 ? -EIO : ret;
}

/* The call goes on waiting: wound back onto its syscall instruction and
 * parked, with its own flags again. */
static void wait_more(struct rec *r, struct task *t, struct user_regs_struct *regs)
{
	*flags_reg(regs, t->call.nr) = (uint64_t)t->fifo_flags;
	regs->rip -= 2;
	regs->rax = regs->orig_rax;
	tracer_set_regs(t->tid, regs);
	rec_intr_set(t, regs, t->call.nr, -REC_ERESTARTSYS, 1);
	/* A retry that waits again did nothing (sched.c's rec_park): undo
	 * the progress its exit counted; a first wait follows what ran. */
	if (t->fifo_waits)
		r->progress--;
	else
		r->progress++;
	t->fifo_waits = 1;
	t->parks++;
	t->parked_at = r->progress;
	hm_trace("task %d: its open of a FIFO waits for the other end", t->index);
	rec_set_aside(r, t, TASK_PARKED, RESUME_CONT);
}

int rec_fifo_open_exit(struct rec *r, struct task *t, struct rec_call *c)
{
	struct user_regs_struct regs;
	long fd = c->ret, fl;
	int mode = t->fifo_mode;

	t->fifo_mode = 0;
	if (!mode || tracer_get_regs(t->tid, &regs) < 0)
		return 0;
	if (mode == 'w' && fd == -ENXIO) {
		wait_more(r, t, &regs); /* no reader yet */
		return 1;
	}
	if (fd >= 0 && mode == 'r') {
		int held = t->fifo_held - 1;

		if (held < 0)
			held = rec_dup_guest_fd(t->tgid, (int)fd);
		if (held >= 0 && !writer_seen(held)) {
			t->fifo_held = held + 1;
			inject(t, SYS_close, (uint64_t)fd, 0, 0);
			wait_more(r, t, &regs);
			return 1;
		}
		if (held >= 0 && t->fifo_held == 0)
			close(held);
	}
	rec_fifo_drop(t);
	*flags_reg(&regs, c->nr) = (uint64_t)t->fifo_flags;
	tracer_set_regs(t->tid, &regs);
	if (fd >= 0) {
		fl = inject(t, SYS_fcntl, (uint64_t)fd, F_GETFL, 0);
		if (fl >= 0)
			inject(t, SYS_fcntl, (uint64_t)fd, F_SETFL, (uint64_t)(fl & ~O_NONBLOCK));
	}
	return 0;
}
