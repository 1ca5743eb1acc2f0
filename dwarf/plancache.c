/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Plans kept across runs (docs/preemption.md "Planning"). Planning a file
 * is a full decode (75 ms for libc, over a second for node); its result
 * depends only on the file's bytes, the segment, the seed and density of
 * chaos sites, and the planner itself. So a plan is kept in the cache
 * folder under all of those: the SHA-256 of the file, the segment's
 * offset, seed and density, and the SHA-256 of the hermit binary that
 * made it (a rebuilt planner never reads an older one's plans). The file's
 * hash is itself kept under its device, inode, size, mtime and ctime, so a
 * file that has not changed is not read again. A replay's copies of the
 * files have the recording's contents, so they find the recording's plans.
 *
 * A plan file: a header (magic, the sizes of the structures, the plan's
 * counts), the ranges, and an FNV-1a of all that before it. One that is
 * short, damaged or of another layout is planned again and replaced.
 * Writes are atomic (hm_write_atomic), so a reader sees a whole plan or
 * none.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "dwarf.h"

#define PLAN_MAGIC "HMPLAN01"

struct plan_header {
	char magic[8];
	uint32_t range_size; /* sizeof(struct dw_patch_range) */
	uint32_t header_size;
	uint64_t n, njump, nint3, npad, ntarget, tramp_size;
	uint64_t exec_vaddr, exec_offset, exec_size;
};

/* The SHA-256 of the running hermit binary, once. */
static const char *self_hash(void)
{
	static char hex[65];
	static int done;

	if (!done) {
		done = 1;
		if (hm_sha256_file("/proc/self/exe", hex) < 0)
			hex[0] = 0;
	}
	return hex[0] ? hex : NULL;
}

/* mkdir DIR/SUB (0700), ignoring one that is there. */
static int ensure_dir(const char *path)
{
	return mkdir(path, 0700) == 0 || errno == EEXIST ? 0 : -errno;
}

/* The SHA-256 of PATH, through the inode memo in DIR/files. */
static int content_hash(const char *dir, const char *path, char hex[65])
{
	char memo[4200];
	struct stat st;
	int fd, err;

	if (stat(path, &st) < 0)
		return -errno;
	snprintf(memo, sizeof(memo), "%s/files/%llx-%llx-%llx-%lld.%09ld-%lld.%09ld", dir,
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
		 (unsigned long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	fd = open(memo, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		err = hm_read_all(fd, hex, 64);
		close(fd);
		hex[64] = 0;
		if (!err && strspn(hex, "0123456789abcdef") == 64)
			return 0;
	}
	err = hm_sha256_file(path, hex);
	if (err)
		return err;
	hm_write_atomic(memo, hex, 64); /* a cache: losing it costs a hash */
	return 0;
}

static uint64_t digest(const struct plan_header *h, const struct dw_patch_range *r)
{
	uint64_t d = hm_fnv1a(HM_FNV1A_INIT, h, sizeof(*h));

	return hm_fnv1a(d, r, (size_t)h->n * sizeof(*r));
}

static int load(const char *path, struct dw_patch_plan *plan)
{
	struct plan_header h;
	struct dw_patch_range *r = NULL;
	uint64_t want;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok = 0;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && hm_read_all(fd, &h, sizeof(h)) == 0 &&
	    memcmp(h.magic, PLAN_MAGIC, 8) == 0 && h.range_size == sizeof(*r) &&
	    h.header_size == sizeof(h) && h.n < (1u << 26) &&
	    (uint64_t)st.st_size == sizeof(h) + h.n * sizeof(*r) + sizeof(want)) {
		r = xmalloc(h.n ? (size_t)h.n * sizeof(*r) : 1);
		ok = hm_read_all(fd, r, (size_t)h.n * sizeof(*r)) == 0 &&
		     hm_read_all(fd, &want, sizeof(want)) == 0 && want == digest(&h, r);
	}
	close(fd);
	if (!ok) {
		free(r);
		return -1;
	}
	memset(plan, 0, sizeof(*plan));
	plan->ranges = r;
	plan->n = plan->cap = (size_t)h.n;
	plan->njump = (size_t)h.njump;
	plan->nint3 = (size_t)h.nint3;
	plan->npad = (size_t)h.npad;
	plan->ntarget = (size_t)h.ntarget;
	plan->tramp_size = (size_t)h.tramp_size;
	plan->exec_vaddr = h.exec_vaddr;
	plan->exec_offset = h.exec_offset;
	plan->exec_size = h.exec_size;
	return 0;
}

static void store(const char *path, const struct dw_patch_plan *plan)
{
	struct plan_header h;
	size_t body = plan->n * sizeof(*plan->ranges);
	unsigned char *all = xcalloc(1, sizeof(h) + body + sizeof(uint64_t));
	unsigned char *buf = all + sizeof(h);
	uint64_t d;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PLAN_MAGIC, 8);
	h.range_size = sizeof(*plan->ranges);
	h.header_size = sizeof(h);
	h.n = plan->n;
	h.njump = plan->njump;
	h.nint3 = plan->nint3;
	h.npad = plan->npad;
	h.ntarget = plan->ntarget;
	h.tramp_size = plan->tramp_size;
	h.exec_vaddr = plan->exec_vaddr;
	h.exec_offset = plan->exec_offset;
	h.exec_size = plan->exec_size;
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
	d = digest(&h, (const struct dw_patch_range *)(void *)buf);
	memcpy(buf + body, &d, sizeof(d));
	memcpy(all, &h, sizeof(h));
	hm_write_atomic(path, all, sizeof(h) + body + sizeof(d)); /* a cache: a failure costs a plan */
	free(all);
}

int dw_patch_plan_cached(const char *dir, const char *path, uint64_t offset, uint64_t seed,
			 unsigned density, struct dw_patch_plan *plan, int *hit)
{
	char hex[65], sub[4200], file[4300];
	const char *self = self_hash();
	int err;

	*hit = 0;
	if (!dir || !self || hm_mkdir_parents(dir) < 0)
		return dw_patch_plan_file(path, offset, seed, density, plan);
	snprintf(sub, sizeof(sub), "%s/files", dir);
	if (ensure_dir(sub) < 0 || content_hash(dir, path, hex) < 0)
		return dw_patch_plan_file(path, offset, seed, density, plan);
	snprintf(sub, sizeof(sub), "%s/%.16s", dir, self);
	if (ensure_dir(sub) < 0)
		return dw_patch_plan_file(path, offset, seed, density, plan);
	snprintf(file, sizeof(file), "%s/%s-%llx-%llx-%u", sub, hex, (unsigned long long)offset,
		 (unsigned long long)seed, density);
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
