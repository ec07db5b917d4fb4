/* suggest.c: IREE's reduction heuristic (setReductionConfig), rule by rule.
 *
 * Follows shared/reference/iree-reduction-lowering.md §1 (IREE @ b48a5955575c,
 * ReductionConfigUtils.cpp) and the IterationDimTracker of SliceUtils.cpp.
 * The arithmetic is IREE's, including its quirks: gcd on 64-bit values,
 * 2^31 standing for a dynamic reduction size, the one-wave cap comparing the
 * parallel element count with wgp_count x simds_per_wgp, and the split-k
 * loop stopping strictly below WG/4.  Outer reductions are IREE's
 * TileAndFuse config instead (ConfigUtils.cpp, see "outer reductions"), and
 * so is any linalg reduction the heuristic refuses (setRootConfig's next
 * candidate, tile_and_fuse_fallback).
 * Work is tiny (a few ops of rank <= 8), so clarity wins over speed
 * throughout.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/suggest.h"
#include "suggest_internal.h"

void ls_suggest_step(ls_suggestion *s, const char *fmt, ...)
{
    if (s->n_steps >= LS_SUGGEST_MAX_STEPS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->steps[s->n_steps++], sizeof s->steps[0], fmt, ap);
    va_end(ap);
}

ls_dop_where ls_dop_where_of(const ls_dop *o)
{
    ls_dop_where w = {""};
    if (o->line > 0)
        snprintf(w.s, sizeof w.s, " at line %d", o->line);
    return w;
}
static ls_status reject(ls_diag *diag, const char *file, const ls_dop *op, const ls_dispatch *d,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static ls_status reject(ls_diag *diag, const char *file, const ls_dop *op, const ls_dispatch *d,
                        const char *fmt, ...)
{
    char msg[sizeof diag->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = op ? op->line : d->line, col = op ? op->col : d->col;
    return ls_diag_set(diag, LS_ERR_INVALID, file, line, col,
                       "IREE's reduction heuristic rejects this dispatch: %s", msg);
}

/* ---------------------------------------------------------------- gate */

/* Ops in the backward slice of the stored values, by producer links. */
static void mark_slice(const ls_dispatch *d, int op, bool *in)
{
    if (op < 0 || in[op])
        return;
    in[op] = true;
    const ls_dop *o = &d->ops[op];
    for (int k = 0; k < o->n_inputs + o->n_inits; k++)
        mark_slice(d, o->operand[k].producer, in);
}

int ls_suggest_producer_of(const ls_dispatch *d, const char *value)
{
    for (int i = d->n_ops; i-- > 0;) {
        const ls_dop *o = &d->ops[i];
        size_t n = strlen(o->result);
        if (n && strncmp(value, o->result, n) == 0 && (value[n] == 0 || value[n] == '#'))
            return i;
    }
    return -1;
}

/* checkDispatchForVectorDistribution: fills compute[] in IREE's order
 * (reverse program order, fills skipped). */
static ls_status gate(const ls_dispatch *d, const char *file, int *compute, int *n_compute,
                      ls_suggestion *s, ls_diag *diag)
{
    bool in[LS_DISPATCH_MAX_OPS] = {false};
    *n_compute = 0;
    if (d->n_forall > 1)
        return reject(diag, file, NULL, d,
                      "@%s has %d scf.forall ops; the gate allows one (a split reduction)",
                      d->func, d->n_forall);
    if (d->n_forall == 1) {
        if (!d->forall_split_mapping)
            return ls_diag_set(diag, LS_ERR_INVALID, file, d->forall_line, d->forall_col,
                               "IREE's reduction heuristic rejects this dispatch: its scf.forall "
                               "has no #iree_linalg_ext.split_reduction_mapping");
        for (int i = 0; i < d->n_inserts; i++)
            mark_slice(d, ls_suggest_producer_of(d, d->inserted[i]), in);
        for (int i = 0; i < d->n_ops; i++)
            if (in[i] && !d->ops[i].in_forall)
                return reject(diag, file, &d->ops[i], d,
                              "%s feeds the split-reduction scf.forall from outside it",
                              d->ops[i].kind);
        if (d->n_inserts == 0)
            return ls_diag_set(diag, LS_ERR_INVALID, file, d->forall_line, d->forall_col,
                               "IREE's reduction heuristic rejects this dispatch: the "
                               "split-reduction scf.forall has no tensor.parallel_insert_slice");
        ls_suggest_step(s, "gate: one split-reduction scf.forall; the compute ops are those feeding its "
                "parallel_insert_slice");
    } else {
        if (d->n_stores == 0 && d->has_bindings)
            return reject(diag, file, NULL, d,
                          "@%s stores nothing (no iree_tensor_ext.dispatch.tensor.store or "
                          "iree_codegen.store_to_buffer): the compute ops are taken from the "
                          "stores' backward slice",
                          d->func);
        if (d->n_stores == 0) {
            /* A snippet (no bindings, no stores): its unused results stand in. */
            for (int i = 0; i < d->n_ops; i++) {
                bool used = false;
                for (int j = i + 1; j < d->n_ops && !used; j++)
                    for (int k = 0; k < d->ops[j].n_inputs + d->ops[j].n_inits; k++)
                        used |= d->ops[j].operand[k].producer == i;
                if (!used)
                    mark_slice(d, i, in);
            }
            ls_suggest_step(s, "gate: @%s is a snippet without bindings or stores; its unused results are "
                    "taken as stored (IREE itself needs a dispatch.tensor.store)",
                 d->func);
        }
        for (int i = 0; i < d->n_stores; i++)
            mark_slice(d, ls_suggest_producer_of(d, d->stored[i]), in);
    }
    for (int i = d->n_ops; i-- > 0;) {
        const ls_dop *o = &d->ops[i];
        if (!in[i] || o->is_fill)
            continue;
        if (o->is_conv)
            return reject(diag, file, o, d, "%s is a convolution or pooling op", o->kind);
        if (ls_suggest_has_reduction(o) && !o->combiner_ok)
            return reject(diag, file, o, d, "%s: %s", o->kind, o->combiner_why);
        compute[(*n_compute)++] = i;
    }
    for (int c = 0; c < *n_compute; c++) {
        const ls_dop *o = &d->ops[compute[c]];
        for (int k = 0; k < o->n_inputs; k++) {
            const ls_dop_operand *od = &o->operand[k];
            bool producer_is_compute = false;
            for (int j = 0; j < *n_compute; j++)
                producer_is_compute |= od->producer >= 0 && compute[j] == od->producer;
            if (!producer_is_compute)
                continue;
            bool reduced = false;
            for (int j = 0; j < od->map_n; j++)
                reduced |= od->map[j] >= 0 && o->is_reduction[od->map[j]];
            if (reduced && ls_suggest_has_reduction(&d->ops[od->producer]))
                return reject(diag, file, o, d,
                              "input %s of this %s is reduced here and is itself the result of "
                              "a reduction (%s%s)",
                              od->value, o->kind, d->ops[od->producer].kind,
                              ls_dop_where_of(&d->ops[od->producer]).s);
        }
    }
    if (*n_compute == 0)
        return reject(diag, file, NULL, d, "no linalg op feeds the stores of @%s", d->func);
    ls_suggest_step(s, "gate: %d compute op%s in the stores' backward slice; no convolution; every "
            "reduction has a single combiner",
         *n_compute, *n_compute == 1 ? "" : "s");
    return LS_OK;
}

/* ------------------------------------------------------- heuristic */

/* calculateTensorSize + getBitWidth: the element width of the "largest"
 * operand, inits first, looking through a bit-extending producer. */
static int64_t bitwidth(const ls_dispatch *d, const ls_dop *o, char *which, size_t wsize)
{
    bool have = false;
    int64_t best_dyn = 0, best_size = 0, best_bits = 0;
    int order[LS_DISPATCH_MAX_OPERANDS], n = 0;
    for (int k = 0; k < o->n_inits; k++)
        order[n++] = o->n_inputs + k;
    for (int k = 0; k < o->n_inputs; k++)
        order[n++] = k;
    for (int i = 0; i < n; i++) {
        const ls_dop_operand *od = &o->operand[order[i]];
        const char *via = "";
        if (od->producer >= 0 && d->ops[od->producer].is_bit_extend &&
            d->ops[od->producer].n_inputs > 0) {
            od = &d->ops[od->producer].operand[0];
            via = " (through its bit-extending producer)";
        }
        if (od->elem_bits <= 0 || od->rank < 0)
            continue;
        int64_t dyn = 0, size = 1;
        for (int j = 0; j < od->rank; j++) {
            if (od->dims[j] == LS_DYN)
                dyn++;
            else if (!ls_mul_ok(size, od->dims[j], &size))
                size = INT64_MAX; /* only compared: saturating keeps the order */
        }
        int64_t bits = od->is_index ? 64 : od->elem_bits;
        bool better = !have || dyn > best_dyn || (dyn == best_dyn && size > best_size) ||
                      (dyn == best_dyn && size == best_size && bits > best_bits);
        if (better) {
            have = true;
            best_dyn = dyn;
            best_size = size;
            best_bits = bits;
            snprintf(which, wsize, "%s%s", o->operand[order[i]].value, via);
        }
    }
    return have ? best_bits : 0;
}

/* Where a contraction goes: matvec-like ones (at most one non-unit M/N dim)
 * and very skinny ones reach the reduction heuristic; the others are taken
 * by IREE's matmul configs first. */
static bool contraction_reaches_reduction(const ls_dop *o, int64_t pref, char *why, size_t wsize)
{
    int64_t m = 1, n = 1;
    int nonunit = 0;
    bool dyn = false;
    for (int i = 0; i < o->rank; i++) {
        if (o->is_reduction[i])
            continue;
        bool in_a = false, in_b = false;
        for (int j = 0; j < o->operand[0].map_n; j++)
            in_a |= o->operand[0].map[j] == i;
        for (int j = 0; j < o->operand[1].map_n; j++)
            in_b |= o->operand[1].map[j] == i;
        if (in_a == in_b)
            continue; /* batch dim */
        if (o->size[i] == LS_DYN) {
            dyn = true;
            continue;
        }
        if (o->size[i] != 1)
            nonunit++;
        /* M and N are only compared with small thresholds: past int64 they
         * saturate (and print as such) */
        int64_t *mn = in_a ? &m : &n;
        if (!ls_mul_ok(*mn, o->size[i], mn))
            *mn = INT64_MAX;
    }
    char ms[32], ns[32];
    snprintf(ms, sizeof ms, m == INT64_MAX ? "2^63-1 or more" : "%lld", (long long)m);
    snprintf(ns, sizeof ns, n == INT64_MAX ? "2^63-1 or more" : "%lld", (long long)n);
    if (!dyn && nonunit <= 1) {
        snprintf(why, wsize, "matvec-like contraction (M = %s, N = %s)", ms, ns);
        return true;
    }
    if (!dyn && ((m <= 4 && n > pref) || (n <= 4 && m > pref))) {
        snprintf(why, wsize, "very skinny contraction (M = %s, N = %s; threshold 4)", ms, ns);
        return true;
    }
    snprintf(why, wsize,
             "it is a contraction with M = %s and N = %s%s, which IREE's matmul configs "
             "(TileAndFuse / VectorDistribute with MMA) take before the reduction heuristic",
             ms, ns, dyn ? " (some dynamic)" : "");
    return false;
}

/* A TileAndFuse config, kept for `sim`, which runs it (layout_tilefuse.c). */
static void keep_tile_and_fuse(ls_suggestion *s, const ls_tf_answer *a, int64_t sg)
{
    s->tile_and_fuse = true;
    s->subgroup_size = sg;
    s->tf_workgroup_size[0] = a->wg_size;
    s->tf_workgroup_size[1] = s->tf_workgroup_size[2] = 1;
    for (int l = 0; l < a->rank; l++) {
        s->tf_workgroup[l] = a->workgroup[l];
        s->tf_thread[l] = a->thread[l];
        s->tf_reduction[l] = a->reduction[l];
    }
}

/* KernelConfig.cpp setRootConfig, after setReductionConfig refuses a linalg
 * root: no convolution or transpose config takes a reduction, so
 * setTileAndFuseLoweringConfig does (the Tile and Fuse / default case).  The
 * heuristic's reason stays in the message. */
static ls_status tile_and_fuse_fallback(const ls_dispatch *d, const ls_target *t,
                                        ls_suggestion *s, ls_diag *diag)
{
    const ls_dop *root = &d->ops[s->root];
    int64_t pref = ls_suggest_preferred_subgroup(t);
    char why[sizeof diag->msg], file[sizeof diag->file];
    snprintf(why, sizeof why, "%s", diag->msg);
    snprintf(file, sizeof file, "%s", diag->file);
    int line = diag->line, col = diag->col;
    ls_diag_clear(diag); /* the message is rewritten, the reason kept in it */
    ls_tf_answer a;
    ls_tf_outcome r = ls_suggest_tile_and_fuse(d, root, pref, &a);
    if (r == LS_TF_DECLINES)
        return ls_diag_set(diag, LS_ERR_INVALID, file, line, col,
                           "%.700s; TileAndFuse declines it too (no parallel loop to "
                           "distribute), so IREE falls back to setRootDefaultConfig, which "
                           "lanescope does not model",
                           why);
    if (r == LS_TF_UNSIZED)
        return ls_diag_set(diag, LS_ERR_INVALID, file, line, col,
                           "%.700s; IREE then gives it TileAndFuse, whose config lanescope cannot "
                           "work out (%s's element type has no size)",
                           why, a.bad);
    ls_suggest_step(s, "the reduction heuristic refuses, so setRootConfig gives it TileAndFuse "
            "(setTileAndFuseLoweringConfig): %lld threads, each reducing its own outputs",
         (long long)a.wg_size);
    keep_tile_and_fuse(s, &a, pref);
    return ls_diag_set(diag, LS_ERR_INVALID, file, line, col,
                       "%.600s; IREE then gives it TileAndFuse (setTileAndFuseLoweringConfig, "
                       "Dialect/GPU/TargetUtils/ConfigUtils.cpp): %s %s",
                       why, a.translation, a.config);
}

static ls_status outer_reduction(const ls_dispatch *d, const ls_dop *root, int64_t pref,
                                 ls_suggestion *s, ls_diag *diag)
{
    ls_tf_answer a;
    ls_tf_outcome r = ls_suggest_outer_reduction(d, root, pref, &a);
    if (r == LS_TF_NOT_OUTER)
        return LS_OK;
    const char *in = root->operand[a.input].value;
    if (r == LS_TF_DECLINES) {
        ls_suggest_step(s, "outer reduction (%s's first dim d%d is reduced), but with no parallel loop "
                "to distribute TileAndFuse declines it",
             in, a.dim);
        return LS_OK;
    }
    ls_suggest_step(s, "outer reduction: %s's first dim d%d is reduced, so setRootConfig gives it "
            "TileAndFuse before the reduction heuristic",
         in, a.dim);
    if (r == LS_TF_UNSIZED)
        return reject(diag, d->file, root, d,
                      "IREE picks TileAndFuse for this outer reduction (%s's first dim d%d is "
                      "reduced; setRootConfig, LLVMGPU/KernelConfig.cpp); lanescope cannot size "
                      "%s's element type to work out the config",
                      in, a.dim, a.bad);
    ls_suggest_step(s, "TileAndFuse: %lld threads; assumes no reshape or pack/unpack in the dispatch "
            "(lanescope imports neither; IREE would tile differently with them)",
         (long long)a.wg_size);
    keep_tile_and_fuse(s, &a, pref);
    return reject(diag, d->file, root, d,
                  "IREE picks TileAndFuse for this outer reduction (%s's first dim d%d is "
                  "reduced; setRootConfig, LLVMGPU/KernelConfig.cpp): %s %s",
                  in, a.dim, a.translation, a.config);
}

/* The reduction size (ReductionConfigUtils.cpp): the last reduction dim,
 * or all of them when it is not a multiple of the preferred subgroup
 * size; 2^31 when dynamic.  *dyn_red_out: some reduction dim is dynamic. */
static ls_status reduction_size(const ls_dispatch *d, const ls_dop *root, int64_t pref,
                                bool *dyn_red_out, ls_suggestion *s, ls_diag *diag)
{
    const char *file = d->file;
    int r = ls_suggest_last_reduction_dim(root);
    bool dyn_red = false;
    for (int i = 0; i < root->rank; i++)
        dyn_red |= root->is_reduction[i] && root->size[i] == LS_DYN;
    int64_t rsize = root->size[r];
    *dyn_red_out = dyn_red;
    if (rsize != LS_DYN && rsize % pref != 0) {
        int64_t prod = 1;
        for (int i = 0; i < root->rank; i++) {
            if (!root->is_reduction[i])
                continue;
            if (root->size[i] == LS_DYN || prod == LS_DYN)
                prod = LS_DYN;
            else if (!ls_mul_ok(prod, root->size[i], &prod))
                return ls_diag_set(diag, LS_ERR_LIMIT, file, root->line, root->col,
                                   "the reduction dims' sizes multiply past int64 (the "
                                   "heuristic's reduction size)");
        }
        ls_suggest_step(s, "reduction size: d%d = %lld is not a multiple of the preferred subgroup size "
                "%lld, so all reduction dims count: %lld",
             r, (long long)rsize, (long long)pref, (long long)prod);
        rsize = prod;
    } else if (rsize != LS_DYN) {
        ls_suggest_step(s, "reduction size: the last reduction dim d%d = %lld", r, (long long)rsize);
    }
    if (rsize == LS_DYN) {
        rsize = LS_SUGGEST_DYN_TARGET;
        ls_suggest_step(s, "reduction size: dynamic, sized for 2^31");
    }
    s->reduction_size = rsize;
    return LS_OK;
}

/* The subgroup size: the first choice, in list order, that divides the
 * reduction size (any, for a dynamic reduction). */
static ls_status subgroup_size(const ls_dispatch *d, const ls_dop *root, const ls_target *t,
                               bool dyn_red, ls_suggestion *s, ls_diag *diag)
{
    const char *file = d->file;
    int64_t rsize = s->reduction_size;
    int64_t sg = 0;
    for (int i = 0; i < t->n_subgroup_choices && sg == 0; i++)
        if (rsize % t->subgroup_choices[i] == 0 || dyn_red)
            sg = t->subgroup_choices[i];
    if (sg == 0) {
        char buf[96];
        ls_format_list(buf, sizeof buf, t->subgroup_choices, t->n_subgroup_choices);
        return reject(diag, file, root, d,
                      "no subgroup size choice of %s (%s) divides the reduction size %lld",
                      t->arch, buf, (long long)rsize);
    }
    s->subgroup_size = sg;
    ls_suggest_step(s, "subgroup size %lld: the first of the target's choices %s", (long long)sg,
         dyn_red ? "(the reduction is dynamic)" : "that divides it");
    return LS_OK;
}

/* The bitwidth of the largest operand and the thread loads (elements of
 * one largest load, halved until the reduction's vectors split evenly
 * over the subgroup). */
static ls_status thread_loads(const ls_dispatch *d, const ls_dop *root, const ls_target *t,
                              bool dyn_red, ls_suggestion *s, ls_diag *diag)
{
    const char *file = d->file;
    int64_t rsize = s->reduction_size, sg = s->subgroup_size;
    char which[120] = "";
    int64_t bw = bitwidth(d, root, which, sizeof which);
    if (bw == 0)
        return reject(diag, file, root, d, "no operand has an integer, float or index element");
    s->bitwidth = bw;
    if (!is_power_of_two(bw) || bw < 4)
        return reject(diag, file, root, d,
                      "the largest operand %s has %lld-bit elements; reduction distribution "
                      "needs a power of two of at least 4 bits",
                      which, (long long)bw);
    if (bw > 32 && !ls_suggest_is_amd(t))
        return reject(diag, file, root, d,
                      "the largest operand %s has %lld-bit elements; %s cannot shuffle more "
                      "than 32 bits (only AMD targets can)",
                      which, (long long)bw, t->arch);
    int64_t load_bits = t->max_load_instruction_bits > 0 ? t->max_load_instruction_bits : 128;
    if (bw > load_bits)
        return reject(diag, file, root, d,
                      "the largest operand %s has %lld-bit elements, wider than the %lld-bit "
                      "largest load",
                      which, (long long)bw, (long long)load_bits);
    ls_suggest_step(s, "bitwidth %lld, from the largest operand %s", (long long)bw, which);

    /* thread loads */
    int64_t tl = load_bits / bw;
    if (!dyn_red)
        while ((rsize / tl) % sg != 0)
            tl /= 2;
    /* A load wider than the reduction leaves no thread (IREE divides by the
     * 0 it gets); with at least one, TL x subgroup <= the reduction size
     * bounds every product below. */
    if (rsize / tl == 0)
        return ls_diag_set(diag, LS_ERR_LIMIT, file, root->line, root->col,
                           "thread loads %lld (%lld-bit loads / %lld bits) exceed the reduction "
                           "size %lld: the heuristic's workgroup size (reduction size / thread "
                           "loads) would be 0",
                           (long long)tl, (long long)load_bits, (long long)bw, (long long)rsize);
    s->thread_loads = tl;
    ls_suggest_step(s, "thread loads %lld: %lld-bit loads / %lld bits%s", (long long)tl,
         (long long)load_bits, (long long)bw,
         tl < load_bits / bw ? ", halved until reduction size / TL is a multiple of the subgroup"
                             : "");
    return LS_OK;
}

/* The workgroup size: reduction size / thread loads, capped by the
 * target's largest workgroup (one wave when the parallel elements
 * outnumber the SIMDs), halved while many rows have few vectors each. */
static ls_status workgroup_size(const ls_dispatch *d, const ls_dop *root, const ls_target *t,
                                int64_t pref, ls_suggestion *s, ls_diag *diag)
{
    const char *file = d->file;
    int64_t rsize = s->reduction_size, sg = s->subgroup_size, tl = s->thread_loads;
    int64_t par = 1;
    for (int i = 0; i < root->rank; i++) {
        if (root->is_reduction[i])
            continue;
        if (par == LS_DYN || root->size[i] == LS_DYN)
            par = LS_DYN;
        else if (!ls_mul_ok(par, root->size[i], &par))
            return ls_diag_set(diag, LS_ERR_LIMIT, file, root->line, root->col,
                               "the parallel dims' sizes multiply past int64 (the heuristic's "
                               "parallel size)");
    }
    s->parallel_size = par;
    int64_t max_wg = t->max_workgroup_sizes[0];
    for (int i = 1; i < 3; i++)
        if (t->max_workgroup_sizes[i] > max_wg)
            max_wg = t->max_workgroup_sizes[i];
    int64_t nwgp = t->wgp_count > 0 ? t->wgp_count : 512;
    int64_t nsimd = t->simds_per_wgp > 0 ? t->simds_per_wgp : 4, waves;
    if (!ls_mul_ok(nwgp, nsimd, &waves))
        waves = INT64_MAX; /* the target's counts are unbounded; only compared */
    if (par != LS_DYN && par > waves) {
        ls_suggest_step(s, "%lld parallel elements > %lld WGPs x %lld SIMDs%s: one wave per workgroup "
                "(cap %lld)",
             (long long)par, (long long)nwgp, (long long)nsimd,
             t->wgp_count > 0 ? "" : " (no chip: 512 assumed)", (long long)pref);
        max_wg = pref;
    } else {
        char pbuf[32];
        snprintf(pbuf, sizeof pbuf, par == LS_DYN ? "dynamic" : "%lld", (long long)par);
        ls_suggest_step(s, "workgroup cap %lld (max_workgroup_sizes; %s parallel elements, not above %lld "
                "WGPs x %lld SIMDs%s)",
             (long long)max_wg, pbuf, (long long)nwgp, (long long)nsimd,
             t->wgp_count > 0 ? "" : ", no chip: 512 assumed");
    }
    s->max_workgroup_size = max_wg;
    int64_t wg = rsize / tl;
    if (wg > max_wg) {
        int64_t g = ls_suggest_gcd(wg, max_wg);
        ls_suggest_step(s, "workgroup size: reduction size / TL = %lld > %lld, so gcd = %lld", (long long)wg,
             (long long)max_wg, (long long)g);
        wg = g;
    } else {
        ls_suggest_step(s, "workgroup size: reduction size / TL = %lld", (long long)wg);
    }
    int halvings = 0;
    int64_t p2 = par;
    while (p2 != LS_DYN && p2 > 256 && (wg / 2) % sg == 0 && rsize / (wg * tl) < 8) {
        wg /= 2;
        p2 /= 2;
        halvings++;
    }
    if (halvings)
        ls_suggest_step(s, "halved %d time%s to %lld: more than 256 parallel elements and fewer than 8 "
                "vectors per thread",
             halvings, halvings == 1 ? "" : "s", (long long)wg);
    s->workgroup_size = wg;
    return LS_OK;
}

static ls_status suggest_reduction(const ls_dispatch *d, const ls_target *t, ls_suggestion *s,
                                   ls_diag *diag)
{
    memset(s, 0, sizeof *s);
    s->root = -1;
    const char *file = d->file;
    if (t->n_subgroup_choices < 1)
        return ls_diag_set(diag, LS_ERR_INVALID, file, d->line, d->col,
                           "target %s lists no subgroup_size_choices", t->arch);

    /* Root: the last linalg op with a reduction loop (getRootOperation). */
    for (int i = d->n_ops; i-- > 0 && s->root < 0;)
        if (!d->ops[i].is_fill && ls_suggest_has_reduction(&d->ops[i]))
            s->root = i;
    if (s->root < 0)
        return reject(diag, file, NULL, d, "@%s has no linalg op with a reduction iterator",
                      d->func);
    const ls_dop *root = &d->ops[s->root];
    if (ls_dop_is_attention(root))
        return ls_suggest_attention(d, s->root, t, s, diag);
    ls_suggest_step(s, "root op: %s%s (the last linalg op with a reduction loop)", root->kind,
                    ls_dop_where_of(root).s);
    int64_t pref = ls_suggest_preferred_subgroup(t);
    if (root->is_contraction) {
        char why[240];
        if (!contraction_reaches_reduction(root, pref, why, sizeof why))
            return reject(diag, file, root, d, "%s", why);
        ls_suggest_step(s, "%s: no matmul config takes it, so it reaches the reduction heuristic",
                        why);
    }
    bool argcmp = ls_suggest_is_argcmp(root);
    /* setRootConfig's linalg-only rules (the outer reduction) do not see an
     * arg_compare; its VectorDistribute attempt needs a dispatch store, with
     * no snippet leniency: IREE's config_argcompare.mlir pins TileAndFuse for
     * plain functions. */
    if (!argcmp && outer_reduction(d, root, pref, s, diag))
        return diag->status;
    s->tf_candidate = !argcmp;
    if (argcmp && d->n_stores == 0)
        return reject(diag, file, root, d,
                      "@%s stores nothing (no iree_tensor_ext.dispatch.tensor.store or "
                      "iree_codegen.store_to_buffer), which checkDispatchForVectorDistribution "
                      "requires",
                      d->func);

    int compute[LS_DISPATCH_MAX_OPS], n_compute;
    if (gate(d, file, compute, &n_compute, s, diag))
        return diag->status;
    bool is_compute[LS_DISPATCH_MAX_OPS] = {false};
    for (int c = 0; c < n_compute; c++)
        is_compute[compute[c]] = true;
    if (!is_compute[s->root])
        return reject(diag, file, root, d, "the root %s feeds no store", root->kind);

    bool dyn_red;
    if (reduction_size(d, root, pref, &dyn_red, s, diag) ||
        subgroup_size(d, root, t, dyn_red, s, diag) || thread_loads(d, root, t, dyn_red, s, diag) ||
        workgroup_size(d, root, t, pref, s, diag))
        return diag->status;
    ls_suggest_populate(d, t, compute, n_compute, is_compute, s->workgroup_size, s->subgroup_size,
                        s->thread_loads, s);
    return LS_OK;
}

ls_status ls_suggest(const ls_dispatch *d, const ls_target *t, ls_suggestion *s, ls_diag *diag)
{
    ls_status st = suggest_reduction(d, t, s, diag);
    /* KernelConfig.cpp setRootConfig: an arg_compare that setReductionConfig
     * refuses goes to setArgCompareConfig (TileAndFuse). */
    if (st == LS_ERR_INVALID && s->root >= 0 && ls_suggest_is_argcmp(&d->ops[s->root]))
        return ls_suggest_argcmp_fallback(d, &d->ops[s->root], t, s, diag);
    if (st == LS_ERR_INVALID && s->root >= 0 && s->tf_candidate && !s->tile_and_fuse)
        return tile_and_fuse_fallback(d, t, s, diag);
    return st;
}

