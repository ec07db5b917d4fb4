/* grids.c: builders for the cell-grid pictures -- who owns which element of
 * a workgroup tile (layout), of a nested layout's vector (nested), where a
 * swizzle moves each access block (swizzle); which lanes land in which
 * shared-memory bank is grids_banks.c.  Every answer comes from the layout, swizzle
 * and plan code the simulator runs; this file only arranges it in cells. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/viz.h"

#include "grids_internal.h"

/* ------------------------------------------------------------ layout */

void ls_grid_config_subtitle(const ls_problem *p, char *buf, size_t size)
{
    if (p->att_view) /* its configs are the op's and qk_attrs / pv_attrs: explain prints them */
        snprintf(buf, size,
                 "each loop laid out as the matmul that has it lays it out (qk_attrs, pv_attrs); "
                 "the K2 loop's step is an iteration; `lanescope explain` prints the configs");
    else if (p->has_config)
        ls_lowering_config_format(&p->config, buf, size);
}

/* What ls_viz_layout's cells share: the view, the tile, its dims drawn,
 * and how many elements one cell aggregates (kr x kc, sampled sr x sc). */
typedef struct {
    const ls_problem *p;
    const ls_derived *d;
    const ls_layout_view *v;
    ls_grid *g;
    int cols, dr, dc;
    int64_t ext[LS_MAX_RANK], origin[LS_MAX_RANK];
    int64_t kr, kc, sr, sc;
    bool any_pad, any_dup; /* out: some cell holds padding, some element two threads */
} layout_cells;

/* Cell (r, c): its elements' owners sampled, then its colour (the
 * thread's, or a range's), labels and highlight. */
static void layout_cell(layout_cells *lc, int r, int c)
{
    ls_cell *cell = &lc->g->cells[r * lc->cols + c];
    const ls_problem *p = lc->p;
    const ls_layout_view *v = lc->v;
    const int64_t *ext = lc->ext, *origin = lc->origin;
    int rank = p->rank, dr = lc->dr, dc = lc->dc;
    int64_t kr = lc->kr, kc = lc->kc, sr = lc->sr, sc = lc->sc;
    int64_t tmin = INT64_MAX, tmax = -1, first_tid = -1, first_sg = -1, first_lane = 0;
    int64_t rmin = INT64_MAX, rmax = -1;
    bool mixed_tid = false, mixed_sg = false, pad = false, hit = false, valid = false;
    int64_t dup_tids[LS_MAX_OWNERS], dup_listed = 0, dup_total = 0;
    for (int64_t a = 0; a < sr; a++)
        for (int64_t b = 0; b < sc; b++) {
            int64_t er = r * kr + (sr == kr ? a : a * kr / sr);
            int64_t ec = c * kc + (sc == kc ? b : b * kc / sc);
            if (er >= ext[dr] || ec >= ext[dc])
                continue;
            int64_t x[LS_MAX_RANK];
            for (int i = 0; i < rank; i++)
                x[i] = origin[i] + v->at[i];
            x[dr] = origin[dr] + er;
            x[dc] = origin[dc] + ec;
            bool outside = false;
            for (int i = 0; i < rank; i++)
                outside |= x[i] >= p->size[i];
            if (outside) {
                pad = true;
                continue;
            }
            ls_ownership own;
            ls_diag od;
            ls_diag_clear(&od);
            if (ls_owner_of(lc->d, p, x, &own, &od) || own.n_listed == 0) {
                pad = true;
                continue;
            }
            valid = true;
            const ls_owner *o0 = &own.owners[0];
            if (first_tid < 0) {
                first_tid = o0->tid;
                first_sg = o0->subgroup;
                first_lane = o0->lane;
                dup_total = own.n_owners;
                dup_listed = own.n_listed;
                for (int k = 0; k < own.n_listed; k++)
                    dup_tids[k] = own.owners[k].tid;
            }
            mixed_tid |= o0->tid != first_tid;
            mixed_sg |= o0->subgroup != first_sg;
            if (o0->tid < tmin)
                tmin = o0->tid;
            if (o0->tid > tmax)
                tmax = o0->tid;
            if (own.reg < rmin)
                rmin = own.reg;
            if (own.reg > rmax)
                rmax = own.reg;
            for (int k = 0; k < own.n_listed; k++)
                hit |= own.owners[k].tid == v->thread;
        }
    if (!valid) {
        cell->flags = LS_CELL_EMPTY;
        copy_str(cell->label[0], LS_CELL_LABEL, "pad");
        cell->block = -2;
        lc->any_pad = true;
        return;
    }
    lc->any_pad |= pad;
    lc->any_dup |= dup_total > 1;
    cell->group = mixed_sg ? -1 : (int32_t)first_sg;
    if (!mixed_tid) {
        cell->fill = ls_viz_thread_colour(first_sg, first_lane);
        cell->flags |= ls_viz_subgroup_marks(first_sg);
        cell->block = (int32_t)first_tid;
        owners_label(cell->label[0], LS_CELL_LABEL, dup_tids, dup_listed, dup_total);
        if (rmin == rmax)
            fmt(cell->label[1], LS_CELL_LABEL, "S%lld V%lld", (long long)first_sg, (long long)rmin);
        else
            fmt(cell->label[1], LS_CELL_LABEL, "V%lld-%lld", (long long)rmin, (long long)rmax);
    } else {
        cell->fill = mixed_sg ? (ls_rgb){0.8, 0.8, 0.8} : ls_viz_thread_colour(first_sg, 5);
        if (!mixed_sg)
            cell->flags |= ls_viz_subgroup_marks(first_sg);
        cell->block = -3 - (r * lc->cols + c); /* its own block: borders all round */
        fmt(cell->label[0], LS_CELL_LABEL, "T%lld-%lld", (long long)tmin, (long long)tmax);
        copy_str(cell->label[1], LS_CELL_LABEL, mixed_sg ? "mixed" : "");
    }
    if (v->thread >= 0)
        cell->flags |= hit ? LS_CELL_HIGHLIGHT : LS_CELL_DIM;
}

/* The view's workgroup, iteration, thread and fixed coordinates (--at,
 * of the dims other than dr and dc) within the kernel and the tile of
 * extents ext. */
static ls_status check_view(const ls_problem *p, const ls_derived *d, const ls_layout_view *v,
                            const int64_t *ext, int dr, int dc, ls_diag *diag)
{
    int rank = p->rank;
    if (v->workgroup < 0 || v->workgroup >= d->total_workgroups)
        return ls_diag_set(diag, LS_ERR_USAGE, "--workgroup", 0, 0,
                           "workgroup %lld is outside 0..%lld", (long long)v->workgroup,
                           (long long)d->total_workgroups - 1);
    if (v->iteration < 0 || v->iteration >= d->total_iterations)
        return ls_diag_set(diag, LS_ERR_USAGE, "--iteration", 0, 0,
                           "iteration %lld is outside 0..%lld", (long long)v->iteration,
                           (long long)d->total_iterations - 1);
    if (v->thread >= d->workgroup_size)
        return ls_diag_set(diag, LS_ERR_USAGE, "--thread", 0, 0,
                           "thread %lld is outside 0..%lld (workgroup size)", (long long)v->thread,
                           (long long)d->workgroup_size - 1);
    for (int i = 0; i < rank; i++)
        if (i != dr && i != dc && (v->at[i] < 0 || v->at[i] >= ext[i]))
            return ls_diag_set(diag, LS_ERR_USAGE, "--at", 0, 0,
                               "d%d = %lld is outside the tile's 0..%lld", i, (long long)v->at[i],
                               (long long)ext[i] - 1);
    return LS_OK;
}

/* The notes under the layout: what the labels mean, duplicated owners,
 * aggregated cells, the other dims' fixed coordinates. */
static void layout_notes(ls_figure *out, const ls_problem *p, const ls_derived *d,
                         const layout_cells *lc, bool sampled)
{
    int rank = p->rank, dr = lc->dr, dc = lc->dc;
    int64_t kr = lc->kr, kc = lc->kc;
    const int64_t *ext = lc->ext, *origin = lc->origin;
    const ls_layout_view *v = lc->v;
    char note[200];
    fmt(note, sizeof note,
        "T#: thread in the workgroup, S#: subgroup, V#: register index in the thread's "
        "vector.  Workgroup %lld threads = %lld subgroups x %lld.",
        (long long)d->workgroup_size, (long long)d->num_subgroups, (long long)d->subgroup_size);
    note_add(out, note);
    if (lc->any_dup) {
        fmt(note, sizeof note,
            "Each element is held by %lld threads (lane duplication %lld, subgroup %lld): "
            "T0|T16 lists them.",
            (long long)(d->lane_dup * d->subgroup_dup), (long long)d->lane_dup,
            (long long)d->subgroup_dup);
        note_add(out, note);
    }
    if (kr > 1 || kc > 1) {
        fmt(note, sizeof note,
            "Aggregated: the tile is %lld x %lld elements; each cell covers %lld x %lld "
            "of them%s.",
            (long long)ext[dr], (long long)ext[dc], (long long)kr, (long long)kc,
            sampled ? " (owners sampled at 16 points per axis)" : "");
        note_add(out, note);
    }
    if (rank > 2) {
        char o[160] = "";
        size_t len = 0;
        for (int i = 0; i < rank; i++)
            if (i != dr && i != dc && len + 1 < sizeof o) {
                fmt(o + len, sizeof o - len, "%sd%d = %lld", len ? ", " : "", i,
                    (long long)(origin[i] + v->at[i]));
                len = strlen(o);
            }
        fmt(note, sizeof note, "Other dims fixed at %s (--at).", o);
        note_add(out, note);
    }
}

ls_status ls_viz_layout(const ls_problem *p, const ls_derived *d, const ls_layout_view *v,
                        ls_figure *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    int rank = p->rank;
    int64_t ext[LS_MAX_RANK];
    for (int i = 0; i < rank; i++)
        ext[i] = tile_extent(p, d, i);
    int dr = v->dim_row, dc = v->dim_col;
    /* A full reduction of one dim (rank 1, a scalar result) has no second dim:
     * it is drawn as one row, through a phantom dim 1 of extent 1 that the
     * ownership queries never read (they look at the first rank dims). */
    bool one_row = rank == 1 && dr < 0 && dc < 0;
    if (one_row) {
        dr = 1;
        dc = 0;
        ext[1] = 1;
    } else {
        if (dr < 0 || dc < 0)
            choose_dims(rank, ext, &dr, &dc);
        if (check_dims(rank, dr, dc, diag))
            return diag->status;
    }
    if (check_view(p, d, v, ext, dr, dc, diag))
        return diag->status;
    int64_t wgc[LS_MAX_RANK], itc[LS_MAX_RANK], origin[LS_MAX_RANK];
    ls_workgroup_coord(d, v->workgroup, wgc);
    ls_iteration_coord(d, p, v->iteration, itc);
    ls_tile_origin(d, p, wgc, itc, origin);
    if (one_row)
        origin[1] = 0;

    int64_t kr = ceil_div(ext[dr], LS_VIZ_MAX_AXIS_CELLS);
    int64_t kc = ceil_div(ext[dc], LS_VIZ_MAX_AXIS_CELLS);
    int rows = (int)ceil_div(ext[dr], kr), cols = (int)ceil_div(ext[dc], kc);
    /* owners of every element of an aggregated cell, up to 16 per axis */
    int64_t sr = kr > 16 ? 16 : kr, sc = kc > 16 ? 16 : kc;
    bool sampled = sr < kr || sc < kc;
    ls_grid *g = ls_figure_add_panel(out, rows, cols);
    {
        char o[128];
        ls_format_list(o, sizeof o, origin, rank);
        fmt(g->caption, sizeof g->caption,
                 "workgroup %lld, iteration %lld of %lld: tile origin %s",
                 (long long)v->workgroup, (long long)v->iteration,
                 (long long)d->total_iterations, o);
    }
    if (one_row)
        g->row_axis[0] = 0;
    else
        fmt(g->row_axis, sizeof g->row_axis, "d%d%s", dr,
            p->is_reduction[dr] ? " (red)" : "");
    fmt(g->col_axis, sizeof g->col_axis, "d%d%s", dc, p->is_reduction[dc] ? " (red)" : "");
    axis_heads(g->row_head, rows, origin[dr], kr, ext[dr]);
    axis_heads(g->col_head, cols, origin[dc], kc, ext[dc]);
    set_groups(g, d->num_subgroups, "S");
    if (kr > 1 || kc > 1)
        g->cell_w = 46;
    layout_cells lc = {.p = p,
                       .d = d,
                       .v = v,
                       .g = g,
                       .cols = cols,
                       .dr = dr,
                       .dc = dc,
                       .kr = kr,
                       .kc = kc,
                       .sr = sr,
                       .sc = sc};
    memcpy(lc.ext, ext, sizeof lc.ext);
    memcpy(lc.origin, origin, sizeof lc.origin);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            layout_cell(&lc, r, c);
    bool any_pad = lc.any_pad;
    fmt(out->title, sizeof out->title, "layout of %s (%s)", p->name,
             p->att_view          ? "its QK and PV matmuls' layouts together"
             : d->sizes_assumed ? "sizes derived"
                                : "IREE's lowering config");
    ls_grid_config_subtitle(p, out->subtitle, sizeof out->subtitle);
    ls_grid_subgroup_legend(out, d->num_subgroups, d->subgroup_size);
    if (any_pad)
        legend_add(out, (ls_rgb){0.9, 0.9, 0.9}, LS_CELL_EMPTY,
                   "padding (outside the problem: identity)");
    if (v->thread >= 0) {
        char t[64];
        fmt(t, sizeof t, "thread %lld's elements", (long long)v->thread);
        legend_add(out, (ls_rgb){1, 1, 1}, LS_CELL_HIGHLIGHT, t);
    }
    layout_notes(out, p, d, &lc, sampled);
    return LS_OK;
}

/* ------------------------------------------------------------ nested */

/* One cell of a nested layout's grid: the element at idx, its holders
 * among the lanes (vt_of: each lane's virtual thread), its subgroup and
 * register; true when several lanes hold it. */
static bool nested_cell(const ls_nested_layout *l, const int64_t *idx, const int64_t *vt_of,
                        int64_t lanes, int64_t thread, ls_cell *cell)
{
    int rank = l->rank;
    ls_nl_coord co;
    if (!ls_nl_decompose(l, idx, &co)) {
        cell->flags = LS_CELL_EMPTY;
        return false;
    }
    int64_t holders[LS_MAX_OWNERS], nh = 0, total = 0;
    for (int64_t ln = 0; ln < lanes; ln++)
        if (memcmp(vt_of + ln * rank, co.thread, (size_t)rank * sizeof(int64_t)) == 0) {
            if (nh < LS_MAX_OWNERS)
                holders[nh++] = ln;
            total++;
        }
    if (total == 0) { /* cannot happen for a valid layout; drawn, not hidden */
        cell->flags = LS_CELL_EMPTY;
        copy_str(cell->label[0], LS_CELL_LABEL, "none");
        return false;
    }
    int64_t sg = ls_nl_subgroup_of(l, co.subgroup);
    /* sg is below the subgroup tiles' product, which the parse bounds
     * only by int64: its first thread, sg x lanes, may not fit (no
     * --thread is then in this subgroup) */
    int64_t first = -1;
    if (!ls_mul_ok(sg, lanes, &first) || first > INT64_MAX - lanes)
        first = -1;
    cell->fill = ls_viz_thread_colour(sg, holders[0]);
    cell->flags |= ls_viz_subgroup_marks(sg);
    cell->block = (int32_t)(first >= 0 ? first + holders[0] : sg);
    cell->group = (int32_t)sg;
    owners_label(cell->label[0], LS_CELL_LABEL, holders, nh, total);
    fmt(cell->label[1], LS_CELL_LABEL, "S%lld V%lld", (long long)sg,
        (long long)ls_nl_register_of(l, &co));
    if (thread >= 0) {
        bool hit = false;
        for (int64_t k = 0; k < nh; k++)
            hit |= first >= 0 && first + holders[k] == thread;
        cell->flags |= hit ? LS_CELL_HIGHLIGHT : LS_CELL_DIM;
    }
    return total > 1;
}

/* A nested layout figure's title, legend and notes. */
static void nested_legend(const ls_nested_layout *l, const char *name, int64_t thread, int64_t sgs,
                          int64_t lanes, bool any_dup, ls_figure *out)
{
    int64_t dshape[LS_MAX_RANK * 2];
    char shp[160];
    ls_nl_distributed_shape(l, dshape);
    ls_format_list(shp, sizeof shp, dshape, l->rank);
    fmt(out->title, sizeof out->title, "nested layout%s%s", name && name[0] ? " #" : "",
        name ? name : "");
    ls_nested_layout_format(l, out->subtitle, sizeof out->subtitle);
    ls_grid_subgroup_legend(out, sgs, lanes);
    if (thread >= 0) {
        char t[64];
        fmt(t, sizeof t, "thread %lld's elements", (long long)thread);
        legend_add(out, (ls_rgb){1, 1, 1}, LS_CELL_HIGHLIGHT, t);
    }
    char note[200];
    fmt(note, sizeof note,
        "Per-thread distributed shape (batch x outer x element): %s = %lld registers; "
        "V# indexes them.",
        shp, (long long)ls_nl_registers(l));
    note_add(out, note);
    note_add(out, "T#: lane (with a subgroup: T is the lane id within it), S#: subgroup.");
    if (any_dup)
        note_add(out, "Some elements are held by several lanes (stride-0 or repeated ids): "
                      "T0|T16 lists them.");
    if (l->rank > 2)
        note_add(out, "Other dims fixed at 0.");
}

ls_status ls_viz_nested(const ls_nested_layout *l, const char *name, int dim_row, int dim_col,
                        int64_t thread, ls_figure *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    int rank = l->rank;
    int64_t ext[LS_MAX_RANK * 2];
    for (int i = 0; i < rank; i++)
        ext[i] = ls_nl_extent(l, i);
    int dr = dim_row, dc = dim_col;
    if (rank == 1) {
        dr = -1;
        dc = 0;
    } else {
        if (dr < 0 || dc < 0)
            choose_dims(rank, ext, &dr, &dc);
        if (check_dims(rank, dr, dc, diag))
            return diag->status;
    }
    int64_t er = dr >= 0 ? ext[dr] : 1, ec = ext[dc];
    if (er > LS_VIZ_MAX_AXIS_CELLS * 4 || ec > LS_VIZ_MAX_AXIS_CELLS * 4)
        return ls_diag_set(diag, LS_ERR_LIMIT, "", l->line, l->col,
                           "the vector is %lld x %lld; draw draws at most %d per axis",
                           (long long)er, (long long)ec, LS_VIZ_MAX_AXIS_CELLS * 4);
    /* lanes and subgroups that can hold an element: ids reach at most
     * max(stride * tile) (stride-0 dims duplicate) */
    int64_t lanes = ls_nl_threads(l), sgs = ls_nl_subgroups(l);
    for (int i = 0; i < rank; i++) {
        if (l->thread_strides[i] * l->thread_tile[i] > lanes)
            lanes = l->thread_strides[i] * l->thread_tile[i];
        if (l->subgroup_strides[i] * l->subgroup_tile[i] > sgs)
            sgs = l->subgroup_strides[i] * l->subgroup_tile[i];
    }
    if (lanes > LS_MAX_SUBGROUP_SIZE)
        lanes = LS_MAX_SUBGROUP_SIZE;
    /* the attribute's parse bounds each stride x tile and the tiles'
     * product, not lanes (<= 1024) x subgroups: past int64, every thread
     * is inside */
    int64_t threads;
    if (ls_mul_ok(lanes, sgs, &threads) && thread >= threads)
        return ls_diag_set(diag, LS_ERR_USAGE, "--thread", 0, 0,
                           "thread %lld is outside 0..%lld (subgroups x lanes of the layout)",
                           (long long)thread, (long long)(threads - 1));
    ls_grid *g = ls_figure_add_panel(out, (int)er, (int)ec);
    if (g == NULL)
        return ls_diag_set(diag, LS_ERR_LIMIT, "", l->line, l->col,
                           "the vector has more than %d elements to draw", LS_GRID_MAX_CELLS);
    char ext_s[160];
    ls_format_list(ext_s, sizeof ext_s, ext, rank);
    fmt(g->caption, sizeof g->caption, "vector<%s> over %lld subgroups x %lld lanes",
             ext_s, (long long)sgs, (long long)lanes);
    if (dr >= 0)
        fmt(g->row_axis, sizeof g->row_axis, "dim %d", dr);
    else
        copy_str(g->row_axis, sizeof g->row_axis, "");
    fmt(g->col_axis, sizeof g->col_axis, "dim %d", dc);
    axis_heads(g->row_head, (int)er, 0, 1, er);
    axis_heads(g->col_head, (int)ec, 0, 1, ec);
    set_groups(g, sgs, "S");
    int64_t *vt_of = ls_xcalloc((size_t)lanes * (size_t)rank, sizeof *vt_of);
    for (int64_t ln = 0; ln < lanes; ln++) {
        int64_t vt[LS_MAX_RANK * 2];
        ls_nl_virtual_thread(l, ln, vt);
        memcpy(vt_of + ln * rank, vt, (size_t)rank * sizeof *vt);
    }
    bool any_dup = false;
    for (int64_t r = 0; r < er; r++)
        for (int64_t c = 0; c < ec; c++) {
            int64_t idx[LS_MAX_RANK * 2] = {0};
            if (dr >= 0)
                idx[dr] = r;
            idx[dc] = c;
            any_dup |= nested_cell(l, idx, vt_of, lanes, thread, &g->cells[r * ec + c]);
        }
    free(vt_of);
    nested_legend(l, name, thread, sgs, lanes, any_dup, out);
    return LS_OK;
}

/* ------------------------------------------------------------ swizzle */

static void block_name(char *buf, size_t size, int64_t id)
{
    static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    if (id < 36)
        fmt(buf, size, "%c", digits[id]);
    else
        fmt(buf, size, "%lld", (long long)id);
}

static void bank_span(char *buf, size_t size, int64_t first_byte, int64_t bytes, int64_t banks,
                      int64_t bank_bytes)
{
    int64_t b0 = (first_byte / bank_bytes) % banks;
    int64_t b1 = ((first_byte + bytes - 1) / bank_bytes) % banks;
    if (b0 == b1)
        fmt(buf, size, "bank %lld", (long long)b0);
    else
        fmt(buf, size, "b%lld-%lld", (long long)b0, (long long)b1);
}

ls_status ls_viz_swizzle(const ls_swizzle *s, const char *name, int64_t rows, int64_t elem_bytes,
                         int64_t banks, int64_t bank_bytes, ls_figure *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    if (ls_swizzle_check(s, "", diag))
        return diag->status;
    int64_t n = ls_swizzle_blocks_per_row(s);
    if (rows <= 0)
        rows = ls_swizzle_period_rows(s);
    if (rows > LS_VIZ_MAX_AXIS_CELLS)
        rows = LS_VIZ_MAX_AXIS_CELLS;
    if (n > LS_VIZ_MAX_AXIS_CELLS)
        return ls_diag_set(diag, LS_ERR_LIMIT, "", s->line, s->col,
                           "%lld blocks per row; draw shows at most %d", (long long)n,
                           LS_VIZ_MAX_AXIS_CELLS);
    int64_t stride = swz_row_elems(s);
    for (int after = 0; after < 2; after++) {
        ls_grid *g = ls_figure_add_panel(out, (int)rows, (int)n);
        copy_str(g->caption, sizeof g->caption,
                 after ? "after: where each block is stored" : "before: row-major");
        copy_str(g->row_axis, sizeof g->row_axis, "row");
        copy_str(g->col_axis, sizeof g->col_axis, "block");
        axis_heads(g->row_head, (int)rows, 0, 1, rows);
        axis_heads(g->col_head, (int)n, 0, 1, n);
        g->cell_w = 40;
        for (int64_t i = 0; i < rows; i++)
            for (int64_t p = 0; p < n; p++) {
                int64_t j = after ? ls_swizzle_block_inverse(s, i, p) : p;
                ls_cell *cell = &g->cells[i * n + p];
                /* hue by the block's original column, shade by its row */
                cell->fill = ls_viz_thread_colour(j, i);
                cell->block = (int32_t)(i * n + j);
                block_name(cell->label[0], LS_CELL_LABEL, i * n + j);
                int64_t byte = (i * stride + p * s->access_width) * elem_bytes;
                bank_span(cell->label[1], LS_CELL_LABEL, byte, s->access_width * elem_bytes,
                          banks, bank_bytes);
            }
    }
    fmt(out->title, sizeof out->title, "swizzle%s%s", name && name[0] ? " #" : "",
             name ? name : "");
    ls_swizzle_format(s, out->subtitle, sizeof out->subtitle);
    int64_t shown = n > 8 ? 8 : n;
    for (int64_t j = 0; j < shown; j++) {
        char t[64];
        fmt(t, sizeof t, "originally block %lld of its row", (long long)j);
        legend_add(out, ls_viz_thread_colour(j, 0), 0, t);
    }
    char note[200];
    fmt(note, sizeof note,
             "A block is %lld contiguous elements (access_width); cells name the block (row x "
             "%lld + block) as in seed 001.",
             (long long)s->access_width, (long long)n);
    note_add(out, note);
    fmt(note, sizeof note,
             "Banks: %lld-byte elements on %lld banks x %lld bytes; a cell's bank is where its "
             "block lies after the swizzle.",
             (long long)elem_bytes, (long long)banks, (long long)bank_bytes);
    note_add(out, note);
    if (rows < ls_swizzle_period_rows(s))
        note_add(out, "Only the first rows are shown; the pattern repeats later.");
    return LS_OK;
}

void ls_grid_subgroup_legend(ls_figure *f, int64_t subgroups, int64_t lanes)
{
    int64_t hues = subgroups > 8 ? 8 : subgroups;
    for (int64_t s = 0; s < hues; s++) {
        char t[96];
        size_t u = (size_t)snprintf(t, sizeof t, "S%lld", (long long)s);
        for (int64_t r = s + 8; r < subgroups && u < sizeof t; r += 8)
            u += (size_t)snprintf(t + u, sizeof t - u, ",%lld", (long long)r);
        if (u < sizeof t)
            snprintf(t + u, sizeof t - u, ": lanes shaded 0..%lld", (long long)lanes - 1);
        legend_add(f, ls_viz_thread_colour(s, 0), 0, t);
    }
    static const struct {
        int64_t first;
        const char *what;
    } marks[] = {{8, "dotted: S8-S15"}, {16, "barred: S16-S23"}, {24, "dotted and barred: S24-S31"}};
    for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++)
        if (subgroups > marks[k].first)
            legend_add(f, (ls_rgb){0.97, 0.97, 0.97}, ls_viz_subgroup_marks(marks[k].first),
                       marks[k].what);
}
