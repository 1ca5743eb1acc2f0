/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: TCP over loopback between two threads. The server thread listens
 * on 127.0.0.1 port 0, learns the port with getsockname and hands it to
 * the client thread (the port itself is not printed: the kernel picks it).
 * The client connects and sends five messages, the last one 3000 bytes,
 * each time reading until the whole echo is back; the server echoes what
 * it reads until the client shuts down its side. The client prints what
 * came back and in how many reads; the server's reads (whose sizes depend
 * on the interleaving) are printed after both threads end.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define NMSG 5
#define BIG 3000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t port_ready = PTHREAD_COND_INITIALIZER;
static int port = -1; /* 0 and up: the port; -2: the server failed */
static char serverlog[64][48];
static int nserverlog;

static void set_port(int p)
{
	pthread_mutex_lock(&lock);
	port = p;
	pthread_cond_broadcast(&port_ready);
	pthread_mutex_unlock(&lock);
}

static int send_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void *server(void *arg)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	char buf[1024];
	ssize_t n;
	int lfd, fd, one = 1;
	long total = 0;

	(void)arg;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(lfd, 1) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &len) != 0) {
		perror("server: socket, bind, listen or getsockname");
		set_port(-2);
		return NULL;
	}
	set_port(ntohs(sa.sin_port));
	do
		fd = accept(lfd, NULL, NULL);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		perror("server: accept");
		return NULL;
	}
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
		if (nserverlog < 64)
			snprintf(serverlog[nserverlog++], sizeof(serverlog[0]), "server read %zd", n);
		if (send_all(fd, buf, (size_t)n) != 0) {
			perror("server: send");
			break;
		}
	}
	if (nserverlog < 64)
		snprintf(serverlog[nserverlog++], sizeof(serverlog[0]),
			 n == 0 ? "server echoed %ld bytes, peer closed" : "server echoed %ld bytes, error",
			 total);
	close(fd);
	close(lfd);
	return NULL;
}

static void *client(void *arg)
{
	static char big[BIG + 1], back[BIG + 1];
	const char *msgs[NMSG] = { "hello", "message 1", "a somewhat longer message number 2",
				   "message 3", big };
	struct sockaddr_in sa;
	ssize_t n;
	size_t len, got;
	int fd, p, reads;

	(void)arg;
	for (int i = 0; i < BIG; i++)
		big[i] = (char)('a' + i % 26);
	pthread_mutex_lock(&lock);
	while (port == -1)
		pthread_cond_wait(&port_ready, &lock);
	p = port;
	pthread_mutex_unlock(&lock);
	if (p < 0)
		return NULL;
	printf("client: server listening on 127.0.0.1 (port %s)\n", p > 0 ? "assigned" : "0?");

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((unsigned short)p);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		perror("client: socket or connect");
		return NULL;
	}
	printf("client: connected\n");
	for (int i = 0; i < NMSG; i++) {
		len = strlen(msgs[i]);
		if (send_all(fd, msgs[i], len) != 0) {
			perror("client: send");
			break;
		}
		for (got = 0, reads = 0; got < len; got += (size_t)n, reads++) {
			n = recv(fd, back + got, len - got, 0);
			if (n < 0 && errno == EINTR) {
				n = 0;
				continue;
			}
			if (n <= 0)
				break;
		}
		back[got] = '\0';
		if (len < 64)
			printf("client: sent '%s' got back '%s' in %d reads\n", msgs[i], back, reads);
		else
			printf("client: sent %zu bytes got back %zu bytes, %s, in %d reads\n", len, got,
			       memcmp(back, msgs[i], len) == 0 ? "the same" : "DIFFERENT", reads);
	}
	shutdown(fd, SHUT_WR);
	n = recv(fd, back, sizeof(back), 0);
	printf("client: after shutdown recv returned %zd\n", n);
	close(fd);
	return NULL;
}

int main(void)
{
	pthread_t s, c;

	if (pthread_create(&s, NULL, server, NULL) != 0 ||
	    pthread_create(&c, NULL, client, NULL) != 0)
		return 1;
	pthread_join(c, NULL);
	pthread_join(s, NULL);
	for (int i = 0; i < nserverlog; i++)
		printf("%s\n", serverlog[i]);
	return 0;
}
