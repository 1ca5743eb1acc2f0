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
 * vDSO image, so symbol offsets are read once, with libelf, from hermit's
 * own vDSO (getauxval(AT_SYSINFO_EHDR)).
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>

#include "common/common.h"
#include "tracer.h"

struct vdso_fn {
	const char *name;
	long nr;
	uint64_t offset; /* from the vDSO base; 0 when absent */
};

static struct vdso_fn vdso_fns[] = {
	{ "__vdso_clock_gettime", SYS_clock_gettime, 0 },
	{ "__vdso_gettimeofday", SYS_gettimeofday, 0 },
	{ "__vdso_time", SYS_time, 0 },
	{ "__vdso_clock_getres", SYS_clock_getres, 0 },
	{ "__vdso_getcpu", SYS_getcpu, 0 },
};

static int vdso_scanned;
static size_t vdso_size;

/* Size of the vDSO image: the end of its furthest PT_LOAD segment. */
static size_t image_size(const unsigned char *base)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	size_t end = 0;

	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph =
			(const Elf64_Phdr *)(base + eh->e_phoff + (size_t)i * eh->e_phentsize);

		if (ph->p_type == PT_LOAD && ph->p_offset + ph->p_filesz > end)
			end = ph->p_offset + ph->p_filesz;
	}
	/* The section headers (symbols need them) sit at the image's end. */
	if (eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize > end)
		end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	return end;
}

static int scan_own_vdso(void)
{
	const unsigned char *base = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	Elf *elf;
	Elf_Scn *scn = NULL;
	int found = 0;

	if (!base)
		return -ENOENT;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	vdso_size = image_size(base);
	elf = elf_memory((char *)base, vdso_size);
	if (!elf)
		return -EINVAL;
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
				}
			}
		}
	}
	elf_end(elf);
	vdso_scanned = 1;
	return found ? 0 : -ENOENT;
}

int tracer_patch_vdso(pid_t tid)
{
	uint64_t base;
	int err;

	if (!vdso_scanned) {
		err = scan_own_vdso();
		if (err) {
			hm_warn("cannot read the vDSO symbols: %s", hm_strerror(err));
			return err;
		}
	}
	err = tracer_auxv(tid, AT_SYSINFO_EHDR, &base);
	if (err)
		return 0; /* no vDSO mapped (vdso=0): every call is a syscall */
	for (size_t k = 0; k < sizeof(vdso_fns) / sizeof(vdso_fns[0]); k++) {
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
