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

/* Tick sources (DESIGN.md "Preemption"). */
enum rec_preempt {
	REC_PREEMPT_AUTO,
	REC_PREEMPT_PMU,
	REC_PREEMPT_SITES,
	REC_PREEMPT_NONE,
};

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
};

/* One event as it enters the digest and the event stream: its kind, the
 * task's creation index, the syscall number (or a negative pseudo-number
 * for rdtsc, preemptions), the six arguments and the result. */
struct rec_event_record {
	int64_t fields[10];
};

struct rec_result {
	int exit_status; /* what hermit exits with: the guest's, 128+N, or 125 */
	uint64_t events; /* intercepted events */
	uint64_t digest; /* digest of the event stream */
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
/* CLOCK_MONOTONIC and CLOCK_BOOTTIME read this at virtual time 0. */
#define REC_BOOT_NS (100LL * 1000000000LL)

void rec_clock_init(struct rec_clock *c, int64_t epoch_ns);
void rec_clock_advance(struct rec_clock *c, int64_t ns);
/* Time of CLOCKID now; 0 or -EINVAL for a clock that does not exist. */
int rec_clock_read(const struct rec_clock *c, long clockid, int64_t *ns);
/* Virtual TSC: one tick per virtual nanosecond. */
uint64_t rec_clock_tsc(const struct rec_clock *c);

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
/*
 * Virtual timestamp for a real one of (dev, ino). Times from before the run
 * started are the outside world's and pass unchanged; a time the run itself
 * produced is replaced by the virtual wall time NOW_NS at which it was
 * first seen, and keeps that value.
 */
int64_t rec_fsvirt_time(struct rec_fsvirt *fs, uint64_t dev, uint64_t ino, int64_t real_ns,
			int64_t now_ns);
/*
 * Sort the directory records in BUF (LEN bytes, as getdents64 returns them
 * when IS64, else as getdents) by name and give them virtual inode numbers
 * of device DEV. The d_off values keep their positions, so the last record
 * still carries the directory offset the kernel reached. 0 or -EINVAL.
 */
int rec_fsvirt_dirents(struct rec_fsvirt *fs, uint64_t dev, void *buf, size_t len, int is64);

#endif /* HERMIT_RECORDER_H */
