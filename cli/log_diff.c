/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `hermit log-diff A B [--json]`: the first divergence between two event
 * logs (DESIGN.md "Analysis"). A and B are recording ids, recording
 * folders or events.xz files. Frames are compared in order, all twelve
 * fields and the payload; the report names the first frame that differs,
 * with the last one they agreed on, then each field that differs by name
 * with both values, and for payloads the offset of the first byte that
 * differs and the bytes from there on each side, in hex: never the same
 * text for both sides. Exit 0 when the logs are the same, 122 when they
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

#define NFIELDS	  12 /* of struct rec_event_record */
#define HEX_BYTES 16 /* payload bytes shown from the first that differs */

/* What differs between two frames that both are there. */
struct diff {
	int fields[NFIELDS]; /* indexes of the fields that differ, in order */
	int nfields;
	int data;     /* the payloads differ */
	size_t first; /* then: the first byte that does */
};

/* Field I's name in EV (the last field is an input frame's park count;
 * the end frame keeps hermit's exit status and the event count). */
static const char *field_name(const struct rec_event_record *ev, int i)
{
	static const char *const names[NFIELDS] = {
		"kind",	   "task",    "nr",	 "args[0]", "args[1]", "args[2]",
		"args[3]", "args[4]", "args[5]", "ret",	    "ticks",   "out",
	};

	if (REC_EV_KIND(ev) == REC_EV_END && (i == 1 || i == 2))
		return i == 1 ? "exit_status" : "events";
	return i == 11 && REC_EV_KIND(ev) == REC_EV_INPUT ? "parks" : names[i];
}

static const char *kind_name(int64_t kind)
{
	switch (kind) {
	case REC_EV_CONT:
		return "cont";
	case REC_EV_EMULATED:
		return "emulated";
	case REC_EV_EXIT:
		return "exit";
	case REC_EV_TSC:
		return "tsc";
	case REC_EV_BLOCKED:
		return "blocked";
	case REC_EV_SITE:
		return "site";
	case REC_EV_SPIN:
		return "spin";
	case REC_EV_SIGNAL:
		return "signal";
	case REC_EV_READY:
		return "ready";
	case REC_EV_WATCH:
		return "watch";
	case REC_EV_INPUT:
		return "input";
	case REC_EV_OUTPUT:
		return "output";
	case REC_EV_END:
		return "end";
	default:
		return "unknown";
	}
}

/* Whether field I of EV is an address or a digest, shown in hex (and a
 * string in JSON: it can pass 2^53). */
static int field_is_hex(const struct rec_event_record *ev, int i)
{
	return (i >= 3 && i <= 8) || (i == 11 && REC_EV_KIND(ev) != REC_EV_INPUT);
}

/* Field I of EV as text: "0x7ffe1000", "2 (exit)", "0 (read)", "12". */
static void field_text(const struct rec_event_record *ev, int i, char *buf, size_t size)
{
	int64_t v = ev->fields[i];
	const struct rec_syscall *row;

	if (i == 11 && field_is_hex(ev, i))
		snprintf(buf, size, "%016llx", (unsigned long long)v);
	else if (field_is_hex(ev, i))
		snprintf(buf, size, "0x%llx", (unsigned long long)v);
	else if (i == 0)
		snprintf(buf, size, "%lld (%s)", (long long)v, kind_name(v));
	else if (i == 2 && REC_EV_KIND(ev) != REC_EV_END && (row = rec_syscall_find((long)v)))
		snprintf(buf, size, "%lld (%s)", (long long)v, rec_syscall_name(row));
	else
		snprintf(buf, size, "%lld", (long long)v);
}

static cJSON *field_json(const struct rec_event_record *ev, int i)
{
	char text[64];

	if (!field_is_hex(ev, i))
		return cJSON_CreateNumber((double)ev->fields[i]);
	field_text(ev, i, text, sizeof(text));
	return cJSON_CreateString(text);
}

/* Up to HEX_BYTES bytes of S's payload from byte AT, in hex, SEP between
 * bytes; "" when its payload ends before AT. */
static void payload_hex(const struct side *s, size_t at, const char *sep, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = at; i < s->len && i < at + HEX_BYTES && used + 4 < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%02x", i > at ? sep : "",
					 s->payload[i]);
}

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
	cJSON_AddNumberToObject(o, "ticks", (double)REC_EV_TICKS(s->ev));
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

/*
 * Where two frames differ, in *D, and the first place it shows, for
 * differs_in: "one log ends", "event" (kind, task, nr), "arguments",
 * "result", "ticks", "output" (digest, or an input frame's parks), "data";
 * "" when they do not differ.
 */
static const char *difference(const struct side *a, const struct side *b, struct diff *d)
{
	static const char *const where[NFIELDS] = {
		"event",     "event",	  "event",     "arguments", "arguments", "arguments",
		"arguments", "arguments", "arguments", "result",    "ticks",	 "output",
	};

	memset(d, 0, sizeof(*d));
	if (a->got != b->got)
		return "one log ends";
	if (a->got <= 0)
		return "";
	for (int i = 0; i < NFIELDS; i++) {
		if (a->ev->fields[i] != b->ev->fields[i])
			d->fields[d->nfields++] = i;
	}
	while (d->first < a->len && d->first < b->len &&
	       a->payload[d->first] == b->payload[d->first])
		d->first++;
	d->data = d->first < a->len || d->first < b->len;
	if (d->nfields)
		return where[d->fields[0]];
	return d->data ? "data" : "";
}

/* "ret, ticks and data": what D says differs. */
static void diff_names(const struct side *a, const struct diff *d, char *buf, size_t size)
{
	int n = d->nfields + d->data;
	size_t used = 0;

	buf[0] = 0;
	for (int k = 0; k < n && used < size; k++) {
		const char *name = k < d->nfields ? field_name(a->ev, d->fields[k]) : "data";
		const char *sep = k == 0 ? "" : k == n - 1 ? " and " : ", ";

		used += (size_t)snprintf(buf + used, size - used, "%s%s", sep, name);
	}
}

static void print_json(const struct side *s, const char *what, const struct diff *d, uint64_t index,
		       const char *last)
{
	cJSON *doc = cJSON_CreateObject();
	char *text;

	cJSON_AddStringToObject(doc, "schema", "hermit.log-diff/1");
	cJSON_AddBoolToObject(doc, "same", !*what);
	cJSON_AddNumberToObject(doc, "events_compared", (double)index);
	if (*what) {
		cJSON_AddNumberToObject(doc, "index", (double)index);
		cJSON_AddStringToObject(doc, "differs_in", what);
		if (d->data)
			cJSON_AddNumberToObject(doc, "first_byte", (double)d->first);
		if (*last)
			cJSON_AddStringToObject(doc, "last_same", last);
		cJSON_AddItemToObject(doc, "a", side_json(&s[0]));
		cJSON_AddItemToObject(doc, "b", side_json(&s[1]));
		if (s[0].got > 0) {
			cJSON *fields = cJSON_AddArrayToObject(doc, "fields");

			for (int k = 0; k < d->nfields; k++) {
				cJSON *f = cJSON_CreateObject();
				int i = d->fields[k];

				cJSON_AddStringToObject(f, "name", field_name(s[0].ev, i));
				cJSON_AddItemToObject(f, "a", field_json(s[0].ev, i));
				cJSON_AddItemToObject(f, "b", field_json(s[1].ev, i));
				cJSON_AddItemToArray(fields, f);
			}
		}
		if (d->data) {
			cJSON *data = cJSON_AddObjectToObject(doc, "data");
			char hex[3 * HEX_BYTES + 1];

			cJSON_AddNumberToObject(data, "offset", (double)d->first);
			cJSON_AddNumberToObject(data, "a_bytes", (double)s[0].len);
			cJSON_AddNumberToObject(data, "b_bytes", (double)s[1].len);
			payload_hex(&s[0], d->first, "", hex, sizeof(hex));
			cJSON_AddStringToObject(data, "a", hex);
			payload_hex(&s[1], d->first, "", hex, sizeof(hex));
			cJSON_AddStringToObject(data, "b", hex);
		}
	}
	text = cJSON_Print(doc);
	printf("%s\n", text);
	free(text);
	cJSON_Delete(doc);
}

static void print_text(const struct side *s, const char *what, const struct diff *d, uint64_t index,
		       const char *last)
{
	char a[256], b[256], names[128];

	side_text(&s[0], a, sizeof(a));
	side_text(&s[1], b, sizeof(b));
	if (s[0].got > 0 && s[1].got > 0) {
		diff_names(&s[0], d, names, sizeof(names));
		printf("first divergence at event %llu (%s %s)\n", (unsigned long long)index, names,
		       d->nfields + d->data > 1 ? "differ" : "differs");
	} else {
		printf("first divergence at event %llu (%s)\n", (unsigned long long)index, what);
	}
	if (*last)
		printf("  last the same: %s\n", last);
	/* Fields the description leaves out (args[3..5], the kind) can be
	 * all that differs: then it is the same for both, said once. */
	if (strcmp(a, b) == 0)
		printf("  both: %s\n", a);
	else
		printf("  A, %s: %s\n  B, %s: %s\n", s[0].name, a, s[1].name, b);
	for (int k = 0; k < d->nfields; k++) {
		char va[64], vb[64];

		field_text(s[0].ev, d->fields[k], va, sizeof(va));
		field_text(s[1].ev, d->fields[k], vb, sizeof(vb));
		printf("  %s: A %s, B %s\n", field_name(s[0].ev, d->fields[k]), va, vb);
	}
	if (d->data) {
		char ha[3 * HEX_BYTES + 1], hb[3 * HEX_BYTES + 1];

		payload_hex(&s[0], d->first, " ", ha, sizeof(ha));
		payload_hex(&s[1], d->first, " ", hb, sizeof(hb));
		printf("  data: A %zu byte%s, B %zu byte%s, the first that differs is byte %zu:\n"
		       "    A: %s\n    B: %s\n",
		       s[0].len, s[0].len == 1 ? "" : "s", s[1].len, s[1].len == 1 ? "" : "s",
		       d->first, *ha ? ha : "(no more bytes)", *hb ? hb : "(no more bytes)");
	}
}

int cli_log_diff(int argc, char **argv)
{
	struct side s[2] = { { 0 } };
	struct diff d = { .nfields = 0 };
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
			       "recording folders or events.xz files. It names each field that\n"
			       "differs (kind, task, nr, args[0] to args[5], ret, ticks, out or\n"
			       "parks) with both values, and for payloads the first byte that\n"
			       "differs and the bytes from there, in hex. --json prints it as a\n"
			       "hermit.log-diff/1 document. Exit 0: the same, 122: they diverge,\n"
			       "125: a log cannot be read.\n");
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
		what = difference(&s[0], &s[1], &d);
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
	if (json)
		print_json(s, what, &d, index, last);
	else if (*what)
		print_text(s, what, &d, index, last);
	else
		printf("the logs are the same (%llu events)\n", (unsigned long long)index);
out:
	for (int i = 0; i < 2; i++) {
		replay_log_close(s[i].log);
		free(paths[i]);
	}
	return status;
}
