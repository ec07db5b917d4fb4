/* grids_internal.h: label and legend helpers shared by the grid pictures
 * (grids.c: layout, nested, swizzle; grids_banks.c: banks; grids_operand.c:
 * one input's loads).  Internal to viz/. */
#ifndef LANESCOPE_GRIDS_INTERNAL_H
#define LANESCOPE_GRIDS_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/viz.h"

/* a >= 0, b > 0; without a + b - 1, which overflows for a workgroup tile
 * near int64's limit (a tile may be far past the dim's size). */
static inline int64_t ceil_div(int64_t a, int64_t b)
{
    return a / b + (a % b != 0);
}

/* A swizzled buffer's row length in elements (a row stride, when given). */
static inline int64_t swz_row_elems(const ls_swizzle *s)
{
    return s->kind == LS_SWIZZLE_XOR_SHUFFLE && s->row_stride > 0 ? s->row_stride : s->row_width;
}

/* snprintf for labels: cutting a long label short is the intent, so the
 * truncation is not worth a warning at every call. */
__attribute__((format(printf, 3, 4))) static inline void fmt(char *dst, size_t size, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(dst, size, f, ap);
    va_end(ap);
}

static inline void copy_str(char *dst, size_t size, const char *src)
{
    fmt(dst, size, "%s", src);
}

/* "T0", "T0|T16", "T0|T16+6": the holders of an element. */
static inline void owners_label(char *buf, size_t size, const int64_t *tids, int64_t n_listed,
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

static inline void axis_heads(char (*head)[LS_GRID_HEADER], int n, int64_t first, int64_t step,
                       int64_t limit)
{
    for (int i = 0; i < n; i++) {
        /* b = min(a + step, first + limit) - 1 without passing the last
         * coordinate, first + limit - 1, which ls_tile_reach bounds: a + step
         * may not fit (i * step < limit for every head drawn) */
        int64_t a = first + i * step, left = limit - i * step;
        int64_t b = a + (left < step ? left : step) - 1;
        if (step == 1)
            fmt(head[i], LS_GRID_HEADER, "%lld", (long long)a);
        else
            fmt(head[i], LS_GRID_HEADER, "%lld-%lld", (long long)a, (long long)b);
    }
}

static inline void set_groups(ls_grid *g, int64_t n, const char *prefix)
{
    if (n > 4096)
        n = 4096;
    g->n_groups = (int)n;
    g->group_name = ls_xcalloc((size_t)n, sizeof *g->group_name);
    for (int64_t i = 0; i < n; i++)
        fmt(g->group_name[i], sizeof g->group_name[i], "%s%lld", prefix, (long long)i);
}

static inline void legend_add(ls_figure *f, ls_rgb c, uint8_t flags, const char *text)
{
    if (f->n_legend >= LS_FIGURE_MAX_LEGEND)
        return;
    f->legend[f->n_legend].colour = c;
    f->legend[f->n_legend].flags = flags;
    copy_str(f->legend[f->n_legend].text, sizeof f->legend[0].text, text);
    f->n_legend++;
}

/* The subgroups' swatches: one per hue (S0..S7, with the subgroups that
 * repeat it), and when there are more than eight, one per mark. */
void ls_grid_subgroup_legend(ls_figure *f, int64_t subgroups, int64_t lanes);
/* A picture's subtitle: the reduction's lowering_config, or for an
 * attention's view (whose config is both matmuls' at once) what it is. */
void ls_grid_config_subtitle(const ls_problem *p, char *buf, size_t size);

static inline void note_add(ls_figure *f, const char *text)
{
    if (f->n_notes < LS_FIGURE_MAX_NOTES)
        copy_str(f->notes[f->n_notes++], sizeof f->notes[0], text);
}

/* Extent of a workgroup tile along dim i: the workgroup tile for parallel
 * dims, one partial-reduction chunk for reduced dims. */
static inline int64_t tile_extent(const ls_problem *p, const ls_derived *d, int i)
{
    int64_t e = p->is_reduction[i] ? d->chunk[i] : d->wg_tile[i];
    return e > 0 ? e : 1;
}

static inline void choose_dims(int rank, const int64_t *ext, int *row, int *col)
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

static inline ls_status check_dims(int rank, int r, int c, ls_diag *diag)
{
    if (rank < 2)
        return ls_diag_set(diag, LS_ERR_USAGE, "--dims", 0, 0,
                           "a rank-%d space has no second dim to draw", rank);
    if (r < 0 || r >= rank || c < 0 || c >= rank || r == c)
        return ls_diag_set(diag, LS_ERR_USAGE, "--dims", 0, 0,
                           "dims %d,%d: need two different dims in 0..%d", r, c, rank - 1);
    return LS_OK;
}

#endif
