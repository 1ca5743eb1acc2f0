/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON documents in files, through cJSON. A document is written whole and
 * atomically (hm_write_atomic), so a reader sees the old one or the new one,
 * never half of either. Reading caps the size (16 MiB) and wants an object
 * at the top, with nothing but white space after it.
 *
 * Numbers are printed by us, not by cJSON: cJSON 1.7.15's print_number()
 * settles for 15 significant digits whenever they read back within a
 * relative DBL_EPSILON (its compare_double()), so 2^53 would be written as
 * 9007199254740990 and a nanosecond timestamp rounded. A whole number is
 * printed as an integer, any other as the shortest %g that reads back to
 * the same double; both go in as cJSON_Raw items of a copy of the document.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define JSON_MAX (16 * 1024 * 1024)

/* Whether D is a whole number that int64_t holds; NaN is not. */
static int is_int64(double d)
{
	/* -2^63 is a double; 2^63 is the first one past INT64_MAX. */
	return d >= -9223372036854775808.0 && d < 9223372036854775808.0 && (double)(int64_t)d == d;
}

/* D as text that reads back exactly into TEXT. */
static void print_number(double d, char text[32])
{
	char *point;

	if (is_int64(d)) {
		snprintf(text, 32, "%" PRId64, (int64_t)d);
		return;
	}
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(text, 32, "%.*g", digits, d);
		if (strtod(text, NULL) == d)
			break; /* %.17g always does (IEEE 754-2008 5.12.2) */
	}
	/* JSON's decimal point whatever LC_NUMERIC says, as cJSON does. */
	point = strchr(text, localeconv()->decimal_point[0]);
	if (point)
		*point = '.';
}

/* Turn the finite numbers in ITEM, its siblings after it and everything
 * under them into raw text of their exact value. */
static int exact_numbers(cJSON *item)
{
	for (; item; item = item->next) {
		char text[32], *raw;

		if (!cJSON_IsNumber(item)) {
			if (exact_numbers(item->child))
				return -ENOMEM;
			continue;
		}
		if (!isfinite(item->valuedouble))
			continue; /* cJSON writes null */
		print_number(item->valuedouble, text);
		raw = cJSON_malloc(strlen(text) + 1);
		if (!raw)
			return -ENOMEM;
		strcpy(raw, text);
		/* cJSON_Delete frees valuestring with cJSON's allocator. */
		item->type = (item->type & ~0xff) | cJSON_Raw;
		item->valuestring = raw;
	}
	return 0;
}

int hm_json_write(const char *path, const cJSON *doc)
{
	cJSON *copy = cJSON_Duplicate(doc, 1);
	struct hm_buf b;
	char *text = NULL;
	int err;

	if (copy && exact_numbers(copy) == 0)
		text = cJSON_Print(copy);
	cJSON_Delete(copy);
	if (!text)
		return -ENOMEM; /* cJSON's only failure for a valid tree */
	hm_buf_init(&b);
	hm_buf_add(&b, text, strlen(text));
	hm_buf_add(&b, "\n", 1);
	cJSON_free(text);
	err = hm_write_atomic(path, b.data, b.len);
	hm_buf_free(&b);
	return err;
}

int hm_json_read(const char *path, cJSON **doc)
{
	struct hm_buf b;
	cJSON *d;
	int err;

	hm_buf_init(&b);
	err = hm_read_file(path, JSON_MAX, &b);
	if (err) {
		hm_buf_free(&b);
		return err;
	}
	/* A NUL inside would end the text early: no JSON file holds one. */
	if (strlen((char *)b.data) != b.len) {
		hm_buf_free(&b);
		return -EBADMSG;
	}
	d = cJSON_ParseWithOpts((char *)b.data, NULL, 1);
	hm_buf_free(&b);
	if (!cJSON_IsObject(d)) {
		cJSON_Delete(d);
		return -EBADMSG;
	}
	*doc = d;
	return 0;
}

const char *hm_json_str(const cJSON *obj, const char *name, const char *def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	return cJSON_IsString(v) && v->valuestring ? v->valuestring : def;
}

int64_t hm_json_int(const cJSON *obj, const char *name, int64_t def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	return cJSON_IsNumber(v) && is_int64(v->valuedouble) ? (int64_t)v->valuedouble : def;
}
