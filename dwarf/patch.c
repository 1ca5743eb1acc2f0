/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counted sites (DESIGN.md "Progress without a PMU"): which instructions
 * count a tick, and the code that counts them.
 *
 * The plan comes from a linear decode of every executable section: the
 * common instructions from insnlen.c's tables, the others with Zydis.
 * A site is an instruction through which every loop and every recursion
 * must pass: a direct branch or call to an address at or below its own
 * (any cycle of control flow, laid out in address order, goes down
 * somewhere; returns only unwind what calls did), and every indirect jump
 * or call; chaos adds a seeded sample of other instructions. Each site
 * becomes a 5-byte jump to a trampoline, taking neighbouring instructions
 * along when it is shorter, so long as no known entry point (a direct
 * branch target, a return address, a function symbol) falls inside what
 * is taken, in the manner of E9Patch (Duck et al., PLDI 2020) without its
 * instruction punning. A site no jump can take keeps an int3 that the
 * tracer counts the same way. The trampolines, the code that counts, are
 * emitted by patchemit.c.
 *
 * This file chooses the ranges and makes the plan. What each instruction
 * is comes from plandecode.c's decode; planelf.c reads an ELF file's
 * executable sections, function symbols and jump tables and plans them;
 * planstate.h holds the state they share.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "dwarf/planstate.h"

/* Whether a known entry point lies in (lo, hi). */
static int entry_inside(const struct plan_state *s, uint64_t lo, uint64_t hi)
{
	for (uint64_t a = lo + 1; a < hi; a++) {
		if (a < s->base || a - s->base > s->size)
			return 1; /* out of the segment: never taken */
		if (s->targets[(a - s->base) / 8] & (1u << ((a - s->base) % 8)))
			return 1;
	}
	return 0;
}

/* Whether a known entry point is at A. */
static int entry_at(const struct plan_state *s, uint64_t a)
{
	return entry_inside(s, a - 1, a + 1);
}

static int contiguous(const struct plan_state *s, size_t from, size_t to)
{
	for (size_t k = from; k < to; k++) {
		if (ia(s, k) + s->in[k].len != ia(s, k + 1))
			return 0;
	}
	return 1;
}

/* Whether one of instructions [F, L] writes every status flag and reads
 * none (I_FLAGS). */
static int writes_flags_in(const struct plan_state *s, size_t f, size_t l)
{
	for (size_t k = f; k <= l; k++) {
		if (s->in[k].flags & I_FLAGS)
			return 1;
	}
	return 0;
}

/* Whether the flags are dead at the start of a range [F, I] of site I as
 * far as the plan can tell: an instruction in it writes them all, or I is
 * a call (no flags live across a call: patchemit.c). */
static int dead_flags_in(const struct plan_state *s, size_t f, size_t i)
{
	return (s->in[i].flags & I_CALL) || writes_flags_in(s, f, i);
}

/* Whether a direct branch goes to one of the 4 bytes before A, other than
 * OWN: a range from A leaves no room there for a range that counts at that
 * target (at_target). (OWN is the site's own target: its loop is counted
 * by the range itself.) */
static int target_just_before(const struct plan_state *s, uint64_t a, uint64_t own)
{
	for (uint64_t t = a - 4; t < a; t++) {
		if (t >= s->base && t != own && plan_bit(s->direct, s, t))
			return 1;
	}
	return 0;
}

/* The range for site I (a direct branch to TARGET, or 0): instructions
 * [*first, *last], none of them COVERED by another range; 0 for none.
 * With SITES, a conditional branch that is a site of its own may follow
 * it in the range: plan_finish's try before an int3 (every pass through
 * such a follower went through the range's start). */
static int choose_range(const struct plan_state *s, size_t i, uint64_t target, int sites,
			size_t *first, size_t *last)
{
	const struct insn *in = s->in;

	if (!(in[i].flags & I_RELOC))
		return 0;
	/* Instructions before the site first: what follows a branch is often
	 * where the next site needs its own (a call's argument set-up). */
	for (size_t after = 0; after <= 4 && i + after < s->n; after++) {
		size_t l = i + after, found = s->n;

		if (after) {
			/* Followers run by falling through from the site. */
			if ((in[i].flags & (I_ENDS | I_CALL)) || !(in[l].flags & I_MOVABLE) ||
			    (in[l].mark & M_COVERED) ||
			    ((in[l].flags & I_SITE) && !(in[l].flags & I_CHAOS) && !sites) ||
			    !contiguous(s, l - 1, l))
				break;
		}
		for (size_t before = 0; before <= 4 && before <= i; before++) {
			size_t f = i - before;
			uint64_t end = ia(s, l) + in[l].len;

			/* A chaos pick in a range is taken along, uncounted; a
			 * site that must count is not. */
			if (before && (!(in[f].flags & I_MOVABLE) || (in[f].mark & M_COVERED) ||
				       ((in[f].flags & I_SITE) && !(in[f].flags & I_CHAOS)) ||
				       !contiguous(s, f, f + 1)))
				break;
			if (entry_inside(s, ia(s, f), end))
				break; /* further back cannot help: the entry stays inside */
			if (end - ia(s, f) < 5)
				continue;
			/* The fewest that make 5 bytes, or further back to an
			 * instruction that writes the flags (the cmp of `cmp;
			 * jne` before a jne rel32): then the flags are dead at
			 * the range's start and its count is the short one
			 * (patchemit.c), where it would save and restore %rcx. */
			if (found == s->n)
				found = f;
			else if (target_just_before(s, ia(s, f), target) || (in[f].flags & I_RELOC))
				break; /* a loop counted at that target needs these; a
					* branch would leave the range before the site */
			if (dead_flags_in(s, f, i)) {
				found = f;
				break;
			}
		}
		if (found != s->n) {
			*first = found;
			*last = l;
			return 1;
		}
	}
	return 0;
}

/*
 * A call site counted before it: instructions [*FIRST, I) that run
 * straight into the call I (at least 5 bytes; none covered or a site
 * that must count; no entry point among them or at the call), so that
 * the call stays where it is. A call made in a trampoline pushes the
 * original return address and jumps: the CPU's return predictor never
 * saw a call, and the callee's ret mispredicts every time (a loop that
 * calls a function took 10x its native time, 1.5 of it counting).
 * 1 and *FIRST, or 0.
 */
static int choose_before(const struct plan_state *s, size_t i, size_t *first)
{
	const struct insn *in = s->in;
	int found = 0;

	for (size_t before = 1; before <= 4 && before <= i; before++) {
		size_t f = i - before;

		if (!(in[f].flags & I_MOVABLE) || (in[f].mark & M_COVERED) ||
		    ((in[f].flags & I_SITE) && !(in[f].flags & I_CHAOS)) ||
		    !contiguous(s, f, f + 1) || entry_inside(s, ia(s, f), ia(s, i) + 1))
			break;
		if (ia(s, i) - ia(s, f) < 5)
			continue;
		/* The fewest that make 5 bytes, or further back to an entry
		 * point: a loop that goes there (a branch counted at its
		 * target) is then counted by this range too. */
		if (!found || entry_at(s, ia(s, f)))
			*first = f;
		found = 1;
	}
	return found;
}

/*
 * The direct call C from whose return address R the backward branch I (a
 * direct one, to TARGET) is reached only by falling through: the
 * instructions from R to I run straight, with no entry point among them,
 * and no direct branch or call goes to R. s->n for none.
 */
static size_t call_before(const struct plan_state *s, size_t i, uint64_t target)
{
	const struct insn *in = s->in;
	size_t k = i;

	/* (a direct branch only: an indirect jump is what counts a return
	 * address reached some other way) */
	if (!target || (in[i].flags & (I_CALL | I_CHAOS)))
		return s->n;
	for (int n = 0; n < 16 && k > 0 && contiguous(s, k - 1, k); n++, k--) {
		uint64_t r = ia(s, k);

		if (!(in[k - 1].flags & I_CALL))
			continue;
		/* (r is in the segment: an instruction follows it) */
		return entry_inside(s, r, ia(s, i) + 1) || plan_bit(s->direct, s, r) ? s->n : k - 1;
	}
	return s->n;
}

/*
 * Whether the backward branch I (TARGET its target) needs no count of its
 * own: it is reached only by falling through from the return address R of
 * a call C that is itself a site (so counted), the instructions from R to
 * it straight-line with no entry point among them, and no direct branch or
 * call to R (call_before). Then every cycle through I returns from C
 * first, and C counts it. (R is reached otherwise only by an indirect
 * jump or call, which counts, or a return to an address pushed by hand;
 * a loop of those that the planner cannot see is left to the spin watch,
 * as any uncounted code is.) This is `call f; test %al,%al; jne back`,
 * whose return address leaves no room for a jump: an int3 and a stop per
 * pass before (cc1's ipa_reverse_postorder, node's start-up).
 */
static int after_counted_call(const struct plan_state *s, size_t i, uint64_t target)
{
	size_t c = call_before(s, i, target);

	return c != s->n && (s->in[c].flags & I_SITE) && !(s->in[c].flags & I_CHAOS);
}

/*
 * Whether the backward branch I (to TARGET), which nothing else counts,
 * is reached only by falling through from the return address R of a
 * direct call C that is no site: then C is counted before it (a range
 * [*F, C) of choose_before's, *C), and I needs no count of its own, as
 * after_counted_call's branch (the same conditions from R on). `call f;
 * test %al,%al; je back` with R and the instruction after the je both
 * entry points: cc1's hottest int3 once join_previous had come.
 */
static int count_the_call(const struct plan_state *s, size_t i, uint64_t target, size_t *f,
			  size_t *c)
{
	*c = call_before(s, i, target);
	return *c != s->n && !(s->in[*c].flags & I_SITE) && !(s->in[*c].mark & M_COVERED) &&
	       choose_before(s, *c, f);
}

/* Bytes a range may grow to by join_previous (its trampoline re-encodes
 * them, rel8 branches as rel32: well within DW_PATCH_TRAMP_MAX). */
#define JOIN_MAX 32

/*
 * Whether the direct jump or branch I (to TARGET), with no range of its
 * own, can join the last range of PLAN, which ends where I starts: I is
 * no entry point (it runs only by falling through that range, whose
 * count at its start then stands for I too) and is no call. The range
 * grows over I. `jne L1; jmp L2` and `cmp; jb L1; jmp L2`, both of them
 * loops: cc1's next hottest int3s once a site could take the sites after
 * it along.
 */
static int join_previous(const struct plan_state *s, struct dw_patch_plan *plan, size_t i,
			 uint64_t target)
{
	struct dw_patch_range *r = plan->n ? &plan->ranges[plan->n - 1] : NULL;
	const struct insn *in = s->in;

	if (!r || r->kind != DW_PATCH_JUMP || r->site >= r->len || i == 0 ||
	    r->addr + r->len != ia(s, i) || !contiguous(s, i - 1, i) ||
	    (in[i - 1].flags & I_ENDS) || (in[i].flags & (I_CALL | I_CHAOS)) ||
	    !(in[i].flags & I_RELOC) || !target || entry_at(s, ia(s, i)) ||
	    r->len + in[i].len > JOIN_MAX)
		return 0;
	r->len = (uint16_t)(r->len + in[i].len);
	return 1;
}

static void add_range(struct dw_patch_plan *plan, const struct dw_patch_range *r)
{
	if (plan->n == plan->cap) {
		plan->cap = plan->cap ? 2 * plan->cap : 1024;
		plan->ranges = xrealloc(plan->ranges, plan->cap * sizeof(*plan->ranges));
	}
	plan->ranges[plan->n++] = *r;
}

static int by_range(const void *a, const void *b)
{
	uint64_t x = ((const struct dw_patch_range *)a)->addr;
	uint64_t y = ((const struct dw_patch_range *)b)->addr;

	return x < y ? -1 : x > y;
}

static void free_ranges(struct dw_patch_plan *p)
{
	free(p->ranges);
	p->ranges = NULL;
	p->n = p->cap = 0;
}

/* A slot of 5 bytes of dead padding within a rel8 of the 2-byte branch
 * I (TARGET its target), or of a jmp rel8 put in place of the indirect
 * call or jump I of 2 to 4 bytes (TARGET 0: the trampoline makes it,
 * pushing the original return address), taken from its pad: *SLOT, and
 * 1; 0 when there is none. */
static int pad_slot(struct plan_state *s, size_t i, uint64_t target, uint64_t *slot)
{
	const struct insn *in = &s->in[i];
	uint64_t from = ia(s, i) + 2, lo = from - 128, hi = from + 127;
	size_t a = 0, b = s->npads;
	int branch = target && in->len == 2;
	int indirect = !target && in->len >= 2 && in->len < 5 && (in->flags & (I_CALL | I_ENDS));

	if (!(in->flags & I_RELOC) || (!branch && !indirect))
		return 0;
	while (a < b) { /* the first pad that ends past LO */
		size_t m = (a + b) / 2;

		if (s->pads[m].end <= lo + 5)
			a = m + 1;
		else
			b = m;
	}
	for (; a < s->npads && s->pads[a].start <= hi; a++) {
		struct pad *p = &s->pads[a];
		uint64_t at = p->start < lo ? lo : p->start;

		if (at + 5 > p->end || at > hi || entry_inside(s, at - 1, at + 5))
			continue;
		if (at == p->start)
			p->start += 5;
		else
			p->end = at; /* what is left after the slot is lost; fine */
		*slot = at;
		return 1;
	}
	return 0;
}

/* A jmp that no range can take may take the dead padding after it along
 * (nothing runs there): instructions [I, *LAST], and 1. */
static int take_padding(struct plan_state *s, size_t i, size_t *last)
{
	const struct insn *in = s->in;
	uint64_t end = ia(s, i) + in[i].len;
	size_t a = 0, b = s->npads, l = i;

	if (!(in[i].flags & I_ENDS) || (in[i].flags & I_CALL) || !(in[i].flags & I_RELOC))
		return 0;
	while (a < b) { /* the pad that starts at END */
		size_t m = (a + b) / 2;

		if (s->pads[m].start < end)
			a = m + 1;
		else
			b = m;
	}
	if (a == s->npads || s->pads[a].start != end)
		return 0;
	while (end - ia(s, i) < 5) {
		if (l + 1 >= s->n || !(in[l + 1].flags & I_PAD) || ia(s, l + 1) != end ||
		    ia(s, l + 1) + in[l + 1].len > s->pads[a].end)
			return 0;
		l++;
		end += in[l].len;
	}
	s->pads[a].start = end;
	*last = l;
	return 1;
}

/* (planstate.h) */
void plan_state_free(struct plan_state *s)
{
	free(s->tables);
	free(s->abs_tables);
	free(s->in);
	free(s->pads);
	free(s->targets);
	free(s->direct);
	free(s->starts);
	free(s->syms);
	free(s->funcs);
	free(s->called);
	free(s->fwd);
	free(s->refs);
	free(s->objects);
	free(s->sites);
}

/* (planstate.h) A binary search: the instructions are in address order. */
size_t plan_insn_from(const struct plan_state *s, uint64_t addr)
{
	size_t a = 0, b = s->n;

	while (a < b) {
		size_t m = (a + b) / 2;

		if (ia(s, m) < addr)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

size_t plan_insn_at(const struct plan_state *s, uint64_t addr)
{
	size_t a = plan_insn_from(s, addr);

	return a < s->n && ia(s, a) == addr ? a : s->n;
}

/*
 * A backward branch I that no jump can take (sort's `call; test; jns` loop,
 * its neighbours a return address and a branch target) may be counted at
 * its target instead, where a loop's every turn passes too: a range that
 * starts there. *F, *L and 1 when one can be had (*F == *L == s->n when a
 * range already starts there); 0 when not.
 */
static int at_target(struct plan_state *s, size_t i, uint64_t target,
		     const struct dw_patch_plan *plan, const struct dw_patch_plan *back, size_t *f,
		     size_t *l)
{
	size_t j;
	uint8_t flags;
	int ok;

	if (!target || target > ia(s, i) || (s->in[i].flags & I_CALL) ||
	    (j = plan_insn_at(s, target)) == s->n || (s->in[j].flags & I_PAD))
		return 0;
	if ((s->in[j].mark & M_COVERED) && !s->unordered) {
		/* (in address order, no two instructions share an address) */
		if (!(s->in[j].mark & M_JUMP))
			return 0;
		*f = *l = s->n;
		return 1;
	}
	if (s->in[j].mark & M_COVERED) {
		for (size_t k = 0; k < plan->n + back->n; k++) {
			const struct dw_patch_range *r =
				k < plan->n ? &plan->ranges[k] : &back->ranges[k - plan->n];

			if (r->addr == ia(s, j) && r->kind == DW_PATCH_JUMP) {
				*f = *l = s->n;
				return 1;
			}
		}
		return 0;
	}
	if (!(s->in[j].flags & (I_MOVABLE | I_RELOC)))
		return 0;
	flags = s->in[j].flags;
	s->in[j].flags |= I_RELOC;
	/* (no instruction before it: the target would be inside) */
	ok = choose_range(s, j, 0, 0, f, l) && *f == j;
	s->in[j].flags = flags;
	return ok;
}

/* Instructions [F, L] are in a range. */
static void cover(struct plan_state *s, size_t f, size_t l)
{
	for (size_t k = f; k <= l; k++)
		s->in[k].mark |= M_COVERED;
}

/* R: a jump's range over instructions [F, L], from F to END, counting at
 * SITE (END itself when it counts before a call at END). */
static void jump_range(struct plan_state *s, struct dw_patch_plan *plan, struct dw_patch_range *r,
		       size_t f, size_t l, uint64_t end, uint64_t site)
{
	r->addr = ia(s, f);
	r->len = (uint16_t)(end - r->addr);
	r->kind = DW_PATCH_JUMP;
	r->site = (uint16_t)(site - r->addr);
	cover(s, f, l);
	s->in[f].mark |= M_JUMP;
	plan->njump++;
}

/* Whether RANGES[A, B) are in address order. */
static int in_order(const struct dw_patch_range *ranges, size_t a, size_t b)
{
	for (size_t k = a + 1; k < b; k++) {
		if (ranges[k].addr <= ranges[k - 1].addr)
			return 0;
	}
	return 1;
}

/*
 * PLAN's ranges by address, with BACK's (freed) among them. Each pass
 * makes its ranges in address order (a site's range starts past the one
 * before it), so the two passes' and BACK's, sorted, are merged; any
 * other order is sorted whole. (No two ranges start at one address, so
 * every way of sorting gives the same order.)
 */
static void sort_ranges(struct dw_patch_plan *plan, size_t n0, struct dw_patch_plan *back)
{
	struct dw_patch_range *v;
	size_t a = 0, b = 0, c = n0, k = 0;

	if (back->n)
		qsort(back->ranges, back->n, sizeof(*back->ranges), by_range);
	if (!back->n && in_order(plan->ranges, 0, plan->n))
		return;
	if (!in_order(plan->ranges, 0, n0) || !in_order(plan->ranges, n0, plan->n)) {
		for (size_t i = 0; i < back->n; i++)
			add_range(plan, &back->ranges[i]);
		qsort(plan->ranges, plan->n, sizeof(*plan->ranges), by_range);
		free_ranges(back);
		return;
	}
	if (n0 == plan->n && plan->n + back->n <= plan->cap) {
		/* One pass's: BACK merged in place, from the end. */
		size_t i = plan->n, j = back->n;

		k = plan->n + back->n;
		while (j > 0) {
			if (i > 0 && plan->ranges[i - 1].addr > back->ranges[j - 1].addr)
				plan->ranges[--k] = plan->ranges[--i];
			else
				plan->ranges[--k] = back->ranges[--j];
		}
		plan->n += back->n;
		free_ranges(back);
		return;
	}
	v = xmalloc((plan->n + back->n) * sizeof(*v));
	while (a < back->n || b < n0 || c < plan->n) {
		const struct dw_patch_range *x = a < back->n ? &back->ranges[a] : NULL;
		const struct dw_patch_range *y = b < n0 ? &plan->ranges[b] : NULL;
		const struct dw_patch_range *z = c < plan->n ? &plan->ranges[c] : NULL;
		const struct dw_patch_range *m = x;

		if (y && (!m || y->addr < m->addr))
			m = y;
		if (z && (!m || z->addr < m->addr))
			m = z;
		v[k++] = *m;
		if (m == x)
			a++;
		else if (m == y)
			b++;
		else
			c++;
	}
	free(plan->ranges);
	plan->ranges = v;
	plan->n = plan->cap = k;
	free_ranges(back);
}

/* Whether code certainly starts at A: a function symbol or a code
 * section's start, a direct call's target, an endbr64 (instruction K when
 * it starts at A, else s->n). */
static int code_at(const struct plan_state *s, uint64_t a, size_t k)
{
	if (!plan_holds(s, a))
		return 1;
	return plan_bit(s->funcs, s, a) || plan_bit(s->called, s, a) ||
	       (k < s->n && ia(s, k) == a && (s->in[k].mark & M_ENDBR));
}

/* A ref's target and its place in s->refs, to go through them by target. */
struct by_to {
	uint64_t to;
	size_t i;
};

static int by_target(const void *a, const void *b)
{
	const struct by_to *x = a, *y = b;

	return x->to < y->to ? -1 : x->to > y->to;
}

/* The ref that instruction K names (s->refs are in the order of their
 * instructions, one at most each), or NULL. */
static const struct ref *named_by(const struct plan_state *s, size_t k)
{
	size_t a = 0, b = s->nrefs;

	while (a < b) {
		size_t m = (a + b) / 2;

		if (s->refs[m].from < k)
			a = m + 1;
		else
			b = m;
	}
	return a < s->nrefs && s->refs[a].from == k ? &s->refs[a] : NULL;
}

/* No pad in [LO, HI) any more (pads are by address, apart). */
static void drop_pads(struct plan_state *s, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = s->npads;

	while (a < b) { /* the first pad that ends past LO */
		size_t m = (a + b) / 2;

		if (s->pads[m].end <= lo)
			a = m + 1;
		else
			b = m;
	}
	for (; a < s->npads && s->pads[a].start < hi; a++)
		s->pads[a].end = s->pads[a].start;
}

/* Whether a byte that decodes as nothing lies between instruction K - 1
 * (the one before T, or over it) and LIMIT: data often has one (K256's
 * second byte, 0x2f, is no instruction in 64-bit mode), compiled code
 * never. */
static int gap_near(const struct plan_state *s, size_t k, uint64_t limit)
{
	for (size_t q = k ? k - 1 : 0; q + 1 < s->n && ia(s, q) < limit; q++) {
		if (ia(s, q) + s->in[q].len < ia(s, q + 1))
			return 1;
	}
	return 0;
}

/* The first instruction of the data that T, in or at instruction K,
 * starts: back to the aligned padding before an aligned table, else
 * (where code certainly starts first) to the nearest padding, else K. */
static size_t data_start(const struct plan_state *s, size_t k, uint64_t done)
{
	size_t j, pad = k;
	int have_pad = 0;

	for (j = k; j > 0 && ia(s, j - 1) >= done; j--) {
		uint64_t end = ia(s, j - 1) + s->in[j - 1].len;

		if (code_at(s, ia(s, j - 1), j - 1))
			return pad;
		if (s->in[j - 1].flags & I_PAD) {
			if (end % 16 == 0)
				return plan_bit(s->fwd, s, end) ? k : j;
			if (!have_pad) {
				pad = j;
				have_pad = 1;
			}
		}
	}
	return j;
}

/* M_DATA on the data (objects, and what the refs in use name; BY in
 * target order); with DROP, no pad there either. */
static void mark_data(struct plan_state *s, const struct by_to *by, int drop)
{
	uint64_t done = 0; /* data up to here is marked */

	for (size_t k = 0; k < s->n; k++)
		s->in[k].mark &= (uint8_t)~M_DATA;
	for (size_t o = 0; o < s->nobjects; o++) {
		size_t k = plan_insn_from(s, s->objects[o].start);

		if (k > 0 && ia(s, k - 1) + s->in[k - 1].len > s->objects[o].start)
			k--; /* (decoded over its start) */
		for (; k < s->n && ia(s, k) < s->objects[o].end; k++)
			s->in[k].mark |= M_DATA;
		if (drop)
			drop_pads(s, s->objects[o].start, s->objects[o].end);
	}
	for (size_t x = 0; x < s->nrefs;) {
		uint64_t t = by[x].to, start;
		int used = 0, read = 0;
		size_t k, j, e;

		for (; x < s->nrefs && by[x].to == t; x++) {
			used |= s->refs[by[x].i].use;
			read |= s->refs[by[x].i].use && !s->refs[by[x].i].lea;
		}
		if (!used || t < done)
			continue;
		k = plan_insn_from(s, t);
		if (code_at(s, t, k))
			continue;
		/* (the instruction the decode made over it too) */
		if (k > 0 && ia(s, k - 1) + s->in[k - 1].len > t)
			k--;
		/* An address only taken (lea) may be code's (glibc's IFUNC
		 * resolvers take their variants' addresses, which have no
		 * endbr64): data only with a gap near it. */
		if (!read && !gap_near(s, k, t + 256))
			continue;
		j = data_start(s, k, done);
		/* Up to where code certainly starts, or code reads or takes
		 * what lies behind it in this data: code after its table
		 * (libcrypto's SHA-256 functions after K256, which have no
		 * symbol there). */
		for (e = k; e < s->n; e++) {
			const struct ref *f;

			if (ia(s, e) > t && code_at(s, ia(s, e), e))
				break;
			if (ia(s, e) > t && (s->in[e].mark & M_NAMES) && (f = named_by(s, e)) &&
			    f->use && f->to >= ia(s, j) && f->to < ia(s, e))
				break;
		}
		start = j < s->n ? ia(s, j) : t;
		for (k = j; k < e; k++)
			s->in[k].mark |= M_DATA;
		done = e < s->n ? ia(s, e) : s->base + s->size;
		if (drop)
			drop_pads(s, start, done);
	}
}

/*
 * Data in the code: constants that hand-written assembly keeps in .text
 * beside the functions that read them (OpenSSL's SHA-256 and SHA-512
 * round constants, AES tables, whirlpool's table), which the linear decode
 * takes for instructions. A jump or an int3 written there changes the
 * data: under hermit, OpenSSL's SHA-256 of "abc" was wrong in node,
 * python3's hashlib and `openssl dgst`.
 *
 * What is data: a data symbol's extent (STT_OBJECT: ecp_nistz256's
 * 150 KB table in node); and where code reads or writes an address in
 * the segment rip-relative (movdqa K256+0x800(%rip)), or takes one (lea)
 * with some byte near it that is no instruction (gap_near: only taking it
 * proves nothing; glibc's IFUNC resolvers take the addresses of their
 * variants, which have no endbr64), unless code certainly starts there
 * (code_at: a function symbol, a direct call's target, an endbr64 where
 * an indirect branch may land). The data runs back to the aligned
 * padding before it (data_start), and on up to where code certainly
 * starts or an instruction names something behind it in this data (the
 * code that reads a table placed before it). Nothing there is patched,
 * taken along, or used as padding. Code taken for data is left
 * uncounted, as JIT code is, never broken. In libc, python3, cc1 and
 * sqlite3 nothing is data.
 *
 * But data decoded as instructions names addresses too, at random: in
 * node, "instructions" in OpenSSL's tables named addresses in V8's
 * compiler, whose code would have been left uncounted. So an address
 * counts only when the instruction that names it is not data itself,
 * which depends on the addresses that count: starting from all of them,
 * each round keeps those named from outside the data the round before
 * marked, until a round changes nothing (libcrypto: the first). Where
 * rounds still change after 8 (node: in V8's builtins, left alone
 * anyway), an address either of the last two kept counts (more data:
 * code left uncounted, never data changed).
 */
static void leave_data_alone(struct plan_state *s)
{
	struct by_to *by;
	int round;

	if (s->unordered || (!s->nrefs && !s->nobjects))
		return;
	by = xmalloc((s->nrefs ? s->nrefs : 1) * sizeof(*by));
	for (size_t r = 0; r < s->nrefs; r++) {
		by[r].to = s->refs[r].to;
		by[r].i = r;
		s->refs[r].use = 1;
	}
	qsort(by, s->nrefs, sizeof(*by), by_target);
	for (round = 0; round < 8; round++) {
		int changed = 0;

		mark_data(s, by, 0);
		for (size_t r = 0; r < s->nrefs; r++) {
			struct ref *f = &s->refs[r];

			f->next = f->from >= s->n || !(s->in[f->from].mark & M_DATA);
			changed |= f->next != f->use;
		}
		if (!changed)
			break;
		for (size_t r = 0; r < s->nrefs; r++)
			s->refs[r].use = round < 7 ? s->refs[r].next : s->refs[r].use | s->refs[r].next;
	}
	mark_data(s, by, 1);
	free(by);
	for (size_t k = 0; k < s->n; k++) {
		if (s->in[k].mark & M_DATA)
			s->in[k].flags &= (uint8_t) ~(I_SITE | I_MOVABLE | I_RELOC | I_CHAOS);
	}
}

/* Sites that must count first (a hot loop's branch must not lose its
 * neighbours to a chaos pick and fall back to an int3), then chaos picks
 * in what is left. */
void plan_finish(struct plan_state *s, struct dw_patch_plan *plan)
{
	struct dw_patch_plan back = { 0 }; /* the ranges at_target makes */
	size_t n0 = 0;			   /* of plan->ranges, those of the first pass */

	/* (a range at most for each site, in plan or back) */
	plan->cap = s->nsites ? s->nsites : 1;
	plan->ranges = xmalloc(plan->cap * sizeof(*plan->ranges));

	free(s->tables);
	free(s->abs_tables);
	s->tables = NULL;
	s->abs_tables = NULL;
	leave_data_alone(s);
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			n0 = plan->n;
		/* (a site is never made after the decode, only unmade) */
		for (size_t k = 0; k < s->nsites; k++) {
			size_t i = s->sites[k].i;
			uint64_t target = s->sites[k].target;
			struct dw_patch_range r = { 0 };
			size_t f, l;
			int chaos = (s->in[i].flags & I_CHAOS) != 0;

			if (!(s->in[i].flags & I_SITE) || (s->in[i].mark & M_COVERED) ||
			    chaos != pass)
				continue;
			if (!chaos && (s->in[i].flags & I_CALL) && choose_before(s, i, &f)) {
				/* (the call itself stays, covered: never taken along) */
				jump_range(s, plan, &r, f, i, ia(s, i), ia(s, i));
			} else if (choose_range(s, i, target, 0, &f, &l)) {
				jump_range(s, plan, &r, f, l, ia(s, l) + s->in[l].len, ia(s, i));
			} else if (chaos) {
				continue; /* a chaos pick costs a stop as an int3: leave it */
			} else if (take_padding(s, i, &l)) {
				jump_range(s, plan, &r, i, l, ia(s, l) + s->in[l].len, ia(s, i));
			} else if (pad_slot(s, i, target, &r.slot)) {
				r.addr = ia(s, i);
				r.len = target ? 2 : s->in[i].len;
				r.kind = DW_PATCH_PAD;
				r.target = target;
				s->in[i].mark |= M_COVERED;
				plan->npad++;
			} else if (at_target(s, i, target, plan, &back, &f, &l)) {
				s->in[i].mark |= M_COVERED;
				if (f == s->n)
					continue; /* counted there already */
				jump_range(s, plan, &r, f, l, ia(s, l) + s->in[l].len, ia(s, f));
				plan->ntarget++;
				add_range(&back, &r); /* (before those around it: sorted apart) */
				continue;
			} else if (after_counted_call(s, i, target)) {
				s->in[i].mark |= M_COVERED;
				plan->nafter++;
				continue;
			} else if (join_previous(s, plan, i, target)) {
				s->in[i].mark |= M_COVERED;
				continue;
			} else if (choose_range(s, i, target, 1, &f, &l)) {
				/* the sites after it in the range count with it */
				jump_range(s, plan, &r, f, l, ia(s, l) + s->in[l].len, ia(s, i));
			} else if (count_the_call(s, i, target, &f, &l)) {
				/* (the call stays, covered: never taken along) */
				s->in[i].mark |= M_COVERED;
				plan->nafter++;
				jump_range(s, plan, &r, f, l, ia(s, l), ia(s, l));
				/* (before those already made: sorted apart) */
				add_range(&back, &r);
				continue;
			} else {
				r.addr = ia(s, i);
				r.len = 1;
				r.kind = DW_PATCH_INT3;
				s->in[i].mark |= M_COVERED;
				plan->nint3++;
			}
			add_range(plan, &r);
		}
	}
	sort_ranges(plan, n0, &back);
	plan->tramp_size = ((plan->njump + plan->npad) * DW_PATCH_TRAMP_MAX + 4095) & ~(size_t)4095;
	plan_state_free(s);
}

int dw_patch_plan_buf(const unsigned char *buf, size_t len, uint64_t vaddr, uint64_t seed,
		      unsigned density, struct dw_patch_plan *plan)
{
	struct plan_state s = { .seed = seed, .density = density };
	int err;

	memset(plan, 0, sizeof(*plan));
	if (len > UINT32_MAX)
		return -EFBIG; /* (struct insn) */
	plan->exec_vaddr = vaddr;
	plan->exec_size = len;
	plan_targets_init(&s, vaddr, len);
	plan_add_symbol(&s, vaddr, 1);
	err = plan_decode_section(&s, buf, len, vaddr);
	if (err) {
		plan_state_free(&s);
		return err;
	}
	plan_finish(&s, plan);
	return 0;
}
