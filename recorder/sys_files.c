/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * File metadata syscalls: the kernel runs them, then the inode numbers and
 * timestamps in their results are replaced (fsvirt.c says how) and
 * directory listings are sorted. Struct layouts are the x86-64 kernel's:
 * struct stat (arch/x86/include/uapi/asm/stat.h, the same as glibc's) and
 * struct statx (include/uapi/linux/stat.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>

#include "common/common.h"
#include "internal.h"

/* Nanoseconds of a file time; times outside int64 nanoseconds (before
 * 1678 or after 2262) saturate. */
static int64_t ts_ns(int64_t sec, int64_t nsec)
{
	if (sec > INT64_MAX / HM_NS_PER_SEC - 1)
		return INT64_MAX;
	if (sec < INT64_MIN / HM_NS_PER_SEC + 1)
		return INT64_MIN + HM_NS_PER_SEC;
	return sec * HM_NS_PER_SEC + nsec;
}

static void virt_ts(struct rec *r, struct rec_call *c, uint64_t dev, uint64_t ino, int64_t *sec,
		    int64_t *nsec)
{
	int64_t v = rec_fsvirt_time(r->fs, dev, ino, ts_ns(*sec, *nsec), c->now_real_ns);

	hm_ns_split(v, sec, nsec);
}

static void fix_stat(struct rec *r, struct task *t, struct rec_call *c, uint64_t addr)
{
	struct stat st;
	int64_t s, ns;

	if (tracer_read_mem(t->tid, addr, &st, sizeof(st)) < 0)
		return;
#define VIRT(field)                                           \
	do {                                                  \
		s = st.field.tv_sec;                          \
		ns = st.field.tv_nsec;                        \
		virt_ts(r, c, st.st_dev, st.st_ino, &s, &ns); \
		st.field.tv_sec = s;                          \
		st.field.tv_nsec = ns;                        \
	} while (0)
	VIRT(st_atim);
	VIRT(st_mtim);
	VIRT(st_ctim);
#undef VIRT
	st.st_ino = rec_fsvirt_ino(r->fs, st.st_dev, st.st_ino);
	tracer_write_mem(t->tid, addr, &st, sizeof(st));
}

static void fix_statx(struct rec *r, struct task *t, struct rec_call *c, uint64_t addr)
{
	struct statx sx;
	uint64_t dev;
	int64_t s, ns;

	if (tracer_read_mem(t->tid, addr, &sx, sizeof(sx)) < 0)
		return;
	dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
#define VIRT(field)                                      \
	do {                                             \
		s = sx.field.tv_sec;                     \
		ns = sx.field.tv_nsec;                   \
		virt_ts(r, c, dev, sx.stx_ino, &s, &ns); \
		sx.field.tv_sec = s;                     \
		sx.field.tv_nsec = (uint32_t)ns;         \
	} while (0)
	VIRT(stx_atime);
	VIRT(stx_mtime);
	VIRT(stx_ctime);
	if (sx.stx_mask & STATX_BTIME)
		VIRT(stx_btime);
#undef VIRT
	sx.stx_ino = rec_fsvirt_ino(r->fs, dev, sx.stx_ino);
	tracer_write_mem(t->tid, addr, &sx, sizeof(sx));
}

void rec_sys_stat_exit(struct rec *r, struct task *t, struct rec_call *c)
{
	if (c->ret < 0)
		return;
	switch (c->nr) {
	case SYS_stat:
	case SYS_fstat:
	case SYS_lstat:
		fix_stat(r, t, c, c->args[1]);
		break;
	case SYS_newfstatat:
		fix_stat(r, t, c, c->args[2]);
		break;
	case SYS_statx:
		fix_statx(r, t, c, c->args[4]);
		break;
	}
}

void rec_sys_getdents_exit(struct rec *r, struct task *t, struct rec_call *c)
{
	char path[64];
	struct stat dir;
	void *buf;
	size_t len = (size_t)c->ret;

	if (c->ret <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->tid, (int)c->args[0]);
	if (stat(path, &dir) < 0)
		return;
	buf = xmalloc(len);
	if (tracer_read_mem(t->tid, c->args[1], buf, len) == 0 &&
	    rec_fsvirt_dirents(r->fs, dir.st_dev, buf, len, c->nr == SYS_getdents64) == 0)
		tracer_write_mem(t->tid, c->args[1], buf, len);
	free(buf);
}
