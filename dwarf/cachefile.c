/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Files kept across runs in the cache folder (docs/preemption.md
 * "Planning"): what Hermit made from a guest's file (a plan, the rdtsc
 * sites, patched code) depends only on the file's bytes, a few numbers
 * and Hermit itself. So each is kept under the SHA-256 of the file, in a
 * folder named by the SHA-256 of the hermit binary (a rebuilt hermit never
 * reads an older one's files). The file's hash is itself kept under its
 * device, inode, size, mtime and ctime (DIR/files), so a file that has not
 * changed is not read again. A replay's copies of the files have the
 * recording's contents, so they find the recording's.
 *
 * A kept file: an 8-byte magic, the body's length, the body, and a digest
 * of all that before it. One that is short, damaged or of another layout
 * is a miss, made again and replaced. Writes are atomic (hm_write_atomic),
 * so a reader sees a whole file or none. Bodies can be large (the patched
 * code of a 20 MB program and its trampolines: 130 MB), so they are
 * mapped, not read, and their digest is XXH3-64.
 *
 * Each rebuilt hermit starts a folder of its own, and nothing reads an
 * older one's again but that older binary. So when a binary makes its
 * folder, the folders of all but the KEEP_OTHERS most recently used other
 * binaries are deleted (a reader that has a file mapped keeps its pages;
 * a writer whose folder went misses and stores nothing, as with a full
 * disk).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "common/common.h"
#include "dwarf.h"

#define HEAD DW_CACHE_HEAD /* magic, body length */
#define TAIL 8	/* digest */

#define KEEP_OTHERS 2

/* Whether NAME is a binary's folder: 16 lower-case hex digits. */
static int is_binary_folder(const char *name)
{
	return strlen(name) == 16 && strspn(name, "0123456789abcdef") == 16;
}

/* Delete the folder NAME of DIR and the files in it. */
static void remove_folder(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, ".."))
			unlinkat(fd, de->d_name, 0);
	closedir(d);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* The binaries' folders of DIR but SELF, all but the KEEP_OTHERS most
 * recently modified of them deleted. */
static void prune_others(const char *dir, const char *self)
{
	struct other {
		char name[17];
		struct timespec mtime;
	} keep[KEEP_OTHERS + 1];
	size_t nkeep = 0;
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;
		struct other o;
		size_t i;

		if (!is_binary_folder(de->d_name) || strncmp(de->d_name, self, 16) == 0 ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		memcpy(o.name, de->d_name, 17);
		o.mtime = st.st_mtim;
		/* Insert by mtime, newest first; what falls off the end goes. */
		for (i = nkeep; i > 0 && (keep[i - 1].mtime.tv_sec < o.mtime.tv_sec ||
					  (keep[i - 1].mtime.tv_sec == o.mtime.tv_sec &&
					   keep[i - 1].mtime.tv_nsec < o.mtime.tv_nsec));
		     i--)
			keep[i] = keep[i - 1];
		keep[i] = o;
		if (nkeep < KEEP_OTHERS + 1)
			nkeep++;
		if (nkeep == KEEP_OTHERS + 1) {
			remove_folder(dirfd(d), keep[KEEP_OTHERS].name);
			nkeep--;
		}
	}
	closedir(d);
}

/* mkdir PATH (0700), ignoring one that is there. */
static int ensure_dir(const char *path)
{
	return mkdir(path, 0700) == 0 || errno == EEXIST ? 0 : -errno;
}

/* The SHA-256 of PATH, through the inode memo in DIR/files. */
static int content_hash(const char *dir, const char *path, char hex[65])
{
	char memo[4200];
	struct stat st;
	int fd, err;

	if (stat(path, &st) < 0)
		return -errno;
	snprintf(memo, sizeof(memo), "%s/files/%llx-%llx-%llx-%lld.%09ld-%lld.%09ld", dir,
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
		 (unsigned long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	fd = open(memo, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		err = hm_read_all(fd, hex, 64);
		close(fd);
		hex[64] = 0;
		if (!err && strspn(hex, "0123456789abcdef") == 64)
			return 0;
	}
	err = hm_sha256_file(path, hex);
	if (err)
		return err;
	hm_write_atomic(memo, hex, 64); /* a cache: losing it costs a hash */
	return 0;
}

/* The SHA-256 of the running hermit binary, once (through the memo in
 * DIR/files too: hashing the 2 MB binary was a few ms of every run). */
static const char *self_hash(const char *dir)
{
	static char hex[65];
	static int done;

	if (!done) {
		done = 1;
		if (content_hash(dir, "/proc/self/exe", hex) < 0)
			hex[0] = 0;
	}
	return hex[0] ? hex : NULL;
}

const char *dw_cache_dir(void)
{
	static char *dir;
	static int known;

	if (!known) {
		known = 1;
		dir = hm_cachedir_path();
	}
	return dir;
}

int dw_cache_name(const char *dir, const char *path, const char *kind, char *out, size_t size)
{
	char hex[65], sub[4200];
	const char *self;
	int err;

	if (!dir)
		return -ENOENT;
	err = hm_mkdir_parents(dir);
	if (err)
		return err;
	snprintf(sub, sizeof(sub), "%s/files", dir);
	err = ensure_dir(sub);
	if (err)
		return err;
	self = self_hash(dir);
	if (!self)
		return -ENOEXEC;
	err = content_hash(dir, path, hex);
	if (err)
		return err;
	snprintf(sub, sizeof(sub), "%s/%.16s", dir, self);
	if (mkdir(sub, 0700) == 0)
		prune_others(dir, self);
	else if (errno != EEXIST)
		return -errno;
	if ((size_t)snprintf(out, size, "%s/%s-%s", sub, hex, kind) >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* XXH3-64 (libxxhash): a damaged or cut file is caught, at memory speed
 * (the patched code of cc1 is 40 MB, read at every run that maps it). */
static uint64_t digest(const unsigned char *p, size_t n)
{
	return (uint64_t)XXH3_64bits(p, n);
}

int dw_cache_alloc(struct dw_cache_blob *b, const char magic[8], size_t len)
{
	uint64_t n = len;

	memset(b, 0, sizeof(*b));
	b->map_len = HEAD + len + TAIL;
	b->map = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->map == MAP_FAILED) {
		b->map = NULL;
		return -ENOMEM;
	}
	memcpy(b->map, magic, 8);
	memcpy((char *)b->map + 8, &n, sizeof(n));
	b->body = (char *)b->map + HEAD;
	b->len = len;
	return 0;
}

int dw_cache_store(const char *file, const struct dw_cache_blob *b)
{
	uint64_t n = b->len, d;

	memcpy((char *)b->map + 8, &n, sizeof(n)); /* LEN may have been lowered */
	d = digest(b->map, HEAD + b->len);
	memcpy((char *)b->map + HEAD + b->len, &d, sizeof(d));
	return hm_write_atomic(file, b->map, HEAD + b->len + TAIL);
}

int dw_cache_load(const char *file, const char magic[8], struct dw_cache_blob *b)
{
	struct stat st;
	uint64_t n, d;
	void *map;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	memset(b, 0, sizeof(*b));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size < HEAD + TAIL) {
		close(fd);
		return -EBADMSG;
	}
	/* Populated: every page is read for the digest anyway, and one
	 * mapping of the page cache costs far less than a fault a page. */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -ENOMEM;
	memcpy(&n, (char *)map + 8, sizeof(n));
	if (memcmp(map, magic, 8) != 0 || n != (uint64_t)st.st_size - HEAD - TAIL) {
		munmap(map, (size_t)st.st_size);
		return -EBADMSG;
	}
	memcpy(&d, (char *)map + HEAD + n, sizeof(d));
	if (d != digest(map, HEAD + n)) {
		munmap(map, (size_t)st.st_size);
		return -EBADMSG;
	}
	b->map = map;
	b->map_len = (size_t)st.st_size;
	b->body = (char *)map + HEAD;
	b->len = (size_t)n;
	b->dev = (uint64_t)st.st_dev;
	b->ino = (uint64_t)st.st_ino;
	return 0;
}

void dw_cache_free(struct dw_cache_blob *b)
{
	if (b->map)
		munmap(b->map, b->map_len);
	memset(b, 0, sizeof(*b));
}
