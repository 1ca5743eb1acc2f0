/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Calls whose replay depends on what the recording kept of them (issue
 * 14, "what a large outside suite found"). ARGV[1] names one:
 *
 *   ioctl    ioctls on a pseudo-terminal master (a device: outside the guest)
 *            whose output only an old-style request number names
 *            (TIOCGETD, TCGETA, TIOCGSOFTCAR, TIOCGLCKTRMIOS), one the
 *            encoding sizes (TIOCGPTN), one a pty refuses (TIOCMGET);
 *            each buffer is filled with 0xab first, so one the replay
 *            left unfilled prints otherwise
 *   ifconf   SIOCGIFCONF on a socket, whose output (a list of
 *            interfaces behind a pointer) no request encoding sizes
 *   select   select and pselect6 on descriptors past FD_SETSIZE (1500,
 *            1501: a pipe with a byte in it and an empty one)
 *   send     a thread sends 1 MiB through a socketpair (ARGV[2] "tcp":
 *            a TCP connection over loopback) with send, sendto and
 *            sendmsg, blocking on the full buffer, while another thread
 *            reads it slowly
 *   sparse   maps ARGV[2], a sparse file of 100 GiB (made by ftruncate
 *            where it is not that already), touches a few pages far
 *            apart, reads them back
 *   openat2  opens ARGV[2] with openat2 (falling back to openat where it
 *            fails with ENOSYS) and prints it, then makes the file "made"
 *            (O_CREAT | O_EXCL)
 *   nbflag   sets its stdout non-blocking with ioctl FIONBIO, reads the
 *            flag back with fcntl(F_GETFL) (a call hermit never stops)
 *            and prints it, then clears it the same way, as node does
 *            with a stdout pipe
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static void hex(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static void one_ioctl(const char *name, int fd, unsigned long req, size_t n)
{
	unsigned char buf[128];
	int ret;

	memset(buf, 0xab, sizeof(buf));
	ret = ioctl(fd, req, buf);
	printf("%s = %d", name, ret < 0 ? -errno : ret);
	if (ret >= 0) {
		printf(" ");
		hex(buf, n);
	}
	printf("\n");
}

static int do_ioctl(void)
{
	/* The master only: a replay does not run an outside ioctl, so the
	 * unlockpt that opening the slave needs is not made there. The
	 * terminal requests on a master act on its slave (tty_mode_ioctl()). */
	int m = posix_openpt(O_RDWR | O_NOCTTY), s = m;

	if (m < 0) {
		perror("posix_openpt");
		return 1;
	}
	one_ioctl("TIOCGPTN", m, TIOCGPTN, 4);
	one_ioctl("TIOCGETD", s, TIOCGETD, 4);
	one_ioctl("TCGETA", s, TCGETA, 18);
	one_ioctl("TIOCGSOFTCAR", s, TIOCGSOFTCAR, 4);
	one_ioctl("TIOCGLCKTRMIOS", s, TIOCGLCKTRMIOS, 36);
	one_ioctl("TIOCMGET", s, TIOCMGET, 4);
	return 0;
}

static int do_ifconf(void)
{
	struct ifreq reqs[16];
	struct ifconf ifc;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	memset(reqs, 0xab, sizeof(reqs));
	ifc.ifc_len = sizeof(reqs);
	ifc.ifc_req = reqs;
	if (fd < 0 || ioctl(fd, SIOCGIFCONF, &ifc) < 0) {
		perror("SIOCGIFCONF");
		return 1;
	}
	printf("ifc_len %d\n", ifc.ifc_len);
	for (int i = 0; i < ifc.ifc_len / (int)sizeof(reqs[0]) && i < 16; i++)
		printf("if %.16s\n", reqs[i].ifr_name);
	return 0;
}

static void show_sets(const char *name, int ret, const fd_set *r, int lo)
{
	/* fd_set is FD_SETSIZE bits; these sets are larger: the bits by hand */
	const unsigned long *w = (const unsigned long *)r;

	printf("%s = %d:", name, ret);
	for (int fd = lo; fd < lo + 2; fd++)
		printf(" %d:%d", fd, (int)(w[fd / 64] >> (fd % 64) & 1));
	printf("\n");
}

static int do_select(void)
{
	struct rlimit rl = { 2048, 2048 };
	unsigned long rset[2048 / 64];
	struct timeval tv = { 0, 0 };
	struct timespec ts = { 0, 0 };
	int full[2], empty[2], ret;

	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || pipe(full) < 0 || pipe(empty) < 0 ||
	    dup2(full[0], 1500) < 0 || dup2(empty[0], 1501) < 0 || write(full[1], "x", 1) != 1) {
		perror("setup");
		return 1;
	}
	memset(rset, 0, sizeof(rset));
	rset[1500 / 64] |= 1UL << (1500 % 64) | 1UL << (1501 % 64);
	ret = select(1502, (fd_set *)rset, NULL, NULL, &tv);
	show_sets("select", ret, (fd_set *)rset, 1500);
	memset(rset, 0, sizeof(rset));
	rset[1500 / 64] |= 1UL << (1500 % 64) | 1UL << (1501 % 64);
	ret = (int)syscall(SYS_pselect6, 1502, rset, NULL, NULL, &ts, NULL);
	show_sets("pselect6", ret, (fd_set *)rset, 1500);
	/* nothing ready: waits out its timeout, and the sets come back empty */
	memset(rset, 0, sizeof(rset));
	rset[1501 / 64] |= 1UL << (1501 % 64);
	tv.tv_usec = 2000;
	ret = select(1502, (fd_set *)rset, NULL, NULL, &tv);
	show_sets("select, timed", ret, (fd_set *)rset, 1500);
	return 0;
}

#define SEND_TOTAL (8 << 20)
#define CHUNK	   65536

static int pair[2];

static void *reader(void *arg)
{
	static char buf[4096];
	unsigned long sum = 0, got = 0;
	struct timespec nap = { 0, 1000000 };

	(void)arg;
	nanosleep(&nap, NULL); /* let the sender fill the buffer first */
	for (;;) {
		ssize_t n = read(pair[1], buf, sizeof(buf));

		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			sum += (unsigned char)buf[i];
		got += (unsigned long)n;
		if ((got & 0x3ffff) < (unsigned long)n)
			nanosleep(&nap, NULL); /* slowly */
	}
	printf("read %lu bytes, sum %lu\n", got, sum);
	return NULL;
}

/* A connected TCP pair over loopback in PAIR: 0 or -1. */
static int tcp_pair(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &len) < 0)
		return -1;
	pair[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (pair[0] < 0 || connect(pair[0], (struct sockaddr *)&a, sizeof(a)) < 0)
		return -1;
	pair[1] = accept(l, NULL, NULL);
	close(l);
	return pair[1] < 0 ? -1 : 0;
}

static int do_send(int tcp)
{
	static char chunk[CHUNK];
	pthread_t th;
	unsigned long sent = 0;
	int k = 0;

	for (int i = 0; i < CHUNK; i++)
		chunk[i] = (char)(i * 7);
	if ((tcp ? tcp_pair() : socketpair(AF_UNIX, SOCK_STREAM, 0, pair)) < 0 ||
	    pthread_create(&th, NULL, reader, NULL) != 0) {
		perror("setup");
		return 1;
	}
	while (sent < SEND_TOTAL) {
		struct iovec iov = { chunk, CHUNK };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		switch (k++ % 3) {
		case 0:
			n = send(pair[0], chunk, CHUNK, 0);
			break;
		case 1:
			n = sendto(pair[0], chunk, CHUNK, 0, NULL, 0);
			break;
		default:
			n = sendmsg(pair[0], &mh, 0);
			break;
		}
		if (n <= 0) {
			perror("send");
			return 1;
		}
		sent += (unsigned long)n;
	}
	shutdown(pair[0], SHUT_WR);
	pthread_join(th, NULL);
	printf("sent %lu bytes in %d calls\n", sent, k);
	return 0;
}

static int do_sparse(const char *path)
{
	const off_t size = 100LL << 30;
	const off_t at[] = { 0, 1LL << 30, 50LL << 30, size - 4096 };
	int fd = open(path, O_RDWR | O_CREAT, 0644);
	struct stat st;
	unsigned char *p;

	/* One made already (the test's truncate -s) is taken as it is. */
	if (fd < 0 || fstat(fd, &st) < 0 || (st.st_size != size && ftruncate(fd, size) < 0)) {
		perror("sparse file");
		return 1;
	}
	p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		snprintf((char *)p + at[i], 64, "page at %lld", (long long)at[i]);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		printf("%s, then %d\n", (char *)p + at[i], p[at[i] + 100]);
	munmap(p, (size_t)size);
	close(fd);
	return 0;
}

static int do_openat2(const char *path)
{
	struct open_how how = { .flags = O_RDONLY, .resolve = RESOLVE_NO_MAGICLINKS };
	char buf[256];
	ssize_t n;
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	if (fd < 0 && errno == ENOSYS) {
		printf("openat2: ENOSYS, openat instead\n");
		fd = openat(AT_FDCWD, path, O_RDONLY);
	}
	if (fd < 0) {
		printf("open: %s\n", strerror(errno));
		return 1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	printf("fd %d: %s", fd, buf);
	/* a file it makes: O_EXCL fails where one is there */
	how.flags = O_WRONLY | O_CREAT | O_EXCL;
	how.mode = 0644;
	fd = (int)syscall(SYS_openat2, AT_FDCWD, "made", &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = openat(AT_FDCWD, "made", O_WRONLY | O_CREAT | O_EXCL, 0644);
	printf("made: %s\n", fd < 0 ? strerror(errno) : "made");
	return 0;
}

/* FIONBIO on and off on stdout, each read back by fcntl(F_GETFL). */
static int do_nbflag(void)
{
	int on = 1, off = 0, a, b;

	if (ioctl(1, FIONBIO, &on) < 0)
		return perror("FIONBIO"), 1;
	a = fcntl(1, F_GETFL);
	if (ioctl(1, FIONBIO, &off) < 0)
		return perror("FIONBIO"), 1;
	b = fcntl(1, F_GETFL);
	printf("after FIONBIO 1: %s; after FIONBIO 0: %s\n",
	       a >= 0 && (a & O_NONBLOCK) ? "non-blocking" : "blocking",
	       b >= 0 && (b & O_NONBLOCK) ? "non-blocking" : "blocking");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && strcmp(argv[1], "ioctl") == 0)
		return do_ioctl();
	if (argc >= 2 && strcmp(argv[1], "nbflag") == 0)
		return do_nbflag();
	if (argc >= 2 && strcmp(argv[1], "ifconf") == 0)
		return do_ifconf();
	if (argc >= 2 && strcmp(argv[1], "select") == 0)
		return do_select();
	if (argc >= 2 && strcmp(argv[1], "send") == 0)
		return do_send(argc >= 3 && strcmp(argv[2], "tcp") == 0);
	if (argc >= 3 && strcmp(argv[1], "sparse") == 0)
		return do_sparse(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "openat2") == 0)
		return do_openat2(argv[2]);
	fprintf(stderr, "usage: outside ioctl|ifconf|select|send|sparse FILE|openat2 FILE\n");
	return 2;
}
