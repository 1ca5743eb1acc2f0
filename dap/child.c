/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The replay child: `hermit replay [ID] --gdbserver-only`, in a process
 * group of its own, its stdout and stderr through pipes. It serves RSP on
 * 127.0.0.1 at a free port it picks itself and says which on its first
 * line of stdout (replayer/session.c: "gdb -ex 'target extended-remote
 * 127.0.0.1:PORT' EXE"), so no port is ever guessed or raced for. What it
 * writes after that is the guest's output as the replay reproduces it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dap/internal.h"

void dap_child_init(struct dap_child *c)
{
	memset(c, 0, sizeof(*c));
	c->out = c->err = -1;
	hm_buf_init(&c->eline);
}

char *dap_default_hermit(void)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 8);

	if (n > 0) {
		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash) {
			strcpy(slash + 1, "hermit");
			if (access(self, X_OK) == 0)
				return xstrdup(self);
		}
	}
	return xstrdup("hermit");
}

/* The port in "... 127.0.0.1:PORT' EXE": 0 and *PORT, *EXE; or -1. */
static int parse_banner(const char *line, int *port, char **exe)
{
	const char *p = strstr(line, "127.0.0.1:"), *q;
	char *end;
	long v;

	if (!p)
		return -1;
	v = strtol(p + 10, &end, 10);
	if (end == p + 10 || v <= 0 || v > 65535)
		return -1;
	*port = (int)v;
	q = strchr(end, ' ');
	if (q && q[1])
		*exe = xstrdup(q + 1);
	return 0;
}

int dap_child_start(struct dap_child *c, const char *hermit, const char *recording, char *why,
		    size_t size)
{
	int out[2], err[2];
	struct hm_buf line, errs;
	int r = 0;

	if (pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		r = -errno;
		close(out[0]);
		close(out[1]);
		return r;
	}
	c->pid = fork();
	if (c->pid == 0) {
		const char *argv[6];
		int i = 0, null = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		if (null >= 0)
			dup2(null, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		argv[i++] = hermit;
		argv[i++] = "replay";
		if (recording && *recording)
			argv[i++] = recording;
		argv[i++] = "--gdbserver-only";
		argv[i] = NULL;
		execvp(hermit, (char *const *)argv);
		fprintf(stderr, "hermit-dap: cannot run '%s': %s\n", hermit, strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	if (c->pid < 0) {
		r = -errno;
		close(out[0]);
		close(err[0]);
		snprintf(why, size, "cannot start '%s': %s", hermit, hm_strerror(r));
		c->pid = 0;
		return r;
	}
	c->out = out[0];
	c->err = err[0];
	/* Its first line says where it serves; its stderr says why not. */
	hm_buf_init(&line);
	hm_buf_init(&errs);
	for (;;) {
		struct pollfd p[2] = { { c->out, POLLIN, 0 }, { c->err, POLLIN, 0 } };
		char buf[512];
		ssize_t n;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (p[1].revents) {
			n = read(c->err, buf, sizeof(buf));
			if (n > 0 && errs.len < 4096)
				hm_buf_add(&errs, buf, (size_t)n);
		}
		if (!p[0].revents)
			continue;
		/* byte by byte: what follows the line is the guest's */
		n = read(c->out, buf, 1);
		if (n <= 0) {
			r = -ECHILD;
			break;
		}
		if (buf[0] != '\n') {
			if (line.len < 8192)
				hm_buf_add(&line, buf, 1);
			continue;
		}
		hm_buf_add(&line, "", 1);
		if (parse_banner((char *)line.data, &c->port, &c->exe) < 0)
			r = -EPROTO;
		break;
	}
	if (r) {
		char *nl;

		hm_buf_add(&errs, "", 1);
		/* its last line says why */
		while (errs.len > 1 && ((char *)errs.data)[errs.len - 2] == '\n')
			((char *)errs.data)[--errs.len - 1] = 0;
		nl = strrchr((char *)errs.data, '\n');
		snprintf(why, size, "'%s replay' did not start: %s", hermit,
			 errs.len > 1	? (nl ? nl + 1 : (char *)errs.data)
			 : r == -EPROTO ? "it printed no port"
					: "it ended");
		dap_child_stop(c);
	}
	hm_buf_free(&line);
	hm_buf_free(&errs);
	return r;
}

int dap_child_gone(struct dap_child *c)
{
	int st;

	if (!c->pid)
		return 1;
	if (waitpid(c->pid, &st, WNOHANG) == c->pid) {
		c->status = st;
		c->pid = 0;
		return 1;
	}
	return 0;
}

void dap_child_stop(struct dap_child *c)
{
	if (c->pid) {
		/* Its connection closed, it ends by itself; else, after a
		 * moment's grace, it is ended. */
		for (int i = 0; i < 50 && !dap_child_gone(c); i++)
			usleep(100 * 1000);
		if (c->pid) {
			kill(-c->pid, SIGKILL);
			kill(c->pid, SIGKILL);
			while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
				;
			c->pid = 0;
		}
	}
	if (c->out >= 0)
		close(c->out);
	if (c->err >= 0)
		close(c->err);
	c->out = c->err = -1;
	free(c->exe);
	c->exe = NULL;
	hm_buf_free(&c->eline);
}
