/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The arguments a parked call entered with.
 *
 * The kernel copies what a call's pointer arguments say when the call
 * starts (writev's iovec array in import_iovec(), poll's pollfd array,
 * select's fd_sets, sendmsg's msghdr and address, semop's sops, msgsnd's
 * message, a timeout) and blocks with its copy: a thread that changes that
 * memory meanwhile changes nothing for the call. Hermit parks a blocked
 * call by interrupting it, and a retry makes it again, which reads guest
 * memory again. So at the park the bytes those arguments point to are
 * kept, and while a retry is made they are put back where they were; the
 * bytes the other threads wrote meanwhile are put back in their turn as
 * soon as the call has read its arguments (its next stop), before any
 * other guest code runs. Bytes the kernel wrote in between (an output that
 * shares the memory: revents, the fd_sets) are the kernel's and stay.
 *
 * Only one guest thread runs at a time, so nothing else sees the swap.
 * A signal handler does not either: a delivered signal ends the swap, and
 * a call restarted after a handler reads memory again, as natively.
 */
#include "config.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "common/common.h"
#include "internal.h"

/* include/linux/uio.h: UIO_MAXIOV, the most iovecs a call takes. */
#define IOV_MAX_ENTRIES 1024
/* What one parked call keeps, at most (larger calls keep nothing). */
#define KEEP_MAX    (256 * 1024)
#define REGIONS_MAX 64

/* How the kernel writes a region back when the call ends. */
enum region_kind {
	IN,	/* never: only the call's input */
	SETS,	/* select's fd_sets: all of it, when the call succeeds */
	POLLFD, /* poll's array: each revents, when the call succeeds */
};

struct region {
	uint64_t addr;
	size_t len;
	enum region_kind kind;
};

struct rec_parked {
	int valid;   /* holds the arguments of the call T is parked in */
	int swapped; /* they are in guest memory now, in place of `displaced` */
	int ended;   /* the call made with them has returned (not restarted) */
	long nr;
	uint64_t args[6];
	size_t n;
	struct region r[REGIONS_MAX];
	size_t total;
	unsigned char *snap;	  /* the bytes at entry, regions back to back */
	unsigned char *displaced; /* while swapped: the guest's bytes */
};

struct collect {
	pid_t tid;
	struct region *r;
	size_t n, total;
	int over; /* more than REGIONS_MAX or KEEP_MAX: keep nothing */
};

static void add_kind(struct collect *c, uint64_t addr, uint64_t len, enum region_kind kind)
{
	if (!addr || !len)
		return;
	if (c->n == REGIONS_MAX || len > KEEP_MAX || c->total + len > KEEP_MAX) {
		c->over = 1;
		return;
	}
	c->r[c->n].addr = addr;
	c->r[c->n].len = (size_t)len;
	c->r[c->n].kind = kind;
	c->n++;
	c->total += (size_t)len;
}

static void add(struct collect *c, uint64_t addr, uint64_t len)
{
	add_kind(c, addr, len, IN);
}

static void add_iov(struct collect *c, uint64_t addr, uint64_t count)
{
	if (count <= IOV_MAX_ENTRIES)
		add(c, addr, count * sizeof(struct iovec));
}

static void add_str(struct collect *c, uint64_t addr)
{
	char path[4096];

	if (addr && tracer_read_str(c->tid, addr, path, sizeof(path)) == 0)
		add(c, addr, strlen(path) + 1);
}

/* A msghdr at ADDR and what it points to that the call reads (SEND: the
 * address and control data as well as the iovec array). */
static void add_msg(struct collect *c, uint64_t addr, int send)
{
	struct msghdr m;

	if (!addr || tracer_read_mem(c->tid, addr, &m, sizeof(m)) < 0)
		return;
	add(c, addr, sizeof(m));
	add_iov(c, (uint64_t)(uintptr_t)m.msg_iov, m.msg_iovlen);
	if (send) {
		add(c, (uint64_t)(uintptr_t)m.msg_name, m.msg_namelen);
		add(c, (uint64_t)(uintptr_t)m.msg_control, m.msg_controllen);
	}
}

static void add_mmsg(struct collect *c, uint64_t addr, uint64_t vlen, int send)
{
	if (vlen > IOV_MAX_ENTRIES)
		return;
	add(c, addr, vlen * sizeof(struct mmsghdr));
	for (uint64_t i = 0; i < vlen && i < 16; i++)
		add_msg(c, addr + i * sizeof(struct mmsghdr), send);
}

static void add_sets(struct collect *c, const uint64_t a[6])
{
	int nfds = (int)a[0];
	size_t n = nfds > 0 && nfds <= REC_SELECT_FDS_MAX ? (size_t)(nfds + 63) / 64 * 8 : 0;

	for (int k = 1; k <= 3 && n; k++)
		add_kind(c, a[k], n, SETS);
}

/* Where call NR with arguments A reads memory that the kernel copies at
 * its start (the files named are the kernel's). */
static void collect(struct collect *c, long nr, const uint64_t a[6])
{
	uint64_t m[2];
	int cmd;

	switch (nr) {
	case SYS_readv: /* fs/read_write.c: import_iovec() */
	case SYS_writev:
	case SYS_preadv:
	case SYS_pwritev:
	case SYS_preadv2:
	case SYS_pwritev2:
		add_iov(c, a[1], a[2]);
		break;
	case SYS_sendmsg: /* net/socket.c: ___sys_sendmsg() */
	case SYS_recvmsg:
		add_msg(c, a[1], nr == SYS_sendmsg);
		break;
	case SYS_sendmmsg:
	case SYS_recvmmsg:
		add_mmsg(c, a[1], a[2], nr == SYS_sendmmsg);
		if (nr == SYS_recvmmsg)
			add(c, a[4], 16);
		break;
	case SYS_sendto: /* move_addr_to_kernel() */
		if (a[5] <= sizeof(struct sockaddr_storage))
			add(c, a[4], a[5]);
		break;
	case SYS_connect:
		if (a[2] <= sizeof(struct sockaddr_storage))
			add(c, a[1], a[2]);
		break;
	/* (The poll family's timeouts are not here: sys_poll.c reads them
	 * once, at the call's first entry, and keeps the deadline.) */
	case SYS_poll: /* fs/select.c: do_sys_poll() */
		add_kind(c, a[0], a[1] * sizeof(struct pollfd), POLLFD);
		break;
	case SYS_ppoll:
		add_kind(c, a[0], a[1] * sizeof(struct pollfd), POLLFD);
		add(c, a[3], a[4] <= 8 ? a[4] : 0);
		break;
	case SYS_select: /* core_sys_select() */
		add_sets(c, a);
		break;
	case SYS_pselect6:
		add_sets(c, a);
		/* the sigset pointer and its size, then the set itself */
		if (a[5] && tracer_read_mem(c->tid, a[5], m, sizeof(m)) == 0) {
			add(c, a[5], sizeof(m));
			add(c, m[0], m[1] <= 8 ? m[1] : 0);
		}
		break;
	case SYS_epoll_pwait: /* fs/eventpoll.c */
		add(c, a[4], a[5] <= 8 ? a[5] : 0);
		break;
	case SYS_epoll_pwait2:
		add(c, a[4], a[5] <= 8 ? a[5] : 0);
		break;
	case SYS_rt_sigtimedwait: /* kernel/signal.c */
		add(c, a[0], a[3] <= 8 ? a[3] : 0);
		break;
	case SYS_rt_sigsuspend:
		add(c, a[0], a[1] <= 8 ? a[1] : 0);
		break;
	case SYS_futex: /* kernel/futex/syscalls.c: the timeout of the waits */
		cmd = (int)a[1] & FUTEX_CMD_MASK;
		if (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_LOCK_PI ||
		    cmd == FUTEX_WAIT_REQUEUE_PI || cmd == 13 /* FUTEX_LOCK_PI2 */)
			add(c, a[3], 16);
		break;
	case SYS_semop: /* ipc/sem.c: do_semtimedop() */
		add(c, a[1], a[2] * 6);
		break;
	case SYS_semtimedop:
		add(c, a[1], a[2] * 6);
		add(c, a[3], 16);
		break;
	case SYS_msgsnd: /* ipc/msg.c: load_msg() */
		add(c, a[1], a[2] + sizeof(long));
		break;
	case SYS_mq_timedsend: /* ipc/mqueue.c */
		add(c, a[1], a[2]);
		add(c, a[4], 16);
		break;
	case SYS_mq_timedreceive:
		add(c, a[4], 16);
		break;
	case SYS_io_getevents: /* fs/aio.c */
		add(c, a[4], 16);
		break;
	case SYS_open: /* a FIFO's open blocks: fs/open.c getname() */
		add_str(c, a[0]);
		break;
	case SYS_openat:
		add_str(c, a[1]);
		break;
	case SYS_fcntl: /* fs/locks.c: fcntl_setlk() */
		if ((int)a[1] == F_SETLKW || (int)a[1] == F_OFD_SETLKW)
			add(c, a[2], sizeof(struct flock));
		break;
	default:
		break;
	}
}

void rec_parked_free(struct task *t)
{
	if (!t->parked)
		return;
	free(t->parked->snap);
	free(t->parked->displaced);
	free(t->parked);
	t->parked = NULL;
}

void rec_parked_drop(struct task *t)
{
	if (t->parked)
		t->parked->valid = 0;
}

void rec_parked_ended(struct task *t)
{
	if (t->parked) {
		t->parked->valid = 0;
		t->parked->ended = t->parked->swapped;
	}
}

void rec_parked_save(struct task *t)
{
	struct user_regs_struct regs;
	struct rec_parked *p;
	struct collect c = { 0 };
	uint64_t a[6];
	long nr;
	size_t off = 0;

	rec_parked_restore(t);
	if (tracer_get_regs(t->tid, &regs) < 0 || (long)regs.orig_rax < 0) {
		rec_parked_drop(t);
		return;
	}
	nr = (long)regs.orig_rax;
	a[0] = regs.rdi;
	a[1] = regs.rsi;
	a[2] = regs.rdx;
	a[3] = regs.r10;
	a[4] = regs.r8;
	a[5] = regs.r9;
	p = t->parked;
	if (p && p->valid && p->nr == nr && memcmp(p->args, a, sizeof(a)) == 0)
		return; /* parked again in the call it entered */
	if (!p)
		p = t->parked = xcalloc(1, sizeof(*p));
	p->valid = 0;
	c.tid = t->tid;
	c.r = p->r;
	collect(&c, nr, a);
	if (c.over || !c.n)
		return;
	p->snap = xrealloc(p->snap, c.total);
	p->displaced = xrealloc(p->displaced, c.total);
	for (size_t i = 0; i < c.n; i++) {
		if (tracer_read_mem(t->tid, p->r[i].addr, p->snap + off, p->r[i].len) < 0)
			return; /* not all readable: the kernel will say EFAULT */
		off += p->r[i].len;
	}
	p->nr = nr;
	memcpy(p->args, a, sizeof(a));
	p->n = c.n;
	p->total = c.total;
	p->valid = 1;
	hm_trace("task %d: parked in syscall %ld, %zu bytes of arguments kept", t->index, nr,
		 c.total);
}

void rec_parked_put_back(struct task *t)
{
	struct rec_parked *p = t->parked;
	size_t off = 0;
	int changed = 0;

	if (!p || !p->valid || p->swapped)
		return;
	for (size_t i = 0; i < p->n; i++) {
		if (tracer_read_mem(t->tid, p->r[i].addr, p->displaced + off, p->r[i].len) < 0)
			return;
		changed |= memcmp(p->displaced + off, p->snap + off, p->r[i].len) != 0;
		off += p->r[i].len;
	}
	if (!changed)
		return;
	off = 0;
	for (size_t i = 0; i < p->n; i++) {
		tracer_write_mem(t->tid, p->r[i].addr, p->snap + off, p->r[i].len);
		off += p->r[i].len;
	}
	p->swapped = 1;
	p->ended = 0;
	hm_trace("task %d: its parked call is made again with the arguments it entered with",
		 t->index);
}

void rec_parked_restore(struct task *t)
{
	struct rec_parked *p = t->parked;
	unsigned char now[4096];
	size_t off = 0;

	if (!p || !p->swapped)
		return;
	p->swapped = 0;
	for (size_t i = 0; i < p->n; i++) {
		/* What a call that returned wrote back is the kernel's. */
		if (p->ended && p->r[i].kind == SETS) {
			off += p->r[i].len;
			continue;
		}
		for (size_t done = 0; done < p->r[i].len;) {
			size_t k =
				p->r[i].len - done < sizeof(now) ? p->r[i].len - done : sizeof(now);
			const unsigned char *snap = p->snap + off + done;
			unsigned char *mine = p->displaced + off + done;

			/* A byte the kernel wrote since (an output) is the kernel's. */
			if (tracer_read_mem(t->tid, p->r[i].addr + done, now, k) == 0) {
				for (size_t j = 0; j < k; j++) {
					size_t at = done + j;
					int revents = p->r[i].kind == POLLFD &&
						      at % sizeof(struct pollfd) >=
							      offsetof(struct pollfd, revents);

					if (now[j] != snap[j] || (p->ended && revents))
						mine[j] = now[j];
				}
			}
			tracer_write_mem(t->tid, p->r[i].addr + done, mine, k);
			done += k;
		}
		off += p->r[i].len;
	}
}
