/* grids_attention.c: an attention's pictures -- which dims a picture of
 * its K2 step shows by default, and the nested layouts IREE anchors on its
 * two matmuls (LLVMGPUConfigureTensorLayouts: the QK generic over the op's
 * loops less N, the PV generic over them less K1), one panel each.  The
 * ownership picture (ls_viz_layout) takes the engine's view of the kernel,
 * whose layout is both matmuls' at once (sim/attention_timing.c). */
#include <stdio.h>
#include <string.h>

#include "lanescope/attention.h"
#include "lanescope/viz.h"

void ls_viz_attention_dims(const ls_attention *a, bool pv, int *dr, int *dc)
{
    const ls_attention_dims *ad = &a->dims;
    if (ad->n_k2 == 0)
        return;
    *dr = ad->k2[0];
    if (ad->n_k2 > 1) /* a paged cache: its pages against a page's tokens */
        *dc = ad->k2[ad->n_k2 - 1];
    else if (pv && ad->n_n > 0)
        *dc = ad->n[ad->n_n - 1];
    else if (ad->n_k1 > 0)
        *dc = ad->k1[ad->n_k1 - 1];
}

/* The loop of matmul mm that is op dim d, or -1. */
static int matmul_loop(const ls_att_matmul *mm, int d)
{
    for (int i = 0; i < mm->rank; i++)
        if (mm->dim[i] == d)
            return i;
    return -1;
}

/* Panel g's caption and axes named by the op's loops, as explain names them. */
static void name_panel(ls_grid *g, const char *matmul, int dr, int dc)
{
    char cap[sizeof g->caption];
    snprintf(cap, sizeof cap, "%s matmul (loops d%d, d%d): %.80s", matmul, dr, dc, g->caption);
    snprintf(g->caption, sizeof g->caption, "%s", cap);
    snprintf(g->row_axis, sizeof g->row_axis, "d%d", dr);
    snprintf(g->col_axis, sizeof g->col_axis, "d%d", dc);
}

ls_status ls_viz_attention_nested(const ls_attention *a, int dim_row, int dim_col, int64_t thread,
                                  ls_figure *out, ls_diag *diag)
{
    const ls_att_matmul *mms[2] = {&a->qk, &a->pv};
    static const char *names[2] = {"QK", "PV"};
    memset(out, 0, sizeof *out);
    for (int q = 0; q < 2; q++) {
        const ls_att_matmul *mm = mms[q];
        int dr = dim_row, dc = dim_col;
        if (dim_row < 0 || dim_col < 0)
            ls_viz_attention_dims(a, q == 1, &dr, &dc);
        int r = matmul_loop(mm, dr), c = matmul_loop(mm, dc);
        if (r < 0 || c < 0) {
            ls_figure_free(out);
            return ls_diag_set(diag, LS_ERR_USAGE, "--dims", 0, 0,
                               "the %s matmul has no loop d%d (its loops are the op's less %s)",
                               names[q], r < 0 ? dr : dc, q == 0 ? "N" : "K1");
        }
        ls_figure one;
        ls_status st = ls_viz_nested(&mm->layout, names[q], r, c, thread, &one, diag);
        if (st) {
            ls_figure_free(out);
            return st;
        }
        name_panel(&one.panels[0], names[q], dr, dc);
        if (q == 0) { /* the QK figure is the picture; PV's panel joins it */
            *out = one;
            if (out->n_notes > 0) {
                char n0[sizeof out->notes[0]];
                snprintf(n0, sizeof n0, "QK: %.190s", out->notes[0]);
                snprintf(out->notes[0], sizeof out->notes[0], "%s", n0);
            }
            continue;
        }
        ls_figure_take_panels(out, &one);
        if (one.n_notes > 0 && out->n_notes < LS_FIGURE_MAX_NOTES)
            snprintf(out->notes[out->n_notes++], sizeof out->notes[0], "PV: %.190s",
                     one.notes[0]);
        ls_figure_free(&one);
    }
    out->stacked = true;
    snprintf(out->title, sizeof out->title, "nested layouts of %.180s, as IREE anchors them",
             a->name);
    snprintf(out->subtitle, sizeof out->subtitle,
             "the QK matmul's (qk_attrs) over the op's loops less N, the PV matmul's (pv_attrs) "
             "less K1; `lanescope explain` prints both layouts");
    return LS_OK;
}
