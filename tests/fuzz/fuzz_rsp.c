/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the gdb remote protocol stub (gdbstub/): whatever
 * bytes gdb's side sends, the session answers without a crash, a hang or
 * a leak, and everything it sends is an ack or a well-formed packet of at
 * most RSP_MAX_PACKET decoded bytes. The first input byte picks how the
 * rest is fed: odd, as raw wire bytes in pieces of varying size (the
 * framer's ground); even, as packet payloads separated by newlines that
 * this harness frames itself, so the fuzzer reaches the packet handlers
 * without having to find checksums. The target behind the session is a
 * fake with a little of everything: registers, memory with a hole, three
 * threads, auxv, a file, monitor commands and stops of every kind. Built
 * with clang -fsanitize=fuzzer,address,undefined when configure finds
 * clang; tests/integration/fuzz-rsp.sh runs it from tests/fuzz/corpus-rsp/.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/gdbstub.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PID 100

struct fake {
	unsigned resumes;
	struct rsp_framer check; /* parses what the session sends */
};

static int read_regs(void *t, int tid, uint8_t *buf, size_t *len)
{
	(void)t;
	for (size_t i = 0; i < RSP_REGS_SIZE; i++)
		buf[i] = (uint8_t)(i + (size_t)tid);
	*len = RSP_REGS_SIZE;
	return 0;
}

static int read_mem(void *t, uint64_t addr, uint8_t *buf, size_t len)
{
	(void)t;
	if (addr < 0x1000 || addr > 0x40000 || len > 0x40000 - addr)
		return -EFAULT;
	if (addr == 0x2000)
		return -EIO;
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(addr + i);
	return 0;
}

static int threads(void *t, int *tids, int max, int *n)
{
	(void)t;
	*n = 0;
	for (int i = 0; i < 3 && i < max; i++)
		tids[(*n)++] = PID + i;
	return 0;
}

static int thread_name(void *t, int tid, char *buf, size_t size)
{
	(void)t;
	if (tid == PID + 2)
		return -ESRCH;
	snprintf(buf, size, "t<%d>&\"'", tid);
	return 0;
}

static int set_breakpoint(void *t, int type, uint64_t addr, int kind, int insert)
{
	(void)t;
	(void)kind;
	(void)insert;
	if (type == 4)
		return -EOPNOTSUPP;
	return addr & 1 ? -EINVAL : 0;
}

static int resume(void *t, enum rsp_resume how, int tid, struct rsp_stop *stop)
{
	struct fake *fk = t;
	unsigned n = fk->resumes++;

	if (n % 7 == 6)
		return -EIO;
	stop->kind = (int)((n + (unsigned)how) % 5);
	stop->sig = (int)(n % 300);
	stop->status = (int)n;
	stop->tid = n % 3 ? tid : 0;
	stop->reason = (int)(n % 6);
	stop->watch_addr = (uint64_t)n << 40;
	return 0;
}

static int xfer(void *t, const char *object, const char *annex, uint64_t off, uint8_t *buf,
		size_t len, size_t *got)
{
	static const uint8_t auxv[] = "\x21\0\0\0\0\0\0\0#$}*\x7f\0\0\0";
	size_t size = sizeof(auxv) - 1;

	(void)t;
	if (strcmp(object, "auxv") != 0 || annex[0])
		return -EINVAL;
	*got = 0;
	if (off < size) {
		*got = size - off < len ? size - (size_t)off : len;
		memcpy(buf, auxv + off, *got);
	}
	return 0;
}

static int file_open(void *t, const char *path, int flags, int mode)
{
	(void)t;
	(void)mode;
	if (flags)
		return -EROFS;
	return strcmp(path, "/f") ? -ENOENT : 3;
}

static int file_pread(void *t, int fd, uint8_t *buf, size_t len, uint64_t off)
{
	(void)t;
	if (fd != 3)
		return -EBADF;
	if (off > 100000)
		return 0;
	memset(buf, '$', len);
	return (int)len;
}

static int file_close(void *t, int fd)
{
	(void)t;
	return fd == 3 ? 0 : -EBADF;
}

/* Says the command back: arbitrary bytes become console output. */
static int monitor(void *t, const char *cmd, char *out, size_t size)
{
	(void)t;
	snprintf(out, size, "%s", cmd);
	return cmd[0] == 'x' ? -EINVAL : 0;
}

static void kill_target(void *t)
{
	(void)t;
}

static int restart(void *t, struct rsp_stop *stop)
{
	(void)t;
	stop->kind = RSP_STOP_SIGNAL;
	stop->sig = 5;
	stop->tid = PID;
	return 0;
}

static const struct rsp_target_ops ops = {
	.read_regs = read_regs,
	.read_mem = read_mem,
	.threads = threads,
	.thread_name = thread_name,
	.set_breakpoint = set_breakpoint,
	.resume = resume,
	.xfer = xfer,
	.file_open = file_open,
	.file_pread = file_pread,
	.file_close = file_close,
	.monitor = monitor,
	.kill = kill_target,
	.restart = restart,
	.pid = PID,
};

/* Every send is one ack or one whole packet that fits. */
static int check_send(void *io, const char *bytes, size_t len)
{
	struct fake *fk = io;

	if (len == 1 && (bytes[0] == '+' || bytes[0] == '-'))
		return 0;
	if (len < 4 || bytes[0] != '$')
		abort();
	rsp_framer_init(&fk->check);
	for (size_t i = 0; i < len; i++) {
		enum rsp_event ev = rsp_framer_byte(&fk->check, (uint8_t)bytes[i]);

		if (ev != (i + 1 < len ? RSP_NONE : RSP_PACKET))
			abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char wire[2 * RSP_MAX_PACKET + 8];
	struct fake *fk;
	struct rsp_session *s;
	int ended = 0;

	if (size < 1)
		return 0;
	fk = calloc(1, sizeof(*fk));
	if (!fk)
		return 0;
	s = rsp_session_new(&ops, fk, check_send, fk);
	if (data[0] & 1) {
		/* Raw wire bytes, in pieces of 1 to 16 bytes as data[0] says. */
		size_t step = (size_t)(data[0] >> 4) + 1;

		for (size_t i = 1; i < size && !ended; i += step) {
			size_t n = size - i < step ? size - i : step;

			ended = rsp_session_input(s, data + i, n) != 0;
		}
	} else {
		/* Payloads between newlines, framed here. */
		size_t i = 1;

		while (i < size && !ended) {
			const uint8_t *nl = memchr(data + i, '\n', size - i);
			size_t n = nl ? (size_t)(nl - (data + i)) : size - i;
			size_t w = rsp_encode((const char *)data + i, n, wire, sizeof(wire));

			if (w)
				ended = rsp_session_input(s, (const uint8_t *)wire, w) != 0;
			if (data[0] & 2 && !ended) {
				struct rsp_stop st = { .kind = (int)(n % 5), .sig = 2, .tid = PID };

				rsp_session_stopped(s, &st);
			}
			i += n + 1;
		}
	}
	rsp_session_free(s);
	free(fk);
	return 0;
}
