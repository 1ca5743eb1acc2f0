/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xz streams over liblzma, to and from a file descriptor.
 *
 * The writer keeps one 64 KiB output buffer and writes it out whenever
 * lzma_code() fills it. hm_xzw_flush() ends the current block with
 * LZMA_FULL_FLUSH: everything before it then sits in complete blocks on
 * disk, which a decoder reads back even if the stream is never finished
 * (xz-file-format.txt, sections 2.1 and 3: blocks are decoded one after
 * another; the Index and the Stream Footer only come at the end). The
 * first error sticks.
 *
 * The reader feeds lzma_code() 64 KiB of input at a time. At end of file it
 * switches to LZMA_FINISH; liblzma then answers LZMA_BUF_ERROR when it cannot
 * go on without more input (lzma_code() in liblzma's base.h: "no progress is
 * possible"), which is how a truncated file shows, after every byte that
 * could be decoded has been handed out.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <lzma.h>
#include <stdlib.h>
#include <unistd.h>

#include "common.h"

#define XZ_BUF	    (64 * 1024)
#define XZ_PRESET   1
#define XZ_MEMLIMIT (256 * 1024 * 1024)

struct hm_xzw {
	lzma_stream s;
	int fd;		     /* not ours to close */
	int err;	     /* first error, returned by every later call */
	uint8_t out[XZ_BUF]; /* compressed bytes not yet written */
};

struct hm_xzr {
	lzma_stream s;
	int fd;		    /* not ours to close */
	off_t off;	    /* where the next bytes are read (-1: a pipe, read(2) it);
			     * not the file's offset, which forks share */
	int eof;	    /* read(2) returned 0: lzma_code() gets LZMA_FINISH */
	int end;	    /* LZMA_STREAM_END seen */
	int err;	    /* first error, returned by every later call */
	uint8_t in[XZ_BUF]; /* compressed bytes read ahead */
};

static int xz_errno(lzma_ret ret)
{
	switch (ret) {
	case LZMA_MEM_ERROR:
	case LZMA_MEMLIMIT_ERROR:
		return -ENOMEM;
	case LZMA_FORMAT_ERROR:
	case LZMA_DATA_ERROR:
	case LZMA_OPTIONS_ERROR: /* decoding: a header asks for what we cannot do */
		return -EBADMSG;
	case LZMA_BUF_ERROR:
		return -EPIPE;
	case LZMA_UNSUPPORTED_CHECK:
		return -ENOTSUP;
	default:
		return -EIO;
	}
}

/* ---- writer ---- */

/* Write out the compressed bytes in the buffer and make it empty. */
static int xzw_drain(struct hm_xzw *w)
{
	int err = hm_write_all(w->fd, w->out, sizeof(w->out) - w->s.avail_out);

	if (err)
		return w->err = err;
	w->s.next_out = w->out;
	w->s.avail_out = sizeof(w->out);
	return 0;
}

/* Run the encoder with ACTION: LZMA_RUN until the input is taken, the others
 * until LZMA_STREAM_END, and then write out everything. */
static int xzw_code(struct hm_xzw *w, lzma_action action)
{
	for (;;) {
		lzma_ret ret = lzma_code(&w->s, action);

		if (ret != LZMA_OK && ret != LZMA_STREAM_END)
			return w->err = xz_errno(ret);
		if (w->s.avail_out == 0 || ret == LZMA_STREAM_END) {
			int err = xzw_drain(w);

			if (err)
				return err;
		}
		if (ret == LZMA_STREAM_END)
			return 0;
		if (action == LZMA_RUN && w->s.avail_in == 0)
			return 0;
	}
}

int hm_xzw_open(struct hm_xzw **w, int fd)
{
	struct hm_xzw *nw = xmalloc(sizeof(*nw));
	lzma_stream init = LZMA_STREAM_INIT;
	lzma_ret ret;

	nw->s = init;
	nw->fd = fd;
	nw->err = 0;
	ret = lzma_easy_encoder(&nw->s, XZ_PRESET, LZMA_CHECK_CRC32);
	if (ret != LZMA_OK) {
		free(nw);
		return xz_errno(ret);
	}
	nw->s.next_out = nw->out;
	nw->s.avail_out = sizeof(nw->out);
	*w = nw;
	return 0;
}

int hm_xzw_write(struct hm_xzw *w, const void *p, size_t n)
{
	if (w->err)
		return w->err;
	if (n == 0)
		return 0;
	w->s.next_in = p;
	w->s.avail_in = n;
	return xzw_code(w, LZMA_RUN);
}

int hm_xzw_flush(struct hm_xzw *w)
{
	if (w->err)
		return w->err;
	w->s.next_in = NULL;
	w->s.avail_in = 0;
	return xzw_code(w, LZMA_FULL_FLUSH);
}

int hm_xzw_close(struct hm_xzw *w)
{
	int err = w->err;

	if (!err) {
		w->s.next_in = NULL;
		w->s.avail_in = 0;
		err = xzw_code(w, LZMA_FINISH);
	}
	lzma_end(&w->s);
	free(w);
	return err;
}

/* ---- reader ---- */

int hm_xzr_open(struct hm_xzr **r, int fd)
{
	struct hm_xzr *nr = xmalloc(sizeof(*nr));
	lzma_stream init = LZMA_STREAM_INIT;
	lzma_ret ret;

	nr->s = init;
	nr->fd = fd;
	nr->off = lseek(fd, 0, SEEK_CUR);
	nr->eof = 0;
	nr->end = 0;
	nr->err = 0;
	ret = lzma_stream_decoder(&nr->s, XZ_MEMLIMIT, 0);
	if (ret != LZMA_OK) {
		free(nr);
		return xz_errno(ret);
	}
	*r = nr;
	return 0;
}

/* Refill the input buffer from the fd; at end of file set EOF. */
static int xzr_fill(struct hm_xzr *r)
{
	ssize_t got;

	do
		got = r->off < 0 ? read(r->fd, r->in, sizeof(r->in))
				 : pread(r->fd, r->in, sizeof(r->in), r->off);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -errno;
	if (r->off >= 0)
		r->off += got;
	if (got == 0)
		r->eof = 1;
	r->s.next_in = r->in;
	r->s.avail_in = (size_t)got;
	return 0;
}

ssize_t hm_xzr_read(struct hm_xzr *r, void *p, size_t n)
{
	size_t done;

	if (r->err)
		return r->err;
	if (r->end || n == 0)
		return 0;
	if (n > SSIZE_MAX)
		n = SSIZE_MAX;
	r->s.next_out = p;
	r->s.avail_out = n;
	for (;;) {
		lzma_ret ret;
		int err = 0;

		if (r->s.avail_in == 0 && !r->eof) {
			/* Hand out what we have before we may block on input. */
			if (r->s.avail_out < n)
				break;
			err = xzr_fill(r);
		}
		if (!err) {
			ret = lzma_code(&r->s, r->eof ? LZMA_FINISH : LZMA_RUN);
			if (ret == LZMA_STREAM_END) {
				r->end = 1;
				break;
			}
			if (ret != LZMA_OK)
				err = xz_errno(ret);
		}
		if (err) {
			r->err = err;
			if (r->s.avail_out < n)
				break; /* the error comes with the next call */
			return err;
		}
		if (r->s.avail_out == 0)
			break;
	}
	done = n - r->s.avail_out;
	r->s.next_out = NULL;
	r->s.avail_out = 0;
	return (ssize_t)done;
}

void hm_xzr_close(struct hm_xzr *r)
{
	if (!r)
		return;
	lzma_end(&r->s);
	free(r);
}

int hm_xz_finished(int fd)
{
	uint8_t footer[LZMA_STREAM_HEADER_SIZE];
	lzma_stream_flags flags;
	off_t end = lseek(fd, 0, SEEK_END);
	ssize_t n;

	if (end < 0)
		return -errno;
	if (end < 2 * LZMA_STREAM_HEADER_SIZE)
		return 0; /* not even a header and a footer */
	do
		n = pread(fd, footer, sizeof(footer), end - (off_t)sizeof(footer));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(footer) && lzma_stream_footer_decode(&flags, footer) == LZMA_OK;
}
