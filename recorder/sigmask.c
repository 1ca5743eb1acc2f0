/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The guest's blocked mask across hermit's own traps. A tick site's int3
 * (SIGTRAP) and a trapped rdtsc (SIGSEGV, or SIGTRAP where it is patched)
 * are faults, and the kernel forces their signal: one the task blocks is
 * unblocked before the tracer sees it (kernel/signal.c:
 * force_sig_info_to_task). Hermit takes those signals away, so the guest
 * would find SIGTRAP and SIGSEGV unblocked for no reason of its own, and
 * pass that on to its threads, children and exec'd programs.
 *
 * The mask cannot be read back from the stop: the bit is gone. So hermit
 * keeps those two bits as the guest last set them: at each
 * rt_sigprocmask that sets a mask and each rt_sigreturn (which puts back
 * the mask of before a handler), read after the call, and at fork and
 * clone from the parent. After a trap of its own it blocks again what was
 * blocked. A handler's own mask (sa_mask, entered at delivery) is not
 * seen; rt_sigreturn ends it. The disposition the kernel resets to
 * SIG_DFL at such a fault (of a blocked or ignored signal) is not put back.
 */
#include "config.h"

#include <signal.h>

#include "internal.h"

#define TRAP_BITS (1ULL << (SIGTRAP - 1) | 1ULL << (SIGSEGV - 1))

uint64_t rec_trap_blocked(pid_t tid)
{
	uint64_t mask;

	return tracer_get_sigmask(tid, &mask) == 0 ? mask & TRAP_BITS : 0;
}

void rec_sys_sigmask_exit(struct rec *r, struct task *t, struct rec_call *c)
{
	(void)r;
	(void)c;
	t->trap_blocked = rec_trap_blocked(t->tid);
}

void rec_trap_mend(struct task *t, int sig)
{
	uint64_t bit = 1ULL << (sig - 1), mask;

	if (!(t->trap_blocked & bit) || tracer_get_sigmask(t->tid, &mask) < 0 || (mask & bit))
		return;
	tracer_set_sigmask(t->tid, mask | bit);
}
