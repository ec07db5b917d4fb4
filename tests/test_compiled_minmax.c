/* test_compiled_minmax.c: arith.maximumf and minimumf as IREE's code
 * computes them.  IREE replaces them, and vector reductions of those
 * kinds, with maxnumf and minnumf (Common/ReplaceSlowMinMaxOps.cpp) on
 * every AMD target (ConvertToROCDL.cpp) and on NVIDIA below sm_80
 * (ConvertToNVVM.cpp): a NaN element is then dropped, where maximumf
 * propagates it.  The functional run computes what the target's code
 * does (ls_problem_as_compiled), the lanes and the reference alike; here
 * a row with a NaN, reduced on gfx942 and on sm_90, and a body's ReLU. */
#include <check.h>
#include <math.h>

#include "engine_util.h"
#include "lanescope/functional.h"
#include "lanescope/npy.h"
#include "lanescope/plan.h"
#include "lanescope/value.h"

START_TEST(targets_that_replace_them)
{
    const char *yes[] = {"gfx942", "gfx950", "gfx1100", "gfx1201", "gfx90a", "sm_70", "sm_60"};
    const char *no[] = {"sm_80", "sm_90", "sm_120"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        ls_plan_target t = ls_plan_target_from_arch(yes[i]);
        ck_assert_msg(ls_plan_target_replaces_minmax(t), "%s", yes[i]);
        ck_assert_int_eq(ls_combiner_as_compiled(t, LS_COMB_MAXIMUMF), LS_COMB_MAXNUMF);
        ck_assert_int_eq(ls_combiner_as_compiled(t, LS_COMB_MINIMUMF), LS_COMB_MINNUMF);
        ck_assert_int_eq(ls_combiner_as_compiled(t, LS_COMB_ADD), LS_COMB_ADD);
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        ls_plan_target t = ls_plan_target_from_arch(no[i]);
        ck_assert_msg(!ls_plan_target_replaces_minmax(t), "%s", no[i]);
        ck_assert_int_eq(ls_combiner_as_compiled(t, LS_COMB_MAXIMUMF), LS_COMB_MAXIMUMF);
    }
}
END_TEST

/* 4 x `cols` f32, element (1, 77) a NaN, the others 0.5 + (i mod 97) /
 * 200: row 1 without the NaN peaks at 0.5 + 96 / 200 */
static void nan_input(ls_npy *a, int64_t cols)
{
    memset(a, 0, sizeof *a);
    a->type = LS_ET_F32;
    a->rank = 2;
    a->shape[0] = 4;
    a->shape[1] = cols;
    a->count = 4 * cols;
    float *v = ls_xcalloc((size_t)a->count, sizeof *v);
    for (int64_t i = 0; i < a->count; i++)
        v[i] = 0.5f + (float)(i % 97) / 200.0f;
    v[1 * cols + 77] = NAN;
    a->data = (unsigned char *)v;
}

/* text's reduction run on arch over the NaN input, checked; its 4 outputs */
static void run_on(const char *text, const char *arch, int64_t cols, double *out)
{
    ls_problem *p;
    ls_derived *dv;
    ls_plan plan;
    plan_text(text, arch, &p, &dv, &plan);
    ls_npy a;
    nan_input(&a, cols);
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_npy_check(&a, p, "nan.npy", &d) == LS_OK, "%s", d.msg);
    ls_value vals[4];
    ls_functional_opts opts = {.outputs = vals};
    ls_functional_result res;
    ls_input_source in = {.seed = 1, .npy = &a};
    ck_assert_msg(ls_functional_run_opts(&plan, in, 0, -1, &opts, &res, &d) == LS_OK, "%s: %s",
                  arch, d.msg);
    for (int i = 0; i < 4; i++)
        out[i] = ls_value_to_double(vals[i], LS_ET_F32);
    ls_npy_free(&a);
    free(dv);
    free(p);
}

START_TEST(a_nan_is_dropped_where_replaced)
{
    char text[2048];
    double amd[4], nv[4];
    run_on(op_reduce_text(text, sizeof text, "f32", "arith.maximumf", 64, 4, 1), "gfx942", 4096,
           amd);
    run_on(op_reduce_text(text, sizeof text, "f32", "arith.maximumf", 32, 4, 1), "sm_90", 4096, nv);
    /* gfx942: maxnumf, the row's max without the NaN; sm_90: maximumf */
    ck_assert(!isnan(amd[1]));
    ck_assert_float_eq((float)amd[1], 0.5f + 96.0f / 200.0f);
    ck_assert(isnan(nv[1]));
    for (int i = 0; i < 4; i += 2) /* rows without a NaN agree */
        ck_assert(amd[i] == nv[i]);
    /* minimumf likewise */
    run_on(op_reduce_text(text, sizeof text, "f32", "arith.minimumf", 64, 4, 1), "gfx942", 4096,
           amd);
    run_on(op_reduce_text(text, sizeof text, "f32", "arith.minimumf", 32, 4, 1), "sm_90", 4096, nv);
    ck_assert_float_eq((float)amd[1], 0.5f);
    ck_assert(isnan(nv[1]));
}
END_TEST

START_TEST(a_body_relu_is_replaced_too)
{
    /* sum(max(x, 0)): gfx942's maxnumf(NaN, 0) is 0, the row sum stays a
     * number; sm_90's maximumf gives NaN */
    char text[2048];
    double amd[4], nv[4];
    for (int t = 0; t < 2; t++) {
        int w = t == 0 ? 64 : 32;
        snprintf(text, sizeof text,
                 "func.func @f() attributes {translation_info = "
                 "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute "
                 "workgroup_size = [%d, 1, 1] subgroup_size = %d>} {\n"
                 "%%z = arith.constant 0.0 : f32\n"
                 "%%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
                 "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} "
                 "ins(%%a : tensor<4x1024xf32>) outs(%%b : tensor<4xf32>) attrs = "
                 "{lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 0], "
                 "partial_reduction = [0, %d], thread = [0, 4], lane_basis = [[1, %d], [0, 1]], "
                 "subgroup_basis = [[1, 1], [0, 1]]}>} {\n^bb0(%%in: f32, %%o: f32):\n"
                 "  %%m = arith.maximumf %%in, %%z : f32\n  %%s = arith.addf %%m, %%o : f32\n"
                 "  linalg.yield %%s : f32\n} -> tensor<4xf32>\n}\n",
                 w, w, 4 * w, w);
        run_on(text, t == 0 ? "gfx942" : "sm_90", 1024, t == 0 ? amd : nv);
    }
    ck_assert(!isnan(amd[1]));
    ck_assert(isnan(nv[1]));
    /* a row without a NaN: the same sum, rounded in each target's order */
    ck_assert(fabs(amd[0] - nv[0]) <= 1e-4 * fabs(nv[0]));
    /* row 1's: the others' sum, the NaN counted as 0 */
    ck_assert(amd[1] > 0.9 * amd[0] && amd[1] < 1.1 * amd[0]);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("compiled_minmax");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, targets_that_replace_them);
    tcase_add_test(tc, a_nan_is_dropped_where_replaced);
    tcase_add_test(tc, a_body_relu_is_replaced_too);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(suite)
