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

int ls_cmd_sim(int argc, char **argv)
{
    enum { O_DUMP = 256, O_SEED, O_TARGET, O_WG, O_JSON, O_CSV, O_NOCHECK, O_TRACE, O_INPUT,
           O_DIM, O_QUIET, O_FORCE };
    static const struct option longopts[] = {
        {"dump-plan", optional_argument, NULL, O_DUMP}, {"seed", required_argument, NULL, O_SEED},
        {"target", required_argument, NULL, O_TARGET},
        {"workgroups", required_argument, NULL, O_WG}, {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, O_JSON},        {"csv", no_argument, NULL, O_CSV},
        {"no-check", no_argument, NULL, O_NOCHECK}, {"help", no_argument, NULL, 'h'},
        {"trace", required_argument, NULL, O_TRACE},
        {"input", required_argument, NULL, O_INPUT},
        {"dim", required_argument, NULL, O_DIM},
        {"quiet", no_argument, NULL, O_QUIET},
        {"force", no_argument, NULL, O_FORCE},
        LS_CLI_PROBLEM_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    bool dump = false, dump_json = false, json = false, csv = false, check = true, quiet = false, force = false;
    int64_t seed = 1, max_wg = -1;
    const char *target = NULL, *output = NULL, *trace_path = NULL, *npy_path = NULL;
    ls_npy npy = {0};
    ls_import_dims dims = {{0}};
    ls_cli_problem_flags pf = {0};
    ls_trace trace = {NULL, 0, 0, false, 0};
    ls_trace_counters *counters = NULL;
    ls_trace_writer tw;
    FILE *trace_f = NULL;
    bool set_open = false, truncated = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case O_DUMP:
            if (optarg && strcmp(optarg, "json") == 0) {
                dump_json = json = true; /* the plans go into the --json report */
            } else if (optarg && strcmp(optarg, "text") != 0) {
                ls_cli_error(CMD, "--dump-plan=%s: expected text or json", optarg);
                return 2;
            } else {
                dump = true;
            }
            break;
        case O_SEED:
            if (!ls_flag_int(CMD, "--seed", optarg, 0, INT64_MAX, &seed))
                return 2;
            break;
        case O_TARGET:
            if (!ls_flag_once(CMD, "--target", &target, optarg))
                return 2;
            break;
        case O_JSON: json = true; break;
        case O_CSV: csv = true; break;
        case O_NOCHECK: check = false; break;
        case O_QUIET: quiet = true; break;
        case O_FORCE: force = true; break;
        case O_TRACE:
            if (!ls_flag_once(CMD, "--trace", &trace_path, optarg))
                return 2;
            break;
        case O_INPUT:
            if (!ls_flag_once(CMD, "--input", &npy_path, optarg))
                return 2;
            break;
        case O_DIM:
            if (!ls_flag_dim(CMD, optarg, &dims))
                return 2;
            break;
        case O_WG:
            if (!ls_flag_int(CMD, "--workgroups", optarg, 1, INT64_MAX, &max_wg))
                return 2;
            break;
        case 'o':
            if (!ls_flag_once(CMD, "-o", &output, optarg))
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        case ':': ls_cli_error(CMD, "%s needs a value", argv[optind - 1]); return 2;
        LS_CLI_PROBLEM_CASES:
            if (ls_cli_problem_flag(CMD, &pf, c, optarg) < 0)
                return 2;
            break;
        default:
            ls_cli_error(CMD, "unknown option '%s' (see lanescope sim --help)", argv[optind - 1]);
            return 2;
        }
    }
    if (argc - optind != (pf.shape ? 0 : 1)) {
        if (argc - optind == 1 && pf.shape)
            ls_cli_error(CMD, "give INPUT or --shape, not both");
        else
            ls_cli_error(CMD, "expected one INPUT (.mlir file, - for standard input) or --shape");
        return 2;
    }
    const char *input = pf.shape ? NULL : argv[optind];
    if (!ls_cli_problem_source(CMD, input, &pf))
        return 2;
    if (target) {
        ls_hw probe;
        ls_target pt;
        bool has_pt;
        ls_diag pd;
        ls_diag_clear(&pd);
        if (ls_cli_hw(NULL, target, 32, &probe, &pt, &has_pt, &pd)) {
            ls_cli_report(CMD, &pd);
            return pd.status == LS_ERR_NOTFOUND || pd.status == LS_ERR_USAGE ? 2 : 1;
        }
    }
    if (dump_json && csv) {
        ls_cli_error(CMD, "--dump-plan=json puts the plan in the --json report, which --csv "
                          "replaces: give one of them");
        return 2;
    }
    if (dump && csv) {
        ls_cli_error(CMD, "--dump-plan prints the plan as text, which would break the --csv "
                          "table: give one of them (or --dump-plan=json with --json)");
        return 2;
    }
    if (json && csv) {
        ls_cli_error(CMD, "give --json or --csv, not both");
        return 2;
    }
    /* the functional check's options mean nothing without it */
    if (!check && npy_path) {
        ls_cli_error(CMD, "--input feeds the functional check, which --no-check skips: give "
                          "one of them");
        return 2;
    }
    if (!check && max_wg >= 0) {
        ls_cli_error(CMD, "--workgroups limits the functional check, which --no-check skips: "
                          "give one of them");
        return 2;
    }
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_derived *d = NULL;
    ls_plan *plans = NULL;
    ls_hw *hws = NULL;
    kernel_share *shares = NULL;
    ls_fused_kernel **fused = NULL;
    char (*apart)[512] = NULL;
    json_object *root = NULL;
    int rc = 1;
    ls_out out;
    bool out_open = false;
    pf.import_flags = LS_IMPORT_ATTENTION; /* run below (cli_sim_attention.c) */
    if (ls_cli_problem_load(input, &pf, &dims, m, &diag))
        goto fail;
    if (input == NULL)
        input = "--shape";
    if (m->n_problems == 0 && m->n_attentions == 0) {
        ls_diag_set(&diag, LS_ERR_NOTFOUND, input, 0, 0,
                    "no linalg.generic/linalg.reduce with a reduction, and no attention, to "
                    "simulate");
        goto fail;
    }
    if (m->n_attentions > 0 && (trace_path || npy_path)) {
        /* what an attention's run has not: a timeline, one input array */
        ls_diag_set(&diag, LS_ERR_USAGE, trace_path ? "--trace" : "--input", 0, 0,
                    "%s holds an attention op, whose run lanescope neither traces nor feeds from "
                    "a file",
                    input);
        goto fail;
    }
    d = ls_xcalloc(m->n_problems, sizeof *d);
    plans = ls_xcalloc(m->n_problems, sizeof *plans);
    ls_out_open(&out);
    out_open = true;
    if (trace_path) {
        /* the trace and -o as one set: both or neither */
        char err[512];
        ls_out_set_begin();
        set_open = true;
        if ((trace_f = ls_out_set_stream(trace_path, err, sizeof err)) == NULL) {
            fprintf(stderr, "lanescope sim: %s\n", err);
            goto done_fail;
        }
        ls_trace_writer_begin(&tw, trace_f, (int)m->n_problems);
        counters = ls_xmalloc(sizeof *counters);
    }
    if (json) {
        root = ls_cli_json_root("sim");
        json_object_object_add(root, "input", json_object_new_string(input));
        json_object_object_add(root, "reductions", json_object_new_array());
    }
    if (csv)
        ls_sim_print_csv_header(out.f);
    /* Every reduction lowered, and every budget checked, before anything
     * runs: a refusal after minutes of engine time would waste them. */
    hws = ls_xcalloc(m->n_problems, sizeof *hws);
    for (size_t i = 0; i < m->n_problems; i++) {
        ls_problem *p = &m->problems[i];
        if (ls_cli_model(m, p, target, &hws[i], &diag) || ls_derive(p, &d[i], &diag) ||
            ls_plan_build(p, &d[i], ls_plan_target_from_arch(hws[i].arch), &plans[i], &diag) ||
            ls_engine_check_work(&plans[i], &hws[i], force, &diag) ||
            (check && ls_functional_check_work(&plans[i], max_wg, force, &diag)))
            goto fail;
    }
    /* A multi-result generic's results, consecutive from result 0: one
     * kernel in IREE, timed once by result 0's run where the plans allow */
    shares = ls_xcalloc(m->n_problems, sizeof *shares);
    for (size_t i = 0; i < m->n_problems; i++) {
        const ls_problem *p = &m->problems[i];
        int n = p->n_results;
        bool group = p->result == 0 && n > 1 && i + (size_t)n <= m->n_problems;
        for (int k = 1; group && k < n; k++) /* the op's results, in order */
            group = m->problems[i + (size_t)k].result == k && m->problems[i + (size_t)k].n_results == n;
        if (!group || !ls_plan_fuse_results(&plans[i], n))
            continue;
        for (int k = 0; k < n; k++)
            shares[i + (size_t)k] = (kernel_share){true, k ? m->problems[i].name : NULL, NULL, NULL};
    }
    fused = ls_xcalloc(m->n_problems, sizeof *fused);
    apart = ls_xcalloc(m->n_problems, sizeof *apart);
    if (plan_dispatch_kernels(m, plans, hws, force, shares, fused, apart, &diag))
        goto fail;
    ls_sim_result lead_r;
    ls_bottleneck lead_bn;
    for (size_t i = 0; i < m->n_problems; i++) {
        ls_problem *p = &m->problems[i];
        ls_hw hw = hws[i];
        kernel_share ks = shares[i];
        if (dump) {
            ls_plan_dump(&plans[i], out.f);
            bool last = i + 1 == m->n_problems || m->problems[i + 1].dispatch != p->dispatch;
            if (last && ks.fused) /* after the dispatch's last reduction: its kernel's loops */
                ls_fused_dump(ks.fused, out.f);
        }
        ls_sim_result r;
        ls_bottleneck bn;
        char what[160];
        ls_cli_progress ps;
        if (ks.lead) { /* result 0's (or the dispatch's first reduction's) run timed it */
            r = lead_r;
            bn = lead_bn;
        } else {
            snprintf(what, sizeof what, "%s: engine", p->name);
            ls_cli_progress_init(&ps, CMD, what, "workgroups", quiet);
            ls_engine_opts eo = {.trace = trace_path ? &trace : NULL, .progress = ls_cli_progress_cb, .progress_ctx = &ps, .force = force};
            if (counters) {
                /* the trace's counter tracks come from the engine's records */
                ls_trace_counters_reset(counters);
                eo.record = ls_trace_counters_record;
                eo.record_ctx = counters;
            }
            /* One dispatch is one launch: its second and later reductions (a
             * softmax's sum after its max) run without another launch cost. */
            ls_hw hw_run = hw;
            bool same_dispatch = i > 0 && p->dispatch >= 0 && m->problems[i - 1].dispatch == p->dispatch;
            if (same_dispatch)
                hw_run.launch_us = 0;
            const ls_plan *run = ks.fused ? &ks.fused->plan : &plans[i];
            ls_status est = ls_engine_run(run, &hw_run, &r, &eo, &diag);
            ls_cli_progress_end(&ps);
            if (est)
                goto fail;
            ls_bottleneck_analyze(run, &hw_run, &r, &bn);
            if (trace_path) {
                truncated |= trace.truncated;
                ls_trace_writer_add(&tw, p, &hw, &trace, counters, (int)i);
            }
            lead_r = r;
            lead_bn = bn;
        }
        ls_functional_result fr;
        memset(&fr, 0, sizeof fr);
        ls_input_source src = {(uint64_t)seed, NULL, {NULL}};
        if (check && npy_path) {
            if (m->n_problems != 1) {
                ls_diag_set(&diag, LS_ERR_USAGE, "--input", 0, 0,
                            "%s has %zu reductions; --input feeds a file with exactly one",
                            input, m->n_problems);
                goto fail;
            }
            if (p->n_inputs > 1) {
                ls_diag_set(&diag, LS_ERR_USAGE, "--input", 0, 0,
                            "%s reads %d inputs; --input supplies one array (one file per "
                            "input is not supported yet: drop --input to use the generator)",
                            p->name, p->n_inputs);
                goto fail;
            }
            if (ls_npy_load(npy_path, &npy, &diag) || ls_npy_check(&npy, p, npy_path, &diag))
                goto fail;
            src.npy = &npy;
        }
        if (check && ls_bind_intermediates(m->problems, m->n_problems, i, &src, &diag))
            goto fail;
        snprintf(what, sizeof what, "%s: functional check", p->name);
        ls_cli_progress_init(&ps, CMD, what, "workgroups", quiet);
        ls_functional_opts fo = {ls_cli_progress_cb, &ps, force};
        ls_status fst =
            check ? ls_functional_run_opts(&plans[i], src, 0, max_wg, &fo, &fr, &diag) : LS_OK;
        ls_cli_progress_end(&ps);
        ls_free_intermediates(&src);
        if (fst)
            goto fail;
        /* after a dispatch's last reduction: what its kernel also runs and
         * these figures leave out */
        ls_sim_untimed untimed[8];
        int n_untimed = 0;
        if (!ks.fused && (i + 1 == m->n_problems || m->problems[i + 1].dispatch != p->dispatch))
            n_untimed = ls_sim_untimed_ops(m, p->dispatch, untimed, 8);
        if (json) {
            json_object *arr;
            json_object_object_get_ex(root, "reductions", &arr);
            json_object *jr = ls_sim_json_result(p, &hw, &r, &fr, check, seed, &ks);
            json_object_object_add(jr, "bottleneck", ls_sim_bottleneck_json(&bn));
            if (dump_json)
                json_object_object_add(jr, "plan", ls_cli_plan_json(&plans[i]));
            if (n_untimed > 0)
                json_object_object_add(jr, "untimed_ops", ls_sim_untimed_json(untimed, n_untimed));
            json_object_array_add(arr, jr);
            continue;
        }
        if (csv) {
            ls_sim_print_csv(out.f, p, &hw, &r);
            continue;
        }
        ls_sim_print_text(out.f, p, &hw, &r, &bn, &ks);
        if (check) {
            char from[300];
            if (npy_path)
                snprintf(from, sizeof from, "inputs from %s", npy_path);
            else
                snprintf(from, sizeof from, "seed %lld", (long long)seed);
            if (p->argcmp.on)
                ls_sim_print_argcmp_check(out.f, p, &fr, from);
            else {
                fprintf(out.f, "  functional check passed: %lld output%s of %lld workgroup%s "
                               "match%s the reference (%s %s, %s",
                        (long long)fr.outputs_checked, fr.outputs_checked == 1 ? "" : "s",
                        (long long)fr.workgroups_run,
                        fr.workgroups_run == 1 ? "" : "s", fr.outputs_checked == 1 ? "es" : "",
                        ls_combiner_name(p->combiner), ls_elem_type_name(p->acc_type), from);
                if (fr.max_error_bound_ratio > 0)
                    fprintf(out.f, "; largest float error %.3g of the rounding bound",
                            fr.max_error_bound_ratio);
                if (fr.exact_outputs > 0 && fr.exact_outputs == fr.outputs_checked)
                    fprintf(out.f, "; bit for bit: every partial sum exact");
                else if (fr.exact_outputs > 0)
                    fprintf(out.f, "; %lld of them bit for bit: every partial sum exact",
                            (long long)fr.exact_outputs);
                if (p->acc_type == LS_ET_I128)
                    fprintf(out.f, "; the low 64 bits of each i128, which decide %s exactly",
                            ls_combiner_name(p->combiner));
                fprintf(out.f, ")\n");
            }
            ls_sim_print_math(out.f, &p->body);
        }
        ls_sim_print_untimed(out.f, untimed, n_untimed);
    }
    if (m->n_attentions > 0 && json)
        json_object_object_add(root, "attentions", json_object_new_array());
    for (size_t i = 0; i < m->n_attentions; i++) {
        ls_sim_attention_opts ao = {target, check,  force,          quiet,
                                    csv,    dump,   dump_json, (uint64_t)seed, max_wg};
        json_object *arr = NULL;
        if (json)
            json_object_object_get_ex(root, "attentions", &arr);
        if (ls_sim_attention(m, i, &ao, out.f, arr, &diag))
            goto fail;
    }
    if (json)
        fprintf(out.f, "%s\n",
                json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
    if (trace_path) {
        ls_trace_writer_end(&tw);
        char err[512];
        int wr = ls_out_set_stream_close(trace_f, trace_path, err, sizeof err);
        trace_f = NULL;
        if (wr != 0) {
            fprintf(stderr, "lanescope sim: %s\n", err);
            goto done_fail;
        }
        if (truncated)
            fprintf(stderr, "lanescope sim: warning: the trace keeps the first %d stage slices "
                            "of a reduction only\n",
                    LS_TRACE_MAX_SLICES);
    } else {
        ls_out_set_begin();
        set_open = true;
    }
    rc = ls_out_commit(&out, output);
    out_open = false;
    if (rc == 0) {
        char err[512];
        set_open = false;
        if (ls_out_set_commit(err, sizeof err) != 0) {
            fprintf(stderr, "lanescope sim: %s\n", err);
            rc = 1;
        }
    }
    goto done;
done_fail:
    rc = 1;
    goto done;
fail:
    ls_cli_report(CMD, &diag);
    rc = diag.status == LS_ERR_USAGE ? 2 : 1;
done:
    ls_npy_free(&npy);
    free(trace.slices);
    free(counters);
    if (trace_f)
        fclose(trace_f);
    if (set_open)
        ls_out_set_abort(); /* the staged trace and report, removed */
    if (root)
        json_object_put(root);
    if (out_open)
        ls_out_discard(&out);
    free(plans);
    free(hws);
    free(shares);
    for (size_t i = 0; fused && i < m->n_problems; i++)
        free(fused[i]);
    free(fused);
    free(apart);
    free(d);
    free(m);
    return rc;
}
