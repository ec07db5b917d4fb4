/* engine_attention.c: the program one subgroup of an attention's kernel
 * runs (plan->attention), as IREE's VectorDistribute pipeline lowers
 * decode attention (docs/attention-lowering.md §5, §8):
 *
 *   per K2 step: the key, value (and mask) loads, through workgroup memory
 *   when promoted; per S element the QK chain of FMAs over the thread's K1
 *   elements and the subgroup_reduce steps over K1's lanes; then the online
 *   softmax -- per key slot (partial_reduction: max, two exp2s, the sum,
 *   and per output column the rescale and the P*V update) or reduced over
 *   K2 (reduction: max and sum over the thread's keys, K2's lanes and
 *   subgroups, the PV chain per output column and its reduce);
 *
 *   after a partial loop, mergeReductions: each value's local combine over
 *   the thread's slots, the subgroup_reduce steps over K2's lanes, a
 *   workgroup-memory round when subgroups split K2, the init; the weights
 *   exp2(max_k - M); then an attention's 1 / sum and multiply, and the
 *   stores.
 *
 * Instructions depend on what they read: an FMA on the load holding its
 * key element, a carried value (a slot's max, sum or acc) on the previous
 * step's.  The math ops are the target's instruction counts
 * (src/math_lowering.c).  Stages: everything in the loop is
 * load+accumulate (its subgroup_reduce steps and rounds included: the
 * loop's time is one span), the merge's local combines thread-reduce, its
 * lane steps subgroup-reduce, its rounds cross-subgroup, the inits and the
 * epilogue acc-combine. */
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "lanescope/attention.h"

typedef struct {
    engine *e;
    const ls_att_kernel *k;
    const ls_attention *a;
    int first_load[LS_MAX_INPUTS];   /* template index of each input's load 0 this step */
    /* reads of a carried value before the step has written it: the
     * previous step's result, patched in once the step is emitted */
    int (*patch)[3];                 /* instruction, operand, carried index */
    int n_patch;
} prog;

/* A carried value before this step's write: -2 - its index (see emit). */
#define CARRIED(i) (-2 - (int)(i))

/* The unified layout's register of a thread's local tuple f over QK loops
 * l[0..n) (the view's layout agrees with both matmuls on their loops),
 * added into c. */
static void place(const ls_att_matmul *mm, const int *l, int n, int64_t f, ls_nl_coord *c)
{
    int64_t b[LS_MAX_RANK], o[LS_MAX_RANK], e[LS_MAX_RANK];
    ls_att_local_decode(&mm->layout, l, n, f, b, o, e);
    for (int j = 0; j < n; j++) {
        int d = mm->dim[l[j]];
        c->batch[d] = b[j];
        c->outer[d] = o[j];
        c->element[d] = e[j];
    }
}

/* The load (template index) of input k holding the element at row r,
 * slot s, K1 tuple q (-1: none) and N tuple n (-1: none). */
static int load_at(prog *g, int k, int64_t r, int64_t s, int64_t q, int64_t n)
{
    if (k < 0)
        return -1;
    ls_nl_coord c;
    memset(&c, 0, sizeof c);
    place(&g->a->qk, g->k->rows_l, g->k->n_rows, r, &c);
    place(&g->a->qk, g->k->k2_l, g->k->n_k2, s, &c);
    if (q >= 0)
        place(&g->a->qk, g->k->k1_l, g->k->n_k1, q, &c);
    if (n >= 0)
        place(&g->a->pv, g->k->n_l, g->k->n_n, n, &c);
    const engine *e = g->e;
    int64_t reg = ls_nl_register_of(&e->d->layout, &c);
    return g->first_load[k] + (int)ls_operand_load_of(e->d, &e->oregs[k], reg);
}

static int emit(prog *g, ikind kind, ls_stage st, int d0, int d1)
{
    int at = ls_engine_emit(g->e, kind, st, d0 < -1 ? -1 : d0, d1 < -1 ? -1 : d1);
    int dep[2] = {d0, d1};
    for (int j = 0; j < 2; j++)
        if (dep[j] < -1) {
            if (g->patch)
                g->patch[g->n_patch][0] = at, g->patch[g->n_patch][1] = j,
                g->patch[g->n_patch][2] = -2 - dep[j];
            g->n_patch++;
        }
    return at;
}

/* n dependent ALU instructions after prev (n may be 0) */
static int alu_chain(prog *g, ls_stage st, int64_t n, int prev)
{
    for (int64_t i = 0; i < n; i++)
        prev = emit(g, I_ALU, st, prev, -1);
    return prev;
}

/* a math op of `alu` ALU and `sfu` special-function instructions on x */
static int math_op(prog *g, ls_stage st, int alu, int sfu, int x)
{
    x = alu_chain(g, st, alu, x);
    for (int i = 0; i < sfu; i++)
        x = emit(g, I_SFU, st, x, -1);
    return x;
}

/* a x b + c: one FMA where AMD's backend fuses them (k->fuse_muladd: it
 * reads b and c, a as its third operand, which is never a carried value),
 * else the multiply and the add */
static int muladd(prog *g, ls_stage st, int a, int b, int c)
{
    if (!g->k->fuse_muladd)
        return emit(g, I_ALU, st, emit(g, I_ALU, st, a, b), c);
    int x = emit(g, I_ALU, st, b, c);
    if (g->e->code)
        g->e->code[x].dep[2] = a;
    return x;
}

/* Packed math: column n's instructions [from, now) are the second halves
 * of column n - 1's (k->pair_columns), issued in no slot of their own. */
static void pair_column(prog *g, int from, int64_t n)
{
    const ls_att_kernel *k = g->k;
    if (!g->e->code || !k->pair_columns || !ls_plan_pairs_previous(k->pair_run, n))
        return;
    for (int i = from; i < g->e->ncode; i++)
        if (g->e->code[i].kind == I_ALU)
            g->e->code[i].issues = 0;
}

/* x widened to the work type: n (0 or 1) ALU instructions (k_ext, v_ext,
 * p_ext) */
static int widen(prog *g, ls_stage st, int n, int x)
{
    return n > 0 ? emit(g, I_ALU, st, x, -1) : x;
}

/* Each row's local max of its n values v[r * n + i] into out[r]: a
 * multi_reduction <maximumf> over the thread's keys, one vector.reduction
 * a row, as LLVM folds it for the work type on the target
 * (ls_fold_shape_of: a balanced tree on NVIDIA; on AMD, where IREE makes
 * it a maxnumf, a chain of v_max3_f32, each instruction two combines),
 * the rows' folds interleaved level by level.  (A packed tree -- an f16
 * work type on sm_80 and later -- takes the scores two to a register with
 * no instruction for the packing.) */
static void local_max(prog *g, ls_stage st, const int *v, int64_t rows, int64_t n, int *out)
{
    engine *e = g->e;
    ls_thread_reduce_shape s =
        ls_fold_shape_of(ls_plan_target_of(e->plan), g->k->work_type, LS_COMB_MAXIMUMF, n);
    if (s.form != LS_TR_CHAIN) {
        ls_thread_reduce_shape *sh = ls_xcalloc((size_t)rows, sizeof *sh);
        int **vv = ls_xcalloc((size_t)rows, sizeof *vv);
        for (int64_t r = 0; r < rows; r++) {
            sh[r] = s;
            vv[r] = ls_xcalloc((size_t)n, sizeof **vv);
            memcpy(vv[r], v + r * n, (size_t)n * sizeof **vv);
        }
        ls_engine_emit_folds(e, st, sh, vv, rows, out, NULL);
        for (int64_t r = 0; r < rows; r++)
            free(vv[r]);
        free(vv);
        free(sh);
        return;
    }
    bool fused = s.combines < s.values - 1; /* a third operand each */
    int64_t per = s.combines > 0 ? s.instructions / s.combines : 1;
    for (int64_t r = 0; r < rows; r++) {
        const int *x = v + r * n;
        int64_t i = 1;
        int at = x[0];
        for (int64_t c = 0; c < s.combines; c++) {
            at = emit(g, I_ALU, st, at, x[i++]);
            if (fused && i < n && e->code)
                e->code[at].dep[2] = x[i];
            i += fused && i < n;
            for (int64_t j = 1; j < per; j++)
                at = emit(g, I_ALU, st, at, -1);
        }
        out[r] = at;
    }
}

/* A multi_reduction's communication for the n values v[] (in place): each
 * value's lane steps, then, when subgroups split the reduced loops, one
 * round through workgroup memory for all of them (a barrier, every
 * writer's store, a barrier, the read-back and its reduce). */
static void communicate(prog *g, const ls_att_reduction *r, ls_combiner k, int *v, int64_t n,
                        ls_stage lane_st, ls_stage cross_st)
{
    ls_elem_type et = g->k->work_type;
    for (int64_t i = 0; i < n; i++)
        for (int j = 0; j < r->n; j++)
            v[i] = ls_engine_emit_reduce_as(g->e, &r->lane[j], lane_st, v[i], et, k);
    if (!r->cross)
        return;
    int b = emit(g, I_BARRIER, cross_st, -1, -1);
    for (int64_t i = 0; i < n; i++) {
        int s = emit(g, I_SMEM_ST, cross_st, v[i], b);
        if (g->e->code)
            g->e->code[s].result = 0;
    }
    b = emit(g, I_BARRIER, cross_st, -1, -1);
    for (int64_t i = 0; i < n; i++) {
        int l = emit(g, I_SMEM_LD, cross_st, b, -1);
        if (g->e->code)
            g->e->code[l].result = 0;
        /* no reduced loop has lanes enough for the partials: each thread
         * reads them all and combines them in turn */
        if (r->back.cluster_size == 1)
            l = alu_chain(g, cross_st, r->parts - 1, l);
        v[i] = ls_engine_emit_reduce_as(g->e, &r->back, cross_st, l, et, k);
    }
}

/* One K2 step's loads: promoted inputs' copies first (a barrier, the
 * derived-layout global loads and their stores, a barrier), then every
 * input's compute reads. */
static void step_loads(prog *g)
{
    engine *e = g->e;
    const ls_plan *pl = e->plan;
    const ls_stage L = LS_STAGE_LOAD_ACCUMULATE;
    if (pl->n_promoted > 0) {
        emit(g, I_BARRIER, L, -1, -1);
        for (int k = 0; k < pl->n_inputs; k++)
            for (int64_t l = 0; pl->promote[k].on && l < pl->promote[k].copy_loads; l++) {
                int i = emit(g, I_GLOAD, L, -1, -1);
                int s = emit(g, I_SMEM_ST, L, i, -1);
                if (e->code) {
                    e->code[i].load = e->code[s].load = (int)l;
                    e->code[i].operand = e->code[s].operand = k;
                    e->code[i].copy = true;
                    e->code[s].promote = true;
                }
            }
        emit(g, I_BARRIER, L, -1, -1);
    }
    /* a gather's indices first: its row loads wait for them (one index
     * per row a thread reads, DistributeTransferGather; the last of them
     * stands for all, a thread's indices issuing back to back) */
    int last[LS_MAX_INPUTS];
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < pl->n_inputs; k++) {
            bool index = false;
            for (int j = 0; j < pl->n_inputs; j++)
                index |= pl->gather[j].on && pl->gather[j].index_input == k;
            if (index != (pass == 0))
                continue;
            int dep = pl->gather[k].on ? last[pl->gather[k].index_input] : -1;
            g->first_load[k] = e->ncode;
            for (int64_t l = 0; l < pl->inputs[k].loads; l++) {
                int i = emit(g, pl->promote[k].on ? I_SMEM_LD : I_GLOAD, L, dep, -1);
                if (e->code) {
                    e->code[i].load = (int)l;
                    e->code[i].operand = k;
                    e->code[i].promote = pl->promote[k].on;
                }
                last[k] = i;
            }
        }
}

/* S for every (row, slot): the chain over the thread's K1 elements, last
 * first (ContractToChainFMA), K1's lane steps, the mask. */
static void scores(prog *g, int *s)
{
    const ls_stage L = LS_STAGE_LOAD_ACCUMULATE;
    for (int64_t r = 0; r < g->k->rows; r++)
        for (int64_t sl = 0; sl < g->k->slots; sl++) {
            int prev = -1;
            for (int64_t q = g->k->k1loc; q-- > 0;)
                prev = emit(g, I_ALU, L,
                            widen(g, L, g->k->k_ext, load_at(g, g->k->k_in, r, sl, q, -1)), prev);
            s[r * g->k->slots + sl] = prev;
        }
    communicate(g, &g->k->k1_red, LS_COMB_ADD, s, g->k->rows * g->k->slots, L, L);
    if (g->k->mask_in >= 0 || g->k->mask_computed) /* applyMask: S + mask (x log2e, or a select) */
        for (int64_t r = 0; r < g->k->rows; r++)
            for (int64_t sl = 0; sl < g->k->slots; sl++) {
                int *v = &s[r * g->k->slots + sl];
                /* a loaded mask's element, or the generic computing it
                 * (paged attention: from the thread's key position) */
                int m = g->k->mask_in >= 0
                            ? load_at(g, g->k->mask_in, r, sl, -1, -1)
                            : math_op(g, L, g->k->mask_alu, g->k->mask_sfu, -1);
                m = emit(g, I_ALU, L, m, -1);
                *v = emit(g, I_ALU, L, *v, m);
            }
}

/* partial_reduction: every slot on its own (§2.2).  carried: per slot its
 * max, sum, then per N element its acc (the previous step's instruction;
 * -1 in the first step is patched to the loop's own). */
static void step_partial(prog *g, const int *s, int *carried)
{
    const ls_stage L = LS_STAGE_LOAD_ACCUMULATE;
    const ls_att_kernel *k = g->k;
    int64_t es = g->k->rows * g->k->slots;
    for (int64_t r = 0; r < g->k->rows; r++)
        for (int64_t sl = 0; sl < g->k->slots; sl++) {
            int64_t i = r * g->k->slots + sl;
            int *mx = &carried[i], *sm = &carried[es + i], *acc = &carried[2 * es + i * g->k->nloc];
            int nmax = emit(g, I_ALU, L, s[i], *mx);
            int norm = math_op(g, L, k->exp2_alu, k->exp2_sfu, emit(g, I_ALU, L, *mx, nmax));
            int p = math_op(g, L, k->exp2_alu, k->exp2_sfu, emit(g, I_ALU, L, s[i], nmax));
            *mx = nmax;
            *sm = muladd(g, L, norm, *sm, p);
            if (k->trunc_p) /* to V's type, and back (p_ext) */
                p = widen(g, L, k->p_ext, emit(g, I_ALU, L, p, -1));
            for (int64_t n = 0; n < g->k->nloc; n++) {
                int vv = widen(g, L, k->v_ext, load_at(g, k->v_in, r, sl, -1, n));
                int from = g->e->ncode;
                int rescaled = emit(g, I_ALU, L, norm, acc[n]);
                acc[n] = muladd(g, L, p, vv, rescaled);
                pair_column(g, from, n);
            }
        }
}

/* reduction level: each step reduces over K2 (§2.1).  carried: per row its
 * max, sum, then its acc per N element. */
static void step_serial(prog *g, const int *s, int *carried)
{
    /* the loop's reduce steps and rounds count in the loop's stage */
    const ls_stage L = LS_STAGE_LOAD_ACCUMULATE, R = L, X = L;
    const ls_att_kernel *k = g->k;
    int64_t rows = g->k->rows, nloc = g->k->nloc;
    int *v = ls_xcalloc((size_t)(rows * (nloc > 1 ? nloc : 1)), sizeof *v);
    int *norm = ls_xcalloc((size_t)rows, sizeof *norm);
    int *p = ls_xcalloc((size_t)(rows * g->k->slots), sizeof *p);
    local_max(g, L, s, rows, g->k->slots, v); /* over the row's keys */
    communicate(g, &g->k->qk2_red, LS_COMB_MAXIMUMF, v, rows, R, X);
    for (int64_t r = 0; r < rows; r++) {
        int nmax = emit(g, I_ALU, L, v[r], carried[r]);
        norm[r] = math_op(g, L, k->exp2_alu, k->exp2_sfu, emit(g, I_ALU, L, carried[r], nmax));
        carried[r] = nmax;
        for (int64_t sl = 0; sl < g->k->slots; sl++)
            p[r * g->k->slots + sl] = math_op(g, L, k->exp2_alu, k->exp2_sfu,
                                           emit(g, I_ALU, L, s[r * g->k->slots + sl], nmax));
        v[r] = p[r * g->k->slots];
        for (int64_t sl = 1; sl < g->k->slots; sl++)
            v[r] = emit(g, I_ALU, L, v[r], p[r * g->k->slots + sl]);
    }
    communicate(g, &g->k->qk2_red, LS_COMB_ADD, v, rows, R, X);
    for (int64_t r = 0; r < rows; r++) {
        int *sm = &carried[rows + r];
        *sm = muladd(g, L, norm[r], *sm, v[r]);
        for (int64_t sl = 0; k->trunc_p && sl < g->k->slots; sl++) /* to V's type, and back */
            p[r * g->k->slots + sl] =
                widen(g, L, k->p_ext, emit(g, I_ALU, L, p[r * g->k->slots + sl], -1));
        for (int64_t n = 0; n < nloc; n++) { /* the PV chain of FMAs, last key first */
            int c = -1;
            for (int64_t sl = g->k->slots; sl-- > 0;) {
                int vv = widen(g, L, k->v_ext, load_at(g, k->v_in, r, sl, -1, n));
                int from = g->e->ncode;
                c = emit(g, I_ALU, L, vv, c);
                pair_column(g, from, n);
            }
            v[r * nloc + n] = c;
        }
    }
    communicate(g, &g->k->pv2_red, LS_COMB_ADD, v, rows * nloc, R, X);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t n = 0; n < nloc; n++) {
            int *acc = &carried[2 * rows + r * nloc + n];
            int from = g->e->ncode;
            *acc = muladd(g, L, norm[r], *acc, v[r * nloc + n]);
            pair_column(g, from, n);
        }
    free(v);
    free(norm);
    free(p);
}

/* After a partial loop: mergeReductions (§2.2) with the op's inits. */
static void merge(prog *g, const int *carried, int *acc_out, int *sum_out)
{
    const ls_stage T = LS_STAGE_THREAD_REDUCE, R = LS_STAGE_SUBGROUP_REDUCE,
                   X = LS_STAGE_CROSS_SUBGROUP, C = LS_STAGE_ACC_COMBINE;
    const ls_att_kernel *k = g->k;
    int64_t rows = g->k->rows, slots = g->k->slots, es = rows * slots, nloc = g->k->nloc;
    int *m = ls_xcalloc((size_t)rows, sizeof *m), *w = ls_xcalloc((size_t)es, sizeof *w);
    local_max(g, T, carried, rows, slots, m);
    communicate(g, &g->k->qk2_red, LS_COMB_MAXIMUMF, m, rows, R, X);
    for (int64_t r = 0; r < rows; r++) {
        m[r] = emit(g, I_ALU, C, m[r], -1); /* with the init */
        for (int64_t sl = 0; sl < slots; sl++)
            w[r * slots + sl] = math_op(g, T, k->exp2_alu, k->exp2_sfu,
                                        emit(g, I_ALU, T, carried[r * slots + sl], m[r]));
    }
    /* a weighted local sum: the multiply, then the add into the reduce */
    for (int64_t r = 0; k->sum_merge && r < rows; r++) {
        int c = -1;
        for (int64_t sl = 0; sl < slots; sl++)
            c = muladd(g, T, w[r * slots + sl], carried[es + r * slots + sl], c);
        sum_out[r] = c;
    }
    if (k->sum_merge) {
        communicate(g, &g->k->qk2_red, LS_COMB_ADD, sum_out, rows, R, X);
        for (int64_t r = 0; r < rows; r++)
            sum_out[r] = emit(g, I_ALU, C, sum_out[r], -1);
    }
    for (int64_t r = 0; r < rows; r++)
        for (int64_t n = 0; n < nloc; n++) {
            int c = -1;
            int from = g->e->ncode;
            for (int64_t sl = 0; sl < slots; sl++)
                c = muladd(g, T, w[r * slots + sl], carried[2 * es + (r * slots + sl) * nloc + n],
                           c);
            pair_column(g, from, n);
            acc_out[r * nloc + n] = c;
        }
    communicate(g, &g->k->pv2_red, LS_COMB_ADD, acc_out, rows * nloc, R, X);
    for (int64_t i = 0; i < rows * nloc; i++)
        acc_out[i] = emit(g, I_ALU, C, acc_out[i], -1);
    free(m);
    free(w);
}

/* The epilogue and the stores: an attention's 1 / sum and multiply (and
 * the truncation to its type), one store per element-tile vector. */
static void finish(prog *g, int *acc, const int *sum)
{
    const ls_stage C = LS_STAGE_ACC_COMBINE;
    const ls_att_kernel *k = g->k;
    for (int64_t r = 0; r < g->k->rows; r++) {
        int rcp = k->epilogue ? math_op(g, C, k->div_alu, k->div_sfu, sum[r]) : -1;
        for (int64_t n = 0; n < g->k->nloc; n++) {
            int *v = &acc[r * g->k->nloc + n];
            if (k->epilogue)
                *v = emit(g, I_ALU, C, rcp, *v);
            if (k->out_trunc)
                *v = emit(g, I_ALU, C, *v, -1);
        }
    }
    int64_t per = g->k->rows * g->k->nloc / k->store_vectors;
    for (int64_t i = 0; i < k->store_vectors; i++) {
        int s = emit(g, I_GSTORE, LS_STAGE_STORE, acc[(i + 1) * per - 1], -1);
        if (g->e->code)
            g->e->code[s].result = 0;
    }
}

static void build(prog *g)
{
    engine *e = g->e;
    const ls_attention *a = g->a;
    int64_t es = g->k->rows * g->k->slots;
    /* carried values: partial: max, sum per slot, acc per slot and N
     * element; serial: max, sum per row, acc per row and N element */
    int64_t nc = a->partial ? 2 * es + es * g->k->nloc : 2 * g->k->rows + g->k->rows * g->k->nloc;
    int *carried = ls_xcalloc((size_t)nc, sizeof *carried);
    int *s = ls_xcalloc((size_t)es, sizeof *s);
    for (int64_t i = 0; i < nc; i++)
        carried[i] = CARRIED(i);
    g->n_patch = 0;
    e->loop_begin = e->ncode;
    step_loads(g);
    scores(g, s);
    if (a->partial)
        step_partial(g, s, carried);
    else
        step_serial(g, s, carried);
    e->loop_end = e->ncode;
    /* a carried value's reads before its write in the step read the
     * previous step's: the loop's own instruction, across the back edge
     * (ls_engine_assign_scoreboard keeps such a result for the whole loop) */
    for (int i = 0; e->code && i < g->n_patch; i++)
        e->code[g->patch[i][0]].dep[g->patch[i][1]] = carried[g->patch[i][2]];
    int *acc = ls_xcalloc((size_t)(g->k->rows * g->k->nloc), sizeof *acc);
    int *sum = ls_xcalloc((size_t)g->k->rows, sizeof *sum);
    if (a->partial) {
        merge(g, carried, acc, sum);
    } else {
        memcpy(acc, carried + 2 * g->k->rows, (size_t)(g->k->rows * g->k->nloc) * sizeof *acc);
        memcpy(sum, carried + g->k->rows, (size_t)g->k->rows * sizeof *sum);
    }
    finish(g, acc, sum);
    free(carried);
    free(s);
    free(acc);
    free(sum);
}

void ls_engine_build_template_attention(engine *e)
{
    const ls_att_kernel *k = e->plan->attention;
    const ls_attention *a = k->a;
    prog g;
    memset(&g, 0, sizeof g);
    g.e = e;
    g.k = k;
    g.a = a;
    /* a counting pass, then the program */
    e->code = NULL;
    e->ncode = 0;
    build(&g);
    int64_t n = e->ncode;
    if (n > INT32_MAX / 2) {
        e->ncode = -1;
        return;
    }
    e->code = ls_xcalloc((size_t)n + 1, sizeof *e->code);
    g.patch = ls_xcalloc((size_t)g.n_patch + 1, sizeof *g.patch);
    e->ncode = 0;
    build(&g);
    free(g.patch);
}
