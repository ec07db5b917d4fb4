/* view.c: the ls_view context -- its lifetime, the actions that change it,
 * the frame layout (status and tab bars on top, the panel in the middle,
 * the caption below) and the drawing of one frame (see view.h).
 *
 * Invariant: only ls_view_action, ls_view_tick and ls_view_new/free write a
 * view; everything that draws takes it const, so a frame is a pure function
 * of the state and stepping forward N then back N redraws the same pixels.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "view_internal.h"
#include "viztext.h"

/* Playback speeds, events per second: `<` and `>` walk the table. */
static const double speeds[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000};
#define N_SPEEDS ((int)(sizeof speeds / sizeof speeds[0]))
#define FPS_MAX 60.0

static const char *const panel_names[LS_VIEW_PANELS] = {"tile",     "lanes",   "shared memory",
                                                        "timeline", "traffic", "whole GPU"};

const char *ls_view_panel_name(ls_view_panel p)
{
    return p >= 0 && p < LS_VIEW_PANELS ? panel_names[p] : "?";
}

ls_status ls_view_new(const ls_view_config *c, ls_view **out, ls_diag *diag)
{
    *out = NULL;
    ls_stepper *st;
    if (ls_stepper_new(c->plan, c->hw, c->in, c->workgroup, &st, diag))
        return diag->status;
    ls_view *v = ls_xcalloc(1, sizeof *v);
    v->plan = c->plan;
    v->p = c->plan->problem;
    v->d = c->plan->derived;
    v->hw = c->hw;
    v->in = c->in;
    v->st = st;
    v->workgroup = c->workgroup;
    v->panel = c->panel >= 0 && c->panel < LS_VIEW_PANELS ? c->panel : LS_VIEW_TILE;
    v->n_ops = c->n_ops > 0 ? c->n_ops : 1;
    v->op = c->op >= 0 && c->op < v->n_ops ? c->op : 0;
    snprintf(v->source, sizeof v->source, "%s", c->source ? c->source : "");
    v->zoom = 1;
    v->speed_idx = 3;
    v->width = c->width >= LS_VIEW_MIN_SIZE ? c->width : 1280;
    v->height = c->height >= LS_VIEW_MIN_SIZE ? c->height : 800;
    v->ui = c->ui_scale > 0 ? c->ui_scale : 1;
    v->hover.valid = false;
    v->operand = -1;
    v->att = c->attention;
    if (v->att)
        v->att_cache = ls_view_att_cache_new();
    if (v->panel == LS_VIEW_GPU)
        ls_view_gpu_prepare(v);
    *out = v;
    return LS_OK;
}

void ls_view_config_like(const ls_view *v, const ls_plan *plan, const ls_hw *hw,
                         ls_input_source in, int op, ls_view_config *c)
{
    memset(c, 0, sizeof *c);
    c->plan = plan;
    c->hw = hw;
    c->in = in;
    c->workgroup = v->workgroup < plan->derived->total_workgroups ? v->workgroup : 0;
    c->width = v->width;
    c->height = v->height;
    c->ui_scale = v->ui;
    c->panel = v->panel;
    c->op = op;
    c->n_ops = v->n_ops;
    c->source = v->source;
    c->attention = v->att;
}

void ls_view_free(ls_view *v)
{
    if (v == NULL)
        return;
    ls_stepper_free(v->st);
    ls_view_att_cache_free(v->att_cache);
    free(v->wg_wgp);
    free(v->wg_start);
    free(v->wg_end);
    free(v);
}

const ls_stepper *ls_view_stepper(const ls_view *v)
{
    return v->st;
}

void ls_view_get_state(const ls_view *v, ls_view_state *s)
{
    memset(s, 0, sizeof *s);
    s->position = ls_stepper_position(v->st);
    s->length = ls_stepper_length(v->st);
    s->record = ls_stepper_record(v->st, s->position);
    s->cycle = s->record ? s->record->cycle : 0;
    s->stage = s->record ? s->record->stage : LS_STAGE_LOAD_ACCUMULATE;
    s->workgroup = v->workgroup;
    s->workgroups = v->d->total_workgroups;
    s->subgroup = v->subgroup;
    s->subgroups = (int)v->d->num_subgroups;
    s->panel = v->panel;
    s->zoom = v->zoom;
    s->pan_x = v->pan_x;
    s->pan_y = v->pan_y;
    s->playing = v->playing;
    s->help = v->help;
    s->speed = speeds[v->speed_idx];
    s->width = v->width;
    s->height = v->height;
    s->ui_scale = v->ui;
    s->op = v->op;
    s->n_ops = v->n_ops;
    s->operand = v->operand;
}

const ls_view_hover *ls_view_get_hover(const ls_view *v)
{
    return &v->hover;
}

int64_t ls_view_latest(const ls_view *v, int sg)
{
    for (int64_t i = ls_stepper_position(v->st); i >= 0; i--) {
        const ls_engine_record *r = ls_stepper_record(v->st, i);
        if (r->subgroup == sg || r->kind == LS_REC_BARRIER)
            return i;
    }
    return -1;
}

/* ------------------------------------------------------------ actions */

/* Move to record index target (-1: the start), one event at a time. */
static void seek(ls_stepper *st, int64_t target)
{
    while (ls_stepper_position(st) > target && ls_stepper_back(st, LS_STEP_EVENT))
        ;
    while (ls_stepper_position(st) < target && ls_stepper_forward(st, LS_STEP_EVENT))
        ;
}

/* A new stepper on workgroup wg at the same position index (every
 * workgroup runs the same instruction template, so the index lands on the
 * matching point); the old one stays if the engine fails. */
static int change_workgroup(ls_view *v, int64_t wg, ls_diag *diag)
{
    if (wg < 0 || wg >= v->d->total_workgroups || wg == v->workgroup)
        return 0;
    ls_stepper *st;
    if (ls_stepper_new(v->plan, v->hw, v->in, wg, &st, diag))
        return diag->status;
    int64_t pos = ls_stepper_position(v->st);
    ls_stepper_free(v->st);
    v->st = st;
    v->workgroup = wg;
    seek(v->st, pos);
    return LS_VIEW_REDRAW;
}

static bool parse_pair(const char *s, char sep, double *a, double *b)
{
    char *end;
    *a = strtod(s, &end);
    if (end == s || *end != sep)
        return false;
    const char *t = end + 1;
    *b = strtod(t, &end);
    return end != t && *end == '\0' && isfinite(*a) && isfinite(*b);
}

/* Zoom to z keeping the point under the mouse where it is (the panel's
 * centre when the mouse is not over the window).  The picture's centre
 * sits at the panel area's centre plus the pan at every zoom
 * (ls_view_frame_of), so a point d pixels from it moves to d * z / zoom. */
static void zoom_about(ls_view *v, double z)
{
    if (v->hover_on) {
        ls_view_frame f;
        ls_view_frame_of(v, 1, 1, &f);
        double k = z / v->zoom;
        double cx = f.ax + f.aw / 2 + v->pan_x, cy = f.ay + f.ah / 2 + v->pan_y;
        v->pan_x += (v->hover_px - cx) * (1 - k);
        v->pan_y += (v->hover_py - cy) * (1 - k);
    }
    v->zoom = z;
}

/* Commands with an argument: hover X,Y / pan DX,DY / resize WxH / wheel N. */
static int command(ls_view *v, const char *name, bool apply)
{
    double a, b;
    if (strncmp(name, "hover ", 6) == 0 && parse_pair(name + 6, ',', &a, &b)) {
        if (apply) {
            v->hover_on = true;
            v->hover_px = a;
            v->hover_py = b;
        }
        return LS_VIEW_REDRAW;
    }
    if (strncmp(name, "pan ", 4) == 0 && parse_pair(name + 4, ',', &a, &b)) {
        if (apply) {
            v->pan_x += a;
            v->pan_y += b;
        }
        return LS_VIEW_REDRAW;
    }
    if (strncmp(name, "resize ", 7) == 0 && parse_pair(name + 7, 'x', &a, &b) &&
        a >= LS_VIEW_MIN_SIZE && b >= LS_VIEW_MIN_SIZE && a <= LS_VIEW_MAX_SIZE &&
        b <= LS_VIEW_MAX_SIZE && a == floor(a) && b == floor(b)) {
        if (apply) {
            v->width = (int)a;
            v->height = (int)b;
        }
        return LS_VIEW_REDRAW;
    }
    if (strncmp(name, "scale ", 6) == 0) {
        char *end;
        double sc = strtod(name + 6, &end);
        if (end == name + 6 || *end || !(sc >= 0.5 && sc <= 4))
            return -1;
        if (apply)
            v->ui = sc;
        return LS_VIEW_REDRAW;
    }
    if (strncmp(name, "wheel ", 6) == 0) {
        char *end;
        long n = strtol(name + 6, &end, 10);
        if (end == name + 6 || *end || n < -100 || n > 100)
            return -1;
        if (apply)
            zoom_about(v, fmin(32, fmax(0.1, v->zoom * pow(1.25, (double)n))));
        return LS_VIEW_REDRAW;
    }
    return -1;
}

static bool key_is(const char *name, const char *a, const char *b)
{
    return strcmp(name, a) == 0 || (b && strcmp(name, b) == 0);
}

/* Stepping keys: direction and unit. */
static bool step_key(const char *name, bool *fwd, ls_step_unit *unit)
{
    static const struct {
        const char *name;
        bool fwd;
        ls_step_unit unit;
    } keys[] = {{"right", true, LS_STEP_EVENT},        {"n", true, LS_STEP_EVENT},
                {"shift+right", true, LS_STEP_INSTRUCTION}, {"ctrl+right", true, LS_STEP_STAGE},
                {"left", false, LS_STEP_EVENT},        {"shift+left", false, LS_STEP_INSTRUCTION},
                {"ctrl+left", false, LS_STEP_STAGE}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(name, keys[i].name) == 0) {
            *fwd = keys[i].fwd;
            *unit = keys[i].unit;
            return true;
        }
    return false;
}

/* `i`: the tile panel's next picture: the iteration space, then each input
 * the plan loads (a contraction's matrix and vector; not an intermediate
 * held in registers), as `draw layout --operand K` draws it. */
static int next_operand(const ls_view *v)
{
    for (int k = v->operand + 1; k < v->plan->n_inputs; k++) {
        ls_diag d;
        ls_diag_clear(&d);
        if (ls_viz_operand_check(v->plan, k, &d) == LS_OK)
            return k;
    }
    return -1;
}

/* The keys that only change view settings; -1 when name is not one. */
static int setting_key(ls_view *v, const char *name, bool apply)
{
    int np = LS_VIEW_PANELS, ns = (int)v->d->num_subgroups;
    ls_view_panel panel = v->panel;
    if (key_is(name, "tab", NULL))
        panel = (ls_view_panel)((panel + 1) % np);
    else if (key_is(name, "shift+tab", NULL))
        panel = (ls_view_panel)((panel + np - 1) % np);
    else if (strlen(name) == 1 && name[0] >= '1' && name[0] < '1' + np)
        panel = (ls_view_panel)(name[0] - '1');
    else if (key_is(name, "]", NULL)) {
        if (apply)
            v->subgroup = (v->subgroup + 1) % ns;
    } else if (key_is(name, "[", NULL)) {
        if (apply)
            v->subgroup = (v->subgroup + ns - 1) % ns;
    } else if (key_is(name, "+", "=")) {
        if (apply)
            v->zoom = fmin(32, v->zoom * 1.25);
    } else if (key_is(name, "-", NULL)) {
        if (apply)
            v->zoom = fmax(0.1, v->zoom / 1.25);
    } else if (key_is(name, "0", NULL)) {
        if (apply) {
            v->zoom = 1;
            v->pan_x = v->pan_y = 0;
        }
    } else if (key_is(name, "space", NULL)) {
        if (apply)
            v->playing = !v->playing;
    } else if (key_is(name, ">", NULL)) {
        if (apply && v->speed_idx + 1 < N_SPEEDS)
            v->speed_idx++;
    } else if (key_is(name, "<", NULL)) {
        if (apply && v->speed_idx > 0)
            v->speed_idx--;
    } else if (key_is(name, "?", NULL)) {
        if (apply)
            v->help = !v->help;
    } else if (key_is(name, "leave", NULL)) {
        if (apply)
            v->hover_on = false;
    } else if (key_is(name, "i", NULL)) {
        if (apply) {
            v->operand = next_operand(v);
            panel = LS_VIEW_TILE; /* the key is about the tile: show it */
            v->zoom = 1;
            v->pan_x = v->pan_y = 0;
        }
    } else {
        return -1;
    }
    if (apply && panel != v->panel) {
        v->panel = panel;
        v->zoom = 1; /* a new picture starts fitted */
        v->pan_x = v->pan_y = 0;
        if (panel == LS_VIEW_GPU)
            ls_view_gpu_prepare(v);
    }
    return LS_VIEW_REDRAW;
}

/* Ctrl+Right / Ctrl+Left follow the selected subgroup: the next stage is
 * its next record in another stage than its current one, the previous
 * stage the first record of its run before.  (The stepper's own stage unit
 * looks at every subgroup's records, and with subgroups in different
 * stages the status line would bounce between them.)  No move at an end
 * going forward; back past the first stage is the start. */
static void stage_step(ls_view *v, bool fwd)
{
    ls_stepper *st = v->st;
    int sg = v->subgroup;
    int64_t start = ls_stepper_position(st), n = ls_stepper_length(st), target = start;
    const ls_engine_record *cur = ls_stepper_record(st, ls_view_latest(v, sg));
    int stage = cur ? (int)cur->stage : -1;
    if (fwd) {
        for (int64_t i = start + 1; i < n && target == start; i++) {
            const ls_engine_record *r = ls_stepper_record(st, i);
            if (r->subgroup == sg && (int)r->stage != stage)
                target = i;
        }
    } else {
        int64_t j = start - 1;
        while (j >= 0 && !(ls_stepper_record(st, j)->subgroup == sg &&
                           (int)ls_stepper_record(st, j)->stage != stage))
            j--;
        target = j; /* -1: the start */
        for (int64_t k = j - 1; j >= 0 && k >= 0; k--) {
            const ls_engine_record *r = ls_stepper_record(st, k);
            if (r->subgroup != sg)
                continue;
            if (r->stage != ls_stepper_record(st, j)->stage)
                break;
            target = k;
        }
    }
    seek(st, target);
}

bool ls_view_action_valid(const char *name)
{
    bool fwd;
    ls_step_unit u;
    static const char *other[] = {"home", "end", "{", "}", "o", "O", "s", "q", "escape"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        if (strcmp(name, other[i]) == 0)
            return true;
    if (step_key(name, &fwd, &u))
        return true;
    /* the setting keys do not depend on the view's numbers for validity */
    static const char *settings[] = {"tab", "shift+tab", "]", "[", "+", "=", "-", "0",
                                     "space", ">", "<", "?", "leave", "i"};
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
        if (strcmp(name, settings[i]) == 0)
            return true;
    if (strlen(name) == 1 && name[0] >= '1' && name[0] < '1' + LS_VIEW_PANELS)
        return true;
    return command(NULL, name, false) >= 0;
}

int ls_view_action(ls_view *v, const char *name, ls_diag *diag)
{
    bool fwd;
    ls_step_unit unit;
    int rc = -1;
    if (step_key(name, &fwd, &unit)) {
        if (unit == LS_STEP_STAGE)
            stage_step(v, fwd);
        else if (fwd)
            ls_stepper_forward(v->st, unit);
        else
            ls_stepper_back(v->st, unit);
        rc = LS_VIEW_REDRAW;
    } else if (strcmp(name, "home") == 0) {
        seek(v->st, -1);
        rc = LS_VIEW_REDRAW;
    } else if (strcmp(name, "end") == 0) {
        seek(v->st, ls_stepper_length(v->st) - 1);
        v->playing = false;
        rc = LS_VIEW_REDRAW;
    } else if (strcmp(name, "}") == 0 || strcmp(name, "{") == 0) {
        rc = change_workgroup(v, v->workgroup + (name[0] == '}' ? 1 : -1), diag);
        if (rc < 0)
            return rc;
        rc = LS_VIEW_REDRAW;
    } else if (strcmp(name, "o") == 0 || strcmp(name, "O") == 0) {
        /* the front end holds the dispatch; one reduction: nothing to do */
        if (v->n_ops < 2)
            return 0;
        return name[0] == 'o' ? LS_VIEW_NEXT_OP : LS_VIEW_PREV_OP;
    } else if (strcmp(name, "s") == 0) {
        return LS_VIEW_SAVE;
    } else if (strcmp(name, "q") == 0 || strcmp(name, "escape") == 0) {
        return LS_VIEW_QUIT;
    } else if ((rc = setting_key(v, name, true)) < 0 && (rc = command(v, name, true)) < 0) {
        return ls_diag_set(diag, LS_ERR_USAGE, "--keys", 0, 0,
                           "unknown key '%s' (press ? or see lanescope view --help)", name);
    }
    if (v->playing && ls_stepper_position(v->st) + 1 >= ls_stepper_length(v->st) &&
        strcmp(name, "space") != 0)
        v->playing = false;
    ls_view_hover_update(v); /* values and layout may have changed under the mouse */
    return rc;
}

double ls_view_tick_interval(const ls_view *v)
{
    double s = speeds[v->speed_idx];
    return s > FPS_MAX ? 1 / FPS_MAX : 1 / s;
}

bool ls_view_tick(ls_view *v)
{
    if (!v->playing)
        return false;
    double s = speeds[v->speed_idx];
    int64_t n = s > FPS_MAX ? (int64_t)(s / FPS_MAX) : 1;
    bool moved = false;
    for (int64_t i = 0; i < n; i++)
        if (ls_stepper_forward(v->st, LS_STEP_EVENT))
            moved = true;
        else {
            v->playing = false;
            break;
        }
    if (moved)
        ls_view_hover_update(v);
    return moved;
}

/* ------------------------------------------------------------ frame */

double ls_view_top_h(const ls_view *v)
{
    return 50 * v->ui;
}

double ls_view_caption_h(const ls_view *v)
{
    return 78 * v->ui;
}

void ls_view_frame_of(const ls_view *v, double cw, double ch, ls_view_frame *f)
{
    double pad = 8 * v->ui;
    f->ax = pad;
    f->ay = ls_view_top_h(v) + pad;
    f->aw = v->width - 2 * pad;
    f->ah = v->height - ls_view_top_h(v) - ls_view_caption_h(v) - 2 * pad;
    if (f->aw < 1)
        f->aw = 1;
    if (f->ah < 1)
        f->ah = 1;
    f->content_w = cw > 1 ? cw : 1;
    f->content_h = ch > 1 ? ch : 1;
    double fit = fmin(f->aw / f->content_w, f->ah / f->content_h);
    /* small pictures are not blown up past 2.5x the text scale: they would
     * fill the window with giant labels */
    if (fit > 2.5 * v->ui)
        fit = 2.5 * v->ui;
    f->scale = fit * v->zoom;
    f->ox = f->ax + (f->aw - f->content_w * f->scale) / 2 + v->pan_x;
    f->oy = f->ay + (f->ah - f->content_h * f->scale) / 2 + v->pan_y;
}

static void fill_rect(cairo_t *cr, double x, double y, double w, double h, double r, double g,
                      double b, double a)
{
    cairo_set_source_rgba(cr, r, g, b, a);
    cairo_rectangle(cr, x, y, w, h);
    cairo_fill(cr);
}

/* Words of text into lines no wider than w at pt; draws them from (x, y)
 * when draw, returns the number of lines. */
static int wrap_text(cairo_t *cr, const char *text, double x, double y, double w, double pt,
                     double line_h, int max_lines, bool draw)
{
    char line[1024] = "";
    int lines = 0;
    const char *s = text;
    while (*s && lines < max_lines) {
        while (*s == ' ')
            s++;
        const char *e = s;
        while (*e && *e != ' ' && *e != '\n')
            e++;
        char cand[1024];
        snprintf(cand, sizeof cand, "%s%s%.*s", line, line[0] ? " " : "", (int)(e - s), s);
        if (line[0] && ls_viz_text_w(cr, cand, pt, false) > w) {
            if (draw)
                ls_viz_text_at(cr, line, x, y + lines * line_h, pt, false, 0);
            lines++;
            snprintf(line, sizeof line, "%.*s", (int)(e - s), s);
        } else {
            snprintf(line, sizeof line, "%s", cand);
        }
        s = e;
        if (*s == '\n') {
            if (draw && lines < max_lines)
                ls_viz_text_at(cr, line, x, y + lines * line_h, pt, false, 0);
            lines++;
            line[0] = 0;
            s++;
        }
    }
    if (line[0] && lines < max_lines) {
        if (draw)
            ls_viz_text_at(cr, line, x, y + lines * line_h, pt, false, 0);
        lines++;
    }
    return lines;
}

static void draw_bars(cairo_t *cr, const ls_view *v, int width)
{
    double u = v->ui, h1 = 28 * u, h2 = 22 * u;
    fill_rect(cr, 0, 0, width, h1, 0.16, 0.18, 0.22, 1);
    char status[512];
    ls_view_status_line(v, status, sizeof status);
    cairo_set_source_rgb(cr, 1, 1, 1);
    ls_viz_text_at(cr, status, 10 * u, 19 * u, 12 * u, false, 0);
    fill_rect(cr, 0, h1, width, h2, 0.90, 0.91, 0.93, 1);
    double x = 10 * u;
    for (int k = 0; k < LS_VIEW_PANELS; k++) {
        char tab[48];
        snprintf(tab, sizeof tab, "%d %s", k + 1, panel_names[k]);
        double tw = ls_viz_text_w(cr, tab, 11 * u, k == (int)v->panel) + 16 * u;
        if (k == (int)v->panel)
            fill_rect(cr, x, h1, tw, h2, 1, 1, 1, 1);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        ls_viz_text_at(cr, tab, x + 8 * u, h1 + 15 * u, 11 * u, k == (int)v->panel, 0);
        x += tw + 4 * u;
    }
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    ls_viz_text_at(cr, "? keys", width - 10 * u, h1 + 15 * u, 11 * u, false, 1);
}

static void draw_caption(cairo_t *cr, const ls_view *v, int width, int height)
{
    double u = v->ui, h = ls_view_caption_h(v), y = height - h;
    fill_rect(cr, 0, y, width, h, 1.0, 0.98, 0.90, 1);
    fill_rect(cr, 0, y, width, 1.5 * u, 0.75, 0.70, 0.55, 1);
    char cap[1024];
    ls_view_caption(v, cap, sizeof cap);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    double pt = 12.5 * u;
    wrap_text(cr, cap, 12 * u, y + 20 * u, width - 24 * u, pt, pt * 1.45, 4, true);
}

static void draw_message(cairo_t *cr, const ls_view *v, const char *msg)
{
    ls_view_frame f;
    ls_view_frame_of(v, 1, 1, &f);
    cairo_set_source_rgb(cr, 0.5, 0.1, 0.1);
    wrap_text(cr, msg, f.ax + 20 * v->ui, f.ay + 30 * v->ui, f.aw - 40 * v->ui, 13 * v->ui,
              18 * v->ui, 6, true);
}

/* The current panel, built and drawn into the panel area. */
static void draw_panel(cairo_t *cr, const ls_view *v)
{
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_figure fig;
    ls_chart chart;
    ls_view_lanes lanes;
    memset(&fig, 0, sizeof fig);
    memset(&chart, 0, sizeof chart);
    memset(&lanes, 0, sizeof lanes);
    double w = 0, h = 0;
    ls_status st;
    if (v->panel == LS_VIEW_LANES) {
        if (!(st = ls_view_lanes_build(v, &lanes, &diag)))
            ls_view_lanes_size(&lanes, &w, &h);
    } else if (!(st = ls_view_panel_build(v, v->panel, &fig, &chart, &diag))) {
        if (fig.n_panels > 0 || fig.title[0])
            ls_figure_size(&fig, &w, &h);
        else
            ls_chart_size(&chart, &w, &h);
    }
    if (st) {
        char msg[1024];
        ls_diag_format(&diag, msg, sizeof msg);
        draw_message(cr, v, msg);
    } else {
        ls_view_frame f;
        ls_view_frame_of(v, w, h, &f);
        cairo_save(cr);
        cairo_rectangle(cr, f.ax, f.ay, f.aw, f.ah);
        cairo_clip(cr);
        cairo_translate(cr, f.ox, f.oy);
        cairo_scale(cr, f.scale, f.scale);
        if (v->panel == LS_VIEW_LANES)
            ls_view_lanes_draw(cr, &lanes);
        else if (fig.n_panels > 0 || fig.title[0])
            ls_figure_draw(cr, &fig);
        else
            ls_chart_draw(cr, &chart);
        cairo_restore(cr);
    }
    ls_view_lanes_fini(&lanes);
    ls_figure_free(&fig);
    ls_chart_free(&chart);
}

static void draw_hover(cairo_t *cr, const ls_view *v)
{
    if (!v->hover_on || !v->hover.valid)
        return;
    double u = v->ui, pt = 11.5 * u, pad = 6 * u;
    double maxw = fmin(520 * u, v->width - 20 * u);
    int lines = wrap_text(cr, v->hover.text, 0, 0, maxw - 2 * pad, pt, pt * 1.4, 6, false);
    double w = 0;
    if (lines == 1)
        w = ls_viz_text_w(cr, v->hover.text, pt, false) + 2 * pad;
    else
        w = maxw;
    double h = lines * pt * 1.4 + 2 * pad - pt * 0.3;
    double x = v->hover_px + 16 * u, y = v->hover_py + 18 * u;
    if (x + w > v->width)
        x = fmax(0, v->hover_px - w - 8 * u);
    if (y + h > v->height - ls_view_caption_h(v))
        y = fmax(0, v->hover_py - h - 8 * u);
    fill_rect(cr, x + 2 * u, y + 2 * u, w, h, 0, 0, 0, 0.18);
    fill_rect(cr, x, y, w, h, 1, 1, 0.94, 1);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 1 * u);
    cairo_rectangle(cr, x + 0.5, y + 0.5, w - 1, h - 1);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
    wrap_text(cr, v->hover.text, x + pad, y + pad + pt * 0.85, maxw - 2 * pad, pt, pt * 1.4, 6,
              true);
}

static void draw_help(cairo_t *cr, const ls_view *v)
{
    if (!v->help)
        return;
    double u = v->ui, pt = 12 * u, lh = pt * 1.5;
    int n = 0;
    while (ls_view_help[n])
        n++;
    /* the key column as wide as its widest entry */
    double kw = 0, dw = 0;
    for (int i = 0; i < n; i++) {
        const char *tab = strchr(ls_view_help[i], '\t');
        char key[64];
        snprintf(key, sizeof key, "%.*s", tab ? (int)(tab - ls_view_help[i]) : 0, ls_view_help[i]);
        kw = fmax(kw, ls_viz_text_w(cr, key, pt, true));
        dw = fmax(dw, ls_viz_text_w(cr, tab ? tab + 1 : "", pt, false));
    }
    double w = fmin(kw + dw + 72 * u, v->width - 40 * u), h = (n + 2) * lh + 20 * u;
    double x = (v->width - w) / 2, y = fmax(10 * u, (v->height - h) / 2);
    fill_rect(cr, 0, 0, v->width, v->height, 0, 0, 0, 0.35);
    fill_rect(cr, x, y, w, h, 1, 1, 1, 0.97);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    ls_viz_text_at(cr, "lanescope view: keys", x + 16 * u, y + 14 * u + pt, pt * 1.15, true, 0);
    for (int i = 0; i < n; i++) {
        const char *line = ls_view_help[i];
        const char *tab = strchr(line, '\t');
        double ly = y + 14 * u + pt + (i + 1.5) * lh;
        char key[64];
        snprintf(key, sizeof key, "%.*s", tab ? (int)(tab - line) : 0, line);
        ls_viz_text_at(cr, key, x + 16 * u, ly, pt, true, 0);
        ls_viz_text_at(cr, tab ? tab + 1 : line, x + 40 * u + kw, ly, pt, false, 0);
    }
}

void ls_view_render(cairo_t *cr, const ls_view *v, int width, int height)
{
    /* the frame is laid out for the view's size; a different target size
     * (a HiDPI drawable) is a uniform scale of it */
    cairo_save(cr);
    if (width != v->width || height != v->height)
        cairo_scale(cr, (double)width / v->width, (double)height / v->height);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    draw_panel(cr, v);
    draw_bars(cr, v, v->width);
    draw_caption(cr, v, v->width, v->height);
    draw_hover(cr, v);
    draw_help(cr, v);
    cairo_restore(cr);
}

cairo_surface_t *ls_view_render_image(const ls_view *v)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, v->width, v->height);
    cairo_t *cr = cairo_create(s);
    ls_view_render(cr, v, v->width, v->height);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    return s;
}

ls_status ls_view_save_png(const ls_view *v, const char *path, ls_diag *diag)
{
    cairo_surface_t *s = ls_view_render_image(v);
    ls_view_state st;
    ls_view_get_state(v, &st);
    char title[512];
    snprintf(title, sizeof title, "view: %s panel of %s, workgroup %lld, position %lld of %lld",
             ls_view_panel_name(v->panel), v->p->name, (long long)v->workgroup,
             (long long)st.position + 1, (long long)st.length);
    ls_export_opts o = {v->source, "view", 1, "png"};
    ls_status rc = ls_viz_export_image(path, s, &o, title, diag);
    cairo_surface_destroy(s);
    return rc;
}
