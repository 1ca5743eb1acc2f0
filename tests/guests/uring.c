/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reads the file ARGV[1] with io_uring, through raw syscalls (no
 * liburing), and prints it; where io_uring_setup fails with ENOSYS (a
 * kernel without io_uring, or hermit, which refuses it) it falls back to
 * read(2), as liburing's users do. Says on stderr which way it read.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static char buf[4096];

/* The bytes read, or -errno; -ENOSYS when io_uring is not there. */
static long read_uring(int fd)
{
	struct io_uring_params p;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes, *cqe;
	unsigned char *sq, *cq;
	unsigned *tail, *array, *ctail, *chead;
	long ring, n;

	memset(&p, 0, sizeof(p));
	ring = syscall(SYS_io_uring_setup, 4, &p);
	if (ring < 0)
		return -errno;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, (int)ring, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, (int)ring, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, (int)ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return -errno;
	memset(&sqes[0], 0, sizeof(sqes[0]));
	sqes[0].opcode = IORING_OP_READ;
	sqes[0].fd = fd;
	sqes[0].addr = (unsigned long)buf;
	sqes[0].len = sizeof(buf);
	tail = (unsigned *)(sq + p.sq_off.tail);
	array = (unsigned *)(sq + p.sq_off.array);
	array[*tail & *(unsigned *)(sq + p.sq_off.ring_mask)] = 0;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, (int)ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return -errno;
	chead = (unsigned *)(cq + p.cq_off.head);
	ctail = (unsigned *)(cq + p.cq_off.tail);
	if (*chead == __atomic_load_n(ctail, __ATOMIC_ACQUIRE))
		return -EIO;
	cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	cqe = &cqes[*chead & *(unsigned *)(cq + p.cq_off.ring_mask)];
	n = cqe->res;
	close((int)ring);
	return n;
}

int main(int argc, char **argv)
{
	long n;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: uring FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	n = read_uring(fd);
	if (n == -ENOSYS) {
		fprintf(stderr, "uring: io_uring_setup: ENOSYS, read(2) instead\n");
		n = read(fd, buf, sizeof(buf));
		if (n < 0)
			n = -errno;
	} else {
		fprintf(stderr, "uring: read with io_uring\n");
	}
	if (n < 0) {
		fprintf(stderr, "uring: %s\n", strerror((int)-n));
		return 1;
	}
	fwrite(buf, 1, (size_t)n, stdout);
	return 0;
}
