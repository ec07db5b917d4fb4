/* ticks.c: axis ticks for the charts -- round values (1, 2 or 5 times a
 * power of ten; whole decades on a log axis) spaced so their labels never
 * run into each other, and labels that share one unit and one number of
 * decimals along an axis ("0", "5 k", "10 k", never "5000" beside "10 k").
 * Everything is in points, so a picture's ticks fit at every scale. */
#include <math.h>
#include <stdio.h>

#include <string.h>

#include "charts_internal.h"
#include "viztext.h"

void ls_ticks_linear(double lo, double hi, double len, double min_gap, ls_axis_ticks *t)
{
    t->log = false;
    t->n = 0;
    if (!(hi > lo) || !isfinite(lo) || !isfinite(hi)) {
        t->step = 1;
        t->v[t->n++] = lo;
        return;
    }
    int fit = (int)(len / (min_gap > 1 ? min_gap : 1));
    if (fit < 1)
        fit = 1;
    if (fit > LS_MAX_TICKS - 1)
        fit = LS_MAX_TICKS - 1;
    /* the smallest round step that leaves at most `fit` gaps */
    double step = nice_step(hi - lo, fit);
    while ((hi - lo) / step > fit + 1e-9) { /* 1 -> 2 -> 5 -> 10 */
        double p = pow(10, floor(log10(step) + 1e-9)), f = step / p;
        step = (f < 1.5 ? 2 : f < 3.5 ? 5 : 10) * p;
    }
    t->step = step;
    double first = ceil(lo / step - 1e-9) * step;
    for (int k = 0; t->n < LS_MAX_TICKS; k++) {
        double v = first + k * step;
        if (v > hi + step * 1e-9)
            break;
        t->v[t->n++] = fabs(v) < step * 1e-9 ? 0 : v;
    }
    /* a range narrower than one step holds no multiple of it: one tick,
     * the roundest value inside (the finest step that reaches one) */
    for (int k = 0; t->n == 0 && k < 60; k++) {
        double p = pow(10, floor(log10(step) + 1e-9)), f = step / p;
        step = (f > 7.5 ? 5 : f > 3.5 ? 2 : f > 1.5 ? 1 : 0.5) * p;
        double v = ceil(lo / step - 1e-9) * step;
        if (v <= hi + step * 1e-9) {
            t->step = step;
            t->v[t->n++] = v;
        }
    }
}

void ls_ticks_log(double lo_exp, double hi_exp, double len, double min_gap, ls_axis_ticks *t)
{
    t->log = true;
    t->n = 0;
    double decades = hi_exp - lo_exp;
    if (!(decades > 0) || !isfinite(decades)) {
        t->step = 1;
        t->v[t->n++] = lo_exp;
        return;
    }
    /* every decade while the labels fit, else every 2nd, 5th, 10th ... */
    double per = len / decades, d = 1;
    for (int k = 0; per * d < min_gap || decades / d > LS_MAX_TICKS - 1; k++)
        d = (k % 3 == 0 ? 2 : k % 3 == 1 ? 5 : 10) * pow(10, floor(k / 3.0));
    t->step = d;
    double first = ceil(lo_exp / d - 1e-9) * d;
    for (int k = 0; t->n < LS_MAX_TICKS; k++) {
        double e = first + k * d;
        if (e > hi_exp + 1e-9)
            break;
        t->v[t->n++] = e;
    }
    if (t->n == 0) { /* the step passes over the range: the decade inside */
        t->step = 1;
        t->v[t->n++] = ceil(lo_exp - 1e-9) <= hi_exp + 1e-9 ? ceil(lo_exp - 1e-9) : lo_exp;
    }
}

double ls_tick_value(const ls_axis_ticks *t, int i)
{
    return t->log ? pow(10, t->v[i]) : t->v[i];
}

void ls_tick_label(const ls_axis_ticks *t, int i, char *buf, size_t size)
{
    if (t->log) {
        int e = (int)lround(t->v[i]);
        if (e >= -3 && e <= 4)
            snprintf(buf, size, "%g", pow(10, e));
        else
            snprintf(buf, size, "1e%d", e);
        return;
    }
    /* one unit for the whole axis, from its largest tick */
    double big = 0;
    for (int k = 0; k < t->n; k++)
        big = fmax(big, fabs(t->v[k]));
    double unit = big >= 1e9 ? 1e9 : big >= 1e6 ? 1e6 : big >= 1e4 ? 1e3 : 1;
    const char *suffix = unit == 1e9 ? " G" : unit == 1e6 ? " M" : unit == 1e3 ? " k" : "";
    int decimals = (int)ceil(-log10(t->step / unit) - 1e-9);
    if (decimals < 0)
        decimals = 0;
    if (decimals > 9)
        decimals = 9;
    double v = t->v[i] / unit;
    snprintf(buf, size, "%.*f%s", decimals, v == 0 ? 0.0 : v, v == 0 ? "" : suffix);
}

void ls_chart_y_grid(cairo_t *cr, const ls_axis_ticks *t, const ls_axis_map *y, double x0,
                     double w)
{
    for (int i = 0; i < t->n; i++) {
        double v = ls_tick_value(t, i), at = ls_axis_at(y, v);
        char buf[32];
        ls_tick_label(t, i, buf, sizeof buf);
        cairo_set_source_rgba(cr, 0, 0, 0, 0.12);
        cairo_move_to(cr, x0, at);
        cairo_line_to(cr, x0 + w, at);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        ls_viz_text_at(cr, buf, x0 - 5, at + 3, LABEL_PT, false, 1);
    }
}

void ls_chart_y_title(cairo_t *cr, const char *text, double x, double y)
{
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, -LS_PI / 2);
    ls_viz_text_at(cr, text, 0, 0, 10, true, 0.5);
    cairo_restore(cr);
}

void ls_chart_begin(ls_chart *out, ls_chart_kind kind, const char *title, const char *subtitle)
{
    memset(out, 0, sizeof *out);
    out->kind = kind;
    snprintf(out->title, sizeof out->title, "%s", title);
    snprintf(out->subtitle, sizeof out->subtitle, "%s", subtitle);
}
