/* cli_draw.c: `lanescope draw KIND INPUT -o FILE` -- build one picture from
 * an input (a reduction, a nested layout, a swizzle, or a CSV of timings)
 * and export it as PNG, SVG or PDF. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/viz.h"
#include "cli.h"
#include "cli_sim.h"
#include "lanescope/bottleneck.h"
#include "lanescope/engine.h"
#include "lanescope/fused.h"

#define CMD "draw"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lanescope draw KIND INPUT -o FILE.png|.svg|.pdf [options]\n"
            "       lanescope draw KIND --shape AxB.. --iter pr.. -o FILE [options]\n"
            "\n"
            "INPUT is an .mlir file (a CSV for compare); - reads standard input.\n"
            "\n"
            "KIND:\n"
            "  layout    who owns each element of a workgroup tile (a reduction's config;\n"
            "            in a file without one, an attention's K2 step: both matmuls'\n"
            "            layouts at once, pages against tokens or keys against K1)\n"
            "  nested    an #iree_vector_ext.nested_layout over its vector (or the one a\n"
            "            reduction's config derives, or an attention's QK and PV layouts)\n"
            "  swizzle   an xor_shuffle / rotate_rows before and after, with banks\n"
            "  banks     lanes per shared-memory bank in each access: the cross-subgroup\n"
            "            buffer of a reduction, or a swizzle under a column access\n"
            "  traffic   per-stage bars from a simulation, with the DRAM roofline and the\n"
            "            bottleneck line (a reduction, or in a file without one an\n"
            "            attention's kernel; so does timeline)\n"
            "  roofline  every reduction of INPUT (or --index N's) simulated: achieved\n"
            "            Gop/s against ops per DRAM byte, under the model's DRAM and issue\n"
            "            roofs and each one's Little's-law ceiling\n"
            "  timeline  Gantt chart of the simulation per WGP and subgroup slot\n"
            "  compare   measured vs simulated scatter from a CSV\n"
            "            (name,measured_us,simulated_us)\n"
            "\n"
            "  -o FILE          output; the extension picks PNG, SVG or PDF (required;\n"
            "                   - writes standard output, with --format)\n"
            "  --format F       png, svg or pdf, when -o's extension does not say it\n"
            "  --scale S        PNG pixels per point, 0.25..8 (default 2)\n"
            "  --index N        which reduction / layout / swizzle of INPUT (default 0;\n"
            "                   roofline: every reduction unless given)\n"
            "  --target MODEL   hardware model: %s\n"
            "  --dims R,C       the two dims drawn as rows and columns (layout, nested)\n"
            "  --at D=V[,D=V]   coordinate within the tile of a dim not drawn (layout)\n"
            "  --dim N=SIZE     size of dynamic ('?') loop dim dN of the ops (repeatable)\n"
            "  --workgroup N    workgroup drawn (layout; default 0)\n"
            "  --iteration K    partial-reduction iteration drawn (layout; default 0)\n"
            "  --thread N       highlight thread N's elements (layout, nested)\n"
            "  --operand K      layout, nested: input K (0-based) of the reduction instead of\n"
            "                   the iteration space: who loads each of its elements, cells\n"
            "                   read by several threads striped with the count; --dims and\n"
            "                   --at then name operand dims.  An input held in registers (a\n"
            "                   reduction's result) is an error: nothing is loaded.  traffic\n"
            "                   draws every input's share of the loads in its own panel, so\n"
            "                   it takes no --operand\n"
            "  --rows N         rows of a swizzle table (default: one period)\n"
            "  --elem-bytes B   element size for swizzle banks (default 4)\n"
            "  --lanes N        lanes of a swizzle bank access (default 32)\n"
            "  --wgps N         WGPs shown in a timeline (default 4)\n"
            "  --quiet          traffic, timeline, roofline: no progress lines while the\n"
            "                   simulation\n"
            "                   runs (shown, as in sim, when it runs past a second)\n"
            "  --config ATTR    use this #iree_gpu.lowering_config<{...}> for every reduction\n"
            "  --shape AxBx..   describe the problem by flags instead of INPUT (layout, nested,\n"
            "                   banks, traffic, timeline) ...\n"
            "  --iter pr..      ... one letter per dim: p(arallel) or r(eduction)\n"
            "  --type T[:U]     ... element type T, reduced in U (default T)\n"
            "  --combiner K     ... add, mul, minsi, maxnumf, ... (default add)\n"
            "  -h, --help       this help\n",
            ls_hw_names());
}

typedef struct {
    const char *kind, *input, *output, *target, *format;
    const char *src; /* input, or "--shape" in messages */
    ls_cli_problem_flags pf; /* --shape ... (input is then NULL), --config */
    double scale;
    int64_t index, workgroup, iteration, thread, rows, elem_bytes, lanes, wgps;
    int64_t operand; /* input drawn by layout / nested; -1: the iteration space */
    bool quiet;      /* traffic, timeline, roofline: no progress lines */
    bool index_given; /* roofline: only --index's reduction, else every one */
    int dim_row, dim_col;
    int64_t at[LS_MAX_RANK];
    ls_import_dims dims; /* --dim */
} draw_opts;

static bool parse_dims(const char *s, int *r, int *c)
{
    char *end;
    long a = strtol(s, &end, 10);
    if (end == s || *end != ',')
        return false;
    const char *t = end + 1;
    long b = strtol(t, &end, 10);
    if (end == t || *end || a < 0 || b < 0 || a >= LS_MAX_RANK * 2 || b >= LS_MAX_RANK * 2)
        return false;
    *r = (int)a;
    *c = (int)b;
    return true;
}

static bool parse_at(const char *s, int64_t *at)
{
    const char *p = s;
    while (*p) {
        if (*p == 'd')
            p++;
        char *end;
        long d = strtol(p, &end, 10);
        if (end == p || *end != '=' || d < 0 || d >= LS_MAX_RANK)
            return false;
        p = end + 1;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0)
            return false;
        at[d] = v;
        p = end;
        if (*p == ',')
            p++;
        else if (*p)
            return false;
    }
    return true;
}

static bool known_kind(const char *k)
{
    static const char *kinds[] = {"layout",   "nested",  "swizzle", "banks",
                                  "traffic",  "timeline", "compare", "roofline"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(k, kinds[i]) == 0)
            return true;
    return false;
}

/* Model, derived layout and plan of reduction o->index of the loaded m. */
static ls_status prepare_reduction(const draw_opts *o, ls_module *m, ls_derived *d,
                                   ls_plan *plan, ls_hw *hw, ls_diag *diag)
{
    if (m->n_problems == 0)
        return ls_diag_set(diag, LS_ERR_NOTFOUND, o->src, 0, 0,
                           "no linalg.generic/linalg.reduce with a reduction to draw");
    if ((size_t)o->index >= m->n_problems)
        return ls_diag_set(diag, LS_ERR_USAGE, "--index", 0, 0,
                           "%s has %zu reduction%s; --index %lld is outside 0..%zu", o->src,
                           m->n_problems, ls_s((long long)m->n_problems), (long long)o->index, m->n_problems - 1);
    ls_problem *p = &m->problems[o->index];
    if (ls_cli_model(m, p, o->target, hw, diag) || ls_derive(p, d, diag) ||
        ls_plan_build(p, d, ls_plan_target_from_arch(hw->arch), plan, diag))
        return diag->status;
    return LS_OK;
}

/* The one kernel of the dispatch reduction o->index belongs to, when its
 * reductions and stored elementwise ops are loops of one (fused.h): what
 * the kernel's picture times, as `sim` does; NULL when there is none. */
typedef struct {
    ls_derived *d;
    ls_plan *plans;
    ls_fused_kernel *k;
} dispatch_kernel;

static const ls_plan *fused_run(const draw_opts *o, ls_module *m, const ls_hw *hw,
                                dispatch_kernel *f)
{
    const ls_problem *p = &m->problems[o->index];
    if (p->dispatch < 0)
        return NULL;
    size_t first = ls_fused_first(m, (size_t)o->index);
    f->d = ls_xcalloc(m->n_problems, sizeof *f->d);
    f->plans = ls_xcalloc(m->n_problems, sizeof *f->plans);
    f->k = ls_xcalloc(1, sizeof *f->k);
    ls_plan_target t = ls_plan_target_from_arch(hw->arch);
    for (size_t i = first; i < m->n_problems && m->problems[i].dispatch == p->dispatch; i++) {
        ls_diag local;
        ls_diag_clear(&local);
        ls_hw hw_i; /* the same model: configs as sim gives them */
        if (ls_cli_model(m, &m->problems[i], o->target, &hw_i, &local) ||
            ls_derive(&m->problems[i], &f->d[i], &local) ||
            ls_plan_build(&m->problems[i], &f->d[i], t, &f->plans[i], &local))
            return NULL; /* the reduction's own picture says what stops it */
    }
    char why[512];
    if (!ls_fused_build(m, first, f->plans, f->k, why, sizeof why))
        return NULL;
    /* titled by the function, whose dispatch it is */
    const char *name = m->problems[first].name, *colon = strchr(name, ':');
    int len = colon ? (int)(colon - name) : (int)strlen(name);
    snprintf(f->k->problem.name, sizeof f->k->problem.name, "%.*s: one kernel of %d loops",
             len > 80 ? 80 : len, name, ls_fused_loop_count(f->k));
    return &f->k->plan;
}

/* The input with its attention ops read (not refused as reductions). */
static ls_status load_all(const draw_opts *o, ls_module *m, ls_diag *diag)
{
    ls_cli_problem_flags pf = o->pf;
    pf.import_flags |= LS_IMPORT_ATTENTION;
    return ls_cli_problem_load(o->input, &pf, &o->dims, m, diag);
}

/* What traffic and timeline simulate (with f: a reduction's dispatch's one
 * kernel where it has one) or layout and nested draw (f NULL: the
 * reduction's own plan): reduction --index N of the input, or, in a file
 * with no reduction, its attention --index N (the engine's view of its
 * kernel, whose layout is both matmuls' at once: cli_sim_attention.c; *a
 * and *v then set, the caller's). */
static ls_status pick_kernel(const draw_opts *o, ls_module *m, ls_derived *d, ls_plan *plan,
                             ls_hw *hw, ls_attention **a, ls_att_view **v, dispatch_kernel *f,
                             const ls_plan **run, ls_diag *diag)
{
    *run = plan;
    if (m->n_problems > 0 || m->n_attentions == 0) {
        if (prepare_reduction(o, m, d, plan, hw, diag))
            return diag->status;
        const ls_plan *k = f ? fused_run(o, m, hw, f) : NULL;
        if (k)
            *run = k;
        return LS_OK;
    }
    if ((size_t)o->index >= m->n_attentions)
        return ls_diag_set(diag, LS_ERR_USAGE, "--index", 0, 0,
                           "%s has %zu attention op%s; --index %lld is outside 0..%zu", o->src,
                           m->n_attentions, ls_s((long long)m->n_attentions),
                           (long long)o->index, m->n_attentions - 1);
    if (ls_cli_attention_view(m, (size_t)o->index, o->target, hw, a, v, diag))
        return diag->status;
    *run = ls_att_view_plan(*v);
    return LS_OK;
}

static ls_status roofline(const draw_opts *o, ls_module *m, ls_hw *hw, ls_chart *chart,
                          ls_diag *diag)
{
    if (ls_cli_problem_load(o->input, &o->pf, &o->dims, m, diag))
        return diag->status;
    if (m->n_problems == 0)
        return ls_diag_set(diag, LS_ERR_NOTFOUND, o->src, 0, 0,
                           "no linalg.generic/linalg.reduce with a reduction to draw");
    size_t first = o->index_given ? (size_t)o->index : 0;
    size_t last = o->index_given ? first + 1 : m->n_problems;
    if (first >= m->n_problems)
        return ls_diag_set(diag, LS_ERR_USAGE, "--index", 0, 0,
                           "%s has %zu reduction%s; --index %lld is outside 0..%zu", o->src,
                           m->n_problems, ls_s((long long)m->n_problems), (long long)o->index,
                           m->n_problems - 1);
    ls_roof_point *pts = ls_xcalloc(last - first, sizeof *pts);
    ls_status st = LS_OK;
    size_t n = 0; /* points: one per reduction, or per dispatch's one kernel */
    for (size_t i = first; i < last && st == LS_OK; i++) {
        draw_opts one = *o;
        one.index = (int64_t)i;
        ls_derived d;
        ls_plan plan;
        if ((st = prepare_reduction(&one, m, &d, &plan, hw, diag)))
            break;
        /* a loop of its dispatch's one kernel: the kernel is the point, once */
        dispatch_kernel fk = {NULL, NULL, NULL};
        const ls_plan *run = fused_run(&one, m, hw, &fk);
        bool later = run && i > first && ls_fused_first(m, i) != i;
        if (!later) {
            ls_cli_progress ps;
            ls_cli_progress_init(&ps, CMD, "engine", "workgroups", o->quiet);
            ls_engine_opts eo = {.progress = ls_cli_progress_cb, .progress_ctx = &ps};
            ls_sim_result r;
            st = ls_engine_run(run ? run : &plan, hw, &r, &eo, diag);
            ls_cli_progress_end(&ps);
            if (!st)
                ls_viz_roof_point(run ? run->problem : &m->problems[i], run ? run : &plan, hw, &r,
                                  &pts[n++]);
        }
        free(fk.d);
        free(fk.plans);
        free(fk.k);
    }
    if (!st) {
        char title[256], sub[256];
        snprintf(title, sizeof title, "roofline of %s on %s", o->src, hw->name);
        snprintf(sub, sizeof sub,
                 "%zu kernel%s simulated; ops = iteration-space elements x (1 + fused body ops), "
                 "each loop's",
                 n, n == 1 ? "" : "s");
        ls_viz_roofline(title, sub, pts, n, hw->dram_gbps, ls_viz_issue_gops(hw), chart);
    }
    free(pts);
    return st;
}

/* draw nested: the file's own nested layouts; else a reduction's derived
 * layout, or an attention's (its two matmuls' together, over the op's
 * loops), or an operand's. */
static ls_status draw_nested(const draw_opts *o, ls_module *m, ls_derived *d, ls_plan *plan,
                             ls_hw *hw, ls_attention **att, ls_att_view **view, ls_figure *fig,
                             ls_diag *diag)
{
    const ls_plan *pl;
    ls_status st = load_all(o, m, diag);
    if (st)
        return st;
    if (o->operand < 0 && m->n_layouts > 0) {
        if ((size_t)o->index >= m->n_layouts)
            return ls_diag_set(diag, LS_ERR_USAGE, "--index", 0, 0, "%s has %zu nested layouts",
                               o->src, m->n_layouts);
        return ls_viz_nested(&m->layouts[o->index].layout, m->layouts[o->index].name, o->dim_row,
                             o->dim_col, o->thread, fig, diag);
    }
    if (m->n_problems == 0 && m->n_attentions == 0)
        return ls_diag_set(diag, LS_ERR_NOTFOUND, o->src, 0, 0,
                           "no #iree_vector_ext.nested_layout, reduction or attention to draw");
    if ((st = pick_kernel(o, m, d, plan, hw, att, view, NULL, &pl, diag)))
        return st;
    if (o->operand >= 0)
        return ls_viz_operand_nested(pl, (int)o->operand, o->dim_row, o->dim_col, o->thread, fig,
                                     diag);
    if (*att)
        return ls_viz_attention_nested(*att, o->dim_row, o->dim_col, o->thread, fig, diag);
    return ls_viz_nested(&pl->derived->layout, "derived", o->dim_row, o->dim_col, o->thread, fig,
                         diag);
}

/* draw swizzle / banks: the file's swizzle attributes, or (banks) its
 * reduction's cross-subgroup buffer. */
static ls_status draw_swizzle_banks(const draw_opts *o, ls_module *m, ls_derived *d, ls_plan *plan,
                                    ls_hw *hw, ls_figure *fig, ls_diag *diag)
{
    ls_status st = ls_cli_problem_load(o->input, &o->pf, &o->dims, m, diag);
    if (st)
        return st;
    bool banks = strcmp(o->kind, "banks") == 0;
    if (banks && m->n_problems > 0) {
        if (!(st = prepare_reduction(o, m, d, plan, hw, diag)))
            st = ls_viz_banks_plan(plan, hw, fig, diag);
        return st;
    }
    if (m->n_swizzles == 0)
        return ls_diag_set(diag, LS_ERR_NOTFOUND, o->src, 0, 0,
                           "no #iree_codegen.xor_shuffle / rotate_rows%s to draw",
                           banks ? " or reduction" : "");
    if ((size_t)o->index >= m->n_swizzles)
        return ls_diag_set(diag, LS_ERR_USAGE, "--index", 0, 0, "%s has %zu swizzles", o->src,
                           m->n_swizzles);
    int64_t banks_n = 32, bank_bytes = 4;
    if (o->target) {
        ls_target tt;
        bool has_tt;
        if ((st = ls_cli_hw(NULL, o->target, 32, hw, &tt, &has_tt, diag)))
            return st;
        banks_n = hw->smem_banks;
        bank_bytes = hw->smem_bank_bytes;
    }
    const ls_module_swizzle *ms = &m->swizzles[o->index];
    return banks ? ls_viz_banks_swizzle(&ms->swizzle, ms->name, o->lanes, o->elem_bytes, banks_n,
                                        bank_bytes, fig, diag)
                 : ls_viz_swizzle(&ms->swizzle, ms->name, o->rows, o->elem_bytes, banks_n,
                                  bank_bytes, fig, diag);
}

static int run(const draw_opts *o)
{
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ls_plan plan;
    ls_hw hw;
    ls_figure fig;
    ls_chart chart;
    memset(&fig, 0, sizeof fig);
    memset(&chart, 0, sizeof chart);
    bool is_chart = false;
    ls_trace trace = {NULL, 0, 0, false, 0};
    ls_attention *att = NULL; /* traffic / timeline of an attention */
    ls_att_view *view = NULL;
    dispatch_kernel fk = {NULL, NULL, NULL}; /* traffic / timeline of a multi-op dispatch */
    const char *k = o->kind;
    ls_status st = LS_OK;
    if (strcmp(k, "compare") == 0) {
        st = ls_viz_compare_csv(o->input, &chart, &diag);
        is_chart = true;
    } else if (strcmp(k, "layout") == 0) {
        const ls_plan *pl;
        if (!(st = load_all(o, m, &diag)) &&
            !(st = pick_kernel(o, m, d, &plan, &hw, &att, &view, NULL, &pl, &diag))) {
            ls_layout_view v;
            v.dim_row = o->dim_row;
            v.dim_col = o->dim_col;
            if (att && o->operand < 0 && o->dim_row < 0)
                ls_viz_attention_dims(att, false, &v.dim_row, &v.dim_col);
            memcpy(v.at, o->at, sizeof v.at);
            v.workgroup = o->workgroup;
            v.iteration = o->iteration;
            v.thread = o->thread;
            st = o->operand >= 0 ? ls_viz_operand_layout(pl, (int)o->operand, &v, &fig, &diag)
                                 : ls_viz_layout(pl->problem, pl->derived, &v, &fig, &diag);
        }
    } else if (strcmp(k, "nested") == 0) {
        st = draw_nested(o, m, d, &plan, &hw, &att, &view, &fig, &diag);
    } else if (strcmp(k, "traffic") == 0 || strcmp(k, "timeline") == 0) {
        const ls_plan *pl;
        if (!(st = load_all(o, m, &diag)) &&
            !(st = pick_kernel(o, m, d, &plan, &hw, &att, &view, &fk, &pl, &diag))) {
            bool tl = strcmp(k, "timeline") == 0;
            ls_cli_progress ps; /* a long simulation shows how far it is, as sim does */
            ls_cli_progress_init(&ps, CMD, "engine", "workgroups", o->quiet);
            ls_engine_opts eo = {.trace = tl ? &trace : NULL, .progress = ls_cli_progress_cb, .progress_ctx = &ps};
            ls_sim_result r;
            st = ls_engine_run(pl, &hw, &r, &eo, &diag);
            ls_cli_progress_end(&ps);
            if (!st && tl)
                st = ls_viz_timeline(pl->problem, &hw, &r, &trace, (int)o->wgps, &chart, &diag);
            else if (!st) {
                ls_viz_traffic(pl->problem, &hw, &r, &chart);
                ls_bottleneck bn;
                ls_bottleneck_analyze(pl, &hw, &r, &bn);
                ls_chart_add_note(&chart, bn.line);
            }
            is_chart = true;
        }
    } else if (strcmp(k, "roofline") == 0) {
        st = roofline(o, m, &hw, &chart, &diag);
        is_chart = true;
    } else {
        st = draw_swizzle_banks(o, m, d, &plan, &hw, &fig, &diag);
    }
    if (!st) {
        ls_export_opts eo = {o->src, k, o->scale, o->format};
        st = ls_viz_export(o->output, is_chart ? NULL : &fig, is_chart ? &chart : NULL, &eo,
                           &diag);
    }
    ls_figure_free(&fig);
    ls_chart_free(&chart);
    ls_viz_shutdown();
    free(trace.slices);
    ls_att_view_free(view);
    free(att);
    free(fk.d);
    free(fk.plans);
    free(fk.k);
    free(m);
    free(d);
    if (st) {
        ls_cli_report(CMD, &diag);
        return diag.status == LS_ERR_USAGE ? 2 : 1;
    }
    return 0;
}

static const struct option draw_longopts[] = {{"help", no_argument, NULL, 'h'},
                                              {"output", required_argument, NULL, 'o'},
                                              {"scale", required_argument, NULL, 's'},
                                              {"index", required_argument, NULL, 'n'},
                                              {"target", required_argument, NULL, 't'},
                                              {"dims", required_argument, NULL, 'D'},
                                              {"at", required_argument, NULL, 'A'},
                                              {"workgroup", required_argument, NULL, 'w'},
                                              {"iteration", required_argument, NULL, 'i'},
                                              {"thread", required_argument, NULL, 'T'},
                                              {"rows", required_argument, NULL, 'r'},
                                              {"elem-bytes", required_argument, NULL, 'e'},
                                              {"lanes", required_argument, NULL, 'l'},
                                              {"wgps", required_argument, NULL, 'g'},
                                              {"dim", required_argument, NULL, 'S'},
                                              {"operand", required_argument, NULL, 'O'},
                                              {"format", required_argument, NULL, 'f'},
                                              {"config", required_argument, NULL, 'C'},
                                              {"shape", required_argument, NULL, 'H'},
                                              {"iter", required_argument, NULL, 'I'},
                                              {"type", required_argument, NULL, 'Y'},
                                              {"combiner", required_argument, NULL, 'K'},
                                              {"quiet", no_argument, NULL, 'q'},
                                              {NULL, 0, NULL, 0}};

/* The flags that take a bounded integer: true when c is one (*ok: its
 * value was good, else said). */
static bool int_flag(draw_opts *o, int c, const char *arg, bool *ok)
{
    const struct {
        int c;
        const char *name;
        int64_t lo, hi;
        int64_t *v;
    } flags[] = {
        {'n', "--index", 0, LS_IMPORT_MAX_ITEMS - 1, &o->index},
        {'w', "--workgroup", 0, INT64_MAX, &o->workgroup},
        {'i', "--iteration", 0, INT64_MAX, &o->iteration},
        {'T', "--thread", 0, LS_MAX_WORKGROUP_SIZE - 1, &o->thread},
        {'r', "--rows", 1, LS_VIZ_MAX_AXIS_CELLS, &o->rows},
        {'e', "--elem-bytes", 1, 16, &o->elem_bytes},
        {'l', "--lanes", 1, LS_MAX_SUBGROUP_SIZE, &o->lanes},
        {'g', "--wgps", 1, 64, &o->wgps},
    };
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
        if (flags[k].c == c) {
            *ok = ls_flag_int(CMD, flags[k].name, arg, flags[k].lo, flags[k].hi, flags[k].v);
            return true;
        }
    return false;
}

/* One option (draw_longopts' letter c, its value arg) into *o: false after an
 * error message. */
static bool parse_flag(draw_opts *o, int c, const char *arg)
{
    bool ok;
    if (int_flag(o, c, arg, &ok))
        return ok;
    switch (c) {
    case 'o':
        if (!ls_flag_once(CMD, "-o", &o->output, arg))
            return false;
        break;
    case 's': {
        char *end;
        o->scale = strtod(arg, &end);
        if (end == arg || *end || !(o->scale >= 0.25 && o->scale <= 8)) {
            ls_cli_error(CMD, "--scale: expected a number in 0.25..8, found '%s'", arg);
            return false;
        }
        break;
    }
    case 't':
        if (!ls_flag_once(CMD, "--target", &o->target, arg))
            return false;
        break;
    case 'S':
        if (!ls_flag_dim(CMD, arg, &o->dims))
            return false;
        break;
    case 'D':
        if (!parse_dims(arg, &o->dim_row, &o->dim_col)) {
            ls_cli_error(CMD, "--dims: expected two dim numbers like 0,1, found '%s'", arg);
            return false;
        }
        break;
    case 'A':
        if (!parse_at(arg, o->at)) {
            ls_cli_error(CMD, "--at: expected d=v pairs like 1=3,2=0 (d < %d), found '%s'",
                         LS_MAX_RANK, arg);
            return false;
        }
        break;
    case 'O': { /* the upper bound is the reduction's input count, checked on load */
        char *end;
        long v = strtol(arg, &end, 10);
        if (end == arg || *end || v < 0 || v > INT32_MAX) {
            ls_cli_error(CMD,
                         "--operand: expected an input number (0 for the first), "
                         "found '%s'",
                         arg);
            return false;
        }
        o->operand = v;
        break;
    }
    case 'q': o->quiet = true; break;
    case 'f':
        if (!ls_flag_once(CMD, "--format", &o->format, arg))
            return false;
        if (strcmp(arg, "png") && strcmp(arg, "svg") && strcmp(arg, "pdf")) {
            ls_cli_error(CMD, "--format: expected png, svg or pdf, found '%s'", arg);
            return false;
        }
        break;
    case 'C':
    case 'H':
    case 'I':
    case 'Y':
    case 'K': {
        static const char letters[] = "CHIYK";
        int which = LS_CLI_OPT_CONFIG + (int)(strchr(letters, c) - letters);
        if (ls_cli_problem_flag(CMD, &o->pf, which, arg) < 0)
            return false;
        break;
    }
    }
    return true;
}

/* The options given (their letters) that kind o->kind reads: false, with
 * a message, for the first it does not. */
static bool kind_reads_given(const draw_opts *o, const char *given)
{
    /* Each kind reads some options; any other given is refused, never
     * silently ignored (letters as in draw_longopts). */
    static const struct {
        const char *kind, *reads;
    } reads[] = {{"compare", "osf"},
                 {"layout", "osntSDAwiTOfCHIYK"},
                 {"nested", "osntSDTOfCHIYK"},
                 {"swizzle", "osntSref"},
                 {"banks", "osntSlefCHIYK"},
                 {"traffic", "osntSOfCHIYKq"},
                 {"timeline", "osntSgfCHIYKq"},
                 {"roofline", "osntSfCHIYKq"}};
    for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) {
        if (strcmp(reads[i].kind, o->kind) != 0)
            continue;
        for (const char *g = given; *g; g++) {
            if (strchr(reads[i].reads, *g) || (*g == 'O' && strcmp(o->kind, "traffic") == 0))
                continue;
            const char *name = "?";
            for (const struct option *lo = draw_longopts; lo->name; lo++)
                if (lo->val == *g)
                    name = lo->name;
            ls_cli_error(CMD, "draw %s does not use --%s; leave it out", o->kind, name);
            return false;
        }
    }
    return true;
}

int ls_cmd_draw(int argc, char **argv)
{
    draw_opts o;
    memset(&o, 0, sizeof o);
    o.scale = 2;
    o.thread = -1;
    o.dim_row = o.dim_col = -1;
    o.elem_bytes = 4;
    o.lanes = 32;
    o.wgps = 4;
    o.operand = -1;
    optind = 1;
    opterr = 0;
    int c;
    char given[32] = ""; /* the option letters given, checked against the kind's */
    while ((c = getopt_long(argc, argv, ":ho:", draw_longopts, NULL)) != -1) {
        if (c != ':' && c != '?' && c != 'h' && !strchr(given, c) && strlen(given) + 1 < sizeof given)
            given[strlen(given)] = (char)c;
        switch (c) {
        case 'h': usage(stdout); return 0;
        case ':': ls_cli_error(CMD, "%s needs a value", argv[optind - 1]); return 2;
        case '?':
            ls_cli_error(CMD, "unknown option '%s' (see lanescope draw --help)", argv[optind - 1]);
            return 2;
        default:
            if (!parse_flag(&o, c, optarg))
                return 2;
            break;
        }
    }
    if (argc - optind != (o.pf.shape ? 1 : 2)) {
        ls_cli_error(CMD, argc - optind == 2 && o.pf.shape
                              ? "give INPUT or --shape, not both"
                              : "expected KIND and INPUT (or --shape; see lanescope draw --help)");
        return 2;
    }
    o.kind = argv[optind];
    o.index_given = strchr(given, 'n') != NULL;
    o.input = o.pf.shape ? NULL : argv[optind + 1];
    o.src = o.input ? o.input : "--shape";
    if (!known_kind(o.kind)) {
        ls_cli_error(CMD, "unknown kind '%s' (layout, nested, swizzle, banks, traffic, timeline, "
                          "compare, roofline)",
                     o.kind);
        return 2;
    }
    if (!kind_reads_given(&o, given))
        return 2;
    if (o.operand >= 0 && strcmp(o.kind, "layout") != 0 && strcmp(o.kind, "nested") != 0) {
        ls_cli_error(
            CMD, "--operand: only layout and nested draw an operand (%s does not%s)", o.kind,
            strcmp(o.kind, "traffic") == 0
                ? ": it draws every input's share of the loads in its own panel"
                : "");
        return 2;
    }
    if (!ls_cli_problem_source(CMD, o.input, &o.pf))
        return 2;
    if (o.output == NULL) {
        ls_cli_error(CMD, "-o FILE is required (.png, .svg or .pdf)");
        return 2;
    }
    return run(&o);
}
