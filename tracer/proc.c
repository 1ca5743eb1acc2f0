/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What /proc says about a tracee: its ids as the guest sees them, the
 * syscall it sleeps in (proc(5): /proc/pid/syscall) and what its file
 * descriptors are.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tracer.h"

int tracer_task_ids(pid_t tid, pid_t *tgid, pid_t *vtid)
{
	char path[64], line[256];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	*tgid = tid;
	*vtid = tid;
	while (fgets(line, sizeof(line), f)) {
		int v;

		if (sscanf(line, "Tgid: %d", &v) == 1) {
			*tgid = v;
			found++;
		} else if (strncmp(line, "NSpid:", 6) == 0) {
			/* The last number is the id in the innermost pid namespace. */
			char *p = strrchr(line, '\t');

			if (p && sscanf(p, "%d", &v) == 1)
				*vtid = v;
		}
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

int tracer_task_syscall(pid_t tid, long *nr, uint64_t args[6], uint64_t *pc)
{
	char path[64], buf[512];
	unsigned long long a[6], sp, ip;
	long n;
	FILE *f;
	int got;

	snprintf(path, sizeof(path), "/proc/%d/syscall", tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	got = sscanf(buf, "%ld %llx %llx %llx %llx %llx %llx %llx %llx", &n, &a[0], &a[1], &a[2],
		     &a[3], &a[4], &a[5], &sp, &ip);
	if (got != 9 || n < 0)
		return -ENOENT;
	*nr = n;
	for (int i = 0; i < 6; i++)
		args[i] = a[i];
	*pc = ip;
	return 0;
}

int tracer_fd_target(pid_t tid, int fd, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", tid, fd);
	n = readlink(path, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}
