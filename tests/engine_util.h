/* engine_util.h: what the engine's test files share -- a one-reduction
 * dispatch text, and lowering a text or a bundled example to a plan.
 * Header-only, static: each test program includes it once. */
#ifndef LANESCOPE_TEST_ENGINE_UTIL_H
#define LANESCOPE_TEST_ENGINE_UTIL_H

#include "lanescope/engine.h"
#include "testutil.h"

/* A model with round numbers, so a critical path can be computed by hand. */
static const char *round_model __attribute__((unused)) = LS_TEST_ROUND_MODEL("1", "256");

static inline const char *reduce_text(char *buf, size_t size, int64_t rows, int64_t cols,
                                      const char *cfg, int64_t wg_threads)
{
    snprintf(buf, size,
             "func.func @f() attributes {translation_info = "
             "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size "
             "= [%lld, 1, 1] subgroup_size = 64>} {\n"
             "%%r = linalg.reduce ins(%%a : tensor<%lldx%lldxf32>) outs(%%b : tensor<%lldxf32>) "
             "dimensions = [1] {lowering_config = #iree_gpu.lowering_config<{%s}>} (%%in: f32, "
             "%%o: f32) {\n  %%1 = arith.addf %%in, %%o : f32\n  linalg.yield %%1 : f32\n}\n}\n",
             (long long)wg_threads, (long long)rows, (long long)cols, (long long)rows, cfg);
    return buf;
}

/* A 4 x 4096 reduction of `ty` with `op` (an arith op on %in and %o) by
 * one subgroup of `sg` lanes, each `thread` elements (packed inner ones)
 * and `batch` reduced registers an iteration. */
static inline const char *op_reduce_text(char *buf, size_t size, const char *ty, const char *op,
                                         int sg, int thread, int batch)
{
    snprintf(buf, size,
             "func.func @f() attributes {translation_info = "
             "#iree_codegen.translation_info<pipeline = LLVMGPUVectorDistribute workgroup_size "
             "= [%d, 1, 1] subgroup_size = %d>} {\n"
             "%%r = linalg.reduce ins(%%a : tensor<4x4096x%s>) outs(%%b : tensor<4x%s>) "
             "dimensions = [1] {lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 0], "
             "partial_reduction = [0, %d], thread = [0, %d], lane_basis = [[1, %d], [0, 1]], "
             "subgroup_basis = [[1, 1], [0, 1]]}>} (%%in: %s, %%o: %s) {\n"
             "  %%1 = %s %%in, %%o : %s\n  linalg.yield %%1 : %s\n}\n}\n",
             sg, sg, ty, ty, sg * thread * batch, thread, sg, ty, ty, op, ty, ty);
    return buf;
}

/* Load text's first reduction, derive it and lower it for arch; the
 * caller frees *p and *dv. */
static inline void plan_text(const char *text, const char *arch, ls_problem **p,
                             ls_derived **dv, ls_plan *plan)
{
    ls_diag d;
    ls_module *m = load_text(text, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    *p = ls_xcalloc(1, sizeof **p);
    **p = m->problems[0];
    free(m);
    *dv = ls_xcalloc(1, sizeof **dv);
    ck_assert_msg(ls_derive(*p, *dv, &d) == LS_OK, "%s", d.msg);
    ck_assert_msg(ls_plan_build(*p, *dv, ls_plan_target_from_arch(arch), plan, &d) == LS_OK, "%s",
                  d.msg);
}

static inline ls_status simulate(const char *text, const ls_hw *hw, ls_sim_result *r,
                                 ls_plan *plan_out)
{
    ls_diag d;
    ls_diag_clear(&d);
    ls_problem *p;
    ls_derived *dv;
    ls_plan plan;
    plan_text(text, hw->arch, &p, &dv, &plan);
    ls_status st = ls_engine_run(&plan, hw, r, NULL, &d);
    ck_assert_msg(st == LS_OK, "%s", d.msg);
    if (plan_out)
        *plan_out = plan;
    free(dv);
    free(p);
    return st;
}

/* A bundled example's first reduction in *p, planned for arch (the plan
 * points at *p; the derived problem is the caller's to free). */
static inline ls_derived *example_plan(const char *name, const char *arch, ls_problem *p,
                                       ls_plan *plan)
{
    ls_diag d;
    ls_diag_clear(&d);
    ls_module *m = load_example(name, &d);
    *p = m->problems[0];
    free(m);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ck_assert_msg(ls_derive(p, dv, &d) == LS_OK, "%s", d.msg);
    ck_assert_msg(ls_plan_build(p, dv, ls_plan_target_from_arch(arch), plan, &d) == LS_OK, "%s",
                  d.msg);
    return dv;
}

#endif
