/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dap/frames.c and dap/modules.c on a real process: tests/guests/unwindme
 * (-O2, no frame pointers) runs under ptrace here and stops with SIGTRAP
 * under qsort's comparator and inside a signal handler; the target readers
 * are ptrace's, as the adapter's are RSP's. The frames must name each
 * function on the way back to main, through libc and through the signal
 * trampoline, and the module list must be the one ld.so keeps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "dap/frames.h"
#include "ptguest.h"

static char guest[4096];
#define GUEST guest

static void load(struct dap_modules *ms, struct dap_target *t)
{
	pt_modules(ms, t->arg, GUEST);
}

static const char *name_of(const struct dap_modules *ms, uint64_t pc)
{
	const struct dap_module *m = dap_module_at(ms, pc);
	const char *s = m ? dap_module_symbol(m, pc, NULL) : NULL;

	return s ? s : "?";
}

/* The index of the first frame from FROM whose function is NAME (or a
 * clone of it, NAME.isra.0), or -1. */
static int find(const struct dap_modules *ms, const struct dap_stack_frame *f, int n, int from,
		const char *name)
{
	size_t len = strlen(name);

	for (int i = from; i < n; i++) {
		const char *s = name_of(ms, f[i].lookup);

		if (strncmp(s, name, len) == 0 && (s[len] == 0 || s[len] == '.'))
			return i;
	}
	return -1;
}

static void print_frames(const struct dap_modules *ms, const struct dap_stack_frame *f, int n)
{
	for (int i = 0; i < n; i++)
		print_message("#%d %#lx %s cfa=%#lx%s\n", i, (unsigned long)f[i].pc,
			      name_of(ms, f[i].lookup), (unsigned long)f[i].cfa,
			      f[i].signal      ? " (interrupted)"
			      : f[i].sigreturn ? " (sigreturn)"
					       : "");
}

static void test_modules_at_exec(void **state)
{
	pid_t pid = pt_start(GUEST);
	struct dap_target t = { pt_read_mem, pt_read_reg, &pid };
	struct dap_modules ms;
	uint64_t rip;

	(void)state;
	dap_modules_init(&ms);
	load(&ms, &t);
	/* Before ld.so has run: the program and the interpreter. */
	assert_int_equal(ms.n, 2);
	assert_string_equal(ms.v[0].name, GUEST);
	assert_non_null(strstr(ms.v[1].name, "ld-linux"));
	assert_int_equal(pt_read_reg(&pid, 16, &rip), 0);
	assert_ptr_equal(dap_module_at(&ms, rip), &ms.v[1]);
	dap_modules_free(&ms);
	pt_end(pid);
}

static void test_through_libc(void **state)
{
	pid_t pid = pt_start(GUEST);
	struct dap_target t = { pt_read_mem, pt_read_reg, &pid };
	struct dap_modules ms;
	struct dap_stack_frame f[64];
	int n, leaf, middle, cmp, qs, mainf, libc = 0;

	(void)state;
	pt_run_to(pid, SIGTRAP, 0);
	dap_modules_init(&ms);
	load(&ms, &t);
	for (size_t i = 0; i < ms.n; i++)
		libc |= strstr(ms.v[i].name, "libc.so") != NULL;
	assert_true(libc);
	n = dap_unwind(&ms, &t, f, 64);
	print_frames(&ms, f, n);
	leaf = find(&ms, f, n, 0, "leaf");
	middle = find(&ms, f, n, leaf + 1, "middle");
	cmp = find(&ms, f, n, middle + 1, "cmp_ints");
	qs = find(&ms, f, n, cmp + 1, "qsort_r");
	if (qs < 0)
		qs = find(&ms, f, n, cmp + 1, "qsort");
	mainf = find(&ms, f, n, qs + 1, "main");
	assert_true(leaf >= 0 && middle == leaf + 1 && cmp == middle + 1);
	assert_true(qs > cmp && mainf > qs);
	/* Every frame but the outermost knows its CFA, above its sp. */
	for (int i = 0; i < mainf; i++) {
		assert_true(f[i].cfa > f[i].regs[7]);
		assert_true(f[i].have & (1u << 7));
		assert_int_equal(f[i + 1].regs[7], f[i].cfa);
	}
	/* A caller's line is its call's: the address before the return. */
	assert_int_equal(f[middle].lookup, f[middle].pc - 1);
	dap_modules_free(&ms);
	pt_end(pid);
}

static void test_through_signal(void **state)
{
	pid_t pid = pt_start(GUEST);
	struct dap_target t = { pt_read_mem, pt_read_reg, &pid };
	struct dap_modules ms;
	struct dap_stack_frame f[64];
	int n, handler, inter, mainf, sig = -1;

	(void)state;
	pt_run_to(pid, SIGTRAP, 0);	  /* under qsort */
	pt_run_to(pid, SIGUSR1, 0);	  /* raise(SIGUSR1) in interrupted() */
	pt_run_to(pid, SIGTRAP, SIGUSR1); /* the handler's leaf */
	dap_modules_init(&ms);
	load(&ms, &t);
	n = dap_unwind(&ms, &t, f, 64);
	print_frames(&ms, f, n);
	handler = find(&ms, f, n, 0, "on_usr1");
	inter = find(&ms, f, n, handler + 1, "interrupted");
	mainf = find(&ms, f, n, inter + 1, "main");
	assert_true(handler > 0 && inter > handler && mainf > inter);
	for (int i = handler + 1; i <= inter; i++)
		if (f[i].signal)
			sig = i;
	/* Right under the handler, the trampoline it returns to. */
	assert_true(f[handler + 1].sigreturn);
	assert_int_equal(sig, handler + 2);
	/* The frame the signal interrupted is exact, and all its registers
	 * come back from the signal frame. */
	assert_true(sig > handler);
	assert_int_equal(f[sig].lookup, f[sig].pc);
	assert_int_equal(f[sig].have & 0x1ffff, 0x1ffff);
	dap_modules_free(&ms);
	pt_end(pid);
}

static void test_no_file(void **state)
{
	struct dap_modules ms;
	uint8_t buf[8];

	(void)state;
	dap_modules_init(&ms);
	assert_int_equal(dap_modules_add(&ms, "/nonexistent", "/nonexistent/file", 0x1000), 0);
	assert_null(dap_module_at(&ms, 0x1000));
	assert_null(dap_module_symbol(&ms.v[0], 0x1000, NULL));
	assert_int_equal(dap_module_read(&ms.v[0], 0x1000, buf, 8), -ENOENT);
	dap_modules_free(&ms);
}

int main(void)
{
	const char *dir = getenv("GUESTS");

	snprintf(guest, sizeof(guest), "%s/unwindme", dir ? dir : "tests/guests");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modules_at_exec),
		cmocka_unit_test(test_through_libc),
		cmocka_unit_test(test_through_signal),
		cmocka_unit_test(test_no_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
