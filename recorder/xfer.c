/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transfers the kernel makes between descriptors without the guest's
 * memory: copy_file_range, sendfile, splice and tee (cp a b, cat a > b).
 *
 * Recording: they stop hidden, as reads do, and their input frame holds
 * the bytes moved, read after the call from the side that is a file (the
 * source of copy_file_range and sendfile; whichever side of splice is
 * one; none for tee or a splice between a pipe and a socket).
 *
 * Replay: a transfer from a file, or from outside the guest, is not run:
 * replayer/substitute.c writes the recorded bytes to the destination and
 * moves the offsets the call moved. The source may differ now, or be a
 * placeholder of its recorded size, and the kernel may refuse the call
 * where it did not (copy_file_range between an overlay's layers: EXDEV; to
 * a pipe: EINVAL). A transfer from the guest's own pipe runs, so the pipe
 * is drained as it was; its result is the log's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

int rec_xfer_sides(long nr, const uint64_t args[6], struct rec_xfer_sides *s)
{
	switch (nr) {
	case SYS_copy_file_range: /* (fd_in, off_in, fd_out, off_out, len, flags) */
	case SYS_splice:
		*s = (struct rec_xfer_sides){ (int)args[0], (int)args[2], args[1], args[3] };
		return 0;
	case SYS_sendfile: /* (out_fd, in_fd, offset, count) */
		*s = (struct rec_xfer_sides){ (int)args[1], (int)args[0], args[2], 0 };
		return 0;
	case SYS_tee: /* (fd_in, fd_out, len, flags) */
		*s = (struct rec_xfer_sides){ (int)args[0], (int)args[1], 0, 0 };
		return 0;
	}
	return -ENOSYS;
}

int rec_xfer_call(long nr)
{
	return nr == SYS_copy_file_range || nr == SYS_sendfile || nr == SYS_splice || nr == SYS_tee;
}

/* Whether FD of TID is a regular file. */
static int is_file(pid_t tid, int fd)
{
	uint64_t pos;
	unsigned flags;
	int regular;

	return tracer_fd_info(tid, fd, &pos, &flags, &regular) == 0 && regular;
}

/* Where side FD (offset pointer OFF) of T stands: *OFF, else its position. */
static int side_pos(const struct task *t, int fd, uint64_t off, uint64_t *pos)
{
	unsigned flags;
	int regular;

	if (off)
		return tracer_read_mem(t->tid, off, pos, sizeof(*pos));
	return tracer_fd_info(t->tid, fd, pos, &flags, &regular);
}

void rec_xfer_entry(struct task *t, const struct rec_call *c)
{
	struct rec_xfer_sides s;

	t->xfer_side = -1;
	if (rec_xfer_sides(c->nr, c->args, &s) < 0)
		return;
	/* Which side's bytes can be read after the call: a file's. */
	if (is_file(t->tid, s.in) && side_pos(t, s.in, s.off_in, &t->xfer_pos) == 0)
		t->xfer_side = s.in;
	else if (is_file(t->tid, s.out) && side_pos(t, s.out, s.off_out, &t->xfer_pos) == 0)
		t->xfer_side = s.out;
}

void rec_xfer_bytes(const struct task *t, long ret, struct hm_buf *out)
{
	char path[64];
	size_t n = (size_t)ret, done = 0;
	unsigned char *p;
	int fd;

	if (ret <= 0 || t->xfer_side < 0)
		return;
	if (n > REC_LOG_MAX_PAYLOAD)
		n = REC_LOG_MAX_PAYLOAD;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->tid, t->xfer_side);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		hm_debug("task %d: cannot read what a transfer moved: %s", t->index,
			 hm_strerror(errno));
		return;
	}
	p = hm_buf_grow(out, n);
	while (done < n) {
		ssize_t k = pread(fd, p + done, n - done, (off_t)(t->xfer_pos + done));

		if (k <= 0)
			break;
		done += (size_t)k;
	}
	close(fd);
	out->len += done;
}

int rec_xfer_emulates(const struct rec *r, const struct task *t, const struct rec_call *c)
{
	struct rec_xfer_sides s;

	if (rec_xfer_sides(c->nr, c->args, &s) < 0)
		return 0;
	/* Else the guest's own pipe or socket: run, it drains it (and a
	 * descriptor not open is the kernel's to refuse). */
	return is_file(t->tid, s.in) || rec_fd_from_outside(r, t->tid, s.in);
}
