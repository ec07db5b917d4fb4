/* engine_internal.h: the engine's state, shared by the event loop
 * (engine.c) and the per-subgroup program it runs (engine_program.c): the
 * instruction template, the subgroup and workgroup slots, the L2 arrays. */
#ifndef LANESCOPE_ENGINE_INTERNAL_H
#define LANESCOPE_ENGINE_INTERNAL_H

#include <stddef.h>

#include "lanescope/body_issue.h"
#include "lanescope/engine.h"
#include "lanescope/functional.h"
#include "lanescope/layout.h"

/* I_SFU: a special-function (transcendental) instruction of the body */
typedef enum { I_GLOAD, I_ALU, I_SHUFFLE, I_DPP, I_BARRIER, I_SMEM_ST, I_SMEM_LD, I_GSTORE, I_SFU } ikind;

#define LS_TINST_DEPS 3 /* an FMA's operands */

typedef struct {
    ikind kind;
    ls_stage stage;
    /* template entries whose results it reads (-1: none); a third only
     * for an FMA (engine_accumulate.c) or a three-input instruction two
     * ops fuse into (a fused chain's, a fold's: ls_fused_fold) */
    int dep[LS_TINST_DEPS];
    int load;         /* I_GLOAD: load index within the iteration, of input `operand` */
    int iter_offset;  /* loop body: which iteration of the unrolled body (0..unroll-1) */
    int operand;
    int result;       /* smem/store: result slot */
    int step;         /* shuffle/DPP: step index within its reduction, else -1 */
    /* the instruction whose result is its step's value (the combine, or a
     * DPP move LLVM folded the combine into): the stepper counts steps so */
    bool step_end;
    bool after_move;               /* part of a step, after its lane move (a combine, a quieting) */
    const ls_subgroup_reduce *red; /* that reduction (its steps' partners), else NULL */
    bool index;       /* arg_compare: the index half (its store and buffer bytes) */
    bool copy;        /* I_GLOAD: promote_operands' copy of input `operand` (load = copy vector) */
    bool promote;     /* I_SMEM_ST/LD: input `operand`'s promoted buffer (load as above) */
    int issues;       /* issue cycles it takes: a split global load's pieces, 0 for the
                       * second half of a packed pair (engine_accumulate.c), else 1 */
    int loop;         /* the loop it sits in (engine.loops), -1: before or after every loop */
    /* the span it counts in: its stage, or in a fused kernel its phase's
     * stage (phase x LS_STAGE_COUNT + stage), so that each loop's stages
     * have spans of their own that nest (engine.nspans) */
    int span;
    /* I_GSTORE of an elementwise op of a fused kernel: its bytes and DRAM
     * ticks (0: the plan's result store, engine.store_bytes) */
    int64_t store_bytes, store_ticks;
    /* such a store's writing subgroups: 0 .. writers - 1 (0: all); the
     * others' copies of it are guarded off (fused.h, own_layout) */
    int writers;
    /* dep[] as scoreboard entries (ls_engine_assign_scoreboard): -1
     * becomes entry 0, which always reads 0, so a step reads every operand without
     * a branch; wr is the entry its own result goes to */
    int32_t rd[LS_TINST_DEPS];
    int32_t wr;
} tinst;

/* A subgroup's stage and whether it must pass step()'s operand check,
 * one 16-bit key the event loop compares with an instruction's. */
typedef union {
    struct {
        int8_t stage;    /* the span (tinst.span) sgstate.cur_* are of, -1 before the first issue */
        bool waiting;    /* at a barrier, or released and not stepped since: the only
                          * event whose operands may not be ready when it fires */
    };
    uint16_t key;
} stagekey;

typedef struct { /* a timing-wheel bucket: its first and last slot, -1 when empty */
    int32_t head, tail;
} bucket;

/* What the event loop's ALU path reads of an instruction, 20 bytes. */
typedef struct {
    int32_t rd[LS_TINST_DEPS], wr; /* tinst's */
    uint16_t fast_key;   /* an ALU instruction's: its stage, not waiting; for any other
                          * instruction, or the program's last, a key no subgroup has */
    int8_t back;         /* on a loop's last instruction, the loop's index + 1, else 0 */
    uint8_t free;        /* issues 0: the second half of a packed pair, no issue slot */
} hinst;
_Static_assert(sizeof(hinst) == 20, "an instruction's hot fields stay 20 bytes");

/* One loop of the program: its instructions [begin, end), run trips times.
 * A subgroup's iteration counts on across loops (a fused kernel's loops
 * run one after another): the loop runs iterations [trip0, trip0 + trips),
 * and its iteration i is tile (i - trip0) x unroll + iter_offset. */
#define LS_ENGINE_MAX_LOOPS 8 /* ls_sim_result.loop_trips[] holds as many */
#define LS_MAX_SPANS (LS_ENGINE_MAX_LOOPS * LS_STAGE_COUNT)
typedef struct {
    int begin, end;
    int64_t trip0, trips, unroll;
} eloop;

typedef struct {
    int64_t cycle;
    uint64_t seq;
    int32_t slot;
} event;

/* A scheduler's issue slots: one issue a cycle, each cycle given to the
 * first subgroup that asks for it (docs/timing-model.md, "Issue order").  A ring of
 * LS_SCHED_WORDS 64-cycle words, each tagged with its 64-cycle block, holds
 * the cycles given away; a subgroup asks for cycles at most LS_SCHED_AHEAD
 * past the clock, so every cycle still asked about fits the ring. */
enum { LS_SCHED_WORDS = 16, LS_SCHED_AHEAD = 512 };
_Static_assert(LS_SCHED_AHEAD + 128 <= LS_SCHED_WORDS * 64,
               "the ring spans the cycles asked about");
typedef struct {
    int64_t block;  /* the 64-cycle block the word holds (cycle >> 6) */
    uint64_t taken; /* its cycles given away */
} schedword;
typedef struct {
    schedword w[LS_SCHED_WORDS];
} schedring;

/* A scheduler's ring while one subgroup asks for cycles: the word of the
 * cycle at hand is held here (in registers, when inlined) and goes back
 * to the ring when the cursor moves to another word or closes. */
typedef struct {
    schedring *ring;
    schedword *w;
    int64_t block;
    uint64_t taken;
} schedcursor;

static inline void sched_load(schedcursor *k, int64_t block)
{
    k->block = block;
    k->w = &k->ring->w[block & (LS_SCHED_WORDS - 1)];
    k->taken = k->w->block == block ? k->w->taken : 0; /* another block's: stale, empty */
}

/* Open the ring at cycle c. */
static inline schedcursor sched_open(schedring *ring, int64_t c)
{
    schedcursor k = {ring, NULL, 0, 0};
    sched_load(&k, c >> 6);
    return k;
}

/* Put the word at hand back (a stale word's slot holds no live block). */
static inline void sched_close(schedcursor *k)
{
    k->w->block = k->block;
    k->w->taken = k->taken;
}

/* The first cycle >= c the scheduler has not given away; the cursor moves
 * to its word. */
static inline int64_t sched_first_free(schedcursor *k, int64_t c)
{
    for (;;) {
        if (c >> 6 != k->block) {
            sched_close(k);
            sched_load(k, c >> 6);
        }
        uint64_t open = ~k->taken >> (c & 63);
        if (open)
            return c + __builtin_ctzll(open);
        c = (c | 63) + 1;
    }
}

/* Give cycle c away: the one sched_first_free just returned. */
static inline void sched_take(schedcursor *k, int64_t c)
{
    k->taken |= UINT64_C(1) << (c & 63);
}

typedef struct {
    int64_t lo, hi; /* relative byte interval [lo, hi) */
} interval;

/* The DRAM queue counts in ticks of 2^-20 cycle: integer arithmetic, and a
 * rounding error per sector far below a cycle over any run. */
#define LS_TICK_SHIFT 20
#define LS_TICK (INT64_C(1) << LS_TICK_SHIFT)
/* The clock's limit: no event past 2^40 cycles, no DRAM queue past 2^60
 * ticks.  A .hw file may give latencies of 10^6 cycles and 0.01 bytes a
 * cycle, so a run of legal size could otherwise carry t << LS_TICK_SHIFT
 * past int64.  Stage sums stay exact too: at most 2^22 resident subgroups
 * (1 GiB of state, over 256 bytes each) times 2^40 cycles.  A run that gets
 * there stops with an error (engine.clock_over). */
#define LS_MAX_SIM_CYCLES (INT64_C(1) << 40)
#define LS_MAX_SIM_TICKS (LS_MAX_SIM_CYCLES << LS_TICK_SHIFT)

/* One cache way (L1, L2 or the memory-side cache).  Tag, valid mask and
 * fill cycle sit together because a lookup that found its way (through the
 * fingerprints) reads all three: one host cache line instead of three. */
typedef struct {
    int64_t tag;    /* line index + 1, 0 when empty */
    uint64_t valid; /* valid-sector mask */
    int64_t fill;   /* cycle the last fill of the line arrives */
} cway;

/* One set-associative, sectored, LRU cache's arrays and geometry, in
 * `instances` independent copies of `sets` sets each (the L1 of every WGP,
 * the L2 of every XCD, one memory-side cache). */
typedef struct {
    cway *way;           /* per way: tag, valid sectors, fill cycle */
    /* per set, 2 x ways bytes: each way's 8-bit fingerprint of its tag,
     * then the way indices, most recently used first (exact LRU), each
     * stored XORed with its position so that zero bytes are an order */
    uint8_t *meta;
    int64_t sets;        /* per instance */
    int64_t instances;
    bool sets_pow2;
    int set_bits;        /* ceil(log2(sets)): the width of one hash fold */
    int ways;            /* 0: the cache is off */
    /* A large cache (more than LS_L2_DENSE_LINES lines in all) keeps only
     * the sets the run touches: an open-addressed table maps a set to its
     * slot in way, order and fp, which grow as sets are first touched.
     * slot_cap == 0: dense, the set is its own slot. */
    int64_t *slot_key;   /* set of each table entry, -1: empty */
    int32_t *slot_of;    /* slot of each table entry */
    int64_t slot_cap;    /* table entries, a power of two */
    int64_t nslots, slots_alloc; /* slots in use, slots allocated */
    uint64_t hash_block, hash_scramble; /* cache_set's last block and its scramble */
} cachemodel;

/* The memory system's constants, copied out of the model once. */
typedef struct {
    int sector_shift, sectors_per_line_shift;
    int64_t sector_bytes;
    int64_t l1_latency, l2_latency, l2_far_latency, mall_latency, dram_latency;
    int64_t sector_ticks; /* DRAM time of one sector, in ticks */
    int64_t partitions, wgps, xcds;
    int64_t mshrs;        /* per WGP, 0: no limit */
    int mall_block_shift; /* log2 of the lines in a memory-side cache block */
    bool partitions_pow2;
    bool has_l1, has_mall; /* the model has them (a streaming run allocates neither) */
} memconst;

/* A resident subgroup: one cache line, all a step reads but its
 * scoreboard, unless it loads -- the span of the stage it is in is kept
 * here (cur_*), the rest of its state apart in sgcold. */
typedef struct {
    _Alignas(64) const hinst *hp; /* the next instruction's; its template index is hp - engine.hot */
    int64_t *sb;          /* its scoreboard: sb_stride entries of engine.sb */
    int64_t iteration;
    int64_t done_cycle;
    int64_t cur_first, cur_last; /* cur_stage's span so far (-1: none) */
    int32_t sched_slot;   /* wgp x schedulers_per_wgp + its scheduler: its sched_free entry */
    stagekey sk;          /* the stage cur_first / cur_last are of; waiting */
    int32_t wg_slot;      /* resident workgroup slot, -1 when free */
    int32_t wgp;
} sgstate;
_Static_assert(sizeof(sgstate) == 64, "a step's fields fill one cache line");
_Static_assert(sizeof(stagekey) == 2, "stage and waiting compare as one key");

/* The rest of a resident subgroup (engine.sgc, indexed as engine.sgs):
 * the other stages' spans, the tile of its loads. */
typedef struct {
    /* a load reads the first line */
    _Alignas(64) int64_t tile_iteration; /* iteration the cached tile data below is for */
    int64_t tile_base[LS_MAX_INPUTS];
    int32_t sg;           /* subgroup index within the workgroup */
    bool tile_ragged;
    int64_t it_coord[LS_MAX_RANK];
    int64_t stage_first[LS_MAX_SPANS], stage_last[LS_MAX_SPANS]; /* per span; cur's: stale */
    int64_t barrier_arrival;
} sgcold;
_Static_assert(offsetof(sgcold, tile_ragged) < 64, "a load's fields fit one cache line");

typedef struct {
    int64_t wg;           /* workgroup id, -1 when free */
    int wgp;
    int arrived, finished;
    int64_t wg_coord[LS_MAX_RANK];
    int64_t wg_half[LS_MAX_INPUTS]; /* ls_engine_wg_half of each input */
    bool wg_ragged;      /* its half of every tile's raggedness (ls_tile_ragged_half) */
} wgstate;

typedef struct {
    const ls_plan *plan;
    const ls_problem *p;
    const ls_derived *d;
    const ls_hw *hw;
    ls_sim_result *res;
    tinst *code;
    int ncode, loop_begin, loop_end; /* a one-loop builder's loop, made loops[0] */
    int n_loops;         /* 0 until the program is built */
    eloop loops[LS_ENGINE_MAX_LOOPS];
    /* building a fused kernel's phase (engine_fused.c): input k of the
     * phase's plan held in registers is the result of instruction
     * held[k] - 1 (0: none); its result is not stored (no_store); the
     * builder leaves the index of its last result instruction in
     * last_result */
    int held[LS_MAX_INPUTS];
    /* a loop-invariant input's first load, emitted once before the loop
     * (plan.inputs[k].hoisted); -1: loaded in the loop */
    int pre_load[LS_MAX_INPUTS];
    bool no_store;
    int last_result;
    /* ... and the stores each iteration of its loop makes besides (a
     * stored producer fused into it), with their bytes and DRAM ticks */
    int64_t loop_stores, loop_store_bytes, loop_store_ticks;
    int sb_entries;      /* scoreboard entries a subgroup needs (ls_engine_assign_scoreboard) */
    int sb_stride;       /* entries from one subgroup's scoreboard to the next */
    int64_t *sb;         /* per subgroup slot, sb_stride apart: each entry's completion cycle */
    hinst *hot;          /* per instruction: the event loop's fast path's fields */
    /* events: timing wheel + overflow heap */
    event *heap;
    int nheap, capheap;
    uint64_t seq;
    int64_t now;
    int64_t wheel_end;   /* a push below it goes in the wheel: now + LS_WHEEL, at most
                          * LS_MAX_SIM_CYCLES + 1 */
    int64_t iterations;  /* the loop's trips: the plan's iterations / unroll */
    int64_t unroll;      /* the plan's iterations per trip of the compiled loop
                          * (ls_engine_unroll) */
    int32_t *next_slot;  /* per subgroup slot: the next slot in its wheel bucket */
    bucket *wheel;       /* LS_WHEEL buckets (engine.c) */
    int64_t in_wheel;
    /* machine */
    schedring *sched;    /* wgp x schedulers */
    int64_t *shfl_free, *smem_free;
    int64_t *sfu_free; /* per scheduler (wgp x schedulers_per_wgp + slot) */
    sgstate *sgs;
    sgcold *sgc;
    wgstate *wgs;
    int n_wg_slots, nsub;
    int64_t next_wg;     /* the next workgroup to dispatch (one XCD) */
    int64_t next_wg_xcd[64]; /* per XCD (xcds > 1): workgroups go round-robin over the XCDs */
    int64_t dispatch_free; /* the dispatcher's next free cycle (dispatch_cycles apart) */
    /* memory */
    memconst mc;
    cachemodel l1, l2, mall;
    int64_t *mshr_done;  /* wgp x mshrs: the cycle each request slot frees */
    int64_t *mshr_next;  /* per WGP: requests made so far */
    int64_t *near_partition; /* per WGP in use: its L2 partition (l2_partitions > 1) */
    int64_t dram_free;   /* DRAM queue drained until this many ticks (LS_TICK per cycle) */
    bool clock_over;     /* an event or the DRAM queue passed the clock's limit */
    int64_t in_strides[LS_MAX_INPUTS][LS_MAX_RANK];
    /* the loops, sizes and layout each input is addressed in, and its
     * index there: the plan's (d, p, k), or in a fused kernel the phase's
     * that loads it -- an own-layout phase's (fused.h) are its own, and
     * its tiles are never ragged (in_own) */
    const ls_derived *in_d[LS_MAX_INPUTS];
    const ls_problem *in_p[LS_MAX_INPUTS];
    int in_k[LS_MAX_INPUTS];
    bool in_own[LS_MAX_INPUTS];
    int64_t max_iterations; /* the longest loop's iterations (the table's length) */
    int64_t op_base[LS_MAX_INPUTS]; /* byte address of each input tensor */
    int64_t input_bytes; /* the inputs' bytes, each padded to 4 KiB */
    bool streaming;      /* no line is asked for twice: the caches are skipped (engine_stream.c) */
    /* per iteration of the reduction loop, what its tiles share in every
     * workgroup (ls_engine_iteration_table): each input's offset half, in
     * elements (iterations x inputs), and whether that half is ragged;
     * NULL when the loop is too long to table */
    int64_t *it_half;
    bool *it_ragged;
    ls_operand_regs oregs[LS_MAX_INPUTS];
    interval *ivals;     /* per (input, subgroup in wg, load): merged intervals, interior tiles */
    int64_t *ival_start; /* may pass 2^31: subgroups x loads x lanes x width intervals */
    int *ival_count;     /* one load's: lanes x width <= 2^30 */
    int ival_first[LS_MAX_INPUTS]; /* index of (input, subgroup 0, load 0) */
    int64_t *smem_degree; /* per (write 0 / read 1, result slot) */
    int copy_first[LS_MAX_INPUTS]; /* index of (promoted input, subgroup 0, copy load 0) */
    ls_engine_record rec_cost;     /* recording: the memory figures of the next record */
    ls_stage_stats rec_before;     /* recording: the stage's figures before this issue */
    /* per promoted access (copy stores, then compute reads) two entries:
     * the banks' busy cycles (a split vector's pieces summed), the largest
     * conflict degree of one piece */
    int64_t *promote_degree[LS_MAX_INPUTS];
    int64_t last_finish;
    int64_t store_bytes, store_ticks; /* per GSTORE instruction */
    int64_t index_store_bytes, index_store_ticks; /* arg_compare's index stores */
    ls_trace *trace;
    const ls_engine_opts *opts;
    bool recording;
    int64_t finished_wgs;
    int nspans;          /* spans of the program: LS_STAGE_COUNT, or a fused kernel's per phase */
    int64_t crit_first[LS_MAX_SPANS], crit_last[LS_MAX_SPANS];
    int64_t stage_issues[LS_STAGE_COUNT]; /* per stage: one subgroup's issues in the run */
} engine;

/* engine_program.c: the template of one subgroup's instructions, and the
 * bank-conflict degrees of its cross-subgroup buffer accesses. */
/* The run's setup up to its program: occupancy, residency, operand
 * placement and the per-subgroup template (engine_setup.c); *total is the
 * subgroup-instructions the run will issue (-1: more than int64 holds). */
ls_status ls_engine_prepare(engine *out, const ls_plan *plan, const ls_hw *hw, ls_sim_result *res,
                            const ls_engine_opts *opts, int64_t *total, ls_diag *diag);
void ls_engine_build_template(engine *e);
void ls_engine_build_template_argcmp(engine *e);
/* sim/engine_attention.c: an attention's program (plan->attention). */
void ls_engine_build_template_attention(engine *e);
/* The instructions ls_engine_build_template appends for e->plan (its
 * bound, -1 past INT32_MAX), and the append itself into e->code, which
 * holds that many more (the fused kernel's phases, engine_fused.c). */
int64_t ls_engine_template_cap(const engine *e);
void ls_engine_append_template(engine *e);
/* sim/engine_accumulate.c: the loop body's body ops and combines, after
 * its loads (iteration j's input k from first_load + j * loads +
 * in_off[k]), and the most it appends. */
void ls_engine_emit_accumulate(engine *e, ls_body_issue *bi, int first_load, const int *in_off,
                               int64_t loads);
/* Before the loop: the loop-invariant inputs' loads (plan.inputs[k].
 * hoisted; e->pre_load), then the body's loop-invariant ops, once, as
 * tracker bi counts them (body_issue.h). */
void ls_engine_emit_hoisted(engine *e, const ls_body_issue *bi);
/* One register's body in iteration j after its operands' loads ld[]: c's
 * ALU then special-function instructions in a dependent chain (op o reads
 * input o + 1), the first `paired` ALU ones the second halves of its
 * neighbour's packed ops (no issue slot).  Returns the last (ld[0] when
 * none). */
int ls_engine_emit_register_body(engine *e, const int *ld, int64_t j, ls_body_issue_counts c,
                                 int paired);
int64_t ls_engine_accumulate_cap(const engine *e);
/* sim/engine_fused.c: a dispatch's ops as one kernel (plan->fused). */
void ls_engine_build_template_fused(engine *e);
/* A fused kernel's registers a thread: its largest loop's, and the
 * results later loops read from registers. */
void ls_engine_fused_registers(const ls_plan *plan, const ls_hw *hw, ls_plan_regs *out);
/* One template instruction (e->code NULL: counted only), and one
 * gpu.subgroup_reduce's steps after prev; the last one's index. */
int ls_engine_emit(engine *e, ikind k, ls_stage st, int dep0, int dep1);
/* ALU instructions of one combine of two accumulator values (plan.h's
 * combine_alu, at least 1). */
int ls_engine_combine_alu(const ls_plan *pl);
/* One combine of dep0 and dep1: ls_engine_combine_alu dependent ALU
 * instructions, the first reading both; returns the last. */
int ls_engine_emit_combine_op(engine *e, ls_stage st, int dep0, int dep1);
/* The folds of `groups` groups of values, group g's s[g].values
 * instructions at v[g] (overwritten), as LLVM compiles each
 * (ls_plan_fold_shape), level by level across the groups -- the order of
 * vector ops over the accumulators, as the backend's scheduler
 * interleaves independent folds; group g's result's instruction into
 * root[g].  With `open`, a fold whose root ptxas leaves open for its
 * consumer to take in (ls_thread_reduce_shape.root_open) is not written:
 * root[g] is LS_FOLD_OPEN and open[2g], open[2g + 1] its operands (-1:
 * none, a packed fold's halves op reads one register). */
void ls_engine_emit_folds(engine *e, ls_stage st, const ls_thread_reduce_shape *s, int **v,
                          int64_t groups, int *root, int *open);
/* The thread reduce of `slots` result slots after the loop's instruction
 * last, each slot's result's instruction into root[slot] (engine_reduce.c). */
void ls_engine_emit_thread_reduce(engine *e, int last, int64_t slots, int *root);
int ls_engine_emit_reduce(engine *e, const ls_subgroup_reduce *r, ls_stage st, int prev);
/* engine_reduce.c: the 32-bit lane moves one exchange of the plan's
 * shuffled value takes */
int ls_engine_exchange_pieces(const ls_plan *pl);
/* The same for a value of `type` combined with k (an attention's max
 * and sums), not the plan's accumulator. */
int ls_engine_emit_reduce_as(engine *e, const ls_subgroup_reduce *r, ls_stage st, int prev,
                             ls_elem_type type, ls_combiner k);
void ls_engine_assign_scoreboard(engine *e, bool plain);
/* A one-loop builder's program (loop_begin, loop_end, iterations, unroll)
 * as loops[0], each instruction marked in it or not. */
void ls_engine_one_loop(engine *e);
void ls_engine_smem_degrees(engine *e);

/* engine_memory.c */
/* The caches, request queues and DRAM queue of a run, and their memory
 * (none for the caches of a streaming run: after ls_engine_streams). */
void ls_engine_memory_init(engine *e);
void ls_engine_memory_free(engine *e);
/* WGP wgp reads the sectors of byte range [lo, hi) at cycle t: the latest
 * ready cycle. */
int64_t ls_engine_touch_range(engine *e, int wgp, int64_t lo, int64_t hi, int64_t t,
                              ls_stage_stats *st);
/* Merged byte intervals of load `load` of input k by subgroup sg of a tile. */
int ls_engine_load_intervals(engine *e, int k, int sg, int load, const int64_t *wg_coord,
                             const int64_t *it_coord, interval *out, int64_t *active);
int ls_engine_copy_intervals(engine *e, int k, int sg, int load, const int64_t *wg_coord,
                             const int64_t *it_coord, interval *out, int64_t *active);
/* Intervals of interior tiles, per subgroup slot and load, computed once. */
void ls_engine_precompute_loads(engine *e);

/* A global load's addresses, as step() issues it and ls_engine_streams
 * walks it.  The byte address of input k's tile origin from the two halves
 * of its offset in elements, the workgroup's and the iteration's
 * (ls_tile_offset_half): */
static inline int64_t ls_engine_tile_base(const engine *e, int k, int64_t wg_half, int64_t it_half)
{
    return e->op_base[k] + (wg_half + it_half) * e->plan->inputs[k].elem_bits / 8;
}
/* ... where wg_half is ls_engine_wg_half's: workgroup wg's half of the
 * offset, in elements, once per workgroup (ls_tile_offset_half); wg_coord
 * is its coords in the plan's loops (an own-layout input's are its own). */
static inline int64_t ls_engine_wg_half(const engine *e, int k, int64_t wg, const int64_t *wg_coord)
{
    int64_t own[LS_MAX_RANK];
    if (e->in_own[k]) {
        ls_workgroup_coord(e->in_d[k], wg, own);
        wg_coord = own;
    }
    return ls_tile_offset_half(e->in_d[k], e->in_p[k], e->in_strides[k], wg_coord, false);
}

/* The iteration table, when the loop has at most this many iterations:
 * 64 Ki x LS_MAX_INPUTS offsets is at most 2 MiB, a few workgroups' state. */
#define LS_ITER_TABLE_MAX (INT64_C(1) << 16)
void ls_engine_iteration_table(engine *e);

/* Iteration `it`'s tile in a workgroup (wg_half, wg_ragged: ls_engine_wg_half's
 * and ls_tile_ragged_half's of the workgroup): each input's base address in
 * base[], and whether the tile is ragged.  it_coord is filled when it is, the
 * only case that reads it. */
static inline bool ls_engine_tile_at(const engine *e, int64_t it, const int64_t *wg_half,
                                     bool wg_ragged, int64_t *base, int64_t *it_coord)
{
    const ls_plan *pl = e->plan;
    if (e->it_half == NULL) {
        ls_iteration_coord(e->d, e->p, it, it_coord);
        for (int k = 0; k < pl->n_inputs; k++) {
            int64_t own[LS_MAX_RANK];
            const int64_t *c = it_coord;
            if (e->in_own[k]) {
                /* past its loop's end: not this loop's input */
                if (it >= e->in_d[k]->total_iterations) {
                    base[k] = e->op_base[k];
                    continue;
                }
                ls_iteration_coord(e->in_d[k], e->in_p[k], it, own);
                c = own;
            }
            base[k] = ls_engine_tile_base(
                e, k, wg_half[k],
                ls_tile_offset_half(e->in_d[k], e->in_p[k], e->in_strides[k], c, true));
        }
        return wg_ragged ||
               (it < e->d->total_iterations && ls_tile_ragged_half(e->d, e->p, it_coord, true));
    }
    const int64_t *half = e->it_half + it * pl->n_inputs;
    for (int k = 0; k < pl->n_inputs; k++)
        base[k] = ls_engine_tile_base(e, k, wg_half[k], half[k]);
    bool ragged = wg_ragged || e->it_ragged[it];
    if (ragged)
        ls_iteration_coord(e->d, e->p, it, it_coord);
    return ragged;
}

/* The index of load `in` of subgroup sg in ival_start / ival_count
 * (interior tiles, relative to the tile base). */
static inline int64_t ls_engine_load_slot(const engine *e, const tinst *in, int sg)
{
    int k = in->operand;
    return in->copy ? e->copy_first[k] + sg * e->plan->promote[k].copy_loads + in->load
                    : e->ival_first[k] + sg * e->plan->inputs[k].loads + in->load;
}

/* A ragged tile's intervals of load `in` of subgroup sg, relative to
 * input in->operand's address (tmp: subgroup_size x the load's width). */
static inline int ls_engine_ragged_intervals(engine *e, const tinst *in, int sg,
                                             const int64_t *wg_coord, const int64_t *it_coord,
                                             interval *tmp, int64_t *active)
{
    return in->copy ? ls_engine_copy_intervals(e, in->operand, sg, in->load, wg_coord, it_coord,
                                               tmp, active)
                    : ls_engine_load_intervals(e, in->operand, sg, in->load, wg_coord, it_coord,
                                               tmp, active);
}

/* Instruction in's tile iteration when the subgroup's iteration count is
 * `iteration` (in NULL, or outside every loop: counted as loop 0's). */
static inline int64_t ls_engine_tile_iteration(const engine *e, const tinst *in, int64_t iteration)
{
    /* a load outside every loop (a fused kernel's epilogue) reads an
     * operand over output loops only: any iteration's tile, the first */
    if (in && in->kind == I_GLOAD && in->loop < 0)
        return 0;
    const eloop *l = &e->loops[in && in->loop > 0 ? in->loop : 0];
    return (iteration - l->trip0) * l->unroll + (in ? in->iter_offset : 0);
}

/* engine_stream.c: whether every line of the inputs is asked for at most
 * once in the whole run (after ls_engine_precompute_loads). */
bool ls_engine_streams(engine *e);

#endif
