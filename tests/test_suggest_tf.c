/* test_suggest_tf.c: the configs IREE gives before or instead of its
 * reduction heuristic, worked out by hand from IREE's source: outer
 * reductions and refused reductions on TileAndFuse (setRootConfig,
 * ConfigUtils.cpp setTileAndFuseLoweringConfig), each simulated through its
 * VectorDistribute view; arg_compare's configs (setReductionConfig, and
 * setArgCompareConfig's TileAndFuse fallback); and the sweep ranking a
 * TileAndFuse choice among the VectorDistribute ones. */
#include "lanescope/functional.h"
#include "lanescope/sweep.h"
#include "suggest_util.h"

/* ------------------------------------------------ outer reductions */

/* IREE's setRootConfig (LLVMGPU/KernelConfig.cpp) gives an outer reduction
 * (an input indexed by a permutation whose first dim is reduced)
 * TileAndFuse before the reduction heuristic; its config follows
 * ConfigUtils.cpp setTileAndFuseLoweringConfig.  Shapes after IREE's
 * config_tile_and_fuse_outer_reduction.mlir, plus variants. */
#define OUTER_GENERIC(MAP, ITER, IN_T, OUT_T, ELEM)                                               \
    "func.func @outer() {\n" BIND                                                                 \
    "  %f = linalg.fill ins(%cst : " ELEM ") outs(%e : " OUT_T ") -> " OUT_T "\n"                   \
    "  %r = linalg.generic {indexing_maps = [" MAP "], iterator_types = [" ITER "]} ins(%in : "   \
    IN_T ") outs(%f : " OUT_T ") {\n  ^bb0(%a: " ELEM ", %b: " ELEM ")" ":\n    %s = arith.addf "  \
    "%a, %b : " ELEM "\n    linalg.yield %s : " ELEM "\n  } -> " OUT_T "\n"                        \
    "  iree_tensor_ext.dispatch.tensor.store %r, %o : " OUT_T " -> !x\n  return\n}\n"

#define OUTER_REDUCE(IN_T, OUT_T)                                                                 \
    "func.func @outer() {\n" BIND                                                                 \
    "  %f = linalg.fill ins(%cst : f32) outs(%e : " OUT_T ") -> " OUT_T "\n"                        \
    "  %r = linalg.reduce ins(%in : " IN_T ") outs(%f : " OUT_T ") dimensions = [0]\n"            \
    "    (%a: f32, %b: f32) {\n      %s = arith.addf %a, %b : f32\n      linalg.yield %s : "     \
    "f32\n    }\n"                                                                                \
    "  iree_tensor_ext.dispatch.tensor.store %r, %o : " OUT_T " -> !x\n  return\n}\n"

#define TRANSPOSED "affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>"
#define PAR_RED "\"parallel\", \"reduction\""

typedef struct {
    const char *what, *text, *target;
    const char *in; /* the input whose first dim is reduced, and that dim */
    int dim;
    int64_t wg, sg;
    const char *config;
    /* `sim` runs the TileAndFuse program (layout_tilefuse.c): loop trips,
     * and input loads of `width` elements per thread per trip, by hand
     * (the thread tile along the input's contiguous dim is one vector; the
     * reduction tile along another dim, one load a row); 0: dynamic */
    int64_t iters, loads, width;
} outer_case;

static const outer_case outers[] = {
    /* IREE's case: 16384 rows in d0, 64 threads x vector 4 = 256 per
     * workgroup (64 workgroups, so no shrinking); d1 = 512 tiled by 4. */
    {"IREE's outer_reduction, gfx942",
     OUTER_GENERIC(TRANSPOSED, PAR_RED, "tensor<512x16384xf32>", "tensor<16384xf32>", "f32"),
     "gfx942", "%in", 1, 64, 64,
     "#iree_gpu.lowering_config<{reduction = [0, 4], thread = [4, 0], workgroup = [256, 0]}>",
     512 / 4, 4, 4},
    /* Wave32 first: 32 threads x 4 = 128 per workgroup. */
    {"the same on gfx1100",
     OUTER_GENERIC(TRANSPOSED, PAR_RED, "tensor<512x16384xf32>", "tensor<16384xf32>", "f32"),
     "gfx1100", "%in", 1, 32, 32,
     "#iree_gpu.lowering_config<{reduction = [0, 4], thread = [4, 0], workgroup = [128, 0]}>",
     512 / 4, 4, 4},
    /* linalg.reduce over dim 0: the loops keep the tensor's order. */
    {"linalg.reduce dimensions = [0]",
     OUTER_REDUCE("tensor<512x16384xf32>", "tensor<16384xf32>"), "gfx942", "%in", 0, 64, 64,
     "#iree_gpu.lowering_config<{reduction = [4, 0], thread = [0, 4], workgroup = [0, 256]}>",
     512 / 4, 4, 4},
    /* f16 (vector 8 shrunk to 4: 8 x 64 > 80); d2 = 80: 16 per workgroup, 4
     * per thread -> 4 threads, 16 left for d1 = 96 (16, no vectors); d0 = 10
     * tiled by its smallest prime factor 2. */
    {"f16, two parallel loops, mi300x",
     OUTER_GENERIC("affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, "
                   "d2)>",
                   "\"reduction\", \"parallel\", \"parallel\"", "tensor<10x96x80xf16>",
                   "tensor<96x80xf16>", "f16"),
     "mi300x", "%in", 0, 64, 64,
     "#iree_gpu.lowering_config<{reduction = [2, 0, 0], thread = [0, 1, 4], workgroup = [0, 16, "
     "16]}>",
     10 / 2, 2, 4},
    /* 5000 has no power-of-two factor above 8: no lossless split of 64
     * threads, so the loss factor falls to 1 (64 threads, 8 idle in the last
     * tile); d0 = 3 tiled by 3. */
    {"3x5000: idle threads allowed",
     OUTER_REDUCE("tensor<3x5000xf32>", "tensor<5000xf32>"), "gfx942", "%in", 0, 64, 64,
     "#iree_gpu.lowering_config<{reduction = [3, 0], thread = [0, 1], workgroup = [0, 64]}>",
     1, 3, 1},
    /* All parallel loops dynamic: one subgroup over the last, masked. */
    {"dynamic sizes",
     OUTER_GENERIC(TRANSPOSED, PAR_RED, "tensor<?x?xf32>", "tensor<?xf32>", "f32"), "gfx942",
     "%in", 1, 64, 64,
     "#iree_gpu.lowering_config<{reduction = [0, 4], thread = [1, 0], workgroup = [64, 0]}>",
     0, 0, 0},
};

/* IREE's TileAndFuse config of suggestion s applied to problem 0 of m on
 * target, derived (through its VectorDistribute view) and planned. */
static ls_derived *tf_plan(const ls_suggestion *s, ls_module *m, const char *target,
                           ls_plan *plan)
{
    ls_problem *p = &m->problems[0];
    ck_assert(ls_target_lookup(target, &p->target));
    p->has_target = true;
    ls_suggest_apply_tile_and_fuse(s, p);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert_msg(ls_derive(p, dv, &d) == LS_OK, "%s", d.msg);
    ck_assert(dv->tile_and_fuse);
    ck_assert_msg(ls_plan_build(p, dv, ls_plan_target_from_arch(p->target.arch), plan, &d) ==
                      LS_OK,
                  "%s", d.msg);
    ck_assert_int_eq(plan->n_subgroup_reduces, 0); /* each thread alone */
    ck_assert(!plan->cross_subgroup);
    return dv;
}

START_TEST(outer_reduction_tile_and_fuse)
{
    const outer_case *c = &outers[_i];
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ck_assert_msg(suggest_text(c->text, c->target, s, &d, NULL) == LS_ERR_INVALID,
                  "%s: accepted", c->what);
    char want[1024];
    snprintf(want, sizeof want,
             "IREE's reduction heuristic rejects this dispatch: IREE picks TileAndFuse for this "
             "outer reduction (%s's first dim d%d is reduced; setRootConfig, "
             "LLVMGPU/KernelConfig.cpp): #iree_codegen.translation_info<pipeline = "
             "#iree_gpu.pipeline<TileAndFuse> workgroup_size = [%lld, 1, 1] subgroup_size = "
             "%lld> %s",
             c->in, c->dim, (long long)c->wg, (long long)c->sg, c->config);
    ck_assert_str_eq(d.msg, want);
    ck_assert_int_eq(d.line, 4); /* the reduction, not the function */
    /* No VectorDistribute config is proposed. */
    ck_assert_int_eq(s->n_configs, 0);
    ck_assert(s->tile_and_fuse);
    if (c->iters > 0) { /* and the TileAndFuse program runs, checked */
        ls_module *m;
        suggest_text(c->text, c->target, s, &d, &m);
        ck_assert_int_ge(m->n_problems, 1);
        ls_plan plan;
        ls_derived *dv = tf_plan(s, m, c->target, &plan);
        ck_assert_int_eq(dv->workgroup_size, c->wg);
        ck_assert_int_eq(plan.iterations, c->iters);
        ck_assert_int_eq(plan.inputs[0].loads, c->loads);
        ck_assert_int_eq(plan.inputs[0].width, c->width);
        ls_functional_result fr;
        ck_assert_msg(ls_functional_run(&plan, (ls_input_source){3, NULL, {NULL}}, 0, 2, &fr,
                                        &d) == LS_OK,
                      "%s: %s", c->what, d.msg);
        ck_assert_int_gt(fr.outputs_checked, 0);
        free(dv);
        free(m);
    }
    free(s);
}
END_TEST

/* IREE's small_reduction (reduction_pipeline_cuda.mlir, sm_60): rows of 13
 * that no subgroup size divides, so setReductionConfig refuses and
 * setRootConfig gives the generic TileAndFuse.  IREE's CHECK lines read
 * vector<4x13xf32> per thread and reduce it to vector<4xf32>: 4 rows a thread
 * (thread = [4, 0]), the 13 whole (reduction = [0, 13]); 32 threads x 4 =
 * 128 rows a workgroup, 1024 / 128 = 8 workgroups.  sim runs it. */
START_TEST(refused_reduction_gets_tile_and_fuse)
{
    static const char *text =
        OUTER_GENERIC("affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>", PAR_RED,
                      "tensor<1024x13xf32>", "tensor<1024xf32>", "f32");
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ls_module *m;
    ck_assert(suggest_text(text, "sm_60", s, &d, &m) == LS_ERR_INVALID);
    ck_assert_str_eq(d.msg,
                     "IREE's reduction heuristic rejects this dispatch: no subgroup size choice of "
                     "sm_60 ([32]) divides the reduction size 13; IREE then gives it TileAndFuse "
                     "(setTileAndFuseLoweringConfig, Dialect/GPU/TargetUtils/ConfigUtils.cpp): "
                     "#iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> "
                     "workgroup_size = [32, 1, 1] subgroup_size = 32> "
                     "#iree_gpu.lowering_config<{reduction = [0, 13], thread = [4, 0], workgroup "
                     "= [128, 0]}>");
    ck_assert(s->tile_and_fuse);
    ls_plan plan;
    ls_derived *dv = tf_plan(s, m, "sm_60", &plan);
    ck_assert_int_eq(dv->total_workgroups, 8);
    ck_assert_int_eq(plan.iterations, 1);
    ck_assert_int_eq(plan.inputs[0].width, 4 * 13); /* the thread's 4 x 13, one run */
    ck_assert_int_eq(plan.results_per_thread, 4);
    ls_functional_result fr;
    ck_assert(ls_functional_run(&plan, (ls_input_source){5, NULL, {NULL}}, 0, 8, &fr, &d) ==
              LS_OK);
    ck_assert_int_eq(fr.outputs_checked, 1024);
    free(dv);
    free(m);
    free(s);
}
END_TEST

/* IREE's reduction_f64_sm80_no_vector_distribute: 64-bit values cannot be
 * shuffled on NVIDIA, so the heuristic refuses and TileAndFuse takes it --
 * whose threads never shuffle, so the plan builds where VectorDistribute's
 * would be refused. */
START_TEST(f64_on_nvidia_runs_tile_and_fuse)
{
    static const char *text =
        OUTER_GENERIC("affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>", PAR_RED,
                      "tensor<8x4096xf64>", "tensor<8xf64>", "f64");
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ls_module *m;
    ck_assert(suggest_text(text, "sm_80", s, &d, &m) == LS_ERR_INVALID);
    ck_assert_msg(strstr(d.msg, "sm_80 cannot shuffle more than 32 bits") != NULL, "%s", d.msg);
    ck_assert_msg(strstr(d.msg, "IREE then gives it TileAndFuse") != NULL, "%s", d.msg);
    ck_assert(s->tile_and_fuse);
    ls_plan plan;
    ls_derived *dv = tf_plan(s, m, "sm_80", &plan);
    ls_functional_result fr;
    ck_assert(ls_functional_run(&plan, (ls_input_source){5, NULL, {NULL}}, 0,
                                dv->total_workgroups, &fr, &d) == LS_OK);
    ck_assert_int_eq(fr.outputs_checked, 8);
    free(dv);
    free(m);
    free(s);
}
END_TEST

/* IREE's inner_reduction: 16384 rows of 512, reduced innermost -- not an
 * outer reduction, so the reduction heuristic keeps it: 16384 > 512 x 4
 * rows -> cap 64; WG = gcd(512 / 4, 64) = 64; partial = gcd(256, 512). */
START_TEST(inner_reduction_keeps_vector_distribute)
{
    static const char *text =
        OUTER_GENERIC("affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>", PAR_RED,
                      "tensor<16384x512xf32>", "tensor<16384xf32>", "f32");
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ck_assert_msg(suggest_text(text, "gfx942", s, &d, NULL) == LS_OK, "%s", d.msg);
    char buf[1024];
    ls_suggest_format_translation(s, buf, sizeof buf);
    ck_assert_str_eq(buf, "#iree_codegen.translation_info<pipeline = "
                          "#iree_gpu.pipeline<VectorDistribute> workgroup_size = [64, 1, 1] "
                          "subgroup_size = 64, {gpu_pipeline_options = "
                          "#iree_gpu.pipeline_options<>}>");
    ck_assert_int_eq(s->n_configs, 1);
    expect_config(&s->configs[0],
                  "#iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = "
                  "[0, 256], subgroup_basis = [[1, 1], [0, 1]], thread = [0, 4], workgroup = [1, "
                  "0]}>");
    for (int i = 0; i < s->n_steps; i++)
        ck_assert_msg(strstr(s->steps[i], "TileAndFuse") == NULL, "step: %s", s->steps[i]);
    free(s);
}
END_TEST

/* A full reduction is an outer one too (its only dim is reduced), but with
 * no parallel loop TileAndFuse declines and the reduction heuristic runs. */
START_TEST(full_reduction_declines_tile_and_fuse)
{
    static const char *text = OUTER_REDUCE("tensor<8192xf32>", "tensor<f32>");
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ck_assert_msg(suggest_text(text, "gfx942", s, &d, NULL) == LS_OK, "%s", d.msg);
    ck_assert_int_eq(s->workgroup_size, 1024);
    ck_assert_int_eq(s->n_configs, 1);
    ck_assert(s->configs[0].is_reduction);
    bool declined = false;
    for (int i = 0; i < s->n_steps; i++)
        declined |= strstr(s->steps[i], "TileAndFuse declines it") != NULL;
    ck_assert(declined);
    free(s);
}
END_TEST

/* ---------------------------------------------------------------- sweep */

/* arg_compare (docs/arg-compare-lowering.md §1): a dispatch with stores
 * goes to the reduction heuristic with no single-combiner gate, the bit
 * width of the values (or the wider of values and explicit indices); a
 * plain function, or one the heuristic refuses, to setArgCompareConfig's
 * TileAndFuse.  Configs worked by hand; the TileAndFuse ones are the CHECK
 * lines of IREE's LLVMGPU/test/ROCDL/config_argcompare.mlir. */
#define ARGCMP(in_t, out_v, out_i, cmp, dim, elem, stores)                       \
    "func.func @f(%in: " in_t ", %ov: " out_v ", %oi: " out_i ") {\n"                   \
    "  %c0 = arith.constant 0 : index\n"                                                        \
    "  %b = hal.interface.binding.subspan layout(#l) binding(0) offset(%c0) : "                 \
    "!iree_tensor_ext.dispatch.tensor<writeonly:" out_i ">\n"                                   \
    "  %r:2 = iree_linalg_ext.arg_compare dimension(" dim ") ins(%in : " in_t                     \
    ") outs(%ov, %oi : " out_v ", " out_i ") {\n"                                               \
    "  ^bb0(%a: " elem ", %x: " elem "):\n"                                                      \
    "    %c = " cmp ", %a, %x : " elem "\n"                                                     \
    "    iree_linalg_ext.yield %c : i1\n"                                                       \
    "  } -> " out_v ", " out_i "\n" stores "  return\n}\n"
#define STORE(t) "  iree_tensor_ext.dispatch.tensor.store %r#1, %b, offsets = [], sizes = [], " \
                 "strides = [] : " t " -> !iree_tensor_ext.dispatch.tensor<writeonly:" t ">\n"

typedef struct {
    const char *what, *text, *target;
    const char *want; /* the config, or for TileAndFuse the message's attributes */
    bool tile_and_fuse;
} argcmp_case;

static const argcmp_case argcmps[] = {
    /* 4096 f32 -> 4 per load, 1024 threads (16 subgroups), chunk 4096 */
    {"1-d to a scalar",
     ARGCMP("tensor<4096xf32>", "tensor<f32>", "tensor<i32>", "arith.cmpf ogt", "0",
            "f32", STORE("tensor<i32>")),
     "gfx942",
     "#iree_gpu.lowering_config<{lane_basis = [[64], [0]], partial_reduction = [4096], "
     "subgroup_basis = [[16], [0]], thread = [4], workgroup = [0]}>",
     false},
    /* f16: 8 per load, 2048 / 8 = 256 threads */
    {"8x2048 f16",
     ARGCMP("tensor<8x2048xf16>", "tensor<8xf16>", "tensor<8xi32>", "arith.cmpf ogt",
            "1", "f16", STORE("tensor<8xi32>")),
     "gfx942",
     "#iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 2048], "
     "subgroup_basis = [[1, 4], [0, 1]], thread = [0, 8], workgroup = [1, 0]}>",
     false},
    /* f16 values with explicit i32 indices of the same shape: 32 bits, 4 per
     * load, 512 threads */
    {"explicit i32 indices widen the bit width",
     "func.func @f(%in: tensor<8x2048xf16>, %idx: tensor<8x2048xi32>, %ov: tensor<8xf16>, "
     "%oi: tensor<8xi32>) {\n"
     "  %c0 = arith.constant 0 : index\n"
     "  %b = hal.interface.binding.subspan layout(#l) binding(0) offset(%c0) : "
     "!iree_tensor_ext.dispatch.tensor<writeonly:tensor<8xi32>>\n"
     "  %r:2 = iree_linalg_ext.arg_compare dimension(1) ins(%in, %idx : tensor<8x2048xf16>, "
     "tensor<8x2048xi32>) outs(%ov, %oi : tensor<8xf16>, tensor<8xi32>) {\n"
     "  ^bb0(%a: f16, %x: f16):\n"
     "    %c = arith.cmpf ogt, %a, %x : f16\n"
     "    iree_linalg_ext.yield %c : i1\n"
     "  } -> tensor<8xf16>, tensor<8xi32>\n" STORE("tensor<8xi32>") "  return\n}\n",
     "gfx942",
     "#iree_gpu.lowering_config<{lane_basis = [[1, 64], [0, 1]], partial_reduction = [0, 2048], "
     "subgroup_basis = [[1, 8], [0, 1]], thread = [0, 4], workgroup = [1, 0]}>",
     false},
    /* i64 on gfx942 (AMD shuffles 64 bits): 2 per load, 2048 threads capped
     * to gcd(2048, 1024) = 1024, chunk gcd(2048, 4096) = 2048 */
    {"1-d i64 on gfx942",
     ARGCMP("tensor<4096xi64>", "tensor<i64>", "tensor<i32>", "arith.cmpi sgt", "0",
            "i64", STORE("tensor<i32>")),
     "gfx942",
     "#iree_gpu.lowering_config<{lane_basis = [[64], [0]], partial_reduction = [2048], "
     "subgroup_basis = [[16], [0]], thread = [2], workgroup = [0]}>",
     false},
    /* config_argcompare.mlir's TileAndFuse cases (plain functions: no
     * dispatch store) */
    {"2x3x4 d0: d2 = 4 and d1 = 3 do not divide 128 / 4",
     ARGCMP("tensor<2x3x4xf32>", "tensor<3x4xf32>", "tensor<3x4xi64>", "arith.cmpf ogt",
            "0", "f32", ""),
     "gfx942",
     "workgroup_size = [64, 1, 1] subgroup_size = 64> #iree_gpu.lowering_config<{thread = [0, 1, "
     "1], workgroup = [0, 1, 4]}>",
     true},
    {"8x100 d1",
     ARGCMP("tensor<8x100xf32>", "tensor<8xf32>", "tensor<8xi32>", "arith.cmpf ogt", "1",
            "f32", ""),
     "gfx942",
     "workgroup_size = [64, 1, 1] subgroup_size = 64> #iree_gpu.lowering_config<{thread = [1, "
     "0], workgroup = [8, 0]}>",
     true},
    {"5 to a scalar: one thread",
     ARGCMP("tensor<5xf32>", "tensor<f32>", "tensor<i32>", "arith.cmpf ogt", "0", "f32",
            ""),
     "gfx942",
     "workgroup_size = [1, 1, 1] subgroup_size = 64> #iree_gpu.lowering_config<{thread = [0], "
     "workgroup = [0]}>",
     true},
    /* with a store, but f64 on sm_80 cannot shuffle: the heuristic refuses,
     * TileAndFuse takes it; 128 threads, 16 rows packed, 32 = one subgroup */
    {"f64 on sm_80",
     ARGCMP("tensor<16x256xf64>", "tensor<16xf64>", "tensor<16xi32>", "arith.cmpf ogt",
            "1", "f64", STORE("tensor<16xi32>")),
     "sm_80",
     "workgroup_size = [32, 1, 1] subgroup_size = 32> #iree_gpu.lowering_config<{thread = [1, "
     "0], workgroup = [16, 0]}>",
     true},
};

START_TEST(arg_compare_configs)
{
    const argcmp_case *c = &argcmps[_i];
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ls_module *m;
    ls_status st = suggest_text(c->text, c->target, s, &d, &m);
    if (c->tile_and_fuse) {
        ck_assert_msg(st == LS_ERR_INVALID, "%s: accepted", c->what);
        ck_assert_msg(strstr(d.msg, "IREE picks TileAndFuse for this arg_compare") != NULL &&
                          strstr(d.msg, c->want) != NULL,
                      "%s: %s", c->what, d.msg);
        ck_assert_int_eq(s->n_configs, 0);
    } else {
        ck_assert_msg(st == LS_OK, "%s: %s", c->what, d.msg);
        const ls_op_config *cfg = ls_suggest_config_of(s, 0);
        ck_assert_msg(cfg != NULL, "%s", c->what);
        expect_config(cfg, c->want);
        /* the suggested config lowers and simulates */
        ls_problem *p = &m->problems[0];
        ck_assert(p->argcmp.on);
    }
    free(m);
    free(s);
}
END_TEST

/* Where IREE's choice is TileAndFuse (an outer reduction), the sweep ranks
 * that config among the VectorDistribute ones. */
START_TEST(sweep_ranks_tile_and_fuse_choice)
{
    static const char *text =
        OUTER_GENERIC(TRANSPOSED, PAR_RED, "tensor<64x4096xf32>", "tensor<4096xf32>", "f32");
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag d;
    ls_module *m;
    ck_assert(suggest_text(text, "gfx942", s, &d, &m) == LS_ERR_INVALID && s->tile_and_fuse);
    ls_problem *p = &m->problems[0];
    ck_assert(ls_target_lookup("gfx942", &p->target));
    p->has_target = true;
    ls_hw hw;
    ls_diag_clear(&d);
    ck_assert_msg(ls_hw_load("mi300x", &hw, &d) == LS_OK, "%s", d.msg);
    ls_sweep sw;
    ck_assert_msg(ls_sweep_enumerate(p, &m->dispatches[0], &p->target, 8, &sw, &d) == LS_OK, "%s",
                  d.msg);
    ck_assert(!sw.iree_rejected);
    int iree = 0, tf = 0;
    for (size_t i = 0; i < sw.n; i++) {
        iree += sw.points[i].is_iree;
        tf += sw.points[i].tile_and_fuse;
    }
    ck_assert_int_eq(iree, 1);
    ck_assert_int_eq(tf, 1);
    ck_assert(sw.points[sw.iree].tile_and_fuse);
    ck_assert_msg(ls_sweep_run(p, &hw, &sw, 2, NULL, NULL, &d) == LS_OK, "%s", d.msg);
    ck_assert_msg(sw.points[sw.iree].status == LS_OK, "%s", sw.points[sw.iree].error);
    ck_assert_int_gt(sw.points[sw.iree].cycles, 0);
    size_t order[16];
    size_t rank = ls_sweep_rank(&sw, order);
    ck_assert(rank >= 1 && rank <= sw.n);
    ls_sweep_free(&sw);
    free(m);
    free(s);
}
END_TEST

static Suite *suggest_tf_suite(void)
{
    Suite *s = suite_create("suggest_tf");
    TCase *tc = tcase_create("tile_and_fuse");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, refused_reduction_gets_tile_and_fuse);
    tcase_add_test(tc, f64_on_nvidia_runs_tile_and_fuse);
    tcase_add_loop_test(tc, outer_reduction_tile_and_fuse, 0,
                        (int)(sizeof outers / sizeof outers[0]));
    tcase_add_test(tc, inner_reduction_keeps_vector_distribute);
    tcase_add_test(tc, full_reduction_declines_tile_and_fuse);
    tcase_add_test(tc, sweep_ranks_tile_and_fuse_choice);
    tcase_add_loop_test(tc, arg_compare_configs, 0, sizeof argcmps / sizeof argcmps[0]);
    suite_add_tcase(s, tc);
    return s;
}

LS_TEST_MAIN(suggest_tf_suite)
