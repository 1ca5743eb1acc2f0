/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * replayer: replay policy. Reads a recording's event log, re-executes the
 * recorded command through the recorder in replay mode with the recorded
 * files in place, and stops at the first divergence (DESIGN.md "Replay").
 */
#ifndef HERMIT_REPLAYER_H
#define HERMIT_REPLAYER_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/recorder.h"

/* ---- evlog.c: the event-log reader ---- */

struct replay_log;

/* Open the event log at PATH. 0 or -errno (-EBADMSG: not an event log).
 * References to files/ are read from the folder beside PATH. */
int replay_log_open(const char *path, struct replay_log **log);
/*
 * The next frame: 1 with *EV, *PAYLOAD and *LEN valid until the next call;
 * 0 when the log ends: after its REC_EV_END frame, or where it was cut
 * (a recorder that died); -EBADMSG when a frame
 * is damaged (bad length or CRC, frames after the end, xz errors); -ENOENT
 * when a read kept by reference names a copy files/ lacks; -errno of
 * reading.
 */
int replay_log_next(struct replay_log *log, const struct rec_event_record **ev,
		    const unsigned char **payload, size_t *len);
void replay_log_close(struct replay_log *log);

/* Summary of a whole log, read once from end to end. */
struct replay_log_check {
	uint64_t frames;  /* frames, the end frame included */
	uint64_t events;  /* scheduling events (the digest's) */
	uint64_t inputs;  /* REC_EV_INPUT frames */
	uint64_t outputs; /* REC_EV_OUTPUT frames */
	int complete;	  /* it has its end frame */
	int exit_status;  /* from the end frame */
	int error;	  /* 0, or -errno where reading stopped */
};

/* Read the log at PATH to its end (a reference's copy is looked for, not
 * read). 0 (see *out) or -errno to open it. */
int replay_log_check(const char *path, struct replay_log_check *out);

/* ---- substitute.c: the log's answers put into the guest ---- */

/* What a replay's recorder is given as rec_options.replay. */
extern const struct rec_replay_ops replay_substitution;

/* ---- recording.c: a recording on disk ---- */

struct cJSON;

struct replay_recording {
	char *id;
	char *dir;		 /* its folder */
	struct cJSON *meta;	 /* metadata.json */
	const char *state;	 /* recording (a recorder holds it), complete or incomplete */
	struct rec_options opts; /* the recorded run's options, for a replay */
	char **argv, **envp, *cwd;
	int *fds;      /* the descriptors the guest started with, ended by -1 */
	char **binds;  /* pairs (copy in files/, original path) from manifest.json */
	struct tracer_path *before; /* the paths the run touched, as it first found them */
	size_t nbefore;
	uint64_t last_event; /* `monitor goto`'s bound: the end's event, as `monitor when`
			      * numbers it (or the last frame of a log cut short) */
	int last_is_end;     /* the log has its end frame: last_event is the end */
};

/* Open recording ID of DATADIR. 0, or -errno with a one-line message printed. */
int replay_recording_open(const char *datadir, const char *id, struct replay_recording *rc);
void replay_recording_free(struct replay_recording *rc);
/* What a recording with metadata STATUS in folder DIR is now: a status of
 * "recording" whose recorder is gone (its lock on DIR is free) is
 * "incomplete". */
const char *replay_recording_state(const char *dir, const char *status);
/* --preempt's word for P, as metadata.json keeps it. */
const char *replay_preempt_name(enum rec_preempt p);

/* ---- session.c: replaying a recording ---- */

struct replay_options {
	const char *id;	    /* the recording; NULL: the newest (LAST) */
	int quiet;	    /* -q: the guest's stdout and stderr to /dev/null */
	int port;	    /* gdb: the port on 127.0.0.1; 0: any free one */
	const char *gdb;    /* gdb: the debugger to start (default "gdb") */
	int gdbserver_only; /* gdb: print the command to connect, start none */
};

/* `hermit replay --autopilot`: the guest's exit status when the replay
 * matched the recording to its end, 122 when it diverged, 125 when the
 * recording cannot be used (one line printed). */
int replay_autopilot(const struct replay_options *o);

/* `hermit replay [ID]`: serve gdb on 127.0.0.1 and start it (or print
 * how to, --gdbserver-only). The replay's exit status, or 125. */
int replay_gdb(const struct replay_options *o);

/* ---- debug.c: the replay under gdb ---- */

/* What the process serving gdb tells `hermit replay` on NEWS_FD (a pipe):
 * that the replay is at the program's first instruction and gdb's
 * connection is awaited now (READY, once), that it serves now (a
 * checkpoint took over: value is its pid), or the replay's status, the
 * last word. */
enum { REPLAY_NEWS_SERVER = 1, REPLAY_NEWS_STATUS = 2, REPLAY_NEWS_READY = 3 };
struct replay_news {
	int kind;
	int value;
};

/* Replay RC to the program's first instruction, say READY on NEWS_FD,
 * accept gdb on LISTEN_FD (so that gdb's first packets are answered at
 * once, within its 2 s remotetimeout, however long the start took on a
 * busy host) and replay for it, again and again as it goes back, until it
 * leaves; REOPEN rewinds SOURCE before each replay
 * after the first. LIFE_FD (>= 0: checkpoints are made) is a pipe whose
 * far end `hermit replay` holds: it ends the checkpoints' processes when
 * that process ends; a checkpoint that takes over says so on NEWS_FD.
 * The last replay's exit status. */
int replay_debug(struct replay_recording *rc, int listen_fd, struct rec_source *source,
		 int (*reopen)(void *ctx), void *reopen_ctx, int life_fd, int news_fd);

#endif /* HERMIT_REPLAYER_H */
