/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The breakpoint hits of one replay under gdb (internal.h). A replay that
 * ran forwards with its breakpoints in has already passed every hit that a
 * reverse-continue looks for; keeping them lets the reverse-continue go
 * straight to the last one instead of replaying from the start once to
 * find it and once more to stop there (docs/gdb.md).
 */
#include "config.h"

#include <stdlib.h>

#include "common/common.h"
#include "internal.h"

void replay_hits_reset(struct hits *h)
{
	h->n = 0;
	h->whole = 1;
}

void replay_hits_add(struct hits *h, const struct pos *at, uint64_t move)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 64;
		h->v = xrealloc(h->v, h->cap * sizeof(*h->v));
	}
	h->v[h->n].at = *at;
	h->v[h->n].move = move;
	h->n++;
}

const struct pos *replay_hits_last(const struct hits *h, uint64_t before,
				   int (*wanted)(void *ctx, uint64_t pc), void *ctx)
{
	for (size_t i = h->n; i-- > 0;) {
		if (h->v[i].move >= before)
			continue;
		/* An exec of the debugged process (seek.c) is a floor: no hit
		 * before it is the new program's. */
		if (h->v[i].at.anchor == AT_EXEC || wanted(ctx, h->v[i].at.pc))
			return &h->v[i].at;
	}
	return NULL;
}

void replay_hits_free(struct hits *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}
