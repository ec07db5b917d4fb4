/* charts_roofline.c: `draw roofline` -- each simulated dispatch (or swept
 * config) as a point of achieved throughput against arithmetic intensity,
 * under the model's roofs: DRAM bandwidth times intensity, the issue peak
 * (every scheduler of every WGP issuing one subgroup-wide op a cycle), and
 * for each point the memory-level-parallelism ceiling Little's law puts on
 * it (its bytes in flight over the DRAM latency), so a point under the
 * DRAM roof says whether the config or the memory is what holds it. */
#include <stdlib.h>
#include <string.h>

#include "lanescope/fused.h"
#include "lanescope/bottleneck.h"

#include "charts_internal.h"
#include "viztext.h"

#define ROOF_W 560.0
#define ROOF_H 380.0

void ls_viz_roof_point(const ls_problem *p, const ls_plan *plan, const ls_hw *hw,
                       const ls_sim_result *r, ls_roof_point *pt)
{
    memset(pt, 0, sizeof *pt);
    snprintf(pt->name, sizeof pt->name, "%.95s", p->name);
    double elems = 1;
    for (int i = 0; i < p->rank; i++)
        elems *= (double)p->size[i];
    double ops = elems * (1 + plan->body_alu_ops);
    if (plan->fused) { /* a dispatch's one kernel: every loop's ops */
        const ls_fused_kernel *k = plan->fused;
        ops = 0;
        for (int i = 0; i < k->n_phases; i++) {
            const ls_fused_phase *ph = &k->phase[i];
            if (ph->epilogue)
                continue; /* a few ops per result */
            ops += elems * ((ph->elementwise ? 0 : 1) + ph->plan->body_alu_ops);
        }
    }
    pt->intensity = r->dram_bytes > 0 ? ops / (double)r->dram_bytes : 0;
    pt->gops = r->kernel_us > 0 ? ops / (r->kernel_us * 1e3) : 0;
    ls_bottleneck bn;
    ls_bottleneck_analyze(plan, hw, r, &bn);
    pt->mlp_gops =
        bn.mlp_cap > 0 && bn.mlp_cap < 1 ? pt->intensity * hw->dram_gbps * bn.mlp_cap : 0;
    snprintf(pt->verdict, sizeof pt->verdict, "%.2f us, %.0f GB/s; %.440s", r->time_us,
             r->dram_gbps, bn.line);
}

double ls_viz_issue_gops(const ls_hw *hw)
{
    return (double)(hw->wgp_count * hw->schedulers_per_wgp * hw->subgroup_size) *
           (double)hw->clock_mhz / 1e3;
}

void ls_viz_roofline(const char *title, const char *subtitle, const ls_roof_point *pts, size_t n,
                     double dram_gbps, double issue_gops, ls_chart *out)
{
    ls_chart_begin(out, LS_CHART_ROOFLINE, title, subtitle);
    out->roof_points = ls_xcalloc(n ? n : 1, sizeof *out->roof_points);
    memcpy(out->roof_points, pts, n * sizeof *pts);
    out->n_roof_points = n;
    out->roof_dram_gbps = dram_gbps;
    out->roof_issue_gops = issue_gops;
    snprintf(out->notes[out->n_notes++], sizeof out->notes[0],
             "roofs: DRAM %.0f GB/s x intensity; issue %.0f Gop/s (every scheduler issuing a "
             "subgroup-wide op each cycle); dashed: a numbered point's Little's-law ceiling",
             dram_gbps, issue_gops);
    /* the points with a verdict are numbered in order, as their labels */
    int number = 0;
    for (size_t i = 0; i < n && out->n_notes < LS_FIGURE_MAX_NOTES; i++) {
        if (!pts[i].verdict[0])
            continue;
        char line[700];
        snprintf(line, sizeof line, "%d. %.90s: %s", ++number, pts[i].name, pts[i].verdict);
        ls_chart_add_note(out, line);
    }
}

void ls_chart_roofline_size(const ls_chart *c, double *w, double *h)
{
    /* wide enough for the longest note (each point's verdict) */
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(s);
    double note_w = 0;
    for (int i = 0; i < c->n_notes; i++)
        note_w = fmax(note_w, ls_viz_text_w(cr, c->notes[i], LABEL_PT, false));
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    *w = fmax(MARGIN * 2 + 70 + ROOF_W + 30, MARGIN * 2 + note_w);
    *h = header_h(c) + ROOF_H + 50 + c->n_notes * LABEL_PT * 1.7 + MARGIN;
}

/* The decades [*a, *b] that hold lo..hi with a margin. */
static void decades(double lo, double hi, double *a, double *b)
{
    *a = floor(log10(lo / 1.5));
    *b = ceil(log10(hi * 1.5));
    if (*b - *a < 2)
        *b = *a + 2;
}

/* The points; those with a verdict larger, numbered as the notes are, and
 * drawn last so the many others never hide them. */
static void draw_points(cairo_t *cr, const ls_chart *c, const ls_axis_map *xm,
                        const ls_axis_map *ym)
{
    double placed[LS_FIGURE_MAX_NOTES][2]; /* labels drawn: none may cover another */
    int n_placed = 0;
    for (int pass = 0; pass < 2; pass++) {
        int number = 0;
        for (size_t i = 0; i < c->n_roof_points; i++) {
            const ls_roof_point *p = &c->roof_points[i];
            bool noted = p->verdict[0] != 0;
            number += noted;
            if (!(p->gops > 0 && p->intensity > 0) || noted != (pass == 1))
                continue;
            double X = ls_axis_at(xm, p->intensity), Y = ls_axis_at(ym, p->gops);
            if (noted)
                set_rgb(cr, ls_viz_series_colour((number - 1) % 4));
            else
                cairo_set_source_rgb(cr, 0.55, 0.55, 0.55);
            cairo_arc(cr, X, Y, noted ? 5 : 2.5, 0, 2 * LS_PI);
            cairo_fill(cr);
            if (noted) {
                char buf[24];
                snprintf(buf, sizeof buf, "%d", number);
                double tx = X + 7, ty = Y + 4;
                /* points on one spot (a sweep's best is often IREE's):
                 * each further label a line lower.  ty only grows, by more
                 * than the overlap it clears, so the loop ends. */
                for (bool moved = true; moved;) {
                    moved = false;
                    for (int q = 0; q < n_placed; q++)
                        if (fabs(placed[q][0] - tx) < 14 &&
                            fabs(placed[q][1] - ty) < LABEL_PT * 1.2) {
                            ty = placed[q][1] + LABEL_PT * 1.3;
                            moved = true;
                        }
                }
                if (n_placed < LS_FIGURE_MAX_NOTES) {
                    placed[n_placed][0] = tx;
                    placed[n_placed++][1] = ty;
                }
                cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
                ls_viz_text_at(cr, buf, tx, ty, LABEL_PT, true, 0);
            }
        }
    }
}

void ls_chart_roofline_draw(cairo_t *cr, const ls_chart *c)
{
    double px = MARGIN + 70, py = header_h(c) + 8, W = ROOF_W, H = ROOF_H;
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = c->roof_issue_gops;
    double ridge = c->roof_dram_gbps > 0 ? c->roof_issue_gops / c->roof_dram_gbps : 1;
    for (size_t i = 0; i < c->n_roof_points; i++) {
        const ls_roof_point *p = &c->roof_points[i];
        if (p->intensity > 0) {
            xlo = fmin(xlo, p->intensity);
            xhi = fmax(xhi, p->intensity);
        }
        if (p->gops > 0)
            ylo = fmin(ylo, p->gops);
        if (p->mlp_gops > 0)
            ylo = fmin(ylo, p->mlp_gops);
    }
    if (!isfinite(xlo)) {
        xlo = ridge / 100;
        xhi = ridge;
    }
    xhi = fmax(xhi, ridge * 4);
    if (!isfinite(ylo))
        ylo = yhi / 1e3;
    double xa, xb, ya, yb;
    decades(xlo, xhi, &xa, &xb);
    decades(ylo, yhi, &ya, &yb);
    ls_axis_map xm = {px, W, xa, xb, true, false}, ym = {py, H, ya, yb, true, true};
#define XMAP(v) (ls_axis_at(&xm, (v)))
#define YMAP(v) (ls_axis_at(&ym, (v)))
    cairo_set_line_width(cr, 1.0);
    ls_axis_ticks xt, yt;
    ls_ticks_log(xa, xb, W, 46, &xt);
    ls_ticks_log(ya, yb, H, LABEL_PT * 1.8, &yt);
    ls_chart_y_grid(cr, &yt, &ym, px, W);
    for (int i = 0; i < xt.n; i++) {
        double v = ls_tick_value(&xt, i);
        char buf[32];
        ls_tick_label(&xt, i, buf, sizeof buf);
        cairo_set_source_rgba(cr, 0, 0, 0, 0.12);
        cairo_move_to(cr, XMAP(v), py);
        cairo_line_to(cr, XMAP(v), py + H);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        ls_viz_text_at(cr, buf, XMAP(v), py + H + 15, LABEL_PT, false, 0.5);
    }
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_rectangle(cr, px, py, W, H);
    cairo_stroke(cr);
    ls_viz_text_at(cr, "arithmetic intensity (ops per DRAM byte, log)", px + W / 2, py + H + 32,
                   10, true, 0.5);
    ls_chart_y_title(cr, "achieved Gop/s (log)", MARGIN + 12, py + H / 2);
    /* the roofs, clipped to the plot */
    cairo_save(cr);
    cairo_rectangle(cr, px, py, W, H);
    cairo_clip(cr);
    double x0 = pow(10, xa), x1 = pow(10, xb);
    set_rgb(cr, ls_viz_series_colour(5));
    cairo_set_line_width(cr, 2.0);
    cairo_move_to(cr, XMAP(x0), YMAP(c->roof_dram_gbps * x0));
    cairo_line_to(cr, XMAP(ridge), YMAP(c->roof_issue_gops));
    cairo_line_to(cr, XMAP(x1), YMAP(c->roof_issue_gops));
    cairo_stroke(cr);
    cairo_set_line_width(cr, 1.0);
    double dash[] = {4, 3};
    for (size_t i = 0; i < c->n_roof_points; i++) {
        const ls_roof_point *p = &c->roof_points[i];
        if (!(p->mlp_gops > 0 && p->intensity > 0 && p->verdict[0]))
            continue;
        /* the ceiling Little's law leaves this point: a short dashed bar */
        int number = 0;
        for (size_t j = 0; j <= i; j++)
            number += c->roof_points[j].verdict[0] != 0;
        set_rgb(cr, ls_viz_series_colour((number - 1) % 4));
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, XMAP(p->intensity) - 16, YMAP(p->mlp_gops));
        cairo_line_to(cr, XMAP(p->intensity) + 16, YMAP(p->mlp_gops));
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
    cairo_restore(cr);
    set_rgb(cr, ls_viz_series_colour(5));
    char roof[64];
    snprintf(roof, sizeof roof, "DRAM %.0f GB/s", c->roof_dram_gbps);
    /* past where reductions' points sit (well under one op a byte), short
     * of the ridge */
    double lx = fmax(fmax(x0 * 1.3, pow(10, xa + 0.15)), ridge / 4);
    if (c->roof_dram_gbps * lx < pow(10, yb))
        /* below the line: it rises to the right, away from the text */
        ls_viz_text_at(cr, roof, XMAP(lx) + 4, YMAP(c->roof_dram_gbps * lx) + 16, LABEL_PT, true, 0);
    snprintf(roof, sizeof roof, "issue %.0f Gop/s", c->roof_issue_gops);
    ls_viz_text_at(cr, roof, px + W - 4, YMAP(c->roof_issue_gops) - 5, LABEL_PT, true, 1);
    draw_points(cr, c, &xm, &ym);
#undef XMAP
#undef YMAP
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    for (int i = 0; i < c->n_notes; i++)
        ls_viz_text_at(cr, c->notes[i], MARGIN, py + H + 44 + (i + 0.5) * LABEL_PT * 1.7, LABEL_PT,
                       false, 0);
}
