/* SPDX-License-Identifier: BSD-3-Clause */
/* A child computes while its parent waits for it (parked: no other task can
 * run), and maps anonymous memory between two long loops: a recording stops
 * at that mmap (to keep mapped files), a replay does not. With the argument
 * `exec`, an execve that fails (ENOENT, as in a shell's search of its PATH)
 * in place of each mmap: a recording stops there too, a replay does not.
 * With `mapexec`, no child: a short loop after a syscall, an mmap, another
 * short loop, and an exec of itself (`mapexec done`, which prints): what a
 * run counts after its last stop before an exec is lost at the exec, and
 * the recording's stop at the mmap must not keep the first loop's ticks. */
#include <fcntl.h>
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

/* `mapexec` (the top of this file). */
static int map_then_exec(char **argv)
{
	static char mapexec[] = "mapexec", done[] = "done";
	char *again[] = { argv[0], mapexec, done, NULL };
	unsigned long x;
	char *m;

	if (argv[2] && strcmp(argv[2], "done") == 0) {
		printf("%lx\n", spin(1000, 7));
		return 0;
	}
	close(open("/dev/null", O_RDONLY)); /* a stop in every run */
	x = spin(1000, 1);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	m[0] = (char)x;
	x = spin(1000, x + (unsigned char)m[0]);
	execv("/proc/self/exe", again);
	return (int)(x & 1) + 1;
}

int main(int argc, char **argv)
{
	int exec = argc > 1 && strcmp(argv[1], "exec") == 0;
	pid_t p;
	int st;

	if (argc > 1 && strcmp(argv[1], "mapexec") == 0)
		return map_then_exec(argv);
	p = fork();
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
