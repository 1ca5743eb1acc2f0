/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How long dw_patch_plan_file takes, uncached, and what it plans: for
 * each FILE, every executable segment is planned N times (-n, default 5)
 * and one line gives its counts, tramp_size, a digest of every range
 * (FNV-1a over the fields, so two planners can be compared byte for byte)
 * and the fastest and median times, wall-clock and CPU (the process's: on
 * a busy host the CPU time is the steadier figure). -s SEED and -d DENSITY plan as chaos
 * does; -v prints every range too; -z plans with Zydis alone (as before
 * dwarf/insnlen.c: the digests must not change). -x instead checks dw_insn_brief
 * against Zydis (dw_insn_brief_ref) at every byte offset of each segment
 * and says how many instructions, decoded in a line, it answered and
 * which first bytes it left to Zydis. Not a test: times depend on the
 * host.
 *
 *   bench/plantime -n 9 /lib/x86_64-linux-gnu/libc.so.6 /usr/bin/node
 */
#include "config.h"

#include <Zydis/Zydis.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dwarf/dwarf.h"

static uint64_t fnv(uint64_t h, uint64_t v, size_t bytes)
{
	for (size_t k = 0; k < bytes; k++) {
		h ^= (v >> (8 * k)) & 0xff;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t digest(const struct dw_patch_plan *p)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < p->n; i++) {
		const struct dw_patch_range *r = &p->ranges[i];

		h = fnv(h, r->addr, 8);
		h = fnv(h, r->len, 2);
		h = fnv(h, r->site, 2);
		h = fnv(h, r->kind, 1);
		h = fnv(h, r->slot, 8);
		h = fnv(h, r->target, 8);
	}
	h = fnv(h, p->n, 8);
	h = fnv(h, p->njump, 8);
	h = fnv(h, p->nint3, 8);
	h = fnv(h, p->npad, 8);
	h = fnv(h, p->ntarget, 8);
	h = fnv(h, p->nafter, 8);
	h = fnv(h, p->tramp_size, 8);
	h = fnv(h, p->exec_vaddr, 8);
	h = fnv(h, p->exec_offset, 8);
	return fnv(h, p->exec_size, 8);
}

static double now_ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* -x: the segment of PATH at file offset OFF, SIZE bytes. */
static int check(const char *path, uint64_t off, uint64_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	int fd = open(path, O_RDONLY | O_CLOEXEC), bad = 0;
	size_t hits = 0, n = 0, misses[256] = { 0 }, at = 0;
	ZydisDecoder dec;
	ZydisDecodedInstruction zi;

	if (fd < 0 || !buf || pread(fd, buf, size, (off_t)off) != (ssize_t)size) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(buf);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	close(fd);
	for (size_t k = 0; k < size; k++) {
		struct dw_insn_brief f, z;

		if (dw_insn_brief(buf + k, size - k, &f) &&
		    (!dw_insn_brief_ref(buf + k, size - k, &z) || f.len != z.len ||
		     f.kind != z.kind || f.reg != z.reg || f.rel != z.rel)) {
			if (bad++ < 20) {
				printf("  MISMATCH at 0x%zx: len %u kind %u reg %d rel %" PRId64
				       ", Zydis len %u kind %u reg %d rel %" PRId64 ":",
				       k, f.len, f.kind, f.reg, f.rel, z.len, z.kind, z.reg, z.rel);
				for (size_t b = 0; b < 15 && k + b < size; b++)
					printf(" %02x", buf[k + b]);
				printf("\n");
			}
		}
	}
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	ZydisDecoderEnableMode(&dec, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE);
	while (at < size) {
		struct dw_insn_brief f;
		size_t k = at;

		n++;
		if (dw_insn_brief(buf + at, size - at, &f)) {
			hits++;
			at += f.len;
			continue;
		}
		while (k < at + 4 && k < size &&
		       (buf[k] == 0x66 || buf[k] == 0xf2 || buf[k] == 0xf3 || buf[k] == 0x2e ||
			buf[k] == 0x3e || buf[k] == 0x64 || buf[k] == 0x65 ||
			(buf[k] & 0xf0) == 0x40))
			k++;
		misses[k < size && buf[k] == 0x0f && k + 1 < size ? buf[k + 1] : buf[k]]++;
		at += ZYAN_SUCCESS(
			      ZydisDecoderDecodeInstruction(&dec, NULL, buf + at, size - at, &zi))
			      ? zi.length
			      : 1;
	}
	printf("%s off=0x%" PRIx64 ": %d mismatches; %zu of %zu instructions answered "
	       "(%.1f%%); left to Zydis by opcode (0f xx as xx):",
	       path, off, bad, hits, n, n ? 100.0 * (double)hits / (double)n : 0.0);
	for (int top = 0; top < 24; top++) {
		size_t best = 0;
		int b = -1;

		for (int c = 0; c < 256; c++) {
			if (misses[c] > best) {
				best = misses[c];
				b = c;
			}
		}
		if (b < 0)
			break;
		printf(" %02x:%zu", b, best);
		misses[b] = 0;
	}
	printf("\n");
	free(buf);
	return bad != 0;
}

/* The file offsets of PATH's executable segments: up to MAX, how many
 * (and their sizes in SIZES). */
static size_t exec_offsets(const char *path, uint64_t *offs, uint64_t *sizes, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t nph, n = 0;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_getphdrnum(elf, &nph) == 0) {
		for (size_t k = 0; k < nph && n < max; k++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)k, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X)) {
				sizes[n] = ph.p_filesz;
				offs[n++] = ph.p_offset;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return n;
}

int main(int argc, char **argv)
{
	unsigned runs = 5, density = 0;
	uint64_t seed = 0;
	int verbose = 0, cross = 0, opt, status = 0;

	while ((opt = getopt(argc, argv, "n:s:d:vxz")) != -1) {
		switch (opt) {
		case 'n':
			runs = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			density = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'v':
			verbose = 1;
			break;
		case 'x':
			cross = 1;
			break;
		case 'z':
			dw_patch_zydis_only = 1;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-n RUNS] [-s SEED] [-d DENSITY] [-v] [-x] [-z] FILE...\n",
				argv[0]);
			return 2;
		}
	}
	if (runs < 1 || runs > 1000)
		runs = 5;
	elf_version(EV_CURRENT);
	for (int a = optind; a < argc; a++) {
		uint64_t offs[8], sizes[8];
		size_t noffs = exec_offsets(argv[a], offs, sizes, 8);

		if (!noffs) {
			fprintf(stderr, "%s: no executable segment\n", argv[a]);
			status = 1;
		}
		for (size_t o = 0; o < noffs; o++) {
			double ms[1000], cpu[1000];
			struct dw_patch_plan plan;
			uint64_t d = 0;
			int err = 0;

			if (cross) {
				status |= check(argv[a], offs[o], sizes[o]);
				continue;
			}
			for (unsigned r = 0; r < runs && !err; r++) {
				double t0 = now_ms(CLOCK_MONOTONIC);
				double c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);

				err = dw_patch_plan_file(argv[a], offs[o], seed, density, &plan);
				ms[r] = now_ms(CLOCK_MONOTONIC) - t0;
				cpu[r] = now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
				if (err)
					break;
				if (r == 0) {
					d = digest(&plan);
					printf("%s off=0x%" PRIx64
					       " ranges=%zu jump=%zu (target %zu) "
					       "int3=%zu pad=%zu after_call=%zu tramp_size=%zu "
					       "digest=%016" PRIx64,
					       argv[a], offs[o], plan.n, plan.njump, plan.ntarget,
					       plan.nint3, plan.npad, plan.nafter, plan.tramp_size, d);
					if (verbose) {
						for (size_t i = 0; i < plan.n; i++) {
							const struct dw_patch_range *g =
								&plan.ranges[i];

							printf("\n  %" PRIx64
							       " len %u site %u kind %u"
							       " slot %" PRIx64 " target %" PRIx64,
							       g->addr, g->len, g->site, g->kind,
							       g->slot, g->target);
						}
						printf("\n ");
					}
				} else if (digest(&plan) != d) {
					printf(" DIFFERS at run %u", r);
					status = 1;
				}
				dw_patch_plan_free(&plan);
			}
			if (err) {
				printf("%s off=0x%" PRIx64 ": error %d\n", argv[a], offs[o], err);
				status = 1;
				continue;
			}
			qsort(ms, runs, sizeof(*ms), by_double);
			qsort(cpu, runs, sizeof(*cpu), by_double);
			printf(" wall min=%.1fms median=%.1fms cpu min=%.1fms median=%.1fms\n",
			       ms[0], ms[runs / 2], cpu[0], cpu[runs / 2]);
			fflush(stdout);
		}
	}
	return status;
}
