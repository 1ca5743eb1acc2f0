/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: errno and EINTR where a call waits while another thread acts
 * (issue 14, "EINTR and errno semantics"). Each case starts a worker
 * thread that blocks in one call, waits until it sleeps there (its state
 * in /proc, never a fixed pause), does one thing to it from the main
 * thread, and prints what the call returned:
 *
 *  - epoll_pwait, epoll_pwait2, ppoll and pselect6 with a signal mask that
 *    unblocks SIGUSR1, which the worker otherwise blocks: SIGUSR1 sent to
 *    it ends the wait with EINTR after its handler ran (epoll_pwait(2));
 *    and the worker's own mask is back afterwards;
 *  - semop and semtimedop while signals come that the worker does not
 *    take (one the main thread handles, SIGCHLD of an exiting child, one
 *    the worker blocks): they go on waiting, then get their unit;
 *  - msgrcv, msgsnd, semop and semtimedop on a queue or set that is
 *    removed meanwhile: EIDRM (msgop(2), semop(2));
 *  - open(2) of a FIFO for reading, which waits for a writer, and for
 *    writing, which waits for a reader (fifo(7)), by a thread or by a
 *    child process; a handled signal without SA_RESTART ends the wait
 *    with EINTR; with O_NONBLOCK, for writing with no reader: ENXIO.
 *
 * Run with a case name as argument to run that case alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sleeps.h"

static volatile sig_atomic_t handled, main_handled;
static pid_t worker_tid, main_tid;
static int worker_done;
static int pfd[2], efd, semid, msqid;
static char fifo[96];
static char tmpdir[64];

static void on_signal(int sig)
{
	(void)sig;
	if (syscall(SYS_gettid) == main_tid)
		main_handled++;
	else
		handled++;
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Until the worker sleeps in its call (or ended), for up to 10 s. */
static void until_worker_waits(void)
{
	for (int n = 0; n < 10000; n++) {
		pid_t tid = __atomic_load_n(&worker_tid, __ATOMIC_SEQ_CST);

		if (__atomic_load_n(&worker_done, __ATOMIC_SEQ_CST) || (tid && thread_sleeps(tid)))
			return;
		pause_ms(1);
	}
}

/* Until FLAG is set, for up to 10 s. */
static void until_set(volatile sig_atomic_t *flag)
{
	for (int n = 0; n < 10000 && !*flag; n++)
		pause_ms(1);
}

static const char *errname(int e)
{
	switch (e) {
	case EINTR:
		return "EINTR";
	case EIDRM:
		return "EIDRM";
	case EINVAL:
		return "EINVAL";
	case EAGAIN:
		return "EAGAIN";
	case ENXIO:
		return "ENXIO";
	default:
		return strerror(e);
	}
}

/* ---- the calls ---- */

/* The worker's mask less SIGUSR1: what the pwait calls wait with. */
static sigset_t without_usr1(void)
{
	sigset_t s;

	pthread_sigmask(SIG_BLOCK, NULL, &s);
	sigdelset(&s, SIGUSR1);
	return s;
}

static long c_epoll_pwait_mask(void)
{
	struct epoll_event ev;
	sigset_t s = without_usr1();

	return epoll_pwait(efd, &ev, 1, -1, &s);
}

static long c_epoll_pwait_mask_timed(void)
{
	struct epoll_event ev;
	sigset_t s = without_usr1();

	return epoll_pwait(efd, &ev, 1, 10000, &s);
}

static long c_epoll_pwait2_mask(void)
{
	struct epoll_event ev;
	sigset_t s = without_usr1();

	return syscall(SYS_epoll_pwait2, efd, &ev, 1, NULL, &s, 8);
}

static long c_epoll_pwait2_mask_timed(void)
{
	struct epoll_event ev;
	struct timespec to = { 10, 0 };
	sigset_t s = without_usr1();

	return syscall(SYS_epoll_pwait2, efd, &ev, 1, &to, &s, 8);
}

static long c_ppoll_mask(void)
{
	struct pollfd p = { pfd[0], POLLIN, 0 };
	sigset_t s = without_usr1();

	return ppoll(&p, 1, NULL, &s);
}

static long c_ppoll_mask_timed(void)
{
	struct pollfd p = { pfd[0], POLLIN, 0 };
	struct timespec to = { 10, 0 };
	sigset_t s = without_usr1();

	return ppoll(&p, 1, &to, &s);
}

static long c_pselect_mask_timed(void)
{
	struct timespec to = { 10, 0 };
	sigset_t s = without_usr1();
	fd_set r;

	FD_ZERO(&r);
	FD_SET(pfd[0], &r);
	return pselect(pfd[0] + 1, &r, NULL, NULL, &to, &s);
}

static long c_pselect_mask(void)
{
	sigset_t s = without_usr1();
	fd_set r;

	FD_ZERO(&r);
	FD_SET(pfd[0], &r);
	return pselect(pfd[0] + 1, &r, NULL, NULL, NULL, &s);
}

static long c_semop(void)
{
	struct sembuf op = { 0, -1, 0 };

	return semop(semid, &op, 1);
}

static long c_semtimedop(void)
{
	struct sembuf op = { 0, -1, 0 };
	struct timespec to = { 10, 0 };

	return semtimedop(semid, &op, 1, &to);
}

struct msg {
	long type;
	char text[16];
};

static long c_msgrcv(void)
{
	struct msg m;

	return msgrcv(msqid, &m, sizeof(m.text), 0, 0);
}

static long c_msgsnd(void)
{
	struct msg m = { 1, "0123456789abcde" };

	return msgsnd(msqid, &m, sizeof(m.text), 0);
}

static long c_fifo_read(void)
{
	int fd = open(fifo, O_RDONLY);
	char buf[8];
	long n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n; /* what the writer wrote */
}

static long c_fifo_write(void)
{
	int fd = open(fifo, O_WRONLY);
	long n;

	if (fd < 0)
		return -1;
	n = write(fd, "abc", 3);
	close(fd);
	return n;
}

/* ---- what the main thread does meanwhile ---- */

static void signal_worker(pthread_t th)
{
	pthread_kill(th, SIGUSR1);
	until_set(&handled);
}

/* SIGALRM, which the worker does not block; no SA_RESTART. */
static void alarm_worker(pthread_t th)
{
	pthread_kill(th, SIGALRM);
	until_set(&handled);
}

static void signal_main(pthread_t th)
{
	(void)th;
	/* to the process: the main thread takes it, the worker blocks it
	 * ... natively the process's own thread that does not block it */
	kill(getpid(), SIGUSR1);
	until_set(&main_handled);
}

/* A process-directed SIGALRM from a timer: natively the main thread,
 * the group leader, takes it (kernel/signal.c complete_signal()). */
static void alarm_main(pthread_t th)
{
	struct itimerval it = { { 0, 0 }, { 0, 100000 } };

	(void)th;
	setitimer(ITIMER_REAL, &it, NULL);
	until_set(&main_handled);
}

static void child_exits(pthread_t th)
{
	pid_t p = fork();

	(void)th;
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
}

static void signal_blocked(pthread_t th)
{
	pthread_kill(th, SIGUSR2); /* the worker blocks it */
}

static void sem_post1(void)
{
	struct sembuf op = { 0, 1, 0 };

	if (semop(semid, &op, 1) < 0)
		abort();
}

static void remove_sem(pthread_t th)
{
	(void)th;
	semctl(semid, 0, IPC_RMID);
	semid = -1;
}

static void remove_queue(pthread_t th)
{
	(void)th;
	msgctl(msqid, IPC_RMID, NULL);
	msqid = -1;
}

static void fifo_write_end(pthread_t th)
{
	int fd = open(fifo, O_WRONLY);

	(void)th;
	if (fd < 0 || write(fd, "abcd", 4) != 4)
		abort();
	close(fd);
}

static void fifo_read_end(pthread_t th)
{
	char buf[8];
	int fd = open(fifo, O_RDONLY);

	(void)th;
	if (fd < 0 || read(fd, buf, sizeof(buf)) != 3)
		abort();
	close(fd);
}

/* The other end, opened by a child process. */
static void child_write_end(pthread_t th)
{
	pid_t p = fork();

	if (p == 0) {
		fifo_write_end(th);
		_exit(0);
	}
	waitpid(p, NULL, 0);
}

static void child_read_end(pthread_t th)
{
	pid_t p = fork();

	if (p == 0) {
		fifo_read_end(th);
		_exit(0);
	}
	waitpid(p, NULL, 0);
}

static void give_byte(void)
{
	if (write(pfd[1], "x", 1) != 1)
		abort();
}

static void fill_queue(void)
{
	struct msqid_ds ds;
	struct msg m = { 1, "0123456789abcde" };

	msgctl(msqid, IPC_STAT, &ds);
	ds.msg_qbytes = 16;
	msgctl(msqid, IPC_SET, &ds);
	if (msgsnd(msqid, &m, sizeof(m.text), IPC_NOWAIT) < 0)
		abort();
}

struct kase {
	const char *name;
	long (*call)(void);
	void (*setup)(void);	/* before the worker starts */
	void (*act)(pthread_t); /* once it waits */
	void (*supply)(void);	/* then: what it waits for */
};

static const struct kase cases[] = {
	{ "epoll_pwait mask", c_epoll_pwait_mask, NULL, signal_worker, give_byte },
	{ "epoll_pwait mask timed", c_epoll_pwait_mask_timed, NULL, signal_worker, give_byte },
	{ "epoll_pwait2 mask", c_epoll_pwait2_mask, NULL, signal_worker, give_byte },
	{ "epoll_pwait2 mask timed", c_epoll_pwait2_mask_timed, NULL, signal_worker, give_byte },
	{ "ppoll mask", c_ppoll_mask, NULL, signal_worker, give_byte },
	{ "ppoll mask timed", c_ppoll_mask_timed, NULL, signal_worker, give_byte },
	{ "pselect6 mask", c_pselect_mask, NULL, signal_worker, give_byte },
	{ "pselect6 mask timed", c_pselect_mask_timed, NULL, signal_worker, give_byte },
	{ "semop, main's signal", c_semop, NULL, signal_main, sem_post1 },
	{ "semop, alarm", c_semop, NULL, alarm_main, sem_post1 },
	{ "semop, SIGCHLD", c_semop, NULL, child_exits, sem_post1 },
	{ "semop, blocked signal", c_semop, NULL, signal_blocked, sem_post1 },
	{ "semtimedop, main's signal", c_semtimedop, NULL, signal_main, sem_post1 },
	{ "semtimedop, alarm", c_semtimedop, NULL, alarm_main, sem_post1 },
	{ "semtimedop, SIGCHLD", c_semtimedop, NULL, child_exits, sem_post1 },
	{ "semop removed", c_semop, NULL, remove_sem, NULL },
	{ "semtimedop removed", c_semtimedop, NULL, remove_sem, NULL },
	{ "msgrcv removed", c_msgrcv, NULL, remove_queue, NULL },
	{ "msgsnd removed", c_msgsnd, fill_queue, remove_queue, NULL },
	{ "fifo read, thread writes", c_fifo_read, NULL, fifo_write_end, NULL },
	{ "fifo write, thread reads", c_fifo_write, NULL, fifo_read_end, NULL },
	{ "fifo read, child writes", c_fifo_read, NULL, child_write_end, NULL },
	{ "fifo write, child reads", c_fifo_write, NULL, child_read_end, NULL },
	{ "fifo read, signal", c_fifo_read, NULL, alarm_worker, NULL },
	{ "fifo write, signal", c_fifo_write, NULL, alarm_worker, NULL },
};

static const struct kase *current;
static long result;
static int result_errno, mask_kept;

static void *worker(void *arg)
{
	sigset_t s, after;

	(void)arg;
	/* SIGUSR1 reaches the worker only through a call's own mask. */
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	__atomic_store_n(&worker_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	errno = 0;
	result = current->call();
	result_errno = errno;
	pthread_sigmask(SIG_BLOCK, NULL, &after);
	mask_kept = sigismember(&after, SIGUSR1) == 1;
	__atomic_store_n(&worker_done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void open_all(void)
{
	struct epoll_event ev = { EPOLLIN, { 0 } };

	if (pipe(pfd) < 0)
		abort();
	efd = epoll_create1(0);
	epoll_ctl(efd, EPOLL_CTL_ADD, pfd[0], &ev);
	semid = semget(IPC_PRIVATE, 1, 0600);
	msqid = msgget(IPC_PRIVATE, 0600);
	snprintf(fifo, sizeof(fifo), "%s/fifo", tmpdir);
	if (mkfifo(fifo, 0600) < 0)
		abort();
}

static void close_all(void)
{
	close(pfd[0]);
	close(pfd[1]);
	close(efd);
	if (semid >= 0)
		semctl(semid, 0, IPC_RMID);
	if (msqid >= 0)
		msgctl(msqid, IPC_RMID, NULL);
	unlink(fifo);
}

/* Non-blocking opens of a FIFO: no waiting, whatever hermit does. */
static void fifo_nonblock(void)
{
	int r, w;

	open_all();
	w = open(fifo, O_WRONLY | O_NONBLOCK);
	printf("fifo write O_NONBLOCK, no reader: %d %s\n", w, w < 0 ? errname(errno) : "");
	r = open(fifo, O_RDONLY | O_NONBLOCK);
	printf("fifo read O_NONBLOCK: %s\n", r >= 0 ? "opened" : errname(errno));
	w = open(fifo, O_WRONLY | O_NONBLOCK);
	printf("fifo write O_NONBLOCK, a reader: %s\n", w >= 0 ? "opened" : errname(errno));
	printf("  reader O_NONBLOCK %s, writer O_NONBLOCK %s\n",
	       fcntl(r, F_GETFL) & O_NONBLOCK ? "set" : "clear",
	       fcntl(w, F_GETFL) & O_NONBLOCK ? "set" : "clear");
	close(w);
	close(r);
	close_all();
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	sigset_t s;

	main_tid = (pid_t)syscall(SYS_gettid);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	/* SIGUSR2 is blocked everywhere: it never comes through. */
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	sigprocmask(SIG_BLOCK, &s, NULL);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/eintr.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pthread_t th;

		if (argc > 1 && strncmp(argv[1], cases[i].name, strlen(argv[1])) != 0)
			continue;
		open_all();
		current = &cases[i];
		handled = main_handled = 0;
		worker_done = 0;
		worker_tid = 0;
		if (current->setup)
			current->setup();
		pthread_create(&th, NULL, worker, NULL);
		while (!__atomic_load_n(&worker_tid, __ATOMIC_SEQ_CST))
			pause_ms(1);
		until_worker_waits();
		current->act(th);
		/* it still waits, unless what was done ended its call */
		until_worker_waits();
		if (current->supply)
			current->supply();
		pthread_join(th, NULL);
		if (result < 0)
			printf("%s: -1 %s", current->name, errname(result_errno));
		else
			printf("%s: %ld", current->name, result);
		printf(", handler %d, main's handler %d, mask %s\n", (int)handled,
		       (int)main_handled, mask_kept ? "kept" : "lost");
		close_all();
	}
	if (argc < 2 || strcmp(argv[1], "fifo nonblock") == 0)
		fifo_nonblock();
	rmdir(tmpdir);
	return 0;
}
