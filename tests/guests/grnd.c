/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: getrandom(2)'s flags as the kernel reads them
 * (drivers/char/random.c): an unsigned int, so bits above the low 32 of
 * the register are ignored; unknown bits, and GRND_RANDOM with
 * GRND_INSECURE, are EINVAL. Prints what each call returned, never the
 * bytes, so the output is the same natively and under hermit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef GRND_NONBLOCK
#define GRND_NONBLOCK 0x0001
#endif
#ifndef GRND_RANDOM
#define GRND_RANDOM 0x0002
#endif
#ifndef GRND_INSECURE
#define GRND_INSECURE 0x0004
#endif

static const char *errname(int e)
{
	switch (e) {
	case EINVAL:
		return "EINVAL";
	case EFAULT:
		return "EFAULT";
	case EAGAIN:
		return "EAGAIN";
	default:
		return strerror(e);
	}
}

static void try(const char *what, void *buf, unsigned long len, uint64_t flags)
{
	long n = syscall(SYS_getrandom, buf, len, flags);

	if (n < 0)
		printf("%s: -1 %s\n", what, errname(errno));
	else
		printf("%s: %ld\n", what, n);
}

int main(void)
{
	unsigned char buf[64];

	try("flags 0", buf, 16, 0);
	try("flags 1<<32", buf, 16, 1ULL << 32);
	try("flags 1<<32|NONBLOCK", buf, 16, (1ULL << 32) | GRND_NONBLOCK);
	try("flags 0xffffffff00000000", buf, 16, 0xffffffff00000000ULL);
	try("flags 1<<32|8", buf, 16, (1ULL << 32) | 8);
	try("flags NONBLOCK", buf, 16, GRND_NONBLOCK);
	try("flags RANDOM|NONBLOCK", buf, 16, GRND_RANDOM | GRND_NONBLOCK);
	try("flags INSECURE", buf, 16, GRND_INSECURE);
	try("flags INSECURE|NONBLOCK", buf, 16, GRND_INSECURE | GRND_NONBLOCK);
	try("flags RANDOM|INSECURE", buf, 16, GRND_RANDOM | GRND_INSECURE);
	try("flags RANDOM|INSECURE|NONBLOCK", buf, 16, GRND_RANDOM | GRND_INSECURE | GRND_NONBLOCK);
	try("flags RANDOM|INSECURE|1<<32", buf, 16, (1ULL << 32) | GRND_RANDOM | GRND_INSECURE);
	try("flags 8", buf, 16, 8);
	try("flags 0x80000000", buf, 16, 0x80000000ULL);
	try("length 0", buf, 0, 0);
	try("length 0, flags 8", buf, 0, 8);
	try("buffer NULL", NULL, 16, 0);
	try("buffer NULL, flags RANDOM|INSECURE", NULL, 16, GRND_RANDOM | GRND_INSECURE);
	return 0;
}
