/* engine_fused.c: the program of a dispatch's one kernel (plan->fused,
 * fused.h) -- each phase's loop and what follows it, one after another.
 * A reduction's phase is the program ls_engine_append_template builds for
 * its own plan; an elementwise op's phase is a loop of loads, body ops and
 * stores.  A value a later loop reads from registers (a softmax's max in
 * the sum's loop) waits for the instruction that made it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/fused.h"

#include "engine_internal.h"

/* An elementwise op's loop: per iteration its loads, per register its
 * body (the view's ops, as the reduction's body is emitted), and one
 * store per result vector, after the registers that vector holds. */
/* An elementwise op on the reductions' results (ph->epilogue): no loop;
 * the tensors it reads from memory (a bias, a scale: over output loops
 * only, at no iteration's tile) loaded, then per result slot its body,
 * from those and the values held, and its store. */
static void append_epilogue(engine *e, const ls_fused_phase *ph, const int *held)
{
    const ls_plan *pl = e->plan;
    e->loop_begin = e->loop_end = e->ncode;
    int ld[LS_MAX_INPUTS];
    for (int k = 0; k < LS_MAX_INPUTS; k++) {
        ld[k] = k < pl->n_inputs && pl->inputs[k].loads == 0 ? held[k] - 1 : -1;
        for (int64_t l = 0; k < pl->n_inputs && l < pl->inputs[k].loads; l++) {
            int i = ls_engine_emit(e, I_GLOAD, LS_STAGE_LOAD_ACCUMULATE, -1, -1);
            e->code[i].load = (int)l;
            e->code[i].operand = k;
            ld[k] = i; /* a result's operand: its vector's last load, as a bound */
        }
    }
    int nb = ph->epilogue_alu + ph->epilogue_sfu;
    int64_t ticks = llround((double)ph->epilogue_bytes * LS_TICK / e->hw->dram_bytes_per_cycle);
    for (int64_t q = 0; q < pl->results_per_thread; q++) {
        int v = ld[0];
        for (int o = 0; o < nb; o++)
            v = ls_engine_emit(e, o < ph->epilogue_alu ? I_ALU : I_SFU, LS_STAGE_ACC_COMBINE,
                               o == 0 ? ld[0] : v, o + 1 < LS_MAX_INPUTS ? ld[o + 1] : -1);
        int w = ls_engine_emit(e, I_GSTORE, LS_STAGE_STORE, v, -1);
        e->code[w].store_bytes = ph->epilogue_bytes;
        e->code[w].store_ticks = ticks > 0 ? ticks : 1;
    }
    e->last_result = e->ncode - 1;
}

static int64_t elementwise_cap(const engine *e, const ls_fused_phase *ph)
{
    if (ph->epilogue) {
        int64_t loads = 0;
        for (int k = 0; k < e->plan->n_inputs; k++)
            loads += e->plan->inputs[k].loads;
        return loads + e->plan->results_per_thread * (ph->epilogue_alu + ph->epilogue_sfu + 1) + 2;
    }
    const ls_plan *pl = e->plan;
    int64_t loads = 0;
    for (int k = 0; k < pl->n_inputs; k++)
        loads += pl->inputs[k].loads;
    /* (and the hoisted ops before the loop: at most one body a register) */
    int64_t cap = loads +
                  2 * e->d->elems_per_iteration * (pl->body_machine_alu_ops + pl->body_sfu_ops) +
                  ph->stores + 2;
    return cap > INT32_MAX ? -1 : cap;
}

static void append_elementwise(engine *e, const ls_fused_phase *ph)
{
    const ls_plan *pl = e->plan;
    int64_t regs = e->d->elems_per_iteration;
    /* what each register issues (src/body_issue.c): ops on held values
     * only once, before the loop (LICM); ops on operand elements other
     * registers read too once; two neighbours' packed ops in one */
    ls_body_issue *bi = ls_body_issue_new(pl, false);
    ls_engine_emit_hoisted(e, bi);
    ls_body_issue_next_iteration(bi);
    int64_t run = ls_plan_pair_run(pl, false);
    e->loop_begin = e->ncode;
    int first[LS_MAX_INPUTS];
    for (int k = 0; k < pl->n_inputs; k++) {
        first[k] = e->pre_load[k] >= 0 ? e->pre_load[k] : e->ncode;
        for (int64_t l = 0; e->pre_load[k] < 0 && l < pl->inputs[k].loads; l++) {
            int i = ls_engine_emit(e, I_GLOAD, LS_STAGE_LOAD_ACCUMULATE, -1, -1);
            e->code[i].load = (int)l;
            e->code[i].operand = k;
        }
    }
    int *last = ls_xcalloc((size_t)(regs > 0 ? regs : 1), sizeof *last);
    for (int64_t r = 0; r < regs; r++) {
        int ld[LS_MAX_INPUTS];
        for (int k = 0; k < pl->n_inputs; k++)
            ld[k] = pl->inputs[k].loads == 0
                        ? e->held[k] - 1
                        : first[k] + (int)ls_operand_load_of(e->d, &e->oregs[k], r);
        ls_body_issue_counts c = ls_body_issue_register(bi, r);
        last[r] = ls_engine_emit_register_body(e, ld, 0, c,
                                               ls_plan_pairs_previous(run, r) ? c.pairable : 0);
    }
    ls_body_issue_free(bi);
    int64_t per = regs / ph->stores;
    int64_t ticks = llround((double)ph->store_bytes * LS_TICK / e->hw->dram_bytes_per_cycle);
    for (int64_t s = 0; s < ph->stores; s++) {
        int i = ls_engine_emit(e, I_GSTORE, LS_STAGE_STORE, last[(s + 1) * per - 1], -1);
        e->code[i].store_bytes = ph->store_bytes;
        e->code[i].store_ticks = ticks > 0 ? ticks : 1;
        e->code[i].writers = ph->writers < e->d->num_subgroups ? ph->writers : 0;
    }
    free(last);
    e->loop_end = e->ncode;
    e->last_result = e->ncode - 1;
}

/* an elementwise loop stays rolled (its stores are in the body; the
 * model's departure, docs/reduction-families.md) */
static int64_t phase_unroll(const ls_fused_phase *ph, const ls_hw *hw)
{
    return ph->elementwise ? 1 : ls_engine_unroll(ph->plan, hw);
}

void ls_engine_fused_unrolls(const ls_fused_kernel *k, const ls_hw *hw, int64_t *out)
{
    for (int i = 0; i < k->n_phases; i++)
        out[i] = phase_unroll(&k->phase[i], hw);
}

/* Point the engine at phase ph's plan (its problem, operand registers and
 * unroll), as a one-loop program of its own would see them. */
static void enter_phase(engine *e, const ls_fused_phase *ph)
{
    e->plan = ph->plan;
    e->p = ph->plan->problem;
    e->d = ph->plan->derived; /* an own-layout loop's is its own */
    for (int k = 0; k < e->p->n_inputs; k++)
        ls_operand_regs_of(e->d, e->p, k, &e->oregs[k]);
    e->unroll = phase_unroll(ph, e->hw);
    e->loop_stores = ph->producer_op >= 0 ? ph->producer_stores : 0;
    e->loop_store_bytes = ph->producer_store_bytes;
    int64_t ticks = llround((double)ph->producer_store_bytes * LS_TICK / e->hw->dram_bytes_per_cycle);
    e->loop_store_ticks = ticks > 0 ? ticks : 1;
}

void ls_engine_build_template_fused(engine *e)
{
    const ls_fused_kernel *fk = e->plan->fused;
    const ls_plan *kplan = e->plan;
    const ls_problem *kp = e->p;
    const ls_derived *kd = e->d;
    ls_operand_regs koregs[LS_MAX_INPUTS];
    memcpy(koregs, e->oregs, sizeof koregs);
    int64_t cap = 0;
    for (int i = 0; i < fk->n_phases && cap >= 0; i++) {
        const ls_fused_phase *ph = &fk->phase[i];
        enter_phase(e, ph);
        int64_t c = ph->elementwise ? elementwise_cap(e, ph) : ls_engine_template_cap(e);
        cap = c < 0 || cap + c > INT32_MAX ? -1 : cap + c;
    }
    if (cap < 0) {
        e->ncode = -1;
        e->plan = kplan;
        e->p = kp;
        e->d = kd;
        return;
    }
    e->code = ls_xcalloc((size_t)cap, sizeof *e->code);
    int result_of[LS_FUSED_MAX_PHASES];
    int64_t trip0 = 0;
    for (int i = 0; i < fk->n_phases; i++) {
        const ls_fused_phase *ph = &fk->phase[i];
        enter_phase(e, ph);
        for (int k = 0; k < LS_MAX_INPUTS; k++)
            e->held[k] = k < e->p->n_inputs && ph->held[k] >= 0 ? result_of[ph->held[k]] + 1 : 0;
        e->no_store = !ph->elementwise && !ph->store;
        int start = e->ncode;
        if (ph->epilogue)
            append_epilogue(e, ph, e->held);
        else if (ph->elementwise)
            append_elementwise(e, ph);
        else
            ls_engine_append_template(e);
        result_of[i] = e->last_result;
        /* an epilogue has no loop, so no trips: the count runs on unchanged */
        int64_t trips = ph->epilogue ? 0 : ph->plan->iterations / e->unroll;
        e->loops[i] = (eloop){e->loop_begin, e->loop_end, trip0, trips, e->unroll};
        trip0 += trips;
        for (int pc = start; pc < e->ncode; pc++) {
            tinst *in = &e->code[pc];
            in->loop = pc >= e->loop_begin && pc < e->loop_end ? i : -1;
            in->span = i * LS_STAGE_COUNT + (int)in->stage;
            if (in->kind == I_GLOAD)
                in->operand = ph->operand[in->operand];
        }
    }
    e->n_loops = fk->n_phases;
    e->nspans = fk->n_phases * LS_STAGE_COUNT;
    e->plan = kplan;
    e->p = kp;
    e->d = kd;
    memcpy(e->oregs, koregs, sizeof koregs);
    e->unroll = e->loops[0].unroll;
    memset(e->held, 0, sizeof e->held);
    e->no_store = false;
    e->loop_stores = 0;
}

void ls_engine_fused_registers(const ls_plan *plan, const ls_hw *hw, ls_plan_regs *out)
{
    const ls_fused_kernel *fk = plan->fused;
    memset(out, 0, sizeof *out);
    /* the loops run one after another: the largest one's registers, and
     * the values a later loop reads from registers, live since made */
    int64_t held = 0;
    for (int i = 0; i < fk->n_phases; i++) {
        const ls_fused_phase *ph = &fk->phase[i];
        ls_plan_regs r;
        if (ph->epilogue)
            continue; /* a few values after a reduce: within the reduction's registers */
        ls_plan_registers(ph->plan, phase_unroll(ph, hw), &r);
        if (r.total + held > out->total) {
            *out = r;
            out->accumulators += held;
            out->total += held;
        }
        if (!ph->elementwise)
            held += ph->plan->results_per_thread;
    }
}
