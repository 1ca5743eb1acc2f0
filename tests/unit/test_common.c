/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for common/: RFC 3339 timestamps and durations (what --epoch
 * and the timeout options accept), log levels and messages, the allocation
 * wrappers, FNV-1a, the growable buffer, xz streams, the data directory, JSON
 * files and the file store. Expected values are worked out by hand or with
 * date(1) and sha256sum(1), never by calling the code under test, so each
 * assertion can fail; timestamps are compared in nanoseconds since the Unix
 * epoch. The file tests each get a scratch folder under /tmp.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/common.h"

/* 2026-01-01T00:00:00Z in seconds (date -u -d 2026-01-01 +%s). */
#define T2026 1767225600LL
#define SEC   HM_NS_PER_SEC

/* Parse S, which must be valid, and return its nanoseconds. */
static int64_t parse_ok(const char *s)
{
	int64_t ns = 0x5a5a5a5a;

	if (hm_parse_rfc3339(s, &ns) != 0)
		fail_msg("hm_parse_rfc3339 rejected '%s'", s);
	return ns;
}

/* ---- hm_parse_rfc3339 ---- */

static void test_rfc3339_utc(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("1970-01-01T00:00:00Z"), 0);
	assert_int_equal(parse_ok("2026-01-01T00:00:00Z"), T2026 * SEC);
	/* RFC 3339 5.6 note: T and Z may be lower case; a space may stand for T. */
	assert_int_equal(parse_ok("2026-01-01t00:00:00z"), T2026 * SEC);
	assert_int_equal(parse_ok("2026-01-01 00:00:00Z"), T2026 * SEC);
	assert_int_equal(parse_ok("2026-01-01T12:34:56Z"),
			 (T2026 + 12 * 3600 + 34 * 60 + 56) * SEC);
	assert_int_equal(parse_ok("2026-12-31T23:59:59Z"), (T2026 + 365 * 86400 - 1) * SEC);
}

static void test_rfc3339_offsets(void **state)
{
	(void)state;
	/* Local 10:00 at +02:00 is 08:00 UTC. */
	assert_int_equal(parse_ok("2026-01-01T10:00:00+02:00"), (T2026 + 8 * 3600) * SEC);
	/* Local midnight at -05:30 is 05:30 UTC. */
	assert_int_equal(parse_ok("2026-01-01T00:00:00-05:30"), (T2026 + 5 * 3600 + 30 * 60) * SEC);
	/* An offset can move the instant into the previous day. */
	assert_int_equal(parse_ok("2026-01-01T01:00:00+02:00"), (T2026 - 3600) * SEC);
	assert_int_equal(parse_ok("2026-01-01T00:00:00+00:00"), T2026 * SEC);
	assert_int_equal(parse_ok("2026-01-01T00:00:00-00:00"), T2026 * SEC);
	/* The example from common.h. */
	assert_int_equal(parse_ok("2026-01-01 10:00:00.5+02:00"),
			 (T2026 + 8 * 3600) * SEC + SEC / 2);
}

static void test_rfc3339_fraction(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("2026-01-01T00:00:00.5Z"), T2026 * SEC + 500000000);
	assert_int_equal(parse_ok("2026-01-01T00:00:00.000000001Z"), T2026 * SEC + 1);
	assert_int_equal(parse_ok("2026-01-01T00:00:00.123456789Z"), T2026 * SEC + 123456789);
	assert_int_equal(parse_ok("2026-01-01T00:00:00.120Z"), T2026 * SEC + 120000000);
	/* Digits past the nanosecond are dropped, not rounded. */
	assert_int_equal(parse_ok("2026-01-01T00:00:00.9999999999Z"), T2026 * SEC + 999999999);
	/* Before 1970 the fraction still counts forward from the second. */
	assert_int_equal(parse_ok("1969-12-31T23:59:59.25Z"), -SEC + 250000000);
}

static void test_rfc3339_bare_date(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("2026-01-01"), T2026 * SEC);
	assert_int_equal(parse_ok("1970-01-01"), 0);
	assert_int_equal(parse_ok("1969-12-31"), -86400 * SEC);
	/* Apollo 11 landing, date -u -d 1969-07-20T20:17:40Z +%s. */
	assert_int_equal(parse_ok("1969-07-20T20:17:40Z"), -14182940LL * SEC);
}

static void test_rfc3339_leap_year(void **state)
{
	int64_t ns;

	(void)state;
	/* date -u -d 2024-02-29T12:00:00Z +%s */
	assert_int_equal(parse_ok("2024-02-29T12:00:00Z"), 1709208000LL * SEC);
	assert_int_equal(parse_ok("2024-03-01"), (1709208000LL + 12 * 3600) * SEC);
	/* 2000 is a leap year (divisible by 400); 1900 and 2100 are not. */
	assert_int_equal(parse_ok("2000-02-29"), 951782400LL * SEC);
	assert_int_equal(hm_parse_rfc3339("1900-02-29", &ns), -EINVAL);
	assert_int_equal(hm_parse_rfc3339("2100-02-29", &ns), -EINVAL);
	assert_int_equal(hm_parse_rfc3339("2023-02-29", &ns), -EINVAL);
	assert_int_equal(hm_parse_rfc3339("2025-02-29T00:00:00Z", &ns), -EINVAL);
}

static void test_rfc3339_leap_second(void **state)
{
	(void)state;
	/* A leap second (:60) is folded into the next minute. */
	assert_int_equal(parse_ok("2016-12-31T23:59:60Z"), (1483228799LL + 1) * SEC);
}

static void test_rfc3339_invalid(void **state)
{
	static const char *const bad[] = {
		"",
		"2026",
		"2026-01",
		"2026-02-30",
		"2026-04-31",
		"2026-13-01",
		"2026-00-10",
		"2026-01-00",
		"2026-01-32",
		"2026-1-01",
		"26-01-01",
		"2026/01/01",
		"2026-01-01T00:00:00",	 /* no zone */
		"2026-01-01T00:00:00.5", /* no zone */
		"2026-01-01T00:00:00Zjunk",
		"2026-01-01T00:00:00Z ",
		"2026-01-01T00:00:00+02:00x",
		"2026-01-01x",
		"2026-01-01 ",
		"2026-01-01T",
		"2026-01-01T00:00Z",
		"2026-01-01T0:00:00Z",
		"2026-01-01T24:00:00Z",
		"2026-01-01T23:60:00Z",
		"2026-01-01T23:59:61Z",
		"2026-01-01T00:00:00.Z",
		"2026-01-01T00:00:00+02",
		"2026-01-01T00:00:00+0200",
		"2026-01-01T00:00:00+24:00",
		"2026-01-01T00:00:00+02:60",
		"2026-01-01X00:00:00Z",
		" 2026-01-01",
	};

	int wrong = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t ns = 0;
		int err = hm_parse_rfc3339(bad[i], &ns);

		if (err != -EINVAL) {
			print_error("hm_parse_rfc3339('%s') = %d, expected -EINVAL\n", bad[i], err);
			wrong++;
		}
	}
	assert_int_equal(wrong, 0);
}

/*
 * The result is int64 nanoseconds, which spans 1677-09-21T00:12:43.145224192Z
 * to 2262-04-11T23:47:16.854775807Z. Both ends parse; an instant outside
 * cannot be represented and must be refused, not wrapped around.
 */
static void test_rfc3339_range(void **state)
{
	static const char *const out[] = {
		"2262-04-11T23:47:16.854775808Z",
		"2262-04-12",
		"3000-01-01T00:00:00Z",
		"9999-12-31T23:59:59Z",
		"1677-09-21T00:12:43.145224191Z",
		"1600-01-01",
		"0000-01-01",
	};

	int wrong = 0;

	(void)state;
	assert_int_equal(parse_ok("2262-04-11T23:47:16.854775807Z"), INT64_MAX);
	assert_int_equal(parse_ok("1677-09-21T00:12:43.145224192Z"), INT64_MIN);
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		int64_t ns = 0;
		int err = hm_parse_rfc3339(out[i], &ns);

		if (err == 0) {
			print_error(
				"hm_parse_rfc3339('%s') accepted a time outside int64 ns: %lld\n",
				out[i], (long long)ns);
			wrong++;
		}
	}
	assert_int_equal(wrong, 0);
}

/* ---- hm_format_rfc3339 ---- */

/* Format NS into a large buffer, which must succeed, and compare. */
static void check_format(int64_t ns, const char *want)
{
	char buf[64];

	memset(buf, 'x', sizeof(buf));
	assert_int_equal(hm_format_rfc3339(ns, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
}

static void test_format_whole_seconds(void **state)
{
	(void)state;
	check_format(0, "1970-01-01T00:00:00Z");
	check_format(T2026 * SEC, "2026-01-01T00:00:00Z");
	check_format(1709208000LL * SEC, "2024-02-29T12:00:00Z");
}

static void test_format_fraction_trimmed(void **state)
{
	(void)state;
	check_format(SEC + SEC / 2, "1970-01-01T00:00:01.5Z");
	check_format(1, "1970-01-01T00:00:00.000000001Z");
	check_format(123456789, "1970-01-01T00:00:00.123456789Z");
	check_format(120000000, "1970-01-01T00:00:00.12Z");
	check_format(T2026 * SEC + 10000, "2026-01-01T00:00:00.00001Z");
}

static void test_format_before_1970(void **state)
{
	(void)state;
	check_format(-SEC, "1969-12-31T23:59:59Z");
	check_format(-1, "1969-12-31T23:59:59.999999999Z");
	check_format(-SEC - SEC / 2, "1969-12-31T23:59:58.5Z");
	check_format(-86400 * SEC, "1969-12-31T00:00:00Z");
	check_format(-14182940LL * SEC, "1969-07-20T20:17:40Z");
	check_format(INT64_MIN, "1677-09-21T00:12:43.145224192Z");
	check_format(INT64_MAX, "2262-04-11T23:47:16.854775807Z");
}

static void test_format_round_trip(void **state)
{
	static const int64_t values[] = {
		0,
		1,
		-1,
		999999999,
		-999999999,
		T2026 * SEC,
		T2026 * SEC + 123456789,
		-14182940LL * SEC + 7,
		951782400LL * SEC + 500000000,
		INT64_MAX,
		INT64_MIN,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char buf[64];
		int64_t back = 0;

		assert_int_equal(hm_format_rfc3339(values[i], buf, sizeof(buf)), 0);
		assert_int_equal(hm_parse_rfc3339(buf, &back), 0);
		if (back != values[i])
			fail_msg("'%s' parsed back as %lld, formatted from %lld", buf,
				 (long long)back, (long long)values[i]);
	}
}

/* A buffer of exactly strlen+1 bytes is enough; one byte less is -ENOSPC.
 * Nothing is written past the size given. */
static void check_format_fit(int64_t ns, const char *want)
{
	size_t need = strlen(want) + 1;
	char buf[64];

	assert_true(need < sizeof(buf));
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(hm_format_rfc3339(ns, buf, need), 0);
	assert_string_equal(buf, want);
	assert_int_equal(buf[need], 'x');
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(hm_format_rfc3339(ns, buf, need - 1), -ENOSPC);
	assert_int_equal(buf[need - 1], 'x');
	assert_int_equal(hm_format_rfc3339(ns, buf, 5), -ENOSPC);
	assert_int_equal(buf[5], 'x');
}

static void test_format_buffer_size(void **state)
{
	(void)state;
	check_format_fit(0, "1970-01-01T00:00:00Z");
	check_format_fit(123456789, "1970-01-01T00:00:00.123456789Z");
	/* The trimmed text fits even though nine digits would not. */
	check_format_fit(SEC / 2, "1970-01-01T00:00:00.5Z");
}

/* ---- hm_parse_duration ---- */

static int64_t duration_ok(const char *s)
{
	int64_t ns = 0x5a5a5a5a;

	if (hm_parse_duration(s, &ns) != 0)
		fail_msg("hm_parse_duration rejected '%s'", s);
	return ns;
}

static void test_duration_units(void **state)
{
	(void)state;
	assert_int_equal(duration_ok("10ns"), 10);
	assert_int_equal(duration_ok("250us"), 250000);
	assert_int_equal(duration_ok("200ms"), 200000000);
	assert_int_equal(duration_ok("7s"), 7 * SEC);
	assert_int_equal(duration_ok("3m"), 180 * SEC);
	assert_int_equal(duration_ok("2min"), 120 * SEC);
	assert_int_equal(duration_ok("1h"), 3600 * SEC);
	assert_int_equal(duration_ok("2d"), 2 * 86400 * SEC);
	assert_int_equal(duration_ok("0s"), 0);
	assert_int_equal(duration_ok("0"), 0);
}

static void test_duration_bare_seconds(void **state)
{
	(void)state;
	assert_int_equal(duration_ok("5"), 5 * SEC);
	assert_int_equal(duration_ok("30"), 30 * SEC);
	assert_int_equal(duration_ok("0.25"), SEC / 4);
}

static void test_duration_fractions(void **state)
{
	(void)state;
	assert_int_equal(duration_ok("1.5s"), SEC + SEC / 2);
	assert_int_equal(duration_ok("0.5ms"), 500000);
	assert_int_equal(duration_ok("1.5h"), 5400 * SEC);
	assert_int_equal(duration_ok("0.5m"), 30 * SEC);
	assert_int_equal(duration_ok(".5s"), SEC / 2);
}

/*
 * A decimal duration is exact to the nanosecond: "1.001s" is 1001000000 ns.
 * (1.001 has no exact binary form; multiplying in double and truncating
 * gives 1000999999.)
 */
static void test_duration_decimal_exact(void **state)
{
	(void)state;
	assert_int_equal(duration_ok("1.001s"), 1001000000);
	assert_int_equal(duration_ok("1.003s"), 1003000000);
	assert_int_equal(duration_ok("2.001ms"), 2001000);
}

static void test_duration_invalid(void **state)
{
	static const char *const bad[] = {
		"",
		"-1s",
		"-0",
		"+5s",
		"10x",
		" 5",
		"5 ",
		"5 s",
		"s",
		"ms",
		"1.5.5s",
		"1sec",
		"5S",
		"1hh",
		"10 ms",
		"1s2",
		/* strtod reads these as NaN; casting NaN to int64 is undefined. */
		"nan",
		"nans",
		"NaN",
	};

	int wrong = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t ns = 0;
		int err = hm_parse_duration(bad[i], &ns);

		if (err >= 0) {
			print_error("hm_parse_duration('%s') = %d, gave %lld\n", bad[i], err,
				    (long long)ns);
			wrong++;
		}
	}
	assert_int_equal(wrong, 0);
}

static void test_duration_range(void **state)
{
	int64_t ns = 0;

	(void)state;
	/* About 292 years fit in int64 nanoseconds; a million days do not. */
	assert_int_equal(duration_ok("36500d"), 36500LL * 86400 * SEC);
	assert_int_equal(hm_parse_duration("1000000d", &ns), -ERANGE);
	assert_int_equal(hm_parse_duration("99999999999999999999s", &ns), -ERANGE);
	/* Exponents, infinities and NaN are not durations at all. */
	assert_int_equal(hm_parse_duration("1e300s", &ns), -EINVAL);
	assert_int_equal(hm_parse_duration("inf", &ns), -EINVAL);
	assert_int_equal(hm_parse_duration("nan", &ns), -EINVAL);
	assert_int_equal(hm_parse_duration("0x10s", &ns), -EINVAL);
}

/* ---- log.c ---- */

static void test_log_parse_level(void **state)
{
	static const struct {
		const char *s;
		enum hm_log_level level;
	} good[] = {
		{ "error", HM_LOG_ERROR }, { "warn", HM_LOG_WARN },   { "warning", HM_LOG_WARN },
		{ "info", HM_LOG_INFO },   { "debug", HM_LOG_DEBUG }, { "trace", HM_LOG_TRACE },
	};
	static const char *const bad[] = { "",	    "WARN", "Info",   "fatal", "info ",
					   " info", "err",  "tracer", "0" };
	enum hm_log_level level;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		level = (enum hm_log_level) - 1;
		assert_int_equal(hm_log_parse_level(good[i].s, &level), 0);
		assert_int_equal(level, good[i].level);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (hm_log_parse_level(bad[i], &level) != -EINVAL)
			fail_msg("hm_log_parse_level('%s') did not return -EINVAL", bad[i]);
	}
}

static void test_log_enabled(void **state)
{
	enum hm_log_level saved = hm_log_get_level();

	(void)state;
	hm_log_set_level(HM_LOG_INFO);
	assert_int_equal(hm_log_get_level(), HM_LOG_INFO);
	assert_true(hm_log_enabled(HM_LOG_ERROR));
	assert_true(hm_log_enabled(HM_LOG_WARN));
	assert_true(hm_log_enabled(HM_LOG_INFO));
	assert_false(hm_log_enabled(HM_LOG_DEBUG));
	assert_false(hm_log_enabled(HM_LOG_TRACE));
	hm_log_set_level(HM_LOG_ERROR);
	assert_false(hm_log_enabled(HM_LOG_WARN));
	hm_log_set_level(saved);
}

/* Log lines go to --log-file as "hermit: <level>: ..."; lines below the level do not. */
static void test_log_file(void **state)
{
	char path[] = "/tmp/hermit-test-log-XXXXXX";
	enum hm_log_level saved = hm_log_get_level();
	char text[256];
	FILE *f;
	size_t n;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(hm_log_set_file(path), 0);
	hm_log_set_level(HM_LOG_INFO);
	hm_info("opened '%s' %d", "x", 42);
	hm_debug("not shown");
	hm_warn("w");
	hm_log_close();
	hm_log_set_level(saved);

	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = 0;
	fclose(f);
	unlink(path);
	assert_string_equal(text, "hermit: info: opened 'x' 42\nhermit: warn: w\n");

	assert_int_equal(hm_log_set_file("/nonexistent-dir-hermit/log"), -ENOENT);
}

static void test_strerror(void **state)
{
	(void)state;
	assert_string_equal(hm_strerror(ENOENT), "no such file or directory");
	assert_string_equal(hm_strerror(-ENOENT), "no such file or directory");
	assert_string_equal(hm_strerror(EACCES), "permission denied");
	assert_string_equal(hm_strerror(-EPERM), "operation not permitted");
	assert_string_equal(hm_strerror(ENOEXEC), "exec format error");
	/* An initialism keeps its case: glibc says "RFS specific error". */
	assert_string_equal(hm_strerror(EDOTDOT), "RFS specific error");
	/* Only the first letter changes. */
	assert_string_equal(hm_strerror(EREMOTEIO), "remote I/O error");
}

/* ---- xmalloc.c ---- */

static void test_xmalloc(void **state)
{
	char *s, *p;
	int *z;

	(void)state;
	s = xstrdup("hermit");
	assert_string_equal(s, "hermit");
	free(s);
	p = xmalloc(0);
	assert_non_null(p);
	p = xrealloc(p, 100);
	memset(p, 1, 100);
	free(p);
	z = xcalloc(16, sizeof(*z));
	for (int i = 0; i < 16; i++)
		assert_int_equal(z[i], 0);
	free(z);
}

/* ---- fnv.c ---- */

/* The FNV-1a 64 test vectors of Landon Curt Noll's fnv test suite
 * (test_fnv.c), also in draft-eastlake-fnv; the last one worked out with
 * a few lines of Python apart from this code. */
static void test_fnv1a_known_values(void **state)
{
	(void)state;
	assert_int_equal(hm_fnv1a(HM_FNV1A_INIT, "", 0), 0xcbf29ce484222325ULL);
	assert_int_equal(hm_fnv1a(HM_FNV1A_INIT, "a", 1), 0xaf63dc4c8601ec8cULL);
	assert_int_equal(hm_fnv1a(HM_FNV1A_INIT, "foobar", 6), 0x85944171f73967e8ULL);
	assert_int_equal(hm_fnv1a(HM_FNV1A_INIT, "hello, world\n", 13), 0xe60e7ee648829675ULL);
}

/* Pieces digest as the whole, whatever the cut; one byte changed shows. */
static void test_fnv1a_pieces(void **state)
{
	static const char text[] = "total 60000000\n";
	size_t n = sizeof(text) - 1;
	uint64_t whole = hm_fnv1a(HM_FNV1A_INIT, text, n);
	char other[sizeof(text)];

	(void)state;
	for (size_t cut = 0; cut <= n; cut++)
		assert_int_equal(hm_fnv1a(hm_fnv1a(HM_FNV1A_INIT, text, cut), text + cut, n - cut),
				 whole);
	memcpy(other, text, sizeof(text));
	other[8] = '1';
	assert_int_not_equal(hm_fnv1a(HM_FNV1A_INIT, other, n), whole);
	/* Where a piece ends is not part of the digest, but the bytes' order is. */
	memcpy(other, "total 06000000\n", sizeof(text));
	assert_int_not_equal(hm_fnv1a(HM_FNV1A_INIT, other, n), whole);
}

/* ---- buf.c ---- */

static void test_buf_init_free(void **state)
{
	struct hm_buf b;

	(void)state;
	memset(&b, 0x5a, sizeof(b));
	hm_buf_init(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	/* Reset and free of a buffer that never allocated are harmless. */
	hm_buf_reset(&b);
	hm_buf_free(&b);
	hm_buf_add(&b, "abc", 3);
	hm_buf_free(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
}

static void test_buf_add(void **state)
{
	struct hm_buf b;

	(void)state;
	hm_buf_init(&b);
	hm_buf_add(&b, "abc", 3);
	assert_int_equal(b.len, 3);
	assert_true(b.cap >= 4);
	assert_string_equal((char *)b.data, "abc");
	hm_buf_add(&b, "defgh", 2);
	assert_int_equal(b.len, 5);
	assert_string_equal((char *)b.data, "abcde");
	/* Binary data: an embedded NUL is kept and counted. */
	hm_buf_add(&b, "x\0y", 3);
	assert_int_equal(b.len, 8);
	assert_memory_equal(b.data, "abcdex\0y", 9);
	/* Adding nothing still leaves a terminated string. */
	hm_buf_add(&b, "", 0);
	assert_int_equal(b.len, 8);
	assert_int_equal(b.data[8], 0);
	hm_buf_free(&b);

	/* An empty add on a fresh buffer gives an empty string, not NULL. */
	hm_buf_init(&b);
	hm_buf_add(&b, "", 0);
	assert_non_null(b.data);
	assert_int_equal(b.len, 0);
	assert_string_equal((char *)b.data, "");
	hm_buf_free(&b);
}

static void test_buf_addf(void **state)
{
	struct hm_buf b;
	char want[300];

	(void)state;
	hm_buf_init(&b);
	hm_buf_addf(&b, "%s", "");
	assert_int_equal(b.len, 0);
	assert_string_equal((char *)b.data, "");
	hm_buf_addf(&b, "x=%d", 42);
	hm_buf_addf(&b, ",%s", "y");
	assert_int_equal(b.len, 6);
	assert_string_equal((char *)b.data, "x=42,y");
	/* Longer than the first allocation: the buffer grows to fit. */
	hm_buf_addf(&b, "%0200d|%s", 7, "end");
	snprintf(want, sizeof(want), "x=42,y%0200d|end", 7);
	assert_int_equal(b.len, strlen(want));
	assert_string_equal((char *)b.data, want);
	assert_true(b.cap > b.len);
	hm_buf_free(&b);
}

static void test_buf_grow(void **state)
{
	struct hm_buf b;
	unsigned char *p;

	(void)state;
	hm_buf_init(&b);
	hm_buf_add(&b, "head", 4);
	p = hm_buf_grow(&b, 1000);
	/* Room for N bytes and the terminator, at the end, len unchanged. */
	assert_ptr_equal(p, b.data + 4);
	assert_int_equal(b.len, 4);
	assert_true(b.cap >= 4 + 1000 + 1);
	assert_memory_equal(b.data, "head", 4);
	memset(p, 'z', 1000);
	b.len += 1000;
	b.data[b.len] = 0;
	hm_buf_add(&b, "!", 1);
	assert_int_equal(b.len, 1005);
	assert_int_equal(b.data[3], 'd');
	assert_int_equal(b.data[4], 'z');
	assert_int_equal(b.data[1003], 'z');
	assert_int_equal(b.data[1004], '!');
	assert_int_equal(b.data[1005], 0);
	/* Growing by zero when there is room keeps the same storage. */
	p = b.data;
	assert_ptr_equal(hm_buf_grow(&b, 0), p + b.len);
	assert_ptr_equal(b.data, p);
	hm_buf_free(&b);
}

static void test_buf_reset(void **state)
{
	struct hm_buf b;
	size_t cap;

	(void)state;
	hm_buf_init(&b);
	hm_buf_addf(&b, "%0100d", 1);
	cap = b.cap;
	hm_buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, cap);
	assert_string_equal((char *)b.data, "");
	hm_buf_add(&b, "new", 3);
	assert_string_equal((char *)b.data, "new");
	assert_int_equal(b.len, 3);
	hm_buf_free(&b);
}

/* Many appends of uneven sizes, past several doublings, then 4 MiB at once. */
static void test_buf_large(void **state)
{
	enum { TOTAL = 1 << 20, BIG = 4 << 20 };
	unsigned char *want = malloc(TOTAL), *big = malloc(BIG);
	struct hm_buf b;
	size_t at = 0, step = 1;

	(void)state;
	assert_non_null(want);
	assert_non_null(big);
	for (size_t i = 0; i < TOTAL; i++)
		want[i] = (unsigned char)(i * 131 + (i >> 8));
	hm_buf_init(&b);
	while (at < TOTAL) {
		size_t n = step < TOTAL - at ? step : TOTAL - at;

		hm_buf_add(&b, want + at, n);
		at += n;
		step = step * 3 % 1021 + 1;
		assert_int_equal(b.len, at);
		assert_int_equal(b.data[b.len], 0);
	}
	assert_memory_equal(b.data, want, TOTAL);
	assert_true(b.cap > TOTAL);

	for (size_t i = 0; i < BIG; i++)
		big[i] = (unsigned char)(i ^ (i >> 11));
	hm_buf_add(&b, big, BIG);
	assert_int_equal(b.len, (size_t)TOTAL + BIG);
	assert_memory_equal(b.data, want, TOTAL);
	assert_memory_equal(b.data + TOTAL, big, BIG);
	assert_int_equal(b.data[b.len], 0);
	hm_buf_free(&b);
	free(want);
	free(big);
}

/* ---- scratch folders for the file tests ---- */

/* Remove one entry; nftw(3) walks depth first (FTW_DEPTH). */
static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Setup: a fresh folder under /tmp, its path in *STATE. */
static int scratch_setup(void **state)
{
	char *dir = strdup("/tmp/hermit-test-common-XXXXXX");

	if (!dir || !mkdtemp(dir)) {
		free(dir);
		return -1;
	}
	*state = dir;
	return 0;
}

static int scratch_teardown(void **state)
{
	char *dir = *state;
	int rc = nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);

	free(dir);
	return rc;
}

/* A malloc'd "<DIR>/<NAME>". */
static char *in_dir(const char *dir, const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);

	assert_non_null(p);
	sprintf(p, "%s/%s", dir, name);
	return p;
}

static void write_file(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	assert_int_equal(close(fd), 0);
}

/* The whole of PATH in B (reset first), read with stdio, not hm_read_file. */
static void slurp(const char *path, struct hm_buf *b)
{
	char chunk[4096];
	FILE *f = fopen(path, "rb");
	size_t n;

	assert_non_null(f);
	hm_buf_reset(b);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		hm_buf_add(b, chunk, n);
	fclose(f);
}

/* Entries of DIR other than "." and ".."; fails on a temporary file. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (strstr(e->d_name, ".tmp."))
			fail_msg("temporary file left: '%s/%s'", dir, e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static int is_dir_0700(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700;
}

/* ---- xz.c ---- */

/*
 * N bytes that are neither all compressible nor all noise: runs of text,
 * of xorshift noise, of zeros and of a counter, each of an uneven length,
 * so that compressed blocks end at no particular place.
 */
static unsigned char *varied_data(size_t n, uint32_t seed)
{
	static const char words[] = "deterministic record replay of a tracee under ptrace ";
	unsigned char *p = malloc(n);
	uint32_t x = seed | 1;
	size_t at = 0;

	assert_non_null(p);
	while (at < n) {
		size_t run = 1000 + (x % 20000), kind = (x >> 8) % 4;

		for (size_t i = 0; i < run && at < n; i++, at++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			p[at] = kind == 0   ? (unsigned char)words[at % (sizeof(words) - 1)]
				: kind == 1 ? (unsigned char)x
				: kind == 2 ? 0
					    : (unsigned char)(at / 7);
		}
	}
	return p;
}

/* Compress DATA[0..N) to a new file at PATH in chunks of uneven size, with
 * a flush after every 8th. */
static void xz_write_file(const char *path, const unsigned char *data, size_t n)
{
	struct hm_xzw *w;
	size_t at = 0, step = 1, k = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(hm_xzw_open(&w, fd), 0);
	while (at < n) {
		size_t c = step < n - at ? step : n - at;

		assert_int_equal(hm_xzw_write(w, data + at, c), 0);
		at += c;
		step = (step * 7 + 3) % 50000 + 1;
		if (++k % 8 == 0)
			assert_int_equal(hm_xzw_flush(w), 0);
	}
	assert_int_equal(hm_xzw_close(w), 0);
	assert_int_equal(close(fd), 0);
}

/* Decompress PATH into OUT with reads of uneven size; the last result (0,
 * or the error that ended it). */
static ssize_t xz_read_file(const char *path, struct hm_buf *out)
{
	struct hm_xzr *r;
	unsigned char chunk[70000];
	size_t want = 1;
	ssize_t got;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(hm_xzr_open(&r, fd), 0);
	hm_buf_reset(out);
	while ((got = hm_xzr_read(r, chunk, want)) > 0) {
		assert_true((size_t)got <= want);
		hm_buf_add(out, chunk, (size_t)got);
		want = (want * 5 + 11) % sizeof(chunk) + 1;
	}
	/* The end, or the error, stays. */
	assert_int_equal(hm_xzr_read(r, chunk, sizeof(chunk)), got);
	hm_xzr_close(r);
	close(fd);
	return got;
}

static void test_xz_round_trip(void **state)
{
	enum { N = 1000003 };
	unsigned char *data = varied_data(N, 12345);
	char *path = in_dir(*state, "rt.xz");
	struct hm_buf out;
	struct stat st;

	hm_buf_init(&out);
	xz_write_file(path, data, N);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 12 && st.st_size < N); /* compressed, yet not empty */
	assert_int_equal(xz_read_file(path, &out), 0);
	assert_int_equal(out.len, N);
	assert_memory_equal(out.data, data, N);

	/* An empty stream is a stream too. */
	xz_write_file(path, data, 0);
	assert_int_equal(xz_read_file(path, &out), 0);
	assert_int_equal(out.len, 0);
	hm_buf_free(&out);
	free(path);
	free(data);
}

/* A recorder killed after a flush: what came before the flush is all there. */
static void test_xz_truncated(void **state)
{
	enum { A = 300001, B = 200003 };
	unsigned char *data = varied_data(A + B, 777);
	char *path = in_dir(*state, "cut.xz");
	struct hm_buf out;
	struct hm_xzw *w;
	off_t flushed;
	struct stat st;
	int fd;

	hm_buf_init(&out);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(hm_xzw_open(&w, fd), 0);
	assert_int_equal(hm_xzw_write(w, data, A / 2), 0);
	assert_int_equal(hm_xzw_flush(w), 0);
	assert_int_equal(hm_xzw_write(w, data + A / 2, A - A / 2), 0);
	assert_int_equal(hm_xzw_flush(w), 0);
	/* Everything before the flush is in the file, not in our buffer. */
	assert_int_equal(fstat(fd, &st), 0);
	flushed = st.st_size;
	assert_int_equal(hm_xzw_write(w, data + A, B), 0);
	assert_int_equal(hm_xzw_close(w), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > flushed + 100);

	/* Cut a few bytes into the block after the flush. */
	assert_int_equal(truncate(path, flushed + 5), 0);
	assert_int_equal(xz_read_file(path, &out), -EPIPE);
	assert_int_equal(out.len, A);
	assert_memory_equal(out.data, data, A);

	/* Cut right at the flush. */
	assert_int_equal(truncate(path, flushed), 0);
	assert_int_equal(xz_read_file(path, &out), -EPIPE);
	assert_int_equal(out.len, A);
	assert_memory_equal(out.data, data, A);

	/* Cut inside the first block: a prefix of the data, then -EPIPE. */
	assert_int_equal(truncate(path, flushed / 4), 0);
	assert_int_equal(xz_read_file(path, &out), -EPIPE);
	assert_true(out.len < A / 2);
	assert_memory_equal(out.data, data, out.len);

	/* Only the stream header left, or nothing at all. */
	assert_int_equal(truncate(path, 12), 0);
	assert_int_equal(xz_read_file(path, &out), -EPIPE);
	assert_int_equal(out.len, 0);
	assert_int_equal(truncate(path, 0), 0);
	assert_int_equal(xz_read_file(path, &out), -EPIPE);
	assert_int_equal(out.len, 0);
	hm_buf_free(&out);
	free(path);
	free(data);
}

static void flip_byte(const char *path, off_t at)
{
	unsigned char c;
	int fd = open(path, O_RDWR);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &c, 1, at), 1);
	c ^= 0x55;
	assert_int_equal(pwrite(fd, &c, 1, at), 1);
	close(fd);
}

/* hm_xz_finished on the file at PATH. */
static int xz_finished(const char *path)
{
	int fd = open(path, O_RDONLY), got;

	assert_true(fd >= 0);
	got = hm_xz_finished(fd);
	close(fd);
	return got;
}

/* A finished stream ends with its footer; one cut anywhere, an empty
 * file, a plain file and a damaged footer do not. */
static void test_xz_finished(void **state)
{
	enum { N = 100003 };
	unsigned char *data = varied_data(N, 31);
	char *path = in_dir(*state, "fin.xz");
	struct stat st;

	xz_write_file(path, data, N);
	assert_int_equal(xz_finished(path), 1);
	xz_write_file(path, data, 0);
	assert_int_equal(xz_finished(path), 1);
	xz_write_file(path, data, N);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - 1), 0);
	assert_int_equal(xz_finished(path), 0);
	assert_int_equal(truncate(path, st.st_size / 2), 0);
	assert_int_equal(xz_finished(path), 0);
	assert_int_equal(truncate(path, 0), 0);
	assert_int_equal(xz_finished(path), 0);
	xz_write_file(path, data, N);
	flip_byte(path, st.st_size - 6); /* in the footer's backward size */
	assert_int_equal(xz_finished(path), 0);
	write_file(path, data, 4096);
	assert_int_equal(xz_finished(path), 0);
	free(path);
	free(data);
}

static void test_xz_corrupt(void **state)
{
	enum { N = 1 << 20 };
	unsigned char *data = varied_data(N, 4242);
	char *path = in_dir(*state, "bad.xz");
	struct hm_buf out;
	struct stat st;
	ssize_t rc;

	hm_buf_init(&out);
	xz_write_file(path, data, N);
	assert_int_equal(stat(path, &st), 0);
	flip_byte(path, st.st_size / 2);
	rc = xz_read_file(path, &out);
	if (rc != -EBADMSG && rc != -EPIPE)
		fail_msg("a flipped byte gave %zd", rc);
	assert_true(out.len < N);

	/* A flipped byte in the magic: not xz at all. */
	xz_write_file(path, data, N);
	flip_byte(path, 1);
	assert_int_equal(xz_read_file(path, &out), -EBADMSG);
	assert_int_equal(out.len, 0);
	hm_buf_free(&out);
	free(path);
	free(data);
}

static void test_xz_not_xz(void **state)
{
	static const char text[] = "hermit: this is a plain text file, not an xz stream\n";
	char *path = in_dir(*state, "plain");
	struct hm_buf out;

	hm_buf_init(&out);
	write_file(path, text, sizeof(text) - 1);
	assert_int_equal(xz_read_file(path, &out), -EBADMSG);
	assert_int_equal(out.len, 0);
	hm_buf_free(&out);
	free(path);
}

/* /dev/full fails every write(2) with ENOSPC: the error sticks. */
static void test_xz_write_error(void **state)
{
	enum { N = 1 << 20 };
	unsigned char *data = varied_data(N, 99);
	struct hm_xzw *w;
	int fd = open("/dev/full", O_WRONLY), rc = 0;

	(void)state;
	if (fd < 0) {
		free(data);
		skip();
	}
	assert_int_equal(hm_xzw_open(&w, fd), 0);
	/* Noise does not compress: the 64 KiB buffer fills within 1 MiB. */
	for (size_t at = 0; at < N && rc == 0; at += 4096)
		rc = hm_xzw_write(w, data + at, 4096);
	assert_int_equal(rc, -ENOSPC);
	assert_int_equal(hm_xzw_write(w, "x", 1), -ENOSPC);
	assert_int_equal(hm_xzw_flush(w), -ENOSPC);
	assert_int_equal(hm_xzw_close(w), -ENOSPC);
	close(fd);

	/* A flush alone writes, so it meets the error too. */
	fd = open("/dev/full", O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(hm_xzw_open(&w, fd), 0);
	assert_int_equal(hm_xzw_write(w, "abc", 3), 0);
	assert_int_equal(hm_xzw_flush(w), -ENOSPC);
	assert_int_equal(hm_xzw_close(w), -ENOSPC);
	close(fd);
	free(data);
}

/* ---- datadir.c ---- */

/* Set NAME to VALUE, or unset it when VALUE is NULL. */
static void set_env(const char *name, const char *value)
{
	if (value)
		assert_int_equal(setenv(name, value, 1), 0);
	else
		assert_int_equal(unsetenv(name), 0);
}

static void expect_datadir(const char *want)
{
	char *got = hm_datadir_path();

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_datadir_path(void **state)
{
	static const char *const names[] = { "HERMIT_DATA_DIR", "XDG_DATA_HOME", "HOME" };
	char *saved[3];

	(void)state;
	for (int i = 0; i < 3; i++) {
		const char *v = getenv(names[i]);

		saved[i] = v ? strdup(v) : NULL;
	}
	set_env("HERMIT_DATA_DIR", "/d/hermit-data");
	set_env("XDG_DATA_HOME", "/x/share");
	set_env("HOME", "/home/u");
	expect_datadir("/d/hermit-data");
	set_env("HERMIT_DATA_DIR", NULL);
	expect_datadir("/x/share/hermit");
	set_env("XDG_DATA_HOME", NULL);
	expect_datadir("/home/u/.local/share/hermit");
	set_env("HOME", NULL);
	expect_datadir(NULL);

	/* HERMIT_DATA_DIR wins over HOME alone; empty values count as unset. */
	set_env("HOME", "/home/u");
	set_env("HERMIT_DATA_DIR", "rel/dir");
	expect_datadir("rel/dir");
	set_env("HERMIT_DATA_DIR", "");
	set_env("XDG_DATA_HOME", "");
	expect_datadir("/home/u/.local/share/hermit");
	/* XDG Base Directory: a relative XDG_DATA_HOME is ignored. */
	set_env("XDG_DATA_HOME", "share");
	expect_datadir("/home/u/.local/share/hermit");
	set_env("HOME", "");
	expect_datadir(NULL);

	for (int i = 0; i < 3; i++) {
		set_env(names[i], saved[i]);
		free(saved[i]);
	}
}

static void test_datadir_ensure(void **state)
{
	char *dd = in_dir(*state, "a/b//c/hermit");
	char *rec = in_dir(dd, "recordings"), *a = in_dir(*state, "a");
	char *file = in_dir(*state, "file");

	assert_int_equal(hm_datadir_ensure(dd), 0);
	assert_true(is_dir_0700(a));
	assert_true(is_dir_0700(dd));
	assert_true(is_dir_0700(rec));
	/* Again: all there, nothing to do. */
	assert_int_equal(hm_datadir_ensure(dd), 0);
	assert_int_equal(count_entries(dd), 1);

	write_file(file, "x", 1);
	assert_int_equal(hm_datadir_ensure(file), -ENOTDIR);
	free(file);
	file = in_dir(*state, "file/sub");
	assert_int_equal(hm_datadir_ensure(file), -ENOTDIR);
	free(file);
	free(a);
	free(rec);
	free(dd);
}

/* Create a recording named after BASE and check it is WANT. */
static void expect_create(const char *dd, const char *base, const char *want)
{
	char *id = NULL, *dir = NULL, *rec = in_dir(dd, "recordings"), *want_dir;

	want_dir = in_dir(rec, want);
	assert_int_equal(hm_recording_create(dd, base, &id, &dir), 0);
	assert_string_equal(id, want);
	assert_string_equal(dir, want_dir);
	assert_true(is_dir_0700(dir));
	assert_true(hm_recording_id_valid(id));
	free(want_dir);
	free(rec);
	free(id);
	free(dir);
}

static void test_recording_create(void **state)
{
	const char *dd = *state;
	char *dir, *id, *ls0 = in_dir(dd, "recordings/ls-0"), *stray, *ls2, *ls4, *old, *counter;
	char *rec, longbase[101], want[80];

	/* No recordings folder yet. */
	assert_int_equal(hm_recording_create(dd, "ls", &id, &dir), -ENOENT);
	assert_int_equal(hm_datadir_ensure(dd), 0);
	expect_create(dd, "ls", "ls-0");
	expect_create(dd, "ls", "ls-1");
	expect_create(dd, "a/b", "a_b-0");
	expect_create(dd, "a\tb", "a_b-1");
	expect_create(dd, "", "prog-0");
	expect_create(dd, ".", "_-0");
	expect_create(dd, "..hidden", "_.hidden-0");
	expect_create(dd, "h\xc3\xa9llo", "h\xc3\xa9llo-0");
	memset(longbase, 'x', 100);
	longbase[100] = 0;
	memset(want, 'x', 64);
	strcpy(want + 64, "-0");
	expect_create(dd, longbase, want);
	/* A two-byte character across byte 64 is left out whole. */
	longbase[63] = '\xc3';
	longbase[64] = '\xa9';
	strcpy(want + 63, "-0");
	expect_create(dd, longbase, want);

	/* An id is never handed out again once its recording is removed,
	 * the newest one included. */
	assert_int_equal(rmdir(ls0), 0);
	expect_create(dd, "ls", "ls-2");
	ls2 = in_dir(dd, "recordings/ls-2");
	assert_int_equal(rmdir(ls2), 0);
	expect_create(dd, "ls", "ls-3");
	/* A folder that the counter does not know of is skipped. */
	ls4 = in_dir(dd, "recordings/ls-4");
	assert_int_equal(mkdir(ls4, 0700), 0);
	expect_create(dd, "ls", "ls-5");
	/* Without a counter (a data folder from before counters), one past
	 * the largest number there. */
	old = in_dir(dd, "recordings/old-7");
	assert_int_equal(mkdir(old, 0700), 0);
	free(old);
	old = in_dir(dd, "recordings/old-x");
	assert_int_equal(mkdir(old, 0700), 0);
	free(old);
	expect_create(dd, "old", "old-8");
	expect_create(dd, "ol", "ol-0");
	/* A counter that holds no number is an error, and no folder is made. */
	counter = in_dir(dd, "ids/ls");
	write_file(counter, "x\n", 2);
	assert_int_equal(hm_recording_create(dd, "ls", &id, &dir), -EBADMSG);
	write_file(counter, "12\n", 3);
	expect_create(dd, "ls", "ls-12");
	free(counter);
	rec = in_dir(dd, "recordings");
	assert_int_equal(count_entries(rec), 17);
	free(rec);

	assert_int_equal(hm_recording_dir(dd, "ls-1", &dir), 0);
	assert_string_equal(dir + strlen(dd), "/recordings/ls-1");
	free(dir);
	assert_int_equal(hm_recording_dir(dd, "ls-9", &dir), -ENOENT);
	assert_int_equal(hm_recording_dir(dd, "../recordings", &dir), -EINVAL);
	assert_int_equal(hm_recording_dir(dd, "", &dir), -EINVAL);
	/* A file is no recording. */
	stray = in_dir(dd, "recordings/stray-0");
	write_file(stray, "x", 1);
	assert_int_equal(hm_recording_dir(dd, "stray-0", &dir), -ENOENT);
	free(stray);
	free(ls4);
	free(ls2);
	free(ls0);
}

/* Recorders that start at once never share an id, and the counter they
 * share comes out past every id they took. */
static void test_recording_create_race(void **state)
{
	enum { PROCS = 4, EACH = 25 };
	const char *dd = *state;
	char *rec, name[32];
	pid_t pids[PROCS];

	assert_int_equal(hm_datadir_ensure(dd), 0);
	for (int i = 0; i < PROCS; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			for (int k = 0; k < EACH; k++) {
				char *id, *dir;

				if (hm_recording_create(dd, "race", &id, &dir) != 0)
					_exit(1);
				free(id);
				free(dir);
			}
			_exit(0);
		}
	}
	for (int i = 0; i < PROCS; i++) {
		int status;

		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	/* PROCS * EACH folders made, so if two had shared one, race-99 would be missing. */
	rec = in_dir(dd, "recordings");
	assert_int_equal(count_entries(rec), PROCS * EACH);
	for (int n = 0; n < PROCS * EACH; n++) {
		char *d;

		snprintf(name, sizeof(name), "recordings/race-%d", n);
		d = in_dir(dd, name);
		assert_true(is_dir_0700(d));
		assert_int_equal(rmdir(d), 0);
		free(d);
	}
	expect_create(dd, "race", "race-100");
	free(rec);
}

static void test_recording_id_valid(void **state)
{
	char id[202];

	(void)state;
	assert_true(hm_recording_id_valid("ls-0"));
	assert_true(hm_recording_id_valid("a"));
	assert_true(hm_recording_id_valid("a.b"));
	assert_true(hm_recording_id_valid("a..b"));
	assert_true(hm_recording_id_valid("h\xc3\xa9llo-1"));
	assert_true(hm_recording_id_valid("with space"));
	assert_false(hm_recording_id_valid(""));
	assert_false(hm_recording_id_valid("."));
	assert_false(hm_recording_id_valid(".."));
	assert_false(hm_recording_id_valid(".hidden"));
	assert_false(hm_recording_id_valid("a/b"));
	assert_false(hm_recording_id_valid("/abs"));
	assert_false(hm_recording_id_valid("a\nb"));
	assert_false(hm_recording_id_valid("tab\t"));
	assert_false(hm_recording_id_valid("del\x7f"));
	memset(id, 'x', 200);
	id[200] = 0;
	assert_true(hm_recording_id_valid(id));
	id[200] = 'x';
	id[201] = 0;
	assert_false(hm_recording_id_valid(id));
}

static void test_write_atomic(void **state)
{
	const char *dir = *state;
	char *path = in_dir(dir, "meta"), *sub = in_dir(dir, "sub"), *missing;
	struct hm_buf b;

	hm_buf_init(&b);
	assert_int_equal(hm_write_atomic(path, "first", 5), 0);
	slurp(path, &b);
	assert_int_equal(b.len, 5);
	assert_memory_equal(b.data, "first", 5);
	assert_int_equal(hm_write_atomic(path, "second, longer", 14), 0);
	slurp(path, &b);
	assert_int_equal(b.len, 14);
	assert_memory_equal(b.data, "second, longer", 14);
	assert_int_equal(hm_write_atomic(path, "", 0), 0);
	slurp(path, &b);
	assert_int_equal(b.len, 0);
	assert_int_equal(count_entries(dir), 1);

	/* rename(2) onto a folder fails: the temporary file goes, the folder stays. */
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(hm_write_atomic(sub, "x", 1), -EISDIR);
	assert_true(is_dir_0700(sub));
	assert_int_equal(count_entries(dir), 2);
	missing = in_dir(dir, "no/such");
	assert_int_equal(hm_write_atomic(missing, "x", 1), -ENOENT);
	assert_int_equal(count_entries(dir), 2);
	free(missing);
	hm_buf_free(&b);
	free(sub);
	free(path);
}

static void test_read_file(void **state)
{
	char *path = in_dir(*state, "ten"), *missing = in_dir(*state, "missing");
	struct hm_buf b;

	hm_buf_init(&b);
	write_file(path, "0123456789", 10);
	hm_buf_add(&b, "<", 1);
	assert_int_equal(hm_read_file(path, 10, &b), 0);
	assert_string_equal((char *)b.data, "<0123456789");
	/* Past the limit: -EFBIG and the buffer as it was. */
	assert_int_equal(hm_read_file(path, 9, &b), -EFBIG);
	assert_string_equal((char *)b.data, "<0123456789");
	assert_int_equal(hm_read_file(path, 0, &b), -EFBIG);
	assert_int_equal(b.len, 11);
	assert_int_equal(hm_read_file(missing, 10, &b), -ENOENT);
	assert_int_equal(hm_read_file(*state, 10, &b), -EISDIR);
	assert_int_equal(b.len, 11);
	hm_buf_free(&b);
	free(missing);
	free(path);
}

static void test_last(void **state)
{
	const char *dd = *state;
	char *last = in_dir(dd, "LAST"), *id = NULL, junk[5000];
	struct hm_buf b;

	hm_buf_init(&b);
	assert_int_equal(hm_datadir_get_last(dd, &id), -ENOENT);
	assert_int_equal(hm_datadir_set_last(dd, "ls-3"), 0);
	slurp(last, &b);
	assert_int_equal(b.len, 5);
	assert_memory_equal(b.data, "ls-3\n", 5);
	assert_int_equal(hm_datadir_get_last(dd, &id), 0);
	assert_string_equal(id, "ls-3");
	free(id);
	assert_int_equal(hm_datadir_set_last(dd, "cat-12"), 0);
	assert_int_equal(hm_datadir_get_last(dd, &id), 0);
	assert_string_equal(id, "cat-12");
	free(id);
	assert_int_equal(hm_datadir_set_last(dd, "../x"), -EINVAL);
	assert_int_equal(count_entries(dd), 1);

	/* What another hand may have left there. */
	write_file(last, "../../etc\n", 10);
	assert_int_equal(hm_datadir_get_last(dd, &id), -EBADMSG);
	write_file(last, "", 0);
	assert_int_equal(hm_datadir_get_last(dd, &id), -EBADMSG);
	write_file(last, "\n", 1);
	assert_int_equal(hm_datadir_get_last(dd, &id), -EBADMSG);
	write_file(last, "ls-1\nls-2\n", 10);
	assert_int_equal(hm_datadir_get_last(dd, &id), -EBADMSG);
	write_file(last, "ls\0-1\n", 6);
	assert_int_equal(hm_datadir_get_last(dd, &id), -EBADMSG);
	memset(junk, 'x', sizeof(junk));
	write_file(last, junk, sizeof(junk));
	assert_int_equal(hm_datadir_get_last(dd, &id), -EBADMSG);
	/* No newline at the end is still an id. */
	write_file(last, "ls-7", 4);
	assert_int_equal(hm_datadir_get_last(dd, &id), 0);
	assert_string_equal(id, "ls-7");
	free(id);
	hm_buf_free(&b);
	free(last);
}

/* ---- json.c ---- */

static void test_json_round_trip(void **state)
{
	char *path = in_dir(*state, "meta.json");
	cJSON *doc = cJSON_CreateObject(), *back = NULL, *arr;
	struct hm_buf b;

	hm_buf_init(&b);
	assert_non_null(cJSON_AddStringToObject(doc, "program", "/bin/ls"));
	assert_non_null(cJSON_AddNumberToObject(doc, "seed", 42));
	assert_non_null(cJSON_AddNumberToObject(doc, "neg", -7));
	assert_non_null(cJSON_AddNumberToObject(doc, "epoch_ns", 1767225600000000000.0));
	assert_non_null(cJSON_AddNumberToObject(doc, "big", 9007199254740992.0)); /* 2^53 */
	assert_non_null(cJSON_AddNumberToObject(doc, "half", 1.5));
	assert_non_null(cJSON_AddNumberToObject(doc, "huge", 1e300));
	assert_non_null(cJSON_AddNumberToObject(doc, "ns", 1767225600123456768.0));
	assert_non_null(cJSON_AddNumberToObject(doc, "min", -9223372036854775808.0));
	assert_non_null(cJSON_AddNumberToObject(doc, "sum", 0.1 + 0.2));
	assert_non_null(cJSON_AddTrueToObject(doc, "ok"));
	arr = cJSON_AddArrayToObject(doc, "argv");
	assert_non_null(arr);
	cJSON_AddItemToArray(arr, cJSON_CreateString("ls"));
	cJSON_AddItemToArray(arr, cJSON_CreateString("-l \"q\" \xc3\xa9"));

	assert_int_equal(hm_json_write(path, doc), 0);
	slurp(path, &b);
	assert_true(b.len > 2);
	assert_int_equal(b.data[0], '{');
	assert_int_equal(b.data[b.len - 1], '\n');
	assert_non_null(strchr((char *)b.data, '\t')); /* formatted */
	/* Numbers exactly, where cJSON 1.7.15 alone would write 9007199254740990. */
	assert_non_null(strstr((char *)b.data, "9007199254740992"));
	assert_non_null(strstr((char *)b.data, "1767225600123456768"));
	assert_int_equal(count_entries(*state), 1);

	assert_int_equal(hm_json_read(path, &back), 0);
	assert_true(cJSON_Compare(doc, back, 1));
	assert_string_equal(hm_json_str(back, "program", "?"), "/bin/ls");
	assert_string_equal(hm_json_str(back, "missing", "?"), "?");
	assert_string_equal(hm_json_str(back, "seed", "?"), "?");
	assert_null(hm_json_str(back, "missing", NULL));
	assert_int_equal(hm_json_int(back, "seed", -1), 42);
	assert_int_equal(hm_json_int(back, "neg", -1), -7);
	assert_int_equal(hm_json_int(back, "epoch_ns", -1), 1767225600000000000LL);
	assert_int_equal(hm_json_int(back, "big", -1), 9007199254740992LL);
	assert_int_equal(hm_json_int(back, "ns", -1), 1767225600123456768LL);
	assert_int_equal(hm_json_int(back, "min", -1), INT64_MIN);
	assert_true(cJSON_GetObjectItemCaseSensitive(back, "sum")->valuedouble == 0.1 + 0.2);
	assert_true(cJSON_GetObjectItemCaseSensitive(back, "half")->valuedouble == 1.5);
	assert_int_equal(hm_json_int(back, "half", -1), -1);
	assert_int_equal(hm_json_int(back, "huge", -1), -1);
	assert_int_equal(hm_json_int(back, "program", -1), -1);
	assert_int_equal(hm_json_int(back, "ok", -1), -1);
	assert_int_equal(hm_json_int(back, "missing", 5), 5);
	assert_string_equal(
		cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(back, "argv"), 1)->valuestring,
		"-l \"q\" \xc3\xa9");
	/* Member names are matched exactly. */
	assert_int_equal(hm_json_int(back, "SEED", -1), -1);
	cJSON_Delete(back);
	cJSON_Delete(doc);
	hm_buf_free(&b);
	free(path);
}

/* ---- manifest.c ---- */

#define SHA_A "59f33e5baf0e6a94da2486e13a77fc2a188d5e5d7db6465893344f729d019ea1"

/* hm_manifest_files on the manifest TEXT of recording DIR: its answer,
 * with *V and *N. */
static int manifest_of(const char *dir, const char *text, struct hm_manifest_file **v, size_t *n)
{
	char *path = xmalloc(strlen(dir) + 32);
	cJSON *doc = NULL;
	int err;

	sprintf(path, "%s/manifest.json", dir);
	write_file(path, text, strlen(text));
	free(path);
	err = hm_manifest_read(dir, &doc);
	if (err == 0)
		err = hm_manifest_files(doc, dir, v, n);
	cJSON_Delete(doc);
	return err;
}

static void test_manifest(void **state)
{
	const char *dir = *state;
	struct hm_manifest_file *v = NULL;
	size_t n = 99;
	char want[4096];
	cJSON *doc = NULL;

	assert_int_equal(hm_manifest_read(dir, &doc), -ENOENT);
	assert_int_equal(manifest_of(dir,
				     "{\"files\": [{\"path\": \"/bin/x\", \"sha256\": \"" SHA_A
				     "\", \"file\": \"files/" SHA_A "\"}], \"before\": []}",
				     &v, &n),
			 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].path, "/bin/x");
	snprintf(want, sizeof(want), "%s/files/%s", dir, SHA_A);
	assert_string_equal(v[0].copy, want);
	hm_manifest_free(v, n);
	assert_int_equal(manifest_of(dir, "{\"files\": []}", &v, &n), 0);
	assert_int_equal(n, 0);
	hm_manifest_free(v, n);
	/* what neither reader may take: no files, a relative path, a sha256
	 * that is no name of a copy (a way out of files/) */
	assert_int_equal(manifest_of(dir, "{\"before\": []}", &v, &n), -EBADMSG);
	assert_int_equal(manifest_of(dir,
				     "{\"files\": [{\"path\": \"x\", \"sha256\": \"" SHA_A "\"}]}",
				     &v, &n),
			 -EBADMSG);
	assert_int_equal(manifest_of(dir,
				     "{\"files\": [{\"path\": \"/x\", \"sha256\": \"../../etc\"}]}",
				     &v, &n),
			 -EBADMSG);
	assert_true(hm_sha256_hex_valid(SHA_A));
	assert_false(hm_sha256_hex_valid("59F33E"));
}

/* Write TEXT to PATH and expect hm_json_read to answer WANT. */
static void expect_json_read(const char *path, const char *text, size_t n, int want)
{
	cJSON *doc = NULL;

	write_file(path, text, n);
	assert_int_equal(hm_json_read(path, &doc), want);
	if (want == 0)
		assert_true(cJSON_IsObject(doc));
	cJSON_Delete(doc);
}

static void test_json_malformed(void **state)
{
	char *path = in_dir(*state, "bad.json"), *missing = in_dir(*state, "none.json");
	cJSON *doc = NULL;

	expect_json_read(path, "{\"a\": ", 6, -EBADMSG);
	expect_json_read(path, "{\"a\": 1,}", 9, -EBADMSG);
	expect_json_read(path, "[1, 2]", 6, -EBADMSG);
	expect_json_read(path, "\"str\"", 5, -EBADMSG);
	expect_json_read(path, "{} x", 4, -EBADMSG);
	expect_json_read(path, "", 0, -EBADMSG);
	expect_json_read(path, "{}\0{}", 5, -EBADMSG);
	expect_json_read(path, "\x89PNG\r\n", 6, -EBADMSG);
	expect_json_read(path, " {\"a\": 1}\n\n", 11, 0);
	expect_json_read(path, "{}", 2, 0);
	assert_int_equal(hm_json_read(missing, &doc), -ENOENT);
	assert_null(doc);
	free(missing);
	free(path);
}

/* ---- filestore.c ---- */

#define SHA_ABC	  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define SHA_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static void test_sha256_file(void **state)
{
	enum { MILLION = 1000000 };
	char *path = in_dir(*state, "f"), hex[65];
	char *a = malloc(MILLION);

	assert_non_null(a);
	write_file(path, "abc", 3);
	assert_int_equal(hm_sha256_file(path, hex), 0);
	assert_string_equal(hex, SHA_ABC);
	write_file(path, "", 0);
	assert_int_equal(hm_sha256_file(path, hex), 0);
	assert_string_equal(hex, SHA_EMPTY);
	/* FIPS 180-2 appendix B.3: one million 'a', across many reads. */
	memset(a, 'a', MILLION);
	write_file(path, a, MILLION);
	assert_int_equal(hm_sha256_file(path, hex), 0);
	assert_string_equal(hex,
			    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	unlink(path);
	assert_int_equal(hm_sha256_file(path, hex), -ENOENT);
	free(a);
	free(path);
}

/* The stored file for HEX in STORE holds WANT and is SRC's inode or a
 * read-only copy. */
static void expect_stored(const char *store, const char *hex, const char *src, const char *want)
{
	char *path = in_dir(store, hex);
	struct stat st, sst;
	struct hm_buf b;

	hm_buf_init(&b);
	slurp(path, &b);
	assert_int_equal(b.len, strlen(want));
	assert_memory_equal(b.data, want, b.len);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(stat(src, &sst), 0);
	if (st.st_ino != sst.st_ino || st.st_dev != sst.st_dev)
		assert_int_equal(st.st_mode & 07777, 0444);
	hm_buf_free(&b);
	free(path);
}

static void test_store_file(void **state)
{
	const char *dir = *state;
	char *store = in_dir(dir, "store"), *src1 = in_dir(dir, "one"), *src2 = in_dir(dir, "two");
	char *src3 = in_dir(dir, "three"), *stored, hex[65];
	struct stat st1, st;
	uint64_t size = 0;

	assert_int_equal(mkdir(store, 0700), 0);
	write_file(src1, "abc", 3);
	write_file(src2, "abc", 3);
	write_file(src3, "abd", 3);

	assert_int_equal(hm_store_file(store, src1, hex, &size), 0);
	assert_string_equal(hex, SHA_ABC);
	assert_int_equal(size, 3);
	expect_stored(store, hex, src1, "abc");
	assert_int_equal(count_entries(store), 1);

	/* The same content from another file: stored once, the first one kept. */
	stored = in_dir(store, SHA_ABC);
	assert_int_equal(lstat(stored, &st1), 0);
	memset(hex, 0, sizeof(hex));
	size = 0;
	assert_int_equal(hm_store_file(store, src2, hex, &size), 0);
	assert_string_equal(hex, SHA_ABC);
	assert_int_equal(size, 3);
	assert_int_equal(count_entries(store), 1);
	assert_int_equal(lstat(stored, &st), 0);
	assert_int_equal(st.st_ino, st1.st_ino);
	/* And the same file again. */
	assert_int_equal(hm_store_file(store, src1, hex, &size), 0);
	assert_int_equal(count_entries(store), 1);

	/* Other content, another name. */
	assert_int_equal(hm_store_file(store, src3, hex, &size), 0);
	assert_string_not_equal(hex, SHA_ABC);
	assert_int_equal(strlen(hex), 64);
	assert_int_equal(strspn(hex, "0123456789abcdef"), 64);
	expect_stored(store, hex, src3, "abd");
	assert_int_equal(count_entries(store), 2);

	assert_int_equal(hm_store_file(store, store, hex, &size), -EINVAL);
	unlink(src2);
	assert_int_equal(hm_store_file(store, src2, hex, &size), -ENOENT);
	assert_int_equal(count_entries(store), 2);
	free(stored);
	free(src3);
	free(src2);
	free(src1);
	free(store);
}

/* Across file systems link(2) fails with EXDEV: the file is copied, 0444. */
static void test_store_file_copy(void **state)
{
	char shm[] = "/dev/shm/hermit-test-common-XXXXXX";
	char *src, *stored, hex[65];
	struct stat a, b;
	uint64_t size = 0;

	if (!mkdtemp(shm))
		skip();
	src = in_dir(shm, "src");
	write_file(src, "abc", 3);
	if (stat(shm, &a) != 0 || stat(*state, &b) != 0 || a.st_dev == b.st_dev) {
		unlink(src);
		rmdir(shm);
		free(src);
		skip(); /* one file system: no EXDEV to provoke */
	}
	assert_int_equal(hm_store_file(*state, src, hex, &size), 0);
	assert_string_equal(hex, SHA_ABC);
	assert_int_equal(size, 3);
	stored = in_dir(*state, SHA_ABC);
	assert_int_equal(stat(stored, &a), 0);
	assert_int_equal(a.st_mode & 07777, 0444);
	assert_int_equal(a.st_nlink, 1);
	expect_stored(*state, hex, src, "abc");
	assert_int_equal(count_entries(*state), 1);
	unlink(src);
	rmdir(shm);
	free(stored);
	free(src);
}

/* A file with holes is copied with its holes, by its data: 1 GiB with 3
 * bytes in the middle takes no more than a few blocks, and a second file
 * of the same layout is the same object. */
static void test_store_sparse(void **state)
{
	const char *dir = *state;
	char *store = in_dir(dir, "store"), *src = in_dir(dir, "sparse"), *src2 = in_dir(dir, "sparse2");
	char *stored, hex[65], hex2[65], got[3];
	const off_t size = 1LL << 30, at = 512LL << 20;
	struct stat st;
	uint64_t n = 0;
	int fd;

	assert_int_equal(mkdir(store, 0700), 0);
	for (int i = 0; i < 2; i++) {
		fd = open(i ? src2 : src, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		assert_int_equal(ftruncate(fd, size), 0);
		assert_int_equal(pwrite(fd, "abc", 3, at), 3);
		close(fd);
	}
	assert_int_equal(stat(src, &st), 0);
	fd = open(src, O_RDONLY);
	assert_true(fd >= 0);
	if ((off_t)st.st_blocks * 512 >= size / 2 || lseek(fd, 0, SEEK_HOLE) < 0) {
		close(fd);
		skip(); /* a file system without holes */
	}
	close(fd);
	assert_int_equal(hm_store_copy(store, src, hex, &n), 0);
	assert_int_equal(n, (uint64_t)size);
	assert_int_equal(strlen(hex), 64);
	stored = in_dir(store, hex);
	assert_int_equal(stat(stored, &st), 0);
	assert_int_equal(st.st_size, size);
	assert_true((off_t)st.st_blocks * 512 < (1 << 20));
	fd = open(stored, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, got, 3, at), 3);
	assert_memory_equal(got, "abc", 3);
	assert_int_equal(pread(fd, got, 3, 0), 3);
	assert_memory_equal(got, "\0\0\0", 3);
	close(fd);
	assert_int_equal(hm_store_copy(store, src2, hex2, &n), 0);
	assert_string_equal(hex, hex2);
	assert_int_equal(count_entries(store), 1);
	unlink(stored);
	unlink(src);
	unlink(src2);
	free(stored);
	free(src2);
	free(src);
	free(store);
}

/* hm_write_all and hm_read_all through a pipe: all of it, then the end. */
static void test_read_write_all(void **state)
{
	int p[2];
	char got[6] = { 0 };

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(hm_write_all(p[1], "hermit", 6), 0);
	assert_int_equal(hm_read_all(p[0], got, 4), 0);
	assert_memory_equal(got, "herm", 4);
	close(p[1]);
	/* two bytes left: asking three ends early */
	assert_int_equal(hm_read_all(p[0], got, 3), -EIO);
	close(p[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_write_all),
		cmocka_unit_test(test_rfc3339_utc),
		cmocka_unit_test(test_rfc3339_offsets),
		cmocka_unit_test(test_rfc3339_fraction),
		cmocka_unit_test(test_rfc3339_bare_date),
		cmocka_unit_test(test_rfc3339_leap_year),
		cmocka_unit_test(test_rfc3339_leap_second),
		cmocka_unit_test(test_rfc3339_invalid),
		cmocka_unit_test(test_rfc3339_range),
		cmocka_unit_test(test_format_whole_seconds),
		cmocka_unit_test(test_format_fraction_trimmed),
		cmocka_unit_test(test_format_before_1970),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_format_buffer_size),
		cmocka_unit_test(test_duration_units),
		cmocka_unit_test(test_duration_bare_seconds),
		cmocka_unit_test(test_duration_fractions),
		cmocka_unit_test(test_duration_decimal_exact),
		cmocka_unit_test(test_duration_invalid),
		cmocka_unit_test(test_duration_range),
		cmocka_unit_test(test_log_parse_level),
		cmocka_unit_test(test_log_enabled),
		cmocka_unit_test(test_log_file),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_xmalloc),
		cmocka_unit_test(test_fnv1a_known_values),
		cmocka_unit_test(test_fnv1a_pieces),
		cmocka_unit_test(test_buf_init_free),
		cmocka_unit_test(test_buf_add),
		cmocka_unit_test(test_buf_addf),
		cmocka_unit_test(test_buf_grow),
		cmocka_unit_test(test_buf_reset),
		cmocka_unit_test(test_buf_large),
		cmocka_unit_test_setup_teardown(test_xz_round_trip, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_xz_truncated, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_xz_corrupt, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_xz_finished, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_xz_not_xz, scratch_setup, scratch_teardown),
		cmocka_unit_test(test_xz_write_error),
		cmocka_unit_test(test_datadir_path),
		cmocka_unit_test_setup_teardown(test_datadir_ensure, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_recording_create, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_recording_create_race, scratch_setup,
						scratch_teardown),
		cmocka_unit_test(test_recording_id_valid),
		cmocka_unit_test_setup_teardown(test_write_atomic, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_read_file, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_last, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_json_round_trip, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_json_malformed, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(test_manifest, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_sha256_file, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_store_file, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_store_sparse, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(test_store_file_copy, scratch_setup,
						scratch_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
