/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The modules a stopped guest has loaded, as gdb finds them without help
 * from the stub (solib-svr4.c): the program's bias from AT_ENTRY, its
 * PT_DYNAMIC's DT_DEBUG entry, which ld.so points at its struct r_debug,
 * and the link_map list from there (<link.h>). Each module's file is read
 * with libelf from a local copy: its segments (to serve reads of read-only
 * content without a round trip to the target), PT_GNU_EH_FRAME (for the
 * unwinder) and its symbols.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "dap/frames.h"

/* An object list longer than this is taken for a corrupt or cyclic one. */
#define MAX_OBJECTS 4096
#define MAX_SEGS    16

struct dap_sym {
	uint64_t addr, size; /* link-time */
	const char *name;    /* in the image */
};

struct dap_seg {
	uint64_t vaddr, memsz, filesz, offset;
	uint32_t flags; /* PF_R, PF_W, PF_X */
};

/* One ELF file, mapped read-only. */
struct dap_elf {
	const uint8_t *image;
	size_t size;
	Elf *elf;
	uint64_t entry;	  /* e_entry */
	uint64_t lo, hi;  /* link-time span of the PT_LOAD segments */
	uint64_t eh_hdr;  /* PT_GNU_EH_FRAME's address, 0 when none */
	uint64_t dynamic; /* PT_DYNAMIC's address, 0 when none */
	struct dap_seg segs[MAX_SEGS];
	size_t nsegs;
	struct dap_sym *syms; /* by address */
	size_t nsyms, capsyms;
};

static int by_addr(const void *a, const void *b)
{
	const struct dap_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void read_symbols(struct dap_elf *e)
{
	Elf_Scn *scn = NULL;
	int have_symtab = 0;

	/* .symtab holds every function; .dynsym only the exported ones, so it
	 * is read only where there is no .symtab (stripped libraries). */
	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			have_symtab = 1;
	}
	scn = NULL;
	while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) ||
		    sh.sh_type != (have_symtab ? SHT_SYMTAB : SHT_DYNSYM) || sh.sh_entsize == 0)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym s;
			const char *name;
			int type;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
			    s.st_value == 0)
				continue;
			type = GELF_ST_TYPE(s.st_info);
			if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT)
				continue;
			name = elf_strptr(e->elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			if (e->nsyms == e->capsyms) {
				e->capsyms = e->capsyms ? 2 * e->capsyms : 256;
				e->syms = xrealloc(e->syms, e->capsyms * sizeof(*e->syms));
			}
			e->syms[e->nsyms++] = (struct dap_sym){ s.st_value, s.st_size, name };
		}
	}
	if (e->nsyms)
		qsort(e->syms, e->nsyms, sizeof(*e->syms), by_addr);
}

static void elf_close(struct dap_elf *e)
{
	if (!e)
		return;
	if (e->elf)
		elf_end(e->elf);
	if (e->image != MAP_FAILED && e->image)
		munmap((void *)e->image, e->size);
	free(e->syms);
	free(e);
}

static struct dap_elf *elf_open(const char *file)
{
	struct dap_elf *e;
	struct stat st;
	GElf_Ehdr eh;
	size_t nph;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return NULL;
	}
	e = xcalloc(1, sizeof(*e));
	e->size = (size_t)st.st_size;
	e->image = mmap(NULL, e->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (e->image == MAP_FAILED) {
		e->image = NULL;
		free(e);
		return NULL;
	}
	e->elf = elf_memory((char *)e->image, e->size);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || elf_getphdrnum(e->elf, &nph) != 0)
		goto bad;
	e->entry = eh.e_entry;
	e->lo = UINT64_MAX;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e->elf, (int)i, &ph))
			goto bad;
		if (ph.p_type == PT_GNU_EH_FRAME) {
			e->eh_hdr = ph.p_vaddr;
		} else if (ph.p_type == PT_DYNAMIC) {
			e->dynamic = ph.p_vaddr;
		} else if (ph.p_type == PT_LOAD && e->nsegs < MAX_SEGS) {
			e->segs[e->nsegs++] = (struct dap_seg){ ph.p_vaddr, ph.p_memsz, ph.p_filesz,
								ph.p_offset, ph.p_flags };
			if (ph.p_vaddr < e->lo)
				e->lo = ph.p_vaddr;
			if (ph.p_vaddr + ph.p_memsz > e->hi)
				e->hi = ph.p_vaddr + ph.p_memsz;
		}
	}
	if (e->nsegs == 0)
		goto bad;
	read_symbols(e);
	return e;
bad:
	elf_close(e);
	return NULL;
}

void dap_modules_init(struct dap_modules *ms)
{
	memset(ms, 0, sizeof(*ms));
}

static void modules_clear(struct dap_modules *ms)
{
	for (size_t i = 0; i < ms->n; i++) {
		free(ms->v[i].name);
		free(ms->v[i].file);
		elf_close(ms->v[i].elf);
	}
	ms->n = 0;
}

void dap_modules_free(struct dap_modules *ms)
{
	modules_clear(ms);
	free(ms->v);
	memset(ms, 0, sizeof(*ms));
}

int dap_modules_add(struct dap_modules *ms, const char *name, const char *file, uint64_t bias)
{
	struct dap_module *m;

	if (ms->n == ms->cap) {
		ms->cap = ms->cap ? 2 * ms->cap : 16;
		ms->v = xrealloc(ms->v, ms->cap * sizeof(*ms->v));
	}
	m = &ms->v[ms->n++];
	memset(m, 0, sizeof(*m));
	m->name = xstrdup(name);
	m->file = file ? xstrdup(file) : NULL;
	m->bias = bias;
	m->elf = file ? elf_open(file) : NULL;
	if (m->elf) {
		m->lo = m->elf->lo + bias;
		m->hi = m->elf->hi + bias;
	}
	return 0;
}

const struct dap_module *dap_module_at(const struct dap_modules *ms, uint64_t pc)
{
	for (size_t i = 0; i < ms->n; i++)
		if (ms->v[i].elf && pc >= ms->v[i].lo && pc < ms->v[i].hi)
			return &ms->v[i];
	return NULL;
}

const char *dap_module_symbol(const struct dap_module *m, uint64_t pc, uint64_t *offset)
{
	const struct dap_elf *e = m->elf;
	uint64_t a;
	size_t lo = 0, hi;

	if (!e || e->nsyms == 0 || pc < m->bias)
		return NULL;
	a = pc - m->bias;
	hi = e->nsyms;
	/* The last symbol starting at or below A. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	/* Symbols of size 0 (hand-written assembly) cover up to the next. */
	for (size_t i = lo; i-- > 0;) {
		const struct dap_sym *s = &e->syms[i];

		if (s->size ? a < s->addr + s->size : i + 1 == lo) {
			if (offset)
				*offset = a - s->addr;
			return s->name;
		}
		if (s->addr != e->syms[lo - 1].addr)
			break;
	}
	return NULL;
}

int dap_module_symbol_addr(const struct dap_module *m, const char *name, uint64_t *addr,
			   uint64_t *size)
{
	const struct dap_elf *e = m->elf;

	if (!e)
		return -ENOENT;
	for (size_t i = 0; i < e->nsyms; i++)
		if (strcmp(e->syms[i].name, name) == 0) {
			*addr = e->syms[i].addr + m->bias;
			*size = e->syms[i].size;
			return 0;
		}
	return -ENOENT;
}

int dap_module_eh_frame_hdr(const struct dap_module *m, uint64_t *addr)
{
	if (!m->elf || !m->elf->eh_hdr)
		return -ENOENT;
	*addr = m->elf->eh_hdr + m->bias;
	return 0;
}

int dap_module_read(const struct dap_module *m, uint64_t addr, void *buf, size_t len)
{
	const struct dap_elf *e = m->elf;
	uint64_t a;

	if (!e || addr < m->bias)
		return -ENOENT;
	a = addr - m->bias;
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct dap_seg *s = &e->segs[i];

		/* Writable segments change as the guest runs (.got, .data). */
		if (s->flags & PF_W)
			continue;
		if (a >= s->vaddr && a + len <= s->vaddr + s->filesz && a + len >= a &&
		    s->offset + (a - s->vaddr) + len <= e->size) {
			memcpy(buf, e->image + s->offset + (a - s->vaddr), len);
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- the link map ---- */

static int read_u64(const struct dap_target *t, uint64_t addr, uint64_t *v)
{
	return t->read_mem(t->arg, addr, v, sizeof(*v));
}

/* A NUL-terminated string of the guest's, at most CAP - 1 bytes. */
static int read_str(const struct dap_target *t, uint64_t addr, char *buf, size_t cap)
{
	size_t n = 0;

	while (n + 1 < cap) {
		char chunk[64];
		/* Stay within one page: the next may not be mapped. */
		size_t want = 64 - (addr + n) % 64;
		int rc = t->read_mem(t->arg, addr + n, chunk, want);
		void *nul;

		if (rc < 0)
			return rc;
		if (want > cap - 1 - n)
			want = cap - 1 - n;
		nul = memchr(chunk, 0, want);
		if (nul) {
			memcpy(buf + n, chunk, (size_t)((char *)nul - chunk));
			n += (size_t)((char *)nul - chunk);
			buf[n] = 0;
			return 0;
		}
		memcpy(buf + n, chunk, want);
		n += want;
	}
	buf[n] = 0;
	return 0;
}

static void add_resolved(struct dap_modules *ms, const char *name, uint64_t bias,
			 dap_resolve_fn resolve, void *arg)
{
	char *file = resolve ? resolve(arg, name) : xstrdup(name);

	dap_modules_add(ms, name, file, bias);
	free(file);
}

/* The r_debug address ld.so left in the program's DT_DEBUG, or 0. */
static uint64_t r_debug_addr(const struct dap_module *prog, const struct dap_target *t)
{
	uint64_t dyn;

	if (!prog->elf || !prog->elf->dynamic)
		return 0;
	dyn = prog->elf->dynamic + prog->bias;
	for (int i = 0; i < 512; i++, dyn += 16) {
		uint64_t tag, val;

		if (read_u64(t, dyn, &tag) < 0 || tag == DT_NULL)
			return 0;
		if (tag == DT_DEBUG)
			return read_u64(t, dyn + 8, &val) < 0 ? 0 : val;
	}
	return 0;
}

int dap_modules_load(struct dap_modules *ms, const struct dap_target *t, const void *auxv,
		     size_t auxv_len, const char *program, dap_resolve_fn resolve,
		     void *resolve_arg)
{
	uint64_t at_entry = 0, at_base = 0, rdbg, lm;
	const uint64_t *av = auxv;
	char *file;

	modules_clear(ms);
	for (size_t i = 0; i + 1 < auxv_len / 8 && av[i] != AT_NULL; i += 2) {
		if (av[i] == AT_ENTRY)
			at_entry = av[i + 1];
		else if (av[i] == AT_BASE)
			at_base = av[i + 1];
	}
	if (!at_entry)
		return -EINVAL;
	file = resolve ? resolve(resolve_arg, program) : xstrdup(program);
	dap_modules_add(ms, program, file, 0);
	free(file);
	if (ms->v[0].elf) {
		ms->v[0].bias = at_entry - ms->v[0].elf->entry;
		ms->v[0].lo = ms->v[0].elf->lo + ms->v[0].bias;
		ms->v[0].hi = ms->v[0].elf->hi + ms->v[0].bias;
	}
	rdbg = r_debug_addr(&ms->v[0], t);
	/* struct r_debug { int r_version; struct link_map *r_map; ... } */
	if (!rdbg || read_u64(t, rdbg + 8, &lm) < 0 || !lm) {
		/* Before ld.so filled it in: only ld.so itself, at AT_BASE. */
		if (at_base && ms->v[0].elf) {
			GElf_Phdr ph;
			size_t nph;

			if (elf_getphdrnum(ms->v[0].elf->elf, &nph) == 0)
				for (size_t i = 0; i < nph; i++)
					if (gelf_getphdr(ms->v[0].elf->elf, (int)i, &ph) &&
					    ph.p_type == PT_INTERP &&
					    ph.p_offset + ph.p_filesz <= ms->v[0].elf->size &&
					    ph.p_filesz > 1) {
						char interp[4096];
						size_t n = ph.p_filesz < sizeof(interp)
								   ? ph.p_filesz
								   : sizeof(interp) - 1;

						memcpy(interp, ms->v[0].elf->image + ph.p_offset,
						       n);
						interp[n] = 0;
						add_resolved(ms, interp, at_base, resolve,
							     resolve_arg);
					}
		}
		return 0;
	}
	/* struct link_map { l_addr; char *l_name; l_ld; l_next; l_prev; } */
	for (int count = 0; lm && count < MAX_OBJECTS; count++) {
		uint64_t l_addr, l_name, next;
		char name[4096];

		if (read_u64(t, lm, &l_addr) < 0 || read_u64(t, lm + 8, &l_name) < 0 ||
		    read_u64(t, lm + 24, &next) < 0)
			return -EIO;
		/* The first entry is the program, named "" (added above);
		 * the vDSO has no file to read. */
		if (count > 0 && l_name && read_str(t, l_name, name, sizeof(name)) == 0 &&
		    name[0] == '/')
			add_resolved(ms, name, l_addr, resolve, resolve_arg);
		lm = next;
	}
	return 0;
}
