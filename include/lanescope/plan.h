/* plan.h: the lowered reduction -- a per-workgroup SIMT program that mirrors
 * IREE's VectorDistribute lowering (reference §2-§4, seed 004).
 *
 * One plan feeds the functional executor, the timing engine and (later) the
 * CUDA code generator, so all of them run the same program.  Stages:
 *
 *   LOAD_ACCUMULATE   scf.for over the partial-reduction chunks: per-thread
 *                     vector loads (addresses from the input map over a
 *                     row-major tensor), packed inner dims reduced in
 *                     registers, elementwise combine into the partial
 *                     accumulator (ragged tails padded with the identity)
 *   THREAD_REDUCE     vector.multi_reduction over each thread's batch/outer/
 *                     element registers of the reduced dims
 *   SUBGROUP_REDUCE   gpu.subgroup_reduce per reduced dim with thread_tile > 1
 *                     (cluster = thread tile, stride = thread stride): XOR
 *                     butterfly from the stride upward, or AMD DPP steps for
 *                     stride-1 clusters on ROCm
 *   CROSS_SUBGROUP    only when a reduced dim has subgroup_tile > 1: barrier,
 *                     one writer per duplication group stores its partial in
 *                     a workgroup buffer [parallel..., subgroups] padded by
 *                     64 bits, barrier, every subgroup reads (padding =
 *                     identity) and reduces again with a butterfly over
 *                     PowerOf2Ceil(subgroups) lanes
 *   ACC_COMBINE       combine with the op's init value
 *   STORE             guarded store: one thread per output element
 */
#ifndef LANESCOPE_PLAN_H
#define LANESCOPE_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lanescope/layout.h"

typedef enum {
    LS_STAGE_LOAD_ACCUMULATE,
    LS_STAGE_THREAD_REDUCE,
    LS_STAGE_SUBGROUP_REDUCE,
    LS_STAGE_CROSS_SUBGROUP,
    LS_STAGE_ACC_COMBINE,
    LS_STAGE_STORE,
    LS_STAGE_COUNT
} ls_stage;

typedef enum {
    LS_STEP_SHUFFLE_XOR, /* v = kind(v, shuffle xor v, offset) */
    LS_STEP_DPP,         /* v = kind(v, dpp(v, ctrl)) */
    LS_STEP_READLANE,    /* v = kind(readlane(v, a), readlane(v, b)) or broadcast */
    LS_STEP_SWIZZLE      /* v = ds_swizzle bit mode: lane (l & ~31) | offset of its 32 */
} ls_step_kind;

typedef enum {
    LS_DPP_QUAD_PERM_1032,
    LS_DPP_QUAD_PERM_2301,
    LS_DPP_ROW_HALF_MIRROR,
    LS_DPP_ROW_MIRROR,
    LS_DPP_ROW_BCAST_15,
    LS_DPP_ROW_BCAST_31,
    LS_DPP_PERMLANEX16
} ls_dpp_ctrl;

typedef struct {
    ls_step_kind kind;
    int64_t offset;   /* XOR offset; a swizzle's or_mask */
    ls_dpp_ctrl dpp;  /* DPP control */
    int64_t lane_a, lane_b; /* readlane sources (lane_b < 0: single source) */
} ls_reduce_step;

#define LS_MAX_STEPS 16

/* One gpu.subgroup_reduce. */
typedef struct {
    int body_dim;        /* reduced body dim it serves */
    int64_t cluster_size, cluster_stride;
    bool dpp;            /* lowered to DPP (AMD, stride 1) instead of XOR shuffles */
    int n_steps;
    ls_reduce_step steps[LS_MAX_STEPS];
} ls_subgroup_reduce;

/* promote_operands (LLVMGPUConfigureTensorLayouts marks the operand,
 * GPUVectorAlloc.cpp materializes it): every iteration, after a
 * barrier, all threads read input k's tile from global memory in a
 * derived thread layout (128-bit vectors where the tile allows,
 * getDerivedThreadLayout), write it to a workgroup buffer (innermost dim
 * padded by 64 bits, GPUReduceBankConflicts), and after a second
 * barrier read their compute-layout vectors (the plan's inputs[k].loads x
 * width) from the buffer instead of global memory. */
typedef struct {
    bool on;
    int rank;                          /* the operand's rank */
    int64_t shape[LS_MAX_RANK];        /* its tile per iteration, operand dims */
    int64_t pad, bytes;                /* innermost padding (elements), buffer bytes */
    int64_t elem_tile[LS_MAX_RANK], thread_tile[LS_MAX_RANK];
    int64_t thread_stride[LS_MAX_RANK], batch[LS_MAX_RANK];
    int64_t copy_loads, copy_width;    /* copy vectors per thread per iteration, elements */
} ls_promote;

struct ls_att_kernel;
struct ls_fused_kernel;

typedef struct {
    bool amd;      /* false: NVIDIA lowering (XOR butterflies everywhere) */
    int gfx_major; /* AMD generation: 9 = CDNA/GCN, 10..12 = RDNA */
    /* v_cvt_pk_bf16_f32 (gfx950): rounding f32 to bf16 is one instruction,
     * not five */
    bool bf16_cvt;
    char arch[16]; /* the IREE arch ("gfx942"), "" when unknown */
    /* the subgroup size the kernel runs with (0: not known yet): wave32
     * RDNA ends a 32-lane DPP reduce with a readlane, and LLVM's code
     * for a DPP step differs between wave32 and wave64 */
    int wave;
} ls_plan_target;

/* An input read through a gather (a paged attention's key or value):
 * the dense operand's rows of row_bytes each (one per batch element of
 * the indices) lie at source rows row_of[] of a source of source_bytes;
 * inputs with the same source_of share its base.  Its loads wait for the
 * loads of input index_input, which holds their rows' indices (the
 * transfer_gather's index vector). */
typedef struct {
    bool on;
    int64_t row_bytes, rows, source_bytes;
    const int64_t *row_of; /* rows entries, owned by the plan's maker */
    int source_of;         /* the first input of the same source (itself if none) */
    int index_input;
} ls_plan_gather;

typedef struct {
    const ls_problem *problem;
    const ls_derived *derived;
    /* An attention's kernel (attention.h): the engine runs its program
     * (sim/engine_attention.c) instead of a reduction's; NULL otherwise. */
    const struct ls_att_kernel *attention;
    /* A dispatch's reductions and stored elementwise ops as the one kernel
     * IREE builds, each a loop after the one before (fused.h): the engine
     * runs their programs in turn */
    const struct ls_fused_kernel *fused;
    bool amd;                /* ROCm target: DPP for stride-1 clusters */
    int gfx_major;           /* 9 for gfx9xx, 10..12 for RDNA; 0 otherwise */
    /* the target the plan was built for, with the subgroup size (whose
     * arch picks LLVM's measured DPP code: src/amd_dpp_counts.c) */
    ls_plan_target target;
    bool bf16_cvt;           /* gfx950: f32 -> bf16 in one instruction */
    /* ALU instructions of one combine of two accumulator values: 1, but
     * more on AMD for the combines LLVM compiles to several (bf16, which it
     * promotes to f32 and rounds back; 64-bit ones; ls_plan_combine_alu) */
    int combine_alu;
    /* LLVM fuses two dependent combines into one three-operand instruction
     * (ls_plan_combine_fuses3): a thread's chains of them take half */
    bool combine_fuses3;
    /* the target pairs two accumulators' combines (or FMAs) of a step in
     * one packed instruction (ls_plan_combine_pairs); on AMD never with
     * combine_fuses3, on sm_90 both for f16 and bf16 min and max (VHMNMX) */
    bool combine_pairs;

    /* LOAD_ACCUMULATE */
    int64_t iterations;      /* loop trip count (1: elided) */
    int64_t loads_per_iteration, load_width; /* vector transfer_reads per thread, elements each */
    int64_t acc_registers;   /* partial accumulator elements per thread */
    int64_t inner_elems;     /* packed inner elements reduced into each accumulator */
    int64_t load_elem_bytes, acc_elem_bytes; /* load: 0 for a sub-byte input 0 */

    /* Per input (input 0's figures are also the fields above): vector
     * reads per thread per iteration, elements each, element bits (4 for
     * the packed i4 / f4E2M1FN, two to a byte, the lower index in the low
     * nibble). */
    int n_inputs;
    struct {
        int64_t loads, width, elem_bits;
        /* Loop-invariant: the operand reads no dim the loop steps (a
         * per-row scale), so the compiled code reads it once, before the
         * loop -- MLIR's hoistRedundantVectorTransfers (IREE's
         * OptimizeVectorTransfer) and LLVM's LICM over the noalias,
         * readonly binding; loads still counts its reads an iteration
         * would take (ls_plan_input_hoisted). */
        bool hoisted;
    } inputs[LS_MAX_INPUTS];
    ls_plan_gather gather[LS_MAX_INPUTS]; /* .on: read through a gather */
    ls_promote promote[LS_MAX_INPUTS];
    int n_promoted;
    int64_t promote_bytes;                 /* every promoted buffer */
    int body_alu_ops;           /* body ops per element before the combine */
    int body_transcendental_ops; /* of those, special-function ops */
    /* The body as the backend emits it, per element (src/math_lowering.c):
     * ALU instructions and special-function instructions, after IREE's
     * math rewrites and the target's lowering of what remains. */
    int body_machine_alu_ops, body_sfu_ops;
    /* The body ends in a multiply of the accumulator's float type issued
     * as one ALU instruction: where the lowering fuses it with the
     * combine (ls_functional_fma), the timing issues one FMA for both. */
    bool body_mul_one_alu;
    /* The f16 -> f32 extensions feeding only that multiply which AMD's
     * v_fma_mix_f32 reads as its own operands (ls_body_fma_mix_exts): where
     * the multiply is fused, they cost nothing.  0 where LLVM does not pick
     * v_fma_mix_f32: a vector FMA (several accumulators) on a target with
     * packed f32 math (ls_plan_target_packed_f32). */
    int body_fma_mix_exts;
    /* Packed math in the body (ls_body_paired_ops): of its ALU
     * instructions an element, those the target computes for two
     * neighbouring elements in one (v_pk_mul_f16, v_pk_add_f16 for a subf,
     * cvt.rn.f16x2.f32); body_mul_pairs: the last multiply, which an FMA
     * may absorb, is one of them. */
    int body_pair_alu;
    bool body_mul_pairs;
    /* The other results of a multi-result linalg.generic, computed in this
     * plan's kernel (ls_plan_fuse_results); 0 for one result. */
    int extra_results;
    /* every result's folds take one shape (ls_plan_fuse_results): the
     * kernel's folds follow it, where result 0's alone would not say */
    bool results_fold_alike;
    int body_ir_ops; /* ls_body_ir_ops: what LLVM's unroller counts */

    /* THREAD_REDUCE */
    int64_t results_per_thread;     /* values per thread after the local reduce (parallel regs) */
    int64_t local_reduce_ops;       /* combine ops per thread */

    /* SUBGROUP_REDUCE */
    int n_subgroup_reduces;
    ls_subgroup_reduce subgroup_reduces[LS_MAX_BODY];
    int shuffle_bits;               /* sub-32-bit values are widened to 32 for the shuffle */

    /* CROSS_SUBGROUP */
    bool cross_subgroup;
    int buffer_rank;
    int64_t buffer_shape[LS_MAX_BODY];  /* [parallel tile..., subgroup tiles of reduced dims] */
    int64_t buffer_pad;                 /* elements added to the innermost dim */
    int64_t buffer_bytes;
    int64_t read_cluster, read_stride;  /* second butterfly */
    ls_subgroup_reduce cross_reduce;
    int barriers;                       /* gpu.barrier count of the stage */

    /* STORE */
    int64_t stores_per_workgroup;       /* output elements written */

    /* iree_linalg_ext.arg_compare (docs/arg-compare-lowering.md): every
     * stage carries a (value, index) pair.  LOAD_ACCUMULATE is the partial
     * linalg.generic (compare, two selects, index arithmetic per element);
     * THREAD_REDUCE the merge arg_compare's local step, the init folded in
     * first; SUBGROUP_REDUCE either the ballot path (gpu.subgroup_reduce of
     * the value, cmp oeq, gpu.ballot, math.cttz, gpu.shuffle idx of the
     * index) or a butterfly of gpu.shuffle xor pairs from width/2 down;
     * CROSS_SUBGROUP two buffers (values, indices) and a second merge; no
     * ACC_COMBINE (the init was folded in at the start); STORE writes
     * both results. */
    bool argcmp;
    bool ballot;
    int ballot_shuffles;       /* gpu.shuffle idx per lane combine: index (+ value under U) */
    int cmp_ops;               /* comparator instructions per compare */
    int index_ops;             /* index arithmetic per element: addi iv + j (+ base) (+ cast) */
    int index_bytes;           /* the index result's element size (index: 8) */
    /* instructions of one select of the value [0] and of the index [1]:
     * 1, but 2 on AMD for a 64-bit one (a v_cndmask_b32 per half: llc-22) */
    int select_alu[2];
    int64_t index_buffer_bytes; /* the cross-subgroup index buffer */
    /* Read from IREE's code, never from a generated config: the ballot's
     * lane mask ignores which cluster a lane is in, so with several
     * reduction clusters in one subgroup every cluster takes the winner of
     * the cluster at lane 0; and with a subgroup count that is not a power
     * of two the second merge's lanes read past the buffers (simulated as
     * reading the init).  Both are reported with the plan. */
    bool hazard_cluster, hazard_oob;
} ls_plan;

/* The target a plan was built for. */
static inline ls_plan_target ls_plan_target_of(const ls_plan *pl)
{
    return pl->target;
}

/* ALU instructions of one combine of two acc values with k on target t:
 * 1, but bf16 float combines on AMD, which no AMD GPU computes in bf16:
 * LLVM widens the operands, combines in f32 and rounds back
 * (src/math_lowering.c; tools/amd-op-counts.sh). */
int ls_bf16_combine_alu(ls_plan_target t, ls_combiner k, ls_elem_type acc);

/* IREE computes every result of a multi-result linalg.generic in one
 * kernel: checkSingleCombiner (ReductionConfigUtils.cpp) sends such an op
 * to TileAndFuse.  Gives plans[0] the ops of results 1 .. n - 1 (the union
 * of their bodies, an op shared by two results once, their combines and
 * stores), so that its engine run times the kernel.  False, nothing
 * changed, unless every plan is a TileAndFuse one. */
bool ls_plan_fuse_results(ls_plan *plans, int n);

/* The body's ops as target t's backend emits them, per element: ALU and
 * special-function instructions (src/math_lowering.c). */
void ls_body_machine_ops(const ls_body *b, ls_plan_target t, int *alu, int *sfu);
/* The body's LLVM IR instructions per element when LLVM unrolls the loop:
 * on NVIDIA IREE's MathTransform has already expanded the math ops. */
int ls_body_ir_ops(const ls_body *b, ls_plan_target t);
/* Whether b's last op is a multiply in type acc that t issues as one ALU
 * instruction (plan.body_mul_one_alu). */
bool ls_body_mul_one_alu(const ls_body *b, ls_elem_type acc, ls_plan_target t);
/* Whether target t has v_fma_mix_f32: an FMA of f16 values widened to f32
 * in one instruction (llc-22 forms it from llvm.fma of two fpext). */
bool ls_plan_target_fma_mix(ls_plan_target t);
/* Whether target t has packed f32 math (v_pk_fma_f32, v_pk_add_f32:
 * gfx90a, gfx94x, gfx95x), with which LLVM pairs the lanes of an f32
 * vector op and widens f16 operands with v_cvt_f32_f16 rather than
 * v_fma_mix_f32 (llc-22). */
bool ls_plan_target_packed_f32(ls_plan_target t);
/* The arith.extf f16 -> f32 operands of b's last multiply (an f32 one)
 * read by nothing else, which v_fma_mix_f32 folds into the FMA on t: 0, 1
 * or 2 (a square's one extension counts once). */
int ls_body_fma_mix_exts(const ls_body *b, ls_plan_target t);
/* Whether instruction i of b is one of those extensions. */
bool ls_body_fma_mix_folds(const ls_body *b, int i, ls_plan_target t);
/* The ALU and special-function instructions instruction i of b becomes on
 * t (0 and 0 for an input, a constant, a linalg.index). */
void ls_body_inst_machine_ops(const ls_body *b, int i, ls_plan_target t, int *alu, int *sfu);
/* The ALU instructions of b, an element, that target t computes for two
 * neighbouring elements in one (packed math: an add, subtract, multiply,
 * FMA of the types ls_plan_combine_pairs pairs; a truncf of f32 to f16 or
 * bf16 on gfx950 and sm_80+, cvt_pk); *last_mul: b's last op, a multiply,
 * is one of them. */
int ls_body_paired_ops(const ls_body *b, ls_plan_target t, bool *last_mul);
/* Whether instruction i of b is one of them. */
bool ls_body_op_pairs(const ls_body *b, int i, ls_plan_target t);
/* How target t's IREE pipeline computes instruction i of body b (the
 * routine or rewrite, for explain), and the instructions it becomes
 * (f16/bf16's extf and truncf included); false for an op that is one ALU
 * instruction (and every f64 math op). */
bool ls_math_lowering(const ls_body *b, int i, ls_plan_target t, const char **how, int *alu,
                      int *sfu);

/* Target kind from an IREE arch string ("gfx942" -> AMD gfx9, "sm_80" -> NVIDIA). */
ls_plan_target ls_plan_target_from_arch(const char *arch);

/* The VALU and SALU instructions LLVM compiles step s of a DPP-lowered
 * gpu.subgroup_reduce into, for a value of `type` combined with k on
 * target t (its arch and subgroup size): measured with llc-22 by
 * tools/amd-dpp-counts.py (src/amd_dpp_counts.c).  A swizzle's count is
 * besides its ds_swizzle_b32.  -1: not measured (not AMD, another type). */
/* The value a reduce combines, and where: what a step costs. */
typedef struct {
    ls_plan_target target;
    ls_elem_type type;
    ls_combiner combiner;
    int shuffle_bits;
} ls_reduce_value;

/* The value a plan's own reduces combine: its accumulator. */
ls_reduce_value ls_plan_reduce_value(const ls_plan *plan);

/* ALU instructions of one combine of a thread's dependent chain of
 * `type` values with k on target t, as LLVM's AMDGPU backend compiles it
 * (measured by tools/amd-dpp-counts.py: an f64 maxnum quiets its loaded
 * operand, an i64 max is a compare and two selects, a bf16 one is
 * promoted to f32), 1 where it fuses two into one (ls_plan_combine_fuses3)
 * and on NVIDIA; an AMD arch the table lacks falls back to
 * ls_bf16_combine_alu. */
int ls_plan_combine_alu(ls_plan_target t, ls_elem_type type, ls_combiner k);

/* Whether IREE's lowering for t replaces arith.maximumf/minimumf, and
 * vector reductions of those kinds, with maxnumf/minnumf -- which return
 * the other operand of a NaN instead of the NaN
 * (Common/ReplaceSlowMinMaxOps.cpp): ConvertToROCDL.cpp on every AMD
 * target, ConvertToNVVM.cpp below sm_80 (and where the compute capability
 * is unknown). */
bool ls_plan_target_replaces_minmax(ls_plan_target t);
/* k as t's compiled code computes it (maximumf -> maxnumf where replaced). */
ls_combiner ls_combiner_as_compiled(ls_plan_target t, ls_combiner k);

/* Whether target t computes two lanes of a vector combine of `type` with
 * k (an add also stands for its FMA) in one instruction: packed math on a
 * chain step's accumulators (src/amd_dpp.c says which, from llc-22). */
bool ls_plan_combine_pairs(ls_plan_target t, ls_elem_type type, ls_combiner k);
/* Whether plan's accumulate loop computes two accumulators an instruction:
 * combine_pairs, more than one accumulator, one result (a multi-result
 * kernel's chains stay apart). */
bool ls_plan_pairs_accumulators(const ls_plan *plan);
/* Which neighbours LLVM can pair: IREE splits every n-D vector into 1-D
 * vectors of its innermost dim (LLVMGPULegalizeNDVectors.cpp).  On NVIDIA
 * only lanes of one such vector pair (IREE's CUDA target turns LLVM's SLP
 * vectorizer off): the run is the innermost dim's element tile -- of the
 * accumulators' vector, or of the body's registers.  On AMD the SLP
 * vectorizer (on: ROCMTarget.cpp) and the backend pair independent scalar
 * ops too: 0, any two.  Index i pairs with i - 1 when
 * ls_plan_pairs_previous(run, i). */
int64_t ls_plan_pair_run(const ls_plan *plan, bool accumulators);
/* How LLVM compiles a fold of one result's values -- the thread reduce,
 * the accumulate loop's fold of a register group (src/plan_thread_reduce.c):
 * a dependent chain (an ordered fadd or fmul; an AMD scalar fold, pairs
 * fused where plan.combine_fuses3), a balanced tree (an unordered fold of
 * scalars on NVIDIA), or a tree of packed ops over the registers holding
 * two lanes, then an op on the last register's halves. */
typedef enum { LS_TR_CHAIN, LS_TR_TREE, LS_TR_PACKED_TREE } ls_thread_reduce_form;
typedef struct {
    ls_thread_reduce_form form;
    int64_t values;       /* a result's values the thread folds */
    int64_t combines;     /* the combines it issues (a chain's each plan.combine_alu) */
    int64_t instructions; /* the ALU instructions a result's fold issues */
    int64_t packed;       /* of them, packed ops (two lanes each) */
    int64_t halves_alu;   /* of them, the last register's halves' */
    int64_t depth;        /* the longest run of dependent instructions */
    /* ptxas's three-input fusing of the tree (ls_plan_fold_fuses3); fused:
     * of the instructions, those that take an op of the tree in (instructions
     * counts each once); root_open: the root is a two-input op, which a
     * consumer of the same op (the loop's join) takes in the same way */
    bool fuses3;
    int64_t fused;
    bool root_open;
} ls_thread_reduce_shape;
/* The fold of `values` values of one result, from the combiner's
 * identity (which folds away), as a vector.reduction of them compiles. */
ls_thread_reduce_shape ls_plan_fold_shape(const ls_plan *plan, int64_t values);
/* The same for a value of `type` folded with k on target t, outside the
 * plan's own combine (an attention's local max over a thread's keys). */
ls_thread_reduce_shape ls_fold_shape_of(ls_plan_target t, ls_elem_type type, ls_combiner k,
                                        int64_t values);
/* ptxas's fusing of a fold's tree (ls_plan_fold_fuses3), walked level by
 * level so that a caller can interleave several folds: LLVM's halving
 * tree (value i with i + half, the vector widened to a power of two with
 * the identity, which folds away), in which an op that reads an op ptxas
 * has not yet written takes that op's two operands in, a three-input
 * instruction.  A value is an id of the caller's; emit(ctx, a, b, c)
 * writes the op reading a, b and (c >= 0) c and returns its id. */
typedef int (*ls_fold_emit_fn)(void *ctx, int a, int b, int c);
typedef struct {
    int64_t width; /* the level's values, a power of two */
    int *val;      /* each one's id, or LS_FOLD_ABSENT, LS_FOLD_OPEN */
    int *a, *b;    /* an open op's operands */
    int *depth;    /* the longest run of instructions to a value */
} ls_fused_fold;
#define LS_FOLD_ABSENT (-1)
#define LS_FOLD_OPEN (-2)
void ls_fused_fold_init(ls_fused_fold *f, const int *v, int64_t n);
/* One level; false once one value is left.  It first writes the open ops
 * that the level's three-input ops do not take in (ls_fused_fold_close):
 * a caller interleaving folds calls that for every fold first, as the
 * backend's scheduler issues independent instructions between dependent
 * ones. */
bool ls_fused_fold_level(ls_fused_fold *f, ls_fold_emit_fn emit, void *ctx);
void ls_fused_fold_close(ls_fused_fold *f, ls_fold_emit_fn emit, void *ctx);
/* The last value's id, an open op written as two-input unless `open` is
 * given, which then gets its operands (and the result is LS_FOLD_OPEN). */
int ls_fused_fold_root(ls_fused_fold *f, ls_fold_emit_fn emit, void *ctx, int open[2]);
void ls_fused_fold_free(ls_fused_fold *f);
/* The fold of the thread reduce's values (local_reduce_ops a result, + 1). */
ls_thread_reduce_shape ls_plan_thread_reduce_shape(const ls_plan *plan);
/* Whether the join into the accumulators of the accumulate loop's fold
 * takes the fold's open root in (ls_thread_reduce_shape.root_open): one
 * scalar join an accumulator, not a whole-register fold's. */
bool ls_plan_loop_join_takes_root(const ls_plan *plan);
/* Whether the accumulate loop's grouped fold (packed inner elements, or an
 * output's registers under local_reduce_all) is a multi_reduction that
 * lowers to a vector.reduction a register group: not a contraction's. */
bool ls_plan_loop_folds_reduce(const ls_plan *plan);
/* The values of that fold: the packed inner elements, or an output's
 * registers of the iteration. */
int64_t ls_plan_loop_fold_values(const ls_plan *plan);
/* Whether that fold is a tree (of packed ops or scalars: not a chain);
 * *s, when not NULL, gets its shape. */
bool ls_plan_loop_fold_tree(const ls_plan *plan, ls_thread_reduce_shape *s);
/* --dump-plan's line on a fold of s->values values (none for one). */
void ls_plan_dump_fold(const ls_plan *plan, const ls_thread_reduce_shape *s, const char *indent,
                       FILE *f);
/* A few words on it for a caption ("a balanced tree: 7 instructions, 3 deep"). */
const char *ls_plan_fold_brief(const ls_plan *plan, const ls_thread_reduce_shape *s, char *buf,
                               size_t size);
bool ls_plan_pairs_previous(int64_t run, int64_t i);
/* The body's instructions an element the second of two neighbours issues
 * in no slot of its own: body_pair_alu less the multiply an FMA absorbs;
 * 0 where no two registers pair (a run of 1). */
int ls_plan_body_pairs_issued(const ls_plan *plan);
/* Whether the engine issues the body's last multiply and the combine as
 * one FMA: one result, a multiply of one instruction, a lowering that
 * fuses (ls_functional_fma). */
bool ls_plan_body_fma_timed(const ls_plan *plan);
/* The packed instructions that pair plan's accumulators, for --dump-plan. */
const char *ls_plan_pair_instructions(const ls_plan *plan);

/* Whether LLVM fuses two dependent combines of `type` with k into one
 * three-operand instruction on target t (v_max3_f32, v_add3_u32, ...):
 * measured by tools/amd-dpp-counts.py.  The engine halves a thread's
 * chains of such combines. */
bool ls_plan_combine_fuses3(ls_plan_target t, ls_elem_type type, ls_combiner k);
/* Whether ptxas fuses a fold tree's two-input op into the op that reads
 * it, a three-input instruction (IADD3, LOP3 and sm_90's IMNMX for i32;
 * sm_90's VHMNMX over f16 and bf16 pairs): measured with
 * tools/amd-dpp-counts.py --sass-folds.  The fold's shape counts it
 * (ls_thread_reduce_shape.fused). */
bool ls_plan_fold_fuses3(ls_plan_target t, ls_elem_type type, ls_combiner k);

#define LS_DPP_STEP_ALU_MAX 16 /* the most any measured step takes (a test checks) */
int ls_plan_dpp_step_alu(ls_plan_target t, ls_elem_type type, ls_combiner k,
                         const ls_reduce_step *s);

/* The instruction steps of one gpu.subgroup_reduce (r's cluster size and
 * stride set): XOR butterfly, or the DPP sequence on AMD. */
void ls_plan_lower_subgroup_reduce(ls_subgroup_reduce *r, ls_plan_target t);

static inline int64_t ls_pow2ceil(int64_t x)
{
    int64_t p = 1;
    while (p < x)
        p <<= 1;
    return p;
}

/* The read-back of a cross-subgroup round (IREE's
 * computeLayoutForReductionFromBuffer): the `need` partials go on lanes at
 * the stride of the first reduced dim (dims[0..n) of layout l) with that
 * many lanes; with none, the read keeps thread tile 1 and each lane
 * combines them in turn (*cluster 1, *stride 1). */
void ls_plan_readback(const ls_nested_layout *l, const int *dims, int n, int64_t need,
                      int64_t *cluster, int64_t *stride);

/* Build the plan. p and d must outlive it. */
ls_status ls_plan_build(const ls_problem *p, const ls_derived *d, ls_plan_target t,
                        ls_plan *plan, ls_diag *diag);

const char *ls_stage_name(ls_stage s);
/* Input k's per-thread vector as VectorDistribute prints it after
 * distribution: vector<batch... x outer... x element... x T> over the
 * operand's dims (the layout projected through its map; packed inner dims
 * last), e.g. "vector<1x1x1x1x1x8xf16>". */
void ls_plan_input_vector_type(const ls_plan *plan, int k, char *buf, size_t size);
/* The same for the accumulator (the output's map, the accumulator's type). */
void ls_plan_acc_vector_type(const ls_plan *plan, char *buf, size_t size);
/* The cross-subgroup buffer's type, "memref<1x10xf32, #gpu.address_space<workgroup>>". */
void ls_plan_buffer_type(const ls_plan *plan, char *buf, size_t size);
/* A step in a few words ("shuffle xor 4", "DPP row_mirror", "readlane"),
 * written into buf; returns buf. */
const char *ls_plan_step_name(const ls_reduce_step *s, char *buf, size_t size);
/* An AMD DPP control by its assembly name ("quad_perm [1,0,3,2]"). */
const char *ls_plan_dpp_name(ls_dpp_ctrl c);

/* A promoted input's copy: the operand-tile coordinate (operand dims) of
 * element `el` of copy vector `load` of thread `tid`, and the byte offset of
 * an operand-tile coordinate in its padded workgroup buffer. */
/* promote_operands: the promote fields of the plan's inputs (plan_promote.c). */
ls_status ls_plan_promote(const ls_problem *p, const ls_derived *d, ls_plan *plan, ls_diag *diag);
void ls_plan_promote_coord(const ls_plan *plan, int k, int64_t tid, int64_t load, int64_t el,
                           int64_t *y);
int64_t ls_plan_promote_offset(const ls_plan *plan, int k, const int64_t *y);
/* The element stride of operand dim j in input k's padded buffer. */
int64_t ls_plan_promote_stride(const ls_plan *plan, int k, int j);
/* Its buffer's type, "memref<4x516xf16, #gpu.address_space<workgroup>>". */
void ls_plan_promote_type(const ls_plan *plan, int k, char *buf, size_t size);
/* The workgroup-memory instructions one vector access of `elems` of input
 * k's elements to or from its buffer takes (a copy's store, a compute
 * read), every thread's offset a multiple of `align` bytes (a power of
 * two), and the bytes each one moves (*bytes, may be NULL).  NVIDIA: the
 * PTX accesses each element (IREE aligns the buffer to one element) and
 * ptxas merges up to four of them, as far as the offsets' alignment
 * allows; AMD: 16 bytes an instruction (plan_promote.c). */
int64_t ls_plan_promote_accesses(const ls_plan *plan, int k, int64_t elems, int64_t align,
                                 int64_t *bytes);
/* Promoted input k's access a per iteration (its copy_loads copy stores,
 * then its inputs[k].loads compute reads): the first byte in the buffer of
 * each of threads [0, threads) that takes part into addr, its id into
 * lanes; how many. */
int ls_plan_promote_offsets(const ls_plan *plan, int k, int64_t a, int64_t threads, int64_t *lanes,
                            int64_t *addr);
/* The instructions access a compiles to: per contiguous run of a thread's
 * elements in the buffer (a vector over several rows, or one the padding
 * breaks, is several), ls_plan_promote_accesses at the alignment of the
 * run's start over the workgroup's threads.  Each one's offset from the
 * thread's first element into rel[], its bytes into bytes[] (room for
 * 2 x elements + 1 each); how many. */
int64_t ls_plan_promote_pieces(const ls_plan *plan, int k, int64_t a, int64_t *rel, int64_t *bytes);
/* The most instructions one of its copy stores (reads: compute reads)
 * compiles to, that access's first piece's bytes into *bytes. */
int64_t ls_plan_promote_pieces_most(const ls_plan *plan, int k, bool reads, int64_t *bytes);

/* Readable listing of the plan (what `lanescope sim --dump-plan` prints). */
void ls_plan_dump(const ls_plan *plan, FILE *f);

/* The 32-bit registers per thread the plan's kernel needs at its peak (the
 * loop), an estimate to compare with ptxas -v or -Rpass-analysis: the
 * partial accumulators (and arg_compare's indices), the loaded vectors of
 * `unroll` iterations (the compiled loop body's: all in flight at once, the
 * loads issue before the first accumulate), a promoted input's copy vectors, 64-bit base addresses of
 * every operand and the result, and a fixed overhead (thread and workgroup
 * ids, the loop counter and bound, two offsets). */
typedef struct {
    int64_t accumulators, loaded, addresses, overhead, total;
} ls_plan_regs;
void ls_plan_registers(const ls_plan *plan, int64_t unroll, ls_plan_regs *r);

#endif
