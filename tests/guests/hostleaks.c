/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Calls that told the guest about the host (issue 14, "Leaks of the
 * host"), one mode each. What each prints must be the same in every run
 * and in a replay, and agree with the rest of hermit's virtual world:
 *
 *   adjtimex     adjtimex and clock_adjtime read the virtual clock (the
 *                time between two gettimeofday calls); setting fails
 *   tsc          PR_GET_TSC says what the guest set with PR_SET_TSC, and
 *                rdtsc faults only where the guest asked for that
 *   seccomp      PR_GET_SECCOMP is 0 until the guest installs a filter,
 *                then 2, in a child too
 *   rusage       getrusage and wait4's rusage of a child
 *   statfs F     statfs and fstatfs of F: counts that do not move when a
 *                file is written, and an fsid of hermit's
 *   getversion F FS_IOC_GETVERSION (the inode generation) of a new file F
 *   sigmask      blocks SIGUSR1, SIGTRAP and SIGSEGV, runs a loop and an
 *                rdtsc (where hermit's traps are), execs itself and prints
 *                the mask the new program starts with
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static long long usec(const struct timeval *tv)
{
	return (long long)tv->tv_sec * 1000000 + tv->tv_usec;
}

static int do_adjtimex(void)
{
	struct timeval before, after;
	struct timex tx;
	long long d;
	int ret;

	gettimeofday(&before, NULL);
	memset(&tx, 0, sizeof(tx));
	ret = adjtimex(&tx);
	gettimeofday(&after, NULL);
	printf("adjtimex: %d, time %lld.%06ld, offset %ld, freq %ld, status %#x\n", ret,
	       (long long)tx.time.tv_sec, (long)tx.time.tv_usec, tx.offset, tx.freq, tx.status);
	printf("adjtimex: between two gettimeofday calls: %s\n",
	       usec(&before) <= usec(&tx.time) && usec(&tx.time) <= usec(&after) ? "yes" : "no");
	memset(&tx, 0, sizeof(tx));
	ret = clock_adjtime(CLOCK_REALTIME, &tx);
	gettimeofday(&after, NULL);
	/* With the fast path off, one intercepted call (the gettimeofday,
	 * 10 us) apart; on (docs/fastpath.md), the gettimeofday is read in
	 * the guest, from the clock clock_adjtime's stop published plus the
	 * few ticks in between: 0 us apart. Both times are cut to whole
	 * microseconds, and the virtual clock's nanoseconds there depend on
	 * every tick since the start (the length of the program's path and
	 * environment, say), so the difference of the two cuts may be one
	 * more: 11 or 1. */
	d = usec(&after) - usec(&tx.time);
	printf("clock_adjtime(CLOCK_REALTIME): %d, %lld us before the next gettimeofday\n", ret,
	       d == 11 || d == 1 ? d - 1 : d);
	ret = clock_adjtime(CLOCK_MONOTONIC, &tx);
	printf("clock_adjtime(CLOCK_MONOTONIC): %s\n", ret < 0 ? strerror(errno) : "ok");
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_FREQUENCY;
	ret = adjtimex(&tx);
	printf("adjtimex(ADJ_FREQUENCY): %s\n", ret < 0 ? strerror(errno) : "ok");
	return 0;
}

static sigjmp_buf faulted;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(faulted, 1);
}

static void show_tsc(void)
{
	int mode = -1;

	if (prctl(PR_GET_TSC, &mode, 0, 0, 0) < 0)
		printf("PR_GET_TSC: %s\n", strerror(errno));
	else
		printf("PR_GET_TSC: %s\n", mode == PR_TSC_ENABLE    ? "PR_TSC_ENABLE"
					   : mode == PR_TSC_SIGSEGV ? "PR_TSC_SIGSEGV"
								    : "?");
}

static void try_rdtsc(void)
{
	volatile unsigned long long tsc;

	if (sigsetjmp(faulted, 1) == 0) {
		tsc = __rdtsc();
		(void)tsc;
		printf("rdtsc: ran\n");
	} else {
		printf("rdtsc: SIGSEGV\n");
	}
}

static int do_tsc(void)
{
	signal(SIGSEGV, on_segv);
	show_tsc();
	try_rdtsc();
	printf("PR_SET_TSC(PR_TSC_SIGSEGV): %d\n", prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0));
	show_tsc();
	try_rdtsc();
	printf("PR_SET_TSC(PR_TSC_ENABLE): %d\n", prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0));
	show_tsc();
	try_rdtsc();
	printf("PR_SET_TSC(7): %s\n", prctl(PR_SET_TSC, 7, 0, 0, 0) < 0 ? strerror(errno) : "ok");
	return 0;
}

static int do_seccomp(void)
{
	struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
	struct sock_fprog prog = { 1, allow };
	int status;
	pid_t pid;

	printf("PR_GET_SECCOMP: %d\n", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
		printf("PR_SET_SECCOMP: %s\n", strerror(errno));
		return 1;
	}
	printf("PR_GET_SECCOMP after a filter: %d\n", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		printf("PR_GET_SECCOMP in a child: %d\n", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return 0;
}

static void show_rusage(const char *what, const struct rusage *ru)
{
	printf("%s: utime %ld.%06ld stime %ld.%06ld maxrss %ld minflt %ld majflt %ld "
	       "nvcsw %ld nivcsw %ld inblock %ld oublock %ld\n",
	       what, (long)ru->ru_utime.tv_sec, (long)ru->ru_utime.tv_usec,
	       (long)ru->ru_stime.tv_sec, (long)ru->ru_stime.tv_usec, ru->ru_maxrss, ru->ru_minflt,
	       ru->ru_majflt, ru->ru_nvcsw, ru->ru_nivcsw, ru->ru_inblock, ru->ru_oublock);
}

static int do_rusage(void)
{
	struct rusage ru;
	int status;
	pid_t pid;

	getrusage(RUSAGE_SELF, &ru);
	show_rusage("RUSAGE_SELF", &ru);
	getrusage(RUSAGE_THREAD, &ru);
	show_rusage("RUSAGE_THREAD", &ru);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* touch some memory: natively that moves maxrss and minflt */
		char *p = malloc(1 << 22);

		memset(p, 1, 1 << 22);
		_exit(p[4096] == 1 ? 0 : 1);
	}
	memset(&ru, 0xff, sizeof(ru));
	if (wait4(pid, &status, 0, &ru) != pid)
		printf("wait4: %s\n", strerror(errno));
	show_rusage("wait4", &ru);
	getrusage(RUSAGE_CHILDREN, &ru);
	show_rusage("RUSAGE_CHILDREN", &ru);
	return 0;
}

static void show_statfs(const char *what, const struct statfs *sf)
{
	printf("%s: bfree %s, bavail %s, ffree %s, fsid %d %d\n", what,
	       sf->f_bfree * 2 == sf->f_blocks - sf->f_blocks % 2 ? "half of blocks" : "other",
	       sf->f_bavail == sf->f_bfree ? "bfree" : "other",
	       sf->f_ffree * 2 == sf->f_files - sf->f_files % 2 ? "half of files" : "other",
	       sf->f_fsid.__val[0], sf->f_fsid.__val[1]);
}

static int do_statfs(const char *path)
{
	struct statfs a, b, c;
	char name[4096], buf[65536];
	int fd;

	if (statfs(path, &a) < 0) {
		printf("statfs: %s\n", strerror(errno));
		return 1;
	}
	show_statfs("statfs", &a);
	/* a file written in between moves the free counts natively */
	snprintf(name, sizeof(name), "%s/statfs.tmp", path);
	fd = open(name, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; fd >= 0 && i < 64; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			break;
	if (fd >= 0)
		fsync(fd);
	if (fd < 0 || fstatfs(fd, &b) < 0) {
		printf("fstatfs: %s\n", strerror(errno));
		return 1;
	}
	show_statfs("fstatfs", &b);
	close(fd);
	unlink(name);
	statfs("/proc", &c);
	show_statfs("statfs(/proc)", &c);
	printf("statfs and fstatfs agree: %s\n", memcmp(&a, &b, sizeof(a)) == 0 ? "yes" : "no");
	return 0;
}

static int do_getversion(const char *path)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644), gen = -1;

	if (fd < 0 || ioctl(fd, FS_IOC_GETVERSION, &gen) < 0) {
		printf("FS_IOC_GETVERSION: %s\n", strerror(errno));
		return 1;
	}
	printf("FS_IOC_GETVERSION: %d\n", gen);
	close(fd);
	unlink(path);
	return 0;
}

static int do_sigmask(const char *self)
{
	sigset_t set;
	volatile unsigned long long sum = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTRAP);
	sigaddset(&set, SIGSEGV);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (int i = 0; i < 200000; i++)
		sum += (unsigned)i * 3;
	sum += __rdtsc();
	fflush(stdout);
	execl(self, self, "sigmask-after", (char *)NULL);
	printf("execl: %s\n", strerror(errno));
	return 1;
}

static int do_sigmask_after(void)
{
	static const int sigs[] = { SIGUSR1, SIGTRAP, SIGSEGV };
	sigset_t set;

	sigprocmask(SIG_BLOCK, NULL, &set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		printf("after exec: %s %s\n", strsignal(sigs[i]),
		       sigismember(&set, sigs[i]) ? "blocked" : "not blocked");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (strcmp(mode, "adjtimex") == 0)
		return do_adjtimex();
	if (strcmp(mode, "tsc") == 0)
		return do_tsc();
	if (strcmp(mode, "seccomp") == 0)
		return do_seccomp();
	if (strcmp(mode, "rusage") == 0)
		return do_rusage();
	if (strcmp(mode, "statfs") == 0 && argc > 2)
		return do_statfs(argv[2]);
	if (strcmp(mode, "getversion") == 0 && argc > 2)
		return do_getversion(argv[2]);
	if (strcmp(mode, "sigmask") == 0)
		return do_sigmask(argv[0]);
	if (strcmp(mode, "sigmask-after") == 0)
		return do_sigmask_after();
	fprintf(stderr, "usage: hostleaks adjtimex|tsc|seccomp|rusage|statfs DIR|getversion FILE|"
			"sigmask\n");
	return 2;
}
