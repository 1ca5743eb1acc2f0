/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Plans kept across runs (docs/preemption.md "Planning"). Planning a file
 * is a full decode (75 ms for libc, over a second for node); its result
 * depends only on the file's bytes, the segment, the seed and density of
 * chaos sites, and the planner itself. So a plan is kept in the cache
 * folder (cachefile.c) under the file's contents, the segment's offset,
 * seed and density.
 *
 * A plan's body: a header (the sizes of the structures, the plan's
 * counts) and the ranges. One that is short, damaged or of another layout
 * is planned again and replaced.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "dwarf.h"

#define PLAN_MAGIC DW_PLAN_MAGIC

struct plan_header {
	uint32_t range_size; /* sizeof(struct dw_patch_range) */
	uint32_t header_size;
	uint64_t n, njump, nint3, npad, ntarget, nafter, tramp_size;
	uint64_t exec_vaddr, exec_offset, exec_size;
};

static int load(const char *path, struct dw_patch_plan *plan)
{
	struct dw_cache_blob b;
	struct plan_header h;
	struct dw_patch_range *r;

	if (dw_cache_load(path, PLAN_MAGIC, &b) < 0)
		return -1;
	if (b.len < sizeof(h)) {
		dw_cache_free(&b);
		return -1;
	}
	memcpy(&h, b.body, sizeof(h));
	if (h.range_size != sizeof(*r) || h.header_size != sizeof(h) || h.n >= (1u << 26) ||
	    b.len != sizeof(h) + h.n * sizeof(*r)) {
		dw_cache_free(&b);
		return -1;
	}
	/* The ranges stay in the mapping (the page cache's, read-only): cc1's
	 * are 30 MB, which a copy would fault in page by page. */
	r = (struct dw_patch_range *)(void *)((char *)b.body + sizeof(h));
	memset(plan, 0, sizeof(*plan));
	plan->blob = b;
	plan->ranges = r;
	plan->n = plan->cap = (size_t)h.n;
	plan->njump = (size_t)h.njump;
	plan->nint3 = (size_t)h.nint3;
	plan->npad = (size_t)h.npad;
	plan->ntarget = (size_t)h.ntarget;
	plan->nafter = (size_t)h.nafter;
	plan->tramp_size = (size_t)h.tramp_size;
	plan->exec_vaddr = h.exec_vaddr;
	plan->exec_offset = h.exec_offset;
	plan->exec_size = h.exec_size;
	return 0;
}

static void store(const char *path, const struct dw_patch_plan *plan)
{
	struct plan_header h;
	struct dw_cache_blob b;
	unsigned char *buf;

	if (dw_cache_alloc(&b, PLAN_MAGIC, sizeof(h) + plan->n * sizeof(*plan->ranges)) < 0)
		return;
	buf = (unsigned char *)b.body + sizeof(h);
	memset(&h, 0, sizeof(h));
	h.range_size = sizeof(*plan->ranges);
	h.header_size = sizeof(h);
	h.n = plan->n;
	h.njump = plan->njump;
	h.nint3 = plan->nint3;
	h.npad = plan->npad;
	h.ntarget = plan->ntarget;
	h.nafter = plan->nafter;
	h.tramp_size = plan->tramp_size;
	h.exec_vaddr = plan->exec_vaddr;
	h.exec_offset = plan->exec_offset;
	h.exec_size = plan->exec_size;
	memcpy(b.body, &h, sizeof(h));
	/* Field by field: the padding between them stays zeros. */
	for (size_t i = 0; i < plan->n; i++) {
		struct dw_patch_range *to = (struct dw_patch_range *)(void *)buf + i;
		const struct dw_patch_range *from = &plan->ranges[i];

		to->addr = from->addr;
		to->len = from->len;
		to->site = from->site;
		to->kind = from->kind;
		to->slot = from->slot;
		to->target = from->target;
	}
	dw_cache_store(path, &b); /* a cache: a failure costs a plan */
	dw_cache_free(&b);
}

int dw_patch_plan_cached(const char *dir, const char *path, uint64_t offset, uint64_t seed,
			 unsigned density, struct dw_patch_plan *plan, int *hit)
{
	char kind[96], file[4400];
	int err;

	*hit = 0;
	snprintf(kind, sizeof(kind), "%llx-%llx-%u", (unsigned long long)offset,
		 (unsigned long long)seed, density);
	if (dw_cache_name(dir, path, kind, file, sizeof(file)) < 0)
		return dw_patch_plan_file(path, offset, seed, density, plan);
	if (load(file, plan) == 0) {
		if (dw_patch_plan_holds(plan, offset)) {
			*hit = 1;
			return 0;
		}
		dw_patch_plan_free(plan);
	}
	err = dw_patch_plan_file(path, offset, seed, density, plan);
	if (!err)
		store(file, plan);
	return err;
}
