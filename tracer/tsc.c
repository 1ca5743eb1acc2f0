/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdtsc and rdtscp emulation, two ways.
 *
 * Where the CPU honours CR4.TSD, prctl(PR_SET_TSC, PR_TSC_SIGSEGV) makes
 * both instructions raise a general protection fault, delivered as
 * SIGSEGV with rip on the instruction (arch/x86/kernel/traps.c). Some
 * hypervisors ignore the guest's CR4.TSD (seen: PVM under Firecracker),
 * and rdtsc then runs unhindered; tracer_tsc_traps() probes for that once.
 * There, the rdtsc and rdtscp instructions of each new program image are
 * found with the instruction map (dwarf/, kept across runs in the cache
 * folder: dwarf/insncache.c) and overwritten with int3 and nops; the
 * SIGTRAP that follows names the site.
 *
 * Either way the tracer writes edx:eax (and ecx for rdtscp), moves rip
 * past the instruction and suppresses the signal.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

#include "common/common.h"
#include "dwarf/dwarf.h"
#include "tracer.h"

/* A patched site: the run-time address of an int3 that was an rdtsc(p). */
struct site {
	uint64_t addr;
	unsigned length;
};

/* Sites of one executable file, by link-time address, kept for the run. */
struct image {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	struct site *sites;
	size_t nsites;
	struct image *next;
};

static struct image *images;
static struct site *patched; /* run-time addresses, unsorted */
static size_t npatched, cap_patched;

int tracer_tsc_traps(void)
{
	static int answer = -1;
	pid_t pid;
	int status;

	if (answer >= 0)
		return answer;
	pid = fork();
	if (pid < 0)
		return answer = 0;
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) < 0)
			_exit(2);
		(void)__rdtsc();
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	answer = WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
	return answer;
}

static int add_site(const struct dw_insn *insn, void *arg)
{
	struct image *img = arg;

	if (insn->kind != DW_INSN_RDTSC && insn->kind != DW_INSN_RDTSCP)
		return 0;
	img->sites = xrealloc(img->sites, (img->nsites + 1) * sizeof(*img->sites));
	img->sites[img->nsites].addr = insn->vaddr;
	img->sites[img->nsites].length = insn->length;
	img->nsites++;
	return 0;
}

static struct image *image_for(const char *path, const struct stat *st)
{
	struct image *img;
	int n, hit = 0;

	for (img = images; img; img = img->next) {
		if (img->dev == st->st_dev && img->ino == st->st_ino &&
		    img->mtime.tv_sec == st->st_mtim.tv_sec &&
		    img->mtime.tv_nsec == st->st_mtim.tv_nsec)
			return img;
	}
	img = xcalloc(1, sizeof(*img));
	img->dev = st->st_dev;
	img->ino = st->st_ino;
	img->mtime = st->st_mtim;
	n = dw_insn_scan_cached(dw_cache_dir(), path, add_site, img, &hit);
	if (n < 0)
		hm_debug("cannot decode '%s': %s", path, hm_strerror(n));
	else
		hm_debug("'%s': %zu rdtsc sites, %s", path, img->nsites,
			 hit ? "read from the cache" : "decoded");
	img->next = images;
	images = img;
	return img;
}

int tracer_patch_tsc(pid_t tid)
{
	char exe[64];
	struct stat st;
	struct image *img;
	uint64_t bias = 0;
	int err;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", tid);
	if (stat(exe, &st) < 0)
		return -errno;
	img = image_for(exe, &st);
	if (img->nsites == 0)
		return 0;
	err = tracer_exe_bias(tid, &bias);
	if (err)
		return err;
	for (size_t i = 0; i < img->nsites; i++) {
		unsigned char trap[3] = { 0xcc, 0x90, 0x90 };
		uint64_t addr = img->sites[i].addr + bias;

		err = tracer_poke_mem(tid, addr, trap, img->sites[i].length);
		if (err)
			return err;
		if (npatched == cap_patched) {
			cap_patched = cap_patched ? cap_patched * 2 : 16;
			patched = xrealloc(patched, cap_patched * sizeof(*patched));
		}
		patched[npatched].addr = addr;
		patched[npatched].length = img->sites[i].length;
		npatched++;
	}
	hm_debug("process %d: %zu rdtsc sites patched", tid, img->nsites);
	return 0;
}

static int set_result(pid_t tid, struct user_regs_struct *regs, uint64_t rip, unsigned len,
		      uint64_t tsc, uint32_t tsc_aux)
{
	if (len == 3)
		regs->rcx = tsc_aux;
	regs->rax = tsc & 0xffffffffu;
	regs->rdx = tsc >> 32;
	regs->rip = rip + len;
	return tracer_set_regs(tid, regs) == 0 ? 1 : 0;
}

/* Where TID's stop for SIG is an rdtsc or rdtscp (a patched site or the
 * fault itself): its address and length; 0 when it is not one. */
static int tsc_site(pid_t tid, int sig, const struct user_regs_struct *regs, uint64_t *at,
		    unsigned *len)
{
	unsigned char insn[3];

	if (sig == SIGTRAP) {
		/* int3 leaves rip after itself. */
		for (size_t i = 0; i < npatched; i++) {
			if (patched[i].addr == regs->rip - 1 &&
			    tracer_read_mem(tid, regs->rip - 1, insn, 2) == 0 && insn[0] == 0xcc &&
			    insn[1] == 0x90) {
				*at = regs->rip - 1;
				*len = patched[i].length;
				return 1;
			}
		}
		return 0;
	}
	if (sig != SIGSEGV || tracer_read_mem(tid, regs->rip, insn, sizeof(insn)) < 0)
		return 0;
	*at = regs->rip;
	if (insn[0] == 0x0f && insn[1] == 0x31)
		*len = 2;
	else if (insn[0] == 0x0f && insn[1] == 0x01 && insn[2] == 0xf9)
		*len = 3;
	else
		return 0;
	return 1;
}

int tracer_tsc_fault(pid_t tid, int sig)
{
	struct user_regs_struct regs;
	siginfo_t si;
	uint64_t at;
	unsigned len;

	if (tracer_get_regs(tid, &regs) < 0 || !tsc_site(tid, sig, &regs, &at, &len))
		return 0;
	if (sig == SIGSEGV)
		return 1; /* the fault itself, as the kernel made it */
	/* The general protection fault a TSD rdtsc raises: SIGSEGV, SI_KERNEL,
	 * no address, rip on the instruction (arch/x86/kernel/traps.c:
	 * gp_user_force_sig_segv). */
	regs.rip = at;
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGSEGV;
	si.si_code = SI_KERNEL;
	if (tracer_set_regs(tid, &regs) < 0 || ptrace(PTRACE_SETSIGINFO, tid, 0, &si) < 0)
		return 0;
	return 1;
}

int tracer_emulate_tsc(pid_t tid, int sig, uint64_t tsc, uint32_t tsc_aux)
{
	struct user_regs_struct regs;
	uint64_t at;
	unsigned len;

	if (tracer_get_regs(tid, &regs) < 0 || !tsc_site(tid, sig, &regs, &at, &len))
		return 0;
	return set_result(tid, &regs, at, len, tsc, tsc_aux);
}

void tracer_tsc_free(void)
{
	while (images) {
		struct image *next = images->next;

		free(images->sites);
		free(images);
		images = next;
	}
	free(patched);
	patched = NULL;
	npatched = cap_patched = 0;
}
