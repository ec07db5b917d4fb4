/* attention_lanes.c: one workgroup of a decode attention run lane by
 * lane as IREE's VectorDistribute pipeline lowers it
 * (docs/attention-lowering.md §3, §5, §8): every thread's part of the QK
 * contraction (the FMA chain over its own K1 elements, last first:
 * ContractToChainFMA), the gpu.subgroup_reduce steps over its lanes as the
 * target lowers them (shuffle butterflies, or DPP rows on AMD for stride-1
 * clusters), the workgroup-memory round when subgroups split a reduced
 * dim; then the online softmax with exp2, P truncated to V's type and the
 * PV update.  With a partial_reduction K2 tile every key slot keeps its
 * own max, sum and acc, merged after the loop (mergeReductions); with a
 * reduction tile each step reduces over K2.  Values are the same in every
 * replica of a thread (an unmapped basis entry), so each reduction's
 * result is read from one holder. */
#include <math.h>
#include <stdlib.h>

#include "attention_internal.h"
#include "lanescope/arena.h"
#include "lanescope/mlir_math.h"

/* Arithmetic in the work type: each result rounded once (a double holds
 * every sum and product of two f32s or f16s closely enough that its
 * rounding to the type is the correctly rounded result). */
static float rnd(const actx *c, double x)
{
    return c->et == LS_ET_F32 ? (float)x
                              : (float)ls_value_to_double(ls_value_from_double(x, c->et), c->et);
}

static float add_e(const actx *c, float a, float b)
{
    return rnd(c, (double)a + b);
}

static float mul_e(const actx *c, float a, float b)
{
    return rnd(c, (double)a * b);
}

/* an f16 product is exact in double and so is its sum with an f16 */
static float fma_e(const actx *c, float a, float b, float acc)
{
    return c->et == LS_ET_F32 ? fmaf(a, b, acc) : rnd(c, (double)a * b + acc);
}

/* math.exp2 in the work type, as IREE compiles it (MathTransform.cpp).
 * NVIDIA: rewritten to exp(x * ln 2), the product in the work type
 * (convertExp2fOp), then MLIR's polynomial in f32 (predicateF32Cast for
 * f16/bf16): bit for bit, as the body evaluator's LS_MATH_MLIR.  ROCm
 * keeps the exp2 for LLVM's v_exp lowering, which is not reproduced: the
 * correctly rounded value stands in, rounded to the work type. */
float ls_att_exp2(const actx *c, float x)
{
    if (c->t.amd)
        return rnd(c, exp2f(x));
    float ln2 = rnd(c, 0.69314718055994530942);
    return rnd(c, ls_mlir_expf(rnd(c, (double)x * ln2)));
}

static ls_value to_e(const actx *c, float f)
{
    return c->et == LS_ET_F32 ? f2v(f) : ls_value_from_double(f, c->et);
}

static float from_e(const actx *c, ls_value v)
{
    return c->et == LS_ET_F32 ? v2f(v) : (float)ls_value_to_double(v, c->et);
}

/* Operand k (Q, K, V, mask) at global op point x, as the generator gives it. */
/* The source element a gather's output holds at operand coordinates y
 * (batch dims, then slice dims; sizes from the op's loops through map):
 * each index component the row ls_input_row draws for the batch element,
 * then the slice (LinalgExtOps.td, GatherOp; dimension_map the source's
 * leading dims in order, ls_attention_values_check). */
int64_t ls_att_gather_source(const ls_module_gather *g, const int64_t *y, const int64_t *ysize,
                             int map_n, uint64_t rowmix)
{
    int slice_rank = g->source_rank - g->depth, batch_rank = map_n - slice_rank;
    int64_t b = 0;
    for (int j = 0; j < batch_rank; j++)
        b = b * ysize[j] + y[j];
    int64_t src = 0;
    for (int i = 0; i < g->depth; i++)
        src = src * g->source_shape[i] +
              ls_input_row(rowmix + (uint64_t)i, b, g->source_shape[i]);
    for (int j = batch_rank; j < map_n; j++)
        src = src * ysize[j] + y[j];
    return src;
}

static double att_input(uint64_t opmix, ls_elem_type t, bool is_float, int64_t idx);

double ls_att_operand_at(const actx *c, int k, const int64_t *x)
{
    const ls_dop_operand *op = &c->o->operand[k];
    if (k == 4 && c->mask_body) {
        int64_t l[LS_MAX_RANK] = {0};
        uint64_t scratch[LS_MAX_BODY_INSTS];
        for (int j = 0; j < op->map_n; j++)
            l[c->mask_loop[j]] = x[op->map[j]];
        ls_value v = ls_body_eval(c->mask_body, NULL, l, scratch);
        return c->is_float[4] ? ls_value_to_double(v, c->type[4]) : (double)(v & 1);
    }
    int64_t idx = 0;
    if (k < 3 && c->gather[k]) {
        int64_t y[LS_MAX_RANK], ysize[LS_MAX_RANK];
        for (int j = 0; j < op->map_n; j++) {
            y[j] = x[op->map[j]];
            ysize[j] = c->a->size[op->map[j]];
        }
        idx = ls_att_gather_source(c->gather[k], y, ysize, op->map_n, c->rowmix[k]);
    } else {
        for (int j = 0; j < op->map_n; j++)
            idx = idx * op->dims[j] + x[op->map[j]];
    }
    return att_input(c->opmix[k], c->type[k], c->is_float[k], idx);
}

/* Element idx of an operand whose generator seed hashes to opmix. */
static double att_input(uint64_t opmix, ls_elem_type t, bool is_float, int64_t idx)
{
    uint64_t h = ls_input_hash(opmix, (uint64_t)idx);
    switch (t) {
    case LS_ET_F16:
    case LS_ET_BF16:
    case LS_ET_F32:
        /* the generator's value (ls_input_value), which all three hold exactly */
        return ls_input_float(h, LS_COMB_ADD);
    default: {
        ls_value v = ls_input_value_hashed(h, t, LS_COMB_ADD);
        /* an integer mask: its i1 (arith.trunci) */
        return is_float ? ls_value_to_double(v, t) : (double)(v & 1);
    }
    }
}

double ls_att_input_element(uint64_t seed, int k, ls_elem_type t, int64_t i)
{
    return att_input(ls_mix64(ls_operand_seed(seed, k)), t, ls_elem_type_is_float(t), i);
}

/* ---- the elements each reduction reads ---- */

static float qk_elem(actx *c, const int64_t *x, float *rhs)
{
    *rhs = c->kt[box(c, c->bmask | c->k2mask | c->k1mask, x)];
    return c->qs[box(c, c->bmask | c->mmask | c->k1mask, x)];
}

static float s_elem(actx *c, const int64_t *x, float *rhs)
{
    (void)rhs;
    return c->S[box(c, c->bmask | c->mmask | c->k2mask, x)];
}

static float p_elem(actx *c, const int64_t *x, float *rhs)
{
    (void)rhs;
    return c->P[box(c, c->bmask | c->mmask | c->k2mask, x)];
}

static float pv_elem(actx *c, const int64_t *x, float *rhs)
{
    *rhs = c->vt[box(c, c->bmask | c->k2mask | c->nmask, x)];
    return round_to(c->P[box(c, c->bmask | c->mmask | c->k2mask, x)], c->type[2]);
}

static float pmax_elem(actx *c, const int64_t *x, float *rhs)
{
    (void)rhs;
    return c->pmax[box(c, c->bmask | c->mmask | c->k2mask, x)];
}

static float wsum_elem(actx *c, const int64_t *x, float *rhs)
{
    (void)rhs;
    int64_t i = box(c, c->bmask | c->mmask | c->k2mask, x);
    return mul_e(c, c->w[i], c->psum[i]);
}

static float wacc_elem(actx *c, const int64_t *x, float *rhs)
{
    (void)rhs;
    return mul_e(c, c->w[box(c, c->bmask | c->mmask | c->k2mask, x)],
                 c->pacc[box(c, c->bmask | c->mmask | c->k2mask | c->nmask, x)]);
}

/* ---- one reduction, distributed as IREE distributes it ---- */

/* Sets x along loops l of matmul mm for a thread at (vt, vs) and local
 * tuple f; false when a position lies past the loop's bound (padding). */
static bool place(const ls_att_matmul *mm, const int *l, int n, int64_t f, const int64_t *vt,
                  const int64_t *vs, int64_t *x)
{
    const ls_nested_layout *ly = &mm->layout;
    int64_t b[LS_MAX_RANK], o[LS_MAX_RANK], e[LS_MAX_RANK];
    ls_att_local_decode(ly, l, n, f, b, o, e);
    for (int j = 0; j < n; j++) {
        int i = l[j];
        int64_t p = (((vs[i] * ly->batch_tile[i] + b[j]) * ly->outer_tile[i] + o[j]) *
                         ly->thread_tile[i] + vt[i]) * ly->element_tile[i] + e[j];
        if (p >= mm->bound[i])
            return false;
        x[mm->dim[i]] = p;
    }
    return true;
}

static ls_combiner combiner_of(const actx *c, rkind k)
{
    /* ROCm and NVIDIA below sm_80 rewrite maximumf to maxnumf
     * (Common/ReplaceSlowMinMaxOps.cpp) */
    return k != R_MAX ? LS_COMB_ADD : ls_combiner_as_compiled(c->t, LS_COMB_MAXIMUMF);
}

/* One lane array reduced by a gpu.subgroup_reduce of cluster (size,
 * stride), lowered for the target. */
static void lane_reduce(actx *c, rkind k, int64_t size, int64_t stride)
{
    ls_subgroup_reduce r;
    memset(&r, 0, sizeof r);
    r.cluster_size = size;
    r.cluster_stride = stride;
    ls_plan_lower_subgroup_reduce(&r, c->t);
    ls_func_run_reduce(&r, combiner_of(c, k), c->et, c->lanes, c->tmp, c->a->subgroup_size, -1);
}

/* The reduced values into c->red (box over outm): each output's holder,
 * one per combination of the subgroup positions that split the reduced
 * loops (row-major), then -- with subgroups on them -- the
 * workgroup-memory round's read-back and its reduce (§5.2 step 4). */
static void collect(actx *c, const ls_att_matmul *mm, const int *nl, int nn, const int *rl, int nr,
                    unsigned outm, rkind k, int64_t E)
{
    const ls_nested_layout *ly = &mm->layout;
    int64_t W = c->a->workgroup_size, SG = c->a->subgroup_size, nsplit = 1;
    int64_t vt[LS_MAX_BODY], vs[LS_MAX_BODY], x[LS_MAX_RANK] = {0};
    float ident = k == R_MAX ? -INFINITY : 0.0f;
    for (int j = 0; j < nr; j++) /* powers of two: checked before the run */
        nsplit *= ly->subgroup_tile[rl[j]];
    int64_t nout = box_size(c, outm);
    float *buf = ls_xcalloc((size_t)(nout * nsplit), sizeof *buf);
    for (int64_t tid = 0; tid < W; tid++) {
        ls_nl_virtual_thread(ly, tid % SG, vt);
        ls_nl_virtual_subgroup(ly, tid / SG, vs);
        int64_t j = 0;
        for (int q = 0; q < nr; q++)
            if (ly->subgroup_tile[rl[q]] > 1)
                j = j * ly->subgroup_tile[rl[q]] + vs[rl[q]];
        for (int64_t e = 0; e < E; e++)
            if (place(mm, nl, nn, e, vt, vs, x))
                buf[box(c, outm, x) * nsplit + j] = c->part[tid * E + e];
    }
    int64_t cluster, stride;
    ls_plan_readback(ly, rl, nr, nsplit, &cluster, &stride);
    for (int64_t p = 0; p < nout; p++) {
        const float *pp = buf + p * nsplit;
        if (nsplit == 1) {
            c->red[p] = pp[0];
        } else if (cluster == 1) { /* each lane combines the partials in turn */
            float acc = ident;
            for (int64_t j = 0; j < nsplit; j++)
                acc = from_e(c, ls_combine(combiner_of(c, k), c->et, to_e(c, acc), to_e(c, pp[j])));
            c->red[p] = acc;
        } else {
            for (int64_t l = 0; l < SG; l++)
                c->lanes[l] = to_e(c, ident);
            for (int64_t j = 0; j < nsplit; j++)
                c->lanes[j * stride] = to_e(c, pp[j]);
            lane_reduce(c, k, nsplit, stride);
            c->red[p] = from_e(c, c->lanes[0]);
        }
    }
    free(buf);
}

/* The value `f` gives over the op dims in `vals`, reduced over those in
 * `red`, on matmul mm's layout: each thread's local reduce (the FMA chain
 * of a contract, last element first; otherwise ascending from the
 * identity), one subgroup reduce per reduced loop with lanes (in loop
 * order), a workgroup-memory round when subgroups split a reduced loop
 * (docs/attention-lowering.md §5.2).  c->red[box over vals & ~red] gets
 * the results, before the op's accumulator is combined in. */
static void dist_reduce(actx *c, const ls_att_matmul *mm, unsigned vals, unsigned red, rkind k,
                        elem_fn f)
{
    const ls_nested_layout *ly = &mm->layout;
    int nl[LS_MAX_RANK] = {0}, rl[LS_MAX_RANK] = {0}, nn = 0, nr = 0;
    for (int i = 0; i < mm->rank; i++) {
        unsigned bit = 1u << mm->dim[i];
        if (red & bit)
            rl[nr++] = i;
        else if (vals & bit)
            nl[nn++] = i;
    }
    int64_t W = c->a->workgroup_size, SG = c->a->subgroup_size;
    int64_t E = ls_att_local_count(ly, nl, nn), R = ls_att_local_count(ly, rl, nr);
    float ident = k == R_MAX ? -INFINITY : 0.0f;
    int64_t vt[LS_MAX_BODY], vs[LS_MAX_BODY], x[LS_MAX_RANK] = {0};
    /* a thread's positions along the reduced loops, once per thread */
    int64_t *rpos = ls_xcalloc((size_t)(R * (nr ? nr : 1)), sizeof *rpos);
    bool *rok = ls_xcalloc((size_t)R, sizeof *rok);
    for (int64_t tid = 0; tid < W; tid++) {
        ls_nl_virtual_thread(ly, tid % SG, vt);
        ls_nl_virtual_subgroup(ly, tid / SG, vs);
        for (int64_t r = 0; r < R; r++) {
            rok[r] = place(mm, rl, nr, r, vt, vs, x);
            for (int q = 0; q < nr; q++)
                rpos[r * nr + q] = x[mm->dim[rl[q]]];
        }
        for (int64_t e = 0; e < E; e++) {
            float acc = ident;
            if (place(mm, nl, nn, e, vt, vs, x)) {
                for (int64_t j = 0; j < R; j++) {
                    int64_t r = k == R_CHAIN ? R - 1 - j : j;
                    if (!rok[r])
                        continue;
                    for (int q = 0; q < nr; q++)
                        x[mm->dim[rl[q]]] = rpos[r * nr + q];
                    float rhs = 0, v = f(c, x, &rhs);
                    acc = k == R_CHAIN ? fma_e(c, v, rhs, acc)
                                       : from_e(c, ls_combine(combiner_of(c, k), c->et, to_e(c, acc),
                                                              to_e(c, v)));
                }
            }
            c->part[tid * E + e] = acc;
        }
    }
    free(rpos);
    free(rok);
    for (int j = 0; j < nr; j++) {
        int i = rl[j];
        if (ly->thread_tile[i] <= 1)
            continue;
        for (int64_t sg = 0; sg < W / SG; sg++)
            for (int64_t e = 0; e < E; e++) {
                for (int64_t l = 0; l < SG; l++)
                    c->lanes[l] = to_e(c, c->part[(sg * SG + l) * E + e]);
                lane_reduce(c, k, ly->thread_tile[i], ly->thread_strides[i]);
                for (int64_t l = 0; l < SG; l++)
                    c->part[(sg * SG + l) * E + e] = from_e(c, c->lanes[l]);
            }
    }
    collect(c, mm, nl, nn, rl, nr, vals & ~red, k, E);
}

/* ---- one workgroup ---- */

/* The operand tile of op dims `mask` at c->origin, as f32 (the extf
 * every use of it gets), Q' rounded in Q's type. */
void ls_att_load_tile(actx *c, int k, unsigned mask, float *out)
{
    int64_t x[LS_MAX_RANK] = {0}, g[LS_MAX_RANK];
    do {
        global_of(c, x, g);
        float v = (float)ls_att_operand_at(c, k, g);
        /* Q' = Q * s' in Q's type (computeQKAndElementwise) */
        out[box(c, mask, x)] = k == 0 ? round_to(v * c->sprime, c->type[0]) : v;
    } while (next_point(c, mask, x));
}

/* The QK scores of the K2 tile at c->origin: S = Q'.K over K1 (+ mask). */
static void scores(actx *c)
{
    const ls_attention *a = c->a;
    unsigned smask = c->bmask | c->mmask | c->k2mask;
    ls_att_load_tile(c, 1, c->bmask | c->k2mask | c->k1mask, c->kt);
    ls_att_load_tile(c, 2, c->bmask | c->k2mask | c->nmask, c->vt);
    dist_reduce(c, &a->qk, smask | c->k1mask, c->k1mask, R_CHAIN, qk_elem);
    int64_t x[LS_MAX_RANK] = {0};
    do {
        int64_t i = box(c, smask, x);
        float s = c->red[i] + 0.0f; /* the contract's acc: the fill 0 */
        if (a->has_mask) {
            int64_t g[LS_MAX_RANK];
            global_of(c, x, g);
            double mv = ls_att_operand_at(c, 4, g);
            /* applyMask: a float mask in S's type times log2e (a constant of
             * that type); an integer one selects 0 or -inf */
            float m = c->is_float[4] ? mul_e(c, rnd(c, mv), rnd(c, LOG2E))
                                     : mv != 0 ? 0.0f : -INFINITY;
            s = add_e(c, s, m);
        }
        c->S[i] = s;
    } while (next_point(c, smask, x));
}

static float maxf_of(const actx *c, float a, float b)
{
    return from_e(c, ls_combine(combiner_of(c, R_MAX), c->et, to_e(c, a), to_e(c, b)));
}

/* One K2 tile, a partial_reduction level: every slot on its own (§2.2). */
void ls_att_step_partial(actx *c)
{
    scores(c);
    unsigned smask = c->bmask | c->mmask | c->k2mask, amask = smask | c->nmask;
    int64_t x[LS_MAX_RANK] = {0};
    do {
        int64_t i = box(c, smask, x);
        float nmax = maxf_of(c, c->pmax[i], c->S[i]);
        float norm = ls_att_exp2(c, add_e(c, c->pmax[i], -nmax));
        float p = ls_att_exp2(c, add_e(c, c->S[i], -nmax));
        c->psum[i] = add_e(c, mul_e(c, norm, c->psum[i]), p);
        c->pmax[i] = nmax;
        c->P[i] = p;
        c->w[i] = norm;
    } while (next_point(c, smask, x));
    memset(x, 0, sizeof x);
    do {
        int64_t i = box(c, amask, x), s = box(c, smask, x);
        float pv = mul_e(c, round_to(c->P[s], c->type[2]),
                         c->vt[box(c, c->bmask | c->k2mask | c->nmask, x)]);
        c->pacc[i] = add_e(c, mul_e(c, c->w[s], c->pacc[i]), pv);
    } while (next_point(c, amask, x));
}

/* One K2 tile, a reduction level: each step reduces over K2 (§2.1). */
void ls_att_step_serial(actx *c)
{
    const ls_attention *a = c->a;
    scores(c);
    unsigned smask = c->bmask | c->mmask | c->k2mask, rmask = c->bmask | c->mmask;
    unsigned amask = rmask | c->nmask;
    int64_t nr = box_size(c, rmask), na = box_size(c, amask);
    float *norm = ls_xcalloc((size_t)nr, sizeof *norm), *nmax = ls_xcalloc((size_t)nr, sizeof *nmax);
    dist_reduce(c, &a->qk, smask, c->k2mask, R_MAX, s_elem);
    for (int64_t i = 0; i < nr; i++) {
        nmax[i] = maxf_of(c, c->red[i], c->mx[i]);
        norm[i] = ls_att_exp2(c, add_e(c, c->mx[i], -nmax[i]));
    }
    int64_t x[LS_MAX_RANK] = {0};
    do {
        int64_t i = box(c, smask, x);
        c->P[i] = ls_att_exp2(c, add_e(c, c->S[i], -nmax[box(c, rmask, x)]));
    } while (next_point(c, smask, x));
    dist_reduce(c, &a->qk, smask, c->k2mask, R_ADD, p_elem);
    for (int64_t i = 0; i < nr; i++) {
        c->sm[i] = add_e(c, c->red[i], mul_e(c, norm[i], c->sm[i]));
        c->mx[i] = nmax[i];
    }
    dist_reduce(c, &a->pv, amask | c->k2mask, c->k2mask, R_CHAIN, pv_elem);
    memset(x, 0, sizeof x);
    do {
        int64_t i = box(c, amask, x);
        c->acc[i] = add_e(c, c->red[i], mul_e(c, norm[box(c, rmask, x)], c->acc[i]));
    } while (next_point(c, amask, x));
    (void)na;
    free(norm);
    free(nmax);
}

/* After a partial loop: mergeReductions (§2.2), with the op's inits. */
void ls_att_merge(actx *c, const float *init_acc, const float *init_max, const float *init_sum)
{
    const ls_attention *a = c->a;
    unsigned smask = c->bmask | c->mmask | c->k2mask, rmask = c->bmask | c->mmask;
    unsigned amask = rmask | c->nmask;
    dist_reduce(c, &a->qk, smask, c->k2mask, R_MAX, pmax_elem);
    int64_t nr = box_size(c, rmask);
    for (int64_t i = 0; i < nr; i++)
        c->mx[i] = maxf_of(c, init_max[i], c->red[i]);
    int64_t x[LS_MAX_RANK] = {0};
    do { /* computeSubAndExp2: always exp2 */
        int64_t i = box(c, smask, x);
        c->w[i] = ls_att_exp2(c, add_e(c, c->pmax[i], -c->mx[box(c, rmask, x)]));
    } while (next_point(c, smask, x));
    dist_reduce(c, &a->qk, smask, c->k2mask, R_ADD, wsum_elem);
    for (int64_t i = 0; i < nr; i++)
        c->sm[i] = add_e(c, init_sum[i], c->red[i]);
    dist_reduce(c, &a->pv, amask | c->k2mask, c->k2mask, R_ADD, wacc_elem);
    memset(x, 0, sizeof x);
    do {
        int64_t i = box(c, amask, x);
        c->acc[i] = add_e(c, init_acc[box(c, amask, x)], c->red[i]);
    } while (next_point(c, amask, x));
}
