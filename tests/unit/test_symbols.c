/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of dwarf/'s symbols on tests/guests/symvars.c as gcc and
 * clang build it at -O0 and -O2 (symvars-{cc,clang}-O{0,2}; the clang
 * ones are skipped when configure found no clang):
 * - lines: every line with code maps to addresses and back, a blank line
 *   moves to the next line with code, lines marked "code" have code at -O0;
 * - values: the guest runs under ptrace to sink()'s entry; the caller's
 *   frame is rebuilt (rsp + 8, the return address, callee-saved registers)
 *   and every local of everything() is read through its DWARF location and
 *   type and printed, and must be the constant the source gives it;
 * - at -O2 a dropped value says optimized out, one kept in a register
 *   across a call reads right;
 * - inlined frames, and a separate debug file found by build id.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dwarf/dwarf.h"

static const char *variants[] = { "cc-O0", "cc-O2", "clang-O0", "clang-O2" };

static char *guest_path(const char *variant)
{
	static char buf[PATH_MAX];
	const char *dir = getenv("GUESTS");

	snprintf(buf, sizeof(buf), "%s/symvars-%s", dir ? dir : "tests/guests", variant);
	return access(buf, X_OK) == 0 ? buf : NULL;
}

static int is_O2(const char *variant)
{
	return strstr(variant, "O2") != NULL;
}

/* The source the DWARF names, read whole, split in lines. */
static char **source_lines(struct dw_syms *s, size_t *n)
{
	const char *file = NULL;
	for (size_t i = 0; dw_source_file(s, i); i++)
		if (strstr(dw_source_file(s, i), "symvars.c"))
			file = dw_source_file(s, i);
	assert_non_null(file);
	FILE *f = fopen(file, "r");
	assert_non_null(f);
	char **lines = NULL, buf[512];
	*n = 0;
	while (fgets(buf, sizeof(buf), f)) {
		lines = realloc(lines, (*n + 1) * sizeof(*lines));
		lines[(*n)++] = strdup(buf);
	}
	fclose(f);
	return lines;
}

static void free_lines(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

static int blank(const char *l)
{
	while (*l == ' ' || *l == '\t')
		l++;
	return *l == '\n' || *l == 0;
}

static unsigned line_of(char **lines, size_t n, const char *text)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(lines[i], text))
			return (unsigned)i + 1;
	fail_msg("no line with '%s'", text);
	return 0;
}

static void check_lines(const char *variant)
{
	const char *path = guest_path(variant);
	struct dw_syms *s;
	size_t nlines;
	static const char *funcs[] = { "sink", "add", "sink_int", "get_opaque", "regvar", "main" };

	if (!path) {
		print_message("skip %s: not built\n", variant);
		return;
	}
	assert_int_equal(dw_syms_open(path, &s), 0);
	char **lines = source_lines(s, &nlines);
	for (unsigned l = 1; l <= nlines; l++) {
		uint64_t addrs[16];
		unsigned got = 0;
		int n = dw_line_addrs(s, "symvars.c", l, addrs, 16, &got);
		if (blank(lines[l - 1]) && n > 0 && got == l)
			fail_msg("%s: blank line %u has code", variant, l);
		if (!is_O2(variant) && strstr(lines[l - 1], "/* code */") && (n <= 0 || got != l))
			fail_msg("%s: line %u has no code (moved to %u)", variant, l, got);
		for (int i = 0; i < n && i < 16; i++) {
			struct dw_line row;
			struct dw_func fn;
			assert_int_equal(dw_line_at(s, addrs[i], &row), 0);
			if (row.line != got || row.addr != addrs[i] || !row.is_stmt ||
			    !strstr(row.file, "symvars.c"))
				fail_msg("%s: line %u -> %#" PRIx64 " -> %s:%u", variant, got,
					 addrs[i], row.file, row.line);
			assert_int_equal(dw_func_at(s, addrs[i], &fn), 0);
		}
	}
	/* Every statement row of every function maps back to itself. */
	for (size_t k = 0; k < sizeof(funcs) / sizeof(*funcs); k++) {
		struct dw_func fn;
		struct dw_line row;
		int rows = 0;
		assert_int_equal(dw_func_by_name(s, funcs[k], &fn, 1), 1);
		assert_non_null(fn.decl_file);
		assert_true(fn.entry >= fn.low && fn.entry < fn.high);
		for (uint64_t a = fn.low; a < fn.high && dw_line_at(s, a, &row) == 0; a = row.end) {
			uint64_t addrs[16], lo, hi;
			unsigned got;
			rows++;
			assert_int_equal(dw_line_range(s, a, &lo, &hi), 0);
			assert_true(lo <= a && a < hi);
			if (!row.is_stmt || !strstr(row.file, "symvars.c"))
				continue;
			int n = dw_line_addrs(s, "tests/guests/symvars.c", row.line, addrs, 16, &got);
			if (n <= 0 || got != row.line)
				fail_msg("%s: %s row %s:%u at %#" PRIx64 " not found back (%d, %u)",
					 variant, funcs[k], row.file, row.line, a, n, got);
		}
		assert_true(rows > 0);
	}
	assert_int_equal(dw_line_addrs(s, "nosuchfile.c", 10, NULL, 0, NULL), -ENOENT);
	free_lines(lines, nlines);
	dw_syms_close(s);
}

static void test_lines(void **state)
{
	(void)state;
	for (size_t i = 0; i < 4; i++)
		check_lines(variants[i]);
}

/* ---- a guest under ptrace, stopped at a function's entry ---- */

struct stop {
	pid_t pid;
	struct user_regs_struct regs;
	struct user_fpregs_struct fp;
	uint64_t bias, bp, orig;
};

/* The caller's frame at a callee's first instruction: rsp + 8, rip the
 * return address, every other register as it is (gdb's "same value" for
 * registers the CFI says nothing about: gcc's -fipa-ra keeps values in
 * caller-saved registers across calls it knows leave them alone). */
static int frame_reg(void *arg, int regno, uint64_t *val)
{
	struct stop *st = arg;
	const struct user_regs_struct *r = &st->regs;
	const unsigned long long gp[] = { r->rax, r->rdx, r->rcx, r->rbx, r->rsi, r->rdi,
					  r->rbp, r->rsp, r->r8,  r->r9,  r->r10, r->r11,
					  r->r12, r->r13, r->r14, r->r15 };

	if (regno == 7) {
		*val = r->rsp + 8;
		return 0;
	}
	if (regno == 16) {
		errno = 0;
		*val = (uint64_t)ptrace(PTRACE_PEEKDATA, st->pid, (void *)r->rsp, NULL);
		return errno ? -errno : 0;
	}
	if (regno >= 0 && regno < 16) {
		*val = gp[regno];
		return 0;
	}
	if (regno >= 17 && regno <= 32) { /* xmm0-15: their low 8 bytes */
		memcpy(val, &st->fp.xmm_space[(regno - 17) * 4], 8);
		return 0;
	}
	return -ENODATA;
}

static int frame_mem(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct stop *st = arg;
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(st->pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

static uint64_t load_bias(pid_t pid, const char *path)
{
	char maps[64], line[1024], real[PATH_MAX];
	uint64_t start = 0, off, vaddr = 0;
	int pie = 0;

	assert_non_null(realpath(path, real));
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	FILE *f = fopen(maps, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *name = strchr(line, '/');
		if (!name)
			continue;
		name[strcspn(name, "\n")] = 0;
		if (!strcmp(name, real) &&
		    sscanf(line, "%" SCNx64 "-%*x %*s %" SCNx64, &start, &off) == 2 && off == 0)
			break;
		start = 0;
	}
	fclose(f);
	assert_int_equal(dw_elf_load_base(path, &vaddr, &pie), 0);
	return pie ? start - (vaddr & ~0xfffULL) : 0;
}

static void start_guest(const char *path, struct stop *st)
{
	int status;

	memset(st, 0, sizeof(*st));
	st->pid = fork();
	assert_true(st->pid >= 0);
	if (st->pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(st->pid, &status, 0), st->pid);
	assert_true(WIFSTOPPED(status));
	st->bias = load_bias(st->pid, path);
}

static void set_bp(struct stop *st, uint64_t addr)
{
	errno = 0;
	st->bp = addr;
	st->orig = (uint64_t)ptrace(PTRACE_PEEKTEXT, st->pid, (void *)addr, NULL);
	assert_int_equal(errno, 0);
	assert_int_equal(ptrace(PTRACE_POKETEXT, st->pid, (void *)addr,
				(void *)((st->orig & ~0xffULL) | 0xcc)),
			 0);
}

/* Run to the breakpoint (again): 0, or -1 when the guest exited. */
static int run_to_bp(struct stop *st, int again)
{
	int status;

	if (again) { /* step over the original instruction, then re-arm */
		ptrace(PTRACE_POKETEXT, st->pid, (void *)st->bp, (void *)st->orig);
		st->regs.rip = st->bp;
		ptrace(PTRACE_SETREGS, st->pid, NULL, &st->regs);
		ptrace(PTRACE_SINGLESTEP, st->pid, NULL, NULL);
		waitpid(st->pid, &status, 0);
		set_bp(st, st->bp);
	}
	ptrace(PTRACE_CONT, st->pid, NULL, NULL);
	assert_int_equal(waitpid(st->pid, &status, 0), st->pid);
	if (!WIFSTOPPED(status))
		return -1;
	assert_int_equal(WSTOPSIG(status), SIGTRAP);
	assert_int_equal(ptrace(PTRACE_GETREGS, st->pid, NULL, &st->regs), 0);
	assert_int_equal(ptrace(PTRACE_GETFPREGS, st->pid, NULL, &st->fp), 0);
	assert_int_equal(st->regs.rip - 1, st->bp);
	st->regs.rip = st->bp;
	return 0;
}

static void end_guest(struct stop *st)
{
	int status;
	kill(st->pid, SIGKILL);
	waitpid(st->pid, &status, 0);
}

/* Print the value of type TYPE in BYTES as NAME=VALUE lines into OUT. */
static void flatten(struct dw_syms *s, uint64_t type, const unsigned char *bytes, size_t len,
		    const char *name, unsigned bit_size, uint64_t bit_offset, char *out,
		    size_t cap)
{
	const struct dw_type *t;
	char buf[256], sub[256];
	size_t at = strlen(out);

	assert_int_equal(dw_type_strip(s, type, &t), 0);
	switch (t->kind) {
	case DW_TYPE_BASE:
	case DW_TYPE_ENUM:
		assert_true(dw_base_format(t, bytes, len, bit_size, bit_offset, buf, sizeof(buf)) >
			    0);
		snprintf(out + at, cap - at, "%s=%s\n", name, buf);
		break;
	case DW_TYPE_POINTER: {
		uint64_t v = 0;
		memcpy(&v, bytes, 8);
		snprintf(out + at, cap - at, "%s=%#" PRIx64 "\n", name, v);
		break;
	}
	case DW_TYPE_STRUCT:
	case DW_TYPE_UNION:
		for (size_t i = 0; i < t->nmembers; i++) {
			const struct dw_member *m = &t->members[i];
			snprintf(sub, sizeof(sub), "%s.%s", name, m->name ? m->name : "?");
			if (m->bit_size)
				flatten(s, m->type, bytes, len, sub, m->bit_size, m->bit_offset, out,
					cap);
			else
				flatten(s, m->type, bytes + m->offset, len - m->offset, sub, 0, 0,
					out, cap);
		}
		break;
	case DW_TYPE_ARRAY: {
		const struct dw_type *el;
		assert_int_equal(dw_type_strip(s, t->target, &el), 0);
		/* row-major: the stride of dimension 0 is the product of the rest */
		uint64_t inner = 1;
		for (size_t d = 1; d < t->ndims; d++)
			inner *= t->dims[d].count;
		for (uint64_t i = 0; i < t->dims[0].count; i++) {
			snprintf(sub, sizeof(sub), "%s[%" PRIu64 "]", name, i);
			if (t->ndims == 1) {
				flatten(s, t->target, bytes + i * el->size, len - i * el->size, sub,
					0, 0, out, cap);
				continue;
			}
			for (uint64_t j = 0; j < inner; j++) {
				char sub2[300];
				/* two dimensions are what the guest has */
				assert_int_equal(t->ndims, 2);
				snprintf(sub2, sizeof(sub2), "%s[%" PRIu64 "]", sub, j);
				uint64_t off = (i * inner + j) * el->size;
				flatten(s, t->target, bytes + off, len - off, sub2, 0, 0, out, cap);
			}
		}
		break;
	}
	default:
		snprintf(out + at, cap - at, "%s=<kind %d>\n", name, t->kind);
	}
}

/* Read every variable of the frame named FUNC at the stop into OUT. */
static void read_frame(struct dw_syms *s, struct stop *st, const char *func, char *out,
		       size_t cap, uint64_t *arr_addr)
{
	struct dw_reader r = { .reg = frame_reg, .mem = frame_mem, .bias = st->bias, .arg = st };
	struct dw_frame frames[8];
	struct dw_var vars[32];
	uint64_t ret;
	int depth = -1;

	assert_int_equal(frame_reg(st, 16, &ret), 0);
	r.pc = ret - 1 - st->bias;
	int nf = dw_frames_at(s, r.pc, frames, 8);
	for (int i = 0; i < nf && i < 8; i++)
		if (frames[i].name && !strcmp(frames[i].name, func))
			depth = i;
	if (depth < 0)
		fail_msg("no frame %s at %#" PRIx64, func, r.pc);
	uint64_t cfa;
	int e = dw_cfa_at(s, r.pc, &r, &cfa);
	if (e < 0)
		fail_msg("no CFA at %#" PRIx64 ": %d", r.pc, e);
	int nv = dw_vars_at(s, r.pc, depth, vars, 32);
	assert_true(nv > 0 && nv <= 32);
	out[0] = 0;
	for (int i = 0; i < nv; i++) {
		const struct dw_type *t;
		struct dw_value v;
		unsigned char buf[256];
		size_t at = strlen(out);

		assert_int_equal(dw_type_get(s, vars[i].type, &t), 0);
		assert_int_equal(dw_var_read(s, &vars[i], &r, t->size, &v), 0);
		if (v.kind == DW_VALUE_OPTIMIZED_OUT) {
			snprintf(out + at, cap - at, "%s=<optimized out: %s>\n", vars[i].name,
				 v.why);
			continue;
		}
		if (arr_addr && !strcmp(vars[i].name, "arr") && v.kind == DW_VALUE_MEMORY)
			*arr_addr = v.addr;
		assert_true(t->size <= sizeof(buf));
		if (dw_value_fetch(&v, &r, buf, t->size) < 0) {
			snprintf(out + at, cap - at, "%s=<unreadable>\n", vars[i].name);
			continue;
		}
		flatten(s, vars[i].type, buf, t->size, vars[i].name, 0, 0, out, cap);
	}
}

static void expect(const char *variant, const char *got, const char *const *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strstr(got, want[i]))
			fail_msg("%s: want '%s' in\n%s", variant, want[i], got);
}

/* The frames at the first sink() call: everything() at the call's line,
 * and when it is inlined, main() at everything()'s call site. */
static void check_frames(struct dw_syms *s, struct stop *st, const char *variant)
{
	struct dw_frame f[8];
	uint64_t ret;
	size_t nlines;
	char **lines = source_lines(s, &nlines);

	assert_int_equal(frame_reg(st, 16, &ret), 0);
	int n = dw_frames_at(s, ret - 1 - st->bias, f, 8);
	assert_true(n >= 1 && n <= 8);
	assert_string_equal(f[0].name, "everything");
	assert_int_equal(f[0].line, line_of(lines, nlines, "sink(&s, &u"));
	assert_string_equal(f[n - 1].name, n > 1 ? "main" : "everything");
	assert_int_equal(f[n - 1].inlined, 0);
	if (n > 1) {
		assert_int_equal(f[0].inlined, 1);
		assert_int_equal(f[1].line, line_of(lines, nlines, "int r = everything();"));
	}
	print_message("%s: everything() %s\n", variant, n > 1 ? "inlined into main()" : "out of line");
	free_lines(lines, nlines);
}

static void check_values(const char *variant)
{
	const char *path = guest_path(variant);
	struct dw_syms *s;
	struct dw_func sink, add;
	struct stop st;
	char got[8192], want_buf[3][64];
	uint64_t arr = 0;
	union {
		int i;
		float f;
	} u = { .i = 0x41424344 };

	if (!path)
		return;
	assert_int_equal(dw_syms_open(path, &s), 0);
	assert_int_equal(dw_func_by_name(s, "sink", &sink, 1), 1);
	assert_int_equal(dw_func_by_name(s, "add", &add, 1), 1);
	start_guest(path, &st);
	set_bp(&st, sink.low + st.bias);

	assert_int_equal(run_to_bp(&st, 0), 0);
	check_frames(s, &st, variant);
	read_frame(s, &st, "everything", got, sizeof(got), &arr);
	static const char *const first[] = {
		"s.corner.x=1\n", "s.corner.y=-2\n", "s.size.x=30\n", "s.size.y=40\n",
		"s.tag=81 'Q'\n", "s.area=2.25\n", "u.i=1094861636\n", "u.bytes[0]=68 'D'\n",
		"u.bytes[3]=65 'A'\n", "grid[0][0]=1\n", "grid[0][2]=3\n", "grid[1][0]=4\n",
		"grid[1][2]=6\n", "arr[0]=10\n", "arr[1]=-20\n", "arr[3]=-40\n", "e=GREEN\n",
		"fl.a=5\n", "fl.b=-3\n", "fl.c=1\n", "fl.whole=77\n", "fl.d=4000\n",
		"big=123456789012\n",
	};
	expect(variant, got, first, sizeof(first) / sizeof(*first));
	snprintf(want_buf[0], sizeof(want_buf[0]), "fp=%#" PRIx64 "\n", add.low + st.bias);
	snprintf(want_buf[1], sizeof(want_buf[1]), "u.f=%.9g\n", (double)u.f);
	const char *const firstx[] = { want_buf[0], want_buf[1] };
	expect(variant, got, firstx, 2);
	assert_true(arr != 0);

	assert_int_equal(run_to_bp(&st, 1), 0);
	read_frame(s, &st, "everything", got, sizeof(got), NULL);
	static const char *const second[] = { "cv=-7\n", "yes=true\n", "ratio=1.5\n" };
	expect(variant, got, second, 3);
	snprintf(want_buf[2], sizeof(want_buf[2]), "lp=%#" PRIx64 "\n", arr + 16);
	const char *const secondx[] = { want_buf[2] };
	expect(variant, got, secondx, 1);
	end_guest(&st);
	dw_syms_close(s);
}

static void test_values(void **state)
{
	(void)state;
	for (size_t i = 0; i < 4; i++)
		check_values(variants[i]);
}

/* regvar(6): kept = 37 lives across both sink_int() calls; gone is
 * dropped: at -O2 gcc gives it no location, clang one that ends at the
 * first call's return, so at the second call both say optimized out. */
static void check_regvar(const char *variant)
{
	const char *path = guest_path(variant);
	struct dw_syms *s;
	struct dw_func fn;
	struct stop st;
	char got[4096];
	static const char *const kept[] = { "kept=37\n" };

	if (!path)
		return;
	assert_int_equal(dw_syms_open(path, &s), 0);
	assert_int_equal(dw_func_by_name(s, "sink_int", &fn, 1), 1);
	start_guest(path, &st);
	set_bp(&st, fn.low + st.bias);
	for (int stop = 1; stop <= 2; stop++) {
		assert_int_equal(run_to_bp(&st, stop > 1), 0);
		read_frame(s, &st, "regvar", got, sizeof(got), NULL);
		expect(variant, got, kept, 1);
		if (!strstr(got, "n=6\n") && !strstr(got, "n=<optimized out"))
			fail_msg("%s: n neither 6 nor optimized out in\n%s", variant, got);
		if (!is_O2(variant)) {
			static const char *const gone[] = { "gone=0\n" };
			expect(variant, got, gone, 1);
		} else if (stop == 2) {
			static const char *const gone[] = { "gone=<optimized out" };
			expect(variant, got, gone, 1);
		} else if (!strstr(got, "gone=0\n") && !strstr(got, "gone=<optimized out"))
			fail_msg("%s: gone neither 0 nor optimized out in\n%s", variant, got);
	}
	end_guest(&st);
	dw_syms_close(s);
}

static void test_regvar(void **state)
{
	(void)state;
	for (size_t i = 0; i < 4; i++)
		check_regvar(variants[i]);
}

static int sh(const char *cmd)
{
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A stripped copy finds its DWARF by build id under a debug root, or by
 * .gnu_debuglink beside it; without either it opens empty, and its CFA
 * still comes from its own .eh_frame. */
static void test_debug_file(void **state)
{
	const char *path = guest_path("cc-O0");
	static char cmd[32768];
	char dir[] = "/tmp/hm-symtest-XXXXXX", root[64], stripped[96], linked[96];
	struct dw_syms *s;
	struct dw_func fn;
	struct dw_line row;
	(void)state;

	if (!path || sh("command -v objcopy >/dev/null") != 0) {
		skip();
		return;
	}
	assert_non_null(mkdtemp(dir));
	snprintf(root, sizeof(root), "%s/root", dir);
	snprintf(stripped, sizeof(stripped), "%s/stripped", dir);
	snprintf(linked, sizeof(linked), "%s/linked", dir);
	/* the build id, as readelf prints it */
	snprintf(cmd, sizeof(cmd),
		 "set -e; id=$(readelf -n '%s' | sed -n 's/.*Build ID: //p'); "
		 "mkdir -p %s/.build-id/$(echo $id | cut -c1-2); "
		 "objcopy --only-keep-debug '%s' %s/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-).debug; "
		 "objcopy --strip-debug '%s' %s; "
		 "objcopy --only-keep-debug '%s' %s/linked.debug; "
		 "objcopy --strip-debug --add-gnu-debuglink=%s/linked.debug '%s' %s",
		 path, root, path, root, path, stripped, path, dir, dir, path, linked);
	if (sh(cmd) != 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		sh(cmd);
		skip();
		return;
	}
	assert_int_equal(dw_syms_open_dir(stripped, root, &s), 0);
	assert_non_null(dw_syms_debug_file(s));
	assert_non_null(strstr(dw_syms_debug_file(s), "/.build-id/"));
	assert_int_equal(dw_func_by_name(s, "regvar", &fn, 1), 1);
	assert_int_equal(dw_line_at(s, fn.entry, &row), 0);
	dw_syms_close(s);

	assert_int_equal(dw_syms_open_dir(linked, "/nonexistent", &s), 0);
	assert_non_null(dw_syms_debug_file(s));
	assert_non_null(strstr(dw_syms_debug_file(s), "linked.debug"));
	assert_int_equal(dw_func_by_name(s, "regvar", &fn, 1), 1);
	dw_syms_close(s);

	assert_int_equal(dw_syms_open_dir(stripped, "/nonexistent", &s), 0);
	assert_null(dw_syms_debug_file(s));
	assert_null(dw_source_file(s, 0));
	assert_int_equal(dw_line_at(s, fn.entry, &row), -ENOENT);
	assert_int_equal(dw_func_by_name(s, "regvar", &fn, 1), 0);
	{
		struct stop st = { 0 };
		struct dw_reader r = { .reg = frame_reg, .arg = &st };
		uint64_t cfa;
		st.regs.rsp = 0x1000;
		/* at a function's first byte the CFA is rsp + 8: here the caller's rsp + 8 */
		assert_int_equal(dw_cfa_at(s, fn.low, &r, &cfa), 0);
		assert_int_equal(cfa, 0x1000 + 8 + 8);
	}
	dw_syms_close(s);
	assert_int_equal(dw_syms_open("/nonexistent/file", &s), -ENOENT);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	sh(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_regvar),
		cmocka_unit_test(test_debug_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
