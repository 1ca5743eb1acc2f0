/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: signal(7), "Interruption of system calls and library functions by
 * signal handlers". A worker thread blocks in one call; the main thread
 * sends it SIGUSR1, whose handler has SA_RESTART (or, with the argument
 * "norestart", has not), then gives the call what it waits for. Calls of
 * the first list are restarted with SA_RESTART and end with what they
 * waited for; calls of the second list fail with EINTR whatever the flag.
 * Each case prints its name, what the call returned and whether the
 * handler ran, nothing that depends on timing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sleeps.h"
#include <linux/futex.h>

static volatile sig_atomic_t handled;
static volatile int blocking;
static int restart_flag;
static char tmpdir[64];

/* What the cases share: a pipe, a socket pair, and so on. */
static int pfd[2], sfd[2], efd, semid, msqid, infd, lfd, lsock;
static uint32_t word;
static pid_t child;
static aio_context_t aio;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}



/* Whether the worker waits in its call (or is gone): its state in /proc
 * is not R. Natively a busy host can take longer than any pause to get it
 * there; under hermit it is stopped whenever the main thread runs. */
static pid_t worker_tid;
static int worker_done;

static int worker_waits(void)
{
	/* (a thread that ended leaves /proc when the kernel pleases) */
	return __atomic_load_n(&worker_done, __ATOMIC_SEQ_CST) || thread_sleeps(worker_tid);
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static const char *errname(int e)
{
	switch (e) {
	case EINTR:
		return "EINTR";
	case EAGAIN:
		return "EAGAIN";
	case ENOSYS:
		return "ENOSYS";
	case EINVAL:
		return "EINVAL";
	default:
		return strerror(e);
	}
}

static struct timespec ten_s(void)
{
	return (struct timespec){ 10, 0 };
}

/* ---- the second list: never restarted ---- */

static long c_poll(void)
{
	struct pollfd p = { pfd[0], POLLIN, 0 };

	return poll(&p, 1, -1);
}

static long c_poll_timed(void)
{
	struct pollfd p = { pfd[0], POLLIN, 0 };

	return poll(&p, 1, 10000);
}

static long c_ppoll(void)
{
	struct pollfd p = { pfd[0], POLLIN, 0 };

	return ppoll(&p, 1, NULL, NULL);
}

static long c_ppoll_timed(void)
{
	struct pollfd p = { pfd[0], POLLIN, 0 };
	struct timespec to = ten_s();

	return ppoll(&p, 1, &to, NULL);
}

static long c_select(void)
{
	fd_set r;

	FD_ZERO(&r);
	FD_SET(pfd[0], &r);
	return select(pfd[0] + 1, &r, NULL, NULL, NULL);
}

static long c_select_timed(void)
{
	struct timeval tv = { 10, 0 };
	fd_set r;

	FD_ZERO(&r);
	FD_SET(pfd[0], &r);
	return select(pfd[0] + 1, &r, NULL, NULL, &tv);
}

static long c_pselect(void)
{
	fd_set r;

	FD_ZERO(&r);
	FD_SET(pfd[0], &r);
	return pselect(pfd[0] + 1, &r, NULL, NULL, NULL, NULL);
}

static long c_pselect_timed(void)
{
	struct timespec to = ten_s();
	fd_set r;

	FD_ZERO(&r);
	FD_SET(pfd[0], &r);
	return pselect(pfd[0] + 1, &r, NULL, NULL, &to, NULL);
}

static long c_epoll_wait(void)
{
	struct epoll_event ev;

	return epoll_wait(efd, &ev, 1, -1);
}

static long c_epoll_wait_timed(void)
{
	struct epoll_event ev;

	return epoll_wait(efd, &ev, 1, 10000);
}

static long c_epoll_pwait(void)
{
	struct epoll_event ev;

	return epoll_pwait(efd, &ev, 1, -1, NULL);
}

static long c_epoll_pwait_timed(void)
{
	struct epoll_event ev;

	return epoll_pwait(efd, &ev, 1, 10000, NULL);
}

static long c_epoll_pwait2(void)
{
	struct epoll_event ev;

	return syscall(SYS_epoll_pwait2, efd, &ev, 1, NULL, NULL, 8);
}

static long c_epoll_pwait2_timed(void)
{
	struct epoll_event ev;
	struct timespec to = ten_s();

	return syscall(SYS_epoll_pwait2, efd, &ev, 1, &to, NULL, 8);
}

static long c_sigwaitinfo(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	return sigwaitinfo(&s, NULL);
}

static long c_sigtimedwait(void)
{
	struct timespec to = ten_s();
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	return sigtimedwait(&s, NULL, &to);
}

static long c_sigsuspend(void)
{
	sigset_t s;

	sigprocmask(SIG_BLOCK, NULL, &s);
	return sigsuspend(&s);
}

static long c_pause(void)
{
	return pause();
}

static long c_nanosleep(void)
{
	struct timespec to = ten_s(), rem = { -1, -1 };
	long n = nanosleep(&to, &rem);
	int e = errno;

	printf("  nanosleep left %s\n",
	       rem.tv_sec >= 0 && rem.tv_sec < 10 && rem.tv_nsec >= 0 && (rem.tv_sec || rem.tv_nsec)
		       ? "between 0 and 10 s"
		       : "wrong");
	errno = e;
	return n;
}

static long c_clock_nanosleep(void)
{
	struct timespec to = ten_s(), rem = { -1, -1 };
	int e = clock_nanosleep(CLOCK_MONOTONIC, 0, &to, &rem);

	printf("  clock_nanosleep left %s\n",
	       rem.tv_sec >= 0 && rem.tv_sec < 10 && rem.tv_nsec >= 0 && (rem.tv_sec || rem.tv_nsec)
		       ? "between 0 and 10 s"
		       : "wrong");
	errno = e;
	return e ? -1 : 0;
}

static long c_clock_nanosleep_abs(void)
{
	struct timespec to, rem = { -7, -7 };
	int e;

	clock_gettime(CLOCK_MONOTONIC, &to);
	to.tv_sec += 10;
	e = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &to, &rem);
	printf("  absolute clock_nanosleep left rem %s\n",
	       rem.tv_sec == -7 && rem.tv_nsec == -7 ? "alone" : "changed");
	errno = e;
	return e ? -1 : 0;
}

static long c_semop(void)
{
	struct sembuf op = { 0, -1, 0 };

	return semop(semid, &op, 1);
}

static long c_semtimedop(void)
{
	struct sembuf op = { 0, -1, 0 };
	struct timespec to = ten_s();

	return semtimedop(semid, &op, 1, &to);
}

static long c_msgrcv(void)
{
	struct {
		long type;
		char text[16];
	} m;

	return msgrcv(msqid, &m, sizeof(m.text), 0, 0);
}

static long c_msgsnd(void)
{
	struct {
		long type;
		char text[16];
	} m = { 1, "0123456789abcde" };

	return msgsnd(msqid, &m, sizeof(m.text), 0);
}

static long c_io_getevents(void)
{
	struct io_event ev;

	return syscall(SYS_io_getevents, aio, 1, 1, &ev, NULL);
}

static long c_recv_timeo(void)
{
	char b;

	return recv(sfd[0], &b, 1, 0);
}

static long c_send_timeo(void)
{
	static char big[65536];

	return send(sfd[0], big, sizeof(big), 0) < 0 ? -1 : 0;
}

/* ---- the first list: restarted with SA_RESTART ---- */

static long c_read(void)
{
	char b;

	return read(pfd[0], &b, 1);
}

static long c_write(void)
{
	static char big[4096];

	return write(pfd[1], big, sizeof(big));
}

static long c_readv(void)
{
	char b;
	struct iovec v = { &b, 1 };

	return readv(pfd[0], &v, 1);
}

static long c_recv(void)
{
	char b;

	return recv(sfd[0], &b, 1, 0);
}

static long c_futex(void)
{
	return syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

static long c_futex_timed(void)
{
	struct timespec to = ten_s();

	return syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &to, NULL, 0);
}

static long c_wait4(void)
{
	int st;
	pid_t p = waitpid(child, &st, 0);

	return p == child ? 1 : p;
}

static long c_flock(void)
{
	int fd = open(tmpdir, O_RDONLY | O_DIRECTORY);
	long n = flock(fd, LOCK_EX);
	int e = errno;

	close(fd);
	errno = e;
	return n;
}

static long c_inotify(void)
{
	char buf[4096] __attribute__((aligned(8)));

	return read(infd, buf, sizeof(buf)) > 0 ? 1 : -1;
}

static long c_accept(void)
{
	int fd = accept(lsock, NULL, NULL);

	if (fd < 0)
		return -1;
	close(fd);
	return 1;
}

/* ---- what the main thread gives each case after the signal ---- */

static void give_byte(void)
{
	if (write(pfd[1], "x", 1) != 1)
		abort();
}

static void drain_pipe(void)
{
	char buf[65536];
	int fl = fcntl(pfd[0], F_GETFL);

	fcntl(pfd[0], F_SETFL, fl | O_NONBLOCK);
	while (read(pfd[0], buf, sizeof(buf)) > 0)
		;
	fcntl(pfd[0], F_SETFL, fl);
}

static void give_sock(void)
{
	if (write(sfd[1], "x", 1) != 1)
		abort();
}

static void wake_word(void)
{
	__atomic_store_n(&word, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void end_child(void)
{
	kill(child, SIGKILL);
}

static void unlock(void)
{
	flock(lfd, LOCK_UN);
}

static void touch(void)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/f", tmpdir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	close(fd);
}

static void connect_to(void)
{
	struct sockaddr_storage a;
	socklen_t n = sizeof(a);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	getsockname(lsock, (struct sockaddr *)&a, &n);
	if (connect(fd, (struct sockaddr *)&a, n) < 0)
		abort();
	close(fd);
}

/* ---- set-up ---- */

static void fill_pipe(void)
{
	char buf[4096] = { 0 };
	int fl = fcntl(pfd[1], F_GETFL);

	fcntl(pfd[1], F_SETFL, fl | O_NONBLOCK);
	while (write(pfd[1], buf, sizeof(buf)) > 0)
		;
	fcntl(pfd[1], F_SETFL, fl);
}

static void sock_timeo(int opt)
{
	struct timeval tv = { 10, 0 };

	setsockopt(sfd[0], SOL_SOCKET, opt, &tv, sizeof(tv));
}

static void set_rcvtimeo(void)
{
	sock_timeo(SO_RCVTIMEO);
}

static void fill_sock_sndtimeo(void)
{
	static char buf[65536];
	int fl = fcntl(sfd[0], F_GETFL);

	fcntl(sfd[0], F_SETFL, fl | O_NONBLOCK);
	while (send(sfd[0], buf, sizeof(buf), 0) > 0)
		;
	while (send(sfd[0], buf, 1, 0) > 0)
		;
	fcntl(sfd[0], F_SETFL, fl);
	sock_timeo(SO_SNDTIMEO);
}

static void fill_queue(void)
{
	struct msqid_ds ds;
	struct {
		long type;
		char text[16];
	} m = { 1, "0123456789abcde" };

	msgctl(msqid, IPC_STAT, &ds);
	ds.msg_qbytes = 16;
	msgctl(msqid, IPC_SET, &ds);
	if (msgsnd(msqid, &m, sizeof(m.text), IPC_NOWAIT) < 0)
		abort();
}

static void empty_queue(void)
{
	struct {
		long type;
		char text[16];
	} m;

	while (msgrcv(msqid, &m, sizeof(m.text), 0, IPC_NOWAIT) >= 0)
		;
}

static void new_child(void)
{
	child = fork();
	if (child == 0) {
		for (;;)
			pause();
	}
}

static void lock_dir(void)
{
	lfd = open(tmpdir, O_RDONLY | O_DIRECTORY);
	flock(lfd, LOCK_EX);
}

static void zero_word(void)
{
	word = 0;
}

struct kase {
	const char *name;
	long (*call)(void);
	void (*setup)(void);  /* before the worker starts */
	void (*supply)(void); /* after the signal: what it waits for */
};

static const struct kase cases[] = {
	{ "poll", c_poll, NULL, give_byte },
	{ "poll timed", c_poll_timed, NULL, give_byte },
	{ "ppoll", c_ppoll, NULL, give_byte },
	{ "ppoll timed", c_ppoll_timed, NULL, give_byte },
	{ "select", c_select, NULL, give_byte },
	{ "select timed", c_select_timed, NULL, give_byte },
	{ "pselect6", c_pselect, NULL, give_byte },
	{ "pselect6 timed", c_pselect_timed, NULL, give_byte },
	{ "epoll_wait", c_epoll_wait, NULL, give_byte },
	{ "epoll_wait timed", c_epoll_wait_timed, NULL, give_byte },
	{ "epoll_pwait", c_epoll_pwait, NULL, give_byte },
	{ "epoll_pwait timed", c_epoll_pwait_timed, NULL, give_byte },
	{ "epoll_pwait2", c_epoll_pwait2, NULL, give_byte },
	{ "epoll_pwait2 timed", c_epoll_pwait2_timed, NULL, give_byte },
	{ "sigwaitinfo", c_sigwaitinfo, NULL, NULL },
	{ "sigtimedwait", c_sigtimedwait, NULL, NULL },
	{ "sigsuspend", c_sigsuspend, NULL, NULL },
	{ "pause", c_pause, NULL, NULL },
	{ "nanosleep", c_nanosleep, NULL, NULL },
	{ "clock_nanosleep", c_clock_nanosleep, NULL, NULL },
	{ "clock_nanosleep abs", c_clock_nanosleep_abs, NULL, NULL },
	{ "semop", c_semop, NULL, NULL },
	{ "semtimedop", c_semtimedop, NULL, NULL },
	{ "msgrcv", c_msgrcv, empty_queue, NULL },
	{ "msgsnd", c_msgsnd, fill_queue, empty_queue },
	{ "io_getevents", c_io_getevents, NULL, NULL },
	{ "recv SO_RCVTIMEO", c_recv_timeo, set_rcvtimeo, NULL },
	{ "send SO_SNDTIMEO", c_send_timeo, fill_sock_sndtimeo, NULL },
	{ "read", c_read, NULL, give_byte },
	{ "readv", c_readv, NULL, give_byte },
	{ "write", c_write, fill_pipe, drain_pipe },
	{ "recv", c_recv, NULL, give_sock },
	{ "futex", c_futex, zero_word, wake_word },
	{ "futex timed", c_futex_timed, zero_word, wake_word },
	{ "wait4", c_wait4, new_child, end_child },
	{ "flock", c_flock, lock_dir, unlock },
	{ "inotify read", c_inotify, NULL, touch },
	{ "accept", c_accept, NULL, connect_to },
};

static const struct kase *current;
static long result;
static int result_errno;

static void *worker(void *arg)
{
	(void)arg;
	__atomic_store_n(&worker_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	__atomic_store_n(&blocking, 1, __ATOMIC_SEQ_CST);
	errno = 0;
	result = current->call();
	result_errno = errno;
	__atomic_store_n(&worker_done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Fresh descriptors for each case: what one case left must not matter. */
static void open_all(void)
{
	struct epoll_event ev = { EPOLLIN, { 0 } };
	struct sockaddr_un {
		sa_family_t family;
		char path[108];
	} a = { AF_UNIX, "" };

	if (pipe(pfd) < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sfd) < 0)
		abort();
	efd = epoll_create1(0);
	epoll_ctl(efd, EPOLL_CTL_ADD, pfd[0], &ev);
	semid = semget(IPC_PRIVATE, 1, 0600);
	msqid = msgget(IPC_PRIVATE, 0600);
	aio = 0;
	if (syscall(SYS_io_setup, 1, &aio) < 0)
		abort();
	lsock = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(a.path, sizeof(a.path), "%s/sock", tmpdir);
	unlink(a.path);
	if (bind(lsock, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lsock, 4) < 0)
		abort();
	/* after the socket's name is made: only the case's file is news */
	infd = inotify_init1(0);
	inotify_add_watch(infd, tmpdir, IN_CREATE);
}

static void close_all(void)
{
	char path[128];

	close(pfd[0]);
	close(pfd[1]);
	close(sfd[0]);
	close(sfd[1]);
	close(efd);
	semctl(semid, 0, IPC_RMID);
	msgctl(msqid, IPC_RMID, NULL);
	close(infd);
	syscall(SYS_io_destroy, aio);
	close(lsock);
	if (lfd > 0)
		close(lfd);
	lfd = -1;
	snprintf(path, sizeof(path), "%s/f", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sock", tmpdir);
	unlink(path);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	sigset_t s;

	restart_flag = !(argc > 1 && strcmp(argv[1], "norestart") == 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = restart_flag ? SA_RESTART : 0;
	sigaction(SIGUSR1, &sa, NULL);
	/* SIGUSR2 is what sigwaitinfo waits for, and never comes. */
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	sigprocmask(SIG_BLOCK, &s, NULL);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/sigrestart.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("SA_RESTART %s\n", restart_flag ? "on" : "off");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pthread_t th;

		if (argc > 2 && strcmp(argv[2], cases[i].name) != 0)
			continue;
		open_all();
		current = &cases[i];
		handled = 0;
		blocking = 0;
		worker_done = 0;
		if (current->setup)
			current->setup();
		pthread_create(&th, NULL, worker, NULL);
		while (!__atomic_load_n(&blocking, __ATOMIC_SEQ_CST))
			pause_ms(1);
		pause_ms(50);
		for (int n = 0; n < 10000 && !worker_waits(); n++)
			pause_ms(1); /* until it waits in its call */
		pthread_kill(th, SIGUSR1);
		/* Until its handler ran: on a busy host a fixed pause was not
		 * always enough, and the byte came first (poll returned 1). */
		for (int n = 0; n < 10000 && !handled; n++)
			pause_ms(1);
		pause_ms(50);
		if (current->supply)
			current->supply();
		pthread_join(th, NULL);
		if (result < 0)
			printf("%s: -1 %s, handler %d\n", current->name, errname(result_errno),
			       (int)handled);
		else
			printf("%s: %ld, handler %d\n", current->name, result, (int)handled);
		if (child > 0) {
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
			child = 0;
		}
		close_all();
	}
	rmdir(tmpdir);
	return 0;
}
