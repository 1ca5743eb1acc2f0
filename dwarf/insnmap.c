/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The instruction map: Zydis decodes each executable section that libelf
 * hands us, instruction by instruction. Bytes Zydis cannot decode (padding,
 * or data a hand-written assembler file left in .text) are stepped over
 * one at a time, as objdump does.
 */
#include "config.h"

#include <Zydis/Zydis.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "dwarf.h"

static const char *const kind_names[] = {
	[DW_INSN_RDTSC] = "rdtsc",   [DW_INSN_RDTSCP] = "rdtscp", [DW_INSN_RDRAND] = "rdrand",
	[DW_INSN_RDSEED] = "rdseed", [DW_INSN_RDPID] = "rdpid",	  [DW_INSN_CPUID] = "cpuid",
};

const char *dw_insn_kind_name(enum dw_insn_kind kind)
{
	return kind_names[kind];
}

static int classify(ZydisMnemonic m, enum dw_insn_kind *kind)
{
	switch (m) {
	case ZYDIS_MNEMONIC_RDTSC:
		*kind = DW_INSN_RDTSC;
		return 1;
	case ZYDIS_MNEMONIC_RDTSCP:
		*kind = DW_INSN_RDTSCP;
		return 1;
	case ZYDIS_MNEMONIC_RDRAND:
		*kind = DW_INSN_RDRAND;
		return 1;
	case ZYDIS_MNEMONIC_RDSEED:
		*kind = DW_INSN_RDSEED;
		return 1;
	case ZYDIS_MNEMONIC_RDPID:
		*kind = DW_INSN_RDPID;
		return 1;
	case ZYDIS_MNEMONIC_CPUID:
		*kind = DW_INSN_CPUID;
		return 1;
	default:
		return 0;
	}
}

int dw_insn_scan_buf(const unsigned char *buf, size_t len, uint64_t vaddr,
		     int (*cb)(const struct dw_insn *insn, void *arg), void *arg)
{
	ZydisDecoder decoder;
	ZydisDecodedInstruction zi;
	size_t off = 0;
	int found = 0;

	if (ZYAN_FAILED(
		    ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
		return -EINVAL;
	while (off < len) {
		struct dw_insn insn;

		if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(&decoder, NULL, buf + off, len - off,
							      &zi))) {
			off++;
			continue;
		}
		if (classify(zi.mnemonic, &insn.kind)) {
			int err;

			insn.vaddr = vaddr + off;
			insn.length = zi.length;
			found++;
			err = cb ? cb(&insn, arg) : 0;
			if (err < 0)
				return err;
		}
		off += zi.length;
	}
	return found;
}

static Elf *open_elf(const char *path, int *fd)
{
	Elf *elf;
	GElf_Ehdr eh;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_machine != EM_X86_64 || gelf_getclass(elf) != ELFCLASS64) {
		if (elf)
			elf_end(elf);
		close(*fd);
		*fd = -1;
		errno = ENOEXEC;
		return NULL;
	}
	return elf;
}

int dw_for_code(const char *path, int text_only,
		int (*fn)(const unsigned char *buf, size_t len, uint64_t vaddr, void *arg),
		void *arg)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int fd, total = 0;
	Elf *elf = open_elf(path, &fd);

	if (!elf)
		return -errno;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		text_only = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *name;
		int n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		if (text_only && (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    strcmp(name, ".text") != 0)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		n = fn(data->d_buf, data->d_size, sh.sh_addr, arg);
		if (n < 0) {
			total = n;
			break;
		}
		total += n;
	}
	elf_end(elf);
	close(fd);
	return total;
}

struct scan_args {
	int (*cb)(const struct dw_insn *insn, void *arg);
	void *arg;
};

static int scan_section(const unsigned char *buf, size_t len, uint64_t vaddr, void *arg)
{
	struct scan_args *a = arg;

	return dw_insn_scan_buf(buf, len, vaddr, a->cb, a->arg);
}

int dw_insn_scan(const char *path, int (*cb)(const struct dw_insn *insn, void *arg), void *arg)
{
	struct scan_args a = { cb, arg };

	return dw_for_code(path, 0, scan_section, &a);
}

int dw_elf_load_base(const char *path, uint64_t *vaddr, int *pie)
{
	GElf_Ehdr eh;
	size_t n;
	int fd, err = -ENOEXEC;
	Elf *elf = open_elf(path, &fd);

	if (!elf)
		return -errno;
	gelf_getehdr(elf, &eh);
	*pie = eh.e_type == ET_DYN;
	if (elf_getphdrnum(elf, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
				*vaddr = ph.p_vaddr & ~(uint64_t)0xfff;
				err = 0;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return err;
}
