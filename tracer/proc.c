/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What /proc says about a tracee: its ids as the guest sees them, the
 * syscall it sleeps in (proc(5): /proc/pid/syscall) and what its file
 * descriptors are.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/dwarf.h"
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

int tracer_task_pgid(pid_t tid, pid_t *host, pid_t *inner)
{
	char path[64], line[256];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f)) {
		char *last;

		/* "NSpgid:\t<host>\t...\t<innermost>" */
		if (sscanf(line, "NSpgid: %d", host) != 1)
			continue;
		last = strrchr(line, '\t');
		found = last && sscanf(last, "%d", inner) == 1;
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

int tracer_pidfd_pid(pid_t tid, int fd, pid_t *pid)
{
	char path[64], line[256];
	FILE *f;
	int found = 0;

	/* pidfd_show_fdinfo() (kernel/pid.c) names it in the pid namespace of
	 * the /proc it is read from: hermit's is the host's. */
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", tid, fd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "Pid: %d", pid) == 1;
	fclose(f);
	return found ? 0 : -EINVAL;
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

int tracer_fd_info(pid_t tid, int fd, uint64_t *pos, unsigned *flags, int *regular)
{
	char path[64], line[256];
	struct stat st;
	FILE *f;
	int got = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", tid, fd);
	if (stat(path, &st) < 0)
		return -errno;
	*regular = S_ISREG(st.st_mode);
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", tid, fd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (sscanf(line, "pos: %llu", &v) == 1) {
			*pos = v;
			got |= 1;
		} else if (sscanf(line, "flags: %llo", &v) == 1) {
			*flags = (unsigned)v;
			got |= 2;
		}
	}
	fclose(f);
	return got == 3 ? 0 : -EIO;
}

int tracer_exe_bias(pid_t tid, uint64_t *bias)
{
	char exe[64], path[64], line[512];
	struct stat st;
	uint64_t vaddr;
	FILE *f;
	int pie, err;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", tid);
	if (stat(exe, &st) < 0)
		return -errno;
	err = dw_elf_load_base(exe, &vaddr, &pie);
	if (err)
		return err;
	*bias = 0;
	if (!pie)
		return 0;
	/* A PIE's bias: where its first segment (file offset 0) is mapped. */
	snprintf(path, sizeof(path), "/proc/%d/maps", tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	err = -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, inode;
		char perms[8], dev[16];

		if (sscanf(line, "%llx-%llx %7s %llx %15s %llu", &lo, &hi, perms, &off, dev,
			   &inode) == 6 &&
		    inode == st.st_ino && off == 0) {
			*bias = lo - vaddr;
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

int tracer_task_comm(pid_t tid, char *buf, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return -ESRCH;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int tracer_task_sigmasks(pid_t tid, struct tracer_sigmasks *m)
{
	char path[64], line[256];
	FILE *f;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "SigPnd: %" SCNx64, &m->pending);
		sscanf(line, "ShdPnd: %" SCNx64, &m->shared);
		sscanf(line, "SigBlk: %" SCNx64, &m->blocked);
		sscanf(line, "SigIgn: %" SCNx64, &m->ignored);
		sscanf(line, "SigCgt: %" SCNx64, &m->caught);
	}
	fclose(f);
	return 0;
}

int tracer_task_cputime(pid_t tid, uint64_t *ticks)
{
	char path[64], buf[1024], *p;
	unsigned long long utime, stime;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = 0;
	/* After the name: state (3), then fields 4-13, utime (14), stime (15). */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
			 &stime) != 2)
		return -EINVAL;
	*ticks = utime + stime;
	return 0;
}

int tracer_exe_kind(pid_t tid, int *elf_class, unsigned *mode)
{
	unsigned char ident[EI_NIDENT];
	char exe[64];
	struct stat st;
	int fd, err = 0;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", tid);
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		err = -errno;
	else if (pread(fd, ident, sizeof(ident), 0) != (ssize_t)sizeof(ident) ||
		 memcmp(ident, ELFMAG, SELFMAG) != 0)
		err = -ENOEXEC;
	close(fd);
	if (err)
		return err;
	*elf_class = ident[EI_CLASS];
	*mode = st.st_mode;
	return 0;
}

int tracer_pidns(pid_t tid, uint64_t *ns)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", tid);
	if (stat(path, &st) < 0)
		return -errno;
	*ns = (uint64_t)st.st_dev << 32 ^ (uint64_t)st.st_ino;
	return 0;
}

/* The fields of /proc/TID/stat after the command's ')' into BUF (SIZE
 * bytes): a pointer to them, or NULL with *ERR set (-errno, -ESRCH when
 * the task is gone, -EINVAL for what proc(5) does not describe). */
static const char *stat_after_comm(pid_t tid, char *buf, size_t size, int *err)
{
	char path[64];
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*err = -errno;
		return NULL;
	}
	n = read(fd, buf, size - 1);
	*err = n < 0 ? -errno : -ESRCH;
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	p = strrchr(buf, ')');
	*err = -EINVAL;
	return p && p[1] == ' ' && p[2] ? p + 1 : NULL;
}

int tracer_task_state(pid_t tid)
{
	char buf[512];
	int err;
	const char *p = stat_after_comm(tid, buf, sizeof(buf), &err);

	return p ? p[1] : err;
}

int tracer_fd_tty_index(pid_t tid, int fd)
{
	char path[64], line[256];
	FILE *f;
	int index = -ENOTTY;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", tid, fd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* pty_show_fdinfo() (drivers/tty/pty.c), for a /dev/ptmx descriptor */
	while (fgets(line, sizeof(line), f)) {
		int v;

		if (sscanf(line, "tty-index: %d", &v) == 1 && v >= 0)
			index = v;
	}
	fclose(f);
	return index;
}

int tracer_task_tty(pid_t tid)
{
	char buf[512];
	unsigned long tty_nr;
	int err;
	const char *p = stat_after_comm(tid, buf, sizeof(buf), &err);

	/* pid (comm) state ppid pgrp session tty_nr: proc(5) */
	if (!p)
		return err;
	if (sscanf(p, " %*c %*d %*d %*d %lu", &tty_nr) != 1)
		return -EINVAL;
	return (int)tty_nr;
}

int tracer_seccomp_filters(pid_t tid)
{
	char path[64], line[256];
	int n = -1;
	FILE *f;

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/status", tid);
	else
		snprintf(path, sizeof(path), "/proc/thread-self/status");
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Seccomp_filters: %d", &n) == 1)
			break;
	}
	if (f)
		fclose(f);
	return n;
}
