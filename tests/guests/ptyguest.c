/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A pseudo-terminal this guest makes (tests/integration/pty.sh): the
 * parent opens a master with posix_openpt, grantpt and unlockpt; a child
 * makes a session, opens the slave, makes it its controlling terminal
 * (TIOCSCTTY) and talks through it, in canonical mode with echo, then with
 * echo off; the parent reads and writes the master. What either side sees
 * is the kernel's line discipline at work, and must be the same natively,
 * under `hermit run`, recorded and replayed.
 *
 * Each side waits for the other's bytes before it goes on, and the
 * parent reads the master until it has the whole of what it expects, so
 * the output depends on no timing. Where two writes' bytes would meet in
 * one read of the master (the echo of the parent's line, then the child's
 * answer), a pipe makes the child wait until the parent has read the
 * first: the kernel passes each write's bytes on in a worker of its own,
 * and a read that comes between the two would return part of them, a
 * different part from run to run (docs/record-replay.md, "Limits, known").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* Read from FD until WANT has come (or end of file): what came, shown. */
static void expect(int fd, const char *who, const char *want)
{
	char buf[512];
	size_t have = 0;

	buf[0] = 0;
	while (!strstr(buf, want) && have < sizeof(buf) - 1) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			printf("%s: read ended: %s\n", who,
			       n < 0 ? strerror(errno) : "end of file");
			break;
		}
		have += (size_t)n;
		buf[have] = 0;
	}
	buf[have] = 0;
	printf("%s got:", who);
	for (size_t i = 0; i < have; i++) {
		if (buf[i] == '\r')
			printf("\\r");
		else if (buf[i] == '\n')
			printf("\\n");
		else
			putchar(buf[i]);
	}
	printf("\n");
	fflush(stdout);
}

static void put(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s)) {
		perror("write");
		exit(1);
	}
}

static int go[2], done[2]; /* parent to child, child to parent */

static void post(int fd)
{
	if (write(fd, "x", 1) != 1)
		exit(1);
}

static void await(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		exit(1);
}

static int child(const char *slave)
{
	struct termios tio;
	char line[128];
	ssize_t n;
	int s;

	if (setsid() < 0) {
		perror("setsid");
		return 1;
	}
	s = open(slave, O_RDWR);
	if (s < 0 || ioctl(s, TIOCSCTTY, 0) < 0) {
		perror("slave");
		return 1;
	}
	printf("child: isatty %d, foreground is us %d\n", isatty(s), tcgetpgrp(s) == getpgrp());
	fflush(stdout);
	put(s, "ready\n");
	/* canonical mode, echo on: the line comes whole, and its echo goes
	 * back to the master */
	n = read(s, line, sizeof(line) - 1);
	line[n > 0 ? n : 0] = 0;
	line[strcspn(line, "\n")] = 0;
	printf("child: read line '%s' (%zd bytes)\n", line, n);
	fflush(stdout);
	post(done[1]);
	await(go[0]); /* the parent has read the echo */
	tcgetattr(s, &tio);
	tio.c_lflag &= ~ECHO;
	tcsetattr(s, TCSANOW, &tio);
	put(s, "noecho\n");
	n = read(s, line, sizeof(line) - 1);
	line[n > 0 ? n : 0] = 0;
	line[strcspn(line, "\n")] = 0;
	printf("child: read secret '%s'\n", line);
	fflush(stdout);
	/* raw: one byte at a time, no line */
	cfmakeraw(&tio);
	tio.c_cc[VMIN] = 1;
	tio.c_cc[VTIME] = 0;
	tcsetattr(s, TCSANOW, &tio);
	put(s, "raw\n");
	n = read(s, line, 1);
	printf("child: raw byte %d\n", n == 1 ? line[0] : -1);
	put(s, "bye\n");
	fflush(stdout);
	close(s);
	return 0;
}

int main(void)
{
	int m, st;
	pid_t pid;
	char slave[64];

	setvbuf(stdout, NULL, _IOLBF, 0);
	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m) || ptsname_r(m, slave, sizeof(slave))) {
		perror("posix_openpt");
		return 1;
	}
	printf("parent: master is a tty %d\n", isatty(m));
	fflush(stdout);
	if (pipe(go) || pipe(done))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(m);
		_exit(child(slave));
	}
	expect(m, "parent", "ready\r\n");
	put(m, "hello world\n");
	await(done[0]); /* the child has read the line: its echo is made */
	expect(m, "parent", "hello world\r\n");
	post(go[1]);
	expect(m, "parent", "noecho\r\n");
	put(m, "hidden\n");
	expect(m, "parent", "raw\n");
	put(m, "A");
	expect(m, "parent", "bye\n");
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	printf("parent: child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	/* every slave is closed: the master reads EIO, as natively */
	{
		char c;
		ssize_t n = read(m, &c, 1);

		printf("parent: read after the end: %zd %s\n", n, n < 0 ? strerror(errno) : "");
	}
	close(m);
	return 0;
}
