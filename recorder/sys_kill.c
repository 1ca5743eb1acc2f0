/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SIGKILL from one guest process to another.
 *
 * Any other signal a guest task sends waits in the receiver's pending set
 * until the receiver next runs, a point the schedule decides (the sender
 * and every other task are in ptrace stops meanwhile). SIGKILL does not
 * wait: it wakes its victims out of their ptrace stops (signal_wake_up()
 * with fatal set, include/linux/sched/signal.h) and they die while the
 * sender runs on. What they leave is seen by the guest: when hermit reaps
 * a killed process, the kernel hands the zombie on to its real parent
 * (its wait4 can see it from then on) and sends that process SIGCHLD
 * (wait_task_zombie(), kernel/exit.c), which goes to whichever of its
 * threads is not in a ptrace stop at that moment (complete_signal(),
 * kernel/signal.c): the sender, say, inside a futex wait that the signal
 * then cuts short. So the same program recorded twice made different
 * events, and a replay diverged from its recording.
 *
 * Sending SIGKILL therefore stops (the seccomp filter sends these calls
 * to hermit only with that signal). When the call succeeded, every task
 * of the processes it killed is marked doomed, the sender is held at the
 * call's exit, and no guest task runs until hermit has reaped them all;
 * then the sender goes on as it would have. By then the zombies are the
 * parents' and their SIGCHLD is pending for the parents' processes, whose
 * threads are all stopped: the first of them that hermit resumes takes
 * it, at a point the schedule decides.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>

#include "common/common.h"
#include "internal.h"

/* Every task of host process TGID is doomed. */
static void doom(struct rec *r, pid_t tgid)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *x = r->tasks[i];

		if (x->system == 0 && x->tgid == tgid && !x->doomed) {
			x->doomed = 1;
			r->ndoomed++;
		}
	}
}

/* The host process of the guest task whose id, as the guest sees it, is
 * ID (a process or a thread: SIGKILL ends its whole process). 0: none. */
static pid_t process_of(const struct rec *r, pid_t id)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i]->system == 0 && r->tasks[i]->vtid == id)
			return r->tasks[i]->tgid;
	}
	return 0;
}

/* The processes of process group PG (the host's id when HOST, else as the
 * guest sees it), or with PG -1 every process but the sender's: kill(2)'s
 * pid 0, -1 and below -1 (kill_something_info(), kernel/signal.c). */
static void doom_group(struct rec *r, const struct task *t, pid_t pg, int host)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		const struct task *x = r->tasks[i];
		pid_t h, in;

		if (x->system != 0 || x->doomed)
			continue;
		if (pg == -1) {
			if (x->tgid != t->tgid)
				doom(r, x->tgid);
		} else if (tracer_task_pgid(x->tid, &h, &in) == 0 && (host ? h : in) == pg) {
			doom(r, x->tgid);
		}
	}
}

void rec_sys_kill_exit(struct rec *r, struct task *t, struct rec_call *c)
{
	pid_t id, h, in;

	if (c->ret != 0)
		return; /* nobody was signalled */
	switch (c->nr) {
	case SYS_kill:
		id = (pid_t)c->args[0];
		if (id > 0)
			doom(r, process_of(r, id));
		else if (id == 0 && tracer_task_pgid(t->tid, &h, &in) == 0)
			doom_group(r, t, h, 1);
		else if (id == -1)
			doom_group(r, t, -1, 0);
		else if (id < -1)
			doom_group(r, t, -id, 0);
		break;
	case SYS_tkill:
	case SYS_rt_sigqueueinfo:
		doom(r, process_of(r, (pid_t)c->args[0]));
		break;
	case SYS_tgkill:
	case SYS_rt_tgsigqueueinfo:
		doom(r, process_of(r, (pid_t)c->args[1]));
		break;
	case SYS_pidfd_send_signal:
		if (tracer_pidfd_pid(t->tid, (int)c->args[0], &id) == 0 && id > 0) {
			struct task *x = rec_task_find(r, id);

			if (x && x->system == 0)
				doom(r, x->tgid);
		}
		break;
	}
	if (!r->ndoomed)
		return;
	/* Held here, even when it is among them: it dies at this stop. */
	hm_trace("task %d: SIGKILL dooms %zu tasks", t->index, r->ndoomed);
	t->kill_held = 1;
	tracer_blockwatch_set(0); /* it does not run: nothing to watch */
}

void rec_kill_reaped(struct rec *r)
{
	struct task *t = r->running;

	if (r->ndoomed || r->ended || !t || !t->kill_held)
		return;
	t->kill_held = 0;
	tracer_blockwatch_set(t->tid);
	rec_go_on(r, t, RESUME_CONT);
}
