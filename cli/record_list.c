/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `hermit record list [--json]`, `hermit record rm ID...` and
 * `hermit record clean`: the recordings of the data folder. A recording
 * whose recorder still runs is listed as "recording" and never removed.
 */
#include "config.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "common/common.h"
#include "replayer/replayer.h"

struct entry {
	char *id;
	char *command;
	char *created;
	const char *state;
	int64_t events;	   /* the frames its log holds (count_events) */
	int64_t uncounted; /* preemptions by the spin watch; -1: not known */
	int64_t deferred;  /* ... made at the thread's next tick; -1: not known */
	uint64_t size;
};

static uint64_t tree_bytes;

static int add_size(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F)
		tree_bytes += (uint64_t)st->st_size;
	return 0;
}

static uint64_t dir_size(const char *dir)
{
	tree_bytes = 0;
	nftw(dir, add_size, 16, FTW_PHYS);
	return tree_bytes;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 ? -1 : 0;
}

/*
 * E's events: the frames the log in DIR holds before its end frame (the
 * numbering of divergence reports), counted by reading the log, unless the
 * recording is complete and its log ends as a finished xz stream does:
 * then FRAMES, the count in its metadata (reading a long run's log takes a
 * second or more; a byte damaged inside a finished log is found by a
 * replay, which checks every frame). A log that cannot be read to where it
 * ends, and that of a complete recording that stops short, make E damaged;
 * an incomplete recording's log ends where it was cut.
 */
static void count_events(const char *dir, int64_t frames, struct entry *e)
{
	struct replay_log_check chk;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/events.xz", dir);
	if (strcmp(e->state, "complete") == 0 && frames >= 0) {
		int finished = 0;

		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			finished = hm_xz_finished(fd) == 1;
			close(fd);
		}
		if (finished) {
			e->events = frames;
			return;
		}
	}
	e->events = 0;
	if (replay_log_check(path, &chk) < 0) {
		/* none, or no event log: a full disk can leave it empty */
		if (strcmp(e->state, "recording") != 0)
			e->state = "damaged";
		return;
	}
	e->events = (int64_t)(chk.frames - (uint64_t)chk.complete);
	if (strcmp(e->state, "recording") == 0)
		return; /* its recorder writes on */
	if (chk.error < 0 || (strcmp(e->state, "complete") == 0 && !chk.complete))
		e->state = "damaged";
}

/* One recording's line; unreadable metadata is listed as "damaged". */
static void load(const char *datadir, const char *id, struct entry *e)
{
	char *dir, path[4096];
	cJSON *meta;
	const cJSON *argv;
	int64_t frames = -1;

	memset(e, 0, sizeof(*e));
	e->id = xstrdup(id);
	e->state = "damaged";
	e->uncounted = -1;
	e->deferred = -1;
	if (hm_recording_dir(datadir, id, &dir) < 0)
		return;
	e->size = dir_size(dir);
	snprintf(path, sizeof(path), "%s/metadata.json", dir);
	if (hm_json_read(path, &meta) == 0) {
		struct hm_buf cmd;

		hm_buf_init(&cmd);
		argv = cJSON_GetObjectItemCaseSensitive(meta, "argv");
		for (const cJSON *it = argv ? argv->child : NULL; it; it = it->next) {
			if (!cJSON_IsString(it))
				continue;
			if (cmd.len)
				hm_buf_add(&cmd, " ", 1);
			/* One line per recording: control characters escaped. */
			for (const char *c = it->valuestring; *c; c++) {
				if (*c == '\n')
					hm_buf_add(&cmd, "\\n", 2);
				else if (*c == '\t')
					hm_buf_add(&cmd, "\\t", 2);
				else if ((unsigned char)*c < 32 || *c == 127)
					hm_buf_add(&cmd, "?", 1);
				else
					hm_buf_add(&cmd, c, 1);
			}
		}
		hm_buf_add(&cmd, "", 1);
		e->command = (char *)cmd.data;
		e->created = xstrdup(hm_json_str(meta, "created", "?"));
		/* Frames, as a replay numbers events; unknown while recording. */
		frames = hm_json_int(meta, "frames", -1);
		e->uncounted = hm_json_int(meta, "uncounted_preemptions", -1);
		e->deferred = hm_json_int(meta, "deferred_preemptions", -1);
		if (hm_json_str(meta, "status", NULL)) {
			const char *s =
				replay_recording_state(dir, hm_json_str(meta, "status", ""));

			e->state = strcmp(s, "recording") == 0	  ? "recording"
				   : strcmp(s, "complete") == 0	  ? "complete"
				   : strcmp(s, "incomplete") == 0 ? "incomplete"
								  : "damaged";
		}
		cJSON_Delete(meta);
	}
	count_events(dir, frames, e);
	free(dir);
}

static int by_created(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->created ? x->created : "", y->created ? y->created : "");

	return c ? c : strcmp(x->id, y->id);
}

/* Every recording of DATADIR, oldest first; *N of them. */
static struct entry *load_all(const char *datadir, size_t *n)
{
	char path[4096];
	struct entry *v = NULL;
	struct dirent *d;
	DIR *dir;

	*n = 0;
	snprintf(path, sizeof(path), "%s/recordings", datadir);
	dir = opendir(path);
	if (!dir)
		return NULL;
	while ((d = readdir(dir))) {
		if (!hm_recording_id_valid(d->d_name))
			continue;
		v = xrealloc(v, (*n + 1) * sizeof(*v));
		load(datadir, d->d_name, &v[(*n)++]);
	}
	closedir(dir);
	if (*n)
		qsort(v, *n, sizeof(*v), by_created);
	return v;
}

static void free_all(struct entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].id);
		free(v[i].command);
		free(v[i].created);
	}
	free(v);
}

/* Whether ARG asks for the usage. */
static int is_help(const char *arg)
{
	return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

static char *need_datadir(void)
{
	char *d = hm_datadir_path();

	if (!d)
		hm_error("no data folder: set HERMIT_DATA_DIR or HOME");
	return d;
}

int cli_record_list(int argc, char **argv)
{
	int json = 0;
	size_t n;
	struct entry *v;
	char *datadir;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			json = 1;
		} else if (is_help(argv[i])) {
			cli_record_usage(1);
			return 0;
		} else {
			hm_error("unknown option '%s' for 'hermit record list'", argv[i]);
			return HM_EXIT_INTERNAL;
		}
	}
	datadir = need_datadir();
	if (!datadir)
		return HM_EXIT_INTERNAL;
	v = load_all(datadir, &n);
	if (json) {
		cJSON *arr = cJSON_CreateArray();
		char *text;

		for (size_t i = 0; i < n; i++) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "id", v[i].id);
			if (v[i].command)
				cJSON_AddStringToObject(o, "command", v[i].command);
			else
				cJSON_AddNullToObject(o, "command");
			if (v[i].created)
				cJSON_AddStringToObject(o, "created", v[i].created);
			else
				cJSON_AddNullToObject(o, "created");
			cJSON_AddStringToObject(o, "status", v[i].state);
			cJSON_AddNumberToObject(o, "events", (double)v[i].events);
			cJSON_AddNumberToObject(o, "size", (double)v[i].size);
			if (v[i].uncounted >= 0)
				cJSON_AddNumberToObject(o, "uncounted_preemptions",
							(double)v[i].uncounted);
			else
				cJSON_AddNullToObject(o, "uncounted_preemptions");
			if (v[i].deferred >= 0)
				cJSON_AddNumberToObject(o, "deferred_preemptions",
							(double)v[i].deferred);
			else
				cJSON_AddNullToObject(o, "deferred_preemptions");
			cJSON_AddItemToArray(arr, o);
		}
		text = cJSON_Print(arr);
		printf("%s\n", text);
		free(text);
		cJSON_Delete(arr);
	} else {
		printf("%-24s %-10s %-20s %8s %10s  %s\n", "ID", "STATUS", "CREATED", "EVENTS",
		       "SIZE", "COMMAND");
		for (size_t i = 0; i < n; i++)
			printf("%-24s %-10s %-20s %8lld %10llu  %s\n", v[i].id, v[i].state,
			       v[i].created ? v[i].created : "-", (long long)v[i].events,
			       (unsigned long long)v[i].size, v[i].command ? v[i].command : "-");
	}
	free_all(v, n);
	free(datadir);
	return 0;
}

/* Remove recording E of DATADIR (unless it is being recorded). */
static int remove_recording(const char *datadir, const struct entry *e)
{
	char *dir, *last = NULL, path[4096];
	int err = 0;

	if (strcmp(e->state, "recording") == 0) {
		hm_error("cannot remove recording '%s': it is being recorded", e->id);
		return -EBUSY;
	}
	if (hm_recording_dir(datadir, e->id, &dir) < 0)
		return -ENOENT;
	if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0) {
		err = -errno;
		hm_error("cannot remove recording '%s': %s", e->id, hm_strerror(err));
	}
	free(dir);
	if (hm_datadir_get_last(datadir, &last) == 0 && strcmp(last, e->id) == 0) {
		/* LAST names the newest recording left, if any. */
		size_t n;
		struct entry *v = load_all(datadir, &n);

		if (n)
			hm_datadir_set_last(datadir, v[n - 1].id);
		snprintf(path, sizeof(path), "%s/LAST", datadir);
		if (!n)
			unlink(path);
		free_all(v, n);
	}
	free(last);
	return err;
}

/* Drop the shared copies in objects/ that no recording links any more. */
static void collect_objects(const char *datadir)
{
	char dir[4096], path[4096 + 300];
	struct dirent *d;
	struct stat st;
	DIR *o;

	snprintf(dir, sizeof(dir), "%s/objects", datadir);
	o = opendir(dir);
	while (o && (d = readdir(o))) {
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (d->d_name[0] != '.' && lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_nlink == 1)
			unlink(path);
	}
	if (o)
		closedir(o);
}

int cli_record_rm(int argc, char **argv)
{
	char *datadir;
	int status = 0, first = 1;

	/* Options come first; "--" ends them, for an id that starts with '-'. */
	for (; first < argc && argv[first][0] == '-'; first++) {
		if (strcmp(argv[first], "--") == 0) {
			first++;
			break;
		}
		if (is_help(argv[first])) {
			cli_record_usage(1);
			return 0;
		}
		hm_error("unknown option '%s' for 'hermit record rm'", argv[first]);
		return HM_EXIT_INTERNAL;
	}
	if (first >= argc) {
		hm_error("nothing to remove: usage: hermit record rm ID...");
		return HM_EXIT_INTERNAL;
	}
	datadir = need_datadir();
	if (!datadir)
		return HM_EXIT_INTERNAL;
	for (int i = first; i < argc; i++) {
		struct entry e;
		char *dir;
		int err = hm_recording_dir(datadir, argv[i], &dir);

		if (err) {
			hm_error("cannot remove recording '%s': %s", argv[i],
				 err == -EINVAL ? "not a valid recording id" : "no such recording");
			status = HM_EXIT_INTERNAL;
			continue;
		}
		free(dir);
		load(datadir, argv[i], &e);
		if (remove_recording(datadir, &e) < 0)
			status = HM_EXIT_INTERNAL;
		free(e.id);
		free(e.command);
		free(e.created);
	}
	collect_objects(datadir);
	free(datadir);
	return status;
}

int cli_record_clean(int argc, char **argv)
{
	size_t n;
	struct entry *v;
	char *datadir;
	int status = 0;

	if (argc > 1 && is_help(argv[1])) {
		cli_record_usage(1);
		return 0;
	}
	if (argc > 1) {
		hm_error("unknown argument '%s' for 'hermit record clean'", argv[1]);
		return HM_EXIT_INTERNAL;
	}
	datadir = need_datadir();
	if (!datadir)
		return HM_EXIT_INTERNAL;
	v = load_all(datadir, &n);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].state, "recording") == 0)
			continue; /* a recorder still writes it */
		if (remove_recording(datadir, &v[i]) < 0)
			status = HM_EXIT_INTERNAL;
	}
	free_all(v, n);
	collect_objects(datadir);
	free(datadir);
	return status;
}
