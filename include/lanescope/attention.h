/* attention.h: decode attention (iree_linalg_ext.attention /
 * online_attention) as IREE's VectorDistribute pipeline lays it out, read
 * from its source (docs/attention-lowering.md): the op's dims and tiles,
 * the K2 loop, and the nested layouts of its two matmuls.
 *
 * After DecomposeAttention only the QK and PV generics carry a
 * lowering_config (the decomposition_config's qk_attrs and pv_attrs);
 * LLVMGPUConfigureTensorLayouts anchors a nested layout on each over the
 * generic's own loops -- the op's loops less N (QK) or K1 (PV) -- and every
 * other value (max, sum, P, the merge) takes its layout from those.
 *
 * Below: the layouts (src/attention.c), the values run lane by lane and
 * the snapshots a stepper shows (sim/attention_values.c, _run.c,
 * _snapshot.c), the engine's view of the kernel (sim/attention_timing.c)
 * and its listing in IREE's words (src/attention_dump.c). */
#ifndef LANESCOPE_ATTENTION_H
#define LANESCOPE_ATTENTION_H

#include "lanescope/engine.h"
#include "lanescope/hwmodel.h"
#include "lanescope/import.h"
#include "lanescope/plan.h"
#include "lanescope/suggest.h"
#include "lanescope/value.h"

/* One of the two matmuls over its own loops. */
typedef struct {
    int rank;
    int dim[LS_MAX_RANK];       /* the op's loop dim of each of its loops */
    int64_t bound[LS_MAX_RANK]; /* per workgroup and K2 tile */
    bool reduced[LS_MAX_RANK];  /* reduced inside the K2 loop (a vector.contract dim) */
    ls_lowering_config config;  /* thread, lane_basis, subgroup_basis over its loops */
    ls_nested_layout layout;    /* setGPULoweringConfigLayout */
    int64_t lanes_used, subgroups_used; /* the rest replicate (unmapped basis entries) */
} ls_att_matmul;

typedef struct {
    char name[128];
    char file[256];
    int line, col;
    int rank;
    int64_t size[LS_MAX_RANK];
    ls_attention_dims dims;
    char q_elem[24], k_elem[24], v_elem[24];
    bool has_mask;
    /* the op's config: workgroup tile (0: the whole dim) and the K2 tile
     * of the partial_reduction level (or, serial, of the reduction level) */
    int64_t workgroup[LS_MAX_RANK], k2_tile[LS_MAX_RANK];
    bool partial;
    bool op_promote;            /* promote_operands on the op itself: a no-op in IREE */
    bool suggested;             /* IREE's heuristic config (no config in the input) */
    int64_t workgroup_size, subgroup_size;
    int64_t workgroups;         /* the grid: B and M tiles x N tiles */
    int64_t iterations;         /* of the K2 loop */
    ls_att_matmul qk, pv;
} ls_attention;

/* The attention op `a` of module m on target t: its configs as written, or
 * (with none) IREE's setAttentionReductionConfig; then both layouts.
 * LS_ERR_INVALID where the op cannot be laid out (a config that names no
 * thread / basis for a matmul, dynamic sizes, IREE's MMA schedule), with
 * the reason. */
ls_status ls_attention_build(const ls_module *m, const ls_module_attention *a, const ls_target *t,
                             ls_attention *out, ls_diag *diag);

/* The same with the configs setAttentionReductionConfig derives from the
 * given seeds (suggest.h), whatever configs the op has: a sweep's point. */
ls_status ls_attention_build_seeded(const ls_module *m, const ls_module_attention *ma,
                                    const ls_target *t, const ls_attention_seeds *seeds,
                                    ls_attention *a, ls_diag *diag);

/* The per-thread vector of an operand of matmul mm read through `map`
 * (the op's loop dims of its dims), as IREE prints it after distribution:
 * vector<batch.. x outer.. x element.. x elem>. */
void ls_att_vector_type(const ls_att_matmul *mm, const int *map, int map_n, const char *elem,
                        char *buf, size_t size);

/* The positions along loop i of matmul mm (within the workgroup's and K2
 * iteration's tile, ascending, padding past the bound left out) that thread
 * tid of a workgroup with subgroups of subgroup_size holds; at most max of
 * them into out.  Returns how many there are. */
int64_t ls_att_thread_positions(const ls_att_matmul *mm, int64_t tid, int64_t subgroup_size,
                                int i, int64_t *out, int64_t max);

/* Op dim d's extent in one workgroup and K2 step: its workgroup or K2
 * tile, the whole dim for K1, for no tile, or for a tile past the dim
 * (static tiling folds min(tile, size) to the size). */
int64_t ls_att_extent(const ls_attention *a, int d);
/* The loop of matmul mm that is op dim d, -1 when it has none. */
int ls_att_loop_of(const ls_att_matmul *mm, int d);
/* Keys one K2 step brings: the K2 dims' extents multiplied. */
int64_t ls_att_step_keys(const ls_attention *a);

/* The op's arithmetic, for a roofline: the two matmuls' multiply-adds
 * as two ops each, 2 x B x M x K2 x (K1 + N) (the softmax's elementwise
 * ops aside, as a FLOP count of attention leaves them). */
double ls_att_flops(const ls_attention *a);

/* Whether dispatch d stores result r of op o (an unstored online_attention
 * result is dead, and IREE erases its merge); every result of a snippet
 * without stores counts. */
bool ls_att_result_stored(const ls_dispatch *d, const ls_dop *o, int r);

/* A thread's local tuple f over loops l[0..n) of layout ly, in the order
 * IREE's distributed vector holds them (batch.. x outer.. x element..,
 * each row-major over the loops): each loop's batch, outer and element
 * index.  ls_att_local_count: how many tuples there are. */
void ls_att_local_decode(const ls_nested_layout *ly, const int *l, int n, int64_t f, int64_t *b,
                         int64_t *o, int64_t *e);
int64_t ls_att_local_count(const ls_nested_layout *ly, const int *l, int n);

/* gpu.subgroup_reduce ops per thread that matmul mm's contract leaves in
 * one K2 iteration (one per result element and per reduced dim with lanes,
 * docs/attention-lowering.md §5.3), and whether subgroups split a reduced
 * dim (a workgroup-memory round). */
int64_t ls_att_contract_reduces(const ls_att_matmul *mm, bool *cross_subgroup);

/* ---- values (sim/attention_values.c) ---- */

typedef struct {
    int64_t workgroups_run, outputs_checked, mismatches;
    double max_error_bound_ratio; /* max |sim - ref| / bound */
    unsigned results_checked;     /* bit r: result r is stored, so checked */
    bool inits_assumed;           /* an online_attention init that is no linalg.fill:
                                   * started as IREE's conversion starts them */
    /* workgroup 0's first row, its first N position: each result's
     * lowered value there (online: acc, max, sum; attention: output) */
    double sample[3];
    /* the first mismatch: which result, the op's loop point */
    char bad_result[16];
    int64_t bad_point[LS_MAX_RANK];
    char bad_sim[48], bad_ref[48];
} ls_att_check;

/* Whether lanescope can run the attention's values: LS_ERR_INVALID with
 * the reason where it cannot (a score region with ops, a scale that is no
 * constant, an operand computed in the dispatch, <= 8-bit types, ragged
 * tiles, non-power-of-two splits of a reduced loop). */
ls_status ls_attention_values_check(const ls_module *m, const ls_module_attention *ma,
                                    const ls_attention *a, ls_diag *diag);

/* The lowered values of the first max_wg workgroups (all for < 0), every
 * thread of each running its part as IREE lowers it for target t, checked
 * against the op's definition with inputs from the generator's seed. */
ls_status ls_attention_values(const ls_module *m, const ls_module_attention *ma,
                              const ls_attention *a, ls_plan_target t, uint64_t seed,
                              int64_t max_wg, ls_att_check *res, ls_diag *diag);

/* Stepping through one workgroup (sim/attention_snapshot.c): what each
 * thread carries after `iterations` K2 steps (and, with merged, after the
 * loop: a partial loop's mergeReductions), in the order its distributed
 * vectors hold them -- per (row, key slot) of a partial loop, per row of a
 * serial one or after the merge: its max and sum (S's layout), its acc per
 * output column too (PV's layout).  NaN where a vector entry lies past the
 * tile.  The engine's timeline of the same workgroup is ls_stepper's (on
 * ls_att_view_plan); ls_stepper_point's iterations is the step to ask for. */
typedef struct {
    int64_t threads, iterations;
    bool merged;
    int64_t state_per_thread, acc_per_thread;
    float *max, *sum; /* threads x state_per_thread */
    float *acc;       /* threads x acc_per_thread */
} ls_att_snapshot;

ls_status ls_att_snapshot_at(const ls_module *m, const ls_module_attention *ma,
                             const ls_attention *a, ls_plan_target t, uint64_t seed,
                             int64_t workgroup, int64_t iterations, bool merged,
                             ls_att_snapshot *out, ls_diag *diag);
void ls_att_snapshot_free(ls_att_snapshot *s);

/* Paged attention (docs/attention-lowering.md §10.3): the mask a
 * linalg.generic of the dispatch computes (NULL: none), and for a key or
 * value a gather makes (k = 1, 2), the generator of the rows its indices
 * name.  The rows are the same for every seed, so the timing, which reads
 * the gathered rows where they lie, does not depend on the seed; gathers
 * through one index tensor read the same rows. */
const ls_module_elementwise *ls_att_mask_op(const ls_module *m, const ls_module_attention *ma);
uint64_t ls_att_gather_rowmix(const ls_module_attention *ma, int k);
/* Why lanescope cannot read operand op of a through gather g, or NULL:
 * the gather must index the source's leading dim (index depth 1), without
 * a mask, by integers, into a source whose rows are static and whose
 * slice is the operand's trailing dims, within the limits below. */
#define LS_ATT_GATHER_MAX_ROWS (INT64_C(1) << 24)  /* batch elements: the engine tables each */
#define LS_ATT_GATHER_MAX_BYTES (INT64_C(1) << 50) /* a source's bytes */
const char *ls_att_gather_problem(const ls_attention *a, const ls_dop_operand *op,
                                  const ls_module_gather *g);
/* The first operand (1 or 2) gathered from the same source as operand k
 * (k itself when none before it): gathers of one source read one tensor. */
int ls_att_gather_source_of(const ls_module_attention *ma, int k);
/* The source element (row-major over the source's shape) that gathered
 * operand coordinates y (batch dims, then the slice; sizes ysize) read. */
int64_t ls_att_gather_source(const ls_module_gather *g, const int64_t *y, const int64_t *ysize,
                             int map_n, uint64_t rowmix);

/* Element i (row-major over its dims) of loaded operand k (query 0, key
 * 1, value 2, mask 4) of type t, as the generator gives it for seed: what
 * the values run reads, and what the CUDA path uploads. */
double ls_att_input_element(uint64_t seed, int k, ls_elem_type t, int64_t i);

/* The lowered values of the stored results (ls_att_result_stored) of the
 * first max_wg workgroups (all for < 0), as the values run computes them,
 * in each result's type: out[r][i] at element i of result r's tensor
 * (row-major), with have[r][i] set; out[r] and have[r] are the caller's,
 * NULL for a result not wanted.  The CUDA path compares its kernels'
 * outputs with them bit for bit. */
ls_status ls_attention_lowered(const ls_module *m, const ls_module_attention *ma,
                               const ls_attention *a, ls_plan_target t, uint64_t seed,
                               int64_t max_wg, ls_value *const out[3], bool *const have[3],
                               ls_diag *diag);

/* Element reads a full values run makes: for the functional budget. */
int64_t ls_attention_values_work(const ls_attention *a);

/* ---- timing (sim/attention_timing.c, sim/engine_attention.c) ---- */

/* One value's reduction over some of a matmul's loops, as
 * DistributeMultiReduction lowers it (docs/attention-lowering.md §5.2):
 * a gpu.subgroup_reduce per loop with lanes, and when subgroups split the
 * loops a round through workgroup memory whose read-back reduces the
 * `parts` partials with `back` (src/plan.c's read-back rule). */
typedef struct {
    int n;
    ls_subgroup_reduce lane[LS_MAX_RANK];
    bool cross;
    ls_subgroup_reduce back;
    int64_t parts;
} ls_att_reduction;

/* The reduction of matmul mm's loops[0..n) lowered for target t. */
void ls_att_reduction_of(const ls_att_matmul *mm, const int *loops, int n, ls_plan_target t,
                         ls_att_reduction *r);
/* gpu.subgroup_reduce ops it leaves per value: one per loop with lanes,
 * and the read-back's unless its cluster of 1 folds away. */
int64_t ls_att_reduction_ops(const ls_att_reduction *r);

/* The kernel as the engine runs it: one loop nest over the op's dims (the
 * view's problem, derived layout and plan, whose inputs are the key, the
 * value and the mask, laid out as the two matmuls lay them out), and what
 * each thread computes per K2 step and after the loop
 * (docs/attention-lowering.md §8). */
typedef struct ls_att_kernel {
    const ls_attention *a;
    int k_in, v_in, mask_in;   /* the view's inputs (mask -1: none or computed) */
    bool mask_computed;        /* by a linalg.generic of the dispatch (paged attention) */
    int mask_alu, mask_sfu;    /* its instructions per S element */
    bool epilogue;             /* attention: 1 / sum and the multiply */
    bool out_trunc;            /* the stored result narrower than the work type */
    ls_elem_type work_type;    /* what S, P, the max, sum and acc are computed in */
    bool sum_merge;            /* the sum's merge runs (read by the epilogue, or stored) */
    bool trunc_p;              /* P truncated to V's type before the PV update */
    int exp2_alu, exp2_sfu;    /* one math.exp2 as the target emits it (src/math_lowering.c) */
    int div_alu, div_sfu;      /* one arith.divf */
    /* Widenings to the work type (PromoteContractOperands extends each
     * matmul's operands): ALU instructions per key element before its
     * QK FMA, per value element before its PV update, per P element
     * truncated to V's type and widened back; 0 where the operand is in
     * the work type or AMD's v_fma_mix_f32 reads the f16 value itself */
    int k_ext, v_ext, p_ext;
    /* AMD's backend fuses a multiply and the add of its product into one
     * FMA (ROCMTarget.cpp: AllowFPOpFusion::Fast): the PV update, the
     * sum's, the merge's weighted adds; NVIDIA keeps both */
    bool fuse_muladd;
    /* Packed math on the step's work-type ops over the thread's output
     * columns (ls_plan_combine_pairs: v_pk_fma_f32 and v_pk_mul_f32 on
     * gfx90a/gfx94x/gfx95x, wave32 dual issue on gfx11/gfx12, .f16x2 for
     * an f16 work type on NVIDIA): the second of two neighbouring
     * columns' rescale and update issue in no slot of their own.
     * pair_run: ls_plan_pair_run's rule, 0 on AMD (any two), else the
     * columns' innermost element tile. */
    bool pair_columns;
    int64_t pair_run;
    int64_t store_vectors;     /* stores per thread: the acc's element-tile vectors */
    /* the matmuls' loops by role: QK's rows (B, M), K1 and K2 loops, PV's
     * K2 and N loops; and per thread the rows, key slots, K1 and N
     * elements they hold */
    int rows_l[LS_MAX_RANK], k1_l[LS_MAX_RANK], k2_l[LS_MAX_RANK], pv_k2_l[LS_MAX_RANK],
        n_l[LS_MAX_RANK];
    int n_rows, n_k1, n_k2, n_pv_k2, n_n;
    int64_t rows, slots, k1loc, nloc;
    int64_t registers;         /* per thread: Q', S, P and the carried max, sum, acc */
    /* QK's contraction over K1 (each step); the max and sum over K2 and
     * the PV's over K2 (each step of a reduction tile, else the merge) */
    ls_att_reduction k1_red, qk2_red, pv2_red;
} ls_att_kernel;

typedef struct ls_att_view ls_att_view;

/* The engine's view of attention a on hw: LS_ERR_INVALID with the reason
 * where lanescope cannot time it (the QK and PV layouts disagree on a dim
 * they share, a promoted query). */
ls_status ls_attention_view(const ls_module *m, const ls_module_attention *ma,
                            const ls_attention *a, const ls_hw *hw, ls_att_view **out,
                            ls_diag *diag);
/* The view's plan, which ls_engine_run and ls_bottleneck_analyze take. */
const ls_plan *ls_att_view_plan(const ls_att_view *v);
void ls_att_view_free(ls_att_view *v);

/* ---- the lowered kernel in IREE's vocabulary (src/attention_dump.c) ---- */

/* One reduction of the kernel after distribution: what it reduces, per
 * thread its results and its own combines, the gpu.subgroup_reduce ops it
 * leaves (what IREE's pipeline test counts), and its workgroup buffer when
 * subgroups split the reduced loops. */
typedef struct {
    const char *what;           /* "S", "max", "sum", "acc" */
    const char *kind;           /* "add", "maximumf" */
    int64_t values;             /* results per thread */
    int64_t local_ops;          /* the thread's own combines over its elements */
    const ls_att_reduction *red;
    int64_t subgroup_reduces;   /* values x ls_att_reduction_ops */
    int buffer_rank;            /* 0: no round through workgroup memory */
    int64_t buffer_shape[2 * LS_MAX_RANK];
    int64_t buffer_bytes;
} ls_att_plan_reduce;

typedef struct ls_att_plan {
    const ls_att_kernel *k;
    const ls_plan *plan;        /* the engine's view (its inputs, promotions, gathers) */
    bool online;                /* online_attention (else attention's epilogue) */
    ls_elem_type work_type;     /* the type S, P, max, sum and acc are computed in */
    const char *work;           /* its name */
    /* per-thread vectors as IREE prints them after distribution */
    char q_vec[160], k_vec[160], v_vec[160], s_vec[160], p_vec[160], state_vec[160],
        acc_vec[160];
    /* the K2 loops: one scf.for per K2 dim its tile splits (a dim whole
     * in each step has none), outermost first */
    int n_loops;
    int loop_dim[LS_MAX_RANK];
    int64_t loop_upper[LS_MAX_RANK], loop_step[LS_MAX_RANK];
    int64_t iterations;
    int64_t q_scale_ops;        /* Q' = Q * (scale * log2e) per thread (0: <= 8-bit Q) */
    int64_t scores, chain;      /* S elements per thread, the FMAs of each */
    int64_t mask_ops;           /* per S element: the mask's instructions and the add */
    ls_att_plan_reduce step[4], merge[3];
    int n_step, n_merge;        /* the K2 step's reductions; the merge's (partial only) */
    int64_t exp2_step, exp2_merge;      /* math.exp2 per thread */
    int64_t subgroup_reduces_step, subgroup_reduces_merge;
    int64_t barriers_step, barriers_merge;
    int64_t store_vectors, store_width;
    char out_elem[24];
} ls_att_plan;

/* The facts of attention ma's kernel as the view v times it. */
void ls_att_plan_of(const ls_module *m, const ls_module_attention *ma, const ls_att_view *v,
                    ls_att_plan *out);
/* `sim --dump-plan`: them as text, next to IREE's IR. */
void ls_att_plan_dump(const ls_att_plan *p, FILE *f);

#endif
