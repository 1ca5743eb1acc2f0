/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The adapter's loop: one poll over the client's input, the connection to
 * the stub (a resume's stop reply, or its end) and the replay child's
 * stdout and stderr (output events). Single-threaded: a request that
 * needs the stub waits for its reply in dap_rsp_wait(), which serves the
 * child's output meanwhile, so a full pipe can never stop the replay.
 * When nothing is ready, it opens the DWARF of one more of the
 * recording's files (dap_source_prefetch), then looks again: the first
 * stop in a library then finds its symbols read.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dap/internal.h"

static int send_fd(void *io, const char *bytes, size_t len)
{
	return hm_write_all(*(int *)io, bytes, len);
}

/* The stub's connection has something: stop replies, or its end. */
static void from_stub(struct dap *d)
{
	int gone = dap_rsp_fill(&d->rsp) < 0, got;

	while (!d->ended && (got = dap_rsp_next(&d->rsp)) != 0) {
		struct dap_stop st;

		if (got < 0 || d->run == DAP_RUN_NONE ||
		    dap_rsp_parse_stop((char *)d->rsp.pkt.data, &st) < 0) {
			hm_debug("dap: a packet from the stub that answers nothing: %s",
				 got < 0 ? "(bad checksum)" : (char *)d->rsp.pkt.data);
			continue;
		}
		dap_stopped(d, &st);
	}
	if (gone && !d->ended) {
		char why[160];

		dap_drain_output(d);
		dap_child_gone(&d->child);
		if (d->child.pid)
			snprintf(why, sizeof(why), "the replay closed its connection");
		else if (WIFSIGNALED(d->child.status))
			snprintf(why, sizeof(why),
				 "the replay ended: hermit was killed by signal %d",
				 WTERMSIG(d->child.status));
		else
			snprintf(why, sizeof(why), "the replay ended: hermit exited with status %d",
				 WEXITSTATUS(d->child.status));
		dap_lost(d, why);
	}
}

int dap_serve(const struct dap_options *o, int in_fd, int out_fd)
{
	struct dap *d = dap_new(o, send_fd, &out_fd);
	int in_open = 1, status;

	signal(SIGPIPE, SIG_IGN);
	while (!d->quit && in_open) {
		struct pollfd fds[4];
		int n = 0, rsp_at = -1, out_at = -1, err_at = -1, ready;
		int prefetch = !o->no_prefetch && d->src && !d->prefetched;

		fds[n++] = (struct pollfd){ .fd = in_fd, .events = POLLIN };
		if (d->rsp.fd >= 0) {
			rsp_at = n;
			fds[n++] = (struct pollfd){ .fd = d->rsp.fd, .events = POLLIN };
		}
		if (d->child.out >= 0) {
			out_at = n;
			fds[n++] = (struct pollfd){ .fd = d->child.out, .events = POLLIN };
		}
		if (d->child.err >= 0) {
			err_at = n;
			fds[n++] = (struct pollfd){ .fd = d->child.err, .events = POLLIN };
		}
		/* (a bound only so that a child that dies unseen is noticed) */
		ready = poll(fds, (nfds_t)n, prefetch ? 0 : 1000);
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			hm_error("hermit-dap: poll: %s", hm_strerror(-errno));
			break;
		}
		if (ready == 0 && prefetch) {
			d->prefetched = !dap_source_prefetch(d->src);
			continue;
		}
		if (out_at >= 0 && fds[out_at].revents)
			dap_child_output(d, fds[out_at].fd);
		if (err_at >= 0 && fds[err_at].revents)
			dap_child_output(d, fds[err_at].fd);
		if (rsp_at >= 0 && fds[rsp_at].revents && d->rsp.fd >= 0)
			from_stub(d);
		if (d->launched && !d->ended && d->rsp.fd >= 0 && dap_child_gone(&d->child)) {
			/* the connection's end says the rest */
			from_stub(d);
		}
		if (fds[0].revents) {
			char buf[65536];
			ssize_t got = read(in_fd, buf, sizeof(buf));

			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				in_open = 0;
			else
				dap_input(d, buf, (size_t)got);
		}
	}
	status = d->quit ? 0 : 1;
	dap_free(d);
	return status;
}
