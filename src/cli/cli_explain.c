/* cli_explain.c: `lanescope explain` -- the seeds' worked-example analysis,
 * computed: per-dim tiling, loop, lanes and subgroups, the derived
 * nested_layout, warnings, one thread's elements; nested layouts and
 * swizzle tables.  Text, Markdown or JSON (json-c). */
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lanescope/functional.h"
#include "lanescope/import.h"
#include "lanescope/layout.h"
#include "lanescope/swizzle.h"

#define CMD "explain"

#include "cli_explain.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lanescope explain [INPUT] [options]\n"
            "\n"
            "Analyse the reductions (linalg.generic / linalg.reduce with a lowering_config),\n"
            "attention ops (the K2 loop, the QK and PV matmuls' layouts),\n"
            "#iree_vector_ext.nested_layout and #iree_codegen.xor_shuffle / rotate_rows\n"
            "attributes in INPUT (.mlir).  Without INPUT and without --shape, a bundled\n"
            "example (seed 000, Example 2) is explained.\n"
            "\n"
            "options:\n"
            "  --thread N            also show thread N: coordinates and the elements it loads\n"
            "                        in iteration 0 of workgroup 0 (an attention: the positions\n"
            "                        it holds in each matmul)\n"
            "  --format text|md|json output format (default text)\n"
            "  -o, --output FILE     write to FILE (atomically) instead of standard output\n"
            "  --target NAME|FILE    target: a built-in name (%s)\n"
            "                        or an .mlir file holding #iree_gpu.target<...>\n"
            "  --config ATTR         use this #iree_gpu.lowering_config<{...}> for every reduction\n"
            "  --dim N=SIZE          size of dynamic ('?') loop dim dN of the ops (repeatable)\n"
            "  --shape AxBx..        describe the problem by flags instead of INPUT ...\n"
            "  --iter pr..           ... one letter per dim: p(arallel) or r(eduction)\n"
            "  --type T[:U]          ... element type T, reduced in U (default T)\n"
            "  --combiner K          ... add, mul, minsi, maxnumf, ... (default add)\n"
            "  --subgroup-size N     override translation_info's subgroup_size\n"
            "  --workgroup-size N    override translation_info's workgroup_size\n"
            "  --rows N              swizzle tables: rows to print (default one period)\n"
            "  --subgroups N         nested layouts: subgroups on the hardware (ids taken mod N)\n"
            "  -h, --help            this help\n",
            ls_target_names());
}

/* ------------------------------------------------------------ small helpers */

static void dash_or_int(char *buf, size_t size, bool show, int64_t v)
{
    if (show)
        snprintf(buf, size, "%lld", (long long)v);
    else
        snprintf(buf, size, "-");
}

/* ------------------------------------------------------------ reductions */

static void shape_text(char *buf, size_t size, const ls_problem *p)
{
    size_t u = 0;
    for (int i = 0; i < p->rank && u < size; i++)
        u += (size_t)snprintf(buf + u, size - u, "%s%lld", i ? "x" : "", (long long)p->size[i]);
}

static void map_text(char *buf, size_t size, const ls_problem *p, const int *map, int n)
{
    size_t u = (size_t)snprintf(buf, size, "(");
    for (int i = 0; i < p->rank && u < size; i++)
        u += (size_t)snprintf(buf + u, size - u, "%sd%d", i ? ", " : "", i);
    u += (size_t)snprintf(buf + u, u < size ? size - u : 0, ") -> (");
    for (int j = 0; j < n && u < size; j++)
        u += (size_t)snprintf(buf + u, size - u, "%sd%d", j ? ", " : "", map[j]);
    if (u < size)
        snprintf(buf + u, size - u, ")");
}

static void ti_text(char *buf, size_t size, const ls_problem *p, const ls_derived *d)
{
    if (p->has_ti)
        snprintf(buf, size, "pipeline %s, workgroup_size = [%lld, %lld, %lld], subgroup_size = %lld",
                 p->ti.pipeline[0] ? p->ti.pipeline : "(none)",
                 (long long)p->ti.workgroup_size[0], (long long)p->ti.workgroup_size[1],
                 (long long)p->ti.workgroup_size[2], (long long)d->subgroup_size);
    else
        snprintf(buf, size, "none in the input");
}

static void target_text(char *buf, size_t size, const ls_problem *p)
{
    if (!p->has_target) {
        snprintf(buf, size, "none (target limits not checked; use --target)");
        return;
    }
    char ch[64];
    ls_format_list(ch, sizeof ch, p->target.subgroup_choices, p->target.n_subgroup_choices);
    snprintf(buf, size, "%s%s%s: subgroup_size_choices %s, max %lld threads per workgroup, %lld WGPs",
             p->target.arch, p->target.sku[0] ? " " : "", p->target.sku, ch,
             (long long)(p->target.max_thread_count ? p->target.max_thread_count
                                                    : p->target.max_workgroup_sizes[0]),
             (long long)p->target.wgp_count);
}

static void body_text(char *buf, size_t size, const ls_derived *d)
{
    size_t u = (size_t)snprintf(buf, size, "[");
    for (int k = 0; k < d->body_rank && u < size; k++)
        u += (size_t)snprintf(buf + u, size - u, "%s%lld", k ? ", " : "",
                              (long long)d->body_bound[k]);
    if (u < size)
        snprintf(buf + u, size - u, "]");
}

static void vector_text(char *buf, size_t size, const ls_nested_layout *l, const char *elem)
{
    int64_t shape[LS_MAX_BODY];
    ls_nl_distributed_shape(l, shape);
    size_t u = (size_t)snprintf(buf, size, "vector<");
    for (int k = 0; k < l->rank && u < size; k++)
        u += (size_t)snprintf(buf + u, size - u, "%lldx", (long long)shape[k]);
    if (u < size)
        snprintf(buf + u, size - u, "%s>", elem);
}


void explain_thread_info(const ls_problem *p, const ls_derived *d, int64_t tid,
                         thread_info *t)
{
    const ls_lowering_config *c = &p->config;
    t->tid = tid;
    t->sg = tid / d->subgroup_size;
    t->lane = tid % d->subgroup_size;
    ls_delinearize(t->lane, c->lane_basis.counts.v, c->lane_basis.counts.n, t->lane_basis);
    ls_delinearize(t->sg, c->subgroup_basis.counts.v, c->subgroup_basis.counts.n, t->sg_basis);
    ls_basis_coords(&c->lane_basis, p->rank, t->lane, t->lane_dims);
    ls_basis_coords(&c->subgroup_basis, p->rank, t->sg, t->sg_dims);
    ls_nl_virtual_thread(&d->layout, t->lane, t->vt);
    ls_nl_virtual_subgroup(&d->layout, t->sg, t->vs);
    t->n_regs = ls_nl_registers(&d->layout);
}

static void coord_text(char *buf, size_t size, const int64_t *x, int n)
{
    ls_format_list(buf, size, x, n);
}

/* Each operand's share of thread tid in iteration 0 of workgroup 0: its
 * loads, each a vector of operand coordinates (the operand's own dims). */
static void thread_operands(FILE *f, const ls_problem *p, const ls_derived *d, int64_t tid,
                            const char *ind, bool md)
{
    int64_t zero[LS_MAX_RANK] = {0};
    char e[160];
    for (int k = 0; k < p->n_inputs; k++) {
        const ls_operand *o = &p->inputs[k];
        ls_operand_regs regs;
        ls_operand_regs_of(d, p, k, &regs);
        fprintf(f, "%s%s input %d %s (%s): ", ind, md ? "-" : " ", k, o->name,
                ls_elem_type_name(o->type));
        if (o->intermediate) {
            fprintf(f, "the result of an earlier reduction, held in registers: no load\n");
            continue;
        }
        fprintf(f, "%lld load%s of %lld element%s, at operand coordinates\n",
                (long long)regs.loads, regs.loads == 1 ? "" : "s", (long long)regs.width,
                regs.width == 1 ? "" : "s");
        int64_t shown = regs.loads < 16 ? regs.loads : 16;
        for (int64_t l = 0; l < shown; l++) {
            fprintf(f, "%s      ", md ? "" : "");
            for (int64_t el = 0; el < regs.width && el < 16; el++) {
                int64_t x[LS_MAX_RANK], oc[LS_MAX_RANK];
                bool valid;
                ls_thread_element(d, p, tid, zero, zero, ls_operand_register(d, &regs, l, el),
                                  x, &valid);
                for (int j = 0; j < o->map_n; j++)
                    oc[j] = x[o->map[j]];
                coord_text(e, sizeof e, oc, o->map_n);
                fprintf(f, "%s%s%s", el ? " " : "", e, valid ? "" : "(pad)");
            }
            fprintf(f, "%s\n", regs.width > 16 ? " ..." : "");
        }
        if (shown < regs.loads)
            fprintf(f, "      ... %lld more loads\n", (long long)(regs.loads - shown));
    }
}

static void text_thread(FILE *f, const ls_problem *p, const ls_derived *d, int64_t tid, bool md)
{
    thread_info t;
    explain_thread_info(p, d, tid, &t);
    const ls_lowering_config *c = &p->config;
    char a[128], b[128], e[128];
    const char *ind = md ? "" : "  ";
    if (md)
        fprintf(f, "\n### Thread %lld\n\n", (long long)tid);
    else
        fprintf(f, "\n%sthread %lld:\n", ind, (long long)tid);
    fprintf(f, "%s%s subgroup %lld, lane %lld\n", ind, md ? "-" : " ", (long long)t.sg,
            (long long)t.lane);
    ls_format_list(a, sizeof a, c->lane_basis.counts.v, c->lane_basis.counts.n);
    ls_format_list(b, sizeof b, t.lane_basis + 1, c->lane_basis.counts.n);
    fprintf(f, "%s%s lane_basis: delinearize(%lld, %s) = %s (outer %lld); mapping ", ind,
            md ? "-" : " ", (long long)t.lane, a, b, (long long)t.lane_basis[0]);
    ls_format_list(a, sizeof a, c->lane_basis.mapping.v, c->lane_basis.mapping.n);
    fprintf(f, "%s -> ", a);
    for (int i = 0; i < p->rank; i++)
        fprintf(f, "%sd%d = %lld", i ? ", " : "", i, (long long)t.lane_dims[i]);
    fputc('\n', f);
    ls_format_list(a, sizeof a, c->subgroup_basis.counts.v, c->subgroup_basis.counts.n);
    ls_format_list(b, sizeof b, t.sg_basis + 1, c->subgroup_basis.counts.n);
    fprintf(f, "%s%s subgroup_basis: delinearize(%lld, %s) = %s -> ", ind, md ? "-" : " ",
            (long long)t.sg, a, b);
    for (int i = 0; i < p->rank; i++)
        fprintf(f, "%sd%d = %lld", i ? ", " : "", i, (long long)t.sg_dims[i]);
    fputc('\n', f);
    ls_format_list(a, sizeof a, t.vt, d->layout.rank);
    ls_format_list(b, sizeof b, t.vs, d->layout.rank);
    fprintf(f, "%s%s nested_layout virtual ids: thread %s, subgroup %s\n", ind, md ? "-" : " ", a,
            b);
    int64_t zero[LS_MAX_RANK] = {0};
    int64_t valid_n = 0;
    for (int64_t r = 0; r < t.n_regs; r++) {
        int64_t x[LS_MAX_RANK];
        bool valid;
        ls_thread_element(d, p, tid, zero, zero, r, x, &valid);
        valid_n += valid;
    }
    fprintf(f, "%s%s elements loaded in iteration 0 of workgroup 0: %lld of %lld registers valid\n",
            ind, md ? "-" : " ", (long long)valid_n, (long long)t.n_regs);
    int64_t shown = t.n_regs < 256 ? t.n_regs : 256;
    fprintf(f, md ? "\n```\n" : "");
    for (int64_t r = 0; r < shown; r++) {
        int64_t x[LS_MAX_RANK];
        bool valid;
        ls_thread_element(d, p, tid, zero, zero, r, x, &valid);
        coord_text(e, sizeof e, x, p->rank);
        fprintf(f, "%s%s%s%s", r % 8 == 0 ? (md ? "" : "      ") : " ", e, valid ? "" : "(pad)",
                (r % 8 == 7 || r == shown - 1) ? "\n" : "");
    }
    if (shown < t.n_regs)
        fprintf(f, "%s      ... %lld more\n", md ? "" : "", (long long)(t.n_regs - shown));
    fprintf(f, md ? "```\n" : "");
    if (p->n_inputs > 1 || p->body.n > 0)
        thread_operands(f, p, d, tid, ind, md);
}

/* An arg_compare's operands, comparator and lane-combine path. */
/* Input k is named by the config's promote_operands. */
bool explain_promoted(const ls_problem *p, int k)
{
    const ls_i64_list *l = &p->config.promote_operands;
    for (int i = 0; l->present && i < l->n; i++)
        if (l->v[i] == k)
            return true;
    return false;
}

static void explain_argcmp(FILE *f, const ls_problem *p, const char *li, bool md)
{
    const ls_argcmp *a = &p->argcmp;
    char m[256];
    int dim = ls_argcmp_dim(p);
    fprintf(f, "%siree_linalg_ext.arg_compare dimension(%d): the best %s value and its %s "
               "index\n",
            li, dim, ls_elem_type_name(p->acc_type), ls_elem_type_name(a->index_type));
    for (int k = 0; k < p->n_inputs; k++) {
        map_text(m, sizeof m, p, p->inputs[k].map, p->inputs[k].map_n);
        fprintf(f, "%sinput %d %s: %s, map %s%s\n", li, k, p->inputs[k].name,
                ls_elem_type_name(p->inputs[k].type), m, k == 1 ? " (explicit indices)" : "");
    }
    if (!a->explicit_index)
        fprintf(f, "%sindices: the position along d%d%s\n", li, dim,
                a->has_base       ? ", plus index_base"
                : a->base_unknown ? ", relative to index_base (not a constant: simulated as 0)"
                                  : "");
    if (a->has_base)
        fprintf(f, "%sindex_base: %lld\n", li, (long long)a->base);
    map_text(m, sizeof m, p, p->out_map, p->out_map_n);
    fprintf(f, "%sinit map %s\n", li, m);
    fprintf(f, "%scomparator (candidate = input 0, best = input 1):\n%s", li, md ? "\n```\n" : "");
    ls_body_print(&a->cmp, md ? "" : "    ", f);
    if (md)
        fprintf(f, "```\n\n");
    fprintf(f, "%slane combine: %s\n", li,
            !a->ballot ? "butterfly of (value, index) shuffles: the comparator has no max/min "
                         "kind (analyzeComparatorForThreadReduction)"
            : a->transform >= 0 ? "ballot over the comparator's transform of the values, the "
                                  "value shuffled from the winner"
                                : "ballot: gpu.subgroup_reduce, cmp eq, gpu.ballot, math.cttz, "
                                  "gpu.shuffle idx");
    if (a->ballot)
        fprintf(f, "%sgpu.subgroup_reduce kind: %s\n", li, ls_combiner_name(p->combiner));
}

/* The body's math ops as IREE's pipeline for p's target computes them
 * (src/math_lowering.c), and whether sim's values are that code's. */
static void explain_math(FILE *f, const ls_problem *p, const char *li)
{
    if (!p->has_target)
        return;
    ls_plan_target t = ls_plan_target_from_arch(p->target.arch);
    ls_math_mode mode = ls_math_mode_for_arch(p->target.arch);
    for (int i = 0; i < p->body.n; i++) {
        const char *how;
        int alu, sfu;
        if (!ls_math_lowering(&p->body, i, t, &how, &alu, &sfu))
            continue;
        bool exact = ls_body_inst_as_target(&p->body, i, mode);
        fprintf(f,
                "%s%%%d = %s on %s: %s; %d ALU + %d special-function instruction%s; sim's "
                "values %s\n",
                li, i, ls_body_opcode_name((ls_body_opcode)p->body.inst[i].op), p->target.arch, how,
                alu, sfu, sfu == 1 ? "" : "s",
                exact ? "are that code's, bit for bit" : "are correctly rounded (not that code's)");
    }
}

/* The operands: types, maps, the body and its math (or arg_compare's). */
static void text_operands(FILE *f, const ls_problem *p, const char *li, bool md)
{
    char a[256], b[256];
    const char *elem = ls_elem_type_name(p->acc_type);
    if (p->argcmp.on) {
        explain_argcmp(f, p, li, md);
    } else if (p->n_inputs == 1 && p->body.n == 0) {
        fprintf(f, "%stypes: %s in memory%s, reduced in %s; combiner %s (%s)\n", li,
                ls_elem_type_name(p->inputs[0].type),
                p->extended ? " (arith.extf looked through)" : "", elem,
                ls_combiner_name(p->combiner),
                ls_combiner_op(p->combiner, ls_elem_type_is_float(p->acc_type)));
        map_text(a, sizeof a, p, p->inputs[0].map, p->inputs[0].map_n);
        map_text(b, sizeof b, p, p->out_map, p->out_map_n);
        fprintf(f, "%sinput map %s; init map %s\n", li, a, b);
    } else {
        fprintf(f, "%sreduced in %s; combiner %s (%s) folds in the body's value\n", li, elem,
                ls_combiner_name(p->combiner),
                ls_combiner_op(p->combiner, ls_elem_type_is_float(p->acc_type)));
        for (int k = 0; k < p->n_inputs; k++) {
            map_text(a, sizeof a, p, p->inputs[k].map, p->inputs[k].map_n);
            fprintf(f, "%sinput %d %s: %s, map %s%s\n", li, k,
                    p->inputs[k].name[0] ? p->inputs[k].name : "",
                    ls_elem_type_name(p->inputs[k].type), a,
                    p->inputs[k].intermediate
                        ? " (the result of an earlier reduction in the dispatch: held in "
                          "registers, its reference values used)"
                    : explain_promoted(p, k)
                        ? " (promote_operands: copied through workgroup memory every "
                          "iteration, between two barriers; `sim --dump-plan` shows the "
                          "buffer and the copy's layout)"
                        : "");
        }
        map_text(b, sizeof b, p, p->out_map, p->out_map_n);
        fprintf(f, "%sinit map %s\n", li, b);
        fprintf(f, "%sbody (per element, inputs numbered as above; fused producers inlined):\n%s",
                li, md ? "\n```\n" : "");
        ls_body_print(&p->body, md ? "" : "    ", f);
        if (md)
            fprintf(f, "```\n\n");
        explain_math(f, p, li);
    }
}

/* The inits, the config and translation_info, the target. */
static void text_config(FILE *f, const ls_problem *p, const ls_derived *d, const char *li, bool md)
{
    char buf[1024], b[256];
    ls_value_format(ls_problem_init(p), p->acc_type, b, sizeof b);
    if (p->argcmp.on) {
        char ib[48];
        ls_value_format(p->argcmp.has_init_index ? p->argcmp.init_index : 0,
                        p->argcmp.index_type, ib, sizeof ib);
        fprintf(f, "%sinits: value %s%s, index %s%s\n", li, b,
                p->has_init ? " (its linalg.fill)"
                            : " (not a linalg.fill of a constant: the comparator's identity "
                              "stands in)",
                ib, p->argcmp.has_init_index ? " (its linalg.fill)" : " (not a fill: 0 stands in)");
    } else
    fprintf(f, "%sinit: %s%s\n", li, b,
            p->has_init       ? " (its linalg.fill)"
            : p->init_unknown ? " (the combiner's identity: the init is not a linalg.fill of a "
                                "constant, so its values are not known)"
                              : " (the combiner's identity)");
    ls_lowering_config_format(&p->config, buf, sizeof buf);
    fprintf(f, "%slowering_config: %s%s%s%s\n", li, md ? "`" : "", buf, md ? "`" : "",
            p->config_suggested ? " (none in the input: IREE's default for this target, as "
                                  "`lanescope suggest` derives it)"
                                : "");
    if (p->config.n_ignored) {
        fprintf(f, "%signored keys (not read by the reduction path):", li);
        for (int i = 0; i < p->config.n_ignored; i++)
            fprintf(f, "%s %s%s", i ? "," : "", p->config.ignored[i],
                    p->config.ignored_inert[i] ? " (all zeros: tiles nothing)" : "");
        fputc('\n', f);
    }
    ti_text(buf, sizeof buf, p, d);
    fprintf(f, "%stranslation_info: %s\n", li, buf);
    target_text(buf, sizeof buf, p);
    fprintf(f, "%starget: %s\n\n", li, buf);
}

/* The table of dims: tiles, counts, loops, lanes, subgroups. */
static void text_dims(FILE *f, const ls_problem *p, const ls_derived *d, bool md)
{
    if (md)
        fprintf(f, "| dim | kind | size | wg tile | workgroups | chunk | iterations | loop | "
                   "lanes | subgroups | thread |\n|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|\n");
    else
        fprintf(f, "  %-4s %-9s %8s %8s %10s %7s %10s %-8s %5s %9s %6s\n", "dim", "kind", "size",
                "wg-tile", "workgroups", "chunk", "iterations", "loop", "lanes", "subgroups",
                "thread");
    for (int i = 0; i < p->rank; i++) {
        bool r = p->is_reduction[i];
        char wt[24], wc[24], ch[24], it[24], th[24];
        dash_or_int(wt, sizeof wt, !r, d->wg_tile[i]);
        dash_or_int(wc, sizeof wc, !r, d->wg_count[i]);
        dash_or_int(ch, sizeof ch, r, d->chunk[i]);
        dash_or_int(it, sizeof it, r, d->iterations[i]);
        dash_or_int(th, sizeof th, r, d->thread[i]);
        /* partial: the partial_reduction loop (reduce after it); reduce: the
         * reduction level's loop (subgroup reduce inside every iteration) */
        const char *loop = !r                      ? "-"
                           : d->iterations[i] == 1 ? "elided"
                           : d->serial[i]          ? "reduce"
                                                   : "partial";
        char kind[16];
        snprintf(kind, sizeof kind, "%s", r ? "reduction" : "parallel");
        if (md)
            fprintf(f, "| d%d | %s | %lld | %s | %s | %s | %s | %s | %lld | %lld | %s |\n", i, kind,
                    (long long)p->size[i], wt, wc, ch, it, loop, (long long)d->lanes[i],
                    (long long)d->subgroups[i], th);
        else
            fprintf(f, "  d%-3d %-9s %8lld %8s %10s %7s %10s %-8s %5lld %9lld %6s\n", i, kind,
                    (long long)p->size[i], wt, wc, ch, it, loop, (long long)d->lanes[i],
                    (long long)d->subgroups[i], th);
    }
    fputc('\n', f);
}

/* What the layout derives: workgroup, loop, per-thread work, layout,
 * warnings. */
static void text_derived(FILE *f, const ls_problem *p, const ls_derived *d, const char *li, bool md)
{
    char buf[1024], a[256];
    const char *elem = ls_elem_type_name(p->acc_type);
    fprintf(f, "%sworkgroup: %lld threads = %lld subgroup%s x %lld lanes%s; %lld workgroup%s in total\n",
            li, (long long)d->workgroup_size, (long long)d->num_subgroups,
            d->num_subgroups == 1 ? "" : "s",
            (long long)d->subgroup_size, d->sizes_assumed ? " (derived: no translation_info)" : "",
            (long long)d->total_workgroups, d->total_workgroups == 1 ? "" : "s");
    fprintf(f, "%s%s loop: %lld iteration%s%s\n", li,
            d->serial_reduce ? "reduction-level" : "partial-reduction",
            (long long)d->total_iterations, d->total_iterations == 1 ? "" : "s",
            d->total_iterations == 1          ? " (loop elided)"
            : d->serial_reduce ? " (every iteration reduces its tile through the subgroup "
                                 "reduce and folds it into the carried init)"
                               : "");
    fprintf(f, "%sper thread per iteration: %lld load%s x %lld element%s = %lld element%s (%lld "
               "along the reduction for each output element)\n",
            li, (long long)d->loads_per_iteration, d->loads_per_iteration == 1 ? "" : "s",
            (long long)d->elems_per_load, d->elems_per_load == 1 ? "" : "s",
            (long long)d->elems_per_iteration, d->elems_per_iteration == 1 ? "" : "s",
            (long long)d->red_elems_per_iteration);
    body_text(a, sizeof a, d);
    fprintf(f, "%sloop body (%s): %s", li,
            p->argcmp.on ? "no GPUPackPartialReductions: arg_compare is not a linalg op"
                         : "after GPUPackPartialReductions",
            a);
    for (int i = 0; i < p->rank; i++)
        if (d->packed[i])
            fprintf(f, "; d%d's chunk %lld packed as %lld x %lld", i, (long long)d->chunk[i],
                    (long long)d->chunk[i] / d->thread[i], (long long)d->thread[i]);
    fputc('\n', f);
    ls_nested_layout_format(&d->layout, buf, sizeof buf);
    fprintf(f, "%snested_layout: %s%s%s\n", li, md ? "`" : "", buf, md ? "`" : "");
    vector_text(a, sizeof a, &d->layout, elem);
    fprintf(f, "%sper-thread vector: %s\n", li, a);
    if (d->n_warnings == 0)
        fprintf(f, "%swarnings: none\n", li);
    for (int i = 0; i < d->n_warnings; i++)
        fprintf(f, "%swarning: %s\n", li, d->warnings[i]);
}

static void text_problem(FILE *f, const ls_problem *p, const ls_derived *d, const opts *o)
{
    bool md = o->fmt == FMT_MD;
    char a[256];
    shape_text(a, sizeof a, p);
    char where[sizeof p->file + 32];
    if (p->line > 0)
        snprintf(where, sizeof where, "%s:%d:%d", p->file, p->line, p->col);
    else /* a --shape problem has no place in a file */
        snprintf(where, sizeof where, "from %s", p->file);
    if (md)
        fprintf(f, "## Reduction %s (%s)\n\n", p->name, where);
    else
        fprintf(f, "reduction %s %s%s\n", p->name, p->line > 0 ? "at " : "", where);
    const char *li = md ? "- " : "  ";
    fprintf(f, "%siteration space: %s [", li, a);
    for (int i = 0; i < p->rank; i++)
        fprintf(f, "%sd%d = %s(%lld)", i ? ", " : "", i,
                p->is_reduction[i] ? "reduction" : "parallel", (long long)p->size[i]);
    fprintf(f, "]\n");
    text_operands(f, p, li, md);
    text_config(f, p, d, li, md);
    text_dims(f, p, d, md);
    text_derived(f, p, d, li, md);
    if (o->has_thread)
        text_thread(f, p, d, o->thread, md);
    fputc('\n', f);
}

/* ------------------------------------------------------------ input */

/* The flags into *o and the input's name into *input: -1 to go on, else
 * the exit code (0 after --help). */
static int parse_args(int argc, char **argv, opts *o, const char **input)
{
    enum { O_THREAD = 256, O_FORMAT, O_TARGET, O_SGSIZE, O_WGSIZE, O_ROWS, O_SUBGROUPS, O_DIM };
    static const struct option longopts[] = {
        {"thread", required_argument, NULL, O_THREAD},
        {"format", required_argument, NULL, O_FORMAT},
        {"output", required_argument, NULL, 'o'},
        {"target", required_argument, NULL, O_TARGET},
        LS_CLI_PROBLEM_LONGOPTS,
        {"subgroup-size", required_argument, NULL, O_SGSIZE},
        {"workgroup-size", required_argument, NULL, O_WGSIZE},
        {"rows", required_argument, NULL, O_ROWS},
        {"subgroups", required_argument, NULL, O_SUBGROUPS},
        {"dim", required_argument, NULL, O_DIM},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case O_THREAD:
            if (!ls_flag_int(CMD, "--thread", optarg, 0, 1 << 20, &o->thread))
                return 2;
            o->has_thread = true;
            break;
        case O_FORMAT:
            if (strcmp(optarg, "text") == 0)
                o->fmt = FMT_TEXT;
            else if (strcmp(optarg, "md") == 0)
                o->fmt = FMT_MD;
            else if (strcmp(optarg, "json") == 0)
                o->fmt = FMT_JSON;
            else {
                ls_cli_error(CMD, "--format: expected text, md or json, found '%s'", optarg);
                return 2;
            }
            break;
        case 'o':
            if (!ls_flag_once(CMD, "-o", &o->output, optarg))
                return 2;
            break;
        case O_TARGET:
            if (!ls_flag_once(CMD, "--target", &o->target, optarg))
                return 2;
            break;
        LS_CLI_PROBLEM_CASES:
            if (ls_cli_problem_flag(CMD, &o->pf, c, optarg) < 0)
                return 2;
            break;
        case O_SGSIZE:
            if (!ls_flag_int(CMD, "--subgroup-size", optarg, 1, 1 << 16, &o->subgroup_size))
                return 2;
            break;
        case O_WGSIZE:
            if (!ls_flag_int(CMD, "--workgroup-size", optarg, 1, 1 << 20, &o->workgroup_size))
                return 2;
            break;
        case O_ROWS:
            if (!ls_flag_int(CMD, "--rows", optarg, 1, 256, &o->rows))
                return 2;
            break;
        case O_SUBGROUPS:
            if (!ls_flag_int(CMD, "--subgroups", optarg, 1, 1 << 16, &o->hw_subgroups))
                return 2;
            break;
        case O_DIM:
            if (!ls_flag_dim(CMD, optarg, &o->dims))
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        case ':':
            ls_cli_error(CMD, "%s needs a value", argv[optind - 1]);
            return 2;
        default:
            ls_cli_error(CMD, "unknown option '%s' (see lanescope explain --help)",
                         argv[optind - 1]);
            return 2;
        }
    }
    if (argc - optind > 1) {
        ls_cli_error(CMD, "expected one INPUT, found %d ('%s' ...)", argc - optind, argv[optind + 1]);
        return 2;
    }
    *input = optind < argc ? argv[optind] : NULL;
    if (!ls_cli_problem_source(CMD, *input, &o->pf))
        return 2;
    return -1;
}

/* --target and the size flags, given to every reduction of m. */
static ls_status apply_flags(ls_module *m, const opts *o, ls_diag *diag)
{
    if (o->target) {
        ls_target t;
        if (!ls_cli_target(o->target, &t, diag))
            return diag->status;
        m->has_target = true;
        m->target = t;
        for (size_t i = 0; i < m->n_problems; i++) {
            m->problems[i].has_target = true;
            m->problems[i].target = t;
        }
    }
    for (size_t i = 0; i < m->n_problems; i++) {
        ls_problem *p = &m->problems[i];
        if (o->subgroup_size) {
            p->has_ti = true;
            p->ti.has_subgroup_size = true;
            p->ti.subgroup_size = o->subgroup_size;
        }
        if (o->workgroup_size) {
            p->has_ti = true;
            p->ti.has_workgroup_size = true;
            p->ti.wg_rank = 1;
            p->ti.workgroup_size[0] = o->workgroup_size;
            p->ti.workgroup_size[1] = p->ti.workgroup_size[2] = 1;
        }
    }
    return LS_OK;
}

/* Each attention of m built (its config: the written one, else IREE's
 * default for the target), into attentions[]. */
static ls_status build_attentions(ls_module *m, const char *file, const opts *o,
                                  ls_attention *attentions, ls_diag *diag)
{
    for (size_t i = 0; i < m->n_attentions; i++) {
        const ls_module_attention *ma = &m->attentions[i];
        bool written = ma->has_config || ma->has_qk || ma->has_pv;
        if (!written && !m->has_target) {
            const ls_dop *op = &m->dispatches[ma->dispatch].ops[ma->op];
            ls_diag_set(diag, LS_ERR_USAGE, "--target", 0, 0,
                        "the attention at %s:%d:%d has no config: give --target for IREE's "
                        "default",
                        file, op->line, op->col);
            return diag->status;
        }
        if (ls_attention_build(m, ma, &m->target, &attentions[i], diag))
            return diag->status;
        if (o->has_thread && o->thread >= attentions[i].workgroup_size) {
            ls_diag_set(diag, LS_ERR_USAGE, "--thread", 0, 0,
                        "%lld is outside the workgroup of %s (threads 0..%lld)",
                        (long long)o->thread, attentions[i].name,
                        (long long)attentions[i].workgroup_size - 1);
            return diag->status;
        }
    }
    return LS_OK;
}

/* Each reduction of m laid out, into derived[]. */
static ls_status derive_problems(ls_module *m, const opts *o, ls_derived *derived, ls_diag *diag)
{
    /* no config: IREE's default, as sim uses it; with no target either,
     * for the machine sim would time it on (chosen by subgroup size) */
    for (size_t i = 0; i < m->n_problems; i++) {
        ls_problem *p = &m->problems[i];
        ls_hw scratch;
        if (!p->has_config && (p->has_target ? ls_cli_suggest_config(m, p, diag)
                                             : ls_cli_model(m, p, NULL, &scratch, diag)))
            return diag->status;
    }
    for (size_t i = 0; i < m->n_problems; i++) {
        if (ls_derive(&m->problems[i], &derived[i], diag))
            return diag->status;
        if (o->has_thread && o->thread >= derived[i].workgroup_size) {
            ls_diag_set(diag, LS_ERR_USAGE, "--thread", 0, 0,
                        "%lld is outside the workgroup of %s (threads 0..%lld)",
                        (long long)o->thread, m->problems[i].name,
                        (long long)derived[i].workgroup_size - 1);
            return diag->status;
        }
    }
    return LS_OK;
}

/* The report, in --format's form. */
static void write_report(FILE *f, const ls_module *m, const ls_derived *derived,
                         const ls_attention *attentions, const char *file, const opts *o)
{
    if (o->fmt == FMT_JSON) {
        json_object *root = ls_cli_json_root("explain");
        jset(root, "input", json_object_new_string(file));
        json_object *items = json_object_new_array();
        for (size_t i = 0; i < m->n_problems; i++) {
            json_object_array_add(items, explain_json_problem(&m->problems[i], &derived[i], o));
            json_object *k = explain_json_kernel(m, i, derived);
            if (k)
                json_object_array_add(items, k);
        }
        for (size_t i = 0; i < m->n_attentions; i++)
            json_object_array_add(items, explain_json_attention(m, &m->attentions[i], &attentions[i]));
        for (size_t i = 0; i < m->n_layouts; i++)
            json_object_array_add(items, explain_json_layout(&m->layouts[i], file, o));
        for (size_t i = 0; i < m->n_swizzles; i++)
            json_object_array_add(items, explain_json_swizzle(&m->swizzles[i], file, o));
        jset(root, "items", items);
        fprintf(f, "%s\n",
                json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(root);
    } else {
        if (o->fmt == FMT_MD)
            fprintf(f, "# lanescope explain: %s\n\n", file);
        for (size_t i = 0; i < m->n_problems; i++) {
            text_problem(f, &m->problems[i], &derived[i], o);
            explain_text_kernel(f, m, i, derived, o);
        }
        for (size_t i = 0; i < m->n_attentions; i++)
            explain_text_attention(f, m, &m->attentions[i], &attentions[i], o);
        for (size_t i = 0; i < m->n_layouts; i++)
            explain_text_layout(f, &m->layouts[i], file, o);
        for (size_t i = 0; i < m->n_swizzles; i++)
            explain_text_swizzle(f, &m->swizzles[i], file, o);
    }
}

int ls_cmd_explain(int argc, char **argv)
{
    opts o;
    memset(&o, 0, sizeof o);
    const char *input;
    int rc = parse_args(argc, argv, &o, &input);
    if (rc >= 0)
        return rc;
    char exbuf[1024];
    if (!input && !o.pf.shape) {
        input = ls_cli_bundled_example("seed000_example2.mlir", exbuf, sizeof exbuf);
        if (input == NULL) {
            ls_cli_error(CMD, "no INPUT given and the bundled examples were not found (set "
                              "LANESCOPE_EXAMPLES)");
            return 2;
        }
    }
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_derived *derived = NULL;
    ls_attention *attentions = NULL;
    const char *file = input ? input : "--shape";
    o.pf.import_flags = LS_IMPORT_ATTENTION; /* explained below, not refused */
    if (ls_cli_problem_load(input, &o.pf, &o.dims, m, &diag) || apply_flags(m, &o, &diag))
        goto fail;
    if (m->n_problems + m->n_layouts + m->n_swizzles + m->n_attentions == 0) {
        ls_diag_set(&diag, LS_ERR_NOTFOUND, file, 0, 0,
                    "nothing to explain: no linalg.generic/linalg.reduce with a reduction, no "
                    "attention, no nested_layout, no xor_shuffle/rotate_rows");
        goto fail;
    }
    attentions = ls_xcalloc(m->n_attentions ? m->n_attentions : 1, sizeof *attentions);
    derived = ls_xcalloc(m->n_problems ? m->n_problems : 1, sizeof *derived);
    if (build_attentions(m, file, &o, attentions, &diag) || derive_problems(m, &o, derived, &diag))
        goto fail;
    for (size_t i = 0; i < m->n_layouts; i++)
        if (!explain_layout_check(&m->layouts[i], file, &o, &diag))
            goto fail;
    for (size_t i = 0; i < m->n_swizzles; i++)
        if (ls_swizzle_check(&m->swizzles[i].swizzle, file, &diag))
            goto fail;
    ls_out out;
    ls_out_open(&out);
    write_report(out.f, m, derived, attentions, file, &o);
    rc = ls_out_commit(&out, o.output);
    goto done;
fail:
    ls_cli_report(CMD, &diag);
    rc = diag.status == LS_ERR_USAGE ? 2 : 1; /* a bad flag is usage, as everywhere */
done:
    free(derived);
    free(attentions);
    free(m);
    return rc;
}
