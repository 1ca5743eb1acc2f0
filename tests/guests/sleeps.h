/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * For guests whose native run must not depend on the host's speed: whether
 * thread TID of this process sleeps (in a blocking call) or is gone, from
 * its state in /proc. Under hermit a thread is stopped whenever another
 * runs, so it never shows 'R' to the one that asks.
 */
#ifndef HERMIT_TESTS_GUESTS_SLEEPS_H
#define HERMIT_TESTS_GUESTS_SLEEPS_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static inline int thread_sleeps(pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return !p || p[1] != ' ' || p[2] != 'R';
}

#endif
