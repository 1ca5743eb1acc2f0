/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: process ids. Print our own pid and parent's, then start four
 * children one after another and wait for each with a different call:
 * vfork+exec of /bin/echo (waitpid), posix_spawn of /bin/true (wait4), a
 * fork that exits 42 (waitid) and a fork that kills itself with SIGUSR1
 * (waitpid). Each child's pid and how it ended are printed in order.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void report(const char *what, pid_t pid, int status)
{
	if (WIFEXITED(status))
		printf("%s pid %d exited %d\n", what, (int)pid, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("%s pid %d killed by signal %d\n", what, (int)pid, WTERMSIG(status));
	else
		printf("%s pid %d status 0x%x\n", what, (int)pid, status);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

int main(void)
{
	char *echo_argv[] = { "echo", "echo from the vfork child", NULL };
	char *true_argv[] = { "true", NULL };
	struct rusage ru;
	siginfo_t si;
	pid_t pid, got;
	int status, err;

	printf("pid %d\n", (int)getpid());
	printf("ppid %d\n", (int)getppid());

	/* The children share our stdout: flush before each one starts. */
	fflush(stdout);
	pid = vfork();
	if (pid < 0)
		die("vfork");
	if (pid == 0) {
		execv("/bin/echo", echo_argv);
		_exit(127);
	}
	got = waitpid(pid, &status, 0);
	if (got != pid)
		die("waitpid");
	report("vfork+exec", pid, status);

	fflush(stdout);
	err = posix_spawn(&pid, "/bin/true", NULL, NULL, true_argv, environ);
	if (err) {
		fprintf(stderr, "posix_spawn: %s\n", strerror(err));
		return 1;
	}
	got = wait4(pid, &status, 0, &ru);
	if (got != pid)
		die("wait4");
	report("posix_spawn", pid, status);

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		_exit(42);
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED) != 0)
		die("waitid");
	printf("fork pid %d waitid pid %d code %s status %d\n", (int)pid, (int)si.si_pid,
	       si.si_code == CLD_EXITED ? "exited" : "other", si.si_status);

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		signal(SIGUSR1, SIG_DFL);
		raise(SIGUSR1);
		_exit(0);
	}
	got = waitpid(pid, &status, 0);
	if (got != pid)
		die("waitpid");
	report("signalled", pid, status);
	return 0;
}
