/* fused.c: a dispatch's reductions and stored elementwise ops as one
 * kernel of loops one after another (fused.h): which ops are its loops,
 * whether they share what one kernel needs, and the kernel's plan with
 * every tensor the loops load.  Each elementwise op's loop is built in
 * fused_elementwise.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fused_internal.h"
#include "lanescope/functional.h"
#include "lanescope/layout.h"
#include "lanescope/suggest.h"

bool ls_fused_refuse(char *why, size_t n, const char *fmt, ...)
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
bool ls_fused_same_geometry(const ls_derived *a, const ls_derived *b)
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
        return ls_fused_refuse(why, n, "%s is not a VectorDistribute reduction (%s)", p->name,
                               pl->argcmp ? "an arg_compare" : "a TileAndFuse plan");
    if (pl->n_promoted > 0)
        return ls_fused_refuse(why, n,
                               "%s promotes an operand through workgroup memory "
                               "(promote_operands), which the fused kernel does not model yet",
                               p->name);
    if (p->rank != lead->problem->rank ||
        !same_list(p->size, lead->problem->size, p->rank) ||
        memcmp(p->is_reduction, lead->problem->is_reduction, sizeof p->is_reduction) != 0)
        return ls_fused_refuse(why, n, "%s and %s have different loops", p->name,
                               lead->problem->name);
    if (!ls_fused_same_geometry(pl->derived, lead->derived))
        return ls_fused_refuse(why, n,
                               "%s and %s are tiled differently (workgroups, subgroups or "
                               "tiles), so they are not loops of one kernel here",
                               p->name, lead->problem->name);
    /* the cross-subgroup buffers' bank conflicts are modelled with the
     * first reduction's buffer */
    if (pl->cross_subgroup != lead->cross_subgroup || pl->acc_elem_bytes != lead->acc_elem_bytes ||
        pl->results_per_thread != lead->results_per_thread || pl->amd != lead->amd ||
        pl->gfx_major != lead->gfx_major || pl->extra_results != 0)
        return ls_fused_refuse(why, n,
                               "%s reduces in %lld-byte values where %s reduces in %lld-byte "
                               "ones, or shares no buffer shape with it",
                               p->name, (long long)pl->acc_elem_bytes, lead->problem->name,
                               (long long)lead->acc_elem_bytes);
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
                    return ls_fused_refuse(why, n,
                                           "the dispatch's loops load more than %d tensors, the "
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
        return ls_fused_refuse(why, n, "the dispatch's loops load no tensor");
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
            ls_fused_refuse(c->why, c->n, "the dispatch has more than %d loops",
                            LS_FUSED_MAX_PHASES);
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
        return ls_fused_refuse(c->why, c->n, "%s is stored and lanescope does not model it", what);
    ls_fused_kernel *k = c->k;
    if (k->n_phases == LS_FUSED_MAX_PHASES)
        return ls_fused_refuse(c->why, c->n, "the dispatch has more than %d loops",
                               LS_FUSED_MAX_PHASES);
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
        if (!ls_fused_elementwise_phase(c->m, e, c->lead, true, k, ph, c->why, c->n))
            return false;
        /* the reduction's loop stores it from every subgroup */
        if (ph->writers != c->lead->derived->num_subgroups)
            return ls_fused_refuse(c->why, c->n,
                                   "%s is stored from a loop whose layout gives several "
                                   "subgroups the same elements, which the fused kernel "
                                   "does not model",
                                   what);
        c->pending = *ph;
        c->has_pending = true;
        return true;
    }
    if (e->rank < c->lead->problem->rank) {
        if (!ls_fused_epilogue_phase(c->m, e, c->lead, k, ph, c->why, c->n))
            return false;
    } else if (!ls_fused_elementwise_phase(c->m, e, c->lead, c->same_config, k, ph, c->why, c->n)) {
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
            return ls_fused_refuse(why, why_size,
                                   "%s at %d:%d reduces, and lanescope does not simulate it",
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
