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
 * the recorded bytes are written to the destination (through
 * /proc/TID/fd, at the destination's offset), and the offsets the call
 * would have moved are moved (written back through the offset pointers,
 * or with an lseek made in the guest). The source may differ now, or be a
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

/* The two sides of call C: descriptors and offset pointers (0: none). */
struct sides {
	int in, out;
	uint64_t off_in, off_out;
};

static int sides_of(const struct rec_call *c, struct sides *s)
{
	switch (c->nr) {
	case SYS_copy_file_range: /* (fd_in, off_in, fd_out, off_out, len, flags) */
	case SYS_splice:
		*s = (struct sides){ (int)c->args[0], (int)c->args[2], c->args[1], c->args[3] };
		return 0;
	case SYS_sendfile: /* (out_fd, in_fd, offset, count) */
		*s = (struct sides){ (int)c->args[1], (int)c->args[0], c->args[2], 0 };
		return 0;
	case SYS_tee: /* (fd_in, fd_out, len, flags) */
		*s = (struct sides){ (int)c->args[0], (int)c->args[1], 0, 0 };
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
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", tid, fd);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* FD's position and open flags, from /proc/TID/fdinfo/FD. 0 or -errno. */
static int fd_info(pid_t tid, int fd, uint64_t *pos, unsigned *flags)
{
	char path[64], line[256];
	FILE *f;
	int got = 0;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", tid, fd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (sscanf(line, "pos: %llu", &v) == 1) {
			*pos = v;
			got |= 1;
		} else if (sscanf(line, "flags: %llo", &v) == 1) {
			*flags = (unsigned)v;
			got |= 2;
		}
	}
	fclose(f);
	return got == 3 ? 0 : -EIO;
}

/* Where side FD (offset pointer OFF) of T stands: *OFF, else its position. */
static int side_pos(const struct task *t, int fd, uint64_t off, uint64_t *pos)
{
	unsigned flags;

	if (off)
		return tracer_read_mem(t->tid, off, pos, sizeof(*pos));
	return fd_info(t->tid, fd, pos, &flags);
}

void rec_xfer_entry(struct task *t, const struct rec_call *c)
{
	struct sides s;

	t->xfer_side = -1;
	if (sides_of(c, &s) < 0)
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
	struct sides s;

	if (sides_of(c, &s) < 0)
		return 0;
	/* Else the guest's own pipe or socket: run, it drains it (and a
	 * descriptor not open is the kernel's to refuse). */
	return is_file(t->tid, s.in) || rec_fd_from_outside(r, t->tid, s.in);
}

/* Move side FD (offset pointer OFF) of T by N bytes, as the call would. */
static void advance(struct task *t, int fd, uint64_t off, long n, int append)
{
	uint64_t args[6] = { (uint64_t)fd, (uint64_t)n, SEEK_CUR };
	uint64_t pos;
	long ret;

	if (off) {
		if (tracer_read_mem(t->tid, off, &pos, sizeof(pos)) == 0) {
			pos += (uint64_t)n;
			tracer_write_mem(t->tid, off, &pos, sizeof(pos));
		}
		return;
	}
	if (!is_file(t->tid, fd))
		return; /* pipes, sockets, terminals: no offset */
	if (append) {
		args[1] = 0;
		args[2] = SEEK_END;
	}
	if (tracer_inject(t->tid, SYS_lseek, args, &ret) < 0 || ret < 0)
		hm_debug("task %d: cannot move descriptor %d after a transfer", t->index, fd);
}

void rec_xfer_apply(struct task *t, const struct rec_call *c, long ret, const unsigned char *p,
		    size_t n)
{
	struct sides s;
	char path[64];
	uint64_t pos = 0;
	unsigned flags = 0;
	int fd, file, append;

	if (ret <= 0 || sides_of(c, &s) < 0)
		return;
	file = is_file(t->tid, s.out);
	append = file && !s.off_out && fd_info(t->tid, s.out, &pos, &flags) == 0 &&
		 (flags & O_APPEND);
	if (file && side_pos(t, s.out, s.off_out, &pos) < 0)
		pos = 0;
	if ((size_t)ret > n)
		hm_debug("task %d: a transfer of %ld bytes kept %zu of them", t->index, ret, n);
	if (n > (size_t)ret)
		n = (size_t)ret;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->tid, s.out);
	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : 0));
	if (fd < 0) {
		hm_debug("task %d: cannot write what a transfer moved to descriptor %d: %s",
			 t->index, s.out, hm_strerror(errno));
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
	advance(t, s.in, s.off_in, ret, 0);
	advance(t, s.out, s.off_out, ret, append);
}
