/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: waits on its stdin with each poll-family call and prints what it
 * learnt, while a second thread keeps making syscalls of its own (reads of
 * the clock), so that the waits fall between that thread's events:
 *
 *   poll with no timeout, then read a line;
 *   select with a 10 s timeout, then read a line;
 *   epoll_wait with no timeout, then read a line;
 *   ppoll with a zero timeout (nothing is waiting by then);
 *   pselect6 with a 50 ms timeout (nothing comes: it times out);
 *   poll with no timeout until end of file.
 *
 * Fed "a\nb\nc\n" with pauses between the lines, it prints the same
 * whenever it runs; a replay must print it with nothing on its stdin.
 *
 * `pollin mmsg`: stdin is a datagram socket; one recvmmsg takes up to
 * three messages from it, and each is printed with its length and flags.
 *
 * `pollin spin`: one thread reads a byte from stdin while the main thread
 * reads the clock in a loop until it came (a loop of syscalls must not
 * starve the reader); prints "got the byte".
 *
 * `pollin reads`: two lines read from stdin with plain blocking reads
 * while a second thread sleeps and reads the clock until they came; it
 * prints the lines and how many rounds the other thread made.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static volatile int done;

static void *ticker(void *arg)
{
	struct timespec ts;
	long n = 0;

	(void)arg;
	while (!done && n < 20000) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		n++;
	}
	return NULL;
}

/* One line, a byte at a time: what is left stays for the next wait. */
static void read_line(const char *how)
{
	char buf[64];
	size_t n = 0;

	while (n < sizeof(buf) - 1 && read(0, &buf[n], 1) == 1 && buf[n] != '\n')
		n++;
	buf[n] = 0;
	printf("%s: read '%s'\n", how, buf);
}

static int mmsg(void)
{
	char buf[3][32];
	struct iovec iov[3];
	struct mmsghdr m[3];
	int n;

	memset(m, 0, sizeof(m));
	for (int i = 0; i < 3; i++) {
		iov[i] = (struct iovec){ buf[i], sizeof(buf[i]) };
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	n = recvmmsg(0, m, 3, MSG_WAITFORONE, NULL);
	printf("recvmmsg: %d\n", n);
	for (int i = 0; i < n; i++)
		printf("message %d: %u bytes '%.*s' flags %#x\n", i, m[i].msg_len,
		       (int)m[i].msg_len, buf[i], m[i].msg_hdr.msg_flags);
	return n > 0 ? 0 : 1;
}

static void *sleeper(void *arg)
{
	struct timespec ts, ms = { 0, 1000000 };
	long *rounds = arg;

	while (!done) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		nanosleep(&ms, NULL);
		++*rounds;
	}
	return NULL;
}

static int reads(void)
{
	pthread_t th;
	long rounds = 0;

	pthread_create(&th, NULL, sleeper, &rounds);
	read_line("first");
	read_line("second");
	done = 1;
	pthread_join(th, NULL);
	printf("the other thread made %s rounds\n", rounds > 0 ? "some" : "no");
	return 0;
}

static void *byte_reader(void *arg)
{
	char c;

	(void)arg;
	if (read(0, &c, 1) == 1)
		done = 1;
	return NULL;
}

static int spin(void)
{
	struct timespec ts;
	pthread_t th;

	pthread_create(&th, NULL, byte_reader, NULL);
	while (!done)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	pthread_join(th, NULL);
	printf("got the byte\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	struct epoll_event ev = { .events = EPOLLIN }, got;
	struct timeval tv = { 10, 0 };
	struct timespec zero = { 0, 0 }, short_wait = { 0, 50000000 };
	pthread_t th;
	fd_set set;
	int r, ep;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && strcmp(argv[1], "mmsg") == 0)
		return mmsg();
	if (argc > 1 && strcmp(argv[1], "reads") == 0)
		return reads();
	if (argc > 1 && strcmp(argv[1], "spin") == 0)
		return spin();
	pthread_create(&th, NULL, ticker, NULL);

	r = poll(&pfd, 1, -1);
	printf("poll: %d revents %#x\n", r, pfd.revents);
	read_line("poll");

	FD_ZERO(&set);
	FD_SET(0, &set);
	r = select(1, &set, NULL, NULL, &tv);
	printf("select: %d ready %d\n", r, FD_ISSET(0, &set));
	read_line("select");

	ep = epoll_create1(0);
	epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev);
	r = epoll_wait(ep, &got, 1, -1);
	printf("epoll_wait: %d events %#x\n", r, r > 0 ? got.events : 0);
	read_line("epoll");
	close(ep);

	pfd.revents = 0;
	r = ppoll(&pfd, 1, &zero, NULL);
	printf("ppoll: %d revents %#x\n", r, pfd.revents);

	FD_ZERO(&set);
	FD_SET(0, &set);
	r = pselect(1, &set, NULL, NULL, &short_wait, NULL);
	printf("pselect: %d ready %d\n", r, r > 0 && FD_ISSET(0, &set));

	pfd.revents = 0;
	r = poll(&pfd, 1, -1);
	printf("poll: %d revents %#x\n", r, pfd.revents);
	read_line("eof");

	done = 1;
	pthread_join(th, NULL);
	return 0;
}
