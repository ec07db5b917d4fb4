/* bench.c: `make bench` -- speed and memory of the simulator on the seeds'
 * examples at full size.  Not a unit test: it measures and prints, one line
 * per example, wall time of the timing engine and of the functional check,
 * events/s, subgroup-instructions/s and the process's peak RSS.  This file
 * reads the host clock; the simulator (sim/) never does.
 *
 * The engine runs LS_BENCH_REPEAT times (default 5) and the median and the
 * fastest run are printed: on a shared VM the same binary's wall time moves
 * by 1.5x from run to run, and one sample says little. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lanescope/attention.h"
#include "lanescope/engine.h"
#include "lanescope/functional.h"
#include "lanescope/fused.h"
#include "lanescope/import.h"
#include "lanescope/suggest.h"
#include "lanescope/sweep.h"
#include "bench_util.h"


/* The engine run `repeat` times on plan: the wall times, sorted, into
 * times; the last run's figures into r. */
static ls_status time_engine(const ls_plan *plan, const ls_hw *hw, int repeat, double *times,
                             ls_sim_result *r, ls_diag *d)
{
    for (int k = 0; k < repeat; k++) {
        double t0 = now();
        if (ls_engine_run(plan, hw, r, NULL, d))
            return d->status;
        times[k] = now() - t0;
    }
    qsort(times, (size_t)repeat, sizeof times[0], cmp_double);
    return LS_OK;
}

/* One line of the table: the engine's median (best) time and rates, the
 * functional check's time and outputs. */
static void report(const char *label, const char *model, const ls_sim_result *r,
                   const double *times, int repeat, double check_s, int64_t outputs)
{
    char es[32], is[32];
    snprintf(es, sizeof es, "%.3f (%.3f)", times[repeat / 2], times[0]);
    snprintf(is, sizeof is, "%.3g (%.3g)", (double)r->instructions / times[repeat / 2],
             (double)r->instructions / times[0]);
    printf("%-34s %-8s %10lld %12lld %15s %12.3g %21s %9.3f %10lld %8ld\n", label, model,
           (long long)r->workgroups, (long long)r->instructions, es,
           (double)r->events / times[repeat / 2], is, check_s, (long long)outputs, peak_rss_mb());
    fflush(stdout);
}

/* Every reduction of a dispatch file with IREE's suggested config for the
 * model: engine (median of `repeat`) and functional check, per reduction. */
static int bench_dispatch(const char *path, const char *name, const char *model, int repeat)
{
    ls_diag d;
    ls_diag_clear(&d);
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_suggestion *s = ls_xcalloc(1, sizeof *s);
    ls_derived *dv = NULL;
    ls_plan *plans = NULL;
    ls_fused_kernel *fk = ls_xcalloc(1, sizeof *fk);
    ls_hw hw;
    ls_target t;
    int rc = 0;
    if (ls_module_load(path, m, &d) || ls_hw_load(model, &hw, &d))
        goto fail;
    dv = ls_xcalloc(m->n_problems, sizeof *dv);
    plans = ls_xcalloc(m->n_problems, sizeof *plans);
    if (!ls_target_lookup(model, &t)) {
        ls_diag_set(&d, LS_ERR_NOTFOUND, model, 0, 0, "no IREE target of that name");
        goto fail;
    }
    for (size_t i = 0; i < m->n_problems; i++) {
        ls_problem *p = &m->problems[i];
        p->has_target = true;
        p->target = t;
        if (ls_suggest(&m->dispatches[p->dispatch], &t, s, &d))
            goto fail;
        ls_suggest_apply(s, p->dispatch_op, p);
        p->config_suggested = true;
        ls_plan *plan = &plans[i];
        ls_sim_result r;
        ls_functional_result fr;
        double times[99];
        if (ls_derive(p, &dv[i], &d) ||
            ls_plan_build(p, &dv[i], ls_plan_target_from_arch(hw.arch), plan, &d) ||
            time_engine(plan, &hw, repeat, times, &r, &d))
            goto fail;
        ls_input_source in = {1, NULL, {NULL}};
        double c0 = now();
        if (ls_bind_intermediates(m->problems, m->n_problems, i, &in, &d) ||
            ls_functional_run(plan, in, 0, -1, &fr, &d)) {
            ls_free_intermediates(&in);
            goto fail;
        }
        double c1 = now();
        ls_free_intermediates(&in);
        const char *part = strrchr(p->name, '.');
        char label[64];
        snprintf(label, sizeof label, "%.40s%s", name, part && m->n_problems > 1 ? part : "");
        report(label, model, &r, times, repeat, c1 - c0, fr.outputs_checked);
    }
    /* the dispatch as IREE's one kernel (fused.h): every loop in one run,
     * the reductions' values checked above */
    char why[512];
    if (m->n_problems > 0 && ls_fused_build(m, 0, plans, fk, why, sizeof why)) {
        ls_sim_result r;
        double times[99];
        if (time_engine(&fk->plan, &hw, repeat, times, &r, &d))
            goto fail;
        char label[64];
        snprintf(label, sizeof label, "%.40s one kernel", name);
        report(label, model, &r, times, repeat, 0, 0);
    } else if (why[0]) {
        fprintf(stderr, "bench: %s on %s: not one kernel: %s\n", name, model, why);
    }
    goto done;
fail:
    fprintf(stderr, "bench: %s on %s: %s\n", name, model, d.msg);
    rc = 1;
done:
    free(m);
    free(s);
    free(dv);
    free(plans);
    free(fk);
    return rc;
}

/* An attention dispatch with IREE's config for the model: the engine's run
 * of its kernel (median of `repeat`) and the values of every workgroup. */
static int bench_attention(const char *path, const char *name, const char *model, int repeat)
{
    ls_diag d;
    ls_diag_clear(&d);
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_attention *a = ls_xcalloc(1, sizeof *a);
    ls_att_view *v = NULL;
    ls_hw hw;
    ls_target t;
    int rc = 0;
    if (ls_module_load_ex(path, LS_IMPORT_ATTENTION, m, &d) || ls_hw_load(model, &hw, &d))
        goto fail;
    if (m->n_attentions == 0 || !ls_target_lookup(model, &t)) {
        ls_diag_set(&d, LS_ERR_NOTFOUND, model, 0, 0, "no attention, or no IREE target of that name");
        goto fail;
    }
    if (ls_attention_build(m, &m->attentions[0], &t, a, &d) ||
        ls_attention_view(m, &m->attentions[0], a, &hw, &v, &d))
        goto fail;
    ls_sim_result r;
    double times[99];
    if (time_engine(ls_att_view_plan(v), &hw, repeat, times, &r, &d))
        goto fail;
    ls_att_check chk;
    double c0 = now();
    if (ls_attention_values(m, &m->attentions[0], a, ls_plan_target_from_arch(hw.arch), 1, -1,
                            &chk, &d))
        goto fail;
    double c1 = now();
    report(name, model, &r, times, repeat, c1 - c0, chk.outputs_checked);
    goto done;
fail:
    fprintf(stderr, "bench: %s on %s: %s\n", name, model, d.msg);
    rc = 1;
done:
    ls_att_view_free(v);
    free(a);
    free(m);
    return rc;
}

/* One seed example: the engine timed `repeat` times, then the functional
 * check once.  Nonzero on failure (said on stderr). */
static int bench_example(const char *path, const char *file, const char *model, int repeat)
{
    ls_diag d;
    ls_diag_clear(&d);
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_derived *dv = ls_xcalloc(1, sizeof *dv);
    ls_hw hw;
    ls_plan plan;
    ls_sim_result r;
    ls_functional_result fr;
    double times[99];
    if (ls_module_load(path, m, &d) || ls_hw_load(model, &hw, &d) ||
        ls_derive(&m->problems[0], dv, &d) ||
        ls_plan_build(&m->problems[0], dv, ls_plan_target_from_arch(hw.arch), &plan, &d) ||
        time_engine(&plan, &hw, repeat, times, &r, &d))
        goto fail;
    double t1 = now();
    if (ls_functional_run(&plan, (ls_input_source){1, NULL, {NULL}}, 0, -1, &fr, &d))
        goto fail;
    report(file, model, &r, times, repeat, now() - t1, fr.outputs_checked);
    free(m);
    free(dv);
    return 0;
fail:
    fprintf(stderr, "bench: %s: %s\n", file, d.msg);
    free(m);
    free(dv);
    return 1;
}

/* The sweep target of issue 5: 500 configs of a 4096x4096 f32 row
 * reduction on mi300x, on every core (LS_BENCH_JOBS overrides). */
static int bench_sweep(void)
{
    ls_problem p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "rowsum 4096x4096 f32");
    p.dispatch = p.dispatch_op = -1;
    p.rank = 2;
    p.size[0] = p.size[1] = 4096;
    p.is_reduction[1] = true;
    p.n_inputs = 1;
    p.inputs[0].map_n = 2;
    p.inputs[0].map[1] = 1;
    p.out_map_n = 1;
    p.inputs[0].type = p.acc_type = LS_ET_F32;
    ls_target t;
    ls_hw hw;
    ls_sweep sw;
    ls_diag d;
    ls_diag_clear(&d);
    ls_target_lookup("mi300x", &t);
    p.has_target = true;
    p.target = t;
    int jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
    const char *je = getenv("LS_BENCH_JOBS");
    if (je && atoi(je) > 0)
        jobs = atoi(je);
    double t0 = now();
    if (ls_hw_load("mi300x", &hw, &d) || ls_sweep_enumerate(&p, NULL, &t, 500, &sw, &d) ||
        ls_sweep_run(&p, &hw, &sw, jobs, NULL, NULL, &d)) {
        fprintf(stderr, "bench: sweep: %s\n", d.msg);
        return 1;
    }
    double t1 = now();
    printf("sweep: %zu configs (of %zu valid) of a 4096x4096 f32 row reduction on mi300x, "
           "%d jobs: %.2f s wall (target < 60 s), %.1f configs/s, peak RSS %ld MB\n",
           sw.n, sw.enumerated, jobs, t1 - t0, (double)sw.n / (t1 - t0), peak_rss_mb());
    ls_sweep_free(&sw);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "examples";
    static const struct {
        const char *file, *model;
    } cases[] = {
        {"seed000_example1.mlir", "mi300x"}, {"seed000_example2.mlir", "mi300x"},
        {"seed000_example3.mlir", "mi300x"}, {"seed004_reduce_8x64.mlir", "mi300x"},
    };
    int repeat = 5;
    /* LS_BENCH_ONLY=TEXT: only the cases whose file (or "sweep") holds TEXT */
    const char *only = getenv("LS_BENCH_ONLY");
    const char *rep = getenv("LS_BENCH_REPEAT");
    if (rep != NULL && (repeat = atoi(rep)) < 1)
        repeat = 1;
    if (repeat > 99)
        repeat = 99;
    printf("engine timed %d times per example: median (best)\n", repeat);
    printf("%-34s %-8s %10s %12s %15s %12s %21s %9s %10s %8s\n", "example", "model", "workgroups",
           "sg-instr", "engine-s", "events/s", "sg-instr/s", "check-s", "outputs", "rss-MB");
    int rc = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (only && !strstr(cases[i].file, only))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].file);
        if (bench_example(path, cases[i].file, cases[i].model, repeat))
            rc = 1;
    }
    /* Dispatches IREE's reduction pipeline compiles, with IREE's own
     * configs for the model (the files have none): an LLM-decode matvec, a
     * vocabulary softmax (two reductions, the second reading the first) and
     * greedy sampling's argmax over the vocabulary (an arg_compare). */
    static const struct {
        const char *file, *model;
    } dispatches[] = {
        {"matvec_32000x4096_f16.mlir", "h100"},
        {"matvec_32000x4096_f16.mlir", "mi300x"},
        {"softmax_4096x32000_f32.mlir", "h100"},
        {"softmax_4096x32000_f32.mlir", "mi300x"},
        {"argmax_vocab_64x32000_f32.mlir", "mi300x"},
    };
    for (size_t i = 0; i < sizeof dispatches / sizeof dispatches[0]; i++) {
        if (only && !strstr(dispatches[i].file, only))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, dispatches[i].file);
        if (bench_dispatch(path, dispatches[i].file, dispatches[i].model, repeat))
            rc = 1;
    }
    /* Decode attention over an 8192-token KV cache, IREE's default config */
    static const char *const att_models[] = {"h100", "mi300x"};
    for (size_t i = 0; i < 2; i++) {
        const char *file = "attention_decode_32x1x128x8192x128_f16.mlir";
        if (only && !strstr(file, only))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, file);
        if (bench_attention(path, file, att_models[i], repeat))
            rc = 1;
    }
    if ((!only || strstr("sweep", only)) && bench_sweep())
        rc = 1;
    return rc;
}
