/* test_attention_sim.c: `lanescope sim` on decode attention -- its values
 * run lane by lane as IREE lowers them (sim/attention_values.c,
 * attention_lanes.c), against the op and an independent softmax, and its
 * kernel timed by the engine (sim/attention_timing.c, engine_attention.c),
 * against counts from IREE's pipeline test's CHECK lines; random hand
 * configs as a property test. */
#include <math.h>

#include "../sim/attention_internal.h"
#include "../sim/engine_internal.h"
#include "attention_util.h"
#include "lanescope/functional.h"
#include "lanescope/mlir_math.h"
#include "lanescope/sweep.h"

/* The online softmax's exp2 as IREE compiles it (MathTransform.cpp): on
 * NVIDIA rewritten to exp(x * ln 2) with the product in the work type, then
 * MLIR's f32 polynomial -- so exp2(-88 / ln 2) is 0 where exp2f gives a
 * denormal; on ROCm the correctly rounded value in the work type. */
START_TEST(exp2_as_iree_compiles_it)
{
    actx c;
    memset(&c, 0, sizeof c);
    const float xs[] = {-127.5f, -12.25f, -3.1f, -0.7f, 0.0f, 0.37f, 5.5f};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        float x = xs[i];
        c.et = LS_ET_F32;
        c.t = ls_plan_target_from_arch("sm_90");
        ck_assert(ls_att_exp2(&c, x) == ls_mlir_expf(x * 0x1.62e430p-1f));
        c.t = ls_plan_target_from_arch("gfx942");
        ck_assert(ls_att_exp2(&c, x) == exp2f(x));
        /* f16 work type: ln 2 and the product rounded to f16 (0.693359375) */
        c.et = LS_ET_F16;
        c.t = ls_plan_target_from_arch("sm_90");
        double x16 = ls_value_to_double(ls_value_from_double(x, LS_ET_F16), LS_ET_F16);
        double prod =
            ls_value_to_double(ls_value_from_double(x16 * 0.693359375, LS_ET_F16), LS_ET_F16);
        double want = ls_value_to_double(ls_value_from_double(ls_mlir_expf((float)prod), LS_ET_F16),
                                         LS_ET_F16);
        ck_assert((double)ls_att_exp2(&c, (float)x16) == want);
    }
    c.et = LS_ET_F32;
    c.t = ls_plan_target_from_arch("sm_90");
    ck_assert(ls_att_exp2(&c, -127.5f) == 0.0f && exp2f(-127.5f) > 0.0f);
}
END_TEST

/* ---- values (sim/attention_values.c) ---- */

/* @attention_20x1x64x4096x64 with f32 acc, max and sum and no config:
 * IREE's default */
static void default_ir(char *ir, size_t size)
{
    attention_ir(ir, size, true, DIMS5, STD5, 7, "tensor<20x1x64xf16>", "tensor<20x4096x64xf16>",
                 "tensor<20x4096x64xf16>", NULL, "tensor<20x1x64xf32>", "tensor<20x1xf32>", "f16");
}

static void values_ok(const ls_module *m, const ls_attention *a, ls_plan_target t, int64_t wgs,
                      int64_t outputs, double scale)
{
    ls_att_check chk;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_attention_values(m, &m->attentions[0], a, t, 1, wgs, &chk, &d) == LS_OK, "%s",
                  d.msg);
    ck_assert_int_eq(chk.mismatches, 0);
    ck_assert_int_eq(chk.workgroups_run, wgs);
    ck_assert_int_eq(chk.outputs_checked, outputs);
    ck_assert_int_eq(chk.results_checked, 7); /* no stores: a snippet's results all count */
    ck_assert(chk.max_error_bound_ratio > 0 && chk.max_error_bound_ratio < 1);
    /* the online results' acc / sum at (b 0, n 0): the attention output */
    double want = softmax_oracle(1, 0, 0, 64, 4096, 64, scale);
    ck_assert_msg(fabs(chk.sample[0] / chk.sample[2] - want) < 5e-3, "%.6f vs %.6f",
                  chk.sample[0] / chk.sample[2], want);
}

/* IREE's pipeline cases #1 (reduction: each step reduces over K2, the QK
 * contraction's K1 lanes at stride 32 by shuffles, K2's 32 lanes by DPP on
 * gfx9) and #2 (partial_reduction: a slot per key, merged after the loop),
 * on an AMD and an NVIDIA lowering: per workgroup 32 acc columns, one max
 * and one sum, within the rounding bound of the op as IREE decomposes it,
 * and near an independent softmax. */
START_TEST(values_pipeline_cases)
{
    char ir[8192];
    const char *levels[2] = {"reduction", "partial_reduction"};
    const ls_plan_target targets[2] = {ls_plan_target_from_arch("gfx942"),
                                       ls_plan_target_from_arch("sm_90")};
    for (int l = 0; l < 2; l++) {
        ls_module *m = ls_xcalloc(1, sizeof *m);
        ls_attention a;
        ls_diag d;
        pipeline_ir(ir, sizeof ir, levels[l], true);
        ck_assert_msg(build_attention(ir, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
        for (int t = 0; t < 2; t++)
            values_ok(m, &a, targets[t], 3, 3 * (32 + 2), 0.125);
        free(m);
    }
}
END_TEST

/* IREE's default config (§6.4): 8 subgroups x 64 lanes on K2, so the merge
 * reduces each value over 64 lanes (DPP) and then the 8 subgroups'
 * partials through workgroup memory; on sm_90 the heuristic's own layout
 * for 32-lane subgroups, reduced by shuffles. */
START_TEST(values_default_config)
{
    char ir[4096];
    default_ir(ir, sizeof ir);
    const char *targets[2] = {"gfx942", "sm_90"};
    for (int t = 0; t < 2; t++) {
        ls_module *m = ls_xcalloc(1, sizeof *m);
        ls_attention a;
        ls_diag d;
        ck_assert_msg(build_attention(ir, targets[t], m, &a, &d) == LS_OK, "%s", d.msg);
        ck_assert(a.suggested && a.partial);
        ck_assert_int_eq(a.qk.layout.subgroup_tile[3] > 1, 1); /* the merge's LDS round */
        int64_t n_tile = a.workgroup[4];
        values_ok(m, &a, ls_plan_target_from_arch(targets[t]), 2, 2 * (n_tile + 2), 1.0);
        free(m);
    }
}
END_TEST

/* What the values run cannot take is refused with the reason, at the op
 * (or its region). */
START_TEST(values_refusals)
{
    char ir[8192], edited[8192];
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    ls_diag d;
    /* a score region with an op */
    pipeline_ir(ir, sizeof ir, "partial_reduction", true);
    const char *yield = "iree_linalg_ext.yield %x : f32";
    char *at = strstr(ir, yield);
    ck_assert_ptr_nonnull(at);
    snprintf(edited, sizeof edited, "%.*s%%y = arith.mulf %%x, %%x : f32\n    "
             "iree_linalg_ext.yield %%y : f32%s",
             (int)(at - ir), ir, at + strlen(yield));
    ck_assert_msg(build_attention(edited, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_attention_values_check(m, &m->attentions[0], &a, &d), LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "its score region holds ops") && d.line == 7, "%d: %s", d.line,
                  d.msg);
    /* a scale that is a function argument, not a constant */
    memset(m, 0, sizeof *m);
    at = strstr(ir, "(%q: ");
    ck_assert_ptr_nonnull(at);
    snprintf(edited, sizeof edited, "%.*s(%%sc: f16, %s", (int)(at - ir), ir, at + 1);
    at = strstr(edited, "ins(%q, %k, %v, %s :");
    ck_assert_ptr_nonnull(at);
    memmove(at + 19, at + 18, strlen(at + 18) + 1);
    memcpy(at + 16, "%sc", 3);
    ck_assert_msg(build_attention(edited, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_attention_values_check(m, &m->attentions[0], &a, &d), LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "its scale is not an arith.constant"), "%s", d.msg);
    /* a key a gather makes whose indices are not integers (IREE's paged
     * case #3 gathers by i64 page indices: test_paged_attention.c) */
    memset(m, 0, sizeof *m);
    pipeline_ir(ir, sizeof ir, "partial_reduction", true);
    at = strstr(ir, "  %0:3 = iree_linalg_ext.online_attention");
    ck_assert_ptr_nonnull(at);
    snprintf(edited, sizeof edited,
             "%.*s  %%kg = iree_linalg_ext.gather dimension_map = [0] ins(%%k, %%k : "
             "tensor<20x4096x64xf16>, tensor<20x4096x64xf16>) outs(%%k : tensor<20x4096x64xf16>) -> "
             "tensor<20x4096x64xf16>\n%s",
             (int)(at - ir), ir, at);
    at = strstr(edited, "ins(%q, %k, %v");
    ck_assert_ptr_nonnull(at);
    memmove(at + 11, at + 10, strlen(at + 10) + 1);
    at[10] = 'g';
    ck_assert_msg(build_attention(edited, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_attention_values_check(m, &m->attentions[0], &a, &d), LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "its key (the gather at line 4): its gather's indices are not "
                                "i32, i64 or index"),
                  "%s", d.msg);
    /* a K2 tile that does not divide K2 */
    memset(m, 0, sizeof *m);
    pipeline_ir(ir, sizeof ir, "partial_reduction", true);
    at = strstr(ir, "partial_reduction = [0, 0, 0, 128, 0]");
    ck_assert_ptr_nonnull(at);
    memcpy(at, "partial_reduction = [0, 0, 0, 384, 0]", 37);
    ck_assert_msg(build_attention(ir, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
    ls_diag_clear(&d);
    ck_assert_int_eq(ls_attention_values_check(m, &m->attentions[0], &a, &d), LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "a tile does not divide its dim"), "%s", d.msg);
    free(m);
}
END_TEST

/* ---- timing (sim/attention_timing.c, sim/engine_attention.c) ---- */

/* IREE's pipeline cases on mi300x (gfx942), each count from the test's
 * CHECK lines.  Per K2 step and subgroup, case #1 has 4 subgroup_reduce
 * after the QK contract (cluster 2, stride 32: one shuffle xor each), 1
 * for the max, 1 for the sum and 8 after the PV contract, each cluster 32
 * at stride 1: gfx9's DPP sequence of 5 steps (quad_perm x 2,
 * row_half_mirror, row_mirror, row_bcast_15), then the swizzle that hands
 * each 32-lane half lane 31's value (through the workgroup-memory
 * crossbar: a shuffle, as ds_bpermute is).  Case #2 keeps
 * only the 4 in the loop; its merge has 1 max and 8 acc reduces (the sum's
 * merge is dead: only the acc is stored).  40 workgroups of 4 subgroups,
 * 32 steps.  Every N-workgroup (2) reads all of K, V once (its N tile);
 * both through workgroup memory (promote_operands = [1]): two barriers a
 * step. */
START_TEST(timing_pipeline_cases)
{
    char ir[8192];
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    ls_diag d;
    ls_sim_result r, again;
    const int64_t per_sg = 40 * 4, K = 20 * 4096 * 64 * 2;
    pipeline_stored_ir(ir, sizeof ir, "reduction");
    ck_assert_msg(build_attention(ir, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
    time_attention(m, &a, "mi300x", &r);
    /* the loop's steps count in its stage, the merge's in subgroup-reduce */
    const ls_stage_stats *la = &r.stage[LS_STAGE_LOAD_ACCUMULATE];
    const ls_stage_stats *sr = &r.stage[LS_STAGE_SUBGROUP_REDUCE];
    ck_assert_int_eq(la->shuffles, (4 + 1 + 1 + 8) * 32 * per_sg);
    ck_assert_int_eq(la->dpp_steps, (1 + 1 + 8) * 5 * 32 * per_sg);
    ck_assert_int_eq(sr->shuffles + sr->dpp_steps, 0);
    ck_assert_int_eq(r.operand[0].global_bytes, 2 * K);
    ck_assert_int_eq(r.operand[1].global_bytes, K);
    ck_assert_int_eq(r.stage[LS_STAGE_LOAD_ACCUMULATE].barriers, 2 * 32 * 40);
    ck_assert_int_eq(r.stage[LS_STAGE_CROSS_SUBGROUP].barriers, 0);
    memset(m, 0, sizeof *m);
    pipeline_stored_ir(ir, sizeof ir, "partial_reduction");
    ck_assert_msg(build_attention(ir, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
    time_attention(m, &a, "mi300x", &r);
    ck_assert_int_eq(la->shuffles, 4 * 32 * per_sg);
    ck_assert_int_eq(la->dpp_steps, 0);
    ck_assert_int_eq(sr->shuffles, (1 + 8) * per_sg); /* the swizzles */
    ck_assert_int_eq(sr->dpp_steps, (1 + 8) * 5 * per_sg);
    ck_assert_int_eq(r.operand[0].global_bytes, 2 * K);
    /* deterministic: the same run, the same cycles */
    time_attention(m, &a, "mi300x", &again);
    ck_assert_int_eq(again.cycles, r.cycles);
    ck_assert_int_eq(again.instructions, r.instructions);
    free(m);
}
END_TEST

/* Subgroups splitting K1 (a hand config): each step's QK partials go
 * through workgroup memory (2 barriers, besides the promoted copies' 2);
 * K1 has 2 lanes, too few for the 4 partials, so each thread reads them
 * all and adds them in turn (src/plan.c's read-back rule: 3 adds, no lane
 * steps); the values still match. */
START_TEST(timing_k1_split)
{
    char ir[8192];
    pipeline_stored_ir(ir, sizeof ir, "partial_reduction");
    const char *from[3] = {"subgroup_basis = [[1, 1, 1, 1, 4], [0, 1, 2, 3]]",
                           "subgroup_basis = [[1, 1, 1, 1, 4], [0, 1, 3, 4]]",
                           "thread = [0, 0, 32, 4]"};
    const char *to[3] = {"subgroup_basis = [[1, 1, 4, 1, 1], [0, 1, 2, 3]]",
                         "subgroup_basis = [[1, 1, 4, 1, 1], [0, 1, 3, 4]]",
                         "thread = [0, 0, 8, 4] "};
    for (int i = 0; i < 3; i++) {
        char *at = strstr(ir, from[i]);
        ck_assert_ptr_nonnull(at);
        memcpy(at, to[i], strlen(to[i]));
    }
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    ls_diag d;
    ls_sim_result r;
    ck_assert_msg(build_attention(ir, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(a.qk.layout.subgroup_tile[2], 4);
    time_attention(m, &a, "mi300x", &r);
    const int64_t per_sg = 40 * 4;
    ck_assert_int_eq(r.stage[LS_STAGE_LOAD_ACCUMULATE].barriers, (2 + 2) * 32 * 40);
    /* per S element (4): the K1 lanes' shuffle xor 32; the read-back has no lane steps */
    ck_assert_int_eq(r.stage[LS_STAGE_LOAD_ACCUMULATE].shuffles, 4 * 32 * per_sg);
    ck_assert_int_eq(r.stage[LS_STAGE_LOAD_ACCUMULATE].dpp_steps, 0);
    /* per step: the copies' stores (K 64 B and V 32 B a thread: 4 + 2 of
     * 16 B, one ds_write_b128 each), the compute reads as the backend
     * splits them (ls_plan_promote_pieces: one instruction per 16 bytes of
     * each row: K's vector<32xf16> is 4 key rows of 8 halves, 4 x
     * ds_read_b128; V's 8 batches of N, each 4 key rows of 4 halves, 8 x
     * 4 x ds_read_b64), the round (a store and a load per S element) */
    ck_assert_int_eq(r.stage[LS_STAGE_LOAD_ACCUMULATE].smem_accesses,
                     (4 + 2 + 4 + 8 * 4 + 4 + 4) * 32 * per_sg);
    ls_att_check chk;
    ls_diag_clear(&d);
    ck_assert_msg(ls_attention_values(m, &m->attentions[0], &a, ls_plan_target_from_arch("gfx942"),
                                      1, 2, &chk, &d) == LS_OK,
                  "%s", d.msg);
    ck_assert_int_eq(chk.mismatches, 0);
    ck_assert_int_eq(chk.outputs_checked, 2 * 32);
    free(m);
}
END_TEST

/* IREE's default config on mi300x (§6.4): no lane or workgroup-memory
 * traffic in the loop; the merge reduces max, sum and the 16 acc values
 * each over 64 lanes (gfx9: 7 DPP steps with row_bcast_31), then through
 * workgroup memory (2 barriers per value kind) and over the 8 subgroups'
 * partials on 8 lanes (3 DPP steps).  80 workgroups of 8 subgroups.  The
 * kernel streams K (4 N-workgroups read it) and V: DRAM-bound. */
START_TEST(timing_default_config)
{
    char ir[4096];
    default_ir(ir, sizeof ir);
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    ls_diag d;
    ls_sim_result r;
    ck_assert_msg(build_attention(ir, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
    time_attention(m, &a, "mi300x", &r);
    const int64_t per_sg = 80 * 8, values = 1 + 1 + 16;
    ck_assert_int_eq(r.stage[LS_STAGE_LOAD_ACCUMULATE].shuffles + r.stage[LS_STAGE_LOAD_ACCUMULATE].dpp_steps, 0);
    ck_assert_int_eq(r.stage[LS_STAGE_SUBGROUP_REDUCE].dpp_steps, values * 7 * per_sg);
    ck_assert_int_eq(r.stage[LS_STAGE_CROSS_SUBGROUP].dpp_steps, values * 3 * per_sg);
    ck_assert_int_eq(r.stage[LS_STAGE_CROSS_SUBGROUP].barriers, 3 * 2 * 80);
    ck_assert_int_eq(r.operand[0].global_bytes, 4 * 20 * 4096 * 64 * 2);
    ck_assert_int_eq(r.operand[1].global_bytes, 20 * 4096 * 64 * 2);
    /* the exp2s: 2 per key slot and step, 1 per slot in the merge, one
     * v_exp_f32 each on gfx942 (src/math_lowering.c) */
    ck_assert_int_eq(r.stage[LS_STAGE_LOAD_ACCUMULATE].sfu_ops, 2 * 8 * per_sg);
    ck_assert_int_eq(r.stage[LS_STAGE_THREAD_REDUCE].sfu_ops, per_sg);
    free(m);
}
END_TEST

/* The step's ALU work as each backend compiles it, on IREE's default
 * config (one S element a thread, 16 output columns): PromoteContractOperands
 * widens f16 K and V to f32 -- one instruction an element (v_cvt_f32_f16,
 * cvt.f32.f16), except where v_fma_mix_f32 reads the f16 value itself:
 * gfx942's one-accumulator QK chain, every gfx1100 FMA; gfx942's PV
 * updates cover 16 accumulators, which llc-22 widens and pairs in
 * v_pk_fma_f32.  AMD fuses the multiply and the add of its product
 * (AllowFPOpFusion::Fast): the sum's update and each column's P x V update
 * are one FMA (three operands) where NVIDIA issues a multiply and an add.
 * Two neighbouring columns' rescales and updates pair on gfx942
 * (v_pk_mul_f32, v_pk_fma_f32) and wave32 gfx1100 (dual issue).
 * Counted in one K2 step's instructions: the widenings read a load and
 * nothing else (as the QK chain's first FMA does, unwidened: it starts from
 * nothing), the FMAs carry a third operand. */
START_TEST(timing_widenings_and_fmas)
{
    static const struct {
        const char *arch, *model;
        int k_ext, v_ext, p_ext;
        bool fuse, pairs;
    } cases[] = {{"gfx942", "mi300x", 0, 1, 1, true, true},
                 {"gfx1100", "rx7900xtx", 0, 0, 0, true, true},
                 {"sm_90", "h100", 1, 1, 1, false, false}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char ir[4096];
        default_ir(ir, sizeof ir);
        ls_module *m = ls_xcalloc(1, sizeof *m);
        ls_attention a;
        ls_diag d;
        ck_assert_msg(build_attention(ir, cases[c].arch, m, &a, &d) == LS_OK, "%s", d.msg);
        ls_hw hw;
        ls_diag_clear(&d);
        ck_assert(ls_hw_load(cases[c].model, &hw, &d) == LS_OK);
        ls_att_view *v;
        ck_assert_msg(ls_attention_view(m, &m->attentions[0], &a, &hw, &v, &d) == LS_OK, "%s",
                      d.msg);
        const ls_plan *pl = ls_att_view_plan(v);
        const ls_att_kernel *k = pl->attention;
        ck_assert_int_eq(k->work_type, LS_ET_F32);
        ck_assert_int_eq(k->rows * k->slots, 1);
        ck_assert_int_eq(k->nloc, 16);
        ck_assert(k->trunc_p);
        ck_assert_int_eq(k->k_ext, cases[c].k_ext);
        ck_assert_int_eq(k->v_ext, cases[c].v_ext);
        ck_assert_int_eq(k->p_ext, cases[c].p_ext);
        ck_assert_int_eq(k->fuse_muladd, cases[c].fuse);
        engine e;
        ls_sim_result res;
        int64_t total;
        ck_assert_msg(ls_engine_prepare(&e, pl, &hw, &res, NULL, &total, &d) == LS_OK, "%s", d.msg);
        ck_assert_int_eq(k->pair_columns, cases[c].pairs);
        int widen_k = 0, widen_v = 0, fmas = 0, free_halves = 0;
        for (int i = e.loops[0].begin; i < e.loops[0].end; i++) {
            const tinst *in = &e.code[i];
            if (in->kind != I_ALU || in->iter_offset != 0)
                continue;
            int d0 = in->dep[0];
            if (d0 >= 0 && e.code[d0].kind == I_GLOAD && in->dep[1] < 0) {
                widen_k += e.code[d0].operand == k->k_in;
                widen_v += e.code[d0].operand == k->v_in;
            }
            fmas += in->dep[2] >= 0;
            free_halves += in->issues == 0;
        }
        /* (unwidened, the chain's first FMA reads its key load alone) */
        ck_assert_int_eq(widen_k, cases[c].k_ext ? k->k1loc : 1);
        ck_assert_int_eq(widen_v, cases[c].v_ext * k->nloc);
        /* the sum's FMA and one a column */
        ck_assert_int_eq(fmas, cases[c].fuse ? 1 + 16 : 0);
        /* packed math: each odd column's rescale and FMA with its even
         * neighbour's (v_pk_mul_f32 and v_pk_fma_f32; gfx1100's wave32 dual
         * issue); f32 does not pair on NVIDIA */
        ck_assert_int_eq(free_halves, cases[c].pairs ? 8 * 2 : 0);
        free(e.code);
        ls_att_view_free(v);
        free(m);
    }
}
END_TEST

/* Hand configs whose QK and PV matmuls lay out K2 apart (PV's lanes on
 * K2 are 4 where QK's are 16) are refused with both layouts and what IREE
 * does instead (GPUVectorAlloc's copy through workgroup memory); the same
 * configs with PV's K2 on QK's basis entry lay out and time. */

static void dis_ir(char *buf, size_t size, const char *pv_lane_map)
{
    char pv[512];
    snprintf(pv, sizeof pv,
             "#iree_gpu.lowering_config<{subgroup_basis = [[1, 1, 1, 1, 1], [0, 1, 3, 4]], "
             "lane_basis = [[1, 1, 4, 16, 1], %s], thread = [0, 0, 2, 4]}>",
             pv_lane_map);
    att_ir(buf, size, 64, 64, 16, "partial_reduction",
           "#iree_gpu.lowering_config<{subgroup_basis = [[1, 1, 1, 1, 1], [0, 1, 2, 3]], "
           "lane_basis = [[1, 1, 4, 16, 1], [0, 1, 2, 3]], thread = [0, 0, 8, 2]}>",
           pv);
}

START_TEST(layouts_apart_refused)
{
    const char *maps[2] = {"[0, 1, 2, 3]", "[0, 1, 3, 2]"}; /* apart, together */
    for (int k = 0; k < 2; k++) {
        char ir[4096];
        dis_ir(ir, sizeof ir, maps[k]);
        ls_module *m = ls_xcalloc(1, sizeof *m);
        ls_attention a;
        ls_diag d;
        ck_assert_msg(build_attention(ir, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
        ls_hw hw;
        ls_diag_clear(&d);
        ck_assert(ls_hw_load("mi300x", &hw, &d) == LS_OK);
        ls_att_view *v = NULL;
        ls_diag_clear(&d);
        ls_status st = ls_attention_view(m, &m->attentions[0], &a, &hw, &v, &d);
        if (k == 0) {
            ck_assert_int_eq(st, LS_ERR_INVALID);
            ck_assert_ptr_null(v);
            ck_assert_msg(strstr(d.msg, "lay out d3 apart (QK: 1 subgroup x 1 batch x 16 lanes "
                                        "x 2 elements; PV: 1 subgroup x 4 batches x 4 lanes x "
                                        "2 elements") != NULL,
                          "%s", d.msg);
            ck_assert_msg(strstr(d.msg, "GPUVectorAlloc") && strstr(d.msg, "same layout of d3"),
                          "%s", d.msg);
        } else {
            ck_assert_msg(st == LS_OK, "%s", d.msg);
            ls_sim_result r;
            ck_assert_msg(ls_engine_run(ls_att_view_plan(v), &hw, &r, NULL, &d) == LS_OK, "%s",
                          d.msg);
            ck_assert(r.cycles > 0);
            ls_att_view_free(v);
        }
        free(m);
    }
}
END_TEST

/* Property: random hand configs (bases, thread tiles, the K2 level,
 * promotion) on AMD and NVIDIA lowerings.  The PV matmul keeps the QK's
 * basis entries for B, M and K2 (IREE's projectBasis) and maps N to the
 * fifth, so both layouts agree and every one lays out; then each either
 * times and checks (no mismatch: the lowered values stay within the bound
 * of the op) or is refused for a reason named below. */
START_TEST(random_configs)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    int timed = 0;
    for (int it = 0; it < 40; it++) {
        int64_t sg;
        bool partial, promote;
        char ir[4096];
        random_att_ir(&x, 0, 4, ir, sizeof ir, &sg, &partial, &promote);
        ls_module *m = ls_xcalloc(1, sizeof *m);
        ls_attention a;
        ls_diag d;
        ck_assert_msg(build_attention(ir, sg == 64 ? "gfx942" : "sm_90", m, &a, &d) == LS_OK,
                      "%d: %s", it, d.msg);
        ls_hw hw;
        ls_diag_clear(&d);
        ck_assert(ls_hw_load(sg == 64 ? "mi300x" : "h100", &hw, &d) == LS_OK);
        ls_att_view *v = NULL;
        ls_diag_clear(&d);
        ls_status st = ls_attention_values_check(m, &m->attentions[0], &a, &d);
        if (st == LS_OK)
            st = ls_attention_view(m, &m->attentions[0], &a, &hw, &v, &d);
        if (st != LS_OK) { /* the reasons a layout of this family may be refused for */
            ck_assert_msg(strstr(d.msg, "not a power of two") ||
                              strstr(d.msg, "does not fit in a subgroup") ||
                              strstr(d.msg, "cannot be spread over"),
                          "%d: %s", it, d.msg);
            free(m);
            continue;
        }
        ls_sim_result r;
        ck_assert_msg(ls_engine_run(ls_att_view_plan(v), &hw, &r, NULL, &d) == LS_OK, "%d: %s",
                      it, d.msg);
        ck_assert(r.cycles > 0 && r.operand[0].global_bytes >= 2 * 128 * 32 * 2);
        plan_agrees(m, v, &r);
        ls_att_check chk;
        ck_assert_msg(ls_attention_values(m, &m->attentions[0], &a, ls_plan_target_from_arch(hw.arch),
                                          (uint64_t)it, 1, &chk, &d) == LS_OK,
                      "%d: %s", it, d.msg);
        ck_assert_msg(chk.mismatches == 0, "%d: %s at d3=%lld: %s vs %s", it, chk.bad_result,
                      (long long)chk.bad_point[3], chk.bad_sim, chk.bad_ref);
        ck_assert_int_eq(chk.outputs_checked, 8 + 2);
        ls_att_view_free(v);
        free(m);
        timed++;
    }
    ck_assert_int_ge(timed, 20); /* most of them run */
}
END_TEST

/* sweep: IREE's rules with other seeds.  IREE's own seeds give exactly the
 * config ls_attention_build derives without one; every point is distinct;
 * the times do not depend on the thread count; the ranking is by time,
 * IREE's rank where its point lands; a seed of 0 is refused. */
START_TEST(sweep_seeds)
{
    char ir[8192];
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention a;
    ls_diag d;
    attention_ir(ir, sizeof ir, false, DIMS5, STD5, 5, "tensor<2x1x64xf16>", "tensor<2x512x64xf16>",
                 "tensor<2x512x64xf16>", NULL, "tensor<2x1x64xf16>", NULL, "f16");
    ck_assert_msg(build_attention(ir, "gfx942", m, &a, &d) == LS_OK, "%s", d.msg);
    ls_target t;
    ck_assert(ls_target_lookup("gfx942", &t));
    ls_hw hw;
    ck_assert(ls_hw_load("mi300x", &hw, &d) == LS_OK);
    ls_att_sweep sw, again;
    ck_assert_msg(ls_att_sweep_enumerate(m, &m->attentions[0], &t, &sw, &d) == LS_OK, "%s", d.msg);
    ck_assert_msg(ls_att_sweep_enumerate(m, &m->attentions[0], &t, &again, &d) == LS_OK, "%s",
                  d.msg);
    ck_assert_uint_gt(sw.n, 10);
    ck_assert(!sw.has_input); /* the op has no config of its own */
    size_t iree = sw.n;
    for (size_t i = 0; i < sw.n; i++) {
        for (size_t j = 0; j < i; j++)
            REQUIRE(strcmp(sw.keys[i], sw.keys[j]) != 0, "points %zu and %zu are one config", i, j);
        if (sw.points[i].is_iree)
            iree = i;
    }
    ck_assert_uint_lt(iree, sw.n);
    /* the summary columns are the extents the kernel runs: some seeds give
     * an N tile of 128 on the 64-wide N, which runs as 64 */
    for (size_t i = 0; i < sw.n; i++)
        REQUIRE(sw.points[i].n_tile >= 1 && sw.points[i].n_tile <= 64 &&
                    64 % sw.points[i].n_tile == 0 && sw.points[i].keys_per_step <= 512,
                "point %zu: %lld N a workgroup, %lld keys a step", i,
                (long long)sw.points[i].n_tile, (long long)sw.points[i].keys_per_step);
    char want[1024];
    ls_lowering_config_format(&a.qk.config, want, sizeof want);
    ck_assert_str_eq(sw.points[iree].qk, want);
    ck_assert_int_eq(sw.points[iree].workgroup_size, a.workgroup_size);
    ck_assert_msg(ls_att_sweep_run(m, &m->attentions[0], &t, &hw, &sw, 1, NULL, NULL, &d) == LS_OK,
                  "%s", d.msg);
    ck_assert_msg(ls_att_sweep_run(m, &m->attentions[0], &t, &hw, &again, 2, NULL, NULL, &d) ==
                      LS_OK,
                  "%s", d.msg);
    for (size_t i = 0; i < sw.n; i++)
        REQUIRE(sw.points[i].cycles == again.points[i].cycles &&
                    sw.points[i].status == again.points[i].status,
                "point %zu: %lld cycles on one thread, %lld on two", i,
                (long long)sw.points[i].cycles, (long long)again.points[i].cycles);
    /* IREE's point times as sim times the default kernel */
    ls_sim_result r;
    time_attention(m, &a, "mi300x", &r);
    ck_assert_int_eq(sw.points[iree].cycles, r.cycles);
    /* the roofline's figures: the op's arithmetic, 2 x (2 x 1 x 512) x
     * (64 + 64) for every point, its DRAM bytes and Little's-law cap */
    ck_assert_double_eq(ls_att_flops(&a), 2.0 * 2 * 512 * (64 + 64));
    ck_assert_int_eq(sw.points[iree].dram_bytes, r.dram_bytes);
    for (size_t i = 0; i < sw.n; i++)
        REQUIRE(sw.points[i].status != LS_OK ||
                    (sw.points[i].ops == ls_att_flops(&a) && sw.points[i].mlp_cap > 0 &&
                     sw.points[i].mlp_cap <= 1),
                "point %zu: ops %g, cap %g", i, sw.points[i].ops, sw.points[i].mlp_cap);
    size_t *order = ls_xcalloc(sw.n, sizeof *order);
    size_t rank = ls_att_sweep_rank(&sw, order);
    ck_assert_uint_eq(order[rank - 1], iree);
    for (size_t k = 1; k < sw.n; k++)
        if (sw.points[order[k]].status == LS_OK)
            REQUIRE(sw.points[order[k - 1]].status == LS_OK &&
                        sw.points[order[k - 1]].cycles <= sw.points[order[k]].cycles,
                    "rank %zu before rank %zu", k, k + 1);
    free(order);
    ls_att_sweep_free(&sw);
    ls_att_sweep_free(&again);
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    const ls_attention_seeds zero = {8, 0, 8};
    ck_assert_int_eq(ls_suggest_attention_seeded(&m->dispatches[0], m->attentions[0].op, &t, &zero,
                                                 s, &d),
                     LS_ERR_INVALID);
    free(s);
    free(m);
}
END_TEST

static Suite *attention_sim_suite(void)
{
    Suite *s = suite_create("attention_sim");
    TCase *tc = tcase_create("sim");
    tcase_set_timeout(tc, 120); /* the property test under the sanitizers */
    tcase_add_test(tc, exp2_as_iree_compiles_it);
    tcase_add_test(tc, values_pipeline_cases);
    tcase_add_test(tc, values_default_config);
    tcase_add_test(tc, values_refusals);
    tcase_add_test(tc, timing_pipeline_cases);
    tcase_add_test(tc, timing_default_config);
    tcase_add_test(tc, timing_widenings_and_fmas);
    tcase_add_test(tc, timing_k1_split);
    tcase_add_test(tc, random_configs);
    tcase_add_test(tc, layouts_apart_refused);
    tcase_add_test(tc, sweep_seeds);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(attention_sim_suite)
