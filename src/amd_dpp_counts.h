/* amd_dpp_counts.h: the measured tables of src/amd_dpp_counts.c (generated
 * by tools/amd-dpp-counts.py): each DPP step's instructions and the kinds
 * of step they are indexed by, and what a combine costs in a dependent
 * chain.  Not installed; src/amd_dpp.c answers from them
 * (ls_plan_dpp_step_alu, ls_plan_combine_alu, ls_plan_combine_fuses3). */
#ifndef LANESCOPE_AMD_DPP_COUNTS_H
#define LANESCOPE_AMD_DPP_COUNTS_H

#include "lanescope/problem.h"

/* The steps of createSubgroupDPPReduction, in the table's column order. */
typedef enum {
    LS_DPPK_QUAD_1032,
    LS_DPPK_QUAD_2301,
    LS_DPPK_HALF_MIRROR,
    LS_DPPK_MIRROR,
    LS_DPPK_BCAST15,
    LS_DPPK_BCAST31,
    LS_DPPK_PERMLANEX16,
    LS_DPPK_READLANE,      /* one lane's value to every lane */
    LS_DPPK_READLANE_PAIR, /* lanes 31 and 63, combined */
    LS_DPPK_SWIZZLE,       /* VALU besides the ds_swizzle_b32 itself */
    LS_DPPK_COUNT
} ls_dpp_kind;

typedef struct {
    const char *arch;
    int wave;
} ls_amd_dpp_arch_row;

typedef struct {
    int arch; /* index into ls_amd_dpp_archs */
    ls_elem_type type;
    ls_combiner combiner;
    /* VALU and SALU instructions of each step; -1: not a step of this
     * target's lowering */
    signed char n[LS_DPPK_COUNT];
} ls_amd_dpp_row;

/* What 16 combines of a dependent chain cost on arch: 16 for one
 * instruction each, 8 where LLVM fuses two into one three-operand
 * instruction (v_max3_f32, v_add3_u32, ...), more where a combine takes
 * several (a 64-bit compare and two selects, bf16's widening and
 * rounding). */
typedef struct {
    const char *arch;
    ls_elem_type type;
    ls_combiner combiner;
    short per16;
} ls_chain_row;

extern const ls_amd_dpp_arch_row ls_amd_dpp_archs[];
extern const int ls_amd_dpp_n_archs;
extern const ls_amd_dpp_row ls_amd_dpp_rows[];
extern const int ls_amd_dpp_n_rows;
extern const ls_chain_row ls_chain_rows[];
extern const int ls_chain_n_rows;

#endif
