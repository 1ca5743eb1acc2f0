/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prctl(2) options that would show hermit's own settings rather than the
 * guest's. Hermit makes every guest task trap rdtsc (PR_SET_TSC,
 * PR_TSC_SIGSEGV) and load its seccomp filter (tracer/launch.c); the guest
 * sees the TSC mode it set itself (PR_TSC_ENABLE until it sets another)
 * and a seccomp mode of 0 until it loads a filter of its own. Other
 * options run as they are.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "internal.h"

/* Seccomp filters of the process that runs hermit: a guest task has these,
 * hermit's own, and those the guest loaded. -1: the kernel does not count
 * them (/proc/PID/status "Seccomp_filters", Linux 5.10 and later). */
static int filters_of(pid_t tid)
{
	char path[64], line[256];
	int n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && sscanf(line, "Seccomp_filters: %d", &n) != 1)
		;
	fclose(f);
	return n;
}

/* SECCOMP_MODE_FILTER where T loaded a filter of its own, else 0. A
 * kernel that does not count filters shows 0 (SECCOMP_MODE_DISABLED). */
static long seccomp_mode(pid_t tid)
{
	static int hermits = -2;
	int n = filters_of(tid);

	if (hermits == -2)
		hermits = filters_of(getpid());
	return hermits >= 0 && n > hermits + 1 ? 2 : 0;
}

enum rec_action rec_sys_prctl(struct rec *r, struct task *t, struct rec_call *c)
{
	int mode;

	(void)r;
	switch ((int)c->args[0]) {
	case PR_GET_TSC:
		mode = t->tsc_sigsegv ? PR_TSC_SIGSEGV : PR_TSC_ENABLE;
		return rec_reply_mem(t, c, c->args[1], &mode, sizeof(mode), 0);
	case PR_SET_TSC:
		/* Per thread, kept by fork, clone and exec (arch/x86/kernel/
		 * process.c: set_tsc_mode); the real mode stays hermit's. */
		if (c->args[1] != PR_TSC_ENABLE && c->args[1] != PR_TSC_SIGSEGV) {
			c->ret = -EINVAL;
			return REC_EMULATED;
		}
		t->tsc_sigsegv = c->args[1] == PR_TSC_SIGSEGV;
		c->ret = 0;
		return REC_EMULATED;
	case PR_GET_SECCOMP:
		c->ret = seccomp_mode(t->tid);
		return REC_EMULATED;
	}
	return REC_CONT;
}
