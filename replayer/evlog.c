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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	int check_only;	     /* replay_log_check: a reference is checked, not read */
	char *files;	     /* the recording's files/ */
	struct hm_buf input; /* a reference's frame, as the input it stands for */
	/* Copies in files/ open for references, the last few used. */
	struct copy {
		unsigned char sha256[32];
		int fd; /* -1: none */
		uint64_t size;
	} copies[8];
	unsigned next_copy;	      /* the slot taken next */
	unsigned char (*checked)[32]; /* check_only: copies whose hash was checked */
	size_t nchecked;
};

/* An open copy in files/ named by SHA256 (binary), in *C. 0 or -ENOENT. */
static int open_copy(struct replay_log *log, const unsigned char *sha256, struct copy **c)
{
	static const char digits[] = "0123456789abcdef";
	char path[4096 + 80], hex[65];
	struct copy *slot;
	struct stat st;
	int fd;

	for (size_t i = 0; i < sizeof(log->copies) / sizeof(log->copies[0]); i++) {
		if (log->copies[i].fd >= 0 && memcmp(log->copies[i].sha256, sha256, 32) == 0) {
			*c = &log->copies[i];
			return 0;
		}
	}
	for (int i = 0; i < 32; i++) {
		hex[2 * i] = digits[sha256[i] >> 4];
		hex[2 * i + 1] = digits[sha256[i] & 15];
	}
	hex[64] = 0;
	snprintf(path, sizeof(path), "%s/%s", log->files ? log->files : ".", hex);
	if (log->check_only) {
		/* Copies are stored without fsync (hm_store_quick): one that a
		 * crash of the host left short or empty is told by its hash,
		 * once per copy, before a replay starts. */
		char got[65];
		size_t i;

		for (i = 0; i < log->nchecked; i++) {
			if (memcmp(log->checked[i], sha256, 32) == 0)
				break;
		}
		if (i == log->nchecked) {
			if (hm_sha256_file(path, got) < 0 || strcmp(got, hex) != 0)
				return -ENOENT;
			log->checked = xrealloc(log->checked, (log->nchecked + 1) * 32);
			memcpy(log->checked[log->nchecked++], sha256, 32);
		}
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return -ENOENT;
	}
	slot = &log->copies[log->next_copy++ % (sizeof(log->copies) / sizeof(log->copies[0]))];
	if (slot->fd >= 0)
		close(slot->fd);
	memcpy(slot->sha256, sha256, 32);
	slot->fd = fd;
	slot->size = (uint64_t)st.st_size;
	*c = slot;
	return 0;
}

/* The frame in log->frame (BODY bytes) is a reference: make log->input the
 * input frame it stands for. 0, -EBADMSG (not a reference) or -ENOENT. */
static int resolve(struct replay_log *log, uint32_t body)
{
	struct rec_event_record ev;
	struct rec_file_ref ref;
	const unsigned char *p = log->frame.data + sizeof(ev);
	struct copy *c;
	unsigned char *to;
	uint64_t got = 0;
	int err;

	if (body != sizeof(ev) + REC_FILE_REF_SIZE)
		return -EBADMSG;
	memcpy(&ev, log->frame.data, sizeof(ev));
	memcpy(ref.sha256, p, 32);
	memcpy(&ref.offset, p + 32, 8);
	memcpy(&ref.length, p + 40, 8);
	if (ref.length > REC_LOG_MAX_PAYLOAD || ref.offset > UINT64_MAX - ref.length)
		return -EBADMSG;
	err = open_copy(log, ref.sha256, &c);
	if (err)
		return err;
	if (c->size < ref.offset + ref.length)
		return -ENOENT;
	ev.fields[0] = REC_EV_INPUT;
	hm_buf_reset(&log->input);
	hm_buf_add(&log->input, &ev, sizeof(ev));
	if (log->check_only)
		return 0;
	to = hm_buf_grow(&log->input, ref.length);
	while (got < ref.length) {
		ssize_t n = pread(c->fd, to + got, ref.length - got, (off_t)(ref.offset + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENOENT;
		got += (uint64_t)n;
	}
	log->input.len += ref.length;
	return 0;
}

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
	hm_buf_init(&log->input);
	for (size_t i = 0; i < sizeof(log->copies) / sizeof(log->copies[0]); i++)
		log->copies[i].fd = -1;
	{
		const char *slash = strrchr(path, '/');
		struct hm_buf b;

		hm_buf_init(&b);
		if (slash)
			hm_buf_addf(&b, "%.*s/files", (int)(slash - path), path);
		else
			hm_buf_addf(&b, "files");
		log->files = (char *)b.data;
	}
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
	if (REC_EV_KIND(*ev) == REC_EV_INPUT_REF) {
		int err = resolve(log, body);

		if (err)
			return log->err = err;
		*ev = (const struct rec_event_record *)log->input.data;
		*payload = log->input.data + sizeof(struct rec_event_record);
		*len = log->input.len - sizeof(struct rec_event_record);
		return 1;
	}
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
	hm_buf_free(&log->input);
	for (size_t i = 0; i < sizeof(log->copies) / sizeof(log->copies[0]); i++) {
		if (log->copies[i].fd >= 0)
			close(log->copies[i].fd);
	}
	free(log->files);
	free(log->checked);
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
	log->check_only = 1;
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
