/* sweep_attention.c: `lanescope sweep` of a decode attention -- the configs
 * IREE's setAttentionReductionConfig derives from other seeds (key vectors
 * per K1 tile, value vectors per thread, subgroups on K2: IREE's 8, 2, 8),
 * each timed by the engine as `sim` times the kernel, ranked, with IREE's
 * own and the op's written config marked.  The rules stay IREE's; only
 * its three constants move, so every point is a config IREE's heuristic
 * could give, and the ranking says what its constants cost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/attention.h"
#include "lanescope/bottleneck.h"
#include "lanescope/sweep.h"

/* The seeds tried: powers of two around IREE's. */
static const int64_t KEY_VECTORS[] = {1, 2, 4, 8, 16, 32};
static const int64_t VALUE_VECTORS[] = {1, 2, 4, 8};
static const int64_t SUBGROUPS[] = {1, 2, 4, 8, 16};

/* A built config's identity: the op's tiles and both matmuls' configs. */
static void config_key(const ls_attention *a, char *buf, size_t size)
{
    char qk[1024], pv[1024];
    ls_lowering_config_format(&a->qk.config, qk, sizeof qk);
    ls_lowering_config_format(&a->pv.config, pv, sizeof pv);
    size_t u = 0;
    for (int i = 0; i < a->rank && u < size; i++)
        u += (size_t)snprintf(buf + u, size - u, "%lld/%lld,", (long long)a->workgroup[i],
                              (long long)a->k2_tile[i]);
    if (u < size)
        snprintf(buf + u, size - u, "%d;%lld;%lld;%s;%s", a->partial, (long long)a->workgroup_size,
                 (long long)a->subgroup_size, qk, pv);
}

/* The point's summary figures, from its built config. */
static void describe(const ls_attention *a, ls_att_sweep_point *pt)
{
    pt->workgroup_size = a->workgroup_size;
    pt->subgroup_size = a->subgroup_size;
    /* the extents, not the config's tiles: a tile past its dim runs as the dim */
    pt->keys_per_step = ls_att_step_keys(a);
    pt->n_tile = 1;
    for (int j = 0; j < a->dims.n_n; j++)
        pt->n_tile *= ls_att_extent(a, a->dims.n[j]);
    pt->lanes_k1 = pt->subgroups = 1;
    for (int i = 0; i < a->qk.rank; i++) {
        if (ls_att_dim_in(a->dims.k1, a->dims.n_k1, a->qk.dim[i]))
            pt->lanes_k1 *= a->qk.layout.thread_tile[i];
        pt->subgroups *= a->qk.layout.subgroup_tile[i];
    }
    pt->lanes_k2 = a->subgroup_size / (pt->lanes_k1 > 0 ? pt->lanes_k1 : 1);
    pt->workgroups = a->workgroups;
    ls_lowering_config_format(&a->qk.config, pt->qk, sizeof pt->qk);
    ls_lowering_config_format(&a->pv.config, pt->pv, sizeof pt->pv);
    ls_lowering_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.workgroup.present = true;
    cfg.workgroup.n = a->rank;
    ls_i64_list *k2 = a->partial ? &cfg.partial_reduction : &cfg.reduction;
    k2->present = true;
    k2->n = a->rank;
    for (int i = 0; i < a->rank; i++) {
        cfg.workgroup.v[i] = a->workgroup[i];
        k2->v[i] = a->k2_tile[i];
    }
    ls_lowering_config_format(&cfg, pt->op, sizeof pt->op);
}

static void push(ls_att_sweep *sw, const ls_att_sweep_point *pt, const char *key, size_t *cap)
{
    if (sw->n == *cap) {
        *cap = *cap ? 2 * *cap : 32;
        sw->points = ls_xrealloc(sw->points, *cap * sizeof *sw->points);
        sw->keys = ls_xrealloc(sw->keys, *cap * sizeof *sw->keys);
    }
    sw->points[sw->n] = *pt;
    snprintf(sw->keys[sw->n], sizeof sw->keys[0], "%s", key);
    sw->n++;
}

/* The point whose config has this key, or sw->n. */
static size_t find(const ls_att_sweep *sw, const char *key)
{
    for (size_t i = 0; i < sw->n; i++)
        if (strcmp(sw->keys[i], key) == 0)
            return i;
    return sw->n;
}

/* Point pt's config built: from its seeds, or the op's written config. */
static ls_status build_point(const ls_module *m, const ls_module_attention *ma,
                             const ls_target *t, const ls_att_sweep_point *pt, ls_attention *a,
                             ls_diag *d)
{
    return pt->written ? ls_attention_build(m, ma, t, a, d)
                       : ls_attention_build_seeded(m, ma, t, &pt->seeds, a, d);
}

ls_status ls_att_sweep_enumerate(const ls_module *m, const ls_module_attention *ma,
                                 const ls_target *t, ls_att_sweep *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    ls_attention *a = ls_xcalloc(1, sizeof *a);
    char *key = ls_xcalloc(1, sizeof out->keys[0]);
    ls_diag d;
    ls_status st = LS_OK;
    /* IREE's seeds first: another seed giving its config is its point */
    const ls_attention_seeds iree = {8, 2, 8};
    for (int pass = 0; pass < 2 && st == LS_OK; pass++)
        for (size_t x = 0; x < sizeof KEY_VECTORS / sizeof *KEY_VECTORS; x++)
            for (size_t y = 0; y < sizeof VALUE_VECTORS / sizeof *VALUE_VECTORS; y++)
                for (size_t z = 0; z < sizeof SUBGROUPS / sizeof *SUBGROUPS; z++) {
                    ls_att_sweep_point pt;
                    memset(&pt, 0, sizeof pt);
                    pt.seeds = (ls_attention_seeds){KEY_VECTORS[x], VALUE_VECTORS[y], SUBGROUPS[z]};
                    pt.is_iree = pt.seeds.key_vectors == iree.key_vectors &&
                                 pt.seeds.value_vectors == iree.value_vectors &&
                                 pt.seeds.subgroups == iree.subgroups;
                    if (pt.is_iree != (pass == 0) || st != LS_OK)
                        continue;
                    ls_diag_clear(&d);
                    if (build_point(m, ma, t, &pt, a, &d) != LS_OK) {
                        if (pt.is_iree) { /* IREE's own seeds fail: nothing to rank against */
                            *diag = d;
                            st = d.status;
                        }
                        continue; /* seeds whose config does not lay out on this target */
                    }
                    config_key(a, key, sizeof out->keys[0]);
                    if (find(out, key) < out->n)
                        continue; /* the same config from other seeds: the first kept */
                    describe(a, &pt);
                    out->enumerated++;
                    push(out, &pt, key, &cap);
                }
    /* the op's own config, where it has one: marked where it is a point,
     * else added (IREE's rules with other constants need not reach it) */
    if (st == LS_OK && (ma->has_config || ma->has_qk || ma->has_pv)) {
        ls_att_sweep_point pt;
        memset(&pt, 0, sizeof pt);
        pt.written = true;
        ls_diag_clear(&d);
        if (build_point(m, ma, t, &pt, a, &d) == LS_OK) {
            config_key(a, key, sizeof out->keys[0]);
            size_t same = find(out, key);
            if (same == out->n) {
                describe(a, &pt);
                push(out, &pt, key, &cap);
            }
            out->points[same].is_input = true;
            out->has_input = true;
            out->input = same;
        } else { /* ranked as a failure with its reason, as sweep does for a reduction */
            ls_diag_format(&d, pt.error, sizeof pt.error);
            pt.status = d.status;
            pt.is_input = true;
            push(out, &pt, "", &cap);
            out->has_input = true;
            out->input = out->n - 1;
        }
    }
    free(key);
    free(a);
    if (st != LS_OK)
        ls_att_sweep_free(out);
    return st;
}

typedef struct {
    const ls_module *m;
    const ls_module_attention *ma;
    const ls_target *t;
    const ls_hw *hw;
    ls_att_sweep *sw;
    bool force;
} att_job;

static void run_point(void *ctx, size_t i)
{
    att_job *j = ctx;
    ls_att_sweep_point *pt = &j->sw->points[i];
    if (pt->status != LS_OK) /* the written config that does not build */
        return;
    ls_attention *a = ls_xcalloc(1, sizeof *a);
    ls_att_view *v = NULL;
    ls_diag d;
    ls_diag_clear(&d);
    ls_sim_result r;
    ls_engine_opts opts = {.force = j->force};
    pt->status = build_point(j->m, j->ma, j->t, pt, a, &d);
    if (pt->status == LS_OK)
        pt->status = ls_attention_view(j->m, j->ma, a, j->hw, &v, &d);
    if (pt->status == LS_OK)
        pt->status = ls_engine_run(ls_att_view_plan(v), j->hw, &r, &opts, &d);
    if (pt->status == LS_OK) {
        pt->cycles = r.cycles;
        pt->time_us = r.time_us;
        pt->kernel_us = r.kernel_us;
        pt->dram_gbps = r.dram_gbps;
        pt->dram_fraction = r.dram_fraction;
        pt->dram_bytes = r.dram_bytes;
        pt->occupancy = r.occupancy;
        ls_bottleneck bn;
        ls_bottleneck_analyze(ls_att_view_plan(v), j->hw, &r, &bn);
        snprintf(pt->bottleneck, sizeof pt->bottleneck, "%s", ls_bottleneck_name(bn.kind));
        pt->ops = ls_att_flops(a);
        pt->mlp_cap = bn.mlp_cap;
    } else {
        ls_diag_format(&d, pt->error, sizeof pt->error);
    }
    ls_att_view_free(v);
    free(a);
}

ls_status ls_att_sweep_run(const ls_module *m, const ls_module_attention *ma, const ls_target *t,
                           const ls_hw *hw, ls_att_sweep *sw, int jobs,
                           void (*progress)(void *ctx, size_t done, size_t total), void *ctx,
                           ls_diag *diag)
{
    if (jobs < 1 || jobs > LS_SWEEP_MAX_JOBS)
        return ls_diag_set(diag, LS_ERR_USAGE, "-j", 0, 0, "%d jobs: the limit is 1..%d", jobs,
                           LS_SWEEP_MAX_JOBS);
    /* the whole sweep's work, before anything runs */
    sw->estimate = 0;
    ls_attention *a = ls_xcalloc(1, sizeof *a);
    for (size_t i = 0; i < sw->n; i++) {
        ls_att_view *v = NULL;
        ls_diag d;
        ls_diag_clear(&d);
        int64_t n = 0;
        if (sw->points[i].status == LS_OK && build_point(m, ma, t, &sw->points[i], a, &d) == LS_OK &&
            ls_attention_view(m, ma, a, hw, &v, &d) == LS_OK &&
            ls_engine_estimate(ls_att_view_plan(v), hw, &n, &d) == LS_OK && n < 0)
            n = INT64_MAX;
        ls_att_view_free(v);
        sw->estimate = n > INT64_MAX - sw->estimate ? INT64_MAX : sw->estimate + n;
    }
    free(a);
    const ls_dop *o = &m->dispatches[ma->dispatch].ops[ma->op];
    if (sw->estimate > LS_SWEEP_BUDGET_INSTRUCTIONS && !sw->force)
        return ls_diag_set(diag, LS_ERR_LIMIT, m->dispatches[ma->dispatch].file, o->line, o->col,
                           "the sweep would simulate %lld subgroup-instructions over %zu configs, "
                           "past the budget of %lld: give --force",
                           (long long)sw->estimate, sw->n,
                           (long long)LS_SWEEP_BUDGET_INSTRUCTIONS);
    att_job j = {m, ma, t, hw, sw, sw->force};
    ls_parallel_for(sw->n, jobs, run_point, &j, progress, ctx);
    for (size_t i = 0; i < sw->n; i++)
        if (sw->points[i].status == LS_OK)
            return LS_OK;
    return ls_diag_set(diag, LS_ERR_INVALID, m->dispatches[ma->dispatch].file, o->line, o->col,
                       "no config could be simulated (first: %s)", sw->points[0].error);
}

size_t ls_att_sweep_rank(const ls_att_sweep *sw, size_t *order)
{
    bool *failed = ls_xcalloc(sw->n ? sw->n : 1, sizeof *failed);
    int64_t *cycles = ls_xcalloc(sw->n ? sw->n : 1, sizeof *cycles);
    for (size_t i = 0; i < sw->n; i++) {
        failed[i] = sw->points[i].status != LS_OK;
        cycles[i] = sw->points[i].cycles;
    }
    ls_sweep_order(sw->n, failed, cycles, order);
    size_t iree = 0;
    for (size_t i = 0; i < sw->n && iree == 0; i++)
        if (!failed[order[i]] && sw->points[order[i]].is_iree)
            iree = i + 1;
    free(failed);
    free(cycles);
    return iree;
}

void ls_att_sweep_free(ls_att_sweep *sw)
{
    free(sw->points);
    free(sw->keys);
    memset(sw, 0, sizeof *sw);
}
