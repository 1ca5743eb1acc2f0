/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Content-addressed copies of files: a file is stored under the SHA-256 of
 * its bytes, so the same content is kept once however often it is stored.
 *
 * Storing is a hard link where the file system allows one (no bytes move)
 * and a copy where it does not: across file systems (EXDEV), or for a file
 * of another user under fs.protected_hardlinks (EPERM, see proc(5)). Either
 * way the file appears under a temporary name first and is renamed into
 * place, so DIR/<hex> is whole or absent. The link is checked to be the inode
 * that was hashed, in case SRC was replaced meanwhile; a copy is hashed again
 * as it is written and named by what it holds.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

#define STEP (64 * 1024)

/* Counter for temporary names, shared by the threads of the process. */
static atomic_uint tmp_counter;

/* A malloc'd temporary name for <DIR>/<HEX>. */
static char *tmp_path(const char *dir, const char *hex)
{
	struct hm_buf b;

	hm_buf_init(&b);
	hm_buf_addf(&b, "%s/%s.tmp.%ld.%u", dir, hex, (long)getpid(),
		    atomic_fetch_add(&tmp_counter, 1));
	return (char *)b.data;
}

/* Hash FD from where it stands to its end into HEX and *SIZE; when OUT is
 * not -1, also write the bytes to OUT. */
static int sha256_copy(int fd, int out, char hex[65], uint64_t *size)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned char *buf;
	unsigned int mdlen = 0;
	uint64_t total = 0;
	int err = 0;

	if (!ctx)
		return -ENOMEM;
	buf = xmalloc(STEP);
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		err = -EIO;
	while (!err) {
		ssize_t r = read(fd, buf, STEP);

		if (r < 0) {
			if (errno != EINTR)
				err = -errno;
			continue;
		}
		if (r == 0)
			break;
		if (EVP_DigestUpdate(ctx, buf, (size_t)r) != 1)
			err = -EIO;
		else if (out != -1)
			err = hm_write_all(out, buf, (size_t)r);
		total += (uint64_t)r;
	}
	if (!err && (EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != 32))
		err = -EIO;
	if (!err) {
		static const char digits[] = "0123456789abcdef";

		for (unsigned int i = 0; i < mdlen; i++) {
			hex[2 * i] = digits[md[i] >> 4];
			hex[2 * i + 1] = digits[md[i] & 15];
		}
		hex[2 * mdlen] = 0;
		*size = total;
	}
	free(buf);
	EVP_MD_CTX_free(ctx);
	return err;
}

int hm_sha256_file(const char *path, char hex[65])
{
	uint64_t size;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = sha256_copy(fd, -1, hex, &size);
	close(fd);
	return err;
}

/* Copy FD into DIR under the hash of what was copied: a temporary file,
 * fsync, rename. HEX and *SIZE are updated to what was stored. */
static int copy_in(int fd, mode_t mode, const char *dir, char hex[65], uint64_t *size)
{
	char got[65], *tmp, *target;
	uint64_t n = 0;
	int out, err;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		tmp = tmp_path(dir, hex);
		out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
		if (out >= 0)
			break;
		err = -errno;
		free(tmp);
		if (err != -EEXIST)
			return err;
	}
	/* Read-only whatever the umask: a stored file never changes. A
	 * program stays executable: a replay runs the copy. */
	err = fchmod(out, mode & 0111 ? 0555 : 0444) < 0 ? -errno : 0;
	if (!err)
		err = sha256_copy(fd, out, got, &n);
	if (!err && fsync(out) < 0)
		err = -errno;
	if (close(out) < 0 && !err)
		err = -errno;
	if (!err) {
		struct hm_buf b;

		hm_buf_init(&b);
		hm_buf_addf(&b, "%s/%s", dir, got);
		target = (char *)b.data;
		if (rename(tmp, target) < 0)
			err = -errno;
		free(target);
	}
	if (err) {
		unlink(tmp);
	} else {
		memcpy(hex, got, sizeof(got));
		*size = n;
	}
	free(tmp);
	return err;
}

/* Hard-link SRC, which must be the inode of ST, into DIR/<HEX>. 0, -EAGAIN
 * when it is not that inode any more, or -errno of link(2) or rename(2). */
static int link_in(const char *src, const struct stat *st, const char *dir, const char *hex,
		   const char *target)
{
	struct stat lst;
	char *tmp;
	int err = 0;

	for (;;) {
		tmp = tmp_path(dir, hex);
		if (link(src, tmp) == 0)
			break;
		err = -errno;
		free(tmp);
		if (err != -EEXIST)
			return err;
	}
	if (lstat(tmp, &lst) < 0)
		err = -errno;
	else if (lst.st_dev != st->st_dev || lst.st_ino != st->st_ino)
		err = -EAGAIN; /* SRC was replaced since we hashed it */
	else if (rename(tmp, target) < 0)
		err = -errno;
	/* Gone after a rename, unless TARGET already was a link to the same
	 * inode: rename(2) then "does nothing" and leaves TMP. */
	unlink(tmp);
	free(tmp);
	return err;
}

static int store(const char *dir, const char *src, int may_link, char hex[65], uint64_t *size)
{
	struct stat st, tst;
	struct hm_buf target;
	int fd, err;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	fd = open(src, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	err = sha256_copy(fd, -1, hex, size);
	if (err) {
		close(fd);
		return err;
	}
	hm_buf_init(&target);
	hm_buf_addf(&target, "%s/%s", dir, hex);
	if (lstat((char *)target.data, &tst) == 0)
		err = 0; /* stored already */
	else if (errno != ENOENT)
		err = -errno;
	else if (!may_link || link_in(src, &st, dir, hex, (char *)target.data) != 0)
		err = copy_in(fd, st.st_mode, dir, hex, size);
	hm_buf_free(&target);
	close(fd);
	return err;
}

int hm_store_file(const char *dir, const char *src, char hex[65], uint64_t *size)
{
	return store(dir, src, 1, hex, size);
}

int hm_store_copy(const char *dir, const char *src, char hex[65], uint64_t *size)
{
	return store(dir, src, 0, hex, size);
}

/*
 * One pass, for copies a reader checks itself: SRC is copied to a
 * temporary name while it is hashed, then linked to DIR/<hash> (kept as
 * it is when that exists: the same content) and the temporary name
 * removed. No fsync: a recorder that stores a large file for its reads
 * must not wait for the disk (recorder/fileref.c); a copy that a crash of
 * the host damaged is found by its hash where it is used.
 */
int hm_store_quick(const char *dir, const char *src, char hex[65], uint64_t *size)
{
	char got[65], *tmp, *target;
	struct hm_buf b;
	struct stat st;
	uint64_t n = 0;
	int in, out, err;

	in = open(src, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (in < 0)
		return -errno;
	err = fstat(in, &st) < 0 ? -errno : !S_ISREG(st.st_mode) ? -EINVAL : 0;
	if (err) {
		close(in);
		return err;
	}
	for (;;) {
		tmp = tmp_path(dir, "quick");
		out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
		if (out >= 0)
			break;
		err = -errno;
		free(tmp);
		if (err != -EEXIST) {
			close(in);
			return err;
		}
	}
	err = sha256_copy(in, out, got, &n);
	if (close(out) < 0 && !err)
		err = -errno;
	close(in);
	if (!err) {
		hm_buf_init(&b);
		hm_buf_addf(&b, "%s/%s", dir, got);
		target = (char *)b.data;
		if (link(tmp, target) < 0 && errno != EEXIST)
			err = -errno;
		free(target);
	}
	unlink(tmp);
	free(tmp);
	if (!err) {
		memcpy(hex, got, sizeof(got));
		*size = n;
	}
	return err;
}
