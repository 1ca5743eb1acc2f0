/* SPDX-License-Identifier: BSD-3-Clause */
/* recorder/: state shared by the event loop and the syscall handlers. */
#ifndef HERMIT_RECORDER_INTERNAL_H
#define HERMIT_RECORDER_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "recorder.h"
#include "tracer/tracer.h"

enum task_state {
	TASK_NEW,	 /* known from its parent's event, first stop not seen yet */
	TASK_READY,	 /* stopped, may be resumed */
	TASK_RUNNING,	 /* the one guest task that runs */
	TASK_PARKED,	 /* interrupted while blocked in a syscall; resuming retries it */
	TASK_VFORK_WAIT, /* held until its vfork child execs or exits */
};

/* How a stopped task continues when it is next resumed. */
enum resume_mode {
	RESUME_CONT,
	RESUME_SYSCALL, /* to the syscall-exit stop of the call in `call` */
};

/* One intercepted syscall, as a handler sees it. */
struct rec_call {
	long nr;
	uint64_t args[6];
	long ret;			/* result to return (enter) or returned (exit) */
	int64_t now_real_ns;		/* virtual wall time of the call */
	struct user_regs_struct regs;	/* at the stop */
};

struct task {
	pid_t tid;			/* host thread id */
	int index;			/* creation order: the deterministic name */
	int system;			/* a launch helper, not part of the guest */
	enum task_state state;
	enum resume_mode resume;
	int resume_sig;			/* signal to deliver on resume */
	int wants_interrupt;		/* PTRACE_INTERRUPT sent, stop not seen */
	uint64_t parked_at;		/* progress count when parked */
	uint64_t io_at_park;		/* rchar+wchar when parked */
	int outside;			/* resumed to wait on the outside world */
	pid_t vfork_parent;		/* the parent held until this one execs */
	const struct rec_syscall *pending; /* call awaiting its exit stop */
	struct rec_call call;
};

struct rec {
	const struct rec_options *opts;
	struct rec_clock clock;
	struct rec_prng prng;
	struct rec_fsvirt *fs;
	struct tracer_guest guest;

	struct task **tasks;		/* in creation order */
	size_t ntasks, cap_tasks;
	int next_index;
	struct task *running;
	size_t rr;			/* round-robin cursor into tasks */
	int slice;			/* stops the running task has had this turn */
	uint64_t progress;		/* stops that were not a park: something happened */

	int main_done;
	int main_status;		/* hermit's exit status from the main guest */
	uint64_t events;
	uint64_t digest;
	int urandom_warned;
	int vdso_warned;
};

enum rec_action {
	REC_CONT,	/* let the syscall run as it is */
	REC_EMULATED,	/* skip it; call->ret is the result */
	REC_EXIT_STOP,	/* let it run and call the row's exit handler after */
};

typedef enum rec_action (*rec_enter_fn)(struct rec *r, struct task *t, struct rec_call *c);
typedef void (*rec_exit_fn)(struct rec *r, struct task *t, struct rec_call *c);

struct rec_syscall {
	int nr;
	const char *name;
	int fd_min;		/* trap only when argument 0 >= fd_min */
	rec_enter_fn enter;	/* NULL: REC_EXIT_STOP */
	rec_exit_fn exit;
};

/* syscalls.c: answer an emulated call by writing N bytes at ADDR in the
 * guest; the result is OK, or -EFAULT when ADDR is not writable. */
enum rec_action rec_reply_mem(struct task *t, struct rec_call *c, uint64_t addr, const void *p,
			      size_t n, long ok);

/* sys_time.c */
enum rec_action rec_sys_clock_gettime(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_clock_getres(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_gettimeofday(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_time(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_nanosleep(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_clock_nanosleep(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_times(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_getrusage(struct rec *r, struct task *t, struct rec_call *c);

/* sys_identity.c */
enum rec_action rec_sys_uname(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_sysinfo(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_sched_getaffinity(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_sched_setaffinity(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_getcpu(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_rseq(struct rec *r, struct task *t, struct rec_call *c);

/* sys_random.c */
enum rec_action rec_sys_getrandom(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_open(struct rec *r, struct task *t, struct rec_call *c);
void rec_sys_open_exit(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_read_high(struct rec *r, struct task *t, struct rec_call *c);
/* Fill AT_RANDOM of a freshly exec'd process. */
int rec_fill_at_random(struct rec *r, pid_t tid);

/* sys_files.c */
void rec_sys_stat_exit(struct rec *r, struct task *t, struct rec_call *c);
void rec_sys_getdents_exit(struct rec *r, struct task *t, struct rec_call *c);

/* The smallest fd number /dev/urandom descriptors are moved to, so that
 * the filter can stop reads of them and no others. */
#define REC_RANDOM_FD_MIN 512

#endif /* HERMIT_RECORDER_INTERNAL_H */
