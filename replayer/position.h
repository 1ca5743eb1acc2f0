/* SPDX-License-Identifier: BSD-3-Clause */
/* replayer/: positions in a replay under gdb, and the breakpoint hits of
 * one replay (hits.c). */
#ifndef HERMIT_REPLAYER_POSITION_H
#define HERMIT_REPLAYER_POSITION_H

#include <stddef.h>
#include <stdint.h>

enum anchor {
	AT_START,
	AT_EVENT, /* after frame `frames` */
	AT_TRAP,  /* the nth trap at pc by task index since frame `frames` */
	AT_EXIT,  /* the debugged process's last stop, as it exits */
};

/* A stop: an anchor and the single steps after it (seek.c). */
struct pos {
	enum anchor anchor;
	uint64_t frames;
	int index;
	uint64_t pc;
	uint64_t nth;
	uint64_t steps; /* single steps after the anchor */
	int by_task;	/* AT_START, AT_EVENT: the position is task index's, from
			 * its first resume after the anchor, even with no steps */
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
void hits_reset(struct hits *h);
void hits_add(struct hits *h, const struct pos *at, uint64_t move);
/* The last hit before move BEFORE at an address WANTED says yes to, or
 * NULL when there is none. */
const struct pos *hits_last(const struct hits *h, uint64_t before,
			    int (*wanted)(void *ctx, uint64_t pc), void *ctx);
void hits_free(struct hits *h);

#endif
