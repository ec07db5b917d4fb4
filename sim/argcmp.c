/* argcmp.c: an arg_compare plan's values, lane by lane, and its reference.
 *
 * The lanes follow docs/arg-compare-lowering.md §3.4 step by step, every
 * compare through the op's own comparator (body.h), so ties are broken
 * where IREE's lowering breaks them:
 *   A. the partial generic: each register slot starts at the inits and, in
 *      every iteration, takes the candidate when comparator(candidate,
 *      slot) holds; the index is iv + j (+ index_base) cast to the index
 *      type, or the explicit index input's element;
 *   B. the merge's local step: the inits first, then the thread's reduced
 *      registers in register order;
 *   C. across lanes: the ballot path (gpu.subgroup_reduce of the value or of
 *      U(value), cmp oeq, ballot, cttz, shuffle idx from the winner) or the
 *      butterfly (shuffle xor of both, descending offsets, the partner's
 *      pair taken unless the own one wins the comparator);
 *   D. across subgroups: lane 0 of each cluster writes both buffers, every
 *      lane reads its slot (the inits past the end), folds it into the
 *      inits, then C again over the read cluster;
 *   E. thread 0 of the cluster holds the result.
 * The reference is the op's scalar semantics (TilingInterfaceImpl.cpp:
 * generateScalarImplementation): the inits, then every position in
 * increasing order.  Where the two pick different indices of equal values
 * the lowering broke a tie differently: counted as a finding, not an error.
 */
#include <stdlib.h>
#include <string.h>

#include "functional_internal.h"

typedef struct {
    const ls_plan *plan;
    const ls_problem *p;
    const ls_derived *d;
    ls_input_source in;
    int dim;                /* the reduced loop dim */
    int64_t threads, regs, nres, sgsz;
    ls_value *acc_v, *acc_i; /* threads x regs */
    ls_value *res_v, *res_i; /* threads x nres */
    int64_t *res_slot, *slot_reg;
    ls_value init_v, init_i;
    ls_body ubody;           /* U(value) of the ballot path, n = 0: none */
    ls_elem_type xt;         /* the type gpu.subgroup_reduce reduces */
    ls_value *smem_v, *smem_i;
    int64_t smem_n;
    ls_value scratch[LS_MAX_BODY_INSTS];
} ac_state;

/* comparator(candidate, best) */
static bool cmp_holds(const ls_problem *p, ls_value cand, ls_value best, const int64_t *x,
                      ls_value *scratch)
{
    ls_value args[2] = {cand, best};
    static const int64_t zero[LS_MAX_RANK];
    return ls_body_eval(&p->argcmp.cmp, args, x ? x : zero, scratch) & 1;
}

static bool beats(ac_state *s, ls_value cand, ls_value best, const int64_t *x)
{
    return cmp_holds(s->p, cand, best, x, s->scratch);
}

/* The index of position r along the dimension at iteration point x. */
static ls_value index_at(const ls_problem *p, ls_input_source in, const int64_t *x, int dim)
{
    const ls_argcmp *a = &p->argcmp;
    if (a->explicit_index)
        return ls_operand_value(p, in, 1, x);
    uint64_t g = (uint64_t)x[dim] + (uint64_t)(a->has_base ? a->base : 0);
    return g & ls_value_mask(a->index_type);
}

ls_value ls_argcmp_init_index(const ls_problem *p)
{
    return p->argcmp.has_init_index ? p->argcmp.init_index : 0;
}

void ls_argcmp_reference(const ls_problem *p, ls_input_source in, const int64_t *out,
                         ls_value *value, ls_value *index)
{
    int dim = ls_argcmp_dim(p);
    int64_t x[LS_MAX_RANK] = {0};
    for (int i = 0, j = 0; i < p->rank; i++)
        if (!p->is_reduction[i])
            x[i] = out[j++];
    ls_value bv = p->init, bi = ls_argcmp_init_index(p), args[2], scratch[LS_MAX_BODY_INSTS];
    for (int64_t r = 0; r < p->size[dim]; r++) {
        x[dim] = r;
        args[0] = ls_operand_value(p, in, 0, x);
        args[1] = bv;
        if (ls_body_eval(&p->argcmp.cmp, args, x, scratch) & 1) {
            bv = args[0];
            bi = index_at(p, in, x, dim);
        }
    }
    *value = bv;
    *index = bi;
}

/* ---- A: the partial generic over iterations [0, stop) ---- */

static void partial_generic(ac_state *s, const int64_t *wg_coord, int64_t stop)
{
    for (int64_t i = 0; i < s->threads * s->regs; i++) {
        s->acc_v[i] = s->init_v;
        s->acc_i[i] = s->init_i;
    }
    int64_t it_coord[LS_MAX_RANK];
    for (int64_t it = 0; it < stop; it++) {
        ls_iteration_coord(s->d, s->p, it, it_coord);
        for (int64_t tid = 0; tid < s->threads; tid++)
            for (int64_t r = 0; r < s->regs; r++) {
                int64_t x[LS_MAX_RANK];
                bool valid;
                ls_thread_element(s->d, s->p, tid, wg_coord, it_coord, r, x, &valid);
                if (!valid)
                    continue; /* a masked slot keeps its pair */
                ls_value v = ls_operand_value(s->p, s->in, 0, x);
                int64_t at = tid * s->regs + r;
                if (beats(s, v, s->acc_v[at], x)) {
                    s->acc_v[at] = v;
                    s->acc_i[at] = index_at(s->p, s->in, x, s->dim);
                }
            }
    }
}

/* ---- B: the merge's local step ---- */

static void local_merge(ac_state *s)
{
    for (int64_t tid = 0; tid < s->threads; tid++) {
        for (int64_t q = 0; q < s->nres; q++) {
            s->res_v[tid * s->nres + q] = s->init_v;
            s->res_i[tid * s->nres + q] = s->init_i;
        }
        for (int64_t r = 0; r < s->regs; r++) {
            int64_t at = tid * s->nres + s->res_slot[r];
            ls_value v = s->acc_v[tid * s->regs + r];
            if (beats(s, v, s->res_v[at], NULL)) {
                s->res_v[at] = v;
                s->res_i[at] = s->acc_i[tid * s->regs + r];
            }
        }
    }
}

/* ---- C: one lane combine over a subgroup's lanes v[], i[] ---- */

static bool values_equal(ls_elem_type t, ls_value a, ls_value b)
{
    if (ls_elem_type_is_float(t))
        return ls_value_to_double(a, t) == ls_value_to_double(b, t); /* oeq */
    return (a & ls_value_mask(t)) == (b & ls_value_mask(t));
}

static void lane_combine(ac_state *s, const ls_subgroup_reduce *r, ls_value *v, ls_value *i,
                         int max_steps)
{
    int64_t sg = s->sgsz;
    ls_value tv[LS_MAX_SUBGROUP_SIZE], ti[LS_MAX_SUBGROUP_SIZE];
    memcpy(tv, v, (size_t)sg * sizeof *v);
    memcpy(ti, i, (size_t)sg * sizeof *i);
    if (!s->plan->ballot) {
        int n = max_steps >= 0 && max_steps < r->n_steps ? max_steps : r->n_steps;
        for (int k = 0; k < n; k++) {
            int64_t off = r->steps[k].offset;
            for (int64_t l = 0; l < sg; l++) {
                int64_t src = l ^ off;
                if (src >= sg || beats(s, tv[l], tv[src], NULL))
                    continue;
                v[l] = tv[src];
                i[l] = ti[src];
            }
            memcpy(tv, v, (size_t)sg * sizeof *v);
            memcpy(ti, i, (size_t)sg * sizeof *i);
        }
        return;
    }
    if (max_steps >= 0 && max_steps < r->n_steps)
        return; /* the ballot path is one step for the stepper: not yet taken */
    ls_value x[LS_MAX_SUBGROUP_SIZE], red[LS_MAX_SUBGROUP_SIZE], tmp[LS_MAX_SUBGROUP_SIZE];
    for (int64_t l = 0; l < sg; l++) {
        ls_value args[1] = {tv[l]};
        x[l] = s->ubody.n ? ls_body_eval(&s->ubody, args, NULL, s->scratch) : tv[l];
        red[l] = x[l];
    }
    ls_func_run_reduce(r, s->p->combiner, s->xt, red, tmp, sg, -1);
    /* The ballot is one mask for the whole subgroup, and-ed with a constant
     * cluster mask when the stride is above 1: the winner does not depend on
     * the lane (plan.h: hazard_cluster). */
    int64_t winner = -1;
    for (int64_t l = 0; l < sg && winner < 0; l++) {
        bool in_mask = r->cluster_stride <= 1 ||
                       (l % r->cluster_stride == 0 && l / r->cluster_stride < r->cluster_size);
        if (in_mask && values_equal(s->xt, x[l], red[l]))
            winner = l;
    }
    for (int64_t l = 0; l < sg; l++) {
        int64_t src = winner;
        if (winner < 0) /* cttz(0) = the mask width: ROCDL keeps the own lane, NVVM wraps to 0 */
            src = s->plan->amd ? l : 0;
        i[l] = ti[src];
        v[l] = s->ubody.n ? tv[src] : red[l];
    }
}

static void subgroup_stage(ac_state *s, const ls_func_point *stop)
{
    for (int k = 0; k < s->plan->n_subgroup_reduces; k++) {
        bool here = stop && stop->stage == LS_STAGE_SUBGROUP_REDUCE;
        if (here && k > stop->reduce)
            return;
        for (int64_t sg = 0; sg < s->d->num_subgroups; sg++)
            for (int64_t q = 0; q < s->nres; q++) {
                ls_value v[LS_MAX_SUBGROUP_SIZE], i[LS_MAX_SUBGROUP_SIZE];
                for (int64_t l = 0; l < s->sgsz; l++) {
                    v[l] = s->res_v[(sg * s->sgsz + l) * s->nres + q];
                    i[l] = s->res_i[(sg * s->sgsz + l) * s->nres + q];
                }
                lane_combine(s, &s->plan->subgroup_reduces[k], v, i,
                             here && stop->reduce == k ? stop->steps : -1);
                for (int64_t l = 0; l < s->sgsz; l++) {
                    s->res_v[(sg * s->sgsz + l) * s->nres + q] = v[l];
                    s->res_i[(sg * s->sgsz + l) * s->nres + q] = i[l];
                }
            }
    }
}

/* ---- D: across subgroups ---- */

/* The buffer slot of thread tid (its virtual subgroup id along the reduced
 * dims), and whether it writes (lane 0 of its cluster). */
static int64_t buffer_slot(const ac_state *s, int64_t tid, bool *writer, int64_t *nslots)
{
    const ls_nested_layout *l = &s->d->layout;
    int64_t vs[LS_MAX_BODY], vt[LS_MAX_BODY], slot = 0;
    ls_nl_virtual_subgroup(l, tid / s->sgsz, vs);
    ls_nl_virtual_thread(l, tid % s->sgsz, vt);
    *writer = true;
    *nslots = 1;
    for (int k = 0; k < l->rank; k++)
        if (s->p->is_reduction[s->d->body_origin[k]]) {
            slot = slot * l->subgroup_tile[k] + vs[k];
            *nslots *= l->subgroup_tile[k];
            *writer &= vt[k] == 0;
        }
    return slot;
}

static bool cross_stage(ac_state *s, const ls_func_point *stop)
{
    const ls_plan *pl = s->plan;
    int64_t nslots = 1, npos = 1;
    bool writer;
    buffer_slot(s, 0, &writer, &nslots);
    const ls_nested_layout *l = &s->d->layout;
    for (int k = 0; k < l->rank; k++)
        if (!s->p->is_reduction[s->d->body_origin[k]])
            npos *= ls_nl_extent(l, k);
    s->smem_n = npos * nslots;
    free(s->smem_v);
    free(s->smem_i);
    s->smem_v = ls_xmalloc((size_t)s->smem_n * sizeof *s->smem_v);
    s->smem_i = ls_xmalloc((size_t)s->smem_n * sizeof *s->smem_i);
    for (int64_t k = 0; k < s->smem_n; k++) {
        s->smem_v[k] = s->init_v;
        s->smem_i[k] = s->init_i;
    }
    for (int64_t tid = 0; tid < s->threads; tid++) {
        int64_t slot = buffer_slot(s, tid, &writer, &nslots);
        for (int64_t q = 0; writer && q < s->nres; q++) {
            int64_t at = ls_func_parallel_pos(s->d, s->p, s->slot_reg, tid, q) * nslots + slot;
            s->smem_v[at] = s->res_v[tid * s->nres + q];
            s->smem_i[at] = s->res_i[tid * s->nres + q];
        }
    }
    if (stop && stop->stage == LS_STAGE_CROSS_SUBGROUP && stop->steps < 0)
        return true;
    for (int64_t sg = 0; sg < s->d->num_subgroups; sg++)
        for (int64_t q = 0; q < s->nres; q++) {
            ls_value v[LS_MAX_SUBGROUP_SIZE], i[LS_MAX_SUBGROUP_SIZE];
            for (int64_t ln = 0; ln < s->sgsz; ln++) {
                int64_t row = ls_func_parallel_pos(s->d, s->p, s->slot_reg, sg * s->sgsz + ln, q) *
                              nslots;
                /* the second merge: the inits first, then the slot(s) read */
                v[ln] = s->init_v;
                i[ln] = s->init_i;
                int64_t first = 0, last = nslots;
                if (pl->read_cluster > 1) {
                    first = (ln / pl->read_stride) % pl->read_cluster;
                    last = first + 1;
                }
                for (int64_t sl = first; sl < last && sl < nslots; sl++)
                    if (beats(s, s->smem_v[row + sl], v[ln], NULL)) {
                        v[ln] = s->smem_v[row + sl];
                        i[ln] = s->smem_i[row + sl];
                    }
            }
            if (pl->read_cluster > 1)
                lane_combine(s, &pl->cross_reduce, v, i,
                             stop && stop->stage == LS_STAGE_CROSS_SUBGROUP ? stop->steps : -1);
            for (int64_t ln = 0; ln < s->sgsz; ln++) {
                s->res_v[(sg * s->sgsz + ln) * s->nres + q] = v[ln];
                s->res_i[(sg * s->sgsz + ln) * s->nres + q] = i[ln];
            }
        }
    return stop && stop->stage == LS_STAGE_CROSS_SUBGROUP;
}

/* ---- E: the check ---- */

/* Does index idx name a position of output `out` holding value v (or is it
 * the init index with v the init)?  Then a differing index is a tie broken
 * another way. */
static bool index_holds(const ls_problem *p, ls_input_source in, const int64_t *out, ls_value v,
                        ls_value idx)
{
    int dim = ls_argcmp_dim(p);
    if (values_equal(p->acc_type, v, p->init) && idx == ls_argcmp_init_index(p))
        return true;
    int64_t x[LS_MAX_RANK] = {0};
    for (int i = 0, j = 0; i < p->rank; i++)
        if (!p->is_reduction[i])
            x[i] = out[j++];
    for (int64_t r = 0; r < p->size[dim]; r++) {
        x[dim] = r;
        if (index_at(p, in, x, dim) == idx &&
            values_equal(p->acc_type, ls_operand_value(p, in, 0, x), v))
            return true;
    }
    return false;
}

ls_argcmp_verdict ls_argcmp_pair_check(const ls_problem *p, ls_input_source in, const int64_t *out,
                                       ls_value v, ls_value idx, ls_value rv, ls_value ri)
{
    double ratio = 0;
    if (ls_value_check(p->acc_type, v, rv, 0, &ratio) && idx == ri)
        return LS_ARGCMP_EQUAL;
    /* A tie: the comparator cannot tell the values apart (-3 and 3 under a
     * compare of squares; neither beats the other under ogt, each beats the
     * other under oge), and the index names a position holding the value. */
    ls_value scratch[LS_MAX_BODY_INSTS];
    bool equivalent =
        cmp_holds(p, v, rv, NULL, scratch) == cmp_holds(p, rv, v, NULL, scratch);
    if (!equivalent)
        return LS_ARGCMP_WRONG;
    return index_holds(p, in, out, v, idx) ? LS_ARGCMP_TIE : LS_ARGCMP_WRONG_INDEX;
}

static void check_output(ac_state *s, int64_t tid, const int64_t *out, int no, ls_value v,
                         ls_value idx, ls_functional_result *res, ls_diag *diag)
{
    const ls_problem *p = s->p;
    ls_value rv, ri;
    ls_argcmp_reference(p, s->in, out, &rv, &ri);
    ls_argcmp_verdict vd = ls_argcmp_pair_check(p, s->in, out, v, idx, rv, ri);
    bool equivalent = vd != LS_ARGCMP_WRONG;
    bool tie = vd == LS_ARGCMP_TIE;
    bool value_ok = vd == LS_ARGCMP_EQUAL, index_ok = value_ok;
    res->outputs_checked++;
    if (tie && res->index_ties++ == 0)
        for (int j = 0; j < no; j++)
            res->tie_output[j] = out[j];
    if (tie)
        return;
    if (value_ok && index_ok)
        return;
    if (res->mismatches++ > 0)
        return;
    memcpy(res->bad_output, out, sizeof(int64_t) * (size_t)no);
    char sv[40], si[40], r1[40], r2[40], where[160];
    ls_value_format(v, p->acc_type, sv, sizeof sv);
    ls_value_format(idx, p->argcmp.index_type, si, sizeof si);
    ls_value_format(rv, p->acc_type, r1, sizeof r1);
    ls_value_format(ri, p->argcmp.index_type, r2, sizeof r2);
    snprintf(res->bad_sim, sizeof res->bad_sim, "(%s, %s)", sv, si);
    snprintf(res->bad_ref, sizeof res->bad_ref, "(%s, %s)", r1, r2);
    ls_format_list(where, sizeof where, out, no);
    ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                "output %s computed by thread %lld is (value %s, index %s) but the reference "
                "gives (%s, %s)%s%s",
                where, (long long)tid, sv, si, r1, r2,
                equivalent ? "; the index does not hold that value" : "",
                s->plan->hazard_cluster ? " (the ballot hazard of this config: --dump-plan)" : "");
}

static void check_workgroup(ac_state *s, const int64_t *wg_coord, ls_functional_result *res,
                            ls_diag *diag)
{
    const ls_nested_layout *l = &s->d->layout;
    for (int64_t tid = 0; tid < s->threads; tid++) {
        int64_t sg = tid / s->sgsz, lane = tid % s->sgsz;
        if (lane >= s->d->layout_lanes || sg >= s->d->layout_subgroups)
            continue;
        int64_t vt[LS_MAX_BODY], vs[LS_MAX_BODY];
        ls_nl_virtual_thread(l, lane, vt);
        ls_nl_virtual_subgroup(l, sg, vs);
        bool writer = true;
        for (int k = 0; k < l->rank; k++)
            if (s->p->is_reduction[s->d->body_origin[k]] && (vt[k] != 0 || vs[k] != 0))
                writer = false;
        for (int64_t q = 0; writer && q < s->nres; q++) {
            int64_t out[LS_MAX_RANK];
            int no;
            if (!ls_func_output_of(s->d, s->p, s->slot_reg, tid, wg_coord, q, out, &no))
                continue;
            check_output(s, tid, out, no, s->res_v[tid * s->nres + q],
                         s->res_i[tid * s->nres + q], res, diag);
        }
    }
    res->workgroups_run++;
}

/* ---- the driver ---- */

static void state_init(ac_state *s, const ls_plan *plan, ls_input_source in)
{
    memset(s, 0, sizeof *s);
    s->plan = plan;
    s->p = plan->problem;
    s->d = plan->derived;
    s->in = in;
    s->dim = ls_argcmp_dim(s->p);
    s->threads = s->d->workgroup_size;
    s->regs = ls_nl_registers(&s->d->layout);
    s->nres = plan->results_per_thread;
    s->sgsz = s->d->subgroup_size;
    s->acc_v = ls_xcalloc((size_t)(s->threads * s->regs), sizeof *s->acc_v);
    s->acc_i = ls_xcalloc((size_t)(s->threads * s->regs), sizeof *s->acc_i);
    s->res_v = ls_xcalloc((size_t)(s->threads * s->nres), sizeof *s->res_v);
    s->res_i = ls_xcalloc((size_t)(s->threads * s->nres), sizeof *s->res_i);
    s->res_slot = ls_xcalloc((size_t)s->regs, sizeof *s->res_slot);
    s->slot_reg = ls_xcalloc((size_t)s->nres, sizeof *s->slot_reg);
    for (int64_t r = 0; r < s->regs; r++) {
        int64_t a, q;
        ls_register_slots(s->d, s->p, r, &a, &q);
        s->res_slot[r] = q;
    }
    for (int64_t r = s->regs; r-- > 0;)
        s->slot_reg[s->res_slot[r]] = r;
    s->init_v = s->p->init;
    s->init_i = ls_argcmp_init_index(s->p);
    s->xt = s->p->acc_type;
    const ls_argcmp *a = &s->p->argcmp;
    if (a->ballot && a->transform >= 0) {
        /* U alone: INPUT 0, then U reading it */
        s->ubody.n = 2;
        s->ubody.inst[0] = a->cmp.inst[0];
        s->ubody.inst[1] = a->cmp.inst[a->transform];
        s->ubody.inst[1].a = 0;
        s->xt = (ls_elem_type)s->ubody.inst[1].type;
    }
}

static void state_fini(ac_state *s)
{
    free(s->acc_v);
    free(s->acc_i);
    free(s->res_v);
    free(s->res_i);
    free(s->res_slot);
    free(s->slot_reg);
    free(s->smem_v);
    free(s->smem_i);
}

/* One workgroup up to `stop` (NULL: to the end, then checked). */
static void run_workgroup(ac_state *s, int64_t wg, const ls_func_point *stop,
                          ls_functional_result *res, ls_diag *diag)
{
    int64_t wg_coord[LS_MAX_RANK];
    ls_workgroup_coord(s->d, wg, wg_coord);
    bool at_load = stop && stop->stage == LS_STAGE_LOAD_ACCUMULATE;
    partial_generic(s, wg_coord, at_load && stop->iterations < s->plan->iterations
                                     ? stop->iterations
                                     : s->plan->iterations);
    if (at_load)
        return;
    local_merge(s);
    if (stop && stop->stage == LS_STAGE_THREAD_REDUCE)
        return;
    subgroup_stage(s, stop);
    if (stop && stop->stage == LS_STAGE_SUBGROUP_REDUCE)
        return;
    if (s->plan->cross_subgroup && cross_stage(s, stop))
        return;
    if (!stop)
        check_workgroup(s, wg_coord, res, diag);
}

ls_status ls_argcmp_run(const ls_plan *plan, ls_input_source in, int64_t first, int64_t last,
                        const ls_progress_fn *progress, ls_functional_result *res, ls_diag *diag)
{
    ac_state s;
    state_init(&s, plan, in);
    for (int64_t wg = first; wg < last; wg++) {
        run_workgroup(&s, wg, NULL, res, diag);
        if (progress)
            progress->fn(progress->ctx, wg + 1 - first, last - first);
    }
    state_fini(&s);
    return res->mismatches ? LS_ERR_INVALID : LS_OK;
}

void ls_argcmp_snapshot(const ls_plan *plan, ls_input_source in, int64_t workgroup,
                        const ls_func_point *at, ls_func_snapshot *out)
{
    ac_state s;
    state_init(&s, plan, in);
    ls_functional_result res;
    memset(&res, 0, sizeof res);
    run_workgroup(&s, workgroup, at, &res, NULL);
    bool acc = at->stage == LS_STAGE_LOAD_ACCUMULATE;
    out->threads = s.threads;
    out->per_thread = acc ? s.regs : s.nres;
    out->accumulators = acc;
    size_t n = (size_t)(out->threads * out->per_thread);
    out->values = ls_xmalloc(n * sizeof *out->values);
    out->indices = ls_xmalloc(n * sizeof *out->indices);
    memcpy(out->values, acc ? s.acc_v : s.res_v, n * sizeof *out->values);
    memcpy(out->indices, acc ? s.acc_i : s.res_i, n * sizeof *out->indices);
    if (s.smem_v && at->stage >= LS_STAGE_CROSS_SUBGROUP) {
        out->smem_n = s.smem_n;
        out->smem = s.smem_v;
        out->smem_indices = s.smem_i;
        s.smem_v = s.smem_i = NULL;
    }
    state_fini(&s);
}
