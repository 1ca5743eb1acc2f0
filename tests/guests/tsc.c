/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: read the time-stamp counter with rdtsc twice and rdtscp once.
 * Under hermit the instructions trap and read the virtual clock.
 */
#include <stdio.h>
#include <x86intrin.h>

int main(void)
{
	unsigned long long a, b, c;
	unsigned aux = 0;

	a = __rdtsc();
	b = __rdtsc();
	c = __rdtscp(&aux);
	printf("rdtsc %llu\n", a);
	printf("rdtsc %llu\n", b);
	printf("rdtscp %llu aux %u\n", c, aux);
	return 0;
}
