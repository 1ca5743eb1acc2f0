/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tracer: the mechanism under Hermit. Launching a guest (namespaces,
 * personality, seccomp filter), ptrace stops and how to resume them,
 * registers and memory, syscall injection, vDSO patching, TSC emulation
 * and the watch that notices a running task has blocked in the kernel.
 * It decides nothing: recorder/ says which syscalls to trap and what to do.
 */
#ifndef HERMIT_TRACER_H
#define HERMIT_TRACER_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

/* ---- launch.c ---- */

/* A syscall the seccomp filter sends to the tracer. */
struct tracer_trap {
	int nr;	       /* syscall number (x86-64) */
	int fd_min;    /* > 0: trap only when argument 0 >= fd_min */
	int match_arg; /* > 0: trap only when argument match_arg - 1, an int, is match */
	int match;
	int mask_arg;  /* with MASK: trap only when argument MASK_ARG has a bit of it */
	uint64_t mask; /* 0: no such condition */
	int nonzero_arg; /* > 0: trap only when argument nonzero_arg - 1 is not 0 */
	uint64_t match_also; /* with match_arg: bit V set, trap when it is V as well (V < 64) */
};

/* What a path was when a recorded run first touched it; a replay puts it
 * back so in its private view before the guest starts (docs/record-replay.md
 * "The file system"). */
enum tracer_path_kind {
	TRACER_PATH_ABSENT,  /* nothing there: removed, with what is below it */
	TRACER_PATH_FILE,    /* a regular file with COPY's content */
	TRACER_PATH_SIZED,   /* a regular file of SIZE bytes whose content the log
			      * answers: left where its size matches, else a
			      * placeholder of that size */
	TRACER_PATH_DIR,     /* a folder (made with MODE where missing) */
	TRACER_PATH_SYMLINK, /* a symbolic link to TARGET */
};

struct tracer_path {
	const char *path; /* absolute */
	enum tracer_path_kind kind;
	const char *copy;   /* TRACER_PATH_FILE: the recorded copy */
	const char *target; /* TRACER_PATH_SYMLINK */
	uint64_t size;	    /* TRACER_PATH_SIZED */
	unsigned mode;	    /* permission bits, 0: a default */
};

struct tracer_launch {
	char *const *argv;		 /* guest argv; argv[0] is looked up in PATH */
	char *const *envp;		 /* guest environment */
	int namespaces;			 /* new user, pid, mount, ipc, uts (and net) namespaces */
	int network_host;		 /* keep the host's network namespace */
	const struct tracer_trap *traps; /* syscalls to stop on */
	size_t ntraps;
	int cpus;	     /* CPUs the guest sees in /sys (namespaces only) */
	const char *cwd;     /* chdir here before exec; NULL: stay */
	char *const *binds;  /* pairs (file, path): FILE appears at PATH in the guest's mount
			     * namespace (a bind mount; an overlay where PATH is gone) */
	const struct tracer_path *before; /* paths put back as they were, in order, in
					   * the private view below */
	size_t nbefore;
	int private_files;   /* a copy-on-write view of the file system: the guest's writes
			    * stay in memory (a replay must not change the world) */
	int quiet;	     /* the guest's stdout and stderr go to /dev/null */
	const int *fds;	     /* when not NULL, ended by -1: the descriptors the guest starts
			    * with (a replay: those of the recording); others are closed,
			    * missing ones open /dev/null */
};

/* The descriptors a guest launched now would inherit (not close-on-exec),
 * in order, ended by -1; malloc'd. */
int *tracer_inherited_fds(void);

struct tracer_guest {
	pid_t system[2]; /* helper processes outside the guest (namespace setup, init); 0 if none */
	pid_t main;	 /* the guest's first process, host pid; known once it is born */
};

/*
 * Start the guest. Every process is seized with PTRACE_O_EXITKILL, so a
 * dying tracer takes the guest with it. The guest's first process reports
 * itself as a new task whose parent is a system process (or directly when
 * there are no namespaces: then guest->main is set here). Before its exec it
 * prints hermit's one-line message and exits 127 (not found) or 126 (cannot
 * execute). 0 or -errno, with a message printed.
 */
int tracer_launch(const struct tracer_launch *l, struct tracer_guest *guest);

/* ---- stop.c ---- */

enum tracer_stop_kind {
	TRACER_EXITED,	      /* status = exit code */
	TRACER_KILLED,	      /* sig = terminating signal */
	TRACER_SECCOMP,	      /* syscall-entry stop from SECCOMP_RET_TRACE */
	TRACER_SYSCALL_EXIT,  /* syscall-exit stop after PTRACE_SYSCALL */
	TRACER_SYSCALL_ENTRY, /* syscall-entry stop after PTRACE_SYSCALL (injection) */
	TRACER_SIGNAL,	      /* signal-delivery stop, sig */
	TRACER_GROUP_STOP,    /* group stop by sig (PTRACE_EVENT_STOP with a stop signal) */
	TRACER_EVENT_STOP,    /* PTRACE_EVENT_STOP: new task or PTRACE_INTERRUPT */
	TRACER_FORK,	      /* fork, vfork or clone: msg = new tid */
	TRACER_VFORK,
	TRACER_CLONE,
	TRACER_VFORK_DONE,
	TRACER_EXEC, /* msg = former tid */
	TRACER_EXIT, /* PTRACE_EVENT_EXIT: msg = wait status */
};

struct tracer_stop {
	pid_t tid;
	enum tracer_stop_kind kind;
	int status;	   /* exit code for TRACER_EXITED */
	int sig;	   /* signal for SIGNAL, GROUP_STOP, KILLED */
	unsigned long msg; /* PTRACE_GETEVENTMSG */
};

/* Wait for the next stop of any tracee. 0, -EINTR when interrupted by a
 * signal to the tracer, -ECHILD when no tracee is left, or -errno. */
int tracer_wait(struct tracer_stop *s);
/* Whether a stop or exit is waiting to be collected (nothing is consumed). */
int tracer_event_pending(void);
/* Wait for a stop of TID only (other tasks' stops stay queued). */
int tracer_wait_tid(pid_t tid, struct tracer_stop *s);
/* The next stop of TID, its end included, taken by the caller (one that
 * tracer_wait_tid held for the main loop first). */
int tracer_wait_own(pid_t tid, struct tracer_stop *s);
const char *tracer_stop_name(enum tracer_stop_kind kind);

/* Resume; 0, -ESRCH if the task died under us, or -errno. */
int tracer_cont(pid_t tid, int sig);
int tracer_syscall(pid_t tid, int sig);
/* PTRACE_SINGLESTEP: one instruction, then a SIGTRAP stop. */
int tracer_step(pid_t tid, int sig);
int tracer_interrupt(pid_t tid);
/* TID, at its group-stop report, stays stopped but no longer in a ptrace
 * stop (PTRACE_LISTEN): a SIGCONT makes it report PTRACE_EVENT_STOP. */
int tracer_listen(pid_t tid);
/* Let TID go from the ptrace stop it is in (PTRACE_DETACH), with SIG
 * delivered (0: none); it is no tracee of ours from then on. */
int tracer_let_go(pid_t tid, int sig);
/* The siginfo of TID's signal-delivery stop. */
int tracer_siginfo(pid_t tid, siginfo_t *si);
/* TID's blocked signals (bit N-1 for signal N), stopped; 0 or -errno. */
int tracer_get_sigmask(pid_t tid, uint64_t *mask);
int tracer_set_sigmask(pid_t tid, uint64_t mask);

/* ---- mem.c: registers and memory ---- */

int tracer_get_regs(pid_t tid, struct user_regs_struct *regs);
/* Forget the registers tracer_get_regs keeps: call it after anything that
 * lets a task run or changes its registers outside tracer_set_regs. */
void tracer_regs_forget(void);
/* A number that changes whenever a tracee may have run since (a stop was
 * waited for, a task resumed or detached) or the Hermit page was written
 * through tracer_write_mem or tracer_poke_mem: what was read of a tracee
 * at one epoch still holds while the epoch is the same. */
uint64_t tracer_epoch(void);
/* The whole xsave area (xsave's standard layout) into BUF, SIZE bytes at
 * most: *LEN bytes of it. */
int tracer_get_xstate(pid_t tid, void *buf, size_t size, size_t *len);
int tracer_set_regs(pid_t tid, const struct user_regs_struct *regs);
/* Read LEN bytes at ADDR; process_vm_readv first, /proc/pid/mem after. */
int tracer_read_mem(pid_t tid, uint64_t addr, void *buf, size_t len);
/* Read a NUL-terminated string of at most SIZE-1 bytes. */
int tracer_read_str(pid_t tid, uint64_t addr, char *buf, size_t size);
/* Write into the tracee as it may (fails with -EFAULT on read-only pages). */
int tracer_write_mem(pid_t tid, uint64_t addr, const void *buf, size_t len);
/* One byte of process PID at ADDR: the old one into *OUT (if not NULL),
 * then *IN written (if not NULL), read-only text included. 0 or -errno. */
int tracer_poke_byte(pid_t pid, uint64_t addr, const uint8_t *in, uint8_t *out);
/* Write through /proc/pid/mem, which may write read-only pages (COW). */
int tracer_poke_mem(pid_t tid, uint64_t addr, const void *buf, size_t len);
/* Value of auxv entry TYPE of process TID; 0 or -ENOENT. */
int tracer_auxv(pid_t tid, unsigned long type, uint64_t *value);

/* ---- inject.c ---- */

/*
 * Run syscall NR with ARGS in TID, which must be in a syscall-exit stop (or
 * a seccomp stop whose syscall was skipped) and is left in the same place
 * with its registers as before. Signals that arrive meanwhile are queued
 * again with tgkill. The syscall's result (-errno on failure) goes to *ret.
 */
int tracer_inject(pid_t tid, long nr, const uint64_t args[6], long *ret);
/* The same from any stop with rip on code that ran (an exec event, a
 * signal), where no syscall instruction lies just behind rip: one goes at
 * rip for the time the call takes. */
int tracer_inject_at_rip(pid_t tid, long nr, const uint64_t args[6], long *ret);
/* Set TID's action for SIG to ACT (LEN bytes of the kernel's struct
 * sigaction: handler, flags, restorer, mask) from any stop with rip on
 * code that ran: a syscall instruction goes at rip for the time it takes,
 * the action below the stack's red zone. 0 or -errno. */
int tracer_set_sigaction(pid_t tid, int sig, const void *act, size_t len);

/* What every guest task is traced with (expanded where sys/ptrace.h is). */
#define TRACER_PTRACE_OPTIONS                                                                     \
	(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | \
	 PTRACE_O_TRACEEXEC | PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACESECCOMP |                   \
	 PTRACE_O_EXITKILL | PTRACE_O_TRACEEXIT)

/* checkpoint.c: copies of a guest process for a replay's checkpoints. */
#define TRACER_COPY_FILES   64
#define TRACER_COPY_THREADS 64

/* A thread of a copied process, other than its leader, as it was. */
struct tracer_thread {
	pid_t tid;	    /* host thread id in the original (the caller says) */
	pid_t vtid;	    /* in its namespace: its new self gets it again (the caller says) */
	uint64_t clear_tid; /* its CLONE_CHILD_CLEARTID word, 0: none (the caller says) */
	struct user_regs_struct regs;
	uint8_t xstate[16384]; /* PTRACE_GETREGSET NT_X86_XSTATE (AMX needs 11 KB) */
	size_t xlen;
	uint64_t sigmask;
	uint64_t robust, robust_len; /* get_robust_list */
	int retrap;		     /* at the seccomp stop of a call not made yet */
	char comm[16];
};

struct tracer_copy {
	pid_t pid;		      /* the copy: stopped, untraced */
	int pidfd;		      /* the copy's (its pid may be another's once it is gone) */
	struct user_regs_struct regs; /* the original leader's at the copy */
	int retrap;		      /* the leader was at the seccomp stop of a call
				       * not made yet: the revived one makes it again */
	uint64_t sysret;	      /* just after a syscall instruction (injections) */
	uint64_t robust, robust_len;  /* the leader's robust list */
	int nfiles;		      /* its files' descriptors and offsets, which the
				       * copy shares with the original */
	int fd[TRACER_COPY_FILES];
	int64_t pos[TRACER_COPY_FILES];
	size_t nthreads; /* its other threads, made again when revived */
	struct tracer_thread *threads;
};
/* Whether stopped process TID, of NTHREADS threads, can be copied: 0, or
 * -EAGAIN with WHY (another number of threads, descriptors other than
 * files that FD_OK does not allow, shared writable memory). */
int tracer_copy_check(pid_t tid, size_t nthreads, int (*fd_ok)(void *ctx, int fd), void *ctx,
		      char *why, size_t size);
/* Copy process TID (its leader) and its threads OTHERS (N of them, each's
 * tid, vtid and clear_tid filled in), all stopped: the leader at a
 * syscall exit or seccomp stop, the others there or out of any syscall
 * (else -EAGAIN). The process is left as it was. */
int tracer_copy_make(pid_t tid, const struct tracer_thread *others, size_t n,
		     struct tracer_copy *c);
/* Free C's memory (the copy stays). */
void tracer_copy_free(struct tracer_copy *c);
/* Kill C's copy, if it is still that process, and forget it. */
void tracer_copy_kill(struct tracer_copy *c);
/* A new process from copy C, with pid NSPID in its namespace (free, or
 * freed within 2 s), C's memory, and threads, registers and stops as the
 * original's, traced by the caller and stopped; its files' offsets as when
 * C was made, the namespace's next pid LAST_PID + 1 as then, its stdout
 * and stderr to /dev/null. The leader's host pid in *OUT, the threads' in
 * TIDS (C's order). C stays as it was. */
int tracer_copy_revive(const struct tracer_copy *c, pid_t nspid, pid_t last_pid, pid_t *out,
		       pid_t *tids);
/* Trace PID (not traced by anyone) with TRACER_PTRACE_OPTIONS. */
int tracer_seize(pid_t pid);
/* Stop tracing PID, which runs or waits, letting it go on. */
int tracer_detach(pid_t pid);

/* ---- vdso.c ---- */

/*
 * Replace the vDSO time functions (clock_gettime, gettimeofday, time,
 * clock_getres, getcpu) of process TID, just after exec, with stubs that
 * make the real syscall, so that the seccomp filter sees them. FAST (the
 * process has the Hermit page and counts ticks): clock_gettime,
 * gettimeofday and time answer from the clock in the page instead
 * (vdso_fast.c), where the vDSO has room for that code. 0 or -errno.
 */
int tracer_patch_vdso(pid_t tid, int fast);

/*
 * Whether PC is in TID's vDSO. Every function there returns to its caller
 * in a bounded number of instructions (the patched ones make a syscall or
 * read the Hermit page), so a thread seen there is about to stop or to
 * reach counted code: the spin watch leaves it to those (recorder/spin.c).
 */
int tracer_in_vdso(pid_t tid, uint64_t pc);

/* ---- tsc.c ---- */

/* Whether rdtsc faults under PR_TSC_SIGSEGV on this host (probed once). */
int tracer_tsc_traps(void);
/* Where it does not: overwrite the rdtsc and rdtscp instructions of TID's
 * executable, just after exec, with int3 so they stop. 0 or -errno. */
int tracer_patch_tsc(pid_t tid);
/* If TID's signal SIG (SIGSEGV from a trapping rdtsc, SIGTRAP from a
 * patched site) comes from rdtsc or rdtscp, set its result from TSC (and
 * TSC_AUX for rdtscp) and step over it: returns 1. 0 when it is something
 * else and the signal is the guest's. */
int tracer_emulate_tsc(pid_t tid, int sig, uint64_t tsc, uint32_t tsc_aux);
/* The same stop, where the guest asked rdtsc to fault (PR_SET_TSC,
 * PR_TSC_SIGSEGV): make it the SIGSEGV the kernel would have raised (rip on
 * the instruction, si_code SI_KERNEL) and return 1; the caller delivers
 * SIGSEGV. 0 when it is something else. */
int tracer_tsc_fault(pid_t tid, int sig);
/* Forget the patched sites (end of run). */
void tracer_tsc_free(void);

/* ---- pmu.c: the "pmu" tick source ---- */

/* The raw perf event counting retired conditional branches on a CPU of
 * VENDOR, FAMILY and MODEL; 0 or -ENOTSUP. */
int tracer_pmu_event(const char *vendor, int family, int model, uint64_t *config);
/* Whether this host counts that event for us: 0, or -errno with WHY set
 * to the reason ("perf_event_open: ENOENT"). WHY names the event on success. */
int tracer_pmu_probe(char *why, size_t size);
/* The overflow period that stops SKID ticks before TICKS. */
uint64_t tracer_pmu_period(uint64_t ticks, uint64_t skid);
/* Ticks left to single-step once the counter read COUNTED (< 0: overshot). */
int64_t tracer_pmu_remaining(uint64_t target, uint64_t counted);

/* ---- ticks.c: the "sites" tick source: counted ticks in the guest ---- */

/* The Hermit page, at the same low address in every guest process (below
 * 2 GiB, so that trampolines address it absolutely; rr's page sits at
 * 0x70000000 too), and its first word: the running thread's tick budget. */
#define TRACER_HPAGE	     0x70000000ULL
#define TRACER_HPAGE_COUNTER TRACER_HPAGE

/*
 * The in-guest virtual clock (docs/fastpath.md, vdso_fast.c): the page's
 * first words, as tracer_ticks_arm writes them at a resume. The guest's
 * clock is base + (armed - counter) * TRACER_HCLOCK_TICK_NS, base the
 * realtime, monotonic or CPU-time word; seq is 0 while nothing is
 * published (the guest then makes the syscall) and changes at each
 * publication. The offsets are vdso_fast.c's.
 */
struct tracer_hclock {
	uint64_t counter; /* the budget (TRACER_HPAGE_COUNTER) */
	uint64_t seq;
	uint64_t armed;	 /* the budget as written */
	int64_t real_ns; /* CLOCK_REALTIME at the resume, ns since 1970 */
	int64_t mono_ns; /* CLOCK_MONOTONIC and BOOTTIME */
	int64_t cpu_ns;	 /* the CPU-time clocks */
};
#define TRACER_HCLOCK_TICK_NS 100 /* recorder.h's REC_TICK_NS */

/*
 * TID, of process TGID, stopped at its exec event: map the Hermit page and
 * patch the program and its interpreter (dw_patch_plan_file with SEED and
 * DENSITY). The number of sites patched, or -errno (then nothing counts).
 */
int tracer_ticks_exec(pid_t tid, pid_t tgid, uint64_t seed, unsigned density);
/* At the exit of a successful mmap in TID that mapped GUEST_FD executable
 * at ADDR (LEN bytes, file offset OFF): patch that code too. */
int tracer_ticks_mapped(pid_t tid, pid_t tgid, uint64_t addr, uint64_t len, int guest_fd,
			uint64_t off, uint64_t seed, unsigned density);
/* Whether process TGID counts ticks (has the page). */
int tracer_ticks_armed(pid_t tgid);
/* A fork copies the page and the patches: copy their table too. */
int tracer_ticks_fork(pid_t parent_tgid, pid_t child_tgid);
void tracer_ticks_drop(pid_t tgid);
/* Process FROM is process TO now (a checkpoint revived in its place). */
int tracer_ticks_rename(pid_t from, pid_t to);
/* The budget of TID's process: write it, read what is left. */
int tracer_ticks_set(pid_t tid, uint64_t budget);
/* The budget HC->counter and the clock HC of TID's process, in one write. */
int tracer_ticks_arm(pid_t tid, const struct tracer_hclock *hc);
int tracer_ticks_get(pid_t tid, uint64_t *left);

/* What tracer_ticks_site says a place is (dwarf/patch.c's kinds). */
enum {
	TRACER_SITE_JUMP = 1,
	TRACER_SITE_INT3 = 2,
};

enum {
	TRACER_TICK_OUT = 1,	 /* the budget was spent at a site: rip is back at its
				  * start, the tick not taken */
	TRACER_TICK_COUNTED = 2, /* an int3 site with budget left: run (dwarf/branch.c)
				  * or stepped over; the caller counts the tick (its
				  * counter is one less already) */
	TRACER_TICK_FAULT = 3,	 /* that step faulted: *SITE is the signal to deliver */
};
/* Whether TID's SIGTRAP is a counted site's: one of the above with *SITE
 * the site's address, 0 when it is not, -errno when TID died. STEPPED: a
 * single step of TID's may be what stopped it (a debugger is attached),
 * so the kind of trap is read; without one, the pc alone tells. */
int tracer_ticks_trap(pid_t tid, pid_t tgid, int stepped, uint64_t *site);
/* Whether ADDR lies in a patched place of TGID: its kind (DW_PATCH_JUMP,
 * DW_PATCH_INT3) with its start, length and original bytes (SIZE at most
 * into ORIG, if not NULL), or 0. */
int tracer_ticks_site(pid_t tgid, uint64_t addr, uint64_t *start, size_t *len, uint8_t *orig,
		      size_t size);
/* BUF holds LEN bytes of process TGID's memory read at ADDR: put back the
 * original bytes where hermit patched them. */
void tracer_ticks_hide(pid_t tgid, uint64_t addr, uint8_t *buf, size_t len);
/* TID of process TGID, stopped where no trap of a site stopped it (an
 * interrupt, a signal), inside a site's count: put back at the site with
 * the count not taken (dw_patch_settle), so that a budget written before
 * it goes on is not overwritten. 1 when it was, 0 when it was not there,
 * -errno. */
int tracer_ticks_settle(pid_t tid, pid_t tgid);
/* If PC lies in one of TGID's trampolines: the start of the site it
 * stands for into *ORIG, and 1. */
int tracer_ticks_original_pc(pid_t tgid, uint64_t pc, uint64_t *orig);
/* Whether PC lies in code of TGID that hermit planned (a patched segment
 * or its trampolines), where every loop passes a counted site. */
int tracer_ticks_counted(pid_t tgid, uint64_t pc);
/* Whether PC is a jump hermit put in dead padding (DW_PATCH_PAD). */
int tracer_ticks_in_slot(pid_t tgid, uint64_t pc);
void tracer_ticks_free(void);

/* Step TID over the instruction at its rip, setting signals aside. A
 * fault the instruction itself raises (si_code > 0: from the kernel) is
 * the guest's: its signal number is returned, to be delivered. 0 when it
 * stepped, -errno when the task died. */
int tracer_singlestep(pid_t tid);

/* ---- breakpoint.c: one breakpoint, where a replay must stop ---- */

/* Put int3 at ADDR in process TGID (the one breakpoint: an earlier one
 * is removed first). 0 or -errno. */
int tracer_bp_set(pid_t tgid, uint64_t addr);
/* Run TID, stopped with rip at the breakpoint, over the instruction under
 * it and put it back: as tracer_singlestep. */
int tracer_bp_step(pid_t tid);
/* Remove the breakpoint, if there is one (and its process lives). */
void tracer_bp_clear(void);
/* Whether a breakpoint is set, and where (address and process). */
int tracer_bp_active(uint64_t *addr, pid_t *tgid);

/* ---- blockwatch.c ---- */

/*
 * A watcher thread that notices the task being run has gone to sleep in a
 * syscall (it can only be waiting for a task that is not running, or for
 * the outside world) and interrupts the tracer's wait with SIGUSR1 so it
 * can park it. tracer_blockwatch_set(tid) names the running task (0: none).
 */
int tracer_blockwatch_start(void);
void tracer_blockwatch_stop(void);
/* Before a fork of hermit: end the thread (1: it ran); after it, in the
 * parent, start it again if it ran (the deadline and flags stay). The
 * child starts its own with tracer_blockwatch_start. */
int tracer_blockwatch_pause(void);
int tracer_blockwatch_resume(void);
void tracer_blockwatch_set(pid_t tid);
/* ON: nothing runs for a while (a debugger waits for its user); the task
 * watched stays, unlooked at, until OFF. */
void tracer_blockwatch_hold(int on);
/* Also wake the tracer, for good, once NS of wall time have passed. */
void tracer_blockwatch_deadline(int64_t ns);
/* Whether someone sent hermit SIGUSR2, asking for its scheduler's state. */
int tracer_dump_asked(void);
/* The watched task stopped and goes on: its spin time starts again. */
void tracer_blockwatch_touch(void);
/* Whether the watched task has run 100 ms without a stop (and forget it). */
int tracer_blockwatch_spun(void);
/* Whether that deadline has passed. */
int tracer_blockwatch_expired(void);
/* Whether TID sleeps inside a syscall now ('S' in /proc/TID/stat); the
 * syscall number goes to *nr when not NULL. */
int tracer_task_blocked(pid_t tid, long *nr);

/* ---- proc.c ---- */

/* Thread group id (host) and the thread id the guest sees (NSpid). */
int tracer_task_ids(pid_t tid, pid_t *tgid, pid_t *vtid);
/* TID's process group: its id on the host and as the guest sees it
 * (NSpgid); 0, or -errno. */
int tracer_task_pgid(pid_t tid, pid_t *host, pid_t *inner);
/* The process TID's pidfd FD refers to, as the host sees it; -1 when it
 * has ended. 0, or -errno (FD is no pidfd). */
int tracer_pidfd_pid(pid_t tid, int fd, pid_t *pid);
/* The syscall TID sleeps in, its arguments and the instruction pointer;
 * -ENOENT when it is not in one. */
int tracer_task_syscall(pid_t tid, long *nr, uint64_t args[6], uint64_t *pc);
/* Run-time address minus link-time address of TID's executable. */
int tracer_exe_bias(pid_t tid, uint64_t *bias);
/* What TID's descriptor FD is ("pipe:[123]", "/dev/pts/0", ...). */
int tracer_fd_target(pid_t tid, int fd, char *buf, size_t size);
/* Descriptor FD of TID: its offset and open flags (/proc/TID/fdinfo/FD),
 * and whether it is a regular file. 0 or -errno. */
int tracer_fd_info(pid_t tid, int fd, uint64_t *pos, unsigned *flags, int *regular);
/* The pty index of TID's descriptor FD when it is a pseudo-terminal master
 * (its /proc/TID/fdinfo/FD "tty-index"), or -errno (-ENOTTY: no master). */
int tracer_fd_tty_index(pid_t tid, int fd);
/* TID's controlling terminal as a device number (tty_nr of /proc/TID/stat:
 * 0 for none), or -errno. */
int tracer_task_tty(pid_t tid);
/* Thread TID's name (/proc comm) in BUF: 0, or -errno. */
int tracer_task_comm(pid_t tid, char *buf, size_t size);
/* How many seccomp filters thread TID (0: the calling thread) runs under
 * (Seccomp_filters of its status), or -1 where the kernel does not say
 * (before Linux 5.9). */
int tracer_seccomp_filters(pid_t tid);
/* TID's signal masks (bit N-1 for signal N), from /proc/TID/status. */
struct tracer_sigmasks {
	uint64_t pending, shared, blocked, ignored, caught;
};
int tracer_task_sigmasks(pid_t tid, struct tracer_sigmasks *m);
/* The CPU time TID has had, user and system, in clock ticks (USER_HZ). */
int tracer_task_cputime(pid_t tid, uint64_t *ticks);
/* Which pid namespace TID is in (its /proc/TID/ns/pid), as a number two
 * tasks share when they share the namespace. 0 or -errno. */
int tracer_pidns(pid_t tid, uint64_t *ns);
/* TID's state letter from /proc/TID/stat ('R', 'S', 't', 'Z', ...), or
 * -errno (-ENOENT: it is gone). */
int tracer_task_state(pid_t tid);
/* TID's executable: its ELF class (ELFCLASS32, ELFCLASS64) and its file
 * mode (st_mode, setuid bit included). 0, or -errno (-ENOEXEC: no ELF). */
int tracer_exe_kind(pid_t tid, int *elf_class, unsigned *mode);

#endif /* HERMIT_TRACER_H */
