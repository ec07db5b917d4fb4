/* bench.c: `make bench` -- speed and memory of the simulator on the seeds'
 * examples at full size.  Not a unit test: it measures and prints, one line
 * per example, wall time of the timing engine and of the functional check,
 * events/s, subgroup-instructions/s and the process's peak RSS.  This file
 * reads the host clock; the simulator (sim/) never does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "lanescope/engine.h"
#include "lanescope/functional.h"
#include "lanescope/import.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long peak_rss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
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
    printf("%-26s %-8s %10s %12s %9s %12s %12s %9s %10s %8s\n", "example", "model", "workgroups",
           "sg-instr", "engine-s", "events/s", "sg-instr/s", "check-s", "outputs", "rss-MB");
    int rc = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].file);
        ls_diag d;
        ls_diag_clear(&d);
        ls_module *m = ls_xcalloc(1, sizeof *m);
        ls_derived *dv = ls_xcalloc(1, sizeof *dv);
        ls_hw hw;
        ls_plan plan;
        ls_sim_result r;
        ls_functional_result fr;
        double t0 = 0, t1 = 0, t2 = 0;
        if (ls_module_load(path, m, &d) || ls_hw_load(cases[i].model, &hw, &d) ||
            ls_derive(&m->problems[0], dv, &d) ||
            ls_plan_build(&m->problems[0], dv, ls_plan_target_from_arch(hw.arch), &plan, &d))
            goto fail;
        t0 = now();
        if (ls_engine_run(&plan, &hw, &r, NULL, &d))
            goto fail;
        t1 = now();
        if (ls_functional_run(&plan, (ls_input_source){1, NULL}, 0, -1, &fr, &d))
            goto fail;
        t2 = now();
        printf("%-26s %-8s %10lld %12lld %9.3f %12.3g %12.3g %9.3f %10lld %8ld\n", cases[i].file,
               cases[i].model, (long long)r.workgroups, (long long)r.instructions, t1 - t0,
               r.events / (t1 - t0), r.instructions / (t1 - t0), t2 - t1,
               (long long)fr.outputs_checked, peak_rss_mb());
        fflush(stdout);
        free(m);
        free(dv);
        continue;
    fail:
        fprintf(stderr, "bench: %s: %s\n", cases[i].file, d.msg);
        rc = 1;
        free(m);
        free(dv);
    }
    return rc;
}
