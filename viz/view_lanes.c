/* view_lanes.c: the lanes panel -- the selected subgroup's lanes as a row of
 * boxes with their register values, and the current butterfly round (or AMD
 * DPP step) as arcs between the lanes that combine.  `lanescope draw` has no
 * picture of this, so it has its own builder (ls_view_lanes_build: values
 * from ls_stepper_snapshot, pairs from the functional model) and renderer.
 *
 * Also here: which reduction step a record belongs to (ls_view_step_of),
 * shared with the captions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/functional_internal.h"
#include "lanescope/arena.h"
#include "view_internal.h"
#include "viztext.h"

#define MARGIN 18.0
#define HEAD_W 56.0
#define ARC_H 190.0
#define MAX_ROWS 8

/* ------------------------------------------------------------ steps */

static bool is_exchange(const ls_engine_record *r)
{
    return r->kind == LS_REC_ISSUE && (r->op == 2 || r->op == 3) && r->step >= 0;
}

void ls_view_step_of(const ls_view *v, int64_t rec, ls_view_step *s)
{
    memset(s, 0, sizeof *s);
    s->reduce = -1;
    s->step = -1;
    s->slot = -1;
    s->smem_slot = -1;
    const ls_engine_record *r = ls_stepper_record(v->st, rec);
    if (r == NULL || r->kind != LS_REC_ISSUE || v->att) /* an attention's steps: its own words */
        return;
    const ls_plan *pl = v->plan;
    /* this subgroup's records of the same stage run before rec */
    int64_t exch = 0, st_n = 0, ld_n = 0;
    for (int64_t j = rec - 1; j >= 0; j--) {
        const ls_engine_record *q = ls_stepper_record(v->st, j);
        if (q->subgroup != r->subgroup || q->kind != LS_REC_ISSUE)
            continue;
        if (q->stage != r->stage)
            break;
        exch += is_exchange(q);
        st_n += q->op == 5;
        ld_n += q->op == 6;
    }
    if (r->op == 5 || r->op == 6)
        s->smem_slot = r->op == 5 ? st_n : ld_n;
    bool exchange = is_exchange(r);
    if (r->step < 0)
        return;
    s->combine = r->step_end;
    s->exchange = exchange;
    if (r->after_move && !exchange)
        exch--; /* the exchange this combine (or helper) follows */
    if (exch < 0)
        exch = 0;
    /* an arg_compare butterfly moves the value and the index: two shuffles a step */
    int64_t per_step = pl->argcmp && !pl->ballot ? 2 : 1;
    exch /= per_step;
    int64_t q_n = pl->results_per_thread > 0 ? pl->results_per_thread : 1;
    if (r->stage == LS_STAGE_SUBGROUP_REDUCE) {
        for (int k = 0; k < pl->n_subgroup_reduces; k++) {
            int64_t per = pl->subgroup_reduces[k].n_steps * q_n;
            if (exch < per || k == pl->n_subgroup_reduces - 1) {
                s->r = &pl->subgroup_reduces[k];
                s->reduce = k;
                s->slot = s->r->n_steps ? exch / s->r->n_steps : 0;
                break;
            }
            exch -= per;
        }
    } else if (r->stage == LS_STAGE_CROSS_SUBGROUP && pl->cross_subgroup) {
        s->r = &pl->cross_reduce;
        s->slot = ld_n > 0 ? ld_n - 1 : 0;
    }
    if (s->r && (r->step >= s->r->n_steps || s->r->n_steps == 0))
        s->r = NULL;
    if (s->r)
        s->step = r->step;
}

int64_t ls_view_step_arcs(const ls_subgroup_reduce *r, int step, int64_t sg_size,
                          ls_view_arc *out)
{
    /* One step alone through the functional model with OR over one-hot
     * masks: afterwards lane l's bits name every lane it combined, 64
     * lanes per pass. */
    ls_subgroup_reduce one = *r;
    one.n_steps = 1;
    one.steps[0] = r->steps[step];
    ls_value *val = ls_xcalloc((size_t)sg_size, sizeof *val);
    ls_value *tmp = ls_xcalloc((size_t)sg_size, sizeof *tmp);
    int64_t n = 0;
    for (int64_t base = 0; base < sg_size; base += 64) {
        for (int64_t l = 0; l < sg_size; l++)
            val[l] = l >= base && l < base + 64 ? UINT64_C(1) << (l - base) : 0;
        ls_func_run_reduce(&one, LS_COMB_OR, LS_ET_I64, val, tmp, sg_size, 1);
        for (int64_t l = 0; l < sg_size; l++)
            for (int64_t b = 0; b < 64 && base + b < sg_size; b++)
                if (base + b != l && ((val[l] >> b) & 1))
                    out[n++] = (ls_view_arc){l, base + b};
    }
    free(val);
    free(tmp);
    /* dst ascending, then src */
    for (int64_t i = 1; i < n; i++)
        for (int64_t j = i; j > 0 && (out[j].dst < out[j - 1].dst ||
                                      (out[j].dst == out[j - 1].dst && out[j].src < out[j - 1].src));
             j--) {
            ls_view_arc t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* ------------------------------------------------------------ build */

/* A lane holds no valid element of this workgroup's first iteration. */
static bool lane_idle(const ls_view *v, int64_t tid)
{
    const ls_derived *d = v->d;
    int64_t wgc[LS_MAX_RANK], itc[LS_MAX_RANK], x[LS_MAX_RANK];
    ls_workgroup_coord(d, v->workgroup, wgc);
    ls_iteration_coord(d, v->p, 0, itc);
    for (int64_t reg = 0; reg < d->elems_per_iteration; reg++) {
        bool valid;
        ls_thread_element(d, v->p, tid, wgc, itc, reg, x, &valid);
        if (valid)
            return false;
    }
    return true;
}

static void step_name(const ls_view_step *s, char *buf, size_t size)
{
    const ls_reduce_step *st = &s->r->steps[s->step];
    const char *where = s->reduce < 0 ? "second butterfly (across subgroups), " : "";
    if (st->kind == LS_STEP_SHUFFLE_XOR)
        snprintf(buf, size, "%sround %d of %d: shuffle xor %lld (lanes differing in bit %d)",
                 where, s->step + 1, s->r->n_steps, (long long)st->offset,
                 (int)log2((double)(st->offset > 0 ? st->offset : 1)));
    else if (st->kind == LS_STEP_DPP)
        snprintf(buf, size, "%sDPP step %d of %d: %s", where, s->step + 1, s->r->n_steps,
                 ls_plan_dpp_name(st->dpp));
    else {
        char how[64];
        snprintf(buf, size, "%sstep %d of %d: %s", where, s->step + 1, s->r->n_steps,
                 ls_plan_step_name(st, how, sizeof how));
    }
}

ls_status ls_view_lanes_build(const ls_view *v, ls_view_lanes *out, ls_diag *diag)
{
    if (v->att)
        return ls_view_attention_lanes(v, out, diag);
    memset(out, 0, sizeof *out);
    ls_func_snapshot snap;
    memset(&snap, 0, sizeof snap);
    if (ls_stepper_snapshot(v->st, v->subgroup, &snap, diag))
        return diag->status;
    int64_t lanes = v->d->subgroup_size;
    out->subgroup = v->subgroup;
    out->lanes = lanes;
    out->total_rows = snap.per_thread;
    out->rows = snap.per_thread < MAX_ROWS ? snap.per_thread : MAX_ROWS;
    out->accumulators = snap.accumulators;
    out->text = ls_xcalloc((size_t)(out->rows * lanes) + 1, sizeof *out->text);
    out->values = ls_xcalloc((size_t)(out->rows * lanes) + 1, sizeof *out->values);
    out->flags = ls_xcalloc((size_t)lanes, sizeof *out->flags);
    for (int64_t l = 0; l < lanes; l++) {
        int64_t tid = (int64_t)v->subgroup * lanes + l;
        if (v->d->layout_lanes < lanes && l >= v->d->layout_lanes)
            out->flags[l] |= LS_LANE_DUP;
        if (lane_idle(v, tid))
            out->flags[l] |= LS_LANE_IDLE;
        for (int64_t r = 0; r < out->rows; r++) {
            int64_t k = tid * snap.per_thread + r, i = r * lanes + l;
            out->values[i] = snap.values[k];
            ls_view_value_text(v, snap.values[k], out->text[i], sizeof out->text[i]);
            if (snap.indices) { /* arg_compare: value and index */
                size_t len = strlen(out->text[i]);
                snprintf(out->text[i] + len, sizeof out->text[i] - len, "@%lld",
                         (long long)(int64_t)snap.indices[k]);
            }
        }
    }
    ls_func_snapshot_free(&snap);
    ls_view_step s;
    ls_view_step_of(v, ls_view_latest(v, v->subgroup), &s);
    if (s.r) {
        out->arcs = ls_xcalloc((size_t)(2 * lanes), sizeof *out->arcs);
        out->n_arcs = ls_view_step_arcs(s.r, s.step, lanes, out->arcs);
        for (int64_t i = 0; i < out->n_arcs; i++)
            out->flags[out->arcs[i].dst] |= LS_LANE_WRITTEN;
        step_name(&s, out->step_name, sizeof out->step_name);
    }
    snprintf(out->title, sizeof out->title, "subgroup %d of workgroup %lld: lanes 0..%lld, %s",
             v->subgroup, (long long)v->workgroup, (long long)lanes - 1,
             out->accumulators ? "loop accumulators (one row per register)"
                               : "result slots (one row per slot)");
    return LS_OK;
}

void ls_view_lanes_fini(ls_view_lanes *l)
{
    free(l->text);
    free(l->values);
    free(l->flags);
    free(l->arcs);
    free(l->row_names);
    memset(l, 0, sizeof *l);
}

/* ------------------------------------------------------------ geometry */

typedef struct {
    double box_w, box_h, gap, x0, y0, w, h;
    bool rotated; /* values written vertically in narrow boxes */
} lanes_geom;

static void geometry(const ls_view_lanes *l, lanes_geom *g)
{
    g->box_w = l->lanes <= 16 ? 64 : l->lanes <= 32 ? 46 : 30;
    g->rotated = g->box_w < 40;
    g->box_h = g->rotated ? 64 : 36;
    g->gap = 4;
    g->x0 = MARGIN + HEAD_W;
    g->y0 = MARGIN + 44 + ARC_H;
    g->w = g->x0 + (double)l->lanes * g->box_w + MARGIN;
    g->h = g->y0 + (double)l->rows * (g->box_h + g->gap) + 74 + MARGIN;
    if (g->w < 640)
        g->w = 640;
}

void ls_view_lanes_size(const ls_view_lanes *l, double *w, double *h)
{
    lanes_geom g;
    geometry(l, &g);
    *w = g.w;
    *h = g.h;
}

bool ls_view_lanes_hit(const ls_view_lanes *l, double x, double y, int64_t *lane, int64_t *row)
{
    lanes_geom g;
    geometry(l, &g);
    if (x < g.x0 || y < g.y0)
        return false;
    int64_t ln = (int64_t)((x - g.x0) / g.box_w), r = (int64_t)((y - g.y0) / (g.box_h + g.gap));
    if (ln >= l->lanes || r >= l->rows)
        return false;
    *lane = ln;
    *row = r;
    return true;
}

/* ------------------------------------------------------------ drawing */

static void set_rgb(cairo_t *cr, ls_rgb c)
{
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

static void arrow_head(cairo_t *cr, double x, double y, double dx)
{
    /* pointing down onto the box top at (x, y); dx tilts it */
    cairo_move_to(cr, x, y);
    cairo_line_to(cr, x - 3.5 + dx, y - 7);
    cairo_line_to(cr, x + 3.5 + dx, y - 7);
    cairo_close_path(cr);
    cairo_fill(cr);
}

/* One arc per lane pair; an arrowhead at each end that receives. */
static void draw_arcs(cairo_t *cr, const ls_view_lanes *l, const lanes_geom *g)
{
    ls_rgb col = ls_viz_series_colour(5);
    cairo_set_line_width(cr, 1.3);
    for (int64_t i = 0; i < l->n_arcs; i++) {
        int64_t a = l->arcs[i].dst, b = l->arcs[i].src;
        bool both = false;
        for (int64_t j = 0; j < l->n_arcs && !both; j++)
            both = l->arcs[j].dst == b && l->arcs[j].src == a;
        if (both && a > b)
            continue; /* drawn from the other end */
        double xa = g->x0 + (a + 0.5) * g->box_w, xb = g->x0 + (b + 0.5) * g->box_w;
        double top = g->y0 - 2, span = fabs(xa - xb);
        double hgt = fmin(ARC_H - 20, span * 0.45 + 14);
        set_rgb(cr, col);
        cairo_move_to(cr, xb, top);
        cairo_curve_to(cr, xb, top - hgt * 1.33, xa, top - hgt * 1.33, xa, top);
        cairo_stroke(cr);
        arrow_head(cr, xa, top, 0);
        if (both)
            arrow_head(cr, xb, top, 0);
    }
}

static void draw_box(cairo_t *cr, const ls_view_lanes *l, const lanes_geom *g, int64_t r,
                     int64_t ln)
{
    double x = g->x0 + ln * g->box_w, y = g->y0 + r * (g->box_h + g->gap);
    uint8_t f = l->flags[ln];
    ls_rgb fill = ls_viz_thread_colour(l->subgroup, ln);
    if (f & LS_LANE_IDLE)
        fill = (ls_rgb){0.86, 0.86, 0.86};
    set_rgb(cr, fill);
    cairo_rectangle(cr, x + 1, y, g->box_w - 2, g->box_h);
    cairo_fill(cr);
    if (f & LS_LANE_DUP) { /* a copy: diagonal stripes */
        cairo_save(cr);
        cairo_rectangle(cr, x + 1, y, g->box_w - 2, g->box_h);
        cairo_clip(cr);
        cairo_set_source_rgba(cr, 1, 1, 1, 0.55);
        cairo_set_line_width(cr, 2);
        for (double s = -g->box_h; s < g->box_w; s += 7) {
            cairo_move_to(cr, x + s, y + g->box_h);
            cairo_line_to(cr, x + s + g->box_h, y);
        }
        cairo_stroke(cr);
        cairo_restore(cr);
    }
    bool w = (f & LS_LANE_WRITTEN) != 0;
    cairo_set_source_rgb(cr, w ? 0.05 : 0.45, w ? 0.05 : 0.45, w ? 0.05 : 0.45);
    cairo_set_line_width(cr, w ? 2.2 : 0.6);
    cairo_rectangle(cr, x + 1, y, g->box_w - 2, g->box_h);
    cairo_stroke(cr);
    set_rgb(cr, (f & LS_LANE_IDLE) ? (ls_rgb){0.45, 0.45, 0.45} : ls_viz_text_on(fill));
    const char *t = l->text[r * l->lanes + ln];
    if (g->rotated) {
        cairo_save(cr);
        cairo_translate(cr, x + g->box_w / 2 + 3.5, y + g->box_h - 4);
        cairo_rotate(cr, -1.57079632679489661923);
        ls_viz_text_at(cr, t, 0, 0, 9.5, false, 0);
        cairo_restore(cr);
    } else {
        ls_viz_text_at(cr, t, x + g->box_w / 2, y + g->box_h / 2 + 3.5, 9.5, false, 0.5);
    }
}

static void draw_legend(cairo_t *cr, const ls_view_lanes *l, const lanes_geom *g)
{
    double y = g->y0 + l->rows * (g->box_h + g->gap) + 40, x = MARGIN;
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    char buf[200];
    if (l->total_rows > l->rows) {
        snprintf(buf, sizeof buf, "rows 0..%lld of %lld shown.  ", (long long)l->rows - 1,
                 (long long)l->total_rows);
        ls_viz_text_at(cr, buf, x, y, 12, false, 0);
        x += ls_viz_text_w(cr, buf, 12, false);
    }
    const char *items[] = {"thick outline: receives a partner's value in this step",
                           "striped: duplicate lane (holds a copy of a lower lane's elements)",
                           "grey: idle lane (padding only)"};
    for (int i = 0; i < 3; i++) {
        ls_viz_text_at(cr, items[i], x, y, 12, false, 0);
        x += ls_viz_text_w(cr, items[i], 12, false) + 28;
        if (x > g->w - 200) {
            x = MARGIN;
            y += 16;
        }
    }
}

void ls_view_lanes_draw(cairo_t *cr, const ls_view_lanes *l)
{
    lanes_geom g;
    geometry(l, &g);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    ls_viz_text_at(cr, l->title, MARGIN, MARGIN + 15, 16, true, 0);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    ls_viz_text_at(cr, l->step_name[0] ? l->step_name : "no lane exchange at this step", MARGIN,
                   MARGIN + 36, 13, false, 0);
    /* lane ids under the boxes (the arcs land on their tops) */
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    double idy = g.y0 + l->rows * (g.box_h + g.gap) + 10;
    ls_viz_text_at(cr, "lane", g.x0 - 6, idy, 10, true, 1);
    for (int64_t ln = 0; ln < l->lanes; ln++) {
        char id[24];
        snprintf(id, sizeof id, "%lld", (long long)ln);
        ls_viz_text_at(cr, id, g.x0 + (ln + 0.5) * g.box_w, idy, 10, false, 0.5);
    }
    draw_arcs(cr, l, &g);
    for (int64_t r = 0; r < l->rows; r++) {
        char head[40];
        if (l->row_names)
            snprintf(head, sizeof head, "%s", l->row_names[r]);
        else
            snprintf(head, sizeof head, l->accumulators ? "acc %lld" : "slot %lld", (long long)r);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        ls_viz_text_at(cr, head, g.x0 - 6, g.y0 + r * (g.box_h + g.gap) + g.box_h / 2 + 3.5, 9,
                       true, 1);
        for (int64_t ln = 0; ln < l->lanes; ln++)
            draw_box(cr, l, &g, r, ln);
    }
    draw_legend(cr, l, &g);
}
