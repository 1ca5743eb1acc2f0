/* SPDX-License-Identifier: BSD-3-Clause */
/* A child computes while its parent waits for it (parked: no other task can
 * run), and maps anonymous memory between two long loops: a recording stops
 * at that mmap (to keep mapped files), a replay does not. With the argument
 * `exec`, an execve that fails (ENOENT, as in a shell's search of its PATH)
 * in place of each mmap: a recording stops there too, a replay does not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long spin(unsigned long n, unsigned long x)
{
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + i;
	return x;
}

int main(int argc, char **argv)
{
	int exec = argc > 1 && strcmp(argv[1], "exec") == 0;
	pid_t p = fork();
	int st;

	if (p == 0) {
		unsigned long x = spin(3000000, 1);
		for (int k = 0; k < 4; k++) {
			static char one[1];
			char *none[] = { NULL };
			char *m = one;

			if (exec)
				execve("/nonexistent/hermit-mmapslice", none, none);
			else
				m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m == MAP_FAILED)
				return 1;
			m[0] = (char)x;
			x = spin(3000000, x + (unsigned char)m[0]);
		}
		printf("%lx\n", x);
		return 0;
	}
	if (waitpid(p, &st, 0) != p)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
