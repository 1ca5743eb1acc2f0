/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `hermit log-diff A B [--json]`: the first divergence between two event
 * logs (DESIGN.md "Analysis"). A and B are recording ids, recording
 * folders or events.xz files. Frames are compared in order, fields and
 * payload; the report names the first that differs, with the last one
 * they agreed on. Exit 0 when the logs are the same, 122 when they
 * diverge, 125 when one cannot be read.
 */
#include "config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "common/common.h"
#include "replayer/replayer.h"

/* The events.xz that NAME means; malloc'd, or NULL after a message. */
static char *log_path(const char *name)
{
	struct stat st;
	char *datadir, *dir = NULL, *path;
	size_t n;

	if (stat(name, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return xstrdup(name);
		n = strlen(name) + 16;
		path = xmalloc(n);
		snprintf(path, n, "%s/events.xz", name);
		return path;
	}
	datadir = hm_datadir_path();
	if (!datadir || hm_recording_dir(datadir, name, &dir) < 0) {
		hm_error("cannot open log '%s': no such file, folder or recording", name);
		free(datadir);
		return NULL;
	}
	n = strlen(dir) + 16;
	path = xmalloc(n);
	snprintf(path, n, "%s/events.xz", dir);
	free(dir);
	free(datadir);
	return path;
}

struct side {
	const char *name;
	struct replay_log *log;
	const struct rec_event_record *ev;
	const unsigned char *payload;
	size_t len;
	int got; /* 1, 0 at the end, -errno */
};

static cJSON *side_json(const struct side *s)
{
	cJSON *o = cJSON_CreateObject();
	char text[256];

	cJSON_AddStringToObject(o, "log", s->name);
	if (s->got <= 0) {
		cJSON_AddStringToObject(o, "event", s->got < 0 ? "damaged" : "end of log");
		return o;
	}
	rec_event_describe(s->ev, text, sizeof(text));
	cJSON_AddStringToObject(o, "event", text);
	cJSON_AddNumberToObject(o, "kind", (double)REC_EV_KIND(s->ev));
	cJSON_AddNumberToObject(o, "task", (double)REC_EV_TASK(s->ev));
	cJSON_AddNumberToObject(o, "syscall", (double)REC_EV_NR(s->ev));
	cJSON_AddNumberToObject(o, "result", (double)REC_EV_RET(s->ev));
	cJSON_AddNumberToObject(o, "payload_bytes", (double)s->len);
	return o;
}

static void side_text(const struct side *s, char *buf, size_t size)
{
	if (s->got < 0)
		snprintf(buf, size, "a damaged frame");
	else if (s->got == 0)
		snprintf(buf, size, "the end of the log");
	else
		rec_event_describe(s->ev, buf, size);
}

/* Where two frames differ: "" when they do not. */
static const char *difference(const struct side *a, const struct side *b)
{
	if (a->got != b->got)
		return "one log ends";
	if (a->got <= 0)
		return "";
	if (memcmp(a->ev->fields, b->ev->fields, 3 * sizeof(int64_t)) != 0)
		return "event";
	if (memcmp(&a->ev->fields[3], &b->ev->fields[3], 6 * sizeof(int64_t)) != 0)
		return "arguments";
	if (a->ev->fields[9] != b->ev->fields[9])
		return "result";
	if (a->len != b->len || (a->len && memcmp(a->payload, b->payload, a->len) != 0))
		return "data";
	return "";
}

/* The first byte at which the payloads of A and B differ. */
static size_t first_byte(const struct side *a, const struct side *b)
{
	size_t i = 0;

	while (i < a->len && i < b->len && a->payload[i] == b->payload[i])
		i++;
	return i;
}

int cli_log_diff(int argc, char **argv)
{
	struct side s[2] = { { 0 } };
	const char *names[2] = { NULL, NULL }, *what = "";
	char *paths[2] = { NULL, NULL }, last[256] = "";
	uint64_t index = 0;
	int json = 0, n = 0, status = HM_EXIT_INTERNAL;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = 1;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			printf("usage: hermit log-diff A B [--json]\n\n"
			       "The first divergence between two event logs: recording ids,\n"
			       "recording folders or events.xz files. Exit 0: the same, 122:\n"
			       "they diverge, 125: a log cannot be read.\n");
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			hm_error("unknown option '%s' for 'hermit log-diff'", argv[i]);
			return HM_EXIT_INTERNAL;
		} else if (n < 2) {
			names[n++] = argv[i];
		} else {
			hm_error("too many logs: usage: hermit log-diff A B [--json]");
			return HM_EXIT_INTERNAL;
		}
	}
	if (n != 2) {
		hm_error("two logs needed: usage: hermit log-diff A B [--json]");
		return HM_EXIT_INTERNAL;
	}
	for (int i = 0; i < 2; i++) {
		int err;

		s[i].name = names[i];
		paths[i] = log_path(names[i]);
		if (!paths[i])
			goto out;
		err = replay_log_open(paths[i], &s[i].log);
		if (err) {
			hm_error("cannot open log '%s': %s", names[i],
				 err == -EBADMSG ? "not a hermit event log" : hm_strerror(err));
			goto out;
		}
	}
	for (;; index++) {
		for (int i = 0; i < 2; i++)
			s[i].got = replay_log_next(s[i].log, &s[i].ev, &s[i].payload, &s[i].len);
		what = difference(&s[0], &s[1]);
		if (*what || s[0].got <= 0)
			break;
		rec_event_describe(s[0].ev, last, sizeof(last));
	}
	if (s[0].got < 0 && !*what) {
		hm_error("cannot read log '%s': damaged at event %llu", names[0],
			 (unsigned long long)index);
		goto out;
	}
	status = *what ? HM_EXIT_DIVERGED : 0;
	if (json) {
		cJSON *doc = cJSON_CreateObject();
		char *text;

		cJSON_AddStringToObject(doc, "schema", "hermit.log-diff/1");
		cJSON_AddBoolToObject(doc, "same", !*what);
		cJSON_AddNumberToObject(doc, "events_compared", (double)index);
		if (*what) {
			cJSON_AddNumberToObject(doc, "index", (double)index);
			cJSON_AddStringToObject(doc, "differs_in", what);
			if (strcmp(what, "data") == 0)
				cJSON_AddNumberToObject(doc, "first_byte",
							(double)first_byte(&s[0], &s[1]));
			if (*last)
				cJSON_AddStringToObject(doc, "last_same", last);
			cJSON_AddItemToObject(doc, "a", side_json(&s[0]));
			cJSON_AddItemToObject(doc, "b", side_json(&s[1]));
		}
		text = cJSON_Print(doc);
		printf("%s\n", text);
		free(text);
		cJSON_Delete(doc);
	} else if (*what) {
		char a[256], b[256];

		side_text(&s[0], a, sizeof(a));
		side_text(&s[1], b, sizeof(b));
		printf("first divergence at event %llu (%s differs", (unsigned long long)index,
		       what);
		if (strcmp(what, "data") == 0)
			printf(" from byte %zu of %zu and %zu", first_byte(&s[0], &s[1]), s[0].len,
			       s[1].len);
		printf(")\n");
		if (*last)
			printf("  last the same: %s\n", last);
		printf("  %s: %s\n  %s: %s\n", names[0], a, names[1], b);
	} else {
		printf("the logs are the same (%llu events)\n", (unsigned long long)index);
	}
out:
	for (int i = 0; i < 2; i++) {
		replay_log_close(s[i].log);
		free(paths[i]);
	}
	return status;
}
