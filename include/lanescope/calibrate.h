/* calibrate.h: CUDA microbenchmarks that measure an NVIDIA GPU, and the
 * hardware model (the format of targets/h100.hw, see hwmodel.h) written from them.
 *
 * Three steps, kept apart so the last two run without a GPU:
 *   ls_calib_run         runs the microbenchmarks (CUDA C compiled at run
 *                        time, gpu.h) and fills an ls_calib_result;
 *   ls_calib_render_hw   turns a result, the provenance in it and a base
 *                        model's text into .hw text: measured keys say
 *                        "measured on <GPU> (...)", limits the driver
 *                        reports say so, every other key keeps the base
 *                        model's line and source;
 *   ls_calib_render_csv  one CSV row per data point, each with provenance.
 *
 * Units: latencies in SM cycles (clock64), which are the simulator's cycles
 * once clock_mhz is the measured clock; bandwidths in GB/s (1e9 bytes).
 * The whole run takes a few seconds of GPU time (NVRTC compiles dominate).
 */
#ifndef LANESCOPE_CALIBRATE_H
#define LANESCOPE_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lanescope/diag.h"
#include "lanescope/gpu.h"
#include "lanescope/hwmodel.h"

/* The quantities a calibration measures.  The first group feeds model keys
 * (see ls_calib_render_hw); the rest have no model field and go to the
 * CSV and the .hw file's comments. */
typedef enum {
    LS_CAL_CLOCK_MHZ,        /* SM clock while running, MHz -> clock_mhz */
    LS_CAL_L2_LATENCY,       /* cycles per dependent L2-hit load -> l2_latency */
    LS_CAL_DRAM_LATENCY,     /* cycles per dependent L2-miss load -> dram_latency */
    LS_CAL_SMEM_LATENCY,     /* cycles per dependent shared load, degree 1 -> smem_latency + 1 */
    LS_CAL_ALU_LATENCY,      /* cycles per dependent FMA -> alu_latency */
    LS_CAL_SHUFFLE_LATENCY,  /* cycles per dependent warp shuffle -> shuffle_latency */
    LS_CAL_SHUFFLE_INTERVAL, /* cycles between warp shuffles on one SM -> shuffle_interval */
    LS_CAL_BARRIER,          /* cycles per __syncthreads -> barrier_latency */
    LS_CAL_DRAM_GBPS,        /* best streaming read, GB/s -> dram_gbps */
    LS_CAL_L1_LATENCY,       /* cycles per dependent L1-hit load */
    LS_CAL_L2_GBPS,          /* streaming read of an L2-resident set, GB/s */
    LS_CAL_LAUNCH_US,        /* one empty-kernel launch, event to event, us */
    LS_CAL_DISPATCH,         /* block dispatch rate, blocks per us (whole GPU) */
    LS_CAL_L2_FAR_LATENCY,   /* cycles per dependent load of a line in the other L2
                              * partition -> l2_far_latency (when the chase's per-load
                              * latencies split in two; l2_latency is then the near one) */
    LS_CAL_MSHRS,            /* sector requests one SM keeps in flight (Little's law on a
                              * few SMs' streaming bandwidth) -> mshrs_per_wgp, when the
                              * bandwidth levels off */
    LS_CAL_N
} ls_calib_qty;

/* An L2 in two partitions from one SM's timed loads: v[0..n) sorted
 * cycles, each load's plus `overhead` (the clock reads').  Splits them in
 * the two clusters with the least squared distance to their means (the
 * split between n/10 and 9n/10); *near and *far are the clusters' medians
 * less the overhead, *far_share the far cluster's share of the loads.
 * True when they are two partitions: each cluster holds 15% of the loads
 * or more and the far one is 25% slower or more. */
bool ls_calib_l2_split(const double *v, int n, double overhead, double *near, double *far,
                       double *far_share);

/* Quantities below this one feed model keys; ls_calib_check requires them. */
#define LS_CAL_MODEL_N (LS_CAL_DRAM_GBPS + 1)

/* Where the numbers come from; every rendered source line and CSV row
 * repeats it. */
typedef struct {
    char gpu[256]; /* device name, e.g. "NVIDIA H100 80GB HBM3" */
    char arch[16]; /* "sm_90" */
    int sm_count;
    char driver[64];   /* e.g. "580.65.06 (CUDA 13.0)"; no commas */
    char date[16];     /* YYYY-MM-DD */
    char command[512]; /* the command line that ran the calibration */
} ls_calib_prov;

/* One measured quantity. */
typedef struct {
    double value;   /* in the unit ls_calib_qty names; 0: not measured */
    char bench[32]; /* microbenchmark name, e.g. "chase_l2" */
    char how[224];  /* what was measured, e.g. "median of 7 runs of 2048 dependent loads" */
} ls_calib_value;

/* One row of the raw data: a point of a curve or table, or a summary. */
typedef struct {
    char bench[32]; /* microbenchmark name */
    char param[96]; /* the point, e.g. "degree=4" (no commas) */
    double value;
    char unit[24]; /* e.g. "cycles", "GB/s" */
} ls_calib_point;

#define LS_CALIB_MAX_POINTS 192

typedef struct {
    ls_calib_prov prov;
    ls_calib_value q[LS_CAL_N];
    /* limits the driver reports (0: unknown, the base model's value stays) */
    int64_t l2_bytes, smem_per_sm, max_threads_per_sm, max_blocks_per_sm;
    ls_calib_point points[LS_CALIB_MAX_POINTS];
    int n_points;
} ls_calib_result;

typedef struct {
    int reps;   /* runs behind each median (0: 7, or 3 with quick) */
    bool quick; /* shorter chains, fewer curve points */
    /* called before each microbenchmark (NULL: none); for progress lines */
    void (*progress)(void *ctx, int index, int total, const char *bench);
    void *progress_ctx;
} ls_calib_opts;

/* ---- the CUDA C sources (each compiles alone with NVRTC, no headers) ---- */
typedef struct {
    const char *name;    /* e.g. "chase" */
    const char *kernels; /* its entry points, space-separated */
    const char *src;
} ls_calib_source;

/* The table of sources; *n gets its length.  Static storage. */
const ls_calib_source *ls_calib_sources(size_t *n);

/* ---- on a GPU ---- */

/* Run every microbenchmark on g and fill *r (prov.gpu, arch, sm_count and
 * driver from the device; the caller sets prov.date and prov.command).  A
 * result a benchmark cannot trust (a zero time, a clock that did not move)
 * is LS_ERR_INVALID naming the benchmark.  Allocates and frees its own
 * device memory. */
ls_status ls_calib_run(ls_gpu *g, const ls_calib_opts *opts, ls_calib_result *r, ls_diag *diag);

/* The driver's version as "580.65.06 (CUDA 13.0)" (the kernel module's
 * version from /proc/driver/nvidia/version when readable). */
void ls_calib_driver_string(int cuda_driver_version, char *buf, size_t size);

/* ---- without a GPU ---- */

/* Append a raw data point; false when the table is full. */
bool ls_calib_add_point(ls_calib_result *r, const char *bench, const char *param, double value,
                        const char *unit);

/* Check that r is complete: provenance filled, every model quantity
 * measured, finite and positive.  LS_ERR_INVALID names the first gap. */
ls_status ls_calib_check(const ls_calib_result *r, ls_diag *diag);

/* "h100" from "NVIDIA H100 80GB HBM3": the first word shaped like a chip
 * (a letter and digits), else the first word that is not a vendor name
 * with the number after it ("rtx4090"); lower case, letters and digits
 * only, at most 20 characters ("gpu" when nothing is left). */
void ls_calib_short_name(const char *gpu, char *buf, size_t size);

/* The base model's text and where it came from: a built-in name (h100,
 * sm_90, ...) looked up as ls_hw_load does, or a .hw path.  *text is
 * malloc'd (the caller frees it); *hw is the parsed model. */
ls_status ls_calib_load_base(const char *name_or_path, char **text, char *path, size_t path_size,
                             ls_hw *hw, ls_diag *diag);

/* The .hw text (malloc'd into *out) for r on top of the base model
 * base_text (read from base_path, named in the header).  The result is
 * checked first (ls_calib_check); the text is checked by ls_hw_parse before
 * it is returned. */
ls_status ls_calib_render_hw(const ls_calib_result *r, const char *base_text, const char *base_path,
                             char **out, ls_diag *diag);

/* The raw CSV (malloc'd into *out): header
 * benchmark,parameter,value,unit,gpu,sm_count,driver,date,command
 * and one row per point. */
ls_status ls_calib_render_csv(const ls_calib_result *r, char **out, ls_diag *diag);

#endif
