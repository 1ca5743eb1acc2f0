/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "sites" tick source (DESIGN.md "Preemption"): breakpoints (int3) at
 * instruction starts of each process's executable, chosen by dwarf/sites.c.
 * A hit is a tick. To go on, the original byte is put back, the
 * instruction is single-stepped, and the breakpoint goes back in, unless
 * the site has used up its budget of hits: then it stays out, so a hot loop
 * pays for its first hits only. A process also has a budget for all its
 * sites together, after which they all go out. Nothing else runs meanwhile (one guest
 * thread at a time), so no other thread can slip past a site while its
 * byte is restored. A preemption at a site is named by (thread, site, hit
 * count), which is the same on every run.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/common.h"
#include "dwarf/dwarf.h"
#include "tracer.h"

struct site {
	uint64_t addr;	    /* run-time address */
	uint32_t hits_left; /* 0: the breakpoint is out for good */
	uint8_t orig;	    /* the byte under the int3 */
};

struct proc {
	pid_t tgid;
	struct site *sites; /* sorted by address */
	size_t n;
	uint64_t total_left; /* hits left for the whole process; then all go out */
	int mem;	     /* /proc/pid/mem, open while the image lives */
	struct proc *next;
};

/* Link-time sites of one image, for a seed and density: computed once. */
struct image {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	uint64_t seed;
	unsigned density;
	uint64_t *addrs;
	size_t n;
	struct image *next;
};

static struct proc *procs;
static struct image *images;

static struct proc *proc_find(pid_t tgid)
{
	for (struct proc *p = procs; p; p = p->next) {
		if (p->tgid == tgid)
			return p;
	}
	return NULL;
}

static void proc_free(struct proc *p)
{
	if (p->mem >= 0)
		close(p->mem);
	free(p->sites);
	free(p);
}

void tracer_sites_drop(pid_t tgid)
{
	for (struct proc **pp = &procs; *pp; pp = &(*pp)->next) {
		if ((*pp)->tgid == tgid) {
			struct proc *p = *pp;

			*pp = p->next;
			proc_free(p);
			return;
		}
	}
}

static int add_addr(const struct dw_site *site, void *arg)
{
	struct image *img = arg;

	img->addrs = xrealloc(img->addrs, (img->n + 1) * sizeof(*img->addrs));
	img->addrs[img->n++] = site->vaddr;
	return 0;
}

static struct image *image_for(const char *exe, const struct stat *st, uint64_t seed,
			       unsigned density, size_t max)
{
	struct image *img;
	int n;

	for (img = images; img; img = img->next) {
		if (img->dev == st->st_dev && img->ino == st->st_ino &&
		    img->mtime.tv_sec == st->st_mtim.tv_sec &&
		    img->mtime.tv_nsec == st->st_mtim.tv_nsec && img->seed == seed &&
		    img->density == density)
			return img;
	}
	img = xcalloc(1, sizeof(*img));
	img->dev = st->st_dev;
	img->ino = st->st_ino;
	img->mtime = st->st_mtim;
	img->seed = seed;
	img->density = density;
	n = dw_sites(exe, seed, density, max, add_addr, img);
	if (n < 0)
		hm_debug("no preemption sites in '%s': %s", exe, hm_strerror(n));
	img->next = images;
	images = img;
	return img;
}

static int by_addr(const void *a, const void *b)
{
	uint64_t x = ((const struct site *)a)->addr, y = ((const struct site *)b)->addr;

	return x < y ? -1 : x > y;
}

static int poke(struct proc *p, uint64_t addr, uint8_t byte)
{
	return pwrite(p->mem, &byte, 1, (off_t)addr) == 1 ? 0 : -errno;
}

/* Write int3 (ARM) or the original bytes over every live site, a page
 * at a time: one read and one write per page instead of one per site. */
static void write_sites(struct proc *p, int arm)
{
	unsigned char page[4096];
	size_t i = 0;

	while (i < p->n) {
		uint64_t base = p->sites[i].addr & ~(uint64_t)4095;
		size_t j = i;

		if (pread(p->mem, page, sizeof(page), (off_t)base) != (ssize_t)sizeof(page)) {
			while (i < p->n && (p->sites[i].addr & ~(uint64_t)4095) == base)
				i++;
			continue;
		}
		for (; j < p->n && (p->sites[j].addr & ~(uint64_t)4095) == base; j++) {
			if (p->sites[j].hits_left)
				page[p->sites[j].addr - base] = arm ? 0xcc : p->sites[j].orig;
		}
		if (pwrite(p->mem, page, sizeof(page), (off_t)base) != (ssize_t)sizeof(page))
			hm_debug("cannot write preemption sites of process %d", p->tgid);
		i = j;
	}
}

int tracer_sites_rename(pid_t from, pid_t to)
{
	struct proc *p = proc_find(from);
	char path[64];
	int fd;

	if (!p)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/mem", to);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (p->mem >= 0)
		close(p->mem);
	p->mem = fd;
	p->tgid = to;
	return 0;
}

int tracer_sites_armed(pid_t tgid)
{
	return proc_find(tgid) != NULL;
}

int tracer_sites_exec(pid_t tid, pid_t tgid, uint64_t seed, unsigned density, uint32_t budget,
		      uint64_t total, size_t max)
{
	char exe[64], path[64];
	struct stat st;
	struct image *img;
	struct proc *p;
	uint64_t bias;
	size_t k = 0;
	int err;

	tracer_sites_drop(tgid);
	snprintf(exe, sizeof(exe), "/proc/%d/exe", tid);
	if (stat(exe, &st) < 0)
		return -errno;
	img = image_for(exe, &st, seed, density, max);
	if (!img->n)
		return 0;
	err = tracer_exe_bias(tid, &bias);
	if (err)
		return err;
	p = xcalloc(1, sizeof(*p));
	p->tgid = tgid;
	p->total_left = total;
	snprintf(path, sizeof(path), "/proc/%d/mem", tid);
	p->mem = open(path, O_RDWR | O_CLOEXEC);
	if (p->mem < 0) {
		err = -errno;
		free(p);
		return err;
	}
	p->sites = xcalloc(img->n, sizeof(*p->sites));
	for (size_t i = 0; i < img->n; i++) {
		p->sites[k].addr = img->addrs[i] + bias;
		p->sites[k].hits_left = budget;
		k++;
	}
	p->n = k;
	qsort(p->sites, p->n, sizeof(*p->sites), by_addr);
	/* Read the original bytes a page at a time, then arm. */
	for (size_t i = 0; i < p->n;) {
		unsigned char page[4096];
		uint64_t base = p->sites[i].addr & ~(uint64_t)4095;
		int ok = pread(p->mem, page, sizeof(page), (off_t)base) == (ssize_t)sizeof(page);

		for (; i < p->n && (p->sites[i].addr & ~(uint64_t)4095) == base; i++) {
			p->sites[i].orig = ok ? page[p->sites[i].addr - base] : 0;
			if (!ok || p->sites[i].orig == 0xcc)
				p->sites[i].hits_left = 0;
		}
	}
	write_sites(p, 1);
	p->next = procs;
	procs = p;
	hm_debug("process %d: %zu preemption sites", tgid, p->n);
	return (int)p->n;
}

int tracer_sites_fork(pid_t parent, pid_t child, pid_t child_tid, int keep)
{
	struct proc *pp = proc_find(parent), *c;
	char path[64];

	tracer_sites_drop(child);
	if (!pp)
		return 0;
	c = xcalloc(1, sizeof(*c));
	c->tgid = child;
	snprintf(path, sizeof(path), "/proc/%d/mem", child_tid);
	c->mem = open(path, O_RDWR | O_CLOEXEC);
	if (c->mem < 0) {
		int err = -errno;

		free(c);
		return err;
	}
	c->sites = xmalloc((pp->n ? pp->n : 1) * sizeof(*c->sites));
	memcpy(c->sites, pp->sites, pp->n * sizeof(*c->sites));
	c->n = pp->n;
	c->total_left = pp->total_left;
	if (!keep) {
		/* The child's copy of the code has the breakpoints: take them out. */
		write_sites(c, 0);
		proc_free(c);
		return 0;
	}
	c->next = procs;
	procs = c;
	return 0;
}

int tracer_singlestep(pid_t tid)
{
	int deferred[8], ndeferred = 0, err, fault = 0;
	struct tracer_stop s;

	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, tid, 0, 0) < 0)
			return -errno;
		err = tracer_wait_tid(tid, &s);
		if (err)
			return err;
		if (s.kind == TRACER_EXITED || s.kind == TRACER_KILLED)
			return -ESRCH;
		if (s.kind == TRACER_SIGNAL && s.sig == SIGTRAP)
			break;
		if (s.kind == TRACER_SIGNAL) {
			siginfo_t si;

			if ((s.sig == SIGSEGV || s.sig == SIGBUS || s.sig == SIGFPE ||
			     s.sig == SIGILL) &&
			    tracer_siginfo(tid, &si) == 0 && si.si_code > 0) {
				fault = s.sig;
				break;
			}
			if (ndeferred < 8)
				deferred[ndeferred++] = s.sig;
		}
	}
	for (int i = 0; i < ndeferred; i++)
		syscall(SYS_tkill, tid, deferred[i]);
	return fault;
}

int tracer_sites_live(pid_t tgid, uint64_t addr)
{
	struct proc *p = proc_find(tgid);
	struct site key, *s;

	if (!p)
		return 0;
	key.addr = addr;
	s = bsearch(&key, p->sites, p->n, sizeof(*p->sites), by_addr);
	return s && s->hits_left;
}

void tracer_sites_hide(pid_t tgid, uint64_t addr, uint8_t *buf, size_t len)
{
	struct proc *p = proc_find(tgid);

	for (size_t i = 0; p && i < p->n; i++) {
		if (p->sites[i].hits_left && p->sites[i].addr >= addr &&
		    p->sites[i].addr - addr < len)
			buf[p->sites[i].addr - addr] = p->sites[i].orig;
	}
}

int tracer_sites_hit(pid_t tid, pid_t tgid, uint64_t *site)
{
	struct proc *p = proc_find(tgid);
	struct user_regs_struct regs;
	struct site key, *s;
	int err;

	if (!p || tracer_get_regs(tid, &regs) < 0)
		return 0;
	key.addr = regs.rip - 1; /* int3 leaves rip after itself */
	s = bsearch(&key, p->sites, p->n, sizeof(*p->sites), by_addr);
	if (!s || !s->hits_left)
		return 0;
	*site = s->addr;
	regs.rip = s->addr;
	err = tracer_set_regs(tid, &regs);
	if (!err)
		err = poke(p, s->addr, s->orig);
	if (!err)
		err = tracer_singlestep(tid);
	if (err < 0)
		return err;
	if (err > 0) {
		/* The instruction faulted: the guest gets the signal, with the
		 * breakpoint back in place for when (if) it comes back here. */
		poke(p, s->addr, 0xcc);
		*site = (uint64_t)err;
		return 2;
	}
	if (--s->hits_left)
		poke(p, s->addr, 0xcc);
	if (p->total_left && --p->total_left == 0) {
		/* The process has had its share: all breakpoints out. */
		write_sites(p, 0);
		for (size_t i = 0; i < p->n; i++)
			p->sites[i].hits_left = 0;
	}
	return 1;
}

void tracer_sites_free(void)
{
	while (procs) {
		struct proc *next = procs->next;

		proc_free(procs);
		procs = next;
	}
	while (images) {
		struct image *next = images->next;

		free(images->addrs);
		free(images);
		images = next;
	}
}
