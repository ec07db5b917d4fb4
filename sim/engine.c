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

typedef enum { I_GLOAD, I_ALU, I_SHUFFLE, I_DPP, I_BARRIER, I_SMEM_ST, I_SMEM_LD, I_GSTORE } ikind;

typedef struct {
    ikind kind;
    ls_stage stage;
    int dep[2];       /* template entries whose results it reads (-1: none) */
    int load;         /* I_GLOAD: load index within the iteration, of input `operand` */
    int operand;
    int result;       /* smem/store: result slot */
    int step;         /* shuffle/DPP: step index within its reduction, else -1 */
    bool index;       /* arg_compare: the index half (its store and buffer bytes) */
} tinst;

typedef struct {
    int64_t cycle;
    uint64_t seq;
    int32_t slot;
} event;

typedef struct { /* an event in a wheel bucket */
    int64_t cycle;
    uint64_t seq;
    int32_t slot, next;
} wnode;

typedef struct {
    int64_t lo, hi; /* relative byte interval [lo, hi) */
} interval;

/* One L2 way.  Tag, valid mask and fill cycle sit together because a lookup
 * that found its way (through the fingerprints) reads all three: one host
 * cache line instead of three. */
typedef struct {
    int64_t tag;    /* line index, -1 when empty */
    uint64_t valid; /* valid-sector mask */
    int64_t fill;   /* cycle the last fill of the line arrives */
} l2way;

/* The L2's arrays and geometry.  touch_range copies this into a local for
 * its loop, so the compiler keeps the fields in registers although the
 * byte-array stores (which may alias anything) come in between. */
typedef struct {
    l2way *way;          /* per way: tag, valid sectors, fill cycle */
    uint8_t *order;      /* per set: way indices, most recently used first (exact LRU) */
    uint8_t *fp;         /* per way: 8-bit fingerprint of its tag */
    int64_t sets;
    bool sets_pow2;
    int ways;
    int sector_shift, sectors_per_line_shift;
    int64_t latency, dram_latency, sector_bytes;
    int64_t sector_ticks; /* DRAM time of one sector, in ticks */
} l2model;

typedef struct {
    int wg_slot;          /* resident workgroup slot, -1 when free */
    int sg;               /* subgroup index within the workgroup */
    int wgp, sched;
    int pc;
    int64_t iteration;
    int64_t *ready;       /* template entry -> completion cycle */
    int64_t stage_first[LS_STAGE_COUNT], stage_last[LS_STAGE_COUNT];
    int64_t barrier_arrival;
    bool waiting;
    int64_t done_cycle;
    int64_t tile_iteration; /* iteration the cached tile data below is for */
    int64_t it_coord[LS_MAX_RANK];
    int64_t tile_base[LS_MAX_INPUTS];
    bool tile_ragged;
} sgstate;

typedef struct {
    int64_t wg;           /* workgroup id, -1 when free */
    int wgp;
    int arrived, finished;
    int64_t wg_coord[LS_MAX_RANK];
} wgstate;

typedef struct {
    const ls_plan *plan;
    const ls_problem *p;
    const ls_derived *d;
    const ls_hw *hw;
    ls_sim_result *res;
    tinst *code;
    int ncode, loop_begin, loop_end;
    /* events: timing wheel + overflow heap */
    event *heap;
    int nheap, capheap;
    uint64_t seq;
    int64_t now;
    wnode *nodes;
    int32_t n_nodes, cap_nodes, free_node;
    int32_t *head, *tail;
    int64_t in_wheel;
    /* machine */
    int64_t *sched_free; /* wgp x schedulers */
    int64_t *shfl_free, *smem_free;
    sgstate *sgs;
    wgstate *wgs;
    int n_wg_slots, nsub;
    int64_t next_wg;
    /* memory */
    l2model l2;
    int64_t dram_free;   /* DRAM queue drained until this many ticks (LS_TICK per cycle) */
    int64_t in_strides[LS_MAX_INPUTS][LS_MAX_RANK];
    int64_t op_base[LS_MAX_INPUTS]; /* byte address of each input tensor */
    ls_operand_regs oregs[LS_MAX_INPUTS];
    interval *ivals;     /* per (input, subgroup in wg, load): merged intervals, interior tiles */
    int *ival_start, *ival_count;
    int ival_first[LS_MAX_INPUTS]; /* index of (input, subgroup 0, load 0) */
    int64_t *smem_degree; /* per (write 0 / read 1, result slot) */
    int64_t last_finish;
    int64_t store_bytes, store_ticks; /* per GSTORE instruction */
    int64_t index_store_bytes, index_store_ticks; /* arg_compare's index stores */
    ls_trace *trace;
    const ls_engine_opts *opts;
    bool recording;
    int64_t finished_wgs;
    int64_t crit_first[LS_STAGE_COUNT], crit_last[LS_STAGE_COUNT];
} engine;

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

/* ------------------------------------------------------------- template */

static int emit(engine *e, ikind k, ls_stage st, int dep0, int dep1)
{
    tinst *t = &e->code[e->ncode];
    memset(t, 0, sizeof *t);
    t->kind = k;
    t->stage = st;
    t->dep[0] = dep0;
    t->dep[1] = dep1;
    t->load = -1;
    t->result = -1;
    t->step = -1;
    return e->ncode++;
}

static int emit_reduce(engine *e, const ls_subgroup_reduce *r, ls_stage st, int prev)
{
    for (int i = 0; i < r->n_steps; i++) {
        const ls_reduce_step *s = &r->steps[i];
        int x = emit(e, s->kind == LS_STEP_SHUFFLE_XOR ? I_SHUFFLE : I_DPP, st, prev, -1);
        e->code[x].step = i;
        prev = emit(e, I_ALU, st, x, prev);
        e->code[prev].step = i;
    }
    return prev;
}

static void build_template(engine *e)
{
    const ls_plan *pl = e->plan;
    int64_t q_n = pl->results_per_thread;
    int64_t per_q = 4 + 2 * LS_MAX_STEPS * (pl->n_subgroup_reduces + 1) + 8;
    int64_t nb = pl->body_alu_ops, regs = e->d->elems_per_iteration, loads = 0;
    for (int k = 0; k < pl->n_inputs; k++)
        loads += pl->inputs[k].loads;
    int64_t cap = loads + regs * (nb + 1) + pl->local_reduce_ops + q_n * per_q + 16;
    e->code = ls_xcalloc((size_t)cap, sizeof *e->code);
    /* LOAD_ACCUMULATE: every input's loads of an iteration, then per
     * register the body's ops and the combine.  An accumulator chains on
     * itself across iterations; packed inner elements chain one after
     * another. */
    e->loop_begin = 0;
    int first_load[LS_MAX_INPUTS];
    for (int k = 0; k < pl->n_inputs; k++) {
        first_load[k] = e->ncode;
        for (int64_t l = 0; l < pl->inputs[k].loads; l++) {
            int i = emit(e, I_GLOAD, LS_STAGE_LOAD_ACCUMULATE, -1, -1);
            e->code[i].load = (int)l;
            e->code[i].operand = k;
        }
    }
    int64_t chain = pl->inner_elems > 1 && pl->load_width % pl->inner_elems == 0
                        ? pl->inner_elems
                        : 1;
    int base = e->ncode;
#define COMBINE_OF(r) ((int)(base + (r) * (nb + 1) + nb))
    for (int64_t r = 0; r < regs; r++) {
        int ld[LS_MAX_INPUTS];
        for (int k = 0; k < pl->n_inputs; k++)
            ld[k] = pl->inputs[k].loads == 0
                        ? -1
                        : first_load[k] + (int)ls_operand_load_of(e->d, &e->oregs[k], r);
        int v = ld[0];
        for (int64_t o = 0; o < nb; o++)
            v = emit(e, I_ALU, LS_STAGE_LOAD_ACCUMULATE, o == 0 ? ld[0] : v,
                     o + 1 < pl->n_inputs ? ld[o + 1] : -1);
        int prev = r % chain == 0 ? COMBINE_OF(r + chain - 1) : COMBINE_OF(r - 1);
        emit(e, I_ALU, LS_STAGE_LOAD_ACCUMULATE, v, prev);
    }
#undef COMBINE_OF
    e->loop_end = e->ncode;
    int last_loop = e->ncode - 1;
    /* THREAD_REDUCE: one chain per result slot. */
    int *qlast = ls_xcalloc((size_t)q_n, sizeof *qlast);
    int64_t ops_per_q = q_n ? pl->local_reduce_ops / q_n : 0;
    for (int64_t q = 0; q < q_n; q++) {
        int prev = last_loop;
        for (int64_t o = 0; o < ops_per_q; o++)
            prev = emit(e, I_ALU, LS_STAGE_THREAD_REDUCE, prev, -1);
        qlast[q] = prev;
    }
    for (int r = 0; r < pl->n_subgroup_reduces; r++)
        for (int64_t q = 0; q < q_n; q++)
            qlast[q] = emit_reduce(e, &pl->subgroup_reduces[r], LS_STAGE_SUBGROUP_REDUCE, qlast[q]);
    if (pl->cross_subgroup) {
        int b = emit(e, I_BARRIER, LS_STAGE_CROSS_SUBGROUP, -1, -1);
        for (int64_t q = 0; q < q_n; q++) {
            int s = emit(e, I_SMEM_ST, LS_STAGE_CROSS_SUBGROUP, qlast[q], b);
            e->code[s].result = (int)q;
        }
        b = emit(e, I_BARRIER, LS_STAGE_CROSS_SUBGROUP, -1, -1);
        for (int64_t q = 0; q < q_n; q++) {
            int s = emit(e, I_SMEM_LD, LS_STAGE_CROSS_SUBGROUP, b, -1);
            e->code[s].result = (int)q;
            qlast[q] = emit_reduce(e, &pl->cross_reduce, LS_STAGE_CROSS_SUBGROUP, s);
        }
    }
    bool serial = e->d->serial_reduce;
    for (int64_t q = 0; q < q_n; q++) {
        /* serial: the carried value is the previous iteration's own result */
        int self = e->ncode;
        qlast[q] = emit(e, I_ALU, LS_STAGE_ACC_COMBINE, qlast[q], serial ? self : -1);
    }
    if (serial) /* the reduction tiling level: every stage runs in the loop */
        e->loop_end = e->ncode;
    for (int64_t q = 0; q < q_n; q++) {
        int s = emit(e, I_GSTORE, LS_STAGE_STORE, qlast[q], -1);
        e->code[s].result = (int)q;
    }
    free(qlast);
}

/* An arg_compare (plan.h): the partial generic's per-element index
 * arithmetic, comparator and two selects; the merge's local compares; the
 * lane combines (ballot or butterfly); two buffers; two stores per output.
 * Its compares chain through the value select, the index select hangs off
 * the compare. */
static int emit_compare(engine *e, ls_stage st, int cand, int best)
{
    int c = cand;
    for (int o = 0; o < e->plan->cmp_ops; o++)
        c = emit(e, I_ALU, st, o == 0 ? cand : c, o == 0 ? best : -1);
    return c;
}

static int emit_lane_combine(engine *e, const ls_subgroup_reduce *r, ls_stage st, int prev)
{
    const ls_plan *pl = e->plan;
    if (!pl->ballot) {
        for (int i = 0; i < r->n_steps; i++) {
            int sv = emit(e, I_SHUFFLE, st, prev, -1);
            int si = emit(e, I_SHUFFLE, st, prev, -1);
            e->code[sv].step = e->code[si].step = i;
            e->code[si].index = true;
            int c = emit_compare(e, st, prev, sv);
            prev = emit(e, I_ALU, st, c, sv);
            e->code[prev].step = i; /* the stepper counts one combine per step */
            emit(e, I_ALU, st, c, si);
        }
        return prev;
    }
    if (pl->problem->argcmp.transform >= 0)
        prev = emit(e, I_ALU, st, prev, -1); /* U(value) */
    int red = emit_reduce(e, r, st, prev);
    int x = emit(e, I_ALU, st, red, prev);          /* cmp oeq */
    x = emit(e, I_ALU, st, x, -1);                  /* gpu.ballot */
    if (r->cluster_stride > 1)
        x = emit(e, I_ALU, st, x, -1);              /* arith.andi with the cluster mask */
    x = emit(e, I_ALU, st, x, -1);                  /* math.cttz */
    if (e->d->subgroup_size > 32)
        x = emit(e, I_ALU, st, x, -1);              /* arith.trunci */
    int si = emit(e, I_SHUFFLE, st, x, -1);         /* gpu.shuffle idx of the index */
    e->code[si].index = true;
    if (pl->ballot_shuffles > 1)
        return emit(e, I_SHUFFLE, st, x, -1);       /* and of the value */
    return si;
}

static void build_template_argcmp(engine *e)
{
    const ls_plan *pl = e->plan;
    int64_t q_n = pl->results_per_thread, regs = e->d->elems_per_iteration, loads = 0;
    int64_t red_regs = q_n ? pl->acc_registers / q_n : 0;
    for (int k = 0; k < pl->n_inputs; k++)
        loads += pl->inputs[k].loads;
    int64_t per_combine = 2 * LS_MAX_STEPS * (pl->cmp_ops + 4) + 16;
    int64_t cap = loads + regs * (pl->body_alu_ops + 1) + q_n * red_regs * (pl->cmp_ops + 2) +
                  q_n * (pl->n_subgroup_reduces + 1) * per_combine + q_n * (pl->cmp_ops + 16) + 16;
    e->code = ls_xcalloc((size_t)cap, sizeof *e->code);
    e->loop_begin = 0;
    int first_load[LS_MAX_INPUTS];
    for (int k = 0; k < pl->n_inputs; k++) {
        first_load[k] = e->ncode;
        for (int64_t l = 0; l < pl->inputs[k].loads; l++) {
            int i = emit(e, I_GLOAD, LS_STAGE_LOAD_ACCUMULATE, -1, -1);
            e->code[i].load = (int)l;
            e->code[i].operand = k;
        }
    }
    /* per register: index ops, compare, select value, select index; the
     * value select of the previous iteration is the compare's other operand */
    int per_reg = pl->index_ops + pl->cmp_ops + 2, base = e->ncode;
    for (int64_t r = 0; r < regs; r++) {
        int ld = first_load[0] + (int)ls_operand_load_of(e->d, &e->oregs[0], r);
        int idx = pl->n_inputs > 1
                      ? first_load[1] + (int)ls_operand_load_of(e->d, &e->oregs[1], r)
                      : -1;
        for (int o = 0; o < pl->index_ops; o++)
            idx = emit(e, I_ALU, LS_STAGE_LOAD_ACCUMULATE, idx, -1);
        int selv = base + (int)r * per_reg + per_reg - 2;
        int c = emit_compare(e, LS_STAGE_LOAD_ACCUMULATE, ld, selv);
        emit(e, I_ALU, LS_STAGE_LOAD_ACCUMULATE, c, selv);
        emit(e, I_ALU, LS_STAGE_LOAD_ACCUMULATE, c, idx);
    }
    e->loop_end = e->ncode;
    int last_loop = e->ncode - 1;
    int *qlast = ls_xcalloc((size_t)q_n, sizeof *qlast);
    for (int64_t q = 0; q < q_n; q++) { /* the merge's local step, the inits first */
        int prev = last_loop;
        for (int64_t o = 0; o < red_regs; o++) {
            int c = emit_compare(e, LS_STAGE_THREAD_REDUCE, prev, -1);
            prev = emit(e, I_ALU, LS_STAGE_THREAD_REDUCE, c, prev);
            emit(e, I_ALU, LS_STAGE_THREAD_REDUCE, c, -1);
        }
        qlast[q] = prev;
    }
    for (int r = 0; r < pl->n_subgroup_reduces; r++)
        for (int64_t q = 0; q < q_n; q++)
            qlast[q] = emit_lane_combine(e, &pl->subgroup_reduces[r], LS_STAGE_SUBGROUP_REDUCE,
                                         qlast[q]);
    if (pl->cross_subgroup) {
        int b = emit(e, I_BARRIER, LS_STAGE_CROSS_SUBGROUP, -1, -1);
        for (int64_t q = 0; q < q_n; q++)
            for (int h = 0; h < 2; h++) {
                int s = emit(e, I_SMEM_ST, LS_STAGE_CROSS_SUBGROUP, qlast[q], b);
                e->code[s].result = (int)q;
                e->code[s].index = h == 1;
            }
        b = emit(e, I_BARRIER, LS_STAGE_CROSS_SUBGROUP, -1, -1);
        for (int64_t q = 0; q < q_n; q++) {
            int sv = emit(e, I_SMEM_LD, LS_STAGE_CROSS_SUBGROUP, b, -1);
            int si = emit(e, I_SMEM_LD, LS_STAGE_CROSS_SUBGROUP, b, -1);
            e->code[sv].result = e->code[si].result = (int)q;
            e->code[si].index = true;
            int64_t slots = pl->read_cluster > 1 ? 1 : pl->buffer_shape[pl->buffer_rank - 1] -
                                                           pl->buffer_pad;
            int prev = sv;
            for (int64_t o = 0; o < slots; o++) { /* folded into the inits */
                int c = emit_compare(e, LS_STAGE_CROSS_SUBGROUP, prev, -1);
                prev = emit(e, I_ALU, LS_STAGE_CROSS_SUBGROUP, c, prev);
                emit(e, I_ALU, LS_STAGE_CROSS_SUBGROUP, c, si);
            }
            qlast[q] = pl->read_cluster > 1
                           ? emit_lane_combine(e, &pl->cross_reduce, LS_STAGE_CROSS_SUBGROUP, prev)
                           : prev;
        }
    }
    for (int64_t q = 0; q < q_n; q++)
        for (int h = 0; h < 2; h++) {
            int s = emit(e, I_GSTORE, LS_STAGE_STORE, qlast[q], -1);
            e->code[s].result = (int)q;
            e->code[s].index = h == 1;
        }
    free(qlast);
}

/* ------------------------------------------------------------- memory */

int64_t ls_bank_conflict_degree(const int64_t *addr, int n, int64_t bytes, int64_t banks,
                                int64_t bank_bytes)
{
    /* distinct words per bank; O(n * words^2) with n <= 1024 lanes */
    int64_t words[4096];
    int nw = 0;
    for (int i = 0; i < n; i++)
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

/* Portable popcount (the build does not assume the POPCNT instruction). */
static int popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}

/* Look up one line's sectors (mask, nsect of them) at cycle t; returns the data-ready cycle
 * and adds the sectors that missed to *nmiss_out.  Statistics are summed by
 * the caller: this runs once per line of every load, so it keeps to the
 * lookup itself. */
static inline int64_t l2_access(const l2model *c, int64_t *dram_free, int64_t line,
                                uint64_t mask, int nsect, int64_t t, int64_t *nmiss_out)
{
    int ways = c->ways;
    int64_t set = c->sets_pow2 ? line & (c->sets - 1) : line % c->sets;
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
        int64_t r = l2_access(&c, &dram_free, line, mask, (int)nsect, t, &nmiss);
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
        g->sched = s % (int)e->hw->schedulers_per_wgp;
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
            int64_t i0 = e->ival_first[k] + g->sg * e->plan->inputs[k].loads + in->load;
            const interval *iv = e->ivals + e->ival_start[i0];
            for (int i = 0; i < e->ival_count[i0]; i++) {
                int64_t r = touch_range(e, base + iv[i].lo, base + iv[i].hi, t, st);
                st->global_bytes += iv[i].hi - iv[i].lo;
                if (r > done)
                    done = r;
            }
        } else {
            interval *tmp = ls_xcalloc((size_t)(e->d->subgroup_size * e->plan->inputs[k].width),
                                       sizeof *tmp);
            int64_t active;
            int n = load_intervals(e, k, g->sg, in->load, w->wg_coord, it_coord, tmp, &active);
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
        int64_t deg = e->smem_degree[(in->kind == I_SMEM_LD) * e->plan->results_per_thread +
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
        int64_t release = t + hw->barrier_latency;
        st->barriers++; /* one per workgroup release */
        record(e, LS_REC_ISSUE, g, t, t, in);
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

void ls_result_slot_registers(const ls_derived *d, const ls_problem *p, int64_t *slot_reg)
{
    /* the last register feeding each slot, scanning down: its first one */
    for (int64_t r = ls_nl_registers(&d->layout); r-- > 0;) {
        int64_t a, q;
        ls_register_slots(d, p, r, &a, &q);
        slot_reg[q] = r;
    }
}

int ls_smem_access(const ls_plan *pl, int64_t reg, bool read, int64_t *lanes, int64_t *addr)
{
    const ls_derived *d = pl->derived;
    const ls_problem *p = pl->problem;
    const ls_nested_layout *l = &d->layout;
    int64_t row = pl->buffer_shape[pl->buffer_rank - 1];
    int64_t nslots = 1;
    for (int k = 0; k < l->rank; k++)
        if (!d->body_inner[k] && p->is_reduction[d->body_origin[k]])
            nslots *= l->subgroup_tile[k];
    int n = 0;
    for (int64_t ln = 0; ln < d->subgroup_size; ln++) {
        int64_t vt[LS_MAX_BODY], vs[LS_MAX_BODY], pos = 0, slot = 0;
        ls_nl_virtual_thread(l, ln, vt);
        ls_nl_virtual_subgroup(l, 0, vs);
        bool writer = ln < d->layout_lanes;
        ls_nl_coord c;
        ls_nl_register_coord(l, reg, &c);
        memcpy(c.thread, vt, sizeof vt);
        memcpy(c.subgroup, vs, sizeof vs);
        int64_t body[LS_MAX_BODY];
        ls_nl_compose(l, &c, body);
        for (int k = 0; k < l->rank; k++) {
            if (d->body_inner[k])
                continue;
            if (p->is_reduction[d->body_origin[k]])
                writer &= vt[k] == 0;
            else
                pos = pos * ls_nl_extent(l, k) + body[k];
        }
        int64_t a;
        if (!read) {
            if (!writer)
                continue;
            a = (pos * row + slot) * pl->acc_elem_bytes;
        } else {
            int64_t cpos = (ln / pl->read_stride) % pl->read_cluster;
            if (pl->read_cluster > 1 && cpos >= nslots)
                continue; /* masked */
            a = (pos * row + (pl->read_cluster > 1 ? cpos : 0)) * pl->acc_elem_bytes;
        }
        if (lanes)
            lanes[n] = ln;
        addr[n++] = a;
    }
    return n;
}

/* Conflict degrees of the cross-subgroup buffer accesses, per result slot. */
static void smem_degrees(engine *e)
{
    const ls_plan *pl = e->plan;
    const ls_derived *d = e->d;
    int64_t nq = pl->results_per_thread;
    e->smem_degree = ls_xcalloc((size_t)(2 * nq), sizeof *e->smem_degree);
    for (int64_t i = 0; i < 2 * nq; i++)
        e->smem_degree[i] = 1;
    if (!pl->cross_subgroup)
        return;
    int64_t *addr = ls_xcalloc((size_t)d->subgroup_size, sizeof *addr);
    int64_t *slot_reg = ls_xcalloc((size_t)nq, sizeof *slot_reg);
    ls_result_slot_registers(d, e->p, slot_reg);
    for (int64_t q = 0; q < nq; q++)
        for (int rd = 0; rd < 2; rd++) {
            int n = ls_smem_access(pl, slot_reg[q], rd == 1, NULL, addr);
            e->smem_degree[rd * nq + q] =
                n ? ls_bank_conflict_degree(addr, n, pl->acc_elem_bytes, e->hw->smem_banks,
                                            e->hw->smem_bank_bytes)
                  : 1;
        }
    free(addr);
    free(slot_reg);
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
    if (plan->buffer_bytes > 0 && hw->smem_bytes_per_wgp / plan->buffer_bytes < occ) {
        occ = hw->smem_bytes_per_wgp / plan->buffer_bytes;
        res->occupancy_limit = "shared memory";
    }
    if (occ < 1)
        return ls_diag_set(diag, LS_ERR_INVALID, p->file, p->line, p->col,
                           "a workgroup of %lld threads (%lld bytes of shared memory) does not "
                           "fit on one %s WGP",
                           (long long)d->workgroup_size, (long long)plan->buffer_bytes, hw->name);
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
        build_template_argcmp(&e);
    else
        build_template(&e);
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
    smem_degrees(&e);
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
    res->time_us = (double)res->cycles / (double)hw->clock_mhz;
    res->dram_gbps = res->time_us > 0 ? (double)res->dram_bytes / (res->time_us * 1e3) : 0;
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
    return LS_OK;
}
