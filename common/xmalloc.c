/* SPDX-License-Identifier: BSD-3-Clause */
/* Allocation wrappers: out of memory is fatal (strace's xmalloc.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static void oom(size_t n) __attribute__((noreturn));
static void oom(size_t n)
{
	hm_error("cannot allocate %zu bytes: out of memory", n);
	_exit(HM_EXIT_INTERNAL);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}
