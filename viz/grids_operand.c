/* grids_operand.c: `draw layout/nested --operand K` -- which threads load
 * each element of one input of a reduction (cells read by several threads
 * striped with the count), over the operand's own dims. */
#include <stdlib.h>
#include <string.h>

#include "grids_internal.h"
#include "lanescope/layout.h"

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
        cell->flags |= ls_viz_subgroup_marks(rc->sg);
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
        if (!rc->mixed_sg)
            cell->flags |= ls_viz_subgroup_marks(rc->sg);
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
    char t[64];
    ls_grid_subgroup_legend(out, d->num_subgroups, d->subgroup_size);
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
        "Per thread and iteration: %lld load%s of %lld element%s of input %d (%lld-bit "
        "elements).",
        (long long)pl->inputs[k].loads, pl->inputs[k].loads == 1 ? "" : "s",
        (long long)pl->inputs[k].width, pl->inputs[k].width == 1 ? "" : "s", k,
        (long long)pl->inputs[k].elem_bits);
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
    ls_grid_config_subtitle(p, out->subtitle, sizeof out->subtitle);
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

bool ls_viz_operand_cell(const ls_plan *pl, int k, const ls_layout_view *v, int row, int col,
                         int64_t *oc, int *rank, int64_t *readers, int64_t *first, int64_t *vreg)
{
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_operand_reads r;
    if (ls_viz_operand_reads_init(pl, k, v->workgroup, v->iteration, -1, &r, &diag))
        return false;
    int dr = v->dim_row, dc = v->dim_col;
    bool ok = operand_dims(k, r.rank, r.extent, &dr, &dc, &diag) == LS_OK;
    int64_t er = dr >= 0 ? r.extent[dr] : 1, ec = dc >= 0 ? r.extent[dc] : 1;
    int64_t kr = ceil_div(er, LS_VIZ_MAX_AXIS_CELLS), kc = ceil_div(ec, LS_VIZ_MAX_AXIS_CELLS);
    ok = ok && row >= 0 && col >= 0 && row * kr < er && col * kc < ec;
    int64_t e = -1;
    if (ok) {
        operand_point(&r, v->at, dr, dc, row * kr, col * kc, oc);
        for (int j = 0; j < r.rank; j++)
            ok &= oc[j] < r.dim[j];
        e = ok ? ls_viz_operand_reads_index(&r, oc) : -1;
        ok = e >= 0 && r.readers[e] > 0;
    }
    if (ok) {
        *rank = r.rank;
        *readers = r.readers[e];
        *first = r.first[e];
        *vreg = r.vreg[e];
    }
    ls_viz_operand_reads_fini(&r);
    return ok;
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
