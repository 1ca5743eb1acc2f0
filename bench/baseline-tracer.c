/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The least a ptrace supervisor can do per seccomp stop, for bench/run.sh
 * to hold hermit against:
 *
 *   baseline-tracer PROG [ARGS...]
 *
 * The child stops itself for the tracer (PTRACE_TRACEME, SIGSTOP), loads a
 * seccomp filter that sends clock_gettime, the syscall that
 * "syscall-loop --intercepted" makes, to the tracer with SECCOMP_RET_TRACE,
 * and execs PROG; BASELINE_TRAP=getppid,write names other syscalls to stop
 * on instead. The tracer only waits and resumes: no registers read, no
 * bookkeeping, signals passed through. It exits as PROG did.
 */
#define _GNU_SOURCE /* the ptrace(2) options, whatever -std says */

#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define TRAPPED_NR SYS_clock_gettime

static void child(char **argv)
{
	const char *trap_names = getenv("BASELINE_TRAP");
	scmp_filter_ctx ctx;
	int err;

	if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0) {
		perror("baseline-tracer: PTRACE_TRACEME failed");
		_exit(127);
	}
	raise(SIGSTOP);
	/* An unprivileged filter needs no_new_privs (seccomp(2)). */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		perror("baseline-tracer: cannot set no_new_privs");
		_exit(127);
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		fprintf(stderr, "baseline-tracer: seccomp_init failed\n");
		_exit(127);
	}
	err = 0;
	if (trap_names) {
		/* BASELINE_TRAP=getppid,write: stop on these instead. */
		char *list = strdup(trap_names), *name, *save = NULL;

		for (name = strtok_r(list, ",", &save); name && !err;
		     name = strtok_r(NULL, ",", &save)) {
			int nr = seccomp_syscall_resolve_name(name);

			err = nr == __NR_SCMP_ERROR
				      ? -EINVAL
				      : seccomp_rule_add(ctx, SCMP_ACT_TRACE(0), nr, 0);
		}
		free(list);
	} else {
		err = seccomp_rule_add(ctx, SCMP_ACT_TRACE(0), TRAPPED_NR, 0);
	}
	if (!err)
		err = seccomp_load(ctx);
	if (err) {
		fprintf(stderr, "baseline-tracer: cannot load the seccomp filter: %s\n",
			strerror(-err));
		_exit(127);
	}
	seccomp_release(ctx);
	execvp(argv[0], argv);
	fprintf(stderr, "baseline-tracer: cannot run '%s': %s\n", argv[0], strerror(errno));
	_exit(127);
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: baseline-tracer PROG [ARGS...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("baseline-tracer: cannot fork");
		return 1;
	}
	if (pid == 0)
		child(argv + 1);
	if (waitpid(pid, &status, 0) < 0 || !WIFSTOPPED(status)) {
		fprintf(stderr, "baseline-tracer: child did not stop\n");
		return 1;
	}
	/*
	 * TRACEEXEC only turns the legacy post-exec SIGTRAP into an event stop
	 * (ptrace(2), "execve under ptrace"), so that no SIGTRAP is mistaken
	 * for one of the program's own.
	 */
	if (ptrace(PTRACE_SETOPTIONS, pid, 0,
		   (long)(PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)) < 0) {
		perror("baseline-tracer: PTRACE_SETOPTIONS failed");
		return 1;
	}
	if (ptrace(PTRACE_CONT, pid, 0, 0L) < 0) {
		perror("baseline-tracer: PTRACE_CONT failed");
		return 1;
	}
	for (;;) {
		long sig = 0;

		if (waitpid(pid, &status, 0) < 0) {
			if (errno == EINTR)
				continue;
			perror("baseline-tracer: waitpid failed");
			return 1;
		}
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		if (WIFSIGNALED(status))
			return 128 + WTERMSIG(status);
		/* An event stop (status >> 16 != 0) carries SIGTRAP, not a signal. */
		if ((unsigned)status >> 16 == 0)
			sig = WSTOPSIG(status);
		if (ptrace(PTRACE_CONT, pid, 0, sig) < 0 && errno != ESRCH) {
			perror("baseline-tracer: PTRACE_CONT failed");
			return 1;
		}
	}
}
