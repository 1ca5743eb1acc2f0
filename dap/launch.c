/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A session's life: initialize (the capabilities: only what works),
 * launch (start the replay child, connect, learn the program), the
 * configuration phase, restart, terminate, disconnect; and the child's
 * output, which becomes output events: its stdout is the guest's stdout
 * as the replay reproduces it, its stderr the guest's stderr, less
 * hermit's own lines ("hermit: ..."), which go to the console category.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dap/internal.h"

void dap_req_initialize(struct dap *d, struct dap_req *r)
{
	cJSON *b = cJSON_CreateObject();

	/* Only what works without DWARF; the DWARF round adds the rest
	 * (conditional breakpoints, gotoTargets, loadedSources, hovers). */
	cJSON_AddBoolToObject(b, "supportsConfigurationDoneRequest", 1);
	cJSON_AddBoolToObject(b, "supportsStepBack", 1);
	cJSON_AddBoolToObject(b, "supportsFunctionBreakpoints", 1);
	cJSON_AddBoolToObject(b, "supportsDataBreakpoints", 1);
	cJSON_AddBoolToObject(b, "supportsDataBreakpointBytes", 1);
	cJSON_AddBoolToObject(b, "supportsInstructionBreakpoints", 1);
	cJSON_AddBoolToObject(b, "supportsSteppingGranularity", 1);
	cJSON_AddBoolToObject(b, "supportsGotoTargetsRequest", 1);
	cJSON_AddBoolToObject(b, "supportsRestartRequest", 1);
	cJSON_AddBoolToObject(b, "supportsTerminateRequest", 1);
	cJSON_AddBoolToObject(b, "supportsReadMemoryRequest", 1);
	cJSON_AddBoolToObject(b, "supportsDisassembleRequest", 1);
	cJSON_AddBoolToObject(b, "supportsConditionalBreakpoints", 1);
	cJSON_AddBoolToObject(b, "supportsHitConditionalBreakpoints", 1);
	cJSON_AddBoolToObject(b, "supportsEvaluateForHovers", 1);
	cJSON_AddBoolToObject(b, "supportsLoadedSourcesRequest", 1);
	cJSON_AddBoolToObject(b, "supportsModulesRequest", 1);
	cJSON_AddItemToObject(b, "exceptionBreakpointFilters", cJSON_CreateArray());
	d->initialized = 1;
	dap_respond(d, r, b);
}

/* AT_ENTRY of the guest's auxv (qXfer:auxv:read), or 0. */
static uint64_t auxv_entry(struct dap *d)
{
	struct hm_buf auxv;
	uint64_t entry = 0;

	hm_buf_init(&auxv);
	dap_read_auxv(d, &auxv);
	for (size_t i = 0; i + 16 <= auxv.len; i += 16) {
		uint64_t type, val;

		memcpy(&type, auxv.data + i, 8);
		memcpy(&val, auxv.data + i + 8, 8);
		if (type == 9) /* AT_ENTRY */
			entry = val;
	}
	hm_buf_free(&auxv);
	return entry;
}

/* The folder of RECORDING (an id, or NULL for the newest), or NULL: the
 * copies of the program and its libraries are read from its files/. */
static char *recording_folder(const char *recording)
{
	char *datadir = hm_datadir_path(), *id = NULL, *dir = NULL;

	if (datadir && (recording || hm_datadir_get_last(datadir, &id) == 0) &&
	    hm_recording_dir(datadir, recording ? recording : id, &dir) < 0)
		dir = NULL;
	free(id);
	free(datadir);
	return dir;
}

static int fill_fds(void *arg, struct pollfd *fds, int max)
{
	struct dap *d = arg;
	int n = 0;

	if (d->child.out >= 0 && n < max)
		fds[n++] = (struct pollfd){ .fd = d->child.out, .events = POLLIN };
	if (d->child.err >= 0 && n < max)
		fds[n++] = (struct pollfd){ .fd = d->child.err, .events = POLLIN };
	return n;
}

static void fds_ready(void *arg, const struct pollfd *fds, int n)
{
	for (int i = 0; i < n; i++) {
		if (fds[i].revents)
			dap_child_output(arg, fds[i].fd);
	}
}

void dap_req_launch(struct dap *d, struct dap_req *r)
{
	const char *recording = NULL, *program = NULL, *hermit = NULL;
	struct dap_stop st;
	char why[512];
	int err;

	d->stop_on_entry = 0;
	if (dap_arg_str(d, r, "recording", 0, &recording) < 0 ||
	    dap_arg_str(d, r, "program", 0, &program) < 0 ||
	    dap_arg_str(d, r, "hermit", 0, &hermit) < 0 ||
	    dap_arg_bool(d, r, "stopOnEntry", &d->stop_on_entry) < 0)
		return;
	if (d->launched || d->ended) {
		dap_fail(d, r, "launch: this session has a replay already");
		return;
	}
	if (d->o.no_launch) {
		dap_fail(d, r, "launch: this adapter starts no replays (a test build)");
		return;
	}
	if (recording && !hm_recording_id_valid(recording)) {
		dap_fail(d, r, "launch: '%s' is no recording id (see 'hermit record list')",
			 recording);
		return;
	}
	if (hermit) {
		free(d->hermit);
		d->hermit = xstrdup(hermit);
	} else if (!d->hermit) {
		d->hermit = dap_default_hermit();
	}
	err = dap_child_start(&d->child, d->hermit, recording, why, sizeof(why));
	if (err) {
		dap_fail(d, r, "launch: %s", why);
		return;
	}
	d->rsp.fill = fill_fds;
	d->rsp.ready = fds_ready;
	d->rsp.arg = d;
	err = dap_rsp_connect(&d->rsp, d->child.port);
	if (!err)
		err = dap_rsp_request(&d->rsp, "?");
	if (!err && dap_rsp_parse_stop((char *)d->rsp.pkt.data, &st) < 0)
		err = -EPROTO;
	if (err) {
		dap_rsp_close(&d->rsp);
		dap_rsp_init(&d->rsp);
		dap_child_stop(&d->child);
		dap_fail(d, r, "launch: cannot talk to the replay on 127.0.0.1:%d: %s",
			 d->child.port, hm_strerror(err));
		return;
	}
	d->tid = st.tid;
	if (!program)
		program = d->child.exe;
	if (program) {
		char *dir = recording_folder(recording);

		err = dap_source_open(program, dir, &d->src);
		free(dir);
		if (err) {
			char line[600];
			int n = snprintf(line, sizeof(line),
					 "hermit-dap: no symbols from '%s': %s\n", program,
					 hm_strerror(err));

			dap_output(d, "console", line, (size_t)n < sizeof(line) ? (size_t)n : 0);
		} else {
			dap_source_set_entry(d->src, auxv_entry(d));
		}
	}
	d->launched = 1;
	dap_update_threads(d, 1);
	dap_respond(d, r, NULL);
	dap_event(d, "initialized", NULL);
}

void dap_req_configuration_done(struct dap *d, struct dap_req *r)
{
	dap_respond(d, r, NULL);
	if (!d->launched || d->ended || d->run != DAP_RUN_NONE)
		return;
	if (d->stop_on_entry) {
		cJSON *b = cJSON_CreateObject();

		dap_bp_sync(d);
		dap_bp_snapshot(d);
		cJSON_AddStringToObject(b, "reason", "entry");
		cJSON_AddStringToObject(b, "description", "the first instruction of the recording");
		cJSON_AddNumberToObject(b, "threadId", d->tid);
		cJSON_AddBoolToObject(b, "allThreadsStopped", 1);
		dap_event(d, "stopped", b);
	} else {
		dap_resume(d, DAP_RUN_CONT, d->tid, "pause", NULL);
	}
}

void dap_lost(struct dap *d, const char *why)
{
	char line[512];
	int n;

	if (d->ended)
		return;
	n = snprintf(line, sizeof(line), "hermit-dap: %s\n", why);
	dap_output(d, "important", line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	d->ended = 1;
	d->run = DAP_RUN_NONE;
	dap_rsp_close(&d->rsp);
	dap_rsp_init(&d->rsp);
	dap_event(d, "terminated", NULL);
}

void dap_req_terminate(struct dap *d, struct dap_req *r)
{
	dap_respond(d, r, NULL);
	if (!d->ended) {
		d->ended = 1;
		dap_rsp_close(&d->rsp);
		dap_rsp_init(&d->rsp);
		dap_child_stop(&d->child);
		dap_event(d, "terminated", NULL);
	}
}

void dap_req_disconnect(struct dap *d, struct dap_req *r)
{
	/* (the child ends when its connection closes: dap_free) */
	dap_respond(d, r, NULL);
	d->quit = 1;
}

void dap_req_restart(struct dap *d, struct dap_req *r)
{
	int err;

	if (d->run != DAP_RUN_NONE) {
		dap_fail(d, r, "restart: the replay is running; pause it first");
		return;
	}
	/* vRun: the stub goes back to the first instruction and says so
	 * when it is there (a stop reply, later). */
	dap_forget_stop(d);
	err = dap_rsp_send(&d->rsp, "vRun;", 5);
	if (err) {
		dap_fail(d, r, "restart: %s", hm_strerror(err));
		return;
	}
	d->run = DAP_RUN_QUERY;
	d->run_tid = 0;
	d->run_reason = "entry";
	d->run_desc = "back at the first instruction of the recording";
	dap_respond(d, r, NULL);
}

/* Lines of the child's stderr: hermit's own to the console, the rest is
 * the guest's. */
static void err_lines(struct dap *d, int flush)
{
	struct hm_buf *b = &d->child.eline;
	size_t start = 0;

	for (size_t i = 0; i < b->len; i++) {
		const char *line = (const char *)b->data + start;

		if (b->data[i] != '\n')
			continue;
		dap_output(d, strncmp(line, "hermit: ", 8) == 0 ? "console" : "stderr", line,
			   i + 1 - start);
		start = i + 1;
	}
	if (flush && start < b->len) {
		dap_output(d, "stderr", (const char *)b->data + start, b->len - start);
		start = b->len;
	}
	if (start) {
		memmove(b->data, b->data + start, b->len - start);
		b->len -= start;
	}
}

void dap_child_output(struct dap *d, int fd)
{
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		if (fd == d->child.err)
			err_lines(d, 1);
		close(fd);
		if (fd == d->child.out)
			d->child.out = -1;
		else if (fd == d->child.err)
			d->child.err = -1;
		return;
	}
	if (fd == d->child.out) {
		dap_output(d, "stdout", buf, (size_t)n);
	} else {
		hm_buf_add(&d->child.eline, buf, (size_t)n);
		err_lines(d, d->child.eline.len > 4096);
	}
}

void dap_drain_output(struct dap *d)
{
	for (;;) {
		struct pollfd fds[2];
		int n = fill_fds(d, fds, 2), any = 0;

		if (!n || poll(fds, (nfds_t)n, 0) <= 0)
			break;
		for (int i = 0; i < n; i++) {
			if (fds[i].revents) {
				dap_child_output(d, fds[i].fd);
				any = 1;
			}
		}
		if (!any)
			break;
	}
	err_lines(d, 1);
}
