/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "sites" tick source (DESIGN.md "Progress without a PMU"): counted
 * ticks in the guest.
 *
 * Every guest process gets the Hermit page at TRACER_HPAGE, whose first
 * word is the running thread's tick budget. Each executable mapping of a
 * file (the program and its interpreter at exec, each library as it is
 * mapped) is patched from dwarf/patch.c's plan: a site jumps to a
 * trampoline, mapped nearby, that counts the budget down and traps when
 * it is spent; a site no jump can take is an int3 counted here. The
 * patches live in the guest's memory only (written through /proc/pid/mem,
 * which copies the pages), and a fork inherits them with the page.
 *
 * The plan of a file is looked up once per run (keyed by device, inode
 * and mtime); the patched bytes of a mapping once per address (no ASLR, so
 * every process that maps libc at one place maps the same bytes). Both
 * are kept across runs in the cache folder (dwarf/plancache.c,
 * dwarf/patchcache.c): a kept patch is used only for the same plan, code
 * and trampoline addresses, and the same original bytes in the guest.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "dwarf/dwarf.h"
#include "tracer.h"

#define X86_EFLAGS_TF 0x100 /* the trap flag: single steps */

/* A file's plan, for a seed and density. */
struct plan {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	uint64_t seed;
	unsigned density;
	uint64_t off; /* the file offset it was made for (a segment's) */
	int err;
	struct dw_patch_plan p;
	struct plan *next;
};

/* A mapping patched: its sites, at run-time addresses. Shared by the
 * processes that map the same file at the same place. */
struct patched {
	struct plan *plan;
	uint64_t code_addr;
	size_t code_len;
	uint64_t tramp_addr;
	size_t tramp_len;
	/* the code as it was and is, the trampolines, the sites by address
	 * and their traps (dwarf/patchcache.c) */
	struct dw_patch_out out;
	char *file; /* the kept file OUT is mapped from, or NULL */
	/* another file found to hold the same trampolines (holds_tramp):
	 * the kept file seen through a replay's overlay */
	uint64_t same_dev, same_ino;
	int refs;
	struct patched *next; /* in the cache */
};

struct proc {
	pid_t tgid;
	struct patched **maps;
	size_t nmaps;
	struct proc *next;
};

static struct plan *plans;
static struct patched *cache;
static struct proc *procs;

static struct proc *proc_find(pid_t tgid)
{
	for (struct proc *p = procs; p; p = p->next) {
		if (p->tgid == tgid)
			return p;
	}
	return NULL;
}

static struct proc *proc_get(pid_t tgid)
{
	struct proc *p = proc_find(tgid);

	if (!p) {
		p = xcalloc(1, sizeof(*p));
		p->tgid = tgid;
		p->next = procs;
		procs = p;
	}
	return p;
}

void tracer_ticks_drop(pid_t tgid)
{
	for (struct proc **pp = &procs; *pp; pp = &(*pp)->next) {
		if ((*pp)->tgid == tgid) {
			struct proc *p = *pp;

			*pp = p->next;
			for (size_t i = 0; i < p->nmaps; i++)
				p->maps[i]->refs--;
			free(p->maps);
			free(p);
			return;
		}
	}
}

int tracer_ticks_armed(pid_t tgid)
{
	return proc_find(tgid) != NULL;
}

int tracer_ticks_rename(pid_t from, pid_t to)
{
	struct proc *p = proc_find(from);

	if (p) {
		tracer_ticks_drop(to);
		p->tgid = to;
	}
	return 0;
}

int tracer_ticks_fork(pid_t parent, pid_t child)
{
	struct proc *pp = proc_find(parent), *c;

	tracer_ticks_drop(child);
	if (!pp)
		return 0;
	c = proc_get(child);
	c->maps = xcalloc(pp->nmaps ? pp->nmaps : 1, sizeof(*c->maps));
	for (size_t i = 0; i < pp->nmaps; i++) {
		c->maps[i] = pp->maps[i];
		c->maps[i]->refs++;
	}
	c->nmaps = pp->nmaps;
	return 0;
}

/* The plan of the executable segment of PATH that holds file offset OFF. */
static struct plan *plan_for(const char *path, const char *name, uint64_t off, uint64_t seed,
			     unsigned density)
{
	struct stat st;
	struct plan *pl;
	struct timespec t0, t1;
	int hit = 0;

	if (stat(path, &st) < 0)
		return NULL;
	for (pl = plans; pl; pl = pl->next) {
		if (pl->dev == st.st_dev && pl->ino == st.st_ino &&
		    pl->mtime.tv_sec == st.st_mtim.tv_sec &&
		    pl->mtime.tv_nsec == st.st_mtim.tv_nsec && pl->seed == seed &&
		    pl->density == density &&
		    (pl->err ? pl->off == off : dw_patch_plan_holds(&pl->p, off)))
			return pl->err ? NULL : pl;
	}
	pl = xcalloc(1, sizeof(*pl));
	pl->dev = st.st_dev;
	pl->ino = st.st_ino;
	pl->mtime = st.st_mtim;
	pl->seed = seed;
	pl->density = density;
	pl->off = off;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pl->err = dw_patch_plan_cached(dw_cache_dir(), path, off, seed, density, &pl->p, &hit);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (pl->err)
		hm_debug("no counted sites in '%s': %s", name, hm_strerror(pl->err));
	else
		hm_debug("'%s': %zu sites by jump, %zu by int3, %s in %.1f ms (%zu by a jump "
			 "in padding, %zu at a branch's target, %zu by the call before)",
			 name, pl->p.njump + pl->p.npad, pl->p.nint3,
			 hit ? "read from the cache" : "planned",
			 (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
				 (double)(t1.tv_nsec - t0.tv_nsec) / 1e6,
			 pl->p.npad, pl->p.ntarget, pl->p.nafter);
	pl->next = plans;
	plans = pl;
	return pl->err ? NULL : pl;
}

static int mem_fd(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", tid);
	return open(path, O_RDWR | O_CLOEXEC);
}

static int pread_all(int fd, void *buf, size_t len, uint64_t at)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(at + done));

		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

static int pwrite_all(int fd, const void *buf, size_t len, uint64_t at)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done, (off_t)(at + done));

		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* Write the pages of P that differ from the original, each run of them
 * in one write (libc: 350 pages, nearly all changed, in a few writes
 * rather than one each). */
static int write_code(int fd, const struct patched *p)
{
	size_t run = 0, run_len = 0; /* the run of changed bytes being gathered */

	for (size_t off = 0; off < p->code_len;) {
		uint64_t page_end = ((p->code_addr + off) | 4095) + 1;
		size_t n = page_end - (p->code_addr + off);

		if (n > p->code_len - off)
			n = p->code_len - off;
		if (memcmp(p->out.orig + off, p->out.patched + off, n) != 0) {
			if (!run_len)
				run = off;
			run_len += n;
		} else if (run_len) {
			int err = pwrite_all(fd, p->out.patched + run, run_len, p->code_addr + run);

			if (err)
				return err;
			run_len = 0;
		}
		off += n;
	}
	return run_len ? pwrite_all(fd, p->out.patched + run, run_len, p->code_addr + run) : 0;
}

/* Take TID, stopped at its exec event (still inside execve), to the
 * syscall-exit stop of execve, where the new program has not run yet. */
static int leave_execve(pid_t tid)
{
	struct tracer_stop s;
	int err;

	for (;;) {
		err = tracer_syscall(tid, 0);
		if (!err)
			err = tracer_wait_tid(tid, &s);
		if (err)
			return err;
		if (s.kind == TRACER_EXITED || s.kind == TRACER_KILLED)
			return -ESRCH;
		if (s.kind == TRACER_SYSCALL_EXIT || s.kind == TRACER_SYSCALL_ENTRY)
			return 0;
		if (s.kind == TRACER_SIGNAL) {
			syscall(SYS_tkill, tid, s.sig); /* again, once it runs */
			continue;
		}
	}
}

/* Inject syscall NR in TID: at its exec event (AT_EXEC), past execve, or
 * at a syscall-exit stop. */
static int inject(pid_t tid, int at_exec, long nr, const uint64_t args[6], long *ret)
{
	return at_exec ? tracer_inject_at_rip(tid, nr, args, ret)
		       : tracer_inject(tid, nr, args, ret);
}

static int map_fixed(pid_t tid, int at_exec, uint64_t addr, size_t len, int prot)
{
	uint64_t args[6] = { addr,	     len,
			     (uint64_t)prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			     (uint64_t)-1,   0 };
	long ret;
	int err = inject(tid, at_exec, SYS_mmap, args, &ret);

	if (err)
		return err;
	if (ret < 0 && ret > -4096)
		return (int)ret;
	return (uint64_t)ret == addr ? 0 : -EEXIST;
}

/* Where the program's brk heap starts (/proc/PID/stat, field 47), 0 if
 * not known. */
static uint64_t start_brk(pid_t tid)
{
	char path[64], buf[2048];
	const char *p;
	unsigned long long v = 0;
	ssize_t n;
	int fd, field = 2;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')'); /* the name may hold anything */
	if (!p)
		return 0;
	while (*p && field < 47) {
		if (*p++ == ' ')
			field++;
	}
	return field == 47 && sscanf(p, "%llu", &v) == 1 ? v : 0;
}

/* Room kept free above the brk heap's start, where malloc grows it. */
#define BRK_ROOM (1ULL << 30)
/* A rel32 reaches this far, with room to spare. */
#define REACH 0x7fff0000ULL

/*
 * A free gap of LEN bytes for trampolines near the code at [LO, HI),
 * within reach of a rel32 from all of it: the place nearest the code, in
 * any free stretch of the address space below it or above it, with a
 * guard page on each side, never where the brk heap grows. A large
 * program linked at 0x400000 has no room below it, so its trampolines go
 * above (past the Hermit page).
 */
static int find_gap(pid_t tid, uint64_t lo, uint64_t hi, size_t len, uint64_t *at)
{
	char path[64], line[512];
	uint64_t prev_end = 0x10000, best = 0, best_dist = UINT64_MAX;
	uint64_t brk_lo = start_brk(tid), brk_hi = brk_lo ? brk_lo + BRK_ROOM : 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	for (;;) {
		unsigned long long s = 0, e = 0;
		int more = fgets(line, sizeof(line), f) != NULL;

		if (more && sscanf(line, "%llx-%llx", &s, &e) != 2)
			continue;
		if (!more)
			s = 0x7ffffffff000ULL;
		/* The free stretch [prev_end, s), less the brk heap's room. */
		for (int part = 0; part < 2; part++) {
			uint64_t g_lo = prev_end, g_hi = s, place, dist;

			if (brk_lo && brk_lo < g_hi && brk_hi > g_lo) {
				if (part == 0)
					g_hi = brk_lo;
				else
					g_lo = brk_hi;
			} else if (part == 1) {
				break;
			}
			if (g_hi <= g_lo || g_hi - g_lo < len + 2 * 4096)
				continue;
			if (g_hi <= lo) {
				place = (g_hi - len - 4096) & ~(uint64_t)4095;
				dist = lo - place;
				if (hi - place >= REACH)
					continue;
			} else if (g_lo >= hi) {
				place = (g_lo + 2 * 4096 - 1) & ~(uint64_t)4095;
				dist = place + len - hi;
				if (place + len - lo >= REACH || place + len + 4096 > g_hi)
					continue;
			} else {
				continue; /* the code is mapped: not a gap around it */
			}
			if (dist < best_dist) {
				best = place;
				best_dist = dist;
			}
		}
		if (!more)
			break;
		if (e > prev_end)
			prev_end = e;
	}
	fclose(f);
	if (!best)
		return -ENOMEM;
	*at = best;
	return 0;
}

static int by_trap(const void *a, const void *b)
{
	uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];

	return x < y ? -1 : x > y;
}

/* Whether the code at O->code_addr in the guest (FD) is O->orig. */
static int same_code(int fd, const struct dw_patch_out *o)
{
	static uint8_t *buf;
	enum { CHUNK = 1 << 20 };

	if (!buf)
		buf = xmalloc(CHUNK);
	for (uint64_t off = 0; off < o->code_len; off += CHUNK) {
		size_t n = o->code_len - off < CHUNK ? (size_t)(o->code_len - off) : CHUNK;

		if (pread_all(fd, buf, n, o->code_addr + off) < 0 ||
		    memcmp(buf, o->orig + off, n) != 0)
			return 0;
	}
	return 1;
}

/* O was just kept as FILE: use the file's mapping in place of O's memory,
 * as a later run's hit would, so that the trampolines can be mapped into
 * guests from it (map_tramp) in this run too. 1 when O is the file's now,
 * 0 when it stays as it was (the file could not be read back, or holds
 * other bytes: another writer's). */
static int use_kept(const char *file, struct dw_patch_out *o)
{
	struct dw_patch_out kept = {
		.code_addr = o->code_addr,
		.code_len = o->code_len,
		.tramp_addr = o->tramp_addr,
		.tramp_len = o->tramp_len,
		.counter = o->counter,
		.bias = o->bias,
	};

	if (dw_patch_out_load(file, &kept) != 0)
		return 0;
	if (kept.blob.len != o->blob.len || memcmp(kept.blob.body, o->blob.body, o->blob.len)) {
		dw_patch_out_free(&kept);
		return 0;
	}
	dw_patch_out_free(o);
	*o = kept;
	return 1;
}

/*
 * Fill P (its code and trampolines placed) from PLAN, made for the file at
 * PATH with BIAS: what the cache folder kept for the same plan, addresses
 * and original bytes (dwarf/patchcache.c), else dw_patch_emit of the code
 * read from the guest (FD), kept there for the next run.
 */
static int emit(int fd, const struct plan *pl, const char *path, int64_t bias, struct patched *p)
{
	const struct dw_patch_plan *pp = &pl->p;
	struct dw_patch_out *o = &p->out;
	char kind[192], file[4400];
	struct timespec t0, t1;
	int keep, err, used, hit = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	o->code_addr = p->code_addr;
	o->code_len = p->code_len;
	o->tramp_addr = p->tramp_addr;
	o->tramp_len = p->tramp_len;
	o->counter = TRACER_HPAGE_COUNTER;
	o->bias = bias;
	snprintf(kind, sizeof(kind), "emit-%llx-%llx-%u-%llx-%llx-%llx",
		 (unsigned long long)pp->exec_offset, (unsigned long long)pl->seed, pl->density,
		 (unsigned long long)p->code_addr, (unsigned long long)p->code_len,
		 (unsigned long long)p->tramp_addr);
	keep = dw_cache_name(dw_cache_dir(), path, kind, file, sizeof(file)) == 0;
	if (keep && dw_patch_out_load(file, o) == 0) {
		hit = same_code(fd, o);
		if (hit)
			goto done;
		dw_patch_out_free(o);
	}
	err = dw_patch_out_alloc(o, pp->n);
	if (err)
		return err;
	err = pread_all(fd, o->orig, o->code_len, o->code_addr);
	used = err ? err
		   : dw_patch_emit(pp, bias, o->orig, o->code_addr, o->code_len, o->patched,
				   o->tramp, o->tramp_addr, o->tramp_len, o->counter, o->sites,
				   &o->n);
	if (used < 0) {
		dw_patch_out_free(o);
		return used;
	}
	o->tramp_used = (size_t)used;
	for (size_t i = 0; i < o->n; i++) {
		if (o->sites[i].kind == DW_PATCH_JUMP || o->sites[i].kind == DW_PATCH_PAD) {
			o->traps[2 * o->ntraps] = o->sites[i].trap;
			o->traps[2 * o->ntraps + 1] = i;
			o->ntraps++;
		}
	}
	if (o->ntraps)
		qsort(o->traps, o->ntraps, 2 * sizeof(*o->traps), by_trap);
	if (keep && dw_patch_out_store(file, o) == 0)
		hit = -use_kept(file, o); /* a cache: a failure costs an emit */
done:
	if (o->blob.ino)
		p->file = xstrdup(file);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	hm_debug("%#llx: %zu sites and %zu bytes of trampolines %s in %.1f ms",
		 (unsigned long long)o->code_addr, o->n, o->tramp_used,
		 hit > 0   ? "read from the cache"
		 : hit < 0 ? "made and kept"
			   : "made",
		 (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	return 0;
}

/* Trampolines smaller than this are written: three injected syscalls
 * cost about what writing half a megabyte does. */
#define MAP_TRAMP_MIN (1u << 20)
/* Where map_tramp puts the kept file's name for the guest's open. */
#define SCRATCH	    (TRACER_HPAGE + 2048)
#define SCRATCH_LEN 2048

/*
 * Whether the file LINK (the guest's descriptor of it, ST its stat) holds
 * P's trampolines at OFF (WHOLE bytes of them): the very file P was read
 * from (device and inode; its digest was checked and kept files are only
 * replaced, never written in place), or else one whose bytes there are
 * P's (through a replay's overlay, which shows a device of its own; a kept
 * file that another hermit replaced with the same bytes; nothing else
 * gets in), compared once per file and run.
 */
static int holds_tramp(const char *link, const struct stat *st, struct patched *p, int64_t off,
		       size_t whole)
{
	void *map;
	int fd, same;

	if (!S_ISREG(st->st_mode) || (uint64_t)st->st_size < (uint64_t)off + whole)
		return 0;
	if ((uint64_t)st->st_dev == p->out.blob.dev && (uint64_t)st->st_ino == p->out.blob.ino)
		return 1;
	if (p->same_ino && (uint64_t)st->st_dev == p->same_dev &&
	    (uint64_t)st->st_ino == p->same_ino)
		return 1; /* compared at an earlier exec */
	fd = open(link, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	map = mmap(NULL, whole, PROT_READ, MAP_PRIVATE, fd, (off_t)off);
	close(fd);
	if (map == MAP_FAILED)
		return 0;
	same = memcmp(map, p->out.tramp, whole) == 0;
	munmap(map, whole);
	if (same) {
		p->same_dev = (uint64_t)st->st_dev;
		p->same_ino = (uint64_t)st->st_ino;
	}
	return same;
}

/* Whether TID may run under seccomp filters of the guest's own, besides
 * those hermit runs under itself (a container's) and the one it adds:
 * such a filter may kill the guest, or raise a signal in it, at the
 * openat map_tramp would inject (a sandbox that loads a library). Unknown
 * counts as yes. */
static int guest_filters(pid_t tid)
{
	static int own = -2;

	if (own == -2)
		own = tracer_seccomp_filters(0);
	return own < 0 || tracer_seccomp_filters(tid) != own + 1;
}

/*
 * Map the whole pages of P's trampolines into the guest (TID, its memory
 * FD) from the kept file they were read from (dwarf/patchcache.c puts them
 * at a page of it), over the anonymous room map_fixed made for them: the
 * guest gets them from the page cache, shared by every process that maps
 * them, and reads only the pages it runs, where writing them copied all
 * of them into each process (cc1: 32 MB, about 40 ms at each exec). The
 * guest opens the file itself (an injected openat, its name in the Hermit
 * page), which must hold P's trampolines (holds_tramp); it is closed again
 * before the guest runs, so nothing of it stays in the guest but the
 * mapping. How many bytes were mapped: 0 when the file is not there for
 * the guest (another mount namespace, a chroot) or holds other bytes, the
 * cache folder's name is relative, the trampolines are small, the guest
 * filters syscalls itself, or a call fails; the caller writes the rest.
 */
static size_t map_tramp(pid_t tid, int fd, int at_exec, struct patched *p)
{
	int64_t off = dw_patch_out_tramp_offset(&p->out);
	size_t whole = p->out.tramp_used & ~(size_t)4095;
	size_t n = p->file ? strlen(p->file) + 1 : 0;
	static const char zeros[SCRATCH_LEN];
	/* (never blocks, never follows a link put in its place, never takes
	 * a terminal: holds_tramp looks at what it opened) */
	uint64_t args[6] = { (uint64_t)AT_FDCWD,
			     SCRATCH,
			     O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY,
			     0,
			     0,
			     0 };
	char link[64];
	struct stat st;
	long gfd, ret;
	int err;

	if (off < 0 || !n || n > SCRATCH_LEN || p->file[0] != '/' || whole < MAP_TRAMP_MIN ||
	    guest_filters(tid))
		return 0;
	err = pwrite_all(fd, p->file, n, SCRATCH);
	if (!err)
		err = inject(tid, at_exec, SYS_openat, args, &gfd);
	pwrite_all(fd, zeros, n, SCRATCH);
	if (err || gfd < 0)
		return 0;
	snprintf(link, sizeof(link), "/proc/%d/fd/%ld", tid, gfd);
	if (stat(link, &st) == 0 && holds_tramp(link, &st, p, off, whole)) {
		uint64_t margs[6] = { p->tramp_addr,	       whole,	      PROT_READ | PROT_EXEC,
				      MAP_PRIVATE | MAP_FIXED, (uint64_t)gfd, (uint64_t)off };

		err = inject(tid, at_exec, SYS_mmap, margs, &ret);
		if (err || (uint64_t)ret != p->tramp_addr) {
			/* (a MAP_FIXED that fails may have unmapped the room) */
			map_fixed(tid, at_exec, p->tramp_addr, whole, PROT_READ | PROT_EXEC);
			whole = 0;
		}
	} else {
		whole = 0;
	}
	args[0] = (uint64_t)gfd;
	inject(tid, at_exec, SYS_close, args, &ret);
	return whole;
}

/* Patch the code of PLAN (of the file at PATH) mapped at [ADDR, ADDR +
 * LEN) with file offset OFF into process TGID (TID stopped). */
static int patch_mapping(pid_t tid, pid_t tgid, int fd, int at_exec, struct plan *pl,
			 const char *path, uint64_t addr, uint64_t len, uint64_t off)
{
	const struct dw_patch_plan *pp = &pl->p;
	uint64_t seg_lo = pp->exec_offset, seg_hi = pp->exec_offset + pp->exec_size;
	uint64_t lo = off > seg_lo ? off : seg_lo, hi = off + len < seg_hi ? off + len : seg_hi;
	int64_t bias;
	struct patched *p;
	struct proc *pr;
	size_t mapped;
	int err;

	if (lo >= hi || !pp->n)
		return 0;
	/* run-time = link-time + bias */
	bias = (int64_t)(addr - off + pp->exec_offset - pp->exec_vaddr);
	for (p = cache; p; p = p->next) {
		if (p->plan == pl && p->code_addr == addr + (lo - off) && p->code_len == hi - lo)
			break;
	}
	if (p) {
		/* Seen at this place before: the same bytes, if the place is free. */
		err = map_fixed(tid, at_exec, p->tramp_addr, p->tramp_len, PROT_READ | PROT_EXEC);
		if (err)
			p = NULL;
	}
	if (!p) {
		p = xcalloc(1, sizeof(*p));
		p->plan = pl;
		p->code_addr = addr + (lo - off);
		p->code_len = hi - lo;
		p->tramp_len = pp->tramp_size;
		err = find_gap(tid, p->code_addr, p->code_addr + p->code_len, p->tramp_len,
			       &p->tramp_addr);
		if (!err)
			err = map_fixed(tid, at_exec, p->tramp_addr, p->tramp_len,
					PROT_READ | PROT_EXEC);
		if (!err)
			err = emit(fd, pl, path, bias, p);
		if (err) {
			free(p);
			return err;
		}
		p->next = cache;
		cache = p;
	}
	/* What the trampolines use (whole pages mapped from the kept file
	 * where it can be, the rest written); the rest of the mapping stays
	 * untouched. */
	mapped = map_tramp(tid, fd, at_exec, p);
	if (mapped)
		hm_debug("%#llx: %zu bytes of trampolines mapped in process %d",
			 (unsigned long long)p->code_addr, mapped, tgid);
	else if (p->file && p->out.tramp_used >= MAP_TRAMP_MIN)
		hm_debug("%#llx: trampolines written: process %d cannot map '%s'",
			 (unsigned long long)p->code_addr, tgid, p->file);
	err = pwrite_all(fd, p->out.tramp + mapped, p->out.tramp_used - mapped,
			 p->tramp_addr + mapped);
	if (!err)
		err = write_code(fd, p);
	if (err)
		return err;
	pr = proc_get(tgid);
	pr->maps = xrealloc(pr->maps, (pr->nmaps + 1) * sizeof(*pr->maps));
	pr->maps[pr->nmaps++] = p;
	p->refs++;
	return (int)p->out.n;
}

static int map_page(pid_t tid, int fd, int at_exec)
{
	int err = map_fixed(tid, at_exec, TRACER_HPAGE, 4096, PROT_READ | PROT_WRITE);
	uint64_t zero = 0;

	if (!err)
		err = pwrite_all(fd, &zero, sizeof(zero), TRACER_HPAGE_COUNTER);
	return err;
}

int tracer_ticks_exec(pid_t tid, pid_t tgid, uint64_t seed, unsigned density)
{
	char path[64], line[4096 + 128];
	FILE *maps;
	int fd, err, total = 0;

	tracer_ticks_drop(tgid);
	fd = mem_fd(tid);
	if (fd < 0)
		return -errno;
	err = leave_execve(tid);
	if (!err)
		err = map_page(tid, fd, 1);
	if (err) {
		close(fd);
		return err;
	}
	proc_get(tgid);
	snprintf(path, sizeof(path), "/proc/%d/maps", tid);
	maps = fopen(path, "re");
	/* Read all lines first: patching maps trampolines, changing the file. */
	struct {
		uint64_t s, e, off;
		char *file;
	} todo[16];
	size_t ntodo = 0;

	while (maps && fgets(line, sizeof(line), maps) && ntodo < 16) {
		unsigned long long s, e, off;
		char perms[8];
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &pos) < 4 ||
		    perms[2] != 'x' || !pos || line[pos] != '/')
			continue;
		line[strcspn(line, "\n")] = 0;
		todo[ntodo].s = s;
		todo[ntodo].e = e;
		todo[ntodo].off = off;
		todo[ntodo].file = xstrdup(line + pos);
		ntodo++;
	}
	if (maps)
		fclose(maps);
	for (size_t i = 0; i < ntodo; i++) {
		char in_guest[4096 + 64];
		/* The file as the guest sees it (a replay's are the recording's
		 * copies, in its own mount namespace), named as it names it. */
		struct plan *pl;

		snprintf(in_guest, sizeof(in_guest), "/proc/%d/root%s", tid, todo[i].file);
		pl = plan_for(in_guest, todo[i].file, todo[i].off, seed, density);
		int n = pl ? patch_mapping(tid, tgid, fd, 1, pl, in_guest, todo[i].s,
					   todo[i].e - todo[i].s, todo[i].off)
			   : 0;

		if (n < 0)
			hm_debug("cannot patch '%s' in process %d: %s", todo[i].file, tgid,
				 hm_strerror(n));
		else
			total += n;
		free(todo[i].file);
	}
	close(fd);
	return total;
}

int tracer_ticks_mapped(pid_t tid, pid_t tgid, uint64_t addr, uint64_t len, int guest_fd,
			uint64_t off, uint64_t seed, unsigned density)
{
	char link[64], name[4096];
	struct plan *pl;
	ssize_t len_name;
	int fd, n;

	if (!proc_find(tgid))
		return 0;
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", tid, guest_fd);
	len_name = readlink(link, name, sizeof(name) - 1);
	name[len_name > 0 ? len_name : 0] = 0;
	pl = plan_for(link, len_name > 0 ? name : link, off, seed, density);
	if (!pl)
		return 0;
	fd = mem_fd(tid);
	if (fd < 0)
		return -errno;
	n = patch_mapping(tid, tgid, fd, 0, pl, link, addr, len, off);
	close(fd);
	return n;
}

int tracer_ticks_set(pid_t tid, uint64_t budget)
{
	/* The page is the guest's to write (its trampolines do): one
	 * process_vm_writev, not an open of /proc/TID/mem at every resume.
	 * A guest that made it read-only gets it written all the same. */
	if (tracer_write_mem(tid, TRACER_HPAGE_COUNTER, &budget, sizeof(budget)) == 0)
		return 0;
	return tracer_poke_mem(tid, TRACER_HPAGE_COUNTER, &budget, sizeof(budget));
}

int tracer_ticks_arm(pid_t tid, const struct tracer_hclock *hc)
{
	if (tracer_write_mem(tid, TRACER_HPAGE, hc, sizeof(*hc)) == 0)
		return 0;
	return tracer_poke_mem(tid, TRACER_HPAGE, hc, sizeof(*hc));
}

int tracer_ticks_get(pid_t tid, uint64_t *left)
{
	int err = tracer_read_mem(tid, TRACER_HPAGE_COUNTER, left, sizeof(*left));

	/* A short count (dwarf/patchemit.c) that ran out holds -1 for the
	 * two instructions before its trap puts 0 back. */
	if (!err && (int64_t)*left < 0)
		*left = 0;
	return err;
}

static const struct dw_patch_site *site_at(const struct proc *pr, uint64_t addr,
					   const struct patched **in)
{
	for (size_t i = 0; pr && i < pr->nmaps; i++) {
		const struct patched *p = pr->maps[i];
		size_t a = 0, b = p->out.n;

		if (addr < p->code_addr || addr >= p->code_addr + p->code_len)
			continue;
		while (a < b) {
			size_t m = (a + b) / 2;

			if (p->out.sites[m].addr + p->out.sites[m].len <= addr)
				a = m + 1;
			else
				b = m;
		}
		if (a < p->out.n && p->out.sites[a].addr <= addr) {
			*in = p;
			return &p->out.sites[a];
		}
		return NULL;
	}
	return NULL;
}

static const struct dw_patch_site *trap_at(const struct proc *pr, uint64_t addr)
{
	for (size_t i = 0; pr && i < pr->nmaps; i++) {
		const struct patched *p = pr->maps[i];
		uint64_t key[2] = { addr, 0 };
		const uint64_t *hit;

		if (addr < p->tramp_addr || addr >= p->tramp_addr + p->tramp_len)
			continue;
		hit = p->out.ntraps ? bsearch(key, p->out.traps, p->out.ntraps,
					      2 * sizeof(*p->out.traps), by_trap)
				    : NULL;
		return hit ? &p->out.sites[hit[1]] : NULL;
	}
	return NULL;
}

/* The site whose trampoline holds PC (its trap and count before it). */
static const struct dw_patch_site *tramp_site(const struct proc *pr, uint64_t pc)
{
	for (size_t i = 0; pr && i < pr->nmaps; i++) {
		const struct patched *p = pr->maps[i];
		size_t a = 0, b = p->out.ntraps;

		if (pc < p->tramp_addr || pc >= p->tramp_addr + p->tramp_len)
			continue;
		/* The first trap past PC + 12 (a trap is 9 or 12 bytes into
		 * its trampoline): PC's is one of the two before it. */
		while (a < b) {
			size_t m = (a + b) / 2;

			if (p->out.traps[2 * m] <= pc + 12)
				a = m + 1;
			else
				b = m;
		}
		for (size_t k = a; k > 0 && k + 2 > a; k--) {
			const struct dw_patch_site *s = &p->out.sites[p->out.traps[2 * (k - 1) + 1]];

			if (pc >= s->tramp_start && pc < s->tramp_end)
				return s;
		}
		return NULL;
	}
	return NULL;
}

int tracer_ticks_settle(pid_t tid, pid_t tgid)
{
	const struct proc *pr = proc_find(tgid);
	const struct dw_patch_site *s;
	struct dw_patch_undo u;
	struct user_regs_struct regs;

	if (!pr || tracer_get_regs(tid, &regs) < 0)
		return 0;
	s = tramp_site(pr, regs.rip);
	if (!s || !dw_patch_settle(s, regs.rip, regs.eflags, &u))
		return 0;
	if (u.rcx_from_stack &&
	    tracer_read_mem(tid, regs.rsp, &regs.rcx, sizeof(regs.rcx)) < 0)
		return -ESRCH;
	regs.rsp += u.rsp_add;
	if (u.counter_add) {
		uint64_t c;

		if (tracer_read_mem(tid, TRACER_HPAGE_COUNTER, &c, sizeof(c)) < 0 ||
		    tracer_ticks_set(tid, c + (uint64_t)u.counter_add) < 0)
			return -ESRCH;
	}
	hm_trace("thread %d stopped in the count of site %#llx (+%llu): put back there", tid,
		 (unsigned long long)s->addr, (unsigned long long)(regs.rip - s->tramp_start));
	regs.rip = s->addr;
	return tracer_set_regs(tid, &regs) < 0 ? -ESRCH : 1;
}

/* dw_branch_run's reads of guest memory; CTX is the thread's id. */
static int read_guest(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return tracer_read_mem(*(const pid_t *)ctx, addr, buf, len);
}

int tracer_ticks_trap(pid_t tid, pid_t tgid, int stepped, uint64_t *site)
{
	const struct proc *pr = proc_find(tgid);
	const struct dw_patch_site *s;
	const struct patched *in;
	struct user_regs_struct regs;
	uint64_t left;
	siginfo_t si;
	int err;

	/* An int3 reports SI_KERNEL; a single step that lands just past one
	 * (a trampoline's entry follows its trap) reports TRAP_TRACE. Only the
	 * int3 itself stops a task there when nothing steps it (a debugger,
	 * or the guest's own trap flag): a signal is delivered where a task
	 * was stopped, never inside a trampoline. */
	if (!pr || tracer_get_regs(tid, &regs) < 0)
		return 0;
	if ((stepped || (regs.eflags & X86_EFLAGS_TF)) &&
	    (tracer_siginfo(tid, &si) < 0 || si.si_code != SI_KERNEL))
		return 0;
	s = trap_at(pr, regs.rip - 1);
	if (s) {
		/* Out of budget at a trampoline: back to the site, uncounted. */
		regs.rip = s->addr;
		*site = s->addr;
		return tracer_set_regs(tid, &regs) < 0 ? -ESRCH : TRACER_TICK_OUT;
	}
	s = site_at(pr, regs.rip - 1, &in);
	if (!s || s->kind != DW_PATCH_INT3 || s->addr != regs.rip - 1)
		return 0;
	*site = s->addr;
	regs.rip = s->addr;
	err = tracer_ticks_get(tid, &left);
	if (err)
		return err;
	/* The original instruction, run here on the registers: no second
	 * stop, and the code is not written twice. */
	if (left > 0 && !(regs.eflags & X86_EFLAGS_TF)) {
		struct user_regs_struct to = regs;
		uint64_t push = 0, end = in->code_addr + in->code_len;
		int k = dw_branch_run(in->out.orig + (s->addr - in->code_addr),
				      end - s->addr < 15 ? end - s->addr : 15, &to, read_guest,
				      &tid, &push);

		if (k == 2 && tracer_write_mem(tid, to.rsp, &push, sizeof(push)) < 0)
			k = 0; /* (the CPU faults there: the step shows how) */
		if (k)
			return tracer_ticks_set(tid, left - 1) < 0 || tracer_set_regs(tid, &to) < 0
				       ? -ESRCH
				       : TRACER_TICK_COUNTED;
	}
	err = tracer_set_regs(tid, &regs);
	if (err)
		return err;
	if (left == 0)
		return TRACER_TICK_OUT;
	left--;
	if (tracer_ticks_set(tid, left) < 0)
		return -ESRCH;
	/* Else the original instruction, one step, and the int3 back. */
	{
		uint8_t orig = in->out.orig[s->addr - in->code_addr], cc = 0xcc;

		err = tracer_poke_mem(tid, s->addr, &orig, 1);
		if (!err)
			err = tracer_singlestep(tid);
		tracer_poke_mem(tid, s->addr, &cc, 1);
	}
	if (err < 0)
		return err;
	if (err > 0) {
		*site = (uint64_t)err;
		return TRACER_TICK_FAULT;
	}
	return TRACER_TICK_COUNTED;
}

int tracer_ticks_site(pid_t tgid, uint64_t addr, uint64_t *start, size_t *len, uint8_t *orig,
		      size_t size)
{
	const struct dw_patch_site *s;
	const struct patched *in;

	s = site_at(proc_find(tgid), addr, &in);
	if (!s)
		return 0;
	*start = s->addr;
	*len = s->len;
	if (orig)
		memcpy(orig, in->out.orig + (s->addr - in->code_addr),
		       s->len < size ? s->len : size);
	return s->kind;
}

void tracer_ticks_hide(pid_t tgid, uint64_t addr, uint8_t *buf, size_t len)
{
	const struct proc *pr = proc_find(tgid);

	for (size_t i = 0; pr && i < pr->nmaps; i++) {
		const struct patched *p = pr->maps[i];
		uint64_t lo = addr > p->code_addr ? addr : p->code_addr;
		uint64_t hi = addr + len < p->code_addr + p->code_len ? addr + len
								      : p->code_addr + p->code_len;

		for (uint64_t a = lo; a < hi; a++) {
			/* Only bytes hermit changed: the guest's own writes stay. */
			if (buf[a - addr] == p->out.patched[a - p->code_addr])
				buf[a - addr] = p->out.orig[a - p->code_addr];
		}
	}
}

int tracer_ticks_original_pc(pid_t tgid, uint64_t pc, uint64_t *orig)
{
	const struct proc *pr = proc_find(tgid);

	for (size_t i = 0; pr && i < pr->nmaps; i++) {
		const struct patched *p = pr->maps[i];

		if (pc < p->tramp_addr || pc >= p->tramp_addr + p->tramp_len)
			continue;
		for (size_t k = 0; k < p->out.n; k++) {
			if (p->out.sites[k].kind != DW_PATCH_INT3 &&
			    pc >= p->out.sites[k].tramp_start && pc < p->out.sites[k].tramp_end) {
				*orig = p->out.sites[k].addr;
				return 1;
			}
		}
	}
	return 0;
}

int tracer_singlestep(pid_t tid)
{
	int deferred[8], ndeferred = 0, err, fault = 0;
	struct tracer_stop s;

	for (;;) {
		tracer_regs_forget();
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

int tracer_ticks_counted(pid_t tgid, uint64_t pc)
{
	const struct proc *pr = proc_find(tgid);

	for (size_t i = 0; pr && i < pr->nmaps; i++) {
		const struct patched *p = pr->maps[i];

		if ((pc >= p->code_addr && pc < p->code_addr + p->code_len) ||
		    (pc >= p->tramp_addr && pc < p->tramp_addr + p->tramp_len))
			return 1;
	}
	return 0;
}

int tracer_ticks_in_slot(pid_t tgid, uint64_t pc)
{
	const struct proc *pr = proc_find(tgid);

	for (size_t i = 0; pr && i < pr->nmaps; i++) {
		const struct patched *p = pr->maps[i];

		if (pc < p->code_addr || pc >= p->code_addr + p->code_len)
			continue;
		for (size_t k = 0; k < p->out.n; k++) {
			if (p->out.sites[k].kind == DW_PATCH_PAD && pc >= p->out.sites[k].slot &&
			    pc < p->out.sites[k].slot + 5)
				return 1;
		}
	}
	return 0;
}

void tracer_ticks_free(void)
{
	while (procs)
		tracer_ticks_drop(procs->tgid);
	while (cache) {
		struct patched *next = cache->next;

		dw_patch_out_free(&cache->out);
		free(cache->file);
		free(cache);
		cache = next;
	}
	while (plans) {
		struct plan *next = plans->next;

		dw_patch_plan_free(&plans->p);
		free(plans);
		plans = next;
	}
}
