/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `hermit record start [run options] -- PROG [ARGS...]`: a run whose
 * events, inputs and mapped files are kept in recordings/<id>/ of the
 * data directory (DESIGN.md "Recordings"). metadata.json says "recording"
 * while the recorder lives (it holds a lock on the folder), then
 * "complete", or "incomplete" when the log could not be written in full
 * (a full disk): then hermit exits 125 after the guest, saying so in one
 * line. A recorder that was killed leaves "recording" with the lock free,
 * which readers call incomplete.
 */
#include "config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "common/common.h"
#include "dwarf/dwarf.h"
#include "replayer/replayer.h"
#include "tracer/tracer.h"

void cli_record_usage(int ok)
{
	fprintf(ok ? stdout : stderr,
		"usage: hermit record start [RUN OPTIONS] [--] PROG [ARGS...]\n"
		"       hermit record list [--json]\n"
		"       hermit record rm [--] ID...\n"
		"       hermit record clean\n"
		"\n"
		"start   run PROG as 'hermit run' does and keep the run in the data folder\n"
		"        ($HERMIT_DATA_DIR, else $XDG_DATA_HOME/hermit, else\n"
		"        ~/.local/share/hermit); the id is printed on stderr\n"
		"list    the recordings: id, command, created, status, events, size\n"
		"rm      delete recordings\n"
		"clean   delete every recording (but one being recorded now)\n"
		"\n"
		"'hermit run --help' lists the run options.\n");
}

static void add_u64(cJSON *obj, const char *name, uint64_t v)
{
	char text[32];

	snprintf(text, sizeof(text), "%" PRIu64, v);
	cJSON_AddStringToObject(obj, name, text);
}

static void add_strings(cJSON *obj, const char *name, char *const *v)
{
	cJSON *arr = cJSON_AddArrayToObject(obj, name);

	for (size_t i = 0; v && v[i]; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(v[i]));
}

static void add_time(cJSON *obj, const char *name)
{
	struct timespec ts;
	char text[64];

	clock_gettime(CLOCK_REALTIME, &ts);
	hm_format_rfc3339((int64_t)ts.tv_sec * HM_NS_PER_SEC, text, sizeof(text));
	cJSON_AddStringToObject(obj, name, text);
}

static cJSON *new_metadata(const char *id, const struct rec_options *o, const char *cwd)
{
	cJSON *doc = cJSON_CreateObject(), *opt, *arr;
	struct utsname u;
	char text[64];
	int *fds;

	cJSON_AddStringToObject(doc, "schema", "hermit.recording/1");
	cJSON_AddStringToObject(doc, "id", id);
	add_strings(doc, "argv", o->argv);
	add_strings(doc, "env", o->envp);
	cJSON_AddStringToObject(doc, "cwd", cwd);
	hm_format_rfc3339(o->epoch_ns, text, sizeof(text));
	cJSON_AddStringToObject(doc, "epoch", text);
	add_u64(doc, "epoch_ns", (uint64_t)o->epoch_ns);
	opt = cJSON_AddObjectToObject(doc, "options");
	add_u64(opt, "seed", o->seed);
	add_u64(opt, "sched_seed", o->sched_seed);
	cJSON_AddNumberToObject(opt, "namespaces", o->namespaces);
	cJSON_AddStringToObject(opt, "network", o->network_host ? "host" : "loopback");
	cJSON_AddStringToObject(opt, "preempt", replay_preempt_name(o->preempt));
	cJSON_AddNumberToObject(opt, "chaos", o->chaos);
	cJSON_AddNumberToObject(opt, "chaos_seeded_timeslice", o->chaos_seeded_timeslice);
	add_u64(opt, "max_timeslice", o->max_timeslice);
	cJSON_AddNumberToObject(opt, "virtual_timeout_ns", (double)o->virtual_timeout_ns);
	cJSON_AddStringToObject(opt, "sent_digest", "xxh3-64"); /* recorder/sent.c */
	cJSON_AddNumberToObject(opt, "fastpath", o->fastpath); /* docs/fastpath.md */
	cJSON_AddArrayToObject(opt, "anchors");
	cJSON_AddStringToObject(doc, "hermit_version", PACKAGE_VERSION);
	if (uname(&u) == 0) {
		char kernel[sizeof(u.sysname) + sizeof(u.release) + 2];

		snprintf(kernel, sizeof(kernel), "%s %s", u.sysname, u.release);
		cJSON_AddStringToObject(doc, "kernel", kernel);
		cJSON_AddStringToObject(doc, "cpu", u.machine);
	}
	cJSON_AddStringToObject(
		doc, "tick_semantics",
		"counted: backward branches and indirect jumps and calls a thread took, counted "
		"in patched code; a position is (event, thread, ticks, pc)");
	/* which counting: a replay under another is refused (dwarf/dwarf.h) */
	cJSON_AddStringToObject(doc, "counting", DW_PATCH_COUNTING);
	add_time(doc, "created");
	cJSON_AddStringToObject(doc, "status", "recording");
	cJSON_AddNullToObject(doc, "exit_status");
	cJSON_AddNumberToObject(doc, "events", 0);
	cJSON_AddNumberToObject(doc, "recorder_pid", getpid());
	/* The descriptors the guest inherits: a replay gives it the same. */
	fds = tracer_inherited_fds();
	arr = cJSON_AddArrayToObject(doc, "fds");
	for (int i = 0; fds[i] >= 0; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(fds[i]));
	free(fds);
	return doc;
}

static void set_item(cJSON *obj, const char *name, cJSON *item)
{
	if (cJSON_GetObjectItemCaseSensitive(obj, name))
		cJSON_ReplaceItemInObjectCaseSensitive(obj, name, item);
	else
		cJSON_AddItemToObject(obj, name, item);
}

static int write_json(const char *dir, const char *name, const cJSON *doc)
{
	char path[4096], *text;
	int err, fd;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	err = hm_json_write(path, doc);
	if (err != -ENOSPC && err != -EDQUOT)
		return err;
	/* A full disk has no room for the temporary file: overwrite the old
	 * one in place, in the blocks it has, so that the status it states
	 * (incomplete) is still written. */
	text = cJSON_Print(doc);
	fd = text ? open(path, O_WRONLY | O_CLOEXEC) : -1;
	n = text ? strlen(text) : 0;
	if (fd >= 0 && hm_write_all(fd, text, n) == 0 && hm_write_all(fd, "\n", 1) == 0 &&
	    ftruncate(fd, (off_t)n + 1) == 0)
		err = 0;
	if (fd >= 0)
		close(fd);
	free(text);
	return err;
}

static int write_manifest(const char *dir, const struct rec_files *f)
{
	cJSON *doc = cJSON_CreateObject(), *arr;
	int err;

	cJSON_AddStringToObject(doc, "schema", "hermit.manifest/1");
	arr = cJSON_AddArrayToObject(doc, "files");
	for (size_t i = 0; i < f->n; i++) {
		cJSON *e = cJSON_CreateObject();
		char file[80];

		snprintf(file, sizeof(file), "files/%s", f->entries[i].sha256);
		cJSON_AddStringToObject(e, "path", f->entries[i].path);
		cJSON_AddStringToObject(e, "file", file);
		cJSON_AddNumberToObject(e, "size", (double)f->entries[i].size);
		cJSON_AddStringToObject(e, "sha256", f->entries[i].sha256);
		cJSON_AddItemToArray(arr, e);
	}
	/* Paths as the run first found them: a replay starts from them. */
	arr = cJSON_AddArrayToObject(doc, "before");
	for (size_t i = 0; i < f->nbefore; i++) {
		static const char *const kinds[] = { "absent", "file", "sized", "dir", "symlink" };
		const struct rec_file_entry *b = &f->before[i];
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "path", b->path);
		cJSON_AddStringToObject(e, "kind", kinds[b->kind]);
		if (b->kind == TRACER_PATH_FILE)
			cJSON_AddStringToObject(e, "sha256", b->sha256);
		else
			cJSON_AddNullToObject(e, "sha256");
		if (b->kind == TRACER_PATH_FILE || b->kind == TRACER_PATH_SIZED)
			cJSON_AddNumberToObject(e, "size", (double)b->size);
		if (b->kind != TRACER_PATH_ABSENT)
			cJSON_AddNumberToObject(e, "mode", b->mode);
		if (b->kind == TRACER_PATH_SYMLINK)
			cJSON_AddStringToObject(e, "target", b->target);
		cJSON_AddItemToArray(arr, e);
	}
	err = write_json(dir, "manifest.json", doc);
	cJSON_Delete(doc);
	return err;
}

static int record_start(int argc, char **argv)
{
	struct cli_run_args a;
	struct rec_files files = { 0 };
	struct rec_result res;
	struct rec_log *log = NULL;
	char *datadir, *id = NULL, *dir = NULL, *base, path[4096], cwd[4096], objects[4096];
	cJSON *meta = NULL;
	int status = cli_run_parse(argc, argv, "record start", &a), err, lock = -1, fd = -1;

	if (status >= 0)
		return status;
	if (a.verify) {
		hm_error("--verify is for 'hermit run', not 'hermit record start'");
		return HM_EXIT_INTERNAL;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		hm_error("cannot record: cannot get the working folder: %s", hm_strerror(errno));
		return HM_EXIT_INTERNAL;
	}
	datadir = hm_datadir_path();
	if (!datadir) {
		hm_error("cannot record: no data folder (set HERMIT_DATA_DIR or HOME)");
		return HM_EXIT_INTERNAL;
	}
	status = HM_EXIT_INTERNAL;
	err = hm_datadir_ensure(datadir);
	if (err) {
		hm_error("cannot create the data folder '%s': %s", datadir, hm_strerror(err));
		goto out;
	}
	base = xstrdup(a.opts.argv[0]);
	err = hm_recording_create(datadir, basename(base), &id, &dir);
	free(base);
	if (err) {
		hm_error("cannot create a recording in '%s': %s", datadir, hm_strerror(err));
		goto out;
	}
	/* Held while this recorder lives: readers tell a killed one by it. */
	lock = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lock < 0 || flock(lock, LOCK_EX) < 0) {
		hm_error("cannot lock recording '%s': %s", id, hm_strerror(errno));
		goto out;
	}
	snprintf(path, sizeof(path), "%s/files", dir);
	if (mkdir(path, 0700) < 0) {
		hm_error("cannot create '%s': %s", path, hm_strerror(errno));
		goto out;
	}
	files.dir = path;
	snprintf(objects, sizeof(objects), "%s/objects", datadir);
	if (mkdir(objects, 0700) == 0 || errno == EEXIST)
		files.objects = objects;
	meta = new_metadata(id, &a.opts, cwd);
	err = write_json(dir, "metadata.json", meta);
	if (!err) {
		char events[4096 + 16];

		snprintf(events, sizeof(events), "%s/events.xz", dir);
		fd = open(events, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		err = fd < 0 ? -errno : rec_log_open(&log, fd);
	}
	if (err) {
		hm_error("cannot write recording '%s': %s", id, hm_strerror(err));
		goto out;
	}
	err = hm_datadir_set_last(datadir, id);
	if (err)
		hm_warn("cannot update '%s/LAST': %s", datadir, hm_strerror(err));
	fprintf(stderr, "hermit: recording '%s'\n", id);
	a.opts.mode = REC_MODE_RECORD;
	a.opts.log = log;
	a.opts.files = &files;
	a.opts.cwd = cwd;
	if (rec_run(&a.opts, &res) < 0) {
		rec_log_close(log, -1, 0);
		cJSON_ReplaceItemInObjectCaseSensitive(meta, "status",
						       cJSON_CreateString("incomplete"));
		write_json(dir, "metadata.json", meta);
		goto out;
	}
	status = res.exit_status;
	err = rec_log_close(log, status, res.events);
	if (!err)
		err = write_manifest(dir, &files);
	set_item(meta, "status",
		 cJSON_CreateString(err || files.failed ? "incomplete" : "complete"));
	set_item(meta, "exit_status", cJSON_CreateNumber(status));
	set_item(meta, "events", cJSON_CreateNumber((double)res.events));
	set_item(meta, "frames", cJSON_CreateNumber((double)res.frames));
	set_item(meta, "uncounted_preemptions", cJSON_CreateNumber((double)res.uncounted));
	set_item(meta, "deferred_preemptions", cJSON_CreateNumber((double)res.deferred));
	cJSON_ReplaceItemInObjectCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(meta, "options"), "preempt",
		cJSON_CreateString(replay_preempt_name(res.preempt)));
	add_time(meta, "ended");
	if (write_json(dir, "metadata.json", meta) < 0 && !err)
		err = -EIO;
	/* The guest's status would say the recording is good: a script that
	 * keeps what exits 0 must not keep this one (DESIGN.md, exit 125). */
	if (err || files.failed) {
		hm_error("recording '%s' is incomplete: %s%s (the program exited %d)", id,
			 err ? "" : "a file it maps could not be copied into it: ",
			 hm_strerror(err ? err : files.failed), status);
		status = HM_EXIT_INTERNAL;
	}
out:
	if (fd >= 0)
		close(fd);
	if (lock >= 0)
		close(lock);
	cJSON_Delete(meta);
	rec_files_free(&files);
	free(id);
	free(dir);
	free(datadir);
	return status;
}

int cli_record(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		cli_record_usage(argc >= 2);
		return argc < 2 ? HM_EXIT_INTERNAL : 0;
	}
	if (strcmp(argv[1], "start") == 0)
		return record_start(argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0 || strcmp(argv[1], "ls") == 0)
		return cli_record_list(argc - 1, argv + 1);
	if (strcmp(argv[1], "rm") == 0)
		return cli_record_rm(argc - 1, argv + 1);
	if (strcmp(argv[1], "clean") == 0)
		return cli_record_clean(argc - 1, argv + 1);
	hm_error("unknown command 'record %s': see 'hermit record --help'", argv[1]);
	return HM_EXIT_INTERNAL;
}
