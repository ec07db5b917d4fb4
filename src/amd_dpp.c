/* amd_dpp.c: how many instructions LLVM's AMDGPU backend spends on one
 * step of a DPP-lowered gpu.subgroup_reduce, and on one combine of a
 * thread's dependent chain (which it fuses in pairs, which take several),
 * from the tables tools/amd-dpp-counts.py measured (src/amd_dpp_counts.c). */
#include <stdlib.h>
#include <string.h>

#include "amd_dpp_counts.h"
#include "lanescope/functional.h"
#include "lanescope/plan.h"

/* The measured arch standing in for arch: itself, else the one of its
 * family (the same ISA generation compiles a DPP step alike). */
static const char *measured_arch(const char *arch)
{
    for (int i = 0; i < ls_amd_dpp_n_archs; i++)
        if (strcmp(ls_amd_dpp_archs[i].arch, arch) == 0)
            return arch;
    if (strncmp(arch, "gfx95", 5) == 0)
        return "gfx950";
    if (strncmp(arch, "gfx94", 5) == 0)
        return "gfx942";
    if (strncmp(arch, "gfx9", 4) == 0)
        return "gfx90a";
    if (strncmp(arch, "gfx10", 5) == 0)
        return "gfx1030";
    if (strncmp(arch, "gfx11", 5) == 0)
        return "gfx1100";
    if (strncmp(arch, "gfx12", 5) == 0)
        return "gfx1201";
    return NULL;
}

static ls_dpp_kind kind_of(const ls_reduce_step *s)
{
    switch (s->kind) {
    case LS_STEP_DPP:
        switch (s->dpp) {
        case LS_DPP_QUAD_PERM_1032: return LS_DPPK_QUAD_1032;
        case LS_DPP_QUAD_PERM_2301: return LS_DPPK_QUAD_2301;
        case LS_DPP_ROW_HALF_MIRROR: return LS_DPPK_HALF_MIRROR;
        case LS_DPP_ROW_MIRROR: return LS_DPPK_MIRROR;
        case LS_DPP_ROW_BCAST_15: return LS_DPPK_BCAST15;
        case LS_DPP_ROW_BCAST_31: return LS_DPPK_BCAST31;
        case LS_DPP_PERMLANEX16: return LS_DPPK_PERMLANEX16;
        }
        break;
    case LS_STEP_READLANE: return s->lane_b >= 0 ? LS_DPPK_READLANE_PAIR : LS_DPPK_READLANE;
    case LS_STEP_SWIZZLE: return LS_DPPK_SWIZZLE;
    default: break;
    }
    return LS_DPPK_COUNT;
}

/* ROCm's lowering (and NVIDIA's below sm_80) turns maximumf/minimumf
 * into maxnumf/minnumf (Common/ReplaceSlowMinMaxOps.cpp:
 * ls_combiner_as_compiled); an index is an i64 */
static void as_compiled(ls_plan_target t, ls_elem_type *type, ls_combiner *k)
{
    *k = ls_combiner_as_compiled(t, *k);
    if (*type == LS_ET_INDEX)
        *type = LS_ET_I64;
}

/* An NVIDIA arch's compute capability (sm_90: 90; 0: not an sm_ name) */
static int sm_of(const char *arch)
{
    return strncmp(arch, "sm_", 3) == 0 ? atoi(arch + 3) : 0;
}

/* The NVIDIA arch whose chains were measured for sm_XX: the newest at or
 * below it (tools/amd-dpp-counts.py's NV_CHAIN_ARCHS) */
static const char *measured_sm(const char *arch)
{
    int sm = sm_of(arch);
    return sm >= 90 ? "sm_90" : sm >= 80 ? "sm_80" : sm >= 70 ? "sm_70" : "sm_60";
}

/* The chain row of a combine on t's arch; NULL where unmeasured. */
static const ls_chain_row *chain_row(ls_plan_target t, ls_elem_type type, ls_combiner k)
{
    const char *arch = t.amd ? measured_arch(t.arch) : measured_sm(t.arch);
    if (!arch)
        return NULL;
    as_compiled(t, &type, &k);
    for (int r = 0; r < ls_chain_n_rows; r++) {
        const ls_chain_row *row = &ls_chain_rows[r];
        if (row->type == type && row->combiner == k && strcmp(row->arch, arch) == 0)
            return row;
    }
    return NULL;
}

/* under three quarters of an instruction an op: two ops share one */
static bool fuses(const ls_chain_row *row)
{
    return row->per16 < 12;
}

bool ls_plan_combine_fuses3(ls_plan_target t, ls_elem_type type, ls_combiner k)
{
    const ls_chain_row *row = chain_row(t, type, k);
    return row && fuses(row);
}

bool ls_plan_fold_fuses3(ls_plan_target t, ls_elem_type type, ls_combiner k)
{
    if (t.amd)
        return false;
    /* the float-only combiners: min and max */
    if ((type == LS_ET_F16 || type == LS_ET_BF16) && ls_combiner_is_float_only(k))
        return sm_of(t.arch) >= 90; /* VHMNMX: three packed inputs */
    /* IADD3, LOP3 from sm_80, a three-input IMNMX on sm_90: where the
     * chain's two combines fuse.  Not i16: its values are unpacked from
     * their registers first, which the tree's count leaves out */
    return type == LS_ET_I32 && ls_plan_combine_fuses3(t, type, k);
}

int ls_plan_combine_alu(ls_plan_target t, ls_elem_type type, ls_combiner k)
{
    const ls_chain_row *row = chain_row(t, type, k);
    if (!row)
        return ls_bf16_combine_alu(t, k, type);
    if (fuses(row))
        return 1; /* the pairing is the engine's (ls_plan_combine_fuses3) */
    /* the nearest whole count, a half down: the half a 16-bit add shows on
     * gfx10/gfx12 is the high half's extraction every other element */
    int n = (row->per16 + 7) / 16;
    return n > 1 ? n : 1;
}

int ls_plan_dpp_step_alu(ls_plan_target t, ls_elem_type type, ls_combiner k,
                         const ls_reduce_step *s)
{
    const char *arch = t.amd ? measured_arch(t.arch) : NULL;
    ls_dpp_kind kind = kind_of(s);
    if (!arch || kind == LS_DPPK_COUNT)
        return -1;
    as_compiled(t, &type, &k);
    int wave = t.gfx_major == 9 ? 64 : t.wave;
    for (int r = 0; r < ls_amd_dpp_n_rows; r++) {
        const ls_amd_dpp_row *row = &ls_amd_dpp_rows[r];
        const ls_amd_dpp_arch_row *a = &ls_amd_dpp_archs[row->arch];
        if (a->wave == wave && strcmp(a->arch, arch) == 0 && row->type == type &&
            row->combiner == k)
            return row->n[kind];
    }
    return -1;
}

/* Packed math, measured with llc-22 (tools/amd-dpp-counts.py --pairs): a
 * chain of <2 x T> ops costs what a chain of T ops does where the target
 * pairs lanes -- AMD: f16 and i16 add and multiply (and f16 FMA, i16 max
 * and min) on every measured target (v_pk_add_f16, v_pk_fma_f16,
 * v_pk_add_u16, v_pk_max_i16), f32 add,
 * multiply and FMA on gfx90a/gfx94x/gfx95x (v_pk_fma_f32) and on wave32
 * gfx11/gfx12 (dual-issued v_dual_fmac_f32); never a max or min (the f16
 * ones quiet both operands, there is no v_pk_max_f32), bf16 (promoted) or
 * 32/64-bit integers.  NVIDIA (PTX): f16 and bf16 add, multiply, FMA, max
 * and min (.f16x2, .bf16x2 on sm_80 and later; f16 from sm_53). */
bool ls_plan_pairs_accumulators(const ls_plan *plan)
{
    return plan->combine_pairs && plan->acc_registers > 1 && plan->extra_results == 0 &&
           ls_plan_pair_run(plan, true) != 1;
}

int64_t ls_plan_pair_run(const ls_plan *plan, bool accumulators)
{
    const ls_derived *d = plan->derived;
    if (plan->amd)
        return 0;
    if (d == NULL)
        return 1;
    const ls_problem *p = plan->problem;
    /* the accumulators' vector: the body's dims less the packed inner ones
     * a chain reduces, and less the reduced ones where a thread's
     * registers of an output share one accumulator (local_reduce_all) */
    for (int k = d->body_rank - 1; k >= 0; k--)
        if (!accumulators ||
            !(d->body_inner[k] || (d->local_reduce_all && p->is_reduction[d->body_origin[k]])))
            return d->layout.element_tile[k];
    return 1;
}

bool ls_plan_body_fma_timed(const ls_plan *plan)
{
    return plan->extra_results == 0 && plan->body_mul_one_alu &&
           ls_functional_fma(plan) != LS_FMA_NONE;
}

int ls_plan_body_pairs_issued(const ls_plan *plan)
{
    if (ls_plan_pair_run(plan, false) == 1)
        return 0;
    return plan->body_pair_alu - (ls_plan_body_fma_timed(plan) && plan->body_mul_pairs);
}

bool ls_plan_pairs_previous(int64_t run, int64_t i)
{
    return ((run > 0 ? i % run : i) & 1) != 0;
}

const char *ls_plan_pair_instructions(const ls_plan *plan)
{
    if (!plan->amd)
        return "add/mul/fma/max.f16x2 or .bf16x2";
    if (plan->problem->acc_type != LS_ET_F32)
        return "v_pk_add_f16 / v_pk_fma_f16 / v_pk_add_u16";
    return ls_plan_target_packed_f32(plan->target)
               ? "v_pk_add_f32 / v_pk_fma_f32"
               : "wave32's dual-issued v_dual_add_f32 / v_dual_fmac_f32";
}

bool ls_plan_target_replaces_minmax(ls_plan_target t)
{
    if (t.amd)
        return true;
    return sm_of(t.arch) < 80;
}

ls_combiner ls_combiner_as_compiled(ls_plan_target t, ls_combiner k)
{
    if (!ls_plan_target_replaces_minmax(t))
        return k;
    return k == LS_COMB_MAXIMUMF ? LS_COMB_MAXNUMF : k == LS_COMB_MINIMUMF ? LS_COMB_MINNUMF : k;
}

bool ls_plan_combine_pairs(ls_plan_target t, ls_elem_type type, ls_combiner k)
{
    bool arith = k == LS_COMB_ADD || k == LS_COMB_MUL;
    if (t.amd) {
        bool imax =
            k == LS_COMB_MAXSI || k == LS_COMB_MINSI || k == LS_COMB_MAXUI || k == LS_COMB_MINUI;
        if (type == LS_ET_I16 && (arith || imax))
            return t.gfx_major >= 9;
        if (!arith)
            return false;
        if (type == LS_ET_F16)
            return t.gfx_major >= 9;
        return type == LS_ET_F32 &&
               (ls_plan_target_packed_f32(t) || (t.gfx_major >= 11 && t.wave == 32));
    }
    int sm = sm_of(t.arch);
    bool minmax = k == LS_COMB_MAXIMUMF || k == LS_COMB_MINIMUMF || k == LS_COMB_MAXNUMF ||
                  k == LS_COMB_MINNUMF;
    if (type == LS_ET_F16)
        return arith ? sm >= 53 : minmax && sm >= 80;
    return type == LS_ET_BF16 && (arith || minmax) && sm >= 80;
}
