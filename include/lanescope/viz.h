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

#include "lanescope/attention.h"
#include "lanescope/engine.h"
#include "lanescope/layout.h"
#include "lanescope/plan.h"
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
    LS_CELL_EMPTY = 8,     /* nothing there: hatched grey */
    LS_CELL_SHARED = 16,   /* read by several threads (broadcast): dark stripes over the fill */
    LS_CELL_DOTS = 32,     /* subgroups 8-15, 24-31: dots over the fill (the 8 hues repeat) */
    LS_CELL_BARS = 64      /* subgroups 16-31: horizontal bars over the fill */
};
/* The marks that tell subgroup s from s mod 8, whose hue it shares. */
uint8_t ls_viz_subgroup_marks(int64_t subgroup);

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
#define LS_FIGURE_MAX_NOTES 12

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
/* Move src's panels after dst's (as many as fit); src keeps the rest and
 * its legend and notes.  Returns how many moved. */
int ls_figure_take_panels(ls_figure *dst, ls_figure *src);
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
/* An attention (viz/grids_attention.c): the op dims a picture of its K2
 * step shows without --dims (rows: the outer K2 dim; columns: the inner K2
 * dim of a paged cache, else K1, or N for the PV matmul); and the nested
 * layouts IREE anchors on its QK and PV matmuls, one panel each, over op
 * dims dim_row x dim_col (-1: those defaults). */
void ls_viz_attention_dims(const ls_attention *a, bool pv, int *dim_row, int *dim_col);
ls_status ls_viz_attention_nested(const ls_attention *a, int dim_row, int dim_col,
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

/* ---- operands: who reads each element of a reduction's input ----
 *
 * Operand k gets the iteration layout projected through its indexing map
 * (layout.h, ls_operand_regs), so the threads that differ only along a
 * loop dim the operand lacks read the same elements: a matvec's vector is
 * read by every thread of a row group (broadcast).  Ownership of operand
 * element oc = the threads whose loads touch it, exactly as the engine
 * charges the loads (padding skipped). */

/* LS_ERR_USAGE, naming --operand, unless input k exists and is loaded (an
 * intermediate input, held in registers, or one the body never reads has
 * no reads to draw). */
ls_status ls_viz_operand_check(const ls_plan *pl, int k, ls_diag *diag);
/* "input 1 %vec : tensor<4096xf16> (d1)": number, SSA name, type, map
 * (a strided result reads "d1 * 2"). */
void ls_viz_operand_name(const ls_problem *p, int k, char *buf, size_t size);
/* The layout projected onto input k (NestedLayoutAttr::apply): its dims are
 * the operand's body dims in map order, packed inner parts last (the order
 * of ls_plan_input_vector_type); body_dims (NULL or LS_MAX_BODY entries)
 * gets the body dim of each.  Returns its rank. */
int ls_viz_operand_layout_of(const ls_derived *d, const ls_problem *p, int k, ls_nested_layout *out,
                             int *body_dims);

/* Reads of input k in one workgroup tile of one iteration, over the box of
 * operand coordinates the tile reaches (origin + [0, extent) per operand
 * dim; elements past dim[] are outside the operand, elements no load
 * touches have readers 0, e.g. between the points of a strided map). */
typedef struct {
    int input, rank;             /* k; the operand's rank */
    int64_t origin[LS_MAX_RANK]; /* operand coordinates of the box's first element */
    int64_t extent[LS_MAX_RANK]; /* box size per operand dim */
    int64_t dim[LS_MAX_RANK];    /* the operand's size per dim */
    int64_t n;                   /* elements in the box */
    /* per box element, row-major (owned): */
    int32_t *readers;        /* threads whose loads touch it (exact) */
    int32_t *first, *second; /* the two lowest reading threads, -1: fewer */
    int32_t *vreg;           /* its index in first's operand vector */
    uint8_t *mine;           /* read by init's `thread` (NULL when thread < 0) */
} ls_operand_reads;

/* Caller storage; validates k (ls_viz_operand_check), workgroup, iteration
 * and thread (errors name --workgroup, --iteration, --thread).  Cost:
 * workgroup_size x the operand's elements per thread per iteration. */
ls_status ls_viz_operand_reads_init(const ls_plan *pl, int k, int64_t workgroup, int64_t iteration,
                                    int64_t thread, ls_operand_reads *r, ls_diag *diag);
void ls_viz_operand_reads_fini(ls_operand_reads *r);
/* Box index of operand coordinates oc (absolute), -1 outside the box. */
int64_t ls_viz_operand_reads_index(const ls_operand_reads *r, const int64_t *oc);

/* Input k's elements in the tile of v->workgroup / v->iteration, coloured by
 * their first reader; cells read by several threads are LS_CELL_SHARED and
 * name the count.  v->dim_row/dim_col and v->at name operand dims (at:
 * within the box); a rank-1 operand is one row. */
ls_status ls_viz_operand_layout(const ls_plan *pl, int k, const ls_layout_view *v, ls_figure *out,
                                ls_diag *diag);
/* The operand element cell (row, col) of ls_viz_operand_layout's figure for
 * the same pl, k and v stands for (its first when cells aggregate): its
 * coordinates (the operand's rank of them), how many threads read it, the
 * lowest of them and its index in that thread's operand vector.  False
 * outside the operand or where no thread reads. */
bool ls_viz_operand_cell(const ls_plan *pl, int k, const ls_layout_view *v, int row, int col,
                         int64_t *oc, int *rank, int64_t *readers, int64_t *first, int64_t *vreg);
/* The layout projected onto input k over its vector, each element with the
 * threads of the workgroup whose virtual ids hold it. */
ls_status ls_viz_operand_nested(const ls_plan *pl, int k, int dim_row, int dim_col, int64_t thread,
                                ls_figure *out, ls_diag *diag);

/* ---- charts (traffic, timeline, compare) ---- */
#define LS_CHART_MAX_SERIES 8
#define LS_CHART_MAX_BARS 16
/* draw compare's CSV: rows (points); its lines, fields and size are
 * bounded as compare's are (compare.h). */
#define LS_COMPARE_MAX_POINTS 100000

typedef enum {
    LS_CHART_TRAFFIC,
    LS_CHART_TIMELINE,
    LS_CHART_COMPARE,
    LS_CHART_SWEEP,
    LS_CHART_ROOFLINE
} ls_chart_kind;

/* One dispatch (or swept config) on a roofline: ops per DRAM byte,
 * achieved Gop/s, the Gop/s its bytes in flight allow by Little's law (0:
 * not known), and its bottleneck verdict. */
typedef struct {
    char name[96];
    double intensity, gops, mlp_gops;
    char verdict[512];
} ls_roof_point;

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
    /* traffic with several inputs: each one's loads (a panel beside the
     * roofline's): bytes requested, sectors, found in a cache, from DRAM */
    int n_operands;
    char operand_name[LS_MAX_INPUTS][32];
    double operand_bytes[LS_MAX_INPUTS], operand_sectors[LS_MAX_INPUTS];
    double operand_hits[LS_MAX_INPUTS], operand_dram[LS_MAX_INPUTS];
    /* timeline */
    int n_rows;
    char (*row_name)[32]; /* owned */
    ls_gantt_bar *bars;   /* owned */
    size_t n_bars;
    double t_end;
    int64_t waves;
    double cursor;            /* a cycle marked across every row (the viewer's); < 0: none */
    /* compare */
    ls_compare_point *points; /* owned */
    size_t n_points;
    /* sweep: simulated times in rank order */
    double *sweep_us;         /* owned */
    size_t n_sweep;
    size_t sweep_iree_rank;   /* 1-based; 0: none */
    double roofline_us;       /* DRAM bound of the problem */
    /* roofline */
    ls_roof_point *roof_points; /* owned */
    size_t n_roof_points;
    double roof_dram_gbps, roof_issue_gops;
} ls_chart;

void ls_chart_free(ls_chart *c);
/* Append text to the chart's notes, wrapped at spaces into lines of at
 * most 150 characters (continuations indented); what does not fit in
 * LS_FIGURE_MAX_NOTES lines is dropped with an ellipsis. */
void ls_chart_add_note(ls_chart *c, const char *text);
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
/* A simulated reduction as a roofline point: ops are its iteration-space
 * elements x (1 + the fused body's ops), over its DRAM bytes and its
 * kernel time; the verdict is its bottleneck line. */
void ls_viz_roof_point(const ls_problem *p, const ls_plan *plan, const ls_hw *hw,
                       const ls_sim_result *r, ls_roof_point *pt);
/* The model's issue peak: every scheduler of every WGP issuing one
 * subgroup-wide op a cycle, in Gop/s. */
double ls_viz_issue_gops(const ls_hw *hw);
/* A roofline of n points under the model's DRAM roof (GB/s x intensity)
 * and issue peak (Gop/s), each point's Little's-law ceiling dashed. */
void ls_viz_roofline(const char *title, const char *subtitle, const ls_roof_point *pts, size_t n,
                     double dram_gbps, double issue_gops, ls_chart *out);
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
    const char *format; /* "png", "svg", "pdf"; NULL: by path's extension */
} ls_export_opts;

/* Draw figure or chart (exactly one non-NULL) into path; format by
 * o->format, else by the extension (.png .svg .pdf); both given must agree.
 * "-" is standard output (o->format then required).  Written to a
 * temporary name and renamed. */
ls_status ls_viz_export(const char *path, const ls_figure *fig, const ls_chart *chart,
                        const ls_export_opts *o, ls_diag *diag);

/* An ARGB32 image surface (opaque: a window frame) as a PNG with the same
 * tEXt chunks as ls_viz_export (Software, Source = o->input, Title =
 * title), written atomically. */
ls_status ls_viz_export_image(const char *path, cairo_surface_t *s, const ls_export_opts *o,
                              const char *title, ls_diag *diag);

/* A PNG's size: at most LS_EXPORT_MAX_SIDE pixels a side (cairo's own
 * limit) and LS_EXPORT_MAX_PIXELS in all (512 MB as ARGB). */
#define LS_EXPORT_MAX_SIDE 32767
#define LS_EXPORT_MAX_PIXELS (INT64_C(1) << 27)
ls_status ls_export_check_pixels(double w, double h, ls_diag *diag);

#endif
