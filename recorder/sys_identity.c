/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The machine the guest believes it runs on (DESIGN.md "Identity"): a
 * fixed uname, a four-CPU affinity mask, CPU 0 for getcpu, and sysinfo
 * figures that do not move with the host's load. The values are listed in
 * docs/determinism.md.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>

#include "common/common.h"
#include "internal.h"

#define VIRTUAL_CPUS REC_VIRTUAL_CPUS

enum rec_action rec_sys_uname(struct rec *r, struct task *t, struct rec_call *c)
{
	struct utsname u;

	(void)r;
	memset(&u, 0, sizeof(u));
	strcpy(u.sysname, "Linux");
	strcpy(u.nodename, "hermit");
	strcpy(u.release, "6.1.0-hermit");
	strcpy(u.version, "#1 SMP PREEMPT_DYNAMIC Thu Jan  1 00:00:00 UTC 1970");
	strcpy(u.machine, "x86_64");
	strcpy(u.domainname, "(none)");
	return rec_reply_mem(t, c, c->args[0], &u, sizeof(u), 0);
}

enum rec_action rec_sys_sysinfo(struct rec *r, struct task *t, struct rec_call *c)
{
	struct sysinfo si;
	size_t procs = 0;

	for (size_t i = 0; i < r->ntasks; i++)
		procs += !r->tasks[i]->system;
	memset(&si, 0, sizeof(si));
	si.uptime = (long)((REC_BOOT_NS + r->clock.now_ns) / HM_NS_PER_SEC);
	si.totalram = 8ULL << 30;
	si.freeram = 4ULL << 30;
	si.procs = (unsigned short)procs;
	si.mem_unit = 1;
	return rec_reply_mem(t, c, c->args[0], &si, sizeof(si), 0);
}

/* The kernel returns the size of its cpumask, rounded up to a long
 * (kernel/sched/core.c: sched_getaffinity), and EINVAL for a buffer
 * smaller than that or not a multiple of a long. */
enum rec_action rec_sys_sched_getaffinity(struct rec *r, struct task *t, struct rec_call *c)
{
	uint64_t mask = (1ULL << VIRTUAL_CPUS) - 1;

	(void)r;
	if (c->args[1] < sizeof(mask) || c->args[1] % sizeof(long)) {
		c->ret = -EINVAL;
		return REC_EMULATED;
	}
	return rec_reply_mem(t, c, c->args[2], &mask, sizeof(mask), sizeof(mask));
}

enum rec_action rec_sys_sched_setaffinity(struct rec *r, struct task *t, struct rec_call *c)
{
	uint64_t mask = 0;
	size_t n = c->args[1] < sizeof(mask) ? c->args[1] : sizeof(mask);

	(void)r;
	if (tracer_read_mem(t->tid, c->args[2], &mask, n) < 0) {
		c->ret = -EFAULT;
		return REC_EMULATED;
	}
	c->ret = mask & ((1ULL << VIRTUAL_CPUS) - 1) ? 0 : -EINVAL;
	return REC_EMULATED;
}

enum rec_action rec_sys_getcpu(struct rec *r, struct task *t, struct rec_call *c)
{
	unsigned zero = 0;

	(void)r;
	c->ret = 0;
	if (c->args[0] && tracer_write_mem(t->tid, c->args[0], &zero, sizeof(zero)) < 0)
		c->ret = -EFAULT;
	if (c->args[1] && tracer_write_mem(t->tid, c->args[1], &zero, sizeof(zero)) < 0)
		c->ret = -EFAULT;
	return REC_EMULATED;
}

/*
 * Restartable sequences publish the CPU a thread runs on in memory the
 * kernel updates (glibc 2.35 and later answer sched_getcpu from it, with no
 * syscall). Refusing registration makes glibc fall back to getcpu, which
 * is answered above; rseq is an optimisation every user must be able to
 * live without (rseq(2): ENOSYS on kernels before 4.18).
 */
enum rec_action rec_sys_rseq(struct rec *r, struct task *t, struct rec_call *c)
{
	(void)r;
	(void)t;
	c->ret = -ENOSYS;
	return REC_EMULATED;
}
