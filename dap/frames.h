/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stacks for the adapter (DESIGN.md "Debugging faces"): the modules a
 * stopped guest has loaded, found from its link map, and its frames,
 * unwound with libunwind's remote API. Nothing here talks RSP: the target
 * is a pair of readers (memory and registers) that dap/ fills in over its
 * RSP client and the unit test over ptrace, and the unwind tables are read
 * from local copies of the ELF files (the recording's files/).
 */
#ifndef HERMIT_DAP_FRAMES_H
#define HERMIT_DAP_FRAMES_H

#include <stddef.h>
#include <stdint.h>

/* How frames.c reads the stopped thread. Registers are numbered as DWARF
 * numbers them on x86-64 (0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi,
 * 6 rbp, 7 rsp, 8-15 r8-r15, 16 rip). Both return 0 or -errno. */
struct dap_target {
	int (*read_mem)(void *arg, uint64_t addr, void *buf, size_t len);
	int (*read_reg)(void *arg, int regno, uint64_t *val);
	void *arg;
};

/* One loaded ELF file. */
struct dap_module {
	char *name;	     /* as the guest named it (l_name, or the program's) */
	char *file;	     /* the local copy read for its tables and symbols */
	uint64_t bias;	     /* run-time address minus link-time address */
	uint64_t lo, hi;     /* run-time span of its PT_LOAD segments */
	struct dap_elf *elf; /* the file, mapped; NULL when it could not be read */
};

struct dap_modules {
	struct dap_module *v;
	size_t n, cap;
};

/* Maps a guest path to a malloc'ed local path to read, or NULL when there
 * is no copy (the module is listed without tables or symbols). */
typedef char *(*dap_resolve_fn)(void *arg, const char *guest_path);

void dap_modules_init(struct dap_modules *ms);
void dap_modules_free(struct dap_modules *ms);

/* Add NAME (read from FILE, may be NULL) loaded with BIAS. 0 or -errno. */
int dap_modules_add(struct dap_modules *ms, const char *name, const char *file, uint64_t bias);

/*
 * Rebuild MS for the stopped process T: the program (PROGRAM, the guest's
 * path of the executable, whose bias comes from AT_ENTRY in AUXV), then
 * every object on the dynamic linker's list (r_debug through the
 * program's DT_DEBUG), or, before ld.so has filled it, the interpreter at
 * AT_BASE. AUXV is the process's auxiliary vector (qXfer:auxv:read, or
 * /proc/PID/auxv). 0 or -errno.
 */
int dap_modules_load(struct dap_modules *ms, const struct dap_target *t, const void *auxv,
		     size_t auxv_len, const char *program, dap_resolve_fn resolve,
		     void *resolve_arg);

/* The module whose segments hold run-time address PC, or NULL. */
const struct dap_module *dap_module_at(const struct dap_modules *ms, uint64_t pc);

/* The ELF symbol (a function or object) of module M covering run-time
 * address PC, and PC's offset in it; NULL when none does. */
const char *dap_module_symbol(const struct dap_module *m, uint64_t pc, uint64_t *offset);

/* The run-time address and size of M's symbol NAME: 0, or -ENOENT. */
int dap_module_symbol_addr(const struct dap_module *m, const char *name, uint64_t *addr,
			   uint64_t *size);

/* Read LEN bytes at run-time address ADDR from M's file where that part of
 * its image is read-only file content; -ENOENT when it is not. */
int dap_module_read(const struct dap_module *m, uint64_t addr, void *buf, size_t len);

/* The run-time address of M's .eh_frame_hdr (PT_GNU_EH_FRAME): 0, or
 * -ENOENT when it has none. */
int dap_module_eh_frame_hdr(const struct dap_module *m, uint64_t *addr);

/* One frame, innermost first. */
struct dap_stack_frame {
	uint64_t pc;	   /* where it executes (a return address, for callers) */
	uint64_t lookup;   /* the address that names its line: pc, or pc - 1
			   * for a caller (the call, not what follows it) */
	uint64_t cfa;	   /* its canonical frame address; 0 when unknown */
	uint64_t regs[17]; /* DWARF-numbered registers, */
	uint32_t have;	   /* bit N set when regs[N] is known in this frame */
	int signal;	   /* the frame a signal interrupted (its pc is exact) */
	int sigreturn;	   /* the signal trampoline a handler returns to (gdb's
			   * "<signal handler called>"); lookup is its pc */
};

/* Unwind the stopped thread T through the modules MS into at most MAX
 * frames. Returns the number of frames (at least 1), or -errno. */
int dap_unwind(const struct dap_modules *ms, const struct dap_target *t,
	       struct dap_stack_frame *out, size_t max);

#endif
