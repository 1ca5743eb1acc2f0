/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the standard descriptors stand (lseek of each, as python3 asks
 * when it sets up sys.stdout), and a file of its own: written, sought
 * back and read. Recorded with stdout to a file the shell had written
 * to and replayed with stdout to a pipe, the replay must see the
 * recording's positions (the pipe's ESPIPE is today's, not the
 * recording's), and its own file's positions as the kernel gives them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[8] = { 0 };
	off_t own[3];
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: stdpos FILE\n");
		return 2;
	}
	for (int i = 0; i < 3; i++) {
		off_t o = lseek(i, 0, SEEK_CUR);

		/* the answer decides what runs next, as in python3's io */
		if (o < 0)
			printf("fd %d: %s\n", i, strerror(errno));
		else
			printf("fd %d: at %lld\n", i, (long long)o);
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, "abcdef", 6) != 6)
		return 1;
	own[0] = lseek(fd, 0, SEEK_CUR);
	own[1] = lseek(fd, 2, SEEK_SET);
	if (read(fd, buf, 3) != 3)
		return 1;
	own[2] = lseek(fd, 0, SEEK_CUR);
	unlink(argv[1]);
	printf("own: %lld %lld '%s' %lld\n", (long long)own[0], (long long)own[1], buf,
	       (long long)own[2]);
	return 0;
}
