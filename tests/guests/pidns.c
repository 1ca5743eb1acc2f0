/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: pid namespaces of its own (recorder/pidns.c). Each case makes
 * one, with a user namespace so that no privilege is needed, and prints
 * what the processes in it see and how they end:
 *
 *   fork   unshare(CLONE_NEWPID), then fork: the child is pid 1 there,
 *          forks a grandchild and reaps it
 *   clone  clone(CLONE_NEWPID): its init forks three children, reaps two
 *          and returns, leaving the third to be killed with the namespace
 *   segv   the namespace's init, with a child and a thread waiting, dies
 *          of a SIGSEGV it has no handler for
 *
 * A host that does not let it make the namespaces prints why and stops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[256 * 1024];

static void report(const char *what, int st)
{
	if (WIFEXITED(st))
		printf("%s exited %d\n", what, WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		printf("%s killed by signal %d\n", what, WTERMSIG(st));
	else
		printf("%s status %#x\n", what, st);
}

static void with_unshare(void)
{
	pid_t child;
	int st;

	if (unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0) {
		printf("unshare: %s\n", strerror(errno));
		exit(0);
	}
	child = fork();
	if (child == 0) {
		pid_t q;

		printf("fork: pid %d ppid %d\n", (int)getpid(), (int)getppid());
		fflush(stdout);
		q = fork();
		if (q == 0)
			_exit(7);
		waitpid(q, &st, 0);
		report("fork: the grandchild", st);
		printf("fork: its pid was %d\n", (int)q);
		_exit(3);
	}
	waitpid(child, &st, 0);
	report("fork: the namespace's init", st);
}

static int clone_init(void *arg)
{
	(void)arg;
	printf("clone: pid %d ppid %d\n", (int)getpid(), (int)getppid());
	fflush(stdout);
	pid_t kids[3];

	for (int i = 0; i < 3; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			if (i == 2)
				pause();
			_exit(10 + i);
		}
	}
	for (int i = 0; i < 2; i++) {
		int st;
		pid_t w = waitpid(kids[i], &st, 0);

		printf("clone: reaped pid %d, ", (int)w);
		report("which", st);
	}
	fflush(stdout);
	return 5;
}

static void *waiter(void *arg)
{
	pause();
	return arg;
}

static int segv_init(void *arg)
{
	pthread_t th;

	(void)arg;
	if (fork() == 0) {
		pause();
		_exit(1);
	}
	pthread_create(&th, NULL, waiter, NULL);
	printf("segv: pid %d faults\n", (int)getpid());
	fflush(stdout);
	*(volatile int *)arg = 1;
	return 0;
}

static void with_clone(int (*init)(void *), const char *what)
{
	pid_t p;
	int st;

	fflush(stdout);
	p = clone(init, stack + sizeof(stack), CLONE_NEWUSER | CLONE_NEWPID | SIGCHLD, NULL);
	if (p < 0) {
		printf("clone: %s\n", strerror(errno));
		exit(0);
	}
	if (waitpid(p, &st, 0) != p) {
		perror("waitpid");
		exit(1);
	}
	report(what, st);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGCHLD, SIG_DFL);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "clone"))
			with_clone(clone_init, "clone: the namespace's init");
		else if (!strcmp(argv[i], "segv"))
			with_clone(segv_init, "segv: the namespace's init");
		else if (!strcmp(argv[i], "fork"))
			with_unshare(); /* last: it changes our children's namespace */
	}
	return 0;
}
