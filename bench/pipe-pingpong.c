/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A process-switching guest for bench/run.sh:
 *
 *   pipe-pingpong [N]
 *
 * The process forks; the parent writes one byte into a pipe, the child
 * reads it and writes it back through a second pipe, N times (default
 * 20000). Each round trip is two hand-offs, and each hand-off is a read()
 * that blocks until the other process writes: under hermit, which runs one
 * guest thread at a time and parks blocking calls, every hand-off is a
 * switch from one process to the other. The parent prints the count of
 * round trips and exits as the child did.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Read one byte from in and write it to out; 0, or -1 at end of file. */
static int bounce(int in, int out, const char *who)
{
	char c;
	ssize_t r = read(in, &c, 1);

	if (r == 0)
		return -1;
	if (r != 1) {
		fprintf(stderr, "pipe-pingpong: %s: ", who);
		perror("read failed");
		exit(1);
	}
	if (write(out, &c, 1) != 1) {
		fprintf(stderr, "pipe-pingpong: %s: ", who);
		perror("write failed");
		exit(1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
	int there[2], back[2], status;
	long done = 0;
	char c = 'x';
	pid_t pid;

	if (n <= 0) {
		fprintf(stderr, "usage: pipe-pingpong [N]\n");
		return 2;
	}
	if (pipe(there) < 0 || pipe(back) < 0) {
		perror("pipe-pingpong: cannot make a pipe");
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("pipe-pingpong: cannot fork");
		return 1;
	}
	if (pid == 0) {
		/* The child echoes until the parent closes its end. */
		close(there[1]);
		close(back[0]);
		while (bounce(there[0], back[1], "child") == 0)
			;
		_exit(0);
	}
	close(there[0]);
	close(back[1]);
	if (write(there[1], &c, 1) != 1) {
		perror("pipe-pingpong: parent: write failed");
		return 1;
	}
	/* Each bounce receives round trip done + 1 and starts the next. */
	while (++done < n)
		if (bounce(back[0], there[1], "parent") < 0)
			break;
	/* The last byte back: read, not sent on. */
	if (done == n && read(back[0], &c, 1) != 1) {
		fprintf(stderr, "pipe-pingpong: parent: the last byte did not come back\n");
		return 1;
	}
	close(there[1]);
	if (waitpid(pid, &status, 0) < 0) {
		perror("pipe-pingpong: waitpid failed");
		return 1;
	}
	if (done != n) {
		fprintf(stderr, "pipe-pingpong: the child left after %ld round trips\n", done);
		return 1;
	}
	printf("%ld\n", done);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
