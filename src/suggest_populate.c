/* suggest_populate.c: populateConfigInfo of IREE's reduction heuristic
 * (ReductionConfigUtils.cpp): the dispatch's loops tracked across its ops
 * (IterationDimTracker, SliceUtils.cpp), then a config for every compute
 * op whose loops are not covered (getVectorDistributeReductionConfig), and
 * the workgroup tiles they share.  The sizes it starts from are
 * suggest.c's. */
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/suggest.h"
#include "suggest_internal.h"

static int64_t lcm64(int64_t a, int64_t b)
{
    return a / ls_suggest_gcd(a, b) * b;
}

/* ------------------------------------------------------ dim tracking */

typedef struct {
    int parent[LS_DISPATCH_MAX_OPS * LS_MAX_RANK];
    int dim[LS_DISPATCH_MAX_OPS][LS_MAX_RANK]; /* provisional id per op loop */
    int result_dims[LS_DISPATCH_MAX_OPS][LS_DISPATCH_MAX_OPERANDS][LS_MAX_RANK];
    int result_n[LS_DISPATCH_MAX_OPS][LS_DISPATCH_MAX_OPERANDS];
    bool tracked[LS_DISPATCH_MAX_OPS];
} tracker;

static int find(tracker *t, int x)
{
    while (t->parent[x] != x)
        x = t->parent[x] = t->parent[t->parent[x]];
    return x;
}

static void unite(tracker *t, int a, int b)
{
    a = find(t, a);
    b = find(t, b);
    if (a != b)
        t->parent[b] = a;
}

/* IterationDimTracker: fresh ids per op loop (program order), unified
 * through operands produced by tracked ops, dim by dim along the maps;
 * results inherit the ids of their init's map. */
static void track(const ls_dispatch *d, const int *compute, int n, tracker *t)
{
    memset(t, 0, sizeof *t);
    for (int i = 0; i < LS_DISPATCH_MAX_OPS * LS_MAX_RANK; i++)
        t->parent[i] = i;
    for (int c = 0; c < n; c++)
        t->tracked[compute[c]] = true;
    for (int i = 0; i < d->n_ops; i++) {
        if (!t->tracked[i])
            continue;
        const ls_dop *o = &d->ops[i];
        for (int l = 0; l < o->rank; l++)
            t->dim[i][l] = i * LS_MAX_RANK + l;
        for (int k = 0; k < o->n_inputs + o->n_inits; k++) {
            const ls_dop_operand *od = &o->operand[k];
            int p = od->producer;
            if (p < 0 || !t->tracked[p] || od->producer_result >= LS_DISPATCH_MAX_OPERANDS)
                continue;
            int have = t->result_n[p][od->producer_result];
            for (int j = 0; j < od->map_n && j < have; j++)
                if (od->map[j] >= 0)
                    unite(t, t->result_dims[p][od->producer_result][j], t->dim[i][od->map[j]]);
        }
        for (int r = 0; r < o->n_inits; r++) {
            const ls_dop_operand *init = &o->operand[o->n_inputs + r];
            int n_r = 0;
            for (int j = 0; j < init->map_n; j++)
                if (init->map[j] >= 0)
                    t->result_dims[i][r][n_r++] = t->dim[i][init->map[j]];
            t->result_n[i][r] = n_r;
        }
    }
}

static int gdim(tracker *t, int op, int loop)
{
    return find(t, t->dim[op][loop]);
}

/* getVectorDistributeReductionConfig for one op. */
static void op_config(const ls_dispatch *d, int opi, const ls_target *t, int64_t *local_wg,
                      int64_t wg, int64_t sg, int64_t tl, ls_op_config *c, ls_suggestion *s)
{
    const ls_dop *o = &d->ops[opi];
    memset(c, 0, sizeof *c);
    c->op = opi;
    c->rank = o->rank;
    for (int i = 0; i < o->rank; i++) {
        c->lanes[i] = 1;
        c->subgroups[i] = 1;
    }
    if (!ls_suggest_has_reduction(o)) {
        bool all_covered = true;
        for (int i = 0; i < o->rank; i++) {
            c->tile[i] = local_wg[i] != 0 ? 0 : 1;
            all_covered &= local_wg[i] != 0;
        }
        int dd = ls_suggest_last_parallel_dim(o);
        for (int i = o->rank; i-- > 0;)
            if (local_wg[i] == 0) {
                dd = i;
                break;
            }
        int64_t size = o->size[dd] == LS_DYN ? LS_SUGGEST_DYN_TARGET : o->size[dd];
        while (tl > 1 && size % tl != 0)
            tl /= 2;
        int64_t tile = ls_suggest_gcd(size, wg * tl), tb = sg, sb = 1;
        if (!all_covered) {
            while (tile % (tb * tl) != 0)
                tb >>= 1;
            sb = tile / (tb * tl) > 0 ? tile / (tb * tl) : 1;
        } else {
            tile = tl = tb = sb = 1;
        }
        c->tile[dd] = tile;
        c->thread[dd] = tl;
        c->lanes[dd] = tb;
        c->subgroups[dd] = sb;
        ls_suggest_step(s,
                        "%s%s (no reduction): serial on d%d = gcd(%lld, WG x TL) = %lld, "
                        "thread %lld, %lld lanes, %lld subgroups",
                        o->kind, ls_dop_where_of(o).s, dd, (long long)size, (long long)tile,
                        (long long)tl, (long long)tb, (long long)sb);
        return;
    }
    c->is_reduction = true;
    bool all_static = true;
    int n_par = 0;
    for (int i = 0; i < o->rank; i++) {
        all_static &= o->size[i] != LS_DYN;
        n_par += !o->is_reduction[i];
    }
    if (ls_suggest_is_amd(t) && all_static && o->is_contraction && n_par >= 1) {
        int p = -1;
        for (int i = 0; i < o->rank && p < 0; i++)
            if (!o->is_reduction[i] && o->size[i] != 1)
                p = i;
        if (p >= 0) {
            int64_t k = 1, bound = o->size[p];
            for (int64_t f = 2; f < wg / 4 && bound % f == 0 && bound >= f; f *= 2)
                k = f;
            local_wg[p] = k;
            ls_suggest_step(s,
                            "local split-k (ROCm, matvec-like contraction): %lld rows of d%d per "
                            "workgroup (largest power of two below WG/4 = %lld dividing %lld)",
                            (long long)k, p, (long long)(wg / 4), (long long)bound);
        }
    }
    int r = ls_suggest_last_reduction_dim(o);
    for (int i = 0; i < o->rank; i++)
        if (o->is_reduction[i]) {
            c->thread[i] = 1;
            c->tile[i] = 1;
        }
    int64_t size = o->size[r] == LS_DYN ? LS_SUGGEST_DYN_TARGET : o->size[r];
    while (tl > 1 && size % tl != 0)
        tl /= 2;
    int64_t pr = ls_suggest_gcd(wg * tl, size), tb = sg;
    while (pr % (tb * tl) != 0)
        tb >>= 1;
    int64_t sb = pr / (tb * tl) > 0 ? pr / (tb * tl) : 1;
    c->tile[r] = pr;
    c->thread[r] = tl;
    c->lanes[r] = tb;
    c->subgroups[r] = sb;
    ls_suggest_step(s,
                    "%s%s: partial_reduction on d%d = gcd(WG x TL = %lld, %lld) = %lld; thread "
                    "%lld; lanes %lld%s; subgroups %lld",
                    o->kind, ls_dop_where_of(o).s, r, (long long)(wg * tl), (long long)size,
                    (long long)pr, (long long)tl, (long long)tb,
                    tb < sg ? " (fewer than the subgroup: the others duplicate)" : "",
                    (long long)sb);
}

static bool result_used_by_compute(const ls_dispatch *d, int opi, int result, const bool *compute)
{
    for (int i = 0; i < d->n_ops; i++) {
        if (!compute[i])
            continue;
        const ls_dop *o = &d->ops[i];
        for (int k = 0; k < o->n_inputs + o->n_inits; k++)
            if (o->operand[k].producer == opi && o->operand[k].producer_result == result)
                return true;
    }
    return false;
}

void ls_suggest_populate(const ls_dispatch *d, const ls_target *t, const int *compute,
                         int n_compute, const bool *is_compute, int64_t wg, int64_t sg, int64_t tl,
                         ls_suggestion *s)
{
    const ls_dop *root = &d->ops[s->root];
    static const int64_t none = -1;
    tracker *tr = ls_xcalloc(1, sizeof *tr);
    track(d, compute, n_compute, tr);
    int64_t wg_tile[LS_DISPATCH_MAX_OPS * LS_MAX_RANK];
    for (int i = 0; i < LS_DISPATCH_MAX_OPS * LS_MAX_RANK; i++)
        wg_tile[i] = none;
    for (int l = 0; l < root->rank; l++)
        if (!root->is_reduction[l])
            wg_tile[gdim(tr, s->root, l)] = 1;
    for (int c = 0; c < n_compute; c++) {
        int oi = compute[c];
        const ls_dop *o = &d->ops[oi];
        bool covered[LS_MAX_RANK] = {false};
        for (int l = 0; l < o->rank; l++)
            covered[l] = wg_tile[gdim(tr, oi, l)] != none;
        for (int k = 0; k < o->n_inits; k++) {
            if (!result_used_by_compute(d, oi, k, is_compute))
                continue;
            const ls_dop_operand *init = &o->operand[o->n_inputs + k];
            for (int j = 0; j < init->map_n; j++)
                if (init->map[j] >= 0)
                    covered[init->map[j]] = true;
        }
        bool needs = false;
        for (int l = 0; l < o->rank; l++)
            needs |= !covered[l];
        if (!needs) {
            ls_suggest_step(s,
                            "%s%s needs no config: its consumers and the shared dims cover "
                            "every loop",
                            o->kind, ls_dop_where_of(o).s);
            continue;
        }
        int64_t local[LS_MAX_RANK];
        for (int l = 0; l < o->rank; l++) {
            int64_t v = wg_tile[gdim(tr, oi, l)];
            local[l] = v == none ? 0 : v;
        }
        ls_op_config *cfg = &s->configs[s->n_configs++];
        op_config(d, oi, t, local, wg, sg, tl, cfg, s);
        for (int l = 0; l < o->rank; l++) {
            int g = gdim(tr, oi, l);
            if (wg_tile[g] != none && local[l] > wg_tile[g])
                wg_tile[g] = lcm64(wg_tile[g], local[l]);
        }
    }
    for (int k = 0; k < s->n_configs; k++) {
        ls_op_config *cfg = &s->configs[k];
        for (int l = 0; l < cfg->rank; l++) {
            int64_t v = wg_tile[gdim(tr, cfg->op, l)];
            cfg->wg_tile[l] = v == none ? 0 : v;
        }
        if (cfg->op == s->root) {
            cfg->has_workgroup = true;
            memcpy(cfg->workgroup, cfg->wg_tile, sizeof cfg->workgroup);
        }
    }
    free(tr);
}
