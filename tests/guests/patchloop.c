/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest for tests/gdb/patched.py: spin() is a loop with no syscall whose
 * backward branch and indirect call are counted sites, which hermit
 * patches in the guest's memory (docs/preemption.md); gdb steps through
 * it and must see only the original code. Prints "patched S".
 */
#include <stdio.h>

long data[64];

__attribute__((noipa)) static long twice(long x)
{
	return 2 * x;
}

long (*volatile fn)(long) = twice;

__attribute__((noipa)) long spin(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += fn(data[i & 63]) ^ i;
	return s;
}

int main(void)
{
	for (int i = 0; i < 64; i++)
		data[i] = i * 7;
	printf("patched %ld\n", spin(1000000));
	return 0;
}
