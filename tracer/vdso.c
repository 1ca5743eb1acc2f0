/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vDSO patching. The vDSO answers clock_gettime, gettimeofday, time and
 * getcpu in user space, out of the tracer's sight. After each exec each of
 * those functions is overwritten with
 *
 *     mov $NR, %eax ; syscall ; ret
 *
 * so that the call reaches the seccomp filter and the virtual clock. The
 * arguments are already in the syscall registers (the vDSO functions have
 * the syscalls' signatures). All processes on one kernel map the same
 * vDSO image, so symbol offsets are read once, with libelf, from a copy
 * of the first guest's vDSO (hermit's own may be absent, under valgrind).
 *
 * With the fast path (docs/fastpath.md), clock_gettime's body becomes
 * vdso_fast.c's code, and gettimeofday and time each a jmp to their entry
 * in it: no stop at all.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/syscall.h>

#include "common/common.h"
#include "tracer.h"

struct vdso_fn {
	const char *name;
	long nr;
	uint64_t offset; /* from the vDSO base; 0 when absent */
	uint64_t size;	 /* of its body */
};

/* vdso_fast.c's code (in hermit's read-only data) and its entries. */
extern const unsigned char tracer_vdso_fast_start[], tracer_vdso_fast_gettimeofday[],
	tracer_vdso_fast_time[], tracer_vdso_fast_end[];

static struct vdso_fn vdso_fns[] = {
	{ "__vdso_clock_gettime", SYS_clock_gettime, 0, 0 },
	{ "__vdso_gettimeofday", SYS_gettimeofday, 0, 0 },
	{ "__vdso_time", SYS_time, 0, 0 },
	{ "__vdso_clock_getres", SYS_clock_getres, 0, 0 },
	{ "__vdso_getcpu", SYS_getcpu, 0, 0 },
};

static int vdso_scanned;

/* Range of the [vdso] mapping of TID. */
static int vdso_range(pid_t tid, uint64_t *lo, uint64_t *hi)
{
	char path[64], line[512];
	FILE *f;
	int err = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/maps", tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;

		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &a, &b) == 2) {
			*lo = a;
			*hi = b;
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

/* Find the functions' offsets in a copy of the guest's vDSO, with libelf. */
static int scan_vdso(pid_t tid)
{
	uint64_t lo = 0, hi = 0;
	char *image;
	Elf *elf;
	Elf_Scn *scn = NULL;
	int found = 0, err;

	err = vdso_range(tid, &lo, &hi);
	if (err)
		return err;
	image = xmalloc(hi - lo);
	err = tracer_read_mem(tid, lo, image, hi - lo);
	if (err || elf_version(EV_CURRENT) == EV_NONE || !(elf = elf_memory(image, hi - lo))) {
		free(image);
		return err ? err : -EINVAL;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value)
				continue;
			for (size_t k = 0; k < sizeof(vdso_fns) / sizeof(vdso_fns[0]); k++) {
				/* Both "__vdso_time" and "time" name one function. */
				if (strcmp(name, vdso_fns[k].name) == 0 ||
				    strcmp(name, vdso_fns[k].name + 7) == 0) {
					if (!vdso_fns[k].offset)
						found++;
					vdso_fns[k].offset = sym.st_value;
					vdso_fns[k].size = sym.st_size;
				}
			}
		}
	}
	elf_end(elf);
	free(image);
	vdso_scanned = 1;
	return found ? 0 : -ENOENT;
}

/* clock_gettime, gettimeofday and time of the vDSO at BASE in TID: the
 * fast code over the first, a jmp to their entries in it over the others.
 * 1 when patched, 0 when the vDSO has not the room (the syscall stubs
 * then), -errno. */
static int patch_fast(pid_t tid, uint64_t base)
{
	const struct vdso_fn *cg = &vdso_fns[0], *tod = &vdso_fns[1], *tm = &vdso_fns[2];
	size_t len = (size_t)(tracer_vdso_fast_end - tracer_vdso_fast_start);
	const struct vdso_fn *jumps[2] = { tod, tm };
	const unsigned char *entries[2] = { tracer_vdso_fast_gettimeofday, tracer_vdso_fast_time };
	int err;

	if (!cg->offset || !tod->offset || !tm->offset || cg->size < len || tod->size < 5 ||
	    tm->size < 5)
		return 0;
	for (int i = 0; i < 2; i++) {
		/* jmp rel32, from the end of the jmp to the entry */
		uint64_t to = cg->offset + (uint64_t)(entries[i] - tracer_vdso_fast_start);
		int32_t rel = (int32_t)(int64_t)(to - (jumps[i]->offset + 5));
		unsigned char jmp[5] = { 0xe9 };

		memcpy(jmp + 1, &rel, 4);
		err = tracer_poke_mem(tid, base + jumps[i]->offset, jmp, sizeof(jmp));
		if (err)
			return err;
	}
	err = tracer_poke_mem(tid, base + cg->offset, tracer_vdso_fast_start, len);
	return err ? err : 1;
}

int tracer_patch_vdso(pid_t tid, int fast)
{
	uint64_t base;
	int err;

	err = tracer_auxv(tid, AT_SYSINFO_EHDR, &base);
	if (err || !base)
		return 0; /* no vDSO mapped (vdso=0): every call is a syscall */
	if (!vdso_scanned) {
		err = scan_vdso(tid);
		if (err)
			return err;
	}
	if (fast) {
		err = patch_fast(tid, base);
		if (err < 0) {
			hm_error("cannot patch the vDSO of process %d: %s", tid, hm_strerror(err));
			return err;
		}
		fast = err;
	}
	for (size_t k = fast ? 3 : 0; k < sizeof(vdso_fns) / sizeof(vdso_fns[0]); k++) {
		unsigned char stub[8] = { 0xb8, 0, 0, 0, 0, 0x0f, 0x05, 0xc3 };
		uint32_t nr = (uint32_t)vdso_fns[k].nr;

		if (!vdso_fns[k].offset)
			continue;
		memcpy(stub + 1, &nr, 4);
		err = tracer_poke_mem(tid, base + vdso_fns[k].offset, stub, sizeof(stub));
		if (err) {
			hm_error("cannot patch the vDSO of process %d: %s", tid, hm_strerror(err));
			return err;
		}
	}
	return 0;
}

int tracer_in_vdso(pid_t tid, uint64_t pc)
{
	uint64_t lo, hi;

	return vdso_range(tid, &lo, &hi) == 0 && pc >= lo && pc < hi;
}
