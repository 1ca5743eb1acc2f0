/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest for tests/unit/test_eval.c: globals, a linked list, a 2-D array,
 * a union, an enum, bitfields, strings and a function pointer, all with
 * values fixed here, and a stop (SIGTRAP) under inspect(), whose locals
 * and parameters the test evaluates expressions over.
 */
/* configure's CFLAGS (-O2) come after the target's own: every variable
 * here must live in memory where the test reads it. */
#pragma GCC optimize("O0")
#include <signal.h>
#include <stdint.h>

enum color { RED, GREEN = 5, BLUE };

typedef int myint_t;

struct node {
	int value;
	const char *name;
	struct node *next;
};

struct flags {
	unsigned ready : 1;
	unsigned mode : 3;
	int level : 4;
	unsigned char tail;
};

union word {
	uint32_t u;
	unsigned char b[4];
};

struct outer {
	struct {
		int x, y;
	} pos;
	union {
		int as_int;
		float as_float;
	};
};

int g_counter = 42;
static double g_ratio = 2.5;
int grid[3][4];
struct node n3 = { 3, "three", 0 };
struct node n2 = { 2, "two", &n3 };
struct node n1 = { 1, "one", &n2 };
const char *g_name = "hermit";
char g_buf[8] = "abc";
myint_t g_my = -7;
enum color g_color = GREEN;
int (*g_fn)(int);

static int twice(int v)
{
	return 2 * v;
}

__attribute__((noinline)) static void stop_here(void)
{
	raise(SIGTRAP);
}

__attribute__((noinline)) static int inspect(struct node *list, int count)
{
	struct flags fl = { 1, 5, -3, 200 };
	union word w = { .u = 0x01020304 };
	struct outer o = { { 10, 20 }, { 99 } };
	long neg = -12345;
	unsigned char uc = 250;
	int *pi = &grid[1][2];

	stop_here();
	return list->value + count + fl.mode + (int)w.u + o.pos.x + (int)neg + uc + *pi;
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++)
			grid[i][j] = 10 * i + j;
	g_fn = twice;
	return inspect(&n1, 3) + (int)g_ratio == 0;
}
