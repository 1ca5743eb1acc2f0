/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A replay session: the recording is checked from end to end before
 * anything runs (a damaged log is refused, exit 125, rather than found out
 * half-way), then the recorded command runs again through the recorder in
 * replay mode, which takes each event from the log in turn (rec_source).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "replayer.h"

struct source_state {
	struct replay_log *log;
	const struct rec_event_record *ev; /* the frame peeked at, or NULL */
	const unsigned char *payload;
	size_t len;
	int state; /* what the last read gave: 1, 0 or -errno */
};

static int source_peek(void *ctx, const struct rec_event_record **ev, const unsigned char **payload,
		       size_t *len)
{
	struct source_state *s = ctx;

	if (!s->ev && s->state > 0)
		s->state = replay_log_next(s->log, &s->ev, &s->payload, &s->len);
	if (s->state <= 0)
		return s->state;
	*ev = s->ev;
	*payload = s->payload;
	*len = s->len;
	return 1;
}

static void source_take(void *ctx)
{
	struct source_state *s = ctx;

	s->ev = NULL;
}

/* The recording to replay: ID, or the newest. 0 with *OUT malloc'd. */
static int pick(const char *datadir, const char *id, char **out)
{
	int err;

	if (id) {
		*out = xstrdup(id);
		return 0;
	}
	err = hm_datadir_get_last(datadir, out);
	if (err == -ENOENT)
		hm_error("cannot replay: there is no recording yet in '%s'", datadir);
	else if (err)
		hm_error("cannot replay: '%s/LAST' %s", datadir,
			 err == -EBADMSG ? "does not name a recording" : hm_strerror(err));
	return err;
}

int replay_autopilot(const struct replay_options *o)
{
	char *datadir = hm_datadir_path(), *id = NULL, path[4096];
	struct replay_recording rc;
	struct replay_log_check check;
	struct source_state src = { .state = 1 };
	struct rec_source source = { &src, source_peek, source_take };
	struct rec_result res;
	int status = HM_EXIT_INTERNAL, err;

	if (!datadir) {
		hm_error("cannot replay: no data folder (set HERMIT_DATA_DIR or HOME)");
		return HM_EXIT_INTERNAL;
	}
	if (pick(datadir, o->id, &id) < 0 || replay_recording_open(datadir, id, &rc) < 0)
		goto out;
	if (strcmp(rc.state, "recording") == 0) {
		hm_error("cannot replay '%s': it is still being recorded", id);
		goto out_rc;
	}
	snprintf(path, sizeof(path), "%s/events.xz", rc.dir);
	err = replay_log_check(path, &check);
	if (err || check.error) {
		err = err ? err : check.error;
		hm_error("cannot replay '%s': events.xz %s", id,
			 err == -EBADMSG ? "is damaged"
			 : err == -EPIPE ? "is truncated"
					 : hm_strerror(err));
		goto out_rc;
	}
	if (!check.complete && strcmp(rc.state, "complete") == 0) {
		hm_error("cannot replay '%s': events.xz is truncated (%llu events left)", id,
			 (unsigned long long)check.frames);
		goto out_rc;
	}
	if (!check.complete)
		hm_notice("recording '%s' is incomplete: replaying the %llu events it holds", id,
			  (unsigned long long)check.frames);
	err = replay_log_open(path, &src.log);
	if (err) {
		hm_error("cannot replay '%s': events.xz: %s", id, hm_strerror(err));
		goto out_rc;
	}
	rc.opts.mode = REC_MODE_REPLAY;
	rc.opts.source = &source;
	rc.opts.quiet = o->quiet;
	if (!rc.opts.namespaces)
		rc.opts.binds = rc.opts.before = NULL; /* no mount namespace for them */
	err = rec_run(&rc.opts, &res);
	status = err ? HM_EXIT_INTERNAL : res.exit_status;
	replay_log_close(src.log);
out_rc:
	replay_recording_free(&rc);
out:
	free(id);
	free(datadir);
	return status;
}
