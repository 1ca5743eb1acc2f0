/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The instruction map of a file kept across runs (cachefile.c): where
 * rdtsc does not trap, every exec of a program decodes all of its code to
 * find its rdtsc instructions (tracer/tsc.c), 0.8 s for gcc's cc1. What
 * the decode finds depends only on the file's bytes and the decoder, so it
 * is kept under the file's contents like a plan.
 *
 * The body: the count, then per instruction its link-time address, length
 * and kind (struct record).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "dwarf.h"

#define INSN_MAGIC "HMINSN01"

struct record {
	uint64_t vaddr;
	uint32_t length;
	uint32_t kind;
};

struct found {
	struct record *r;
	size_t n, cap;
};

static int collect(const struct dw_insn *insn, void *arg)
{
	struct found *f = arg;

	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 16;
		f->r = xrealloc(f->r, f->cap * sizeof(*f->r));
	}
	f->r[f->n].vaddr = insn->vaddr;
	f->r[f->n].length = insn->length;
	f->r[f->n].kind = insn->kind;
	f->n++;
	return 0;
}

/* Call CB on the N records at R; its first error, or N. */
static int replay(const struct record *r, size_t n,
		  int (*cb)(const struct dw_insn *insn, void *arg), void *arg)
{
	for (size_t i = 0; i < n; i++) {
		struct dw_insn insn = { r[i].vaddr, r[i].length, (enum dw_insn_kind)r[i].kind };
		int err = cb ? cb(&insn, arg) : 0;

		if (err < 0)
			return err;
	}
	return (int)n;
}

/* The records of FILE, when it is a whole and sound one. */
static int load(const char *file, struct dw_cache_blob *b, const struct record **r, size_t *n)
{
	uint64_t count;

	if (dw_cache_load(file, INSN_MAGIC, b) < 0)
		return -1;
	if (b->len >= sizeof(count)) {
		memcpy(&count, b->body, sizeof(count));
		if (count < (1u << 26) && b->len == sizeof(count) + count * sizeof(**r)) {
			*r = (const struct record *)(const void *)((char *)b->body + sizeof(count));
			*n = (size_t)count;
			for (size_t i = 0; i < *n; i++) {
				if ((*r)[i].kind > DW_INSN_CPUID)
					goto bad;
			}
			return 0;
		}
	}
bad:
	dw_cache_free(b);
	return -1;
}

static void store(const char *file, const struct found *f)
{
	struct dw_cache_blob b;
	uint64_t count = f->n;

	if (dw_cache_alloc(&b, INSN_MAGIC, sizeof(count) + f->n * sizeof(*f->r)) < 0)
		return;
	memcpy(b.body, &count, sizeof(count));
	if (f->n)
		memcpy((char *)b.body + sizeof(count), f->r, f->n * sizeof(*f->r));
	dw_cache_store(file, &b); /* a cache: a failure costs a decode */
	dw_cache_free(&b);
}

int dw_insn_scan_cached(const char *dir, const char *path,
			int (*cb)(const struct dw_insn *insn, void *arg), void *arg, int *hit)
{
	char file[4400];
	struct dw_cache_blob b;
	const struct record *r;
	struct found f = { 0 };
	size_t n;
	int err;

	*hit = 0;
	if (dw_cache_name(dir, path, "insns", file, sizeof(file)) < 0)
		return dw_insn_scan(path, cb, arg);
	if (load(file, &b, &r, &n) == 0) {
		*hit = 1;
		err = replay(r, n, cb, arg);
		dw_cache_free(&b);
		return err;
	}
	err = dw_insn_scan(path, collect, &f);
	if (err >= 0) {
		store(file, &f);
		err = replay(f.r, f.n, cb, arg);
	}
	free(f.r);
	return err;
}
