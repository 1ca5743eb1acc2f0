/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Syscalls hermit cannot record: refused with an errno that programs fall
 * back from, as rr refuses them (docs/record-replay.md, "Refused calls",
 * lists each with its errno and why). The errno is the one a kernel
 * without the feature, or an unprivileged user, would see: io_uring_setup
 * fails with ENOSYS on a kernel built without CONFIG_IO_URING, and
 * liburing's users then read and write as before. A refused call never
 * runs, so a replay refuses it again at the same point.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <linux/audit.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* arch/x86/include/uapi/asm/unistd.h: x32 syscall numbers carry this bit */
#define X32_SYSCALL_BIT 0x40000000
#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1 /* si_code of a seccomp filter's SIGSYS (siginfo.h) */
#endif

static enum rec_action refuse(struct rec_call *c, int err)
{
	c->ret = -err;
	return REC_EMULATED;
}

enum rec_action rec_sys_refuse_ENOSYS(struct rec *r, struct task *t, struct rec_call *c)
{
	(void)r;
	(void)t;
	return refuse(c, ENOSYS);
}

enum rec_action rec_sys_refuse_EPERM(struct rec *r, struct task *t, struct rec_call *c)
{
	(void)r;
	(void)t;
	return refuse(c, EPERM);
}

enum rec_action rec_sys_refuse_EOPNOTSUPP(struct rec *r, struct task *t, struct rec_call *c)
{
	(void)r;
	(void)t;
	return refuse(c, EOPNOTSUPP);
}

/* Whether process id PID, as task T's guest sees it, names a process
 * outside the guest: hermit's init (pid 1 of the namespace), or without
 * namespaces any host process that is not a guest's. A pid no process has
 * is not: the kernel says ESRCH. */
static int outside_pid(const struct rec *r, long pid)
{
	if (pid <= 0 || pid > INT32_MAX)
		return 0; /* the kernel's EINVAL or ESRCH */
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i]->system == 0 && r->tasks[i]->vtid == pid)
			return 0;
	}
	if (r->opts->namespaces)
		return pid == 1;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/*
 * process_vm_readv and process_vm_writev: another guest process's memory
 * is the guest's own, as a replay makes it again; another process's
 * (hermit's init, a host process) is refused with EPERM, as when ptrace's
 * access check fails (process_vm_readv(2)).
 */
enum rec_action rec_sys_process_vm(struct rec *r, struct task *t, struct rec_call *c)
{
	(void)t;
	return outside_pid(r, (long)c->args[0]) ? refuse(c, EPERM) : REC_CONT;
}

/* pidfd_getfd: a descriptor of a guest process, not of another one (EPERM,
 * as when ptrace's access check fails: pidfd_getfd(2)). */
enum rec_action rec_sys_pidfd_getfd(struct rec *r, struct task *t, struct rec_call *c)
{
	pid_t pid;

	if (tracer_pidfd_pid(t->tid, (int)c->args[0], &pid) < 0 || pid <= 0)
		return REC_CONT; /* no pidfd, or its process ended: the kernel says */
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i]->system == 0 && r->tasks[i]->tid == pid)
			return REC_CONT;
	}
	return refuse(c, EPERM);
}

/*
 * System V message queues live in the guest's IPC namespace, where only
 * its processes reach them: a replay sends what it receives again. Without
 * namespaces they are the host's, and refused with ENOSYS (a kernel
 * without CONFIG_SYSVIPC).
 */
enum rec_action rec_sys_sysv_msg(struct rec *r, struct task *t, struct rec_call *c)
{
	(void)t;
	return r->opts->namespaces ? REC_CONT : refuse(c, ENOSYS);
}

/* The program T runs, for a message. */
static void exe_name(const struct task *t, char *buf, size_t size)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", t->tid);
	n = readlink(link, buf, size - 1);
	if (n <= 0)
		snprintf(buf, size, "task %d", t->index);
	else
		buf[n] = 0;
}

int rec_refuse_abi(struct rec *r, struct task *t)
{
	struct user_regs_struct regs;
	char exe[4096];
	siginfo_t si;

	/* Only our filter's SIGSYS: a guest's own filter may trap x86-64
	 * calls too (its SIGSYS is delivered). */
	if (tracer_siginfo(t->tid, &si) < 0 || si.si_code != SYS_SECCOMP)
		return 0;
	if (si.si_arch == AUDIT_ARCH_X86_64 && (si.si_syscall & X32_SYSCALL_BIT)) {
		/* An x32 number: ENOSYS, as from a kernel without
		 * CONFIG_X86_X32_ABI. The call did not run; the kernel put
		 * the number back in rax (syscall_rollback). */
		if (tracer_get_regs(t->tid, &regs) < 0)
			return 1; /* gone */
		regs.rax = (uint64_t)-ENOSYS;
		tracer_set_regs(t->tid, &regs);
		rec_resume(t, RESUME_CONT, 0);
		return 1;
	}
	if (si.si_arch != AUDIT_ARCH_I386)
		return 0;
	exe_name(t, exe, sizeof(exe));
	hm_error("cannot run '%s': it made a 32-bit system call (int $0x80, number %d), which "
		 "hermit does not trace",
		 exe, si.si_syscall);
	rec_end_run(r, HM_EXIT_INTERNAL);
	return 1;
}

int rec_refuse_exec(struct rec *r, struct task *t)
{
	char exe[4096];
	unsigned mode;
	int elf_class;

	if (tracer_exe_kind(t->tid, &elf_class, &mode) < 0)
		return 0;
	if (elf_class == ELFCLASS32) {
		exe_name(t, exe, sizeof(exe));
		hm_error("cannot run '%s': it is a 32-bit program, and hermit runs x86-64 programs "
			 "only",
			 exe);
		rec_end_run(r, HM_EXIT_INTERNAL);
		return -1;
	}
	if (mode & (S_ISUID | S_ISGID)) {
		/* The guest runs with no_new_privs (the seccomp filter needs
		 * it): exec grants no ids (prctl(2), PR_SET_NO_NEW_PRIVS). */
		exe_name(t, exe, sizeof(exe));
		hm_warn("'%s' is set-%s-ID: the bit is ignored, it runs with the ids of its caller",
			exe, mode & S_ISUID ? "user" : "group");
	}
	return 0;
}

/*
 * ptrace: a guest's tasks are hermit's tracees, and a task has one tracer
 * (ptrace(2)), so the kernel would refuse PTRACE_TRACEME and attaching with
 * EPERM anyway; hermit does the same for every request, before the kernel
 * sees it, and says once per run that debuggers and strace cannot work
 * inside a guest yet.
 */
enum rec_action rec_sys_ptrace(struct rec *r, struct task *t, struct rec_call *c)
{
	static const struct {
		long request;
		const char *name;
	} names[] = {
		{ 0, "PTRACE_TRACEME" },
		{ 16, "PTRACE_ATTACH" },
		{ 0x4206, "PTRACE_SEIZE" },
		{ 0x4207, "PTRACE_INTERRUPT" },
	};
	const char *name = NULL;
	char exe[4096];

	if (!r->ptrace_warned) {
		r->ptrace_warned = 1;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			if ((long)c->args[0] == names[i].request)
				name = names[i].name;
		}
		exe_name(t, exe, sizeof(exe));
		if (name)
			hm_warn("'%s' called ptrace(%s): ptrace inside a guest is not supported yet, "
				"it fails with EPERM",
				exe, name);
		else
			hm_warn("'%s' called ptrace(%ld): ptrace inside a guest is not supported yet, "
				"it fails with EPERM",
				exe, (long)c->args[0]);
	}
	return refuse(c, EPERM);
}
