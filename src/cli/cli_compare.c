/* cli_compare.c: `lanescope compare` -- every case of a suite simulated on
 * a hardware model and set against its measured time (from a CSV, or
 * measured here on an NVIDIA GPU through the CUDA path): a table, the error
 * figures, the rank agreement within groups of configs, the issue's
 * targets; optionally JSON, a CSV that `lanescope draw compare` reads, a
 * scatter chart, and the measured rows with their provenance.
 *
 * Nothing is written until every case has been simulated (and measured):
 * a failure part way leaves no output file behind.  The statistics live in
 * the library (compare.h); this file runs things and formats them. */
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_compare.h"
#include "cli_sim.h"
#include "config.h"
#include "lanescope/compare.h"
#include "lanescope/engine.h"
#include "lanescope/functional.h"
#include "lanescope/import.h"
#include "lanescope/measure.h"
#include "lanescope/viz.h"

_Static_assert(LS_COMPARE_MAX_REDUCTION == LS_IMPORT_MAX_ITEMS,
               "reduction=K reaches every reduction an input can hold");

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lanescope compare SUITE [--target MODEL] [--measured FILE.csv]\n"
            "                         [--save-measured FILE.csv] [--csv FILE]\n"
            "                         [--chart FILE.png|.svg|.pdf] [--json] [-o FILE]\n"
            "                         [--runs N] [--warmup N] [--repeat N] [--device N]\n"
            "                         [--allow-missing]\n"
            "                         [--quiet]\n"
            "\n"
            "Simulate every case of SUITE on a hardware model and compare the simulated time\n"
            "with the measured one: a table (name, group, simulated, measured, error), the\n"
            "mean, worst and 90th-percentile absolute error, Pearson's r, and within each\n"
            "group of configs of one problem how well the simulator ranks them (Spearman's\n"
            "rho, Kendall's tau-b), with the targets of issue 11: mean |error| < 10%%, worst\n"
            "< 25%%, Kendall tau-b > 0.8 in every group.  error = (simulated - measured) /\n"
            "measured.\n"
            "\n"
            "SUITE: lines of NAME FILE [group=G] [note=\"...\"] [reduction=K] [kernel=dispatch]\n"
            "(examples/suite/suite.txt; the format is in its header; reduction=K picks the\n"
            "K-th reduction of a multi-op FILE, a softmax's sum say, measured as its own\n"
            "kernel; kernel=dispatch makes the case the dispatch as the one kernel `sim`\n"
            "times).  Measured times come from --measured, or, without it, from running\n"
            "each case on the GPU (as `lanescope measure` does).\n"
            "\n"
            "  --target MODEL        hardware model for the simulation (default h100):\n"
            "                        %s, or a .hw file\n"
            "  --measured FILE.csv   measured times (the format --save-measured writes)\n"
            "  --allow-missing       skip cases without a measured row (counted) instead of\n"
            "                        failing\n"
            "  --save-measured FILE  write the rows measured on the GPU, with provenance\n"
            "  --runs N, --warmup N  timed runs per case (default 20) and untimed ones before\n"
            "                        (default 3); the L2 is flushed before each timed run\n"
            "  --repeat N            measure the whole suite N times, round after round\n"
            "                        (default 1); a case's time is the median of its\n"
            "                        rounds' medians, so a stretch of disturbed GPU time\n"
            "                        spoils one round, not the case\n"
            "  --device N            GPU ordinal (default 0)\n"
            "  --json                the same facts as JSON\n"
            "  --csv FILE            name,measured_us,simulated_us (for lanescope draw compare)\n"
            "  --chart FILE          the simulated-vs-measured scatter (.png, .svg, .pdf)\n"
            "  -o FILE               write the report to FILE instead of standard output\n"
            "  -h, --help            this help\n"
            "  --quiet               no progress lines (on a terminal: one line redrawn;\n"
            "                        elsewhere a line every $LANESCOPE_PROGRESS_SECONDS s, 10)\n"
            "\n"
            "Every file is written atomically, and only when the whole suite went through.\n"
            "Exit status: 0 (whether or not the targets hold), 1 error, 2 usage, 3 no NVIDIA\n"
            "driver/GPU to measure on (give --measured FILE.csv).\n",
            ls_hw_names());
}


static bool chart_ext_ok(const char *path)
{
    const char *ext = strrchr(path, '.');
    return ext &&
           (strcmp(ext, ".png") == 0 || strcmp(ext, ".svg") == 0 || strcmp(ext, ".pdf") == 0);
}

/* The operand and the flags' combinations, after getopt: -1 to go on,
 * else the exit code. */
static int check_args(int argc, char **argv, compare_args *a)
{
    if (a->target == NULL)
        a->target = "h100"; /* the default machine */
    if (argc - optind != 1) {
        ls_cli_error(CMD, "expected one SUITE file (see lanescope compare --help)");
        return 2;
    }
    a->suite = argv[optind];
    if (a->chart && !chart_ext_ok(a->chart)) {
        ls_cli_error(CMD, "--chart: '%s' needs a .png, .svg or .pdf extension", a->chart);
        return 2;
    }
    if (a->measured && a->save) {
        ls_cli_error(CMD, "--save-measured writes what is measured on the GPU; with --measured "
                          "nothing is");
        return 2;
    }
    if (a->measured && a->runs_given) {
        ls_cli_error(CMD, "--runs, --warmup, --repeat and --device apply to measuring on the "
                          "GPU, not to --measured");
        return 2;
    }
    if (a->allow_missing && !a->measured) {
        ls_cli_error(CMD, "--allow-missing applies to --measured");
        return 2;
    }
    return -1;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, compare_args *a)
{
    enum {
        O_TARGET = 256,
        O_MEAS,
        O_SAVE,
        O_CSV,
        O_CHART,
        O_JSON,
        O_RUNS,
        O_WARM,
        O_DEV,
        O_REPEAT,
        O_MISSING,
        O_QUIET
    };
    static const struct option longopts[] = {
        {"target", required_argument, NULL, O_TARGET},
        {"measured", required_argument, NULL, O_MEAS},
        {"save-measured", required_argument, NULL, O_SAVE},
        {"csv", required_argument, NULL, O_CSV},
        {"chart", required_argument, NULL, O_CHART},
        {"json", no_argument, NULL, O_JSON},
        {"runs", required_argument, NULL, O_RUNS},
        {"warmup", required_argument, NULL, O_WARM},
        {"device", required_argument, NULL, O_DEV},
        {"repeat", required_argument, NULL, O_REPEAT},
        {"allow-missing", no_argument, NULL, O_MISSING},
        {"quiet", no_argument, NULL, O_QUIET},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->runs = 20;
    a->warmup = 3;
    a->repeat = 1;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case O_TARGET:
            if (!ls_flag_once(CMD, "--target", &a->target, optarg))
                return 2;
            break;
        case O_MEAS:
            if (!ls_flag_once(CMD, "--measured", &a->measured, optarg))
                return 2;
            break;
        case O_SAVE:
            if (!ls_flag_once(CMD, "--save-measured", &a->save, optarg))
                return 2;
            break;
        case O_CSV:
            if (!ls_flag_once(CMD, "--csv", &a->csv, optarg))
                return 2;
            break;
        case O_CHART:
            if (!ls_flag_once(CMD, "--chart", &a->chart, optarg))
                return 2;
            break;
        case O_JSON: a->json = true; break;
        case O_MISSING: a->allow_missing = true; break;
        case O_QUIET: a->quiet = true; break;
        case 'o':
            if (!ls_flag_once(CMD, "-o", &a->output, optarg))
                return 2;
            break;
        case O_RUNS:
            a->runs_given = true;
            if (!ls_flag_int(CMD, "--runs", optarg, 1, 100000, &a->runs))
                return 2;
            break;
        case O_WARM:
            a->runs_given = true;
            if (!ls_flag_int(CMD, "--warmup", optarg, 0, 100000, &a->warmup))
                return 2;
            break;
        case O_REPEAT:
            a->runs_given = true;
            if (!ls_flag_int(CMD, "--repeat", optarg, 1, LS_COMPARE_MAX_REPEAT, &a->repeat))
                return 2;
            break;
        case O_DEV:
            a->runs_given = true;
            if (!ls_flag_int(CMD, "--device", optarg, 0, 1024, &a->device))
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        case ':': ls_cli_error(CMD, "%s needs a value", argv[optind - 1]); return 2;
        default:
            ls_cli_error(CMD, "unknown option '%s' (see lanescope compare --help)",
                         argv[optind - 1]);
            return 2;
        }
    }
    return check_args(argc, argv, a);
}


/* A measured run as a row of the measured CSV. */
static void fill_row(const ls_suite_case *sc, const measurer *ms, const ls_measure_result *mr,
                     ls_measured_row *row)
{
    memset(row, 0, sizeof *row);
    snprintf(row->name, sizeof row->name, "%s", sc->name);
    row->measured_us = mr->median_us;
    row->min_us = mr->min_us;
    row->max_us = mr->max_us;
    row->runs = mr->runs;
    row->gbytes_per_s = mr->gbytes_per_s;
    row->copy_fraction = mr->copy_fraction;
    row->launch_us = mr->launch_us;
    snprintf(row->gpu, sizeof row->gpu, "%.127s", ms->gi->name);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(row->date, sizeof row->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* kernel=dispatch: the dispatch of reduction k as its one kernel (every
 * plan built, the kernel as `sim` times it), simulated and, with a GPU,
 * measured with every phase checked. */
static ls_status run_dispatch(const compare_args *a, const ls_suite_case *sc, measurer *ms,
                              ls_module *m, size_t k, case_result *res, ls_measured_row *row,
                              ls_diag *diag)
{
    ls_derived *d = ls_xcalloc(m->n_problems, sizeof *d);
    ls_plan *plans = ls_xcalloc(m->n_problems, sizeof *plans);
    ls_fused_kernel *fk = ls_xmalloc(sizeof *fk);
    ls_hw hw;
    ls_sim_result r;
    ls_status st = LS_OK;
    size_t lead = ls_fused_first(m, k);
    for (size_t i = 0; i < m->n_problems && !st; i++) {
        ls_problem *p = &m->problems[i];
        ls_hw h;
        if (!(st = ls_cli_model(m, p, a->target, &h, diag)) && !(st = ls_derive(p, &d[i], diag)))
            st = ls_plan_build(p, &d[i], ls_plan_target_from_arch(h.arch), &plans[i], diag);
        if (i == lead)
            hw = h;
    }
    char why[512];
    if (!st && !ls_fused_build(m, lead, plans, fk, why, sizeof why))
        st = ls_diag_set(diag, LS_ERR_INVALID, sc->path, 0, 0,
                         "kernel=dispatch: the dispatch of %s is not one kernel: %s",
                         m->problems[lead].name, why[0] ? why : "it has one loop only");
    if (!st)
        st = ls_engine_run(&fk->plan, &hw, &r, NULL, diag);
    if (!st) {
        res->c.simulated_us = r.time_us;
        res->cycles = r.cycles;
        res->suggested = m->problems[lead].config_suggested;
        snprintf(res->op, sizeof res->op, "%.90s's dispatch: one kernel of %d loops",
                 m->problems[lead].name, fk->n_phases);
    }
    if (!st && ms->gpu) {
        int64_t unroll[LS_FUSED_MAX_PHASES];
        ls_engine_fused_unrolls(fk, &hw, unroll);
        ls_measure_result mr;
        ls_cuda_fused_check chk;
        if (!(st = ls_measure_run_fused(ms->gpu, fk, unroll, 1, &ms->mo, ms->copy_gbps, &mr, &chk,
                                        diag))) {
            ms->copy_gbps = mr.copy_gbps;
            fill_row(sc, ms, &mr, row);
        }
    }
    free(fk);
    free(plans);
    free(d);
    return st;
}

/* A file whose one op is a decode attention: the kernel `sim` times, and
 * with a GPU the kernel `measure` runs (outputs equal to the simulator's
 * lowered values bit for bit). */
static ls_status run_attention(const compare_args *a, const ls_suite_case *sc, measurer *ms,
                               ls_module *m, case_result *res, ls_measured_row *row, ls_diag *diag)
{
    ls_hw hw;
    ls_attention *att = NULL;
    ls_att_view *v = NULL;
    ls_sim_result r;
    ls_status st = ls_cli_attention_view(m, 0, a->target, &hw, &att, &v, diag);
    if (!st)
        st = ls_engine_run(ls_att_view_plan(v), &hw, &r, NULL, diag);
    if (!st) {
        res->c.simulated_us = r.time_us;
        res->cycles = r.cycles;
        res->suggested = att->suggested;
        snprintf(res->op, sizeof res->op, "%s", att->name);
    }
    if (!st && ms->gpu) {
        ls_measure_result mr;
        ls_cuda_att_check chk;
        if (!(st = ls_measure_run_attention(ms->gpu, m, &m->attentions[0], att, v, 1, &ms->mo,
                                            ms->copy_gbps, &mr, &chk, diag))) {
            ms->copy_gbps = mr.copy_gbps;
            fill_row(sc, ms, &mr, row);
        }
    }
    ls_att_view_free(v);
    free(att);
    return st;
}

/* The .mlir of one case through the simulator (and, when ms->gpu, the
 * GPU): res->c.simulated_us, and *row when measured. */
static ls_status run_case(const compare_args *a, const ls_suite_case *sc, measurer *ms,
                          case_result *res, ls_measured_row *row, ls_diag *diag)
{
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_derived *d = ls_xcalloc(1, sizeof *d);
    ls_plan *plan = ls_xcalloc(1, sizeof *plan);
    ls_hw hw;
    ls_sim_result r;
    ls_status st = ls_module_load_ex(sc->path, LS_IMPORT_ATTENTION, m, diag);
    size_t k = sc->reduction ? (size_t)sc->reduction - 1 : 0;
    if (!st && m->n_problems == 0 && m->n_attentions == 1 && !sc->reduction && !sc->dispatch) {
        st = run_attention(a, sc, ms, m, res, row, diag);
        free(plan);
        free(d);
        free(m);
        return st;
    }
    if (!st && !sc->reduction && !sc->dispatch && m->n_problems != 1)
        st = ls_diag_set(diag, LS_ERR_INVALID, sc->path, 0, 0,
                         "%zu reductions; a suite case needs exactly one, or reduction=K on its "
                         "line to pick one", m->n_problems);
    if (!st && sc->reduction && k >= m->n_problems)
        st = ls_diag_set(diag, LS_ERR_INVALID, sc->path, 0, 0,
                         "reduction=%d, but the file holds %zu reduction%s", sc->reduction,
                         m->n_problems, m->n_problems == 1 ? "" : "s");
    if (!st && sc->dispatch) {
        st = run_dispatch(a, sc, ms, m, k, res, row, diag);
        free(plan);
        free(d);
        free(m);
        return st;
    }
    ls_problem *p = &m->problems[k];
    if (!st && !(st = ls_cli_model(m, p, a->target, &hw, diag)) && !(st = ls_derive(p, d, diag)) &&
        !(st = ls_plan_build(p, d, ls_plan_target_from_arch(hw.arch), plan, diag)))
        st = ls_engine_run(plan, &hw, &r, NULL, diag);
    if (!st) {
        res->c.simulated_us = r.time_us;
        res->cycles = r.cycles;
        res->suggested = p->config_suggested;
        snprintf(res->op, sizeof res->op, "%s", p->name);
    }
    if (!st && ms->gpu) {
        ls_input_source in = {1, NULL, {NULL}};
        ls_measure_result mr;
        ms->mo.unroll = r.unroll; /* the measured loop unrolled as the simulated one */
        /* another reduction's results (softmax's max) are inputs too: the
         * reference's values of that reduction, as `measure` binds them */
        if (!(st = ls_bind_intermediates(m->problems, m->n_problems, k, &in, diag)) &&
            !(st = ls_measure_run(ms->gpu, plan, in, &ms->mo, ms->copy_gbps, &mr, diag))) {
            ms->copy_gbps = mr.copy_gbps;
            fill_row(sc, ms, &mr, row);
        }
        ls_free_intermediates(&in);
    }
    free(plan);
    free(d);
    free(m);
    return st;
}

static void add_prov(ls_measured *m, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_prov(ls_measured *m, const char *key, const char *fmt, ...)
{
    if (m->n_prov == LS_COMPARE_MAX_PROV)
        return;
    ls_prov_entry *e = &m->prov[m->n_prov++];
    snprintf(e->key, sizeof e->key, "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->value, sizeof e->value, fmt, ap);
    va_end(ap);
}

/* Where and how the rows measured here were measured. */
static void gpu_provenance(ls_measured *m, const measurer *ms, const compare_args *a,
                           const char *date, int argc, char **argv)
{
    const ls_gpu_info *gi = ms->gi;
    add_prov(m, "gpu", "%s (sm_%d%d, %d SMs, %lld MB L2, %lld MB memory)", gi->name, gi->cc_major,
             gi->cc_minor, gi->sm_count, (long long)(gi->l2_bytes >> 20),
             (long long)(gi->total_mem >> 20));
    add_prov(m, "clocks",
             "SM %d MHz, memory %d MHz, %d-bit bus (the driver's reported maxima, "
             "not the clocks during the runs)",
             gi->clock_khz / 1000, gi->mem_clock_khz / 1000, gi->mem_bus_bits);
    add_prov(m, "driver", "%d.%d", gi->driver_version / 1000, (gi->driver_version % 1000) / 10);
    add_prov(m, "nvrtc", "%d.%d", gi->nvrtc_major, gi->nvrtc_minor);
    add_prov(m, "date", "%s", date);
    add_prov(m, "lanescope", "%s", PACKAGE_VERSION);
    char cmd[400];
    size_t u = (size_t)snprintf(cmd, sizeof cmd, "lanescope");
    for (int i = 0; i < argc && u < sizeof cmd; i++)
        u += (size_t)snprintf(cmd + u, sizeof cmd - u, " %s", argv[i]);
    add_prov(m, "command", "%s", cmd);
    char repeat_text[160] = "";
    if (a->repeat > 1)
        snprintf(repeat_text, sizeof repeat_text,
                 "the median over %lld rounds of the whole suite (round after round; min_us, "
                 "max_us and runs over all of them) of the ",
                 (long long)a->repeat);
    add_prov(m, "method",
             "%smedian of %lld timed launches (CUDA events), the L2 flushed before "
             "each (by reading twice its size), after at least %lld untimed ones and 25 ms of "
             "GPU time; launch_us: an empty kernel of the same grid timed alike; inputs from the simulator's generator "
             "(seed 1); every output checked against the reference",
             repeat_text, (long long)a->runs, (long long)a->warmup);
    add_prov(m, "copy_bandwidth", "%.0f GB/s device-to-device (copy_fraction's denominator)",
             ms->copy_gbps);
}

/* Opens the GPU; on failure prints the reason and returns the exit status. */
static int open_gpu(const compare_args *a, const ls_hw *hw, measurer *ms)
{
    if (strncmp(hw->arch, "sm_", 3) != 0) {
        ls_cli_error(CMD,
                     "--target %s (%s) is not an NVIDIA model: the CUDA path measures "
                     "NVIDIA plans (give --target h100, a100 or an NVIDIA .hw file, or "
                     "--measured FILE.csv)",
                     a->target, hw->arch);
        return 2;
    }
    ls_diag diag;
    ls_diag_clear(&diag);
    if (ls_gpu_open((int)a->device, &ms->gpu, &diag) == LS_OK) {
        ms->gi = ls_gpu_get_info(ms->gpu);
        char arch[32];
        ls_gpu_arch(ms->gpu, arch, sizeof arch);
        if (strcmp(arch, hw->arch) != 0)
            ls_cli_error(CMD, "note: measuring on %s (%s), simulating the %s model (%s)",
                         ms->gi->name, arch, hw->name, hw->arch);
        ms->mo.runs = (int)a->runs;
        ms->mo.warmup = (int)a->warmup;
        ms->mo.flush_l2 = true;
        return -1;
    }
    char msg[1024];
    ls_diag_format(&diag, msg, sizeof msg);
    if (diag.status != LS_ERR_UNAVAILABLE) {
        ls_cli_error(CMD, "%s", msg);
        return 1;
    }
    if (strncmp(msg, "no NVIDIA driver/GPU found (", 28) == 0)
        ls_cli_error(CMD, "%s; give --measured FILE.csv", msg);
    else
        ls_cli_error(CMD, "no NVIDIA driver/GPU found (%s); give --measured FILE.csv", msg);
    return LS_EXIT_NO_GPU;
}

/* ------------------------------------------------------------ the command */

/* Every case (with a measured row, when they come from a file) simulated,
 * and measured when ms->gpu, a->repeat rounds of the whole suite; measured
 * rows (each case's rounds folded) go to meas.  Returns the number of
 * results in cr, or SIZE_MAX after printing the error. */
static size_t run_all(const compare_args *a, const ls_suite *suite, const size_t *row_of,
                      measurer *ms, ls_measured *meas, case_result *cr)
{
    int64_t rounds = ms->gpu ? a->repeat : 1;
    size_t ns = suite->n;
    ls_cli_progress pr;
    ls_cli_progress_init(&pr, CMD, ms->gpu ? "simulating and measuring" : "simulating", "cases",
                         a->quiet);
    /* per suite case: its result (SIZE_MAX: none, or dropped), the rounds
     * it was measured in, and each round's row */
    size_t *res_of = ls_xmalloc((ns + 1) * sizeof *res_of);
    int64_t *n_rounds = ls_xcalloc(ns + 1, sizeof *n_rounds);
    ls_measured_row *rows = ls_xcalloc((size_t)rounds * ns + 1, sizeof *rows);
    for (size_t i = 0; i < ns; i++)
        res_of[i] = SIZE_MAX;
    size_t n = 0;
    bool stop = false;
    for (int64_t rd = 0; rd < rounds && !stop; rd++) {
        for (size_t i = 0; i < ns && !stop; i++) {
            const ls_suite_case *sc = &suite->cases[i];
            ls_cli_progress_update(&pr, rd * (int64_t)ns + (int64_t)i, rounds * (int64_t)ns);
            if (!ms->gpu && row_of[i] == SIZE_MAX)
                continue; /* --allow-missing */
            if (rd > 0 && res_of[i] == SIZE_MAX)
                continue; /* failed in an earlier round */
            case_result tmp, *r = rd == 0 ? &cr[n] : &tmp;
            memset(r, 0, sizeof *r);
            r->sc = sc;
            snprintf(r->c.name, sizeof r->c.name, "%s", sc->name);
            snprintf(r->c.group, sizeof r->c.group, "%s", sc->group);
            ls_diag diag;
            ls_diag_clear(&diag);
            if (run_case(a, sc, ms, r, &rows[rd * (int64_t)ns + (int64_t)i], &diag)) {
                ls_cli_progress_end(&pr);
                char msg[1024];
                ls_diag_format(&diag, msg, sizeof msg);
                if (rounds > 1)
                    ls_cli_error(CMD, "case '%s' (%s:%d), round %lld: %s", sc->name, suite->path,
                                 sc->line, (long long)rd + 1, msg);
                else
                    ls_cli_error(CMD, "case '%s' (%s:%d): %s", sc->name, suite->path, sc->line,
                                 msg);
                if (!ms->gpu) {
                    n = SIZE_MAX;
                    goto done;
                }
                /* GPU time is scarce: a case that fails on its own (a wrong
                 * value, a compile error) is left out and the rest still
                 * measured; a driver error may have poisoned the context, so
                 * stop there and keep what was measured. */
                ms->failed++;
                res_of[i] = SIZE_MAX;
                stop = diag.status != LS_ERR_INVALID;
                continue;
            }
            n_rounds[i]++;
            if (rd == 0)
                res_of[i] = n++;
        }
    }
    /* the results of the cases still standing, in suite order, each with
     * its rounds folded into one row */
    size_t kept = 0;
    for (size_t i = 0; i < ns; i++) {
        if (res_of[i] == SIZE_MAX)
            continue;
        case_result *r = &cr[kept++];
        *r = cr[res_of[i]]; /* res_of[i] >= kept - 1: moving down only */
        if (ms->gpu) {
            ls_measured_row *mine = ls_xmalloc((size_t)n_rounds[i] * sizeof *mine);
            for (int64_t k = 0; k < n_rounds[i]; k++)
                mine[k] = rows[k * (int64_t)ns + (int64_t)i];
            meas->rows = ls_xrealloc(meas->rows, (meas->n + 1) * sizeof *meas->rows);
            ls_measured_fold_rounds(mine, (int)n_rounds[i], &meas->rows[meas->n]);
            r->c.measured_us = meas->rows[meas->n++].measured_us;
            free(mine);
        } else {
            r->c.measured_us = meas->rows[row_of[i]].measured_us;
        }
    }
    n = kept;
done:
    ls_cli_progress_end(&pr);
    free(res_of);
    free(n_rounds);
    free(rows);
    return n;
}

/* The measured rows: from --measured (matched to the suite), or from the
 * GPU (opened here).  Returns -1 to go on, else the exit status. */
static int measured_source(const compare_args *a, const ls_hw *hw, const ls_suite *suite,
                           ls_measured *meas, measurer *ms, size_t *row_of, size_t *missing,
                           size_t *extra)
{
    if (!a->measured)
        return open_gpu(a, hw, ms);
    ls_diag diag;
    ls_diag_clear(&diag);
    if (ls_measured_load(a->measured, meas, &diag)) {
        ls_cli_report(CMD, &diag);
        return 1;
    }
    if (ls_measured_match(meas, suite, a->allow_missing, row_of, missing, extra, &diag)) {
        char msg[1024];
        ls_diag_format(&diag, msg, sizeof msg);
        ls_cli_error(CMD, "%s%s", msg, a->allow_missing ? "" : " (--allow-missing skips it)");
        return 1;
    }
    return -1;
}

/* After a successful run: the cases --allow-missing skipped (also into
 * skipped, for --json) and the rows that named no case. */
static void report_skips(const compare_args *a, const ls_suite *suite, const size_t *row_of,
                         size_t missing, size_t extra, json_object *skipped)
{
    if (missing) {
        char names[200] = "";
        size_t u = 0, shown = 0;
        for (size_t i = 0; i < suite->n; i++)
            if (row_of[i] == SIZE_MAX) {
                json_object_array_add(skipped, json_object_new_string(suite->cases[i].name));
                if (shown < 4 && u < sizeof names)
                    u += (size_t)snprintf(names + u, sizeof names - u, "%s%s", shown ? ", " : "",
                                          suite->cases[i].name);
                shown++;
            }
        ls_cli_error(CMD, "warning: %zu case%s without a row in %s skipped: %s%s", missing,
                     missing == 1 ? "" : "s", a->measured, names, missing > 4 ? ", ..." : "");
    }
    if (extra)
        ls_cli_error(CMD, "note: %zu row%s of %s name%s no case of %s (ignored)", extra,
                     extra == 1 ? "" : "s", a->measured, extra == 1 ? "s" : "", a->suite);
}

/* One output held in memory, staged in the open set under path. */
static int stage_out(ls_out *o, const char *path, char *err, size_t errsize)
{
    fclose(o->f);
    o->f = NULL;
    return ls_write_atomic(path, o->buf, o->len, err, errsize);
}

/* Every output into memory, then all of them as one set: each name checked
 * against the inputs and the others before anything is written (declared),
 * each staged in a complete temporary (the chart rendered into its own),
 * then all renamed together; a refusal, a failure or a signal leaves every
 * old file as it was.  The report goes to standard output (no -o, or -o -)
 * only once the files are in place. */
static int write_outputs(const compare_args *a, const ls_hw *hw, const ls_measured *meas,
                         const char *source, const char *brief_source, const case_result *cr,
                         const ls_compare_summary *s, json_object *skipped)
{
    ls_out out, csv, save;
    ls_out_open(&out);
    if (a->json) {
        json_object *root = ls_cmp_json_report(a, hw, meas, source, cr, s, json_object_get(skipped));
        fprintf(out.f, "%s\n",
                json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(root);
    } else {
        fprintf(out.f, "compare: %zu case%s of %s simulated on %s (%s)\n", s->n,
                ls_s((long long)s->n), a->suite, hw->name, hw->arch);
        fprintf(out.f, "measured: %s\n", source);
        ls_cmp_print_table(out.f, cr, s->n);
        ls_cmp_print_figures(out.f, cr, s);
        if (ls_measured_prov(meas, "synthetic"))
            fprintf(out.f, "note: the measured times are SYNTHETIC (the file says so): these "
                           "figures say nothing about a GPU\n");
    }
    ls_out_open(&csv);
    if (a->csv)
        ls_cmp_write_draw_csv(csv.f, a, hw, source, cr, s->n);
    ls_out_open(&save);
    if (a->save) {
        ls_measured_write_header(save.f, meas->prov, meas->n_prov);
        for (size_t i = 0; i < meas->n; i++)
            ls_measured_write_row(save.f, &meas->rows[i]);
    }
    bool report_file = a->output && strcmp(a->output, "-") != 0;
    const char *files[] = {a->save, a->csv, a->chart, report_file ? a->output : NULL};
    char err[512];
    int rc = 0;
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_out_set_begin();
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (files[i] && ls_out_set_declare(files[i], err, sizeof err))
            goto refused;
    if (a->save && stage_out(&save, a->save, err, sizeof err))
        goto refused;
    if (a->csv && stage_out(&csv, a->csv, err, sizeof err))
        goto refused;
    if (a->chart && ls_cmp_draw_chart(a, hw, brief_source, cr, s, &diag)) {
        ls_cli_report(CMD, &diag);
        goto failed;
    }
    if (report_file && stage_out(&out, a->output, err, sizeof err))
        goto refused;
    if (ls_out_set_commit(err, sizeof err)) {
        ls_cli_error(CMD, "%s", err);
        rc = 1;
    } else if (!report_file) {
        fclose(out.f);
        out.f = NULL;
        if (fwrite(out.buf, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
            ls_cli_error(CMD, "cannot write to standard output");
            rc = 1;
        }
    }
    goto done;
refused:
    ls_cli_error(CMD, "%s", err);
failed:
    ls_out_set_abort(); /* the staged temporaries removed, the old files kept */
    rc = 1;
done:
    ls_out_discard(&out);
    ls_out_discard(&csv);
    ls_out_discard(&save);
    return rc;
}

int ls_cmd_compare(int argc, char **argv)
{
    compare_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_hw hw;
    ls_target tt;
    bool has_tt;
    if (ls_cli_hw(NULL, a.target, 32, &hw, &tt, &has_tt, &diag)) {
        ls_cli_report(CMD, &diag);
        return diag.status == LS_ERR_NOTFOUND || diag.status == LS_ERR_USAGE ? 2 : 1;
    }
    ls_suite suite;
    if (ls_suite_load(a.suite, &suite, &diag)) {
        ls_cli_report(CMD, &diag);
        return 1;
    }
    char date[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    ls_measured meas;
    memset(&meas, 0, sizeof meas);
    measurer ms;
    memset(&ms, 0, sizeof ms);
    size_t *row_of = ls_xcalloc(suite.n, sizeof *row_of);
    case_result *cr = ls_xcalloc(suite.n, sizeof *cr);
    json_object *skipped = json_object_new_array();
    ls_compare_summary sum;
    memset(&sum, 0, sizeof sum);
    size_t missing = 0, extra = 0;
    rc = measured_source(&a, &hw, &suite, &meas, &ms, row_of, &missing, &extra);
    if (rc >= 0)
        goto done;
    rc = 1;
    size_t n = run_all(&a, &suite, row_of, &ms, &meas, cr);
    if (n == SIZE_MAX)
        goto done;
    report_skips(&a, &suite, row_of, missing, extra, skipped);
    if (ms.gpu)
        gpu_provenance(&meas, &ms, &a, date, argc, argv);
    ls_compare_case *cc = ls_xcalloc(n, sizeof *cc);
    for (size_t i = 0; i < n; i++)
        cc[i] = cr[i].c;
    ls_status st = ls_compare_summarize(cc, n, &sum, &diag);
    free(cc);
    if (st) {
        ls_cli_report(CMD, &diag);
        goto done;
    }
    char source[600], brief[300];
    ls_cmp_describe_source(source, sizeof source, &a, &meas, &ms, false);
    ls_cmp_describe_source(brief, sizeof brief, &a, &meas, &ms, true);
    rc = write_outputs(&a, &hw, &meas, source, brief, cr, &sum, skipped);
    if (ms.failed) {
        ls_cli_error(CMD, "%zu case%s failed on the GPU (above) and %s left out; the other "
                          "measurements are written",
                     ms.failed, ms.failed == 1 ? "" : "s", ms.failed == 1 ? "is" : "are");
        rc = 1;
    }
done:
    ls_compare_summary_free(&sum);
    json_object_put(skipped);
    ls_gpu_close(ms.gpu);
    ls_measured_free(&meas);
    ls_suite_free(&suite);
    free(cr);
    free(row_of);
    return rc;
}
