/* SPDX-License-Identifier: BSD-3-Clause */
/* recorder/: state shared by the event loop and the syscall handlers. */
#ifndef HERMIT_RECORDER_INTERNAL_H
#define HERMIT_RECORDER_INTERNAL_H

#include <fcntl.h>
#include <stdint.h>
#include <sys/select.h>
#include <sys/types.h>
#include <sys/user.h>
#include <time.h>

#include "common/common.h"
#include "recorder.h"
#include "tracer/tracer.h"

enum task_state {
	TASK_NEW,	 /* known from its parent's event, first stop not seen yet */
	TASK_READY,	 /* stopped, may be resumed */
	TASK_RUNNING,	 /* the one guest task that runs */
	TASK_PARKED,	 /* interrupted while blocked in a syscall; resuming retries it */
	TASK_VFORK_WAIT, /* held until its vfork child execs or exits */
	TASK_WAITING,	 /* in an emulated wait (see enum wait_kind) */
	TASK_EXITING,	 /* past PTRACE_EVENT_EXIT: never runs again, its exit is due */
	TASK_STOPPED,	 /* in its process's group stop (job control): runs again
			  * once the process is continued (jobctl.c) */
};

/* What a TASK_WAITING task waits for. */
enum wait_kind {
	WAIT_NONE,
	WAIT_FUTEX,   /* an emulated futex wait: woken, or its deadline */
	WAIT_SLEEP,   /* nanosleep and friends: its deadline */
	WAIT_POLL,    /* a poll-family call with a timeout: retried after progress,
			 * returns 0 at its deadline */
	WAIT_TIMERFD, /* a read of an emulated timerfd: woken when it fires */
};

/* Whether a poll-family call watches descriptors a replay must not poll
 * (capture.c's outside: hermit's own, devices, the host network). */
enum poll_outside {
	POLL_INSIDE,
	POLL_OUTSIDE, /* its results are logged, and a replay answers it */
	POLL_BLOCKS,  /* the same, with no timeout: it may have waited */
};

/* How a stopped task continues when it is next resumed. */
enum resume_mode {
	RESUME_CONT,
	RESUME_SYSCALL, /* to the syscall-exit stop of the call in `call` */
};

/* What a futex word is to the kernel (kernel/futex/core.c, get_futex_key()):
 * a word in a shared mapping is a place in the mapped object (a file, shmem,
 * a memfd), the same in every process and every alias of it; any other word
 * is an address in one process (the waiter's tgid). */
struct rec_futex_key {
	int shared;	   /* 1: dev, ino, off name it; 0: tgid and off do */
	uint64_t dev, ino; /* shared: the mapped object */
	uint64_t off;	   /* shared: byte offset in the object; private: the address */
};

/* One intercepted syscall, as a handler sees it. */
struct rec_call {
	long nr;
	uint64_t args[6];
	long ret;		      /* result to return (enter) or returned (exit) */
	int64_t now_real_ns;	      /* virtual wall time of the call */
	struct user_regs_struct regs; /* at the stop */
};

struct task {
	pid_t tid;	  /* host thread id */
	pid_t tgid;	  /* host thread group id: the futex and timer key */
	pid_t vtid;	  /* thread id as the guest sees it */
	int index;	  /* creation order: the deterministic name */
	int sig_target;	  /* a process's leader: the index of the thread its last
			   * process-directed signal went to, the kernel's
			   * signal->curr_target (-1: the leader) */
	int system;	  /* a launch helper, not part of the guest */
	int stopped_once; /* its first ptrace stop has been seen */
	enum task_state state;
	enum resume_mode resume;
	int resume_sig;			   /* signal to deliver on resume */
	int wants_interrupt;		   /* PTRACE_INTERRUPT sent, stop not seen */
	uint64_t parked_at;		   /* progress count when parked */
	int retrying;			   /* resumed from a park: is its call finishing? */
	int outside;			   /* resumed to wait on the outside world */
	pid_t vfork_parent;		   /* the parent held until this one execs */
	const struct rec_syscall *pending; /* call awaiting its exit stop */
	int hidden;			   /* that call is not a scheduling point (capture.c) */
	int64_t due_since;		   /* replay: when it blocked in a read the log has done */
	int64_t parks;			   /* times its current call was parked: an input
					    * frame keeps it (REC_EV_PARKS), and a replay parks
					    * a read as often as the recording did */
	int unfinished;			   /* a call was cut short and runs again (made again */
	long unfinished_nr;		   /* after a signal's handler, the same call, */
	uint64_t unfinished_args[3];	   /* with its parks): its number, arguments, */
	int64_t unfinished_parks;	   /* and parks while the handler's calls run */
	int unfinished_saved;		   /* 1: unfinished_parks holds them; 2: and the
					    * handler returned (rt_sigreturn) */
	int not_yet;			   /* replay: its call waited in the recording: skipped,
					    * it is parked at the exit (rec_park_rewound) */
	int early;			   /* replay: its read of the guest's own pipe or
					    * socket returned before the recording's did:
					    * the log answers it (rec_replay_early) */
	int sends_out;			   /* that call writes outside: an output frame follows */
	int clamped;			   /* replay: the read's count was cut to the recorded one */
	uint64_t clamped_count;		   /* ... and this is the count the guest asked for */
	unsigned cpus;			   /* its virtual CPU affinity mask (sys_identity.c);
					    * 0: all REC_VIRTUAL_CPUS */
	uint64_t clear_tid;		   /* the word its clone asked the kernel to clear
					    * when it ends (CLONE_CHILD_CLEARTID), 0: none */
	struct rec_call call;

	enum wait_kind wait;	     /* with TASK_WAITING */
	int64_t deadline;	     /* virtual ns when the wait ends by itself; -1: never */
	uint64_t wait_seq;	     /* order of waiting, for FIFO wake-ups */
	uint64_t futex_addr;	     /* WAIT_FUTEX: the word, in its own address space */
	struct rec_futex_key futex_key; /* WAIT_FUTEX: the word, as wake-ups name it */
	uint32_t futex_val;	     /* WAIT_FUTEX: the value it waited on */
	int futex_requeued;	     /* WAIT_FUTEX: moved to another word by a requeue */
	uint32_t futex_bitset;	     /* WAIT_FUTEX: FUTEX_WAIT_BITSET's mask */
	int poll_retry;		     /* WAIT_POLL: the next entry is a retry */
	int64_t poll_deadline;	     /* WAIT_POLL: virtual ns when it returns 0 */
	unsigned char poll_orig[16]; /* WAIT_POLL: the timeout struct as given */
	unsigned char *poll_sets; /* WAIT_POLL, select: the three sets as given (the
				   * kernel clears them), one after the other */
	size_t poll_sets_cap;	  /* bytes poll_sets holds */
	int poll_timed;				    /* the poll-family call has a finite timeout */
	int poll_outside;			    /* it watches the outside (enum poll_outside) */
	int yielded;				    /* sched_yield: others first */
	uint64_t ticks;				    /* ticks since it was last chosen */
	uint64_t tick_count;			    /* ticks since it started: its position */
	uint64_t event_ticks;			    /* replay: tick_count at the last event */
	uint64_t ticks_last; /* what its latest stop added to them (rec_ticks_stop);
			      * UINT64_MAX: it was not counting */
	uint64_t spin_mark; /* 1 + tick_count when the spin watch last let it run on */
	uint64_t spin_cpu;  /* its CPU time then (tracer_task_cputime) */
	int watch_tick;	    /* the spin watch found it where no tick counts: it is
			     * preempted at its next tick (budget 0; spin.c) */
	uint64_t watch_cpu; /* its CPU time when the watch asked that */
	uint64_t budget;			    /* ticks its process's counter was given */
	uint64_t budget_end;			    /* tick_count where the budget runs out */
	uint64_t extra_ticks; /* ticks counted since its last resume that a run
			       * without a debugger makes too: at such a
			       * run's exec they are lost (rec_ticks_exec) */
	int extra_stop;				    /* a stop a run without a debugger does
						     * not make (a breakpoint, a step, a
						     * seek's tick, a replay's spin
						     * breakpoint): budget_end stays */
	int counting;				    /* the counter holds its budget now */
	uint64_t page_left; /* what its last stop read in its counter, if > 0 */
	uint64_t page_epoch; /* tracer_epoch() right after that read */
	uint64_t preemptions;			    /* times it was set aside at a tick */
	uint64_t out_digest;			    /* digest of what its current call sends out */
	uint64_t timeslice;			    /* ticks it may run before others get a turn */
	int priority;				    /* chaos: higher runs first */
	uint64_t poll_arg;			    /* WAIT_POLL: the timeout argument as given;
					 * WAIT_SLEEP: where the time left goes on EINTR */
	int intr_code;	   /* a handled signal here ends its call as this restart
			    * code would (interrupt.c); 0: not in such a call */
	long intr_nr;	   /* that call */
	int intr_rewound;  /* its rip was wound back onto the syscall instruction */
	int intr_poll;	   /* a timed poll: its timeout is given back as well */
	uint64_t intr_rip; /* where T stands while that holds */
	struct rec_parked *parked; /* the arguments of the call it was parked in (parkargs.c) */
	int parked_keep;	   /* its next resume makes that call: keep them in place */
	int fifo_mode;		   /* its open of a FIFO is made non-blocking: 'r', 'w' */
	int fifo_flags;		   /* ... and these are the flags the guest gave */
	int fifo_held;		   /* 1 + hermit's duplicate of the reader it opened
				    * first, 0: none (fifo.c) */
	int fifo_waits;		   /* that open was parked to wait for the other end */
	int kill_held;		   /* held at its SIGKILL's exit until those it killed
				    * are gone (sys_kill.c) */
	int doomed;		   /* a guest's SIGKILL kills it; not reaped yet */
	long fs_noted[2];	   /* record: the entries of rec_files' before its current
				    * file-system call noted (fsstate.c), -1: none */
	int xfer_side;		   /* record: the descriptor whose bytes a transfer
				    * moved can be read from after it (xfer.c), -1: none */
	uint64_t xfer_pos;	   /* ... from this offset */
	int xfer_emulated;	   /* replay: the transfer was skipped, the log answers */
	int tsc_sigsegv;	   /* the guest asked rdtsc to fault (PR_SET_TSC): hermit's
				    * traps then give it SIGSEGV (sys_prctl.c) */
	uint64_t trap_blocked;	   /* SIGTRAP and SIGSEGV as the guest last blocked them
				    * (sigmask.c) */
	pid_t kill_group;	   /* its kill names a process group hermit is in (its
				    * host id; -1: kill(-1)): made process by process at
				    * its exit (sys_kill.c) */
	uint8_t trap_act[2][32]; /* the guest's action for SIGSEGV and SIGTRAP as it last
				  * set it (the kernel's struct: handler, flags,
				  * restorer, mask); all 0: SIG_DFL (sigmask.c) */
	int job_outside;	   /* a stop signal from outside the guest was delivered to
				    * it: its process's stop waits on the outside (jobctl.c) */
	int orphan_hup;		   /* its stopped process was orphaned: the SIGHUP
				    * pending is the kernel's, not a terminal's (jobctl.c) */
};

enum rec_timer_kind {
	REC_TIMER_GONE = -1,  /* a closed timerfd's leftover: never matches */
	REC_TIMER_ITIMER = 0, /* the process's ITIMER_REAL */
	REC_TIMER_POSIX = 1,  /* timer_create */
	REC_TIMER_FD = 2,     /* timerfd */
};

/* A timer on virtual time: ITIMER_REAL (alarm, setitimer) or a POSIX
 * timer (timer_create) of one process. */
struct rec_timer {
	pid_t tgid;
	int kind;	  /* enum rec_timer_kind */
	int id;		  /* POSIX: the id the guest holds; timerfd: the fd */
	uint64_t count;	  /* timerfd: expirations not read yet */
	int64_t deadline; /* virtual ns; -1: disarmed */
	int64_t interval; /* 0: one shot */
	long clockid;	  /* POSIX: what an absolute time refers to */
	int notify;	  /* POSIX: SIGEV_SIGNAL, SIGEV_NONE, SIGEV_THREAD_ID */
	int signo;
	pid_t target;	/* SIGEV_THREAD_ID: the host tid */
	uint64_t value; /* sigev_value */
};

struct rec {
	const struct rec_options *opts;
	struct rec_clock clock;
	struct rec_prng prng;
	struct rec_fsvirt *fs;
	struct tracer_guest guest;

	struct task **tasks; /* in creation order */
	size_t ntasks, cap_tasks;
	int next_index;
	struct task *running;
	struct task **runq; /* ready tasks, first to run first */
	size_t runq_len, runq_cap;
	size_t rr;	   /* round-robin cursor into tasks, for retries */
	int slice;	   /* stops the running task has had this turn */
	uint64_t progress; /* stops that were not a park: something happened */

	struct rec_timer *timers;
	size_t ntimers;
	uint64_t wait_seq;
	char **outside; /* hermit's own pipes and sockets: the outside */
	size_t noutside;
	struct rec_ptys *ptys;	       /* pseudo-terminals: the guest's and hermit's (pty.c) */
	int ended;		       /* the scheduler ended the run */
	enum rec_preempt ticks_source; /* what preempts: sites or none */
	struct rec_prng sched_prng;    /* chaos decisions, from --sched-seed */
	uint64_t max_slice;	       /* ticks of a timeslice (chaos: its bound) */
	int said_preemption;	       /* the tick source line was printed */
	char preempt_why[256];	       /* why that source */
	struct {
		pid_t tgid;
		int sig;
	} * deferred; /* signals from the terminal, not delivered yet */
	size_t ndeferred;
	struct {
		pid_t tgid;
		int sig, n;
	} * own; /* signals hermit sent (kill), not yet seen arriving */
	size_t nown;
	int shared_sent;	  /* hermit sent a process a signal: its thread
				   * that takes it runs first (sched.c) */
	size_t ndoomed;		  /* tasks with doomed set: while any, nothing runs */
	pid_t ending_group;	  /* exits.c end_group: the process whose threads all
				   * end, one by one, before anything else runs */
	uint64_t settle_progress; /* progress when the last deadlock check began */
	int settle_rounds;	  /* retries since, before a deadlock is declared */

	int main_done;
	int main_status; /* hermit's exit status from the main guest */
	uint64_t events;
	uint64_t digest;
	uint64_t frames; /* record and replay: frames of the log written or taken */
	uint64_t uncounted; /* preemptions the spin watch made (code no tick counts) */
	uint64_t watch_ticked;/* ... and those it made at the thread's next tick */
	int urandom_warned;
	struct hm_buf payload;	  /* record: the output of the event being made */
	int diverged;		  /* replay: the divergence was reported */
	int ioctl_warned;	  /* record: an ioctl no replay can answer was named */
	struct task *dbg_pending; /* debugger: stop when this task is resumed next */
	int dbg_stop_next;	  /* debugger: stop when any guest task is resumed next */
	pid_t dbg_step;		  /* debugger: the task that single-steps */
	int dbg_started;	  /* debugger: the first exec was seen */
	int execd;		  /* task 0 exec'd the guest: before, it runs hermit's own launch code */
	int event_write_failed;
	int vdso_warned;
	uint64_t hclock_seq; /* the in-guest clock's publications (preempt.c) */
	uint64_t event_frames; /* replay: frames when the last event was taken */
	pid_t last_vpid;       /* the newest guest task's pid in its namespace */
	int files_written;     /* replay: the guest opened a file to write */
	struct rec_shared *shared; /* record: files the guest mapped shared (sharedmap.c) */
	size_t nshared;
	int ptrace_warned; /* the guest's ptrace was refused, and hermit said so */
	int ran_since_event;   /* replay: a guest task was resumed since */
	pid_t pidns_dying;     /* a namespace's init hermit let go to die: its host pid
				* (pidns.c) */
	struct rec_fileref *refs; /* record: files whose reads are kept by reference */
};

enum rec_action {
	REC_CONT,      /* let the syscall run as it is */
	REC_EMULATED,  /* skip it; call->ret is the result */
	REC_EXIT_STOP, /* let it run and call the row's exit handler after */
	REC_BLOCKED,   /* the handler made the task wait (rec_block) */
};

/* fileref.c: reads of regular files kept as references to copies in
 * files/ (docs/record-replay.md). Record: whether the input of call C of
 * T, whose bytes are PAYLOAD, is LENGTH bytes at some offset of a copy
 * of its file; 1 with *REF set, else 0 (the bytes go into the log). */
int rec_fileref_find(struct rec *r, struct task *t, const struct rec_call *c,
		     const struct hm_buf *payload, struct rec_file_ref *ref);
void rec_fileref_free(struct rec *r);

typedef enum rec_action (*rec_enter_fn)(struct rec *r, struct task *t, struct rec_call *c);
typedef void (*rec_exit_fn)(struct rec *r, struct task *t, struct rec_call *c);

/* What a syscall sends outside, whose digest a log keeps (sent.c). */
enum rec_sent {
	SENT_NONE,
	SENT_BUF,  /* args[1] points to the ret bytes sent: write, pwrite64, sendto */
	SENT_IOV,  /* args[1] is an iovec array, args[2] long: ret bytes (writev...) */
	SENT_MSG,  /* sendmsg: ret bytes of the iovecs of the msghdr at args[1] */
	SENT_MMSG, /* sendmmsg: ret mmsghdrs at args[1], msg_len bytes of each */
};

/* Rows that stop only where a log is kept (capture.c), or stop without
 * being a scheduling point. */
enum rec_hidden {
	SHOWN,	       /* a scheduling point in every mode */
	HIDDEN_RECORD, /* stops only when recording: files to copy (mmap) */
	HIDDEN_LOG,    /* stops when recording or replaying: input to keep (recvfrom) */
	HIDDEN_ALWAYS, /* as HIDDEN_LOG, and stops in `run` too, hidden, for its exit
			* handler to mend what the kernel told of the host (statfs's
			* free counts); in `run` only the calls match_arg selects */
};

struct rec_syscall {
	int nr;
	const char *name;
	int fd_min;	    /* in `run`, trap only when argument 0 >= fd_min; when a
			     * log is kept, trap every call, those below fd_min hidden */
	rec_enter_fn enter; /* NULL: REC_EXIT_STOP */
	rec_exit_fn exit;
	enum rec_out out; /* the output a log keeps */
	int out_arg;
	unsigned out_size;
	enum rec_hidden hidden;
	enum rec_sent sent; /* what it sends, digested when it leads outside */
	int match_arg;	    /* > 0: trap only when argument match_arg - 1, an int, is match
			     * (HIDDEN_ALWAYS: in `run` only; a log needs every call) */
	int match;
	int nonzero_arg;    /* > 0: trap only when argument nonzero_arg - 1 is not 0 */
};

/* syscalls.c: answer an emulated call by writing N bytes at ADDR in the
 * guest; the result is OK, or -EFAULT when ADDR is not writable. */
enum rec_action rec_reply_mem(struct task *t, struct rec_call *c, uint64_t addr, const void *p,
			      size_t n, long ok);

/* checkpoint.c: T, the running task, is about to be resumed (RESUME_CONT,
 * no signal): a checkpoint can be made if nothing ran since the last event
 * and T is the only guest task; in a revived copy, goes on from here. */
void rec_cp_offer(struct rec *r, struct task *t);
/* Replay under a debugger: the guest opens a file to write. Checkpoints
 * would see what it writes from now on: there are none from here. */
void rec_cp_files_written(struct rec *r);

/* sched.c: tasks, the run queue, waits and the choice of the next task */
struct task *rec_task_find(struct rec *r, pid_t tid);
struct task *rec_task_add(struct rec *r, pid_t tid);
void rec_task_remove(struct rec *r, struct task *t);
void rec_make_ready(struct rec *r, struct task *t);
/* T's tid changed (it exec'd in its leader's place). */
void rec_task_rename(struct rec *r, struct task *t);
/* Resume T as the running task. */
void rec_run_task(struct rec *r, struct task *t);
/* Stop running T for now; it goes on with MODE when chosen again. */
void rec_set_aside(struct rec *r, struct task *t, enum task_state state, enum resume_mode mode);
int rec_resume(struct task *t, enum resume_mode mode, int sig);
/* Let R's debugger stop tasks as they are resumed (NULL: none). */
void rec_debug_attach(struct rec *r);
/* Stop T for the debugger now: 0 to go on, -1 when the run was ended. */
int rec_debug_stop(struct rec *r, struct task *t);
/* Make T (stopped at the entry of the call in t->call) wait for KIND,
 * until DEADLINE (virtual ns, -1 for ever). */
void rec_block(struct rec *r, struct task *t, enum wait_kind kind, int64_t deadline);
/* End T's wait: its call returns RET (WAIT_POLL: RET is returned only at
 * the deadline; a retry re-executes the call). */
void rec_wake(struct rec *r, struct task *t, long ret);
/* Wake tasks whose deadline has passed and fire due timers. */
void rec_fire_due(struct rec *r);
/* Choose and resume the next task; may end the run (r->ended). */
void rec_schedule(struct rec *r);
/* The block watch says the running task sleeps: interrupt it. */
void rec_check_blocked(struct rec *r);
void rec_park(struct rec *r, struct task *t);

/* jobctl.c: T reported its part in a group stop by SIG: it stays stopped,
 * and the other threads of its process take part too. */
void rec_job_stopped(struct rec *r, struct task *t, int sig);
/* At each choice of the next task: stopped processes that SIGCONT reached
 * go on. 1 when one did. */
int rec_job_continue(struct rec *r);
/* When nothing is ready: threads that wait with a stop signal pending
 * (not blocked, not caught) take part in the stop. 1 when one did. */
int rec_job_stop_waiters(struct rec *r);
/* T is at the delivery stop of SIG: note a stop signal from outside the
 * guest (another host process: si_pid 0), whose SIGCONT comes from there. */
void rec_job_signal(struct rec *r, struct task *t, int sig);
/* Whether a process stopped from outside waits for its SIGCONT: no
 * deadlock, hermit waits for the stop that SIGCONT makes it report. */
int rec_job_waits_outside(const struct rec *r);
/* Whether signal SIG at T's delivery stop is the SIGHUP the kernel sent
 * its orphaned, stopped process group: the guest's own, as any signal one
 * guest process sends another (forgotten once asked). */
int rec_job_own_signal(struct rec *r, struct task *t, int sig);
/* capture.c: logs. Whether the call C of a row stops only for the log. */
int rec_call_hidden(const struct rec_syscall *row, const struct rec_call *c);
/* Whether descriptor FD of task TID leads outside the guest, where a replay
 * must not read: hermit's own pipes and sockets, devices, the host network. */
int rec_fd_from_outside(const struct rec *r, pid_t tid, int fd);
/* Whether FD of TID is a socket on the host's network (--network=host),
 * not one of hermit's own: a replay does not send on it again. */
int rec_fd_network(const struct rec *r, pid_t tid, int fd);
/* A hidden call's entry: resume T as it must go on (replay: perhaps
 * answering it from the log). */
void rec_hidden_entry(struct rec *r, struct task *t, const struct rec_syscall *row);
/* A hidden call's exit: keep its input, or put the recorded one back;
 * the caller resumes T. */
void rec_hidden_exit(struct rec *r, struct task *t, const struct rec_syscall *row);
/* A shown call's exit with output (row->out): record mode copies the
 * output into r->payload; replay mode writes the recorded output and
 * result into the guest instead of calling the row's handler. 1 when the
 * replay answered it (skip the handler), else 0. */
int rec_capture_exit(struct rec *r, struct task *t, const struct rec_syscall *row,
		     struct rec_call *c);
/* Whether open(2) FLAGS may write the file (or make or cut it). */
static inline int rec_open_writes(long flags)
{
	return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0;
}

/* xfer.c: transfers between descriptors. Whether NR is one. */
int rec_xfer_call(long nr);
/* Record, at the entry of transfer C of T: note which side's bytes can be
 * read after it, and from where; at its exit (result RET), append them
 * to OUT. */
void rec_xfer_entry(struct task *t, const struct rec_call *c);
void rec_xfer_bytes(const struct task *t, long ret, struct hm_buf *out);
/* Replay: whether transfer C of T is answered from the log rather than
 * run (its source is a file, or outside the guest). */
int rec_xfer_emulates(const struct rec *r, const struct task *t, const struct rec_call *c);

/* sent.c: whether descriptor FD of task TID leads outside the guest for
 * a write: anything but the guest's own pipes, sockets and eventfds. */
int rec_fd_to_outside(const struct rec *r, pid_t tid, int fd);
/* The digest (XXH3-64; FNV-1a for r->opts->sent_fnv1a) of the bytes call C
 * of ROW (at its exit, result c->ret) sent, read from T's buffers; 0 when
 * it sent none. */
uint64_t rec_sent_digest(const struct rec *r, const struct task *t, const struct rec_syscall *row,
			 const struct rec_call *c);

/* fsstate.c: what the run found on the file system. Record: note the
 * path open (or creat) C names as it is now, with its content when C may
 * write it, unless the run knew it before. */
void rec_capture_open(struct rec *r, struct task *t, const struct rec_call *c);
/* The open flags of call C of T: open, creat, openat, and openat2's,
 * read from its struct open_how as the kernel copies it at the call's
 * start (fs/open.c); 0 where that cannot be read (the kernel says EFAULT). */
long rec_open_flags(struct task *t, const struct rec_call *c);
/* The argument that holds the path an open-family call NR opens. */
int rec_open_path_arg(long nr);
/* Whether syscall NR only looks at the file system (a replay answers it
 * from the log without running it), or changes it or needs its paths as
 * they were (a replay runs it, its result the log's). */
int rec_fs_answered(long nr);
int rec_fs_runs(long nr);
/* Record, at the entry of a file-system call C of T: note its paths as
 * they are, before it runs; at its exit, mark what it made, moved or
 * removed as the run's own. Nothing in other modes. */
void rec_fs_entry(struct rec *r, struct task *t, const struct rec_call *c);
void rec_fs_exit(struct rec *r, struct task *t, const struct rec_call *c);
/* Replay, T in a call answered from the log that waited on the outside in
 * the recording: whether the log's next event is another task's (so the
 * recording parked T there). Never when T runs because nothing else can. */
int rec_replay_not_next(struct rec *r, struct task *t);
/* Replay, at the exit stop (REGS) of such a call, skipped: wind it back to
 * be made again and park T, as the recording did while it waited. */
void rec_park_rewound(struct rec *r, struct task *t, struct user_regs_struct *regs);
/* Replay, at the exit of T's hidden call (REGS): its read returned where
 * the recording has other events first. 1: wound back and parked. */
int rec_replay_early(struct rec *r, struct task *t, struct user_regs_struct *regs);
/* A replayed read whose count clamp_read cut: the guest's count back in
 * rdx, at the call's next entry and at its exit. */
void rec_unclamp_entry(struct task *t, struct rec_call *c);
void rec_unclamp_exit(struct task *t, struct user_regs_struct *regs);
/* Replay: T, running and blocked in a hidden read, is the next thing the
 * log records (its input frame). Where the recording parked that call more
 * often than the replay has and another task can run, 0: park T (the
 * writer may be that task, whose writes to the guest's own pipe leave
 * nothing in the log). Else its data is on its way: 1, wait for it rather
 * than park T, up to a few seconds of wall time (then 0; the replay will
 * tell). */
int rec_replay_completes(struct rec *r, struct task *t);
/* Record: copy the files T's new program maps (after exec). */
void rec_capture_exec(struct rec *r, struct task *t);
/* Replay: the recorded event did not match. Report it once, end (122). */
void rec_diverged(struct rec *r, const struct rec_event_record *want,
		  const struct rec_event_record *got, const char *why);

/* spin.c: the spin watch's preemptions. T, running and not in a syscall,
 * is where no tick counts: it is preempted at its next tick, or where it
 * is if none comes while it has 100 ms more of the CPU. */
void rec_spin_uncounted(struct rec *r, struct task *t);
/* T ran out of budget at SITE: 1 when that was the spin watch's (record)
 * or the log's next event is that preemption (replay), and it was made. */
int rec_spin_tick(struct rec *r, struct task *t, uint64_t site);
/* The tick count at which T must stop for such a preemption: the log's
 * (replay), T's own (record: 0 ticks more); UINT64_MAX: none. */
uint64_t rec_spin_tick_stop(struct rec *r, const struct task *t);
/* The spin watch interrupted T (running, not in a syscall): 1 when T is
 * in counted code and counted a tick since the watch last looked, so its
 * budget preempts it, not the clock; it is resumed. */
int rec_spin_declined(struct rec *r, struct task *t);
/* Replay: when the next recorded event is a spin preemption of T, put a
 * breakpoint at its address (before T is resumed). */
void rec_replay_arm_spin(struct rec *r, struct task *t);
/* Replay: T stopped at that breakpoint (AT_SITE: a site's int3 there): 1
 * when it was taken (preempted, or stepped on), 0 when not this one. */
int rec_replay_spin_hit(struct rec *r, struct task *t, int at_site);

/* signals.c: signals from outside. Whether SIG pending for T was sent by
 * the terminal, or by a process outside the guest other than hermit. */
int rec_from_terminal(struct task *t, int sig);
int rec_from_outside(struct rec *r, struct task *t, int sig);
/* Hold SIG for process TGID back to the next delivery point. */
void rec_defer_signal(struct rec *r, pid_t tgid, int sig);

/* run.c: T, running, goes on after a call that was a scheduling point:
 * unless its timeslice ended (then it is set aside). */
void rec_go_on(struct rec *r, struct task *t, enum resume_mode mode);
/* run.c: one stop of a task, whatever it is. */
void rec_handle(struct rec *r, const struct tracer_stop *s);
/* exits.c: T's end as waitpid reported it (exited or killed): it is gone. */
void rec_task_ended(struct rec *r, struct task *t, const struct tracer_stop *s);
/* exits.c: T stopped on its way out (PTRACE_EVENT_EXIT). */
void rec_exit_stop(struct rec *r, struct task *t, const struct tracer_stop *s);
/* exits.c: T entered exit_group: not an event; its process's threads end
 * now, in hermit's order rather than the kernel's. */
void rec_exit_group(struct rec *r, struct task *t);
/* run.c: add an event to the run's digest. */
void rec_digest_event(struct rec *r, struct task *t, const struct rec_call *c, int kind);
/* run.c: send the terminal's signals held back, at a syscall entry, or
 * (IDLE) when no task is ready to run. */
void rec_deliver_deferred(struct rec *r, int idle);
/* run.c: kill(TGID, SIG) from hermit, remembered so that its arrival is
 * not taken for a signal from outside. */
void rec_send_signal(struct rec *r, pid_t tgid, int sig);
/* SIGUSR2 to hermit: print the scheduler's state (for hangs). */
void rec_dump(struct rec *r);
/* Kill every guest process and end the run with STATUS. */
void rec_end_run(struct rec *r, int status);
struct rec_timer *rec_timer_get(struct rec *r, pid_t tgid);
/* The process id the guest sees for T's thread group. */
pid_t rec_vpid_of(const struct rec *r, const struct task *t);
/* Guest tasks not yet ended (including ones whose first stop is due). */
size_t rec_live_guests(const struct rec *r);

/* deadlock.c */
typedef int (*rec_fd_pred)(const struct rec *r, pid_t tid, int fd);
typedef int (*rec_fd_visit)(void *ctx, int fd, short events);
/* Call VISIT for each descriptor the poll-family call NR (ARGS, of task
 * TID) watches, with the events it waits for (epoll: those its instance
 * watches, from fdinfo), until VISIT returns nonzero: that value, 0 when
 * all were visited, -EFAULT when the set cannot be read (or has more than
 * 4,096 entries), -ENOSYS when NR is not a poll-family call. */
/* select and pselect6: the most descriptors (nfds) whose sets hermit
 * reads, keeps in a log and puts back; the kernel takes up to the size of
 * the process's descriptor table (fs/select.c core_sys_select()), past
 * FD_SETSIZE where RLIMIT_NOFILE allows. A larger nfds counts as watching
 * the outside and its sets are not kept. */
#define REC_SELECT_FDS_MAX 65536
int rec_poll_each(pid_t tid, long nr, const uint64_t args[6], rec_fd_visit visit, void *ctx);
/* Whether the poll-family call NR (ARGS, of task TID) watches a descriptor
 * PRED holds for, or one it cannot read the set of: 1 or 0; -1 when NR
 * watches no descriptors. */
int rec_poll_watches(const struct rec *r, pid_t tid, long nr, const uint64_t args[6],
		     rec_fd_pred pred);
/* Whether parked task T waits on something outside the guest. */
int rec_waits_outside(const struct rec *r, const struct task *t);
/* Print, one line each, every guest thread and what it waits on. */
void rec_report_deadlock(struct rec *r);
/* Remember hermit's own pipes and sockets: the guest shares them with
 * the outside world. */
void rec_note_outside(struct rec *r);
/* Whether TARGET (a descriptor's /proc link) is one of hermit's own. */
int rec_hermits_own(const struct rec *r, const char *target);

/* pty.c: pseudo-terminals the guest made. Note hermit's own terminals (at
 * the start), and forget all (at the end). */
void rec_ptys_init(struct rec *r);
void rec_ptys_free(struct rec *r);
/* Whether descriptor FD of task TID, which leads to TARGET (its /proc
 * link), is a pty the guest made: a master it opened from /dev/ptmx, or
 * the slave of one. Such a descriptor is the guest's own, as a pipe is. */
int rec_guest_pty(const struct rec *r, pid_t tid, int fd, const char *target);
/* A descriptor of TID's that is such a pty, or -1 for none. */
int rec_guest_pty_held(const struct rec *r, pid_t tid);
void rec_forget_outside(struct rec *r);

/* preempt.c: ticks, timeslices and chaos */
/* Choose the tick source at start; -errno with a message printed. */
int rec_preempt_init(struct rec *r);
/* Say, once, which tick source preempts (when there is something to preempt). */
void rec_preempt_announce(struct rec *r);
/* A new guest task: its priority and first timeslice. */
void rec_preempt_new_task(struct rec *r, struct task *t);
/* After exec or fork: count the ticks of the new program or process. */
void rec_preempt_exec(struct rec *r, struct task *t);
void rec_preempt_fork(struct rec *r, struct task *parent, struct task *child);
/* At the exit of call C (mmap), which returned RET: count the code it mapped. */
void rec_preempt_mapped(struct rec *r, struct task *t, const struct rec_call *c, long ret);
/* Whether T's pc is in code hermit added (a trampoline, a padding slot). */
int rec_in_trampoline(const struct task *t);
/* Whether an int3 of T's process counts a tick at ADDR. */
int rec_int3_site(const struct task *t, uint64_t addr);
/* T is resumed (sched.c): give its process's counter T's budget. */
void rec_ticks_resume(struct task *t);
/* T stopped: add the ticks it ran since it was resumed. */
void rec_ticks_stop(struct rec *r, struct task *t);
/* Take back what rec_ticks_stop added at T's stop now, for a stop `hermit
 * run` and a replay do not make (execve's, when recording): the ticks it
 * ran since it was resumed, and those up to the exec, are lost at the
 * exec, as in every mode. Resume it with tracer_cont, not rec_resume. */
void rec_ticks_unstop(struct rec *r, struct task *t);
/* T exec'd in a replay: take back the ticks the debugger's stops (struct
 * task's extra_stop) counted since its last resume that a run without
 * them makes too, which that run lost at the exec. */
void rec_ticks_exec(struct rec *r, struct task *t);
/* sched.c: whether TID has a signal pending that would end a wait (not
 * blocked, and caught or with a default action that does something);
 * BLOCKED, if not NULL, in place of its blocked mask. */
int rec_signal_pending(pid_t tid, const uint64_t *blocked);
/* sched.c: the earliest virtual deadline (a sleep, a timeout, a timer), -1: none. */
int64_t rec_next_deadline(const struct rec *r);
/* A SIGTRAP stop of T: a tick at a site? Then 1 (T was resumed or set
 * aside), or 2 when T single-steps for the debugger: the site's instruction
 * was that step, and the trap is the debugger's to take. */
int rec_preempt_trap(struct rec *r, struct task *t);
/* Whether the running task T should give way now; chaos may say yes at a syscall. */
int rec_preempt_at_syscall(struct rec *r, struct task *t);
/* Someone other than RUNNING could run now. */
int rec_others_can_run(const struct rec *r, const struct task *running);
/* The spin watch: T ran too long without a stop; preempt it if others wait. */
void rec_check_spin(struct rec *r);
/* T chosen to run: start its timeslice. */
void rec_preempt_chosen(struct rec *r, struct task *t);
/* The next ready task to run: FIFO, or by priority under chaos. */
struct task *rec_pick_ready(struct rec *r);

/* futex.c */
enum rec_action rec_sys_futex(struct rec *r, struct task *t, struct rec_call *c);
/* A thread of TGID ended (the kernel cleared its tid word, and released
 * its robust futexes): wake waiters of TGID, and waiters on shared words,
 * whose word no longer holds their value. */
void rec_futex_recheck(struct rec *r, pid_t tgid);

/* sys_poll.c */
enum rec_action rec_sys_poll(struct rec *r, struct task *t, struct rec_call *c);
void rec_sys_poll_exit(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_sched_yield(struct rec *r, struct task *t, struct rec_call *c);
/* A timed poll's deadline came: give its timeout argument back in REGS
 * (and memory), as the finished call would. */
void rec_poll_timed_out(struct rec *r, struct task *t, struct user_regs_struct *regs);
/* Nothing but T's timed poll, which watches the outside, is left to wait
 * for until virtual time reaches its deadline, NS from now: wait for its
 * descriptors in real time, up to NS. 1 when one became ready first. */
int rec_poll_wait_outside(struct task *t, int64_t ns);
/* sys_timerfd.c: a duplicate of descriptor FD of process TGID in hermit
 * (pidfd_getfd), or -errno. */
int rec_dup_guest_fd(pid_t tgid, int fd);
/* What a timed poll-family call NR returns when its time is up. */
long rec_poll_timeout_result(long nr);
/* Where poll-family call C, which returned RET, leaves its output: up to
 * three regions (select's fd_sets). Returns how many. */
int rec_poll_regions(const struct rec_call *c, long ret, uint64_t addr[3], size_t len[3]);

/* Whether the poll-family call T waits in has a signal mask of its own
 * (ppoll, pselect6, epoll_pwait, epoll_pwait2): 1, with it in *MASK. */
int rec_poll_mask(const struct task *t, uint64_t *mask);

/* What a timed poll-family call T waited in leaves when a handled signal
 * ends it with EINTR: the timeout (register, or the time left) in REGS. */
void rec_poll_interrupted(struct rec *r, struct task *t, struct user_regs_struct *regs);

/* interrupt.c: include/linux/errno.h, the kernel's restart codes. */
#define REC_ERESTARTSYS 512
#define REC_ERESTARTNOINTR 513
#define REC_ERESTARTNOHAND 514
#define REC_ERESTART_RESTARTBLOCK 516
/* T, stopped at REGS in call NR that hermit holds (REWOUND: wound back
 * onto its syscall instruction): a signal delivered to it there ends the
 * call as the kernel's restart code CODE (negative) would. */
void rec_intr_set(struct task *t, const struct user_regs_struct *regs, long nr, int code,
		  int rewound);
void rec_intr_clear(struct task *t);
/* T's signal-delivery-stop for SIG, which it is resumed with: put its
 * registers as the kernel would have them for handle_signal(). 1 when a
 * handler ends (or restarts) the call T was held in. */
int rec_intr_deliver(struct rec *r, struct task *t, int sig);

/* parkargs.c: the memory a parked call's arguments point to, as it
 * entered. At a park of T (stopped in the call): keep it, unless T is
 * parked again in the call it was parked in. */
void rec_parked_save(struct task *t);
/* Before T makes its parked call again: put what it entered with in place
 * of what other threads wrote there since. */
void rec_parked_put_back(struct task *t);
/* After: give the other threads' bytes back (those the kernel did not
 * write meanwhile). Every resume that is not the call's does this. */
void rec_parked_restore(struct task *t);
/* T went on (a new call, a signal came): what was kept is stale. */
void rec_parked_drop(struct task *t);
/* T's call returned: the same, and what the kernel wrote back stays. */
void rec_parked_ended(struct task *t);
void rec_parked_free(struct task *t);

/* fifo.c: a blocking open of a FIFO, PATH, by T's call C: 1 when it is
 * made non-blocking (the exit handler must see it), 0 otherwise. */
int rec_fifo_open_entry(struct task *t, struct rec_call *c, const char *path);
/* At its exit: 1 when T was parked to wait for the other end. */
int rec_fifo_open_exit(struct rec *r, struct task *t, struct rec_call *c);
/* T's open ended otherwise (a signal, its end): let go of what was kept. */
void rec_fifo_drop(struct task *t);

/* retry.c: T's call, made again after a park, returned with REGS (at its
 * exit stop): put its result as the call that waited would have it. */
void rec_retry_result(struct task *t, struct user_regs_struct *regs);

/* sys_timer.c */
enum rec_action rec_sys_alarm(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_setitimer(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_getitimer(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_timer_create(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_timer_settime(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_timer_gettime(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_timer_getoverrun(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_timer_delete(struct rec *r, struct task *t, struct rec_call *c);
/* What timer_gettime says of TM. */
struct itimerspec rec_timer_current(struct rec *r, const struct rec_timer *tm);
/* timer_settime's work for TM (also timerfd's): read the new value at
 * NEW_ADDR, write the old one at OLD_ADDR (if not 0), arm; 0 or -errno. */
long rec_timer_settime(struct rec *r, struct task *t, struct rec_timer *tm, int absolute,
		       uint64_t new_addr, uint64_t old_addr);
/* Send the signal of a timer that is due; re-arm it if periodic. */
void rec_timer_fire(struct rec *r, struct rec_timer *tm);
/* exec deletes a process's POSIX timers (timer_create(2)). */
void rec_timers_exec(struct rec *r, pid_t tgid);

/* sys_timerfd.c */
enum rec_action rec_sys_timerfd_create(struct rec *r, struct task *t, struct rec_call *c);
void rec_sys_timerfd_create_exit(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_timerfd_settime(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_timerfd_gettime(struct rec *r, struct task *t, struct rec_call *c);
/* A read of a high descriptor that is not a random device. */
enum rec_action rec_timerfd_read(struct rec *r, struct task *t, struct rec_call *c);
/* A timerfd reached its expiry: count it and wake a reader. */
void rec_timerfd_fire(struct rec *r, struct rec_timer *tm);

/* sys_time.c */
enum rec_action rec_sys_clock_gettime(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_clock_getres(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_gettimeofday(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_time(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_nanosleep(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_clock_nanosleep(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_times(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_getrusage(struct rec *r, struct task *t, struct rec_call *c);
/* wait4 and waitid with a rusage: the child's usage is hermit's figure */
void rec_sys_wait_exit(struct rec *r, struct task *t, struct rec_call *c);
/* The peak resident set every process shows (getrusage, wait4): 4 MiB. */
#define REC_MAXRSS_KB 4096
/* adjtimex, and clock_adjtime of CLOCK_REALTIME: read-only, the virtual clock */
enum rec_action rec_sys_adjtimex(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_clock_adjtime(struct rec *r, struct task *t, struct rec_call *c);

/* sigmask.c: rt_sigaction of SIGSEGV or SIGTRAP: note the action set. */
void rec_sys_sigaction_exit(struct rec *r, struct task *t, struct rec_call *c);
/* T exec'd: its handlers are SIG_DFL again (an ignored signal stays so). */
void rec_sigaction_exec(struct rec *r, struct task *t);
/* syscalls.c: more values of ROW's matched argument that stop it too
 * (bit V: value V). */
uint64_t rec_syscall_match_also(const struct rec_syscall *row);
/* sigmask.c: the SIGTRAP and SIGSEGV bits of TID's blocked mask, stopped. */
uint64_t rec_trap_blocked(pid_t tid);
/* rt_sigprocmask (setting a mask) and rt_sigreturn: note those bits. */
void rec_sys_sigmask_exit(struct rec *r, struct task *t, struct rec_call *c);
/* T stops for a fault of hermit's own (a tick site, an rdtsc) with SIG,
 * which hermit takes away: block SIG again where the guest blocked it. */
void rec_trap_mend(struct task *t, int sig);

/* sys_prctl.c: PR_GET_TSC, PR_SET_TSC and PR_GET_SECCOMP say the guest's
 * settings, not hermit's; other options run */
enum rec_action rec_sys_prctl(struct rec *r, struct task *t, struct rec_call *c);

/* sys_identity.c */
enum rec_action rec_sys_uname(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_sysinfo(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_sched_getaffinity(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_sched_setaffinity(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_getcpu(struct rec *r, struct task *t, struct rec_call *c);
/* The virtual CPU T runs on: the lowest of its virtual affinity mask. */
int rec_task_cpu(const struct task *t);
enum rec_action rec_sys_rseq(struct rec *r, struct task *t, struct rec_call *c);

/* sys_random.c */
enum rec_action rec_sys_getrandom(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_open(struct rec *r, struct task *t, struct rec_call *c);
void rec_sys_open_exit(struct rec *r, struct task *t, struct rec_call *c);
/* A read of a random device: answered from the PRNG; REC_CONT otherwise. */
enum rec_action rec_random_read(struct rec *r, struct task *t, struct rec_call *c);
/* Move descriptor FD of T to a number >= REC_RANDOM_FD_MIN, where the
 * seccomp filter stops its reads; the new number, or FD if that failed. */
long rec_fd_move_high(struct rec *r, struct task *t, long fd, int cloexec);
/* Fill AT_RANDOM of a freshly exec'd process. */
int rec_fill_at_random(struct rec *r, pid_t tid);

/* sharedmap.c: record, the guest mapped PATH shared: note its change time.
 * At the recording's end, warn of each such file a process outside the
 * guest changed meanwhile (a replay cannot see that change). */
void rec_shared_note(struct rec *r, const char *path);
void rec_shared_check(struct rec *r);
void rec_shared_free(struct rec *r);

/* sys_refuse.c: calls hermit cannot record, refused with the errno each
 * handler names; the kernel never runs them */
enum rec_action rec_sys_refuse_ENOSYS(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_refuse_EPERM(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_refuse_EOPNOTSUPP(struct rec *r, struct task *t, struct rec_call *c);
/* Calls allowed inside the guest only, refused otherwise. */
enum rec_action rec_sys_process_vm(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_pidfd_getfd(struct rec *r, struct task *t, struct rec_call *c);
enum rec_action rec_sys_sysv_msg(struct rec *r, struct task *t, struct rec_call *c);
/* ptrace: EPERM, and a warning once per run (not supported in a guest yet) */
enum rec_action rec_sys_ptrace(struct rec *r, struct task *t, struct rec_call *c);
/* A SIGSYS stop of T: when the seccomp filter raised it for a syscall of
 * another ABI, answer it (x32 numbers: ENOSYS) or end the run with one
 * line (int $0x80): 1. 0: the guest's own SIGSYS, to deliver. */
int rec_refuse_abi(struct rec *r, struct task *t);
/* T exec'd: a 32-bit program ends the run with one line (-1); a setuid
 * or setgid one is warned of (its bit is ignored). 0 to go on. */
int rec_refuse_exec(struct rec *r, struct task *t);

/* pidns.c: T, the init of a pid namespace the guest made, is at the
 * delivery stop of fault SIG that no handler takes: 1 when it was let go
 * to die of it (T is forgotten), 0 when the signal is to be delivered. */
int rec_pidns_fault(struct rec *r, struct task *t, int sig);
/* When the others of such a namespace are reaped: wait until its init is
 * a zombie. */
void rec_pidns_settle(struct rec *r);

/* sys_kill.c: a SIGKILL another guest task sent (kill, tkill, tgkill,
 * rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal) */
void rec_sys_kill_exit(struct rec *r, struct task *t, struct rec_call *c);
/* kill(0, sig) and friends that would reach hermit: made as kill(ID, 0),
 * then process by process at the exit (sys_kill.c) */
enum rec_action rec_sys_kill_enter(struct rec *r, struct task *t, struct rec_call *c);
/* The signals kill stops for besides its row's SIGKILL (bit N: signal N):
 * the stop signals, which would stop hermit too. */
#define REC_KILL_ALSO                                                             \
	(1ULL << SIGSTOP | 1ULL << SIGTSTP | 1ULL << SIGTTIN | 1ULL << SIGTTOU)
/* Whether call C of ROW (kill, rt_sigqueueinfo, pidfd_send_signal) sends
 * a signal that only the filter stops for: not SIGKILL, nor a stop signal
 * to kill. It goes on as if it had not stopped, and the scheduler gives
 * the signal to the thread the kernel would (sched.c, signal_taker). */
int rec_kill_passes(const struct rec_syscall *row, const struct rec_call *c);
/* A doomed task was reaped: when it was the last, the sender goes on. */
void rec_kill_reaped(struct rec *r);

/* sys_files.c */
void rec_sys_stat_exit(struct rec *r, struct task *t, struct rec_call *c);
void rec_sys_getdents_exit(struct rec *r, struct task *t, struct rec_call *c);
/* statfs and fstatfs: counts and f_fsid of hermit's (HIDDEN_ALWAYS rows) */
void rec_sys_statfs_exit(struct rec *r, struct task *t, struct rec_call *c);
/* Bytes ioctl REQUEST writes at its argument (0: none); -1 where neither
 * its encoding nor hermit's table of older requests says (ioctls.c). */
long rec_ioctl_out(uint64_t request);
/* ioctl: FS_IOC_GETVERSION's inode generation is 0 */
void rec_sys_ioctl_exit(struct rec *r, struct task *t, struct rec_call *c);

/* Intercepted syscalls a task may make before another ready one runs. */
#define REC_SLICE 64

/* The smallest fd number /dev/urandom descriptors are moved to, so that
 * the filter can stop reads of them and no others. */
#define REC_RANDOM_FD_MIN 512

#endif /* HERMIT_RECORDER_INTERNAL_H */
