/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a handled signal does to a call hermit holds (signal(7),
 * "Interruption of system calls and library functions by signal
 * handlers").
 *
 * The kernel decides that in handle_signal() (arch/x86/kernel/signal.c)
 * from the call's result: -ERESTARTNOHAND and -ERESTART_RESTARTBLOCK
 * become EINTR, -ERESTARTSYS becomes EINTR unless the handler has
 * SA_RESTART (then the call is made again), -ERESTARTNOINTR is always made
 * again; with no handler, arch_do_signal_or_restart() makes every one of
 * them again. A call hermit holds does not stand that way when the signal
 * comes: a parked call hermit wound back onto its syscall instruction
 * (epoll_wait, whose interruption is a plain EINTR; poll, whose restart
 * would be restart_syscall), a timed poll waiting wound back, or an
 * emulated wait (futex, a timerfd read) skipped with EINTR at its entry.
 *
 * So such a task carries what the kernel would have returned (t->intr_code)
 * and where it stands (t->intr_rip). At its signal-delivery-stop, which
 * comes before handle_signal() looks at the registers, the registers are
 * put as the kernel would have left them: past the syscall instruction,
 * orig_rax the call, rax the restart code. The kernel then decides with
 * the handler's own flags, which hermit never has to know.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "internal.h"

void rec_intr_set(struct task *t, const struct user_regs_struct *regs, long nr, int code,
		  int rewound)
{
	t->intr_code = code;
	t->intr_nr = nr;
	t->intr_rewound = rewound;
	t->intr_poll = 0;
	t->intr_rip = regs->rip;
}

void rec_intr_clear(struct task *t)
{
	t->intr_code = 0;
	t->intr_poll = 0;
}

/* Whether TID has a handler for SIG (its SigCgt in /proc/TID/status). */
static int caught(pid_t tid, int sig)
{
	struct tracer_sigmasks st;

	return sig >= 1 && sig <= 64 && tracer_task_sigmasks(tid, &st) == 0 &&
	       (st.caught >> (sig - 1) & 1);
}

int rec_intr_deliver(struct rec *r, struct task *t, int sig)
{
	struct user_regs_struct regs;
	int code = t->intr_code, poll = t->intr_poll, handled = 0;

	if (!code)
		return 0;
	rec_intr_clear(t);
	if (tracer_get_regs(t->tid, &regs) < 0 || regs.rip != t->intr_rip)
		return 0; /* it went on since: the signal meets it elsewhere */
	if (!caught(t->tid, sig)) {
		/* No handler runs: the kernel makes the call again. A call wound
		 * back is made again as it stands, and a handler's signal that
		 * comes before it is (after a stop and SIGCONT, say) still ends
		 * it; one skipped is wound back. */
		if (t->intr_rewound) {
			t->intr_code = code;
			t->intr_poll = poll;
			return 0;
		}
		regs.orig_rax = (uint64_t)t->intr_nr;
		regs.rax = (uint64_t)(long)-REC_ERESTARTNOINTR;
	} else {
		if (t->intr_poll)
			rec_poll_interrupted(r, t, &regs);
		if (t->intr_rewound)
			regs.rip += 2;
		regs.orig_rax = (uint64_t)t->intr_nr;
		regs.rax = (uint64_t)(long)code;
		handled = 1;
	}
	hm_trace("task %d: signal %d interrupts syscall %ld (%d)", t->index, sig, t->intr_nr, code);
	tracer_set_regs(t->tid, &regs);
	return handled;
}
