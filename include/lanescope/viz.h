/* viz.h: the pictures.  Each picture is built in two steps:
 *
 *   1. a builder turns lanescope's models (a derived layout, a nested
 *      layout, a swizzle, a simulation result, a CSV of measurements) into
 *      a plain description -- a figure of cell grids (ls_figure) or a chart
 *      (ls_chart) -- with every colour, label and border decided;
 *   2. a renderer draws that description into whatever cairo context it is
 *      handed (an image, SVG or PDF surface, or the viewer's window) and
 *      keeps no state of its own.
 *
 * Step 1 is where the layout math lives and what the tests check cell by
 * cell; step 2 is only drawing.  ls_viz_export writes a figure or chart to a
 * .png (libpng, with tEXt chunks naming the input and the tool version),
 * .svg or .pdf file, atomically.  Conventions follow
 * shared/reference/visual-conventions.md: T# lane, S# subgroup, V# register,
 * Paul Tol's light palette for filled cells, Okabe-Ito for lines and bars,
 * text colour by background luminance, DejaVu Sans through fontconfig. */
#ifndef LANESCOPE_VIZ_H
#define LANESCOPE_VIZ_H

#include <cairo.h>
#include <stdbool.h>
#include <stdint.h>

#include "lanescope/engine.h"
#include "lanescope/layout.h"
#include "lanescope/swizzle.h"

typedef struct {
    double r, g, b; /* 0..1 */
} ls_rgb;

/* ---- colours ---- */
ls_rgb ls_rgb_hex(uint32_t hex);
/* The fill of lane `lane` of subgroup `sg`: hue by subgroup (Tol light),
 * shade by lane, so neighbouring lanes differ and labels disambiguate. */
ls_rgb ls_viz_thread_colour(int64_t subgroup, int64_t lane);
/* Okabe-Ito colour k (k mod 8; 7 is grey): series, stages, bars. */
ls_rgb ls_viz_series_colour(int k);
/* Black or white, whichever reads better on bg (WCAG relative luminance). */
ls_rgb ls_viz_text_on(ls_rgb bg);
/* 8-bit channel values the PNG will hold for colour c (for tests). */
void ls_rgb_bytes(ls_rgb c, uint8_t out[3]);

/* ---- cell grids (layout, nested, swizzle, banks) ---- */
enum {
    LS_CELL_HIGHLIGHT = 1, /* drawn with a thick dark outline */
    LS_CELL_DIM = 2,       /* faded (not the highlighted thread) */
    LS_CELL_ALERT = 4,     /* a conflict: red outline */
    LS_CELL_EMPTY = 8      /* nothing there: hatched grey */
};

#define LS_CELL_LABEL 24
#define LS_GRID_MAX_CELLS (1 << 20)
#define LS_GRID_HEADER 24

typedef struct {
    ls_rgb fill;
    char label[2][LS_CELL_LABEL]; /* first line (e.g. T42), second (e.g. S0 V3) */
    int32_t block;                /* cells with the same block share thin borders */
    int32_t group;                /* cells with the same group get a labelled box (-1: none) */
    uint8_t flags;
} ls_cell;

typedef struct {
    char caption[128];                 /* above the grid */
    int rows, cols;
    ls_cell *cells;                    /* rows*cols, row-major; owned */
    char (*row_head)[LS_GRID_HEADER];  /* rows labels (owned) */
    char (*col_head)[LS_GRID_HEADER];  /* cols labels (owned) */
    char row_axis[48], col_axis[48];   /* axis names, e.g. "d0", "bank" */
    char (*group_name)[16];            /* per group id: box label (NULL: none) */
    int n_groups;
    char (*row_note)[32];              /* text right of each row (NULL: none) */
    double cell_w, cell_h;             /* points */
} ls_grid;

#define LS_FIGURE_MAX_PANELS 4
#define LS_FIGURE_MAX_LEGEND 24
#define LS_FIGURE_MAX_NOTES 6

typedef struct {
    char title[256];
    char subtitle[256];
    int n_panels;
    bool stacked;                  /* panels one above the other (else side by side) */
    ls_grid panels[LS_FIGURE_MAX_PANELS];
    int n_legend;
    struct {
        ls_rgb colour;
        char text[64];
        uint8_t flags; /* LS_CELL_* style of the swatch */
    } legend[LS_FIGURE_MAX_LEGEND];
    int n_notes;
    char notes[LS_FIGURE_MAX_NOTES][200]; /* below the legend, e.g. aggregation */
} ls_figure;

/* Allocate a panel's cells and headers (zeroed, block/group -1). */
ls_grid *ls_figure_add_panel(ls_figure *f, int rows, int cols);
void ls_figure_free(ls_figure *f);
/* Size in points, and drawing (into any cairo context; top-left at 0,0). */
void ls_figure_size(const ls_figure *f, double *w, double *h);
void ls_figure_draw(cairo_t *cr, const ls_figure *f);
/* Where cell (row, col) of panel k is drawn: its rectangle in points. */
void ls_figure_cell_rect(const ls_figure *f, int panel, int row, int col, double *x, double *y,
                         double *w, double *h);

/* ---- builders for grids ---- */
#define LS_VIZ_MAX_AXIS_CELLS 64 /* cells per axis before aggregation */

typedef struct {
    int dim_row, dim_col;        /* iteration dims drawn (-1: choose) */
    int64_t at[LS_MAX_RANK];     /* fixed coordinate, within the tile, of the other dims */
    int64_t workgroup, iteration;
    int64_t thread;              /* highlighted thread, -1: none */
} ls_layout_view;

/* The workgroup tile of iteration `iteration` of workgroup `workgroup`. */
ls_status ls_viz_layout(const ls_problem *p, const ls_derived *d, const ls_layout_view *v,
                        ls_figure *out, ls_diag *diag);
/* A nested layout over its vector shape (dims chosen as for layouts). */
ls_status ls_viz_nested(const ls_nested_layout *l, const char *name, int dim_row, int dim_col,
                        int64_t thread, ls_figure *out, ls_diag *diag);
/* Before/after tables of a swizzle over `rows` rows, with each cell's bank
 * (elements of elem_bytes on banks x bank_bytes). */
ls_status ls_viz_swizzle(const ls_swizzle *s, const char *name, int64_t rows, int64_t elem_bytes,
                         int64_t banks, int64_t bank_bytes, ls_figure *out, ls_diag *diag);
/* Banks hit by one shared-memory access per row: the cross-subgroup
 * buffer's write and read of each result slot. */
ls_status ls_viz_banks_plan(const ls_plan *pl, const ls_hw *hw, ls_figure *out, ls_diag *diag);
/* Banks hit when each of `lanes` lanes reads element (row = lane, column c)
 * of a swizzled row-major buffer, one access per column block. */
ls_status ls_viz_banks_swizzle(const ls_swizzle *s, const char *name, int64_t lanes,
                               int64_t elem_bytes, int64_t banks, int64_t bank_bytes,
                               ls_figure *out, ls_diag *diag);

/* ---- charts (traffic, timeline, compare) ---- */
#define LS_CHART_MAX_SERIES 8
#define LS_CHART_MAX_BARS 16

typedef enum { LS_CHART_TRAFFIC, LS_CHART_TIMELINE, LS_CHART_COMPARE, LS_CHART_SWEEP } ls_chart_kind;

typedef struct {
    double start, end; /* cycles */
    int32_t row;       /* track */
    int32_t stage;     /* colour */
    int64_t workgroup;
} ls_gantt_bar;

typedef struct {
    char name[96];
    double measured, simulated; /* microseconds */
} ls_compare_point;

typedef struct {
    ls_chart_kind kind;
    char title[256], subtitle[256];
    int n_notes;
    char notes[LS_FIGURE_MAX_NOTES][200];
    /* traffic: metric panels x stage bars */
    int n_metrics, n_stages;
    char metric_name[8][48];
    char stage_name[LS_CHART_MAX_BARS][32];
    double metric[8][LS_CHART_MAX_BARS];
    double roofline_cycles, sim_cycles; /* DRAM bound vs simulated */
    /* timeline */
    int n_rows;
    char (*row_name)[32]; /* owned */
    ls_gantt_bar *bars;   /* owned */
    size_t n_bars;
    double t_end;
    int64_t waves;
    /* compare */
    ls_compare_point *points; /* owned */
    size_t n_points;
    /* sweep: simulated times in rank order */
    double *sweep_us;         /* owned */
    size_t n_sweep;
    size_t sweep_iree_rank;   /* 1-based; 0: none */
    double roofline_us;       /* DRAM bound of the problem */
} ls_chart;

void ls_chart_free(ls_chart *c);
void ls_chart_size(const ls_chart *c, double *w, double *h);
void ls_chart_draw(cairo_t *cr, const ls_chart *c);

/* Per-stage traffic of a simulation, with the model's DRAM roofline. */
void ls_viz_traffic(const ls_problem *p, const ls_hw *hw, const ls_sim_result *r, ls_chart *out);
/* Gantt chart of the trace's first max_wgps WGPs. */
ls_status ls_viz_timeline(const ls_problem *p, const ls_hw *hw, const ls_sim_result *r,
                          const ls_trace *tr, int max_wgps, ls_chart *out, ls_diag *diag);
/* Measured vs simulated from a CSV (name,measured_us,simulated_us). */
ls_status ls_viz_compare_csv(const char *path, ls_chart *out, ls_diag *diag);
/* A sweep's simulated times, fastest first (n of them), IREE's rank
 * (1-based, 0 for none) and the DRAM roofline time. */
void ls_viz_sweep(const char *title, const char *subtitle, const double *us_sorted, size_t n,
                  size_t iree_rank, double roofline_us, ls_chart *out);
/* Error figures of a comparison: mean absolute relative error, max, and
 * the share within 10% / 25%. */
void ls_compare_errors(const ls_compare_point *pts, size_t n, double *mean_rel, double *max_rel,
                       double *within10, double *within25);

/* Release cairo's (and through it fontconfig's) font caches.  Only for the
 * end of a process, after every cairo object is gone: it keeps leak
 * checkers quiet about memory the caches would otherwise hold to exit. */
void ls_viz_shutdown(void);

/* ---- export ---- */
typedef struct {
    const char *input;  /* tEXt "Source" */
    const char *kind;   /* tEXt "Title" prefix */
    double scale;       /* PNG pixels per point (1..8) */
} ls_export_opts;

/* Draw figure or chart (exactly one non-NULL) into path; format by the
 * extension (.png .svg .pdf).  Written to a temporary name and renamed. */
ls_status ls_viz_export(const char *path, const ls_figure *fig, const ls_chart *chart,
                        const ls_export_opts *o, ls_diag *diag);

#endif
