/* test_body_issue.c: which of a body's instructions each register issues
 * (src/body_issue.c), and the engine's loop as it follows:
 *  - a matvec's vector, which all of a thread's rows read, is widened once
 *    for them (PromoteContractOperands extends the contraction's own
 *    operand; CSE merges copies), not once a row;
 *  - an op on values held from before the loop (a norm's sum) is hoisted
 *    out of it, issued once for each distinct value;
 *  - what v_fma_mix_f32 reads itself is neither issued nor shared;
 *  - an input that reads no dim the loop steps is loaded once, before it. */
#include <check.h>

#include "../sim/engine_internal.h"
#include "engine_util.h"
#include "fused_util.h"
#include "lanescope/body_issue.h"
#include "lanescope/hwmodel.h"

/* A 64 x 1024 matvec of f16 values accumulated in f32, 8 rows a workgroup
 * of 64 lanes, 8 elements a lane: each thread holds 8 rows x 8 elements. */
static const char *matvec_text(char *buf, size_t n, int lanes)
{
    snprintf(
        buf, n,
        "func.func @k() attributes {translation_info = "
        "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = "
        "[%d, 1, 1] subgroup_size = %d>} {\n"
        "%%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
        "[\"parallel\", \"reduction\"]} ins(%%a, %%b : tensor<64x1024xf16>, tensor<1024xf16>) "
        "outs(%%c : tensor<64xf32>) attrs = {lowering_config = "
        "#iree_gpu.lowering_config<{workgroup = [8, 0], partial_reduction = [0, %d], "
        "thread = [0, 8], lane_basis = [[1, %d], [0, 1]], subgroup_basis = [[1, 1], [0, "
        "1]]}>} {\n^bb0(%%x: f16, %%y: f16, %%o: f32):\n  %%e = arith.extf %%x : f16 to f32\n"
        "  %%f = arith.extf %%y : f16 to f32\n  %%m = arith.mulf %%e, %%f : f32\n"
        "  %%s = arith.addf %%m, %%o : f32\n  linalg.yield %%s : f32\n} -> tensor<64xf32>\n}\n",
        lanes, lanes, 8 * lanes, lanes);
    return buf;
}

/* The engine's program for plan on mi300x (e->code freed by the caller). */
static void prepare_mi300x(engine *e, const ls_plan *plan, ls_hw *hw)
{
    ls_diag dg;
    ls_diag_clear(&dg);
    ck_assert_msg(ls_hw_load("mi300x", hw, &dg) == LS_OK, "%s", dg.msg);
    ls_sim_result res;
    int64_t total;
    ck_assert_msg(ls_engine_prepare(e, plan, hw, &res, NULL, &total, &dg) == LS_OK, "%s", dg.msg);
}

/* gfx942: 64 registers an iteration (8 rows x 8).  The matrix's widening
 * is per register (64), the vector's once per element (8, not 64: 56
 * saved), the multiply folded into the FMA chain (64); no v_fma_mix_f32 on
 * a packed-f32 target with several accumulators.  The loop's ALU
 * instructions an iteration: 72 widenings, 64 FMAs (8 accumulators x 8
 * elements, from 0), 8 joins. */
START_TEST(broadcast_widening_computed_once)
{
    char text[2048];
    ls_problem *p;
    ls_derived *d;
    ls_plan plan;
    plan_text(matvec_text(text, sizeof text, 64), "gfx942", &p, &d, &plan);
    ck_assert_int_eq(d->elems_per_iteration, 64);
    ck_assert(ls_plan_body_fma_timed(&plan));
    ls_body_issue_totals t;
    ls_body_issue_totals_of(&plan, true, &t);
    ck_assert_int_eq(t.alu, 64 + 8);
    ck_assert_int_eq(t.sfu, 0);
    ck_assert_int_eq(t.shared, 56);
    ck_assert_int_eq(t.folded, 64);
    ck_assert_int_eq(t.hoisted + t.before_loop, 0);
    /* the registers of row 0 widen the vector; the other rows do not */
    ls_body_issue *s = ls_body_issue_new(&plan, true);
    ls_body_issue_next_iteration(s);
    for (int64_t r = 0; r < 64; r++) {
        ls_body_issue_counts c = ls_body_issue_register(s, r);
        ck_assert_int_eq(c.alu, r < 8 ? 2 : 1);
        ck_assert_int_eq(c.pairable, 0); /* an extf never pairs */
    }
    ls_body_issue_next_iteration(s); /* a new iteration widens anew */
    ck_assert_int_eq(ls_body_issue_register(s, 9).alu, 2);
    ls_body_issue_free(s);
    /* the engine's loop */
    ls_hw hw;
    ls_diag dg;
    engine e;
    prepare_mi300x(&e, &plan, &hw);
    int alu = 0;
    for (int i = e.loop_begin; i < e.loop_end; i++)
        alu += e.code[i].kind == I_ALU && e.code[i].iter_offset == 0;
    ck_assert_int_eq(alu, 72 + 64 + 8);
    free(e.code);
    /* gfx1100: v_fma_mix_f32 reads both f16 values, nothing to share */
    ls_plan p1100;
    ck_assert(ls_plan_build(p, d, ls_plan_target_from_arch("gfx1100"), &p1100, &dg) == LS_OK);
    ls_body_issue_totals_of(&p1100, true, &t);
    ck_assert_int_eq(t.alu, 0);
    ck_assert_int_eq(t.shared, 0);
    ck_assert_int_eq(t.folded, 3 * d->elems_per_iteration);
    free(d);
    free(p);
}
END_TEST

/* The norm's second reduction, sum((x - sum / 24576)^2) per row: the mean
 * reads only the first reduction's sum, held in registers from before the
 * loop, so it is computed once for the row (a thread holds one), not in
 * every iteration for every register; the subtract is issued per register
 * and the square folds into the FMA chain. */
START_TEST(ops_on_held_values_hoisted)
{
    kernel *k = nhwc_norm_kernel();
    const ls_plan *pl = &k->plans[1];
    const ls_body *b = &pl->problem->body;
    ck_assert(pl->problem->inputs[1].intermediate);
    int div = -1, sub = -1;
    for (int i = 0; i < b->n; i++) {
        div = b->inst[i].op == LS_BOP_DIVF ? i : div;
        sub = b->inst[i].op == LS_BOP_SUBF ? i : sub;
    }
    ck_assert(div >= 0 && sub >= 0);
    int da, ds, sa, ss;
    ls_body_inst_machine_ops(b, div, pl->target, &da, &ds);
    ls_body_inst_machine_ops(b, sub, pl->target, &sa, &ss);
    int64_t regs = pl->derived->elems_per_iteration;
    ls_body_issue_totals t;
    ls_body_issue_totals_of(pl, ls_plan_body_fma_timed(pl), &t);
    ck_assert_int_eq(t.before_loop, da + ds);
    ck_assert_int_eq(t.hoisted, regs * (da + ds));
    ck_assert_int_eq(t.alu + t.sfu, regs * (sa + ss));
    ck_assert_int_eq(t.shared, 0);
    /* the engine issues them once, before the loop (the fused kernel's
     * loop 1), reading the held sum */
    engine e;
    ls_sim_result res;
    int64_t total;
    ls_diag dg;
    ls_diag_clear(&dg);
    ck_assert_msg(ls_engine_prepare(&e, &k->k.plan, &k->hw, &res, NULL, &total, &dg) == LS_OK, "%s",
                  dg.msg);
    ck_assert_int_ge(e.n_loops, 2);
    int before = 0;
    for (int i = e.loops[0].end; i < e.loops[1].begin; i++)
        before += e.code[i].stage == LS_STAGE_LOAD_ACCUMULATE &&
                  (e.code[i].kind == I_ALU || e.code[i].kind == I_SFU);
    ck_assert_int_eq(before, da + ds);
    free(e.code);
    kernel_free(k);
}
END_TEST

/* LLVM's unroller sizes the loop after LICM: IREE's group norm on gfx942
 * (tests/corpus/groupnorm_gfx942.mlir, IREE's default configs) divides
 * the held sum by 163840 in the variance's body.  Hoisted, that division
 * (an IEEE f32 divide, ten ALU instructions and a v_rcp_f32) is no longer
 * in the loop's size, and the variance loop's 20 iterations unroll whole,
 * as the mean's do; counted in it, they unrolled by 5. */
START_TEST(unroller_sizes_the_loop_after_licm)
{
    kernel *k = heuristic_kernel_of_file("../tests/corpus/groupnorm_gfx942.mlir", "gfx942", "mi300x");
    ls_body_issue_totals t;
    ls_body_issue_totals_of(&k->plans[1], ls_plan_body_fma_timed(&k->plans[1]), &t);
    ck_assert_int_gt(t.hoisted, 0);
    ck_assert_int_eq(k->plans[0].iterations, 20);
    ck_assert_int_eq(k->plans[1].iterations, 20);
    int64_t u[LS_FUSED_MAX_PHASES];
    ls_engine_fused_unrolls(&k->k, &k->hw, u);
    ck_assert_int_eq(u[0], 20);
    ck_assert_int_eq(u[1], 20);
    kernel_free(k);
}
END_TEST

/* A row reduction of x * (m + 1) where m has one value a row (map d0):
 * it reads no dim the loop steps, so the compiled code loads it once,
 * before the loop (hoistRedundantVectorTransfers, LLVM's LICM over the
 * readonly binding), and m + 1 with it; the multiply stays per register
 * (it reads x) and folds into the FMA.  64 lanes, 8 elements each, 8
 * iterations of 512. */
START_TEST(invariant_input_read_once)
{
    const char *text =
        "func.func @k() attributes {translation_info = "
        "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size = "
        "[64, 1, 1] subgroup_size = 64>} {\n"
        "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
        "[\"parallel\", \"reduction\"]} ins(%a, %m : tensor<64x4096xf32>, tensor<64xf32>) "
        "outs(%c : tensor<64xf32>) attrs = {lowering_config = "
        "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 512], thread = "
        "[0, 8], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>} {\n"
        "^bb0(%x: f32, %mm: f32, %o: f32):\n  %one = arith.constant 1.0 : f32\n"
        "  %n = arith.addf %mm, %one : f32\n  %q = arith.mulf %x, %n : f32\n"
        "  %s = arith.addf %q, %o : f32\n  linalg.yield %s : f32\n} -> tensor<64xf32>\n}\n";
    ls_problem *p;
    ls_derived *d;
    ls_plan plan;
    plan_text(text, "gfx942", &p, &d, &plan);
    ck_assert_int_eq(d->total_iterations, 8);
    ck_assert(!plan.inputs[0].hoisted);
    ck_assert(plan.inputs[1].hoisted);
    ls_body_issue_totals t;
    ls_body_issue_totals_of(&plan, ls_plan_body_fma_timed(&plan), &t);
    ck_assert_int_eq(t.hoisted, 8);     /* m + 1 for each of the 8 registers */
    ck_assert_int_eq(t.before_loop, 1); /* once: one row */
    ls_hw hw;
    engine e;
    prepare_mi300x(&e, &plan, &hw);
    int m_before = 0, m_in = 0, x_in = 0, alu_before = 0;
    for (int i = 0; i < e.ncode; i++) {
        bool in_loop = i >= e.loop_begin && i < e.loop_end;
        if (e.code[i].kind == I_GLOAD && e.code[i].operand == 1)
            (in_loop ? &m_in : &m_before)[0]++;
        x_in += in_loop && e.code[i].kind == I_GLOAD && e.code[i].operand == 0;
        alu_before += i < e.loop_begin && e.code[i].kind == I_ALU;
    }
    ck_assert_int_eq(m_before, 1);
    ck_assert_int_eq(m_in, 0);
    ck_assert_int_eq(x_in, e.unroll); /* one vector of 8 an iteration */
    ck_assert_int_eq(alu_before, 1);  /* m + 1 */
    /* the run reads m once a subgroup: each of the 64 workgroups its row's
     * 4 bytes, which all 64 lanes read (8 times as many were it read in
     * every iteration) */
    ls_sim_result res;
    ls_diag dg;
    ls_diag_clear(&dg);
    ck_assert_msg(ls_engine_run(&plan, &hw, &res, NULL, &dg) == LS_OK, "%s", dg.msg);
    ck_assert_int_eq(res.operand[1].global_bytes, 64 * 4);
    free(e.code);
    free(d);
    free(p);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("body_issue");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, broadcast_widening_computed_once);
    tcase_add_test(tc, ops_on_held_values_hoisted);
    tcase_add_test(tc, invariant_input_read_once);
    tcase_add_test(tc, unroller_sizes_the_loop_after_licm);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(suite)
