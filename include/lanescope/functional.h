/* functional.h: run a plan's values lane by lane and check them.
 *
 * What happens, not when: every lane computes real values of the element
 * type, in the order the lowered program combines them (sequential register
 * accumulation, the packed inner elements, the thread-local reduce in
 * register order, XOR butterflies or DPP steps, the cross-subgroup buffer,
 * the init).  The result of every output element is compared with a
 * reference reduction: exactly for integer, min/max and bitwise kinds; for
 * float add/mul within the worst-case rounding bound of any summation
 * order, gamma(n) * sum|x| (resp. gamma(n) * |product|) with
 * gamma(n) = (1+u)^n - 1 and u the unit roundoff of the reduced type.
 * Inputs come from ls_input_value(seed, linear index) -- no input array.
 * The init is the combiner's identity (what linalg.fill writes for these
 * reductions).  Deterministic: no clock, no global state.
 */
#ifndef LANESCOPE_FUNCTIONAL_H
#define LANESCOPE_FUNCTIONAL_H

#include "lanescope/npy.h"
#include "lanescope/plan.h"
#include "lanescope/value.h"

/* Input elements one functional run may generate (simulated + reference). */
#define LS_MAX_FUNCTIONAL_ELEMENTS (INT64_C(1) << 34)
/* Past this many a check needs ls_functional_opts.force (`--force`): the
 * check runs at millions of elements per second (README, Benchmark), so
 * this is minutes of wall time. */
#define LS_FUNCTIONAL_BUDGET_ELEMENTS (INT64_C(1) << 31)

/* Where plan's run fuses a product into its add as IREE's lowering does
 * (docs/reduction-families.md "Where IREE fuses a multiply and an add"). */
typedef enum {
    LS_FMA_NONE,  /* each product rounded, then added */
    LS_FMA_CHAIN, /* packed inner elements: an FMA chain, last first, then added */
    LS_FMA_AMD,   /* each product and its add one FMA (AMD's AllowFPOpFusion=Fast) */
    /* no partial_reduction (ls_derived.local_reduce_all): every reduced
     * register of an output in one FMA chain, last first, from the
     * identity, which is that output's value */
    LS_FMA_CONTRACT
} ls_fma_kind;

typedef struct {
    int64_t workgroups_run;
    int64_t outputs_checked;
    int64_t mismatches;
    double max_error_bound_ratio; /* max |sim - ref| / bound over float add/mul outputs */
    /* float add outputs held to equality: every partial sum exact
     * (ls_ref_sum_bound) */
    int64_t exact_outputs;
    ls_fma_kind fma; /* how the run fused products into their adds */
    /* maximumf/minimumf computed as maxnumf/minnumf, as the target's code
     * does (ls_problem_as_compiled) */
    bool minmax_replaced;
    /* arg_compare: outputs whose index differs from the op's scalar
     * semantics (the first best position) but names a position holding the
     * same value: IREE's lowering broke a tie its own way
     * (docs/arg-compare-lowering.md §3.4).  Not mismatches. */
    int64_t index_ties;
    int64_t tie_output[LS_MAX_RANK]; /* the first one */
    /* first mismatch */
    int64_t bad_output[LS_MAX_RANK];
    char bad_sim[96], bad_ref[96];
} ls_functional_result;

/* Where input values come from: the seeded generator, or a .npy array
 * (npy != NULL) whose shape and dtype ls_npy_check has accepted. */
typedef struct {
    uint64_t seed;
    const ls_npy *npy;
    /* Input k's whole tensor (row-major operand order) when it is the
     * result of another reduction (ls_operand.intermediate): that
     * reduction's reference values, from ls_bind_intermediates. */
    ls_value *values[LS_MAX_INPUTS];
} ls_input_source;

/* Fill in->values for every intermediate input of problem i of probs
 * (computing each producer's outputs, recursively, from in->seed). */
ls_status ls_bind_intermediates(const ls_problem *probs, size_t n, size_t i, ls_input_source *in,
                                ls_diag *diag);
void ls_free_intermediates(ls_input_source *in);
/* Every output of p (row-major over its init) into out[0 .. outputs). */
void ls_reference_outputs(const ls_problem *p, ls_input_source in, ls_value *out);
/* Output element lin of the init (row-major) as coordinates over the
 * parallel loop dims in order; returns how many. */
int ls_output_coords(const ls_problem *p, int64_t lin, int64_t *outc);

/* The array must hold the problem's input operand: same shape, same dtype. */
ls_status ls_npy_check(const ls_npy *a, const ls_problem *p, const char *path, ls_diag *diag);

/* Run workgroups [first, first + count) (count < 0: all).  Returns
 * LS_ERR_INVALID with the first mismatch described when a value is wrong. */
ls_status ls_functional_run(const ls_plan *plan, ls_input_source in, int64_t first, int64_t count,
                            ls_functional_result *res, ls_diag *diag);
/* The check's work for count workgroups (< 0: all) against the limit and,
 * unless force, the budget: the error a run would give, known before any
 * simulation starts. */
ls_status ls_functional_check_work(const ls_plan *plan, int64_t count, bool force, ls_diag *diag);
/* plan's problem as the code IREE compiles for its target computes it,
 * where that differs from the op's own semantics: arith.maximumf and
 * minimumf (the combiner and the body's) as maxnumf and minnumf where
 * IREE replaces them (ls_plan_target_replaces_minmax), so that a NaN
 * element is dropped, not propagated.  A copy for the caller to free;
 * NULL where nothing changes.  The functional run computes it, lanes and
 * reference alike. */
ls_problem *ls_problem_as_compiled(const ls_plan *plan);
/* Whether it differs: ls_problem_as_compiled would make a copy. */
bool ls_problem_minmax_replaced(const ls_plan *plan);
/* plan's kind of fused multiply-add (ls_fma_kind). */
ls_fma_kind ls_functional_fma(const ls_plan *plan);
/* Whether AMD's backend may fuse the plan's FMA chain pairwise into
 * v_dot2_f32_f16 (one rounding for two products, f32 denormals flushed),
 * which lanescope does not reproduce: an f32 chain of two f16 inputs each
 * widened, both read as 2-wide vectors (docs/reduction-families.md). */
bool ls_functional_dot2_possible(const ls_plan *plan);
/* Its name in the JSON reports: "none", "packed-chain", "amd",
 * "contract-chain". */
const char *ls_fma_kind_name(ls_fma_kind k);
/* Whether its FMA chain takes an accumulator's registers last first
 * (ContractToChainFMA's order). */
static inline bool ls_fma_last_first(ls_fma_kind k)
{
    return k == LS_FMA_CHAIN || k == LS_FMA_CONTRACT;
}
/* Its decision on the numbers alone: the elements the run would generate
 * and the problem's element count (< 0: more than int64 holds), against
 * LS_MAX_FUNCTIONAL_ELEMENTS and, unless force, the budget. */
ls_status ls_functional_work_verdict(const ls_problem *p, int64_t elements, int64_t problem_elements,
                                     bool force, ls_diag *diag);
/* The same with options (NULL: none): progress, when not NULL, is called
 * after each workgroup with the workgroups done and the total of this run;
 * force runs past the budget; outputs, when not NULL, receives each output
 * the run computes at its row-major index over the init (as
 * ls_reference_outputs lays them out; arg_compare runs leave it alone). */
typedef struct {
    void (*progress)(void *ctx, int64_t done, int64_t total);
    void *progress_ctx;
    bool force;
    ls_value *outputs;
} ls_functional_opts;
ls_status ls_functional_run_opts(const ls_plan *plan, ls_input_source in, int64_t first,
                                 int64_t count, const ls_functional_opts *opts,
                                 ls_functional_result *res, ls_diag *diag);

/* A point inside one workgroup's execution, for snapshots:
 *   LOAD_ACCUMULATE   after `iterations` iterations of the loop
 *   THREAD_REDUCE     after the thread-local reduce
 *   SUBGROUP_REDUCE   after `steps` steps of subgroup reduce number `reduce`
 *   CROSS_SUBGROUP    steps < 0: partials written to the buffer, nothing read;
 *                     else after `steps` steps of the second reduction
 *   ACC_COMBINE/STORE the final values */
typedef struct {
    ls_stage stage;
    int64_t iterations;
    int reduce, steps;
} ls_func_point;

typedef struct {
    int64_t threads, per_thread;
    bool accumulators; /* values are loop accumulators (else result slots) */
    ls_value *values;  /* threads x per_thread, owned */
    ls_value *smem;    /* the cross-subgroup buffer once written, owned (NULL before) */
    int64_t smem_n;
    /* arg_compare: each value's index, and the index buffer (NULL else) */
    ls_value *indices, *smem_indices;
} ls_func_snapshot;

/* Every lane's values of one workgroup at a point: a deterministic replay of
 * that workgroup from its start (cost: one workgroup's functional run). */
ls_status ls_functional_snapshot(const ls_plan *plan, ls_input_source in, int64_t workgroup,
                                 const ls_func_point *at, ls_func_snapshot *out, ls_diag *diag);
void ls_func_snapshot_free(ls_func_snapshot *snap);

/* The reference value of output element `out` (coordinates over the
 * problem's parallel dims in order) and its error bound. */
void ls_reference_output(const ls_problem *p, ls_input_source in, const int64_t *out,
                         ls_value *value, double *bound);

/* arg_compare: the op's scalar semantics at output `out` (the inits, then
 * every position in increasing order through the comparator), and the
 * index init (its fill, else 0). */
void ls_argcmp_reference(const ls_problem *p, ls_input_source in, const int64_t *out,
                         ls_value *value, ls_value *index);
ls_value ls_argcmp_init_index(const ls_problem *p);
/* A computed (value, index) pair at output `out` against the reference
 * pair (rv, ri): equal; a tie the lowering broke another way (the
 * comparator cannot tell the values apart and idx names a position holding
 * v); or wrong, in the value or only in the index. */
typedef enum {
    LS_ARGCMP_EQUAL,
    LS_ARGCMP_TIE,
    LS_ARGCMP_WRONG,
    LS_ARGCMP_WRONG_INDEX
} ls_argcmp_verdict;
ls_argcmp_verdict ls_argcmp_pair_check(const ls_problem *p, ls_input_source in, const int64_t *out,
                                       ls_value v, ls_value idx, ls_value rv, ls_value ri);

/* One output against its reference: exact (bit pattern, or equal floats)
 * when bound is 0, else |v - ref| <= bound; NaN matches NaN.  *max_ratio
 * keeps the largest |v - ref| / bound seen. */
bool ls_value_check(ls_elem_type t, ls_value v, ls_value ref, double bound, double *max_ratio);

/* Linear index of iteration-space element x in input k's row-major tensor
 * (through its indexing map), and per loop dim the index step. */
int64_t ls_operand_index(const ls_problem *p, int k, const int64_t *x);
void ls_operand_strides(const ls_problem *p, int k, int64_t *strides);
int64_t ls_operand_elements(const ls_problem *p, int k);
/* Size of input k's dim j (its type's, for a strided map result). */
int64_t ls_operand_dim(const ls_problem *p, int k, int j);
/* The generator's seed for input k: input 0 keeps the run's seed, so a
 * single-input reduction reads what it always did. */
uint64_t ls_operand_seed(uint64_t seed, int k);
/* Input k's element at iteration point x (its memory type). */
ls_value ls_operand_value(const ls_problem *p, ls_input_source in, int k, const int64_t *x);
/* The value the combiner folds in at iteration point x: the body evaluated
 * on every input's element (body.h), in the reduced type. */
ls_value ls_problem_element(const ls_problem *p, ls_input_source in, const int64_t *x);
/* The same, the body's values left in scratch (LS_MAX_BODY_INSTS of
 * them): the factors of a product the reduction fuses into an FMA. */
ls_value ls_problem_element_at(const ls_problem *p, ls_input_source in, const int64_t *x,
                               ls_value *scratch);
/* The init the reduction folds into (its linalg.fill's value or the
 * identity). */
ls_value ls_problem_init(const ls_problem *p);

/* Linear index of iteration-space element x in the row-major input tensor
 * (through the input indexing map). */
int64_t ls_input_index(const ls_problem *p, const int64_t *x);
/* Per loop dim, the input index step: ls_input_index(x) = sum x[i] * strides[i]. */
void ls_input_strides(const ls_problem *p, int64_t *strides);

#endif
