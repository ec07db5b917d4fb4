/* charts_compare.c: the measured-vs-simulated scatter -- its error
 * figures, its CSV reader (columns by name, RFC 4180 fields) and its
 * drawing, y = x with +-10% and +-25% bands. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/atomic.h"
#include "lanescope/compare.h"
#include "lanescope/csv.h"
#include "lanescope/viz.h"
#include "charts_internal.h"
#include "viztext.h"

#define COMPARE_PLOT 440.0

void ls_compare_errors(const ls_compare_point *pts, size_t n, double *mean_rel, double *max_rel,
                       double *within10, double *within25)
{
    double sum = 0, mx = 0;
    size_t w10 = 0, w25 = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs(pts[i].simulated - pts[i].measured) / pts[i].measured;
        sum += e;
        if (e > mx)
            mx = e;
        w10 += e <= 0.10;
        w25 += e <= 0.25;
    }
    *mean_rel = n ? sum / (double)n : 0;
    *max_rel = mx;
    *within10 = n ? (double)w10 / (double)n : 0;
    *within25 = n ? (double)w25 / (double)n : 0;
}

/* Parses a finite positive number filling the whole field, at most
 * LS_COMPARE_MAX_US (past it the chart's axes would overflow). */
static bool parse_positive(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno || !isfinite(v) || v <= 0 || v > LS_COMPARE_MAX_US)
        return false;
    *out = v;
    return true;
}

static const char *const compare_columns[3] = {"name", "measured_us", "simulated_us"};

/* The column line: where name, measured_us and simulated_us are. */
static ls_status compare_column_line(char **fld, const int *col, int n, int *idx,
                                     const char *path, int lineno, ls_diag *diag)
{
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 3; k++)
            if (strcmp(fld[j], compare_columns[k]) == 0) {
                if (idx[k] >= 0)
                    return ls_diag_set(diag, LS_ERR_SYNTAX, path, lineno, col[j],
                                       "column '%s' named twice", compare_columns[k]);
                idx[k] = j;
            }
    for (int k = 0; k < 3; k++)
        if (idx[k] < 0)
            return ls_diag_set(diag, LS_ERR_SYNTAX, path, lineno, 1,
                               "the column line has no '%s' column (expected "
                               "name,measured_us,simulated_us, in any order)",
                               compare_columns[k]);
    return LS_OK;
}

/* One kernel's row, appended to out. */
static ls_status compare_row(char **fld, const int *col, const int *idx, ls_chart *out,
                             size_t *cap, const char *path, int lineno, ls_diag *diag)
{
    double v[2];
    for (int k = 1; k < 3; k++)
        if (!parse_positive(fld[idx[k]], &v[k - 1]))
            return ls_diag_set(diag, LS_ERR_SYNTAX, path, lineno, col[idx[k]],
                               "%s must be a positive number of microseconds up to %g, found "
                               "'%s'",
                               compare_columns[k], LS_COMPARE_MAX_US, fld[idx[k]]);
    if (out->n_points == LS_COMPARE_MAX_POINTS)
        return ls_diag_set(diag, LS_ERR_LIMIT, path, lineno, 1, "more than %d points",
                           LS_COMPARE_MAX_POINTS);
    if (out->n_points == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        out->points = ls_xrealloc(out->points, *cap * sizeof *out->points);
    }
    ls_compare_point *pt = &out->points[out->n_points++];
    snprintf(pt->name, sizeof pt->name, "%s", fld[idx[0]]);
    pt->measured = v[0];
    pt->simulated = v[1];
    return LS_OK;
}

/* A CSV of timings: a column line naming name, measured_us and
 * simulated_us (in any order; other columns are skipped), then one row per
 * kernel.  Fields are split as RFC 4180 defines them (csv.h). */
ls_status ls_viz_compare_csv(const char *path, ls_chart *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    out->kind = LS_CHART_COMPARE;
    enum { MAX_FIELDS = LS_COMPARE_MAX_FIELDS, MAX_LINE = LS_COMPARE_MAX_LINE };
    char *text;
    size_t len;
    if (ls_read_text(path, LS_COMPARE_MAX_FILE, &text, &len, diag))
        return diag->status;
    char line[MAX_LINE + 1];
    int lineno = 0, idx[3] = {-1, -1, -1}, n_fields = 0;
    size_t cap = 0;
    ls_status st = LS_OK;
    for (const char *p = text; st == LS_OK && p < text + len;) {
        const char *eol = memchr(p, '\n', (size_t)(text + len - p));
        size_t n = eol ? (size_t)(eol - p) : (size_t)(text + len - p);
        lineno++;
        const char *at = p;
        p += n + (eol != NULL);
        while (n && at[n - 1] == '\r')
            n--;
        if (n > MAX_LINE) {
            st = ls_diag_set(diag, LS_ERR_LIMIT, path, lineno, MAX_LINE + 1,
                             "line longer than %d bytes (the limit)", MAX_LINE);
            break;
        }
        memcpy(line, at, n);
        line[n] = '\0';
        if (n == 0 || line[0] == '#')
            continue;
        char *fld[MAX_FIELDS];
        int col[MAX_FIELDS], bad = 1;
        int nf = ls_csv_split(line, fld, col, MAX_FIELDS, &bad);
        if (nf == -1)
            st = ls_diag_set(diag, LS_ERR_LIMIT, path, lineno, 1, "more than %d fields",
                             MAX_FIELDS);
        else if (nf == -2)
            st = ls_diag_set(diag, LS_ERR_SYNTAX, path, lineno, bad,
                             "a quoted field must close its quote on the same line and be "
                             "followed by a comma or the line's end");
        else if (n_fields == 0) {
            st = compare_column_line(fld, col, nf, idx, path, lineno, diag);
            n_fields = nf;
        } else if (nf != n_fields)
            st = ls_diag_set(diag, LS_ERR_SYNTAX, path, lineno,
                             nf > n_fields ? col[n_fields] : 1,
                             "expected %d fields, as the column line names, found %d", n_fields,
                             nf);
        else
            st = compare_row(fld, col, idx, out, &cap, path, lineno, diag);
    }
    free(text);
    if (st == LS_OK && n_fields == 0)
        st = ls_diag_set(diag, LS_ERR_SYNTAX, path, lineno, 1,
                         "no column line (expected name,measured_us,simulated_us)");
    if (st == LS_OK && out->n_points == 0)
        st = ls_diag_set(diag, LS_ERR_SYNTAX, path, lineno, 1,
                         "no data rows (expected name,measured_us,simulated_us)");
    if (st) {
        ls_chart_free(out);
        return st;
    }
    const char *base = strrchr(path, '/');
    snprintf(out->title, sizeof out->title, "simulated vs measured: %s", base ? base + 1 : path);
    double mean, mx, w10, w25;
    ls_compare_errors(out->points, out->n_points, &mean, &mx, &w10, &w25);
    snprintf(out->subtitle, sizeof out->subtitle,
             "%zu kernels; mean |error| %.1f%%, max %.1f%%, within 10%%: %.0f%%, within 25%%: "
             "%.0f%%",
             out->n_points, 100 * mean, 100 * mx, 100 * w10, 100 * w25);
    snprintf(out->notes[out->n_notes++], sizeof out->notes[0],
             "error = |simulated - measured| / measured; bands: +-10%% and +-25%% around y = x.");
    return LS_OK;
}

/* |simulated - measured| / measured, for choosing which points to name */
static double label_error(const ls_compare_point *p)
{
    return p->measured > 0 ? fabs(p->simulated - p->measured) / p->measured : 0;
}

void ls_chart_compare_size(const ls_chart *c, double *w, double *h)
{
    *w = MARGIN * 2 + 70 + COMPARE_PLOT + 30;
    *h = header_h(c) + COMPARE_PLOT + 50 + c->n_notes * LABEL_PT * 1.7 + MARGIN;
}

/* Value v's place on an axis from a to b (log10 exponents when logx),
 * 0 to 1. */
static double map_axis(bool logx, double a, double b, double v)
{
    return logx ? (log10(v) - a) / (b - a) : (v - a) / (b - a);
}

/* The 10% and 25% error bands around y = x, polygons sampled along x,
 * in the plot of side S at (px, py). */
static void draw_bands(cairo_t *cr, double px, double py, double S, bool logx, double a, double b)
{
    for (int band = 1; band >= 0; band--) {
        double f = band ? 0.25 : 0.10;
        cairo_set_source_rgba(cr, 0.34, 0.71, 0.91, band ? 0.14 : 0.22);
        for (int i = 0; i <= 64; i++) {
            double t = i / 64.0, v = logx ? pow(10, a + t * (b - a)) : a + t * (b - a);
            double X = px + S * map_axis(logx, a, b, fmax(v, 1e-300)),
                   Y = py + S - S * map_axis(logx, a, b, fmax(v * (1 + f), 1e-300));
            if (i == 0)
                cairo_move_to(cr, X, Y);
            else
                cairo_line_to(cr, X, Y);
        }
        for (int i = 64; i >= 0; i--) {
            double t = i / 64.0, v = logx ? pow(10, a + t * (b - a)) : a + t * (b - a);
            double X = px + S * map_axis(logx, a, b, fmax(v, 1e-300)),
                   Y = py + S - S * map_axis(logx, a, b, fmax(v * (1 - f), 1e-300));
            cairo_line_to(cr, X, Y);
        }
        cairo_close_path(cr);
        cairo_fill(cr);
    }
}

/* The legend, top left inside the plot at (px, py) (where simulated >>
 * measured, rarely a point); box: where it lies, for the names to avoid. */
static void draw_legend(cairo_t *cr, double px, double py, double box[4])
{
    static const char *const what[] = {"within 10%", "within 25%", "y = x", "a kernel"};
    double lx = px + 8, ly = py + 8, row = 13, lw = 0;
    for (int i = 0; i < 4; i++)
        lw = fmax(lw, ls_viz_text_w(cr, what[i], 8, false));
    lw += 30;
    cairo_set_source_rgba(cr, 1, 1, 1, 0.9);
    cairo_rectangle(cr, lx, ly, lw, 4 * row + 6);
    cairo_fill(cr);
    for (int i = 0; i < 4; i++) {
        double y = ly + 3 + i * row;
        if (i < 2) { /* the bands as drawn: the 10% one lies over the 25% one */
            cairo_set_source_rgba(cr, 0.34, 0.71, 0.91, 0.14);
            cairo_rectangle(cr, lx + 4, y + 2, 18, 8);
            cairo_fill(cr);
            if (i == 0) {
                cairo_set_source_rgba(cr, 0.34, 0.71, 0.91, 0.22);
                cairo_rectangle(cr, lx + 4, y + 2, 18, 8);
                cairo_fill(cr);
            }
        } else if (i == 2) {
            cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
            cairo_move_to(cr, lx + 4, y + 6);
            cairo_line_to(cr, lx + 22, y + 6);
            cairo_stroke(cr);
        } else {
            set_rgb(cr, ls_viz_series_colour(4));
            cairo_arc(cr, lx + 13, y + 6, 4, 0, 2 * LS_PI);
            cairo_fill(cr);
        }
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        ls_viz_text_at(cr, what[i], lx + 27, y + 9, 8, false, 0);
    }
    box[0] = lx;
    box[1] = ly;
    box[2] = lx + lw;
    box[3] = ly + 4 * row + 6;
}

/* The chart's notes under the plot (of side S at height py), each cut
 * to the chart's width. */
static void draw_notes(cairo_t *cr, const ls_chart *c, double py, double S)
{
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    double w, h;
    ls_chart_compare_size(c, &w, &h);
    for (int i = 0; i < c->n_notes; i++) {
        /* a note wider than the chart is cut at a character and ends in an
         * ellipsis, never drawn past the edge */
        char note[sizeof c->notes[0] + 4];
        snprintf(note, sizeof note, "%s", c->notes[i]);
        size_t n = strlen(note);
        while (n > 0 && ls_viz_text_w(cr, note, LABEL_PT, false) > w - 2 * MARGIN) {
            do
                n--;
            while (n > 0 && ((unsigned char)note[n] & 0xC0) == 0x80);
            memcpy(note + n, "\xe2\x80\xa6", 4); /* U+2026 and the terminator */
        }
        ls_viz_text_at(cr, note, MARGIN, py + S + 44 + (i + 0.5) * LABEL_PT * 1.7, LABEL_PT, false,
                       0);
    }
}

/* The plot's frame, its ticks and grid (one scale for both axes: the gap
 * fits the horizontal labels of x) and the axis titles. */
static void draw_axes(cairo_t *cr, double px, double py, double S, bool logx, double a, double b)
{
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_set_line_width(cr, 1.0);
    cairo_rectangle(cr, px, py, S, S);
    cairo_stroke(cr);
    ls_axis_ticks at;
    if (logx)
        ls_ticks_log(a, b, S, 40, &at);
    else
        ls_ticks_linear(a, b, S, fmax(44, S / 8), &at);
    for (int i = 0; i < at.n; i++) {
        double t = (at.v[i] - a) / (b - a);
        char buf[32];
        ls_tick_label(&at, i, buf, sizeof buf);
        cairo_set_source_rgba(cr, 0, 0, 0, 0.12);
        cairo_move_to(cr, px + t * S, py);
        cairo_line_to(cr, px + t * S, py + S);
        cairo_move_to(cr, px, py + S - t * S);
        cairo_line_to(cr, px + S, py + S - t * S);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        ls_viz_text_at(cr, buf, px + t * S, py + S + 13, LABEL_PT, false, 0.5);
        ls_viz_text_at(cr, buf, px - 5, py + S - t * S + 3, LABEL_PT, false, 1);
    }
    ls_viz_text_at(cr, logx ? "measured (us, log)" : "measured (us)", px + S / 2, py + S + 30, 10, true,
            0.5);
    ls_chart_y_title(cr, logx ? "simulated (us, log)" : "simulated (us)", MARGIN + 12, py + S / 2);
}

/* The points' names, the points furthest off first (order gets sorted so),
 * each at the first of four places beside its point that overlaps no point,
 * no name already placed and not the legend; at most 16. */
static void place_names(cairo_t *cr, const ls_chart *c, const double *X, const double *Y,
                        size_t *order, double px, double py, double S)
{
    size_t np = c->n_points;
    for (size_t i = 1; i < np; i++) /* insertion sort by |error|, largest first */
        for (size_t j = i; j > 0 && label_error(&c->points[order[j]]) >
                                        label_error(&c->points[order[j - 1]]); j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    double boxes[17][4];
    int nb = 0;
    /* the legend first: names avoid it as they avoid each other */
    draw_legend(cr, px, py, boxes[nb++]);
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    for (size_t k = 0; k < np && nb < 17; k++) {
        size_t i = order[k];
        const char *name = c->points[i].name;
        double w = ls_viz_text_w(cr, name, 8, false), h = 9;
        const double cand[4][2] = {{X[i] + 6, Y[i] - 4}, {X[i] - 6 - w, Y[i] - 4},
                                   {X[i] - w / 2, Y[i] - 8}, {X[i] - w / 2, Y[i] + 14}};
        for (int cnd = 0; cnd < 4; cnd++) {
            double bx = cand[cnd][0], by = cand[cnd][1] - h + 2; /* box from the baseline */
            bool clear = bx >= px && bx + w <= px + S && by >= py && by + h <= py + S;
            for (int bi = 0; bi < nb && clear; bi++)
                clear = bx + w < boxes[bi][0] || boxes[bi][2] < bx || by + h < boxes[bi][1] ||
                        boxes[bi][3] < by;
            for (size_t q = 0; q < np && clear; q++)
                clear = X[q] + 4 < bx || bx + w < X[q] - 4 || Y[q] + 4 < by || by + h < Y[q] - 4;
            if (!clear)
                continue;
            ls_viz_text_at(cr, name, cand[cnd][0], cand[cnd][1], 8, false, 0);
            boxes[nb][0] = bx;
            boxes[nb][1] = by;
            boxes[nb][2] = bx + w;
            boxes[nb][3] = by + h;
            nb++;
            break;
        }
    }
}

void ls_chart_compare_draw(cairo_t *cr, const ls_chart *c)
{
    double px = MARGIN + 70, py = header_h(c) + 8, S = COMPARE_PLOT;
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < c->n_points; i++) {
        lo = fmin(lo, fmin(c->points[i].measured, c->points[i].simulated));
        hi = fmax(hi, fmax(c->points[i].measured, c->points[i].simulated));
    }
    bool logx = hi / lo > 20;
    double a, b;
    if (logx) {
        a = floor(log10(lo / 1.3));
        b = ceil(log10(hi * 1.3));
    } else {
        double st = nice_step(hi * 1.3, 6);
        a = 0;
        b = ceil(hi * 1.3 / st) * st;
    }
#define MAP(v) (logx ? (log10(v) - a) / (b - a) : ((v)-a) / (b - a))
    cairo_save(cr);
    cairo_rectangle(cr, px, py, S, S);
    cairo_clip(cr);
    draw_bands(cr, px, py, S, logx, a, b);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1.0);
    cairo_move_to(cr, px, py + S);
    cairo_line_to(cr, px + S, py);
    cairo_stroke(cr);
    cairo_restore(cr);
    draw_axes(cr, px, py, S, logx, a, b);
    /* points, then names: the points furthest off first, each at the first
     * of four places beside its point that overlaps no point and no name
     * already placed; at most 16 names, so a big suite stays readable and its
     * worst cases are named */
    size_t np = c->n_points;
    double *X = ls_xcalloc(np + 1, sizeof *X), *Y = ls_xcalloc(np + 1, sizeof *Y);
    size_t *order = ls_xcalloc(np + 1, sizeof *order);
    for (size_t i = 0; i < np; i++) {
        const ls_compare_point *p = &c->points[i];
        X[i] = px + S * MAP(p->measured);
        Y[i] = py + S - S * MAP(p->simulated);
        set_rgb(cr, ls_viz_series_colour(4));
        cairo_arc(cr, X[i], Y[i], 4, 0, 2 * LS_PI);
        cairo_fill(cr);
        order[i] = i;
    }
#undef MAP
    place_names(cr, c, X, Y, order, px, py, S);
    free(X);
    free(Y);
    free(order);
    draw_notes(cr, c, py, S);
}
