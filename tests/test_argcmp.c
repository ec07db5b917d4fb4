/* test_argcmp.c: iree_linalg_ext.arg_compare, lane by lane, on inputs built
 * so that IREE's lowering and the op's scalar semantics part ways.
 *
 * Every expected index below is worked out by hand from
 * docs/arg-compare-lowering.md §3.4 (the partial generic's slots j = s*L*E +
 * t*E + e with the earliest iteration winning within a slot, the lane's
 * slots in order, the lowest lane of the ballot, the lowest subgroup), not
 * from running lanescope.  The reference is the scalar loop; where the two
 * differ on a tie the check must count a tie, never a mismatch. */
#include <math.h>

#include "lanescope/engine.h"
#include "lanescope/functional.h"
#include "lanescope/hwmodel.h"
#include "lanescope/plan.h"
#include "testutil.h"

typedef struct {
    ls_module *m;
    ls_derived d;
    ls_plan plan;
} built;

/* The index result's type build_on writes. */
static const char *index_ty = "i32";

/* A 1-row (or `rows`-row) arg_compare of n f32 values with the config and
 * comparator given; value init `init` (a hex f32), index init 0. */
static void build_on(built *b, const char *pipeline, int rows, int n, const char *config, int wg,
                     const char *cmp, const char *init, const char *arch)
{
    char text[4096];
    snprintf(
        text, sizeof text,
        "func.func @t() attributes {translation_info = #iree_codegen.translation_info<"
        "pipeline = #iree_gpu.pipeline<%s> workgroup_size = [%d, 1, 1] "
        "subgroup_size = %d>} {\n"
        "  %%cst = arith.constant %s : f32\n"
        "  %%zero = arith.constant 0 : %s\n"
        "  %%in = tensor.empty() : tensor<%dx%dxf32>\n"
        "  %%e0 = tensor.empty() : tensor<%dxf32>\n"
        "  %%e1 = tensor.empty() : tensor<%dx%s>\n"
        "  %%f0 = linalg.fill ins(%%cst : f32) outs(%%e0 : tensor<%dxf32>) -> tensor<%dxf32>\n"
        "  %%f1 = linalg.fill ins(%%zero : %s) outs(%%e1 : tensor<%dx%s>) -> tensor<%dx%s>\n"
        "  %%r:2 = iree_linalg_ext.arg_compare {lowering_config = %s} dimension(1)\n"
        "    ins(%%in : tensor<%dx%dxf32>) outs(%%f0, %%f1 : tensor<%dxf32>, tensor<%dx%s>) {\n"
        "  ^bb0(%%a: f32, %%b: f32):\n%s\n"
        "    iree_linalg_ext.yield %%c : i1\n"
        "  } -> tensor<%dxf32>, tensor<%dx%s>\n"
        "  return\n}\n",
        pipeline, wg, strncmp(arch, "gfx", 3) == 0 ? 64 : 32, init, index_ty, rows, n, rows, rows,
        index_ty, rows, rows, index_ty, rows, index_ty, rows, index_ty, config, rows, n, rows, rows,
        index_ty, cmp, rows, rows, index_ty);
    ls_diag d;
    b->m = load_text(text, &d);
    ck_assert_msg(d.status == LS_OK && b->m->n_problems == 1, "%s", d.msg);
    ls_problem *p = &b->m->problems[0];
    ck_assert(p->argcmp.on);
    ck_assert_msg(ls_derive(p, &b->d, &d) == LS_OK, "%s", d.msg);
    ck_assert_msg(ls_plan_build(p, &b->d, ls_plan_target_from_arch(arch), &b->plan, &d) == LS_OK,
                  "%s", d.msg);
}

static const char *OGT = "    %c = arith.cmpf ogt, %a, %b : f32";
static const char *NINF = "0xFF800000";

static void build(built *b, int rows, int n, const char *config, int wg, const char *cmp,
                  const char *init, const char *arch)
{
    build_on(b, "VectorDistribute", rows, n, config, wg, cmp, init, arch);
}
/* 1 x 8192 f32 on gfx942: T = 4096 = 16 subgroups x 64 lanes x 4, so two
 * iterations; slot j = position mod 4096, lane (j / 4) % 64, subgroup j / 256. */
static const char *CFG_2IT =
    "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 4096], thread = "
    "[0, 4], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 16], [0, 1]]}>";

/* Run workgroup `wg` and return thread 0's pair of result slot 0; the check
 * of all workgroups goes to fr. */
static void run(built *b, ls_value *vals, ls_value *idx, int64_t wg, ls_value *v, ls_value *i,
                ls_functional_result *fr, ls_status want)
{
    ls_input_source in = {1, NULL, {vals, idx}};
    ls_diag d;
    ls_diag_clear(&d);
    ls_status st = ls_functional_run(&b->plan, in, 0, -1, fr, &d);
    ck_assert_msg(st == want, "status %d: %s", st, d.msg);
    ls_func_point at = {LS_STAGE_STORE, 0, 0, 0};
    ls_func_snapshot snap;
    ck_assert(ls_functional_snapshot(&b->plan, in, wg, &at, &snap, &d) == LS_OK);
    ck_assert(snap.indices != NULL);
    *v = snap.values[0];
    *i = snap.indices[0];
    ls_func_snapshot_free(&snap);
}

static ls_value f32(double x)
{
    return ls_value_from_double(x, LS_ET_F32);
}

static ls_value *zeros(int64_t n)
{
    ls_value *a = ls_xcalloc((size_t)n, sizeof *a);
    for (int64_t k = 0; k < n; k++)
        a[k] = f32(0);
    return a;
}

/* Equal maxima at 5 (iteration 0, slot 5) and 4100 (iteration 1, slot 4):
 * both slots are lane 1's, whose slots merge in order 4, 5: 4100 wins,
 * although the scalar loop keeps the first, 5. */
START_TEST(tie_across_slots)
{
    built b;
    build(&b, 1, 8192, CFG_2IT, 1024, OGT, NINF, "gfx942");
    ck_assert(b.plan.ballot && b.plan.iterations == 2 && b.plan.cross_subgroup);
    /* its merges are compares and selects: no combine chain LLVM joins in
     * pairs, though an f32 max on gfx942 is one (test_dpp.c) */
    ck_assert(!b.plan.combine_fuses3);
    ls_value *x = zeros(8192), v, i;
    x[5] = x[4100] = f32(5);
    ls_functional_result fr;
    run(&b, x, NULL, 0, &v, &i, &fr, LS_OK);
    ck_assert_int_eq((int64_t)i, 4100);
    ck_assert(v == f32(5));
    ck_assert_int_eq(fr.index_ties, 1);
    ck_assert_int_eq(fr.mismatches, 0);
    ls_value rv, ri;
    int64_t out[1] = {0};
    ls_argcmp_reference(&b.m->problems[0], (ls_input_source){1, NULL, {x, NULL}}, out, &rv, &ri);
    ck_assert_int_eq((int64_t)ri, 5);
    free(x);
    free(b.m);
}
END_TEST

/* 4 (lane 1, iteration 0) and 4096 (lane 0, iteration 1): the ballot's
 * lowest lane, 0, wins. */
START_TEST(tie_across_lanes)
{
    built b;
    build(&b, 1, 8192, CFG_2IT, 1024, OGT, NINF, "gfx942");
    ls_value *x = zeros(8192), v, i;
    x[4] = x[4096] = f32(3);
    ls_functional_result fr;
    run(&b, x, NULL, 0, &v, &i, &fr, LS_OK);
    ck_assert_int_eq((int64_t)i, 4096);
    ck_assert_int_eq(fr.index_ties, 1);
    free(x);
    free(b.m);
}
END_TEST

/* 256 (subgroup 1, iteration 0) and 4096 (subgroup 0, iteration 1): the
 * second merge's ballot picks subgroup 0's slot. */
START_TEST(tie_across_subgroups)
{
    built b;
    build(&b, 1, 8192, CFG_2IT, 1024, OGT, NINF, "gfx942");
    ls_value *x = zeros(8192), v, i;
    x[256] = x[4096] = f32(1.5);
    ls_functional_result fr;
    run(&b, x, NULL, 0, &v, &i, &fr, LS_OK);
    ck_assert_int_eq((int64_t)i, 4096);
    ck_assert_int_eq(fr.index_ties, 1);
    /* and a unique maximum anywhere is found exactly, no tie */
    x[256] = x[4096] = f32(0);
    x[6001] = f32(-0.5);
    for (int k = 0; k < 8192; k++)
        if (k != 6001)
            x[k] = f32(-1);
    run(&b, x, NULL, 0, &v, &i, &fr, LS_OK);
    ck_assert_int_eq((int64_t)i, 6001);
    ck_assert(v == f32(-0.5));
    ck_assert_int_eq(fr.index_ties, 0);
    free(x);
    free(b.m);
}
END_TEST

/* The init is folded in first: a value equal to the init never beats it
 * under ogt, so the result is the init pair. */
START_TEST(init_wins_ties)
{
    built b;
    build(&b, 1, 8192, CFG_2IT, 1024, OGT, "5.0", "gfx942");
    ls_value *x = zeros(8192), v, i;
    x[100] = f32(5);
    ls_functional_result fr;
    run(&b, x, NULL, 0, &v, &i, &fr, LS_OK);
    ck_assert_int_eq((int64_t)i, 0);
    ck_assert(v == f32(5));
    ck_assert_int_eq(fr.index_ties, 0);
    free(x);
    free(b.m);
}
END_TEST

/* oge keeps the later candidate within a slot and within a lane, but the
 * ballot still takes the lowest lane: 5 and 4100 (both lane 1) give 5, the
 * scalar loop 4100. */
START_TEST(non_strict_comparator)
{
    built b;
    build(&b, 1, 8192, CFG_2IT, 1024, "    %c = arith.cmpf oge, %a, %b : f32", NINF, "gfx942");
    ls_value *x = zeros(8192), v, i;
    x[5] = x[4100] = f32(5);
    ls_functional_result fr;
    run(&b, x, NULL, 0, &v, &i, &fr, LS_OK);
    ck_assert_int_eq((int64_t)i, 5);
    ck_assert_int_eq(fr.index_ties, 1);
    free(x);
    free(b.m);
}
END_TEST

/* A compare of squares has no max/min kind: the butterfly.  -3 at 0 (lane
 * 0) and 3 at 4 (lane 1) tie; at the last step (offset 1) neither beats the
 * other, so lane 0 takes lane 1's pair: (3, 4), where the scalar loop keeps
 * (-3, 0).  Equivalent under the comparator: a tie, not a mismatch. */
START_TEST(butterfly_takes_partner_on_tie)
{
    built b;
    build(&b, 1, 256,
          "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 256], thread = "
          "[0, 4], lane_basis = [[1, 64], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>",
          64,
          "    %sa = arith.mulf %a, %a : f32\n    %sb = arith.mulf %b, %b : f32\n"
          "    %c = arith.cmpf ogt, %sa, %sb : f32",
          "0.0", "gfx942");
    ck_assert(!b.plan.ballot);
    ck_assert_int_eq(b.plan.subgroup_reduces[0].n_steps, 6);
    ck_assert_int_eq(b.plan.subgroup_reduces[0].steps[0].offset, 32); /* descending */
    ck_assert_int_eq(b.plan.subgroup_reduces[0].steps[5].offset, 1);
    ls_value *x = zeros(256), v, i;
    x[0] = f32(-3);
    x[4] = f32(3);
    ls_functional_result fr;
    run(&b, x, NULL, 0, &v, &i, &fr, LS_OK);
    ck_assert_int_eq((int64_t)i, 4);
    ck_assert(v == f32(3));
    ck_assert_int_eq(fr.index_ties, 1);
    ck_assert_int_eq(fr.mismatches, 0);
    free(x);
    free(b.m);
}
END_TEST

/* Two rows in one subgroup (lane_basis [[2, 32], ...]): IREE's ballot mask
 * does not depend on the lane, so row 1 takes the index of row 0's winner
 * (lane 2, position 10) -- a wrong index the check must report. */
START_TEST(ballot_hazard_two_rows)
{
    built b;
    build(&b, 2, 128,
          "#iree_gpu.lowering_config<{workgroup = [2, 0], partial_reduction = [0, 128], thread = "
          "[0, 4], lane_basis = [[2, 32], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>",
          64, OGT, NINF, "gfx942");
    ck_assert(b.plan.hazard_cluster);
    ls_value *x = zeros(256), v, i;
    x[10] = f32(2);        /* row 0, lane 2 */
    x[128 + 72] = f32(4);  /* row 1, position 72, lane 32 + 18 */
    ls_functional_result fr;
    run(&b, x, NULL, 0, &v, &i, &fr, LS_ERR_INVALID);
    ck_assert_int_eq(fr.mismatches, 1);
    ck_assert_int_eq(fr.bad_output[0], 1);
    ck_assert_msg(strstr(fr.bad_sim, "10") != NULL, "%s", fr.bad_sim);
    free(x);
    free(b.m);
}
END_TEST

/* The same config with one row per subgroup (the generated kind) has no
 * hazard: every index right. */
START_TEST(no_hazard_one_row)
{
    built b;
    build(&b, 2, 128,
          "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 128], thread = "
          "[0, 4], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 1], [0, 1]]}>",
          32, OGT, NINF, "sm_80");
    ck_assert(!b.plan.hazard_cluster);
    ck_assert(!b.plan.amd);
    ls_value *x = zeros(256), v, i;
    x[10] = f32(2);
    x[128 + 72] = f32(4);
    ls_functional_result fr;
    run(&b, x, NULL, 1, &v, &i, &fr, LS_OK);
    ck_assert_int_eq((int64_t)i, 72);
    ck_assert_int_eq(fr.mismatches, 0);
    ck_assert_int_eq(fr.outputs_checked, 2);
    free(x);
    free(b.m);
}
END_TEST

/* A TileAndFuse arg_compare, written with IREE's translation_info. */
static void build_tf(built *b, int rows, int n, const char *config)
{
    build_on(b, "TileAndFuse", rows, n, config, 64, OGT, NINF, "gfx942");
    ck_assert(ls_is_tile_and_fuse(&b->m->problems[0]));
    ck_assert(b->d.tile_and_fuse);
}

/* TileAndFuse (setArgCompareConfig's 8x100 config from config_argcompare.mlir):
 * each of 8 threads walks its row in order, so ties go to the first
 * position, exactly the scalar loop -- no finding. */
START_TEST(tile_and_fuse_walks_in_order)
{
    built b;
    build_tf(&b, 8, 100, "#iree_gpu.lowering_config<{thread = [1, 0], workgroup = [8, 0]}>");
    ck_assert_int_eq(b.d.total_workgroups, 1);
    ck_assert_int_eq(b.d.layout_lanes, 8);
    ck_assert_int_eq(b.plan.iterations, 1);
    ck_assert_int_eq(b.plan.acc_registers, 100); /* the slice, read before the walk */
    ck_assert_int_eq(b.plan.n_subgroup_reduces, 0);
    ck_assert(!b.plan.cross_subgroup);
    ls_value *x = zeros(800);
    x[3 * 100 + 70] = x[3 * 100 + 20] = f32(2); /* row 3: 20 first */
    ls_functional_result fr;
    ls_input_source in = {1, NULL, {x, NULL}};
    ls_diag d;
    ck_assert_msg(ls_functional_run(&b.plan, in, 0, -1, &fr, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(fr.outputs_checked, 8);
    ck_assert_int_eq(fr.index_ties, 0);
    ls_func_point at = {LS_STAGE_STORE, 0, 0, 0};
    ls_func_snapshot snap;
    ck_assert(ls_functional_snapshot(&b.plan, in, 0, &at, &snap, &d) == LS_OK);
    ck_assert_int_eq((int64_t)snap.indices[3], 20); /* thread 3 holds row 3 */
    ck_assert(snap.values[3] == f32(2));
    ls_func_snapshot_free(&snap);
    free(x);
    free(b.m);
    /* a long row is walked one element per iteration, still in order: with
     * chunks of 1024, slot 1 (1025) would beat slot 2 (2) */
    build_tf(&b, 4, 3000, "#iree_gpu.lowering_config<{thread = [1, 0], workgroup = [4, 0]}>");
    ck_assert_int_eq(b.plan.iterations, 3000);
    x = zeros(12000);
    x[2 * 3000 + 1025] = x[2 * 3000 + 2] = f32(7);
    in.values[0] = x;
    ck_assert_msg(ls_functional_run(&b.plan, in, 0, -1, &fr, &d) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(fr.index_ties, 0);
    free(x);
    free(b.m);
}
END_TEST

/* An i64 index's select is two v_cndmask_b32 on AMD (llc-22 on gfx942:
 * 8 compares and 24 selects for 8 f32 values with i64 indices), an i32's
 * one: the accumulate loop of 8192 elements (64 lanes a subgroup
 * instruction) differs by 8192 / 64 subgroup-instructions, the thread's
 * merge by one a reduced register and subgroup. */
START_TEST(wide_index_selects_take_two_on_amd)
{
    ls_hw hw;
    ls_diag d;
    ck_assert(ls_hw_load("mi300x", &hw, &d) == LS_OK);
    ls_sim_result r[2];
    int64_t merges = 0;
    for (int w = 0; w < 2; w++) {
        built b;
        index_ty = w ? "i64" : "i32";
        build(&b, 1, 8192, CFG_2IT, 1024, OGT, NINF, "gfx942");
        ck_assert_int_eq(b.plan.select_alu[0], 1);
        ck_assert_int_eq(b.plan.select_alu[1], w ? 2 : 1);
        merges = b.plan.acc_registers;
        ck_assert_msg(ls_engine_run(&b.plan, &hw, &r[w], NULL, &d) == LS_OK, "%s", d.msg);
        free(b.m);
    }
    index_ty = "i32";
    ck_assert_int_eq(r[1].stage[LS_STAGE_LOAD_ACCUMULATE].instructions -
                         r[0].stage[LS_STAGE_LOAD_ACCUMULATE].instructions,
                     8192 / 64);
    /* every thread of the 16 subgroups merges its reduced registers */
    ck_assert_int_eq(r[1].stage[LS_STAGE_THREAD_REDUCE].instructions -
                         r[0].stage[LS_STAGE_THREAD_REDUCE].instructions,
                     16 * merges);
    /* NVIDIA's selp.b64 is one instruction */
    built b;
    index_ty = "i64";
    build(&b, 1, 8192,
          "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 4096], thread = "
          "[0, 4], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 32], [0, 1]]}>",
          1024, OGT, NINF, "sm_90");
    index_ty = "i32";
    ck_assert_int_eq(b.plan.select_alu[1], 1);
    free(b.m);
}
END_TEST

static Suite *argcmp_suite(void)
{
    Suite *s = suite_create("argcmp");
    TCase *tc = tcase_create("ties");
    tcase_add_test(tc, tie_across_slots);
    tcase_add_test(tc, tie_across_lanes);
    tcase_add_test(tc, tie_across_subgroups);
    tcase_add_test(tc, init_wins_ties);
    tcase_add_test(tc, non_strict_comparator);
    tcase_add_test(tc, butterfly_takes_partner_on_tie);
    tcase_add_test(tc, ballot_hazard_two_rows);
    tcase_add_test(tc, no_hazard_one_row);
    tcase_add_test(tc, tile_and_fuse_walks_in_order);
    tcase_add_test(tc, wide_index_selects_take_two_on_amd);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(argcmp_suite)
