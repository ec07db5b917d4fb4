/* fused.c: a dispatch's reductions and stored elementwise ops as one
 * kernel of loops one after another (fused.h): which ops are its loops,
 * whether they share what one kernel needs, each elementwise op's view,
 * and the kernel's plan with every tensor the loops load. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/fused.h"
#include "lanescope/functional.h"
#include "lanescope/layout.h"
#include "lanescope/suggest.h"

static bool refuse(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool refuse(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return false;
}

bool ls_dispatch_stores(const ls_dispatch *d, const char *value)
{
    if (value == NULL || value[0] == '\0')
        return false;
    for (int k = 0; k < d->n_stores && k < LS_DISPATCH_MAX_STORES; k++)
        if (strcmp(d->stored[k], value) == 0)
            return true;
    for (int k = 0; k < d->n_inserts && k < LS_DISPATCH_MAX_STORES; k++)
        if (strcmp(d->inserted[k], value) == 0)
            return true;
    return false;
}

static bool same_list(const int64_t *a, const int64_t *b, int n)
{
    return memcmp(a, b, sizeof *a * (size_t)n) == 0;
}

/* The loops of one kernel walk the same tiles with the same threads: the
 * workgroups, the subgroups, each dim's tiles and the layout over them. */
static bool same_geometry(const ls_derived *a, const ls_derived *b)
{
    int r = a->rank, n = a->body_rank;
    const ls_nested_layout *x = &a->layout, *y = &b->layout;
    return r == b->rank && n == b->body_rank && a->total_workgroups == b->total_workgroups &&
           a->total_iterations == b->total_iterations &&
           a->workgroup_size == b->workgroup_size && a->subgroup_size == b->subgroup_size &&
           a->num_subgroups == b->num_subgroups &&
           a->elems_per_iteration == b->elems_per_iteration &&
           a->serial_reduce == b->serial_reduce && same_list(a->wg_tile, b->wg_tile, r) &&
           same_list(a->chunk, b->chunk, r) && same_list(a->iterations, b->iterations, r) &&
           same_list(x->subgroup_tile, y->subgroup_tile, n) &&
           same_list(x->batch_tile, y->batch_tile, n) &&
           same_list(x->outer_tile, y->outer_tile, n) &&
           same_list(x->thread_tile, y->thread_tile, n) &&
           same_list(x->element_tile, y->element_tile, n) &&
           same_list(x->subgroup_strides, y->subgroup_strides, n) &&
           same_list(x->thread_strides, y->thread_strides, n);
}

static void op_text(const ls_dop *op, char *buf, size_t n)
{
    snprintf(buf, n, "the %s at %d:%d", op->kind, op->line, op->col);
}

/* A reduction's loop: its plan must be one the kernel's program can hold
 * next to the first reduction's. */
static bool reduction_phase_ok(const ls_plan *pl, const ls_plan *lead, char *why, size_t n)
{
    const ls_problem *p = pl->problem;
    if (pl->derived->tile_and_fuse || pl->argcmp || pl->attention)
        return refuse(why, n, "%s is not a VectorDistribute reduction (%s)", p->name,
                      pl->argcmp ? "an arg_compare" : "a TileAndFuse plan");
    if (pl->n_promoted > 0)
        return refuse(why, n, "%s promotes an operand through workgroup memory "
                              "(promote_operands), which the fused kernel does not model yet",
                      p->name);
    if (p->rank != lead->problem->rank ||
        !same_list(p->size, lead->problem->size, p->rank) ||
        memcmp(p->is_reduction, lead->problem->is_reduction, sizeof p->is_reduction) != 0)
        return refuse(why, n, "%s and %s have different loops", p->name, lead->problem->name);
    if (!same_geometry(pl->derived, lead->derived))
        return refuse(why, n, "%s and %s are tiled differently (workgroups, subgroups or "
                              "tiles), so they are not loops of one kernel here",
                      p->name, lead->problem->name);
    /* the cross-subgroup buffers' bank conflicts are modelled with the
     * first reduction's buffer */
    if (pl->cross_subgroup != lead->cross_subgroup || pl->acc_elem_bytes != lead->acc_elem_bytes ||
        pl->results_per_thread != lead->results_per_thread || pl->amd != lead->amd ||
        pl->gfx_major != lead->gfx_major || pl->extra_results != 0)
        return refuse(why, n, "%s reduces in %lld-byte values where %s reduces in %lld-byte "
                              "ones, or shares no buffer shape with it",
                      p->name, (long long)pl->acc_elem_bytes, lead->problem->name,
                      (long long)lead->acc_elem_bytes);
    return true;
}

/* An elementwise op's loops as the lead's: loop c of the op is lead loop
 * perm[c].  As IREE's IterationDimTracker relates them, through the values
 * both read: a tensor both read whole, and a reduction's result (its
 * loops are that reduction's output loops, the lead's, as every reduction
 * of the kernel has the lead's loops).  A loop nothing relates (a
 * broadcast's) is tiled on its own in IREE, from the same workgroup size
 * and thread loads as the reduction's loop of its size: it takes the
 * first free lead loop of that size. */
static bool elementwise_loops(const ls_module *m, const ls_module_elementwise *e,
                              const ls_problem *lead, int *perm)
{
    bool used[LS_MAX_RANK] = {false};
    for (int c = 0; c < e->rank; c++)
        perm[c] = -1;
#define SET(c, l)                                                                                \
    do {                                                                                         \
        if (perm[c] < 0 && !used[l]) {                                                           \
            perm[c] = (l);                                                                       \
            used[l] = true;                                                                      \
        } else if (perm[c] != (l)) {                                                             \
            return false;                                                                        \
        }                                                                                        \
    } while (0)
    for (int i = 0; i < e->n_inputs; i++) {
        const ls_operand *a = &e->inputs[i];
        if (a->intermediate || a->map_n != e->rank)
            continue;
        for (int j = 0; j < lead->n_inputs; j++) {
            const ls_operand *b = &lead->inputs[j];
            if (strcmp(a->name, b->name) != 0 || b->map_n != a->map_n)
                continue;
            for (int x = 0; x < a->map_n; x++)
                SET(a->map[x], b->map[x]);
            break;
        }
    }
    for (int i = 0; i < e->n_inputs; i++) {
        const ls_operand *a = &e->inputs[i];
        if (!a->intermediate || a->producer < 0 || (size_t)a->producer >= m->n_problems)
            continue;
        const ls_problem *r = &m->problems[a->producer];
        if (r->out_map_n != a->map_n)
            return false;
        for (int x = 0; x < a->map_n; x++)
            SET(a->map[x], r->out_map[x]);
    }
#undef SET
    for (int c = 0; c < e->rank; c++) {
        for (int l = 0; l < lead->rank && perm[c] < 0; l++)
            if (!used[l] && lead->size[l] == e->size[c]) {
                perm[c] = l;
                used[l] = true;
            }
        if (perm[c] < 0)
            return false;
    }
    return true;
}

/* An elementwise op's config (written on it, or IREE's heuristic's)
 * against the lead's: the serial tile over the reduced dims, the thread
 * tile and both bases.  True with *own false when it tiles as the lead
 * (a view on the lead's layout); true with *own set when it is a valid
 * config of a layout of its own (its loops in another order, or another
 * thread tile or basis: IREE lays each op out by its own config). */
static bool elementwise_config_ok(const ls_module_elementwise *e, const ls_lowering_config *c,
                                  const ls_problem *lead, const ls_derived *lead_d,
                                  const int *perm, bool *own, char *why, size_t n,
                                  const char *what)
{
    *own = false;
    for (int k = 0; k < c->n_ignored; k++)
        if (strcmp(c->ignored[k], "serial") != 0 && !c->ignored_inert[k])
            return refuse(why, n, "%s's lowering_config key '%s' (at %d:%d) is not one an "
                                  "elementwise op's lowering reads",
                          what, c->ignored[k], c->ignored_line[k], c->ignored_col[k]);
    if (c->partial_reduction.present || c->reduction.present || c->promote_operands.present)
        return refuse(why, n, "%s has parallel loops only, yet its lowering_config has a "
                              "reduction tiling level or promote_operands",
                      what);
    /* The op's loops tiled as its config says, with the reduction's loops
     * kinds: its serial tile is a partial_reduction tile on the dims the
     * reductions reduce, and must be 0 (the workgroup's) on the others. */
    int r = e->rank;
    const ls_lowering_config *l = &lead->config;
    if (!c->serial.present || c->serial.n != r)
        return refuse(why, n, "%s's lowering_config (at %d:%d) has no serial tile over its %d "
                              "loops",
                      what, c->line, c->col, r);
    for (int x = 0; x < r; x++)
        if (!lead->is_reduction[perm[x]] && c->serial.v[x] != 0)
            return refuse(why, n, "%s's serial tile on d%d (%lld) tiles a dim the workgroups "
                                  "share (%s's parallel d%d)",
                          what, x, (long long)c->serial.v[x], lead->name, perm[x]);
    if (c->workgroup.present)
        for (int x = 0; x < r && x < c->workgroup.n; x++)
            if (c->workgroup.v[x] != (perm[x] < l->workgroup.n ? l->workgroup.v[perm[x]] : 0))
                return refuse(why, n, "%s's workgroup tile differs from %s's", what, lead->name);
    for (int x = 0; x < r; x++)
        if (perm[x] != x) {
            *own = true;
            return true;
        }
    /* The tiling it derives on the lead's loops: the reductions' when the
     * lists say the same (a thread tile of 0 on a dim of one element is
     * that of 1, so lists may differ), else a layout of its own. */
    ls_problem *q = ls_xmalloc(sizeof *q);
    ls_derived *dq = ls_xmalloc(sizeof *dq);
    *q = *lead;
    q->config.partial_reduction = c->serial;
    q->config.thread = c->thread;
    q->config.lane_basis = c->lane_basis;
    q->config.subgroup_basis = c->subgroup_basis;
    ls_diag qd;
    ls_diag_clear(&qd);
    bool ok = ls_derive(q, dq, &qd) == LS_OK;
    if (!ok)
        refuse(why, n, "%s's lowering_config (at %d:%d): %s", what, c->line, c->col, qd.msg);
    else
        *own = !same_geometry(dq, lead_d);
    free(q);
    free(dq);
    return ok;
}

/* An elementwise op without a config: IREE's heuristic configures every
 * op of the dispatch together (populateConfigInfo), so when the
 * reductions' configs are the heuristic's, the op's is too (in cfg); with
 * the reductions' configs written and none on the op, lanescope does not
 * guess the op's tiling. */
static bool heuristic_config(const ls_module *m, const ls_module_elementwise *e,
                             const ls_problem *lead, ls_lowering_config *cfg, char *why, size_t n,
                             const char *what)
{
    if (!lead->config_suggested)
        return refuse(why, n, "%s has no lowering_config while the reductions' are written; "
                              "lanescope does not guess its tiling (write one: serial over the "
                              "reduced dims, as `lanescope suggest` shows)",
                      what);
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_diag sd;
    ls_diag_clear(&sd);
    const ls_op_config *c = NULL;
    if (ls_suggest(&m->dispatches[e->dispatch], &lead->target, s, &sd) == LS_OK)
        c = ls_suggest_config_of(s, e->op);
    bool ok = c != NULL && !c->is_reduction;
    if (ok) {
        /* the tile goes in as partial_reduction; an elementwise op's is serial */
        ls_config_set(cfg, c->rank, c->wg_tile, c->tile, c->thread, c->lanes, c->subgroups,
                      e->line, e->col);
        cfg->serial = cfg->partial_reduction;
        memset(&cfg->partial_reduction, 0, sizeof cfg->partial_reduction);
        memset(&cfg->workgroup, 0, sizeof cfg->workgroup); /* only the root's is written */
    } else {
        refuse(why, n, "IREE's heuristic gives %s no serial config here", what);
    }
    free(s);
    return ok;
}

/* The subgroups that write an own-layout phase's results: the first of
 * each group its layout does not tell apart (IREE's transfer_write
 * distribution, getNoOverlapCondition in
 * GPUNestedLayoutDistributionPatterns.cpp: a thread writes when the
 * thread-id digits its layout does not use are 0).  0 when they are not
 * subgroups 0 .. n - 1. */
static int writer_subgroups(const ls_derived *d)
{
    int n = 0;
    int64_t vs[LS_MAX_BODY];
    for (int64_t sg = 0; sg < d->num_subgroups; sg++) {
        ls_nl_virtual_subgroup(&d->layout, sg, vs);
        if (ls_nl_subgroup_of(&d->layout, vs) != sg)
            continue;
        if (sg != n)
            return 0;
        n++;
    }
    return n;
}

/* The start of phase ph's view of elementwise op e in k's ph slot: the
 * lead's problem with e's name, inputs, body and result type; its loops
 * the lead's (e's loop c is lead loop perm[c]) or, perm NULL, e's own.
 * NULL, with why, for a result the fused kernel does not store. */
static ls_problem *start_view(const ls_module_elementwise *e, const ls_problem *lp,
                              const int *perm, ls_fused_kernel *k, ls_fused_phase *ph, char *why,
                              size_t n)
{
    if (ls_elem_type_bits(e->out_type) < 8) {
        refuse(why, n, "%s stores %s elements, which the fused kernel does not pack", ph->what,
               ls_elem_type_name(e->out_type));
        return NULL;
    }
    ls_problem *v = &k->view[ph - k->phase];
    *v = *lp;
    size_t wl = strlen(ph->what) < sizeof v->name - 1 ? strlen(ph->what) : sizeof v->name - 1;
    memcpy(v->name, ph->what, wl); /* ph->what: in k, apart from v */
    v->name[wl] = '\0';
    v->line = e->line;
    v->col = e->col;
    v->n_inputs = e->n_inputs;
    for (int i = 0; i < e->n_inputs; i++) {
        v->inputs[i] = e->inputs[i];
        for (int x = 0; perm && x < v->inputs[i].map_n; x++)
            v->inputs[i].map[x] = perm[v->inputs[i].map[x]];
    }
    v->body = e->body;
    for (int i = 0; perm && i < v->body.n; i++)
        if (v->body.inst[i].op == LS_BOP_INDEX)
            v->body.inst[i].index = (int16_t)perm[v->body.inst[i].index];
    v->acc_type = e->out_type;
    v->extended = false;
    return v;
}

/* Phase ph's view of elementwise op e laid out by its own config cfg
 * (IREE lays out each op of the dispatch by its own lowering_config, and
 * converts the values between layouts): a problem over e's own loops, a
 * loop serial where the lead's loop it is reduces, with the lead's
 * workgroup tiles; its layout derived from cfg.  It, its layout and its
 * plan live in k, in ph's slot. */
static bool build_own_view(const ls_module_elementwise *e, const ls_plan *lead, const int *perm,
                           const ls_lowering_config *cfg, ls_fused_kernel *k, ls_fused_phase *ph,
                           char *why, size_t n)
{
    const ls_problem *lp = lead->problem;
    const ls_derived *ld = lead->derived;
    int slot = (int)(ph - k->phase);
    ls_problem *v = start_view(e, lp, NULL, k, ph, why, n);
    if (!v)
        return false;
    v->rank = e->rank;
    for (int c = 0; c < e->rank; c++) {
        v->size[c] = e->size[c];
        v->is_reduction[c] = lp->is_reduction[perm[c]];
    }
    v->serial_view = true;
    v->out_map_n = 0;
    for (int c = 0; c < e->rank; c++)
        if (!v->is_reduction[c])
            v->out_map[v->out_map_n++] = c;
    /* A reduction's result comes from the threads that hold it; in
     * another layout that is a layout change, unless the workgroup has
     * one result and every thread holds it. */
    for (int i = 0; i < e->n_inputs; i++)
        if (e->inputs[i].intermediate && (lead->results_per_thread != 1 ||
                                          lead->stores_per_workgroup != 1))
            return refuse(why, n, "%s reads %s in a layout of its own, and the workgroup's "
                                  "results are not one value every thread holds (a layout "
                                  "change lanescope does not model)",
                          ph->what, e->inputs[i].name);
    v->config = *cfg;
    v->config.partial_reduction = cfg->serial;
    v->config.partial_reduction.present = true;
    memset(&v->config.reduction, 0, sizeof v->config.reduction);
    /* its keys were checked above; the serial tile now stands as partial_reduction */
    memset(&v->config.serial, 0, sizeof v->config.serial);
    v->config.n_ignored = 0;
    v->config.workgroup.present = true;
    v->config.workgroup.n = e->rank;
    for (int c = 0; c < e->rank; c++)
        v->config.workgroup.v[c] = v->is_reduction[c] ? 0 : ld->wg_tile[perm[c]];
    ls_derived *dv = &k->view_derived[slot];
    ls_diag diag;
    ls_diag_clear(&diag);
    if (ls_derive(v, dv, &diag) != LS_OK)
        return refuse(why, n, "%s, laid out by its own lowering_config: %s", ph->what, diag.msg);
    /* the kernel's workgroups, in the same order: the dims of more than
     * one workgroup are the lead's, in the lead's order */
    int last = -1;
    for (int c = 0; c < e->rank; c++) {
        if (dv->wg_count[c] != ld->wg_count[perm[c]] || (dv->wg_count[c] > 1 && perm[c] < last))
            return refuse(why, n, "%s's workgroups are not %s's", ph->what, lp->name);
        if (dv->wg_count[c] > 1)
            last = perm[c];
    }
    if (dv->total_workgroups != ld->total_workgroups || dv->workgroup_size != ld->workgroup_size ||
        dv->subgroup_size != ld->subgroup_size)
        return refuse(why, n, "%s's workgroups are not %s's", ph->what, lp->name);
    for (int c = 0; c < e->rank; c++)
        if (dv->tail[c] != 0)
            return refuse(why, n, "%s's loop d%d of %lld elements is tiled by %lld with a ragged "
                                  "last tile, which a layout of its own does not model",
                          ph->what, c, (long long)v->size[c],
                          (long long)(v->is_reduction[c] ? dv->chunk[c] : dv->wg_tile[c]));
    ls_plan_target t = {lead->amd, lead->gfx_major};
    if (ls_plan_build(v, dv, t, &k->view_plan[slot], &diag) != LS_OK)
        return refuse(why, n, "%s: %s", ph->what, diag.msg);
    ph->own_layout = true;
    return true;
}

/* Phase ph's view of elementwise op e: the lead's problem over its loops,
 * with e's inputs (maps through perm: e's loop c is lead loop perm[c]),
 * e's body and result type, and the view's plan on the lead's layout.
 * Both live in k, in ph's slot. */
static bool build_view(const ls_module_elementwise *e, const ls_plan *lead, const int *perm,
                       ls_fused_kernel *k, ls_fused_phase *ph, char *why, size_t n)
{
    ls_problem *v = start_view(e, lead->problem, perm, k, ph, why, n);
    if (!v)
        return false;
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_plan_target t = {lead->amd, lead->gfx_major};
    if (ls_plan_build(v, lead->derived, t, &k->view_plan[ph - k->phase], &diag) != LS_OK)
        return refuse(why, n, "%s: %s", ph->what, diag.msg);
    return true;
}

static bool elementwise_phase(const ls_module *m, const ls_module_elementwise *e,
                              const ls_plan *lead, bool same_config, ls_fused_kernel *k,
                              ls_fused_phase *ph, char *why, size_t n)
{
    const ls_problem *lp = lead->problem;
    const char *what = ph->what;
    if (!e->compiled)
        return refuse(why, n, "%s: %s", what, e->why);
    int perm[LS_MAX_RANK];
    if (e->rank != lp->rank || !elementwise_loops(m, e, lp, perm))
        return refuse(why, n, "%s's loops cannot be matched with %s's (through the tensors and "
                              "results both read, or by size)",
                      what, lp->name);
    for (int c = 0; c < e->rank; c++)
        if (perm[c] < 0 || e->size[c] != lp->size[perm[c]])
            return refuse(why, n, "%s's loops are not %s's", what, lp->name);
    bool own = false;
    if (!same_config) {
        ls_lowering_config hcfg;
        const ls_lowering_config *cfg = &e->config;
        if (!e->has_config) {
            if (!heuristic_config(m, e, lp, &hcfg, why, n, what))
                return false;
            cfg = &hcfg;
        }
        if (!elementwise_config_ok(e, cfg, lp, lead->derived, perm, &own, why, n, what))
            return false;
        if (own && !build_own_view(e, lead, perm, cfg, k, ph, why, n))
            return false;
    }
    if (!own && !build_view(e, lead, perm, k, ph, why, n))
        return false;
    const ls_problem *v = &k->view[ph - k->phase];
    ph->plan = &k->view_plan[ph - k->phase];
    const ls_derived *d = ph->plan->derived;
    ph->writers = writer_subgroups(d);
    if (ph->writers == 0)
        return refuse(why, n, "%s's writing subgroups (one of each group its layout does not "
                              "tell apart) are not the first ones",
                      what);
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_plan_target t = {lead->amd, lead->gfx_major};
    /* its stores: one per result vector a thread holds, each writing
     * subgroup's share of the workgroup's tile.  The result laid out as
     * the only input of a second view gives them, and their vector types. */
    ls_problem *rv = ls_xmalloc(sizeof *rv);
    ls_plan *rp = ls_xmalloc(sizeof *rp);
    *rv = *v;
    rv->n_inputs = 1;
    rv->body.n = 0;
    ls_operand *ro = &rv->inputs[0];
    memset(ro, 0, sizeof *ro);
    snprintf(ro->name, sizeof ro->name, "(result)");
    ro->type = e->out_type;
    ro->map_n = e->rank;
    /* the result's dims as the view's loops: the lead's, or its own */
    for (int j = 0; j < e->rank; j++)
        ph->out_map[j] = ro->map[j] = own ? e->out_map[j] : perm[e->out_map[j]];
    ph->out_map_n = e->rank;
    ls_operand_regs o;
    ls_operand_regs_of(d, rv, 0, &o);
    ph->store_width = o.width;
    ph->store_type[0] = '\0';
    if (ls_plan_build(rv, d, t, rp, &diag) == LS_OK)
        ls_plan_input_vector_type(rp, 0, ph->store_type, sizeof ph->store_type);
    free(rp);
    free(rv);
    int64_t elems = 1;
    for (int c = 0; c < lp->rank; c++)
        elems *= lp->size[c];
    int64_t per = d->total_workgroups * d->total_iterations * ph->writers * o.loads;
    int64_t bytes = elems * (ls_elem_type_bits(e->out_type) / 8);
    if (o.loads < 1 || per <= 0 || bytes % per != 0)
        return refuse(why, n, "%s's result does not split evenly over the workgroups' tiles "
                              "(a ragged tile), which the fused kernel's stores do not model yet",
                      what);
    ph->stores = o.loads;
    ph->store_bytes = bytes / per;
    return true;
}

/* Which loop space kernel input u is addressed in: -1 the reductions',
 * else its own-layout phase. */
static int input_space_of(const ls_fused_kernel *k, int u)
{
    return k->phase[k->input_phase[u]].own_layout ? k->input_phase[u] : -1;
}

/* Every tensor a phase loads, once, in the kernel's input list. */
static bool gather_inputs(ls_fused_kernel *k, const ls_plan *lead, char *why, size_t n)
{
    ls_problem *kp = &k->problem;
    ls_plan *pl = &k->plan;
    kp->n_inputs = 0;
    pl->n_inputs = 0;
    for (int i = 0; i < k->n_phases; i++) {
        ls_fused_phase *ph = &k->phase[i];
        const ls_plan *pp = ph->plan;
        const ls_problem *p = pp->problem;
        for (int a = 0; a < LS_MAX_INPUTS; a++) {
            ph->operand[a] = -1;
            ph->held[a] = -1;
        }
        for (int a = 0; a < p->n_inputs; a++) {
            if (pp->inputs[a].loads == 0) {
                for (int j = 0; j < i && p->inputs[a].intermediate; j++)
                    if (k->phase[j].problem == p->inputs[a].producer)
                        ph->held[a] = j;
                continue;
            }
            const ls_operand *o = &p->inputs[a];
            int u = 0;
            /* one tensor read in two layouts' loops is two inputs: the
             * same map means the same elements in one loop space only */
            while (u < kp->n_inputs &&
                   !(input_space_of(k, u) == (ph->own_layout ? i : -1) &&
                     strcmp(kp->inputs[u].name, o->name) == 0 && kp->inputs[u].type == o->type &&
                     kp->inputs[u].map_n == o->map_n &&
                     memcmp(kp->inputs[u].map, o->map, sizeof o->map[0] * (size_t)o->map_n) == 0 &&
                     memcmp(kp->inputs[u].scale, o->scale, sizeof o->scale[0] * (size_t)o->map_n) == 0))
                u++;
            if (u == kp->n_inputs) {
                if (u == LS_MAX_INPUTS)
                    return refuse(why, n, "the dispatch's loops load more than %d tensors, the "
                                          "most one kernel holds in lanescope",
                                  LS_MAX_INPUTS);
                kp->inputs[u] = *o;
                k->input_phase[u] = i;
                k->input_operand[u] = a;
                pl->inputs[u].loads = pp->inputs[a].loads;
                pl->inputs[u].width = pp->inputs[a].width;
                pl->inputs[u].elem_bits = pp->inputs[a].elem_bits;
                kp->n_inputs = pl->n_inputs = u + 1;
            }
            ph->operand[a] = u;
        }
    }
    if (kp->n_inputs == 0)
        return refuse(why, n, "the dispatch's loops load no tensor");
    (void)lead;
    return true;
}

/* The first later op of the dispatch that reads op oi's result and is a
 * reduction lanescope models (IREE fuses oi into its loop), else -1. */
static int reducing_consumer(const ls_module *m, const ls_dispatch *d, int oi)
{
    for (int j = oi + 1; j < d->n_ops; j++) {
        const ls_dop *c = &d->ops[j];
        if (c->problem < 0)
            continue;
        for (int a = 0; a < c->n_inputs; a++)
            if (c->operand[a].producer == oi)
                return j;
    }
    (void)m;
    return -1;
}

/* An elementwise op over the reductions' results only (its loops all the
 * workgroup's, after the reduce): a fused epilogue, IREE's
 * needsLoweringConfig finding every dim shared.  Its body per result, its
 * result stored instead (each thread of the store its slots). */
static bool epilogue_phase(const ls_module *m, const ls_module_elementwise *e,
                           const ls_plan *lead, ls_fused_kernel *k, ls_fused_phase *ph,
                           char *why, size_t n)
{
    const ls_problem *lp = lead->problem;
    if (!e->compiled)
        return refuse(why, n, "%s: %s", ph->what, e->why);
    /* its loops are the lead's output loops: found through the results it
     * reads (every reduction of the kernel has the lead's loops) */
    int perm[LS_MAX_RANK];
    for (int c = 0; c < e->rank; c++)
        perm[c] = -1;
    for (int i = 0; i < e->n_inputs; i++) {
        const ls_operand *a = &e->inputs[i];
        if (!a->intermediate)
            continue;
        const ls_problem *r = &m->problems[a->producer];
        if (r->out_map_n != a->map_n)
            return refuse(why, n, "%s does not read the reductions' results whole", ph->what);
        for (int x = 0; x < a->map_n; x++)
            perm[a->map[x]] = r->out_map[x];
    }
    for (int c = 0; c < e->rank; c++)
        if (perm[c] < 0 || lp->is_reduction[perm[c]])
            return refuse(why, n, "%s's loops cannot be matched with %s's output loops",
                          ph->what, lp->name);
    /* a tensor it reads from memory (a bias or a scale, over output loops
     * only) is loaded once a result, at no iteration's tile */
    if (!build_view(e, lead, perm, k, ph, why, n))
        return false;
    ls_plan *vp = &k->view_plan[ph - k->phase];
    ls_plan_target t = {lead->amd, lead->gfx_major};
    ph->epilogue = true;
    for (int j = 0; j < e->rank; j++)
        ph->out_map[j] = perm[e->out_map[j]];
    ph->out_map_n = e->rank;
    ph->plan = vp; /* its results laid out as the reduction's */
    int64_t per = lead->stores_per_workgroup /
                  (lead->derived->num_subgroups * lead->results_per_thread);
    ph->epilogue_bytes = (per > 0 ? per : 1) * (ls_elem_type_bits(e->out_type) / 8);
    ls_body_machine_ops(&e->body, t, &ph->epilogue_alu, &ph->epilogue_sfu);
    return true;
}

size_t ls_fused_first(const ls_module *m, size_t i)
{
    int d = m->problems[i].dispatch;
    while (d >= 0 && i > 0 && m->problems[i - 1].dispatch == d)
        i--;
    return i;
}

int ls_fused_loops(const ls_module *m, size_t lead)
{
    const ls_problem *lp = &m->problems[lead];
    if (lp->dispatch < 0 || (size_t)lp->dispatch >= m->n_dispatches)
        return 1;
    const ls_dispatch *d = &m->dispatches[lp->dispatch];
    int n = 0;
    for (int oi = 0; oi < d->n_ops; oi++) {
        const ls_dop *op = &d->ops[oi];
        bool reduces = false;
        for (int x = 0; x < op->rank; x++)
            reduces |= op->is_reduction[x];
        int results = 0;
        for (size_t pi = 0; pi < m->n_problems; pi++)
            results += m->problems[pi].dispatch == lp->dispatch && m->problems[pi].dispatch_op == oi;
        if (results > 0)
            n += results;
        else if (!op->is_fill && (reduces || ls_dispatch_stores(d, op->result)))
            n++; /* a stored producer's stores are the kernel's work too */
    }
    return n;
}

/* What the kernel's build carries from op to op. */
typedef struct {
    const ls_module *m;
    const ls_dispatch *d;
    const ls_plan *plans, *lead;
    bool same_config;
    ls_fused_kernel *k;
    char *why;
    size_t n;
    ls_fused_phase pending; /* a stored producer, for its consumer's loop */
    bool has_pending;
} fuse_ctx;

/* The loops of op oi's reductions (a multi-result op's, one a result):
 * how many, -1 when one cannot be a loop of the kernel. */
static int add_reductions(fuse_ctx *c, int oi)
{
    ls_fused_kernel *k = c->k;
    int before = k->n_phases;
    for (size_t pi = 0; pi < c->m->n_problems; pi++) {
        const ls_problem *p = &c->m->problems[pi];
        if (p->dispatch != c->lead->problem->dispatch || p->dispatch_op != oi)
            continue;
        if (k->n_phases == LS_FUSED_MAX_PHASES) {
            refuse(c->why, c->n, "the dispatch has more than %d loops", LS_FUSED_MAX_PHASES);
            return -1;
        }
        ls_fused_phase *ph = &k->phase[k->n_phases++];
        memset(ph, 0, sizeof *ph); /* the slot may hold a stored producer's layout */
        ph->plan = &c->plans[pi];
        ph->problem = (int)pi;
        ph->elementwise_op = -1;
        ph->producer_op = -1;
        ph->store = ls_dispatch_stores(c->d, c->d->ops[oi].result);
        snprintf(ph->what, sizeof ph->what, "%s", p->name);
        if (!reduction_phase_ok(ph->plan, c->lead, c->why, c->n))
            return -1;
        if (c->has_pending && k->n_phases == before + 1) { /* the first result's loop */
            ph->producer_op = c->pending.elementwise_op;
            ph->producer_stores = c->pending.stores;
            ph->producer_store_bytes = c->pending.store_bytes;
            snprintf(ph->producer_what, sizeof ph->producer_what, "%.90s", c->pending.what);
            /* its view stays in this slot's view_plan: reductions use their own plans */
            ph->producer_plan = c->pending.plan;
            memcpy(ph->producer_out_map, c->pending.out_map, sizeof ph->producer_out_map);
            ph->producer_out_map_n = c->pending.out_map_n;
            c->has_pending = false;
        }
    }
    return k->n_phases - before;
}

/* A stored elementwise op oi: a loop of its own, an epilogue after the
 * reduce (its loops the workgroup's), or stores in the loop of the
 * reduction it is fused into (kept pending until that loop). */
static bool add_elementwise(fuse_ctx *c, int oi)
{
    const ls_dop *op = &c->d->ops[oi];
    const ls_module_elementwise *e = NULL;
    for (size_t j = 0; j < c->m->n_elementwise && e == NULL; j++)
        if (c->m->elementwise[j].dispatch == c->lead->problem->dispatch &&
            c->m->elementwise[j].op == oi)
            e = &c->m->elementwise[j];
    char what[160];
    op_text(op, what, sizeof what);
    if (e == NULL || strcmp(op->kind, "linalg.generic") != 0)
        return refuse(c->why, c->n, "%s is stored and lanescope does not model it", what);
    ls_fused_kernel *k = c->k;
    if (k->n_phases == LS_FUSED_MAX_PHASES)
        return refuse(c->why, c->n, "the dispatch has more than %d loops", LS_FUSED_MAX_PHASES);
    /* laid out in the next slot; a stored producer's slot is then taken by
     * the next phase */
    ls_fused_phase *ph = &k->phase[k->n_phases];
    memset(ph, 0, sizeof *ph);
    ph->problem = -1;
    ph->elementwise = true;
    ph->elementwise_op = (int)(e - c->m->elementwise);
    ph->producer_op = -1;
    snprintf(ph->what, sizeof ph->what, "%s", what);
    if (reducing_consumer(c->m, c->d, oi) >= 0) {
        if (!elementwise_phase(c->m, e, c->lead, true, k, ph, c->why, c->n))
            return false;
        /* the reduction's loop stores it from every subgroup */
        if (ph->writers != c->lead->derived->num_subgroups)
            return refuse(c->why, c->n, "%s is stored from a loop whose layout gives several "
                                        "subgroups the same elements, which the fused kernel "
                                        "does not model",
                          what);
        c->pending = *ph;
        c->has_pending = true;
        return true;
    }
    if (e->rank < c->lead->problem->rank) {
        if (!epilogue_phase(c->m, e, c->lead, k, ph, c->why, c->n))
            return false;
    } else if (!elementwise_phase(c->m, e, c->lead, c->same_config, k, ph, c->why, c->n)) {
        return false;
    }
    k->n_phases++;
    return true;
}

/* The kernel's own problem and plan: the lead's, with every tensor the
 * loops load, and each reduction's workgroup buffer. */
static bool finish_kernel(ls_fused_kernel *k, const ls_plan *lead, char *why, size_t n)
{
    k->problem = *lead->problem;
    k->plan = *lead;
    if (!gather_inputs(k, lead, why, n))
        return false;
    ls_plan *pl = &k->plan;
    pl->problem = &k->problem;
    pl->fused = k;
    memset(pl->promote, 0, sizeof pl->promote);
    pl->n_promoted = 0;
    pl->promote_bytes = 0;
    pl->loads_per_iteration = pl->inputs[0].loads;
    pl->load_width = pl->inputs[0].width;
    /* each reduction's buffer is its own allocation in IREE's kernel */
    pl->buffer_bytes = 0;
    for (int i = 0; i < k->n_phases; i++)
        if (!k->phase[i].elementwise)
            pl->buffer_bytes += k->phase[i].plan->buffer_bytes;
    return true;
}

static bool build(const ls_module *m, size_t lead, const ls_plan *plans, bool same_config,
                  ls_fused_kernel *k, char *why, size_t why_size)
{
    memset(k, 0, sizeof *k);
    why[0] = '\0';
    /* one loop: nothing to fuse, nothing to say */
    if (ls_fused_loops(m, lead) < 2)
        return false;
    fuse_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.d = &m->dispatches[m->problems[lead].dispatch];
    c.plans = plans;
    c.lead = &plans[lead];
    c.same_config = same_config;
    c.k = k;
    c.why = why;
    c.n = why_size;
    for (int oi = 0; oi < c.d->n_ops; oi++) {
        const ls_dop *op = &c.d->ops[oi];
        int added = add_reductions(&c, oi);
        if (added < 0)
            return false;
        if (added > 0 || op->is_fill)
            continue;
        bool reduces = false;
        for (int x = 0; x < op->rank; x++)
            reduces |= op->is_reduction[x];
        if (reduces)
            return refuse(why, why_size, "%s at %d:%d reduces, and lanescope does not simulate it",
                          op->kind, op->line, op->col);
        if (ls_dispatch_stores(c.d, op->result) && !add_elementwise(&c, oi))
            return false;
        /* else a producer: inlined into the loops that read it */
    }
    int loops = k->n_phases;
    for (int i = 0; i < k->n_phases; i++)
        loops += k->phase[i].producer_op >= 0;
    if (loops < 2 || k->phase[0].problem != (int)lead)
        return false;
    return finish_kernel(k, &plans[lead], why, why_size);
}

bool ls_fused_build(const ls_module *m, size_t lead, const ls_plan *plans, ls_fused_kernel *k,
                    char *why, size_t why_size)
{
    return build(m, lead, plans, false, k, why, why_size);
}

bool ls_fused_build_same_config(const ls_module *m, size_t lead, const ls_plan *plans,
                                ls_fused_kernel *k, char *why, size_t why_size)
{
    return build(m, lead, plans, true, k, why, why_size);
}

int ls_fused_loop_count(const ls_fused_kernel *k)
{
    int n = 0;
    for (int i = 0; i < k->n_phases; i++)
        n += !k->phase[i].epilogue;
    return n;
}

const ls_plan *ls_fused_input_space(const ls_fused_kernel *k, int u, int *operand)
{
    *operand = k->input_operand[u];
    return k->phase[k->input_phase[u]].plan;
}

int ls_fused_input_alias(const ls_fused_kernel *k, int u)
{
    const ls_operand *o = &k->problem.inputs[u];
    int a, b;
    const ls_plan *su = ls_fused_input_space(k, u, &a);
    int64_t elems = ls_operand_elements(su->problem, a);
    for (int j = 0; j < u; j++) {
        const ls_operand *q = &k->problem.inputs[j];
        if (input_space_of(k, j) == input_space_of(k, u) || strcmp(q->name, o->name) != 0 ||
            q->type != o->type)
            continue;
        const ls_plan *sj = ls_fused_input_space(k, j, &b);
        if (ls_operand_elements(sj->problem, b) == elems)
            return j;
    }
    return -1;
}

int64_t ls_fused_min_bytes(const ls_fused_kernel *k)
{
    int64_t bytes = 0;
    for (int u = 0; u < k->problem.n_inputs; u++) {
        int a;
        if (ls_fused_input_alias(k, u) >= 0)
            continue; /* the same tensor, read once at least */
        const ls_plan *sp = ls_fused_input_space(k, u, &a);
        bytes += ls_operand_elements(sp->problem, a) * k->plan.inputs[u].elem_bits / 8;
    }
    for (int i = 0; i < k->n_phases; i++) {
        const ls_fused_phase *ph = &k->phase[i];
        const ls_derived *d = ph->plan->derived;
        bytes += ph->producer_store_bytes * ph->producer_stores * d->num_subgroups *
                 d->total_workgroups * d->total_iterations;
        if (ph->epilogue)
            bytes += ph->epilogue_bytes * ph->plan->results_per_thread * d->num_subgroups *
                     d->total_workgroups;
        else if (ph->elementwise)
            bytes += ph->store_bytes * ph->stores * ph->writers * d->total_workgroups *
                     d->total_iterations;
        else if (ph->store)
            bytes += d->total_workgroups * ph->plan->stores_per_workgroup *
                     ph->plan->acc_elem_bytes;
    }
    return bytes;
}
