/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The machine the guest believes it runs on (DESIGN.md "Identity"): a
 * fixed uname, four virtual CPUs (each thread's affinity mask over them,
 * and the lowest CPU of it for getcpu), and sysinfo figures that do not
 * move with the host's load. The values are listed in
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

#define ALL_CPUS ((1u << VIRTUAL_CPUS) - 1)

int rec_task_cpu(const struct task *t)
{
	unsigned cpus = t->cpus ? t->cpus : ALL_CPUS;

	return __builtin_ctz(cpus);
}

/* The guest task whose thread id, as the guest sees it, is PID; 0 is T
 * itself (sched_setaffinity(2)). NULL: none, the kernel's ESRCH. */
static struct task *affinity_target(struct rec *r, struct task *t, uint64_t pid)
{
	if ((pid_t)pid == 0)
		return t;
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i]->system == 0 && r->tasks[i]->vtid == (pid_t)pid)
			return r->tasks[i];
	}
	return NULL;
}

/*
 * Affinity is virtual: every guest thread runs on the one host CPU it was
 * pinned to at launch (tracer/launch.c), and each keeps the mask it set
 * over the REC_VIRTUAL_CPUS CPUs it sees; getcpu and rdtscp name the
 * lowest CPU of that mask. The kernel returns the size of its cpumask,
 * rounded up to a long (kernel/sched/core.c: sched_getaffinity), and
 * EINVAL for a buffer smaller than that or not a multiple of a long.
 */
enum rec_action rec_sys_sched_getaffinity(struct rec *r, struct task *t, struct rec_call *c)
{
	struct task *x = affinity_target(r, t, c->args[0]);
	uint64_t mask;

	if (c->args[1] < sizeof(mask) || c->args[1] % sizeof(long)) {
		c->ret = -EINVAL;
		return REC_EMULATED;
	}
	if (!x) {
		c->ret = -ESRCH;
		return REC_EMULATED;
	}
	mask = x->cpus ? x->cpus : ALL_CPUS;
	return rec_reply_mem(t, c, c->args[2], &mask, sizeof(mask), sizeof(mask));
}

/* The kernel reads at most its cpumask's size (get_user_cpu_mask) and
 * refuses a mask without a CPU it has with EINVAL. */
enum rec_action rec_sys_sched_setaffinity(struct rec *r, struct task *t, struct rec_call *c)
{
	struct task *x = affinity_target(r, t, c->args[0]);
	uint64_t mask = 0;
	size_t n = c->args[1] < sizeof(mask) ? c->args[1] : sizeof(mask);

	if (tracer_read_mem(t->tid, c->args[2], &mask, n) < 0) {
		c->ret = -EFAULT;
		return REC_EMULATED;
	}
	c->ret = !x ? -ESRCH : mask & ALL_CPUS ? 0 : -EINVAL;
	if (c->ret == 0)
		x->cpus = (unsigned)(mask & ALL_CPUS);
	return REC_EMULATED;
}

enum rec_action rec_sys_getcpu(struct rec *r, struct task *t, struct rec_call *c)
{
	unsigned cpu = (unsigned)rec_task_cpu(t), node = 0;

	(void)r;
	c->ret = 0;
	if (c->args[0] && tracer_write_mem(t->tid, c->args[0], &cpu, sizeof(cpu)) < 0)
		c->ret = -EFAULT;
	if (c->args[1] && tracer_write_mem(t->tid, c->args[1], &node, sizeof(node)) < 0)
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
