/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ptrace stops: waiting for them, telling their kinds apart (ptrace(2),
 * "Stopped states") and resuming. A tracee that vanishes under us (ESRCH)
 * is reported, never fatal (strace's ptrace_restart).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "common/common.h"
#include "tracer.h"

#ifndef PTRACE_EVENT_STOP
#define PTRACE_EVENT_STOP 128
#endif

static const char *const stop_names[] = {
	[TRACER_EXITED] = "exited",
	[TRACER_KILLED] = "killed",
	[TRACER_SECCOMP] = "seccomp",
	[TRACER_SYSCALL_EXIT] = "syscall-exit",
	[TRACER_SYSCALL_ENTRY] = "syscall-entry",
	[TRACER_SIGNAL] = "signal",
	[TRACER_GROUP_STOP] = "group-stop",
	[TRACER_EVENT_STOP] = "event-stop",
	[TRACER_FORK] = "fork",
	[TRACER_VFORK] = "vfork",
	[TRACER_CLONE] = "clone",
	[TRACER_VFORK_DONE] = "vfork-done",
	[TRACER_EXEC] = "exec",
	[TRACER_EXIT] = "exit",
};

const char *tracer_stop_name(enum tracer_stop_kind kind)
{
	return stop_names[kind];
}

static int is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* Syscall-entry and syscall-exit stops both read SIGTRAP|0x80; the
 * caller knows which it asked for, we tell them apart by rax == -ENOSYS,
 * which the kernel sets on entry. */
static enum tracer_stop_kind syscall_stop_kind(pid_t tid)
{
	struct user_regs_struct regs;

	if (tracer_get_regs(tid, &regs) < 0)
		return TRACER_SYSCALL_EXIT;
	return (long)regs.rax == -ENOSYS ? TRACER_SYSCALL_ENTRY : TRACER_SYSCALL_EXIT;
}

static void decode(pid_t tid, int status, struct tracer_stop *s)
{
	int event = (unsigned)status >> 16;
	int sig;

	memset(s, 0, sizeof(*s));
	s->tid = tid;
	if (WIFEXITED(status)) {
		s->kind = TRACER_EXITED;
		s->status = WEXITSTATUS(status);
		return;
	}
	if (WIFSIGNALED(status)) {
		s->kind = TRACER_KILLED;
		s->sig = WTERMSIG(status);
		return;
	}
	sig = WSTOPSIG(status);
	s->sig = sig;
	if (sig == (SIGTRAP | 0x80)) {
		s->kind = syscall_stop_kind(tid);
		s->sig = 0;
		return;
	}
	switch (event) {
	case 0:
		s->kind = TRACER_SIGNAL;
		return;
	case PTRACE_EVENT_STOP:
		s->kind = is_stop_signal(sig) ? TRACER_GROUP_STOP : TRACER_EVENT_STOP;
		return;
	case PTRACE_EVENT_SECCOMP:
		s->kind = TRACER_SECCOMP;
		break;
	case PTRACE_EVENT_FORK:
		s->kind = TRACER_FORK;
		break;
	case PTRACE_EVENT_VFORK:
		s->kind = TRACER_VFORK;
		break;
	case PTRACE_EVENT_CLONE:
		s->kind = TRACER_CLONE;
		break;
	case PTRACE_EVENT_VFORK_DONE:
		s->kind = TRACER_VFORK_DONE;
		break;
	case PTRACE_EVENT_EXEC:
		s->kind = TRACER_EXEC;
		break;
	case PTRACE_EVENT_EXIT:
		s->kind = TRACER_EXIT;
		break;
	default:
		s->kind = TRACER_SIGNAL;
		return;
	}
	s->sig = 0;
	/* The seccomp message is our filter's constant 0: skip the syscall. */
	if (s->kind != TRACER_SECCOMP)
		ptrace(PTRACE_GETEVENTMSG, tid, 0, &s->msg);
}

static int wait_common(pid_t which, int flags, struct tracer_stop *s)
{
	int status;
	pid_t tid = waitpid(which, &status, __WALL | flags);

	tracer_regs_forget(); /* a stop: whatever stopped has run */
	if (tid < 0)
		return -errno;
	if (tid == 0)
		return -EAGAIN;
	decode(tid, status, s);
	return 0;
}

/* Exits that tracer_wait_tid collected while single-stepping or injecting:
 * the main loop must still hear of them. */
static struct tracer_stop held[64];
static size_t nheld;

static int take_held(struct tracer_stop *s)
{
	if (!nheld)
		return 0;
	*s = held[0];
	memmove(&held[0], &held[1], (--nheld) * sizeof(held[0]));
	return 1;
}

int tracer_wait(struct tracer_stop *s)
{
	if (take_held(s))
		return 0;
	return wait_common(-1, 0, s);
}

int tracer_event_pending(void)
{
	siginfo_t si;

	if (nheld)
		return 1;
	memset(&si, 0, sizeof(si));
	if (waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL) < 0)
		return 0;
	return si.si_pid != 0;
}

int tracer_wait_tid(pid_t tid, struct tracer_stop *s)
{
	int err;

	do
		err = wait_common(tid, 0, s);
	while (err == -EINTR);
	if (!err && (s->kind == TRACER_EXITED || s->kind == TRACER_KILLED) &&
	    nheld < sizeof(held) / sizeof(held[0]))
		held[nheld++] = *s;
	return err;
}

int tracer_wait_own(pid_t tid, struct tracer_stop *s)
{
	int err;

	for (size_t i = 0; i < nheld; i++) {
		if (held[i].tid == tid) {
			*s = held[i];
			memmove(&held[i], &held[i + 1], (--nheld - i) * sizeof(held[0]));
			return 0;
		}
	}
	do
		err = wait_common(tid, 0, s);
	while (err == -EINTR);
	return err;
}

static int restart(int request, pid_t tid, int sig)
{
	tracer_regs_forget();
	if (ptrace(request, tid, 0, (long)sig) < 0)
		return -errno;
	return 0;
}

int tracer_cont(pid_t tid, int sig)
{
	return restart(PTRACE_CONT, tid, sig);
}

int tracer_syscall(pid_t tid, int sig)
{
	return restart(PTRACE_SYSCALL, tid, sig);
}

int tracer_step(pid_t tid, int sig)
{
	return restart(PTRACE_SINGLESTEP, tid, sig);
}

int tracer_interrupt(pid_t tid)
{
	return restart(PTRACE_INTERRUPT, tid, 0);
}

int tracer_listen(pid_t tid)
{
	return restart(PTRACE_LISTEN, tid, 0);
}

int tracer_let_go(pid_t tid, int sig)
{
	return restart(PTRACE_DETACH, tid, sig);
}

int tracer_siginfo(pid_t tid, siginfo_t *si)
{
	return ptrace(PTRACE_GETSIGINFO, tid, 0, si) < 0 ? -errno : 0;
}

int tracer_get_sigmask(pid_t tid, uint64_t *mask)
{
	*mask = 0; /* (valgrind does not know that ptrace fills it) */
	return ptrace(PTRACE_GETSIGMASK, tid, sizeof(*mask), mask) < 0 ? -errno : 0;
}

int tracer_set_sigmask(pid_t tid, uint64_t mask)
{
	return ptrace(PTRACE_SETSIGMASK, tid, sizeof(mask), &mask) < 0 ? -errno : 0;
}
