/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtual clock (DESIGN.md "Time"). One counter of virtual nanoseconds
 * drives every clock the guest can read: it advances by fixed amounts per
 * intercepted syscall and per rdtsc, and jumps over sleeps. Clock ids follow
 * include/uapi/linux/time.h; negative ids are CPU-time clocks of a given
 * process or thread (posix-cpu-timers.c), which read the same counter.
 */
#include "config.h"

#include <errno.h>
#include <time.h>

#include "common/common.h"
#include "recorder.h"

void rec_clock_init(struct rec_clock *c, int64_t epoch_ns)
{
	c->epoch_ns = epoch_ns;
	c->now_ns = 0;
}

void rec_clock_advance(struct rec_clock *c, int64_t ns)
{
	if (ns > 0)
		c->now_ns += ns;
}

int rec_clock_read(const struct rec_clock *c, long clockid, int64_t *ns)
{
	if (clockid < 0) {
		/* CPU-time clock of a pid or tid (kernel/time/posix-cpu-timers.c):
		 * the low two bits name the clock and 3 is none of them; with
		 * bit 2 clear that is also a clock on a file descriptor
		 * (FD_TO_CLOCKID), which the guest cannot have. */
		if ((clockid & 3) == 3)
			return -EINVAL;
		*ns = c->now_ns;
		return 0;
	}
	switch (clockid) {
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_REALTIME_ALARM:
	case CLOCK_TAI:
		*ns = c->epoch_ns + c->now_ns;
		return 0;
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_BOOTTIME:
	case CLOCK_BOOTTIME_ALARM:
		*ns = REC_BOOT_NS + c->now_ns;
		return 0;
	case CLOCK_PROCESS_CPUTIME_ID:
	case CLOCK_THREAD_CPUTIME_ID:
		*ns = c->now_ns;
		return 0;
	default:
		return -EINVAL;
	}
}

uint64_t rec_clock_tsc(const struct rec_clock *c)
{
	return (uint64_t)(REC_BOOT_NS + c->now_ns);
}
