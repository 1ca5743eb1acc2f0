/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event-log writer (DESIGN.md "Recordings"): frames, as recorder.h
 * describes them, in an xz stream (common/xz.c). Each frame carries its
 * own length and CRC-32, so a reader can tell a frame cut by a crash from
 * a damaged one. The xz block is ended (LZMA_FULL_FLUSH) every 250 ms of
 * wall time and every 1 MiB of frames: a recorder killed with SIGKILL
 * loses at most that much, and what was flushed stays readable.
 */
#include "config.h"

#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "common/common.h"
#include "recorder.h"

#define FLUSH_BYTES (1u << 20)
#define FLUSH_NS    (250LL * 1000000LL)

struct rec_log {
	struct hm_xzw *xz;
	int err;	    /* the first error; nothing is written after it */
	uint64_t unflushed; /* frame bytes since the last flush */
	int64_t flushed_at; /* monotonic ns of the last flush */
};

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64_t)ts.tv_sec * HM_NS_PER_SEC + ts.tv_nsec;
}

int rec_log_open(struct rec_log **out, int fd)
{
	struct rec_log *log = xcalloc(1, sizeof(*log));
	int err = hm_xzw_open(&log->xz, fd);

	if (!err)
		err = hm_xzw_write(log->xz, REC_LOG_MAGIC, 8);
	if (err) {
		if (log->xz)
			hm_xzw_close(log->xz);
		free(log);
		return err;
	}
	log->flushed_at = mono_ns();
	*out = log;
	return 0;
}

int rec_log_flush(struct rec_log *log)
{
	if (log->err)
		return log->err;
	log->err = hm_xzw_flush(log->xz);
	log->unflushed = 0;
	log->flushed_at = mono_ns();
	return log->err;
}

int rec_log_write(struct rec_log *log, const struct rec_event_record *ev, const void *payload,
		  size_t len)
{
	unsigned char head[4], tail[4];
	uint32_t body = (uint32_t)(sizeof(*ev) + len), crc;

	if (log->err)
		return log->err;
	if (len > REC_LOG_MAX_PAYLOAD)
		return -EFBIG;
	crc = lzma_crc32((const uint8_t *)ev, sizeof(*ev), 0);
	if (len)
		crc = lzma_crc32(payload, len, crc);
	/* x86-64 only: the host order is little-endian. */
	memcpy(head, &body, 4);
	memcpy(tail, &crc, 4);
	log->err = hm_xzw_write(log->xz, head, 4);
	if (!log->err)
		log->err = hm_xzw_write(log->xz, ev, sizeof(*ev));
	if (!log->err && len)
		log->err = hm_xzw_write(log->xz, payload, len);
	if (!log->err)
		log->err = hm_xzw_write(log->xz, tail, 4);
	if (log->err)
		return log->err;
	log->unflushed += 8 + body;
	if (log->unflushed >= FLUSH_BYTES || mono_ns() - log->flushed_at >= FLUSH_NS)
		return rec_log_flush(log);
	return 0;
}

int rec_log_close(struct rec_log *log, int end_status, uint64_t events)
{
	int err;

	if (end_status >= 0 && !log->err) {
		struct rec_event_record end = { { REC_EV_END, end_status, (int64_t)events } };

		rec_log_write(log, &end, NULL, 0);
	}
	err = hm_xzw_close(log->xz);
	if (log->err)
		err = log->err;
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

	if (f[11])
		snprintf(out, sizeof(out), ", output %016llx", (unsigned long long)f[11]);
	snprintf(buf, size, "task %lld %s(%#llx, %#llx, %#llx) = %lld at tick %lld%s%s",
		 (long long)f[1], name, (unsigned long long)f[3], (unsigned long long)f[4],
		 (unsigned long long)f[5], (long long)f[9], (long long)f[10], out,
		 f[0] == REC_EV_INPUT ? " (input)" : "");
}
