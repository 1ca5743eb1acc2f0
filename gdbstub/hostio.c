/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What gdb asks of the stub's side rather than of the inferior: files
 * through vFile (E.8 "Host I/O Packets"; gdb reads the program and its
 * libraries this way when its sysroot is "target:") and "monitor"
 * commands through qRcmd. Host I/O speaks the File-I/O extension's
 * constants (E.13.9 "Constants", gdbsupport/fileio.h): its open flags and
 * errno values are translated here, both ways. Its replies are
 * F<result>[,<errno>][;<data>] in hex, so a malformed request is
 * F-1,16 (EINVAL), as gdbserver answers it, not E01. vFile operations
 * this table lacks (fstat, readlink, pwrite, unlink) get the empty reply:
 * gdb copes without fstat.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/internal.h"

/* File-I/O open flags. */
#define FIO_O_ACCMODE 0x3
#define FIO_O_APPEND  0x8
#define FIO_O_CREAT   0x200
#define FIO_O_TRUNC   0x400
#define FIO_O_EXCL    0x800

#define FIO_EUNKNOWN 9999

/* Host errno to File-I/O errno: the same numbers where the list has them,
 * but ENOSYS and ENAMETOOLONG. */
static int fileio_errno(int err)
{
	switch (err) {
	case EPERM:
	case ENOENT:
	case EINTR:
	case EIO:
	case EBADF:
	case EACCES:
	case EFAULT:
	case EBUSY:
	case EEXIST:
	case ENODEV:
	case ENOTDIR:
	case EISDIR:
	case EINVAL:
	case ENFILE:
	case EMFILE:
	case EFBIG:
	case ENOSPC:
	case ESPIPE:
	case EROFS:
		return err;
	case ENOSYS:
		return 88;
	case ENAMETOOLONG:
		return 91;
	default:
		return FIO_EUNKNOWN;
	}
}

/* F<r> for r >= 0, F-1,<errno> for -errno. */
static void reply_result(struct rsp_session *s, long r)
{
	rsp_out_reset(s);
	if (r < 0)
		rsp_out_fmt(s, "F-1,%x", (unsigned)fileio_errno((int)-r));
	else
		rsp_out_fmt(s, "F%lx", (unsigned long)r);
	rsp_out_send(s);
}

static int have_files(struct rsp_session *s)
{
	const struct rsp_target_ops *o = s->ops;

	if (o->file_open && o->file_pread && o->file_close)
		return 1;
	rsp_reply_str(s, "");
	return 0;
}

/* vFile:setfs:<pid>: there is one file system, the replay's. */
int rsp_handle_file_setfs(struct rsp_session *s, const char *args)
{
	uint64_t pid;

	if (!have_files(s))
		return 0;
	if (rsp_parse_hex(&args, &pid) < 0 || *args)
		reply_result(s, -EINVAL);
	else
		reply_result(s, 0);
	return 0;
}

/* vFile:open:<hex path>,<flags>,<mode>. */
int rsp_handle_file_open(struct rsp_session *s, const char *args)
{
	const char *hex = args, *comma = strchr(args, ',');
	uint64_t fflags, mode;
	size_t n;
	int flags;
	char *path;
	long r;

	if (!have_files(s))
		return 0;
	n = comma ? (size_t)(comma - args) : 0;
	if (!comma || n == 0 || n % 2 || n / 2 >= RSP_MAX_PATH)
		goto malformed;
	args = comma + 1;
	if (rsp_parse_hex_max(&args, INT_MAX, &fflags) < 0 || *args++ != ',' ||
	    rsp_parse_hex_max(&args, INT_MAX, &mode) < 0 || *args)
		goto malformed;
	if ((fflags & FIO_O_ACCMODE) == FIO_O_ACCMODE)
		goto malformed;
	flags = (fflags & FIO_O_ACCMODE) == 1	? O_WRONLY
		: (fflags & FIO_O_ACCMODE) == 2 ? O_RDWR
						: O_RDONLY;
	if (fflags & FIO_O_APPEND)
		flags |= O_APPEND;
	if (fflags & FIO_O_CREAT)
		flags |= O_CREAT;
	if (fflags & FIO_O_TRUNC)
		flags |= O_TRUNC;
	if (fflags & FIO_O_EXCL)
		flags |= O_EXCL;
	path = xmalloc(n / 2 + 1);
	if (hm_unhex(hex, n / 2, (uint8_t *)path) < 0 || memchr(path, 0, n / 2)) {
		free(path);
		goto malformed;
	}
	path[n / 2] = 0;
	/* The permission bits; gdbserver too takes S_IFREG and S_IFDIR in
	 * MODE, which mean nothing to open(2). */
	r = s->ops->file_open(s->t, path, flags, (int)(mode & 0777));
	free(path);
	reply_result(s, r);
	return 0;
malformed:
	reply_result(s, -EINVAL);
	return 0;
}

/* vFile:pread:<fd>,<count>,<offset>: F<count>;<data>. */
int rsp_handle_file_pread(struct rsp_session *s, const char *args)
{
	uint64_t fd, count, off;
	int r;

	if (!have_files(s))
		return 0;
	if (rsp_parse_hex_max(&args, INT_MAX, &fd) < 0 || *args++ != ',' ||
	    rsp_parse_hex(&args, &count) < 0 || *args++ != ',' || rsp_parse_hex(&args, &off) < 0 ||
	    *args) {
		reply_result(s, -EINVAL);
		return 0;
	}
	/* "F" and eight hex digits and ';' before the data. */
	if (count > RSP_MAX_PACKET - 16)
		count = RSP_MAX_PACKET - 16;
	r = s->ops->file_pread(s->t, (int)fd, s->data, (size_t)count, off);
	if (r < 0) {
		reply_result(s, r);
		return 0;
	}
	if ((uint64_t)r > count)
		r = (int)count;
	rsp_out_reset(s);
	rsp_out_fmt(s, "F%x;", (unsigned)r);
	rsp_out_add(s, s->data, (size_t)r);
	rsp_out_send(s);
	return 0;
}

/* vFile:close:<fd>. */
int rsp_handle_file_close(struct rsp_session *s, const char *args)
{
	uint64_t fd;

	if (!have_files(s))
		return 0;
	if (rsp_parse_hex_max(&args, INT_MAX, &fd) < 0 || *args)
		reply_result(s, -EINVAL);
	else
		reply_result(s, s->ops->file_close(s->t, (int)fd));
	return 0;
}

/*
 * qRcmd,<hex command>: the output as console text, "O<hex>" (E.3: gdb
 * prints it and waits on), then OK or E01. The output is cut to what one
 * O packet holds.
 */
int rsp_handle_monitor(struct rsp_session *s, const char *args)
{
	size_t n = strlen(args), outsize = (RSP_MAX_PACKET - 1) / 2 + 1;
	char *cmd, *out;
	int r;

	if (!s->ops->monitor) {
		rsp_reply_str(s, "");
		return 0;
	}
	if (n % 2) {
		rsp_reply_str(s, "E01");
		return 0;
	}
	cmd = xmalloc(n / 2 + 1);
	if (hm_unhex(args, n / 2, (uint8_t *)cmd) < 0 || memchr(cmd, 0, n / 2)) {
		free(cmd);
		rsp_reply_str(s, "E01");
		return 0;
	}
	cmd[n / 2] = 0;
	out = xcalloc(1, outsize);
	r = s->ops->monitor(s->t, cmd, out, outsize);
	out[outsize - 1] = 0;
	if (out[0]) {
		rsp_out_reset(s);
		rsp_out_str(s, "O");
		rsp_out_hex(s, (const uint8_t *)out, strlen(out));
		rsp_out_send(s);
	}
	rsp_reply_str(s, r < 0 ? "E01" : "OK");
	free(cmd);
	free(out);
	return 0;
}
