/* attention_values.c: a decode attention's values run as IREE lowers it
 * (attention_lanes.c, workgroup by workgroup) and checked against the op
 * as IREE decomposes it (AggregatedOpInterfaceImpl.cpp: the query
 * pre-scaled by scale * log2e, softmax in base 2), in double, each output
 * within a rounding bound from the magnitudes it sums (reference_row);
 * and what a run needs before it starts (ls_attention_values_check). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "attention_internal.h"
#include "lanescope/arena.h"

/* ---- the reference and its bound ---- */

/* Odometer over the global points of the op dims in mask (full sizes). */
static bool next_global(const ls_attention *a, unsigned mask, int64_t *g)
{
    for (int d = a->rank; d-- > 0;) {
        if (!(mask >> d & 1))
            continue;
        if (++g[d] < a->size[d])
            return true;
        g[d] = 0;
    }
    return false;
}

typedef struct {
    double m, sum, sum_bound, max_bound;
    double *acc, *acc_bound; /* per N point of the tile */
    /* the row's scores and their error bounds over every key, kept for the
     * next workgroup of the same row (the N-workgroups share them) */
    double *s, *del, smax, Delta;
    int64_t key[LS_MAX_RANK];
    bool valid;
} ref_row;

/* Row (b, m) at global g (B and M dims set): the op as IREE decomposes it
 * (AggregatedOpInterfaceImpl.cpp: the query pre-scaled by scale * log2e,
 * both rounded in their types, then softmax in base 2), in double, and how
 * far the lowered values may stray from it (u: the work type's roundoff):
 *   score s_k = sum_K1 Q' k (+ mask * log2e): the chain over K1 and its
 *     lane and subgroup combines, (K1 + 2) u sum_K1 |Q' k| (delta_k);
 *   p_k = exp2(s_k - M): relative error ln2 (delta_k + Delta + u |s_k - M|)
 *     plus the exp2s of every rescale (8 u each: IREE's polynomial on
 *     NVIDIA, v_exp_f32 on AMD);
 *   the sums over K2: gamma = (K2 tile + iterations + 8) u, the longest
 *     chain of additions into one sum, and P rounded to V's type. */
static void reference_row(const actx *c, const int64_t *g0, const float *init_acc, double max_init,
                          double sum_init, ref_row *row)
{
    const ls_attention *a = c->a;
    const double u = ls_unit_roundoff(c->et), uv = ls_unit_roundoff(c->type[2]);
    int64_t k1n = 1;
    for (int d = 0; d < a->rank; d++)
        if (c->k1mask >> d & 1)
            k1n *= a->size[d];
    double *s = row->s, *del = row->del;
    int64_t g[LS_MAX_RANK];
    memcpy(g, g0, sizeof g);
    for (int d = 0; d < a->rank; d++)
        if ((c->k1mask | c->k2mask | c->nmask) >> d & 1)
            g[d] = 0;
    bool same = row->valid && memcmp(row->key, g, sizeof g) == 0;
    memcpy(row->key, g, sizeof g);
    row->valid = true;
    double M = same ? row->smax : -INFINITY, Delta = same ? row->Delta : 0;
    int64_t k = 0;
    do {
        if (same)
            break;
        double t = 0, ab = 0;
        do {
            double q = round_to((float)ls_att_operand_at(c, 0, g) * c->sprime, c->type[0]);
            double qk = q * ls_att_operand_at(c, 1, g);
            t += qk;
            ab += fabs(qk);
        } while (next_global(a, c->k1mask, g));
        double sc = t, d = ab * (double)(k1n + 2) * u;
        if (a->has_mask) {
            double mv = ls_att_operand_at(c, 4, g);
            double add = c->is_float[4] ? mv * LOG2E : mv != 0 ? 0 : -INFINITY;
            sc += add;
            if (isfinite(add))
                d += fabs(add) * 2 * u + u * fabs(sc);
        }
        s[k] = sc;
        del[k] = d;
        if (sc > M)
            M = sc;
        if (d > Delta)
            Delta = d;
        k++;
    } while (next_global(a, c->k2mask, g));
    row->smax = M;
    row->Delta = Delta;
    if (max_init > M)
        M = max_init;
    /* the longest chain of additions into one sum: a slot's or step's
     * updates, then at most the tile's keys (local, lanes, subgroups) */
    double gamma = (double)(box_size(c, c->k2mask) + a->iterations + 8) * u;
    double eexp = (double)(a->iterations + 3) * 8 * u;
    double rescale = exp2(max_init - M);
    row->m = M;
    row->max_bound = Delta + u * fabs(M);
    row->sum = sum_init * rescale;
    row->sum_bound = 0;
    int64_t nn = box_size(c, c->nmask);
    for (int64_t j = 0; j < nn; j++) {
        row->acc[j] = init_acc[j] * rescale;
        row->acc_bound[j] = 0;
    }
    k = 0;
    do {
        double p = exp2(s[k] - M);
        if (p > 0) {
            double eps = LN2 * (del[k] + Delta + u * fabs(s[k] - M)) + eexp;
            row->sum += p;
            row->sum_bound += p * (eps + gamma);
            int64_t x[LS_MAX_RANK] = {0}, j = 0;
            do {
                for (int d = 0; d < a->rank; d++)
                    if (c->nmask >> d & 1)
                        g[d] = c->origin[d] + x[d];
                double v = ls_att_operand_at(c, 2, g);
                row->acc[j] += p * v;
                row->acc_bound[j] += p * fabs(v) * (eps + uv + gamma);
                j++;
            } while (next_point(c, c->nmask, x));
        }
        k++;
    } while (next_global(a, c->k2mask, g));
}

/* ---- checks before a run, the run ---- */

static ls_status refuse(const ls_attention *a, ls_diag *diag, int line, int col, const char *why)
{
    return ls_diag_set(diag, LS_ERR_INVALID, a->file, line ? line : a->line, line ? col : a->col,
                       "%s: %s", a->name, why);
}

static bool pow2(int64_t x)
{
    return x > 0 && (x & (x - 1)) == 0;
}

/* Each reduced loop's lanes and subgroups as a gpu.subgroup_reduce can take them. */
static const char *layout_problem(const ls_attention *a, const ls_att_matmul *mm, unsigned red)
{
    const ls_nested_layout *ly = &mm->layout;
    int64_t need = 1, widest = 0;
    for (int i = 0; i < mm->rank; i++) {
        if (!(red >> mm->dim[i] & 1))
            continue;
        if (!pow2(ly->thread_tile[i]) || !pow2(ly->subgroup_tile[i]))
            return "a reduced loop is split over a number of lanes or subgroups that is not a "
                   "power of two (gpu.subgroup_reduce clusters are powers of two)";
        need *= ly->subgroup_tile[i];
        if (ly->thread_tile[i] >= need && ly->thread_strides[i] > widest)
            widest = ly->thread_strides[i];
    }
    if (need > 1 && widest * need > a->subgroup_size)
        return "the workgroup-memory round's read-back cluster does not fit in a subgroup";
    return NULL;
}

const char *ls_att_gather_problem(const ls_attention *a, const ls_dop_operand *op,
                                  const ls_module_gather *g)
{
    if (g->has_mask)
        return "its gather has a mask operand, which lanescope does not model";
    if (g->unread[0])
        return "its gather carries an attribute dictionary, which lanescope does not read (it "
               "does not drop a key silently)";
    for (int i = 0; i < g->depth; i++)
        if (g->dimension_map[i] != i)
            return "its gather's dimension_map is not the source's leading dims in order "
                   "([0], [0, 1], ...), the form lanescope reads";
    if (g->depth != 1)
        return "its gather indexes several source dims; IREE vectorizes gathers of index depth 1 "
               "only (VectorizableOpInterface.cpp, GatherOpVectorizationModel)";
    if (g->index_elem != LS_ET_I64 && g->index_elem != LS_ET_I32 && g->index_elem != LS_ET_INDEX)
        return "its gather's indices are not i32, i64 or index";
    int slice_rank = g->source_rank - g->depth, batch_rank = op->map_n - slice_rank;
    if (slice_rank < 0 || batch_rank < 1)
        return "its gather's output has no batch dims before the source's slice";
    if (g->index_rank != batch_rank &&
        !(g->index_rank == batch_rank + 1 && g->index_shape[batch_rank] == g->depth))
        return "its gather's indices are not its batch dims (with, at most, a last dim of the "
               "index depth)";
    if (strcmp(ls_elem_type_name(g->source_elem), op->elem) != 0)
        return "its gather's source has another element type than the operand";
    for (int i = 0; i < g->depth; i++)
        if (g->source_shape[i] <= 0)
            return "its gather's source has a dynamic dim it indexes, so lanescope has no range "
                   "for the indices";
    for (int j = 0; j < slice_rank; j++)
        if (g->source_shape[g->depth + j] != a->size[op->map[batch_rank + j]])
            return "its gather's source slice differs from the operand's trailing dims";
    /* the source's elements and bytes are addressed in int64, and the
     * engine tables a row per batch element */
    int64_t elems = 1, rows = 1;
    for (int i = 0; i < g->source_rank; i++)
        if (!ls_mul_ok(elems, g->source_shape[i], &elems))
            return "its gather's source has more than 2^63 elements";
    if (elems > LS_ATT_GATHER_MAX_BYTES / 8)
        return "its gather's source is past 2^50 bytes, lanescope's limit";
    for (int j = 0; j < batch_rank; j++)
        if (!ls_mul_ok(rows, a->size[op->map[j]], &rows) || rows > LS_ATT_GATHER_MAX_ROWS)
            return "its gather reads more than 2^24 rows (batch elements), lanescope's limit";
    return NULL;
}

uint64_t ls_att_gather_rowmix(const ls_module_attention *ma, int k)
{
    int first = k;
    for (int j = 1; j < k; j++)
        if (ma->gather[j].on && strcmp(ma->gather[j].indices, ma->gather[k].indices) == 0) {
            first = j;
            break;
        }
    /* "pages": a constant, not the seed */
    return ls_mix64(UINT64_C(0x7061676573) + (uint64_t)first);
}

int ls_att_gather_source_of(const ls_module_attention *ma, int k)
{
    for (int j = 1; j < k; j++)
        if (ma->gather[j].on && strcmp(ma->gather[j].source, ma->gather[k].source) == 0)
            return j;
    return k;
}

const ls_module_elementwise *ls_att_mask_op(const ls_module *m, const ls_module_attention *ma)
{
    const ls_dop *o = &m->dispatches[ma->dispatch].ops[ma->op];
    if (o->n_inputs < 5 || o->operand[4].producer < 0)
        return NULL;
    for (size_t i = 0; i < m->n_elementwise; i++)
        if (m->elementwise[i].dispatch == ma->dispatch &&
            m->elementwise[i].op == o->operand[4].producer)
            return &m->elementwise[i];
    return NULL;
}

/* Why the mask a generic computes cannot be run, or NULL: its body must
 * read no tensor (linalg.index and constants: IREE's paged-attention causal
 * mask), yield the mask's type, and name every loop through its result. */
static const char *mask_problem(const ls_dop *o, const ls_module_elementwise *e)
{
    if (e == NULL || !e->compiled)
        return "its mask is computed by an op whose body lanescope does not read";
    if (e->n_inputs > 0)
        return "its mask is computed in the dispatch from tensors; lanescope runs a mask computed "
               "from linalg.index and constants, or one loaded from a binding";
    if (e->rank != o->operand[4].map_n)
        return "its mask generic has loops its result does not name";
    if (e->out_type != ls_elem_type_from_name(o->operand[4].elem, strlen(o->operand[4].elem)))
        return "its mask generic yields another type than the mask's";
    return NULL;
}

ls_status ls_attention_values_check(const ls_module *m, const ls_module_attention *ma,
                                    const ls_attention *a, ls_diag *diag)
{
    const ls_dispatch *d = &m->dispatches[ma->dispatch];
    const ls_dop *o = &d->ops[ma->op];
    if (!ma->region_identity)
        return refuse(a, diag, ma->region_line, ma->region_col,
                      "its score region holds ops; lanescope simulates attention whose region "
                      "yields the score unchanged");
    if (!ma->has_scale)
        return refuse(a, diag, 0, 0,
                      "its scale is not an arith.constant of the function, so lanescope has no "
                      "value for it");
    static const char *role[5] = {"query", "key", "value", "scale", "mask"};
    for (int k = 0; k < o->n_inputs; k++) {
        if (k == 3)
            continue;
        const ls_dop_operand *op = &o->operand[k];
        if (k < 3 && ma->gather[k].on) {
            const char *why = ls_att_gather_problem(a, op, &ma->gather[k]);
            if (why) {
                char msg[360];
                snprintf(msg, sizeof msg, "its %s (the gather at line %d): %s", role[k],
                         ma->gather[k].line, why);
                return refuse(a, diag, 0, 0, msg);
            }
        } else if (ma->opaque_kind[k][0]) {
            char why[320];
            snprintf(why, sizeof why,
                     "its %s is computed in the dispatch (%s at line %d); lanescope simulates "
                     "attention whose query, key, value and mask are loaded from the dispatch's "
                     "bindings",
                     role[k], ma->opaque_kind[k], ma->opaque_line[k]);
            return refuse(a, diag, 0, 0, why);
        }
        if (k == 4 && op->producer >= 0) {
            const char *why = mask_problem(o, ls_att_mask_op(m, ma));
            if (why) {
                char msg[360];
                snprintf(msg, sizeof msg, "%s (%s at line %d)", why, d->ops[op->producer].kind,
                         d->ops[op->producer].line);
                return refuse(a, diag, 0, 0, msg);
            }
        } else if (op->producer >= 0) {
            char why[320];
            snprintf(why, sizeof why,
                     "its %s is computed in the dispatch (%s at line %d); lanescope simulates "
                     "attention whose query, key, value and mask are loaded from the dispatch's "
                     "bindings",
                     role[k], d->ops[op->producer].kind, d->ops[op->producer].line);
            return refuse(a, diag, 0, 0, why);
        }
        for (int j = 0; j < op->map_n; j++)
            if (op->map[j] < 0)
                return refuse(a, diag, 0, 0,
                              "an operand map holds an expression other than a loop dim");
    }
    for (int k = 0; k < 3; k++) {
        ls_elem_type t = ls_elem_type_from_name(o->operand[k].elem, strlen(o->operand[k].elem));
        if (t != LS_ET_F16 && t != LS_ET_BF16 && t != LS_ET_F32)
            return refuse(a, diag, 0, 0,
                          "lanescope simulates attention over f16, bf16 and f32 query, key and "
                          "value (IREE scales <= 8-bit types after QK, a path not modelled)");
    }
    if (strcmp(o->operand[0].elem, o->operand[3].elem) != 0)
        return refuse(a, diag, 0, 0,
                      "its scale's type differs from the query's; lanescope simulates the "
                      "pre-scaled query IREE builds when they agree");
    for (int r = 0; r < o->n_inits; r++) {
        ls_elem_type t = ls_elem_type_from_name(o->operand[o->n_inputs + r].elem,
                                                strlen(o->operand[o->n_inputs + r].elem));
        if ((t != LS_ET_F16 && t != LS_ET_BF16 && t != LS_ET_F32) ||
            (r > 0 && strcmp(o->operand[o->n_inputs + r].elem, o->operand[o->n_inputs].elem) != 0))
            return refuse(a, diag, 0, 0,
                          "lanescope simulates online_attention whose acc, max and sum share one "
                          "of f16, bf16 and f32, and attention with such an output");
    }
    for (int dd = 0; dd < a->rank; dd++) {
        bool k1 = ls_att_dim_in(a->dims.k1, a->dims.n_k1, dd);
        bool k2 = ls_att_dim_in(a->dims.k2, a->dims.n_k2, dd);
        int64_t t = k1 ? a->size[dd] : k2 ? a->k2_tile[dd] : a->workgroup[dd];
        if (t > 0 && t < a->size[dd] && a->size[dd] % t != 0) /* past the dim: the dim */
            return refuse(a, diag, 0, 0,
                          "a tile does not divide its dim (IREE pads a K2 tile only with a mask); "
                          "lanescope simulates whole tiles");
    }
    unsigned k1m = mask_of(a->dims.k1, a->dims.n_k1), k2m = mask_of(a->dims.k2, a->dims.n_k2);
    const char *why = layout_problem(a, &a->qk, k1m);
    if (!why)
        why = layout_problem(a, &a->qk, k2m);
    if (!why)
        why = layout_problem(a, &a->pv, k2m);
    if (why)
        return refuse(a, diag, 0, 0, why);
    return LS_OK;
}

static void note_bad(ls_att_check *res, const char *what, const int64_t *g, int rank, double sim,
                     double ref)
{
    if (res->mismatches++ > 0)
        return;
    snprintf(res->bad_result, sizeof res->bad_result, "%s", what);
    memcpy(res->bad_point, g, (size_t)rank * sizeof *g);
    snprintf(res->bad_sim, sizeof res->bad_sim, "%.9g", sim);
    snprintf(res->bad_ref, sizeof res->bad_ref, "%.9g", ref);
}

static void check_one(ls_att_check *res, const char *what, const int64_t *g, int rank, double sim,
                      double ref, double bound)
{
    res->outputs_checked++;
    double err = fabs(sim - ref);
    if (!(err <= bound)) {
        note_bad(res, what, g, rank, sim, ref);
        return;
    }
    if (bound > 0 && err / bound > res->max_error_bound_ratio)
        res->max_error_bound_ratio = err / bound;
}

int64_t ls_attention_values_work(const ls_attention *a)
{
    int64_t k1 = 1, k2 = 1, n = 1, rows = 1;
    for (int d = 0; d < a->rank; d++) {
        if (ls_att_dim_in(a->dims.k1, a->dims.n_k1, d))
            k1 *= a->size[d];
        else if (ls_att_dim_in(a->dims.k2, a->dims.n_k2, d))
            k2 *= a->size[d];
        else if (ls_att_dim_in(a->dims.n, a->dims.n_n, d))
            n *= ls_att_extent(a, d);
        else
            rows *= ls_att_extent(a, d);
    }
    /* the lowered run reads every (key, K1) and (key, N) pair at least once
     * per row, its replicas again; the reference once */
    int64_t rep = a->qk.lanes_used * a->qk.subgroups_used > 0
                      ? a->workgroup_size / (a->qk.lanes_used * a->qk.subgroups_used)
                      : 1;
    return rows * k2 * (k1 + n) * (rep + 2);
}

ls_status ls_attention_values(const ls_module *m, const ls_module_attention *ma,
                              const ls_attention *a, ls_plan_target t, uint64_t seed,
                              int64_t max_wg, ls_att_check *res, ls_diag *diag)
{
    ls_status st = ls_attention_values_check(m, ma, a, diag);
    if (st)
        return st;
    const ls_dispatch *dsp = &m->dispatches[ma->dispatch];
    const ls_dop *o = &dsp->ops[ma->op];
    memset(res, 0, sizeof *res);
    actx c;
    ls_att_ctx_init(&c, m, ma, a, t, seed, &res->inits_assumed);
    const float *init = c.init;
    bool online = o->n_inits == 3;
    unsigned rmask = c.bmask | c.mmask, amask = rmask | c.nmask;
    int64_t nn = c.nn;
    ref_row row = {0};
    row.acc = ls_xcalloc((size_t)nn, sizeof *row.acc);
    row.acc_bound = ls_xcalloc((size_t)nn, sizeof *row.acc_bound);
    int64_t keys = 1;
    for (int d = 0; d < a->rank; d++)
        if (c.k2mask >> d & 1)
            keys *= a->size[d];
    row.s = ls_xcalloc((size_t)keys, sizeof *row.s);
    row.del = ls_xcalloc((size_t)keys, sizeof *row.del);
    float *ref_init_f = ls_xcalloc((size_t)nn, sizeof *ref_init_f);
    for (int64_t j = 0; j < nn; j++)
        ref_init_f[j] = init[0];
    bool check[3];
    for (int r = 0; r < o->n_inits; r++)
        check[r] = ls_att_result_stored(dsp, o, r);
    int64_t nwg = a->workgroups;
    if (max_wg >= 0 && max_wg < nwg)
        nwg = max_wg;
    const double u = ls_unit_roundoff(c.et);
    for (int64_t w = 0; w < nwg; w++) {
        ls_att_ctx_start(&c, w);
        for (int64_t iv = 0; iv < a->iterations; iv++)
            ls_att_ctx_step(&c, iv);
        ls_att_ctx_finish(&c);
        res->workgroups_run++;
        int64_t x[LS_MAX_RANK] = {0};
        do { /* each row (B, M) of the tile */
            int64_t g[LS_MAX_RANK];
            global_of(&c, x, g);
            int64_t ri = box(&c, rmask, x);
            reference_row(&c, g, ref_init_f, init[1], init[2], &row);
            int64_t xn[LS_MAX_RANK], j = 0;
            memcpy(xn, x, sizeof xn);
            do {
                int64_t gi[LS_MAX_RANK];
                global_of(&c, xn, gi);
                int64_t ai = box(&c, amask, xn);
                if (!online) {
                    float out = round_to(1.0f / c.sm[ri] * c.acc[ai], c.out_type[0]);
                    double ref = row.acc[j] / row.sum;
                    double bound = (row.acc_bound[j] + fabs(ref) * row.sum_bound) / row.sum +
                                   fabs(ref) * (3 * u + ls_unit_roundoff(c.out_type[0]));
                    if (check[0])
                        check_one(res, "output", gi, a->rank, out, ref, bound);
                } else if (check[0]) {
                    check_one(res, "acc", gi, a->rank, c.acc[ai], row.acc[j],
                              row.acc_bound[j] + u * fabs(row.acc[j]));
                }
                j++;
            } while (next_point(&c, c.nmask, xn));
            if (w == 0 && ri == 0) {
                res->sample[0] = online ? c.acc[0] : round_to(1.0f / c.sm[0] * c.acc[0], c.out_type[0]);
                res->sample[1] = c.mx[0];
                res->sample[2] = c.sm[0];
            }
            if (online && check[1])
                check_one(res, "max", g, a->rank, c.mx[ri], row.m, row.max_bound);
            if (online && check[2])
                check_one(res, "sum", g, a->rank, c.sm[ri], row.sum, row.sum_bound + u * row.sum);
        } while (next_point(&c, rmask, x));
    }
    res->results_checked = 0;
    for (int r = 0; r < o->n_inits; r++)
        res->results_checked |= check[r] << r;
    ls_att_ctx_free(&c);
    free(row.acc); free(row.acc_bound); free(row.s); free(row.del); free(ref_init_f);
    return LS_OK;
}

/* Element offset of result r's tensor at op point g. */
static int64_t result_index(const ls_dop *o, int r, const int64_t *g)
{
    const ls_dop_operand *op = &o->operand[o->n_inputs + r];
    int64_t i = 0;
    for (int j = 0; j < op->map_n; j++)
        i = i * op->dims[j] + g[op->map[j]];
    return i;
}

ls_status ls_attention_lowered(const ls_module *m, const ls_module_attention *ma,
                               const ls_attention *a, ls_plan_target t, uint64_t seed,
                               int64_t max_wg, ls_value *const out[3], bool *const have[3],
                               ls_diag *diag)
{
    ls_status st = ls_attention_values_check(m, ma, a, diag);
    if (st)
        return st;
    const ls_dop *o = &m->dispatches[ma->dispatch].ops[ma->op];
    bool assumed = false, online = o->n_inits == 3;
    actx c;
    ls_att_ctx_init(&c, m, ma, a, t, seed, &assumed);
    unsigned rmask = c.bmask | c.mmask, amask = rmask | c.nmask;
    int64_t nwg = max_wg >= 0 && max_wg < a->workgroups ? max_wg : a->workgroups;
    for (int64_t w = 0; w < nwg; w++) {
        ls_att_ctx_start(&c, w);
        for (int64_t iv = 0; iv < a->iterations; iv++)
            ls_att_ctx_step(&c, iv);
        ls_att_ctx_finish(&c);
        int64_t x[LS_MAX_RANK] = {0};
        do { /* each row (B, M), then its N points */
            int64_t g[LS_MAX_RANK], ri = box(&c, rmask, x), xn[LS_MAX_RANK];
            global_of(&c, x, g);
            memcpy(xn, x, sizeof xn);
            do {
                int64_t gi[LS_MAX_RANK];
                global_of(&c, xn, gi);
                float v = c.acc[box(&c, amask, xn)];
                if (!online)
                    v = round_to(1.0f / c.sm[ri] * v, c.out_type[0]);
                if (out[0]) {
                    int64_t i = result_index(o, 0, gi);
                    out[0][i] = ls_value_from_double(v, c.out_type[0]);
                    have[0][i] = true;
                }
            } while (next_point(&c, c.nmask, xn));
            const float row[3] = {0, c.mx[ri], c.sm[ri]};
            for (int r = 1; online && r < 3; r++)
                if (out[r]) {
                    int64_t i = result_index(o, r, g);
                    out[r][i] = ls_value_from_double(row[r], c.out_type[r]);
                    have[r][i] = true;
                }
        } while (next_point(&c, rmask, x));
    }
    ls_att_ctx_free(&c);
    return LS_OK;
}
