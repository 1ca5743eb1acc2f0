/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dap/expr.c: what each expression parses to (written back fully
 * parenthesised), C's precedence and associativity, casts told from
 * parenthesised names, and one-line errors for what is not C.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dap/expr.h"

static int is_type(void *arg, const char *name, int tag)
{
	(void)arg;
	(void)tag;
	return strcmp(name, "myint_t") == 0 || strcmp(name, "node_t") == 0;
}

static void parses_to(const char *text, const char *want)
{
	char err[128];
	struct dap_expr *e = dap_expr_parse(text, is_type, NULL, err, sizeof(err));
	char *got;

	if (!e)
		fail_msg("'%s' did not parse: %s", text, err);
	got = dap_expr_format(e);
	if (strcmp(got, want) != 0)
		fail_msg("'%s' parsed to '%s', not '%s'", text, got, want);
	free(got);
	dap_expr_free(e);
}

static void fails_with(const char *text, const char *want)
{
	char err[128];
	struct dap_expr *e = dap_expr_parse(text, is_type, NULL, err, sizeof(err));

	if (e)
		fail_msg("'%s' parsed", text);
	if (!strstr(err, want))
		fail_msg("'%s' failed with '%s', not '%s'", text, err, want);
	assert_null(strchr(err, '\n'));
}

static void test_primaries(void **state)
{
	(void)state;
	parses_to("counter", "counter");
	parses_to("  x_1  ", "x_1");
	parses_to("42", "42");
	parses_to("0x2a", "42");
	parses_to("052", "42");
	parses_to("42u", "42u");
	parses_to("18446744073709551615", "18446744073709551615u");
	parses_to("'a'", "97");
	parses_to("'\\n'", "10");
	parses_to("1.5", "1.5");
	parses_to("$rax", "$rax");
	parses_to("$pc", "$pc");
}

static void test_postfix(void **state)
{
	(void)state;
	parses_to("s.inner.x", "s.inner.x");
	parses_to("p->next->value", "p->next->value");
	parses_to("grid[1][2]", "grid[1][2]");
	parses_to("a[i + 1].name", "a[(i + 1)].name");
	parses_to("(*p).x", "(*p).x");
	parses_to("nodes[0]->next", "nodes[0]->next");
}

static void test_unary_and_casts(void **state)
{
	(void)state;
	parses_to("*p", "(*p)");
	parses_to("&s.x", "(&s.x)");
	parses_to("-x", "(-x)");
	parses_to("!ok", "(!ok)");
	parses_to("~mask", "(~mask)");
	parses_to("**pp", "(*(*pp))");
	parses_to("*p->q", "(*p->q)");
	parses_to("(unsigned long)x", "((unsigned long)x)");
	parses_to("(struct node *)p", "((struct node *)p)");
	parses_to("(const char *)name", "((const char *)name)");
	parses_to("(char **)argv", "((char **)argv)");
	parses_to("(myint_t)y", "((myint_t)y)");
	parses_to("(node_t *)p->next", "((node_t *)p->next)");
	/* Not a type: a parenthesised name. */
	parses_to("(v)", "v");
	parses_to("(v) - 1", "(v - 1)");
	parses_to("(myint_t) - 1", "((myint_t)(-1))");
}

static void test_precedence(void **state)
{
	(void)state;
	parses_to("a + b * c", "(a + (b * c))");
	parses_to("a - b - c", "((a - b) - c)");
	parses_to("a << 2 + 1", "(a << (2 + 1))");
	parses_to("a < b == c > d", "((a < b) == (c > d))");
	parses_to("a & b ^ c | d", "(((a & b) ^ c) | d)");
	parses_to("a || b && c", "(a || (b && c))");
	parses_to("x % 3 != 0 && !done", "(((x % 3) != 0) && (!done))");
	parses_to("a >= b", "(a >= b)");
	parses_to("-a * b", "((-a) * b)");
}

static void test_errors(void **state)
{
	char deep[2048];

	(void)state;
	fails_with("", "expected an expression");
	fails_with("a +", "expected an expression");
	fails_with("a b", "unexpected 'b' at column 3");
	fails_with("s.", "expected a member name");
	fails_with("a[1", "expected ']'");
	fails_with("(a", "expected ')'");
	fails_with("(struct)p", "expected a tag");
	fails_with("a = 1", "unexpected '=' at column 3");
	fails_with("f(1)", "unexpected '(' at column 2");
	fails_with("0x", "bad number");
	fails_with("1.2.3", "bad number");
	fails_with("'ab'", "bad character literal");
	fails_with("$", "bad name");
	fails_with("a @ b", "unexpected '@'");
	fails_with("int", "unexpected type name");
	memset(deep, '(', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = 0;
	fails_with(deep, "nested too deeply");
	memset(deep, '-', sizeof(deep) - 1);
	fails_with(deep, "nested too deeply");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_primaries),	cmocka_unit_test(test_postfix),
		cmocka_unit_test(test_unary_and_casts), cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
