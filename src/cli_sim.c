/* cli_sim.c: `lanescope sim` -- lower the reductions of an input to plans,
 * print them (--dump-plan) and run them functionally, lane by lane, checked
 * against a reference reduction.  The cycle-level timing engine is not in
 * this version; the command says so instead of printing invented numbers. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lanescope/functional.h"
#include "lanescope/import.h"

#define CMD "sim"

static void usage(FILE *f)
{
    fprintf(f, "usage: lanescope sim INPUT [--dump-plan] [--seed N] [--target NAME] "
               "[--workgroups N] [-o FILE]\n"
               "\n"
               "Lower every reduction in INPUT (.mlir) as IREE's VectorDistribute pipeline\n"
               "does and execute it lane by lane with real values of its element type\n"
               "(inputs from a seeded generator), checking every output against a\n"
               "reference reduction.  A mismatch is an error (exit 1).\n"
               "\n"
               "  --dump-plan       print the lowered per-workgroup program\n"
               "  --seed N          input generator seed (default 1)\n"
               "  --target NAME     lowering target: gfx* uses AMD DPP reductions, others\n"
               "                    XOR butterflies (default: the input's #iree_gpu.target,\n"
               "                    else sm_80)\n"
               "  --workgroups N    execute only the first N workgroups (default all)\n"
               "  -o FILE           write the report to FILE (atomically)\n"
               "\n"
               "Not in this version: the cycle-level timing model (cycles, bandwidth,\n"
               "occupancy, per-stage table, --json, --csv, --trace).\n");
}

int ls_cmd_sim(int argc, char **argv)
{
    enum { O_DUMP = 256, O_SEED, O_TARGET, O_WG };
    static const struct option longopts[] = {
        {"dump-plan", no_argument, NULL, O_DUMP},   {"seed", required_argument, NULL, O_SEED},
        {"target", required_argument, NULL, O_TARGET},
        {"workgroups", required_argument, NULL, O_WG}, {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
    };
    bool dump = false;
    int64_t seed = 1, max_wg = -1;
    const char *target = NULL, *output = NULL;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case O_DUMP: dump = true; break;
        case O_SEED:
            if (!ls_flag_int(CMD, "--seed", optarg, 0, INT64_MAX, &seed))
                return 2;
            break;
        case O_TARGET: target = optarg; break;
        case O_WG:
            if (!ls_flag_int(CMD, "--workgroups", optarg, 1, INT64_MAX, &max_wg))
                return 2;
            break;
        case 'o': output = optarg; break;
        case 'h': usage(stdout); return 0;
        case ':': ls_cli_error(CMD, "%s needs a value", argv[optind - 1]); return 2;
        default:
            ls_cli_error(CMD, "unknown option '%s' (see lanescope sim --help)", argv[optind - 1]);
            return 2;
        }
    }
    if (argc - optind != 1) {
        ls_cli_error(CMD, "expected one INPUT (.mlir file)");
        return 2;
    }
    const char *input = argv[optind];
    ls_diag diag;
    ls_diag_clear(&diag);
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_derived *d = NULL;
    ls_plan *plans = NULL;
    int rc = 1;
    ls_out out;
    bool out_open = false;
    if (ls_module_load(input, m, &diag))
        goto fail;
    ls_target tgt;
    bool have_target = false;
    if (target) {
        if (!ls_target_lookup(target, &tgt)) {
            ls_cli_error(CMD, "--target: unknown target '%s' (known: %s)", target,
                         ls_target_names());
            free(m);
            return 2;
        }
        have_target = true;
    } else if (m->has_target) {
        tgt = m->target;
        have_target = true;
    }
    if (m->n_problems == 0) {
        ls_diag_set(&diag, LS_ERR_NOTFOUND, input, 0, 0,
                    "no linalg.generic/linalg.reduce with a reduction to simulate");
        goto fail;
    }
    d = ls_xcalloc(m->n_problems, sizeof *d);
    plans = ls_xcalloc(m->n_problems, sizeof *plans);
    ls_out_open(&out);
    out_open = true;
    for (size_t i = 0; i < m->n_problems; i++) {
        ls_problem *p = &m->problems[i];
        if (have_target) {
            p->has_target = true;
            p->target = tgt;
        }
        if (ls_derive(p, &d[i], &diag))
            goto fail;
        ls_plan_target pt = ls_plan_target_from_arch(have_target ? tgt.arch : "sm_80");
        if (ls_plan_build(p, &d[i], pt, &plans[i], &diag))
            goto fail;
        if (dump)
            ls_plan_dump(&plans[i], out.f);
        ls_functional_result fr;
        if (ls_functional_run(&plans[i], (uint64_t)seed, 0, max_wg, &fr, &diag))
            goto fail;
        fprintf(out.f, "%s: functional check passed: %lld outputs of %lld workgroup%s match the "
                       "reference (%s %s, seed %lld",
                p->name, (long long)fr.outputs_checked, (long long)fr.workgroups_run,
                fr.workgroups_run == 1 ? "" : "s", ls_combiner_name(p->combiner),
                ls_elem_type_name(p->acc_type), (long long)seed);
        if (fr.max_error_bound_ratio > 0)
            fprintf(out.f, "; largest float error %.3g of the rounding bound",
                    fr.max_error_bound_ratio);
        fprintf(out.f, ")\n");
    }
    fprintf(out.f, "timing: the cycle-level engine is not in this version\n");
    rc = ls_out_commit(&out, output);
    out_open = false;
    goto done;
fail: {
    char msg[1024];
    ls_diag_format(&diag, msg, sizeof msg);
    fprintf(stderr, "lanescope sim: %s\n", msg);
    rc = 1;
}
done:
    if (out_open)
        ls_out_discard(&out);
    free(plans);
    free(d);
    free(m);
    return rc;
}
