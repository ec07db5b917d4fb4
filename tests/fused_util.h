/* fused_util.h: what the tests of a dispatch's one kernel share (test_fused.c
 * times it, test_cuda_fused.c generates it): a decomposed softmax with the
 * configs given, a dispatch configured by IREE's heuristic for sm_90, an
 * RMSNorm's ops, and the kernel built from every reduction's plan. */
#ifndef LANESCOPE_TESTS_FUSED_UTIL_H
#define LANESCOPE_TESTS_FUSED_UTIL_H

#include "lanescope/fused.h"
#include "lanescope/hwmodel.h"
#include "lanescope/suggest.h"
#include "testutil.h"

#define RED_CFG                                                                                  \
    "#iree_gpu.lowering_config<{workgroup = [1, 0], partial_reduction = [0, 512], thread = [0, " \
    "4], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>"
/* two rows a workgroup: each thread holds both rows' results */
#define RED2_CFG                                                                                 \
    "#iree_gpu.lowering_config<{workgroup = [2, 0], partial_reduction = [0, 512], thread = [0, " \
    "4], lane_basis = [[1, 32], [0, 1]], subgroup_basis = [[1, 4], [0, 1]]}>"
#define EW_CFG                                                                                   \
    "#iree_gpu.lowering_config<{serial = [0, 512], thread = [0, 4], lane_basis = [[1, 32], [0, " \
    "1]], subgroup_basis = [[1, 4], [0, 1]]}>"

/* A decomposed softmax of 64 rows of 4096 f32 for sm_90, as IREE's
 * DecomposeSoftmax leaves it, each op with the config given (NULL: none);
 * 128 threads = 4 subgroups of 32, 4 elements a thread, 8 trips. */
static inline void softmax_ir_wg(char *buf, size_t n, int64_t wg, int64_t sg, const char *max_cfg,
                          const char *sum_cfg, const char *ew_cfg);

static inline void softmax_ir(char *buf, size_t n, const char *max_cfg, const char *sum_cfg,
                       const char *ew_cfg)
{
    softmax_ir_wg(buf, n, 128, 32, max_cfg, sum_cfg, ew_cfg);
}

/* ... with workgroup_size wg and subgroup_size sg */
static inline void softmax_ir_wg(char *buf, size_t n, int64_t wg, int64_t sg, const char *max_cfg,
                          const char *sum_cfg, const char *ew_cfg)
{
    char a[512] = "", b[512] = "", c[512] = "";
    if (max_cfg)
        snprintf(a, sizeof a, " attrs = {lowering_config = %s}", max_cfg);
    if (sum_cfg)
        snprintf(b, sizeof b, " attrs = {lowering_config = %s}", sum_cfg);
    if (ew_cfg)
        snprintf(c, sizeof c, " attrs = {lowering_config = %s}", ew_cfg);
    snprintf(
        buf, n,
        "#ti = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> "
        "workgroup_size = [%lld, 1, 1] subgroup_size = %lld>\n"
        "func.func @sm() attributes {translation_info = #ti} {\n"
        "  %%c0 = arith.constant 0 : index\n"
        "  %%nan = arith.constant 0xFFC00000 : f32\n"
        "  %%zero = arith.constant 0.000000e+00 : f32\n"
        "  %%in = hal.interface.binding.subspan layout(#l) binding(0) offset(%%c0) "
        "flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4096xf32>>\n"
        "  %%out = hal.interface.binding.subspan layout(#l) binding(1) offset(%%c0) : "
        "!iree_tensor_ext.dispatch.tensor<writeonly:tensor<64x4096xf32>>\n"
        "  %%x = iree_tensor_ext.dispatch.tensor.load %%in, offsets = [0, 0], sizes = [64, "
        "4096], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4096xf32>>"
        " -> tensor<64x4096xf32>\n"
        "  %%e1 = tensor.empty() : tensor<64xf32>\n"
        "  %%f0 = linalg.fill ins(%%nan : f32) outs(%%e1 : tensor<64xf32>) -> tensor<64xf32>\n"
        "  %%max = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%%x "
        ": tensor<64x4096xf32>) outs(%%f0 : tensor<64xf32>)%s {\n"
        "  ^bb0(%%a: f32, %%o: f32):\n"
        "    %%m = arith.maxnumf %%a, %%o : f32\n"
        "    linalg.yield %%m : f32\n"
        "  } -> tensor<64xf32>\n"
        "  %%f1 = linalg.fill ins(%%zero : f32) outs(%%e1 : tensor<64xf32>) -> tensor<64xf32>\n"
        "  %%sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
        "[\"parallel\", \"reduction\"]} ins(%%x, %%max : tensor<64x4096xf32>, tensor<64xf32>) "
        "outs(%%f1 : tensor<64xf32>)%s {\n"
        "  ^bb0(%%a: f32, %%mx: f32, %%o: f32):\n"
        "    %%d = arith.subf %%a, %%mx : f32\n"
        "    %%ex = math.exp %%d : f32\n"
        "    %%s = arith.addf %%ex, %%o : f32\n"
        "    linalg.yield %%s : f32\n"
        "  } -> tensor<64xf32>\n"
        "  %%e2 = tensor.empty() : tensor<64x4096xf32>\n"
        "  %%y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
        "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> "
        "(d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]} ins(%%x, %%max, %%sum : "
        "tensor<64x4096xf32>, tensor<64xf32>, tensor<64xf32>) outs(%%e2 : "
        "tensor<64x4096xf32>)%s {\n"
        "  ^bb0(%%a: f32, %%mx: f32, %%s: f32, %%o: f32):\n"
        "    %%d = arith.subf %%a, %%mx : f32\n"
        "    %%ex = math.exp %%d : f32\n"
        "    %%q = arith.divf %%ex, %%s : f32\n"
        "    linalg.yield %%q : f32\n"
        "  } -> tensor<64x4096xf32>\n"
        "  iree_tensor_ext.dispatch.tensor.store %%y, %%out, offsets = [0, 0], sizes = [64, "
        "4096], strides = [1, 1] : tensor<64x4096xf32> -> "
        "!iree_tensor_ext.dispatch.tensor<writeonly:tensor<64x4096xf32>>\n"
        "  return\n"
        "}\n",
        (long long)wg, (long long)sg, a, b, c);
}

/* A random config of that softmax for subgroups of sg lanes (the same for
 * the reductions and, as serial, the divide): a thread tile of 1..8, lanes
 * split over rows and columns, 1..4 subgroups, one or two passes of the
 * partial tile; the IR in ir, the reductions' config in red, the lanes on
 * rows and the subgroups out.  False when the tile does not divide 4096. */
static inline bool random_softmax(uint64_t *rng, int64_t sg, char *ir, size_t n, char *red,
                                  size_t rn, int64_t *lr_out, int64_t *sgs_out)
{
    int64_t t = (int64_t)1 << rng_range(rng, 0, 3);
    int64_t lr = (int64_t)1 << rng_range(rng, 0, 2), lc = sg / lr;
    int64_t sgs = (int64_t)1 << rng_range(rng, 0, 2);
    int64_t part = t * lc * sgs * rng_range(rng, 1, 2);
    if (4096 % part != 0)
        return false;
    char ew[400];
    snprintf(red, rn,
             "#iree_gpu.lowering_config<{workgroup = [%lld, 0], partial_reduction = [0, %lld], "
             "thread = [0, %lld], lane_basis = [[%lld, %lld], [0, 1]], subgroup_basis = [[1, "
             "%lld], [0, 1]]}>",
             (long long)lr, (long long)part, (long long)t, (long long)lr, (long long)lc,
             (long long)sgs);
    snprintf(ew, sizeof ew,
             "#iree_gpu.lowering_config<{serial = [0, %lld], thread = [0, %lld], lane_basis = "
             "[[%lld, %lld], [0, 1]], subgroup_basis = [[1, %lld], [0, 1]]}>",
             (long long)part, (long long)t, (long long)lr, (long long)lc, (long long)sgs);
    softmax_ir_wg(ir, n, sg * sgs, sg, red, red, ew);
    *lr_out = lr;
    *sgs_out = sgs;
    return true;
}

typedef struct {
    ls_module *m;
    ls_derived d[LS_IMPORT_MAX_ITEMS];
    ls_plan plans[LS_IMPORT_MAX_ITEMS];
    ls_fused_kernel k;
    ls_hw hw;
    bool fused;
    char why[512];
} kernel;

/* ir parsed, every reduction derived and planned for model, and the
 * dispatch of reduction 0 built as one kernel (or not: k->why). */
static inline kernel *kernel_of_module(ls_module *m, const char *model)
{
    kernel *k = ls_xcalloc(1, sizeof *k);
    ls_diag d;
    ls_diag_clear(&d);
    k->m = m;
    ck_assert(ls_hw_load(model, &k->hw, &d) == LS_OK);
    ls_plan_target t = ls_plan_target_from_arch(k->hw.arch);
    for (size_t i = 0; i < k->m->n_problems; i++) {
        ck_assert_msg(ls_derive(&k->m->problems[i], &k->d[i], &d) == LS_OK, "%s", d.msg);
        ck_assert_msg(ls_plan_build(&k->m->problems[i], &k->d[i], t, &k->plans[i], &d) == LS_OK,
                      "%s", d.msg);
    }
    k->fused = ls_fused_build(k->m, 0, k->plans, &k->k, k->why, sizeof k->why);
    return k;
}

static inline kernel *kernel_of(const char *ir, const char *model)
{
    ls_diag d;
    ls_module *m = load_text(ir, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    return kernel_of_module(m, model);
}

static inline void kernel_free(kernel *k)
{
    free(k->m);
    free(k);
}

/* m with IREE's heuristic's config for arch on every op (as sim applies
 * them), built for model as kernel_of_module does. */
static inline kernel *heuristic_kernel_of_module(ls_module *m, const char *arch, const char *model)
{
    ls_diag d;
    ls_diag_clear(&d);
    ls_target t;
    ck_assert(ls_target_lookup(arch, &t));
    ls_suggestion *sg = ls_xcalloc(1, sizeof *sg);
    for (size_t i = 0; i < m->n_problems; i++) {
        ls_problem *p = &m->problems[i];
        p->has_target = true;
        p->target = t;
        ck_assert_msg(ls_suggest(&m->dispatches[p->dispatch], &t, sg, &d) == LS_OK, "%s", d.msg);
        ls_suggest_apply(sg, p->dispatch_op, p);
        p->config_suggested = true;
    }
    free(sg);
    return kernel_of_module(m, model);
}

/* path (relative to the examples) with IREE's heuristic's configs for
 * arch, on model: its dispatch as one kernel. */
static inline kernel *heuristic_kernel_of_file(const char *path, const char *arch,
                                               const char *model)
{
    ls_diag d;
    ls_module *m = load_example(path, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    kernel *k = heuristic_kernel_of_module(m, arch, model);
    ck_assert_msg(k->fused, "%s", k->why);
    return k;
}

/* tests/data/nhwc_norm_4x8192x3_f16.mlir for sm_90, on h100: a norm whose
 * normalisation IREE lays out on its own (one element, lane 0 of subgroup
 * 0). */
static inline kernel *nhwc_norm_kernel(void)
{
    return heuristic_kernel_of_file("../tests/data/nhwc_norm_4x8192x3_f16.mlir", "sm_90", "h100");
}

static inline kernel *heuristic_kernel(const char *body, const char *stores)
{
    char ir[8192];
    snprintf(ir, sizeof ir,
             "func.func @k() {\n"
             "  %%c0 = arith.constant 0 : index\n"
             "  %%zero = arith.constant 0.000000e+00 : f32\n"
             "  %%two = arith.constant 2.000000e+00 : f32\n"
             "  %%in = hal.interface.binding.subspan layout(#l) binding(0) offset(%%c0) "
             "flags(ReadOnly) : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4096xf32>>\n"
             "  %%o1 = hal.interface.binding.subspan layout(#l) binding(1) offset(%%c0) : "
             "!iree_tensor_ext.dispatch.tensor<writeonly:tensor<64x4096xf32>>\n"
             "  %%o2 = hal.interface.binding.subspan layout(#l) binding(2) offset(%%c0) : "
             "!iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>\n"
             "  %%x = iree_tensor_ext.dispatch.tensor.load %%in, offsets = [0, 0], sizes = [64, "
             "4096], strides = [1, 1] : "
             "!iree_tensor_ext.dispatch.tensor<readonly:tensor<64x4096xf32>> -> "
             "tensor<64x4096xf32>\n"
             "  %%e1 = tensor.empty() : tensor<64xf32>\n"
             "  %%e2 = tensor.empty() : tensor<64x4096xf32>\n"
             "  %%f = linalg.fill ins(%%zero : f32) outs(%%e1 : tensor<64xf32>) -> tensor<64xf32>\n"
             "%s%s  return\n}\n",
             body, stores);
    ls_diag d;
    ls_module *m = load_text(ir, &d);
    ck_assert_msg(d.status == LS_OK, "%s", d.msg);
    return heuristic_kernel_of_module(m, "sm_90", "h100");
}

#define ROWSUM(in)                                                                               \
    "  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "               \
    "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(" in   \
    " : tensor<64x4096xf32>) outs(%f : tensor<64xf32>) {\n"                                     \
    "  ^bb0(%a: f32, %o: f32):\n    %r = arith.addf %a, %o : f32\n"                          \
    "    linalg.yield %r : f32\n  } -> tensor<64xf32>\n"
#define STORE_FULL(v)                                                                            \
    "  iree_tensor_ext.dispatch.tensor.store " v ", %o1, offsets = [0, 0], sizes = [64, 4096], " \
    "strides = [1, 1] : tensor<64x4096xf32> -> "                                                 \
    "!iree_tensor_ext.dispatch.tensor<writeonly:tensor<64x4096xf32>>\n"
#define STORE_ROWS(v)                                                                            \
    "  iree_tensor_ext.dispatch.tensor.store " v ", %o2, offsets = [0], sizes = [64], strides = " \
    "[1] : tensor<64xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<64xf32>>\n"

/* RMSNorm with a weight and a bias (x * rsqrt(mean(x^2)) * g + b), for
 * heuristic_kernel: a sum of squares, and the normalisation reading x, the
 * sum from registers, and g and b along the row. */
#define RMSNORM_OPS \
        "  %gb = hal.interface.binding.subspan layout(#l) binding(3) offset(%c0) flags(ReadOnly) " \
        ": !iree_tensor_ext.dispatch.tensor<readonly:tensor<4096xf32>>\n" \
        "  %bb = hal.interface.binding.subspan layout(#l) binding(4) offset(%c0) flags(ReadOnly) " \
        ": !iree_tensor_ext.dispatch.tensor<readonly:tensor<4096xf32>>\n" \
        "  %g = iree_tensor_ext.dispatch.tensor.load %gb, offsets = [0], sizes = [4096], strides " \
        "= [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4096xf32>> -> tensor<4096xf32>\n" \
        "  %b = iree_tensor_ext.dispatch.tensor.load %bb, offsets = [0], sizes = [4096], strides " \
        "= [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<4096xf32>> -> tensor<4096xf32>\n" \
        "  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, " \
        "affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]} ins(%x " \
        ": tensor<64x4096xf32>) outs(%f : tensor<64xf32>) {\n" \
        "  ^bb0(%a: f32, %o: f32):\n    %q = arith.mulf %a, %a : f32\n" \
        "    %r = arith.addf %q, %o : f32\n    linalg.yield %r : f32\n  } -> tensor<64xf32>\n" \
        "  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, " \
        "affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> " \
        "(d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", " \
        "\"parallel\"]} ins(%x, %s, %g, %b : tensor<64x4096xf32>, tensor<64xf32>, " \
        "tensor<4096xf32>, tensor<4096xf32>) outs(%e2 : tensor<64x4096xf32>) {\n" \
        "  ^bb0(%a: f32, %ss: f32, %w: f32, %c: f32, %o: f32):\n" \
        "    %m = arith.mulf %ss, %two : f32\n    %r = math.rsqrt %m : f32\n" \
        "    %n = arith.mulf %a, %r : f32\n    %t = arith.mulf %n, %w : f32\n" \
        "    %u = arith.addf %t, %c : f32\n    linalg.yield %u : f32\n" \
        "  } -> tensor<64x4096xf32>\n"


/* Row sums of x plus a bias per row, for heuristic_kernel (its stores:
 * STORE_ROWS("%y")): an epilogue reading the sums and the bias. */
#define BIAS_EPILOGUE_OPS \
        "  %bb = hal.interface.binding.subspan layout(#l) binding(3) offset(%c0) flags(ReadOnly) " \
        ": !iree_tensor_ext.dispatch.tensor<readonly:tensor<64xf32>>\n" \
        "  %bias = iree_tensor_ext.dispatch.tensor.load %bb, offsets = [0], sizes = [64], " \
        "strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<64xf32>> -> " \
        "tensor<64xf32>\n" ROWSUM("%x") \
        "  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> " \
        "(d0)>, affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]} ins(%s, %bias : " \
        "tensor<64xf32>, tensor<64xf32>) outs(%e1 : tensor<64xf32>) {\n" \
        "  ^bb0(%a: f32, %c: f32, %o: f32):\n    %m = arith.addf %a, %c : f32\n" \
        "    linalg.yield %m : f32\n  } -> tensor<64xf32>\n"

#endif
