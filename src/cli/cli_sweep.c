/* cli_sweep.c: `lanescope sweep` -- simulate every valid config of one
 * reduction on N threads, rank them, and show where IREE's choice lands:
 * a table on standard output, all points as CSV, and a chart. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_sweep.h"
#include "lanescope/fused.h"
#include "lanescope/atomic.h"
#include "lanescope/sweep.h"
#include "lanescope/viz.h"

#define CMD "sweep"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lanescope sweep INPUT --target NAME [-j N] [--max-configs N]\n"
            "                       [--csv FILE] [--chart FILE.png|.svg|.pdf] [--roofline FILE]\n"
            "                       [--top N] [--quiet]\n"
            "                       [--force]\n"
            "       lanescope sweep --shape AxB.. --iter pr.. [--type T] [--combiner K] ...\n"
            "                       [--config ATTR]\n"
            "\n"
            "Enumerate the valid configs of a reduction on a target (subgroup size, elements\n"
            "per load, lanes on the reduction and the rows, subgroups, partial_reduction,\n"
            "rows per workgroup), simulate each one, rank them by simulated time, and show\n"
            "where IREE's own choice ranks and how far it is from the best.  In a file whose\n"
            "op is a decode attention, the configs are IREE's attention rules with other\n"
            "seeds (key vectors per K1 tile, value vectors, subgroups; IREE's 8/2/8).\n"
            "\n"
            "  --target NAME       hardware model: %s\n"
            "  -j, --jobs N        simulate on N threads (default: the number of cores)\n"
            "  --max-configs N     keep an evenly spaced N of the valid configs (default 2000;\n"
            "                      IREE's choice is always kept)\n"
            "  --index N           which reduction of INPUT (default 0)\n"
            "  --dim N=SIZE        size of dynamic ('?') loop dim dN of the ops (repeatable)\n"
            "  --csv FILE          every point, ranked (default: none)\n"
            "  --chart FILE        time of every config by rank, IREE's marked, the DRAM\n"
            "                      roofline drawn (default: none)\n"
            "  --roofline FILE     every config on a roofline: achieved Gop/s against ops\n"
            "                      per DRAM byte under the model's roofs, the best, IREE's\n"
            "                      and the given config numbered with their bottlenecks\n"
            "                      (.png, .svg or .pdf; default: none)\n"
            "  --top N             rows of the table on standard output (default 10)\n"
            "  --config ATTR       an #iree_gpu.lowering_config<{...}> to rank among the\n"
            "                      others and mark (as the input's own config is)\n"
            "  --shape AxBx..      describe the problem by flags instead of INPUT ...\n"
            "  --iter pr..         ... one letter per dim: p(arallel) or r(eduction)\n"
            "  --type T[:U]        ... element type T, reduced in U (default T)\n"
            "  --combiner K        ... add, mul, minsi, maxnumf, ... (default add)\n"
            "\n"
            "  --quiet             no progress lines\n"
            "  --force             run past the work budget (2^34 simulated subgroup-\n"
            "                      instructions in all, 2^32 per config)\n"
            "  -h, --help          this help\n"
            "\n"
            "Progress goes to standard error: on a terminal one line redrawn after the\n"
            "first second; elsewhere a line every $LANESCOPE_PROGRESS_SECONDS seconds\n"
            "(default 10).\n"
            "\n"
            "The ranking's columns: rank (1: fastest), time_us (simulated, with launch),\n"
            "%%roof (the DRAM roofline's time as a share of it), and the config: sg\n"
            "subgroup size, wg workgroup size (threads), thread elements per load, lanes\n"
            "lanes along the reduced x parallel dims, subgroups per workgroup, partial\n"
            "the partial_reduction tile, rows outputs per workgroup; <- IREE marks\n"
            "IREE's choice, <- input the input's own config, <- --config the one given.\n",
            ls_hw_names());
}

/* A message past its "file:line:col: " (the sweep's errors name the op). */
static const char *reason_of(const char *msg)
{
    for (const char *p = msg; (p = strchr(p, ':')) != NULL; p++) {
        const char *q = p + 1;
        int fields = 0;
        while (fields < 2 && *q >= '0' && *q <= '9') {
            while (*q >= '0' && *q <= '9')
                q++;
            if (*q != ':')
                break;
            q++;
            fields++;
        }
        if (fields == 2 && *q == ' ')
            return q + 1;
    }
    return msg;
}

void ls_sweep_print_failures(FILE *f, const char *const *errors, size_t n, const char *csv_path)
{
    if (n == 0)
        return;
    fprintf(f, "  %zu config%s did not simulate (%s):\n", n, ls_s((long long)n),
            csv_path ? "the CSV's error column has each one's" : "--csv FILE lists each one's");
    bool *done = ls_xcalloc(n, sizeof *done);
    for (int shown = 0; shown < 3; shown++) {
        size_t best = n, best_count = 0;
        for (size_t i = 0; i < n; i++) {
            if (done[i])
                continue;
            size_t c = 0;
            for (size_t j = i; j < n; j++)
                c += !done[j] && strcmp(reason_of(errors[i]), reason_of(errors[j])) == 0;
            if (c > best_count)
                best = i, best_count = c;
        }
        if (best == n)
            break;
        const char *r = reason_of(errors[best]);
        fprintf(f, "    %zu: %s\n", best_count, r);
        for (size_t j = best; j < n; j++)
            if (!done[j] && strcmp(r, reason_of(errors[j])) == 0)
                done[j] = true;
    }
    size_t left = 0;
    for (size_t i = 0; i < n; i++)
        left += !done[i];
    if (left > 0)
        fprintf(f, "    %zu for other reasons\n", left);
    free(done);
}

int ls_sweep_write_files(ls_out *csv, const char *csv_path, const char *chart_path,
                         const ls_chart *chart, const char *roof_path, const ls_chart *roof,
                         const char *src, ls_diag *diag)
{
    const char *paths[2] = {chart_path, roof_path}, *kinds[2] = {"sweep", "roofline"};
    const ls_chart *charts[2] = {chart, roof};
    ls_out_set_begin(); /* the CSV and the charts as one set: never a new one beside an old one */
    for (int i = 0; i < 2; i++) {
        ls_export_opts eo = {src, kinds[i], 2.0, NULL};
        if (paths[i] && ls_viz_export(paths[i], NULL, charts[i], &eo, diag)) {
            ls_out_discard(csv);
            ls_out_set_abort();
            return -1;
        }
    }
    if (csv_path && ls_out_commit(csv, csv_path)) {
        ls_out_set_abort();
        return 1;
    }
    if (!csv_path)
        ls_out_discard(csv);
    char err[512];
    if (ls_out_set_commit(err, sizeof err) != 0) {
        ls_cli_error(CMD, "%s", err);
        return 1;
    }
    return 0;
}

void ls_sweep_print_wrote(FILE *f, const char *csv_path, const char *chart_path,
                          const char *roof_path)
{
    const char *wrote[3] = {csv_path, chart_path, roof_path};
    int n = 0;
    for (int i = 0; i < 3; i++) {
        if (!wrote[i])
            continue;
        fprintf(f, "%s%s", n ? " and " : "  wrote ", wrote[i]);
        n++;
    }
    if (n)
        fputc('\n', f);
}

static void progress(void *ctx, size_t done, size_t total)
{
    ls_cli_progress_update(ctx, (int64_t)done, (int64_t)total);
}

static void knobs(char *buf, size_t size, const ls_sweep_point *pt)
{
    if (pt->tile_and_fuse) {
        snprintf(buf, size, "TileAndFuse: sg %lld wg %lld, each thread reduces its own outputs",
                 (long long)pt->subgroup_size, (long long)pt->workgroup_size);
        return;
    }
    snprintf(buf, size, "sg %lld wg %lld thread %lld lanes %lldx%lld subgroups %lld partial %lld rows %lld",
             (long long)pt->subgroup_size, (long long)pt->workgroup_size, (long long)pt->thread,
             (long long)pt->lanes_red, (long long)pt->lanes_par, (long long)pt->subgroups,
             (long long)pt->partial, (long long)pt->rows);
}

void ls_sweep_roof_point(ls_roof_point *r, size_t k, const ls_sweep_roof_in *in, const ls_hw *hw)
{
    r->intensity = in->dram_bytes > 0 ? in->ops / (double)in->dram_bytes : 0;
    r->gops = in->kernel_us > 0 ? in->ops / (in->kernel_us * 1e3) : 0;
    r->mlp_gops = in->mlp_cap > 0 && in->mlp_cap < 1 ? r->intensity * hw->dram_gbps * in->mlp_cap
                                                     : 0;
    snprintf(r->name, sizeof r->name, "rank %zu%s%s", k + 1, in->iree ? " (IREE's)" : "",
             in->input ? " (given)" : "");
    if (k == 0 || in->iree || in->input)
        snprintf(r->verdict, sizeof r->verdict, "%.3f us, %.0f GB/s, bound by %s; %s",
                 in->time_us, in->dram_gbps, in->bottleneck, in->config);
}

void ls_sweep_roofline_chart(const char *name, const ls_hw *hw, const ls_roof_point *pts,
                             size_t ok, const char *ops, ls_chart *out)
{
    char title[256], sub[256];
    snprintf(title, sizeof title, "Config roofline: %.200s on %s", name, hw->name);
    snprintf(sub, sizeof sub, "%zu config%s simulated; ops = %s", ok, ls_s((long long)ok), ops);
    ls_viz_roofline(title, sub, pts, ok, hw->dram_gbps, ls_viz_issue_gops(hw), out);
}

/* Every simulated config as a roofline point, in rank order; the best,
 * IREE's and the input's (or --config's) are numbered with a note. */
static void sweep_roofline(const ls_problem *p, const ls_hw *hw, const ls_sweep *sw,
                           const size_t *order, size_t ok, ls_chart *out)
{
    ls_roof_point *pts = ls_xcalloc(ok ? ok : 1, sizeof *pts);
    for (size_t k = 0; k < ok; k++) {
        const ls_sweep_point *pt = &sw->points[order[k]];
        char cfg[160];
        knobs(cfg, sizeof cfg, pt);
        ls_sweep_roof_in in = {pt->ops,          pt->kernel_us, pt->mlp_cap,  pt->time_us,
                               pt->dram_gbps,    pt->dram_bytes, pt->bottleneck, cfg,
                               pt->is_iree && !sw->iree_rejected, pt->is_input};
        ls_sweep_roof_point(&pts[k], k, &in, hw);
    }
    ls_sweep_roofline_chart(p->name, hw, pts, ok, "iteration-space elements x (1 + fused body ops)",
                            out);
    free(pts);
}

/* What the command line asked for. */
typedef struct {
    const char *target, *input;
    ls_cli_problem_flags pf;
    /* no file unless asked for: nothing dropped into the current folder */
    const char *csv_path, *chart_path, *roof_path;
    ls_import_dims dims;
    int64_t jobs, max_configs, top, index;
    bool quiet, force, max_given;
} sweep_opts;

/* The flags into *o: -1 to go on, else the exit code (0 after --help). */
static int parse_args(int argc, char **argv, sweep_opts *o)
{
    enum { O_TARGET = 256, O_MAX, O_CSV, O_CHART, O_TOP, O_INDEX, O_DIM, O_QUIET, O_FORCE, O_ROOF };
    static const struct option longopts[] = {
        {"target", required_argument, NULL, O_TARGET},
        {"quiet", no_argument, NULL, O_QUIET},
        {"force", no_argument, NULL, O_FORCE},
        {"jobs", required_argument, NULL, 'j'},
        {"max-configs", required_argument, NULL, O_MAX},
        {"csv", required_argument, NULL, O_CSV},
        {"chart", required_argument, NULL, O_CHART},
        {"top", required_argument, NULL, O_TOP},
        {"index", required_argument, NULL, O_INDEX},
        {"help", no_argument, NULL, 'h'},
        {"dim", required_argument, NULL, O_DIM},
        {"roofline", required_argument, NULL, O_ROOF},
        LS_CLI_PROBLEM_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":j:h", longopts, NULL)) != -1) {
        switch (c) {
        case O_TARGET:
            if (!ls_flag_once(CMD, "--target", &o->target, optarg))
                return 2;
            break;
        case O_QUIET: o->quiet = true; break;
        case O_FORCE:
            o->force = true;
            break;
        LS_CLI_PROBLEM_CASES:
            if (ls_cli_problem_flag(CMD, &o->pf, c, optarg) < 0)
                return 2;
            break;
        case O_DIM:
            if (!ls_flag_dim(CMD, optarg, &o->dims))
                return 2;
            break;
        case O_CSV:
            if (!ls_flag_once(CMD, "--csv", &o->csv_path, optarg))
                return 2;
            break;
        case O_CHART:
            if (!ls_flag_once(CMD, "--chart", &o->chart_path, optarg))
                return 2;
            break;
        case O_ROOF:
            if (!ls_flag_once(CMD, "--roofline", &o->roof_path, optarg))
                return 2;
            break;
        case 'j':
            if (!ls_flag_int(CMD, "-j", optarg, 1, LS_SWEEP_MAX_JOBS, &o->jobs))
                return 2;
            break;
        case O_MAX:
            if (!ls_flag_int(CMD, "--max-configs", optarg, 1, LS_SWEEP_MAX_CONFIGS,
                             &o->max_configs))
                return 2;
            o->max_given = true;
            break;
        case O_TOP:
            if (!ls_flag_int(CMD, "--top", optarg, 0, 1000, &o->top))
                return 2;
            break;
        case O_INDEX:
            if (!ls_flag_int(CMD, "--index", optarg, 0, LS_IMPORT_MAX_ITEMS - 1, &o->index))
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        case ':': ls_cli_error(CMD, "%s needs a value", argv[optind - 1]); return 2;
        default:
            ls_cli_error(CMD, "unknown option '%s' (see lanescope sweep --help)",
                         argv[optind - 1]);
            return 2;
        }
    }
    o->input = optind < argc ? argv[optind] : NULL;
    if (!ls_cli_problem_source(CMD, o->input, &o->pf))
        return 2;
    if (argc - optind > 1 || (o->input == NULL && o->pf.shape == NULL)) {
        ls_cli_error(CMD, "give one INPUT (.mlir) or --shape/--iter, exactly one of them");
        return 2;
    }
    const char *pictures[2][2] = {{"--chart", o->chart_path}, {"--roofline", o->roof_path}};
    for (int i = 0; i < 2; i++) {
        const char *ext = pictures[i][1] ? strrchr(pictures[i][1], '.') : ".png";
        if (ext == NULL || (strcmp(ext, ".png") && strcmp(ext, ".svg") && strcmp(ext, ".pdf"))) {
            ls_cli_error(CMD, "%s: '%s' needs a .png, .svg or .pdf extension", pictures[i][0],
                         pictures[i][1]);
            return 2;
        }
    }
    return -1;
}

/* Every point as a CSV row, in rank order (failed points rank 0). */
static void write_csv_rows(FILE *f, const ls_sweep *sw, const size_t *order)
{
    fprintf(f, "rank,iree,input,subgroup_size,workgroup_size,thread,lanes_reduction,"
               "lanes_parallel,subgroups,partial_reduction,rows_per_workgroup,workgroups,cycles,"
               "time_us,dram_gbps,fraction_of_peak,occupancy,waves,lowering_config,error\n");
    for (size_t k = 0; k < sw->n; k++) {
        const ls_sweep_point *pt = &sw->points[order[k]];
        char cfg[1024];
        ls_lowering_config_format(&pt->config, cfg, sizeof cfg);
        fprintf(f,
                "%zu,%d,%d,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%.4f,%.2f,%.4f,%lld,"
                "%lld,\"%s\",\"%s\"\n",
                pt->status == LS_OK ? k + 1 : 0, pt->is_iree, pt->is_input,
                (long long)pt->subgroup_size, (long long)pt->workgroup_size, (long long)pt->thread,
                (long long)pt->lanes_red, (long long)pt->lanes_par, (long long)pt->subgroups,
                (long long)pt->partial, (long long)pt->rows, (long long)pt->workgroups,
                (long long)pt->cycles, pt->time_us, pt->dram_gbps, pt->dram_fraction,
                (long long)pt->occupancy, (long long)pt->waves, cfg, pt->error);
    }
}

/* A ranked sweep, with what the report says about it. */
typedef struct {
    const ls_problem *p;
    const ls_hw *hw;
    const ls_sweep *sw;
    const size_t *order;
    size_t ok, iree_rank;
    double elapsed, roof_us;
    int64_t min_bytes;
    int loops;
} sweep_ranked;

/* Where IREE's choice and the input's config rank. */
static void print_choices(FILE *f, const sweep_ranked *r, const sweep_opts *o)
{
    const ls_sweep *sw = r->sw;
    const ls_sweep_point *best = &sw->points[r->order[0]];
    char kn[200], cfg[1024];
    if (sw->iree_rejected) {
        fprintf(f, "  IREE's choice: none (%s)\n", sw->iree_why);
    } else if (r->iree_rank > 0) {
        const ls_sweep_point *pt = &sw->points[sw->iree];
        knobs(kn, sizeof kn, pt);
        ls_lowering_config_format(&pt->config, cfg, sizeof cfg);
        fprintf(f,
                "  IREE's choice ranks %zu of %zu: %.3f us = %.2fx the best (%.3f us), "
                "%.1f%% of the DRAM roofline\n    %s\n    %s\n",
                r->iree_rank, r->ok, pt->time_us, pt->time_us / best->time_us, best->time_us,
                100 * r->roof_us / pt->time_us, kn, cfg);
    }
    if (!sw->has_input)
        return;
    const ls_sweep_point *pt = &sw->points[sw->input];
    size_t in_rank = 0;
    for (size_t k = 0; k < r->ok; k++)
        if (r->order[k] == sw->input)
            in_rank = k + 1;
    ls_lowering_config_format(&pt->config, cfg, sizeof cfg);
    const char *whose = o->pf.config ? "the config of --config" : "the input's config";
    if (in_rank > 0)
        fprintf(f,
                "  %s ranks %zu of %zu: %.3f us = %.2fx the best, %.1f%% "
                "of the DRAM roofline%s\n    %s\n",
                whose, in_rank, r->ok, pt->time_us, pt->time_us / best->time_us,
                100 * r->roof_us / pt->time_us, pt->is_iree ? " (it is IREE's choice)" : "", cfg);
    else
        fprintf(f, "  %s does not simulate: %s\n    %s\n", whose, pt->error, cfg);
}

/* The report on standard output: the top points, IREE's and the input's
 * ranks, the failures by reason, the files written. */
static void print_report(FILE *f, const sweep_ranked *r, const sweep_opts *o)
{
    const ls_sweep *sw = r->sw;
    const ls_hw *hw = r->hw;
    fprintf(f,
            "sweep of %s on %s (%s): %zu config%s simulated in %.1f s on %lld thread%s, %.3g "
            "subgroup-instructions",
            r->p->name, hw->name, hw->arch, r->ok, ls_s((long long)r->ok), r->elapsed,
            (long long)o->jobs, o->jobs == 1 ? "" : "s", (double)sw->estimate);
    if (sw->enumerated > sw->n)
        fprintf(f, " (an evenly spaced %zu of %zu valid)", sw->n, sw->enumerated);
    fprintf(f, "\n");
    if (sw->module)
        fprintf(f,
                "  each config given to every op of the dispatch: its one kernel of %d loops "
                "timed, as sim times it\n",
                r->loops);
    fprintf(f, "  DRAM roofline: %.3f MB at %.0f GB/s = %.3f us\n", (double)r->min_bytes / 1e6,
            hw->dram_gbps, r->roof_us);
    fprintf(f, "  %5s %10s %7s  %s\n", "rank", "time_us", "%roof", "config");
    for (size_t k = 0; k < r->ok && k < (size_t)o->top; k++) {
        const ls_sweep_point *pt = &sw->points[r->order[k]];
        char kn[200];
        knobs(kn, sizeof kn, pt);
        fprintf(f, "  %5zu %10.3f %7.1f  %s%s%s\n", k + 1, pt->time_us,
                100 * r->roof_us / pt->time_us, kn, pt->is_iree ? "  <- IREE" : "",
                pt->is_input ? (o->pf.config ? "  <- --config" : "  <- input") : "");
    }
    print_choices(f, r, o);
    if (r->ok < sw->n) {
        const char **errors = ls_xcalloc(sw->n - r->ok, sizeof *errors);
        for (size_t k = 0, j = 0; k < sw->n; k++)
            if (sw->points[k].status != LS_OK)
                errors[j++] = sw->points[k].error;
        ls_sweep_print_failures(f, errors, sw->n - r->ok, o->csv_path);
        free(errors);
    }
    ls_sweep_print_wrote(f, o->csv_path, o->chart_path, o->roof_path);
}

/* A module of attentions only: the attention sweep, or the flags it does
 * not take refused.  The exit code. */
static int sweep_attention_of(ls_module *m, const sweep_opts *o)
{
    /* what a reduction's sweep takes and an attention's does not */
    const char *no = o->max_given ? "--max-configs" : o->pf.config ? "--config" : NULL;
    if (no) {
        ls_cli_error(CMD,
                     "%s: an attention's sweep tries IREE's attention rules with other "
                     "seeds (at most 120 configs), and takes no %s",
                     no, no);
        return 2;
    }
    if ((size_t)o->index >= m->n_attentions) {
        ls_diag diag;
        ls_diag_clear(&diag);
        ls_diag_set(&diag, LS_ERR_USAGE, "--index", 0, 0,
                    "%s has %zu attention op%s; --index %lld is outside 0..%zu", o->input,
                    m->n_attentions, ls_s((long long)m->n_attentions), (long long)o->index,
                    m->n_attentions - 1);
        ls_cli_report(CMD, &diag);
        return 2;
    }
    ls_sweep_args sa = {o->input, o->target, o->csv_path, o->chart_path, o->roof_path,
                        o->jobs,  o->top,    o->quiet,    o->force};
    return ls_sweep_attention(m, (size_t)o->index, &sa);
}

/* The simulated points ranked (order: fastest first), IREE's config's
 * rank, the valid count, and the roof: every byte once at peak bandwidth,
 * plus the launch. */
static void rank_points(sweep_ranked *r, size_t *order)
{
    r->order = order;
    r->iree_rank = ls_sweep_rank(r->sw, order);
    for (size_t i = 0; i < r->sw->n; i++)
        r->ok += r->sw->points[i].status == LS_OK;
    r->min_bytes = ls_sweep_kernel_min_bytes(r->p, r->sw, r->hw);
    r->roof_us = (double)r->min_bytes / (r->hw->dram_gbps * 1e3) + r->hw->launch_us;
}

/* The ranked times' chart (us: room for r->ok times), IREE's config and
 * the roof marked. */
static void sweep_chart(const sweep_ranked *r, double *us, ls_chart *chart)
{
    const ls_sweep *sw = r->sw;
    for (size_t k = 0; k < r->ok; k++)
        us[k] = sw->points[r->order[k]].time_us;
    char title[256], sub[256]; /* the names' bounds: 128 and 32 bytes */
    snprintf(title, sizeof title, "Config sweep: %.127s on %.31s", r->p->name, r->hw->name);
    snprintf(sub, sizeof sub, "%zu config%s simulated (%zu valid in all), DRAM roofline %.3g us",
             r->ok, ls_s((long long)r->ok), sw->enumerated, r->roof_us);
    ls_viz_sweep(title, sub, us, r->ok,
                 sw->points[sw->iree].is_iree && !sw->iree_rejected ? r->iree_rank : 0, r->roof_us,
                 chart);
}

/* Whether the module has the reduction --index names (diag says why not). */
static bool index_ok(const ls_module *m, const sweep_opts *o, const char *name, ls_diag *diag)
{
    if (m->n_problems == 0) {
        ls_diag_set(diag, LS_ERR_NOTFOUND, o->input, 0, 0,
                    "no linalg.generic/linalg.reduce with a reduction to sweep");
        return false;
    }
    if ((size_t)o->index >= m->n_problems) {
        ls_diag_set(diag, LS_ERR_USAGE, "--index", 0, 0,
                    "%s has %zu reduction%s; --index %lld is outside 0..%zu", name, m->n_problems,
                    ls_s((long long)m->n_problems), (long long)o->index, m->n_problems - 1);
        return false;
    }
    return true;
}

int ls_cmd_sweep(int argc, char **argv)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    sweep_opts o = {.jobs = ncpu > 0 ? ncpu : 1, .max_configs = 2000, .top = 10};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    const char *name = o.input ? o.input : "--shape";
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_sweep sw = {0};
    size_t *order = NULL;
    double *us = NULL;
    ls_chart chart = {0}, roof = {0};
    rc = 1;
    ls_out out, csv;
    bool out_open = false, csv_open = false;
    ls_problem *p;
    o.pf.import_flags |= LS_IMPORT_ATTENTION; /* a file of an attention sweeps it */
    if (ls_cli_problem_load(o.input, &o.pf, &o.dims, m, &diag))
        goto fail;
    if (m->n_problems == 0 && m->n_attentions > 0) {
        rc = sweep_attention_of(m, &o);
        goto done;
    }
    if (!index_ok(m, &o, name, &diag))
        goto fail;
    p = &m->problems[o.index];
    bool had_config = p->has_config; /* the input's own config is ranked too */
    p->has_config = true; /* the sweep sets its own; keep ls_cli_model from suggesting */
    ls_hw hw;
    if (ls_cli_model(m, p, o.target, &hw, &diag))
        goto fail;
    const ls_dispatch *d = p->dispatch >= 0 ? &m->dispatches[p->dispatch] : NULL;
    if (ls_sweep_enumerate(p, d, &p->target, (size_t)o.max_configs, &sw, &diag))
        goto fail;
    if (had_config)
        ls_sweep_add_input(p, &sw);
    sw.force = o.force;
    /* a reduction of a dispatch of several loops: each config given to
     * every op, the one kernel timed (fused.h), as sim times the dispatch */
    size_t first = ls_fused_first(m, (size_t)o.index);
    sweep_ranked r = {.p = p, .hw = &hw, .sw = &sw, .loops = ls_fused_loops(m, first)};
    if (r.loops > 1) {
        sw.module = m;
        sw.lead = first;
    }
    ls_cli_progress bs;
    ls_cli_progress_init(&bs, CMD, p->name, "configs", o.quiet);
    double t0 = ls_cli_now();
    ls_status st = ls_sweep_run(p, &hw, &sw, (int)o.jobs, progress, &bs, &diag);
    r.elapsed = ls_cli_now() - t0;
    ls_cli_progress_end(&bs);
    if (st)
        goto fail;
    order = ls_xcalloc(sw.n, sizeof *order);
    rank_points(&r, order);

    ls_out_open(&csv);
    csv_open = true;
    write_csv_rows(csv.f, &sw, order);
    us = ls_xcalloc(r.ok ? r.ok : 1, sizeof *us);
    sweep_chart(&r, us, &chart);
    if (o.roof_path)
        sweep_roofline(p, &hw, &sw, order, r.ok, &roof);
    int w = ls_sweep_write_files(&csv, o.csv_path, o.chart_path, &chart, o.roof_path, &roof, name,
                                 &diag);
    csv_open = false;
    if (w < 0)
        goto fail;
    if (w > 0)
        goto done;
    ls_out_open(&out);
    out_open = true;
    print_report(out.f, &r, &o);
    rc = ls_out_commit(&out, NULL);
    out_open = false;
    goto done;
fail:
    ls_cli_report(CMD, &diag);
    rc = diag.status == LS_ERR_USAGE ? 2 : 1;
done:
    if (out_open)
        ls_out_discard(&out);
    if (csv_open)
        ls_out_discard(&csv);
    ls_chart_free(&chart);
    ls_chart_free(&roof);
    free(us);
    free(order);
    ls_sweep_free(&sw);
    free(m);
    ls_viz_shutdown();
    return rc;
}
