/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: what tells a program which CPU it runs on, from the main thread,
 * from a thread that asks to move to CPU 2 and from a forked child.
 *
 * "host" lines show the CPU itself, which hermit cannot virtualize: the
 * CPUs the kernel lets the task run on (/proc/.../status), the limit of
 * the kernel's per-CPU segment (lsl, cpu | node << 12: the vDSO's getcpu
 * fallback), CPUID's initial APIC id and rdpid's TSC_AUX. Under hermit
 * they must be those of one fixed CPU, however the guest sets its
 * affinity. "virt" lines are what hermit answers: getcpu, sched_getcpu
 * (the vDSO's getcpu), rdtscp's TSC_AUX and the affinity mask.
 *
 * With the argument "native" the thread does not call sched_setaffinity
 * (natively it would move), so that a native run pinned with taskset
 * gives the "host" lines hermit's run must give.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

static int native;

static void allowed(const char *who)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/status", (long)syscall(SYS_gettid));
	f = fopen(path, "re");
	if (!f) {
		perror(path);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Cpus_allowed_list:", 18) == 0)
			printf("host %s allowed %s", who, line + 18 + strspn(line + 18, " \t"));
	}
	fclose(f);
}

static void report(const char *who)
{
	unsigned a, b, c, d, seg = 0xffffffffu, aux = 99, cpu = 99, node = 99;
	cpu_set_t set;
	char list[64] = "";

	allowed(who);
	/* The segment selector __CPUNODE_SEG: GDT entry 15, RPL 3. */
	__asm__ volatile("lsl %1, %0" : "+r"(seg) : "r"(15 * 8 + 3) : "cc");
	printf("host %s lsl %u\n", who, seg == 0xffffffffu ? seg : seg & 0xfff);
	__cpuid(1, a, b, c, d);
	printf("host %s apic %u\n", who, b >> 24);
	__cpuid_count(7, 0, a, b, c, d);
	if (c & (1u << 22)) {
		unsigned long long p;

		__asm__ volatile("rdpid %0" : "=r"(p));
		printf("host %s rdpid %llu\n", who, p & 0xfff);
	}
	if (native)
		return;
	if (syscall(SYS_getcpu, &cpu, &node, NULL) != 0)
		perror("getcpu");
	printf("virt %s getcpu %u node %u\n", who, cpu, node);
	printf("virt %s sched_getcpu %d\n", who, sched_getcpu());
	(void)__rdtscp(&aux);
	printf("virt %s rdtscp_aux %u\n", who, aux);
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		perror("sched_getaffinity");
	for (int i = 0; i < CPU_SETSIZE; i++) {
		if (CPU_ISSET(i, &set))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d",
				 *list ? "," : "", i);
	}
	printf("virt %s affinity %s\n", who, list);
	fflush(stdout);
}

static void *thread(void *arg)
{
	cpu_set_t set;

	(void)arg;
	if (!native) {
		CPU_ZERO(&set);
		CPU_SET(2, &set);
		if (sched_setaffinity(0, sizeof(set), &set) != 0)
			perror("sched_setaffinity");
	}
	report("thread");
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	pid_t pid;
	int status;

	native = argc > 1 && strcmp(argv[1], "native") == 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	report("main");
	if (pthread_create(&th, NULL, thread, NULL) != 0 || pthread_join(th, NULL) != 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		report("child");
		return 0;
	}
	if (waitpid(pid, &status, 0) != pid || status != 0)
		return 1;
	return 0;
}
