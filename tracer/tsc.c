/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdtsc and rdtscp emulation. With prctl(PR_SET_TSC, PR_TSC_SIGSEGV) both
 * instructions raise a general protection fault, delivered as SIGSEGV
 * (si_code SI_KERNEL) with rip on the instruction (arch/x86/kernel/traps.c).
 * The tracer sees the signal-delivery stop, writes edx:eax (and ecx for
 * rdtscp), moves rip past the instruction and suppresses the signal.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "tracer.h"

int tracer_emulate_tsc(pid_t tid, uint64_t tsc, uint32_t tsc_aux)
{
	struct user_regs_struct regs;
	unsigned char insn[3];
	size_t len;

	if (tracer_get_regs(tid, &regs) < 0)
		return 0;
	if (tracer_read_mem(tid, regs.rip, insn, sizeof(insn)) < 0)
		return 0;
	if (insn[0] == 0x0f && insn[1] == 0x31) {
		len = 2;
	} else if (insn[0] == 0x0f && insn[1] == 0x01 && insn[2] == 0xf9) {
		len = 3;
		regs.rcx = tsc_aux;
	} else {
		return 0;
	}
	regs.rax = tsc & 0xffffffffu;
	regs.rdx = tsc >> 32;
	regs.rip += len;
	return tracer_set_regs(tid, &regs) == 0 ? 1 : 0;
}
