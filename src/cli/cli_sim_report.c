/* cli_sim_report.c: what `lanescope sim` prints for one reduction: the
 * text report (the model line, the notes, the stage table, the bottleneck
 * line), its CSV rows, and its JSON object (docs/schema/sim.schema.json). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_sim.h"
#include "lanescope/fused.h"

/* Where the loads' sectors were found, for a model with an L1 or a
 * memory-side cache (the stage table's L2-hit% is of what reached L2). */
static void print_caches(FILE *f, const ls_hw *hw, const ls_sim_result *r)
{
    if (hw->l1_bytes == 0 && hw->mall_bytes == 0)
        return;
    int64_t sectors = 0, l1 = 0, l2 = 0, mall = 0;
    for (int k = 0; k < LS_STAGE_COUNT; k++) {
        sectors += r->stage[k].sectors;
        l1 += r->stage[k].l1_hits;
        l2 += r->stage[k].sector_hits;
        mall += r->stage[k].mall_hits;
    }
    int64_t past_l1 = sectors - l1, past_l2 = past_l1 - l2;
    fprintf(f, "  caches: %lld sectors read", (long long)sectors);
    if (hw->l1_bytes > 0)
        fprintf(f, "; L1 hit %.1f%%", sectors ? 100.0 * (double)l1 / (double)sectors : 0.0);
    fprintf(f, "; L2 hit %.1f%% of %lld", past_l1 ? 100.0 * (double)l2 / (double)past_l1 : 0.0,
            (long long)past_l1);
    if (hw->mall_bytes > 0)
        fprintf(f, "; memory-side cache hit %.1f%% of %lld",
                past_l2 ? 100.0 * (double)mall / (double)past_l2 : 0.0, (long long)past_l2);
    fputc('\n', f);
}

/* The L2 hit rate of the sectors the L1 missed, as a table cell ("-": none). */
static void l2_hit_text(int64_t sectors, int64_t l1_hits, int64_t l2_hits, char *buf, size_t size)
{
    if (sectors > l1_hits)
        snprintf(buf, size, "%.1f", 100.0 * (double)l2_hits / (double)(sectors - l1_hits));
    else
        snprintf(buf, size, "-");
}


/* The loops of a dispatch's one kernel (fused.h), as the lead's report
 * gives them; or why its reductions are timed apart. */
static void print_dispatch_note(FILE *f, const ls_problem *p, const ls_sim_result *r,
                                const kernel_share *ks)
{
    if (ks->apart && ks->apart[0])
        fprintf(f, "  note: the dispatch's reductions and stored elementwise ops are one kernel "
                   "in IREE, here timed apart: %s\n",
                ks->apart);
    const ls_fused_kernel *k = ks->fused;
    if (k == NULL)
        return;
    if (ks->lead) {
        fprintf(f, "  one kernel: this reduction is a loop of the dispatch's kernel that %s's "
                   "run timed; the figures below are that kernel's, not a second one's\n",
                ks->lead);
        return;
    }
    int loops = ls_fused_loop_count(k);
    if (loops > 1)
        fprintf(f, "  one kernel for the dispatch, as IREE builds it: %d loops one after another, "
                   "each reading its tiles again (from the caches where they still are):\n",
                loops);
    else
        fprintf(f, "  one kernel for the dispatch, as IREE builds it: the loop, and the ops fused "
                   "into it or after it:\n");
    for (int i = 0; i < k->n_phases && i < r->n_loops; i++) {
        const ls_fused_phase *ph = &k->phase[i];
        if (ph->epilogue) {
            fprintf(f, "    then: %s on the results, stored (no loop of its own)\n", ph->what);
            continue;
        }
        fprintf(f, "    loop %d: %s, %lld trip%s", i + 1, ph->what, (long long)r->loop_trips[i],
                r->loop_trips[i] == 1 ? "" : "s");
        if (r->loop_unroll[i] > 1)
            fprintf(f, " of %lld iterations (unrolled)", (long long)r->loop_unroll[i]);
        if (ph->elementwise && ph->writers < ph->plan->derived->num_subgroups)
            fprintf(f, "; laid out by its own config, over %d of the %lld subgroups (the others "
                       "compute the same elements and skip the store); stores its result, %lld "
                       "bytes a writing subgroup a trip",
                    ph->writers, (long long)ph->plan->derived->num_subgroups,
                    (long long)(ph->stores * ph->store_bytes));
        else if (ph->elementwise)
            fprintf(f, "; %sstores its result, %lld bytes a subgroup a trip",
                    ph->own_layout ? "laid out by its own config; " : "",
                    (long long)(ph->stores * ph->store_bytes));
        else
            fprintf(f, "; then its reduce%s", ph->store ? " and store" : ", the result kept in registers");
        if (ph->producer_op >= 0)
            fprintf(f, "; in the loop it also stores %s's result, %lld bytes a subgroup a trip",
                    ph->producer_what, (long long)(ph->producer_stores * ph->producer_store_bytes));
        fprintf(f, "\n");
    }
    (void)p;
}

static void print_kernel_note(FILE *f, const ls_problem *p, const kernel_share *ks)
{
    if (p->n_results < 2)
        return;
    if (!ks->one_kernel)
        fprintf(f, "  note: result %d of the %d the op yields: IREE computes them in one kernel "
                   "that reads the inputs once; lanescope times each result as its own kernel "
                   "(the plans are not all TileAndFuse ones), so the op's loads count %d times "
                   "in the sum\n",
                p->result, p->n_results, p->n_results);
    else if (ks->lead == NULL)
        fprintf(f, "  note: result %d of the %d the op yields: IREE computes them in one kernel, "
                   "and this run times it: the loads once, then every result's body ops, "
                   "combines and stores\n",
                p->result, p->n_results);
    else
        fprintf(f, "  note: result %d of the %d the op yields: computed in the one kernel that "
                   "%s's run timed; the figures below are that kernel's, not a second one's\n",
                p->result, p->n_results, ks->lead);
}

void ls_sim_print_text(FILE *f, const ls_problem *p, const ls_hw *hw, const ls_sim_result *r,
                       const ls_bottleneck *bn, const kernel_share *ks)
{
    fprintf(f, "%s: %lld workgroup%s on %s (%s): occupancy %lld workgroup%s per WGP (limit: %s; "
               "about %lld registers a thread%s), %lld wave%s\n",
            p->name, (long long)r->workgroups, r->workgroups == 1 ? "" : "s", hw->name, hw->arch,
            (long long)r->occupancy, r->occupancy == 1 ? "" : "s", r->occupancy_limit,
            (long long)r->registers, r->registers_spill ? ", more than fit: spilled" : "",
            (long long)r->waves, r->waves == 1 ? "" : "s");
    if (r->unroll > 1 && !ks->fused)
        fprintf(f, "  loop: the backend unrolls it by %lld (LLVM's partial unrolling for %s): "
                   "the loads of %lld iterations in flight before their combines\n",
                (long long)r->unroll, hw->arch, (long long)r->unroll);
    if (hw->note[0])
        fprintf(f, "  note: %s\n", hw->note);
    print_kernel_note(f, p, ks);
    print_dispatch_note(f, p, r, ks);
    if (p->init_unknown) /* said, never silently assumed */
        fprintf(f, "  note: the init is not a linalg.fill of a constant, so its values are not "
                   "known; the %s identity stands in for it\n",
                p->argcmp.on ? "comparator's" : "combiner's");
    if (p->config_suggested) {
        char cfg[1024];
        ls_lowering_config_format(&p->config, cfg, sizeof cfg);
        fprintf(f, "  no lowering_config %s: IREE's default for %s%s%s, %sworkgroup_size "
                   "%lld, subgroup_size %lld:\n    %s\n",
                p->line > 0 ? "in the input" : "given (--config)", p->target.arch, p->target.sku[0] ? "/" : "", p->target.sku,
                !ls_is_tile_and_fuse(p) ? ""
                : p->argcmp.on          ? "the TileAndFuse pipeline (setArgCompareConfig: each "
                                          "thread walks the reduction), "
                                        : "the TileAndFuse pipeline (setTileAndFuseLoweringConfig: "
                                          "each thread walks the reduction for its own outputs), ",
                (long long)p->ti.workgroup_size[0], (long long)p->ti.subgroup_size, cfg);
    }
    fprintf(f, "  %lld cycles = %.3f us at %lld MHz, + %.1f us launch%s = %.3f us; DRAM %.3f MB "
               "moved, %.1f GB/s = %.1f%% of the model's %.0f GB/s\n",
            (long long)r->cycles, r->kernel_us, (long long)hw->clock_mhz, r->launch_us,
            r->launch_us == 0 && hw->launch_us > 0
                ? " (the dispatch's launch counts with its first reduction)"
                : "",
            r->time_us, r->dram_bytes / 1e6, r->dram_gbps, 100 * r->dram_fraction, hw->dram_gbps);
    print_caches(f, hw, r);
    int64_t sfu = bn->sfu_ops;
    if (sfu > 0) /* the body's math ops as the target lowers them */
        fprintf(f, "  %lld subgroup-instructions (%lld on the special-function unit%s), %lld "
                   "events\n",
                (long long)r->instructions, (long long)sfu,
                hw->sfu_interval > 0 ? "" : ", which this model times as ALU instructions",
                (long long)r->events);
    else
        fprintf(f, "  %lld subgroup-instructions, %lld events\n", (long long)r->instructions,
                (long long)r->events);
    fprintf(f, "  %-16s %11s %8s %12s %12s %9s %7s %8s %10s %8s %12s\n", "stage", "crit-cycles",
            "sg-cyc%", "instructions", "global-bytes", "sectors", "L2-hit%", "shuffles",
            "smem-acc", "max-deg", "barrier-wait");
    int64_t total = 0;
    for (int k = 0; k < LS_STAGE_COUNT; k++)
        total += r->stage[k].subgroup_cycles;
    for (int k = 0; k < LS_STAGE_COUNT; k++) {
        const ls_stage_stats *s = &r->stage[k];
        char hit[16];
        l2_hit_text(s->sectors, s->l1_hits, s->sector_hits, hit, sizeof hit);
        fprintf(f, "  %-16s %11lld %8.1f %12lld %12lld %9lld %7s %8lld %10lld %8lld %12lld\n",
                ls_stage_name((ls_stage)k), (long long)s->critical_cycles,
                total ? 100.0 * (double)s->subgroup_cycles / (double)total : 0.0,
                (long long)s->instructions, (long long)s->global_bytes, (long long)s->sectors,
                hit, (long long)(s->shuffles + s->dpp_steps), (long long)s->smem_accesses,
                (long long)s->smem_max_degree, (long long)s->barrier_wait_cycles);
    }
    /* a loop interleaves its stages' instructions (loads, math, stores): the
     * spans overlap, and a reader adding them up would count time twice */
    int64_t crit = 0;
    for (int k = 0; k < LS_STAGE_COUNT; k++)
        crit += r->stage[k].critical_cycles;
    if (crit > r->cycles + r->cycles / 20)
        fprintf(f,
                "  note: crit-cycles is each stage's first-to-last span on the subgroup that "
                "finished last; here the spans overlap (a loop interleaves the stages), so "
                "they add up to %lld, more than the kernel's %lld cycles\n",
                (long long)crit, (long long)r->cycles);
    const ls_problem *names = ks->fused ? &ks->fused->problem : p; /* the run's inputs */
    if (r->n_operands > 1) {
        fprintf(f, "  loads by operand (load+accumulate's global figures, split):\n");
        fprintf(f, "  %-26s %12s %9s %7s %7s %12s\n", "operand", "global-bytes", "sectors",
                "L1-hit%", "L2-hit%", "dram-bytes");
        for (int k = 0; k < r->n_operands; k++) {
            const ls_operand_traffic *o = &r->operand[k];
            char name[40], l1[16] = "-", l2[16];
            snprintf(name, sizeof name, "%d %s", k, names->inputs[k].name);
            if (o->sectors > 0)
                snprintf(l1, sizeof l1, "%.1f", 100.0 * (double)o->l1_hits / (double)o->sectors);
            l2_hit_text(o->sectors, o->l1_hits, o->sector_hits, l2, sizeof l2);
            fprintf(f, "  %-26.26s %12lld %9lld %7s %7s %12lld\n", name,
                    (long long)o->global_bytes, (long long)o->sectors, l1, l2,
                    (long long)o->dram_bytes);
        }
    }
    fprintf(f, "  %s\n", bn->line);
}

json_object *ls_sim_bottleneck_json(const ls_bottleneck *b)
{
    static const struct {
        const char *key;
        size_t offset;
    } figures[] = {
        {"dram_fraction", offsetof(ls_bottleneck, dram_fraction)},
        {"load_gbps", offsetof(ls_bottleneck, load_gbps)},
        {"last_wave_fill", offsetof(ls_bottleneck, last_wave_fill)},
        {"subgroups_per_wgp", offsetof(ls_bottleneck, subgroups_per_wgp)},
        {"in_flight_bytes_per_wgp", offsetof(ls_bottleneck, in_flight_bytes_per_wgp)},
        {"needed_bytes_per_wgp", offsetof(ls_bottleneck, needed_bytes_per_wgp)},
        {"request_bytes_per_wgp", offsetof(ls_bottleneck, request_bytes_per_wgp)},
        {"dram_latency_ns", offsetof(ls_bottleneck, latency_ns)},
        {"mlp_cap", offsetof(ls_bottleneck, mlp_cap)},
        {"load_share", offsetof(ls_bottleneck, load_share)},
        {"reduce_share", offsetof(ls_bottleneck, reduce_share)},
        {"barrier_share", offsetof(ls_bottleneck, barrier_share)},
        {"smem_conflict_share", offsetof(ls_bottleneck, smem_conflict_share)},
        {"issue_utilisation", offsetof(ls_bottleneck, issue_utilisation)},
        {"sfu_utilisation", offsetof(ls_bottleneck, sfu_utilisation)},
    };
    json_object *o = json_object_new_object();
    json_object_object_add(o, "kind", json_object_new_string(ls_bottleneck_name(b->kind)));
    json_object_object_add(o, "line", json_object_new_string(b->line));
    json_object_object_add(o, "wgps_used", json_object_new_int64(b->wgps_used));
    json_object_object_add(o, "requests_bind", json_object_new_boolean(b->requests_bind));
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
        json_object_object_add(
            o, figures[i].key,
            json_object_new_double(*(const double *)((const char *)b + figures[i].offset)));
    return o;
}

void ls_sim_print_csv_header(FILE *f)
{
    fprintf(f, "reduction,model,stage,critical_cycles,subgroup_cycles,instructions,global_bytes,"
               "sectors,sector_hits,dram_bytes,shuffles,dpp_steps,smem_accesses,smem_cycles,"
               "smem_max_degree,barriers,barrier_wait_cycles,l1_hits,mall_hits\n");
}

void ls_sim_print_csv(FILE *f, const ls_problem *p, const ls_hw *hw, const ls_sim_result *r)
{
    for (int k = 0; k < LS_STAGE_COUNT; k++) {
        const ls_stage_stats *s = &r->stage[k];
        fprintf(f, "%s,%s,%s,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,"
                   "%lld,%lld\n",
                p->name, hw->name, ls_stage_name((ls_stage)k), (long long)s->critical_cycles,
                (long long)s->subgroup_cycles, (long long)s->instructions,
                (long long)s->global_bytes, (long long)s->sectors, (long long)s->sector_hits,
                (long long)s->dram_bytes, (long long)s->shuffles, (long long)s->dpp_steps,
                (long long)s->smem_accesses, (long long)s->smem_cycles,
                (long long)s->smem_max_degree, (long long)s->barriers,
                (long long)s->barrier_wait_cycles, (long long)s->l1_hits,
                (long long)s->mall_hits);
    }
}

static int64_t d_wg(const ls_problem *p)
{
    int64_t sg, wg;
    ls_problem_sizes(p, &sg, &wg, NULL);
    return wg;
}

/* A result that shares its kernel: with the other results of its op, or
 * as a loop of the dispatch's one kernel (its loops), or timed apart. */
static void json_kernel_share(json_object *o, const ls_problem *p, const ls_sim_result *r,
                              const kernel_share *ks)
{
    if (p->n_results > 1) {
        json_object_object_add(o, "result", json_object_new_int(p->result));
        json_object_object_add(o, "results", json_object_new_int(p->n_results));
        json_object_object_add(o, "one_kernel", json_object_new_boolean(ks->one_kernel));
        if (ks->lead)
            json_object_object_add(o, "timed_with", json_object_new_string(ks->lead));
    }
    if (ks && ks->fused) { /* a loop of the dispatch's one kernel */
        json_object_object_add(o, "one_kernel", json_object_new_boolean(true));
        if (ks->lead)
            json_object_object_add(o, "timed_with", json_object_new_string(ks->lead));
        json_object *loops = json_object_new_array();
        for (int i = 0; i < ks->fused->n_phases && i < r->n_loops; i++) {
            const ls_fused_phase *ph = &ks->fused->phase[i];
            json_object *l = json_object_new_object();
            json_object_object_add(l, "op", json_object_new_string(ph->what));
            json_object_object_add(l, "elementwise", json_object_new_boolean(ph->elementwise));
            json_object_object_add(l, "epilogue", json_object_new_boolean(ph->epilogue));
            json_object_object_add(l, "trips", json_object_new_int64(r->loop_trips[i]));
            json_object_object_add(l, "unroll", json_object_new_int64(r->loop_unroll[i]));
            json_object_object_add(l, "stores", json_object_new_boolean(ph->elementwise || ph->store ||
                                                                        ph->producer_op >= 0));
            if (ph->elementwise && !ph->epilogue) {
                json_object_object_add(l, "own_layout", json_object_new_boolean(ph->own_layout));
                json_object_object_add(l, "writing_subgroups", json_object_new_int(ph->writers));
            }
            json_object_array_add(loops, l);
        }
        json_object_object_add(o, "kernel_loops", loops);
    } else if (ks && ks->apart && ks->apart[0]) {
        json_object_object_add(o, "timed_apart", json_object_new_string(ks->apart));
    }
}

/* Each input's traffic. */
static json_object *json_operands(const ls_problem *p, const ls_sim_result *r,
                                  const kernel_share *ks)
{
    json_object *ops = json_object_new_array();
    for (int k = 0; k < r->n_operands; k++) {
        const ls_operand_traffic *t = &r->operand[k];
        json_object *j = json_object_new_object();
        json_object_object_add(j, "input", json_object_new_int(k));
        json_object_object_add(j, "name", json_object_new_string(
                                              (ks && ks->fused ? &ks->fused->problem : p)->inputs[k].name));
        json_object_object_add(j, "global_bytes", json_object_new_int64(t->global_bytes));
        json_object_object_add(j, "sectors", json_object_new_int64(t->sectors));
        json_object_object_add(j, "l1_hits", json_object_new_int64(t->l1_hits));
        json_object_object_add(j, "sector_hits", json_object_new_int64(t->sector_hits));
        json_object_object_add(j, "mall_hits", json_object_new_int64(t->mall_hits));
        json_object_object_add(j, "dram_bytes", json_object_new_int64(t->dram_bytes));
        json_object_array_add(ops, j);
    }
    return ops;
}

/* Each stage's figures. */
static json_object *json_stages(const ls_sim_result *r)
{
    json_object *stages = json_object_new_array();
    for (int k = 0; k < LS_STAGE_COUNT; k++) {
        const ls_stage_stats *s = &r->stage[k];
        json_object *j = json_object_new_object();
        json_object_object_add(j, "stage", json_object_new_string(ls_stage_name((ls_stage)k)));
        json_object_object_add(j, "critical_cycles", json_object_new_int64(s->critical_cycles));
        json_object_object_add(j, "subgroup_cycles", json_object_new_int64(s->subgroup_cycles));
        json_object_object_add(j, "instructions", json_object_new_int64(s->instructions));
        json_object_object_add(j, "global_bytes", json_object_new_int64(s->global_bytes));
        json_object_object_add(j, "sectors", json_object_new_int64(s->sectors));
        json_object_object_add(j, "sector_hits", json_object_new_int64(s->sector_hits));
        json_object_object_add(j, "l1_hits", json_object_new_int64(s->l1_hits));
        json_object_object_add(j, "mall_hits", json_object_new_int64(s->mall_hits));
        json_object_object_add(j, "dram_bytes", json_object_new_int64(s->dram_bytes));
        json_object_object_add(j, "shuffles", json_object_new_int64(s->shuffles));
        json_object_object_add(j, "dpp_steps", json_object_new_int64(s->dpp_steps));
        json_object_object_add(j, "sfu_ops", json_object_new_int64(s->sfu_ops));
        json_object_object_add(j, "smem_accesses", json_object_new_int64(s->smem_accesses));
        json_object_object_add(j, "smem_max_degree", json_object_new_int64(s->smem_max_degree));
        json_object_object_add(j, "barriers", json_object_new_int64(s->barriers));
        json_object_object_add(j, "barrier_wait_cycles",
                               json_object_new_int64(s->barrier_wait_cycles));
        json_object_array_add(stages, j);
    }
    return stages;
}

/* The functional check: what was compared and how closely. */
static json_object *json_functional(const ls_problem *p, const ls_functional_result *fr,
                                    bool checked, int64_t seed)
{
    json_object *fj = json_object_new_object();
    json_object_object_add(fj, "checked", json_object_new_boolean(checked));
    json_object_object_add(fj, "seed", json_object_new_int64(seed));
    json_object_object_add(fj, "outputs", json_object_new_int64(checked ? fr->outputs_checked : 0));
    json_object_object_add(fj, "mismatches", json_object_new_int64(checked ? fr->mismatches : 0));
    /* i128 is carried as its low 64 bits (value.h): what the check holds */
    int out_bits = ls_elem_type_bits(p->acc_type);
    json_object_object_add(fj, "compared_bits",
                           json_object_new_int(out_bits > 64 ? 64 : out_bits));
    if (p->argcmp.on)
        json_object_object_add(fj, "index_ties",
                               json_object_new_int64(checked ? fr->index_ties : 0));
    json_object_object_add(fj, "exact_outputs",
                           json_object_new_int64(checked ? fr->exact_outputs : 0));
    json_object_object_add(fj, "max_error_bound_ratio",
                           json_object_new_double(checked ? fr->max_error_bound_ratio : 0));
    json_object_object_add(fj, "math_ops", ls_sim_math_json(&p->body));
    json_object_object_add(
        fj, "fused_multiply_add",
        json_object_new_string(ls_fma_kind_name(checked ? fr->fma : LS_FMA_NONE)));
    json_object_object_add(fj, "minmax_as_maxnum",
                           json_object_new_boolean(checked && fr->minmax_replaced));
    return fj;
}

json_object *ls_sim_json_result(const ls_problem *p, const ls_hw *hw, const ls_sim_result *r,
                                const ls_functional_result *fr, bool checked, int64_t seed,
                                const kernel_share *ks)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "reduction", json_object_new_string(p->name));
    json_object_object_add(o, "model", json_object_new_string(hw->name));
    json_object_object_add(o, "arch", json_object_new_string(hw->arch));
    char cfg[1024];
    ls_lowering_config_format(&p->config, cfg, sizeof cfg);
    json_object_object_add(o, "lowering_config", json_object_new_string(cfg));
    json_object_object_add(o, "config_source", json_object_new_string(ls_cli_config_source(p)));
    json_object_object_add(o, "workgroup_size", json_object_new_int64(d_wg(p)));
    json_object_object_add(o, "cycles", json_object_new_int64(r->cycles));
    json_object_object_add(o, "time_us", json_object_new_double(r->time_us));
    json_object_object_add(o, "kernel_us", json_object_new_double(r->kernel_us));
    json_object_object_add(o, "launch_us", json_object_new_double(r->launch_us));
    json_object_object_add(o, "clock_mhz", json_object_new_int64(hw->clock_mhz));
    if (hw->note[0])
        json_object_object_add(o, "model_note", json_object_new_string(hw->note));
    json_object_object_add(o, "init_known", json_object_new_boolean(!p->init_unknown));
    json_kernel_share(o, p, r, ks);
    json_object_object_add(o, "dram_bytes", json_object_new_int64(r->dram_bytes));
    json_object_object_add(o, "dram_gbps", json_object_new_double(r->dram_gbps));
    json_object_object_add(o, "dram_fraction_of_peak", json_object_new_double(r->dram_fraction));
    json_object_object_add(o, "occupancy", json_object_new_int64(r->occupancy));
    json_object_object_add(o, "occupancy_limit", json_object_new_string(r->occupancy_limit));
    json_object_object_add(o, "registers", json_object_new_int64(r->registers));
    json_object_object_add(o, "registers_allocated", json_object_new_int64(r->registers_allocated));
    json_object_object_add(o, "registers_spill", json_object_new_boolean(r->registers_spill));
    json_object_object_add(o, "unroll", json_object_new_int64(r->unroll));
    json_object_object_add(o, "waves", json_object_new_int64(r->waves));
    json_object_object_add(o, "workgroups", json_object_new_int64(r->workgroups));
    json_object_object_add(o, "instructions", json_object_new_int64(r->instructions));
    json_object_object_add(o, "events", json_object_new_int64(r->events));
    json_object_object_add(o, "operands", json_operands(p, r, ks));
    json_object_object_add(o, "stages", json_stages(r));
    json_object_object_add(o, "functional", json_functional(p, fr, checked, seed));
    return o;
}

/* An arg_compare's check: values and indices, and the ties IREE's
 * lowering breaks its own way (functional.h: index_ties). */
void ls_sim_print_argcmp_check(FILE *f, const ls_problem *p, const ls_functional_result *fr,
                               const char *from)
{
    fprintf(f, "  functional check passed: %lld (value, index) outputs of %lld workgroup%s match "
               "the op's semantics (%s arg_compare, %s)\n",
            (long long)fr->outputs_checked, (long long)fr->workgroups_run,
            fr->workgroups_run == 1 ? "" : "s", ls_elem_type_name(p->acc_type), from);
    if (fr->index_ties == 0)
        return;
    int no = 0;
    char where[160] = "";
    size_t u = 0;
    for (int i = 0; i < p->rank; i++)
        if (!p->is_reduction[i] && u < sizeof where) {
            u += (size_t)snprintf(where + u, sizeof where - u, "%s%lld", no ? ", " : "",
                                  (long long)fr->tie_output[no]);
            no++;
        }
    fprintf(f, "  finding: %lld of them get another position of the best value than the op's "
               "first-index semantics (the first at output [%s]): IREE's lowering breaks ties by "
               "slot, lane and subgroup, not by position (docs/arg-compare-lowering.md)\n",
            (long long)fr->index_ties, where);
}

/* A tensor operand's bytes; -1 when a dim is dynamic or the element width
 * unknown. */
static int64_t operand_bytes(const ls_dop_operand *o)
{
    if (o->elem_bits <= 0)
        return -1;
    int64_t n = 1;
    for (int k = 0; k < o->rank; k++)
        if (o->dims[k] == LS_DYN || !ls_mul_ok(n, o->dims[k], &n))
            return -1;
    return n > INT64_MAX / o->elem_bits ? -1 : (n * o->elem_bits + 7) / 8;
}

int ls_sim_untimed_ops(const ls_module *m, int di, ls_sim_untimed *out, int max)
{
    if (di < 0 || (size_t)di >= m->n_dispatches)
        return 0;
    const ls_dispatch *d = &m->dispatches[di];
    int n = 0;
    for (int i = 0; i < d->n_ops && n < max; i++) {
        const ls_dop *op = &d->ops[i];
        bool reduces = false;
        for (int k = 0; k < op->rank; k++)
            reduces |= op->is_reduction[k];
        if (op->is_fill || reduces || op->problem >= 0 || !op->result[0] || !ls_dispatch_stores(d, op->result))
            continue;
        ls_sim_untimed u = {op, 0, 0};
        for (int k = 0; k < op->n_inputs && u.read_bytes >= 0; k++) {
            if (op->operand[k].producer >= 0) /* computed in the kernel, not read */
                continue;
            int64_t b = operand_bytes(&op->operand[k]);
            u.read_bytes = b < 0 || u.read_bytes > INT64_MAX - b ? -1 : u.read_bytes + b;
        }
        for (int k = op->n_inputs; k < op->n_inputs + op->n_inits && u.write_bytes >= 0; k++) {
            int64_t b = operand_bytes(&op->operand[k]);
            u.write_bytes = b < 0 || u.write_bytes > INT64_MAX - b ? -1 : u.write_bytes + b;
        }
        out[n++] = u;
    }
    return n;
}

static void mb_text(int64_t bytes, char *buf, size_t size)
{
    if (bytes < 0)
        snprintf(buf, size, "an unknown size (a dynamic dim)");
    else
        snprintf(buf, size, "%.3f MB", (double)bytes / 1e6);
}

/* How body b computes each of its math ops: as the target's code does
 * (kind[op] = 1) or, somewhere, correctly rounded (2); 0 for the other
 * ops. */
static void math_kinds(const ls_body *b, uint8_t *kind)
{
    memset(kind, 0, LS_BOP_COUNT);
    for (int i = 0; i < b->n; i++) {
        ls_body_opcode op = (ls_body_opcode)b->inst[i].op;
        if (!ls_body_op_is_math(op))
            continue;
        if (!ls_body_inst_as_target(b, i, (ls_math_mode)b->math))
            kind[op] = 2; /* one instance not reproduced: the op is listed as rounded */
        else if (kind[op] == 0)
            kind[op] = 1;
    }
}

/* "math.exp, math.log" of the ops of kind k */
static void math_list(const uint8_t *kind, int k, char *list, size_t n)
{
    size_t u = 0;
    list[0] = '\0';
    for (int op = 0; op < LS_BOP_COUNT && u < n; op++)
        if (kind[op] == k) {
            int w = snprintf(list + u, n - u, "%s%s", u ? ", " : "",
                             ls_body_opcode_name((ls_body_opcode)op));
            u += w > 0 ? (size_t)w : 0;
        }
}

json_object *ls_sim_math_json(const ls_body *b)
{
    uint8_t kind[LS_BOP_COUNT];
    math_kinds(b, kind);
    json_object *mj = json_object_new_object(), *as = json_object_new_array(),
                *cr = json_object_new_array();
    for (int op = 0; op < LS_BOP_COUNT; op++)
        if (kind[op])
            json_object_array_add(kind[op] == 1 ? as : cr,
                                  json_object_new_string(ls_body_opcode_name((ls_body_opcode)op)));
    static const char *const modes[] = {"exact", "mlir-polynomial", "rocm"};
    json_object_object_add(mj, "mode", json_object_new_string(modes[b->math % 3]));
    json_object_object_add(mj, "as_target_code", as);
    json_object_object_add(mj, "correctly_rounded", cr);
    return mj;
}

void ls_sim_print_math(FILE *f, const ls_body *b)
{
    char approx[160], rounded[160];
    uint8_t kind[LS_BOP_COUNT];
    ls_math_mode m = (ls_math_mode)b->math;
    math_kinds(b, kind);
    math_list(kind, 1, approx, sizeof approx);
    math_list(kind, 2, rounded, sizeof rounded);
    if (!approx[0] && !rounded[0])
        return;
    fprintf(f, "  math ops:");
    if (approx[0] && m == LS_MATH_MLIR)
        fprintf(f,
                " %s bit for bit as IREE's code for this target (MLIR's f32 polynomial "
                "approximations, MathTransform.cpp)%s",
                approx, rounded[0] ? ";" : "");
    else if (approx[0])
        fprintf(f,
                " %s bit for bit as IREE's code for ROCm (its own rewrites: fpowi's products, "
                "FastErfPattern's erf, whose exp from |x| = 1 on is the correctly rounded "
                "one)%s",
                approx, rounded[0] ? ";" : "");
    if (rounded[0])
        fprintf(f, " %s correctly rounded (%s)", rounded,
                m == LS_MATH_ROCM   ? "IREE's ROCm code calls the device library or AMDGPU "
                                      "intrinsics, within an ulp or two of it: not reproduced"
                : m == LS_MATH_MLIR ? "IREE's sqrt.approx.f32, its powf and fpowi expansions "
                                      "and f64 libdevice calls are not reproduced"
                                    : "no target's code");
    fprintf(f, "\n");
}

void ls_sim_print_untimed(FILE *f, const ls_sim_untimed *u, int n)
{
    for (int i = 0; i < n; i++) {
        char rd[48], wr[48];
        mb_text(u[i].read_bytes, rd, sizeof rd);
        mb_text(u[i].write_bytes, wr, sizeof wr);
        fprintf(f, "  not timed: the dispatch's %s at %d:%d (parallel loops only, its result "
                   "stored) runs in the same kernel; it reads %s from memory and writes %s, "
                   "which the figures above leave out\n",
                u[i].op->kind, u[i].op->line, u[i].op->col, rd, wr);
    }
}

json_object *ls_sim_untimed_json(const ls_sim_untimed *u, int n)
{
    json_object *a = json_object_new_array();
    for (int i = 0; i < n; i++) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "op", json_object_new_string(u[i].op->kind));
        json_object_object_add(o, "line", json_object_new_int(u[i].op->line));
        json_object_object_add(o, "col", json_object_new_int(u[i].op->col));
        json_object_object_add(o, "read_bytes", json_object_new_int64(u[i].read_bytes));
        json_object_object_add(o, "write_bytes", json_object_new_int64(u[i].write_bytes));
        json_object_array_add(a, o);
    }
    return a;
}
