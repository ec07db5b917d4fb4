/* engine.h: the discrete-event, cycle-approximate timing model.
 *
 * When it happens, not what: the engine runs a plan's instruction template
 * for every subgroup of every workgroup on a hardware model and decides when
 * each instruction issues and completes.  Values are the functional model's
 * business (functional.h); timing never depends on them.
 *
 *  events     ordered by (cycle, sequence) -- a timing wheel with a heap for
 *             far events (engine.c): ties go first-in first-out; an event
 *             scheduled while dispatching gets the next sequence number, so
 *             it runs after every event already queued for the same cycle.  Idle time is skipped.  No host clock.
 *  machine    wgp_count WGPs, each with schedulers_per_wgp schedulers (one
 *             issue per cycle each; a subgroup uses scheduler (its resident
 *             slot on the WGP) % n, so one-subgroup workgroups spread), resident
 *             limits (threads, subgroups, workgroups, shared memory) and a
 *             dispatcher that hands out workgroups in id order, round-robin at
 *             start, then to whichever WGP frees a slot (waves).
 *  subgroups  issue in order; a scoreboard (the completion cycle of every
 *             template entry) makes a use wait for its producer while
 *             independent loads overlap.
 *  memory     a subgroup's global access is coalesced into sectors and lines;
 *             a sectored, set-associative, LRU L2 with a hashed set index
 *             (hit: l2_latency; miss:
 *             the missing sectors go to DRAM, a FIFO queue draining
 *             dram_bytes_per_cycle, plus dram_latency); stores are posted and
 *             use DRAM bandwidth.  Shared memory: an access occupies the
 *             WGP's banks for its conflict degree (distinct words in the
 *             busiest bank; the same word is a free broadcast), summed over
 *             its phases when it is wider than a bank.
 *  launch     the time is the kernel's cycles at the clock plus the model's
 *             launch_us, the end-to-end cost of a launch (an empty kernel
 *             timed with events); cycles and records start at the kernel.
 *  reductions shuffles go through a per-WGP unit (shuffle_interval cycles
 *             between issues, shuffle_latency to the result); DPP steps are
 *             VALU ops of dpp_latency; barriers release all the
 *             workgroup's subgroups barrier_latency after the last arrives.
 */
#ifndef LANESCOPE_ENGINE_H
#define LANESCOPE_ENGINE_H

#include "lanescope/hwmodel.h"
#include "lanescope/plan.h"

typedef struct {
    int64_t instructions;         /* subgroup-instructions issued */
    int64_t subgroup_cycles;      /* summed over subgroups: first issue to last completion */
    int64_t critical_cycles;      /* the same span for the subgroup that finished last */
    int64_t global_bytes;         /* bytes requested by active lanes */
    int64_t sectors;              /* sectors read (a store posts, it reads none) */
    int64_t l1_hits;              /* of them, found in the WGP's L1 */
    int64_t sector_hits;          /* of the rest, found in the L2 */
    int64_t mall_hits;            /* of the L2's misses, found in the memory-side cache */
    int64_t dram_bytes;
    int64_t shuffles, dpp_steps;
    int64_t sfu_ops;              /* special-function (transcendental) instructions */
    int64_t smem_accesses, smem_cycles; /* cycles = summed conflict degrees */
    int64_t smem_max_degree;
    int64_t barriers, barrier_wait_cycles;
} ls_stage_stats;

/* What one input's loads cost (a promoted input's copy reads included):
 * the load+accumulate stage's global figures, split by operand. */
typedef struct {
    int64_t global_bytes, sectors, l1_hits, sector_hits, mall_hits, dram_bytes;
} ls_operand_traffic;

/* One stage of one subgroup on the timeline (for Chrome trace events). */
typedef struct {
    int32_t wgp, track;      /* WGP and resident subgroup slot on it */
    int64_t workgroup;
    int32_t subgroup;
    int32_t stage;
    int64_t start, end;      /* cycles */
} ls_trace_slice;

#define LS_TRACE_MAX_SLICES (1 << 21)
/* Subgroup-instructions one simulation may issue (about an hour of engine time). */
#define LS_MAX_SIM_INSTRUCTIONS (INT64_C(1) << 34)
/* Past this many a run needs ls_engine_opts.force (`--force`): minutes of
 * wall time at the engine's tens of millions of subgroup-instructions per
 * second (README, Benchmark). */
#define LS_SIM_BUDGET_INSTRUCTIONS (INT64_C(1) << 32)

/* The most memory the engine's per-workgroup state (every resident
 * workgroup's subgroups, their instruction completion cycles) may take. */
#define LS_MAX_ENGINE_STATE_BYTES (INT64_C(1) << 30)

/* The most lines a cache keeps as one dense array (26 bytes a line: tag,
 * valid mask, fill cycle, LRU order and fingerprint; 436 MB of address
 * space, of which only the pages a run touches take memory); beyond, sets
 * come into being when first touched, through a table. */
#define LS_L2_DENSE_LINES (INT64_C(1) << 24)

typedef struct {
    ls_trace_slice *slices; /* owned; free() it */
    size_t n, cap;
    bool truncated;         /* more than max_slices: the rest were dropped */
    size_t max_slices;      /* 0: LS_TRACE_MAX_SLICES (the limit's test sets it lower) */
} ls_trace;

typedef struct {
    int64_t cycles;
    double kernel_us;                /* cycles at the model's clock */
    double launch_us;                /* the model's launch cost (hw->launch_us) */
    double time_us;                  /* kernel_us + launch_us: what CUDA events around the
                                      * launch measure */
    double dram_gbps, dram_fraction; /* achieved while the kernel runs, and of the model's peak */
    int64_t dram_bytes;
    int64_t occupancy;               /* workgroups resident per WGP */
    const char *occupancy_limit;     /* which resource set it */
    int64_t registers;               /* per thread, estimated (ls_plan_registers) */
    int64_t unroll;                  /* iterations per trip of the compiled loop (the
                                      * backend's unrolling, ls_engine_unroll) */
    /* a fused kernel's loops (plan->fused), in order: each one's trips and
     * unroll; n_loops 1 for any other program */
    int n_loops;
    int64_t loop_trips[8], loop_unroll[8];
    int64_t registers_allocated;     /* rounded up to the model's reg_granule, cut to what
                                      * one workgroup may have (the compiler spills the rest) */
    bool registers_spill;            /* the estimate did not fit: spilled */
    int64_t waves, workgroups;
    int64_t instructions, events;
    ls_stage_stats stage[LS_STAGE_COUNT];
    int n_operands;                  /* the plan's inputs */
    ls_operand_traffic operand[LS_MAX_INPUTS];
    /* No line of the inputs was asked for twice, so no lookup could hit
     * and the engine skipped the caches (sim/engine_stream.c): the same
     * figures, faster. */
    bool streamed;
} ls_sim_result;

typedef enum {
    LS_REC_ISSUE,   /* an instruction issued */
    LS_REC_BARRIER, /* a barrier released the workgroup */
    LS_REC_DONE     /* a subgroup finished */
} ls_record_kind;

/* What the engine reports to a recorder, one per issue/release/finish. */
typedef struct {
    ls_record_kind kind;
    int64_t cycle, ready;  /* issue cycle; result-ready cycle (ISSUE) */
    int64_t workgroup;
    int32_t subgroup;      /* within the workgroup; -1 for BARRIER */
    ls_stage stage;
    int32_t op;            /* 0 load, 1 ALU, 2 shuffle, 3 DPP, 4 barrier, 5/6 smem st/ld, 7 store */
    int32_t operand;       /* the input a load (op 0) reads; -1 for every other record */
    int64_t iteration;     /* partial-reduction iteration of a LOAD_ACCUMULATE instruction */
    int32_t step;          /* butterfly/DPP step index within its stage, -1 otherwise */
    /* the step's value is this instruction's result: its combine, or a DPP
     * move LLVM folded the combine into (op 3) */
    bool step_end;
    /* an instruction of a step (step >= 0) that follows its lane move: the
     * combine, or one LLVM adds (quieting a max operand, a promoted bf16
     * op); before the move: the copy of the value the move overwrites */
    bool after_move;
    /* the gpu.subgroup_reduce a butterfly/DPP step (or its combine) belongs
     * to (the plan's, or an attention kernel's), else NULL */
    const ls_subgroup_reduce *reduce;
    /* What the issue cost the memory system, as the run's stage figures
     * count it: global bytes, L2 sectors and the sectors that hit (loads,
     * stores), workgroup-memory cycles (its conflict degree); for BARRIER,
     * the cycles every subgroup of the workgroup waited for this release. */
    int64_t bytes, sectors, sector_hits, smem_cycles, barrier_wait;
    int64_t dram_bytes; /* of those bytes and sectors, what went to or came from DRAM */
    int64_t l1_hits, mall_hits; /* sectors found in the L1 / the memory-side cache
                                 * (sector_hits: in the L2), as the stage figures count */
} ls_engine_record;

/* Add what record r says a load cost to its input's figures in o[] (o has
 * LS_MAX_INPUTS entries); records other than loads add nothing. */
void ls_operand_traffic_add(ls_operand_traffic *o, const ls_engine_record *r);

typedef struct {
    ls_trace *trace; /* NULL, or every subgroup's stage spans are recorded here */
    /* Called after every finished workgroup (NULL: none).  The engine keeps
     * no clock; a caller that wants wall-time pacing reads its own. */
    void (*progress)(void *ctx, int64_t finished_workgroups, int64_t total_workgroups);
    void *progress_ctx;
    /* Called for every record (NULL: none): the stepping API's timeline.
     * Records come in the order the engine takes its events, not in cycle
     * order: a run of ALU issues is reported when it starts, a barrier's
     * release when the last subgroup arrives (the stepper sorts them). */
    void (*record)(void *ctx, const ls_engine_record *r);
    void *record_ctx;
    /* run past LS_SIM_BUDGET_INSTRUCTIONS (never past the limit) */
    bool force;
    /* Look every line up in every cache even when the run streams (no
     * line asked for twice, so no lookup can hit): the figures are the
     * same; tests compare the two walks. */
    bool full_cache_walk;
    /* One scoreboard entry per template instruction instead of entries
     * shared by results whose lifetimes do not overlap: the figures are
     * the same; tests compare the two. */
    bool plain_scoreboard;
} ls_engine_opts;

/* The subgroup-instructions a run of plan on hw would issue (-1: more than
 * int64 holds), known before it runs: the work estimate of sim and sweep. */
ls_status ls_engine_estimate(const ls_plan *plan, const ls_hw *hw, int64_t *instructions,
                             ls_diag *diag);

/* The decisions behind those errors, on the numbers alone: total
 * subgroup-instructions against the budget (unless force) and the limit;
 * the bytes of simulator state that slots resident workgroups need against
 * LS_MAX_ENGINE_STATE_BYTES (wgps and occupancy only go into the message).
 * A negative amount means more than int64 holds. */
ls_status ls_engine_work_verdict(const ls_problem *p, int64_t total, bool force, ls_diag *diag);
ls_status ls_engine_state_verdict(const ls_problem *p, int64_t state, int64_t slots, int64_t wgps,
                                  int64_t occupancy, ls_diag *diag);

/* The error ls_engine_run would give for the run's work (past the budget
 * without force, past the limit), before anything runs. */
ls_status ls_engine_check_work(const ls_plan *plan, const ls_hw *hw, bool force, ls_diag *diag);

/* How many of the plan's iterations one trip of the compiled loop holds,
 * as LLVM's loop unroller chooses for the model's backend (the unroll_*
 * keys; docs/timing-model.md, "The compiler's unrolling"): 1 when the
 * model gives no unrolling, or the loop holds barriers (promoted operands,
 * a serial reduction level), or for an arg_compare; lowered while the
 * loads in flight would pass the thread's register limit.  The CUDA
 * generator unrolls its loop by the same count. */
int64_t ls_engine_unroll(const ls_plan *plan, const ls_hw *hw);

struct ls_fused_kernel;
/* Each loop of a dispatch's one kernel unrolled as the simulator unrolls
 * it (out[i] for phase i; the CUDA generator takes the same counts): a
 * reduction's as ls_engine_unroll, an elementwise loop kept rolled (1). */
void ls_engine_fused_unrolls(const struct ls_fused_kernel *k, const ls_hw *hw, int64_t *out);

/* opts may be NULL (no force: the budget holds). */
ls_status ls_engine_run(const ls_plan *plan, const ls_hw *hw, ls_sim_result *res,
                        const ls_engine_opts *opts, ls_diag *diag);

/* Passes of one shared-memory access: byte addresses of the active lanes (n
 * of them, in lane order; lanes[i] is the lane of addr[i], NULL: lane i),
 * each access `bytes` wide.  An access up to a bank wide is one phase: its
 * conflict degree (distinct words in the busiest bank; the same word is a
 * broadcast).  A wider one is served in phases of banks x bank_bytes / bytes
 * lanes, each costing its own degree: the sum. */
int64_t ls_bank_conflict_degree(const int64_t *lanes, const int64_t *addr, int n, int64_t bytes,
                                int64_t banks, int64_t bank_bytes);
/* Promoted input k's buffer access a (its copy stores, then its compute
 * reads: ls_plan_promote_pieces) by subgroup 0's lanes on hw's banks: the
 * cycles its pieces keep the banks busy, each piece an access of its own
 * (*cycles), and the largest conflict degree of one piece (*worst). */
void ls_promote_access_banks(const ls_plan *plan, const ls_hw *hw, int k, int64_t a,
                             int64_t *cycles, int64_t *worst);
/* The phase rule ls_bank_conflict_degree charges by (draw banks draws it):
 * lanes one phase of a `bytes`-wide access serves, banks x bank_bytes /
 * bytes, or 0 when the access is no wider than a bank (one phase) ... */
int64_t ls_bank_phase_lanes(int64_t bytes, int64_t banks, int64_t bank_bytes);
/* ... and the end of the phase that starts at entry i of lanes[0..n)
 * (NULL: entry i is lane i; phases go by lane id / per; per 0: n). */
int ls_bank_phase_end(const int64_t *lanes, int n, int i, int64_t per);

/* The first register of each result slot (plan->results_per_thread of them). */
void ls_result_slot_registers(const ls_derived *d, const ls_problem *p, int64_t *slot_reg);
/* One cross-subgroup buffer access of subgroup 0: the write (read = false)
 * or the read of the result slot whose first register is reg.  Fills the
 * active lanes (lanes may be NULL) and their byte addresses, subgroup_size
 * entries at most; returns how many. */
int ls_smem_access(const ls_plan *pl, int64_t reg, bool read, int64_t *lanes, int64_t *addr);

#endif
