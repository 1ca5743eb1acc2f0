/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Syscall injection: make a stopped tracee run one syscall of ours. From a
 * syscall-exit stop the instruction just before rip is the `syscall` that
 * stopped, so pointing rip back at it with new registers and stepping with
 * PTRACE_SYSCALL runs our call and stops at its exit (rr's
 * AutoRemoteSyscalls does the same). Signals that arrive in between are
 * taken off and queued again afterwards so the guest still receives them.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/common.h"
#include "tracer.h"

/* Step TID to the next syscall stop of kind WANT, setting aside signals. */
static int step_to(pid_t tid, int *deferred, int *ndeferred)
{
	struct tracer_stop s;
	int err;

	for (;;) {
		err = tracer_syscall(tid, 0);
		if (err)
			return err;
		err = tracer_wait_tid(tid, &s);
		if (err)
			return err;
		if (s.kind == TRACER_EXITED || s.kind == TRACER_KILLED)
			return -ESRCH;
		if (s.kind == TRACER_SIGNAL) {
			if (*ndeferred < 8)
				deferred[(*ndeferred)++] = s.sig;
			continue;
		}
		if (s.kind == TRACER_SYSCALL_ENTRY || s.kind == TRACER_SYSCALL_EXIT) {
			/* Entry and exit alternate; trust the order, not rax. */
			return 0;
		}
		/* Anything else (an event stop) is resumed and ignored. */
	}
}

int tracer_inject(pid_t tid, long nr, const uint64_t args[6], long *ret)
{
	struct user_regs_struct saved, regs;
	int deferred[8], ndeferred = 0, err;

	err = tracer_get_regs(tid, &saved);
	if (err)
		return err;
	regs = saved;
	regs.rax = (uint64_t)nr;
	regs.orig_rax = (uint64_t)-1;
	regs.rdi = args[0];
	regs.rsi = args[1];
	regs.rdx = args[2];
	regs.r10 = args[3];
	regs.r8 = args[4];
	regs.r9 = args[5];
	regs.rip = saved.rip - 2;
	err = tracer_set_regs(tid, &regs);
	if (err)
		return err;
	err = step_to(tid, deferred, &ndeferred);
	if (!err)
		err = step_to(tid, deferred, &ndeferred);
	if (!err)
		err = tracer_get_regs(tid, &regs);
	if (err)
		return err;
	*ret = (long)regs.rax;
	err = tracer_set_regs(tid, &saved);
	for (int i = 0; i < ndeferred; i++)
		syscall(SYS_tkill, tid, deferred[i]);
	return err;
}

int tracer_inject_at_rip(pid_t tid, long nr, const uint64_t args[6], long *ret)
{
	struct user_regs_struct regs, moved;
	uint8_t saved[2];
	int err = tracer_get_regs(tid, &regs);

	if (err)
		return err;
	err = tracer_read_mem(tid, regs.rip, saved, sizeof(saved));
	if (!err)
		err = tracer_poke_mem(tid, regs.rip, "\x0f\x05", 2);
	if (err)
		return err;
	moved = regs;
	moved.rip += 2;
	err = tracer_set_regs(tid, &moved);
	if (!err)
		err = tracer_inject(tid, nr, args, ret);
	tracer_poke_mem(tid, regs.rip, saved, sizeof(saved));
	tracer_set_regs(tid, &regs);
	return err;
}

int tracer_set_sigaction(pid_t tid, int sig, const void *act, size_t len)
{
	struct user_regs_struct regs;
	uint64_t at, args[6];
	long ret;
	int err = tracer_get_regs(tid, &regs);

	if (err)
		return err;
	/* The action below the red zone, where a signal's frame would go. */
	at = (regs.rsp - 128 - len) & ~(uint64_t)15;
	err = tracer_write_mem(tid, at, act, len);
	args[0] = (uint64_t)sig;
	args[1] = at;
	args[2] = 0;
	args[3] = 8; /* sizeof(sigset_t) to the kernel */
	args[4] = args[5] = 0;
	if (!err)
		err = tracer_inject_at_rip(tid, SYS_rt_sigaction, args, &ret);
	if (!err && ret < 0)
		err = (int)ret;
	return err;
}
