/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A replay session: the recording is checked from end to end before
 * anything runs (a damaged log is refused, exit 125, rather than found out
 * half-way), then the recorded command runs again through the recorder in
 * replay mode, which takes each event from the log in turn (rec_source).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Open and check recording O->id (or the newest) for a replay; 0, or the
 * exit status (125) after a message. */
static int prepare(const struct replay_options *o, char **idp, struct replay_recording *rc,
		   char *path, size_t size)
{
	char *datadir = hm_datadir_path(), *id = NULL;
	struct replay_log_check check;
	int err;

	*idp = NULL;
	if (!datadir) {
		hm_error("cannot replay: no data folder (set HERMIT_DATA_DIR or HOME)");
		return HM_EXIT_INTERNAL;
	}
	if (pick(datadir, o->id, &id) < 0 || replay_recording_open(datadir, id, rc) < 0) {
		free(id);
		free(datadir);
		return HM_EXIT_INTERNAL;
	}
	free(datadir);
	*idp = id;
	if (strcmp(rc->state, "recording") == 0) {
		hm_error("cannot replay '%s': it is still being recorded", id);
		goto bad;
	}
	snprintf(path, size, "%s/events.xz", rc->dir);
	err = replay_log_check(path, &check);
	if (err || check.error) {
		err = err ? err : check.error;
		hm_error("cannot replay '%s': events.xz %s", id,
			 err == -EBADMSG		? "is damaged"
			 : err == -EPIPE		? "is truncated"
			 : err == -ENOENT		? "names a copy in files/ that is missing or damaged"
			 : err == -EPROTONOSUPPORT ? "is in another event-log format than "
						     "this hermit's (" REC_LOG_MAGIC ")"
						   : hm_strerror(err));
		goto bad;
	}
	if (!check.complete && strcmp(rc->state, "complete") == 0) {
		hm_error("cannot replay '%s': events.xz is truncated (%llu events left)", id,
			 (unsigned long long)check.frames);
		goto bad;
	}
	if (!check.complete)
		hm_notice("recording '%s' is incomplete: replaying the %llu events it holds", id,
			  (unsigned long long)check.frames);
	rc->opts.mode = REC_MODE_REPLAY;
	rc->opts.replay = &replay_substitution;
	rc->opts.quiet = o->quiet;
	rc->last_event = check.complete && check.frames ? check.frames - 1 : check.frames;
	rc->last_is_end = check.complete && check.frames;
	if (!rc->opts.namespaces) {
		struct stat st;

		rc->opts.binds = NULL; /* no mount namespace for them */
		rc->opts.before = NULL;
		rc->opts.nbefore = 0;
		/* No private view to make it again in (tracer/launch.c). */
		if (stat(rc->cwd, &st) < 0 || !S_ISDIR(st.st_mode)) {
			hm_error("cannot replay '%s': its working folder '%s' is gone, and a "
				 "recording made without namespaces is replayed on the host's "
				 "files",
				 id, rc->cwd);
			goto bad;
		}
	}
	return 0;
bad:
	replay_recording_free(rc);
	return HM_EXIT_INTERNAL;
}

int replay_autopilot(const struct replay_options *o)
{
	char *id, path[4096];
	struct replay_recording rc;
	struct source_state src = { .state = 1 };
	struct rec_source source = { &src, source_peek, source_take };
	struct rec_result res;
	int status = prepare(o, &id, &rc, path, sizeof(path)), err;

	if (status) {
		free(id);
		return status;
	}
	err = replay_log_open(path, &src.log);
	if (err) {
		hm_error("cannot replay '%s': events.xz: %s", id, hm_strerror(err));
		status = HM_EXIT_INTERNAL;
	} else {
		rc.opts.source = &source;
		err = rec_run(&rc.opts, &res);
		status = err ? HM_EXIT_INTERNAL : res.exit_status;
		replay_log_close(src.log);
	}
	replay_recording_free(&rc);
	free(id);
	return status;
}

struct rewind {
	struct source_state *src;
	const char *path;
};

/* Back to the log's first frame, for another replay. */
static int rewind_log(void *ctx)
{
	struct rewind *rw = ctx;
	int err;

	replay_log_close(rw->src->log);
	memset(rw->src, 0, sizeof(*rw->src));
	rw->src->state = 1;
	err = replay_log_open(rw->path, &rw->src->log);
	if (err)
		hm_error("cannot read '%s' again: %s", rw->path, hm_strerror(err));
	return err;
}

/* A socket listening on 127.0.0.1:PORT (0: any); its port in *PORT. */
static int listen_local(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -errno;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)*port);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 1) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

/* What `hermit replay` does when the replay is at the program's first
 * instruction: print the command for gdb (--gdbserver-only), or start gdb
 * (PID then). Not before: gdb gives the stub 2 s (its remotetimeout) for
 * each of its first packets, and the start of a replay (launch, patching
 * the program and its libraries) can take longer on a busy host; gdb then
 * takes a late reply to qSupported for the reply to vMustReplyEmpty and
 * gives up ("Remote replied unexpectedly"). */
struct ready {
	const struct replay_options *o;
	const char *target, *exe;
	pid_t pid;	/* gdb's, once started (0: none, or reaped) */
	int connected; /* the server said it serves (gdb connected) */
};

static void start_gdb(struct ready *r);

/*
 * Serve gdb in a child, and wait for the replay's status. With checkpoints
 * the process that serves gdb changes (replayer/checkpoint.c): each one
 * that takes over descends from the first, and the last one writes the
 * status to a pipe. This process is their subreaper; when it ends, LIFE's
 * far end closes and the checkpoints' processes that are left end too.
 */
static int serve_replay(struct replay_recording *rc, int listen_fd, struct rec_source *source,
			struct rewind *rw, struct ready *ready)
{
	int status_pipe[2], life[2], status = HM_EXIT_INTERNAL;
	pid_t server;

	if (pipe2(status_pipe, O_CLOEXEC) < 0)
		return HM_EXIT_INTERNAL;
	if (pipe2(life, O_CLOEXEC) < 0) {
		close(status_pipe[0]);
		close(status_pipe[1]);
		return HM_EXIT_INTERNAL;
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	fflush(NULL);
	server = fork();
	if (server == 0) {
		struct replay_news news = { REPLAY_NEWS_STATUS, 0 };

		close(status_pipe[0]);
		close(life[1]);
		news.value = replay_debug(rc, listen_fd, source, rewind_log, rw, life[0],
					  status_pipe[1]);
		hm_write_all(status_pipe[1], &news, sizeof(news));
		fflush(NULL);
		_exit(0);
	}
	close(status_pipe[1]);
	close(life[0]);
	if (server < 0) {
		hm_error("cannot start the replay: %s", hm_strerror(errno));
	} else {
		struct pollfd p = { status_pipe[0], POLLIN, 0 };
		struct replay_news news;
		int gone = 0;

		/* Reap the servers that handed over, and ended checkpoints; hear
		 * which process serves now, and the status. A server that is
		 * gone without one ends the wait (its checkpoints hold the pipe). */
		for (;;) {
			int n = poll(&p, 1, 500);

			pid_t w;
			int st;

			while ((w = waitpid(-1, &st, WNOHANG | __WALL)) > 0) {
				if (w != ready->pid)
					continue;
				/* gdb is gone: a server still waiting for it
				 * stops waiting (its accept fails). */
				if (!ready->connected &&
				    !(WIFEXITED(st) && WEXITSTATUS(st) == HM_EXIT_NOTFOUND))
					hm_error("gdb ended before it connected to the replay");
				ready->pid = 0;
				shutdown(listen_fd, SHUT_RDWR);
			}
			if (n < 0 && errno != EINTR)
				break;
			if (n > 0) {
				if (hm_read_all(status_pipe[0], &news, sizeof(news)) < 0)
					break;
				if (news.kind == REPLAY_NEWS_STATUS) {
					status = news.value;
					break;
				}
				if (news.kind == REPLAY_NEWS_READY) {
					start_gdb(ready);
					if (ready->pid < 0)
						shutdown(listen_fd, SHUT_RDWR);
					continue;
				}
				server = news.value;
				ready->connected = 1;
				gone = 0;
			} else if (kill(server, 0) < 0 && errno == ESRCH) {
				/* (A checkpoint taking over says so a moment after
				 * the old server is gone.) */
				if (++gone == 10) {
					hm_error("the replay ended without a status");
					break;
				}
			} else {
				gone = 0;
			}
		}
	}
	close(status_pipe[0]);
	close(life[1]);
	/* Whatever is left: the server that wrote, checkpoints ending. */
	while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
		;
	return status;
}

/*
 * After `monitor goto`, gdb's registers and frames are stale and RSP cannot
 * tell it: every monitor command flushes them (hermit-sync). And the thread
 * gdb has selected may not exist at the new event (not yet, or no more):
 * then hermit-sync selects the stop's thread ('?' names it), or else the
 * first one alive, as a stop would. That needs gdb's Python ($_streq is
 * one of its functions, tested here before there are registers to read);
 * without it hermit-sync only flushes, and `thread N` does the rest.
 */
#define GDB_HOOKS                                                                                  \
	"define hermit-sync\n"                                                                     \
	"maintenance flush register-cache\n"                                                       \
	"end\n"                                                                                    \
	"if !$_isvoid($_streq)\n"                                                                  \
	"python\n"                                                                                 \
	"import re\n"                                                                              \
	"class HermitSync(gdb.Command):\n"                                                         \
	"    def __init__(self):\n"                                                                \
	"        super().__init__('hermit-sync', gdb.COMMAND_MAINTENANCE)\n"                       \
	"    def invoke(self, arg, from_tty):\n"                                                   \
	"        try:\n"                                                                           \
	"            gdb.execute('maintenance flush register-cache', to_string=True)\n"            \
	"            gdb.selected_frame()\n"                                                       \
	"            return\n"                                                                     \
	"        except gdb.error:\n"                                                              \
	"            pass\n"                                                                       \
	"        inf = gdb.selected_inferior()\n"                                                  \
	"        if inf.pid == 0:\n"                                                               \
	"            return\n"                                                                     \
	"        gdb.execute('info threads', to_string=True)\n"                                    \
	"        stop = gdb.execute('maintenance packet ?', to_string=True)\n"                     \
	"        m = re.search(r'thread:(?:p[0-9a-f]+\\.)?([0-9a-f]+)', stop)\n"                   \
	"        live = sorted((t for t in inf.threads() if t.is_valid()), key=lambda t: t.num)\n" \
	"        pick = [t for t in live if m and t.ptid[1] == int(m.group(1), 16)] + live\n"      \
	"        if pick:\n"                                                                       \
	"            gdb.execute('thread %d' % pick[0].num)\n"                                     \
	"HermitSync()\n"                                                                           \
	"end\n"                                                                                    \
	"end\n"                                                                                    \
	"define hookpost-monitor\n"                                                                \
	"hermit-sync\n"                                                                            \
	"end\n"

static void start_gdb(struct ready *r)
{
	if (r->o->gdbserver_only) {
		printf("gdb -ex '%s' %s\n", r->target, r->exe);
		fflush(stdout);
		return;
	}
	r->pid = fork();
	if (r->pid == 0) {
		const char *g = r->o->gdb ? r->o->gdb : "gdb";
		char hooks[32] = "/dev/null";
		int h = memfd_create("hermit-gdb-hooks", 0);

		/* The hooks above, in a memfd (gdb seeks in it). */
		if (h >= 0 &&
		    write(h, GDB_HOOKS, sizeof(GDB_HOOKS) - 1) == (ssize_t)sizeof(GDB_HOOKS) - 1)
			snprintf(hooks, sizeof(hooks), "/dev/fd/%d", h);
		execlp(g, g, "-q", "-x", hooks, "-ex", r->target, r->exe, (char *)NULL);
		hm_error("cannot run '%s': %s", g, hm_strerror(errno));
		_exit(HM_EXIT_NOTFOUND);
	}
	if (r->pid < 0)
		hm_error("cannot start gdb: %s", hm_strerror(errno));
}

int replay_gdb(const struct replay_options *o)
{
	char *id, path[4096], target[64];
	struct replay_recording rc;
	struct source_state src = { .state = 1 };
	struct rec_source source = { &src, source_peek, source_take };
	struct rewind rw = { &src, path };
	const char *exe;
	struct ready ready;
	int status = prepare(o, &id, &rc, path, sizeof(path)), port = o->port, fd, err;

	if (status) {
		free(id);
		return status;
	}
	/* The program as recorded: its copy, even if the original is gone. */
	exe = rc.binds && rc.binds[0] ? rc.binds[0] : rc.argv[0];
	fd = listen_local(&port);
	if (fd < 0) {
		hm_error("cannot listen on 127.0.0.1:%d: %s", o->port, hm_strerror(fd));
		status = HM_EXIT_INTERNAL;
		goto out;
	}
	snprintf(target, sizeof(target), "target extended-remote 127.0.0.1:%d", port);
	ready = (struct ready){ o, target, exe, 0, 0 };
	err = replay_log_open(path, &src.log);
	if (err) {
		hm_error("cannot replay '%s': events.xz: %s", id, hm_strerror(err));
		status = HM_EXIT_INTERNAL;
		goto out_fd;
	}
	/* gdb on this terminal: its Ctrl-C is gdb's to turn into a stop. */
	rc.opts.debugger_has_terminal = !o->gdbserver_only;
	status = serve_replay(&rc, fd, &source, &rw, &ready);
	replay_log_close(src.log);
	if (ready.pid > 0) {
		int st;

		while (waitpid(ready.pid, &st, 0) < 0 && errno == EINTR)
			;
	}
out_fd:
	close(fd);
out:
	replay_recording_free(&rc);
	free(id);
	return status;
}
