/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Randomness (DESIGN.md "Randomness"): getrandom, the AT_RANDOM bytes the
 * kernel leaves on a new program's stack, and reads of /dev/urandom and
 * /dev/random all draw from the seeded PRNG.
 *
 * Reads cannot all stop: that would put a ptrace stop on every read(2).
 * Instead, when open/openat returns a descriptor for one of the random
 * devices, the tracer moves it to a number >= REC_RANDOM_FD_MIN (an
 * injected fcntl(F_DUPFD) and close), and the seccomp filter stops only
 * reads of descriptors that high. A high descriptor is checked through
 * /proc/TID/fd before its read is answered; others run natively.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/common.h"

#include "internal.h"

#ifndef GRND_NONBLOCK
#define GRND_NONBLOCK 0x0001
#endif
#ifndef GRND_RANDOM
#define GRND_RANDOM 0x0002
#endif
#ifndef GRND_INSECURE
#define GRND_INSECURE 0x0004
#endif

/* include/linux/fs.h: MAX_RW_COUNT, the most one read or write moves. */
#define MAX_RW_COUNT (INT_MAX & ~4095L)

/* Fill LEN bytes at ADDR in TID from the PRNG; bytes written or -EFAULT. */
static long fill(struct rec *r, pid_t tid, uint64_t addr, size_t len)
{
	unsigned char chunk[65536];
	size_t done = 0;

	while (done < len) {
		size_t n = len - done < sizeof(chunk) ? len - done : sizeof(chunk);

		rec_prng_fill(&r->prng, chunk, n);
		if (tracer_write_mem(tid, addr + done, chunk, n) < 0)
			return done ? (long)done : -EFAULT;
		done += n;
	}
	return (long)done;
}

/*
 * drivers/char/random.c, SYSCALL_DEFINE3(getrandom, char __user *, ubuf,
 * size_t, len, unsigned int, flags): the flags are an unsigned int, so the
 * upper half of the register is not looked at; unknown bits, and
 * GRND_INSECURE with GRND_RANDOM, are EINVAL. The PRNG is always ready
 * (crng_ready()), so GRND_NONBLOCK never gives EAGAIN. import_ubuf()
 * cuts the length to MAX_RW_COUNT.
 */
enum rec_action rec_sys_getrandom(struct rec *r, struct task *t, struct rec_call *c)
{
	unsigned int flags = (unsigned int)c->args[2];
	size_t len = c->args[1];

	if (flags & ~(unsigned int)(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE)) {
		c->ret = -EINVAL;
		return REC_EMULATED;
	}
	if ((flags & (GRND_INSECURE | GRND_RANDOM)) == (GRND_INSECURE | GRND_RANDOM)) {
		c->ret = -EINVAL;
		return REC_EMULATED;
	}
	if (len > (size_t)MAX_RW_COUNT)
		len = (size_t)MAX_RW_COUNT;
	c->ret = fill(r, t->tid, c->args[0], len);
	return REC_EMULATED;
}

static int is_random_fd(pid_t tid, long fd)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fd/%ld", tid, fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = 0;
	return strcmp(target, "/dev/urandom") == 0 || strcmp(target, "/dev/random") == 0;
}

int rec_open_path_arg(long nr)
{
	return nr == SYS_openat || nr == SYS_openat2;
}

long rec_open_flags(struct task *t, const struct rec_call *c)
{
	struct open_how how;

	switch (c->nr) {
	case SYS_creat:
		return O_CREAT | O_WRONLY | O_TRUNC;
	case SYS_openat:
		return (long)c->args[2];
	case SYS_openat2: /* (dirfd, path, how, size): flags lead every size */
		if (c->args[3] < sizeof(how.flags) ||
		    tracer_read_mem(t->tid, c->args[2], &how.flags, sizeof(how.flags)) < 0)
			return 0;
		return (long)how.flags;
	default:
		return (long)c->args[1];
	}
}

enum rec_action rec_sys_open(struct rec *r, struct task *t, struct rec_call *c)
{
	char path[256];
	size_t n;

	if (r->opts->mode == REC_MODE_RECORD)
		rec_capture_open(r, t, c);
	if (tracer_read_str(t->tid, c->args[rec_open_path_arg(c->nr)], path, sizeof(path)) < 0)
		return r->opts->mode != REC_MODE_RUN ? REC_EXIT_STOP : REC_CONT;
	n = strlen(path);
	hm_trace("task %d: open '%s'", t->index, path);
	/* openat2's flags are in memory, where a FIFO's open cannot be made
	 * not to block: it blocks in the kernel (docs/record-replay.md) */
	if (c->nr != SYS_openat2 && rec_fifo_open_entry(t, c, path))
		return REC_EXIT_STOP;
	if (r->opts->debugger) {
		long flags = rec_open_flags(t, c);

		/* A file written: the replay's view keeps the writes, which a
		 * checkpoint made before would see (recorder/checkpoint.c). */
		if (rec_open_writes(flags) && strncmp(path, "/dev/", 5) != 0)
			rec_cp_files_written(r);
	}
	/* Cheap test first: only names ending in "random" need the exit stop,
	 * and where a log is kept, every open's result goes with its event (a
	 * replay's that differs is a divergence, found there). */
	if ((n >= 6 && strcmp(path + n - 6, "random") == 0) || r->opts->mode != REC_MODE_RUN)
		return REC_EXIT_STOP;
	return REC_CONT;
}

long rec_fd_move_high(struct rec *r, struct task *t, long fd, int cloexec)
{
	uint64_t args[6] = { (uint64_t)fd, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, REC_RANDOM_FD_MIN };
	long nfd;

	if (fd >= REC_RANDOM_FD_MIN)
		return fd;
	if (tracer_inject(t->tid, SYS_fcntl, args, &nfd) < 0 || nfd < 0) {
		if (!r->urandom_warned)
			hm_warn("cannot move a descriptor above %d: reads of /dev/urandom or of a "
				"timerfd there are not deterministic",
				REC_RANDOM_FD_MIN);
		r->urandom_warned = 1;
		return fd;
	}
	args[1] = 0;
	args[2] = 0;
	tracer_inject(t->tid, SYS_close, args, &(long){ 0 });
	hm_trace("task %d: fd %ld moved to %ld", t->index, fd, nfd);
	return nfd;
}

void rec_sys_open_exit(struct rec *r, struct task *t, struct rec_call *c)
{
	int flags = (int)rec_open_flags(t, c);

	if (c->nr != SYS_openat2 && rec_fifo_open_exit(r, t, c))
		return;
	if (c->ret < 0 || c->ret >= REC_RANDOM_FD_MIN || !is_random_fd(t->tid, c->ret))
		return;
	c->ret = rec_fd_move_high(r, t, c->ret, flags & O_CLOEXEC);
}

enum rec_action rec_random_read(struct rec *r, struct task *t, struct rec_call *c)
{
	struct iovec iov[64];
	size_t niov;
	long total = 0;

	if (!is_random_fd(t->tid, (long)c->args[0]))
		return REC_CONT;
	if (c->nr == SYS_read || c->nr == SYS_pread64) {
		c->ret = fill(r, t->tid, c->args[1], c->args[2]);
		return REC_EMULATED;
	}
	/* readv, preadv, preadv2: (fd, iov, iovcnt, ...) */
	niov = c->args[2] < 64 ? c->args[2] : 64;
	if (tracer_read_mem(t->tid, c->args[1], iov, niov * sizeof(iov[0])) < 0) {
		c->ret = -EFAULT;
		return REC_EMULATED;
	}
	for (size_t i = 0; i < niov; i++) {
		long n = fill(r, t->tid, (uint64_t)(uintptr_t)iov[i].iov_base, iov[i].iov_len);

		if (n < 0) {
			c->ret = total ? total : n;
			return REC_EMULATED;
		}
		total += n;
	}
	c->ret = total;
	return REC_EMULATED;
}

int rec_fill_at_random(struct rec *r, pid_t tid)
{
	uint64_t addr;
	int err = tracer_auxv(tid, AT_RANDOM, &addr);

	if (err)
		return err;
	return fill(r, tid, addr, 16) == 16 ? 0 : -EFAULT;
}
