/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A recording on disk, as a replay or `record list` reads it: its folder
 * in the data directory, metadata.json (schema hermit.recording/1) turned
 * back into the options of the recorded run, manifest.json turned into the
 * files to put in place, and whether a recorder still holds it. Nothing
 * here writes: bad input is reported, never repaired.
 */
#include "config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "common/common.h"
#include "dwarf/dwarf.h"
#include "replayer.h"
#include "tracer/tracer.h"

/* Integers that may pass 2^53 are stored as decimal strings. */
static int json_u64(const cJSON *obj, const char *name, uint64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	char *end;

	if (cJSON_IsNumber(v) && v->valuedouble >= 0) {
		*out = (uint64_t)v->valuedouble;
		return 0;
	}
	if (!cJSON_IsString(v) || !*v->valuestring || *v->valuestring == '-')
		return -EBADMSG;
	errno = 0;
	*out = strtoull(v->valuestring, &end, 10);
	return errno || *end ? -EBADMSG : 0;
}

static char **json_strings(const cJSON *obj, const char *name)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, name), *it;
	size_t n = 0;
	char **out;

	if (!cJSON_IsArray(arr))
		return NULL;
	out = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*out));
	cJSON_ArrayForEach(it, arr)
	{
		if (!cJSON_IsString(it)) {
			while (n)
				free(out[--n]);
			free(out);
			return NULL;
		}
		out[n++] = xstrdup(it->valuestring);
	}
	return out;
}

static void free_strings(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

const char *replay_recording_state(const char *dir, const char *status)
{
	int fd;
	const char *state = status;

	if (strcmp(status, "recording") != 0)
		return status;
	/* The recorder holds a lock on the folder while it lives. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return "incomplete";
	if (flock(fd, LOCK_SH | LOCK_NB) == 0)
		state = "incomplete";
	close(fd);
	return state;
}

static const char *const kind_names[] = { "absent", "file", "sized", "dir", "symlink" };

/*
 * One entry of manifest.json's "before" into *P: {path, kind, sha256,
 * size, mode, target}. Recordings older than "kind" have a sha256 (a
 * file) or null (absent). 0 or -EBADMSG.
 */
static int load_before(struct replay_recording *rc, const cJSON *it, struct tracer_path *p)
{
	const char *orig = hm_json_str(it, "path", NULL);
	const char *kind = hm_json_str(it, "kind", NULL);
	const cJSON *sha = cJSON_GetObjectItemCaseSensitive(it, "sha256");
	const cJSON *size = cJSON_GetObjectItemCaseSensitive(it, "size");
	const cJSON *mode = cJSON_GetObjectItemCaseSensitive(it, "mode");
	const char *target = hm_json_str(it, "target", NULL);
	char copy[4096 + 80];
	size_t k;

	if (!orig || orig[0] != '/')
		return -EBADMSG;
	if (!kind) {
		k = cJSON_IsString(sha) ? TRACER_PATH_FILE : TRACER_PATH_ABSENT;
	} else {
		for (k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++) {
			if (strcmp(kind, kind_names[k]) == 0)
				break;
		}
		if (k == sizeof(kind_names) / sizeof(kind_names[0]))
			return -EBADMSG;
	}
	p->kind = (enum tracer_path_kind)k;
	p->path = xstrdup(orig);
	if (k == TRACER_PATH_FILE) {
		if (!cJSON_IsString(sha) || !hm_sha256_hex_valid(sha->valuestring))
			return -EBADMSG;
		snprintf(copy, sizeof(copy), "%s/files/%s", rc->dir, sha->valuestring);
		p->copy = xstrdup(copy);
	}
	if (k == TRACER_PATH_SYMLINK) {
		if (!target)
			return -EBADMSG;
		p->target = xstrdup(target);
	}
	if (cJSON_IsNumber(size) && size->valuedouble >= 0)
		p->size = (uint64_t)size->valuedouble;
	if (cJSON_IsNumber(mode) && mode->valuedouble >= 0)
		p->mode = (unsigned)mode->valuedouble & 07777;
	return 0;
}

static void free_before(struct tracer_path *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)v[i].path);
		free((char *)v[i].copy);
		free((char *)v[i].target);
	}
	free(v);
}

/* manifest.json -> pairs (copy in files/, original path), NULL-ended. */
static int load_manifest(struct replay_recording *rc)
{
	struct hm_manifest_file *kept;
	cJSON *doc, *files, *it;
	size_t n = 0, nkept;
	int err;

	err = hm_manifest_read(rc->dir, &doc);
	if (err == -ENOENT) {
		rc->binds = xcalloc(1, sizeof(*rc->binds));
		rc->before = xcalloc(1, sizeof(*rc->before));
		return 0; /* a recording cut before its end has none yet */
	}
	if (err)
		return err;
	err = hm_manifest_files(doc, rc->dir, &kept, &nkept);
	if (err) {
		cJSON_Delete(doc);
		return err;
	}
	rc->binds = xcalloc(2 * nkept + 1, sizeof(*rc->binds));
	for (size_t i = 0; i < nkept; i++) {
		if (access(kept[i].copy, R_OK) < 0) {
			hm_manifest_free(kept, nkept);
			cJSON_Delete(doc);
			return -ENOENT;
		}
		rc->binds[n++] = kept[i].copy;
		rc->binds[n++] = kept[i].path;
		kept[i].copy = kept[i].path = NULL;
	}
	hm_manifest_free(kept, nkept);
	/* Paths as the run first found them, in that order. */
	files = cJSON_GetObjectItemCaseSensitive(doc, "before");
	rc->before = xcalloc((size_t)cJSON_GetArraySize(files) + 1, sizeof(*rc->before));
	cJSON_ArrayForEach(it, files)
	{
		struct tracer_path *p = &rc->before[rc->nbefore++];

		if (load_before(rc, it, p) < 0) {
			cJSON_Delete(doc);
			return -EBADMSG;
		}
		if (p->kind == TRACER_PATH_FILE && access(p->copy, R_OK) < 0) {
			cJSON_Delete(doc);
			return -ENOENT;
		}
	}
	cJSON_Delete(doc);
	return 0;
}

static const char *const preempt_names[] = { "auto", "pmu", "sites", "none" };

const char *replay_preempt_name(enum rec_preempt p)
{
	return (unsigned)p < 4 ? preempt_names[p] : "auto";
}

int replay_recording_open(const char *datadir, const char *id, struct replay_recording *rc)
{
	char path[4096];
	const cJSON *opt, *fds;
	const char *status, *s;
	uint64_t v;
	int err;

	memset(rc, 0, sizeof(*rc));
	err = hm_recording_dir(datadir, id, &rc->dir);
	if (err) {
		hm_error("cannot open recording '%s': %s", id,
			 err == -EINVAL ? "not a valid recording id" : "no such recording");
		return err;
	}
	rc->id = xstrdup(id);
	snprintf(path, sizeof(path), "%s/metadata.json", rc->dir);
	err = hm_json_read(path, &rc->meta);
	if (err) {
		hm_error("cannot open recording '%s': metadata.json %s", id,
			 err == -EBADMSG ? "is not valid JSON" : hm_strerror(err));
		replay_recording_free(rc);
		return err;
	}
	opt = cJSON_GetObjectItemCaseSensitive(rc->meta, "options");
	status = hm_json_str(rc->meta, "status", NULL);
	rc->argv = json_strings(rc->meta, "argv");
	rc->envp = json_strings(rc->meta, "env");
	err = -EBADMSG;
	s = hm_json_str(rc->meta, "schema", "");
	if (strncmp(s, "hermit.recording/", 17) == 0 && strcmp(s, "hermit.recording/1") != 0) {
		/* Another version of the format, older or newer: its fields may
		 * mean other things, so it is not read at all. */
		hm_error("cannot open recording '%s': it was made in the recording format '%s', "
			 "and this hermit (%s) reads 'hermit.recording/1' only",
			 id, s, PACKAGE_VERSION);
		replay_recording_free(rc);
		return -EPROTONOSUPPORT;
	}
	s = hm_json_str(rc->meta, "cwd", NULL);
	if (strcmp(hm_json_str(rc->meta, "schema", ""), "hermit.recording/1") != 0 || !status ||
	    !rc->argv || !rc->argv[0] || !rc->envp || !s || !cJSON_IsObject(opt))
		goto bad;
	rc->cwd = xstrdup(s);
	rc->state = replay_recording_state(rc->dir, status);
	rc->opts.argv = rc->argv;
	rc->opts.envp = rc->envp;
	rc->opts.cwd = rc->cwd;
	rc->opts.event_fd = -1;
	if (json_u64(opt, "seed", &rc->opts.seed) ||
	    json_u64(opt, "sched_seed", &rc->opts.sched_seed))
		goto bad;
	if (json_u64(rc->meta, "epoch_ns", &v))
		goto bad;
	rc->opts.epoch_ns = (int64_t)v;
	if (json_u64(opt, "max_timeslice", &rc->opts.max_timeslice))
		goto bad;
	rc->opts.namespaces = (int)hm_json_int(opt, "namespaces", 1);
	rc->opts.network_host = strcmp(hm_json_str(opt, "network", "loopback"), "host") == 0;
	rc->opts.chaos = (int)hm_json_int(opt, "chaos", 0);
	rc->opts.chaos_seeded_timeslice = (int)hm_json_int(opt, "chaos_seeded_timeslice", 0);
	s = hm_json_str(opt, "preempt", "auto");
	for (int i = 0; i < 4; i++) {
		if (strcmp(s, preempt_names[i]) == 0)
			rc->opts.preempt = (enum rec_preempt)i;
	}
	rc->opts.virtual_timeout_ns = hm_json_int(opt, "virtual_timeout_ns", 0);
	/* Ticks counted in patched code: only where they were counted alike
	 * (older recordings lack the key: counted otherwise). */
	s = hm_json_str(rc->meta, "counting", NULL);
	if (rc->opts.preempt == REC_PREEMPT_SITES && (!s || strcmp(s, DW_PATCH_COUNTING) != 0)) {
		if (s)
			hm_error("cannot open recording '%s': its ticks were counted as '%s', and "
				 "this hermit (%s) counts them as '%s': a replay would stop "
				 "threads elsewhere",
				 id, s, PACKAGE_VERSION, DW_PATCH_COUNTING);
		else
			hm_error("cannot open recording '%s': an older hermit counted its ticks, "
				 "otherwise than this one (%s, '%s'): a replay would stop threads "
				 "elsewhere",
				 id, PACKAGE_VERSION, DW_PATCH_COUNTING);
		replay_recording_free(rc);
		return -EPROTONOSUPPORT;
	}
	/* what the output frames' digests are (recorder/sent.c): FNV-1a in
	 * recordings made before the key */
	s = hm_json_str(opt, "sent_digest", "fnv1a");
	if (strcmp(s, "xxh3-64") != 0 && strcmp(s, "fnv1a") != 0) {
		hm_error("cannot open recording '%s': its output digests are '%s', which this "
			 "hermit (%s) does not know",
			 id, s, PACKAGE_VERSION);
		replay_recording_free(rc);
		return -EPROTONOSUPPORT;
	}
	rc->opts.sent_fnv1a = strcmp(s, "fnv1a") == 0;
	/* the in-guest clock, as recorded (off in recordings older than it) */
	rc->opts.fastpath = (int)hm_json_int(opt, "fastpath", 0);
	fds = cJSON_GetObjectItemCaseSensitive(rc->meta, "fds");
	if (cJSON_IsArray(fds)) {
		const cJSON *it;
		int n = 0;

		rc->fds = xcalloc((size_t)cJSON_GetArraySize(fds) + 1, sizeof(*rc->fds));
		cJSON_ArrayForEach(it, fds)
		{
			if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 65535)
				goto bad;
			rc->fds[n++] = (int)it->valuedouble;
		}
		rc->fds[n] = -1;
		rc->opts.fds = rc->fds;
	}
	err = load_manifest(rc);
	if (err) {
		hm_error("cannot open recording '%s': %s", id,
			 err == -ENOENT ? "a file of its manifest is missing from files/"
					: "manifest.json is damaged");
		replay_recording_free(rc);
		return err;
	}
	rc->opts.binds = rc->binds;
	rc->opts.before = rc->before;
	rc->opts.nbefore = rc->nbefore;
	return 0;
bad:
	hm_error("cannot open recording '%s': metadata.json is not a hermit.recording/1 document",
		 id);
	replay_recording_free(rc);
	return err;
}

void replay_recording_free(struct replay_recording *rc)
{
	free(rc->id);
	free(rc->dir);
	free(rc->cwd);
	free(rc->fds);
	free_strings(rc->argv);
	free_strings(rc->envp);
	free_strings(rc->binds);
	free_before(rc->before, rc->nbefore);
	cJSON_Delete(rc->meta);
	memset(rc, 0, sizeof(*rc));
}
