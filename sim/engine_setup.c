/* engine_setup.c: what the engine knows before its first event
 * (see engine.h): occupancy and residency, where each operand lies, the
 * per-subgroup program, and from them the work a run would take, which
 * ls_engine_check_work weighs before anything runs. */
#include <stdlib.h>
#include <string.h>

#include "lanescope/engine.h"
#include "lanescope/functional.h"
#include "lanescope/fused.h"
#include "lanescope/layout.h"

#include "engine_internal.h"

/* The run's setup up to its program: occupancy, residency, operand
 * placement and the per-subgroup template; *total is the subgroup-
 * instructions the run will issue (-1: more than int64 holds). */
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The instructions the backend issues for one of input k's vector loads.
 * LLVM loads at most 128 bits at once (NVPTX ld.v4.b32, AMDGPU
 * global_load_dwordx4), and IREE unrolls a transfer_read of several rows
 * (a TileAndFuse thread's rows, a multi-row element tile) into one read per
 * row, and a non-contiguous one into elements: so each contiguous run of
 * the thread's elements takes ceil(bits / 128) loads.  Counted on thread
 * 0's first vector at the origin, as every vector has the same shape. */
static int64_t load_pieces(const engine *e, int k)
{
    const ls_plan *pl = e->plan;
    int64_t w = pl->inputs[k].width, ebits = pl->inputs[k].elem_bits;
    if (w <= 1 || pl->inputs[k].loads == 0 || pl->promote[k].on)
        return 1;
    int64_t *idx = ls_xcalloc((size_t)w, sizeof *idx);
    int64_t zero[LS_MAX_RANK] = {0}, x[LS_MAX_RANK];
    int64_t n = 0;
    for (int64_t el = 0; el < w; el++) {
        bool valid;
        int64_t reg = ls_operand_register(e->in_d[k], &e->oregs[k], 0, el);
        ls_thread_element(e->in_d[k], e->in_p[k], 0, zero, zero, reg, x, &valid);
        if (valid)
            idx[n++] = ls_operand_index(e->in_p[k], e->in_k[k], x);
    }
    qsort(idx, (size_t)n, sizeof *idx, cmp_i64);
    int64_t pieces = 0, run = 1;
    for (int64_t i = 0; i < n; i++) {
        if (i + 1 < n && idx[i + 1] == idx[i] + 1) {
            run++;
            continue;
        }
        pieces += (run * ebits + 127) / 128;
        run = 1;
    }
    free(idx);
    return pieces > 0 ? pieces : 1;
}

/* How many workgroups one WGP holds (*occ_out) and what limits it
 * (threads, subgroups, workgroups, shared memory, registers), with the
 * registers the kernel allocates; a workgroup that does not fit at all is
 * refused. */
static ls_status occupancy(engine *e, int64_t *occ_out, ls_diag *diag)
{
    const ls_plan *plan = e->plan;
    const ls_derived *d = e->d;
    const ls_problem *p = e->p;
    const ls_hw *hw = e->hw;
    ls_sim_result *res = e->res;
    int64_t occ = hw->max_threads_per_wgp / d->workgroup_size;
    res->occupancy_limit = "threads";
    if (hw->max_subgroups_per_wgp / e->nsub < occ) {
        occ = hw->max_subgroups_per_wgp / e->nsub;
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
    e->unroll = ls_engine_unroll(plan, hw);
    res->unroll = e->unroll;
    ls_plan_regs regs;
    if (plan->fused)
        ls_engine_fused_registers(plan, hw, &regs);
    else
        ls_plan_registers(plan, e->unroll, &regs);
    res->registers = regs.total;
    res->registers_allocated = (regs.total + hw->reg_granule - 1) / hw->reg_granule * hw->reg_granule;
    if (hw->max_regs_per_thread > 0 && res->registers_allocated > hw->max_regs_per_thread) {
        res->registers_allocated = hw->max_regs_per_thread; /* the compiler spills the rest */
        res->registers_spill = true;
    }
    if (hw->regs_per_wgp > 0) {
        int64_t sgs = hw->regs_per_wgp / (res->registers_allocated * d->subgroup_size);
        if (sgs < e->nsub) {
            /* The compiler knows the workgroup size (IREE passes it to
             * LLVM as the kernel's launch bounds) and spills what does not
             * fit, so one workgroup always fits: the registers are cut to
             * the file's share of a thread. */
            int64_t fit = hw->regs_per_wgp / (e->nsub * d->subgroup_size);
            res->registers_allocated = fit / hw->reg_granule * hw->reg_granule;
            sgs = e->nsub;
            res->registers_spill = true;
        }
        if (sgs / e->nsub < occ) {
            occ = sgs / e->nsub;
            res->occupancy_limit = "registers";
        }
    }
    if (occ < 1)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "a workgroup of %lld threads (%lld bytes of shared memory) does not "
                           "fit on one %s WGP",
                           (long long)d->workgroup_size, (long long)smem, hw->name);
    *occ_out = occ;
    return LS_OK;
}

/* Each input's loop space, strides, registers and place in memory:
 * one after another, 4 KiB aligned (a gather's second read and a fused
 * kernel's second loop space share their tensor's). */
static void place_inputs(engine *e)
{
    const ls_plan *plan = e->plan;
    const ls_derived *d = e->d;
    const ls_problem *p = e->p;
    /* 4 KiB apart, their lines never alias in the L2 */
    int64_t at = 0;
    e->max_iterations = plan->iterations;
    for (int k = 0; k < p->n_inputs; k++) {
        e->in_d[k] = d;
        e->in_p[k] = p;
        e->in_k[k] = k;
        if (plan->fused) {
            const ls_plan *sp = ls_fused_input_space(plan->fused, k, &e->in_k[k]);
            e->in_own[k] = plan->fused->phase[plan->fused->input_phase[k]].own_layout;
            if (e->in_own[k]) {
                e->in_d[k] = sp->derived;
                e->in_p[k] = sp->problem;
                if (sp->iterations > e->max_iterations)
                    e->max_iterations = sp->iterations;
            } else {
                e->in_k[k] = k;
            }
        }
        ls_operand_strides(e->in_p[k], e->in_k[k], e->in_strides[k]);
        ls_operand_regs_of(e->in_d[k], e->in_p[k], e->in_k[k], &e->oregs[k]);
        if (plan->gather[k].on && plan->gather[k].source_of != k) {
            /* a second gather of the same source reads the same tensor */
            e->op_base[k] = e->op_base[plan->gather[k].source_of];
            continue;
        }
        int64_t elems = ls_operand_elements(e->in_p[k], e->in_k[k]);
        /* a fused kernel's loops that read one tensor in two loop spaces
         * (a reduction's and an own-layout loop's) read the same memory */
        int same = plan->fused ? ls_fused_input_alias(plan->fused, k) : -1;
        if (same >= 0) {
            e->op_base[k] = e->op_base[same];
            continue;
        }
        e->op_base[k] = at;
        int64_t bytes = plan->gather[k].on ? plan->gather[k].source_bytes
                                            : elems * plan->inputs[k].elem_bits / 8;
        at += (bytes + 4095) / 4096 * 4096;
    }
    e->input_bytes = at;
}

/* The program's loops into the result, and the instructions the run
 * issues: *total in all (-1 past int64), each stage's by one subgroup. */
static void count_program(engine *e, int64_t *total)
{
    const ls_derived *d = e->d;
    ls_sim_result *res = e->res;
    res->unroll = e->loops[0].unroll;
    res->n_loops = e->n_loops;
    for (int l = 0; l < e->n_loops && l < 8; l++) {
        res->loop_trips[l] = e->loops[l].trips;
        res->loop_unroll[l] = e->loops[l].unroll;
    }
    /* the instructions one subgroup issues: each one's issues (a split
     * load's pieces, none for a packed pair's second half) times its
     * loop's trips -- per stage, which finish_subgroup counts, and in all */
    int64_t per_sg = 0;
    for (int i = 0; i < e->ncode; i++) {
        int64_t *n = &e->stage_issues[e->code[i].stage], add;
        int64_t trips = e->code[i].loop >= 0 ? e->loops[e->code[i].loop].trips : 1;
        if (!ls_mul_ok(trips, e->code[i].issues, &add))
            add = INT64_MAX;
        *n = *n > INT64_MAX - add ? INT64_MAX : *n + add;
        per_sg = per_sg < 0 || per_sg > INT64_MAX - add ? -1 : per_sg + add;
    }
    if (per_sg < 0 || !ls_mul_ok(per_sg, d->total_workgroups * e->nsub, total))
        *total = -1;
}

ls_status ls_engine_prepare(engine *out, const ls_plan *plan, const ls_hw *hw, ls_sim_result *res,
                            const ls_engine_opts *opts, int64_t *total, ls_diag *diag)
{
    memset(res, 0, sizeof *res);
    const ls_derived *d = plan->derived;
    const ls_problem *p = plan->problem;
    if (d->subgroup_size != hw->subgroup_size &&
        !(hw->subgroup_size == 64 && d->subgroup_size == 32 && strncmp(hw->arch, "gfx1", 4) == 0))
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
    int64_t occ = 0;
    if (occupancy(&e, &occ, diag))
        return diag->status;
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
    place_inputs(&e);
    if (plan->fused)
        ls_engine_build_template_fused(&e);
    else if (plan->attention)
        ls_engine_build_template_attention(&e);
    else if (plan->argcmp)
        ls_engine_build_template_argcmp(&e);
    else
        ls_engine_build_template(&e);
    if (e.ncode < 0)
        return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "one subgroup's program would hold more than 2^31 - 1 instructions "
                           "(the engine's limit); tile the reduction with partial_reduction");
    /* a compute load the backend splits takes one issue per piece */
    int64_t pieces[LS_MAX_INPUTS];
    for (int k = 0; k < plan->n_inputs; k++)
        pieces[k] = load_pieces(&e, k);
    for (int i = 0; i < e.ncode; i++)
        if (e.code[i].kind == I_GLOAD && !e.code[i].copy)
            e.code[i].issues = (int)pieces[e.code[i].operand];
    /* a promoted buffer's vector access the backend splits: one issue a
     * piece (ls_plan_promote_pieces) */
    int64_t *split[LS_MAX_INPUTS] = {NULL};
    for (int k = 0; k < plan->n_inputs; k++) {
        const ls_promote *pr = &plan->promote[k];
        if (!pr->on)
            continue;
        int64_t n = pr->copy_loads + plan->inputs[k].loads;
        int64_t cap =
            2 * (pr->copy_width > plan->inputs[k].width ? pr->copy_width : plan->inputs[k].width) +
            1;
        int64_t *rel = ls_xcalloc((size_t)cap, sizeof *rel),
                *bytes = ls_xcalloc((size_t)cap, sizeof *bytes);
        split[k] = ls_xcalloc((size_t)(n > 0 ? n : 1), sizeof **split);
        for (int64_t a = 0; a < n; a++)
            split[k][a] = ls_plan_promote_pieces(plan, k, a, rel, bytes);
        free(rel);
        free(bytes);
    }
    for (int i = 0; i < e.ncode; i++) {
        tinst *in = &e.code[i];
        if (in->promote && (in->kind == I_SMEM_ST || in->kind == I_SMEM_LD))
            in->issues = (int)
                split[in->operand]
                     [(in->kind == I_SMEM_LD) * plan->promote[in->operand].copy_loads + in->load];
    }
    for (int k = 0; k < plan->n_inputs; k++)
        free(split[k]);
    if (e.n_loops == 0) { /* a one-loop program */
        e.iterations = plan->iterations / e.unroll;
        ls_engine_one_loop(&e);
    }
    if (!plan->fused) { /* one span per stage; the fused builder set its own */
        e.nspans = LS_STAGE_COUNT;
        for (int i = 0; i < e.ncode; i++)
            e.code[i].span = (int)e.code[i].stage;
    }
    count_program(&e, total);
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
