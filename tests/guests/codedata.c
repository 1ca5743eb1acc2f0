/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Data in the code, as hand-written assembly keeps it (OpenSSL's SHA-256
 * constants sit in .text beside the functions that read them), for
 * tests/integration/code-data.sh. The tick patcher decodes .text linearly
 * and must leave both of these as they are:
 *
 * - `table`: 64 bytes, after a function and its padding, with no symbol,
 *   whose address is taken (lea) from its second half on (as SHA-256
 *   takes K256 + 128), and 24 bytes read (xor .Lwords+8(%rip)) from the
 *   second word on. Decoded, they are backward jumps (sites), indirect
 *   jumps and calls, a loop; a jump or an int3 written over any of them
 *   changes the hash that sum_table prints.
 * - `blob`: bytes no code reads, whose decode runs a byte into the
 *   function after it (count_down), as the decode of whirlpool's table
 *   ran into node's padlock_capability. The decode must start again at
 *   the function's symbol: else the next instruction it decodes starts
 *   inside count_down's first one, and a chaos pick of it writes a jump
 *   over that one's last two bytes (count_down then never sets %r8).
 *
 * Prints the table's sum and count_down's answer; the same natively,
 * under hermit, and under every chaos seed.
 */
#include <stdint.h>
#include <stdio.h>

uint64_t sum_table(void);
uint64_t count_down(uint64_t n);

__asm__(".text\n"
	".p2align 6\n"
	".globl sum_table\n"
	".type sum_table, @function\n"
	"sum_table:\n" /* a hash of both tables' bytes */
	"	lea .Ltable_half(%rip), %rsi\n" /* (the table's second half) */
	"	sub $32, %rsi\n"
	"	xor %eax, %eax\n"
	"	mov $64, %ecx\n"
	"1:	movzbl (%rsi), %edx\n"
	"	add %rdx, %rax\n"
	"	rol $5, %rax\n"
	"	inc %rsi\n"
	"	dec %ecx\n"
	"	jnz 1b\n"
	"	xor .Lwords(%rip), %rax\n"
	"	add .Lwords+8(%rip), %rax\n"
	"	xor .Lwords+16(%rip), %rax\n"
	"	ret\n"
	".size sum_table, .-sum_table\n"
	".p2align 6\n"
	/* Taken (lea) only: data because of the 0x06, no instruction in
	 * 64-bit mode. Decoded, it ends a stretch of nops after a ret, as
	 * padding does, but not at an aligned address. */
	".Ltable:\n"
	"	.byte 0xeb, 0xfe, 0x75, 0xfc, 0xff, 0xe0, 0xe2, 0xf8\n" /* jmp .; jne; jmp *%rax; loop */
	"	.byte 0x0f, 0x85, 0xf0, 0xff, 0xff, 0xff, 0xe9, 0xe5\n" /* jne rel32 back; jmp rel32 */
	"	.byte 0xff, 0xff, 0xff, 0x48, 0x89, 0xc3, 0x48, 0x01\n" /* ... mov; add */
	"	.byte 0xd8, 0x73, 0xe0, 0xc3, 0x90, 0x90, 0x90, 0x06\n" /* jae back; ret; nops; (bad) */
	".Ltable_half:\n"
	"	.byte 0x48, 0x83, 0xe8, 0x01, 0x75, 0xfa, 0xff, 0xd0\n" /* sub; jne back; call *%rax */
	"	.byte 0x31, 0xc0, 0xeb, 0xde, 0x66, 0x90, 0x0f, 0x1f\n"
	"	.byte 0x00, 0x7f, 0xd0, 0x78, 0xce, 0xe3, 0xcc, 0x71\n"
	"	.byte 0xca, 0x41, 0xff, 0xe3, 0x48, 0x8d, 0x05, 0xc0\n"
	/* Read from its second word on: data whatever it decodes as (all
	 * of it does: a loop, backward jumps, an indirect call). */
	".p2align 4\n"
	".Lwords:\n"
	"	.byte 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xeb, 0xf9, 0x90\n" /* dec; jne back; jmp back */
	"	.byte 0xff, 0xd3, 0x74, 0xf4, 0x48, 0x31, 0xc0, 0xc3\n" /* call *%rbx; je back; xor; ret */
	"	.byte 0x0f, 0x8c, 0xe8, 0xff, 0xff, 0xff, 0xeb, 0xe6\n" /* jl rel32 back; jmp back */
	".p2align 4\n"
	"blob:\n" /* (a local symbol that is no function) */
	"	.byte 0x75, 0xfe, 0x0f, 0x84, 0xf8, 0xff, 0xff, 0xff, 0x90, 0x90\n"
	"	.byte 0x83, 0x33\n" /* xorl $imm8, (%rbx): its imm8 is count_down's first byte */
	".globl count_down\n"
	".type count_down, @function\n"
	"count_down:\n" /* n (n + 1) / 2 + n */
	"	mov %rdi, %r8\n"     /* 49 89 f8; decoded from 0x83, its 89 f8 is mov %edi, %eax */
	"	xor %edx, %edx\n"
	"	mov $0, %ecx\n"
	"1:	add %rdi, %rdx\n"
	"	sub $1, %rdi\n"
	"	jnz 1b\n"
	"	lea (%rdx,%r8), %rax\n"
	"	ret\n"
	".size count_down, .-count_down\n");

int main(void)
{
	printf("table %llu\n", (unsigned long long)sum_table());
	printf("count_down %llu\n", (unsigned long long)count_down(100000));
	return 0;
}
