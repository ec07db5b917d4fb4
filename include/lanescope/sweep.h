/* sweep.h: every valid config of one reduction, simulated and ranked.
 *
 * ls_sweep_enumerate lists the configs a compiler engineer could write for
 * a problem on a target: subgroup size (the target's choices), elements per
 * thread per load on the last reduction dim (powers of two up to one
 * max_load_instruction_bits load), the subgroup's lanes split between that
 * dim and the innermost parallel dim, subgroups on the reduction dim,
 * partial_reduction (the per-iteration chunk: lanes x thread x subgroups
 * times a power of two dividing the dim) and rows per workgroup, within the
 * target's workgroup-size limit; every candidate is validated and its
 * layout derived, invalid ones are dropped.  IREE's own choice
 * (suggest.h) is always among them, flagged.  With more candidates than
 * max_configs an evenly spaced subset is kept (deterministic).
 *
 * ls_sweep_run times each point with the engine on `jobs` threads; each
 * point is independent and results land in the point's slot, so the output
 * does not depend on the thread count.  Work: one engine run per point.
 */
#ifndef LANESCOPE_SWEEP_H
#define LANESCOPE_SWEEP_H

#include <stddef.h>

#include "lanescope/attention.h"
#include "lanescope/engine.h"
#include "lanescope/hwmodel.h"
#include "lanescope/problem.h"
#include "lanescope/suggest.h"

#define LS_SWEEP_MAX_CONFIGS 100000
#define LS_SWEEP_MAX_JOBS 256
/* Subgroup-instructions a whole sweep may simulate without force: with the
 * engine's tens of millions per second per core, minutes on a few cores. */
#define LS_SWEEP_BUDGET_INSTRUCTIONS (INT64_C(1) << 34)

typedef struct {
    /* the knobs */
    int64_t subgroup_size, workgroup_size;
    int64_t thread, lanes_red, lanes_par, subgroups, partial, rows;
    bool is_iree;
    bool is_input; /* the input's own lowering_config (ls_sweep_add_input) */
    bool tile_and_fuse; /* IREE's TileAndFuse config (its choice where the
                           reduction heuristic refuses); the knobs above are 0 */
    ls_lowering_config config;
    /* the result */
    ls_status status;
    char error[512]; /* the message, file:line:col first */
    int64_t cycles, workgroups, occupancy, waves;
    double time_us, dram_gbps, dram_fraction;
    /* for a roofline: the kernel alone, its DRAM bytes, its element ops
     * (iteration-space elements x (1 + fused body ops)), the Little's-law
     * cap on its DRAM bandwidth (1: none) and its bottleneck's name */
    double kernel_us, ops, mlp_cap;
    int64_t dram_bytes;
    char bottleneck[16];
} ls_sweep_point;

typedef struct {
    ls_sweep_point *points; /* owned; free() it */
    size_t n;
    size_t enumerated;      /* valid candidates before any subsetting */
    size_t iree;            /* index of IREE's choice in points */
    bool iree_rejected;     /* IREE would reject the dispatch: no flagged point */
    bool has_input;         /* the input's own config is points[input] */
    size_t input;
    char iree_why[400];
    /* Set before ls_sweep_run: run past LS_SWEEP_BUDGET_INSTRUCTIONS (and
     * each point past the engine's budget). */
    bool force;
    /* From ls_sweep_run, before anything is simulated: the subgroup-
     * instructions of every point that lowers (its work estimate). */
    int64_t estimate;
    /* Set before ls_sweep_run (NULL: p alone): p is reduction `lead` of
     * module's dispatch of several loops (fused.h); each point's config is
     * given to every op of the dispatch and the one kernel is timed.  A
     * point the kernel cannot take is a failed point, with the reason. */
    const struct ls_module_s *module;
    size_t lead;
} ls_sweep;

/* p: one reduction (its own config is ignored); t: the target's IREE view;
 * d: its dispatch (NULL: the one-op dispatch of p). */
ls_status ls_sweep_enumerate(const ls_problem *p, const ls_dispatch *d, const ls_target *t,
                             size_t max_configs, ls_sweep *out, ls_diag *diag);

/* Rank the input's own config too (p's lowering_config and
 * translation_info, which ls_sweep_enumerate ignores): the enumerated point
 * with the same config and sizes is marked, or the config is added (even
 * one that does not validate: its error is then its result). */
void ls_sweep_add_input(const ls_problem *p, ls_sweep *sw);

/* Simulate every point (jobs >= 1), after estimating the whole sweep's
 * work (sw->estimate): past the budget, LS_ERR_LIMIT with the estimate
 * unless sw->force.  progress (may be NULL) is called, serialised, after
 * each point with (done, total). */
ls_status ls_sweep_run(const ls_problem *p, const ls_hw *hw, ls_sweep *sw, int jobs,
                       void (*progress)(void *ctx, size_t done, size_t total), void *ctx,
                       ls_diag *diag);

/* That budget's decision on the numbers alone (estimate saturates at
 * INT64_MAX, so it is never negative). */
ls_status ls_sweep_work_verdict(const ls_problem *p, int64_t estimate, size_t n, bool force,
                                ls_diag *diag);

/* Point indices ordered by simulated time (failed points last); order must
 * hold sw->n entries.  Returns the rank (1-based) of IREE's choice, 0 when
 * there is none. */
size_t ls_sweep_rank(const ls_sweep *sw, size_t *order);

/* order[] = 0..n-1 by cycles, failed last, ties in index order. */
void ls_sweep_order(size_t n, const bool *failed, const int64_t *cycles, size_t *order);

/* Bytes a reduction must move through DRAM at least (input once, output once). */
int64_t ls_sweep_min_bytes(const ls_problem *p);
/* ... or, for a sweep of a dispatch's one kernel (sw->module), the
 * kernel's (ls_fused_min_bytes). */
int64_t ls_sweep_kernel_min_bytes(const ls_problem *p, const ls_sweep *sw, const ls_hw *hw);


void ls_sweep_free(ls_sweep *sw);

/* ---- a decode attention (src/sweep_attention.c) ----
 *
 * The configs setAttentionReductionConfig derives from seeds around IREE's
 * (key vectors 1..32, value vectors 1..8, subgroups 1..16: IREE's are 8, 2,
 * 8), the same config from several seeds kept once; IREE's own flagged,
 * and the op's written configs (if any) marked or added.  Each is timed
 * as `sim` times the kernel (sim/attention_timing.c). */
typedef struct {
    ls_attention_seeds seeds;  /* what gives it (unset for a written config) */
    bool is_iree, is_input;
    bool written;              /* built from the op's configs, not from seeds */
    /* the config: threads, subgroup size, keys per K2 step, N outputs per
     * workgroup, lanes on K1 and on K2, subgroups; the grid */
    int64_t workgroup_size, subgroup_size, keys_per_step, n_tile, lanes_k1, lanes_k2, subgroups;
    int64_t workgroups;
    char op[256], qk[512], pv[512]; /* the op's lowering_config, qk_attrs', pv_attrs' */
    /* the result */
    ls_status status;
    char error[400];
    int64_t cycles, occupancy, dram_bytes;
    double time_us, kernel_us, dram_gbps, dram_fraction;
    double ops, mlp_cap;       /* for a roofline: ls_att_flops, and bottleneck.h's cap */
    char bottleneck[16];
} ls_att_sweep_point;

typedef struct {
    ls_att_sweep_point *points; /* owned */
    char (*keys)[2400];         /* each point's config, to find duplicates */
    size_t n;
    size_t enumerated;          /* distinct configs from seeds */
    bool has_input;
    size_t input;
    bool force;                 /* set before ls_att_sweep_run */
    int64_t estimate;           /* from ls_att_sweep_run */
} ls_att_sweep;

/* The points (t: the target's IREE view).  The op's error where IREE's own
 * seeds do not lay it out. */
ls_status ls_att_sweep_enumerate(const ls_module *m, const ls_module_attention *ma,
                                 const ls_target *t, ls_att_sweep *out, ls_diag *diag);
/* Every point simulated on hw on `jobs` threads, after the work estimate
 * (past LS_SWEEP_BUDGET_INSTRUCTIONS, LS_ERR_LIMIT unless sw->force). */
ls_status ls_att_sweep_run(const ls_module *m, const ls_module_attention *ma, const ls_target *t,
                           const ls_hw *hw, ls_att_sweep *sw, int jobs,
                           void (*progress)(void *ctx, size_t done, size_t total), void *ctx,
                           ls_diag *diag);
/* Point indices by simulated time (failed last); the rank of IREE's (0: none). */
size_t ls_att_sweep_rank(const ls_att_sweep *sw, size_t *order);
void ls_att_sweep_free(ls_att_sweep *sw);

/* fn(ctx, i) for every i in [0, n) on `jobs` threads (fewer where threads
 * cannot be made: the same results, later); progress (may be NULL) after
 * each, serialised, with (done, n). */
void ls_parallel_for(size_t n, int jobs, void (*fn)(void *ctx, size_t i), void *ctx,
                     void (*progress)(void *pctx, size_t done, size_t total), void *pctx);

#endif
