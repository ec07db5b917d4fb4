/* attention_util.h: what the attention test files share: an attention
 * dispatch's text, IREE's pipeline test cases #1 and #2, and an op laid
 * out from text on a named target. */
#ifndef LANESCOPE_TESTS_ATTENTION_UTIL_H
#define LANESCOPE_TESTS_ATTENTION_UTIL_H

#include "lanescope/attention.h"
#include "testutil.h"

/* An online_attention (or attention: one init) dispatch.  maps: the
 * affine_maps of Q, K, V, scale[, mask], O[, max, sum] after "(dims) ->". */
static inline void attention_ir(char *buf, size_t size, bool online, const char *dims,
                         const char *const *maps, int n_maps, const char *q, const char *k,
                         const char *v, const char *mask, const char *o, const char *red,
                         const char *scale_type)
{
    size_t u = 0;
#define PUT(...) u += (size_t)snprintf(buf + u, u < size ? size - u : 0, __VA_ARGS__)
    PUT("func.func @attn(%%q: %s, %%k: %s, %%v: %s%s%s, %%o: %s%s%s) {\n", q, k, v,
        mask ? ", %m: " : "", mask ? mask : "", o, online ? ", %r: " : "", online ? red : "");
    PUT("  %%s = arith.constant 1.0 : %s\n", scale_type);
    PUT("  %%0%s = iree_linalg_ext.%s {indexing_maps = [", online ? ":3" : "",
        online ? "online_attention" : "attention");
    for (int i = 0; i < n_maps; i++)
        PUT("%saffine_map<(%s) -> %s>", i ? ", " : "", dims, maps[i]);
    PUT("]} ins(%%q, %%k, %%v, %%s%s : %s, %s, %s, %s%s%s)", mask ? ", %m" : "", q, k, v,
        scale_type, mask ? ", " : "", mask ? mask : "");
    if (online)
        PUT(" outs(%%o, %%r, %%r : %s, %s, %s) {\n", o, red, red);
    else
        PUT(" outs(%%o : %s) {\n", o);
    PUT("  ^bb0(%%x: f32):\n    iree_linalg_ext.yield %%x : f32\n  }");
    if (online)
        PUT(" -> %s, %s, %s\n", o, red, red);
    else
        PUT(" -> %s\n", o);
    PUT("  return\n}\n");
#undef PUT
    ck_assert(u < size);
}

/* B x M x K1 x K2 x N = d0..d4, IREE's standard maps. */
static const char *const STD5[] = {"(d0, d1, d2)", "(d0, d3, d2)", "(d0, d3, d4)", "()",
                                   "(d0, d1, d4)", "(d0, d1)",     "(d0, d1)"};
#define DIMS5 "d0, d1, d2, d3, d4"

/* IREE's @attention_20x1x64x4096x64 of LLVMGPU/test/ROCDL/
 * pipeline_vector_distribute_reduction_gfx942.mlir with its hand-written
 * configs, K2 tiled at `level` (reduction: case #1; partial_reduction: #2).
 * qk_extra / pv_extra: appended to the dicts (for the error cases). */
static inline void pipeline_ir(char *buf, size_t size, const char *level, bool decomposition)
{
    snprintf(buf, size,
             "#translation = #iree_codegen.translation_info<pipeline = "
             "#iree_gpu.pipeline<VectorDistribute> workgroup_size = [256, 1, 1] subgroup_size = 64>\n"
             "func.func @attention_20x1x64x4096x64(%%q: tensor<20x1x64xf16>, %%k: tensor<20x4096x64xf16>, "
             "%%v: tensor<20x4096x64xf16>, %%o: tensor<20x1x64xf32>, %%r: tensor<20x1xf32>) "
             "attributes {translation_info = #translation} {\n"
             "  %%s = arith.constant 1.250000e-01 : f16\n"
             "  %%0:3 = iree_linalg_ext.online_attention {indexing_maps = ["
             "affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2)>, "
             "affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, "
             "affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>, "
             "affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>],\n"
             "    lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 1, 0, 0, 32], %s = [0, 0, 0, 128, 0]}>%s\n"
             "    } ins(%%q, %%k, %%v, %%s : tensor<20x1x64xf16>, tensor<20x4096x64xf16>, tensor<20x4096x64xf16>, f16)"
             " outs(%%o, %%r, %%r : tensor<20x1x64xf32>, tensor<20x1xf32>, tensor<20x1xf32>) {\n"
             "  ^bb0(%%x: f32):\n    iree_linalg_ext.yield %%x : f32\n"
             "  } -> tensor<20x1x64xf32>, tensor<20x1xf32>, tensor<20x1xf32>\n  return\n}\n",
             level,
             decomposition
                 ? ",\n    decomposition_config = {qk_attrs = {attention_qk_matmul, lowering_config = "
                   "#iree_gpu.lowering_config<{subgroup_basis = [[1, 1, 1, 1, 4], [0, 1, 2, 3]], "
                   "lane_basis = [[1, 1, 2, 32, 1], [0, 1, 2, 3]], thread = [0, 0, 32, 4], "
                   "promote_operands = [1]}>}, pv_attrs = {attention_pv_matmul, lowering_config = "
                   "#iree_gpu.lowering_config<{subgroup_basis = [[1, 1, 1, 1, 4], [0, 1, 3, 4]], "
                   "lane_basis = [[1, 1, 2, 32, 1], [0, 1, 3, 4]], thread = [0, 0, 4, 4], "
                   "promote_operands = [1]}>}}"
                 : "");
}

static inline ls_status build_attention(const char *text, const char *target, ls_module *m,
                                 ls_attention *a, ls_diag *d)
{
    ls_diag_clear(d);
    ck_assert_msg(ls_module_parse_ex(text, strlen(text), "t.mlir", LS_IMPORT_ATTENTION, m, d) ==
                      LS_OK,
                  "%s", d->msg);
    ck_assert_int_eq(m->n_problems, 0); /* read for explain, not refused */
    ck_assert_int_eq(m->n_attentions, 1);
    ls_target t;
    ck_assert(ls_target_lookup(target, &t));
    return ls_attention_build(m, &m->attentions[0], &t, a, d);
}

#endif
