/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RFC 3339 timestamps (section 5.6) for --epoch, and durations for the
 * timeout options. Parsing is strict: a value that is not exactly a
 * timestamp is rejected rather than guessed at.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

/* Read exactly N decimal digits. */
static int digits(const char **p, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -EINVAL;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return 0;
}

static int expect(const char **p, char c)
{
	if (**p != c)
		return -EINVAL;
	(*p)++;
	return 0;
}

static int days_in_month(int year, int month)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	return month == 2 ? 28 + leap : days[month - 1];
}

int hm_parse_rfc3339(const char *s, int64_t *ns)
{
	const char *p = s;
	int year, mon, day, hour = 0, min = 0, sec = 0, oh = 0, om = 0;
	int64_t frac = 0, offset = 0, secs;
	struct tm tm;

	if (digits(&p, 4, &year) || expect(&p, '-') || digits(&p, 2, &mon) || expect(&p, '-') ||
	    digits(&p, 2, &day))
		return -EINVAL;
	if (mon < 1 || mon > 12 || day < 1 || day > days_in_month(year, mon))
		return -EINVAL;
	if (*p) {
		if (*p != 'T' && *p != 't' && *p != ' ')
			return -EINVAL;
		p++;
		if (digits(&p, 2, &hour) || expect(&p, ':') || digits(&p, 2, &min) ||
		    expect(&p, ':') || digits(&p, 2, &sec))
			return -EINVAL;
		/* 60 is a leap second; it is folded into the next minute. */
		if (hour > 23 || min > 59 || sec > 60)
			return -EINVAL;
		if (*p == '.') {
			int n = 0;

			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			for (; isdigit((unsigned char)*p); p++, n++) {
				if (n < 9)
					frac = frac * 10 + (*p - '0');
			}
			for (; n < 9; n++)
				frac *= 10;
		}
		if (*p == 'Z' || *p == 'z') {
			p++;
		} else if (*p == '+' || *p == '-') {
			int sign = *p == '-' ? -1 : 1;

			p++;
			if (digits(&p, 2, &oh) || expect(&p, ':') || digits(&p, 2, &om) ||
			    oh > 23 || om > 59)
				return -EINVAL;
			offset = sign * (oh * 3600 + om * 60);
		} else {
			return -EINVAL;
		}
		if (*p)
			return -EINVAL;
	}
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = year - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = sec;
	/* Nanoseconds in an int64 reach from 1677 to 2262: refuse the rest. */
	secs = (int64_t)timegm(&tm) - offset;
	if (secs < 0 && frac > 0) {
		/* Borrow a second so that INT64_MIN itself stays reachable. */
		secs++;
		frac -= HM_NS_PER_SEC;
	}
	if (__builtin_mul_overflow(secs, HM_NS_PER_SEC, ns) ||
	    __builtin_add_overflow(*ns, frac, ns))
		return -ERANGE;
	return 0;
}

void hm_ns_split(int64_t ns, int64_t *sec, int64_t *nsec)
{
	*sec = ns / HM_NS_PER_SEC;
	*nsec = ns % HM_NS_PER_SEC;
	if (*nsec < 0) {
		*nsec += HM_NS_PER_SEC;
		(*sec)--;
	}
}

int hm_format_rfc3339(int64_t ns, char *buf, size_t size)
{
	int64_t secs, frac;
	char text[64];
	time_t t;
	struct tm tm;
	size_t n;

	hm_ns_split(ns, &secs, &frac);
	t = (time_t)secs;
	if (!gmtime_r(&t, &tm))
		return -EINVAL;
	n = strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &tm);
	if (n == 0)
		return -EINVAL;
	if (frac) {
		n += (size_t)snprintf(text + n, sizeof(text) - n, ".%09lld", (long long)frac);
		while (text[n - 1] == '0')
			text[--n] = 0;
	}
	text[n++] = 'Z';
	text[n] = 0;
	if (n + 1 > size)
		return -ENOSPC;
	memcpy(buf, text, n + 1);
	return 0;
}

int hm_parse_duration(const char *s, int64_t *ns)
{
	static const struct {
		const char *suffix;
		int64_t scale;
	} units[] = {
		{ "ns", 1 },
		{ "us", 1000 },
		{ "ms", 1000000 },
		{ "s", HM_NS_PER_SEC },
		{ "", HM_NS_PER_SEC },
		{ "m", 60 * HM_NS_PER_SEC },
		{ "min", 60 * HM_NS_PER_SEC },
		{ "h", 3600 * HM_NS_PER_SEC },
		{ "d", 86400 * HM_NS_PER_SEC },
	};
	const char *p = s;
	int64_t whole = 0, frac = 0, frac_scale = 1, scale = 0, r;
	int digits_seen = 0;

	/* Digits and one point only: strtod would take "nan", "0x10" and "1e3". */
	for (; isdigit((unsigned char)*p); p++, digits_seen++) {
		if (__builtin_mul_overflow(whole, 10, &whole) ||
		    __builtin_add_overflow(whole, *p - '0', &whole))
			return -ERANGE;
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, digits_seen++) {
			if (frac_scale < HM_NS_PER_SEC * 1000) {
				frac = frac * 10 + (*p - '0');
				frac_scale *= 10;
			}
		}
	}
	if (!digits_seen)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].suffix) == 0) {
			scale = units[i].scale;
			break;
		}
	}
	if (!scale)
		return -EINVAL;
	if (__builtin_mul_overflow(whole, scale, &r))
		return -ERANGE;
	/* The fraction, rounded to the nearest nanosecond. */
	r += (int64_t)((__int128)frac * scale * 2 / frac_scale + 1) / 2;
	if (r < 0)
		return -ERANGE;
	*ns = r;
	return 0;
}
