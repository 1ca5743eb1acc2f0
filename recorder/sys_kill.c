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
 *
 * The guest shares its process group with hermit (its terminal's Ctrl-C
 * reaches both, cli/signals.c), so kill(0, sig) and killpg of that group
 * reach hermit too, and so does kill(-1, sig) without the namespaces.
 * Hermit lets the guest have the signals it can catch, but SIGKILL and
 * SIGSTOP cannot be caught, and SIGTSTP, SIGTTIN and SIGTTOU would stop it.
 * Such a kill is made as kill(ID, 0), which signals nobody; at its exit
 * hermit makes it process by process from the sender (kill(pid, sig)
 * injected for each of the guest's processes in the group, in the order
 * they were made, as the kernel would have reached them), so each sees
 * the sender as natively, and hermit none of it. The sender's own process,
 * when it is among them, comes last: the call is made once more as
 * kill(its own pid, sig).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* Signals the guest's kill must not bring to hermit (see above). */
static int uncaught(int sig)
{
	return sig == SIGKILL || sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

/* The host id of the process group kill(2)'s ID (0, or below -1) names
 * from T when hermit is in it (kill(-1) without the namespaces: -1); 0
 * when it is not. Inside the guest's pid namespace hermit's group has no
 * id, so only kill(0) names it there. */
static pid_t hermit_group(struct rec *r, struct task *t, pid_t id)
{
	pid_t h, in;

	if (id == -1)
		return r->opts->namespaces ? 0 : -1;
	if (id == 0)
		return tracer_task_pgid(t->tid, &h, &in) == 0 && h == getpgrp() ? h : 0;
	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *x = r->tasks[i];

		if (x->system == 0 && tracer_task_pgid(x->tid, &h, &in) == 0 && in == -id &&
		    h == getpgrp())
			return h;
	}
	return 0;
}

enum rec_action rec_sys_kill_enter(struct rec *r, struct task *t, struct rec_call *c)
{
	pid_t id = (pid_t)c->args[0];

	if (c->nr != SYS_kill || id > 0 || !uncaught((int)c->args[1]))
		return REC_EXIT_STOP;
	t->kill_group = hermit_group(r, t, id);
	if (t->kill_group) {
		c->regs.rsi = 0; /* kill(ID, 0): nobody */
		tracer_set_regs(t->tid, &c->regs);
	}
	return REC_EXIT_STOP;
}

/* T's kill(ID, sig) of group T->kill_group, made as kill(ID, 0): make it
 * process by process (see above). */
static void split(struct rec *r, struct task *t, struct rec_call *c)
{
	pid_t group = t->kill_group, h, in;
	int sig = (int)c->args[1], self = 0, sent = 0;
	uint64_t args[6] = { 0, (uint64_t)sig };
	long ret, err = -ESRCH;

	t->kill_group = 0;
	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *x = r->tasks[i];

		/* a process: its leader, while it lives (creation order) */
		if (x->system != 0 || x->tid != x->tgid || x->state == TASK_EXITING || x->doomed)
			continue;
		if (group == -1 ? x->tgid == t->tgid
				: tracer_task_pgid(x->tid, &h, &in) < 0 || h != group)
			continue;
		if (x->tgid == t->tgid) {
			self = 1;
			continue;
		}
		args[0] = (uint64_t)x->vtid;
		if (tracer_inject(t->tid, SYS_kill, args, &ret) < 0)
			break;
		if (ret == 0) {
			sent = 1;
			if (sig == SIGKILL)
				doom(r, x->tgid);
		} else {
			err = ret;
		}
	}
	hm_trace("task %d: kill(%d, %d) of hermit's group, process by process%s", t->index,
		 (int)c->args[0], sig, self ? ", itself last" : "");
	if (self) {
		/* The call again, as kill(its own pid, sig); the result
		 * stays as it is, so the registers set here stay too. */
		c->regs.rip -= 2;
		c->regs.rax = (uint64_t)SYS_kill;
		c->regs.rdi = (uint64_t)rec_vpid_of(r, t);
		c->regs.rsi = (uint64_t)sig;
		tracer_set_regs(t->tid, &c->regs);
		return;
	}
	c->ret = sent ? 0 : err; /* the registers get it from the caller */
}

void rec_sys_kill_exit(struct rec *r, struct task *t, struct rec_call *c)
{
	pid_t id, h, in;

	if (t->kill_group) {
		split(r, t, c);
		goto hold;
	}
	if (c->nr == SYS_kill && (int)c->args[1] != SIGKILL)
		return; /* a stop signal to a process: the kernel's */
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
hold:
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

int rec_kill_passes(const struct rec_syscall *row, const struct rec_call *c)
{
	int sig;

	if ((c->nr != SYS_kill && c->nr != SYS_rt_sigqueueinfo && c->nr != SYS_pidfd_send_signal) ||
	    row->match_arg <= 0)
		return 0;
	sig = (int)(unsigned)c->args[row->match_arg - 1];
	if (sig == SIGKILL)
		return 0;
	return c->nr != SYS_kill || sig <= 0 || sig >= 64 || !(REC_KILL_ALSO >> sig & 1);
}
