/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ctrl-C and Ctrl-\ sent to hermit alone. In a terminal they reach every
 * process of the foreground process group (n_tty's isig()), hermit and the
 * guest alike: the recorder holds the guest's back to a scheduling point
 * and delivers it there (recorder/signals.c), and hermit stays to report
 * how the guest ended. `kill -INT <hermit's pid>` reaches hermit alone, so
 * hermit passes it on to the processes the terminal would have reached
 * besides itself: its descendants in its process group (the guest's, and
 * the launch helpers, which ignore it). A guest that handles SIGINT runs
 * on; one that does not dies, and hermit exits 130 (128 + SIGINT).
 *
 * A signal the guest sends to its whole process group (kill(0, sig) in
 * abort-like code, killpg) reaches hermit too: SIGINT, SIGQUIT, SIGTERM,
 * SIGHUP and SIGALRM from a descendant of hermit are left to the guest,
 * and hermit stays to report how it ended (SIGKILL and SIGSTOP cannot be
 * caught). From anyone else SIGTERM, SIGHUP and SIGALRM do what they
 * always did: end hermit. (An outside process whose pid is the one a
 * guest process has in its namespace is taken for it.)
 *
 * The handler finds them itself, with async-signal-safe calls only
 * (signal-safety(7): open, read, close, kill, and getdents64 through
 * syscall(2)), from the parent and process group fields of each
 * /proc/<pid>/stat (proc(5)).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"

#define MAX_PROCS 32768 /* processes of the host looked at; more are not */

struct proc {
	pid_t pid, ppid, pgrp;
	int ours; /* a descendant of hermit */
};

/* The handler's own: it runs with both signals blocked, so never twice. */
static struct proc procs[MAX_PROCS];
static pid_t hermit_pid; /* forks that have not exec'd yet inherit the handler */

/* The decimal number at *P (moved past it); -1 when there is none. */
static long parse_number(const char **p)
{
	long v = 0;

	if (**p < '0' || **p > '9')
		return -1;
	while (**p >= '0' && **p <= '9')
		v = v * 10 + (*(*p)++ - '0');
	return v;
}

/* /proc/PID/FILE into BUF (SIZE bytes, ended by a 0): 0, or -1. */
static int read_proc(const char *pid, const char *file, char *buf, size_t size)
{
	char path[64] = "/proc/";
	size_t n = strlen(path), len = strlen(file);
	ssize_t got;
	int fd;

	for (const char *s = pid; *s && n < sizeof(path) - len - 2; s++)
		path[n++] = *s;
	path[n++] = '/';
	memcpy(path + n, file, len + 1);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	got = read(fd, buf, size - 1);
	close(fd);
	if (got <= 0)
		return -1;
	buf[got] = 0;
	return 0;
}

/* Parent and process group of process PID from /proc/PID/stat, "PID
 * (COMM) STATE PPID PGRP ...", COMM being anything up to the last ')'. */
static int read_stat(const char *pid, struct proc *p)
{
	char buf[256];
	const char *c, *paren = NULL;

	if (read_proc(pid, "stat", buf, sizeof(buf)) < 0)
		return -1;
	for (c = buf; *c; c++) {
		if (*c == ')')
			paren = c;
	}
	if (!paren || paren[1] != ' ' || !paren[2] || paren[3] != ' ')
		return -1;
	c = paren + 4;
	p->ppid = (pid_t)parse_number(&c);
	if (*c++ != ' ')
		return -1;
	p->pgrp = (pid_t)parse_number(&c);
	return p->ppid < 0 || p->pgrp < 0 ? -1 : 0;
}

/* Hermit's processes and theirs (procs[].ours); how many in *N. */
static void scan(size_t *nout)
{
	char buf[4096];
	size_t n = 0;
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC), more = 1;
	long got;

	*nout = 0;
	if (fd < 0)
		return;
	while (n < MAX_PROCS && (got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long at = 0; at < got && n < MAX_PROCS;) {
			/* struct linux_dirent64: ino, off, reclen, type, name */
			unsigned short reclen;
			const char *name = buf + at + 19, *c = name;

			memcpy(&reclen, buf + at + 16, sizeof(reclen));
			at += reclen;
			procs[n].pid = (pid_t)parse_number(&c);
			if (procs[n].pid <= 0 || *c || read_stat(name, &procs[n]) < 0)
				continue;
			procs[n].ours = procs[n].pid == hermit_pid;
			n++;
		}
	}
	close(fd);
	*nout = n;
	/* Children before their parents or after: mark until nothing changes. */
	while (more) {
		more = 0;
		for (size_t i = 0; i < n; i++) {
			if (procs[i].ours)
				continue;
			for (size_t j = 0; j < n; j++) {
				if (procs[j].ours && procs[j].pid == procs[i].ppid) {
					procs[i].ours = more = 1;
					break;
				}
			}
		}
	}
}

/* The pid of process PID in its own pid namespace: the last of the
 * NSpid line of /proc/PID/status; -1 when it cannot be read. */
static long inner_pid(pid_t pid)
{
	char buf[2048], num[16], dec[16];
	const char *c;
	size_t k = 0, n = 0;
	long last = -1;

	/* (the digits of PID, backwards, then forwards) */
	do {
		num[k++] = (char)('0' + pid % 10);
		pid /= 10;
	} while (pid && k < sizeof(num) - 1);
	while (k)
		dec[n++] = num[--k];
	dec[n] = 0;
	if (read_proc(dec, "status", buf, sizeof(buf)) < 0)
		return -1;
	for (c = buf; *c; c++) {
		if (strncmp(c, "\nNSpid:", 7) != 0)
			continue;
		for (c += 7; *c && *c != '\n';) {
			if (*c == ' ' || *c == '\t')
				c++;
			else if ((last = parse_number(&c)) < 0)
				break;
		}
		break;
	}
	return last;
}

/* Whether PID, a signal's sender, is one of hermit's descendants (the
 * guest, or a launch helper). The kernel names a sender in the guest's
 * pid namespace by its pid there, so that is compared too. */
static int ours(pid_t pid)
{
	size_t n;

	scan(&n);
	for (size_t i = 0; i < n; i++) {
		if (!procs[i].ours || procs[i].pid == hermit_pid)
			continue;
		if (procs[i].pid == pid || inner_pid(procs[i].pid) == pid)
			return 1;
	}
	return 0;
}

/* Send SIG to hermit's descendants in its process group. */
static void forward(int sig)
{
	pid_t pgrp = getpgrp();
	size_t n;

	scan(&n);
	for (size_t i = 0; i < n; i++) {
		if (procs[i].ours && procs[i].pid != hermit_pid && procs[i].pgrp == pgrp)
			kill(procs[i].pid, sig);
	}
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)uc;
	/* The guest's own signal to its process group (kill(0, sig),
	 * killpg), which hermit shares: it reached the guest already, and
	 * hermit stays to see what it did. */
	if (getpid() == hermit_pid && si->si_code <= 0 && ours(si->si_pid)) {
		errno = saved;
		return;
	}
	if (sig != SIGINT && sig != SIGQUIT) {
		/* From anyone else: what it would have done to hermit. */
		signal(sig, SIG_DFL);
		kill(getpid(), sig);
	} else if (getpid() == hermit_pid && si->si_code <= 0 && si->si_pid != hermit_pid) {
		/* The terminal's (SI_KERNEL) reached the whole group already;
		 * one that hermit sent itself is not for passing on. */
		forward(sig);
	}
	errno = saved;
}

/* SIGINT and SIGQUIT are passed on; the others are hermit's unless its
 * guest sent them to the process group they share. */
static const int caught[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGALRM };

void cli_forward_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	/* A handler, not SIG_IGN, which the guest would inherit; SA_RESTART,
	 * so that the tracer's waitpid(2) goes on. */
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		sigaddset(&sa.sa_mask, caught[i]);
	hermit_pid = getpid();
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		sigaction(caught[i], &sa, NULL);
}
