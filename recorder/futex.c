/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Futexes, emulated (DESIGN.md "Blocking"). Futex waits and wake-ups never
 * reach the kernel: the tracer keeps the wait queues and wakes waiters
 * first in, first out, so which thread a wake-up picks is the same on
 * every run, and timeouts run on the virtual clock. The semantics follow
 * kernel/futex/ (core.c, waitwake.c, requeue.c) and futex(2).
 *
 * A waiter is found by the word's key, as the kernel's get_futex_key()
 * makes it: a private operation (FUTEX_PRIVATE_FLAG), or a shared one on
 * a private mapping, names (thread group, address); a shared operation on
 * a shared mapping names the mapped object and the offset in it, read from
 * /proc/PID/maps, so processes that map the object at other addresses,
 * and two mappings of it in one process, meet on one queue.
 *
 * Left to the kernel: the PI operations, whose ownership rules the kernel
 * enforces. They may block; the block watch parks such a task and retries
 * it (tracer/blockwatch.c), which is deterministic because nothing else
 * runs meanwhile.
 */
#include "config.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13
#endif
#include <time.h>

#include "common/common.h"
#include "internal.h"

#define FUTEX_CMD_MASK_ALL (~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME))

static int read_word(struct task *t, uint64_t addr, uint32_t *val)
{
	if (addr & 3)
		return -EINVAL;
	return tracer_read_mem(t->tid, addr, val, sizeof(*val)) < 0 ? -EFAULT : 0;
}

/*
 * The key of the word at ADDR of T (get_futex_key()): -EINVAL when it is
 * not aligned; for a shared operation, -EFAULT when nothing is mapped
 * there. A shared mapping is one /proc/PID/maps marks 's' (MAP_SHARED of a
 * file, shmem, a memfd, MAP_SHARED|MAP_ANONYMOUS, System V shm); its
 * object is the (device, inode) maps shows, and the offset is the
 * mapping's page offset plus the word's place in it.
 */
static int futex_key(const struct task *t, uint64_t addr, int private,
		     struct rec_futex_key *k)
{
	char path[64], line[512];
	FILE *f;
	int err = -EFAULT;

	memset(k, 0, sizeof(*k));
	k->off = addr;
	if (addr & 3)
		return -EINVAL;
	if (private)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", t->tid);
	f = fopen(path, "re");
	if (!f)
		return -EFAULT;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, pgoff, ino;
		unsigned maj, min;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &lo, &hi, perms, &pgoff, &maj,
			   &min, &ino) != 7 ||
		    addr < lo || addr >= hi)
			continue;
		err = 0;
		if (strlen(perms) == 4 && perms[3] == 's' && ino) {
			k->shared = 1;
			k->dev = makedev(maj, min);
			k->ino = ino;
			k->off = pgoff + (addr - lo);
		}
		break;
	}
	fclose(f);
	return err;
}

static int key_eq(const struct rec_futex_key *a, const struct rec_futex_key *b)
{
	return a->shared == b->shared && a->dev == b->dev && a->ino == b->ino && a->off == b->off;
}

/* Whether W, a futex waiter, waits on key K of a task of TGID. */
static int waits_on(const struct task *w, pid_t tgid, const struct rec_futex_key *k)
{
	return key_eq(&w->futex_key, k) && (k->shared || w->tgid == tgid);
}

/* The next waiter on K (of TGID) matching BITSET, first come first. */
static struct task *first_waiter(struct rec *r, pid_t tgid, const struct rec_futex_key *k,
				 uint32_t bitset)
{
	struct task *best = NULL;

	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *w = r->tasks[i];

		if (w->state == TASK_WAITING && w->wait == WAIT_FUTEX && waits_on(w, tgid, k) &&
		    (w->futex_bitset & bitset) && (!best || w->wait_seq < best->wait_seq))
			best = w;
	}
	return best;
}

/* Wake up to N waiters. futex_wake() and futex_wake_op() count after a
 * wake, so a limit of 0 still wakes one (AT_LEAST_ONE); futex_requeue()
 * counts before. */
static long wake_n(struct rec *r, pid_t tgid, const struct rec_futex_key *k, long n,
		   uint32_t bitset, int at_least_one)
{
	long woken = 0;
	struct task *w;

	if (at_least_one && n < 1)
		n = 1;
	while (woken < n && (w = first_waiter(r, tgid, k, bitset))) {
		rec_wake(r, w, 0);
		woken++;
	}
	return woken;
}

static long wake(struct rec *r, pid_t tgid, const struct rec_futex_key *k, long n,
		 uint32_t bitset)
{
	return wake_n(r, tgid, k, n, bitset, 1);
}

/* Move up to N waiters from K to K2 (at ADDR2 of the caller), in their
 * order, to the end of K2's queue; count them. futex_requeue() counts
 * waiters it would move onto the same key too, and leaves them in place. */
static long requeue(struct rec *r, pid_t tgid, const struct rec_futex_key *k,
		    const struct rec_futex_key *k2, uint64_t addr2, long n)
{
	long moved = 0;
	struct task *w;

	if (key_eq(k, k2)) {
		for (size_t i = 0; i < r->ntasks && moved < n; i++) {
			w = r->tasks[i];
			moved += w->state == TASK_WAITING && w->wait == WAIT_FUTEX &&
				 waits_on(w, tgid, k);
		}
		return moved;
	}
	while (moved < n && (w = first_waiter(r, tgid, k, FUTEX_BITSET_MATCH_ANY))) {
		/* (A waiter of another process moved to a private key is
		 * matched by its own thread group, not the caller's.) */
		w->futex_key = *k2;
		w->futex_addr = addr2;
		w->futex_requeued = 1;
		w->wait_seq = ++r->wait_seq;
		moved++;
	}
	return moved;
}

/* Deadline of a wait in virtual ns, -1 for none; or -errno. */
static int64_t wait_deadline(struct rec *r, struct task *t, uint64_t uts, int absolute,
			     int realtime, int64_t *deadline)
{
	struct timespec ts;
	int64_t ns;

	*deadline = -1;
	if (!uts)
		return 0;
	if (tracer_read_mem(t->tid, uts, &ts, sizeof(ts)) < 0)
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= HM_NS_PER_SEC)
		return -EINVAL;
	ns = ts.tv_sec > INT64_MAX / HM_NS_PER_SEC / 2 ? INT64_MAX / 2
						       : ts.tv_sec * HM_NS_PER_SEC + ts.tv_nsec;
	if (!absolute)
		*deadline = r->clock.now_ns + ns;
	else if (realtime)
		*deadline = ns - r->clock.epoch_ns;
	else
		*deadline = ns - REC_BOOT_NS;
	if (*deadline < r->clock.now_ns)
		*deadline = r->clock.now_ns;
	return 0;
}

/* FUTEX_WAKE_OP's operation on the old value (futex_atomic_op_inuser). */
static int wake_op(uint32_t encoded, uint32_t old, uint32_t *new_val)
{
	int op = (encoded >> 28) & 7, cmp = (encoded >> 24) & 15;
	int oparg = (int)((encoded >> 12) & 0xfff), cmparg = (int)(encoded & 0xfff);

	/* 12-bit signed fields */
	if (oparg & 0x800)
		oparg -= 0x1000;
	if (cmparg & 0x800)
		cmparg -= 0x1000;
	if (encoded & ((uint32_t)FUTEX_OP_OPARG_SHIFT << 28)) {
		if (oparg < 0 || oparg > 31)
			oparg &= 31;
		oparg = (int)(1u << oparg);
	}
	switch (op) {
	case FUTEX_OP_SET:
		*new_val = (uint32_t)oparg;
		break;
	case FUTEX_OP_ADD:
		*new_val = old + (uint32_t)oparg;
		break;
	case FUTEX_OP_OR:
		*new_val = old | (uint32_t)oparg;
		break;
	case FUTEX_OP_ANDN:
		*new_val = old & ~(uint32_t)oparg;
		break;
	case FUTEX_OP_XOR:
		*new_val = old ^ (uint32_t)oparg;
		break;
	default:
		return -ENOSYS;
	}
	switch (cmp) {
	case FUTEX_OP_CMP_EQ:
		return (int)old == cmparg;
	case FUTEX_OP_CMP_NE:
		return (int)old != cmparg;
	case FUTEX_OP_CMP_LT:
		return (int)old < cmparg;
	case FUTEX_OP_CMP_LE:
		return (int)old <= cmparg;
	case FUTEX_OP_CMP_GT:
		return (int)old > cmparg;
	case FUTEX_OP_CMP_GE:
		return (int)old >= cmparg;
	default:
		return -ENOSYS;
	}
}

static enum rec_action reply(struct rec_call *c, long ret)
{
	c->ret = ret;
	return REC_EMULATED;
}

enum rec_action rec_sys_futex(struct rec *r, struct task *t, struct rec_call *c)
{
	uint64_t uaddr = c->args[0], uaddr2 = c->args[4];
	int op = (int)c->args[1], cmd = op & FUTEX_CMD_MASK_ALL;
	uint32_t val = (uint32_t)c->args[2], val2 = (uint32_t)c->args[3];
	uint32_t val3 = (uint32_t)c->args[5], word, bitset = FUTEX_BITSET_MATCH_ANY;
	int private = (op & FUTEX_PRIVATE_FLAG) != 0;
	struct rec_futex_key key, key2;
	int64_t deadline;
	long n;
	int err;

	/* do_futex(): only these take FUTEX_CLOCK_REALTIME. */
	if ((op & FUTEX_CLOCK_REALTIME) && cmd != FUTEX_WAIT_BITSET &&
	    cmd != FUTEX_WAIT_REQUEUE_PI && cmd != FUTEX_LOCK_PI2)
		return reply(c, -ENOSYS);
	switch (cmd) {
	case FUTEX_WAIT_BITSET:
		if (!val3)
			return reply(c, -EINVAL);
		bitset = val3;
		/* fall through */
	case FUTEX_WAIT:
		err = wait_deadline(r, t, c->args[3], cmd == FUTEX_WAIT_BITSET,
				    op & FUTEX_CLOCK_REALTIME, &deadline);
		if (err)
			return reply(c, err);
		err = futex_key(t, uaddr, private, &key);
		if (err)
			return reply(c, err);
		err = read_word(t, uaddr, &word);
		if (err)
			return reply(c, err);
		if (word != val)
			return reply(c, -EAGAIN);
		t->futex_addr = uaddr;
		t->futex_key = key;
		t->futex_requeued = 0;
		t->futex_val = val;
		t->futex_bitset = bitset;
		rec_block(r, t, WAIT_FUTEX, deadline);
		return REC_BLOCKED;
	case FUTEX_WAKE_BITSET:
		if (!val3)
			return reply(c, -EINVAL);
		bitset = val3;
		/* fall through */
	case FUTEX_WAKE:
		err = futex_key(t, uaddr, private, &key);
		if (err)
			return reply(c, err);
		return reply(c, wake(r, t->tgid, &key, (int)val, bitset));
	case FUTEX_CMP_REQUEUE:
	case FUTEX_REQUEUE:
		if ((int)val < 0 || (int)val2 < 0)
			return reply(c, -EINVAL);
		err = futex_key(t, uaddr, private, &key);
		if (!err)
			err = futex_key(t, uaddr2, private, &key2);
		if (!err && cmd == FUTEX_CMP_REQUEUE)
			err = read_word(t, uaddr, &word);
		if (err)
			return reply(c, err);
		if (cmd == FUTEX_CMP_REQUEUE && word != val3)
			return reply(c, -EAGAIN);
		/* futex_requeue() serves both and returns woken plus moved
		 * (futex(2) says FUTEX_REQUEUE returns the woken only; the
		 * kernel counts both). */
		n = wake_n(r, t->tgid, &key, (int)val, FUTEX_BITSET_MATCH_ANY, 0);
		n += requeue(r, t->tgid, &key, &key2, uaddr2, (int)val2);
		return reply(c, n);
	case FUTEX_WAKE_OP: {
		uint32_t old, new_val = 0;
		int cond;

		err = futex_key(t, uaddr, private, &key);
		if (!err)
			err = futex_key(t, uaddr2, private, &key2);
		if (err)
			return reply(c, err);
		err = read_word(t, uaddr2, &old);
		if (err)
			return reply(c, err);
		cond = wake_op(val3, old, &new_val);
		if (cond < 0)
			return reply(c, cond);
		if (tracer_write_mem(t->tid, uaddr2, &new_val, sizeof(new_val)) < 0)
			return reply(c, -EFAULT);
		n = wake(r, t->tgid, &key, (int)val, FUTEX_BITSET_MATCH_ANY);
		if (cond)
			n += wake(r, t->tgid, &key2, (int)val2, FUTEX_BITSET_MATCH_ANY);
		return reply(c, n);
	}
	default:
		/* PI futexes and anything newer: the kernel's (see above). */
		return REC_CONT;
	}
}

void rec_futex_recheck(struct rec *r, pid_t tgid)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		struct task *w = r->tasks[i];
		uint32_t word;

		if (w->state != TASK_WAITING || w->wait != WAIT_FUTEX || w->futex_requeued ||
		    (w->tgid != tgid && !w->futex_key.shared))
			continue;
		/* The word changed without a wake-up we saw: a spurious wake-up
		 * is always allowed, and the waiter will look again. */
		if (read_word(w, w->futex_addr, &word) != 0 || word != w->futex_val)
			rec_wake(r, w, 0);
	}
}
