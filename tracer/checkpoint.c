/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Copies of a guest process, for a replay's checkpoints (DESIGN.md
 * "Replay"; the policy is replayer/checkpoint.c).
 *
 * A copy is made by the process itself: a fork injected at a stop where
 * nothing is half done in the kernel (a syscall-exit stop, or a seccomp
 * stop of a call the replay skips). CLONE_PARENT gives the copy the
 * original's parent (init). The copy gets the original's registers and
 * is detached with SIGSTOP: it waits, stopped and untraced, its memory the
 * original's at the moment of the copy.
 *
 * Reviving a copy makes a second fork, in the copy, with clone3's set_tid:
 * the new process has the original's pid in the guest's namespace (the
 * original must be gone by then), the copy's memory and the original's
 * registers, and is traced by the caller, stopped. The copy stays as it
 * was, to be revived again.
 *
 * Only a process of one thread whose descriptors are files, and which
 * shares no writable memory, is copied: a fork does not copy threads,
 * and pipes, sockets or shared mappings are the same objects in the copy,
 * changed by what the original did since.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "tracer.h"

/* clone3's argument (linux/sched.h, Linux 5.5). */
struct clone3_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	uint64_t set_tid, set_tid_size, cgroup;
};

static int count_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

int tracer_copy_check(pid_t tid, int (*fd_ok)(void *ctx, int fd), void *ctx, char *why, size_t size)
{
	char path[64], line[512];
	DIR *d;
	struct dirent *e;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", tid);
	if (count_entries(path) != 1) {
		snprintf(why, size, "it has more than one thread");
		return -EAGAIN;
	}
	snprintf(path, sizeof(path), "/proc/%d/fd", tid);
	d = opendir(path);
	if (!d) {
		snprintf(why, size, "its descriptors cannot be read");
		return -EAGAIN;
	}
	while ((e = readdir(d))) {
		char target[256];
		int fd = atoi(e->d_name);

		if (e->d_name[0] == '.' || fd <= 2)
			continue;
		if (tracer_fd_target(tid, fd, target, sizeof(target)) < 0 ||
		    (target[0] != '/' && !fd_ok(ctx, fd))) {
			snprintf(why, size, "descriptor %d is not a file (%s)", fd, target);
			closedir(d);
			return -EAGAIN;
		}
	}
	closedir(d);
	snprintf(path, sizeof(path), "/proc/%d/maps", tid);
	f = fopen(path, "re");
	if (!f) {
		snprintf(why, size, "its mappings cannot be read");
		return -EAGAIN;
	}
	while (fgets(line, sizeof(line), f)) {
		char perms[8] = "";

		if (sscanf(line, "%*s %7s", perms) == 1 && perms[1] == 'w' && perms[3] == 's') {
			snprintf(why, size, "it shares writable memory");
			fclose(f);
			return -EAGAIN;
		}
	}
	fclose(f);
	return 0;
}

/* Resume TID with PTRACE_SYSCALL until the exit stop of the call it is in
 * (or enters); a fork on the way gives its child in *CHILD. */
/* (Any signal but SIGSTOP ends it with -EAGAIN: the caller gives up.) */
static int finish_call(pid_t tid, pid_t *child)
{
	for (;;) {
		struct tracer_stop s;
		int err = tracer_syscall(tid, 0);

		if (!err)
			err = tracer_wait_tid(tid, &s);
		if (err)
			return err;
		switch (s.kind) {
		case TRACER_EXITED:
		case TRACER_KILLED:
			return -ESRCH;
		case TRACER_FORK:
		case TRACER_CLONE:
		case TRACER_VFORK:
			*child = (pid_t)s.msg;
			break;
		case TRACER_SYSCALL_EXIT:
			return 0;
		case TRACER_SIGNAL:
			/* A copy's SIGSTOP that kept it waiting comes late: drop it. */
			if (s.sig == SIGSTOP)
				break;
			/* Not now: the signal is sent again once the call is done. */
			syscall(SYS_tkill, tid, s.sig);
			return -EAGAIN;
		default:
			break; /* entry, seccomp: on to the exit */
		}
	}
}

/* Let traced PID go, to stop at once and wait untraced. (A signal given
 * to PTRACE_DETACH is lost at an event or syscall stop: send it first.) */
static int park(pid_t pid)
{
	if (syscall(SYS_tgkill, pid, pid, SIGSTOP) < 0 || ptrace(PTRACE_DETACH, pid, 0, 0) < 0)
		return -errno;
	return 0;
}

/* Wait for new process PID's first stop. */
static int first_stop(pid_t pid)
{
	struct tracer_stop s;
	int err = tracer_wait_tid(pid, &s);

	if (err)
		return err;
	if (s.kind == TRACER_EXITED || s.kind == TRACER_KILLED)
		return -ESRCH;
	return 0;
}

/* The highest pid numbers are where copies go: clone3 with set_tid does
 * not move the namespace's cursor, so the guest's own forks and threads
 * get the pids they got when recorded. */
static pid_t pid_max(void)
{
	char buf[32];
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	long n = 32768;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			n = atol(buf);
		fclose(f);
	}
	return n > 300 ? (pid_t)n : 32768;
}

/* Make stopped process TID (registers AT) run clone3 with CLONE_PARENT
 * and set_tid WANT (0: the highest free pid, see pid_max), from a stop
 * where the instruction before at->rip is a syscall (FROM_SECCOMP: a
 * seccomp stop of a skipped call, which runs ours in its place). The
 * child's host pid in *CHILD; TID's registers and memory are as before. */
static int fork_as(pid_t tid, const struct user_regs_struct *at, int from_seccomp, pid_t want,
		   pid_t *child)
{
	struct clone3_args a;
	struct user_regs_struct regs;
	unsigned char saved[sizeof(a) + 8];
	uint64_t scratch = (at->rsp - 128 - sizeof(saved)) & ~(uint64_t)15;
	pid_t top = want ? want : pid_max() - 1;
	int err, tries = 0;

	*child = 0;
	err = tracer_read_mem(tid, scratch, saved, sizeof(saved));
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.flags = CLONE_PARENT;
	a.set_tid = scratch + sizeof(a);
	a.set_tid_size = 1;
	for (;;) {
		pid_t nr = want ? want : top - tries;

		err = tracer_write_mem(tid, scratch, &a, sizeof(a));
		if (!err)
			err = tracer_write_mem(tid, scratch + sizeof(a), &nr, sizeof(nr));
		if (err)
			break;
		regs = *at;
		if (from_seccomp) {
			regs.orig_rax = SYS_clone3;
		} else {
			regs.rip -= 2;
			regs.rax = SYS_clone3;
		}
		regs.rdi = scratch;
		regs.rsi = sizeof(a);
		err = tracer_set_regs(tid, &regs);
		if (!err)
			err = finish_call(tid, child);
		if (!err && !*child) {
			err = tracer_get_regs(tid, &regs);
			if (!err)
				err = (long)regs.rax < 0 ? (int)regs.rax : -ECHILD;
		}
		/* A seccomp stop runs one call: the next try starts at an exit stop. */
		from_seccomp = 0;
		if (err != -EEXIST || ++tries > (want ? 200 : 64))
			break;
		/* Wanted: free once init has reaped the process that had it. */
		if (want)
			nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
	tracer_write_mem(tid, scratch, saved, sizeof(saved));
	if (tracer_set_regs(tid, at) < 0 && !err)
		err = -ESRCH;
	if (*child) {
		int e = first_stop(*child);

		if (!e)
			e = tracer_write_mem(*child, scratch, saved, sizeof(saved));
		if (!e)
			e = tracer_set_regs(*child, at);
		if (e) {
			kill(*child, SIGKILL);
			*child = 0;
			err = err ? err : e;
		}
	}
	return *child ? 0 : (err ? err : -ECHILD);
}

/* The offsets of TID's descriptors above 2 that are files: 0, or -EAGAIN
 * when there are more than C can hold. */
static int note_files(pid_t tid, struct tracer_copy *c)
{
	char path[64], target[256], line[128];
	DIR *d;
	struct dirent *e;
	int err = 0;

	c->nfiles = 0;
	snprintf(path, sizeof(path), "/proc/%d/fd", tid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d)) && !err) {
		int fd = atoi(e->d_name);
		FILE *f;

		if (e->d_name[0] == '.' || fd <= 2 ||
		    tracer_fd_target(tid, fd, target, sizeof(target)) < 0 || target[0] != '/')
			continue;
		if (c->nfiles == TRACER_COPY_FILES) {
			err = -EAGAIN;
			break;
		}
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", tid, fd);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			long long pos;

			if (sscanf(line, "pos: %lld", &pos) == 1) {
				c->fd[c->nfiles] = fd;
				c->pos[c->nfiles++] = pos;
				break;
			}
		}
		fclose(f);
	}
	closedir(d);
	return err;
}

int tracer_copy_make(pid_t tid, struct tracer_copy *c)
{
	struct __ptrace_syscall_info info;
	pid_t child;
	int err;

	memset(c, 0, sizeof(*c));
	err = tracer_get_regs(tid, &c->regs);
	if (err)
		return err;
	memset(&info, 0, sizeof(info));
	if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, sizeof(info), &info) < 0)
		return -errno;
	if (info.op != PTRACE_SYSCALL_INFO_EXIT &&
	    !(info.op == PTRACE_SYSCALL_INFO_SECCOMP && (long)c->regs.orig_rax == -1))
		return -EAGAIN;
	err = note_files(tid, c);
	if (err)
		return err;
	err = fork_as(tid, &c->regs, info.op == PTRACE_SYSCALL_INFO_SECCOMP, 0, &child);
	if (err)
		return err;
	err = park(child);
	if (err) {
		kill(child, SIGKILL);
		return err;
	}
	c->pid = child;
	return 0;
}

int tracer_seize(pid_t pid)
{
	if (ptrace(PTRACE_SEIZE, pid, 0, TRACER_PTRACE_OPTIONS) < 0)
		return -errno;
	return 0;
}

int tracer_detach(pid_t pid)
{
	struct tracer_stop s;
	int err = tracer_interrupt(pid);

	/* Only a stopped tracee can be let go. */
	if (!err)
		err = tracer_wait_tid(pid, &s);
	if (err)
		return err;
	if (s.kind == TRACER_EXITED || s.kind == TRACER_KILLED)
		return 0;
	if (ptrace(PTRACE_DETACH, pid, 0, s.kind == TRACER_SIGNAL ? s.sig : 0) < 0)
		return -errno;
	return 0;
}

/* Seize the stopped copy C and see its stop. */
static int take_copy(const struct tracer_copy *c)
{
	struct tracer_stop s;
	int err = tracer_seize(c->pid);

	if (err)
		return err;
	/* A stopped process seized reports its group stop. */
	err = tracer_wait_tid(c->pid, &s);
	if (err)
		return err;
	return s.kind == TRACER_EXITED || s.kind == TRACER_KILLED ? -ESRCH : 0;
}

int tracer_copy_revive(const struct tracer_copy *c, pid_t nspid, pid_t *out)
{
	pid_t child = 0;
	int err;

	*out = 0;
	err = take_copy(c);
	if (err)
		return err;
	err = fork_as(c->pid, &c->regs, 0, nspid, &child);
	if (park(c->pid) < 0 && !err)
		err = -ESRCH;
	if (err) {
		if (child)
			kill(child, SIGKILL);
		return err;
	}
	*out = child;
	return 0;
}

/* Open PATH in stopped process PID (registers AT) with FLAGS: the
 * descriptor, or -errno. */
static long open_in(pid_t pid, const struct user_regs_struct *at, const char *path, int flags)
{
	unsigned char saved[64];
	size_t len = strlen(path) + 1;
	uint64_t scratch = (at->rsp - 128 - sizeof(saved)) & ~(uint64_t)15;
	uint64_t args[6] = { (uint64_t)AT_FDCWD, scratch, (uint64_t)flags, 0, 0, 0 };
	long fd = -ENAMETOOLONG;
	int err;

	if (len > sizeof(saved))
		return fd;
	err = tracer_read_mem(pid, scratch, saved, len);
	if (!err)
		err = tracer_write_mem(pid, scratch, path, len);
	if (!err)
		err = tracer_inject(pid, SYS_openat, args, &fd);
	tracer_write_mem(pid, scratch, saved, len);
	return err ? err : fd;
}

static void close_in(pid_t pid, long fd)
{
	uint64_t args[6] = { (uint64_t)fd, 0, 0, 0, 0, 0 };
	long ret;

	tracer_inject(pid, SYS_close, args, &ret);
}

int tracer_copy_settle(const struct tracer_copy *c, pid_t pid, pid_t last_pid)
{
	const struct user_regs_struct *at = &c->regs;
	char text[24];
	unsigned char saved[sizeof(text)];
	uint64_t scratch = (at->rsp - 128 - sizeof(saved)) & ~(uint64_t)15;
	long fd, ret = -1;
	int err;

	/* The offsets the original has moved since. */
	for (int i = 0; i < c->nfiles; i++) {
		uint64_t args[6] = { (uint64_t)c->fd[i], (uint64_t)c->pos[i], SEEK_SET, 0, 0, 0 };

		err = tracer_inject(pid, SYS_lseek, args, &ret);
		if (!err && ret != c->pos[i])
			err = ret < 0 ? (int)ret : -EIO;
		if (err)
			return err;
	}
	/* The namespace's next pid, as it was at the copy. */
	fd = open_in(pid, at, "/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return (int)fd;
	snprintf(text, sizeof(text), "%d", (int)last_pid);
	err = tracer_read_mem(pid, scratch, saved, sizeof(saved));
	if (!err)
		err = tracer_write_mem(pid, scratch, text, strlen(text));
	if (!err) {
		uint64_t args[6] = { (uint64_t)fd, scratch, strlen(text), 0, 0, 0 };

		err = tracer_inject(pid, SYS_write, args, &ret);
		if (!err && ret != (long)strlen(text))
			err = ret < 0 ? (int)ret : -EIO;
	}
	tracer_write_mem(pid, scratch, saved, sizeof(saved));
	close_in(pid, fd);
	if (err)
		return err;
	/* The output was shown once. */
	fd = open_in(pid, at, "/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (int i = 1; i <= 2; i++) {
		uint64_t args[6] = { (uint64_t)fd, (uint64_t)i, 0, 0, 0, 0 };

		tracer_inject(pid, SYS_dup3, args, &ret);
	}
	close_in(pid, fd);
	tracer_set_regs(pid, at);
	return 0;
}
