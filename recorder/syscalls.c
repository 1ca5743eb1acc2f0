/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The syscall table: one row per syscall that stops, saying how it is made
 * deterministic (strace's syscallent.h is the model: data, not code). The
 * seccomp filter is built from these rows; every other syscall runs at
 * native speed and never reaches the tracer. Numbers are x86-64's
 * (arch/x86/entry/syscalls/syscall_64.tbl).
 *
 *   enter only  emulated in the tracer: the kernel never runs it
 *   exit only   runs, then its result is rewritten
 *   both        entry decides whether the exit needs to be seen
 *
 * Not in the table, on purpose: fork, vfork, clone and clone3 (ptrace
 * events report them; execve stops only when recording, to note the file
 * it runs), getpid and friends (the pid namespace makes
 * them repeat). Reads of ordinary descriptors, writes and sends stop only
 * where a log is kept, hidden (capture.c); `hermit run` runs them at
 * native speed.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include "internal.h"

/* Reads of descriptors >= REC_RANDOM_FD_MIN stop: the random devices and
 * timerfds live there (sys_random.c, sys_timerfd.c); others run on. */
static enum rec_action read_high(struct rec *r, struct task *t, struct rec_call *c)
{
	enum rec_action a = rec_random_read(r, t, c);

	return a != REC_CONT ? a : rec_timerfd_read(r, t, c);
}

/* A call hermit refuses: it fails with ERR and never runs (sys_refuse.c). */
#define REFUSED(sys, err)                                                    \
	{                                                                    \
		.nr = SYS_##sys, .name = #sys, .enter = rec_sys_refuse_##err \
	}

static const struct rec_syscall table[] = {
	/* time: the virtual clock */
	{ SYS_clock_gettime, "clock_gettime", 0, rec_sys_clock_gettime, NULL, OUT_NONE, 0, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_clock_getres, "clock_getres", 0, rec_sys_clock_getres, NULL, OUT_NONE, 0, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_gettimeofday, "gettimeofday", 0, rec_sys_gettimeofday, NULL, OUT_NONE, 0, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_time, "time", 0, rec_sys_time, NULL, OUT_NONE, 0, 0, SHOWN, SENT_NONE, 0, 0, 0 },
	{ SYS_nanosleep, "nanosleep", 0, rec_sys_nanosleep, NULL, OUT_NONE, 0, 0, SHOWN, SENT_NONE,
	  0, 0, 0 },
	{ SYS_clock_nanosleep, "clock_nanosleep", 0, rec_sys_clock_nanosleep, NULL, OUT_NONE, 0, 0,
	  SHOWN, SENT_NONE, 0, 0, 0 },
	{ SYS_times, "times", 0, rec_sys_times, NULL, OUT_NONE, 0, 0, SHOWN, SENT_NONE, 0, 0, 0 },
	{ SYS_getrusage, "getrusage", 0, rec_sys_getrusage, NULL, OUT_NONE, 0, 0, SHOWN, SENT_NONE,
	  0, 0, 0 },
	/* a child's usage: wait4 and waitid given a struct rusage */
	{ SYS_wait4, "wait4", 0, NULL, rec_sys_wait_exit, OUT_NONE, 0, 0, HIDDEN_ALWAYS, SENT_NONE,
	  0, 0, 4 },
	{ SYS_waitid, "waitid", 0, NULL, rec_sys_wait_exit, OUT_NONE, 0, 0, HIDDEN_ALWAYS,
	  SENT_NONE, 0, 0, 5 },
	{ SYS_adjtimex, "adjtimex", 0, rec_sys_adjtimex, NULL, OUT_NONE, 0, 0, SHOWN, SENT_NONE, 0,
	  0, 0 },
	{ SYS_clock_adjtime, "clock_adjtime", 0, rec_sys_clock_adjtime, NULL, OUT_NONE, 0, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	/* threads: futexes, timed waits and yielding (futex.c, sys_poll.c) */
	{ SYS_futex, "futex", 0, rec_sys_futex, NULL, OUT_NONE, 0, 0, SHOWN, SENT_NONE, 0, 0, 0 },
	{ SYS_sched_yield, "sched_yield", 0, rec_sys_sched_yield, NULL, OUT_NONE, 0, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_poll, "poll", 0, rec_sys_poll, rec_sys_poll_exit, OUT_POLL, 0, 0, SHOWN, SENT_NONE, 0,
	  0, 0 },
	{ SYS_ppoll, "ppoll", 0, rec_sys_poll, rec_sys_poll_exit, OUT_POLL, 0, 0, SHOWN, SENT_NONE,
	  0, 0, 0 },
	{ SYS_select, "select", 0, rec_sys_poll, rec_sys_poll_exit, OUT_POLL, 0, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_pselect6, "pselect6", 0, rec_sys_poll, rec_sys_poll_exit, OUT_POLL, 0, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_epoll_wait, "epoll_wait", 0, rec_sys_poll, rec_sys_poll_exit, OUT_POLL, 0, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_epoll_pwait, "epoll_pwait", 0, rec_sys_poll, rec_sys_poll_exit, OUT_POLL, 0, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_epoll_pwait2, "epoll_pwait2", 0, rec_sys_poll, rec_sys_poll_exit, OUT_POLL, 0, 0,
	  SHOWN, SENT_NONE, 0, 0, 0 },
	{ SYS_rt_sigtimedwait, "rt_sigtimedwait", 0, rec_sys_poll, rec_sys_poll_exit, OUT_NONE, 0,
	  0, SHOWN, SENT_NONE, 0, 0, 0 },
	/* timers on the virtual clock (sys_timer.c) */
	{ SYS_alarm, "alarm", 0, rec_sys_alarm, NULL, OUT_NONE, 0, 0, SHOWN, SENT_NONE, 0, 0, 0 },
	{ SYS_setitimer, "setitimer", 0, rec_sys_setitimer, NULL, OUT_NONE, 0, 0, SHOWN, SENT_NONE,
	  0, 0, 0 },
	{ SYS_getitimer, "getitimer", 0, rec_sys_getitimer, NULL, OUT_NONE, 0, 0, SHOWN, SENT_NONE,
	  0, 0, 0 },
	{ SYS_timer_create, "timer_create", 0, rec_sys_timer_create, NULL, OUT_NONE, 0, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_timer_settime, "timer_settime", 0, rec_sys_timer_settime, NULL, OUT_NONE, 0, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_timer_gettime, "timer_gettime", 0, rec_sys_timer_gettime, NULL, OUT_NONE, 0, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_timer_getoverrun, "timer_getoverrun", 0, rec_sys_timer_getoverrun, NULL, OUT_NONE, 0,
	  0, SHOWN, SENT_NONE, 0, 0, 0 },
	{ SYS_timer_delete, "timer_delete", 0, rec_sys_timer_delete, NULL, OUT_NONE, 0, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_timerfd_create, "timerfd_create", 0, rec_sys_timerfd_create,
	  rec_sys_timerfd_create_exit, OUT_NONE, 0, 0, SHOWN, SENT_NONE, 0, 0, 0 },
	{ SYS_timerfd_settime, "timerfd_settime", 0, rec_sys_timerfd_settime, NULL, OUT_NONE, 0, 0,
	  SHOWN, SENT_NONE, 0, 0, 0 },
	{ SYS_timerfd_gettime, "timerfd_gettime", 0, rec_sys_timerfd_gettime, NULL, OUT_NONE, 0, 0,
	  SHOWN, SENT_NONE, 0, 0, 0 },
	/* randomness: the PRNG */
	{ SYS_getrandom, "getrandom", 0, rec_sys_getrandom, NULL, OUT_NONE, 0, 0, SHOWN, SENT_NONE,
	  0, 0, 0 },
	{ SYS_open, "open", 0, rec_sys_open, rec_sys_open_exit, OUT_NONE, 0, 0, SHOWN, SENT_NONE, 0,
	  0, 0 },
	{ SYS_openat, "openat", 0, rec_sys_open, rec_sys_open_exit, OUT_NONE, 0, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_openat2, "openat2", 0, rec_sys_open, rec_sys_open_exit, OUT_NONE, 0, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_creat, "creat", 0, rec_sys_open, rec_sys_open_exit, OUT_NONE, 0, 0, SHOWN, SENT_NONE,
	  0, 0, 0 },
	{ SYS_read, "read", REC_RANDOM_FD_MIN, read_high, NULL, OUT_RET, 1, 0, SHOWN, SENT_NONE, 0,
	  0, 0 },
	{ SYS_pread64, "pread64", REC_RANDOM_FD_MIN, read_high, NULL, OUT_RET, 1, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_readv, "readv", REC_RANDOM_FD_MIN, read_high, NULL, OUT_IOV, 1, 0, SHOWN, SENT_NONE,
	  0, 0, 0 },
	{ SYS_preadv, "preadv", REC_RANDOM_FD_MIN, read_high, NULL, OUT_IOV, 1, 0, SHOWN, SENT_NONE,
	  0, 0, 0 },
	{ SYS_preadv2, "preadv2", REC_RANDOM_FD_MIN, read_high, NULL, OUT_IOV, 1, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	/* input a log keeps, and files it copies (capture.c) */
	{ SYS_recvfrom, "recvfrom", 0, NULL, NULL, OUT_RET, 1, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_recvmsg, "recvmsg", 0, NULL, NULL, OUT_MSG, 1, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_recvmmsg, "recvmmsg", 0, NULL, NULL, OUT_MMSG, 1, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	/* FS_IOC_GETVERSION stops in `run` too, to hide the host's generation */
	{ SYS_ioctl, "ioctl", 0, NULL, rec_sys_ioctl_exit, OUT_IOCTL, 2, 0, HIDDEN_ALWAYS,
	  SENT_NONE, 2, (int)FS_IOC_GETVERSION, 0 },
	{ SYS_mmap, "mmap", 0, NULL, NULL, OUT_NONE, 0, 0, HIDDEN_RECORD, SENT_NONE, 0, 0, 0 },
	/* the file an exec runs: a script's content is kept (fsstate.c) */
	{ SYS_execve, "execve", 0, NULL, NULL, OUT_NONE, 0, 0, HIDDEN_RECORD, SENT_NONE, 0, 0, 0 },
	{ SYS_execveat, "execveat", 0, NULL, NULL, OUT_NONE, 0, 0, HIDDEN_RECORD, SENT_NONE, 0, 0,
	  0 },
	/* where a descriptor stands: of one from outside (stdout to a file the
	 * shell had written to), the recording's answer, not the replay's */
	{ SYS_lseek, "lseek", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	/* output to the outside, whose digest a log keeps (sent.c) */
	{ SYS_write, "write", 0, NULL, NULL, OUT_NONE, 0, 0, HIDDEN_LOG, SENT_BUF, 0, 0, 0 },
	{ SYS_pwrite64, "pwrite64", 0, NULL, NULL, OUT_NONE, 0, 0, HIDDEN_LOG, SENT_BUF, 0, 0, 0 },
	{ SYS_writev, "writev", 0, NULL, NULL, OUT_NONE, 0, 0, HIDDEN_LOG, SENT_IOV, 0, 0, 0 },
	{ SYS_pwritev, "pwritev", 0, NULL, NULL, OUT_NONE, 0, 0, HIDDEN_LOG, SENT_IOV, 0, 0, 0 },
	{ SYS_pwritev2, "pwritev2", 0, NULL, NULL, OUT_NONE, 0, 0, HIDDEN_LOG, SENT_IOV, 0, 0, 0 },
	{ SYS_sendto, "sendto", 0, NULL, NULL, OUT_NONE, 0, 0, HIDDEN_LOG, SENT_BUF, 0, 0, 0 },
	{ SYS_sendmsg, "sendmsg", 0, NULL, NULL, OUT_NONE, 0, 0, HIDDEN_LOG, SENT_MSG, 0, 0, 0 },
	{ SYS_sendmmsg, "sendmmsg", 0, NULL, NULL, OUT_NONE, 0, 0, HIDDEN_LOG, SENT_MMSG, 0, 0, 0 },
	/* the file system's state (fsstate.c): changes run in a replay's view
	 * with their paths put back as the recording found them, and their
	 * results are the log's; looks are answered from the log */
	{ SYS_mkdir, "mkdir", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_mkdirat, "mkdirat", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_mknod, "mknod", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_mknodat, "mknodat", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_unlink, "unlink", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_unlinkat, "unlinkat", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_rmdir, "rmdir", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_rename, "rename", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_renameat, "renameat", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_renameat2, "renameat2", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_link, "link", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_linkat, "linkat", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_symlink, "symlink", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_symlinkat, "symlinkat", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_truncate, "truncate", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_chmod, "chmod", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_fchmodat, "fchmodat", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_chown, "chown", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_lchown, "lchown", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_fchownat, "fchownat", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_utime, "utime", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_utimes, "utimes", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_futimesat, "futimesat", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_utimensat, "utimensat", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_setxattr, "setxattr", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_lsetxattr, "lsetxattr", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_removexattr, "removexattr", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_lremovexattr, "lremovexattr", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0,
	  0, 0 },
	{ SYS_chdir, "chdir", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_fchmod, "fchmod", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_fchown, "fchown", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_ftruncate, "ftruncate", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_fallocate, "fallocate", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_fsetxattr, "fsetxattr", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_fremovexattr, "fremovexattr", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0,
	  0, 0 },
	{ SYS_access, "access", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_faccessat, "faccessat", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_faccessat2, "faccessat2", 0, NULL, NULL, OUT_VAL, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_readlink, "readlink", 0, NULL, NULL, OUT_RET, 1, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_readlinkat, "readlinkat", 0, NULL, NULL, OUT_RET, 2, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_statfs, "statfs", 0, NULL, rec_sys_statfs_exit, OUT_SIZE, 1, sizeof(struct statfs),
	  HIDDEN_ALWAYS, SENT_NONE, 0, 0, 0 },
	{ SYS_fstatfs, "fstatfs", 0, NULL, rec_sys_statfs_exit, OUT_SIZE, 1, sizeof(struct statfs),
	  HIDDEN_ALWAYS, SENT_NONE, 0, 0, 0 },
	{ SYS_getxattr, "getxattr", 0, NULL, NULL, OUT_RET, 2, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_lgetxattr, "lgetxattr", 0, NULL, NULL, OUT_RET, 2, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_fgetxattr, "fgetxattr", 0, NULL, NULL, OUT_RET, 2, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_listxattr, "listxattr", 0, NULL, NULL, OUT_RET, 1, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_llistxattr, "llistxattr", 0, NULL, NULL, OUT_RET, 1, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	{ SYS_flistxattr, "flistxattr", 0, NULL, NULL, OUT_RET, 1, 0, HIDDEN_LOG, SENT_NONE, 0, 0,
	  0 },
	/* transfers between descriptors, past the guest's memory (xfer.c) */
	{ SYS_copy_file_range, "copy_file_range", 0, NULL, NULL, OUT_XFER, 0, 0, HIDDEN_LOG,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_sendfile, "sendfile", 0, NULL, NULL, OUT_XFER, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_splice, "splice", 0, NULL, NULL, OUT_XFER, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	{ SYS_tee, "tee", 0, NULL, NULL, OUT_XFER, 0, 0, HIDDEN_LOG, SENT_NONE, 0, 0, 0 },
	/* SIGKILL to another process: held until it is gone; kill(0, sig) of an
	 * uncatchable or stopping signal, made without hermit (sys_kill.c;
	 * the filter stops kill for REC_KILL_ALSO too) */
	{ SYS_kill, "kill", 0, rec_sys_kill_enter, rec_sys_kill_exit, OUT_NONE, 0, 0, SHOWN,
	  SENT_NONE, 2, SIGKILL, 0 },
	{ SYS_tkill, "tkill", 0, NULL, rec_sys_kill_exit, OUT_NONE, 0, 0, SHOWN, SENT_NONE, 2,
	  SIGKILL, 0 },
	{ SYS_tgkill, "tgkill", 0, NULL, rec_sys_kill_exit, OUT_NONE, 0, 0, SHOWN, SENT_NONE, 3,
	  SIGKILL, 0 },
	{ SYS_rt_sigqueueinfo, "rt_sigqueueinfo", 0, NULL, rec_sys_kill_exit, OUT_NONE, 0, 0, SHOWN,
	  SENT_NONE, 2, SIGKILL, 0 },
	{ SYS_rt_tgsigqueueinfo, "rt_tgsigqueueinfo", 0, NULL, rec_sys_kill_exit, OUT_NONE, 0, 0,
	  SHOWN, SENT_NONE, 3, SIGKILL, 0 },
	{ SYS_pidfd_send_signal, "pidfd_send_signal", 0, NULL, rec_sys_kill_exit, OUT_NONE, 0, 0,
	  SHOWN, SENT_NONE, 2, SIGKILL, 0 },
	/* identity of the machine */
	{ SYS_uname, "uname", 0, rec_sys_uname, NULL, OUT_NONE, 0, 0, SHOWN, SENT_NONE, 0, 0, 0 },
	{ SYS_sysinfo, "sysinfo", 0, rec_sys_sysinfo, NULL, OUT_NONE, 0, 0, SHOWN, SENT_NONE, 0, 0,
	  0 },
	{ SYS_sched_getaffinity, "sched_getaffinity", 0, rec_sys_sched_getaffinity, NULL, OUT_NONE,
	  0, 0, SHOWN, SENT_NONE, 0, 0, 0 },
	{ SYS_sched_setaffinity, "sched_setaffinity", 0, rec_sys_sched_setaffinity, NULL, OUT_NONE,
	  0, 0, SHOWN, SENT_NONE, 0, 0, 0 },
	{ SYS_getcpu, "getcpu", 0, rec_sys_getcpu, NULL, OUT_NONE, 0, 0, SHOWN, SENT_NONE, 0, 0,
	  0 },
	{ SYS_rseq, "rseq", 0, rec_sys_rseq, NULL, OUT_NONE, 0, 0, SHOWN, SENT_NONE, 0, 0, 0 },
	/* the blocked mask, which hermit's own traps change (sigmask.c) */
	{ SYS_rt_sigprocmask, "rt_sigprocmask", 0, NULL, rec_sys_sigmask_exit, OUT_NONE, 0, 0,
	  HIDDEN_ALWAYS, SENT_NONE, 0, 0, 2 },
	/* the actions hermit's traps make the kernel reset: SIGSEGV, SIGTRAP */
	{ SYS_rt_sigaction, "rt_sigaction", 0, NULL, rec_sys_sigaction_exit, OUT_NONE, 0, 0,
	  HIDDEN_ALWAYS, SENT_NONE, 1, SIGSEGV, 0 },
	{ SYS_rt_sigreturn, "rt_sigreturn", 0, NULL, rec_sys_sigmask_exit, OUT_NONE, 0, 0,
	  HIDDEN_ALWAYS, SENT_NONE, 0, 0, 0 },
	/* the rdtsc and seccomp modes hermit set, shown as the guest's own */
	{ SYS_prctl, "prctl", 0, rec_sys_prctl, NULL, OUT_NONE, 0, 0, SHOWN, SENT_NONE, 0, 0, 0 },
	/* file metadata */
	{ SYS_stat, "stat", 0, NULL, rec_sys_stat_exit, OUT_SIZE, 1, sizeof(struct stat), SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_fstat, "fstat", 0, NULL, rec_sys_stat_exit, OUT_SIZE, 1, sizeof(struct stat), SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_lstat, "lstat", 0, NULL, rec_sys_stat_exit, OUT_SIZE, 1, sizeof(struct stat), SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_newfstatat, "newfstatat", 0, NULL, rec_sys_stat_exit, OUT_SIZE, 2,
	  sizeof(struct stat), SHOWN, SENT_NONE, 0, 0, 0 },
	{ SYS_statx, "statx", 0, NULL, rec_sys_stat_exit, OUT_SIZE, 4, sizeof(struct statx), SHOWN,
	  SENT_NONE, 0, 0, 0 },
	{ SYS_getdents, "getdents", 0, NULL, rec_sys_getdents_exit, OUT_RET, 1, 0, SHOWN, SENT_NONE,
	  0, 0, 0 },
	{ SYS_getdents64, "getdents64", 0, NULL, rec_sys_getdents_exit, OUT_RET, 1, 0, SHOWN,
	  SENT_NONE, 0, 0, 0 },
	/* refused, with the errno a kernel without them gives (sys_refuse.c):
	 * io_uring's reads and writes happen in the kernel, unseen */
	REFUSED(io_uring_setup, ENOSYS),
	REFUSED(io_uring_enter, ENOSYS),
	REFUSED(io_uring_register, ENOSYS),
	/* page faults another thread answers, whenever it runs */
	REFUSED(userfaultfd, ENOSYS),
	/* counters of the host's hardware and kernel, nothing replays them */
	REFUSED(perf_event_open, ENOSYS),
	/* EPERM, as for an unprivileged user (kernel.unprivileged_bpf_disabled) */
	REFUSED(bpf, EPERM),
	/* events of the whole host, with descriptors a replay cannot give */
	REFUSED(fanotify_init, EPERM),
	/* handles name inodes, which a replay's files do not keep */
	REFUSED(name_to_handle_at, EOPNOTSUPP),
	REFUSED(open_by_handle_at, EPERM),
	/* POSIX message queues: their timeouts are the host's clock */
	REFUSED(mq_open, ENOSYS),
	REFUSED(mq_unlink, ENOSYS),
	REFUSED(mq_timedsend, ENOSYS),
	REFUSED(mq_timedreceive, ENOSYS),
	REFUSED(mq_notify, ENOSYS),
	REFUSED(mq_getsetattr, ENOSYS),
	/* allowed inside the guest only (sys_refuse.c) */
	{ .nr = SYS_process_vm_readv, .name = "process_vm_readv", .enter = rec_sys_process_vm },
	{ .nr = SYS_process_vm_writev, .name = "process_vm_writev", .enter = rec_sys_process_vm },
	{ .nr = SYS_pidfd_getfd, .name = "pidfd_getfd", .enter = rec_sys_pidfd_getfd },
	{ .nr = SYS_msgget, .name = "msgget", .enter = rec_sys_sysv_msg },
	{ .nr = SYS_msgsnd, .name = "msgsnd", .enter = rec_sys_sysv_msg },
	{ .nr = SYS_msgrcv, .name = "msgrcv", .enter = rec_sys_sysv_msg },
	{ .nr = SYS_msgctl, .name = "msgctl", .enter = rec_sys_sysv_msg },
	/* a process's threads end in hermit's order, not the kernel's
	 * (exits.c); run.c hands it there before this row is looked at */
	{ .nr = SYS_exit_group, .name = "exit_group", .hidden = HIDDEN_ALWAYS },
	/* the guest's tasks have a tracer already: hermit (EPERM, and a word) */
	{ .nr = SYS_ptrace, .name = "ptrace", .enter = rec_sys_ptrace },
};

size_t rec_syscall_count(void)
{
	return sizeof(table) / sizeof(table[0]);
}

const struct rec_syscall *rec_syscall_row(size_t i)
{
	return i < rec_syscall_count() ? &table[i] : NULL;
}

/* Row by syscall number, built on first use: every stop looks one up. */
#define MAX_NR 512
static const struct rec_syscall *by_nr[MAX_NR];
static int by_nr_ready;

const struct rec_syscall *rec_syscall_find(long nr)
{
	if (!by_nr_ready) {
		for (size_t i = 0; i < rec_syscall_count(); i++) {
			if (table[i].nr >= 0 && table[i].nr < MAX_NR)
				by_nr[table[i].nr] = &table[i];
		}
		by_nr_ready = 1;
	}
	return nr >= 0 && nr < MAX_NR ? by_nr[nr] : NULL;
}

uint64_t rec_syscall_match_also(const struct rec_syscall *row)
{
	switch (row->nr) {
	case SYS_kill:
	case SYS_rt_sigqueueinfo:
	case SYS_pidfd_send_signal:
		/* every signal: a process-directed one goes to the thread the
		 * kernel would give it to (sys_kill.c, rec_kill_passes) */
		return ~(1ULL | 1ULL << SIGKILL);
	case SYS_rt_sigaction:
		return 1ULL << SIGTRAP; /* with SIGSEGV (sigmask.c) */
	default:
		return 0;
	}
}

int rec_syscall_nr(const struct rec_syscall *row)
{
	return row->nr;
}

const char *rec_syscall_name(const struct rec_syscall *row)
{
	return row->name;
}

int rec_syscall_fd_min(const struct rec_syscall *row)
{
	return row->fd_min;
}

enum rec_action rec_reply_mem(struct task *t, struct rec_call *c, uint64_t addr, const void *p,
			      size_t n, long ok)
{
	c->ret = tracer_write_mem(t->tid, addr, p, n) < 0 ? -EFAULT : ok;
	return REC_EMULATED;
}
