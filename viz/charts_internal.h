/* charts_internal.h: what the chart files share -- the page geometry, the
 * small drawing helpers, and each chart's size and draw functions, which
 * charts.c's ls_chart_size and ls_chart_draw dispatch to. */
#ifndef LANESCOPE_CHARTS_INTERNAL_H
#define LANESCOPE_CHARTS_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "lanescope/viz.h"

#define LS_PI 3.14159265358979323846
#define MARGIN 18.0
#define TITLE_PT 15.0
#define SUB_PT 10.5
#define LABEL_PT 9.0

static inline void set_rgb(cairo_t *cr, ls_rgb c)
{
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

/* 1234567 -> "1.23 M"; keeps axis and bar labels short. */
static inline void human(char *buf, size_t size, double v)
{
    double a = fabs(v);
    if (a >= 1e9)
        snprintf(buf, size, "%.3g G", v / 1e9);
    else if (a >= 1e6)
        snprintf(buf, size, "%.3g M", v / 1e6);
    else if (a >= 1e4)
        snprintf(buf, size, "%.3g k", v / 1e3);
    else
        snprintf(buf, size, "%.4g", v);
}

static inline double header_h(const ls_chart *c)
{
    return MARGIN + TITLE_PT * 1.5 + (c->subtitle[0] ? SUB_PT * 1.6 : 0) + 10;
}

/* A "nice" axis step near range / n: 1, 2 or 5 times a power of ten. */
static inline double nice_step(double range, int n)
{
    double raw = range / n, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

/* Ticks of one axis (ticks.c): linear ticks are values, log ticks are
 * decade exponents.  ls_ticks_linear chooses round multiples of a 1-2-5
 * step within [lo, hi]; ls_ticks_log every decade, or every 2nd, 5th, 10th
 * ..., of [lo_exp, hi_exp]; both keep ticks at least min_gap points apart
 * on an axis len points long.  Labels share the axis's unit and decimals. */
#define LS_MAX_TICKS 64
typedef struct {
    int n;
    bool log;
    double step; /* between ticks: a value, or decades */
    double v[LS_MAX_TICKS];
} ls_axis_ticks;
void ls_ticks_linear(double lo, double hi, double len, double min_gap, ls_axis_ticks *t);
void ls_ticks_log(double lo_exp, double hi_exp, double len, double min_gap, ls_axis_ticks *t);
double ls_tick_value(const ls_axis_ticks *t, int i);
void ls_tick_label(const ls_axis_ticks *t, int i, char *buf, size_t size);

/* An axis's place on the page: values lo..hi (decade exponents on a log
 * axis) over len points from pos, y growing down (flip: the value grows
 * up, as a y axis does). */
typedef struct {
    double pos, len, lo, hi;
    bool log, flip;
} ls_axis_map;
static inline double ls_axis_at(const ls_axis_map *m, double v)
{
    double f = ((m->log ? log10(v) : v) - m->lo) / (m->hi - m->lo);
    return m->flip ? m->pos + m->len - m->len * f : m->pos + m->len * f;
}
/* Grid lines and labels of a y axis's ticks across the plot (x0..x0+w),
 * labels right-aligned left of it. */
void ls_chart_y_grid(cairo_t *cr, const ls_axis_ticks *t, const ls_axis_map *y, double x0,
                     double w);
/* A y axis's title, bold, turned to read upwards, centred at (x, y). */
void ls_chart_y_title(cairo_t *cr, const char *text, double x, double y);
/* A chart's kind, title and subtitle, everything else empty. */
void ls_chart_begin(ls_chart *out, ls_chart_kind kind, const char *title, const char *subtitle);

/* charts_compare.c: the measured-vs-simulated scatter */
void ls_chart_compare_size(const ls_chart *c, double *w, double *h);
void ls_chart_compare_draw(cairo_t *cr, const ls_chart *c);

/* charts_roofline.c: draw roofline */
void ls_chart_roofline_size(const ls_chart *c, double *w, double *h);
void ls_chart_roofline_draw(cairo_t *cr, const ls_chart *c);

#endif
