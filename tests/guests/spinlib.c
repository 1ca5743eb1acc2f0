/* SPDX-License-Identifier: BSD-3-Clause */
/* The loop of tests/guests/libspin.c, in a shared library it dlopens:
 * code mapped after exec is counted too. */
void spin_add(volatile long *counter, long n);

void spin_add(volatile long *counter, long n)
{
	for (long i = 0; i < n; i++) {
		long v = *counter;

		*counter = v + 1;
	}
}
