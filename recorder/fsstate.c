/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a recorded run found on the file system (DESIGN.md "Replay";
 * docs/record-replay.md "The file system").
 *
 * A replay must not depend on the host's files as they are at replay
 * time. It runs in a private copy-on-write view of the file system, and
 * before its guest starts, every path the recorded run touched is put
 * back there as the run first found it: absent, a folder, a symbolic
 * link, a regular file of a size (whose bytes the log answers: reads are
 * input frames) or, for a file the run wrote, removed or cut, a file with
 * its content (a copy in files/). So the calls that change the file
 * system (mkdir, unlink, rename, open with O_CREAT, ...) run in the
 * replay against the same state and do the same, and their results are
 * the log's; the calls that only look (access, readlink, statfs, xattrs)
 * are answered from the log without running.
 *
 * A path is noted the first time a call names it, before the call runs,
 * with the folders above it; a path below one the run itself made, moved
 * or removed is the run's own and is not noted (the replay's guest makes
 * it again). The table below says which arguments of which calls are
 * paths (x86-64 argument order, arch/x86/entry/syscalls/syscall_64.tbl).
 *
 * This file also keeps the copies of files: the program and what the
 * run maps (files/, manifest.json).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/* How a replay treats a file-system call. */
enum fs_how {
	FS_NOTHING,
	FS_LOOK,   /* only looks: answered from the log, not run */
	FS_RUN,	   /* needs its paths as they were, runs, result from the log */
	FS_CHANGE, /* the same, and it changes its paths (their content is kept) */
};

/* One path operand: the folder descriptor's argument (-1: the working
 * folder) and the path's (-1: the descriptor itself). */
struct fs_operand {
	signed char dirfd, path;
};

struct fs_call {
	int nr;
	enum fs_how how;
	struct fs_operand op[2]; /* path -1 and dirfd -1: none */
	int made;		 /* bits: operands the call makes, moves or removes */
};

#define NONE           \
	{              \
		-1, -1 \
	}
#define CWD(p)        \
	{             \
		-1, p \
	}

static const struct fs_call calls[] = {
	{ SYS_mkdir, FS_CHANGE, { CWD(0), NONE }, 1 },
	{ SYS_mkdirat, FS_CHANGE, { { 0, 1 }, NONE }, 1 },
	{ SYS_mknod, FS_CHANGE, { CWD(0), NONE }, 1 },
	{ SYS_mknodat, FS_CHANGE, { { 0, 1 }, NONE }, 1 },
	{ SYS_unlink, FS_CHANGE, { CWD(0), NONE }, 1 },
	{ SYS_unlinkat, FS_CHANGE, { { 0, 1 }, NONE }, 1 },
	{ SYS_rmdir, FS_CHANGE, { CWD(0), NONE }, 1 },
	{ SYS_rename, FS_CHANGE, { CWD(0), CWD(1) }, 3 },
	{ SYS_renameat, FS_CHANGE, { { 0, 1 }, { 2, 3 } }, 3 },
	{ SYS_renameat2, FS_CHANGE, { { 0, 1 }, { 2, 3 } }, 3 },
	{ SYS_link, FS_CHANGE, { CWD(0), CWD(1) }, 2 },
	{ SYS_linkat, FS_CHANGE, { { 0, 1 }, { 2, 3 } }, 2 },
	{ SYS_symlink, FS_CHANGE, { CWD(1), NONE }, 1 },
	{ SYS_symlinkat, FS_CHANGE, { { 1, 2 }, NONE }, 1 },
	{ SYS_truncate, FS_CHANGE, { CWD(0), NONE }, 0 },
	{ SYS_chmod, FS_RUN, { CWD(0), NONE }, 0 },
	{ SYS_fchmodat, FS_RUN, { { 0, 1 }, NONE }, 0 },
	{ SYS_chown, FS_RUN, { CWD(0), NONE }, 0 },
	{ SYS_lchown, FS_RUN, { CWD(0), NONE }, 0 },
	{ SYS_fchownat, FS_RUN, { { 0, 1 }, NONE }, 0 },
	{ SYS_utime, FS_RUN, { CWD(0), NONE }, 0 },
	{ SYS_utimes, FS_RUN, { CWD(0), NONE }, 0 },
	{ SYS_futimesat, FS_RUN, { { 0, 1 }, NONE }, 0 },
	{ SYS_utimensat, FS_RUN, { { 0, 1 }, NONE }, 0 },
	{ SYS_setxattr, FS_RUN, { CWD(0), NONE }, 0 },
	{ SYS_lsetxattr, FS_RUN, { CWD(0), NONE }, 0 },
	{ SYS_removexattr, FS_RUN, { CWD(0), NONE }, 0 },
	{ SYS_lremovexattr, FS_RUN, { CWD(0), NONE }, 0 },
	{ SYS_chdir, FS_RUN, { CWD(0), NONE }, 0 },
	/* noted only (record): a script is kept with its content, which the
	 * kernel reads; a program is mapped, and kept as such (files/) */
	{ SYS_execve, FS_RUN, { CWD(0), NONE }, 0 },
	{ SYS_execveat, FS_RUN, { { 0, 1 }, NONE }, 0 },
	/* on a descriptor: its file was noted when it was opened */
	{ SYS_fchmod, FS_RUN, { NONE, NONE }, 0 },
	{ SYS_fchown, FS_RUN, { NONE, NONE }, 0 },
	{ SYS_ftruncate, FS_RUN, { NONE, NONE }, 0 },
	{ SYS_fallocate, FS_RUN, { NONE, NONE }, 0 },
	{ SYS_fsetxattr, FS_RUN, { NONE, NONE }, 0 },
	{ SYS_fremovexattr, FS_RUN, { NONE, NONE }, 0 },
	/* looks only */
	{ SYS_access, FS_LOOK, { NONE, NONE }, 0 },
	{ SYS_faccessat, FS_LOOK, { NONE, NONE }, 0 },
	{ SYS_faccessat2, FS_LOOK, { NONE, NONE }, 0 },
	{ SYS_readlink, FS_LOOK, { NONE, NONE }, 0 },
	{ SYS_readlinkat, FS_LOOK, { NONE, NONE }, 0 },
	{ SYS_statfs, FS_LOOK, { NONE, NONE }, 0 },
	{ SYS_fstatfs, FS_LOOK, { NONE, NONE }, 0 },
	{ SYS_getxattr, FS_LOOK, { NONE, NONE }, 0 },
	{ SYS_lgetxattr, FS_LOOK, { NONE, NONE }, 0 },
	{ SYS_fgetxattr, FS_LOOK, { NONE, NONE }, 0 },
	{ SYS_listxattr, FS_LOOK, { NONE, NONE }, 0 },
	{ SYS_llistxattr, FS_LOOK, { NONE, NONE }, 0 },
	{ SYS_flistxattr, FS_LOOK, { NONE, NONE }, 0 },
};

static const struct fs_call *find_call(long nr)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		if (calls[i].nr == nr)
			return &calls[i];
	}
	return NULL;
}

int rec_fs_answered(long nr)
{
	const struct fs_call *fc = find_call(nr);

	return fc && fc->how == FS_LOOK;
}

int rec_fs_runs(long nr)
{
	const struct fs_call *fc = find_call(nr);

	return fc && fc->how != FS_LOOK;
}

/* Files larger than this are not kept as they were before a write. */
#define BEFORE_MAX (64ull << 20)

/* ---- paths ---- */

/* Make PATH (absolute) lexical: no "//", "." or "..". */
static void normalize(char *path)
{
	char *out = path, *p = path;

	while (*p) {
		char *end;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchr(p, '/');
		n = end ? (size_t)(end - p) : strlen(p);
		if (n == 1 && p[0] == '.') {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (out > path && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, p, n);
			out += n;
		}
		p += n;
	}
	if (out == path)
		*out++ = '/';
	*out = 0;
}

int rec_fs_path(pid_t tid, int dirfd, uint64_t addr, char *out, size_t size)
{
	char name[4096], base[4096], link[64];
	ssize_t n;

	if (addr) {
		if (tracer_read_str(tid, addr, name, sizeof(name)) < 0)
			return -EFAULT;
	} else {
		name[0] = 0;
	}
	if (name[0] == '/') {
		snprintf(out, size, "%s", name);
		normalize(out);
		return 0;
	}
	if (dirfd != AT_FDCWD)
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", tid, dirfd);
	else
		snprintf(link, sizeof(link), "/proc/%d/cwd", tid);
	n = readlink(link, base, sizeof(base) - 1);
	if (n <= 0 || base[0] != '/')
		return -ENOENT;
	base[n] = 0;
	if (strstr(base, " (deleted)"))
		return -ENOENT;
	if ((size_t)snprintf(out, size, "%s/%s", base, name) >= size)
		return -ENAMETOOLONG;
	normalize(out);
	return 0;
}

/* ---- copies ---- */

/*
 * Keep a copy of PATH: never a hard link to the original, which a rebuild
 * that writes in place would change under the recording (and whose link
 * count other programs see). One copy per content in objects/, hard-linked
 * into the recording's files/, so recordings share what they have in
 * common; a copy into files/ where that cannot be.
 */
static int store_with(struct rec_files *f, const char *path, char hex[65], uint64_t *size,
		      int (*put)(const char *dir, const char *src, char hex[65], uint64_t *size))
{
	char obj[4096 + 80], mine[4096 + 80];
	int err;

	if (!f->objects)
		return put(f->dir, path, hex, size);
	err = put(f->objects, path, hex, size);
	if (err)
		return err;
	snprintf(obj, sizeof(obj), "%s/%s", f->objects, hex);
	snprintf(mine, sizeof(mine), "%s/%s", f->dir, hex);
	if (link(obj, mine) == 0 || errno == EEXIST)
		return 0;
	return put(f->dir, obj, hex, size);
}

static int store(struct rec_files *f, const char *path, char hex[65], uint64_t *size)
{
	return store_with(f, path, hex, size, hm_store_copy);
}

/* The same without fsync (hm_store_quick): copies a replay checks first. */
int rec_files_keep(struct rec_files *f, const char *path, char hex[65], uint64_t *size)
{
	if (!f || !f->dir)
		return -ENOENT;
	return store_with(f, path, hex, size, hm_store_quick);
}

int rec_files_add(struct rec_files *f, const char *path)
{
	struct stat st;
	char hex[65];
	uint64_t size;
	int err;

	if (!f || !f->dir || path[0] != '/' || strstr(path, " (deleted)"))
		return 0;
	for (size_t i = 0; i < f->n; i++) {
		if (strcmp(f->entries[i].path, path) == 0)
			return 0;
	}
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0; /* devices, /proc files: nothing to keep */
	err = store(f, path, hex, &size);
	if (err) {
		if (!f->failed)
			hm_warn("cannot copy '%s' into the recording: %s", path, hm_strerror(err));
		f->failed = err;
		return err;
	}
	f->entries = xrealloc(f->entries, (f->n + 1) * sizeof(*f->entries));
	memset(&f->entries[f->n], 0, sizeof(f->entries[f->n]));
	f->entries[f->n].path = xstrdup(path);
	memcpy(f->entries[f->n].sha256, hex, sizeof(hex));
	f->entries[f->n].size = size;
	f->n++;
	return 0;
}

void rec_files_free(struct rec_files *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->entries[i].path);
	for (size_t i = 0; i < f->nbefore; i++) {
		free(f->before[i].path);
		free(f->before[i].target);
	}
	free(f->entries);
	free(f->before);
	free(f->index);
	f->entries = NULL;
	f->before = NULL;
	f->index = NULL;
	f->n = f->nbefore = f->icap = 0;
}

/* ---- the state before ---- */

static int skipped(const char *path)
{
	return strncmp(path, "/proc/", 6) == 0 || strcmp(path, "/proc") == 0 ||
	       strncmp(path, "/dev/", 5) == 0 || strcmp(path, "/dev") == 0 ||
	       strncmp(path, "/sys/", 5) == 0 || strcmp(path, "/sys") == 0;
}

/* The slot of PATH (LEN bytes) in F's index: its entry, or a free one. */
static long *slot(const struct rec_files *f, const char *path, size_t len)
{
	size_t mask = f->icap - 1;

	for (size_t i = hm_fnv1a(HM_FNV1A_INIT, path, len) & mask;; i = (i + 1) & mask) {
		long *s = &f->index[i];

		if (*s < 0 ||
		    (strncmp(f->before[*s].path, path, len) == 0 && !f->before[*s].path[len]))
			return s;
	}
}

/* The entry of PATH's first LEN bytes, -1 when it is not known. */
static long find(const struct rec_files *f, const char *path, size_t len)
{
	return f->icap ? *slot(f, path, len) : -1;
}

static long add_entry(struct rec_files *f, const struct rec_file_entry *e)
{
	if ((f->nbefore + 1) * 2 > f->icap) {
		size_t cap = f->icap ? f->icap * 2 : 256;

		free(f->index);
		f->index = xmalloc(cap * sizeof(*f->index));
		for (size_t i = 0; i < cap; i++)
			f->index[i] = -1;
		f->icap = cap;
		for (size_t i = 0; i < f->nbefore; i++)
			*slot(f, f->before[i].path, strlen(f->before[i].path)) = (long)i;
	}
	f->before = xrealloc(f->before, (f->nbefore + 1) * sizeof(*f->before));
	f->before[f->nbefore] = *e;
	f->before[f->nbefore].path = xstrdup(e->path);
	*slot(f, e->path, strlen(e->path)) = (long)f->nbefore;
	return (long)f->nbefore++;
}

/* Whether PATH lies below (or is) a path the run made, moved or removed,
 * or one noted absent. */
static int runs_own(const struct rec_files *f, const char *path)
{
	for (size_t len = 1; path[len - 1]; len++) {
		long i;

		if (path[len] != '/' && path[len])
			continue;
		i = find(f, path, len);
		if (i >= 0 && (f->before[i].changed || f->before[i].kind == TRACER_PATH_ABSENT))
			return 1;
	}
	return 0;
}

/*
 * Note PATH (absolute, lexical) as it is now, unless it is known: its
 * index in F->before, or -1 when it is not noted (below a path the run
 * made, a device, a copy that failed). KEEP: a regular file's content is
 * kept, not only its size (the call may change it).
 */
static long note(struct rec_files *f, const char *path, int keep)
{
	struct rec_file_entry e = { 0 };
	char parent[4096], target[4096];
	struct stat st;
	const char *slash;
	long known = -1;
	ssize_t n;
	int err;

	if (skipped(path))
		return -1;
	known = find(f, path, strlen(path));
	if (known < 0 && runs_own(f, path))
		return -1;
	if (known >= 0) {
		struct rec_file_entry *b = &f->before[known];

		/* Known by its size, now about to change: its content too. */
		if (keep && b->kind == TRACER_PATH_SIZED && !b->changed && lstat(path, &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			if ((uint64_t)st.st_size > BEFORE_MAX)
				b->too_large = 1;
			else if (store(f, path, b->sha256, &b->size) == 0)
				b->kind = TRACER_PATH_FILE;
		}
		return known;
	}
	/* The folders above it first: a replay makes them where missing. */
	slash = strrchr(path, '/');
	if (slash && slash != path && (size_t)(slash - path) < sizeof(parent)) {
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
		note(f, parent, 0);
		/* Below a path noted absent: absent too, the replay removes it. */
		if (runs_own(f, path))
			return -1;
	}
	e.path = (char *)path;
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT)
			return -1;
		e.kind = TRACER_PATH_ABSENT;
		return add_entry(f, &e);
	}
	e.mode = st.st_mode & 07777;
	if (S_ISDIR(st.st_mode)) {
		e.kind = TRACER_PATH_DIR;
	} else if (S_ISLNK(st.st_mode)) {
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			return -1;
		target[n] = 0;
		e.kind = TRACER_PATH_SYMLINK;
		e.target = xstrdup(target);
	} else if (S_ISREG(st.st_mode)) {
		e.kind = TRACER_PATH_SIZED;
		e.size = (uint64_t)st.st_size;
		if (keep && (uint64_t)st.st_size > BEFORE_MAX) {
			hm_warn("'%s' is too large to keep as it was before the run changed it",
				path);
			e.too_large = 1;
		} else if (keep) {
			err = store(f, path, e.sha256, &e.size);
			if (err) {
				if (!f->failed)
					hm_warn("cannot copy '%s' into the recording: %s", path,
						hm_strerror(err));
				f->failed = err;
			} else {
				e.kind = TRACER_PATH_FILE;
			}
		}
	} else {
		return -1; /* a device, a socket, a named pipe: left as they are */
	}
	return add_entry(f, &e);
}

/* Whether operand OP of call C names a script ("#!"): the kernel reads
 * its first line, so a replay needs its content, not only its size. */
static int is_script(struct task *t, const struct rec_call *c, const struct fs_operand *op)
{
	char path[4096 + 8], head[2];
	int fd, yes;

	if (rec_fs_path(t->tid, (int)(op->dirfd < 0 ? AT_FDCWD : (int)c->args[op->dirfd]),
			c->args[op->path], path, sizeof(path)) < 0)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return 0;
	yes = read(fd, head, 2) == 2 && head[0] == '#' && head[1] == '!';
	close(fd);
	return yes;
}

/* Note operand OP of call C (record); -1 or its index. */
static long note_operand(struct rec *r, struct task *t, const struct rec_call *c,
			 const struct fs_operand *op, int keep)
{
	char path[4096 + 8];
	int dirfd = op->dirfd < 0 ? AT_FDCWD : (int)c->args[op->dirfd];

	if (op->path < 0 || !c->args[op->path])
		return -1;
	if (rec_fs_path(t->tid, dirfd, c->args[op->path], path, sizeof(path)) < 0)
		return -1;
	return note(r->opts->files, path, keep);
}

/* What lies below a folder the run renames: noted before the rename, or
 * a replay would find there the host's files as they are now. At most
 * TREE_MAX paths (a warning says when there were more). */
#define TREE_MAX 100000
static struct rec_files *tree_files; /* nftw passes no context */
static size_t tree_noted;

static int note_below(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level == 0)
		return 0;
	if (tree_noted++ >= TREE_MAX)
		return 1;
	note(tree_files, path, 0);
	return 0;
}

static void note_tree(struct rec_files *f, long at)
{
	char path[4096];

	if (at < 0 || f->before[at].kind != TRACER_PATH_DIR || f->before[at].changed)
		return;
	snprintf(path, sizeof(path), "%s", f->before[at].path);
	tree_files = f;
	tree_noted = 0;
	if (nftw(path, note_below, 16, FTW_PHYS | FTW_MOUNT) == 1)
		hm_warn("'%s' holds more than %d paths: a replay finds those past them as "
			"they are then",
			path, TREE_MAX);
}

void rec_fs_entry(struct rec *r, struct task *t, const struct rec_call *c)
{
	const struct fs_call *fc = find_call(c->nr);

	t->fs_noted[0] = t->fs_noted[1] = -1;
	if (r->opts->mode != REC_MODE_RECORD || !r->opts->files || !fc)
		return;
	for (int i = 0; i < 2; i++) {
		/* A link's new name, a removal, a cut: contents to keep. */
		int keep = fc->how == FS_CHANGE && (fc->made >> i & 1) && c->nr != SYS_mkdir &&
			   c->nr != SYS_mkdirat;

		if (c->nr == SYS_truncate)
			keep = 1;
		if ((c->nr == SYS_execve || c->nr == SYS_execveat) && i == 0)
			keep = is_script(t, c, &fc->op[0]);
		t->fs_noted[i] = note_operand(r, t, c, &fc->op[i], keep);
	}
	if (c->nr == SYS_rename || c->nr == SYS_renameat || c->nr == SYS_renameat2)
		note_tree(r->opts->files, t->fs_noted[0]);
}

void rec_fs_exit(struct rec *r, struct task *t, const struct rec_call *c)
{
	const struct fs_call *fc = find_call(c->nr);
	struct rec_files *f = r->opts->files;

	if (r->opts->mode != REC_MODE_RECORD || !f || !fc || c->ret < 0)
		return;
	for (int i = 0; i < 2; i++) {
		if ((fc->made >> i & 1) && t->fs_noted[i] >= 0 &&
		    (size_t)t->fs_noted[i] < f->nbefore)
			f->before[t->fs_noted[i]].changed = 1;
	}
	t->fs_noted[0] = t->fs_noted[1] = -1;
}

void rec_capture_open(struct rec *r, struct task *t, const struct rec_call *c)
{
	static const struct fs_operand open_op = CWD(0), openat_op = { 0, 1 };
	/* open, creat: (path, flags); openat, openat2: (dirfd, path, ...) */
	int at = rec_open_path_arg(c->nr);

	if (!r->opts->files)
		return;
	note_operand(r, t, c, at ? &openat_op : &open_op, rec_open_writes(rec_open_flags(t, c)));
}

void rec_capture_exec(struct rec *r, struct task *t)
{
	char path[64], line[4096 + 128];
	FILE *maps;

	if (r->opts->mode != REC_MODE_RECORD || !r->opts->files)
		return;
	/* The program and its interpreter, mapped by the kernel. */
	snprintf(path, sizeof(path), "/proc/%d/maps", t->tid);
	maps = fopen(path, "re");
	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		char *file = strchr(line, '/');

		if (!file)
			continue;
		file[strcspn(file, "\n")] = 0;
		rec_files_add(r->opts->files, file);
	}
	fclose(maps);
}
