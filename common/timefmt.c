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
	int64_t frac = 0, offset = 0;
	struct tm tm;

	if (digits(&p, 4, &year) || expect(&p, '-') || digits(&p, 2, &mon) ||
	    expect(&p, '-') || digits(&p, 2, &day))
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
	*ns = ((int64_t)timegm(&tm) - offset) * HM_NS_PER_SEC + frac;
	return 0;
}

int hm_format_rfc3339(int64_t ns, char *buf, size_t size)
{
	int64_t secs = ns / HM_NS_PER_SEC, frac = ns % HM_NS_PER_SEC;
	time_t t;
	struct tm tm;
	size_t n;

	if (frac < 0) {
		frac += HM_NS_PER_SEC;
		secs--;
	}
	t = (time_t)secs;
	if (!gmtime_r(&t, &tm))
		return -EINVAL;
	n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	if (n == 0)
		return -ENOSPC;
	if (frac) {
		int w = snprintf(buf + n, size - n, ".%09lld", (long long)frac);

		if (w < 0 || (size_t)w >= size - n)
			return -ENOSPC;
		n += (size_t)w;
		while (buf[n - 1] == '0')
			buf[--n] = 0;
	}
	if (n + 2 > size)
		return -ENOSPC;
	buf[n] = 'Z';
	buf[n + 1] = 0;
	return 0;
}

int hm_parse_duration(const char *s, int64_t *ns)
{
	static const struct {
		const char *suffix;
		double scale;
	} units[] = {
		{ "ns", 1.0 },	   { "us", 1e3 },     { "ms", 1e6 }, { "s", 1e9 },
		{ "", 1e9 },	   { "m", 60e9 },     { "min", 60e9 },
		{ "h", 3600e9 },   { "d", 86400e9 },
	};
	char *end;
	double v;

	if (!*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix) == 0) {
			double r = v * units[i].scale;

			if (r > 9.2e18)
				return -ERANGE;
			*ns = (int64_t)r;
			return 0;
		}
	}
	return -EINVAL;
}
