/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Opening a file's symbols. The DWARF is the file's own when it has a
 * .debug_info, else a separate debug file, looked up as gdb does
 * ("Separate Debug Files" in its manual): by build id under the debug
 * root (.build-id/xx/yyyy.debug), then by .gnu_debuglink beside the file,
 * in .debug/ beside it and under the debug root with the file's directory,
 * a debuglink candidate kept only when its CRC-32 matches. libelf reads the
 * notes and sections; libdwarf (dwarf_init_b) the DWARF. Its compilation
 * units are indexed here and read on demand (units.c), as is the rest.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "common/common.h"
#include "dwarf/internal.h"

void sym_drop_error(Dwarf_Debug dbg, Dwarf_Error *err)
{
	if (*err) {
		dwarf_dealloc(dbg, *err, DW_DLA_ERROR);
		*err = NULL;
	}
}

/* Join DIR and NAME and fold "." and ".." lexically, as a path shown to a
 * user must not depend on how the build spelled it. */
char *sym_path_join(const char *dir, const char *name)
{
	size_t n = (dir ? strlen(dir) : 0) + strlen(name) + 2;
	char *joined = xmalloc(n), *out = xmalloc(n);
	size_t len = 0;

	if (name[0] == '/' || !dir || !dir[0])
		snprintf(joined, n, "%s", name);
	else
		snprintf(joined, n, "%s/%s", dir, name);
	int abs = joined[0] == '/';
	char *save = NULL;
	out[0] = 0;
	for (char *p = strtok_r(joined, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (!strcmp(p, "."))
			continue;
		if (!strcmp(p, "..") && len > 0) {
			char *slash = strrchr(out, '/');
			const char *last = slash ? slash + 1 : out;
			if (strcmp(last, "..")) {
				len = slash ? (size_t)(slash - out) : 0;
				out[len] = 0;
				continue;
			}
		}
		len += (size_t)snprintf(out + len, n - len, "%s%s", len || abs ? "/" : "", p);
	}
	if (!len)
		snprintf(out, n, "%s", abs ? "/" : ".");
	free(joined);
	return out;
}

static uint32_t str_hash(const char *p)
{
	uint32_t h = 2166136261u;
	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h;
}

uint32_t sym_file_intern(struct dw_syms *s, const char *dir, const char *name)
{
	char *path = sym_path_join(dir, name);

	if (s->nfiles * 2 >= s->file_hash_cap) {
		size_t cap = s->file_hash_cap ? s->file_hash_cap * 2 : 64;
		free(s->file_hash);
		s->file_hash = xcalloc(cap, sizeof(*s->file_hash));
		s->file_hash_cap = cap;
		for (size_t i = 0; i < s->nfiles; i++) {
			size_t h = str_hash(s->files[i]) & (cap - 1);
			while (s->file_hash[h])
				h = (h + 1) & (cap - 1);
			s->file_hash[h] = (uint32_t)i + 1;
		}
	}
	size_t h = str_hash(path) & (s->file_hash_cap - 1);
	for (; s->file_hash[h]; h = (h + 1) & (s->file_hash_cap - 1)) {
		if (!strcmp(s->files[s->file_hash[h] - 1], path)) {
			free(path);
			return s->file_hash[h] - 1;
		}
	}
	if (s->nfiles == s->files_cap) {
		s->files_cap = s->files_cap ? s->files_cap * 2 : 32;
		s->files = xrealloc(s->files, s->files_cap * sizeof(*s->files));
	}
	s->files[s->nfiles] = path;
	s->file_hash[h] = (uint32_t)++s->nfiles;
	return (uint32_t)s->nfiles - 1;
}

const char *sym_file_name(const struct dw_syms *s, int32_t idx)
{
	return idx >= 0 && (size_t)idx < s->nfiles ? s->files[idx] : NULL;
}

const char *dw_source_file(struct dw_syms *syms, size_t i)
{
	sym_units_files(syms);
	return i < syms->nfiles ? syms->files[i] : NULL;
}

const char *dw_syms_debug_file(const struct dw_syms *syms)
{
	return syms->debug_file;
}

/* What the ELF file says about its debug info. */
struct elf_facts {
	int has_debug_info;
	unsigned char build_id[64];
	size_t build_id_len;
	char debuglink[256];
	uint32_t debuglink_crc;
};

static int elf_facts(int fd, struct elf_facts *f)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	memset(f, 0, sizeof(*f));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -ENOEXEC;
	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		elf_end(elf);
		return -ENOEXEC;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".debug_info") && sh.sh_type != SHT_NOBITS && sh.sh_size)
			f->has_debug_info = 1;
		else if (sh.sh_type == SHT_NOTE && !f->build_id_len) {
			size_t off = 0, noff, doff;
			GElf_Nhdr nh;
			d = elf_getdata(scn, NULL);
			while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
				    !memcmp((char *)d->d_buf + noff, "GNU", 4) &&
				    nh.n_descsz <= sizeof(f->build_id)) {
					memcpy(f->build_id, (char *)d->d_buf + doff, nh.n_descsz);
					f->build_id_len = nh.n_descsz;
				}
			}
		} else if (!strcmp(name, ".gnu_debuglink") && (d = elf_getdata(scn, NULL)) &&
			   d->d_size > 4) {
			size_t n = strnlen(d->d_buf, d->d_size);
			size_t crc_off = (n + 4) & ~(size_t)3;
			if (n < sizeof(f->debuglink) && crc_off + 4 <= d->d_size) {
				memcpy(f->debuglink, d->d_buf, n);
				f->debuglink[n] = 0;
				memcpy(&f->debuglink_crc, (char *)d->d_buf + crc_off, 4);
			}
		}
	}
	elf_end(elf);
	return 0;
}

static int file_crc(const char *path, uint32_t *crc)
{
	unsigned char buf[65536];
	ssize_t n;
	uLong c = crc32(0, NULL, 0);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		c = crc32(c, buf, (uInt)n);
	close(fd);
	*crc = (uint32_t)c;
	return n < 0 ? -EIO : 0;
}

/* The separate debug file of PATH, or NULL. */
static char *find_debug_file(const char *path, const char *root, const struct elf_facts *f)
{
	char buf[4096];

	if (f->build_id_len >= 2) {
		int n = snprintf(buf, sizeof(buf), "%s/.build-id/%02x/", root, f->build_id[0]);
		for (size_t i = 1; i < f->build_id_len && n < (int)sizeof(buf) - 8; i++)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%02x", f->build_id[i]);
		snprintf(buf + n, sizeof(buf) - (size_t)n, ".debug");
		if (access(buf, R_OK) == 0)
			return xstrdup(buf);
	}
	if (f->debuglink[0]) {
		char *dir = sym_path_join(NULL, path);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		const char *d = slash ? dir : ".";
		for (int i = 0; i < 3; i++) {
			if (i == 0)
				snprintf(buf, sizeof(buf), "%s/%s", d, f->debuglink);
			else if (i == 1)
				snprintf(buf, sizeof(buf), "%s/.debug/%s", d, f->debuglink);
			else
				snprintf(buf, sizeof(buf), "%s%s/%s", root, d, f->debuglink);
			uint32_t crc;
			/* the debuglink names a file; PATH itself is not its own */
			if (strcmp(buf, path) && file_crc(buf, &crc) == 0 &&
			    crc == f->debuglink_crc) {
				free(dir);
				return xstrdup(buf);
			}
		}
		free(dir);
	}
	return NULL;
}

static int open_dwarf(const char *path, int *fd, Dwarf_Debug *dbg)
{
	Dwarf_Error err = NULL;
	int res;

	*dbg = NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	res = dwarf_init_b(*fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, dbg, &err);
	if (res != DW_DLV_OK) {
		sym_drop_error(NULL, &err);
		close(*fd);
		*fd = -1;
		*dbg = NULL;
		return res == DW_DLV_NO_ENTRY ? -ENOENT : -EINVAL;
	}
	return 0;
}

int dw_syms_open_dir(const char *path, const char *debug_root, struct dw_syms **out)
{
	struct elf_facts f;
	struct dw_syms *s;
	char *debug = NULL;
	int fd, r;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = elf_facts(fd, &f);
	close(fd);
	if (r < 0)
		return r;
	s = xcalloc(1, sizeof(*s));
	s->fd = s->frame_fd = -1;
	if (f.has_debug_info)
		debug = xstrdup(path);
	else
		debug = find_debug_file(path, debug_root ? debug_root : "/usr/lib/debug", &f);
	if (debug && open_dwarf(debug, &s->fd, &s->dbg) == 0) {
		s->debug_file = debug;
		debug = NULL;
	}
	free(debug);
	/* A separate debug file's .eh_frame is NOBITS: frames come from PATH. */
	if (s->dbg && f.has_debug_info)
		s->frame_dbg = s->dbg;
	else
		open_dwarf(path, &s->frame_fd, &s->frame_dbg);
	if (s->dbg && (r = sym_units_index(s)) < 0) {
		dw_syms_close(s);
		return r;
	}
	*out = s;
	return 0;
}

int dw_syms_open(const char *path, struct dw_syms **out)
{
	return dw_syms_open_dir(path, NULL, out);
}

void dw_syms_close(struct dw_syms *s)
{
	Dwarf_Error err = NULL;

	if (!s)
		return;
	sym_frames_free(s);
	sym_types_free(s);
	sym_named_free(s);
	sym_units_free(s);
	if (s->frame_dbg && s->frame_dbg != s->dbg) {
		dwarf_finish(s->frame_dbg, &err);
		sym_drop_error(NULL, &err);
	}
	if (s->dbg) {
		dwarf_finish(s->dbg, &err);
		sym_drop_error(NULL, &err);
	}
	if (s->fd >= 0)
		close(s->fd);
	if (s->frame_fd >= 0)
		close(s->frame_fd);
	for (size_t i = 0; i < s->nscopes; i++)
		free(s->scopes[i].ranges);
	free(s->scopes);
	free(s->rows);
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i]);
	free(s->files);
	free(s->file_hash);
	free(s->debug_file);
	free(s);
}
