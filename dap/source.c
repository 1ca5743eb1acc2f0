/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source.h over the modules of dap/modules.c and the DWARF of dwarf/. A
 * module's file is the recording's copy where manifest.json names one
 * (by the guest's path, or by that path with its links resolved on this
 * host, as the recorder wrote the manifest), else the host's file. The
 * DWARF of each file is opened once and kept across refreshes, which only
 * rebuild the list of modules and their biases.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "dap/source.h"

/* A file's DWARF, opened once. */
struct syms_slot {
	char *file;
	struct dw_syms *syms; /* NULL: none (no DWARF, or not readable) */
};

struct dap_source {
	char *program;
	char *recording; /* its folder, or NULL */
	char **map;	 /* pairs (original path, copy), NULL-ended */
	struct dap_modules mods;
	struct syms_slot *slots;
	size_t nslots;
	size_t prefetched; /* map pairs dap_source_prefetch went through */
};

/* The recording's files (common/manifest.c): none when its manifest is
 * missing or damaged, as then the replay refuses it too. */
static void load_manifest(struct dap_source *s)
{
	struct hm_manifest_file *kept;
	cJSON *doc;
	size_t n = 0, nkept;

	if (!s->recording || hm_manifest_read(s->recording, &doc) < 0)
		return;
	if (hm_manifest_files(doc, s->recording, &kept, &nkept) == 0) {
		s->map = xcalloc(2 * nkept + 2, sizeof(char *));
		for (size_t i = 0; i < nkept; i++) {
			s->map[n++] = kept[i].path;
			s->map[n++] = kept[i].copy;
			kept[i].path = kept[i].copy = NULL;
		}
		hm_manifest_free(kept, nkept);
	}
	cJSON_Delete(doc);
}

/* The local file to read for the guest's PATH (malloc'ed). */
static char *resolve(void *arg, const char *path)
{
	struct dap_source *s = arg;
	char real[PATH_MAX];
	const char *want[2] = { path, realpath(path, real) ? real : NULL };

	for (int k = 0; k < 2 && s->map; k++)
		for (size_t i = 0; want[k] && s->map[i]; i += 2)
			if (strcmp(s->map[i], want[k]) == 0)
				return xstrdup(s->map[i + 1]);
	return access(path, R_OK) == 0 ? xstrdup(path) : NULL;
}

int dap_source_open(const char *program, const char *recording_dir, struct dap_source **out)
{
	struct dap_source *s = xcalloc(1, sizeof(*s));
	char *file;

	s->program = xstrdup(program);
	s->recording = recording_dir ? xstrdup(recording_dir) : NULL;
	load_manifest(s);
	dap_modules_init(&s->mods);
	file = resolve(s, program);
	if (!file) {
		dap_source_free(s);
		return -ENOENT;
	}
	dap_modules_add(&s->mods, program, file, 0);
	free(file);
	if (!s->mods.v[0].elf) {
		dap_source_free(s);
		return -ENOEXEC;
	}
	*out = s;
	return 0;
}

void dap_source_free(struct dap_source *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->map && s->map[i]; i++)
		free(s->map[i]);
	free(s->map);
	for (size_t i = 0; i < s->nslots; i++) {
		free(s->slots[i].file);
		dw_syms_close(s->slots[i].syms);
	}
	free(s->slots);
	dap_modules_free(&s->mods);
	free(s->program);
	free(s->recording);
	free(s);
}

static int no_mem(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	(void)addr;
	(void)buf;
	(void)len;
	return -EIO;
}

static int no_reg(void *arg, int regno, uint64_t *val)
{
	(void)arg;
	(void)regno;
	(void)val;
	return -EIO;
}

void dap_source_set_entry(struct dap_source *s, uint64_t entry)
{
	/* An auxiliary vector of AT_ENTRY alone, and a target that reads
	 * nothing: the program, moved there. */
	uint64_t auxv[4] = { 9 /* AT_ENTRY */, entry, 0, 0 };
	struct dap_target none = { no_mem, no_reg, NULL };

	dap_modules_load(&s->mods, &none, auxv, sizeof(auxv), s->program, resolve, s);
}

int dap_source_refresh(struct dap_source *s, const struct dap_target *t, const void *auxv,
		       size_t auxv_len)
{
	struct dap_modules fresh;
	int err;

	dap_modules_init(&fresh);
	err = dap_modules_load(&fresh, t, auxv, auxv_len, s->program, resolve, s);
	if (err < 0 || fresh.n == 0 || !fresh.v[0].elf) {
		dap_modules_free(&fresh);
		return err < 0 ? err : -ENOEXEC;
	}
	dap_modules_free(&s->mods);
	s->mods = fresh;
	return 0;
}

const struct dap_modules *dap_source_modules(const struct dap_source *s)
{
	return &s->mods;
}

/* The slot of FILE, or NULL. */
static struct syms_slot *slot_of(const struct dap_source *s, const char *file)
{
	for (size_t i = 0; i < s->nslots; i++)
		if (strcmp(s->slots[i].file, file) == 0)
			return &s->slots[i];
	return NULL;
}

/* The DWARF of FILE, opened on first use. */
static struct dw_syms *file_syms(struct dap_source *s, const char *file)
{
	struct syms_slot *slot = slot_of(s, file);
	struct dw_syms *syms = NULL;

	if (slot)
		return slot->syms;
	if (dw_syms_open(file, &syms) < 0 || !dw_syms_debug_file(syms)) {
		dw_syms_close(syms);
		syms = NULL;
	}
	s->slots = xrealloc(s->slots, (s->nslots + 1) * sizeof(*s->slots));
	s->slots[s->nslots].file = xstrdup(file);
	s->slots[s->nslots].syms = syms;
	s->nslots++;
	return syms;
}

/* The DWARF of module M, opened on first use. */
static struct dw_syms *module_syms(const struct dap_source *cs, const struct dap_module *m)
{
	struct dap_source *s = (struct dap_source *)cs; /* the cache only */

	return m->file ? file_syms(s, m->file) : NULL;
}

/* Whether FILE starts as an ELF file does. */
static int is_elf(const char *file)
{
	unsigned char magic[4];
	FILE *f = fopen(file, "rb");
	int elf = f && fread(magic, 1, 4, f) == 4 && memcmp(magic, "\177ELF", 4) == 0;

	if (f)
		fclose(f);
	return elf;
}

int dap_source_prefetch(struct dap_source *s)
{
	while (s->map && s->map[2 * s->prefetched]) {
		const char *file = s->map[2 * s->prefetched + 1];

		s->prefetched++;
		if (!slot_of(s, file) && is_elf(file)) {
			file_syms(s, file);
			return 1;
		}
	}
	return 0;
}

struct dw_syms *dap_source_syms_at(const struct dap_source *s, uint64_t addr, uint64_t *bias)
{
	const struct dap_module *m = dap_module_at(&s->mods, addr);
	struct dw_syms *syms = m ? module_syms(s, m) : NULL;

	if (syms && bias)
		*bias = m->bias;
	return syms;
}

int dap_source_function(const struct dap_source *s, uint64_t addr, const char **name,
			uint64_t *start)
{
	const struct dap_module *m = dap_module_at(&s->mods, addr);
	struct dw_syms *syms = m ? module_syms(s, m) : NULL;
	struct dw_func f;
	uint64_t off;
	const char *n;

	if (!m)
		return -ENOENT;
	if (syms && dw_func_at(syms, addr - m->bias, &f) == 0 && f.name) {
		*name = f.name;
		*start = f.low + m->bias;
		return 0;
	}
	n = dap_module_symbol(m, addr, &off);
	if (!n)
		return -ENOENT;
	*name = n;
	*start = addr - off;
	return 0;
}

int dap_source_symbol(const struct dap_source *s, const char *name, uint64_t *addr, uint64_t *size)
{
	for (size_t i = 0; i < s->mods.n; i++)
		if (dap_module_symbol_addr(&s->mods.v[i], name, addr, size) == 0)
			return 0;
	return -ENOENT;
}

int dap_source_function_entry(const struct dap_source *s, const char *name, uint64_t *addr)
{
	uint64_t size;

	for (size_t i = 0; i < s->mods.n; i++) {
		struct dw_syms *syms = module_syms(s, &s->mods.v[i]);
		struct dw_func f;

		if (syms && dw_func_by_name(syms, name, &f, 1) > 0) {
			*addr = f.entry + s->mods.v[i].bias;
			return 0;
		}
	}
	return dap_source_symbol(s, name, addr, &size);
}

int dap_source_has_lines(const struct dap_source *s)
{
	for (size_t i = 0; i < s->mods.n; i++) {
		struct dw_syms *syms = module_syms(s, &s->mods.v[i]);

		if (syms && dw_source_file(syms, 0))
			return 1;
	}
	return 0;
}

int dap_source_line(const struct dap_source *s, uint64_t addr, struct dap_source_loc *loc)
{
	uint64_t bias = 0;
	struct dw_syms *syms = dap_source_syms_at(s, addr, &bias);
	struct dw_line l;

	if (!syms || dw_line_at(syms, addr - bias, &l) < 0 || !l.line)
		return -ENOENT;
	loc->path = l.file;
	loc->line = (int)l.line;
	loc->column = (int)l.column;
	return 0;
}

int dap_source_line_range(const struct dap_source *s, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	uint64_t bias = 0;
	struct dw_syms *syms = dap_source_syms_at(s, addr, &bias);

	if (!syms || dw_line_range(syms, addr - bias, lo, hi) < 0)
		return -ENOENT;
	*lo += bias;
	*hi += bias;
	return 0;
}

int dap_source_line_addrs(const struct dap_source *s, const char *path, unsigned line,
			  uint64_t *addrs, size_t max, unsigned *line_out)
{
	size_t total = 0;
	int found = 0;

	for (size_t i = 0; i < s->mods.n; i++) {
		struct dw_syms *syms = module_syms(s, &s->mods.v[i]);
		unsigned moved = line;
		int n;

		if (!syms)
			continue;
		n = dw_line_addrs(syms, path, line, total < max ? addrs + total : NULL,
				  total < max ? max - total : 0, &moved);
		if (n <= 0)
			continue;
		for (size_t k = 0; k < (size_t)n && total + k < max; k++)
			addrs[total + k] += s->mods.v[i].bias;
		if (!found || moved < *line_out)
			*line_out = moved;
		found = 1;
		total += (size_t)n;
	}
	return found ? (int)total : -ENOENT;
}

const char *dap_source_file(const struct dap_source *s, size_t i)
{
	for (size_t m = 0; m < s->mods.n; m++) {
		struct dw_syms *syms = module_syms(s, &s->mods.v[m]);
		const char *f;
		size_t k = 0;

		if (!syms)
			continue;
		while ((f = dw_source_file(syms, k)) != NULL) {
			if (i == 0)
				return f;
			i--;
			k++;
		}
	}
	return NULL;
}

const char *dap_source_guest_path(const struct dap_source *s, const char *name)
{
	for (size_t i = 0; s->map && s->map[i]; i += 2)
		if (strcmp(s->map[i + 1], name) == 0)
			return s->map[i];
	return name;
}
