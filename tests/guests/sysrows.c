/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One mode per row of docs/record-replay.md's "Refused calls" and "Calls
 * kept inside the guest" that hermit must record, replay or refuse:
 *
 *   memfd      memfd_create, a write, a shared mapping and pread of it
 *   pvm        process_vm_readv and process_vm_writev on a child, and
 *              process_vm_readv on pid 1 (hermit's init under namespaces)
 *   pidfd      pidfd_open and pidfd_getfd on a child, pidfd_getfd on pid 1
 *   refused    userfaultfd, perf_event_open, bpf, fanotify_init,
 *              name_to_handle_at, open_by_handle_at, mq_open
 *   msg        a System V message from a child to its parent
 *   inotify D  waits for one inotify event in folder D ("watching" on
 *              stderr once it watches) and prints it
 *   mapshared F  maps F shared, prints its first 8 bytes, says "mapped"
 *              on stderr, then reads a byte from stdin and prints them again
 *   mapchild F   the same, but a child process writes "CCCCCCCC" at F's start
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/* "WHAT: ok" or "WHAT: <strerror>" */
static void say(const char *what, long ret)
{
	printf("%s: %s\n", what, ret >= 0 ? "ok" : strerror(errno));
}

static int memfd(void)
{
	char buf[64];
	char *p;
	long n;
	int fd = memfd_create("sysrows", 0);

	say("memfd_create", fd);
	if (fd < 0 || write(fd, "hello memfd\n", 12) != 12)
		return 1;
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	printf("mapped: %.12s", p);
	n = pread(fd, buf, sizeof(buf), 0);
	printf("pread: %.*s", (int)(n > 0 ? n : 0), buf);
	return 0;
}

static int pvm(void)
{
	static char word[16] = "child's word";
	char buf[16] = { 0 };
	struct iovec mine = { buf, 13 }, theirs = { word, 13 }, out = { "parent wrote", 13 };
	int go[2];
	pid_t c;

	if (pipe(go) < 0)
		return 1;
	c = fork();
	if (c == 0) {
		char b;

		if (read(go[0], &b, 1) != 1)
			return 1;
		printf("child now: %s\n", word);
		return 0;
	}
	say("process_vm_readv", syscall(SYS_process_vm_readv, c, &mine, 1, &theirs, 1, 0));
	printf("read: %s\n", buf);
	say("process_vm_writev", syscall(SYS_process_vm_writev, c, &out, 1, &theirs, 1, 0));
	fflush(stdout);
	if (write(go[1], "g", 1) != 1)
		return 1;
	waitpid(c, NULL, 0);
	say("process_vm_readv(1)", syscall(SYS_process_vm_readv, 1, &mine, 1, &theirs, 1, 0));
	return 0;
}

static int pidfd(void)
{
	char buf[64];
	int p[2], pfd, fd;
	long n;
	pid_t c;

	if (pipe(p) < 0)
		return 1;
	c = fork();
	if (c == 0)
		return write(p[1], "via pidfd_getfd\n", 16) == 16 ? 0 : 1;
	pfd = (int)syscall(SYS_pidfd_open, c, 0);
	say("pidfd_open", pfd);
	fd = (int)syscall(SYS_pidfd_getfd, pfd, p[0], 0);
	say("pidfd_getfd", fd);
	n = fd >= 0 ? read(fd, buf, sizeof(buf)) : 0;
	printf("read: %.*s", (int)(n > 0 ? n : 0), buf);
	pfd = (int)syscall(SYS_pidfd_open, 1, 0);
	say("pidfd_getfd(1)", pfd < 0 ? pfd : syscall(SYS_pidfd_getfd, pfd, 0, 0));
	waitpid(c, NULL, 0);
	return 0;
}

static int refused(void)
{
	struct {
		unsigned bytes;
		int type;
		unsigned char h[128];
	} fh = { 128, 0, { 0 } };
	int mount_id;

	say("userfaultfd", syscall(SYS_userfaultfd, 0));
	say("perf_event_open", syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0));
	say("bpf", syscall(SYS_bpf, 0, NULL, 0));
	say("fanotify_init", syscall(SYS_fanotify_init, 0, 0));
	say("name_to_handle_at", syscall(SYS_name_to_handle_at, AT_FDCWD, "/", &fh, &mount_id, 0));
	say("open_by_handle_at", syscall(SYS_open_by_handle_at, AT_FDCWD, &fh, O_RDONLY));
	say("mq_open", mq_open("/sysrows", O_CREAT | O_RDWR, 0600, NULL));
	return 0;
}

static int msg(void)
{
	struct {
		long type;
		char text[32];
	} m = { 1, "sysv message" };
	int q = msgget(IPC_PRIVATE, 0600);
	pid_t c;
	long n;

	say("msgget", q);
	if (q < 0)
		return 0;
	fflush(stdout);
	c = fork();
	if (c == 0)
		return msgsnd(q, &m, 13, 0) == 0 ? 0 : 1;
	memset(&m, 0, sizeof(m));
	n = msgrcv(q, &m, sizeof(m.text), 0, 0);
	printf("msgrcv: %ld %s\n", n, n > 0 ? m.text : strerror(errno));
	waitpid(c, NULL, 0);
	msgctl(q, IPC_RMID, NULL);
	return 0;
}

static int watch(const char *dir)
{
	char buf[4096] __attribute__((aligned(8)));
	struct inotify_event *e = (struct inotify_event *)buf;
	int fd = inotify_init1(0);
	long n;

	if (fd < 0 || inotify_add_watch(fd, dir, IN_CREATE) < 0) {
		perror(dir);
		return 1;
	}
	fprintf(stderr, "watching\n");
	n = read(fd, buf, sizeof(buf));
	if (n < (long)sizeof(*e))
		return 1;
	printf("event: mask %#x name %s\n", e->mask, e->len ? e->name : "");
	return 0;
}

static int mapshared(const char *path, int child)
{
	int fd = open(path, O_RDONLY);
	char *p = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	char b;

	if (p == MAP_FAILED) {
		perror(path);
		return 1;
	}
	printf("first: %.8s\n", p);
	fflush(stdout);
	if (child) {
		pid_t c = fork();

		if (c == 0) {
			int w = open(path, O_WRONLY);

			return w >= 0 && pwrite(w, "CCCCCCCC", 8, 0) == 8 ? 0 : 1;
		}
		waitpid(c, NULL, 0);
	} else {
		fprintf(stderr, "mapped\n");
		if (read(0, &b, 1) != 1)
			return 1;
	}
	printf("then: %.8s\n", p);
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (strcmp(m, "memfd") == 0)
		return memfd();
	if (strcmp(m, "pvm") == 0)
		return pvm();
	if (strcmp(m, "pidfd") == 0)
		return pidfd();
	if (strcmp(m, "refused") == 0)
		return refused();
	if (strcmp(m, "msg") == 0)
		return msg();
	if (strcmp(m, "inotify") == 0 && argc == 3)
		return watch(argv[2]);
	if (strcmp(m, "mapshared") == 0 && argc == 3)
		return mapshared(argv[2], 0);
	if (strcmp(m, "mapchild") == 0 && argc == 3)
		return mapshared(argv[2], 1);
	fprintf(stderr, "usage: sysrows memfd|pvm|pidfd|refused|msg|inotify DIR|mapshared FILE|"
			"mapchild FILE\n");
	return 2;
}
