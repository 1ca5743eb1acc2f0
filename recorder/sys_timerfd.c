/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * timerfd on the virtual clock. The guest gets a real timerfd (so poll,
 * epoll and close work on a real descriptor), moved to a number >= 512 so
 * that its reads stop (sys_random.c). The kernel's timer is never armed
 * by the guest: timerfd_settime and timerfd_gettime are answered here, the
 * scheduler fires the timer when virtual time reaches it, and a read
 * returns the expirations counted on the virtual clock (fs/timerfd.c
 * semantics: 8 bytes, EAGAIN when none and O_NONBLOCK, EINVAL for a short
 * buffer). So that poll and epoll see a fired timer as readable, the
 * tracer arms the kernel's timer for 1 ns through a duplicate of the
 * descriptor (pidfd_getfd) and waits until it has fired; a read drains it.
 * Known gap: a process forked after timerfd_create reads the kernel's
 * timer, which never fires.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "common/common.h"
#include "internal.h"

static int is_timerfd(pid_t tid, int fd)
{
	char target[64];

	return tracer_fd_target(tid, fd, target, sizeof(target)) == 0 &&
	       strcmp(target, "anon_inode:[timerfd]") == 0;
}

static struct rec_timer *tfd_find(struct rec *r, struct task *t, int fd)
{
	for (size_t i = 0; i < r->ntimers; i++) {
		struct rec_timer *tm = &r->timers[i];

		if (tm->kind == REC_TIMER_FD && tm->tgid == t->tgid && tm->id == fd)
			return is_timerfd(t->tid, fd) ? tm : NULL;
	}
	return NULL;
}

int rec_dup_guest_fd(pid_t tgid, int fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, tgid, 0), dup;

	if (pidfd < 0)
		return -errno;
	dup = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (dup < 0)
		dup = -errno;
	close(pidfd);
	return dup;
}

/* Make the kernel's timer readable (ARM) or not, for poll and epoll. */
static void kernel_ready(struct rec_timer *tm, int arm)
{
	struct itimerspec its;
	struct pollfd p;
	uint64_t ticks;
	int fd = rec_dup_guest_fd(tm->tgid, tm->id);

	if (fd < 0)
		return;
	p.fd = fd;
	p.events = POLLIN;
	if (arm) {
		memset(&its, 0, sizeof(its));
		its.it_value.tv_nsec = 1;
		if (timerfd_settime(fd, 0, &its, NULL) == 0)
			poll(&p, 1, 1000); /* it fires within microseconds */
	} else if (poll(&p, 1, 0) == 1) {
		if (read(fd, &ticks, sizeof(ticks)) < 0)
			hm_debug("cannot drain a timerfd: %s", hm_strerror(errno));
	}
	close(fd);
}

enum rec_action rec_sys_timerfd_create(struct rec *r, struct task *t, struct rec_call *c)
{
	(void)r;
	(void)t;
	(void)c;
	return REC_EXIT_STOP;
}

void rec_sys_timerfd_create_exit(struct rec *r, struct task *t, struct rec_call *c)
{
	struct rec_timer *tm;

	if (c->ret < 0)
		return;
	c->ret = rec_fd_move_high(r, t, c->ret, (int)c->args[1] & TFD_CLOEXEC);
	if (c->ret < REC_RANDOM_FD_MIN)
		return;
	for (size_t i = 0; i < r->ntimers; i++) {
		if (r->timers[i].kind == REC_TIMER_FD && r->timers[i].tgid == t->tgid &&
		    r->timers[i].id == (int)c->ret) {
			r->timers[i].kind = REC_TIMER_GONE;
			r->timers[i].deadline = -1;
		}
	}
	r->timers = xrealloc(r->timers, (r->ntimers + 1) * sizeof(*r->timers));
	tm = &r->timers[r->ntimers++];
	memset(tm, 0, sizeof(*tm));
	tm->tgid = t->tgid;
	tm->kind = REC_TIMER_FD;
	tm->id = (int)c->ret;
	tm->clockid = (long)(int)c->args[0];
	tm->deadline = -1;
}

enum rec_action rec_sys_timerfd_settime(struct rec *r, struct task *t, struct rec_call *c)
{
	struct rec_timer *tm = tfd_find(r, t, (int)c->args[0]);
	uint64_t unread;

	if (!tm)
		return REC_CONT;
	unread = tm->count;
	c->ret =
		rec_timer_settime(r, t, tm, c->args[1] & TFD_TIMER_ABSTIME, c->args[2], c->args[3]);
	if (c->ret == 0) {
		/* Setting the timer forgets expirations not read (timerfd_setup). */
		if (unread)
			kernel_ready(tm, 0);
		tm->count = 0;
	}
	return REC_EMULATED;
}

enum rec_action rec_sys_timerfd_gettime(struct rec *r, struct task *t, struct rec_call *c)
{
	struct rec_timer *tm = tfd_find(r, t, (int)c->args[0]);
	struct itimerspec v;

	if (!tm)
		return REC_CONT;
	v = rec_timer_current(r, tm);
	return rec_reply_mem(t, c, c->args[1], &v, sizeof(v), 0);
}

static int nonblocking(pid_t tid, int fd)
{
	char path[64], line[128];
	unsigned flags = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", tid, fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		sscanf(line, "flags: %o", &flags);
	fclose(f);
	return (flags & O_NONBLOCK) != 0;
}

/* Hand the expirations counted so far to reader T: 8 bytes at BUF. */
static long deliver(struct rec_timer *tm, struct task *t, uint64_t buf)
{
	long ret = tracer_write_mem(t->tid, buf, &tm->count, sizeof(tm->count)) < 0 ? -EFAULT : 8;

	if (ret == 8) {
		tm->count = 0;
		kernel_ready(tm, 0);
	}
	return ret;
}

enum rec_action rec_timerfd_read(struct rec *r, struct task *t, struct rec_call *c)
{
	struct rec_timer *tm;

	if (c->nr != SYS_read || !(tm = tfd_find(r, t, (int)c->args[0])))
		return REC_CONT;
	if (c->args[2] < sizeof(uint64_t)) {
		c->ret = -EINVAL;
		return REC_EMULATED;
	}
	if (tm->count) {
		c->ret = deliver(tm, t, c->args[1]);
		return REC_EMULATED;
	}
	if (nonblocking(t->tid, (int)c->args[0])) {
		c->ret = -EAGAIN;
		return REC_EMULATED;
	}
	t->poll_arg = c->args[1];
	t->futex_addr = (uint64_t)tm->id;
	rec_block(r, t, WAIT_TIMERFD, -1);
	return REC_BLOCKED;
}

void rec_timerfd_fire(struct rec *r, struct rec_timer *tm)
{
	int64_t now = r->clock.now_ns;
	struct task *reader = NULL;

	/* Closed under us (hermit does not see close): forget it. */
	if (!is_timerfd(tm->tgid, tm->id)) {
		tm->kind = REC_TIMER_GONE;
		tm->deadline = -1;
		return;
	}
	/* Every period that has passed is one expiration (timerfd_tmrproc and
	 * hrtimer_forward), counted at once, not period by period. */
	if (tm->interval) {
		uint64_t k = (uint64_t)(now - tm->deadline) / (uint64_t)tm->interval + 1;

		tm->count += k;
		tm->deadline += (int64_t)k * tm->interval;
	} else {
		tm->count++;
		tm->deadline = -1;
	}
	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *w = r->tasks[i];

		if (w->state == TASK_WAITING && w->wait == WAIT_TIMERFD && w->tgid == tm->tgid &&
		    (int)w->futex_addr == tm->id && (!reader || w->wait_seq < reader->wait_seq))
			reader = w;
	}
	if (reader) {
		rec_wake(r, reader, deliver(tm, reader, reader->poll_arg));
		return;
	}
	kernel_ready(tm, 1);
}
