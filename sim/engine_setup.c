/* engine_setup.c: what the engine knows before its first event
 * (see engine.h): occupancy and residency, where each operand lies, the
 * per-subgroup program, and from them the work a run would take, which
 * ls_engine_check_work weighs before anything runs. */
#include <stdlib.h>
#include <string.h>

#include "lanescope/engine.h"

#include "engine_internal.h"

/* The run's setup up to its program: occupancy, residency, operand
 * placement and the per-subgroup template; *total is the subgroup-
 * instructions the run will issue (-1: more than int64 holds). */
ls_status ls_engine_prepare(engine *out, const ls_plan *plan, const ls_hw *hw, ls_sim_result *res,
                           const ls_engine_opts *opts, int64_t *total, ls_diag *diag)
{
    memset(res, 0, sizeof *res);
    const ls_derived *d = plan->derived;
    const ls_problem *p = plan->problem;
    if (d->subgroup_size != hw->subgroup_size && !(hw->subgroup_size == 64 &&
                                                   d->subgroup_size == 32 &&
                                                   strncmp(hw->arch, "gfx1", 4) == 0))
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "the config runs subgroups of %lld lanes but model %s has %lld",
                           (long long)d->subgroup_size, hw->name, (long long)hw->subgroup_size);
    engine e;
    memset(&e, 0, sizeof e);
    e.plan = plan;
    e.p = p;
    e.d = d;
    e.hw = hw;
    e.res = res;
    e.trace = opts ? opts->trace : NULL;
    e.opts = opts;
    e.recording = opts && opts->record;
    e.nsub = (int)d->num_subgroups;
    /* occupancy */
    int64_t occ = hw->max_threads_per_wgp / d->workgroup_size;
    res->occupancy_limit = "threads";
    if (hw->max_subgroups_per_wgp / e.nsub < occ) {
        occ = hw->max_subgroups_per_wgp / e.nsub;
        res->occupancy_limit = "subgroups";
    }
    if (hw->max_workgroups_per_wgp < occ) {
        occ = hw->max_workgroups_per_wgp;
        res->occupancy_limit = "workgroups";
    }
    /* every workgroup allocation: the cross-subgroup buffer(s), promoted inputs */
    int64_t smem = plan->buffer_bytes + plan->index_buffer_bytes + plan->promote_bytes;
    if (smem > 0 && hw->smem_bytes_per_wgp / smem < occ) {
        occ = hw->smem_bytes_per_wgp / smem;
        res->occupancy_limit = "shared memory";
    }
    /* The register file: a subgroup takes registers x lanes of it,
     * rounded to the allocation granule (CUDA: 256 registers a warp). */
    e.unroll = ls_engine_unroll(plan, hw);
    res->unroll = e.unroll;
    ls_plan_regs regs;
    ls_plan_registers(plan, e.unroll, &regs);
    res->registers = regs.total;
    res->registers_allocated = (regs.total + hw->reg_granule - 1) / hw->reg_granule * hw->reg_granule;
    if (hw->max_regs_per_thread > 0 && res->registers_allocated > hw->max_regs_per_thread) {
        res->registers_allocated = hw->max_regs_per_thread; /* the compiler spills the rest */
        res->registers_spill = true;
    }
    if (hw->regs_per_wgp > 0) {
        int64_t sgs = hw->regs_per_wgp / (res->registers_allocated * d->subgroup_size);
        if (sgs < e.nsub) {
            /* The compiler knows the workgroup size (IREE passes it to
             * LLVM as the kernel's launch bounds) and spills what does not
             * fit, so one workgroup always fits: the registers are cut to
             * the file's share of a thread. */
            int64_t fit = hw->regs_per_wgp / (e.nsub * d->subgroup_size);
            res->registers_allocated = fit / hw->reg_granule * hw->reg_granule;
            sgs = e.nsub;
            res->registers_spill = true;
        }
        if (sgs / e.nsub < occ) {
            occ = sgs / e.nsub;
            res->occupancy_limit = "registers";
        }
    }
    if (occ < 1)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "a workgroup of %lld threads (%lld bytes of shared memory) does not "
                           "fit on one %s WGP",
                           (long long)d->workgroup_size, (long long)smem, hw->name);
    res->occupancy = occ;
    res->workgroups = d->total_workgroups;
    res->n_operands = plan->n_inputs;
    /* ceil without the sum: the workgroup count may be near int64's limit
     * (WGPs <= 100000 x occupancy <= 4096 is small) */
    res->waves = d->total_workgroups / (hw->wgp_count * occ) +
                 (d->total_workgroups % (hw->wgp_count * occ) != 0);
    int64_t resident = hw->wgp_count * occ; /* <= 100000 x 4096: an int */
    if (resident > d->total_workgroups)
        resident = d->total_workgroups;
    e.n_wg_slots = (int)resident;
    /* Inputs lie one after another, each 4 KiB aligned, so their lines
     * never alias in the L2. */
    int64_t at = 0;
    for (int k = 0; k < p->n_inputs; k++) {
        ls_operand_strides(p, k, e.in_strides[k]);
        ls_operand_regs_of(d, p, k, &e.oregs[k]);
        e.op_base[k] = at;
        at += ((ls_operand_elements(p, k) * plan->inputs[k].elem_bits / 8 + 4095) / 4096) * 4096;
    }
    e.input_bytes = at;
    if (plan->argcmp)
        ls_engine_build_template_argcmp(&e);
    else
        ls_engine_build_template(&e);
    if (e.ncode < 0)
        return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "one subgroup's program would hold more than 2^31 - 1 instructions "
                           "(the engine's limit); tile the reduction with partial_reduction");
    int64_t loop = e.loop_end - e.loop_begin, per_sg, trips = plan->iterations / e.unroll;
    e.iterations = trips;
    if (!ls_mul_ok(loop, trips, &per_sg) || (per_sg += e.ncode - loop) < 0 ||
        !ls_mul_ok(per_sg, d->total_workgroups * e.nsub, total))
        *total = -1;
    /* each stage's issues by one subgroup, which finish_subgroup counts
     * (bounded by per_sg where the run is allowed at all) */
    for (int i = 0; i < e.ncode; i++) {
        int64_t *n = &e.stage_issues[e.code[i].stage];
        int64_t add = i >= e.loop_begin && i < e.loop_end ? trips : 1;
        *n = *n > INT64_MAX - add ? INT64_MAX : *n + add;
    }
    *out = e;
    return LS_OK;
}

ls_status ls_engine_check_work(const ls_plan *plan, const ls_hw *hw, bool force, ls_diag *diag)
{
    int64_t total;
    if (ls_engine_estimate(plan, hw, &total, diag) != LS_OK)
        return diag->status;
    return ls_engine_work_verdict(plan->problem, total, force, diag);
}

ls_status ls_engine_estimate(const ls_plan *plan, const ls_hw *hw, int64_t *instructions,
                             ls_diag *diag)
{
    engine e;
    ls_sim_result scratch;
    ls_status st = ls_engine_prepare(&e, plan, hw, &scratch, NULL, instructions, diag);
    if (st == LS_OK)
        free(e.code);
    return st;
}
