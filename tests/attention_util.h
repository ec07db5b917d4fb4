/* attention_util.h: what the attention test files share: an attention
 * dispatch's text, IREE's pipeline test cases #1 and #2, an op laid out
 * from text on a named target; the generator's inputs and an independent
 * softmax; a kernel timed with its plan's facts held against the engine. */
#ifndef LANESCOPE_TESTS_ATTENTION_UTIL_H
#define LANESCOPE_TESTS_ATTENTION_UTIL_H

#include <math.h>

#include "lanescope/attention.h"
#include "lanescope/functional.h"
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

/* ---- the values and timing tests' shared checks ---- */

static inline double input_f16(uint64_t seed, int k, int64_t idx)
{
    return ls_value_to_double(ls_input_value(ls_operand_seed(seed, k), (uint64_t)idx, LS_ET_F16,
                                             LS_COMB_ADD),
                              LS_ET_F16);
}

/* Softmax attention of batch b (M = 1) at column n, in double, from the
 * generator's inputs read here on their own: sum_k softmax_k(scale q.k)
 * v_kn with natural exp and the scale unrounded -- what any lowering must
 * approach.  IREE's rounds the scaled query to f16 (AggregatedOpInterfaceImpl),
 * which moves the result by about 1e-3 at these sizes. */
static inline double softmax_oracle(uint64_t seed, int64_t b, int64_t n, int64_t K1, int64_t K2,
                                    int64_t N, double scale)
{
    double *s = ls_xcalloc((size_t)K2, sizeof *s), mx = -INFINITY, num = 0, den = 0;
    for (int64_t k = 0; k < K2; k++) {
        for (int64_t j = 0; j < K1; j++)
            s[k] += input_f16(seed, 0, b * K1 + j) * input_f16(seed, 1, (b * K2 + k) * K1 + j);
        s[k] *= scale;
        mx = s[k] > mx ? s[k] : mx;
    }
    for (int64_t k = 0; k < K2; k++) {
        double p = exp(s[k] - mx);
        num += p * input_f16(seed, 2, (b * K2 + k) * N + n);
        den += p;
    }
    free(s);
    return num / den;
}

/* lane steps (shuffles, DPP steps, readlanes) per thread that the plan's
 * reductions r[0..n) leave */
static inline int64_t lane_steps(const ls_att_plan_reduce *r, int n)
{
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        int64_t s = 0;
        for (int j = 0; j < r[i].red->n; j++)
            s += r[i].red->lane[j].n_steps;
        if (r[i].red->cross && r[i].red->back.cluster_size > 1)
            s += r[i].red->back.n_steps;
        total += s * r[i].values;
    }
    return total;
}

/* `sim --dump-plan`'s facts (src/attention_dump.c) say what the engine ran
 * (sim/engine_attention.c): each step's lane steps and barriers in the
 * loop's stage, the merge's in its reduce stages, every subgroup of every
 * workgroup, every step. */
static inline void plan_agrees(const ls_module *m, const ls_att_view *v, const ls_sim_result *r)
{
    ls_att_plan p;
    ls_att_plan_of(m, &m->attentions[0], v, &p);
    const ls_derived *d = ls_att_view_plan(v)->derived;
    int64_t wgs = d->total_workgroups, sgs = wgs * d->num_subgroups;
    const ls_stage_stats *la = &r->stage[LS_STAGE_LOAD_ACCUMULATE],
                         *sr = &r->stage[LS_STAGE_SUBGROUP_REDUCE],
                         *x = &r->stage[LS_STAGE_CROSS_SUBGROUP];
    ck_assert_int_eq(la->shuffles + la->dpp_steps,
                     lane_steps(p.step, p.n_step) * p.iterations * sgs);
    ck_assert_int_eq(sr->shuffles + sr->dpp_steps + x->shuffles + x->dpp_steps,
                     lane_steps(p.merge, p.n_merge) * sgs);
    ck_assert_int_eq(la->barriers, p.barriers_step * p.iterations * wgs);
    ck_assert_int_eq(x->barriers, p.barriers_merge * wgs);
    int64_t reduces = 0;
    for (int i = 0; i < p.n_step; i++)
        reduces += p.step[i].subgroup_reduces;
    ck_assert_int_eq(reduces, p.subgroup_reduces_step);
}

static inline void time_attention(const ls_module *m, const ls_attention *a, const char *model,
                           ls_sim_result *r)
{
    ls_hw hw;
    ls_diag d;
    ls_diag_clear(&d);
    ck_assert(ls_hw_load(model, &hw, &d) == LS_OK);
    ls_att_view *v;
    ck_assert_msg(ls_attention_view(m, &m->attentions[0], a, &hw, &v, &d) == LS_OK, "%s", d.msg);
    ck_assert_msg(ls_engine_run(ls_att_view_plan(v), &hw, r, NULL, &d) == LS_OK, "%s", d.msg);
    plan_agrees(m, v, r);
    ls_att_view_free(v);
}

/* pipeline_ir with a store of the acc only, as IREE's test has */
static inline void pipeline_stored_ir(char *buf, size_t size, const char *level)
{
    pipeline_ir(buf, size, level, true);
    char *at = strstr(buf, "  return\n}");
    ck_assert_ptr_nonnull(at);
    snprintf(at, size - (size_t)(at - buf),
             "  iree_tensor_ext.dispatch.tensor.store %%0#0, %%b, offsets = [0, 0, 0], sizes = "
             "[20, 1, 64], strides = [1, 1, 1] : tensor<20x1x64xf32> -> "
             "!iree_tensor_ext.dispatch.tensor<writeonly:tensor<20x1x64xf32>>\n  return\n}\n");
}

/* A 2x1x32 query against 128 keys and values of 16 (f16), online: the
 * workgroup of wg threads in subgroups of sg, an N tile of n_tile, the K2
 * tile of 32 at `level`, the matmuls' configs qk and pv. */
static inline void att_ir(char *buf, size_t size, int64_t wg, int64_t sg, int64_t n_tile,
                          const char *level, const char *qk, const char *pv)
{
    snprintf(buf, size,
             "#translation = #iree_codegen.translation_info<pipeline = "
             "#iree_gpu.pipeline<VectorDistribute> workgroup_size = [%lld, 1, 1] "
             "subgroup_size = %lld>\n"
             "func.func @r(%%q: tensor<2x1x32xf16>, %%k: tensor<2x128x32xf16>, "
             "%%v: tensor<2x128x16xf16>, %%o: tensor<2x1x16xf32>, %%r: tensor<2x1xf32>) "
             "attributes {translation_info = #translation} {\n"
             "  %%s = arith.constant 1.250000e-01 : f16\n"
             "  %%0:3 = iree_linalg_ext.online_attention {indexing_maps = ["
             "affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>, "
             "affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2)>, "
             "affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, "
             "affine_map<(d0, d1, d2, d3, d4) -> ()>, "
             "affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>, "
             "affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>, "
             "affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>],\n"
             "    lowering_config = #iree_gpu.lowering_config<{workgroup = [1, 1, 0, 0, %lld], "
             "%s = [0, 0, 0, 32, 0]}>,\n"
             "    decomposition_config = {qk_attrs = {lowering_config = %s}, pv_attrs = "
             "{lowering_config = %s}}\n"
             "  } ins(%%q, %%k, %%v, %%s : tensor<2x1x32xf16>, tensor<2x128x32xf16>, "
             "tensor<2x128x16xf16>, f16) outs(%%o, %%r, %%r : tensor<2x1x16xf32>, "
             "tensor<2x1xf32>, tensor<2x1xf32>) {\n"
             "  ^bb0(%%x: f32):\n    iree_linalg_ext.yield %%x : f32\n"
             "  } -> tensor<2x1x16xf32>, tensor<2x1xf32>, tensor<2x1xf32>\n  return\n}\n",
             (long long)wg, (long long)sg, (long long)n_tile, level, qk, pv);
}

static inline uint64_t rnd_next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static inline void shuffle5(uint64_t *x, int *e)
{
    for (int i = 0; i < 5; i++)
        e[i] = i;
    for (int i = 4; i > 0; i--) {
        int j = (int)(rnd_next(x) % (uint64_t)(i + 1)), t = e[i];
        e[i] = e[j];
        e[j] = t;
    }
}

/* one matmul's lowering_config: the entries of its 4 loops, thread tiles */
static inline void part_config(char *buf, size_t size, const int64_t *sgc, const int *sgm,
                               const int64_t *lc, const int *lm, int64_t t2, int64_t t3,
                               bool promote)
{
    snprintf(buf, size,
             "#iree_gpu.lowering_config<{subgroup_basis = [[%lld, %lld, %lld, %lld, %lld], [%d, "
             "%d, %d, %d]], lane_basis = [[%lld, %lld, %lld, %lld, %lld], [%d, %d, %d, %d]], "
             "thread = [0, 0, %lld, %lld]%s}>",
             (long long)sgc[0], (long long)sgc[1], (long long)sgc[2], (long long)sgc[3],
             (long long)sgc[4], sgm[0], sgm[1], sgm[2], sgm[3], (long long)lc[0], (long long)lc[1],
             (long long)lc[2], (long long)lc[3], (long long)lc[4], lm[0], lm[1], lm[2], lm[3],
             (long long)t2, (long long)t3, promote ? ", promote_operands = [1]" : "");
}

/* A random hand config of att_ir's attention (the random_configs family):
 * subgroups of sg lanes (0: 32 or 64 at random), 1, 2 or 4 of them, lane
 * and subgroup counts spread over the five basis entries, the PV keeping
 * the QK's entries for B, M and K2 (IREE's projectBasis) and mapping N to
 * the fifth, so both layouts agree; thread tiles of 1..8 (K1), 1..4 (K2,
 * N); a partial or serial K2 level; promote_operands one time in
 * promote_one_in (0: never).  The dispatch into ir; *sg_out its subgroup
 * size, *partial and *promote what was drawn. */
static inline void random_att_ir(uint64_t *x, int64_t sg, int promote_one_in, char *ir, size_t size,
                                 int64_t *sg_out, bool *partial, bool *promote)
{
    if (sg == 0)
        sg = rnd_next(x) % 2 ? 32 : 64;
    int64_t nsg = 1 << (rnd_next(x) % 3);
    int64_t lc[5] = {1, 1, 1, 1, 1}, sgc[5] = {1, 1, 1, 1, 1};
    for (int64_t t = sg; t > 1; t /= 2)
        lc[rnd_next(x) % 5] *= 2;
    for (int64_t t = nsg; t > 1; t /= 2)
        sgc[rnd_next(x) % 5] *= 2;
    int lm[5], sm[5];
    shuffle5(x, lm);
    shuffle5(x, sm);
    /* QK loops (B, M, K1, K2) take entries 0..3 of the shuffles, PV loops
     * (B, M, K2, N) the same for B, M, K2 and the fifth for N */
    int plm[4] = {lm[0], lm[1], lm[3], lm[4]}, psm[4] = {sm[0], sm[1], sm[3], sm[4]};
    int64_t tk1 = 1 << (rnd_next(x) % 4), tk2 = 1 << (rnd_next(x) % 3), tn = 1 << (rnd_next(x) % 3);
    *partial = rnd_next(x) % 2;
    *promote = promote_one_in > 0 && rnd_next(x) % (uint64_t)promote_one_in == 0;
    char qk[512], pv[512];
    part_config(qk, sizeof qk, sgc, sm, lc, lm, tk1, tk2, *promote);
    part_config(pv, sizeof pv, sgc, psm, lc, plm, tk2, tn, *promote);
    att_ir(ir, size, sg * nsg, sg, 8, *partial ? "partial_reduction" : "reduction", qk, pv);
    *sg_out = sg;
}

#endif
