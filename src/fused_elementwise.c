/* fused_elementwise.c: an elementwise op of a dispatch as a loop of its
 * one kernel (fused.h): its loops matched with the reductions', its
 * config (written, or IREE's heuristic), and its view -- laid out as the
 * reductions or by its own config -- or, over the results only, a fused
 * epilogue of the reduction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fused_internal.h"
#include "lanescope/functional.h"
#include "lanescope/layout.h"
#include "lanescope/suggest.h"

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
#define SET(c, l)                                                                                  \
    do {                                                                                           \
        if (perm[c] < 0 && !used[l]) {                                                             \
            perm[c] = (l);                                                                         \
            used[l] = true;                                                                        \
        } else if (perm[c] != (l)) {                                                               \
            return false;                                                                          \
        }                                                                                          \
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
                                  const ls_problem *lead, const ls_derived *lead_d, const int *perm,
                                  bool *own, char *why, size_t n, const char *what)
{
    *own = false;
    for (int k = 0; k < c->n_ignored; k++)
        if (strcmp(c->ignored[k], "serial") != 0 && !c->ignored_inert[k])
            return ls_fused_refuse(why, n,
                                   "%s's lowering_config key '%s' (at %d:%d) is not one an "
                                   "elementwise op's lowering reads",
                                   what, c->ignored[k], c->ignored_line[k], c->ignored_col[k]);
    if (c->partial_reduction.present || c->reduction.present || c->promote_operands.present)
        return ls_fused_refuse(why, n,
                               "%s has parallel loops only, yet its lowering_config has a "
                               "reduction tiling level or promote_operands",
                               what);
    /* The op's loops tiled as its config says, with the reduction's loops
     * kinds: its serial tile is a partial_reduction tile on the dims the
     * reductions reduce, and must be 0 (the workgroup's) on the others. */
    int r = e->rank;
    const ls_lowering_config *l = &lead->config;
    if (!c->serial.present || c->serial.n != r)
        return ls_fused_refuse(why, n,
                               "%s's lowering_config (at %d:%d) has no serial tile over its %d "
                               "loops",
                               what, c->line, c->col, r);
    for (int x = 0; x < r; x++)
        if (!lead->is_reduction[perm[x]] && c->serial.v[x] != 0)
            return ls_fused_refuse(why, n,
                                   "%s's serial tile on d%d (%lld) tiles a dim the workgroups "
                                   "share (%s's parallel d%d)",
                                   what, x, (long long)c->serial.v[x], lead->name, perm[x]);
    if (c->workgroup.present)
        for (int x = 0; x < r && x < c->workgroup.n; x++)
            if (c->workgroup.v[x] != (perm[x] < l->workgroup.n ? l->workgroup.v[perm[x]] : 0))
                return ls_fused_refuse(why, n, "%s's workgroup tile differs from %s's", what,
                                       lead->name);
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
        ls_fused_refuse(why, n, "%s's lowering_config (at %d:%d): %s", what, c->line, c->col,
                        qd.msg);
    else
        *own = !ls_fused_same_geometry(dq, lead_d);
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
        return ls_fused_refuse(why, n,
                               "%s has no lowering_config while the reductions' are written; "
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
        ls_config_set(cfg, c->rank, c->wg_tile, c->tile, c->thread, c->lanes, c->subgroups, e->line,
                      e->col);
        cfg->serial = cfg->partial_reduction;
        memset(&cfg->partial_reduction, 0, sizeof cfg->partial_reduction);
        memset(&cfg->workgroup, 0, sizeof cfg->workgroup); /* only the root's is written */
    } else {
        ls_fused_refuse(why, n, "IREE's heuristic gives %s no serial config here", what);
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
static ls_problem *start_view(const ls_module_elementwise *e, const ls_problem *lp, const int *perm,
                              ls_fused_kernel *k, ls_fused_phase *ph, char *why, size_t n)
{
    if (ls_elem_type_bits(e->out_type) < 8) {
        ls_fused_refuse(why, n, "%s stores %s elements, which the fused kernel does not pack",
                        ph->what, ls_elem_type_name(e->out_type));
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
        if (e->inputs[i].intermediate &&
            (lead->results_per_thread != 1 || lead->stores_per_workgroup != 1))
            return ls_fused_refuse(why, n,
                                   "%s reads %s in a layout of its own, and the workgroup's "
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
        return ls_fused_refuse(why, n, "%s, laid out by its own lowering_config: %s", ph->what,
                               diag.msg);
    /* the kernel's workgroups, in the same order: the dims of more than
     * one workgroup are the lead's, in the lead's order */
    int last = -1;
    for (int c = 0; c < e->rank; c++) {
        if (dv->wg_count[c] != ld->wg_count[perm[c]] || (dv->wg_count[c] > 1 && perm[c] < last))
            return ls_fused_refuse(why, n, "%s's workgroups are not %s's", ph->what, lp->name);
        if (dv->wg_count[c] > 1)
            last = perm[c];
    }
    if (dv->total_workgroups != ld->total_workgroups || dv->workgroup_size != ld->workgroup_size ||
        dv->subgroup_size != ld->subgroup_size)
        return ls_fused_refuse(why, n, "%s's workgroups are not %s's", ph->what, lp->name);
    for (int c = 0; c < e->rank; c++)
        if (dv->tail[c] != 0)
            return ls_fused_refuse(why, n,
                                   "%s's loop d%d of %lld elements is tiled by %lld with a ragged "
                                   "last tile, which a layout of its own does not model",
                                   ph->what, c, (long long)v->size[c],
                                   (long long)(v->is_reduction[c] ? dv->chunk[c] : dv->wg_tile[c]));
    ls_plan_target t = ls_plan_target_of(lead);
    if (ls_plan_build(v, dv, t, &k->view_plan[slot], &diag) != LS_OK)
        return ls_fused_refuse(why, n, "%s: %s", ph->what, diag.msg);
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
    ls_plan_target t = ls_plan_target_of(lead);
    if (ls_plan_build(v, lead->derived, t, &k->view_plan[ph - k->phase], &diag) != LS_OK)
        return ls_fused_refuse(why, n, "%s: %s", ph->what, diag.msg);
    return true;
}

/* Elementwise op e as a loop of the kernel (ph): its loops matched with
 * the lead's, its view and plan, in the reductions' layout or in its own
 * config's (same_config: only the former is allowed). */
bool ls_fused_elementwise_phase(const ls_module *m, const ls_module_elementwise *e,
                                const ls_plan *lead, bool same_config, ls_fused_kernel *k,
                                ls_fused_phase *ph, char *why, size_t n)
{
    const ls_problem *lp = lead->problem;
    const char *what = ph->what;
    if (!e->compiled)
        return ls_fused_refuse(why, n, "%s: %s", what, e->why);
    int perm[LS_MAX_RANK];
    if (e->rank != lp->rank || !elementwise_loops(m, e, lp, perm))
        return ls_fused_refuse(why, n,
                               "%s's loops cannot be matched with %s's (through the tensors and "
                               "results both read, or by size)",
                               what, lp->name);
    for (int c = 0; c < e->rank; c++)
        if (perm[c] < 0 || e->size[c] != lp->size[perm[c]])
            return ls_fused_refuse(why, n, "%s's loops are not %s's", what, lp->name);
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
        return ls_fused_refuse(why, n,
                               "%s's writing subgroups (one of each group its layout does not "
                               "tell apart) are not the first ones",
                               what);
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_plan_target t = ls_plan_target_of(lead);
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
        return ls_fused_refuse(why, n,
                               "%s's result does not split evenly over the workgroups' tiles "
                               "(a ragged tile), which the fused kernel's stores do not model yet",
                               what);
    ph->stores = o.loads;
    ph->store_bytes = bytes / per;
    return true;
}

/* An elementwise op over the reductions' results only (its loops all the
 * workgroup's, after the reduce): a fused epilogue, IREE's
 * needsLoweringConfig finding every dim shared.  Its body per result, its
 * result stored instead (each thread of the store its slots). */
bool ls_fused_epilogue_phase(const ls_module *m, const ls_module_elementwise *e,
                             const ls_plan *lead, ls_fused_kernel *k, ls_fused_phase *ph, char *why,
                             size_t n)
{
    const ls_problem *lp = lead->problem;
    if (!e->compiled)
        return ls_fused_refuse(why, n, "%s: %s", ph->what, e->why);
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
            return ls_fused_refuse(why, n, "%s does not read the reductions' results whole",
                                   ph->what);
        for (int x = 0; x < a->map_n; x++)
            perm[a->map[x]] = r->out_map[x];
    }
    for (int c = 0; c < e->rank; c++)
        if (perm[c] < 0 || lp->is_reduction[perm[c]])
            return ls_fused_refuse(why, n, "%s's loops cannot be matched with %s's output loops",
                                   ph->what, lp->name);
    /* a tensor it reads from memory (a bias or a scale, over output loops
     * only) is loaded once a result, at no iteration's tile */
    if (!build_view(e, lead, perm, k, ph, why, n))
        return false;
    ls_plan *vp = &k->view_plan[ph - k->phase];
    ls_plan_target t = ls_plan_target_of(lead);
    ph->epilogue = true;
    for (int j = 0; j < e->rank; j++)
        ph->out_map[j] = perm[e->out_map[j]];
    ph->out_map_n = e->rank;
    ph->plan = vp; /* its results laid out as the reduction's */
    int64_t per =
        lead->stores_per_workgroup / (lead->derived->num_subgroups * lead->results_per_thread);
    ph->epilogue_bytes = (per > 0 ? per : 1) * (ls_elem_type_bits(e->out_type) / 8);
    ls_body_machine_ops(&e->body, t, &ph->epilogue_alu, &ph->epilogue_sfu);
    return true;
}
