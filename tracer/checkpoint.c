/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Copies of a guest process, for a replay's checkpoints (DESIGN.md
 * "Replay"; the policy is replayer/checkpoint.c).
 *
 * A copy is made by the process itself: its leader (the thread whose id
 * is the pid) runs a clone3 injected where a syscall instruction is (a
 * syscall-exit stop, a seccomp stop, a call wound back to be made again),
 * with CLONE_PARENT (init is the copy's parent, as it is the original's)
 * and set_tid at the top of the pid space (the namespace's cursor does not
 * move, so the guest's own forks and threads keep the pids they had when
 * recorded). The copy is detached with SIGSTOP: it waits, stopped and
 * untraced, its memory the original's at the moment of the copy. The
 * other threads are noted: registers, xstate, signal mask, robust list,
 * name, and where they were stopped.
 *
 * Reviving a copy makes a second fork, in the copy, with set_tid the
 * original's pid in the guest's namespace (the original must be gone by
 * then), then each thread again with clone3 CLONE_THREAD and its old tid,
 * gives each its state back, and leaves all traced by the caller and
 * stopped as the originals were: a thread that was at the seccomp stop of
 * a call not made yet makes it again to that stop; one stopped in a call
 * the kernel would restart is wound back to make it again, which is what
 * the restart does. The copy stays as it was, to be revived again.
 *
 * Only a process whose descriptors are files, and which shares no writable
 * memory, is copied: pipes, sockets or shared mappings are the same
 * objects in the copy, changed by what the original did since. A
 * thread's alternate signal stack is not kept.
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
#include <elf.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
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

/* Call VISIT for each descriptor above 2 of TID with its /proc link, until
 * it returns nonzero: that value, 0 when all were seen, -errno when the
 * descriptors cannot be read. */
static int each_fd(pid_t tid, int (*visit)(void *ctx, int fd, const char *target), void *ctx)
{
	char path[64], target[256];
	DIR *d;
	struct dirent *e;
	int r = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", tid);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!r && (e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] == '.' || fd <= 2)
			continue;
		if (tracer_fd_target(tid, fd, target, sizeof(target)) < 0)
			target[0] = 0;
		r = visit(ctx, fd, target);
	}
	closedir(d);
	return r;
}

struct fd_check {
	int (*fd_ok)(void *ctx, int fd);
	void *ctx;
	int bad;
	char target[256];
};

/* A descriptor a copy cannot have: one that is no file (a memfd is none:
 * its bytes are the same in the copy) unless the caller allows it. */
static int not_copyable(void *ctx, int fd, const char *target)
{
	struct fd_check *k = ctx;

	if ((target[0] == '/' && strncmp(target, "/memfd:", 7) != 0) || k->fd_ok(k->ctx, fd))
		return 0;
	k->bad = fd;
	snprintf(k->target, sizeof(k->target), "%s", target);
	return 1;
}

int tracer_copy_check(pid_t tid, size_t nthreads, int (*fd_ok)(void *ctx, int fd), void *ctx,
		      char *why, size_t size)
{
	char path[64], line[512];
	FILE *f;

	/* clone3's set_tid wants CAP_SYS_ADMIN in the guest's namespace. */
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (f) {
		unsigned long long caps = 0;

		while (fgets(line, sizeof(line), f) && sscanf(line, "CapEff: %llx", &caps) != 1)
			;
		fclose(f);
		if (!(caps & (1ULL << 21))) {
			snprintf(why, size,
				 "it cannot choose its children's pids (no CAP_SYS_ADMIN)");
			return -EPERM;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/task", tid);
	if (count_entries(path) != (int)nthreads) {
		snprintf(why, size, "its threads are not all known yet");
		return -EAGAIN;
	}
	{
		struct fd_check k = { fd_ok, ctx, -1, "" };
		int r = each_fd(tid, not_copyable, &k);

		if (r < 0) {
			snprintf(why, size, "its descriptors cannot be read");
			return -EAGAIN;
		}
		if (r) {
			snprintf(why, size, "descriptor %d is not a file (%s)", k.bad, k.target);
			return -EAGAIN;
		}
	}
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
/* Other signals end it with -EAGAIN (the caller gives up; the signal is
 * sent again), unless DROP: then they are dropped (a waiting copy's). */
static int finish_call(pid_t tid, pid_t *child, int drop)
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
		case TRACER_SYSCALL_ENTRY: {
			/* (Told apart by the kernel, not by rax: a call that
			 * returns -ENOSYS looks like an entry.) */
			struct __ptrace_syscall_info info;

			memset(&info, 0, sizeof(info));
			if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, sizeof(info), &info) < 0)
				return -errno;
			if (info.op == PTRACE_SYSCALL_INFO_EXIT)
				return 0;
			break;
		}
		case TRACER_SIGNAL:
			/* A copy's SIGSTOP that kept it waiting comes late, and
			 * what reached a waiting copy (the terminal's Ctrl-C to
			 * its process group) is not the guest's: drop them. */
			if (s.sig == SIGSTOP || drop)
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
	tracer_regs_forget();
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

/* Whether the two bytes before ADDR in TID are a syscall instruction. */
static int syscall_before(pid_t tid, uint64_t addr)
{
	uint8_t insn[2];

	return tracer_read_mem(tid, addr - 2, insn, 2) == 0 && insn[0] == 0x0f && insn[1] == 0x05;
}

/* Make stopped process TID (registers AT) run clone3 with CLONE_PARENT
 * and set_tid WANT (0: the highest free pid, see pid_max), from a stop
 * where the instruction before at->rip is a syscall (FROM_SECCOMP: a
 * seccomp stop of a skipped call, which runs ours in its place). The
 * child's host pid in *CHILD; TID's registers and memory are as before. */
static int clone_as(pid_t tid, const struct user_regs_struct *at, int from_seccomp, uint64_t flags,
		    uint64_t child_tid, pid_t want, pid_t *child, int *ran)
{
	struct clone3_args a;
	struct user_regs_struct regs;
	unsigned char saved[sizeof(a) + 8];
	uint64_t scratch = (at->rsp - 128 - sizeof(saved)) & ~(uint64_t)15;
	pid_t top = want ? want : pid_max() - 1;
	int err, tries = 0;

	*child = 0;
	if (!from_seccomp && !syscall_before(tid, at->rip))
		return -EAGAIN; /* never run what is not a syscall instruction */
	err = tracer_read_mem(tid, scratch, saved, sizeof(saved));
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.flags = flags;
	a.child_tid = child_tid;
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
		if (ran)
			*ran = 1; /* from here on, TID\'s stop is used up */
		err = tracer_set_regs(tid, &regs);
		if (!err)
			err = finish_call(tid, child, want != 0);
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

static int fork_as(pid_t tid, const struct user_regs_struct *at, int from_seccomp, pid_t want,
		   pid_t *child, int *ran)
{
	return clone_as(tid, at, from_seccomp, CLONE_PARENT, 0, want, child, ran);
}

/* Registers AT of a task in a call the kernel would make again (where()
 * said 4) as those of one about to make it: a new task made with them
 * makes it, as the original would have. */
static struct user_regs_struct made_again(const struct user_regs_struct *at)
{
	struct user_regs_struct r = *at;

	r.rip -= 2;
	r.rax = at->orig_rax;
	return r;
}

/* TID, stopped (not in a syscall) with registers AT but for a call that
 * was about to be made: make it again, to its seccomp stop, and give it
 * AT there. */
static int retrap(pid_t tid, const struct user_regs_struct *at)
{
	struct user_regs_struct regs = made_again(at);
	struct tracer_stop s;
	int err = tracer_set_regs(tid, &regs);
	for (int i = 0; !err && i < 8; i++) {
		err = tracer_cont(tid, 0);
		if (!err)
			err = tracer_wait_tid(tid, &s);
		if (!err && (s.kind == TRACER_EXITED || s.kind == TRACER_KILLED))
			err = -ESRCH;
		if (!err && s.kind == TRACER_SECCOMP)
			return tracer_set_regs(tid, at);
		if (!err && s.kind == TRACER_SIGNAL && s.sig != SIGSTOP) {
			syscall(SYS_tkill, tid, s.sig); /* its own: it gets it later */
			err = -EAGAIN;
		}
	}
	return err ? err : -EAGAIN;
}

/* A task stopped in or at the end of a call whose result REGS say: 4 when
 * the kernel will make the call again as the task goes on (it was
 * interrupted, PTRACE_INTERRUPT too: the kernel winds rip back to the
 * syscall instruction, exactly what made_again() does), 3 when not,
 * -EAGAIN for a restart the kernel keeps to itself. */
static int restarts(const struct user_regs_struct *regs)
{
	if ((long)regs->orig_rax < 0)
		return 3;
	switch ((long)regs->rax) {
	case -512: /* ERESTARTSYS */
	case -513: /* ERESTARTNOINTR */
	case -514: /* ERESTARTNOHAND */
		return 4;
	case -516: /* ERESTART_RESTARTBLOCK */
		return -EAGAIN;
	default:
		return 3;
	}
}

/* Where a stopped task is: 0 out of any syscall, 1 at the seccomp stop of
 * a call not made yet, 2 at the seccomp stop of a call skipped (registers
 * say its result), 3 at a syscall exit, 4 stopped in a blocking call that
 * the kernel would make again when it goes on (hermit parks tasks there),
 * or -EAGAIN (in a fork, exec or exit, a group stop, a syscall entry). */
static int where(pid_t tid, const struct user_regs_struct *regs)
{
	struct __ptrace_syscall_info info;
	siginfo_t si;

	memset(&info, 0, sizeof(info));
	if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, sizeof(info), &info) < 0)
		return -errno;
	if (info.op == PTRACE_SYSCALL_INFO_EXIT) {
		/* (or wound back to make a call again, its instruction at rip) */
		if (!syscall_before(tid, regs->rip))
			return 0;
		return restarts(regs);
	}
	if (info.op == PTRACE_SYSCALL_INFO_SECCOMP)
		return (long)regs->orig_rax == -1 ? 2 : 1;
	if (info.op != PTRACE_SYSCALL_INFO_NONE || tracer_siginfo(tid, &si) < 0)
		return -EAGAIN;
	switch (si.si_code >> 8) {
	case 0:
	case PTRACE_EVENT_STOP:
		break;
	default:
		return -EAGAIN;
	}
	return restarts(regs) == 4 ? 4 : restarts(regs) < 0 ? -EAGAIN : 0;
}

/* The state of thread X (x->tid) that a new thread needs, or -EAGAIN. */
static int snap_thread(struct tracer_thread *x)
{
	int at, err;

	if (tracer_get_regs(x->tid, &x->regs) < 0)
		return -ESRCH;
	at = where(x->tid, &x->regs);
	if (at < 0)
		return at;
	x->retrap = at == 1;
	if (at == 4)
		x->regs = made_again(&x->regs);
	err = tracer_get_xstate(x->tid, x->xstate, sizeof(x->xstate), &x->xlen);
	if (err)
		return err;
	if (ptrace(PTRACE_GETSIGMASK, x->tid, sizeof(x->sigmask), &x->sigmask) < 0)
		return -errno;
	if (syscall(SYS_get_robust_list, x->tid, &x->robust, &x->robust_len) < 0)
		return -errno;
	if (tracer_task_comm(x->tid, x->comm, sizeof(x->comm)) < 0)
		x->comm[0] = 0;
	return 0;
}

/* New thread TID (stopped, its registers the leader's AT) becomes X. */
static int become(pid_t tid, const struct user_regs_struct *at, const struct tracer_thread *x)
{
	struct iovec iov = { (void *)x->xstate, x->xlen };
	uint64_t args[6] = { x->robust, x->robust_len, 0, 0, 0, 0 };
	long ret;
	int err;

	/* Its robust list, made from where the leader's syscall is. */
	err = tracer_inject(tid, SYS_set_robust_list, args, &ret);
	if (!err && ret < 0)
		err = (int)ret;
	if (!err && ptrace(PTRACE_SETREGSET, tid, NT_X86_XSTATE, &iov) < 0)
		err = -errno;
	if (!err && ptrace(PTRACE_SETSIGMASK, tid, sizeof(x->sigmask), &x->sigmask) < 0)
		err = -errno;
	if (err)
		return err;
	/* Its name (gdb's `info threads` shows it). */
	if (x->comm[0]) {
		uint8_t saved[sizeof(x->comm)];
		uint64_t scratch = (at->rsp - 128 - sizeof(saved)) & ~(uint64_t)15;
		uint64_t name[6] = { PR_SET_NAME, scratch, 0, 0, 0, 0 };

		if (tracer_read_mem(tid, scratch, saved, sizeof(saved)) == 0) {
			if (tracer_write_mem(tid, scratch, x->comm, sizeof(x->comm)) == 0)
				tracer_inject(tid, SYS_prctl, name, &ret);
			tracer_write_mem(tid, scratch, saved, sizeof(saved));
		}
	}
	return x->retrap ? retrap(tid, &x->regs) : tracer_set_regs(tid, &x->regs);
}

struct files {
	pid_t tid;
	struct tracer_copy *c;
};

/* Note a file descriptor's offset (1: C holds no more). */
static int note_file(void *ctx, int fd, const char *target)
{
	struct files *f = ctx;
	struct tracer_copy *c = f->c;
	char path[64], line[128];
	FILE *in;

	if (target[0] != '/')
		return 0;
	if (c->nfiles == TRACER_COPY_FILES)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", f->tid, fd);
	in = fopen(path, "re");
	if (!in)
		return 0;
	while (fgets(line, sizeof(line), in)) {
		long long pos;

		if (sscanf(line, "pos: %lld", &pos) == 1) {
			c->fd[c->nfiles] = fd;
			c->pos[c->nfiles++] = pos;
			break;
		}
	}
	fclose(in);
	return 0;
}

/* The offsets of TID's descriptors above 2 that are files: 0, or -EAGAIN
 * when there are more than C can hold. */
static int note_files(pid_t tid, struct tracer_copy *c)
{
	struct files f = { tid, c };
	int r;

	c->nfiles = 0;
	r = each_fd(tid, note_file, &f);
	return r > 0 ? -EAGAIN : r;
}

int tracer_copy_make(pid_t tid, const struct tracer_thread *others, size_t n, struct tracer_copy *c)
{
	struct tracer_thread self;
	struct user_regs_struct inj;
	pid_t child;
	int err, at, ran = 0;

	memset(c, 0, sizeof(*c));
	if (n > TRACER_COPY_THREADS)
		return -EAGAIN;
	err = tracer_get_regs(tid, &c->regs);
	if (err)
		return err;
	at = where(tid, &c->regs);
	c->sysret = c->regs.rip;
	if (at == 0) {
		/* About to make a call (hermit winds parked calls back so): its
		 * instruction is the one to fork with. */
		if (!syscall_before(tid, c->regs.rip + 2))
			return -EAGAIN; /* no syscall instruction to fork with */
		c->sysret = c->regs.rip + 2;
	} else if (at < 0) {
		return at;
	}
	c->retrap = at == 1;
	memset(&self, 0, sizeof(self));
	self.tid = tid;
	err = snap_thread(&self);
	if (err)
		return err;
	c->robust = self.robust;
	c->robust_len = self.robust_len;
	c->threads = xcalloc(n + 1, sizeof(*c->threads));
	for (size_t i = 0; i < n; i++) {
		c->threads[i] = others[i];
		err = snap_thread(&c->threads[i]);
		if (err)
			goto fail;
	}
	c->nthreads = n;
	err = note_files(tid, c);
	if (err)
		goto fail;
	/* A call about to be made is replaced by the fork, then made again. */
	inj = c->regs;
	inj.rip = c->sysret;
	err = fork_as(tid, &inj, at == 1 || at == 2, 0, &child, &ran);
	if (ran) {
		/* The leader's stop was used: put it back as it would go on,
		 * whether the fork worked or not. A call it was in is made
		 * again (at 4, it is no longer stopped in it). */
		int e = 0;

		if (at == 4)
			c->regs = made_again(&c->regs);
		if (c->retrap)
			e = retrap(tid, &c->regs);
		else if (at == 0 || at == 4)
			e = tracer_set_regs(tid, &c->regs);
		if (e && !err)
			err = e;
	}
	if (err && child)
		kill(child, SIGKILL);
	if (err)
		goto fail;
	err = park(child);
	if (err) {
		kill(child, SIGKILL);
		goto fail;
	}
	c->pid = child;
	c->pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	if (c->pidfd < 0) {
		err = -errno;
		kill(child, SIGKILL);
		c->pid = 0;
		goto fail;
	}
	return 0;
fail:
	tracer_copy_free(c);
	return err;
}

void tracer_copy_kill(struct tracer_copy *c)
{
	if (c->pid > 0 && c->pidfd >= 0) {
		syscall(SYS_pidfd_send_signal, c->pidfd, SIGKILL, NULL, 0);
		close(c->pidfd);
	}
	c->pid = 0;
	c->pidfd = -1;
	tracer_copy_free(c);
}

void tracer_copy_free(struct tracer_copy *c)
{
	free(c->threads);
	c->threads = NULL;
	c->nthreads = 0;
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
	tracer_regs_forget();
	if (ptrace(PTRACE_DETACH, pid, 0, s.kind == TRACER_SIGNAL ? s.sig : 0) < 0)
		return -errno;
	return 0;
}

/* Seize the stopped copy C and see its stop (a stopped process seized
 * reports its group stop). */
static int take_copy(const struct tracer_copy *c)
{
	int err = tracer_seize(c->pid);

	return err ? err : first_stop(c->pid);
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

static int settle(const struct tracer_copy *c, pid_t pid, pid_t last_pid)
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
	return 0; /* (the caller gives it its registers) */
}

int tracer_copy_revive(const struct tracer_copy *c, pid_t nspid, pid_t last_pid, pid_t *out,
		       pid_t *tids)
{
	const uint64_t thread =
		CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
	uint64_t args[6] = { c->robust, c->robust_len, 0, 0, 0, 0 };
	struct user_regs_struct inj = c->regs; /* where a syscall instruction is */
	pid_t child = 0;
	long ret;
	int err;

	*out = 0;
	inj.rip = c->sysret;
	err = take_copy(c);
	if (err)
		return err;
	err = fork_as(c->pid, &inj, 0, nspid, &child, NULL);
	if (park(c->pid) < 0 && !err)
		err = -ESRCH;
	/* Its threads, each with the pid it had. */
	for (size_t i = 0; !err && i < c->nthreads; i++) {
		const struct tracer_thread *x = &c->threads[i];

		tids[i] = 0;
		err = clone_as(child, &inj, 0, thread | (x->clear_tid ? CLONE_CHILD_CLEARTID : 0),
			       x->clear_tid, x->vtid, &tids[i], NULL);
		if (!err)
			err = become(tids[i], &inj, x);
	}
	if (!err)
		err = tracer_inject(child, SYS_set_robust_list, args, &ret);
	if (!err)
		err = settle(c, child, last_pid);
	if (!err)
		err = c->retrap ? retrap(child, &c->regs) : tracer_set_regs(child, &c->regs);
	if (err) {
		if (child)
			kill(child, SIGKILL);
		return err;
	}
	*out = child;
	return 0;
}
