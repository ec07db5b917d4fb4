/* codegen_attention.c: a decode attention (iree_linalg_ext.attention /
 * online_attention) as CUDA C, the kernel sim/attention_lanes.c runs lane
 * by lane (docs/attention-lowering.md §3, §5, §8; docs/cuda-path.md
 * "Attention").
 *
 * Every thread holds its part of the two matmuls' nested layouts (the QK
 * layout over B, M, K1, K2; the PV layout over B, M, K2, N; they agree on
 * the dims they share, as the engine's view requires).  Per K2 step it
 * computes its scores as one FMA chain over its K1 elements, last first
 * (ContractToChainFMA), reduces them over K1's lanes by XOR butterflies
 * (and through workgroup memory when subgroups split K1), then the online
 * softmax with exp2 as IREE compiles it for NVIDIA (exp(x * ln 2) by
 * MLIR's polynomial) and the PV update; a partial_reduction tile keeps a
 * max, sum and acc per key slot and merges them after the loop
 * (mergeReductions), a reduction tile reduces over K2 every step.
 *
 * Everything a thread holds is a register array with constant indices:
 * the generator enumerates each thread's local tuples in the order IREE's
 * distributed vectors hold them (ls_att_local_decode) and folds every
 * position into a thread base (subgroup and lane part) plus a constant. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "codegen_att.h"
#include "lanescope/arena.h"
#include "lanescope/attention.h"

/* ---- the elements each reduction reads (sim/attention_lanes.c's) ---- */

static void qk_elem(const agen *g, const int64_t *off, char *lhs, char *rhs, size_t size)
{
    snprintf(lhs, size, "qs[%lld]", (long long)cg_att_find(&g->sq, off));
    cg_att_operand_at(g, 1, off, rhs, size);
}

static void s_elem(const agen *g, const int64_t *off, char *lhs, char *rhs, size_t size)
{
    (void)rhs;
    snprintf(lhs, size, "S[%lld]", (long long)cg_att_find(&g->ss, off));
}

static void p_elem(const agen *g, const int64_t *off, char *lhs, char *rhs, size_t size)
{
    (void)rhs;
    snprintf(lhs, size, "P[%lld]", (long long)cg_att_find(&g->ss, off));
}

static void pv_elem(const agen *g, const int64_t *off, char *lhs, char *rhs, size_t size)
{
    snprintf(lhs, size, "ls_rv(P[%lld])", (long long)cg_att_find(&g->ss, off));
    cg_att_operand_at(g, 2, off, rhs, size);
}

static void pmax_elem(const agen *g, const int64_t *off, char *lhs, char *rhs, size_t size)
{
    (void)rhs;
    snprintf(lhs, size, "pmax[%lld]", (long long)cg_att_find(&g->ss, off));
}

static void wsum_elem(const agen *g, const int64_t *off, char *lhs, char *rhs, size_t size)
{
    (void)rhs;
    int64_t s = cg_att_find(&g->ss, off);
    snprintf(lhs, size, "ls_mul(w[%lld], psum[%lld])", (long long)s, (long long)s);
}

static void wacc_elem(const agen *g, const int64_t *off, char *lhs, char *rhs, size_t size)
{
    (void)rhs;
    snprintf(lhs, size, "ls_mul(w[%lld], pacc[%lld])", (long long)cg_att_find(&g->ss, off),
             (long long)cg_att_find(&g->spa, off));
}

/* ---- the kernel ---- */

/* "v == (its canonical id)" over the loops of space s: of the threads
 * holding the same elements of it (replicas along the other loops and the
 * ids no loop maps) only the first passes, IREE's transfer_write guard. */
static void emit_canonical(const agen *g, const aspace *s, bool subgroup, const char *v)
{
    const ls_nested_layout *ly = &s->mm->layout;
    fprintf(g->f, "%s == 0", v);
    for (int j = 0; j < s->n; j++) {
        int i = s->loop[j];
        int64_t tile = subgroup ? ly->subgroup_tile[i] : ly->thread_tile[i];
        int64_t stride = subgroup ? ly->subgroup_strides[i] : ly->thread_strides[i];
        if (tile > 1 && stride > 0)
            fprintf(g->f, " + (%s / %lld) %% %lld * %lld", v, (long long)stride, (long long)tile,
                    (long long)stride);
    }
}

/* One result's stores: each tuple e of space s into out<r> -- the carried
 * value named `carried` (acc, mx, sm), or an attention's output. */
static void emit_store(agen *g, int r, const aspace *s, const char *what, const char *carried)
{
    FILE *f = g->f;
    const ls_dop_operand *op = &g->o->operand[g->o->n_inputs + r];
    char name[16], ce[600];
    snprintf(name, sizeof name, "ob%d", r);
    fprintf(f,
            "    /* [store] %s: vector.transfer_write by one thread of each set holding the same "
            "elements */\n    {\n",
            what);
    cg_att_emit_base(g, op, name, "        ");
    fprintf(f, "        if ((");
    emit_canonical(g, s, true, "sg");
    fprintf(f, ") && (");
    emit_canonical(g, s, false, "lane");
    fprintf(f, ")) {\n");
    for (int64_t e = 0; e < s->count; e++) {
        int64_t off[LS_MAX_RANK] = {0};
        cg_att_tuple_off(s, e, off);
        int ok = cg_att_tuple_cond(g, s, off, ce, sizeof ce);
        if (ok == 0)
            continue;
        char val[200];
        if (carried)
            snprintf(val, sizeof val, "%s[%lld]", carried, (long long)e);
        else
            snprintf(val, sizeof val, "__fmul_rn(__fdiv_rn(1.0f, sm[%lld]), acc[%lld])",
                     (long long)cg_att_find(&g->sr, off), (long long)e);
        fprintf(f, "            %s%s%sout%d[ob%d + %lld] = %s(%s);\n", ok == 2 ? "if (" : "",
                ok == 2 ? ce : "", ok == 2 ? ") " : "", r, r,
                (long long)cg_att_const_offset(op, off), cg_from_float(g->out_type[r]), val);
    }
    fprintf(f, "        }\n    }\n");
}

/* The thread's base along every op dim, from the matmul that lays it out
 * (QK for B, M, K1, K2; PV for N), and the largest over the workgroup. */
static void emit_bases(agen *g)
{
    const ls_attention *a = g->a;
    for (int d = 0; d < a->rank; d++) {
        int i;
        const ls_nested_layout *ly = &cg_att_base_matmul(g, d, &i)->layout;
        int64_t sm = ly->batch_tile[i] * ly->outer_tile[i] * ly->thread_tile[i] *
                     ly->element_tile[i],
                tm = ly->element_tile[i];
        fprintf(g->f, "    const %s bs%d = 0", g->idx, d);
        if (ly->subgroup_tile[i] > 1 && ly->subgroup_strides[i] > 0)
            fprintf(g->f, " + (sg / %lld) %% %lld * %lld", (long long)ly->subgroup_strides[i],
                    (long long)ly->subgroup_tile[i], (long long)sm);
        if (ly->thread_tile[i] > 1 && ly->thread_strides[i] > 0)
            fprintf(g->f, " + (lane / %lld) %% %lld * %lld", (long long)ly->thread_strides[i],
                    (long long)ly->thread_tile[i], (long long)tm);
        fprintf(g->f, ";\n    (void)bs%d;\n", d);
        g->maxbase[d] = (ly->subgroup_tile[i] - 1) * sm + (ly->thread_tile[i] - 1) * tm;
    }
}

/* The tile origins along the dims of mask from the linear id v (last dim
 * fastest, as sim/attention_run.c's tile_origin). */
static void emit_origins(agen *g, unsigned mask, const char *v, const char *ind)
{
    const ls_attention *a = g->a;
    int64_t div = 1;
    for (int d = a->rank; d-- > 0;) {
        if (!(mask >> d & 1))
            continue;
        int64_t ext = ls_att_extent(a, d), n = a->size[d] / ext;
        fprintf(g->f, "%sconst %s org%d = (%s)(%s / %lld %% %lld) * %lld;\n", ind, g->idx, d,
                g->idx, v, (long long)div, (long long)n, (long long)ext);
        div *= n;
    }
}

/* One K2 step of a partial_reduction tile: every key slot on its own. */
static void emit_step_partial(agen *g)
{
    FILE *f = g->f;
    fprintf(f,
            "        /* the online softmax per key slot (no reduction over K2 inside the "
            "loop) */\n        float P[%lld], w[%lld];\n",
            (long long)g->ss.count, (long long)g->ss.count);
    fprintf(f,
            "#pragma unroll\n        for (int e = 0; e < %lld; ++e) {\n"
            "            const float nmax = ls_amax(pmax[e], S[e]);\n"
            "            const float norm = ls_exp2(ls_add(pmax[e], -nmax));\n"
            "            const float p = ls_exp2(ls_add(S[e], -nmax));\n"
            "            psum[e] = ls_add(ls_mul(norm, psum[e]), p);\n"
            "            pmax[e] = nmax;\n            P[e] = p;\n            w[e] = norm;\n"
            "        }\n",
            (long long)g->ss.count);
    fprintf(f, "        /* the PV update: an elementwise multiply-add per slot and column */\n");
    char ce[600], v[200];
    for (int64_t e = 0; e < g->spa.count; e++) {
        int64_t off[LS_MAX_RANK] = {0};
        cg_att_tuple_off(&g->spa, e, off);
        int ok = cg_att_tuple_cond(g, &g->spa, off, ce, sizeof ce);
        if (ok == 0)
            continue;
        int64_t s = cg_att_find(&g->ss, off);
        cg_att_operand_at(g, 2, off, v, sizeof v);
        fprintf(f,
                "        %s%s%spacc[%lld] = ls_add(ls_mul(w[%lld], pacc[%lld]), "
                "ls_mul(ls_rv(P[%lld]), %s));\n",
                ok == 2 ? "if (" : "", ok == 2 ? ce : "", ok == 2 ? ") " : "", (long long)e,
                (long long)s, (long long)e, (long long)s, v);
    }
}

/* One K2 step of a reduction tile: each step reduces over K2. */
static void emit_step_serial(agen *g)
{
    FILE *f = g->f;
    const ls_attention *a = g->a;
    unsigned smask = g->bmask | g->mmask | g->k2mask, amask = g->bmask | g->mmask | g->nmask;
    fprintf(f, "        /* the row's max over K2 */\n");
    cg_att_emit_reduce(g, &a->qk, smask, g->k2mask, K_MAX, s_elem, "mred");
    fprintf(f, "        float nmax[%lld], norm[%lld];\n", (long long)g->sr.count,
            (long long)g->sr.count);
    fprintf(f,
            "#pragma unroll\n        for (int r = 0; r < %lld; ++r) {\n"
            "            nmax[r] = ls_amax(mred[r], mx[r]);\n"
            "            norm[r] = ls_exp2(ls_add(mx[r], -nmax[r]));\n        }\n",
            (long long)g->sr.count);
    fprintf(f, "        float P[%lld];\n", (long long)g->ss.count);
    for (int64_t e = 0; e < g->ss.count; e++) {
        int64_t off[LS_MAX_RANK] = {0};
        cg_att_tuple_off(&g->ss, e, off);
        fprintf(f, "        P[%lld] = ls_exp2(ls_add(S[%lld], -nmax[%lld]));\n", (long long)e,
                (long long)e, (long long)cg_att_find(&g->sr, off));
    }
    fprintf(f, "        /* the row's sum over K2 */\n");
    cg_att_emit_reduce(g, &a->qk, smask, g->k2mask, K_ADD, p_elem, "sred");
    fprintf(f,
            "#pragma unroll\n        for (int r = 0; r < %lld; ++r) {\n"
            "            sm[r] = ls_add(sred[r], ls_mul(norm[r], sm[r]));\n"
            "            mx[r] = nmax[r];\n        }\n",
            (long long)g->sr.count);
    fprintf(f, "        /* PV: the contraction over K2 */\n");
    cg_att_emit_reduce(g, &a->pv, amask | g->k2mask, g->k2mask, K_CHAIN, pv_elem, "ared");
    for (int64_t e = 0; e < g->sa.count; e++) {
        int64_t off[LS_MAX_RANK] = {0};
        cg_att_tuple_off(&g->sa, e, off);
        fprintf(f, "        acc[%lld] = ls_add(ared[%lld], ls_mul(norm[%lld], acc[%lld]));\n",
                (long long)e, (long long)e, (long long)cg_att_find(&g->sr, off), (long long)e);
    }
}

/* After a partial loop: mergeReductions with the op's inits. */
static void emit_merge(agen *g)
{
    FILE *f = g->f;
    const ls_attention *a = g->a;
    unsigned smask = g->bmask | g->mmask | g->k2mask, amask = g->bmask | g->mmask | g->nmask;
    fprintf(f,
            "\n    /* mergeReductions: the slots' max, their rescaled sums and accs over K2, "
            "then the op's inits */\n    float mx[%lld], acc[%lld];\n",
            (long long)g->sr.count, (long long)g->sa.count);
    /* an unstored online_attention sum is dead: IREE erases its merge */
    bool sum = !g->online || g->stored[2];
    if (sum)
        fprintf(f, "    float sm[%lld];\n", (long long)g->sr.count);
    fprintf(f, "    {\n");
    cg_att_emit_reduce(g, &a->qk, smask, g->k2mask, K_MAX, pmax_elem, "mred");
    fprintf(f,
            "#pragma unroll\n        for (int r = 0; r < %lld; ++r)\n"
            "            mx[r] = ls_amax(%s, mred[r]);\n",
            (long long)g->sr.count, g->init_lit[1]);
    fprintf(f, "        float w[%lld];\n", (long long)g->ss.count);
    for (int64_t e = 0; e < g->ss.count; e++) {
        int64_t off[LS_MAX_RANK] = {0};
        cg_att_tuple_off(&g->ss, e, off);
        fprintf(f, "        w[%lld] = ls_exp2(ls_add(pmax[%lld], -mx[%lld]));\n", (long long)e,
                (long long)e, (long long)cg_att_find(&g->sr, off));
    }
    if (sum) {
        cg_att_emit_reduce(g, &a->qk, smask, g->k2mask, K_ADD, wsum_elem, "sred");
        fprintf(f,
                "#pragma unroll\n        for (int r = 0; r < %lld; ++r)\n"
                "            sm[r] = ls_add(%s, sred[r]);\n",
                (long long)g->sr.count, g->init_lit[2]);
    }
    cg_att_emit_reduce(g, &a->pv, amask | g->k2mask, g->k2mask, K_ADD, wacc_elem, "ared");
    fprintf(f,
            "#pragma unroll\n        for (int e = 0; e < %lld; ++e)\n"
            "            acc[e] = ls_add(%s, ared[e]);\n    }\n",
            (long long)g->sa.count, g->init_lit[0]);
}

static ls_status refuse(const ls_attention *a, ls_diag *diag, const char *why)
{
    return ls_diag_set(diag, LS_ERR_INVALID, a->file, a->line, a->col,
                       "%s: the CUDA generator cannot express it: %s", a->name, why);
}

/* What the generator cannot express yet, beyond what the values run
 * refuses (ls_attention_values_check): the reason, or NULL. */
static const char *unsupported(const ls_attention *a, const ls_dop *o)
{
    if (a->subgroup_size != 32)
        return "its subgroups are not 32 lanes wide (an NVIDIA target's warp)";
    if (a->has_mask && o->operand[4].producer < 0) {
        ls_elem_type mt = ls_elem_type_from_name(o->operand[4].elem, strlen(o->operand[4].elem));
        if (mt != LS_ET_F16 && mt != LS_ET_BF16 && mt != LS_ET_F32 && mt != LS_ET_I1 &&
            mt != LS_ET_I8)
            return "its mask is not f16, bf16, f32, i1 or i8";
    }
    for (int k = 0; k < 3; k++) /* the mask's: above */
        if (!cg_storage_type(
                ls_elem_type_from_name(o->operand[k].elem, strlen(o->operand[k].elem))))
            return "an operand's type has no CUDA storage type";
    /* the two layouts agree on the dims both matmuls have (the engine's
     * view refuses them otherwise, with the reason) */
    for (int i = 0; i < a->qk.rank; i++)
        for (int j = 0; j < a->pv.rank; j++) {
            if (a->qk.dim[i] != a->pv.dim[j])
                continue;
            const ls_nested_layout *x = &a->qk.layout, *y = &a->pv.layout;
            if (x->subgroup_tile[i] != y->subgroup_tile[j] ||
                x->batch_tile[i] != y->batch_tile[j] || x->outer_tile[i] != y->outer_tile[j] ||
                x->thread_tile[i] != y->thread_tile[j] ||
                x->element_tile[i] != y->element_tile[j] ||
                x->subgroup_strides[i] != y->subgroup_strides[j] ||
                x->thread_strides[i] != y->thread_strides[j])
                return "qk_attrs and pv_attrs lay out a dim they share apart (`lanescope sim` "
                       "says which)";
        }
    return NULL;
}

/* Types, helpers and the constants of the op. */
static void emit_prelude(agen *g, const char *source_name, const ls_cuda_att_launch *L)
{
    FILE *f = g->f;
    const ls_attention *a = g->a;
    fprintf(f,
            "/* lanescope measure: CUDA C for %s of %s, as IREE's VectorDistribute pipeline "
            "lowers it (docs/attention-lowering.md; sim/attention_lanes.c runs the same steps "
            "lane by lane).\n",
            a->name, source_name);
    fprintf(f,
            " *   %s; K2 %s tile, %lld iteration%s; grid %u x 1 x 1, block %u x 1 x 1 "
            "(%lld subgroups of 32), %lld bytes of shared memory\n",
            g->online ? "online_attention: acc, max and sum stored as computed"
                      : "attention: out = acc * (1 / sum), IREE's conversion to online_attention",
            a->partial ? "partial_reduction (a max, sum and acc per key slot, merged after "
                         "the loop)"
                       : "reduction (each step reduces over K2)",
            (long long)a->iterations, a->iterations == 1 ? "" : "s", L->grid[0], L->block[0],
            (long long)(a->workgroup_size / 32), (long long)L->smem_bytes);
    fprintf(f, " *   per thread: %lld query elements, %lld scores a step, %lld accumulators\n",
            (long long)g->sq.count, (long long)g->ss.count,
            (long long)(a->partial ? g->spa.count : g->sa.count));
    fprintf(f, " *   the scores: one FMA chain per score over the thread's K1 elements, last "
               "first (ContractToChainFMA), then gpu.subgroup_reduce as XOR butterflies\n"
               " *   exp2 as IREE compiles it for NVIDIA: exp(x * ln 2) by MLIR's polynomial "
               "(MathTransform.cpp), the simulator's text\n"
               " *   the K2 loop is kept rolled; each value is stored by one thread of the set "
               "holding it\n");
    for (int k = 1; k < 3; k++)
        if (g->prom[k])
            fprintf(f,
                    " *   promote_operands: the %s's tile copied to workgroup memory every step "
                    "in the derived thread layout, element by element (IREE's copy reads are "
                    "vectors)\n",
                    k == 1 ? "key" : "value");
    fprintf(f, " */\n");
    fprintf(f, "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n\n");
    static const char *role[5] = {"query", "key", "value", "", "mask"};
    for (int i = 0; i < L->n_inputs; i++) {
        int k = L->operand[i];
        ls_elem_type t = L->input_type[i];
        if (L->role[i] == LS_ATT_IN_INDICES)
            fprintf(f, "typedef %s ls_ix%d_t; /* the %s's gather's indices: %s */\n",
                    t == LS_ET_I32 ? "int" : "long long", k, role[k],
                    ls_elem_type_name(g->gather[k]->index_elem));
        else
            fprintf(f, "typedef %s ls_in%d_t; /* the %s%s: %s */\n",
                    t == LS_ET_I1 ? "unsigned char" : cg_storage_type(t), k, role[k],
                    L->role[i] == LS_ATT_IN_SOURCE ? "'s gather's source" : "",
                    ls_elem_type_name(t));
    }
    for (int r = 0; r < 3; r++)
        if (g->stored[r])
            fprintf(f, "typedef %s ls_out%d_t; /* result %d: %s */\n",
                    cg_storage_type(g->out_type[r]), r, r, ls_elem_type_name(g->out_type[r]));
    fprintf(f, "typedef %s ls_idx_t;\n", g->idx);
    cg_emit_helper(f, "ls_maxminf(");
    cg_emit_helper(f, "ls_mlir_");
    cg_att_emit_work_type(g);
    if (g->mask_op)
        cg_att_emit_mask_fn(g);
    fprintf(f, "\n/* maximumf, which NVIDIA keeps (ROCm's ReplaceSlowMinMaxOps makes it maxnumf) "
               "*/\nstatic __device__ __forceinline__ float ls_amax(float a, float b) "
               "{ return ls_maxminf(a, b, true, true); }\n");
    fprintf(f,
            "/* math.exp2 as IREE compiles it for NVIDIA: exp(x * ln 2), the product in "
            "the work type */\nstatic __device__ __forceinline__ float ls_exp2(float x) "
            "{ return ls_rt(ls_mlir_exp(ls_mul(x, %af))); }\n",
            cg_att_et_const(g, 0.69314718055994530942));
    fprintf(f,
            "/* P truncated to the value's type before the PV update */\n"
            "static __device__ __forceinline__ float ls_rv(float x) { return %s(%s(x)); }\n",
            cg_to_float(g->type[2]), cg_from_float(g->type[2]));
    fprintf(f,
            "/* Q' = Q * (scale * log2e), rounded to the query's type */\n"
            "static __device__ __forceinline__ float ls_rq(float x) { return %s(%s(x)); }\n",
            cg_to_float(g->type[0]), cg_from_float(g->type[0]));
}

/* Q' = Q * (scale * log2e) in the query's type, once before the loop. */
static void emit_query(agen *g)
{
    FILE *f = g->f;
    fprintf(f,
            "    /* Q' = Q * (scale * log2e) in the query's type, once (computeQKAndElementwise; "
            "LICM hoists it) */\n");
    cg_att_emit_base(g, &g->o->operand[0], "ab0", "    ");
    fprintf(f, "    float qs[%lld];\n", (long long)g->sq.count);
    char ce[600], v[200];
    for (int64_t e = 0; e < g->sq.count; e++) {
        int64_t off[LS_MAX_RANK] = {0};
        cg_att_tuple_off(&g->sq, e, off);
        int ok = cg_att_tuple_cond(g, &g->sq, off, ce, sizeof ce);
        cg_att_operand_at(g, 0, off, v, sizeof v);
        if (ok == 0)
            fprintf(f, "    qs[%lld] = 0.0f;\n", (long long)e);
        else
            fprintf(f, "    qs[%lld] = %s%s%sls_rq(__fmul_rn(%s, %af))%s;\n", (long long)e,
                    ok == 2 ? "(" : "", ok == 2 ? ce : "", ok == 2 ? ") ? " : "", v,
                    (double)g->sprime, ok == 2 ? " : 0.0f" : "");
    }
}

/* The carried values before the loop: a partial tile's slots, or the
 * op's inits. */
static void emit_carried_init(agen *g)
{
    FILE *f = g->f;
    const ls_attention *a = g->a;
    if (a->partial)
        fprintf(f,
                "    /* the partial results, one per key slot "
                "(generateInitialTensorForPartialReduction) */\n"
                "    float pmax[%lld], psum[%lld], pacc[%lld];\n"
                "#pragma unroll\n    for (int e = 0; e < %lld; ++e) {\n"
                "        pmax[e] = %af; /* the work type's lowest finite value */\n"
                "        psum[e] = 0.0f;\n    }\n"
                "#pragma unroll\n    for (int e = 0; e < %lld; ++e)\n"
                "        pacc[e] = 0.0f;\n",
                (long long)g->ss.count, (long long)g->ss.count, (long long)g->spa.count,
                (long long)g->ss.count, cg_att_et_lowest(g), (long long)g->spa.count);
    else
        fprintf(f,
                "    /* the carried max, sum and acc from the op's inits */\n"
                "    float mx[%lld], sm[%lld], acc[%lld];\n"
                "#pragma unroll\n    for (int r = 0; r < %lld; ++r) {\n"
                "        mx[r] = %s;\n        sm[r] = %s;\n    }\n"
                "#pragma unroll\n    for (int e = 0; e < %lld; ++e)\n"
                "        acc[e] = %s;\n",
                (long long)g->sr.count, (long long)g->sr.count, (long long)g->sa.count,
                (long long)g->sr.count, g->init_lit[1], g->init_lit[2], (long long)g->sa.count,
                g->init_lit[0]);
}

/* The kernel's body: setup, the K2 loop, the merge, the stores. */
static void emit_kernel(agen *g, const ls_cuda_att_launch *L)
{
    FILE *f = g->f;
    const ls_attention *a = g->a;
    fprintf(f, "\nextern \"C\" __global__ void __launch_bounds__(%lld)\nlanescope_attention(",
            (long long)a->workgroup_size);
    for (int i = 0; i < L->n_inputs; i++) /* an alias: the same tensor, read only */
        fprintf(f,
                L->role[i] == LS_ATT_IN_INDICES ? "const ls_ix%d_t *%six%d, "
                                                : "const ls_in%d_t *%sin%d, ",
                L->operand[i], L->alias[i] < 0 ? "__restrict__ " : "", L->operand[i]);
    for (int i = 0; i < L->n_outputs; i++)
        fprintf(f, "ls_out%d_t *__restrict__ out%d%s", L->result[i], L->result[i],
                i + 1 < L->n_outputs ? ", " : ")\n{\n");
    fprintf(f, "    const int tid = threadIdx.x, lane = tid %% 32, sg = tid / 32;\n"
               "    (void)lane;\n    (void)sg;\n");
    fprintf(f, "    /* the workgroup's tile: B and M tiles x N tiles, last dim fastest */\n");
    emit_origins(g, g->bmask | g->mmask | g->nmask, "blockIdx.x", "    ");
    for (int d = 0; d < a->rank; d++)
        if (g->k1mask >> d & 1)
            fprintf(f, "    const %s org%d = 0; /* K1: whole in every step */\n", g->idx, d);
    fprintf(f, "    /* the thread's part of each dim: subgroup and lane ids through the "
               "nested layouts */\n");
    emit_bases(g);
    cg_att_emit_promote_setup(g);
    emit_query(g);
    emit_carried_init(g);
    fprintf(f,
            "\n    /* scf.for over the K2 tiles: %lld iteration%s, kept rolled */\n"
            "#pragma unroll 1\n    for (int it = 0; it < %lld; ++it) {\n",
            (long long)a->iterations, a->iterations == 1 ? "" : "s", (long long)a->iterations);
    emit_origins(g, g->k2mask, "it", "        ");
    for (int k = 1; k < 3; k++)
        if (g->gather[k])
            cg_att_emit_gather_bases(g, k);
        else if (!g->prom[k])
            cg_att_emit_base(g, &g->o->operand[k], k == 1 ? "ab1" : "ab2", "        ");
    for (int k = 1; k < 3; k++)
        cg_att_emit_vector_reads(g, k);
    cg_att_emit_promote_copy(g);
    fprintf(f, "        /* S = Q' K over K1 (the contraction's accumulator: the fill 0) */\n");
    unsigned smask = g->bmask | g->mmask | g->k2mask;
    cg_att_emit_reduce(g, &a->qk, smask | g->k1mask, g->k1mask, K_CHAIN, qk_elem, "sk");
    fprintf(f,
            "        float S[%lld];\n#pragma unroll\n        for (int e = 0; e < %lld; ++e)\n"
            "            S[e] = __fadd_rn(sk[e], 0.0f);\n",
            (long long)g->ss.count, (long long)g->ss.count);
    if (g->mask)
        cg_att_emit_mask(g);
    if (a->partial)
        emit_step_partial(g);
    else
        emit_step_serial(g);
    fprintf(f, "    }\n");
    if (a->partial)
        emit_merge(g);
    fprintf(f, "\n");
    if (g->online) {
        if (g->stored[0])
            emit_store(g, 0, &g->sa, "acc", "acc");
        if (g->stored[1])
            emit_store(g, 1, &g->sr, "max", "mx");
        if (g->stored[2])
            emit_store(g, 2, &g->sr, "sum", "sm");
    } else {
        /* 1 / sum, then the product: the conversion's elementwise generic */
        emit_store(g, 0, &g->sa, "out = acc * (1 / sum), truncated to the output's type", NULL);
    }
    fprintf(f, "}\n");
}

/* The generation state of attention a: its operands' and results' types,
 * its gathers, mask and promotions, its work type. */
static void gen_setup(agen *g, const ls_module *m, const ls_module_attention *ma,
                      const ls_attention *a, const ls_att_view *view)
{
    const ls_dispatch *dsp = &m->dispatches[ma->dispatch];
    memset(g, 0, sizeof *g);
    g->a = a;
    g->o = &dsp->ops[ma->op];
    g->t = ls_plan_target_from_arch("sm_90"); /* NVIDIA's lowering: XOR butterflies */
    g->online = g->o->n_inits == 3;
    for (int k = 0; k < g->o->n_inputs && k < 5; k++)
        g->type[k] = ls_elem_type_from_name(g->o->operand[k].elem, strlen(g->o->operand[k].elem));
    g->mask = a->has_mask;
    g->vp = ls_att_view_plan(view);
    g->ma = ma;
    g->mask_op = a->has_mask ? ls_att_mask_op(m, ma) : NULL;
    for (int k = 1; k < 3; k++)
        if (ma->gather[k].on) {
            const ls_module_gather *ga = &ma->gather[k];
            g->gather[k] = ga;
            g->batch_rank[k] = g->o->operand[k].map_n - (ga->source_rank - ga->depth);
            g->slice[k] = 1; /* the operand's trailing dims (ls_att_gather_problem) */
            for (int j = g->batch_rank[k]; j < g->o->operand[k].map_n; j++)
                g->slice[k] *= a->size[g->o->operand[k].map[j]];
        }
    for (int k = 1; k < 3; k++)
        g->prom[k] = g->vp->promote[k - 1].on;
    for (int r = 0; r < g->o->n_inits; r++) {
        const ls_dop_operand *op = &g->o->operand[g->o->n_inputs + r];
        g->out_type[r] = ls_elem_type_from_name(op->elem, strlen(op->elem));
        g->stored[r] = ls_att_result_stored(dsp, g->o, r);
    }
    ls_elem_type et = g->online ? g->out_type[0] : LS_ET_F32;
    g->et = et;
}

/* Its loop roles, the scaled query's factor, the inits as literals, and
 * the index spaces of the per-thread arrays. */
static void gen_constants(agen *g, const ls_module_attention *ma)
{
    const ls_attention *a = g->a;
    ls_elem_type et = g->et;
    g->bmask = cg_att_mask_of(a->dims.batch, a->dims.n_batch);
    g->mmask = cg_att_mask_of(a->dims.m, a->dims.n_m);
    g->k1mask = cg_att_mask_of(a->dims.k1, a->dims.n_k1);
    g->k2mask = cg_att_mask_of(a->dims.k2, a->dims.n_k2);
    g->nmask = cg_att_mask_of(a->dims.n, a->dims.n_n);
    /* s' = scale * log2e, both in the scale's type (sim/attention_run.c) */
    ls_elem_type stt = g->type[0];
    double sv = ls_value_to_double(ma->scale_bits, ma->scale_type);
    double l2e = ls_value_to_double(ls_value_from_double(1.44269504088896340736, stt), stt);
    g->sprime = (float)ls_value_to_double(ls_value_from_double(sv * l2e, stt), stt);
    /* the inits: an online_attention's fills (else IREE's), an attention's
     * conversion's: acc 0, max -FLT_MAX, sum 0 */
    g->init[0] = 0.0f;
    g->init[1] = -FLT_MAX;
    g->init[2] = 0.0f;
    for (int r = 0; g->online && r < 3; r++)
        if (ma->init_filled[r])
            g->init[r] = (float)ls_value_to_double(ma->init_bits[r], et);
    for (int r = 0; r < 3; r++) { /* exact literals; a fill of -inf (IREE's tests) too */
        uint32_t bits;
        memcpy(&bits, &g->init[r], sizeof bits);
        if (isfinite(g->init[r]))
            snprintf(g->init_lit[r], sizeof g->init_lit[r], "%af", (double)g->init[r]);
        else
            snprintf(g->init_lit[r], sizeof g->init_lit[r], "__uint_as_float(0x%08xu)", bits);
    }
    unsigned rows = g->bmask | g->mmask;
    g->sq = cg_att_space(&a->qk, rows | g->k1mask);
    g->ss = cg_att_space(&a->qk, rows | g->k2mask);
    g->sr = cg_att_space(&a->qk, rows);
    g->spa = cg_att_space(&a->pv, rows | g->k2mask | g->nmask);
    g->sa = cg_att_space(&a->pv, rows | g->nmask);
}

ls_status ls_cuda_generate_attention(const ls_module *m, const ls_module_attention *ma,
                                     const ls_attention *a, const ls_att_view *view,
                                     const char *source_name, char **src, ls_cuda_att_launch *L,
                                     ls_diag *diag)
{
    *src = NULL;
    memset(L, 0, sizeof *L);
    ls_status st = ls_attention_values_check(m, ma, a, diag);
    if (st)
        return st;
    agen g;
    char whybuf[400];
    gen_setup(&g, m, ma, a, view);
    if (g.mask_op && !cg_insts_supported(&g.mask_op->body, a->file, whybuf, sizeof whybuf))
        return refuse(a, diag, whybuf);
    const char *why = unsupported(a, g.o);
    if (why)
        return refuse(a, diag, why);
    gen_constants(&g, ma);
    for (int k = 1; k < 3; k++) /* after the loop roles */
        cg_att_vector_width(&g, k);
    /* each score's chain runs over the thread's K1 elements, each column's
     * PV update over its key slots: the unrolled lines, before writing them */
    int64_t k1 = cg_att_space(&a->qk, g.k1mask).count, k2 = cg_att_space(&a->pv, g.k2mask).count;
    int64_t est = g.ss.count * k1 + g.spa.count + g.sa.count * k2 + g.sq.count;
    if (est > LS_CUDA_MAX_LINES)
        return ls_diag_set(diag, LS_ERR_LIMIT, a->file, a->line, a->col,
                           "%s: the generated kernel would run %lld unrolled operations a "
                           "thread; the CUDA generator's limit is %d",
                           a->name, (long long)est, LS_CUDA_MAX_LINES);
    if (!cg_att_fill_launch(&g, L))
        return refuse(a, diag, "the dispatch stores none of its results");
    /* the kernel's body first (it knows the buffer's size), then the rest */
    char *body = NULL, *text = NULL;
    size_t blen = 0, len = 0;
    g.f = open_memstream(&body, &blen);
    emit_kernel(&g, L);
    fclose(g.f);
    for (int k = 1; k < 3; k++)
        free(g.vgroup[k]);
    L->smem_bytes = g.buf_floats * 4;
    for (int k = 1; k < 3; k++)
        L->smem_bytes += g.prom[k] ? g.vp->promote[k - 1].bytes : 0;
    if (L->smem_bytes > 48 * 1024) {
        free(body);
        return ls_diag_set(diag, LS_ERR_LIMIT, a->file, a->line, a->col,
                           "%s: the reductions' and promoted operands' workgroup buffers "
                           "need %lld bytes; static shared memory is limited to 49152",
                           a->name, (long long)L->smem_bytes);
    }
    g.f = open_memstream(&text, &len);
    emit_prelude(&g, source_name, L);
    if (g.buf_floats > 0)
        fprintf(g.f,
                "\n/* the partials of a reduction whose reduced loops subgroups split */\n"
                "__shared__ float ls_red_buf[%lld];\n",
                (long long)g.buf_floats);
    for (int k = 1; k < 3; k++)
        if (g.vw[k] > 1)
            fprintf(g.f,
                    "typedef struct __align__(%lld) { ls_in%d_t e[%lld]; } ls_v%d_t; /* one "
                    "%lld-byte load of the %s */\n",
                    (long long)(g.vw[k] * ls_elem_type_bits(g.type[k]) / 8), k, (long long)g.vw[k],
                    k, (long long)(g.vw[k] * ls_elem_type_bits(g.type[k]) / 8),
                    k == 1 ? "key" : "value");
    for (int k = 1; k < 3; k++)
        if (g.prom[k]) {
            char ty[160];
            ls_plan_promote_type(g.vp, k - 1, ty, sizeof ty);
            fprintf(g.f,
                    "/* promote_operands: operand %d through workgroup memory, %s */\n"
                    "__shared__ ls_in%d_t prom%d[%lld];\n",
                    k, ty, k, k,
                    (long long)(g.vp->promote[k - 1].bytes / (ls_elem_type_bits(g.type[k]) / 8)));
        }
    fputs(body, g.f);
    fclose(g.f);
    free(body);
    *src = text;
    return LS_OK;
}
