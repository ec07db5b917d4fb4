/* cli_sim.c: `lanescope sim` -- lower the reductions of an input to plans
 * (--dump-plan prints them), time them with the discrete-event engine on a
 * hardware model, and run them lane by lane against a reference reduction. */
#include <getopt.h>
#include <stddef.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_sim.h"
#include "cli_trace.h"
#include "lanescope/atomic.h"
#include "lanescope/bottleneck.h"
#include "lanescope/engine.h"
#include "lanescope/functional.h"
#include "lanescope/fused.h"
#include "lanescope/npy.h"
#include "lanescope/import.h"

#define CMD "sim"

static void usage(FILE *f)
{
    fprintf(f, "usage: lanescope sim INPUT [--target MODEL] [--json | --csv] [--seed N]\n"
               "                     [--dump-plan] [--no-check] [--workgroups N] [--trace FILE]\n"
               "                     [--dim N=SIZE]... [--config ATTR] [--quiet] [--force]\n"
               "                     [-o FILE]\n"
               "       lanescope sim --shape AxB.. --iter pr.. [--type T[:U]] [--combiner K]\n"
               "                     [--config ATTR] [options]\n"
               "\n"
               "Lower every reduction in INPUT (.mlir; - reads standard input), or the one\n"
               "that --shape states, as IREE's VectorDistribute pipeline\n"
               "does, time it on a hardware model with the discrete-event engine, and\n"
               "execute it lane by lane with real values (inputs from a seeded generator),\n"
               "checking every output against a reference reduction; a mismatch is an\n"
               "error (exit 1).  An attention op (iree_linalg_ext.attention or\n"
               "online_attention) is timed as one kernel and run lane by lane the same\n"
               "way, checked against the op as IREE decomposes it.\n"
               "\n"
               "  --target MODEL    hardware model: %s\n"
               "                    (default: from the input's #iree_gpu.target, else by\n"
               "                    subgroup size: 64 -> mi300x, 32 -> h100)\n"
               "  --json, --csv     machine-readable results (CSV: the per-stage table)\n"
               "  --dim N=SIZE      size of dynamic ('?') loop dim dN of the ops (repeatable)\n"
               "  --config ATTR     use this #iree_gpu.lowering_config<{...}> for every\n"
               "                    reduction (without one: the input's, else IREE's default)\n"
               "  --shape AxBx..    describe the problem by flags instead of INPUT ...\n"
               "  --iter pr..       ... one letter per dim: p(arallel) or r(eduction)\n"
               "  --type T[:U]      ... element type T, reduced in U (default T)\n"
               "  --combiner K      ... add, mul, minsi, maxnumf, ... (default add)\n"
               "  --seed N          input generator seed (default 1); timing does not depend on it\n"
               "  --input FILE.npy  take the input tensor from a NumPy array instead (C order,\n"
               "                    the operand's shape and dtype; one reduction per INPUT)\n"
               "  --dump-plan[=text|json]\n"
               "                    print the lowered per-workgroup program first; =json puts\n"
               "                    it in the --json report as \"plan\" (implies --json)\n"
               "  --no-check        skip the functional execution\n"
               "  --workgroups N    functional check of the first N workgroups only\n"
               "  --trace FILE      write Chrome trace events (open in Perfetto): a process\n"
               "                    per WGP, a thread per resident subgroup slot holding\n"
               "                    workgroup slices around their stage slices, and\n"
               "                    DRAM bandwidth, L2 hit rate and resident workgroup\n"
               "                    counters\n"
               "  --quiet           no progress lines\n"
               "  --force           run past the work budget (2^32 simulated subgroup-\n"
               "                    instructions, 2^31 checked elements: minutes of wall\n"
               "                    time); the limits (2^34 each) still hold\n"
               "  -o FILE           write the report to FILE (atomically)\n"
               "  -h, --help        this help\n"
               "\n"
               "Progress (the engine's workgroups, then the check's) goes to standard error:\n"
               "on a terminal one line redrawn after the first second; elsewhere a line every\n"
               "$LANESCOPE_PROGRESS_SECONDS seconds (default 10).\n"
               "\n"
               "The per-stage table (text and --csv), one row per stage of the lowering:\n"
               "  crit-cycles    cycles from first issue to last completion of the stage,\n"
               "                 for the subgroup that finished last\n"
               "  sg-cyc%%        the stage's share of all subgroups' cycles (summed spans)\n"
               "  instructions   subgroup-instructions issued\n"
               "  global-bytes   bytes of global memory requested by active lanes\n"
               "  sectors        memory sectors touched (the model's sector_bytes each)\n"
               "  L2-hit%%        share of the sectors that reached the L2 (past the L1, when\n"
               "                 the model has one) found there (- : none)\n"
               "  shuffles       cross-lane steps: shuffles, or DPP steps on AMD\n"
               "  smem-acc       workgroup-memory access instructions\n"
               "  max-deg        the worst bank-conflict degree of one access (1: none)\n"
               "  barrier-wait   cycles subgroups spent waiting at barriers, summed\n",
            ls_hw_names());
}

/* A dispatch's reductions and stored elementwise ops: the one kernel
 * IREE builds, each a loop after the other, timed by the run of the
 * dispatch's first reduction (fused.h), whose work is checked against the
 * budget here; where they cannot be, each reduction is its own run and
 * apart[] says why (every reduction of the dispatch points at it). */
static ls_status plan_dispatch_kernels(const ls_module *m, const ls_plan *plans, const ls_hw *hws,
                                       bool force, kernel_share *shares, ls_fused_kernel **fused,
                                       char (*apart)[512], ls_diag *diag)
{
    for (size_t i = 0; i < m->n_problems; i++) {
        const ls_problem *p = &m->problems[i];
        if (shares[i].one_kernel || p->dispatch < 0 || ls_fused_first(m, i) != i)
            continue;
        fused[i] = ls_xmalloc(sizeof *fused[i]);
        if (!ls_fused_build(m, i, plans, fused[i], apart[i], sizeof apart[i])) {
            free(fused[i]);
            fused[i] = NULL;
            continue;
        }
        if (ls_engine_check_work(&fused[i]->plan, &hws[i], force, diag))
            return diag->status;
        for (size_t j = i; j < m->n_problems && m->problems[j].dispatch == p->dispatch; j++)
            shares[j] = (kernel_share){false, j > i ? p->name : NULL, fused[i], NULL};
    }
    for (size_t i = 0, first = 0; i < m->n_problems; i++) {
        if (i > 0 && m->problems[i].dispatch != m->problems[i - 1].dispatch)
            first = i;
        if (m->problems[i].dispatch >= 0 && apart[first][0] && !shares[i].fused)
            shares[i].apart = apart[first];
    }
    return LS_OK;
}

/* What the command line asked for. */
typedef struct {
    bool dump, dump_json, json, csv, check, quiet, force;
    int64_t seed, max_wg;
    const char *target, *output, *trace_path, *npy_path;
    const char *input; /* NULL with --shape */
    ls_import_dims dims;
    ls_cli_problem_flags pf;
} sim_opts;

/* The flags into *o: -1 to go on, else the exit code (0 after --help). */
static int parse_args(int argc, char **argv, sim_opts *o)
{
    enum { O_DUMP = 256, O_SEED, O_TARGET, O_WG, O_JSON, O_CSV, O_NOCHECK, O_TRACE, O_INPUT,
           O_DIM, O_QUIET, O_FORCE };
    static const struct option longopts[] = {
        {"dump-plan", optional_argument, NULL, O_DUMP},
        {"seed", required_argument, NULL, O_SEED},
        {"target", required_argument, NULL, O_TARGET},
        {"workgroups", required_argument, NULL, O_WG},
        {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, O_JSON},
        {"csv", no_argument, NULL, O_CSV},
        {"no-check", no_argument, NULL, O_NOCHECK},
        {"help", no_argument, NULL, 'h'},
        {"trace", required_argument, NULL, O_TRACE},
        {"input", required_argument, NULL, O_INPUT},
        {"dim", required_argument, NULL, O_DIM},
        {"quiet", no_argument, NULL, O_QUIET},
        {"force", no_argument, NULL, O_FORCE},
        LS_CLI_PROBLEM_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case O_DUMP:
            if (optarg && strcmp(optarg, "json") == 0) {
                o->dump_json = o->json = true; /* the plans go into the --json report */
            } else if (optarg && strcmp(optarg, "text") != 0) {
                ls_cli_error(CMD, "--dump-plan=%s: expected text or json", optarg);
                return 2;
            } else {
                o->dump = true;
            }
            break;
        case O_SEED:
            if (!ls_flag_int(CMD, "--seed", optarg, 0, INT64_MAX, &o->seed))
                return 2;
            break;
        case O_TARGET:
            if (!ls_flag_once(CMD, "--target", &o->target, optarg))
                return 2;
            break;
        case O_JSON: o->json = true; break;
        case O_CSV: o->csv = true; break;
        case O_NOCHECK: o->check = false; break;
        case O_QUIET: o->quiet = true; break;
        case O_FORCE: o->force = true; break;
        case O_TRACE:
            if (!ls_flag_once(CMD, "--trace", &o->trace_path, optarg))
                return 2;
            break;
        case O_INPUT:
            if (!ls_flag_once(CMD, "--input", &o->npy_path, optarg))
                return 2;
            break;
        case O_DIM:
            if (!ls_flag_dim(CMD, optarg, &o->dims))
                return 2;
            break;
        case O_WG:
            if (!ls_flag_int(CMD, "--workgroups", optarg, 1, INT64_MAX, &o->max_wg))
                return 2;
            break;
        case 'o':
            if (!ls_flag_once(CMD, "-o", &o->output, optarg))
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        case ':': ls_cli_error(CMD, "%s needs a value", argv[optind - 1]); return 2;
        LS_CLI_PROBLEM_CASES:
            if (ls_cli_problem_flag(CMD, &o->pf, c, optarg) < 0)
                return 2;
            break;
        default:
            ls_cli_error(CMD, "unknown option '%s' (see lanescope sim --help)", argv[optind - 1]);
            return 2;
        }
    }
    if (argc - optind != (o->pf.shape ? 0 : 1)) {
        if (argc - optind == 1 && o->pf.shape)
            ls_cli_error(CMD, "give INPUT or --shape, not both");
        else
            ls_cli_error(CMD, "expected one INPUT (.mlir file, - for standard input) or --shape");
        return 2;
    }
    o->input = o->pf.shape ? NULL : argv[optind];
    return -1;
}

/* The flags that contradict each other, and a target that names no
 * machine, refused before any work: 0, or the exit code. */
static int check_args(const sim_opts *o)
{
    if (!ls_cli_problem_source(CMD, o->input, &o->pf))
        return 2;
    if (o->target) {
        ls_hw probe;
        ls_target pt;
        bool has_pt;
        ls_diag pd;
        ls_diag_clear(&pd);
        if (ls_cli_hw(NULL, o->target, 32, &probe, &pt, &has_pt, &pd)) {
            ls_cli_report(CMD, &pd);
            return pd.status == LS_ERR_NOTFOUND || pd.status == LS_ERR_USAGE ? 2 : 1;
        }
    }
    const char *why = NULL;
    if (o->dump_json && o->csv)
        why = "--dump-plan=json puts the plan in the --json report, which --csv replaces: give "
              "one of them";
    else if (o->dump && o->csv)
        why = "--dump-plan prints the plan as text, which would break the --csv table: give one "
              "of them (or --dump-plan=json with --json)";
    else if (o->json && o->csv)
        why = "give --json or --csv, not both";
    /* the functional check's options mean nothing without it */
    else if (!o->check && o->npy_path)
        why = "--input feeds the functional check, which --no-check skips: give one of them";
    else if (!o->check && o->max_wg >= 0)
        why = "--workgroups limits the functional check, which --no-check skips: give one of "
              "them";
    if (why) {
        ls_cli_error(CMD, "%s", why);
        return 2;
    }
    return 0;
}

/* One run of the command: the module, its reductions' lowerings and
 * kernels, and the outputs being written. */
typedef struct {
    const sim_opts *o;
    const char *input; /* the input's name in messages ("--shape" for flags) */
    ls_module *m;
    ls_derived *d;
    ls_plan *plans;
    ls_hw *hws;
    kernel_share *shares;
    ls_fused_kernel **fused;
    char (*apart)[512];
    json_object *root;
    ls_out out;
    bool out_open;
    ls_trace trace;
    ls_trace_counters *counters;
    ls_trace_writer tw;
    FILE *trace_f;
    bool set_open, truncated;
    ls_npy npy;
    ls_sim_result lead_r; /* the last run, for the results it also timed */
    ls_bottleneck lead_bn;
} sim_run;

/* Every reduction lowered, its kernel (a multi-result generic's, a
 * dispatch's) found, and every budget checked, before anything runs: a
 * refusal after minutes of engine time would waste them. */
static ls_status lower_all(sim_run *s, ls_diag *diag)
{
    const sim_opts *o = s->o;
    ls_module *m = s->m;
    s->d = ls_xcalloc(m->n_problems, sizeof *s->d);
    s->plans = ls_xcalloc(m->n_problems, sizeof *s->plans);
    s->hws = ls_xcalloc(m->n_problems, sizeof *s->hws);
    for (size_t i = 0; i < m->n_problems; i++) {
        ls_problem *p = &m->problems[i];
        if (ls_cli_model(m, p, o->target, &s->hws[i], diag) || ls_derive(p, &s->d[i], diag) ||
            ls_plan_build(p, &s->d[i], ls_plan_target_from_arch(s->hws[i].arch), &s->plans[i],
                          diag) ||
            ls_engine_check_work(&s->plans[i], &s->hws[i], o->force, diag) ||
            (o->check && ls_functional_check_work(&s->plans[i], o->max_wg, o->force, diag)))
            return diag->status;
    }
    /* A multi-result generic's results, consecutive from result 0: one
     * kernel in IREE, timed once by result 0's run where the plans allow */
    s->shares = ls_xcalloc(m->n_problems, sizeof *s->shares);
    for (size_t i = 0; i < m->n_problems; i++) {
        const ls_problem *p = &m->problems[i];
        int n = p->n_results;
        bool group = p->result == 0 && n > 1 && i + (size_t)n <= m->n_problems;
        for (int k = 1; group && k < n; k++) /* the op's results, in order */
            group =
                m->problems[i + (size_t)k].result == k && m->problems[i + (size_t)k].n_results == n;
        if (!group || !ls_plan_fuse_results(&s->plans[i], n))
            continue;
        for (int k = 0; k < n; k++)
            s->shares[i + (size_t)k] =
                (kernel_share){true, k ? m->problems[i].name : NULL, NULL, NULL};
    }
    s->fused = ls_xcalloc(m->n_problems, sizeof *s->fused);
    s->apart = ls_xcalloc(m->n_problems, sizeof *s->apart);
    return plan_dispatch_kernels(m, s->plans, s->hws, o->force, s->shares, s->fused, s->apart,
                                 diag);
}

/* Reduction i timed by the engine, or by the run of the one that leads
 * its kernel. */
static ls_status time_reduction(sim_run *s, size_t i, ls_sim_result *r, ls_bottleneck *bn,
                                ls_diag *diag)
{
    const sim_opts *o = s->o;
    const ls_module *m = s->m;
    const ls_problem *p = &m->problems[i];
    const kernel_share *ks = &s->shares[i];
    if (ks->lead) { /* result 0's (or the dispatch's first reduction's) run timed it */
        *r = s->lead_r;
        *bn = s->lead_bn;
        return LS_OK;
    }
    char what[160];
    ls_cli_progress ps;
    snprintf(what, sizeof what, "%s: engine", p->name);
    ls_cli_progress_init(&ps, CMD, what, "workgroups", o->quiet);
    ls_engine_opts eo = {.trace = o->trace_path ? &s->trace : NULL,
                         .progress = ls_cli_progress_cb,
                         .progress_ctx = &ps,
                         .force = o->force};
    if (s->counters) {
        /* the trace's counter tracks come from the engine's records */
        ls_trace_counters_reset(s->counters);
        eo.record = ls_trace_counters_record;
        eo.record_ctx = s->counters;
    }
    /* One dispatch is one launch: its second and later reductions (a
     * softmax's sum after its max) run without another launch cost. */
    ls_hw hw_run = s->hws[i];
    if (i > 0 && p->dispatch >= 0 && m->problems[i - 1].dispatch == p->dispatch)
        hw_run.launch_us = 0;
    const ls_plan *run = ks->fused ? &ks->fused->plan : &s->plans[i];
    ls_status est = ls_engine_run(run, &hw_run, r, &eo, diag);
    ls_cli_progress_end(&ps);
    if (est)
        return est;
    ls_bottleneck_analyze(run, &hw_run, r, bn);
    if (o->trace_path) {
        s->truncated |= s->trace.truncated;
        ls_trace_writer_add(&s->tw, p, &s->hws[i], &s->trace, s->counters, (int)i);
    }
    s->lead_r = *r;
    s->lead_bn = *bn;
    return LS_OK;
}

/* Reduction i run lane by lane against the reference (with --no-check:
 * nothing, *fr zeroed). */
static ls_status check_reduction(sim_run *s, size_t i, ls_functional_result *fr, ls_diag *diag)
{
    const sim_opts *o = s->o;
    const ls_module *m = s->m;
    const ls_problem *p = &m->problems[i];
    memset(fr, 0, sizeof *fr);
    if (!o->check)
        return LS_OK;
    ls_input_source src = {(uint64_t)o->seed, NULL, {NULL}};
    if (o->npy_path) {
        if (m->n_problems != 1)
            return ls_diag_set(diag, LS_ERR_USAGE, "--input", 0, 0,
                               "%s has %zu reductions; --input feeds a file with exactly one",
                               s->input, m->n_problems);
        if (p->n_inputs > 1)
            return ls_diag_set(diag, LS_ERR_USAGE, "--input", 0, 0,
                               "%s reads %d inputs; --input supplies one array (one file per "
                               "input is not supported yet: drop --input to use the generator)",
                               p->name, p->n_inputs);
        if (ls_npy_load(o->npy_path, &s->npy, diag) || ls_npy_check(&s->npy, p, o->npy_path, diag))
            return diag->status;
        src.npy = &s->npy;
    }
    if (ls_bind_intermediates(m->problems, m->n_problems, i, &src, diag))
        return diag->status;
    char what[160];
    ls_cli_progress ps;
    snprintf(what, sizeof what, "%s: functional check", p->name);
    ls_cli_progress_init(&ps, CMD, what, "workgroups", o->quiet);
    ls_functional_opts fo = {ls_cli_progress_cb, &ps, o->force, NULL};
    ls_status fst = ls_functional_run_opts(&s->plans[i], src, 0, o->max_wg, &fo, fr, diag);
    ls_cli_progress_end(&ps);
    ls_free_intermediates(&src);
    return fst;
}

/* The check's line of the text report. */
static void print_check(FILE *f, const ls_problem *p, const ls_functional_result *fr,
                        const sim_opts *o)
{
    char from[300];
    if (o->npy_path)
        snprintf(from, sizeof from, "inputs from %s", o->npy_path);
    else
        snprintf(from, sizeof from, "seed %lld", (long long)o->seed);
    if (p->argcmp.on) {
        ls_sim_print_argcmp_check(f, p, fr, from);
        return;
    }
    fprintf(f,
            "  functional check passed: %lld output%s of %lld workgroup%s match%s the reference "
            "(%s %s, %s",
            (long long)fr->outputs_checked, fr->outputs_checked == 1 ? "" : "s",
            (long long)fr->workgroups_run, fr->workgroups_run == 1 ? "" : "s",
            fr->outputs_checked == 1 ? "es" : "", ls_combiner_name(p->combiner),
            ls_elem_type_name(p->acc_type), from);
    if (fr->max_error_bound_ratio > 0)
        fprintf(f, "; largest float error %.3g of the rounding bound", fr->max_error_bound_ratio);
    if (fr->exact_outputs > 0 && fr->exact_outputs == fr->outputs_checked)
        fprintf(f, "; bit for bit: every partial sum exact");
    else if (fr->exact_outputs > 0)
        fprintf(f, "; %lld of them bit for bit: every partial sum exact",
                (long long)fr->exact_outputs);
    if (p->acc_type == LS_ET_I128)
        fprintf(f, "; the low 64 bits of each i128, which decide %s exactly",
                ls_combiner_name(p->combiner));
    fprintf(f, ")\n");
}

/* How the check's run fused products into adds, as IREE compiles them:
 * a user comparing outputs with IREE's needs to know. */
static void print_fma(FILE *f, const ls_functional_result *fr, const ls_plan *plan)
{
    switch (fr->fma) {
    case LS_FMA_CHAIN:
        fprintf(f,
                "  products fused as IREE compiles them: each thread's %lld packed elements "
                "an FMA chain, last first, then added (ContractToChainFMA)\n",
                (long long)plan->inner_elems);
        break;
    case LS_FMA_AMD:
        fprintf(f, "  products fused as IREE compiles them: each product and its add one FMA "
                   "(ROCm's AllowFPOpFusion=Fast)\n");
        break;
    case LS_FMA_CONTRACT:
        fprintf(f,
                "  products fused as IREE compiles them: each output's %lld reduced registers "
                "a thread holds an FMA chain, last first, from 0 (DistributeContract, "
                "ContractToChainFMA)\n",
                (long long)(plan->derived->elems_per_iteration / plan->results_per_thread));
        break;
    case LS_FMA_NONE: break;
    }
    if (ls_functional_dot2_possible(plan))
        fprintf(f, "  note: each thread reads both f16 operands 2 wide and chains their products "
                   "in f32, so on AMD targets with dot10 instructions (gfx942, gfx950, RDNA3, "
                   "RDNA4) LLVM may fuse each pair into one v_dot2_f32_f16 (performFMACombine: "
                   "one rounding for two products, f32 denormals flushed); lanescope computes "
                   "IREE's two FMAs, so such a kernel's values may differ in the last bit\n");
}

/* Reduction i: its plan (--dump-plan), its run, its check, its report. */
static ls_status sim_reduction(sim_run *s, size_t i, ls_diag *diag)
{
    const sim_opts *o = s->o;
    const ls_module *m = s->m;
    const ls_problem *p = &m->problems[i];
    const ls_hw *hw = &s->hws[i];
    const kernel_share *ks = &s->shares[i];
    FILE *f = s->out.f;
    bool last_of_dispatch = i + 1 == m->n_problems || m->problems[i + 1].dispatch != p->dispatch;
    if (o->dump) {
        ls_plan_dump(&s->plans[i], f);
        if (last_of_dispatch && ks->fused) /* after the dispatch's last reduction: its loops */
            ls_fused_dump(ks->fused, f);
    }
    ls_sim_result r;
    ls_bottleneck bn;
    ls_functional_result fr;
    if (time_reduction(s, i, &r, &bn, diag) || check_reduction(s, i, &fr, diag))
        return diag->status;
    /* after a dispatch's last reduction: what its kernel also runs and
     * these figures leave out */
    ls_sim_untimed untimed[8];
    int n_untimed = 0;
    if (!ks->fused && last_of_dispatch)
        n_untimed = ls_sim_untimed_ops(m, p->dispatch, untimed, 8);
    if (o->json) {
        json_object *arr;
        json_object_object_get_ex(s->root, "reductions", &arr);
        json_object *jr = ls_sim_json_result(p, hw, &r, &fr, o->check, o->seed, ks);
        json_object_object_add(jr, "bottleneck", ls_sim_bottleneck_json(&bn));
        if (o->dump_json)
            json_object_object_add(jr, "plan", ls_cli_plan_json(&s->plans[i]));
        if (n_untimed > 0)
            json_object_object_add(jr, "untimed_ops", ls_sim_untimed_json(untimed, n_untimed));
        json_object_array_add(arr, jr);
    } else if (o->csv) {
        ls_sim_print_csv(f, p, hw, &r);
    } else {
        ls_sim_print_text(f, p, hw, &r, &bn, ks);
        if (o->check) {
            print_check(f, p, &fr, o);
            ls_sim_print_math(f, &p->body);
            print_fma(f, &fr, &s->plans[i]);
            if (fr.minmax_replaced)
                fprintf(f,
                        "  maximumf and minimumf as IREE compiles them for %s: maxnumf and "
                        "minnumf (ReplaceSlowMinMaxOps.cpp), which drop a NaN operand where "
                        "maximumf propagates it; the lanes and the reference both compute that\n",
                        s->plans[i].target.arch);
        }
        ls_sim_print_untimed(f, untimed, n_untimed);
    }
    return LS_OK;
}

/* The trace and the report written and committed as one set: the exit
 * code (messages printed). */
static int finish_outputs(sim_run *s)
{
    const sim_opts *o = s->o;
    char err[512];
    if (o->json)
        fprintf(s->out.f, "%s\n",
                json_object_to_json_string_ext(s->root, JSON_C_TO_STRING_PRETTY |
                                                            JSON_C_TO_STRING_NOSLASHESCAPE));
    if (o->trace_path) {
        ls_trace_writer_end(&s->tw);
        int wr = ls_out_set_stream_close(s->trace_f, o->trace_path, err, sizeof err);
        s->trace_f = NULL;
        if (wr != 0) {
            fprintf(stderr, "lanescope sim: %s\n", err);
            return 1;
        }
        if (s->truncated)
            fprintf(stderr, "lanescope sim: warning: the trace keeps the first %d stage slices "
                            "of a reduction only\n",
                    LS_TRACE_MAX_SLICES);
    } else {
        ls_out_set_begin();
        s->set_open = true;
    }
    int rc = ls_out_commit(&s->out, o->output);
    s->out_open = false;
    if (rc == 0) {
        s->set_open = false;
        if (ls_out_set_commit(err, sizeof err) != 0) {
            fprintf(stderr, "lanescope sim: %s\n", err);
            rc = 1;
        }
    }
    return rc;
}

static void sim_run_free(sim_run *s)
{
    ls_npy_free(&s->npy);
    free(s->trace.slices);
    free(s->counters);
    if (s->trace_f)
        fclose(s->trace_f);
    if (s->set_open)
        ls_out_set_abort(); /* the staged trace and report, removed */
    if (s->root)
        json_object_put(s->root);
    if (s->out_open)
        ls_out_discard(&s->out);
    free(s->plans);
    free(s->hws);
    free(s->shares);
    for (size_t i = 0; s->fused && i < s->m->n_problems; i++)
        free(s->fused[i]);
    free(s->fused);
    free(s->apart);
    free(s->d);
    free(s->m);
}

/* The module loaded, and what a module with attentions cannot give. */
static ls_status load_module(sim_run *s, ls_diag *diag)
{
    const sim_opts *o = s->o;
    if (ls_cli_problem_load(o->input, &o->pf, &o->dims, s->m, diag))
        return diag->status;
    if (s->m->n_problems == 0 && s->m->n_attentions == 0)
        return ls_diag_set(diag, LS_ERR_NOTFOUND, s->input, 0, 0,
                           "no linalg.generic/linalg.reduce with a reduction, and no attention, "
                           "to simulate");
    if (s->m->n_attentions > 0 && (o->trace_path || o->npy_path))
        /* what an attention's run has not: a timeline, one input array */
        return ls_diag_set(diag, LS_ERR_USAGE, o->trace_path ? "--trace" : "--input", 0, 0,
                           "%s holds an attention op, whose run lanescope neither traces nor "
                           "feeds from a file",
                           s->input);
    return LS_OK;
}

int ls_cmd_sim(int argc, char **argv)
{
    sim_opts o = {.check = true, .seed = 1, .max_wg = -1};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    if ((rc = check_args(&o)) != 0)
        return rc;
    ls_diag diag;
    ls_diag_clear(&diag);
    o.pf.import_flags = LS_IMPORT_ATTENTION; /* run below (cli_sim_attention.c) */
    sim_run s = {.o = &o, .input = o.input ? o.input : "--shape"};
    s.m = ls_xcalloc(1, sizeof *s.m);
    if (load_module(&s, &diag))
        goto fail;
    ls_out_open(&s.out);
    s.out_open = true;
    if (o.trace_path) {
        /* the trace and -o as one set: both or neither */
        char err[512];
        ls_out_set_begin();
        s.set_open = true;
        if ((s.trace_f = ls_out_set_stream(o.trace_path, err, sizeof err)) == NULL) {
            fprintf(stderr, "lanescope sim: %s\n", err);
            rc = 1;
            goto done;
        }
        ls_trace_writer_begin(&s.tw, s.trace_f, (int)s.m->n_problems);
        s.counters = ls_xmalloc(sizeof *s.counters);
    }
    if (o.json) {
        s.root = ls_cli_json_root("sim");
        json_object_object_add(s.root, "input", json_object_new_string(s.input));
        json_object_object_add(s.root, "reductions", json_object_new_array());
    }
    if (o.csv)
        ls_sim_print_csv_header(s.out.f);
    if (lower_all(&s, &diag))
        goto fail;
    for (size_t i = 0; i < s.m->n_problems; i++)
        if (sim_reduction(&s, i, &diag))
            goto fail;
    if (s.m->n_attentions > 0 && o.json)
        json_object_object_add(s.root, "attentions", json_object_new_array());
    for (size_t i = 0; i < s.m->n_attentions; i++) {
        ls_sim_attention_opts ao = {o.target, o.check,     o.force,          o.quiet, o.csv,
                                    o.dump,   o.dump_json, (uint64_t)o.seed, o.max_wg};
        json_object *arr = NULL;
        if (o.json)
            json_object_object_get_ex(s.root, "attentions", &arr);
        if (ls_sim_attention(s.m, i, &ao, s.out.f, arr, &diag))
            goto fail;
    }
    rc = finish_outputs(&s);
    goto done;
fail:
    ls_cli_report(CMD, &diag);
    rc = diag.status == LS_ERR_USAGE ? 2 : 1;
done:
    sim_run_free(&s);
    return rc;
}
