/* bottleneck.h: which limit binds a simulated dispatch, and by how much.
 *
 * A performance engineer's first question after "how long" is "why": the
 * analysis reads one engine run (engine.h) with its plan and hardware model
 * and names the limit that explains the time, with the numbers behind it:
 *
 *   launch      the launch costs as much as the kernel itself;
 *   dram        achieved DRAM bandwidth near the model's peak;
 *   workgroups  fewer workgroups than WGPs: part of the GPU idles;
 *   tail        the last wave fills a small part of the GPU;
 *   mlp         memory-level parallelism (Little's law): the loads the
 *               resident subgroups keep in flight, or the WGP's request
 *               slots (mshrs_per_wgp), cannot cover the DRAM latency at
 *               peak bandwidth;
 *   reduction   the thread/subgroup/cross-subgroup reduce chain (shuffle and
 *               DPP latencies) takes most of the subgroups' time;
 *   barrier     subgroups wait at workgroup barriers;
 *   smem        shared-memory bank conflicts serialise accesses;
 *   issue       the schedulers issue nearly every cycle (instruction-bound);
 *   latency     none of these: a dependent chain of latencies.
 *
 * The verdict is the first that holds, in the order above (each threshold is
 * named in bottleneck.c with why).  Every figure is also kept, for --json.
 */
#ifndef LANESCOPE_BOTTLENECK_H
#define LANESCOPE_BOTTLENECK_H

#include "lanescope/engine.h"

typedef enum {
    LS_BN_LAUNCH,
    LS_BN_DRAM,
    LS_BN_WORKGROUPS,
    LS_BN_TAIL,
    LS_BN_MLP,
    LS_BN_REDUCTION,
    LS_BN_BARRIER,
    LS_BN_SMEM,
    LS_BN_ISSUE,
    LS_BN_LATENCY,
    LS_BN_SFU /* the special-function unit (a body's transcendentals) */
} ls_bottleneck_kind;

typedef struct {
    ls_bottleneck_kind kind;
    char line[512];               /* "bound by ...: the numbers", one line */
    /* the figures behind every verdict */
    double dram_fraction;         /* achieved DRAM bandwidth / the model's peak */
    double load_gbps;             /* bytes the loads request / time */
    int64_t wgps_used;            /* WGPs that ever hold a workgroup */
    double last_wave_fill;        /* resident slots the last wave fills (1: full) */
    double subgroups_per_wgp;     /* resident at once, on a busy WGP */
    double in_flight_bytes_per_wgp;   /* one iteration's loads of every resident subgroup,
                                       * at most what the request slots hold */
    double request_bytes_per_wgp;     /* mshrs_per_wgp x sector_bytes (0: no limit) */
    bool requests_bind;               /* the request slots, not the subgroups, cap it */
    double needed_bytes_per_wgp;      /* peak bytes per cycle x DRAM latency, per WGP */
    double latency_ns;            /* the DRAM latency Little's law covers */
    double mlp_cap;               /* in flight / needed, capped at 1: the reachable roof */
    double load_share;            /* of subgroup cycles in load+accumulate */
    double reduce_share;          /* of subgroup cycles in the reduce stages */
    double barrier_share;         /* of subgroup cycles waiting at barriers */
    double smem_conflict_share;   /* of subgroup cycles lost to bank conflicts */
    double issue_utilisation;     /* instructions / (cycles x schedulers of the used WGPs) */
    /* special-function instructions x sfu_interval / (cycles x the used
     * WGPs' schedulers): the share of cycles their units are busy */
    double sfu_utilisation;
    int64_t sfu_ops; /* special-function instructions of the run, every stage */
} ls_bottleneck;

const char *ls_bottleneck_name(ls_bottleneck_kind k); /* "dram", "mlp", ... */

void ls_bottleneck_analyze(const ls_plan *plan, const ls_hw *hw, const ls_sim_result *res,
                           ls_bottleneck *out);

#endif
