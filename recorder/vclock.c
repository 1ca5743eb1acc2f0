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
#include <string.h>
#include <sys/timex.h>
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

/*
 * The kernel's NTP state as a synchronized clock that nobody adjusts:
 * TIME_OK, no offset, no frequency error, the kernel's defaults for the
 * rest (kernel/time/ntp.c: time_constant 2, precision 1, tolerance
 * MAXFREQ_SCALED / PPM_SCALE, tick_usec for USER_HZ 100), and the time
 * of the virtual clock in microseconds (STA_NANO is off). Only reads are
 * allowed, as for a process without CAP_SYS_TIME
 * (kernel/time/timekeeping.c: timekeeping_validate_timex): modes 0, or
 * adjtime(3)'s ADJ_OFFSET_SS_READ; other modes fail with EPERM, also for
 * root, whose guest must not set the host's clock.
 */
/* The kernel's own bits of adjtime(2)'s modes (include/uapi/linux/timex.h
 * under __KERNEL__; user space sees ADJ_OFFSET_SINGLESHOT as 0x8001 and
 * ADJ_OFFSET_SS_READ as 0xa001). */
#define K_ADJ_ADJTIME		0x8000
#define K_ADJ_OFFSET_SINGLESHOT 0x0001
#define K_ADJ_OFFSET_READONLY	0x2000

int rec_clock_timex(const struct rec_clock *c, struct timex *tx)
{
	unsigned modes = tx->modes;
	int64_t now = c->epoch_ns + c->now_ns, sec, nsec;

	if (modes & K_ADJ_ADJTIME) {
		if (!(modes & K_ADJ_OFFSET_SINGLESHOT))
			return -EINVAL;
		if (!(modes & K_ADJ_OFFSET_READONLY))
			return -EPERM;
	} else if (modes) {
		return -EPERM;
	}
	hm_ns_split(now, &sec, &nsec);
	memset(tx, 0, sizeof(*tx));
	tx->modes = modes;
	tx->constant = 2;
	tx->precision = 1;
	tx->tolerance = 500L << 16; /* 500 ppm, scaled by 2^16 */
	tx->time.tv_sec = (time_t)sec;
	tx->time.tv_usec = (suseconds_t)(nsec / 1000);
	tx->tick = 1000000 / 100;
	return TIME_OK;
}
