/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest: file metadata. In the directory argv[1] (created here, removed at
 * the end) make files in an order that is not the names' order, a hard
 * link and a subdirectory, then print each entry readdir returns, in that
 * order, with its inode numbers and timestamps from stat and statx.
 * ".." lies outside the run, so only its name is printed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const files[] = { "zeta", "alpha", "mid" };

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void make_file(const char *name)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0)
		die(name);
	if (write(fd, name, strlen(name)) != (ssize_t)strlen(name))
		die(name);
	close(fd);
}

static void show(const struct dirent *d)
{
	struct stat st;
	struct statx sx;

	if (lstat(d->d_name, &st) != 0)
		die(d->d_name);
	if (statx(AT_FDCWD, d->d_name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME,
		  &sx) != 0)
		die(d->d_name);
	printf("%s d_ino %llu st_ino %llu mtime %lld.%09ld ctime %lld.%09ld atime %lld.%09ld",
	       d->d_name, (unsigned long long)d->d_ino, (unsigned long long)st.st_ino,
	       (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec,
	       st.st_ctim.tv_nsec, (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec);
	if (sx.stx_mask & STATX_BTIME)
		printf(" btime %lld.%09u", (long long)sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec);
	else
		printf(" btime -");
	printf(" statx_ino %llu\n", (unsigned long long)sx.stx_ino);
}

int main(int argc, char **argv)
{
	struct stat a, b;
	struct dirent *d;
	DIR *dir;

	if (argc != 2) {
		fprintf(stderr, "usage: files DIR\n");
		return 2;
	}
	if (mkdir(argv[1], 0755) != 0)
		die(argv[1]);
	if (chdir(argv[1]) != 0)
		die(argv[1]);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		make_file(files[i]);
	if (link("zeta", "beta") != 0)
		die("link");
	if (mkdir("sub", 0755) != 0)
		die("sub");

	dir = opendir(".");
	if (!dir)
		die("opendir");
	while ((d = readdir(dir)) != NULL) {
		if (strcmp(d->d_name, "..") == 0)
			printf("..\n");
		else
			show(d);
	}
	closedir(dir);

	if (stat("zeta", &a) != 0 || stat("beta", &b) != 0)
		die("stat");
	printf("hardlink %s\n", a.st_ino == b.st_ino ? "same-inode" : "different-inodes");
	printf("nlink %lu\n", (unsigned long)a.st_nlink);

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (unlink(files[i]) != 0)
			die(files[i]);
	if (unlink("beta") != 0 || rmdir("sub") != 0)
		die("cleanup");
	if (chdir("..") != 0 || rmdir(argv[1]) != 0)
		die("rmdir");
	return 0;
}
