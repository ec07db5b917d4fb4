/* view_internal.h: the ls_view context and what view.c (state, actions,
 * frame), view_panels.c (panel builders) and view_caption.c (words) share.
 * Internal to viz/. */
#ifndef LANESCOPE_VIEW_INTERNAL_H
#define LANESCOPE_VIEW_INTERNAL_H

#include "lanescope/view.h"

#define LS_VIEW_MIN_SIZE 64   /* pixels per side */
#define LS_VIEW_MAX_SIZE 16384

struct ls_view {
    const ls_plan *plan;
    const ls_problem *p;
    const ls_derived *d;
    const ls_hw *hw;
    ls_input_source in;
    ls_stepper *st;
    int64_t workgroup;
    int subgroup;
    int op, n_ops;             /* this reduction of the dispatch, of how many */
    int operand;               /* tile panel: -1 the iteration space, else input k */
    char source[256];          /* the input's name, for saved PNGs */
    ls_view_panel panel;
    double zoom, pan_x, pan_y; /* zoom 1 = fit; pan in pixels */
    bool playing, help;
    int speed_idx;             /* into the speed table of view.c */
    int width, height;         /* pixels */
    double ui;                 /* pixels per point of text */
    bool hover_on;
    double hover_px, hover_py; /* pixels */
    ls_view_hover hover;
    const ls_view_attention *att; /* an attention's kernel (view_attention.c), else NULL */
    /* its values at the last position asked (the lanes panel and the
     * caption ask for the same snapshot every frame; computing one runs the
     * kernel's values up to there); owned, NULL before the first */
    struct ls_view_att_cache *att_cache;
    /* the whole-GPU panel: one engine run with a trace, made the first time
     * the panel is shown, kept as each workgroup's WGP and residency */
    bool gpu_ready;
    ls_status gpu_status;
    char gpu_msg[600];
    ls_sim_result gpu_res;
    int64_t *wg_wgp, *wg_start, *wg_end; /* per workgroup; start -1: not in the trace */
    bool gpu_truncated;
};

/* Where the picture of a panel goes: the area between the bars, and the
 * transform from its points to pixels (x_px = ox + pt * scale). */
typedef struct {
    double ax, ay, aw, ah;   /* panel area, pixels */
    double scale, ox, oy;
    double content_w, content_h; /* points */
} ls_view_frame;

void ls_view_frame_of(const ls_view *v, double content_w, double content_h, ls_view_frame *f);
/* Height in pixels of the status bar + tab bar (top) and of the caption box. */
double ls_view_top_h(const ls_view *v);
double ls_view_caption_h(const ls_view *v);

/* The latest record at or before the position that subgroup sg issued
 * (barrier releases count for every subgroup); -1 when none. */
int64_t ls_view_latest(const ls_view *v, int sg);

/* view_attention.c: the snapshot cache, empty, and its release. */
struct ls_view_att_cache *ls_view_att_cache_new(void);
void ls_view_att_cache_free(struct ls_view_att_cache *c);

/* Which reduction step a SUBGROUP_REDUCE / CROSS_SUBGROUP record belongs to,
 * from the records of its subgroup before it (the engine issues a
 * subgroup's instructions in template order: per reduce, per result slot,
 * per step a shuffle or DPP then a combine; engine.c build_template). */
typedef struct {
    const ls_subgroup_reduce *r; /* NULL: not a butterfly/DPP step */
    int reduce;                  /* index in plan->subgroup_reduces; -1 cross-subgroup */
    int step;                    /* 0-based within r */
    int64_t slot;                /* result slot */
    bool combine;                /* the step's value is made (values updated) */
    bool exchange;               /* the lane move; with combine: LLVM folded them (DPP) */
    /* neither: an instruction LLVM adds to the step (the copy of the value
     * the move overwrites, quieting a max operand, a promoted bf16 op) */
    int64_t smem_slot;           /* op 5/6: which result slot is written/read, -1 else */
} ls_view_step;

void ls_view_step_of(const ls_view *v, int64_t rec, ls_view_step *s);

/* A caption being written (view_caption.c): ls_view_text_add appends,
 * cutting it short at the buffer's end. */
typedef struct {
    char *buf;
    size_t size, len;
} ls_view_text;
__attribute__((format(printf, 2, 3))) void ls_view_text_add(ls_view_text *t, const char *f, ...);

/* view_attention.c: an attention's lanes (each lane's carried values),
 * caption and workgroup buffers; view_panels.c's barrier panel. */
ls_status ls_view_attention_lanes(const ls_view *v, ls_view_lanes *out, ls_diag *diag);
void ls_view_attention_caption(const ls_view *v, char *buf, size_t size);
ls_status ls_view_attention_smem(const ls_view *v, ls_figure *fig, ls_diag *diag);
void ls_view_barrier_panel(const ls_view *v, ls_figure *fig);

/* The lanes lane l of the subgroup reads in step s (reduce r): the partner
 * pairs, taken from the functional model itself (ls_func_run_reduce on
 * one-hot masks), so the arcs are what the values do. */
int64_t ls_view_step_arcs(const ls_subgroup_reduce *r, int step, int64_t sg_size,
                          ls_view_arc *out);

/* The tile figure's geometry (the dims ls_viz_layout chose, the tile
 * origin, elements per cell), shared by the tile builder and the hover. */
typedef struct {
    int64_t iteration;
    int dr, dc;        /* drawn dims; dr may be a phantom dim of extent 1 (rank 1) */
    bool one_row;
    int64_t origin[LS_MAX_RANK], ext[LS_MAX_RANK];
    int64_t kr, kc;    /* elements per cell along the rows / columns */
    int operand;       /* -1: the iteration space; else input k's reads (draw's figure) */
} ls_view_tile;

ls_status ls_view_tile_build(const ls_view *v, ls_figure *fig, ls_view_tile *t, ls_diag *diag);
/* The layout view (draw's) of the view's workgroup at iteration it. */
void ls_view_layout_view(const ls_view *v, int64_t it, ls_layout_view *lv);
/* The iteration the tile shows: the selected subgroup's loop iteration. */
int64_t ls_view_tile_iteration(const ls_view *v);

/* Run the engine with a trace for the whole-GPU panel (once). */
void ls_view_gpu_prepare(ls_view *v);

/* The lane and row of the box under point (x, y) of a lanes picture. */
bool ls_view_lanes_hit(const ls_view_lanes *l, double x, double y, int64_t *lane, int64_t *row);

/* The element of cell (r, c) of the tile figure (the first one of an
 * aggregated cell); false outside the problem. */
bool ls_view_tile_element(const ls_view *v, const ls_view_tile *t, int r, int c, int64_t *x);
/* The values of the elements cell (r, c) of the tile figure stands for, row
 * by row (up to max of them into out); returns how many there are. */
int64_t ls_view_cell_values(const ls_view *v, const ls_view_tile *t, int r, int c, ls_value *out,
                            int64_t max);
/* Short form of a value of the reduced type ("-1.953", "12"). */
void ls_view_value_text(const ls_view *v, ls_value x, char *buf, size_t size);

/* Hover: fill v->hover for pixel (px, py) of the current frame. */
void ls_view_hover_update(ls_view *v);

/* Text the front of the caption uses for an instruction ("shuffle xor 8"). */
void ls_view_instruction_name(const ls_view *v, int64_t rec, char *buf, size_t size);

#endif
