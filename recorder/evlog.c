/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event-log writer (DESIGN.md "Recordings"): frames, as recorder.h
 * describes them, in an xz stream (common/xz.c). Each frame carries its
 * own length and CRC-32, so a reader can tell a frame cut by a crash from
 * a damaged one.
 *
 * Frames are gathered into a block in memory; every 1 MiB of frames and
 * every 125 ms of wall time the block is handed to a writer thread, which
 * compresses it and ends the xz block (LZMA_FULL_FLUSH), so that what it
 * wrote stays readable if the recorder dies. One block is in the thread's
 * hands at a time: the guest waits for compression only when the next
 * block is full before the last one was written (the log is a block
 * behind). A recorder killed with SIGKILL loses the block being filled and
 * the one being compressed: at most 250 ms of frames (or 2 MiB), as
 * before the thread, when one block of 250 ms was written in place.
 *
 * The thread is started at the first hand-over, after the guest has been
 * launched (tracer/launch.c forks), and ends at rec_log_close. The first
 * error of a write (ENOSPC) sticks: every later call returns it.
 */
#include "config.h"

#include <errno.h>
#include <lzma.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "common/common.h"
#include "recorder.h"

#define FLUSH_BYTES (1u << 20)
#define FLUSH_NS    (125LL * 1000000LL)

struct rec_log {
	struct hm_xzw *xz;
	struct hm_buf fill; /* frames not yet handed over */
	int64_t flushed_at; /* monotonic ns of the last hand-over */

	/* Shared with the writer thread, under LOCK. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	int started;	    /* the thread runs */
	struct hm_buf busy; /* the block the thread compresses */
	int pending;	    /* BUSY is the thread's to write */
	int stop;	    /* no more blocks: the thread ends */
	int err;	    /* the first error; nothing is written after it */
};

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64_t)ts.tv_sec * HM_NS_PER_SEC + ts.tv_nsec;
}

/* Compress BUSY and end its xz block: the thread's work, and the caller's
 * when no thread could be started. */
static int write_block(struct rec_log *log, const struct hm_buf *b)
{
	int err = hm_xzw_write(log->xz, b->data, b->len);

	return err ? err : hm_xzw_flush(log->xz);
}

static void *writer(void *arg)
{
	struct rec_log *log = arg;

	pthread_mutex_lock(&log->lock);
	for (;;) {
		int err;

		while (!log->pending && !log->stop)
			pthread_cond_wait(&log->cond, &log->lock);
		if (!log->pending)
			break;
		pthread_mutex_unlock(&log->lock);
		err = write_block(log, &log->busy);
		pthread_mutex_lock(&log->lock);
		if (err && !log->err)
			log->err = err;
		hm_buf_reset(&log->busy);
		log->pending = 0;
		pthread_cond_broadcast(&log->cond);
	}
	pthread_mutex_unlock(&log->lock);
	return NULL;
}

/* Wait until the thread holds no block. With LOCK held. */
static void wait_idle(struct rec_log *log)
{
	while (log->pending)
		pthread_cond_wait(&log->cond, &log->lock);
}

/* Hand the frames gathered so far to the thread (started now if need be);
 * with WAIT, return once they are written. 0 or the sticky error. */
static int hand_over(struct rec_log *log, int wait)
{
	struct hm_buf swap;
	int err;

	log->flushed_at = mono_ns();
	pthread_mutex_lock(&log->lock);
	if (!log->started && !log->err) {
		if (pthread_create(&log->thread, NULL, writer, log) == 0) {
			log->started = 1;
		} else {
			/* No thread: compress here, as a log once did. */
			pthread_mutex_unlock(&log->lock);
			err = log->fill.len ? write_block(log, &log->fill) : hm_xzw_flush(log->xz);
			hm_buf_reset(&log->fill);
			pthread_mutex_lock(&log->lock);
			if (err && !log->err)
				log->err = err;
			err = log->err;
			pthread_mutex_unlock(&log->lock);
			return err;
		}
	}
	wait_idle(log); /* the log is a block behind: the guest waits */
	if (!log->err && log->fill.len) {
		swap = log->busy;
		log->busy = log->fill;
		log->fill = swap;
		log->pending = 1;
		pthread_cond_broadcast(&log->cond);
		if (wait)
			wait_idle(log);
	}
	err = log->err;
	pthread_mutex_unlock(&log->lock);
	hm_buf_reset(&log->fill);
	return err;
}

int rec_log_open(struct rec_log **out, int fd)
{
	struct rec_log *log = xcalloc(1, sizeof(*log));
	int err = hm_xzw_open(&log->xz, fd);

	if (err) {
		free(log);
		return err;
	}
	hm_buf_init(&log->fill);
	hm_buf_init(&log->busy);
	pthread_mutex_init(&log->lock, NULL);
	pthread_cond_init(&log->cond, NULL);
	hm_buf_add(&log->fill, REC_LOG_MAGIC, 8); /* goes out with the first block */
	log->flushed_at = mono_ns();
	*out = log;
	return 0;
}

static int sticky(struct rec_log *log)
{
	int err;

	if (!log->started)
		return log->err;
	pthread_mutex_lock(&log->lock);
	err = log->err;
	pthread_mutex_unlock(&log->lock);
	return err;
}

int rec_log_flush(struct rec_log *log)
{
	return hand_over(log, 1);
}

/* Append one frame of kind-as-given EV and payload P (N bytes) to the block. */
static int add_frame(struct rec_log *log, const struct rec_event_record *ev, const void *p,
		     size_t len)
{
	uint32_t body = (uint32_t)(sizeof(*ev) + len), crc;
	int err = sticky(log);

	if (err)
		return err;
	if (len > REC_LOG_MAX_PAYLOAD)
		return -EFBIG;
	crc = lzma_crc32((const uint8_t *)ev, sizeof(*ev), 0);
	if (len)
		crc = lzma_crc32(p, len, crc);
	/* x86-64 only: the host order is little-endian. */
	hm_buf_add(&log->fill, &body, 4);
	hm_buf_add(&log->fill, ev, sizeof(*ev));
	if (len)
		hm_buf_add(&log->fill, p, len);
	hm_buf_add(&log->fill, &crc, 4);
	if (log->fill.len >= FLUSH_BYTES || mono_ns() - log->flushed_at >= FLUSH_NS)
		return hand_over(log, 0);
	return 0;
}

int rec_log_write(struct rec_log *log, const struct rec_event_record *ev, const void *payload,
		  size_t len)
{
	return add_frame(log, ev, payload, len);
}

int rec_log_write_ref(struct rec_log *log, const struct rec_event_record *ev,
		      const struct rec_file_ref *ref)
{
	struct rec_event_record e = *ev;
	unsigned char p[REC_FILE_REF_SIZE];

	e.fields[0] = REC_EV_INPUT_REF;
	memcpy(p, ref->sha256, 32);
	memcpy(p + 32, &ref->offset, 8);
	memcpy(p + 40, &ref->length, 8);
	return add_frame(log, &e, p, sizeof(p));
}

int rec_log_close(struct rec_log *log, int end_status, uint64_t events)
{
	int err;

	if (end_status >= 0 && !sticky(log)) {
		struct rec_event_record end = { { REC_EV_END, end_status, (int64_t)events } };

		rec_log_write(log, &end, NULL, 0);
	}
	hand_over(log, 1);
	if (log->started) {
		pthread_mutex_lock(&log->lock);
		log->stop = 1;
		pthread_cond_broadcast(&log->cond);
		pthread_mutex_unlock(&log->lock);
		pthread_join(log->thread, NULL);
	}
	err = hm_xzw_close(log->xz);
	if (log->err)
		err = log->err;
	hm_buf_free(&log->fill);
	hm_buf_free(&log->busy);
	pthread_mutex_destroy(&log->lock);
	pthread_cond_destroy(&log->cond);
	free(log);
	return err;
}
/* Pseudo-numbers of events that are not syscalls (run.c, preempt.c). */
static const char *pseudo_name(int64_t nr)
{
	switch (nr) {
	case -1:
		return "rdtsc";
	case -2:
		return "preemption at a site";
	case -3:
		return "preemption by the spin watch";
	case -4:
		return "signal from outside";
	case -5:
		return "the outside ready before a timeout";
	case -6:
		return "preemption by the spin watch at a tick";
	default:
		return "event";
	}
}

void rec_event_describe(const struct rec_event_record *ev, char *buf, size_t size)
{
	const int64_t *f = ev->fields;
	const struct rec_syscall *row = rec_syscall_find((long)f[2]);
	char name[48], out[40] = "";

	if (f[0] == REC_EV_END) {
		snprintf(buf, size, "the end of the run (exit status %lld)", (long long)f[1]);
		return;
	}
	if (row)
		snprintf(name, sizeof(name), "%s", rec_syscall_name(row));
	else if (f[2] < 0)
		snprintf(name, sizeof(name), "%s", pseudo_name(f[2]));
	else
		snprintf(name, sizeof(name), "syscall %lld", (long long)f[2]);

	/* (an input frame keeps its call's parks there, an output its digest) */
	if (f[11] && f[0] == REC_EV_INPUT)
		snprintf(out, sizeof(out), ", parked %lld times", (long long)f[11]);
	else if (f[11])
		snprintf(out, sizeof(out), ", output %016llx", (unsigned long long)f[11]);
	snprintf(buf, size, "task %lld %s(%#llx, %#llx, %#llx) = %lld at tick %lld%s%s",
		 (long long)f[1], name, (unsigned long long)f[3], (unsigned long long)f[4],
		 (unsigned long long)f[5], (long long)f[9], (long long)f[10], out,
		 f[0] == REC_EV_INPUT	    ? " (input)"
		 : f[0] == REC_EV_INPUT_REF ? " (input, from files/)"
					    : "");
}
