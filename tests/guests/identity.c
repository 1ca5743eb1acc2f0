/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: what the program can learn about the machine through syscalls:
 * uname, the host name, sysinfo, the CPU affinity mask and the CPU it runs
 * on (through glibc and through the raw syscall). Values read from /sys (get_nprocs_conf and the like) describe the
 * host and are deliberately not printed.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

int main(void)
{
	struct utsname u;
	struct sysinfo si;
	char host[256];
	cpu_set_t set;
	unsigned cpu = 99;

	if (uname(&u) != 0) {
		perror("uname");
		return 1;
	}
	printf("sysname %s\n", u.sysname);
	printf("nodename %s\n", u.nodename);
	printf("release %s\n", u.release);
	printf("version %s\n", u.version);
	printf("machine %s\n", u.machine);
	if (gethostname(host, sizeof(host)) != 0) {
		perror("gethostname");
		return 1;
	}
	printf("hostname %s\n", host);
	if (sysinfo(&si) != 0) {
		perror("sysinfo");
		return 1;
	}
	printf("uptime %ld\n", si.uptime);
	printf("totalram %llu\n", (unsigned long long)si.totalram * si.mem_unit);
	printf("procs %u\n", (unsigned)si.procs);
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		perror("sched_getaffinity");
		return 1;
	}
	printf("affinity_cpus %d\n", CPU_COUNT(&set));
	/* glibc 2.35 and later answer sched_getcpu() from the rseq area the
	 * kernel keeps up to date, without a syscall; ask the kernel too. */
	printf("cpu %d\n", sched_getcpu());
	if (syscall(SYS_getcpu, &cpu, NULL, NULL) != 0) {
		perror("getcpu");
		return 1;
	}
	printf("getcpu_syscall %u\n", cpu);
	return 0;
}
