/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Registers and memory of a tracee. Memory goes through process_vm_readv
 * and process_vm_writev (one syscall, no page-size loop, as strace's
 * ucopy.c); /proc/pid/mem is the fallback, and the only way to write a
 * read-only page such as the vDSO (the kernel breaks COW with FOLL_FORCE).
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/common.h"
#include "tracer.h"

/* The registers of the last task read, until it may have run or they were
 * set: a stop's handlers read them several times (a tick trap: the rdtsc
 * check, the trap's own, the debugger's), and each read is a ptrace call. */
static struct {
	pid_t tid; /* 0: none */
	struct user_regs_struct regs;
} last_regs;

/* Counts the moments a tracee may have run (a stop waited for, a resume,
 * a detach) or the Hermit page was written here: see tracer_epoch. */
static uint64_t epoch;

uint64_t tracer_epoch(void)
{
	return epoch;
}

void tracer_regs_forget(void)
{
	last_regs.tid = 0;
	epoch++;
}

/* A write that reaches the Hermit page (a debugger's) changes what the
 * tracer last read there. */
static void written(uint64_t addr, size_t len)
{
	if (addr < TRACER_HPAGE + 4096 && addr + len > TRACER_HPAGE)
		epoch++;
}

int tracer_get_regs(pid_t tid, struct user_regs_struct *regs)
{
	if (tid > 0 && last_regs.tid == tid) {
		*regs = last_regs.regs;
		return 0;
	}
	if (ptrace(PTRACE_GETREGS, tid, 0, regs) < 0)
		return -errno;
	last_regs.tid = tid;
	last_regs.regs = *regs;
	return 0;
}

int tracer_get_xstate(pid_t tid, void *buf, size_t size, size_t *len)
{
	struct iovec iov = { buf, size };

	if (ptrace(PTRACE_GETREGSET, tid, NT_X86_XSTATE, &iov) < 0)
		return -errno;
	*len = iov.iov_len;
	return 0;
}

int tracer_set_regs(pid_t tid, const struct user_regs_struct *regs)
{
	/* Read back, not taken from here: the kernel may adjust what it sets.
	 * (The guest has not run: the epoch stays.) */
	last_regs.tid = 0;
	return ptrace(PTRACE_SETREGS, tid, 0, regs) < 0 ? -errno : 0;
}

static int proc_mem(pid_t tid, uint64_t addr, void *buf, size_t len, int write)
{
	char path[64];
	int fd, err = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/mem", tid);
	fd = open(path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write) {
		written(addr, len);
		n = pwrite(fd, buf, len, (off_t)addr);
	} else
		n = pread(fd, buf, len, (off_t)addr);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EFAULT;
	close(fd);
	return err;
}

int tracer_read_mem(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (len == 0)
		return 0;
	n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	return proc_mem(tid, addr, buf, len, 0);
}

int tracer_read_str(pid_t tid, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0;

	/* Read page by page: a string may end just before an unmapped page. */
	while (got + 1 < size) {
		size_t chunk = 4096 - ((addr + got) & 4095);

		if (chunk > size - 1 - got)
			chunk = size - 1 - got;
		if (tracer_read_mem(tid, addr + got, buf + got, chunk) < 0)
			return got ? 0 : -EFAULT;
		if (memchr(buf + got, 0, chunk))
			return 0;
		got += chunk;
	}
	buf[size - 1] = 0;
	return -ENAMETOOLONG;
}

int tracer_write_mem(pid_t tid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec local = { (void *)buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (len == 0)
		return 0;
	written(addr, len);
	n = process_vm_writev(tid, &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? -errno : -EFAULT;
}

int tracer_poke_mem(pid_t tid, uint64_t addr, const void *buf, size_t len)
{
	return proc_mem(tid, addr, (void *)buf, len, 1);
}

int tracer_auxv(pid_t tid, unsigned long type, uint64_t *value)
{
	char path[64];
	Elf64_auxv_t aux;
	int fd, err = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/auxv", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (read(fd, &aux, sizeof(aux)) == (ssize_t)sizeof(aux) && aux.a_type != AT_NULL) {
		if (aux.a_type == type) {
			*value = aux.a_un.a_val;
			err = 0;
			break;
		}
	}
	close(fd);
	return err;
}

int tracer_poke_byte(pid_t pid, uint64_t addr, const uint8_t *in, uint8_t *out)
{
	char path[64];
	int fd, err = 0;

	/* /proc/PID/mem writes where the text is read-only: how int3s go in. */
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (out && pread(fd, out, 1, (off_t)addr) != 1)
		err = -EFAULT;
	if (!err && in && pwrite(fd, in, 1, (off_t)addr) != 1)
		err = -EFAULT;
	close(fd);
	return err;
}
