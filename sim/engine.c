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
 * Cost: O(events x log(resident subgroups)); a global load additionally walks
 * its coalesced byte intervals (precomputed per subgroup slot and load), so
 * interior tiles cost O(sectors) and only ragged tiles recompute addresses.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lanescope/engine.h"
#include "lanescope/functional.h"

#include "engine_internal.h"

/* ------------------------------------------------------------- events
 *
 * A timing wheel of LS_WHEEL buckets (one per cycle, FIFO lists) holds the
 * events of the next LS_WHEEL cycles; later ones wait in a binary heap.
 * Order is (cycle, sequence): sequence numbers grow with push order, so a
 * FIFO bucket is already in sequence order, provided an overflow event
 * enters its bucket before any direct push to that cycle -- which holds
 * because overflow events migrate as soon as the wheel's window reaches
 * them (advance_to), and a direct push to cycle c only happens once c is
 * inside the window.  Push and pop are O(1) amortised. */

enum { LS_WHEEL = 1 << 14 };

/* The DRAM queue counts in ticks of 2^-20 cycle: integer arithmetic, and a
 * rounding error per sector far below a cycle over any run. */
#define LS_TICK_SHIFT 20
#define LS_TICK (INT64_C(1) << LS_TICK_SHIFT)

static inline int32_t node_new(engine *e, int64_t cycle, uint64_t seq, int32_t slot)
{
    int32_t n;
    if (e->free_node >= 0) {
        n = e->free_node;
        e->free_node = e->nodes[n].next;
    } else {
        if (e->n_nodes == e->cap_nodes) {
            e->cap_nodes = e->cap_nodes ? e->cap_nodes * 2 : 4096;
            e->nodes = ls_xrealloc(e->nodes, (size_t)e->cap_nodes * sizeof *e->nodes);
        }
        n = e->n_nodes++;
    }
    e->nodes[n] = (wnode){cycle, seq, slot, -1};
    return n;
}

static inline void bucket_append(engine *e, int32_t n)
{
    int64_t b = e->nodes[n].cycle & (LS_WHEEL - 1);
    if (e->tail[b] < 0)
        e->head[b] = n;
    else
        e->nodes[e->tail[b]].next = n;
    e->tail[b] = n;
    e->in_wheel++;
}

static void heap_push(engine *e, event ev)
{
    if (e->nheap == e->capheap) {
        e->capheap = e->capheap ? e->capheap * 2 : 1024;
        e->heap = ls_xrealloc(e->heap, (size_t)e->capheap * sizeof *e->heap);
    }
    int i = e->nheap++;
    while (i > 0) {
        int parent = (i - 1) / 2;
        event *pe = &e->heap[parent];
        if (pe->cycle < ev.cycle || (pe->cycle == ev.cycle && pe->seq < ev.seq))
            break;
        e->heap[i] = *pe;
        i = parent;
    }
    e->heap[i] = ev;
}

static event heap_pop(engine *e)
{
    event top = e->heap[0];
    event last = e->heap[--e->nheap];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= e->nheap)
            break;
        if (c + 1 < e->nheap &&
            (e->heap[c + 1].cycle < e->heap[c].cycle ||
             (e->heap[c + 1].cycle == e->heap[c].cycle && e->heap[c + 1].seq < e->heap[c].seq)))
            c++;
        if (last.cycle < e->heap[c].cycle ||
            (last.cycle == e->heap[c].cycle && last.seq < e->heap[c].seq))
            break;
        e->heap[i] = e->heap[c];
        i = c;
    }
    e->heap[i] = last;
    return top;
}

static inline void push(engine *e, int64_t cycle, int slot)
{
    uint64_t seq = e->seq++;
    if (cycle < e->now + LS_WHEEL)
        bucket_append(e, node_new(e, cycle, seq, slot));
    else
        heap_push(e, (event){cycle, seq, slot});
}

/* Move the wheel to cycle t, taking in overflow events that are now inside. */
static void advance_to(engine *e, int64_t t)
{
    e->now = t;
    while (e->nheap > 0 && e->heap[0].cycle < t + LS_WHEEL) {
        event ev = heap_pop(e);
        bucket_append(e, node_new(e, ev.cycle, ev.seq, ev.slot));
    }
}

static bool pop(engine *e, event *out)
{
    for (;;) {
        if (e->in_wheel == 0) {
            if (e->nheap == 0)
                return false;
            advance_to(e, e->heap[0].cycle); /* jump over idle time */
            continue;
        }
        int64_t b = e->now & (LS_WHEEL - 1);
        int32_t n = e->head[b];
        if (n >= 0 && e->nodes[n].cycle == e->now) {
            e->head[b] = e->nodes[n].next;
            if (e->head[b] < 0)
                e->tail[b] = -1;
            *out = (event){e->nodes[n].cycle, e->nodes[n].seq, e->nodes[n].slot};
            e->nodes[n].next = e->free_node;
            e->free_node = n;
            e->in_wheel--;
            e->res->events++;
            return true;
        }
        advance_to(e, e->now + 1);
    }
}

/* ------------------------------------------------------------- memory */

/* Distinct words in the busiest bank among accesses [from, to) of addr. */
static int64_t phase_degree(const int64_t *addr, int from, int to, int64_t bytes, int64_t banks,
                            int64_t bank_bytes)
{
    /* distinct words per bank; O(n * words^2) with n <= 1024 lanes */
    int64_t words[4096];
    int nw = 0;
    for (int i = from; i < to; i++)
        for (int64_t b = 0; b < bytes; b += bank_bytes) {
            int64_t wd = (addr[i] + b) / bank_bytes;
            bool dup = false;
            for (int j = 0; j < nw && !dup; j++)
                dup = words[j] == wd;
            if (!dup && nw < 4096)
                words[nw++] = wd;
        }
    int64_t worst = 0;
    for (int j = 0; j < nw; j++) {
        int64_t bank = words[j] % banks, count = 0;
        for (int k = 0; k < nw; k++)
            count += words[k] % banks == bank;
        if (count > worst)
            worst = count;
    }
    return worst ? worst : 1;
}

int64_t ls_bank_conflict_degree(const int64_t *lanes, const int64_t *addr, int n, int64_t bytes,
                                int64_t banks, int64_t bank_bytes)
{
    /* An access wider than a bank is served in phases: as many lanes as
     * one pass of the banks holds (128 B on 32 x 4-byte banks: 16 lanes of
     * 8 bytes, 8 lanes of 16), each phase costing its own degree
     * (shared/reference/hardware.md: MI300X's ds_write_b128 is serviced in
     * phases of 8 lanes; NVIDIA splits 64- and 128-bit shared accesses
     * into half- and quarter-warp phases the same way).  Narrower accesses
     * are one phase. */
    int64_t per_phase = bytes > bank_bytes ? banks * bank_bytes / bytes : 0;
    if (per_phase <= 0)
        return phase_degree(addr, 0, n, bytes, banks, bank_bytes);
    int64_t total = 0;
    for (int i = 0; i < n;) {
        int64_t phase = (lanes ? lanes[i] : i) / per_phase;
        int j = i;
        while (j < n && (lanes ? lanes[j] : j) / per_phase == phase)
            j++;
        total += phase_degree(addr, i, j, bytes, banks, bank_bytes);
        i = j;
    }
    return total;
}

/* Portable popcount (the build does not assume the POPCNT instruction). */
static int popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}

/* The L2 set of a line.  Hashed: the line address's higher bits are folded
 * into the index bits, as GPU L2s hash addresses over slices and sets, so
 * rows with a power-of-two pitch do not all land in a few sets (Accel-Sim
 * hashes its L2 set index the same way: the "P" (IPOLY) set function of its
 * tested configs, e.g. SM7_QV100's -gpgpu_cache:dl2; its README: XOR and
 * polynomial hashing "to reduce bank and cache set conflicts").  The higher
 * bits go through a multiplicative scramble first: a plain XOR fold maps a
 * pitch of sets + 1 lines back onto one set.  The scramble only changes
 * every 2^set_bits lines, so a walk over consecutive lines keeps the last
 * one (*hi, *scr) and pays for the multiply once per block. */
static inline int64_t l2_set(const l2model *c, int64_t line, uint64_t *hi, uint64_t *scr)
{
    uint64_t h = (uint64_t)line >> c->set_bits;
    if (h != *hi) {
        *hi = h;
        *scr = (h * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - c->set_bits);
    }
    uint64_t fold = (uint64_t)line ^ *scr;
    return c->sets_pow2 ? (int64_t)(fold & (uint64_t)(c->sets - 1))
                        : (int64_t)(fold % (uint64_t)c->sets);
}

/* Look up one line's sectors (mask, nsect of them) at cycle t in its set;
 * returns the data-ready cycle and adds the sectors that missed to
 * *nmiss_out.  Statistics are summed by the caller: this runs once per line
 * of every load, so it keeps to the lookup itself. */
static inline int64_t l2_access(const l2model *c, int64_t *dram_free, int64_t line, int64_t set,
                                uint64_t mask, int nsect, int64_t t, int64_t *nmiss_out)
{
    int ways = c->ways;
    int64_t base = set * ways;
    l2way *ways_of_set = c->way + base;
    uint8_t *order = c->order + base; /* way indices, most recent first */
    /* 8-bit fingerprints filter the scan: a miss reads 16 bytes, not 16 tags */
    uint8_t fp = (uint8_t)(line ^ (line >> 8) ^ (line >> 16));
    uint8_t *fps = c->fp + base;
    int w = ways, pos = ways - 1;
    if (ways == 16) {
        /* SWAR: candidate ways are the zero bytes of fps ^ fp, two words at a time */
        const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
        uint64_t fpx = fp * ones;
        for (int half = 0; half < 2 && w == ways; half++) {
            uint64_t v;
            memcpy(&v, fps + 8 * half, 8);
            v ^= fpx;
            uint64_t cand = (v - ones) & ~v & highs;
            while (cand) {
                int k = 8 * half + __builtin_ctzll(cand) / 8;
                if (ways_of_set[k].tag == line) {
                    w = k;
                    break;
                }
                cand &= cand - 1;
            }
        }
    } else {
        w = 0;
        while (w < ways && (fps[w] != fp || ways_of_set[w].tag != line))
            w++;
    }
    if (w == ways) { /* miss: the least recently used way is last in the order */
        w = order[pos];
        ways_of_set[w].tag = line;
        ways_of_set[w].valid = 0;
        ways_of_set[w].fill = 0;
        fps[w] = fp;
    } else {
        pos = 0;
        while (order[pos] != w)
            pos++;
    }
    if (pos > 0) { /* move w to the front (already there: nothing to do) */
        if (ways == 16) {
            /* bytes 0..pos shift up by one, in one 128-bit step */
            unsigned __int128 v, moved, m;
            memcpy(&v, order, 16);
            m = pos == 15 ? ~(unsigned __int128)0
                          : (((unsigned __int128)1 << (8 * (pos + 1))) - 1);
            moved = (v << 8) | (unsigned __int128)(uint8_t)w;
            v = (v & ~m) | (moved & m);
            memcpy(order, &v, 16);
        } else {
            for (; pos > 0; pos--)
                order[pos] = order[pos - 1];
            order[0] = (uint8_t)w;
        }
    }
    l2way *lw = &ways_of_set[w];
    uint64_t missing = mask & ~lw->valid;
    int64_t ready = t + c->latency;
    if (missing) {
        int nmiss = missing == mask ? nsect : popcount64(missing);
        *nmiss_out += nmiss;
        int64_t now = t << LS_TICK_SHIFT;
        *dram_free = (*dram_free > now ? *dram_free : now) + nmiss * c->sector_ticks;
        int64_t fill = ((*dram_free + LS_TICK - 1) >> LS_TICK_SHIFT) + c->dram_latency;
        lw->valid |= missing;
        if (fill > lw->fill)
            lw->fill = fill;
    }
    /* a sector still in flight (MSHR merge) is ready when its fill arrives */
    if (lw->fill > ready)
        ready = lw->fill;
    return ready;
}

/* Touch the sectors of byte range [lo, hi); returns the latest ready cycle.
 * Sector and line sizes are powers of two (checked by the model parser), so
 * the walk is shifts and masks, one L2 lookup per line; only the first and
 * last line of a range can be partial. */
static int64_t touch_range(engine *e, int64_t lo, int64_t hi, int64_t t, ls_stage_stats *st)
{
    const l2model c = e->l2;
    int64_t dram_free = e->dram_free;
    int64_t ready = t;
    int sls = c.sectors_per_line_shift;
    int64_t s0 = lo >> c.sector_shift, s1 = (hi - 1) >> c.sector_shift;
    int64_t l0 = s0 >> sls, l1 = s1 >> sls;
    int64_t spl = INT64_C(1) << sls;
    uint64_t full = spl >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << spl) - 1;
    int64_t nmiss = 0;
    uint64_t blk = ~UINT64_C(0), scr = 0; /* l2_set's last block and scramble */
    for (int64_t line = l0; line <= l1; line++) {
        uint64_t mask = full;
        int64_t nsect = spl;
        if (line == l0 || line == l1) {
            int64_t first = line << sls;
            int64_t a = s0 > first ? s0 - first : 0;
            int64_t b = s1 < first + spl - 1 ? s1 - first : spl - 1;
            nsect = b - a + 1;
            mask = (nsect >= 64 ? ~UINT64_C(0) : ((UINT64_C(1) << nsect) - 1)) << a;
        }
        int64_t r = l2_access(&c, &dram_free, line, l2_set(&c, line, &blk, &scr), mask, (int)nsect,
                              t, &nmiss);
        if (r > ready)
            ready = r;
    }
    int64_t nsect_all = s1 - s0 + 1;
    st->sectors += nsect_all;
    st->sector_hits += nsect_all - nmiss;
    e->dram_free = dram_free;
    int64_t bytes = nmiss * c.sector_bytes;
    st->dram_bytes += bytes;
    e->res->dram_bytes += bytes;
    return ready;
}

static int cmp_interval(const void *a, const void *b)
{
    const interval *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Merge lane intervals (sorted in place) into disjoint ones; returns count. */
static int merge_intervals(interval *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_interval);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m > 0 && v[i].lo <= v[m - 1].hi) {
            if (v[i].hi > v[m - 1].hi)
                v[m - 1].hi = v[i].hi;
        } else {
            v[m++] = v[i];
        }
    }
    return m;
}

/* Byte intervals a subgroup's load of input k touches in workgroup /
 * iteration coords, relative to the tile base. */
static int load_intervals(engine *e, int k, int sg, int load, const int64_t *wg_coord,
                          const int64_t *it_coord, interval *out, int64_t *active_bytes)
{
    const ls_derived *d = e->d;
    int64_t w = e->plan->inputs[k].width, ebytes = e->plan->inputs[k].elem_bytes;
    int n = 0;
    *active_bytes = 0;
    for (int64_t ln = 0; ln < d->subgroup_size; ln++) {
        int64_t tid = (int64_t)sg * d->subgroup_size + ln;
        for (int64_t el = 0; el < w; el++) {
            int64_t x[LS_MAX_RANK];
            bool valid;
            int64_t reg = ls_operand_register(d, &e->oregs[k], load, el);
            ls_thread_element(d, e->p, tid, wg_coord, it_coord, reg, x, &valid);
            if (!valid)
                continue;
            int64_t a = ls_operand_index(e->p, k, x) * ebytes;
            out[n].lo = a;
            out[n].hi = a + ebytes;
            n++;
            *active_bytes += ebytes;
        }
    }
    return merge_intervals(out, n);
}

/* A promoted input's copy vector `load` of every lane of subgroup sg: the
 * derived thread layout's elements of the operand tile, at the tile's
 * origin (elements past a ragged edge are masked). */
static int copy_intervals(engine *e, int k, int sg, int load, const int64_t *wg_coord,
                          const int64_t *it_coord, interval *out, int64_t *active_bytes)
{
    const ls_derived *d = e->d;
    const ls_problem *p = e->p;
    const ls_operand *o = &p->inputs[k];
    int64_t w = e->plan->promote[k].copy_width, ebytes = e->plan->inputs[k].elem_bytes;
    int64_t origin[LS_MAX_RANK];
    ls_tile_origin(d, p, wg_coord, it_coord, origin);
    int n = 0;
    *active_bytes = 0;
    for (int64_t ln = 0; ln < d->subgroup_size; ln++) {
        int64_t tid = (int64_t)sg * d->subgroup_size + ln;
        for (int64_t el = 0; el < w; el++) {
            int64_t y[LS_MAX_RANK], x[LS_MAX_RANK] = {0};
            ls_plan_promote_coord(e->plan, k, tid, load, el, y);
            bool valid = true;
            for (int j = 0; j < o->map_n; j++) {
                x[o->map[j]] = origin[o->map[j]] + y[j];
                valid &= x[o->map[j]] < p->size[o->map[j]];
            }
            if (!valid)
                continue;
            int64_t a = ls_operand_index(p, k, x) * ebytes;
            out[n].lo = a;
            out[n].hi = a + ebytes;
            n++;
            *active_bytes += ebytes;
        }
    }
    return merge_intervals(out, n);
}

static void precompute_loads(engine *e)
{
    const ls_derived *d = e->d;
    const ls_plan *pl = e->plan;
    int64_t entries = 0, total = 0;
    for (int k = 0; k < pl->n_inputs; k++) {
        e->ival_first[k] = (int)entries;
        entries += e->nsub * pl->inputs[k].loads;
        total += e->nsub * pl->inputs[k].loads * d->subgroup_size * pl->inputs[k].width;
    }
    for (int k = 0; k < pl->n_inputs; k++) {
        e->copy_first[k] = (int)entries;
        if (!pl->promote[k].on)
            continue;
        entries += e->nsub * pl->promote[k].copy_loads;
        total += e->nsub * pl->promote[k].copy_loads * d->subgroup_size * pl->promote[k].copy_width;
    }
    int64_t zero[LS_MAX_RANK] = {0};
    e->ival_start = ls_xcalloc((size_t)entries, sizeof *e->ival_start);
    e->ival_count = ls_xcalloc((size_t)entries, sizeof *e->ival_count);
    e->ivals = ls_xcalloc((size_t)total, sizeof *e->ivals);
    int64_t at = 0, dummy;
    for (int k = 0; k < pl->n_inputs; k++)
        for (int sg = 0; sg < e->nsub; sg++)
            for (int64_t l = 0; l < pl->inputs[k].loads; l++) {
                /* workgroup 0, iteration 0 is an interior tile unless the problem
                 * is smaller than one tile; ragged tiles take the slow path anyway. */
                int c = load_intervals(e, k, sg, (int)l, zero, zero, e->ivals + at, &dummy);
                int64_t i = e->ival_first[k] + sg * pl->inputs[k].loads + l;
                e->ival_start[i] = (int)at;
                e->ival_count[i] = c;
                at += c;
            }
    for (int k = 0; k < pl->n_inputs; k++)
        for (int sg = 0; pl->promote[k].on && sg < e->nsub; sg++)
            for (int64_t l = 0; l < pl->promote[k].copy_loads; l++) {
                int c = copy_intervals(e, k, sg, (int)l, zero, zero, e->ivals + at, &dummy);
                int64_t i = e->copy_first[k] + sg * pl->promote[k].copy_loads + l;
                e->ival_start[i] = (int)at;
                e->ival_count[i] = c;
                at += c;
            }
}

/* ------------------------------------------------------------- execution */

static void dispatch(engine *e, int wg_slot, int wgp, int64_t t)
{
    wgstate *w = &e->wgs[wg_slot];
    w->wg = e->next_wg++;
    w->wgp = wgp;
    w->arrived = w->finished = 0;
    ls_workgroup_coord(e->d, w->wg, w->wg_coord);
    for (int s = 0; s < e->nsub; s++) {
        int slot = wg_slot * e->nsub + s;
        sgstate *g = &e->sgs[slot];
        g->wg_slot = wg_slot;
        g->sg = s;
        g->wgp = wgp;
        /* Warps take the SM's sub-partitions by warp slot (slot % 4 on
         * NVIDIA since Volta), so workgroups resident side by side spread
         * over the schedulers: the slot of subgroup s is its workgroup's
         * resident position on the WGP times nsub, plus s. */
        g->sched = (int)(((int64_t)(wg_slot / (int)e->hw->wgp_count) * e->nsub + s) %
                         e->hw->schedulers_per_wgp);
        g->pc = 0;
        g->iteration = 0;
        g->tile_iteration = -1;
        g->waiting = false;
        g->done_cycle = 0;
        for (int i = 0; i < e->ncode; i++)
            g->ready[i] = 0;
        for (int k = 0; k < LS_STAGE_COUNT; k++) {
            g->stage_first[k] = -1;
            g->stage_last[k] = -1;
        }
        push(e, t, slot);
    }
}

static void record_slow(engine *e, ls_record_kind kind, const sgstate *g, int64_t cycle,
                        int64_t ready, const tinst *in)
{
    ls_engine_record r;
    r.kind = kind;
    r.cycle = cycle;
    r.ready = ready;
    r.workgroup = e->wgs[g->wg_slot].wg;
    r.subgroup = kind == LS_REC_BARRIER ? -1 : g->sg;
    r.stage = in ? in->stage : LS_STAGE_STORE;
    r.op = in ? (int32_t)in->kind : -1;
    r.iteration = g->iteration;
    r.step = in ? in->step : -1;
    r.bytes = e->rec_cost.bytes;
    r.sectors = e->rec_cost.sectors;
    r.sector_hits = e->rec_cost.sector_hits;
    r.smem_cycles = e->rec_cost.smem_cycles;
    r.barrier_wait = e->rec_cost.barrier_wait;
    memset(&e->rec_cost, 0, sizeof e->rec_cost); /* one record's */
    e->opts->record(e->opts->record_ctx, &r);
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
    wgstate *w = &e->wgs[g->wg_slot];
    record(e, LS_REC_DONE, g, g->done_cycle, g->done_cycle, NULL);
    for (int k = 0; k < LS_STAGE_COUNT; k++) {
        if (g->stage_first[k] < 0)
            continue;
        e->res->stage[k].subgroup_cycles += g->stage_last[k] - g->stage_first[k];
        ls_trace *tr = e->trace;
        if (tr == NULL)
            continue;
        if (tr->n == LS_TRACE_MAX_SLICES) {
            tr->truncated = true;
            continue;
        }
        if (tr->n == tr->cap) {
            tr->cap = tr->cap ? tr->cap * 2 : 4096;
            tr->slices = ls_xrealloc(tr->slices, tr->cap * sizeof *tr->slices);
        }
        ls_trace_slice *sl = &tr->slices[tr->n++];
        sl->wgp = g->wgp;
        sl->track = (int32_t)((g->wg_slot / (int)e->hw->wgp_count) * e->nsub + g->sg);
        sl->workgroup = w->wg;
        sl->subgroup = g->sg;
        sl->stage = k;
        sl->start = g->stage_first[k];
        sl->end = g->stage_last[k];
    }
    if (g->done_cycle >= e->last_finish) {
        e->last_finish = g->done_cycle;
        memcpy(e->crit_first, g->stage_first, sizeof e->crit_first);
        memcpy(e->crit_last, g->stage_last, sizeof e->crit_last);
    }
    if (++w->finished == e->nsub) {
        e->finished_wgs++;
        if (e->opts && e->opts->progress)
            e->opts->progress(e->opts->progress_ctx, e->finished_wgs, e->d->total_workgroups);
        int64_t t = 0;
        for (int s = 0; s < e->nsub; s++)
            if (e->sgs[g->wg_slot * e->nsub + s].done_cycle > t)
                t = e->sgs[g->wg_slot * e->nsub + s].done_cycle;
        if (e->next_wg < e->d->total_workgroups)
            dispatch(e, g->wg_slot, w->wgp, t);
        else
            w->wg = -1;
    }
}

static void step(engine *e, int slot, int64_t t)
{
    sgstate *g = &e->sgs[slot];
    const ls_hw *hw = e->hw;
    const tinst *in = &e->code[g->pc];
    /* operands */
    int64_t ready = t;
    for (int k = 0; k < 2; k++)
        if (in->dep[k] >= 0 && g->ready[in->dep[k]] > ready)
            ready = g->ready[in->dep[k]];
    int64_t *sched = &e->sched_free[g->wgp * hw->schedulers_per_wgp + g->sched];
    if (ready > t || *sched > t) { /* wait for both; re-checked when it fires */
        push(e, ready > *sched ? ready : *sched, slot);
        return;
    }
    *sched = t + 1;
    ls_stage_stats *st = &e->res->stage[in->stage];
    st->instructions++;
    e->res->instructions++;
    if (g->stage_first[in->stage] < 0)
        g->stage_first[in->stage] = t;
    int64_t done = t + hw->alu_latency;
    wgstate *w = &e->wgs[g->wg_slot];
    /* the stage figures before, for a recorder: this issue's own share */
    int64_t b_bytes = st->global_bytes, b_sectors = st->sectors, b_hits = st->sector_hits,
            b_smem = st->smem_cycles;
    switch (in->kind) {
    case I_ALU: break;
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
    case I_GLOAD: {
        if (g->tile_iteration != g->iteration) { /* once per iteration, not per load */
            ls_iteration_coord(e->d, e->p, g->iteration, g->it_coord);
            g->tile_ragged = ls_tile_is_ragged(e->d, e->p, w->wg_coord, g->it_coord);
            for (int k = 0; k < e->plan->n_inputs; k++)
                g->tile_base[k] = e->op_base[k] +
                                  ls_tile_input_base(e->d, e->p, e->in_strides[k], w->wg_coord,
                                                     g->it_coord) *
                                      e->plan->inputs[k].elem_bytes;
            g->tile_iteration = g->iteration;
        }
        const int64_t *it_coord = g->it_coord;
        int k = in->operand;
        done = t;
        if (!g->tile_ragged) {
            int64_t base = g->tile_base[k];
            int64_t i0 = in->copy ? e->copy_first[k] + g->sg * e->plan->promote[k].copy_loads + in->load
                                  : e->ival_first[k] + g->sg * e->plan->inputs[k].loads + in->load;
            const interval *iv = e->ivals + e->ival_start[i0];
            for (int i = 0; i < e->ival_count[i0]; i++) {
                int64_t r = touch_range(e, base + iv[i].lo, base + iv[i].hi, t, st);
                st->global_bytes += iv[i].hi - iv[i].lo;
                if (r > done)
                    done = r;
            }
        } else {
            int64_t width = in->copy ? e->plan->promote[k].copy_width : e->plan->inputs[k].width;
            interval *tmp = ls_xcalloc((size_t)(e->d->subgroup_size * width), sizeof *tmp);
            int64_t active;
            int n = in->copy ? copy_intervals(e, k, g->sg, in->load, w->wg_coord, it_coord, tmp, &active)
                             : load_intervals(e, k, g->sg, in->load, w->wg_coord, it_coord, tmp, &active);
            for (int i = 0; i < n; i++) {
                int64_t r = touch_range(e, e->op_base[k] + tmp[i].lo, e->op_base[k] + tmp[i].hi,
                                        t, st);
                if (r > done)
                    done = r;
            }
            st->global_bytes += active;
            free(tmp);
        }
        if (done == t) /* fully masked: no memory traffic */
            done = t + hw->alu_latency;
        break;
    }
    case I_SMEM_ST:
    case I_SMEM_LD: {
        int64_t deg =
            in->promote ? e->promote_degree[in->operand][(in->kind == I_SMEM_LD) *
                                                             e->plan->promote[in->operand].copy_loads +
                                                         in->load]
                        : e->smem_degree[(in->kind == I_SMEM_LD) * e->plan->results_per_thread +
                                         in->result];
        int64_t *unit = &e->smem_free[g->wgp];
        int64_t start = *unit > t ? *unit : t;
        *unit = start + deg;
        done = start + deg + hw->smem_latency;
        st->smem_accesses++;
        st->smem_cycles += deg;
        if (deg > st->smem_max_degree)
            st->smem_max_degree = deg;
        break;
    }
    case I_GSTORE: {
        /* writes of this subgroup for one result slot, posted through L2 */
        int64_t bytes = in->index ? e->index_store_bytes : e->store_bytes;
        int64_t now = t << LS_TICK_SHIFT;
        e->dram_free = (e->dram_free > now ? e->dram_free : now) +
                       (in->index ? e->index_store_ticks : e->store_ticks);
        st->global_bytes += bytes;
        st->dram_bytes += bytes;
        e->res->dram_bytes += bytes;
        done = t + hw->l2_latency;
        break;
    }
    case I_BARRIER: {
        g->barrier_arrival = t;
        g->ready[g->pc] = t;
        g->pc++;
        if (++w->arrived < e->nsub) {
            g->waiting = true; /* released by the last arrival */
            record(e, LS_REC_ISSUE, g, t, t, in);
            return;
        }
        int64_t release = t + hw->barrier_latency, waited = 0;
        st->barriers++; /* one per workgroup release */
        for (int s = 0; s < e->nsub; s++)
            waited += release - e->sgs[g->wg_slot * e->nsub + s].barrier_arrival;
        record(e, LS_REC_ISSUE, g, t, t, in);
        e->rec_cost.barrier_wait = waited;
        record(e, LS_REC_BARRIER, g, release, release, in);
        w->arrived = 0;
        for (int s = 0; s < e->nsub; s++) {
            sgstate *o = &e->sgs[g->wg_slot * e->nsub + s];
            st->barrier_wait_cycles += release - o->barrier_arrival;
            o->waiting = false;
            if (release > o->stage_last[in->stage])
                o->stage_last[in->stage] = release;
            push(e, release, g->wg_slot * e->nsub + s);
        }
        return;
    }
    }
    g->ready[g->pc] = done;
    if (e->recording) {
        e->rec_cost.bytes = st->global_bytes - b_bytes;
        e->rec_cost.sectors = st->sectors - b_sectors;
        e->rec_cost.sector_hits = st->sector_hits - b_hits;
        e->rec_cost.smem_cycles = st->smem_cycles - b_smem;
    }
    record(e, LS_REC_ISSUE, g, t, done, in);
    if (done > g->stage_last[in->stage])
        g->stage_last[in->stage] = done;
    if (done > g->done_cycle)
        g->done_cycle = done;
    g->pc++;
    if (g->pc == e->loop_end && ++g->iteration < e->plan->iterations)
        g->pc = e->loop_begin;
    if (g->pc == e->ncode) {
        finish_subgroup(e, slot);
        return;
    }
    /* Wake when the next instruction's operands are ready: only this
     * subgroup's own issues change its scoreboard, so that time is known
     * now, and waking at t+1 just to stall again would cost an event. */
    const tinst *nx = &e->code[g->pc];
    int64_t wake = t + 1;
    for (int k = 0; k < 2; k++)
        if (nx->dep[k] >= 0 && g->ready[nx->dep[k]] > wake)
            wake = g->ready[nx->dep[k]];
    push(e, wake, slot);
}

ls_status ls_engine_run(const ls_plan *plan, const ls_hw *hw, ls_sim_result *res,
                        const ls_engine_opts *opts, ls_diag *diag)
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
    if (occ < 1)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "a workgroup of %lld threads (%lld bytes of shared memory) does not "
                           "fit on one %s WGP",
                           (long long)d->workgroup_size, (long long)smem, hw->name);
    res->occupancy = occ;
    res->workgroups = d->total_workgroups;
    res->waves = (d->total_workgroups + hw->wgp_count * occ - 1) / (hw->wgp_count * occ);
    int64_t resident = hw->wgp_count * occ;
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
        at += ((ls_operand_elements(p, k) * plan->inputs[k].elem_bytes + 4095) / 4096) * 4096;
    }
    if (plan->argcmp)
        ls_engine_build_template_argcmp(&e);
    else
        ls_engine_build_template(&e);
    int64_t loop = e.loop_end - e.loop_begin, per_sg, total;
    if (!ls_mul_ok(loop, plan->iterations, &per_sg) || (per_sg += e.ncode - loop) < 0 ||
        !ls_mul_ok(per_sg, d->total_workgroups * e.nsub, &total) ||
        total > LS_MAX_SIM_INSTRUCTIONS) {
        free(e.code);
        return ls_diag_set(diag, LS_ERR_LIMIT, p->file, p->line, p->col,
                           "the simulation would issue more than %lld subgroup-instructions "
                           "(the limit); simulate a smaller problem",
                           (long long)LS_MAX_SIM_INSTRUCTIONS);
    }
    l2model *c = &e.l2;
    c->sets = hw->l2_bytes / (hw->l2_line_bytes * hw->l2_ways);
    c->sets_pow2 = (c->sets & (c->sets - 1)) == 0;
    c->set_bits = 1;
    while (c->set_bits < 62 && (INT64_C(1) << c->set_bits) < c->sets)
        c->set_bits++;
    c->ways = (int)hw->l2_ways;
    c->sector_shift = __builtin_ctzll((uint64_t)hw->sector_bytes);
    c->sectors_per_line_shift = __builtin_ctzll((uint64_t)(hw->l2_line_bytes / hw->sector_bytes));
    c->latency = hw->l2_latency;
    c->dram_latency = hw->dram_latency;
    c->sector_bytes = hw->sector_bytes;
    c->sector_ticks = llround((double)hw->sector_bytes * LS_TICK / hw->dram_bytes_per_cycle);
    size_t nlines = (size_t)(c->sets * hw->l2_ways);
    c->way = ls_xcalloc(nlines, sizeof *c->way);
    c->order = ls_xmalloc(nlines);
    c->fp = ls_xcalloc(nlines, 1);
    for (size_t i = 0; i < nlines; i++)
        c->order[i] = (uint8_t)(i % (size_t)hw->l2_ways);
    for (size_t i = 0; i < nlines; i++)
        c->way[i].tag = -1;
    e.sched_free = ls_xcalloc((size_t)(hw->wgp_count * hw->schedulers_per_wgp), sizeof(int64_t));
    e.shfl_free = ls_xcalloc((size_t)hw->wgp_count, sizeof(int64_t));
    e.smem_free = ls_xcalloc((size_t)hw->wgp_count, sizeof(int64_t));
    e.wgs = ls_xcalloc((size_t)e.n_wg_slots, sizeof *e.wgs);
    e.sgs = ls_xcalloc((size_t)(e.n_wg_slots * e.nsub), sizeof *e.sgs);
    int64_t *ready = ls_xcalloc((size_t)(e.n_wg_slots * e.nsub) * (size_t)e.ncode,
                                sizeof *ready);
    for (int i = 0; i < e.n_wg_slots * e.nsub; i++)
        e.sgs[i].ready = ready + (size_t)i * (size_t)e.ncode;
    precompute_loads(&e);
    int64_t per_store = plan->stores_per_workgroup / (e.nsub * plan->results_per_thread);
    e.store_bytes = (per_store > 0 ? per_store : 1) * plan->acc_elem_bytes;
    e.store_ticks = llround((double)e.store_bytes * LS_TICK / hw->dram_bytes_per_cycle);
    e.index_store_bytes = (per_store > 0 ? per_store : 1) * plan->index_bytes;
    e.index_store_ticks =
        llround((double)e.index_store_bytes * LS_TICK / hw->dram_bytes_per_cycle);
    ls_engine_smem_degrees(&e);
    e.head = ls_xmalloc(LS_WHEEL * sizeof *e.head);
    e.tail = ls_xmalloc(LS_WHEEL * sizeof *e.tail);
    for (int i = 0; i < LS_WHEEL; i++)
        e.head[i] = e.tail[i] = -1;
    e.free_node = -1;
    for (int w = 0; w < e.n_wg_slots; w++)
        dispatch(&e, w, (int)(w % hw->wgp_count), 0);
    event ev;
    while (pop(&e, &ev))
        step(&e, ev.slot, ev.cycle);
    res->cycles = e.last_finish;
    res->kernel_us = (double)res->cycles / (double)hw->clock_mhz;
    res->launch_us = hw->launch_us;
    res->time_us = res->kernel_us + res->launch_us;
    res->dram_gbps = res->kernel_us > 0 ? (double)res->dram_bytes / (res->kernel_us * 1e3) : 0;
    res->dram_fraction = res->dram_gbps / hw->dram_gbps;
    for (int k = 0; k < LS_STAGE_COUNT; k++)
        if (e.crit_first[k] >= 0 && e.crit_last[k] >= e.crit_first[k])
            res->stage[k].critical_cycles = e.crit_last[k] - e.crit_first[k];
    free(ready);
    free(e.code);
    free(e.heap);
    free(e.nodes);
    free(e.head);
    free(e.tail);
    free(e.sched_free);
    free(e.shfl_free);
    free(e.smem_free);
    free(e.wgs);
    free(e.sgs);
    free(e.l2.way);
    free(e.l2.order);
    free(e.l2.fp);
    free(e.ivals);
    free(e.ival_start);
    free(e.ival_count);
    free(e.smem_degree);
    for (int k = 0; k < p->n_inputs; k++)
        free(e.promote_degree[k]);
    return LS_OK;
}
