/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Content-addressed copies of files: a file is stored under the SHA-256 of
 * its bytes, so the same content is kept once however often it is stored.
 * A file with holes is hashed and copied by its data extents, and its
 * copy keeps the holes (sha256_sparse): a sparse file of 100 GiB costs
 * what its data does.
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

#include <endian.h>
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

/* HEX: the digest in CTX. 0 or -EIO. */
static int finish_hex(EVP_MD_CTX *ctx, char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != 32)
		return -EIO;
	for (unsigned int i = 0; i < mdlen; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[2 * mdlen] = 0;
	return 0;
}

/* Hash the LEN bytes of FD at AT into CTX; when OUT is not -1, also write
 * them to OUT at the same offset. */
static int copy_extent(int fd, int out, off_t at, off_t len, EVP_MD_CTX *ctx, unsigned char *buf)
{
	while (len > 0) {
		ssize_t r = pread(fd, buf, len < STEP ? (size_t)len : STEP, at);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO; /* cut short while we read it */
		if (EVP_DigestUpdate(ctx, buf, (size_t)r) != 1)
			return -EIO;
		for (ssize_t done = 0; out != -1 && done < r;) {
			ssize_t w = pwrite(out, buf + done, (size_t)(r - done), at + done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return w < 0 ? -errno : -EIO;
			done += w;
		}
		at += r;
		len -= r;
	}
	return 0;
}

/*
 * A file with holes (SEEK_HOLE finds one before its end): its digest is
 * the SHA-256 of "hermit.sparse/1", its size, and for each data extent
 * its offset, its length and its bytes (64-bit little-endian numbers),
 * so the holes are neither read nor hashed (a 100 GiB file made by
 * ftruncate has none of its size to read), and OUT, where it is not -1,
 * gets the extents at their offsets and the holes as holes. The name of
 * such a copy is this digest, not sha256sum's of the file.
 */
static int sha256_sparse(int fd, int out, off_t size, unsigned char *buf, EVP_MD_CTX *ctx,
			 char hex[65])
{
	static const char tag[] = "hermit.sparse/1";
	uint64_t le[2];
	off_t at = 0;
	int err = 0;

	le[0] = htole64((uint64_t)size);
	if (EVP_DigestUpdate(ctx, tag, sizeof(tag)) != 1 ||
	    EVP_DigestUpdate(ctx, le, sizeof(le[0])) != 1)
		return -EIO;
	while (!err && at < size) {
		off_t data = lseek(fd, at, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break; /* holes to the end */
		if (data < 0)
			return -errno;
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			return -errno;
		if (hole > size)
			hole = size;
		le[0] = htole64((uint64_t)data);
		le[1] = htole64((uint64_t)(hole - data));
		if (EVP_DigestUpdate(ctx, le, sizeof(le)) != 1)
			return -EIO;
		err = copy_extent(fd, out, data, hole - data, ctx, buf);
		at = hole;
	}
	if (!err && out != -1 && ftruncate(out, size) < 0)
		err = -errno;
	return err ? err : finish_hex(ctx, hex);
}

/* Hash FD (a regular file, from its start) into HEX and *SIZE; when OUT is
 * not -1, also write the bytes to OUT. A file with holes is hashed and
 * copied by its data extents (sha256_sparse). */
static int sha256_copy(int fd, int out, char hex[65], uint64_t *size)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char *buf;
	uint64_t total = 0;
	struct stat st;
	off_t hole;
	int err = 0;

	if (!ctx)
		return -ENOMEM;
	buf = xmalloc(STEP);
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		err = -EIO;
	else if (fstat(fd, &st) < 0)
		err = -errno;
	/* Where SEEK_HOLE is not known, the file is one extent. */
	if (!err && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (hole = lseek(fd, 0, SEEK_HOLE)) >= 0 && hole < st.st_size) {
		err = sha256_sparse(fd, out, st.st_size, buf, ctx, hex);
		if (!err)
			*size = (uint64_t)st.st_size;
		free(buf);
		EVP_MD_CTX_free(ctx);
		return err;
	}
	if (!err && lseek(fd, 0, SEEK_SET) < 0)
		err = -errno;
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
	if (!err)
		err = finish_hex(ctx, hex);
	if (!err)
		*size = total;
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
