/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: a call blocks while another thread changes the memory its
 * pointer arguments name (writev's iovec array, poll's pollfd array,
 * select's fd_sets, sendto's address, semop's sops, msgsnd's message, a
 * futex timeout). The kernel copied those when the call started, so the
 * call goes on as it entered: each case prints what the call did, which
 * must be the same natively and under hermit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "sleeps.h"

static volatile int entered, done, second;
static int p1[2], p2[2];
static char tmpdir[64];

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static pid_t case_tid;
static void *(*case_fn)(void *);

static void *case_thread(void *arg)
{
	__atomic_store_n(&case_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	return case_fn(arg);
}

/* Whether the case's thread sleeps (in its call) or is gone. */
static int case_blocked(void)
{
	return __atomic_load_n(&done, __ATOMIC_SEQ_CST) || thread_sleeps(case_tid);
}

/* Run FN in a thread; when it is blocked, CHANGE what it gave the call,
 * then GIVE what it waits for; if it is not done 5 s later, UNSTICK
 * (what the changed arguments wait for, so that a wrong run ends). The
 * waits are long for a busy host: natively, a thread not yet in its call
 * or not yet woken took the other branch, and printed other output. */
static void run_case(void *(*fn)(void *), void (*change)(void), void (*give)(void),
		     void (*unstick)(void))
{
	pthread_t th;

	entered = done = second = 0;
	case_fn = fn;
	pthread_create(&th, NULL, case_thread, NULL);
	while (!__atomic_load_n(&entered, __ATOMIC_SEQ_CST))
		pause_ms(1);
	pause_ms(50);
	for (int i = 0; i < 10000 && !case_blocked(); i++)
		pause_ms(1);
	change();
	give();
	for (int i = 0; i < 5000 && !__atomic_load_n(&done, __ATOMIC_SEQ_CST); i++)
		pause_ms(1);
	if (!__atomic_load_n(&done, __ATOMIC_SEQ_CST) && unstick) {
		__atomic_store_n(&second, 1, __ATOMIC_SEQ_CST);
		unstick();
	}
	pthread_join(th, NULL);
}

static void nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

static void fill(int fd)
{
	static char junk[4096];

	nonblock(fd, 1);
	while (write(fd, junk, sizeof(junk)) > 0)
		;
	nonblock(fd, 0);
}

static void drain(int fd)
{
	static char junk[65536];

	nonblock(fd, 1);
	while (read(fd, junk, sizeof(junk)) > 0)
		;
	nonblock(fd, 0);
}

/* ---- writev: an atomic write to a full pipe ---- */

static char wa[4096], wb[4096];
static struct iovec wiov[2];
static long wret;

static void *do_writev(void *arg)
{
	(void)arg;
	wiov[0] = (struct iovec){ wa, 2048 };
	wiov[1] = (struct iovec){ wa + 2048, 2048 };
	entered = 1;
	wret = writev(p1[1], wiov, 2);
	done = 1;
	return NULL;
}

static void change_wiov(void)
{
	wiov[0] = (struct iovec){ wb, 10 };
	wiov[1] = (struct iovec){ wb, 0 };
}

static void make_room(void)
{
	/* read the 64 KiB the pipe holds, and not more */
	static char junk[4096];
	int left = 65536;

	while (left > 0) {
		ssize_t n = read(p1[0], junk, left < 4096 ? left : 4096);

		if (n <= 0)
			abort();
		left -= (int)n;
	}
}

static void case_writev(void)
{
	char got[8192];
	ssize_t n;
	int as = 0;

	memset(wa, 'A', sizeof(wa));
	memset(wb, 'B', sizeof(wb));
	fill(p1[1]);
	run_case(do_writev, change_wiov, make_room, NULL);
	nonblock(p1[0], 1);
	n = read(p1[0], got, sizeof(got));
	nonblock(p1[0], 0);
	for (ssize_t i = 0; i < n; i++)
		as += got[i] == 'A';
	printf("writev to a full pipe returned %ld, reader got %ld bytes, %d of them the first "
	       "buffer's\n",
	       wret, (long)n, as);
}

/* ---- readv from an empty pipe ---- */

static char ra[8], rb[8];
static struct iovec riov;
static long rret;

static void *do_readv(void *arg)
{
	(void)arg;
	riov = (struct iovec){ ra, sizeof(ra) };
	entered = 1;
	rret = readv(p1[0], &riov, 1);
	done = 1;
	return NULL;
}

static void change_riov(void)
{
	riov = (struct iovec){ rb, 4 };
}

static void give_p1(void)
{
	if (write(p1[1], "12345678", 8) != 8)
		abort();
}

static void case_readv(void)
{
	memset(ra, '-', sizeof(ra));
	memset(rb, '-', sizeof(rb));
	run_case(do_readv, change_riov, give_p1, NULL);
	drain(p1[0]);
	printf("readv from an empty pipe returned %ld, first buffer '%.8s', second '%.8s'\n", rret,
	       ra, rb);
}

/* ---- poll and select: the descriptor changed to another pipe ---- */

static struct pollfd pfd;
static long pret;
static int pwhen, ptimeout;

static void *do_poll(void *arg)
{
	(void)arg;
	pfd = (struct pollfd){ p1[0], POLLIN, 0 };
	entered = 1;
	pret = poll(&pfd, 1, ptimeout);
	pwhen = second;
	done = 1;
	return NULL;
}

static void change_pfd(void)
{
	pfd.fd = p2[0];
}

static void give_p2(void)
{
	if (write(p2[1], "y", 1) != 1)
		abort();
}

static void case_poll(int timeout)
{
	ptimeout = timeout;
	run_case(do_poll, change_pfd, give_p1, give_p2);
	drain(p1[0]);
	drain(p2[0]);
	printf("poll (timeout %d) returned %ld, revents %#x, %s\n", timeout, pret, pfd.revents,
	       pwhen ? "woken by the second pipe" : "woken by the first pipe");
}

static fd_set sset;
static struct timeval stv;
static int stimed;

static void *do_select(void *arg)
{
	(void)arg;
	FD_ZERO(&sset);
	FD_SET(p1[0], &sset);
	stv = (struct timeval){ 10, 0 };
	entered = 1;
	pret = select(p2[0] + 1, &sset, NULL, NULL, stimed ? &stv : NULL);
	pwhen = second;
	done = 1;
	return NULL;
}

static void change_sset(void)
{
	FD_CLR(p1[0], &sset);
	FD_SET(p2[0], &sset);
}

static void case_select(int timed)
{
	stimed = timed;
	run_case(do_select, change_sset, give_p1, give_p2);
	printf("select (%s) returned %ld, first pipe %s, second %s, %s\n",
	       timed ? "timed" : "no timeout", pret, FD_ISSET(p1[0], &sset) ? "set" : "clear",
	       FD_ISSET(p2[0], &sset) ? "set" : "clear",
	       pwhen ? "woken by the second pipe" : "woken by the first pipe");
	drain(p1[0]);
	drain(p2[0]);
}

/* ---- sendto: a full datagram socket, the address changed ---- */

static int ua, ub, us;
static struct sockaddr_un uaddr;
static long uret;

static void *do_sendto(void *arg)
{
	(void)arg;
	entered = 1;
	uret = sendto(us, "X", 1, 0, (struct sockaddr *)&uaddr, sizeof(uaddr));
	done = 1;
	return NULL;
}

static void change_uaddr(void)
{
	snprintf(uaddr.sun_path, sizeof(uaddr.sun_path), "%s/b", tmpdir);
}

static int count_x(int fd)
{
	char b[8];
	int n = 0;
	ssize_t k;

	nonblock(fd, 1);
	while ((k = recv(fd, b, sizeof(b), 0)) > 0)
		n += k == 1 && b[0] == 'X';
	nonblock(fd, 0);
	return n;
}

static void drain_ua(void)
{
	char b[8];

	nonblock(ua, 1);
	while (recv(ua, b, sizeof(b), 0) > 0 && b[0] != 'X')
		;
	nonblock(ua, 0);
}

static void case_sendto(void)
{
	struct sockaddr_un a = { AF_UNIX, "" };
	int xa = 0;

	ua = socket(AF_UNIX, SOCK_DGRAM, 0);
	ub = socket(AF_UNIX, SOCK_DGRAM, 0);
	us = socket(AF_UNIX, SOCK_DGRAM, 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/a", tmpdir);
	bind(ua, (struct sockaddr *)&a, sizeof(a));
	uaddr = a;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/b", tmpdir);
	bind(ub, (struct sockaddr *)&a, sizeof(a));
	nonblock(us, 1);
	while (sendto(us, "q", 1, 0, (struct sockaddr *)&uaddr, sizeof(uaddr)) == 1)
		;
	nonblock(us, 0);
	run_case(do_sendto, change_uaddr, drain_ua, NULL);
	/* drain_ua may have taken the X already: count it there too */
	xa = count_x(ua);
	printf("sendto a full socket returned %ld, the second address got %d\n", uret, count_x(ub));
	(void)xa;
	close(ua);
	close(ub);
	close(us);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/a", tmpdir);
	unlink(a.sun_path);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/b", tmpdir);
	unlink(a.sun_path);
}

/* ---- semop: the operation changed to the other semaphore ---- */

static int semid;
static struct sembuf sop;
static long sret;

static void *do_semop(void *arg)
{
	(void)arg;
	sop = (struct sembuf){ 0, -1, 0 };
	entered = 1;
	sret = semop(semid, &sop, 1);
	done = 1;
	return NULL;
}

static void change_sop(void)
{
	sop.sem_num = 1;
}

static void up(unsigned short n)
{
	struct sembuf op = { n, 1, 0 };

	semop(semid, &op, 1);
}

static void up0(void)
{
	up(0);
}

static void up1(void)
{
	up(1);
}

static void case_semop(void)
{
	semid = semget(IPC_PRIVATE, 2, 0600);
	run_case(do_semop, change_sop, up0, up1);
	printf("semop returned %ld, semaphores now %d and %d\n", sret, semctl(semid, 0, GETVAL),
	       semctl(semid, 1, GETVAL));
	semctl(semid, 0, IPC_RMID);
}

/* ---- msgsnd: the message changed while the queue is full ---- */

static int msqid;
static struct {
	long type;
	char text[16];
} msg;
static long mret;

static void *do_msgsnd(void *arg)
{
	(void)arg;
	msg.type = 1;
	memcpy(msg.text, "AAAAAAAAAAAAAAA", 16);
	entered = 1;
	mret = msgsnd(msqid, &msg, sizeof(msg.text), 0);
	done = 1;
	return NULL;
}

static void change_msg(void)
{
	memcpy(msg.text, "BBBBBBBBBBBBBBB", 16);
}

static void take_one(void)
{
	struct {
		long type;
		char text[16];
	} m;

	if (msgrcv(msqid, &m, sizeof(m.text), 0, 0) < 0)
		abort();
}

static void case_msgsnd(void)
{
	struct msqid_ds ds;
	struct {
		long type;
		char text[16];
	} m = { 2, "fullfullfullful" };

	msqid = msgget(IPC_PRIVATE, 0600);
	msgctl(msqid, IPC_STAT, &ds);
	ds.msg_qbytes = 16;
	msgctl(msqid, IPC_SET, &ds);
	msgsnd(msqid, &m, sizeof(m.text), 0);
	run_case(do_msgsnd, change_msg, take_one, NULL);
	if (msgrcv(msqid, &m, sizeof(m.text), 0, IPC_NOWAIT) < 0)
		strcpy(m.text, "(none)");
	printf("msgsnd to a full queue returned %ld, the message sent '%.15s'\n", mret, m.text);
	msgctl(msqid, IPC_RMID, NULL);
}

/* ---- futex: the timeout changed while it waits ---- */

static uint32_t word;
static struct timespec fto;
static long fret;

static void *do_futex(void *arg)
{
	(void)arg;
	fto = (struct timespec){ 10, 0 };
	entered = 1;
	fret = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &fto, NULL, 0);
	done = 1;
	return NULL;
}

static void change_fto(void)
{
	fto = (struct timespec){ 0, 1 };
}

static void wake_word(void)
{
	pause_ms(50);
	word = 1;
	syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void case_futex(void)
{
	word = 0;
	run_case(do_futex, change_fto, wake_word, NULL);
	printf("futex wait returned %ld (%s)\n", fret, fret == 0 ? "woken" : "timed out");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/parkargs.XXXXXX");
	if (!mkdtemp(tmpdir) || pipe(p1) < 0 || pipe(p2) < 0) {
		perror("parkargs");
		return 1;
	}
	case_writev();
	case_readv();
	case_poll(-1);
	case_poll(10000);
	case_select(0);
	case_select(1);
	case_sendto();
	case_semop();
	case_msgsnd();
	case_futex();
	rmdir(tmpdir);
	return 0;
}
