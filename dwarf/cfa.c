/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CFA of a frame (DWARF 5 section 6.4): the FDE covering the pc, from
 * .eh_frame (always in the file that runs; a separate debug file's copy is
 * empty) or .debug_frame, run by libdwarf up to the pc
 * (dwarf_get_fde_info_for_cfa_reg3_b), gives a register and offset, or an
 * expression (the PLT's). Until libunwind walks stacks, this is how the
 * frame base DW_OP_call_frame_cfa of gcc's code is found.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "dwarf/internal.h"

static void load_fdes(struct dw_syms *s)
{
	Dwarf_Error err = NULL;

	s->fde_loaded = 1;
	if (s->frame_dbg &&
	    dwarf_get_fde_list_eh(s->frame_dbg, &s->eh_cie, &s->eh_ncie, &s->eh_fde, &s->eh_nfde,
				  &err) != DW_DLV_OK) {
		sym_drop_error(s->frame_dbg, &err);
		s->eh_cie = NULL;
		s->eh_fde = NULL;
	}
	if (s->dbg && dwarf_get_fde_list(s->dbg, &s->dbg_cie, &s->dbg_ncie, &s->dbg_fde,
					 &s->dbg_nfde, &err) != DW_DLV_OK) {
		sym_drop_error(s->dbg, &err);
		s->dbg_cie = NULL;
		s->dbg_fde = NULL;
	}
}

void sym_frames_free(struct dw_syms *s)
{
	if (s->eh_fde || s->eh_cie)
		dwarf_fde_cie_list_dealloc(s->frame_dbg, s->eh_cie, s->eh_ncie, s->eh_fde,
					   s->eh_nfde);
	if (s->dbg_fde || s->dbg_cie)
		dwarf_fde_cie_list_dealloc(s->dbg, s->dbg_cie, s->dbg_ncie, s->dbg_fde,
					   s->dbg_nfde);
}

static int cfa_from(struct dw_syms *s, Dwarf_Debug dbg, Dwarf_Fde *fdes, uint64_t pc,
		    const struct dw_reader *r, uint64_t *cfa)
{
	Dwarf_Error err = NULL;
	Dwarf_Fde fde;
	Dwarf_Addr lo, hi, row_pc, next_pc;
	Dwarf_Small type;
	Dwarf_Signed relevant, reg, offset;
	Dwarf_Ptr block;
	Dwarf_Bool more;
	uint64_t v;

	if (!fdes)
		return -ENOENT;
	if (dwarf_get_fde_at_pc(fdes, pc, &fde, &lo, &hi, &err) != DW_DLV_OK) {
		sym_drop_error(dbg, &err);
		return -ENOENT;
	}
	if (dwarf_get_fde_info_for_cfa_reg3_b(fde, pc, &type, &relevant, &reg, &offset, &block,
					      &row_pc, &more, &next_pc, &err) != DW_DLV_OK) {
		sym_drop_error(dbg, &err);
		return -EINVAL;
	}
	if (type == DW_EXPR_OFFSET || type == DW_EXPR_VAL_OFFSET) {
		int e = r->reg ? r->reg(r->arg, (int)reg, &v) : -ENODATA;
		if (e < 0)
			return e;
		*cfa = v + (uint64_t)(relevant ? offset : 0);
		return 0;
	}
	struct loc_ctx c = { .s = s, .r = r };
	struct dw_value val;
	int e = sym_eval_block(&c, block, (size_t)offset, 1, &val);
	if (e < 0)
		return e;
	if (val.kind != DW_VALUE_BYTES || val.size < 8)
		return -EINVAL;
	memcpy(cfa, val.bytes, 8);
	return 0;
}

int dw_cfa_at(struct dw_syms *syms, uint64_t pc, const struct dw_reader *r, uint64_t *cfa)
{
	int e;

	if (!syms->fde_loaded)
		load_fdes(syms);
	e = cfa_from(syms, syms->frame_dbg, syms->eh_fde, pc, r, cfa);
	if (e == -ENOENT)
		e = cfa_from(syms, syms->dbg, syms->dbg_fde, pc, r, cfa);
	return e;
}
