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
 * seen; rt_sigreturn ends it.
 *
 * The kernel also resets the action of a signal it forces while the task
 * blocks or ignores it to SIG_DFL. A handler's own mask blocks its signal,
 * so a SIGSEGV handler that read the TSC (or hit a tick site's int3 with
 * SIGTRAP in its sa_mask) lost itself, and the guest's next fault killed
 * it (139) where natively the handler ran. So hermit keeps the guest's
 * action for SIGSEGV and SIGTRAP as it last set it (rt_sigaction of those
 * two stops, hidden; fork copies it, exec resets handlers to SIG_DFL), and
 * after a trap of its own where a handler is no longer caught (or an
 * ignored signal no longer ignored) by /proc/TID/status, sets it again
 * with an injected rt_sigaction.
 */
#include "config.h"

#include <signal.h>
#include <string.h>

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

/* T's noted action for SIG, or NULL. */
static uint8_t *action_of(struct task *t, int sig)
{
	return sig == SIGSEGV ? t->trap_act[0] : sig == SIGTRAP ? t->trap_act[1] : NULL;
}

void rec_sys_sigaction_exit(struct rec *r, struct task *t, struct rec_call *c)
{
	uint8_t act[sizeof(t->trap_act[0])];
	int sig = (int)c->args[0];

	if (c->ret != 0 || !c->args[1] || !action_of(t, sig) ||
	    tracer_read_mem(t->tid, c->args[1], act, sizeof(act)) < 0)
		return;
	/* The threads of a process share their actions. */
	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *x = r->tasks[i];

		if (x->tgid == t->tgid && !x->system)
			memcpy(action_of(x, sig), act, sizeof(act));
	}
}

void rec_sigaction_exec(struct rec *r, struct task *t)
{
	(void)r;
	for (size_t k = 0; k < 2; k++) {
		uint64_t handler;

		memcpy(&handler, t->trap_act[k], sizeof(handler));
		if (handler != (uint64_t)(uintptr_t)SIG_IGN)
			memset(t->trap_act[k], 0, sizeof(t->trap_act[k]));
	}
}

/* Put back T's action for SIG if the kernel reset it at hermit's trap. */
static void mend_action(struct task *t, int sig)
{
	const uint8_t *act = action_of(t, sig);
	struct tracer_sigmasks st;
	uint64_t bit = 1ULL << (sig - 1), handler, mask;
	int err;

	if (!act)
		return;
	memcpy(&handler, act, sizeof(handler));
	if (handler == (uint64_t)(uintptr_t)SIG_DFL || tracer_task_sigmasks(t->tid, &st) < 0)
		return;
	if (handler == (uint64_t)(uintptr_t)SIG_IGN ? (st.ignored & bit) : (st.caught & bit))
		return; /* as the guest set it */
	err = tracer_set_sigaction(t->tid, sig, act, sizeof(t->trap_act[0]));
	/* A handler was reset because it was blocked (in its own handler,
	 * say), and the kernel unblocked it: blocked again. */
	if (!err && handler != (uint64_t)(uintptr_t)SIG_IGN &&
	    tracer_get_sigmask(t->tid, &mask) == 0)
		tracer_set_sigmask(t->tid, mask | bit);
	hm_trace("task %d: the action of signal %d put back: %s", t->index, sig,
		 err ? hm_strerror(err) : "done");
}

void rec_trap_mend(struct task *t, int sig)
{
	uint64_t bit = 1ULL << (sig - 1), mask;

	mend_action(t, sig);
	if (!(t->trap_blocked & bit) || tracer_get_sigmask(t->tid, &mask) < 0 || (mask & bit))
		return;
	tracer_set_sigmask(t->tid, mask | bit);
}
