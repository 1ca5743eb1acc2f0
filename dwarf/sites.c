/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Preemption sites (DESIGN.md "Preemption": sites). Where there is no
 * PMU, a thread is interrupted at breakpoints on instruction starts of its
 * own executable. A loop without syscalls must pass a backward branch on
 * every iteration, so those are always sites; chaos adds a seeded sample of
 * other instructions, which is what lets a preemption fall between a load
 * and the store that depends on it.
 */
#include "config.h"

#include <Zydis/Zydis.h>
#include <errno.h>

#include "dwarf.h"

static int never_a_site(const ZydisDecodedInstruction *zi)
{
	switch (zi->mnemonic) {
	case ZYDIS_MNEMONIC_SYSCALL:
	case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO:
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_RDTSC:
	case ZYDIS_MNEMONIC_RDTSCP:
	case ZYDIS_MNEMONIC_XBEGIN:
	case ZYDIS_MNEMONIC_XEND:
	case ZYDIS_MNEMONIC_XABORT:
		return 1;
	default:
		return 0;
	}
}

/* splitmix64 of the seed and address: whether chaos picks this one. */
static int picked(uint64_t seed, uint64_t addr, unsigned density)
{
	uint64_t z = seed ^ (addr * 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return density && z % density == 0;
}

int dw_sites_buf(const unsigned char *buf, size_t len, uint64_t vaddr, uint64_t seed,
		 unsigned density, size_t max, int (*cb)(const struct dw_site *site, void *arg),
		 void *arg)
{
	ZydisDecoder decoder;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	size_t off = 0;
	int found = 0;

	if (ZYAN_FAILED(
		    ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
		return -EINVAL;
	while (off < len && (size_t)found < max) {
		struct dw_site site = { vaddr + off, 0 };
		int take = 0;

		if (ZYAN_FAILED(ZydisDecoderDecodeFull(&decoder, buf + off, len - off, &zi, ops))) {
			off++;
			continue;
		}
		if (zi.meta.category == ZYDIS_CATEGORY_COND_BR ||
		    zi.meta.category == ZYDIS_CATEGORY_UNCOND_BR) {
			ZyanU64 target;

			if ((zi.attributes & ZYDIS_ATTRIB_IS_RELATIVE) &&
			    zi.operand_count_visible > 0 &&
			    ZYAN_SUCCESS(
				    ZydisCalcAbsoluteAddress(&zi, &ops[0], site.vaddr, &target)) &&
			    target <= site.vaddr) {
				site.backward = 1;
				take = 1;
			}
		} else if (!never_a_site(&zi) && zi.meta.category != ZYDIS_CATEGORY_CALL &&
			   zi.meta.category != ZYDIS_CATEGORY_RET) {
			take = picked(seed, site.vaddr, density);
		}
		if (take) {
			int err = cb ? cb(&site, arg) : 0;

			if (err < 0)
				return err;
			found++;
		}
		off += zi.length;
	}
	return found;
}

struct sites_args {
	uint64_t seed;
	unsigned density;
	size_t left;
	int (*cb)(const struct dw_site *site, void *arg);
	void *arg;
};

static int sites_section(const unsigned char *buf, size_t len, uint64_t vaddr, void *arg)
{
	struct sites_args *a = arg;
	int n = dw_sites_buf(buf, len, vaddr, a->seed, a->density, a->left, a->cb, a->arg);

	if (n > 0)
		a->left -= (size_t)n;
	return n;
}

int dw_sites(const char *path, uint64_t seed, unsigned density, size_t max,
	     int (*cb)(const struct dw_site *site, void *arg), void *arg)
{
	struct sites_args a = { seed, density, max, cb, arg };

	/* The program's own code: .text, not the PLT stubs or init glue. */
	return dw_for_code(path, 1, sites_section, &a);
}
