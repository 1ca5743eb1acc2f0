/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: every source of randomness a program gets from the kernel, printed
 * in hex: getrandom(2), /dev/urandom, /dev/random, the AT_RANDOM bytes of
 * the auxiliary vector, and rand() seeded with the time as many programs
 * do.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static void hex(const char *name, const unsigned char *p, size_t n)
{
	printf("%s ", name);
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}

static void from_device(const char *name, const char *path)
{
	unsigned char buf[16];
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	while (got < sizeof(buf)) {
		ssize_t n = read(fd, buf + got, sizeof(buf) - got);

		if (n <= 0) {
			perror(path);
			exit(1);
		}
		got += (size_t)n;
	}
	close(fd);
	hex(name, buf, sizeof(buf));
}

int main(void)
{
	unsigned char buf[16];
	const unsigned char *at_random;

	if (getrandom(buf, sizeof(buf), 0) != (ssize_t)sizeof(buf)) {
		perror("getrandom");
		return 1;
	}
	hex("getrandom", buf, sizeof(buf));
	from_device("urandom", "/dev/urandom");
	from_device("random", "/dev/random");
	at_random = (const unsigned char *)getauxval(AT_RANDOM);
	if (!at_random) {
		fprintf(stderr, "no AT_RANDOM\n");
		return 1;
	}
	hex("at_random", at_random, 16);
	srand((unsigned)time(NULL));
	printf("rand %d\n", rand());
	return 0;
}
