/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The target description (GDB manual G "Target Descriptions") and the
 * register layout of 'g' and 'p', both made from one table so they cannot
 * disagree: a register's number is its row, its place in 'g' the sum of
 * the sizes before it. gdb's amd64 Linux architecture takes the
 * description when org.gnu.gdb.i386.core has rax..gs and the i387
 * registers by these names (i386_validate_tdesc_p() in gdb/i386-tdep.c),
 * org.gnu.gdb.i386.linux has orig_rax (without it amd64_linux_init_abi()
 * leaves out the whole Linux ABI) and org.gnu.gdb.i386.segments has
 * fs_base and gs_base (thread-local storage). Explicit regnums pin the
 * numbers gdb uses in 'p'.
 */
#include "config.h"

#include <errno.h>

#include "gdbstub/internal.h"

struct reg {
	const char *name;
	int bits;
	const char *type;
	const char *group; /* NULL: gdb's default */
};

struct feature {
	const char *name;
	int first, count; /* rows of regs */
};

static const struct reg regs[RSP_NUM_REGS] = {
	{ "rax", 64, "int64", NULL },	 { "rbx", 64, "int64", NULL },
	{ "rcx", 64, "int64", NULL },	 { "rdx", 64, "int64", NULL },
	{ "rsi", 64, "int64", NULL },	 { "rdi", 64, "int64", NULL },
	{ "rbp", 64, "data_ptr", NULL }, { "rsp", 64, "data_ptr", NULL },
	{ "r8", 64, "int64", NULL },	 { "r9", 64, "int64", NULL },
	{ "r10", 64, "int64", NULL },	 { "r11", 64, "int64", NULL },
	{ "r12", 64, "int64", NULL },	 { "r13", 64, "int64", NULL },
	{ "r14", 64, "int64", NULL },	 { "r15", 64, "int64", NULL },
	{ "rip", 64, "code_ptr", NULL }, { "eflags", 32, "i386_eflags", NULL },
	{ "cs", 32, "int32", NULL },	 { "ss", 32, "int32", NULL },
	{ "ds", 32, "int32", NULL },	 { "es", 32, "int32", NULL },
	{ "fs", 32, "int32", NULL },	 { "gs", 32, "int32", NULL },
	{ "st0", 80, "i387_ext", NULL }, { "st1", 80, "i387_ext", NULL },
	{ "st2", 80, "i387_ext", NULL }, { "st3", 80, "i387_ext", NULL },
	{ "st4", 80, "i387_ext", NULL }, { "st5", 80, "i387_ext", NULL },
	{ "st6", 80, "i387_ext", NULL }, { "st7", 80, "i387_ext", NULL },
	{ "fctrl", 32, "int", "float" }, { "fstat", 32, "int", "float" },
	{ "ftag", 32, "int", "float" },	 { "fiseg", 32, "int", "float" },
	{ "fioff", 32, "int", "float" }, { "foseg", 32, "int", "float" },
	{ "fooff", 32, "int", "float" }, { "fop", 32, "int", "float" },
	{ "orig_rax", 64, "int", NULL }, { "fs_base", 64, "int", NULL },
	{ "gs_base", 64, "int", NULL },
};

static const struct feature features[] = {
	{ "org.gnu.gdb.i386.core", RSP_REG_RAX, RSP_REG_ORIG_RAX - RSP_REG_RAX },
	{ "org.gnu.gdb.i386.linux", RSP_REG_ORIG_RAX, 1 },
	{ "org.gnu.gdb.i386.segments", RSP_REG_FS_BASE, 2 },
};

/* The named bits of eflags (Intel SDM vol. 1, 3.4.3 "EFLAGS Register"). */
static const struct {
	const char *name;
	int bit;
} eflags[] = {
	{ "CF", 0 },  { "PF", 2 },   { "AF", 4 },   { "ZF", 6 },  { "SF", 7 },	{ "TF", 8 },
	{ "IF", 9 },  { "DF", 10 },  { "OF", 11 },  { "NT", 14 }, { "RF", 16 }, { "VM", 17 },
	{ "AC", 18 }, { "VIF", 19 }, { "VIP", 20 }, { "ID", 21 },
};

int rsp_reg_offset(int regno, size_t *offset, size_t *size)
{
	size_t off = 0;

	if (regno < 0 || regno >= RSP_NUM_REGS)
		return -EINVAL;
	for (int i = 0; i < regno; i++)
		off += (size_t)regs[i].bits / 8;
	*offset = off;
	*size = (size_t)regs[regno].bits / 8;
	return 0;
}

void rsp_tdesc_xml(struct hm_buf *b)
{
	hm_buf_addf(b, "<?xml version=\"1.0\"?>\n"
		       "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
		       "<target version=\"1.0\">\n"
		       "<architecture>i386:x86-64</architecture>\n"
		       "<osabi>GNU/Linux</osabi>\n");
	for (size_t f = 0; f < sizeof(features) / sizeof(features[0]); f++) {
		hm_buf_addf(b, "<feature name=\"%s\">\n", features[f].name);
		if (f == 0) {
			hm_buf_addf(b, "<flags id=\"i386_eflags\" size=\"4\">\n");
			for (size_t i = 0; i < sizeof(eflags) / sizeof(eflags[0]); i++)
				hm_buf_addf(b, "<field name=\"%s\" start=\"%d\" end=\"%d\"/>\n",
					    eflags[i].name, eflags[i].bit, eflags[i].bit);
			hm_buf_addf(b, "</flags>\n");
		}
		for (int r = features[f].first; r < features[f].first + features[f].count; r++) {
			hm_buf_addf(b, "<reg name=\"%s\" bitsize=\"%d\" type=\"%s\" regnum=\"%d\"",
				    regs[r].name, regs[r].bits, regs[r].type, r);
			if (regs[r].group)
				hm_buf_addf(b, " group=\"%s\"", regs[r].group);
			hm_buf_addf(b, "/>\n");
		}
		hm_buf_addf(b, "</feature>\n");
	}
	hm_buf_addf(b, "</target>\n");
}
