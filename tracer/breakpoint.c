/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One software breakpoint, for a replay that must stop a thread at a
 * recorded point (a spin-watch preemption: an address plus registers).
 * The tick-source sites have their own table (sites.c); this one is set,
 * hit and stepped over until the registers match, then cleared.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/user.h>
#include <unistd.h>

#include "common/common.h"
#include "tracer.h"

static struct {
	int on;
	pid_t tgid; /* the process it is in */
	uint64_t addr;
	uint8_t orig;
} bp;

int tracer_bp_set(pid_t tgid, uint64_t addr)
{
	static const uint8_t int3 = 0xcc;
	int err;

	tracer_bp_clear();
	err = tracer_poke_byte(tgid, addr, &int3, &bp.orig);
	if (err)
		return err;
	bp.on = 1;
	bp.tgid = tgid;
	bp.addr = addr;
	return 0;
}

int tracer_bp_step(pid_t tid)
{
	static const uint8_t int3 = 0xcc;
	int err = tracer_poke_byte(bp.tgid, bp.addr, &bp.orig, NULL);

	if (err)
		return err;
	err = tracer_singlestep(tid);
	if (err >= 0)
		tracer_poke_byte(bp.tgid, bp.addr, &int3, NULL);
	return err;
}

void tracer_bp_clear(void)
{
	if (bp.on)
		tracer_poke_byte(bp.tgid, bp.addr, &bp.orig, NULL);
	bp.on = 0;
}

int tracer_bp_active(uint64_t *addr, pid_t *tgid)
{
	if (bp.on) {
		*addr = bp.addr;
		*tgid = bp.tgid;
	}
	return bp.on;
}
