/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a call made again after a park says, where that differs from what
 * the call would have said had it waited in the kernel all along.
 *
 * A parked call is not in the kernel's wait queue: hermit interrupted it
 * and makes it again when the task is retried (recorder/sched.c). What
 * another task did meanwhile is then met by a new call, not by the
 * waiting one. For most calls that is the same thing. For System V IPC it
 * is not: IPC_RMID wakes the tasks that wait on the queue or set with
 * EIDRM (ipc/msg.c expunge_all(), ipc/sem.c freeary()), while a new call
 * on an identifier that is gone fails with EINVAL (ipc_obtain_object_check()).
 * The call blocked on that identifier before it was parked, so it was
 * valid then, and EINVAL now means that it was removed while the call
 * waited: EIDRM, as msgop(2) and semop(2) say.
 */
#include "config.h"

#include <errno.h>
#include <sys/syscall.h>

#include "internal.h"

void rec_retry_result(struct task *t, struct user_regs_struct *regs)
{
	long nr = (long)regs->orig_rax;

	if ((long)regs->rax != -EINVAL)
		return;
	if (nr != SYS_semop && nr != SYS_semtimedop && nr != SYS_msgrcv && nr != SYS_msgsnd)
		return;
	regs->rax = (uint64_t)(long)-EIDRM;
	if (tracer_set_regs(t->tid, regs) == 0)
		hm_trace("task %d: its IPC object was removed while it waited: EIDRM", t->index);
}
