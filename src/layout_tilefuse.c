/* layout_tilefuse.c: a reduction on IREE's TileAndFuse pipeline, seen by
 * the VectorDistribute machinery.
 *
 * TileAndFuse (LLVMGPUTileAndFuse, Dialect/GPU/TargetUtils/ConfigUtils.cpp)
 * tiles the parallel loops by `workgroup`, gives every thread its `thread`
 * tile of them, and leaves the reduction to each thread alone: an scf.for
 * over the `reduction` tile (the whole reduction when it is 0), no lane or
 * subgroup combine.  Threads take the workgroup tile row-major, the
 * innermost dim fastest.  In lanescope's terms: lanes (then subgroups, once
 * a subgroup is full) laid over the parallel tile innermost first, each
 * lane's element tile its thread tile, one lane on every reduced dim.
 *
 * An arg_compare (setArgCompareConfig) has one parallel element per thread
 * and no reduction tile; LowerArgCompareToVector has each thread walk the
 * whole reduction from the inits, comparing and selecting one element at a
 * time (docs/arg-compare-lowering.md §1.5, §3.7).  Up to LS_TF_MAX_WALK
 * elements the thread reads its whole slice first (IREE's transfer_read of
 * the slice before the loop, in loads of up to 128 bits) and the merge's
 * local step is the loop: the inits, then every element in order.  Longer
 * reductions are walked one element per iteration (a chunk of 1), each
 * iteration's slot folding into the one before; chunks of several elements
 * would merge slot by slot, not in order, and change which tie wins.  The
 * partial step folds the inits in once more, which changes nothing: a slot
 * only leaves the inits for a value that beats them.
 *
 * Any other reduction (the outer reductions and other linalg reductions
 * setRootConfig sends to setTileAndFuseLoweringConfig) walks its
 * `reduction` tile per iteration: the view's partial-reduction chunk is that
 * tile, read as one vector along the input's contiguous dim (separate rows
 * otherwise), accumulated elementwise and reduced once after the loop.  A
 * thread's contiguous run is one load instruction here, as IREE's
 * transfer_read of it is one op; the hardware splits it into 128-bit
 * pieces, so the model under-counts issue slots, not bytes.
 * IREE reduces each iteration's tile into the carried accumulator instead:
 * the same additions per element, summed in another order, which the check's
 * rounding bound covers.  A workgroup smaller than a subgroup (the
 * one-thread config of a reduction to a scalar) still occupies one subgroup
 * of the machine, so the view has one.
 */
#include <stdio.h>
#include <string.h>

#include "lanescope/layout.h"
#include "lanescope/suggest.h"

enum { LS_TF_MAX_WALK = 1024 };

bool ls_is_tile_and_fuse(const ls_problem *p)
{
    return p->has_ti && strcmp(p->ti.pipeline, "TileAndFuse") == 0;
}

/* The input-0 dim that is contiguous in memory: its map's last result. */
static int contiguous_dim(const ls_problem *p)
{
    const ls_operand *o = &p->inputs[0];
    return o->map_n > 0 ? o->map[o->map_n - 1] : -1;
}

ls_status ls_tile_and_fuse_view(const ls_problem *p, ls_problem *q, ls_diag *diag)
{
    const ls_lowering_config *c = &p->config;
    int n = p->rank;
    *q = *p;
    if (!p->has_config)
        return ls_diag_set(diag, LS_ERR_NOTFOUND, p->file, p->line, p->col,
                           "%s has no lowering_config (pass one with --config)", p->name);
    bool argcmp = p->argcmp.on;
    if (c->partial_reduction.present || (argcmp && c->reduction.present) ||
        c->lane_basis.present || c->subgroup_basis.present || c->promote_operands.present ||
        c->n_ignored)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, c->line, c->col,
                           "a TileAndFuse %s's lowering_config has workgroup, thread%s tiles "
                           "only (%s); lanescope does not lower the other keys on this pipeline",
                           argcmp ? "arg_compare" : "reduction", argcmp ? "" : " and reduction",
                           argcmp ? "setArgCompareConfig" : "setTileAndFuseLoweringConfig");
    int64_t sg = p->ti.has_subgroup_size ? p->ti.subgroup_size : 0;
    if (sg < 1)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->ti.line, p->ti.col,
                           "a TileAndFuse translation_info without a subgroup_size");
    int64_t wg = 1;
    for (int i = 0; i < p->ti.wg_rank; i++)
        if (!ls_mul_ok(wg, p->ti.workgroup_size[i], &wg))
            return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->ti.line, p->ti.col,
                               "a TileAndFuse workgroup_size whose product overflows int64");
    int64_t lanes[LS_MAX_RANK], sgs[LS_MAX_RANK], elem[LS_MAX_RANK], part[LS_MAX_RANK];
    int64_t used = 1, room = sg;
    for (int i = n - 1; i >= 0; i--) {
        int64_t t = c->thread.present && i < c->thread.n ? c->thread.v[i] : 0;
        int64_t w = c->workgroup.present && i < c->workgroup.n ? c->workgroup.v[i] : 0;
        lanes[i] = sgs[i] = 1;
        part[i] = 0;
        elem[i] = 0;
        if (p->is_reduction[i]) {
            if (t != 0 || w != 0)
                return ls_diag_set(diag, LS_ERR_INVALID, p->file, c->line, c->col,
                                   "thread[%d] = %lld / workgroup[%d] = %lld tile the reduced "
                                   "dimension d%d of a TileAndFuse %s; each thread walks it "
                                   "alone (0)",
                                   i, (long long)t, i, (long long)w, i,
                                   argcmp ? "arg_compare" : "reduction");
            int64_t nred = p->size[i];
            if (argcmp) {
                int64_t e = 128 / ls_elem_type_bits(p->inputs[0].type);
                while (e > 1 && nred % e != 0)
                    e /= 2;
                part[i] = nred <= LS_TF_MAX_WALK ? nred : 1;
                elem[i] = nred <= LS_TF_MAX_WALK ? e : 0;
            } else {
                int64_t r = c->reduction.present && i < c->reduction.n ? c->reduction.v[i] : 0;
                part[i] = r ? r : nred;
                elem[i] = i == contiguous_dim(p) ? part[i] : 1;
            }
            continue;
        }
        if (argcmp && t > 1)
            return ls_diag_set(diag, LS_ERR_INVALID, p->file, c->line, c->col,
                               "thread[%d] = %lld: lanescope simulates one parallel element per "
                               "thread of a TileAndFuse arg_compare (setArgCompareConfig's 1)",
                               i, (long long)t);
        if (w == 0)
            w = p->size[i];
        /* a thread's elements along d_i (0: the whole workgroup tile) */
        int64_t per = t > 0 ? t : w;
        if (w % per != 0)
            return ls_diag_set(diag, LS_ERR_INVALID, p->file, c->line, c->col,
                               "thread[%d] = %lld does not divide workgroup[%d] = %lld", i,
                               (long long)per, i, (long long)w);
        elem[i] = argcmp ? 0 : per;
        w /= per;
        /* threads along d_i: fill the subgroup's lanes, then subgroups */
        int64_t l = w <= room ? w : room;
        if (w % l != 0 || (l < w && room != l))
            return ls_diag_set(diag, LS_ERR_INVALID, p->file, c->line, c->col,
                               "workgroup[%d] = %lld does not split into whole subgroups of %lld "
                               "lanes; lanescope cannot lay the TileAndFuse tile on lanes",
                               i, (long long)w, (long long)sg);
        lanes[i] = l;
        sgs[i] = w / l;
        room /= l;
        /* w is a workgroup tile (up to int64) over a thread tile */
        if (!ls_mul_ok(used, w, &used))
            return ls_diag_set(diag, LS_ERR_LIMIT, p->file, c->line, c->col,
                               "the TileAndFuse workgroup tile's thread count overflows int64");
    }
    if (used > wg && wg >= sg)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->ti.line, p->ti.col,
                           "the workgroup tile holds %lld elements but the workgroup %lld "
                           "threads; TileAndFuse gives each thread one",
                           (long long)used, (long long)wg);
    int64_t wgt[LS_MAX_RANK];
    for (int i = 0; i < n; i++)
        wgt[i] = c->workgroup.present && i < c->workgroup.n ? c->workgroup.v[i] : 0;
    ls_config_set(&q->config, n, wgt, part, elem, lanes, sgs, c->line, c->col);
    ls_translation_set(&q->ti, wg < sg ? sg : wg, sg, p->ti.line, p->ti.col);
    q->tf_view = true;
    return LS_OK;
}
