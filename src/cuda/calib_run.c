/* calib_run.c: running the calibration microbenchmarks on a GPU and
 * turning their clocks and events into model values (see calibrate.c for
 * the method). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/arena.h"
#include "lanescope/calibrate.h"
#include "calib.h"

/* ------------------------------------------------------------ on the GPU */

#define MAX_REPS 15

typedef struct {
    ls_gpu *g;
    const ls_gpu_info *info;
    ls_calib_result *r;
    ls_diag *diag;
    int reps;
    bool quick;
    ls_devptr out; /* out_words long longs the kernels write their cycles to */
    size_t out_words;
    double empty_ms; /* one empty-kernel launch, event to event (median) */
} cal;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void set_q(cal *c, ls_calib_qty q, double value, const char *bench, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void set_q(cal *c, ls_calib_qty q, double value, const char *bench, const char *fmt, ...)
{
    ls_calib_value *v = &c->r->q[q];
    v->value = value;
    snprintf(v->bench, sizeof v->bench, "%s", bench);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->how, sizeof v->how, fmt, ap);
    va_end(ap);
}

static void point(cal *c, const char *bench, double value, const char *unit, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void point(cal *c, const char *bench, double value, const char *unit, const char *fmt, ...)
{
    char param[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(param, sizeof param, fmt, ap);
    va_end(ap);
    ls_calib_add_point(c->r, bench, param, value, unit); /* the table fits every point */
}

static ls_status load(cal *c, int source, const char *kernel, ls_gpu_kernel **k)
{
    size_t n;
    return ls_gpu_kernel_load(c->g, ls_calib_sources(&n)[source].src, kernel, 0, k, c->diag);
}

/* One launch of a 1-D grid, timed with events when ms is not NULL. */
static ls_status launch(cal *c, ls_gpu_kernel *k, unsigned grid, unsigned block, void **args,
                        float *ms)
{
    const unsigned g3[3] = {grid, 1, 1}, b3[3] = {block, 1, 1};
    return ls_gpu_launch(c->g, k, g3, b3, 0, args, 1, ms, c->diag);
}

static ls_status fetch(cal *c, long long *dst, size_t n)
{
    return ls_gpu_download(c->g, dst, c->out, n * sizeof *dst, c->diag);
}

static ls_status implausible(cal *c, const char *bench, const char *what, double v)
{
    return ls_diag_set(c->diag, LS_ERR_INVALID, "", 0, 0,
                       "microbenchmark %s: %s came out as %g; not trusting this run (another "
                       "process on the GPU?)",
                       bench, what, v);
}

/* The SM clock while every SM runs: spins of n1 and n2 clock64 cycles,
 * timed with events; the slope cancels the launch's fixed cost. */
static ls_status bench_clock(cal *c)
{
    ls_gpu_kernel *k;
    ls_status st = load(c, S_CLOCK, "ls_cal_spin", &k);
    if (st)
        return st;
    long long n1 = 1000000, n2 = c->quick ? 6000000 : 20000000;
    void *a1[] = {&n1, &c->out}, *a2[] = {&n2, &c->out};
    unsigned grid = (unsigned)c->info->sm_count;
    double t1[MAX_REPS], t2[MAX_REPS];
    float ms;
    st = launch(c, k, grid, 32, a2, NULL); /* lets the clock ramp up */
    for (int i = 0; i < c->reps && !st; i++) {
        if (!(st = launch(c, k, grid, 32, a1, &ms)))
            t1[i] = ms;
        if (!st && !(st = launch(c, k, grid, 32, a2, &ms)))
            t2[i] = ms;
    }
    ls_gpu_kernel_free(c->g, k);
    if (st)
        return st;
    double m1 = median(t1, c->reps), m2 = median(t2, c->reps);
    double mhz = (double)(n2 - n1) / ((m2 - m1) * 1e3);
    if (!(m2 > m1) || !isfinite(mhz) || mhz < 10 || mhz > 10000)
        return implausible(c, "clock", "the SM clock in MHz", mhz);
    point(c, "clock", m1, "ms", "spin_cycles=%lld", n1);
    point(c, "clock", m2, "ms", "spin_cycles=%lld", n2);
    point(c, "clock", c->info->clock_khz / 1e3, "MHz", "driver_reported_max_clock");
    set_q(c, LS_CAL_CLOCK_MHZ, mhz, "clock",
          "clock64 cycles over event time, slope between %lld- and %lld-cycle spins on all "
          "%d SMs, medians of %d",
          n1, n2, c->info->sm_count, c->reps);
    return LS_OK;
}

/* Launch overhead (empty kernels: one at a time, and back to back) and
 * the block dispatch rate (many one-warp blocks that do nothing). */
static ls_status bench_launch(cal *c)
{
    ls_gpu_kernel *k;
    ls_status st = load(c, S_EMPTY, "ls_cal_empty", &k);
    if (st)
        return st;
    const unsigned one[3] = {1, 1, 1}, warp[3] = {32, 1, 1};
    int burst = c->quick ? 200 : 1000;
    unsigned blocks = c->quick ? 65536 : 262144;
    double t[MAX_REPS], d[MAX_REPS];
    float ms = 0, burst_ms = 0;
    for (int i = 0; i < 3 && !st; i++) /* warm-up */
        st = launch(c, k, 1, 32, NULL, NULL);
    for (int i = 0; i < c->reps && !st; i++)
        if (!(st = launch(c, k, 1, 32, NULL, &ms)))
            t[i] = ms;
    if (!st)
        st = ls_gpu_launch(c->g, k, one, warp, 0, NULL, burst, &burst_ms, c->diag);
    if (!st)
        st = launch(c, k, blocks, 32, NULL, NULL);
    for (int i = 0; i < c->reps && !st; i++)
        if (!(st = launch(c, k, blocks, 32, NULL, &ms)))
            d[i] = ms;
    ls_gpu_kernel_free(c->g, k);
    if (st)
        return st;
    double mhz = c->r->q[LS_CAL_CLOCK_MHZ].value;
    c->empty_ms = median(t, c->reps);
    double net_ms = median(d, c->reps) - c->empty_ms;
    if (!(c->empty_ms > 0) || !(net_ms > 0) || !(burst_ms > 0))
        return implausible(c, "launch", "a kernel's event time in ms",
                           c->empty_ms > 0 ? net_ms : c->empty_ms);
    double per_burst_us = burst_ms * 1e3 / burst, rate = blocks / (net_ms * 1e3);
    set_q(c, LS_CAL_LAUNCH_US, c->empty_ms * 1e3, "launch",
          "one empty 1-block kernel between two events, median of %d", c->reps);
    point(c, "launch", c->empty_ms * 1e3 * mhz, "cycles", "single_launch");
    point(c, "launch", per_burst_us, "us", "back_to_back_launches=%d", burst);
    point(c, "launch", per_burst_us * mhz, "cycles", "back_to_back_launches=%d", burst);
    set_q(c, LS_CAL_DISPATCH, rate, "dispatch",
          "%u empty 32-thread blocks, event time less one empty launch, median of %d", blocks,
          c->reps);
    point(c, "dispatch", net_ms * 1e-3 * mhz * 1e6 * c->info->sm_count / blocks, "cycles",
          "per_block_per_sm;blocks=%u", blocks);
    return LS_OK;
}

/* A pointer chase sized for one level of the memory hierarchy. */
typedef struct {
    const char *bench;
    ls_calib_qty q;
    uint64_t slot_bytes; /* one node at the start of each slot */
    unsigned bits;       /* 2^bits slots */
    unsigned nodes;      /* chain length (<= 2^bits) */
    int l1;              /* ld.global.ca, else .cg */
    unsigned warm, steps;
    uint64_t tlb_stride; /* 0: no page-table warm-up */
    bool flush;          /* flush L2 before each run */
    const char *what;
} chase_level;

static ls_status chase_one(cal *c, ls_gpu_kernel *init, ls_gpu_kernel *run, ls_devptr buf,
                           const chase_level *lv)
{
    uint64_t region = lv->slot_bytes << lv->bits, tlb_offset = 2048, slot = lv->slot_bytes;
    unsigned bits = lv->bits, nodes = lv->nodes, warm = lv->warm, steps = lv->steps;
    uint64_t tlb_stride = lv->tlb_stride;
    int l1 = lv->l1;
    void *ia[] = {&buf, &slot, &bits, &nodes};
    void *ra[] = {&buf, &slot, &bits, &l1, &warm, &steps, &tlb_stride, &tlb_offset, &c->out};
    double v[MAX_REPS];
    long long cycles = 0;
    /* zeroed, so the page-table touches read zeros (the kernel relies on it) */
    ls_status st = ls_gpu_memset(c->g, buf, 0, region, c->diag);
    if (!st)
        st = launch(c, init, (nodes + 255) / 256, 256, ia, NULL);
    for (int i = 0; i < c->reps && !st; i++) {
        if (lv->flush)
            st = ls_gpu_flush_l2(c->g, c->diag);
        if (!st)
            st = launch(c, run, 1, 1, ra, NULL);
        if (!st)
            st = fetch(c, &cycles, 1);
        v[i] = (double)cycles / steps;
    }
    if (st)
        return st;
    double m = median(v, c->reps);
    if (!(m > 0))
        return implausible(c, lv->bench, "cycles per load", m);
    point(c, lv->bench, m, "cycles", "steps=%u;slot_bytes=%llu;region_bytes=%llu", steps,
          (unsigned long long)slot, (unsigned long long)region);
    set_q(c, lv->q, m, lv->bench,
          "%s, %u dependent loads over %llu random %llu-byte slots of a %llu KiB region, "
          "median of %d",
          lv->what, steps, (unsigned long long)nodes, (unsigned long long)slot,
          (unsigned long long)(region >> 10), c->reps);
    return LS_OK;
}

/* The L2 chase once more with every load timed on its own.  An L2 in
 * partitions answers from the SM's own partition or from the other one, so
 * the latencies fall in two clusters (ls_calib_l2_split); the clock reads'
 * cost is the mean of the timed loads less the averaged chase's latency.
 * Two clusters: the near one is l2_latency, the far one l2_far_latency.
 * Else the averaged chase stays l2_latency and the far latency is not
 * measured. */
static ls_status chase_split(cal *c, ls_gpu_kernel *init, ls_devptr buf)
{
    uint64_t slot = 512;
    unsigned bits = 11, nodes = 2048, warm = 2048, steps = c->quick ? 1024 : 2048;
    ls_gpu_kernel *k = NULL;
    ls_devptr lat = 0;
    void *ia[] = {&buf, &slot, &bits, &nodes};
    void *ra[] = {&buf, &slot, &bits, &warm, &steps, &lat};
    long long *h = ls_xcalloc(steps, sizeof *h);
    double *v = ls_xcalloc(steps, sizeof *v);
    ls_status st = load(c, S_CHASE, "ls_cal_chase_steps", &k);
    if (!st)
        st = ls_gpu_alloc(c->g, steps * sizeof *h, &lat, c->diag);
    if (!st)
        st = ls_gpu_memset(c->g, buf, 0, slot << bits, c->diag);
    if (!st)
        st = launch(c, init, (nodes + 255) / 256, 256, ia, NULL);
    if (!st)
        st = launch(c, k, 1, 1, ra, NULL);
    if (!st)
        st = ls_gpu_download(c->g, h, lat, steps * sizeof *h, c->diag);
    double avg = c->r->q[LS_CAL_L2_LATENCY].value, mean = 0;
    for (unsigned i = 0; !st && i < steps; i++) {
        v[i] = (double)h[i];
        mean += v[i] / steps;
    }
    if (!st && !(mean > 0 && avg > 0))
        st = implausible(c, "chase_l2_steps", "cycles per timed load", mean);
    if (!st) {
        qsort(v, steps, sizeof *v, cmp_double);
        int n = (int)steps;
        double overhead = mean - avg > 0 ? mean - avg : 0, near, far, far_share;
        bool two = ls_calib_l2_split(v, n, overhead, &near, &far, &far_share);
        static const int pct[] = {10, 25, 50, 75, 90};
        for (int i = 0; i < 5; i++)
            point(c, "chase_l2_steps", v[(n - 1) * pct[i] / 100], "cycles",
                  "percentile=%d;timed_load_with_clock_reads", pct[i]);
        point(c, "chase_l2_steps", overhead, "cycles", "clock_read_overhead");
        point(c, "chase_l2_steps", near, "cycles", "near_cluster;share=%.2f", 1 - far_share);
        point(c, "chase_l2_steps", far, "cycles", "far_cluster;share=%.2f", far_share);
        if (two) {
            set_q(c, LS_CAL_L2_LATENCY, near, "chase_l2_steps",
                  "ld.global.cg L2 hits timed one by one, %u loads over %u random %llu-byte "
                  "slots: the near cluster's median (%.0f%% of loads), less %.1f cycles of "
                  "clock reads",
                  steps, nodes, (unsigned long long)slot, 100 * (1 - far_share), overhead);
            set_q(c, LS_CAL_L2_FAR_LATENCY, far, "chase_l2_steps",
                  "the same loads' far cluster's median (%.0f%% of loads; averaged chase %.1f "
                  "cycles)",
                  100 * far_share, avg);
        }
    }
    free(h);
    free(v);
    ls_gpu_free(c->g, lat);
    ls_gpu_kernel_free(c->g, k);
    return st;
}

/* Load-to-use latency of L1, L2 and DRAM: one thread, one chain each. */
static ls_status bench_chase(cal *c)
{
    unsigned dram_nodes = c->quick ? 1024 : 2048;
    const chase_level levels[] = {
        {"chase_l1", LS_CAL_L1_LATENCY, 128, 7, 128, 1, 128, c->quick ? 512 : 1024, 0, false,
         "ld.global.ca after a warm pass (L1 hits)"},
        {"chase_l2", LS_CAL_L2_LATENCY, 512, 11, 2048, 0, 2048, c->quick ? 1024 : 2048, 0, false,
         "ld.global.cg after a warm pass (L2 hits)"},
        /* L2 flushed before each run and every node on its own line: all
         * misses; one touch per 64 KiB first keeps page walks out */
        {"chase_dram", LS_CAL_DRAM_LATENCY, 4096, 14, dram_nodes, 0, 0, dram_nodes, 65536, true,
         "ld.global.cg after an L2 flush (L2 misses)"},
    };
    ls_gpu_kernel *init = NULL, *run = NULL;
    ls_devptr buf = 0;
    ls_status st = load(c, S_CHASE, "ls_cal_chase_init", &init);
    if (!st)
        st = load(c, S_CHASE, "ls_cal_chase", &run);
    if (!st)
        st = ls_gpu_alloc(c->g, (size_t)4096 << 14, &buf, c->diag);
    for (size_t i = 0; i < sizeof levels / sizeof levels[0] && !st; i++)
        st = chase_one(c, init, run, buf, &levels[i]);
    if (!st)
        st = chase_split(c, init, buf);
    ls_gpu_free(c->g, buf);
    ls_gpu_kernel_free(c->g, init);
    ls_gpu_kernel_free(c->g, run);
    return st;
}

/* Shared memory: dependent warp-wide loads at conflict degree 1..32. */
static ls_status bench_smem(cal *c)
{
    ls_gpu_kernel *k;
    ls_status st = load(c, S_SMEM, "ls_cal_smem", &k);
    if (st)
        return st;
    unsigned steps = c->quick ? 256 : 1024;
    void *args[] = {&steps, &c->out};
    double lat[32][MAX_REPS];
    long long cycles[32];
    for (int i = 0; i < c->reps && !st; i++) {
        if (!(st = launch(c, k, 1, 32, args, NULL)))
            st = fetch(c, cycles, 32);
        for (int d = 0; d < 32 && !st; d++)
            lat[d][i] = (double)cycles[d] / steps;
    }
    ls_gpu_kernel_free(c->g, k);
    if (st)
        return st;
    double m[32];
    for (int d = 0; d < 32; d++) {
        m[d] = median(lat[d], c->reps);
        point(c, "smem_conflict", m[d], "cycles", "degree=%d", d + 1);
    }
    if (!(m[0] > 0))
        return implausible(c, "smem_conflict", "cycles per shared load", m[0]);
    set_q(c, LS_CAL_SMEM_LATENCY, m[0], "smem_conflict",
          "%u dependent warp-wide ld.shared at conflict degree 1, median of %d (degree 32: "
          "%.1f cycles)",
          steps, c->reps, m[31]);
    return LS_OK;
}

/* ALU and shuffle latency: dependent FMA and shfl.bfly chains, one warp. */
static ls_status bench_dep(cal *c)
{
    ls_gpu_kernel *k;
    ls_status st = load(c, S_DEP, "ls_cal_dep", &k);
    if (st)
        return st;
    unsigned steps = c->quick ? 512 : 2048;
    float a = 0.5f, b = 1.0f;
    void *args[] = {&steps, &a, &b, &c->out};
    double alu[MAX_REPS], shfl[MAX_REPS];
    long long cycles[2];
    for (int i = 0; i < c->reps && !st; i++) {
        if (!(st = launch(c, k, 1, 32, args, NULL)))
            st = fetch(c, cycles, 2);
        alu[i] = (double)cycles[0] / steps;
        shfl[i] = (double)cycles[1] / steps;
    }
    ls_gpu_kernel_free(c->g, k);
    if (st)
        return st;
    double ma = median(alu, c->reps), ms = median(shfl, c->reps);
    if (!(ma > 0) || !(ms > 0))
        return implausible(c, "dependent", "cycles per dependent operation", ma > 0 ? ms : ma);
    set_q(c, LS_CAL_ALU_LATENCY, ma, "dependent_fma",
          "%u dependent fma.rn.f32 in one warp, median of %d", steps, c->reps);
    set_q(c, LS_CAL_SHUFFLE_LATENCY, ms, "dependent_shuffle",
          "%u dependent shfl.sync.bfly.b32 in one warp, median of %d", steps, c->reps);
    return LS_OK;
}

/* Shuffle issue interval per SM: 32 warps x 8 independent chains on
 * every SM; cycles per SM over the warp shuffles it ran. */
static ls_status bench_shuffle_rate(cal *c)
{
    ls_gpu_kernel *k;
    ls_status st = load(c, S_SHFL, "ls_cal_shfl_tput", &k);
    if (st)
        return st;
    unsigned iters = c->quick ? 64 : 256, grid = (unsigned)c->info->sm_count;
    void *args[] = {&iters, &c->out};
    double per_rep[MAX_REPS];
    long long *cycles = ls_xcalloc(grid, sizeof *cycles);
    double *blocks = ls_xcalloc(grid, sizeof *blocks);
    double shuffles = (double)iters * 8 * 32; /* per block: iters x 8 chains x 32 warps */
    for (int i = 0; i < c->reps && !st; i++) {
        if (!(st = launch(c, k, grid, 1024, args, NULL)))
            st = fetch(c, cycles, grid);
        for (unsigned b = 0; b < grid && !st; b++)
            blocks[b] = (double)cycles[b] / shuffles;
        if (!st)
            per_rep[i] = median(blocks, (int)grid);
    }
    free(cycles);
    free(blocks);
    ls_gpu_kernel_free(c->g, k);
    if (st)
        return st;
    double m = median(per_rep, c->reps);
    if (!(m > 0))
        return implausible(c, "shuffle_throughput", "cycles per warp shuffle", m);
    set_q(c, LS_CAL_SHUFFLE_INTERVAL, m, "shuffle_throughput",
          "cycles per SM over %.0f independent warp shuffles (32 warps x 8 chains), median "
          "over SMs, median of %d",
          shuffles, c->reps);
    return LS_OK;
}

/* __syncthreads cost against warps per block. */
static ls_status bench_barrier(cal *c)
{
    ls_gpu_kernel *k;
    ls_status st = load(c, S_BARRIER, "ls_cal_barrier", &k);
    if (st)
        return st;
    static const int quick_warps[] = {1, 2, 4, 8, 16, 32};
    int nw = c->quick ? 6 : 32;
    unsigned iters = c->quick ? 64 : 256;
    void *args[] = {&iters, &c->out};
    double per_w[32], v[MAX_REPS];
    long long cycles = 0;
    for (int w = 0; w < nw && !st; w++) {
        int warps = c->quick ? quick_warps[w] : w + 1;
        for (int i = 0; i < c->reps && !st; i++) {
            if (!(st = launch(c, k, 1, 32 * (unsigned)warps, args, NULL)))
                st = fetch(c, &cycles, 1);
            v[i] = (double)cycles / (iters * 8.0);
        }
        if (st)
            break;
        per_w[w] = median(v, c->reps);
        point(c, "barrier", per_w[w], "cycles", "warps=%d", warps);
    }
    ls_gpu_kernel_free(c->g, k);
    if (st)
        return st;
    double lo = per_w[0], hi = per_w[nw - 1];
    double m = median(per_w, nw);
    if (!(m > 0))
        return implausible(c, "barrier", "cycles per __syncthreads", m);
    set_q(c, LS_CAL_BARRIER, m, "barrier",
          "%u back-to-back __syncthreads in one block, median over %d block sizes of 1..32 "
          "warps of medians of %d (1 warp %.1f, 32 warps %.1f cycles)",
          iters * 8, nw, c->reps, lo, hi);
    return LS_OK;
}

/* Streaming reads: bytes per second over event time less one empty
 * launch.  blocks_per_sm is capped by the driver's occupancy answer and
 * exactly the resident blocks are launched, so all of them stream at once. */
typedef struct {
    cal *c;
    ls_gpu_kernel *k[4]; /* 1, 2, 4, 8 loads in flight per thread */
    ls_devptr buf;
} streamer;

static int loads_index(int loads)
{
    return loads == 1 ? 0 : loads == 2 ? 1 : loads == 4 ? 2 : 3;
}

/* Median GB/s of reading `bytes` (from the buffer's start, `passes` times)
 * with a grid of `grid` blocks of `threads`, `loads` 16-byte loads each. */
static ls_status stream_grid(streamer *s, unsigned grid, unsigned threads, int loads,
                             uint64_t bytes, int passes, double *gbps)
{
    cal *c = s->c;
    ls_gpu_kernel *k = s->k[loads_index(loads)];
    uint64_t chunk = (uint64_t)grid * threads * (uint64_t)loads * 16;
    uint64_t iters = bytes / chunk ? bytes / chunk : 1;
    void *args[] = {&s->buf, &iters, &passes, &c->out};
    double t[MAX_REPS];
    float ms = 0;
    ls_status st = launch(c, k, grid, threads, args, NULL); /* warm-up (and L2 fill) */
    for (int i = 0; i < c->reps && !st; i++)
        if (!(st = launch(c, k, grid, threads, args, &ms)))
            t[i] = ms;
    if (st)
        return st;
    double m = median(t, c->reps);
    double net = m - c->empty_ms > 0.5 * m ? m - c->empty_ms : m;
    *gbps = (double)(iters * chunk) * passes / (net * 1e-3) / 1e9;
    if (!(*gbps > 0) || !isfinite(*gbps))
        return implausible(c, "stream", "GB/s", *gbps);
    return LS_OK;
}

/* The same with `bps` blocks of 256 threads per SM on every SM (fewer when
 * the driver says fewer fit: *resident). */
static ls_status stream_gbps(streamer *s, int bps, int loads, uint64_t bytes, int passes,
                             double *gbps, int *resident)
{
    cal *c = s->c;
    int occ = ls_gpu_kernel_occupancy(c->g, s->k[loads_index(loads)], 256, 0);
    *resident = occ > 0 && occ < bps ? occ : bps;
    return stream_grid(s, (unsigned)(*resident * c->info->sm_count), 256, loads, bytes, passes,
                       gbps);
}

/* Sector requests one SM keeps in flight.  A few SMs (an eighth of them,
 * one block each: together far from the DRAM's bandwidth) stream with 4 KiB
 * to 128 KiB of loads issued per SM.  By Little's law an SM's bandwidth
 * times the DRAM latency is what it really keeps in flight; when that
 * levels off (under 10% more from 64 KiB to 128 KiB issued) the level is
 * the SM's limit, in 32-byte sectors (NVIDIA's), whatever imposes it (its
 * miss-handling registers, its port to the L2): mshrs_per_wgp, the model's
 * limit of the same kind.  Still rising: not written, the points say how
 * far it got. */
static ls_status stream_mlp(streamer *s, uint64_t bytes)
{
    cal *c = s->c;
    static const int cfg[][2] = {{256, 1}, {256, 2}, {256, 4}, {256, 8},
                                 {1024, 2}, {1024, 4}, {1024, 8}};
    const int n = (int)(sizeof cfg / sizeof cfg[0]);
    unsigned sms = c->info->sm_count >= 8 ? (unsigned)c->info->sm_count / 8 : 1;
    double mhz = c->r->q[LS_CAL_CLOCK_MHZ].value, lat = c->r->q[LS_CAL_DRAM_LATENCY].value;
    double sectors[sizeof cfg / sizeof cfg[0]] = {0}, gbps = 0;
    if (!(mhz > 0 && lat > 0))
        return implausible(c, "mlp", "the clock or the DRAM latency", mhz > 0 ? lat : mhz);
    for (int i = 0; i < n; i++) {
        ls_status st = stream_grid(s, sms, (unsigned)cfg[i][0], cfg[i][1], bytes, 1, &gbps);
        if (st)
            return st;
        int issued = cfg[i][0] * cfg[i][1] * 16;
        double per_sm = gbps / sms, bytes_per_cycle = per_sm * 1e3 / mhz;
        sectors[i] = bytes_per_cycle * lat / 32;
        point(c, "mlp", per_sm, "GB/s",
              "per_sm;bytes_issued_per_sm=%d;threads=%d;loads=%d;sms=%u", issued, cfg[i][0],
              cfg[i][1], sms);
        point(c, "mlp", sectors[i], "sectors", "in_flight_by_littles_law;bytes_issued_per_sm=%d",
              issued);
    }
    double top = 0;
    for (int i = 0; i < n; i++)
        top = sectors[i] > top ? sectors[i] : top;
    if (sectors[n - 1] < 1.1 * sectors[n - 2])
        set_q(c, LS_CAL_MSHRS, round(top), "mlp",
              "%u SMs of one 256- or 1024-thread block streaming %llu MiB with 4-128 KiB "
              "issued each: per-SM GB/s x DRAM latency (%.0f cycles) / 32 B, where it levels "
              "off, median of %d",
              sms, (unsigned long long)(bytes >> 20), lat, c->reps);
    else
        point(c, "mlp", top, "sectors", "still_rising_at_128KiB;lower_bound");
    return LS_OK;
}

static ls_status stream_curves(streamer *s, uint64_t dram_bytes)
{
    cal *c = s->c;
    static const int full[][2] = {{1, 1}, {1, 4}, {2, 4}, {4, 4}, {8, 1}, {8, 2}, {8, 4}, {8, 8}};
    static const int quick[][2] = {{1, 4}, {4, 4}, {8, 4}, {8, 8}};
    const int(*cfg)[2] = c->quick ? quick : full;
    int n = c->quick ? 4 : 8, best_bps = 0, best_loads = 0, res = 0;
    double best = 0, gbps = 0;
    ls_status st = LS_OK;
    for (int i = 0; i < n && !st; i++) {
        if ((st = stream_gbps(s, cfg[i][0], cfg[i][1], dram_bytes, 1, &gbps, &res)))
            break;
        point(c, "dram_bw", gbps, "GB/s",
              "bytes_in_flight_per_sm=%d;blocks_per_sm=%d;threads=256;loads=%d",
              res * 256 * cfg[i][1] * 16, res, cfg[i][1]);
        if (gbps > best) {
            best = gbps;
            best_bps = res;
            best_loads = cfg[i][1];
        }
    }
    if (st)
        return st;
    set_q(c, LS_CAL_DRAM_GBPS, best, "dram_bw",
          "streaming ld.global.cg.v4 reads of %llu MiB, best of %d in-flight configurations "
          "(%d blocks x 256 threads x %d loads per SM), median of %d, launch time subtracted",
          (unsigned long long)(dram_bytes >> 20), n, best_bps, best_loads, c->reps);
    /* L2: a quarter of it, read many times (L2 is split in two partitions
     * on recent parts; a quarter stays resident in either) */
    uint64_t ws = c->info->l2_bytes > 0 ? (uint64_t)c->info->l2_bytes / 4 : (8u << 20);
    int passes = c->quick ? 128 : 512;
    if ((st = stream_gbps(s, 4, 2, ws, passes, &gbps, &res)))
        return st;
    point(c, "l2_bw", gbps, "GB/s", "working_set_bytes=%llu;passes=%d;blocks_per_sm=%d;loads=2",
          (unsigned long long)ws, passes, res);
    set_q(c, LS_CAL_L2_GBPS, gbps, "l2_bw",
          "ld.global.cg.v4 reads of an L2-resident %llu KiB, %d passes, median of %d",
          (unsigned long long)(ws >> 10), passes, c->reps);
    return LS_OK;
}

/* The latency a streaming load sees: one warp per SM with one 16-byte load
 * a lane in flight (the loop stays rolled: each trip waits for its load
 * before the next one issues), reading DRAM once, then the same over an
 * L2-resident set.  A trip is the load's latency plus the loop's own
 * instructions; the L2 trip less the chased L2 latency is the latter, and
 * comes off the DRAM trip.  Reductions stream, and on an H100 their loads
 * wait longer than the random chase's (a one-subgroup-per-SM sweep ran
 * 15-25% slower than a model on the chased latency): the model's
 * dram_latency takes this one; the chase stays a data point. */
static ls_status stream_latency(streamer *s, uint64_t bytes)
{
    cal *c = s->c;
    unsigned grid = (unsigned)c->info->sm_count;
    double mhz = c->r->q[LS_CAL_CLOCK_MHZ].value, l2 = c->r->q[LS_CAL_L2_LATENCY].value;
    double chase = c->r->q[LS_CAL_DRAM_LATENCY].value, dram_gbps = 0, l2_gbps = 0;
    uint64_t l2_set = (uint64_t)grid * 32 * 16 * 64; /* 64 trips a pass */
    ls_status st = stream_grid(s, grid, 32, 1, bytes, 1, &dram_gbps);
    if (!st)
        st = stream_grid(s, grid, 32, 1, l2_set, 64, &l2_gbps);
    if (st)
        return st;
    /* 512 bytes a trip per SM, over the SM's bytes a cycle */
    double trip_dram = 512.0 * grid * mhz / (dram_gbps * 1e3);
    double trip_l2 = 512.0 * grid * mhz / (l2_gbps * 1e3);
    double loop = trip_l2 - l2 > 0 ? trip_l2 - l2 : 0, lat = trip_dram - loop;
    point(c, "stream_latency", trip_dram, "cycles", "trip;dram;one_warp_per_sm;loads=1");
    point(c, "stream_latency", trip_l2, "cycles", "trip;l2_resident;one_warp_per_sm;loads=1");
    point(c, "stream_latency", loop, "cycles", "loop_instructions;l2_trip_less_chased_l2");
    point(c, "stream_latency", chase, "cycles", "random_chase_for_comparison");
    if (!(lat > 0.5 * chase && lat < 4 * chase))
        return implausible(c, "stream_latency", "cycles per streaming DRAM load", lat);
    set_q(c, LS_CAL_DRAM_LATENCY, lat, "stream_latency",
          "one warp per SM streaming %llu MiB with one 16-byte load a lane in flight: cycles "
          "a trip (%.0f) less the loop's own (%.0f: an L2-resident trip less the L2 latency); "
          "the random chase: %.0f",
          (unsigned long long)(bytes >> 20), trip_dram, loop, chase);
    return LS_OK;
}

static ls_status bench_stream(cal *c)
{
    static const char *const names[4] = {"ls_cal_stream1", "ls_cal_stream2", "ls_cal_stream4",
                                         "ls_cal_stream8"};
    streamer s = {c, {NULL}, 0};
    /* 1 GiB (20x the L2 of an H100), less on small cards */
    uint64_t bytes = (uint64_t)1 << 30;
    while (c->info->total_mem > 0 && bytes > (uint64_t)c->info->total_mem / 8)
        bytes /= 2;
    ls_status st = ls_gpu_alloc(c->g, bytes, &s.buf, c->diag);
    if (!st) /* equal words: the kernel's fold is 0 (see the source) */
        st = ls_gpu_memset(c->g, s.buf, 0x5a, bytes, c->diag);
    for (int i = 0; i < 4 && !st; i++)
        st = load(c, S_STREAM, names[i], &s.k[i]);
    if (!st)
        st = stream_curves(&s, bytes);
    /* the streaming latency first: the request limit's Little's law uses it;
     * an eighth of the buffer is still 2.5x an H200's L2, so every read misses */
    if (!st)
        st = stream_latency(&s, bytes / 8);
    if (!st)
        st = stream_mlp(&s, bytes / 4);
    for (int i = 0; i < 4; i++)
        ls_gpu_kernel_free(c->g, s.k[i]);
    ls_gpu_free(c->g, s.buf);
    return st;
}

ls_status ls_calib_run(ls_gpu *g, const ls_calib_opts *opts, ls_calib_result *r, ls_diag *diag)
{
    static const struct {
        const char *name;
        ls_status (*run)(cal *);
    } benches[] = {
        /* the clock first: later ones convert times with it; launch before
         * stream: bandwidths subtract the empty launch */
        {"clock", bench_clock},     {"launch", bench_launch},
        {"chase", bench_chase},     {"smem_conflict", bench_smem},
        {"dependent", bench_dep},   {"shuffle_throughput", bench_shuffle_rate},
        {"barrier", bench_barrier}, {"stream", bench_stream},
    };
    const int nb = (int)(sizeof benches / sizeof benches[0]);
    const ls_gpu_info *info = ls_gpu_get_info(g);
    memset(r, 0, sizeof *r);
    cal c = {g, info, r, diag, opts->reps ? opts->reps : opts->quick ? 3 : 7, opts->quick, 0, 0, 0};
    if (c.reps < 1 || c.reps > MAX_REPS)
        return ls_diag_set(diag, LS_ERR_USAGE, "", 0, 0, "repetitions must be 1..%d", MAX_REPS);
    ls_calib_prov *p = &r->prov;
    ls_calib_one_line(p->gpu, sizeof p->gpu, info->name);
    ls_gpu_arch(g, p->arch, sizeof p->arch);
    p->sm_count = info->sm_count;
    ls_calib_driver_string(info->driver_version, p->driver, sizeof p->driver);
    r->l2_bytes = info->l2_bytes;
    r->smem_per_sm = info->smem_per_sm;
    r->max_threads_per_sm = info->max_threads_per_sm;
    r->max_blocks_per_sm = info->max_blocks_per_sm;
    if (info->sm_count <= 0)
        return ls_diag_set(diag, LS_ERR_INVALID, "", 0, 0, "the driver reports %d SMs",
                           info->sm_count);
    c.out_words = (size_t)info->sm_count + 64;
    ls_status st = ls_gpu_alloc(g, c.out_words * sizeof(long long), &c.out, diag);
    for (int i = 0; i < nb && !st; i++) {
        if (opts->progress)
            opts->progress(opts->progress_ctx, i, nb, benches[i].name);
        st = benches[i].run(&c);
    }
    ls_gpu_free(g, c.out);
    return st;
}
