/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: job control. Each case starts a child in a process group of its
 * own (so that the group is not orphaned and SIGTSTP, SIGTTIN and SIGTTOU
 * stop it) and prints what waitpid(2) reports:
 *
 *   signals  SIGSTOP, SIGTSTP, SIGTTIN and SIGTTOU each stop a child that
 *            waits in a read (WUNTRACED), SIGCONT continues it
 *            (WCONTINUED), and it ends as it would have
 *   self     a child stops itself with raise(SIGSTOP)
 *   futex    a child that waits in a futex is stopped, continued, and
 *            woken by a signal
 *   threads  a child of 8 threads (spinning and waiting on a condition
 *            variable) stops as a whole, then goes on
 *   orphan   a child of 16 threads stops itself from a thread; its parent
 *            leaves it stopped, and the kernel's SIGHUP and SIGCONT to the
 *            orphaned group end it
 *   tostop   a background process group writes to a terminal (a pty this
 *            guest makes) with TOSTOP set: SIGTTOU stops it until its
 *            session leader puts it in the foreground and continues it
 *
 * Arguments name the cases, in order.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>
#include <termios.h>
#include <sys/ioctl.h>
#include <linux/futex.h>
#include <sys/syscall.h>

static void report(const char *what, int status)
{
	if (WIFEXITED(status))
		printf("%s: exited %d\n", what, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("%s: killed by %d\n", what, WTERMSIG(status));
	else if (WIFSTOPPED(status))
		printf("%s: stopped by %d\n", what, WSTOPSIG(status));
	else if (WIFCONTINUED(status))
		printf("%s: continued\n", what);
	else
		printf("%s: status %#x\n", what, status);
	fflush(stdout);
}

static int pfd[2];

static void wait_report(pid_t pid, int flags, const char *what)
{
	int st;
	pid_t got = waitpid(pid, &st, flags);
	if (got != pid) {
		perror("waitpid");
		exit(1);
	}
	report(what, st);
}

static void one(int sig)
{
	char c;
	pid_t pid;
	char name[64];

	if (pipe(pfd))
		exit(1);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1)
			_exit(2);
		_exit(3);
	}
	setpgid(pid, pid);
	close(pfd[0]);
	kill(pid, sig);
	snprintf(name, sizeof(name), "signal %d", sig);
	wait_report(pid, WUNTRACED, name);
	kill(pid, SIGCONT);
	wait_report(pid, WCONTINUED, name);
	if (write(pfd[1], "x", 1) != 1)
		exit(1);
	close(pfd[1]);
	wait_report(pid, 0, name);
}

/* The child ends only once the parent has seen it continued: an exit
 * before would be what that waitpid reports. */
static void wait_go(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		_exit(2);
}

static void selfstop(void)
{
	pid_t pid;

	if (pipe(pfd))
		exit(1);
	pid = fork();
	if (pid == 0) {
		close(pfd[1]);
		setpgid(0, 0);
		raise(SIGSTOP);
		wait_go(pfd[0]);
		_exit(5);
	}
	close(pfd[0]);
	setpgid(pid, pid);
	wait_report(pid, WUNTRACED, "raise");
	kill(pid, SIGCONT);
	wait_report(pid, WCONTINUED, "raise");
	if (write(pfd[1], "x", 1) != 1)
		exit(1);
	close(pfd[1]);
	wait_report(pid, 0, "raise");
}

static volatile sig_atomic_t woken;
static int word;

static void on_usr1(int sig)
{
	(void)sig;
	woken = 1;
}

/* A child that waits in a futex (a wait hermit emulates) is stopped and
 * continued; SIGUSR1, without SA_RESTART, then ends its wait. */
static void futexwait(void)
{
	struct sigaction sa;
	pid_t pid;
	char c;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	if (pipe(pfd))
		exit(1);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		close(pfd[0]);
		/* (the parent stops it once it is about to wait, or waits) */
		if (write(pfd[1], "r", 1) != 1)
			_exit(2);
		while (!woken)
			syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
		_exit(6);
	}
	setpgid(pid, pid);
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1)
		exit(1);
	close(pfd[0]);
	kill(pid, SIGSTOP);
	wait_report(pid, WUNTRACED, "futex");
	kill(pid, SIGCONT);
	wait_report(pid, WCONTINUED, "futex");
	kill(pid, SIGUSR1);
	wait_report(pid, 0, "futex");
}

static int go;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *spinner(void *arg)
{
	volatile unsigned long n = 0;
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		n++;
	return arg;
}

static void *sleeper(void *arg)
{
	pthread_mutex_lock(&mu);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return arg;
}

static void threads(int nthreads)
{
	char c;
	pid_t pid;

	if (pipe(pfd))
		exit(1);
	pid = fork();
	if (pid == 0) {
		pthread_t th[64];
		setpgid(0, 0);
		close(pfd[1]);
		for (int i = 0; i < nthreads; i++)
			pthread_create(&th[i], NULL, i % 2 ? spinner : sleeper, NULL);
		if (read(pfd[0], &c, 1) != 1)
			_exit(2);
		pthread_mutex_lock(&mu);
		__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
		for (int i = 0; i < nthreads; i++)
			pthread_join(th[i], NULL);
		_exit(4);
	}
	setpgid(pid, pid);
	close(pfd[0]);
	kill(pid, SIGSTOP);
	wait_report(pid, WUNTRACED, "threads");
	kill(pid, SIGCONT);
	wait_report(pid, WCONTINUED, "threads");
	if (write(pfd[1], "x", 1) != 1)
		exit(1);
	close(pfd[1]);
	wait_report(pid, 0, "threads");
}

/* A write to the terminal from a background process group, with TOSTOP
 * set: SIGTTOU stops it until its group is in the foreground. */
static void tostop(void)
{
	const char msg[] = "from the background\n";
	pid_t leader, bg;
	char buf[128];
	ssize_t n;
	int m, s, st;

	fflush(stdout);
	leader = fork();
	if (leader == 0) {
		struct termios tio;

		m = posix_openpt(O_RDWR | O_NOCTTY);
		if (m < 0 || grantpt(m) || unlockpt(m)) {
			perror("posix_openpt");
			_exit(1);
		}
		if (setsid() < 0) {
			perror("setsid");
			_exit(1);
		}
		s = open(ptsname(m), O_RDWR);
		if (s < 0 || ioctl(s, TIOCSCTTY, 0) < 0) {
			perror("pty");
			_exit(1);
		}
		tcgetattr(s, &tio);
		tio.c_lflag |= TOSTOP;
		tio.c_oflag &= ~OPOST;
		tcsetattr(s, TCSANOW, &tio);
		if (pipe(pfd))
			_exit(1);
		bg = fork();
		if (bg == 0) {
			close(pfd[1]);
			setpgid(0, 0);
			n = write(s, msg, sizeof(msg) - 1);
			wait_go(pfd[0]);
			_exit(n == (ssize_t)sizeof(msg) - 1 ? 0 : 1);
		}
		close(pfd[0]);
		setpgid(bg, bg);
		wait_report(bg, WUNTRACED, "tostop");
		if (tcsetpgrp(s, bg) < 0) {
			perror("tcsetpgrp");
			_exit(1);
		}
		kill(bg, SIGCONT);
		wait_report(bg, WCONTINUED, "tostop");
		if (write(pfd[1], "x", 1) != 1)
			_exit(1);
		close(pfd[1]);
		wait_report(bg, 0, "tostop");
		n = read(m, buf, sizeof(buf) - 1);
		if (n < 0) {
			perror("read");
			_exit(1);
		}
		buf[n] = 0;
		printf("tostop: the terminal got: %s", buf);
		_exit(0);
	}
	if (waitpid(leader, &st, 0) != leader || !WIFEXITED(st) || WEXITSTATUS(st))
		printf("tostop: the session leader failed (status %#x)\n", st);
}

static void *stopper(void *arg)
{
	kill(getpid(), SIGSTOP);
	return arg;
}

/* A process of many threads stops itself and its parent leaves it
 * stopped: its process group, orphaned, gets SIGHUP and SIGCONT from the
 * kernel (kill_orphaned_pgrp()), and it ends. */
static void orphan(int nthreads)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		pthread_t th[64];

		setpgid(0, 0);
		for (int i = 0; i < nthreads; i++)
			pthread_create(&th[i], NULL, i ? (i % 2 ? spinner : sleeper) : stopper,
				       NULL);
		for (int i = 0; i < nthreads; i++)
			pthread_join(th[i], NULL);
		_exit(4);
	}
	setpgid(pid, pid);
	wait_report(pid, WUNTRACED, "orphan");
	printf("orphan: the parent leaves it stopped\n");
	exit(0);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* (a test harness may have it ignored: children would not wait) */
	signal(SIGCHLD, SIG_DFL);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "signals")) {
			one(SIGSTOP);
			one(SIGTSTP);
			one(SIGTTIN);
			one(SIGTTOU);
		} else if (!strcmp(argv[i], "futex")) {
			futexwait();
		} else if (!strcmp(argv[i], "self")) {
			selfstop();
		} else if (!strcmp(argv[i], "threads")) {
			threads(8);
		} else if (!strcmp(argv[i], "orphan")) {
			orphan(16);
		} else if (!strcmp(argv[i], "tostop")) {
			tostop();
		} else {
			fprintf(stderr, "jobctl: no case '%s'\n", argv[i]);
			return 2;
		}
	}
	return 0;
}
