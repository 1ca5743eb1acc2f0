/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common: the base every layer stands on. Error reporting and the log,
 * allocation that dies on exhaustion, RFC 3339 and duration parsing, and a
 * growable byte buffer. Nothing here knows about tracing.
 */
#ifndef HERMIT_COMMON_H
#define HERMIT_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

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

#endif /* HERMIT_COMMON_H */
