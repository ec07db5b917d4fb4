/* suggest_argcmp.c: IREE's TileAndFuse config for an arg_compare that the
 * reduction heuristic refuses: setArgCompareConfig in
 * Dialect/GPU/TargetUtils/ConfigUtils.cpp, reached from setRootConfig
 * (LLVMGPU/KernelConfig.cpp) when setReductionConfig fails.
 *
 * Two subgroups of threads; every parallel loop gets workgroup and thread
 * tile 1 and the reduced one 0; from the innermost loop outwards a bound
 * that divides the remaining thread count is taken whole, one that the
 * remainder divides gets the remainder and ends the packing; when the
 * packed tile fits one subgroup the workgroup shrinks to it.  With no
 * parallel loop a single thread walks the reduction.  Each thread then runs
 * the op's scalar loop (LowerArgCompareToVector.cpp), no lanes combined.
 */
#include <stdio.h>
#include <string.h>

#include "lanescope/attrs.h"
#include "suggest_internal.h"

ls_status ls_suggest_argcmp_fallback(const ls_dispatch *d, const ls_dop *root,
                                     const ls_target *t, ls_suggestion *s, ls_diag *diag)
{
    /* why the reduction heuristic refused it, without its own prefix */
    const char *prefix = "IREE's reduction heuristic rejects this dispatch: ";
    char why[sizeof diag->msg];
    const char *m = diag->msg;
    if (strncmp(m, prefix, strlen(prefix)) == 0)
        m += strlen(prefix);
    snprintf(why, sizeof why, "%s", m);
    ls_diag_clear(diag); /* the refusal becomes the fallback's message */
    int64_t sg = ls_suggest_preferred_subgroup(t);
    int n = root->rank;
    int64_t wg_tile[LS_MAX_RANK], th_tile[LS_MAX_RANK], wg = 2 * sg, wg_size[3] = {1, 1, 1};
    bool any_par = false;
    for (int l = 0; l < n; l++) {
        wg_tile[l] = th_tile[l] = root->is_reduction[l] ? 0 : 1;
        any_par |= !root->is_reduction[l];
    }
    if (any_par) {
        int64_t residual = wg, packed = 1;
        for (int l = n - 1; l >= 0; l--) {
            int64_t b = root->size[l];
            if (root->is_reduction[l] || b == LS_DYN)
                continue;
            if (residual % b == 0) {
                wg_tile[l] = b;
                residual /= b;
                continue;
            }
            if (b % residual == 0) {
                wg_tile[l] = residual;
                break;
            }
        }
        for (int l = 0; l < n; l++)
            if (!root->is_reduction[l] && wg_tile[l] > 0)
                packed *= wg_tile[l];
        wg_size[0] = packed <= sg ? sg : wg;
    }
    char ti[200], lc[300];
    snprintf(ti, sizeof ti,
             "#iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> "
             "workgroup_size = [%lld, %lld, %lld] subgroup_size = %lld>",
             (long long)wg_size[0], (long long)wg_size[1], (long long)wg_size[2], (long long)sg);
    size_t u = (size_t)snprintf(lc, sizeof lc, "#iree_gpu.lowering_config<{thread = ");
    u += ls_format_list(lc + u, sizeof lc - u, th_tile, n);
    u += (size_t)snprintf(lc + u, sizeof lc - u, ", workgroup = ");
    u += ls_format_list(lc + u, sizeof lc - u, wg_tile, n);
    snprintf(lc + u, sizeof lc - u, "}>");
    if (s->n_steps < LS_SUGGEST_MAX_STEPS)
        snprintf(s->steps[s->n_steps++], sizeof s->steps[0],
                 "setReductionConfig refuses the arg_compare, so setArgCompareConfig gives it "
                 "TileAndFuse: %lld threads, one thread per parallel element walking the "
                 "reduction",
                 (long long)(wg_size[0] * wg_size[1] * wg_size[2]));
    s->n_configs = 0;
    s->tile_and_fuse = true;
    s->subgroup_size = sg;
    for (int l = 0; l < n; l++) {
        s->tf_workgroup[l] = wg_tile[l];
        s->tf_thread[l] = th_tile[l];
    }
    memcpy(s->tf_workgroup_size, wg_size, sizeof wg_size);
    return ls_diag_set(diag, LS_ERR_INVALID, d->file, root->line, root->col,
                       "IREE's reduction heuristic rejects this dispatch: IREE picks TileAndFuse "
                       "for this arg_compare (setArgCompareConfig, "
                       "Dialect/GPU/TargetUtils/ConfigUtils.cpp): %s %s; the reduction "
                       "heuristic's reason: %s",
                       ti, lc, why);
}

void ls_suggest_apply_tile_and_fuse(const ls_suggestion *s, ls_problem *p)
{
    ls_lowering_config *c = &p->config;
    memset(c, 0, sizeof *c);
    c->workgroup.present = c->thread.present = true;
    c->workgroup.n = c->thread.n = c->reduction.n = p->rank;
    for (int l = 0; l < p->rank; l++) {
        c->workgroup.v[l] = s->tf_workgroup[l];
        c->thread.v[l] = s->tf_thread[l];
        c->reduction.v[l] = s->tf_reduction[l];
        c->reduction.present |= s->tf_reduction[l] != 0;
    }
    c->line = p->line;
    c->col = p->col;
    p->has_config = true;
    ls_translation_set(&p->ti, s->tf_workgroup_size[0], s->subgroup_size, p->line, p->col);
    snprintf(p->ti.pipeline, sizeof p->ti.pipeline, "TileAndFuse");
    p->has_ti = true;
}
