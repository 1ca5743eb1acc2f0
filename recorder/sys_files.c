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
#include <linux/fs.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
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

static void virt_ts(struct rec *r, struct rec_call *c, uint64_t dev, uint64_t ino,
		    enum rec_fs_time field, int64_t *sec, int64_t *nsec)
{
	int64_t v = rec_fsvirt_time(r->fs, dev, ino, field, ts_ns(*sec, *nsec), c->now_real_ns);

	hm_ns_split(v, sec, nsec);
}

/*
 * The access time is not the host's: the kernel moves it when a file is
 * read (relatime, once after each change and then daily), so it would
 * tell a run what earlier runs read. It is shown as the file's last
 * change, the later of its (virtual) mtime and ctime, except where it
 * equals the mtime to the nanosecond, which only an explicit setting of
 * both makes (touch -d, tar x, cp -p): then it is the mtime.
 */
static void fix_stat(struct rec *r, struct task *t, struct rec_call *c, uint64_t addr)
{
	struct stat st;
	int64_t s, ns;
	int same;

	if (tracer_read_mem(t->tid, addr, &st, sizeof(st)) < 0)
		return;
#define VIRT(field, which)                                           \
	do {                                                         \
		s = st.field.tv_sec;                                 \
		ns = st.field.tv_nsec;                               \
		virt_ts(r, c, st.st_dev, st.st_ino, which, &s, &ns); \
		st.field.tv_sec = s;                                 \
		st.field.tv_nsec = ns;                               \
	} while (0)
	same = st.st_atim.tv_sec == st.st_mtim.tv_sec && st.st_atim.tv_nsec == st.st_mtim.tv_nsec;
	VIRT(st_mtim, REC_FS_MTIME);
	VIRT(st_ctim, REC_FS_CTIME);
#undef VIRT
	st.st_atim = same || ts_ns(st.st_mtim.tv_sec, st.st_mtim.tv_nsec) >=
				     ts_ns(st.st_ctim.tv_sec, st.st_ctim.tv_nsec)
			     ? st.st_mtim
			     : st.st_ctim;
	st.st_ino = rec_fsvirt_ino(r->fs, st.st_dev, st.st_ino);
	tracer_write_mem(t->tid, addr, &st, sizeof(st));
}

/*
 * The mtime and ctime of what statx call C looked at, into SX, when the
 * guest asked for neither (`stat -c %X` asks for the atime alone, and the
 * kernel zeroes what was not asked): the access time is made of them. The
 * call is made again from here, through /proc, on the same object (its
 * device and inode must match). 0 or -errno.
 */
static int statx_times(struct task *t, const struct rec_call *c, struct statx *sx)
{
	char name[4096], path[8192];
	int dirfd = (int)c->args[0], flags = (int)c->args[2] & AT_SYMLINK_NOFOLLOW;
	struct statx full;

	if (tracer_read_str(t->tid, c->args[1], name, sizeof(name)) < 0)
		return -EFAULT;
	if (!*name)
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->tid, dirfd);
	else if (name[0] == '/')
		snprintf(path, sizeof(path), "/proc/%d/root%s", t->tid, name);
	else if (dirfd == AT_FDCWD)
		snprintf(path, sizeof(path), "/proc/%d/cwd/%s", t->tid, name);
	else
		snprintf(path, sizeof(path), "/proc/%d/fd/%d/%s", t->tid, dirfd, name);
	if (statx(AT_FDCWD, path, flags, STATX_MTIME | STATX_CTIME | STATX_INO, &full) < 0)
		return -errno;
	if (full.stx_ino != sx->stx_ino || full.stx_dev_major != sx->stx_dev_major ||
	    full.stx_dev_minor != sx->stx_dev_minor)
		return -ESTALE;
	if (!(sx->stx_mask & STATX_MTIME))
		sx->stx_mtime = full.stx_mtime;
	if (!(sx->stx_mask & STATX_CTIME))
		sx->stx_ctime = full.stx_ctime;
	return 0;
}

static void fix_statx(struct rec *r, struct task *t, struct rec_call *c, uint64_t addr)
{
	struct statx sx, times;
	uint64_t dev;
	int64_t s, ns;
	int same;

	if (tracer_read_mem(t->tid, addr, &sx, sizeof(sx)) < 0)
		return;
	dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
#define VIRT(st, field, which)                                  \
	do {                                                    \
		s = (st).field.tv_sec;                          \
		ns = (st).field.tv_nsec;                        \
		virt_ts(r, c, dev, sx.stx_ino, which, &s, &ns); \
		(st).field.tv_sec = s;                          \
		(st).field.tv_nsec = (uint32_t)ns;              \
	} while (0)
	if (sx.stx_mask & STATX_ATIME) {
		times = sx;
		if ((sx.stx_mask & (STATX_MTIME | STATX_CTIME)) != (STATX_MTIME | STATX_CTIME) &&
		    statx_times(t, c, &times) < 0)
			times.stx_mtime = times.stx_ctime = (struct statx_timestamp){ 0 };
		same = times.stx_atime.tv_sec == times.stx_mtime.tv_sec &&
		       times.stx_atime.tv_nsec == times.stx_mtime.tv_nsec;
		VIRT(times, stx_mtime, REC_FS_MTIME);
		VIRT(times, stx_ctime, REC_FS_CTIME);
		sx.stx_atime = same || ts_ns(times.stx_mtime.tv_sec, times.stx_mtime.tv_nsec) >=
					       ts_ns(times.stx_ctime.tv_sec, times.stx_ctime.tv_nsec)
				       ? times.stx_mtime
				       : times.stx_ctime;
	}
	if (sx.stx_mask & STATX_MTIME)
		VIRT(sx, stx_mtime, REC_FS_MTIME);
	if (sx.stx_mask & STATX_CTIME)
		VIRT(sx, stx_ctime, REC_FS_CTIME);
	if (sx.stx_mask & STATX_BTIME)
		VIRT(sx, stx_btime, REC_FS_BTIME);
#undef VIRT
	if (sx.stx_mask & STATX_INO)
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

/* statfs and fstatfs: what the host's other writers change goes
 * (rec_fsvirt_statfs). Hidden in every mode; a replay answers it from the
 * log, which keeps the struct as mended here. */
void rec_sys_statfs_exit(struct rec *r, struct task *t, struct rec_call *c)
{
	struct statfs sf;

	if (c->ret != 0 || tracer_read_mem(t->tid, c->args[1], &sf, sizeof(sf)) < 0)
		return;
	rec_fsvirt_statfs(r->fs, &sf);
	tracer_write_mem(t->tid, c->args[1], &sf, sizeof(sf));
}

/* FS_IOC_GETVERSION: an inode's generation is a random number the file
 * system drew when it made the inode (ext4: prandom, fs/ext4/ialloc.c).
 * Every file shows 0. The kernel writes an int whatever the request's
 * size says (fs/ext4/ioctl.c). Only that request stops in `run`. */
void rec_sys_ioctl_exit(struct rec *r, struct task *t, struct rec_call *c)
{
	int zero = 0;

	(void)r;
	if ((uint32_t)c->args[1] == (uint32_t)FS_IOC_GETVERSION && c->ret == 0)
		tracer_write_mem(t->tid, c->args[2], &zero, sizeof(zero));
}
