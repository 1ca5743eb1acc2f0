/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual time passes with ticks: a single-threaded busy loop with no
 * syscalls gets its SIGALRM (alarm(1)), and its handler runs while the
 * thread is inside a patched loop; the loop's progress at that moment is
 * printed, which is the same on every run and replay.
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t fired;
static volatile unsigned long spins, at_signal;

static void on_alarm(int sig)
{
	(void)sig;
	at_signal = spins;
	fired = 1;
}

int main(void)
{
	signal(SIGALRM, on_alarm);
	alarm(1);
	while (!fired)
		spins++;
	printf("alarm after %lu spins\n", at_signal);
	return 0;
}
