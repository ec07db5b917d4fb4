/* charts.c: the chart pictures -- per-stage traffic with the DRAM roofline,
 * the Gantt timeline of a simulation and the config sweep (the
 * measured-vs-simulated scatter is in charts_compare.c) -- their builders
 * and one renderer that draws an ls_chart into any cairo context. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/viz.h"
#include "charts_internal.h"
#include "viztext.h"

#define TRAFFIC_PANEL_W 340.0
#define TRAFFIC_BAR_H 17.0
#define TIMELINE_W 1000.0
#define TIMELINE_ROW_H 13.0
#define TIMELINE_MAX_ROWS 96

void ls_chart_free(ls_chart *c)
{
    free(c->row_name);
    free(c->bars);
    free(c->points);
    free(c->sweep_us);
    free(c->roof_points);
    c->sweep_us = NULL;
    c->roof_points = NULL;
    c->row_name = NULL;
    c->bars = NULL;
    c->points = NULL;
}

void ls_chart_add_note(ls_chart *c, const char *text)
{
    const size_t width = 150;
    bool first = true;
    while (*text && c->n_notes < LS_FIGURE_MAX_NOTES) {
        const char *indent = first ? "" : "    ";
        size_t room = width - strlen(indent), n = strlen(text);
        if (n > room) { /* break at the last space that fits */
            n = room;
            while (n > room / 2 && text[n] != ' ')
                n--;
            if (text[n] != ' ')
                n = room;
        }
        bool last_line = c->n_notes == LS_FIGURE_MAX_NOTES - 1 && text[n];
        snprintf(c->notes[c->n_notes++], sizeof c->notes[0], "%s%.*s%s", indent, (int)n, text,
                 last_line ? " ..." : "");
        text += n;
        while (*text == ' ')
            text++;
        first = false;
    }
}

/* ------------------------------------------------------------ traffic */

void ls_viz_traffic(const ls_problem *p, const ls_hw *hw, const ls_sim_result *r, ls_chart *out)
{
    memset(out, 0, sizeof *out);
    out->kind = LS_CHART_TRAFFIC;
    snprintf(out->title, sizeof out->title, "per-stage traffic of %s on %s", p->name, hw->name);
    snprintf(out->subtitle, sizeof out->subtitle,
             "%lld cycles = %.3f us at %lld MHz; %lld workgroup%s, occupancy %lld per WGP, %lld "
             "wave%s",
             (long long)r->cycles, r->time_us, (long long)hw->clock_mhz,
             (long long)r->workgroups, r->workgroups == 1 ? "" : "s", (long long)r->occupancy,
             (long long)r->waves, r->waves == 1 ? "" : "s");
    static const char *names[] = {"critical-path cycles", "global bytes", "sectors (cache hits)",
                                  "shuffles + DPP steps", "shared-memory cycles",
                                  "barrier wait cycles"};
    out->n_metrics = 6;
    out->n_stages = LS_STAGE_COUNT;
    for (int m = 0; m < 6; m++)
        snprintf(out->metric_name[m], sizeof out->metric_name[m], "%s", names[m]);
    for (int s = 0; s < LS_STAGE_COUNT; s++) {
        const ls_stage_stats *st = &r->stage[s];
        snprintf(out->stage_name[s], sizeof out->stage_name[s], "%s", ls_stage_name(s));
        out->metric[0][s] = (double)st->critical_cycles;
        out->metric[1][s] = (double)st->global_bytes;
        out->metric[2][s] = (double)st->sectors;
        out->metric[3][s] = (double)(st->shuffles + st->dpp_steps);
        out->metric[4][s] = (double)st->smem_cycles;
        out->metric[5][s] = (double)st->barrier_wait_cycles;
        /* shown with the sectors: found in any cache (L1, L2, memory-side) */
        out->metric[6][s] = (double)(st->l1_hits + st->sector_hits + st->mall_hits);
    }
    if (r->n_operands > 1) /* one input: its loads are the load stage's bars */
        for (int k = 0; k < r->n_operands && k < LS_MAX_INPUTS; k++) {
            const ls_operand_traffic *o = &r->operand[k];
            snprintf(out->operand_name[k], sizeof out->operand_name[k], "input %d %.20s", k,
                     p->inputs[k].name);
            out->operand_bytes[k] = (double)o->global_bytes;
            out->operand_sectors[k] = (double)o->sectors;
            out->operand_hits[k] = (double)(o->l1_hits + o->sector_hits + o->mall_hits);
            out->operand_dram[k] = (double)o->dram_bytes;
            out->n_operands = k + 1;
        }
    out->sim_cycles = (double)r->cycles;
    out->roofline_cycles = hw->dram_bytes_per_cycle > 0
                               ? (double)r->dram_bytes / hw->dram_bytes_per_cycle
                               : 0;
    snprintf(out->notes[out->n_notes++], sizeof out->notes[0],
             "DRAM: %.1f MB moved, %.1f GB/s = %.1f%% of the model's %.0f GB/s.",
             r->dram_bytes / 1e6, r->dram_gbps, 100 * r->dram_fraction,
             hw->dram_bytes_per_cycle * hw->clock_mhz / 1e3);
    snprintf(out->notes[out->n_notes++], sizeof out->notes[0],
             "Roofline: the time the DRAM traffic alone takes at peak bandwidth; the gap to "
             "the simulated time is what the config leaves.");
    if (out->n_operands > 1) { /* the operand panel's DRAM side */
        char line[400];
        size_t u = (size_t)snprintf(line, sizeof line, "From DRAM by operand:");
        for (int k = 0; k < out->n_operands && u < sizeof line; k++)
            u += (size_t)snprintf(line + u, sizeof line - u, "%s %s %.3f MB", k ? ";" : "",
                                  out->operand_name[k], out->operand_dram[k] / 1e6);
        if (u < sizeof line)
            snprintf(line + u, sizeof line - u, ".");
        ls_chart_add_note(out, line);
    }
}

static void traffic_size(const ls_chart *c, double *w, double *h)
{
    int panels = c->n_metrics + 1, rows = (panels + 1) / 2;
    double ph = 26 + c->n_stages * TRAFFIC_BAR_H + 14;
    *w = MARGIN * 2 + 2 * TRAFFIC_PANEL_W + 30;
    *h = header_h(c) + rows * ph + c->n_notes * LABEL_PT * 1.7 + MARGIN;
}

static void hbar_panel(cairo_t *cr, double x, double y, const char *title, int n,
                       char names[][32], const double *v, const ls_rgb *colour,
                       const char *const *value_text)
{
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    ls_viz_text_at(cr, title, x, y + 12, 11, true, 0);
    double label_w = 112, bar_x = x + label_w, bar_w = TRAFFIC_PANEL_W - label_w - 70;
    double vmax = 0;
    for (int i = 0; i < n; i++)
        if (v[i] > vmax)
            vmax = v[i];
    for (int i = 0; i < n; i++) {
        double by = y + 22 + i * TRAFFIC_BAR_H;
        cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
        ls_viz_text_at(cr, names[i], bar_x - 6, by + TRAFFIC_BAR_H * 0.65, LABEL_PT, false, 1);
        double bw = vmax > 0 ? bar_w * v[i] / vmax : 0;
        if (v[i] > 0 && bw < 1.5)
            bw = 1.5;
        set_rgb(cr, colour[i]);
        cairo_rectangle(cr, bar_x, by + 2, bw, TRAFFIC_BAR_H - 4);
        cairo_fill(cr);
        char buf[48];
        if (value_text && value_text[i])
            snprintf(buf, sizeof buf, "%s", value_text[i]);
        else
            human(buf, sizeof buf, v[i]);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        ls_viz_text_at(cr, buf, bar_x + bw + 4, by + TRAFFIC_BAR_H * 0.65, LABEL_PT, false, 0);
    }
    cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
    cairo_set_line_width(cr, 0.8);
    cairo_move_to(cr, bar_x, y + 20);
    cairo_line_to(cr, bar_x, y + 24 + n * TRAFFIC_BAR_H);
    cairo_stroke(cr);
}

static void traffic_draw(cairo_t *cr, const ls_chart *c)
{
    double y0 = header_h(c), ph = 26 + c->n_stages * TRAFFIC_BAR_H + 14;
    ls_rgb colours[LS_CHART_MAX_BARS];
    for (int s = 0; s < c->n_stages; s++)
        colours[s] = ls_viz_series_colour(s == 5 ? 6 : s);
    for (int m = 0; m < c->n_metrics; m++) {
        double x = MARGIN + (m % 2) * (TRAFFIC_PANEL_W + 30), y = y0 + (m / 2) * ph;
        char hit[LS_CHART_MAX_BARS][48];
        const char *texts[LS_CHART_MAX_BARS];
        for (int s = 0; s < c->n_stages; s++) {
            texts[s] = NULL;
            if (m == 2 && c->metric[2][s] > 0) { /* sectors: with the L2 hit rate */
                human(hit[s], sizeof hit[s], c->metric[2][s]);
                size_t len = strlen(hit[s]);
                snprintf(hit[s] + len, sizeof hit[s] - len, " (%.0f%% hit)",
                         100 * c->metric[6][s] / c->metric[2][s]);
                texts[s] = hit[s];
            }
        }
        hbar_panel(cr, x, y, c->metric_name[m], c->n_stages, (char(*)[32])c->stage_name,
                   c->metric[m], colours, texts);
    }
    /* the roofline panel: simulated time against the DRAM bound */
    int m = c->n_metrics;
    double x = MARGIN + (m % 2) * (TRAFFIC_PANEL_W + 30), y = y0 + (m / 2) * ph;
    char names[2][32] = {"simulated", "DRAM roofline"};
    double v[2] = {c->sim_cycles, c->roofline_cycles};
    ls_rgb rc[2] = {ls_viz_series_colour(4), ls_viz_series_colour(7)};
    char t0[48], t1[48];
    human(t0, sizeof t0, v[0]);
    snprintf(t0 + strlen(t0), sizeof t0 - strlen(t0), " cycles");
    human(t1, sizeof t1, v[1]);
    /* the share of the simulated time, with a decimal where it is small
     * (one workgroup of a viewer session is far from its DRAM bound) */
    double share = c->sim_cycles > 0 ? 100 * v[1] / c->sim_cycles : 0;
    snprintf(t1 + strlen(t1), sizeof t1 - strlen(t1), " cycles (%.*f%% of it)",
             share < 10 ? 1 : 0, share);
    const char *texts[2] = {t0, t1};
    hbar_panel(cr, x, y, "time vs the DRAM roofline", 2, names, v, rc, texts);
    if (c->n_operands > 1) { /* beside it: each input's loads */
        m++;
        x = MARGIN + (m % 2) * (TRAFFIC_PANEL_W + 30);
        y = y0 + (m / 2) * ph;
        char on[LS_MAX_INPUTS][32], ot[LS_MAX_INPUTS][80];
        const char *otexts[LS_MAX_INPUTS];
        ls_rgb oc[LS_MAX_INPUTS];
        for (int k = 0; k < c->n_operands; k++) {
            snprintf(on[k], sizeof on[k], "%s", c->operand_name[k]);
            char b[24];
            human(b, sizeof b, c->operand_bytes[k]);
            snprintf(ot[k], sizeof ot[k], "%s (%.0f%% hit)", b,
                     c->operand_sectors[k] > 0 ? 100 * c->operand_hits[k] / c->operand_sectors[k]
                                               : 0.0);
            otexts[k] = ot[k];
            oc[k] = ls_viz_series_colour(0);
        }
        hbar_panel(cr, x, y, "global bytes by operand (load+accumulate)", c->n_operands, on,
                   c->operand_bytes, oc, otexts);
    }
    double ny = y0 + ((c->n_metrics + 2) / 2) * ph;
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    for (int i = 0; i < c->n_notes; i++)
        ls_viz_text_at(cr, c->notes[i], MARGIN, ny + (i + 0.8) * LABEL_PT * 1.7, LABEL_PT, false, 0);
}

/* ------------------------------------------------------------ timeline */

ls_status ls_viz_timeline(const ls_problem *p, const ls_hw *hw, const ls_sim_result *r,
                          const ls_trace *tr, int max_wgps, ls_chart *out, ls_diag *diag)
{
    memset(out, 0, sizeof *out);
    out->kind = LS_CHART_TIMELINE;
    out->cursor = -1;
    if (max_wgps < 1)
        max_wgps = 1;
    int32_t max_track = 0;
    for (size_t i = 0; i < tr->n; i++)
        if (tr->slices[i].wgp < max_wgps && tr->slices[i].track > max_track)
            max_track = tr->slices[i].track;
    int tracks = max_track + 1;
    if ((int64_t)max_wgps * tracks > TIMELINE_MAX_ROWS) {
        int fit = TIMELINE_MAX_ROWS / tracks;
        if (fit < 1)
            return ls_diag_set(diag, LS_ERR_LIMIT, "--wgps", 0, 0,
                               "%d resident subgroups per WGP do not fit the chart's %d rows",
                               tracks, TIMELINE_MAX_ROWS);
        max_wgps = fit;
    }
    if (max_wgps > hw->wgp_count)
        max_wgps = (int)hw->wgp_count;
    out->n_rows = max_wgps * tracks;
    out->row_name = ls_xcalloc((size_t)out->n_rows, sizeof *out->row_name);
    for (int w = 0; w < max_wgps; w++)
        for (int t = 0; t < tracks; t++)
            snprintf(out->row_name[w * tracks + t], sizeof out->row_name[0], "WGP %d  slot %d", w,
                     t);
    size_t n = 0;
    for (size_t i = 0; i < tr->n; i++)
        n += tr->slices[i].wgp < max_wgps;
    out->bars = ls_xcalloc(n ? n : 1, sizeof *out->bars);
    for (size_t i = 0; i < tr->n; i++) {
        const ls_trace_slice *s = &tr->slices[i];
        if (s->wgp >= max_wgps)
            continue;
        ls_gantt_bar *b = &out->bars[out->n_bars++];
        b->start = (double)s->start;
        b->end = (double)s->end;
        b->row = s->wgp * tracks + s->track;
        b->stage = s->stage;
        b->workgroup = s->workgroup;
    }
    out->t_end = (double)r->cycles;
    out->waves = r->waves;
    out->n_stages = LS_STAGE_COUNT;
    for (int s = 0; s < LS_STAGE_COUNT; s++)
        snprintf(out->stage_name[s], sizeof out->stage_name[s], "%s", ls_stage_name(s));
    snprintf(out->title, sizeof out->title, "timeline of %s on %s", p->name, hw->name);
    snprintf(out->subtitle, sizeof out->subtitle,
             "%lld cycle%s; %lld workgroup%s, %lld per WGP at once, %lld wave%s; WGPs 0..%d of "
             "%lld shown",
             (long long)r->cycles, r->cycles == 1 ? "" : "s", (long long)r->workgroups,
             r->workgroups == 1 ? "" : "s", (long long)r->occupancy, (long long)r->waves,
             r->waves == 1 ? "" : "s", max_wgps - 1, (long long)hw->wgp_count);
    snprintf(out->notes[out->n_notes++], sizeof out->notes[0],
             "A row: a subgroup slot of a WGP; a bar: one stage of one subgroup, first to last "
             "instruction (label: workgroup); overlapping stages split the row; a new workgroup "
             "in a slot: the next wave.");
    if (tr->truncated)
        snprintf(out->notes[out->n_notes++], sizeof out->notes[0],
                 "The trace reached %d slices and was cut: later stages are missing.",
                 LS_TRACE_MAX_SLICES);
    return LS_OK;
}

static double timeline_label_w(void)
{
    return 96;
}

static void timeline_size(const ls_chart *c, double *w, double *h)
{
    *w = TIMELINE_W;
    *h = header_h(c) + 22 + c->n_rows * TIMELINE_ROW_H + 40 + 20 + c->n_notes * LABEL_PT * 1.7 +
         MARGIN;
}

/* A bar's place in its row: its band among the bars it overlaps (the
 * spans of stages that interleave, a loop's loads and its per-trip
 * stores), and how many bands that overlapping group has. */
typedef struct {
    size_t bar;
    int32_t row; /* the bar's, for the sort */
    double start;
    int band, bands;
} bar_band;

static int by_row_start(const void *a, const void *b)
{
    const bar_band *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* Bands for every bar at least min_len cycles long (a shorter one is
 * drawn in its column, under them: band 0 of 1): a row's bars by start; a
 * group is a run of bars each overlapping the group so far; a bar takes
 * the lowest band no earlier bar of its group still holds.  At most 8
 * bands (deeper overlap shares the last). */
static bar_band *timeline_bands(const ls_chart *c, double min_len)
{
    bar_band *bb = ls_xcalloc(c->n_bars + 1, sizeof *bb);
    size_t n = 0;
    for (size_t i = 0; i < c->n_bars; i++)
        if (c->bars[i].end - c->bars[i].start >= min_len)
            bb[n++] = (bar_band){i, c->bars[i].row, c->bars[i].start, 0, 1};
    qsort(bb, n, sizeof *bb, by_row_start);
    size_t g0 = 0;
    double group_end = -1, band_end[8];
    int bands = 0;
    for (size_t i = 0; i <= n; i++) {
        const ls_gantt_bar *b = i < n ? &c->bars[bb[i].bar] : NULL;
        bool same = b && i > g0 && b->row == c->bars[bb[g0].bar].row && b->start < group_end;
        if (!same) { /* close the group before */
            for (size_t j = g0; j < i; j++)
                bb[j].bands = bands;
            if (!b)
                break;
            g0 = i;
            group_end = b->end;
            bands = 0;
        }
        int k = 0;
        while (k < bands && band_end[k] > b->start)
            k++;
        if (k == 8)
            k = 7;
        if (k == bands && bands < 8)
            bands++;
        band_end[k] = b->end;
        bb[i].band = k;
        if (b->end > group_end)
            group_end = b->end;
    }
    /* back to bar order */
    bar_band *out = ls_xcalloc(c->n_bars + 1, sizeof *out);
    for (size_t i = 0; i < c->n_bars; i++)
        out[i] = (bar_band){i, c->bars[i].row, c->bars[i].start, 0, 1};
    for (size_t i = 0; i < n; i++)
        out[bb[i].bar] = bb[i];
    free(bb);
    return out;
}

/* Where a timeline's plot lies: its x range, top, height, the cycles it
 * spans and their scale, a bar's height. */
typedef struct {
    double x0, x1, y0, plot_h, t_end, sx, bar_h;
} tl_geom;

/* Rows: zebra background and names (WGP boundaries darker). */
static void timeline_rows(cairo_t *cr, const ls_chart *c, const tl_geom *g)
{
    double x0 = g->x0, x1 = g->x1, y0 = g->y0;
    for (int r = 0; r < c->n_rows; r++) {
        double y = y0 + r * TIMELINE_ROW_H;
        if (r % 2) {
            cairo_set_source_rgb(cr, 0.96, 0.96, 0.96);
            cairo_rectangle(cr, x0, y, x1 - x0, TIMELINE_ROW_H);
            cairo_fill(cr);
        }
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        if (c->n_rows <= 48 || r % 2 == 0)
            ls_viz_text_at(cr, c->row_name[r], x0 - 6, y + TIMELINE_ROW_H * 0.75, 7.5, false, 1);
    }
}

static void timeline_columns(cairo_t *cr, const ls_chart *c, const tl_geom *g)
{
    double x0 = g->x0, x1 = g->x1, y0 = g->y0, sx = g->sx, bar_h = g->bar_h;
    /* Bars narrower than a column (a rolled loop's stages, alternating
     * every trip) are summed per row and column, and each column is drawn
     * stacked by its stages' shares of the time there: a loop of loads
     * and stores shows both, not whichever was drawn last.  Wider bars are
     * drawn whole. */
    int ncol = (int)ceil(x1 - x0), nst = c->n_stages > 0 ? c->n_stages : 1;
    double *share = ls_xcalloc((size_t)c->n_rows * (size_t)ncol * (size_t)nst, sizeof *share);
    for (size_t i = 0; i < c->n_bars; i++) {
        const ls_gantt_bar *b = &c->bars[i];
        double xs = b->start * sx, xe = b->end * sx;
        if (xe - xs >= 1.0 || b->row < 0 || b->row >= c->n_rows || b->stage < 0 || b->stage >= nst)
            continue;
        for (int k = (int)floor(xs); k <= (int)floor(xe) && k < ncol; k++) {
            double lo = fmax(xs, k), hi = fmin(xe, k + 1.0);
            if (k >= 0 && hi > lo)
                share[((size_t)b->row * (size_t)ncol + (size_t)k) * (size_t)nst + (size_t)b->stage] +=
                    hi - lo;
        }
    }
    for (int r = 0; r < c->n_rows; r++)
        for (int k = 0; k < ncol; k++) {
            const double *sh = &share[((size_t)r * (size_t)ncol + (size_t)k) * (size_t)nst];
            double total = 0;
            for (int s = 0; s < nst; s++)
                total += sh[s];
            if (total <= 0)
                continue;
            /* by its share of the busy time there: a lone short stage
             * stays visible, a column wide */
            double yb = y0 + r * TIMELINE_ROW_H + 1.5 + bar_h, norm = total;
            for (int s = 0; s < nst; s++) {
                if (sh[s] <= 0)
                    continue;
                double h = sh[s] / norm * bar_h;
                set_rgb(cr, ls_viz_series_colour(s == 5 ? 6 : s));
                cairo_rectangle(cr, x0 + k, yb - h, 1.0, h);
                cairo_fill(cr);
                yb -= h;
            }
        }
    free(share);
}

static void timeline_bars(cairo_t *cr, const ls_chart *c, const tl_geom *g)
{
    double x0 = g->x0, y0 = g->y0, sx = g->sx, bar_h = g->bar_h;
    /* a workgroup's first bar in its row: the boundary, and its id where
     * it fits */
    int64_t *row_wg = ls_xcalloc((size_t)c->n_rows + 1, sizeof *row_wg);
    for (int r = 0; r < c->n_rows; r++)
        row_wg[r] = -1;
    /* stages whose spans overlap (a loop's loads and its stores every
     * trip) share the row's height, a band each, not drawn over each
     * other */
    bar_band *bb = timeline_bands(c, 1.0 / sx);
    for (size_t i = 0; i < c->n_bars; i++) {
        const ls_gantt_bar *b = &c->bars[i];
        double x = x0 + b->start * sx, w = (b->end - b->start) * sx;
        bool first = b->row >= 0 && b->row < c->n_rows && row_wg[b->row] != b->workgroup;
        if (first)
            row_wg[b->row] = b->workgroup;
        double y = y0 + b->row * TIMELINE_ROW_H + 1.5;
        ls_rgb col = ls_viz_series_colour(b->stage == 5 ? 6 : b->stage);
        if (w >= 1.0) {
            int n = bb[i].bands > 1 ? bb[i].bands : 1;
            set_rgb(cr, col);
            cairo_rectangle(cr, x, y + bar_h * bb[i].band / n, w, bar_h / n);
            cairo_fill(cr);
        }
        if (first) { /* workgroup boundary + id */
            cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            cairo_set_line_width(cr, 0.8);
            cairo_move_to(cr, x, y - 1);
            cairo_line_to(cr, x, y + TIMELINE_ROW_H - 2);
            cairo_stroke(cr);
            char lab[24];
            snprintf(lab, sizeof lab, "wg %lld", (long long)b->workgroup);
            if (ls_viz_text_w(cr, lab, 7, false) + 4 < w) {
                set_rgb(cr, ls_viz_text_on(col));
                ls_viz_text_at(cr, lab, x + 2, y + TIMELINE_ROW_H * 0.6, 7, false, 0);
            }
        }
    }
    free(bb);
    free(row_wg);
}

/* WGP separators, the cycle axis, the cursor, the legend and notes. */
static void timeline_frame(cairo_t *cr, const ls_chart *c, const tl_geom *g)
{
    double x0 = g->x0, x1 = g->x1, y0 = g->y0, plot_h = g->plot_h, t_end = g->t_end, sx = g->sx;
    int tracks = 1;
    for (int r = 1; r < c->n_rows; r++)
        if (strncmp(c->row_name[r], c->row_name[0], 6) == 0)
            tracks = r + 1;
        else
            break;
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1.0);
    for (int r = tracks; r < c->n_rows; r += tracks) {
        cairo_move_to(cr, x0 - 90, y0 + r * TIMELINE_ROW_H);
        cairo_line_to(cr, x1, y0 + r * TIMELINE_ROW_H);
    }
    cairo_stroke(cr);
    /* cycle axis */
    ls_axis_ticks xt;
    ls_ticks_linear(0, t_end, x1 - x0, fmax(50, (x1 - x0) / 9), &xt);
    cairo_set_line_width(cr, 0.8);
    for (int i = 0; i < xt.n; i++) {
        double t = xt.v[i], x = x0 + t * sx;
        cairo_set_source_rgba(cr, 0, 0, 0, 0.15);
        cairo_move_to(cr, x, y0);
        cairo_line_to(cr, x, y0 + plot_h);
        cairo_stroke(cr);
        char buf[32];
        ls_tick_label(&xt, i, buf, sizeof buf);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        ls_viz_text_at(cr, buf, x, y0 + plot_h + 12, LABEL_PT, false, 0.5);
    }
    ls_viz_text_at(cr, "cycles", x1, y0 + plot_h + 26, LABEL_PT, true, 1);
    if (c->cursor >= 0) { /* over the bars: a dark line with its cycle on top */
        double x = x0 + (c->cursor < t_end ? c->cursor : t_end) * sx;
        cairo_set_source_rgb(cr, 0.8, 0.1, 0.1);
        cairo_set_line_width(cr, 1.6);
        cairo_move_to(cr, x, y0 - 4);
        cairo_line_to(cr, x, y0 + plot_h + 2);
        cairo_stroke(cr);
        char buf[32];
        human(buf, sizeof buf, c->cursor);
        ls_viz_text_at(cr, buf, x, y0 - 7, LABEL_PT, true, x > (x0 + x1) / 2 ? 1 : 0);
    }
    /* legend: stages */
    double lx = MARGIN, ly = y0 + plot_h + 34;
    for (int s = 0; s < c->n_stages; s++) {
        set_rgb(cr, ls_viz_series_colour(s == 5 ? 6 : s));
        cairo_rectangle(cr, lx, ly, 12, 10);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        ls_viz_text_at(cr, c->stage_name[s], lx + 16, ly + 9, LABEL_PT, false, 0);
        lx += 16 + ls_viz_text_w(cr, c->stage_name[s], LABEL_PT, false) + 18;
    }
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    for (int i = 0; i < c->n_notes; i++)
        ls_viz_text_at(cr, c->notes[i], MARGIN, ly + 22 + (i + 0.5) * LABEL_PT * 1.7, LABEL_PT, false,
                0);
}

static void timeline_draw(cairo_t *cr, const ls_chart *c)
{
    tl_geom g;
    g.x0 = MARGIN + timeline_label_w();
    g.x1 = TIMELINE_W - MARGIN;
    g.y0 = header_h(c) + 22;
    g.plot_h = c->n_rows * TIMELINE_ROW_H;
    g.t_end = c->t_end > 0 ? c->t_end : 1;
    g.sx = (g.x1 - g.x0) / g.t_end;
    g.bar_h = TIMELINE_ROW_H - 3;
    timeline_rows(cr, c, &g);
    timeline_columns(cr, c, &g);
    timeline_bars(cr, c, &g);
    timeline_frame(cr, c, &g);
}

/* ------------------------------------------------------------ sweep */

#define SWEEP_W 720.0
#define SWEEP_H 320.0

void ls_viz_sweep(const char *title, const char *subtitle, const double *us_sorted, size_t n,
                  size_t iree_rank, double roofline_us, ls_chart *out)
{
    ls_chart_begin(out, LS_CHART_SWEEP, title, subtitle);
    out->sweep_us = ls_xcalloc(n ? n : 1, sizeof *out->sweep_us);
    memcpy(out->sweep_us, us_sorted, n * sizeof *us_sorted);
    out->n_sweep = n;
    out->sweep_iree_rank = iree_rank;
    out->roofline_us = roofline_us;
    if (n > 0) {
        char buf[200];
        snprintf(buf, sizeof buf, "best %.3g us = %.0f%% of the DRAM roofline (%.3g us)",
                 us_sorted[0], 100 * roofline_us / us_sorted[0], roofline_us);
        snprintf(out->notes[out->n_notes++], sizeof out->notes[0], "%s", buf);
        if (iree_rank > 0)
            snprintf(out->notes[out->n_notes++], sizeof out->notes[0],
                     "IREE's choice: rank %zu of %zu, %.3g us = %.2fx the best", iree_rank, n,
                     us_sorted[iree_rank - 1], us_sorted[iree_rank - 1] / us_sorted[0]);
        else
            snprintf(out->notes[out->n_notes++], sizeof out->notes[0],
                     "IREE's heuristic rejects this dispatch: no IREE point");
    }
}

static void sweep_size(const ls_chart *c, double *w, double *h)
{
    *w = MARGIN * 2 + 70 + SWEEP_W + 20;
    *h = header_h(c) + SWEEP_H + 50 + c->n_notes * LABEL_PT * 1.7 + MARGIN;
}

static void sweep_draw(cairo_t *cr, const ls_chart *c)
{
    double px = MARGIN + 70, py = header_h(c) + 8, W = SWEEP_W, H = SWEEP_H;
    double hi = c->roofline_us, lo = c->roofline_us > 0 ? c->roofline_us : INFINITY;
    for (size_t i = 0; i < c->n_sweep; i++) {
        hi = fmax(hi, c->sweep_us[i]);
        lo = fmin(lo, c->sweep_us[i]);
    }
    bool logy = lo > 0 && hi / lo > 20;
    double a, b;
    if (logy) {
        a = floor(log10(lo / 1.2));
        b = ceil(log10(hi * 1.2));
    } else {
        double st = nice_step(hi * 1.1, 6);
        a = 0;
        b = ceil(hi * 1.1 / st) * st;
    }
#define YMAP(v) (ls_axis_at(&ym, (v)))
    size_t n = c->n_sweep ? c->n_sweep : 1;
#define XMAP(i) (px + W * ((double)(i) + 0.5) / (double)n)
    cairo_set_line_width(cr, 1.0);
    ls_axis_ticks yt;
    if (logy)
        ls_ticks_log(a, b, H, LABEL_PT * 1.8, &yt);
    else
        ls_ticks_linear(a, b, H, fmax(LABEL_PT * 2.2, H / 8), &yt);
    ls_axis_map ym = {py, H, a, b, logy, true};
    ls_chart_y_grid(cr, &yt, &ym, px, W);
    for (int i = 0; i <= 4; i++) {
        size_t rk = i == 0 ? 1 : (size_t)((double)n * i / 4);
        char buf[32];
        snprintf(buf, sizeof buf, "%zu", rk);
        ls_viz_text_at(cr, buf, XMAP(rk - 1), py + H + 13, LABEL_PT, false, 0.5);
    }
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_rectangle(cr, px, py, W, H);
    cairo_stroke(cr);
    ls_viz_text_at(cr, "configs, fastest first (rank)", px + W / 2, py + H + 30, 10, true, 0.5);
    ls_chart_y_title(cr, logy ? "simulated time (us, log)" : "simulated time (us)", MARGIN + 12,
                     py + H / 2);
    if (c->roofline_us > 0) {
        double y = YMAP(c->roofline_us);
        double dash[] = {5, 3};
        set_rgb(cr, ls_viz_series_colour(5));
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, px, y);
        cairo_line_to(cr, px + W, y);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        ls_viz_text_at(cr, "DRAM roofline", px + W - 4, y - 4, LABEL_PT, true, 1);
    }
    double r = c->n_sweep > 200 ? 1.6 : 2.6;
    set_rgb(cr, ls_viz_series_colour(4));
    for (size_t i = 0; i < c->n_sweep; i++) {
        cairo_arc(cr, XMAP(i), YMAP(c->sweep_us[i]), r, 0, 2 * LS_PI);
        cairo_fill(cr);
    }
    if (c->sweep_iree_rank > 0) {
        size_t i = c->sweep_iree_rank - 1;
        double X = XMAP(i), Y = YMAP(c->sweep_us[i]);
        set_rgb(cr, ls_viz_series_colour(0));
        cairo_arc(cr, X, Y, 6, 0, 2 * LS_PI);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        cairo_arc(cr, X, Y, 6, 0, 2 * LS_PI);
        cairo_stroke(cr);
        char buf[64];
        snprintf(buf, sizeof buf, "IREE default (rank %zu)", c->sweep_iree_rank);
        bool right = X < px + W * 0.7;
        ls_viz_text_at(cr, buf, X + (right ? 9 : -9), Y - 8, LABEL_PT, true, right ? 0 : 1);
    }
#undef XMAP
#undef YMAP
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    for (int i = 0; i < c->n_notes; i++)
        ls_viz_text_at(cr, c->notes[i], MARGIN, py + H + 44 + (i + 0.5) * LABEL_PT * 1.7, LABEL_PT,
                       false, 0);
}

/* ------------------------------------------------------------ common */

void ls_chart_size(const ls_chart *c, double *w, double *h)
{
    switch (c->kind) {
    case LS_CHART_TRAFFIC: traffic_size(c, w, h); break;
    case LS_CHART_TIMELINE: timeline_size(c, w, h); break;
    case LS_CHART_COMPARE: ls_chart_compare_size(c, w, h); break;
    case LS_CHART_SWEEP: sweep_size(c, w, h); break;
    case LS_CHART_ROOFLINE: ls_chart_roofline_size(c, w, h); break;
    }
    *w = ceil(*w);
    *h = ceil(*h);
}

void ls_chart_draw(cairo_t *cr, const ls_chart *c)
{
    double w, h;
    ls_chart_size(c, &w, &h);
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
    ls_viz_text_at(cr, c->title, MARGIN, MARGIN + TITLE_PT, TITLE_PT, true, 0);
    if (c->subtitle[0]) {
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        ls_viz_text_at(cr, c->subtitle, MARGIN, MARGIN + TITLE_PT * 1.5 + SUB_PT, SUB_PT, false, 0);
    }
    switch (c->kind) {
    case LS_CHART_TRAFFIC: traffic_draw(cr, c); break;
    case LS_CHART_TIMELINE: timeline_draw(cr, c); break;
    case LS_CHART_COMPARE: ls_chart_compare_draw(cr, c); break;
    case LS_CHART_SWEEP: sweep_draw(cr, c); break;
    case LS_CHART_ROOFLINE: ls_chart_roofline_draw(cr, c); break;
    }
    cairo_restore(cr);
}
