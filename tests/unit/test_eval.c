/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dap/eval.c and dap/value.c over a real frame: tests/guests/evalme stops
 * under inspect(); the frame is unwound (dap/frames.c) and read through
 * libdwarf (dwarf/), as the adapter reads one over RSP. Each expression
 * must print what gdb would print for it, with its type written as C
 * writes it, and bad ones must give their one-line errors.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dap/value.h"
#include "ptguest.h"

static char guest[4096];
static pid_t pid;
static struct dap_modules ms;
static struct dap_stack_frame frame;
static struct dw_syms *syms;
static struct dw_reader reader;
static struct dap_eval_env env;

static int frame_reg(void *arg, int regno, uint64_t *val)
{
	(void)arg;
	if (regno < 0 || regno > 16 || !(frame.have & (1u << regno)))
		return -EIO;
	*val = frame.regs[regno];
	return 0;
}

static int setup(void **state)
{
	struct dap_target t = { pt_read_mem, pt_read_reg, &pid };
	struct dap_stack_frame f[32];
	const struct dap_module *m;
	int n, i;

	(void)state;
	pid = pt_start(guest);
	pt_run_to(pid, SIGTRAP, 0);
	dap_modules_init(&ms);
	pt_modules(&ms, &pid, guest);
	n = dap_unwind(&ms, &t, f, 32);
	for (i = 0; i < n; i++) {
		const char *s;

		m = dap_module_at(&ms, f[i].lookup);
		s = m ? dap_module_symbol(m, f[i].lookup, NULL) : NULL;
		if (s && strcmp(s, "inspect") == 0)
			break;
	}
	assert_true(i < n);
	frame = f[i];
	m = dap_module_at(&ms, frame.lookup);
	assert_int_equal(dw_syms_open(guest, &syms), 0);
	reader.reg = frame_reg;
	reader.mem = pt_read_mem;
	reader.arg = &pid;
	reader.pc = frame.lookup - m->bias;
	reader.cfa = frame.cfa;
	reader.bias = m->bias;
	env.syms = syms;
	env.r = &reader;
	env.depth = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	dw_syms_close(syms);
	dap_modules_free(&ms);
	pt_end(pid);
	return 0;
}

/* TEXT evaluates to something printed as WANT (a '*' in WANT stands for
 * any text), of type TYPE (NULL: unchecked). */
static void is(const char *text, const char *want, const char *type)
{
	struct dap_value v;
	char err[256];
	char *got, *tn;
	size_t n = strlen(want);

	if (dap_eval_text(text, &env, &v, err, sizeof(err)) < 0)
		fail_msg("'%s': %s", text, err);
	got = dap_value_format(&v, &env);
	tn = dap_value_type_name(&v);
	const char *star = strchr(want, '*');
	size_t pre = star ? (size_t)(star - want) : n, post = star ? n - pre - 1 : 0;

	if (star ? strlen(got) < pre + post || strncmp(got, want, pre) != 0 ||
			    strcmp(got + strlen(got) - post, star + 1) != 0
		 : strcmp(got, want) != 0)
		fail_msg("'%s' printed '%s', not '%s'", text, got, want);
	if (type && strcmp(tn, type) != 0)
		fail_msg("'%s' has type '%s', not '%s'", text, tn, type);
	free(got);
	free(tn);
}

static void fails(const char *text, const char *want)
{
	struct dap_value v;
	char err[256] = "";

	if (dap_eval_text(text, &env, &v, err, sizeof(err)) == 0) {
		char *got = dap_value_format(&v, &env);

		fail_msg("'%s' evaluated to '%s'", text, got);
	}
	if (!strstr(err, want))
		fail_msg("'%s' failed with '%s', not '%s'", text, err, want);
}

static void test_locals_and_params(void **state)
{
	(void)state;
	is("count", "3", "int");
	is("list->value", "1", "int");
	is("list->next->next->name", "0x* \"three\"", "const char *");
	is("list->next->next->name[1]", "104 'h'", "const char");
	is("list->next->next->next", "0x0", "struct node *");
	is("*list", "{value = 1, name = 0x*", "struct node");
	is("neg", "-12345", "long int"); /* DWARF's name, as gcc wrote it */
	is("uc", "250 '\\372'", "unsigned char");
	is("*pi", "12", "int");
	is("pi[1]", "13", "int");
}

static void test_globals(void **state)
{
	(void)state;
	is("g_counter", "42", "int");
	is("g_ratio", "2.5", "double");
	is("g_name", "0x* \"hermit\"", "const char *");
	is("g_name[1]", "101 'e'", NULL);
	is("g_buf", "\"abc\"", "char [8]");
	is("g_my", "-7", "myint_t");
	is("g_color", "GREEN", "enum color");
	is("(int)g_color", "5", "int");
	is("g_fn", "0x*", "int (*)(int)");
	is("n1.next->next->value", "3", NULL);
}

static void test_aggregates(void **state)
{
	(void)state;
	is("grid[2][3]", "23", "int");
	is("grid[1]", "{10, 11, 12, 13}", "int [4]");
	is("grid", "{{0, 1, 2, 3}, {10, 11, 12, 13}, {20, 21, 22, 23}}", "int [3][4]");
	is("&grid[1]", "0x*", "int (*)[4]");
	is("&list", "0x*", "struct node **");
	is("fl.ready", "1", NULL);
	is("fl.mode", "5", NULL);
	is("fl.level", "-3", NULL);
	is("fl.tail", "200 '\\310'", "unsigned char");
	is("w.u", "16909060", NULL);
	is("w.b[0]", "4 '\\004'", NULL);
	is("o.pos.y", "20", "int");
	is("o.as_int", "99", "int");
	is("fl", "{ready = 1, mode = 5, level = -3, tail = 200 '\\310'}", "struct flags");
}

static void test_arithmetic(void **state)
{
	(void)state;
	is("g_counter * 2 + 1", "85", "long");
	is("(long)g_counter - 50", "-8", NULL);
	is("7 / 2", "3", NULL);
	is("7 % 3", "1", NULL);
	is("-7 / 2", "-3", NULL);
	is("1 << 4", "16", NULL);
	is("~0", "-1", NULL);
	is("!count", "0", NULL);
	is("-uc", "-250", NULL);
	is("count > 2 && list", "1", NULL);
	is("count > 5 || 0", "0", NULL);
	is("g_ratio * 2", "5", "double");
	is("(unsigned char)300", "44 ','", "unsigned char");
	is("(myint_t)g_counter", "42", "myint_t");
	is("((struct node *)&n2)->value", "2", NULL);
	is("pi - &grid[0][0]", "6", NULL);
	is("&grid[1][2] == pi", "1", NULL);
	is("*(pi + 1)", "13", NULL);
	is("*(grid[2] + 3)", "23", NULL);
	is("18446744073709551615u + 1", "0", "unsigned long");
	is("$pc", "0x*", NULL);
	is("$rsp == $sp", "1", NULL);
}

static void test_children(void **state)
{
	struct dap_value v, c, cc;
	char name[64], err[256];
	char *s;

	(void)state;
	assert_int_equal(dap_eval_text("*list", &env, &v, err, sizeof(err)), 0);
	assert_int_equal(dap_value_children(&v), 3);
	assert_int_equal(dap_value_child(&v, &env, 2, &c, name, sizeof(name), err, sizeof(err)), 0);
	assert_string_equal(name, "next");
	/* A pointer expands into what it points at. */
	assert_int_equal(dap_value_children(&c), 1);
	assert_int_equal(dap_value_child(&c, &env, 0, &cc, name, sizeof(name), err, sizeof(err)),
			 0);
	assert_string_equal(name, "*");
	s = dap_value_format(&cc, &env);
	assert_true(strncmp(s, "{value = 2, name = 0x", 21) == 0);
	free(s);
	assert_int_equal(dap_eval_text("grid", &env, &v, err, sizeof(err)), 0);
	assert_int_equal(dap_value_children(&v), 3);
	assert_int_equal(dap_value_child(&v, &env, 2, &c, name, sizeof(name), err, sizeof(err)), 0);
	assert_string_equal(name, "[2]");
	assert_int_equal(dap_value_children(&c), 4);
	assert_int_equal(dap_value_child(&c, &env, 1, &cc, name, sizeof(name), err, sizeof(err)),
			 0);
	s = dap_value_format(&cc, &env);
	assert_string_equal(s, "21");
	free(s);
	/* void and function pointers do not expand. */
	assert_int_equal(dap_eval_text("g_fn", &env, &v, err, sizeof(err)), 0);
	assert_int_equal(dap_value_children(&v), 0);
}

static void test_errors(void **state)
{
	(void)state;
	fails("nosuch", "no symbol 'nosuch' in current context");
	fails("count.x", "request for member 'x' in something not a structure or union");
	fails("list.value", "request for member 'value' in a pointer (use '->')");
	fails("o.zz", "there is no member named 'zz' in 'struct outer'");
	fails("count->x", "is not a pointer");
	fails("1 / 0", "division by zero");
	fails("*count", "attempt to take contents of a non-pointer value");
	fails("&fl.ready", "cannot take the address of a bitfield");
	fails("&5", "cannot take the address of a value not in memory");
	fails("(struct nope *)0", "no struct named 'nope'");
	fails("count[1]", "cannot subscript something of type 'int'");
	fails("$xyz", "no register '$xyz'");
	fails("list->next->next->next->value", "cannot access memory at address 0x0");
	fails("count +", "expected an expression");
}

int main(void)
{
	const char *dir = getenv("GUESTS");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_locals_and_params), cmocka_unit_test(test_globals),
		cmocka_unit_test(test_aggregates),	  cmocka_unit_test(test_arithmetic),
		cmocka_unit_test(test_children),	  cmocka_unit_test(test_errors),
	};

	snprintf(guest, sizeof(guest), "%s/evalme", dir ? dir : "tests/guests");
	return cmocka_run_group_tests(tests, setup, teardown);
}
