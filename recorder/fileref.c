/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reads of regular files kept by reference (docs/record-replay.md, "Reads
 * of regular files"). A read's bytes go into the log as (copy, offset,
 * length) in place of the bytes when they *are* those bytes of a copy of
 * the file in files/: the bytes the guest got, read from its memory as
 * for any read, are compared with the copy's at that offset, and only
 * bytes equal to the copy's are kept by reference. So the file may change
 * under the run (another process writes it, the guest itself does, it is
 * cut or replaced) and a reference still gives the replay exactly what
 * the guest read: what differs goes into the log as bytes.
 *
 * A copy is made (rec_files_keep: content-addressed, read-only, shared
 * through objects/) at the first read of LARGE bytes or more of a file of
 * MIN_FILE bytes or more, from the guest's own descriptor (/proc/TID/fd/N,
 * so a file removed since it was opened is kept too), and made again when
 * the file's size, mtime or ctime differ from when it was copied (it was
 * written since: the old copy would not match any more), up to MAX_KEEPS
 * times per file, after which its reads go as bytes. A file over
 * BIG_FILE bytes is copied only once the run has read a quarter of it, so
 * that a few reads of a large file (a database) do not copy all of it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#define LARGE	  4096		/* smaller reads go as bytes: xz packs them well */
#define MIN_FILE  (64 << 10)	/* smaller files are not copied for their reads */
#define BIG_FILE  (64ull << 20) /* larger files are copied once a quarter was read */
#define MAX_KEEPS 4		/* copies of one file in a run, at most */
#define STEP	  (1u << 20)	/* bytes compared at a time */

struct fileref {
	dev_t dev;
	ino_t ino;
	off_t size;		      /* the file's, when it was copied */
	struct timespec mtime, ctime; /* the same */
	unsigned char sha256[32];     /* the copy's */
	uint64_t copy_size;
	int have;	     /* a copy was made */
	int keeps;	     /* copies made */
	uint64_t bytes_read; /* by the run, in reads of LARGE or more */
};

struct rec_fileref {
	struct fileref *files;
	size_t n;
	size_t open_i; /* the copy FD is open on (files[open_i]) */
	int fd;	       /* -1: none */
	struct hm_buf scratch;
};

void rec_fileref_free(struct rec *r)
{
	struct rec_fileref *fr = r->refs;

	if (!fr)
		return;
	if (fr->fd >= 0)
		close(fr->fd);
	hm_buf_free(&fr->scratch);
	free(fr->files);
	free(fr);
	r->refs = NULL;
}

static struct fileref *lookup(struct rec_fileref *fr, const struct stat *st)
{
	for (size_t i = 0; i < fr->n; i++) {
		if (fr->files[i].dev == st->st_dev && fr->files[i].ino == st->st_ino)
			return &fr->files[i];
	}
	fr->files = xrealloc(fr->files, (fr->n + 1) * sizeof(*fr->files));
	memset(&fr->files[fr->n], 0, sizeof(fr->files[fr->n]));
	fr->files[fr->n].dev = st->st_dev;
	fr->files[fr->n].ino = st->st_ino;
	return &fr->files[fr->n++];
}

static int same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static int unhex(const char *hex, unsigned char out[32])
{
	for (int i = 0; i < 32; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -EINVAL;
		out[i] = (unsigned char)v;
	}
	return 0;
}

/* Copy the file behind descriptor FD of T into files/ as F. */
static int keep(struct rec *r, struct task *t, int fd, const struct stat *st, struct fileref *f)
{
	char link[64], hex[65];
	uint64_t size;
	int err;

	snprintf(link, sizeof(link), "/proc/%d/fd/%d", t->tid, fd);
	f->keeps++;
	f->have = 0;
	err = rec_files_keep(r->opts->files, link, hex, &size);
	if (err) {
		hm_debug("task %d: no copy of descriptor %d for its reads: %s", t->index, fd,
			 hm_strerror(err));
		return err;
	}
	if (unhex(hex, f->sha256) < 0)
		return -EINVAL;
	f->size = st->st_size;
	f->mtime = st->st_mtim;
	f->ctime = st->st_ctim;
	f->copy_size = size;
	f->have = 1;
	if (r->refs->fd >= 0 && r->refs->open_i == (size_t)(f - r->refs->files)) {
		close(r->refs->fd);
		r->refs->fd = -1;
	}
	return 0;
}

/* The copy of F, open. -1 when it cannot be. */
static int copy_fd(struct rec *r, struct fileref *f)
{
	struct rec_fileref *fr = r->refs;
	size_t i = (size_t)(f - fr->files);
	char path[4096 + 80];

	if (fr->fd >= 0 && fr->open_i == i)
		return fr->fd;
	if (fr->fd >= 0)
		close(fr->fd);
	snprintf(path, sizeof(path), "%s/", r->opts->files->dir);
	for (int k = 0; k < 32; k++)
		snprintf(path + strlen(path), 3, "%02x", f->sha256[k]);
	fr->fd = open(path, O_RDONLY | O_CLOEXEC);
	fr->open_i = i;
	return fr->fd;
}

/* Whether the N bytes at P are those at OFF of the copy of F. */
static int matches(struct rec *r, struct fileref *f, uint64_t off, const unsigned char *p, size_t n)
{
	int fd = copy_fd(r, f);
	size_t done = 0;

	if (fd < 0 || off > f->copy_size || f->copy_size - off < n)
		return 0;
	hm_buf_reset(&r->refs->scratch);
	hm_buf_grow(&r->refs->scratch, n < STEP ? n : STEP);
	while (done < n) {
		size_t k = n - done < STEP ? n - done : STEP;
		ssize_t got = pread(fd, r->refs->scratch.data, k, (off_t)(off + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0 || memcmp(r->refs->scratch.data, p + done, (size_t)got) != 0)
			return 0;
		done += (size_t)got;
	}
	return 1;
}

/* Where descriptor FD of T stands now (/proc/TID/fdinfo): 0 or -errno. */
static int fd_pos(pid_t tid, int fd, uint64_t *pos)
{
	char path[64], buf[256];
	ssize_t n;
	int in;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", tid, fd);
	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	n = read(in, buf, sizeof(buf) - 1);
	close(in);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	if (sscanf(buf, "pos: %" SCNu64, pos) != 1)
		return -EIO;
	return 0;
}

int rec_fileref_find(struct rec *r, struct task *t, const struct rec_call *c,
		     const struct hm_buf *payload, struct rec_file_ref *ref)
{
	int fd = (int)c->args[0], xfer = 0;
	uint64_t off, len = payload->len;
	struct fileref *f;
	struct stat st;
	char link[64];

	if (c->ret < LARGE || len < LARGE || !r->opts->files || !r->opts->files->dir)
		return 0;
	switch (c->nr) {
	case SYS_read:
	case SYS_readv:
	case SYS_pread64:
	case SYS_preadv:
	case SYS_preadv2:
		if (len != (uint64_t)c->ret)
			return 0; /* iovecs that could not be read */
		break;
	case SYS_copy_file_range:
	case SYS_sendfile:
	case SYS_splice:
		/* The bytes moved, as read from the side that is a file after
		 * the call (xfer.c). */
		if (t->xfer_side < 0)
			return 0;
		fd = t->xfer_side;
		xfer = 1;
		break;
	default:
		return 0;
	}
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", t->tid, fd);
	if (stat(link, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	/* Where the bytes were: the call's offset, or where the read left the
	 * descriptor, less what it read. A wrong offset only fails the
	 * comparison below. */
	if (xfer) {
		off = t->xfer_pos;
	} else if (c->nr == SYS_pread64 || c->nr == SYS_preadv ||
		   (c->nr == SYS_preadv2 && (int64_t)c->args[3] != -1)) {
		off = c->args[3];
	} else {
		if (fd_pos(t->tid, fd, &off) < 0 || off < len)
			return 0;
		off -= len;
	}
	if (!r->refs) {
		r->refs = xcalloc(1, sizeof(*r->refs));
		r->refs->fd = -1;
		hm_buf_init(&r->refs->scratch);
	}
	f = lookup(r->refs, &st);
	f->bytes_read += len;
	if (!f->have || f->size != st.st_size || !same_time(&f->mtime, &st.st_mtim) ||
	    !same_time(&f->ctime, &st.st_ctim)) {
		/* Not copied yet, or written since it was (an older copy may
		 * still hold what was read: the comparison says). */
		if (st.st_size >= MIN_FILE && f->keeps < MAX_KEEPS &&
		    ((uint64_t)st.st_size <= BIG_FILE || f->bytes_read >= (uint64_t)st.st_size / 4))
			keep(r, t, fd, &st, f);
	}
	if (!f->have || !matches(r, f, off, payload->data, len))
		return 0;
	memcpy(ref->sha256, f->sha256, 32);
	ref->offset = off;
	ref->length = len;
	return 1;
}
