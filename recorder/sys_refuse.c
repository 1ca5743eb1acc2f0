/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Syscalls hermit cannot record: refused with an errno that programs fall
 * back from, as rr refuses them (docs/record-replay.md, "Refused calls",
 * lists each with its errno and why). The errno is the one a kernel
 * without the feature, or an unprivileged user, would see: io_uring_setup
 * fails with ENOSYS on a kernel built without CONFIG_IO_URING, and
 * liburing's users then read and write as before. A refused call never
 * runs, so a replay refuses it again at the same point.
 */
#include "config.h"

#include <errno.h>

#include "internal.h"

static enum rec_action refuse(struct rec_call *c, int err)
{
	c->ret = -err;
	return REC_EMULATED;
}

enum rec_action rec_sys_refuse_ENOSYS(struct rec *r, struct task *t, struct rec_call *c)
{
	(void)r;
	(void)t;
	return refuse(c, ENOSYS);
}

enum rec_action rec_sys_refuse_EPERM(struct rec *r, struct task *t, struct rec_call *c)
{
	(void)r;
	(void)t;
	return refuse(c, EPERM);
}

enum rec_action rec_sys_refuse_EOPNOTSUPP(struct rec *r, struct task *t, struct rec_call *c)
{
	(void)r;
	(void)t;
	return refuse(c, EOPNOTSUPP);
}
