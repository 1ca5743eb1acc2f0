/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Launching a guest (DESIGN.md "Launch").
 *
 * With namespaces the process tree is
 *
 *   hermit (tracer) -> setup -> init (pid 1) -> guest (pid 2) -> ...
 *
 * "setup" unshares a user namespace, waits for the tracer to write its
 * uid and gid maps (writing a full map needs CAP_SETUID in the parent
 * namespace, which only the tracer may have), then unshares the pid, mount,
 * ipc, uts and network namespaces and forks "init". Init mounts /proc for
 * the new pid namespace, brings loopback up, forks the guest and reaps
 * orphans. The guest is not pid 1 because pid 1 ignores signals it has no
 * handler for (kill -9 $$ must kill a shell) and must reap orphans.
 *
 * Setup is seized before it forks, with PTRACE_O_TRACEFORK and friends, so
 * init and the guest are traced from their first instruction. The guest
 * pins itself to one CPU, sets ADDR_NO_RANDOMIZE, PR_TSC_SIGSEGV and
 * no_new_privs, loads the seccomp filter (libseccomp) and execs; only
 * trapped syscalls stop.
 */
#include "config.h"

#include <dirent.h>
#include <ftw.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/common.h"
#include "tracer.h"

/* Write all of BUF, for the few bytes the launch protocol sends. */
static int read_byte(int fd)
{
	char c;
	ssize_t n;

	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? c : -1;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		err = -errno;
	close(fd);
	return err;
}

/*
 * Map ids into the new user namespace: root maps every id to itself, so
 * file owners look as they do outside; anyone else maps only their own.
 */
static int write_id_maps(pid_t pid)
{
	char path[64], map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();
	int err;

	if (uid == 0) {
		snprintf(map, sizeof(map), "0 0 4294967295\n");
	} else {
		snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	}
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	err = write_file(path, map);
	if (err)
		return err;
	if (uid != 0) {
		snprintf(path, sizeof(path), "/proc/%d/setgroups", pid);
		write_file(path, "deny\n");
		snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	}
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	return write_file(path, map);
}

static void child_die(const char *what, int err, int status) __attribute__((noreturn));
static void child_die(const char *what, int err, int status)
{
	hm_error("%s: %s", what, hm_strerror(err));
	_exit(status);
}

/* Exec ARGV[0] the way execvp does, and report failure as DESIGN.md says:
 * 127 when the program is not found, 126 when it cannot be executed. */
static void exec_guest(const struct tracer_launch *l) __attribute__((noreturn));
static void exec_guest(const struct tracer_launch *l)
{
	const char *prog = l->argv[0];
	const char *path;
	int saw_eacces = 0, err = ENOENT;
	char full[4096];

	if (strchr(prog, '/')) {
		execve(prog, l->argv, l->envp);
		err = errno;
	} else {
		/* The guest's PATH, which a replay takes from the recording. */
		path = NULL;
		for (size_t i = 0; l->envp && l->envp[i]; i++) {
			if (strncmp(l->envp[i], "PATH=", 5) == 0)
				path = l->envp[i] + 5;
		}
		if (!path || !*path)
			path = "/usr/local/bin:/usr/bin:/bin";
		while (*path) {
			const char *colon = strchr(path, ':');
			size_t dirlen = colon ? (size_t)(colon - path) : strlen(path);

			if (dirlen == 0)
				snprintf(full, sizeof(full), "%s", prog);
			else
				snprintf(full, sizeof(full), "%.*s/%s", (int)dirlen, path, prog);
			execve(full, l->argv, l->envp);
			if (errno == EACCES)
				saw_eacces = 1;
			else if (errno != ENOENT && errno != ENOTDIR)
				break;
			path += dirlen + (colon ? 1 : 0);
			if (!colon)
				break;
		}
		err = saw_eacces && (errno == ENOENT || errno == ENOTDIR) ? EACCES : errno;
	}
	if (err == ENOENT || err == ENOTDIR) {
		hm_error("cannot run '%s': no such file or directory", prog);
		_exit(HM_EXIT_NOTFOUND);
	}
	hm_error("cannot execute '%s': %s", prog, hm_strerror(err));
	_exit(HM_EXIT_NOEXEC);
}

int *tracer_inherited_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int *fds = xmalloc(sizeof(*fds)), n = 0, self = d ? dirfd(d) : -1;

	while (d && (e = readdir(d))) {
		int fd = atoi(e->d_name), flags;

		if (e->d_name[0] == '.' || fd == self)
			continue;
		flags = fcntl(fd, F_GETFD);
		if (flags < 0 || (flags & FD_CLOEXEC))
			continue;
		fds = xrealloc(fds, (size_t)(n + 2) * sizeof(*fds));
		fds[n++] = fd;
	}
	if (d)
		closedir(d);
	fds[n] = -1;
	for (int i = 1; i < n; i++) /* readdir's order is the kernel's: sort */
		for (int j = i; j > 0 && fds[j - 1] > fds[j]; j--) {
			int x = fds[j];

			fds[j] = fds[j - 1];
			fds[j - 1] = x;
		}
	return fds;
}

/* Start the guest with the descriptors in WANT (ended by -1) and no
 * others it would inherit: a replay's guest sees the recording's. */
static void set_fds(const int *want)
{
	int *have = tracer_inherited_fds();

	for (int i = 0; have[i] >= 0; i++) {
		int keep = 0;

		for (int j = 0; want[j] >= 0; j++)
			keep |= want[j] == have[i];
		if (!keep)
			close(have[i]);
	}
	free(have);
	for (int j = 0; want[j] >= 0; j++) {
		if (fcntl(want[j], F_GETFD) < 0) {
			int null = open("/dev/null", O_RDWR);

			if (null >= 0 && null != want[j]) {
				dup2(null, want[j]);
				close(null);
			}
		} else {
			fcntl(want[j], F_SETFD, 0);
		}
	}
}

/*
 * Pin the guest to one CPU, the lowest one hermit may use, so that what
 * the CPU shows without a syscall is the same on every run: the segment
 * limit lsl reads (the kernel's per-CPU GDT entry, cpu | node << 12),
 * CPUID's initial APIC id, TSC_AUX as rdpid reads it. Threads and children
 * inherit the mask, and the guest's sched_setaffinity is emulated
 * (recorder/sys_identity.c), so nothing moves it off. Under taskset the
 * lowest CPU of the set is taken (docs/determinism.md, "Identity").
 */
static void pin_one_cpu(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set) < 0) {
		hm_warn("cannot read hermit's CPU affinity: %s", hm_strerror(errno));
		return;
	}
	for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set); cpu++)
		;
	if (cpu == CPU_SETSIZE)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		hm_warn("cannot pin the guest to CPU %d: %s", cpu, hm_strerror(errno));
}

static int make_private_folder(const char *path);

/* The guest's last steps before exec: they hold for every descendant. */
static void become_guest(const struct tracer_launch *l, scmp_filter_ctx filter)
	__attribute__((noreturn));
static void become_guest(const struct tracer_launch *l, scmp_filter_ctx filter)
{
	int err;

	/* hermit ignores SIGPIPE; the guest must start with the default. */
	signal(SIGPIPE, SIG_DFL);
	if (l->cwd && chdir(l->cwd) < 0) {
		/* Gone from the host since the recording: a replay's view makes
		 * it again where what the guest writes stays private. */
		err = errno;
		if (err == ENOENT && make_private_folder(l->cwd) == 0 && chdir(l->cwd) == 0)
			err = 0;
		if (err)
			child_die("cannot enter the recorded working folder", err,
				  HM_EXIT_INTERNAL);
	}
	if (l->fds)
		set_fds(l->fds);
	if (l->quiet) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
			child_die("cannot send the guest's output to /dev/null", errno,
				  HM_EXIT_INTERNAL);
		close(null);
	}
	pin_one_cpu();
	if (personality(ADDR_NO_RANDOMIZE) < 0)
		child_die("cannot disable address randomization", errno, HM_EXIT_INTERNAL);
	if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) < 0)
		child_die("cannot make rdtsc trap (PR_SET_TSC)", errno, HM_EXIT_INTERNAL);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_die("cannot set no_new_privs", errno, HM_EXIT_INTERNAL);
	err = seccomp_load(filter);
	if (err)
		child_die("cannot load the seccomp filter", err, HM_EXIT_INTERNAL);
	exec_guest(l);
}

static void loopback_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			hm_warn("cannot bring loopback up: %s", hm_strerror(errno));
	}
	close(fd);
}

/*
 * The CPUs the guest sees: glibc's get_nprocs and sysconf, hence Python's
 * os.cpu_count, read /sys/devices/system/cpu/online. A file holding the
 * virtual list is bind-mounted over it and its siblings, then unlinked
 * (the mounts keep it). memfds cannot be bind-mounted (EINVAL), so it is a
 * temporary file.
 */
static void virtual_cpus(int cpus)
{
	static const char *const files[] = { "online", "possible", "present" };
	char path[] = "/tmp/hermit-cpus-XXXXXX", text[32], target[64];
	int fd, n;

	if (cpus <= 0)
		return;
	fd = mkstemp(path);
	if (fd < 0) {
		hm_warn("cannot virtualize the CPU count: %s", hm_strerror(errno));
		return;
	}
	n = cpus > 1 ? snprintf(text, sizeof(text), "0-%d\n", cpus - 1)
		     : snprintf(text, sizeof(text), "0\n");
	if (write(fd, text, (size_t)n) != n)
		hm_warn("cannot virtualize the CPU count: %s", hm_strerror(errno));
	close(fd);
	chmod(path, 0444);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(target, sizeof(target), "/sys/devices/system/cpu/%s", files[i]);
		if (mount(path, target, NULL, MS_BIND, NULL) < 0)
			hm_debug("cannot bind the CPU list over %s: %s", target,
				 hm_strerror(errno));
	}
	unlink(path);
}

/* Copy FROM to TO: a new file (mode 0555) when EXCL, else over TO's
 * content (its mode kept, 0644 when it is new). 0 or -errno. */
static int copy_file(const char *from, const char *to, int excl)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, err = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_CLOEXEC | (excl ? O_EXCL : O_TRUNC),
		   excl ? 0555 : 0644);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while (!err && (n = read(in, buf, sizeof(buf))) > 0)
		err = hm_write_all(out, buf, (size_t)n);
	if (n < 0 && !err)
		err = -errno;
	close(in);
	close(out);
	return err;
}

/* Folders of / that the guest sees copy-on-write (private_view). */
static char **cow;
static size_t ncow;

/* Whether PATH lies in a copy-on-write folder. */
static int in_private(const char *path)
{
	for (size_t i = 0; i < ncow; i++) {
		size_t n = strlen(cow[i]);

		if (strncmp(path, cow[i], n) == 0 && path[n] == '/')
			return 1;
	}
	return 0;
}

/* Whether a mount point other than PATH itself lies below PATH. */
static int has_mounts_below(const char *path)
{
	char line[4096], mnt[4096];
	size_t n = strlen(path);
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int below = 0;

	if (!f)
		return 1;
	while (!below && fgets(line, sizeof(line), f)) {
		/* id parent major:minor root mount-point ... */
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1)
			below = strncmp(mnt, path, n) == 0 && mnt[n] == '/';
	}
	fclose(f);
	return below;
}

/*
 * A replay must not change the world: each folder of / that holds no
 * other mount below it (and is not /proc, /sys or /dev) gets an overlay of
 * itself whose upper layer is a private tmpfs, so what the guest writes
 * stays in memory and vanishes with the replay. Folders with mounts below
 * them (their files would hide those mounts) stay as they are; a folder
 * that cannot be overlaid is left too, with a debug line.
 */
static void private_view(void)
{
	char stage[] = "/dev/shm/hermit-cow-XXXXXX";
	struct dirent *e;
	DIR *root;
	int k = 0;

	if (!mkdtemp(stage)) {
		hm_warn("cannot make the replay's writes private: %s", hm_strerror(errno));
		return;
	}
	if (mount("tmpfs", stage, "tmpfs", 0, "mode=0700") < 0) {
		hm_warn("cannot make the replay's writes private: %s", hm_strerror(errno));
		rmdir(stage);
		return;
	}
	root = opendir("/");
	while (root && (e = readdir(root))) {
		char path[512], upper[128], work[128], opts[1024];
		struct stat st;

		snprintf(path, sizeof(path), "/%s", e->d_name);
		if (e->d_name[0] == '.' || strcmp(e->d_name, "proc") == 0 ||
		    strcmp(e->d_name, "sys") == 0 || strcmp(e->d_name, "dev") == 0 ||
		    strpbrk(e->d_name, ",:\\ ") || lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    has_mounts_below(path))
			continue;
		snprintf(upper, sizeof(upper), "%s/%d", stage, k);
		mkdir(upper, 0700);
		snprintf(upper, sizeof(upper), "%s/%d/u", stage, k);
		snprintf(work, sizeof(work), "%s/%d/w", stage, k);
		k++;
		if (mkdir(upper, 0755) < 0 || mkdir(work, 0700) < 0)
			continue;
		snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s,userxattr", path,
			 upper, work);
		if (mount("overlay", path, "overlay", 0, opts) < 0) {
			hm_debug("replay: '%s' is not private: %s", path, hm_strerror(errno));
			continue;
		}
		cow = xrealloc(cow, (ncow + 1) * sizeof(*cow));
		cow[ncow++] = xstrdup(path);
	}
	if (root)
		closedir(root);
	/* The overlays hold the tmpfs; its folder on the host goes. */
	umount2(stage, MNT_DETACH);
	rmdir(stage);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT)
		hm_debug("replay: cannot remove '%s': %s", path, hm_strerror(errno));
	return 0;
}

/* Remove PATH and what is below it (rm -rf), not following links. */
static void remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode))
		unlink(path);
	else
		nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Make the folders above PATH that are missing (mkdir -p of its parent). */
static void make_parents(const char *path)
{
	char dir[4096];

	for (size_t i = 1; path[i] && i < sizeof(dir); i++) {
		if (path[i] != '/')
			continue;
		snprintf(dir, sizeof(dir), "%.*s", (int)i, path);
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return;
	}
}

/*
 * Whether what PATH (absolute) names can be changed in the replay's
 * private view alone: the nearest folder above it that exists must lie,
 * once its symbolic links are followed, in a copy-on-write folder (the
 * path's own words are no proof: through a link to a folder the view
 * does not cover, a change would reach the host). 0, or -errno (-EXDEV:
 * not private).
 */
static int private_above(const char *path)
{
	char have[4096], real[PATH_MAX + 2];
	struct stat st;

	if (path[0] != '/' || strlen(path) >= sizeof(have) - 1)
		return -EINVAL;
	snprintf(have, sizeof(have), "%s", path);
	do {
		char *slash = strrchr(have, '/');

		if (slash == have)
			return -EXDEV; /* a folder of / itself: never private */
		*slash = 0;
	} while (stat(have, &st) < 0);
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (!realpath(have, real))
		return -errno;
	strcat(real, "/");
	return in_private(real) ? 0 : -EXDEV;
}

/* Make the folder PATH and those above it that are missing, in the
 * replay's private view only (private_above). 0, or -errno. */
static int make_private_folder(const char *path)
{
	char dirs[4096 + 2];
	struct stat st;
	int err = private_above(path);

	if (err)
		return err;
	snprintf(dirs, sizeof(dirs), "%s/", path);
	make_parents(dirs);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -ENOENT;
}

/* Whether P's path lies at or below DIR. */
static int at_or_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '/' || !path[n]);
}

/*
 * Put path P back as the recorded run first found it, in the private
 * view: an absent path is removed, a folder made, a file given its
 * recorded content (or, where only its size was kept, a placeholder of
 * that size unless the file there has it), a link made again. 0 or -errno.
 */
static int put_path_back(const struct tracer_path *p)
{
	struct stat st;
	char target[4096];
	int have = lstat(p->path, &st) == 0, fd, err = private_above(p->path);
	ssize_t n;

	if (err)
		return err; /* (it would remove or make things on the host) */
	switch (p->kind) {
	case TRACER_PATH_ABSENT:
		remove_tree(p->path);
		return 0;
	case TRACER_PATH_DIR:
		if (have && S_ISDIR(st.st_mode))
			return 0;
		remove_tree(p->path);
		make_parents(p->path);
		return mkdir(p->path, p->mode ? p->mode : 0755) < 0 ? -errno : 0;
	case TRACER_PATH_SYMLINK:
		if (have && S_ISLNK(st.st_mode) &&
		    (n = readlink(p->path, target, sizeof(target) - 1)) >= 0 &&
		    (target[n] = 0, strcmp(target, p->target) == 0))
			return 0;
		remove_tree(p->path);
		make_parents(p->path);
		return symlink(p->target, p->path) < 0 ? -errno : 0;
	case TRACER_PATH_SIZED:
		if (have && S_ISREG(st.st_mode) && (uint64_t)st.st_size == p->size)
			return 0;
		remove_tree(p->path);
		make_parents(p->path);
		fd = open(p->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			  p->mode ? p->mode : 0644);
		if (fd < 0)
			return -errno;
		if (ftruncate(fd, (off_t)p->size) < 0)
			err = -errno;
		close(fd);
		return err;
	case TRACER_PATH_FILE:
		if (have && !S_ISREG(st.st_mode))
			remove_tree(p->path);
		make_parents(p->path);
		err = copy_file(p->copy, p->path, 0);
		if (!err && p->mode && chmod(p->path, p->mode) < 0)
			err = -errno;
		return err;
	}
	return 0;
}

/* Whether the bind of a recorded copy at PATH would cover what the run
 * made itself: a path put back with its content, or one below a path
 * that was absent (the guest makes it again). */
static int made_by_run(const char *path, const struct tracer_path *before, size_t nbefore)
{
	for (size_t i = 0; i < nbefore; i++) {
		if (before[i].kind == TRACER_PATH_FILE && strcmp(before[i].path, path) == 0)
			return 1;
		if (before[i].kind == TRACER_PATH_ABSENT && at_or_below(path, before[i].path))
			return 1;
	}
	return 0;
}

/*
 * Replay: put each recorded file in place of its original path, in this
 * mount namespace only. First every path the recorded run touched is put
 * back as it found it (put_path_back), in the private view only. Then,
 * where the original of a mapped file still exists, a bind mount covers
 * it; where it is gone (the program was deleted), a copy goes in its
 * place in the private view, or where the folder is not private, the
 * folder gets a read-only overlay holding the copy.
 */
static void put_files_in_place(char *const *binds, const int *held,
			       const struct tracer_path *before, size_t nbefore)
{
	char stage[] = "/tmp/hermit-stage-XXXXXX";
	int staged = 0, n = 0;

	for (size_t i = 0; i < nbefore; i++) {
		const struct tracer_path *p = &before[i];
		int err;

		if (!in_private(p->path)) {
			if (p->kind != TRACER_PATH_DIR)
				hm_debug("replay: cannot put '%s' back as it was: its folder "
					 "is not private",
					 p->path);
			continue;
		}
		err = put_path_back(p);
		if (err)
			hm_debug("replay: cannot put '%s' back as it was: %s", p->path,
				 hm_strerror(err));
	}
	for (size_t i = 0; binds && binds[i] && binds[i + 1]; i += 2) {
		const char *path = binds[i + 1];
		char dir[4096], layer[4096 + 64], copy[8192], opts[16384], file[64];
		const char *slash = strrchr(path, '/');
		struct stat st;

		if (made_by_run(path, before, nbefore))
			continue;
		/* The copy as opened before the private view hid its file system. */
		snprintf(file, sizeof(file), "/proc/self/fd/%d", held[i / 2]);
		if (stat(path, &st) == 0) {
			if (mount(file, path, NULL, MS_BIND, NULL) < 0)
				child_die("cannot put a recorded file in place", errno,
					  HM_EXIT_INTERNAL);
			continue;
		}
		if (in_private(path)) {
			/* (its folder may be gone too: made again, privately) */
			if (slash && slash != path) {
				snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
				make_private_folder(dir);
			}
			if (copy_file(file, path, 1) == 0)
				continue;
		}
		if (!slash || (size_t)(slash - path) >= sizeof(dir))
			continue;
		if (!staged) {
			if (!mkdtemp(stage) || mount("tmpfs", stage, "tmpfs", 0, "mode=0700") < 0)
				child_die("cannot stage the recorded files", errno,
					  HM_EXIT_INTERNAL);
			staged = 1;
		}
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		if (!*dir)
			snprintf(dir, sizeof(dir), "/");
		snprintf(layer, sizeof(layer), "%s/%d", stage, n++);
		snprintf(copy, sizeof(copy), "%s/%s", layer, slash + 1);
		snprintf(opts, sizeof(opts), "lowerdir=%s:%s", layer, dir);
		if (mkdir(layer, 0755) < 0 || copy_file(file, copy, 1) < 0 ||
		    mount("overlay", dir, "overlay", MS_RDONLY, opts) < 0) {
			hm_error("cannot replay: '%s' is gone and cannot be put back: %s", path,
				 hm_strerror(errno));
			_exit(HM_EXIT_INTERNAL);
		}
	}
	/* The stage folder stays empty on the host: remove it there. */
	if (staged)
		umount2(stage, MNT_DETACH), rmdir(stage);
}

/* O_PATH descriptors of the copies in BINDS' pairs, ended by -1. */
static int *hold_files(char *const *binds)
{
	size_t n = 0;
	int *held;

	while (binds && binds[n] && binds[n + 1])
		n += 2;
	held = xmalloc((n / 2 + 1) * sizeof(*held));
	for (size_t i = 0; i < n; i += 2) {
		held[i / 2] = open(binds[i], O_PATH | O_CLOEXEC);
		if (held[i / 2] < 0)
			child_die("cannot open a recorded file", errno, HM_EXIT_INTERNAL);
	}
	held[n / 2] = -1;
	return held;
}

/* Pid 1 of the new pid namespace. */
static void run_init(const struct tracer_launch *l, scmp_filter_ctx filter)
	__attribute__((noreturn));
static void run_init(const struct tracer_launch *l, scmp_filter_ctx filter)
{
	pid_t guest;
	int *held;

	if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0)
		child_die("cannot make the mount namespace private", errno, HM_EXIT_INTERNAL);
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		hm_warn("cannot mount /proc for the guest: %s", hm_strerror(errno));
	if (!l->network_host)
		loopback_up();
	virtual_cpus(l->cpus);
	/* Hold the recorded copies first: the private view would put them
	 * behind an overlay, whose mappings the kernel places differently
	 * (no huge-page alignment), and the replay's addresses would move. */
	held = hold_files(l->binds);
	if (l->private_files)
		private_view();
	put_files_in_place(l->binds, held, l->before, l->nbefore);
	for (size_t i = 0; held[i] >= 0; i++)
		close(held[i]);
	free(held);
	sethostname("hermit", 6);
	setdomainname("(none)", 6);
	guest = fork();
	if (guest < 0)
		child_die("cannot fork the guest", errno, HM_EXIT_INTERNAL);
	if (guest == 0)
		become_guest(l, filter);
	/* A session of our own, as the host's init has: a process group
	 * whose other members' parents are gone (to us) is orphaned, and a
	 * stopped one gets SIGHUP and SIGCONT from the kernel (POSIX;
	 * kill_orphaned_pgrp(), kernel/exit.c). In the guest's session, we
	 * would keep every such group from being orphaned. The guest stays in
	 * hermit's session, with its terminal. */
	setsid();
	/* Reap whatever is orphaned to us; the tracer ends us. */
	for (;;) {
		if (wait(NULL) < 0 && errno == ECHILD)
			pause();
	}
}

static void run_setup(const struct tracer_launch *l, scmp_filter_ctx filter, int to_tracer,
		      int from_tracer) __attribute__((noreturn));
static void run_setup(const struct tracer_launch *l, scmp_filter_ctx filter, int to_tracer,
		      int from_tracer)
{
	int flags = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS;
	int status;
	pid_t init;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (unshare(CLONE_NEWUSER) < 0)
		child_die("cannot create a user namespace (try --no-namespace)", errno,
			  HM_EXIT_INTERNAL);
	if (hm_write_all(to_tracer, "u", 1) < 0 || read_byte(from_tracer) != 'g')
		_exit(HM_EXIT_INTERNAL);
	close(to_tracer);
	close(from_tracer);
	if (!l->network_host)
		flags |= CLONE_NEWNET;
	if (unshare(flags) < 0)
		child_die("cannot create namespaces (try --no-namespace)", errno, HM_EXIT_INTERNAL);
	init = fork();
	if (init < 0)
		child_die("cannot fork init", errno, HM_EXIT_INTERNAL);
	if (init == 0)
		run_init(l, filter);
	while (waitpid(init, &status, 0) < 0 && errno == EINTR)
		;
	_exit(0);
}

static scmp_filter_ctx build_filter(const struct tracer_launch *l)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (!ctx)
		return NULL;
	/* A binary tree of syscall numbers instead of a linear list: every
	 * syscall the guest makes runs this filter (libseccomp 2.5). */
	seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	/* A syscall of another ABI (int $0x80, or an x32 number, which the
	 * x86-64 filter counts as another architecture) raises SIGSYS, whose
	 * siginfo names it, rather than killing the guest: the recorder
	 * answers x32 numbers with ENOSYS as a kernel without x32 does, and
	 * refuses 32-bit calls in one line (recorder/sys_refuse.c). */
	seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_TRAP);
	for (size_t i = 0; i < l->ntraps; i++) {
		const struct tracer_trap *t = &l->traps[i];
		struct scmp_arg_cmp cmp[4];
		unsigned n = 0, m = 0;
		int err;

		if (t->fd_min > 0)
			cmp[n++] = SCMP_A0(SCMP_CMP_GE, (scmp_datum_t)t->fd_min);
		m = n; /* (where the match goes) */
		if (t->match_arg > 0)
			/* an int: the kernel ignores the upper half of the register */
			cmp[n++] = SCMP_CMP((unsigned)t->match_arg - 1, SCMP_CMP_MASKED_EQ,
					    0xffffffffULL, (scmp_datum_t)(uint32_t)t->match);
		if (t->mask)
			cmp[n++] = SCMP_CMP((unsigned)t->mask_arg, SCMP_CMP_MASKED_EQ, t->mask,
					    t->mask);
		if (t->nonzero_arg > 0)
			cmp[n++] = SCMP_CMP((unsigned)t->nonzero_arg - 1, SCMP_CMP_NE, 0);
		err = seccomp_rule_add_array(ctx, SCMP_ACT_TRACE(0), t->nr, n, cmp);
		/* The other values of the argument: one rule each (rules of
		 * a syscall are alternatives). */
		for (unsigned v = 0; !err && t->match_arg > 0 && v < 64; v++) {
			if (!(t->match_also >> v & 1))
				continue;
			cmp[m] = SCMP_CMP((unsigned)t->match_arg - 1, SCMP_CMP_MASKED_EQ,
					  0xffffffffULL, (scmp_datum_t)v);
			err = seccomp_rule_add_array(ctx, SCMP_ACT_TRACE(0), t->nr, n, cmp);
		}
		if (err) {
			hm_error("cannot add syscall %d to the seccomp filter: %s", t->nr,
				 hm_strerror(err));
			seccomp_release(ctx);
			return NULL;
		}
	}
	return ctx;
}

static int seize(pid_t pid)
{
	int err = tracer_seize(pid);

	if (err)
		hm_error("cannot trace process %d: %s", pid, hm_strerror(err));
	return err;
}

static int launch_plain(const struct tracer_launch *l, scmp_filter_ctx filter,
			struct tracer_guest *guest)
{
	int go[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(go[0]);
		close(go[1]);
		return err;
	}
	if (pid == 0) {
		close(go[1]);
		if (read_byte(go[0]) != 'g')
			_exit(HM_EXIT_INTERNAL);
		become_guest(l, filter);
	}
	close(go[0]);
	guest->main = pid;
	if (seize(pid) < 0) {
		kill(pid, SIGKILL);
		close(go[1]);
		return -EPERM;
	}
	hm_write_all(go[1], "g", 1);
	close(go[1]);
	return 0;
}

static int launch_namespaced(const struct tracer_launch *l, scmp_filter_ctx filter,
			     struct tracer_guest *guest)
{
	int up[2], down[2], err;
	pid_t pid;

	if (pipe2(up, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(down, O_CLOEXEC) < 0) {
		err = -errno;
		close(up[0]);
		close(up[1]);
		return err;
	}
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto out;
	}
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		run_setup(l, filter, up[1], down[0]);
	}
	close(up[1]);
	up[1] = -1;
	close(down[0]);
	down[0] = -1;
	if (read_byte(up[0]) != 'u') {
		int status;

		/* setup printed why it could not go on */
		waitpid(pid, &status, 0);
		err = -EPERM;
		goto out;
	}
	err = write_id_maps(pid);
	if (err) {
		hm_error("cannot write the user namespace id maps: %s", hm_strerror(err));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto out;
	}
	err = seize(pid);
	if (err) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		goto out;
	}
	guest->system[0] = pid;
	hm_write_all(down[1], "g", 1);
	err = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (up[i] >= 0)
			close(up[i]);
		if (down[i] >= 0)
			close(down[i]);
	}
	return err;
}

int tracer_launch(const struct tracer_launch *l, struct tracer_guest *guest)
{
	scmp_filter_ctx filter;
	int err;

	memset(guest, 0, sizeof(*guest));
	filter = build_filter(l);
	if (!filter)
		return -EINVAL;
	/* Orphans of the guest come back to us (no namespaces) and stay traced. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	fflush(NULL);
	if (l->namespaces)
		err = launch_namespaced(l, filter, guest);
	else
		err = launch_plain(l, filter, guest);
	seccomp_release(filter);
	return err;
}
