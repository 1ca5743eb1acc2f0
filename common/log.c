/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The log and error messages. Errors always reach stderr as one line that
 * names what failed and why; the log (--log, --log-file) is for people who
 * want to see what the supervisor did.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static enum hm_log_level log_level = HM_LOG_WARN;
static FILE *log_file;

static const char *const level_names[] = {
	[HM_LOG_ERROR] = "error", [HM_LOG_WARN] = "warn",   [HM_LOG_INFO] = "info",
	[HM_LOG_DEBUG] = "debug", [HM_LOG_TRACE] = "trace",
};

int hm_log_parse_level(const char *s, enum hm_log_level *out)
{
	for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (strcmp(s, level_names[i]) == 0) {
			*out = (enum hm_log_level)i;
			return 0;
		}
	}
	if (strcmp(s, "warning") == 0) {
		*out = HM_LOG_WARN;
		return 0;
	}
	return -EINVAL;
}

void hm_log_set_level(enum hm_log_level level)
{
	log_level = level;
}

enum hm_log_level hm_log_get_level(void)
{
	return log_level;
}

int hm_log_set_file(const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	if (log_file)
		fclose(log_file);
	setvbuf(f, NULL, _IOLBF, 0);
	log_file = f;
	return 0;
}

void hm_log_close(void)
{
	if (log_file)
		fclose(log_file);
	log_file = NULL;
}

int hm_log_enabled(enum hm_log_level level)
{
	return level <= log_level;
}

static void emit(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	char line[1024];
	int n = snprintf(line, sizeof(line), "hermit: %s", prefix);

	if (n < 0)
		return;
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	fprintf(f, "%s\n", line);
	fflush(f);
}

void hm_log(enum hm_log_level level, const char *fmt, ...)
{
	char prefix[16];
	va_list ap;

	if (level > log_level)
		return;
	snprintf(prefix, sizeof(prefix), "%s: ", level_names[level]);
	va_start(ap, fmt);
	emit(log_file ? log_file : stderr, prefix, fmt, ap);
	va_end(ap);
}

void hm_notice(const char *fmt, ...)
{
	va_list ap;

	if (log_level < HM_LOG_WARN)
		return;
	va_start(ap, fmt);
	emit(log_file ? log_file : stderr, "", fmt, ap);
	va_end(ap);
}

void hm_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(stderr, "", fmt, ap);
	va_end(ap);
	if (log_file) {
		va_start(ap, fmt);
		emit(log_file, "error: ", fmt, ap);
		va_end(ap);
	}
}

const char *hm_strerror(int err)
{
	static __thread char msg[128];

	if (err < 0)
		err = -err;
	snprintf(msg, sizeof(msg), "%s", strerror(err));
	if (msg[0] && isupper((unsigned char)msg[0]) && !(msg[1] && isupper((unsigned char)msg[1])))
		msg[0] = (char)tolower((unsigned char)msg[0]);
	return msg;
}
