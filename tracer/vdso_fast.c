/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The in-guest virtual clock (docs/fastpath.md): the code that takes the
 * place of the vDSO's clock_gettime, gettimeofday and time when ticks are
 * counted in the guest. It answers from the clock the tracer published in
 * the Hermit page at the thread's resume (struct tracer_hclock):
 *
 *     now = base + (armed - counter) * TRACER_HCLOCK_TICK_NS
 *
 * base being the published realtime, monotonic or CPU time, armed the
 * budget written at the resume and counter what the thread's counted
 * sites left of it: exactly the clock the recorder computes at the next
 * stop (recorder/preempt.c rec_ticks_stop), so no call needs to stop.
 * What it cannot answer (another clock, a NULL timespec, a timezone, a
 * page with nothing published) is the syscall, as before.
 *
 * The code is assembled into hermit's read-only data, never run there,
 * and copied over __vdso_clock_gettime's body (902 bytes on Linux 6.x;
 * tracer_patch_vdso checks the room); gettimeofday and time jump to their
 * entries in it. It is position-independent: the page is addressed
 * absolutely (it sits below 2 GiB), everything else relatively. It uses
 * only the registers a call may clobber (rax, rcx, rdx, r8-r10; the
 * syscall clobbers rcx and r11) and no stack, so the red zone of a leaf
 * caller is untouched; flags are not preserved across calls anyway.
 *
 * Each read takes the sequence word before and after the others: a stop
 * in between (a signal from outside) publishes anew, and the read is made
 * again.
 */
#include "config.h"

#include "tracer.h"

/* Offsets of the page's words, and the numbers the code below uses, kept
 * in one place with tracer.h's. */
_Static_assert(TRACER_HPAGE == 0x70000000ULL, "the code below addresses the page at 0x70000000");
_Static_assert(TRACER_HCLOCK_TICK_NS == 100, "the code below multiplies by 100");

/*
 * NOW base, fail: %rax = the clock whose published base is at page offset
 * \base, plus the ticks the thread counted since; to \fail when nothing
 * is published (seq 0). Clobbers r8-r10.
 *
 *   1: mov 0x70000008, %r8        seq (0: nothing published)
 *      test %r8, %r8 ; jz fail
 *      mov 0x70000010, %r9        armed
 *      mov 0x70000000, %r10       counter
 *      mov 0x70000000+base, %rax  the base
 *      cmp 0x70000008, %r8 ; jne 1b   published again meanwhile: again
 *      sub %r10, %r9              ticks counted since (armed >= counter;
 *      jae 2f ; xor %r9, %r9       none if not)
 *   2: imul $100, %r9, %r9
 *      add %r9, %rax
 *      xor %r8d, %r8d ; xor %r9d, %r9d ; xor %r10d, %r10d
 *
 * The last three leave nothing of the page in the registers: seq counts
 * the tracer's resumes, which a replay under a debugger makes more of,
 * and a later syscall's unused argument registers are in its event.
 *
 * SPLIT: %rax ns (signed) -> %rax seconds (rounded down), %rdx ns in
 * [0, 1e9): hm_ns_split's, as the syscall's answer is made.
 */
__asm__(".pushsection .rodata.hm_vdso_fast, \"a\"\n"
	".macro HM_NOW base, fail\n"
	"1:	movq 0x70000008, %r8\n"
	"	testq %r8, %r8\n"
	"	jz \\fail\n"
	"	movq 0x70000010, %r9\n"
	"	movq 0x70000000, %r10\n"
	"	movq 0x70000000+\\base, %rax\n"
	"	cmpq 0x70000008, %r8\n"
	"	jne 1b\n"
	"	subq %r10, %r9\n"
	"	jae 2f\n"
	"	xorl %r9d, %r9d\n"
	"2:	imulq $100, %r9, %r9\n"
	"	addq %r9, %rax\n"
	"	xorl %r8d, %r8d\n"
	"	xorl %r9d, %r9d\n"
	"	xorl %r10d, %r10d\n"
	".endm\n"
	".macro HM_SPLIT\n"
	"	movl $1000000000, %r8d\n"
	"	cqto\n"
	"	idivq %r8\n"
	"	testq %rdx, %rdx\n"
	"	jns 3f\n"
	"	addq %r8, %rdx\n"
	"	decq %rax\n"
	"3:\n"
	".endm\n"
	".globl tracer_vdso_fast_start, tracer_vdso_fast_gettimeofday\n"
	".globl tracer_vdso_fast_time, tracer_vdso_fast_end\n"
	".p2align 4\n"
	/*
	 * clock_gettime(%edi clockid, %rsi timespec): clocks 0-7 only
	 * (REALTIME 0, MONOTONIC 1, PROCESS_CPUTIME 2, THREAD_CPUTIME 3,
	 * MONOTONIC_RAW 4, REALTIME_COARSE 5, MONOTONIC_COARSE 6, BOOTTIME 7),
	 * as rec_clock_read answers them: realtime for 0 and 5 (mask 0x21),
	 * CPU time for 2 and 3 (0x0c), monotonic for the rest.
	 */
	"tracer_vdso_fast_start:\n"
	"	testq %rsi, %rsi\n"
	"	jz 9f\n" /* NULL: the syscall's EFAULT */
	"	cmpl $7, %edi\n"
	"	ja 9f\n" /* another clock, or a negative one */
	"	movl $1, %eax\n"
	"	movl %edi, %ecx\n"
	"	shll %cl, %eax\n"
	"	testl $0x21, %eax\n"
	"	jnz 4f\n"
	"	testl $0x0c, %eax\n"
	"	jnz 5f\n"
	"	HM_NOW 32, 9f\n" /* monotonic */
	"	jmp 6f\n"
	"4:	HM_NOW 24, 9f\n" /* realtime */
	"	jmp 6f\n"
	"5:	HM_NOW 40, 9f\n" /* CPU time */
	"6:	HM_SPLIT\n"
	"	movq %rax, (%rsi)\n"
	"	movq %rdx, 8(%rsi)\n"
	"	xorl %eax, %eax\n"
	"	ret\n"
	"9:	movl $228, %eax\n" /* SYS_clock_gettime */
	"	syscall\n"
	"	ret\n"
	/* gettimeofday(%rdi timeval, %rsi timezone) */
	"tracer_vdso_fast_gettimeofday:\n"
	"	testq %rsi, %rsi\n"
	"	jnz 9f\n" /* a timezone: the syscall's */
	"	testq %rdi, %rdi\n"
	"	jz 8f\n" /* nothing asked: 0 */
	"	HM_NOW 24, 9f\n"
	"	HM_SPLIT\n"
	"	movq %rax, (%rdi)\n"
	"	movq %rdx, %rax\n"
	"	movl $1000, %r8d\n" /* tv_usec = tv_nsec / 1000 */
	"	xorl %edx, %edx\n"
	"	divq %r8\n"
	"	movq %rax, 8(%rdi)\n"
	"8:	xorl %eax, %eax\n"
	"	ret\n"
	"9:	movl $96, %eax\n" /* SYS_gettimeofday */
	"	syscall\n"
	"	ret\n"
	/* time(%rdi tloc) */
	"tracer_vdso_fast_time:\n"
	"	HM_NOW 24, 9f\n"
	"	HM_SPLIT\n"
	"	testq %rdi, %rdi\n"
	"	jz 8f\n"
	"	movq %rax, (%rdi)\n"
	"8:	ret\n"
	"9:	movl $201, %eax\n" /* SYS_time */
	"	syscall\n"
	"	ret\n"
	"tracer_vdso_fast_end:\n"
	".purgem HM_NOW\n"
	".purgem HM_SPLIT\n"
	".popsection\n");
