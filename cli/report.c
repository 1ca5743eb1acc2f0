/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `hermit verification-report FILE` (also a program of its own,
 * `verification-report FILE`): check a `hermit run --verify-report` file
 * against schema hermit.verify/1 and say in words what it found. A file
 * that is not such a report is one line on stderr and exit 125.
 */
#include "config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/common.h"

static char *slurp(const char *path, int *err)
{
	struct hm_buf b;
	char chunk[65536];
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f) {
		*err = -errno;
		return NULL;
	}
	hm_buf_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (b.len + n > (64u << 20)) {
			fclose(f);
			hm_buf_free(&b);
			*err = -EFBIG;
			return NULL;
		}
		hm_buf_add(&b, chunk, n);
	}
	fclose(f);
	hm_buf_add(&b, "", 0);
	return (char *)b.data;
}

/* Why DOC is not a hermit.verify/1 report, or NULL when it is. */
static const char *invalid(const cJSON *doc)
{
	static const char *const required[] = { "stdout", "stderr", "exit_status", "digest" };
	const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
	const cJSON *result = cJSON_GetObjectItemCaseSensitive(doc, "result");
	const cJSON *checks = cJSON_GetObjectItemCaseSensitive(doc, "checks");
	const cJSON *command = cJSON_GetObjectItemCaseSensitive(doc, "command");

	if (!cJSON_IsObject(doc))
		return "not a JSON object";
	if (!cJSON_IsString(schema) || strcmp(schema->valuestring, "hermit.verify/1") != 0)
		return "its schema is not hermit.verify/1";
	if (!cJSON_IsString(result) || (strcmp(result->valuestring, "same") != 0 &&
					strcmp(result->valuestring, "diverged") != 0))
		return "its result is neither \"same\" nor \"diverged\"";
	if (!cJSON_IsArray(command))
		return "it has no command";
	if (!cJSON_IsObject(checks))
		return "it has no checks";
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(checks, required[i]);

		if (!cJSON_IsObject(c) ||
		    !cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(c, "same")))
			return "a check lacks its \"same\" verdict";
	}
	return NULL;
}

static void show(const cJSON *checks, const char *name, const char *label)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(checks, name);
	const cJSON *at;

	if (!c)
		return;
	at = cJSON_GetObjectItemCaseSensitive(c, "first_difference");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "same")))
		printf("  %-12s same\n", label);
	else if (cJSON_IsNumber(at))
		printf("  %-12s DIFFERENT from %s %.0f on\n", label,
		       strcmp(name, "events") == 0 ? "event" : "byte", at->valuedouble);
	else
		printf("  %-12s DIFFERENT\n", label);
}

int cli_verification_report(int argc, char **argv)
{
	const cJSON *checks, *cmd;
	const char *why;
	cJSON *doc;
	char *text;
	int err = 0, diverged;

	if (argc != 2 || argv[1][0] == '-') {
		if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
			printf("usage: hermit verification-report FILE\n"
			       "       verification-report FILE\n\n"
			       "Check and summarize a report written by 'hermit run --verify-report "
			       "FILE'.\nExit 0: the runs were the same, 122: they diverged, 125: "
			       "FILE is no such report.\n");
			return 0;
		}
		hm_error("usage: verification-report FILE");
		return HM_EXIT_INTERNAL;
	}
	text = slurp(argv[1], &err);
	if (!text) {
		hm_error("cannot read report '%s': %s", argv[1], hm_strerror(err));
		return HM_EXIT_INTERNAL;
	}
	doc = cJSON_Parse(text);
	free(text);
	if (!doc) {
		hm_error("cannot read report '%s': not valid JSON", argv[1]);
		return HM_EXIT_INTERNAL;
	}
	why = invalid(doc);
	if (why) {
		hm_error("cannot read report '%s': %s", argv[1], why);
		cJSON_Delete(doc);
		return HM_EXIT_INTERNAL;
	}
	checks = cJSON_GetObjectItemCaseSensitive(doc, "checks");
	cmd = cJSON_GetObjectItemCaseSensitive(doc, "command");
	printf("hermit.verify/1 report on:");
	for (const cJSON *a = cmd->child; a; a = a->next)
		printf(" %s", cJSON_IsString(a) ? a->valuestring : "?");
	printf("\n");
	show(checks, "stdout", "stdout");
	show(checks, "stderr", "stderr");
	show(checks, "exit_status", "exit status");
	show(checks, "digest", "digest");
	show(checks, "events", "events");
	diverged = strcmp(cJSON_GetObjectItemCaseSensitive(doc, "result")->valuestring,
			  "diverged") == 0;
	printf("result: %s\n", diverged ? "the two runs DIVERGED" : "the two runs were the same");
	cJSON_Delete(doc);
	return diverged ? HM_EXIT_DIVERGED : 0;
}
