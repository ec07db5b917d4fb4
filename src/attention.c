/* attention.c: an attention op's tiles and its two matmuls' nested layouts
 * (see attention.h), as IREE derives them:
 *   - the configs: the op's lowering_config (workgroup and K2 tiles) and
 *     the decomposition_config's qk_attrs / pv_attrs, as written, or
 *     setAttentionReductionConfig's (suggest_attention.c);
 *   - each matmul's loops: DecomposeAttention builds the QK generic over
 *     the op's loops less N and the PV generic over them less K1
 *     (Dialect/LinalgExt/IR/AggregatedOpInterfaceImpl.cpp), in the op's
 *     order; per workgroup and K2 tile, B, M and N take their workgroup
 *     tile, K2 its tile and K1 its whole size;
 *   - the layout: LLVMGPUConfigureTensorLayouts' setGPULoweringConfigLayout
 *     (LLVMGPU/LLVMGPUConfigureTensorLayouts.cpp): subgroup tile and stride
 *     from subgroup_basis, then lane tile and stride from lane_basis (a
 *     basis entry no loop maps to replicates), element = thread (0 -> 1),
 *     batch = what remains, outer = 1 (docs/attention-lowering.md §4.1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/attention.h"
#include "lanescope/layout.h"

static int64_t ceil_div(int64_t a, int64_t b)
{
    return a / b + (a % b != 0);
}


/* A suggestion's qk or pv half as the lowering_config IREE prints. */
static void config_of_part(const ls_attention_part *pt, int op_rank, ls_lowering_config *c)
{
    memset(c, 0, sizeof *c);
    c->thread.n = pt->n_thread;
    c->lane_basis.counts.n = c->subgroup_basis.counts.n = op_rank;
    c->lane_basis.mapping.n = c->subgroup_basis.mapping.n = pt->n_thread;
    for (int i = 0; i < pt->n_thread; i++) {
        c->thread.v[i] = pt->thread[i];
        c->lane_basis.mapping.v[i] = pt->lane_mapping[i];
        c->subgroup_basis.mapping.v[i] = pt->subgroup_mapping[i];
    }
    for (int i = 0; i < op_rank; i++) {
        c->lane_basis.counts.v[i] = pt->lane_counts[i];
        c->subgroup_basis.counts.v[i] = pt->subgroup_counts[i];
    }
    c->thread.present = c->lane_basis.present = c->subgroup_basis.present = true;
}

static int64_t product(const ls_i64_list *l)
{
    int64_t p = 1;
    for (int i = 0; i < l->n; i++)
        p *= l->v[i];
    return p;
}

/* One matmul (QK: the op's loops less N; PV: less K1): bounds and layout. */
static ls_status matmul(const ls_attention *a, bool is_qk, const ls_lowering_config *cfg,
                        ls_att_matmul *mm, ls_diag *diag)
{
    const ls_attention_dims *ad = &a->dims;
    const char *which = is_qk ? "qk" : "pv";
    const int *drop = is_qk ? ad->n : ad->k1;
    int n_drop = is_qk ? ad->n_n : ad->n_k1;
    memset(mm, 0, sizeof *mm);
    mm->config = *cfg;
    for (int d = 0; d < a->rank; d++) {
        if (ls_att_dim_in(drop, n_drop, d))
            continue;
        int i = mm->rank++;
        mm->dim[i] = d;
        /* a tile past the dim is the dim: the layout spreads what the
         * slice holds (as src/layout.c bounds a one-workgroup dim) */
        mm->bound[i] = ls_att_extent(a, d);
        /* QK contracts K1; PV contracts K2 only when the K2 loop is serial
         * (a partial K2 tile keeps a slot per key: §2.2) */
        mm->reduced[i] = is_qk ? ls_att_dim_in(ad->k1, ad->n_k1, d)
                               : !a->partial && ls_att_dim_in(ad->k2, ad->n_k2, d);
    }
    int cl = cfg->line ? cfg->line : a->line, cc = cfg->line ? cfg->col : a->col;
    if (cfg->thread.n != mm->rank || cfg->lane_basis.mapping.n != mm->rank ||
        cfg->subgroup_basis.mapping.n != mm->rank)
        return ls_diag_set(diag, LS_ERR_INVALID, a->file, cl, cc,
                           "%s_attrs' lowering_config: thread and the basis mappings need one "
                           "entry per loop of the %s matmul (%d: the op's loops less %s), found "
                           "%d, %d and %d",
                           which, is_qk ? "QK" : "PV", mm->rank, is_qk ? "N" : "K1",
                           cfg->thread.n, cfg->lane_basis.mapping.n,
                           cfg->subgroup_basis.mapping.n);
    for (int i = 0; i < mm->rank; i++) {
        int64_t lm = cfg->lane_basis.mapping.v[i], sm = cfg->subgroup_basis.mapping.v[i];
        if (lm < 0 || lm >= cfg->lane_basis.counts.n || sm < 0 || sm >= cfg->subgroup_basis.counts.n)
            return ls_diag_set(diag, LS_ERR_INVALID, a->file, cl, cc,
                               "%s_attrs' lowering_config: mapping entry %d names a basis count "
                               "that does not exist",
                               which, i);
    }
    int64_t lane_sz[LS_MAX_RANK], lane_st[LS_MAX_RANK], sg_sz[LS_MAX_RANK], sg_st[LS_MAX_RANK];
    ls_basis_dims(&cfg->lane_basis, mm->rank, lane_sz, lane_st);
    ls_basis_dims(&cfg->subgroup_basis, mm->rank, sg_sz, sg_st);
    ls_nested_layout *l = &mm->layout;
    l->rank = mm->rank;
    mm->lanes_used = mm->subgroups_used = 1;
    for (int i = 0; i < mm->rank; i++) {
        int64_t b = mm->bound[i];
        if (b <= 0 || lane_sz[i] <= 0 || sg_sz[i] <= 0)
            return ls_diag_set(diag, LS_ERR_INVALID, a->file, cl, cc,
                               "%s_attrs' lowering_config: a basis count of 0 or less", which);
        l->subgroup_tile[i] = sg_sz[i];
        l->subgroup_strides[i] = sg_sz[i] > 1 ? sg_st[i] : 0;
        b = ceil_div(b, sg_sz[i]);
        l->thread_tile[i] = lane_sz[i];
        l->thread_strides[i] = lane_sz[i] > 1 ? lane_st[i] : 0;
        b = ceil_div(b, lane_sz[i]);
        l->element_tile[i] = cfg->thread.v[i] > 0 ? cfg->thread.v[i] : 1;
        l->batch_tile[i] = ceil_div(b, l->element_tile[i]);
        l->outer_tile[i] = 1;
        mm->lanes_used *= lane_sz[i];
        mm->subgroups_used *= sg_sz[i];
    }
    if (product(&cfg->lane_basis.counts) != a->subgroup_size ||
        product(&cfg->subgroup_basis.counts) * a->subgroup_size != a->workgroup_size)
        return ls_diag_set(diag, LS_ERR_INVALID, a->file, cl, cc,
                           "%s_attrs' lowering_config: lane_basis counts multiply to %lld and "
                           "subgroup_basis counts to %lld, but the workgroup is %lld threads in "
                           "subgroups of %lld (IREE's bases cover the workgroup exactly)",
                           which, (long long)product(&cfg->lane_basis.counts),
                           (long long)product(&cfg->subgroup_basis.counts),
                           (long long)a->workgroup_size, (long long)a->subgroup_size);
    return LS_OK;
}

/* The configs IREE's heuristic gives the op (no config in the input), or
 * with seeds, setAttentionReductionConfig's with those (a sweep's). */
static ls_status suggested(const ls_dispatch *d, int op, const ls_target *t,
                           const ls_attention_seeds *seeds, ls_attention *a,
                           ls_lowering_config *qk, ls_lowering_config *pv, ls_diag *diag)
{
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_status st = seeds ? ls_suggest_attention_seeded(d, op, t, seeds, s, diag)
                         : ls_suggest(d, t, s, diag);
    if (st == LS_OK && (!s->attention || s->root != op))
        st = ls_diag_set(diag, LS_ERR_INVALID, a->file, a->line, a->col,
                         "%s has no lowering_config and IREE's heuristic roots the dispatch at "
                         "another op",
                         a->name);
    if (st == LS_OK) {
        memcpy(a->workgroup, s->att_workgroup, sizeof a->workgroup);
        memcpy(a->k2_tile, s->att_partial, sizeof a->k2_tile);
        a->partial = true;
        a->suggested = true;
        a->workgroup_size = s->workgroup_size;
        a->subgroup_size = s->subgroup_size;
        config_of_part(&s->qk, a->rank, qk);
        config_of_part(&s->pv, a->rank, pv);
    }
    free(s);
    return st;
}

static ls_status build(const ls_module *m, const ls_module_attention *ma, const ls_target *t,
                       const ls_attention_seeds *seeds, ls_attention *a, ls_diag *diag);

ls_status ls_attention_build(const ls_module *m, const ls_module_attention *ma, const ls_target *t,
                             ls_attention *a, ls_diag *diag)
{
    return build(m, ma, t, NULL, a, diag);
}

ls_status ls_attention_build_seeded(const ls_module *m, const ls_module_attention *ma,
                                    const ls_target *t, const ls_attention_seeds *seeds,
                                    ls_attention *a, ls_diag *diag)
{
    return build(m, ma, t, seeds, a, diag);
}

/* The attention's tiles, sizes and matmul configs from the configs the
 * user gave (the op's lowering_config, its decomposition_config's qk_attrs
 * and pv_attrs, the translation_info), each field honoured or rejected. */
static ls_status from_config(const ls_module_attention *ma, const ls_dop *o, ls_attention *a,
                             ls_lowering_config *qk, ls_lowering_config *pv, ls_diag *diag)
{
    const ls_attention_dims *ad = &a->dims;
    const char *missing = !ma->has_config              ? "a lowering_config"
                          : !ma->has_qk && !ma->has_pv ? "a decomposition_config"
                          : !ma->has_qk                ? "a qk_attrs lowering_config"
                                                       : "a pv_attrs lowering_config";
    if (!ma->has_config || !ma->has_qk || !ma->has_pv)
        return ls_diag_set(diag, LS_ERR_INVALID, a->file, a->line, a->col,
                           "%s has %s but not %s: IREE lays attention out from its "
                           "lowering_config (the tiles) and the decomposition_config's "
                           "qk_attrs and pv_attrs lowering_configs (the two matmuls' "
                           "layouts); give all three, or none for IREE's default",
                           a->name, ma->has_config ? "a lowering_config" : "a decomposition_config",
                           missing);
    if (!ma->has_ti || !ma->ti.has_workgroup_size || !ma->ti.has_subgroup_size)
        return ls_diag_set(diag, LS_ERR_INVALID, a->file, a->line, a->col,
                           "%s has a config but no translation_info with workgroup_size and "
                           "subgroup_size, which its bases must cover",
                           a->name);
    const ls_lowering_config *c = &ma->config;
    /* what the op's own config may say: never a field dropped */
    /* promote_operands on the op is read, and is a no-op for inputs:
     * the VectorDistribute pipeline runs GPUPromoteMatmulOperands with
     * skipOperandPromotion (LLVMGPU/Passes.cpp), which skips DPS inputs
     * (Common/GPU/GPUPromoteMatmulOperands.cpp) */
    if (c->thread.present || c->lane_basis.present || c->subgroup_basis.present || c->n_ignored > 0)
        return ls_diag_set(diag, LS_ERR_INVALID, a->file, c->line, c->col,
                           "%s's lowering_config: IREE's attention reads workgroup, "
                           "partial_reduction, reduction and promote_operands there (thread "
                           "tiles and bases belong in the decomposition_config's qk_attrs and "
                           "pv_attrs)",
                           a->name);
    a->op_promote = c->promote_operands.present;
    for (int i = 0; i < c->promote_operands.n; i++)
        if (c->promote_operands.v[i] < 0 || c->promote_operands.v[i] >= o->n_inputs)
            return ls_diag_set(diag, LS_ERR_INVALID, a->file, c->promote_operands.line,
                               c->promote_operands.col,
                               "%s's promote_operands names operand %lld, which is not one of "
                               "its %d inputs: GPUPromoteMatmulOperands would promote it "
                               "(only inputs are skipped), and lanescope does not lay that "
                               "out",
                               a->name, (long long)c->promote_operands.v[i], o->n_inputs);
    for (int i = 0; i < a->rank; i++) {
        bool k2 = ls_att_dim_in(ad->k2, ad->n_k2, i), k1 = ls_att_dim_in(ad->k1, ad->n_k1, i);
        int64_t pr = i < c->partial_reduction.n ? c->partial_reduction.v[i] : 0;
        int64_t rl = i < c->reduction.n ? c->reduction.v[i] : 0;
        int64_t wg = i < c->workgroup.n ? c->workgroup.v[i] : 0;
        if ((!k2 && (pr || rl)) || ((k1 || k2) && wg))
            return ls_diag_set(diag, LS_ERR_INVALID, a->file, c->line, c->col,
                               "%s's lowering_config tiles d%d (%s) at the %s level: IREE's "
                               "attention configs tile B, M and N per workgroup and K2 at a "
                               "reduction level, and lanescope lays out nothing else",
                               a->name, i,
                               k1   ? "K1"
                               : k2 ? "K2"
                                    : "a parallel dim",
                               wg && (k1 || k2) ? "workgroup"
                               : pr             ? "partial_reduction"
                                                : "reduction");
    }
    bool any_partial = false, any_serial = false;
    for (int i = 0; i < ad->n_k2; i++) {
        int k = ad->k2[i];
        int64_t pr = k < c->partial_reduction.n ? c->partial_reduction.v[k] : 0;
        int64_t rl = k < c->reduction.n ? c->reduction.v[k] : 0;
        any_partial |= pr > 0;
        any_serial |= rl > 0;
        a->k2_tile[k] = pr > 0 ? pr : rl;
    }
    if (any_partial == any_serial)
        return ls_diag_set(diag, LS_ERR_INVALID, a->file, c->line, c->col,
                           "%s's lowering_config tiles K2 at %s: IREE's attention configs "
                           "tile it at exactly one of partial_reduction and reduction",
                           a->name, any_partial ? "both levels" : "neither level");
    a->partial = any_partial;
    for (int i = 0; i < a->rank; i++)
        a->workgroup[i] = i < c->workgroup.n ? c->workgroup.v[i] : 0;
    a->workgroup_size =
        ma->ti.workgroup_size[0] * ma->ti.workgroup_size[1] * ma->ti.workgroup_size[2];
    a->subgroup_size = ma->ti.subgroup_size;
    *qk = ma->qk;
    *pv = ma->pv;
    return LS_OK;
}

static ls_status build(const ls_module *m, const ls_module_attention *ma, const ls_target *t,
                       const ls_attention_seeds *seeds, ls_attention *a, ls_diag *diag)
{
    const ls_dispatch *d = &m->dispatches[ma->dispatch];
    const ls_dop *o = &d->ops[ma->op];
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "@%s:%s", d->func,
             strncmp(o->kind, "iree_linalg_ext.", 16) == 0 ? o->kind + 16 : o->kind);
    snprintf(a->file, sizeof a->file, "%s", d->file);
    a->line = o->line;
    a->col = o->col;
    a->rank = o->rank;
    ls_attention_classify(o, &a->dims);
    const ls_attention_dims *ad = &a->dims;
    if (ad->n_k1 == 0 || ad->n_k2 == 0 || ad->n_n == 0)
        return ls_diag_set(diag, LS_ERR_INVALID, a->file, a->line, a->col,
                           "%s: its maps give no %s dim (AttentionOpDetail), so it has no QK "
                           "and PV matmul to lay out",
                           a->name, ad->n_k1 == 0 ? "K1" : ad->n_k2 == 0 ? "K2" : "N");
    for (int i = 0; i < a->rank; i++) {
        a->size[i] = o->size[i];
        if (a->size[i] == LS_DYN)
            return ls_diag_set(diag, LS_ERR_INVALID, a->file, a->line, a->col,
                               "%s: loop d%d is dynamic ('?'); give its size with --dim %d=N",
                               a->name, i, i);
    }
    snprintf(a->q_elem, sizeof a->q_elem, "%s", o->operand[0].elem);
    snprintf(a->k_elem, sizeof a->k_elem, "%s", o->operand[1].elem);
    snprintf(a->v_elem, sizeof a->v_elem, "%s", o->operand[2].elem);
    a->has_mask = o->n_inputs == 5;
    ls_lowering_config qk, pv;
    if (seeds || (!ma->has_config && !ma->has_qk && !ma->has_pv)) {
        ls_status st = suggested(d, ma->op, t, seeds, a, &qk, &pv, diag);
        if (st)
            return st;
    } else {
        ls_status st = from_config(ma, o, a, &qk, &pv, diag);
        if (st)
            return st;
    }
    ls_status st = matmul(a, true, &qk, &a->qk, diag);
    if (!st)
        st = matmul(a, false, &pv, &a->pv, diag);
    if (st)
        return st;
    a->workgroups = a->iterations = 1;
    for (int i = 0; i < a->rank; i++) {
        if (ls_att_dim_in(ad->k1, ad->n_k1, i))
            continue;
        if (ls_att_dim_in(ad->k2, ad->n_k2, i))
            a->iterations *= ceil_div(a->size[i], a->k2_tile[i] ? a->k2_tile[i] : a->size[i]);
        else
            a->workgroups *= ceil_div(a->size[i], a->workgroup[i] ? a->workgroup[i] : a->size[i]);
    }
    return LS_OK;
}

void ls_att_vector_type(const ls_att_matmul *mm, const int *map, int map_n, const char *elem,
                        char *buf, size_t size)
{
    int loop[LS_MAX_RANK], n = 0;
    for (int j = 0; j < map_n; j++)
        for (int i = 0; i < mm->rank; i++)
            if (mm->dim[i] == map[j])
                loop[n++] = i;
    const ls_nested_layout *l = &mm->layout;
    const int64_t *parts[3] = {l->batch_tile, l->outer_tile, l->element_tile};
    size_t u = (size_t)snprintf(buf, size, "vector<");
    for (int g = 0; g < 3; g++)
        for (int j = 0; j < n && u < size; j++)
            u += (size_t)snprintf(buf + u, size - u, "%lldx", (long long)parts[g][loop[j]]);
    if (u < size)
        snprintf(buf + u, size - u, "%s>", elem);
}

int64_t ls_att_contract_reduces(const ls_att_matmul *mm, bool *cross_subgroup)
{
    const ls_nested_layout *l = &mm->layout;
    int64_t elems = 1, dims = 0;
    *cross_subgroup = false;
    for (int i = 0; i < mm->rank; i++) {
        if (mm->reduced[i]) {
            dims += l->thread_tile[i] > 1;
            *cross_subgroup |= l->subgroup_tile[i] > 1;
        } else {
            elems *= l->batch_tile[i] * l->outer_tile[i] * l->element_tile[i];
        }
    }
    return elems * dims;
}

void ls_att_reduction_of(const ls_att_matmul *mm, const int *loops, int n, ls_plan_target t,
                         ls_att_reduction *r)
{
    const ls_nested_layout *ly = &mm->layout;
    memset(r, 0, sizeof *r);
    int64_t need = 1;
    for (int j = 0; j < n; j++) {
        int i = loops[j];
        if (ly->thread_tile[i] > 1) {
            ls_subgroup_reduce *s = &r->lane[r->n++];
            s->cluster_size = ly->thread_tile[i];
            s->cluster_stride = ly->thread_strides[i];
            ls_plan_lower_subgroup_reduce(s, t);
        }
        if (ly->subgroup_tile[i] > 1) {
            r->cross = true;
            need *= ls_pow2ceil(ly->subgroup_tile[i]);
        }
    }
    r->parts = need;
    if (!r->cross)
        return;
    ls_plan_readback(ly, loops, n, need, &r->back.cluster_size, &r->back.cluster_stride);
    ls_plan_lower_subgroup_reduce(&r->back, t);
}

int64_t ls_att_reduction_ops(const ls_att_reduction *r)
{
    return r->n + (r->cross && r->back.cluster_size > 1);
}

int64_t ls_att_thread_positions(const ls_att_matmul *mm, int64_t tid, int64_t subgroup_size,
                                int i, int64_t *out, int64_t max)
{
    const ls_nested_layout *l = &mm->layout;
    int64_t vt[LS_MAX_BODY], vs[LS_MAX_BODY];
    ls_nl_virtual_thread(l, tid % subgroup_size, vt);
    ls_nl_virtual_subgroup(l, tid / subgroup_size, vs);
    /* batch, outer and element of loop i in order: ascending positions */
    int64_t n = 0;
    for (int64_t b = 0; b < l->batch_tile[i]; b++)
        for (int64_t o = 0; o < l->outer_tile[i]; o++)
            for (int64_t e = 0; e < l->element_tile[i]; e++) {
                int64_t x = (((vs[i] * l->batch_tile[i] + b) * l->outer_tile[i] + o) *
                                 l->thread_tile[i] + vt[i]) * l->element_tile[i] + e;
                if (x >= mm->bound[i])
                    continue;
                if (n < max)
                    out[n] = x;
                n++;
            }
    return n;
}

/* A thread's local tuple f over loops l[0..n) of layout ly: vector order
 * batch.. x outer.. x element.., each row-major over the loops. */
void ls_att_local_decode(const ls_nested_layout *ly, const int *l, int n, int64_t f, int64_t *b,
                         int64_t *o, int64_t *e)
{
    for (int j = n; j-- > 0;) {
        e[j] = f % ly->element_tile[l[j]];
        f /= ly->element_tile[l[j]];
    }
    for (int j = n; j-- > 0;) {
        o[j] = f % ly->outer_tile[l[j]];
        f /= ly->outer_tile[l[j]];
    }
    for (int j = n; j-- > 0;) {
        b[j] = f % ly->batch_tile[l[j]];
        f /= ly->batch_tile[l[j]];
    }
}

int64_t ls_att_local_count(const ls_nested_layout *ly, const int *l, int n)
{
    int64_t c = 1;
    for (int j = 0; j < n; j++)
        c *= ly->batch_tile[l[j]] * ly->outer_tile[l[j]] * ly->element_tile[l[j]];
    return c;
}

int ls_att_loop_of(const ls_att_matmul *mm, int d)
{
    for (int i = 0; i < mm->rank; i++)
        if (mm->dim[i] == d)
            return i;
    return -1;
}

int64_t ls_att_extent(const ls_attention *a, int d)
{
    int64_t tile = ls_att_dim_in(a->dims.k1, a->dims.n_k1, d)   ? 0
                   : ls_att_dim_in(a->dims.k2, a->dims.n_k2, d) ? a->k2_tile[d]
                                                                : a->workgroup[d];
    return tile > 0 && tile < a->size[d] ? tile : a->size[d];
}

int64_t ls_att_step_keys(const ls_attention *a)
{
    int64_t n = 1;
    for (int j = 0; j < a->dims.n_k2; j++)
        n *= ls_att_extent(a, a->dims.k2[j]);
    return n;
}

double ls_att_flops(const ls_attention *a)
{
    double rows_keys = 1, k1 = 1, n = 1;
    for (int d = 0; d < a->rank; d++) {
        if (ls_att_dim_in(a->dims.k1, a->dims.n_k1, d))
            k1 *= (double)a->size[d];
        else if (ls_att_dim_in(a->dims.n, a->dims.n_n, d))
            n *= (double)a->size[d];
        else /* B, M and K2 */
            rows_keys *= (double)a->size[d];
    }
    return 2 * rows_keys * (k1 + n);
}

bool ls_att_result_stored(const ls_dispatch *d, const ls_dop *o, int r)
{
    char name[64];
    snprintf(name, sizeof name, "%s#%d", o->result, r);
    for (int i = 0; i < d->n_stores; i++)
        if (strcmp(d->stored[i], name) == 0 || (r == 0 && strcmp(d->stored[i], o->result) == 0))
            return true;
    return d->n_stores == 0; /* a snippet: every result counts */
}
