/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Putting the recording's answers into the guest (DESIGN.md "Replay").
 *
 * The recorder decides when a call is answered from the log (its syscall
 * table, its scheduler's stops: recorder/capture.c); what an answer does
 * to the guest is replay policy and lives here, behind struct
 * rec_replay_ops, the way a debugger sits behind struct rec_debugger:
 *
 *   - put_output writes a call's recorded output where the call leaves
 *     it: a buffer, iovecs, a msghdr with its name and control data, the
 *     messages of recvmmsg, the regions of a poll-family call. The bytes
 *     are laid out as capture.c's record side read them.
 *   - transfer does what a skipped copy_file_range, sendfile, splice or
 *     tee did: the recorded bytes go to the destination (through
 *     /proc/TID/fd, at the destination's offset, or at its end with
 *     O_APPEND; to a pipe or terminal as they come), and the offsets the
 *     call moved are moved: through its offset pointers, or with an lseek
 *     made in the guest (the guest's open file description is not ours to
 *     move otherwise).
 *   - fs_result mends the replay's view where a change the recording made
 *     is refused there for the view's own sake: a hard link between the
 *     overlay's layers (EXDEV) is made as a copy, and a folder of the
 *     lower layer the overlay will not rename (EXDEV, no redirect_dir) is
 *     moved by copying.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/common.h"
#include "replayer.h"
#include "tracer/tracer.h"

/* Iovecs an output spreads over at most (capture.c reads as many). */
#define MAX_IOV 1024

/* Scatter N bytes of P over the CNT iovecs at IOV_ADDR. */
static int write_iov(pid_t tid, uint64_t iov_addr, size_t cnt, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < cnt && i < MAX_IOV && n; i++) {
		struct iovec iov;
		size_t m;

		if (tracer_read_mem(tid, iov_addr + i * sizeof(iov), &iov, sizeof(iov)) < 0)
			return -EFAULT;
		m = iov.iov_len < n ? iov.iov_len : n;
		if (tracer_write_mem(tid, (uint64_t)iov.iov_base, p, m) < 0)
			return -EFAULT;
		p += m;
		n -= m;
	}
	return 0;
}

/* recvmsg: the msghdr as the kernel left it, its address, control data
 * and data, in that order. */
static int write_msg(pid_t tid, uint64_t addr, const unsigned char *p, size_t n)
{
	struct msghdr rec, mh;

	if (n < sizeof(rec) || tracer_read_mem(tid, addr, &mh, sizeof(mh)) < 0)
		return -EFAULT;
	memcpy(&rec, p, sizeof(rec));
	p += sizeof(rec);
	n -= sizeof(rec);
	if (rec.msg_namelen > n || rec.msg_controllen > n - rec.msg_namelen)
		return -EFAULT; /* not what the recording wrote */
	if (mh.msg_name && rec.msg_namelen)
		tracer_write_mem(tid, (uint64_t)mh.msg_name, p, rec.msg_namelen);
	p += rec.msg_namelen;
	n -= rec.msg_namelen;
	if (mh.msg_control && rec.msg_controllen)
		tracer_write_mem(tid, (uint64_t)mh.msg_control, p, rec.msg_controllen);
	p += rec.msg_controllen;
	n -= rec.msg_controllen;
	mh.msg_namelen = rec.msg_namelen;
	mh.msg_controllen = rec.msg_controllen;
	mh.msg_flags = rec.msg_flags;
	if (tracer_write_mem(tid, addr, &mh, sizeof(mh)) < 0)
		return -EFAULT;
	return write_iov(tid, (uint64_t)mh.msg_iov, mh.msg_iovlen, p, n);
}

/* recvmmsg: for each message its msg_len and the bytes kept of its data
 * (4 bytes each), then its msghdr as write_msg takes it. */
static int write_mmsg(pid_t tid, uint64_t addr, const unsigned char *p, size_t n)
{
	for (uint64_t at = addr; n; at += sizeof(struct mmsghdr)) {
		struct msghdr rec;
		uint32_t len, kept;
		size_t size;

		if (n < 2 * sizeof(len) + sizeof(rec))
			return -EFAULT; /* not what the recording wrote */
		memcpy(&len, p, sizeof(len));
		memcpy(&kept, p + sizeof(len), sizeof(kept));
		memcpy(&rec, p + 2 * sizeof(len), sizeof(rec));
		size = sizeof(rec) + (size_t)rec.msg_namelen + rec.msg_controllen + kept;
		if (rec.msg_namelen > n || rec.msg_controllen > n || kept > n ||
		    size > n - 2 * sizeof(len))
			return -EFAULT;
		if (write_msg(tid, at, p + 2 * sizeof(len), size) < 0 ||
		    tracer_write_mem(tid, at + offsetof(struct mmsghdr, msg_len), &len,
				     sizeof(len)) < 0)
			return -EFAULT;
		p += 2 * sizeof(len) + size;
		n -= 2 * sizeof(len) + size;
	}
	return 0;
}

/* The poll family: the regions W names, in order, from P (N bytes). */
static int write_poll(pid_t tid, const struct rec_out_place *w, const unsigned char *p, size_t n)
{
	size_t sum = 0;

	for (int i = 0; i < w->nregions; i++)
		sum += w->len[i];
	if (sum != n)
		return -EFAULT; /* not what the recording wrote */
	for (int i = 0; i < w->nregions; i++) {
		if (w->len[i] && tracer_write_mem(tid, w->at[i], p, w->len[i]) < 0)
			return -EFAULT;
		p += w->len[i];
	}
	return 0;
}

static int put_output(void *ctx, pid_t tid, const struct rec_out_place *w, const unsigned char *p,
		      size_t n)
{
	(void)ctx;
	if (!n)
		return 0;
	switch (w->kind) {
	case OUT_MSG:
		return write_msg(tid, w->addr, p, n);
	case OUT_MMSG:
		return write_mmsg(tid, w->addr, p, n);
	case OUT_POLL:
		return write_poll(tid, w, p, n);
	case OUT_IOV:
		return write_iov(tid, w->addr, w->count, p, n);
	case OUT_NONE:
	case OUT_VAL:
	case OUT_XFER:
		return 0;
	default:
		return tracer_write_mem(tid, w->addr, p, n);
	}
}

/* Move side FD (offset pointer OFF) of TID by N bytes, as the call would
 * have; APPEND: to its end. */
static void advance(pid_t tid, int fd, uint64_t off, long n, int append)
{
	uint64_t args[6] = { (uint64_t)fd, (uint64_t)n, SEEK_CUR };
	uint64_t pos;
	unsigned flags;
	int regular;
	long ret;

	if (off) {
		if (tracer_read_mem(tid, off, &pos, sizeof(pos)) == 0) {
			pos += (uint64_t)n;
			tracer_write_mem(tid, off, &pos, sizeof(pos));
		}
		return;
	}
	if (tracer_fd_info(tid, fd, &pos, &flags, &regular) < 0 || !regular)
		return; /* pipes, sockets, terminals: no offset */
	if (append) {
		args[1] = 0;
		args[2] = SEEK_END;
	}
	if (tracer_inject(tid, SYS_lseek, args, &ret) < 0 || ret < 0)
		hm_debug("replay: cannot move descriptor %d after a transfer", fd);
}

static void transfer(void *ctx, pid_t tid, long nr, const uint64_t args[6], long ret,
		     const unsigned char *p, size_t n)
{
	struct rec_xfer_sides s;
	char path[64];
	uint64_t pos = 0;
	unsigned flags = 0;
	int fd, file = 0, append;

	(void)ctx;
	if (ret <= 0 || rec_xfer_sides(nr, args, &s) < 0)
		return;
	if (tracer_fd_info(tid, s.out, &pos, &flags, &file) < 0)
		file = 0;
	append = file && !s.off_out && (flags & O_APPEND);
	if (file && s.off_out && tracer_read_mem(tid, s.off_out, &pos, sizeof(pos)) < 0)
		pos = 0;
	if ((size_t)ret > n)
		hm_debug("replay: a transfer of %ld bytes kept %zu of them", ret, n);
	if (n > (size_t)ret)
		n = (size_t)ret;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", tid, s.out);
	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : 0));
	if (fd < 0) {
		hm_debug("replay: cannot write what a transfer moved to descriptor %d: %s", s.out,
			 hm_strerror(errno));
	} else {
		size_t done = 0;

		while (done < n) {
			ssize_t k = file && !append
					    ? pwrite(fd, p + done, n - done, (off_t)(pos + done))
					    : write(fd, p + done, n - done);

			if (k <= 0)
				break;
			done += (size_t)k;
		}
		close(fd);
	}
	/* sendfile with an offset leaves the source's position alone. */
	advance(tid, s.in, s.off_in, ret, 0);
	advance(tid, s.out, s.off_out, ret, append);
}

/* Copy FROM to TO, a new file with FROM's mode. 0 or -errno. */
static int copy_new(const char *from, const char *to)
{
	char buf[65536];
	struct stat st;
	int in = open(from, O_RDONLY | O_CLOEXEC), out, err = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(in);
		return -EPERM; /* a hard link to a folder or a device: not made */
	}
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while (!err && (n = read(in, buf, sizeof(buf))) > 0)
		err = hm_write_all(out, buf, (size_t)n);
	if (n < 0 && !err)
		err = -errno;
	close(in);
	close(out);
	return err;
}

/* Where a tree is being copied (copy_one): the source's length and the
 * destination; nftw passes no context. */
static size_t move_from_len;
static const char *move_to;

static int copy_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	char to[8192 + 64];
	char target[4096];
	ssize_t n;

	(void)ftw;
	snprintf(to, sizeof(to), "%s%s", move_to, path + move_from_len);
	if (flag == FTW_D)
		return mkdir(to, st->st_mode & 07777) < 0 && errno != EEXIST ? -1 : 0;
	if (S_ISLNK(st->st_mode)) {
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			return -1;
		target[n] = 0;
		return symlink(target, to) < 0 ? -1 : 0;
	}
	n = S_ISREG(st->st_mode) ? copy_new(path, to) : -EPERM;
	if (n == 0)
		return 0;
	hm_debug("replay: cannot copy '%s': %s", path, hm_strerror((int)n));
	return -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) == 0)
		return 0;
	hm_debug("replay: cannot remove '%s': %s", path, hm_strerror(errno));
	return -1;
}

/* Move FROM to TO by copying (both through /proc/PID/root): 0 or -1.
 * Not FTW_MOUNT: an overlay's files show their layer's device, not the
 * overlay's (Documentation/filesystems/overlayfs.rst, "st_dev"). */
static int move_tree(const char *from, const char *to)
{
	struct stat st;

	if (lstat(from, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		unlink(to);
		return copy_new(from, to) < 0 || unlink(from) < 0 ? -1 : 0;
	}
	move_from_len = strlen(from);
	move_to = to;
	if (nftw(from, copy_one, 16, FTW_PHYS) != 0)
		return -1;
	return nftw(from, remove_one, 16, FTW_PHYS | FTW_DEPTH) == 0 ? 0 : -1;
}

static void fs_result(void *ctx, pid_t tid, long nr, const uint64_t args[6], long got, long want)
{
	char from[4096 + 8], to[4096 + 8], a[4096 + 64], b[4096 + 64];
	int old_dir = AT_FDCWD, new_dir = AT_FDCWD, err;
	uint64_t old_path = args[0], new_path = args[1];
	int link = nr == SYS_link || nr == SYS_linkat;

	(void)ctx;
	if (got != -EXDEV || want != 0)
		return;
	if (!link && nr != SYS_rename && nr != SYS_renameat &&
	    !(nr == SYS_renameat2 && (args[4] & ~(uint64_t)RENAME_NOREPLACE) == 0))
		return;
	if (nr != SYS_link && nr != SYS_rename) { /* (olddirfd, oldpath, newdirfd, newpath) */
		old_dir = (int)args[0];
		old_path = args[1];
		new_dir = (int)args[2];
		new_path = args[3];
	}
	if (rec_fs_path(tid, old_dir, old_path, from, sizeof(from)) < 0 ||
	    rec_fs_path(tid, new_dir, new_path, to, sizeof(to)) < 0)
		return;
	/* The guest's own view of the file system, not hermit's. */
	snprintf(a, sizeof(a), "/proc/%d/root%s", tid, from);
	snprintf(b, sizeof(b), "/proc/%d/root%s", tid, to);
	err = link ? copy_new(a, b) : move_tree(a, b) < 0 ? -errno : 0;
	hm_debug("replay: the view refused to %s '%s' to '%s': %s", link ? "link" : "move", from,
		 to, err ? hm_strerror(err) : "copied instead");
}

const struct rec_replay_ops replay_substitution = { NULL, put_output, transfer, fs_result };
