/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checkpoints of a replay under gdb (DESIGN.md "Replay": "restore the
 * nearest earlier checkpoint (or restart)").
 *
 * A checkpoint is a fork of hermit made while the replay runs forwards,
 * every cp_every events, where the recorder offers one (a guest of one
 * process whose threads wait where a copy can take them, right after an
 * event: recorder/checkpoint.c).
 * The recorder copies the guest process first; the fork (a "holder")
 * keeps the copy, and its own memory is the whole replay's state at that
 * moment, the recorder's and the debugger's. It waits on a socket.
 *
 * To seek to a position (a reverse step or continue, `monitor goto`), the
 * process that serves gdb picks the latest checkpoint before the target,
 * tells the holders of later ones to end, leaves its run (rec_abandon),
 * sends the holder the state only it knows (struct dbg: gdb's breakpoints,
 * the seek, the hits; the RSP session) and exits. The holder revives the
 * copy, takes gdb's connection over and replays from there; first it
 * forks a new holder of the same copy, so the checkpoint stays.
 *
 * Holders are forked through a child that exits at once, so that they are
 * the children of the nearest subreaper: the process that serves gdb (which
 * ignores the exits of children it does not trace), then, once it is gone,
 * the `hermit replay` process. They end when told, or when that process
 * ends (its pipe, life_fd, closes). A holder that takes over tells that
 * process it serves now (news_fd), so that it notices if it dies.
 *
 * HERMIT_CHECKPOINTS=0 turns them off (to compare, or to rule them out);
 * HERMIT_CHECKPOINT_EVERY=N makes the first ones N events apart (tests).
 * `monitor checkpoints` lists them.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/common.h"
#include "internal.h"
#include "tracer/tracer.h"

#define FIRST_EVERY 2000 /* events between checkpoints at first */

static uint64_t first_every(void)
{
	const char *env = getenv("HERMIT_CHECKPOINT_EVERY");
	char *end;
	unsigned long long n = env ? strtoull(env, &end, 10) : 0;

	return env && *env && !*end && n > 0 ? n : FIRST_EVERY;
}

void replay_cp_init(struct dbg *d, int life_fd, int news_fd)
{
	const char *env = getenv("HERMIT_CHECKPOINTS");

	d->life_fd = life_fd;
	d->news_fd = news_fd;
	d->cp_off = life_fd < 0 || (env && strcmp(env, "0") == 0);
	d->cp_every = first_every();
	d->cp_last = 0;
}

void replay_cp_describe(const struct dbg *d, char *out, size_t size)
{
	size_t n;

	if (d->cp_off) {
		snprintf(out, size, "checkpoints are off\n");
		return;
	}
	snprintf(out, size, "%zu checkpoint%s", d->nholders, d->nholders == 1 ? "" : "s");
	for (size_t i = 0; i < d->nholders; i++) {
		n = strlen(out);
		snprintf(out + n, size - n, "%s%" PRIu64 " (%zu thread%s)",
			 i ? ", " : " at events ", d->holders[i].frames, d->holders[i].threads,
			 d->holders[i].threads == 1 ? "" : "s");
	}
	n = strlen(out);
	snprintf(out + n, size - n, "; one every %" PRIu64 " events; %" PRIu64 " restored\n",
		 d->cp_every, d->cp_restores);
}

/* Tell holder I to end, and forget it. */
static void drop(struct dbg *d, size_t i)
{
	hm_write_all(d->holders[i].fd, "D", 1);
	close(d->holders[i].fd);
	memmove(&d->holders[i], &d->holders[i + 1], (--d->nholders - i) * sizeof(d->holders[0]));
}

void replay_dbg_no_checkpoints(void *ctx)
{
	replay_cp_drop_all(ctx);
}

void replay_cp_drop_all(struct dbg *d)
{
	while (d->nholders)
		drop(d, d->nholders - 1);
	d->cp_last = 0;
	d->cp_every = first_every();
}

static int hold(struct dbg *d, struct rec_cp *cp, int fd, uint64_t frames);

/* Fork a holder of CP (the checkpoint at FRAMES): 0 here, or -1 when it
 * could not be made; in the holder, once it took over, what hold() says. */
static int spawn(struct dbg *d, struct rec_cp *cp, uint64_t frames)
{
	int sv[2], st, watching, err;
	pid_t mid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	/* Forked without the block watch thread, which may be in malloc (the
	 * holder starts its own when it takes over: tracer/blockwatch.c). */
	watching = tracer_blockwatch_pause();
	mid = fork();
	if (mid == 0) {
		pid_t h;

		tracer_regs_forget(); /* the registers of the parent's tasks */
		h = fork();

		if (h != 0)
			_exit(h < 0);
		close(sv[0]);
		return hold(d, cp, sv[1], frames);
	}
	if (watching && (err = tracer_blockwatch_resume()) < 0)
		hm_error("cannot start the block watch thread again: %s", hm_strerror(err));
	close(sv[1]);
	if (mid > 0) {
		pid_t got;

		do
			got = waitpid(mid, &st, __WALL);
		while (got < 0 && errno == EINTR);
		if (got != mid)
			mid = -1;
	}
	if (mid < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		close(sv[0]);
		return -1;
	}
	d->holders[d->nholders].frames = frames;
	d->holders[d->nholders].threads = rec_cp_threads(cp);
	d->holders[d->nholders].fd = sv[0];
	d->nholders++;
	return 0;
}

int replay_dbg_checkpoint(void *ctx, uint64_t frames, struct rec_cp *cp)
{
	struct dbg *d = ctx;
	int r;

	if (d->cp_off || frames < d->cp_last + d->cp_every)
		return 0;
	for (size_t i = 0; i < d->nholders; i++) {
		if (d->holders[i].frames >= frames)
			return 0; /* one here or later already */
	}
	d->cp_last = frames;
	if (d->nholders == MAX_HOLDERS) {
		/* Keep every other one, twice as far apart from now on. */
		for (size_t i = 1; i < d->nholders; i++)
			drop(d, i);
		d->cp_every *= 2;
	}
	r = rec_cp_copy(cp);
	if (r == -EPERM)
		d->cp_off = 1; /* it will not be able to, later either */
	if (r < 0)
		return 0;
	d->ncopy_bps = 0;
	for (size_t i = 0; i < d->nbps; i++) {
		if (d->bps[i].inserted)
			d->copy_bps[d->ncopy_bps++] = d->bps[i];
	}
	r = spawn(d, cp, frames);
	if (r == 0)
		hm_debug("checkpoint at event %" PRIu64 " (%zu kept)", frames, d->nholders);
	if (r < 0) {
		rec_cp_drop(cp);
		return 0;
	}
	return r;
}

/* The latest checkpoint from which the seek in d->mode to d->target can
 * start, or NULL. */
static struct holder *pick(struct dbg *d)
{
	const struct pos *t = &d->target;
	struct holder *best = NULL;

	if (t->anchor == AT_START)
		return NULL;
	for (size_t i = 0; i < d->nholders; i++) {
		struct holder *h = &d->holders[i];
		int ok = t->anchor == AT_EXIT || h->frames < t->frames ||
			 (h->frames == t->frames &&
			  (d->mode != SCAN || t->anchor == AT_TRAP || t->steps || t->by_task));

		if (ok && (!best || h->frames > best->frames))
			best = h;
	}
	return best;
}

/* Wait up to MS ms for byte WANT on FD: 0, or -1. */
static int await(int fd, char want, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };
	char c;
	int n;

	do
		n = poll(&p, 1, ms);
	while (n < 0 && errno == EINTR);
	return n > 0 && hm_read_all(fd, &c, 1) == 0 && c == want ? 0 : -1;
}

void replay_cp_restore(struct dbg *d, struct rec *run)
{
	size_t size = rsp_session_state_size(), n;
	char *rsp = xmalloc(size);
	struct holder *h;

	while ((h = pick(d))) {
		uint64_t at = h->frames;
		int fd = h->fd;

		for (size_t i = d->nholders; i-- > 0;) {
			if (d->holders[i].frames > at)
				drop(d, i);
		}
		d->scan_base = d->mode == SCAN ? at : 0;
		d->cp_restores++;
		hm_debug("debugger: from the checkpoint at event %" PRIu64, at);
		rsp_session_save(d->rsp, rsp);
		n = d->hits.n;
		/* The holder answers once it has the state; only then is this
		 * run left to it (the run stays here when it does not). */
		if (hm_write_all(fd, "T", 1) == 0 && hm_write_all(fd, d, sizeof(*d)) == 0 &&
		    hm_write_all(fd, &n, sizeof(n)) == 0 &&
		    hm_write_all(fd, d->hits.v, n * sizeof(*d->hits.v)) == 0 &&
		    hm_write_all(fd, rsp, size) == 0 && await(fd, 'A', 5000) == 0) {
			rec_abandon(run);
			hm_write_all(fd, "G", 1);
			_exit(0); /* the holder serves gdb now */
		}
		hm_warn("the checkpoint at event %" PRIu64 " is gone", at);
		for (size_t i = 0; i < d->nholders; i++) {
			if (d->holders[i].fd == fd)
				drop(d, i);
		}
		d->cp_restores--;
	}
	free(rsp);
}

/* Take over from the process that served gdb, whose state is on FD: a
 * struct dbg, the hits, the RSP session. 0, or -1 when it did not come. */
static int take_state(struct dbg *d, int fd, uint64_t frames)
{
	struct dbg mine = *d;
	size_t n, size = rsp_session_state_size(), keep = 0;
	char *rsp = xmalloc(size);
	struct hit *v;

	if (hm_read_all(fd, d, sizeof(*d)) < 0 || hm_read_all(fd, &n, sizeof(n)) < 0 ||
	    n > (size_t)1 << 26) {
		*d = mine;
		free(rsp);
		return -1;
	}
	v = xcalloc(n + 1, sizeof(*v));
	if (hm_read_all(fd, v, n * sizeof(*v)) < 0 || hm_read_all(fd, rsp, size) < 0) {
		*d = mine;
		free(v);
		free(rsp);
		return -1;
	}
	/* The hits before the checkpoint stand; this replay finds the rest. */
	for (size_t i = 0; i < n; i++) {
		if (v[i].at.frames < frames)
			v[keep++] = v[i];
	}
	free(mine.hits.v);
	d->hits.v = v;
	d->hits.n = keep;
	d->hits.cap = n + 1;
	d->rsp = mine.rsp;
	rsp_session_load(d->rsp, rsp);
	/* (its pointer is the other process's: a WFIND's counts start here,
	 * at its anchor or before it) */
	d->wsteps = mine.wsteps;
	d->nwsteps = mine.nwsteps;
	replay_dbg_wsteps_reset(d);
	free(rsp);
	uint64_t live_frames[MAX_HOLDERS];
	int live_fds[MAX_HOLDERS];
	size_t d_live_n = d->nholders;

	for (size_t k = 0; k < d_live_n; k++) {
		live_frames[k] = d->holders[k].frames;
		live_fds[k] = d->holders[k].fd;
	}
	/* What belongs to this replay, at this point, is ours. */
	d->stop = NULL;
	d->frames = mine.frames;
	d->gen = mine.gen;
	d->execs = mine.execs;
	d->exec_index = mine.exec_index;
	d->exec_ticks = mine.exec_ticks;
	memcpy(d->counts, mine.counts, sizeof(d->counts));
	d->ncounts = mine.ncounts;
	/* Ours are those made before we were; of them, those the process that
	 * served gdb still has (it ends some when there are too many). */
	d->nholders = 0;
	for (size_t i = 0; i < mine.nholders; i++) {
		int live = 0;

		for (size_t k = 0; k < d_live_n; k++)
			live |= live_frames[k] == mine.holders[i].frames &&
				live_fds[k] == mine.holders[i].fd;
		if (live)
			d->holders[d->nholders++] = mine.holders[i];
		else
			close(mine.holders[i].fd);
	}
	d->cp_last = frames;
	d->cp_every = mine.cp_every;
	d->rerun = 0;
	/* Our copy has the breakpoints that were in when it was made. */
	for (size_t i = 0; i < d->nbps; i++)
		d->bps[i].inserted = 0;
	d->ncopy_bps = mine.ncopy_bps;
	memcpy(d->copy_bps, mine.copy_bps, sizeof(d->copy_bps));
	return 0;
}

/* The holder of CP (at FRAMES): wait until told to end (exit) or to take
 * over: 1, the replay goes on here, from the checkpoint; 2, it cannot
 * (the run ends, and this process replays from the start). */
static int hold(struct dbg *d, struct rec_cp *cp, int fd, uint64_t frames)
{
	pid_t pid;
	char kind = 0;
	int r;

	hm_debug("checkpoint at event %" PRIu64 ": process %d keeps it", frames, (int)getpid());
	for (;;) {
		struct pollfd p[2] = { { fd, POLLIN, 0 }, { d->life_fd, POLLIN, 0 } };

		if (poll(p, 2, -1) < 0 && errno == EINTR)
			continue;
		if (p[1].revents) {
			hm_debug("checkpoint at event %" PRIu64 ": life %#x", frames, p[1].revents);
			break; /* hermit replay ended */
		}
		if (p[0].revents) {
			if (hm_read_all(fd, &kind, 1) < 0 || kind != 'T' ||
			    take_state(d, fd, frames) < 0 || hm_write_all(fd, "A", 1) < 0)
				kind = 0;
			/* The run is ours once the other process has left it
			 * ('G'), or is gone. */
			else if (await(fd, 'G', 30000) < 0)
				hm_debug("checkpoint at event %" PRIu64 ": no go, taking over",
					 frames);
			break;
		}
	}
	if (kind != 'T') {
		hm_debug("checkpoint at event %" PRIu64 ": ends", frames);
		rec_cp_drop(cp);
		_exit(0);
	}
	hm_debug("checkpoint at event %" PRIu64 ": takes over", frames);
	close(fd);
	{
		/* This process serves gdb from now on. */
		struct replay_news news = { REPLAY_NEWS_SERVER, (int)getpid() };

		hm_write_all(d->news_fd, &news, sizeof(news));
	}
	if (rec_cp_revive(cp, &pid) < 0) {
		/* Replay from the start instead, and from now on. */
		hm_warn("checkpoints are off for this session: seeks replay from the start");
		d->rerun = 1;
		d->cp_off = 1;
		replay_cp_drop_all(d);
		return 2;
	}
	d->tgid = pid;
	for (size_t i = 0; i < d->ncopy_bps; i++)
		tracer_poke_byte(pid, d->copy_bps[i].addr, &d->copy_bps[i].orig, NULL);
	/* As a replay from the start has them from its first stop on. */
	if (d->mode == LIVE || d->mode == SCAN || d->mode == AT_END || !d->anchored) {
		replay_dbg_insert_bps(d);
		replay_dbg_known_since(d, frames);
	} else {
		d->known = 0;
	}
	if (d->wsnap_due) {
		replay_dbg_watch_snapshot(d);
		d->wsnap_due = 0;
	}
	/* Keep this checkpoint for the next time. */
	r = spawn(d, cp, frames);
	if (r > 0)
		return r; /* the new holder, which took over in turn */
	if (r < 0)
		rec_cp_drop(cp);
	return 1;
}
