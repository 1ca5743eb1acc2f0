/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the guest sends outside (DESIGN.md "Replay": "a digest of the bytes
 * written to the outside"). A replay runs a write again, so it needs none
 * of the recorded bytes; it needs to know that they are the same. Where a
 * log is kept, each write, pwrite64, writev, pwritev, pwritev2, sendto,
 * sendmsg and sendmmsg to a descriptor that leads outside the guest stops,
 * hidden (capture.c), and its output frame carries a digest of the bytes
 * the call reports sent: its result, taken from the guest's buffers at the
 * call's exit, in the recording and the replay alike.
 *
 * The digest is XXH3-64 (libxxhash), streamed, so that where the bytes
 * are cut into pieces (16 KiB reads, iovecs) does not change it. It was
 * a byte-at-a-time FNV-1a, a quarter of a recording's time for a guest
 * that writes much to a file or /dev/null; recordings made then say
 * nothing of "sent_digest" in metadata.json, and their replays digest
 * with FNV-1a still (rec_options.sent_fnv1a).
 *
 * "Outside" is what a descriptor leads to at the call: anything but the
 * guest's own pipes and sockets (and eventfds and the like), which only
 * the guest reads, and whose reads a replay answers with the recorded
 * bytes: there, other bytes sent are not seen, only what they make the
 * guest do later. Hermit's own pipes and sockets (the guest's stdout when
 * it is piped), files, terminals and devices, and sockets under
 * --network=host are outside.
 */
#include "config.h"

#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <xxhash.h>

#include "internal.h"

int rec_fd_to_outside(const struct rec *r, pid_t tid, int fd)
{
	char target[256];

	if (tracer_fd_target(tid, fd, target, sizeof(target)) < 0)
		return 0; /* not open: EBADF, nothing is sent */
	if (rec_hermits_own(r, target))
		return 1;
	if (rec_guest_pty(r, tid, fd, target))
		return 0;
	if (strncmp(target, "socket:", 7) == 0)
		return r->opts->network_host;
	return strncmp(target, "pipe:", 5) != 0 && strncmp(target, "anon_inode:", 11) != 0;
}

/* The kernel takes no more iovecs or messages than this (UIO_MAXIOV,
 * include/uapi/linux/uio.h). */
#define MAX_IOV 1024

/* A digest under way: XXH3-64's state, or FNV-1a's (old recordings). */
struct digest {
	int fnv1a;
	uint64_t h;
	XXH3_state_t *xxh; /* XXH3_createState's: its size is not libxxhash's ABI */
};

static void digest_add(struct digest *h, const void *p, size_t n)
{
	if (h->fnv1a)
		h->h = hm_fnv1a(h->h, p, n);
	else
		XXH3_64bits_update(h->xxh, p, n);
}

/* H carried on over N bytes of the guest's at ADDR. Memory that cannot be
 * read ends the digest there, the same way in a recording and its replay. */
static int digest_mem(pid_t tid, uint64_t addr, size_t n, struct digest *h)
{
	unsigned char buf[65536];

	while (n) {
		size_t k = n < sizeof(buf) ? n : sizeof(buf);

		if (tracer_read_mem(tid, addr, buf, k) < 0)
			return -1;
		digest_add(h, buf, k);
		addr += k;
		n -= k;
	}
	return 0;
}

/* H carried on over the first LEFT bytes of the CNT iovecs at IOV_ADDR. */
static int digest_iov(pid_t tid, uint64_t iov_addr, uint64_t cnt, size_t left, struct digest *h)
{
	struct iovec iov[64];

	for (uint64_t i = 0; i < cnt && i < MAX_IOV && left; i += 64) {
		size_t k = cnt - i < 64 ? (size_t)(cnt - i) : 64;

		if (tracer_read_mem(tid, iov_addr + i * sizeof(struct iovec), iov,
				    k * sizeof(struct iovec)) < 0)
			return -1;
		for (size_t j = 0; j < k && left; j++) {
			size_t m = iov[j].iov_len < left ? iov[j].iov_len : left;

			if (digest_mem(tid, (uint64_t)iov[j].iov_base, m, h) < 0)
				return -1;
			left -= m;
		}
	}
	return 0;
}

/* H carried on over LEFT bytes of the data of the msghdr at ADDR. */
static int digest_msg(pid_t tid, uint64_t addr, size_t left, struct digest *h)
{
	struct msghdr mh;

	if (tracer_read_mem(tid, addr, &mh, sizeof(mh)) < 0)
		return -1;
	return digest_iov(tid, (uint64_t)mh.msg_iov, mh.msg_iovlen, left, h);
}

uint64_t rec_sent_digest(const struct rec *r, const struct task *t, const struct rec_syscall *row,
			 const struct rec_call *c)
{
	uint64_t addr = c->args[1];
	struct digest h = { .fnv1a = r->opts->sent_fnv1a, .h = HM_FNV1A_INIT };

	if (c->ret <= 0 || row->sent == SENT_NONE)
		return 0;
	if (!h.fnv1a) {
		h.xxh = XXH3_createState();
		if (!h.xxh) {
			hm_error("cannot allocate a digest's state: out of memory");
			_exit(HM_EXIT_INTERNAL);
		}
		XXH3_64bits_reset(h.xxh);
	}
	switch (row->sent) {
	case SENT_NONE:
		break;
	case SENT_BUF:
		digest_mem(t->tid, addr, (size_t)c->ret, &h);
		break;
	case SENT_IOV:
		digest_iov(t->tid, addr, c->args[2], (size_t)c->ret, &h);
		break;
	case SENT_MSG:
		digest_msg(t->tid, addr, (size_t)c->ret, &h);
		break;
	case SENT_MMSG:
		/* ret messages went, msg_len bytes of each (sendmmsg(2)) */
		for (long i = 0; i < c->ret && i < MAX_IOV; i++) {
			uint64_t at = addr + (uint64_t)i * sizeof(struct mmsghdr);
			struct mmsghdr m;

			if (tracer_read_mem(t->tid, at, &m, sizeof(m)) < 0)
				break;
			/* where one message ends is part of what was sent */
			digest_add(&h, &m.msg_len, sizeof(m.msg_len));
			if (digest_iov(t->tid, (uint64_t)m.msg_hdr.msg_iov, m.msg_hdr.msg_iovlen,
				       m.msg_len, &h) < 0)
				break;
		}
		break;
	}
	if (!h.fnv1a) {
		h.h = XXH3_64bits_digest(h.xxh);
		XXH3_freeState(h.xxh);
	}
	return h.h;
}
