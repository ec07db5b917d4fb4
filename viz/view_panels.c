/* view_panels.c: the panels of `lanescope view` that are pictures `lanescope
 * draw` already makes -- the tile (ls_viz_layout), shared memory
 * (ls_viz_banks_plan), the timeline (ls_viz_timeline), the traffic
 * (ls_viz_traffic) -- built by those same builders from the stepper's
 * records up to the cursor, then annotated (values, highlights, cursor);
 * the whole-GPU panel as a figure of WGP cells; and what the mouse is over.
 * Drawing stays in figure.c / charts.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "view_internal.h"

/* snprintf into a fixed label: cutting it short is the intent. */
__attribute__((format(printf, 3, 4))) static void fmt(char *dst, size_t size, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(dst, size, f, ap);
    va_end(ap);
}

void ls_view_value_text(const ls_view *v, ls_value x, char *buf, size_t size)
{
    ls_elem_type t = v->p->acc_type;
    if (ls_elem_type_is_float(t))
        fmt(buf, size, "%.4g", ls_value_to_double(x, t));
    else
        fmt(buf, size, "%lld", (long long)ls_value_to_int(x, t));
}

static void note_set(ls_figure *f, int i, const char *text)
{
    if (i < LS_FIGURE_MAX_NOTES) {
        fmt(f->notes[i], sizeof f->notes[0], "%s", text);
        if (f->n_notes <= i)
            f->n_notes = i + 1;
    }
}

/* ------------------------------------------------------------ tile */

int64_t ls_view_tile_iteration(const ls_view *v)
{
    const ls_engine_record *r = ls_stepper_record(v->st, ls_view_latest(v, v->subgroup));
    int64_t last = v->d->total_iterations - 1;
    if (r == NULL)
        return 0;
    if (r->stage != LS_STAGE_LOAD_ACCUMULATE && !v->d->serial_reduce)
        return last;
    return r->iteration < last ? r->iteration : last;
}

/* Per subgroup: loads issued for iteration `it` up to the position, and
 * whether it is past that iteration's loads altogether. */
static void loads_issued(const ls_view *v, int64_t it, int64_t *n, bool *past)
{
    int ns = (int)v->d->num_subgroups;
    for (int s = 0; s < ns; s++) {
        n[s] = 0;
        past[s] = false;
    }
    for (int64_t i = 0; i <= ls_stepper_position(v->st); i++) {
        const ls_engine_record *r = ls_stepper_record(v->st, i);
        if (r->kind != LS_REC_ISSUE || r->subgroup < 0 || r->subgroup >= ns)
            continue;
        if (r->stage == LS_STAGE_LOAD_ACCUMULATE && r->iteration == it)
            n[r->subgroup] += r->op == 0;
        else if (r->iteration > it || r->stage != LS_STAGE_LOAD_ACCUMULATE)
            past[r->subgroup] = true;
    }
}

/* The load (counted over every input, in issue order) that brings register
 * reg into a thread: the last input's load of it, after all earlier inputs'. */
static int64_t load_index_of(const ls_view *v, int64_t reg)
{
    const ls_plan *pl = v->plan;
    int64_t before = 0;
    int last = 0;
    for (int k = 0; k < pl->n_inputs; k++)
        if (pl->inputs[k].loads > 0)
            last = k;
    for (int k = 0; k < last; k++)
        before += pl->inputs[k].loads;
    ls_operand_regs o;
    ls_operand_regs_of(v->d, v->p, last, &o);
    return before + ls_operand_load_of(v->d, &o, reg);
}

/* The element of cell (r, c) of the tile (its first element when cells
 * aggregate); false outside the problem. */
bool ls_view_tile_element(const ls_view *v, const ls_view_tile *t, int r, int c, int64_t *x)
{
    for (int i = 0; i < v->p->rank; i++)
        x[i] = t->origin[i];
    if (!t->one_row)
        x[t->dr] = t->origin[t->dr] + r * t->kr;
    x[t->dc] = t->origin[t->dc] + c * t->kc;
    for (int i = 0; i < v->p->rank; i++)
        if (x[i] >= v->p->size[i])
            return false;
    return true;
}

int64_t ls_view_cell_values(const ls_view *v, const ls_view_tile *t, int r, int c, ls_value *out,
                            int64_t max)
{
    int64_t x[LS_MAX_RANK], n = 0;
    if (v->att || !ls_view_tile_element(v, t, r, c, x)) /* an attention's: the lanes panel */
        return 0;
    int64_t r0 = x[t->dr], c0 = x[t->dc];
    /* the cell ends at its own span, the tile's edge or the problem's */
    int64_t r_end = t->one_row ? r0 + 1 : r0 + t->kr, c_end = c0 + t->kc;
    int64_t r_tile = t->origin[t->dr] + t->ext[t->dr], c_tile = t->origin[t->dc] + t->ext[t->dc];
    if (!t->one_row && r_end > r_tile)
        r_end = r_tile;
    if (c_end > c_tile)
        c_end = c_tile;
    if (r_end > v->p->size[t->dr])
        r_end = v->p->size[t->dr];
    if (c_end > v->p->size[t->dc])
        c_end = v->p->size[t->dc];
    for (int64_t i = r0; i < r_end; i++)
        for (int64_t j = c0; j < c_end; j++, n++)
            if (n < max) {
                x[t->dr] = i;
                x[t->dc] = j;
                out[n] = ls_problem_element(v->p, v->in, x);
            }
    return n;
}

static int axis_dim(const char *axis)
{
    int d = -1;
    return sscanf(axis, "d%d", &d) == 1 ? d : -1;
}

/* The tile geometry of the figure ls_viz_layout built: its dims are read
 * back from the axis names it wrote, so the view never chooses differently
 * from `lanescope draw layout`. */
static void tile_geometry(const ls_view *v, const ls_figure *fig, ls_view_tile *t)
{
    const ls_problem *p = v->p;
    const ls_derived *d = v->d;
    const ls_grid *g = &fig->panels[0];
    t->dc = axis_dim(g->col_axis);
    t->dr = axis_dim(g->row_axis);
    t->one_row = t->dr < 0;
    for (int i = 0; i < LS_MAX_RANK; i++) {
        /* the tile's extent as grids.c draws it: a workgroup tile along
         * parallel dims, one partial-reduction chunk along reduced ones */
        int64_t e = i < p->rank ? (p->is_reduction[i] ? d->chunk[i] : d->wg_tile[i]) : 1;
        t->ext[i] = e > 0 ? e : 1;
    }
    if (t->one_row)
        t->dr = t->dc == 0 ? 1 : 0;
    int64_t wgc[LS_MAX_RANK], itc[LS_MAX_RANK];
    ls_workgroup_coord(d, v->workgroup, wgc);
    ls_iteration_coord(d, p, t->iteration, itc);
    ls_tile_origin(d, p, wgc, itc, t->origin);
    if (t->one_row)
        t->origin[t->dr] = 0;
    t->kr = (t->ext[t->dr] + LS_VIZ_MAX_AXIS_CELLS - 1) / LS_VIZ_MAX_AXIS_CELLS;
    t->kc = (t->ext[t->dc] + LS_VIZ_MAX_AXIS_CELLS - 1) / LS_VIZ_MAX_AXIS_CELLS;
}

/* The load the record at the position is, when it loads this tile:
 * (subgroup, load index); false otherwise. */
static bool current_load(const ls_view *v, int64_t it, int *sg, int64_t *li)
{
    int64_t pos = ls_stepper_position(v->st);
    const ls_engine_record *r = ls_stepper_record(v->st, pos);
    if (r == NULL || r->kind != LS_REC_ISSUE || r->op != 0 || r->iteration != it)
        return false;
    *sg = r->subgroup;
    *li = -1;
    for (int64_t i = pos; i >= 0; i--) {
        const ls_engine_record *q = ls_stepper_record(v->st, i);
        if (q->subgroup == r->subgroup && q->kind == LS_REC_ISSUE && q->op == 0 &&
            q->iteration == it && q->stage == LS_STAGE_LOAD_ACCUMULATE)
            (*li)++;
    }
    return true;
}

void ls_view_layout_view(const ls_view *v, int64_t it, ls_layout_view *lv)
{
    memset(lv, 0, sizeof *lv);
    lv->dim_row = lv->dim_col = -1;
    if (v->att) /* a K2 step's keys, as draw layout draws an attention */
        ls_viz_attention_dims(v->att->a, false, &lv->dim_row, &lv->dim_col);
    lv->workgroup = v->workgroup;
    lv->iteration = it;
    lv->thread = -1;
}

ls_status ls_view_tile_build(const ls_view *v, ls_figure *fig, ls_view_tile *t, ls_diag *diag)
{
    memset(t, 0, sizeof *t);
    t->iteration = ls_view_tile_iteration(v);
    t->operand = v->operand;
    ls_layout_view lv;
    ls_view_layout_view(v, t->iteration, &lv);
    if (v->operand >= 0) {
        /* input k's elements and who loads them, as draw layout --operand
         * draws them for this workgroup and iteration */
        if (ls_viz_operand_layout(v->plan, v->operand, &lv, fig, diag))
            return diag->status;
        note_set(fig, fig->n_notes < LS_FIGURE_MAX_NOTES ? fig->n_notes : LS_FIGURE_MAX_NOTES - 1,
                 "i: the next input, then the iteration space again; hovering names an "
                 "element's readers.");
        return LS_OK;
    }
    if (ls_viz_layout(v->p, v->d, &lv, fig, diag))
        return diag->status;
    tile_geometry(v, fig, t);
    int ns = (int)v->d->num_subgroups;
    int64_t *n = ls_xcalloc((size_t)ns, sizeof *n);
    bool *past = ls_xcalloc((size_t)ns, sizeof *past);
    loads_issued(v, t->iteration, n, past);
    int cur_sg = -1;
    int64_t cur_li = -1;
    bool loading = current_load(v, t->iteration, &cur_sg, &cur_li);
    ls_grid *g = &fig->panels[0];
    for (int r = 0; r < g->rows; r++)
        for (int c = 0; c < g->cols; c++) {
            ls_cell *cell = &g->cells[r * g->cols + c];
            int64_t x[LS_MAX_RANK];
            ls_ownership own;
            ls_diag od;
            ls_diag_clear(&od);
            if ((cell->flags & LS_CELL_EMPTY) || !ls_view_tile_element(v, t, r, c, x) ||
                ls_owner_of(v->d, v->p, x, &own, &od) || own.n_listed == 0)
                continue;
            int64_t sg = own.owners[0].subgroup, li = load_index_of(v, own.reg);
            bool loaded = !v->att && sg < ns && (past[sg] || li < n[sg]);
            bool touched = loading && sg == cur_sg && li == cur_li;
            if (loaded) {
                /* an aggregated cell: its first value and how many more */
                ls_value first;
                int64_t more = ls_view_cell_values(v, t, r, c, &first, 1) - 1;
                char val[LS_CELL_LABEL];
                ls_view_value_text(v, first, val, sizeof val);
                if (more > 0)
                    fmt(cell->label[1], sizeof cell->label[1], "%s +%lld", val, (long long)more);
                else
                    fmt(cell->label[1], sizeof cell->label[1], "%s", val);
            }
            cell->flags |= touched ? LS_CELL_HIGHLIGHT : loading ? LS_CELL_DIM : 0;
        }
    free(n);
    free(past);
    char note[200];
    if (v->att)
        fmt(note, sizeof note,
            "Each cell: the thread holding this key of the K2 step (S# V#: subgroup, register); "
            "what each lane carries: the lanes panel (2).%s",
            loading ? "  Outlined: the current load's." : "");
    else
        fmt(note, sizeof note,
            "Second line: the element's value once its owner's load has issued (a cell of "
            "several elements: the first one's, +N more; hover lists them), else S# V#: "
            "subgroup and register.%s",
            loading ? "  Outlined: the cells the current load brings in." : "");
    note_set(fig, fig->n_notes < LS_FIGURE_MAX_NOTES ? fig->n_notes : LS_FIGURE_MAX_NOTES - 1,
             note);
    return LS_OK;
}

/* ------------------------------------------------------------ shared memory */

/* Per subgroup: 0 running, 1 waiting at a barrier, 2 released by the last
 * barrier (and running on). */
static void barrier_state(const ls_view *v, int *state)
{
    int ns = (int)v->d->num_subgroups;
    for (int s = 0; s < ns; s++)
        state[s] = 0;
    for (int64_t i = 0; i <= ls_stepper_position(v->st); i++) {
        const ls_engine_record *r = ls_stepper_record(v->st, i);
        if (r->kind == LS_REC_BARRIER) {
            for (int s = 0; s < ns; s++)
                if (state[s] == 1)
                    state[s] = 2;
        } else if (r->kind == LS_REC_ISSUE && r->op == 4 && r->subgroup >= 0 &&
                   r->subgroup < ns) {
            state[r->subgroup] = 1;
        }
    }
}

static void smem_buffer_panel(const ls_view *v, ls_figure *fig, const ls_func_snapshot *snap)
{
    const ls_plan *pl = v->plan;
    int64_t cols = pl->buffer_shape[pl->buffer_rank - 1]; /* the padding included */
    if (cols < 1)
        cols = 1;
    int64_t n = pl->acc_elem_bytes > 0 ? pl->buffer_bytes / pl->acc_elem_bytes : 0;
    int64_t rows = (n + cols - 1) / cols;
    int rs = (int)(rows < 64 ? rows : 64), cs = (int)(cols < 64 ? cols : 64);
    ls_grid *g = ls_figure_add_panel(fig, rs > 0 ? rs : 1, cs);
    if (g == NULL)
        return;
    fmt(g->caption, sizeof g->caption, "the buffer in subgroup %d's view: element, bank, value",
        v->subgroup);
    fmt(g->row_axis, sizeof g->row_axis, "row");
    fmt(g->col_axis, sizeof g->col_axis, "element in the row (last %lld: padding)",
        (long long)pl->buffer_pad);
    int64_t banks = v->hw->smem_banks > 0 ? v->hw->smem_banks : 32;
    int64_t bank_bytes = v->hw->smem_bank_bytes > 0 ? v->hw->smem_bank_bytes : 4;
    for (int r = 0; r < g->rows; r++)
        fmt(g->row_head[r], LS_GRID_HEADER, "%d", r);
    for (int c = 0; c < g->cols; c++)
        fmt(g->col_head[c], LS_GRID_HEADER, "%d", c);
    for (int r = 0; r < g->rows; r++)
        for (int c = 0; c < g->cols; c++) {
            int64_t i = r * cols + c, bank = (i * pl->acc_elem_bytes / bank_bytes) % banks;
            ls_cell *cell = &g->cells[r * g->cols + c];
            cell->fill = ls_viz_thread_colour(bank % 8, bank / 8 * 4);
            cell->block = (int32_t)(r * g->cols + c);
            fmt(cell->label[0], LS_CELL_LABEL, "B%lld", (long long)bank);
            if (c >= cols - pl->buffer_pad)
                fmt(cell->label[1], LS_CELL_LABEL, "pad");
            else if (snap->smem && i < snap->smem_n)
                ls_view_value_text(v, snap->smem[i], cell->label[1], LS_CELL_LABEL);
            else
                fmt(cell->label[1], LS_CELL_LABEL, "-");
        }
}

void ls_view_barrier_panel(const ls_view *v, ls_figure *fig)
{
    int ns = (int)v->d->num_subgroups;
    int *state = ls_xcalloc((size_t)ns, sizeof *state);
    barrier_state(v, state);
    ls_grid *g = ls_figure_add_panel(fig, 1, ns);
    if (g) {
        int waiting = 0;
        for (int s = 0; s < ns; s++)
            waiting += state[s] == 1;
        fmt(g->caption, sizeof g->caption, "barrier: %d of %d subgroups arrived and waiting",
            waiting, ns);
        fmt(g->col_axis, sizeof g->col_axis, "subgroup");
        for (int s = 0; s < ns; s++) {
            static const char *names[] = {"running", "waiting", "released"};
            static const uint32_t fills[] = {0xDDDDDD, 0xEE8866, 0x44BB99};
            ls_cell *cell = &g->cells[s];
            fmt(g->col_head[s], LS_GRID_HEADER, "S%d", s);
            fmt(cell->label[0], LS_CELL_LABEL, "S%d", s);
            fmt(cell->label[1], LS_CELL_LABEL, "%s", names[state[s]]);
            cell->fill = ls_rgb_hex(fills[state[s]]);
            cell->block = s;
            if (s == v->subgroup)
                cell->flags |= LS_CELL_HIGHLIGHT;
        }
        g->cell_w = 70;
    }
    free(state);
}

/* The most cycles one of input k's buffer accesses (its copy stores and
 * compute reads, as the backend splits them) keeps v's banks busy
 * (ls_promote_access_banks, as the engine times them). */
static int64_t promote_worst_cycles(const ls_view *v, int k)
{
    const ls_plan *pl = v->plan;
    int64_t most = 1;
    for (int64_t a = 0; a < pl->promote[k].copy_loads + pl->inputs[k].loads; a++) {
        int64_t cycles, worst;
        ls_promote_access_banks(pl, v->hw, k, a, &cycles, &worst);
        most = cycles > most ? cycles : most;
    }
    return most;
}

/* Notes from index *n on: each promoted input's buffer, its copy and what
 * its accesses compile to. */
static void promote_notes(const ls_view *v, ls_figure *fig, int *n)
{
    const ls_plan *pl = v->plan;
    for (int k = 0; k < pl->n_inputs && *n + 1 < LS_FIGURE_MAX_NOTES; k++) {
        const ls_promote *pr = &pl->promote[k];
        if (!pr->on)
            continue;
        char ty[160], line[400];
        ls_plan_promote_type(pl, k, ty, sizeof ty);
        fmt(line, sizeof line,
            "%%prom%d: input %d %s promoted, %s (%lld bytes): each iteration every thread "
            "copies %lld x %lld elements into it between two barriers.",
            k, k, v->p->inputs[k].name, ty, (long long)pr->bytes, (long long)pr->copy_loads,
            (long long)pr->copy_width);
        note_set(fig, (*n)++, line);
        int64_t sb, rb;
        int64_t ns = ls_plan_promote_pieces_most(pl, k, false, &sb);
        int64_t nr = ls_plan_promote_pieces_most(pl, k, true, &rb);
        fmt(line, sizeof line,
            "  a copy store is %lld access%s of %lld bytes, a compute read %lld of %lld (as the "
            "backend compiles them); the banks busy up to %lld cycles an access.",
            (long long)ns, ns == 1 ? "" : "es", (long long)sb, (long long)nr, (long long)rb,
            (long long)promote_worst_cycles(v, k));
        note_set(fig, (*n)++, line);
    }
}

static ls_status smem_build(const ls_view *v, ls_figure *fig, ls_diag *diag)
{
    if (v->att)
        return ls_view_attention_smem(v, fig, diag);
    const ls_plan *pl = v->plan;
    if (!pl->cross_subgroup) {
        memset(fig, 0, sizeof *fig);
        if (pl->n_promoted == 0) {
            fmt(fig->title, sizeof fig->title, "no shared memory in %s", v->p->name);
            note_set(fig, 0,
                     "No reduced dim is split across subgroups, so every subgroup finishes its "
                     "outputs alone: no buffer, no barrier.");
            return LS_OK;
        }
        /* promote_operands: the buffers of the copies, and their barriers */
        fmt(fig->title, sizeof fig->title, "workgroup memory of %s", v->p->name);
        int n = 0;
        promote_notes(v, fig, &n);
        note_set(fig, n,
                 "No reduced dim is split across subgroups: no buffer for the "
                 "reduction's partials.");
        ls_view_barrier_panel(v, fig);
        return LS_OK;
    }
    if (ls_viz_banks_plan(pl, v->hw, fig, diag))
        return diag->status;
    if (pl->n_promoted > 0) {
        int n = fig->n_notes;
        promote_notes(v, fig, &n);
    }
    fig->stacked = true;
    ls_view_step s;
    int64_t rec = ls_view_latest(v, v->subgroup);
    ls_view_step_of(v, rec, &s);
    const ls_engine_record *r = ls_stepper_record(v->st, rec);
    ls_grid *g = &fig->panels[0];
    if (s.smem_slot >= 0 && r) {
        int row = (int)(2 * s.smem_slot + (r->op == 6));
        for (int i = 0; i < g->rows * g->cols && row < g->rows; i++)
            g->cells[i].flags |= i / g->cols == row ? LS_CELL_HIGHLIGHT : LS_CELL_DIM;
    }
    ls_func_snapshot snap;
    memset(&snap, 0, sizeof snap);
    if (ls_stepper_snapshot(v->st, v->subgroup, &snap, diag))
        return diag->status;
    smem_buffer_panel(v, fig, &snap);
    ls_func_snapshot_free(&snap);
    ls_view_barrier_panel(v, fig);
    return LS_OK;
}

/* ------------------------------------------------------------ timeline */

static ls_status timeline_build(const ls_view *v, ls_chart *chart, ls_diag *diag)
{
    const ls_stepper *st = v->st;
    int64_t n = ls_stepper_length(st), ns = v->d->num_subgroups;
    int64_t t0 = n ? ls_stepper_record(st, 0)->cycle : 0, t_end = 1;
    ls_trace tr = {NULL, 0, 0, false, 0};
    size_t cap = 64;
    tr.slices = ls_xcalloc(cap, sizeof *tr.slices);
    /* one slice per run of a subgroup's records in the same stage */
    int64_t *open = ls_xcalloc((size_t)ns, sizeof *open); /* slice index + 1, 0: none */
    for (int64_t i = 0; i < n; i++) {
        const ls_engine_record *r = ls_stepper_record(st, i);
        int64_t end = (r->ready > r->cycle ? r->ready : r->cycle) - t0;
        if (end > t_end)
            t_end = end;
        if (r->kind != LS_REC_ISSUE || r->subgroup < 0 || r->subgroup >= ns)
            continue;
        int64_t o = open[r->subgroup];
        if (o && tr.slices[o - 1].stage == (int32_t)r->stage) {
            if (end > tr.slices[o - 1].end)
                tr.slices[o - 1].end = end;
            continue;
        }
        if (tr.n + (size_t)ns + 1 >= cap) {
            cap *= 2;
            tr.slices = ls_xrealloc(tr.slices, cap * sizeof *tr.slices);
        }
        tr.slices[tr.n] = (ls_trace_slice){0, r->subgroup, v->workgroup, r->subgroup,
                                           (int32_t)r->stage, r->cycle - t0, end};
        open[r->subgroup] = (int64_t)++tr.n;
    }
    free(open);
    const ls_engine_record *cur = ls_stepper_record(st, ls_stepper_position(st));
    int64_t c = cur ? cur->cycle - t0 : 0;
    ls_sim_result r;
    memset(&r, 0, sizeof r);
    r.cycles = t_end;
    r.workgroups = 1;
    ls_status s = ls_viz_timeline(v->p, v->hw, &r, &tr, 1, chart, diag);
    free(tr.slices);
    if (s)
        return s;
    chart->cursor = (double)c;
    for (int i = 0; i < chart->n_rows; i++)
        fmt(chart->row_name[i], sizeof chart->row_name[0], "S%d%s", i,
            i == v->subgroup ? " (selected)" : "");
    fmt(chart->title, sizeof chart->title, "timeline of workgroup %lld of %s on %s",
        (long long)v->workgroup, v->p->name, v->hw->name);
    fmt(chart->subtitle, sizeof chart->subtitle,
        "cycles from the workgroup's first issue (cycle %lld); the red line is the cursor, "
        "cycle %lld",
        (long long)t0, (long long)(c + t0));
    chart->n_notes = 0;
    fmt(chart->notes[chart->n_notes++], sizeof chart->notes[0],
        "A row is a subgroup of the workgroup; a bar is one stage, from its first issue to its "
        "last result.");
    return LS_OK;
}

/* ------------------------------------------------------------ traffic */

/* Per-stage work of this workgroup from its first record to the cursor,
 * summed from what the engine's records say each issue cost (bytes,
 * sectors, cache hits, workgroup-memory cycles, barrier waits): the same
 * figures `sim` totals for the whole run. */
static void traffic_so_far(const ls_view *v, ls_sim_result *res)
{
    int64_t pos = ls_stepper_position(v->st), ns = v->d->num_subgroups;
    int64_t first[LS_STAGE_COUNT], last[LS_STAGE_COUNT];
    for (int k = 0; k < LS_STAGE_COUNT; k++)
        first[k] = last[k] = -1;
    int64_t *wait_from = ls_xcalloc((size_t)ns, sizeof *wait_from);
    int *wait_stage = ls_xcalloc((size_t)ns, sizeof *wait_stage);
    for (int64_t s = 0; s < ns; s++)
        wait_from[s] = -1;
    int64_t t0 = -1, now = 0;
    for (int64_t i = 0; i <= pos; i++) {
        const ls_engine_record *r = ls_stepper_record(v->st, i);
        ls_stage_stats *s = &res->stage[r->stage];
        now = r->cycle;
        if (t0 < 0)
            t0 = r->cycle;
        if (r->kind == LS_REC_BARRIER) { /* one per workgroup release, as sim counts */
            s->barriers++;
            s->barrier_wait_cycles += r->barrier_wait;
            for (int64_t g = 0; g < ns; g++)
                wait_from[g] = -1;
            continue;
        }
        if (r->kind != LS_REC_ISSUE || r->subgroup < 0 || r->subgroup >= ns)
            continue;
        int64_t sg = r->subgroup, end = r->ready > r->cycle ? r->ready : r->cycle;
        if (first[r->stage] < 0 || r->cycle < first[r->stage])
            first[r->stage] = r->cycle;
        if (end > last[r->stage])
            last[r->stage] = end;
        s->instructions++;
        s->global_bytes += r->bytes;
        s->sectors += r->sectors;
        s->sector_hits += r->sector_hits;
        s->l1_hits += r->l1_hits;
        s->mall_hits += r->mall_hits;
        ls_operand_traffic_add(res->operand, r);
        switch (r->op) {
        case 2: s->shuffles++; break;
        case 3: s->dpp_steps++; break;
        case 4:
            wait_from[sg] = r->cycle;
            wait_stage[sg] = (int)r->stage;
            break;
        case 5:
        case 6:
            s->smem_accesses++;
            s->smem_cycles += r->smem_cycles;
            if (r->smem_cycles > s->smem_max_degree)
                s->smem_max_degree = r->smem_cycles;
            break;
        default: break;
        }
    }
    /* subgroups still waiting at the cursor: their wait so far */
    for (int64_t g = 0; g < ns; g++)
        if (wait_from[g] >= 0)
            res->stage[wait_stage[g]].barrier_wait_cycles += now - wait_from[g];
    for (int k = 0; k < LS_STAGE_COUNT; k++)
        res->stage[k].critical_cycles = first[k] >= 0 ? last[k] - first[k] : 0;
    res->cycles = t0 >= 0 ? now - t0 : 0;
    res->workgroups = 1;
    res->n_operands = v->plan->n_inputs;
    for (int k = 0; k < LS_STAGE_COUNT; k++)
        res->dram_bytes += res->stage[k].global_bytes;
    free(wait_from);
    free(wait_stage);
}

static ls_status traffic_build(const ls_view *v, ls_chart *chart)
{
    ls_sim_result r;
    memset(&r, 0, sizeof r);
    traffic_so_far(v, &r);
    ls_viz_traffic(v->p, v->hw, &r, chart);
    fmt(chart->title, sizeof chart->title, "traffic of workgroup %lld of %s up to the cursor",
        (long long)v->workgroup, v->p->name);
    fmt(chart->subtitle, sizeof chart->subtitle,
        "position %lld of %lld, %lld cycles since its first issue, on %s",
        (long long)ls_stepper_position(v->st) + 1, (long long)ls_stepper_length(v->st),
        (long long)r.cycles, v->hw->name);
    chart->n_notes = 0;
    fmt(chart->notes[chart->n_notes++], sizeof chart->notes[0],
        "One workgroup, so far: what the engine charged each of its issues (bytes asked for, "
        "L2 sectors and hits, bank-conflict cycles, barrier waits); lanescope sim totals the "
        "same figures for the whole run.");
    return LS_OK;
}

/* ------------------------------------------------------------ whole GPU */

void ls_view_gpu_prepare(ls_view *v)
{
    if (v->gpu_ready)
        return;
    v->gpu_ready = true;
    ls_diag diag;
    ls_diag_clear(&diag);
    int64_t n = v->d->total_workgroups;
    if (n > (INT64_C(1) << 22)) {
        v->gpu_status = ls_diag_set(&diag, LS_ERR_LIMIT, "", 0, 0,
                                    "%lld workgroups: the whole-GPU panel shows at most %lld",
                                    (long long)n, (long long)(INT64_C(1) << 22));
        ls_diag_format(&diag, v->gpu_msg, sizeof v->gpu_msg);
        return;
    }
    ls_trace tr = {NULL, 0, 0, false, 0};
    ls_engine_opts eo = {.trace = &tr};
    v->gpu_status = ls_engine_run(v->plan, v->hw, &v->gpu_res, &eo, &diag);
    if (v->gpu_status) {
        ls_diag_format(&diag, v->gpu_msg, sizeof v->gpu_msg);
        free(tr.slices);
        return;
    }
    v->wg_wgp = ls_xcalloc((size_t)n, sizeof *v->wg_wgp);
    v->wg_start = ls_xcalloc((size_t)n, sizeof *v->wg_start);
    v->wg_end = ls_xcalloc((size_t)n, sizeof *v->wg_end);
    for (int64_t i = 0; i < n; i++)
        v->wg_start[i] = -1;
    for (size_t i = 0; i < tr.n; i++) {
        const ls_trace_slice *s = &tr.slices[i];
        if (s->workgroup < 0 || s->workgroup >= n)
            continue;
        int64_t w = s->workgroup;
        if (v->wg_start[w] < 0 || s->start < v->wg_start[w])
            v->wg_start[w] = s->start;
        if (s->end > v->wg_end[w])
            v->wg_end[w] = s->end;
        v->wg_wgp[w] = s->wgp;
    }
    v->gpu_truncated = tr.truncated;
    free(tr.slices);
}

static ls_status gpu_build(const ls_view *v, ls_figure *fig, ls_diag *diag)
{
    memset(fig, 0, sizeof *fig);
    if (!v->gpu_ready)
        return ls_diag_set(diag, LS_ERR_INVALID, "", 0, 0, "the whole-GPU run has not been made");
    if (v->gpu_status)
        return ls_diag_set(diag, v->gpu_status, "", 0, 0, "%s", v->gpu_msg);
    int64_t wgps = v->hw->wgp_count > 0 ? v->hw->wgp_count : 1, n = v->d->total_workgroups;
    const ls_engine_record *cur = ls_stepper_record(v->st, ls_stepper_position(v->st));
    int64_t cycle = cur ? cur->cycle : (v->wg_start[v->workgroup] > 0 ? v->wg_start[v->workgroup] : 0);
    int64_t *count = ls_xcalloc((size_t)wgps, sizeof *count), resident = 0, done = 0;
    for (int64_t w = 0; w < n; w++) {
        if (v->wg_start[w] < 0)
            continue;
        if (v->wg_start[w] <= cycle && cycle < v->wg_end[w] && v->wg_wgp[w] < wgps) {
            count[v->wg_wgp[w]]++;
            resident++;
        }
        done += v->wg_end[w] <= cycle;
    }
    int cols = wgps > 32 ? 32 : (int)wgps, rows = (int)((wgps + cols - 1) / cols);
    ls_grid *g = ls_figure_add_panel(fig, rows, cols);
    fmt(g->caption, sizeof g->caption, "workgroups resident per WGP (occupancy limit %lld: %s)",
        (long long)v->gpu_res.occupancy, v->gpu_res.occupancy_limit);
    fmt(g->row_axis, sizeof g->row_axis, "WGP");
    fmt(g->col_axis, sizeof g->col_axis, "WGP = row + column");
    for (int r = 0; r < rows; r++)
        fmt(g->row_head[r], LS_GRID_HEADER, "%d", r * cols);
    for (int c = 0; c < cols; c++)
        fmt(g->col_head[c], LS_GRID_HEADER, "%d", c);
    double occ = v->gpu_res.occupancy > 0 ? (double)v->gpu_res.occupancy : 1;
    int64_t mine = v->wg_start[v->workgroup] >= 0 ? v->wg_wgp[v->workgroup] : -1;
    for (int64_t w = 0; w < (int64_t)rows * cols; w++) {
        ls_cell *cell = &g->cells[w];
        cell->block = (int32_t)w;
        if (w >= wgps) {
            cell->flags = LS_CELL_EMPTY;
            continue;
        }
        double f = fmin(1, (double)count[w] / occ);
        cell->fill = (ls_rgb){1 - 0.75 * f, 1 - 0.55 * f, 1 - 0.25 * f};
        if (count[w] > 0)
            fmt(cell->label[0], LS_CELL_LABEL, "%lld", (long long)count[w]);
        if (w == mine) {
            cell->flags |= LS_CELL_HIGHLIGHT;
            fmt(cell->label[1], LS_CELL_LABEL, "wg %lld", (long long)v->workgroup);
        }
    }
    free(count);
    fmt(fig->title, sizeof fig->title, "the whole GPU at cycle %lld: %lld workgroup%s resident",
        (long long)cycle, (long long)resident, resident == 1 ? "" : "s");
    fmt(fig->subtitle, sizeof fig->subtitle,
        "%s, %lld WGPs; %lld workgroup%s in %lld wave%s, %lld finished by this cycle, %lld "
        "cycles in all",
        v->hw->name, (long long)wgps, (long long)n, n == 1 ? "" : "s", (long long)v->gpu_res.waves,
        v->gpu_res.waves == 1 ? "" : "s", (long long)done, (long long)v->gpu_res.cycles);
    char note[200];
    fmt(note, sizeof note,
        "A cell is a WGP: how many workgroups it holds at the cursor's cycle (darker: nearer the "
        "limit of %lld).  Outlined: the WGP running workgroup %lld.",
        (long long)v->gpu_res.occupancy, (long long)v->workgroup);
    note_set(fig, 0, note);
    if (v->gpu_truncated)
        note_set(fig, 1, "The trace was cut at its slice limit: later workgroups are missing.");
    return LS_OK;
}

ls_status ls_view_panel_build(const ls_view *v, ls_view_panel panel, ls_figure *fig,
                              ls_chart *chart, ls_diag *diag)
{
    memset(fig, 0, sizeof *fig);
    memset(chart, 0, sizeof *chart);
    ls_view_tile t;
    switch (panel) {
    case LS_VIEW_TILE: return ls_view_tile_build(v, fig, &t, diag);
    case LS_VIEW_SMEM: return smem_build(v, fig, diag);
    case LS_VIEW_TIMELINE: return timeline_build(v, chart, diag);
    case LS_VIEW_TRAFFIC: return traffic_build(v, chart);
    case LS_VIEW_GPU: return gpu_build(v, fig, diag);
    default:
        return ls_diag_set(diag, LS_ERR_INVALID, "", 0, 0, "panel %d is not a figure or chart",
                           (int)panel);
    }
}
