/* fuzz_import.c: libFuzzer target for the attribute parser and the importer.
 * Every input runs through ls_module_parse and, when it yields reductions,
 * through validation, layout derivation and -- for small problems -- the
 * plan, the timing engine and the functional model.  Crashes, leaks, hangs,
 * UB and wrong reduction values are what the fuzzer looks for.  Build with
 * `make fuzz`. */
#include <stdint.h>
#include <stdlib.h>

#include "lanescope/engine.h"
#include "lanescope/functional.h"
#include "lanescope/import.h"
#include "lanescope/layout.h"

/* A small machine so that fuzzed problems simulate quickly. */
static const char *model =
    "name = fuzz\narch = %s\n"
    "wgp_count = 2 # source: fuzz\nclock_mhz = 1000 # source: fuzz\n"
    "subgroup_size = %d # source: fuzz\nschedulers_per_wgp = 2 # source: fuzz\n"
    "max_threads_per_wgp = 2048 # source: fuzz\nmax_subgroups_per_wgp = 64 # source: fuzz\n"
    "max_workgroups_per_wgp = 8 # source: fuzz\nsmem_bytes_per_wgp = 65536 # source: fuzz\n"
    "smem_banks = 32 # source: fuzz\nsmem_bank_bytes = 4 # source: fuzz\n"
    "smem_latency = 30 # source: fuzz\nalu_latency = 4 # source: fuzz\n"
    "shuffle_latency = 20 # source: fuzz\nshuffle_interval = 2 # source: fuzz\n"
    "dpp_latency = 8 # source: fuzz\nbarrier_latency = 10 # source: fuzz\n"
    "l2_bytes = 65536 # source: fuzz\nl2_ways = 4 # source: fuzz\n"
    "l2_line_bytes = 128 # source: fuzz\nsector_bytes = 32 # source: fuzz\n"
    "l2_latency = 100 # source: fuzz\ndram_latency = 500 # source: fuzz\n"
    "dram_gbps = 256 # source: fuzz\n"
    "launch_us = 0 # source: fuzz\n";

/* Lower, time and execute a small enough problem. */
static void simulate(const ls_problem *p, const ls_derived *dv)
{
    int64_t elems = 1;
    for (int i = 0; i < p->rank; i++)
        elems *= p->size[i];
    if (elems > 4096 || dv->total_workgroups * dv->total_iterations > 256)
        return;
    char text[4096];
    bool amd = p->inputs[0].map_n % 2 == 0;
    snprintf(text, sizeof text, model, amd ? "gfx942" : "sm_80", (int)dv->subgroup_size);
    ls_hw hw;
    ls_plan plan;
    ls_sim_result r;
    ls_functional_result fr;
    ls_diag d;
    ls_diag_clear(&d);
    if (ls_hw_parse(text, "fuzz", &hw, &d) ||
        ls_plan_build(p, dv, ls_plan_target_from_arch(hw.arch), &plan, &d))
        return;
    ls_engine_run(&plan, &hw, &r, NULL, &d);
    ls_diag_clear(&d);
    if (ls_functional_run(&plan, (ls_input_source){1, NULL, {NULL}}, 0, -1, &fr, &d) != LS_OK && fr.mismatches) {
        /* a value the lowering computes wrong is a bug the fuzzer should report */
        __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ls_module *m = ls_xcalloc(1, sizeof *m);
    ls_diag d;
    ls_diag_clear(&d);
    ls_module_parse((const char *)data, size, "fuzz.mlir", m, &d);
    if (d.status == LS_OK) {
        ls_derived *dv = ls_xcalloc(1, sizeof *dv);
        for (size_t i = 0; i < m->n_problems; i++) {
            ls_diag dd;
            ls_diag_clear(&dd);
            if (ls_derive(&m->problems[i], dv, &dd) == LS_OK)
                simulate(&m->problems[i], dv);
        }
        free(dv);
    }
    ls_arena a;
    ls_arena_init(&a);
    ls_diag_clear(&d);
    ls_parse_attr_string((const char *)data, size, "fuzz", &a, NULL, &d);
    ls_arena_fini(&a);
    free(m);
    return 0;
}
