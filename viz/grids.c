/* grids.c: builders for the cell-grid pictures -- who owns which element of
 * a workgroup tile (layout), of a nested layout's vector (nested), where a
 * swizzle moves each access block (swizzle), and which lanes land in which
 * shared-memory bank (banks).  Every answer comes from the layout, swizzle
 * and plan code the simulator runs; this file only arranges it in cells. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/viz.h"

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* snprintf for labels: cutting a long label short is the intent, so the
 * truncation is not worth a warning at every call. */
__attribute__((format(printf, 3, 4))) static void fmt(char *dst, size_t size, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(dst, size, f, ap);
    va_end(ap);
}

static void copy_str(char *dst, size_t size, const char *src)
{
    fmt(dst, size, "%s", src);
}

/* "T0", "T0|T16", "T0|T16+6": the holders of an element. */
static void owners_label(char *buf, size_t size, const int64_t *tids, int64_t n_listed,
                         int64_t n_total)
{
    if (n_total <= 1)
        fmt(buf, size, "T%lld", (long long)tids[0]);
    else if (n_total == 2 && n_listed >= 2)
        fmt(buf, size, "T%lld|T%lld", (long long)tids[0], (long long)tids[1]);
    else
        fmt(buf, size, "T%lld|T%lld+%lld", (long long)tids[0],
                 (long long)(n_listed > 1 ? tids[1] : tids[0]), (long long)(n_total - 2));
}

static void axis_heads(char (*head)[LS_GRID_HEADER], int n, int64_t first, int64_t step,
                       int64_t limit)
{
    for (int i = 0; i < n; i++) {
        int64_t a = first + i * step, b = a + step - 1;
        if (b > first + limit - 1)
            b = first + limit - 1;
        if (step == 1)
            fmt(head[i], LS_GRID_HEADER, "%lld", (long long)a);
        else
            fmt(head[i], LS_GRID_HEADER, "%lld-%lld", (long long)a, (long long)b);
    }
}

static void set_groups(ls_grid *g, int64_t n, const char *prefix)
{
    if (n > 4096)
        n = 4096;
    g->n_groups = (int)n;
    g->group_name = ls_xcalloc((size_t)n, sizeof *g->group_name);
    for (int64_t i = 0; i < n; i++)
        fmt(g->group_name[i], sizeof g->group_name[i], "%s%lld", prefix, (long long)i);
}

static void legend_add(ls_figure *f, ls_rgb c, uint8_t flags, const char *text)
{
    if (f->n_legend >= LS_FIGURE_MAX_LEGEND)
        return;
    f->legend[f->n_legend].colour = c;
    f->legend[f->n_legend].flags = flags;
    copy_str(f->legend[f->n_legend].text, sizeof f->legend[0].text, text);
    f->n_legend++;
}

static void note_add(ls_figure *f, const char *text)
{
    if (f->n_notes < LS_FIGURE_MAX_NOTES)
        copy_str(f->notes[f->n_notes++], sizeof f->notes[0], text);
}

/* ------------------------------------------------------------ layout */

/* Extent of a workgroup tile along dim i: the workgroup tile for parallel
 * dims, one partial-reduction chunk for reduced dims. */
static int64_t tile_extent(const ls_problem *p, const ls_derived *d, int i)
{
    int64_t e = p->is_reduction[i] ? d->chunk[i] : d->wg_tile[i];
    return e > 0 ? e : 1;
}

static void choose_dims(int rank, const int64_t *ext, int *row, int *col)
{
    int cand[LS_MAX_RANK * 2], n = 0;
    for (int i = 0; i < rank; i++)
        if (ext[i] > 1)
            cand[n++] = i;
    if (n >= 2) {
        *row = cand[n - 2];
        *col = cand[n - 1];
        return;
    }
    *col = n == 1 ? cand[0] : rank - 1;
    *row = -1;
    for (int i = 0; i < rank && *row < 0; i++)
        if (i != *col)
            *row = i;
    if (*row > *col) {
        int t = *row;
        *row = *col;
        *col = t;
    }
}

static ls_status check_dims(int rank, int r, int c, ls_diag *diag)
{
    if (rank < 2)
        return ls_diag_set(diag, LS_ERR_USAGE, "--dims", 0, 0,
                           "a rank-%d space has no second dim to draw", rank);
    if (r < 0 || r >= rank || c < 0 || c >= rank || r == c)
        return ls_diag_set(diag, LS_ERR_USAGE, "--dims", 0, 0,
                           "dims %d,%d: need two different dims in 0..%d", r, c, rank - 1);
    return LS_OK;
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
                           "thread %lld is outside 0..%lld (workgroup size)",
                           (long long)v->thread, (long long)d->workgroup_size - 1);
    for (int i = 0; i < rank; i++)
        if (i != dr && i != dc && (v->at[i] < 0 || v->at[i] >= ext[i]))
            return ls_diag_set(diag, LS_ERR_USAGE, "--at", 0, 0,
                               "d%d = %lld is outside the tile's 0..%lld", i,
                               (long long)v->at[i], (long long)ext[i] - 1);
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
    bool any_pad = false, any_dup = false;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            ls_cell *cell = &g->cells[r * cols + c];
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
                    if (ls_owner_of(d, p, x, &own, &od) || own.n_listed == 0) {
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
                any_pad = true;
                continue;
            }
            any_pad |= pad;
            any_dup |= dup_total > 1;
            cell->group = mixed_sg ? -1 : (int32_t)first_sg;
            if (!mixed_tid) {
                cell->fill = ls_viz_thread_colour(first_sg, first_lane);
                cell->block = (int32_t)first_tid;
                owners_label(cell->label[0], LS_CELL_LABEL, dup_tids, dup_listed, dup_total);
                if (rmin == rmax)
                    fmt(cell->label[1], LS_CELL_LABEL, "S%lld V%lld", (long long)first_sg,
                             (long long)rmin);
                else
                    fmt(cell->label[1], LS_CELL_LABEL, "V%lld-%lld", (long long)rmin,
                             (long long)rmax);
            } else {
                cell->fill = mixed_sg ? (ls_rgb){0.8, 0.8, 0.8} : ls_viz_thread_colour(first_sg, 5);
                cell->block = -3 - (r * cols + c); /* its own block: borders all round */
                fmt(cell->label[0], LS_CELL_LABEL, "T%lld-%lld", (long long)tmin,
                         (long long)tmax);
                copy_str(cell->label[1], LS_CELL_LABEL, mixed_sg ? "mixed" : "");
            }
            if (v->thread >= 0)
                cell->flags |= hit ? LS_CELL_HIGHLIGHT : LS_CELL_DIM;
        }
    fmt(out->title, sizeof out->title, "layout of %s (%s)", p->name,
             d->sizes_assumed ? "sizes derived" : "IREE's lowering config");
    if (p->has_config)
        ls_lowering_config_format(&p->config, out->subtitle, sizeof out->subtitle);
    int64_t shown = d->num_subgroups > 8 ? 8 : d->num_subgroups;
    for (int64_t s = 0; s < shown; s++) {
        char t[64];
        fmt(t, sizeof t, "S%lld: lanes shaded 0..%lld", (long long)s,
                 (long long)d->subgroup_size - 1);
        legend_add(out, ls_viz_thread_colour(s, 0), 0, t);
    }
    if (any_pad)
        legend_add(out, (ls_rgb){0.9, 0.9, 0.9}, LS_CELL_EMPTY,
                   "padding (outside the problem: identity)");
    if (v->thread >= 0) {
        char t[64];
        fmt(t, sizeof t, "thread %lld's elements", (long long)v->thread);
        legend_add(out, (ls_rgb){1, 1, 1}, LS_CELL_HIGHLIGHT, t);
    }
    char note[200];
    fmt(note, sizeof note,
             "T#: thread in the workgroup, S#: subgroup, V#: register index in the thread's "
             "vector.  Workgroup %lld threads = %lld subgroups x %lld.",
             (long long)d->workgroup_size, (long long)d->num_subgroups,
             (long long)d->subgroup_size);
    note_add(out, note);
    if (any_dup) {
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
    return LS_OK;
}

/* ------------------------------------------------------------ nested */

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
    if (thread >= lanes * sgs)
        return ls_diag_set(diag, LS_ERR_USAGE, "--thread", 0, 0,
                           "thread %lld is outside 0..%lld (subgroups x lanes of the layout)",
                           (long long)thread, (long long)(lanes * sgs - 1));
    ls_grid *g = ls_figure_add_panel(out, (int)er, (int)ec);
    if (g == NULL)
        return ls_diag_set(diag, LS_ERR_LIMIT, "", l->line, l->col,
                           "the vector has more than %d elements to draw", LS_GRID_MAX_CELLS);
    int64_t dshape[LS_MAX_RANK * 2];
    ls_nl_distributed_shape(l, dshape);
    char shp[160], ext_s[160];
    ls_format_list(shp, sizeof shp, dshape, rank);
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
            ls_nl_coord co;
            ls_cell *cell = &g->cells[r * ec + c];
            if (!ls_nl_decompose(l, idx, &co)) {
                cell->flags = LS_CELL_EMPTY;
                continue;
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
                continue;
            }
            int64_t sg = ls_nl_subgroup_of(l, co.subgroup);
            any_dup |= total > 1;
            cell->fill = ls_viz_thread_colour(sg, holders[0]);
            cell->block = (int32_t)(sg * lanes + holders[0]);
            cell->group = (int32_t)sg;
            owners_label(cell->label[0], LS_CELL_LABEL, holders, nh, total);
            fmt(cell->label[1], LS_CELL_LABEL, "S%lld V%lld", (long long)sg,
                     (long long)ls_nl_register_of(l, &co));
            if (thread >= 0) {
                bool hit = false;
                for (int64_t k = 0; k < nh; k++)
                    hit |= sg * lanes + holders[k] == thread;
                cell->flags |= hit ? LS_CELL_HIGHLIGHT : LS_CELL_DIM;
            }
        }
    free(vt_of);
    fmt(out->title, sizeof out->title, "nested layout%s%s", name && name[0] ? " #" : "",
             name ? name : "");
    ls_nested_layout_format(l, out->subtitle, sizeof out->subtitle);
    int64_t shown = sgs > 8 ? 8 : sgs;
    for (int64_t s = 0; s < shown; s++) {
        char t[64];
        fmt(t, sizeof t, "S%lld: lanes shaded 0..%lld", (long long)s, (long long)lanes - 1);
        legend_add(out, ls_viz_thread_colour(s, 0), 0, t);
    }
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
    if (rank > 2)
        note_add(out, "Other dims fixed at 0.");
    return LS_OK;
}

/* ------------------------------------------------------------ swizzle */

static int64_t swz_row_elems(const ls_swizzle *s)
{
    return s->kind == LS_SWIZZLE_XOR_SHUFFLE && s->row_stride > 0 ? s->row_stride : s->row_width;
}

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

/* ------------------------------------------------------------ banks */

typedef struct {
    int64_t words[64]; /* distinct words in the bank */
    int nwords;
    int64_t lanes[4];
    int nlanes;
    int64_t lane_total;
} bank_use;

/* One row of a banks panel: one access by the given lanes at the given byte
 * addresses, each `bytes` wide.  Returns the conflict degree. */
static int64_t banks_row(ls_grid *g, int row, const int64_t *lanes, const int64_t *addr, int n,
                         int64_t bytes, int64_t banks, int64_t bank_bytes, int64_t lane_base)
{
    bank_use *u = ls_xcalloc((size_t)banks, sizeof *u);
    for (int i = 0; i < n; i++)
        for (int64_t b = 0; b < bytes; b += bank_bytes) {
            int64_t wd = (addr[i] + b) / bank_bytes, bk = wd % banks;
            bank_use *x = &u[bk];
            bool seen = false;
            for (int k = 0; k < x->nwords && !seen; k++)
                seen = x->words[k] == wd;
            if (!seen && x->nwords < 64)
                x->words[x->nwords++] = wd;
            bool lane_seen = false;
            for (int k = 0; k < x->nlanes && !lane_seen; k++)
                lane_seen = x->lanes[k] == lanes[i];
            if (!lane_seen) {
                if (x->nlanes < 4)
                    x->lanes[x->nlanes++] = lanes[i];
                x->lane_total++;
            }
        }
    int64_t degree = 1;
    for (int64_t bk = 0; bk < banks; bk++)
        if (u[bk].nwords > degree)
            degree = u[bk].nwords;
    for (int64_t bk = 0; bk < banks && bk < g->cols; bk++) {
        ls_cell *cell = &g->cells[row * g->cols + bk];
        bank_use *x = &u[bk];
        cell->block = (int32_t)bk;
        if (x->lane_total == 0) {
            cell->fill = (ls_rgb){0.96, 0.96, 0.96};
            continue;
        }
        if (x->nlanes == 1)
            fmt(cell->label[0], LS_CELL_LABEL, "T%lld", (long long)(x->lanes[0] + lane_base));
        else
            fmt(cell->label[0], LS_CELL_LABEL, "T%lld+%lld",
                     (long long)(x->lanes[0] + lane_base), (long long)(x->lane_total - 1));
        if (x->nwords == 1) {
            cell->fill = ls_rgb_hex(0x99DDFF);
            copy_str(cell->label[1], LS_CELL_LABEL, x->lane_total > 1 ? "bcast" : "");
        } else {
            cell->fill = ls_rgb_hex(0xEE8866);
            fmt(cell->label[1], LS_CELL_LABEL, "%d words", x->nwords);
            if (x->nwords == degree)
                cell->flags |= LS_CELL_ALERT;
        }
    }
    free(u);
    return degree;
}

/* A panel of `rows` accesses x `banks` banks, with a degree note per row. */
static ls_grid *banks_panel(ls_figure *out, int rows, int64_t banks, const char *caption)
{
    ls_grid *g = ls_figure_add_panel(out, rows, (int)banks);
    copy_str(g->caption, sizeof g->caption, caption);
    copy_str(g->row_axis, sizeof g->row_axis, "access");
    copy_str(g->col_axis, sizeof g->col_axis, "bank");
    axis_heads(g->col_head, (int)banks, 0, 1, banks);
    g->row_note = ls_xcalloc((size_t)g->rows, sizeof *g->row_note);
    g->cell_w = 40;
    return g;
}

static void banks_legend(ls_figure *out)
{
    legend_add(out, ls_rgb_hex(0x99DDFF), 0, "one word: one cycle (same word: broadcast)");
    legend_add(out, ls_rgb_hex(0xEE8866), 0, "several words: conflict");
    legend_add(out, ls_rgb_hex(0xEE8866), LS_CELL_ALERT, "busiest bank: sets the degree");
    legend_add(out, (ls_rgb){0.96, 0.96, 0.96}, 0, "unused bank");
}

ls_status ls_viz_banks_plan(const ls_plan *pl, const ls_hw *hw, ls_figure *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    const ls_derived *d = pl->derived;
    const ls_problem *p = pl->problem;
    if (!pl->cross_subgroup)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "%s has no cross-subgroup stage (no reduced dim is split across "
                           "subgroups), so no shared-memory access to draw",
                           p->name);
    int64_t nq = pl->results_per_thread;
    int64_t shown = nq > 16 ? 16 : nq;
    int64_t banks = hw->smem_banks;
    if (banks > 128)
        return ls_diag_set(diag, LS_ERR_LIMIT, "", 0, 0, "model %s has %lld banks; draw shows at most 128",
                           hw->name, (long long)banks);
    ls_grid *g = banks_panel(out, (int)(2 * shown), banks,
                             "cross-subgroup buffer, subgroup 0: lanes per bank in each access");
    int64_t *slot_reg = ls_xcalloc((size_t)nq, sizeof *slot_reg);
    int64_t *lanes = ls_xcalloc((size_t)d->subgroup_size, sizeof *lanes);
    int64_t *addr = ls_xcalloc((size_t)d->subgroup_size, sizeof *addr);
    ls_result_slot_registers(d, p, slot_reg);
    for (int64_t q = 0; q < shown; q++)
        for (int rd = 0; rd < 2; rd++) {
            int row = (int)(2 * q + rd);
            int n = ls_smem_access(pl, slot_reg[q], rd == 1, lanes, addr);
            fmt(g->row_head[row], LS_GRID_HEADER, "%s slot %lld", rd ? "read" : "write",
                     (long long)q);
            int64_t deg = banks_row(g, row, lanes, addr, n, pl->acc_elem_bytes, banks,
                                    hw->smem_bank_bytes, 0);
            fmt(g->row_note[row], sizeof g->row_note[0], "degree %lld", (long long)deg);
        }
    free(slot_reg);
    free(lanes);
    free(addr);
    fmt(out->title, sizeof out->title, "shared-memory banks of %s on %s", p->name, hw->name);
    char shape[128];
    ls_format_list(shape, sizeof shape, pl->buffer_shape, pl->buffer_rank);
    fmt(out->subtitle, sizeof out->subtitle,
             "buffer %s x %lld bytes (padded by %lld elements), %lld banks x %lld bytes",
             shape, (long long)pl->acc_elem_bytes, (long long)pl->buffer_pad, (long long)banks,
             (long long)hw->smem_bank_bytes);
    banks_legend(out);
    note_add(out, "Degree = distinct words in the busiest bank: the cycles the access takes "
                  "(what the simulator charges).");
    if (shown < nq) {
        char note[200];
        fmt(note, sizeof note, "Result slots 0..%lld of %lld shown.", (long long)shown - 1,
                 (long long)nq);
        note_add(out, note);
    }
    return LS_OK;
}

ls_status ls_viz_banks_swizzle(const ls_swizzle *s, const char *name, int64_t lanes,
                               int64_t elem_bytes, int64_t banks, int64_t bank_bytes,
                               ls_figure *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    if (ls_swizzle_check(s, "", diag))
        return diag->status;
    if (lanes < 1 || lanes > LS_MAX_SUBGROUP_SIZE)
        return ls_diag_set(diag, LS_ERR_USAGE, "--lanes", 0, 0, "%lld lanes: need 1..%d",
                           (long long)lanes, LS_MAX_SUBGROUP_SIZE);
    if (banks < 1 || banks > 128)
        return ls_diag_set(diag, LS_ERR_USAGE, "--banks", 0, 0, "%lld banks: need 1..128",
                           (long long)banks);
    int64_t n = ls_swizzle_blocks_per_row(s);
    int64_t shown = n > 16 ? 16 : n;
    int64_t stride = swz_row_elems(s);
    out->stacked = true;
    int64_t *lane_id = ls_xcalloc((size_t)lanes, sizeof *lane_id);
    int64_t *addr = ls_xcalloc((size_t)lanes, sizeof *addr);
    for (int sw = 0; sw < 2; sw++) {
        ls_grid *g = banks_panel(out, (int)shown, banks,
                                 sw ? "with the swizzle" : "without (plain row-major)");
        for (int64_t c = 0; c < shown; c++) {
            for (int64_t ln = 0; ln < lanes; ln++) {
                int64_t off = ln * stride + c * s->access_width;
                lane_id[ln] = ln;
                addr[ln] = (sw ? ls_swizzle_apply(s, off) : off) * elem_bytes;
            }
            fmt(g->row_head[c], LS_GRID_HEADER, "block col %lld", (long long)c);
            int64_t deg = banks_row(g, (int)c, lane_id, addr, (int)lanes,
                                    s->access_width * elem_bytes, banks, bank_bytes, 0);
            fmt(g->row_note[c], sizeof g->row_note[0], "degree %lld", (long long)deg);
        }
    }
    free(lane_id);
    free(addr);
    fmt(out->title, sizeof out->title, "banks under swizzle%s%s", name && name[0] ? " #" : "",
             name ? name : "");
    ls_swizzle_format(s, out->subtitle, sizeof out->subtitle);
    banks_legend(out);
    char note[200];
    fmt(note, sizeof note,
             "Access: lane T reads block column c of row T (%lld elements of %lld bytes); "
             "%lld banks x %lld bytes.",
             (long long)s->access_width, (long long)elem_bytes, (long long)banks,
             (long long)bank_bytes);
    note_add(out, note);
    return LS_OK;
}

/* ------------------------------------------------------------ operands */

/* What the (sampled) elements of one operand cell say about their readers. */
typedef struct {
    bool valid, pad, mixed_tid, mixed_sg, hit; /* pad: some element is outside the operand */
    int64_t first, second, sg, lane;           /* of the first valid element */
    int64_t rd_min, rd_max;                    /* reader counts */
    int64_t v_min, v_max;                      /* operand-vector indices */
    int64_t t_min, t_max;                      /* first readers */
} reads_cell;

static void keep_range(int64_t *lo, int64_t *hi, int64_t v)
{
    if (v < *lo)
        *lo = v;
    if (v > *hi)
        *hi = v;
}

static void reads_cell_init(reads_cell *rc)
{
    memset(rc, 0, sizeof *rc);
    rc->first = rc->second = -1;
    rc->rd_min = rc->v_min = rc->t_min = INT64_MAX;
    rc->rd_max = rc->v_max = rc->t_max = -1;
}

/* Fold one element read by `readers` threads (first, second lowest) at
 * operand-vector index vreg into the cell. */
static void reads_cell_add(reads_cell *rc, const ls_derived *d, int64_t readers, int64_t first,
                           int64_t second, int64_t vreg, bool hit)
{
    int64_t sg = first / d->subgroup_size;
    if (!rc->valid) {
        rc->valid = true;
        rc->first = first;
        rc->second = second;
        rc->sg = sg;
        rc->lane = first % d->subgroup_size;
    }
    rc->mixed_tid |= first != rc->first;
    rc->mixed_sg |= sg != rc->sg;
    rc->hit |= hit;
    keep_range(&rc->rd_min, &rc->rd_max, readers);
    keep_range(&rc->v_min, &rc->v_max, vreg);
    keep_range(&rc->t_min, &rc->t_max, first);
}

/* Colour and label a cell from what its elements say; the thread
 * highlight as in the layout picture.  The broadcast counts of every
 * shared cell are folded into [*sh_min, *sh_max] for the legend. */
static void reads_cell_paint(ls_cell *cell, const reads_cell *rc, int64_t thread, int32_t own,
                             int64_t *sh_min, int64_t *sh_max)
{
    if (!rc->valid) {
        cell->flags = LS_CELL_EMPTY;
        copy_str(cell->label[0], LS_CELL_LABEL, rc->pad ? "pad" : "none");
        cell->block = rc->pad ? -2 : -1;
        return;
    }
    cell->group = rc->mixed_sg ? -1 : (int32_t)rc->sg;
    char count[16] = "";
    if (rc->rd_max > 1) {
        cell->flags |= LS_CELL_SHARED;
        keep_range(sh_min, sh_max, rc->rd_max);
        if (rc->rd_min > 1)
            keep_range(sh_min, sh_max, rc->rd_min);
        if (rc->rd_min == rc->rd_max)
            fmt(count, sizeof count, " \xc3\x97%lld", (long long)rc->rd_max); /* U+00D7 */
        else
            fmt(count, sizeof count, " \xc3\x97%lld-%lld", (long long)rc->rd_min,
                (long long)rc->rd_max);
    }
    if (!rc->mixed_tid) {
        cell->fill = ls_viz_thread_colour(rc->sg, rc->lane);
        cell->block = (int32_t)rc->first;
        int64_t tids[2] = {rc->first, rc->second};
        owners_label(cell->label[0], LS_CELL_LABEL, tids, rc->second >= 0 ? 2 : 1, rc->rd_max);
        if (rc->v_min == rc->v_max)
            fmt(cell->label[1], LS_CELL_LABEL, "S%lld V%lld%s", (long long)rc->sg,
                (long long)rc->v_min, count);
        else
            fmt(cell->label[1], LS_CELL_LABEL, "V%lld-%lld%s", (long long)rc->v_min,
                (long long)rc->v_max, count);
    } else {
        cell->fill = rc->mixed_sg ? (ls_rgb){0.8, 0.8, 0.8} : ls_viz_thread_colour(rc->sg, 5);
        cell->block = own; /* its own block: borders all round */
        fmt(cell->label[0], LS_CELL_LABEL, "T%lld-%lld", (long long)rc->t_min,
            (long long)rc->t_max);
        fmt(cell->label[1], LS_CELL_LABEL, "%s%s", rc->mixed_sg ? "mixed" : "", count);
    }
    if (thread >= 0)
        cell->flags |= rc->hit ? LS_CELL_HIGHLIGHT : LS_CELL_DIM;
}

/* Legend and notes every operand picture shares: subgroup shades, the
 * broadcast swatch (one count when every shared cell has the same), the
 * thread highlight, and which loop dims the operand lacks. */
static void operand_legend(ls_figure *out, const ls_problem *p, const ls_derived *d, int k,
                           int64_t shared_min, int64_t shared_max, int64_t thread)
{
    int64_t shown = d->num_subgroups > 8 ? 8 : d->num_subgroups;
    char t[64];
    for (int64_t s = 0; s < shown; s++) {
        fmt(t, sizeof t, "S%lld: lanes shaded 0..%lld", (long long)s,
            (long long)d->subgroup_size - 1);
        legend_add(out, ls_viz_thread_colour(s, 0), 0, t);
    }
    if (shared_max > 1) {
        if (shared_min == shared_max)
            fmt(t, sizeof t, "read by %lld threads (broadcast)", (long long)shared_max);
        else
            fmt(t, sizeof t, "read by %lld-%lld threads (broadcast; \xc3\x97N in the cell)",
                (long long)shared_min, (long long)shared_max);
        legend_add(out, ls_viz_thread_colour(0, 0), LS_CELL_SHARED, t);
    }
    if (thread >= 0) {
        fmt(t, sizeof t, "thread %lld's elements", (long long)thread);
        legend_add(out, (ls_rgb){1, 1, 1}, LS_CELL_HIGHLIGHT, t);
    }
    const ls_operand *o = &p->inputs[k];
    char lacks[96] = "";
    size_t len = 0;
    int n_lacks = 0;
    for (int i = 0; i < p->rank; i++) {
        bool has = false;
        for (int j = 0; j < o->map_n; j++)
            has |= o->map[j] == i;
        if (!has && len + 1 < sizeof lacks) {
            fmt(lacks + len, sizeof lacks - len, "%sd%d", n_lacks ? ", " : "", i);
            len = strlen(lacks);
            n_lacks++;
        }
    }
    char note[200];
    if (n_lacks && shared_max > 1)
        fmt(note, sizeof note,
            "Input %d lacks loop dim%s %s: threads that differ only along %s load the same "
            "elements, each thread once for all the %s positions it holds.",
            k, n_lacks > 1 ? "s" : "", lacks, lacks, lacks);
    else if (n_lacks)
        fmt(note, sizeof note,
            "Input %d lacks loop dim%s %s: each thread loads its slice once for all the %s "
            "positions it holds; no other thread holds them here, so nothing is shared.",
            k, n_lacks > 1 ? "s" : "", lacks, lacks);
    else
        fmt(note, sizeof note,
            "Input %d has every loop dim: a thread's elements are its iteration points (shared "
            "only where the layout duplicates lanes or subgroups).",
            k);
    note_add(out, note);
}

/* Operand coordinates of sampled element (er, ec) of the drawn dims. */
static void operand_point(const ls_operand_reads *r, const int64_t *at, int dr, int dc, int64_t er,
                          int64_t ec, int64_t *oc)
{
    for (int j = 0; j < r->rank; j++)
        oc[j] = r->origin[j] + at[j];
    if (dr >= 0 && dr < r->rank)
        oc[dr] = r->origin[dr] + er;
    if (dc >= 0 && dc < r->rank)
        oc[dc] = r->origin[dc] + ec;
}

/* Drawn dims of input k, of rank `rank` with extents ext: a rank-1 (or
 * rank-0) operand is one row, and has no two dims to ask for. */
static ls_status operand_dims(int k, int rank, const int64_t *ext, int *dr, int *dc, ls_diag *diag)
{
    if (rank <= 1 && *dr < 0 && *dc < 0) {
        *dr = -1;
        *dc = rank == 1 ? 0 : -1;
        return LS_OK;
    }
    if (rank <= 1)
        return ls_diag_set(diag, LS_ERR_USAGE, "--dims", 0, 0,
                           "input %d has rank %d: no two dims to draw (it is drawn as one row)", k,
                           rank);
    if (*dr < 0 || *dc < 0)
        choose_dims(rank, ext, dr, dc);
    return check_dims(rank, *dr, *dc, diag);
}

/* The cells of an operand layout picture: sampled as ls_viz_layout does. */
static void operand_cells(ls_grid *g, const ls_derived *d, const ls_operand_reads *r,
                          const ls_layout_view *v, int dr, int dc, const int64_t *ext, int64_t kr,
                          int64_t kc, int64_t *sh_min, int64_t *sh_max)
{
    int64_t sr = kr > 16 ? 16 : kr, sc = kc > 16 ? 16 : kc;
    int64_t er_n = dr >= 0 ? ext[dr] : 1, ec_n = dc >= 0 ? ext[dc] : 1;
    for (int row = 0; row < g->rows; row++)
        for (int col = 0; col < g->cols; col++) {
            reads_cell rc;
            reads_cell_init(&rc);
            for (int64_t a = 0; a < sr; a++)
                for (int64_t b = 0; b < sc; b++) {
                    int64_t er = row * kr + (sr == kr ? a : a * kr / sr);
                    int64_t ec = col * kc + (sc == kc ? b : b * kc / sc);
                    if (er >= er_n || ec >= ec_n)
                        continue;
                    int64_t oc[LS_MAX_RANK];
                    operand_point(r, v->at, dr, dc, er, ec, oc);
                    bool outside = false;
                    for (int j = 0; j < r->rank; j++)
                        outside |= oc[j] >= r->dim[j];
                    int64_t e = ls_viz_operand_reads_index(r, oc);
                    if (outside || e < 0) {
                        rc.pad = true;
                        continue;
                    }
                    if (r->readers[e] == 0) /* "none" unless some element is read */
                        continue;
                    reads_cell_add(&rc, d, r->readers[e], r->first[e], r->second[e], r->vreg[e],
                                   r->mine && r->mine[e]);
                }
            reads_cell_paint(&g->cells[row * g->cols + col], &rc, v->thread,
                             -3 - (row * g->cols + col), sh_min, sh_max);
        }
}

static void operand_layout_notes(ls_figure *out, const ls_plan *pl, int k,
                                 const ls_operand_reads *r, int dr, int dc, const int64_t *at,
                                 int64_t kr, int64_t kc)
{
    char note[200], vt[96];
    ls_plan_input_vector_type(pl, k, vt, sizeof vt);
    fmt(note, sizeof note,
        "T#: thread in the workgroup (the lowest readers; +N more), S#: its subgroup, V#: "
        "index in its %s; \xc3\x97N: read by N threads.",
        vt);
    note_add(out, note);
    fmt(note, sizeof note,
        "Per thread and iteration: %lld load%s of %lld element%s of input %d (%lld-byte "
        "elements).",
        (long long)pl->inputs[k].loads, pl->inputs[k].loads == 1 ? "" : "s",
        (long long)pl->inputs[k].width, pl->inputs[k].width == 1 ? "" : "s", k,
        (long long)pl->inputs[k].elem_bytes);
    note_add(out, note);
    int64_t er = dr >= 0 ? r->extent[dr] : 1, ec = dc >= 0 ? r->extent[dc] : 1;
    if (kr > 1 || kc > 1) {
        fmt(note, sizeof note,
            "Aggregated: the operand's part of the tile is %lld x %lld elements; each cell "
            "covers %lld x %lld of them%s.",
            (long long)er, (long long)ec, (long long)kr, (long long)kc,
            kr > 16 || kc > 16 ? " (readers sampled at 16 points per axis)" : "");
        note_add(out, note);
    }
    if (r->rank > 2) {
        char o[160] = "";
        size_t len = 0;
        for (int j = 0; j < r->rank; j++)
            if (j != dr && j != dc && len + 1 < sizeof o) {
                fmt(o + len, sizeof o - len, "%sdim %d = %lld", len ? ", " : "", j,
                    (long long)(r->origin[j] + at[j]));
                len = strlen(o);
            }
        fmt(note, sizeof note, "Other operand dims fixed at %s (--at).", o);
        note_add(out, note);
    }
}

/* "d1", "d1 (red)", "d1 x2 (red)": the loop dim behind operand dim j. */
static void operand_axis(char *buf, size_t size, const ls_problem *p, int k, int j)
{
    if (j < 0) {
        buf[0] = 0;
        return;
    }
    const ls_operand *o = &p->inputs[k];
    int i = o->map[j];
    if (o->scale[j] > 1)
        fmt(buf, size, "d%d*%lld%s", i, (long long)o->scale[j], p->is_reduction[i] ? " (red)" : "");
    else
        fmt(buf, size, "d%d%s", i, p->is_reduction[i] ? " (red)" : "");
}

ls_status ls_viz_operand_layout(const ls_plan *pl, int k, const ls_layout_view *v, ls_figure *out,
                                ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    const ls_problem *p = pl->problem;
    const ls_derived *d = pl->derived;
    ls_operand_reads r;
    if (ls_viz_operand_reads_init(pl, k, v->workgroup, v->iteration, v->thread, &r, diag))
        return diag->status;
    int dr = v->dim_row, dc = v->dim_col;
    if (operand_dims(k, r.rank, r.extent, &dr, &dc, diag))
        goto fail;
    for (int j = 0; j < r.rank; j++)
        if (j != dr && j != dc && (v->at[j] < 0 || v->at[j] >= r.extent[j])) {
            ls_diag_set(diag, LS_ERR_USAGE, "--at", 0, 0,
                        "operand dim %d = %lld is outside the tile's 0..%lld", j,
                        (long long)v->at[j], (long long)r.extent[j] - 1);
            goto fail;
        }
    int64_t er = dr >= 0 ? r.extent[dr] : 1, ec = dc >= 0 ? r.extent[dc] : 1;
    int64_t kr = ceil_div(er, LS_VIZ_MAX_AXIS_CELLS), kc = ceil_div(ec, LS_VIZ_MAX_AXIS_CELLS);
    ls_grid *g = ls_figure_add_panel(out, (int)ceil_div(er, kr), (int)ceil_div(ec, kc));
    char o[128] = "its one element";
    if (r.rank > 0) {
        memcpy(o, "elements from ", 15);
        ls_format_list(o + 14, sizeof o - 14, r.origin, r.rank);
    }
    fmt(g->caption, sizeof g->caption, "workgroup %lld, iteration %lld of %lld: operand %s",
        (long long)v->workgroup, (long long)v->iteration, (long long)d->total_iterations, o);
    operand_axis(g->row_axis, sizeof g->row_axis, p, k, dr);
    operand_axis(g->col_axis, sizeof g->col_axis, p, k, dc);
    axis_heads(g->row_head, g->rows, dr >= 0 ? r.origin[dr] : 0, kr, er);
    axis_heads(g->col_head, g->cols, dc >= 0 ? r.origin[dc] : 0, kc, ec);
    set_groups(g, d->num_subgroups, "S");
    int64_t sh_min = INT64_MAX, sh_max = 0;
    operand_cells(g, d, &r, v, dr, dc, r.extent, kr, kc, &sh_min, &sh_max);
    if (sh_max > 1 || kr > 1 || kc > 1) /* room for "T0|T16+2" and "S0 V1 x4" */
        g->cell_w = 48;
    char name[160];
    ls_viz_operand_name(p, k, name, sizeof name);
    fmt(out->title, sizeof out->title, "%s of %s: who loads each element", name, p->name);
    if (p->has_config)
        ls_lowering_config_format(&p->config, out->subtitle, sizeof out->subtitle);
    operand_legend(out, p, d, k, sh_min, sh_max, v->thread);
    bool any_pad = false, any_none = false;
    for (int i = 0; i < g->rows * g->cols; i++) {
        any_pad |= g->cells[i].block == -2;
        any_none |= (g->cells[i].flags & LS_CELL_EMPTY) && g->cells[i].block != -2;
    }
    if (any_pad)
        legend_add(out, (ls_rgb){0.9, 0.9, 0.9}, LS_CELL_EMPTY, "pad: outside the operand");
    if (any_none)
        legend_add(out, (ls_rgb){0.9, 0.9, 0.9}, LS_CELL_EMPTY, "none: no thread loads it");
    operand_layout_notes(out, pl, k, &r, dr, dc, v->at, kr, kc);
    ls_viz_operand_reads_fini(&r);
    return LS_OK;
fail:
    ls_viz_operand_reads_fini(&r);
    return diag->status;
}

/* Virtual ids under the projected layout of every lane of a subgroup and
 * every subgroup of the workgroup, computed once per picture. */
typedef struct {
    int rank;
    int64_t *lane_vt, *sg_vs; /* [subgroup_size][rank], [num_subgroups][rank] */
} virtual_ids;

static void virtual_ids_init(virtual_ids *v, const ls_derived *d, const ls_nested_layout *l)
{
    size_t r = l->rank > 0 ? (size_t)l->rank : 1;
    v->rank = l->rank;
    v->lane_vt = ls_xcalloc((size_t)d->subgroup_size * r, sizeof *v->lane_vt);
    v->sg_vs = ls_xcalloc((size_t)d->num_subgroups * r, sizeof *v->sg_vs);
    for (int64_t ln = 0; ln < d->subgroup_size; ln++) {
        int64_t t[LS_MAX_BODY];
        ls_nl_virtual_thread(l, ln, t);
        memcpy(v->lane_vt + ln * (int64_t)r, t, (size_t)l->rank * sizeof *t);
    }
    for (int64_t sg = 0; sg < d->num_subgroups; sg++) {
        int64_t t[LS_MAX_BODY];
        ls_nl_virtual_subgroup(l, sg, t);
        memcpy(v->sg_vs + sg * (int64_t)r, t, (size_t)l->rank * sizeof *t);
    }
}

/* The ids in 0..n whose virtual ids (table, rank entries each) equal want.
 * Up to LS_MAX_OWNERS listed; returns how many in all. */
static int64_t matching_ids(const int64_t *table, int rank, int64_t n, const int64_t *want,
                            int64_t *ids, int64_t *listed)
{
    int64_t total = 0, stride = rank > 0 ? rank : 1;
    *listed = 0;
    for (int64_t id = 0; id < n; id++) {
        if (memcmp(table + id * stride, want, (size_t)rank * sizeof *want) != 0)
            continue;
        if (*listed < LS_MAX_OWNERS)
            ids[(*listed)++] = id;
        total++;
    }
    return total;
}

/* One element (vector index idx) of the projected layout: every thread of
 * the workgroup whose virtual ids hold it. */
static void nested_operand_cell(const ls_derived *d, const ls_nested_layout *proj,
                                const virtual_ids *vids, const int64_t *idx, int64_t thread,
                                reads_cell *rc)
{
    reads_cell_init(rc);
    ls_nl_coord co;
    if (!ls_nl_decompose(proj, idx, &co))
        return;
    int64_t lanes[LS_MAX_OWNERS], sgs[LS_MAX_OWNERS], nl, ns;
    int64_t lane_n =
        matching_ids(vids->lane_vt, vids->rank, d->subgroup_size, co.thread, lanes, &nl);
    int64_t sg_n = matching_ids(vids->sg_vs, vids->rank, d->num_subgroups, co.subgroup, sgs, &ns);
    if (nl == 0 || ns == 0)
        return;
    int64_t first = sgs[0] * d->subgroup_size + lanes[0];
    int64_t second = nl > 1   ? first + lanes[1] - lanes[0]
                     : ns > 1 ? sgs[1] * d->subgroup_size + lanes[0]
                              : -1;
    bool hit = false;
    for (int64_t a = 0; a < ns && thread >= 0; a++)
        for (int64_t b = 0; b < nl; b++)
            hit |= sgs[a] * d->subgroup_size + lanes[b] == thread;
    reads_cell_add(rc, d, lane_n * sg_n, first, second, ls_nl_register_of(proj, &co), hit);
}

ls_status ls_viz_operand_nested(const ls_plan *pl, int k, int dim_row, int dim_col, int64_t thread,
                                ls_figure *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    const ls_problem *p = pl->problem;
    const ls_derived *d = pl->derived;
    if (ls_viz_operand_check(pl, k, diag))
        return diag->status;
    if (thread >= d->workgroup_size)
        return ls_diag_set(diag, LS_ERR_USAGE, "--thread", 0, 0,
                           "thread %lld is outside 0..%lld (workgroup size)", (long long)thread,
                           (long long)d->workgroup_size - 1);
    ls_nested_layout proj;
    int bdims[LS_MAX_BODY];
    int rank = ls_viz_operand_layout_of(d, p, k, &proj, bdims);
    int64_t ext[LS_MAX_BODY];
    for (int i = 0; i < rank; i++)
        ext[i] = ls_nl_extent(&proj, i);
    int dr = dim_row, dc = dim_col;
    if (operand_dims(k, rank, ext, &dr, &dc, diag))
        return diag->status;
    int64_t er = dr >= 0 ? ext[dr] : 1, ec = dc >= 0 ? ext[dc] : 1;
    if (er > LS_VIZ_MAX_AXIS_CELLS * 4 || ec > LS_VIZ_MAX_AXIS_CELLS * 4)
        return ls_diag_set(diag, LS_ERR_LIMIT, "", 0, 0,
                           "input %d's vector is %lld x %lld; draw draws at most %d per axis", k,
                           (long long)er, (long long)ec, LS_VIZ_MAX_AXIS_CELLS * 4);
    ls_grid *g = ls_figure_add_panel(out, (int)er, (int)ec);
    if (g == NULL)
        return ls_diag_set(diag, LS_ERR_LIMIT, "", 0, 0,
                           "input %d's vector has more than %d elements to draw", k,
                           LS_GRID_MAX_CELLS);
    char ext_s[160];
    ls_format_list(ext_s, sizeof ext_s, ext, rank);
    fmt(g->caption, sizeof g->caption, "vector<%s> over %lld subgroups x %lld lanes", ext_s,
        (long long)d->num_subgroups, (long long)d->subgroup_size);
    for (int a = 0; a < 2; a++) {
        int j = a ? dc : dr;
        char *axis = a ? g->col_axis : g->row_axis;
        if (j >= 0)
            fmt(axis, sizeof g->row_axis, "dim %d (d%d%s)", j, d->body_origin[bdims[j]],
                d->body_inner[bdims[j]] ? " inner" : "");
        else
            axis[0] = 0;
    }
    axis_heads(g->row_head, (int)er, 0, 1, er);
    axis_heads(g->col_head, (int)ec, 0, 1, ec);
    set_groups(g, d->num_subgroups, "S");
    int64_t sh_min = INT64_MAX, sh_max = 0;
    virtual_ids vids;
    virtual_ids_init(&vids, d, &proj);
    for (int64_t r = 0; r < er; r++)
        for (int64_t c = 0; c < ec; c++) {
            int64_t idx[LS_MAX_BODY] = {0};
            if (dr >= 0)
                idx[dr] = r;
            if (dc >= 0)
                idx[dc] = c;
            reads_cell rc;
            nested_operand_cell(d, &proj, &vids, idx, thread, &rc);
            reads_cell_paint(&g->cells[r * ec + c], &rc, thread, (int32_t)(-3 - (r * ec + c)),
                             &sh_min, &sh_max);
        }
    free(vids.lane_vt);
    free(vids.sg_vs);
    if (sh_max > 1)
        g->cell_w = 48;
    char name[160];
    ls_viz_operand_name(p, k, name, sizeof name);
    fmt(out->title, sizeof out->title, "nested layout of %s", name);
    ls_nested_layout_format(&proj, out->subtitle, sizeof out->subtitle);
    operand_legend(out, p, d, k, sh_min, sh_max, thread);
    char note[200], vt[96];
    ls_plan_input_vector_type(pl, k, vt, sizeof vt);
    fmt(note, sizeof note,
        "The layout of %s projected onto input %d; T#: thread in the workgroup, S#: subgroup, "
        "V#: index in its %s.",
        p->name, k, vt);
    note_add(out, note);
    if (rank > 2)
        note_add(out, "Other dims fixed at 0.");
    return LS_OK;
}
