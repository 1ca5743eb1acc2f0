/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source.h over the program's ELF symbol tables (libelf): .symtab, else
 * .dynsym. Functions sorted by address answer "which function holds this
 * pc"; functions and objects by name answer "where is this global". A
 * position-independent program is moved by the difference between its
 * run-time entry (AT_ENTRY) and the ELF header's. Lines wait for dwarf/.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "dap/source.h"

struct sym {
	uint64_t addr, size;
	char *name;
	int func;
};

struct dap_source {
	struct sym *syms; /* functions first by address, then the rest */
	size_t nsyms;
	uint64_t entry; /* e_entry */
	int pie;	/* ET_DYN */
	uint64_t bias;	/* run-time minus link-time */
};

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* (an alias with a size first: it is the function's own name) */
	return (x->size == 0) - (y->size == 0);
}

/* The symbols of SCN (a symbol table, links to its strings) into S. */
static void read_symtab(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct dap_source *s)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_OBJECT && type != STT_GNU_IFUNC)
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		s->syms = xrealloc(s->syms, (s->nsyms + 1) * sizeof(*s->syms));
		s->syms[s->nsyms++] = (struct sym){ sym.st_value, sym.st_size, xstrdup(name),
						    type != STT_OBJECT };
	}
}

int dap_source_open(const char *path, struct dap_source **out)
{
	struct dap_source *s;
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr sh, dynsh;
	GElf_Ehdr eh;
	int fd, have = 0;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    gelf_getclass(e) != ELFCLASS64) {
		if (e)
			elf_end(e);
		close(fd);
		return -ENOEXEC;
	}
	s = xcalloc(1, sizeof(*s));
	s->entry = eh.e_entry;
	s->pie = eh.e_type == ET_DYN;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			read_symtab(e, scn, &sh, s);
			have = 1;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dyn = scn;
			dynsh = sh;
		}
	}
	/* (a stripped program keeps its exported names) */
	if (!have && dyn)
		read_symtab(e, dyn, &dynsh, s);
	elf_end(e);
	close(fd);
	qsort(s->syms, s->nsyms, sizeof(*s->syms), by_addr);
	*out = s;
	return 0;
}

void dap_source_free(struct dap_source *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nsyms; i++)
		free(s->syms[i].name);
	free(s->syms);
	free(s);
}

void dap_source_set_entry(struct dap_source *s, uint64_t entry)
{
	s->bias = s->pie && entry ? entry - s->entry : 0;
}

int dap_source_function(const struct dap_source *s, uint64_t addr, const char **name,
			uint64_t *start)
{
	const struct sym *best = NULL;
	uint64_t a = addr - s->bias;
	size_t lo = 0, hi = s->nsyms;

	/* the last symbol at or below A, then back to a function that holds it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct sym *y = &s->syms[i];

		if (!y->func)
			continue;
		if (a < y->addr + (y->size ? y->size : 1))
			best = y;
		break;
	}
	if (!best)
		return -ENOENT;
	*name = best->name;
	*start = best->addr + s->bias;
	return 0;
}

int dap_source_symbol(const struct dap_source *s, const char *name, uint64_t *addr, uint64_t *size)
{
	for (size_t i = 0; i < s->nsyms; i++) {
		if (strcmp(s->syms[i].name, name) == 0) {
			*addr = s->syms[i].addr + s->bias;
			*size = s->syms[i].size;
			return 0;
		}
	}
	return -ENOENT;
}

int dap_source_has_lines(const struct dap_source *s)
{
	(void)s;
	return 0;
}

int dap_source_line(const struct dap_source *s, uint64_t addr, struct dap_source_loc *loc)
{
	(void)s;
	(void)addr;
	(void)loc;
	return -ENOSYS;
}
