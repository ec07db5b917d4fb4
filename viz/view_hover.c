/* view_hover.c: what the mouse is over.  The pixel goes back through the
 * same frame transform the renderer used (ls_view_frame_of) onto the same
 * picture the panel builder made, and the answer comes from the layout
 * code: a tile element's owners from ls_owner_of (what `lanescope explain`
 * reports), a lane's register from the stepper's snapshot, a buffer
 * element's bank from the hardware model.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view_internal.h"

/* Point coordinates of the hover pixel in a picture of size w x h. */
static void to_points(const ls_view *v, double w, double h, double *x, double *y)
{
    ls_view_frame f;
    ls_view_frame_of(v, w, h, &f);
    *x = (v->hover_px - f.ox) / f.scale;
    *y = (v->hover_py - f.oy) / f.scale;
}

static bool in_area(const ls_view *v)
{
    ls_view_frame f;
    ls_view_frame_of(v, 1, 1, &f);
    return v->hover_px >= f.ax && v->hover_px < f.ax + f.aw && v->hover_py >= f.ay &&
           v->hover_py < f.ay + f.ah;
}

/* Cell (row, col) of panel k under point (x, y); false when none. */
static bool cell_at(const ls_figure *fig, int k, double x, double y, int *row, int *col)
{
    if (k >= fig->n_panels)
        return false;
    double x0, y0, cw, ch;
    ls_figure_cell_rect(fig, k, 0, 0, &x0, &y0, &cw, &ch);
    double c = floor((x - x0) / cw), r = floor((y - y0) / ch);
    if (c < 0 || r < 0 || c >= fig->panels[k].cols || r >= fig->panels[k].rows)
        return false;
    *row = (int)r;
    *col = (int)c;
    return true;
}

/* The tile showing input k: the element under the mouse and its readers
 * (the lowest one as the owner, as the picture names it). */
static void hover_operand(const ls_view *v, const ls_view_tile *t, const ls_figure *fig, double x,
                          double y, ls_view_hover *h)
{
    int r, c;
    ls_layout_view lv;
    ls_view_layout_view(v, t->iteration, &lv);
    int64_t oc[LS_MAX_RANK] = {0}, readers, first, vreg;
    int rank;
    if (!cell_at(fig, 0, x, y, &r, &c) ||
        !ls_viz_operand_cell(v->plan, t->operand, &lv, r, c, oc, &rank, &readers, &first, &vreg))
        return;
    const ls_operand *o = &v->p->inputs[t->operand];
    h->valid = true;
    h->rank = rank;
    memcpy(h->x, oc, sizeof h->x);
    h->tid = first;
    h->subgroup = first / v->d->subgroup_size;
    h->lane = first % v->d->subgroup_size;
    h->n_owners = readers;
    h->reg = vreg;
    char at[128];
    ls_format_list(at, sizeof at, oc, rank);
    snprintf(h->text, sizeof h->text,
             "input %d %s%s (iteration %lld): read by %lld thread%s, the lowest T%lld = subgroup "
             "%lld, lane %lld, element %lld of its vector",
             t->operand, o->name, at, (long long)t->iteration, (long long)readers,
             readers == 1 ? "" : "s", (long long)first, (long long)h->subgroup,
             (long long)h->lane, (long long)vreg);
}

static void hover_tile(ls_view *v, ls_view_hover *h)
{
    ls_figure fig;
    ls_view_tile t;
    ls_diag diag;
    ls_diag_clear(&diag);
    if (ls_view_tile_build(v, &fig, &t, &diag)) {
        ls_figure_free(&fig);
        return;
    }
    double w, hh, x, y;
    int r, c;
    ls_figure_size(&fig, &w, &hh);
    to_points(v, w, hh, &x, &y);
    ls_ownership own;
    if (t.operand >= 0) {
        hover_operand(v, &t, &fig, x, y, h);
        ls_figure_free(&fig);
        return;
    }
    if (cell_at(&fig, 0, x, y, &r, &c) && ls_view_tile_element(v, &t, r, c, h->x) &&
        ls_owner_of(v->d, v->p, h->x, &own, &diag) == LS_OK && own.n_listed > 0) {
        h->valid = true;
        h->rank = v->p->rank;
        h->tid = own.owners[0].tid;
        h->subgroup = own.owners[0].subgroup;
        h->lane = own.owners[0].lane;
        h->n_owners = own.n_owners;
        h->reg = own.reg;
        if (v->att) /* an attention's values: the lanes panel's */
            snprintf(h->value, sizeof h->value, "(lanes panel)");
        else
            ls_view_value_text(v, ls_problem_element(v->p, v->in, h->x), h->value,
                               sizeof h->value);
        char at[128];
        ls_format_list(at, sizeof at, h->x, h->rank);
        size_t n = (size_t)snprintf(h->text, sizeof h->text,
                                    "element %s (iteration %lld): thread T%lld = subgroup %lld, "
                                    "lane %lld, register V%lld; value %s",
                                    at, (long long)t.iteration, (long long)h->tid,
                                    (long long)h->subgroup, (long long)h->lane,
                                    (long long)h->reg, h->value);
        if (own.n_owners > 1 && n < sizeof h->text)
            n += (size_t)snprintf(h->text + n, sizeof h->text - n,
                                  "; held by %lld threads (duplication)",
                                  (long long)own.n_owners);
        /* a cell standing for several elements: all their values */
        enum { LIST = 8 };
        ls_value vals[LIST];
        int64_t cnt = ls_view_cell_values(v, &t, r, c, vals, LIST);
        for (int64_t i = 0; cnt > 1 && i < cnt && i < LIST && n < sizeof h->text; i++) {
            char one[48];
            ls_view_value_text(v, vals[i], one, sizeof one);
            n += (size_t)snprintf(h->text + n, sizeof h->text - n, "%s%s",
                                  i == 0 ? "; the cell's values: " : " ", one);
        }
        if (cnt > LIST && n < sizeof h->text)
            snprintf(h->text + n, sizeof h->text - n, " ... (%lld in all)", (long long)cnt);
    }
    ls_figure_free(&fig);
}

static void hover_lanes(ls_view *v, ls_view_hover *h)
{
    ls_view_lanes l;
    ls_diag diag;
    ls_diag_clear(&diag);
    if (ls_view_lanes_build(v, &l, &diag)) {
        ls_view_lanes_fini(&l);
        return;
    }
    double w, hh, x, y;
    int64_t lane, row;
    ls_view_lanes_size(&l, &w, &hh);
    to_points(v, w, hh, &x, &y);
    if (ls_view_lanes_hit(&l, x, y, &lane, &row)) {
        h->valid = true;
        h->lane = lane;
        h->subgroup = l.subgroup;
        h->tid = l.subgroup * l.lanes + lane;
        h->reg = row;
        snprintf(h->value, sizeof h->value, "%s", l.text[row * l.lanes + lane]);
        size_t n = (size_t)snprintf(h->text, sizeof h->text,
                                    "lane %lld of subgroup %d (thread T%lld), %s %lld = %s",
                                    (long long)lane, l.subgroup, (long long)h->tid,
                                    l.accumulators ? "accumulator" : "result slot",
                                    (long long)row, h->value);
        for (int64_t i = 0; i < l.n_arcs && n < sizeof h->text; i++)
            if (l.arcs[i].dst == lane)
                n += (size_t)snprintf(h->text + n, sizeof h->text - n,
                                      "; combines lane %lld's value", (long long)l.arcs[i].src);
        if ((l.flags[lane] & LS_LANE_DUP) && n < sizeof h->text)
            snprintf(h->text + n, sizeof h->text - n, "; a duplicate of lane %lld",
                     (long long)(lane % v->d->layout_lanes));
    }
    ls_view_lanes_fini(&l);
}

static void hover_smem(ls_view *v, ls_view_hover *h)
{
    ls_figure fig;
    ls_chart chart;
    ls_diag diag;
    ls_diag_clear(&diag);
    if (ls_view_panel_build(v, LS_VIEW_SMEM, &fig, &chart, &diag) || fig.n_panels < 2) {
        ls_figure_free(&fig);
        return;
    }
    double w, hh, x, y;
    int r, c;
    ls_figure_size(&fig, &w, &hh);
    to_points(v, w, hh, &x, &y);
    const ls_plan *pl = v->plan;
    int64_t banks = v->hw->smem_banks, bank_bytes = v->hw->smem_bank_bytes;
    if (cell_at(&fig, 0, x, y, &r, &c)) { /* the access table: column = bank */
        h->valid = true;
        h->bank = c;
        snprintf(h->text, sizeof h->text, "bank %d, %s: %s %s", c, fig.panels[0].row_head[r],
                 fig.panels[0].cells[r * fig.panels[0].cols + c].label[0],
                 fig.panels[0].cells[r * fig.panels[0].cols + c].label[1]);
    } else if (cell_at(&fig, 1, x, y, &r, &c)) { /* the buffer */
        int64_t cols = pl->buffer_shape[pl->buffer_rank - 1];
        int64_t i = r * cols + c;
        h->valid = true;
        h->bank = (i * pl->acc_elem_bytes / bank_bytes) % banks;
        snprintf(h->value, sizeof h->value, "%s",
                 fig.panels[1].cells[r * fig.panels[1].cols + c].label[1]);
        snprintf(h->text, sizeof h->text,
                 "buffer element %lld (row %d, column %d), byte %lld: bank %lld; value %s",
                 (long long)i, r, c, (long long)(i * pl->acc_elem_bytes), (long long)h->bank,
                 h->value);
    }
    ls_figure_free(&fig);
}

void ls_view_hover_update(ls_view *v)
{
    ls_view_hover *h = &v->hover;
    memset(h, 0, sizeof *h);
    h->tid = h->subgroup = h->lane = h->reg = h->bank = -1;
    h->panel = v->panel;
    if (!v->hover_on || !in_area(v))
        return;
    switch (v->panel) {
    case LS_VIEW_TILE: hover_tile(v, h); break;
    case LS_VIEW_LANES: hover_lanes(v, h); break;
    case LS_VIEW_SMEM: hover_smem(v, h); break;
    default: break;
    }
}
