/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A guest with a seccomp filter of its own, as a sandbox has: an openat
 * whose path lies in the Hermit page (0x70000000, where hermit puts the
 * name of a file it has a guest open: tracer/ticks.c map_tramp) kills the
 * process. Then it runs ARGV[1] with its arguments, which must run as it
 * would without hermit: hermit makes no such openat in a process that
 * filters syscalls itself.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define HPAGE 0x70000000ULL

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	int err;

	if (argc < 2) {
		fprintf(stderr, "usage: ownfilter PROG [ARGS...]\n");
		return 2;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		fprintf(stderr, "ownfilter: seccomp_init failed\n");
		return 1;
	}
	err = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(openat), 1,
			       SCMP_A1(SCMP_CMP_MASKED_EQ, ~0xfffULL, HPAGE));
	if (!err)
		err = seccomp_load(ctx);
	seccomp_release(ctx);
	if (err) {
		fprintf(stderr, "ownfilter: cannot load the filter: %s\n", strerror(-err));
		return 1;
	}
	execv(argv[1], argv + 1);
	fprintf(stderr, "ownfilter: cannot run '%s': %s\n", argv[1], strerror(errno));
	return 127;
}
