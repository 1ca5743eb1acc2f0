/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Patched code kept across runs (docs/preemption.md "Planning"). Applying
 * a plan to a mapping (dw_patch_emit: Zydis re-encodes every site's
 * instructions) took 46-125 ms for libc and 1.7 s for gcc's cc1 in each
 * process that mapped them, and was kept only for the run. What it makes
 * depends on the plan, the original bytes and three addresses: where the
 * code is, where its trampolines are and the counter's. Guests run without
 * ASLR (tracer/launch.c), so the same program maps the same file at the
 * same place in every run, and the output is kept in the cache folder
 * (cachefile.c) under the plan's key and those addresses; the caller
 * checks that the original bytes are the kept ones before using it.
 *
 * One body holds all of it, so a hit is one mapping of the file (shared
 * page cache, no copy): a header, the original code, the patched code, the
 * trampolines used (not the room reserved for them), the sites and the
 * trap index (struct dw_patch_out). The trampolines start at a page of the
 * file, so that the tracer can map them into a guest from it rather than
 * write them (tracer/ticks.c `map_tramp`).
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "dwarf.h"

#define OUT_MAGIC DW_EMIT_MAGIC

struct out_header {
	uint32_t header_size;
	uint32_t site_size; /* sizeof(struct dw_patch_site) */
	uint64_t code_addr, code_len, tramp_addr, tramp_len, counter;
	int64_t bias;
	uint64_t tramp_used, n, ntraps;
};

static size_t round8(uint64_t n)
{
	return (size_t)((n + 7) & ~(uint64_t)7);
}

/* Where the trampolines start in the body: past the header and the two
 * copies of the code, at the next page of the file. */
static size_t tramp_at(size_t code)
{
	size_t at = sizeof(struct out_header) + 2 * code;

	return ((DW_CACHE_HEAD + at + 4095) & ~(size_t)4095) - DW_CACHE_HEAD;
}

/* The body's length for O's code with room for TRAMP bytes of
 * trampolines, NSITES sites and NTRAPS traps, and O's pointers into BODY. */
static size_t layout(struct dw_patch_out *o, uint64_t tramp, uint64_t nsites, uint64_t ntraps,
		     char *body)
{
	size_t code = round8(o->code_len), tr = round8(tramp);
	size_t sites = (size_t)nsites * sizeof(*o->sites);
	size_t at = tramp_at(code);

	if (body) {
		o->orig = (uint8_t *)body + sizeof(struct out_header);
		o->patched = o->orig + code;
		o->tramp = (uint8_t *)body + at;
		o->sites = (struct dw_patch_site *)(void *)(o->tramp + tr);
		o->traps = (uint64_t *)(void *)((char *)o->sites + sites);
	}
	return at + tr + sites + (size_t)ntraps * 2 * sizeof(*o->traps);
}

int dw_patch_out_alloc(struct dw_patch_out *o, size_t cap)
{
	int err = dw_cache_alloc(&o->blob, OUT_MAGIC, layout(o, o->tramp_len, cap, cap, NULL));

	if (err)
		return err;
	o->cap = cap;
	o->tramp_used = o->n = o->ntraps = 0;
	layout(o, o->tramp_len, cap, cap, o->blob.body);
	return 0;
}

/* Move O's sites and traps down to just past the trampolines it used: a
 * kept file holds what was made, not the room reserved for it (libc's
 * reserve is 40 MB of trampolines, of which it uses 2). */
static void compact(struct dw_patch_out *o)
{
	struct dw_patch_out c = *o;

	o->blob.len = layout(&c, o->tramp_used, o->n, o->ntraps, o->blob.body);
	memmove(c.sites, o->sites, o->n * sizeof(*o->sites));
	memmove(c.traps, o->traps, o->ntraps * 2 * sizeof(*o->traps));
	o->sites = c.sites;
	o->traps = c.traps;
	o->cap = o->n;
}

int dw_patch_out_store(const char *file, struct dw_patch_out *o)
{
	struct out_header h;

	compact(o);
	memset(&h, 0, sizeof(h));
	h.header_size = sizeof(h);
	h.site_size = sizeof(struct dw_patch_site);
	h.code_addr = o->code_addr;
	h.code_len = o->code_len;
	h.tramp_addr = o->tramp_addr;
	h.tramp_len = o->tramp_len;
	h.counter = o->counter;
	h.bias = o->bias;
	h.tramp_used = o->tramp_used;
	h.n = o->n;
	h.ntraps = o->ntraps;
	memcpy(o->blob.body, &h, sizeof(h));
	return dw_cache_store(file, &o->blob);
}

int dw_patch_out_load(const char *file, struct dw_patch_out *o)
{
	struct out_header h;
	int err = dw_cache_load(file, OUT_MAGIC, &o->blob);

	if (err)
		return err;
	err = -EBADMSG;
	if (o->blob.len < sizeof(h))
		goto out;
	memcpy(&h, o->blob.body, sizeof(h));
	if (h.header_size != sizeof(h) || h.site_size != sizeof(struct dw_patch_site) ||
	    h.n >= (1u << 26) || h.ntraps > h.n)
		goto out;
	err = -ESTALE; /* made for other addresses or sizes */
	if (h.code_addr != o->code_addr || h.code_len != o->code_len ||
	    h.tramp_addr != o->tramp_addr || h.tramp_len != o->tramp_len ||
	    h.counter != o->counter || h.bias != o->bias || h.tramp_used > h.tramp_len)
		goto out;
	err = -EBADMSG;
	if (layout(o, h.tramp_used, h.n, h.ntraps, NULL) != o->blob.len)
		goto out;
	layout(o, h.tramp_used, h.n, h.ntraps, o->blob.body);
	o->cap = o->n = (size_t)h.n;
	o->ntraps = (size_t)h.ntraps;
	o->tramp_used = (size_t)h.tramp_used;
	return 0;
out:
	dw_cache_free(&o->blob);
	return err;
}

int64_t dw_patch_out_tramp_offset(const struct dw_patch_out *o)
{
	if (!o->blob.ino || !o->tramp)
		return -1;
	return (int64_t)(o->tramp - (const uint8_t *)o->blob.map);
}

void dw_patch_out_free(struct dw_patch_out *o)
{
	dw_cache_free(&o->blob);
	o->orig = o->patched = o->tramp = NULL;
	o->sites = NULL;
	o->traps = NULL;
	o->n = o->ntraps = o->cap = o->tramp_used = 0;
}
