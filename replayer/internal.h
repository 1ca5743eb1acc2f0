/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * replayer/: the replay under gdb, in the files that share struct dbg,
 * the state of one debugger session: debug.c serves gdb (the session loop
 * and the target ops gdbstub/ calls); seek.c names positions in the
 * replay, seeks to them and holds the recorder's hooks; breakpoints.c
 * keeps gdb's breakpoints in the guest; watch.c its watchpoints and the
 * search for the last write of a watched location (WFIND); hits.c the
 * breakpoint hits of one replay. Positions (struct pos) are named here.
 */
#ifndef HERMIT_REPLAYER_INTERNAL_H
#define HERMIT_REPLAYER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "gdbstub/gdbstub.h"
#include "replayer.h"

enum anchor {
	AT_START,
	AT_EVENT,    /* after frame `frames` */
	AT_TRAP,     /* the nth trap at pc by task index with `ticks` ticks, since
		      * frame `frames` */
	AT_EXIT,     /* the debugged process's last stop, as it exits */
	AT_TICK,     /* task index with `ticks` ticks, about to take its next:
		      * its pc on that site's first byte (after frame `frames`) */
	AT_EXEC,     /* the debugged process's exec number `execs` since frame
		      * `frames`, by task index: its new program's first
		      * instruction (a replay's first exec is AT_START) */
	AT_PRE_EXEC, /* the nth execve or execveat task index of the debugged
		      * process entered since frame `frames` (after `execs`
		      * execs), before it runs: the last stop in the program
		      * before an exec (its pc just after the syscall; `pc`
		      * holds the syscall instruction's, `ticks` and `ticks0`
		      * as a trap's) */
};

/* A stop: an anchor and the single steps after it (seek.c). */
struct pos {
	enum anchor anchor;
	uint64_t frames;
	int index;
	uint64_t pc;
	uint64_t nth;
	uint64_t steps;	 /* single steps after the anchor */
	int by_task;	 /* AT_START, AT_EVENT: the position is task index's, from
			 * its first resume after the anchor, even with no steps */
	uint64_t ticks;	 /* AT_TICK, AT_TRAP: task index's ticks there */
	uint64_t ticks0; /* AT_TICK, AT_TRAP: its ticks when frame `frames` was taken */
	uint64_t execs;	 /* the debugged process's execs between frame `frames` and
			  * the anchor (AT_EXEC: its own number): an exec starts
			  * a trap's count and an interval's steps again */
	/* AT_EXEC: the AT_PRE_EXEC of its call (pre_nth 0: not known) */
	uint64_t pre_frames, pre_execs, pre_nth;
};

/*
 * The breakpoint hits of one replay, in the order they came, each with
 * the number of the move that reached it (moves count every change of
 * position, so "before the current stop" is "a smaller number"). While
 * `whole`, no hit of a breakpoint that has been set since the replay's
 * start is missing, and a reverse-continue needs no replay to find the
 * last one before a stop.
 */
struct hits {
	struct hit {
		struct pos at;
		uint64_t move;
	} * v;
	size_t n, cap;
	int whole;
};

/* A new replay starts: none yet, none missed. */
void replay_hits_reset(struct hits *h);
void replay_hits_add(struct hits *h, const struct pos *at, uint64_t move);
/* The last hit before move BEFORE at an address WANTED says yes to, or
 * NULL when there is none; or the last exec of the debugged process before
 * it, when that comes later (reverse execution stops there). */
const struct pos *replay_hits_last(const struct hits *h, uint64_t before,
				   int (*wanted)(void *ctx, uint64_t pc), void *ctx);
void replay_hits_free(struct hits *h);

enum mode {
	LIVE,	/* stop where gdb asks */
	TO_POS, /* replay silently to `target`, then stop */
	SCAN,	/* replay silently to `target`, noting every hit before it */
	COUNT,	/* step silently from `target`'s event to `count_to`, counting */
	AT_END, /* the replay ended: serve gdb until it goes back or leaves */
	PRED,	/* replay silently from `target`'s event to the trap `last_hit`,
		 * noting the last pass of its task at `pred_pc` (the call that
		 * led to it), then go there */
	WFIND,	/* step silently through `target`'s event interval, finding the
		 * last write of a watched location (or breakpoint pass) in it;
		 * for reads, through every interval from `target` to `wbound` */
};

#define MAX_BPS 256
/* Watchpoints gdb may set: each is a Z2-Z4 of at most 8 aligned bytes
 * (gdb splits a larger object), watched by single steps (watch.c), so
 * their number is not the debug registers'. */
#define MAX_WPS	   64
#define MAX_COUNTS 256

struct bp {
	uint64_t addr;
	uint8_t orig;
	int inserted;
	int whole;	     /* set since the replay's start: its hits are all in `hits` */
	int known;	     /* in since event known_from (struct dbg): those hits are in `hits` */
	int removed;	     /* gdb took it out (it may put it back) */
	uint64_t removed_at; /* the number of continues when it was taken out */
	int internal;	     /* not gdb's: a seek's target is a trap here (seek.c) */
	int refused;	     /* inside a counted site's jump: never put in (breakpoints.c) */
	uint64_t gen;	     /* its program: the debugged process's execs before it */
};

#define MAX_HOLDERS 16

/* A checkpoint: a fork of hermit that keeps the replay at an event
 * (checkpoint.c), and the socket to it. */
struct holder {
	uint64_t frames;
	size_t threads; /* its copy's */
	int fd;
};

struct dbg {
	int fd;	       /* gdb's connection (-1: not yet accepted) */
	int listen_fd; /* where it comes from */
	struct rsp_session *rsp;
	struct rsp_target_ops ops;
	const struct replay_recording *rc;
	/* descriptors vFile opened, plus one (0: free): gdb keeps one open for
	 * the program and each library it reads (a replay of sqlite3 needs 9) */
	int files[64];
	const struct rec_dbg_stop *stop; /* while stopped */
	pid_t tgid;			 /* the debugged process (task 0's) */

	int requested; /* gdb resumed: how */
	enum rsp_resume how;
	int owe_reply; /* a stop reply is due at the next stop */
	int quit;      /* gdb left, or killed the target */
	int interrupt; /* gdb sent Ctrl-C while the replay ran */
	int sigint;    /* the stop is Ctrl-C's: reply SIGINT */
	int rerun;     /* end this replay and replay again (mode, target) */
	/* Every hit since event known_from of each breakpoint with `known` is
	 * in `hits`: the replay went on from a checkpoint there (or the start)
	 * with them in, and none was taken out to go by steps since (seek.c). */
	int known;
	uint64_t known_from;
	/* CLOCK_MONOTONIC when the connection was last looked at (debug.c) */
	uint64_t peeked_ns;

	struct bp bps[MAX_BPS];
	size_t nbps;
	struct {
		uint64_t addr;
		int len, type; /* type 2 write, 3 read, 4 access */
		uint64_t gen;  /* its program, as a breakpoint's */
	} wps[MAX_WPS];	       /* type 0: a free slot */
	int reason;	       /* of the stop: RSP_REASON_* */
	uint64_t watch_addr;

	struct pos cur;	     /* where the replay is stopped */
	uint64_t moves;	     /* changes of `cur` so far: the order of positions */
	uint64_t conts;	     /* continues gdb asked for so far */
	struct hits hits;    /* breakpoint hits of this replay (hits.c) */
	uint64_t frames;     /* frames taken so far in this replay */
	uint64_t gen;	     /* the debugged process's execs so far in this replay (the
			   * first, at the start, not counted): its program */
	uint64_t execs;	     /* of those, since frame `frames` */
	uint64_t exec_calls; /* execve entries of the debugged process since
			      * frame `frames` */
	struct pos pre_exec; /* the last one's AT_PRE_EXEC */
	int exec_index;	     /* the task that made the last one, */
	uint64_t exec_ticks; /* and its ticks then */
	uint64_t gdb_gen;    /* the program gdb has loaded: the `gen` of the last
			      * exec it was told of (0: the first program) */
	struct {
		int index;
		uint64_t pc;
		uint64_t n; /* since the task's ticks were `ticks` */
		uint64_t ticks;
		uint64_t all; /* since the last event */
	} counts[MAX_COUNTS]; /* traps per (task, pc) */
	size_t ncounts;

	enum mode mode;
	struct pos target;
	uint64_t steps_left; /* TO_POS: steps after reaching the anchor */
	int anchored;	     /* TO_POS, SCAN: the target's anchor was passed */
	int tick_met;	     /* an AT_TICK target's tick stop came */
	struct pos last_hit; /* SCAN: the last hit before the target */
	int have_hit;
	uint64_t pred_pc;	  /* PRED: the call (or jmp) right before the trap */
	uint64_t pred_slot;	  /* PRED: where its pointer to the trap is (0: direct) */
	struct pos pred;	  /* PRED: its last pass so far */
	uint64_t pred_next;	  /* PRED: the passes at the trap's pc since the event that
				   * the trap has, if the pass after the call is the trap */
	uint64_t counted;	  /* COUNT: steps so far */
	int count_at;		  /* COUNT: the target is the pass itself, not the
			     * instruction before it */
	uint64_t pc_seen;	  /* COUNT: passes at the target's pc */
	int begin;		  /* the stop is at the start, reached backwards */
	int over;		  /* stepping off a breakpoint: 1 to go on after, 2 to stop */
	int wstep;		  /* continuing by single steps to watch memory */
	uint8_t wold[MAX_WPS][8]; /* the watched bytes as last seen */
	/* reverse-continue with watchpoints: a SCAN notes the last event
	 * interval in which watched bytes changed, a WFIND steps through it */
	int wsnap_due;	      /* SCAN: snapshot the watched bytes at the first stop */
	int have_w;	      /* SCAN: they changed before the target */
	struct pos wfrom;     /* SCAN: the start of the interval of the last change */
	uint64_t wto_move;    /* SCAN: the move that ended that interval */
	uint64_t hit_move;    /* SCAN: the move of last_hit */
	struct pos wbound;    /* WFIND: where to stop looking (the scan's target) */
	struct pos wprev_hit; /* WFIND: the scan's last hit, if any */
	int wprev_have;
	int wend;  /* WFIND: the interval's next event came */
	int wtask; /* WFIND: the task of the stop it is at */
	/* WFIND: per task index, the steps it was sent on since the
	 * interval's start (all of them taken once its last step trapped): a
	 * task may run in several stretches between two events (it waits in
	 * a call, another runs), and its positions count its steps over all
	 * of them, as a seek replays them (TO_POS steps it alone). */
	uint64_t *wsteps;
	size_t nwsteps;
	int trapped;	      /* 1 + the index of the task whose step just trapped (0: none) */
	int step_trap;	      /* the stop is that task's, after its step */
	int wbound_hit;	      /* WFIND: the bound's anchor was passed */
	uint64_t wbound_left; /* WFIND: steps from there to the bound */
	struct pos wfound;    /* WFIND: the last write, read or pass found so far */
	int wfound_kind;      /* WFIND: its RSP_REASON_*, or 0 */
	uint64_t wfound_addr;
	/* WFIND for reads: 1 + the events before the bound's in the stretch
	 * it steps through (0: the one interval a SCAN found) */
	uint64_t wmulti;
	/* stepping to watch: the task whose next step reads or touches a
	 * watched location (0: none), and the stop's reason and address */
	pid_t wpend_tid;
	int wpend_reason;
	uint64_t wpend_addr;
	int arrive_reason; /* TO_POS: the stop reason at the target (0: by position) */
	uint64_t arrive_addr;

	/* checkpoints (checkpoint.c) */
	struct holder holders[MAX_HOLDERS]; /* by event, earliest first */
	size_t nholders;
	int cp_off;	      /* HERMIT_CHECKPOINTS=0, or no life_fd */
	int life_fd;	      /* closes when `hermit replay` ends: holders end too */
	int news_fd;	      /* to `hermit replay`: a holder serves now */
	uint64_t cp_every;    /* events between checkpoints */
	uint64_t cp_last;     /* the event of the last one made */
	uint64_t scan_base;   /* SCAN: the checkpoint's event it started from (0: the start) */
	uint64_t cp_restores; /* seeks that started from a checkpoint */
	struct bp copy_bps[MAX_BPS]; /* a holder: the breakpoints in its copy's memory */
	size_t ncopy_bps;
};

/* ---- debug.c: serving gdb ---- */

/* The guest thread number of ST's task (0: not known). */
int replay_dbg_vtid_of(const struct rec_dbg_stop *st);
/* The ticks of ST's task (0: not known). */
uint64_t replay_dbg_ticks_of(const struct rec_dbg_stop *st);
/* Task TID's instruction pointer (0: it cannot be read). */
uint64_t replay_dbg_pc_of(pid_t tid);
enum rec_dbg_go replay_dbg_live_stop(struct dbg *d, const struct rec_dbg_stop *st);
/* While the replay runs: 1 when gdb sent Ctrl-C (stop now, with SIGINT)
 * or left (d->quit: end the run). _now looks at the connection each time;
 * the other at most once a millisecond (for every event and step). */
int replay_dbg_interrupted_now(struct dbg *d);
int replay_dbg_interrupted(struct dbg *d);
/* Accept gdb, once, after telling `hermit replay` the replay is ready:
 * 0, or -1 with d->quit set. */
int replay_dbg_connect(struct dbg *d);

/* ---- peer.c: who connected ---- */

/* The owner of the socket at the other end of FD, a TCP connection on
 * 127.0.0.1: 0 with *UID, or -errno (-ESRCH: it is gone). */
int replay_peer_uid(int fd, uid_t *uid);

/* ---- breakpoints.c: gdb's breakpoints in the guest ---- */

void replay_dbg_insert_bps(struct dbg *d);
void replay_dbg_remove_bps(struct dbg *d);
/* LEN bytes of code at ADDR in task TID, as the program has them (not our
 * int3s, nor the preemption sites'): 0 or -errno. */
int replay_dbg_read_code(struct dbg *d, pid_t tid, uint64_t addr, uint8_t *buf, size_t len);
/* The breakpoint at ADDR, also one gdb took out (NULL: none). */
struct bp *replay_dbg_bp_find(struct dbg *d, uint64_t addr);
/* The breakpoint at ADDR that is set (NULL: none). */
struct bp *replay_dbg_bp_at(struct dbg *d, uint64_t addr);
void replay_dbg_purge_bps(struct dbg *d);
/* The debugged process exec'd: forget what was in its memory. */
void replay_dbg_exec_bps(struct dbg *d);
/* The replay went back across an exec (seek.c): gdb's breakpoints of the
 * program after it are gone. */
void replay_dbg_back_exec_bps(struct dbg *d);
/* A seek to a trap at PC: a breakpoint there while it runs, if gdb has
 * none (positions count the traps of breakpoints); 0 drops it. */
void replay_dbg_target_bp(struct dbg *d, uint64_t pc);
/* One more of a seek's own, at PC, beside the target's. */
void replay_dbg_seek_bp(struct dbg *d, uint64_t pc);
enum rec_dbg_go replay_dbg_go_on(struct dbg *d, pid_t tid, int step);

/* ---- watch.c: watchpoints ---- */

/* Whether gdb set a watchpoint. */
int replay_dbg_watching(const struct dbg *d);
/* Note the watched bytes as they are now. */
void replay_dbg_watch_snapshot(struct dbg *d);
int replay_dbg_watch_changed(struct dbg *d);
/* Whether gdb set a read or an access watchpoint: then reads count too. */
int replay_dbg_reading(const struct dbg *d);
/* Task TID, stopped with registers R, is stepped next: note whether its
 * instruction reads or touches a watched location. */
void replay_dbg_watch_ahead(struct dbg *d, pid_t tid, const struct user_regs_struct *r);
/* Task TID made the step watch_ahead looked at: 1 when that step read or
 * touched a watched location (the stop's reason and address are set). */
int replay_dbg_watch_passed(struct dbg *d, pid_t tid);
/* reverse-continue with a read or access watchpoint: search back from
 * BOUND, from CHUNK events before its event (0: from its event; then 1,
 * 2, 4... more each time nothing was found). */
void replay_dbg_search_reads(struct dbg *d, const struct pos *bound, uint64_t chunk);
void replay_dbg_scan_watch(struct dbg *d);
/* WFIND: no task has taken a step in the interval yet. */
void replay_dbg_wsteps_reset(struct dbg *d);
enum rec_dbg_go replay_dbg_wfind_step(struct dbg *d, const struct rec_dbg_stop *st);

/* ---- seek.c: positions, seeking, the recorder's hooks ---- */

/* Name P for people, in OUT. */
/* What `monitor when` says of where D is. */
void replay_dbg_when(struct dbg *d, char *out, size_t size);
void replay_dbg_describe(const struct pos *p, char *out, size_t size);
/* Replay again (d->rerun), in MODE, to TARGET. */
void replay_dbg_seek(struct dbg *d, enum mode mode, const struct pos *target);
int replay_dbg_reverse_by_hits(struct dbg *d);
/* The breakpoints set now are all in from event FRAMES on (0: the start). */
void replay_dbg_known_since(struct dbg *d, uint64_t frames);
void replay_dbg_plan_reverse(struct dbg *d);
void replay_dbg_finish_scan(struct dbg *d, int alive);
/* struct rec_debugger's hooks (recorder/recorder.h), CTX a struct dbg. */
enum rec_dbg_go replay_dbg_stopped(void *ctx, const struct rec_dbg_stop *st);
int replay_dbg_trap(void *ctx, pid_t tid, pid_t tgid, int index, int stepping,
		    const struct rec_dbg_ticks *ticks);
uint64_t replay_dbg_tick_stop(void *ctx, int index);
int replay_dbg_at_tick(void *ctx, pid_t tid, int index, const struct rec_dbg_ticks *ticks);
int replay_dbg_at_event(void *ctx, uint64_t frames, int index);
int replay_dbg_at_exit(void *ctx, uint64_t frames);
int replay_dbg_at_start(void *ctx);
int replay_dbg_at_exec(void *ctx, pid_t tid, pid_t tgid, int index, int stepping,
		       const struct rec_dbg_ticks *ticks);
int replay_dbg_before_exec(void *ctx, pid_t tid, pid_t tgid, int index,
			   const struct rec_dbg_ticks *ticks);

/* ---- checkpoint.c: checkpoints ---- */

/* No checkpoints yet; LIFE_FD < 0: none ever. NEWS_FD: see replay_debug. */
void replay_cp_init(struct dbg *d, int life_fd, int news_fd);
/* struct rec_debugger's checkpoint hooks, CTX a struct dbg. */
int replay_dbg_checkpoint(void *ctx, uint64_t frames, struct rec_cp *cp);
void replay_dbg_no_checkpoints(void *ctx);
/* A seek is planned (d->mode, d->target, d->rerun): when a checkpoint
 * comes before its target, leave RUN to that checkpoint's holder and exit;
 * return only when there is none (replay from the start). */
void replay_cp_restore(struct dbg *d, struct rec *run);
/* For `monitor checkpoints`: where they are. */
void replay_cp_describe(const struct dbg *d, char *out, size_t size);
/* End every holder (their guest copies die with the run's namespace). */
void replay_cp_drop_all(struct dbg *d);

#endif /* HERMIT_REPLAYER_INTERNAL_H */
