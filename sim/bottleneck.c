/* bottleneck.c: the limit that binds a simulated dispatch (bottleneck.h).
 *
 * Every figure comes from the engine's own run and model, so the verdict
 * explains the simulated time, not a separate estimate of it.  The
 * thresholds are judgement, stated here so a reader can disagree with them:
 *   - the launch first: when the model's launch cost is at least the
 *     kernel's time, nothing inside the kernel matters as much;
 *   - DRAM at 70% of the model's peak or more: what a well-tuned streaming
 *     kernel reaches on these GPUs is 85-95%, so 70% means the memory system
 *     is the wall and a config change buys little;
 *   - fewer workgroups than WGPs: the idle WGPs are the first thing to fix;
 *   - a last wave that leaves more than 15% of the run's WGP-time idle;
 *   - Little's law: bytes in flight = bandwidth x latency.  The loads of one
 *     partial-reduction iteration are independent (they issue back to back
 *     and the accumulates wait for them), so a subgroup keeps one
 *     iteration's loads in flight, and a WGP at most its request slots'
 *     worth (mshrs_per_wgp sectors); below 80% of what the DRAM latency at
 *     peak bandwidth needs, while the load stage takes most of the time,
 *     the dispatch cannot reach the roof whatever the DRAM does;
 *   - reduce stages above 40% of the subgroups' time, barrier waits above
 *     20%, bank-conflict cycles above 10%, issue slots 60% busy.
 */
#include <stdio.h>
#include <string.h>

#include "lanescope/bottleneck.h"

static const char *const names[] = {"launch", "dram",      "workgroups", "tail",  "mlp",    "reduction",
                                    "barrier",   "smem",       "issue", "latency", "sfu"};

const char *ls_bottleneck_name(ls_bottleneck_kind k)
{
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static double ratio(double a, double b) { return b > 0 ? a / b : 0; }

/* "1.5 KB", "14 KB", "3.2 MB" */
static void bytes_text(double b, char *buf, size_t size)
{
    if (b >= 1e6)
        snprintf(buf, size, "%.1f MB", b / 1e6);
    else if (b >= 1e4)
        snprintf(buf, size, "%.0f KB", b / 1e3);
    else if (b >= 1e3)
        snprintf(buf, size, "%.1f KB", b / 1e3);
    else
        snprintf(buf, size, "%.0f B", b);
}

static void figures(const ls_plan *plan, const ls_hw *hw, const ls_sim_result *r, ls_bottleneck *b)
{
    const ls_derived *d = plan->derived;
    int64_t wgs = r->workgroups > 0 ? r->workgroups : 1, nsub = d->num_subgroups;
    int64_t occ = r->occupancy > 0 ? r->occupancy : 1;
    b->dram_fraction = r->dram_fraction;
    int64_t loads = r->stage[LS_STAGE_LOAD_ACCUMULATE].global_bytes;
    b->load_gbps = r->kernel_us > 0 ? (double)loads / (r->kernel_us * 1e3) : 0;
    b->wgps_used = wgs < hw->wgp_count ? wgs : hw->wgp_count;
    int64_t full = hw->wgp_count * occ;
    int64_t last = wgs - (r->waves - 1) * full;
    b->last_wave_fill = ratio((double)last, (double)full);
    int64_t per_wgp = (wgs + b->wgps_used - 1) / b->wgps_used;
    b->subgroups_per_wgp = (double)((per_wgp < occ ? per_wgp : occ) * nsub);
    int64_t iters = plan->iterations > 0 ? plan->iterations : 1;
    /* a subgroup keeps the loads of one trip of the compiled loop in
     * flight: `unroll` iterations' (ls_engine_unroll) */
    double per_sg_trip = ratio((double)loads, (double)(wgs * nsub * iters)) *
                         (double)(r->unroll > 0 ? r->unroll : 1);
    b->in_flight_bytes_per_wgp = per_sg_trip * b->subgroups_per_wgp;
    /* a WGP's requests past its L1 wait for a free slot (engine_memory.c) */
    b->request_bytes_per_wgp = (double)(hw->mshrs_per_wgp * hw->sector_bytes);
    if (b->request_bytes_per_wgp > 0 && b->request_bytes_per_wgp < b->in_flight_bytes_per_wgp) {
        b->in_flight_bytes_per_wgp = b->request_bytes_per_wgp;
        b->requests_bind = true;
    }
    double needed = hw->dram_bytes_per_cycle * (double)hw->dram_latency;
    b->needed_bytes_per_wgp = ratio(needed, (double)b->wgps_used);
    b->latency_ns = ratio((double)hw->dram_latency * 1e3, (double)hw->clock_mhz);
    b->mlp_cap = ratio(b->in_flight_bytes_per_wgp, b->needed_bytes_per_wgp);
    if (b->mlp_cap > 1)
        b->mlp_cap = 1;
    double total = 0, wait = 0, conflict = 0;
    for (int k = 0; k < LS_STAGE_COUNT; k++) {
        const ls_stage_stats *s = &r->stage[k];
        total += (double)s->subgroup_cycles;
        wait += (double)s->barrier_wait_cycles;
        conflict += (double)(s->smem_cycles - s->smem_accesses);
    }
    b->reduce_share = ratio((double)(r->stage[LS_STAGE_THREAD_REDUCE].subgroup_cycles +
                                     r->stage[LS_STAGE_SUBGROUP_REDUCE].subgroup_cycles +
                                     r->stage[LS_STAGE_CROSS_SUBGROUP].subgroup_cycles),
                            total);
    b->barrier_share = ratio(wait, total);
    b->smem_conflict_share = ratio(conflict, total);
    b->issue_utilisation = ratio((double)r->instructions,
                                 (double)r->cycles * (double)(b->wgps_used * hw->schedulers_per_wgp));
    b->load_share = ratio((double)r->stage[LS_STAGE_LOAD_ACCUMULATE].subgroup_cycles, total);
    for (int k = 0; k < LS_STAGE_COUNT; k++)
        b->sfu_ops += r->stage[k].sfu_ops;
    b->sfu_utilisation = ratio((double)b->sfu_ops * (double)hw->sfu_interval,
                               (double)r->cycles * (double)(b->wgps_used * hw->schedulers_per_wgp));
}

void ls_bottleneck_analyze(const ls_plan *plan, const ls_hw *hw, const ls_sim_result *r,
                           ls_bottleneck *b)
{
    memset(b, 0, sizeof *b);
    figures(plan, hw, r, b);
    char *L = b->line;
    size_t n = sizeof b->line;
    char have[32], need[32];
    bytes_text(b->in_flight_bytes_per_wgp, have, sizeof have);
    bytes_text(b->needed_bytes_per_wgp, need, sizeof need);
    double idle_share = r->waves > 1 ? (1 - b->last_wave_fill) / (double)r->waves : 0;
    if (r->launch_us > 0 && r->launch_us >= r->kernel_us) {
        b->kind = LS_BN_LAUNCH;
        snprintf(L, n, "bound by launch overhead: the model's %.1f us launch is longer than the "
                 "kernel's %.2f us; more work per dispatch (fusion, batching) is what helps",
                 r->launch_us, r->kernel_us);
    } else if (b->dram_fraction >= 0.70) {
        b->kind = LS_BN_DRAM;
        snprintf(L, n, "bound by DRAM bandwidth: %.0f GB/s is %.0f%% of the model's %.0f GB/s",
                 r->dram_gbps, 100 * b->dram_fraction, hw->dram_gbps);
    } else if (r->workgroups < hw->wgp_count) {
        b->kind = LS_BN_WORKGROUPS;
        snprintf(L, n, "bound by parallelism: %lld workgroup%s on %lld WGPs leave%s %lld WGPs "
                 "idle; DRAM reaches %.0f%% of the model's peak",
                 (long long)r->workgroups, r->workgroups == 1 ? "" : "s",
                 (long long)hw->wgp_count, r->workgroups == 1 ? "s" : "",
                 (long long)(hw->wgp_count - r->workgroups), 100 * b->dram_fraction);
    } else if (idle_share > 0.15) {
        b->kind = LS_BN_TAIL;
        snprintf(L, n, "bound by the tail: the last of %lld waves fills %.0f%% of the GPU's "
                 "workgroup slots, so about %.0f%% of the run's WGP time is idle",
                 (long long)r->waves, 100 * b->last_wave_fill, 100 * idle_share);
    } else if (b->mlp_cap < 0.8 && b->load_share > 0.5 && b->requests_bind) {
        b->kind = LS_BN_MLP;
        snprintf(L, n, "bound by memory-level parallelism: a WGP's %lld request slots hold %s in "
                 "flight (its %.0f subgroups would keep more), %s needed to cover %.0f ns at "
                 "%.0f GB/s (Little's law), so at most %.0f%% of the DRAM roof; more busy WGPs "
                 "(more, smaller workgroups) would reach it",
                 (long long)hw->mshrs_per_wgp, have, b->subgroups_per_wgp, need, b->latency_ns,
                 hw->dram_gbps, 100 * b->mlp_cap);
    } else if (b->mlp_cap < 0.8 && b->load_share > 0.5) {
        b->kind = LS_BN_MLP;
        snprintf(L, n, "bound by memory-level parallelism: %.0f subgroup%s per WGP keep%s %s in "
                 "flight, %s needed to cover %.0f ns at %.0f GB/s (Little's law), so at most "
                 "%.0f%% of the DRAM roof; %.1fx the bytes per subgroup per iteration (more "
                 "elements per thread or subgroups per workgroup) would reach it",
                 b->subgroups_per_wgp, b->subgroups_per_wgp == 1 ? "" : "s",
                 b->subgroups_per_wgp == 1 ? "s" : "", have, need,
                 b->latency_ns, hw->dram_gbps, 100 * b->mlp_cap, 1 / (b->mlp_cap > 0 ? b->mlp_cap : 1));
    } else if (b->sfu_utilisation > 0.60) {
        /* before the issue verdict: the unit takes one instruction every
         * sfu_interval cycles, so it fills long before the issue slots do */
        b->kind = LS_BN_SFU;
        snprintf(L, n, "bound by the special-function unit: %lld transcendental instructions "
                 "(the body's math ops as the target lowers them), one every %lld cycles per "
                 "scheduler, keep the units of the %lld busy WGPs %.0f%% busy",
                 (long long)b->sfu_ops, (long long)hw->sfu_interval, (long long)b->wgps_used,
                 100 * b->sfu_utilisation);
    } else if (b->reduce_share > 0.40) {
        b->kind = LS_BN_REDUCTION;
        snprintf(L, n, "bound by the reduction's latency chain: %.0f%% of the subgroups' time is "
                 "in the thread, subgroup and cross-subgroup reduce (%lld shuffles, %lld DPP "
                 "steps)",
                 100 * b->reduce_share,
                 (long long)(r->stage[LS_STAGE_SUBGROUP_REDUCE].shuffles +
                             r->stage[LS_STAGE_CROSS_SUBGROUP].shuffles),
                 (long long)(r->stage[LS_STAGE_SUBGROUP_REDUCE].dpp_steps +
                             r->stage[LS_STAGE_CROSS_SUBGROUP].dpp_steps));
    } else if (b->barrier_share > 0.20) {
        b->kind = LS_BN_BARRIER;
        snprintf(L, n, "bound by barrier waits: %.0f%% of the subgroups' time waiting at "
                 "workgroup barriers",
                 100 * b->barrier_share);
    } else if (b->smem_conflict_share > 0.10) {
        b->kind = LS_BN_SMEM;
        snprintf(L, n, "bound by shared-memory bank conflicts: %.0f%% of the subgroups' time in "
                 "conflict cycles",
                 100 * b->smem_conflict_share);
    } else if (b->issue_utilisation > 0.60) {
        b->kind = LS_BN_ISSUE;
        snprintf(L, n, "bound by instruction issue: the schedulers of the %lld busy WGPs issue "
                 "on %.0f%% of cycles",
                 (long long)b->wgps_used, 100 * b->issue_utilisation);
    } else {
        b->kind = LS_BN_LATENCY;
        snprintf(L, n, "bound by latency: DRAM at %.0f%% of peak, %s in flight per WGP of %s "
                 "needed, issue slots %.0f%% busy; the time is a chain of dependent latencies",
                 100 * b->dram_fraction, have, need, 100 * b->issue_utilisation);
    }
}
