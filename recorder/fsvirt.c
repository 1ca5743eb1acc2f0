/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * File metadata (DESIGN.md "Identity"). Inode numbers depend on the file
 * system's history and timestamps on the wall clock, so neither repeats
 * from run to run. Hermit numbers inodes in the order the guest first sees
 * them, keyed by (st_dev, st_ino) so hard links still share a number, and
 * replaces every timestamp the run itself produced by the virtual wall time
 * at which the guest first saw it. Directory entries are sorted by name,
 * since their on-disk order is the file system's hash order.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>

#include "common/common.h"
#include "recorder.h"

struct slot {
	uint64_t key[3];
	int64_t value;
	int used;
};

struct map {
	struct slot *slots;
	size_t cap; /* a power of two */
	size_t len;
};

struct rec_fsvirt {
	struct map inos;  /* (dev, ino) -> virtual ino */
	struct map times; /* (dev, ino, real ns) -> virtual ns */
	struct map fsids; /* the kernel's f_fsid -> hermit's */
	uint64_t next_ino;
	int64_t next_fsid;
	int64_t start_real_ns;
};

/* The first virtual inode number; small numbers are left to the kernel's
 * special meanings (the root of a file system is 2 on ext*). */
#define FIRST_VIRTUAL_INO 10001

static uint64_t hash3(const uint64_t k[3])
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (int i = 0; i < 3; i++) {
		h ^= k[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

static struct slot *map_find(struct map *m, const uint64_t key[3])
{
	size_t mask = m->cap - 1;

	for (size_t i = hash3(key) & mask;; i = (i + 1) & mask) {
		struct slot *s = &m->slots[i];

		if (!s->used || memcmp(s->key, key, sizeof(s->key)) == 0)
			return s;
	}
}

static void map_grow(struct map *m)
{
	struct map bigger = { xcalloc(m->cap * 2, sizeof(struct slot)), m->cap * 2, 0 };

	for (size_t i = 0; i < m->cap; i++) {
		if (m->slots[i].used) {
			*map_find(&bigger, m->slots[i].key) = m->slots[i];
			bigger.len++;
		}
	}
	free(m->slots);
	*m = bigger;
}

/* The value for KEY, set to DFLT when KEY is new. */
static int64_t map_get_or_put(struct map *m, const uint64_t key[3], int64_t dflt, int *added)
{
	struct slot *s;

	if ((m->len + 1) * 4 > m->cap * 3)
		map_grow(m);
	s = map_find(m, key);
	*added = !s->used;
	if (!s->used) {
		memcpy(s->key, key, sizeof(s->key));
		s->value = dflt;
		s->used = 1;
		m->len++;
	}
	return s->value;
}

struct rec_fsvirt *rec_fsvirt_new(int64_t start_real_ns)
{
	struct rec_fsvirt *fs = xcalloc(1, sizeof(*fs));

	fs->inos.cap = fs->times.cap = 256;
	fs->fsids.cap = 16;
	fs->inos.slots = xcalloc(fs->inos.cap, sizeof(struct slot));
	fs->times.slots = xcalloc(fs->times.cap, sizeof(struct slot));
	fs->fsids.slots = xcalloc(fs->fsids.cap, sizeof(struct slot));
	fs->next_ino = FIRST_VIRTUAL_INO;
	fs->next_fsid = 1;
	fs->start_real_ns = start_real_ns;
	return fs;
}

void rec_fsvirt_free(struct rec_fsvirt *fs)
{
	if (!fs)
		return;
	free(fs->inos.slots);
	free(fs->times.slots);
	free(fs->fsids.slots);
	free(fs);
}

uint64_t rec_fsvirt_ino(struct rec_fsvirt *fs, uint64_t dev, uint64_t ino)
{
	uint64_t key[3] = { dev, ino, 0 };
	int added;
	int64_t v = map_get_or_put(&fs->inos, key, (int64_t)fs->next_ino, &added);

	if (added)
		fs->next_ino++;
	return (uint64_t)v;
}

int64_t rec_fsvirt_time(struct rec_fsvirt *fs, uint64_t dev, uint64_t ino,
			enum rec_fs_time field, int64_t real_ns, int64_t now_ns)
{
	/* (a device number is 44 bits at most: the field goes above it) */
	uint64_t key[3] = { dev | (uint64_t)field << 56, ino, (uint64_t)real_ns };
	int added;

	if (real_ns < fs->start_real_ns)
		return real_ns;
	return map_get_or_put(&fs->times, key, now_ns, &added);
}

/*
 * What statfs tells of a file system's use changes with everything else
 * the host writes there: the free counts are half the totals, which stay
 * (a file system is not resized under a run), and the kernel's f_fsid,
 * which names the device or a mount (/proc's differs at each mount), is
 * replaced by a number in the order the guest first sees each (1, 2, ...).
 * Type, block sizes, name length and mount flags are the file system's.
 */
void rec_fsvirt_statfs(struct rec_fsvirt *fs, struct statfs *sf)
{
	uint64_t key[3] = { (uint32_t)sf->f_fsid.__val[0], (uint32_t)sf->f_fsid.__val[1], 0 };
	int added;
	int64_t id = map_get_or_put(&fs->fsids, key, fs->next_fsid, &added);

	if (added)
		fs->next_fsid++;
	sf->f_bfree = sf->f_blocks / 2;
	sf->f_bavail = sf->f_bfree;
	sf->f_ffree = sf->f_files / 2;
	sf->f_fsid.__val[0] = (int)id;
	sf->f_fsid.__val[1] = 0;
}

/* One directory record, as both getdents formats carry it. */
struct dirent_ref {
	const unsigned char *rec;
	const char *name;
	unsigned short reclen;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct dirent_ref *)a)->name, ((const struct dirent_ref *)b)->name);
}

/*
 * Record layouts (fs/readdir.c): linux_dirent64 is { u64 d_ino; s64 d_off;
 * u16 d_reclen; u8 d_type; char d_name[]; }, and the old linux_dirent is
 * { unsigned long d_ino, d_off; u16 d_reclen; char d_name[]; ...; u8 d_type
 * as the record's last byte }.
 */
#define D_INO	 0
#define D_OFF	 8
#define D_RECLEN 16
#define D_NAME64 19
#define D_NAME	 18

int rec_fsvirt_dirents(struct rec_fsvirt *fs, uint64_t dev, void *buf, size_t len, int is64)
{
	unsigned char *p = buf, *out;
	size_t n = 0, pos, cap = 64;
	struct dirent_ref *refs = xmalloc(cap * sizeof(*refs));
	int64_t *offs;
	size_t name_at = is64 ? D_NAME64 : D_NAME;

	for (pos = 0; pos < len;) {
		unsigned short reclen;

		if (len - pos < name_at + 1) {
			free(refs);
			return -EINVAL;
		}
		memcpy(&reclen, p + pos + D_RECLEN, sizeof(reclen));
		if (reclen < name_at + 1 || reclen > len - pos ||
		    !memchr(p + pos + name_at, 0, reclen - name_at)) {
			free(refs);
			return -EINVAL;
		}
		if (n == cap) {
			cap *= 2;
			refs = xrealloc(refs, cap * sizeof(*refs));
		}
		refs[n].rec = p + pos;
		refs[n].name = (const char *)p + pos + name_at;
		refs[n].reclen = reclen;
		n++;
		pos += reclen;
	}
	offs = xmalloc((n ? n : 1) * sizeof(*offs));
	for (size_t i = 0; i < n; i++)
		memcpy(&offs[i], refs[i].rec + D_OFF, sizeof(offs[i]));
	if (n)
		qsort(refs, n, sizeof(*refs), by_name);
	out = xmalloc(len ? len : 1);
	for (size_t i = 0, at = 0; i < n; i++) {
		uint64_t ino;

		memcpy(out + at, refs[i].rec, refs[i].reclen);
		memcpy(&ino, out + at + D_INO, sizeof(ino));
		if (ino)
			ino = rec_fsvirt_ino(fs, dev, ino);
		memcpy(out + at + D_INO, &ino, sizeof(ino));
		memcpy(out + at + D_OFF, &offs[i], sizeof(offs[i]));
		at += refs[i].reclen;
	}
	memcpy(buf, out, len);
	free(out);
	free(offs);
	free(refs);
	return 0;
}
