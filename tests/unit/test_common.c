/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for common/: RFC 3339 timestamps and durations (what --epoch
 * and the timeout options accept), log levels and messages, the allocation
 * wrappers and the growable buffer. Expected values are worked out by hand
 * or with date(1), never by calling the code under test, so each assertion
 * can fail; timestamps are compared in nanoseconds since the Unix epoch.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
		cmocka_unit_test(test_buf_init_free),
		cmocka_unit_test(test_buf_add),
		cmocka_unit_test(test_buf_addf),
		cmocka_unit_test(test_buf_grow),
		cmocka_unit_test(test_buf_reset),
		cmocka_unit_test(test_buf_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
