/* hwmodel.h: hardware models for the timing engine, read from data files.
 *
 * Format: one `key = value  # source: where the number comes from` per
 * line; `#` lines are comments.  Every numeric line must name its source
 * (a publication, a microbenchmark, or "estimate: why") -- a model with an
 * unsourced number is rejected.  An optional `iree_target = #iree_gpu.target<...>`
 * line (one line, IREE's syntax) gives the IREE-visible fields that
 * validation checks against; its source is IREE's KnownTargets.cpp.  Built-in names (h100, a100, mi300x,
 * rx7900xtx) resolve to targets/NAME.hw in the data directory.
 */
#ifndef LANESCOPE_HWMODEL_H
#define LANESCOPE_HWMODEL_H

#include <stdint.h>

#include "lanescope/attrs.h"
#include "lanescope/diag.h"

typedef struct {
    char name[32], arch[32];
    int64_t wgp_count, clock_mhz, subgroup_size, schedulers_per_wgp;
    int64_t max_threads_per_wgp, max_subgroups_per_wgp, max_workgroups_per_wgp;
    int64_t smem_bytes_per_wgp, smem_banks, smem_bank_bytes, smem_latency;
    int64_t alu_latency, shuffle_latency, shuffle_interval, dpp_latency, barrier_latency;
    int64_t l2_bytes, l2_ways, l2_line_bytes, sector_bytes, l2_latency;
    int64_t dram_latency;
    double dram_gbps; /* GB/s (1e9 bytes) */
    double launch_us; /* a kernel launch, end to end (an empty kernel timed with events) */
    /* Optional mechanisms (docs/timing-model.md); absent keys leave them
     * off: no L1 (l1_bytes 0), no request limit (mshrs_per_wgp 0), no
     * register limit (regs_per_wgp 0), one L2 partition at l2_latency, one
     * die (xcds 1), no memory-side cache (mall_bytes 0), no dispatch rate
     * (dispatch_cycles 0), no unrolling (unroll_partial_threshold 0), no
     * special-function unit (sfu_interval 0). */
    int64_t l1_bytes, l1_ways, l1_latency; /* per WGP, read-allocate, the L2's lines and sectors */
    int64_t mshrs_per_wgp;       /* sector requests a WGP keeps in flight past its L1 */
    int64_t regs_per_wgp, max_regs_per_thread, reg_granule; /* 32-bit registers */
    int64_t l2_partitions, l2_far_latency; /* a line in the other partition: far latency */
    int64_t xcds;                /* dies, each with its own l2_bytes / xcds of L2 */
    int64_t mall_bytes, mall_ways, mall_latency; /* memory-side cache (Infinity Cache) */
    int64_t dispatch_cycles;     /* cycles between two workgroup dispatches, GPU-wide */
    /* A scheduler's special-function (transcendental) unit: cycles one
     * subgroup instruction holds it, and its result latency; sfu_interval
     * 0 times those instructions as ALU ones. */
    int64_t sfu_interval, sfu_latency;
    /* The backend compiler's loop unrolling (LLVM's LoopUnrollPass as the
     * target's TargetTransformInfo and IREE's optimization level set it):
     * Threshold, PartialThreshold and BEInsns, in LLVM's code-size units;
     * unroll_partial_threshold 0 leaves the loop rolled. */
    int64_t unroll_threshold, unroll_partial_threshold, unroll_be_insns;
    double dram_bytes_per_cycle; /* derived: dram_gbps / clock */
    bool has_iree_target;
    ls_target iree_target;
    /* "" for a model file; for a model built from a target's fields
     * (ls_hw_for_target), which parameters are estimates and from where */
    char note[400];
} ls_hw;

/* Parse model text; file names the source for messages. */
ls_status ls_hw_parse(const char *text, const char *file, ls_hw *hw, ls_diag *diag);
/* Load a built-in model by name or a model file by path. */
ls_status ls_hw_load(const char *name_or_path, ls_hw *hw, ls_diag *diag);
/* A model for an IREE target without a model file of its own: the target's
 * fields (subgroup size, WGP count, workgroup memory, SIMDs per WGP) over
 * the timing parameters of the nearest built-in family (NVIDIA sm_90 and
 * later: h100, earlier: a100; AMD gfx950: mi355x, other gfx9: mi300x,
 * gfx10-12: rx7900xtx), with hw->note naming what is estimated.  A target
 * whose chip has a model file (t->sku) gets that file. */
ls_status ls_hw_for_target(const ls_target *t, ls_hw *hw, ls_diag *diag);
/* Names of the built-in models, for messages. */
const char *ls_hw_names(void);

#endif
