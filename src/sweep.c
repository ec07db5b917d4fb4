/* sweep.c: enumerate a reduction's configs and simulate them on threads.
 *
 * Enumeration nests the knobs from the outermost (subgroup size) to the
 * innermost (rows per workgroup) and keeps a candidate only when the
 * problem validates and its layout derives: the simulator's own rules
 * decide validity, so the sweep never offers a config `sim` would refuse.
 * Threads take points from a shared counter; each writes only its point,
 * so results are identical for any thread count.  A reduction of a
 * dispatch of several loops (sw->module) gives each point's config to
 * every op of the dispatch and times the one kernel (fused.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/layout.h"
#include "lanescope/plan.h"
#include "lanescope/bottleneck.h"
#include "lanescope/fused.h"
#include "lanescope/import.h"
#include "lanescope/sweep.h"

/* The problem with point pt's config and sizes. */
static void with_point(const ls_problem *p, const ls_sweep_point *pt, ls_problem *q)
{
    *q = *p;
    q->config = pt->config;
    q->has_config = true;
    ls_translation_set(&q->ti, pt->workgroup_size, pt->subgroup_size, p->line, p->col);
    if (pt->tile_and_fuse)
        snprintf(q->ti.pipeline, sizeof q->ti.pipeline, "TileAndFuse");
    q->has_ti = true;
}

static bool same_point(const ls_sweep_point *a, const ls_sweep_point *b)
{
    const ls_lowering_config *x = &a->config, *y = &b->config;
    int n = x->thread.n;
    return a->tile_and_fuse == b->tile_and_fuse && a->subgroup_size == b->subgroup_size &&
           a->workgroup_size == b->workgroup_size &&
           memcmp(x->workgroup.v, y->workgroup.v, (size_t)n * 8) == 0 &&
           memcmp(x->thread.v, y->thread.v, (size_t)n * 8) == 0 &&
           memcmp(x->partial_reduction.v, y->partial_reduction.v, (size_t)n * 8) == 0 &&
           memcmp(x->lane_basis.counts.v, y->lane_basis.counts.v, (size_t)n * 8) == 0 &&
           memcmp(x->subgroup_basis.counts.v, y->subgroup_basis.counts.v, (size_t)n * 8) == 0;
}

typedef struct {
    ls_sweep_point *v;
    size_t n, cap;
} point_vec;

static void push(point_vec *pv, const ls_sweep_point *pt)
{
    if (pv->n == pv->cap) {
        pv->cap = pv->cap ? pv->cap * 2 : 256;
        pv->v = ls_xrealloc(pv->v, pv->cap * sizeof *pv->v);
    }
    pv->v[pv->n++] = *pt;
}

static bool valid(const ls_problem *p, const ls_sweep_point *pt, ls_derived *dv)
{
    ls_problem *q = ls_xcalloc(1, sizeof *q);
    with_point(p, pt, q);
    ls_diag d;
    ls_diag_clear(&d);
    bool ok = ls_derive(q, dv, &d) == LS_OK;
    free(q);
    return ok;
}

/* The knobs of a config given whole (IREE's, the input's): the last
 * reduction dim r and the last parallel dim pd (-1: none). */
static void point_knobs(const ls_problem *p, int r, int pd, ls_sweep_point *pt)
{
    const ls_lowering_config *c = &pt->config;
    pt->thread = c->thread.v[r];
    pt->lanes_red = c->lane_basis.counts.v[r];
    pt->lanes_par = pd >= 0 ? c->lane_basis.counts.v[pd] : 1;
    pt->subgroups = c->subgroup_basis.counts.v[r];
    pt->partial = c->partial_reduction.v[r];
    pt->rows = pd >= 0 ? c->workgroup.v[pd] : 1;
}

static void last_dims(const ls_problem *p, int *r, int *pd)
{
    *r = *pd = -1;
    for (int i = p->rank; i-- > 0;) {
        if (p->is_reduction[i] && *r < 0)
            *r = i;
        if (!p->is_reduction[i] && *pd < 0)
            *pd = i;
    }
}

/* The sweep's bounds on target t: the largest workgroup, and the most
 * elements one load of the widest input takes. */
static void sweep_limits(const ls_problem *p, const ls_target *t, int64_t *max_wg, int64_t *max_tl)
{
    *max_wg = t->max_thread_count > 0 ? t->max_thread_count : 1024;
    if (t->max_workgroup_sizes[0] > 0 && t->max_workgroup_sizes[0] < *max_wg)
        *max_wg = t->max_workgroup_sizes[0];
    /* A target's counts are unbounded, and a workgroup past the limit never
     * validates: the walk stops there, so sg x sgs x 2 stays far from
     * int64's. */
    if (*max_wg > LS_MAX_WORKGROUP_SIZE)
        *max_wg = LS_MAX_WORKGROUP_SIZE;
    int64_t load_bits = t->max_load_instruction_bits > 0 ? t->max_load_instruction_bits : 128;
    /* The widest input bounds the vector (IREE's getBitWidth takes the
     * largest operand). */
    int widest = 8;
    for (int k = 0; k < p->n_inputs; k++)
        if (ls_elem_type_bits(p->inputs[k].type) > widest)
            widest = ls_elem_type_bits(p->inputs[k].type);
    *max_tl = load_bits / widest;
    if (*max_tl < 1)
        *max_tl = 1;
}

/* One point's knobs on the last reduction dim r and the last parallel
 * dim pd (-1: none), as a whole config. */
typedef struct {
    int64_t sg, tl, lr, lp, sgs, part, rows;
} knobs;

static void make_point(const ls_problem *p, int r, int pd, const knobs *k, ls_sweep_point *pt)
{
    memset(pt, 0, sizeof *pt);
    pt->subgroup_size = k->sg;
    pt->workgroup_size = k->sg * k->sgs;
    pt->thread = k->tl;
    pt->lanes_red = k->lr;
    pt->lanes_par = k->lp;
    pt->subgroups = k->sgs;
    pt->partial = k->part;
    pt->rows = k->rows;
    int64_t wgv[LS_MAX_RANK], thr[LS_MAX_RANK], prt[LS_MAX_RANK], lanes[LS_MAX_RANK],
        sgc[LS_MAX_RANK];
    for (int i = 0; i < p->rank; i++) {
        wgv[i] = p->is_reduction[i] ? 0 : 1;
        thr[i] = p->is_reduction[i] ? 1 : 0;
        prt[i] = p->is_reduction[i] ? 1 : 0;
        lanes[i] = sgc[i] = 1;
    }
    thr[r] = k->tl;
    prt[r] = k->part;
    lanes[r] = k->lr;
    sgc[r] = k->sgs;
    if (pd >= 0) {
        wgv[pd] = k->rows;
        lanes[pd] = k->lp;
    }
    ls_config_set(&pt->config, p->rank, wgv, prt, thr, lanes, sgc, p->line, p->col);
}

/* Every valid point, the knobs nested from the subgroup size (outermost)
 * to the rows per workgroup (innermost); stops past 4 x the sweep limit. */
static void enumerate_points(const ls_problem *p, const ls_target *t, int r, int pd, point_vec *pv)
{
    int64_t max_wg, max_tl;
    sweep_limits(p, t, &max_wg, &max_tl);
    int64_t kr = p->size[r], rows_dim = pd >= 0 ? p->size[pd] : 1;
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    knobs k;
    for (int si = 0; si < t->n_subgroup_choices; si++) {
        k.sg = t->subgroup_choices[si];
        for (k.tl = 1; k.tl <= max_tl; k.tl *= 2) {
            if (kr % k.tl != 0)
                continue;
            for (k.lr = k.sg; k.lr >= 1; k.lr /= 2) {
                k.lp = k.sg / k.lr;
                if (k.lp > 1 && (pd < 0 || rows_dim % k.lp != 0))
                    continue;
                for (k.sgs = 1; k.sg * k.sgs <= max_wg; k.sgs *= 2) {
                    /* lr x sgs <= the workgroup, tl <= kr: the product may pass
                     * int64 only when it passes kr, where no part is tried;
                     * part doubles while it stays <= kr (kr may be near int64's
                     * limit) */
                    int64_t chunk;
                    if (!ls_mul_ok(k.lr * k.sgs, k.tl, &chunk))
                        continue;
                    for (k.part = chunk; k.part > 0 && k.part <= kr;
                         k.part = k.part > kr / 2 ? 0 : k.part * 2) {
                        if (kr % k.part != 0)
                            continue;
                        for (k.rows = k.lp; k.rows <= 64 && k.rows <= rows_dim; k.rows *= 2) {
                            if (rows_dim % k.rows != 0)
                                continue;
                            ls_sweep_point pt;
                            make_point(p, r, pd, &k, &pt);
                            if (valid(p, &pt, dv))
                                push(pv, &pt);
                            if (pv->n > 4 * (size_t)LS_SWEEP_MAX_CONFIGS)
                                goto enough;
                        }
                    }
                }
            }
        }
    }
enough:
    free(dv);
}

/* IREE's choice for p (of dispatch d, or p alone when d is NULL) on t, as
 * a point; false, with out's iree_rejected and iree_why, when IREE's
 * heuristic rejects it. */
static bool iree_point(const ls_problem *p, const ls_dispatch *d, const ls_target *t, int r, int pd,
                       ls_sweep *out, ls_sweep_point *iree)
{
    memset(iree, 0, sizeof *iree);
    ls_dispatch *one = NULL;
    if (d == NULL) {
        one = ls_xcalloc(1, sizeof *one);
        ls_dispatch_from_problem(p, 0, 0, one);
        d = one;
    }
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag sd;
    ls_diag_clear(&sd);
    int op = p->dispatch >= 0 ? p->dispatch_op : 0;
    ls_status ss = ls_suggest(d, t, s, &sd);
    bool have_iree = ss == LS_OK && ls_suggest_config_of(s, op) != NULL;
    if (ss == LS_ERR_INVALID && s->tile_and_fuse && s->root == op) {
        /* IREE's choice is its TileAndFuse config: ranked with the
         * VectorDistribute ones, which is the comparison a user wants */
        ls_problem *q = ls_xcalloc(1, sizeof *q);
        *q = *p;
        ls_suggest_apply_tile_and_fuse(s, q);
        iree->config = q->config;
        iree->subgroup_size = s->subgroup_size;
        iree->workgroup_size = s->tf_workgroup_size[0];
        iree->tile_and_fuse = true;
        iree->is_iree = true;
        have_iree = true;
        free(q);
    } else if (have_iree) {
        ls_problem *q = ls_xcalloc(1, sizeof *q);
        *q = *p;
        ls_suggest_apply(s, op, q);
        iree->config = q->config;
        iree->subgroup_size = s->subgroup_size;
        iree->workgroup_size = s->workgroup_size;
        point_knobs(p, r, pd, iree);
        iree->is_iree = true;
        free(q);
    } else {
        out->iree_rejected = true;
        ls_diag_format(&sd, out->iree_why, sizeof out->iree_why);
    }
    free(s);
    free(one);
    return have_iree;
}

/* out's points: max_configs of pv's, evenly spaced, and IREE's choice
 * (when given) among them, marked. */
static void keep_subset(ls_sweep *out, const point_vec *pv, size_t max_configs,
                        const ls_sweep_point *iree)
{
    size_t keep = pv->n < max_configs ? pv->n : max_configs;
    out->points = ls_xcalloc(keep + 1, sizeof *out->points);
    for (size_t i = 0; i < keep; i++)
        out->points[out->n++] = pv->v[keep == pv->n ? i : (size_t)((double)i * pv->n / keep)];
    if (iree == NULL)
        return;
    out->iree = out->n;
    for (size_t i = 0; i < out->n; i++)
        if (same_point(&out->points[i], iree)) {
            out->iree = i;
            break;
        }
    if (out->iree == out->n) {
        if (out->n == max_configs && out->n > 0)
            out->n--; /* keep the count asked for */
        out->iree = out->n;
        out->points[out->n++] = *iree;
    }
    out->points[out->iree].is_iree = true;
}

ls_status ls_sweep_enumerate(const ls_problem *p, const ls_dispatch *d, const ls_target *t,
                             size_t max_configs, ls_sweep *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    if (max_configs < 1 || max_configs > LS_SWEEP_MAX_CONFIGS)
        return ls_diag_set(diag, LS_ERR_LIMIT, p->file, 0, 0,
                           "%zu configs asked for; the sweep limit is %d", max_configs,
                           LS_SWEEP_MAX_CONFIGS);
    int r, pd;
    last_dims(p, &r, &pd);
    if (r < 0)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "%s has no reduction dimension to sweep", p->name);
    point_vec pv = {NULL, 0, 0};
    enumerate_points(p, t, r, pd, &pv);
    out->enumerated = pv.n;
    ls_sweep_point iree;
    bool have_iree = iree_point(p, d, t, r, pd, out, &iree);
    keep_subset(out, &pv, max_configs, have_iree ? &iree : NULL);
    free(pv.v);
    if (out->n == 0)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "no valid config of %s on %s", p->name, t->arch);
    return LS_OK;
}

void ls_sweep_add_input(const ls_problem *p, ls_sweep *sw)
{
    ls_sweep_point in;
    memset(&in, 0, sizeof in);
    in.config = p->config;
    ls_problem_sizes(p, &in.subgroup_size, &in.workgroup_size, NULL);
    in.tile_and_fuse = ls_is_tile_and_fuse(p);
    int r, pd;
    last_dims(p, &r, &pd);
    if (r >= 0 && !in.tile_and_fuse)
        point_knobs(p, r, pd, &in);
    in.is_input = true;
    /* the same config, key for key (mappings included), and sizes */
    char want[1024], have[1024];
    ls_lowering_config_format(&in.config, want, sizeof want);
    for (size_t i = 0; i < sw->n; i++) {
        const ls_sweep_point *q = &sw->points[i];
        ls_lowering_config_format(&q->config, have, sizeof have);
        if (q->subgroup_size == in.subgroup_size && q->workgroup_size == in.workgroup_size &&
            q->tile_and_fuse == in.tile_and_fuse && strcmp(want, have) == 0) {
            sw->points[i].is_input = true;
            sw->has_input = true;
            sw->input = i;
            return;
        }
    }
    sw->points = ls_xrealloc(sw->points, (sw->n + 1) * sizeof *sw->points);
    sw->input = sw->n;
    sw->points[sw->n++] = in;
    sw->has_input = true;
}


/* A dispatch of several loops (sw->module): every reduction of it with
 * point pt's config, derived and planned, and the one kernel built; the
 * kernel's plan, or NULL with the reason in d.  The caller frees k. */
typedef struct {
    ls_problem *q;
    ls_derived *dv;
    ls_plan *plans;
    ls_fused_kernel *k;
} point_kernel;

static void point_kernel_free(point_kernel *pk)
{
    free(pk->q);
    free(pk->dv);
    free(pk->plans);
    free(pk->k);
}

static const ls_plan *point_kernel_build(const ls_sweep *sw, const ls_hw *hw,
                                         const ls_sweep_point *pt, point_kernel *pk, ls_diag *d)
{
    const ls_module *m = sw->module;
    pk->q = ls_xcalloc(m->n_problems, sizeof *pk->q);
    pk->dv = ls_xcalloc(m->n_problems, sizeof *pk->dv);
    pk->plans = ls_xcalloc(m->n_problems, sizeof *pk->plans);
    pk->k = ls_xcalloc(1, sizeof *pk->k);
    int disp = m->problems[sw->lead].dispatch;
    for (size_t i = sw->lead; i < m->n_problems && m->problems[i].dispatch == disp; i++) {
        with_point(&m->problems[i], pt, &pk->q[i]);
        if (ls_derive(&pk->q[i], &pk->dv[i], d) ||
            ls_plan_build(&pk->q[i], &pk->dv[i], ls_plan_target_from_arch(hw->arch),
                          &pk->plans[i], d))
            return NULL;
    }
    char why[512];
    if (!ls_fused_build_same_config(m, sw->lead, pk->plans, pk->k, why, sizeof why)) {
        ls_diag_set(d, LS_ERR_INVALID, m->problems[sw->lead].file, m->problems[sw->lead].line,
                    m->problems[sw->lead].col, "not one kernel with this config: %s", why);
        return NULL;
    }
    return &pk->k->plan;
}

/* The subgroup-instructions point pt would issue; 0 when it does not lower
 * (its run then fails at once), INT64_MAX past what int64 holds. */
static int64_t point_work(const ls_problem *p, const ls_hw *hw, const ls_sweep *sw,
                          const ls_sweep_point *pt)
{
    if (sw->module) {
        point_kernel pk;
        ls_diag d;
        ls_diag_clear(&d);
        const ls_plan *kp = point_kernel_build(sw, hw, pt, &pk, &d);
        int64_t n = 0;
        if (kp && ls_engine_estimate(kp, hw, &n, &d) == LS_OK && n < 0)
            n = INT64_MAX;
        point_kernel_free(&pk);
        return n;
    }
    ls_problem *q = ls_xcalloc(1, sizeof *q);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_plan *plan = ls_xcalloc(1, sizeof *plan);
    ls_diag d;
    ls_diag_clear(&d);
    with_point(p, pt, q);
    int64_t n = 0;
    if (ls_derive(q, dv, &d) == LS_OK &&
        ls_plan_build(q, dv, ls_plan_target_from_arch(hw->arch), plan, &d) == LS_OK &&
        ls_engine_estimate(plan, hw, &n, &d) == LS_OK && n < 0)
        n = INT64_MAX;
    free(plan);
    free(dv);
    free(q);
    return n;
}

static void run_point(const ls_problem *p, const ls_hw *hw, const ls_sweep *sw,
                      ls_sweep_point *pt)
{
    bool force = sw->force;
    ls_problem *q = ls_xcalloc(1, sizeof *q);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_plan *plan = ls_xcalloc(1, sizeof *plan);
    ls_sim_result r;
    ls_diag d;
    ls_diag_clear(&d);
    with_point(p, pt, q);
    point_kernel pk = {NULL, NULL, NULL, NULL};
    const ls_plan *run = plan; /* the reduction alone, or its dispatch's one kernel */
    pt->status = ls_derive(q, dv, &d);
    if (pt->status == LS_OK)
        pt->status = ls_plan_build(q, dv, ls_plan_target_from_arch(hw->arch), plan, &d);
    if (pt->status == LS_OK && sw->module) {
        run = point_kernel_build(sw, hw, pt, &pk, &d);
        if (run == NULL)
            pt->status = d.status ? d.status : LS_ERR_INVALID;
    }
    /* An arg_compare config on which IREE's ballot hands one row's index to
     * another computes wrong results: not a candidate, whatever its time. */
    if (pt->status == LS_OK && plan->hazard_cluster)
        pt->status = ls_diag_set(&d, LS_ERR_INVALID, q->file, q->line, q->col,
                                 "several rows share a subgroup: IREE's arg_compare ballot gives "
                                 "them the index of the row at lane 0 (wrong results)");
    ls_engine_opts opts = {.force = force};
    if (pt->status == LS_OK)
        pt->status = ls_engine_run(run, hw, &r, &opts, &d);
    if (pt->status == LS_OK) {
        pt->cycles = r.cycles;
        pt->time_us = r.time_us;
        pt->dram_gbps = r.dram_gbps;
        pt->dram_fraction = r.dram_fraction;
        pt->occupancy = r.occupancy;
        pt->waves = r.waves;
        pt->workgroups = r.workgroups;
        pt->kernel_us = r.kernel_us;
        pt->dram_bytes = r.dram_bytes;
        double elems = 1;
        for (int i = 0; i < q->rank; i++)
            elems *= (double)q->size[i];
        pt->ops = elems * (1 + plan->body_alu_ops);
        ls_bottleneck bn;
        ls_bottleneck_analyze(run, hw, &r, &bn);
        pt->mlp_cap = bn.mlp_cap;
        snprintf(pt->bottleneck, sizeof pt->bottleneck, "%s", ls_bottleneck_name(bn.kind));
    } else {
        ls_diag_format(&d, pt->error, sizeof pt->error);
    }
    point_kernel_free(&pk);
    free(plan);
    free(dv);
    free(q);
}

typedef struct {
    size_t n, next, done;
    void (*fn)(void *ctx, size_t i);
    void *ctx;
    pthread_mutex_t lock;
    void (*progress)(void *pctx, size_t done, size_t total);
    void *pctx;
} parallel_job;

static void *worker(void *arg)
{
    parallel_job *j = arg;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        size_t i = j->next < j->n ? j->next++ : j->n;
        pthread_mutex_unlock(&j->lock);
        if (i >= j->n)
            return NULL;
        j->fn(j->ctx, i);
        pthread_mutex_lock(&j->lock);
        j->done++;
        if (j->progress)
            j->progress(j->pctx, j->done, j->n);
        pthread_mutex_unlock(&j->lock);
    }
}

void ls_parallel_for(size_t n, int jobs, void (*fn)(void *ctx, size_t i), void *ctx,
                     void (*progress)(void *pctx, size_t done, size_t total), void *pctx)
{
    parallel_job j = {n, 0, 0, fn, ctx, PTHREAD_MUTEX_INITIALIZER, progress, pctx};
    pthread_t th[LS_SWEEP_MAX_JOBS];
    int started = 0;
    for (int k = 1; k < jobs && k < LS_SWEEP_MAX_JOBS; k++) {
        if (pthread_create(&th[started], NULL, worker, &j) != 0)
            break; /* fewer threads: still correct, only slower */
        started++;
    }
    worker(&j);
    for (int k = 0; k < started; k++)
        pthread_join(th[k], NULL);
    pthread_mutex_destroy(&j.lock);
}

typedef struct {
    const ls_problem *p;
    const ls_hw *hw;
    ls_sweep *sw;
} sweep_job;

static void sweep_one(void *ctx, size_t i)
{
    sweep_job *j = ctx;
    run_point(j->p, j->hw, j->sw, &j->sw->points[i]);
}

ls_status ls_sweep_work_verdict(const ls_problem *p, int64_t estimate, size_t n, bool force,
                                ls_diag *diag)
{
    if (estimate <= LS_SWEEP_BUDGET_INSTRUCTIONS || force)
        return LS_OK;
    return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                       "the sweep would simulate %lld subgroup-instructions over %zu configs, "
                       "past the budget of %lld (tens of minutes of wall time): keep fewer "
                       "configs (--max-configs N) or give --force",
                       (long long)estimate, n, (long long)LS_SWEEP_BUDGET_INSTRUCTIONS);
}

ls_status ls_sweep_run(const ls_problem *p, const ls_hw *hw, ls_sweep *sw, int jobs,
                       void (*progress)(void *ctx, size_t done, size_t total), void *ctx,
                       ls_diag *diag)
{
    if (jobs < 1 || jobs > LS_SWEEP_MAX_JOBS)
        return ls_diag_set(diag, LS_ERR_USAGE, "-j", 0, 0, "%d jobs: the limit is 1..%d", jobs,
                           LS_SWEEP_MAX_JOBS);
    sw->estimate = 0;
    for (size_t i = 0; i < sw->n; i++) {
        int64_t w = point_work(p, hw, sw, &sw->points[i]);
        sw->estimate = w > INT64_MAX - sw->estimate ? INT64_MAX : sw->estimate + w;
    }
    if (ls_sweep_work_verdict(p, sw->estimate, sw->n, sw->force, diag) != LS_OK)
        return diag->status;
    sweep_job j = {p, hw, sw};
    ls_parallel_for(sw->n, jobs, sweep_one, &j, progress, ctx);
    for (size_t i = 0; i < sw->n; i++)
        if (sw->points[i].status == LS_OK)
            return LS_OK;
    return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                       "no config could be simulated (first: %s)", sw->points[0].error);
}

typedef struct {
    bool failed;
    int64_t cycles;
    size_t index;
} rank_key;

static int by_time(const void *a, const void *b)
{
    const rank_key *x = a, *y = b;
    if (x->failed != y->failed)
        return x->failed ? 1 : -1;
    if (x->cycles != y->cycles)
        return x->cycles < y->cycles ? -1 : 1;
    /* ties in enumeration order, so the ranking is deterministic */
    return x->index < y->index ? -1 : x->index > y->index;
}

void ls_sweep_order(size_t n, const bool *failed, const int64_t *cycles, size_t *order)
{
    rank_key *k = ls_xcalloc(n ? n : 1, sizeof *k);
    for (size_t i = 0; i < n; i++)
        k[i] = (rank_key){failed[i], cycles[i], i};
    qsort(k, n, sizeof *k, by_time);
    for (size_t i = 0; i < n; i++)
        order[i] = k[i].index;
    free(k);
}

size_t ls_sweep_rank(const ls_sweep *sw, size_t *order)
{
    bool *failed = ls_xcalloc(sw->n ? sw->n : 1, sizeof *failed);
    int64_t *cycles = ls_xcalloc(sw->n ? sw->n : 1, sizeof *cycles);
    for (size_t i = 0; i < sw->n; i++) {
        failed[i] = sw->points[i].status != LS_OK;
        cycles[i] = sw->points[i].cycles;
    }
    ls_sweep_order(sw->n, failed, cycles, order);
    size_t rank = 0;
    for (size_t i = 0; i < sw->n; i++)
        if (sw->points[order[i]].is_iree)
            rank = i + 1;
    free(failed);
    free(cycles);
    return rank;
}

int64_t ls_sweep_min_bytes(const ls_problem *p)
{
    /* every input read once, every output written once.  p has validated
     * (a point of its sweep ran): each operand's bits fit int64 with room
     * for 7 more, so these byte counts and their sum (at most 4 inputs of
     * 2^60 bytes and an output) do too. */
    int64_t bytes = 0, out = 1;
    for (int k = 0; k < p->n_inputs; k++) {
        int64_t n = 1;
        for (int j = 0; j < p->inputs[k].map_n; j++)
            n *= p->size[p->inputs[k].map[j]];
        bytes += (n * ls_elem_type_bits(p->inputs[k].type) + 7) / 8; /* i4: two a byte */
    }
    for (int i = 0; i < p->rank; i++)
        if (!p->is_reduction[i])
            out *= p->size[i];
    return bytes + out * (ls_elem_type_bits(p->acc_type) / 8);
}

int64_t ls_sweep_kernel_min_bytes(const ls_problem *p, const ls_sweep *sw, const ls_hw *hw)
{
    if (sw->module == NULL)
        return ls_sweep_min_bytes(p);
    /* the tensors and results do not change with the config: any point
     * that is one kernel gives them */
    int64_t bytes = ls_sweep_min_bytes(p);
    for (size_t i = 0; i < sw->n; i++) {
        if (sw->points[i].status != LS_OK)
            continue;
        point_kernel pk;
        ls_diag d;
        ls_diag_clear(&d);
        if (point_kernel_build(sw, hw, &sw->points[i], &pk, &d))
            bytes = ls_fused_min_bytes(pk.k);
        point_kernel_free(&pk);
        break;
    }
    return bytes;
}

void ls_sweep_free(ls_sweep *sw)
{
    free(sw->points);
    sw->points = NULL;
    sw->n = 0;
}
