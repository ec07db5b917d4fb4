/* functional.c: the plan's values, lane by lane (see functional.h).
 *
 * Per workgroup: accumulators [threads x acc_registers], results
 * [threads x results_per_thread].  Cost per workgroup:
 * O(iterations x threads x registers) combines plus the reduction steps.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "func_kernels.h"
#include "functional_internal.h"

typedef struct {
    const ls_plan *plan;
    const ls_problem *p;
    const ls_derived *d;
    int64_t threads, regs;
    ls_value *acc;  /* threads x acc_registers */
    ls_value *res;  /* threads x results_per_thread */
    ls_value *tmp;  /* subgroup_size */
    int64_t *acc_slot;   /* full register -> accumulator index */
    int64_t *res_slot;   /* accumulator index -> result slot */
    int64_t *slot_reg;   /* result slot -> first register feeding it */
    ls_value *smem;      /* the cross-subgroup buffer as last written */
    int64_t smem_n;
    /* fast path: f32 reductions of float inputs on interior tiles */
    bool fast;
    uint64_t seed_hash;
    int64_t strides[LS_MAX_RANK];
    /* register-major (regs x threads), so that a register's value is made
     * for every thread at once */
    int64_t *rel;        /* input index relative to the tile origin */
    int32_t *inside;     /* -1: valid in an interior tile, 0: masked */
    float *facc;         /* acc_registers x threads */
    /* body path (threads x regs) */
    bool *body_inside;   /* valid in an interior tile */
    /* body path: several inputs or a body, generated inputs, interior tiles */
    bool body_fast;
    uint64_t ohash[LS_MAX_INPUTS];             /* ls_mix64 of each input's seed */
    int64_t ostrides[LS_MAX_INPUTS][LS_MAX_RANK];
    int64_t *orel[LS_MAX_INPUTS];              /* threads x regs: operand index in the tile */
    ls_value *scratch;                         /* the body's values */
    /* Input k's 256 values, when its generator reads only the hash's low
     * byte (a float of 16 bits or more, not for a product: ls_input_float)
     * -- ls_input_value_hashed of each byte, looked up instead of made */
    ls_value *grid[LS_MAX_INPUTS];
    int64_t depth; /* ls_plan_depth: the rounding bound's depth */
    /* How a thread folds an iteration's registers in, as IREE lowers it
     * (docs/reduction-families.md "Where IREE fuses a multiply and an
     * add"): with packed inner dims, each accumulator's registers are
     * reduced from the identity and the result added to it
     * (DistributeContract / DistributeMultiReduction's local reduce); a
     * contraction's as an FMA chain, last register first
     * (ContractToChainFMA); without, on AMD, a contraction's product and
     * add are one FMA (LLVM's AllowFPOpFusion::Fast). */
    bool grouped;
    ls_fma_kind fma; /* ls_functional_fma */
    ls_value *local; /* grouped: acc_registers, one thread's */
    ls_value *outputs; /* ls_functional_opts.outputs */
    /* the problem as the target's code computes it, where that differs
     * (ls_problem_as_compiled); p points at it */
    ls_problem *compiled;
} exec_state;

/* Input k's element at operand index idx (generated, or an intermediate). */
static inline ls_value gen_input(const exec_state *s, ls_input_source in, int k, int64_t idx)
{
    if (in.values[k])
        return in.values[k][idx];
    uint64_t h = ls_input_hash(s->ohash[k], (uint64_t)idx);
    if (s->grid[k])
        return s->grid[k][h & 255];
    return ls_input_value_hashed(h, s->p->inputs[k].type, s->p->combiner);
}

/* The combiner's value from the inputs' elements v[k]. */
static inline ls_value body_value(const exec_state *s, const ls_value *v)
{
    const ls_problem *p = s->p;
    if (p->body.n == 0)
        return ls_value_extend(v[0], p->inputs[0].type, p->acc_type);
    return ls_body_eval(&p->body, v, NULL, s->scratch);
}

/* Reference for one output on the body path: the values ls_reference_output
 * computes, with every input's index stepped by strides. */
static void reference_body(const exec_state *s, ls_input_source in, const int64_t *out,
                           ls_value *value, double *bound)
{
    const ls_problem *p = s->p;
    int red[LS_MAX_RANK], nred = 0, ni = p->n_inputs;
    int64_t idx[LS_MAX_INPUTS] = {0}, coord[LS_MAX_RANK] = {0}, n = 1;
    for (int i = 0, j = 0; i < p->rank; i++) {
        if (p->is_reduction[i]) {
            red[nred++] = i;
            n *= p->size[i];
        } else {
            for (int k = 0; k < ni; k++)
                idx[k] += out[j] * s->ostrides[k][i];
            j++;
        }
    }
    ls_ref_acc r;
    ls_ref_begin(&r, p);
    r.depth = s->depth;
    r.fused = s->fma != LS_FMA_NONE;
    ls_value v[LS_MAX_INPUTS];
    for (int64_t lin = 0; lin < n; lin++) {
        for (int k = 0; k < ni; k++)
            v[k] = gen_input(s, in, k, idx[k]);
        ls_ref_add(&r, body_value(s, v));
        /* odometer, last reduced dim fastest */
        for (int q = nred - 1; q >= 0; q--) {
            int d = red[q];
            for (int k = 0; k < ni; k++)
                idx[k] += s->ostrides[k][d];
            if (++coord[q] < p->size[d])
                break;
            for (int k = 0; k < ni; k++)
                idx[k] -= coord[q] * s->ostrides[k][d];
            coord[q] = 0;
        }
    }
    ls_ref_end(&r, value, bound);
}

/* Register -> accumulator and accumulator -> result slot (ls_register_slots),
 * and each result slot's first register. */
static void build_slots(exec_state *s)
{
    for (int64_t r = 0; r < s->regs; r++) {
        int64_t a, q;
        ls_register_slots(s->d, s->p, r, &a, &q);
        s->acc_slot[r] = a;
        s->res_slot[a] = q;
    }
    for (int64_t r = s->regs; r-- > 0;)
        s->slot_reg[s->res_slot[s->acc_slot[r]]] = r;
}

static int64_t parallel_pos(const exec_state *s, int64_t tid, int64_t q)
{
    return ls_func_parallel_pos(s->d, s->p, s->slot_reg, tid, q);
}

/* The fast path's float accumulators (accumulator-major) into acc. */
static void facc_to_acc(exec_state *s)
{
    int64_t nacc = s->plan->acc_registers;
    for (int64_t tid = 0; tid < s->threads; tid++)
        for (int64_t a = 0; a < nacc; a++)
            s->acc[tid * nacc + a] =
                ls_value_from_double(s->facc[a * s->threads + tid], s->p->acc_type);
}

/* One thread's fold of an iteration's registers (exec_state's grouped,
 * fma): fold_begin from the identity, fold of each valid register (in
 * descending order for a chain), fold_end.  v is the register's value;
 * scratch holds the body's values that made it (the factors of an FMA),
 * NULL for padding, whose identity (a product of zeros) is added. */
static void fold_begin(exec_state *s, ls_value ident)
{
    for (int64_t a = 0; s->grouped && a < s->plan->acc_registers; a++)
        s->local[a] = ident;
}

static void fold(exec_state *s, int64_t tid, int64_t r, ls_value v, const ls_value *scratch)
{
    const ls_problem *p = s->p;
    ls_elem_type t = p->acc_type;
    ls_value *a = s->grouped ? &s->local[s->acc_slot[r]]
                             : &s->acc[tid * s->plan->acc_registers + s->acc_slot[r]];
    if (s->fma != LS_FMA_NONE && scratch)
        *a = ls_body_fma(&p->body, scratch, *a, t);
    else
        *a = ls_combine(p->combiner, t, *a, v);
}

static void fold_end(exec_state *s, int64_t tid)
{
    if (!s->grouped)
        return;
    ls_value *acc = &s->acc[tid * s->plan->acc_registers];
    for (int64_t a = 0; a < s->plan->acc_registers; a++)
        acc[a] = ls_combine(s->p->combiner, s->p->acc_type, acc[a], s->local[a]);
}

/* LOAD_ACCUMULATE over iterations [first, last): the accumulators start at
 * the identity.  true: stopped at a LOAD_ACCUMULATE snapshot point. */
static bool load_range(exec_state *s, const int64_t *wg_coord, int64_t first, int64_t last,
                       ls_input_source in, const ls_func_point *stop)
{
    const ls_problem *p = s->p;
    const ls_derived *d = s->d;
    ls_combiner k = p->combiner;
    ls_elem_type t = p->acc_type;
    ls_value ident = ls_identity(k, t);
    int64_t nacc = s->plan->acc_registers;
    int64_t it_coord[LS_MAX_RANK];
    /* LOAD_ACCUMULATE: registers in order; packed inner elements fold into
     * their accumulator one after another. */
    for (int64_t i = 0; i < s->threads * nacc; i++)
        s->acc[i] = ident;
    for (int64_t it = first; it < last; it++) {
        if (stop && stop->stage == LS_STAGE_LOAD_ACCUMULATE && it == stop->iterations) {
            if (s->fast && it > first) /* the float accumulators are the current ones */
                facc_to_acc(s);
            return true; /* snapshot: accumulators after `it` iterations */
        }
        ls_iteration_coord(d, p, it, it_coord);
        if (s->fast && !ls_tile_is_ragged(d, p, wg_coord, it_coord)) {
            int64_t base = ls_tile_input_base(d, p, s->strides, wg_coord, it_coord);
            float fid = (float)ls_value_to_double(ident, t);
            if (it == first)
                for (int64_t i = 0; i < s->threads * nacc; i++)
                    s->facc[i] = fid;
            if (k == LS_COMB_ADD) {
                /* register by register, every thread at once, eight at a
                 * time (func_kernels.c): each accumulator still folds its
                 * registers in order */
                ls_fk_sum_accumulate(s->seed_hash, base, s->rel, s->inside, s->acc_slot, s->regs,
                                     s->threads, fid, s->facc);
            } else {
                for (int64_t r = 0; r < s->regs; r++) {
                    const int64_t *rel = s->rel + r * s->threads;
                    const int32_t *inside = s->inside + r * s->threads;
                    float *fa = s->facc + s->acc_slot[r] * s->threads;
                    for (int64_t tid = 0; tid < s->threads; tid++) {
                        float v = inside[tid] ? (float)ls_input_float(ls_input_hash(s->seed_hash,
                                                                                    (uint64_t)(base + rel[tid])),
                                                                      k)
                                              : fid;
                        fa[tid] = ls_fast_combine(k, fa[tid], v);
                    }
                }
            }
            if (it == last - 1)
                facc_to_acc(s);
            continue;
        }
        if (s->fast && it > first) /* leaving the fast path mid-loop: hand over the accumulators */
            facc_to_acc(s);
        if (s->body_fast && !ls_tile_is_ragged(d, p, wg_coord, it_coord)) {
            /* operand indices: the tile's base plus each register's offset */
            int64_t base[LS_MAX_INPUTS];
            for (int q = 0; q < p->n_inputs; q++)
                base[q] = ls_tile_input_base(d, p, s->ostrides[q], wg_coord, it_coord);
            for (int64_t tid = 0; tid < s->threads; tid++) {
                fold_begin(s, ident);
                for (int64_t i = 0; i < s->regs; i++) {
                    int64_t r = ls_fma_last_first(s->fma) ? s->regs - 1 - i : i,
                            at = tid * s->regs + r;
                    if (!s->body_inside[at]) { /* padding: the identity, or 0 x 0 */
                        fold(s, tid, r, ident, NULL);
                        continue;
                    }
                    ls_value iv[LS_MAX_INPUTS];
                    for (int q = 0; q < p->n_inputs; q++)
                        iv[q] = gen_input(s, in, q, base[q] + s->orel[q][at]);
                    fold(s, tid, r, body_value(s, iv), s->scratch);
                }
                fold_end(s, tid);
            }
            continue;
        }
        ls_value scratch[LS_MAX_BODY_INSTS];
        for (int64_t tid = 0; tid < s->threads; tid++) {
            fold_begin(s, ident);
            for (int64_t i = 0; i < s->regs; i++) {
                int64_t r = ls_fma_last_first(s->fma) ? s->regs - 1 - i : i, x[LS_MAX_RANK];
                bool valid;
                ls_thread_element(d, p, tid, wg_coord, it_coord, r, x, &valid);
                if (valid)
                    fold(s, tid, r, ls_problem_element_at(p, in, x, scratch), scratch);
                else /* padding: the identity, or 0 x 0 */
                    fold(s, tid, r, ident, NULL);
            }
            fold_end(s, tid);
        }
        if (s->fast)
            for (int64_t tid = 0; tid < s->threads; tid++)
                for (int64_t a = 0; a < nacc; a++)
                    s->facc[a * s->threads + tid] =
                        (float)ls_value_to_double(s->acc[tid * nacc + a], t);
    }
    return false;
}

/* THREAD_REDUCE .. CROSS_SUBGROUP on the accumulators, into s->res.
 * true: stopped at a snapshot point. */
/* CROSS_SUBGROUP: slot per virtual subgroup id of the reduced dims; lanes
 * read slot = their position in the read cluster (identity past the end). */
static bool cross_subgroup_stage(exec_state *s, const ls_func_point *stop)
{
    const ls_plan *plan = s->plan;
    const ls_problem *p = s->p;
    const ls_derived *d = s->d;
    const ls_nested_layout *l = &d->layout;
    ls_combiner k = p->combiner;
    ls_elem_type t = p->acc_type;
    ls_value ident = ls_identity(k, t);
    int64_t nres = plan->results_per_thread;
    int64_t sgsz = d->subgroup_size;
    int64_t nslots = 1, slot_tile[LS_MAX_BODY];
    int nred = 0;
    int red_dims[LS_MAX_BODY];
    for (int kk = 0; kk < l->rank; kk++)
        if (!d->body_inner[kk] && p->is_reduction[d->body_origin[kk]]) {
            red_dims[nred] = kk;
            slot_tile[nred++] = l->subgroup_tile[kk];
            nslots *= l->subgroup_tile[kk];
        }
    int64_t npos = 1;
    for (int kk = 0; kk < l->rank; kk++)
        if (!d->body_inner[kk] && !p->is_reduction[d->body_origin[kk]])
            npos *= ls_nl_extent(l, kk);
    /* buf[parallel position][slot], as memref<parallel..., subgroups> */
    ls_value *buf = ls_xcalloc((size_t)(npos * nslots), sizeof *buf);
    for (int64_t i = 0; i < npos * nslots; i++)
        buf[i] = ident;
    for (int64_t tid = 0; tid < s->threads; tid++) {
        int64_t vs[LS_MAX_BODY], vt[LS_MAX_BODY], slot = 0;
        ls_nl_virtual_subgroup(l, tid / sgsz, vs);
        ls_nl_virtual_thread(l, tid % sgsz, vt);
        bool writer = true; /* first thread of its cluster on the reduced dims */
        for (int r = 0; r < nred; r++) {
            slot = slot * slot_tile[r] + vs[red_dims[r]];
            writer &= vt[red_dims[r]] == 0;
        }
        if (!writer)
            continue;
        for (int64_t q = 0; q < nres; q++)
            buf[parallel_pos(s, tid, q) * nslots + slot] = s->res[tid * nres + q];
    }
    free(s->smem);
    s->smem = ls_xmalloc((size_t)(npos * nslots) * sizeof *s->smem);
    memcpy(s->smem, buf, (size_t)(npos * nslots) * sizeof *buf);
    s->smem_n = npos * nslots;
    if (stop && stop->stage == LS_STAGE_CROSS_SUBGROUP && stop->steps < 0) {
        free(buf); /* snapshot: partials written, nothing read yet */
        return true;
    }
    for (int64_t sg = 0; sg < d->num_subgroups; sg++)
        for (int64_t q = 0; q < nres; q++) {
            ls_value lane_v[1024];
            for (int64_t ln = 0; ln < sgsz; ln++) {
                const ls_value *row = &buf[parallel_pos(s, sg * sgsz + ln, q) * nslots];
                if (plan->read_cluster == 1) {
                    /* no lane dim wide enough: each lane folds every slot */
                    ls_value v = ident;
                    for (int64_t sl = 0; sl < nslots; sl++)
                        v = ls_combine(k, t, v, row[sl]);
                    lane_v[ln] = v;
                    continue;
                }
                /* cluster position -> slot coordinates, first reduced dim fastest */
                int64_t rem = (ln / plan->read_stride) % plan->read_cluster, slot = 0;
                int64_t coord[LS_MAX_BODY];
                bool inside = true;
                for (int r = 0; r < nred; r++) {
                    int64_t tile = 1;
                    while (tile < slot_tile[r])
                        tile <<= 1;
                    coord[r] = rem % tile;
                    rem /= tile;
                    inside &= coord[r] < slot_tile[r];
                }
                for (int r = 0; r < nred; r++)
                    slot = slot * slot_tile[r] + (inside ? coord[r] : 0);
                lane_v[ln] = inside ? row[slot] : ident; /* masked read pads with identity */
            }
            ls_func_run_reduce(&plan->cross_reduce, k, t, lane_v, s->tmp, sgsz,
                               stop && stop->stage == LS_STAGE_CROSS_SUBGROUP ? stop->steps : -1);
            for (int64_t ln = 0; ln < sgsz; ln++)
                s->res[(sg * sgsz + ln) * nres + q] = lane_v[ln];
        }
    free(buf);
    return false;
}

static bool reduce_stages(exec_state *s, const ls_func_point *stop)
{
    const ls_plan *plan = s->plan;
    const ls_problem *p = s->p;
    const ls_derived *d = s->d;
    ls_combiner k = p->combiner;
    ls_elem_type t = p->acc_type;
    ls_value ident = ls_identity(k, t);
    int64_t nacc = plan->acc_registers, nres = plan->results_per_thread;
    int64_t sgsz = d->subgroup_size;
    /* THREAD_REDUCE: reduced registers into their parallel result slot, in
     * order; with local_reduce_all each accumulator is its output's value
     * already. */
    bool copy = s->d->local_reduce_all;
    for (int64_t tid = 0; tid < s->threads; tid++) {
        ls_value *res = &s->res[tid * nres];
        const ls_value *acc = &s->acc[tid * nacc];
        for (int64_t q = 0; q < nres; q++)
            res[q] = ident;
        for (int64_t a = 0; a < nacc; a++) {
            ls_value *r = &res[s->res_slot[a]];
            *r = copy ? acc[a] : ls_combine(k, t, *r, acc[a]);
        }
    }
    if (stop && stop->stage == LS_STAGE_THREAD_REDUCE)
        return true;
    /* SUBGROUP_REDUCE, per subgroup and result slot. */
    for (int i = 0; i < plan->n_subgroup_reduces; i++) {
        if (stop && stop->stage == LS_STAGE_SUBGROUP_REDUCE && i > stop->reduce)
            return true;
        for (int64_t sg = 0; sg < d->num_subgroups; sg++)
            for (int64_t q = 0; q < nres; q++) {
                ls_value lane_v[1024];
                for (int64_t ln = 0; ln < sgsz; ln++)
                    lane_v[ln] = s->res[(sg * sgsz + ln) * nres + q];
                ls_func_run_reduce(&plan->subgroup_reduces[i], k, t, lane_v, s->tmp, sgsz,
                           stop && stop->stage == LS_STAGE_SUBGROUP_REDUCE && stop->reduce == i
                               ? stop->steps
                               : -1);
                for (int64_t ln = 0; ln < sgsz; ln++)
                    s->res[(sg * sgsz + ln) * nres + q] = lane_v[ln];
            }
    }
    if (stop && stop->stage == LS_STAGE_SUBGROUP_REDUCE)
        return true;
    if (plan->cross_subgroup && cross_subgroup_stage(s, stop))
        return true;
    if (stop && stop->stage == LS_STAGE_CROSS_SUBGROUP)
        return true;
    return false;
}

/* The row-major index over the init of the output at out (coordinates
 * over the parallel dims in loop order). */
static int64_t init_index(const ls_problem *p, const int64_t *out)
{
    int64_t x[LS_MAX_RANK] = {0}, lin = 0;
    for (int i = 0, no = 0; i < p->rank; i++)
        if (!p->is_reduction[i])
            x[i] = out[no++];
    for (int j = 0; j < p->out_map_n; j++)
        lin = lin * p->size[p->out_map[j]] + x[p->out_map[j]];
    return lin;
}

/* Result slot q of writer thread tid: its output element's value against
 * the reference (the first mismatch into res and diag). */
static void check_output(exec_state *s, ls_input_source in, const int64_t *wg_coord, int64_t tid,
                         int64_t q, ls_functional_result *res, ls_diag *diag)
{
    const ls_problem *p = s->p;
    ls_combiner k = p->combiner;
    ls_elem_type t = p->acc_type;
    int64_t out[LS_MAX_RANK];
    int no;
    if (!ls_func_output_of(s->d, p, s->slot_reg, tid, wg_coord, q, out, &no))
        return;
    ls_value v = s->res[tid * s->plan->results_per_thread + q];
    ls_value ref;
    double bound;
    if (s->fast)
        ls_ref_fast_output(p, s->seed_hash, s->strides, s->depth, out, &ref, &bound);
    else if (s->body_fast)
        reference_body(s, in, out, &ref, &bound);
    else
        ls_reference_output_depth(p, in, out, s->depth, s->fma != LS_FMA_NONE, &ref, &bound);
    if (s->outputs)
        s->outputs[init_index(p, out)] = v;
    bool ok = ls_value_check(t, v, ref, bound, &res->max_error_bound_ratio);
    res->exact_outputs +=
        bound == 0 && ls_elem_type_is_float(t) && (k == LS_COMB_ADD || k == LS_COMB_MUL);
    res->outputs_checked++;
    if (!ok && res->mismatches++ == 0) {
        memcpy(res->bad_output, out, sizeof out);
        ls_value_format(v, t, res->bad_sim, sizeof res->bad_sim);
        ls_value_format(ref, t, res->bad_ref, sizeof res->bad_ref);
        char where[160];
        ls_format_list(where, sizeof where, out, no);
        ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                    "output %s computed by thread %lld is %s but the reference "
                    "reduction gives %s (bound %g)",
                    where, (long long)tid, res->bad_sim, res->bad_ref, bound);
    }
}

static ls_status run_workgroup(exec_state *s, int64_t wg, ls_input_source in,
                               const ls_func_point *stop, ls_functional_result *res,
                               ls_diag *diag)
{
    const ls_plan *plan = s->plan;
    const ls_problem *p = s->p;
    const ls_derived *d = s->d;
    const ls_nested_layout *l = &d->layout;
    ls_combiner k = p->combiner;
    ls_elem_type t = p->acc_type;
    int64_t nres = plan->results_per_thread;
    int64_t sgsz = d->subgroup_size;
    int64_t wg_coord[LS_MAX_RANK];
    ls_workgroup_coord(d, wg, wg_coord);
    ls_value init = ls_problem_init(p);
    if (!d->serial_reduce) {
        if (load_range(s, wg_coord, 0, plan->iterations, in, stop) ||
            (stop && stop->stage == LS_STAGE_LOAD_ACCUMULATE) || reduce_stages(s, stop))
            return LS_OK;
        /* ACC_COMBINE with the init */
        for (int64_t i = 0; i < s->threads * nres; i++)
            s->res[i] = ls_combine(k, t, s->res[i], init);
    } else {
        /* The reduction tiling level: every iteration reduces its tile through
         * all stages and folds the result into the carried init.  Snapshots
         * show the last iteration's stages (LOAD_ACCUMULATE: the iteration
         * the point names). */
        ls_value *carried = ls_xmalloc((size_t)(s->threads * nres) * sizeof *carried);
        for (int64_t i = 0; i < s->threads * nres; i++)
            carried[i] = init;
        for (int64_t it = 0; it < plan->iterations; it++) {
            bool lastit = it == plan->iterations - 1;
            if (stop && stop->stage == LS_STAGE_LOAD_ACCUMULATE &&
                it + 1 >= stop->iterations) {
                if (stop->iterations > 0)
                    load_range(s, wg_coord, it, it + 1, in, NULL);
                free(carried);
                return LS_OK;
            }
            load_range(s, wg_coord, it, it + 1, in, NULL);
            if (reduce_stages(s, lastit ? stop : NULL)) {
                free(carried);
                return LS_OK;
            }
            for (int64_t i = 0; i < s->threads * nres; i++)
                carried[i] = ls_combine(k, t, carried[i], s->res[i]);
        }
        memcpy(s->res, carried, (size_t)(s->threads * nres) * sizeof *carried);
        free(carried);
    }
    /* STORE: every holder of an output element must agree; the first one's
     * value is compared. */
    if (stop)
        return LS_OK; /* snapshot of the final values; the check is not run */
    /* The writer of each output is the thread whose virtual thread and
     * subgroup ids on the reduced dims are 0 and that is the first of its
     * duplication group: each output is checked exactly once. */
    for (int64_t tid = 0; tid < s->threads; tid++) {
        int64_t sg = tid / sgsz, lane = tid % sgsz;
        if (lane >= d->layout_lanes || sg >= d->layout_subgroups)
            continue;
        int64_t vt[LS_MAX_BODY], vs[LS_MAX_BODY];
        ls_nl_virtual_thread(l, lane, vt);
        ls_nl_virtual_subgroup(l, sg, vs);
        bool writer = true;
        for (int kk = 0; kk < l->rank; kk++)
            if (p->is_reduction[d->body_origin[kk]] && (vt[kk] != 0 || vs[kk] != 0))
                writer = false;
        if (!writer)
            continue;
        for (int64_t q = 0; q < nres; q++)
            check_output(s, in, wg_coord, tid, q, res, diag);
    }
    res->workgroups_run++;
    return LS_OK;
}

/* Whether the fast path, which folds every register straight into its
 * accumulator, computes what the grouped fold computes: no packed inner
 * dims; or an order-free combiner (min, max); or a sum whose every
 * partial sum is exact -- the generator's values are multiples of 1/64
 * below 2 in magnitude, so a thread's sum of fewer than 2^17 of them
 * needs fewer than 24 bits. */
static bool fast_groups_alike(const exec_state *s)
{
    const ls_plan *plan = s->plan;
    if (!s->grouped)
        return true;
    ls_combiner k = s->p->combiner;
    if (k != LS_COMB_ADD && k != LS_COMB_MUL)
        return true;
    int64_t per_acc;
    return k == LS_COMB_ADD && ls_mul_ok(plan->iterations, plan->inner_elems, &per_acc) &&
           per_acc < (INT64_C(1) << 17);
}

static void state_init(exec_state *s, const ls_plan *plan, ls_input_source in)
{
    const ls_derived *d = plan->derived;
    memset(s, 0, sizeof *s);
    s->plan = plan;
    /* the lanes and the reference both compute what IREE's code computes
     * on the plan's target (maximumf as maxnumf where it replaces it) */
    s->compiled = ls_problem_as_compiled(plan);
    s->p = s->compiled ? s->compiled : plan->problem;
    s->d = d;
    s->threads = d->workgroup_size;
    s->regs = ls_nl_registers(&d->layout);
    s->acc = ls_xcalloc((size_t)(s->threads * plan->acc_registers), sizeof *s->acc);
    s->res = ls_xcalloc((size_t)(s->threads * plan->results_per_thread), sizeof *s->res);
    s->tmp = ls_xcalloc((size_t)d->subgroup_size, sizeof *s->tmp);
    s->acc_slot = ls_xcalloc((size_t)s->regs, sizeof *s->acc_slot);
    s->res_slot = ls_xcalloc((size_t)plan->acc_registers, sizeof *s->res_slot);
    s->slot_reg = ls_xcalloc((size_t)plan->results_per_thread, sizeof *s->slot_reg);
    build_slots(s);
    s->depth = ls_plan_depth(plan);
    const ls_problem *p = s->p;
    s->fma = ls_functional_fma(plan);
    s->grouped = plan->inner_elems > 1;
    if (s->grouped)
        s->local = ls_xcalloc((size_t)plan->acc_registers, sizeof *s->local);
    s->fast = in.npy == NULL && p->body.n == 0 && p->acc_type == LS_ET_F32 &&
              ls_elem_type_is_float(p->inputs[0].type) &&
              ls_elem_type_bits(p->inputs[0].type) >= 16 && /* f8 inputs: a coarser generator */
              s->threads * s->regs <= (1 << 22) && fast_groups_alike(s);
    if (s->fast) {
        s->seed_hash = ls_mix64(in.seed);
        ls_input_strides(p, s->strides);
        s->rel = ls_xcalloc((size_t)(s->threads * s->regs), sizeof *s->rel);
        s->inside = ls_xcalloc((size_t)(s->threads * s->regs), sizeof *s->inside);
        s->facc = ls_xcalloc((size_t)(s->threads * plan->acc_registers), sizeof *s->facc);
        /* offsets in workgroup 0 / iteration 0, whose origin is index 0; an
         * interior tile has the same offsets and validity at its own origin */
        int64_t zero[LS_MAX_RANK] = {0};
        for (int64_t tid = 0; tid < s->threads; tid++)
            for (int64_t r = 0; r < s->regs; r++) {
                int64_t x[LS_MAX_RANK];
                bool valid;
                ls_thread_element(d, p, tid, zero, zero, r, x, &valid);
                s->rel[r * s->threads + tid] = valid ? ls_input_index(p, x) : 0;
                s->inside[r * s->threads + tid] = valid ? -1 : 0;
            }
    }
    bool has_index = false;
    for (int i = 0; i < p->body.n; i++)
        has_index |= p->body.inst[i].op == LS_BOP_INDEX;
    s->body_fast = !s->fast && in.npy == NULL && !has_index &&
                   s->threads * s->regs * p->n_inputs <= (1 << 23);
    if (s->body_fast) {
        s->scratch = ls_xcalloc(LS_MAX_BODY_INSTS, sizeof *s->scratch);
        s->body_inside = ls_xcalloc((size_t)(s->threads * s->regs), sizeof *s->body_inside);
        int64_t zero[LS_MAX_RANK] = {0};
        for (int k = 0; k < p->n_inputs; k++) {
            ls_elem_type ty = p->inputs[k].type;
            if (p->combiner != LS_COMB_MUL &&
                (ty == LS_ET_F16 || ty == LS_ET_BF16 || ty == LS_ET_F32 || ty == LS_ET_F64)) {
                s->grid[k] = ls_xcalloc(256, sizeof *s->grid[k]);
                for (uint64_t b = 0; b < 256; b++)
                    s->grid[k][b] = ls_input_value_hashed(b, ty, p->combiner);
            }
            s->ohash[k] = ls_mix64(ls_operand_seed(in.seed, k));
            ls_operand_strides(p, k, s->ostrides[k]);
            s->orel[k] = ls_xcalloc((size_t)(s->threads * s->regs), sizeof *s->orel[k]);
        }
        for (int64_t tid = 0; tid < s->threads; tid++)
            for (int64_t r = 0; r < s->regs; r++) {
                int64_t x[LS_MAX_RANK];
                bool valid;
                ls_thread_element(d, p, tid, zero, zero, r, x, &valid);
                s->body_inside[tid * s->regs + r] = valid;
                for (int k = 0; k < p->n_inputs; k++)
                    s->orel[k][tid * s->regs + r] = valid ? ls_operand_index(p, k, x) : 0;
            }
    }
}

static void state_fini(exec_state *s)
{
    for (int k = 0; k < LS_MAX_INPUTS; k++) {
        free(s->orel[k]);
        free(s->grid[k]);
    }
    free(s->scratch);
    free(s->local);
    free(s->acc);
    free(s->res);
    free(s->tmp);
    free(s->acc_slot);
    free(s->res_slot);
    free(s->slot_reg);
    free(s->rel);
    free(s->inside);
    free(s->facc);
    free(s->body_inside);
    free(s->smem);
    free(s->compiled);
}

ls_status ls_functional_snapshot(const ls_plan *plan, ls_input_source in, int64_t workgroup,
                                 const ls_func_point *at, ls_func_snapshot *out, ls_diag *diag)
{
    const ls_derived *d = plan->derived;
    memset(out, 0, sizeof *out);
    if (workgroup < 0 || workgroup >= d->total_workgroups)
        return ls_diag_set(diag, LS_ERR_INVALID, plan->problem->file, 0, 0,
                           "workgroup %lld is outside 0..%lld", (long long)workgroup,
                           (long long)d->total_workgroups - 1);
    if (plan->argcmp) {
        ls_argcmp_snapshot(plan, in, workgroup, at, out);
        return LS_OK;
    }
    exec_state s;
    state_init(&s, plan, in);
    ls_functional_result res;
    memset(&res, 0, sizeof res);
    run_workgroup(&s, workgroup, in, at, &res, diag);
    bool acc = at->stage == LS_STAGE_LOAD_ACCUMULATE;
    out->threads = s.threads;
    out->per_thread = acc ? plan->acc_registers : plan->results_per_thread;
    out->accumulators = acc;
    size_t n = (size_t)(out->threads * out->per_thread);
    out->values = ls_xmalloc(n * sizeof *out->values);
    memcpy(out->values, acc ? s.acc : s.res, n * sizeof *out->values);
    if (s.smem && at->stage >= LS_STAGE_CROSS_SUBGROUP) {
        out->smem_n = s.smem_n;
        out->smem = ls_xmalloc((size_t)s.smem_n * sizeof *out->smem);
        memcpy(out->smem, s.smem, (size_t)s.smem_n * sizeof *out->smem);
    }
    state_fini(&s);
    return LS_OK;
}

void ls_func_snapshot_free(ls_func_snapshot *snap)
{
    free(snap->values);
    free(snap->smem);
    free(snap->indices);
    free(snap->smem_indices);
    snap->values = snap->smem = snap->indices = snap->smem_indices = NULL;
}

ls_status ls_functional_run(const ls_plan *plan, ls_input_source in, int64_t first, int64_t count,
                            ls_functional_result *res, ls_diag *diag)
{
    return ls_functional_run_opts(plan, in, first, count, NULL, res, diag);
}

ls_status ls_functional_run_opts(const ls_plan *plan, ls_input_source in, int64_t first,
                                 int64_t count, const ls_functional_opts *opts,
                                 ls_functional_result *res, ls_diag *diag)
{
    memset(res, 0, sizeof *res);
    const ls_derived *d = plan->derived;
    if (ls_functional_check_work(plan, count, opts && opts->force, diag) != LS_OK)
        return diag->status;
    ls_progress_fn progress_fn = {opts ? opts->progress : NULL, opts ? opts->progress_ctx : NULL};
    const ls_progress_fn *progress = progress_fn.fn ? &progress_fn : NULL;
    int64_t last = count < 0 || first + count > d->total_workgroups ? d->total_workgroups
                                                                     : first + count;
    if (plan->argcmp)
        return ls_argcmp_run(plan, in, first, last, progress, res, diag);
    exec_state s;
    state_init(&s, plan, in);
    s.outputs = opts ? opts->outputs : NULL;
    res->fma = ls_functional_fma(plan);
    res->minmax_replaced = s.compiled != NULL;
    for (int64_t wg = first; wg < last; wg++) {
        run_workgroup(&s, wg, in, NULL, res, diag);
        if (progress)
            progress->fn(progress->ctx, wg + 1 - first, last - first);
    }
    state_fini(&s);
    return res->mismatches ? LS_ERR_INVALID : LS_OK;
}
