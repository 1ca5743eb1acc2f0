/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pseudo-terminals the guest makes (docs/record-replay.md "Terminals the
 * guest makes").
 *
 * A terminal is a device, and devices lead outside: a replay does not run
 * their reads and ioctls. But a pty whose master the guest opened from
 * /dev/ptmx connects the guest to itself, as a pipe it made does: what
 * one end reads is what the other end wrote, passed through the kernel's
 * line discipline (echo, canonical lines, ^C to SIGINT), which is
 * deterministic given the same bytes in the same order. So such a master,
 * and its slave (/dev/pts/N with N the master's index, or /dev/tty where
 * that is the caller's controlling terminal), are the guest's own: their
 * ioctls, reads and writes run in a recording and a replay alike. Reads
 * need not race with the kernel's flush of the other end: n_tty_read() and
 * n_tty_poll() wait for it (tty_buffer_flush_work(), drivers/tty/n_tty.c)
 * before they say there is nothing.
 *
 * The terminal hermit was started on, and any pty whose master hermit
 * holds, stay outside. Which indices are the guest's is learnt from the
 * fdinfo of its masters (pty_show_fdinfo(), drivers/tty/pty.c), in the
 * recording and in the replay alike: a replay's ptys may get other
 * numbers from the host, and are told apart by the same rule.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/common.h"
#include "internal.h"

/* Unix98 pty slaves: majors 136 to 143 (UNIX98_PTY_SLAVE_MAJOR,
 * include/uapi/linux/major.h, and Documentation/admin-guide/devices.txt). */
#define PTS_MAJOR_FIRST 136
#define PTS_MAJOR_LAST	143

struct rec_ptys {
	int *guest; /* indices of the masters the guest opened */
	size_t nguest, cap_guest;
	int *own; /* hermit's own terminals: outside */
	size_t nown, cap_own;
};

static int has(const int *set, size_t n, int index)
{
	for (size_t i = 0; i < n; i++) {
		if (set[i] == index)
			return 1;
	}
	return 0;
}

static void add(int **set, size_t *n, size_t *cap, int index)
{
	if (has(*set, *n, index))
		return;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*set = xrealloc(*set, *cap * sizeof(**set));
	}
	(*set)[(*n)++] = index;
}

static int is_master(const char *target)
{
	return strcmp(target, "/dev/ptmx") == 0 || strcmp(target, "/dev/pts/ptmx") == 0;
}

/* The index N of "/dev/pts/N", or -1. */
static int slave_index(const char *target)
{
	char *end;
	long n;

	if (strncmp(target, "/dev/pts/", 9) != 0 || target[9] < '0' || target[9] > '9')
		return -1;
	n = strtol(target + 9, &end, 10);
	return *end || n > 1 << 20 ? -1 : (int)n;
}

/* The pty index of device number DEV (tty_nr's encoding, new_encode_dev()),
 * or -1 when it is no pty slave. */
static int tty_index(int dev)
{
	unsigned major = ((unsigned)dev >> 8) & 0xfff;
	unsigned minor = ((unsigned)dev & 0xff) | (((unsigned)dev >> 12) & 0xfff00);

	if (dev <= 0 || major < PTS_MAJOR_FIRST || major > PTS_MAJOR_LAST)
		return -1;
	return (int)((major - PTS_MAJOR_FIRST) * 256 + minor);
}

void rec_ptys_init(struct rec *r)
{
	struct rec_ptys *p = xcalloc(1, sizeof(*p));
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int index;

	r->ptys = p;
	while (d && (e = readdir(d))) {
		char target[128];
		int fd = atoi(e->d_name);

		if (e->d_name[0] == '.' ||
		    tracer_fd_target(getpid(), fd, target, sizeof(target)) < 0)
			continue;
		index = is_master(target) ? tracer_fd_tty_index(getpid(), fd) : slave_index(target);
		if (index >= 0)
			add(&p->own, &p->nown, &p->cap_own, index);
	}
	if (d)
		closedir(d);
	index = tty_index(tracer_task_tty(getpid()));
	if (index >= 0)
		add(&p->own, &p->nown, &p->cap_own, index);
}

void rec_ptys_free(struct rec *r)
{
	if (!r->ptys)
		return;
	free(r->ptys->guest);
	free(r->ptys->own);
	free(r->ptys);
	r->ptys = NULL;
}

/* Learn the indices of the masters every guest process holds. */
static void scan_masters(const struct rec *r)
{
	struct rec_ptys *p = r->ptys;

	for (size_t i = 0; i < r->ntasks; i++) {
		const struct task *t = r->tasks[i];
		char dir[64];
		struct dirent *e;
		DIR *d;

		if (t->system == 1 || t->tid != t->tgid || t->state == TASK_EXITING)
			continue;
		snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)t->tid);
		d = opendir(dir);
		while (d && (e = readdir(d))) {
			char target[64];
			int fd = atoi(e->d_name), index;

			if (e->d_name[0] == '.' ||
			    tracer_fd_target(t->tid, fd, target, sizeof(target)) < 0 ||
			    !is_master(target))
				continue;
			index = tracer_fd_tty_index(t->tid, fd);
			if (index >= 0 && !has(p->own, p->nown, index))
				add(&p->guest, &p->nguest, &p->cap_guest, index);
		}
		if (d)
			closedir(d);
	}
}

int rec_guest_pty(const struct rec *r, pid_t tid, int fd, const char *target)
{
	struct rec_ptys *p = r->ptys;
	int index;

	if (!p || strncmp(target, "/dev/", 5) != 0)
		return 0;
	if (is_master(target)) {
		index = tracer_fd_tty_index(tid, fd);
		if (index < 0 || has(p->own, p->nown, index))
			return 0;
		add(&p->guest, &p->nguest, &p->cap_guest, index);
		return 1;
	}
	/* /dev/tty is the caller's controlling terminal, whichever it is */
	index = strcmp(target, "/dev/tty") == 0 ? tty_index(tracer_task_tty(tid))
						: slave_index(target);
	if (index < 0 || has(p->own, p->nown, index))
		return 0;
	if (!has(p->guest, p->nguest, index))
		scan_masters(r);
	return has(p->guest, p->nguest, index);
}

int rec_guest_pty_held(const struct rec *r, pid_t tid)
{
	char dir[64];
	struct dirent *e;
	int found = -1;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)tid);
	d = opendir(dir);
	while (d && found < 0 && (e = readdir(d))) {
		char target[64];
		int fd = atoi(e->d_name);

		if (e->d_name[0] != '.' && tracer_fd_target(tid, fd, target, sizeof(target)) == 0 &&
		    rec_guest_pty(r, tid, fd, target))
			found = fd;
	}
	if (d)
		closedir(d);
	return found;
}
