/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telling a deadlock from a wait on the outside world, and reporting it.
 *
 * When no guest task can run and none has a deadline, each parked task
 * sleeps in the kernel on something. A wait for a futex, a child, a signal
 * or a pipe whose other end only the guest holds can only end through a
 * guest task, and none can run: that is a deadlock. A wait on a terminal,
 * on a pipe or socket hermit was given (its own stdin, say), on the host
 * network (--network=host) or on anything unknown may end by itself, so
 * it is not called a deadlock.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/common.h"
#include "internal.h"

/* A named pipe: hermit's stdin in a replay may be one. */
static int is_fifo(const char *path)
{
	struct stat st;

	return path[0] == '/' && stat(path, &st) == 0 && S_ISFIFO(st.st_mode);
}

void rec_note_outside(struct rec *r)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char target[128];

		if (e->d_name[0] == '.' ||
		    tracer_fd_target(getpid(), atoi(e->d_name), target, sizeof(target)) < 0)
			continue;
		if (strncmp(target, "pipe:", 5) && strncmp(target, "socket:", 7) &&
		    !is_fifo(target))
			continue;
		r->outside = xrealloc(r->outside, (r->noutside + 1) * sizeof(*r->outside));
		r->outside[r->noutside++] = xstrdup(target);
	}
	closedir(d);
}

void rec_forget_outside(struct rec *r)
{
	for (size_t i = 0; i < r->noutside; i++)
		free(r->outside[i]);
	free(r->outside);
	r->outside = NULL;
	r->noutside = 0;
}

int rec_hermits_own(const struct rec *r, const char *target)
{
	for (size_t i = 0; i < r->noutside; i++) {
		if (strcmp(target, r->outside[i]) == 0)
			return 1;
	}
	return 0;
}

static int fd_outside(const struct rec *r, pid_t tid, int fd)
{
	char target[128];

	if (tracer_fd_target(tid, fd, target, sizeof(target)) < 0)
		return 0; /* closed under it: nothing will come */
	if (rec_hermits_own(r, target))
		return 1;
	if (strncmp(target, "pipe:", 5) == 0 || strcmp(target, "anon_inode:[eventfd]") == 0 ||
	    strcmp(target, "anon_inode:[signalfd]") == 0 ||
	    strcmp(target, "anon_inode:[timerfd]") == 0) /* virtual: sys_timerfd.c */
		return 0;
	if (strncmp(target, "socket:", 7) == 0)
		return r->opts->network_host;
	if (rec_guest_pty(r, tid, fd, target))
		return 0; /* its other end is the guest's */
	/* terminals, inotify, devices, files: may end by themselves */
	return 1;
}

/* Sets larger than this are not looked at. */
#define POLLFDS_MAX 4096

int rec_poll_each(pid_t tid, long nr, const uint64_t args[6], rec_fd_visit visit, void *ctx)
{
	static const short set_events[3] = { POLLIN, POLLOUT, POLLPRI };
	int got = 0;

	switch (nr) {
	case SYS_poll:
	case SYS_ppoll: {
		struct pollfd pfd[64];

		if (args[1] > POLLFDS_MAX)
			return -EFAULT;
		for (uint64_t at = 0; at < args[1] && !got; at += 64) {
			uint64_t k = args[1] - at < 64 ? args[1] - at : 64;

			if (tracer_read_mem(tid, args[0] + at * sizeof(pfd[0]), pfd,
					    k * sizeof(pfd[0])) < 0)
				return -EFAULT;
			for (uint64_t i = 0; i < k && !got; i++) {
				if (pfd[i].fd >= 0)
					got = visit(ctx, pfd[i].fd, pfd[i].events);
			}
		}
		return got;
	}
	case SYS_select:
	case SYS_pselect6: {
		static uint64_t set[REC_SELECT_FDS_MAX / 64];
		int nfds = (int)args[0];
		size_t n = (size_t)(nfds + 63) / 64;

		if (nfds < 0 || nfds > REC_SELECT_FDS_MAX)
			return -EFAULT;
		for (int k = 0; k < 3 && !got; k++) {
			if (!args[k + 1])
				continue;
			/* the kernel reads as many whole longs (fs/select.c) */
			if (tracer_read_mem(tid, args[k + 1], set, n * 8) < 0)
				return -EFAULT;
			for (int fd = 0; fd < nfds && !got; fd++) {
				if (set[fd / 64] >> (fd % 64) & 1)
					got = visit(ctx, fd, set_events[k]);
			}
		}
		return got;
	}
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
	case SYS_epoll_pwait2: {
		/* The descriptors the instance watches, from its fdinfo. */
		char path[64], line[256];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", tid, (int)args[0]);
		f = fopen(path, "re");
		if (!f)
			return -EFAULT;
		while (!got && fgets(line, sizeof(line), f)) {
			int fd;
			unsigned events;

			if (sscanf(line, "tfd: %d events: %x", &fd, &events) == 2)
				got = visit(ctx, fd, (short)events);
		}
		fclose(f);
		return got;
	}
	default:
		return -ENOSYS;
	}
}

struct outside_look {
	const struct rec *r;
	pid_t tid;
	rec_fd_pred pred;
};

static int look_outside(void *ctx, int fd, short events)
{
	struct outside_look *l = ctx;

	(void)events;
	return l->pred(l->r, l->tid, fd);
}

int rec_poll_watches(const struct rec *r, pid_t tid, long nr, const uint64_t args[6],
		     rec_fd_pred pred)
{
	struct outside_look l = { r, tid, pred };
	int got = rec_poll_each(tid, nr, args, look_outside, &l);

	/* a set that cannot be read counts as watching the outside */
	return got == -ENOSYS ? -1 : got != 0;
}

int rec_waits_outside(const struct rec *r, const struct task *t)
{
	uint64_t args[6], pc;
	long nr;

	if (tracer_task_syscall(t->tid, &nr, args, &pc) < 0)
		return 1;
	switch (nr) {
	case SYS_futex:
	case SYS_wait4:
	case SYS_waitid:
	case SYS_pause:
	case SYS_rt_sigsuspend:
	case SYS_rt_sigtimedwait:
	case SYS_flock:
		return 0;
	case SYS_read:
	case SYS_readv:
	case SYS_write:
	case SYS_writev:
	case SYS_recvfrom:
	case SYS_recvmsg:
	case SYS_recvmmsg:
	case SYS_sendto:
	case SYS_sendmsg:
	case SYS_accept:
	case SYS_accept4:
	case SYS_connect:
		return fd_outside(r, t->tid, (int)args[0]);
	default:
		return rec_poll_watches(r, t->tid, nr, args, fd_outside) != 0;
	}
}

/* What a parked task sleeps on, in words. */
static void describe_parked(const struct task *t, char *buf, size_t size, uint64_t *pc)
{
	uint64_t args[6];
	char target[128];
	long nr;

	*pc = 0;
	if (tracer_task_syscall(t->tid, &nr, args, pc) < 0) {
		snprintf(buf, size, "nothing known (not in a syscall)");
		return;
	}
	switch (nr) {
	case SYS_futex:
		snprintf(buf, size, "futex %#llx in futex", (unsigned long long)args[0]);
		break;
	case SYS_wait4:
	case SYS_waitid: {
		long pid = nr == SYS_wait4 ? (long)(int)args[0] : (long)(int)args[1];

		if (pid > 0)
			snprintf(buf, size, "child %ld in %s", pid,
				 nr == SYS_wait4 ? "wait4" : "waitid");
		else
			snprintf(buf, size, "any child in %s",
				 nr == SYS_wait4 ? "wait4" : "waitid");
		break;
	}
	case SYS_read:
	case SYS_write:
	case SYS_readv:
	case SYS_writev:
	case SYS_recvfrom:
	case SYS_recvmsg:
	case SYS_sendto:
	case SYS_sendmsg:
	case SYS_accept:
	case SYS_accept4:
	case SYS_connect:
		if (tracer_fd_target(t->tid, (int)args[0], target, sizeof(target)) < 0)
			snprintf(target, sizeof(target), "?");
		snprintf(buf, size, "fd %d (%s) in syscall %ld", (int)args[0], target, nr);
		break;
	default:
		snprintf(buf, size, "syscall %ld", nr);
		break;
	}
}

void rec_report_deadlock(struct rec *r)
{
	hm_error("deadlock: no guest thread can run, and none waits on time or the outside world");
	for (size_t i = 0; i < r->ntasks; i++) {
		const struct task *t = r->tasks[i];
		char what[256];
		uint64_t pc = 0;

		if (t->system != 0 || t->state == TASK_EXITING)
			continue;
		if (t->state == TASK_WAITING && t->wait == WAIT_FUTEX) {
			snprintf(what, sizeof(what), "futex %#llx in futex",
				 (unsigned long long)t->futex_addr);
			pc = t->call.regs.rip;
		} else if (t->state == TASK_WAITING && t->wait == WAIT_TIMERFD) {
			snprintf(what, sizeof(what), "timerfd %d (disarmed) in read",
				 (int)t->futex_addr);
			pc = t->call.regs.rip;
		} else if (t->state == TASK_PARKED) {
			describe_parked(t, what, sizeof(what), &pc);
		} else if (t->state == TASK_VFORK_WAIT) {
			snprintf(what, sizeof(what), "its vfork child");
		} else if (t->state == TASK_STOPPED) {
			struct user_regs_struct regs;

			snprintf(what, sizeof(what), "SIGCONT (stopped)");
			if (tracer_get_regs(t->tid, &regs) == 0)
				pc = regs.rip;
		} else {
			snprintf(what, sizeof(what), "nothing (state %d)", t->state);
		}
		hm_error("  thread %d (process %d): waits on %s at pc %#llx", t->vtid,
			 rec_vpid_of(r, t), what, (unsigned long long)pc);
	}
}
