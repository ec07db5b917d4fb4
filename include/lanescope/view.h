/* view.h: `lanescope view`, stepping through one workgroup of a simulated
 * reduction the way a debugger steps through code -- without the window.
 *
 * Everything the viewer shows lives in one ls_view context: the stepper
 * (stepper.h) on the chosen workgroup, the selected subgroup, the panel, the
 * zoom and pan, playback, the mouse position and the window size.  Three
 * parts, so the whole of it can be tested with no display:
 *
 *   ls_view_action   names -> state changes ("right", "ctrl+right", "]",
 *                    "hover 120,80", "resize 1280x720": the names --keys
 *                    takes; the SDL front end maps its events to the same
 *                    names), the only functions that change a view;
 *   builders         the picture of the current panel as a plain
 *                    description: the ls_figure / ls_chart of `lanescope
 *                    draw` where the picture is the same, or ls_view_lanes
 *                    for the lanes row the figures have no equivalent of;
 *   ls_view_render   draws the context into any cairo context (status line,
 *                    panel, caption, hover box, help) and changes nothing.
 *
 * Cost: a step is O(1) on the recorded timeline; a frame replays the
 * workgroup's functional model once (ls_stepper_snapshot) and builds one
 * figure.  Changing the workgroup runs the timing engine again (the stepper
 * records one workgroup per run); the whole-GPU panel runs it once more with
 * a trace, the first time it is shown.
 */
#ifndef LANESCOPE_VIEW_H
#define LANESCOPE_VIEW_H

#include <cairo.h>
#include <stdbool.h>
#include <stdint.h>

#include "lanescope/attention.h"
#include "lanescope/stepper.h"
#include "lanescope/viz.h"

typedef enum {
    LS_VIEW_TILE,     /* the workgroup tile: owners and loaded values */
    LS_VIEW_LANES,    /* the selected subgroup's lanes and butterfly arcs */
    LS_VIEW_SMEM,     /* the cross-subgroup buffer, banks, barrier state */
    LS_VIEW_TIMELINE, /* the workgroup's subgroups over cycles, with a cursor */
    LS_VIEW_TRAFFIC,  /* per-stage work up to the cursor */
    LS_VIEW_GPU,      /* every WGP's resident workgroups at the cursor's cycle */
    LS_VIEW_PANELS
} ls_view_panel;

typedef struct ls_view ls_view;

typedef struct {
    const ls_plan *plan; /* plan->problem and plan->derived too: outlive the view */
    const ls_hw *hw;     /* outlives the view */
    ls_input_source in;  /* its arrays (in.values, in.npy) outlive the view */
    int64_t workgroup;
    int width, height;   /* pixels */
    double ui_scale;     /* pixels per point of text (HiDPI: 2); 0 means 1 */
    ls_view_panel panel; /* the panel shown first */
    int op, n_ops;       /* which reduction of the dispatch this is, of how many (0: 1) */
    const char *source;  /* the input's name, for saved PNGs' tEXt "Source" (may be NULL) */
    /* an attention's kernel (plan is its view's, ls_att_view_plan): the
     * op, its layouts and view, to step its values; NULL for a reduction */
    const struct ls_view_attention *attention;
} ls_view_config;

/* What the view of an attention steps (outlives the view). */
typedef struct ls_view_attention {
    const ls_module *m;
    const ls_module_attention *ma;
    const ls_attention *a;
    const ls_att_view *view;
} ls_view_attention;

ls_status ls_view_new(const ls_view_config *c, ls_view **out, ls_diag *diag);
void ls_view_free(ls_view *v);

/* What an action asks of the front end (bits).  The view holds one
 * reduction; `o` / `O` ask the front end, which holds the dispatch, for the
 * next / previous one (a new view made with ls_view_config_like). */
enum {
    LS_VIEW_REDRAW = 1,
    LS_VIEW_QUIT = 2,
    LS_VIEW_SAVE = 4,
    LS_VIEW_NEXT_OP = 8,
    LS_VIEW_PREV_OP = 16
};

/* Keys: right n shift+right ctrl+right left shift+left ctrl+left home end
 * tab shift+tab 1..6 [ ] { } o O i + - 0 space < > ? s q escape; commands:
 * "hover X,Y" and "pan DX,DY" (pixels), "leave" (mouse gone), "resize WxH",
 * "wheel N" (N > 0 zooms in, about the mouse's point), "scale S" (pixels
 * per point of text, 0.5..4:
 * a HiDPI drawable).  Returns LS_VIEW_* bits (>= 0), or a negative
 * ls_status with diag set: LS_ERR_USAGE for a name it does not know, or the
 * engine's error when a workgroup change fails (the view keeps its old
 * workgroup). */
int ls_view_action(ls_view *v, const char *name, ls_diag *diag);
/* Whether name is an action ls_view_action accepts (checks --keys up front). */
bool ls_view_action_valid(const char *name);

/* Playback: while playing, the front end calls tick every interval; it
 * advances some events (more than one per tick above 60 events/s) and stops
 * playing at the end.  Returns whether the position moved. */
bool ls_view_tick(ls_view *v);
double ls_view_tick_interval(const ls_view *v); /* seconds */

typedef struct {
    int64_t position, length; /* position -1: before the first record */
    int64_t cycle;            /* of the record at the position (0 before it) */
    ls_stage stage;
    int64_t workgroup, workgroups;
    int subgroup, subgroups;  /* the selected one */
    ls_view_panel panel;
    double zoom;              /* 1: the panel fits the window */
    double pan_x, pan_y;      /* pixels */
    bool playing, help;
    double speed;             /* events per second while playing */
    int width, height;
    double ui_scale;          /* pixels per point of text */
    int op, n_ops;            /* the reduction of the dispatch shown, of how many */
    int operand;              /* the tile panel: -1 the iteration space, else input k */
    const ls_engine_record *record; /* at the position, NULL before the first */
} ls_view_state;

void ls_view_get_state(const ls_view *v, ls_view_state *s);
/* A config for another reduction of the same dispatch that keeps what the
 * person set in v: panel, window size, text scale, and the workgroup where
 * the other reduction has it (else 0). */
void ls_view_config_like(const ls_view *v, const ls_plan *plan, const ls_hw *hw,
                         ls_input_source in, int op, ls_view_config *c);
const ls_stepper *ls_view_stepper(const ls_view *v);
const char *ls_view_panel_name(ls_view_panel p);

/* ---- what the mouse is over ---- */
typedef struct {
    bool valid;
    ls_view_panel panel;
    int64_t tid, subgroup, lane; /* owner (tile: the first of n_owners) or lane; -1: none */
    int64_t n_owners;
    int64_t reg;                 /* register / result slot, -1: none */
    int64_t bank;                /* shared-memory bank, -1: none */
    int rank;
    int64_t x[LS_MAX_RANK];      /* tile: iteration-space coordinates */
    char value[48];              /* "" when not loaded yet */
    char text[320];              /* the line the hover box shows */
} ls_view_hover;

/* The hover of the last "hover X,Y" (valid false when nothing is there). */
const ls_view_hover *ls_view_get_hover(const ls_view *v);

/* ---- the lanes panel, as a description (built, then drawn) ---- */
enum {
    LS_LANE_DUP = 1,     /* holds a copy of a lower lane's elements (lane duplication) */
    LS_LANE_IDLE = 2,    /* no valid element in this workgroup: padding only */
    LS_LANE_WRITTEN = 4  /* receives a partner's value in the current step */
};

typedef struct {
    int64_t dst, src; /* lane dst combines the value of lane src */
} ls_view_arc;

typedef struct {
    int subgroup;
    int64_t lanes, rows, total_rows; /* lanes shown; register rows shown / held */
    bool accumulators;               /* rows are loop accumulators, else result slots */
    char (*text)[24];                /* rows x lanes value labels (owned) */
    ls_value *values;                /* rows x lanes (owned) */
    uint8_t *flags;                  /* per lane, LS_LANE_* (owned) */
    /* the step drawn as arcs: none when n_arcs is 0 */
    char step_name[256];             /* "round 2 of 4: xor 8", "DPP step 3 of 6: row_half_mirror" */
    int64_t n_arcs;
    ls_view_arc *arcs;               /* dst != src pairs, dst ascending (owned) */
    char title[160];
    char (*row_names)[24];           /* rows of them, or NULL: "acc N" / "slot N" (owned) */
} ls_view_lanes;

/* The lanes of the selected subgroup at the position; the arcs of the step
 * its latest record belongs to.  Values are ls_stepper_snapshot's. */
ls_status ls_view_lanes_build(const ls_view *v, ls_view_lanes *out, ls_diag *diag);
void ls_view_lanes_fini(ls_view_lanes *l);
void ls_view_lanes_size(const ls_view_lanes *l, double *w, double *h);
void ls_view_lanes_draw(cairo_t *cr, const ls_view_lanes *l);

/* The panels drawn with lanescope draw's builders: tile (figure), smem
 * (figure), gpu (figure), timeline (chart), traffic (chart).  Exactly one of
 * fig/chart is filled (the other zeroed); free both with ls_figure_free /
 * ls_chart_free.  LS_VIEW_LANES is not one of them. */
ls_status ls_view_panel_build(const ls_view *v, ls_view_panel panel, ls_figure *fig,
                              ls_chart *chart, ls_diag *diag);

/* ---- words ---- */
/* One line: cycle, stage, instruction, subgroup, workgroup, position. */
void ls_view_status_line(const ls_view *v, char *buf, size_t size);
/* The current step explained in plain words with the actual numbers. */
void ls_view_caption(const ls_view *v, char *buf, size_t size);
/* The key table (the help overlay, --help and the man page list the same). */
extern const char *const ls_view_help[];

/* ---- drawing ---- */
/* The whole window at width x height pixels.  Reads v, changes nothing; a
 * panel that cannot be built shows its reason instead. */
void ls_view_render(cairo_t *cr, const ls_view *v, int width, int height);
/* A cairo image surface of the current frame at the view's size (caller
 * destroys it). */
cairo_surface_t *ls_view_render_image(const ls_view *v);
/* The current frame as a PNG file, written atomically. */
ls_status ls_view_save_png(const ls_view *v, const char *path, ls_diag *diag);

#endif
