/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `hermit run --verify` and `--verify-strict` (DESIGN.md "Analysis"): run
 * the guest twice, with stdout and stderr captured in temporary files, and
 * compare what each printed, how it ended and the digest of its events (the
 * whole event stream with --verify-strict). The first run's output is then
 * passed on, so the user sees the program's output once. The JSON report
 * (schema hermit.verify/1, written with cJSON) is what verification-report
 * reads.
 */
#include "config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "common/common.h"
#include "recorder/recorder.h"

struct capture {
	int out, err, ev; /* temporary files, unlinked */
	struct rec_result res;
};

static int temp_fd(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/hermit-verify-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkostemp(path, O_CLOEXEC); /* the guest must not inherit it */
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

static void close_capture(struct capture *c)
{
	if (c->out >= 0)
		close(c->out);
	if (c->err >= 0)
		close(c->err);
	if (c->ev >= 0)
		close(c->ev);
}

/* One run with stdout and stderr in files; 0 or -errno. */
static int one_run(struct rec_options *o, int strict, struct capture *c)
{
	int saved_out, saved_err, err;

	c->out = temp_fd();
	c->err = temp_fd();
	c->ev = strict ? temp_fd() : -1;
	if (c->out < 0 || c->err < 0 || (strict && c->ev < 0)) {
		hm_error("cannot create a temporary file for --verify: %s",
			 hm_strerror(c->out < 0	  ? c->out
				     : c->err < 0 ? c->err
						  : c->ev));
		return -EIO;
	}
	fflush(stdout);
	fflush(stderr);
	saved_out = fcntl(1, F_DUPFD_CLOEXEC, 3);
	saved_err = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (saved_out < 0 || saved_err < 0 || dup2(c->out, 1) < 0 || dup2(c->err, 2) < 0) {
		err = -errno;
		hm_error("cannot capture the guest's output: %s", hm_strerror(err));
		return err;
	}
	o->event_fd = c->ev;
	err = rec_run(o, &c->res);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	return err;
}

/* First byte at which files A and B differ, -1 if none; sizes too. */
static long long first_difference(int a, int b, off_t *size_a, off_t *size_b)
{
	unsigned char x[65536], y[65536];
	struct stat sa, sb;
	long long at = 0;

	fstat(a, &sa);
	fstat(b, &sb);
	*size_a = sa.st_size;
	*size_b = sb.st_size;
	lseek(a, 0, SEEK_SET);
	lseek(b, 0, SEEK_SET);
	for (;;) {
		ssize_t n = read(a, x, sizeof(x)), m = read(b, y, sizeof(y));
		ssize_t k = n < m ? n : m;

		if (k < 0)
			return 0;
		for (ssize_t i = 0; i < k; i++) {
			if (x[i] != y[i])
				return at + i;
		}
		if (n != m)
			return at + k;
		if (n == 0)
			return -1;
		at += n;
	}
}

/* Pass file FD on to descriptor TO. */
static void pass_on(int fd, int to)
{
	char buf[65536];
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (write(to, buf, (size_t)n) != n)
			break;
	}
}

static cJSON *check(cJSON *checks, const char *name, int same)
{
	cJSON *o = cJSON_AddObjectToObject(checks, name);

	cJSON_AddBoolToObject(o, "same", same);
	return o;
}

static void add_pair(cJSON *o, const char *name, double a, double b)
{
	cJSON *arr = cJSON_AddArrayToObject(o, name);

	cJSON_AddItemToArray(arr, cJSON_CreateNumber(a));
	cJSON_AddItemToArray(arr, cJSON_CreateNumber(b));
}

static int write_report(const char *path, cJSON *doc)
{
	char tmp[4096];
	char *text = cJSON_Print(doc);
	FILE *f;
	int err = 0;

	if (!text)
		return -ENOMEM;
	snprintf(tmp, sizeof(tmp), "%s.tmp-%d", path, (int)getpid());
	f = fopen(tmp, "we");
	if (!f) {
		err = -errno;
	} else {
		if (fputs(text, f) < 0 || fputc('\n', f) < 0)
			err = -errno;
		if (fclose(f) != 0 && !err)
			err = -errno;
		if (!err && rename(tmp, path) < 0)
			err = -errno;
		if (err)
			unlink(tmp);
	}
	free(text);
	return err;
}

int cli_verify(struct rec_options *opts, int strict, const char *report)
{
	struct capture run[2] = { { -1, -1, -1, { 0 } }, { -1, -1, -1, { 0 } } };
	long long out_at, err_at, ev_at = -1;
	off_t out_size[2], err_size[2], ev_size[2] = { 0, 0 };
	int same_status, same_digest, same, status = HM_EXIT_INTERNAL;
	cJSON *doc, *checks, *o, *cmd;
	char hex[2][17];

	for (int i = 0; i < 2; i++) {
		if (one_run(opts, strict, &run[i]) < 0) {
			close_capture(&run[0]);
			close_capture(&run[1]);
			return HM_EXIT_INTERNAL;
		}
	}
	out_at = first_difference(run[0].out, run[1].out, &out_size[0], &out_size[1]);
	err_at = first_difference(run[0].err, run[1].err, &err_size[0], &err_size[1]);
	if (strict)
		ev_at = first_difference(run[0].ev, run[1].ev, &ev_size[0], &ev_size[1]);
	same_status = run[0].res.exit_status == run[1].res.exit_status;
	same_digest = run[0].res.digest == run[1].res.digest;
	same = out_at < 0 && err_at < 0 && same_status && same_digest && ev_at < 0;
	pass_on(run[0].out, 1);
	pass_on(run[0].err, 2);
	for (int i = 0; i < 2; i++)
		snprintf(hex[i], sizeof(hex[i]), "%016" PRIx64, run[i].res.digest);

	if (same) {
		hm_notice(
			"verify: the two runs agree (stdout %lld bytes, stderr %lld bytes, exit %d, "
			"%" PRIu64 " events%s)",
			(long long)out_size[0], (long long)err_size[0], run[0].res.exit_status,
			run[0].res.events, strict ? ", whole event stream" : "");
		status = run[0].res.exit_status;
		if (run[0].res.uncounted || run[1].res.uncounted)
			hm_warn("verify: %" PRIu64 " and %" PRIu64
				" preemptions came at wall-clock moments (code no tick counts, such "
				"as JIT code): other runs may differ",
				run[0].res.uncounted, run[1].res.uncounted);
	} else {
		hm_error("verify: the runs diverge:%s%s%s%s%s", out_at >= 0 ? " stdout" : "",
			 err_at >= 0 ? " stderr" : "", same_status ? "" : " exit status",
			 same_digest ? "" : " event digest", ev_at >= 0 ? " event stream" : "");
		if (run[0].res.uncounted || run[1].res.uncounted)
			hm_error("verify: %" PRIu64 " and %" PRIu64
				 " preemptions came at wall-clock moments (code no tick counts, "
				 "such as JIT code: docs/preemption.md)",
				 run[0].res.uncounted, run[1].res.uncounted);
		status = HM_EXIT_DIVERGED;
	}

	if (report) {
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "schema", "hermit.verify/1");
		cmd = cJSON_AddArrayToObject(doc, "command");
		for (char *const *a = opts->argv; *a; a++)
			cJSON_AddItemToArray(cmd, cJSON_CreateString(*a));
		cJSON_AddNumberToObject(doc, "seed", (double)opts->seed);
		cJSON_AddNumberToObject(doc, "runs", 2);
		cJSON_AddBoolToObject(doc, "strict", strict);
		cJSON_AddStringToObject(doc, "result", same ? "same" : "diverged");
		checks = cJSON_AddObjectToObject(doc, "checks");
		o = check(checks, "stdout", out_at < 0);
		add_pair(o, "bytes", (double)out_size[0], (double)out_size[1]);
		if (out_at >= 0)
			cJSON_AddNumberToObject(o, "first_difference", (double)out_at);
		o = check(checks, "stderr", err_at < 0);
		add_pair(o, "bytes", (double)err_size[0], (double)err_size[1]);
		if (err_at >= 0)
			cJSON_AddNumberToObject(o, "first_difference", (double)err_at);
		o = check(checks, "exit_status", same_status);
		add_pair(o, "values", run[0].res.exit_status, run[1].res.exit_status);
		o = check(checks, "digest", same_digest);
		cmd = cJSON_AddArrayToObject(o, "values");
		cJSON_AddItemToArray(cmd, cJSON_CreateString(hex[0]));
		cJSON_AddItemToArray(cmd, cJSON_CreateString(hex[1]));
		add_pair(o, "events", (double)run[0].res.events, (double)run[1].res.events);
		add_pair(doc, "uncounted_preemptions", (double)run[0].res.uncounted,
			 (double)run[1].res.uncounted);
		add_pair(doc, "deferred_preemptions", (double)run[0].res.deferred,
			 (double)run[1].res.deferred);
		if (strict) {
			o = check(checks, "events", ev_at < 0);
			if (ev_at >= 0)
				cJSON_AddNumberToObject(
					o, "first_difference",
					(double)(ev_at /
						 (long long)sizeof(struct rec_event_record)));
		}
		int werr = write_report(report, doc);

		if (werr < 0) {
			hm_error("cannot write the report '%s': %s", report, hm_strerror(werr));
			status = HM_EXIT_INTERNAL;
		}
		cJSON_Delete(doc);
	}
	close_capture(&run[0]);
	close_capture(&run[1]);
	return status;
}
