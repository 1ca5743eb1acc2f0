/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data directory, where recordings live:
 *
 *   <datadir>/recordings/<id>/   one folder per recording, id "<prog>-<n>"
 *   <datadir>/ids/<prog>         the next <n> for <prog>, one line
 *   <datadir>/LAST               the id of the newest recording, one line
 *
 * The folder follows the XDG Base Directory Specification 0.8 ($XDG_DATA_HOME,
 * default $HOME/.local/share, created 0700). Ids are handed out by mkdir(2):
 * it fails with EEXIST when the name is taken, atomically, so it is the lock
 * between recorders that run at once, with no lock file to leave behind.
 * An id is never handed out twice, also once its recording was removed, so
 * that an id in a bug report names one run for ever: ids/<prog> counts up,
 * read and advanced under an flock(2) of the recordings folder (released
 * with the descriptor, also by a recorder that dies), and the mkdir still
 * skips a name that is taken (made before the counter, or by a hermit that
 * keeps none).
 *
 * Files that readers may look at while we write them (LAST, metadata) are
 * replaced atomically: written to a temporary name in the same folder,
 * fsync'd, then renamed over the old one (rename(2): "If newpath already
 * exists, it will be atomically replaced").
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

#define ID_MAX	  200 /* bytes in a recording id */
#define BASE_MAX  64  /* bytes of the program name in an id */
#define LAST_MAX  4096
#define READ_STEP (64 * 1024)

/* Counter for temporary names, shared by the threads of the process. */
static atomic_uint tmp_counter;

/* A malloc'd path made from FMT. */
static char *pathf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *pathf(const char *fmt, ...)
{
	struct hm_buf b;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	hm_buf_init(&b);
	hm_buf_grow(&b, n < 0 ? 0 : (size_t)n);
	va_start(ap, fmt);
	vsnprintf((char *)b.data, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
	va_end(ap);
	return (char *)b.data;
}

/* The value of environment variable NAME, or NULL when unset or empty. */
static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

char *hm_datadir_path(void)
{
	const char *v;

	if ((v = env("HERMIT_DATA_DIR")))
		return xstrdup(v);
	if ((v = env("XDG_DATA_HOME")) && v[0] == '/')
		return pathf("%s/hermit", v);
	if ((v = env("HOME")))
		return pathf("%s/.local/share/hermit", v);
	return NULL;
}

char *hm_cachedir_path(void)
{
	const char *v;

	if ((v = env("HERMIT_CACHE_DIR")))
		return strcmp(v, "off") == 0 ? NULL : xstrdup(v);
	if ((v = env("XDG_CACHE_HOME")) && v[0] == '/')
		return pathf("%s/hermit", v);
	if ((v = env("HOME")))
		return pathf("%s/.cache/hermit", v);
	return NULL;
}

/* Make the directory PATH unless there is one. */
static int mkdir_one(const char *path)
{
	struct stat st;

	if (mkdir(path, 0700) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	if (stat(path, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int hm_mkdir_parents(const char *path)
{
	char *p = xstrdup(path);
	int err = 0;

	for (char *s = p + 1; *s && !err; s++) {
		if (*s != '/' || s[-1] == '/')
			continue;
		*s = 0;
		err = mkdir_one(p);
		*s = '/';
	}
	if (!err)
		err = mkdir_one(p);
	free(p);
	return err;
}

int hm_datadir_ensure(const char *datadir)
{
	char *rec;
	int err = hm_mkdir_parents(datadir);

	if (err)
		return err;
	rec = pathf("%s/recordings", datadir);
	err = mkdir_one(rec);
	free(rec);
	return err;
}

int hm_recording_id_valid(const char *id)
{
	size_t n = strlen(id);

	if (n == 0 || n > ID_MAX || id[0] == '.')
		return 0; /* "." and ".." start with a dot too */
	for (const unsigned char *c = (const unsigned char *)id; *c; c++)
		if (*c == '/' || *c < 0x20 || *c == 0x7f)
			return 0;
	return 1;
}

/* BASE made fit for the front of an id (see hm_recording_create). */
static char *sanitize_base(const char *base)
{
	size_t n = strlen(base);
	char *s;

	if (n > BASE_MAX) {
		n = BASE_MAX;
		/* Do not split a UTF-8 sequence: back off its continuation bytes. */
		while (n > 0 && ((unsigned char)base[n] & 0xc0) == 0x80)
			n--;
	}
	if (n == 0)
		return xstrdup("prog");
	s = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)base[i];

		s[i] = c == '/' || c < 0x20 || c == 0x7f || (i == 0 && c == '.') ? '_' : (char)c;
	}
	s[n] = 0;
	return s;
}

/* One past the largest <n> of the folders "<B>-<n>" in REC: where a
 * counter starts in a data folder that has none yet. */
static unsigned long long next_after_folders(const char *rec, const char *b)
{
	size_t len = strlen(b);
	unsigned long long next = 0;
	struct dirent *d;
	DIR *dir = opendir(rec);

	while (dir && (d = readdir(dir))) {
		const char *num = d->d_name + len + 1;
		unsigned long long n;
		char *end;

		if (strncmp(d->d_name, b, len) != 0 || d->d_name[len] != '-' || *num < '0' ||
		    *num > '9')
			continue;
		errno = 0;
		n = strtoull(num, &end, 10);
		if (!*end && !errno && n >= next && n < ULLONG_MAX)
			next = n + 1;
	}
	if (dir)
		closedir(dir);
	return next;
}

/* The counter at PATH in *N: 0, -ENOENT when there is none, -EBADMSG
 * when it holds no number. */
static int read_counter(const char *path, unsigned long long *n)
{
	struct hm_buf b;
	char *end;
	int err;

	hm_buf_init(&b);
	err = hm_read_file(path, 32, &b);
	if (!err) {
		errno = 0;
		*n = strtoull((char *)b.data, &end, 10);
		if (b.data[0] < '0' || b.data[0] > '9' || errno || (*end && strcmp(end, "\n") != 0))
			err = -EBADMSG;
	}
	hm_buf_free(&b);
	return err == -EFBIG ? -EBADMSG : err;
}

int hm_recording_create(const char *datadir, const char *base, char **id, char **dir)
{
	char *b = sanitize_base(base), *rec = pathf("%s/recordings", datadir);
	char *ids = pathf("%s/ids", datadir), *counter = pathf("%s/ids/%s", datadir, b);
	char *nid = NULL, *ndir = NULL, *line;
	unsigned long long n = 0, tries;
	int lock = open(rec, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (lock < 0)
		err = -errno;
	while (!err && flock(lock, LOCK_EX) < 0) {
		if (errno != EINTR)
			err = -errno;
	}
	if (!err)
		err = mkdir_one(ids);
	if (!err) {
		err = read_counter(counter, &n);
		if (err == -ENOENT) {
			n = next_after_folders(rec, b);
			err = 0;
		}
	}
	for (tries = 0; !err; tries++, n++) {
		if (tries == 1000000000 || n == ULLONG_MAX) {
			err = -EEXIST;
			break;
		}
		nid = pathf("%s-%llu", b, n);
		ndir = pathf("%s/%s", rec, nid);
		if (mkdir(ndir, 0700) == 0)
			break;
		err = errno == EEXIST ? 0 : -errno;
		free(nid);
		free(ndir);
		nid = ndir = NULL;
	}
	if (!err) {
		/* Advanced before the lock goes, or the id could come again. */
		line = pathf("%llu\n", n + 1);
		err = hm_write_atomic(counter, line, strlen(line));
		free(line);
		if (err)
			rmdir(ndir);
	}
	if (lock >= 0)
		close(lock);
	if (err) {
		free(nid);
		free(ndir);
	} else {
		*id = nid;
		*dir = ndir;
	}
	free(counter);
	free(ids);
	free(rec);
	free(b);
	return err;
}

int hm_recording_dir(const char *datadir, const char *id, char **dir)
{
	struct stat st;
	char *d;
	int err = 0;

	if (!hm_recording_id_valid(id))
		return -EINVAL;
	d = pathf("%s/recordings/%s", datadir, id);
	if (stat(d, &st) < 0)
		err = -errno;
	else if (!S_ISDIR(st.st_mode))
		err = -ENOENT; /* a stray file is no recording */
	if (err) {
		free(d);
		return err;
	}
	*dir = d;
	return 0;
}

/* All N bytes at C to or from FD (WRITING), again after EINTR and short
 * transfers. 0 or -errno (-EIO when a read meets the end first). */
static int transfer_all(int fd, char *c, size_t n, int writing)
{
	while (n > 0) {
		ssize_t k = writing ? write(fd, c, n) : read(fd, c, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

int hm_read_all(int fd, void *p, size_t n)
{
	return transfer_all(fd, p, n, 0);
}

int hm_write_all(int fd, const void *p, size_t n)
{
	return transfer_all(fd, (char *)p, n, 1); /* (write(2) only reads it) */
}

int hm_write_atomic(const char *path, const void *p, size_t n)
{
	char *tmp;
	int fd, err;

	for (;;) {
		tmp = pathf("%s.tmp.%ld.%u", path, (long)getpid(),
			    atomic_fetch_add(&tmp_counter, 1));
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0)
			break;
		err = -errno;
		free(tmp);
		if (err != -EEXIST) /* EEXIST: left by a process that had our pid */
			return err;
	}
	err = hm_write_all(fd, p, n);
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

int hm_read_file(const char *path, size_t limit, struct hm_buf *out)
{
	size_t start = out->len, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		/* One byte past LIMIT tells a file of exactly LIMIT from a longer one. */
		size_t want = limit - got < READ_STEP ? limit - got + 1 : READ_STEP;
		ssize_t r = read(fd, hm_buf_grow(out, want), want);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		out->len += (size_t)r;
		got += (size_t)r;
		if (got > limit) {
			err = -EFBIG;
			break;
		}
	}
	close(fd);
	if (err)
		out->len = start;
	out->data[out->len] = 0;
	return err;
}

int hm_datadir_set_last(const char *datadir, const char *id)
{
	char *path, *line;
	int err;

	if (!hm_recording_id_valid(id))
		return -EINVAL;
	path = pathf("%s/LAST", datadir);
	line = pathf("%s\n", id);
	err = hm_write_atomic(path, line, strlen(line));
	free(line);
	free(path);
	return err;
}

int hm_datadir_get_last(const char *datadir, char **id)
{
	char *path = pathf("%s/LAST", datadir);
	struct hm_buf b;
	int err;

	hm_buf_init(&b);
	err = hm_read_file(path, LAST_MAX, &b);
	free(path);
	if (err) {
		hm_buf_free(&b);
		return err == -EFBIG ? -EBADMSG : err;
	}
	if (b.len > 0 && b.data[b.len - 1] == '\n')
		b.data[--b.len] = 0;
	if (strlen((char *)b.data) != b.len || !hm_recording_id_valid((char *)b.data)) {
		hm_buf_free(&b);
		return -EBADMSG;
	}
	*id = (char *)b.data;
	return 0;
}
