/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The target description (GDB manual G "Target Descriptions") and the
 * register layout of 'g' and 'p', both made from one table so they cannot
 * disagree: a register's number is its row, its place in 'g' the sum of
 * the sizes before it. gdb's amd64 Linux architecture takes the
 * description when org.gnu.gdb.i386.core has rax..gs and the i387
 * registers by these names (i386_validate_tdesc_p() in gdb/i386-tdep.c),
 * org.gnu.gdb.i386.linux has orig_rax (without it amd64_linux_init_abi()
 * leaves out the whole Linux ABI), org.gnu.gdb.i386.segments has fs_base
 * and gs_base (thread-local storage) and org.gnu.gdb.i386.sse has xmm0-15
 * and mxcsr (the types as gdb's own features/i386/64bit-sse.xml has
 * them) and org.gnu.gdb.i386.avx the upper halves of ymm0-15, of which gdb
 * makes $ymm0-15. Explicit regnums pin the numbers gdb uses in 'p'; the
 * sse and avx ones come last, so the older ones keep theirs.
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
	{ "rax", 64, "int64", NULL },	    { "rbx", 64, "int64", NULL },
	{ "rcx", 64, "int64", NULL },	    { "rdx", 64, "int64", NULL },
	{ "rsi", 64, "int64", NULL },	    { "rdi", 64, "int64", NULL },
	{ "rbp", 64, "data_ptr", NULL },    { "rsp", 64, "data_ptr", NULL },
	{ "r8", 64, "int64", NULL },	    { "r9", 64, "int64", NULL },
	{ "r10", 64, "int64", NULL },	    { "r11", 64, "int64", NULL },
	{ "r12", 64, "int64", NULL },	    { "r13", 64, "int64", NULL },
	{ "r14", 64, "int64", NULL },	    { "r15", 64, "int64", NULL },
	{ "rip", 64, "code_ptr", NULL },    { "eflags", 32, "i386_eflags", NULL },
	{ "cs", 32, "int32", NULL },	    { "ss", 32, "int32", NULL },
	{ "ds", 32, "int32", NULL },	    { "es", 32, "int32", NULL },
	{ "fs", 32, "int32", NULL },	    { "gs", 32, "int32", NULL },
	{ "st0", 80, "i387_ext", NULL },    { "st1", 80, "i387_ext", NULL },
	{ "st2", 80, "i387_ext", NULL },    { "st3", 80, "i387_ext", NULL },
	{ "st4", 80, "i387_ext", NULL },    { "st5", 80, "i387_ext", NULL },
	{ "st6", 80, "i387_ext", NULL },    { "st7", 80, "i387_ext", NULL },
	{ "fctrl", 32, "int", "float" },    { "fstat", 32, "int", "float" },
	{ "ftag", 32, "int", "float" },	    { "fiseg", 32, "int", "float" },
	{ "fioff", 32, "int", "float" },    { "foseg", 32, "int", "float" },
	{ "fooff", 32, "int", "float" },    { "fop", 32, "int", "float" },
	{ "orig_rax", 64, "int", NULL },    { "fs_base", 64, "int", NULL },
	{ "gs_base", 64, "int", NULL },	    { "xmm0", 128, "vec128", NULL },
	{ "xmm1", 128, "vec128", NULL },    { "xmm2", 128, "vec128", NULL },
	{ "xmm3", 128, "vec128", NULL },    { "xmm4", 128, "vec128", NULL },
	{ "xmm5", 128, "vec128", NULL },    { "xmm6", 128, "vec128", NULL },
	{ "xmm7", 128, "vec128", NULL },    { "xmm8", 128, "vec128", NULL },
	{ "xmm9", 128, "vec128", NULL },    { "xmm10", 128, "vec128", NULL },
	{ "xmm11", 128, "vec128", NULL },   { "xmm12", 128, "vec128", NULL },
	{ "xmm13", 128, "vec128", NULL },   { "xmm14", 128, "vec128", NULL },
	{ "xmm15", 128, "vec128", NULL },   { "mxcsr", 32, "i386_mxcsr", "vector" },
	{ "ymm0h", 128, "uint128", NULL },  { "ymm1h", 128, "uint128", NULL },
	{ "ymm2h", 128, "uint128", NULL },  { "ymm3h", 128, "uint128", NULL },
	{ "ymm4h", 128, "uint128", NULL },  { "ymm5h", 128, "uint128", NULL },
	{ "ymm6h", 128, "uint128", NULL },  { "ymm7h", 128, "uint128", NULL },
	{ "ymm8h", 128, "uint128", NULL },  { "ymm9h", 128, "uint128", NULL },
	{ "ymm10h", 128, "uint128", NULL }, { "ymm11h", 128, "uint128", NULL },
	{ "ymm12h", 128, "uint128", NULL }, { "ymm13h", 128, "uint128", NULL },
	{ "ymm14h", 128, "uint128", NULL }, { "ymm15h", 128, "uint128", NULL },
};

static const struct feature features[] = {
	{ "org.gnu.gdb.i386.core", RSP_REG_RAX, RSP_REG_ORIG_RAX - RSP_REG_RAX },
	{ "org.gnu.gdb.i386.linux", RSP_REG_ORIG_RAX, 1 },
	{ "org.gnu.gdb.i386.segments", RSP_REG_FS_BASE, 2 },
	{ "org.gnu.gdb.i386.sse", RSP_REG_XMM0, 17 },
	{ "org.gnu.gdb.i386.avx", RSP_REG_YMM0H, 16 },
};

/* The sse feature's types: an xmm register's views, mxcsr's bits. */
static const char sse_types[] = "<vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>\n"
				"<vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>\n"
				"<vector id=\"v16i8\" type=\"int8\" count=\"16\"/>\n"
				"<vector id=\"v8i16\" type=\"int16\" count=\"8\"/>\n"
				"<vector id=\"v4i32\" type=\"int32\" count=\"4\"/>\n"
				"<vector id=\"v2i64\" type=\"int64\" count=\"2\"/>\n"
				"<union id=\"vec128\">\n"
				"<field name=\"v4_float\" type=\"v4f\"/>\n"
				"<field name=\"v2_double\" type=\"v2d\"/>\n"
				"<field name=\"v16_int8\" type=\"v16i8\"/>\n"
				"<field name=\"v8_int16\" type=\"v8i16\"/>\n"
				"<field name=\"v4_int32\" type=\"v4i32\"/>\n"
				"<field name=\"v2_int64\" type=\"v2i64\"/>\n"
				"<field name=\"uint128\" type=\"uint128\"/>\n"
				"</union>\n"
				"<flags id=\"i386_mxcsr\" size=\"4\">\n"
				"<field name=\"IE\" start=\"0\" end=\"0\"/>\n"
				"<field name=\"DE\" start=\"1\" end=\"1\"/>\n"
				"<field name=\"ZE\" start=\"2\" end=\"2\"/>\n"
				"<field name=\"OE\" start=\"3\" end=\"3\"/>\n"
				"<field name=\"UE\" start=\"4\" end=\"4\"/>\n"
				"<field name=\"PE\" start=\"5\" end=\"5\"/>\n"
				"<field name=\"DAZ\" start=\"6\" end=\"6\"/>\n"
				"<field name=\"IM\" start=\"7\" end=\"7\"/>\n"
				"<field name=\"DM\" start=\"8\" end=\"8\"/>\n"
				"<field name=\"ZM\" start=\"9\" end=\"9\"/>\n"
				"<field name=\"OM\" start=\"10\" end=\"10\"/>\n"
				"<field name=\"UM\" start=\"11\" end=\"11\"/>\n"
				"<field name=\"PM\" start=\"12\" end=\"12\"/>\n"
				"<field name=\"FZ\" start=\"15\" end=\"15\"/>\n"
				"</flags>\n";

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
		if (features[f].first == RSP_REG_XMM0)
			hm_buf_addf(b, "%s", sse_types);
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
