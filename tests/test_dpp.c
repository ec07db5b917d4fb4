/* test_dpp.c: AMD subgroup reduces as upstream lowers them and LLVM
 * compiles them.  The plan's step sequence per generation and subgroup
 * size (createSubgroupDPPReduction, the revision IREE pins), the measured
 * table's shape (src/amd_dpp_counts.c, tools/amd-dpp-counts.py), and the
 * engine issuing each step as the table says: a DPP move folded into an
 * add is one instruction, a maxnum step four (copy, move, quieting,
 * max).  The counts asserted here are llc-22's, read off its assembly. */
#include "../sim/functional_internal.h"
#include "../src/amd_dpp_counts.h"
#include "engine_util.h"
#include "lanescope/stepper.h"

/* 4 x 4096 `ty` reduced with `op` by one subgroup of `sg` lanes (the
 * whole subgroup on the reduced dim: one gpu.subgroup_reduce of cluster sg) */
static const char *op_text_of(char *buf, size_t size, const char *op, int sg, const char *ty)
{
    return op_reduce_text(buf, size, ty, op, sg, 4, 1);
}

static const char *op_text(char *buf, size_t size, const char *op, int sg)
{
    return op_text_of(buf, size, op, sg, "f32");
}

static ls_reduce_step dpp(ls_dpp_ctrl c)
{
    ls_reduce_step s = {LS_STEP_DPP, 0, c, 0, -1};
    return s;
}

static ls_plan_target target(const char *arch, int wave)
{
    ls_plan_target t = ls_plan_target_from_arch(arch);
    t.wave = wave;
    return t;
}

START_TEST(table_is_whole_and_bounded)
{
    ck_assert_int_gt(ls_amd_dpp_n_rows, 0);
    for (int r = 0; r < ls_amd_dpp_n_rows; r++) {
        const ls_amd_dpp_row *row = &ls_amd_dpp_rows[r];
        ck_assert(row->arch >= 0 && row->arch < ls_amd_dpp_n_archs);
        bool gfx9 = strncmp(ls_amd_dpp_archs[row->arch].arch, "gfx9", 4) == 0;
        int wave = ls_amd_dpp_archs[row->arch].wave;
        for (int k = 0; k < LS_DPPK_COUNT; k++) {
            /* the steps of this target's lowering are measured, no other */
            bool used = k <= LS_DPPK_MIRROR ||
                        (gfx9 ? k == LS_DPPK_BCAST15 || k == LS_DPPK_BCAST31 ||
                                    k == LS_DPPK_READLANE || k == LS_DPPK_SWIZZLE
                              : k == LS_DPPK_PERMLANEX16 ||
                                    k == (wave == 32 ? LS_DPPK_READLANE : LS_DPPK_READLANE_PAIR));
            ck_assert_msg(used ? row->n[k] >= 0 : row->n[k] == -1, "row %d kind %d: %d", r, k,
                          row->n[k]);
            /* the engine's template is sized for it */
            ck_assert_int_le(row->n[k], LS_DPP_STEP_ALU_MAX);
        }
    }
}
END_TEST

/* What llc-22 -O3 makes of single steps (its assembly, by hand). */
START_TEST(lookups_as_llvm_compiles)
{
    ls_plan_target g942 = target("gfx942", 64);
    ls_reduce_step q = dpp(LS_DPP_QUAD_PERM_1032), b15 = dpp(LS_DPP_ROW_BCAST_15);
    /* v_add_f32_dpp v1, v1, v1 quad_perm:[1,0,3,2] ... bound_ctrl:1 */
    ck_assert_int_eq(ls_plan_dpp_step_alu(g942, LS_ET_F32, LS_COMB_ADD, &q), 1);
    /* row mask 0xa: v_mov_b32 v2, v1; v_mov_b32_dpp v2, v2 row_bcast:15; v_add_f32 */
    ck_assert_int_eq(ls_plan_dpp_step_alu(g942, LS_ET_F32, LS_COMB_ADD, &b15), 3);
    /* copy, move, v_max_f32 v2, v2, v2 (IEEE-mode quieting), v_max_f32 */
    ck_assert_int_eq(ls_plan_dpp_step_alu(g942, LS_ET_F32, LS_COMB_MAXNUMF, &q), 4);
    ck_assert_int_eq(ls_plan_dpp_step_alu(g942, LS_ET_F32, LS_COMB_MAXIMUMF, &q), 4);
    /* v_mul_lo_u32 has no DPP form */
    ck_assert_int_eq(ls_plan_dpp_step_alu(g942, LS_ET_I32, LS_COMB_MUL, &q), 3);
    ck_assert_int_eq(ls_plan_dpp_step_alu(g942, LS_ET_I32, LS_COMB_ADD, &q), 1);
    /* bf16: copy, move and the add promoted to f32 (8) */
    ck_assert_int_eq(ls_plan_dpp_step_alu(g942, LS_ET_BF16, LS_COMB_ADD, &q), 10);
    /* gfx11's true16 f16 add is not folded; gfx12's is */
    ck_assert_int_eq(ls_plan_dpp_step_alu(target("gfx1100", 32), LS_ET_F16, LS_COMB_ADD, &q), 3);
    ck_assert_int_eq(ls_plan_dpp_step_alu(target("gfx1201", 32), LS_ET_F16, LS_COMB_ADD, &q), 1);
    /* wave64 RDNA: readlanes 31 and 63 into SGPRs, one VALU add */
    ls_reduce_step pair = {LS_STEP_READLANE, 0, 0, 31, 63};
    ck_assert_int_eq(ls_plan_dpp_step_alu(target("gfx1100", 64), LS_ET_F32, LS_COMB_ADD, &pair), 3);
    /* an unmeasured gfx9 stands in as gfx90a; NVIDIA and i128 are not in it */
    ck_assert_int_eq(ls_plan_dpp_step_alu(target("gfx908", 64), LS_ET_F32, LS_COMB_ADD, &b15), 3);
    ck_assert_int_eq(ls_plan_dpp_step_alu(target("sm_90", 32), LS_ET_F32, LS_COMB_ADD, &q), -1);
    ck_assert_int_eq(ls_plan_dpp_step_alu(g942, LS_ET_I128, LS_COMB_ADD, &q), -1);
}
END_TEST

/* The sequence's end per generation and subgroup size. */
START_TEST(sequence_ends_per_target)
{
    ls_subgroup_reduce r;
    memset(&r, 0, sizeof r);
    r.cluster_stride = 1;
    r.cluster_size = 32; /* gfx9, 64 lanes: the swizzle hands each half lane 31 */
    ls_plan_lower_subgroup_reduce(&r, target("gfx942", 64));
    ck_assert_int_eq(r.n_steps, 6);
    ck_assert_int_eq(r.steps[4].dpp, LS_DPP_ROW_BCAST_15);
    ck_assert_int_eq(r.steps[5].kind, LS_STEP_SWIZZLE);
    ck_assert_int_eq(r.steps[5].offset, 31);
    ls_plan_lower_subgroup_reduce(&r, target("gfx1100", 32)); /* wave32: then readlane 31 */
    ck_assert_int_eq(r.n_steps, 6);
    ck_assert_int_eq(r.steps[4].dpp, LS_DPP_PERMLANEX16);
    ck_assert_int_eq(r.steps[5].kind, LS_STEP_READLANE);
    ck_assert_int_eq(r.steps[5].lane_a, 31);
    ck_assert_int_eq(r.steps[5].lane_b, -1);
    ls_plan_lower_subgroup_reduce(&r, target("gfx1100", 64)); /* wave64, a 32 cluster: none */
    ck_assert_int_eq(r.n_steps, 5);
    r.cluster_size = 64;
    ls_plan_lower_subgroup_reduce(&r, target("gfx1100", 64));
    ck_assert_int_eq(r.n_steps, 6);
    ck_assert_int_eq(r.steps[5].lane_b, 63);
    /* the swizzle's values: every lane of a half ends with lane 31's */
    r.cluster_size = 32;
    ls_plan_lower_subgroup_reduce(&r, target("gfx942", 64));
    ls_value v[64], tmp[64];
    for (int l = 0; l < 64; l++)
        v[l] = (ls_value)l;
    ls_func_run_reduce(&r, LS_COMB_ADD, LS_ET_I64, v, tmp, 64, -1);
    for (int l = 0; l < 64; l++)
        ck_assert_uint_eq(v[l], l < 32 ? 31 * 32 / 2 : (32 + 63) * 32 / 2);
}
END_TEST

/* The subgroup-reduce stage's instructions: 4 rows, one subgroup each. */
static int64_t reduce_instructions(const char *arch_hw, const char *op, int sg, ls_sim_result *r)
{
    ls_hw hw;
    ls_diag d;
    ck_assert(ls_hw_load(arch_hw, &hw, &d) == LS_OK);
    char text[2048];
    simulate(op_text(text, sizeof text, op, sg), &hw, r, NULL);
    return r->stage[LS_STAGE_SUBGROUP_REDUCE].instructions / 4;
}

START_TEST(engine_issues_the_compiled_steps)
{
    ls_sim_result r;
    /* gfx942: quad_perm x2, half mirror, mirror folded (4), row_bcast_15
     * (3), row_bcast_31 folded (1), readlane 63 and v_mov (2) */
    ck_assert_int_eq(reduce_instructions("mi300x", "arith.addf", 64, &r), 4 + 3 + 1 + 2);
    ck_assert_int_eq(r.stage[LS_STAGE_SUBGROUP_REDUCE].dpp_steps, 4 * 7);
    /* maxnum: every DPP step copy, move, quieting, max */
    ck_assert_int_eq(reduce_instructions("mi300x", "arith.maximumf", 64, &r), 6 * 4 + 2);
    /* gfx1100 wave32: four folded, permlanex16 (copy, v_permlanex16, add),
     * readlane 31 and v_mov */
    ck_assert_int_eq(reduce_instructions("rx7900xtx", "arith.addf", 32, &r), 4 + 3 + 2);
    ck_assert_int_eq(reduce_instructions("rx7900xtx", "arith.maximumf", 32, &r), 5 * 4 + 2);
    /* NVIDIA: the butterfly, a shuffle and an add a step */
    ck_assert_int_eq(reduce_instructions("h100", "arith.addf", 32, &r), 2 * 5);
}
END_TEST

/* Which combines a chain fuses in pairs (llc-22's chains of 16 and 32). */
START_TEST(fused_combines_as_measured)
{
    ls_plan_target g942 = target("gfx942", 64), g1100 = target("gfx1100", 32);
    /* v_max3_f32 / v_min3_f32, and maximumf as ROCm rewrites it */
    ck_assert(ls_plan_combine_fuses3(g942, LS_ET_F32, LS_COMB_MAXNUMF));
    ck_assert(ls_plan_combine_fuses3(g942, LS_ET_F32, LS_COMB_MAXIMUMF));
    ck_assert(ls_plan_combine_fuses3(g942, LS_ET_F32, LS_COMB_MINNUMF));
    /* v_add3_u32 and v_or3_b32; no f32 add3, no xor3 before gfx10 */
    ck_assert(ls_plan_combine_fuses3(g942, LS_ET_I32, LS_COMB_ADD));
    ck_assert(ls_plan_combine_fuses3(g942, LS_ET_I32, LS_COMB_OR));
    ck_assert(!ls_plan_combine_fuses3(g942, LS_ET_F32, LS_COMB_ADD));
    ck_assert(!ls_plan_combine_fuses3(g942, LS_ET_I32, LS_COMB_XOR));
    ck_assert(ls_plan_combine_fuses3(g1100, LS_ET_I32, LS_COMB_XOR));
    /* v_max3_f16: gfx11 fuses it, gfx942 does not */
    ck_assert(!ls_plan_combine_fuses3(g942, LS_ET_F16, LS_COMB_MAXNUMF));
    ck_assert(ls_plan_combine_fuses3(g1100, LS_ET_F16, LS_COMB_MAXNUMF));
    ck_assert(!ls_plan_combine_fuses3(target("sm_90", 32), LS_ET_F32, LS_COMB_MAXNUMF));
    /* ptxas fuses two integer adds into IADD3 and two logic ops into LOP3
     * (8 SASS instructions for 16 combines, sm_80 and sm_90), two i32 max
     * into a three-input IMNMX on sm_90 only, and two f16 or bf16 max
     * into a VHMNMX on sm_90, which pairs lanes too (a chain of 16 f16x2
     * max: 8, tools/amd-dpp-counts.py's pairs in SASS); before sm_80
     * nothing is measured in SASS */
    ck_assert(ls_plan_combine_fuses3(target("sm_90", 32), LS_ET_I32, LS_COMB_ADD));
    ck_assert(ls_plan_combine_fuses3(target("sm_80", 32), LS_ET_I16, LS_COMB_XOR));
    ck_assert(ls_plan_combine_fuses3(target("sm_90", 32), LS_ET_I32, LS_COMB_MAXSI));
    ck_assert(!ls_plan_combine_fuses3(target("sm_80", 32), LS_ET_I32, LS_COMB_MAXSI));
    ck_assert(ls_plan_combine_fuses3(target("sm_90", 32), LS_ET_F16, LS_COMB_MAXNUMF));
    ck_assert(ls_plan_combine_fuses3(target("sm_90", 32), LS_ET_BF16, LS_COMB_MINIMUMF));
    ck_assert(ls_plan_combine_pairs(target("sm_90", 32), LS_ET_F16, LS_COMB_MAXNUMF));
    ck_assert(!ls_plan_combine_fuses3(target("sm_80", 32), LS_ET_F16, LS_COMB_MAXNUMF));
    ck_assert(!ls_plan_combine_fuses3(target("sm_70", 32), LS_ET_I32, LS_COMB_ADD));
    ck_assert(!ls_plan_combine_fuses3(target("sm_90", 32), LS_ET_I64, LS_COMB_ADD));
    ck_assert(!ls_plan_combine_fuses3(g942, LS_ET_BF16, LS_COMB_MAXNUMF));
}
END_TEST

/* What one combine of a thread's chain costs (llc-22's assembly of a
 * kernel folding loaded values, read off by hand). */
START_TEST(chain_combines_as_measured)
{
    ls_plan_target g90a = target("gfx90a", 64), g942 = target("gfx942", 64),
                   g1100 = target("gfx1100", 32), sm90 = target("sm_90", 32);
    /* v_add_f64, v_mul_f64: one each */
    ck_assert_int_eq(ls_plan_combine_alu(g942, LS_ET_F64, LS_COMB_ADD), 1);
    ck_assert_int_eq(ls_plan_combine_alu(g942, LS_ET_F64, LS_COMB_MUL), 1);
    /* v_max_f64 v, v, v quiets the loaded operand, then v_max_f64 */
    ck_assert_int_eq(ls_plan_combine_alu(g942, LS_ET_F64, LS_COMB_MAXNUMF), 2);
    ck_assert_int_eq(ls_plan_combine_alu(g942, LS_ET_F64, LS_COMB_MAXIMUMF), 2);
    ck_assert_int_eq(ls_plan_combine_alu(g1100, LS_ET_F64, LS_COMB_MINNUMF), 2);
    /* gfx940's v_lshl_add_u64 adds 64 bits in one; gfx90a carries */
    ck_assert_int_eq(ls_plan_combine_alu(g942, LS_ET_I64, LS_COMB_ADD), 1);
    ck_assert_int_eq(ls_plan_combine_alu(g90a, LS_ET_I64, LS_COMB_ADD), 2);
    /* v_cmp_gt_i64 and two v_cndmask_b32; gfx11 selects both halves in
     * one v_dual_cndmask */
    ck_assert_int_eq(ls_plan_combine_alu(g942, LS_ET_I64, LS_COMB_MAXSI), 3);
    ck_assert_int_eq(ls_plan_combine_alu(g942, LS_ET_INDEX, LS_COMB_MINUI), 3);
    ck_assert_int_eq(ls_plan_combine_alu(g1100, LS_ET_I64, LS_COMB_MAXSI), 2);
    /* three 32-bit multiplies and the high half's adds */
    ck_assert_int_eq(ls_plan_combine_alu(g942, LS_ET_I64, LS_COMB_MUL), 4);
    ck_assert_int_eq(ls_plan_combine_alu(g942, LS_ET_I64, LS_COMB_XOR), 2);
    /* a fused pair's instruction is the engine's to share out */
    ck_assert_int_eq(ls_plan_combine_alu(g942, LS_ET_F32, LS_COMB_MAXNUMF), 1);
    ck_assert_int_eq(ls_plan_combine_alu(g942, LS_ET_I32, LS_COMB_MUL), 1);
    /* NVIDIA (tools/amd-dpp-counts.py's NV_CHAIN_ARCHS): one instruction
     * from sm_80 on in PTX, and in the SASS ptxas makes of it (CUDA 13.0,
     * counted in the cubin) but where ptxas splits: an i64 max (one
     * min.s64 / max.s64 in PTX) is 64 instructions for 16 combines, 4 */
    ck_assert_int_eq(ls_plan_combine_alu(sm90, LS_ET_I64, LS_COMB_MAXSI), 4);
    ck_assert_int_eq(ls_plan_combine_alu(sm90, LS_ET_I64, LS_COMB_ADD), 1);
    ck_assert_int_eq(ls_plan_combine_alu(sm90, LS_ET_F16, LS_COMB_MAXIMUMF), 1);
    ck_assert_int_eq(ls_plan_combine_alu(sm90, LS_ET_BF16, LS_COMB_ADD), 1);
    /* an f64 maxnumf: 110 for 16 (PTX 16), 7 each; a maximumf: PTX's
     * max.f64 with the NaN's setp and selp, 9, which ptxas makes 337 for
     * 16, 21 each */
    ck_assert_int_eq(ls_plan_combine_alu(sm90, LS_ET_F64, LS_COMB_MAXNUMF), 7);
    ck_assert_int_eq(ls_plan_combine_alu(sm90, LS_ET_F64, LS_COMB_MAXIMUMF), 21);
    /* sm_80 splits a signed i16 max too (64 for 16), sm_90 does not */
    ck_assert_int_eq(ls_plan_combine_alu(target("sm_80", 32), LS_ET_I16, LS_COMB_MAXSI), 4);
    ck_assert_int_eq(ls_plan_combine_alu(sm90, LS_ET_I16, LS_COMB_MAXSI), 1);
    /* before sm_80 an f16 max goes through f32 (cvt, cvt, max.f32, cvt),
     * a maximumf rewritten to maxnumf first; bf16 is emulated: 8 */
    ls_plan_target sm70 = target("sm_70", 32), sm75 = target("sm_75", 32),
                   sm86 = target("sm_86", 32), sm60 = target("sm_60", 32);
    ck_assert_int_eq(ls_plan_combine_alu(sm70, LS_ET_F16, LS_COMB_MAXIMUMF), 4);
    ck_assert_int_eq(ls_plan_combine_alu(sm60, LS_ET_F16, LS_COMB_MINNUMF), 4);
    ck_assert_int_eq(ls_plan_combine_alu(sm70, LS_ET_F16, LS_COMB_ADD), 1);
    ck_assert_int_eq(ls_plan_combine_alu(sm70, LS_ET_BF16, LS_COMB_ADD), 8);
    /* the newest measured arch at or below: sm_75 as sm_70, sm_86 as sm_80 */
    ck_assert_int_eq(ls_plan_combine_alu(sm75, LS_ET_F16, LS_COMB_MAXNUMF), 4);
    ck_assert_int_eq(ls_plan_combine_alu(sm86, LS_ET_F16, LS_COMB_MAXNUMF), 1);
    /* bf16: the chain table and tools/amd-op-counts.sh's separate chains
     * (ls_bf16_combine_alu) agree on every measured arch */
    static const char *archs[] = {"gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1201"};
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        ls_plan_target t = target(archs[a], 64);
        for (ls_combiner k = LS_COMB_ADD; k < LS_COMB_COUNT; k++)
            if (!ls_combiner_is_int_only(k))
                ck_assert_msg(ls_plan_combine_alu(t, LS_ET_BF16, k) ==
                                  ls_bf16_combine_alu(t, k, LS_ET_BF16),
                              "%s combiner %d", archs[a], (int)k);
    }
    /* every row is a whole instruction an op or more, or a fused half */
    for (int r = 0; r < ls_chain_n_rows; r++)
        ck_assert_msg(ls_chain_rows[r].per16 >= 8, "row %d: %d", r, ls_chain_rows[r].per16);
}
END_TEST

/* The accumulate loop issues a 64-bit combine as its instructions: an f64
 * max row reduction on gfx942 (4 elements a thread an iteration, max with
 * -inf folds): per iteration its load (two 16-byte pieces), three maxes of
 * the packed chain and the join into the accumulator, two each. */
START_TEST(accumulate_issues_wide_combines)
{
    ls_hw hw;
    ls_diag d;
    ck_assert(ls_hw_load("mi300x", &hw, &d) == LS_OK);
    static const struct {
        const char *op, *ty;
        int alu;
    } cases[] = {{"arith.maximumf", "f64", 2}, {"arith.maxsi", "i64", 3}, {"arith.addf", "f32", 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char text[2048];
        ls_problem *p;
        ls_derived *dv;
        ls_plan plan;
        plan_text(op_text_of(text, sizeof text, cases[c].op, 64, cases[c].ty), "gfx942", &p, &dv,
                  &plan);
        ck_assert_int_eq(plan.combine_alu, cases[c].alu);
        ck_assert_int_eq(plan.inner_elems, 4);
        ls_sim_result r;
        ck_assert(ls_engine_run(&plan, &hw, &r, NULL, &d) == LS_OK);
        int64_t iters = 4096 / 256, chain = cases[c].alu == 1 ? 4 : 3; /* f32 add: x + 0.0 */
        int64_t loads = strcmp(cases[c].ty, "f32") == 0 ? 1 : 2;
        /* one transfer_read, issued as 16-byte pieces */
        ck_assert_int_eq(plan.loads_per_iteration, 1);
        ck_assert_int_eq(plan.load_width * plan.load_elem_bytes, 16 * loads);
        ck_assert_msg(r.stage[LS_STAGE_LOAD_ACCUMULATE].instructions ==
                          4 * iters * (loads + (chain + 1) * cases[c].alu),
                      "%s %s: %lld", cases[c].op, cases[c].ty,
                      (long long)r.stage[LS_STAGE_LOAD_ACCUMULATE].instructions);
        free(dv);
        free(p);
    }
}
END_TEST

/* A body op LLVM compiles to several instructions counts them on AMD;
 * index arithmetic and a multiply by a constant do not. */
START_TEST(body_ops_wide_on_amd)
{
    static const char *text =
        "func.func @f() attributes {translation_info = "
        "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = "
        "[64, 1, 1] subgroup_size = 64>} {\n"
        "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], "
        "iterator_types = [\"parallel\", \"reduction\"]} "
        "ins(%a, %b : tensor<4x4096xf64>, tensor<4x4096xi64>) outs(%o : tensor<4xf64>) "
        "attrs = {lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 0], "
        "partial_reduction = [0, 256], thread = [0, 4], lane_basis = [[1, 64], [0, 1]], "
        "subgroup_basis = [[1, 1], [0, 1]]}>} {\n"
        "^bb0(%x: f64, %y: i64, %acc: f64):\n"
        "  %c3 = arith.constant 3 : i64\n"
        "  %z = arith.constant 0.0 : f64\n"
        "  %y3 = arith.muli %y, %c3 : i64\n"
        "  %yy = arith.muli %y3, %y : i64\n"
        "  %yf = arith.sitofp %yy : i64 to f64\n"
        "  %m = arith.maximumf %x, %z : f64\n"
        "  %s = arith.mulf %m, %yf : f64\n"
        "  %neg = arith.cmpf olt, %s, %z : f64\n"
        "  %sel = arith.select %neg, %z, %s : f64\n"
        "  %t = arith.addf %sel, %acc : f64\n"
        "  linalg.yield %t : f64\n} -> tensor<4xf64>\n}\n";
    ls_problem *p;
    ls_derived *dv;
    ls_plan plan;
    plan_text(text, "gfx942", &p, &dv, &plan);
    int alu, sfu;
    /* gfx942: the muli by 3 one, the i64 muli 4, sitofp 1, the f64 max 2
     * (quieting, max), the mulf 1, the compare 1 (v_cmp_gt_f64), the f64
     * select 2 (a v_cndmask_b32 a half) */
    ls_body_machine_ops(&p->body, target("gfx942", 64), &alu, &sfu);
    ck_assert_int_eq(alu, 1 + 4 + 1 + 2 + 1 + 1 + 2);
    ck_assert_int_eq(sfu, 0);
    /* sm_90: one each (selp.b64 one), but the i64 multiply, 4 in SASS,
     * and the f64 maximumf, 21 in SASS (PTX: max.f64 and its NaN's setp
     * and selp, 9) */
    ls_body_machine_ops(&p->body, target("sm_90", 32), &alu, &sfu);
    ck_assert_int_eq(alu, 1 + 4 + 1 + 21 + 1 + 1 + 1);
    free(dv);
    free(p);
}
END_TEST

/* The accumulate loop's ALU instructions, counted by hand from the plan:
 * per iteration a 16-byte load of 4 f32 (a packed chain), per trip of the
 * u unrolled iterations the chains' combines into the accumulator. */
START_TEST(accumulate_chains_fuse_in_pairs)
{
    ls_hw hw;
    ls_diag d;
    ck_assert(ls_hw_load("mi300x", &hw, &d) == LS_OK);
    char text[2048];
    ls_problem *p;
    ls_derived *dv;
    ls_plan plan;
    plan_text(op_text(text, sizeof text, "arith.maximumf", 64), "gfx942", &p, &dv, &plan);
    ck_assert(plan.combine_fuses3);
    ck_assert_int_eq(plan.inner_elems, 4);
    int64_t u = ls_engine_unroll(&plan, &hw), iters = 4096 / 256, trips = iters / u;
    ck_assert_int_eq(iters % u, 0);
    ls_sim_result r;
    ck_assert(ls_engine_run(&plan, &hw, &r, NULL, &d) == LS_OK);
    /* a max of 4 elements: the first is the chain (max with -inf folds),
     * then max3(v0, v1, v2) and max(., v3); the u chains' values joined
     * into the accumulator two at a time: max3(acc, t0, t1) ... */
    int64_t per_row = iters * (1 + 2) + trips * ((u + 1) / 2);
    ck_assert_int_eq(r.stage[LS_STAGE_LOAD_ACCUMULATE].instructions, 4 * per_row);
    free(dv);
    free(p);
    /* the f32 sum fuses nothing: x + 0.0, three adds, the join */
    plan_text(op_text(text, sizeof text, "arith.addf", 64), "gfx942", &p, &dv, &plan);
    ck_assert(!plan.combine_fuses3);
    u = ls_engine_unroll(&plan, &hw);
    ck_assert(ls_engine_run(&plan, &hw, &r, NULL, &d) == LS_OK);
    ck_assert_int_eq(r.stage[LS_STAGE_LOAD_ACCUMULATE].instructions, 4 * iters * (1 + 4 + 1));
    free(dv);
    free(p);
}
END_TEST

/* For any type the table has, the engine issues what it says: the sum of
 * the reduce's steps (and a swizzle's ds_swizzle per 32-bit piece). */
START_TEST(engine_issues_the_table)
{
    static const struct {
        const char *hw, *op, *ty;
        int sg;
    } cases[] = {{"mi300x", "arith.addf", "f64", 64},    {"mi300x", "arith.maximumf", "f64", 64},
                 {"mi300x", "arith.andi", "i64", 64},    {"mi300x", "arith.addf", "bf16", 64},
                 {"mi300x", "arith.muli", "i32", 64},    {"mi300x", "arith.maxsi", "i16", 64},
                 {"rx7900xtx", "arith.addf", "f16", 32}, {"rx7900xtx", "arith.addi", "i64", 64},
                 {"mi355x", "arith.minimumf", "f32", 64}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ls_hw hw;
        ls_diag d;
        ck_assert(ls_hw_load(cases[c].hw, &hw, &d) == LS_OK);
        char text[2048];
        ls_sim_result r;
        ls_problem *p;
        ls_derived *dv;
        ls_plan plan;
        plan_text(op_text_of(text, sizeof text, cases[c].op, cases[c].sg, cases[c].ty), hw.arch, &p,
                  &dv, &plan);
        ck_assert_msg(ls_engine_run(&plan, &hw, &r, NULL, &d) == LS_OK, "%s", d.msg);
        int64_t want = 0, pieces = plan.shuffle_bits > 32 ? plan.shuffle_bits / 32 : 1;
        ck_assert_int_eq(plan.n_subgroup_reduces, 1);
        const ls_subgroup_reduce *red = &plan.subgroup_reduces[0];
        for (int i = 0; i < red->n_steps; i++) {
            int n = ls_plan_dpp_step_alu(plan.target, plan.problem->acc_type,
                                         plan.problem->combiner, &red->steps[i]);
            ck_assert_msg(n >= 0, "case %zu step %d not measured", c, i);
            want += n + (red->steps[i].kind == LS_STEP_SWIZZLE ? pieces : 0);
        }
        ck_assert_msg(r.stage[LS_STAGE_SUBGROUP_REDUCE].instructions == 4 * want,
                      "case %zu (%s %s on %s): %lld instructions, the table says 4 x %lld", c,
                      cases[c].op, cases[c].ty, cases[c].hw,
                      (long long)r.stage[LS_STAGE_SUBGROUP_REDUCE].instructions, (long long)want);
        free(dv);
        free(p);
    }
}
END_TEST

/* The stepper counts a folded step as done when its one instruction issues. */
START_TEST(stepper_counts_folded_steps)
{
    ls_hw hw;
    ls_diag d;
    ck_assert(ls_hw_load("mi300x", &hw, &d) == LS_OK);
    char text[2048];
    ls_problem *p;
    ls_derived *dv;
    ls_plan plan;
    plan_text(op_text(text, sizeof text, "arith.addf", 64), "gfx942", &p, &dv, &plan);
    ls_stepper *st;
    ls_input_source in = {1, NULL, {NULL}};
    ck_assert_int_eq(ls_stepper_new(&plan, &hw, in, 0, &st, &d), LS_OK);
    int seen = 0, folded = 0;
    while (ls_stepper_forward(st, LS_STEP_INSTRUCTION)) {
        const ls_engine_record *r = ls_stepper_record(st, ls_stepper_position(st));
        if (r->kind != LS_REC_ISSUE || r->stage != LS_STAGE_SUBGROUP_REDUCE || r->workgroup != 0)
            continue;
        ls_func_point pt = ls_stepper_point(st, r->subgroup);
        if (r->step_end) {
            folded += r->op == 3; /* the DPP move is the step */
            seen++;
            ck_assert_int_eq(pt.steps, r->step + 1);
        }
    }
    ck_assert_int_eq(seen, 7);
    ck_assert_int_eq(folded, 5); /* all but row_bcast_15 and the readlane's v_mov */
    ls_stepper_free(st);
    free(dv);
    free(p);
}
END_TEST

static Suite *dpp_suite(void)
{
    Suite *s = suite_create("dpp");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, table_is_whole_and_bounded);
    tcase_add_test(tc, lookups_as_llvm_compiles);
    tcase_add_test(tc, sequence_ends_per_target);
    tcase_add_test(tc, engine_issues_the_compiled_steps);
    tcase_add_test(tc, stepper_counts_folded_steps);
    tcase_add_test(tc, fused_combines_as_measured);
    tcase_add_test(tc, engine_issues_the_table);
    tcase_add_test(tc, accumulate_chains_fuse_in_pairs);
    tcase_add_test(tc, chain_combines_as_measured);
    tcase_add_test(tc, accumulate_issues_wide_combines);
    tcase_add_test(tc, body_ops_wide_on_amd);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(dpp_suite)
