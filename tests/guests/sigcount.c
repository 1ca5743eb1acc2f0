/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Signals from outside while the thread is inside patched loops: two busy
 * loops without syscalls, one whose count is the trampoline's long form
 * (the flags its branch reads are set before what the jump takes along)
 * and one the short form's (`sub; jnz`), while tests/integration/ticks.sh
 * sends SIGUSR1 from outside every few milliseconds. Each signal stops
 * the thread wherever it is, inside a count too; the handler runs at the
 * next syscall. Prints the loops' results and how many signals came.
 * argv: the loops' turns, and a file made once the handler is in place
 * (before it, a SIGUSR1 would kill the program).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000000UL;
	unsigned long x = 1, y = 1, k = n, m = 6364136223846793005UL;

	signal(SIGUSR1, on_usr1);
	if (argc > 2)
		close(open(argv[2], O_WRONLY | O_CREAT, 0644));
	/* lea between the sub and the jnz: the flags are live at the jump's
	 * first byte, so its count saves %rcx on the stack (the long form). */
	__asm__ volatile("1: imul %2,%0\n\tadd $1,%0\n\tsub $1,%1\n\t"
			 "lea 0x0(%0),%0\n\tjnz 1b\n"
			 : "+r"(x), "+r"(k)
			 : "r"(m)
			 : "cc");
	k = n;
	__asm__ volatile("1: imul %2,%0\n\tadd $3,%0\n\tsub $1,%1\n\tjnz 1b\n"
			 : "+r"(y), "+r"(k)
			 : "r"(m)
			 : "cc");
	printf("%lx %lx\n", x, y);
	fflush(stdout);
	printf("signals: %d\n", (int)got);
	return 0;
}
