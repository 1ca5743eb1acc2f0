/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Files the guest maps shared (MAP_SHARED). What the guest's own processes
 * write to them a replay writes again; what a process outside the guest
 * writes while the mapping lives reaches the guest's memory with no
 * syscall, which nothing can record (rr has the same limit). A replay
 * maps the copy taken at the mmap. So a recording notes each such file's
 * change time at its mmap and, at its end, names those that changed
 * though the guest never opened them for writing: someone else did.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

struct rec_shared {
	char *path;
	struct timespec ctime; /* st_ctim at the first mmap */
};

void rec_shared_note(struct rec *r, const char *path)
{
	struct stat st;

	if (path[0] != '/' || strstr(path, " (deleted)") || stat(path, &st) < 0 ||
	    !S_ISREG(st.st_mode))
		return;
	for (size_t i = 0; i < r->nshared; i++) {
		if (strcmp(r->shared[i].path, path) == 0)
			return;
	}
	r->shared = xrealloc(r->shared, (r->nshared + 1) * sizeof(*r->shared));
	r->shared[r->nshared].path = xstrdup(path);
	r->shared[r->nshared].ctime = st.st_ctim;
	r->nshared++;
}

/* Whether the recorded run wrote PATH: `before` notes every path the run
 * touched, and keeps the content of those it wrote, made or removed. */
static int written(const struct rec *r, const char *path)
{
	const struct rec_files *f = r->opts->files;

	for (size_t i = 0; f && i < f->nbefore; i++) {
		if (strcmp(f->before[i].path, path) == 0)
			/* kept as it was, made, moved or removed, noted absent
			 * (the run made it), or opened to write but too large */
			return f->before[i].sha256[0] || f->before[i].changed ||
			       f->before[i].kind == TRACER_PATH_ABSENT || f->before[i].too_large;
	}
	return 0;
}

void rec_shared_check(struct rec *r)
{
	struct stat st;

	for (size_t i = 0; i < r->nshared; i++) {
		const struct rec_shared *m = &r->shared[i];

		if (stat(m->path, &st) == 0 &&
		    (st.st_ctim.tv_sec != m->ctime.tv_sec ||
		     st.st_ctim.tv_nsec != m->ctime.tv_nsec) &&
		    !written(r, m->path))
			hm_warn("'%s', which the guest mapped shared, was changed by a process "
				"outside the guest during the recording: a replay sees it as it was "
				"at the mmap, and diverges where the guest read the change",
				m->path);
	}
}

void rec_shared_free(struct rec *r)
{
	for (size_t i = 0; i < r->nshared; i++)
		free(r->shared[i].path);
	free(r->shared);
	r->shared = NULL;
	r->nshared = 0;
}
