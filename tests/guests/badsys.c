/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Syscalls of no x86-64 program: "enosys" makes numbers the kernel does
 * not know (999, and x32 numbers, which a kernel without x32 answers with
 * ENOSYS) and prints what came back; "int80" makes a 32-bit syscall
 * (getpid through int $0x80) from 64-bit code, which hermit refuses;
 * "ok" prints ok.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void try(const char *what, long nr)
{
	long ret;

	errno = 0;
	ret = syscall(nr);
	printf("%s: %ld %s\n", what, ret, ret < 0 ? strerror(errno) : "");
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "enosys") == 0) {
		try("999", 999);
		try("x32 getpid", 0x40000000 | SYS_getpid);
		try("x32 past the table", 0x40000000 | 1000);
		try("0x7fffffff", 0x7fffffff);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "int80") == 0) {
		long ret;

		__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
		printf("int80 getpid: %s\n", ret > 0 ? "a pid" : "failed");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "ok") == 0) {
		puts("ok");
		return 0;
	}
	fprintf(stderr, "usage: badsys enosys|int80|ok\n");
	return 2;
}
