/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ELF side of the planner: dw_patch_plan_file finds the executable
 * segment that holds a file offset, decodes its code sections
 * (plandecode.c) a chunk at a time, adds the entry points the decode
 * cannot see (function symbols, the entries of jump tables in the data)
 * and leaves alone code the program copies elsewhere, before patch.c
 * makes the plan.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "dwarf/planstate.h"

/*
 * Code the program copies elsewhere and runs there, which must keep its
 * original bytes: V8's embedded builtins (node and every V8 embedder),
 * which V8 copies next to its JIT code for short calls. A jump to a
 * trampoline, copied, lands nowhere. Like JIT code, they are not counted.
 */
static int copied_code(const char *name)
{
	return name && strncmp(name, "Builtins_", 9) == 0;
}

/* No site in [LO, HI), and nothing there taken along by one. */
static void leave_alone(struct plan_state *s, uint64_t lo, uint64_t hi)
{
	for (size_t a = plan_insn_from(s, lo); a < s->n && ia(s, a) < hi; a++)
		s->in[a].flags &= ~(unsigned)(I_SITE | I_MOVABLE | I_CHAOS);
}

/* Function symbols of ELF: entry points the decode cannot see, added
 * before the decode (which starts again at each: plandecode.c), or,
 * once it is done (DECODED), code left alone because it is copied. */
static void add_symbols(struct plan_state *s, Elf *elf, int decoded)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym sym;

			if (gelf_getsym(data, (int)k, &sym) &&
			    GELF_ST_TYPE(sym.st_info) == STT_OBJECT && sym.st_size &&
			    sym.st_value >= s->base && sym.st_value < s->base + s->size) {
				/* data in the code (patch.c: leave_data_alone), where
				 * the decode starts again too */
				if (!decoded) {
					plan_add_symbol(s, sym.st_value, 0);
					continue;
				}
				if (s->nobjects == s->cap_objects) {
					s->cap_objects = s->cap_objects ? 2 * s->cap_objects : 64;
					s->objects = xrealloc(s->objects, s->cap_objects *
										  sizeof(*s->objects));
				}
				s->objects[s->nobjects].start = sym.st_value;
				s->objects[s->nobjects++].end = sym.st_value + sym.st_size;
				continue;
			}
			if (gelf_getsym(data, (int)k, &sym) && sym.st_value &&
			    (GELF_ST_TYPE(sym.st_info) == STT_FUNC ||
			     GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC ||
			     GELF_ST_TYPE(sym.st_info) == STT_NOTYPE)) {
				if (!decoded)
					plan_add_symbol(s, sym.st_value,
							GELF_ST_TYPE(sym.st_info) != STT_NOTYPE);
				/* (its name only where it overlaps the segment) */
				else if (sym.st_size && sym.st_value <= s->base + s->size &&
				    sym.st_value + sym.st_size > s->base &&
				    copied_code(elf_strptr(elf, sh.sh_link, sym.st_name)))
					leave_alone(s, sym.st_value, sym.st_value + sym.st_size);
			}
		}
	}
}

/* ELF's SHT_PROGBITS sections, in the order of its section headers, each
 * read on first need. */
struct progbits {
	Elf_Scn *scn;
	uint64_t addr, size;
	const unsigned char *buf; /* once read */
	int bad;		  /* read, and not whole */
};

static struct progbits *progbits_list(Elf *elf, size_t *n)
{
	struct progbits *v = NULL;
	size_t cap = 0;
	Elf_Scn *scn = NULL;

	*n = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 32;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[(*n)++] = (struct progbits){ .scn = scn, .addr = sh.sh_addr, .size = sh.sh_size };
	}
	return v;
}

/* The bytes of ELF's data (its sections V, N of them) at link-time address
 * ADDR: LEN bytes, or NULL. */
static const unsigned char *data_at(struct progbits *v, size_t n, uint64_t addr, size_t len)
{
	for (size_t k = 0; k < n; k++) {
		struct progbits *p = &v[k];

		if (addr < p->addr || addr + len > p->addr + p->size)
			continue;
		if (!p->buf && !p->bad) {
			Elf_Data *data = elf_getdata(p->scn, NULL);

			if (!data || !data->d_buf || data->d_size != p->size)
				p->bad = 1;
			else
				p->buf = data->d_buf;
		}
		return p->bad ? NULL : p->buf + (addr - p->addr);
	}
	return NULL;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Jump tables: gcc and clang's position-independent switch tables are
 * 32-bit offsets from the table's own address, which a rip-relative lea
 * takes a few instructions before a jmp through a register (lea, movslq,
 * add, jmp *%reg); non-PIC ones are absolute 64-bit entries indexed by a jmp. Every
 * entry that lands in the code is an entry point (a case may be reached
 * by falling through as well, so nothing else marks it).
 */
/* Whether ADDR is the start of a decoded instruction. */
static int insn_start(const struct plan_state *s, uint64_t addr)
{
	if (s->unordered || addr < s->base || addr - s->base > s->size)
		return plan_insn_at(s, addr) < s->n;
	return (s->starts[(addr - s->base) / 8] >> ((addr - s->base) % 8)) & 1;
}

/* An entry of a table is good while it lands on an instruction of the
 * code; a table ends at the first that does not, or where the next one
 * begins (tables sit one after the other in .rodata). */
static void add_tables(struct plan_state *s, Elf *elf, const struct dw_patch_plan *plan)
{
	uint64_t lo = plan->exec_vaddr, hi = plan->exec_vaddr + plan->exec_size;
	size_t n = 0, nsec;
	struct progbits *sec = progbits_list(elf, &nsec);

	if (s->ntables) /* (qsort of NULL, none: undefined) */
		qsort(s->tables, s->ntables, sizeof(*s->tables), by_u64);
	/* Each once: a table found twice (two leas, or a lea and a movslq)
	 * would end where its own copy begins, with no entries. */
	for (size_t i = 0; i < s->ntables; i++) {
		if (!n || s->tables[n - 1] != s->tables[i])
			s->tables[n++] = s->tables[i];
	}
	s->ntables = n;
	for (size_t i = 0; i < s->ntables; i++) {
		uint64_t t = s->tables[i], end = i + 1 < s->ntables ? s->tables[i + 1] : UINT64_MAX;

		if (t >= lo && t < hi)
			continue; /* code (a function's address) */
		for (size_t k = 0; k < 65536 && t + 4 * k + 4 <= end; k++) {
			const unsigned char *p = data_at(sec, nsec, t + 4 * k, 4);
			uint64_t to;
			int32_t e;

			if (!p)
				break;
			memcpy(&e, p, 4);
			to = t + (uint64_t)(int64_t)e;
			if (to < lo || to >= hi || !insn_start(s, to))
				break;
			plan_add_target(s, to);
		}
	}
	for (size_t i = 0; i < s->nabs; i++) {
		for (size_t k = 0; k < 65536; k++) {
			const unsigned char *p =
				data_at(sec, nsec, s->abs_tables[i].addr + 8 * k, 8);
			uint64_t e;

			if (!p)
				break;
			memcpy(&e, p, 8);
			if (e < lo || e >= hi || !insn_start(s, e))
				break;
			plan_add_target(s, e);
		}
	}
	free(sec);
}

int dw_patch_plan_holds(const struct dw_patch_plan *plan, uint64_t offset)
{
	return (plan->exec_offset & ~(uint64_t)4095) <= offset &&
	       offset < plan->exec_offset + plan->exec_size;
}

int dw_patch_plan_file(const char *path, uint64_t offset, uint64_t seed, unsigned density,
		       struct dw_patch_plan *plan)
{
	struct plan_state s = { .seed = seed, .density = density };
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	Elf *elf;
	size_t nph;
	int fd, err = 0;
	struct stat st;
	unsigned char *chunk = NULL;

	memset(plan, 0, sizeof(*plan));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = fstat(fd, &st) == 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_machine != EM_X86_64 || elf_getphdrnum(elf, &nph) != 0) {
		err = -ENOEXEC;
		goto out;
	}
	/* File offset to link-time address, from the executable segment that
	 * holds OFFSET. */
	for (size_t k = 0; k < nph; k++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)k, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			plan->exec_vaddr = ph.p_vaddr;
			plan->exec_offset = ph.p_offset;
			plan->exec_size = ph.p_filesz;
			if (dw_patch_plan_holds(plan, offset))
				break;
			plan->exec_size = 0;
		}
	}
	if (!plan->exec_size) {
		err = -ENOEXEC;
		goto out;
	}
	if (plan->exec_size > UINT32_MAX) {
		err = -EFBIG; /* (struct insn) */
		goto out;
	}
	plan_targets_init(&s, plan->exec_vaddr, plan->exec_size);
	add_symbols(&s, elf, 0);
	chunk = xmalloc(DECODE_CHUNK);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_addr < plan->exec_vaddr ||
		    sh.sh_addr + sh.sh_size > plan->exec_vaddr + plan->exec_size)
			continue;
		/* (what elf_getdata would not read: none, or past the end) */
		if (!sh.sh_size || sh.sh_offset > (uint64_t)st.st_size ||
		    sh.sh_size > (uint64_t)st.st_size - sh.sh_offset)
			continue;
		plan_add_symbol(&s, sh.sh_addr, 1);
		err = plan_decode_section_fd(&s, fd, sh.sh_offset, sh.sh_size, sh.sh_addr, chunk);
		if (err)
			break;
	}
	add_symbols(&s, elf, 1);
	add_tables(&s, elf, plan);
	if (err) {
		plan_state_free(&s);
		goto out;
	}
	plan_finish(&s, plan);
out:
	free(chunk);
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

void dw_patch_plan_free(struct dw_patch_plan *plan)
{
	if (plan->blob.map)
		dw_cache_free(&plan->blob);
	else
		free(plan->ranges);
	memset(plan, 0, sizeof(*plan));
}
