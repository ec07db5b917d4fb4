/* engine.c: discrete-event timing of a plan on a hardware model (see engine.h).
 *
 * Subgroup state machine (one per resident subgroup slot):
 *
 *     READY --issue (operands ready, scheduler free)--> READY (pc+1, at t+1)
 *       |  \--operands not ready / scheduler busy--> READY (later cycle)
 *       |---BARRIER, others missing--> WAITING --last arrival--> READY
 *       '---pc == end--> DONE --all subgroups of the workgroup--> slot freed,
 *                                next workgroup dispatched (engine_finish_wg)
 *
 * Cost: O(1) amortised per event (engine_queue.h); a global load additionally walks
 * its coalesced byte intervals (precomputed per subgroup slot and load), so
 * interior tiles cost O(sectors) and only ragged tiles recompute addresses.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/engine.h"
#include "lanescope/functional.h"

#include "engine_internal.h"
#include "engine_queue.h"

/* ------------------------------------------------------------- execution */

/* Whether WGP wgp's dispatcher has workgroups left: one queue, or with
 * several XCDs the queue of the WGP's XCD (workgroup w runs on XCD
 * w mod xcds, as AMD's command processor deals them round-robin). */
static bool has_next(const engine *e, int wgp)
{
    int64_t x = e->hw->xcds;
    return (x > 1 ? e->next_wg_xcd[wgp % x] : e->next_wg) < e->d->total_workgroups;
}

static void dispatch(engine *e, int wg_slot, int wgp, int64_t t)
{
    wgstate *w = &e->wgs[wg_slot];
    int64_t x = e->hw->xcds;
    if (x > 1) {
        w->wg = e->next_wg_xcd[wgp % x];
        e->next_wg_xcd[wgp % x] += x;
    } else {
        w->wg = e->next_wg++;
    }
    /* The dispatcher starts one workgroup every dispatch_cycles, GPU-wide:
     * a kernel of many short workgroups waits for it. */
    if (e->hw->dispatch_cycles > 0) {
        if (e->dispatch_free > t)
            t = e->dispatch_free;
        e->dispatch_free = t + e->hw->dispatch_cycles;
    }
    w->wgp = wgp;
    w->arrived = w->finished = 0;
    ls_workgroup_coord(e->d, w->wg, w->wg_coord);
    w->wg_ragged = ls_tile_ragged_half(e->d, e->p, w->wg_coord, false);
    for (int k = 0; k < e->plan->n_inputs; k++)
        w->wg_half[k] = ls_engine_wg_half(e, k, w->wg, w->wg_coord);
    for (int s = 0; s < e->nsub; s++) {
        int slot = wg_slot * e->nsub + s;
        sgstate *g = &e->sgs[slot];
        sgcold *c = &e->sgc[slot];
        g->wg_slot = wg_slot;
        c->sg = s;
        g->wgp = wgp;
        /* Warps take the SM's sub-partitions by warp slot (slot % 4 on
         * NVIDIA since Volta), so workgroups resident side by side spread
         * over the schedulers: the slot of subgroup s is its workgroup's
         * resident position on the WGP times nsub, plus s. */
        int64_t sched = ((int64_t)(wg_slot / (int)e->hw->wgp_count) * e->nsub + s) %
                        e->hw->schedulers_per_wgp;
        g->sched_slot = (int32_t)(wgp * e->hw->schedulers_per_wgp + sched);
        g->hp = e->hot;
        g->iteration = 0;
        c->tile_iteration = -1;
        g->sk.waiting = false;
        g->done_cycle = 0;
        for (int i = 0; i < e->sb_entries; i++)
            g->sb[i] = 0;
        for (int k = 0; k < e->nspans; k++) {
            c->stage_first[k] = -1;
            c->stage_last[k] = -1;
        }
        g->sk.stage = -1; /* no stage: its first issue takes step()'s path */
        g->cur_first = g->cur_last = -1;
        push(e, t, slot);
    }
}

/* Make stage the one whose span the subgroup keeps in its first line. */
static inline void stage_enter(sgstate *g, sgcold *c, int stage)
{
    if (g->sk.stage == stage)
        return;
    if (g->sk.stage >= 0) { /* not the subgroup's first issue */
        c->stage_first[g->sk.stage] = g->cur_first;
        c->stage_last[g->sk.stage] = g->cur_last;
    }
    g->sk.stage = (int8_t)stage;
    g->cur_first = c->stage_first[stage];
    g->cur_last = c->stage_last[stage];
}

/* Every stage's span in the arrays (the subgroup is done). */
static void stage_flush(const sgstate *g, sgcold *c)
{
    if (g->sk.stage < 0) /* issued nothing */
        return;
    c->stage_first[g->sk.stage] = g->cur_first;
    c->stage_last[g->sk.stage] = g->cur_last;
}

static void record_slow(engine *e, ls_record_kind kind, const sgstate *g, int64_t cycle,
                        int64_t ready, const tinst *in)
{
    ls_engine_record r;
    r.kind = kind;
    r.cycle = cycle;
    r.ready = ready;
    r.workgroup = e->wgs[g->wg_slot].wg;
    r.subgroup = kind == LS_REC_BARRIER ? -1 : e->sgc[g - e->sgs].sg;
    r.stage = in ? in->stage : LS_STAGE_STORE;
    r.op = in ? (int32_t)in->kind : -1;
    r.operand = in && in->kind == I_GLOAD ? (int32_t)in->operand : -1;
    r.iteration = ls_engine_tile_iteration(e, in, g->iteration);
    r.step = in ? in->step : -1;
    r.step_end = in && in->step_end;
    r.after_move = in && in->after_move;
    r.reduce = in ? in->red : NULL;
    r.bytes = e->rec_cost.bytes;
    r.dram_bytes = e->rec_cost.dram_bytes;
    r.sectors = e->rec_cost.sectors;
    r.sector_hits = e->rec_cost.sector_hits;
    r.smem_cycles = e->rec_cost.smem_cycles;
    r.l1_hits = e->rec_cost.l1_hits;
    r.mall_hits = e->rec_cost.mall_hits;
    r.barrier_wait = e->rec_cost.barrier_wait;
    memset(&e->rec_cost, 0, sizeof e->rec_cost); /* one record's */
    e->opts->record(e->opts->record_ctx, &r);
}

void ls_operand_traffic_add(ls_operand_traffic *o, const ls_engine_record *r)
{
    if (r->op != I_GLOAD || r->operand < 0 || r->operand >= LS_MAX_INPUTS)
        return;
    o += r->operand;
    o->global_bytes += r->bytes;
    o->sectors += r->sectors;
    o->l1_hits += r->l1_hits;
    o->sector_hits += r->sector_hits;
    o->mall_hits += r->mall_hits;
    o->dram_bytes += r->dram_bytes;
}

/* The recorder hook costs nothing unless a stepper asked for it. */
static inline void record(engine *e, ls_record_kind kind, const sgstate *g, int64_t cycle,
                          int64_t ready, const tinst *in)
{
    if (e->recording)
        record_slow(e, kind, g, cycle, ready, in);
}

static void finish_subgroup(engine *e, int slot)
{
    sgstate *g = &e->sgs[slot];
    sgcold *c = &e->sgc[slot];
    wgstate *w = &e->wgs[g->wg_slot];
    record(e, LS_REC_DONE, g, g->done_cycle, g->done_cycle, NULL);
    stage_flush(g, c);
    for (int k = 0; k < LS_STAGE_COUNT; k++)
        e->res->stage[k].instructions += e->stage_issues[k]; /* it issued each once */
    for (int k = 0; k < e->nspans; k++) {
        if (c->stage_first[k] < 0)
            continue;
        e->res->stage[k % LS_STAGE_COUNT].subgroup_cycles += c->stage_last[k] - c->stage_first[k];
        ls_trace *tr = e->trace;
        if (tr == NULL)
            continue;
        if (tr->n >= (tr->max_slices ? tr->max_slices : (size_t)LS_TRACE_MAX_SLICES)) {
            tr->truncated = true;
            continue;
        }
        if (tr->n == tr->cap) {
            tr->cap = tr->cap ? tr->cap * 2 : 4096;
            tr->slices = ls_xrealloc(tr->slices, tr->cap * sizeof *tr->slices);
        }
        ls_trace_slice *sl = &tr->slices[tr->n++];
        sl->wgp = g->wgp;
        sl->track = (int32_t)((g->wg_slot / (int)e->hw->wgp_count) * e->nsub + c->sg);
        sl->workgroup = w->wg;
        sl->subgroup = c->sg;
        sl->stage = k % LS_STAGE_COUNT;
        sl->start = c->stage_first[k];
        sl->end = c->stage_last[k];
    }
    if (g->done_cycle >= e->last_finish) {
        e->last_finish = g->done_cycle;
        memcpy(e->crit_first, c->stage_first, sizeof e->crit_first[0] * (size_t)e->nspans);
        memcpy(e->crit_last, c->stage_last, sizeof e->crit_last[0] * (size_t)e->nspans);
    }
    if (++w->finished == e->nsub) {
        e->finished_wgs++;
        if (e->opts && e->opts->progress)
            e->opts->progress(e->opts->progress_ctx, e->finished_wgs, e->d->total_workgroups);
        int64_t t = 0;
        for (int s = 0; s < e->nsub; s++)
            if (e->sgs[g->wg_slot * e->nsub + s].done_cycle > t)
                t = e->sgs[g->wg_slot * e->nsub + s].done_cycle;
        if (has_next(e, w->wgp))
            dispatch(e, g->wg_slot, w->wgp, t);
        else
            w->wg = -1;
    }
}

/* The instruction after h: its loop's first again while trips remain
 * (hot: the program's first instruction). */
static inline const hinst *next_inst(const hinst *h, int64_t *iteration, const hinst *hot,
                                     const eloop *loops)
{
    const hinst *nx = h + 1;
    if (h->back) {
        const eloop *l = &loops[h->back - 1];
        if (++*iteration < l->trip0 + l->trips)
            nx = hot + l->begin;
    }
    return nx;
}

/* When nx's operands are ready, and no earlier than from: only the
 * subgroup's own issues change its scoreboard, so that time is known as
 * soon as the instruction before has issued, and waking earlier just to
 * stall again would cost an event.  That instruction's result (entry wr,
 * ready at done, just written) is taken from the register, not read back
 * through memory: in a run of dependent issues the store-to-load trip
 * made each step about 1.2x slower (Example 1, alternating builds). */
static inline int64_t operands_ready(const int64_t *sb, const hinst *nx, int64_t from,
                                     int32_t wr, int64_t done)
{
    int64_t w0 = nx->rd[0] == wr ? done : sb[nx->rd[0]];
    int64_t w1 = nx->rd[1] == wr ? done : sb[nx->rd[1]];
    int64_t w2 = nx->rd[2] == wr ? done : sb[nx->rd[2]]; /* an FMA's accumulator, else entry 0 */
    from = w0 > from ? w0 : from;
    from = w1 > from ? w1 : from;
    return w2 > from ? w2 : from;
}

/* What follows an issue at cycle t whose result is complete at done: the
 * scoreboard, the spans, the next pc.  Returns the cycle of the
 * subgroup's next event, -1 when it has finished. */
static inline int64_t retire(engine *e, int slot, sgstate *g, int64_t t, int64_t done)
{
    int64_t *sb = g->sb;
    const int32_t wr = g->hp->wr;
    const int64_t next = t + !g->hp->free; /* a free half leaves its cycle to the next */
    sb[wr] = done;
    if (done > g->cur_last)
        g->cur_last = done;
    if (done > g->done_cycle)
        g->done_cycle = done;
    const hinst *nx = next_inst(g->hp, &g->iteration, e->hot, e->loops);
    g->hp = nx;
    if (nx == e->hot + e->ncode) {
        finish_subgroup(e, slot);
        return -1;
    }
    return operands_ready(sb, nx, next, wr, done);
}

/* Input k's bytes [lo, hi) as the dense operand has them: where they lie.
 * A gathered input's dense row b lies at source row row_of[b] (a range is
 * cut at row ends). */
static int64_t touch(engine *e, int k, int wgp, int64_t lo, int64_t hi, int64_t t,
                     ls_stage_stats *st)
{
    const ls_plan_gather *g = &e->plan->gather[k];
    if (!g->on)
        return ls_engine_touch_range(e, wgp, lo, hi, t, st);
    int64_t ready = t, base = e->op_base[k];
    for (int64_t a = lo; a < hi;) {
        int64_t off = a - base, row = off / g->row_bytes, in = off % g->row_bytes;
        int64_t n = g->row_bytes - in < hi - a ? g->row_bytes - in : hi - a;
        int64_t at = base + g->row_of[row < g->rows ? row : g->rows - 1] * g->row_bytes + in;
        int64_t r = ls_engine_touch_range(e, wgp, at, at + n, t, st);
        if (r > ready)
            ready = r;
        a += n;
    }
    return ready;
}

/* One issue attempt of subgroup slot at cycle t.  Returns the cycle its
 * next event is due (the caller pushes it), or -1 when nothing is due
 * (waiting at a barrier, finished, or pushed already). */
/* A global load of subgroup g at cycle t: the sectors it touches (the
 * tile's intervals, or a ragged tile's masked ones) through the caches,
 * counted in the stage's and the operand's figures.  When its data is in. */
static int64_t issue_gload(engine *e, sgstate *g, sgcold *c, const wgstate *w, const tinst *in,
                           ls_stage_stats *st, int64_t t)
{
    const ls_hw *hw = e->hw;
    int64_t iteration = ls_engine_tile_iteration(e, in, g->iteration);
    if (c->tile_iteration != iteration) { /* once per iteration, not per load */
        c->tile_ragged =
            ls_engine_tile_at(e, iteration, w->wg_half, w->wg_ragged, c->tile_base, c->it_coord);
        c->tile_iteration = iteration;
    }
    const int64_t *it_coord = c->it_coord;
    int k = in->operand;
    /* the operand's share of what the load costs, counted below */
    const int64_t b_bytes = st->global_bytes, b_sectors = st->sectors, b_l1 = st->l1_hits,
                  b_l2 = st->sector_hits, b_mall = st->mall_hits, b_dram = st->dram_bytes;
    int64_t done = t;
    if (!c->tile_ragged || e->in_own[k]) {
        int64_t base = c->tile_base[k];
        int64_t i0 = ls_engine_load_slot(e, in, c->sg);
        const interval *iv = e->ivals + e->ival_start[i0];
        for (int i = 0; i < e->ival_count[i0]; i++) {
            int64_t r = touch(e, k, g->wgp, base + iv[i].lo, base + iv[i].hi, t, st);
            st->global_bytes += iv[i].hi - iv[i].lo;
            if (r > done)
                done = r;
        }
    } else {
        int64_t width = in->copy ? e->plan->promote[k].copy_width : e->plan->inputs[k].width;
        interval *tmp = ls_xcalloc((size_t)(e->d->subgroup_size * width), sizeof *tmp);
        int64_t active;
        int n = ls_engine_ragged_intervals(e, in, c->sg, w->wg_coord, it_coord, tmp, &active);
        for (int i = 0; i < n; i++) {
            int64_t r =
                touch(e, k, g->wgp, e->op_base[k] + tmp[i].lo, e->op_base[k] + tmp[i].hi, t, st);
            if (r > done)
                done = r;
        }
        st->global_bytes += active;
        free(tmp);
    }
    if (done == t) /* fully masked: no memory traffic */
        done = t + hw->alu_latency;
    ls_operand_traffic *ot = &e->res->operand[k];
    ot->global_bytes += st->global_bytes - b_bytes;
    ot->sectors += st->sectors - b_sectors;
    ot->l1_hits += st->l1_hits - b_l1;
    ot->sector_hits += st->sector_hits - b_l2;
    ot->mall_hits += st->mall_hits - b_mall;
    ot->dram_bytes += st->dram_bytes - b_dram;
    return done;
}

/* Subgroup g arrives at a barrier at cycle t: it waits, or, the last of
 * its workgroup, releases them all (each pushed at the release). */
static void issue_barrier(engine *e, sgstate *g, sgcold *c, wgstate *w, const tinst *in,
                          ls_stage_stats *st, int64_t t)
{
    const ls_hw *hw = e->hw;
    int64_t *sb = g->sb;
    c->barrier_arrival = t;
    sb[in->wr] = t;
    g->hp++;
    if (++w->arrived < e->nsub) {
        g->sk.waiting = true; /* released by the last arrival */
        record(e, LS_REC_ISSUE, g, t, t, in);
        return;
    }
    int64_t release = t + hw->barrier_latency, waited = 0;
    st->barriers++; /* one per workgroup release */
    for (int s = 0; s < e->nsub; s++)
        waited += release - e->sgc[g->wg_slot * e->nsub + s].barrier_arrival;
    record(e, LS_REC_ISSUE, g, t, t, in);
    e->rec_cost.barrier_wait = waited;
    record(e, LS_REC_BARRIER, g, release, release, in);
    w->arrived = 0;
    for (int s = 0; s < e->nsub; s++) {
        sgstate *o = &e->sgs[g->wg_slot * e->nsub + s];
        sgcold *oc = &e->sgc[g->wg_slot * e->nsub + s];
        st->barrier_wait_cycles += release - oc->barrier_arrival;
        o->sk.waiting = true; /* until its next step(): operands may be pending */
        stage_enter(o, oc, in->span);
        if (release > o->cur_last)
            o->cur_last = release;
        push(e, release, g->wg_slot * e->nsub + s);
    }
}

/* A workgroup-memory access: the WGP's banks busy for its conflict
 * degree (a promoted operand's copy or the reduction's buffer). */
static inline int64_t issue_smem(engine *e, const sgstate *g, const tinst *in, ls_stage_stats *st,
                                 int64_t t)
{
    int64_t deg, piece_deg;
    if (in->promote) {
        const int64_t *pd =
            e->promote_degree[in->operand] +
            2 * ((in->kind == I_SMEM_LD) * e->plan->promote[in->operand].copy_loads + in->load);
        deg = pd[0];
        piece_deg = pd[1];
    } else {
        deg = piece_deg =
            e->smem_degree[(in->kind == I_SMEM_LD) * e->plan->results_per_thread + in->result];
    }
    int64_t *unit = &e->smem_free[g->wgp];
    int64_t start = *unit > t ? *unit : t;
    *unit = start + deg;
    st->smem_accesses += in->issues > 1 ? in->issues : 1; /* a split vector's pieces */
    st->smem_cycles += deg;
    if (piece_deg > st->smem_max_degree)
        st->smem_max_degree = piece_deg;
    return start + deg + e->hw->smem_latency;
}

/* A subgroup's writes for one result slot, posted through L2 into the
 * DRAM queue. */
static inline int64_t issue_gstore(engine *e, const tinst *in, ls_stage_stats *st, int64_t t)
{
    int64_t bytes = in->store_bytes ? in->store_bytes
                    : in->index     ? e->index_store_bytes
                                    : e->store_bytes;
    int64_t now = t << LS_TICK_SHIFT; /* t <= LS_MAX_SIM_CYCLES (push) */
    e->dram_free = (e->dram_free > now ? e->dram_free : now) + (in->store_bytes ? in->store_ticks
                                                                : in->index ? e->index_store_ticks
                                                                            : e->store_ticks);
    if (e->dram_free > LS_MAX_SIM_TICKS) { /* a store adds < 2^40 ticks */
        e->dram_free = LS_MAX_SIM_TICKS;
        e->clock_over = true;
    }
    st->global_bytes += bytes;
    st->dram_bytes += bytes;
    e->res->dram_bytes += bytes;
    return t + e->hw->l2_latency;
}

/* For a recorder: this issue's share of the stage's figures. */
static void record_issue(engine *e, const ls_stage_stats *st, sgstate *g, int64_t t, int64_t done,
                         const tinst *in)
{
    e->rec_cost.bytes = st->global_bytes - e->rec_before.global_bytes;
    e->rec_cost.dram_bytes = st->dram_bytes - e->rec_before.dram_bytes;
    e->rec_cost.sectors = st->sectors - e->rec_before.sectors;
    e->rec_cost.sector_hits = st->sector_hits - e->rec_before.sector_hits;
    e->rec_cost.smem_cycles = st->smem_cycles - e->rec_before.smem_cycles;
    e->rec_cost.l1_hits = st->l1_hits - e->rec_before.l1_hits;
    e->rec_cost.mall_hits = st->mall_hits - e->rec_before.mall_hits;
    record_slow(e, LS_REC_ISSUE, g, t, done, in);
}

static int64_t step(engine *e, int slot, int64_t t)
{
    sgstate *g = &e->sgs[slot];
    sgcold *c = &e->sgc[slot];
    g->sk.waiting = false; /* what is due next is due no earlier than its operands */
    int64_t *sb = g->sb;
    const ls_hw *hw = e->hw;
    const tinst *in = &e->code[g->hp - e->hot];
    /* operands */
    int64_t ready = t;
    for (int k = 0; k < LS_TINST_DEPS; k++)
        ready = sb[in->rd[k]] > ready ? sb[in->rd[k]] : ready;
    if (ready > t) /* re-checked when it fires */
        return ready;
    /* issues 0: the second half of a packed pair, issued with the first */
    if (in->issues > 0) {
        schedcursor sched = sched_open(&e->sched[g->sched_slot], t);
        int64_t open = sched_first_free(&sched, t);
        if (open > t) /* the scheduler gave cycle t away: try again at its next open one */
            return open;
        sched_take(&sched, t);
        /* the rest of a load the backend splits (tinst.issues), each in the
         * next open cycle, within the ring's window */
        for (int64_t p = 1, at = t; p < in->issues; p++) {
            int64_t c2 = sched_first_free(&sched, at + 1);
            if (c2 > t + LS_SCHED_AHEAD)
                break;
            sched_take(&sched, c2);
            at = c2;
        }
        sched_close(&sched);
    }
    ls_stage_stats *st = &e->res->stage[in->stage]; /* instructions: finish_subgroup */
    stage_enter(g, c, in->span);
    if (g->cur_first < 0)
        g->cur_first = t;
    int64_t done = t + hw->alu_latency;
    if (in->kind == I_ALU && !e->recording)
        goto issued; /* most issues: nothing more to model */
    wgstate *w = &e->wgs[g->wg_slot];
    /* the stage figures before, for a recorder: this issue's own share */
    if (e->recording)
        e->rec_before = *st;
    switch (in->kind) {
    case I_ALU: break;
    case I_SFU:
        if (hw->sfu_interval > 0) { /* else an ALU instruction */
            int64_t *unit = &e->sfu_free[g->sched_slot];
            int64_t start = *unit > t ? *unit : t;
            *unit = start + hw->sfu_interval;
            done = start + hw->sfu_latency;
        }
        st->sfu_ops++;
        break;
    case I_DPP:
        done = t + hw->dpp_latency;
        st->dpp_steps++;
        break;
    case I_SHUFFLE: {
        int64_t *unit = &e->shfl_free[g->wgp];
        int64_t start = *unit > t ? *unit : t;
        *unit = start + hw->shuffle_interval;
        done = start + hw->shuffle_latency;
        st->shuffles++;
        break;
    }
    case I_GLOAD: done = issue_gload(e, g, c, w, in, st, t); break;
    case I_SMEM_ST:
    case I_SMEM_LD: done = issue_smem(e, g, in, st, t); break;
    case I_GSTORE:
        if (in->writers > 0 && c->sg >= in->writers) /* guarded off: a compare and a branch */
            done = t + hw->alu_latency;
        else
            done = issue_gstore(e, in, st, t);
        break;
    case I_BARRIER: issue_barrier(e, g, c, w, in, st, t); return -1;
    }
    if (e->recording)
        record_issue(e, st, g, t, done, in);
issued:
    return retire(e, slot, g, t, done);
}

/* The latest result of a run of issues in the subgroup's spans (-1: none). */
static inline void run_done(sgstate *g, int64_t last_done)
{
    if (last_done > g->cur_last)
        g->cur_last = last_done;
    if (last_done > g->done_cycle)
        g->done_cycle = last_done;
}

/* A run of ALU instructions of subgroup g, the first due at cycle t (its
 * operands are ready: see run_events), issued in one event: each takes
 * the first cycle its scheduler has open from when its operands are
 * ready ("Issue order" in docs/timing-model.md).  The run ends before an
 * instruction of another kind or stage (the program's last instruction
 * counts as another: ending the subgroup dispatches the next workgroup,
 * which must happen in the clock's order) or one whose operands are ready
 * past t + LS_SCHED_AHEAD, the ring's reach.  Returns the cycle of the
 * subgroup's next event.  The template's constants come as arguments: the
 * event loop passes copies the compiler knows no store changes (the
 * engine's fields could be the target of any int64_t store); e is read
 * only when recording. */
static inline int64_t issue_run(engine *e, sgstate *g, int64_t t, schedring *ring,
                                int64_t alu_latency, const hinst *hot, const eloop *loops,
                                bool recording)
{
    /* The run is one chain of dependent steps: what it reads and writes
     * stays in locals, and goes back to memory when it ends. */
    const int64_t limit = t + LS_SCHED_AHEAD;
    const uint16_t key = g->sk.key;
    int64_t *sb = g->sb;
    const hinst *h = g->hp;
    int64_t iteration = g->iteration, last_done = -1, c = t, due;
    schedcursor sched = sched_open(ring, t);
    for (;;) {
        if (!h->free) { /* a packed pair's second half takes no slot */
            c = sched_first_free(&sched, c);
            if (c > limit) {
                due = c; /* issued when its event fires */
                break;
            }
            sched_take(&sched, c);
        }
        int64_t done = c + alu_latency;
        sb[h->wr] = done;
        last_done = done; /* c only grows: the run's latest */
        if (__builtin_expect(recording, 0)) {
            g->iteration = iteration; /* the record's */
            record_slow(e, LS_REC_ISSUE, g, c, done, &e->code[h - e->hot]);
        }
        /* not the end: the last instruction takes step() */
        const hinst *nx = next_inst(h, &iteration, hot, loops);
        int64_t wake = operands_ready(sb, nx, c + !h->free, h->wr, done);
        h = nx;
        if (h->fast_key != key || wake > limit) {
            due = wake;
            break;
        }
        c = wake;
    }
    sched_close(&sched);
    g->hp = h;
    g->iteration = iteration;
    run_done(g, last_done);
    return due;
}

/* The event loop; returns the events it took.  Most events issue a run
 * of ALU instructions of the stage the subgroup is already in, and that
 * path is written out here with the run's constants in locals: the
 * engine's own fields could be the target of any int64_t store, so the
 * compiler would reload them after each.  Everything else goes through
 * step(). */
static int64_t run_events(engine *e)
{
    sgstate *const sgs = e->sgs;
    const hinst *const hot = e->hot;
    const eloop *const loops = e->loops;
    schedring *const sched = e->sched;
    const int64_t alu_latency = e->hw->alu_latency;
    const bool recording = e->recording;
    int64_t events = 0;
    for (int slot; (slot = pop(e)) >= 0;) {
        events++;
        int64_t t = e->now, due;
        sgstate *g = &sgs[slot];
        const hinst *h = g->hp;
        /* An ALU issue in the stage whose span the subgroup holds (its
         * first issue in a stage sets cur_first: that is step()'s), not
         * the first event after a barrier.  Its operands are ready: every
         * other event is due no earlier than they are (retire's wake,
         * step()'s wait), and only the subgroup's own issues change them. */
        if (h->fast_key == g->sk.key) {
            due = issue_run(e, g, t, &sched[g->sched_slot], alu_latency, hot, loops, recording);
        } else {
            due = step(e, slot, t);
            if (e->clock_over) /* a store's, a barrier's or a dispatch's push */
                break;
        }
        if (due < 0)
            continue;
        if (__builtin_expect(due < e->wheel_end, 1))
            bucket_append(e, due, slot);
        else if (push(e, due, slot), e->clock_over)
            break;
    }
    return events;
}

/* The instructions' hot copy: operands, stage key, and the loop-back mark
 * on each loop's last instruction. */
static void hot_code(engine *e)
{
    e->hot = ls_xcalloc((size_t)e->ncode + 1, sizeof *e->hot);
    for (int i = 0; i < e->ncode; i++) {
        const tinst *in = &e->code[i];
        /* the last instruction ends the subgroup, which dispatches the
         * next workgroup: in the clock's order, so never in a run */
        bool fast = in->kind == I_ALU && i + 1 < e->ncode;
        stagekey k = {.stage = (int8_t)(fast ? in->span : -2), .waiting = false};
        e->hot[i] = (hinst){{in->rd[0], in->rd[1], in->rd[2]}, in->wr, k.key, 0, in->issues == 0};
    }
    for (int l = 0; l < e->n_loops; l++)
        if (e->loops[l].end > e->loops[l].begin)
            e->hot[e->loops[l].end - 1].back = (int8_t)(l + 1);
}

/* The bytes the run's state takes (saturated at INT64_MAX): every resident
 * subgroup's, each workgroup slot's, the request slots of the WGPs in use. */
static int64_t state_bytes(const engine *e, const ls_hw *hw)
{
    int64_t sg_bytes = (int64_t)(sizeof(sgstate) + sizeof(sgcold)) + (int64_t)e->sb_stride * 8 + 32;
    /* slots <= 100000 WGPs x 4096, subgroups <= 65536, the program < 2^31
     * instructions: the product may pass int64 */
    int64_t state;
    if (!ls_mul_ok(e->nsub, sg_bytes, &state) ||
        !ls_mul_ok(e->n_wg_slots, (int64_t)sizeof(wgstate) + state, &state))
        state = INT64_MAX; /* saturated: only compared with the limit */
    /* the request slots of every WGP in use (<= 100000 x 65536 x 8 bytes) */
    int64_t used_wgps = e->n_wg_slots < hw->wgp_count ? e->n_wg_slots : hw->wgp_count;
    int64_t slots_bytes = used_wgps * hw->mshrs_per_wgp * 8;
    state = state > INT64_MAX - slots_bytes ? INT64_MAX : state + slots_bytes;
    return state;
}

/* The run's state, after its size was checked. */
static void alloc_state(engine *e, const ls_hw *hw)
{
    e->sched =
        ls_xcalloc_aligned((size_t)(hw->wgp_count * hw->schedulers_per_wgp), sizeof *e->sched, 64);
    e->shfl_free = ls_xcalloc((size_t)hw->wgp_count, sizeof(int64_t));
    e->sfu_free = ls_xcalloc((size_t)(hw->wgp_count * hw->schedulers_per_wgp), sizeof(int64_t));
    e->smem_free = ls_xcalloc((size_t)hw->wgp_count, sizeof(int64_t));
    e->wgs = ls_xcalloc((size_t)e->n_wg_slots, sizeof *e->wgs);
    e->sgs = ls_xcalloc_aligned((size_t)(e->n_wg_slots * e->nsub), sizeof *e->sgs, 64);
    e->sgc = ls_xcalloc_aligned((size_t)(e->n_wg_slots * e->nsub), sizeof *e->sgc, 64);
    /* each subgroup's scoreboard: its live results' entries */
    e->sb = ls_xcalloc_aligned((size_t)(e->n_wg_slots * e->nsub) * (size_t)e->sb_stride,
                               sizeof *e->sb, 64);
    for (int i = 0; i < e->n_wg_slots * e->nsub; i++)
        e->sgs[i].sb = e->sb + (size_t)i * (size_t)e->sb_stride;
}

/* The result's totals after the last event: the cycles (the stores'
 * drain counted), the times, the bandwidth, each stage's critical span. */
static void finish_result(const engine *e, const ls_hw *hw, ls_sim_result *res)
{
    for (int k = 0; k < LS_STAGE_COUNT; k++)
        res->instructions += res->stage[k].instructions;
    /* The stores are posted: a subgroup is done when they reach the L2, but
     * the DRAM queue may still hold them.  The run ends when it drains, so
     * every byte counted as moved was moved inside the kernel's time and the
     * reported bandwidth never exceeds the model's. */
    int64_t drained = (e->dram_free + LS_TICK - 1) >> LS_TICK_SHIFT;
    res->cycles = e->last_finish > drained ? e->last_finish : drained;
    res->kernel_us = (double)res->cycles / (double)hw->clock_mhz;
    res->launch_us = hw->launch_us;
    res->time_us = res->kernel_us + res->launch_us;
    res->dram_gbps = res->kernel_us > 0 ? (double)res->dram_bytes / (res->kernel_us * 1e3) : 0;
    res->dram_fraction = res->dram_gbps / hw->dram_gbps;
    /* a stage's spans on the critical subgroup: one, or a fused kernel's
     * one per loop, summed */
    for (int k = 0; k < e->nspans; k++)
        if (e->crit_first[k] >= 0 && e->crit_last[k] >= e->crit_first[k])
            res->stage[k % LS_STAGE_COUNT].critical_cycles += e->crit_last[k] - e->crit_first[k];
}

/* Everything the run allocated. */
static void engine_free(engine *e, const ls_problem *p)
{
    free(e->sb);
    free(e->hot);
    free(e->code);
    free(e->heap);
    free(e->next_slot);
    free(e->wheel);
    free(e->sched);
    free(e->shfl_free);
    free(e->sfu_free);
    free(e->smem_free);
    free(e->wgs);
    free(e->sgs);
    free(e->sgc);
    ls_engine_memory_free(e);
    free(e->it_half);
    free(e->it_ragged);
    free(e->ivals);
    free(e->ival_start);
    free(e->ival_count);
    free(e->smem_degree);
    for (int k = 0; k < p->n_inputs; k++)
        free(e->promote_degree[k]);
}

ls_status ls_engine_run(const ls_plan *plan, const ls_hw *hw, ls_sim_result *res,
                        const ls_engine_opts *opts, ls_diag *diag)
{
    engine e;
    int64_t total;
    ls_status st = ls_engine_prepare(&e, plan, hw, res, opts, &total, diag);
    if (st != LS_OK)
        return st;
    const ls_problem *p = plan->problem;
    int64_t occ = res->occupancy;
    if (ls_engine_work_verdict(p, total, opts && opts->force, diag) != LS_OK) {
        free(e.code);
        return diag->status;
    }
    /* the state of every resident subgroup is held at once: bounded before
     * anything is allocated */
    ls_engine_assign_scoreboard(&e, opts && opts->plain_scoreboard);
    e.sb_stride = e.sb_entries;
    hot_code(&e);
    int64_t state = state_bytes(&e, hw);
    if (ls_engine_state_verdict(p, state, e.n_wg_slots, hw->wgp_count, occ, diag) != LS_OK) {
        free(e.hot);
        free(e.code);
        return diag->status;
    }
    alloc_state(&e, hw);
    ls_engine_precompute_loads(&e);
    ls_engine_iteration_table(&e);
    e.streaming = !(opts && opts->full_cache_walk) && ls_engine_streams(&e);
    res->streamed = e.streaming;
    ls_engine_memory_init(&e);
    int64_t per_store = plan->stores_per_workgroup / (e.nsub * plan->results_per_thread);
    e.store_bytes = (per_store > 0 ? per_store : 1) * plan->acc_elem_bytes;
    e.store_ticks = llround((double)e.store_bytes * LS_TICK / hw->dram_bytes_per_cycle);
    e.index_store_bytes = (per_store > 0 ? per_store : 1) * plan->index_bytes;
    e.index_store_ticks =
        llround((double)e.index_store_bytes * LS_TICK / hw->dram_bytes_per_cycle);
    ls_engine_smem_degrees(&e);
    e.wheel = ls_xmalloc(LS_WHEEL * sizeof *e.wheel);
    e.wheel_end = LS_WHEEL; /* now = 0 */
    for (int i = 0; i < LS_WHEEL; i++)
        e.wheel[i].head = e.wheel[i].tail = -1;
    e.next_slot = ls_xmalloc((size_t)(e.n_wg_slots * e.nsub) * sizeof *e.next_slot);
    for (int64_t x = 0; x < hw->xcds && x < 64; x++)
        e.next_wg_xcd[x] = x;
    /* Slot w starts on WGP w mod wgp_count, so at first workgroup w runs on
     * XCD w mod xcds (xcds divides wgp_count) */
    for (int w = 0; w < e.n_wg_slots; w++)
        dispatch(&e, w, (int)(w % hw->wgp_count), 0);
    res->events = run_events(&e);
    finish_result(&e, hw, res);
    engine_free(&e, p);
    if (e.clock_over)
        return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "the simulated run passes %lld cycles (the engine clock's limit, "
                           "2^40); simulate a smaller problem or on a faster model",
                           (long long)LS_MAX_SIM_CYCLES);
    return LS_OK;
}
