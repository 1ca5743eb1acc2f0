/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common: the base every layer stands on. Error reporting and the log,
 * allocation that dies on exhaustion, RFC 3339 and duration parsing,
 * FNV-1a digests, a growable byte buffer, xz streams, the data directory
 * and its recordings, JSON documents in files and a content-addressed file
 * store. Nothing here knows about tracing.
 */
#ifndef HERMIT_COMMON_H
#define HERMIT_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#define HM_NS_PER_SEC 1000000000LL

/* Exit statuses of `hermit` (DESIGN.md "Exit status of hermit"). */
enum hm_exit {
	HM_EXIT_SCHEDULER = 121,
	HM_EXIT_DIVERGED = 122,
	HM_EXIT_LOG_FULL = 123,
	HM_EXIT_TIMEOUT = 124,
	HM_EXIT_INTERNAL = 125,
	HM_EXIT_NOEXEC = 126,
	HM_EXIT_NOTFOUND = 127,
};

/* ---- log.c ---- */

enum hm_log_level {
	HM_LOG_ERROR,
	HM_LOG_WARN,
	HM_LOG_INFO,
	HM_LOG_DEBUG,
	HM_LOG_TRACE,
};

/* Parse "error", "warn", "info", "debug" or "trace"; 0 or -EINVAL. */
int hm_log_parse_level(const char *s, enum hm_log_level *out);
void hm_log_set_level(enum hm_log_level level);
enum hm_log_level hm_log_get_level(void);
/* Send log lines (not errors) to PATH instead of stderr; 0 or -errno. */
int hm_log_set_file(const char *path);
void hm_log_close(void);
int hm_log_enabled(enum hm_log_level level);
/* One line "hermit: <level>: ..." to the log when LEVEL is enabled. */
void hm_log(enum hm_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One line "hermit: ..." to the log, unless --log=error: what hermit
 * chose for the user to know (the epoch, the tick source). */
void hm_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One line "hermit: ..." on stderr, always, in one write. */
void hm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* strerror(-err or err) with a lower-case first letter, for messages. */
const char *hm_strerror(int err);

#define hm_warn(...)  hm_log(HM_LOG_WARN, __VA_ARGS__)
#define hm_info(...)  hm_log(HM_LOG_INFO, __VA_ARGS__)
#define hm_debug(...) hm_log(HM_LOG_DEBUG, __VA_ARGS__)
#define hm_trace(...) hm_log(HM_LOG_TRACE, __VA_ARGS__)

/* ---- xmalloc.c: out of memory is fatal (exit 125) ---- */

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* ---- timefmt.c ---- */

/*
 * Parse an RFC 3339 timestamp ("2026-01-01T00:00:00Z",
 * "2026-01-01 10:00:00.5+02:00", a bare date "2026-01-01" means midnight
 * UTC) into nanoseconds since the Unix epoch. 0 or -EINVAL.
 */
int hm_parse_rfc3339(const char *s, int64_t *ns);
/* Format NS as "YYYY-MM-DDTHH:MM:SS[.fffffffff]Z"; 0 or -ENOSPC. */
int hm_format_rfc3339(int64_t ns, char *buf, size_t size);
/* Parse "1.5s", "200ms", "3m", "1h", "250us", "10ns" or bare seconds:
 * decimal digits with at most one point, rounded to the nearest ns. */
int hm_parse_duration(const char *s, int64_t *ns);
/* Split NS into whole seconds (rounded down) and 0 <= *nsec < 1e9, as
 * timespec wants it also before 1970. */
void hm_ns_split(int64_t ns, int64_t *sec, int64_t *nsec);

/* ---- fnv.c: FNV-1a 64 ---- */

#define HM_FNV1A_INIT  0xcbf29ce484222325ULL /* the offset basis */
#define HM_FNV1A_PRIME 0x100000001b3ULL

/* H (HM_FNV1A_INIT to start) carried on over the N bytes at P: digesting
 * a buffer in pieces gives what digesting it whole does. */
uint64_t hm_fnv1a(uint64_t h, const void *p, size_t n);

/* ---- hex.c: hex digits, as the gdb remote protocol writes bytes ---- */

/* The value of hex digit C, or -1. */
int hm_hexval(int c);
/* The N bytes that the 2N hex digits at HEX spell, into OUT: 0, or -EINVAL
 * at the first character that is not a hex digit. */
int hm_unhex(const char *hex, size_t n, uint8_t *out);

/* ---- buf.c: a growable byte buffer (git's strbuf) ---- */

struct hm_buf {
	unsigned char *data;
	size_t len;
	size_t cap;
};

void hm_buf_init(struct hm_buf *b);
void hm_buf_free(struct hm_buf *b);
void hm_buf_reset(struct hm_buf *b);
void hm_buf_add(struct hm_buf *b, const void *p, size_t n);
void hm_buf_addf(struct hm_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Make room for N more bytes and return a pointer to them. */
void *hm_buf_grow(struct hm_buf *b, size_t n);

/* ---- xz.c: xz streams over liblzma ---- */

struct hm_xzw;

/* Start an xz stream (CRC32 check, preset 1) written to FD (not closed by
 * us). 0 or -errno. */
int hm_xzw_open(struct hm_xzw **w, int fd);
/* Compress N bytes into the stream; output is written to the fd as it fills
 * a 64 KiB buffer. 0 or -errno (e.g. -ENOSPC from write(2); after an error
 * every call returns it again). */
int hm_xzw_write(struct hm_xzw *w, const void *p, size_t n);
/* End the current xz block (LZMA_FULL_FLUSH) and write everything out: the
 * bytes written so far can be decoded even if the process dies now (not
 * fsync'd: a crash of the machine may still lose them). 0 or -errno. */
int hm_xzw_flush(struct hm_xzw *w);
/* Finish the stream (LZMA_FINISH), write it out and free W. 0 or -errno (W
 * is freed either way). */
int hm_xzw_close(struct hm_xzw *w);

struct hm_xzr;

/* Read an xz stream from FD (not closed by us); decoder memory limit
 * 256 MiB. 0 or -errno. */
int hm_xzr_open(struct hm_xzr **r, int fd);
/*
 * Up to N decompressed bytes into P: the count (> 0); 0 at the clean end of
 * the stream; -EPIPE when the file ends before the stream does (truncated:
 * every byte that could be decoded was returned first); -EBADMSG when the
 * data is corrupt or not xz (LZMA_FORMAT_ERROR, LZMA_DATA_ERROR, checksum);
 * -ENOMEM past the memory limit; -errno of read(2). An error is returned
 * again by every later call. Bytes of a block are returned as they are
 * decoded, before the block's check is verified at its end.
 */
ssize_t hm_xzr_read(struct hm_xzr *r, void *p, size_t n);
void hm_xzr_close(struct hm_xzr *r);
/* Whether the file FD ends with an intact xz Stream Footer (its last 12
 * bytes: CRC32 and the magic "YZ", xz-file-format.txt 2.1.2), as a stream
 * that hm_xzw_close finished does; one cut short or not xz does not. Reads
 * 12 bytes, decodes nothing, so damage before the footer goes unseen.
 * 1, 0 or -errno. */
int hm_xz_finished(int fd);

/* ---- datadir.c: the data directory and its recordings ---- */

/* $HERMIT_DATA_DIR, else $XDG_DATA_HOME/hermit, else
 * $HOME/.local/share/hermit (malloc'd); NULL when none is set. An empty
 * variable counts as unset, and so does a relative XDG_DATA_HOME (XDG Base
 * Directory Specification 0.8: "must be absolute ... ignore it"). */
char *hm_datadir_path(void);
/* The cache folder (plans of patched code, docs/preemption.md):
 * $HERMIT_CACHE_DIR ("off": none), else $XDG_CACHE_HOME/hermit, else
 * ~/.cache/hermit; NULL when there is none. Not made here. */
char *hm_cachedir_path(void);
/* Create DATADIR (with parents, mode 0700) and DATADIR/recordings (0700) if
 * missing. 0 or -errno (-ENOTDIR when one of them is not a directory). */
int hm_datadir_ensure(const char *datadir);
/* mkdir -p PATH, each folder made with mode 0700 (the XDG rule). 0 or
 * -errno (-ENOTDIR when one of them is not a directory). */
int hm_mkdir_parents(const char *path);
/* Whether ID can name a recording: non-empty, at most 200 bytes, no '/', not
 * "." or "..", no leading '.', no control characters. */
int hm_recording_id_valid(const char *id);
/*
 * Create DATADIR/recordings/<BASE>-<n> (mode 0700) with the n that
 * DATADIR/ids/<BASE> holds (without one: one past the largest n of a
 * folder there), or the next free one after it, and advance the counter
 * past it: an id is never handed out twice, also once its recording was
 * removed. The counter is read and written (atomically) under an
 * flock(2) of DATADIR/recordings, and mkdir(2) is the lock on the id, so
 * two recorders at once never get the same id. BASE is sanitized first:
 * '/', control characters and a leading '.' become '_', empty becomes
 * "prog", at most 64 bytes (cut at a UTF-8 character boundary). *ID and
 * *DIR are malloc'd. 0 or -errno (-ENOENT when DATADIR/recordings is
 * missing: see hm_datadir_ensure; -EBADMSG when the counter holds no
 * number; when the counter cannot be advanced, the folder is removed
 * again).
 */
int hm_recording_create(const char *datadir, const char *base, char **id, char **dir);
/* DATADIR/recordings/ID (malloc'd) in *DIR; -EINVAL for an invalid id,
 * -ENOENT when no such directory. */
int hm_recording_dir(const char *datadir, const char *id, char **dir);
/* Write all N bytes to FD, again after EINTR and short writes. 0 or -errno. */
int hm_write_all(int fd, const void *p, size_t n);
/* Read all N bytes from FD, again after EINTR and short reads. 0 or -errno
 * (-EIO when the end comes first). */
int hm_read_all(int fd, void *p, size_t n);
/* Write N bytes to PATH atomically: a temporary file in the same folder
 * (PATH.tmp.<pid>.<counter>, mode 0666 less the umask), fsync, rename over
 * PATH. On failure the temporary file is removed and PATH is untouched.
 * 0 or -errno. */
int hm_write_atomic(const char *path, const void *p, size_t n);
/* Read all of PATH into OUT (appended), at most LIMIT bytes (-EFBIG past
 * it). 0 or -errno; on failure OUT is as it was. */
int hm_read_file(const char *path, size_t limit, struct hm_buf *out);
/* DATADIR/LAST holds the id of the newest recording plus '\n', written with
 * hm_write_atomic. 0 or -errno (-EINVAL for an invalid id). */
int hm_datadir_set_last(const char *datadir, const char *id);
/* *ID malloc'd (newline stripped); -ENOENT when there is no LAST, -EBADMSG
 * when it does not hold a valid id. */
int hm_datadir_get_last(const char *datadir, char **id);

/* ---- json.c: cJSON documents in files ---- */

/* Write DOC to PATH, formatted, newline-terminated, atomically
 * (hm_write_atomic). 0 or -errno. */
int hm_json_write(const char *path, const cJSON *doc);
/* Parse PATH (at most 16 MiB) into *DOC (free with cJSON_Delete). -errno of
 * reading, -EBADMSG when it is not JSON or not an object. */
int hm_json_read(const char *path, cJSON **doc);
/* Member NAME of OBJ as a string / integer, or DEF when missing or of
 * another type. An integer is a JSON number with no fraction within int64_t;
 * cJSON keeps numbers as doubles, so it is exact up to 2^53. */
const char *hm_json_str(const cJSON *obj, const char *name, const char *def);
int64_t hm_json_int(const cJSON *obj, const char *name, int64_t def);

/* ---- manifest.c: a recording's manifest.json ---- */

/* A file the recording kept: its path as the run opened it (absolute) and
 * its copy, DIR/files/<sha256>. */
struct hm_manifest_file {
	char *path;
	char *copy;
};

/* Whether S is 64 lower-case hex digits, as filestore.c names copies. */
int hm_sha256_hex_valid(const char *s);
/* DIR/manifest.json into *DOC (free with cJSON_Delete): as hm_json_read
 * (-ENOENT: a recording cut before its end has none yet). */
int hm_manifest_read(const char *dir, cJSON **doc);
/* The "files" of DOC, the manifest of the recording in DIR, in *OUT (free
 * with hm_manifest_free), *N of them, in the manifest's order. 0, or
 * -EBADMSG when "files" is missing or an entry has no absolute path or no
 * valid sha256. Whether the copies exist is the caller's to check. */
int hm_manifest_files(const cJSON *doc, const char *dir, struct hm_manifest_file **out, size_t *n);
void hm_manifest_free(struct hm_manifest_file *v, size_t n);

/* ---- filestore.c: content-addressed copies of files ---- */

/*
 * Store the regular file SRC in folder DIR (which exists) as DIR/<sha256
 * hex>: hash SRC's content (OpenSSL libcrypto EVP, SHA-256), then if
 * DIR/<hex> exists do nothing; else hard-link SRC there (link to a temporary
 * name in DIR, then rename), or copy it (to a temporary name, fsync, rename)
 * when link fails (EXDEV, EPERM, ...); the stored copy is made read-only
 * (0444 for a copy; leave a hard link's mode). A hard link shares SRC's
 * inode: writing to SRC in place later changes the stored file too. A copy
 * is named by the hash of the bytes it holds, should SRC change meanwhile.
 * HEX gets the 64 hex digits and NUL; *SIZE the byte count. 0 or -errno
 * (-EINVAL when SRC is not a regular file).
 */
int hm_store_file(const char *dir, const char *src, char hex[65], uint64_t *size);
/* A read-only copy of SRC in DIR/<sha256 hex> in one pass and without
 * fsync (a DIR/<hex> already there is kept), for copies whose users check
 * their bytes; as hm_store_file otherwise. */
int hm_store_quick(const char *dir, const char *src, char hex[65], uint64_t *size);
/* As hm_store_file, but always a copy: for a file that is about to change
 * in place, which a hard link would follow. */
int hm_store_copy(const char *dir, const char *src, char hex[65], uint64_t *size);
/* SHA-256 of the file at PATH in hex. 0 or -errno. */
int hm_sha256_file(const char *path, char hex[65]);

#endif /* HERMIT_COMMON_H */
