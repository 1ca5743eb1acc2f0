/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the dap/ unit tests share: a guest run under ptrace to its stops,
 * read through struct dap_target's readers as the adapter reads one over
 * RSP. Include after <cmocka.h>.
 */
#ifndef HERMIT_TESTS_PTGUEST_H
#define HERMIT_TESTS_PTGUEST_H

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dap/frames.h"

static int pt_read_mem(void *arg, uint64_t addr, void *buf, size_t len)
{
	pid_t pid = *(pid_t *)arg;
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EIO;
}

static int pt_read_reg(void *arg, int regno, uint64_t *val)
{
	pid_t pid = *(pid_t *)arg;
	struct user_regs_struct r;
	/* DWARF's x86-64 numbering. */
	const size_t at[17] = {
		offsetof(struct user_regs_struct, rax), offsetof(struct user_regs_struct, rdx),
		offsetof(struct user_regs_struct, rcx), offsetof(struct user_regs_struct, rbx),
		offsetof(struct user_regs_struct, rsi), offsetof(struct user_regs_struct, rdi),
		offsetof(struct user_regs_struct, rbp), offsetof(struct user_regs_struct, rsp),
		offsetof(struct user_regs_struct, r8),	offsetof(struct user_regs_struct, r9),
		offsetof(struct user_regs_struct, r10), offsetof(struct user_regs_struct, r11),
		offsetof(struct user_regs_struct, r12), offsetof(struct user_regs_struct, r13),
		offsetof(struct user_regs_struct, r14), offsetof(struct user_regs_struct, r15),
		offsetof(struct user_regs_struct, rip),
	};

	if (regno < 0 || regno > 16 || ptrace(PTRACE_GETREGS, pid, 0, &r) < 0)
		return -EIO;
	memcpy(val, (char *)&r + at[regno], sizeof(*val));
	return 0;
}

/* PATH started under ptrace, stopped after its exec. */
static pid_t pt_start(const char *path)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP); /* the exec */
	return pid;
}

/* Run PID to its next stop by signal SIG, handing it DELIVER on the way. */
static void pt_run_to(pid_t pid, int sig, int deliver)
{
	int st;

	assert_int_equal(ptrace(PTRACE_CONT, pid, 0, (void *)(uintptr_t)deliver), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSTOPPED(st));
	assert_int_equal(WSTOPSIG(st), sig);
}

static void pt_end(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The modules of stopped process PID, running PROGRAM. */
static void pt_modules(struct dap_modules *ms, pid_t *pid, const char *program)
{
	struct dap_target t = { pt_read_mem, pt_read_reg, pid };
	char path[64];
	uint8_t auxv[4096];
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/auxv", *pid);
	f = fopen(path, "r");
	assert_non_null(f);
	n = (ssize_t)fread(auxv, 1, sizeof(auxv), f);
	fclose(f);
	assert_true(n > 16);
	assert_int_equal(dap_modules_load(ms, &t, auxv, (size_t)n, program, NULL, NULL), 0);
}

#endif
