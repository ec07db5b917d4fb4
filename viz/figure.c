/* figure.c: colours, and the renderer for figures of cell grids (layout,
 * nested, swizzle and banks pictures).  It only draws what the builders
 * decided; geometry is computed by one function (fig_geometry) that both
 * the size query and the drawing use, so they cannot disagree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/viz.h"
#include "viztext.h"

#define MARGIN 18.0
#define PANEL_GAP 28.0
#define TITLE_PT 15.0
#define SUBTITLE_PT 10.5
#define CAPTION_PT 11.0
#define HEAD_PT 8.5
#define LEGEND_PT 9.5
#define NOTE_PT 9.0

/* ------------------------------------------------------------ colours */

ls_rgb ls_rgb_hex(uint32_t hex)
{
    return (ls_rgb){((hex >> 16) & 255) / 255.0, ((hex >> 8) & 255) / 255.0, (hex & 255) / 255.0};
}

/* Paul Tol's "light" scheme, meant for filled cells with labels on top. */
static const uint32_t tol_light[8] = {0x77AADD, 0xEE8866, 0x44BB99, 0xEEDD88,
                                      0xFFAABB, 0x99DDFF, 0xBBCC33, 0xAAAA00};
/* Okabe-Ito, for lines, bars and stages. */
static const uint32_t okabe_ito[8] = {0xE69F00, 0x56B4E9, 0x009E73, 0xF0E442,
                                      0x0072B2, 0xD55E00, 0xCC79A7, 0x999999};

ls_rgb ls_viz_thread_colour(int64_t subgroup, int64_t lane)
{
    ls_rgb c = ls_rgb_hex(tol_light[(subgroup % 8 + 8) % 8]);
    /* Eight shades per hue; lane*3 mod 8 puts neighbouring lanes far apart
     * on the ramp so their cells stay distinct side by side. */
    int k = (int)(((lane % 8 + 8) % 8) * 3 % 8);
    double t = k / 7.0; /* 0: darker, 1: lighter */
    double mix = -0.28 + 0.56 * t;
    if (mix >= 0) {
        c.r += (1 - c.r) * mix;
        c.g += (1 - c.g) * mix;
        c.b += (1 - c.b) * mix;
    } else {
        c.r *= 1 + mix;
        c.g *= 1 + mix;
        c.b *= 1 + mix;
    }
    return c;
}

uint8_t ls_viz_subgroup_marks(int64_t subgroup)
{
    int64_t cycle = subgroup / 8; /* which repeat of the eight hues */
    return (uint8_t)((cycle & 1 ? LS_CELL_DOTS : 0) | (cycle & 2 ? LS_CELL_BARS : 0));
}

ls_rgb ls_viz_series_colour(int k)
{
    return ls_rgb_hex(okabe_ito[(k % 8 + 8) % 8]);
}

static double lin(double c)
{
    return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

ls_rgb ls_viz_text_on(ls_rgb bg)
{
    double l = 0.2126 * lin(bg.r) + 0.7152 * lin(bg.g) + 0.0722 * lin(bg.b);
    /* contrast with black (l+0.05)/0.05 against white 1.05/(l+0.05) */
    return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? (ls_rgb){0, 0, 0} : (ls_rgb){1, 1, 1};
}

void ls_rgb_bytes(ls_rgb c, uint8_t out[3])
{
    double v[3] = {c.r, c.g, c.b};
    for (int i = 0; i < 3; i++) {
        double x = v[i] < 0 ? 0 : v[i] > 1 ? 1 : v[i];
        out[i] = (uint8_t)lround(x * 255.0);
    }
}

/* ------------------------------------------------------------ figures */

ls_grid *ls_figure_add_panel(ls_figure *f, int rows, int cols)
{
    if (f->n_panels >= LS_FIGURE_MAX_PANELS || rows < 1 || cols < 1 ||
        (int64_t)rows * cols > LS_GRID_MAX_CELLS)
        return NULL;
    ls_grid *g = &f->panels[f->n_panels++];
    memset(g, 0, sizeof *g);
    g->rows = rows;
    g->cols = cols;
    g->cells = ls_xcalloc((size_t)rows * (size_t)cols, sizeof *g->cells);
    for (int i = 0; i < rows * cols; i++) {
        g->cells[i].block = -1;
        g->cells[i].group = -1;
        g->cells[i].fill = (ls_rgb){1, 1, 1};
    }
    g->row_head = ls_xcalloc((size_t)rows, sizeof *g->row_head);
    g->col_head = ls_xcalloc((size_t)cols, sizeof *g->col_head);
    g->cell_w = 34;
    g->cell_h = 30;
    return g;
}

void ls_figure_free(ls_figure *f)
{
    for (int k = 0; k < f->n_panels; k++) {
        free(f->panels[k].cells);
        free(f->panels[k].row_head);
        free(f->panels[k].col_head);
        free(f->panels[k].group_name);
        free(f->panels[k].row_note);
    }
    f->n_panels = 0;
}

int ls_figure_take_panels(ls_figure *dst, ls_figure *src)
{
    int moved = 0;
    while (moved < src->n_panels && dst->n_panels < LS_FIGURE_MAX_PANELS)
        dst->panels[dst->n_panels++] = src->panels[moved++];
    memmove(src->panels, src->panels + moved, (size_t)(src->n_panels - moved) * sizeof src->panels[0]);
    src->n_panels -= moved;
    return moved;
}

typedef struct {
    double w, h;
    double title_y, subtitle_y;
    double panel_x[LS_FIGURE_MAX_PANELS], panel_y[LS_FIGURE_MAX_PANELS];
    double row_head_w[LS_FIGURE_MAX_PANELS], note_w[LS_FIGURE_MAX_PANELS];
    double caption_h, col_head_h;
    double legend_y, legend_h, notes_y;
    double legend_x[LS_FIGURE_MAX_LEGEND], legend_row[LS_FIGURE_MAX_LEGEND];
} fig_geom;

static void fig_geometry(cairo_t *cr, const ls_figure *f, fig_geom *g)
{
    memset(g, 0, sizeof *g);
    double y = MARGIN;
    g->title_y = y + TITLE_PT;
    y += TITLE_PT * 1.5;
    if (f->subtitle[0]) {
        g->subtitle_y = y + SUBTITLE_PT;
        y += SUBTITLE_PT * 1.6;
    }
    y += 6;
    double top = y;
    g->caption_h = CAPTION_PT * 1.7;
    g->col_head_h = HEAD_PT * 2.0;
    double x = MARGIN, panels_h = 0;
    for (int k = 0; k < f->n_panels; k++) {
        const ls_grid *p = &f->panels[k];
        double rw = ls_viz_text_w(cr, p->row_axis, HEAD_PT, true);
        for (int r = 0; r < p->rows; r++) {
            double w = ls_viz_text_w(cr, p->row_head[r], HEAD_PT, false);
            if (w > rw)
                rw = w;
        }
        g->row_head_w[k] = rw + 8;
        double nw = 0;
        if (p->row_note)
            for (int r = 0; r < p->rows; r++) {
                double w = ls_viz_text_w(cr, p->row_note[r], HEAD_PT, true);
                if (w > nw)
                    nw = w;
            }
        g->note_w[k] = nw > 0 ? nw + 10 : 0;
        double pw = g->row_head_w[k] + p->cols * p->cell_w + g->note_w[k];
        double cw = ls_viz_text_w(cr, p->caption, CAPTION_PT, true);
        if (cw > pw)
            pw = cw;
        double ph = g->caption_h + g->col_head_h + p->rows * p->cell_h;
        if (f->stacked) {
            g->panel_x[k] = MARGIN;
            g->panel_y[k] = top + panels_h;
            panels_h += ph + PANEL_GAP * 0.6;
            if (MARGIN + pw > x)
                x = MARGIN + pw;
        } else {
            g->panel_x[k] = x;
            g->panel_y[k] = top;
            x += pw + PANEL_GAP;
            if (ph > panels_h)
                panels_h = ph;
        }
    }
    double w = (f->stacked ? x : x - PANEL_GAP) + MARGIN;
    double tw = MARGIN * 2 + ls_viz_text_w(cr, f->title, TITLE_PT, true);
    if (tw > w)
        w = tw;
    double sw = MARGIN * 2 + ls_viz_text_w(cr, f->subtitle, SUBTITLE_PT, false);
    if (sw > w)
        w = sw;
    for (int i = 0; i < f->n_notes; i++) {
        double nw = MARGIN * 2 + ls_viz_text_w(cr, f->notes[i], NOTE_PT, false);
        if (nw > w)
            w = nw;
    }
    if (w < 320)
        w = 320;
    y = top + panels_h + 14;
    /* legend: swatch + text, wrapped at the figure width */
    g->legend_y = y;
    double lx = MARGIN, row = 0;
    for (int i = 0; i < f->n_legend; i++) {
        double iw = 16 + ls_viz_text_w(cr, f->legend[i].text, LEGEND_PT, false) + 16;
        if (lx + iw > w - MARGIN && lx > MARGIN) {
            lx = MARGIN;
            row++;
        }
        g->legend_x[i] = lx;
        g->legend_row[i] = row;
        lx += iw;
    }
    g->legend_h = f->n_legend ? (row + 1) * LEGEND_PT * 1.9 : 0;
    y += g->legend_h;
    g->notes_y = y + 4;
    y += f->n_notes * NOTE_PT * 1.6 + MARGIN;
    g->w = ceil(w);
    g->h = ceil(y);
}

/* Geometry without a target: text is measured on a 1x1 scratch surface. */
static void fig_geometry_offscreen(const ls_figure *f, fig_geom *g)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(s);
    fig_geometry(cr, f, g);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

void ls_figure_size(const ls_figure *f, double *w, double *h)
{
    fig_geom g;
    fig_geometry_offscreen(f, &g);
    *w = g.w;
    *h = g.h;
}

static void cell_origin(const ls_figure *f, const fig_geom *g, int k, int r, int c, double *x,
                        double *y)
{
    const ls_grid *p = &f->panels[k];
    *x = g->panel_x[k] + g->row_head_w[k] + c * p->cell_w;
    *y = g->panel_y[k] + g->caption_h + g->col_head_h + r * p->cell_h;
}

void ls_figure_cell_rect(const ls_figure *f, int panel, int row, int col, double *x, double *y,
                         double *w, double *h)
{
    fig_geom g;
    fig_geometry_offscreen(f, &g);
    cell_origin(f, &g, panel, row, col, x, y);
    *w = f->panels[panel].cell_w;
    *h = f->panels[panel].cell_h;
}

static void set_rgb(cairo_t *cr, ls_rgb c)
{
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

static void hatch(cairo_t *cr, double x, double y, double w, double h)
{
    cairo_save(cr);
    cairo_rectangle(cr, x, y, w, h);
    cairo_clip(cr);
    cairo_set_source_rgb(cr, 0.93, 0.93, 0.93);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 0.78, 0.78, 0.78);
    cairo_set_line_width(cr, 0.8);
    for (double d = -h; d < w; d += 6) {
        cairo_move_to(cr, x + d, y + h);
        cairo_line_to(cr, x + d + h, y);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

/* Subgroup marks (ls_viz_subgroup_marks): a grid of small dots, and
 * horizontal bars, dark and faint like the stripes so labels stay legible;
 * neither is diagonal, so both read apart from the stripes and the hatch. */
static void dots(cairo_t *cr, double x, double y, double w, double h)
{
    cairo_save(cr);
    cairo_rectangle(cr, x, y, w, h);
    cairo_clip(cr);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.38);
    for (double yy = y + 2; yy < y + h; yy += 4)
        for (double xx = x + 2 + ((int)((yy - y) / 4) % 2) * 2; xx < x + w; xx += 4) {
            cairo_arc(cr, xx, yy, 0.75, 0, 6.2831853);
            cairo_fill(cr);
        }
    cairo_restore(cr);
}

/* Faint dark parallel lines over a cell, clipped to it: horizontal
 * (diagonal false) or falling to the right, gap points apart. */
static void lines_over(cairo_t *cr, double x, double y, double w, double h, bool diagonal,
                       double gap, double width)
{
    cairo_save(cr);
    cairo_rectangle(cr, x, y, w, h);
    cairo_clip(cr);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.30);
    cairo_set_line_width(cr, width);
    for (double d = diagonal ? -h : 2.5; d < (diagonal ? w : h); d += gap) {
        cairo_move_to(cr, diagonal ? x + d : x, diagonal ? y : y + d);
        cairo_line_to(cr, diagonal ? x + d + h : x + w, diagonal ? y + h : y + d);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

static void bars(cairo_t *cr, double x, double y, double w, double h)
{
    lines_over(cr, x, y, w, h, false, 4.5, 1.0);
}

/* Broadcast marker: thin dark diagonal stripes over the fill (the other
 * way from the empty hatch), faint enough for the label to stay legible. */
static void stripes(cairo_t *cr, double x, double y, double w, double h)
{
    lines_over(cr, x, y, w, h, true, 5, 0.9);
}

static ls_rgb cell_fill(const ls_cell *c)
{
    ls_rgb f = c->fill;
    if (c->flags & LS_CELL_DIM) { /* fade toward white, keep the hue */
        f.r += (1 - f.r) * 0.72;
        f.g += (1 - f.g) * 0.72;
        f.b += (1 - f.b) * 0.72;
    }
    return f;
}

static void draw_cell(cairo_t *cr, const ls_cell *c, double x, double y, double w, double h)
{
    if (c->flags & LS_CELL_EMPTY) {
        hatch(cr, x, y, w, h);
    } else {
        set_rgb(cr, cell_fill(c));
        cairo_rectangle(cr, x, y, w, h);
        cairo_fill(cr);
        if (c->flags & LS_CELL_SHARED)
            stripes(cr, x, y, w, h);
        if (c->flags & LS_CELL_DOTS)
            dots(cr, x, y, w, h);
        if (c->flags & LS_CELL_BARS)
            bars(cr, x, y, w, h);
    }
    ls_rgb fg = ls_viz_text_on(cell_fill(c));
    if (c->flags & LS_CELL_EMPTY)
        fg = (ls_rgb){0.35, 0.35, 0.35};
    if (c->flags & LS_CELL_DIM)
        fg = (ls_rgb){0.45, 0.45, 0.45};
    bool two = c->label[1][0] && h >= 26;
    double pt1 = fmin(h * (two ? 0.34 : 0.42), 11.0);
    double pt2 = fmin(h * 0.27, 8.5);
    /* shrink a label until it fits the cell */
    for (int i = 0; i < 2; i++) {
        if (!c->label[i][0] || (i == 1 && !two))
            continue;
        double pt = i == 0 ? pt1 : pt2;
        double tw = ls_viz_text_w(cr, c->label[i], pt, i == 0);
        if (tw > w - 3)
            pt *= (w - 3) / tw;
        if (pt < 4.5)
            continue;
        set_rgb(cr, fg);
        double ty = two ? (i == 0 ? y + h * 0.47 : y + h * 0.82) : y + h * 0.5 + pt * 0.36;
        ls_viz_text_at(cr, c->label[i], x + w / 2, ty, pt, i == 0, 0.5);
    }
}

/* The cells' borders: hairlines around every cell, 1 pt between thread
 * blocks, 2.2 pt between groups (subgroups). */
static void draw_borders(cairo_t *cr, const ls_grid *p, double x0, double y0)
{
    for (int pass = 0; pass < 3; pass++) {
        double lw = pass == 0 ? 0.4 : pass == 1 ? 1.0 : 2.2;
        if (pass == 0)
            cairo_set_source_rgba(cr, 0, 0, 0, 0.18);
        else
            cairo_set_source_rgba(cr, 0.1, 0.1, 0.1, pass == 1 ? 0.55 : 0.9);
        cairo_set_line_width(cr, lw);
        for (int r = 0; r < p->rows; r++)
            for (int c = 0; c < p->cols; c++) {
                const ls_cell *a = &p->cells[r * p->cols + c];
                double x = x0 + c * p->cell_w, y = y0 + r * p->cell_h;
                if (c + 1 < p->cols) {
                    const ls_cell *b = &p->cells[r * p->cols + c + 1];
                    bool edge =
                        pass == 0 || (pass == 1 ? a->block != b->block && a->group == b->group
                                                : a->group != b->group);
                    if (edge) {
                        cairo_move_to(cr, x + p->cell_w, y);
                        cairo_line_to(cr, x + p->cell_w, y + p->cell_h);
                    }
                }
                if (r + 1 < p->rows) {
                    const ls_cell *b = &p->cells[(r + 1) * p->cols + c];
                    bool edge =
                        pass == 0 || (pass == 1 ? a->block != b->block && a->group == b->group
                                                : a->group != b->group);
                    if (edge) {
                        cairo_move_to(cr, x, y + p->cell_h);
                        cairo_line_to(cr, x + p->cell_w, y + p->cell_h);
                    }
                }
            }
        cairo_stroke(cr);
    }
}

/* Group tags: the name on the group's first cell, in a small box. */
static void draw_group_tags(cairo_t *cr, const ls_grid *p, double x0, double y0)
{
    if (p->group_name)
        for (int gi = 0; gi < p->n_groups; gi++) {
            if (!p->group_name[gi][0])
                continue;
            for (int i = 0; i < p->rows * p->cols; i++) {
                if (p->cells[i].group != gi)
                    continue;
                /* cells that name their subgroup themselves need no tag */
                if (p->cell_h >= 26 && p->cells[i].label[1][0] == 'S')
                    break;
                double x = x0 + (i % p->cols) * p->cell_w, y = y0 + (i / p->cols) * p->cell_h;
                double tw = ls_viz_text_w(cr, p->group_name[gi], 7.5, true);
                cairo_set_source_rgba(cr, 0.1, 0.1, 0.1, 0.85);
                cairo_rectangle(cr, x + 1, y + 1, tw + 4, 10);
                cairo_fill(cr);
                cairo_set_source_rgb(cr, 1, 1, 1);
                ls_viz_text_at(cr, p->group_name[gi], x + 3, y + 8.8, 7.5, true, 0);
                break;
            }
        }
}

static void draw_panel(cairo_t *cr, const ls_figure *f, const fig_geom *g, int k)
{
    const ls_grid *p = &f->panels[k];
    double x0, y0;
    cell_origin(f, g, k, 0, 0, &x0, &y0);
    double gw = p->cols * p->cell_w, gh = p->rows * p->cell_h;
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    ls_viz_text_at(cr, p->caption, g->panel_x[k], g->panel_y[k] + CAPTION_PT, CAPTION_PT, true, 0);
    /* headers: every label that fits without overlapping its neighbour */
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    double last_right = -1e9;
    for (int c = 0; c < p->cols; c++) {
        double cx = x0 + (c + 0.5) * p->cell_w;
        double tw = ls_viz_text_w(cr, p->col_head[c], HEAD_PT, false);
        if (cx - tw / 2 < last_right + 3)
            continue;
        ls_viz_text_at(cr, p->col_head[c], cx, y0 - HEAD_PT * 0.6, HEAD_PT, false, 0.5);
        last_right = cx + tw / 2;
    }
    double last_bottom = -1e9;
    for (int r = 0; r < p->rows; r++) {
        double cy = y0 + (r + 0.5) * p->cell_h + HEAD_PT * 0.35;
        if (cy - HEAD_PT < last_bottom)
            continue;
        ls_viz_text_at(cr, p->row_head[r], x0 - 5, cy, HEAD_PT, false, 1);
        last_bottom = cy;
    }
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    ls_viz_text_at(cr, p->row_axis, x0 - 5, y0 - HEAD_PT * 0.6, HEAD_PT, true, 1);
    if (p->col_axis[0])
        ls_viz_text_at(cr, p->col_axis, x0 + gw, y0 - HEAD_PT * 1.9, HEAD_PT, true, 1);
    for (int r = 0; r < p->rows; r++)
        for (int c = 0; c < p->cols; c++)
            draw_cell(cr, &p->cells[r * p->cols + c], x0 + c * p->cell_w, y0 + r * p->cell_h,
                      p->cell_w, p->cell_h);
    draw_borders(cr, p, x0, y0); /* then thick around the whole tile */
    cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
    cairo_set_line_width(cr, 3.0);
    cairo_rectangle(cr, x0, y0, gw, gh);
    cairo_stroke(cr);
    /* outlines for highlighted and alerted cells, on top of the borders */
    for (int r = 0; r < p->rows; r++)
        for (int c = 0; c < p->cols; c++) {
            const ls_cell *a = &p->cells[r * p->cols + c];
            if (!(a->flags & (LS_CELL_HIGHLIGHT | LS_CELL_ALERT)))
                continue;
            double x = x0 + c * p->cell_w, y = y0 + r * p->cell_h;
            if (a->flags & LS_CELL_ALERT)
                set_rgb(cr, ls_viz_series_colour(5));
            else
                cairo_set_source_rgb(cr, 0, 0, 0);
            cairo_set_line_width(cr, 2.0);
            cairo_rectangle(cr, x + 1.5, y + 1.5, p->cell_w - 3, p->cell_h - 3);
            cairo_stroke(cr);
        }
    draw_group_tags(cr, p, x0, y0);
    if (p->row_note) {
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        for (int r = 0; r < p->rows; r++)
            ls_viz_text_at(cr, p->row_note[r], x0 + gw + 8, y0 + (r + 0.5) * p->cell_h + HEAD_PT * 0.35,
                    HEAD_PT, true, 0);
    }
}

void ls_figure_draw(cairo_t *cr, const ls_figure *f)
{
    fig_geom g;
    cairo_save(cr);
    fig_geometry(cr, f, &g);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, 0, 0, g.w, g.h);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
    ls_viz_text_at(cr, f->title, MARGIN, g.title_y, TITLE_PT, true, 0);
    if (f->subtitle[0]) {
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        ls_viz_text_at(cr, f->subtitle, MARGIN, g.subtitle_y, SUBTITLE_PT, false, 0);
    }
    for (int k = 0; k < f->n_panels; k++)
        draw_panel(cr, f, &g, k);
    for (int i = 0; i < f->n_legend; i++) {
        double x = g.legend_x[i], y = g.legend_y + g.legend_row[i] * LEGEND_PT * 1.9;
        ls_cell sw;
        memset(&sw, 0, sizeof sw);
        sw.fill = f->legend[i].colour;
        sw.flags = f->legend[i].flags &
                   (LS_CELL_EMPTY | LS_CELL_DIM | LS_CELL_SHARED | LS_CELL_DOTS | LS_CELL_BARS);
        draw_cell(cr, &sw, x, y, 12, 12);
        if (f->legend[i].flags & (LS_CELL_HIGHLIGHT | LS_CELL_ALERT)) {
            if (f->legend[i].flags & LS_CELL_ALERT)
                set_rgb(cr, ls_viz_series_colour(5));
            else
                cairo_set_source_rgb(cr, 0, 0, 0);
            cairo_set_line_width(cr, 2);
            cairo_rectangle(cr, x + 1, y + 1, 10, 10);
            cairo_stroke(cr);
        } else {
            cairo_set_source_rgba(cr, 0, 0, 0, 0.4);
            cairo_set_line_width(cr, 0.6);
            cairo_rectangle(cr, x, y, 12, 12);
            cairo_stroke(cr);
        }
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        ls_viz_text_at(cr, f->legend[i].text, x + 16, y + 10, LEGEND_PT, false, 0);
    }
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    for (int i = 0; i < f->n_notes; i++)
        ls_viz_text_at(cr, f->notes[i], MARGIN, g.notes_y + (i + 0.8) * NOTE_PT * 1.6, NOTE_PT, false, 0);
    cairo_restore(cr);
}
