/* fuzz_common.h: what the libFuzzer targets share: a byte reader that turns
 * the fuzzer's input into bounded choices, and the small machine that
 * fuzzed problems run on.  Each target is one tests/fuzz/fuzz_*.c; `make
 * fuzz` builds them with libFuzzer, `make check` replays their corpora
 * through tests/fuzz/replay.c under the sanitizers. */
#ifndef LANESCOPE_FUZZ_COMMON_H
#define LANESCOPE_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lanescope/engine.h"
#include "lanescope/functional.h"
#include "lanescope/hwmodel.h"
#include "lanescope/layout.h"
#include "lanescope/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Choices drawn from the input; past its end every choice is 0. */
typedef struct {
    const uint8_t *p;
    size_t n, at;
} fz_bytes;

static inline unsigned fz_byte(fz_bytes *b)
{
    return b->at < b->n ? b->p[b->at++] : 0;
}

/* A value in [0, n). */
static inline unsigned fz_below(fz_bytes *b, unsigned n)
{
    unsigned v = fz_byte(b) | fz_byte(b) << 8;
    return n ? v % n : 0;
}

/* A small machine so that fuzzed problems simulate quickly, with every
 * optional memory mechanism on; arch picks the lowering family (gfx942:
 * DPP, sm_80: shuffles). */
static inline ls_status fz_machine(const char *arch, int64_t subgroup_size, ls_hw *hw, ls_diag *d)
{
    char text[2048];
    snprintf(text, sizeof text,
             "name = fuzz\narch = %s\n"
             "wgp_count = 2 # source: fuzz\nclock_mhz = 1000 # source: fuzz\n"
             "subgroup_size = %lld # source: fuzz\nschedulers_per_wgp = 2 # source: fuzz\n"
             "max_threads_per_wgp = 2048 # source: fuzz\nmax_subgroups_per_wgp = 64 # source: fuzz\n"
             "max_workgroups_per_wgp = 8 # source: fuzz\nsmem_bytes_per_wgp = 65536 # source: fuzz\n"
             "smem_banks = 32 # source: fuzz\nsmem_bank_bytes = 4 # source: fuzz\n"
             "smem_latency = 30 # source: fuzz\nalu_latency = 4 # source: fuzz\n"
             "shuffle_latency = 20 # source: fuzz\nshuffle_interval = 2 # source: fuzz\n"
             "dpp_latency = 8 # source: fuzz\nbarrier_latency = 10 # source: fuzz\n"
             "l2_bytes = 65536 # source: fuzz\nl2_ways = 4 # source: fuzz\n"
             "l2_line_bytes = 128 # source: fuzz\nsector_bytes = 32 # source: fuzz\n"
             "l2_latency = 100 # source: fuzz\ndram_latency = 500 # source: fuzz\n"
             "dram_gbps = 256 # source: fuzz\nlaunch_us = 0 # source: fuzz\n"
             /* every optional mechanism on, small, so fuzzed runs reach them */
             "l1_bytes = 8192 # source: fuzz\nl1_latency = 30 # source: fuzz\n"
             "mshrs_per_wgp = 16 # source: fuzz\nregs_per_wgp = 65536 # source: fuzz\n"
             "reg_granule = 8 # source: fuzz\nl2_partitions = 2 # source: fuzz\n"
             "l2_far_latency = 150 # source: fuzz\nxcds = 2 # source: fuzz\n"
             "mall_bytes = 262144 # source: fuzz\nmall_latency = 200 # source: fuzz\n"
             "dispatch_cycles = 3 # source: fuzz\n",
             arch, (long long)subgroup_size);
    return ls_hw_parse(text, "fuzz", hw, d);
}

/* Lower, time and execute a problem small enough for a fuzzer's pace; a
 * value the lowering computes differently from the reference, or a
 * streaming run timed differently from the full cache walk, is a bug the
 * fuzzer reports (a trap). */
static inline void fz_simulate(const ls_problem *p, const ls_derived *dv, bool amd)
{
    int64_t elems = 1;
    for (int i = 0; i < p->rank; i++)
        elems *= p->size[i];
    if (elems > 4096 || dv->total_workgroups * dv->total_iterations > 256)
        return;
    ls_hw hw;
    ls_plan plan;
    ls_sim_result r;
    ls_functional_result fr;
    ls_diag d;
    ls_diag_clear(&d);
    if (fz_machine(amd ? "gfx942" : "sm_80", dv->subgroup_size, &hw, &d) ||
        ls_plan_build(p, dv, ls_plan_target_from_arch(hw.arch), &plan, &d))
        return;
    /* A run that streams skips the caches, and results share scoreboard
     * entries: the full walk with an entry per instruction must give the
     * same figures, bit for bit (sim/engine_stream.c, engine_program.c). */
    ls_sim_result full;
    ls_engine_opts walk = {.full_cache_walk = true, .plain_scoreboard = true};
    ls_status s1 = ls_engine_run(&plan, &hw, &r, NULL, &d);
    ls_diag_clear(&d);
    ls_status s2 = ls_engine_run(&plan, &hw, &full, &walk, &d);
    if (s1 != s2)
        __builtin_trap();
    full.streamed = r.streamed;
    if (s1 == LS_OK && memcmp(&r, &full, sizeof r) != 0)
        __builtin_trap();
    ls_diag_clear(&d);
    if (ls_functional_run(&plan, (ls_input_source){1, NULL, {NULL}}, 0, -1, &fr, &d) != LS_OK &&
        fr.mismatches)
        __builtin_trap();
}

#endif
