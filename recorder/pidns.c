/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A pid namespace the guest makes itself (unshare(CLONE_NEWPID) then fork,
 * or clone(CLONE_NEWPID)): its first process is the namespace's init.
 *
 * The kernel ignores every signal an init has no handler for, but a fault
 * no handler takes still kills it: force_sig_info_to_task()
 * (kernel/signal.c) clears SIGNAL_UNKILLABLE for it, though only when the
 * task is not traced. Traced, the init's fault comes to hermit, hermit
 * delivers it, get_signal() skips it as it skips every signal but SIGKILL
 * and SIGSTOP for an unkillable init, and the faulting instruction runs
 * again, for ever (rr and gdb see the same).
 *
 * So hermit lets such an init go (PTRACE_DETACH, the signal dropped): the
 * instruction faults again, untraced, and the init dies of the signal as
 * natively. Its death kills every process of its namespace
 * (zap_pid_ns_processes()), which hermit dooms as it does a guest's
 * SIGKILL's victims (sys_kill.c): nothing runs until hermit has reaped
 * them all. Then hermit waits until the init, no tracee of its any more,
 * is a zombie, so that its parent's wait4 sees it at a point the schedule
 * decides. Only faults that run again when resumed are let go: SIGSEGV,
 * SIGBUS, SIGILL and SIGFPE raised by the kernel (si_code > 0).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <time.h>

#include "common/common.h"
#include "internal.h"

int rec_pidns_fault(struct rec *r, struct task *t, int sig)
{
	struct tracer_sigmasks st;
	uint64_t ns, xns;
	siginfo_t si;

	if (t->vtid != 1 || (sig != SIGSEGV && sig != SIGBUS && sig != SIGILL && sig != SIGFPE))
		return 0;
	if (tracer_siginfo(t->tid, &si) < 0 || si.si_code <= 0)
		return 0; /* sent by someone: init ignores it, as natively */
	if (tracer_task_sigmasks(t->tid, &st) < 0 || (st.caught >> (sig - 1) & 1))
		return 0; /* its handler runs */
	if (tracer_pidns(t->tid, &ns) < 0)
		return 0;
	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *x = r->tasks[i];

		if (x == t || x->system || x->doomed || tracer_pidns(x->tid, &xns) < 0 || xns != ns)
			continue;
		x->doomed = 1;
		r->ndoomed++;
	}
	hm_debug("task %d, init of a pid namespace, dies of signal %d (%zu tasks with it)",
		 t->index, sig, r->ndoomed);
	r->pidns_dying = t->tid == t->tgid ? t->tid : 0;
	tracer_let_go(t->tid, 0);
	rec_task_remove(r, t);
	r->progress++;
	return 1;
}

void rec_pidns_settle(struct rec *r)
{
	const struct timespec nap = { 0, 1000000 };
	int state;

	if (!r->pidns_dying)
		return;
	/* It dies at once, now that the others are gone: 10 s is a host
	 * that does not run it. */
	for (int i = 0; i < 10000; i++) {
		state = tracer_task_state(r->pidns_dying);
		if (state < 0 || state == 'Z' || state == 'X')
			break;
		nanosleep(&nap, NULL);
	}
	r->pidns_dying = 0;
	r->progress++;
}
