/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: prints the file FILE as it maps it (mmap, never read(2)), its
 * first half with write(2) and the rest with writev(2), then, given OUT,
 * writes it into OUT with pwrite64(2) and says how many bytes went there.
 * A replay maps the recording's copy of FILE, so a copy changed after the
 * recording makes the replay print other bytes while every call it makes
 * is the recorded one: only the digest of what it writes can tell.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct stat st;
	struct iovec iov[2];
	const char *p;
	size_t half;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: mapprint FILE [OUT]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 2) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	half = (size_t)st.st_size / 2;
	if (write(1, p, half) != (ssize_t)half)
		return 1;
	iov[0].iov_base = (void *)(p + half);
	iov[0].iov_len = 1;
	iov[1].iov_base = (void *)(p + half + 1);
	iov[1].iov_len = (size_t)st.st_size - half - 1;
	if (writev(1, iov, 2) != (ssize_t)(st.st_size - (off_t)half))
		return 1;
	if (argc > 2) {
		int out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		ssize_t n;

		if (out < 0) {
			perror(argv[2]);
			return 1;
		}
		n = pwrite(out, p, (size_t)st.st_size, 0);
		close(out);
		printf("%zd bytes into %s\n", n,
		       strrchr(argv[2], '/') ? strrchr(argv[2], '/') + 1 : argv[2]);
	}
	return 0;
}
