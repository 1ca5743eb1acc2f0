/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * recorder: the live policy. It decides which syscalls stop (the syscall
 * table), answers them from the determinism models (virtual clock, PRNG,
 * identity, file metadata), and schedules guest tasks one at a time.
 * `hermit run` is the recorder with its log kept as a digest.
 */
#ifndef HERMIT_RECORDER_H
#define HERMIT_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Tick sources (DESIGN.md "Preemption"). */
enum rec_preempt {
	REC_PREEMPT_AUTO,
	REC_PREEMPT_PMU,
	REC_PREEMPT_SITES,
	REC_PREEMPT_NONE,
};

/* What a run does with its events (DESIGN.md "Recordings", "Replay"). */
enum rec_mode {
	REC_MODE_RUN,	 /* keep a digest */
	REC_MODE_RECORD, /* also write them, with their inputs, to an event log */
	REC_MODE_REPLAY, /* compare them with a log, and take the inputs from it */
};

/*
 * Event kinds, in the digest and in the event log. The first seven are the
 * scheduling points every mode sees; REC_EV_INPUT and REC_EV_OUTPUT events
 * exist only in recordings, for syscalls that `hermit run` lets run without
 * a stop: the bytes a read brought in, the digest of what a write sent out.
 * REC_EV_END closes a log.
 */
enum rec_event_kind {
	REC_EV_CONT = 0,     /* a stopped syscall that ran as it was */
	REC_EV_EMULATED = 1, /* answered by hermit; the kernel never ran it */
	REC_EV_EXIT = 2,     /* ran, then its result was seen (and perhaps rewritten) */
	REC_EV_TSC = 3,	     /* rdtsc or rdtscp */
	REC_EV_BLOCKED = 4,  /* a call that waits (futex, sleep, timed poll) */
	REC_EV_SITE = 5,     /* a preemption at a site: args[0] the address, ret the ticks */
	REC_EV_SPIN = 6,     /* a preemption by the spin watch: registers and stack digest */
	REC_EV_SIGNAL = 7,   /* a signal from outside (the terminal, a kill) delivered: args[0] */
	REC_EV_READY = 8,    /* a timed poll on the outside became ready before its time */
	REC_EV_WATCH = 9,    /* a preemption the spin watch asked for in code no tick
			      * counts, made at the thread's next tick: args[0] the site */
	REC_EV_INPUT = 16,   /* log only: a read's result and bytes (payload) */
	REC_EV_OUTPUT = 17,  /* log only: a write to the outside: its result and the
			      * digest of the bytes it sent (REC_EV_OUT), no payload */
	REC_EV_INPUT_REF = 18, /* log only, in the file: a read of a regular file whose
				* bytes are a copy's in files/ (struct rec_file_ref);
				* the reader hands it out as REC_EV_INPUT with them */
	REC_EV_END = 32,     /* log only: the end; fields[1] hermit's exit status */
};

struct rec_event_record;

/*
 * Replay: where the recorded events come from (replayer/ implements it).
 * peek gives the next event without taking it: 1, 0 at the end of the log,
 * or -errno when the log is damaged there (a message printed). take
 * consumes it.
 */
struct rec_source {
	void *ctx;
	int (*peek)(void *ctx, const struct rec_event_record **ev, const unsigned char **payload,
		    size_t *len);
	void (*take)(void *ctx);
};

/* Where a syscall leaves its output, which a recording keeps and a replay
 * puts back (capture.c; replayer/substitute.c). */
enum rec_out {
	OUT_NONE,
	OUT_RET,   /* args[out_arg] points to a buffer that got ret bytes */
	OUT_SIZE,  /* args[out_arg] points to out_size bytes, written when ret >= 0 */
	OUT_IOV,   /* args[out_arg] is an iovec array, args[out_arg + 1] long: ret bytes */
	OUT_IOCTL, /* ioctl: as many bytes at args[2] as request args[1] writes */
	OUT_MSG,   /* recvmsg: the msghdr at args[out_arg], its name, control and data */
	OUT_MMSG,  /* recvmmsg: ret mmsghdrs at args[out_arg], each as OUT_MSG, length first */
	OUT_POLL,  /* poll family: revents, fd_sets or epoll events (sys_poll.c), kept
		    * only for calls that watch the outside; the row's exit runs after */
	OUT_VAL,   /* nothing in memory: the result alone (lseek) */
	OUT_XFER,  /* copy_file_range, sendfile, splice, tee: the bytes moved (xfer.c) */
};

/* Replay: where a call's recorded output goes in the guest's memory. */
struct rec_out_place {
	enum rec_out kind;
	uint64_t addr;	/* the output argument */
	uint64_t count; /* OUT_IOV: the number of iovecs */
	int nregions;	/* OUT_POLL: the regions, in order */
	uint64_t at[3];
	size_t len[3];
};

/*
 * Replay: how answers from the log are put into the guest. The recorder
 * decides when a call is answered; replayer/substitute.c implements what
 * an answer does (replay policy), as a debugger sits behind struct
 * rec_debugger.
 */
struct rec_replay_ops {
	void *ctx;
	/* Write recorded output P (N bytes, laid out as capture.c's record
	 * side read it) where W says in task TID: 0 or -EFAULT. */
	int (*put_output)(void *ctx, pid_t tid, const struct rec_out_place *w,
			  const unsigned char *p, size_t n);
	/* A transfer NR (copy_file_range, sendfile, splice, tee; ARGS) of
	 * TID, stopped at its exit and not run: write the N recorded bytes P
	 * to its destination and move the offsets it moved by RET. */
	void (*transfer)(void *ctx, pid_t tid, long nr, const uint64_t args[6], long ret,
			 const unsigned char *p, size_t n);
	/* A file-system change NR (ARGS) of TID returned GOT in the replay's
	 * view where the recording's returned WANT: make the view what the
	 * recording's call left where that can be done otherwise. */
	void (*fs_result)(void *ctx, pid_t tid, long nr, const uint64_t args[6], long got,
			  long want);
};

/* fsstate.c: the path a call of task TID names at ADDR (in its memory)
 * relative to folder descriptor DIRFD (AT_FDCWD: its working folder),
 * absolute and lexically normal ("." and ".." taken out), into OUT. ADDR
 * 0: DIRFD's own path. 0 or -errno. */
int rec_fs_path(pid_t tid, int dirfd, uint64_t addr, char *out, size_t size);

/* xfer.c: the sides of a transfer between descriptors (copy_file_range,
 * sendfile, splice, tee): descriptors and offset pointers (0: none). */
struct rec_xfer_sides {
	int in, out;
	uint64_t off_in, off_out;
};

/* The sides of transfer NR with ARGS: 0, or -ENOSYS when NR is none. */
int rec_xfer_sides(long nr, const uint64_t args[6], struct rec_xfer_sides *s);

struct rec_log; /* evlog.c: the event-log writer */
struct tracer_path; /* tracer/tracer.h: a path as a recorded run found it */

/* Record: the folder files the run maps are copied into (files/), and
 * what was copied (path -> sha256), for manifest.json. */
struct rec_files {
	const char *dir;     /* the recording's files/ */
	const char *objects; /* the data folder's objects/: one copy of each content, which
			      * files/ of every recording hard-links (NULL: copy into dir) */
	struct rec_file_entry {
		char *path;
		char sha256[65]; /* of the copy; "" when none was kept */
		uint64_t size;
		int kind;      /* before: enum tracer_path_kind */
		unsigned mode; /* before: permission bits */
		char *target;  /* before, a symbolic link: where it points */
		int changed;   /* before: the run made, moved or removed it: what
				   * lies below it is the run's own */
		int too_large; /* before: the run opened it to write, and its
				* content was too large to keep */
	} * entries;
	size_t n;
	struct rec_file_entry *before; /* paths as the run first found them (capture.c,
					* fsstate.c), in that order */
	size_t nbefore;
	long *index;	 /* fsstate.c: before's entries by path hash (open addressing,
			  * -1: free), ICAP slots */
	size_t icap;
	int failed; /* -errno of the first copy that failed, else 0 */
};

/* ---- replay under a debugger (replayer/debug.c drives it) ---- */

enum rec_dbg_go {
	REC_DBG_CONT,	  /* go on */
	REC_DBG_STEP,	  /* one instruction of the stopped task, then stop again */
	REC_DBG_KILL,	  /* end this run (the debugger replays again, or quits) */
	REC_DBG_NEXT,	  /* go on, and stop when a guest task is resumed next */
	REC_DBG_STEP_ALL, /* one instruction, then stop again; stop too when
			   * another task is resumed first (it exited, it waits) */
};

struct rec_dbg_thread {
	pid_t tid, tgid, vtid;
	int index;	/* creation order: the task number of events */
	uint64_t ticks; /* its ticks so far: with the pc, where it is */
};

/* A task's ticks at a trap: now, and when the last event was taken. */
struct rec_dbg_ticks {
	uint64_t now;
	uint64_t at_event;
};

struct rec;    /* a run (recorder/internal.h) */
struct rec_cp; /* a moment a checkpoint can be made (recorder/checkpoint.c) */

struct rec_dbg_stop {
	struct rec *run;		      /* the run that stopped */
	pid_t tid;			      /* the stopped task */
	pid_t tgid;			      /* its process */
	int index;			      /* its task number */
	uint64_t frames;		      /* log frames taken: where in the recording this is */
	const struct rec_dbg_thread *threads; /* every live guest task */
	size_t nthreads;
};

struct rec_debugger {
	void *ctx;
	/* The replay stopped: every guest task is in a ptrace stop. Returns
	 * how it goes on (may serve the debugger meanwhile). */
	enum rec_dbg_go (*stopped)(void *ctx, const struct rec_dbg_stop *st);
	/* A SIGTRAP of task TID (task INDEX of process TGID) the recorder does
	 * not own: 1 when it is the debugger's (a breakpoint, a watchpoint, a
	 * step it asked for) and it stops there; 2 when it is the debugger's
	 * and the task goes on; 3 when it goes on by single steps; 0 when it
	 * is not. */
	int (*trap)(void *ctx, pid_t tid, pid_t tgid, int index, int stepping,
		    const struct rec_dbg_ticks *ticks);
	/* Frame FRAMES was taken (task INDEX's event): 1 to stop before the
	 * next guest task goes on. */
	int (*at_event)(void *ctx, uint64_t frames, int index);
	/* The program's first instruction (after its first exec): 1 to stop. */
	int (*at_start)(void *ctx);
	/* The program's main thread exits (frames taken so far): 1 to stop
	 * there, before it is gone. */
	int (*at_exit)(void *ctx, uint64_t frames);
	/* (May be NULL.) A checkpoint can be made: the guest is one process
	 * whose threads all wait where a copy can take them, right after frame
	 * FRAMES was taken, before it ran again. The debugger may copy it with rec_cp_copy and keep the
	 * copy in a fork of hermit. Returns 1 in a fork whose copy was revived
	 * (rec_cp_revive): the replay goes on from here, in this process; 2
	 * in one where that failed: the run ends. Else 0. */
	int (*checkpoint)(void *ctx, uint64_t frames, struct rec_cp *cp);
	/* (May be NULL.) The checkpoints made so far are no good any more,
	 * and none is offered from here on (the guest writes a file). */
	void (*no_checkpoints)(void *ctx);
	/* (May be NULL.) The tick count at which task INDEX is to stop before
	 * it takes its next tick, or UINT64_MAX for none: the task's budget
	 * runs out there (DESIGN.md "Stopping at a count"). */
	uint64_t (*tick_stop)(void *ctx, int index);
	/* Task INDEX (TID) ran out of that budget at TICKS, with its pc on the
	 * first byte of the site it did not take: 1 to stop there. Once
	 * called, tick_stop no longer says TICKS for INDEX. */
	int (*at_tick)(void *ctx, pid_t tid, int index, const struct rec_dbg_ticks *ticks);
	/* (May be NULL.) Task INDEX (TID, of process TGID) exec'd a new
	 * program, after the first exec (at_start's): at its first
	 * instruction, with TICKS. STEPPING: the debugger single-stepped the
	 * call, and that step ends here (ptrace reports no trap for it unless
	 * the task is stepped again, and then one that ran no instruction).
	 * 1 to stop there. */
	int (*at_exec)(void *ctx, pid_t tid, pid_t tgid, int index, int stepping,
		       const struct rec_dbg_ticks *ticks);
	/* (May be NULL.) Task INDEX (TID, of process TGID) is at the entry of
	 * an execve or execveat, which has not run yet: the last stop in the
	 * program before, should the call succeed, with TICKS. 1 to stop
	 * there. */
	int (*before_exec)(void *ctx, pid_t tid, pid_t tgid, int index,
			   const struct rec_dbg_ticks *ticks);
};

/* Copy the guest at checkpoint CP (kept in CP): 0, or -errno when it
 * cannot be copied now (hm_debug says why). */
int rec_cp_copy(struct rec_cp *cp);
/* In a fork of hermit made after rec_cp_copy, whose run was left by the
 * process that traced it (rec_abandon): bring the copy back as the guest
 * and trace everything again; the guest's new host pid in *PID. 0, or
 * -errno (the run cannot go on). */
int rec_cp_revive(struct rec_cp *cp, pid_t *pid);
/* The number of threads CP's copy has. */
size_t rec_cp_threads(const struct rec_cp *cp);
/* Kill CP's copy (a fork of hermit that keeps it ends). */
void rec_cp_drop(struct rec_cp *cp);
/* Leave RUN to a fork that revives a checkpoint: kill its guest, wait
 * until it is gone, and stop tracing hermit's helpers (setup, init), so
 * that the namespace lives on. The caller exits after. */
void rec_abandon(struct rec *run);

struct rec_options {
	char *const *argv;	    /* guest command */
	char *const *envp;	    /* guest environment */
	int64_t epoch_ns;	    /* wall-clock time zero, ns since 1970 */
	uint64_t seed;		    /* PRNG seed (--seed) */
	int namespaces;		    /* 0 for --no-namespace */
	int network_host;	    /* --network=host */
	int64_t virtual_timeout_ns; /* --virtual-timeout: end (121) past this virtual time; 0: none */
	int64_t timeout_ns; /* --timeout: kill the guest (124) after this wall time; 0: none */
	enum rec_preempt preempt;   /* --preempt */
	int chaos;		    /* --chaos */
	uint64_t sched_seed;	    /* --sched-seed, default --seed */
	int chaos_seeded_timeslice; /* --chaos-seeded-timeslice */
	uint64_t max_timeslice;	    /* --max-timeslice in ticks; 0: the default */
	int event_fd; /* >= 0: write every event here, as digested (--verify-strict) */
	int fastpath;	    /* HERMIT_FASTPATH: the vDSO's clock reads answered in the guest
			     * where ticks are counted (docs/fastpath.md) */
	int sent_fnv1a; /* replay of a recording older than "sent_digest" in its metadata:
			 * what was sent outside is digested with FNV-1a (sent.c) */

	enum rec_mode mode;
	struct rec_log *log;	   /* record: the event log */
	struct rec_files *files;   /* record: copies of mapped files */
	struct rec_source *source; /* replay: the recorded events */
	const struct rec_replay_ops *replay; /* replay: puts the log's answers in place */
	const char *cwd;	   /* the guest's working folder; NULL: hermit's */
	char *const *binds;  /* replay: pairs (copy, original path), NULL-ended, to put in place of
			     * the originals in the guest's mount namespace */
	const struct tracer_path *before; /* replay: the paths the recorded run touched,
					   * as it first found them (tracer/tracer.h) */
	size_t nbefore;
	int quiet;	     /* replay -q: the guest's stdout and stderr go to /dev/null */
	const struct rec_debugger *debugger; /* replay: a debugger drives it (NULL: none) */
	int debugger_has_terminal; /* replay: the debugger shares the terminal, whose signals
				    * (Ctrl-C) are its: the guest does not get them */
	const int *fds; /* replay: the descriptors the recorded guest started with,
			     * ended by -1 (NULL: what hermit has) */
};

/* One event as it enters the digest and the event stream: its kind, the
 * task's creation index, the syscall number (or a negative pseudo-number
 * for rdtsc, preemptions), the six arguments and the result. */
struct rec_event_record {
	int64_t fields[12]; /* kind, task, nr, args[6], ret, ticks, output digest
			     * (an input frame: its call's parks) */
};

#define REC_EV_KIND(ev) ((ev)->fields[0])
#define REC_EV_TASK(ev) ((ev)->fields[1])
#define REC_EV_NR(ev)	((ev)->fields[2])
#define REC_EV_RET(ev)	((ev)->fields[9])
/* The task's ticks when it made the event (DESIGN.md "Stopping at a count"). */
#define REC_EV_TICKS(ev) ((ev)->fields[10])
/* FNV-1a of the bytes the event sent outside (writes), 0 for none. */
#define REC_EV_OUT(ev) ((ev)->fields[11])
/* Of an input frame (REC_EV_INPUT): the times its call was parked before
 * it returned (0 in recordings older than the field). */
#define REC_EV_PARKS(ev) ((ev)->fields[11])

/*
 * The event log (events.xz), decompressed: the 8 bytes REC_LOG_MAGIC, then
 * frames. A frame is a 32-bit body length, the body (the 96 bytes of a
 * struct rec_event_record, then the payload) and the CRC-32 of the body,
 * all little-endian. A log that ends without a REC_EV_END frame was cut.
 */
#define REC_LOG_MAGIC	    "HMEVLOG3"
#define REC_LOG_MAX_PAYLOAD (64u << 20)

/* evlog.c: write events to FD as an xz stream, compressed on a writer
 * thread in blocks of 1 MiB or 125 ms, so a killed recorder loses at most
 * two blocks (250 ms) and the guest waits only when the log is a block
 * behind. */
int rec_log_open(struct rec_log **log, int fd);
/* Append one frame. 0 or -errno; after an error (ENOSPC) nothing more is
 * written and every call returns it. */
int rec_log_write(struct rec_log *log, const struct rec_event_record *ev, const void *payload,
		  size_t len);
/* The payload of a REC_EV_INPUT_REF frame: the bytes a read got are
 * LENGTH bytes at OFFSET of the copy in files/ named by SHA256 (binary),
 * 48 bytes in the log (fileref.c, docs/record-replay.md). */
struct rec_file_ref {
	unsigned char sha256[32];
	uint64_t offset, length;
};
#define REC_FILE_REF_SIZE 48
/* Append input frame EV (its kind made REC_EV_INPUT_REF) with REF in place
 * of its bytes. As rec_log_write. */
int rec_log_write_ref(struct rec_log *log, const struct rec_event_record *ev,
		      const struct rec_file_ref *ref);
/* Make what was written so far survive a crash. */
int rec_log_flush(struct rec_log *log);
/* Write the end frame (unless END_STATUS < 0), finish the stream, free. */
int rec_log_close(struct rec_log *log, int end_status, uint64_t events);

/* capture.c: copy the file at PATH (a path on the host) into F->dir,
 * once per path; 0 or -errno. */
int rec_files_add(struct rec_files *f, const char *path);
/* fsstate.c: keep a copy of the regular file at PATH (a /proc/PID/fd/N
 * link will do) in F->dir, named by its SHA-256 (HEX), without adding it
 * to the manifest's files and without fsync (hm_store_quick: its reader
 * checks it); 0 or -errno. */
int rec_files_keep(struct rec_files *f, const char *path, char hex[65], uint64_t *size);
void rec_files_free(struct rec_files *f);

/* Describe EV for a divergence report: "task 1 read(3, 0x7ffe..., 4096) = 12". */
void rec_event_describe(const struct rec_event_record *ev, char *buf, size_t size);

struct rec_result {
	int exit_status;	  /* what hermit exits with: the guest's, 128+N, or 125 */
	uint64_t events;	  /* intercepted events */
	uint64_t digest;	  /* digest of the event stream */
	uint64_t frames;	  /* record: frames written to the log, inputs included */
	uint64_t uncounted;	  /* preemptions by the spin watch: where no tick counted */
	uint64_t deferred;	  /* ... and those it made at the thread's next tick instead */
	enum rec_preempt preempt; /* the tick source that was used */
};

/* Run the guest to the end. 0 with *res filled, or -errno after printing
 * a one-line message (hermit then exits 125). */
int rec_run(const struct rec_options *opts, struct rec_result *res);

/* CPUs the guest sees: affinity masks, /sys/devices/system/cpu. */
#define REC_VIRTUAL_CPUS 4

/* ---- prng.c: xoshiro256** seeded through splitmix64 ---- */

struct rec_prng {
	uint64_t s[4];
};

void rec_prng_init(struct rec_prng *p, uint64_t seed);
uint64_t rec_prng_next(struct rec_prng *p);
void rec_prng_fill(struct rec_prng *p, void *buf, size_t len);

/* ---- vclock.c: the one virtual clock ---- */

struct rec_clock {
	int64_t epoch_ns; /* CLOCK_REALTIME at virtual time 0 */
	int64_t now_ns;	  /* virtual nanoseconds since the guest started */
};

/* Virtual time added by each intercepted syscall and by each rdtsc. */
#define REC_SYSCALL_NS 10000LL
#define REC_TSC_NS     1000LL
/* Virtual time each counted tick adds: a thread that computes without
 * syscalls still sees time pass (alarm fires in a busy loop). */
#define REC_TICK_NS 100LL
/* CLOCK_MONOTONIC and CLOCK_BOOTTIME read this at virtual time 0. */
#define REC_BOOT_NS (100LL * 1000000000LL)

void rec_clock_init(struct rec_clock *c, int64_t epoch_ns);
void rec_clock_advance(struct rec_clock *c, int64_t ns);
/* Time of CLOCKID now; 0 or -EINVAL for a clock that does not exist. */
int rec_clock_read(const struct rec_clock *c, long clockid, int64_t *ns);
/* Virtual TSC: one tick per virtual nanosecond. */
uint64_t rec_clock_tsc(const struct rec_clock *c);
struct timex;
/* adjtimex(2) on the virtual clock: TX (its modes as the guest gave them)
 * is filled as the kernel would fill it, and TIME_OK returned; a mode
 * that would set the clock: -EPERM (-EINVAL for a malformed one), TX
 * unchanged. */
int rec_clock_timex(const struct rec_clock *c, struct timex *tx);

/* ---- syscalls.c: the syscall table ---- */

struct rec_syscall; /* one row; see internal.h */

/* Rows in the table, and the row for NR (NULL if NR never stops). */
size_t rec_syscall_count(void);
const struct rec_syscall *rec_syscall_row(size_t i);
const struct rec_syscall *rec_syscall_find(long nr);
int rec_syscall_nr(const struct rec_syscall *row);
const char *rec_syscall_name(const struct rec_syscall *row);
/* Argument 0 must be at least this for the call to stop; 0: always. */
int rec_syscall_fd_min(const struct rec_syscall *row);

/* ---- fsvirt.c: file metadata ---- */

struct rec_fsvirt;

struct rec_fsvirt *rec_fsvirt_new(int64_t start_real_ns);
void rec_fsvirt_free(struct rec_fsvirt *fs);
/* Virtual inode number for (dev, ino): numbered in order of first sight. */
uint64_t rec_fsvirt_ino(struct rec_fsvirt *fs, uint64_t dev, uint64_t ino);
struct statfs;
/* statfs and fstatfs: free counts half the totals, f_fsid numbered in
 * order of first sight; the rest as the kernel said. */
void rec_fsvirt_statfs(struct rec_fsvirt *fs, struct statfs *sf);
/* Which of a file's times (each is virtualized on its own). */
enum rec_fs_time { REC_FS_MTIME, REC_FS_CTIME, REC_FS_BTIME };
/*
 * Virtual timestamp for a real one, FIELD of (dev, ino). Times from before
 * the run started are the outside world's and pass unchanged; a time the
 * run itself produced is replaced by the virtual wall time NOW_NS at which
 * it was first seen in that field, and keeps that value. Fields apart:
 * whether two of a file's times fell in one tick of the kernel's coarse
 * clock (a folder's birth and its last change) depends on the host's speed.
 */
int64_t rec_fsvirt_time(struct rec_fsvirt *fs, uint64_t dev, uint64_t ino,
			enum rec_fs_time field, int64_t real_ns, int64_t now_ns);
/*
 * Sort the directory records in BUF (LEN bytes, as getdents64 returns them
 * when IS64, else as getdents) by name and give them virtual inode numbers
 * of device DEV. The d_off values keep their positions, so the last record
 * still carries the directory offset the kernel reached. 0 or -EINVAL.
 */
int rec_fsvirt_dirents(struct rec_fsvirt *fs, uint64_t dev, void *buf, size_t len, int is64);

#endif /* HERMIT_RECORDER_H */
