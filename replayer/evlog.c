/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event-log reader: frames (recorder.h) out of an xz stream. It never
 * trusts the file: a length past REC_LOG_MAX_PAYLOAD, a CRC that does not
 * match, bytes after the end frame or an xz error are -EBADMSG; a stream
 * that stops short (the recorder was killed) ends the log where the last
 * whole frame did (replay_log_check tells the two apart).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "replayer.h"

struct replay_log {
	int fd;
	struct hm_xzr *xz;
	struct hm_buf frame; /* the current frame's body */
	int ended;	     /* the end frame was read */
	int cut;	     /* the stream stopped short */
	int err;	     /* sticky error */
};

/* Read exactly N bytes: N, fewer at the end of the data (then *END says
 * how it ended: 0 clean, -EPIPE cut), or -errno. */
static ssize_t read_full(struct replay_log *log, void *p, size_t n, int *end)
{
	size_t got = 0;

	*end = 0;
	while (got < n) {
		ssize_t k = hm_xzr_read(log->xz, (unsigned char *)p + got, n - got);

		if (k == 0 || k == -EPIPE) {
			*end = (int)k;
			break;
		}
		if (k < 0)
			return k;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

int replay_log_open(const char *path, struct replay_log **out)
{
	struct replay_log *log = xcalloc(1, sizeof(*log));
	char magic[8];
	ssize_t n;
	int end, err;

	log->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (log->fd < 0) {
		err = -errno;
		free(log);
		return err;
	}
	err = hm_xzr_open(&log->xz, log->fd);
	if (err) {
		close(log->fd);
		free(log);
		return err;
	}
	hm_buf_init(&log->frame);
	n = read_full(log, magic, sizeof(magic), &end);
	if (n < 0 || (size_t)n < sizeof(magic) || memcmp(magic, REC_LOG_MAGIC, 8) != 0) {
		replay_log_close(log);
		/* "HMEVLOG" and another version: a log of another format */
		if (n == (ssize_t)sizeof(magic) && memcmp(magic, REC_LOG_MAGIC, 7) == 0)
			return -EPROTONOSUPPORT;
		return n < 0 && n != -EBADMSG ? (int)n : -EBADMSG;
	}
	*out = log;
	return 0;
}

int replay_log_next(struct replay_log *log, const struct rec_event_record **ev,
		    const unsigned char **payload, size_t *len)
{
	unsigned char head[4], tail[4];
	uint32_t body, crc, want;
	ssize_t n;
	int end;

	if (log->err)
		return log->err;
	if (log->cut)
		return 0;
	n = read_full(log, head, 4, &end);
	if (n < 0)
		return log->err = (int)n;
	if (n == 0 && log->ended && end == 0)
		return 0;
	if (log->ended) /* cut after the end frame, or something follows it */
		return log->err = n == 0 && end == -EPIPE ? -EPIPE : -EBADMSG;
	if (n < 4) {
		log->cut = 1;
		return 0;
	}
	memcpy(&body, head, 4);
	if (body < sizeof(struct rec_event_record) ||
	    body > sizeof(struct rec_event_record) + REC_LOG_MAX_PAYLOAD)
		return log->err = -EBADMSG;
	hm_buf_reset(&log->frame);
	n = read_full(log, hm_buf_grow(&log->frame, body), body, &end);
	if (n < 0)
		return log->err = (int)n;
	if ((uint32_t)n == body)
		n = read_full(log, tail, 4, &end) == 4 ? (ssize_t)body : -1;
	if (n != (ssize_t)body) {
		/* A frame cut short: a clean end of the stream here is damage, a
		 * stream that stops short is a recorder that died. */
		if (end == -EPIPE) {
			log->cut = 1;
			return 0;
		}
		return log->err = -EBADMSG;
	}
	log->frame.len = body;
	memcpy(&want, tail, 4);
	crc = lzma_crc32(log->frame.data, body, 0);
	if (crc != want)
		return log->err = -EBADMSG;
	*ev = (const struct rec_event_record *)log->frame.data;
	if (REC_EV_KIND(*ev) == REC_EV_END)
		log->ended = 1;
	*payload = log->frame.data + sizeof(struct rec_event_record);
	*len = body - sizeof(struct rec_event_record);
	return 1;
}

void replay_log_close(struct replay_log *log)
{
	if (!log)
		return;
	hm_xzr_close(log->xz);
	close(log->fd);
	hm_buf_free(&log->frame);
	free(log);
}

int replay_log_check(const char *path, struct replay_log_check *out)
{
	struct replay_log *log;
	const struct rec_event_record *ev;
	const unsigned char *p;
	size_t n;
	int err = replay_log_open(path, &log), got;

	memset(out, 0, sizeof(*out));
	if (err)
		return err;
	while ((got = replay_log_next(log, &ev, &p, &n)) > 0) {
		out->frames++;
		if (REC_EV_KIND(ev) == REC_EV_END) {
			out->complete = 1;
			out->exit_status = (int)ev->fields[1];
		} else if (REC_EV_KIND(ev) == REC_EV_INPUT) {
			out->inputs++;
		} else if (REC_EV_KIND(ev) == REC_EV_OUTPUT) {
			out->outputs++;
		} else {
			out->events++;
		}
	}
	out->error = got;
	replay_log_close(log);
	return 0;
}
