/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A guest for tests/unit/test_symbols.c (dwarf/ symbols): locals of every
 * kind of type, set to constants the test knows, handed by address to
 * sink() so that they live in memory at its call at any optimization
 * level; regvar() keeps a value in a register across a call and drops
 * another (optimized out at -O2). Lines marked "code" have code at -O0
 * with gcc and clang; blank lines have none.
 */
#include <stdbool.h>

enum colour { RED, GREEN = 5, BLUE };

typedef unsigned long ulong_t;

struct point {
	int x, y;
};

struct shape {
	struct point corner;
	struct point size;
	char tag;
	double area;
};

union number {
	int i;
	float f;
	unsigned char bytes[4];
};

struct flags {
	unsigned a : 3;
	signed b : 5;
	unsigned c : 1;
	int whole;
	unsigned d : 12;
};

typedef int (*binop_fn)(int, int);

volatile int sink_calls;
volatile int opaque;

__attribute__((noinline)) void sink(void *a, void *b, void *c, void *d, void *e, void *f,
				    void *g, void *h)
{
	__asm__ volatile("" ::"r"(a), "r"(b), "r"(c), "r"(d), "r"(e), "r"(f), "r"(g), "r"(h)
			 : "memory");
	sink_calls++; /* code */
}

__attribute__((noinline)) int add(int a, int b)
{
	return a + b; /* code */
}

__attribute__((noinline)) void sink_int(int v)
{
	__asm__ volatile("" ::"r"(v));
	sink_calls++; /* code */
}

__attribute__((noinline)) int get_opaque(void)
{
	return opaque; /* code */
}

__attribute__((noinline)) int regvar(int n)
{
	int kept = n * n + 1; /* code */
	int gone = get_opaque(); /* code */

	sink_int(kept); /* code */
	return kept * 3 + n; /* code */
}

static int everything(void)
{
	struct shape s = { { 1, -2 }, { 30, 40 }, 'Q', 2.25 }; /* code */
	union number u; /* no code */
	int grid[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } }; /* code */
	long arr[4] = { 10, -20, 30, -40 }; /* code */
	enum colour e = GREEN; /* code */
	struct flags fl = { 5, -3, 1, 77, 4000 }; /* code */
	binop_fn fp = add; /* code */
	ulong_t big = 123456789012UL; /* code */
	const volatile short cv = -7; /* code */
	bool yes = true; /* code */
	float ratio = 1.5f; /* code */
	long *lp = &arr[2]; /* code */

	u.i = 0x41424344; /* code */
	sink(&s, &u, grid, arr, &e, &fl, &fp, &big); /* code */
	sink((void *)&cv, &yes, &ratio, &lp, 0, 0, 0, 0); /* code */
	return fp(s.corner.x, grid[1][2]) + (int)arr[0]; /* code */
}

int main(void)
{
	int r = everything(); /* code */

	r += regvar(6); /* code */
	return r == 0; /* code */
}
